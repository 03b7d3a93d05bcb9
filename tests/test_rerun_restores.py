"""After a failure is fixed, the same command restores every file a complete run has and redoes nothing
that was fine (issue 50), through the real Snakemake on a copy of the finished .test run.

A raw chunk of P1-RAGE cut to half its runs: the same command's collect job fails and names the chunk
in the terminal with what to do (Snakemake then deletes the job's runs files); after the chunk is
deleted, the same command remakes that chunk's simulate job, the runs files and what reads them, and
every file of the complete run is back, the runs files byte-identical. Planted: the workflow without
the runs files among the default target's inputs says "Nothing to be done" and leaves them missing.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from linbandits import experiments
from linbandits.study_config import read_config

REPO = Path(__file__).resolve().parents[1]
OUTPUT_DIRS = ("results", "figures")


def output_files(work: Path) -> dict[str, bytes]:
    return {p.relative_to(work).as_posix(): p.read_bytes()
            for d in OUTPUT_DIRS for p in sorted((work / d).rglob("*")) if p.is_file()}


def damaged_chunk(work: Path) -> Path:
    """A raw chunk of a P1-RAGE experiment of the default target, of several runs."""
    default = [n for n, e in experiments.experiments(read_config(work / "config" / "config.yaml")).items()
               if e.study == "p1rage" and e.opt_in is None]
    for name in default:
        for chunk in sorted((work / "results" / "p1rage" / "raw" / name).rglob("chunk*.csv")):
            if len(chunk.read_text().splitlines()) >= 5:
                return chunk
    raise AssertionError("no P1-RAGE chunk of several runs in the .test run")


def ran_rules(work: Path) -> list[str]:
    """The rules of the last run's jobs, from its log under .snakemake/log/ (the terminal shows no job
    blocks: linbandits.terminal)."""
    log = max((work / ".snakemake" / "log").glob("*.snakemake.log"), key=lambda p: p.stat().st_mtime_ns)
    return re.findall(r"^(?:local)?rule (\S+):", log.read_text(), flags=re.M)


def without_runs_targets(tmp_path: Path) -> Path:
    """The workflow whose runs files are not among the default target's inputs (before issue 50)."""
    copy = tmp_path / "workflow"
    shutil.copytree(REPO / "workflow", copy)
    runs = copy / "rules" / "runs.smk"
    text = runs.read_text()
    cut = text.index("\n    STUDY_TARGETS[")
    runs.write_text(text[:cut] + "\n")
    return copy / "Snakefile"


def test_a_truncated_chunk_is_named_and_the_same_command_restores_everything(full_run, tmp_path, snakemake):
    work = tmp_path / "run"
    shutil.copytree(full_run, work, symlinks=True)
    complete = output_files(work)
    chunk = damaged_chunk(work)
    rel = chunk.relative_to(work).as_posix()
    lines = chunk.read_text().splitlines()
    chunk.write_text("\n".join(lines[: 1 + (len(lines) - 1) // 2]) + "\n")   # half its runs

    failed = snakemake(work, "--cores", "2", check=False)
    assert failed.returncode != 0
    terminal = failed.stdout + failed.stderr
    named = [l for l in terminal.splitlines() if rel in l and "delete it" in l]
    assert named, terminal[-4000:]
    runs_dir = work / "results" / "p1rage" / "runs"
    missing = [f for f in complete if f.startswith("results/p1rage/runs/") and not (work / f).exists()]
    assert missing, "Snakemake kept the failed collect job's runs files"

    planted = tmp_path / "planted"
    shutil.copytree(work, planted, symlinks=True)
    for where in (work, planted):
        (where / rel).unlink()

    # mtime only: the copied workflow's template path differs, which Snakemake reads as a changed input set
    out = snakemake(planted, "--cores", "2", "--rerun-triggers", "mtime", snakefile=without_runs_targets(tmp_path))
    assert "Nothing to be done" in out.stdout + out.stderr, ran_rules(planted)
    assert not all((planted / f).exists() for f in missing), "the planted workflow restored the runs files"

    out = snakemake(work, "--cores", "2")
    restored = output_files(work)
    assert sorted(set(complete) - set(restored)) == []
    for f in complete:
        if f.startswith("results/p1rage/runs/") or f == rel:
            assert restored[f] == complete[f], f"{f} differs from the complete run's"
    rules = ran_rules(work)
    simulated = [r for r in rules if r.startswith("simulate")]
    assert len(simulated) == 1, rules                       # only the damaged chunk's job
    assert not any(r.startswith(("instances", "r6a")) for r in rules), rules
    assert runs_dir.is_dir()
