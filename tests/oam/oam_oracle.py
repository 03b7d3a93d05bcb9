"""A plain round-by-round implementation of the study's algorithms, written from the spec
(sections 2-3) and not from the engine: numpy linear algebra recomputed every round
(rank, inverse, determinant), Python lists, no caching beyond what the spec prescribes.

It replays a run's stream (linbandits.studies.oam.streams.run_stream): the same contexts,
noise and Thompson draws as the engine, so whole runs can be compared exactly. Its closed
form is its own; for k >= 2 it calls the product's cvxpy program (tested on its own in
test_oam_allocation.py), as the engine does.
"""
from __future__ import annotations

import math

import numpy as np

from linbandits.studies.oam.allocation import allocate

ZERO = 1e-12
TIE = 1e-9


def f_rate(n, d, log_inv_delta, c=1.0):
    return 2 * (1 + 1 / math.log(n)) * log_inv_delta + c * d * math.log(d * math.log(n))


def true_gaps(actions, theta):
    values = actions @ theta
    return values.max(axis=1, keepdims=True) - values


def allocation(actions, gaps):
    """alpha per (m, k) from spec section 2; inf on zero-gap arms."""
    M, K, d = actions.shape
    optimal = gaps <= ZERO
    S = actions[optimal]
    if S.size:
        _, sv, vt = np.linalg.svd(S)
        rank = int(np.sum(sv > 1e-9 * sv[0])) if sv[0] > 0 else 0
    else:
        vt, rank = np.eye(d), 0
    basis = vt[rank:]
    alpha = np.where(optimal, np.inf, 0.0)
    if basis.shape[0] == 0:
        return alpha
    if basis.shape[0] >= 2:
        return allocate(actions, gaps, "sdp").alpha
    v = basis[0]
    pairs = {}
    for m in range(M):
        for k in range(K):
            if not optimal[m, k]:
                pairs.setdefault((m, tuple(actions[m, k])), (m, k))
    reps = list(pairs.values())
    w = {mk: float(actions[mk] @ v) for mk in reps}
    h = max(2 * w[mk] ** 2 / gaps[mk] ** 2 for mk in reps)
    q = {mk: gaps[mk] / w[mk] ** 2 for mk in reps if w[mk] != 0}
    if h > 0:
        qmin = min(q.values())
        J = [mk for mk in q if q[mk] <= qmin * (1 + TIE)]
        for mk in J:
            alpha[mk] = h / (len(J) * w[mk] ** 2)
    for (m, key), rep in pairs.items():
        for k in range(K):
            if tuple(actions[m, k]) == key:
                alpha[m, k] = alpha[rep]
    return alpha


def oam(inst, stream, epsilon=0.0, schedule="constant", zeta=0.1, c=1.0):
    X = inst.actions
    M, K, d = X.shape
    n = inst.horizon
    fn = f_rate(n, d, math.log(n), c)
    gaps_true = true_gaps(X, stream.theta)
    G, bsum = np.zeros((d, d)), np.zeros(d)
    pulls = {}
    s, T, det_last = 0, None, None
    arms, regret, total = [], [], 0.0
    for t in range(1, n + 1):
        m = stream.contexts[t - 1]
        A = X[m]
        count = [pulls.get(tuple(x), 0) for x in A]
        if np.linalg.matrix_rank(G) < d:
            r = np.linalg.matrix_rank(G)
            k = next((j for j in range(K) if np.linalg.matrix_rank(G + np.outer(A[j], A[j])) > r), 0)
        else:
            Ginv = np.linalg.inv(G)
            theta_hat = np.linalg.solve(G, bsum)
            values = X @ theta_hat
            gaps = values.max(axis=1, keepdims=True) - values
            positive = gaps[gaps > ZERO]
            dmin = positive.min() if positive.size else math.inf
            det = np.linalg.det(G)
            if T is None or det >= (1 + zeta) * det_last:
                T = fn / 2 * allocation(X, gaps)
                det_last = det
            norm2 = [A[j] @ Ginv @ A[j] for j in range(K)]
            if all(norm2[j] <= max(dmin ** 2, gaps[m, j] ** 2) / fn for j in range(K)):
                k = int(np.argmax(values[m]))
            else:
                s += 1
                tau = [min(math.inf if gaps[m, j] <= ZERO else T[m, j], fn / dmin ** 2) for j in range(K)]
                if all(count[j] >= tau[j] for j in range(K)):
                    width = math.sqrt(f_rate(n, d, math.log(s ** 2), c))
                    k = int(np.argmax([values[m, j] + width * math.sqrt(norm2[j]) for j in range(K)]))
                else:
                    ratio = [count[j] / tau[j] if tau[j] > 0 else math.inf for j in range(K)]
                    b1 = next(j for j in range(K) if ratio[j] <= min(ratio) * (1 + TIE))
                    b2 = int(np.argmin(count))
                    if schedule == "loglog":
                        eps = 1 / math.log(math.log(t)) if t > 2 and math.log(math.log(t)) > 0 else math.inf
                    else:
                        eps = epsilon
                    k = b2 if count[b2] <= eps * (s - 1) else b1
        x = A[k]
        y = x @ stream.theta + stream.noise[t - 1]
        G += np.outer(x, x)
        bsum += x * y
        pulls[tuple(x)] = pulls.get(tuple(x), 0) + 1
        total += gaps_true[m, k]
        arms.append(k)
        regret.append(total)
    return np.array(arms), np.array(regret)


