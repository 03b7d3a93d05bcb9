"""The toy study's instance family."""
from __future__ import annotations

import numpy as np

from linbandits.problems.linear import LinearInstance


def toy_two_arms(*, gap: float = 0.5, T: int = 20) -> LinearInstance:
    """Two arms e_1, e_2 with means 1 and 1 - gap."""
    return LinearInstance(name=f"toy_two_arms[gap={gap:g}]", X=np.eye(2),
                          thetas=np.tile([1.0, 1.0 - gap], (T, 1)), noise_sd=1.0)
