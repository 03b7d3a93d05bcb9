"""One fixed-confidence best-arm identification run, stepped pull by pull (linbandits.environment).

The run's reward draws are the paper algorithms' (streams.noise_rng: generator(seed, trial, 0)), one
draw per pull in pull order, whichever arm is pulled: a standard normal z (Gaussian rewards, `bai`
instances: r = x_a . theta + noise_sd z) or a uniform u (+-1 rewards, `bai_armsets` instances: r = +1
if u < (1 + clip(x_a . theta, -1, 1)) / 2, else -1). LinGapE and XY-static read the same stream the
same way, so the n-th pull of a stepped algorithm meets the draw of their n-th pull: the same reward
where it pulls the same arm (their K initial pulls are draws 0..K-1). XY-adaptive draws each phase's
reward sums whole and XY-oracle draws nothing. The run's arms are run `trial`'s (`instance.arms(trial)`:
one arm set per run in `bai_armsets`). It ends with `recommend(arm)`; its columns are the paper
algorithms': recommended, correct (the best arm, or a gap below the instance's epsilon), stopping_time
(every pull) and pulls_0 .. pulls_{K-1}.
"""
from __future__ import annotations

import numpy as np

from linbandits.environment import BestArmEnvironment
from linbandits.study import Run
from linbandits.studies.lingape import streams
from linbandits.studies.lingape.algorithms import DRAW_BLOCK, correct_arm, draw_block
from linbandits.studies.lingape.instances import REWARD_GAUSSIAN


class LingapeEnvironment(BestArmEnvironment):
    study = "lingape"
    kinds = ("bai", "bai_armsets")

    def setup(self) -> None:
        inst = self.instance
        self._X, self._means = inst.arms(self.trial)
        self._gaussian = inst.reward == REWARD_GAUSSIAN
        if not self._gaussian:
            self._p_plus = 0.5 * (1.0 + np.clip(self._means, -1.0, 1.0))
        self._rng = self._noise_rng()
        self._draws = np.empty(0)
        self._next = 0
        self.pulls = np.zeros(self._X.shape[0], dtype=np.int64)

    def _noise_rng(self) -> np.random.Generator:
        return streams.noise_rng(self.seed, self.trial)

    def _take(self, n: int) -> np.ndarray:
        """The run's next n draws (blocks drawn as they run out: the same sequence as one at a time)."""
        while self._draws.size - self._next < max(n, 1):
            more = draw_block(self._rng, self.instance.reward, max(DRAW_BLOCK, n))
            self._draws = np.concatenate([self._draws[self._next:], more])
            self._next = 0
        out = self._draws[self._next:self._next + n]
        self._next += n
        return out

    @property
    def horizon(self) -> None:
        return None

    @property
    def arms(self) -> np.ndarray:
        """This run's arms (K x d)."""
        return self._X

    @property
    def done(self) -> bool:
        return self.recommended is not None

    def _rewards(self, arms: np.ndarray, draws: np.ndarray) -> np.ndarray:
        if self._gaussian:
            return self._means[arms] + self.instance.noise_scale * draws
        return np.where(draws < self._p_plus[arms], 1.0, -1.0)

    def step(self, arm: int) -> float:
        self._check_open()
        arm = self._arm(arm, self._X.shape[0])
        if self._next >= self._draws.size:
            self._take(0)
        draw = self._draws[self._next]
        self._next += 1
        self.pulls[arm] += 1
        self.t += 1
        if self._gaussian:
            return float(self._means[arm] + self.instance.noise_scale * draw)
        return 1.0 if draw < self._p_plus[arm] else -1.0

    def step_many(self, arms) -> np.ndarray:
        arms = self._arms_many(arms, self._X.shape[0])
        rewards = self._rewards(arms, self._take(arms.size))
        np.add.at(self.pulls, arms, 1)
        self.t += arms.size
        return rewards

    def outcome(self) -> Run:
        self._check_complete()
        arm = self.recommended
        columns = {"recommended": arm, "correct": int(correct_arm(self._means, arm, self.instance.epsilon)),
                   "stopping_time": int(self.t)}
        columns.update({f"pulls_{a}": int(c) for a, c in enumerate(self.pulls)})
        return Run(columns=columns)
