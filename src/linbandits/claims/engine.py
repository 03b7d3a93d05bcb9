"""The claims engine: a claim declared as data, judged on the runs, at one family-wise level.

A claim (one entry of a study's claims.yaml) is a quote and a list of parts. A part names a
quantity (a function of the runs, see `quantities`), the series it reads and a relation:

    greater: t | less: t          superiority: the quantity is above / below t
    between: [lo, hi]             the quantity lies in [lo, hi]
    not_greater: t, margin: m     non-inferiority ("never worse"): the quantity is not above t by
                                  more than the margin m (m >= 0, stated; 0 only for exact values
                                  or where the claim is literally "at most t")
    not_less: t, margin: m        ... not below t by more than m
    comparable: c, band: [lo, hi] equivalence (TOST): the quantity lies inside the band around c

Every part is decided by its interval, which is the interval printed beside it: a part
- holds when its interval lies on the claimed side (inside [lo, hi]; below t + m; ...);
- does not hold when it lies on the other side (beyond the margin, outside the band);
- is inconclusive when it straddles the threshold.
Nothing holds because a difference was not detected: "never worse", "comparable" and "similar"
hold only when the interval lies inside their stated margin.

Multiplicity: a claim's intervals are simultaneous. With m parts, each interval is at the two-sided
level 1 - 2 alpha / m (Bonferroni), so whatever the claim concludes, from any of its parts, is wrong
with probability at most alpha (2.5% at the default 95% level); the one-sided p-values printed
beside them are Bonferroni-adjusted (p m, capped at 1) and agree with the intervals.

Power before verdict: before a part is judged, the engine asks whether its design (run count,
censoring, the quantity's range) could give an interval on either side at that level; if it
could not reach both "holds" and "does not hold", the part is **no evidence**, with the reason.

Parts combine by `all` (the default: every part must hold; any part failing fails the claim)
or `any` (some part must hold, e.g. "better in some setting"). `each_setting: all|any` expands
a part over an experiment's settings, `pairs: {a: [...], b: [...]}` a claim over pairs of series.
A claim with `data: r6a` is about the real Yahoo! R6A log: judged on the synthetic stand-in it is
no evidence about the paper, and its measured verdict is kept as a pipeline check.
"""
from __future__ import annotations

import dataclasses
import math


from linbandits.claims.estimates import Estimate
from linbandits.errors import UserError

HOLDS, FAILS_TO_HOLD, INCONCLUSIVE = "holds", "does not hold", "inconclusive"
NO_EVIDENCE, NOT_RUN = "no evidence", "not run"
VERDICTS = (HOLDS, FAILS_TO_HOLD, INCONCLUSIVE, NO_EVIDENCE, NOT_RUN)
RELATIONS = ("greater", "less", "between", "not_greater", "not_less", "comparable")
LEVEL = 0.95     # two-sided level of a claim's simultaneous intervals; each side errs at (1 - LEVEL) / 2
SENSITIVE = 0.10  # a verdict whose flip point lies within 10% of a chosen threshold is threshold-sensitive
STAND_IN = "no evidence about the paper (synthetic stand-in for R6A)"


class Missing(Exception):
    """A series, experiment or setting a part needs was not run."""


@dataclasses.dataclass
class Test:
    name: str        # "holds" / "fails" (+ "_lo" / "_hi" for a relation with two edges)
    threshold: float
    side: str        # "above" | "below": the one-sided alternative
    p: float = 1.0
    p_adjusted: float = 1.0
    inclusive: bool = False   # the alternative includes the threshold itself (a "holds" test at a closed edge)


