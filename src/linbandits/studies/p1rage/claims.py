"""Which of a paper's claims hold on the reproduced tables.

A claim is a row of a study's claims table (e.g. studies/p1rage/claims.yaml)
naming a check, the experiments it is judged on and the algorithms it
compares. Each check is a stated statistical procedure, reported next to
its verdict: "holds", "does not hold" or "inconclusive".

Pairwise checks compare error probabilities setting by setting with the
pooled two-proportion z-test and Holm-correct across the settings of the
claim (at level `alpha`, 0.01 by default):
- better(A, B): A is significantly worse in no setting (one-sided) and
  significantly better in at least one; if neither, inconclusive.
- never_worse(A, B): A is significantly worse in no setting (one-sided).
- comparable(A, B): "within a factor of 2": in no setting is either error
  significantly more than twice the other (one-sided z-tests of
  p_A - 2 p_B > 0 and p_B - 2 p_A > 0). With 10^4 trials a plain test of
  equality flags differences far too small to see on the paper's log axes.
Range checks use point estimates across settings:
- unstable(A): min error <= 0.1 and max error >= 0.9 ("from near 0 to near 1").
- more_stable(A, B): max - min of A's errors is below that of every B.
Level checks use the 95% Wilson interval of a single-setting error:
- fails(A): the interval lies above 1/2; robust(A): it lies below 1/2.
A claim with several algorithms holds when every (A, B) pair or every A
holds, does not hold when any does not, and is inconclusive otherwise.
"""
from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from linbandits.claims import FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, combine, load_claims, write_claims
from linbandits.errors import UserError
from linbandits.stats import holm, two_proportion_test, wilson_ci

OPERATIONALISATION = {
    "better": "A vs B in every setting: pooled two-proportion z-test, one-sided both ways, Holm across "
              "settings at level {alpha}; holds if A is significantly worse nowhere and significantly "
              "better somewhere",
    "never_worse": "A vs B in every setting: one-sided pooled two-proportion z-test (A worse), Holm across "
                   "settings at level {alpha}; holds if A is significantly worse nowhere",
    "comparable": "within a factor of 2: in every setting, one-sided z-tests that A's error exceeds twice B's "
                  "and that B's exceeds twice A's, Holm across settings at level {alpha}; holds if neither is "
                  "significant anywhere",
    "unstable": "across settings, min error <= 0.1 and max error >= 0.9",
    "more_stable": "range (max - min) of A's error across settings is smaller than every B's",
    "fails": "95% Wilson interval of the error lies above 1/2",
    "robust": "95% Wilson interval of the error lies below 1/2",
}


def factor_test(e1: int, n1: int, e2: int, n2: int, factor: float = 2.0) -> float:
    """One-sided p-value of H1: p1 > factor * p2 (unpooled normal approximation)."""
    p1, p2 = e1 / n1, e2 / n2
    se = math.sqrt(p1 * (1 - p1) / n1 + factor ** 2 * p2 * (1 - p2) / n2)
    if se == 0:
        return 1.0
    z = (p1 - factor * p2) / se
    return 0.5 * math.erfc(z / math.sqrt(2))


def _settings(table: pd.DataFrame, algo: str) -> pd.DataFrame:
    rows = table[table["algorithm"] == algo]
    if rows.empty:
        raise UserError(f"no rows for algorithm {algo} in the table(s) of this claim")
    return rows.set_index(["experiment", "x_key"])


