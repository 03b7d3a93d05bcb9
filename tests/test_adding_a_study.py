"""The study contract: a new study is its own folder plus a config section.

The toy study under tests/toy_study/ is copied into a fresh copy of the
repository (as a developer following docs/studies.md would add it); the test
checks that none of its files existed before (it touches no other study's
file, nor any shared file), that the catalogue and the CLI find it, and that
the real Snakemake runs it end to end through the shared rules. The repository's files are listed
without git (tests/repo_files.py), so the test runs in an exported tree (a release tarball) too.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from repo_files import repo_files as all_repo_files

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "tests" / "toy_study"


def repo_files():
    """The repository as a developer has it (what git lists, outputs left out), without the tests."""
    return [f for f in all_repo_files(REPO) if not f.startswith("tests/")]


def test_toy_study_runs_through_the_pipeline_without_touching_another_file(tmp_path, snakemake, planned_jobs):
    copy = tmp_path / "repo"
    for rel in repo_files():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, copy / rel)
    added = []
    for src in TOY.rglob("*"):
        rel = src.relative_to(TOY)
        if src.is_dir() or rel.name == "config_section.yaml" or "__pycache__" in rel.parts:
            continue
        dest = copy / rel
        assert not dest.exists(), f"the toy study would overwrite {rel}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
        added.append(str(rel))
    assert sorted(added) == ["src/linbandits/studies/toy/__init__.py", "src/linbandits/studies/toy/claims.yaml",
                             "src/linbandits/studies/toy/products.py", "src/linbandits/studies/toy/toy.py"]

    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    help_text = subprocess.run([sys.executable, "-m", "linbandits.cli", "simulate", "--help"], env=env,
                               capture_output=True, text=True, check=True).stdout
    assert "Toy-Uniform [toy" in help_text and "toy_two_arms [toy]" in help_text

    work = tmp_path / "work"
    (work / "config").mkdir(parents=True)
    config = yaml.safe_load((REPO / ".test/config/config.yaml").read_text())
    config["studies"].update(yaml.safe_load((TOY / "config_section.yaml").read_text()))
    (work / "config/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))

    snakefile = copy / "workflow" / "Snakefile"
    planned = planned_jobs(work, snakefile=snakefile, env=env)      # in the default target
    assert {"toy_accuracy", "toy_claims", "runs_toy_accuracy", "simulate_toy_accuracy"} <= set(planned)
    snakemake(work, "--cores", "2", "toy", snakefile=snakefile, env=env)
    table = (work / "results/toy/tables/accuracy.csv").read_text().splitlines()
    assert table[0] == "algorithm,n_runs,accuracy" and table[1].startswith("Toy-Uniform,25,")
    claims = json.loads((work / "results/toy/claims.json").read_text())
    assert claims["study"] == "toy" and claims["claims"][0]["verdict"] == "holds"
    assert len(list((work / "results/toy/raw/toy_accuracy/single/Toy-Uniform").glob("chunk*.csv"))) == 2
    assert not (work / "results/p1rage").exists()   # the study target builds this study only
