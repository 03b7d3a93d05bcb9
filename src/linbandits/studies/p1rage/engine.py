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


@dataclasses.dataclass
class TrialResults:
    trials: np.ndarray          # global trial indices
    recommended: np.ndarray     # recommended arm per trial
    correct: np.ndarray         # 1 if the recommendation is the best arm of theta_bar
    theta_hat: np.ndarray | None = None   # final estimate per trial, where the algorithm has one


def trial_rng(seed: int, trial: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), int(trial)])


class TrialBatch:
    """The environment seen by a batch of trials; algorithms pull through it."""

    def __init__(self, instance: LinearInstance, seed: int, trials, means: np.ndarray | None = None):
        self.instance = instance
        self.trials = np.asarray(trials, dtype=np.int64)
        self.n = len(self.trials)
        self.K, self.T = instance.K, instance.T
        self.rngs = [trial_rng(seed, t) for t in self.trials]
        self.stationary = instance.stationary
        self.mu = instance.X @ instance.thetas[0]
        self.means = None if self.stationary else (instance.means() if means is None else means)
        self._rounds = np.arange(self.T)

    def _all(self, active):
        return np.ones(self.n, dtype=bool) if active is None else np.asarray(active, dtype=bool)

    def _noise(self, rng, counts):
        """Noise summed over counts[k] pulls of each arm: one draw per arm."""
        sd = self.instance.noise_sd
        if self.instance.noise == "gaussian":
            return sd * np.sqrt(counts) * rng.standard_normal(self.K)
        return sd * (2.0 * rng.binomial(counts, 0.5) - counts)

    def _one_pull_noise(self, rng):
        """Noise of a single pull, in units of noise_sd."""
        if self.instance.noise == "gaussian":
            return rng.standard_normal()
        return 1.0 if rng.random() < 0.5 else -1.0

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
        rounds = self._rounds[start:start + length]
        cdf = np.cumsum(lam, axis=1)
        if length == 1:
            return self._pull_one_round(start, cdf, active, sums, counts)
        for i in np.flatnonzero(active):
            rng = self.rngs[i]
            if self.stationary:
                c = rng.multinomial(length, lam[i] / lam[i].sum())
                s = c * self.mu
            else:
                arms = np.minimum(cdf[i].searchsorted(rng.random(length) * cdf[i, -1], side="right"), self.K - 1)
                c = np.bincount(arms, minlength=self.K)
                s = np.bincount(arms, weights=self.means[rounds, arms], minlength=self.K)
            counts[i] = c
            sums[i] = s + self._noise(rng, c)
        return sums, counts

    def _pull_one_round(self, t, cdf, active, sums, counts):
        # A one-round segment (P1 loops update after round 0, or every round)
        # is vectorised across trials; each trial still draws one uniform and
        # one noise variate from its own generator.
        idx = np.flatnonzero(active)
        u = np.array([self.rngs[i].random() for i in idx])
        noise = np.array([self._one_pull_noise(self.rngs[i]) for i in idx])
        c = cdf[idx]
        arms = np.minimum((c <= (u * c[:, -1])[:, None]).sum(axis=1), self.K - 1)
        mean = self.mu[arms] if self.stationary else self.means[t, arms]
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
            rng = self.rngs[i]
            room = max(0, self.T - int(start[i]))
            if self.stationary and counts[i].sum() <= room:
                c = counts[i]
                s = c * self.mu
            else:
                order = rng.permutation(np.repeat(np.arange(self.K), counts[i]))[:room]
                c = np.bincount(order, minlength=self.K)
                if self.stationary:
                    s = c * self.mu
                else:
                    rounds = self._rounds[start[i]:start[i] + order.size]
                    s = np.bincount(order, weights=self.means[rounds, order], minlength=self.K)
            pulled[i] = c
            sums[i] = s + self._noise(rng, c)
        return sums, pulled

    def uniform_arm(self, active=None):
        out = np.full(self.n, -1, dtype=np.int64)
        for i in np.flatnonzero(self._all(active)):
            out[i] = self.rngs[i].integers(self.K)
        return out


def run_trials(algorithm, instance: LinearInstance, seed: int, first_trial: int, n_trials: int,
               block: int = 250, progress=None) -> TrialResults:
    """Run trials first_trial .. first_trial + n_trials - 1.

    Trials go through in blocks of `block` to bound memory; the block size
    does not change any outcome (see the module docstring).
    """
    means = None if instance.stationary else instance.means()
    best = instance.best_arm
    recs, thetas = [], []
    done = 0
    for lo in range(first_trial, first_trial + n_trials, block):
        hi = min(lo + block, first_trial + n_trials)
        batch = TrialBatch(instance, seed, np.arange(lo, hi), means=means)
        rec, theta = algorithm.run(batch)
        recs.append(np.asarray(rec, dtype=np.int64))
        thetas.append(theta)
        done += hi - lo
        if progress is not None:
            progress(done, n_trials)
    rec = np.concatenate(recs) if recs else np.zeros(0, dtype=np.int64)
    theta = None if any(t is None for t in thetas) or not thetas else np.concatenate(thetas)
    return TrialResults(trials=np.arange(first_trial, first_trial + n_trials), recommended=rec,
                        correct=(rec == best).astype(np.int64), theta_hat=theta)
