"""The allocation program of the asymptotic lower bound (Thm 3.3) and of OAM's (4.2).

C(theta) = inf_alpha sum alpha_{x,m} Delta^m_x subject to
||x - x*_m||^2_{H(alpha)^-1} <= (Delta^m_x)^2 / 2 for every suboptimal pair.
Zero-gap arms get alpha = inf, so H^-1 vanishes on S, the span of the
zero-gap arms; only z = U^T x matters, U an orthonormal basis of the
complement of S (k = its dimension):

- k = 0: C = 0, every suboptimal alpha = 0;
- k = 1: a closed form (see `closed_form`), compiled with numba because
  OAM and OSSB re-solve it inside their round loops;
- k >= 2: cvxpy + CLARABEL on the rescaled program (spec section 2). The
  rescaling by s = max 2|z|^2/Delta^2 is not cosmetic: unscaled, the solver
  says "optimal" at a value 60x too small on the 100-arm circle.

A repeated arm of a context (same vector twice) is one pair (x, m): it is
counted once and both entries report its alpha.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from linbandits.jit import njit

GAP_TOL = 1e-12     # a gap at most this is zero (the arm is optimal; ties count as optimal)
RANK_TOL = 1e-9     # relative singular-value tolerance of dim S
TIE_TOL = 1e-9      # relative tolerance of the closed form's minimisers (J)
SDP_ZERO = 1e-7     # SDP allocations below this fraction of the largest are solver noise: 0


@njit(cache=True)
def first_occurrence(actions):
    """first[m, k] = the lowest k' with actions[m, k'] == actions[m, k] (the pair's representative)."""
    M, K, d = actions.shape
    first = np.empty((M, K), dtype=np.int64)
    for m in range(M):
        for k in range(K):
            first[m, k] = k
            for j in range(k):
                same = True
                for i in range(d):
                    if actions[m, j, i] != actions[m, k, i]:
                        same = False
                        break
                if same:
                    first[m, k] = j
                    break
    return first


@njit(cache=True)
def complement_basis(actions, gaps):
    """Orthonormal basis (d x k columns) of the complement of S = span of the zero-gap arms."""
    M, K, d = actions.shape
    rows = 0
    for m in range(M):
        for k in range(K):
            if gaps[m, k] <= GAP_TOL:
                rows += 1
    A = np.zeros((max(rows, d), d))
    r = 0
    for m in range(M):
        for k in range(K):
            if gaps[m, k] <= GAP_TOL:
                A[r, :] = actions[m, k, :]
                r += 1
    _, sv, vt = np.linalg.svd(A)
    rank = 0
    if sv[0] > 0.0:
        for i in range(sv.shape[0]):
            if sv[i] > RANK_TOL * sv[0]:
                rank += 1
    return vt[rank:, :].T.copy()


@njit(cache=True)
def closed_form(actions, gaps, first, v):
    """C and alpha (M x K; inf on zero-gap arms) when S's complement is the line of unit vector v.

    Every constraint reads sum_i alpha_i w_i^2 >= 2 w_j^2 / Delta_j^2 (w = <x, v>), so
    the cheapest allocation puts h = max_j 2 w_j^2 / Delta_j^2 on the pairs J minimising
    q_j = Delta_j / w_j^2, split equally (alpha_j = h / (|J| w_j^2)): C = h min q.
    """
    M, K, d = actions.shape
    w = np.zeros((M, K))
    for m in range(M):
        for k in range(K):
            acc = 0.0
            for i in range(d):
                acc += actions[m, k, i] * v[i]
            w[m, k] = acc
    h = 0.0
    qmin = np.inf
    for m in range(M):
        for k in range(K):
            if first[m, k] != k or gaps[m, k] <= GAP_TOL:
                continue
            need = 2.0 * w[m, k] ** 2 / gaps[m, k] ** 2
            if need > h:
                h = need
            if w[m, k] != 0.0:
                q = gaps[m, k] / w[m, k] ** 2
                if q < qmin:
                    qmin = q
    alpha = np.zeros((M, K))
    if h > 0.0:
        count = 0
        for m in range(M):
            for k in range(K):
                if first[m, k] == k and gaps[m, k] > GAP_TOL and w[m, k] != 0.0 \
                        and gaps[m, k] / w[m, k] ** 2 <= qmin * (1.0 + TIE_TOL):
                    count += 1
        for m in range(M):
            for k in range(K):
                if first[m, k] == k and gaps[m, k] > GAP_TOL and w[m, k] != 0.0 \
                        and gaps[m, k] / w[m, k] ** 2 <= qmin * (1.0 + TIE_TOL):
                    alpha[m, k] = h / (count * w[m, k] ** 2)
    C = 0.0
    for m in range(M):
        for k in range(K):
            if gaps[m, k] <= GAP_TOL:
                alpha[m, k] = np.inf
            elif first[m, k] != k:
                alpha[m, k] = alpha[m, first[m, k]]
            else:
                C += alpha[m, k] * gaps[m, k]
    return C, alpha


@dataclasses.dataclass(frozen=True)
class Allocation:
    C: float              # the optimal value
    alpha: np.ndarray     # M x K; inf on zero-gap arms
    k: int                # dimension of the complement of the optimal arms' span
    method: str           # "k=0", "closed form" or "cvxpy"


def gaps_of(actions, theta) -> np.ndarray:
    values = actions @ theta
    return values.max(axis=1, keepdims=True) - values


def lower_bound(actions, theta, method: str = "auto") -> Allocation:
    """C(theta, A^1..A^M) and its allocation (Thm 3.3)."""
    actions = np.asarray(actions, float)
    return allocate(actions, gaps_of(actions, np.asarray(theta, float)), method)


def allocate(actions, gaps, method: str = "auto") -> Allocation:
    """The program for given gaps. method: auto (closed form when k <= 1), closed, sdp."""
    actions = np.ascontiguousarray(actions, dtype=float)
    gaps = np.ascontiguousarray(gaps, dtype=float)
    if method not in ("auto", "closed", "sdp"):
        raise ValueError(f"method must be auto, closed or sdp, got {method!r}")
    first = first_occurrence(actions)
    U = complement_basis(actions, gaps)
    k = U.shape[1]
    if k == 0:
        alpha = np.where(gaps <= GAP_TOL, np.inf, 0.0)
        return Allocation(0.0, alpha, 0, "k=0")
    if method == "closed" or (method == "auto" and k == 1):
        if k != 1:
            raise ValueError(f"the closed form needs k = 1, this program has k = {k}")
        C, alpha = closed_form(actions, gaps, first, np.ascontiguousarray(U[:, 0]))
        return Allocation(float(C), alpha, 1, "closed form")
    C, alpha = sdp_allocation(actions, gaps, first, U)
    return Allocation(C, alpha, k, "cvxpy")


def rescaled_program(Z: np.ndarray, gaps: np.ndarray):
    """(vectors, bounds, s) of the constraints matrix_frac(vector_j, sum beta z z^T) <= bound_j.

    With s = max_j 2 |z_j|^2 / Delta_j^2 and alpha = s beta, the constraint
    |z_j|^2_{H(alpha)^-1} <= Delta_j^2 / 2 reads matrix_frac(z_j / (Delta_j sqrt s), H(beta)) <= 1/2:
    every bound 1/2 and beta of order one, which the solver needs to be right.
    """
    s = float(np.max(2.0 * np.sum(Z * Z, axis=1) / gaps ** 2))
    return Z / (gaps[:, None] * np.sqrt(s)), np.full(len(gaps), 0.5), s


def sdp_allocation(actions, gaps, first, U):
    """The rescaled program by cvxpy + CLARABEL: beta >= 0 per suboptimal pair j with z_j != 0,
    minimise s sum Delta_j beta_j s.t. matrix_frac(z_j / (Delta_j sqrt s), sum beta z z^T) <= 1/2;
    alpha = s beta."""
    import cvxpy as cp

    M, K, _ = actions.shape
    pairs = [(m, k) for m in range(M) for k in range(K)
             if first[m, k] == k and gaps[m, k] > GAP_TOL]
    Z = np.array([U.T @ actions[m, k] for m, k in pairs]).reshape(len(pairs), U.shape[1])
    dg = np.array([gaps[m, k] for m, k in pairs])
    alpha = np.where(gaps <= GAP_TOL, np.inf, 0.0)
    live = np.linalg.norm(Z, axis=1) > RANK_TOL * max(1.0, float(np.abs(Z).max(initial=0.0)))
    if not live.any():
        return 0.0, alpha
    Z, dg = Z[live], dg[live]
    pairs = [p for p, keep in zip(pairs, live) if keep]
    vectors, bounds, s = rescaled_program(Z, dg)
    beta = cp.Variable(len(pairs), nonneg=True)
    H = sum(beta[j] * np.outer(Z[j], Z[j]) for j in range(len(pairs)))
    constraints = [cp.matrix_frac(vectors[j], H) <= bounds[j] for j in range(len(pairs))]
    problem = cp.Problem(cp.Minimize(s * (dg @ beta)), constraints)
    problem.solve(solver="CLARABEL")
    if problem.status not in ("optimal", "optimal_inaccurate") or beta.value is None:
        raise RuntimeError(f"the allocation SDP ended with status {problem.status}")
    values = s * np.maximum(beta.value, 0.0)
    values[values < SDP_ZERO * values.max()] = 0.0
    for (m, k), a in zip(pairs, values):
        alpha[m, k] = a
    for m in range(M):
        for k in range(K):
            if first[m, k] != k:
                alpha[m, k] = alpha[m, first[m, k]]
    C = float(sum(a * dg[j] for j, a in enumerate(values)))
    return C, alpha
