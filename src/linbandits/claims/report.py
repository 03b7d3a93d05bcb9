"""A study's claims judged under its defaults and under every protocol switch, as Markdown + JSON.

For each claim: the verdict on the default runs; for each protocol choice the claim lists
(`choices:` in claims.yaml) and each switch run of that choice (an experiment whose `switch`
names the choice), the verdict with the switched experiment in place of its base, beside the
default's verdict on the same settings (a like-for-like comparison). A verdict is "robust"
when no switch changes it, and "depends on <choice>" otherwise, with the verdict under each.
A "does not hold" states its cause: the paper (a `cause` the claims table gives), a protocol
choice (the switch that flips it), or its scope (`scope`, e.g. "at n = 10000").
"""
from __future__ import annotations

import json
import math

from linbandits.atomic import write_text_atomic
from linbandits.claims.engine import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, NO_EVIDENCE, NOT_RUN, VERDICTS,
                                      Leaf, experiments_of, fmt, judge)
from linbandits.claims.evidence import Restricted, Switched

ROBUST, DEPENDS, UNTESTED, NO_CHOICES = "robust", "depends", "not run", "none"

RELATION_TEXT = {
    "greater": "> {v}", "less": "< {v}", "not_greater": "not > {v} (fails only if shown above)",
    "not_less": "not < {v} (fails only if shown below)",
}


def relation_text(spec: dict, relation: str) -> str:
    v = spec[relation]
    if relation == "between":
        return f"in [{fmt(v[0])}, {fmt(v[1])}]"
    if relation == "comparable":
        band = spec.get("band")
        return f"= {fmt(v)} within noise" + (f" (or shown inside [{fmt(band[0])}, {fmt(band[1])}])" if band else "")
    return RELATION_TEXT[relation].format(v=fmt(v))


def part_record(leaf: Leaf, group_label: str) -> dict:
    e = leaf.estimate
    label = f"{group_label}: {leaf.label}" if group_label else leaf.label
    out = {"label": label, "quantity": leaf.spec.get("quantity"), "claim": relation_text(leaf.spec, leaf.relation),
           "verdict": leaf.verdict}
    if e is None:
        out["missing"] = leaf.missing
        return out
    out.update(value=_num(e.value), low=_num(e.low), high=_num(e.high), n=e.n, method=e.method,
               lower_bound=bool(e.lower_bound),
               tests={t.name: {"threshold": _num(t.threshold), "p": _num(t.p), "p_holm": _num(t.p_adjusted)}
                      for t in leaf.tests})
    return out


def _num(v):
    v = float(v)
    return None if math.isnan(v) else (v if math.isfinite(v) else ("inf" if v > 0 else "-inf"))


def _records(tree) -> list[dict]:
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


def _scope(claim: dict, evidence) -> str:
    template = claim.get("scope")
    if not template:
        return ""
    exps = experiments_of(claim)
    try:
        exp = exps[0]
        summary = evidence.summary(exp, evidence.settings(exp)[0])
        return template.format(**summary)
    except Exception:   # a scope that cannot be filled is left out rather than guessed
        return ""


def switches_for(claim: dict, switches: list[dict]) -> dict:
    """choice -> value -> {base: (switch experiment, merge)} of the switches a claim's verdict depends on."""
    exps = set(experiments_of(claim))
    out: dict = {}
    for sw in switches:
        if sw["choice"] in claim.get("choices", []) and sw["base"] in exps:
            out.setdefault(sw["choice"], {}).setdefault(str(sw["value"]), {})[sw["base"]] = (sw["switch"], sw["merge"])
    return out


