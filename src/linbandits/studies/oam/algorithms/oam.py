"""OAM, Optimal Allocation Matching (Hao et al. 2020, Algorithm 1), as the spec fixes it.

The round loop is one numba kernel. The allocation (4.2) is re-solved lazily
(first main round, then whenever det G grew by 1 + zeta): in the kernel by the
closed form when k <= 1, through an object-mode call to cvxpy otherwise (only
scenario one's early rounds). Small helpers carry the rules a planted bug
changes (tests/oam run the kernel's Python source with a helper replaced).
"""
from __future__ import annotations

import math

import numpy as np

from linbandits.errors import UserError
from linbandits.jit import njit, objmode
from linbandits.studies.oam.algorithms.base import OamAlgorithm
from linbandits.studies.oam.allocation import (
    GAP_TOL,
    TIE_TOL,
    allocate,
    closed_form,
    complement_basis,
    first_occurrence,
)
from linbandits.studies.oam.kernels import raise_rank, sherman_morrison

SCHEDULES = ("constant", "loglog")
COUNTERS = ("initialisation", "exploit", "explore_b1", "forced_b2", "wasted", "solves", "sdp_solves")


def sdp_alpha(actions, gaps):
    """Allocation by cvxpy (k >= 2), called from the kernel in object mode."""
    return allocate(actions, gaps, "sdp").alpha


@njit(cache=True)
def allocation_alpha(actions, gaps, first):
    """alpha (M x K, inf on zero-gap arms) and k: closed form when k <= 1, else cvxpy."""
    U = complement_basis(actions, gaps)
    k = U.shape[1]
    if k == 0:
        alpha = np.zeros(gaps.shape)
        for m in range(gaps.shape[0]):
            for j in range(gaps.shape[1]):
                if gaps[m, j] <= GAP_TOL:
                    alpha[m, j] = np.inf
    elif k == 1:
        _, alpha = closed_form(actions, gaps, first, U[:, 0].copy())
    else:
        with objmode(alpha="float64[:,:]"):
            alpha = sdp_alpha(actions, gaps)
    return alpha, k


@njit(cache=True)
def exploit_threshold(dmin, gap, fn):
    """(4.3): x may be left alone when |x|^2_{G^-1} <= max(Delta_min^2, Delta_x^2) / f_n."""
    return max(dmin * dmin, gap * gap) / fn


@njit(cache=True)
def forced(n_b2, eps, s):
    """Alg. 1: forced exploration of b2 when N_b2 <= eps_t (s - 1), s counted after its increment."""
    return n_b2 <= eps * (s - 1)


@njit(cache=True)
def epsilon_at(t, schedule, epsilon):
    """eps_t at round t (1-based): a constant, or 1/log log t (inf while log log t <= 0)."""
    if schedule == 1:
        if t <= 2:
            return np.inf
        ll = math.log(math.log(t))
        return 1.0 / ll if ll > 0 else np.inf
    return epsilon


