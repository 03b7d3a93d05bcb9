"""Every run of an experiment in one file: the one aggregator every study's products read.

A simulate job writes raw chunks, one CSV per (setting, algorithm, run range):
    results/<study>/raw/<experiment>/<setting>/<algorithm>/chunk<a>-<b>.csv
with a JSON sidecar (and, for curve studies, .curves.npz) beside it. `collect` checks that
each (setting, algorithm) holds runs 0..n-1 exactly once and writes
    results/<study>/runs/<experiment>.npz   per-run columns and curves, sorted by run
    results/<study>/runs/<experiment>.json  settings, algorithms, columns, the sidecars' extras
Tables, figures and claims read these files only: a number is computed from the same runs
whichever product shows it. `mean_se` and `curve_mean_se` are the one mean / standard error.
"""
from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path

import numpy as np

from linbandits.atomic import write_json_atomic
from linbandits.errors import UserError
from linbandits.npzfile import read_npz, write_npz

CHUNK = re.compile(r"(?P<setting>[^/]+)/(?P<algorithm>[^/]+)/chunk(?P<first>\d+)-(?P<last>\d+)\.csv$")
# Sidecar entries that describe the job rather than the runs (they differ between runs of the job).
JOB_ONLY = ("elapsed_seconds", "cpu_seconds", "version", "command", "instance_file", "first_trial", "trials")


def parse_chunk_path(path: str) -> tuple[str, str]:
    m = CHUNK.search(str(path).replace("\\", "/"))
    if not m:
        raise UserError(f"{path} is not a raw chunk path (.../<setting>/<algorithm>/chunk<a>-<b>.csv)")
    return m["setting"], m["algorithm"]


def collect(chunks: list[str], trials: int, curves: bool) -> tuple[dict, dict]:
    """(arrays, meta) of one experiment from its raw chunks; every problem is one UserError."""
    # here, not at the top: tables imports pandas (about 0.3 s), which the products that read runs
    # files through this module (and Snakemake, listing them) do not need
    from linbandits.tables import collect_trials

    groups: dict[tuple[str, str], list[str]] = {}
    for path in chunks:
        groups.setdefault(parse_chunk_path(path), []).append(str(path))
    arrays, series = {}, {}
    settings, algorithms = [], []
    for (setting, algorithm), paths in groups.items():
        if setting not in settings:
            settings.append(setting)
        if algorithm not in algorithms:
            algorithms.append(algorithm)
        header = _header(paths[0])
        runs = collect_trials(paths, trials, columns=tuple(header), integer_columns=("trial",),
                              check=_check_chunk_range)
        key = f"{setting}/{algorithm}"
        for column in header[1:]:
            arrays[f"{key}/{column}"] = runs[column].to_numpy()
        info = []
        for path in sorted(paths, key=_first_run):
            info.append(_sidecar_extras(path))
        entry = {"columns": header[1:], "runs": int(len(runs)), "info": info}
        if curves:
            entry["curves"] = _collect_curves(paths, runs["trial"].to_numpy(), arrays, key)
        series[key] = entry
    meta = {"settings": settings, "algorithms": algorithms, "trials": int(trials), "series": series}
    return arrays, meta


def _check_chunk_range(chunk, path: str) -> None:
    """A chunk holds every run of its name's range (chunk<a>-<b>: runs a..b), or it is damaged."""
    m = CHUNK.search(str(path).replace("\\", "/"))
    first, last = int(m["first"]), int(m["last"])
    if sorted(chunk["trial"].tolist()) != list(range(first, last + 1)):
        n = last - first + 1
        held = f"{len(chunk)} of its {n} runs" if len(chunk) < n else f"other runs than its {n}"
        raise UserError(f"raw chunk {path} holds {held} ({first}..{last}): it is damaged or was cut "
                        "short; delete it and run the same command again (its simulate job remakes it)")


def _first_run(path: str) -> int:
    return int(CHUNK.search(path.replace("\\", "/"))["first"])


