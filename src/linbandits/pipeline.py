"""What the Snakemake rules need to know about the config, as plain functions.

The config holds studies (one per paper); a study holds experiments, each a
row of a settings table: an instance family, the swept setting and its
values, fixed settings, algorithm options and a trial count. Everything a
rule asks (which settings, which chunks, which seed, which targets) is
answered here, so the .smk files stay thin and this logic is unit-tested.
"""
from __future__ import annotations

import dataclasses
import hashlib

from linbandits.errors import UserError


@dataclasses.dataclass(frozen=True)
class Experiment:
    study: str
    name: str
    instance: str
    sweep: str | None
    values: tuple
    settings: dict
    options: dict
    trials: int
    algorithms: tuple
    title: str = ""
    ablation_of: str | None = None
    changes: str = ""

    def setting_ids(self) -> list[str]:
        if self.sweep is None:
            return ["single"]
        return [setting_id(self.sweep, v) for v in self.values]

    def value_of(self, setting: str):
        """The swept value of a setting id (None for single-setting experiments)."""
        if self.sweep is None:
            return None
        for v in self.values:
            if setting_id(self.sweep, v) == setting:
                return v
        raise UserError(f"experiment {self.name} has no setting {setting!r}; "
                        f"it has {', '.join(self.setting_ids())}")

    def instance_settings(self, setting: str) -> dict:
        out = dict(self.settings)
        if self.sweep is not None:
            out[self.sweep] = self.value_of(setting)
        return out


def setting_id(sweep: str, value) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{sweep}{value}"


def experiments(config) -> dict[str, Experiment]:
    """Every experiment of every study (and ablation), by unique name."""
    out = {}
    scale = float(config.get("trial_scale", 1.0))
    floor = int(config.get("min_trials", 1))
    for study, body in config.get("studies", {}).items():
        algos = tuple(body.get("algorithms", ()))
        options = body.get("options", {}) or {}
        for name, row in body.get("experiments", {}).items():
            if name in out:
                raise UserError(f"experiment name {name!r} is used twice; experiment names must be unique")
            trials = max(floor, int(round(row["trials"] * scale)))
            opts = {a: {**options.get(a, {}), **(row.get("options", {}) or {}).get(a, {})} for a in algos}
            out[name] = Experiment(
                study=study, name=name, instance=row["instance"], sweep=row.get("sweep"),
                values=tuple(row.get("values", ())), settings=dict(row.get("settings", {}) or {}),
                options=opts, trials=trials, algorithms=tuple(row.get("algorithms", algos)),
                title=row.get("title", name), ablation_of=row.get("ablation_of"),
                changes=row.get("changes", ""))
    return out


def chunks(config, experiment: Experiment) -> list[tuple[int, int]]:
    """(first trial, number of trials) of every simulate job of a setting."""
    size = int(config["chunk_size"])
    return [(lo, min(size, experiment.trials - lo)) for lo in range(0, experiment.trials, size)]


def job_seed(config, experiment: str, setting: str) -> int:
    """Independent streams per (experiment, setting); the same for every
    algorithm there, so algorithms are compared on common random numbers."""
    digest = hashlib.sha256(f"{config['seed']}/{experiment}/{setting}".encode()).hexdigest()
    return int(digest[:8], 16)


def setting_args(settings: dict) -> str:
    """--setting flags for `linbandits instance` ('' when there are none)."""
    import shlex

    return " ".join(f"--setting {shlex.quote(f'{k}={v}')}" for k, v in settings.items())


def option_args(options: dict) -> str:
    return " ".join(f"--option {k}={v}" for k, v in sorted(options.items()))


def raw_chunk_paths(config, exp: Experiment, setting: str, algorithm: str, root: str = "results/raw"):
    return [f"{root}/{exp.name}/{setting}/{algorithm}/chunk{lo}-{lo + n - 1}.csv" for lo, n in chunks(config, exp)]


def chunk_bounds(chunk: str) -> tuple[int, int]:
    """'0-999' -> (first trial 0, 1000 trials)."""
    lo, hi = (int(p) for p in chunk.split("-"))
    return lo, hi - lo + 1


def table_paths(exp_name: str) -> list[str]:
    return [f"results/tables/{exp_name}.{ext}" for ext in ("csv", "md", "tex")]


