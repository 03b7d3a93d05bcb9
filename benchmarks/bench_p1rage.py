"""Trial throughput of the engine, against the round-by-round oracle, in one run.

    python benchmarks/bench_p1rage.py [--trials 1000] [--oracle-trials 3] [--grid-sample 300]
                                      [--memory-trials 1000] [--configfile config/config.yaml]
                                      [--horizon 10000] [--yahoo-horizon 21000]

1. For Soare non-stationary (s = 2.5, L = 1800, T = 10^4) and multivariate
   non-stationary (s = 2, L = 900, T = 10^4): trials per second of each
   algorithm in the engine (a fresh process-level design cache, so warm-up
   is included) and in the oracle (tests/p1rage/p1rage_oracle), and their ratio.
2. A projection of the CPU time of the whole published grid (spec C trial
   counts, config/config.yaml): each (experiment, algorithm) is timed on a
   sample of trials at its middle setting and scaled to its trial count (the published
   experiments: switch runs, which vary one of them, are left out).
3. Peak memory of one simulate of 1000 trials at T = 21000 (Yahoo-sized).

Numbers are wall-clock on this machine, single process, single thread. Small numbers and the
.test config (as tests/test_benchmarks_smoke.py runs it) only check that the benchmark runs.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "p1rage"))

from linbandits import experiments  # noqa: E402
from linbandits.studies.p1rage.algorithms import ALGORITHMS, make_algorithm  # noqa: E402
from linbandits.studies.p1rage.kernels import run_trials  # noqa: E402
from linbandits.catalogue import build_instance, family_names  # noqa: E402
from linbandits.problems import save_instance  # noqa: E402
from linbandits.problems.linear import LinearInstance  # noqa: E402
from linbandits.study_config import read_config  # noqa: E402


def engine_rate(name, inst, n):
    algo = make_algorithm(name, inst)
    start = time.perf_counter()
    run_trials(algo, inst, seed=1, trials=n)
    return n / (time.perf_counter() - start)


def oracle_rate(name, inst, n):
    from p1rage_oracle.algorithms import run_trial

    start = time.perf_counter()
    for i in range(n):
        run_trial(name, inst.X, inst.thetas, inst.noise_sd, np.random.default_rng([2, i]))
    return n / (time.perf_counter() - start)


def head_to_head(args):
    cases = [("soare_osci", {"s": 2.5, "L": 1800, "T": args.horizon}),
             ("multi_osci", {"series": "scale", "s": 2, "L": 900, "T": args.horizon})]
    print(f"## Engine vs round-by-round oracle ({args.trials} engine trials, {args.oracle_trials} oracle trials)\n")
    print("| instance | algorithm | engine trials/s | oracle trials/s | ratio |")
    print("|---|---|---:|---:|---:|")
    for family, settings in cases:
        inst = build_instance(family, settings)
        for name in ALGORITHMS:
            fast = engine_rate(name, inst, args.trials)
            slow = oracle_rate(name, inst, args.oracle_trials)
            print(f"| {inst.name} | {name} | {fast:,.0f} | {slow:.2f} | {fast / slow:,.0f}x |", flush=True)


def grid_projection(args):
    config = read_config(args.configfile)
    exps = experiments.study_experiments(config, "p1rage")
    print(f"\n## Projected CPU time of the published grid ({args.grid_sample} sampled trials per cell)\n")
    print("| experiment | settings | trials per setting | algorithm | trials/s | projected CPU s |")
    print("|---|---:|---:|---|---:|---:|")
    total_s, total_trials = 0.0, 0
    for exp in exps.values():
        if exp.switch_of:
            continue  # the published grid only
        if exp.instance not in family_names():
            # Yahoo: the synthetic stand-in has the same shape (K = d = 24, T = 21000).
            inst = yahoo_like_instance(args.yahoo_horizon)
        else:
            mid = exp.setting_ids()[len(exp.setting_ids()) // 2]
            inst = build_instance(exp.instance, exp.instance_settings(mid))
        n_settings = len(exp.setting_ids())
        for name in exp.algorithms:
            n = min(args.grid_sample, exp.trials)
            rate = engine_rate(name, inst, n)
            cpu = exp.trials * n_settings / rate
            total_s += cpu
            total_trials += exp.trials * n_settings
            print(f"| {exp.name} | {n_settings} | {exp.trials} | {name} | {rate:,.0f} | {cpu:,.1f} |", flush=True)
    print(f"\nWhole grid: {total_trials:,} trials, projected {total_s / 60:.1f} CPU-minutes "
          f"(simulation only; one process per chunk adds ~1 s of start-up and design warm-up per job).")


def yahoo_like_instance(T=21000):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 24))
    days = rng.normal(scale=0.05, size=(7, 24))
    thetas = np.repeat(days, 500, axis=0)
    thetas = np.tile(thetas, (T // len(thetas) + 1, 1))[:T]
    return LinearInstance("yahoo-like", X, thetas, noise_sd=1.0)


def peak_memory(args):
    inst = yahoo_like_instance(args.yahoo_horizon)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inst.npz"
        save_instance(path, inst)
        print(f"\n## Peak memory of one simulate process ({args.memory_trials} trials, T = {args.yahoo_horizon}, "
              "K = d = 24)\n")
        for name in ALGORITHMS:
            code = ("import resource,sys; from linbandits.cli import main; "
                    f"main(['simulate','--instance-file','{path}','--algorithm','{name}',"
                    f"'--trials','{args.memory_trials}','--seed','1','--out','{tmp}/o.csv']); "
                    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            print(f"- {name}: {int(out.stdout.split()[-1]) / 1024:.0f} MiB", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--oracle-trials", type=int, default=3)
    parser.add_argument("--grid-sample", type=int, default=300)
    parser.add_argument("--memory-trials", type=int, default=1000)
    parser.add_argument("--configfile", type=Path, default=ROOT / "config" / "config.yaml",
                        help="the config whose p1rage experiments the projection times")
    parser.add_argument("--horizon", type=int, default=10000, help="T of the head-to-head instances")
    parser.add_argument("--yahoo-horizon", type=int, default=21000, help="T of the Yahoo-sized instance")
    parser.add_argument("--skip", nargs="*", default=[], choices=["head", "grid", "memory"])
    args = parser.parse_args()
    if "head" not in args.skip:
        head_to_head(args)
    if "grid" not in args.skip:
        grid_projection(args)
    if "memory" not in args.skip:
        peak_memory(args)


if __name__ == "__main__":
    main()
