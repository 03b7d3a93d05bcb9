"""The JSON form of a judged claim: one record per part (its estimate, interval, tests and verdict),
and the few conversions the judging, the audit and the rendering share."""
from __future__ import annotations

import math

from linbandits.claims.engine import Leaf, fmt, region_of


def relation_text(spec: dict, relation: str) -> str:
    v = spec[relation]
    if relation == "between":
        return f"in [{fmt(v[0])}, {fmt(v[1])}]"
    if relation == "comparable":
        band = spec["band"]
        return f"equivalent to {fmt(v)}: inside [{fmt(band[0])}, {fmt(band[1])}] (TOST)"
    if relation == "not_greater":
        return f"not above {fmt(v)} by more than {fmt(spec['margin'])}: <= {fmt(v + spec['margin'])} (non-inferiority)"
    if relation == "not_less":
        return f"not below {fmt(v)} by more than {fmt(spec['margin'])}: >= {fmt(v - spec['margin'])} (non-inferiority)"
    return {"greater": "> {v}", "less": "< {v}"}[relation].format(v=fmt(v))


def part_record(leaf: Leaf, group_label: str) -> dict:
    e = leaf.estimate
    label = f"{group_label}: {leaf.label}" if group_label else leaf.label
    region = region_of(leaf.relation, leaf.spec)
    out = {"label": label, "quantity": leaf.spec.get("quantity"), "claim": relation_text(leaf.spec, leaf.relation),
           "relation": leaf.relation, "region": {"low": to_json(region.low), "high": to_json(region.high),
                                                  "closed": region.closed},
           "verdict": leaf.verdict}
    if e is None:
        out["missing"] = leaf.missing
        return out
    out.update(value=to_json(e.value), low=to_json(e.low), high=to_json(e.high), level=1 - 2 * e.alpha, n=e.n,
               method=e.method, lower_bound=bool(e.lower_bound), upper_bound=bool(e.upper_bound),
               tests={t.name: {"threshold": to_json(t.threshold), "p": to_json(t.p), "p_adjusted": to_json(t.p_adjusted)}
                      for t in leaf.tests})
    if leaf.reason:
        out["no_evidence"] = leaf.reason
    if leaf.flip:
        out["flip"] = flip_record(leaf.flip)
    if leaf.needed_runs is not None:
        out["runs_to_decide"] = to_json(leaf.needed_runs)
    return out


def flip_record(flip: dict | None) -> dict | None:
    if not flip:
        return None
    return {"edge": to_json(flip["edge"]), "flip_at": to_json(flip["flip_at"]), "text": flip["text"],
            "threshold_sensitive": flip["sensitive"]}


def to_json(v):
    v = float(v)
    return None if math.isnan(v) else (v if math.isfinite(v) else ("inf" if v > 0 else "-inf"))


def part_records(tree) -> list[dict]:
    out = []

    def walk(node, label):
        if isinstance(node, Leaf):
            out.append(part_record(node, label))
            return
        inner = " ".join(x for x in (label, node.label) if x)
        for child in node.children:
            walk(child, inner)

    walk(tree, "")
    return out


def interval_text(p: dict) -> str:
    if "missing" in p:
        return f"not run: {p['missing']}"
    low, high = p["low"], p["high"]
    if p.get("lower_bound"):
        return f"{fmt(from_json(p['value']))} (lower bound: runs at the cap) [{fmt(from_json(low))}, inf)"
    if low == high and str(p.get("method", "")).startswith("exact ("):
        return f"{fmt(from_json(p['value']))} (exact)"
    return f"{fmt(from_json(p['value']))} [{fmt(from_json(low))}, {fmt(from_json(high))}]"


def from_json(v):
    if v is None:
        return math.nan
    if v == "inf":
        return math.inf
    if v == "-inf":
        return -math.inf
    return float(v)
