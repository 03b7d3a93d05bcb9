"""A cell's runs: one algorithm on one instance for one run range, written as a CSV with its sidecar.

`simulate_cell` is what `linbandits simulate` does by hand and what every simulate job does for each of
its cells; `run_plan` runs a simulate job's plan (linbandits.jobs): its tasks, each one algorithm with
its options and run range over its cells, every cell exactly as `simulate` computes it alone (run i
depends only on the cell's seed and i).
"""
from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

import numpy as np

from linbandits import __version__
from linbandits.user import algorithms as user_algorithms
from linbandits.atomic import check_writable, write_json_atomic, write_text_atomic
from linbandits.catalogue import make_algorithm, resolve, study_of_algorithm
from linbandits.errors import UserError, check_seed
from linbandits.npzfile import write_npz
from linbandits.problems import load_instance_file


def format_column(values) -> list[str]:
    """CSV cells: integers as integers, floats with every digit (repr), booleans as 0/1."""
    arr = np.asarray(values)
    if arr.dtype == bool or np.issubdtype(arr.dtype, np.integer):
        return [str(int(v)) for v in arr]
    return [repr(float(v)) for v in arr]


def check_run_range(trials: int, first_trial: int) -> None:
    if trials < 1:
        raise UserError(f"--trials must be at least 1, got {trials}")
    if first_trial < 0:
        raise UserError(f"--first-trial must be >= 0, got {first_trial}")
    if os.environ.get("LINBANDITS_FAIL_FOR_TESTING"):
        raise UserError("simulate failed on purpose (LINBANDITS_FAIL_FOR_TESTING is set)")


def simulate_cell(name: str, instance, options: dict, seed: int, first_trial: int, n_trials: int,
                  out: str, curves: str | None, provenance: dict) -> None:
    """Runs first_trial.. of one algorithm on one instance and writes the CSV, its sidecar and curves."""
    study = study_of_algorithm(name)
    algorithm = make_algorithm(name, instance, options)
    where = cell_label(out, instance)
    started, cpu_started = time.perf_counter(), time.process_time()
    last = [started]

    def progress(done, total):
        now = time.perf_counter()
        if now - last[0] > 10 or done == total:
            last[0] = now
            spent = now - started
            eta = "done" if done == total else f"ETA {spent / max(done, 1) * (total - done):.0f} s"
            print(f"[{name} | {where}] {done}/{total} trials, {spent:.1f} s, {eta}", file=sys.stderr, flush=True)

    trials = np.arange(first_trial, first_trial + n_trials, dtype=np.int64)
    if user_algorithms.is_user_algorithm(name):   # [user algorithms, issue 37] its failures are one line
        records = user_algorithms.simulate_checked(algorithm, seed, trials, progress, study.columns, where)
    else:
        records = algorithm.simulate(seed, trials, progress=progress)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    if curves and not records.curves:
        raise UserError(f"--curves: algorithm {name} records no per-round curves")
    out = Path(out)
    columns = {"trial": format_column(trials), **{k: format_column(v) for k, v in records.columns.items()}}
    lines = [",".join(columns)] + [",".join(row) for row in zip(*columns.values())]
    summary = instance.summary()
    sidecar = {
        "command": "simulate",
        "version": __version__,
        "study": study.name,
        "algorithm": name,
        "options": algorithm.options,
        **provenance,
        "instance_kind": instance.kind,
        "instance_summary": {k: v for k, v in summary.items() if k != "gaps"},
        "seed": seed,
        "first_trial": first_trial,
        "trials": n_trials,
        **records.info,
        "elapsed_seconds": round(elapsed, 3),
        "cpu_seconds": round(cpu, 3),
    }
    # The sidecar (and curves) are written first: the CSV's presence marks a complete result.
    write_json_atomic(out.with_suffix(".json"), sidecar)
    if curves:
        write_npz(curves, {"trial": trials, **{k: np.asarray(v) for k, v in records.curves.items()}})
    write_text_atomic(out, "\n".join(lines) + "\n")


def cell_label(out, instance) -> str:
    """What a progress line names: the experiment and setting of a pipeline cell, else the instance."""
    parts = Path(out).parts
    if len(parts) >= 5 and parts[-5] == "raw":      # .../raw/<experiment>/<setting>/<algorithm>/chunk<a>-<b>.csv
        return f"{parts[-4]}/{parts[-3]} {Path(out).stem}"
    return getattr(instance, "name", "") or str(out)


def check_cell_outputs(out, curves) -> None:
    """Refuse an output that cannot be written before the runs, not after them: the CSV, its sidecar
    and the curves file."""
    check_writable(out)
    for path in (Path(out).with_suffix(".json"), curves):
        if path:
            check_writable(path)


def curves_path(out: str) -> str:
    """chunk0-99.csv -> chunk0-99.curves.npz (the pipeline's name for a cell's curves)."""
    return str(Path(out).with_suffix(".curves.npz"))


def job_context(algorithm: str):
    """The context the algorithm's study enters once around all the cells of a task (its
    `Study.job_context`, e.g. P1-RAGE's design cache shared by the settings of one arm set);
    a null context for a study without one."""
    hook = study_of_algorithm(algorithm).job_context
    return resolve(hook)() if hook else contextlib.nullcontext()


def run_plan(plan: dict) -> int:
    """A simulate job: every task of its plan, in order. Before the first run, every user algorithm is
    made known to this process and every seed and output is checked, so a bad one stops the job before
    anything is computed."""
    tasks = plan["tasks"]
    for task in tasks:
        if "user_class" in task:    # [user algorithms, issue 37] the plan names the user's class
            user_algorithms.register(task["algorithm"], task["user_class"], task["study"])
    outs = [cell["out"] for task in tasks for cell in task["cells"]]
    if len(set(outs)) != len(outs):
        raise UserError("simulate plan: two cells write the same output file")
    for task in tasks:
        check_run_range(task["trials"], task["first_trial"])
        for cell in task["cells"]:
            check_seed(cell["seed"], f"simulate plan: cell {cell['out']}: the seed")
            check_cell_outputs(cell["out"], curves_path(cell["out"]) if task["curves"] else None)
    for task in tasks:
        with job_context(task["algorithm"]):
            for cell in task["cells"]:
                simulate_cell(task["algorithm"], load_instance_file(cell["instance"], {}), task["options"],
                              cell["seed"], task["first_trial"], task["trials"], cell["out"],
                              curves_path(cell["out"]) if task["curves"] else None,
                              {"instance": None, "instance_file": cell["instance"], "settings": {}})
    return 0
