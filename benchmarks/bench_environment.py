"""The cost of a step of every study's environment (linbandits.environment), in microseconds.

    python benchmarks/bench_environment.py [--steps 100000] [--repeats 3]

For each study, one run of a published-size instance is stepped by a policy that costs nothing (arm
t mod K): `setup` is the environment's construction (drawing the run's streams), `step` the time of
one env.step(arm) call, `step_many` the time per pull of one env.step_many(arms) call over the same
pulls (lingape: a million pulls of one arm, its runs' length). Best of `repeats` (wall clock, one
process). Small numbers (as tests/test_benchmarks_smoke.py runs it) only check that it runs.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import linbandits

# study -> (family, settings, what it is); the published sizes (swucb: Fig. 2's longest horizon)
CASES = {
    "p1rage": ("soare_sto", {"T": 10000}, "Soare, d = 10, K = 11"),
    "lingape": ("lingape_soare", {"d": 5}, "Soare, d = 5, K = 6"),
    "swucb": ("swucb_sinusoid", {"T": 240000, "budget": "cuberoot"}, "two arms, T = 240,000"),
    "oam": ("oam_circle", {"K": 100, "horizon": 10000}, "circle, K = 100, d = 2"),
    "opkb": ("opkb_env1", {"T": 10000}, "Env 1, N = 100, d = 10"),
}


def best(make, run, repeats):
    """The least time of `run(obj)` over `repeats` objects `make()` (made outside the timing)."""
    times = []
    for _ in range(repeats):
        obj = make()
        start = time.perf_counter()
        run(obj)
        times.append(time.perf_counter() - start)
    return min(times)


def measure(study, steps, repeats):
    family, settings, label = CASES[study]
    inst = linbandits.build_instance(family, settings)
    probe = linbandits.make_environment(study, inst, 1, 0)      # warms the imports and compiled code
    count = steps if probe.horizon is None else min(steps, probe.horizon)
    arms = np.arange(count) % probe.arms.shape[0]
    setup = best(lambda: None, lambda _: linbandits.make_environment(study, inst, 1, 0), repeats)

    def make():
        return linbandits.make_environment(study, inst, 1, 0)

    def stepped(env):
        for a in arms.tolist():
            env.step(a)

    per_step = best(make, stepped, repeats) / count
    per_pull = best(make, lambda env: env.step_many(arms), repeats) / count
    return label, count, setup, per_step, per_pull


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="steps per run (at most the run's horizon)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--million", type=int, default=10 ** 6, help="pulls of lingape's one step_many call")
    args = parser.parse_args(argv)
    print("| study | instance | steps | setup (ms) | step (us) | step_many (us per pull) |")
    print("|---|---|---:|---:|---:|---:|")
    for study in CASES:
        label, count, setup, per_step, per_pull = measure(study, args.steps, args.repeats)
        print(f"| {study} | {label} | {count} | {setup * 1e3:.1f} | {per_step * 1e6:.2f} | {per_pull * 1e6:.3f} |")
    inst = linbandits.build_instance(*CASES["lingape"][:2])
    arms = np.zeros(args.million, dtype=np.int64)

    seconds = best(lambda: linbandits.make_environment("lingape", inst, 1, 0), lambda env: env.step_many(arms),
                   args.repeats)
    print(f"\nlingape, one step_many of {args.million} pulls of one arm: {seconds:.3f} s")


if __name__ == "__main__":
    main()
