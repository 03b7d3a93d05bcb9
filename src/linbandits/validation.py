"""The config checked before any job runs: the JSON schema, then what a schema cannot say.

Every problem is one UserError naming the key, what is wrong and what is allowed; the workflow
prints it and stops (`snakemake -n` refuses a bad config).
"""
from __future__ import annotations

import copy
import os
import sys
from pathlib import Path

import jsonschema
import yaml

from linbandits import catalogue
from linbandits.user import algorithms as user_algorithms, checks as user_algorithm_checks
from linbandits.errors import UserError
from linbandits.experiments import experiments, study_sections
from linbandits.options import parse_options


STUDIES_DIR = Path(__file__).parent / "studies"


def check_config(config) -> None:
    """Checks the schema cannot express: names that must exist elsewhere."""
    families = set(catalogue.family_names())
    exps = experiments(config)
    # [user algorithms, issue 37] the user's classes checked first; their names join the known ones
    user_algorithm_checks.check_config(config, exps)
    algorithm_names = catalogue.algorithm_names() + list(user_algorithms.declared(config))
    for exp in exps.values():
        external = set(catalogue.studies()[exp.study].external_instances)
        for algo in exp.algorithms:
            if algo not in algorithm_names:
                raise UserError(f"experiment {exp.name}: unknown algorithm {algo!r}; "
                                f"valid algorithms are: {', '.join(algorithm_names)}")
            if catalogue.study_of_algorithm(algo).name != exp.study:
                raise UserError(f"experiment {exp.name} of study {exp.study} runs {algo}, an algorithm of study "
                                f"{catalogue.study_of_algorithm(algo).name}")
        if exp.sweep is not None and not exp.values:
            raise UserError(f"experiment {exp.name}: sweep {exp.sweep!r} needs a non-empty 'values' list")
        if exp.switch_of:
            choices = study_sections(config)[exp.study].get("choices") or {}
            if exp.choice not in choices:
                raise UserError(f"config: studies/{exp.study}/switches: switch run {exp.name} changes choice "
                                f"{exp.choice!r}, which is not in studies/{exp.study}/choices "
                                f"({', '.join(choices) or 'empty'}); add it there or fix the name")
        if exp.instance not in families and exp.instance not in external:
            raise UserError(f"experiment {exp.name}: unknown instance {exp.instance!r}; valid instances are: "
                            f"{', '.join(sorted(families | external))}")
    for study, body in study_sections(config).items():
        own = [n for n, e in exps.items() if e.study == study]
        panel_lists = catalogue.studies()[study].panel_lists   # its panel keys naming more experiments
        for fig, spec in (body.get("figures") or {}).items():
            drawn = []
            for panel in spec.get("panels", []):
                named = [panel.get("experiment")] + [n for k in panel_lists for n in panel.get(k, [])]
                for name in [n for n in named if n is not None and n not in own]:
                    raise UserError(f"config: studies/{study}/figures/{fig}: experiment {name!r} is not an experiment "
                                    f"of {study}; its experiments are: {', '.join(own)}")
                drawn += named
            # the series a figure must draw (issue 51): every experiment they are of is one a panel draws
            for name in [n for n in (spec.get("series") or {}) if n in own and n not in drawn]:
                raise UserError(f"config: studies/{study}/figures/{fig}/series names {name}, which no panel of the "
                                f"figure draws; add {name} to a panel (experiment"
                                f"{''.join(f', {k}' for k in panel_lists)}) or remove it from the figure's series")
    check_config_values(config)


def check_config_values(config) -> None:
    """Values the schema cannot type: instance settings and swept values against the family's settings,
    algorithm options against each algorithm's options and choices, study-level algorithms and options
    that no experiment uses, and the R6A source. The first problem is one UserError naming the key."""
    check_r6a_source(config)
    declared = user_algorithms.declared(config)
    for study, body in study_sections(config).items():
        users = {d.name: d for d in declared.values() if d.study == study}    # their options too (issue 47)
        check_study_algorithms_known(config, study, body)
        check_study_algorithms_used(study, body)
        rows = body.get("experiments") or {}
        user_runs = tuple(n for n, d in users.items() if any(user_algorithms.joins(d, e, r) for e, r in rows.items()))
        check_algorithm_options(study, f"studies/{study}/options", body.get("options"), study_runs(body) + user_runs,
                                users=users)
        for name, row in rows.items():
            where = f"studies/{study}/experiments/{name}"
            check_experiment_settings(where, row)
            run = tuple(row.get("algorithms", body.get("algorithms", ())))
            run += tuple(n for n, d in users.items() if user_algorithms.joins(d, name, row))
            check_algorithm_options(study, f"{where}/options", row.get("options"), run, experiment=True, users=users)
        for sw in body.get("switches") or []:
            # A switch row applies to several experiments: its options must each apply in one of them.
            where = f"studies/{study}/switches/{sw['name']}"
            runs: list = []
            for base in sw["of"]:
                if base not in rows:
                    raise UserError(f"config: {where}/of: {base!r} is not an experiment of {study}; its experiments "
                                    f"are: {', '.join(rows)}")
                row = rows[base]
                merged = {**row, **{k: sw[k] for k in ("values", "algorithms") if k in sw},
                          "settings": {**(row.get("settings") or {}), **(sw.get("settings") or {})}}
                check_experiment_settings(where, merged)
                runs += [a for a in sw.get("algorithms", row.get("algorithms", body.get("algorithms", ())))
                         if a not in runs]
                runs += [n for n, d in users.items() if n not in runs and user_algorithms.joins(
                    d, f"{base}__{sw['name']}", {"switch_of": base})]
            check_algorithm_options(study, f"{where}/options", sw.get("options"), tuple(runs), experiment=True,
                                    users=users)


