"""The claims engine: each estimate's tests have their size under the null (checked by
simulation, fixed seeds, stated tolerances), intervals agree with the tests, relations and
groups give the verdicts the docs state, and Holm controls a claim with many parts.
Planted bugs (a check that ignores its interval, Holm switched off, a one-sided test used
two-sided) are applied here and must be caught by the same checks."""
import math

import numpy as np
import pytest
from scipy import stats

from linbandits.claims import engine, estimates as est
from linbandits.claims.engine import FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, NOT_RUN, Missing
from linbandits.claims.quantities import QUANTITIES

ALPHA = (1 - engine.LEVEL) / 2       # 0.025 per direction


def size(rejections: int, n: int) -> tuple[float, float]:
    """Rejection rate and its binomial standard error under the stated alpha."""
    return rejections / n, math.sqrt(ALPHA * (1 - ALPHA) / n)


class Fake:
    """Evidence over in-memory runs: {experiment: {setting: {algorithm: {column: array}}}}."""

    def __init__(self, data, x=None, curves=None):
        self.data, self.xs, self.curves, self.extras = data, x or {}, curves or {}, {}

    def settings(self, exp):
        if exp not in self.data:
            raise Missing(f"experiment {exp} not in this run")
        return list(self.data[exp])

    def x(self, exp, s):
        return self.xs[exp][s]

    def setting_label(self, exp, s):
        return "" if s == "single" else s

    def column(self, exp, s, algo, col):
        try:
            return np.asarray(self.data[exp][s][algo][col])
        except KeyError:
            raise Missing(f"{algo} not run in {exp}") from None

    def curve(self, exp, s, algo, name="regret"):
        return self.curves[(exp, s, algo)]

    def experiment(self, exp):
        class E:
            sweep = "x"
        return E()


def judge_one(spec, data, **kw):
    claim = {"id": "c", "quote": "q", "parts": [spec]}
    return engine.judge(claim, Fake(data, **kw), QUANTITIES)


# ------------------------------------------------------------------ sizes by simulation

def t_size(trials=4000, n=20, seed=11):
    rng = np.random.default_rng(seed)
    holds = fails = 0
    for _ in range(trials):
        e = est.mean(rng.normal(0.0, 1.0, n), ALPHA)
        holds += e.p_above(0.0) < ALPHA
        fails += e.p_below(0.0) < ALPHA
    return holds, fails, trials


def test_t_test_has_its_size_on_each_side():
    holds, fails, n = t_size()
    for rejections in (holds, fails):
        rate, se = size(rejections, n)
        assert abs(rate - ALPHA) <= 4 * se, (rate, ALPHA)


def test_planted_two_sided_p_in_a_one_sided_test_is_caught(monkeypatch):
    original = est._t_tests

    def two_sided(m, se, df):
        above, below = original(m, se, df)
        return (lambda t: min(1.0, 2 * min(above(t), below(t))) if above(t) < 0.5 else 1.0,
                lambda t: min(1.0, 2 * min(above(t), below(t))) if below(t) < 0.5 else 1.0)

    monkeypatch.setattr(est, "_t_tests", two_sided)
    holds, _, n = t_size()
    rate, se = size(holds, n)
    assert abs(rate - ALPHA) > 4 * se       # half the size: the check above would fail


def test_one_sided_t_p_value_matches_scipy():
    x = np.random.default_rng(3).normal(0.3, 1.0, 25)
    e = est.mean(x, ALPHA)
    assert e.p_above(0.1) == pytest.approx(stats.ttest_1samp(x, 0.1, alternative="greater").pvalue, rel=1e-9)
    assert e.p_below(0.1) == pytest.approx(stats.ttest_1samp(x, 0.1, alternative="less").pvalue, rel=1e-9)


