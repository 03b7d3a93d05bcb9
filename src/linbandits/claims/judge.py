"""A study's claims judged: each on the default runs, under every switch run of its choices
(linbandits.claims.robustness), and on the paper's own published data where the study has them.

A claim's primary reading (its `parts`) is judged first and is the verdict every count reads. A reading
revised after data were seen (`post_hoc`, linbandits.claims.load) is judged the same way and recorded
beside it, marked post hoc with what was seen, what prompted it and why; it is never judged on the data
that prompted it when those are the paper's published data (that verdict would only repeat the fit).
A "does not hold" states its cause: the paper (a `cause` the claims table gives), a protocol choice
(the switch that flips it), or the reproduced runs themselves, naming the choices that were not run and
the open matters no run examined; the scope (`scope`, e.g. "at n = 10000") is said beside the verdict.
An estimate that is a part of several claims is judged in each claim's own family (its simultaneous
level); each claim names the others and what they give.
"""
from __future__ import annotations

import json

from linbandits.claims.engine import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, NO_EVIDENCE, NOT_RUN, RELATIONS,
                                      experiments_of, judge, leaves_of)
from linbandits.claims.records import flip_record, interval_text, part_records, to_json
from linbandits.claims.robustness import measured, robustness, robustness_text, switches_for

# what a post-hoc reading prompted by the published data reads there instead of a verdict
CIRCULAR = ("not judged on the published data: this reading was chosen after seeing them, so a verdict there "
            "would only repeat the fit")
