"""The opt-in tuning of spec C: grid points, several a job (`points_per_job`; every Env 1 instance seed), the best point
(the table is a product of the `opkb_tuning` target: linbandits.studies.opkb.products). The jobs are the
study's own (Study.jobs): each reads its points from the study's plan file, like a simulate job.

Grids (config `tuning:`): `grids` are full Cartesian products (SW-GPUCB, WGPUCB); `sweeps` vary one
option at a time around the algorithm's configured point (ADA-OPKB: its 1e7-point grid is not exhausted,
spec C). Criterion: mean final regret over the experiment's instance seeds (DEFAULT, spec C). Each run
uses the experiment's own seed for its setting, so a point equal to the configured options reproduces
the experiment's runs exactly.
"""
from __future__ import annotations

import itertools
import json

import numpy as np

from linbandits.atomic import write_text_atomic
from linbandits.catalogue import make_algorithm
from linbandits.problems import load_instance_file

RUNNER = "linbandits.studies.opkb.tuning:run_points"


def valid(options: dict) -> bool:
    """mu_1 = 0.5 2^(-1/2) mu_scale must be <= 1, else P^(1) has negative entries (the grid's mu_scale > 2.83)."""
    return options.get("mu_scale", 0.0) * 0.5 * 2 ** -0.5 <= 1


def grid_points(tuning: dict, base_options: dict) -> dict[str, list[dict]]:
    """algorithm -> list of option dicts (the grid's points, in a fixed order), base = the experiment's point."""
    from linbandits.catalogue import algorithm_class

    out: dict[str, list[dict]] = {}
    for algorithm, grid in (tuning.get("grids") or {}).items():
        keys = sorted(grid)
        out[algorithm] = [{**base_options.get(algorithm, {}), **dict(zip(keys, values))}
                          for values in itertools.product(*(grid[k] for k in keys))]
    for algorithm, sweeps in (tuning.get("sweeps") or {}).items():
        base = {**algorithm_class(algorithm).defaults, **base_options.get(algorithm, {})}
        points = [dict(base_options.get(algorithm, {}))]
        for key in sorted(sweeps):
            points += [{**base_options.get(algorithm, {}), key: value} for value in sweeps[key]
                       if base.get(key) != value and valid({**base, key: value})]
        out.setdefault(algorithm, []).extend(points)
    return out


def point_file(algorithm: str, index: int) -> str:
    """A grid point's result file, under results/opkb/ (the rule that writes it and the table that reads it)."""
    return f"tuning/{algorithm}/point{index:04d}.json"


def point_batches(points: dict[str, list[dict]], per_job: int) -> list[tuple[str, int, range]]:
    """(algorithm, first index, indices) of each tuning job: `per_job` consecutive points of one algorithm
    (the last batch of an algorithm may be shorter). Every point is in exactly one batch."""
    return [(algorithm, first, range(first, min(first + per_job, len(options))))
            for algorithm, options in points.items() for first in range(0, len(options), per_job)]


def jobs(config) -> list:
    """The tuning's jobs (linbandits.jobs.PlannedRule), one per batch of `points_per_job` points of one
    algorithm (point_batches), named opkb_tune_<algorithm>_<first point>: one process and one Snakemake job for several
    points (Snakemake's own bookkeeping costs ~3 CPU-s a job with ~1,000 pending), the files of the points.
    Each point runs the algorithm with its options on every instance seed of the tuning experiment, with that
    experiment's own job seeds."""
    from linbandits import experiments, paths
    from linbandits.jobs import PlannedRule, job_files

    tuning = config["studies"]["opkb"].get("tuning") or {}
    if not tuning:
        return []
    exp = experiments.experiments(config)[tuning["experiment"]]
    points = grid_points(tuning, exp.options)
    instances = [paths.instance_path(config, exp, s) for s in exp.setting_ids()]
    runs = [{"instance": paths.instance_path(config, exp, s), "seed": experiments.seed_of(config, exp, s)}
            for s in exp.setting_ids()]
    out = []
    for algorithm, first, indices in point_batches(points, int(tuning.get("points_per_job", 10))):
        files = [f"{paths.prefix(config)}results/opkb/{point_file(algorithm, i)}" for i in indices]
        plan = {"runner": RUNNER, "runs": runs,
                "points": [{"algorithm": algorithm, "out": f,      # options as text, as the simulate jobs'
                            "options": {k: str(v) for k, v in sorted(points[algorithm][i].items())}}
                           for i, f in zip(indices, files)]}
        out.append(PlannedRule(rule=f"opkb_tune_{algorithm.replace('-', '_')}_{first:04d}", study="opkb",
                               outputs={"points": files}, inputs=tuple(instances), wildcards=({},),
                               plan=lambda w, plan=plan: plan, runtime=60 * len(indices),
                               **job_files(config, "opkb", f"tuning/{algorithm}/points{first:04d}")))
    return out


def run_points(plan: dict) -> int:
    """A tuning job: each point's algorithm with its options on every run (instance file, seed), one trial
    each; its final regrets, their mean and standard error written to the point's file."""
    for point in plan["points"]:
        regrets = []
        for run in plan["runs"]:
            algorithm = make_algorithm(point["algorithm"], load_instance_file(run["instance"]), point["options"])
            regrets.append(float(algorithm.simulate(int(run["seed"]), np.array([0])).columns["regret"][0]))
        out = {"algorithm": point["algorithm"], "options": algorithm.options, "regrets": regrets,
               "mean": float(np.mean(regrets)), "se": float(np.std(regrets, ddof=1) / np.sqrt(len(regrets)))
               if len(regrets) > 1 else float("nan")}
        write_text_atomic(point["out"], json.dumps(out) + "\n")
    return 0


def varied_options(options: dict) -> dict:
    """A grid point's options without those no grid varies (the experiment's noise, kernel and delta)."""
    return {k: v for k, v in options.items() if k not in ("noise", "rbf_length", "delta")}


def write_tuning_table(points, table_paths, json_path) -> None:
    """The grid's table (every point, best first per algorithm) and the best point of each algorithm."""
    rows = []
    for path in points:
        data = json.loads(open(path, encoding="utf-8").read())
        varied = varied_options(data["options"])
        rows.append({"algorithm": data["algorithm"], "options": json.dumps(varied, sort_keys=True),
                     "n_runs": len(data["regrets"]), "mean_regret": data["mean"], "se": data["se"], **varied})
    import pandas as pd     # here, not at the top: each of the ~1,800 point jobs would import it for nothing

    from linbandits.tables import write_table

    table = pd.DataFrame(rows).sort_values(["algorithm", "mean_regret"], kind="stable", ignore_index=True)
    best = {a: json.loads(t.iloc[0]["options"]) | {"mean_regret": float(t.iloc[0]["mean_regret"])}
            for a, t in table.groupby("algorithm", sort=True)}
    summary = {"best": best, "best_window": best.get("SW-GPUCB", {}).get("window"),
               "best_discount": best.get("WGPUCB", {}).get("discount")}
    write_table(table[["algorithm", "options", "n_runs", "mean_regret", "se"]], *table_paths,
                exact_columns=("n_runs", "options"))
    write_text_atomic(json_path, json.dumps(summary, indent=2, sort_keys=True) + "\n")
