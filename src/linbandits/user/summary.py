"""A user's algorithm against the paper's over an experiment's whole sweep: one paired summary per
(experiment, paper algorithm), and one against the paper's best in each setting (issue 47 item 6).

The summary is on the study's one metric (user.comparison.metric_of), never across metrics:
- stopping times and regrets: the geometric mean over the sweep's settings of the ratio of means
  (user / paper's), with the claims engine's t on its log (estimates.geomean_ratio_t: delta-method s.e.,
  the small-sample allowance): runs paired within a setting, and across settings too where every setting
  plays the same seeds (an experiment with a fixed `seed`); below 1 the user's is lower;
- error probabilities (ratios of rare errors are often 0 / 0): the mean over the sweep of the paired
  difference of error probabilities (user - paper's). Its interval is the mean of the settings' paired
  exact intervals (estimates.paired_interval: discordant runs, Clopper-Pearson), each at alpha / k for k
  settings: a side errs only if some setting's does, so at most alpha, whatever the correlation between
  the runs or the settings (a t on the runs' differences under-covers at rare errors: with no discordant
  run its interval is one point); below 0 the user's errs less.

Level: each summary's interval is at the claims level (95%: each side errs at most 2.5%), one at a time:
a summary describes the sweep; the verdicts are the comparison's, under Holm. tests/test_user_summary.py
shows the coverage at that level by simulation, and fails planted under-covering intervals (settings that
share seeds taken as independent; a plain t on the error differences). A design that gives no interval
(one run) reads "no evidence" with the reason.
"""
from __future__ import annotations

import math

import numpy as np

from linbandits.claims import estimates
from linbandits.user import comparison

RATIO, DIFFERENCE = "geometric-mean ratio", "mean difference"


def kind_of(metric: str) -> str:
    return DIFFERENCE if metric == "error" else RATIO


def null_of(kind: str) -> float:
    return 0.0 if kind == DIFFERENCE else 1.0


def estimate(pairs, metric: str, alpha: float, shared: bool):
    """The paired summary of [(mine, theirs) per setting] at one-sided level alpha, or (None, reason)."""
    n = min(len(m) for m, _ in pairs)
    if n < 2:
        return None, f"{n} run per algorithm and setting: no interval (run at least 2 trials)"
    if metric == "error":
        return errors_estimate(pairs, alpha), ""
    if any(not (np.mean(m) > 0 and np.mean(t) > 0) for m, t in pairs):
        return None, "a mean of 0 in some setting: no ratio"
    try:
        return estimates.geomean_ratio_t(pairs, alpha, paired=True, shared=shared), ""
    except OverflowError:     # the t bound on the log scale beyond exp's range
        return None, f"{n} runs: the ratio's interval is unbounded (run more trials)"


def errors_estimate(pairs, alpha: float):
    """The mean over settings of the paired difference of error probabilities (0/1 errors per run), with the
    mean of the settings' paired exact intervals at alpha / k (a union bound over the k settings)."""
    counts = [(int(np.sum((m == 1) & (t == 0))), int(np.sum((m == 0) & (t == 1))), len(m)) for m, t in pairs]
    k = len(counts)

    def interval(a):
        bounds = [estimates.paired_interval(n10, n01, n, a / k) for n10, n01, n in counts]
        return float(np.mean([lo for lo, _ in bounds])), float(np.mean([hi for _, hi in bounds]))

    p_above, p_below = estimates.p_values_from(interval)
    value = float(np.mean([(n10 - n01) / n for n10, n01, n in counts]))
    return estimates.Estimate(value, *interval(alpha), min(n for *_, n in counts),
                              f"mean of the settings' paired exact intervals, each at alpha / {k}", p_above, p_below,
                              interval_at=interval, value_range=(-1.0, 1.0))


