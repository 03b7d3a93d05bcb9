"""A user's algorithm that fails never touches the paper's files (issue 47, item 4), through the real
Snakemake, at full size (.test's job per algorithm) and in the preview (one job per study).

On the .test slice of P1-RAGE (soare_sto and malicious), a user's algorithm that raises, one that returns
too few columns and one that returns non-finite values:
- from empty results (`--keep-going`), every file of the paper's algorithms is byte-identical to a run
  without them (sidecars but for their timings), and none of theirs is written;
- added to a complete run, the failing run neither deletes nor rewrites a file of the paper's
  algorithms (same bytes, same modification time), and afterwards, without them, nothing is left to do;
- each one's one-line error reaches the terminal (Snakemake's output), not only its job's log.
Planted bug, in a modified copy of the workflow: the user's algorithm in the paper's job (the old preview
job of one study) makes Snakemake delete the paper's files, and the checks catch it.
"""
import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from linbandits import catalogue
from linbandits.study_config import read_config

REPO = Path(__file__).resolve().parents[1]
TEST_CONFIG = REPO / ".test" / "config" / "config.yaml"
FAILING = {"Raises": "ZeroDivisionError: division by zero", "NoColumns": "its runs lack the column(s) correct",
           "NotFinite": "column 'correct' holds values that are not finite numbers"}
TIMINGS = ("elapsed_seconds", "cpu_seconds")

USER_CODE = textwrap.dedent('''
    import numpy as np
    from linbandits.study import Algorithm, Records, Run


    class Raises(Algorithm):
        kinds = ("linear",)

        def run(self, seed, trial):
            return 1 / 0


    class NoColumns(Raises):
        def run(self, seed, trial):
            return Run(columns={"recommended": 0})


    class NotFinite(Raises):
        def run_many(self, seed, trials, progress=None):
            return Records(columns={"recommended": np.zeros(len(trials), int), "correct": np.full(len(trials), np.nan)})
''')


def write_config(workdir: Path, preview: bool, user_file: Path | None) -> Path:
    """.test's P1-RAGE slice, the other studies off; the failing algorithms in malicious when user_file."""
    config = yaml.safe_load(TEST_CONFIG.read_text())
    p1 = read_config(TEST_CONFIG)["studies"]["p1rage"]
    experiments = {k: None for k in p1["experiments"] if k not in ("soare_sto", "malicious")}
    figures = {k: None for k in p1["figures"] if k not in ("fig2a_soare_sto", "fig4_malicious")}
    config["studies"] = {"p1rage": {"experiments": experiments, "published": {"r6a": None}, "figures": figures, "switches": []},
                         **{s: {"enabled": False} for s in catalogue.studies() if s != "p1rage"}}
    config["preview"] = preview
    config["extra_algorithms"] = {"p1rage": {name: {"class": f"{user_file}:{name}", "experiments": ["malicious"]}
                                             for name in FAILING}} if user_file else {}
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return workdir


def paper_files(workdir: Path) -> dict:
    """Every raw file of the paper's algorithms: path -> (content, with the sidecars' timings left out)."""
    out = {}
    for path in sorted(workdir.rglob("raw/*/*/*/chunk*")):
        if path.parent.name in FAILING:
            continue
        data = path.read_bytes()
        if path.suffix == ".json":
            data = {k: v for k, v in json.loads(data).items() if k not in TIMINGS}
        out[str(path.relative_to(workdir))] = data
    return out


def stamps(workdir: Path) -> dict:
    return {p: os.stat(workdir / p).st_mtime_ns for p in paper_files(workdir)}


@pytest.fixture(scope="module")
def user_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("user") / "failing.py"
    path.write_text(USER_CODE)
    return path


@pytest.fixture(scope="module")
def complete_runs(tmp_path_factory, snakemake):
    """The slice without a user's algorithm, run to the end: preview (True) or not -> its directory."""
    made = {}

    def run(preview: bool) -> Path:
        if preview not in made:
            made[preview] = write_config(tmp_path_factory.mktemp("plain"), preview, None)
            snakemake(made[preview], "--cores", "2")
        return made[preview]

    return run


def assert_one_line_each(out):
    terminal = out.stdout + out.stderr
    for name, words in FAILING.items():
        lines = [line for line in terminal.splitlines() if line.startswith(f"error: user algorithm {name} ")]
        assert lines and words in lines[0], (name, terminal[-3000:])


@pytest.mark.parametrize("preview", [False, True], ids=["full", "preview"])
def test_from_empty_results_the_papers_files_are_those_of_a_run_without_it(preview, complete_runs, user_file,
                                                                            tmp_path, snakemake):
    plain = complete_runs(preview)
    workdir = write_config(tmp_path / "failing", preview, user_file)
    out = snakemake(workdir, "--cores", "2", "--keep-going", check=False)
    assert out.returncode != 0
    assert paper_files(workdir) == paper_files(plain) != {}
    assert not [p for p in workdir.rglob("raw/*/*/*/chunk*.csv") if p.parent.name in FAILING]
    assert_one_line_each(out)


def add_failing_algorithms(complete: Path, user_file: Path, copy: Path, snakemake, **run):
    shutil.copytree(complete, copy, symlinks=True)
    before, times = paper_files(copy), stamps(copy)
    write_config(copy, yaml.safe_load((complete / "config" / "config.yaml").read_text())["preview"], user_file)
    out = snakemake(copy, "--cores", "2", check=False, **run)
    return out, before, times


@pytest.mark.parametrize("preview", [False, True], ids=["full", "preview"])
def test_added_to_a_complete_run_it_deletes_and_rewrites_nothing(preview, complete_runs, user_file, tmp_path,
                                                                snakemake, planned_jobs):
    out, before, times = add_failing_algorithms(complete_runs(preview), user_file, tmp_path / "added", snakemake)
    assert out.returncode != 0
    assert paper_files(tmp_path / "added") == before and stamps(tmp_path / "added") == times
    # without --keep-going the first failure stops the run: at least its line
    assert any(line.startswith("error: user algorithm ") for line in (out.stdout + out.stderr).splitlines())
    write_config(tmp_path / "added", preview, None)          # the user's algorithms gone: nothing to redo
    jobs = planned_jobs(tmp_path / "added")
    assert not any(rule.startswith(("simulate", "instances", "runs")) for rule in jobs), jobs


def test_planted_user_algorithm_in_the_papers_job_deletes_their_files_and_is_caught(complete_runs, user_file,
                                                                                    tmp_path, snakemake):
    """A copy of the workflow whose jobs put a user's algorithm in the paper's job (the preview's one job
    per study, as it was): the failing run deletes or rewrites the paper's files, and the check sees it."""
    plain = complete_runs(True)
    copy = tmp_path / "repo"
    for part in ("src", "workflow"):
        shutil.copytree(REPO / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    jobs_py = copy / "src" / "linbandits" / "jobs.py"
    text = jobs_py.read_text()
    assert "users = [a for a in exp.algorithms if user_algorithms.is_user_algorithm(a)]" in text
    jobs_py.write_text(text.replace("users = [a for a in exp.algorithms if user_algorithms.is_user_algorithm(a)]",
                                    "users = []"))
    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    out, before, times = add_failing_algorithms(plain, user_file, tmp_path / "added", snakemake,
                                                snakefile=copy / "workflow" / "Snakefile", env=env)
    assert out.returncode != 0
    assert paper_files(tmp_path / "added") != before
