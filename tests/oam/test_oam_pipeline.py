"""The OAM study through the real pipeline (.test configuration, shared full run)."""
import json

import pandas as pd
import pytest
import yaml

from linbandits import pipeline
from linbandits.studies.oam.final_table import COLUMNS


def config_of(workdir):
    return yaml.safe_load((workdir / "config" / "config.yaml").read_text())


def test_table_matches_the_raw_runs(full_run):
    config = config_of(full_run)
    table = pd.read_csv(full_run / "results/oam/tables/final_regret.csv")
    assert list(table.columns) == COLUMNS
    exps = pipeline.study_experiments(config, "oam")
    assert len(table) == sum(len(e.algorithms) for e in exps.values())
    for row in table.itertuples():
        exp = exps[row.experiment]
        raw = pd.concat(pd.read_csv(full_run / p) for p in pipeline.raw_chunk_paths(config, exp, "single",
                                                                                    row.algorithm))
        assert list(raw.columns) == ["trial", "regret"] and sorted(raw["trial"]) == list(range(exp.trials))
        assert row.mean_regret == pytest.approx(raw["regret"].mean(), rel=1e-9)
        summary = json.loads((full_run / pipeline.instance_path(config, exp, "single", "json")).read_text())
        if not summary["theta_random"]:
            assert row.C == pytest.approx(summary["lower_bound_C"], rel=1e-9)
    assert (full_run / "results/oam/tables/final_regret.md").read_text().startswith("|")
    assert "\\begin{tabular}" in (full_run / "results/oam/tables/final_regret.tex").read_text()


def test_claims_figures_and_report_items(full_run):
    claims = json.loads((full_run / "results/oam/claims.json").read_text())
    assert claims["study"] == "oam"
    ids = [c["id"] for c in claims["claims"]]
    assert [i for i in ids if "[" not in i] == [f"C{k}" for k in range(1, 9)]
    assert "C7 [switch eps=0]" in ids
    for c in claims["claims"]:
        assert c["quote"] and c["test"] and c["numbers"] and c["verdict"]
    config = config_of(full_run)
    for fig in config["studies"]["oam"]["figures"]:
        for ext in ("pdf", "png"):
            assert (full_run / f"figures/oam/{fig}.{ext}").stat().st_size > 1000


def test_study_target_builds_nothing_twice(full_run, planned_jobs):
    assert planned_jobs(full_run, "oam") == {}
