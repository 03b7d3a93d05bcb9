"""A user's algorithm against the paper's: the claims report's generated section "X against the paper's
algorithms" (linbandits.user.algorithms).

Per experiment and setting, the published ones and the switch runs the user's entry lists
(compared_experiments), the user's algorithm U is compared with each paper algorithm P of the
experiment on the study's main metric (lower is better): the error probability where the runs record
`correct` (fixed-budget identification), the stopping time where they record `stopping_time`
(fixed-confidence identification), else the final regret. Runs are paired: trial i of a setting draws
from the same stream index for every algorithm (experiments.job_seed), so U - P and U / P are estimated
from the pairs (setting, trial) with the engine's paired estimators: the paired exact interval of two
error probabilities (estimates.paired_proportion_difference), the paired Student's t of the differences
of a mean (estimates.mean_difference), and for the ratio of means the paired t on the log ratio
(estimates.ratio_of_means_t).

One comparison, once: experiments on identical instances (e.g. an experiment and its "_adaptive" twin,
same seed, same settings) give the same runs of the same paper algorithm and of U. A comparison on the
same instance (equal instance summaries, which such experiments share, and the same job seed) whose
runs (of U and of P) equal another's is the same comparison: it is judged once, and lists every
(experiment, setting) it stands for. Equal runs on different instances (every run correct in two
settings) are two questions.

No evidence: a design that cannot decide (one run per algorithm: no interval; a binomial design that
can reach neither side of 0 at the level, the claims engine's rule, engine.reach) reads **no evidence**
with the reason, and stays out of the multiplicity family (it depends on the design, not on the data).

Multiplicity: Holm over every distinct decidable comparison of U in the section (the family), at the
claims level. The intervals printed for a comparison are at its Holm level (alpha / (m - k + 1) at rank
k, and the level at which Holm stopped for every comparison from there on), and the verdict is read off
them: **better** when the difference's interval lies below 0 and the ratio's (where it has one) below 1,
**worse** when they lie above, **inconclusive** otherwise (an error probability has the difference
alone: the t on a log ratio of two binomial means has no coverage shown); its p-value is the larger of
the two (a test that rejects only where both do). So a verdict never contradicts either printed interval, and the
decisions are Holm's.
"""
from __future__ import annotations

import math
from pathlib import Path

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


def paired_ratio(mine: np.ndarray, theirs: np.ndarray, alpha: float):
    """mean(mine) / mean(theirs) from paired runs: the paired t on the log ratio, or None where the ratio
    has no interval (a mean of 0: no errors in a series)."""
    if mine.shape != theirs.shape:
        raise ValueError(f"paired ratio of {mine.size} and {theirs.size} runs")
    if mine.size < 2 or not (np.mean(mine) > 0 and np.mean(theirs) > 0):
        return None
    est = estimates.ratio_of_means_t(mine, theirs, alpha, paired=True)
    return est if est.interval_at is not None and math.isfinite(est.value) else None


def two_sided_p(est, null: float = 0.0) -> float:
    return min(1.0, 2 * min(est.p_above(null), est.p_below(null)))


def interval_at(est, level_two_sided: float) -> tuple[float, float]:
    """The estimate's two-sided interval at error rate `level_two_sided` (one-sided half on each side)."""
    if est is None or est.interval_at is None:
        return -math.inf, math.inf
    try:
        return tuple(float(v) for v in est.interval_at(level_two_sided / 2))
    except OverflowError:     # a ratio's t bound on the log scale beyond exp's range (2 runs, a small level)
        return 0.0, math.inf


def verdict_of(low: float, high: float, null: float = 0.0) -> str:
    """Lower is better: an interval of mine - theirs (null 0) or of mine / theirs (null 1) below the null is
    better, above it worse."""
    if high < null:
        return "better"
    if low > null:
        return "worse"
    return "inconclusive"


def joint_verdict(r: dict) -> str:
    """The verdict of both printed intervals: the difference's, and the ratio's where it has one."""
    v = verdict_of(r["low"], r["high"])
    if r["ratio"] is None:
        return v
    return v if v == verdict_of(r["ratio_low"], r["ratio_high"], 1.0) else "inconclusive"


