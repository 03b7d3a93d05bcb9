"""P1-RAGE (Algorithms 2-3): G-design mixed with RAGE's virtual eliminations."""
from linbandits.studies.p1rage.algorithms.elimination import rage_levels
from linbandits.studies.p1rage.algorithms.p1_loop import P1Loop


class P1RAGE(P1Loop):
    name = "P1-RAGE"
    summary = "P1 loop with RAGE-Elimination (m phases, thresholds first_threshold * 2^-i)"
    # first_threshold 0.5 is the published runs; the paper's Algorithm 3 reads 1 (spec D2).
    defaults = {**P1Loop.defaults, "m": 15, "first_threshold": 0.5}

    def levels(self, est):
        return rage_levels(est, int(self.options["m"]), float(self.options["first_threshold"]))
