# The overview page of the report: every study, its figures, its claims' verdicts and their
# robustness. It reads each study's config snapshot and claims file.


rule overview:
    input:
        snapshots=[study_snapshot(s) for s in ENABLED_STUDIES],
        claims=[f"{PREFIX}results/{s}/claims.json" for s in ENABLED_STUDIES],
    output:
        report(PREFIX + "results/overview.md", caption="../report/overview.rst", category="Overview"),
    params:
        # every study in config order: an enabled one by its snapshot, a disabled one by name
        studies=" ".join(f"--study {study_snapshot(s)}" if s in ENABLED_STUDIES else f"--disabled {s}" for s in STUDIES),
        preview="--preview" if config.get("preview") else "",
    log:
        PREFIX + "logs/overview.log",
    resources:
        mem_mb=500,
        runtime=5,
    shell:
        "linbandits overview {params.studies} {params.preview} --out {output} > {log} 2>&1"


# The opt-in targets the studies' products name (e.g. `snakemake --cores 2 robustness`: every
# claim judged under every switch run, also the costly ones the default target leaves out).
for _target, _files in OPT_IN_TARGETS.items():

    rule:
        name:
            _target
        input:
            _files,
