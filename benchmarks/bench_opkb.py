"""Benchmark of the opkb study: fast engines against the plain round-by-round oracles (same runs, same
numbers), the per-run cost of every kernel algorithm at the published size, projected to the default
target (`snakemake opkb`: every experiment of config/config.yaml, or of --configfile), and this code against a
baseline commit in the same run.

    PYTHONPATH=src python benchmarks/bench_opkb.py [--quick] [--neural] [--configfile config/config.yaml]
    PYTHONPATH=src python benchmarks/bench_opkb.py --baseline core [--seeds 5] [--opt-in] [--neural] [--repeat 2]
                                                   [--experiments NAME ...]

Prints CPU seconds (process time, one BLAS thread) and the fast/plain ratios. The GP-UCB family's compiled
round loops are loaded (or compiled, on a fresh checkout) before any timing: a pipeline process pays that
once (about 0.5 CPU-s from numba's cache), not once a run.

--baseline REV: the baseline's src/ (`git archive REV`; or REV is a directory: another checkout's src/) and
this checkout's are timed on the same cells, one subprocess per (version, experiment, algorithm), the two
versions alternating (and their order reversed on each repeat, so that a drift of the machine's speed favours
neither): every experiment of the default target (or those of --experiments; switch runs included; --opt-in
adds the opt-in ones; the neural variants, of the default target too, only with --neural, and never their
opt-in precision and width switch runs) on its first --seeds instance seeds, one run each, as the
pipeline runs them (the pipeline's job seeds). Per cell: CPU-s a run of each version (the least over
repeats), their ratio, and whether both versions' runs are bit for bit the same (every CSV column and
curve). Then per algorithm and per experiment, and the fixed cost of a simulate job (process CPU of
`linbandits simulate` on the config's first Env 1 cell, less the CPU its run took) of the timed
algorithms.

The .test config, --quick or --experiments with one small experiment, and --baseline src (this checkout
against itself) make the tiny cases tests/test_benchmarks_smoke.py runs: they only check that it runs.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEURAL = {"OPNN", "OPNN0", "ADA-OPNN"}


def cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


# ------------------------------------------------------------------ worker (runs under either version's src/)

def worker(experiment: str, algorithm: str, seeds: int, configfile: Path) -> int:
    """One (experiment, algorithm) on its first `seeds` settings, under the linbandits on PYTHONPATH: prints
    JSON {cpu: [CPU-s of each run], digest: md5 of every run's columns and curves}."""
    import numpy as np
    import yaml

    from linbandits import experiments
    from linbandits.catalogue import build_instance, make_algorithm
    from linbandits.studies.opkb.kernels import one_blas_thread

    one_blas_thread()
    config = yaml.safe_load(configfile.read_text())
    exp = experiments.study_experiments(config, "opkb")[experiment]
    digest = hashlib.md5()
    seconds = []
    for k, setting in enumerate(exp.setting_ids()[:seeds]):
        instance = build_instance(exp.instance, exp.instance_settings(setting))
        algo = make_algorithm(algorithm, instance, exp.options.get(algorithm, {}))
        if k == 0 and algorithm in ("GP-UCB", "SW-GPUCB", "WGPUCB"):
            warm_compiled_loops()
        spent, records = cpu(lambda: algo.simulate(experiments.seed_of(config, exp, setting), np.arange(exp.trials)))
        seconds.append(spent)
        for name in sorted(records.columns):
            digest.update(name.encode() + np.ascontiguousarray(records.columns[name]).tobytes())
        for name in sorted(records.curves or {}):
            digest.update(name.encode() + np.ascontiguousarray(records.curves[name]).tobytes())
    print(json.dumps({"cpu": seconds, "digest": digest.hexdigest()}))
    return 0


def warm_compiled_loops():
    """Load (or compile) the GP-UCB family's numba loops outside the timed runs."""
    from linbandits.studies.opkb import gpucb
    from linbandits.studies.opkb.features import features
    from linbandits.studies.opkb.instances import opkb_env1

    warm = opkb_env1(seed=0, N=12, d=3, T=50, switch=20)
    warm_phi = features(warm.arms, 0.2)
    gpucb.run_gpucb(warm, warm_phi, {"rbf_length": 0.2, "noise": "truncated", "lam": 20.0, "v": 0.01}, 0, 0, 10)
    gpucb.run_wgpucb(warm, warm_phi, {"rbf_length": 0.2, "noise": "truncated", "lam": 0.01, "scale": 0.5,
                                      "discount": 0.9996}, 0, 0)


# ------------------------------------------------------------------ this checkout against a baseline

def baseline_src(rev: str, into: Path) -> Path:
    """src/ of commit `rev`, extracted under `into`; `rev` itself when it is a directory of the package."""
    if (Path(rev) / "linbandits").is_dir():
        return Path(rev).resolve()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "src"], check=True,
                             capture_output=True).stdout
    with tempfile.TemporaryFile() as handle:
        handle.write(archive)
        handle.seek(0)
        with tarfile.open(fileobj=handle) as tar:
            tar.extractall(into, filter="data")
    return into / "src"


