"""The comparison of a user's algorithm with the paper's (linbandits.user.comparison, issue 47 item 6):

- beside each paired difference, the paired ratio of means with its interval at the same Holm level; a
  clearly worse algorithm is worse on both, and the planted ratio that ignores the pairing loses it;
- a design that cannot decide (one run; a binomial design with too few runs) reads "no evidence" with the
  reason and stays out of the Holm family; planted: the reason dropped gives the old `[-inf, inf]`
  "inconclusive";
- comparisons with the same runs on the same instance (experiments on identical instances) are judged once
  and list the cells they stand for; planted: a duplicate counted twice makes Holm's family larger and loses
  a decision; equal runs on different instances (every run correct in two settings) stay two comparisons,
  and a planted key without the instance merges them;
- no verdict contradicts either printed interval (disagreements), and the check sees a planted ratio
  interval that contradicts its verdict.
"""
import math

import numpy as np
import pytest

from linbandits.claims import estimates
from linbandits.user import comparison

ALPHA = 0.05


def regret_cases(shift: float, n: int = 40, seed: int = 3):
    """A paper algorithm's regrets that vary a lot from run to run, and the user's: the same runs plus
    `shift` plus a little noise of its own (paired, the shift is plain; unpaired, it drowns)."""
    rng = np.random.default_rng(seed)
    theirs = rng.normal(100.0, 30.0, n)
    return theirs + shift + rng.normal(0.0, 1.0, n), theirs


def rows_of(cases, metric="regret", experiment=lambda i: "e", setting=lambda i: f"s{i}", instance=lambda i: None):
    return [comparison.row(experiment(i), setting(i), "P", False, mine, theirs, metric, ALPHA, instance(i))
            for i, (mine, theirs) in enumerate(cases)]


def judged(cases, metric="regret", **cells):
    rows = comparison.distinct(rows_of(cases, metric, **cells))
    comparison.holm(rows, ALPHA)
    return rows


# ---------------------------------------------------------------- the ratio beside the difference

def test_a_worse_one_is_worse_on_the_difference_and_on_the_ratio():
    r = judged([regret_cases(2.0)])[0]
    assert r["verdict"] == "worse" and r["low"] > 0 and r["ratio_low"] > 1
    assert r["ratio_value"] == pytest.approx(r["mine"] / r["theirs"])
    assert r["ratio_low"] < r["ratio_value"] < r["ratio_high"] < 1.05      # paired: a narrow interval
    assert judged([regret_cases(-2.0)])[0]["verdict"] == "better"
    assert comparison.disagreements(judged([regret_cases(2.0)])) == []


def unpaired_ratio(mine, theirs, alpha):
    return estimates.ratio_of_means_t(mine, theirs, alpha, paired=False)


def test_planted_ratio_that_ignores_the_pairing_loses_the_worse_one(monkeypatch):
    monkeypatch.setattr(comparison, "paired_ratio", unpaired_ratio)
    r = judged([regret_cases(2.0)])[0]
    assert r["verdict"] == "inconclusive" and r["ratio_high"] - r["ratio_low"] > 0.2


def test_the_ratio_interval_is_the_engines_paired_t_on_the_log_ratio_at_the_holm_level():
    mine, theirs = regret_cases(2.0)
    r = judged([(mine, theirs), regret_cases(0.0, seed=8)])[0]
    engine = estimates.ratio_of_means_t(mine, theirs, r["level"] / 2, paired=True)
    assert (r["ratio_low"], r["ratio_high"]) == pytest.approx((engine.low, engine.high), rel=1e-12)


def test_a_ratio_without_a_mean_has_no_interval_and_the_difference_decides():
    mine, theirs = np.zeros(200, int), np.r_[np.ones(60, int), np.zeros(140, int)]   # no errors of mine
    r = judged([(mine, theirs)], metric="error")[0]
    assert r["ratio"] is None and r["verdict"] == "better" and r["high"] < 0
    assert "no interval" in comparison.ratio_text(r)


def test_planted_ratio_interval_that_contradicts_its_verdict_is_seen():
    rows = comparison.records(judged([regret_cases(2.0)]))
    assert comparison.disagreements(rows) == []
    rows[0]["ratio_low"], rows[0]["ratio_high"] = 0.9, 1.1          # printed: holds 1; verdict: worse
    assert comparison.disagreements(rows) != []


# ---------------------------------------------------------------- no evidence

def test_one_run_is_no_evidence_with_the_reason_and_outside_the_family():
    one = [(np.array([5.0]), np.array([7.0]))]
    rows = judged(one + [regret_cases(2.0)])
    assert rows[0]["verdict"] == "no evidence" and "1 run per algorithm" in rows[0]["reason"]
    assert rows[1]["verdict"] == "worse" and rows[1]["level"] == pytest.approx(ALPHA)   # a family of one
    assert "[-inf, inf]" not in comparison.section(None, "U", rows, 0.95)[-2]