def no_evidence_reason(est, n: int, metric: str, alpha: float) -> str:
    """Why the design cannot decide mine - theirs at two-sided level alpha (its least demanding level), or
    "" when it can: one run gives no interval; a binomial design is asked the claims engine's question,
    whether some outcome of the design lies on each side of 0 (engine.reach)."""
    if n < 2:
        return f"{n} run per algorithm: no interval (run at least 2 trials)"
    if metric != "error":
        return ""
    from linbandits.claims.engine import Leaf, reach

    can_better, can_worse, why = reach(Leaf("", {"less": 0.0}, "less", estimate=est.at_level(alpha / 2)))
    return "" if can_better and can_worse else why.replace("holds", "is better").replace(
        "does not hold", "is worse")


def holm(rows: list[dict], alpha: float) -> None:
    """Holm's step-down over the decidable `rows` (each with an `estimate`, `ratio` and `p`), decided on the
    intervals: in order of p-values, comparison k is put at level alpha / (m - k + 1) while every earlier
    one was decided; from the first undecided one on, every comparison keeps that level. Sets level, low,
    high, ratio_low, ratio_high, verdict; a row with a `reason` is no evidence and outside the family."""
    family = [r for r in rows if not r.get("reason")]
    for r in rows:
        if r.get("reason"):
            r.update(level=None, low=-math.inf, high=math.inf, ratio_low=-math.inf, ratio_high=math.inf,
                     verdict="no evidence")
    m = len(family)
    order = sorted(range(m), key=lambda i: (family[i]["p"], i))
    stopped = None
    for rank, i in enumerate(order, 1):
        r = family[i]
        level = alpha / (m - (rank if stopped is None else stopped) + 1)
        low, high = interval_at(r["estimate"], level)
        ratio_low, ratio_high = interval_at(r["ratio"], level)
        r.update(level=level, low=low, high=high, ratio_low=ratio_low, ratio_high=ratio_high)
        r["verdict"] = joint_verdict(r)
        if r["verdict"] == "inconclusive" and stopped is None:
            stopped = rank


def compared_experiments(exps: dict) -> dict:
    """Of a study's experiments, those a user's algorithm is compared in, where it runs: every published
    one, and the switch runs the default target builds (a user's algorithm runs in a switch run only where
    its entry lists it; there it meets the paper's algorithms under the switched choice)."""
    from linbandits import experiments

    return {**experiments.published(exps), **experiments.switch_runs(exps)}


def user_experiments(ctx, user: str):
    """(name, experiment, its paper algorithms, its runs, the study's metric) of every experiment of ctx's
    study that `user` is compared in (compared_experiments)."""
    from linbandits import catalogue
    from linbandits.user import algorithms as user_algorithms

    metric = metric_of(catalogue.studies()[ctx.study].columns)
    for name, exp in compared_experiments(ctx.experiments).items():
        if user in exp.algorithms:
            paper = [a for a in exp.algorithms if not user_algorithms.is_user_algorithm(a)]
            yield name, exp, paper, RunSet(ctx.runs_stem(name)), metric


def best_of(series: dict, paper: list[str]):
    """The paper's best algorithm of a setting: the lowest mean of its runs (the first listed on a tie)."""
    return min(paper, key=lambda a: (float(np.mean(series[a])), paper.index(a))) if paper else None


def raw_rows(ctx, user: str, alpha: float) -> list[dict]:
    """Every (experiment, setting, paper algorithm) comparison of `user` in the experiments of ctx's study it
    is compared in, before duplicates are merged and before Holm."""
    rows = []
    for name, exp, paper, runs, metric in user_experiments(ctx, user):
        for setting in exp.setting_ids():
            mine = values(runs, setting, user, metric)
            best = best_of({a: values(runs, setting, a, metric) for a in paper}, paper)
            for algo in sorted(paper, key=lambda a: (a != best, paper.index(a))):
                rows.append(row(name, setting, algo, algo == best, mine, values(runs, setting, algo, metric),
                                metric, alpha, instance_of(ctx, exp, setting)))
    return rows


