"""Runs many independent trials of one algorithm on one instance.

Reproducibility: trial i draws every random number from its own generator,
seeded by (seed, i), and only while it is still running. An algorithm moves
a whole batch of trials through the same sequence of epochs in lockstep, but
each trial's arithmetic touches only its own row, so a trial's outcome does
not depend on which other trials share its batch: trials 0-999 come out the
same in one batch or in ten chunks on ten machines.

Speed: within an epoch only the per-arm sums of rewards and the pull counts
matter. Gaussian noise summed over c pulls is one N(0, c sigma^2) draw (and
bounded +-sigma noise summed over c pulls is sigma (2 Binomial(c, 1/2) - c)),
so noise costs K draws per epoch, not one per round. On a stationary instance
the pull counts of an epoch are one multinomial draw; only a non-stationary
instance needs the individual arms, to know which theta_t each pull met.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from linbandits.problems.linear import LinearInstance
from linbandits.streams import generator


@dataclasses.dataclass
class TrialResults:
    trials: np.ndarray          # global trial indices
    recommended: np.ndarray     # recommended arm per trial
    correct: np.ndarray         # 1 if the recommendation is the best arm of theta_bar
    theta_hat: np.ndarray | None = None   # final estimate per trial, where the algorithm has one


def trial_rng(seed: int, trial: int) -> np.random.Generator:
    """Trial `trial`'s one generator: streams.generator(seed, trial) = default_rng([seed, trial])."""
    return generator(seed, trial)


class RandomDraws:
    """Every random number of one trial, from its own generator.

    `aggregate` lets the batch take the shortcuts of the module docstring
    (pull counts as one multinomial draw, noise summed per arm). A test can
    hand the batch another object with the same methods and aggregate =
    False (an injected stream: one uniform and one noise value per round),
    so that a round-by-round implementation reading the same stream must
    reproduce the engine's trials exactly.
    """

    aggregate = True

    def __init__(self, rng: np.random.Generator, noise: str, K: int):
        self.rng, self.noise, self.K = rng, noise, K

    def uniforms(self, start: int, length: int) -> np.ndarray:
        """One uniform per round start..start+length-1: the arm it pulls."""
        return self.rng.random(length)

    def counts(self, length: int, p: np.ndarray) -> np.ndarray:
        return self.rng.multinomial(length, p)

    def noise_sums(self, counts, arms=None, rounds=None) -> np.ndarray:
        """Unit-sd noise summed over counts[k] pulls of each arm: one draw
        per arm (the pulls' arms and rounds are not needed)."""
        if self.noise == "gaussian":
            return np.sqrt(counts) * self.rng.standard_normal(self.K)
        return 2.0 * self.rng.binomial(counts, 0.5) - counts

    def one_noise(self, t: int) -> float:
        """Unit-sd noise of the single pull of round t."""
        if self.noise == "gaussian":
            return self.rng.standard_normal()
        return 1.0 if self.rng.random() < 0.5 else -1.0

    def permutation(self, items: np.ndarray, start: int) -> np.ndarray:
        """items in a uniformly random order (a batch pulled from round start)."""
        return self.rng.permutation(items)

    def integer(self, K: int) -> int:
        return int(self.rng.integers(K))