def test_planted_without_the_design_check_one_run_reads_inconclusive(monkeypatch):
    monkeypatch.setattr(comparison, "no_evidence_reason", lambda est, n, metric, alpha: "")
    rows = judged([(np.array([5.0]), np.array([7.0])), regret_cases(2.0)])
    assert rows[0]["verdict"] == "inconclusive" and (rows[0]["low"], rows[0]["high"]) == (-math.inf, math.inf)
    assert rows[1]["level"] == pytest.approx(ALPHA / 2)


def test_a_binomial_design_too_small_to_decide_is_no_evidence_by_the_engines_rule():
    few = (np.array([1, 1]), np.array([0, 0]))          # 2 runs: even 2 discordant runs cannot show it
    r = judged([few], metric="error")[0]
    assert r["verdict"] == "no evidence" and "can never show" in r["reason"]
    enough = (np.ones(30, int), np.zeros(30, int))
    assert judged([enough], metric="error")[0]["verdict"] == "worse"


# ---------------------------------------------------------------- one comparison, once

def test_identical_comparisons_are_judged_once_and_list_their_cells():
    case = regret_cases(2.0)
    rows = judged([case, case, regret_cases(0.0, seed=5)], experiment=lambda i: ["exp2", "exp2_adaptive", "exp2"][i],
                  setting=lambda i: ["D1", "D1", "D2"][i], instance=lambda i: (f"exp2/{['D1', 'D1', 'D2'][i]}.npz", 0))
    assert len(rows) == 2
    assert [(c["experiment"], c["setting"]) for c in rows[0]["stands_for"]] == [("exp2", "D1"),
                                                                                 ("exp2_adaptive", "D1")]
    assert "also exp2_adaptive/D1" in comparison.where(rows[0])


def test_different_runs_of_either_series_are_different_comparisons():
    mine, theirs = regret_cases(2.0)
    rows = judged([(mine, theirs), (mine, theirs + 1e-9), (mine + 1e-9, theirs)], instance=lambda i: ("one.npz", 0))
    assert len(rows) == 3


def all_correct_in_two_settings():
    """Every run of both algorithms correct in two settings of different instances: equal runs, two questions."""
    zeros = np.zeros(20, int)
    return [(zeros, zeros), (zeros, zeros)]


def test_equal_runs_on_different_instances_are_different_comparisons():
    rows = judged(all_correct_in_two_settings(), metric="error", instance=lambda i: (f"e/s{i}.npz", 7 + i))
    assert len(rows) == 2


def test_planted_key_without_the_instance_merges_different_instances(monkeypatch):
    real = comparison.same_runs_key
    monkeypatch.setattr(comparison, "same_runs_key", lambda r: real(r | {"instance": "any"}))
    rows = judged(all_correct_in_two_settings(), metric="error", instance=lambda i: (f"e/s{i}.npz", 7 + i))
    assert len(rows) == 1


TWIN_INSTANCE = {"instance": lambda i: ("exp/D1.npz", 0) if i < 2 else ("exp/D2.npz", 0)}


def duplicated_cases():
    """One difference (p about 0.019), repeated by a twin experiment, and one null."""
    rng = np.random.default_rng(9)
    theirs = rng.normal(100.0, 30.0, 40)
    d = rng.normal(0.0, 1.0, 40)
    hit = (theirs + d - d.mean() + 0.44, theirs)       # p about 0.019: decided at alpha / 2, not at alpha / 3
    return [hit, hit, regret_cases(0.0, seed=6)]


def test_a_duplicate_enters_the_holm_family_once():
    rows = judged(duplicated_cases(), **TWIN_INSTANCE)
    assert len(rows) == 2 and rows[0]["verdict"] == "worse" and rows[0]["level"] == pytest.approx(ALPHA / 2)


def test_planted_duplicate_counted_twice_loses_the_decision(monkeypatch):
    monkeypatch.setattr(comparison, "distinct", lambda rows: rows)
    rows = judged(duplicated_cases(), **TWIN_INSTANCE)
    assert len(rows) == 3 and rows[0]["verdict"] == "inconclusive"


def test_a_ratio_bound_beyond_exps_range_is_unbounded_not_a_crash():
    """2 runs (LinGapE's .test) at a small Holm level: the t quantile on the log scale is huge."""
    rows = judged([(np.array([1.0, 1e6]), np.array([2.0, 3.0]))] + [regret_cases(0.0, seed=s) for s in range(40)])
    assert rows[0]["ratio_high"] == math.inf and rows[0]["verdict"] == "inconclusive"
