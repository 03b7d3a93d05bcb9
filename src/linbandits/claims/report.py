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

import numpy as np

from linbandits.atomic import write_text_atomic
from linbandits.claims.engine import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, NO_EVIDENCE, NOT_RUN, SENSITIVE,
                                      STAND_IN, VERDICTS, Leaf, experiments_of, fmt, judge, leaves_of, region_of)
from linbandits.claims.evidence import Restricted, Switched
from linbandits.errors import UserError
from linbandits.yamlfile import read_yaml

ROBUST, DEPENDS, UNTESTED, NO_CHOICES = "robust", "depends", "not run", "none"

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
           "relation": leaf.relation, "region": {"low": _num(region.low), "high": _num(region.high),
                                                  "closed": region.closed},
           "verdict": leaf.verdict}
    if e is None:
        out["missing"] = leaf.missing
        return out
    out.update(value=_num(e.value), low=_num(e.low), high=_num(e.high), level=1 - 2 * e.alpha, n=e.n,
               method=e.method, lower_bound=bool(e.lower_bound), upper_bound=bool(e.upper_bound),
               tests={t.name: {"threshold": _num(t.threshold), "p": _num(t.p), "p_adjusted": _num(t.p_adjusted)}
                      for t in leaf.tests})
    if leaf.reason:
        out["no_evidence"] = leaf.reason
    if leaf.flip:
        out["flip"] = _flip_record(leaf.flip)
    if leaf.needed_runs is not None:
        out["runs_to_decide"] = _num(leaf.needed_runs)
    return out


def _flip_record(flip: dict | None) -> dict | None:
    if not flip:
        return None
    return {"edge": _num(flip["edge"]), "flip_at": _num(flip["flip_at"]), "text": flip["text"],
            "threshold_sensitive": flip["sensitive"]}


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


def measured(judged: dict) -> str:
    """The verdict the runs give: on the synthetic stand-in, the stand-in's (a pipeline check)."""
    return judged.get("stand_in_verdict", judged["verdict"])


def robustness(claim: dict, evidence, quantities: dict, switches: list[dict], default_verdict: str,
               level: float) -> dict:
    choices = list(claim.get("choices", []))
    if not choices:
        return {"status": NO_CHOICES, "choices": [], "runs": []}
    found = switches_for(claim, switches)
    runs = []
    for choice in choices:
        for value, replacements in found.get(choice, {}).items():
            switched = Recording(evidence, replacements)
            keep = {base: set(switched.settings(base)) for base in replacements}
            fewer = {base: evidence.trials(sw) for base, (sw, _) in replacements.items()
                     if evidence.trials(sw) < evidence.trials(base)}
            on_switch = judge(claim, switched, quantities, level)
            on_default = judge(claim, Restricted(evidence, keep, fewer), quantities, level)
            verdict, same = measured(on_switch), measured(on_default)
            runs.append({"choice": choice, "value": value, "verdict": verdict, "default_on_same_settings": same,
                         # each part's estimate and simultaneous interval, so that a verdict is read beside them
                         "intervals": _part_intervals(on_switch), "default_intervals": _part_intervals(on_default),
                         "experiments": sorted(sw for sw, _ in replacements.values()),
                         "fewer_runs": [f"{n} runs, not {evidence.trials(base)}" for base, n in fewer.items()],
                         "informative": switched.informative() or not compares_series(claim)})
    untested = [c for c in choices if c not in found]
    # a switch run whose every series gives one and the same constant result (e.g. no series ever errs)
    # cannot tell the algorithms apart: it neither changes a verdict nor makes one robust
    silent = [r for r in runs if not r["informative"]]
    runs_used = [r for r in runs if r["informative"]]
    untested += [c for c in choices if c in found and not any(r["choice"] == c for r in runs_used)]
    changed = [r for r in runs_used if r["verdict"] != r["default_on_same_settings"]]
    if default_verdict in (NOT_RUN, NO_EVIDENCE):
        status = UNTESTED       # nothing was judged, so nothing can be robust (e.g. an opt-in target's claim)
    elif changed:
        status = DEPENDS
    elif runs_used and not untested:
        status = ROBUST
    else:
        status = UNTESTED
    return {"status": status, "choices": choices, "untested": untested, "runs": runs,
            "no_information": [f"{r['choice']} = {r['value']}" for r in silent]}


