"""Command line: `linbandits simulate ...` runs one (algorithm, instance) pair.

Every other subcommand is a thin entry the pipeline rules call. Any
UserError is printed as one line on stderr, exit status 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from linbandits import __version__
from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError


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
    from linbandits.instances import build_instance, load_instance_file

    settings = parse_pairs(args.setting, "--setting")
    if args.instance_file:
        unknown = set(settings) - {"noise"}
        if unknown:
            raise UserError(f"--setting {', '.join(sorted(unknown))} does not apply to --instance-file; "
                            "only noise=gaussian|bounded does")
        return load_instance_file(args.instance_file, noise=settings.get("noise"))
    return build_instance(args.instance, settings)


def cmd_simulate(args) -> int:
    from linbandits.algorithms import make_algorithm
    from linbandits.engine import run_trials

    if args.trials < 1:
        raise UserError(f"--trials must be at least 1, got {args.trials}")
    if args.first_trial < 0:
        raise UserError(f"--first-trial must be >= 0, got {args.first_trial}")
    if os.environ.get("LINBANDITS_FAIL_FOR_TESTING"):
        raise UserError("simulate failed on purpose (LINBANDITS_FAIL_FOR_TESTING is set)")
    instance = load_instance(args)
    options = parse_pairs(args.option, "--option")
    algorithm = make_algorithm(args.algorithm, instance, options)
    started = time.perf_counter()
    last = [started]

    def progress(done, total):
        now = time.perf_counter()
        if now - last[0] > 10 or done == total:
            last[0] = now
            print(f"[{args.algorithm}] {done}/{total} trials, {now - started:.1f} s", file=sys.stderr, flush=True)

    res = run_trials(algorithm, instance, args.seed, args.first_trial, args.trials, progress=progress)
    elapsed = time.perf_counter() - started
    out = Path(args.out)
    lines = ["trial,recommended,correct"]
    lines += [f"{t},{r},{c}" for t, r, c in zip(res.trials, res.recommended, res.correct)]
    sidecar = {
        "command": "simulate",
        "version": __version__,
        "algorithm": args.algorithm,
        "options": algorithm.options,
        "instance": args.instance,
        "instance_file": args.instance_file,
        "settings": parse_pairs(args.setting, "--setting"),
        "instance_summary": {k: v for k, v in instance.summary().items() if k != "gaps"},
        "seed": args.seed,
        "first_trial": args.first_trial,
        "trials": args.trials,
        "errors": int(args.trials - res.correct.sum()),
        "elapsed_seconds": round(elapsed, 3),
        "designs_solved": algorithm.designs.solves,
    }
    # The sidecar is written first: the CSV's presence marks a complete result.
    write_text_atomic(out.with_suffix(".json"), json.dumps(sidecar, indent=2, default=_jsonable) + "\n")
    write_text_atomic(out, "\n".join(lines) + "\n")
    return 0


def _jsonable(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj)}")


def cmd_instance(args) -> int:
    from linbandits.instances import save_instance_file

    instance = load_instance(args)
    summary = instance.summary()
    save_instance_file(args.out, instance.X, instance.thetas, instance.noise_sd,
                       meta={**instance.meta, "name": instance.name, "noise": instance.noise})
    write_text_atomic(Path(args.summary), json.dumps(summary, indent=2, default=_jsonable) + "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from linbandits.algorithms import describe_algorithms
    from linbandits.instances import describe_instances

    catalogue = f"instances:\n{describe_instances()}\n\nalgorithms:\n{describe_algorithms()}"
    parser = argparse.ArgumentParser(
        prog="linbandits", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Fixed-budget best-arm identification in (non-)stationary linear bandits.",
        epilog=catalogue)
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True)

    def instance_args(p):
        src = p.add_mutually_exclusive_group(required=True)
        src.add_argument("--instance", help="instance family name (listed below)")
        src.add_argument("--instance-file", help=".npz with X (K x d), thetas (T x d), noise_sd")
        p.add_argument("--setting", action="append", metavar="K=V[,K=V...]",
                       help="instance settings, e.g. s=2.5,L=1800")

    sim = sub.add_parser("simulate", help="run N trials of one algorithm on one instance",
                         formatter_class=argparse.RawDescriptionHelpFormatter, epilog=catalogue)
    instance_args(sim)
    sim.add_argument("--algorithm", required=True, help="algorithm name (listed below)")
    sim.add_argument("--trials", type=int, required=True, help="number of trials")
    sim.add_argument("--first-trial", type=int, default=0,
                     help="index of the first trial (default 0); trial i's outcome depends only on (seed, i)")
    sim.add_argument("--seed", type=int, required=True)
    sim.add_argument("--out", required=True, help="CSV with columns trial,recommended,correct (+ .json sidecar)")
    sim.add_argument("--option", action="append", metavar="K=V", help="algorithm option, e.g. m=15")
    sim.set_defaults(func=cmd_simulate)

    inst = sub.add_parser("instance", help="write an instance as .npz plus its JSON summary",
                          formatter_class=argparse.RawDescriptionHelpFormatter, epilog=catalogue)
    instance_args(inst)
    inst.add_argument("--out", required=True)
    inst.add_argument("--summary", required=True)
    inst.set_defaults(func=cmd_instance)

    for name, (module, _) in DELEGATED.items():
        sub.add_parser(name, add_help=False, help=DELEGATED[name][1])
    return parser


# Subcommands implemented elsewhere, imported only when used: they pull in
# pandas, matplotlib and scipy, which `simulate` should not pay for.
DELEGATED = {
    "aggregate": ("linbandits.tables:main_aggregate", "aggregate trial chunks into a table"),
    "figure": ("linbandits.plotting:main_figure", "draw a figure from tables"),
    "claims": ("linbandits.fidelity:main_claims", "check the paper's claims on the tables"),
    "theorem1": ("linbandits.fidelity:main_theorem1", "G-BAI's error against the Theorem 1 bound"),
    "yahoo-synthetic": ("linbandits.yahoo.cli", "write a synthetic stand-in corpus in the R6A format"),
    "yahoo-check": ("linbandits.yahoo.cli", "check the seven R6A day files"),
    "yahoo-parse": ("linbandits.yahoo.cli", "parse one R6A day into features"),
    "yahoo-qc": ("linbandits.yahoo.cli", "merge per-day QC counts"),
    "yahoo-instance": ("linbandits.yahoo.cli", "PCA, ridge fits and arm set -> instance file"),
}


def run_delegated(argv) -> int:
    import importlib

    name, rest = argv[0], argv[1:]
    target = DELEGATED[name][0]
    if ":" in target:
        module, func = target.split(":")
        return getattr(importlib.import_module(module), func)(rest) or 0
    mod = importlib.import_module(target)
    parser = argparse.ArgumentParser(prog="linbandits")
    mod.add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args) or 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and argv[0] in DELEGATED:
            return run_delegated(argv)
        parser = build_parser()
        args = parser.parse_args(argv)
        return args.func(args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
