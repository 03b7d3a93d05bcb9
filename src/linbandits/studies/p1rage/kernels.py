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

Batched across trials: a pull call makes each trial's draws with one call per
draw kind on its own generator (all its uniforms of the epoch, its noise, its
permutation), in the order a trial drawn alone makes them, into rows of one
array; the arithmetic on those draws (which arm each uniform picks, the
per-arm sums of mean rewards, the noise sums) is then one compiled or numpy
operation over all trials, each row in the same order of operations as a
trial alone (the sums of mean rewards accumulate pull by pull, as
numpy.bincount does). The numbers are bit for bit those of drawing and
summing one trial at a time (tests/p1rage/test_p1rage_batched_draws.py).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from linbandits.jit import njit
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


# Rows of uniforms drawn at once per pull call: bounds the batch's scratch memory (16 MiB).
_SCRATCH = 1 << 21


@njit(cache=True)
def _iid_pulls(U, cdf, means, start, stationary, counts, sums, arms):  # pragma: no cover - compiled
    """Row j: the arm each uniform U[j, t] picks from the design with cumulative weights cdf[j],
    its pull counts and the sum of its mean rewards at rounds start + t (row 0 of means when
    stationary), written to counts[j] and sums[j]; arms[j, t] <- the arm when arms has columns.

    The arm is numpy's min(searchsorted(cdf, u * total, side="right"), K - 1): the number of
    cumulative weights <= u * total, counted over the first K - 1 (the cap; cdf is
    non-decreasing), branch-free. A sum starts at 0.0 and adds the pulls' mean rewards in round
    order, as numpy.bincount(arms, weights) does.
    """
    n, length = U.shape
    K = cdf.shape[1]
    keep = arms.shape[1] > 0
    pick = np.empty(length, dtype=np.int64)
    c = np.empty(K)
    s = np.empty(K)
    cnt = np.empty(K, dtype=np.int64)
    for j in range(n):
        for a in range(K):
            c[a] = cdf[j, a]
            s[a] = 0.0
            cnt[a] = 0
        total = c[K - 1]
        for t in range(length):
            v = U[j, t] * total
            k = 0
            for a in range(K - 1):
                k += c[a] <= v
            pick[t] = k
        for t in range(length):
            k = pick[t]
            cnt[k] += 1
            s[k] += means[0 if stationary else start + t, k]
        for a in range(K):
            counts[j, a] = cnt[a]
            sums[j, a] = s[a]
        if keep:
            for t in range(length):
                arms[j, t] = pick[t]


@njit(cache=True)
def _planned_pulls(orders, offsets, lengths, starts, means, stationary, counts, sums):  # pragma: no cover
    """Row j pulls orders[offsets[j]:offsets[j] + lengths[j]] at rounds starts[j], starts[j] + 1, ...:
    counts and sums of mean rewards, pull by pull in round order."""
    for j in range(offsets.shape[0]):
        o = offsets[j]
        for t in range(lengths[j]):
            k = orders[o + t]
            counts[j, k] += 1
            sums[j, k] += means[0 if stationary else starts[j] + t, k]


@njit(cache=True)
def _positions(offsets, lengths, out):  # pragma: no cover - compiled
    """out[offsets[j] + q] = q for q < lengths[j]: each row's positions 0..n-1."""
    for j in range(offsets.shape[0]):
        for q in range(lengths[j]):
            out[offsets[j] + q] = q


@njit(cache=True)
def _arms_at_positions(offsets, lengths, plan, orders):  # pragma: no cover - compiled
    """In place: position q of row j -> the arm at position q of numpy.repeat(arange(K), plan[j])
    (arm a holds positions plan[j, :a].sum() .. plan[j, :a + 1].sum() - 1)."""
    K = plan.shape[1]
    ends = np.empty(K, dtype=np.int64)
    for j in range(offsets.shape[0]):
        running = 0
        for a in range(K):
            running += plan[j, a]
            ends[a] = running
        for q in range(lengths[j]):
            p = orders[offsets[j] + q]
            arm = 0
            for a in range(K - 1):
                arm += ends[a] <= p
            orders[offsets[j] + q] = arm


