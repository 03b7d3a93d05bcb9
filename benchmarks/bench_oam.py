"""Speed of the OAM study: the numba engine against the plain oracle, in one run.

    python benchmarks/bench_oam.py [--runs 5] [--oracle-rounds 1000] [--configfile config/config.yaml]
                                   [--circle-arms 100]

1. Per (experiment, algorithm) of config/config.yaml (published horizons, switches
   included): engine microseconds per round on a sample of runs (numba caches warm:
   one run is made first and not timed), the plain oracle's (tests/oam/oam_oracle.py)
   on a short run of the same instance, their ratio, and the projected CPU seconds of
   the experiment's published run count.
2. The allocation program: the closed form (what the hot loops call when k <= 1)
   against cvxpy on the same instances (the circle with --circle-arms arms, 100 in the paper).

Numbers are single-process, single-thread wall time on this machine. Small numbers and the .test
config (as tests/test_benchmarks_smoke.py runs it) only check that the benchmark runs.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "oam"))

import oam_oracle as oracle  # noqa: E402
from linbandits import experiments  # noqa: E402
from linbandits.catalogue import build_instance, make_algorithm  # noqa: E402
from linbandits.studies.oam.algorithms.lints import theory_scale  # noqa: E402
from linbandits.studies.oam.allocation import allocate, gaps_of  # noqa: E402
from linbandits.studies.oam.streams import run_stream  # noqa: E402
from linbandits.study_config import read_config  # noqa: E402


def engine_us_per_round(algo, inst, runs):
    algo.simulate(0, np.arange(1))                     # compile / load the numba cache
    start = time.perf_counter()
    algo.simulate(0, np.arange(1, runs + 1))
    return (time.perf_counter() - start) / (runs * inst.horizon) * 1e6


def oracle_us_per_round(name, inst, options):
    stream = run_stream(inst, 0, 0, normals=name.startswith("LinTS"))
    start = time.perf_counter()
    if name == "OAM":
        oracle.oam(inst, stream, **{k: (v if k == "schedule" else float(v)) for k, v in options.items()})
    elif name == "LinUCB":
        oracle.linucb(inst, stream, **options)
    elif name == "OSSB":
        oracle.ossb(inst, stream, **{k: float(v) for k, v in options.items()})
    else:
        oracle.lints(inst, stream, theory_scale(inst.horizon, inst.d) if name == "LinTS" else 1.0)
    return (time.perf_counter() - start) / inst.horizon * 1e6


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--oracle-rounds", type=int, default=1000)
    p.add_argument("--configfile", type=Path, default=ROOT / "config" / "config.yaml",
                   help="the config whose oam experiments are timed")
    p.add_argument("--circle-arms", type=int, default=100, help="K of the circle instance the allocation solves")
    args = p.parse_args(argv)
    config = read_config(args.configfile)
    total_cpu, total_rounds, oracle_total = 0.0, 0, 0.0
    print(f"{'experiment':24s} {'algorithm':16s} {'n':>7s} {'engine us/rd':>12s} {'oracle us/rd':>12s} "
          f"{'ratio':>7s} {'projected s':>11s}")
    for name, exp in experiments.study_experiments(config, "oam").items():
        settings = exp.instance_settings("single")
        inst = build_instance(exp.instance, settings)
        short = build_instance(exp.instance, {**settings, "horizon": args.oracle_rounds})
        for algo_name in exp.algorithms:
            options = exp.options.get(algo_name, {})
            engine = engine_us_per_round(make_algorithm(algo_name, inst, options), inst, args.runs)
            plain = oracle_us_per_round(algo_name, short, options)
            cpu = engine * 1e-6 * inst.horizon * exp.trials
            total_cpu += cpu
            total_rounds += inst.horizon * exp.trials
            oracle_total += plain * 1e-6 * inst.horizon * exp.trials
            print(f"{name:24s} {algo_name:16s} {inst.horizon:7d} {engine:12.2f} {plain:12.1f} "
                  f"{plain / engine:7.0f} {cpu:11.2f}")
    print(f"\nwhole study: {total_rounds:.3g} rounds, engine {total_cpu:.1f} CPU-s projected "
          f"(plus job start-up), plain oracle {oracle_total / 60:.0f} CPU-min projected: "
          f"ratio {oracle_total / total_cpu:.0f}x")
    print("\nallocation program, per solve:")
    for label, family, settings in (("5.1 u=0.1 (k=1)", "oam_fixed", {}),
                                    (f"circle K={args.circle_arms} (k=1)", "oam_circle", {"K": args.circle_arms}),
                                    ("scenario one (k=1)", "oam_scenario_one", {})):
        inst = build_instance(family, settings)
        gaps = gaps_of(inst.actions, inst.theta)
        allocate(inst.actions, gaps)
        reps = 200
        start = time.perf_counter()
        for _ in range(reps):
            allocate(inst.actions, gaps, "closed")
        closed = (time.perf_counter() - start) / reps
        allocate(inst.actions, gaps, "sdp")
        start = time.perf_counter()
        allocate(inst.actions, gaps, "sdp")
        sdp = time.perf_counter() - start
        print(f"  {label:22s} closed form {closed * 1e6:8.1f} us   cvxpy {sdp * 1e3:8.1f} ms   "
              f"ratio {sdp / closed:8.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