def compare(ctx, user: str, alpha: float) -> list[dict]:
    """Every distinct comparison of user algorithm `user` in the experiments of ctx's study it is compared in,
    judged (Holm over the distinct decidable ones)."""
    rows = distinct(raw_rows(ctx, user, alpha))
    holm(rows, alpha)
    return rows


def same_runs_key(r: dict) -> tuple:
    """What makes two comparisons one: the same instance (its file and job seed: experiments on identical
    instances read one file), the same paper algorithm and metric, and the same runs of both series. Without
    a known instance a comparison is its own (experiment, setting): equal runs of different instances (all
    runs correct in two settings) are different comparisons."""
    return (r["instance"] or (r["experiment"], r["setting"]), r.get("who"), r["against"], r["metric"],
            r["runs_mine"].tobytes(), r["runs_theirs"].tobytes(), r["runs_mine"].dtype.str,
            r["runs_theirs"].dtype.str)


def distinct(rows: list[dict]) -> list[dict]:
    """The rows with duplicates merged: the first of each set of identical comparisons (same_runs_key)
    stands for all of them, listed in its `stands_for` ((experiment, setting, best) of each)."""
    first: dict = {}
    for r in rows:
        key = same_runs_key(r)
        entry = {"experiment": r["experiment"], "setting": r["setting"], "best": r["best"]}
        if key in first:
            first[key]["stands_for"].append(entry)
        else:
            r["stands_for"] = [entry]
            first[key] = r
    return list(first.values())


def instance_of(ctx, exp, setting: str) -> tuple:
    """The instance a setting's runs play, and its job seed: the instance's summary (the JSON beside its file,
    equal for equal instances, whether an experiment reads another's file or draws its own the same way),
    else its file's path."""
    import json

    from linbandits import experiments, paths

    summary = Path(paths.instance_path(ctx.config, exp, setting, "json"))
    what = (json.dumps(json.loads(summary.read_text()), sort_keys=True) if summary.exists() else
            paths.instance_path(ctx.config, exp, setting))
    return what, experiments.seed_of(ctx.config, exp, setting)


def row(experiment: str, setting: str, against: str, best: bool, mine, theirs, metric: str, alpha: float,
        instance: tuple | None = None) -> dict:
    """One comparison before Holm: the paired estimates of mine - theirs and mine / theirs, the two-sided
    p-value of the test that rejects where both do, and why the design cannot decide (if it cannot)."""
    mine, theirs = np.asarray(mine), np.asarray(theirs)
    est = paired_estimate(mine, theirs, metric, alpha / 2)
    # error probabilities: the paired exact difference alone (a t on the log ratio of two binomial
    # means has no coverage shown here, and a guesser at 20 runs was left "inconclusive" by it)
    ratio = paired_ratio(mine, theirs, alpha / 2) if metric != "error" else None
    p_difference = two_sided_p(est)
    p_ratio = two_sided_p(ratio, 1.0) if ratio is not None else None
    mean_theirs = float(np.mean(theirs))
    return {"experiment": experiment, "setting": setting, "against": against, "best": best, "metric": metric,
            "mine": float(np.mean(mine)), "theirs": mean_theirs, "difference": float(est.value),
            "ratio_value": float(np.mean(mine)) / mean_theirs if mean_theirs > 0 else math.nan,
            "n": int(mine.size), "method": est.method, "ratio_method": ratio.method if ratio is not None else "",
            "identical": bool(np.array_equal(mine, theirs)), "estimate": est, "ratio": ratio,
            "p": max(p_difference, p_ratio or 0.0), "p_difference": p_difference, "p_ratio": p_ratio,
            "reason": no_evidence_reason(est, int(mine.size), metric, alpha),
            "instance": instance, "runs_mine": mine, "runs_theirs": theirs, "stands_for": [
                {"experiment": experiment, "setting": setting, "best": best}]}


def number_text(v: float) -> str:
    """A number as the report prints it (4 significant digits; -, n/a, inf for none, NaN, infinite)."""
    if v is None:
        return "-"
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    return f"{v:.4g}"


