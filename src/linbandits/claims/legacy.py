"""Claims tables: every claim of a paper, quoted, with its test, its numbers and a verdict.

A study keeps its claims in `studies/<study>/claims.yaml` (a list of entries
with at least `id` and `quote`) and judges them with its own checks; this
module holds what every study shares: the verdict words, how verdicts of the
parts of a claim combine, and the Markdown + JSON output read by the report's
overview page.
"""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError

HOLDS, FAILS_TO_HOLD, INCONCLUSIVE = "holds", "does not hold", "inconclusive"
NO_EVIDENCE, NOT_RUN = "no evidence", "not run"
VERDICTS = (HOLDS, FAILS_TO_HOLD, INCONCLUSIVE, NO_EVIDENCE, NOT_RUN)


def combine(verdicts) -> str:
    """A claim made of parts: does not hold if any part does not, holds if all do, else inconclusive.

    No parts at all is no evidence, never "holds".
    """
    verdicts = list(verdicts)
    if not verdicts:
        return NO_EVIDENCE
    if any(v == FAILS_TO_HOLD for v in verdicts):
        return FAILS_TO_HOLD
    if all(v == HOLDS for v in verdicts):
        return HOLDS
    if all(v == NOT_RUN for v in verdicts):
        return NOT_RUN
    if all(v == NO_EVIDENCE for v in verdicts):
        return NO_EVIDENCE
    return INCONCLUSIVE


def load_claims(path) -> list[dict]:
    """A study's claims table; every entry needs an id (unique) and a quote."""
    try:
        claims = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"claims table {path} does not exist") from None
    except yaml.YAMLError as exc:
        raise UserError(f"claims table {path} is not valid YAML: {exc}") from None
    if not isinstance(claims, list):
        raise UserError(f"claims table {path} must be a list of claims")
    seen = set()
    for entry in claims:
        if not isinstance(entry, dict) or "id" not in entry or "quote" not in entry:
            raise UserError(f"claims table {path}: every claim needs an 'id' and a 'quote', got {entry!r}")
        if entry["id"] in seen:
            raise UserError(f"claims table {path}: claim id {entry['id']!r} is used twice")
        seen.add(entry["id"])
    return claims


def result(claim: dict, test: str, numbers, verdict: str, **extra) -> dict:
    """One judged claim, in the form every study writes."""
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}")
    return {"id": claim["id"], "figure": claim.get("figure", ""), "quote": claim["quote"], "test": test,
            "numbers": list(numbers), "verdict": verdict, **extra}


def counts(results) -> dict:
    return {v: sum(r["verdict"] == v for r in results) for v in VERDICTS}


def summary_line(results) -> str:
    c = counts(results)
    parts = [f"{c[HOLDS]} hold", f"{c[FAILS_TO_HOLD]} do not hold", f"{c[INCONCLUSIVE]} inconclusive"]
    parts += [f"{c[v]} {v}" for v in (NO_EVIDENCE, NOT_RUN) if c[v]]
    return "Summary: " + ", ".join(parts) + "."


def render_markdown(results, title: str = "Claims of the paper, checked on the reproduced tables",
                    sections=()) -> str:
    lines = [f"# {title}", "",
             "Verdicts: **holds**, **does not hold**, **inconclusive**. Each row states how the claim is tested.", "",
             "| claim | figure | quote | test | numbers | verdict |", "|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| `{r['id']}` | {r['figure']} | \"{r['quote']}\" | {r['test']} | "
                     f"{'<br>'.join(r['numbers'])} | **{r['verdict']}** |")
    lines += ["", summary_line(results)]
    for section in sections:
        lines += ["", *section]
    return "\n".join(lines) + "\n"


def write_claims(results, md_path, json_path, study: str, title: str | None = None, sections=(),
                 **extra_json) -> None:
    """claims.md (for readers) and claims.json (for the overview page and tests)."""
    kwargs = {"title": title} if title else {}
    write_text_atomic(md_path, render_markdown(results, sections=sections, **kwargs))
    write_text_atomic(json_path, json.dumps({"study": study, **extra_json, "claims": list(results)},
                                            indent=2) + "\n")


def read_claims_json(path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"claims file {path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"claims file {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or "claims" not in data:
        raise UserError(f"claims file {path} lacks the 'claims' list")
    return data
