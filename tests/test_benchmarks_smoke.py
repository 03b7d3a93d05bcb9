"""Every benchmark script (benchmarks/bench_*.py) runs on a tiny case, so none can rot silently
(issue 35: bench_p1rage.py read an experiment field that no longer existed, bench_r6a_parse.py
imported a module that had moved). Each case is the script's own command line with small numbers
and the .test config; it passes when the script exits 0 and prints the line its last section
prints. The numbers a tiny case prints mean nothing: only that the script runs is checked."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"
TEST_CONFIG = str(REPO / ".test" / "config" / "config.yaml")

# case -> (script, arguments, a text of the script's last section, which a run that stopped early lacks)
CASES = {
    "environment": ("bench_environment.py", ["--steps", "300", "--repeats", "1", "--million", "1000"],
                    "one step_many of"),
    "lingape": ("bench_lingape.py", ["--pulls", "5000", "--plain-pulls", "100"], "XY-oracle"),
    "oam": ("bench_oam.py", ["--runs", "1", "--oracle-rounds", "50", "--configfile", TEST_CONFIG,
                             "--circle-arms", "8"], "scenario one (k=1)"),
    "opkb": ("bench_opkb.py", ["--configfile", TEST_CONFIG], "default target, simulation only"),
    "opkb_baseline": ("bench_opkb.py", ["--configfile", TEST_CONFIG, "--baseline", str(REPO / "src"), "--seeds", "1",
                                        "--experiments", "opkb_cosine"], "fixed cost of a simulate job"),
    "p1rage": ("bench_p1rage.py", ["--trials", "3", "--oracle-trials", "1", "--grid-sample", "2", "--memory-trials",
                                   "2", "--horizon", "300", "--yahoo-horizon", "300", "--configfile", TEST_CONFIG],
               "Peak memory of one simulate process"),
    "r6a_parse": ("bench_r6a_parse.py", ["--lines", "2000"], "budget not judged"),
    "swucb": ("bench_swucb.py", ["--T", "2000", "--runs", "1", "--plain-rounds", "200", "--configfile", TEST_CONFIG],
              "| **total** |"),
}
# bench_pipeline.py runs Snakemake: its case is test_pipeline_benchmark_runs_and_reports_a_kept_run.
PIPELINE = "bench_pipeline.py"


def run_script(script: Path, args, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, str(script), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=1800)


def check_ran(out: subprocess.CompletedProcess, last_section: str) -> None:
    """The script exited 0 and printed its last section's text; else an AssertionError with its output."""
    tail = f"\nstdout:\n{out.stdout[-2000:]}\nstderr:\n{out.stderr[-3000:]}"
    assert out.returncode == 0, f"exit {out.returncode}{tail}"
    assert last_section in out.stdout, f"{last_section!r} not printed{tail}"


def test_every_benchmark_script_has_a_tiny_case():
    scripts = {p.name for p in BENCHMARKS.glob("bench_*.py")}
    assert scripts == {script for script, _, _ in CASES.values()} | {PIPELINE}


@pytest.mark.parametrize("case", sorted(CASES))
def test_benchmark_runs_on_a_tiny_case(case):
    script, args, last_section = CASES[case]
    check_ran(run_script(BENCHMARKS / script, args), last_section)


def test_pipeline_benchmark_runs_and_reports_a_kept_run(tmp_path):
    """One runs file of the .test config through the real Snakemake (one core), cold (an empty numba cache:
    its jobs must compile OAM's kernels, and the compile table must say so), the run kept; then
    --report-only accounts for the kept run without running anything."""
    work = tmp_path / "run"
    out = run_script(BENCHMARKS / PIPELINE, ["--configfile", TEST_CONFIG, "--cores", "1", "--workdir", str(work),
                                             "--cold", "--target", "results/oam/runs/oam_fixed_u01.npz"])
    check_ran(out, "oam: algorithm time")
    assert "whole run:" in out.stdout and "2 simulate jobs" in out.stdout
    assert "numba compiled nothing" not in out.stdout and "| linbandits.studies.oam." in out.stdout
    check_ran(run_script(BENCHMARKS / PIPELINE, ["--report-only", str(work)]), "oam: algorithm time")


# ------------------------------------------------------------------ the check catches what it is for

def test_a_script_that_crashes_fails_the_check(tmp_path):
    script = tmp_path / "bench_crash.py"
    script.write_text("print('| **total** |')\nraise RuntimeError('planted')\n")
    with pytest.raises(AssertionError, match="planted"):
        check_ran(run_script(script, []), "| **total** |")


def test_a_script_that_stops_before_its_last_section_fails_the_check(tmp_path):
    script = tmp_path / "bench_early.py"
    script.write_text("print('## the first section')\n")
    with pytest.raises(AssertionError, match="not printed"):
        check_ran(run_script(script, []), "| **total** |")


def test_the_p1rage_case_catches_the_rot_of_issue_35(tmp_path):
    """bench_p1rage.py as it was (reading exp.ablation_of) fails its case: the script is copied beside
    links to the repository's folders (it finds them from its own path) with the old line put back."""
    for folder in ("src", "tests", "config", ".test"):
        (tmp_path / folder).symlink_to(REPO / folder)
    (tmp_path / "benchmarks").mkdir()
    text = (BENCHMARKS / "bench_p1rage.py").read_text()
    assert "if exp.switch_of:" in text
    old = tmp_path / "benchmarks" / "bench_p1rage.py"
    old.write_text(text.replace("if exp.switch_of:", "if exp.ablation_of:"))
    script, args, last_section = CASES["p1rage"]
    with pytest.raises(AssertionError, match="ablation_of"):
        check_ran(run_script(old, [*args, "--skip", "head", "memory"], cwd=tmp_path), last_section)
