# Config validation and the lookups every rule shares. The logic lives in
# linbandits.pipeline (unit-tested); this file only binds it to `config`.
import sys

from linbandits.errors import UserError
from linbandits import pipeline

try:
    pipeline.validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))
except UserError as exc:
    sys.stderr.write(f"\n{exc}\nFix the config file (see config/config.yaml for every key).\n\n")
    sys.exit(1)

EXPERIMENTS = pipeline.experiments(config)
FIGURES = pipeline.figures(config)
BUILTIN = sorted(n for n, e in EXPERIMENTS.items() if e.instance in pipeline.builtin_families())


def all_inputs(wildcards):
    return pipeline.all_targets(config) + extra_targets()


# Studies append their own targets (claims, QC files) to this list.
EXTRA_TARGETS = []


def extra_targets():
    return list(EXTRA_TARGETS)


def experiment(name):
    return EXPERIMENTS[name]


wildcard_constraints:
    experiment="[A-Za-z0-9_]+",
    setting="[A-Za-z0-9_.-]+",
    algorithm="|".join(sorted({a for e in EXPERIMENTS.values() for a in e.algorithms})) or "none",
    chunk=r"\d+-\d+",
