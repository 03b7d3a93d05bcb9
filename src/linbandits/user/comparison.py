"""A user's algorithm against the paper's: the claims report's generated section "X against the paper's
algorithms" (linbandits.user.algorithms).

Per published experiment and setting, the user's algorithm U is compared with each paper algorithm P of
the experiment on the study's main metric (lower is better): the error probability where the runs
record `correct` (fixed-budget identification), the stopping time where they record `stopping_time`
(fixed-confidence identification), else the final regret. Runs are paired: trial i of a setting draws
from the same stream index for every algorithm (experiments.job_seed), so the difference U - P is
estimated from the pairs (setting, trial) with the engine's paired estimators: the paired exact
interval of two error probabilities (estimates.paired_proportion_difference), the paired Student's t
of the differences of a mean (estimates.mean_difference).

Multiplicity: Holm over every comparison of U in the section (the family), at the claims level. The
interval printed for a comparison is at its Holm level (alpha / (m - k + 1) at rank k, and the level
at which Holm stopped for every comparison from there on), and the verdict is read off it: **better**
(the interval below 0), **worse** (above 0), **inconclusive** (it holds 0). So a verdict never
contradicts its printed interval, and the decisions are Holm's.
"""
from __future__ import annotations

import math

import numpy as np

from linbandits.claims import estimates
from linbandits.runs import RunSet

METRICS = {
    "error": "error probability",
    "stopping_time": "stopping time (samples)",
    "regret": "final regret",
}


def metric_of(columns) -> str:
    """The main metric of a study from the columns its runs record (Study.columns)."""
    if "stopping_time" in columns:
        return "stopping_time"
    if "correct" in columns:
        return "error"
    return "regret"


def values(runs: RunSet, setting: str, algorithm: str, metric: str) -> np.ndarray:
    if metric == "error":
        return 1 - np.asarray(runs.column(setting, algorithm, "correct"), dtype=np.int64)
    return np.asarray(runs.column(setting, algorithm, metric), dtype=float)


def paired_estimate(mine: np.ndarray, theirs: np.ndarray, metric: str, alpha: float):
    """mean(mine) - mean(theirs) from paired runs (the same trial index in both)."""
    if mine.shape != theirs.shape:
        raise ValueError(f"paired comparison of {mine.size} and {theirs.size} runs")
    if metric == "error":
        n10 = int(np.sum((mine == 1) & (theirs == 0)))
        n01 = int(np.sum((mine == 0) & (theirs == 1)))
        return estimates.paired_proportion_difference(n10, n01, mine.size, alpha)
    return estimates.mean_difference(mine, theirs, alpha, paired=True)


def two_sided_p(est) -> float:
    return min(1.0, 2 * min(est.p_above(0.0), est.p_below(0.0)))


def interval_at(est, level_two_sided: float) -> tuple[float, float]:
    """The estimate's two-sided interval at error rate `level_two_sided` (one-sided half on each side)."""
    if est.interval_at is None:
        return -math.inf, math.inf
    return tuple(float(v) for v in est.interval_at(level_two_sided / 2))


def verdict_of(low: float, high: float) -> str:
    """Lower is better: the interval of mine - theirs below 0 is better, above 0 worse."""
    if high < 0:
        return "better"
    if low > 0:
        return "worse"
    return "inconclusive"


def holm(rows: list[dict], alpha: float) -> None:
    """Holm's step-down over `rows` (each with an `estimate`), decided on the intervals: in order of
    p-values, comparison k is put at level alpha / (m - k + 1) while every earlier one was decided;
    from the first undecided one on, every comparison keeps that level. Sets level, low, high, verdict."""
    m = len(rows)
    order = sorted(range(m), key=lambda i: (rows[i]["p"], i))
    stopped = None
    for rank, i in enumerate(order, 1):
        level = alpha / (m - (rank if stopped is None else stopped) + 1)
        low, high = interval_at(rows[i]["estimate"], level)
        verdict = verdict_of(low, high)
        if verdict == "inconclusive" and stopped is None:
            stopped = rank
        rows[i].update(level=level, low=low, high=high, verdict=verdict)


