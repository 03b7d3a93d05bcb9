# Config validation and the lookups every rule shares. The logic lives in the package
# (linbandits.experiments, .paths, .jobs, .validation; unit-tested); this file only binds it to `config`.
import re
import sys

from linbandits.errors import UserError
from linbandits import catalogue, experiments, jobs, paths, validation

try:
    validation.validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))
except UserError as exc:
    sys.stderr.write(f"\n{exc}\nFix the config file (see config/config.yaml for every key).\n\n")
    sys.exit(1)

EXPERIMENTS = experiments.experiments(config)
PREFIX = paths.prefix(config)
STUDIES = list(experiments.study_sections(config))
ENABLED_STUDIES = experiments.enabled_studies(config)
# Experiments with an instance job: a built-in family, and a setting no earlier experiment writes.
BUILTIN = sorted(n for n, e in EXPERIMENTS.items()
                 if e.instance in catalogue.family_names() and experiments.own_instance_settings(e))
CURVE_STUDIES = [s for s in STUDIES if catalogue.studies()[s].curves]

# Each study's rules file appends its default targets (tables, figures,
# claims) here; `rule all` builds those of the enabled studies.
STUDY_TARGETS = {s: [] for s in STUDIES}


def all_inputs(wildcards):
    targets = [t for s in experiments.enabled_studies(config) for t in STUDY_TARGETS[s]]
    return targets + [f"{PREFIX}results/overview.md"]


def preview_note():
    # A preview runs fewer runs, and fewer settings where an experiment's preview_values say so.
    return "PREVIEW: reduced runs and settings, not the published protocol" if config.get("preview") else ""


wildcard_constraints:
    study="|".join(STUDIES) or "none",
    experiment="[A-Za-z0-9_]+",
    setting="[A-Za-z0-9_.-]+",
    algorithm="|".join(sorted({a for e in EXPERIMENTS.values() for a in e.algorithms})) or "none",
    chunk=r"\d+-\d+",


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
    c = totals(studies)
    print(f"\nOverview: {path} ({', '.join(f'{n} {v}' for v, n in c.items() if n)} over "
          f"{sum(len(s['claims']) for s in studies)} claims of {sum(s['enabled'] for s in studies)} studies)\n")