def check_r6a_source(config) -> None:
    r6a = config.get("r6a") or {}
    if r6a.get("source") == "r6a" and not r6a.get("r6a_dir"):
        raise UserError("config: r6a: source is r6a but r6a: r6a_dir is not set; set r6a: r6a_dir to the directory "
                        "holding the seven licensed R6A day files (ydata-fp-td-clicks-v1_0.20090501.gz .. "
                        "ydata-fp-td-clicks-v1_0.20090507.gz, from Yahoo! Webscope), or use r6a: source: synthetic")


def study_runs(body: dict) -> tuple:
    """Every algorithm some experiment of the study runs (an experiment without `algorithms` runs the study's)."""
    listed = tuple(body.get("algorithms", ()))
    runs = []
    for row in (body.get("experiments") or {}).values():
        runs += [a for a in row.get("algorithms", listed) if a not in runs]
    return tuple(runs)


def check_study_algorithms_known(config, study: str, body: dict) -> None:
    """Every name in the study's `algorithms` is an algorithm of the study (or a user's, declared for it)."""
    known = list(catalogue.studies()[study].algorithms)
    known += [n for n, d in user_algorithms.declared(config).items() if d.study == study]
    unknown = [a for a in body.get("algorithms", ()) if a not in known]
    if unknown:
        raise UserError(f"config: studies/{study}/algorithms: unknown algorithm {unknown[0]!r}; the algorithms of "
                        f"{study} are: {', '.join(known)} (a typo, or your own class: declare it under "
                        f"extra_algorithms/{study}, docs/your-algorithm.md)")


def check_study_algorithms_used(study: str, body: dict) -> None:
    """The study's `algorithms` is the list an experiment without its own runs. An algorithm in it that
    no experiment runs (every experiment lists its own without it) looks run but never is: refused."""
    if not body.get("experiments"):
        return
    runs = study_runs(body)
    unused = [a for a in body.get("algorithms", ()) if a not in runs]
    if unused:
        them = "it" if len(unused) == 1 else "them"
        raise UserError(f"config: studies/{study}/algorithms lists {', '.join(unused)}, which no experiment of "
                        f"{study} runs (each experiment lists its own algorithms without {them}); remove {them} "
                        f"from studies/{study}/algorithms or add {them} to an experiment's algorithms")


def check_algorithm_options(study: str, where: str, options, runs: tuple, experiment: bool = False,
                            users: dict | None = None) -> None:
    """`options:` (algorithm -> {option: value}) of a study or an experiment: each algorithm one that is
    run there (a paper algorithm, or a user algorithm of the study: `users`, name -> its declaration), each
    option one it declares (`defaults`), of its default's type, among its `choices`."""
    users = users or {}
    for algo, opts in (options or {}).items():
        if algo not in catalogue.algorithm_names() and algo not in users:
            mine = f" and the user algorithms declared for it: {', '.join(users)}" if users else ""
            raise UserError(f"config: {where}/{algo}: unknown algorithm {algo!r}; the algorithms of study "
                            f"{study} are: {', '.join(catalogue.studies()[study].algorithms)}{mine} (declare "
                            f"yours under extra_algorithms: {study}: {algo})")
        if algo not in runs:
            scope = "the experiment does not run" if experiment else f"no experiment of study {study} runs"
            raise UserError(f"config: {where}/{algo}: {scope} {algo}, so these options apply to nothing "
                            f"(run there: {', '.join(runs) or 'none'}); remove them or run {algo}")
        cls = user_algorithms.algorithm_class(algo) if algo in users else catalogue.algorithm_class(algo)
        for key, value in (opts or {}).items():
            try:
                parse_options(cls, {key: str(value)})
            except UserError as exc:
                own = algo in users and key not in cls.defaults
                fix = f" (or declare {key!r} in the `defaults` of {users[algo].target})" if own else ""
                raise UserError(f"config: {where}/{algo}/{key}: {exc}{fix}") from None


