"""What the papers got wrong: every place where a paper and its own published data, its authors' code,
its own arithmetic or the reproduction disagree, as one page (results/findings.md).

A study declares its findings in `findings.yaml` beside its claims table, each with what the paper says,
what it disagrees with, the evidence, the claims and products it touches, how sure we are and, where a
claim's judged estimates carry it, what this run must show (`shows`). The claims product checks the
table against the study's claims and products and copies it into claims.json; the overview command
writes the page from every study's claims.json: the declared findings, each with what this run shows
(agrees, or does not show it), then every claim whose primary verdict does not hold and that no finding
already covers. So the page is generated from the claims and the studies' declarations, not written
by hand, and it says on every run whether the runs still show what each finding states.
"""
from __future__ import annotations

import re

from linbandits.claims.engine import FAILS_TO_HOLD, HOLDS
from linbandits.claims.records import from_json, interval_text
from linbandits.errors import UserError
from linbandits.yamlfile import read_yaml

FINDING_KEYS = {"id", "title", "paper", "against", "evidence", "claims", "products", "shows", "certainty", "how_sure",
                "docs"}
REQUIRED = ("id", "title", "paper", "against", "evidence", "certainty", "how_sure")
# what the paper disagrees with
AGAINST = {"data": "its own published data", "code": "its authors' code", "arithmetic": "its own arithmetic",
           "reproduction": "the reproduction"}
# how sure we are: the kinds of evidence, strongest first
CERTAINTY = {
    "exact": "exact: shown without sampling error (a computation, the code line by line, an exact replay)",
    "decided": "decided by intervals at the claim's simultaneous 95% level (wrong with probability at most 2.5%)",
    "indicative": "indicative: the evidence points this way but no interval at the claims' level decides it",
}
SOURCES = ("reproduction", "published")
SHOWS_KEYS = {"claim", "source", "part", "verdict", "above", "below"}


def load_findings(path, claims: list[dict]) -> list[dict]:
    """A study's findings table, checked: known keys, the vocabularies above, claims that exist and `shows`
    that name a claim of the table and one test (a verdict, or an interval above / below a value)."""
    table = read_yaml(path, "findings table")
    if not isinstance(table, list):
        raise UserError(f"findings table {path} must be a list of findings")
    ids = {c["id"] for c in claims}
    seen = set()
    for f in table:
        where = f"findings table {path}, finding {f.get('id', f) if isinstance(f, dict) else f!r}"
        if not isinstance(f, dict):
            raise UserError(f"{where}: each finding is a mapping")
        missing = [k for k in REQUIRED if not f.get(k)]
        if missing:
            raise UserError(f"{where}: needs {', '.join(missing)}")
        unknown = set(f) - FINDING_KEYS
        if unknown:
            raise UserError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(FINDING_KEYS))}")
        if f["id"] in seen:
            raise UserError(f"findings table {path}: finding id {f['id']!r} is used twice")
        seen.add(f["id"])
        against = f["against"] if isinstance(f["against"], list) else [f["against"]]
        if not against or any(a not in AGAINST for a in against):
            raise UserError(f"{where}: `against` is one or more of {', '.join(AGAINST)}; got {f['against']!r}")
        if f["certainty"] not in CERTAINTY:
            raise UserError(f"{where}: `certainty` is one of {', '.join(CERTAINTY)}; got {f['certainty']!r}")
        unknown_claims = [c for c in f.get("claims", []) if c not in ids]
        if unknown_claims:
            raise UserError(f"{where}: claim(s) {', '.join(unknown_claims)} are not in the study's claims table")
        for s in f.get("shows", []):
            _check_shows(s, ids, where)
    return table


