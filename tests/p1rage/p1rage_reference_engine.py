"""The engine's draws as they were before they were batched across trials (at bddb596): one
trial at a time, every draw through its RandomDraws methods and the arithmetic in numpy per
trial. The batched TrialBatch must make exactly these numbers (test_p1rage_batched_draws.py):
the same draws from each trial's own generator, in the same order, and bit-equal sums.
"""
from __future__ import annotations

import numpy as np

from linbandits.studies.p1rage.kernels import TrialBatch


def inverse_cdf(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    return np.minimum(cdf.searchsorted(u * cdf[-1], side="right"), len(cdf) - 1)


class ReferenceBatch(TrialBatch):
    """TrialBatch with the per-trial pull loops of bddb596."""

    def pull_iid(self, start: int, length: int, lam, active=None):
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

    def _mean_rewards(self, rounds, arms):
        return self.mu[arms] if self.stationary else self.means[rounds, arms]


# ---------------------------------------------------------------- the comparison

def instance(stationary: bool, noise: str = "gaussian", T: int = 150, K: int = 7, d: int = 3):
    """K random arms in R^d; theta_t constant or oscillating (period 37)."""
    from linbandits.problems.linear import LinearInstance

    rng = np.random.default_rng(11)
    X = rng.standard_normal((K, d))
    t = np.arange(T)[:, None]
    thetas = np.array([0.5, -0.2, 0.3])[:d] + np.zeros((T, d))
    if not stationary:
        thetas = thetas + 0.6 * np.sin(2 * np.pi * t / 37) * rng.standard_normal(d)
    return LinearInstance("batched", X, thetas, noise_sd=0.7, noise=noise)


CASES = [(s, noise) for s in (True, False) for noise in ("gaussian", "bounded")]
CASE_IDS = [f"{'stationary' if s else 'oscillating'}-{noise}" for s, noise in CASES]


def batch_pair(inst, trials=np.arange(40, 71)):
    return TrialBatch(inst, 9, trials), ReferenceBatch(inst, 9, trials)


def _differences(label, new_out, ref_out, new, ref):
    problems = [f"{label}: output {k} differs" for k, (x, y) in enumerate(zip(new_out, ref_out))
                if x is not None and (x.dtype != y.dtype or not np.array_equal(x, y))]
    if not all(a.rng.bit_generator.state == b.rng.bit_generator.state for a, b in zip(new.draws, ref.draws)):
        problems.append(f"{label}: the trials' generators are in different states afterwards")
    return problems


def iid_mismatches(stationary, noise):
    inst = instance(stationary, noise)
    new, ref = batch_pair(inst)
    rng = np.random.default_rng(1)
    lam = rng.random((new.n, inst.K)) ** 3
    lam[:, 2] = 0.0                       # a zero weight: ties in the cumulative sums
    problems = []
    for start, length, active in [(0, 1, None), (1, 40, None), (41, 60, rng.random(new.n) < 0.6),
                                  (101, 1, rng.random(new.n) < 0.5), (120, 99, None)]:
        problems += _differences(f"pull_iid({start}, {length})", new.pull_iid(start, length, lam, active),
                                 ref.pull_iid(start, length, lam, active), new, ref)
    return problems


def planned_mismatches(stationary, noise):
    inst = instance(stationary, noise)
    new, ref = batch_pair(inst)
    rng = np.random.default_rng(2)
    problems = []
    for starts, active in [(0, None), (rng.integers(0, 120, new.n), rng.random(new.n) < 0.7),
                           (rng.integers(100, 150, new.n), None)]:   # some batches cut at T
        counts = rng.integers(0, 9, (new.n, inst.K))
        counts[3] = 0                     # an empty batch
        problems += _differences("pull_planned", new.pull_planned(starts, counts, active),
                                 ref.pull_planned(starts, counts, active), new, ref)
    return problems


def trial_mismatches(name, stationary, noise):
    from linbandits.studies.p1rage.algorithms import make_algorithm

    problems = []
    for T in (150, 9):                    # 9: OD-LinBAI's and Peace's batches overrun T
        inst = instance(stationary, noise, T=T)
        new, ref = batch_pair(inst)
        out_new = make_algorithm(name, inst).play(new)
        out_ref = make_algorithm(name, inst).play(ref)
        if (out_new[1] is None) != (out_ref[1] is None):
            problems.append(f"{name} T={T}: theta_hat None on one side only")
            out_new, out_ref = out_new[:1], out_ref[:1]
        problems += _differences(f"{name} T={T}", [np.asarray(x) for x in out_new],
                                 [np.asarray(x) for x in out_ref], new, ref)
    return problems


def batched_mismatches(algorithms=None):
    """Every difference between the batched draws and the per-trial loops, as text."""
    from linbandits.studies.p1rage.algorithms import ALGORITHMS

    problems = []
    for stationary, noise in CASES:
        problems += iid_mismatches(stationary, noise) + planned_mismatches(stationary, noise)
        for name in algorithms or ALGORITHMS:
            problems += trial_mismatches(name, stationary, noise)
    return problems
