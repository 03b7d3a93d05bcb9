"""Raw runs -> the study's tables: mean regret per (figure, series, T), log-log slopes with
bootstrap CIs beside the theory's, ratios between series, and the theta sequence's variation.

CLI (called by the pipeline):
    linbandits swucb-tables --row EXPERIMENT ALGORITHM T N CHUNK[,CHUNK...] [--row ...]
        --instance EXPERIMENT T NPZ [--instance ...] --out-dir results/swucb/tables [--bootstrap 2000]
A chunk's JSON sidecar (beside it) gives the series' options and its instance's budget.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from linbandits.errors import UserError
from linbandits.tables import collect_trials, write_table
from linbandits.studies.swucb.instances import bgz_variation, total_variation
from linbandits.studies.swucb.theory import theory

Z_BAND = 1.96
BOOTSTRAP = 2000
TABLES = ("regret", "slopes", "ratios", "variation")
DEFAULT_OPTIONS = {"SW-UCB": {"window": "agnostic", "lam": 1.0, "S": 1.0}, "BOB": {"lam": 1.0, "S": 1.0},
                   "EXP3.S": {"variant": "exp3s", "variation": "instance"}}


@dataclasses.dataclass
class Series:
    experiment: str
    algorithm: str
    T: int
    runs: np.ndarray
    options: dict
    budget: str | None
    B_T: float

    @property
    def label(self) -> str:
        return series_label(self.algorithm, self.options)


def series_label(algorithm: str, options: dict) -> str:
    """The algorithm, with every option that differs from its default: 'SW-UCB (window=known)'."""
    defaults = DEFAULT_OPTIONS.get(algorithm, {})
    changed = [f"{k}={v}" for k, v in sorted(options.items()) if str(defaults.get(k)) != str(v)]
    return f"{algorithm} ({', '.join(changed)})" if changed else algorithm


def read_sidecar(chunk: str) -> dict:
    path = Path(chunk).with_suffix(".json")
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"chunk {chunk} has no JSON sidecar {path}; rerun its simulate job") from None


def load_series(experiment, algorithm, T, n, chunks) -> Series:
    runs = collect_trials(chunks, int(n), ("trial", "regret"), integer_columns=("trial",))
    side = read_sidecar(chunks[0])
    if side.get("algorithm") != algorithm:
        raise UserError(f"chunk {chunks[0]} holds runs of {side.get('algorithm')}, not {algorithm}")
    meta = side.get("instance_summary", {}).get("meta", {})
    if int(side.get("instance_summary", {}).get("T", T)) != int(T):
        raise UserError(f"chunk {chunks[0]} was run with T = {side['instance_summary']['T']}, not {T}")
    return Series(experiment, algorithm, int(T), runs["regret"].to_numpy(float), side.get("options", {}),
                  meta.get("budget"), float(meta.get("B_T", math.nan)))


# -------------------------------------------------------------------- tables

def regret_table(series: list[Series]) -> pd.DataFrame:
    rows = []
    for s in series:
        n = len(s.runs)
        mean = float(s.runs.mean())
        se = float(s.runs.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        rows.append({"figure": s.experiment, "series": s.label, "T": s.T, "B_T": s.B_T, "n_runs": n,
                     "mean_regret": mean, "se": se, "band_low": mean - Z_BAND * se,
                     "band_high": mean + Z_BAND * se})
    return pd.DataFrame(rows)


def ols_slope(log_t: np.ndarray, log_y: np.ndarray) -> np.ndarray:
    """Slopes of the OLS fits of the last axis of log_y on log_t."""
    x = log_t - log_t.mean()
    return ((log_y - log_y.mean(axis=-1, keepdims=True)) * x).sum(axis=-1) / (x * x).sum()


def slope_with_ci(Ts, run_sets, n_boot: int, seed: int) -> tuple[float, float, float]:
    """OLS slope of ln(mean Reg_T) on ln T, and its 95% percentile bootstrap interval
    (runs resampled with replacement within every T)."""
    log_t = np.log(np.asarray(Ts, float))
    means = np.array([r.mean() for r in run_sets])
    if np.any(means <= 0):
        return math.nan, math.nan, math.nan
    slope = float(ols_slope(log_t, np.log(means)))
    rng = np.random.default_rng(seed)
    boot = np.empty((n_boot, len(Ts)))
    for j, runs in enumerate(run_sets):
        boot[:, j] = runs[rng.integers(0, len(runs), size=(n_boot, len(runs)))].mean(axis=1)
    boot = np.log(np.maximum(boot, np.finfo(float).tiny))
    low, high = np.quantile(ols_slope(log_t, boot), [0.025, 0.975])
    return slope, float(low), float(high)


def slopes_table(series: list[Series], n_boot: int = BOOTSTRAP) -> pd.DataFrame:
    rows = []
    for (experiment, label), group in _groups(series).items():
        group = sorted(group, key=lambda s: s.T)
        first = group[0]
        seed = zlib.crc32(f"{experiment}/{label}".encode())
        if len(group) >= 2:
            slope, low, high = slope_with_ci([s.T for s in group], [s.runs for s in group], n_boot, seed)
        else:
            slope = low = high = math.nan
        expected, rate = theory(first.algorithm, first.options, first.budget)
        rows.append({"figure": experiment, "series": label, "slope": slope, "ci95_low": low, "ci95_high": high,
                     "theory_slope": expected, "theory_rate": rate, "n_T": len(group),
                     "T_min": group[0].T, "T_max": group[-1].T})
    return pd.DataFrame(rows)


def ratios_table(series: list[Series]) -> pd.DataFrame:
    """mean Reg_T of one series over another's, for every ordered pair of series of a figure, every T."""
    rows = []
    by_key = {(s.experiment, s.label, s.T): s for s in series}
    for experiment in dict.fromkeys(s.experiment for s in series):
        labels = list(dict.fromkeys(s.label for s in series if s.experiment == experiment))
        Ts = sorted({s.T for s in series if s.experiment == experiment})
        for num in labels:
            for den in labels:
                if num == den:
                    continue
                for T in Ts:
                    a, b = by_key.get((experiment, num, T)), by_key.get((experiment, den, T))
                    if a is not None and b is not None:
                        rows.append({"figure": experiment, "numerator": num, "denominator": den, "T": T,
                                     "ratio": float(a.runs.mean() / b.runs.mean())})
    return pd.DataFrame(rows, columns=["figure", "numerator", "denominator", "T", "ratio"])


