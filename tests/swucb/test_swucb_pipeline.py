"""The swucb study through the real pipeline (.test configuration, shared full run)."""
import json

import numpy as np
import pandas as pd
import pytest

from linbandits import experiments, paths
from linbandits.catalogue import make_algorithm
from linbandits.claims import VERDICTS
from linbandits.problems import load_instance_file
from linbandits.runs import RunSet

from conftest_config import config_of


def test_tables_figures_and_claims_are_built(full_run):
    config = config_of(full_run)
    exps = experiments.study_experiments(config, "swucb")
    assert {n for n, e in exps.items() if e.switch_of} == {"swucb_fig1__rexp3", "swucb_fig1__v_budget",
                                                          "swucb_fig2__known_window"}
    regret = pd.read_csv(full_run / "results/swucb/tables/regret.csv")
    assert list(regret.columns[:7]) == ["figure", "series", "T", "B_T", "n_runs", "mean_regret", "se"]
    assert len(regret) == sum(len(e.algorithms) * len(e.values) for e in exps.values())
    for name, exp in exps.items():
        rows = regret[regret["figure"] == name]
        assert (rows["n_runs"] == exp.trials).all() and sorted(set(rows["T"])) == sorted(exp.values)
    slopes = pd.read_csv(full_run / "results/swucb/tables/slopes.csv")
    assert {"slope", "ci95_low", "ci95_high", "theory_slope"} <= set(slopes.columns)
    assert (slopes["ci95_low"] < slopes["slope"]).all() and (slopes["slope"] < slopes["ci95_high"]).all()
    variation = pd.read_csv(full_run / "results/swucb/tables/variation.csv")
    assert set(variation["figure"]) == {"swucb_fig1", "swucb_fig2"}
    assert (variation["total_variation"] > variation["paper_bound"]).all()
    ratios = pd.read_csv(full_run / "results/swucb/tables/ratios.csv")
    known = ratios[(ratios["figure"] == "swucb_fig2__known_window") & (ratios["numerator"] == "BOB")]
    assert list(known["denominator"].unique()) == ["SW-UCB (window=known)"] and len(known) == 2
    for name in config["studies"]["swucb"]["figures"]:
        for ext in ("pdf", "png"):
            assert (full_run / f"figures/swucb/{name}.{ext}").stat().st_size > 1000
    for t in ("regret", "slopes", "ratios", "variation"):
        assert (full_run / f"results/swucb/tables/{t}.md").read_text().startswith("|")
        assert "\\begin{tabular}" in (full_run / f"results/swucb/tables/{t}.tex").read_text()


def test_claims_state_intervals_and_robustness(full_run):
    result = json.loads((full_run / "results/swucb/claims.json").read_text())
    assert result["study"] == "swucb" and [c["id"] for c in result["claims"]] == [f"C{k}" for k in range(1, 6)]
    by_id = {c["id"]: c for c in result["claims"]}
    for c in result["claims"]:
        assert c["verdict"] in VERDICTS and c["parts"]
        for part in c["parts"]:
            assert "missing" not in part and part["low"] is not None and part["high"] is not None
    for claim in ("C1", "C2"):
        runs = {(r["choice"], r["value"]) for r in by_id[claim]["robustness"]["runs"]}
        assert runs == {("exp3s_tuning", "V = B_T"), ("exp3s_variant", "rexp3")}
    assert by_id["C5"]["verdict"] == "does not hold" and "3 sqrt(2) B_T" in by_id["C5"]["cause"]
    assert len(by_id["C4"]["parts"]) == 2            # every T of Fig. 2
    assert "Reference: C4 with SW-UCB told B_T" in (full_run / "results/swucb/claims.md").read_text()


def test_the_slope_table_and_the_claims_agree_to_monte_carlo_error(full_run):
    """The same estimator (the table: 2000 resamples, its own seed; the claims: the engine's 10000)."""
    slopes = pd.read_csv(full_run / "results/swucb/tables/slopes.csv").set_index(["figure", "series"])
    result = json.loads((full_run / "results/swucb/claims.json").read_text())
    parts = [p for c in result["claims"] if c["id"] in ("C2", "C3") for p in c["parts"]]
    for p in parts:
        figure = "swucb_fig1" if "(swucb_fig1)" in p["label"] else "swucb_fig2"
        series = p["label"].split(":")[0]
        row = slopes.loc[(figure, series)]
        assert p["value"] == pytest.approx(row["slope"], rel=1e-8)   # the CSV keeps 10 digits
        width = row["ci95_high"] - row["ci95_low"]
        assert abs(p["low"] - row["ci95_low"]) < 0.25 * width and abs(p["high"] - row["ci95_high"]) < 0.25 * width


def test_switch_runs_play_their_base_noise(full_run):
    """Every switch run of a setting has its base's simulate seed; and run 0 of the switch, replayed with
    the base's seed, gives the regret the runs file holds (so it drew the base's noise matrix)."""
    config = config_of(full_run)
    exps = experiments.study_experiments(config, "swucb")
    for name, exp in exps.items():
        if not exp.switch_of:
            continue
        base = exps[exp.switch_of]
        for setting in exp.setting_ids():
            for algo in exp.algorithms:
                chunks = [p for a in base.algorithms for p in paths.raw_chunk_paths(config, base, setting, a)]
                chunks += paths.raw_chunk_paths(config, exp, setting, algo)
                seeds = {json.loads((full_run / (p[: -len(".csv")] + ".json")).read_text())["seed"] for p in chunks}
                assert len(seeds) == 1, (name, setting, seeds)
        setting = exp.setting_ids()[-1]
        algo = exp.algorithms[0]
        instance = load_instance_file(str(full_run / paths.instance_path(config, exp, setting)))
        alg = make_algorithm(algo, instance, exp.options[algo])
        recorded = RunSet(full_run / f"results/swucb/runs/{name}").column(setting, algo, "regret")
        again = alg.run(experiments.seed_of(config, base, setting), 0).columns["regret"]
        assert np.float64(again) == recorded[0]


def test_study_target_builds_nothing_twice(full_run, planned_jobs):
    assert planned_jobs(full_run, "swucb") == {}