def robustness(claim: dict, evidence, quantities: dict, switches: list[dict], default_verdict: str,
               level: float) -> dict:
    choices = list(claim.get("choices", []))
    if not choices:
        return {"status": NO_CHOICES, "choices": [], "runs": []}
    found = switches_for(claim, switches)
    runs = []
    for choice in choices:
        for value, replacements in found.get(choice, {}).items():
            switched = Switched(evidence, replacements)
            keep = {base: set(switched.settings(base)) for base in replacements}
            fewer = {base: evidence.trials(sw) for base, (sw, _) in replacements.items()
                     if evidence.trials(sw) < evidence.trials(base)}
            verdict = judge(claim, switched, quantities, level)["verdict"]
            same = judge(claim, Restricted(evidence, keep, fewer), quantities, level)["verdict"]
            runs.append({"choice": choice, "value": value, "verdict": verdict, "default_on_same_settings": same,
                         "experiments": sorted(sw for sw, _ in replacements.values()),
                         "fewer_runs": [f"{n} runs, not {evidence.trials(base)}" for base, n in fewer.items()]})
    untested = [c for c in choices if c not in found]
    changed = [r for r in runs if r["verdict"] != r["default_on_same_settings"]]
    if default_verdict in (NOT_RUN, NO_EVIDENCE):
        status = UNTESTED       # nothing was judged, so nothing can be robust (e.g. an opt-in target's claim)
    elif changed:
        status = DEPENDS
    elif runs and not untested:
        status = ROBUST
    else:
        status = UNTESTED
    return {"status": status, "choices": choices, "untested": untested, "runs": runs}


def robustness_text(rob: dict, default_verdict: str, default_labels: dict) -> str:
    if rob["status"] == NO_CHOICES:
        return "no open protocol choice"
    if default_verdict in (NOT_RUN, NO_EVIDENCE):
        return f"not judged ({default_verdict})"
    parts = []
    changed = [r for r in rob["runs"] if r["verdict"] != r["default_on_same_settings"]]
    for choice in rob["choices"]:
        mine = [r for r in changed if r["choice"] == choice]
        if mine:
            alts = "; ".join(f"{r['value']}: {r['verdict']}" + (
                f" (default on the same settings and runs: {r['default_on_same_settings']})"
                if r["default_on_same_settings"] != default_verdict else "")
                + (f" [judged on {', '.join(r['fewer_runs'])}]" if r.get("fewer_runs") else "") for r in mine)
            parts.append(f"depends on {choice} ({default_labels.get(choice, 'default')}: {default_verdict}; {alts})")
    if rob["status"] == ROBUST:
        return "robust to " + ", ".join(f"{c} ({', '.join(r['value'] for r in rob['runs'] if r['choice'] == c)})"
                                        for c in rob["choices"])
    if rob.get("opt_in"):
        parts.append("judged for " + ", ".join(rob["opt_in"]) + " by `snakemake --cores 2 robustness` (costly "
                     "switch runs; robustness.md beside this file)")
    if rob.get("untested"):
        parts.append("untested for " + ", ".join(rob["untested"]) + " (no switch run on this claim's experiments)")
    same = [c for c in rob["choices"] if c not in rob.get("untested", []) + rob.get("opt_in", [])
            and not any(r["choice"] == c for r in changed)]
    if same:
        parts.append("robust to " + ", ".join(same))
    return "; ".join(parts)


def cause_text(claim: dict, verdict: str, rob: dict, scope: str) -> str:
    if verdict != FAILS_TO_HOLD:
        return ""
    causes = []
    if claim.get("cause"):
        causes.append(claim["cause"])
    flips = [r for r in rob.get("runs", []) if r["verdict"] != FAILS_TO_HOLD and r["default_on_same_settings"] == FAILS_TO_HOLD]
    for r in flips:
        causes.append(f"a protocol choice: with {r['choice']} = {r['value']} it {_verb(r['verdict'])}")
    if scope:
        causes.append(f"its scope: measured {scope}")
    return "; ".join(causes)


def _verb(verdict: str) -> str:
    return {HOLDS: "holds", FAILS_TO_HOLD: "does not hold", INCONCLUSIVE: "is inconclusive"}.get(verdict, f"is {verdict}")


