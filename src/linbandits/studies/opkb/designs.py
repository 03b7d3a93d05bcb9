"""The OP design problem (spec B) and the D-design it contains, by a primal-dual interior point.

OP(Dhat, beta, lam): P* = argmin over the simplex of  sum_a P(a) Dhat(a) - (2/beta) logdet S(P, lam),
S(P, lam) = sum_a P(a) phi(a) phi(a)^T + lam I.  Convex; the D-design pi = argmax logdet S(P, lam)
is OP with Dhat = 0 (any beta). KKT: g(a) = Dhat(a) - (2/beta) ||phi(a)||^2_{S^-1}; g(a) + nu >= 0
with equality where P(a) > 0. `kkt_residual` measures it; the solver stops when it is <= KKT_TOL.
The interior point stops at its absolute residual test or when a line search stalls (line_search_stalled).

Speed (issue 28): the solver calls LAPACK's trtrs, getrf and getrs directly, with the arguments scipy's
solve_triangular, lu_factor and lu_solve pass them (their wrappers cost as much as the routines at N = 100),
builds its KKT matrix in place, and reuses a leverage matrix it already holds for the same P; every
floating-point operation is the one of the solver before (tests/opkb/solver_reference.py), in the same
order, so every P, leverage matrix and information gain is bit for bit the same
(tests/opkb/test_opkb_design.py compares them).
"""
from __future__ import annotations

import numpy as np
from typing import NamedTuple

from scipy.linalg import LinAlgWarning, lapack

from linbandits.studies.opkb.kernels import numpy_cholesky

KKT_TOL = 1e-8
MAX_ITERATIONS = 200
_dtrtrs, _dgetrf, _dgetrs = lapack.dtrtrs, lapack.dgetrf, lapack.dgetrs


def leverages(Phi: np.ndarray, P: np.ndarray, lam: float) -> np.ndarray:
    """M = Phi S(P, lam)^-1 Phi^T (N x N): M[a, a] = ||phi(a)||^2_{S^-1}."""
    return _leverages_and_s(Phi, P, lam)[0]


def _leverages_and_s(Phi, P, lam):
    """(M, S(P, lam))."""
    S = Phi.T @ (P[:, None] * Phi)
    S.flat[::S.shape[0] + 1] += lam                 # S[i, i] += lam
    cholesky = numpy_cholesky()
    # L = np.linalg.cholesky(S); A: an array whose lower triangle is L (numpy's routine, called directly)
    A = np.linalg.cholesky(S) if cholesky is None else cholesky(S)
    # scipy's solve_triangular(L, Phi.T, lower=True): L is C-ordered, so it solves with trtrs on L^T
    # (upper, transposed) in place of L (lower): the same call here, without the wrapper. trtrs reads only
    # the upper triangle of A^T: L^T.
    B, info = _dtrtrs(A.T, Phi.T, lower=0, trans=1, unitdiag=0, overwrite_b=0)
    if info:
        raise np.linalg.LinAlgError(f"leverages: triangular solve failed (info {info})")
    return B.T @ B, S


def op_gradient(Phi, P, Dhat, beta, lam):
    M = leverages(Phi, P, lam)
    return Dhat - (2.0 / beta) * np.diag(M), M


def kkt_residual(Phi, P, Dhat, beta, lam) -> float:
    """max_a |min(P(a), g(a) + nu)| with nu = -sum_a P(a) g(a): zero exactly at the KKT point."""
    g, _ = op_gradient(Phi, np.asarray(P, float), np.asarray(Dhat, float), beta, lam)
    return _residual(P, g)


def _residual(P, g) -> float:
    nu = -float(P @ g)
    return float(np.max(np.abs(np.minimum(P, g + nu))))


class Solution(NamedTuple):
    """An OP solution P with the solver's last evaluation at P: M = leverages(Phi, P, lam) and S = S(P, lam)
    (None for a single arm, where the solver evaluates nothing)."""
    P: np.ndarray
    M: np.ndarray | None
    S: np.ndarray | None


def uniform_leverages(Phi, lam: float) -> np.ndarray:
    """leverages(Phi, uniform P, lam): where every solve on Phi at lam starts (pass it as `start`)."""
    Phi = np.asarray(Phi, float)
    return leverages(Phi, np.full(Phi.shape[0], 1.0 / Phi.shape[0]), lam)


def solve_op(Phi, Dhat, beta: float, lam: float, tol: float = KKT_TOL) -> np.ndarray:
    """P* of OP(Dhat, beta) on the rows of Phi: a distribution with KKT residual <= tol."""
    return solve_op_solution(Phi, Dhat, beta, lam, tol).P


