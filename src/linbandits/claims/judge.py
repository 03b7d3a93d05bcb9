"""A study's claims judged: each on the default runs, under every switch run of its choices
(linbandits.claims.robustness), and on the paper's own published data where the study has them.
A "does not hold" states its cause: the paper (a `cause` the claims table gives), a protocol choice
(the switch that flips it), or the reproduced runs themselves; the scope (`scope`, e.g. "at n = 10000")
is said beside the verdict.
"""
from __future__ import annotations

from linbandits.claims.engine import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, NO_EVIDENCE, NOT_RUN,
                                      experiments_of, judge, leaves_of)
from linbandits.claims.records import flip_record, to_json, part_records
from linbandits.claims.robustness import measured, robustness, robustness_text, switches_for


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
            "parts": part_records(j["tree"]),
            "robustness": {**rob, "text": robustness_text(rob, measured(j), default_labels or {})},
            "cause": cause_text(claim, j["verdict"], rob, scope, flip),
            "note": claim.get("note", ""),
            "experiments": experiments_of(claim),
            "flip": flip_record(flip),
            "runs_to_decide": to_json(j["needed_runs"]) if j["verdict"] == INCONCLUSIVE and j["needed_runs"] else None,
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
    out = {"verdict": j["verdict"], "parts": part_records(j["tree"])}
    flip = j["flip"] if j["verdict"] in (HOLDS, FAILS_TO_HOLD) else None
    if flip:
        out["flip"] = flip_record(flip)
    if j["verdict"] == NO_EVIDENCE:
        out["why"] = _no_evidence_reason(j)
    return out
