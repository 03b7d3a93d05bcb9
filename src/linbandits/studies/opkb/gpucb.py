"""GP-UCB, SW-GPUCB and WGPUCB as the authors' code runs them (spec B, baselines).

GP-UCB / SW-GPUCB: data D_t = rounds 1..t-1 (GP-UCB) or max(1, t-w)..t-1 (SW).
W = (1/lam) I + sum_{D_t} phi phi^T; mu(a) = phi(a)^T W^-1 sum_{D_t} phi(x_s) y_s;
sigma^2(a) = lam phi(a)^T W^-1 phi(a); play argmax mu + beta_t sigma (lowest index on
ties; round 1 plays arm 0). The posterior is kept as C = Phi W^-1 Phi^T (N x N),
updated by rank-one steps (O(N^2) a round): adding round s,
C <- C - c c^T / (1 + c_x) with c = C[:, x_s]; removing it, C <- C + c c^T / (1 - c_x).
Then sigma^2 = lam diag(C) and mu = C z (z: sum of y per arm over D_t); mu follows the
same rank-one steps in O(N) (mu <- mu + k (y - c.z) c, k = 1 / (1 + c_x) when adding,
-1 / (1 - c_x) when removing) and is recomputed as C z every REFRESH_EVERY rounds so that
round-off cannot accumulate.

SW-GPUCB option removal = published (spec F20): the authors' code removes a round with
W^-1 <- W^-1 + W^-1 v v^T W^-1 / (1 + v^T W^-1 v), the denominator's sign wrong (the exact
removal divides by 1 - v^T W^-1 v); z loses the round's reward as in the exact removal. In C:
C <- C + c c^T / (1 + c_x), z[x] -= y. Algebraically this is the exact removal of only a fraction
1 / (1 + 2 c_x) of the round's phi phi^T, so the rest of each old round stays in W for good.

WGPUCB: V = sum_{s<t} eta^(t-s) phi phi^T + lam I. With per-arm discounted counts w and
sums zw, V = Phi^T diag(w) Phi + lam I and Phi V^-1 Phi^T = (diag(w) + lam K^-1)^-1
(Phi is square and invertible), refactored every round: O(N^3).

The round loops are compiled (numba): at N = 100 a round's algebra takes a few microseconds and the
Python around it (scores, argmax, noise, bookkeeping) cost more than the algebra. The LAPACK routines
and the normal distribution functions are scipy's own (reached through scipy's Cython tables), so the
factorisations and the noise are bit for bit those of scipy.linalg.lapack and streams.observe.
The beta schedule is a pure function of t (information gain from designs.py), evaluated in Python
before the loop; the window's schedule too (window_start), so that it stays patchable in tests.
"""
from __future__ import annotations

import math

import llvmlite.binding as llvm
import numpy as np
from numba.extending import get_cython_function_address
from scipy.linalg import lapack

from linbandits.jit import njit, types
from linbandits.studies.opkb.designs import InformationGain
from linbandits.studies.opkb.instances import NOISE_BOUND
from linbandits.studies.opkb.streams import noise_uniforms

LOG_1_OVER_DELTA = math.log(1e4)     # the code's tol = 1e-4
# Scores within this (relative) distance of the maximum are ties, won by the lowest index. Unplayed,
# nearly orthogonal arms have equal scores in exact arithmetic (K is the identity to 1e-30 at RBF
# length 0.2); without a tolerance, rounding noise of ~1e-14 would pick among them.
TIE_TOLERANCE = 1e-9
# GP-UCB / SW-GPUCB: mu is recomputed as C z every this many rounds (one pass over C). Without it the
# O(N) updates drift from C z by <= 4e-14 over 10^4 rounds (published runs), far inside TIE_TOLERANCE.
REFRESH_EVERY = 64


# ------------------------------------------------------------------ scipy's native routines

def _native(module: str, names, signature):
    """A C function of one of scipy's Cython tables, callable from compiled code.

    It is registered under a symbol name rather than called through a ctypes pointer, which would bake
    the process's address into the code and keep numba from caching it. `names`: the table's entry,
    or candidates in order (a fused Cython function's entry name is scipy's internal choice)."""
    names = (names,) if isinstance(names, str) else tuple(names)
    for name in names:
        try:
            address = get_cython_function_address(module, name)
        except ValueError:
            continue
        symbol = "linbandits_opkb_" + names[-1]
        llvm.add_symbol(symbol, address)
        return types.ExternalFunction(symbol, signature)
    raise ImportError(f"{module} has none of {names}: this scipy is not supported by the opkb study")