OPT_IN_TARGET = "`snakemake --cores 2 robustness`"


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
    under which it does not fail, a horizon among them); failing those, the reproduction's runs themselves,
    saying which open choices were run and which were not (opt-in switch runs not made, choices without an
    informative switch run, the claim's `unexamined` matters): "no protocol choice explains it" only when
    every open choice was run."""
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
        causes.append(_unexplained(claim, rob) + (f" (the deciding part {flip['text']})" if flip else ""))
    return "; ".join(causes)


def _unexplained(claim: dict, rob: dict) -> str:
    """A failure no known error of the paper and no switch run explains, with what was not examined."""
    opt_in, untested = list(rob.get("opt_in", [])), list(rob.get("untested", []))
    run = [c for c in rob.get("choices", []) if c not in opt_in + untested]
    not_examined = ([f"{', '.join(opt_in)} (switch runs made only by the opt-in target {OPT_IN_TARGET})"]
                    if opt_in else [])
    not_examined += [f"{', '.join(untested)} (no informative switch run)"] if untested else []
    not_examined += list(claim.get("unexamined", []))
    text = "the reproduced runs: no error of the paper is known"
    if not not_examined:
        if run:
            return text + f", and no protocol choice explains it: every open choice was run ({', '.join(run)})"
        return text + ", and the paper leaves no protocol choice open for it"
    text += (f"; no protocol choice that was run explains it ({', '.join(run)})" if run
             else "; no protocol choice was run on it")
    return text + "; not examined: " + "; ".join(not_examined)


def _verb(verdict: str) -> str:
    return {HOLDS: "holds", FAILS_TO_HOLD: "does not hold", INCONCLUSIVE: "is inconclusive"}.get(verdict, f"is {verdict}")


def judge_claims(claims: list[dict], evidence, quantities: dict, switches=(), level: float = LEVEL,
                 default_labels: dict | None = None, opt_in=(), witness=None) -> list[dict]:
    """Every claim judged; `switches` are the switch runs judged here, `opt_in` those an opt-in target
    runs (the `robustness` target): a choice judged only there is named as such. `witness`: the paper's
    own published data as evidence (where a study has them), each claim judged on them too."""
    out, trees = [], {}
    for claim in claims:
        record, j = _reading(claim, evidence, quantities, switches, level, default_labels, opt_in, witness)
        record = {"id": claim["id"], "figure": claim.get("figure", ""), "quote": claim["quote"], **record,
                  "note": claim.get("note", ""), "experiments": experiments_of(claim)}
        trees[claim["id"]] = j
        if claim.get("post_hoc"):
            record["post_hoc"] = _post_hoc(claim, evidence, quantities, switches, level, default_labels, opt_in,
                                           witness)
        out.append(record)
    _name_shared_estimates(out, trees, level)
    return out


def _reading(claim, evidence, quantities, switches, level, default_labels, opt_in, witness) -> tuple[dict, dict]:
    """One reading of a claim judged: its verdict, parts, robustness, cause, flip point and, with a witness,
    its verdict on the paper's published data."""
    j = judge(claim, evidence, quantities, level)
    scope = _scope(claim, evidence)
    rob = robustness(claim, evidence, quantities, list(switches), measured(j), level)
    later = switches_for(claim, list(opt_in))
    rob["opt_in"] = [c for c in rob.get("untested", []) if c in later]
    rob["untested"] = [c for c in rob.get("untested", []) if c not in later]
    flip = j["flip"] if j["verdict"] in (HOLDS, FAILS_TO_HOLD) else None
    record = {
        "verdict": j["verdict"], "scope": scope,
        "test": (f"{j['parts']} part(s); simultaneous {100 * level:g}% intervals (Bonferroni: each part's interval "
                 f"at {100 * (1 - 2 * j['alpha'] / max(j['parts'], 1)):.4g}%), one-sided p-values Bonferroni-"
                 f"adjusted; parts combined by '{claim.get('combine', 'all')}'"
                 + ("; per pair of series" if claim.get("pairs") else "")),
        "parts": part_records(j["tree"]),
        "robustness": {**rob, "text": robustness_text(rob, measured(j), default_labels or {})},
        "cause": cause_text(claim, j["verdict"], rob, scope, flip),
        "flip": flip_record(flip),
        "runs_to_decide": to_json(j["needed_runs"]) if j["verdict"] == INCONCLUSIVE and j["needed_runs"] else None,
        "no_evidence": _no_evidence_reason(j),
    }
    if "stand_in_verdict" in j:
        record["stand_in_verdict"] = j["stand_in_verdict"]
    if witness is not None:
        record["published"] = _witness(claim, witness, quantities, level)
    return record, j


def _post_hoc(claim, evidence, quantities, switches, level, default_labels, opt_in, witness) -> dict:
    """The revised reading, judged like the primary one; on the paper's published data only when they were
    not what it was chosen after seeing."""
    post = claim["post_hoc"]
    # the claim with the revised parts (and its own combine and pairs where it gives them)
    revised = {k: v for k, v in claim.items() if k not in ("post_hoc", "note")}
    revised.update({k: post[k] for k in ("parts", "combine", "pairs") if k in post})
    fitted = "published" in post["seen"]
    record, _ = _reading(revised, evidence, quantities, switches, level, default_labels, opt_in,
                         None if fitted else witness)
    if fitted and witness is not None:
        record["published"] = {"verdict": NOT_RUN, "why": CIRCULAR, "circular": True}
    return {"seen": list(post["seen"]), "prompted_by": post["prompted_by"], "reason": post["reason"],
            "note": post.get("note", ""), **record}


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


# ------------------------------------------------------------------ one estimate in several claims' families

def estimate_key(spec: dict) -> str:
    """What a part estimates, without what it claims of it (relation, margin, band) or its label."""
    drop = set(RELATIONS) | {"margin", "band", "label"}
    return json.dumps({k: v for k, v in spec.items() if k not in drop}, sort_keys=True, default=str)


def _name_shared_estimates(records: list[dict], judged: dict, level: float) -> None:
    """Each claim whose primary reading shares an estimate with another claim's says where else it is judged,
    at which level and with what interval and part verdict: each claim is its own family of simultaneous
    intervals, so one comparison can hold in a claim of one part and be inconclusive in a claim of several."""
    where: dict = {}
    for cid, j in judged.items():
        estimated = [leaf for leaf in leaves_of(j["tree"]) if leaf.estimate is not None]
        for leaf in estimated:
            where.setdefault(estimate_key(leaf.spec), []).append((cid, leaf, len(estimated)))
    for record in records:
        shared = []
        for found in where.values():
            mine = [f for f in found if f[0] == record["id"]]
            others = [f for f in found if f[0] != record["id"]]
            if not mine or not others:
                continue
            for cid, leaf, m in others:
                e = leaf.estimate
                shared.append({"part": mine[0][1].label, "claim": cid, "parts": m, "level": 1 - 2 * e.alpha,
                               "interval": interval_text({"value": to_json(e.value), "low": to_json(e.low),
                                                          "high": to_json(e.high), "method": e.method,
                                                          "lower_bound": e.lower_bound}),
                               "verdict": leaf.verdict})
        if shared:
            record["shared"] = shared
