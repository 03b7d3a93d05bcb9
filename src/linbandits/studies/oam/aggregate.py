"""Raw chunks of every (experiment, algorithm) -> one checked file per experiment: the runs'
regret curves, their final regret and the lower-bound constant C of the instance.

`linbandits oam-aggregate --manifest JSON --out-dir DIR` writes DIR/<experiment>.npz + .json.
For an instance whose theta is redrawn per run (D.2), C is the median over the runs of
C(theta_r), the theta each run really played against (the mean is heavy-tailed).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np

from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError, json_argument
from linbandits.npzfile import read_npz, write_npz
from linbandits.problems import load_instance_file
from linbandits.studies.oam.allocation import lower_bound
from linbandits.studies.oam.streams import run_theta
from linbandits.tables import collect_trials, read_summary


@dataclasses.dataclass
class Aggregate:
    experiment: str
    meta: dict                  # title, horizon, n_runs, C, switch_of, switch, changes, algorithms
    t: np.ndarray               # rounds of the curves
    regret: dict                # algorithm -> runs x len(t) cumulative regret

    @property
    def horizon(self) -> int:
        return int(self.meta["horizon"])

    @property
    def C(self) -> float:
        return float(self.meta["C"])

    def final(self, algo) -> np.ndarray:
        return self.regret[algo][:, -1]

    def at(self, algo, t) -> np.ndarray:
        """Per-run cumulative regret at round t (t must be on the curve grid)."""
        where = np.flatnonzero(self.t == t)
        if where.size == 0:
            raise UserError(f"{self.experiment}: round {t} is not on the curve grid")
        return self.regret[algo][:, where[0]]


def aggregate_experiment(name: str, spec: dict) -> Aggregate:
    n = int(spec["trials"])
    curves = {}
    for algo, chunks in spec["series"].items():
        runs = collect_trials(chunks, n, columns=("trial", "regret"), integer_columns=("trial",))
        parts = []
        grid = None
        for chunk in chunks:
            arrays = read_npz(Path(chunk).with_suffix(".curves.npz"), "curves file")
            if grid is not None and not np.array_equal(grid, arrays["t"]):
                raise UserError(f"{chunk}: its curves use another round grid than the other chunks")
            grid = arrays["t"]
            parts.append((arrays["trial"], arrays["regret"]))
        trials = np.concatenate([p[0] for p in parts])
        regret = np.vstack([p[1] for p in parts])[np.argsort(trials, kind="stable")]
        if not np.array_equal(np.sort(trials), np.arange(n)):
            raise UserError(f"experiment {name}, {algo}: the curves files do not hold runs 0..{n - 1} once each")
        if not np.allclose(regret[:, -1], runs["regret"].to_numpy(), rtol=0, atol=1e-9):
            raise UserError(f"experiment {name}, {algo}: curves and CSV disagree on the final regret")
        curves[algo] = regret
    summary = read_summary(spec["summary"], ("lower_bound_C", "horizon"))
    C, note = float(summary["lower_bound_C"]), "C(theta) of the instance"
    if summary.get("theta_random"):
        inst = load_instance_file(spec["instance"])
        values = [lower_bound(inst.actions, run_theta(inst, spec["seed"], r)).C for r in range(n)]
        # C(theta) is heavy-tailed in theta (an arm next to the optimum makes it huge): the median
        # is the reference line; the mean is kept beside it.
        C, note = float(np.median(values)), (f"median over the runs of C(theta_r), theta redrawn per run "
                                            f"(mean {np.mean(values):.4g})")
    meta = {
        "experiment": name, "title": spec.get("title", name), "horizon": int(summary["horizon"]), "n_runs": n,
        "seed": spec["seed"], "C": C, "C_note": note, "algorithms": list(curves),
        "switch_of": spec.get("switch_of"), "switch": spec.get("switch"), "changes": spec.get("changes", ""),
    }
    return Aggregate(name, meta, grid, curves)


def write_aggregate(agg: Aggregate, out_dir) -> None:
    out = Path(out_dir)
    arrays = {"t": agg.t}
    for i, algo in enumerate(agg.meta["algorithms"]):
        arrays[f"regret_{i}"] = agg.regret[algo]
    write_npz(out / f"{agg.experiment}.npz", arrays)
    write_text_atomic(out / f"{agg.experiment}.json", json.dumps(agg.meta, indent=2) + "\n")


def read_aggregate(stem) -> Aggregate:
    stem = Path(stem)
    try:
        meta = json.loads(stem.with_suffix(".json").read_text())
    except FileNotFoundError:
        raise UserError(f"aggregate {stem}.json does not exist") from None
    arrays = read_npz(stem.with_suffix(".npz"), "aggregate")
    regret = {algo: arrays[f"regret_{i}"] for i, algo in enumerate(meta["algorithms"])}
    return Aggregate(meta["experiment"], meta, arrays["t"], regret)


def main_aggregate(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits oam-aggregate")
    p.add_argument("--manifest", required=True, help="JSON: {experiment: {title, trials, seed, summary, instance, "
                                                      "series: {algorithm: [chunk csv, ...]}, switch_of, switch}}")
    p.add_argument("--out-dir", required=True)
    args = p.parse_args(argv)
    manifest = json_argument(args.manifest, "--manifest")
    for name, spec in manifest.items():
        write_aggregate(aggregate_experiment(name, spec), args.out_dir)
    return 0