def _part_intervals(judged: dict) -> list[str]:
    """'estimate [low, high]' of every part of a judged claim (a part not run says why), after the part's
    short label ('R_A(T) - R_B(T)') when there are several."""
    records = _records(judged["tree"])
    if len(records) == 1:
        return [_interval(records[0])]
    return [f"{r['label'].split(' (')[0]}: {_interval(r)}" for r in records]


def compares_series(claim: dict) -> bool:
    """Every part of the claim compares two series (a against b): a ranking claim."""
    def parts(spec):
        for p in spec.get("parts", []):
            if "parts" in p:
                yield from parts(p)
            else:
                yield p
    return all("b" in p for p in parts(claim))


class Recording(Switched):
    """Switched evidence that remembers the columns it answered from the switch runs, to tell whether
    they carry any information (see `informative`)."""

    def __init__(self, evidence, replacements: dict):
        super().__init__(evidence, replacements)
        self.read, self.other_reads = [], 0

    def curve(self, name, setting, algorithm, curve="regret"):
        self.other_reads += 1
        return super().curve(name, setting, algorithm, curve)

    def column(self, name, setting, algorithm, column):
        values = Switched.column(self, name, setting, algorithm, column)
        if self._source(name, setting, algorithm) != name:
            if column == "correct":
                self.read.append((algorithm, np.asarray(values)))
            else:
                self.other_reads += 1
        return values

    def informative(self) -> bool:
        """False when the switch runs answered only error indicators, of at least two series, and every
        one of them is one and the same value (no series ever errs, or every one always does)."""
        if self.other_reads or len({algorithm for algorithm, _ in self.read}) < 2:
            return True
        first = self.read[0][1].flat[0] if self.read[0][1].size else None
        return not all(a.size and np.all(a == first) for _, a in self.read)


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
        parts.append("judged for " + ", ".join(rob["opt_in"]) + " only by the opt-in target `snakemake --cores 2 "
                     "robustness` (costly switch runs; it writes robustness.md beside this file)")
    if rob.get("no_information"):
        parts.append("no information from " + ", ".join(rob["no_information"]) + " (every series of the switch run "
                     "gives the same constant result, e.g. no errors at all: it cannot rank the algorithms)")
    if rob.get("untested"):
        parts.append("untested for " + ", ".join(rob["untested"]) + " (no informative switch run on this claim's "
                     "experiments)")
    same = [c for c in rob["choices"] if c not in rob.get("untested", []) + rob.get("opt_in", [])
            and not any(r["choice"] == c for r in changed)]
    if same:
        parts.append("robust to " + ", ".join(same))
    return "; ".join(parts)


def cause_text(claim: dict, verdict: str, rob: dict, scope: str, flip: dict | None = None) -> str:
    """Where a "does not hold" points: the paper (the claims table's `cause`), a protocol choice (a switch
    under which it does not fail, a horizon among them); failing those, the reproduction's runs themselves."""
    if verdict != FAILS_TO_HOLD:
        return ""
    causes = []
    if claim.get("cause"):
        causes.append(claim["cause"])
    flips = [r for r in rob.get("runs", []) if r["verdict"] != FAILS_TO_HOLD and r["default_on_same_settings"] == FAILS_TO_HOLD]
    for r in flips:
        causes.append(f"a protocol choice: with {r['choice']} = {r['value']} it {_verb(r['verdict'])}")
    # the scope (e.g. "at n = 10000") is said beside the verdict; it is a cause only where a switch
    # run of another scope flips the verdict, which the protocol-choice line above already names
    if not causes:
        causes.append("the reproduced runs: no error of the paper and no protocol choice explains it"
                      + (f" (the deciding part {flip['text']})" if flip else ""))
    return "; ".join(causes)


def _verb(verdict: str) -> str:
    return {HOLDS: "holds", FAILS_TO_HOLD: "does not hold", INCONCLUSIVE: "is inconclusive"}.get(verdict, f"is {verdict}")


