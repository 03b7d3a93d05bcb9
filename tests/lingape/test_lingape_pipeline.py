"""The LinGapE study through the real pipeline (.test configuration, shared full run)."""
import json

import numpy as np
import pandas as pd

from linbandits import experiments, paths
from linbandits.studies.lingape.products import SUMMARY_COLUMNS
from linbandits.study_config import read_config


def config_of(workdir):
    return read_config(workdir / "config" / "config.yaml")   # with the studies' defaults


def test_tables_match_the_raw_runs(full_run):
    config = config_of(full_run)
    exps = experiments.study_experiments(config, "lingape")
    assert any(e.switch_of for e in exps.values())       # switch runs get their tables too
    for name, exp in exps.items():
        table = pd.read_csv(full_run / f"results/lingape/tables/{name}.csv")
        assert list(table.columns) == SUMMARY_COLUMNS
        assert len(table) == len(exp.algorithms) * len(exp.values)
        assert (table["runs"] == exp.trials).all()
        for row in table.itertuples():
            s = experiments.setting_id(exp.sweep, exp.values[[float(v) for v in exp.values].index(row.x)])
            raw = pd.concat(pd.read_csv(full_run / p) for p in paths.raw_chunk_paths(config, exp, s, row.algorithm))
            assert sorted(raw["trial"]) == list(range(exp.trials))
            assert np.isclose(row.mean_tau, raw["stopping_time"].mean(), rtol=1e-9)
            assert row.min_tau == raw["stopping_time"].min() and row.max_tau == raw["stopping_time"].max()
        assert "\\begin{tabular}" in (full_run / f"results/lingape/tables/{name}.tex").read_text()


def test_table1_and_figures(full_run):
    t1 = pd.read_csv(full_run / "results/lingape/tables/table1_arm_pulls_d5.csv", dtype={"arm": str})
    assert t1["arm"].tolist() == ["1", "2", "3", "4", "5", "6", "total"]
    assert t1["XY-oracle published"].tolist()[-1] == 2742457
    assert t1["LinGapE (eps = Delta_min/2) published"].tolist()[-1] == 431119
    assert (t1["XY-oracle min"] == t1["XY-oracle max"]).all()       # the deterministic oracle
    assert t1["LinGapE run 0"].iloc[:6].sum() == t1["LinGapE run 0"].iloc[6]
    assert "1,015,526" in (full_run / "results/lingape/tables/table1_arm_pulls_d5.md").read_text()
    for fig in ("fig1_soare", "fig2_canonical", "fig3_yahoo"):
        for ext in ("pdf", "png"):
            assert (full_run / f"figures/lingape/{fig}.{ext}").stat().st_size > 1000


def test_claims_state_intervals_robustness_and_the_stand_in(full_run):
    claims = json.loads((full_run / "results/lingape/claims.json").read_text())
    assert claims["study"] == "lingape"
    by_id = {c["id"]: c for c in claims["claims"]}
    assert {"fig1-lingape-superior", "table1-totals", "table1-oracle-total", "fig2-gap-grows", "r6a-bounded"} <= set(by_id)
    for c in claims["claims"]:
        assert c["quote"] and c["test"] and c["parts"]
        assert c["verdict"] in ("holds", "does not hold", "inconclusive", "no evidence", "not run")
        for part in c["parts"]:
            assert "missing" in part or (part["low"] is not None and part["high"] is not None and part["method"])
    # Fig. 1's claims are judged again under the three switch runs of exp1_soare
    runs = by_id["fig1-lingape-beats-oracle"]["robustness"]["runs"]
    assert sorted((r["choice"], r["value"]) for r in runs) == [("epsilon", "Delta_min/2"), ("form", "scratch"),
                                                               ("rule", "ratio")]
    # Table 1's claims under epsilon = Delta_min/2, the setting of the published LinGapE run
    assert ("epsilon", "Delta_min/2") in {(r["choice"], r["value"]) for r in by_id["table1-totals"]["robustness"]["runs"]}
    # Exp. 3 ran on the synthetic stand-in, and its claims say so
    for cid in ("fig3-five-times", "fig3-gap-grows", "r6a-bounded"):
        assert "synthetic stand-in" in by_id[cid]["scope"]
    assert "synthetic stand-in" in (full_run / "results/lingape/claims.md").read_text()


def test_study_target_builds_nothing_twice(full_run, planned_jobs):
    assert planned_jobs(full_run, "lingape") == {}


def test_runs_do_not_depend_on_chunks(full_run, tmp_path, make_workdir, snakemake):
    """XY-static runs share one arm sequence: re-chunked one run per job, every run is the same."""
    other = make_workdir(tmp_path / "rechunk", chunk_size=1)
    raw = "results/lingape/raw/exp2_canonical/Delta0.5/XY-static"
    snakemake(other, "--cores", "1", f"{raw}/chunk0-0.csv", f"{raw}/chunk1-1.csv")
    whole = pd.read_csv(full_run / raw / "chunk0-1.csv")
    parts = pd.concat([pd.read_csv(other / raw / f"chunk{i}-{i}.csv") for i in (0, 1)], ignore_index=True)
    pd.testing.assert_frame_equal(whole, parts)