def linucb(inst, stream, width="oful", c=1.0):
    X = inst.actions
    M, K, d = X.shape
    n = inst.horizon
    gaps_true = true_gaps(X, stream.theta)
    V = np.eye(d) if width == "oful" else np.zeros((d, d))
    bsum = np.zeros(d)
    arms, regret, total = [], [], 0.0
    for t in range(1, n + 1):
        m = stream.contexts[t - 1]
        A = X[m]
        if width == "fwidth" and np.linalg.matrix_rank(V) < d:
            r = np.linalg.matrix_rank(V)
            k = next((j for j in range(K) if np.linalg.matrix_rank(V + np.outer(A[j], A[j])) > r), 0)
        else:
            Vinv = np.linalg.inv(V)
            theta_hat = Vinv @ bsum
            if width == "oful":
                radius = math.sqrt(2 * math.log(n) + math.log(np.linalg.det(V))) + np.linalg.norm(stream.theta)
            else:
                radius = math.sqrt(f_rate(n, d, math.log(t ** 2), c))
            k = int(np.argmax([A[j] @ theta_hat + radius * math.sqrt(A[j] @ Vinv @ A[j]) for j in range(K)]))
        x = A[k]
        y = x @ stream.theta + stream.noise[t - 1]
        V += np.outer(x, x)
        bsum += x * y
        total += gaps_true[m, k]
        arms.append(k)
        regret.append(total)
    return np.array(arms), np.array(regret)


def ossb(inst, stream, epsilon=0.0, gamma=0.0):
    X = inst.actions
    K = X.shape[1]
    n = inst.horizon
    gaps_true = true_gaps(X, stream.theta)
    sums, count = np.zeros(K), np.zeros(K, dtype=int)
    s = 0
    arms, regret, total = [], [], 0.0
    for t in range(1, n + 1):
        if t <= K:
            k = t - 1
        else:
            means = sums / count
            gaps = means.max() - means
            alpha = allocation(X, gaps[None, :])[0]
            c = np.where(gaps <= ZERO, 0.0, alpha)      # the empirical best carries no constraint
            if np.all(count >= (1 + gamma) * c * math.log(t)):
                k = int(np.argmax(means))
            else:
                s += 1
                if count.min() <= epsilon * s:
                    k = int(np.argmin(count))
                else:
                    ratio = [count[j] / c[j] if c[j] > 0 else math.inf for j in range(K)]
                    k = next(j for j in range(K) if ratio[j] <= min(ratio) * (1 + TIE))
        y = X[0, k] @ stream.theta + stream.noise[t - 1]
        sums[k] += y
        count[k] += 1
        total += gaps_true[0, k]
        arms.append(k)
        regret.append(total)
    return np.array(arms), np.array(regret)


def lints(inst, stream, v):
    X = inst.actions
    M, K, d = X.shape
    n = inst.horizon
    gaps_true = true_gaps(X, stream.theta)
    B, bsum = np.eye(d), np.zeros(d)
    arms, regret, total = [], [], 0.0
    for t in range(1, n + 1):
        m = stream.contexts[t - 1]
        Binv = np.linalg.inv(B)
        sample = Binv @ bsum + v * np.linalg.cholesky(Binv) @ stream.normals[t - 1]
        k = int(np.argmax(X[m] @ sample))
        x = X[m, k]
        y = x @ stream.theta + stream.noise[t - 1]
        B += np.outer(x, x)
        bsum += x * y
        total += gaps_true[m, k]
        arms.append(k)
        regret.append(total)
    return np.array(arms), np.array(regret)
