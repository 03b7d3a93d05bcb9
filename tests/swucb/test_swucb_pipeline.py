"""The swucb study through the real pipeline (.test configuration, shared full run)."""
import json

import numpy as np
import pandas as pd

from linbandits import pipeline
from linbandits.claims import VERDICTS

from conftest_config import config_of


def test_tables_figures_and_claims_are_built(full_run):
    config = config_of(full_run)
    exps = pipeline.study_experiments(config, "swucb")
    regret = pd.read_csv(full_run / "results/swucb/tables/regret.csv")
    assert list(regret.columns[:7]) == ["figure", "series", "T", "B_T", "n_runs", "mean_regret", "se"]
    assert len(regret) == sum(len(e.algorithms) * len(e.values) for e in exps.values())
    for name, exp in exps.items():
        rows = regret[regret["figure"] == name]
        assert (rows["n_runs"] == exp.trials).all() and sorted(set(rows["T"])) == sorted(exp.values)
    slopes = pd.read_csv(full_run / "results/swucb/tables/slopes.csv")
    assert {"slope", "ci95_low", "ci95_high", "theory_slope"} <= set(slopes.columns)
    variation = pd.read_csv(full_run / "results/swucb/tables/variation.csv")
    assert (variation["total_variation"] > variation["paper_bound"]).all()
    for name in ("swucb_fig1", "swucb_fig2", "swucb_switches"):
        for ext in ("pdf", "png"):
            assert (full_run / f"figures/swucb/{name}.{ext}").stat().st_size > 1000
    for t in ("regret", "slopes", "ratios", "variation"):
        assert (full_run / f"results/swucb/tables/{t}.md").read_text().startswith("|")
        assert "\\begin{tabular}" in (full_run / f"results/swucb/tables/{t}.tex").read_text()
    result = json.loads((full_run / "results/swucb/claims.json").read_text())
    assert result["study"] == "swucb" and len(result["claims"]) == 5
    assert all(c["verdict"] in VERDICTS and c["numbers"] for c in result["claims"])


def test_table_means_are_the_raw_runs_and_series_share_the_seed(full_run):
    regret = pd.read_csv(full_run / "results/swucb/tables/regret.csv")
    raw = full_run / "results/swucb/raw/swucb_fig2/T1600"
    bob = pd.concat(pd.read_csv(p) for p in sorted((raw / "BOB").glob("chunk*.csv")))
    row = regret[(regret["figure"] == "swucb_fig2") & (regret["series"] == "BOB") & (regret["T"] == 1600)]
    assert np.isclose(row["mean_regret"].iloc[0], bob["regret"].mean(), rtol=1e-9)
    seeds = {json.loads(p.read_text())["seed"] for p in raw.glob("*/chunk*.json")}
    assert len(seeds) == 1      # SW-UCB and BOB of a repetition draw the same noise matrix
