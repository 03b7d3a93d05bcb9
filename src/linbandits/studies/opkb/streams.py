"""Random streams of one run and the noise model.

Run i of a job with seed S uses independent generators keyed (S, i, purpose)
(linbandits.streams.generator):
the noise stream (one uniform a round, shared by every algorithm: common
random numbers), the arm-draw stream (one uniform a round) and the schedule
stream (the replay coin flips, drawn at each block start). A plain oracle
that reads the same streams makes the same draws.
"""
from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

from linbandits.streams import generator  # noqa: F401  (the study's streams are the shared ones)
from linbandits.studies.opkb.instances import NOISE_BOUND

NOISE, ARMS, SCHEDULE, NETWORK = 0, 1, 2, 3
NOISE_KINDS = ("truncated", "gaussian")


def noise_uniforms(seed: int, trial: int, T: int) -> np.ndarray:
    return generator(seed, trial, NOISE).random(T)


def arm_uniforms(seed: int, trial: int, T: int) -> np.ndarray:
    return generator(seed, trial, ARMS).random(T)


def observe(mean, u, sd: float, kind: str):
    """y = mean + noise from the round's uniform u by inversion.

    truncated (the code): N(mean, sd^2) truncated to [mean - w, mean + w], w = 1 - |mean|, so |y| <= 1;
    gaussian (paper text): N(mean, sd^2)."""
    mean = np.asarray(mean, float)
    if sd == 0:
        return mean + 0.0
    if kind == "gaussian":
        return mean + sd * ndtri(u)
    half = (NOISE_BOUND - np.abs(mean)) / sd
    lo = ndtr(-half)
    return mean + sd * ndtri(lo + u * (ndtr(half) - lo))


def draw_arms(P: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draws from distribution P, one per uniform (ties of the CDF go to the later arm)."""
    cdf = np.cumsum(P)
    return np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), len(P) - 1)
