"""The study's outputs from the experiment summaries: the final-regret table, Figs. 1 and 2, the claims."""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from linbandits.claims import FAILS_TO_HOLD, HOLDS, NOT_RUN, load_claims, result, write_claims
from linbandits.errors import UserError
from linbandits.tables import write_table

CLAIMS_TABLE = Path(__file__).with_name("claims.yaml")
NEURAL = ("OPNN", "OPNN0", "ADA-OPNN")
NOT_RUN_NOTE = "neural variants (OPNN, OPNN0, ADA-OPNN) not run: opt-in target `snakemake opkb_neural`"
PALETTE = {"SW-GPUCB": ("#1f77b4", "o"), "WGPUCB": ("#2ca02c", "s"), "ADA-OPKB": ("#d62728", "D"),
           "GP-UCB": ("#9467bd", "^"), "OPKB": ("#ff7f0e", "v"), "ADA-OPNN": ("#8c564b", "P"),
           "OPNN": ("#e377c2", "h"), "OPNN0": ("#7f7f7f", "*")}


def read_summaries(paths) -> dict:
    """experiment -> summary; a series label is the algorithm, or 'ALGO (experiment's label)' for extra series."""
    out = {}
    for path in paths:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            raise UserError(f"summary {path} cannot be read ({exc}); rerun its opkb_summary rule") from None
        out[data["experiment"]] = data
    return out


def series(summaries: dict, experiment: str, label: str):
    """A series of an experiment by label: 'ALGO' or 'ALGO@other_experiment' (an extra run, e.g. another window)."""
    if "@" in label:
        algorithm, experiment = label.split("@", 1)
    else:
        algorithm = label
    exp = summaries.get(experiment)
    if exp is None or algorithm not in exp["algorithms"]:
        return None
    return exp["algorithms"][algorithm]


def find(summaries: dict, experiment: str, algorithm: str):
    """An algorithm's summary in an experiment or in its neural companion `<experiment>_neural`."""
    for name in (experiment, f"{experiment}_neural"):
        if name in summaries and algorithm in summaries[name]["algorithms"]:
            return summaries[name]["algorithms"][algorithm]
    return None


def final_table(summaries: dict, labels: dict) -> pd.DataFrame:
    rows = []
    for name, data in summaries.items():
        for algorithm, s in data["algorithms"].items():
            finals = np.array(s["final"])
            at_switch = {}
            t = np.array(s["t"])
            rows.append({
                "experiment": name, "algorithm": labels.get(f"{name}/{algorithm}", algorithm),
                "n_runs": len(finals), "T": int(t[-1]), "mean_regret": float(finals.mean()),
                "se": float(finals.std(ddof=1) / math.sqrt(len(finals))) if len(finals) > 1 else float("nan"),
                "min": float(finals.min()), "max": float(finals.max()), **at_switch})
    return pd.DataFrame(rows)


def value_at(s: dict, at: int | None):
    """(mean, s.e.) of the cumulative regret at round `at` (None: the last round)."""
    t = np.array(s["t"])
    i = len(t) - 1 if at is None else int(np.flatnonzero(t == at)[0]) if np.any(t == at) else None
    if i is None:
        raise UserError(f"no curve point at round {at}; rounds kept: {t[0]}..{t[-1]}")
    return float(s["mean"][i]), float(s["se"][i])


