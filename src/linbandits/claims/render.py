"""A study's judged claims as Markdown (the report) and JSON (what the overview and the tests read)."""
from __future__ import annotations

import json

from linbandits.atomic import write_text_atomic
from linbandits.claims.engine import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, NO_EVIDENCE, NOT_RUN, SENSITIVE,
                                      STAND_IN, VERDICTS, fmt)
from linbandits.claims.records import interval_text
from linbandits.claims.robustness import DEPENDS


def counts(results) -> dict:
    return {v: sum(r["verdict"] == v for r in results) for v in VERDICTS}


def depends_on_a_choice(r: dict) -> bool:
    """A claim judged about the paper whose primary verdict changes under a switch run (a claim read on a
    stand-in, or not judged, depends on nothing the paper says)."""
    return r.get("robustness", {}).get("status") == DEPENDS and r["verdict"] not in (NO_EVIDENCE, NOT_RUN)


def summary_line(results) -> str:
    """The counts of the primary verdicts; the post-hoc readings beside them are named, never counted."""
    c = counts(results)
    parts = [f"{c[HOLDS]} hold", f"{c[FAILS_TO_HOLD]} do not hold", f"{c[INCONCLUSIVE]} inconclusive"]
    parts += [f"{c[v]} {v}" for v in (NO_EVIDENCE, NOT_RUN) if c[v]]
    depends = sum(depends_on_a_choice(r) for r in results)
    post_hoc = sum(bool(r.get("post_hoc")) for r in results)
    return ("Summary (the paper's words as first read): " + ", ".join(parts)
            + (f"; {depends} depend on a protocol choice" if depends else "")
            + (f"; {post_hoc} post-hoc reading(s) shown beside their claims' verdicts, not counted" if post_hoc else "")
            + ".")


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
    if pub.get("circular"):
        return pub["why"]
    if pub["verdict"] == NOT_RUN:
        return "no published data"
    return pub["verdict"] + (f" ({pub['why']})" if pub.get("why") else "")


def post_hoc_phrase(r: dict) -> str:
    """The post-hoc reading's verdict, marked as such, for a table cell beside the primary verdict."""
    post = r.get("post_hoc")
    if not post:
        return ""
    return f"post hoc (chosen after seeing {seen_phrase(post['seen'])}): {verdict_phrase(post)}"


def seen_phrase(seen) -> str:
    names = {"published": "the paper's published data", "reproduction": "the reproduction's runs"}
    return " and ".join(names[s] for s in seen)


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


def _p_pair(tests: dict) -> str:
    """The adjusted p of the claimed side (the largest of its tests) and of the other side (the smallest)."""
    held = [t["p_adjusted"] for name, t in tests.items() if name.startswith("holds") and t["p_adjusted"] is not None]
    failed = [t["p_adjusted"] for name, t in tests.items() if name.startswith("fails") and t["p_adjusted"] is not None]
    if not held and not failed:
        return ""
    return f"{fmt(max(held)) if held else '-'} \\| {fmt(min(failed)) if failed else '-'}"


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
             "chose. Robustness: the verdict under the protocol choices the paper leaves open that were run. Each "
             "claim is judged first on its primary reading, the natural reading of the paper's words fixed before any "
             "data were seen; a reading revised after seeing data is shown second, marked **post hoc** with what "
             "prompted it, and is never counted.", "",
             *intro]
    if witness:
        lines += ["| claim | figure | the paper says | its published data give | the reproduction gives | flips at "
                  "| robustness |", "|---|---|---|---|---|---|---|"]
    else:
        lines += ["| claim | figure | the paper says | the reproduction gives | flips at | robustness |",
                  "|---|---|---|---|---|---|"]
    for r in results:
        pub = f" {_cell(published_phrase(r))} |" if witness else ""
        second = f"; {post_hoc_phrase(r)}" if r.get("post_hoc") else ""
        lines.append(f"| `{r['id']}` | {_cell(r['figure'])} | \"{_cell(r['quote'])}\" |{pub} "
                     f"**{_cell(verdict_phrase(r))}**{_cell(second)} | {_cell(decision_phrase(r))} | "
                     f"{_cell(r['robustness']['text'])} |")
    lines += ["", summary_line(results), ""]
    for r in results:
        lines += [f"## `{r['id']}`: {verdict_phrase(r)}", "", f"> {r['quote']}", ""]
        lines += _reading_lines(r, "reproduction")
        if r.get("shared"):
            lines += [_shared_line(r), ""]
        post = r.get("post_hoc")
        if post:
            lines += [f"### Post-hoc reading: {verdict_phrase(post)} (not counted)", "",
                      f"Chosen after seeing {seen_phrase(post['seen'])}, so it is not the paper's words as first read: "
                      "its verdict is shown second and is never counted.", "",
                      f"Prompted by: {post['prompted_by']}", "", f"Why it is still worth reading: {post['reason']}", ""]
            lines += _reading_lines(post, "reproduction, post-hoc reading")
    for section in sections:
        lines += [*section, ""]
    return "\n".join(lines).rstrip() + "\n"


def _reading_lines(r: dict, source: str) -> list[str]:
    """One reading of a claim: its cause, evidence, flip point, note, test, parts, its verdict on the published
    data and its robustness."""
    lines = []
    if r.get("cause"):
        lines += [f"Cause: {r['cause']}.", ""]
    if r.get("no_evidence"):
        lines += [f"No evidence: {r['no_evidence']}.", ""]
    if decision_phrase(r) and not r.get("no_evidence"):
        lines += [("Flip: " if r.get("flip") else "To decide: ") + decision_phrase(r) + ".", ""]
    if r.get("note"):
        lines += [f"Note: {r['note']}", ""]
    lines += [f"Test: {r['test']}.", ""]
    lines += _parts_table(r["parts"], source)
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
    return lines


def _shared_line(r: dict) -> str:
    """Where else this claim's estimates are judged: each claim is its own family of simultaneous intervals."""
    items = [f"`{s['claim']}` ({s['parts']} part(s), each interval at {100 * s['level']:.4g}%) judges "
             f"{s['part'].split(' (')[0]}: {s['interval']}, {s['verdict']} there" for s in r["shared"]]
    return ("Family: this claim's intervals are simultaneous over its own parts only. The same estimate is part of "
            "other claims, each its own family, so its interval and verdict there may differ: " + "; ".join(items) + ".")


def _bracketed(intervals) -> str:
    return f" ({'; '.join(intervals)})" if intervals else ""


def _parts_table(parts: list[dict], source: str) -> list[str]:
    lines = [f"| part ({source}) | claim | estimate [simultaneous interval] | runs | method | "
             "p holds \\| fails (adjusted) | part verdict |", "|---|---|---|---:|---|---|---|"]
    for p in parts:
        verdict = p["verdict"] + (f": {p['no_evidence']}" if p.get("no_evidence") else "")
        lines.append(f"| {_cell(p['label'])} | {_cell(p['claim'])} | {_cell(interval_text(p))} | {p.get('n', '')} | "
                     f"{_cell(p.get('method', ''))} | {_p_pair(p.get('tests', {}))} | {_cell(verdict)} |")
    return lines + [""]


def write_claims(results, md_path, json_path, study: str, title: str, intro=(), sections=(), level: float = LEVEL,
                 **extra) -> None:
    write_text_atomic(md_path, render_markdown(results, title, intro, sections, level))
    write_text_atomic(json_path, json.dumps({"study": study, "level": level, **extra, "claims": list(results)},
                                            indent=1) + "\n")