def judge_claims(claims: list[dict], evidence, quantities: dict, switches=(), level: float = LEVEL,
                 default_labels: dict | None = None, opt_in=(), witness=None) -> list[dict]:
    """Every claim judged; `switches` are the switch runs judged here, `opt_in` those an opt-in target
    runs (the `robustness` target): a choice judged only there is named as such. `witness`: the paper's
    own published data as evidence (where a study has them), each claim judged on them too."""
    out = []
    for claim in claims:
        j = judge(claim, evidence, quantities, level)
        scope = _scope(claim, evidence)
        rob = robustness(claim, evidence, quantities, list(switches), measured(j), level)
        later = switches_for(claim, list(opt_in))
        rob["opt_in"] = [c for c in rob.get("untested", []) if c in later]
        rob["untested"] = [c for c in rob.get("untested", []) if c not in later]
        flip = j["flip"] if j["verdict"] in (HOLDS, FAILS_TO_HOLD) else None
        record = {
            "id": claim["id"], "figure": claim.get("figure", ""), "quote": claim["quote"],
            "verdict": j["verdict"], "scope": scope,
            "test": (f"{j['parts']} part(s); simultaneous {100 * level:g}% intervals (Bonferroni: each part's interval "
                     f"at {100 * (1 - 2 * j['alpha'] / max(j['parts'], 1)):.4g}%), one-sided p-values Bonferroni-"
                     f"adjusted; parts combined by '{claim.get('combine', 'all')}'"
                     + ("; per pair of series" if claim.get("pairs") else "")),
            "parts": _records(j["tree"]),
            "robustness": {**rob, "text": robustness_text(rob, measured(j), default_labels or {})},
            "cause": cause_text(claim, j["verdict"], rob, scope, flip),
            "note": claim.get("note", ""),
            "experiments": experiments_of(claim),
            "flip": _flip_record(flip),
            "runs_to_decide": _num(j["needed_runs"]) if j["verdict"] == INCONCLUSIVE and j["needed_runs"] else None,
            "no_evidence": _no_evidence_reason(j),
        }
        if "stand_in_verdict" in j:
            record["stand_in_verdict"] = j["stand_in_verdict"]
        if witness is not None:
            record["published"] = _witness(claim, witness, quantities, level)
        out.append(record)
    return out


def _no_evidence_reason(j: dict) -> str:
    if j["verdict"] != NO_EVIDENCE:
        return ""
    if j.get("reason"):
        return j["reason"]
    reasons = [leaf.reason for leaf in leaves_of(j["tree"]) if leaf.reason]
    return reasons[0] if reasons else ""


def _witness(claim: dict, witness, quantities: dict, level: float) -> dict:
    """The claim judged on the paper's own published data (at their effective size)."""
    try:
        j = judge(claim, witness, quantities, level)
    except Exception as exc:  # a claim the published data cannot express is reported, not guessed
        return {"verdict": NOT_RUN, "why": f"the published data cannot express it ({exc})"}
    if j["verdict"] == NOT_RUN:
        missing = [leaf.missing for leaf in leaves_of(j["tree"]) if leaf.missing]
        return {"verdict": NOT_RUN, "why": missing[0] if missing else "no published cell"}
    out = {"verdict": j["verdict"], "parts": _records(j["tree"])}
    flip = j["flip"] if j["verdict"] in (HOLDS, FAILS_TO_HOLD) else None
    if flip:
        out["flip"] = _flip_record(flip)
    if j["verdict"] == NO_EVIDENCE:
        out["why"] = _no_evidence_reason(j)
    return out


# ------------------------------------------------------------------ audit

