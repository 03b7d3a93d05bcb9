"""The overview page: every study of the run, its paper, its figures and every claim's verdict,
with the verdict's robustness to the protocol choices the paper leaves open and, where a claim
does not hold, what the evidence points to; and, linked first from it, the findings page: where
the papers disagree with their own data, their code, their arithmetic or the reproduction.

    linbandits overview --study results/<study>/config.yaml ... [--disabled STUDY ...] \
        --out results/overview.md [--findings results/findings.md]

Each enabled study is named by its config snapshot (written by the workflow); its claims and findings
are read from results/<study>/claims.json beside it. A study whose section says `enabled: false` is
named by --disabled and listed as not built. The counts are of the primary verdicts (the paper's
words as first read); a post-hoc reading is shown beside its claim, never counted.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from linbandits import catalogue, products
from linbandits.atomic import write_text_atomic
from linbandits.claims.engine import FAILS_TO_HOLD, NOT_RUN, VERDICTS
from linbandits.claims.findings import render_findings
from linbandits.claims.render import counts, decision_phrase, depends_on_a_choice, post_hoc_phrase, published_phrase, \
    verdict_phrase
from linbandits.errors import UserError


def read_json(path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path} does not exist; rerun the study's claims rule") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path} is not valid JSON ({exc}); delete it and rerun") from None


def study_entry(snapshot) -> dict:
    """What the overview says of one study, from its config snapshot and its claims file."""
    config = products.load_config(snapshot)
    (name, section), = config["studies"].items()
    paper = section.get("paper") or catalogue.studies()[name].paper
    entry = {"name": name, "paper": paper, "enabled": True,
             "figures": [], "claims": [], "claims_file": str(Path(snapshot).with_name("claims.md"))}
    entry["figures"] = [p.outputs[0] for p in products.study_products(config, name)
                        if p.kind == "figure" and not p.target]
    claims = read_json(Path(snapshot).with_name("claims.json"))
    entry["claims"], entry["findings"] = claims["claims"], claims.get("findings", [])
    return entry


def not_run_reason(record: dict) -> str:
    """Why a claim was not run: what each of its parts lacks (an experiment not in this run, an opt-in
    target), each said once."""
    reasons: list[str] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            if node.get("missing") and node["missing"] not in reasons:
                reasons.append(node["missing"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(record.get("parts"))
    return "not run: " + ("; ".join(reasons) if reasons else "no part of it was run")


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_overview(studies: list[dict], preview: bool = False, findings: str = "findings.md") -> str:
    declared = sum(len(s.get("findings", [])) for s in studies if s["enabled"])
    lines = ["# Overview: the replicated papers", "",
             f"**What the papers got wrong: [{findings}]({findings})** ({declared} findings the studies declare, each "
             "with its evidence and how sure we are, and every claim that does not hold): where a paper disagrees "
             "with its own published data, its authors' code, its own arithmetic or the reproduction.", "",
             "Every claim of each paper is judged on the reproduced runs: each part an estimate whose interval "
             "(simultaneous at 95% over the claim's parts) lies on the claimed side (**holds**), on the other side "
             "(**does not hold**), or straddles the threshold (**inconclusive**); a design that cannot reach both "
             "outcomes, or data that stand in for the paper's, give **no evidence**. \"Never worse\", "
             "\"comparable\" and \"similar\" hold only inside a stated margin. Each decided verdict says at "
             "which threshold it would flip; **threshold-sensitive** marks a flip point within 10% of a threshold "
             "the reading chose. Robustness: the verdict again under each protocol choice the paper leaves open "
             "that was run (the choices not run are named). Where the paper's own published data exist, each "
             "claim is judged on them too. Each study's claims file states every estimate. The counts and the "
             "verdict column are each claim's primary reading, the natural reading of the paper's words fixed "
             "before any data were seen; a reading revised after seeing data is shown beside it, marked post hoc "
             "with what prompted it, and never counted.", ""]
    if preview:
        lines += ["**PREVIEW**: reduced runs (and settings, where the config says), not the published protocol; "
                  "verdicts are indicative only.", ""]
    lines += ["| study | paper | figures | claims | " + " | ".join(VERDICTS) + " | depend on a choice | "
              "post-hoc readings (not counted) |", "|---|---|---:|---:|" + "---:|" * (len(VERDICTS) + 2)]
    details = []
    for s in studies:
        if not s["enabled"]:
            lines.append(f"| `{s['name']}` | {_cell(s['paper'])} | - | - | " + " | ".join("-" for _ in VERDICTS)
                         + " | - | - |")
            details += [f"## {s['name']}", "", f"Not built by the default target (`enabled: false`); "
                        f"`snakemake --cores 2 {s['name']}` builds it.", ""]
            continue
        c = counts(s["claims"])
        depends = sum(depends_on_a_choice(r) for r in s["claims"])
        post_hoc = sum(bool(r.get("post_hoc")) for r in s["claims"])
        lines.append(f"| `{s['name']}` | {_cell(s['paper'])} | {len(s['figures'])} | {len(s['claims'])} | "
                     + " | ".join(str(c[v]) for v in VERDICTS) + f" | {depends} | {post_hoc} |")
        witness = any("published" in r for r in s["claims"])
        second = any(r.get("post_hoc") for r in s["claims"])
        details += [f"## {s['name']}", "", s["paper"], "", "Figures: " + (", ".join(f"`{f}`" for f in s["figures"])
                                                                          or "none"), "",
                    "| claim | verdict | " + ("on the published data | " if witness else "")
                    + ("post-hoc reading (not counted) | " if second else "")
                    + "flips at / to decide (why not run) | robustness | what a 'does not hold' points to |",
                    "|---|---|" + ("---|" if witness else "") + ("---|" if second else "") + "---|---|---|"]
        for r in s["claims"]:
            cause = r.get("cause", "") if r["verdict"] == FAILS_TO_HOLD else ""
            pub = f" {_cell(published_phrase(r))} |" if witness else ""
            post = f" {_cell(post_hoc_phrase(r) or '-')} |" if second else ""
            details.append(f"| `{r['id']}` ({_cell(r.get('figure', ''))}) | **{_cell(verdict_phrase(r))}** |{pub}{post} "
                           f"{_cell(not_run_reason(r) if r['verdict'] == NOT_RUN else decision_phrase(r))} | "
                           f"{_cell(r.get('robustness', {}).get('text', ''))} | "
                           f"{_cell(cause)} |")
        details += ["", f"Each claim's quote, estimates, intervals and tests: `{s['claims_file']}`.", ""]
    return "\n".join(lines + [""] + details).rstrip() + "\n"


def totals(studies: list[dict]) -> dict:
    """Verdict counts over every enabled study (what the run's last lines print)."""
    return counts([r for s in studies if s["enabled"] for r in s["claims"]])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="linbandits overview", description="Write the overview page.")
    parser.add_argument("--study", action="append", dest="entries", type=lambda v: ("study", v), metavar="CONFIG",
                        help="an enabled study's config snapshot (results/<study>/config.yaml)")
    parser.add_argument("--disabled", action="append", dest="entries", type=lambda v: ("disabled", v),
                        metavar="STUDY", help="a study of the config that the default target does not build")
    parser.add_argument("--preview", action="store_true", help="say that the run counts are reduced")
    parser.add_argument("--out", required=True)
    parser.add_argument("--findings", help="the findings page, linked first from the overview (default: "
                                           "findings.md beside --out)")
    args = parser.parse_args(argv)
    if not args.entries:
        parser.error("name at least one study (--study CONFIG or --disabled STUDY), in config order")
    studies = [study_entry(value) if kind == "study" else disabled_entry(value) for kind, value in args.entries]
    findings = args.findings or str(Path(args.out).with_name("findings.md"))
    link = os.path.relpath(os.path.abspath(findings), os.path.dirname(os.path.abspath(args.out)))
    write_text_atomic(findings, render_findings(studies, args.preview))
    write_text_atomic(args.out, render_overview(studies, args.preview, Path(link).as_posix()))
    return 0


def disabled_entry(name: str) -> dict:
    if name not in catalogue.studies():
        raise UserError(f"--disabled {name}: no such study; the studies are: {', '.join(catalogue.studies())}")
    return {"name": name, "paper": catalogue.studies()[name].paper, "enabled": False, "figures": [], "claims": [],
            "findings": []}