def summaries(ctx, user: str, level: float) -> list[dict]:
    """Every summary of `user` in ctx's published experiments: against each paper algorithm and against the
    paper's best in each setting (the lowest mean, as in the comparison), each at the claims level."""
    wanted = []
    for name, exp, paper, runs, metric in comparison.user_experiments(ctx, user):
        settings = exp.setting_ids()
        mine = {s: comparison.values(runs, s, user, metric) for s in settings}
        theirs = {(s, a): comparison.values(runs, s, a, metric) for s in settings for a in paper}
        best = {s: comparison.best_of({a: theirs[(s, a)] for a in paper}, paper) for s in settings}
        shared = getattr(exp, "seed", None) is not None
        for against in [*paper, "paper's best"]:
            pick = (lambda s: best[s]) if against == "paper's best" else (lambda s, a=against: a)
            pairs = [(mine[s], theirs[(s, pick(s))]) for s in settings]
            wanted.append({"experiment": name, "against": against, "settings": len(settings),
                           "best_per_setting": {s: best[s] for s in settings} if against == "paper's best" else None,
                           "metric": metric, "kind": kind_of(metric), "shared_seeds": shared, "pairs": pairs})
    alpha = (1 - level) / 2
    out = []
    for w in wanted:
        pairs = w.pop("pairs")
        est, reason = estimate(pairs, w["metric"], alpha, w["shared_seeds"])
        value = _point(pairs, w["metric"])
        w.update(value=value, n=min(len(m) for m, _ in pairs), alpha=alpha, reason=reason,
                 low=None if est is None else _finite(est.low), high=None if est is None else _finite(est.high),
                 method="" if est is None else est.method, verdict=_verdict(est, w["kind"]))
        out.append(w)
    return out


def _point(pairs, metric: str) -> float:
    if metric == "error":
        return float(np.mean([np.mean(m) - np.mean(t) for m, t in pairs]))
    logs = [math.log(np.mean(m) / np.mean(t)) if np.mean(m) > 0 and np.mean(t) > 0 else math.nan for m, t in pairs]
    return float(math.exp(np.mean(logs)))


def _finite(v: float):
    return float(v) if math.isfinite(v) else None


def _verdict(est, kind: str) -> str:
    """Where the summary's interval lies against its null (0 or 1): lower, higher, or holding it."""
    if est is None:
        return "no evidence"
    null = null_of(kind)
    return {"better": "lower", "worse": "higher"}.get(comparison.verdict_of(est.low, est.high, null), "holds " + (
        "0" if null == 0 else "1"))


def text(s: dict) -> str:
    """One summary as printed: value [interval], or no evidence with the reason."""
    f = comparison.number_text
    if s["verdict"] == "no evidence":
        return f"{f(s['value'])} (no evidence: {s['reason']})"
    return f"{f(s['value'])} [{f(s['low'] if s['low'] is not None else -math.inf)}, " \
           f"{f(s['high'] if s['high'] is not None else math.inf)}]"


def section(user: str, rows: list[dict], level: float) -> list[str]:
    """The Markdown subsection of a user algorithm's summaries."""
    if not rows:
        return []
    kind = rows[0]["kind"]
    what = ("geometric mean over the sweep's settings of the ratio of means (yours / paper's; below 1: yours "
            "is lower)" if kind == RATIO else "mean over the sweep's settings of the paired difference of error "
            "probabilities (yours - paper's; below 0: yours errs less)")
    lines = ["", f"### {user} over each experiment's sweep", "",
             f"The {what}, paired runs; each interval at {100 * level:g}% on its own (a description of the sweep: "
             f"the verdicts above are the ones under multiplicity control). Against \"paper's best\": in each "
             f"setting the paper algorithm with the lowest mean there.", "",
             f"| experiment | against | settings | runs | {kind} [interval] | method |", "|---|---|---:|---:|---|---|"]
    for s in rows:
        lines.append(f"| {s['experiment']} | {s['against']} | {s['settings']} | {s['n']} | {text(s)} | "
                     f"{s['method'].split(',')[0] if s['method'] else '-'} |")
    return lines
