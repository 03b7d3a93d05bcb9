# Stage 5, overview: the report's first page, every study, its figures, its claims' verdicts and
# their robustness, from each enabled study's config snapshot and claims file; the findings page it
# links first (what the papers got wrong, from the studies' findings and claims); and the targets
# beside the default one (the contact sheet, the opt-in targets the studies' products name).

# The report lists its categories alphabetically, ignoring case: the number puts the overview first.
OVERVIEW_CATEGORY = "1. Overview"


rule overview:
    """overview: results/overview.md (every study and every claim's verdict) and results/findings.md"""
    input:
        snapshots=[study_snapshot(s) for s in ENABLED_STUDIES],
        claims=[f"{PREFIX}results/{s}/claims.json" for s in ENABLED_STUDIES],
    output:
        overview=report(
            f"{PREFIX}results/overview.md",
            caption="../report/overview.rst",
            category=OVERVIEW_CATEGORY,
        ),
        findings=report(
            f"{PREFIX}results/findings.md",
            caption="../report/findings.rst",
            category=OVERVIEW_CATEGORY,
        ),
    log:
        f"{PREFIX}logs/overview.log",
    group:
        "products"
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
        f"{LB} overview {{params.studies}} {{params.preview}} --out {{output.overview}}"
        f" --findings {{output.findings}} > {{log}} 2>&1"


# Every figure of the run on one page, in colour and in greyscale, as a reviewer would look at them
# side by side; part of the default target (about 2 CPU-s: docs/benchmarks.md).
rule contact_sheet:
    """target: every figure of the run on one page, in colour and in greyscale"""
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
    group:
        "products"
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
        """target: the opt-in products a study's products name (e.g. robustness, opkb_tuning)"""
        name:
            _target
        input:
            _files,


# One scorecard across the studies for the user's own algorithms (`snakemake --cores 2 scorecard`):
# built only on request, from the comparison.json of every study a user algorithm runs in.
from linbandits.user import scorecard

SCORECARD_STUDIES = scorecard.studies_judged(config, ENABLED_STUDIES)


rule scorecard:
    """overview: results/scorecard.{md,json} and figures/scorecard.{pdf,png}, your algorithms against the papers'"""
    input:
        [f"{PREFIX}results/{s}/comparison.json" for s in SCORECARD_STUDIES],
    output:
        md=f"{PREFIX}results/scorecard.md",
        json=f"{PREFIX}results/scorecard.json",
        figure=multiext(f"{PREFIX}figures/scorecard", ".pdf", ".png"),
    log:
        f"{PREFIX}logs/scorecard.log",
    group:
        "products"
    conda:
        ENV
    resources:
        mem_mb=500,
        runtime=5,
    params:
        stem=lambda w, output: output.figure[0].removesuffix(".pdf"),
    shell:
        f"{LB}.user.scorecard {{input}} --md {{output.md}} --json {{output.json}}"
        f" --figure {{params.stem}} > {{log}} 2>&1"