_F64 = types.float64(types.float64)
_P = types.voidptr       # LAPACK's Fortran interface: every argument by address
_ndtr = _native("scipy.special.cython_special", ("__pyx_fuse_1ndtr", "ndtr"), _F64)   # fuse_1: the real version
_ndtri = _native("scipy.special.cython_special", "ndtri", _F64)
_dpotrf = _native("scipy.linalg.cython_lapack", "dpotrf", types.void(_P, _P, _P, _P, _P))
_dpotrs = _native("scipy.linalg.cython_lapack", "dpotrs", types.void(_P, _P, _P, _P, _P, _P, _P, _P))
_dtrtri = _native("scipy.linalg.cython_lapack", "dtrtri", types.void(_P, _P, _P, _P, _P, _P))


@njit(cache=True)
def observe(mean, u, sd, gaussian):
    """streams.observe for one round (the same operations in the same order: the same y, bit for bit)."""
    if sd == 0:
        return mean + 0.0
    if gaussian:
        return mean + sd * _ndtri(u)
    half = (NOISE_BOUND - abs(mean)) / sd
    lo = _ndtr(-half)
    return mean + sd * _ndtri(lo + u * (_ndtr(half) - lo))


@njit(cache=True)
def argmax_lowest(score):
    top = score.max()
    threshold = top - TIE_TOLERANCE * max(1.0, abs(top))
    for a in range(score.shape[0]):
        if score[a] >= threshold:
            return a
    return 0        # not reached unless a score is NaN


# ------------------------------------------------------------------ GP-UCB and SW-GPUCB

def window_start(t: int, window: int) -> int:
    """First round of SW-GPUCB's data at round t (1-based): max(1, t - w); the data end at t - 1."""
    return max(1, t - window)


def gp_beta(gain: InformationGain, t: int, v: float, window: int) -> float:
    t_eff = min(t, window) if window else t
    return v * (1 + math.sqrt(2 * (gain.get(t_eff) / 2 + 1 + LOG_1_OVER_DELTA)))


def gp_betas(gain: InformationGain, last: int, v: float) -> np.ndarray:
    """[gp_beta(gain, t, v, window) for t in 2..last] with last <= window (t_eff = t), array-wise: the same
    operations in the same order on the same numbers, so the same bits."""
    return v * (1 + np.sqrt(2 * (gain.values(2, last) / 2 + 1 + LOG_1_OVER_DELTA)))


@njit(cache=True)
def _column(C, x):
    """C[:, x] from the lower triangle of the symmetric C (row x left of the diagonal, column x below)."""
    N = C.shape[0]
    c = np.empty(N)
    for i in range(x):
        c[i] = C[x, i]
    for i in range(x, N):
        c[i] = C[i, x]
    return c


@njit(cache=True)
def _rank_one(C, mu, z, x, y, sign):
    """Round (x, y) joins (sign 1) or leaves (sign -1) the data: C, mu = C z and z follow, in place.

    C is symmetric and only its lower triangle is read or written (half the memory traffic of the full
    update; C[:, x] is assembled from row x and column x)."""
    N = C.shape[0]
    c = _column(C, x)
    k = sign / (1.0 + sign * c[x])
    for i in range(N):
        f = k * c[i]
        for j in range(i + 1):
            C[i, j] -= f * c[j]
    # mu_new = (C - k c c^T)(z + sign y e_x) = mu + k (y - c.z) c, using 1 - k c_x = k / sign.
    cz = 0.0
    for i in range(N):
        cz += c[i] * z[i]
    g = k * (y - cz)
    for i in range(N):
        mu[i] += g * c[i]
    z[x] += sign * y


@njit(cache=True)
def add_round(C, mu, z, x, y):
    """C <- Phi (W + phi_x phi_x^T)^-1 Phi^T (Sherman-Morrison), z[x] += y, mu <- C z; lower triangle of C."""
    _rank_one(C, mu, z, x, y, 1.0)