def pairwise(table, a, b, check, alpha):
    ra, rb = _settings(table, a), _settings(table, b)
    keys = [k for k in ra.index if k in rb.index]
    worse, better, twice, half = [], [], [], []
    for k in keys:
        ea, na = int(ra.loc[k, "n_errors"]), int(ra.loc[k, "n_trials"])
        eb, nb = int(rb.loc[k, "n_errors"]), int(rb.loc[k, "n_trials"])
        worse.append(two_proportion_test(ea, na, eb, nb, "greater")[1])
        better.append(two_proportion_test(ea, na, eb, nb, "less")[1])
        twice.append(factor_test(ea, na, eb, nb))
        half.append(factor_test(eb, nb, ea, na))
    worse, better = holm(worse), holm(better)
    n_worse, n_better = int((worse < alpha).sum()), int((better < alpha).sum())
    n_diff = int(((holm(twice) < alpha) | (holm(half) < alpha)).sum())
    if check == "better":
        verdict = FAILS_TO_HOLD if n_worse else (HOLDS if n_better else INCONCLUSIVE)
    elif check == "never_worse":
        verdict = FAILS_TO_HOLD if n_worse else HOLDS
    else:
        verdict = FAILS_TO_HOLD if n_diff else HOLDS
    text = (f"{a} vs {b}: {len(keys)} settings; significantly better in {n_better}, worse in {n_worse}, "
            f"more than 2x apart in {n_diff}; mean error {ra['error_prob'].mean():.3g} vs {rb['error_prob'].mean():.3g}")
    return verdict, text, {"a": a, "b": b, "settings": len(keys), "better": n_better, "worse": n_worse,
                           "factor_2_apart": n_diff, "verdict": verdict}


def spread(table, a):
    errs = _settings(table, a)["error_prob"]
    return float(errs.min()), float(errs.max())


def check_claim(claim: dict, table: pd.DataFrame, alpha: float) -> dict:
    check = claim["check"]
    if check not in OPERATIONALISATION:
        raise UserError(f"claim {claim.get('id')}: unknown check {check!r}; known: {', '.join(OPERATIONALISATION)}")
    parts, details = [], []
    if check in ("better", "never_worse", "comparable"):
        for a in claim["a"]:
            for b in claim["b"]:
                verdict, text, detail = pairwise(table, a, b, check, alpha)
                parts.append(verdict)
                details.append(text)
    elif check == "unstable":
        for a in claim["a"]:
            lo, hi = spread(table, a)
            parts.append(HOLDS if lo <= 0.1 and hi >= 0.9 else FAILS_TO_HOLD)
            details.append(f"{a}: error from {lo:.3g} to {hi:.3g}")
    elif check == "more_stable":
        ranges_b = {b: np.subtract(*spread(table, b)[::-1]) for b in claim["b"]}
        for a in claim["a"]:
            lo, hi = spread(table, a)
            parts.append(HOLDS if hi - lo < min(ranges_b.values()) else FAILS_TO_HOLD)
            details.append(f"{a}: range {hi - lo:.3g}")
        details.append("; ".join(f"{b}: range {r:.3g}" for b, r in ranges_b.items()))
    else:
        for a in claim["a"]:
            rows = _settings(table, a)
            for key, row in rows.iterrows():
                lo, hi = wilson_ci(int(row["n_errors"]), int(row["n_trials"]))
                inside = (lo > 0.5) if check == "fails" else (hi < 0.5)
                opposite = (hi < 0.5) if check == "fails" else (lo > 0.5)
                parts.append(HOLDS if inside else (FAILS_TO_HOLD if opposite else INCONCLUSIVE))
                details.append(f"{a}: error {row['error_prob']:.3g} (Wilson 95% {lo:.3g}-{hi:.3g})")
    return {
        "id": claim["id"], "figure": claim.get("figure", ""), "quote": claim["quote"],
        "test": OPERATIONALISATION[check].format(alpha=alpha), "numbers": details, "verdict": combine(parts),
        "check": check, "experiments": claim["experiments"],
    }


def load_tables(paths) -> pd.DataFrame:
    frames = []
    for p in paths:
        df = pd.read_csv(p)
        frames.append(df)
    table = pd.concat(frames, ignore_index=True)
    # Single-setting experiments have no x; give every row a hashable key.
    table["x_key"] = table["x"].apply(lambda v: "single" if (isinstance(v, float) and math.isnan(v)) else float(v))
    return table


