"""Claims C1-C8 (spec section 5) checked on the aggregates, under the spec's DEFAULTs and
again under every switch that concerns them.

"A beats B" means R_B(n) - R_A(n) > 2 SE of the paired difference: every algorithm of an
experiment plays the same runs (common random numbers), so the runs pair up.
A switch experiment replaces, in its published experiment, the series it holds; with a
longer horizon it must hold every series the claim needs.

`linbandits oam-claims --aggregates STEM ... --claims-table claims.yaml --out-stem results/oam/claims`.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from linbandits.claims import FAILS_TO_HOLD, HOLDS, NOT_RUN, combine, load_claims, result, write_claims
from linbandits.studies.oam.aggregate import Aggregate, read_aggregate

CLAIMS_TABLE = Path(__file__).with_name("claims.yaml")


class Missing(Exception):
    """An experiment or series a claim needs was not run."""


def series(aggs, exp, algo) -> np.ndarray:
    if exp not in aggs:
        raise Missing(f"experiment {exp} not run")
    if algo not in aggs[exp].regret:
        raise Missing(f"{algo} not run in {exp}")
    return aggs[exp].final(algo)


def se(x) -> float:
    return float(np.std(x, ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")


def beats(aggs, exp, better, worse):
    """(holds, text): R_worse - R_better beyond 2 SE of the paired difference."""
    a, b = series(aggs, exp, better), series(aggs, exp, worse)
    diff = b - a
    ok = bool(diff.mean() > 2 * se(diff))
    return ok, (f"{exp}: R_{worse} - R_{better} = {diff.mean():.4g} (2 SE {2 * se(diff):.3g}; "
                f"R_{better} = {a.mean():.4g} +- {se(a):.3g}, R_{worse} = {b.mean():.4g} +- {se(b):.3g})")


def verdict(oks) -> str:
    return HOLDS if all(oks) else FAILS_TO_HOLD


def judge_c1(aggs, claim):
    parts = [beats(aggs, exp, "OAM", "LinUCB") for exp in claim["experiments"]]
    return verdict(p[0] for p in parts), [p[1] for p in parts]


def judge_c2(aggs, claim):
    exp = claim["experiments"][0]
    series(aggs, exp, "OAM"), series(aggs, exp, "LinUCB")
    agg = aggs[exp]
    early = agg.t <= agg.horizon // 10
    gap = agg.regret["LinUCB"].mean(axis=0) - agg.regret["OAM"].mean(axis=0)
    starts_better = bool(np.any(gap[early] < 0))
    where = int(agg.t[early][np.argmin(gap[early])])
    late, text = beats(aggs, exp, "OAM", "LinUCB")
    return verdict([starts_better, late]), [
        f"{exp}: min over t <= n/10 of R_LinUCB(t) - R_OAM(t) = {gap[early].min():.4g} at t = {where} "
        f"({'LinUCB starts better' if starts_better else 'LinUCB never ahead early'})", text]


def judge_c3(aggs, claim):
    exp = claim["experiments"][0]
    a, b = series(aggs, exp, "OAM"), series(aggs, exp, "LinUCB")
    diff = b - a
    ok = bool(abs(diff.mean()) <= 2 * se(diff) or abs(diff.mean()) <= 0.1 * a.mean())
    return verdict([ok]), [f"{exp}: R_LinUCB - R_OAM = {diff.mean():.4g} (2 SE {2 * se(diff):.3g}, "
                           f"10% of R_OAM = {0.1 * a.mean():.4g})"]


def judge_c4(aggs, claim):
    exp = claim["experiments"][0]
    oks, texts = [], []
    for algo in ("OAM", "LinUCB"):
        series(aggs, exp, algo)
        agg = aggs[exp]
        end, half = agg.at(algo, agg.horizon).mean(), agg.at(algo, agg.horizon // 2).mean()
        oks.append(bool(end - half < 0.05 * end))
        texts.append(f"{exp} (n = {agg.horizon}): {algo} R(n) - R(n/2) = {end - half:.4g} = "
                     f"{100 * (end - half) / end:.3g}% of R(n) = {end:.4g}")
    return verdict(oks), texts


def judge_c5(aggs, claim):
    exp = claim["experiments"][0]
    p1, p2 = beats(aggs, exp, "OAM", "OSSB"), beats(aggs, exp, "OAM", "LinTS")
    s_ossb, s_oam = se(series(aggs, exp, "OSSB")), se(series(aggs, exp, "OAM"))
    return verdict([p1[0], p2[0], s_ossb > s_oam]), [p1[1], p2[1], f"SE_OSSB = {s_ossb:.3g}, SE_OAM = {s_oam:.3g}"]


def judge_c6(aggs, claim):
    small, large = claim["experiments"]
    p = beats(aggs, small, "OAM", "OSSB")
    r_small = series(aggs, small, "OSSB").mean() / series(aggs, small, "OAM").mean()
    r_large = series(aggs, large, "OSSB").mean() / series(aggs, large, "OAM").mean()
    return verdict([p[0], r_small < r_large]), [
        p[1], f"R_OSSB/R_OAM = {r_small:.3g} ({small}) vs {r_large:.3g} ({large})"]


def judge_c7(aggs, claim):
    exp = claim["experiments"][0]
    p1, p2 = beats(aggs, exp, "LinTS-heuristic", "OAM"), beats(aggs, exp, "OAM", "OSSB")
    return verdict([p1[0], p2[0]]), [p1[1], p2[1]]


def judge_c8(aggs, claim):
    oks, texts = [], []
    for exp in claim["experiments"]:
        if exp not in aggs:
            raise Missing(f"experiment {exp} not run")
        C = aggs[exp].C
        oks.append(C == 0.0)
        texts.append(f"{exp}: C = {C:.6g}")
    return verdict(oks), texts


JUDGES = {"C1": judge_c1, "C2": judge_c2, "C3": judge_c3, "C4": judge_c4, "C5": judge_c5,
          "C6": judge_c6, "C7": judge_c7, "C8": judge_c8}


def merged(base: Aggregate | None, switch: Aggregate) -> Aggregate:
    """The published experiment with the switch's series in place of its own."""
    if base is None or base.horizon != switch.horizon:
        return switch
    regret = {**base.regret, **switch.regret}
    meta = {**switch.meta, "algorithms": list(regret), "C": base.C}
    return Aggregate(base.experiment, meta, base.t, regret)


