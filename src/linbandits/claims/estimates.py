"""Estimates with an interval and one-sided tests: what every claim's part is judged on.

An `Estimate` is a quantity estimated from independent runs. Besides the point value it
answers, for any threshold t, two one-sided p-values: `p_above(t)` for H1 "the true value
is above t" and `p_below(t)` for H1 "it is below t". Its interval at level 1 - 2 alpha
is the set of t that neither test rejects at alpha, so a verdict read off the p-values
and the printed interval agree.

Interval methods:
- exact binomial (Clopper-Pearson) for an error probability;
- Fisher's exact test for two error probabilities (the printed interval of their
  difference is Newcombe's score interval, for reading only);
- the exact conditional binomial for a ratio of two rare error probabilities (a Poisson
  rate ratio: exact for Poisson counts, conservative for binomial ones);
- Student's t for a mean and for a (paired or Welch) difference of means;
- the percentile bootstrap, resampling runs, for ratios, geometric means, slopes and
  any other smooth function of means (p-values (1 + #{b: stat_b <= t}) / (B + 1));
- exact values for quantities without noise (a program's optimum, an instance's variation).
"""
from __future__ import annotations

import dataclasses
import math
import zlib
from typing import Callable

import numpy as np

# Bootstrap resamples: p-values down to 1e-4, enough for Holm over a few dozen tests at 0.025.
BOOTSTRAP_RESAMPLES = 10_000


@dataclasses.dataclass
class Estimate:
    value: float
    low: float
    high: float
    n: int                                   # independent runs (or trials) behind it
    method: str                              # the interval method, in words
    p_above: Callable[[float], float]        # H1: true value > t
    p_below: Callable[[float], float]        # H1: true value < t
    lower_bound: bool = False                # runs stopped at a cap: the value is at least this

    def __post_init__(self):
        if self.lower_bound:
            # A censored estimate can show that the truth is large, never that it is small.
            self.p_below = _never
            self.high = math.inf


def _never(_t) -> float:
    return 1.0


def _clip(p) -> float:
    return float(min(1.0, max(0.0, p)))


# ------------------------------------------------------------------ binomial

def proportion(k: int, n: int, alpha: float) -> Estimate:
    """Error probability k / n; exact binomial tests and the Clopper-Pearson interval."""
    from scipy.stats import beta, binom

    k, n = int(k), int(n)
    low = 0.0 if k == 0 else float(beta.ppf(alpha, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - alpha, k + 1, n - k))

    def p_above(t):
        return 1.0 if t >= 1 else (0.0 if t < 0 else _clip(binom.sf(k - 1, n, t)))

    def p_below(t):
        return 1.0 if t <= 0 else (0.0 if t > 1 else _clip(binom.cdf(k, n, t)))

    return Estimate(k / n, low, high, n, "exact binomial (Clopper-Pearson)", p_above, p_below)


def fisher_greater(e1: int, n1: int, e2: int, n2: int) -> float:
    """One-sided Fisher exact p-value of H1: p1 > p2."""
    from scipy.stats import hypergeom

    return _clip(hypergeom.sf(e1 - 1, n1 + n2, e1 + e2, n1))


