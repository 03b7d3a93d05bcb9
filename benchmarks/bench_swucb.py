"""Rounds per second of the compiled SW-UCB, BOB and EXP3.S against plain per-round numpy, in one run,
and a projection of the whole published study's CPU time.

    python benchmarks/bench_swucb.py [--T 240000] [--runs 5] [--plain-rounds 20000] [--configfile config/config.yaml]

1. Fig. 2's instance at T (Fig. 1's for EXP3.S): the package's runs (numba, noise matrix included)
   against a plain per-round implementation in numpy (incremental V and b, numpy.linalg.solve each
   round; EXP3.S with numpy arrays), timed on the first `plain-rounds` rounds; ratio = fast / plain.
2. Projection: every (experiment, series, T) of config/config.yaml timed on 2 runs and scaled to
   its run count (process CPU time, so other load on the machine counts less).

Small numbers and the .test config (as tests/test_benchmarks_smoke.py runs it) only check that the
benchmark runs.
"""
from __future__ import annotations

import argparse
import collections
import math
import sys
import time
from pathlib import Path

import numpy as np

from linbandits import experiments
from linbandits.catalogue import build_instance, make_algorithm
from linbandits.study_config import read_config

ROOT = Path(__file__).resolve().parents[1]


def plain_sw_ucb(X, thetas, noise_sd, eta, rounds, w, beta, lam=1.0):
    """Per-round numpy SW-UCB: a deque window, V and b updated by one outer product in and out."""
    d = X.shape[1]
    V, b = lam * np.eye(d), np.zeros(d)
    window = collections.deque()
    regret = 0.0
    for t in range(rounds):
        while len(window) > w:
            a, y = window.popleft()
            V -= np.outer(X[a], X[a])
            b -= X[a] * y
        theta = np.linalg.solve(V, b)
        widths = np.sqrt(np.einsum("kd,kd->k", X, np.linalg.solve(V, X.T).T))
        idx = X @ theta + beta * widths
        tied = np.flatnonzero(idx >= idx.max() - 1e-9)
        a = int(tied[0])
        means = X @ thetas[t]
        y = means[a] + noise_sd * eta[t, a]
        regret += means.max() - means[a]
        window.append((a, y))
        V += np.outer(X[a], X[a])
        b += X[a] * y
    return regret


def plain_exp3s(X, thetas, noise_sd, eta, u, rounds, gamma, alpha):
    K = X.shape[0]
    w = np.ones(K)
    regret = 0.0
    for t in range(rounds):
        total = w.sum()
        p = (1 - gamma) * w / total + gamma / K
        a = min(int(np.searchsorted(np.cumsum(p), u[t], side="right")), K - 1)
        means = X @ thetas[t]
        y = means[a] + noise_sd * eta[t, a]
        xhat = np.zeros(K)
        xhat[a] = min(max(y, 0.0), 1.0) / p[a]
        w = w * np.exp(gamma * xhat / K) + math.e * alpha / K * total
        w /= w.sum()
        regret += means.max() - means[a]
    return regret


def fast_rate(alg, runs):
    alg.run(1, 0)                     # compile / load the kernels first
    start = time.perf_counter()
    for trial in range(runs):
        alg.run(1, trial)
    return runs * alg.problem.T / (time.perf_counter() - start)


def head_to_head(args):
    fig1 = build_instance("swucb_sinusoid", {"T": args.T, "budget": "constant"})
    fig2 = build_instance("swucb_sinusoid", {"T": args.T, "budget": "cuberoot"})
    eta = np.random.default_rng(0).standard_normal((args.T, 2))
    u = np.random.default_rng(1).random(args.T)
    n = args.plain_rounds
    print(f"## Compiled runs vs plain per-round numpy (T = {args.T}, {args.runs} fast runs, "
          f"{n} plain rounds)\n")
    print("| algorithm | fast rounds/s | plain rounds/s | ratio |")
    print("|---|---:|---:|---:|")
    sw = make_algorithm("SW-UCB", fig2)
    start = time.perf_counter()
    plain_sw_ucb(fig2.X, fig2.thetas, 0.1, eta, n, sw.w, sw.beta)
    plain = n / (time.perf_counter() - start)
    fast = fast_rate(sw, args.runs)
    print(f"| SW-UCB | {fast:,.0f} | {plain:,.0f} | {fast / plain:.0f}x |")
    bob = make_algorithm("BOB", fig2)
    # BOB's rounds are SW-UCB rounds with the block's window; the plain baseline runs its middle window.
    start = time.perf_counter()
    plain_sw_ucb(fig2.X, fig2.thetas, 0.1, eta, n, bob.plan.windows[len(bob.plan.windows) // 2], bob.plan.betas[0])
    plain = n / (time.perf_counter() - start)
    fast = fast_rate(bob, args.runs)
    print(f"| BOB | {fast:,.0f} | {plain:,.0f} | {fast / plain:.0f}x |")
    ex = make_algorithm("EXP3.S", fig1)
    start = time.perf_counter()
    plain_exp3s(fig1.X, fig1.thetas, 0.1, eta, u, n, ex.gamma, ex.alpha)
    plain = n / (time.perf_counter() - start)
    fast = fast_rate(ex, args.runs)
    print(f"| EXP3.S | {fast:,.0f} | {plain:,.0f} | {fast / plain:.0f}x |")


def projection(configfile: Path):
    config = read_config(configfile)
    total_cpu, total_rounds = 0.0, 0
    print("\n## Projected CPU of the published study (2 runs per series and T, scaled)\n")
    print("| experiment | series | rounds | projected CPU-s |")
    print("|---|---|---:|---:|")
    for name, exp in experiments.study_experiments(config, "swucb").items():
        for algo in exp.algorithms:
            cpu, rounds = 0.0, 0
            for setting in exp.setting_ids():
                inst = build_instance(exp.instance, exp.instance_settings(setting))
                alg = make_algorithm(algo, inst, exp.options.get(algo, {}))
                alg.run(1, 0)
                start = time.process_time()
                alg.simulate(2, np.arange(2))
                cpu += (time.process_time() - start) / 2 * exp.trials
                rounds += inst.T * exp.trials
            print(f"| {name} | {algo} | {rounds:.3g} | {cpu:.1f} |")
            total_cpu += cpu
            total_rounds += rounds
    print(f"| **total** | | {total_rounds:.3g} | **{total_cpu:.1f}** |")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--T", type=int, default=240000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--plain-rounds", type=int, default=20000)
    p.add_argument("--no-projection", action="store_true")
    p.add_argument("--configfile", type=Path, default=ROOT / "config" / "config.yaml",
                   help="the config whose swucb experiments the projection times")
    args = p.parse_args(argv)
    head_to_head(args)
    if not args.no_projection:
        projection(args.configfile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