def run_worker(src: Path, experiment: str, algorithm: str, seeds: int, configfile: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, __file__, "--worker", experiment, algorithm, str(seeds),
                          "--configfile", str(configfile)], env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def cells(opt_in: bool, configfile: Path, only=None, neural: bool = False):
    from linbandits import experiments
    from linbandits.study_config import read_config

    config = read_config(configfile)
    exps = experiments.study_experiments(config, "opkb")
    unknown = sorted(set(only or ()) - set(exps))
    if unknown:
        sys.exit(f"--experiments: {', '.join(unknown)} not in {configfile}; its opkb experiments: {', '.join(exps)}")
    for name, exp in exps.items():
        if exp.opt_in and not (opt_in and exp.opt_in == "robustness"):
            continue
        if only and name not in only:
            continue
        if set(exp.algorithms) <= NEURAL and (exp.opt_in or not neural):
            continue
        for algorithm in exp.algorithms:
            yield name, algorithm, len(exp.setting_ids()) * exp.trials


def env1_setting(configfile: Path) -> str:
    """The settings of the config's first Env 1 instance, as `linbandits instance --setting` takes them."""
    from linbandits import experiments
    from linbandits.study_config import read_config

    exp = experiments.study_experiments(read_config(configfile), "opkb")["opkb_env1"]
    return ",".join(f"{k}={v}" for k, v in exp.instance_settings(exp.setting_ids()[0]).items())


def startup_cost(src: Path, workdir: Path, algorithm: str, instance_file: Path) -> float:
    """CPU-s of a `linbandits simulate` process on one cell, less the CPU its run took (sidecar)."""
    out = workdir / f"{algorithm}-{abs(hash(str(src)))}.csv"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "linbandits", "simulate", "--algorithm", algorithm, "--first-trial",
                    "0", "--trials", "1", "--curves", str(out.with_suffix(".curves.npz")), "--instance-file",
                    str(instance_file), "--seed", "12345", "--out", str(out)],
                   env={**os.environ, "PYTHONPATH": str(src)}, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return process - json.loads(out.with_suffix(".json").read_text())["cpu_seconds"]


def compare(args) -> int:
    import yaml

    from linbandits.study_config import read_config

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        versions = {"baseline": baseline_src(args.baseline, tmp / "baseline"), "current": ROOT / "src"}
        print(f"baseline {args.baseline} ({versions['baseline']}) against this checkout ({ROOT}); "
              f"{args.seeds} seed(s) per experiment, {args.repeat} repeat(s); load average "
              f"{os.getloadavg()[0]:.2f} at the start", flush=True)
        # The workers read one complete file (the baseline may predate the studies' own defaults).
        merged = tmp / "config.yaml"
        merged.write_text(yaml.safe_dump(read_config(args.configfile), sort_keys=False))
        args.configfile = merged
        rows = []
        for k, (experiment, algorithm, runs) in enumerate(cells(args.opt_in, args.configfile, args.experiments,
                                                                 args.neural)):
            best = {}
            digests = {}
            for r in range(args.repeat):
                order = ["baseline", "current"] if (k + r) % 2 == 0 else ["current", "baseline"]
                for version in order:
                    result = run_worker(versions[version], experiment, algorithm, args.seeds, args.configfile)
                    per_run = sum(result["cpu"]) / len(result["cpu"])
                    best[version] = min(best.get(version, per_run), per_run)
                    digests.setdefault(version, set()).add(result["digest"])
            same = digests["baseline"] == digests["current"] and len(digests["current"]) == 1
            rows.append((experiment, algorithm, runs, best["baseline"], best["current"], same))
            print(f"{experiment:28s} {algorithm:9s} {best['baseline']:6.3f} -> {best['current']:6.3f} CPU-s a run "
                  f"(x{best['baseline'] / best['current']:.2f}); runs bit for bit the same: {'yes' if same else 'NO'}",
                  flush=True)
        print("\n| algorithm | runs | baseline CPU-s | current CPU-s | ratio |\n|---|---:|---:|---:|---:|")
        for what, key in (("algorithm", 1), ("experiment", 0)):
            if what == "experiment":
                print("\n| experiment | runs | baseline CPU-s | current CPU-s | ratio |\n|---|---:|---:|---:|---:|")
            totals = defaultdict(lambda: [0, 0.0, 0.0])
            for row in rows:
                t = totals[row[key]]
                t[0] += row[2]
                t[1] += row[2] * row[3]
                t[2] += row[2] * row[4]
            for name, (runs, base, cur) in totals.items():
                print(f"| {name} | {runs} | {base:.1f} | {cur:.1f} | {base / cur:.2f} |")
        base, cur = sum(r[2] * r[3] for r in rows), sum(r[2] * r[4] for r in rows)
        print(f"\nprojected to every run ({sum(r[2] for r in rows)} runs): baseline {base:.0f} CPU-s, current "
              f"{cur:.0f} CPU-s, ratio {base / cur:.2f}; every cell's runs bit for bit the same: "
              f"{'yes' if all(r[5] for r in rows) else 'NO'}")
        instance_file = tmp / "env1_seed0.npz"
        setting = env1_setting(args.configfile)
        subprocess.run([sys.executable, "-m", "linbandits", "instance", "--instance", "opkb_env1", "--setting",
                        setting, "--out", str(instance_file), "--summary", str(tmp / "env1_seed0.json")],
                       env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, check=True, capture_output=True)
        print(f"\nfixed cost of a simulate job (process CPU-s less the run's), one Env 1 cell ({setting}):")
        timed = {row[1] for row in rows}
        for algorithm in [a for a in ("ADA-OPKB", "OPKB", "SW-GPUCB", "WGPUCB") if a in timed]:
            costs = {v: [] for v in versions}
            for r in range(args.repeat + 1):
                for version in (["baseline", "current"] if r % 2 == 0 else ["current", "baseline"]):
                    costs[version].append(startup_cost(versions[version], tmp, algorithm, instance_file))
            b, c = min(costs["baseline"]), min(costs["current"])
            print(f"  {algorithm:9s} baseline {b:.2f} CPU-s, current {c:.2f} CPU-s (least of {args.repeat + 1})")
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