def _check_shows(s, ids: set, where: str) -> None:
    if not isinstance(s, dict) or s.get("claim") not in ids:
        raise UserError(f"{where}: each `shows` names a claim of the study's claims table; got {s!r}")
    unknown = set(s) - SHOWS_KEYS
    if unknown:
        raise UserError(f"{where}: unknown `shows` key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(SHOWS_KEYS))}")
    if s.get("source", "reproduction") not in SOURCES:
        raise UserError(f"{where}: `shows` source is one of {', '.join(SOURCES)}; got {s['source']!r}")
    tests = [k for k in ("verdict", "above", "below") if k in s]
    if len(tests) != 1 or (tests != ["verdict"] and "part" not in s):
        raise UserError(f"{where}: each `shows` tests one thing: a `verdict` (of the claim, or of a `part`), or a "
                        f"`part`'s interval `above` or `below` a value; got {s!r}")
    if "part" in s:
        try:
            re.compile(s["part"])
        except re.error as exc:
            raise UserError(f"{where}: `shows` part {s['part']!r} is not a regular expression ({exc})") from None


def attach_products(findings: list[dict], products: dict, where: str, strict: bool = False) -> list[dict]:
    """Each finding's products by name -> their files (the report's first). A product this run's config does not
    build (e.g. a switch figure with `robustness: false`) has no file; with `strict` (the study's default
    config, tests/test_findings.py) an unknown name is one error."""
    out = []
    for f in findings:
        unknown = [p for p in f.get("products", []) if p not in products]
        if unknown and strict:
            raise UserError(f"{where}, finding {f['id']}: product(s) {', '.join(unknown)} are not products of the "
                            f"study ({', '.join(sorted(products))})")
        out.append({**f, "products": [{"name": p, "file": products[p][0] if p in products else None}
                                      for p in f.get("products", [])]})
    return out


# ------------------------------------------------------------------ what this run shows

def shown(s: dict, claims: dict) -> tuple[str, bool | None]:
    """What this run shows for one `shows` test: the evidence in words, and whether it agrees with the finding
    (None when the run cannot tell: the claim or part was not run, or was not judged)."""
    claim = claims.get(s["claim"])
    source = s.get("source", "reproduction")
    if claim is None:
        return f"`{s['claim']}` is not in this run's claims", None
    judged = claim if source == "reproduction" else (claim.get("published") or {})
    on = f"`{s['claim']}`" + (" on the paper's published data" if source == "published" else "")
    if not judged or judged.get("verdict") is None:
        return f"{on}: not judged", None
    if "part" not in s:
        return f"{on}: {judged['verdict']}", _agrees(judged["verdict"], s["verdict"])
    pattern = re.compile(s["part"])
    parts = [p for p in judged.get("parts", []) if pattern.search(p["label"])]
    if not parts:
        return f"{on}: no part matches {s['part']!r} in this run", None
    p = parts[0]
    text = f"{on}, {p['label'].split(': ', 1)[-1]}: {interval_text(p)}, part {p['verdict']}"
    if "low" not in p:
        return text, None
    if "verdict" in s:
        return text, _agrees(p["verdict"], s["verdict"])
    low, high = from_json(p["low"]), from_json(p["high"])
    if "above" in s:
        return text, True if low > s["above"] else (False if high < s["above"] else None)
    return text, True if high < s["below"] else (False if low > s["below"] else None)


def _agrees(verdict: str, expected: str):
    """A verdict agrees with the one expected, contradicts it when decided the other way, and otherwise (not
    decided, not judged) does not decide it (None)."""
    if verdict == expected:
        return True
    return False if verdict in (HOLDS, FAILS_TO_HOLD) else None


def covered(studies: list[dict]) -> set:
    """(study, claim) pairs a declared finding touches."""
    return {(s["name"], c) for s in studies for f in s.get("findings", []) for c in f.get("claims", [])}


