"""One run of a contextual instance, stepped round by round (linbandits.environment).

The run's stream is the paper algorithms' (streams.run_stream: from generator(seed, trial), theta
when the instance redraws it, n uniforms for the contexts, n standard normals for the noise), so a
stepped algorithm meets the same theta, the same context every round and the same noise: the noise
belongs to the round, eta_t, whichever arm is pulled (y = x . theta + eta_t, summed as the paper's
loops sum it). The regret is theirs: the true gap of the pulled arm in its context, added round by
round; the curve keeps it at the study's grid of rounds. (LinTS's Thompson draws, which follow the
noise in the same stream, are an algorithm's own: the environment does not draw them.)
"""
from __future__ import annotations

import numpy as np

from linbandits.environment import RegretEnvironment
from linbandits.study import Run
from linbandits.studies.oam.algorithms.base import curve_grid
from linbandits.studies.oam.allocation import gaps_of
from linbandits.studies.oam.streams import run_stream


class OamEnvironment(RegretEnvironment):
    study = "oam"
    kinds = ("contextual",)

    def setup(self) -> None:
        inst = self.instance
        self._stream = self._run_stream()
        self.theta = self._stream.theta
        self._gaps = gaps_of(inst.actions, self.theta)
        self._actions = np.asarray(inst.actions, dtype=float)
        self._cumulative = np.empty(inst.horizon)
        self._total = 0.0

    def _run_stream(self):
        return run_stream(self.instance, self.seed, self.trial)

    @property
    def horizon(self) -> int:
        return self.instance.horizon

    @property
    def context(self) -> int | None:
        """The current round's context c_t (None after the last round)."""
        return int(self._stream.contexts[self.t]) if self.t < self.horizon else None

    @property
    def arms(self) -> np.ndarray:
        """The current context's arms (K x d)."""
        return self._actions[self._stream.contexts[min(self.t, self.horizon - 1)]]

    @property
    def regret(self) -> float:
        """The pseudo-regret of the rounds so far (the truth: for scoring, not for the algorithm)."""
        return self._total

    def step(self, arm: int) -> float:
        self._check_open()
        t = self.t
        m = self._stream.contexts[t]
        arm = self._arm(arm, self.instance.K)
        x = self._actions[m, arm]
        y = self._stream.noise[t]
        for i in range(x.shape[0]):          # the paper loops' order: noise first, then each coordinate
            y += x[i] * self.theta[i]
        self._total += self._gaps[m, arm]
        self._cumulative[t] = self._total
        self.t = t + 1
        return float(y)

    def outcome(self) -> Run:
        self._check_complete()
        grid = curve_grid(self.horizon)
        return Run(columns={"regret": self._cumulative[-1]},
                   curves={"t": grid, "regret": self._cumulative[grid - 1]})
