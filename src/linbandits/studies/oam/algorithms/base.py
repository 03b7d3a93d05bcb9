"""What every algorithm of the study shares: the option checks, one trial from its stream, and the
regret curve on a fixed grid of rounds."""
from __future__ import annotations

import numpy as np

from linbandits.errors import UserError
from linbandits.studies.oam.allocation import gaps_of
from linbandits.studies.oam.streams import run_stream
from linbandits.study import Algorithm, Run

GRID_POINTS = 500   # curve points per run: every n/500 rounds (n/2 and n/10 are on it when 500 | n)


def curve_grid(n: int) -> np.ndarray:
    """Rounds (1-based) at which a run's cumulative regret is kept."""
    return np.unique(np.ceil(np.arange(1, GRID_POINTS + 1) * n / GRID_POINTS).astype(np.int64))


class OamAlgorithm(Algorithm):
    """The study's algorithm base: subclasses set name, summary, defaults, choices and implement
    play(stream, gaps)."""

    kinds = ("contextual",)
    needs_normals = False
    counters: tuple = ()

    def setup(self) -> None:
        self.check()
        self.grid = curve_grid(self.instance.horizon)

    def check(self) -> None:
        """Refuse instances or options the algorithm cannot run (a UserError)."""

    def play(self, stream, gaps):
        """One run: (arms played (n,), cumulative pseudo-regret (n,), counters (len(self.counters),))."""
        raise NotImplementedError

    def run(self, seed: int, trial: int) -> Run:
        stream = run_stream(self.instance, seed, trial, normals=self.needs_normals)
        _, cum, counts = self.play(stream, gaps_of(self.instance.actions, stream.theta))
        return Run(columns={"regret": cum[-1]}, curves={"t": self.grid, "regret": cum[self.grid - 1]},
                   counters=dict(zip(self.counters, counts)) if self.counters else None)


def require_single_context(algo) -> None:
    if algo.instance.M != 1:
        raise UserError(f"{algo.name} needs a fixed action set (M = 1 context); {algo.instance.name} has "
                        f"M = {algo.instance.M}. Use OAM or LinUCB on contextual instances")
