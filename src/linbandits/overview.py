"""The overview page: every study of the config, its paper, its figures and its claims' verdicts."""
from __future__ import annotations

from linbandits.atomic import write_text_atomic
from linbandits.claims import VERDICTS, counts, read_claims_json


def render_overview(studies: list[dict], preview: bool = False) -> str:
    """studies: [{name, paper, enabled, claims (path or None), figures: [paths]}] in config order."""
    lines = ["# Overview: the replicated papers", ""]
    if preview:
        lines += ["**PREVIEW**: reduced runs (and settings, where the config says), not the published protocol; verdicts are indicative only.", ""]
    lines += ["| study | paper | figures | claims | " + " | ".join(VERDICTS) + " |",
              "|---|---|---:|---:|" + "---:|" * len(VERDICTS)]
    details = []
    for s in studies:
        if not s["enabled"]:
            lines.append(f"| `{s['name']}` | {s['paper']} | - | - | " + " | ".join("-" for _ in VERDICTS)
                         + " |")
            details += [f"## {s['name']}", "", f"Not built by the default target (`enabled: false`); "
                        f"`snakemake --cores 2 {s['name']}` builds it.", ""]
            continue
        claims = read_claims_json(s["claims"])["claims"] if s.get("claims") else []
        c = counts(claims)
        lines.append(f"| `{s['name']}` | {s['paper']} | {len(s['figures'])} | {len(claims)} | "
                     + " | ".join(str(c[v]) for v in VERDICTS) + " |")
        details += [f"## {s['name']}", "", s["paper"], "", "Figures:", ""]
        details += [f"- `{f}`" for f in s["figures"]] or ["- (none)"]
        details += ["", "Claims:", ""]
        details += [f"- `{r['id']}` ({r.get('figure', '')}): **{r['verdict']}**" for r in claims] or ["- (none)"]
        if s.get("claims"):
            details += ["", f"Each claim's quote, test and numbers: `{s['claims'][:-5]}.md`."]
        details.append("")
    return "\n".join(lines + [""] + details).rstrip() + "\n"


def write_overview(studies: list[dict], out, preview: bool = False) -> None:
    write_text_atomic(out, render_overview(studies, preview))


def main(argv=None) -> int:
    import argparse

    from linbandits.errors import json_argument

    parser = argparse.ArgumentParser(prog="linbandits overview", description="Write the overview page.")
    parser.add_argument("--studies", required=True,
                        help="JSON list of {name, paper, enabled, claims, figures}, in config order")
    parser.add_argument("--preview", action="store_true", help="say that the run counts are reduced")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    write_overview(json_argument(args.studies, "--studies"), args.out, args.preview)
    return 0
