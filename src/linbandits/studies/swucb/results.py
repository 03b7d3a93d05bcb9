"""The study's tables from its runs files: mean regret per (figure, series, T), log-log slopes with
bootstrap CIs beside the theory's, ratios between series, and the theta sequence's variation.

A "figure" is an experiment: a published one (swucb_fig1, swucb_fig2) or a switch run
(<experiment>__<switch>). A switch run holds only the series it changed; its ratios are taken
against the base's other series, which ran on the same seeds (common random numbers).
"""
from __future__ import annotations

import dataclasses
import math
import zlib

import numpy as np
import pandas as pd

from linbandits.claims import estimates as est
from linbandits.runs import mean_se
from linbandits.studies.swucb.instances import bgz_variation, total_variation
from linbandits.studies.swucb.theory import theory

Z_BAND = 1.96
# The slopes table's bootstrap: 2000 resamples and a seed per (figure, series), as the table has always
# had (its numbers stay the same); the claims judge the same estimator with the engine's resamples.
BOOTSTRAP = 2000
SLOPE_ALPHA = 0.025          # the table's ci95 columns: a two-sided 95% percentile interval
REGRET_COLUMNS = ["figure", "series", "T", "B_T", "n_runs", "mean_regret", "se", "band_low", "band_high"]
SLOPE_COLUMNS = ["figure", "series", "slope", "ci95_low", "ci95_high", "theory_slope", "theory_rate", "n_T",
                 "T_min", "T_max"]
RATIO_COLUMNS = ["figure", "numerator", "denominator", "T", "ratio"]
VARIATION_COLUMNS = ["figure", "T", "B_T", "total_variation", "tv_over_B_T", "paper_bound", "bgz_variation"]


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
    """The algorithm, with every option that differs from its default (the algorithm's own `defaults`, a
    user's algorithm's too): 'SW-UCB (window=known)'."""
    from linbandits import catalogue

    defaults = catalogue.algorithm_class(algorithm).defaults
    changed = [f"{k}={v}" for k, v in sorted(options.items()) if str(defaults.get(k)) != str(v)]
    return f"{algorithm} ({', '.join(changed)})" if changed else algorithm


def experiment_series(exp, runset) -> list[Series]:
    """Every (T, algorithm) series of an experiment from its runs file, in setting then algorithm order;
    options and the instance's budget from the runs' sidecars."""
    from linbandits.errors import UserError

    out = []
    for setting in exp.setting_ids():
        T = int(exp.value_of(setting))
        for algorithm in exp.algorithms:
            side = runset.info(setting, algorithm)[0]
            summary = side.get("instance_summary", {})
            if int(summary.get("T", T)) != T:
                raise UserError(f"the runs of {algorithm} in {exp.name} ({setting}) were made with T = {summary['T']}, "
                                f"not {T}; rerun the experiment")
            meta = summary.get("meta", {})
            out.append(Series(exp.name, algorithm, T, runset.column(setting, algorithm, "regret").astype(float),
                              side.get("options", {}), meta.get("budget"), float(meta.get("B_T", math.nan))))
    return out


def with_base(switch_series: list[Series], base_series: list[Series], switch: str) -> list[Series]:
    """A switch run's series and, at its T, the base's series of the algorithms it did not rerun."""
    rerun = {s.algorithm for s in switch_series}
    Ts = {s.T for s in switch_series}
    kept = [dataclasses.replace(s, experiment=switch) for s in base_series if s.algorithm not in rerun and s.T in Ts]
    return sorted(kept + switch_series, key=lambda s: s.T)


# -------------------------------------------------------------------- tables

def regret_table(series: list[Series]) -> pd.DataFrame:
    rows = []
    for s in series:
        mean, se = mean_se(s.runs)
        rows.append({"figure": s.experiment, "series": s.label, "T": s.T, "B_T": s.B_T, "n_runs": len(s.runs),
                     "mean_regret": mean, "se": se, "band_low": mean - Z_BAND * se,
                     "band_high": mean + Z_BAND * se})
    return pd.DataFrame(rows, columns=REGRET_COLUMNS)


def ols_slope(log_t: np.ndarray, log_y: np.ndarray) -> np.ndarray:
    """Slopes of the OLS fits of the last axis of log_y on log_t."""
    x = log_t - log_t.mean()
    return ((log_y - log_y.mean(axis=-1, keepdims=True)) * x).sum(axis=-1) / (x * x).sum()


def slope_estimate(Ts, run_sets, seed: int, alpha: float = SLOPE_ALPHA, resamples: int = BOOTSTRAP) -> est.Estimate:
    """OLS slope of ln(mean Reg_T) on ln T with its percentile bootstrap interval (the runs resampled
    with replacement within every T): the claims' `loglog_slope` estimator, through the same
    `estimates.bootstrap`."""
    log_t = np.log(np.asarray(Ts, float))

    def statistic(*arrays):
        means = np.stack([a.mean(axis=1) for a in arrays], axis=-1)
        return ols_slope(log_t, np.log(np.maximum(means, np.finfo(float).tiny)))

    return est.bootstrap(statistic, [(np.asarray(r, float),) for r in run_sets], alpha, seed,
                         resamples=resamples,
                         method=f"OLS slope, percentile bootstrap of the runs ({resamples} resamples)")


def slope_with_ci(Ts, run_sets, n_boot: int, seed: int) -> tuple[float, float, float]:
    """(slope, 95% low, 95% high); NaN when a mean regret is not positive (no logarithm)."""
    means = np.array([np.asarray(r, float).mean() for r in run_sets])
    if np.any(means <= 0):
        return math.nan, math.nan, math.nan
    slope = float(ols_slope(np.log(np.asarray(Ts, float)), np.log(means)))
    e = slope_estimate(Ts, run_sets, seed, resamples=n_boot)
    return slope, e.low, e.high


def slope_seed(experiment: str, label: str) -> int:
    return zlib.crc32(f"{experiment}/{label}".encode())


def slopes_table(series: list[Series], n_boot: int = BOOTSTRAP) -> pd.DataFrame:
    rows = []
    for (experiment, label), group in _groups(series).items():
        group = sorted(group, key=lambda s: s.T)
        first = group[0]
        if len(group) >= 2:
            slope, low, high = slope_with_ci([s.T for s in group], [s.runs for s in group], n_boot,
                                             slope_seed(experiment, label))
        else:
            slope = low = high = math.nan
        expected, rate = theory(first.algorithm, first.options, first.budget)
        rows.append({"figure": experiment, "series": label, "slope": slope, "ci95_low": low, "ci95_high": high,
                     "theory_slope": expected, "theory_rate": rate, "n_T": len(group),
                     "T_min": group[0].T, "T_max": group[-1].T})
    return pd.DataFrame(rows, columns=SLOPE_COLUMNS)


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
    return pd.DataFrame(rows, columns=RATIO_COLUMNS)


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
    return pd.DataFrame(rows, columns=VARIATION_COLUMNS)


def _groups(series):
    out = {}
    for s in series:
        out.setdefault((s.experiment, s.label), []).append(s)
    return out
