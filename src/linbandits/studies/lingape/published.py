"""The paper's Table 1 (d = 5, one published run per algorithm) as a claims witness.

Each published column is one run: its pull counts per arm and their total. Judged on it, a claim
about Table 1 says what the paper's own run shows (a single run has no interval: its bootstrap is
the run itself, read exactly); a claim about other experiments reads "not run" there.
"""
from __future__ import annotations

import numpy as np

from linbandits.claims.engine import Missing

# Table 1 of the paper (d = 5, one run, "An example"), arms 1..6.
PUBLISHED_TABLE1 = {
    "XY-static": [1298590, 2546604, 2546666, 2546666, 2546666, 1273742],
    "LinGapE": [2133, 428889, 19, 34, 33, 11],
    "XY-oracle": [13646, 2728606, 68, 68, 68, 1],
}


class PublishedTable1:
    """Evidence for the claims engine: the published Table 1 runs where a claim reads Table 1, that is
    `setting` (d = 5) of `experiments` (the config's `table1:` says which)."""

    def __init__(self, evidence, experiments, setting: str):
        self.evidence, self.extras = evidence, {}
        self.experiments, self.setting = set(experiments), setting

    def __getattr__(self, attr):      # experiment, x, setting_label: the run's own
        return getattr(self.evidence, attr)

    def settings(self, exp: str) -> list[str]:
        if exp not in self.experiments:
            raise Missing(f"the paper publishes no runs of {exp} (only Table 1, d = 5)")
        return [self.setting]

    def has_series(self, exp, setting, algorithm) -> bool:
        return exp in self.experiments and setting == self.setting and algorithm in PUBLISHED_TABLE1

    def column(self, exp: str, setting: str, algorithm: str, column: str):
        if not self.has_series(exp, setting, algorithm):
            raise Missing(f"Table 1 has no published {algorithm} run in {exp} ({setting})")
        pulls = PUBLISHED_TABLE1[algorithm]
        if column.startswith("pulls_"):
            arm = int(column.removeprefix("pulls_"))
            if arm >= len(pulls):
                raise Missing(f"Table 1 has {len(pulls)} arms")
            return np.array([pulls[arm]], dtype=float)
        if column == "stopping_time":
            return np.array([sum(pulls)], dtype=float)
        raise Missing(f"Table 1 records pull counts only, not {column!r}")

    def info(self, exp, setting, algorithm):
        raise Missing("Table 1 records pull counts only")

    def summary(self, exp, setting):
        raise Missing(f"the paper publishes no instance of {exp}, only Table 1's runs")

    def paired_runs(self, exp: str) -> bool:
        return False

    def shares_seeds(self, exp: str) -> bool:
        return False
