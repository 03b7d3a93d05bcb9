"""The P1-RAGE study through the real pipeline (.test configuration)."""
import os
import shutil
import signal
import subprocess
import sys
import time

import json

import pandas as pd

from linbandits import experiments, products
from linbandits.study_config import read_config

NINE_COLUMNS = ["experiment", "algorithm", "x", "n_trials", "n_errors", "error_prob",
                "ci95_low", "ci95_high", "min_gap"]
REPO = __import__("pathlib").Path(__file__).resolve().parents[2]


def config_of(workdir):
    return read_config(workdir / "config" / "config.yaml")   # with the studies' defaults


def test_every_table_has_the_schema(full_run):
    config = config_of(full_run)
    for name, exp in experiments.study_experiments(config, "p1rage").items():
        csv = full_run / f"results/p1rage/tables/{name}.csv"
        table = pd.read_csv(csv)       # switch runs too: config robustness: true (the default)
        assert list(table.columns[:9]) == NINE_COLUMNS
        assert set(table["algorithm"]) == set(exp.algorithms)
        assert (table["n_trials"] == exp.trials).all()
        assert len(table) == len(exp.algorithms) * len(exp.setting_ids())
        assert ((table["ci95_low"] <= table["error_prob"]) & (table["error_prob"] <= table["ci95_high"])).all()
        if exp.sweep is None:
            assert table["x"].isna().all()
        else:
            assert sorted(set(table["x"])) == sorted(float(v) for v in exp.values)
        assert (full_run / f"results/p1rage/tables/{name}.md").read_text().startswith("|")
        assert "\\begin{tabular}" in (full_run / f"results/p1rage/tables/{name}.tex").read_text()
    assert "synthetic" in (full_run / "data/processed/r6a_qc.json").read_text().lower()
    assert (full_run / "figures/p1rage/thm1_gbai_bound.pdf").exists()
    # every table is the runs file's: the runs files hold each (setting, algorithm)'s runs 0..n-1
    runs = full_run / "results/p1rage/runs/soare_sto.json"
    assert runs.exists() and (full_run / "results/p1rage/runs/soare_sto.npz").exists()


def test_tables_identical_across_cores_chunk_sizes_and_bundling(full_run, tmp_path, make_workdir, snakemake):
    """--cores 1, chunk size 7 and every algorithm of an experiment in one job (a preview's layout):
    the same tables, byte for byte, as the full run's --cores 2, chunk size 20, one job per algorithm."""
    other = make_workdir(tmp_path / "other", chunk_size=7, job_size="run_range")
    targets = [f"results/p1rage/tables/{n}.csv" for n in ("soare_sto", "multi_osci", "malicious")]
    snakemake(other, "--cores", "1", *targets)
    chunks = list((other / "results/p1rage/raw/soare_sto/T210/P1-RAGE").glob("chunk*.csv"))
    assert len(chunks) == 5  # really re-chunked
    assert len(list((other / "logs/p1rage/simulate/soare_sto/all").glob("chunk*.log"))) == 5  # really bundled
    assert (other / "logs/p1rage/instances/p1rage.log").exists()   # one instance job for the study
    for t in targets:
        assert (other / t).read_bytes() == (full_run / t).read_bytes(), t


def test_single_figure_runs_only_what_it_needs(tmp_path, make_workdir, planned_jobs):
    jobs = planned_jobs(make_workdir(tmp_path / "fresh"), "figures/p1rage/fig4_malicious.pdf")
    assert jobs == {"p1rage_fig4_malicious": 1, "runs_malicious": 1, "simulate_malicious": 6,
                    "instances_malicious": 1, "study_config": 1}


def test_nothing_to_do_after_a_complete_run_and_only_missing_work_is_redone(full_run, tmp_path, planned_jobs, snakemake):
    assert planned_jobs(full_run) == {}
    work = tmp_path / "run"                     # files are deleted and remade: in a copy of the shared run
    shutil.copytree(full_run, work, symlinks=True)
    victim = next((work / "results/p1rage/raw/multi_sto/single/Peace").glob("chunk*.csv"))
    table = work / "results/p1rage/tables/multi_sto.csv"
    before = table.read_bytes()
    victim.unlink()
    # Snakemake rebuilds a missing intermediate only when something
    # downstream needs it: remove the runs file and the table too, as an
    # interrupted run would have left them missing.
    (work / "results/p1rage/runs/multi_sto.npz").unlink()
    table.unlink()
    jobs = planned_jobs(work)
    assert jobs["simulate_multi_sto"] == 1
    assert jobs["runs_multi_sto"] == 1 and jobs["p1rage_multi_sto"] == 1
    snakemake(work, "--cores", "2")
    assert table.read_bytes() == before


