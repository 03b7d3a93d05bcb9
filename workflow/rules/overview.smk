# The overview page of the report: every study, its figures, its claims' verdicts.

import json as _overview_json
from shlex import quote as _overview_quote


def overview_studies():
    out = []
    for s in STUDIES:
        enabled = s in pipeline.enabled_studies(config)
        out.append({
            "name": s,
            "paper": config["studies"][s].get("paper", catalogue.studies()[s].paper),
            "enabled": enabled,
            "claims": f"{PREFIX}results/{s}/claims.json" if enabled else None,
            "figures": [t for t in STUDY_TARGETS[s] if "/figures/" in f"/{t}" and t.endswith(".pdf")],
        })
    return out


rule overview:
    input:
        [s["claims"] for s in overview_studies() if s["claims"]],
    output:
        report(PREFIX + "results/overview.md", caption="../report/overview.rst", category="Overview"),
    params:
        studies=_overview_quote(_overview_json.dumps(overview_studies())),
        preview="--preview" if config.get("preview") else "",
    log:
        PREFIX + "logs/overview.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "linbandits overview --studies {params.studies} {params.preview} --out {output} > {log} 2>&1"
