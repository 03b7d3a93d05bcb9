"""Optimal experimental designs over a finite arm set.

`design(X, Y)` minimises max_{y in Y} y^T A(lam)^{-1} y over the simplex,
A(lam) = X^T diag(lam) X (spec A). Two solvers:

- `frank_wolfe_designs`: the published Frank-Wolfe (uniform start, 999 steps
  of size 0.5/(k+2), value read at the start of the last step), batched over
  many designs at once. Every quantity it needs is an entry of
  Q = X A^{-1} X^T, so a step lam <- (1-eta) lam + eta e_k is a rank-one
  (Sherman-Morrison) update of Q: O(K^2) instead of O(d^3). Every 100 steps
  Q is recomputed from lam against drift, by a Cholesky factor of A (pinv
  when A is singular).
- `exact_design`: the same problem as a convex program solved by cvxpy,
  used as a cross-check and as the `design=exact` option.

`DesignCache` memoises designs by active set (a bitmask over the arms): a
design depends only on the arm matrix and the set, so every trial of a run
shares one solve per distinct set.
"""
from __future__ import annotations

import contextlib
import math

import numpy as np

from linbandits.cholesky import cholesky_lower, forward_substitution
from linbandits.jit import njit

FW_ITERATIONS = 999
# Q drifts from X A^{-1} X^T by rounding as rank-one updates accumulate;
# recomputing it from lam every so often keeps it at machine precision.
_REFRESH_EVERY = 100
# A Cholesky pivot below this share of its diagonal entry means A is (nearly) singular.
_PD_RTOL = 1e-10


