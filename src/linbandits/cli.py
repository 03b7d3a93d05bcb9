"""Command line: `linbandits simulate ...` runs one (algorithm, instance) pair of any study.

`linbandits instance ...` writes an instance file and its summary; every other
subcommand is a thin entry the pipeline rules call (the shared R6A tools and
each study's own). Any UserError (a bad argument or input, an output that
cannot be written) is printed as one line on stderr, exit 2; so is any other
OSError, naming its path.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from linbandits import __version__, compile_log, user_algorithms
from linbandits.atomic import check_writable, write_json_atomic, write_text_atomic
from linbandits.catalogue import (build_instance, commands, describe_algorithms, describe_instances, make_algorithm,
                                  resolve, study_of_algorithm)
from linbandits.errors import OneLineArgumentParser, UserError, check_seed
from linbandits.npzfile import write_npz
from linbandits.problems import load_instance_file, save_instance

# Shared subcommands implemented elsewhere, imported only when used: they pull
# in pandas, scipy or matplotlib, which `simulate` should not pay for. Each
# study adds its own (Study.commands).
SHARED_COMMANDS = {
    "yahoo-synthetic": ("linbandits.r6a.cli", "write a synthetic stand-in corpus in the R6A format"),
    "yahoo-check": ("linbandits.r6a.cli", "check the seven R6A day files"),
    "yahoo-parse": ("linbandits.r6a.cli", "parse one R6A day into features"),
    "yahoo-qc": ("linbandits.r6a.cli", "merge per-day QC counts"),
    "overview": ("linbandits.overview:main", "the overview page: every study, its figures and claims"),
    "products": ("linbandits.products:main", "a study's tables, figures or claims from its runs"),
    "collect-runs": ("linbandits.runs:main_collect", "check an experiment's raw chunks and write its runs file"),
    "archive": ("linbandits.archive.pack:main", "a finished run's runs, configs and environment in one file"),
    "rebuild": ("linbandits.archive.rebuild:main", "every product of an archived run again, without a simulation"),
    "verify": ("linbandits.archive.verify:main", "replay sampled run ranges of an archive and compare them"),
}


def parse_pairs(items, what: str) -> dict:
    """['a=1,b=2', 'c=x'] -> {'a': '1', 'b': '2', 'c': 'x'}."""
    out = {}
    for item in items or []:
        for part in item.split(","):
            part = part.strip()
            if not part:
                continue
            if "=" not in part:
                raise UserError(f"{what} {part!r} is not of the form KEY=VALUE")
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
    return out


def load_instance(args):
    settings = parse_pairs(args.setting, "--setting")
    if args.instance_file:
        return load_instance_file(args.instance_file, settings)
    return build_instance(args.instance, settings)


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


def cmd_simulate(args) -> int:
    register_user_algorithms(args)
    check_run_range(args.trials, args.first_trial)
    check_seed(args.seed)
    instance = load_instance(args)
    check_cell_outputs(args.out, args.curves)
    provenance = {"instance": args.instance, "instance_file": args.instance_file,
                  "settings": parse_pairs(args.setting, "--setting")}
    simulate_cell(args.algorithm, instance, parse_pairs(args.option, "--option"), args.seed, args.first_trial,
                  args.trials, args.out, args.curves, provenance)
    return 0


def register_user_algorithms(args) -> None:
    """[user algorithms, issue 37] --user-algorithm STUDY/NAME=TARGET: a user's class, for this process."""
    for value in args.user_algorithm or ():
        user_algorithms.register_flag(value)


def curves_path(out: str) -> str:
    """chunk0-99.csv -> chunk0-99.curves.npz (the pipeline's name for a cell's curves)."""
    return str(Path(out).with_suffix(".curves.npz"))


def cmd_simulate_cells(args) -> int:
    """One process for several cells (instance file, seed, output) of one algorithm and run range:
    the pipeline's unit of work, so that a job pays start-up and compilation once. Each cell is
    computed exactly as `simulate` computes it alone (run i depends only on the cell's seed and i)."""
    register_user_algorithms(args)
    check_run_range(args.trials, args.first_trial)
    outs = [out for _, _, out in args.cell]
    if len(set(outs)) != len(outs):
        raise UserError("simulate-cells: two --cell entries write the same output file")
    for cell in args.cell:   # every seed and output before the first cell runs
        cell_seed(*cell)
    for _, _, out in args.cell:
        check_cell_outputs(out, curves_path(out) if args.curves else None)
    options = parse_pairs(args.option, "--option")
    with job_context(args.algorithm):
        for instance_file, seed, out in args.cell:
            simulate_listed_cell(args, options, instance_file, seed, out)
    return 0