def inverse_cdf(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Arm drawn by each uniform u from a design with cumulative sums cdf:
    the first arm whose cumulative weight exceeds u * total."""
    return np.minimum(cdf.searchsorted(u * cdf[-1], side="right"), len(cdf) - 1)


class TrialBatch:
    """The environment seen by a batch of trials; algorithms pull through it.

    draws: one RandomDraws-like object per trial (default: its own
    generator). record=True keeps, per trial, every design it pulled from:
    ("iid", start, length, lam) and ("planned", start, counts).
    """

    def __init__(self, instance: LinearInstance, seed: int, trials, means: np.ndarray | None = None,
                 draws=None, record: bool = False):
        self.instance = instance
        self.trials = np.asarray(trials, dtype=np.int64)
        self.n = len(self.trials)
        self.K, self.T = instance.K, instance.T
        if draws is None:
            draws = [RandomDraws(trial_rng(seed, t), instance.noise, self.K) for t in self.trials]
        self.draws = list(draws)
        self.stationary = instance.stationary
        self.mu = instance.X @ instance.thetas[0]
        self.means = None if self.stationary else (instance.means() if means is None else means)
        self._rounds = np.arange(self.T)
        self.trace = [[] for _ in range(self.n)] if record else None

    def _all(self, active):
        return np.ones(self.n, dtype=bool) if active is None else np.asarray(active, dtype=bool)

    def _mean_rewards(self, rounds, arms):
        return self.mu[arms] if self.stationary else self.means[rounds, arms]

    def pull_iid(self, start: int, length: int, lam, active=None):
        """Each active trial pulls `length` arms i.i.d. from its row of lam
        at rounds start..start+length-1. Returns per-arm reward sums and pull
        counts (n x K); inactive rows are zero and draw nothing."""
        lam = np.broadcast_to(np.asarray(lam, dtype=float), (self.n, self.K))
        active = self._all(active)
        sums = np.zeros((self.n, self.K))
        counts = np.zeros((self.n, self.K), dtype=np.int64)
        length = int(min(length, self.T - start))
        if length <= 0:
            return sums, counts
        if self.trace is not None:
            for i in np.flatnonzero(active):
                self.trace[i].append(("iid", start, length, lam[i].copy()))
        rounds = self._rounds[start:start + length]
        cdf = np.cumsum(lam, axis=1)
        if length == 1:
            return self._pull_one_round(start, cdf, active, sums, counts)
        for i in np.flatnonzero(active):
            draws = self.draws[i]
            arms = None
            if self.stationary and draws.aggregate:
                c = draws.counts(length, lam[i] / lam[i].sum())
                s = c * self.mu
            else:
                arms = inverse_cdf(cdf[i], draws.uniforms(start, length))
                c = np.bincount(arms, minlength=self.K)
                s = np.bincount(arms, weights=self._mean_rewards(rounds, arms), minlength=self.K)
            counts[i] = c
            sums[i] = s + self.instance.noise_sd * draws.noise_sums(c, arms, rounds)
        return sums, counts

    def _pull_one_round(self, t, cdf, active, sums, counts):
        # A one-round segment (P1 loops update after round 0, or every round)
        # is vectorised across trials; each trial still draws one uniform and
        # one noise variate from its own stream.
        idx = np.flatnonzero(active)
        u = np.array([self.draws[i].uniforms(t, 1)[0] for i in idx])
        noise = np.array([self.draws[i].one_noise(t) for i in idx])
        c = cdf[idx]
        arms = np.minimum((c <= (u * c[:, -1])[:, None]).sum(axis=1), self.K - 1)
        mean = self._mean_rewards(t, arms)
        counts[idx, arms] = 1
        sums[idx, arms] = mean + self.instance.noise_sd * noise
        return sums, counts

    def pull_planned(self, start, counts, active=None):
        """Each active trial pulls arm k counts[i, k] times, in a uniformly
        random order, at consecutive rounds from start[i] (stopping at T).
        Returns (sums, counts actually pulled) n x K."""
        counts = np.asarray(counts, dtype=np.int64)
        start = np.broadcast_to(np.asarray(start, dtype=np.int64), (self.n,))
        active = self._all(active)
        sums = np.zeros((self.n, self.K))
        pulled = np.zeros((self.n, self.K), dtype=np.int64)
        for i in np.flatnonzero(active):
            draws = self.draws[i]
            if self.trace is not None:
                self.trace[i].append(("planned", int(start[i]), counts[i].copy()))
            room = max(0, self.T - int(start[i]))
            if self.stationary and counts[i].sum() <= room and draws.aggregate:
                c, order, rounds = counts[i], None, None
                s = c * self.mu
            else:
                order = draws.permutation(np.repeat(np.arange(self.K), counts[i]), int(start[i]))[:room]
                c = np.bincount(order, minlength=self.K)
                rounds = self._rounds[start[i]:start[i] + order.size]
                s = np.bincount(order, weights=self._mean_rewards(rounds, order), minlength=self.K)
            pulled[i] = c
            sums[i] = s + self.instance.noise_sd * draws.noise_sums(c, order, rounds)
        return sums, pulled

    def uniform_arm(self, active=None):
        out = np.full(self.n, -1, dtype=np.int64)
        for i in np.flatnonzero(self._all(active)):
            out[i] = self.draws[i].integer(self.K)
        return out


def run_trials(algorithm, instance: LinearInstance, seed: int, trials, block: int = 250,
               progress=None) -> TrialResults:
    """Run the trials with indices `trials` (any order; an int n means 0..n-1), `block` at a time
    through `algorithm.play`, to bound memory; the blocking does not change any outcome (see the
    module docstring)."""
    from linbandits.study import as_trials

    trials = as_trials(trials)
    means = None if instance.stationary else instance.means()
    best = instance.best_arm
    recs, thetas = [], []
    for lo in range(0, trials.size, block):
        batch = TrialBatch(instance, seed, trials[lo:lo + block], means=means)
        rec, theta = algorithm.play(batch)
        recs.append(np.asarray(rec, dtype=np.int64))
        thetas.append(theta)
        if progress is not None:
            progress(min(lo + block, trials.size), trials.size)
    rec = np.concatenate(recs) if recs else np.zeros(0, dtype=np.int64)
    theta = None if any(t is None for t in thetas) or not thetas else np.concatenate(thetas)
    return TrialResults(trials=trials, recommended=rec, correct=(rec == best).astype(np.int64), theta_hat=theta)
