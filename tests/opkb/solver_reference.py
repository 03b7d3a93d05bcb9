"""The OP solver, leverages and information gain as they were before the speed work of issue 28 (core at bddb596), verbatim:
the reference the faster solver of designs.py must equal bit for bit (same LAPACK routines, same operations
in the same order; only wrappers, copies and repeated evaluations were removed)."""
from __future__ import annotations

import numpy as np
from scipy.linalg import lu_factor, lu_solve, solve_triangular

KKT_TOL = 1e-8
MAX_ITERATIONS = 200


def leverages(Phi: np.ndarray, P: np.ndarray, lam: float) -> np.ndarray:
    """M = Phi S(P, lam)^-1 Phi^T (N x N): M[a, a] = ||phi(a)||^2_{S^-1}."""
    S = Phi.T @ (P[:, None] * Phi)
    S[np.diag_indices_from(S)] += lam
    L = np.linalg.cholesky(S)
    B = solve_triangular(L, Phi.T, lower=True, check_finite=False)
    return B.T @ B


def op_gradient(Phi, P, Dhat, beta, lam):
    M = leverages(Phi, P, lam)
    return Dhat - (2.0 / beta) * np.diag(M), M


def kkt_residual(Phi, P, Dhat, beta, lam) -> float:
    """max_a |min(P(a), g(a) + nu)| with nu = -sum_a P(a) g(a): zero exactly at the KKT point."""
    g, _ = op_gradient(Phi, np.asarray(P, float), np.asarray(Dhat, float), beta, lam)
    nu = -float(P @ g)
    return float(np.max(np.abs(np.minimum(P, g + nu))))


def solve_op(Phi, Dhat, beta: float, lam: float, tol: float = KKT_TOL) -> np.ndarray:
    """P* of OP(Dhat, beta) on the rows of Phi: a distribution with KKT residual <= tol."""
    Phi = np.asarray(Phi, float)
    Dhat = np.asarray(Dhat, float)
    N = Phi.shape[0]
    if N == 1:
        return np.ones(1)
    c = 2.0 / beta
    P = np.full(N, 1.0 / N)
    g, M = op_gradient(Phi, P, Dhat, beta, lam)
    # Dual start: nu centres g + nu on the support's mean; s small but positive, on the scale of g.
    nu = -float(P @ g)
    s = np.maximum(g + nu, 0.0) + 1e-2 * (np.abs(g).mean() + 1e-12)
    ones = np.ones(N)
    K = np.empty((N + 1, N + 1))
    for _ in range(MAX_ITERATIONS):
        mu_c = float(P @ s) / N
        r_d = g + nu - s
        r_p = P.sum() - 1.0
        if max(np.abs(r_d).max(), abs(r_p)) < 1e-13 and mu_c < 1e-14:
            break
        K[:N, :N] = c * (M * M)
        K[np.arange(N), np.arange(N)] += s / P
        K[:N, N] = ones
        K[N, :N] = ones
        K[N, N] = 0.0
        factor = lu_factor(K, check_finite=False)

        def direction(r_c):
            step = lu_solve(factor, np.concatenate([-r_d - r_c / P, [-r_p]]), check_finite=False)
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
            g_new, M_new = op_gradient(Phi, P_new, Dhat, beta, lam)
            new = np.sqrt(np.sum((g_new + nu_new - s_new) ** 2) + (P_new.sum() - 1.0) ** 2
                          + np.sum((P_new * s_new - tau) ** 2))
            if new <= (1.0 - 1e-4 * alpha) * old or alpha < 1e-10:
                break
            alpha *= 0.5
        P, s, nu, g, M = P_new, s_new, nu_new, g_new, M_new
    P = np.maximum(P, 0.0)
    P = P / P.sum()
    residual = kkt_residual(Phi, P, Dhat, beta, lam)
    if residual > tol:
        raise RuntimeError(f"OP solver stopped at KKT residual {residual:.3g} > {tol:g}")
    return P


def boundary_step(x: np.ndarray, dx: np.ndarray, fraction: float) -> float:
    """The largest step <= 1 keeping x + step dx > 0, times `fraction`."""
    neg = dx < 0
    if not neg.any():
        return 1.0
    return min(1.0, fraction * float(np.min(-x[neg] / dx[neg])))


def d_design(Phi, lam: float) -> np.ndarray:
    """pi = argmax_P logdet S(P, lam) (the Bayesian D-optimal design): OP with Dhat = 0, 2/beta = 1."""
    Phi = np.asarray(Phi, float)
    return solve_op(Phi, np.zeros(Phi.shape[0]), 2.0, lam)



def logdet_s(Phi, P, lam) -> float:
    S = Phi.T @ (np.asarray(P)[:, None] * Phi)
    S[np.diag_indices_from(S)] += lam
    return float(np.linalg.slogdet(S)[1])


class InformationGain:
    """The code's gamma: g(t) = (1/2) max_P logdet(I + (t/reg) S(P, 0)), the maximiser being the
    D-design at regulariser reg/t; exact at t = 1, 2, 4, ... and at T, linear in t between
    t_l = 2^floor(log2 t) and t_r = min(T, 2 t_l)."""

    def __init__(self, Phi, T: int, reg: float):
        self.Phi, self.T, self.reg = np.asarray(Phi, float), int(T), float(reg)
        self.cache: dict[int, float] = {}

    def exact(self, t: int) -> float:
        t = int(t)
        if t not in self.cache:
            P = d_design(self.Phi, self.reg / t)
            N = self.Phi.shape[1]
            # logdet(I + (t/reg) S(P, 0)) = logdet S(P, reg/t) + N log(t/reg)
            self.cache[t] = 0.5 * (logdet_s(self.Phi, P, self.reg / t) + N * np.log(t / self.reg))
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


# ------------------------------------------------------------------ issue 39: as it was at eaafa4c
# The solver above is also the reference for issue 39's stop at a stalled line search (it runs on to
# MAX_ITERATIONS there). The network's weight update as it was before it was fused in place:

def descend(W, W0, grad, lr, decay):
    """ReluNetwork.train's update of one layer at eaafa4c (decay = width * lam)."""
    W -= lr * (grad + decay * (W - W0))