def solve_op_solution(Phi, Dhat, beta: float, lam: float, tol: float = KKT_TOL, start=None) -> Solution:
    """solve_op's P*, with its leverage matrix and S (which the solver computes anyway for the KKT check).
    start: uniform_leverages(Phi, lam), when the caller holds it (the solver starts there)."""
    Phi = np.asarray(Phi, float)
    Dhat = np.asarray(Dhat, float)
    N = Phi.shape[0]
    if N == 1:
        return Solution(np.ones(1), None, None)
    c = 2.0 / beta
    P = np.full(N, 1.0 / N)
    if start is None:
        M, S = _leverages_and_s(Phi, P, lam)
    else:
        M, S = start, None
    g = Dhat - c * np.diag(M)
    # Dual start: nu centres g + nu on the support's mean; s small but positive, on the scale of g.
    nu = -float(P @ g)
    s = np.maximum(g + nu, 0.0) + 1e-2 * (np.abs(g).mean() + 1e-12)
    # The KKT matrix [[c M*M + diag(s/P), 1], [1^T, 0]], in Fortran order so that getrf factors it in place
    # (lu_factor copied the C-ordered matrix first: the same entries, the same factorisation).
    K = np.empty((N + 1, N + 1), order="F")
    block = K[:N, :N]
    block_diagonal = K.reshape(-1, order="F")[:N * (N + 2):N + 2]     # a view of block's diagonal
    rhs = np.empty(N + 1)
    for _ in range(MAX_ITERATIONS):
        mu_c = float(P @ s) / N
        r_d = g + nu - s
        r_p = P.sum() - 1.0
        if max(np.abs(r_d).max(), abs(r_p)) < 1e-13 and mu_c < 1e-14:
            break
        np.multiply(M, M, out=block)
        np.multiply(c, block, out=block)                                # c * (M * M)
        block_diagonal += s / P
        K[:N, N] = 1.0
        K[N, :N] = 1.0
        K[N, N] = 0.0
        lu, piv, info = _dgetrf(K, overwrite_a=1)
        if info < 0:
            raise ValueError(f"illegal value in {-info}th argument of internal getrf (lu_factor)")
        if info > 0:
            import warnings

            warnings.warn(f"Diagonal number {info} is exactly zero. Singular matrix.", LinAlgWarning, stacklevel=2)

        def direction(r_c):
            rhs[:N] = -r_d - r_c / P
            rhs[N] = -r_p
            step, info = _dgetrs(lu, piv, rhs, trans=0, overwrite_b=0)
            if info:
                raise ValueError(f"illegal value in {-info}th argument of internal gesv|posv")
            return step[:N], step[N], (-r_c - s * step[:N]) / P

        # Mehrotra: an affine-scaling step sets the centring weight, then a corrected step.
        dP, _, ds = direction(P * s)
        a_p, a_d = boundary_step(P, dP, 1.0), boundary_step(s, ds, 1.0)
        sigma_c = (float((P + a_p * dP) @ (s + a_d * ds)) / N / mu_c) ** 3 if mu_c > 0 else 0.0
        tau = min(sigma_c, 1.0) * mu_c
        dP, dnu, ds = direction(P * s + dP * ds - tau)
        alpha = min(boundary_step(P, dP, 0.995), boundary_step(s, ds, 0.995))
        r_c = P * s - tau
        old = np.sqrt(np.sum(r_d ** 2) + r_p ** 2 + np.sum(r_c ** 2))
        while True:
            P_new, s_new, nu_new = P + alpha * dP, s + alpha * ds, nu + alpha * dnu
            if same_point(P_new, P):
                M_new, S_new = M, S              # a step too small to move P (near the end): P's own
            else:
                M_new, S_new = _leverages_and_s(Phi, P_new, lam)
            g_new = Dhat - c * np.diag(M_new)
            new = np.sqrt(np.sum((g_new + nu_new - s_new) ** 2) + (P_new.sum() - 1.0) ** 2
                          + np.sum((P_new * s_new - tau) ** 2))
            if new <= (1.0 - 1e-4 * alpha) * old or alpha < 1e-10:
                break
            alpha *= 0.5
        P, s, nu, g, M, S = P_new, s_new, nu_new, g_new, M_new, S_new
        if line_search_stalled(new, old, alpha):
            break
    last = P
    P = np.maximum(P, 0.0)
    P = P / P.sum()
    if S is None or not same_point(P, last):
        M, S = _leverages_and_s(Phi, P, lam)            # else M and S are already those of P
        g = Dhat - c * np.diag(M)
    residual = _residual(P, g)
    if residual > tol:
        raise RuntimeError(f"OP solver stopped at KKT residual {residual:.3g} > {tol:g}")
    return Solution(P, M, S)


def line_search_stalled(new: float, old: float, alpha: float) -> bool:
    """The backtracking ended without a sufficient decrease (at alpha < 1e-10): the residual is at its
    rounding floor. The stop test above is absolute (1e-13, 1e-14), and with gradient entries of a few
    hundred (the neural-tangent features at N = 256) the floor lies above it: the solver then ran all
    MAX_ITERATIONS with ~33 backtracks each, moving P by nothing (issue 39). Stopping at the first such
    step gives the same P bit for bit (tests/opkb/test_opkb_design.py checks it against the reference)."""
    return not new <= (1.0 - 1e-4 * alpha) * old