def newcombe_interval(e1, n1, e2, n2, alpha: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval of p1 - p2 (Wilson intervals of each, combined)."""
    from scipy.stats import norm

    z = float(norm.isf(alpha))

    def wilson(e, n):
        p = e / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return centre - half, centre + half

    p1, p2 = e1 / n1, e2 / n2
    l1, u1 = wilson(e1, n1)
    l2, u2 = wilson(e2, n2)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def proportion_difference(e1: int, n1: int, e2: int, n2: int, alpha: float) -> Estimate:
    """p1 - p2 of two independent binomials; tested against 0 only, by Fisher's exact test."""
    e1, n1, e2, n2 = int(e1), int(n1), int(e2), int(n2)
    above, below = fisher_greater(e1, n1, e2, n2), fisher_greater(e2, n2, e1, n1)

    def at_zero(p):
        def test(t):
            if t != 0:
                raise ValueError("a difference of error probabilities is tested against 0 only")
            return p
        return test

    low, high = newcombe_interval(e1, n1, e2, n2, alpha)
    return Estimate(e1 / n1 - e2 / n2, low, high, min(n1, n2),
                    "Fisher's exact test (interval: Newcombe)", at_zero(above), at_zero(below))


def rate_ratio(e1: int, n1: int, e2: int, n2: int, alpha: float) -> Estimate:
    """p1 / p2 for rare errors: given s = e1 + e2, e1 ~ Binomial(s, rho n1 / (rho n1 + n2)) when
    p1 = rho p2 (exact for Poisson counts, conservative for binomial ones)."""
    from scipy.stats import beta, binom

    e1, n1, e2, n2 = int(e1), int(n1), int(e2), int(n2)
    s = e1 + e2

    def pi(rho):
        return rho * n1 / (rho * n1 + n2)

    def p_above(rho):
        return 1.0 if s == 0 else _clip(binom.sf(e1 - 1, s, pi(rho)))

    def p_below(rho):
        return 1.0 if s == 0 else _clip(binom.cdf(e1, s, pi(rho)))

    def rho_of(p):
        return math.inf if p >= 1 else p * n2 / ((1 - p) * n1)

    if s == 0:
        low, high = 0.0, math.inf
    else:
        low = 0.0 if e1 == 0 else rho_of(float(beta.ppf(alpha, e1, s - e1 + 1)))
        high = math.inf if e1 == s else rho_of(float(beta.ppf(1 - alpha, e1 + 1, s - e1)))
    value = math.nan if s == 0 else (math.inf if e2 == 0 else (e1 / n1) / (e2 / n2))
    return Estimate(value, low, high, min(n1, n2), "exact conditional binomial (rate ratio)", p_above, p_below)


# ------------------------------------------------------------------ means

def _t_tests(mean: float, se: float, df: float):
    from scipy.stats import t as student

    def p_above(t):
        if se == 0:
            return 0.0 if mean > t else 1.0
        return _clip(student.sf((mean - t) / se, df))

    def p_below(t):
        if se == 0:
            return 0.0 if mean < t else 1.0
        return _clip(student.cdf((mean - t) / se, df))

    return p_above, p_below


def mean(values, alpha: float) -> Estimate:
    """Mean of independent runs: Student's t."""
    from scipy.stats import t as student

    x = np.asarray(values, float)
    n = x.size
    m = float(x.mean())
    if n < 2:
        return Estimate(m, -math.inf, math.inf, n, "Student's t (one run: no interval)", _half, _half)
    se = float(x.std(ddof=1) / math.sqrt(n))
    q = float(student.isf(alpha, n - 1))
    p_above, p_below = _t_tests(m, se, n - 1)
    return Estimate(m, m - q * se, m + q * se, n, "Student's t", p_above, p_below)


def _half(_t) -> float:
    return 1.0


def mean_difference(a, b, alpha: float, paired: bool) -> Estimate:
    """mean(a) - mean(b): paired runs (common random numbers) by the t interval of the differences,
    independent ones by Welch's t."""
    from scipy.stats import t as student

    a, b = np.asarray(a, float), np.asarray(b, float)
    if paired:
        if a.size != b.size:
            raise ValueError(f"paired difference of {a.size} and {b.size} runs")
        est = mean(a - b, alpha)
        est.method = "paired Student's t"
        return est
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1)) if se > 0 else 1.0
    d = float(a.mean() - b.mean())
    q = float(student.isf(alpha, df))
    p_above, p_below = _t_tests(d, se, df)
    return Estimate(d, d - q * se, d + q * se, min(a.size, b.size), "Welch's t", p_above, p_below)


# ------------------------------------------------------------------ bootstrap

def stream_seed(*labels) -> int:
    """A fixed bootstrap seed per claim part: the same numbers on every run and machine."""
    return zlib.crc32("/".join(map(str, labels)).encode("utf-8"))


def bootstrap(statistic, groups, alpha: float, seed: int, method: str = "",
              resamples: int = BOOTSTRAP_RESAMPLES) -> Estimate:
    """Percentile bootstrap of statistic(*samples) over independent runs.

    groups: a list of groups; a group is a tuple of equally long 1-d arrays whose runs are paired
    (common random numbers) and are resampled together. statistic(*arrays) must accept arrays with
    a leading resample axis (shape (B, n)) and return B values.
    """
    rng = np.random.default_rng(seed)
    flat = [np.asarray(x, float) for g in groups for x in g]
    value = float(statistic(*[x[None, :] for x in flat])[0])
    draws = []
    for g in groups:
        n = len(g[0])
        idx = rng.integers(0, n, size=(resamples, n))
        draws += [np.asarray(x, float)[idx] for x in g]
    stats = np.asarray(statistic(*draws), float)
    stats = stats[np.isfinite(stats)] if np.any(~np.isfinite(stats)) else stats
    B = stats.size

    def p_above(t):
        return (1.0 + np.count_nonzero(stats <= t)) / (B + 1.0)

    def p_below(t):
        return (1.0 + np.count_nonzero(stats >= t)) / (B + 1.0)

    low, high = (float(np.quantile(stats, alpha)), float(np.quantile(stats, 1 - alpha))) if B else (-math.inf, math.inf)
    n_runs = min(len(g[0]) for g in groups)
    return Estimate(value, low, high, n_runs, method or f"percentile bootstrap ({resamples} resamples of the runs)",
                    p_above, p_below)


# ------------------------------------------------------------------ exact

def exact(value: float, method: str = "exact (no sampling noise)") -> Estimate:
    v = float(value)
    return Estimate(v, v, v, 0, method, lambda t: 0.0 if v > t else 1.0, lambda t: 0.0 if v < t else 1.0)