def check_experiment_settings(where: str, row: dict) -> None:
    """An experiment's `settings` and its swept setting's `values` against its instance family: a
    setting it has, a value of its published default's type (and among its choices, if it declares
    some). Instances a study's own commands build (Study.external_instances) are theirs to check."""
    family = row["instance"]
    if family not in catalogue.family_names():
        return
    defaults = catalogue.default_settings(family)
    for key, value in (row.get("settings") or {}).items():
        check_setting_value(family, defaults, key, value, f"{where}/settings/{key}")
    sweep = row.get("sweep")
    if sweep is None:
        return
    if sweep not in defaults:
        raise UserError(f"config: {where}/sweep = {sweep!r} is not a setting of instance family {family}; "
                        f"its settings are: {', '.join(defaults)}")
    if sweep in (row.get("settings") or {}):
        raise UserError(f"config: {where}/settings/{sweep} is the swept setting, which each value of "
                        f"{where}/values replaces; remove it from settings")
    for i, value in enumerate(row.get("values") or ()):
        check_setting_value(family, defaults, sweep, value, f"{where}/values[{i}] (swept setting {sweep})")


def check_setting_value(family: str, defaults: dict, key: str, value, where: str) -> None:
    if key not in defaults:
        raise UserError(f"config: {where}: instance family {family} has no setting {key!r}; "
                        f"its settings are: {', '.join(defaults)}")
    try:
        converted = catalogue.coerce_setting(family, key, str(value), defaults[key])
    except UserError as exc:
        raise UserError(f"config: {where}: {exc}") from None
    choices = getattr(catalogue.family(family), "setting_choices", {}).get(key)
    if choices is not None and converted not in choices:
        raise UserError(f"config: {where} = {value!r} is not allowed for instance family {family}; "
                        f"choose one of {', '.join(map(str, choices))}")


def study_schema(schema: dict, study: str) -> dict:
    """The main schema's `study` definition, extended by the study's own config.schema.yaml.

    A study schema may hold `properties` (extra keys of the study section) and
    `experiment_properties`, `figure_properties`, `panel_properties` (extra keys
    of its experiments, figures and panels)."""
    merged = copy.deepcopy(schema)
    path = STUDIES_DIR / study / "config.schema.yaml"
    if path.exists():
        extra = yaml.safe_load(path.read_text()) or {}
        defs = merged["definitions"]
        for key, target in (("properties", "study"), ("experiment_properties", "experiment"),
                            ("figure_properties", "figure"), ("panel_properties", "panel")):
            defs[target]["properties"].update(extra.get(key, {}))
            defs[target].setdefault("required", [])
            if key == "properties":
                defs[target]["required"] = sorted(set(defs[target]["required"]) | set(extra.get("required", [])))
    return {**merged["definitions"]["study"], "definitions": merged["definitions"]}


def validate_config(config, schema_path) -> None:
    """Validate against the JSON schema (each study section against its study's
    schema too); the first problem becomes one UserError naming the key, what is
    wrong and what is allowed."""
    with open(schema_path) as handle:
        schema = yaml.safe_load(handle)
    coerce_command_line_booleans(config, schema)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        raise UserError(describe_schema_error(errors[0]))
    for study, section in study_sections(config).items():
        if study not in catalogue.studies():
            raise UserError(f"config: studies/{study} is not a study; the studies are: "
                            f"{', '.join(catalogue.studies())}")
        validator = jsonschema.Draft7Validator(study_schema(schema, study))
        errors = sorted(validator.iter_errors(section), key=lambda e: list(e.absolute_path))
        if errors:
            raise UserError(describe_schema_error(errors[0], ["studies", study]))
    check_config(config)
    for study, section in study_sections(config).items():
        check_named_keys(config, study, section, study_schema(schema, study))


