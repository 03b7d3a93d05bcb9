"""One fixed-budget best-arm identification run, stepped round by round or in the engine's batches
(linbandits.environment).

Round t's reward of arm k is mean[t, k] + noise_sd * z (mean: the arm's value under theta_t, from the
same table as the engine's), z one N(0, 1) draw (or +-1, each with probability 1/2, for bounded noise)
of the run's generator, generator(seed, trial), per step. The paper algorithms read the same generator
differently: they draw their pulls' arms from designs (uniforms or one multinomial) and the noise of an
epoch summed per arm (one draw per arm, sqrt(c) z for c pulls), so no per-step noise can equal theirs.
Stepping shares the instance and its theta_t with them, and the noise with every other stepped
algorithm (one draw per round). The engine's own batched calls share everything: `pull_iid(length,
design)` and `pull_planned(counts)` draw what the paper algorithms draw, in their order, from this run's
generator (kernels.TrialBatch of this one run), so an algorithm that pulls in those batches meets their
runs exactly. The run ends with `recommend(arm)` (at most T rounds); its columns are recommended and
correct (the best arm of the mean theta).
"""
from __future__ import annotations

import numpy as np

from linbandits.environment import BestArmEnvironment
from linbandits.study import Run
from linbandits.studies.p1rage.kernels import RandomDraws, TrialBatch, trial_rng


class P1rageEnvironment(BestArmEnvironment):
    study = "p1rage"
    kinds = ("linear",)

    def setup(self) -> None:
        inst = self.instance
        self._rng = self._trial_rng()
        # The engine's table of mean rewards (kernels.TrialBatch): X theta_0 when stationary, else row t of
        # instance.means(); the same numbers its pulls add.
        self._means = (inst.X @ inst.thetas[0])[None, :] if inst.stationary else inst.means()
        self._batch = TrialBatch(inst, self.seed, [self.trial], means=None if inst.stationary else self._means,
                                 draws=[RandomDraws(self._rng, inst.noise, inst.K)])
        self._gaussian = inst.noise == "gaussian"
        self.pulls = np.zeros(inst.K, dtype=np.int64)

    def _trial_rng(self) -> np.random.Generator:
        return trial_rng(self.seed, self.trial)

    @property
    def horizon(self) -> int:
        return self.instance.T

    @property
    def arms(self) -> np.ndarray:
        return self.instance.X

    @property
    def done(self) -> bool:
        return self.recommended is not None or self.t >= self.horizon

    def step(self, arm: int) -> float:
        self._check_open()
        arm = self._arm(arm, self.instance.K)
        z = self._rng.standard_normal() if self._gaussian else (1.0 if self._rng.random() < 0.5 else -1.0)
        mean = self._means[0 if self.instance.stationary else self.t, arm]
        self.pulls[arm] += 1
        self.t += 1
        return float(mean + self.instance.noise_sd * z)

    def pull_iid(self, length: int, design) -> tuple[np.ndarray, np.ndarray]:
        """`length` rounds (cut at the horizon), each pulling an arm drawn from `design` (K weights), as the
        paper algorithms' i.i.d. epochs do: (reward sum per arm, pulls per arm), both of length K."""
        self._check_open()
        sums, counts = self._batch.pull_iid(self.t, int(length), np.asarray(design, dtype=float)[None, :])
        return self._advance(sums[0], counts[0])

    def pull_planned(self, counts) -> tuple[np.ndarray, np.ndarray]:
        """counts[k] pulls of each arm k in a uniformly random order (cut at the horizon), as Peace's and
        OD-LinBAI's epochs do: (reward sum per arm, pulls per arm actually made)."""
        self._check_open()
        plan = np.asarray(counts, dtype=np.int64).reshape(1, -1)
        sums, pulled = self._batch.pull_planned(np.array([self.t]), plan)
        return self._advance(sums[0], pulled[0])

    def _advance(self, sums, counts):
        self.pulls += counts
        self.t += int(counts.sum())
        return sums, counts

    def outcome(self) -> Run:
        self._check_complete()
        arm = self.recommended
        return Run(columns={"recommended": arm, "correct": int(arm == self.instance.best_arm)})
