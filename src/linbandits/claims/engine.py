"""The claims engine: a claim declared as data, judged on the runs, with one Holm family.

A claim (one entry of a study's claims.yaml) is a quote and a list of parts. A part names a
quantity (a function of the runs, see `quantities`), the series it reads and a relation to a
threshold:

    greater: t | less: t          the claim says the quantity is above / below t
    between: [lo, hi]             ... lies in [lo, hi]
    not_greater: t | not_less: t  ... is not above / below t ("never worse"): it fails only
                                  if the data show it beyond t
    comparable: c  [band: [lo, hi]]  ... is indistinguishable from c: it fails if the data show
                                  it outside the band (or different from c, without a band),
                                  holds if the interval holds c or lies inside the band

Every relation is judged through one-sided tests. The claim's tests (every part, setting, pair
and direction) form one family, Holm-corrected at the claim's level, the standard of the P1-RAGE
study: whatever the claim concludes is wrong with probability at most alpha. A part
- holds when its "holds" tests reject (the interval lies on the claimed side), or, for the
  relations judged by non-rejection, when its "fails" tests do not;
- does not hold when its "fails" tests reject (the interval lies on the other side);
- is inconclusive otherwise: its interval straddles the threshold.
Parts combine by `all` (the default: every part must hold; any part failing fails the claim)
or `any` (some part must hold, e.g. "better in some setting"). `each_setting: all|any` expands
a part over an experiment's settings, `pairs: {a: [...], b: [...]}` a claim over pairs of series.
"""
from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np

from linbandits.claims.estimates import Estimate
from linbandits.errors import UserError

HOLDS, FAILS_TO_HOLD, INCONCLUSIVE = "holds", "does not hold", "inconclusive"
NO_EVIDENCE, NOT_RUN = "no evidence", "not run"
VERDICTS = (HOLDS, FAILS_TO_HOLD, INCONCLUSIVE, NO_EVIDENCE, NOT_RUN)
RELATIONS = ("greater", "less", "between", "not_greater", "not_less", "comparable")
LEVEL = 0.95     # two-sided interval level; each one-sided test is at (1 - LEVEL) / 2


class Missing(Exception):
    """A series, experiment or setting a part needs was not run."""


@dataclasses.dataclass
class Test:
    name: str        # what rejecting it shows, e.g. "above 0"
    threshold: float
    side: str        # "above" | "below": the one-sided alternative
    p: float = 1.0
    p_adjusted: float = 1.0


@dataclasses.dataclass
class Leaf:
    label: str
    spec: dict
    relation: str
    estimate: Estimate | None = None
    missing: str = ""
    tests: list = dataclasses.field(default_factory=list)
    verdict: str = NOT_RUN

    def rejected(self, name: str, alpha: float) -> bool:
        return any(t.name == name and t.p_adjusted < alpha for t in self.tests)


@dataclasses.dataclass
class Group:
    combine: str
    children: list
    label: str = ""
    verdict: str = NOT_RUN


# ------------------------------------------------------------------ relations

def relation_of(spec: dict) -> str:
    found = [r for r in RELATIONS if r in spec]
    if len(found) != 1:
        raise UserError(f"claim part {spec.get('label', spec)}: give exactly one relation of "
                        f"{', '.join(RELATIONS)}; got {', '.join(found) or 'none'}")
    return found[0]


def tests_of(relation: str, spec: dict) -> list[Test]:
    """The one-sided tests a relation is judged on."""
    v = spec[relation]
    if relation == "greater":
        return [Test("holds", v, "above"), Test("fails", v, "below")]
    if relation == "less":
        return [Test("holds", v, "below"), Test("fails", v, "above")]
    if relation == "between":
        lo, hi = v
        return [Test("holds_lo", lo, "above"), Test("holds_hi", hi, "below"),
                Test("fails_lo", lo, "below"), Test("fails_hi", hi, "above")]
    if relation == "not_greater":
        return [Test("fails", v, "above")]
    if relation == "not_less":
        return [Test("fails", v, "below")]
    tests = [Test("differs_hi", v, "above"), Test("differs_lo", v, "below")]
    if "band" in spec:
        lo, hi = spec["band"]
        tests += [Test("outside_hi", hi, "above"), Test("outside_lo", lo, "below"),
                  Test("inside_hi", hi, "below"), Test("inside_lo", lo, "above")]
    return tests


