"""What the stopping-time tables (products.py) and the figures (figures.py) both read from a runs file.

Its own module so that products.py can draw the figures and figures.py can count the censored runs
without either importing the other.
"""
from __future__ import annotations

from linbandits.runs import RunSet


def censored_count(runs: RunSet, setting: str, algorithm: str) -> int:
    """Runs stopped at the pull cap (listed in the sidecars' censored_trials)."""
    return sum(len(info.get("censored_trials", [])) for info in runs.info(setting, algorithm))
