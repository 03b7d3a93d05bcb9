"""Plain round-by-round OPKB / ADA-OPKB and GP-UCB family, written from the spec (section B) alone.

One round at a time, nothing vectorised, no incremental algebra: the
strategy index of each round from the schedule's coins, the arm by inverse
CDF of the round's uniform, IPS estimates summed round by round with an
explicitly inverted S(P), posteriors recomputed from scratch every round.
It reads the same random streams as the product (noise, arm and schedule
uniforms keyed by (seed, trial)) and uses the product's OP solver and
D-design (tested on their own against cvxpy and the spec's closed forms).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr, ndtri

from linbandits.studies.opkb.designs import d_design, solve_op

NOISE, ARMS, SCHEDULE = 0, 1, 2


def stream(seed, trial, purpose):
    return np.random.default_rng([seed, trial, purpose])


def rbf_features(arms, length):
    N = len(arms)
    K = np.empty((N, N))
    for a in range(N):
        for b in range(N):
            K[a, b] = math.exp(-float(np.sum((arms[a] - arms[b]) ** 2)) / (2 * length ** 2))
    return np.linalg.cholesky(K)


def noisy(mean, u, sd, kind):
    if kind == "gaussian":
        return mean + sd * ndtri(u)
    w = (1 - abs(mean)) / sd
    return mean + sd * ndtri(ndtr(-w) + u * (ndtr(w) - ndtr(-w)))


def draw(P, u):
    cdf = np.cumsum(P)
    for a in range(len(P)):
        if cdf[a] > u * cdf[-1]:
            return a
    return len(P) - 1


def s_inverse(Phi, P, lam):
    S = lam * np.eye(Phi.shape[1])
    for a in range(len(P)):
        S += P[a] * np.outer(Phi[a], Phi[a])
    return np.linalg.inv(S)


def gaps(Phi, rounds, inverses):
    """Dhat over a list of rounds (index, arm, y): Rhat(a) = mean_s phi(a)^T S(P_s)^-1 phi(x_s) y_s."""
    R = np.zeros(Phi.shape[0])
    for index, arm, y in rounds:
        R += Phi @ (inverses[index] @ Phi[arm]) * y
    R /= len(rounds)
    return R.max() - R


def opkb_oracle(instance, options, seed, trial, adaptive, network=None):
    """(arm of every round, regret of every round, restarts).

    network: OPNN's (opkb_neural_oracle.PlainNetwork): the features are the network's, and at the end
    of every complete block (with options["steps"] > 0) it is trained on the epoch's rounds and
    everything computed from the features is computed again (opkb_neural_oracle's docstring)."""
    o = options
    T, N = instance.T, instance.N
    Phi = rbf_features(instance.arms, o["rbf_length"]) if network is None else network.features(instance.arms)
    lam = o["sigma"] / T
    pi = d_design(Phi, lam)
    gamma_T = 0.5 * np.linalg.slogdet(np.eye(N) + (T / o["sigma"]) * Phi.T @ np.diag(pi) @ Phi)[1]
    log_term = math.log(8 * N * T * math.log2(T) / o["delta"])
    E = math.ceil(4 * gamma_T * log_term * o["e_scale"])
    alpha = o["sigma"] / (4 * log_term)
    j_star = o.get("j_star", 4)

    def eps(i):
        return (40 + 16 * math.sqrt(alpha)) * 0.5 * 2 ** (-i / 2)

    def beta(i):
        return 2 * gamma_T / eps(i) * o["beta_scale"]

    u_noise = stream(seed, trial, NOISE).random(T)
    u_arm = stream(seed, trial, ARMS).random(T)
    coins_rng = stream(seed, trial, SCHEDULE)
    arms_played, regret = [], []
    detections = restarts = 0
    new_epoch = True
    for t in range(1, T + 1):
        if new_epoch:
            strategies, inverses, block_gaps, block_ends, history = [pi], [s_inverse(Phi, pi, lam)], {}, {}, []
            j, block_start, coins = 0, t, {}
            new_epoch = False
        offset = t - block_start
        index = j
        for m in sorted(coins):
            if coins[m][offset // (E * 2 ** m)]:
                index = m
                break
        arm = draw(strategies[index], u_arm[t - 1])
        mean = instance.rewards[t - 1, arm]
        y = noisy(mean, u_noise[t - 1], instance.noise_sd, o["noise"])
        arms_played.append(arm)
        regret.append(instance.rewards[t - 1].max() - mean)
        history.append((index, arm, y))
        restart = False
        for m in sorted(coins):
            length = E * 2 ** m
            if (offset + 1) % length == 0 and coins[m][(offset + 1) // length - 1]:
                interval = gaps(Phi, history[-length:], inverses)
                for k in range(j_star, j):
                    e = (eps(k) + eps(m)) / 2
                    worst = max(np.max(block_gaps[k] - 4 * interval), np.max(interval - 4 * block_gaps[k]))
                    if worst > 4 * e * o["eps_scale"]:
                        restart = True
                        break
                if restart:
                    break
        if restart:
            detections += 1
            if detections < 100:
                restarts += 1
                new_epoch = True
                continue
        if offset + 1 == E * 2 ** j:
            block_ends[j] = len(history)
            if network is not None and o["steps"] > 0:
                network.train(instance.arms, [a for _, a, _ in history], [y for _, _, y in history])
                Phi = network.features(instance.arms)
                pi = d_design(Phi, lam)
                inverses = [s_inverse(Phi, P, lam) for P in strategies]
                for k, end in block_ends.items():
                    block_gaps[k] = gaps(Phi, history[:end], inverses)
            else:
                block_gaps[j] = gaps(Phi, history, inverses)
            j += 1
            D = block_gaps[j - 1]
            p_star = solve_op(Phi, D, beta(j), lam)
            good = D <= 2 * alpha * gamma_T / beta(j) * o["beta_scale"] * o["g_scale"]
            if good.all():
                p_good = pi
            elif good.sum() == 1:
                p_good = good.astype(float)
            else:
                p_good = np.zeros(N)
                p_good[good] = d_design(Phi[good][:, good], lam)
            mu = 0.5 * 2 ** (-j / 2) * o["mu_scale"]
            mix = o["mixture_probability"]
            P = (1 - mu) * ((1 - mix) * p_star + mix * p_good) + mu * pi
            strategies.append(P)
            inverses.append(s_inverse(Phi, P, lam))
            block_start = t + 1
            coins = {}
            if adaptive:
                for m in range(j_star, j):
                    coins[m] = coins_rng.random(2 ** (j - m)) < math.sqrt(2 ** (m - j))
    return np.array(arms_played), np.array(regret), restarts


def information_gain(Phi, T, reg, t, knots=None):
    """The code's g(t): exact at powers of two and T, linear between. knots: an optional dict keeping the
    exact values already computed (they depend on the knot only)."""
    knots = {} if knots is None else knots

    def exact(s):
        if s not in knots:
            P = d_design(Phi, reg / s)
            knots[s] = 0.5 * np.linalg.slogdet(np.eye(Phi.shape[1]) + (s / reg) * Phi.T @ np.diag(P) @ Phi)[1]
        return knots[s]
    left = 2 ** int(math.floor(math.log2(t)))
    if left == t:
        return exact(t)
    right = min(T, 2 * left)
    if right == t:
        return exact(t)
    p = (t - left) / (right - left)
    return exact(left) * (1 - p) + exact(right) * p


def gpucb_oracle(instance, options, seed, trial, window=0, discount=None, removal="exact"):
    """GP-UCB (window 0), SW-GPUCB (window w) or WGPUCB (discount eta): (arms, regret), posteriors from scratch.

    removal="published" (SW-GPUCB, spec table F row 20): the inverse A = W^-1 is not computed from the
    window's rounds but carried from round to round, as the authors' code carries it. It starts at lam I;
    after round t, round t joins: A <- A - A u u^T A / (1 + u^T A u), u = phi(x_t); then, if t > w, round
    t - w leaves with the published update A <- A + A v v^T A / (1 + v^T A v), v = phi(x_(t-w)) (removing
    it exactly would divide by 1 - v^T A v). The reward sum b is the window's, from scratch (the code
    subtracts the leaving round's reward)."""
    if removal not in ("exact", "published"):
        raise ValueError(removal)
    o = options
    T, N = instance.T, instance.N
    Phi = rbf_features(instance.arms, o["rbf_length"])
    lam = o["lam"]
    u_noise = stream(seed, trial, NOISE).random(T)
    played, ys, regret = [], [], []
    gains, knots = {}, {}
    carried = lam * np.eye(N)             # the published removal's A
    for t in range(1, T + 1):
        if t == 1:
            x = 0
        else:
            if discount is None:
                first = max(1, t - window) if window else 1
                data = range(first, t)
                W = np.eye(N) / lam
                b = np.zeros(N)
                for s in data:
                    W += np.outer(Phi[played[s - 1]], Phi[played[s - 1]])
                    b += Phi[played[s - 1]] * ys[s - 1]
                t_eff = min(t, window) if window else t
                if t_eff not in gains:
                    gains[t_eff] = information_gain(Phi, T, lam, t_eff, knots)
                beta = o["v"] * (1 + math.sqrt(2 * (gains[t_eff] / 2 + 1 + math.log(1e4))))
            else:
                W = lam * np.eye(N)
                b = np.zeros(N)
                for s in range(1, t):
                    weight = discount ** (t - s)
                    W += weight * np.outer(Phi[played[s - 1]], Phi[played[s - 1]])
                    b += weight * Phi[played[s - 1]] * ys[s - 1]
                if t not in gains:
                    gains[t] = information_gain(Phi, T, lam, t, knots)
                beta = o["scale"] * (0.8 + 0.1 * math.sqrt(2 * (gains[t] + math.log(1e4))))
            W_inv = carried if window and removal == "published" else np.linalg.inv(W)
            score = np.empty(N)
            for a in range(N):
                mu = Phi[a] @ W_inv @ b
                var = lam * Phi[a] @ W_inv @ Phi[a]
                score[a] = mu + beta * math.sqrt(max(var, 0.0))
            top = max(score)
            x = next(a for a in range(N) if score[a] >= top - 1e-9 * max(1.0, abs(top)))   # ties: lowest index
        mean = instance.rewards[t - 1, x]
        played.append(x)
        ys.append(noisy(mean, u_noise[t - 1], instance.noise_sd, o["noise"]))
        regret.append(instance.rewards[t - 1].max() - mean)
        if window and removal == "published":
            A = carried
            u = Phi[x]
            carried = A - np.outer(A @ u, A @ u) / (1 + u @ A @ u)
            if t > window:
                A = carried
                v = Phi[played[t - window - 1]]
                carried = A + np.outer(A @ v, A @ v) / (1 + v @ A @ v)
    return np.array(played), np.array(regret)


def gpucb_follow(instance, options, seed, trial, arms, window=0, discount=None, removal="exact", every=1,
                 margin=1e-10):
    """Check a whole run's arms (any length) round by round, given its own history.

    The run's arms are the history (y from the noise stream, as the run drew them). At every `every`-th
    round t >= 2 (and the last) a reference posterior is computed here from that history: GP-UCB/SW-GPUCB
    W = I/lam + Phi^T diag(n) Phi, b = Phi^T z over the data (n, z: plays and reward sums per arm);
    WGPUCB V = lam I + Phi^T diag(w) Phi, w(a) = sum of eta^(t-s) over the rounds s < t that played a;
    removal="published": the carried inverse of gpucb_oracle, updated every round. The given arm must be
    the reference's choice (ties within 1e-9 relative, lowest index). A round is "too close to call" when
    some arm's reference score lies within `margin` (relative to max(1, |top|)) of the tie threshold, so
    that round-off could move it across. Returns (rounds checked, rounds where the arm is wrong, rounds
    too close to call)."""
    if removal not in ("exact", "published"):
        raise ValueError(removal)
    o = options
    T, N = instance.T, instance.N
    arms = np.asarray(arms)
    Phi = rbf_features(instance.arms, o["rbf_length"])
    lam = o["lam"]
    u_noise = stream(seed, trial, NOISE).random(T)
    means = instance.rewards[np.arange(T), arms]
    ys = noisy(means, u_noise, instance.noise_sd, o["noise"])
    knots = {}
    carried = lam * np.eye(N)
    checked, wrong, close = 1, int(arms[0] != 0), 0          # round 1 plays arm 0
    for t in range(1, T + 1):
        if t >= 2 and ((t - 1) % every == 0 or t == T):
            history = np.arange(1, t)
            if discount is None:
                first = max(1, t - window) if window else 1
                data = history[first - 1:]
                n = np.bincount(arms[data - 1], minlength=N).astype(float)
                z = np.bincount(arms[data - 1], weights=ys[data - 1], minlength=N)
                t_eff = min(t, window) if window else t
                beta = o["v"] * (1 + math.sqrt(2 * (information_gain(Phi, T, lam, t_eff, knots) / 2 + 1
                                                    + math.log(1e4))))
                W = np.eye(N) / lam + Phi.T @ (n[:, None] * Phi)
            else:
                weight = discount ** (t - history)
                n = np.bincount(arms[:t - 1], weights=weight, minlength=N)
                z = np.bincount(arms[:t - 1], weights=weight * ys[:t - 1], minlength=N)
                beta = o["scale"] * (0.8 + 0.1 * math.sqrt(2 * (information_gain(Phi, T, lam, t, knots)
                                                                  + math.log(1e4))))
                W = lam * np.eye(N) + Phi.T @ (n[:, None] * Phi)
            W_inv = carried if window and removal == "published" else np.linalg.inv(W)
            C = Phi @ W_inv @ Phi.T
            score = C @ z + beta * np.sqrt(np.maximum(lam * np.diag(C), 0.0))
            top = score.max()
            scale = max(1.0, abs(top))
            threshold = top - 1e-9 * scale
            x = arms[t - 1]
            checked += 1
            if np.any(np.abs(score - threshold) <= margin * scale):
                close += 1
            elif score[x] < threshold or np.any(score[:x] >= threshold):
                wrong += 1
        if window and removal == "published":
            A = carried
            u = Phi[arms[t - 1]]
            carried = A - np.outer(A @ u, A @ u) / (1 + u @ A @ u)
            if t > window:
                A = carried
                v = Phi[arms[t - window - 1]]
                carried = A + np.outer(A @ v, A @ v) / (1 + v @ A @ v)
    return checked, wrong, close
