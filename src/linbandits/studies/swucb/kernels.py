"""Compiled round loops (numba): SW-UCB over a range of rounds, and EXP3.S.

SW-UCB keeps its window as a FIFO of (arm, reward) pairs with
V = lam I + sum X X^T and b = sum X Y updated by adding the new round and
evicting the oldest ones (so the window is the last <= w rounds, whatever w
was before); every w pushes both are recomputed from the FIFO with compensated
sums, so float rewards cannot drift (spec section 6). theta_hat and the widths
come from a Cholesky factor of V each round (d is small), or for d = 2 from
the closed-form inverse.

Ties (spec section 2): the arms whose index is within `tol` of the maximum;
if there are several, the next uniform of `tie_u` picks one of them in arm
order. The caller regenerates a longer buffer if it runs out (status 1).
"""
from __future__ import annotations

import math

import numpy as np

from linbandits.cholesky import cholesky_lower, forward_substitution
from linbandits.jit import njit

OK, OUT_OF_TIE_DRAWS = 0, 1


@njit(cache=True)
def _width2(Lc, X, a, z):
    """||x_a||^2 in V^-1 = |Lc^-1 x_a|^2 (row a of X, without making a view)."""
    d = Lc.shape[0]
    total = 0.0
    for i in range(d):
        s = X[a, i]
        for k in range(i):
            s -= Lc[i, k] * z[k]
        z[i] = s / Lc[i, i]
        total += z[i] * z[i]
    return total


@njit(cache=True)
def _solve(Lc, rhs, z, out):
    """out = (Lc Lc^T)^-1 rhs."""
    d = Lc.shape[0]
    forward_substitution(Lc, rhs, z)
    for i in range(d - 1, -1, -1):
        s = z[i]
        for k in range(i + 1, d):
            s -= Lc[k, i] * out[k]
        out[i] = s / Lc[i, i]


@njit(cache=True)
def _window_sums(X, fifo_arm, fifo_y, head, count, lam, V, b, compensated, cV, cb):
    """V = lam I + sum X X^T and b = sum X Y over the FIFO, in window order
    (Neumaier-compensated when asked: numba has no math.fsum; cV, cb are scratch)."""
    d = X.shape[1]
    C = fifo_arm.shape[0]
    for i in range(d):
        b[i] = 0.0
        cb[i] = 0.0
        for j in range(d):
            V[i, j] = 0.0
            cV[i, j] = 0.0
    for n in range(count):
        pos = (head + n) % C
        a = fifo_arm[pos]
        y = fifo_y[pos]
        for i in range(d):
            term = X[a, i] * y
            s = b[i] + term
            if compensated:
                if abs(b[i]) >= abs(term):
                    cb[i] += (b[i] - s) + term
                else:
                    cb[i] += (term - s) + b[i]
            b[i] = s
            for j in range(d):
                term = X[a, i] * X[a, j]
                s = V[i, j] + term
                if compensated:
                    if abs(V[i, j]) >= abs(term):
                        cV[i, j] += (V[i, j] - s) + term
                    else:
                        cV[i, j] += (term - s) + V[i, j]
                V[i, j] = s
    for i in range(d):
        b[i] += cb[i]
        for j in range(d):
            V[i, j] += cV[i, j]
        V[i, i] += lam