def leaf_verdict(leaf: Leaf, alpha: float) -> str:
    if leaf.estimate is None:
        return NOT_RUN
    r, rej = leaf.relation, leaf.rejected
    if r in ("greater", "less"):
        return HOLDS if rej("holds", alpha) else (FAILS_TO_HOLD if rej("fails", alpha) else INCONCLUSIVE)
    if r == "between":
        if rej("fails_lo", alpha) or rej("fails_hi", alpha):
            return FAILS_TO_HOLD
        return HOLDS if rej("holds_lo", alpha) and rej("holds_hi", alpha) else INCONCLUSIVE
    if r in ("not_greater", "not_less"):
        return FAILS_TO_HOLD if rej("fails", alpha) else HOLDS
    differs = rej("differs_hi", alpha) or rej("differs_lo", alpha)
    if "band" not in leaf.spec:
        return FAILS_TO_HOLD if differs else HOLDS
    if rej("outside_hi", alpha) or rej("outside_lo", alpha):
        return FAILS_TO_HOLD
    inside = rej("inside_hi", alpha) and rej("inside_lo", alpha)
    return HOLDS if (not differs or inside) else INCONCLUSIVE


def combine(verdicts, how: str = "all") -> str:
    """Verdicts of parts -> the verdict of their group."""
    verdicts = list(verdicts)
    if not verdicts:
        return NO_EVIDENCE
    ran = [v for v in verdicts if v not in (NOT_RUN, NO_EVIDENCE)]
    if how == "any":
        if HOLDS in ran:
            return HOLDS
        if ran and len(ran) == len(verdicts) and all(v == FAILS_TO_HOLD for v in ran):
            return FAILS_TO_HOLD
    else:
        if FAILS_TO_HOLD in ran:
            return FAILS_TO_HOLD
        if ran and len(ran) == len(verdicts) and all(v == HOLDS for v in ran):
            return HOLDS
    if not ran:
        return NOT_RUN if NOT_RUN in verdicts else NO_EVIDENCE
    if len(ran) < len(verdicts):
        return NOT_RUN
    return INCONCLUSIVE


# ------------------------------------------------------------------ building a claim's tree

def _substitute(spec, values: dict):
    """A copy of spec with every string '{a}' / '{b}' (or containing them) filled in."""
    if isinstance(spec, dict):
        return {k: _substitute(v, values) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_substitute(v, values) for v in spec]
    if isinstance(spec, str) and "{" in spec:
        try:
            return spec.format(**values)
        except (KeyError, IndexError):
            return spec
    return spec


def build_tree(claim: dict, evidence) -> Group:
    """The claim's parts as a tree of groups and leaves (estimates not yet computed)."""
    parts = claim.get("parts")
    if not parts:
        raise UserError(f"claim {claim.get('id')}: needs a non-empty list of parts")
    pairs = claim.get("pairs")
    if pairs:
        groups = []
        for a in pairs["a"]:
            for b in pairs["b"]:
                children = [_build_part(_substitute(p, {"a": a, "b": b}), evidence) for p in parts]
                groups.append(Group("all", children, label=f"{a} vs {b}"))
        return Group(claim.get("combine", "all"), groups)
    return Group(claim.get("combine", "all"), [_build_part(p, evidence) for p in parts])


def _build_part(spec: dict, evidence):
    if "parts" in spec:   # a nested group
        return Group(spec.get("combine", "all"), [_build_part(p, evidence) for p in spec["parts"]],
                     label=spec.get("label", ""))
    how = spec.get("each_setting")
    if how:
        if how not in ("all", "any"):
            raise UserError(f"claim part {spec}: each_setting must be 'all' or 'any', got {how!r}")
        exps = spec.get("experiments") or [spec["experiment"]]
        keep = spec.get("settings")
        leaves = []
        for exp in exps:
            try:
                settings = evidence.settings(exp)
            except Missing as exc:
                leaves.append(Leaf(spec.get("label", spec.get("quantity", "")), {**spec, "experiment": exp},
                                   relation_of(spec), missing=str(exc)))
                continue
            for s in settings:
                if keep is not None and s not in keep:
                    continue
                # the label names the group; each leaf is named by its setting
                one = {k: v for k, v in spec.items() if k not in ("each_setting", "experiments", "settings", "label")}
                one.update(experiment=exp, setting=s)
                leaves.append(Leaf("", one, relation_of(one)))
        return Group(how, leaves, label=spec.get("label", ""))
    return Leaf("", spec, relation_of(spec))


