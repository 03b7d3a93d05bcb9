# Regenerates every figure and table of the configured studies (one per paper).
#   snakemake --cores 2                          every enabled study (config/config.yaml)
#   snakemake --cores 2 p1rage                   one study
#   snakemake --cores 2 figures/p1rage/fig3_multi_osci.pdf   one figure and what it needs
#   snakemake --cores 2 --directory .test        the tiny CI configuration
import os

from snakemake.utils import min_version

min_version("8.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/instances.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/r6a.smk"


include: "workflow/rules/study.smk"


# A study's own rules, where it has any (e.g. building its Yahoo! instances): workflow/rules/<study>.smk.
for _study in STUDIES:
    if os.path.exists(os.path.join(workflow.basedir, "workflow", "rules", f"{_study}.smk")):

        include: f"workflow/rules/{_study}.smk"


include: "workflow/rules/overview.smk"


rule all:
    default_target: True
    input:
        all_inputs,


onsuccess:
    print_overview_counts()
