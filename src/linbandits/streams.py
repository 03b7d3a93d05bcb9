"""The random streams of a run, one helper for every study.

Trial i of a simulate call with seed S draws from generators keyed (S, i) or (S, i, purpose):
a study that needs one stream per trial uses the first, a study that keeps several independent
streams (noise, arm draws, tie-breaks, ...) numbers them by purpose. Every number of a trial is
therefore a function of (seed, trial) alone: chunking, cores and batch sizes change nothing, and
an oracle that reads the same streams makes the same draws.
"""
from __future__ import annotations

import numpy as np


def _key(seed: int, trial: int, purpose: int | None) -> list[int]:
    key = [int(seed), int(trial)]
    return key if purpose is None else key + [int(purpose)]


def generator(seed: int, trial: int, purpose: int | None = None) -> np.random.Generator:
    """numpy's default generator seeded by SeedSequence([seed, trial(, purpose)])."""
    return np.random.default_rng(_key(seed, trial, purpose))


def key64(seed: int, trial: int, purpose: int | None = None) -> int:
    """A 64-bit key from the same seed sequence, for counter-based streams (e.g. tie-breaks)."""
    return int(np.random.SeedSequence(_key(seed, trial, purpose)).generate_state(1, np.uint64)[0])