def test_killed_run_resumes_to_the_same_tables(full_run, tmp_path, make_workdir, snakemake):
    work = make_workdir(tmp_path / "killed")
    target = "results/p1rage/tables/multi_period.csv"
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "workflow" / "Snakefile"), "--directory", str(work),
           "--cores", "2", target]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    raw = work / "results/p1rage/raw/multi_period"
    deadline = time.time() + 300
    while time.time() < deadline and len(list(raw.rglob("chunk*.csv"))) < 3:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)  # no chance to clean up: the worst case
    proc.wait()
    done_before = len(list(raw.rglob("chunk*.csv")))
    assert 3 <= done_before < 24, "the kill should land mid-run"
    assert not (work / target).exists()
    # A hard kill leaves Snakemake's lock behind; --unlock is the documented step.
    snakemake(work, "--unlock")
    snakemake(work, "--cores", "2", "--rerun-incomplete", target)
    assert (work / target).read_bytes() == (full_run / target).read_bytes()


def test_failing_job_is_reported(tmp_path, make_workdir, snakemake):
    work = make_workdir(tmp_path / "failing", fail_rule_for_testing=True)
    out = snakemake(work, "--cores", "1", "results/p1rage/tables/malicious.csv", check=False)
    assert out.returncode != 0
    assert "simulate" in out.stdout + out.stderr
    assert not list((work / "results").rglob("chunk*.csv"))


def test_default_target_builds_the_switch_runs_and_the_claims_under_them(full_run):
    """The switch runs (the rows of the study's switches table, the former ablations), every product
    that reads them (their tables, the switch figures) and the claims judged under them are built by
    the default target (`robustness: true`); no ablations file is written."""
    config = config_of(full_run)
    switches = {n: e for n, e in experiments.study_experiments(config, "p1rage").items() if e.switch_of}
    assert set(switches) == {"soare_sto__threshold_one", "malicious__no_zero_round", "yahoo_repeat__shared_pca"}
    ctx = products.Context(config, "p1rage")
    switch_files = {f for n in switches for f in ctx.runs_files(n)}
    reading = [f for p in products.study_products(config, "p1rage") if switch_files & set(p.inputs)
               for f in p.outputs]
    assert reading and [f for f in reading if not (full_run / f).exists()] == []
    for name, exp in switches.items():
        table = pd.read_csv(full_run / f"results/p1rage/tables/{name}.csv")
        assert list(table.columns[:9]) == NINE_COLUMNS
        assert set(table["algorithm"]) == set(exp.algorithms)
    assert (full_run / "figures/p1rage/fig_switch_zero_round.pdf").stat().st_size > 1000
    claims = json.loads((full_run / "results/p1rage/claims.json").read_text())["claims"]
    runs = {(r["choice"], tuple(r["experiments"])) for c in claims for r in c["robustness"]["runs"]}
    assert ("zero_round", ("malicious__no_zero_round",)) in runs
    assert ("rage_threshold", ("soare_sto__threshold_one",)) in runs
    assert ("pca", ("yahoo_repeat__shared_pca",)) in runs
    assert not (full_run / "results/p1rage/ablations.md").exists()


def test_published_beside_reproduced_is_written(full_run):
    comparison = pd.read_csv(full_run / "results/p1rage/published_vs_reproduced.csv")
    assert len(comparison) == 324  # every published cell, compared or not
    yahoo = comparison[comparison["experiment"] == "yahoo_repeat"]
    # The tiny config sweeps other L values: Yahoo! rows are not run, never compared on the stand-in.
    assert not yahoo["verdict"].isin(["consistent", "differs"]).any()
    # Each compared cell carries its series' Stouffer test (the tiny config shares T = 10 with Fig. 2a).
    assert {"series_z", "series_bound", "series_verdict"} <= set(comparison.columns)
    assert comparison["series_verdict"].isin(["within", "beyond"]).any()
    claims = (full_run / "results/p1rage/claims.md").read_text()
    assert "synthetic cells consistent" in claims
    assert "series beyond the Bonferroni bound" in claims
    assert (full_run / "results/p1rage/published_vs_reproduced.md").read_text().startswith("# Published")