def variation_table(instances: list[tuple[str, int, str]]) -> pd.DataFrame:
    """Per (figure, T): the nominal B_T, the theta sequence's l2 variation (eq. 1), its ratio to B_T,
    the paper's stated bound sqrt(2) B_T, and BGZ's sup-norm variation of the means."""
    from linbandits.problems import load_instance_file

    rows = []
    for experiment, T, path in instances:
        inst = load_instance_file(path)
        B = float(inst.meta.get("B_T", math.nan))
        tv = total_variation(inst.thetas)
        rows.append({"figure": experiment, "T": int(T), "B_T": B, "total_variation": tv, "tv_over_B_T": tv / B,
                     "paper_bound": math.sqrt(2) * B, "bgz_variation": bgz_variation(inst.means())})
    return pd.DataFrame(rows)


def _groups(series):
    out = {}
    for s in series:
        out.setdefault((s.experiment, s.label), []).append(s)
    return out


def table_paths(out_dir, name):
    return [f"{out_dir}/{name}.{ext}" for ext in ("csv", "md", "tex")]


def read_table(path) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except FileNotFoundError:
        raise UserError(f"table {path} does not exist; build it with `snakemake --cores 2 swucb`") from None


def main_tables(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits swucb-tables")
    p.add_argument("--row", nargs=5, action="append", required=True,
                   metavar=("EXPERIMENT", "ALGORITHM", "T", "N", "CHUNKS"),
                   help="one series at one T: its chunk files, comma-separated")
    p.add_argument("--instance", nargs=3, action="append", default=[], metavar=("EXPERIMENT", "T", "NPZ"))
    p.add_argument("--out-dir", required=True)
    p.add_argument("--bootstrap", type=int, default=BOOTSTRAP)
    args = p.parse_args(argv)
    series = [load_series(e, a, int(T), int(n), chunks.split(",")) for e, a, T, n, chunks in args.row]
    Path(args.out_dir).mkdir(parents=True, exist_ok=True)
    tables = {"regret": regret_table(series), "slopes": slopes_table(series, args.bootstrap),
              "ratios": ratios_table(series), "variation": variation_table(args.instance)}
    for name, table in tables.items():
        write_table(table, *table_paths(args.out_dir, name), exact_columns=("T",))
    return 0
