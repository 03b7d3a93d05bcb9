"""The regret rate the paper's (and the erratum's) analysis gives each series, as a log-log slope in T.

With B_T = T^rho (rho = 0 for Fig. 1, 1/3 for Fig. 2):
  SW-UCB, B_T-agnostic window   d^(2/3) (B_T+1) T^(2/3)       slope 2/3 + rho       (Thm 3)
  SW-UCB, known-B_T window      d^(2/3) B_T^(1/3) T^(2/3)     slope 2/3 + rho/3     (Thm 3; eq. 12 alike)
  SW-UCB, corrected window      B_T^(1/4) T^(3/4)             slope 3/4 + rho/4     (erratum, Zhao et al.)
  BOB                           d^(2/3) (B_T+1)^(1/4) T^(3/4)  slope 3/4 + rho/4     (Thm 4)
  EXP3.S (either variant)       (K V_T)^(1/3) T^(2/3)         slope 2/3 + rho/3     (BGZ)
An explicit window=N has no stated rate (NaN).
"""
from __future__ import annotations

import math

RHO = {"constant": 0.0, "cuberoot": 1.0 / 3.0}


def theory(algorithm: str, options: dict, budget: str | None) -> tuple[float, str]:
    """(slope, the rate it comes from) for a series on an instance of the given budget kind."""
    rho = RHO.get(budget, math.nan)
    if algorithm == "SW-UCB":
        window = str(options.get("window", "agnostic"))
        if window == "agnostic":
            return 2 / 3 + rho, "d^(2/3) (B_T+1) T^(2/3)"
        if window in ("known", "eq12"):
            return 2 / 3 + rho / 3, "d^(2/3) B_T^(1/3) T^(2/3)"
        if window == "corrected":
            return 3 / 4 + rho / 4, "B_T^(1/4) T^(3/4) (erratum)"
        return math.nan, "fixed window: no stated rate"
    if algorithm == "BOB":
        return 3 / 4 + rho / 4, "d^(2/3) (B_T+1)^(1/4) T^(3/4)"
    if algorithm == "EXP3.S":
        return 2 / 3 + rho / 3, "(K V_T)^(1/3) T^(2/3)"
    return math.nan, "unknown"
