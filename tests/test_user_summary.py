"""A user algorithm's summary over an experiment's sweep (linbandits.user.summary, issue 47 item 6): its
intervals cover at the level they are printed at (each side at most 2.5%), by simulation like
tests/test_claims_coverage.py, through the same estimator functions the summaries call:

- the geometric-mean ratio (estimates.geomean_ratio_t): LinGapE-like stopping times (10 runs, every setting
  on one seed) and SW-UCB-like regrets (100 runs, a seed per setting);
- the mean paired difference of error probabilities (the mean of the settings' paired exact intervals):
  P1-RAGE-like errors (common random numbers: nested errors) at the .test's 20-30 runs and at 1000 runs.

Planted under-covering intervals fail the same check: settings that share seeds taken as independent (the
geometric mean), and a plain t on the runs' error differences at 20 runs with rare errors. Also: the
summary's value is the geometric mean of the per-setting ratios (or the mean of the differences); one run
is no evidence with the reason; metrics are never mixed (a summary reads one metric)."""
import math

import numpy as np
import pytest

from linbandits.claims import estimates as est
from linbandits.user import summary

from test_claims_coverage import LINGAPE_SHAPES, SWUCB_SHAPES, covers, geomean_rates, miss_rates

ALPHA = 0.025          # the summaries' one-sided level (each printed at 95%)
WORLDS = 20_000


@pytest.mark.parametrize("n,shared,shapes", [(10, True, LINGAPE_SHAPES), (100, False, SWUCB_SHAPES)])
def test_the_geomean_ratio_covers_at_the_summaries_level(n, shared, shapes):
    for i, shape in enumerate(shapes):
        rates = geomean_rates(n, shape, ALPHA, seed=700 + i, settings=3, shared=shared, worlds=WORLDS)
        assert covers(rates, ALPHA, WORLDS), (n, shape, rates)


def test_planted_settings_that_share_seeds_taken_as_independent_under_cover(monkeypatch):
    real = est.log_geomean_se
    monkeypatch.setattr(est, "log_geomean_se", lambda pairs, paired, shared: real(pairs, paired, False))
    failed = [shape for i, shape in enumerate(LINGAPE_SHAPES)
              if not covers(geomean_rates(10, shape, ALPHA, seed=700 + i, settings=3, shared=True, worlds=WORLDS),
                            ALPHA, WORLDS)]
    assert failed


def nested_errors(rng, worlds, n, p_mine, p_theirs):
    """Errors of two algorithms on common random numbers: one uniform per run, each errs below its rate."""
    u = rng.random((worlds, n))
    return (u < p_mine).astype(np.int8), (u < p_theirs).astype(np.int8)


# P1-RAGE-like error rates per setting (short budgets err often, long ones rarely), mine vs the paper's
ERROR_SWEEPS = [[(0.5, 0.4), (0.05, 0.02)], [(0.3, 0.3), (0.1, 0.15)], [(0.02, 0.05), (0.2, 0.1), (0.6, 0.5)],
                [(0.02, 0.1), (0.01, 0.05)]]


def error_rates(n, sweep, seed, interval=None, worlds=WORLDS):
    """Miss rates of the error summary's interval (summary.errors_estimate), from the discordant counts of
    each setting (nested errors: only one side of each setting is discordant), the intervals computed once
    per distinct outcome."""
    rng = np.random.default_rng(seed)
    truth = float(np.mean([pm - pt for pm, pt in sweep]))
    counts = np.stack([rng.binomial(n, abs(pm - pt), worlds) * (1 if pm >= pt else -1) for pm, pt in sweep], axis=1)
    outcomes, which = np.unique(counts, axis=0, return_inverse=True)
    bounds = np.array([(interval or summary_interval)(row, n) for row in outcomes])
    low, high = bounds[which.ravel(), 0], bounds[which.ravel(), 1]
    return miss_rates(low, high, truth)


def as_pairs(signed_counts, n):
    """0/1 error runs with the given discordant counts (positive: mine erred alone; negative: theirs)."""
    pairs = []
    for c in signed_counts:
        mine, theirs = np.zeros(n, int), np.zeros(n, int)
        (mine if c > 0 else theirs)[:abs(int(c))] = 1
        pairs.append((mine, theirs))
    return pairs


def summary_interval(signed_counts, n):
    e, _ = summary.estimate(as_pairs(signed_counts, n), "error", ALPHA, shared=False)
    return e.low, e.high


def plain_t_interval(signed_counts, n):
    """The planted bug: Student's t on the runs' differences averaged over the settings, no allowance."""
    units = np.mean([m.astype(float) - t for m, t in as_pairs(signed_counts, n)], axis=0)
    low, high = est.t_interval(units.mean(), units.std(ddof=1) / math.sqrt(n), n - 1.0, ALPHA)
    return low, high


@pytest.mark.parametrize("n", [20, 30, 1000])
def test_the_error_summary_covers_at_the_summaries_level(n):
    for i, sweep in enumerate(ERROR_SWEEPS):
        rates = error_rates(n, sweep, seed=800 + i)
        assert covers(rates, ALPHA, WORLDS), (n, sweep, rates)


def test_planted_plain_t_on_the_error_differences_under_covers():
    assert not covers(error_rates(20, ERROR_SWEEPS[3], seed=900, interval=plain_t_interval), ALPHA, WORLDS)
    assert covers(error_rates(20, ERROR_SWEEPS[3], seed=900), ALPHA, WORLDS)


def test_the_error_summary_is_the_mean_of_the_settings_paired_exact_intervals():
    rng = np.random.default_rng(3)
    pairs = [tuple(x[0] for x in nested_errors(rng, 1, 20, pm, pt)) for pm, pt in ERROR_SWEEPS[2]]
    e, reason = summary.estimate(pairs, "error", ALPHA, shared=False)
    singles = [est.paired_proportion_difference(int(np.sum((m == 1) & (t == 0))), int(np.sum((m == 0) & (t == 1))),
                                                20, ALPHA / 3) for m, t in pairs]
    assert reason == "" and (e.low, e.high) == pytest.approx((np.mean([x.low for x in singles]),
                                                              np.mean([x.high for x in singles])), rel=1e-12)
    assert e.value == pytest.approx(np.mean([m.mean() - t.mean() for m, t in pairs]))


def test_the_ratio_summary_is_the_geometric_mean_of_the_settings_ratios():
    rng = np.random.default_rng(4)
    pairs = [(rng.lognormal(0, 0.3, 10) * (1 + s), rng.lognormal(0, 0.3, 10)) for s in range(3)]
    e, reason = summary.estimate(pairs, "stopping_time", ALPHA, shared=False)
    assert reason == "" and e.value == pytest.approx(
        math.exp(np.mean([math.log(m.mean() / t.mean()) for m, t in pairs])))
    assert summary._point(pairs, "stopping_time") == pytest.approx(e.value)


def test_one_run_is_no_evidence_with_the_reason():
    e, reason = summary.estimate([(np.array([3.0]), np.array([4.0]))] * 3, "regret", ALPHA, shared=True)
    assert e is None and "1 run" in reason
    e, reason = summary.estimate([(np.array([0.0, 0.0]), np.array([4.0, 5.0]))], "regret", ALPHA, shared=True)
    assert e is None and "mean of 0" in reason
