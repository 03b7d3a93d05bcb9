"""Command line: `linbandits simulate ...` runs one (algorithm, instance) pair of any study.

`linbandits instance ...` writes an instance file and its summary; every other
subcommand is a thin entry the pipeline rules call (`run-job`: a simulate job's
plan; the shared R6A tools; each study's own). Any UserError (a bad argument or input, an output that
cannot be written) is printed as one line on stderr, exit 2; so is any other
OSError, naming its path.
"""
from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from pathlib import Path

from linbandits import __version__, compile_log
from linbandits.user import algorithms as user_algorithms
from linbandits.atomic import check_writable, write_json_atomic
from linbandits.catalogue import build_instance, commands, describe_algorithms, describe_instances
from linbandits.cells import check_cell_outputs, check_run_range, simulate_cell
from linbandits.errors import OneLineArgumentParser, UserError, check_seed
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
    "run-job": ("linbandits.jobs:main_run", "run one job of a study's plan file (the workflow's simulate jobs)"),
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
                                       "e.g. 'instance-cells --instance F ...'. Stops at the first failure.")
    batch.add_argument("commands", nargs="*", metavar="COMMAND")
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
    """Several commands in one process, in order; stops at the first that fails. The workflow's instance
    and runs jobs of a whole study (job_size other than `algorithm`) run so: one start-up, not one each."""
    if not args.commands:
        raise UserError("batch: no commands; give each as one argument")
    for line in args.commands:
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