@njit(cache=True)
def sw_ucb_rounds(X, means, best, eta, noise_sd, t0, t1, w, beta, lam, tol,
                  V, b, fifo_arm, fifo_y, ctr, tie_u, regret_in, arms_out, trace, check, drift):
    """Rounds t0..t1-1 of SW-UCB with window w from the state (V, b, FIFO, ctr).

    ctr = [head, count, pushes, tie draws used]; updated in place.
    Returns (running regret, sum of observed rewards, status).
    trace (T x K, or empty): every round's UCB indexes. check: track in
    drift[0] the largest |theta_hat - theta_hat from scratch|.
    """
    K, d = X.shape
    C = fifo_arm.shape[0]
    Lc = np.zeros((d, d))
    z = np.empty(d)
    theta = np.empty(d)
    idx = np.empty(K)
    Vx = np.empty((d, d))
    bx = np.empty(d)
    thx = np.empty(d)
    cV = np.empty((d, d))
    cb = np.empty(d)
    i00 = i01 = i11 = 0.0
    head, count, pushes, used = ctr[0], ctr[1], ctr[2], ctr[3]
    since_recompute = pushes % w
    regret = regret_in
    G = 0.0
    status = OK
    for t in range(t0, t1):
        while count > w:
            a = fifo_arm[head]
            y = fifo_y[head]
            for i in range(d):
                b[i] -= X[a, i] * y
                for j in range(d):
                    V[i, j] -= X[a, i] * X[a, j]
            head += 1
            if head == C:
                head = 0
            count -= 1
        if d == 2:
            # Closed-form 2 x 2 inverse: the published instance's case, ~3x cheaper than Cholesky.
            det = V[0, 0] * V[1, 1] - V[0, 1] * V[1, 0]
            i00, i01, i11 = V[1, 1] / det, -V[0, 1] / det, V[0, 0] / det
            theta[0] = i00 * b[0] + i01 * b[1]
            theta[1] = i01 * b[0] + i11 * b[1]
        else:
            cholesky_lower(V, Lc, -np.inf)
            _solve(Lc, b, z, theta)
        if check:
            _window_sums(X, fifo_arm, fifo_y, head, count, lam, Vx, bx, False, cV, cb)
            cholesky_lower(Vx, Lc, -np.inf)
            _solve(Lc, bx, z, thx)
            for i in range(d):
                drift[0] = max(drift[0], abs(theta[i] - thx[i]))
            cholesky_lower(V, Lc, -np.inf)
            if d == 2:
                det = V[0, 0] * V[1, 1] - V[0, 1] * V[1, 0]
                i00, i01, i11 = V[1, 1] / det, -V[0, 1] / det, V[0, 0] / det
        top = -np.inf
        for k in range(K):
            if d == 2:
                x0, x1 = X[k, 0], X[k, 1]
                width = i00 * x0 * x0 + 2.0 * i01 * x0 * x1 + i11 * x1 * x1
            else:
                width = _width2(Lc, X, k, z)
            mean = 0.0
            for i in range(d):
                mean += X[k, i] * theta[i]
            idx[k] = mean + beta * math.sqrt(width)
            if idx[k] > top:
                top = idx[k]
        if trace.shape[0] > 0:
            for k in range(K):
                trace[t, k] = idx[k]
        n_tied = 0
        for k in range(K):
            if idx[k] >= top - tol:
                n_tied += 1
        pick = 0
        if n_tied > 1:
            if used >= tie_u.shape[0]:
                status = OUT_OF_TIE_DRAWS
                break
            pick = min(int(tie_u[used] * n_tied), n_tied - 1)
            used += 1
        arm = -1
        for k in range(K):
            if idx[k] >= top - tol:
                if pick == 0:
                    arm = k
                    break
                pick -= 1
        y = means[t, arm] + noise_sd * eta[t, arm]
        regret += best[t] - means[t, arm]
        G += y
        arms_out[t] = arm
        pos = head + count
        if pos >= C:
            pos -= C
        fifo_arm[pos] = arm
        fifo_y[pos] = y
        count += 1
        for i in range(d):
            b[i] += X[arm, i] * y
            for j in range(d):
                V[i, j] += X[arm, i] * X[arm, j]
        pushes += 1
        since_recompute += 1
        if since_recompute == w:
            since_recompute = 0
            _window_sums(X, fifo_arm, fifo_y, head, count, lam, V, b, True, cV, cb)
    ctr[0], ctr[1], ctr[2], ctr[3] = head, count, pushes, used
    return regret, G, status


@njit(cache=True)
def exp3s_rounds(means, best, eta, noise_sd, gamma, alpha, batch, u, arms_out):
    """EXP3.S (Auer et al. 2002, Sec. 8) on K arms; weights restart every `batch`
    rounds when batch > 0 (Rexp3). Rewards clipped to [0, 1]; the arm drawn by
    inverse CDF with one uniform per round. Returns the regret."""
    T, K = means.shape
    wts = np.ones(K)
    p = np.empty(K)
    regret = 0.0
    share_rate = math.e * alpha / K
    for t in range(T):
        if batch > 0 and t % batch == 0:
            for k in range(K):
                wts[k] = 1.0
        total = 0.0
        for k in range(K):
            total += wts[k]
        for k in range(K):
            p[k] = (1.0 - gamma) * wts[k] / total + gamma / K
        arm = K - 1
        cum = 0.0
        for k in range(K):
            cum += p[k]
            if u[t] < cum:
                arm = k
                break
        y = means[t, arm] + noise_sd * eta[t, arm]
        r = min(max(y, 0.0), 1.0)
        xhat = r / p[arm]
        share = share_rate * total
        for k in range(K):
            grow = math.exp(gamma * xhat / K) if k == arm else 1.0
            wts[k] = wts[k] * grow + share
        s = 0.0
        for k in range(K):
            s += wts[k]
        for k in range(K):
            wts[k] /= s
        regret += best[t] - means[t, arm]
        arms_out[t] = arm
    return regret
