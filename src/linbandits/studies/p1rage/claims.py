"""Which of a paper's claims hold on the reproduced tables.

A claim is a row of a study's claims table (e.g. studies/p1rage/claims.yaml)
naming a check, the experiments it is judged on and the algorithms it
compares. Each check is a stated statistical procedure, reported next to
its verdict: "holds", "does not hold", "inconclusive" or "no evidence".

Pairwise checks compare error counts setting by setting with exact
conditional tests, and Holm-correct over the claim's whole family (every
test of every (A, B) pair, setting and direction the claim involves) at
level `alpha` (0.01 by default):
- worse / better: Fisher's exact test (one-sided) of p_A > p_B / p_A < p_B.
- factor-2 tests: given e_A + e_B, e_A is Binomial(e_A + e_B, pi) with
  pi = f n_A / (f n_A + n_B) when p_A = f p_B for rare errors (the
  conditional test of a Poisson rate ratio, exact there and conservative
  for binomial counts); one-sided p of p_A > 2 p_B, and of p_B > 2 p_A.
Verdicts per (A, B):
- better(A, B): A significantly worse nowhere and significantly better somewhere.
- never_worse(A, B): A significantly worse nowhere.
- consistently_better(A, B): never worse, and better summed over all
  settings (the family gets one more test: Fisher on the summed counts).
- comparable(A, B): "within a factor of 2": neither factor-2 test
  significant anywhere. With 10^4 trials a plain test of equality flags
  differences far too small to see on the paper's log axes.
A pair with no shared settings gives "no evidence", never "holds".
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
from scipy import stats

from linbandits.claims import FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, NO_EVIDENCE, combine, load_claims, write_claims
from linbandits.errors import UserError
from linbandits.stats import holm, wilson_ci

PAIRWISE = ("better", "never_worse", "consistently_better", "comparable")
_FAMILY = "Holm over the claim's whole family (every pair, setting and direction) at level {alpha}"
OPERATIONALISATION = {
    "better": "A vs B in every setting: one-sided Fisher exact tests both ways; " + _FAMILY
              + "; holds if A is significantly worse nowhere and significantly better somewhere",
    "never_worse": "A vs B in every setting: one-sided Fisher exact test (A worse); " + _FAMILY
                   + "; holds if A is significantly worse nowhere",
    "consistently_better": "A vs B: one-sided Fisher exact test (A worse) in every setting, plus one of A "
                           "better on the errors summed over all settings; " + _FAMILY
                           + "; holds if A is significantly worse nowhere and better overall",
    "comparable": "within a factor of 2: in every setting, exact conditional binomial tests that A's error "
                  "exceeds twice B's and that B's exceeds twice A's; " + _FAMILY
                  + "; holds if neither is significant anywhere",
    "unstable": "across settings, min error <= 0.1 and max error >= 0.9",
    "more_stable": "range (max - min) of A's error across settings is smaller than every B's",
    "fails": "95% Wilson interval of the error lies above 1/2",
    "robust": "95% Wilson interval of the error lies below 1/2",
}


def factor_test(e1: int, n1: int, e2: int, n2: int, factor: float = 2.0) -> float:
    """One-sided p-value of H1: p1 > factor * p2, conditional on e1 + e2.

    Under p1 = factor * p2 with rare errors, e1 given e1 + e2 = s is
    Binomial(s, factor n1 / (factor n1 + n2)); p = P(X >= e1). Exact for
    Poisson counts, conservative for binomial ones (their variance is
    smaller). 10 vs 0 errors of 21000 each gives (2/3)^10 = 0.017.
    """
    s = e1 + e2
    if s == 0:
        return 1.0
    pi = factor * n1 / (factor * n1 + n2)
    return float(stats.binom.sf(e1 - 1, s, pi))


def fisher_greater(e1: int, n1: int, e2: int, n2: int) -> float:
    """One-sided Fisher exact p-value of H1: p1 > p2."""
    return float(stats.hypergeom.sf(e1 - 1, n1 + n2, e1 + e2, n1))


def _settings(table: pd.DataFrame, algo: str) -> pd.DataFrame:
    rows = table[table["algorithm"] == algo]
    if rows.empty:
        raise UserError(f"no rows for algorithm {algo} in the table(s) of this claim")
    return rows.set_index(["experiment", "x_key"])


def pair_tests(table, a, b, check):
    """The raw p-values one (A, B) pair adds to its claim's family, as
    (kind, p) with kind worse / better / twice / half / overall."""
    ra, rb = _settings(table, a), _settings(table, b)
    keys = [k for k in ra.index if k in rb.index]
    tests = []
    sums = np.zeros(4, dtype=np.int64)
    for k in keys:
        ea, na = int(ra.loc[k, "n_errors"]), int(ra.loc[k, "n_trials"])
        eb, nb = int(rb.loc[k, "n_errors"]), int(rb.loc[k, "n_trials"])
        sums += (ea, na, eb, nb)
        if check == "comparable":
            tests += [("twice", factor_test(ea, na, eb, nb)), ("half", factor_test(eb, nb, ea, na))]
        else:
            tests.append(("worse", fisher_greater(ea, na, eb, nb)))
            if check == "better":
                tests.append(("better", fisher_greater(eb, nb, ea, na)))
    if check == "consistently_better" and keys:
        ea, na, eb, nb = (int(v) for v in sums)
        tests.append(("overall", fisher_greater(eb, nb, ea, na)))
    return keys, ra, rb, tests


def pairwise_family(table, claim, alpha):
    """Every (A, B) pair of a claim, tested with one Holm correction over all
    their tests. Returns [(verdict, text, detail)] per pair."""
    check = claim["check"]
    pairs = [(a, b) for a in claim["a"] for b in claim["b"]]
    per_pair = [pair_tests(table, a, b, check) for a, b in pairs]
    flat = [p for _, _, _, tests in per_pair for _, p in tests]
    adjusted = iter(holm(flat) if flat else [])
    out = []
    for (a, b), (keys, ra, rb, tests) in zip(pairs, per_pair):
        significant = {}
        for kind, _ in tests:
            significant[kind] = significant.get(kind, 0) + int(next(adjusted) < alpha)
        n_worse, n_better = significant.get("worse", 0), significant.get("better", 0)
        n_diff = significant.get("twice", 0) + significant.get("half", 0)
        overall = significant.get("overall", 0) > 0
        if not keys:
            verdict = NO_EVIDENCE
        elif check == "better":
            verdict = FAILS_TO_HOLD if n_worse else (HOLDS if n_better else INCONCLUSIVE)
        elif check == "never_worse":
            verdict = FAILS_TO_HOLD if n_worse else HOLDS
        elif check == "consistently_better":
            verdict = FAILS_TO_HOLD if n_worse else (HOLDS if overall else INCONCLUSIVE)
        else:
            verdict = FAILS_TO_HOLD if n_diff else HOLDS
        if not keys:
            text = f"{a} vs {b}: no shared settings"
        else:
            text = (f"{a} vs {b}: {len(keys)} settings; significantly worse in {n_worse}"
                    + (f", better in {n_better}" if check == "better" else "")
                    + (f", better overall: {'yes' if overall else 'no'}" if check == "consistently_better" else "")
                    + (f", more than 2x apart in {n_diff}" if check == "comparable" else "")
                    + f"; mean error {ra.loc[keys, 'error_prob'].mean():.3g} vs {rb.loc[keys, 'error_prob'].mean():.3g}"
                    + f" (family of {len(flat)} tests)")
        out.append((verdict, text, {"a": a, "b": b, "settings": len(keys), "better": n_better, "worse": n_worse,
                                    "factor_2_apart": n_diff, "better_overall": overall, "verdict": verdict}))
    return out


def spread(table, a):
    errs = _settings(table, a)["error_prob"]
    return float(errs.min()), float(errs.max())


def check_claim(claim: dict, table: pd.DataFrame, alpha: float) -> dict:
    check = claim["check"]
    if check not in OPERATIONALISATION:
        raise UserError(f"claim {claim.get('id')}: unknown check {check!r}; known: {', '.join(OPERATIONALISATION)}")
    parts, details = [], []
    if check in PAIRWISE:
        for verdict, text, _ in pairwise_family(table, claim, alpha):
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


def published_section(path):
    """Markdown lines and a JSON summary of the published-vs-reproduced table."""
    from linbandits.studies.p1rage.published import summary, summary_line

    comparison = pd.read_csv(path)
    s = summary(comparison)
    lines = ["## Published beside reproduced", "", summary_line(s) + ".", ""]
    if s["differs"]:
        lines += ["Cells that differ:", ""] + [
            f"- {d['experiment']} {d['algorithm']}{'' if pd.isna(d['x']) else f' x={float(d[chr(120)]):g}'}: "
            f"published {float(d['published_p']):.4g}, reproduced {float(d['reproduced_p']):.4g} "
            f"(z = {float(d['z']):.2f})" for d in s["differs"]] + [""]
    if s["series_beyond"]:
        lines += [f"Series beyond the Bonferroni bound (|Stouffer z| > {s['series_bound']:.2f}):", ""] + [
            f"- {d['experiment']} {d['algorithm']}: Stouffer z = {float(d['stouffer_z']):.2f} over "
            f"{int(d['cells'])} cells" for d in s["series_beyond"]] + [""]
    return lines, s


def main_claims(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="linbandits p1rage-claims", description="Check a study's claims.")
    parser.add_argument("--claims", required=True, help="claims table (YAML)")
    parser.add_argument("--table", action="append", default=[], metavar="EXPERIMENT=CSV")
    parser.add_argument("--ablation", action="append", default=[], metavar="NAME=BASE_EXPERIMENT=CHANGES")
    parser.add_argument("--alpha", type=float, default=0.01)
    parser.add_argument("--synthetic", action="append", default=[], metavar="EXPERIMENT",
                        help="experiment computed on synthetic stand-in data (flagged in the output)")
    parser.add_argument("--published-comparison", metavar="CSV",
                        help="published_vs_reproduced.csv: its summary goes into the claims")
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
    extra = {}
    if args.published_comparison:
        lines, extra["published_vs_reproduced"] = published_section(args.published_comparison)
        sections.insert(0, lines)
    write_claims(results, args.out_md, args.out_json, study="p1rage", sections=sections,
                 alpha=args.alpha, ablations=abl, **extra)
    return 0
