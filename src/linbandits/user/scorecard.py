"""One scorecard across the studies (issue 47 item 7): results/scorecard.md, results/scorecard.json and
figures/scorecard.{pdf,png}, from each study's results/<study>/comparison.json (user.comparison).

Per study and experiment, for each of the user's algorithms:
- the paired verdicts against the paper's best algorithm of each setting (better / inconclusive / worse /
  no evidence), read off the study's Holm-judged comparisons; a comparison that stands for several
  experiments (identical instances) counts in each, and is one decision;
- the paired summary over the sweep against the paper's best of each setting, with its interval
  (user.summary: the geometric-mean ratio, or for error probabilities the mean difference).
Each study keeps its own metric: nothing is averaged across studies or metrics. Where a study has several
user algorithms, its leaderboard ranks every entry, the paper's algorithms too, by their paired verdicts
against each other (wins - losses, then wins; user.comparison.leaderboard).

    python -m linbandits.user.scorecard results/*/comparison.json --md results/scorecard.md \\
        --json results/scorecard.json --figure figures/scorecard
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from linbandits.errors import UserError

VERDICTS = ("better", "inconclusive", "worse", "no evidence")
BEST = "paper's best"
# the figure's ratio axis: intervals reaching beyond it end in a triangle at its edge
RATIO_AXIS = (1e-2, 1e2)
DIFFERENCE_AXIS = (-1.0, 1.0)


def studies_judged(config: dict, studies) -> list[str]:
    """The studies among `studies` in whose experiments a user's algorithm is compared (the scorecard's
    inputs: their comparison.json)."""
    from linbandits import experiments
    from linbandits.user import comparison

    return [s for s in studies if comparison.user_algorithms_in(experiments.study_experiments(config, s))]


def experiment_scores(study: dict) -> dict:
    """{user: {experiment: {counts, summary}}} of one study's comparison.json."""
    out = {}
    for user in study["users"]:
        scores = {}
        for r in study["comparisons"][user]:
            for cell in r["stands_for"]:
                if cell["best"]:
                    counts = scores.setdefault(cell["experiment"], {"counts": dict.fromkeys(VERDICTS, 0)})["counts"]
                    counts[r["verdict"]] += 1
        for s in study["summaries"][user]:
            if s["against"] == BEST:
                scores.setdefault(s["experiment"], {"counts": dict.fromkeys(VERDICTS, 0)})["summary"] = {
                    k: s[k] for k in ("kind", "value", "low", "high", "n", "settings", "method", "reason", "verdict")}
        out[user] = scores
    return out


def build(comparisons: list[dict]) -> dict:
    """The scorecard's data from the studies' comparison.json contents."""
    out = {"studies": {}}
    for study in comparisons:
        out["studies"][study["study"]] = {
            "metric": study["metric"], "level": study["level"], "users": study["users"],
            "experiments": experiment_scores(study), "counts": study["counts"],
            "leaderboard": (study.get("leaderboard") or {}).get("table")}
    return out


