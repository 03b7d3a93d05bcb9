"""The random stream of one run, shared by every algorithm (common random numbers) and
replayed by the oracle: run r of seed S draws, from numpy's default_rng([S, r]), in order,
theta (only when the instance redraws it), n uniforms for the contexts, n standard normals
for the noise, then (only for Thompson sampling) n x d standard normals for the samples.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from linbandits import streams


@dataclasses.dataclass(frozen=True)
class RunStream:
    theta: np.ndarray        # (d,)
    contexts: np.ndarray     # (n,) int64, c_t
    noise: np.ndarray        # (n,) eta_t = noise_sd * N(0, 1)
    normals: np.ndarray | None   # (n, d) N(0, I) for LinTS, else None


def run_stream(instance, seed: int, trial: int, normals: bool = False) -> RunStream:
    rng = streams.generator(seed, trial)
    theta = instance.theta
    if instance.random_theta:
        g = instance.theta_sd * rng.standard_normal(instance.d)
        theta = g / np.linalg.norm(g)
    n = instance.horizon
    u = rng.random(n)
    contexts = np.minimum(np.searchsorted(np.cumsum(instance.p), u, side="right"), instance.M - 1)
    noise = instance.noise_sd * rng.standard_normal(n)
    extra = rng.standard_normal((n, instance.d)) if normals else None
    return RunStream(theta=np.asarray(theta, float), contexts=contexts.astype(np.int64), noise=noise, normals=extra)


def run_theta(instance, seed: int, trial: int) -> np.ndarray:
    """The theta run `trial` plays against (the first draw of its stream when theta is redrawn)."""
    if not instance.random_theta:
        return np.asarray(instance.theta, float)
    g = instance.theta_sd * streams.generator(seed, trial).standard_normal(instance.d)
    return g / np.linalg.norm(g)