class TrialBatch:
    """The environment seen by a batch of trials; algorithms pull through it.

    draws: one RandomDraws-like object per trial (default: its own
    generator). record=True keeps, per trial, every design it pulled from:
    ("iid", start, length, lam) and ("planned", start, counts).

    When every trial's draws are a plain RandomDraws, the batch calls their
    generators directly (`_rngs`); otherwise it goes through the draws'
    methods (an injected stream: the exact replay). Both feed the same
    batched arithmetic.
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
        self._aggregate = np.array([bool(d.aggregate) for d in self.draws], dtype=bool)
        self._rngs = [d.rng for d in self.draws] if all(type(d) is RandomDraws for d in self.draws) else None
        self._gaussian = instance.noise == "gaussian"
        self.stationary = instance.stationary
        self.mu = instance.X @ instance.thetas[0]
        self.means = None if self.stationary else (instance.means() if means is None else means)
        # The kernels' table of mean rewards: row t is round t (one row when stationary).
        self._table = np.ascontiguousarray(self.mu[None, :] if self.stationary else self.means, dtype=float)
        self._rounds = np.arange(self.T)
        self.trace = [[] for _ in range(self.n)] if record else None

    def _all(self, active):
        return np.ones(self.n, dtype=bool) if active is None else np.asarray(active, dtype=bool)

    def _mean_rewards(self, rounds, arms):
        return self.mu[arms] if self.stationary else self.means[rounds, arms]

    def _noise(self, idx, C, Z, orders=None, rounds=None):
        """Unit-sd noise sums of trials idx with pull counts C (rows): from the gaussian draws Z
        already made (plain generators), else each trial's next draws (binomial, or the draws'
        noise_sums with row j's arms orders(j) and rounds rounds(j), in pull order)."""
        if self._rngs is not None:
            if self._gaussian:
                return np.sqrt(C) * Z
            B = np.empty_like(C)
            for j, i in enumerate(idx):
                B[j] = self._rngs[i].binomial(C[j], 0.5)
            return 2.0 * B - C
        N = np.empty(C.shape)
        for j, i in enumerate(idx):
            N[j] = self.draws[i].noise_sums(C[j], None if orders is None else orders(j),
                                            None if rounds is None else rounds(j))
        return N

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
        idx = np.flatnonzero(active)
        if self.stationary:
            multinomial = idx[self._aggregate[idx]]
            self._iid_multinomial(multinomial, length, lam, rounds, sums, counts)
            idx = idx[~self._aggregate[idx]]
        step = max(1, _SCRATCH // length)
        for lo in range(0, idx.size, step):
            self._iid_drawn(idx[lo:lo + step], start, length, cdf, rounds, sums, counts)
        return sums, counts

    def _iid_multinomial(self, idx, length, lam, rounds, sums, counts):
        """Stationary, aggregated: each trial's pull counts are one multinomial draw."""
        if idx.size == 0:
            return
        rows = lam[idx]
        P = rows / rows.sum(axis=1, keepdims=True)   # each row's sum: the same pairwise sum as lam[i].sum()
        C = np.empty((idx.size, self.K), dtype=np.int64)
        Z = np.empty((idx.size, self.K)) if self._rngs is not None and self._gaussian else None
        if self._rngs is not None:
            for j, i in enumerate(idx):
                g = self._rngs[i]
                C[j] = g.multinomial(length, P[j])
                if Z is not None:
                    g.standard_normal(out=Z[j])
        else:
            for j, i in enumerate(idx):
                C[j] = self.draws[i].counts(length, P[j])
        N = self._noise(idx, C, Z, rounds=lambda j: rounds)
        counts[idx] = C
        sums[idx] = C * self.mu + self.instance.noise_sd * N

    def _iid_drawn(self, idx, start, length, cdf, rounds, sums, counts):
        """Each trial's uniforms of the segment (one row each), then the arms they pick."""
        if idx.size == 0:
            return
        m = idx.size
        U = np.empty((m, length))
        Z = np.empty((m, self.K)) if self._rngs is not None and self._gaussian else None
        if self._rngs is not None:
            for j, i in enumerate(idx):
                g = self._rngs[i]
                g.random(out=U[j])
                if Z is not None:
                    g.standard_normal(out=Z[j])
        else:
            for j, i in enumerate(idx):
                U[j] = self.draws[i].uniforms(start, length)
        C = np.empty((m, self.K), dtype=np.int64)
        S = np.empty((m, self.K))
        arms = np.empty((m, length if self._rngs is None else 0), dtype=np.int64)
        _iid_pulls(U, np.ascontiguousarray(cdf[idx]), self._table, start, self.stationary, C, S, arms)
        N = self._noise(idx, C, Z, orders=lambda j: arms[j], rounds=lambda j: rounds)
        counts[idx] = C
        sums[idx] = S + self.instance.noise_sd * N

    def _pull_one_round(self, t, cdf, active, sums, counts):
        # A one-round segment (P1 loops update after round 0, or every round)
        # is vectorised across trials; each trial still draws one uniform and
        # one noise variate from its own stream.
        idx = np.flatnonzero(active)
        if self._rngs is not None:
            u = np.empty(idx.size)
            noise = np.empty(idx.size)
            for j, i in enumerate(idx):
                g = self._rngs[i]
                u[j] = g.random()   # = random(1)[0]: the same double
                noise[j] = g.standard_normal() if self._gaussian else (1.0 if g.random() < 0.5 else -1.0)
        else:
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
        idx = np.flatnonzero(active)
        if self.trace is not None:
            for i in idx:
                self.trace[i].append(("planned", int(start[i]), counts[i].copy()))
        total = counts[idx].sum(axis=1)
        room = np.maximum(0, self.T - start[idx])
        whole = self._aggregate[idx] & (total <= room) if self.stationary else np.zeros(idx.size, dtype=bool)
        self._planned_whole(idx[whole], counts, sums, pulled)
        self._planned_ordered(idx[~whole], start, counts, total[~whole], room[~whole], sums, pulled)
        return sums, pulled

    def _planned_whole(self, idx, counts, sums, pulled):
        """Stationary, aggregated, within the horizon: every planned pull happens; only noise is drawn."""
        if idx.size == 0:
            return
        C = counts[idx]
        Z = None
        if self._rngs is not None and self._gaussian:
            Z = np.empty((idx.size, self.K))
            for j, i in enumerate(idx):
                self._rngs[i].standard_normal(out=Z[j])
        N = self._noise(idx, C, Z)
        pulled[idx] = C
        sums[idx] = C * self.mu + self.instance.noise_sd * N

    def _planned_ordered(self, idx, start, counts, total, room, sums, pulled):
        """Each trial's batch in a uniformly random order (its own permutation), cut at the horizon."""
        if idx.size == 0:
            return
        m, K = idx.size, self.K
        plan = np.ascontiguousarray(counts[idx])
        offsets = np.zeros(m, dtype=np.int64)
        np.cumsum(total[:-1], out=offsets[1:])
        # Row j's batch is orders[offsets[j]:offsets[j] + total[j]]: the arms it pulls, in order.
        orders = np.empty(int(total.sum()), dtype=np.int64)
        Z = np.empty((m, K)) if self._rngs is not None and self._gaussian else None
        if self._rngs is not None:
            # permutation(items) shuffles a copy of items (the arms in index order) in place, and
            # the shuffle's draws and swaps depend only on the length: shuffling the positions
            # 0..n-1 and reading the arm at each position is the same permutation.
            _positions(offsets, total, orders)
            for j, i in enumerate(idx):
                g = self._rngs[i]
                g.shuffle(orders[offsets[j]:offsets[j] + total[j]])
                if Z is not None:
                    g.standard_normal(out=Z[j])
            _arms_at_positions(offsets, total, plan, orders)
        else:
            for j, i in enumerate(idx):
                orders[offsets[j]:offsets[j] + total[j]] = self.draws[i].permutation(
                    np.repeat(np.arange(K), plan[j]), int(start[i]))
        lengths = np.minimum(total, room)
        starts = np.ascontiguousarray(start[idx])
        C = np.zeros((m, K), dtype=np.int64)
        S = np.zeros((m, K))
        _planned_pulls(orders, offsets, lengths, starts, self._table, self.stationary, C, S)
        N = self._noise(idx, C, Z, orders=lambda j: orders[offsets[j]:offsets[j] + lengths[j]],
                        rounds=lambda j: self._rounds[starts[j]:starts[j] + lengths[j]])
        pulled[idx] = C
        sums[idx] = S + self.instance.noise_sd * N

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
