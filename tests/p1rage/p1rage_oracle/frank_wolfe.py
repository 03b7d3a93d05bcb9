"""Frank-Wolfe optimal designs exactly as spec section A describes them."""

import functools

import numpy as np

# The published runs take 999 steps. A test may lower it (both sides of an
# exact replay take the same count): far from convergence no step's argmax
# is decided by rounding, so two correct implementations agree bit for bit.
ITERATIONS = 999


def design(X, Y, iterations=None):
    """Approximately minimise max_{y in Y} y^T A(lam)^{-1} y over the simplex.

    X is K x d (the arms the design puts weight on), Y is n x d (the
    directions to control).  Returns (lam, value) where value is the max
    rho computed at the start of the last iteration, before its step.
    """
    iterations = ITERATIONS if iterations is None else iterations
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n_arms = X.shape[0]
    lam = np.full(n_arms, 1.0 / n_arms)
    if len(Y) == 0:
        return lam, 0.0

    value = None
    for count in range(1, iterations + 1):
        A_inv = np.linalg.pinv(X.T @ np.diag(lam) @ X)
        rho = np.array([y @ A_inv @ y for y in Y])
        worst = int(np.argmax(rho))  # np.argmax takes the first maximum
        value = float(rho[worst])
        y_star = Y[worst]
        gain = np.array([(y_star @ A_inv @ x) ** 2 for x in X])
        best_arm = int(np.argmax(gain))
        eta = 0.5 / (count + 2)
        lam = (1.0 - eta) * lam
        lam[best_arm] += eta
    return lam, value


def pair_differences(X, S):
    """Y_S = {x_a - x_b : a before b in S}, one row per unordered pair."""
    rows = [X[a] - X[b] for i, a in enumerate(S) for b in S[i + 1:]]
    return np.array(rows, dtype=float).reshape(len(rows), X.shape[1])


@functools.lru_cache(maxsize=None)
def _xy_design_of_set(x_bytes, shape, sorted_arms, iterations):
    X = np.frombuffer(x_bytes, dtype=float).reshape(shape)
    return design(X, pair_differences(X, list(sorted_arms)), iterations)


def xy_design(X, S):
    """XY design of the active set S (arm indices), over all K arms.

    The design depends only on the set, so S is sorted before the pairs are
    formed; that also makes the cached result independent of the order in
    which a set is first met (the order only matters for exact FW ties).
    """
    X = np.ascontiguousarray(X, dtype=float)
    key = tuple(sorted(int(a) for a in S))
    lam, value = _xy_design_of_set(X.tobytes(), X.shape, key, ITERATIONS)
    return lam.copy(), value


@functools.lru_cache(maxsize=None)
def _g_design_of(x_bytes, shape, iterations):
    X = np.frombuffer(x_bytes, dtype=float).reshape(shape)
    return design(X, X, iterations)


def g_design(X):
    """G-optimal design: design(X, X)."""
    X = np.ascontiguousarray(X, dtype=float)
    lam, value = _g_design_of(X.tobytes(), X.shape, ITERATIONS)
    return lam.copy(), value
