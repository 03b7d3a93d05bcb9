"""`linbandits verify ARCHIVE [--sample N] [--seed S]`: N run ranges of an archived run simulated again
from its config and compared with its runs files.

A run range is one simulate job's share of one setting: (experiment, setting, algorithm, runs a..b),
the runs the pipeline made in one chunk. The ranges are drawn at random (Python's random.Random(S))
among those of the default target's experiments, one study after another so that N >= the number of
studies reaches each, and replayed by the pipeline's own simulate job (`linbandits run-job` on the
plan the workflow writes, replay.replay_command), with the seed the run used
(linbandits.experiments.seed_of). Where a study shares state between the cells of a job (its
Study.job_context: P1-RAGE's design cache, whose count its sidecar records), the replay runs the
job's other settings with it, in the job's order, as the run did.

A range is replayed on the run's instance: the archived file where the archive holds it (those the
products read, and the Yahoo! arm sets built from the synthetic stand-in for R6A), else built from
the config by `linbandits instance-cells` as the run's instance job built it, and checked against
the run's summary of it. Experiments on arm sets built from the real R6A log are not drawn (the
archive does not hold them) and are named as not verified. All this happens in a temporary
directory that is removed afterwards: verify writes nothing else.

How a range is compared depends on the machine (linbandits.archive.lock):
- on the archive's platform (the same CPU model, LLVM target CPU, BLAS kernels and the variables
  that choose kernels), bit for bit: every column of every run, read as collect-runs reads a chunk,
  equals the archived one bit for bit, and so do its per-round curves, its sidecar's record
  (counters, options, instance summary: the products read some of it) and its instance's summary;
- elsewhere, where the last bits may differ and a long run may take another path after a near-tie,
  by distribution: per column, a two-sample Kolmogorov-Smirnov test of the replayed runs against
  the archived runs of the same range (scipy.stats.ks_2samp), at the family-wise level --level
  (default 0.01) split over every column tested (Bonferroni); a column equal bit for bit counts as
  agreeing. The replayed and archived runs share their random numbers, so they are positively
  dependent and the test is conservative: an honest replay is refused with probability at most the
  level, and a change to an algorithm shows once it moves a column's distribution (with the few
  runs of a small range, only a large move).

A user's algorithm (`extra_algorithms` in the archived config) is replayed when its code loads here:
a `path/file.py:Class` the archive holds (its file is archived with the run), or a module installed
here; otherwise its ranges are not drawn, and verify names it as not verified.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from linbandits import catalogue, paths
from linbandits.archive import lock
from linbandits.archive.replay import (RunRange, draw, instance_problem, job_settings, replay_command, run_quietly,
                                       run_ranges, working_directory)
from linbandits.archive.unpack import Unpacked, unpack
from linbandits.errors import UserError

BITS, DISTRIBUTION = "bits", "distribution"


def replay_range(i: int, r: RunRange, mode: str) -> dict:
    """Replay one drawn range and compare it (the instance problem, if any, noted)."""
    curves = catalogue.studies()[r.study].curves
    settings = job_settings(r)
    outs = {s: f"replay/{i}/{r.experiment.name}/{s}/{r.algorithm}/chunk{r.first}-{r.first + r.n - 1}.csv"
            for s in settings}
    for out in outs.values():
        Path(out).parent.mkdir(parents=True, exist_ok=True)
    source, built = instance_problem(r, r.setting)
    others = [p for _, p in (instance_problem(r, s) for s in settings if s != r.setting) if p]
    if (built or others) and mode == BITS:
        return {"failure": built or f"another setting of its job: {others[0]}"}
    failure = run_quietly(replay_command(r, outs, curves))
    if failure:
        return {"failure": failure}
    return {**compare(r, outs[r.setting], mode, curves), "instance": built or source}


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def replayed_columns(r: RunRange, out: str, columns: list[str]) -> dict:
    from linbandits.tables import read_chunk

    chunk = read_chunk(out, ["trial", *columns], integer_columns=("trial",)).sort_values("trial")
    trials = chunk["trial"].to_numpy()
    if not np.array_equal(trials, np.arange(r.first, r.first + r.n)):
        raise UserError(f"verify: the replay of {r.label} wrote runs {trials.min()}-{trials.max()}")
    return {c: chunk[c].to_numpy() for c in columns}


def compare(r: RunRange, out: str, mode: str, curves: bool) -> dict:
    """What agreed: per column (bits, or the KS p-value), curves and sidecar (bits mode)."""
    from linbandits.runs import JOB_ONLY, RunSet

    runs = RunSet(paths.runs_stem(r.config, r.experiment))
    key = f"{r.setting}/{r.algorithm}"
    series = runs.meta["series"][key]
    columns = list(series["columns"])
    replayed = replayed_columns(r, out, columns)
    archived = {c: runs.column(r.setting, r.algorithm, c)[r.first:r.first + r.n] for c in columns}
    result = {"columns": {c: same_bits(archived[c], replayed[c]) for c in columns}, "identical_runs": 0}
    equal_rows = np.ones(r.n, bool)
    for c in columns:
        equal_rows &= np.asarray(archived[c]).astype(float).view(np.uint64) == \
            np.asarray(replayed[c]).astype(float).view(np.uint64)
    result["identical_runs"] = int(equal_rows.sum())
    if mode == DISTRIBUTION:
        from scipy.stats import ks_2samp

        result["p"] = {c: 1.0 if result["columns"][c] else float(ks_2samp(archived[c], replayed[c]).pvalue)
                       for c in columns}
        return result
    if curves:
        from linbandits.npzfile import read_npz

        got = read_npz(str(Path(out).with_suffix(".curves.npz")), "curves file")
        order = np.argsort(got["trial"])
        result["curves"] = all(same_bits(runs.arrays[f"{key}/curve_{name}"][r.first:r.first + r.n], got[name][order])
                               for name in series.get("curves", ())) and \
            same_bits(runs.arrays[f"{key}/curve_t"], got["t"])
    sidecar = json.loads(Path(out).with_suffix(".json").read_text(encoding="utf-8"))
    record = json.loads(json.dumps({k: v for k, v in sidecar.items() if k not in JOB_ONLY}))
    result["sidecar"] = record == series["info"][r.index]
    return result


def agrees(result: dict, mode: str, threshold: float) -> bool:
    if "failure" in result:
        return False
    if mode == DISTRIBUTION:
        return all(p > threshold for p in result["p"].values())
    return all(result["columns"].values()) and result.get("curves", True) and result["sidecar"]


def describe(result: dict, mode: str, threshold: float) -> str:
    if "failure" in result:
        return f"replay failed: {result['failure']}"
    if mode == DISTRIBUTION:
        worst = min(result["p"], key=result["p"].get)
        return (f"{sum(result['columns'].values())}/{len(result['columns'])} columns equal bit for bit; smallest KS "
                f"p = {result['p'][worst]:.3g} ({worst}) against {threshold:.2g}; {result['instance']}")
    differing = [c for c, same in result["columns"].items() if not same]
    parts = [f"{len(result['columns']) - len(differing)}/{len(result['columns'])} columns"
             + (f" (differ: {', '.join(differing[:3])})" if differing else "")]
    if "curves" in result:
        parts.append("curves " + ("equal" if result["curves"] else "differ"))
    parts.append("sidecar " + ("equal" if result["sidecar"] else "differs"))
    return ", ".join([*parts, result["instance"]])


def verify(unpacked: Unpacked, sample: int, seed: int, mode: str, level: float) -> tuple[list, dict, float]:
    """Replay `sample` drawn ranges; (rows, what cannot be replayed here and why, the threshold of each
    distribution test: the level over the number of tests)."""
    ranges, left_out = run_ranges(unpacked)
    if not ranges:
        raise UserError(f"verify: {unpacked.archive} holds no run range that can be replayed here")
    chosen = draw(ranges, sample, seed)
    with working_directory(unpacked.run):
        rows = [(r, replay_range(i, r, mode)) for i, r in enumerate(chosen)]
    tests = sum(len(res.get("p", {})) for _, res in rows) or 1
    return rows, left_out, level / tests


def table(rows, mode: str, threshold: float) -> list[str]:
    lines = ["| # | study | experiment | setting | algorithm | runs | identical runs | compared | agrees |",
             "|---:|---|---|---|---|---|---:|---|---|"]
    for i, (r, res) in enumerate(rows, 1):
        identical = "-" if "failure" in res else f"{res['identical_runs']}/{r.n}"
        lines.append(f"| {i} | {r.study} | {r.experiment.name} | {r.setting} | {r.algorithm} | "
                     f"{r.first}-{r.first + r.n - 1} | {identical} | {describe(res, mode, threshold)} | "
                     f"{'yes' if agrees(res, mode, threshold) else '**no**'} |")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits verify",
                                description="Simulate randomly drawn run ranges of an archived run again and compare "
                                            "them with its runs files: bit for bit on the archive's platform, by "
                                            "distribution elsewhere.")
    p.add_argument("archive", type=Path, help="the .tar.gz that `linbandits archive` wrote")
    p.add_argument("--sample", type=int, default=5, help="run ranges to replay (default 5)")
    p.add_argument("--seed", type=int, default=0, help="the seed of the draw (default 0)")
    p.add_argument("--mode", choices=("auto", BITS, DISTRIBUTION), default="auto",
                   help="auto (default): bits on the archive's platform, distribution elsewhere")
    p.add_argument("--level", type=float, default=0.01,
                   help="family-wise level of the distribution tests (default 0.01)")
    args = p.parse_args(argv)
    if args.sample < 1:
        raise UserError(f"verify: --sample must be at least 1, got {args.sample}")
    if not 0 < args.level < 1:
        raise UserError(f"verify: --level must lie between 0 and 1, got {args.level}")
    scratch = Path(tempfile.mkdtemp(prefix="linbandits-verify-"))
    try:
        unpacked = unpack(args.archive, scratch)
        differences = lock.platform_differences(unpacked.lock, lock.current())
        mode = args.mode if args.mode != "auto" else (DISTRIBUTION if differences else BITS)
        rows, left_out, threshold = verify(unpacked, args.sample, args.seed, mode, args.level)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    where = ("this machine is the archive's platform" if not differences
             else "this machine is not the archive's platform: " + "; ".join(differences))
    how = ("bit for bit" if mode == BITS else
           f"by distribution (two-sample Kolmogorov-Smirnov per column, family-wise level {args.level:g}, "
           f"Bonferroni: each p > {threshold:.3g})")
    print(f"Replayed {len(rows)} run ranges of {args.archive} (draw seed {args.seed}), compared {how}; {where}.")
    print("\n".join(table(rows, mode, threshold)))
    for name, why in left_out.items():
        print(f"not verified: {name}, {why}")
    bad = [r for r, res in rows if not agrees(res, mode, threshold)]
    if bad:
        print(f"error: {len(bad)} of {len(rows)} replayed run ranges disagree with the archive, e.g. {bad[0].label}",
              file=sys.stderr)
        return 1
    print(f"verify: all {len(rows)} replayed run ranges agree with the archive ({how}).")
    return 0