# A study schema marks the keys whose values name something of the study (`names: experiment`, `claim`
# or `choice`; on `propertyNames`, the keys of a mapping): a product reads them, so a renamed or dropped
# experiment, claim or choice is one line here, before any job, not a product that silently vanishes.
def check_named_keys(config, study: str, section: dict, schema: dict) -> None:
    known = {"experiment": [n for n, e in experiments(config).items() if e.study == study],
             "choice": list(section.get("choices") or {})}

    def names(kind: str) -> list:
        if kind == "claim" and kind not in known:
            claims = yaml.safe_load((STUDIES_DIR / study / "claims.yaml").read_text(encoding="utf-8")) or []
            known[kind] = [c["id"] for c in claims]
        return known[kind]

    def walk(value, node: dict, where: list) -> None:
        while "$ref" in node:
            node = schema["definitions"][node["$ref"].rsplit("/", 1)[-1]]
        kind = node.get("names")
        if kind and isinstance(value, str) and value not in names(kind):
            article = "an" if kind[0] in "aeiou" else "a"
            raise UserError(f"config: studies/{study}/{'/'.join(where)} = {value!r} is not {article} {kind} of {study}; "
                            f"its {kind}s are: {', '.join(names(kind))}; name one of them, or drop the key ({where[-1]}: null)")
        if isinstance(value, dict):
            for key, item in value.items():
                if "propertyNames" in node:
                    walk(key, node["propertyNames"], where + [str(key)])
                sub = node.get("properties", {}).get(key, node.get("additionalProperties"))
                if isinstance(sub, dict):
                    walk(item, sub, where + [str(key)])
        elif isinstance(value, list):
            items = node.get("items")
            subs = items if isinstance(items, list) else [items] * len(value)
            for k, (item, sub) in enumerate(zip(value, subs)):
                if isinstance(sub, dict):
                    walk(item, sub, where + [str(k)])

    walk(section, schema, [])


def coerce_command_line_booleans(config, schema) -> None:
    """`snakemake --config preview=true` gives the string 'true' (Snakemake reads
    --config values with YAML's base loader, where only True/False are booleans);
    top-level boolean keys accept true/false in any case."""
    for key, prop in schema.get("properties", {}).items():
        value = config.get(key)
        if prop.get("type") == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
            config[key] = value.lower() == "true"


def describe_schema_error(err, base=()) -> str:
    where = "/".join(str(p) for p in [*base, *err.absolute_path]) or "the top level"
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


# ------------------------------------------- the command line and the checkout (issue 50)
# Checked as Snakemake reads the workflow, each refused in one line naming the problem and the fix,
# where Snakemake would hang (--cores 0) or print a traceback. What Snakemake refuses before it reads
# the workflow (its own options: --configfile, --config) is in README.md's Troubleshooting.

def refuse_on_error(check, *args) -> None:
    """Run one check; its UserError is printed as the one line the user reads, and Snakemake stops."""
    try:
        check(*args)
    except UserError as exc:
        sys.stderr.write(f"\n{exc}\n\n")
        sys.exit(1)


def check_yaml_file(path) -> None:
    """A config file that is not YAML, named with the line and column of the problem."""
    if not os.path.exists(path):
        return
    try:
        with open(path, encoding="utf-8") as handle:
            yaml.safe_load(handle)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise UserError(f"{path}{where}: not valid YAML ({what}); fix the file there "
                        "(a space after every ':', no tabs, brackets closed)") from None


def check_cores(cores) -> None:
    if cores == 0:
        raise UserError("--cores 0 runs no job (Snakemake would wait forever); give --cores 1 or more, "
                        "e.g. --cores 2, or --cores all for every core of this machine")


def check_writable(directory) -> None:
    if not os.access(directory, os.W_OK):
        raise UserError(f"the working directory {directory} is read-only, and a run writes .snakemake/, "
                        "results/, figures/ and logs/ there; run in a writable copy of the repository "
                        "(cp -r) or give Snakemake a writable --directory")


def command_line_targets(argv) -> list[str] | None:
    """The targets of a `snakemake ...` command line, or None for another caller (a cluster job)."""
    if not argv or "snakemake" not in str(argv[0]):
        return None
    from snakemake.cli import get_argument_parser

    args, _ = get_argument_parser().parse_known_args(list(argv[1:]))
    return None if args.target_jobs else list(args.targets or [])


def check_targets(targets, rule_names, is_made, preview: bool, studies) -> None:
    """Each target a rule's name, a file a rule makes (is_made(path)) or a file there is."""
    for target in targets:
        if target in rule_names or os.path.exists(target) or is_made(target):
            continue
        if target.startswith("preview/") and not preview:
            raise UserError(f"target {target} is a preview file: add --config preview=true after the targets "
                            f"(snakemake --cores 2 {target} --config preview=true)")
        if preview and is_made(f"preview/{target}"):
            raise UserError(f"target {target}: a preview writes every file under preview/; "
                            f"ask for preview/{target}")
        raise UserError(f"no rule makes target {target!r}; a target is `all`, a study ({', '.join(studies)}), "
                        "another rule `snakemake --list-rules` lists, or a file one makes (`snakemake -n` "
                        "lists the jobs of the default target; README.md, \"What comes out where\")")
