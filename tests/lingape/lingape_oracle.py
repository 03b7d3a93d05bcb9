"""Plain pull-by-pull implementations of the four algorithms, written from the spec
(../shared/spec/lingape-protocol.md, section 2), not from the engine: every step
inverts A afresh and forms every direction y explicitly.

They read the same streams as the engine (linbandits.studies.lingape.streams):
`draws` yields the run's per-pull draws (standard normal or uniform) in pull
order; ties go through streams.pick_tied(tied, key, n), n = pulls so far (in
XY-adaptive: pulls so far in the phase).
"""
from __future__ import annotations

import math

import numpy as np

from linbandits.studies.lingape import streams

TIE_RTOL = 1e-12


def reward(mean, draw, gaussian, noise_sd):
    if gaussian:
        return mean + noise_sd * draw
    p = (1 + min(1.0, max(-1.0, mean))) / 2
    return 1.0 if draw < p else -1.0


def argmin_ties(scores, key, n):
    m = min(scores)
    tied = [a for a, s in enumerate(scores) if abs(s - m) <= TIE_RTOL * abs(m)]
    return tied[0] if len(tied) == 1 else streams.pick_tied(tied, key, n)


def first_argmax(values):
    best = 0
    for a in range(1, len(values)):
        if values[a] > values[best]:
            best = a
    return best


def norm2(y, Ainv):
    return float(y @ Ainv @ y)


class Pulls:
    """A, b and counts, pull by pull."""

    def __init__(self, X, means, lam, draws, gaussian, noise_sd):
        self.X, self.means, self.draws, self.gaussian, self.noise_sd = X, means, draws, gaussian, noise_sd
        d = X.shape[1]
        self.A = lam * np.eye(d)
        self.b = np.zeros(d)
        self.T = np.zeros(X.shape[0], dtype=np.int64)

    def pull(self, a):
        r = reward(self.means[a], next(self.draws), self.gaussian, self.noise_sd)
        x = self.X[a]
        self.A = self.A + np.outer(x, x)
        self.b = self.b + x * r
        self.T[a] += 1

    @property
    def n(self):
        return int(self.T.sum())


def stop_epsilon(setting, form, means, instance_eps):
    """eps of the stopping rule "stop iff B(t) <= eps" (spec sections 2, D row 1 and 6, Settled 2026-11-27).

    "instance": the paper form uses the instance's epsilon (0 by default); the scratch form, as the
    authors' LinGapE.py, stops at eps = Delta_min. "half_gap": eps = Delta_min / 2 (the published Table 1
    run), in either form. A number: that eps. Delta_min = best true mean minus second-best true mean
    (0 if two arms share the best mean)."""
    ranked = sorted(float(m) for m in means)
    delta_min = ranked[-1] - ranked[-2]
    if setting == "instance":
        return delta_min if form == "scratch" else instance_eps
    if setting == "half_gap":
        return delta_min / 2
    return float(setting)


def is_correct(means, arm, eps):
    """Spec section 1: a_hat is a best arm, or its gap is < eps."""
    top = max(means)
    return means[arm] == top or top - means[arm] < eps


def lingape(X, means, draws, key, *, gaussian=True, noise_sd=1.0, R=1.0, S=2.0, lam=1.0, delta=0.05, eps=0.0,
            rule="greedy", form="paper", pstar=None, max_n=10 ** 7):
    """Algorithms 1-2 with C_t of Lemma 5 (K^2) or the scratch width; returns (recommended, counts, stopped)."""
    K, d = X.shape
    run = Pulls(X, means, lam, draws, gaussian, noise_sd)
    for a in range(K):
        run.pull(a)
    while True:
        n = run.n
        Ainv = np.linalg.inv(run.A)
        theta = Ainv @ run.b
        est = X @ theta
        i = first_argmax(est)
        if form == "paper":
            logdet = np.linalg.slogdet(run.A)[1]
            C = R * math.sqrt(2 * math.log(K * K * math.exp(0.5 * logdet - 0.5 * d * math.log(lam)) / delta)) \
                + math.sqrt(lam) * S
        else:
            C = R * math.sqrt(d * math.log(K * K * (1 + n) / (lam * delta))) + math.sqrt(lam) * S
        values = [float((X[j] - X[i]) @ theta) + math.sqrt(max(norm2(X[j] - X[i], Ainv), 0.0)) * C
                  if j != i else 0.0 for j in range(K)]
        j = first_argmax(values)
        if values[j] <= eps:
            return i, run.T.copy(), True
        if n >= max_n:
            return i, run.T.copy(), False
        y = X[i] - X[j]
        if rule == "greedy":
            scores = [norm2(y, np.linalg.inv(run.A + np.outer(X[a], X[a]))) for a in range(K)]
            arm = argmin_ties(scores, key, n)
        else:
            p = pstar[min(i, j), max(i, j)]
            ratios = [run.T[a] / p[a] if p[a] > 0 else math.inf for a in range(K)]
            arm = int(np.argmin(ratios))
        run.pull(arm)


def xy_threshold(n, K, sigma, delta, k_power=2):
    return 2 * math.sqrt(2) * sigma * math.sqrt(math.log(6 * n * n * K ** k_power / (math.pi ** 2 * delta)))


