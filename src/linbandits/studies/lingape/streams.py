"""The random streams of a run: what the fast engine and the plain oracle both read.

Run i of a simulate call with seed S draws (through linbandits.streams, the project's one
helper: generator(S, i, 0) is numpy's Generator of SeedSequence([S, i, 0]), key64 the first
64-bit word of the same seed sequence)
- its rewards from numpy's Generator seeded by SeedSequence([S, i, 0]):
  one standard normal per pull (Gaussian rewards) or one uniform per pull
  (+-1 rewards), in pull order, the K initial pulls first;
- its tie-breaks from a counter-based hash: the n-th decision (n = pulls so
  far) of a stream with key k uses tie_uniform(k, n). Counter-based ties make a
  greedy arm sequence a pure function of (key, step), so a sequence that does
  not depend on rewards (XY-static; XY-adaptive within a phase) is computed
  once and shared by every run, and can be resumed from any step.
"""
from __future__ import annotations

import numpy as np

from linbandits import streams

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

STREAM_NOISE = 0
STREAM_TIES = 1
STREAM_SHARED_TIES = 2


def mix64(z: int) -> int:
    """SplitMix64's output function of z (64-bit)."""
    z = (z + GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def tie_uniform(key: int, n: int) -> float:
    """Uniform in [0, 1) for decision n of the tie stream `key`."""
    return (mix64(key ^ mix64(n & MASK)) >> 11) * (1.0 / (1 << 53))


def pick_tied(tied: list[int], key: int, n: int) -> int:
    """One of the tied arms (listed in index order), uniformly."""
    return tied[int(tie_uniform(key, n) * len(tied))]


def noise_rng(seed: int, trial: int) -> np.random.Generator:
    """The reward draws of run `trial`: SeedSequence([seed, trial, 0])."""
    return streams.generator(seed, int(trial), STREAM_NOISE)


def run_tie_key(seed: int, trial: int) -> int:
    """Tie stream of one run (LinGapE's greedy rule): SeedSequence([seed, trial, 1])."""
    return streams.key64(seed, int(trial), STREAM_TIES)


def shared_tie_key(seed: int, arm_set_mask: int = 0) -> int:
    """Tie stream shared by every run: XY-static (mask 0) and XY-adaptive (one per active set):
    SeedSequence([seed, 2, mask]) (2 sits where a run's index sits in the other streams)."""
    return streams.key64(seed, STREAM_SHARED_TIES, int(arm_set_mask))
