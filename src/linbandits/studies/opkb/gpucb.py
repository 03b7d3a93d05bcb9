"""GP-UCB, SW-GPUCB and WGPUCB as the authors' code runs them (spec B, baselines).

GP-UCB / SW-GPUCB: data D_t = rounds 1..t-1 (GP-UCB) or max(1, t-w)..t-1 (SW).
W = (1/lam) I + sum_{D_t} phi phi^T; mu(a) = phi(a)^T W^-1 sum_{D_t} phi(x_s) y_s;
sigma^2(a) = lam phi(a)^T W^-1 phi(a); play argmax mu + beta_t sigma (lowest index on
ties; round 1 plays arm 0). The posterior is kept as C = Phi W^-1 Phi^T (N x N),
updated by rank-one steps (O(N^2) a round): adding round s,
C <- C - c c^T / (1 + c_x) with c = C[:, x_s]; removing it, C <- C + c c^T / (1 - c_x).
Then mu = C z (z: sum of y per arm over D_t) and sigma^2 = lam diag(C).

WGPUCB: V = sum_{s<t} eta^(t-s) phi phi^T + lam I. With per-arm discounted counts w and
sums zw, V = Phi^T diag(w) Phi + lam I and Phi V^-1 Phi^T = (diag(w) + lam K^-1)^-1
(Phi is square and invertible), refactored every round: O(N^3).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.linalg import lapack
from scipy.linalg.blas import dger

from linbandits.studies.opkb import streams
from linbandits.studies.opkb.design import InformationGain

LOG_1_OVER_DELTA = math.log(1e4)     # the code's tol = 1e-4
# Scores within this (relative) distance of the maximum are ties, won by the lowest index. Unplayed,
# nearly orthogonal arms have equal scores in exact arithmetic (K is the identity to 1e-30 at RBF
# length 0.2); without a tolerance, rounding noise of ~1e-14 would pick among them.
TIE_TOLERANCE = 1e-9


def argmax_lowest(score: np.ndarray) -> int:
    top = score.max()
    return int(np.flatnonzero(score >= top - TIE_TOLERANCE * max(1.0, abs(top)))[0])


def window_start(t: int, window: int) -> int:
    """First round of SW-GPUCB's data at round t (1-based): max(1, t - w); the data end at t - 1."""
    return max(1, t - window)


def gp_beta(gain: InformationGain, t: int, v: float, window: int) -> float:
    t_eff = min(t, window) if window else t
    return v * (1 + math.sqrt(2 * (gain.get(t_eff) / 2 + 1 + LOG_1_OVER_DELTA)))


def add_round(C: np.ndarray, x: int) -> None:
    """C <- Phi (W + phi_x phi_x^T)^-1 Phi^T, in place (Sherman-Morrison; BLAS dger on C's memory)."""
    c = C[:, x].copy()
    dger(-1.0 / (1.0 + c[x]), c, c, a=C.T, overwrite_a=1)


def remove_round(C: np.ndarray, x: int) -> None:
    """C <- Phi (W - phi_x phi_x^T)^-1 Phi^T, in place."""
    c = C[:, x].copy()
    dger(1.0 / (1.0 - c[x]), c, c, a=C.T, overwrite_a=1)


def run_gpucb(instance, Phi, options: dict, seed: int, trial: int, window: int = 0):
    """One run of GP-UCB (window 0) or SW-GPUCB: (regret, arm) of every round."""
    T, N = instance.T, instance.N
    lam, v = options["lam"], options["v"]
    gain = InformationGain(Phi, T, lam)
    u_noise = streams.noise_uniforms(seed, trial, T)
    rewards = instance.rewards
    C = lam * (Phi @ Phi.T)          # Phi W^-1 Phi^T with W = I / lam
    z = np.zeros(N)
    arms = np.empty(T, dtype=np.int64)
    ys = np.empty(T)
    regret = np.empty(T)
    for t in range(1, T + 1):
        if t == 1:
            x = 0
        else:
            ucb = C @ z + gp_beta(gain, t, v, window) * np.sqrt(np.maximum(lam * np.diag(C), 0.0))
            x = argmax_lowest(ucb)
        mean = rewards[t - 1, x]
        y = float(streams.observe(mean, u_noise[t - 1], instance.noise_sd, options["noise"]))
        arms[t - 1], ys[t - 1] = x, y
        regret[t - 1] = rewards[t - 1].max() - mean
        add_round(C, x)
        z[x] += y
        if window:
            leaving = window_start(t + 1, window) - 1        # the round that drops out before round t + 1
            if leaving >= 1 and leaving >= window_start(t, window):
                remove_round(C, arms[leaving - 1])
                z[arms[leaving - 1]] -= ys[leaving - 1]
    return regret, arms


def run_wgpucb(instance, Phi, options: dict, seed: int, trial: int):
    """One run of WGPUCB: (regret, arm) of every round."""
    T, N = instance.T, instance.N
    lam, scale, eta = options["lam"], options["scale"], options["discount"]
    gain = InformationGain(Phi, T, lam)
    u_noise = streams.noise_uniforms(seed, trial, T)
    rewards = instance.rewards
    Phi_inv = lapack.dtrtri(Phi, lower=1)[0]
    # Only the lower triangle is ever read; zeros above keep LAPACK's outputs clean triangles.
    lam_K_inv_lower = np.tril(lam * (Phi_inv.T @ Phi_inv))
    w = np.zeros(N)
    zw = np.zeros(N)
    regret = np.empty(T)
    played = np.empty(T, dtype=np.int64)
    diag = np.arange(N)
    for t in range(1, T + 1):
        if t == 1:
            x = 0
        else:
            A = lam_K_inv_lower.copy()
            A[diag, diag] += w
            chol, info = lapack.dpotrf(A, lower=1, overwrite_a=1)
            if info:
                raise np.linalg.LinAlgError(f"WGPUCB: posterior matrix not positive definite at round {t}")
            # C = A^-1 = L^-T L^-1: diag(C) = column sums of squares of L^-1, mu = C zw by two solves.
            chol_inv = lapack.dtrtri(chol, lower=1)[0]
            variance = lam * np.einsum("ij,ij->j", chol_inv, chol_inv)
            mean_estimate = lapack.dpotrs(chol, zw, lower=1)[0]
            beta = scale * (0.8 + 0.1 * math.sqrt(2 * (gain.get(t) + LOG_1_OVER_DELTA)))
            x = argmax_lowest(mean_estimate + beta * np.sqrt(np.maximum(variance, 0.0)))
        mean = rewards[t - 1, x]
        y = float(streams.observe(mean, u_noise[t - 1], instance.noise_sd, options["noise"]))
        regret[t - 1] = rewards[t - 1].max() - mean
        played[t - 1] = x
        w *= eta
        zw *= eta
        w[x] += eta
        zw[x] += eta * y
    return regret, played
