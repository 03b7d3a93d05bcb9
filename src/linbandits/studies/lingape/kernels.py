"""Compiled pull loops (numba) of the four algorithms.

Everything lives in the K-space of the arms. With Z = A^{-1} and the pair
directions y_p = x_i - x_j (P of them, formed explicitly), the state is
G = X Z X^T (K x K), D = X Z Y^T (K x P), W_p = y_p^T Z y_p and mu = X theta_hat.
A pull of arm c with reward r is one Sherman-Morrison step (u = G[:, c],
f = 1 / (1 + G_cc)): G -= f u u^T, D -= f u D[c], W -= f D[c]^2,
mu += f u (r - mu_c), log det A += log(1 + G_cc). Every width is W_p and every
greedy score y_p^T (A + x_a x_a^T)^{-1} y_p is W_p - D[a, p]^2 / (1 + G_aa),
whatever d is. Widths are tracked directly, not as G_ii + G_jj - 2 G_ij: in
Soare's instance x_1 - x_{d+1} is ~1e-2 long and that difference loses six
digits, enough to move XY-oracle's stopping time by 7 pulls. Every `refresh`
pulls the state is recomputed from the counts (and b) by solves, so round-off
cannot drift.

A kernel returns a status: STOPPED (the stopping rule held), NEED_DRAWS (the
reward draws ran out before the next pull: refill and call again; nothing was
changed) or AT_LIMIT (n reached max_n before stopping).
"""
from __future__ import annotations

import math

import numpy as np

from linbandits.jit import njit

STOPPED, NEED_DRAWS, AT_LIMIT, PHASE_END = 0, 1, 2, 3
TIE_RTOL = 1e-12       # |score - min| <= 1e-12 |min| is a tie (spec DEFAULT)
RULE_GREEDY, RULE_RATIO = 0, 1
# Protocol constants, module globals so that the planted-bug tests can change them
# in the kernels' pure-Python forms (numba freezes them at compile time).
STOP_CHECK_EVERY = 1   # the stopping rule is tested after every pull
WIDTH_K_POWER = 2      # LinGapE's C_t: K^2 / delta (Lemma 5), not eq. 3's 1 / delta
# Below this many pairs the greedy XY step scans them all: sorting them cost more than it saved
# (measured, one sequence: 0.90x at 3 and 6 pairs, 1.10x at 10 and 15, 1.22x at 21).
PRUNE_MIN_PAIRS = 10
FORM_PAPER, FORM_SCRATCH = 0, 1

# numpy's error model: no zero-division check (a branch) on every `/`. No divisor here can be zero
# (1 + G_aa >= 1; ratios divide by p_a > 0 only), so no result changes: 1.06-1.14x on XY-static.
JIT = {"cache": True, "error_model": "numpy"}

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)


@njit(**JIT)
def mix64(z):
    z = z + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(**JIT)
def tie_uniform(key, n):
    h = mix64(key ^ mix64(np.uint64(n)))
    return float(h >> _S11) * (1.0 / 9007199254740992.0)


@njit(**JIT)
def pick_min_tied(scores, key, n):
    """argmin of scores; near-ties (TIE_RTOL) broken uniformly by the tie stream."""
    K = scores.shape[0]
    m = scores[0]
    for a in range(1, K):
        if scores[a] < m:
            m = scores[a]
    tol = TIE_RTOL * abs(m)
    count = 0
    first = -1
    for a in range(K):
        if scores[a] - m <= tol:
            if first < 0:
                first = a
            count += 1
    if count == 1:
        return first
    k = int(tie_uniform(key, n) * count)
    for a in range(K):
        if scores[a] - m <= tol:
            if k == 0:
                return a
            k -= 1
    return first


@njit(**JIT)
def first_argmax(v):
    """Index of the largest entry, the first one on ties."""
    top = 0
    for a in range(1, v.shape[0]):
        if v[a] > v[top]:
            top = a
    return top


@njit(**JIT)
def reward_of(mean, draw, reward_kind, noise_sd):
    if reward_kind == 0:
        return mean + noise_sd * draw
    p = 0.5 * (1.0 + min(1.0, max(-1.0, mean)))
    return 1.0 if draw < p else -1.0