def judge_claims(claims: list[dict], evidence, quantities: dict, switches=(), level: float = LEVEL,
                 default_labels: dict | None = None, opt_in=()) -> list[dict]:
    """Every claim judged; `switches` are the switch runs judged here, `opt_in` those an opt-in target
    runs (the `robustness` target): a choice judged only there is named as such."""
    out = []
    for claim in claims:
        j = judge(claim, evidence, quantities, level)
        scope = _scope(claim, evidence)
        rob = robustness(claim, evidence, quantities, list(switches), j["verdict"], level)
        later = switches_for(claim, list(opt_in))
        rob["opt_in"] = [c for c in rob.get("untested", []) if c in later]
        rob["untested"] = [c for c in rob.get("untested", []) if c not in later]
        out.append({
            "id": claim["id"], "figure": claim.get("figure", ""), "quote": claim["quote"],
            "verdict": j["verdict"], "scope": scope,
            "test": (f"{j['tests']} one-sided tests at {100 * j['alpha']:g}% each, Holm-corrected over the claim; "
                     f"intervals {100 * level:g}%; parts combined by '{claim.get('combine', 'all')}'"
                     + ("; per pair of series" if claim.get("pairs") else "")),
            "parts": _records(j["tree"]),
            "robustness": {**rob, "text": robustness_text(rob, j["verdict"], default_labels or {})},
            "cause": cause_text(claim, j["verdict"], rob, scope),
            "note": claim.get("note", ""),
            "experiments": experiments_of(claim),
        })
    return out


# ------------------------------------------------------------------ rendering

def counts(results) -> dict:
    return {v: sum(r["verdict"] == v for r in results) for v in VERDICTS}


def summary_line(results) -> str:
    c = counts(results)
    parts = [f"{c[HOLDS]} hold", f"{c[FAILS_TO_HOLD]} do not hold", f"{c[INCONCLUSIVE]} inconclusive"]
    parts += [f"{c[v]} {v}" for v in (NO_EVIDENCE, NOT_RUN) if c[v]]
    depends = sum(r.get("robustness", {}).get("status") == DEPENDS for r in results)
    return "Summary: " + ", ".join(parts) + (f"; {depends} depend on a protocol choice" if depends else "") + "."


def verdict_phrase(r: dict) -> str:
    return r["verdict"] + (f" {r['scope']}" if r.get("scope") and r["verdict"] in (HOLDS, FAILS_TO_HOLD, INCONCLUSIVE) else "")


def _interval(p: dict) -> str:
    if "missing" in p:
        return f"not run: {p['missing']}"
    low, high = p["low"], p["high"]
    if p.get("lower_bound"):
        return f"{fmt(_f(p['value']))} (lower bound: runs at the cap) [{fmt(_f(low))}, inf)"
    if low == high and str(p.get("method", "")).startswith("exact ("):
        return f"{fmt(_f(p['value']))} (exact)"
    return f"{fmt(_f(p['value']))} [{fmt(_f(low))}, {fmt(_f(high))}]"


HOLDS_TESTS = ("holds", "inside")
FAILS_TESTS = ("fails", "outside", "differs")


def _p_pair(tests: dict) -> str:
    """The Holm-adjusted p of the claimed side (the largest of its tests) and of the other side (the smallest)."""
    held = [t["p_holm"] for name, t in tests.items() if name.startswith(HOLDS_TESTS) and t["p_holm"] is not None]
    failed = [t["p_holm"] for name, t in tests.items() if name.startswith(FAILS_TESTS) and t["p_holm"] is not None]
    if not held and not failed:
        return ""
    return f"{fmt(max(held)) if held else '-'} \\| {fmt(min(failed)) if failed else '-'}"