def same_point(a: np.ndarray, b: np.ndarray) -> bool:
    """a and b bit for bit equal: then leverages(Phi, a, lam) is leverages(Phi, b, lam)."""
    return np.array_equal(a.view(np.int64), b.view(np.int64))


def boundary_step(x: np.ndarray, dx: np.ndarray, fraction: float) -> float:
    """The largest step <= 1 keeping x + step dx > 0, times `fraction`."""
    neg = dx < 0
    if not neg.any():
        return 1.0
    return min(1.0, fraction * float(np.min(-x[neg] / dx[neg])))


def d_design(Phi, lam: float) -> np.ndarray:
    """pi = argmax_P logdet S(P, lam) (the Bayesian D-optimal design): OP with Dhat = 0, 2/beta = 1."""
    return d_design_solution(Phi, lam).P


def d_design_solution(Phi, lam: float, start=None) -> Solution:
    Phi = np.asarray(Phi, float)
    return solve_op_solution(Phi, np.zeros(Phi.shape[0]), 2.0, lam, start=start)


def logdet_s(Phi, P, lam, S=None) -> float:
    """logdet S(P, lam); S: S(P, lam) itself when the caller holds it (a solver's Solution.S)."""
    if S is None:
        S = Phi.T @ (np.asarray(P)[:, None] * Phi)
        S[np.diag_indices_from(S)] += lam
    return float(np.linalg.slogdet(S)[1])


class InformationGain:
    """The code's gamma: g(t) = (1/2) max_P logdet(I + (t/reg) S(P, 0)), the maximiser being the
    D-design at regulariser reg/t; exact at t = 1, 2, 4, ... and at T, linear in t between
    t_l = 2^floor(log2 t) and t_r = min(T, 2 t_l).

    designs: D-designs already solved, by regulariser (e.g. OPKB's pi at sigma/T, which is exact(T)'s):
    exact(t) uses the one at reg/t instead of solving it again (the same solver on the same input)."""

    def __init__(self, Phi, T: int, reg: float, designs: dict | None = None):
        self.Phi, self.T, self.reg = np.asarray(Phi, float), int(T), float(reg)
        self.cache: dict[int, float] = {}
        self.designs = dict(designs or {})

    def exact(self, t: int) -> float:
        t = int(t)
        if t not in self.cache:
            lam = self.reg / t
            if lam in self.designs:
                P, S = self.designs[lam], None
            else:
                solution = d_design_solution(self.Phi, lam)
                P, S = solution.P, solution.S
            N = self.Phi.shape[1]
            # logdet(I + (t/reg) S(P, 0)) = logdet S(P, reg/t) + N log(t/reg)
            self.cache[t] = 0.5 * (logdet_s(self.Phi, P, lam, S) + N * np.log(t / self.reg))
        return self.cache[t]

    def get(self, t: int) -> float:
        t = int(t)
        if t in self.cache:
            return self.cache[t]
        t_left = 1 << (t.bit_length() - 1)
        left = self.exact(t_left)
        if t_left == t:
            return left
        t_right = min(self.T, 2 * t_left)
        right = self.exact(t_right)
        p = (t - t_left) / (t_right - t_left)
        return left * (1 - p) + right * p

    def values(self, first: int, last: int) -> np.ndarray:
        """[get(t) for t in first..last] (1 <= first <= last), computed array-wise: the same operations on
        the same numbers (IEEE division, products and sums are the same in numpy and in Python floats)."""
        t = np.arange(first, last + 1, dtype=np.int64)
        t_left = np.left_shift(1, np.floor(np.log2(t)).astype(np.int64))
        # log2 of an integer below 2^53 is exact at powers of two and never rounds up to the next one here,
        # but check (a wrong knot would silently change every gain):
        if np.any((t_left > t) | (2 * t_left <= t)):
            raise AssertionError("InformationGain.values: knot computation failed")
        t_right = np.minimum(self.T, 2 * t_left)
        knots = sorted(set(t_left.tolist()) | set(t_right[t_right != t_left].tolist()))
        exact = {k: self.exact(k) for k in knots}
        left = np.array([exact[k] for k in t_left.tolist()])
        out = left.copy()
        inner = t != t_left
        if inner.any():
            tl, tr, ti = t_left[inner], t_right[inner], t[inner]
            right = np.array([exact[k] for k in tr.tolist()])
            p = (ti - tl) / (tr - tl)
            out[inner] = left[inner] * (1 - p) + right * p
        # get(t) returns a cached exact value for any t already computed as a knot (t = T among them)
        for k, value in exact.items():
            if first <= k <= last:
                out[k - first] = value
        return out
