"""What every algorithm of the study shares: the option plumbing, the loop over runs,
the regret curves on a fixed grid of rounds, and the records the CLI writes."""
from __future__ import annotations

import numpy as np

from linbandits.errors import UserError
from linbandits.options import parse_options
from linbandits.study import Records
from linbandits.studies.oam.allocation import gaps_of
from linbandits.studies.oam.streams import run_stream

GRID_POINTS = 500   # curve points per run: every n/500 rounds (n/2 and n/10 are on it when 500 | n)


def curve_grid(n: int) -> np.ndarray:
    """Rounds (1-based) at which a run's cumulative regret is kept."""
    return np.unique(np.ceil(np.arange(1, GRID_POINTS + 1) * n / GRID_POINTS).astype(np.int64))


class ContextualAlgorithm:
    """Subclasses set name, summary, defaults, choices and implement run(stream, gaps)."""

    kinds = ("contextual",)
    choices: dict = {}
    needs_normals = False
    counters: tuple = ()

    def __init__(self, instance, **options):
        self.options = parse_options(self, options)
        self.instance = instance
        self.check()

    def check(self) -> None:
        """Refuse instances or options the algorithm cannot run (a UserError)."""

    def run(self, stream, gaps):
        """One run: (arms played (n,), cumulative pseudo-regret (n,), counters (len(self.counters),))."""
        raise NotImplementedError

    def simulate(self, seed, trials, progress=None) -> Records:
        inst = self.instance
        grid = curve_grid(inst.horizon)
        finals = np.empty(len(trials))
        curves = np.empty((len(trials), grid.size))
        totals = np.zeros(len(self.counters), dtype=np.int64)
        for j, trial in enumerate(trials):
            stream = run_stream(inst, seed, int(trial), normals=self.needs_normals)
            _, cum, counts = self.run(stream, gaps_of(inst.actions, stream.theta))
            finals[j] = cum[-1]
            curves[j] = cum[grid - 1]
            totals += counts
            if progress is not None:
                progress(j + 1, len(trials))
        info = {"round_counts": dict(zip(self.counters, (int(v) for v in totals)))} if self.counters else {}
        return Records(columns={"regret": finals}, curves={"t": grid, "regret": curves}, info=info)


def require_single_context(algo) -> None:
    if algo.instance.M != 1:
        raise UserError(f"{algo.name} needs a fixed action set (M = 1 context); {algo.instance.name} has "
                        f"M = {algo.instance.M}. Use OAM or LinUCB on contextual instances")