def disagreements(results, level: float = LEVEL) -> list[str]:
    """Every part whose verdict contradicts the interval printed beside it, or whose interval is not at
    the claim's simultaneous level: empty for a sound claims file (tests run it on every claims.json)."""
    from linbandits.claims.engine import Region

    found = []
    for r in results:
        for source, parts in (("reproduction", r["parts"]), ("published", (r.get("published") or {}).get("parts", []))):
            estimated = [p for p in parts if "low" in p]
            for p in estimated:
                region = Region(_f(p["region"]["low"]), _f(p["region"]["high"]), p["region"]["closed"])
                low, high, verdict = _f(p["low"]), _f(p["high"]), p["verdict"]
                where = f"{r['id']} ({source}): {p['label']}"
                if verdict == HOLDS and not region.holds(low, high):
                    found.append(f"{where}: holds but its interval [{low}, {high}] is not on the claimed side")
                if verdict == FAILS_TO_HOLD and not region.fails(low, high):
                    found.append(f"{where}: does not hold but its interval [{low}, {high}] is not on the other side")
                if verdict == INCONCLUSIVE and (region.holds(low, high) or region.fails(low, high)):
                    found.append(f"{where}: inconclusive but its interval [{low}, {high}] does not straddle")
                want = 1 - (1 - level) / len(estimated)
                if not math.isclose(p["level"], want, rel_tol=1e-9):
                    found.append(f"{where}: interval at {p['level']:.6g}, not the simultaneous {want:.6g}")
    return found


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
    if r.get("stand_in_verdict"):
        return f"{r['verdict']}: {STAND_IN.split(' (', 1)[1].rstrip(')')} (measured there: {r['stand_in_verdict']})"
    return r["verdict"] + (f" {r['scope']}" if r.get("scope") and r["verdict"] in (HOLDS, FAILS_TO_HOLD, INCONCLUSIVE) else "")


def sensitive(r: dict) -> bool:
    """A decided verdict whose flip point lies within 10% of a threshold the reading chose."""
    return bool((r.get("flip") or {}).get("threshold_sensitive"))


def published_phrase(r: dict) -> str:
    pub = r.get("published")
    if not pub:
        return "-"
    if pub["verdict"] == NOT_RUN:
        return "no published data"
    return pub["verdict"] + (f" ({pub['why']})" if pub.get("why") else "")


def decision_phrase(r: dict) -> str:
    """The flip point of a decided claim, the runs that would decide an inconclusive one, or why the
    design cannot decide it."""
    if r.get("flip"):
        return r["flip"]["text"] + (" (**threshold-sensitive**)" if sensitive(r) else "")
    if r.get("runs_to_decide"):
        n = r["runs_to_decide"]
        return ("no run count decides it at the observed effect (it sits on the threshold, or runs are censored)"
                if n == "inf" else f"about {int(n):,} runs would decide it at the observed effect")
    if r.get("no_evidence") and r.get("no_evidence") != STAND_IN:
        return r["no_evidence"]
    return ""


def _interval(p: dict) -> str:
    if "missing" in p:
        return f"not run: {p['missing']}"
    low, high = p["low"], p["high"]
    if p.get("lower_bound"):
        return f"{fmt(_f(p['value']))} (lower bound: runs at the cap) [{fmt(_f(low))}, inf)"
    if low == high and str(p.get("method", "")).startswith("exact ("):
        return f"{fmt(_f(p['value']))} (exact)"
    return f"{fmt(_f(p['value']))} [{fmt(_f(low))}, {fmt(_f(high))}]"