@dataclasses.dataclass(frozen=True)
class Region:
    """The values a part claims: from `low` to `high`, edges included when `closed`."""
    low: float
    high: float
    closed: bool

    def holds(self, lo: float, hi: float) -> bool:
        """An interval [lo, hi] lies inside the claimed region."""
        above = self.low == -math.inf or lo > self.low or (self.closed and lo >= self.low)
        below = self.high == math.inf or hi < self.high or (self.closed and hi <= self.high)
        return above and below

    def fails(self, lo: float, hi: float) -> bool:
        """An interval [lo, hi] lies entirely outside the claimed region."""
        under = self.low > -math.inf and (hi < self.low or (not self.closed and hi <= self.low))
        over = self.high < math.inf and (lo > self.high or (not self.closed and lo >= self.high))
        return under or over

    def edges(self) -> list[float]:
        return [e for e in (self.low, self.high) if math.isfinite(e)]


@dataclasses.dataclass
class Leaf:
    label: str
    spec: dict
    relation: str
    estimate: Estimate | None = None
    missing: str = ""
    tests: list = dataclasses.field(default_factory=list)
    verdict: str = NOT_RUN
    reason: str = ""                     # why a part is no evidence
    needed_runs: float | None = None     # inconclusive: runs that would decide it at the observed effect
    flip: dict | None = None             # decided: the threshold at which the verdict would flip


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
    relation = found[0]
    if relation in ("not_greater", "not_less"):
        margin = spec.get("margin")
        if not isinstance(margin, (int, float)) or isinstance(margin, bool) or margin < 0:
            raise UserError(f"claim part {spec.get('label', spec)}: {relation} needs `margin:` >= 0, the "
                            "non-inferiority margin (from the paper's words or a stated DEFAULT); "
                            f"got {margin!r}")
    if relation == "comparable":
        band = spec.get("band")
        if (not isinstance(band, (list, tuple)) or len(band) != 2 or not band[0] <= spec["comparable"] <= band[1]):
            raise UserError(f"claim part {spec.get('label', spec)}: comparable needs `band: [lo, hi]` around "
                            f"{spec['comparable']!r}, the equivalence margin; got {band!r}")
    if relation == "between" and not spec["between"][0] <= spec["between"][1]:
        raise UserError(f"claim part {spec.get('label', spec)}: between needs [lo, hi] with lo <= hi")
    return relation


def region_of(relation: str, spec: dict) -> Region:
    v = spec[relation]
    if relation == "greater":
        return Region(float(v), math.inf, False)
    if relation == "less":
        return Region(-math.inf, float(v), False)
    if relation == "not_greater":
        return Region(-math.inf, float(v) + float(spec["margin"]), True)
    if relation == "not_less":
        return Region(float(v) - float(spec["margin"]), math.inf, True)
    lo, hi = spec["band"] if relation == "comparable" else v
    return Region(float(lo), float(hi), True)


def tests_of(relation: str, spec: dict) -> list[Test]:
    """The one-sided tests beside a part: at each finite edge of its claimed region, the test that
    the value is on the claimed side ("holds") and the one that it is on the other ("fails")."""
    region = region_of(relation, spec)
    two = len(region.edges()) == 2
    tests = []
    closed = region.closed
    if math.isfinite(region.low):
        suffix = "_lo" if two else ""
        tests += [Test("holds" + suffix, region.low, "above", inclusive=closed),
                  Test("fails" + suffix, region.low, "below", inclusive=not closed)]
    if math.isfinite(region.high):
        suffix = "_hi" if two else ""
        tests += [Test("holds" + suffix, region.high, "below", inclusive=closed),
                  Test("fails" + suffix, region.high, "above", inclusive=not closed)]
    return tests