def render_findings(studies: list[dict], preview: bool = False) -> str:
    """results/findings.md from every enabled study's claims.json (its findings and its claims)."""
    declared = [(s, f) for s in studies if s["enabled"] for f in s.get("findings", [])]
    touched = covered(studies)
    failing = [(s, r) for s in studies if s["enabled"] for r in s["claims"]
               if r["verdict"] == FAILS_TO_HOLD and (s["name"], r["id"]) not in touched]
    lines = ["# Findings: where the papers disagree with their own data, their code, their arithmetic or the "
             "reproduction", "",
             f"{len(declared) + len(failing)} findings: {len(declared)} declared by the studies (`findings.yaml` beside "
             "each study's claims table), each with its evidence, the claims and products it touches and how sure we "
             f"are, and checked against this run's estimates; then {len(failing)} claim(s) whose primary verdict does "
             "not hold and that no declared finding covers, each with its cause. Generated from the studies' claims "
             "files by `linbandits overview`; the overview (`overview.md`) gives every verdict.", "",
             "How sure: " + "; ".join(f"**{k}** ({v.split(': ', 1)[-1]})" for k, v in CERTAINTY.items()) + ".", ""]
    if preview:
        lines += ["**PREVIEW**: reduced runs; what a run shows below is indicative only, whatever a finding's "
                  "certainty.", ""]
    lines += ["| # | study | finding | the paper against | how sure | this run |", "|---:|---|---|---|---|---|"]
    body, number = [], 0
    for s, f in declared:
        number += 1
        claims = {r["id"]: r for r in s["claims"]}
        checks = [(text, ok) for text, ok in (shown(x, claims) for x in f.get("shows", []))]
        lines.append(f"| {number} | `{s['name']}` | {_cell(f['title'])} | {_cell(_against(f))} | {f['certainty']} | "
                     f"{_cell(_run_word(checks))} |")
        body += _finding_section(number, s, f, claims, checks)
    for s, r in failing:
        number += 1
        lines.append(f"| {number} | `{s['name']}` | `{r['id']}` does not hold: \"{_cell(r.get('quote', ''))}\" | "
                     f"the reproduction | {'indicative' if preview else 'decided'} | does not hold |")
        body += _failing_section(number, s, r, preview)
    return "\n".join(lines + [""] + body).rstrip() + "\n"


def _against(f: dict) -> str:
    against = f["against"] if isinstance(f["against"], list) else [f["against"]]
    return ", ".join(AGAINST[a] for a in against)


def _run_word(checks) -> str:
    if not checks:
        return "nothing to check in a run (not an estimate)"
    oks = [ok for _, ok in checks]
    if all(ok is True for ok in oks):
        return "shows it"
    if any(ok is False for ok in oks):
        return "**contradicts it**"
    return "does not decide it"


def _finding_section(number: int, s: dict, f: dict, claims: dict, checks) -> list[str]:
    lines = [f"## {number}. {f['title']} (`{s['name']}`: {f['id']})", "",
             f"The paper: {f['paper']}", "", f"Against {_against(f)}: {f['evidence']}", "",
             f"How sure: {CERTAINTY[f['certainty']]}. {f['how_sure']}", ""]
    if checks:
        lines += ["This run:", ""] + [f"- {text}: " + {True: "agrees", False: "**contradicts the finding**",
                                                        None: "does not decide it"}[ok] for text, ok in checks] + [""]
    touches = [f"`{c}` ({_verdict(claims.get(c))})" for c in f.get("claims", [])]
    touches += [f"`{p['file']}`" if p["file"] else f"{p['name']} (not built by this run)" for p in f.get("products", [])]
    if touches:
        lines += ["Touches: " + ", ".join(touches) + ".", ""]
    if f.get("docs"):
        lines += [f"More: `{f['docs']}`.", ""]
    return lines


def _verdict(r) -> str:
    if r is None:
        return "not in this run"
    text = f"primary verdict: {r['verdict']}"
    if r.get("post_hoc"):
        text += f"; post hoc: {r['post_hoc']['verdict']}"
    return text


def _failing_section(number: int, s: dict, r: dict, preview: bool) -> list[str]:
    deciding = (r.get("flip") or {}).get("text", "")
    return [f"## {number}. `{r['id']}` does not hold (`{s['name']}`, {r.get('figure', '')})", "",
            f"The paper: \"{r.get('quote', '')}\"", "",
            f"Against the reproduction: its primary reading does not hold{' ' + r['scope'] if r.get('scope') else ''}"
            + (f"; the deciding part {deciding}" if deciding else "") + ".", "",
            f"Cause: {r.get('cause') or 'not stated'}.", "",
            "How sure: " + ("indicative (a preview)." if preview else CERTAINTY["decided"] + "."), ""]


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
