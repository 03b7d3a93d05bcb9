"""linbandits.cells: a simulate job's plan writes, for every cell, exactly the files that `linbandits
simulate` writes for that cell alone (issue 15: a job pays start-up once for many cells; no number may
change), whatever the job holds: one algorithm's cells or several algorithms' (job_size).

Cells that share an arm matrix share one DesignCache inside a task of a job (the study's job_context);
a planted sharing bug (the cache keyed without the arms) and a planted runner that ignores the hook
must make the checks fail. A bad plan stops the job before its first cell runs.
"""
import json

import numpy as np
import pytest

from linbandits import cells, jobs
from linbandits.cli import main
from linbandits.studies.p1rage import designs


def npz_arrays(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def write_instances(tmp_path, family, common, settings):
    """One instance file per setting (`linbandits instance`), as an instance job writes them."""
    files = []
    for i, own in enumerate(settings):
        joined = ",".join(filter(None, [*common, own]))
        args = ["instance", "--instance", family, "--out", str(tmp_path / f"inst{i}.npz"),
                "--summary", str(tmp_path / f"inst{i}.json")] + (["--setting", joined] if joined else [])
        assert main(args) == 0
        files.append(tmp_path / f"inst{i}.npz")
    return files


def task(algorithm, instance_files, seeds, outs, trials, first=0, options=None, curves=False):
    return {"algorithm": algorithm, "options": dict(options or {}), "first_trial": first, "trials": trials,
            "curves": curves, "cells": [{"instance": str(f), "seed": s, "out": str(o)}
                                        for f, s, o in zip(instance_files, seeds, outs)]}


def run_plan(tmp_path, tasks, name="plan.json") -> int:
    """A simulate job's plan through the CLI, as the workflow runs it (`linbandits run-job PLAN`)."""
    path = jobs.write_plan(str(tmp_path / name), {"runner": jobs.SIMULATE, "tasks": tasks})
    return main(["run-job", path])


def run_both(tmp_path, algorithm, instance_files, seeds, trials, first=0, options=None, curves=False):
    """CSV bytes (and curves) of every cell: from one job's plan, and from one `simulate` each."""
    outs = [tmp_path / f"job_{algorithm}_{i}.csv" for i in range(len(instance_files))]
    assert run_plan(tmp_path, [task(algorithm, instance_files, seeds, outs, trials, first, options, curves)],
                    f"plan_{algorithm}.json") == 0
    opts = [a for k, v in (options or {}).items() for a in ("--option", f"{k}={v}")]
    together, alone = [], []
    for i, (f, s) in enumerate(zip(instance_files, seeds)):
        out = tmp_path / f"alone_{algorithm}_{i}.csv"
        single = ["simulate", "--instance-file", str(f), "--algorithm", algorithm, "--trials", str(trials),
                  "--first-trial", str(first), "--seed", str(s), "--out", str(out), *opts]
        single += ["--curves", str(out.with_suffix(".curves.npz"))] if curves else []
        assert main(single) == 0
        together.append(outs[i].read_bytes())
        alone.append(out.read_bytes())
        assert json.loads(outs[i].with_suffix(".json").read_text())["seed"] == s
        if curves:
            a, b = npz_arrays(outs[i].with_suffix(".curves.npz")), npz_arrays(out.with_suffix(".curves.npz"))
            assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return together, alone


# Soare's arms at three budgets (one arm matrix: the designs are shared in the job) and the malicious
# instance (other arms): every P1-RAGE-study algorithm that solves designs.
P1_ALGORITHMS = ["G-BAI", "P1-RAGE", "P1-Peace", "Peace", "Mixed-Peace", "OD-LinBAI"]


@pytest.fixture(scope="module")
def p1_instances(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("p1cells")
    soare = write_instances(tmp, "soare_sto", [], ["T=60", "T=300", "T=1010"])
    (tmp / "malicious").mkdir()
    malicious = write_instances(tmp / "malicious", "malicious", [], [""])
    return [soare[0], malicious[0], soare[1], soare[2]]


@pytest.mark.parametrize("algorithm", P1_ALGORITHMS)
def test_a_plan_writes_what_simulate_alone_writes_p1rage(tmp_path, p1_instances, algorithm):
    together, alone = run_both(tmp_path, algorithm, p1_instances, [11, 12, 13, 14], trials=40, first=5)
    assert together == alone


def test_planted_shared_cache_without_the_arms_is_caught(tmp_path, p1_instances, monkeypatch):
    """Planted bug: one DesignCache for every arm matrix of the job. Soare's designs then serve the
    malicious instance (listed second), and its runs change."""
    real = designs.shared_cache

    def keyed_without_arms(X, solver="frank_wolfe", iterations=designs.FW_ITERATIONS):
        if designs._SHARED is None:
            return real(X, solver, iterations)
        cache = designs._SHARED.setdefault(("any arms", solver, iterations), designs.DesignCache(X, solver, iterations))
        return cache

    from linbandits.studies.p1rage.algorithms import base

    monkeypatch.setattr(base, "shared_cache", keyed_without_arms)
    together, alone = run_both(tmp_path, "P1-RAGE", p1_instances, [11, 12, 13, 14], trials=40)
    assert together != alone


@pytest.mark.parametrize("algorithm", ["LinGapE", "XY-static"])
def test_a_plan_writes_what_simulate_alone_writes_lingape(tmp_path, algorithm):
    files = write_instances(tmp_path, "lingape_soare", [], ["d=2", "d=3"])
    together, alone = run_both(tmp_path, algorithm, files, [0, 0], trials=3)
    assert together == alone


def test_a_plan_writes_what_simulate_alone_writes_with_curves_and_options(tmp_path):
    files = write_instances(tmp_path, "opkb_env1", ["T=300"], ["seed=0", "seed=1"])
    together, alone = run_both(tmp_path, "SW-GPUCB", files, [5, 6], trials=1, curves=True, options={"window": "50"})
    assert together == alone
    (tmp_path / "default").mkdir()
    default, _ = run_both(tmp_path / "default", "SW-GPUCB", files, [5, 6], trials=1, curves=True)
    assert default != together     # the option reached the algorithm


def test_several_algorithms_in_one_job_write_what_each_writes_alone(tmp_path, p1_instances):
    """A job of several tasks (job_size run_range or study): every file byte-identical to its own job's."""
    algorithms = ["Peace", "P1-RAGE", "OD-LinBAI"]
    (tmp_path / "bundled").mkdir()
    (tmp_path / "one").mkdir()

    def outs(folder, algorithm):
        return [folder / f"{algorithm}_{i}.csv" for i in range(len(p1_instances))]

    seeds = [21, 22, 23, 24]
    assert run_plan(tmp_path, [task(a, p1_instances, seeds, outs(tmp_path / "bundled", a), 30, 3)
                               for a in algorithms]) == 0
    for a in algorithms:
        assert run_plan(tmp_path, [task(a, p1_instances, seeds, outs(tmp_path / "one", a), 30, 3)], f"{a}.json") == 0
        bundled, alone = outs(tmp_path / "bundled", a), outs(tmp_path / "one", a)
        assert [f.read_bytes() for f in bundled] == [f.read_bytes() for f in alone]


def test_a_bad_plan_stops_the_job_before_its_first_cell(tmp_path, p1_instances, capsys):
    """A bad seed, two cells writing one file, a run range without runs, an output that cannot be
    written: one line, and no cell written, however late in the plan the bad one comes."""
    good = task("G-BAI", p1_instances[:1], [1], [tmp_path / "first.csv"], 2)
    bad = [task("Peace", p1_instances[:1], ["seven"], [tmp_path / "x.csv"], 2),
           task("Peace", p1_instances[:2], [1, 2], [tmp_path / "x.csv"] * 2, 2),
           task("Peace", p1_instances[:1], [1], [tmp_path / "x.csv"], 0),
           task("Peace", p1_instances[:1], [1], ["/proc/version/x.csv"], 2)]
    words = ["seed must be an integer", "same output file", "--trials must be at least 1", "cannot write"]
    for plan, expected in zip(bad, words):
        assert run_plan(tmp_path, [good, plan]) == 2
        err = capsys.readouterr().err
        assert expected in err and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "first.csv").exists()


def test_a_missing_or_broken_plan_file_is_one_line(tmp_path, capsys):
    assert main(["run-job", str(tmp_path / "nothing.json")]) == 2
    assert "no plan file" in capsys.readouterr().err
    (tmp_path / "broken.json").write_text("{not json")
    assert main(["run-job", str(tmp_path / "broken.json")]) == 2
    assert "is not a job's plan; delete it" in capsys.readouterr().err


def designs_solved(tmp_path, instance_files, tag):
    outs = [tmp_path / f"{tag}{i}.csv" for i in range(len(instance_files))]
    assert run_plan(tmp_path, [task("P1-Peace", instance_files, [3] * len(outs), outs, 20)], f"{tag}.json") == 0
    return [json.loads(out.with_suffix(".json").read_text())["designs_solved"] for out in outs]


def test_the_job_context_of_the_algorithms_study_shares_designs(tmp_path, p1_instances, monkeypatch):
    """A task runs inside the study's Study.job_context (P1-RAGE: sharing_designs): the second and third
    Soare cells (same arms) solve fewer designs than alone. Planted bug: the runner ignores the hook (a
    null context); every cell then solves its designs again, and it is caught."""
    import contextlib

    soare = [p1_instances[0], p1_instances[2], p1_instances[3]]
    shared = designs_solved(tmp_path, soare, "shared")
    monkeypatch.setattr(cells, "job_context", lambda algorithm: contextlib.nullcontext())
    alone = designs_solved(tmp_path, soare, "alone")
    assert shared[0] == alone[0] and sum(shared[1:]) < sum(alone[1:])