def _p_pair(tests: dict) -> str:
    """The adjusted p of the claimed side (the largest of its tests) and of the other side (the smallest)."""
    held = [t["p_adjusted"] for name, t in tests.items() if name.startswith("holds") and t["p_adjusted"] is not None]
    failed = [t["p_adjusted"] for name, t in tests.items() if name.startswith("fails") and t["p_adjusted"] is not None]
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
    witness = any("published" in r for r in results)
    lines = [f"# {title}", "",
             "Verdicts: **holds** (every interval on the claimed side), **does not hold** (an interval on the other "
             "side: beyond the margin, outside the band), **inconclusive** (an interval straddles the threshold; more "
             "runs could decide it), **no evidence** (the design cannot reach both outcomes, or the data are a "
             "stand-in for the paper's), **not run**. Every part of a claim is an estimate over independent runs; a "
             f"claim's intervals are simultaneous at {100 * level:g}% (Bonferroni over its parts), and the verdict is "
             f"read off the printed interval, so what a claim concludes is wrong with probability at most "
             f"{100 * (1 - level) / 2:g}%. \"Never worse\", \"comparable\" and \"similar\" hold only inside a "
             "stated margin (non-inferiority, TOST). Each decided claim says at which threshold it would flip; "
             f"**threshold-sensitive** marks a flip point within {100 * SENSITIVE:g}% of a threshold the reading "
             "chose. Robustness: the verdict under the protocol choices the paper leaves open that were run.", "",
             *intro]
    if witness:
        lines += ["| claim | figure | the paper says | its published data give | the reproduction gives | flips at "
                  "| robustness |", "|---|---|---|---|---|---|---|"]
    else:
        lines += ["| claim | figure | the paper says | the reproduction gives | flips at | robustness |",
                  "|---|---|---|---|---|---|"]
    for r in results:
        pub = f" {_cell(published_phrase(r))} |" if witness else ""
        lines.append(f"| `{r['id']}` | {_cell(r['figure'])} | \"{_cell(r['quote'])}\" |{pub} "
                     f"**{_cell(verdict_phrase(r))}** | {_cell(decision_phrase(r))} | {_cell(r['robustness']['text'])} |")
    lines += ["", summary_line(results), ""]
    for r in results:
        lines += [f"## `{r['id']}`: {verdict_phrase(r)}", "", f"> {r['quote']}", ""]
        if r.get("cause"):
            lines += [f"Cause: {r['cause']}.", ""]
        if r.get("no_evidence"):
            lines += [f"No evidence: {r['no_evidence']}.", ""]
        if decision_phrase(r) and not r.get("no_evidence"):
            lines += [("Flip: " if r.get("flip") else "To decide: ") + decision_phrase(r) + ".", ""]
        if r.get("note"):
            lines += [f"Note: {r['note']}", ""]
        lines += [f"Test: {r['test']}.", ""]
        lines += _parts_table(r["parts"], "reproduction")
        if r.get("published"):
            pub = r["published"]
            lines += [f"On the paper's published data: **{published_phrase(r)}**"
                      + (f"; {pub['flip']['text']}" if pub.get("flip") else "") + ".", ""]
            if pub.get("parts"):
                lines += _parts_table(pub["parts"], "published data")
        lines += [f"Robustness: {r['robustness']['text']}.", ""]
        for run in r["robustness"].get("runs", []):
            lines.append(f"- {run['choice']} = {run['value']} ({', '.join(run['experiments'])}): {run['verdict']}"
                         + _bracketed(run.get("intervals")) + "; default on the same settings and runs: "
                         + run['default_on_same_settings'] + _bracketed(run.get("default_intervals"))
                         + (f" ({'; '.join(run['fewer_runs'])})" if run.get("fewer_runs") else ""))
        if r["robustness"].get("runs"):
            lines.append("")
    for section in sections:
        lines += [*section, ""]
    return "\n".join(lines).rstrip() + "\n"


def _bracketed(intervals) -> str:
    return f" ({'; '.join(intervals)})" if intervals else ""


def _parts_table(parts: list[dict], source: str) -> list[str]:
    lines = [f"| part ({source}) | claim | estimate [simultaneous interval] | runs | method | "
             "p holds \\| fails (adjusted) | part verdict |", "|---|---|---|---:|---|---|---|"]
    for p in parts:
        verdict = p["verdict"] + (f": {p['no_evidence']}" if p.get("no_evidence") else "")
        lines.append(f"| {_cell(p['label'])} | {_cell(p['claim'])} | {_cell(_interval(p))} | {p.get('n', '')} | "
                     f"{_cell(p.get('method', ''))} | {_p_pair(p.get('tests', {}))} | {_cell(verdict)} |")
    return lines + [""]


def write_claims(results, md_path, json_path, study: str, title: str, intro=(), sections=(), level: float = LEVEL,
                 **extra) -> None:
    write_text_atomic(md_path, render_markdown(results, title, intro, sections, level))
    write_text_atomic(json_path, json.dumps({"study": study, "level": level, **extra, "claims": list(results)},
                                            indent=1) + "\n")


CLAIM_KEYS = {"id", "figure", "quote", "parts", "combine", "pairs", "choices", "scope", "cause", "note", "data"}


def load_claims(path, choices=None) -> list[dict]:
    """A study's claims table: every entry has an id (unique), a quote and parts; the choices it
    names must be in the study's `choices:` table."""
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