# ------------------------------------------------------------------ engines against the oracles; projection

def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="skip the published-size projection")
    p.add_argument("--neural", action="store_true",
                   help="also the neural variants of the default target (slow; not their opt-in width/precision "
                        "switch runs, whose measured costs docs/opkb.md gives)")
    p.add_argument("--baseline", metavar="REV", help="time this checkout against commit REV, cell by cell")
    p.add_argument("--seeds", type=int, default=5, help="--baseline: instance seeds per experiment")
    p.add_argument("--repeat", type=int, default=1, help="--baseline: repeats (the least CPU counts)")
    p.add_argument("--opt-in", action="store_true", help="--baseline: also the opt-in switch runs")
    p.add_argument("--experiments", nargs="+", metavar="NAME", help="--baseline: only these experiments")
    p.add_argument("--configfile", type=Path, default=ROOT / "config" / "config.yaml",
                   help="the config whose opkb experiments are timed and projected")
    p.add_argument("--worker", nargs=3, metavar=("EXPERIMENT", "ALGORITHM", "SEEDS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args.worker[0], args.worker[1], int(args.worker[2]), args.configfile)
    if args.baseline:
        return compare(args)

    import numpy as np

    sys.path.insert(0, str(ROOT / "tests" / "opkb"))
    from opkb_oracle import gpucb_oracle, opkb_oracle

    from linbandits import experiments
    from linbandits.catalogue import build_instance, make_algorithm
    from linbandits.studies.opkb import gpucb, opkb
    from linbandits.studies.opkb.kernels import one_blas_thread
    from linbandits.studies.opkb.features import features
    from linbandits.studies.opkb.instances import opkb_env1
    from linbandits.study_config import read_config

    one_blas_thread()
    warm_compiled_loops()

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
    config = read_config(args.configfile)
    total = {"default": 0.0, "opt-in": 0.0}
    for name, exp in experiments.study_experiments(config, "opkb").items():
        if set(exp.algorithms) <= NEURAL and (exp.opt_in or not args.neural):
            continue
        setting = exp.setting_ids()[0]
        instance = build_instance(exp.instance, exp.instance_settings(setting))
        for algorithm in exp.algorithms:
            algo = make_algorithm(algorithm, instance, exp.options.get(algorithm, {}))
            seconds, _ = cpu(lambda: algo.simulate(1, np.array([0])))
            runs = exp.trials * len(exp.setting_ids())
            total["opt-in" if exp.opt_in else "default"] += seconds * runs
            print(f"{name:28s} {algorithm:10s} {seconds:6.2f} CPU-s a run x {runs} runs = {seconds * runs:7.1f} CPU-s"
                  f"{'  (opt-in: ' + exp.opt_in + ')' if exp.opt_in else ''}")
    print(f"default target, simulation only (projected from one run each): {total['default']:.0f} CPU-s = "
          f"{total['default'] / 60:.1f} CPU-min{' (neural included)' if args.neural else ' (neural not included)'}; "
          f"opt-in experiments: "
          f"{total['opt-in']:.0f} CPU-s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
