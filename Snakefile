# Regenerates every figure and table of the configured studies (one per paper).
#   snakemake --cores 2                          every enabled study (config/config.yaml)
#   snakemake --cores 2 p1rage                   one study
#   snakemake --cores 2 figures/p1rage/fig3_multi_osci.pdf   one figure and what it needs
#   snakemake --cores 2 --directory .test        the tiny CI configuration
from snakemake.utils import min_version

min_version("8.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/instances.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/r6a.smk"


# One rules file per study: workflow/rules/<study>.smk.
for _study in STUDIES:

    include: f"workflow/rules/{_study}.smk"


include: "workflow/rules/overview.smk"


rule all:
    default_target: True
    input:
        all_inputs,
