"""Benchmark of the opkb study: fast engines against the plain round-by-round oracles (same runs, same
numbers), and the per-run cost of every kernel algorithm at the published size, projected to the default
target (`snakemake opkb`: every experiment of config/config.yaml).

    PYTHONPATH=src python benchmarks/bench_opkb.py [--quick]

Prints CPU seconds (process time, one BLAS thread) and the fast/plain ratios. The GP-UCB family's compiled
round loops are loaded (or compiled, on a fresh checkout) before any timing: a pipeline process pays that
once (about 0.5 CPU-s from numba's cache), not once a run.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "opkb"))

from linbandits import experiments  # noqa: E402
from linbandits.catalogue import build_instance, make_algorithm  # noqa: E402
from linbandits.studies.opkb import gpucb, opkb  # noqa: E402
from linbandits.studies.opkb.blas import one_blas_thread  # noqa: E402
from linbandits.studies.opkb.instances import opkb_env1  # noqa: E402
from linbandits.studies.opkb.features import features  # noqa: E402


def cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="skip the published-size projection")
    p.add_argument("--neural", action="store_true", help="also project the opt-in neural target (slow)")
    args = p.parse_args(argv)
    one_blas_thread()
    from opkb_oracle import gpucb_oracle, opkb_oracle

    warm = opkb_env1(seed=0, N=12, d=3, T=50, switch=20)
    warm_phi = features(warm.arms, 0.2)
    gpucb.run_gpucb(warm, warm_phi, {"rbf_length": 0.2, "noise": "truncated", "lam": 20.0, "v": 0.01}, 0, 0, 10)
    gpucb.run_wgpucb(warm, warm_phi, {"rbf_length": 0.2, "noise": "truncated", "lam": 0.01, "scale": 0.5,
                                      "discount": 0.9996}, 0, 0)

    options = dict(rbf_length=0.2, noise="truncated", sigma=100.0, beta_scale=50.0, mu_scale=0.2, e_scale=0.005,
                   g_scale=0.05, eps_scale=0.02, mixture_probability=0.2, delta=1e-4, j_star=2)
    inst = opkb_env1(seed=1, N=20, d=4, T=3000, switch=1200)
    fast, run = cpu(lambda: opkb.run_opkb(inst, options, 0, 0, True))
    plain, ref = cpu(lambda: opkb_oracle(inst, options, 0, 0, True))
    assert np.array_equal(run["arms"], ref[0])
    print(f"ADA-OPKB N=20 T=3000 ({run['restarts']} restarts): fast {fast:.2f} s, plain {plain:.2f} s, "
          f"ratio plain/fast {plain / fast:.1f}")
    small = opkb_env1(seed=2, N=30, d=4, T=600, switch=300)
    o = {"rbf_length": 0.2, "noise": "truncated", "lam": 20.0, "v": 0.01}
    Phi = features(small.arms, 0.2)
    fast, run = cpu(lambda: gpucb.run_gpucb(small, Phi, o, 0, 0, window=200))
    plain, ref = cpu(lambda: gpucb_oracle(small, o, 0, 0, window=200))
    assert np.array_equal(run[1], ref[0])
    print(f"SW-GPUCB N=30 T=600: fast {fast:.2f} s, plain (posterior from scratch) {plain:.2f} s, "
          f"ratio {plain / fast:.1f}")
    if args.quick:
        return 0
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    total = 0.0
    neural = {"OPNN", "OPNN0", "ADA-OPNN"}
    for name, exp in experiments.study_experiments(config, "opkb").items():
        if set(exp.algorithms) <= neural and not args.neural:
            continue
        setting = exp.setting_ids()[0]
        instance = build_instance(exp.instance, exp.instance_settings(setting))
        for algorithm in exp.algorithms:
            algo = make_algorithm(algorithm, instance, exp.options.get(algorithm, {}))
            seconds, _ = cpu(lambda: algo.simulate(1, np.array([0])))
            runs = exp.trials * len(exp.setting_ids())
            total += seconds * runs
            print(f"{name:18s} {algorithm:10s} {seconds:6.2f} CPU-s a run x {runs} runs = {seconds * runs:7.1f} CPU-s")
    what = "default + neural targets" if args.neural else "default target"
    print(f"{what}, simulation only (projected from one run each): {total:.0f} CPU-s = {total / 60:.1f} CPU-min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
