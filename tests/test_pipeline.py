"""The Snakemake pipeline end to end on the tiny .test configuration.

Real Snakemake, real jobs, in temporary working directories. One full run
is shared by the module; the other tests re-run parts of the DAG.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from linbandits import pipeline

REPO = Path(__file__).resolve().parents[1]
TEST_CONFIG = REPO / ".test" / "config" / "config.yaml"
NINE_COLUMNS = ["experiment", "algorithm", "x", "n_trials", "n_errors", "error_prob",
                "ci95_low", "ci95_high", "min_gap"]


def make_workdir(path: Path, **overrides) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load(TEST_CONFIG.read_text())
    config.update(overrides)
    (path / "config").mkdir(exist_ok=True)
    (path / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def snakemake(workdir: Path, *args, check=True, timeout=900):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(workdir),
           *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and out.returncode != 0:
        raise AssertionError(f"snakemake failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out


def planned_jobs(workdir: Path, *targets) -> dict:
    """Job counts per rule of a dry run."""
    out = snakemake(workdir, "-n", "--cores", "1", *targets)
    counts, in_table = {}, False
    for line in out.stdout.splitlines():
        if line.startswith("job ") and "count" in line:
            in_table = True
            continue
        if in_table:
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                if parts[0] == "total":
                    break
                counts[parts[0]] = int(parts[1])
    return counts


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    workdir = make_workdir(tmp_path_factory.mktemp("full"))
    snakemake(workdir, "--cores", "2")
    return workdir


def config_of(workdir):
    return yaml.safe_load((workdir / "config" / "config.yaml").read_text())


def test_every_target_exists_with_the_table_schema(full_run):
    config = config_of(full_run)
    for target in pipeline.all_targets(config):
        path = full_run / target
        assert path.exists() and path.stat().st_size > 0, target
    for name, exp in pipeline.experiments(config).items():
        if exp.ablation_of:
            assert not (full_run / f"results/tables/{name}.csv").exists()  # its own target
            continue
        table = pd.read_csv(full_run / f"results/tables/{name}.csv")
        assert list(table.columns[:9]) == NINE_COLUMNS
        assert set(table["algorithm"]) == set(exp.algorithms)
        assert (table["n_trials"] == exp.trials).all()
        assert len(table) == len(exp.algorithms) * len(exp.setting_ids())
        assert ((table["ci95_low"] <= table["error_prob"]) & (table["error_prob"] <= table["ci95_high"])).all()
        if exp.sweep is None:
            assert table["x"].isna().all()
        else:
            assert sorted(set(table["x"])) == sorted(float(v) for v in exp.values)
        assert (full_run / f"results/tables/{name}.md").read_text().startswith("|")
        assert "\\begin{tabular}" in (full_run / f"results/tables/{name}.tex").read_text()
    qc = json.loads((full_run / "data/processed/r6a_qc.json").read_text())
    assert "synthetic" in json.dumps(qc).lower()
    assert (full_run / "results/fidelity/claims.md").exists()
    logs = list((full_run / "logs" / "simulate").rglob("*.log"))
    assert logs and all("trials" in p.read_text() for p in logs)


def test_tables_identical_across_cores_and_chunk_sizes(full_run, tmp_path):
    other = make_workdir(tmp_path / "other", chunk_size=7)
    targets = ["results/tables/soare_sto.csv", "results/tables/multi_osci.csv", "results/tables/malicious.csv"]
    snakemake(other, "--cores", "1", *targets)
    assert list((other / "results/raw/soare_sto/T210/P1-RAGE").glob("chunk*.csv"))  # really re-chunked
    assert len(list((other / "results/raw/soare_sto/T210/P1-RAGE").glob("chunk*.csv"))) == 5
    for t in targets:
        assert (other / t).read_bytes() == (full_run / t).read_bytes(), t


def test_single_figure_runs_only_what_it_needs(tmp_path):
    fresh = make_workdir(tmp_path / "fresh")
    jobs = planned_jobs(fresh, "figures/fig4_malicious.pdf")
    assert jobs["figure_fig4_malicious"] == 1
    assert jobs["table"] == 1
    assert jobs["simulate"] == 6
    assert not any(rule.startswith("yahoo") for rule in jobs)


def test_nothing_to_do_after_a_complete_run_and_only_missing_work_is_redone(full_run):
    assert planned_jobs(full_run) == {}
    victim = next((full_run / "results/raw/multi_sto/single/Peace").glob("chunk*.csv"))
    before = (full_run / "results/tables/multi_sto.csv").read_bytes()
    victim.unlink()
    # Snakemake rebuilds a missing intermediate only when something
    # downstream needs it: remove the table too, as an interrupted run would
    # have left it missing.
    (full_run / "results/tables/multi_sto.csv").unlink()
    jobs = planned_jobs(full_run)
    assert jobs["simulate"] == 1
    assert jobs["table"] == 1
    snakemake(full_run, "--cores", "2")
    assert (full_run / "results/tables/multi_sto.csv").read_bytes() == before


def test_killed_run_resumes_to_the_same_tables(full_run, tmp_path):
    work = make_workdir(tmp_path / "killed")
    target = "results/tables/multi_period.csv"
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(work),
           "--cores", "2", target]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    raw = work / "results/raw/multi_period"
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


def test_config_typo_is_one_clear_message(tmp_path):
    work = make_workdir(tmp_path / "typo")
    out = snakemake(work, "-n", "--cores", "1", "--config", "chunk_sise=5", check=False)
    assert out.returncode != 0
    text = out.stdout + out.stderr
    assert "unknown key 'chunk_sise'" in text
    assert "chunk_size" in text  # names the allowed keys
    assert "Traceback" not in text
    out = snakemake(work, "-n", "--cores", "1", "--config", "chunk_size=many", check=False)
    assert out.returncode != 0
    assert "chunk_size" in out.stdout + out.stderr and "integer" in out.stdout + out.stderr


def test_failing_job_is_reported(tmp_path):
    work = make_workdir(tmp_path / "failing", fail_rule_for_testing=True)
    out = snakemake(work, "--cores", "1", "results/tables/malicious.csv", check=False)
    assert out.returncode != 0
    assert "simulate" in out.stdout + out.stderr
    assert not list((work / "results/raw").rglob("chunk*.csv"))


def test_report_contains_every_figure(full_run):
    snakemake(full_run, "--report", "report.html")
    html = (full_run / "report.html").read_text(errors="replace")
    for name in pipeline.figures(config_of(full_run)):
        assert name in html


def test_ablations_target(full_run):
    snakemake(full_run, "--cores", "2", "ablations")
    config = config_of(full_run)
    report = (full_run / "results/fidelity/ablations.md").read_text()
    for name, exp in pipeline.ablations(config).items():
        table = pd.read_csv(full_run / f"results/tables/{name}.csv")
        assert list(table.columns[:9]) == NINE_COLUMNS
        assert set(table["algorithm"]) == set(exp.algorithms)
        assert (full_run / f"figures/{name}.pdf").stat().st_size > 0
        assert f"`{name}`" in report