def judge(claim: dict, summaries: dict, labels: dict, tuning: dict | None) -> dict:
    test = claim["test"]
    if test.get("tuning"):
        return judge_tuning(claim, tuning)
    exp = test["experiment"]
    names = [test.get("lower")] + list(test.get("than", [])) + list(test.get("similar", []))
    names = [n for n in names if n] or []
    if any(n in NEURAL and find(summaries, exp, n) is None for n in names):
        return result(claim, describe(test), [NOT_RUN_NOTE], NOT_RUN)
    if exp not in summaries:
        return result(claim, describe(test), [f"experiment {exp} not in this run"], NOT_RUN)
    if "similar" in test:
        a, b = test["similar"]
        (ma, sa), (mb, sb) = value_at(find(summaries, exp, a), None), value_at(find(summaries, exp, b), None)
        bound = 2 * math.sqrt(sa ** 2 + sb ** 2)
        relative = test.get("relative")
        close = abs(ma - mb) <= bound or (relative is not None and abs(ma - mb) <= relative * abs(mb))
        numbers = [f"{a}: {ma:.1f} +- {sa:.1f}", f"{b}: {mb:.1f} +- {sb:.1f}",
                   f"|difference| {abs(ma - mb):.1f} vs 2 combined s.e. {bound:.1f}"
                   + (f" or {relative:.0%} of {b} = {relative * abs(mb):.1f}" if relative else "")]
        return result(claim, describe(test), numbers, HOLDS if close else FAILS_TO_HOLD)
    at = test.get("at")
    where = f"t = {at}" if at else "t = T"
    if at and not all(at in find(summaries, exp, a)["t"] for a in names if find(summaries, exp, a)):
        return result(claim, describe(test), [f"the runs of {exp} have no round {at} (shorter horizon)"], NOT_RUN)
    if "lowest" in test:
        target = test["lowest"]
        candidates = {labels.get(f"{e}/{a}", a): s for e in (exp, f"{exp}_neural") if e in summaries
                      for a, s in summaries[e]["algorithms"].items()}
        for other, data in summaries.items():
            for a, s in data["algorithms"].items():
                if labels.get(f"{other}/{a}") == target:
                    candidates[target] = s
        if target not in candidates:
            return result(claim, describe(test), [f"{target} not run"], NOT_RUN)
        values = {k: value_at(s, at) for k, s in candidates.items()}
        numbers = [f"{k}: {m:.1f} +- {se:.1f} ({where})" for k, (m, se) in values.items()]
        best = min(values, key=lambda k: values[k][0])
        return result(claim, f"{target} has the lowest mean regret at {where} in {exp}", numbers,
                      HOLDS if best == target else FAILS_TO_HOLD)
    lower = find(summaries, exp, test["lower"])
    m0, s0 = value_at(lower, at)
    numbers = [f"{test['lower']}: {m0:.1f} +- {s0:.1f} ({where}, mean +- s.e.)"]
    verdicts = []
    for other in test["than"]:
        m1, s1 = value_at(find(summaries, exp, other), at)
        z = (m1 - m0) / math.sqrt(s0 ** 2 + s1 ** 2) if s0 + s1 > 0 else float("inf")
        numbers.append(f"{other}: {m1:.1f} +- {s1:.1f}; difference {m1 - m0:+.1f} = {z:+.1f} combined s.e.")
        verdicts.append(m0 < m1)
    return result(claim, describe(test), numbers, HOLDS if all(verdicts) else FAILS_TO_HOLD)


def describe(test: dict) -> str:
    if "similar" in test:
        a, b = test["similar"]
        extra = f" or within {test['relative']:.0%} of {b}'s mean" if test.get("relative") else ""
        return f"|mean {a} - mean {b}| at T within 2 combined s.e.{extra} ({test['experiment']})"
    where = f"t = {test['at']}" if test.get("at") else "t = T"
    return f"mean regret of {test['lower']} below that of {' and '.join(test['than'])} at {where} ({test['experiment']})"


def judge_tuning(claim: dict, tuning: dict | None) -> dict:
    test_text = "best final regret (mean of 25 Env 1 seeds) over the spec's grids: SW window = 3000, WGPUCB eta = 0.9995"
    if not tuning:
        return result(claim, test_text, ["tuning not run: opt-in target `snakemake opkb_tuning`"], NOT_RUN)
    window, eta = tuning.get("best_window"), tuning.get("best_discount")
    verdict = HOLDS if (window == 3000 and eta == 0.9995) else FAILS_TO_HOLD
    return result(claim, test_text, [f"best window {window}", f"best discount {eta}"], verdict)