@njit(cache=True)
def oam_run(actions, first, vec_id, n_vec, contexts, noise, theta, true_gaps, fn, log_n, f_const,
            schedule, epsilon, zeta):
    M, K, d = actions.shape
    n = contexts.shape[0]
    G = np.zeros((d, d))
    Ginv = np.zeros((d, d))
    bvec = np.zeros(d)
    detG = 0.0
    Q = np.zeros((d, d))
    rank = 0
    N = np.zeros(n_vec, dtype=np.int64)
    T = np.zeros((M, K))
    det_last = 0.0
    solved = False
    s = 0
    arms = np.empty(n, dtype=np.int64)
    cum = np.empty(n)
    counts = np.zeros(7, dtype=np.int64)
    values = np.empty((M, K))
    gh = np.empty((M, K))
    best = np.empty(M, dtype=np.int64)
    norm2 = np.empty(K)
    tau = np.empty(K)
    theta_hat = np.empty(d)
    gx = np.empty(d)
    total = 0.0
    for t in range(n):
        m = contexts[t]
        if rank < d:
            # Initialisation: the first arm that raises rank G, else the first arm.
            k, rank = raise_rank(actions[m], Q, rank)
            counts[0] += 1
        else:
            for i in range(d):
                acc = 0.0
                for j in range(d):
                    acc += Ginv[i, j] * bvec[j]
                theta_hat[i] = acc
            dmin = np.inf
            for mm in range(M):
                best[mm] = 0
                for j in range(K):
                    acc = 0.0
                    for i in range(d):
                        acc += actions[mm, j, i] * theta_hat[i]
                    values[mm, j] = acc
                    if values[mm, j] > values[mm, best[mm]]:
                        best[mm] = j
                for j in range(K):
                    gh[mm, j] = values[mm, best[mm]] - values[mm, j]
                    if gh[mm, j] > GAP_TOL and gh[mm, j] < dmin:
                        dmin = gh[mm, j]
            if (not solved) or detG >= (1.0 + zeta) * det_last:
                alpha, kdim = allocation_alpha(actions, gh, first)
                for mm in range(M):
                    for j in range(K):
                        T[mm, j] = fn / 2.0 * alpha[mm, j]
                det_last = detG
                solved = True
                counts[5] += 1
                if kdim >= 2:
                    counts[6] += 1
            exploit = True
            for j in range(K):
                acc = 0.0
                for i in range(d):
                    for i2 in range(d):
                        acc += actions[m, j, i] * Ginv[i, i2] * actions[m, j, i2]
                norm2[j] = acc
                if norm2[j] > exploit_threshold(dmin, gh[m, j], fn):
                    exploit = False
            if exploit:
                k = best[m]
                counts[1] += 1
            else:
                s += 1
                cap = fn / (dmin * dmin)
                wasted = True
                for j in range(K):
                    target = np.inf if gh[m, j] <= GAP_TOL else T[m, j]
                    tau[j] = min(target, cap)
                    if N[vec_id[m, j]] < tau[j]:
                        wasted = False
                if wasted:
                    width = np.sqrt(2.0 * (1.0 + 1.0 / log_n) * 2.0 * math.log(s) + f_const)
                    k = 0
                    top = -np.inf
                    for j in range(K):
                        index = values[m, j] + width * np.sqrt(norm2[j])
                        if index > top:
                            top = index
                            k = j
                    counts[4] += 1
                else:
                    rmin = np.inf
                    for j in range(K):
                        ratio = N[vec_id[m, j]] / tau[j] if tau[j] > 0.0 else np.inf
                        norm2[j] = ratio     # reuse the buffer: ratios from here on
                        if ratio < rmin:
                            rmin = ratio
                    b1 = 0
                    for j in range(K):
                        if norm2[j] <= rmin * (1.0 + TIE_TOL):
                            b1 = j
                            break
                    b2 = 0
                    for j in range(K):
                        if N[vec_id[m, j]] < N[vec_id[m, b2]]:
                            b2 = j
                    if forced(N[vec_id[m, b2]], epsilon_at(t + 1, schedule, epsilon), s):
                        k = b2
                        counts[3] += 1
                    else:
                        k = b1
                        counts[2] += 1
        x = actions[m, k]
        y = noise[t]
        for i in range(d):
            y += x[i] * theta[i]
        for i in range(d):
            bvec[i] += x[i] * y
            for j in range(d):
                G[i, j] += x[i] * x[j]
        if rank == d and detG > 0.0:
            denom = sherman_morrison(Ginv, x, gx)
            detG *= denom
        elif rank == d:
            Ginv = np.linalg.inv(G)
            detG = np.linalg.det(G)
        N[vec_id[m, k]] += 1
        arms[t] = k
        total += true_gaps[m, k]
        cum[t] = total
    return arms, cum, counts


def vector_ids(actions):
    """vec_id[m, k]: one index per distinct vector over all contexts (a repeated arm shares N_x)."""
    flat = actions.reshape(-1, actions.shape[2])
    _, inverse = np.unique(flat, axis=0, return_inverse=True)
    return inverse.reshape(actions.shape[:2]).astype(np.int64), int(inverse.max()) + 1


class OAM(OamAlgorithm):
    name = "OAM"
    summary = "Optimal Allocation Matching: track the estimated lower-bound allocation (Hao et al. Alg. 1)"
    defaults = {"epsilon": 0.0, "schedule": "constant", "zeta": 0.1, "c": 1.0}
    choices = {"schedule": SCHEDULES}
    counters = COUNTERS

    def check(self):
        o = self.options
        if not (o["epsilon"] >= 0 and math.isfinite(o["epsilon"])):
            raise UserError(f"OAM option epsilon must be a finite number >= 0, got {o['epsilon']}")
        if not o["zeta"] > 0:
            raise UserError(f"OAM option zeta must be > 0 (re-solve when det G grows by 1 + zeta), got {o['zeta']}")
        if not o["c"] > 0:
            raise UserError(f"OAM option c must be > 0 (the constant of f_n), got {o['c']}")
        inst = self.instance
        self._actions = np.ascontiguousarray(inst.actions, dtype=float)
        self._first = first_occurrence(self._actions)
        self._vec_id, self._n_vec = vector_ids(self._actions)
        n, d = inst.horizon, inst.d
        self._log_n = math.log(n)
        self._f_const = o["c"] * d * math.log(d * math.log(n))
        self._fn = 2.0 * (1.0 + 1.0 / self._log_n) * self._log_n + self._f_const

    def play(self, stream, gaps):
        o = self.options
        return oam_run(self._actions, self._first, self._vec_id, self._n_vec, stream.contexts, stream.noise,
                       stream.theta, gaps, self._fn, self._log_n, self._f_const,
                       SCHEDULES.index(o["schedule"]), float(o["epsilon"]), float(o["zeta"]))
