"""Pulls per second of each LinGapE-study algorithm: the compiled engine against a plain per-pull
numpy implementation (tests/lingape/lingape_oracle.py: fresh inversions every pull), in one run.

    PYTHONPATH=src python benchmarks/bench_lingape.py [--d 5] [--pulls 2000000]

Both sides run the same instance (Soare et al.'s, d = 5) for a fixed number of pulls (the
stopping rule cannot hold that early, so every pull is the full per-pull work); the engine
is compiled before timing. CPU time (process_time).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lingape"))

import lingape_oracle as plain  # noqa: E402
from linbandits.studies.lingape import streams  # noqa: E402
from linbandits.studies.lingape.algorithms import LinGapE, XYOracle, XYStatic  # noqa: E402
from linbandits.studies.lingape.instances import lingape_soare  # noqa: E402


def cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def fast_rate(algo_cls, inst, pulls, trials=1, **opts):
    algo_cls(inst, max_pulls=inst.K + 50, **opts).simulate(0, np.arange(1))     # compile
    seconds, rec = cpu(lambda: algo_cls(inst, max_pulls=pulls, **opts).simulate(0, np.arange(trials)))
    return rec.columns["stopping_time"].sum() / seconds


def plain_rate(run, pulls):
    seconds, T = cpu(lambda: run(pulls))
    return int(np.sum(T)) / seconds


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--d", type=int, default=5)
    p.add_argument("--pulls", type=int, default=2_000_000, help="pulls of the engine per algorithm")
    p.add_argument("--plain-pulls", type=int, default=3000, help="pulls of the plain implementation")
    args = p.parse_args(argv)
    inst = lingape_soare(d=args.d)
    X, means = inst.X, inst.means
    p_star = XYOracle(inst).design(X, means)[0]
    n = args.plain_pulls
    rows = [
        ("LinGapE", fast_rate(LinGapE, inst, args.pulls),
         plain_rate(lambda m: plain.lingape(X, means, plain.draw_stream(0, 0, True), streams.run_tie_key(0, 0),
                                            max_n=m)[1], n)),
        ("XY-static (1 run)", fast_rate(XYStatic, inst, args.pulls),
         plain_rate(lambda m: plain.xy_static(X, means, plain.draw_stream(0, 0, True), streams.shared_tie_key(0),
                                              max_n=m)[1], n)),
        ("XY-static (10 runs, one shared sequence)", fast_rate(XYStatic, inst, args.pulls // 5, trials=10),
         plain_rate(lambda m: plain.xy_static(X, means, plain.draw_stream(0, 0, True), streams.shared_tie_key(0),
                                              max_n=m)[1], n)),
        ("XY-oracle", fast_rate(XYOracle, inst, args.pulls),
         plain_rate(lambda m: plain.xy_oracle(X, means, p_star, max_n=m)[1], n)),
    ]
    print(f"Soare et al.'s instance, d = {args.d} (K = {inst.K}); CPU seconds; engine {args.pulls:,} pulls, "
          f"plain numpy {n:,} pulls")
    print(f"{'algorithm':44s} {'engine pulls/s':>15s} {'plain pulls/s':>14s} {'ratio':>8s}")
    for name, fast, slow in rows:
        print(f"{name:44s} {fast:15,.0f} {slow:14,.0f} {fast / slow:8.0f}")
    print("XY-adaptive: its phases replay cached reward-free sequences (one per active set), so its cost is "
          "that of XY-static's greedy steps over the longest phase, not per pull.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