def _f(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "-inf" if v < 0 else "inf"
    return f"{v:.3g}"


def summary_text(s: dict | None) -> str:
    if s is None:
        return "-"
    if s["verdict"] == "no evidence":
        return f"no evidence ({s['reason']})"
    low = -math.inf if s["low"] is None else s["low"]
    high = math.inf if s["high"] is None else s["high"]
    return f"{_f(s['value'])} [{_f(low)}, {_f(high)}]"


METRIC_WORDS = {
    "error": ("error probability", "mean over the sweep of the paired difference of error probabilities "
              "(yours - best; below 0: yours errs less)"),
    "stopping_time": ("stopping time", "geometric mean over the sweep of the ratio of mean stopping times "
                      "(yours / best; below 1: yours stops sooner)"),
    "regret": ("final regret", "geometric mean over the sweep of the ratio of mean final regrets (yours / best; "
               "below 1: yours regrets less)"),
}


def markdown(card: dict) -> str:
    lines = ["# Scorecard: your algorithms against the papers' algorithms", "",
             "Every user algorithm against the paper's best algorithm of each setting (the paper algorithm "
             "with the lowest mean there), on each study's own metric (lower is better), runs paired on the "
             "same random streams. **Verdicts**: the paired comparisons of the study's claims report "
             "(results/<study>/claims.md), Holm over each user algorithm's comparisons in the study: "
             "better / inconclusive / worse, or no evidence where the design cannot decide. **Sweep**: the "
             "paired summary over the experiment's settings with its 95% interval. Studies are never "
             "averaged together: each has its own metric.", ""]
    for name, study in card["studies"].items():
        metric, what = METRIC_WORDS[study["metric"]]
        lines += [f"## {name}: {metric}", "", f"Sweep: the {what}.", "",
                  "| experiment | algorithm | better | inconclusive | worse | no evidence | sweep [95% interval] |",
                  "|---|---|---:|---:|---:|---:|---|"]
        for user in study["users"]:
            for exp, score in study["experiments"][user].items():
                c = score["counts"]
                lines.append(f"| {exp} | {user} | " + " | ".join(str(c[v]) for v in VERDICTS) +
                             f" | {summary_text(score.get('summary'))} |")
        dup = [f"{u}: {c['cells']} cells, {c['distinct']} distinct comparisons" for u, c in study["counts"].items()]
        lines += ["", "Comparisons judged (experiments on identical instances share theirs): " + "; ".join(dup) + ".",
                  ""]
        if study["leaderboard"]:
            lines += [f"### {name}: leaderboard", "",
                      "Every entry against every other in each (experiment, setting) where both run, paired, Holm "
                      "over all these comparisons; ranked by wins - losses, then wins. The intervals of each "
                      "comparison are in results/" + name + "/comparison.json (leaderboard).", "",
                      "| rank | entry | better than | worse than | inconclusive | no evidence |",
                      "|---:|---|---:|---:|---:|---:|"]
            for t in study["leaderboard"]:
                who = f"{t['entry']} (yours)" if t["yours"] else t["entry"]
                lines.append(f"| {t['rank']} | {who} | {t['better']} | {t['worse']} | {t['inconclusive']} | "
                             f"{t['no evidence']} |")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def figure(card: dict, stem: str) -> None:
    """figures/scorecard.{pdf,png}: the drawing below, in the house conventions."""
    from linbandits import plotting

    with plotting.house_style():
        plotting.save_figure(draw(card), stem)


def draw(card: dict):
    """The sweep summaries against the paper's best, one row per (study, experiment), one marker per user
    algorithm: ratios on a log axis, error differences on a linear one (separate panels: never one axis for
    two metrics); intervals beyond the axis end in a triangle at its edge."""
    from linbandits import plotting

    panels = {"ratio": [], "difference": []}
    users = []
    for name, study in card["studies"].items():
        kind = "difference" if study["metric"] == "error" else "ratio"
        for user in study["users"]:
            users += [user] if user not in users else []
        exps = list(dict.fromkeys(e for u in study["users"] for e in study["experiments"][u]))
        for exp in exps:
            panels[kind].append((f"{name}: {exp}", {u: study["experiments"][u].get(exp, {}).get("summary")
                                                     for u in study["users"]}, study["users"]))
    used = [k for k in ("ratio", "difference") if panels[k]]
    if not used:
        raise UserError("the scorecard has nothing to draw: no user algorithm ran in any study")
    rows = [len(panels[k]) for k in used]
    per_row = 0.2 + 0.1 * len(users)        # inches: room for one marker row per user algorithm
    with plotting.house_style():
        fig = plotting.new_figure(2, 0.6 + sum(0.75 + per_row * n for n in rows))
        axes = fig.subplots(len(used), 1, squeeze=False, height_ratios=[0.75 + per_row * n for n in rows])[:, 0]
        for ax, kind in zip(axes, used):
            _panel(ax, kind, panels[kind], users, plotting)
        labels = {}
        for ax in axes:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                labels.setdefault(label, handle)
        if labels:
            fig.legend(list(labels.values()), list(labels), loc="outside lower center",
                       ncols=min(len(labels), 4), frameon=False)
    return fig


def _panel(ax, kind: str, rows: list, users: list[str], plotting) -> None:
    ratio = kind == "ratio"
    null = 1.0 if ratio else 0.0
    lo_edge, hi_edge = axis_range([s for _, summaries, _ in rows for s in summaries.values()], ratio)
    ax.axvline(null, color="0.5", linewidth=0.7, linestyle="--")
    for i, (label, summaries, here) in enumerate(rows):
        y = len(rows) - 1 - i
        for user in here:
            s, k, j = summaries[user], users.index(user), here.index(user)
            offset = ((len(here) - 1) / 2 - j) * min(0.25, 0.8 / len(here))     # the first on top
            marker = plotting.USER_MARKERS[k % len(plotting.USER_MARKERS)]
            lab = user if i == 0 or not any(user in r[1] for r in rows[:i]) else None
            if s is None or s["verdict"] == "no evidence":
                ax.plot([], [], marker=marker, color="black", linestyle="none", label=lab)
                ax.annotate("no evidence", (null, y + offset), fontsize=plotting.MIN_TEXT_PT, va="center",
                            ha="left", xytext=(4, 0), textcoords="offset points", color="0.3")
                continue
            low = lo_edge if s["low"] is None else max(s["low"], lo_edge)
            high = hi_edge if s["high"] is None else min(s["high"], hi_edge)
            value = min(max(s["value"], lo_edge), hi_edge)
            ax.plot([low, high], [y + offset] * 2, color="black", linewidth=1.0)
            ax.plot([value], [y + offset], marker=marker, color="black", markerfacecolor="white" if k % 2 else
                    "black", linestyle="none", markersize=6, label=lab)
            if s["low"] is None or s["low"] < lo_edge:
                ax.plot([lo_edge], [y + offset], marker="<", color="black", markersize=4)
            if s["high"] is None or s["high"] > hi_edge:
                ax.plot([hi_edge], [y + offset], marker=">", color="black", markersize=4)
    ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    if ratio:
        plotting.use_log_x(ax, subs=(1.0, 2.0, 5.0) if hi_edge / lo_edge > 20 else (1.0, 2.0, 3.0, 5.0))
        ax.set_xlim(lo_edge / 1.2, hi_edge * 1.2)
        ax.set_xlabel("yours / paper's best (geometric mean over the sweep, 95% interval)")
    else:
        pad = 0.04 * (hi_edge - lo_edge)
        ax.set_xlim(lo_edge - pad, hi_edge + pad)
        ax.set_xlabel("yours - paper's best, error probability (mean over the sweep, 95% interval)")
    ax.set_title("lower is better; triangles: the interval goes on beyond the axis", loc="left")


def axis_range(summaries, ratio: bool) -> tuple[float, float]:
    """The panel's axis: the null (1 or 0), every value and every finite bound, within RATIO_AXIS (a factor of
    100 either way) or DIFFERENCE_AXIS (an error probability's range); a bound beyond it is drawn clipped."""
    limit = RATIO_AXIS if ratio else DIFFERENCE_AXIS
    points = [1.0 if ratio else 0.0]
    for s in summaries:
        if s is not None and s["verdict"] != "no evidence":
            points += [v for v in (s["value"], s["low"], s["high"]) if v is not None and math.isfinite(v)]
    if ratio:
        points = [v for v in points if v > 0]
        low, high = max(min(points) / 1.5, limit[0]), min(max(points) * 1.5, limit[1])
    else:
        low, high = max(min(points), limit[0]), min(max(points), limit[1])
    return low, high


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("comparisons", nargs="*", help="results/<study>/comparison.json of each study")
    parser.add_argument("--md", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--figure", required=True, help="the figure's path without its extension")
    args = parser.parse_args(argv)
    try:
        if not args.comparisons:
            raise UserError("the scorecard has no user algorithm to judge: declare one under extra_algorithms "
                            "(docs/your-algorithm.md)")
        from linbandits.atomic import write_text_atomic

        card = build([json.loads(Path(p).read_text()) for p in args.comparisons])
        figure(card, args.figure)
        write_text_atomic(args.json, json.dumps(card, indent=1) + "\n")
        write_text_atomic(args.md, markdown(card))
    except UserError as e:
        print(f"scorecard: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
