# Config validation and the lookups and functions every rules file shares (no rules here). The
# logic lives in the package (linbandits.experiments, .paths, .jobs, .validation, .products);
# this file only binds it to `config`.
import os
import re
import sys

import yaml

from linbandits import (
    catalogue,
    experiments,
    jobs,
    paths,
    products,
    study_config,
    validation,
)
from linbandits.errors import UserError
from linbandits.r6a.reader import PUBLISHED_DAYS

try:
    # Each study's defaults (src/linbandits/studies/<study>/config.yaml) under the user's sections.
    _merged = study_config.with_study_defaults(config)
    config.clear()
    config.update(_merged)
    validation.validate_config(
        config, workflow.source_path("../schemas/config.schema.yaml")
    )
except UserError as exc:
    sys.stderr.write(
        f"\n{exc}\nFix the config file (see config/README.md for every key).\n\n"
    )
    sys.exit(1)

# The command the rules run (the Snakefile puts the repository's src/ on PYTHONPATH).
LB = "python3 -m linbandits"
ENV = "../envs/linbandits.yaml"
EXPERIMENTS = experiments.experiments(config)
PREFIX = paths.prefix(config)
STUDIES = list(experiments.study_sections(config))
ENABLED_STUDIES = experiments.enabled_studies(config)
PRODUCT_STUDIES = [s for s in STUDIES if catalogue.studies()[s].products]
# Experiments with an instance job: a built-in family, and a setting no earlier experiment writes.
BUILTIN = sorted(
    n
    for n, e in EXPERIMENTS.items()
    if e.instance in catalogue.family_names() and experiments.own_instance_settings(e)
)
R6A = config.get("r6a", {})
R6A_DAYS = list(PUBLISHED_DAYS)

# The rules files append each study's default outputs here (the default target builds those of the
# enabled studies), and the outputs of each opt-in target (robustness, opkb_tuning, ...) by target.
STUDY_TARGETS = {s: [] for s in STUDIES}
OPT_IN_TARGETS = {}


# The terminal: progress, one line per failed job with its error (the last line of its log), the
# overview line last (linbandits.terminal); the log under .snakemake/log/ keeps everything. A dry
# run, --verbose and --printshellcmds keep Snakemake's own output, a failed job's log included
# (show-failed-logs in the workflow profile).
from linbandits import terminal

if not (
    terminal.dry_run(sys.argv)
    or workflow.output_settings.verbose
    or workflow.output_settings.printshellcmds
):
    from snakemake.logging import logger as _snakemake_logger

    terminal.install(_snakemake_logger)

# Every job that reads a plan file (linbandits.jobs): the simulate jobs at the config's job_size,
# then each study's own (Study.jobs).
try:
    PLANNED = {
        s: jobs.planned_rules(config, s, list(EXPERIMENTS.values())) for s in STUDIES
    }
    jobs.check_unique([r for rules in PLANNED.values() for r in rules])
    jobs.write_plans([r for rules in PLANNED.values() for r in rules])
except UserError as exc:
    sys.stderr.write(f"\n{exc}\n\n")
    sys.exit(1)


def all_inputs(wildcards):
    targets = [t for s in ENABLED_STUDIES for t in STUDY_TARGETS[s]]
    return targets + [f"{PREFIX}results/overview.md"]


def study_snapshot(study):
    """results/<study>/config.yaml: the study's config as this run saw it (its products read it)."""
    return f"{PREFIX}results/{study}/config.yaml"


def study_config_text(study):
    """The config a study's products are made from: every top-level key and this study's section."""
    top = {k: v for k, v in config.items() if k != "studies"}
    top["study_defaults"] = study_config.MERGED  # read as it is, not merged again
    # only this study's own algorithms: a user's algorithm for one study leaves the others' products be
    extra = config.get("extra_algorithms") or {}
    top["extra_algorithms"] = {study: extra[study]} if extra.get(study) else {}
    return yaml.safe_dump(
        {**top, "studies": {study: config["studies"][study]}}, sort_keys=False
    )


def study_config_copy(study):
    """The study's config text as this run sees it (written below when the workflow is read, only when
    it changed): the snapshot rule's input, so an edit (a user's algorithm added) remakes the snapshot
    even in a copy of a run without Snakemake's records."""
    return f"{PREFIX}.linbandits/config/{study}.yaml"


for _study in STUDIES:
    jobs.write_if_changed(study_config_copy(_study), study_config_text(_study))


def r6a_synthetic():
    return R6A.get("source", "synthetic") == "synthetic"


def r6a_dir():
    # validation refuses `source: r6a` without `r6a_dir`
    return R6A.get("r6a_dir") if not r6a_synthetic() else "data/synthetic_r6a"


def print_overview_counts():
    """After a successful run: where the overview is and how many claims hold (if the run made it)."""
    import os

    from linbandits.overview import study_entry, totals

    path = f"{PREFIX}results/overview.md"
    if not os.path.exists(path):
        return
    try:
        studies = [study_entry(study_snapshot(s)) for s in ENABLED_STUDIES]
    except Exception:  # a partial run: the overview file says the rest
        return
    counts = ", ".join(f"{n} {v}" for v, n in totals(studies).items() if n)
    n_claims = sum(len(s["claims"]) for s in studies)
    print(
        f"\nOverview: {path} ({counts} over {n_claims} claims of {len(studies)} studies)\n"
    )