def evaluate(claims, tables: dict[str, str], alpha: float, substitutions=None, synthetic=(),
             restrict=None) -> list[dict]:
    """Check every claim whose experiments all have tables; `substitutions`
    maps an experiment to another (an ablation) to judge the claim there;
    `restrict` maps an experiment to the x values to keep."""
    out = []
    substitutions = substitutions or {}
    for claim in claims:
        exps = [substitutions.get(e, e) for e in claim["experiments"]]
        if not all(e in tables for e in exps):
            continue
        table = load_tables([tables[e] for e in exps])
        for exp, keep in (restrict or {}).items():
            table = table[(table["experiment"] != exp) | table["x_key"].isin(keep)]
        algos = set(claim["a"]) | set(claim.get("b", []))
        if not algos <= set(table["algorithm"]):
            continue
        result = check_claim(claim, table, alpha)
        if set(exps) & set(synthetic):
            result["numbers"].append("computed on the synthetic stand-in for R6A: says nothing about the paper's data")
            result["synthetic"] = True
        out.append(result)
    return out


def ablation_section(ablations) -> list[str]:
    if not ablations:
        return []
    lines = ["## Ablations: does the conclusion change?", "",
             "Each ablation re-runs one experiment with one paper-vs-code difference switched; the claims "
             "judged on that experiment are judged again on the ablation, and compared with the published "
             "run judged on the same settings. Ablations with fewer trials have less power: a change to "
             "'inconclusive' can be a loss of power rather than an effect.", "",
             "| ablation | changes | claims re-judged | conclusion |", "|---|---|---|---|"]
    for ab in ablations:
        changed = [f"`{c['id']}`: {c['published']} -> {c['ablation']}" for c in ab["claims"]
                   if c["published"] != c["ablation"]]
        verdict = "changes: " + "; ".join(changed) if changed else "unchanged"
        if not ab["claims"]:
            verdict = "no claim applies to the algorithms it runs"
        lines.append(f"| `{ab['name']}` | {ab['changes']} | {len(ab['claims'])} | {verdict} |")
    return lines


def evaluate_ablations(claims, tables, ablations: dict, alpha):
    out = []
    for name, spec in ablations.items():
        base = spec["ablation_of"]
        # Judge the published run on the ablation's settings only, so that a
        # verdict changes because of the switch, not because of the subset.
        keep = set(load_tables([tables[name]])["x_key"])
        published = {r["id"]: r for r in evaluate(claims, tables, alpha, restrict={base: keep})}
        varied = evaluate(claims, tables, alpha, substitutions={base: name})
        rows = [{"id": r["id"], "published": published[r["id"]]["verdict"], "ablation": r["verdict"]}
                for r in varied if base in r["experiments"] and r["id"] in published]
        out.append({"name": name, "of": base, "changes": spec.get("changes", ""), "claims": rows})
    return out


def main_claims(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="linbandits p1rage-claims", description="Check a study's claims.")
    parser.add_argument("--claims", required=True, help="claims table (YAML)")
    parser.add_argument("--table", action="append", default=[], metavar="EXPERIMENT=CSV")
    parser.add_argument("--ablation", action="append", default=[], metavar="NAME=BASE_EXPERIMENT=CHANGES")
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--synthetic", action="append", default=[], metavar="EXPERIMENT",
                        help="experiment computed on synthetic stand-in data (flagged in the output)")
    parser.add_argument("--out-md", required=True)
    parser.add_argument("--out-json", required=True)
    args = parser.parse_args(argv)
    claims = load_claims(args.claims)
    tables = dict(t.split("=", 1) for t in args.table)
    ablations = {}
    for item in args.ablation:
        name, base, changes = item.split("=", 2)
        ablations[name] = {"ablation_of": base, "changes": changes}
    results = evaluate(claims, tables, args.alpha, synthetic=args.synthetic)
    abl = evaluate_ablations(claims, tables, ablations, args.alpha)
    sections = [ablation_section(abl)] if abl else []
    write_claims(results, args.out_md, args.out_json, study="p1rage", sections=sections,
                 alpha=args.alpha, ablations=abl)
    return 0
