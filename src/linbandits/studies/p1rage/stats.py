"""Confidence intervals and tests for error proportions (errors out of trials): the P1-RAGE
study's error tables (the paper's normal interval and Wilson's).

Every function takes counts, not proportions, so that the number of trials
that backs an estimate is never lost on the way.
"""
from __future__ import annotations

import math

from linbandits.errors import UserError

# The published error bars use 1.96 exactly; Wilson uses the precise quantile.
Z_PAPER = 1.96
Z_95 = 1.959964

ALTERNATIVES = ("two-sided", "greater", "less")


def _check_counts(n_errors, n, what="counts"):
    if n <= 0 or n_errors < 0 or n_errors > n:
        raise UserError(f"{what}: need 0 <= errors <= trials and trials > 0, got {n_errors} of {n}")
    if int(n_errors) != n_errors or int(n) != n:
        raise UserError(f"{what}: errors and trials must be whole numbers, got {n_errors} of {n}")


def normal_ci(n_errors: int, n: int) -> tuple[float, float]:
    """Normal-approximation 95% interval p -+ 1.96 sqrt(p(1-p)/n), clipped to [0, 1].

    sqrt(p(1-p)) is the population std of the 0/1 outcomes, so this is the
    paper's 1.96 * std(correct) / sqrt(trials). It collapses to [0, 0] when no
    error was seen; `wilson_ci` does not.
    """
    _check_counts(n_errors, n, "normal_ci")
    p = n_errors / n
    half = Z_PAPER * math.sqrt(p * (1.0 - p) / n)
    return max(0.0, p - half), min(1.0, p + half)


def wilson_ci(n_errors: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval: the p whose score test at level z accepts n_errors / n."""
    _check_counts(n_errors, n, "wilson_ci")
    p = n_errors / n
    z2_n = z * z / n
    centre = (p + z2_n / 2.0) / (1.0 + z2_n)
    half = z / (1.0 + z2_n) * math.sqrt(p * (1.0 - p) / n + z2_n / (4.0 * n))
    # Rounding can push the bounds a hair outside [0, 1] at p = 0 or 1.
    return max(0.0, centre - half), min(1.0, centre + half)


def two_proportion_test(e1: int, n1: int, e2: int, n2: int,
                        alternative: str = "two-sided") -> tuple[float, float]:
    """Pooled-variance z-test of p1 = e1/n1 against p2 = e2/n2.

    alternative "greater" tests H1: p1 > p2, "less" tests H1: p1 < p2.
    Returns (z, p_value). When the pooled proportion is 0 or 1 (both samples
    all errors or all correct) the data say nothing about a difference:
    z = 0 and p_value = 1.
    """
    if alternative not in ALTERNATIVES:
        raise UserError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    _check_counts(e1, n1, "two_proportion_test sample 1")
    _check_counts(e2, n2, "two_proportion_test sample 2")
    pooled = (e1 + e2) / (n1 + n2)
    variance = pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2)
    if variance == 0.0:
        return 0.0, 1.0
    z = (e1 / n1 - e2 / n2) / math.sqrt(variance)
    # Imported here: scipy.stats costs ~1.3 CPU-s to import, and every table and figure job imports
    # this module for its intervals alone.
    from scipy.stats import norm

    if alternative == "two-sided":
        p_value = 2.0 * norm.sf(abs(z))
    elif alternative == "greater":
        p_value = norm.sf(z)
    else:
        p_value = norm.cdf(z)
    return float(z), float(min(1.0, p_value))