@njit(cache=True)
def remove_round(C, mu, z, x, y):
    """C <- Phi (W - phi_x phi_x^T)^-1 Phi^T, z[x] -= y, mu <- C z; lower triangle of C."""
    _rank_one(C, mu, z, x, y, -1.0)


@njit(cache=True)
def remove_round_published(C, mu, z, x, y):
    """The authors' removal (removal = published): C <- C + c c^T / (1 + c_x), c = C[:, x], z[x] -= y,
    mu <- C z; lower triangle of C. (The exact removal divides by 1 - c_x.)"""
    N = C.shape[0]
    c = _column(C, x)
    q = c[x]
    k = 1.0 / (1.0 + q)
    for i in range(N):
        f = k * c[i]
        for j in range(i + 1):
            C[i, j] += f * c[j]
    # mu_new = (C + k c c^T)(z - y e_x) = mu - y c + k (c.z) c - k y c_x c = mu + k (c.z - (1 + 2 c_x) y) c.
    cz = 0.0
    for i in range(N):
        cz += c[i] * z[i]
    g = k * (cz - (1.0 + 2.0 * q) * y)
    for i in range(N):
        mu[i] += g * c[i]
    z[x] -= y


@njit(cache=True)
def posterior_mean(C, z, mu):
    """mu = C z from the lower triangle of C."""
    N = C.shape[0]
    for i in range(N):
        mu[i] = C[i, i] * z[i]
    for i in range(N):
        for j in range(i):
            mu[i] += C[i, j] * z[j]
            mu[j] += C[i, j] * z[i]


@njit(cache=True)
def _gpucb_rounds(C, betas, leaving, lam, rewards, u_noise, noise_sd, gaussian, published, arms, ys):
    """The rounds of one run. leaving[t - 1]: the round that drops out of the data after round t (0: none);
    published: remove it as the authors' code does (remove_round_published), else exactly."""
    T, N = rewards.shape
    mu = np.zeros(N)
    z = np.zeros(N)
    score = np.empty(N)
    for t in range(1, T + 1):
        if t == 1:
            x = 0
        else:
            if t % REFRESH_EVERY == 0:
                posterior_mean(C, z, mu)
            for a in range(N):
                score[a] = mu[a] + betas[t] * math.sqrt(max(lam * C[a, a], 0.0))
            x = argmax_lowest(score)
        y = observe(rewards[t - 1, x], u_noise[t - 1], noise_sd, gaussian)
        arms[t - 1], ys[t - 1] = x, y
        add_round(C, mu, z, x, y)
        s = leaving[t - 1]
        if s:
            if published:
                remove_round_published(C, mu, z, arms[s - 1], ys[s - 1])
            else:
                remove_round(C, mu, z, arms[s - 1], ys[s - 1])


REMOVALS = ("exact", "published")


def run_gpucb(instance, Phi, options: dict, seed: int, trial: int, window: int = 0, removal: str = "exact"):
    """One run of GP-UCB (window 0) or SW-GPUCB: (regret, arm) of every round. removal: how a round leaves
    SW-GPUCB's window, "exact" or "published" (the authors' code, spec F20)."""
    if removal not in REMOVALS:
        raise ValueError(f"removal must be one of {REMOVALS}, got {removal!r}")
    T = instance.T
    lam, v = options["lam"], options["v"]
    gain = InformationGain(Phi, T, lam)
    # betas[t] for rounds t >= 2; with a window, t_eff (and beta) stays at the window's value after it.
    last = max(2, min(T, window)) if window else T
    betas = np.zeros(T + 1)
    if last >= 2:
        betas[2:last + 1] = gp_betas(gain, last, v)
    betas[last + 1:] = betas[last]
    leaving = np.zeros(T, dtype=np.int64)
    if window:
        for t in range(1, T + 1):
            s = window_start(t + 1, window) - 1         # the round that drops out before round t + 1
            if s >= 1 and s >= window_start(t, window):
                leaving[t - 1] = s
    rewards = np.ascontiguousarray(instance.rewards, dtype=float)
    C = lam * (Phi @ Phi.T)          # Phi W^-1 Phi^T with W = I / lam
    arms = np.empty(T, dtype=np.int64)
    ys = np.empty(T)
    _gpucb_rounds(C, betas, leaving, float(lam), rewards, noise_uniforms(seed, trial, T),
                  float(instance.noise_sd), options["noise"] == "gaussian", removal == "published", arms, ys)
    return rewards.max(axis=1) - rewards[np.arange(T), arms], arms


