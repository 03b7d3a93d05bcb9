"""One run of the drifting two-armed bandit, stepped round by round (linbandits.environment).

The run's noise is the paper algorithms' noise matrix eta (T x K, trajectories.noise_matrix: one
N(0, 1) draw, or one +-1, for every round and arm, from generator(seed, trial, 0), row by row): round
t's reward of arm k is means[t, k] + noise_sd * eta[t, k] whichever algorithm pulls it, so a stepped
algorithm meets every noise value the paper's algorithms meet. The regret is theirs too: sum over
rounds of best[t] - means[t, arm], added round by round.
"""
from __future__ import annotations

import numpy as np

from linbandits.environment import RegretEnvironment
from linbandits.study import Run
from linbandits.studies.swucb import trajectories


class SwucbEnvironment(RegretEnvironment):
    study = "swucb"
    kinds = ("linear",)

    def setup(self) -> None:
        self._problem = trajectories.Problem.of(self.instance)
        self._eta = self._noise_matrix()
        self.regret = 0.0
        self._pulled = np.full(self._problem.T, -1, dtype=np.int64)

    def _noise_matrix(self) -> np.ndarray:
        """eta[t, k] in units of noise_sd: the paper algorithms' noise matrix of this run."""
        return trajectories.noise_matrix(self.instance, self.seed, self.trial)

    @property
    def horizon(self) -> int:
        return self._problem.T

    @property
    def arms(self) -> np.ndarray:
        return self._problem.X

    def step(self, arm: int) -> float:
        self._check_open()
        arm = self._arm(arm, self._problem.K)
        t = self.t
        mean = self._problem.means[t, arm]
        self.regret += self._problem.best[t] - mean
        self._pulled[t] = arm
        self.t = t + 1
        return float(mean + self._problem.noise_sd * self._eta[t, arm])

    def step_many(self, arms) -> np.ndarray:
        arms = self._arms_many(arms, self._problem.K)
        rounds = np.arange(self.t, self.t + arms.size)
        means = self._problem.means[rounds, arms]
        gaps = self._problem.best[rounds] - means
        for g in gaps:                  # added one by one, as step does: the same regret, bit for bit
            self.regret += g
        self._pulled[rounds] = arms
        self.t += arms.size
        return means + self._problem.noise_sd * self._eta[rounds, arms]

    def outcome(self) -> Run:
        self._check_complete()
        return Run(columns={"regret": self.regret})
