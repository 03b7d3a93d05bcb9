"""Exact designs the algorithms need: XY-oracle's p* (eq. 18) and the ratio rule's p*(y) (eqs. 10-11)."""
from __future__ import annotations

import numpy as np

from linbandits.errors import UserError

ORACLE_TOL = 1e-10    # CLARABEL at 1e-10 reproduces Table 1's total (spec section 2)


def oracle_design(X: np.ndarray, means: np.ndarray, tol: float = ORACLE_TOL) -> tuple[np.ndarray, float]:
    """p* = argmin over the simplex of max_{i != a*} ||(x_a* - x_i)/Delta_i||^2_{(sum p x x^T)^-1}; (p*, value)."""
    import cvxpy as cp

    best = int(np.argmax(means))
    K, d = X.shape
    ys = [(X[best] - X[i]) / (means[best] - means[i]) for i in range(K) if i != best]
    if any(not np.all(np.isfinite(y)) for y in ys):
        raise UserError("XY-oracle needs a unique best arm (a gap of 0 makes y / Delta infinite)")
    p = cp.Variable(K, nonneg=True)
    t = cp.Variable()
    M = sum(p[k] * np.outer(X[k], X[k]) for k in range(K))
    cons = [cp.sum(p) == 1] + [cp.matrix_frac(y, M) <= t for y in ys]
    prob = cp.Problem(cp.Minimize(t), cons)
    prob.solve(solver="CLARABEL", tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, tol_ktratio=tol,
               max_iter=500)
    if p.value is None:
        raise UserError(f"XY-oracle's design problem was not solved ({prob.status})")
    value = np.clip(np.asarray(p.value, float), 0.0, None)
    return value / value.sum(), float(prob.value)


def soare_oracle_closed_form(d: int, omega: float = 0.01) -> np.ndarray:
    """p* of Soare's instance (spec section 7): arm d+1 gets 0; p1 : p2 : p_j = 1 : r : r/a."""
    a = (1 + np.cos(omega)) / (1 - np.cos(omega))
    r = np.sqrt(a / (1 + (d - 2) / a))
    p = np.array([1.0, r] + [r / a] * (d - 2) + [0.0])
    return p / p.sum()


def l1_weights(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """w* = argmin sum |w_k| s.t. sum_k w_k x_k = y (eq. 11), by HiGHS."""
    from scipy.optimize import linprog

    K = X.shape[0]
    res = linprog(np.ones(2 * K), A_eq=np.hstack([X.T, -X.T]), b_eq=y, bounds=(0, None), method="highs")
    if res.status != 0:
        raise UserError(f"the ratio rule's linear program (eq. 11) failed: {res.message}")
    return res.x[:K] - res.x[K:]


def ratio_table(X: np.ndarray) -> np.ndarray:
    """pstar[i, j] = p*(y(i, j)) (eq. 10) for every unordered pair i < j."""
    K = X.shape[0]
    table = np.zeros((K, K, K))
    for i in range(K):
        for j in range(i + 1, K):
            w = np.abs(l1_weights(X, X[i] - X[j]))
            w[w <= 1e-12 * w.max()] = 0.0    # round-off of the LP is not a ratio
            table[i, j] = w / w.sum()
    return table