def job_context(algorithm: str):
    """The context the algorithm's study enters once around all the cells of a job (its
    `Study.job_context`, e.g. P1-RAGE's design cache shared by the settings of one arm set);
    a null context for a study without one."""
    hook = study_of_algorithm(algorithm).job_context
    return resolve(hook)() if hook else contextlib.nullcontext()


def simulate_listed_cell(args, options, instance_file, seed, out) -> None:
    seed = cell_seed(instance_file, seed, out)
    simulate_cell(args.algorithm, load_instance_file(instance_file, {}), options, seed, args.first_trial,
                  args.trials, out, curves_path(out) if args.curves else None,
                  {"instance": None, "instance_file": instance_file, "settings": {}})


def cell_seed(instance_file, seed, out) -> int:
    """The SEED of `--cell F.npz SEED OUT.csv`, or one UserError naming the cell."""
    try:
        value = int(seed)
    except ValueError:
        raise UserError(f"--cell {instance_file} {seed} {out}: the seed {seed!r} is not an integer") from None
    check_seed(value, f"--cell {instance_file} {seed} {out}: the seed")
    return value


def write_instance(instance, out: str, summary: str) -> None:
    for path in (out, summary):   # both before either: never an instance file without its summary
        check_writable(path)
    save_instance(out, instance)
    write_json_atomic(Path(summary), instance.summary())


def cmd_instance(args) -> int:
    write_instance(load_instance(args), args.out, args.summary)
    return 0


def cmd_instance_cells(args) -> int:
    """Every setting of one experiment's instance family in one process (one pipeline job)."""
    common = parse_pairs(args.setting, "--setting")
    for cell_settings, out, summary in args.cell:
        write_instance(build_instance(args.instance, {**common, **parse_pairs([cell_settings], "--cell")}),
                       out, summary)
    return 0


def build_parser(full_help: bool = False) -> argparse.ArgumentParser:
    """The parser; the catalogue of every study's instances and algorithms only when help is asked for
    (it imports every algorithm)."""
    catalogue = ""
    if full_help:
        catalogue = f"{describe_instances()}\n\n{describe_algorithms()}"
    parser = OneLineArgumentParser(
        prog="linbandits", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Replication pipeline of five papers on (non-)stationary linear bandits: "
                    "run any study's algorithms on its instances.",
        epilog=catalogue)
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True)

    def instance_args(p):
        src = p.add_mutually_exclusive_group(required=True)
        src.add_argument("--instance", help="instance family name (listed below)")
        src.add_argument("--instance-file", help=".npz instance file of one of the kinds listed below")
        p.add_argument("--setting", action="append", metavar="K=V[,K=V...]",
                       help="instance settings, e.g. s=2.5,L=1800")

    sim = sub.add_parser("simulate", help="run N independent runs of one algorithm on one instance",
                         formatter_class=argparse.RawDescriptionHelpFormatter, epilog=catalogue)
    instance_args(sim)
    sim.add_argument("--algorithm", required=True, help="algorithm name (listed below)")
    sim.add_argument("--trials", type=int, required=True, help="number of runs")
    sim.add_argument("--first-trial", type=int, default=0,
                     help="index of the first run (default 0); run i's outcome depends only on (seed, i)")
    sim.add_argument("--seed", type=int, required=True)
    sim.add_argument("--out", required=True,
                     help="CSV, one row per run, `trial` first, the study's columns after it (+ .json sidecar)")
    sim.add_argument("--option", action="append", metavar="K=V", help="algorithm option, e.g. m=15")
    sim.add_argument("--user-algorithm", action="append", metavar="STUDY/NAME=TARGET",
                     help="a user's algorithm class (TARGET: package.module:Class or path/file.py:Class)")
    sim.add_argument("--curves", metavar="F.npz",
                     help="also write per-run curves (regret vs round) where the algorithm records them")
    sim.set_defaults(func=cmd_simulate)

    cells = sub.add_parser("simulate-cells", help="run one algorithm on several instance files in one process",
                           description="The pipeline's simulate job: for every --cell, the same as `simulate "
                                       "--instance-file F.npz --seed S --out F.csv` (same numbers, same files).")
    cells.add_argument("--algorithm", required=True, help="algorithm name (see `simulate --help`)")
    cells.add_argument("--trials", type=int, required=True, help="number of runs of every cell")
    cells.add_argument("--first-trial", type=int, default=0, help="index of the first run (default 0)")
    cells.add_argument("--option", action="append", metavar="K=V", help="algorithm option, e.g. m=15")
    cells.add_argument("--user-algorithm", action="append", metavar="STUDY/NAME=TARGET",
                       help="a user's algorithm class (TARGET: package.module:Class or path/file.py:Class)")
    cells.add_argument("--curves", action="store_true",
                       help="also write each cell's per-run curves beside its CSV (OUT.curves.npz)")
    cells.add_argument("--cell", nargs=3, action="append", required=True, metavar=("F.npz", "SEED", "OUT.csv"),
                       help="one instance file, its seed and its output CSV (repeat for every cell)")
    cells.set_defaults(func=cmd_simulate_cells)

    inst = sub.add_parser("instance", help="write an instance as .npz plus its JSON summary",
                          formatter_class=argparse.RawDescriptionHelpFormatter, epilog=catalogue)
    instance_args(inst)
    inst.add_argument("--out", required=True)
    inst.add_argument("--summary", required=True)
    inst.set_defaults(func=cmd_instance)

    inst_cells = sub.add_parser("instance-cells", help="write several settings of one instance family (one job)")
    inst_cells.add_argument("--instance", required=True, help="instance family name")
    inst_cells.add_argument("--setting", action="append", metavar="K=V[,K=V...]",
                            help="settings shared by every cell")
    inst_cells.add_argument("--cell", nargs=3, action="append", required=True,
                            metavar=("K=V[,K=V...]", "OUT.npz", "SUMMARY.json"),
                            help="one cell's own settings ('' for none), its instance file and summary")
    inst_cells.set_defaults(func=cmd_instance_cells)

    batch = sub.add_parser("batch", help="run several linbandits commands in one process, in order",
                           description="Each argument is one command line without the leading `linbandits`, "
                                       "e.g. 'simulate-cells --algorithm A ...'. Stops at the first failure.")
    batch.add_argument("commands", nargs="*", metavar="COMMAND")
    batch.add_argument("--file", type=Path, metavar="PLAN",
                       help="also run the commands of this file, one per line, after any given as arguments")
    batch.set_defaults(func=cmd_batch)

    for name, (_, help_text) in delegated_commands().items():
        sub.add_parser(name, add_help=False, help=help_text)
    return parser