def switch_views(aggs: dict) -> dict:
    """label -> the aggregates with every switch of that label applied to its published experiment."""
    views = {}
    for agg in aggs.values():
        label, base = agg.meta.get("switch"), agg.meta.get("switch_of")
        if label and base:
            view = views.setdefault(label, dict(aggs))
            view[base] = merged(aggs.get(base), agg)
    return views


def judge(claim, aggs, label=None) -> dict:
    suffix = f" [switch {label}]" if label else ""
    entry = {**claim, "id": claim["id"] + suffix}
    try:
        outcome, numbers = JUDGES[claim["id"]](aggs, claim)
    except Missing as exc:
        return result(entry, claim["test"], [str(exc)], NOT_RUN)
    return result(entry, claim["test"], numbers, outcome)


def check_claims(aggs: dict, claims) -> list[dict]:
    out = []
    views = switch_views(aggs)
    switched_bases = {label: {a.meta["switch_of"] for a in aggs.values() if a.meta.get("switch") == label}
                      for label in views}
    for claim in claims:
        out.append(judge(claim, aggs))
        for label, view in views.items():
            if switched_bases[label] & set(claim["experiments"]):
                out.append(judge(claim, view, label))
    return out


def main_claims(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits oam-claims")
    p.add_argument("--aggregates", nargs="+", required=True)
    p.add_argument("--claims-table", default=str(CLAIMS_TABLE))
    p.add_argument("--out-stem", required=True, help="writes STEM.md and STEM.json")
    args = p.parse_args(argv)
    aggs = {a.experiment: a for a in map(read_aggregate, args.aggregates)}
    results = check_claims(aggs, load_claims(args.claims_table))
    published = [r for r in results if "[switch" not in r["id"]]
    switches = [f"- `{a.experiment}` ({a.meta['switch']}, switch of `{a.meta['switch_of']}`): {a.meta['changes']}"
                for a in aggs.values() if a.meta.get("switch")]
    sections = [["## Under the spec's DEFAULTs", "", f"{combine_line(published)}"]]
    if switches:
        sections.append(["## Switches", "", *switches])
    write_claims(results, f"{args.out_stem}.md", f"{args.out_stem}.json", study="oam",
                 title="OAM (Hao et al. 2020): claims C1-C8 checked on the reproduced runs", sections=sections)
    return 0


def combine_line(results) -> str:
    counts = {v: sum(r["verdict"] == v for r in results) for v in (HOLDS, FAILS_TO_HOLD, NOT_RUN)}
    return (f"{counts[HOLDS]} of {len(results)} claims hold, {counts[FAILS_TO_HOLD]} do not hold, "
            f"{counts[NOT_RUN]} not run (overall: {combine(r['verdict'] for r in results)}).")