def _f(v):
    if v is None:
        return math.nan
    if v == "inf":
        return math.inf
    if v == "-inf":
        return -math.inf
    return float(v)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(results, title: str, intro=(), sections=(), level: float = LEVEL) -> str:
    lines = [f"# {title}", "",
             "Verdicts: **holds**, **does not hold**, **inconclusive** (the interval straddles the threshold), "
             "**no evidence**, **not run**. Every part of a claim is an estimate over independent runs with its "
             f"{100 * level:g}% interval; the claim's one-sided tests are Holm-corrected together, so what a claim "
             f"concludes is wrong with probability at most {100 * (1 - level) / 2:g}%. Robustness: the verdict under "
             "every protocol choice the paper leaves open.", "", *intro,
             "| claim | figure | quote | verdict | robustness |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| `{r['id']}` | {_cell(r['figure'])} | \"{_cell(r['quote'])}\" | **{_cell(verdict_phrase(r))}** "
                     f"| {_cell(r['robustness']['text'])} |")
    lines += ["", summary_line(results), ""]
    for r in results:
        lines += [f"## `{r['id']}`: {verdict_phrase(r)}", "", f"> {r['quote']}", ""]
        if r.get("cause"):
            lines += [f"Cause: {r['cause']}.", ""]
        if r.get("note"):
            lines += [f"Note: {r['note']}", ""]
        lines += [f"Test: {r['test']}.", "",
                  f"| part | claim | estimate [{100 * level:g}% CI] | runs | method | p holds \\| fails (Holm) | "
                  "part verdict |", "|---|---|---|---:|---|---|---|"]
        for p in r["parts"]:
            lines.append(f"| {_cell(p['label'])} | {_cell(p['claim'])} | {_cell(_interval(p))} | {p.get('n', '')} | "
                         f"{_cell(p.get('method', ''))} | {_p_pair(p.get('tests', {}))} | {p['verdict']} |")
        lines += ["", f"Robustness: {r['robustness']['text']}.", ""]
        for run in r["robustness"].get("runs", []):
            lines.append(f"- {run['choice']} = {run['value']} ({', '.join(run['experiments'])}): {run['verdict']}; "
                         f"default on the same settings and runs: {run['default_on_same_settings']}"
                         + (f" ({'; '.join(run['fewer_runs'])})" if run.get("fewer_runs") else ""))
        if r["robustness"].get("runs"):
            lines.append("")
    for section in sections:
        lines += [*section, ""]
    return "\n".join(lines).rstrip() + "\n"


def write_claims(results, md_path, json_path, study: str, title: str, intro=(), sections=(), level: float = LEVEL,
                 **extra) -> None:
    write_text_atomic(md_path, render_markdown(results, title, intro, sections, level))
    write_text_atomic(json_path, json.dumps({"study": study, "level": level, **extra, "claims": list(results)},
                                            indent=1) + "\n")


CLAIM_KEYS = {"id", "figure", "quote", "parts", "combine", "pairs", "choices", "scope", "cause", "note"}


def load_claims(path, choices=None) -> list[dict]:
    """A study's claims table: every entry has an id (unique), a quote and parts; the choices it
    names must be in the study's `choices:` table."""
    from linbandits.errors import UserError
    from linbandits.yamlfile import read_yaml

    claims = read_yaml(path, "claims table")
    if not isinstance(claims, list):
        raise UserError(f"claims table {path} must be a list of claims")
    seen = set()
    for entry in claims:
        if not isinstance(entry, dict) or not {"id", "quote", "parts"} <= set(entry):
            raise UserError(f"claims table {path}: every claim needs an 'id', a 'quote' and 'parts', got {entry!r}")
        unknown = set(entry) - CLAIM_KEYS
        if unknown:
            raise UserError(f"claims table {path}, claim {entry['id']}: unknown key(s) {', '.join(sorted(unknown))}; "
                            f"allowed: {', '.join(sorted(CLAIM_KEYS))}")
        if entry["id"] in seen:
            raise UserError(f"claims table {path}: claim id {entry['id']!r} is used twice")
        seen.add(entry["id"])
        if choices is not None:
            bad = [c for c in entry.get("choices", []) if c not in choices]
            if bad:
                raise UserError(f"claims table {path}, claim {entry['id']}: choice(s) {', '.join(bad)} are not in the "
                                f"study's `choices:` table ({', '.join(choices) or 'empty'})")
    return claims