def reach(leaf: Leaf) -> tuple[bool, bool, str]:
    """Could this part's design give "holds", and "does not hold", at the level it is judged at?"""
    e, region = leaf.estimate, region_of(leaf.relation, leaf.spec)
    possible = e.possible_intervals(e.alpha, region.edges())
    can_hold = any(region.holds(lo, hi) for lo, hi in possible)
    can_fail = any(region.fails(lo, hi) for lo, hi in possible)
    if can_hold and can_fail:
        return True, True, ""
    unreachable = " nor ".join(w for w, ok in (("holds", can_hold), ("does not hold", can_fail)) if not ok)
    runs = f"{e.n} runs" if e.n else "the design"
    if e.outcomes is None and (math.isfinite(e.value_range[1]) or math.isfinite(e.value_range[0])):
        why = f"the design bounds the measurable value to [{fmt(e.value_range[0])}, {fmt(e.value_range[1])}]"
        if e.lower_bound or e.upper_bound:
            why += " (runs stop at the pull cap)"
    elif possible:
        why = (f"with {runs}, an interval at the {100 * (1 - 2 * e.alpha):.4g}% level has a lower bound of at most "
               f"{fmt(max(lo for lo, _ in possible))} and an upper bound of at least "
               f"{fmt(min(hi for _, hi in possible))}")
    else:
        why = f"{runs} cannot show it"
    return can_hold, can_fail, f"the design can never show that it {unreachable}: {why}"


def leaf_verdict(leaf: Leaf) -> str:
    """The verdict the part's (simultaneous) interval gives, or no evidence if the design cannot decide."""
    if leaf.estimate is None:
        return NOT_RUN
    can_hold, can_fail, why = reach(leaf)
    if not (can_hold and can_fail):
        leaf.reason = why
        return NO_EVIDENCE
    e, region = leaf.estimate, region_of(leaf.relation, leaf.spec)
    if region.holds(e.low, e.high):
        return HOLDS
    if region.fails(e.low, e.high):
        return FAILS_TO_HOLD
    return INCONCLUSIVE


def chosen(edge: float, spec: dict) -> bool:
    """A threshold the reading chose (a margin, a band, a factor), not the natural null of a difference
    (0) or of a ratio (1), nor a published value the claim must equal exactly."""
    if edge == 0:
        return False
    if "between" in spec and spec["between"][0] == spec["between"][1]:
        return False
    return not (edge == 1 and "ratio" in str(spec.get("quantity", "")))


# How a flip reads, by (verdict, the claimed region's edge that decides, what that edge is); {v} is the
# interval bound the edge would have to pass, {m} the margin at which it would.
FLIP_TEXT = {
    (HOLDS, "low"): {"margin": "holds for any margin of at least {m}",
                     "band": "holds for any band whose lower edge is at most {v}",
                     "threshold": "holds for any threshold below {v}"},
    (HOLDS, "high"): {"margin": "holds for any margin of at least {m}",
                      "band": "holds for any band whose upper edge is at least {v}",
                      "threshold": "holds for any threshold above {v}"},
    (FAILS_TO_HOLD, "low"): {"margin": "does not hold for any margin below {m}",
                             "band": "does not hold for any band whose lower edge is above {v}",
                             "threshold": "does not hold for any threshold at or above {v}"},
    (FAILS_TO_HOLD, "high"): {"margin": "does not hold for any margin below {m}",
                              "band": "does not hold for any band whose upper edge is below {v}",
                              "threshold": "does not hold for any threshold at or below {v}"},
}
EDGE_KIND = {"greater": "threshold", "less": "threshold", "not_greater": "margin", "not_less": "margin",
             "between": "band", "comparable": "band"}