def _header(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            header = handle.readline().strip().split(",")
    except FileNotFoundError:
        raise UserError(f"chunk file {path} does not exist; rerun its simulate job") from None
    if not header or header[0] != "trial":
        raise UserError(f"chunk file {path} does not start with a 'trial' column; delete it and rerun")
    return header


def _sidecar_extras(csv_path: str) -> dict:
    path = Path(csv_path).with_suffix(".json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"sidecar {path} of {csv_path} is missing; delete the chunk and rerun its job") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"sidecar {path} is not valid JSON ({exc}); delete the chunk and rerun its job") from None
    return {k: v for k, v in data.items() if k not in JOB_ONLY}


def _collect_curves(paths, trial_order, arrays, key) -> list[str]:
    parts, t, names = {}, None, None
    for path in paths:
        curves = read_npz(path[: -len(".csv")] + ".curves.npz", "curves file")
        if t is None:
            t, names = curves["t"], [k for k in curves if k not in ("t", "trial")]
        elif not np.array_equal(t, curves["t"]):
            raise UserError(f"curves beside {path} are on other rounds than the other chunks; delete both and rerun")
        for i, trial in enumerate(curves["trial"]):
            parts[int(trial)] = {n: curves[n][i] for n in names}
    missing = [int(r) for r in trial_order if int(r) not in parts]
    if missing:
        raise UserError(f"curves of {key} lack runs {missing[:10]}; delete the chunks and rerun")
    arrays[f"{key}/curve_t"] = np.asarray(t)
    for n in names:
        arrays[f"{key}/curve_{n}"] = np.stack([parts[int(r)][n] for r in trial_order])
    return names


def write(out_stem: str, arrays: dict, meta: dict, experiment: str, study: str) -> None:
    write_npz(f"{out_stem}.npz", arrays)
    write_json_atomic(f"{out_stem}.json", {"study": study, "experiment": experiment, **meta}, indent=1,
                      sort_keys=True)


class RunSet:
    """The runs of one experiment, as collected: per (setting, algorithm) its columns and curves."""

    def __init__(self, stem: str):
        self.stem = str(stem)
        try:
            self.meta = json.loads(Path(f"{stem}.json").read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UserError(f"runs file {stem}.json does not exist; rerun its collect job") from None
        self._arrays = None

    @property
    def arrays(self) -> dict:
        if self._arrays is None:
            self._arrays = read_npz(f"{self.stem}.npz", "runs file")
        return self._arrays

    @property
    def settings(self) -> list[str]:
        return list(self.meta["settings"])

    @property
    def algorithms(self) -> list[str]:
        return list(self.meta["algorithms"])

    def has(self, setting: str, algorithm: str) -> bool:
        return f"{setting}/{algorithm}" in self.meta["series"]

    def column(self, setting: str, algorithm: str, column: str) -> np.ndarray:
        key = f"{setting}/{algorithm}/{column}"
        if key not in self.arrays:
            raise KeyError(key)
        return self.arrays[key]

    def curve(self, setting: str, algorithm: str, name: str = "regret") -> tuple[np.ndarray, np.ndarray]:
        return self.arrays[f"{setting}/{algorithm}/curve_t"], self.arrays[f"{setting}/{algorithm}/curve_{name}"]

    def info(self, setting: str, algorithm: str) -> list[dict]:
        return self.meta["series"][f"{setting}/{algorithm}"]["info"]


def mean_se(values) -> tuple[float, float]:
    """Mean and standard error (sample std with ddof 1, over sqrt(n)); s.e. NaN for one run."""
    x = np.asarray(values, float)
    n = x.size
    return float(x.mean()), (float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan)


def curve_mean_se(curves) -> tuple[np.ndarray, np.ndarray]:
    """Pointwise mean and standard error of runs x rounds curves (s.e. 0 for one run)."""
    c = np.asarray(curves, float)
    n = c.shape[0]
    se = c.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(c.shape[1])
    return c.mean(axis=0), se


def main_collect(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits collect-runs",
                                description="Check an experiment's raw chunks and write its runs file.")
    p.add_argument("--study", required=True)
    p.add_argument("--experiment", required=True)
    p.add_argument("--trials", type=int, required=True, help="runs every (setting, algorithm) must hold")
    p.add_argument("--curves", action="store_true", help="collect the .curves.npz beside each chunk too")
    p.add_argument("--out-stem", required=True, help="writes STEM.npz and STEM.json")
    p.add_argument("chunks", nargs="+", help="the experiment's raw chunk CSVs")
    args = p.parse_args(argv)
    arrays, meta = collect(args.chunks, args.trials, args.curves)
    write(args.out_stem, arrays, meta, args.experiment, args.study)
    return 0