# ------------------------------------------------------------------ WGPUCB

@njit(cache=True)
def _wgpucb_rounds(lam_K_inv_lower, betas, lam, eta, rewards, u_noise, noise_sd, gaussian, arms):
    """The rounds of one run; returns 0, or the round at which the posterior matrix was not positive definite."""
    T, N = rewards.shape
    A = np.zeros((N, N)).T           # Fortran order, as LAPACK wants it; lower triangle used
    mean = np.empty(N)
    score = np.empty(N)
    total = np.empty(N)
    w = np.zeros(N)
    zw = np.zeros(N)
    n = np.array([N], dtype=np.int32)
    one = np.array([1], dtype=np.int32)
    info = np.zeros(1, dtype=np.int32)
    lower = np.array([ord("L")], dtype=np.uint8)
    non_unit = np.array([ord("N")], dtype=np.uint8)
    for t in range(1, T + 1):
        if t == 1:
            x = 0
        else:
            for j in range(N):
                for i in range(j, N):
                    A[i, j] = lam_K_inv_lower[i, j]
                A[j, j] += w[j]
            _dpotrf(lower.ctypes, n.ctypes, A.ctypes, n.ctypes, info.ctypes)
            if info[0]:
                return t
            # C = A^-1 = L^-T L^-1: mu = C zw by two solves, then L <- L^-1 in place and
            # diag(C) = column sums of squares of L^-1.
            mean[:] = zw
            _dpotrs(lower.ctypes, n.ctypes, one.ctypes, A.ctypes, n.ctypes, mean.ctypes, n.ctypes, info.ctypes)
            _dtrtri(lower.ctypes, non_unit.ctypes, n.ctypes, A.ctypes, n.ctypes, info.ctypes)
            # Column sums of squares, row by row: each column's terms are still added in row order (the same
            # sums, bit for bit), but the N running sums are independent, so they pipeline.
            total[:] = 0.0
            for i in range(N):
                for j in range(i + 1):
                    total[j] += A[i, j] * A[i, j]
            for j in range(N):
                score[j] = mean[j] + betas[t] * math.sqrt(max(lam * total[j], 0.0))
            x = argmax_lowest(score)
        y = observe(rewards[t - 1, x], u_noise[t - 1], noise_sd, gaussian)
        arms[t - 1] = x
        for a in range(N):
            w[a] *= eta
            zw[a] *= eta
        w[x] += eta
        zw[x] += eta * y
    return 0


def run_wgpucb(instance, Phi, options: dict, seed: int, trial: int):
    """One run of WGPUCB: (regret, arm) of every round."""
    T = instance.T
    lam, scale, eta = options["lam"], options["scale"], options["discount"]
    gain = InformationGain(Phi, T, lam)
    betas = np.zeros(T + 1)
    if T >= 2:      # scale * (0.8 + 0.1 * sqrt(2 (g(t) + log(1/delta)))) for t = 2..T, array-wise (the same bits)
        betas[2:] = scale * (0.8 + 0.1 * np.sqrt(2 * (gain.values(2, T) + LOG_1_OVER_DELTA)))
    Phi_inv = lapack.dtrtri(Phi, lower=1)[0]
    lam_K_inv_lower = np.tril(lam * (Phi_inv.T @ Phi_inv))
    rewards = np.ascontiguousarray(instance.rewards, dtype=float)
    arms = np.empty(T, dtype=np.int64)
    failed = _wgpucb_rounds(lam_K_inv_lower, betas, float(lam), float(eta), rewards,
                            noise_uniforms(seed, trial, T), float(instance.noise_sd),
                            options["noise"] == "gaussian", arms)
    if failed:
        raise np.linalg.LinAlgError(f"WGPUCB: posterior matrix not positive definite at round {failed}")
    return rewards.max(axis=1) - rewards[np.arange(T), arms], arms