def delegated_commands() -> dict:
    return {**SHARED_COMMANDS, **commands()}


def run_delegated(target: str, argv) -> int:
    if ":" in target:
        module, func = target.split(":")
        return getattr(importlib.import_module(module), func)(argv[1:]) or 0
    mod = importlib.import_module(target)
    parser = OneLineArgumentParser(prog="linbandits")
    mod.add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args) or 0


def dispatch(argv) -> int:
    delegated = delegated_commands()
    if argv and argv[0] in delegated:
        return run_delegated(delegated[argv[0]][0], argv)
    parser = build_parser(full_help=any(a in ("-h", "--help") for a in argv))
    args = parser.parse_args(argv)
    return args.func(args)


def cmd_batch(args) -> int:
    """Several commands in one process, in order; stops at the first that fails. A bundled simulate job
    (preview) runs every algorithm of an experiment so: one start-up and one numba load, not one each."""
    lines = list(args.commands)
    if args.file is not None:
        if not args.file.is_file():
            raise UserError(f"batch: no plan file {args.file} (a preview's simulate plan is made by its "
                            "study's simulate_plan rule; run the workflow, not this command by hand)")
        lines += [line for line in args.file.read_text().splitlines() if line.strip()]
    if not lines:
        raise UserError("batch: no commands (give them as arguments or in --file PLAN)")
    for line in lines:
        argv = shlex.split(line)
        if not argv or argv[0] == "batch":
            raise UserError(f"batch: {line!r} is not a linbandits command (a batch holds commands, not batches)")
        code = dispatch(argv)
        if code:
            return code
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    compile_log.install_if_asked()
    try:
        return dispatch(argv)
    except UserError as exc:
        message = str(exc)
    except OSError as exc:   # one no check of this package foresaw (every write is checked)
        if exc.filename:
            message = (f"{exc.filename}: {exc.strerror or exc}; check the path (an input must be a file you may "
                       "read, an output must go to a directory you may write to)")
        else:
            message = f"{exc.strerror or exc} (the operating system's words); run again, and report it if it recurs"
    # One line, whatever the message quotes (a YAML parser's or numpy's words span several).
    print("error: " + " ".join(part.strip() for part in message.splitlines() if part.strip()), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
