# The overview page of the report: every study, its figures, its claims' verdicts and their
# robustness, from each enabled study's config snapshot and claims file.


rule overview:
    input:
        snapshots=[study_snapshot(s) for s in ENABLED_STUDIES],
        claims=[f"{PREFIX}results/{s}/claims.json" for s in ENABLED_STUDIES],
    output:
        report(
            f"{PREFIX}results/overview.md",
            caption="../report/overview.rst",
            category="Overview",
        ),
    log:
        f"{PREFIX}logs/overview.log",
    conda:
        ENV
    resources:
        mem_mb=500,
        runtime=5,
    params:
        # every study in config order: an enabled one by its snapshot, a disabled one by name
        studies=" ".join(
            (
                f"--study {study_snapshot(s)}"
                if s in ENABLED_STUDIES
                else f"--disabled {s}"
            )
            for s in STUDIES
        ),
        preview="--preview" if config.get("preview") else "",
    shell:
        f"{LB} overview {{params.studies}} {{params.preview}} --out {{output}} > {{log}} 2>&1"


# Every figure of the run on one page, in colour and in greyscale, as a reviewer would look at them
# side by side; part of the default target (about 2 CPU-s: docs/benchmarks.md).
rule contact_sheet:
    input:
        [
            f
            for s in ENABLED_STUDIES
            for f in STUDY_TARGETS[s]
            if f.startswith(f"{PREFIX}figures/") and f.endswith(".png")
        ],
    output:
        multiext(f"{PREFIX}figures/contact_sheet", ".pdf", ".png"),
        multiext(f"{PREFIX}figures/contact_sheet_grey", ".pdf", ".png"),
    log:
        f"{PREFIX}logs/contact_sheet.log",
    conda:
        ENV
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        # the sheets' own directory: figures/ of this run (or of the preview)
        figures=lambda wildcards, output: os.path.dirname(output[0]),
    shell:
        f"{LB}.contact_sheet {{params.figures}} --both > {{log}} 2>&1"


# The opt-in targets the studies' products name (e.g. `snakemake --cores 2 robustness`: every
# claim judged under every switch run, also those the default target leaves out).
for _target, _files in OPT_IN_TARGETS.items():

    rule:
        name:
            _target
        input:
            _files,