@njit(**JIT)
def first_refresh(n, refresh):
    """The first n' > n with n' % refresh == 0 (refresh > 0), or never: the kernels count to it
    instead of dividing at every pull."""
    return (n // refresh + 1) * refresh if refresh > 0 else -1


@njit(**JIT)
def fresh_state(G, D, W, T, X, Y, lam):
    """G, D, W from the counts by solves; returns (X A^{-1}, log det A)."""
    K, d = X.shape
    A = lam * np.eye(d)
    for a in range(K):
        for i in range(d):
            for j in range(d):
                A[i, j] += T[a] * X[a, i] * X[a, j]
    ZX = np.linalg.solve(A, np.ascontiguousarray(X.T))
    G[:, :] = X @ ZX
    if Y.shape[0] > 0:
        ZY = np.linalg.solve(A, np.ascontiguousarray(Y.T))
        D[:, :] = X @ ZY
        for p in range(Y.shape[0]):
            s = 0.0
            for k in range(d):
                s += Y[p, k] * ZY[k, p]
            W[p] = s
    return np.ascontiguousarray(ZX.T), np.linalg.slogdet(A)[1]


@njit(**JIT)
def pull(G, D, W, c, u, dc):
    """Sherman-Morrison step of a pull of arm c; u <- G[:, c] and dc <- D[c] before it; returns G_cc."""
    K = G.shape[0]
    P = W.shape[0]
    s = G[c, c]
    f = 1.0 / (1.0 + s)
    for i in range(K):
        u[i] = G[i, c]
    for p in range(P):
        dc[p] = D[c, p]
    for i in range(K):
        ui = u[i] * f
        for j in range(K):
            G[i, j] -= ui * u[j]
        for p in range(P):
            D[i, p] -= ui * dc[p]
    for p in range(P):
        W[p] -= dc[p] * dc[p] * f
    return s


# ---------------------------------------------------------------- LinGapE

@njit(**JIT)
def lingape_kernel(G, D, W, Y, mu, b, T, ist, fst, X, means, draws, key, lam, R, S, delta, eps, form, rule,
                   pstar, reward_kind, noise_sd, max_n, refresh):
    """ist = [n, draw position, recommended, base]; fst = [log det A]. Greedy rule (9) or ratio rule (12).

    Only the directions that matter are tracked: y_c = x_base - x_c for every c, base = the current i_t
    (D is K x K, W is K). When i_t moves, the state is rebuilt for the new base by solves.
    """
    K, d = X.shape
    u = np.empty(K)
    dc = np.empty(K)
    scores = np.empty(K)
    log_k2_delta = math.log(K ** WIDTH_K_POWER / delta)
    log_lam = math.log(lam)
    next_refresh = first_refresh(ist[0], refresh)
    while True:
        n = ist[0]
        i = first_argmax(mu)
        if i != ist[3]:
            for c in range(K):
                for k in range(d):
                    Y[c, k] = X[i, k] - X[c, k]
            XZ, logdet = fresh_state(G, D, W, T, X, Y, lam)
            mu[:] = XZ @ b
            fst[0] = logdet
            ist[3] = i
            continue
        if form == FORM_PAPER:
            C = R * math.sqrt(2.0 * (log_k2_delta + 0.5 * fst[0] - 0.5 * d * log_lam)) + math.sqrt(lam) * S
        else:
            C = R * math.sqrt(d * math.log(K ** WIDTH_K_POWER * (1.0 + n) / (lam * delta))) + math.sqrt(lam) * S
        B = 0.0       # j = i_t: gap 0, width 0
        j = i
        for c in range(K):
            if c == i:
                continue
            v = mu[c] - mu[i] + C * math.sqrt(max(W[c], 0.0))
            if v > B or (v == B and c < j):
                B = v
                j = c
        ist[2] = i
        if B <= eps and n % STOP_CHECK_EVERY == 0:
            return STOPPED
        if n >= max_n:
            return AT_LIMIT
        if ist[1] >= draws.shape[0]:
            return NEED_DRAWS
        if j == i:            # only reachable when the stopping test is skipped (planted bug)
            j = 1 if i == 0 else 0
        if rule == RULE_GREEDY:
            for a in range(K):
                scores[a] = W[j] - D[a, j] * D[a, j] / (1.0 + G[a, a])
            arm = pick_min_tied(scores, key, n)
        else:
            lo, hi = min(i, j), max(i, j)
            arm = -1
            best = np.inf
            for a in range(K):
                q = pstar[lo, hi, a]
                if q > 0.0 and T[a] / q < best:
                    best = T[a] / q
                    arm = a
        r = reward_of(means[arm], draws[ist[1]], reward_kind, noise_sd)
        ist[1] += 1
        resid = r - mu[arm]
        s = pull(G, D, W, arm, u, dc)
        f = resid / (1.0 + s)
        for a in range(K):
            mu[a] += u[a] * f
        fst[0] += math.log1p(s)
        for k in range(d):
            b[k] += X[arm, k] * r
        T[arm] += 1
        ist[0] = n + 1
        if n + 1 == next_refresh:
            next_refresh += refresh
            XZ, logdet = fresh_state(G, D, W, T, X, Y, lam)
            mu[:] = XZ @ b
            fst[0] = logdet


# ---------------------------------------------------------------- greedy XY design

@njit(**JIT)
def every_pair_scores(G, D, W, scores):
    """greedy_scores over every pair in index order: the kernels' choice below PRUNE_MIN_PAIRS pairs."""
    K = G.shape[0]
    P = W.shape[0]
    for a in range(K):
        f = 1.0 / (1.0 + G[a, a])
        m = -np.inf
        for p in range(P):
            sc = W[p] - D[a, p] * D[a, p] * f
            if sc > m:
                m = sc
        scores[a] = m


@njit(**JIT)
def sort_by_width(order, W):
    """Insertion sort of the pair indices `order` by W, widest first (a pull moves few of them)."""
    for k in range(1, order.shape[0]):
        p = order[k]
        w = W[p]
        j = k      # the hole; kept >= 0 so no index can be negative (no wrap-around code per access)
        while j > 0 and W[order[j - 1]] < w:
            order[j] = order[j - 1]
            j -= 1
        order[j] = p


@njit(**JIT)
def greedy_scores(G, D, W, order, scores):
    """scores[a] = max over the tracked pairs of the width after one more pull of arm a.

    A pair's width after the pull, W_p - D[a, p]^2 / (1 + G_aa), is never above W_p (in floating
    point too), so with the pairs widest first (`order`, sorted by sort_by_width) the scan of an arm
    stops at the first pair whose W_p is <= the arm's running maximum: no later pair can exceed it.
    The maximum is then the same number as over every pair, bit for bit; an arm usually needs one
    or two pairs instead of all K(K-1)/2.
    """
    K = G.shape[0]
    P = W.shape[0]
    for a in range(K):
        f = 1.0 / (1.0 + G[a, a])
        m = -np.inf
        for k in range(P):
            p = order[k]
            w = W[p]
            if w <= m:
                break
            sc = w - D[a, p] * D[a, p] * f
            if sc > m:
                m = sc
        scores[a] = m


@njit(**JIT)
def static_kernel(G, D, W, pid, T, ist, X, Y, lam, mus, sums, active, stop_n, rec, stop_counts, means, draws, key,
                  sigma, delta, reward_kind, noise_sd, max_n, refresh):
    """XY-static for several runs sharing one reward-free arm sequence (pairs: every i < j).

    ist = [n, draw position]. Run r's state: mus[r] and sums[r] (each arm's reward sum); its draws draws[r]. The stopping
    rule of every active run is tested at every n (from n = K on) before the next pull.
    """
    K, d = X.shape
    R = mus.shape[0]
    u = np.empty(K)
    dc = np.empty(W.shape[0])
    scores = np.empty(K)
    prune = W.shape[0] >= PRUNE_MIN_PAIRS
    order = np.arange(W.shape[0] if prune else 0)
    sort_by_width(order, W)
    last_fail = np.zeros(R, dtype=np.int64)
    tops = np.empty(R, dtype=np.int64)     # each run's empirical best arm (first index on ties)
    for r in range(R):
        tops[r] = first_argmax(mus[r])
    log_c = math.log(6.0 * K * K / (math.pi ** 2 * delta))
    next_refresh = first_refresh(ist[0], refresh)
    while True:
        n = ist[0]
        c2 = 8.0 * sigma * sigma * (log_c + 2.0 * math.log(n))
        left = 0
        for r in range(R):
            if not active[r]:
                continue
            top = tops[r]
            # The arm that failed last time is tested first: usually it fails again, one test per run.
            ok = True
            a = last_fail[r] - 1
            for k in range(K):
                a += 1
                if a == K:      # (last_fail + k) mod K without an integer division
                    a = 0
                if a == top:
                    continue
                if mus[r, top] - mus[r, a] < math.sqrt(c2 * max(W[pid[top, a]], 0.0)):
                    ok = False
                    last_fail[r] = a
                    break
            if ok and n % STOP_CHECK_EVERY == 0:
                active[r] = False
                stop_n[r] = n
                rec[r] = top
                stop_counts[r, :] = T
            else:
                left += 1
        if left == 0:
            return STOPPED
        if n >= max_n:
            return AT_LIMIT
        if ist[1] >= draws.shape[1]:
            return NEED_DRAWS
        if prune:
            greedy_scores(G, D, W, order, scores)
        else:
            every_pair_scores(G, D, W, scores)
        arm = pick_min_tied(scores, key, n)
        pos = ist[1]
        f = 1.0 / (1.0 + G[arm, arm])
        for a in range(K):
            u[a] = G[a, arm]
        for r in range(R):
            if not active[r]:
                continue
            y = reward_of(means[arm], draws[r, pos], reward_kind, noise_sd)
            resid = (y - mus[r, arm]) * f
            # the update and the next test's best arm in one pass (strict >: first index on ties)
            top = 0
            best = -np.inf
            for a in range(K):
                v = mus[r, a] + u[a] * resid
                mus[r, a] = v
                if v > best:
                    best = v
                    top = a
            tops[r] = top
            sums[r, arm] += y      # b = X^T sums: needed only when the state is recomputed
        pull(G, D, W, arm, u, dc)
        sort_by_width(order, W)
        T[arm] += 1
        ist[1] = pos + 1
        ist[0] = n + 1
        if n + 1 == next_refresh:
            next_refresh += refresh
            XZ, _ = fresh_state(G, D, W, T, X, Y, lam)
            sort_by_width(order, W)
            for r in range(R):
                if active[r]:
                    mus[r, :] = XZ @ (X.T @ sums[r])
                    tops[r] = first_argmax(mus[r])


@njit(**JIT)
def phase_kernel(G, D, W, T, ist, fst, X, Y, lam, key, threshold, max_n, refresh):
    """Greedy XY pulls over the pairs Y until the chosen score v <= threshold (at least one pull).

    ist = [n]; fst = [v of the last pull]. Reward-free: the sequence depends on (key, state) only.
    """
    K = G.shape[0]
    u = np.empty(K)
    dc = np.empty(W.shape[0])
    scores = np.empty(K)
    prune = W.shape[0] >= PRUNE_MIN_PAIRS
    order = np.arange(W.shape[0] if prune else 0)
    sort_by_width(order, W)
    next_refresh = first_refresh(ist[0], refresh)
    while True:
        n = ist[0]
        if n >= max_n:
            return AT_LIMIT
        if prune:
            greedy_scores(G, D, W, order, scores)
        else:
            every_pair_scores(G, D, W, scores)
        arm = pick_min_tied(scores, key, n)
        pull(G, D, W, arm, u, dc)
        sort_by_width(order, W)
        T[arm] += 1
        ist[0] = n + 1
        fst[0] = scores[arm]
        if n + 1 == next_refresh:
            next_refresh += refresh
            fresh_state(G, D, W, T, X, Y, lam)
            sort_by_width(order, W)
        if scores[arm] <= threshold:
            return PHASE_END


# ---------------------------------------------------------------- XY-oracle

@njit(**JIT)
def oracle_kernel(G, D, W, T, ist, X, Y, lam, p, gaps, sigma, delta, max_n, refresh):
    """Tracking of p*: pull argmin_{p_a > 0} (T_a + 1) / p_a (first index) until every true gap
    gaps[q] (of pair q: y_q = x_a* - x_i) clears 2 sqrt(2) sigma sqrt(W_q) sqrt(log(6 n^2 K / (pi^2 delta)))."""
    K = G.shape[0]
    u = np.empty(K)
    dc = np.empty(W.shape[0])
    log_c = math.log(6.0 * K / (math.pi ** 2 * delta))
    last_fail = 0
    next_refresh = first_refresh(ist[0], refresh)
    while True:
        n = ist[0]
        c2 = 8.0 * sigma * sigma * (log_c + 2.0 * math.log(n))
        ok = True
        Q = W.shape[0]
        q = last_fail - 1
        for k in range(Q):
            q += 1
            if q == Q:
                q = 0
            if gaps[q] < math.sqrt(c2 * max(W[q], 0.0)):
                ok = False
                last_fail = q
                break
        if ok:
            return STOPPED
        if n >= max_n:
            return AT_LIMIT
        arm = -1
        low = np.inf
        for a in range(K):
            if p[a] > 0.0 and (T[a] + 1.0) / p[a] < low:
                low = (T[a] + 1.0) / p[a]
                arm = a
        pull(G, D, W, arm, u, dc)
        T[arm] += 1
        ist[0] = n + 1
        if n + 1 == next_refresh:
            next_refresh += refresh
            fresh_state(G, D, W, T, X, Y, lam)