def figure_paths(name: str) -> list[str]:
    return [f"figures/{name}.{ext}" for ext in ("pdf", "png")]


def builtin_families() -> set[str]:
    from linbandits.instances import FAMILIES

    return set(FAMILIES)


def check_config(config) -> None:
    """Checks the schema cannot express: names that must exist elsewhere."""
    from linbandits.algorithms import ALGORITHMS

    exps = experiments(config)
    for exp in exps.values():
        for algo in exp.algorithms:
            if algo not in ALGORITHMS:
                raise UserError(f"experiment {exp.name}: unknown algorithm {algo!r}; "
                                f"valid algorithms are: {', '.join(ALGORITHMS)}")
        if exp.sweep is not None and not exp.values:
            raise UserError(f"experiment {exp.name}: sweep {exp.sweep!r} needs a non-empty 'values' list")
        if exp.ablation_of and exp.ablation_of not in exps:
            raise UserError(f"experiment {exp.name}: ablation_of {exp.ablation_of!r} is not an experiment")
        if exp.instance not in builtin_families() and exp.instance not in config.get("external_instances", []):
            raise UserError(f"experiment {exp.name}: unknown instance {exp.instance!r}; valid instances are: "
                            f"{', '.join(sorted(builtin_families() | set(config.get('external_instances', []))))}")
    for study, body in config.get("studies", {}).items():
        for fig, spec in (body.get("figures", {}) or {}).items():
            for panel in spec["panels"]:
                if panel["experiment"] not in exps:
                    raise UserError(f"figure {fig}: panel experiment {panel['experiment']!r} is not an experiment; "
                                    f"experiments are: {', '.join(exps)}")


def figures(config) -> dict[str, dict]:
    """The configured figures, plus one per ablation: the ablation's curve
    (or bars) beside the published experiment it varies."""
    out = {}
    for study, body in config.get("studies", {}).items():
        for name, spec in (body.get("figures", {}) or {}).items():
            out[name] = {**spec, "study": study}
    for exp in experiments(config).values():
        if exp.ablation_of:
            out[exp.name] = {
                "study": exp.study, "kind": "bars" if exp.sweep is None else "curves",
                "caption": "ablation.rst",
                "panels": [{"experiment": exp.ablation_of, "xlabel": exp.sweep or "", "title": "published protocol"},
                           {"experiment": exp.name, "xlabel": exp.sweep or "", "title": exp.name}],
            }
    return out


def ablations(config) -> dict[str, Experiment]:
    return {n: e for n, e in experiments(config).items() if e.ablation_of}


def all_targets(config) -> list[str]:
    """The default target: every published experiment's table and figure.
    Ablations have their own target (see ablation_targets)."""
    abl = ablations(config)
    targets = []
    for name in experiments(config):
        if name not in abl:
            targets += table_paths(name)
    for name in figures(config):
        if name not in abl:
            targets += figure_paths(name)
    return targets


def ablation_targets(config) -> list[str]:
    out = []
    for name in ablations(config):
        out += table_paths(name) + figure_paths(name)
    return out



def validate_config(config, schema_path) -> None:
    """Validate against the JSON schema; the first problem becomes one
    UserError naming the key, what is wrong and what is allowed."""
    import jsonschema
    import yaml

    with open(schema_path) as handle:
        schema = yaml.safe_load(handle)
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        raise UserError(describe_schema_error(errors[0]))
    check_config(config)


def describe_schema_error(err) -> str:
    where = "/".join(str(p) for p in err.absolute_path) or "the top level"
    schema = err.schema
    if err.validator == "additionalProperties" and schema.get("additionalProperties") is False:
        extra = sorted(set(err.instance) - set(schema.get("properties", {})))
        return (f"config: unknown key {', '.join(map(repr, extra))} at {where}; "
                f"allowed keys there are: {', '.join(schema.get('properties', {}))}")
    if err.validator == "enum":
        return f"config: {where} = {err.instance!r} is not allowed; choose one of {', '.join(map(str, err.validator_value))}"
    if err.validator == "type":
        return f"config: {where} = {err.instance!r} has the wrong type; expected {err.validator_value}"
    if err.validator == "required":
        return f"config: {err.message} at {where}"
    return f"config: {where}: {err.message}"