def compare(ctx, user: str, alpha: float) -> list[dict]:
    """Every comparison of user algorithm `user` in the published experiments of ctx's study."""
    from linbandits import catalogue
    from linbandits.user import algorithms as user_algorithms

    metric = metric_of(catalogue.studies()[ctx.study].columns)
    rows = []
    for name, exp in ctx.published().items():
        if user not in exp.algorithms:
            continue
        paper = [a for a in exp.algorithms if not user_algorithms.is_user_algorithm(a)]
        runs = RunSet(ctx.runs_stem(name))
        for setting in exp.setting_ids():
            mine = values(runs, setting, user, metric)
            means = {a: float(np.mean(values(runs, setting, a, metric))) for a in paper}
            best = min(paper, key=lambda a: (means[a], paper.index(a))) if paper else None
            for algo in sorted(paper, key=lambda a: (a != best, paper.index(a))):
                rows.append(row(name, setting, algo, algo == best, mine, values(runs, setting, algo, metric),
                                metric, alpha))
    holm(rows, alpha)
    return rows


def row(experiment: str, setting: str, against: str, best: bool, mine, theirs, metric: str, alpha: float) -> dict:
    """One comparison before Holm: the paired estimate of mine - theirs and its two-sided p-value at 0."""
    mine, theirs = np.asarray(mine), np.asarray(theirs)
    est = paired_estimate(mine, theirs, metric, alpha / 2)
    return {"experiment": experiment, "setting": setting, "against": against, "best": best, "metric": metric,
            "mine": float(np.mean(mine)), "theirs": float(np.mean(theirs)), "difference": float(est.value),
            "n": int(mine.size), "method": est.method, "identical": bool(np.array_equal(mine, theirs)),
            "estimate": est, "p": two_sided_p(est)}


def _f(v: float) -> str:
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    return f"{v:.4g}"


def section(ctx, user: str, rows: list[dict], level: float) -> list[str]:
    """The Markdown section of one user algorithm."""
    metric = rows[0]["metric"] if rows else "regret"
    counts = {v: sum(r["verdict"] == v for r in rows) for v in ("better", "worse", "inconclusive")}
    lines = [f"## {user} against the paper's algorithms", "",
             f"{user} (your algorithm) against each paper algorithm of every published experiment and setting, on "
             f"the {METRICS[metric]} (lower is better): the paired difference ({user} - paper's), runs paired by "
             f"(setting, trial) on the same random streams. Holm over the {len(rows)} comparisons of this section at "
             f"{100 * level:g}%: each interval is at its Holm level, and the verdict is read off it (**better**: "
             f"below 0, **worse**: above 0, **inconclusive**: it holds 0). \u2605 marks the paper's best algorithm "
             f"in that setting (the lowest mean).", "",
             f"{counts['better']} better, {counts['worse']} worse, {counts['inconclusive']} inconclusive.", "",
             f"| experiment | setting | against | {user} | paper's | difference [Holm interval] | runs | method | "
             f"Holm level | verdict |", "|---|---|---|---:|---:|---|---:|---|---:|---|"]
    for r in rows:
        star = " \u2605" if r["best"] else ""
        same = " (identical runs)" if r["identical"] else ""
        lines.append(f"| {r['experiment']} | {r['setting']} | {r['against']}{star} | {_f(r['mine'])} | "
                     f"{_f(r['theirs'])} | {_f(r['difference'])} [{_f(r['low'])}, {_f(r['high'])}] | {r['n']} | "
                     f"{r['method'].split(' (')[0]} | {r['level']:.3g} | **{r['verdict']}**{same} |")
    return lines


def records(rows: list[dict]) -> list[dict]:
    """The rows as JSON (the estimate object left out)."""
    return [{k: v for k, v in r.items() if k != "estimate"} for r in rows]


def disagreements(rows: list[dict]) -> list[str]:
    """Every row whose verdict contradicts its printed interval (the engine's rule); [] when none does."""
    return [f"{r['experiment']}/{r['setting']} vs {r['against']}: {r['verdict']} with [{r['low']}, {r['high']}]"
            for r in rows if r["verdict"] != verdict_of(r["low"], r["high"])]


# ------------------------------------------------------------------ what the claims product calls

def user_algorithms_in(ctx) -> list[str]:
    """The user's algorithms that run in some published experiment of ctx's study, in order."""
    from linbandits.user import algorithms as user_algorithms

    out = []
    for exp in ctx.published().values():
        out += [a for a in user_algorithms.user_algorithms_of(exp.algorithms) if a not in out]
    return out


def sections(ctx, users: list[str]) -> list[list[str]]:
    """The claims report's section of each user algorithm, and results/<study>/comparison.json."""
    import json

    from linbandits.atomic import write_text_atomic

    alpha = 1 - ctx.level
    out, data = [], {}
    for user in users:
        rows = compare(ctx, user, alpha)
        out.append(section(ctx, user, rows, ctx.level))
        data[user] = records(rows)
    write_text_atomic(ctx.results("comparison.json"),
                      json.dumps({"study": ctx.study, "level": ctx.level, "comparisons": data}, indent=1) + "\n")
    return out