def test_binomial_tests_do_not_exceed_their_size():
    rng = np.random.default_rng(5)
    n, p0, trials = 200, 0.3, 4000
    ks = rng.binomial(n, p0, trials)
    above = sum(est.proportion(k, n, ALPHA).p_above(p0) < ALPHA for k in ks)
    below = sum(est.proportion(k, n, ALPHA).p_below(p0) < ALPHA for k in ks)
    for rejections in (above, below):
        rate, se = size(rejections, trials)
        assert rate <= ALPHA + 3 * se


def test_fisher_difference_does_not_exceed_its_size():
    rng = np.random.default_rng(6)
    n, p, trials = 300, 0.2, 3000
    ka, kb = rng.binomial(n, p, trials), rng.binomial(n, p, trials)
    rej = sum(est.proportion_difference(a, n, b, n, ALPHA).p_below(0) < ALPHA for a, b in zip(ka, kb))
    rate, se = size(rej, trials)
    assert rate <= ALPHA + 3 * se


def test_rate_ratio_does_not_exceed_its_size_at_a_factor_two():
    rng = np.random.default_rng(7)
    n, pb, trials = 5000, 0.004, 3000
    ka, kb = rng.binomial(n, 2 * pb, trials), rng.binomial(n, pb, trials)
    above = sum(est.rate_ratio(a, n, b, n, ALPHA).p_above(2.0) < ALPHA for a, b in zip(ka, kb))
    below = sum(est.rate_ratio(a, n, b, n, ALPHA).p_below(2.0) < ALPHA for a, b in zip(ka, kb))
    for rejections in (above, below):
        rate, se = size(rejections, trials)
        assert rate <= ALPHA + 3 * se


BOOTSTRAP_TOLERANCE = 0.02   # the percentile bootstrap is approximate at 50 runs: size <= alpha + 0.02


@pytest.mark.parametrize("quantity,true_value,make", [
    ("ratio_of_means", 1.0, lambda rng: {"a": rng.exponential(1.0, 50), "b": rng.exponential(1.0, 50)}),
    ("relative_difference", 0.0, lambda rng: {"a": rng.gamma(4.0, 1.0, 50), "b": rng.gamma(4.0, 1.0, 50)}),
])
def test_bootstrap_tests_keep_their_size(monkeypatch, quantity, true_value, make):
    monkeypatch.setattr(est, "BOOTSTRAP_RESAMPLES", 999)
    rng = np.random.default_rng(8)
    trials, above, below = 400, 0, 0
    for i in range(trials):
        v = make(rng)
        data = {"e": {"single": {"A": {"regret": v["a"]}, "B": {"regret": v["b"]}}}}
        e, _ = QUANTITIES[quantity](Fake(data), {"quantity": quantity, "experiment": "e", "a": "A", "b": "B"},
                                    ALPHA, f"size{i}")
        above += e.p_above(true_value) < ALPHA
        below += e.p_below(true_value) < ALPHA
    for rejections in (above, below):
        assert rejections / trials <= ALPHA + BOOTSTRAP_TOLERANCE


def test_loglog_slope_bootstrap_keeps_its_size(monkeypatch):
    monkeypatch.setattr(est, "BOOTSTRAP_RESAMPLES", 999)
    rng = np.random.default_rng(9)
    xs = {"e": {f"T{t}": t for t in (1, 2, 4, 8, 16)}}
    trials, above, below = 300, 0, 0
    for i in range(trials):
        # mean ~ x^(2/3): the true slope is 2/3
        data = {"e": {s: {"A": {"regret": x ** (2 / 3) * rng.gamma(9.0, 1 / 9.0, 40)}} for s, x in xs["e"].items()}}
        e, _ = QUANTITIES["loglog_slope"](Fake(data, x=xs), {"quantity": "loglog_slope", "experiment": "e", "a": "A"},
                                          ALPHA, f"slope{i}")
        above += e.p_above(2 / 3) < ALPHA
        below += e.p_below(2 / 3) < ALPHA
    for rejections in (above, below):
        assert rejections / trials <= ALPHA + BOOTSTRAP_TOLERANCE


# ------------------------------------------------------------------ intervals agree with the tests