def _q_matrix(X: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Q = X pinv(X^T diag(lam) X) X^T for each design lam (B x K); X is one
    K x d matrix or one per design (B x K x d). Each slice is its own BLAS
    call on the same shapes, so it does not depend on the batch."""
    Xs = np.broadcast_to(X, (len(lam),) + X.shape[-2:]) if X.ndim == 2 else X
    A = np.matmul(np.swapaxes(Xs, 1, 2) * lam[:, None, :], Xs)
    return np.matmul(np.matmul(Xs, np.linalg.pinv(A, hermitian=True)), np.swapaxes(Xs, 1, 2))


def frank_wolfe_designs(X, sets, objective: str = "xy", iterations: int = FW_ITERATIONS):
    """Frank-Wolfe designs for a batch of active sets over the arms of X.

    X: K x d arm matrix, or B x K x d (one arm matrix per design, all of
    the same shape: never zero-padded, so a design's arithmetic is the same
    whichever batch it is solved in). sets: B x K boolean, row b the set S_b.
    objective "xy": Y = {x_a - x_b : a, b in S} (the transductive XY design);
    objective "g": Y = {x_a : a in S}, support restricted to S (the G-optimal
    design of the arms in S).
    Returns (lam B x K, value B). A set with fewer than two arms under "xy"
    has no direction to estimate: the uniform design and value 0 (spec A).
    """
    X = np.asarray(X, dtype=float)
    sets = np.atleast_2d(np.asarray(sets, dtype=bool))
    B, K = sets.shape
    if objective == "g":
        support = sets
    elif objective == "xy":
        support = np.ones_like(sets)
    else:
        raise ValueError(f"objective must be 'xy' or 'g', got {objective!r}")
    lam = support / support.sum(axis=1, keepdims=True)
    values = np.zeros(B)
    if objective == "xy":
        live = sets.sum(axis=1) >= 2
    else:
        live = np.ones(B, dtype=bool)
    if not live.any() or iterations < 1:
        return lam, values
    X_live = X if X.ndim == 2 else X[live]
    lam_live, values_live = _frank_wolfe_loop(X_live, lam[live], sets[live], support[live], objective, iterations)
    lam[live] = lam_live
    values[live] = values_live
    return lam, values


def _frank_wolfe_loop(X, lam, sets, support, objective, iterations):
    Xs = np.broadcast_to(X, (len(lam),) + X.shape[-2:]) if X.ndim == 2 else X
    if X.ndim == 2 and np.all(lam == lam[:1]):
        # Every design starts from the same lam (uniform over all arms): one Q serves all.
        Q = np.broadcast_to(_q_matrix(X, lam[:1])[0], (len(lam),) + (X.shape[0],) * 2)
    else:
        Q = _q_matrix(X, lam)
    value = np.zeros(len(lam))
    for b in range(len(lam)):
        # Contiguous writable copies: one compiled signature serves every caller (a read-only X, from
        # broadcast_to, was a second signature: ~2 s more compiling on a fresh machine).
        lam_b = np.ascontiguousarray(lam[b])
        value[b] = _fw_one(np.array(Xs[b], order="C"), np.array(Q[b], order="C"), lam_b,
                           np.ascontiguousarray(sets[b]), np.ascontiguousarray(support[b]),
                           objective == "xy", iterations, _REFRESH_EVERY)
        lam[b] = lam_b
    return lam, value


@njit(cache=True)
def _q_by_cholesky(X, lam, Q):  # pragma: no cover - compiled
    """Q = X A^{-1} X^T = Z^T Z, Z = L^{-1} X^T, from a Cholesky factor L of A = X^T diag(lam) X.

    About 10x cheaper than the SVD of pinv at K = d = 24 (the Yahoo! arms), where the refresh
    was two thirds of a design's time. Returns False, Q untouched, when a pivot falls below
    _PD_RTOL of its diagonal entry: A is singular or nearly so (a G design on a set that does
    not span), which the caller leaves to pinv.
    """
    K, d = X.shape
    A = np.zeros((d, d))
    for k in range(K):
        w = lam[k]
        for i in range(d):
            wi = w * X[k, i]
            for j in range(i + 1):
                A[i, j] += wi * X[k, j]
    L = np.empty((d, d))
    if not cholesky_lower(A, L, _PD_RTOL):
        return False
    Z = np.empty((K, d))  # row k: L^{-1} x_k
    for k in range(K):
        forward_substitution(L, X[k], Z[k])
    for a in range(K):
        for b in range(a + 1):
            t = 0.0
            for i in range(d):
                t += Z[a, i] * Z[b, i]
            Q[a, b] = t
            Q[b, a] = t
    return True


@njit(cache=True)
def _fw_one(X, Q, lam, active, support, pairs, iterations, refresh):  # pragma: no cover - compiled
    """Frank-Wolfe for one design, in place on lam and Q; returns the value
    read at the start of the last iteration (spec A)."""
    K = lam.shape[0]
    value = 0.0
    g = np.empty(K)
    q = np.empty(K)
    # The pair search runs over the active arms only, in index order, with their diagonal
    # entries gathered first: the same comparisons in the same order as over all (a, b).
    idx = np.flatnonzero(active)
    n_active = idx.shape[0]
    diag = np.empty(n_active)
    for count in range(1, iterations + 1):
        if count % refresh == 0 and not _q_by_cholesky(X, lam, Q):
            A = (X.T * lam) @ X
            Q[:, :] = X @ np.linalg.pinv(A) @ X.T
        # y* = argmax_y y^T A^-1 y, first maximum in (a, b) order
        best = -np.inf
        ya = 0
        yb = 0
        if pairs:
            # rho is symmetric in (a, b) and 0 on the diagonal, so the first
            # maximum over all ordered pairs is the first over pairs a < b.
            for i in range(n_active):
                diag[i] = Q[idx[i], idx[i]]
            for i in range(n_active):
                a = idx[i]
                for j in range(i + 1, n_active):
                    b = idx[j]
                    r = diag[i] + diag[j] - 2.0 * Q[a, b]
                    if r > best:
                        best, ya, yb = r, a, b
            for k in range(K):
                g[k] = (Q[ya, k] - Q[yb, k]) ** 2
        else:
            for i in range(n_active):
                a = idx[i]
                if Q[a, a] > best:
                    best, ya = Q[a, a], a
            for k in range(K):
                g[k] = Q[ya, k] ** 2
        value = best
        kstar = -1
        gbest = -np.inf
        for k in range(K):
            if support[k] and g[k] > gbest:
                gbest, kstar = g[k], k
        eta = 0.5 / (count + 2)
        for k in range(K):
            lam[k] *= 1.0 - eta
        lam[kstar] += eta
        # Sherman-Morrison on A' = (1-eta)(A + eta' x_k x_k^T), eta' = eta/(1-eta)
        eta_r = eta / (1.0 - eta)
        c = eta_r / (1.0 + eta_r * Q[kstar, kstar])
        for i in range(K):
            q[i] = Q[i, kstar]
        scale = 1.0 / (1.0 - eta)
        for i in range(K):
            ci = c * q[i]  # c * q[i] * q[j] evaluates as (c * q[i]) * q[j]: the same numbers
            for j in range(K):
                Q[i, j] = (Q[i, j] - ci * q[j]) * scale
    return value


def exact_design(X, active, objective: str = "xy"):
    """The optimal design by convex optimisation (cvxpy), for one set.

    minimise t  s.t.  y^T A(lam)^{-1} y <= t for every y, lam in the simplex;
    each constraint is a matrix-fractional function, jointly convex in
    (lam, t), so this is an SDP solved to high accuracy.
    """
    import cvxpy as cp

    X = np.asarray(X, dtype=float)
    active = np.asarray(active, dtype=bool)
    K, d = X.shape
    idx = np.flatnonzero(active)
    support = active if objective == "g" else np.ones(K, dtype=bool)
    if objective == "xy":
        if idx.size < 2:
            return np.full(K, 1.0 / K), 0.0
        Y = np.array([X[a] - X[b] for i, a in enumerate(idx) for b in idx[i + 1:]])
    else:
        Y = X[idx]
    # Directions that differ only in sign give the same constraint.
    Y = np.unique(np.round(Y, 12), axis=0)
    sup = np.flatnonzero(support)
    lam = cp.Variable(sup.size, nonneg=True)
    A = sum(lam[j] * np.outer(X[k], X[k]) for j, k in enumerate(sup))
    A = (A + A.T) / 2
    t = cp.Variable()
    cons = [cp.sum(lam) == 1] + [cp.matrix_frac(y, A) <= t for y in Y]
    prob = cp.Problem(cp.Minimize(t), cons)
    prob.solve(solver=cp.CLARABEL)
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy could not solve the design problem: {prob.status}")
    out = np.zeros(K)
    out[sup] = np.clip(lam.value, 0.0, None)
    out /= out.sum()
    # Report the value of the returned design, evaluated exactly.
    A_inv = np.linalg.pinv(X.T @ (out[:, None] * X))
    return out, float(np.max(np.einsum("yi,ij,yj->y", Y, A_inv, Y)))


def masks_to_keys(masks: np.ndarray) -> np.ndarray:
    """Boolean B x K active sets -> int64 bitmasks (bit k = arm k)."""
    masks = np.asarray(masks, dtype=bool)
    K = masks.shape[-1]
    if K > 62:
        raise ValueError(f"active-set keys support at most 62 arms, got {K}")
    return (masks.astype(np.int64) << np.arange(K, dtype=np.int64)).sum(axis=-1)


def keys_to_masks(keys, K: int) -> np.ndarray:
    keys = np.asarray(keys, dtype=np.int64)
    return ((keys[..., None] >> np.arange(K, dtype=np.int64)) & 1).astype(bool)


class DesignCache:
    """Designs of one arm matrix, memoised by active set.

    solver "frank_wolfe" (the published method) or "exact" (cvxpy). Misses
    are solved together in one batched Frank-Wolfe run; each design's
    arithmetic touches only its own slice of the batch, so a design does not
    depend on which other sets were solved with it.
    """

    def __init__(self, X, solver: str = "frank_wolfe", iterations: int = FW_ITERATIONS,
                 batch_size: int = 256):
        if solver not in ("frank_wolfe", "exact"):
            raise ValueError(f"solver must be 'frank_wolfe' or 'exact', got {solver!r}")
        self.X = np.asarray(X, dtype=float)
        self.K = self.X.shape[0]
        self.solver = solver
        self.iterations = iterations
        self.batch_size = batch_size
        # Solved designs live in growing arrays; _index maps a set key to its row.
        self._index: dict[int, int] = {}
        self._lams = np.empty((64, self.K))
        self._values = np.empty(64)
        self._g: tuple[np.ndarray, float] | None = None
        self.solves = 0

    def g(self):
        """The G-optimal design over all arms, and its value (about d)."""
        if self._g is None:
            everything = np.ones((1, self.K), dtype=bool)
            lam, val = self._solve(everything, "g")
            self._g = (lam[0], float(val[0]))
        return self._g

    def xy(self, keys):
        """XY designs for an array of set keys: (lam keys.shape x K, value keys.shape)."""
        keys = np.asarray(keys, dtype=np.int64)
        flat = keys.ravel().tolist()
        missing = sorted({k for k in flat if k not in self._index})
        for i in range(0, len(missing), self.batch_size):
            chunk = np.array(missing[i:i + self.batch_size], dtype=np.int64)
            lam, val = self._solve(keys_to_masks(chunk, self.K), "xy")
            self._store(chunk.tolist(), lam, val)
        rows = np.fromiter((self._index[k] for k in flat), dtype=np.int64, count=len(flat))
        return self._lams[rows].reshape(keys.shape + (self.K,)), self._values[rows].reshape(keys.shape)

    def _store(self, keys, lam, val):
        n = len(self._index)
        while n + len(keys) > len(self._values):
            self._lams = np.concatenate([self._lams, np.empty_like(self._lams)])
            self._values = np.concatenate([self._values, np.empty_like(self._values)])
        self._lams[n:n + len(keys)] = lam
        self._values[n:n + len(keys)] = val
        for j, key in enumerate(keys):
            self._index[key] = n + j

    def xy_value(self, keys):
        return self.xy(keys)[1]

    def _solve(self, masks, objective):
        self.solves += len(masks)
        if self.solver == "exact":
            out = [exact_design(self.X, m, objective) for m in masks]
            return np.array([o[0] for o in out]), np.array([o[1] for o in out])
        return frank_wolfe_designs(self.X, masks, objective, self.iterations)


# Set by sharing_designs(): the DesignCaches of the current job, by (arm matrix, solver).
_SHARED: dict[tuple, DesignCache] | None = None


@contextlib.contextmanager
def sharing_designs():
    """Within this block, algorithms on the same arm matrix share one DesignCache, so a job that runs
    several settings on the same arms solves each design once. Sharing changes no number: a design
    depends only on X, its active set and the solver (see DesignCache). Outside it (tests, `simulate`)
    every algorithm gets its own cache."""
    global _SHARED
    saved, _SHARED = _SHARED, {}
    try:
        yield
    finally:
        _SHARED = saved


def shared_cache(X, solver: str = "frank_wolfe", iterations: int = FW_ITERATIONS) -> DesignCache:
    """A DesignCache of X: the job's shared one inside sharing_designs(), else a fresh one."""
    if _SHARED is None:
        return DesignCache(X, solver=solver, iterations=iterations)
    X = np.ascontiguousarray(X, dtype=float)
    key = (X.shape, X.tobytes(), solver, int(iterations))
    if key not in _SHARED:
        _SHARED[key] = DesignCache(X, solver=solver, iterations=iterations)
    return _SHARED[key]


def n_epochs(cache: DesignCache) -> int:
    """ceil(log2 rho(all arms)), at least 1: the epoch count of spec A."""
    _, rho = cache.xy(np.array([(1 << cache.K) - 1], dtype=np.int64))
    return max(1, math.ceil(math.log2(rho[0]))) if rho[0] > 1 else 1


def efficient_rounding(w: np.ndarray, N: int) -> np.ndarray:
    """Round a design w to N integer pulls (spec B, Peace's rounding)."""
    w = np.asarray(w, dtype=float)
    support = w > 0
    p = int(support.sum())
    n = np.zeros(w.shape, dtype=np.int64)
    n[support] = np.ceil((N - p / 2.0) * w[support]).astype(np.int64)
    n = np.maximum(n, 0)
    ws = np.where(support, w, np.nan)
    while n.sum() != N:
        if n.sum() < N:
            k = int(np.nanargmin(n / ws))
            n[k] += 1
        else:
            k = int(np.nanargmax(np.where(n > 0, (n - 1) / ws, np.nan)))
            n[k] -= 1
    return n