def flip_of(leaf: Leaf) -> dict | None:
    """Where a decided part's verdict would flip: the edge of its claimed region that decides, and the
    interval bound that edge would have to pass."""
    if leaf.verdict not in (HOLDS, FAILS_TO_HOLD):
        return None
    e, region, spec = leaf.estimate, region_of(leaf.relation, leaf.spec), leaf.spec
    base = float(spec[leaf.relation]) if leaf.relation in ("not_greater", "not_less") else 0.0
    kind = EDGE_KIND[leaf.relation]
    candidates = []     # (edge value, interval bound, text)
    for side, edge in (("low", region.low), ("high", region.high)):
        if not math.isfinite(edge):
            continue
        if leaf.verdict == HOLDS:
            at = e.low if side == "low" else e.high
        else:    # a "does not hold" is decided by the edge the whole interval lies beyond
            at = e.high if side == "low" else e.low
            if (side == "low" and at > edge) or (side == "high" and at < edge):
                continue
        if kind == "margin" and leaf.verdict == HOLDS and (at <= base if side == "high" else at >= base):
            # the interval lies on the claimed side of the base itself: any margin, 0 included, would do
            text = (f"holds for any margin >= 0 (its interval lies {'at or below' if side == 'high' else 'at or above'}"
                    f" {fmt(base)} itself)")
        else:
            text = FLIP_TEXT[(leaf.verdict, side)][kind].format(v=fmt(at), m=fmt(abs(at - base)))
        candidates.append((edge, at, text))
    if not candidates:
        return None
    # the edge closest to being crossed decides a "holds"; a "does not hold" needs only one edge
    pick = min if leaf.verdict == HOLDS else max
    edge, at, text = pick(candidates, key=lambda c: _distance(c[0], c[1]))
    sensitive = chosen(edge, spec) and math.isfinite(at) and abs(at - edge) <= SENSITIVE * abs(edge)
    return {"edge": edge, "flip_at": at, "distance": _distance(edge, at), "text": text,
            "sensitive": bool(sensitive)}


def _distance(edge: float, at: float) -> float:
    if not math.isfinite(at):
        return math.inf
    return abs(at - edge) / (abs(edge) if edge else 1.0)


def needed_runs(leaf: Leaf) -> float | None:
    """Runs that would decide an inconclusive part if its estimate stayed where it is and its interval
    shrank like 1 / sqrt(runs): inf when the estimate sits on an edge or the runs are censored."""
    e = leaf.estimate
    if leaf.verdict != INCONCLUSIVE or e is None or not e.n:
        return None
    region, v = region_of(leaf.relation, leaf.spec), e.value
    factors = []
    for edge in region.edges():
        if not e.low < edge < e.high:
            continue
        half = (v - e.low) if edge < v else (e.high - v)
        gap = abs(v - edge)
        factors.append(math.inf if gap == 0 or not math.isfinite(half) else (half / gap) ** 2)
    if not factors:
        return None
    return math.inf if not all(map(math.isfinite, factors)) else math.ceil(e.n * max(factors))


def combine(verdicts, how: str = "all") -> str:
    """Verdicts of parts -> the verdict of their group. A group that its parts do not decide is
    not run if a part was not run, no evidence if a part can never be decided, else inconclusive."""
    verdicts = list(verdicts)
    if not verdicts:
        return NO_EVIDENCE
    if how == "any":
        if HOLDS in verdicts:
            return HOLDS
        if all(v == FAILS_TO_HOLD for v in verdicts):
            return FAILS_TO_HOLD
    else:
        if FAILS_TO_HOLD in verdicts:
            return FAILS_TO_HOLD
        if all(v == HOLDS for v in verdicts):
            return HOLDS
    if NOT_RUN in verdicts:
        return NOT_RUN
    if NO_EVIDENCE in verdicts:
        return NO_EVIDENCE
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
                # `min_value`: only settings whose swept value is at least this (a reading's scope)
                if "min_value" in spec and float(evidence.x(exp, s)) < float(spec["min_value"]):
                    continue
                # the label names the group; each leaf is named by its setting
                one = {k: v for k, v in spec.items()
                       if k not in ("each_setting", "experiments", "settings", "label", "min_value")}
                one.update(experiment=exp, setting=s)
                leaves.append(Leaf("", one, relation_of(one)))
        return Group(how, leaves, label=spec.get("label", ""))
    return Leaf("", spec, relation_of(spec))


def leaves_of(node):
    if isinstance(node, Leaf):
        return [node]
    return [leaf for child in node.children for leaf in leaves_of(child)]


def _decide(node) -> str:
    if isinstance(node, Leaf):
        node.verdict = leaf_verdict(node)
        node.flip = flip_of(node)
        node.needed_runs = needed_runs(node)
        return node.verdict
    node.verdict = combine([_decide(c) for c in node.children], node.combine)
    return node.verdict