def greedy_xy_arm(X, A, pairs, key, n):
    scores = []
    for a in range(X.shape[0]):
        Ainv = np.linalg.inv(A + np.outer(X[a], X[a]))
        scores.append(max(norm2(X[i] - X[j], Ainv) for i, j in pairs))
    return argmin_ties(scores, key, n)


def xy_static(X, means, draws, key, *, gaussian=True, noise_sd=1.0, sigma=1.0, lam=0.0, delta=0.05, max_n=10 ** 7):
    """Greedy incremental XY-static with the Prop. 1 stopping rule (K^2), tested after every pull."""
    K = X.shape[0]
    pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
    run = Pulls(X, means, lam, draws, gaussian, noise_sd)
    for a in range(K):
        run.pull(a)
    while True:
        n = run.n
        Ainv = np.linalg.inv(run.A)
        theta = Ainv @ run.b
        top = first_argmax(X @ theta)
        c = xy_threshold(n, K, sigma, delta)
        if all(float((X[top] - X[i]) @ theta) >= c * math.sqrt(max(norm2(X[top] - X[i], Ainv), 0.0))
               for i in range(K) if i != top):
            return top, run.T.copy(), True
        if n >= max_n:
            return top, run.T.copy(), False
        run.pull(greedy_xy_arm(X, run.A, pairs, key, n))


def xy_adaptive(X, means, rng, key_of_mask, *, gaussian=True, noise_sd=1.0, sigma=1.0, lam=0.0, delta=0.05,
                alpha=0.1, max_phases=200, max_pulls=None):
    """Phases: reset, pull every arm once, greedy over Y_S until v <= alpha rho_prev; eliminate among all arms
    on the phase's data. The phase's reward sums come from rng (see the engine: exact in distribution).
    With max_pulls, a phase is cut when it has made that many pulls, and the run when its phases total that
    many (before that phase's elimination); a cut run returns its first active arm and ends `phases` with "cut"."""
    K, d = X.shape
    active, rho = list(range(K)), 1.0
    total = np.zeros(K, dtype=np.int64)
    phases = []
    while len(active) > 1 and len(phases) < max_phases:
        pairs = [(i, j) for k, i in enumerate(active) for j in active[k + 1:]]
        key = key_of_mask(sum(1 << a for a in active))
        A = lam * np.eye(d)
        T = np.zeros(K, dtype=np.int64)
        for a in range(K):
            A = A + np.outer(X[a], X[a])
            T[a] += 1
        while True:
            n = int(T.sum())
            if max_pulls is not None and n >= max_pulls:
                return active[0], total + T, phases + ["cut"]
            arm = greedy_xy_arm(X, A, pairs, key, n)
            A = A + np.outer(X[arm], X[arm])
            T[arm] += 1
            Ainv = np.linalg.inv(A)
            v = max(norm2(X[i] - X[j], Ainv) for i, j in pairs)
            if v <= alpha * rho:
                break
        n = int(T.sum())
        if max_pulls is not None and total.sum() + n >= max_pulls:     # cut before this phase's elimination
            return active[0], total + T, phases + ["cut"]
        if gaussian:
            sums = T * means + noise_sd * np.sqrt(T) * rng.standard_normal(K)
        else:
            sums = 2.0 * rng.binomial(T, (1 + np.clip(means, -1, 1)) / 2) - T
        theta = np.linalg.solve(A, X.T @ sums)
        Ainv = np.linalg.inv(A)
        c = xy_threshold(n, K, sigma, delta)
        active = [i for i in range(K)
                  if not any(float((X[j] - X[i]) @ theta) > c * math.sqrt(max(norm2(X[j] - X[i], Ainv), 0.0))
                             for j in range(K) if j != i)]
        total += T
        phases.append((n, sorted(active)))
        rho = v
    return active[0], total, phases


def xy_oracle(X, means, p, *, sigma=1.0, delta=0.05, max_n=10 ** 7):
    """Tracking p* from A = I; stopping on the TRUE gaps with K (not K^2). Deterministic."""
    K, d = X.shape
    best = first_argmax(means)
    A = np.eye(d)
    T = np.zeros(K, dtype=np.int64)
    for a in range(K):
        A = A + np.outer(X[a], X[a])
        T[a] += 1
    while True:
        n = int(T.sum())
        Ainv = np.linalg.inv(A)
        c = xy_threshold(n, K, sigma, delta, k_power=1)
        if all(means[best] - means[i] >= c * math.sqrt(max(norm2(X[best] - X[i], Ainv), 0.0))
               for i in range(K) if i != best):
            return best, T, True
        if n >= max_n:
            return best, T, False
        ratios = [(T[a] + 1) / p[a] if p[a] > 0 else math.inf for a in range(K)]
        arm = int(np.argmin(ratios))
        A = A + np.outer(X[arm], X[arm])
        T[arm] += 1


def draw_stream(seed, trial, gaussian):
    """The run's per-pull draws, one at a time."""
    rng = streams.noise_rng(seed, trial)
    while True:
        yield rng.standard_normal() if gaussian else rng.random()
