# Regenerates every figure and table of the configured studies.
#   snakemake --cores 2                          everything (config/config.yaml)
#   snakemake --cores 2 figures/fig3_multi_osci.pdf   one figure and what it needs
#   snakemake --cores 2 --directory .test        the tiny CI configuration
from snakemake.utils import min_version

min_version("8.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/instances.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/yahoo.smk"
include: "workflow/rules/p1rage.smk"


rule all:
    default_target: True
    input:
        all_inputs,
