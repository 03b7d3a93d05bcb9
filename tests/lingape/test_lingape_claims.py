"""Claims checks on hand-made tables: verdicts follow the numbers, censored means only bound from below."""
import pandas as pd

from linbandits.studies.lingape.claims import Evidence


def table(rows):
    return pd.DataFrame([{"algorithm": a, "x": x, "mean_tau": m, "censored": c} for a, x, m, c in rows])


def evidence(**tables):
    return Evidence(tables, None, {}, {}, None, False)


def test_adaptive_worse_holds_fails_or_is_inconclusive():
    holds = evidence(exp1_soare=table([("XY-adaptive", 2, 30.0, 0), ("XY-static", 2, 10.0, 0)]))
    assert holds.adaptive_worse()[2] == "holds"
    fails = evidence(exp1_soare=table([("XY-adaptive", 2, 15.0, 0), ("XY-static", 2, 10.0, 0)]))
    assert fails.adaptive_worse()[2] == "does not hold"
    # at the cap: 15 is a lower bound of the mean, so "less than twice" is not shown
    capped = evidence(exp1_soare=table([("XY-adaptive", 2, 15.0, 10), ("XY-static", 2, 10.0, 0)]))
    assert capped.adaptive_worse()[2] == "inconclusive"
    # a lower bound already above the threshold proves the claim
    capped_high = evidence(exp1_soare=table([("XY-adaptive", 2, 25.0, 10), ("XY-static", 2, 10.0, 0)]))
    assert capped_high.adaptive_worse()[2] == "holds"


def test_gap_grows_and_better():
    rows = [("LinGapE", 1.0, 10.0, 0), ("XY-static", 1.0, 20.0, 0), ("LinGapE", 0.1, 100.0, 0),
            ("XY-static", 0.1, 400.0, 0), ("LinGapE", 0.01, 1000.0, 0), ("XY-static", 0.01, 5000.0, 0)]
    ev = evidence(exp2_canonical=table(rows))
    assert ev.fig2_better()[2] == "holds"
    assert ev.fig2_gap_grows()[2] == "holds"
    rows[-1] = ("XY-static", 0.01, 1200.0, 0)     # difference 200 < 300: the gap shrinks
    assert evidence(exp2_canonical=table(rows)).fig2_gap_grows()[2] == "does not hold"


def test_lingape_below_all_needs_every_setting():
    rows = [("LinGapE", 2, 10.0, 0), ("XY-static", 2, 50.0, 0), ("XY-oracle", 2, 20.0, 0),
            ("LinGapE", 3, 30.0, 0), ("XY-static", 3, 60.0, 0), ("XY-oracle", 3, 25.0, 0)]
    assert evidence(exp1_soare=table(rows)).lingape_below_all()[2] == "does not hold"
    rows[-1] = ("XY-oracle", 3, 35.0, 0)
    assert evidence(exp1_soare=table(rows)).lingape_below_all()[2] == "holds"