def ratio_text(r: dict) -> str:
    """The ratio and its Holm interval, or why it has none."""
    if r["verdict"] == "no evidence":
        return "-"
    if r["ratio"] is None:
        return f"{number_text(r['ratio_value'])} (no interval: a mean of 0)"
    return f"{number_text(r['ratio_value'])} [{number_text(r['ratio_low'])}, {number_text(r['ratio_high'])}]"


def where(r: dict) -> str:
    """The (experiment, setting) cells a comparison stands for, the first one's experiment named."""
    cells = r["stands_for"]
    more = [f"{c['experiment']}/{c['setting']}" for c in cells[1:]]
    return f"{cells[0]['experiment']}" + (f" (also {', '.join(more)})" if more else "")


def section(ctx, user: str, rows: list[dict], level: float, raw_count: int | None = None) -> list[str]:
    """The Markdown section of one user algorithm."""
    metric = rows[0]["metric"] if rows else "regret"
    verdicts = ("better", "worse", "inconclusive", "no evidence")
    counts = {v: sum(r["verdict"] == v for r in rows) for v in verdicts}
    family = sum(r["verdict"] != "no evidence" for r in rows)
    merged = "" if raw_count in (None, len(rows)) else (
        f" The {raw_count} (experiment, setting, algorithm) cells hold {len(rows)} distinct comparisons: "
        f"experiments on identical instances give the same runs, so each such comparison is judged once and "
        f"lists the cells it stands for.")
    lines = [f"## {user} against the paper's algorithms", "",
             f"{user} (your algorithm) against each paper algorithm of every published experiment and setting, on "
             f"the {METRICS[metric]} (lower is better): the paired difference ({user} - paper's) and the paired "
             f"ratio ({user} / paper's), runs paired by (setting, trial) on the same random streams.{merged} Holm "
             f"over the {family} decidable comparisons of this section at {100 * level:g}%: both intervals are at "
             f"the comparison's Holm level, and the verdict is read off them (**better**: the difference below 0 "
             f"and the ratio below 1, **worse**: above, **inconclusive**: otherwise; **no evidence**: the design "
             f"cannot decide, with the reason). \u2605 marks the paper's best algorithm in that setting (the "
             f"lowest mean).", "",
             ", ".join(f"{counts[v]} {v}" for v in verdicts) + ".", "",
             f"| experiment | setting | against | {user} | paper's | difference [Holm interval] | "
             f"ratio [Holm interval] | runs | method | Holm level | verdict |",
             "|---|---|---|---:|---:|---|---|---:|---|---:|---|"]
    for r in rows:
        star = " \u2605" if any(c["best"] for c in r["stands_for"]) else ""
        same = " (identical runs)" if r["identical"] else ""
        reason = f": {r['reason']}" if r["verdict"] == "no evidence" else ""
        diff = (f"{number_text(r['difference'])}" if r["verdict"] == "no evidence" else
                f"{number_text(r['difference'])} [{number_text(r['low'])}, {number_text(r['high'])}]")
        level_text = "-" if r["level"] is None else f"{r['level']:.3g}"
        lines.append(f"| {where(r)} | {r['setting']} | {r['against']}{star} | {number_text(r['mine'])} | "
                     f"{number_text(r['theirs'])} | {diff} | {ratio_text(r)} | {r['n']} | "
                     f"{r['method'].split(' (')[0]} | {level_text} | **{r['verdict']}**{same}{reason} |")
    return lines


def records(rows: list[dict]) -> list[dict]:
    """The rows as JSON (the estimate objects, the runs and the instance left out; infinite bounds as null)."""
    def clean(v):
        return None if isinstance(v, float) and not math.isfinite(v) else v

    drop = ("estimate", "ratio", "runs_mine", "runs_theirs", "instance")      # instance: the summary, long
    return [{k: clean(v) for k, v in r.items() if k not in drop} | {"has_ratio": r["ratio"] is not None}
            for r in rows]


