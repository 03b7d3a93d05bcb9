"""The OAM study through the real pipeline (.test configuration, shared full run)."""
import json

import pandas as pd
import pytest

from linbandits import experiments, paths
from linbandits.studies.oam.products import FINAL_COLUMNS
from linbandits.study_config import read_config


def config_of(workdir):
    return read_config(workdir / "config" / "config.yaml")   # with the studies' defaults


def test_table_matches_the_raw_runs(full_run):
    config = config_of(full_run)
    table = pd.read_csv(full_run / "results/oam/tables/final_regret.csv", keep_default_na=False)
    assert list(table.columns) == FINAL_COLUMNS
    exps = experiments.study_experiments(config, "oam")
    assert len(table) == sum(len(e.algorithms) for e in exps.values())
    for row in table.itertuples():
        exp = exps[row.experiment]
        raw = pd.concat(pd.read_csv(full_run / p) for p in paths.raw_chunk_paths(config, exp, "single",
                                                                                    row.algorithm))
        assert list(raw.columns) == ["trial", "regret"] and sorted(raw["trial"]) == list(range(exp.trials))
        assert row.mean_regret == pytest.approx(raw["regret"].mean(), rel=1e-9)
        summary = json.loads((full_run / paths.instance_path(config, exp, "single", "json")).read_text())
        if not summary["theta_random"]:
            assert row.C == pytest.approx(summary["lower_bound_C"], rel=1e-9)
        assert row.switch == (exp.switch or "")
    assert (full_run / "results/oam/tables/final_regret.md").read_text().startswith("|")
    assert "\\begin{tabular}" in (full_run / "results/oam/tables/final_regret.tex").read_text()


def test_claims_state_intervals_and_robustness(full_run):
    claims = json.loads((full_run / "results/oam/claims.json").read_text())
    assert claims["study"] == "oam"
    assert [c["id"] for c in claims["claims"]] == [f"C{k}" for k in range(1, 9)]
    by_id = {c["id"]: c for c in claims["claims"]}
    for c in claims["claims"]:
        assert c["quote"] and c["test"] and c["parts"] and c["verdict"]
        for part in c["parts"]:
            assert "missing" in part or (part["low"] is not None and part["high"] is not None)
    # C7 reads oam_random_theta, whose eps = 0.01 switch the tiny config runs: judged under it too
    runs = by_id["C7"]["robustness"]["runs"]
    assert [(r["choice"], r["value"]) for r in runs] == [("epsilon", "0.01")]
    assert by_id["C7"]["robustness"]["status"] in ("robust", "depends")
    config = config_of(full_run)
    for fig in config["studies"]["oam"]["figures"]:
        for ext in ("pdf", "png"):
            assert (full_run / f"figures/oam/{fig}.{ext}").stat().st_size > 1000


def test_study_target_builds_nothing_twice(full_run, planned_jobs):
    assert planned_jobs(full_run, "oam") == {}