# ------------------------------------------------------------------ judging

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


def simultaneous(tree, alpha: float) -> int:
    """Put every estimated part of the tree at the Bonferroni level alpha / m (m parts) and its tests'
    p-values beside it, adjusted the same way; returns m."""
    leaves = [leaf for leaf in leaves_of(tree) if leaf.estimate is not None]
    m = len(leaves)
    for leaf in leaves:
        leaf.estimate = leaf.estimate.at_level(alpha / m)
        for t in leaf.tests:
            if leaf.estimate.exact:
                t.p = exact_p(leaf.estimate.value, t)
            else:
                fn = leaf.estimate.p_above if t.side == "above" else leaf.estimate.p_below
                t.p = float(fn(t.threshold))
            t.p_adjusted = float(min(1.0, t.p * m))
    return m


def exact_p(value: float, test: Test) -> float:
    """A value without sampling noise is on the alternative's side or not: p is 0 or 1. A "holds" test at a
    closed edge includes the edge (an exact 2,742,457 against [2742457, 2742457] holds with p = 0)."""
    if test.side == "above":
        on_side = value > test.threshold or (test.inclusive and value == test.threshold)
    else:
        on_side = value < test.threshold or (test.inclusive and value == test.threshold)
    return 0.0 if on_side else 1.0


def judge_tree(tree, alpha: float) -> str:
    """Simultaneous intervals over every part of the tree, then the verdicts bottom-up."""
    simultaneous(tree, alpha)
    return _decide(tree)


def stand_in(claim: dict, evidence) -> bool:
    """A claim about the real R6A log (`data: r6a`) read on the synthetic stand-in."""
    if claim.get("data") != "r6a":
        return False
    for exp in experiments_of(claim):
        try:
            return bool(evidence.summary(exp, evidence.settings(exp)[0]).get("synthetic"))
        except (Missing, IndexError, FileNotFoundError, KeyError):
            continue
    return False


def judge(claim: dict, evidence, quantities: dict, level: float = LEVEL) -> dict:
    """One claim judged on `evidence`: its verdict, every part's estimate, interval and tests."""
    alpha = (1.0 - level) / 2.0
    tree = build_tree(claim, evidence)
    for leaf in leaves_of(tree):
        evaluate_leaf(leaf, evidence, quantities, alpha, claim["id"])
    verdict = judge_tree(tree, alpha)
    m = sum(1 for leaf in leaves_of(tree) if leaf.estimate is not None)
    out = {"verdict": verdict, "tree": tree, "tests": m, "alpha": alpha, "parts": m,
           "flip": claim_flip(tree), "needed_runs": claim_needed_runs(tree)}
    if stand_in(claim, evidence):
        out.update(verdict=NO_EVIDENCE, stand_in_verdict=verdict, reason=STAND_IN)
    return out


def claim_flip(node):
    """The flip of the part that decides the claim: for a "holds" under `all` (or a "does not hold"
    under `any`) the part nearest its edge; for a "does not hold" under `all` (or a "holds" under
    `any`) the part farthest beyond it."""
    if isinstance(node, Leaf):
        return node.flip
    if node.verdict not in (HOLDS, FAILS_TO_HOLD):
        return None
    deciding = [f for f in (claim_flip(c) for c in node.children if c.verdict == node.verdict) if f]
    if not deciding:
        return None
    nearest = (node.verdict == HOLDS) == (node.combine == "all")
    return (min if nearest else max)(deciding, key=lambda f: f["distance"])


def claim_needed_runs(tree) -> float | None:
    """Runs that would decide every inconclusive part at its observed effect (the largest)."""
    found = [leaf.needed_runs for leaf in leaves_of(tree) if leaf.needed_runs is not None]
    return max(found) if found else None


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


def fmt(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
        return f"{v:.3g}"
    return f"{v:.4g}"
