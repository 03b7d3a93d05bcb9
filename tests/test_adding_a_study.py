"""The study contract: a new paper is one folder (plus, where it has them, its tests, docs and benchmark).

The toy study under tests/toy_study/ is copied into a fresh copy of the whole repository, tests
included, as a developer following docs/studies.md would add it: its files must all lie in the
places a study may add (ALLOWED) and overwrite nothing. In that copy the study-generic tests
(catalogue, config, declarations) run with the toy among the studies, the real Snakemake plans it
in the default target of the .test configuration (which does not name it: a study's own defaults
enable it), and runs it end to end through the shared rules. The repository's files are listed
without git (tests/repo_files.py), so the test runs in an exported tree (a release tarball) too.
"""
import fnmatch
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from repo_files import repo_files

REPO = Path(__file__).resolve().parents[1]
TOY = REPO / "tests" / "toy_study"
# Where a study <s> may add files; nothing else changes (docs/studies.md, "Adding a study").
ALLOWED = ("src/linbandits/studies/{s}/*", "tests/{s}/*", "docs/{s}.md", "docs/protocols/{s}.md",
           "benchmarks/bench_{s}.py")
# The study-generic tests, run in the copy with the toy study added.
GENERIC_TESTS = ("tests/test_catalogue.py", "tests/test_schema_keys_are_read.py", "tests/test_study_config.py",
                 "tests/test_study_declarations.py", "tests/test_study_layout.py")


def allowed(rel: str, study: str) -> bool:
    return any(fnmatch.fnmatch(rel, pattern.format(s=study)) for pattern in ALLOWED)


def add_study(copy: Path) -> list[str]:
    """The toy's files copied into the repository copy; their paths, relative to it."""
    added = []
    for src in sorted(TOY.rglob("*")):
        rel = src.relative_to(TOY)
        if src.is_dir() or "__pycache__" in rel.parts:
            continue
        dest = copy / rel
        assert not dest.exists(), f"the toy study would overwrite {rel}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
        added.append(rel.as_posix())
    return added


def test_the_allowed_places_are_a_study_s_own():
    assert allowed("src/linbandits/studies/toy/config.yaml", "toy") and allowed("tests/toy/test_toy.py", "toy")
    assert allowed("docs/protocols/toy.md", "toy") and allowed("benchmarks/bench_toy.py", "toy")
    for shared in ("config/config.yaml", ".test/config/config.yaml", "workflow/report/toy_claims.rst",
                   "workflow/rules/toy.smk", "tests/test_catalogue.py", "src/linbandits/validation.py",
                   "src/linbandits/studies/oam/config.yaml", "README.md", "docs/studies.md"):
        assert not allowed(shared, "toy"), shared


def test_toy_study_runs_through_the_pipeline_without_touching_another_file(tmp_path, snakemake, planned_jobs):
    copy = tmp_path / "repo"
    files = repo_files(REPO)
    assert any(f.startswith("tests/") for f in files)       # the whole repository, its tests included
    for rel in files:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, copy / rel)
    added = add_study(copy)
    assert [f for f in added if not allowed(f, "toy")] == []
    assert "src/linbandits/studies/toy/config.yaml" in added and "src/linbandits/studies/toy/config.test.yaml" in added

    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    help_text = subprocess.run([sys.executable, "-m", "linbandits.cli", "simulate", "--help"], env=env,
                               capture_output=True, text=True, check=True).stdout
    assert "Toy-Uniform [toy" in help_text and "toy_two_arms [toy]" in help_text

    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *GENERIC_TESTS],
                           cwd=copy, env=env, capture_output=True, text=True)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert "toy" in subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
                                    "tests/test_catalogue.py"], cwd=copy, env=env, capture_output=True,
                                   text=True).stdout          # the generic tests did run on the toy

    work = tmp_path / "work"
    (work / "config").mkdir(parents=True)
    shutil.copy2(REPO / ".test/config/config.yaml", work / "config/config.yaml")   # it does not name the toy
    snakefile = copy / "workflow" / "Snakefile"
    planned = planned_jobs(work, snakefile=snakefile, env=env)      # in the default target
    assert {"toy_accuracy", "toy_accuracy_bars", "toy_claims", "runs_toy_accuracy",
            "simulate_toy_accuracy"} <= set(planned)
    assert {"p1rage_claims", "oam_claims"} <= set(planned)          # beside the five studies
    snakemake(work, "--cores", "1", "toy", snakefile=snakefile, env=env)
    table = (work / "results/toy/tables/accuracy.csv").read_text().splitlines()
    assert table[0] == "algorithm,n_runs,accuracy" and table[1].startswith("Toy-Uniform,25,")   # its tiny section
    assert (work / "figures/toy/accuracy_bars.pdf").stat().st_size and (work / "figures/toy/accuracy_bars.png").exists()
    claims = json.loads((work / "results/toy/claims.json").read_text())
    assert claims["study"] == "toy" and claims["claims"][0]["verdict"] == "holds"
    assert len(list((work / "results/toy/raw/toy_accuracy/single/Toy-Uniform").glob("chunk*.csv"))) == 2
    assert not (work / "results/p1rage").exists()   # the study target builds this study only
