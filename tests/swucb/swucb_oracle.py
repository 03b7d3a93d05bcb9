"""Plain round-by-round SW-UCB, BOB and EXP3.S, written from the protocol
(spec section 2), not from the package's engine.

Each round rebuilds the window's V and b from scratch and solves with
numpy.linalg; nothing is incremental. The random draws are injected: eta
(T x K noise in units of noise_sd), the tie-breaking uniforms (one used per
tie, in order; the pick is floor(u * #tied) among the tied arms in arm
order), BOB's one uniform per block and EXP3.S's one uniform per round (the
index drawn by inverse CDF).
"""
from __future__ import annotations

import math

import numpy as np

TIE = 1e-9


class TieDraws:
    def __init__(self, uniforms):
        self.uniforms = list(uniforms)
        self.used = 0

    def pick(self, candidates):
        if len(candidates) == 1:
            return candidates[0]
        u = self.uniforms[self.used]
        self.used += 1
        return candidates[min(int(u * len(candidates)), len(candidates) - 1)]


def beta_eq5(w, d, R, L, lam, S, T):
    """eq. (5) with delta = 1/T."""
    return R * math.sqrt(d * math.log(T * (1 + w * L ** 2 / lam))) + math.sqrt(lam) * S


def ucb_indexes(X, window_arms, window_rewards, lam, beta):
    d = X.shape[1]
    Xw = X[np.asarray(window_arms, dtype=int)].reshape(-1, d)
    V = lam * np.eye(d) + Xw.T @ Xw
    b = Xw.T @ np.asarray(window_rewards, dtype=float).reshape(-1)
    theta = np.linalg.solve(V, b)
    V_inv = np.linalg.inv(V)
    return [float(X[k] @ theta + beta * math.sqrt(X[k] @ V_inv @ X[k])) for k in range(X.shape[0])]


def draw_inverse_cdf(p, u):
    total = 0.0
    for k, pk in enumerate(p):
        total += pk
        if u < total:
            return k
    return len(p) - 1


class Outcome:
    def __init__(self):
        self.arms, self.rewards, self.regret, self.blocks, self.indexes = [], [], 0.0, [], []

    def pull(self, X, theta, noise_sd, eta_t, arm):
        means = X @ theta
        y = float(means[arm] + noise_sd * eta_t[arm])
        self.regret += float(means.max() - means[arm])
        self.arms.append(arm)
        self.rewards.append(y)
        return y


def sw_ucb_rounds(out, X, thetas, noise_sd, eta, ties, first, last, w, beta, lam):
    """SW-UCB on rounds first..last-1 with no data before `first`."""
    for t in range(first, last):
        lo = max(first, t - w)
        idx = ucb_indexes(X, out.arms[lo:t], out.rewards[lo:t], lam, beta)
        out.indexes.append(idx)
        top = max(idx)
        arm = ties.pick([k for k in range(len(idx)) if idx[k] >= top - TIE])
        out.pull(X, thetas[t], noise_sd, eta[t], arm)


def sw_ucb(X, thetas, noise_sd, eta, tie_uniforms, w, lam=1.0, S=1.0):
    T, d = thetas.shape
    L = max(np.linalg.norm(x) for x in X)
    beta = beta_eq5(w, d, noise_sd, L, lam, S, T)
    out = Outcome()
    sw_ucb_rounds(out, X, thetas, noise_sd, eta, TieDraws(tie_uniforms), 0, T, w, beta, lam)
    return out


def bob(X, thetas, noise_sd, eta, block_uniforms, tie_uniforms, lam=1.0, S=1.0):
    T, d = thetas.shape
    R, L = noise_sd, max(np.linalg.norm(x) for x in X)
    H = math.floor(d ** (2 / 3) * T ** 0.5)
    Delta = math.ceil(math.log(H))
    J = [math.floor(H ** (j / Delta)) for j in range(Delta + 1)]
    n = Delta + 1
    gamma = min(1.0, math.sqrt(n * math.log(n) / ((math.e - 1) * math.ceil(T / H))))
    scale = 2 * H + 4 * R * math.sqrt(H * math.log(T / math.sqrt(H)))
    s = [1.0] * n
    ties = TieDraws(tie_uniforms)
    out = Outcome()
    for i in range(math.ceil(T / H)):
        p = [(1 - gamma) * sj / sum(s) + gamma / n for sj in s]
        j = draw_inverse_cdf(p, block_uniforms[i])
        out.blocks.append(j)
        first, last = i * H, min((i + 1) * H, T)
        sw_ucb_rounds(out, X, thetas, noise_sd, eta, ties, first, last, J[j],
                      beta_eq5(J[j], d, R, L, lam, S, T), lam)
        G = sum(out.rewards[first:last])
        s[j] *= math.exp(gamma / (n * p[j]) * (0.5 + G / scale))
        top = max(s)
        s = [v / top for v in s]          # rescaling leaves p unchanged and avoids overflow
    return out


def exp3s(X, thetas, noise_sd, eta, uniforms, gamma, alpha, restart_every=0):
    T = thetas.shape[0]
    K = X.shape[0]
    weights = [1.0] * K
    out = Outcome()
    for t in range(T):
        if restart_every and t % restart_every == 0:
            weights = [1.0] * K
        total = sum(weights)
        p = [(1 - gamma) * wk / total + gamma / K for wk in weights]
        arm = draw_inverse_cdf(p, uniforms[t])
        y = out.pull(X, thetas[t], noise_sd, eta[t], arm)
        xhat = min(max(y, 0.0), 1.0) / p[arm]
        weights = [wk * math.exp(gamma * (xhat if k == arm else 0.0) / K) + math.e * alpha / K * total
                   for k, wk in enumerate(weights)]
        total_new = sum(weights)
        weights = [wk / total_new for wk in weights]
    return out
