"""What the environment tests of every study compare: a stepped algorithm's runs against the fast engine's,
column by column and curve by curve, bit for bit."""
from __future__ import annotations

import numpy as np


def record_differences(engine, stepped) -> list[str]:
    """Every way two Records differ (empty: the same columns and curves, the same numbers exactly)."""
    problems = []
    if list(engine.columns) != list(stepped.columns):
        problems.append(f"columns {list(engine.columns)} vs {list(stepped.columns)}")
    for key in engine.columns:
        if key in stepped.columns and not np.array_equal(np.asarray(engine.columns[key]),
                                                         np.asarray(stepped.columns[key])):
            problems.append(f"column {key}: {np.asarray(engine.columns[key]).tolist()} vs "
                            f"{np.asarray(stepped.columns[key]).tolist()}")
    a, b = engine.curves or {}, stepped.curves or {}
    if sorted(a) != sorted(b):
        problems.append(f"curves {sorted(a)} vs {sorted(b)}")
    for key in a:
        if key in b and not np.array_equal(a[key], b[key]):
            problems.append(f"curve {key} differs")
    return problems