def test_interval_bounds_are_where_the_tests_reject():
    e = est.proportion(13, 120, ALPHA)
    assert e.p_above(e.low) == pytest.approx(ALPHA, rel=1e-6)
    assert e.p_below(e.high) == pytest.approx(ALPHA, rel=1e-6)
    m = est.mean(np.random.default_rng(2).normal(1, 2, 15), ALPHA)
    assert m.p_above(m.low) == pytest.approx(ALPHA, rel=1e-6)
    assert m.p_below(m.high) == pytest.approx(ALPHA, rel=1e-6)
    r = est.rate_ratio(12, 5000, 4, 5000, ALPHA)
    assert r.p_above(r.low) == pytest.approx(ALPHA, rel=1e-6)
    assert r.p_below(r.high) == pytest.approx(ALPHA, rel=1e-6)


# ------------------------------------------------------------------ relations and groups

def exact_leaf(value, **relation):
    data = {"e": {"single": {}}}
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", **relation}]}
    return engine.judge(claim, Fake(data), {"v": lambda ev, spec, a, c: (est.exact(value), "v")})["verdict"]


def normal_leaf(mean, se, **relation):
    """A leaf whose estimate is N(mean, se): its interval is mean +- 1.96 se."""
    def q(ev, spec, a, c):
        return est.Estimate(mean, mean - 1.96 * se, mean + 1.96 * se, 100, "normal",
                            lambda t: float(stats.norm.sf((mean - t) / se)),
                            lambda t: float(stats.norm.cdf((mean - t) / se))), "v"
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "v", "experiment": "e", **relation}]}
    return engine.judge(claim, Fake({"e": {"single": {}}}), {"v": q})["verdict"]


@pytest.mark.parametrize("mean,expected", [(3.0, HOLDS), (-3.0, FAILS_TO_HOLD), (1.0, INCONCLUSIVE),
                                           (-1.0, INCONCLUSIVE)])
def test_greater_is_three_way_by_the_interval(mean, expected):
    assert normal_leaf(mean, 1.0, greater=0.0) == expected


def test_exact_values_decide_at_once():
    assert exact_leaf(0.0, comparable=0.0) == HOLDS
    assert exact_leaf(4.24, less=1.42) == FAILS_TO_HOLD
    assert exact_leaf(0.5, between=[0.1, 0.3]) == FAILS_TO_HOLD


@pytest.mark.parametrize("mean,se,expected", [
    (0.2, 0.02, HOLDS),         # the interval [0.16, 0.24] lies in [0.1, 0.3]
    (0.5, 0.05, FAILS_TO_HOLD),   # shown outside
    (0.28, 0.05, INCONCLUSIVE),   # straddles 0.3
])
def test_between(mean, se, expected):
    assert normal_leaf(mean, se, between=[0.1, 0.3]) == expected


@pytest.mark.parametrize("mean,se,expected", [
    (0.0, 1.0, HOLDS),           # no difference seen
    (0.05, 0.01, HOLDS),         # different from 0, but shown inside the band
    (0.5, 0.1, FAILS_TO_HOLD),     # shown outside the band
    (0.12, 0.02, INCONCLUSIVE),    # different from 0, straddles the band's edge
])
def test_comparable_with_band(mean, se, expected):
    assert normal_leaf(mean, se, comparable=0.0, band=[-0.1, 0.1]) == expected


def test_not_greater_fails_only_when_shown_above():
    assert normal_leaf(0.5, 1.0, not_greater=0.0) == HOLDS
    assert normal_leaf(5.0, 1.0, not_greater=0.0) == FAILS_TO_HOLD


def test_combine_all_and_any():
    assert engine.combine([HOLDS, HOLDS]) == HOLDS
    assert engine.combine([HOLDS, FAILS_TO_HOLD]) == FAILS_TO_HOLD
    assert engine.combine([HOLDS, INCONCLUSIVE]) == INCONCLUSIVE
    assert engine.combine([HOLDS, NOT_RUN]) == NOT_RUN
    assert engine.combine([FAILS_TO_HOLD, HOLDS], "any") == HOLDS
    assert engine.combine([FAILS_TO_HOLD, FAILS_TO_HOLD], "any") == FAILS_TO_HOLD
    assert engine.combine([FAILS_TO_HOLD, INCONCLUSIVE], "any") == INCONCLUSIVE


