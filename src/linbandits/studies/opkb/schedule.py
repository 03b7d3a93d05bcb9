"""ADA-OPKB's replay schedule inside a block (spec B, ADA-OPKB).

Block j lasts 2^j E rounds. For each index m < j (the code: m >= j_star only)
and each of the block's 2^(j-m) aligned slots of length 2^m E, a replay of
strategy m is scheduled with probability 2^((m-j)/2), all independent. At each
round the smallest scheduled index is played, else the block's own j. When a
scheduled slot ends, its interval is tested for a change.
"""
from __future__ import annotations

import numpy as np


def replay_probability(m: int, j: int) -> float:
    return float(np.sqrt(2.0 ** (m - j)))


def draw_schedule(j: int, j_star: int, rng: np.random.Generator) -> dict[int, np.ndarray]:
    """{m: booleans of the 2^(j-m) slots} for j_star <= m < j; coins drawn m ascending, slot ascending."""
    return {m: rng.random(2 ** (j - m)) < replay_probability(m, j) for m in range(j_star, j)}


def round_indices(j: int, E: int, schedule: dict) -> np.ndarray:
    """The strategy index played at every offset 0..2^j E - 1 of the block."""
    length = E * 2 ** j
    index = np.full(length, j, dtype=np.int64)
    for m in sorted(schedule, reverse=True):      # smaller indices overwrite larger ones
        slots = np.repeat(schedule[m], E * 2 ** m)
        index[slots] = m
    return index


def replay_ends(j: int, E: int, schedule: dict) -> list[tuple[int, int, int]]:
    """(offset of the interval's last round, m, slot) of every scheduled replay, in round order, m ascending."""
    out = []
    for m, slots in schedule.items():
        for slot in np.flatnonzero(slots):
            out.append((int((slot + 1) * E * 2 ** m - 1), m, int(slot)))
    return sorted(out)