def leaves_of(node):
    if isinstance(node, Leaf):
        return [node]
    return [leaf for child in node.children for leaf in leaves_of(child)]


def _decide(node, alpha: float) -> str:
    if isinstance(node, Leaf):
        node.verdict = leaf_verdict(node, alpha)
        return node.verdict
    node.verdict = combine([_decide(c, alpha) for c in node.children], node.combine)
    return node.verdict


# ------------------------------------------------------------------ judging

def holm(p_values) -> np.ndarray:
    """Holm step-down adjusted p-values, in the input order.

    The i-th smallest p (i = 0..m-1) is multiplied by m - i; a running maximum
    keeps the adjusted values monotone in the raw ones, and they are capped at 1.
    """
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1:
        raise UserError(f"holm: expected a flat list of p-values, got shape {p.shape}")
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0.0 or p.max() > 1.0):
        raise UserError(f"holm: p-values must lie in [0, 1], got {p.tolist()}")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = p[order] * (m - np.arange(m))
    adjusted_sorted = np.minimum(1.0, np.maximum.accumulate(scaled))
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    return adjusted


def evaluate_leaf(leaf: Leaf, evidence, quantities: dict, alpha: float, claim_id: str) -> None:
    spec = leaf.spec
    name = spec.get("quantity")
    if name not in quantities:
        raise UserError(f"claim {claim_id}: unknown quantity {name!r}; known: {', '.join(sorted(quantities))}")
    if not leaf.missing:
        try:
            leaf.estimate, detail = quantities[name](evidence, spec, alpha, claim_id)
            leaf.label = f"{spec['label']} ({detail})" if spec.get("label") else detail
        except Missing as exc:
            leaf.missing = str(exc)
    if leaf.estimate is None:
        leaf.label = spec.get("label") or f"{name} ({spec.get('experiment', '')})"
    leaf.tests = tests_of(leaf.relation, spec)
    if leaf.estimate is not None:
        for t in leaf.tests:
            fn = leaf.estimate.p_above if t.side == "above" else leaf.estimate.p_below
            t.p = float(fn(t.threshold))


def judge_tree(tree, alpha: float) -> str:
    """Holm over every test of the tree, then the verdicts bottom-up."""
    tests = [t for leaf in leaves_of(tree) if leaf.estimate is not None for t in leaf.tests]
    if tests:
        for t, p in zip(tests, holm([t.p for t in tests])):
            t.p_adjusted = float(p)
    return _decide(tree, alpha)


def judge(claim: dict, evidence, quantities: dict, level: float = LEVEL) -> dict:
    """One claim judged on `evidence`: its verdict, every part's estimate, interval and tests."""
    alpha = (1.0 - level) / 2.0
    tree = build_tree(claim, evidence)
    for leaf in leaves_of(tree):
        evaluate_leaf(leaf, evidence, quantities, alpha, claim["id"])
    verdict = judge_tree(tree, alpha)
    n_tests = sum(len(leaf.tests) for leaf in leaves_of(tree) if leaf.estimate is not None)
    return {"verdict": verdict, "tree": tree, "tests": n_tests, "alpha": alpha}


def experiments_of(claim: dict) -> list[str]:
    """Every experiment a claim's parts read, in order of appearance."""
    seen = []

    def walk(spec):
        if isinstance(spec, dict):
            names = [spec.get("experiment"), spec.get("versus")] + list(spec.get("experiments") or [])
            for name in names:
                if isinstance(name, str) and name not in seen:
                    seen.append(name)
            for key in ("parts", "a", "b"):
                if isinstance(spec.get(key), (list, dict, str)):     # a str: 'ALGO@experiment'
                    walk(spec[key])
        elif isinstance(spec, list):
            for s in spec:
                walk(s)
        elif isinstance(spec, str) and "@" in spec:
            exp = spec.split("@", 1)[1]
            if exp not in seen:
                seen.append(exp)

    walk(claim.get("parts", []))
    for side in ("a", "b"):
        walk((claim.get("pairs") or {}).get(side, []))
    return seen


def copy_claim(claim: dict) -> dict:
    return copy.deepcopy(claim)


def fmt(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
        return f"{v:.3g}"
    return f"{v:.4g}"
