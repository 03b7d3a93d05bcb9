"""The Yahoo! instance's difficulty diagnostics (docs/p1rage.md, "The shared-PCA switch").

The summary of every Yahoo! instance says, before any run, whether the arm selected as best stays
best day by day and how many standard deviations of a uniform allocation its smallest gap is: the
two numbers that showed the shared-PCA switch run could not rank the algorithms. Checked on a
hand-made arm set and, end to end, against an independent recomputation from the instance file;
each check is shown to catch a planted wrong version.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from linbandits.problems import load_instance_file
from linbandits.r6a import reader as r6a
from linbandits.studies.p1rage import yahoo

K, DAYS, T = 24, 7, 21000
DIAGNOSTICS = yahoo.arm_set_diagnostics   # the planted versions wrap it (the end-to-end test patches the module)


def hand_made_week():
    """Unit-vector arms (arm i's reward is theta[i]); arm 0 best on average, beaten on days 2 and 4."""
    X = np.eye(K)
    thetas = np.zeros((DAYS, K))
    thetas[:, 0] = 0.5
    thetas[:, 1:] = np.linspace(0.0, 0.2, K - 1)   # arm 23 is the runner-up: 0.2
    thetas[2, 5] = 0.9      # day 2: arm 5 at 0.9 beats arm 0 by 0.4
    thetas[4, 9] = 0.6      # day 4: arm 9 at 0.6 beats arm 0 by 0.1
    return X, thetas


def check_hand_made(diagnostics) -> None:
    X, thetas = hand_made_week()
    d = diagnostics(X, thetas, T)
    assert d["best_arm_by_day"] == [0, 0, 5, 0, 9, 0, 0]
    assert d["days_selected_arm_is_best"] == 5
    np.testing.assert_allclose(d["selected_arm_lead_by_day"], [0.3, 0.3, -0.4, 0.3, -0.1, 0.3, 0.3], atol=1e-12)
    # under the mean theta the runner-up is arm 23 (0.2; arms 5 and 9 average 0.16 and 0.15): gap 0.3
    assert d["min_gap_in_uniform_sd"] == pytest.approx(0.3 / math.sqrt(2 * K / T), rel=1e-12)


def test_diagnostics_of_a_hand_made_week():
    check_hand_made(DIAGNOSTICS)


def _under_the_mean_every_day(X, thetas, T):      # planted: each day judged under the mean theta
    return DIAGNOSTICS(X, np.repeat(thetas.mean(axis=0)[None], len(thetas), axis=0), T)


def _lead_against_every_arm(X, thetas, T):        # planted: arm 0 compared with itself too
    d = DIAGNOSTICS(X, thetas, T)
    by_day = X @ thetas.T
    d["selected_arm_lead_by_day"] = [float(v) for v in by_day[0] - by_day.max(axis=0)]
    return d


def _sd_of_one_arm(X, thetas, T):                 # planted: sqrt(K / T), one arm's sd, not a difference's
    d = DIAGNOSTICS(X, thetas, T)
    d["min_gap_in_uniform_sd"] *= math.sqrt(2)
    return d


@pytest.mark.parametrize("planted", [_under_the_mean_every_day, _lead_against_every_arm, _sd_of_one_arm])
def test_the_hand_made_check_catches_planted_diagnostics(planted):
    with pytest.raises(AssertionError):
        check_hand_made(planted)


# --- end to end: the CLI's summary against the instance file and the parsed days ----------------------

def run(argv):
    from linbandits.cli import main

    return main([str(a) for a in argv])


@pytest.fixture(scope="module")
def days(tmp_path_factory):
    d = tmp_path_factory.mktemp("r6a_diag")
    assert run(["yahoo-synthetic", "--out-dir", d / "syn", "--lines-per-day", 600, "--seed", 4]) == 0
    for day in r6a.PUBLISHED_DAYS:
        assert run(["yahoo-parse", "--r6a-dir", d / "syn", "--day", day, "--out", d / f"{day}.npz",
                    "--qc", d / f"{day}.qc.json"]) == 0
    return [d / f"{day}.npz" for day in r6a.PUBLISHED_DAYS]


def build(days, tmp_path, pca, L=200):
    yahoo._FITS.clear()
    out, summary = tmp_path / f"{pca}.npz", tmp_path / f"{pca}.json"
    assert run(["p1rage-yahoo-instance", "--days", *days, "--pca", pca, "--L", L, "--T", T, "--seed", 3,
                "--out", out, "--summary", summary]) == 0
    return load_instance_file(out), json.loads(summary.read_text())


def check_summary(days, inst, s, L=200) -> None:
    """Recompute every diagnostic from the instance's own arms and schedule, and (for the shared basis,
    where the rewards do not depend on the axes' signs) the best row's isolation from the raw days."""
    day_thetas = inst.thetas[::L][:DAYS]                         # the schedule's first week, day by day
    by_day = inst.X @ day_thetas.T
    assert s["best_arm_by_day"] == [int(a) for a in by_day.argmax(axis=0)]
    assert s["days_selected_arm_is_best"] == int(np.sum(by_day.argmax(axis=0) == 0))
    lead = [by_day[0, t] - max(by_day[k, t] for k in range(1, K)) for t in range(DAYS)]
    np.testing.assert_allclose(s["selected_arm_lead_by_day"], lead, rtol=1e-9, atol=1e-12)
    rewards = inst.X @ day_thetas.mean(axis=0)
    assert s["min_gap_in_uniform_sd"] == pytest.approx((rewards[0] - rewards[1:].max()) / math.sqrt(2 * K / T),
                                                       rel=1e-9)
    if s["pca"] == "shared":
        zs = [r6a.load_day_npz(p)[:2] for p in days]
        pooled = np.vstack([np.asarray(z, np.float64) for z, _ in zs])
        V = np.linalg.svd(pooled - pooled.mean(axis=0), full_matrices=False)[2][:24]
        thetas = []
        for z, y in zs:
            Z = np.asarray(z, np.float64) @ V.T
            thetas.append(np.linalg.solve(Z.T @ Z + 0.01 * np.eye(24), Z.T @ y))
        row_rewards = np.asarray(zs[0][0], np.float64) @ V.T @ np.mean(thetas, axis=0)
        assert s["rows_within_min_gap_of_best"] == int(np.sum(row_rewards >= row_rewards.max() - 0.05))


@pytest.mark.parametrize("pca", ["per_day", "shared"])
def test_summary_diagnostics_match_the_instance(days, tmp_path, pca):
    inst, s = build(days, tmp_path, pca)
    check_summary(days, inst, s)


def test_the_end_to_end_check_catches_a_planted_diagnostic(days, tmp_path, monkeypatch):
    monkeypatch.setattr(yahoo, "arm_set_diagnostics", _under_the_mean_every_day)
    inst, s = build(days, tmp_path, "shared")
    with pytest.raises(AssertionError):
        check_summary(days, inst, s)


def test_the_end_to_end_check_catches_a_planted_isolation_count(days, tmp_path, monkeypatch):
    original = yahoo.select_arm_rows

    def counts_medium_rows(rewards, project, rng, n_arms=yahoo.N_ARMS):   # planted: the wrong rows counted
        rows, note = original(rewards, project, rng, n_arms)
        return rows, {**note, "rows_within_min_gap_of_best": note["medium_rows"]}

    monkeypatch.setattr(yahoo, "select_arm_rows", counts_medium_rows)
    inst, s = build(days, tmp_path, "shared")
    with pytest.raises(AssertionError):
        check_summary(days, inst, s)
