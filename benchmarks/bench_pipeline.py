"""Where the pipeline's time goes: run a target from empty results and account for it, per study.

    python benchmarks/bench_pipeline.py                       # the default target (every enabled study)
    python benchmarks/bench_pipeline.py --target p1rage       # one study
    python benchmarks/bench_pipeline.py --config preview=true # the preview
    python benchmarks/bench_pipeline.py --configfile .test/config/config.yaml
    python benchmarks/bench_pipeline.py --target lingape --repeat 4   # a budget: min / median / max

Runs the real Snakemake with --cores N in a fresh working directory (the
repository's config unless --configfile), then prints, per study: the number of
simulate jobs, the CPU time their algorithms took (process time, from the
sidecars) and the jobs' summed wall time, the median fixed cost of a job
(its wall time minus the time its algorithm reported running: process
start-up, imports, instance loading, design warm-up), and each algorithm's
share of the study's simulate CPU. The whole run's wall clock and CPU (every
process Snakemake started, Snakemake included) come first.

With --cold every run starts as on a fresh machine: an empty numba cache
(NUMBA_CACHE_DIR points at a new empty directory), as after a fresh checkout. Every run logs numba's compilations
(linbandits.compile_log): a last table gives, per kernel, the jobs that compiled
it and the seconds they spent (a warm run should compile nothing).

With --repeat N the run is made N times, each from empty results, and a last
table gives every run's wall and CPU time (on the 2-core VMs here the same
computation's CPU time varies up to ~1.6x within minutes), then the minimum,
median and maximum, and whether every run wrote the same files.
Interference can only add CPU time, so the minimum bounds the computation's own
cost on this machine; the median and maximum say what a user may see.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from linbandits.compile_log import summary as compile_summary

COMPILE_LOG = "compile.log"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(workdir: Path, args) -> tuple[float, float, float]:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "workflow" / "Snakefile"), "--directory", str(workdir),
           "--cores", str(args.cores), *args.target, "--quiet", "rules"]
    if args.config:
        cmd += ["--config", *args.config]
    if args.scheduler:
        cmd += ["--scheduler", args.scheduler]
    env = dict(os.environ, LINBANDITS_COMPILE_LOG=str(workdir / COMPILE_LOG))
    if args.cold:
        # numba's cache only: a bytecode prefix would also recompile numpy's, scipy's and matplotlib's
        # bytecode, which pip wrote at install time on a fresh machine too
        env.update(NUMBA_CACHE_DIR=str(workdir / "cold-cache" / "numba"))
    cpu0, t0 = children_cpu(), time.perf_counter()
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, text=True, env=env)
        own = snakemake_own_cpu(proc)
        wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
        if proc.returncode != 0:
            stdout.seek(0), stderr.seek(0)
            sys.exit(f"snakemake failed ({proc.returncode}):\n{stdout.read()[-2000:]}\n{stderr.read()[-3000:]}")
    return wall, cpu, own


def snakemake_own_cpu(proc) -> float:
    """Waits for Snakemake; returns the CPU of its own process (not its jobs'), sampled every 0.5 s
    (the last sample before it exits: under-counts by at most the last half second)."""
    import psutil

    own = 0.0
    try:
        handle = psutil.Process(proc.pid)
        while proc.poll() is None:
            times = handle.cpu_times()
            own = times.user + times.system
            time.sleep(0.5)
    except psutil.NoSuchProcess:
        pass
    proc.wait()
    return own


def job_records(workdir: Path, prefix: str):
    """One record per simulate job (experiment, algorithm or `all` when bundled, run range; every
    setting of the experiment): study, wall, and per algorithm the time it ran (the cells' sidecars)."""
    root = workdir / prefix
    for bench in sorted((root / "logs").glob("*/benchmarks/simulate/*/*/*.tsv")):
        study, _, _, experiment, algorithm = bench.relative_to(root / "logs").parts[:5]
        with open(bench) as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        pattern = f"*/*/{bench.stem}.json" if algorithm == "all" else f"*/{algorithm}/{bench.stem}.json"
        if experiment == "all":      # job_size study (the preview): one job for the study, one per user algorithm
            experiment, pattern = ".", "*/*/*/*.json" if algorithm == "all" else f"*/*/{algorithm}/*.json"
        seconds = defaultdict(float)
        cpu = 0.0
        for path in (root / "results" / study / "raw" / experiment).glob(pattern):
            sidecar = json.loads(path.read_text())
            seconds[path.parent.name] += float(sidecar.get("elapsed_seconds", 0.0))
            cpu += float(sidecar.get("cpu_seconds", 0.0))
        yield {"study": study, "wall": float(row["s"]), "per_algorithm": dict(seconds),
               "algorithm_seconds": sum(seconds.values()), "algorithm_cpu": cpu}


def stage_seconds(workdir: Path, prefix: str) -> dict:
    """Job seconds (wall time of each job's processes) by study and stage (simulate, runs, instances,
    products), from the jobs' benchmark files. Every job is one single-threaded process, so its wall
    time is the core time it held; Snakemake's own cpu_time column samples the process tree and misses
    most of a short job's CPU, so it is not used."""
    out: dict = defaultdict(lambda: defaultdict(float))
    root = workdir / prefix / "logs"
    for bench in root.glob("*/benchmarks/**/*.tsv"):
        study, _, stage = bench.relative_to(root).parts[:3]
        stage = stage if stage in ("simulate", "runs", "instances") else "products"
        with open(bench) as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        out[study][stage] += float(row["s"])
    return out


def jobs_run(workdir: Path) -> int:
    """Every job Snakemake finished (its log says 'Finished jobid' once per job)."""
    return sum(log.read_text().count("Finished jobid") for log in (workdir / ".snakemake" / "log").glob("*.log"))


def report(records, wall, cpu, own, jobs, stages=None) -> str:
    lines = [f"whole run: {wall:.1f} s wall, {cpu / 60:.2f} CPU-min (every process; Snakemake's own "
             f"{own / 60:.2f}), {jobs} jobs of which {len(records)} simulate jobs", ""]
    if stages:
        lines.append("Core-minutes held by jobs (a job's wall time; every job is one single-threaded process): "
                     "the algorithms (the time the runs took, from the sidecars), the rest of the simulate "
                     "jobs (start-up: imports, numba's cache, instance loading, writing), instances, runs "
                     "files, and the tables, figures and claims.")
        lines.append("")
        lines.append("| study | algorithms | simulate start-up | instances | runs files | tables, figures, claims | total |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for study, by in sorted(stages.items()):
            algo = sum(r["algorithm_seconds"] for r in records if r["study"] == study)
            cells = [algo, max(0.0, by["simulate"] - algo), by["instances"], by["runs"], by["products"]]
            lines.append(f"| {study} | " + " | ".join(f"{c / 60:.2f}" for c in cells) + f" | {sum(cells) / 60:.2f} |")
        lines.append("")
    by_study = defaultdict(list)
    for r in records:
        by_study[r["study"]].append(r)
    lines.append("| study | simulate jobs | algorithm CPU (min) | job wall (min) | median fixed cost per job (s) |")
    lines.append("|---|---:|---:|---:|---:|")
    for study, rows in by_study.items():
        fixed = statistics.median(max(0.0, r["wall"] - r["algorithm_seconds"]) for r in rows)
        lines.append(f"| {study} | {len(rows)} | {sum(r['algorithm_cpu'] for r in rows) / 60:.2f} | "
                     f"{sum(r['wall'] for r in rows) / 60:.2f} | {fixed:.2f} |")
    for study, rows in by_study.items():
        total = sum(r["algorithm_seconds"] for r in rows) or 1.0
        per_algo = defaultdict(float)
        for r in rows:
            for algorithm, seconds in r["per_algorithm"].items():
                per_algo[algorithm] += seconds
        shares = ", ".join(f"{a} {100 * s / total:.0f}%" for a, s in sorted(per_algo.items(), key=lambda kv: -kv[1]))
        lines.append(f"\n{study}: algorithm time {total / 60:.2f} min; shares: {shares}")
    return "\n".join(lines)


def output_digest(workdir: Path) -> str:
    """md5 over every file under results/ and figures/ but the simulate sidecars (they record timings)."""
    digest = hashlib.md5()
    for path in sorted(p for d in ("results", "figures") for p in (workdir / d).rglob("*") if p.is_file()):
        rel = path.relative_to(workdir).as_posix()
        if "/raw/" in rel and rel.endswith(".json"):
            continue
        digest.update(rel.encode() + b"\0" + hashlib.md5(path.read_bytes()).digest())
    return digest.hexdigest()


def compile_report(workdir: Path) -> tuple[str, float]:
    """The kernels numba compiled in the run (outermost compilations), and their summed seconds."""
    log = workdir / COMPILE_LOG
    rows = compile_summary(log) if log.exists() else []
    total = sum(r["seconds"] for r in rows)
    if not rows:
        return "\nnumba compiled nothing (every kernel came from its cache)", 0.0
    lines = [f"\nnumba compiled {len(rows)} kernels: {total:.1f} s in all (summed over the jobs that compiled them)",
             "", "| kernel | jobs that compiled it | seconds (summed) |", "|---|---:|---:|"]
    lines += [f"| {r['kernel']} | {r['processes']} | {r['seconds']:.1f} |" for r in rows]
    return "\n".join(lines), total


def repeat_report(runs) -> str:
    cpus = [r["cpu"] / 60 for r in runs]
    walls = [r["wall"] for r in runs]
    lines = ["", "| run | wall (s) | CPU-min | algorithms CPU-min | numba compiling (s) |", "|---:|---:|---:|---:|---:|"]
    for k, r in enumerate(runs, 1):
        lines.append(f"| {k} | {r['wall']:.1f} | {r['cpu'] / 60:.2f} | {r['algorithms'] / 60:.2f} | "
                     f"{r['compile']:.1f} |")
    lines.append(f"\nWall s over {len(runs)} runs: min {min(walls):.1f}, median {statistics.median(walls):.1f}, "
                 f"max {max(walls):.1f}")
    lines.append(f"CPU-min over {len(runs)} runs: min {min(cpus):.2f}, median {statistics.median(cpus):.2f}, "
                 f"max {max(cpus):.2f}; every run wrote the same files (sidecars aside): "
                 f"{'yes' if len({r['digest'] for r in runs}) == 1 else 'NO'}")
    return "\n".join(lines)


def one_run(args, workdir: Path) -> dict:
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    shutil.copy(args.configfile, workdir / "config" / "config.yaml")
    wall, cpu, own = run(workdir, args)
    prefix = "preview" if any(c.replace(" ", "") in ("preview=true", "preview=True") for c in args.config) else ""
    records = list(job_records(workdir, prefix))
    print(report(records, wall, cpu, own, jobs_run(workdir), stage_seconds(workdir, prefix)), flush=True)
    compiled, compile_seconds = compile_report(workdir)
    print(compiled, flush=True)
    return {"wall": wall, "cpu": cpu, "digest": output_digest(workdir), "compile": compile_seconds,
            "algorithms": sum(r["algorithm_cpu"] for r in records)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", nargs="*", default=[], help="Snakemake targets (default: the default target)")
    parser.add_argument("--config", nargs="*", default=[], help="--config K=V entries passed to Snakemake")
    parser.add_argument("--configfile", type=Path, default=ROOT / "config" / "config.yaml")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--scheduler", choices=["ilp", "greedy"], help="Snakemake's job scheduler (default: Snakemake's)")
    parser.add_argument("--workdir", type=Path, help="run here (must not exist); default: a temporary directory")
    parser.add_argument("--keep", action="store_true", help="keep the temporary working directory")
    parser.add_argument("--cold", action="store_true",
                        help="every run with an empty numba cache, as on a fresh machine")
    parser.add_argument("--repeat", type=int, default=1, help="run N times, each from empty results (min / median / max)")
    parser.add_argument("--report-only", type=Path, metavar="DIR",
                        help="run nothing: account for the run kept in DIR (its jobs' times; no whole-run clock)")
    args = parser.parse_args(argv)
    if args.report_only:
        prefix = "preview" if (args.report_only / "preview" / "logs").is_dir() else ""
        records = list(job_records(args.report_only, prefix))
        print(report(records, 0.0, 0.0, 0.0, jobs_run(args.report_only), stage_seconds(args.report_only, prefix)))
        return 0
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    base = args.workdir or Path(tempfile.mkdtemp(prefix="bench_pipeline_"))
    runs = []
    try:
        for k in range(args.repeat):
            if args.repeat > 1:
                print(f"\n## run {k + 1} of {args.repeat}\n", flush=True)
            runs.append(one_run(args, base if args.repeat == 1 else base / f"run{k + 1}"))
        if args.repeat > 1:
            print(repeat_report(runs))
    finally:
        if not (args.keep or args.workdir):
            shutil.rmtree(base, ignore_errors=True)
        else:
            print(f"\nworking directory kept: {base}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
