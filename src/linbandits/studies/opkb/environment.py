"""One run of an arm-rewards instance, stepped round by round (linbandits.environment).

The run's noise is the paper algorithms' (streams.noise_uniforms: one uniform u_t a round from
generator(seed, trial, 0)), turned into the reward by inversion (streams.observe) from the pulled arm's
mean: y_t = observe(rewards[t, arm], u_t, noise_sd, noise). The uniform belongs to the round, so every
algorithm pulling the same arm at round t observes the same y_t. The noise model is the environment's
option `noise` (truncated, the authors' code, or gaussian, the paper's text), as it is the paper
algorithms'. The regret is theirs: max_a rewards[t, a] - rewards[t, arm] per round, summed by
numpy.cumsum; the curve keeps it at the study's curve rounds.
"""
from __future__ import annotations

import numpy as np

from linbandits.environment import RegretEnvironment
from linbandits.errors import UserError
from linbandits.study import Run
from linbandits.studies.opkb import streams
from linbandits.studies.opkb.algorithms import curve_rounds


class OpkbEnvironment(RegretEnvironment):
    study = "opkb"
    kinds = ("arm_rewards",)
    defaults = {"noise": "truncated"}
    choices = {"noise": streams.NOISE_KINDS}

    def setup(self) -> None:
        inst = self.instance
        if self.options["noise"] == "truncated" and np.abs(inst.rewards).max() >= 1:
            raise UserError(f"{inst.name}: truncated noise keeps |y| <= 1 and needs max|rewards| < 1, got "
                            f"{np.abs(inst.rewards).max():g}; use noise=\"gaussian\"")
        self._rewards = np.ascontiguousarray(inst.rewards, dtype=float)
        self._best = self._rewards.max(axis=1)
        self._u = self._noise_uniforms()
        self._regret = np.empty(inst.T)

    def _noise_uniforms(self) -> np.ndarray:
        return streams.noise_uniforms(self.seed, self.trial, self.instance.T)

    @property
    def horizon(self) -> int:
        return self.instance.T

    @property
    def arms(self) -> np.ndarray:
        return self.instance.arms

    @property
    def regret(self) -> float:
        """The pseudo-regret of the rounds so far (the truth: for scoring, not for the algorithm)."""
        return float(np.cumsum(self._regret[:self.t])[-1]) if self.t else 0.0

    def step(self, arm: int) -> float:
        self._check_open()
        t = self.t
        arm = self._arm(arm, self.instance.N)
        mean = self._rewards[t, arm]
        self._regret[t] = self._best[t] - mean
        self.t = t + 1
        return float(streams.observe(mean, self._u[t], self.instance.noise_sd, self.options["noise"]))

    def step_many(self, arms) -> np.ndarray:
        arms = self._arms_many(arms, self.instance.N)
        rounds = np.arange(self.t, self.t + arms.size)
        means = self._rewards[rounds, arms]
        self._regret[rounds] = self._best[rounds] - means
        self.t += arms.size
        return np.asarray(streams.observe(means, self._u[rounds], self.instance.noise_sd, self.options["noise"]),
                          dtype=float)

    def outcome(self) -> Run:
        self._check_complete()
        cumulative = np.cumsum(self._regret)
        rounds = curve_rounds(self.horizon)
        return Run(columns={"regret": cumulative[-1]}, curves={"t": rounds, "regret": cumulative[rounds - 1]})