def disagreements(rows: list[dict]) -> list[str]:
    """Every row whose verdict contradicts a printed interval (the engine's rule); [] when none does."""
    def bound(v, default):
        return default if v is None else v

    out = []
    for r in rows:
        if r["verdict"] == "no evidence":
            continue
        low, high = bound(r["low"], -math.inf), bound(r["high"], math.inf)
        wanted = {verdict_of(low, high)}
        if r.get("has_ratio", r.get("ratio") is not None):
            wanted.add(verdict_of(bound(r["ratio_low"], -math.inf), bound(r["ratio_high"], math.inf), 1.0))
        expected = wanted.pop() if len(wanted) == 1 else "inconclusive"
        if r["verdict"] != expected:
            out.append(f"{r['experiment']}/{r['setting']} vs {r['against']}: {r['verdict']} with "
                       f"[{low}, {high}] and ratio [{r.get('ratio_low')}, {r.get('ratio_high')}]")
    return out


# ------------------------------------------------------------------ what the claims product calls

def user_algorithms_in(exps: dict) -> list[str]:
    """The user's algorithms that run in some experiment of a study's `exps` they are compared in, in
    order."""
    from linbandits.user import algorithms as user_algorithms

    out = []
    for exp in compared_experiments(exps).values():
        out += [a for a in user_algorithms.user_algorithms_of(exp.algorithms) if a not in out]
    return out


def leaderboard(ctx, users: list[str], alpha: float) -> dict:
    """Every entry (the user's algorithms and the paper's algorithms of the experiments they run in) against
    every other, paired, in every (experiment, setting) where both run: the distinct comparisons judged
    under one Holm family, and each entry's tally of paired verdicts, ranked by wins - losses, then wins."""
    from linbandits import catalogue

    metric = metric_of(catalogue.studies()[ctx.study].columns)
    entries, rows = list(users), []
    for name, exp in compared_experiments(ctx.experiments).items():
        if not set(users) & set(exp.algorithms):
            continue
        entries += [a for a in exp.algorithms if a not in entries]
        runs = RunSet(ctx.runs_stem(name))
        for setting in exp.setting_ids():
            series = {a: values(runs, setting, a, metric) for a in exp.algorithms}
            for i, a in enumerate(exp.algorithms):
                for b in exp.algorithms[i + 1:]:
                    r = row(name, setting, b, False, series[a], series[b], metric, alpha,
                            instance_of(ctx, exp, setting))
                    rows.append(r | {"who": a})
    rows = distinct(rows)
    holm(rows, alpha)
    empty = {e: {"entry": e, "yours": e in users, "better": 0, "worse": 0, "inconclusive": 0, "no evidence": 0}
             for e in entries}
    return {"entries": entries, "table": rank(tally(rows, empty), entries), "comparisons": records(rows),
            "family": sum(r["verdict"] != "no evidence" for r in rows)}


FLIP = {"better": "worse", "worse": "better"}      # a's verdict against b, read as b's against a


def tally(rows: list[dict], table: dict) -> dict:
    """Each entry's count of verdicts from judged rows of `who` against `against`."""
    for r in rows:
        table[r["who"]][r["verdict"]] += 1
        table[r["against"]][FLIP.get(r["verdict"], r["verdict"])] += 1
    return table


def rank(table: dict, entries: list[str]) -> list[dict]:
    """The entries ranked by wins - losses, then wins (ties share a rank), then listed in their order."""
    def score(t):
        return -(t["better"] - t["worse"]), -t["better"]

    out = sorted(table.values(), key=lambda t: (*score(t), entries.index(t["entry"])))
    for k, t in enumerate(out):
        t["rank"] = out[k - 1]["rank"] if k and score(out[k - 1]) == score(t) else k + 1
    return out


def paper_algorithms_in(ctx) -> dict:
    """The paper's algorithms of each experiment a user's algorithm is compared in (the scorecard's
    leaderboard entries)."""
    from linbandits.user import algorithms as user_algorithms

    return {n: [a for a in e.algorithms if not user_algorithms.is_user_algorithm(a)] for n, e in
            compared_experiments(ctx.experiments).items()}
