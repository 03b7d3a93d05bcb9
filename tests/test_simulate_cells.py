"""The pipeline's jobs: `instance-cells` and `simulate-cells` write, for every cell, exactly the
files that `instance` and `simulate` write for that cell alone (issue 15: one job per experiment and
algorithm pays start-up once; no number may change).

Cells that share an arm matrix share one DesignCache inside a `simulate-cells` job; a planted
sharing bug (the cache keyed without the arms) must make the comparison fail.
"""
import json

import numpy as np
import pytest

from linbandits.studies.p1rage import designs
from linbandits.cli import main


def npz_arrays(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def write_instances(tmp_path, family, common, cells):
    """The cells' instance files, once through instance-cells and once one by one through instance."""
    args = ["instance-cells", "--instance", family, *[a for kv in common for a in ("--setting", kv)]]
    for i, own in enumerate(cells):
        args += ["--cell", own, str(tmp_path / f"cells{i}.npz"), str(tmp_path / f"cells{i}.json")]
    assert main(args) == 0
    for i, own in enumerate(cells):
        settings = ",".join(filter(None, [*common, own]))
        single = ["instance", "--instance", family, "--out", str(tmp_path / f"one{i}.npz"),
                  "--summary", str(tmp_path / f"one{i}.json")] + (["--setting", settings] if settings else [])
        assert main(single) == 0
    return [tmp_path / f"cells{i}.npz" for i in range(len(cells))], [tmp_path / f"one{i}.npz" for i in range(len(cells))]


def run_both(tmp_path, algorithm, instance_files, seeds, trials, first=0, options=(), curves=False):
    """CSV bytes (and curves) of every cell: from one simulate-cells call, and from one simulate call each."""
    opts = [a for kv in options for a in ("--option", kv)]
    args = ["simulate-cells", "--algorithm", algorithm, "--trials", str(trials), "--first-trial", str(first), *opts]
    args += ["--curves"] if curves else []
    for i, (f, s) in enumerate(zip(instance_files, seeds)):
        args += ["--cell", str(f), str(s), str(tmp_path / f"job_{algorithm}_{i}.csv")]
    assert main(args) == 0
    together, alone = [], []
    for i, (f, s) in enumerate(zip(instance_files, seeds)):
        out = tmp_path / f"alone_{algorithm}_{i}.csv"
        single = ["simulate", "--instance-file", str(f), "--algorithm", algorithm, "--trials", str(trials),
                  "--first-trial", str(first), "--seed", str(s), "--out", str(out), *opts]
        single += ["--curves", str(out.with_suffix(".curves.npz"))] if curves else []
        assert main(single) == 0
        job = tmp_path / f"job_{algorithm}_{i}.csv"
        together.append(job.read_bytes())
        alone.append(out.read_bytes())
        assert json.loads(job.with_suffix(".json").read_text())["seed"] == s
        if curves:
            a, b = npz_arrays(job.with_suffix(".curves.npz")), npz_arrays(out.with_suffix(".curves.npz"))
            assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    return together, alone


def test_instance_cells_write_what_instance_writes(tmp_path):
    cells, ones = write_instances(tmp_path, "soare_osci", ["L=200"], ["s=0", "s=2.5", "s=7"])
    for c, o in zip(cells, ones):
        a, b = npz_arrays(c), npz_arrays(o)
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
        assert c.with_suffix(".json").read_text() == o.with_suffix(".json").read_text()


# Soare's arms at three budgets (one arm matrix: the designs are shared in the job) and the malicious
# instance (other arms): every P1-RAGE-study algorithm that solves designs.
P1_ALGORITHMS = ["G-BAI", "P1-RAGE", "P1-Peace", "Peace", "Mixed-Peace", "OD-LinBAI"]


@pytest.fixture(scope="module")
def p1_instances(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("p1cells")
    soare, _ = write_instances(tmp, "soare_sto", [], ["T=60", "T=300", "T=1010"])
    (tmp / "malicious").mkdir()
    malicious, _ = write_instances(tmp / "malicious", "malicious", [], [""])
    return [soare[0], malicious[0], soare[1], soare[2]]


@pytest.mark.parametrize("algorithm", P1_ALGORITHMS)
def test_simulate_cells_equal_simulate_alone_p1rage(tmp_path, p1_instances, algorithm):
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
def test_simulate_cells_equal_simulate_alone_lingape(tmp_path, algorithm):
    files, _ = write_instances(tmp_path, "lingape_soare", [], ["d=2", "d=3"])
    together, alone = run_both(tmp_path, algorithm, files, [0, 0], trials=3)
    assert together == alone


def test_simulate_cells_equal_simulate_alone_with_curves(tmp_path):
    files, _ = write_instances(tmp_path, "opkb_env1", ["T=300"], ["seed=0", "seed=1"])
    together, alone = run_both(tmp_path, "ADA-OPKB", files, [5, 6], trials=1, curves=True)
    assert together == alone


def test_simulate_cells_bad_input_is_one_message(tmp_path, capsys):
    files, _ = write_instances(tmp_path, "soare_sto", [], ["T=60"])
    out = str(tmp_path / "x.csv")
    assert main(["simulate-cells", "--algorithm", "G-BAI", "--trials", "2", "--cell", str(files[0]), "seven", out]) == 2
    assert "seed 'seven' is not an integer" in capsys.readouterr().err
    assert main(["simulate-cells", "--algorithm", "G-BAI", "--trials", "2", "--cell", str(files[0]), "1", out,
                 "--cell", str(files[0]), "2", out]) == 2
    assert "same output file" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()


def test_a_batch_writes_what_its_commands_write_one_by_one(tmp_path, p1_instances):
    """`linbandits batch` (a preview's bundled simulate job) runs several algorithms' simulate-cells in
    one process: every file is byte-identical to the same command run on its own; a failing command
    stops the batch with its code, and the commands after it do not run."""
    import shlex

    def command(algorithm, folder):
        cells = " ".join(f"--cell {f} {s} {folder / f'{algorithm}_{i}.csv'}"
                         for i, (f, s) in enumerate(zip(p1_instances, [21, 22, 23, 24])))
        return f"simulate-cells --algorithm {algorithm} --trials 30 --first-trial 3 {cells}"

    (tmp_path / "batch").mkdir()
    (tmp_path / "one").mkdir()
    algorithms = ["Peace", "P1-RAGE", "OD-LinBAI"]
    assert main(["batch", *[command(a, tmp_path / "batch") for a in algorithms]]) == 0
    for a in algorithms:
        assert main(shlex.split(command(a, tmp_path / "one"))) == 0
    for a in algorithms:
        for i in range(len(p1_instances)):
            assert (tmp_path / "batch" / f"{a}_{i}.csv").read_bytes() == (tmp_path / "one" / f"{a}_{i}.csv").read_bytes()

    (tmp_path / "failed").mkdir()
    bad = command("G-BAI", tmp_path / "failed").replace("--trials 30", "--trials 0")
    assert main(["batch", bad, command("Peace", tmp_path / "failed")]) == 2
    assert not list((tmp_path / "failed").glob("Peace_*.csv"))
    assert main(["batch", "batch simulate-cells"]) == 2

    # --file: the same commands read from a plan, one per line (a preview's study job)
    (tmp_path / "plan").mkdir()
    plan = tmp_path / "plan.txt"
    plan.write_text("".join(command(a, tmp_path / "plan") + "\n\n" for a in algorithms))
    assert main(["batch", "--file", str(plan)]) == 0
    for a in algorithms:
        for i in range(len(p1_instances)):
            assert (tmp_path / "plan" / f"{a}_{i}.csv").read_bytes() == (tmp_path / "one" / f"{a}_{i}.csv").read_bytes()
    assert main(["batch", "--file", str(tmp_path / "no_plan.txt")]) == 2
    assert main(["batch"]) == 2


def designs_solved(tmp_path, instance_files, tag):
    args = ["simulate-cells", "--algorithm", "P1-Peace", "--trials", "20"]
    for i, f in enumerate(instance_files):
        args += ["--cell", str(f), "3", str(tmp_path / f"{tag}{i}.csv")]
    assert main(args) == 0
    return [json.loads((tmp_path / f"{tag}{i}.json").read_text())["designs_solved"] for i in range(len(instance_files))]


def test_the_job_context_of_the_algorithms_study_shares_designs(tmp_path, p1_instances, monkeypatch):
    """simulate-cells enters the study's Study.job_context (P1-RAGE: sharing_designs) around its cells:
    the second and third Soare cells (same arms) solve fewer designs than alone. Planted bug: the CLI
    ignores the hook (a null context); every cell then solves its designs again, and it is caught."""
    import contextlib

    from linbandits import cli

    soare = [p1_instances[0], p1_instances[2], p1_instances[3]]
    shared = designs_solved(tmp_path, soare, "shared")
    monkeypatch.setattr(cli, "job_context", lambda algorithm: contextlib.nullcontext())
    alone = designs_solved(tmp_path, soare, "alone")
    assert shared[0] == alone[0] and sum(shared[1:]) < sum(alone[1:])