def test_each_setting_and_pairs_expand_and_missing_series_is_not_run():
    data = {"e": {"T1": {"A": {"correct": [1] * 90 + [0] * 10}, "B": {"correct": [1] * 50 + [0] * 50}},
                  "T2": {"A": {"correct": [1] * 95 + [0] * 5}, "B": {"correct": [1] * 40 + [0] * 60}}}}
    claim = {"id": "c", "quote": "q", "pairs": {"a": ["A"], "b": ["B", "C"]},
             "parts": [{"quantity": "error_difference", "experiment": "e", "each_setting": "all",
                        "a": "{a}", "b": "{b}", "less": 0}]}
    out = engine.judge(claim, Fake(data), QUANTITIES)
    leaves = engine.leaves_of(out["tree"])
    assert len(leaves) == 4
    assert [leaf.verdict for leaf in leaves[:2]] == [HOLDS, HOLDS]
    assert all(leaf.verdict == NOT_RUN for leaf in leaves[2:])
    assert out["verdict"] == NOT_RUN


# ------------------------------------------------------------------ Holm over a claim's parts

def many_parts_false_verdicts(m=10, trials=1500, seed=12):
    """A claim of m 'greater than 0' parts whose truth is exactly 0: how often does the claim conclude
    anything (holds or does not hold)? Holm keeps that at alpha per direction."""
    rng = np.random.default_rng(seed)
    wrong = 0
    for _ in range(trials):
        draws = rng.normal(0.0, 1.0, m)

        def q(ev, spec, a, c, draws=draws):
            z = draws[int(spec["setting"][1:])]
            return est.Estimate(z, z - 1.96, z + 1.96, 100, "normal", lambda t: float(stats.norm.sf(z - t)),
                                lambda t: float(stats.norm.cdf(z - t))), "v"

        data = {"e": {f"s{i}": {} for i in range(m)}}
        claim = {"id": "c", "quote": "q", "combine": "any",
                 "parts": [{"quantity": "v", "experiment": "e", "each_setting": "any", "greater": 0.0}]}
        verdict = engine.judge(claim, Fake(data), {"v": q})["verdict"]
        wrong += verdict == HOLDS
    return wrong, trials


def test_holm_keeps_a_many_part_claim_at_its_level():
    wrong, n = many_parts_false_verdicts()
    rate, se = size(wrong, n)
    assert rate <= ALPHA + 3 * se


def test_planted_holm_switched_off_is_caught(monkeypatch):
    monkeypatch.setattr(engine, "holm", lambda p: np.asarray(p, float))
    wrong, n = many_parts_false_verdicts()
    rate, se = size(wrong, n)
    assert rate > ALPHA + 3 * se


def test_planted_check_that_ignores_its_interval_is_caught(monkeypatch):
    def by_point(leaf, alpha):
        e = leaf.estimate
        return HOLDS if e.value > leaf.spec["greater"] else FAILS_TO_HOLD

    monkeypatch.setattr(engine, "leaf_verdict", by_point)
    holds = 0
    rng = np.random.default_rng(13)
    for _ in range(400):
        holds += normal_leaf(float(rng.normal(0, 1)), 1.0, greater=0.0) == HOLDS
    rate, se = size(holds, 400)
    assert rate > ALPHA + 3 * se        # the size check of the unpatched engine would fail


def test_unknown_quantity_and_relation_are_one_clear_error():
    from linbandits.errors import UserError

    with pytest.raises(UserError, match="unknown quantity"):
        judge_one({"quantity": "nope", "experiment": "e", "greater": 0}, {"e": {"single": {}}})
    with pytest.raises(UserError, match="exactly one relation"):
        judge_one({"quantity": "mean", "experiment": "e", "greater": 0, "less": 1}, {"e": {"single": {}}})