def draw_figure(summaries: dict, panels: list[dict], labels: dict, stem: str, title: str, note: str | None,
                preview: str = ""):
    from matplotlib.figure import Figure

    from linbandits.plotting import STYLE, add_figure_legend, mark_preview, save_figure, set_panel_title
    import matplotlib

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(3.8 * len(panels), 3.6), layout="constrained")
        for k, panel in enumerate(panels):
            ax = fig.add_subplot(1, len(panels), k + 1)
            exp = panel["experiment"]
            if exp not in summaries:
                ax.text(0.5, 0.5, f"{exp}: not run", ha="center", transform=ax.transAxes)
                continue
            entries = [(a, s, "-") for e in (exp, f"{exp}_neural") if e in summaries
                       for a, s in summaries[e]["algorithms"].items()]
            for extra in panel.get("dashed", []):
                for a, s in summaries.get(extra, {"algorithms": {}})["algorithms"].items():
                    entries.append((labels.get(f"{extra}/{a}", f"{a} ({extra})"), s, "--"))
            for label, s, style in entries:
                from linbandits.plotting import algorithm_style

                colour, _ = algorithm_style(label.split(" ")[0].split("(")[0], PALETTE)
                t, mean, se = np.array(s["t"]), np.array(s["mean"]), np.array(s["se"])
                ax.plot(t, mean, style, color=colour, label=f"{label} (n={len(s['final'])})")
                ax.fill_between(t, mean - se, mean + se, color=colour, alpha=0.2, linewidth=0)
            ax.set_xlabel("round t")
            ax.set_ylabel("cumulative regret")
            set_panel_title(ax, panel.get("title", exp), note or None)
        add_figure_legend(fig)
        if preview:  # a preview banner must not be lost behind the figure's own title
            mark_preview(fig, preview + (f"\n{title}" if title else ""))
        elif title:
            fig.suptitle(title)
        save_figure(fig, stem)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits opkb-report")
    p.add_argument("--summaries", nargs="+", required=True)
    p.add_argument("--figures", required=True, help="JSON: {name: {title, panels: [{experiment, title, dashed}]}}")
    p.add_argument("--labels", default="{}", help="JSON: {'experiment/algorithm': label}")
    p.add_argument("--figure-dir", required=True)
    p.add_argument("--table-stem", required=True)
    p.add_argument("--claims-stem", required=True)
    p.add_argument("--tuning", help="JSON file of the opt-in tuning run, if it ran")
    p.add_argument("--neural-run", action="store_true", help="the neural variants' runs are among the summaries")
    p.add_argument("--neural-note", default="", help="the neural runs' deviation, stated on every panel")
    p.add_argument("--preview", default="", help="banner of a preview run (reduced run counts), on every figure")
    args = p.parse_args(argv)
    summaries = read_summaries(args.summaries)
    labels = json.loads(args.labels)
    figures = json.loads(args.figures)
    write_table(final_table(summaries, labels), f"{args.table_stem}.csv", f"{args.table_stem}.md",
                f"{args.table_stem}.tex", exact_columns=("n_runs", "T"))
    for name, spec in figures.items():
        draw_figure(summaries, spec["panels"], labels, f"{args.figure_dir}/{name}", spec.get("title", ""),
                    args.neural_note if args.neural_run else NOT_RUN_NOTE.split(":")[0], args.preview)
    tuning = json.loads(Path(args.tuning).read_text()) if args.tuning and Path(args.tuning).exists() else None
    results = [judge(c, summaries, labels, tuning) for c in load_claims(CLAIMS_TABLE)]
    write_claims(results, f"{args.claims_stem}.md", f"{args.claims_stem}.json", study="opkb",
                 title="Claims of Hong, Li, Tewari (2023), checked on the reproduced runs",
                 sections=[["Neural variants: " + ("run" if args.neural_run else NOT_RUN_NOTE) + "."]])
    return 0
