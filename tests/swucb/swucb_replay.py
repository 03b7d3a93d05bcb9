"""Drive the package's fast runs and the plain oracle on one random stream, and compare whole runs."""
from __future__ import annotations

import math

import numpy as np

import swucb_oracle as oracle
from linbandits.studies.swucb import trajectories

REGRET_TOL = 1e-12
TIE_DRAWS = 20000


def streams(name, instance, seed, trial):
    return trajectories.noise_matrix(instance, seed, trial), trajectories.algorithm_rng(name, seed, trial)


def oracle_sw_ucb(instance, seed, trial, w, lam=1.0, S=1.0):
    eta, rng = streams("SW-UCB", instance, seed, trial)
    return oracle.sw_ucb(instance.X, instance.thetas, instance.noise_sd, eta, rng.random(TIE_DRAWS), w, lam, S)


def oracle_bob(instance, seed, trial):
    eta, rng = streams("BOB", instance, seed, trial)
    H = math.floor(instance.d ** (2 / 3) * instance.T ** 0.5)
    block_u = rng.random(math.ceil(instance.T / H))
    return oracle.bob(instance.X, instance.thetas, instance.noise_sd, eta, block_u, rng.random(TIE_DRAWS))


def oracle_exp3s(instance, seed, trial, gamma, alpha, restart_every=0):
    eta, rng = streams("EXP3.S", instance, seed, trial)
    return oracle.exp3s(instance.X, instance.thetas, instance.noise_sd, eta, rng.random(instance.T),
                        gamma, alpha, restart_every)


def mismatch(fast, slow) -> str:
    """'' when the runs agree exactly (arms) and to 1e-12 (regret); else what differs."""
    arms = np.asarray(slow.arms)
    if not np.array_equal(fast.arms, arms):
        first = int(np.flatnonzero(fast.arms != arms)[0])
        return f"arms differ first at round {first}"
    if slow.blocks and not np.array_equal(fast.block_choices, slow.blocks):
        return "BOB's block windows differ"
    if abs(fast.regret - slow.regret) > REGRET_TOL * max(1.0, abs(slow.regret)):
        return f"regret {fast.regret!r} vs {slow.regret!r}"
    return ""
