"""What the Snakemake rules need to know about the config, as plain functions.

The config holds studies (one per paper); a study holds experiments, each a
row of a settings table: an instance family, the swept setting and its
values, fixed settings, algorithm options and a run count. Everything a rule
asks (which settings, which chunks, which seed, which paths, which targets)
is answered here, so the .smk files stay thin and this logic is unit-tested.

Paths: results/<study>/{instances,raw,tables}/..., figures/<study>/...,
logs/<study>/...; with `preview: true` everything goes under preview/.
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import shlex
from pathlib import Path

from linbandits.errors import UserError

STUDIES_DIR = Path(__file__).parent / "studies"
# The swept setting that numbers runs rather than varying the environment (see experiments()).
RUN_SWEEP = "seed"


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
    seed: int | None = None
    chunk_size: int | None = None
    priority: int = 0
    opt_in: str | None = None     # the opt-in target that builds it (not the default target)
    # A switch run: experiment `switch_of` with one protocol choice (`choice`, a name of the study's
    # `choices:` table) set to `switch` (a label of the value); its runs use the base's seeds.
    switch_of: str | None = None
    choice: str | None = None
    switch: str | None = None
    # (setting, experiment, its setting) for each setting whose instance another experiment writes.
    borrowed_instances: tuple = ()

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


# ------------------------------------------------------------------- studies

def study_sections(config) -> dict:
    return config.get("studies", {}) or {}


def enabled_studies(config) -> list[str]:
    """Studies the default target builds (each section's `enabled`, true unless it says false)."""
    return [s for s, body in study_sections(config).items() if body.get("enabled", True)]


def preview_values(name: str, values: tuple, chosen) -> tuple:
    """The sweep values a preview runs: `preview_values`, in the order of `values`, which must hold them all."""
    missing = [v for v in chosen if v not in values]
    if missing:
        raise UserError(f"experiment {name}: preview_values {missing} are not among its values {list(values)}; "
                        f"list a subset of values")
    return tuple(v for v in values if v in chosen)


def experiments(config) -> dict[str, Experiment]:
    """Every experiment of every study (and ablation), by unique name."""
    out = {}
    scale = float(config.get("trial_scale", 1.0))
    if config.get("preview"):
        scale *= float(config.get("preview_scale", 0.02))
    floor = int(config.get("min_trials", 1))
    for study, body in study_sections(config).items():
        algos = tuple(body.get("algorithms", ()))
        options = body.get("options", {}) or {}
        for name, row in _rows_with_switches(study, body).items():
            if name in out:
                raise UserError(f"experiment name {name!r} is used twice (studies {out[name].study} and "
                                f"{study}); experiment names must be unique")
            trials = max(floor, int(round(row["trials"] * scale)))
            values = tuple(row.get("values", ()))
            if config.get("preview") and row.get("preview_values"):
                values = preview_values(name, values, row["preview_values"])
            if row.get("sweep") == RUN_SWEEP and scale != 1.0:
                # A sweep over the instance's seed is a sweep over runs (one instance drawn per
                # run, as the OPKB authors did): scaled like a run count, first values kept.
                values = values[:max(min(2, len(values)), int(round(len(values) * scale)))]
            row_algos = tuple(row.get("algorithms", algos))
            opts = {a: {**options.get(a, {}), **(row.get("options", {}) or {}).get(a, {})} for a in row_algos}
            switch_of = row.get("switch_of")
            opt_in = row.get("opt_in")
            if switch_of and not opt_in and not config.get("robustness", True):
                opt_in = "robustness"
            out[name] = Experiment(
                study=study, name=name, instance=row["instance"], sweep=row.get("sweep"),
                values=values, settings=dict(row.get("settings", {}) or {}),
                options=opts, trials=trials, algorithms=row_algos,
                title=row.get("title", name), ablation_of=row.get("ablation_of"),
                changes=row.get("changes", ""), seed=row.get("seed"), chunk_size=row.get("chunk_size"),
                priority=int(row.get("priority", 0)), opt_in=opt_in, switch_of=switch_of,
                choice=row.get("choice"), switch=None if row.get("switch") is None else str(row["switch"]))
    return _share_instances(out)


SWITCH_OVERRIDES = ("settings", "options", "algorithms", "values", "preview_values", "trials", "chunk_size",
                    "opt_in", "priority")


def _rows_with_switches(study: str, body: dict) -> dict:
    """The study's experiment rows, then one row per (switch, experiment it applies to).

    A row of the study's `switches:` table changes one protocol choice of every experiment listed
    in its `of`: it is that experiment with the row's settings and options merged in and its
    other keys (algorithms, values, trials, ...) replacing the experiment's. Its name is
    <experiment>__<switch name>."""
    rows = dict(body.get("experiments", {}) or {})
    for sw in body.get("switches", []) or []:
        for base in sw["of"]:
            if base not in rows:
                raise UserError(f"study {study}: switch {sw['name']} applies to {base!r}, which is not one of its "
                                f"experiments ({', '.join(rows)})")
            row = {k: v for k, v in rows[base].items() if k not in ("switch_of", "choice", "switch", "changes")}
            row["settings"] = {**(row.get("settings") or {}), **(sw.get("settings") or {})}
            opts = {a: dict(o) for a, o in (row.get("options") or {}).items()}
            for algo, extra in (sw.get("options") or {}).items():
                opts[algo] = {**opts.get(algo, {}), **extra}
            row["options"] = opts
            row.update({k: sw[k] for k in SWITCH_OVERRIDES if k in sw and k not in ("settings", "options")})
            row.update(switch_of=base, choice=sw["choice"], switch=str(sw["switch"]), changes=sw.get("changes", ""),
                       title=f"{rows[base].get('title', base)}, {sw['choice']} = {sw['switch']}")
            rows[f"{base}__{sw['name']}"] = row
    return rows


def _share_instances(exps: dict[str, Experiment]) -> dict[str, Experiment]:
    """Point every setting whose built-in instance equals an earlier experiment's at that file.

    An instance file is a pure function of its family and settings (the seed of a simulate job is
    not one of them), so experiments that vary only algorithms or options (SW-UCB's switches, the
    P1-RAGE ablations) need no instance job of their own. Owners are published experiments before
    ablations, then config order."""
    from linbandits import catalogue

    families = set(catalogue.family_names())
    owners: dict = {}
    out = {}
    for name, exp in sorted(exps.items(), key=lambda item: bool(item[1].ablation_of)):
        borrowed = []
        if exp.instance in families:
            for setting in exp.setting_ids():
                key = (exp.study, exp.instance, tuple(sorted((k, repr(v)) for k, v in exp.instance_settings(setting).items())))
                owner = owners.setdefault(key, (name, setting))
                if owner[0] != name:
                    borrowed.append((setting, *owner))
        out[name] = dataclasses.replace(exp, borrowed_instances=tuple(borrowed)) if borrowed else exp
    return {name: out[name] for name in exps}


def study_experiments(config, study: str, published_only: bool = False) -> dict[str, Experiment]:
    return {n: e for n, e in experiments(config).items()
            if e.study == study and not (published_only and e.ablation_of)}


def chunks(config, experiment: Experiment) -> list[tuple[int, int]]:
    """(first run, number of runs) of every simulate job of a setting."""
    size = int(experiment.chunk_size or config["chunk_size"])
    return [(lo, min(size, experiment.trials - lo)) for lo in range(0, experiment.trials, size)]


def job_seed(config, experiment: str, setting: str) -> int:
    """Independent streams per (experiment, setting); the same for every
    algorithm there, so algorithms are compared on common random numbers.
    An experiment with its own `seed` uses it as is (a study whose protocol
    fixes the seeds, e.g. runs 0..9)."""
    exp = experiments(config).get(experiment)
    if exp is not None:
        return seed_of(config, exp, setting)
    return _hashed_seed(config, experiment, setting)


def seed_of(config, exp: Experiment, setting: str) -> int:
    """job_seed of an experiment already at hand (the rules ask it for every setting)."""
    if exp.seed is not None:
        return int(exp.seed)
    # A switch run faces the same random numbers as its base (common random numbers).
    return _hashed_seed(config, exp.switch_of or exp.name, setting)


def _hashed_seed(config, experiment: str, setting: str) -> int:
    digest = hashlib.sha256(f"{config['seed']}/{experiment}/{setting}".encode()).hexdigest()
    return int(digest[:8], 16)


def setting_args(settings: dict) -> str:
    """--setting flags for `linbandits instance` ('' when there are none)."""
    return " ".join(f"--setting {shlex.quote(f'{k}={v}')}" for k, v in settings.items())


def option_args(options: dict) -> str:
    return " ".join(f"--option {shlex.quote(f'{k}={v}')}" for k, v in sorted(options.items()))


def chunk_names(config, experiment: Experiment) -> list[str]:
    """'0-2999', '3000-5999', ...: the run ranges of an experiment's simulate jobs."""
    return [f"{lo}-{lo + n - 1}" for lo, n in chunks(config, experiment)]


def simulate_outputs(config, exp: Experiment, ext: str = "csv") -> list[str]:
    """What one simulate job writes: one file per setting of the experiment, as patterns in the
    job's wildcards {algorithm} and {chunk}. A job is (experiment, algorithm, run range): it pays
    process start-up and compilation once for all the settings (results do not change: run i of a
    setting depends only on that setting's seed and i)."""
    return [raw_path(config, exp, s, "{algorithm}", "{chunk}", ext) for s in exp.setting_ids()]


def bundled_simulate_outputs(config, exp: Experiment, ext: str = "csv") -> list[str]:
    """What a bundled simulate job writes (bundles_algorithms): every algorithm's file of every setting,
    as patterns in the job's wildcard {chunk}."""
    return [raw_path(config, exp, s, a, "{chunk}", ext) for a in exp.algorithms for s in exp.setting_ids()]


def simulate_cell_args(config, exp: Experiment, csvs) -> str:
    """`--cell INSTANCE SEED OUT` for every setting, in setting order (csvs: the job's CSV outputs)."""
    settings = exp.setting_ids()
    if len(csvs) != len(settings):
        raise ValueError(f"{exp.name}: {len(csvs)} outputs for {len(settings)} settings")
    return " ".join(f"--cell {shlex.quote(instance_path(config, exp, s))} {seed_of(config, exp, s)} "
                    f"{shlex.quote(str(out))}" for s, out in zip(settings, csvs))


def own_instance_settings(exp: Experiment) -> list[str]:
    """The settings whose instance file this experiment writes (the others it reads from their owner)."""
    borrowed = {b[0] for b in exp.borrowed_instances}
    return [s for s in exp.setting_ids() if s not in borrowed]


def bundles_algorithms(config) -> bool:
    """One simulate job per experiment and run range for all its algorithms (one process), instead of one
    per algorithm: a preview's jobs are so small that process start-up would dominate them."""
    return bool(config.get("preview") or config.get("bundle_algorithms"))


def on_request(exp: Experiment) -> bool:
    """An experiment the default target does not build: an ablation, or one with an opt-in target."""
    return bool(exp.ablation_of or exp.opt_in)


def by_study(exps: list[Experiment]) -> dict[str, list[Experiment]]:
    """The experiments the default target builds, grouped by study: what one study-level job bundles
    (experiments built only on request keep their own jobs, or a bundle would build them always)."""
    groups: dict[str, list[Experiment]] = {}
    for e in exps:
        if not on_request(e):
            groups.setdefault(e.study, []).append(e)
    return groups


def study_simulate_jobs(config, exps: list[Experiment]) -> dict[str, list[Experiment]]:
    """In a preview, one simulate job per study (by_study: every run range and algorithm of its
    experiments; its jobs are so small that start-up would dominate even one per experiment).
    Empty otherwise."""
    return by_study(exps) if config.get("preview") else {}


def simulate_exts(curves: bool) -> list[str]:
    """The files a simulate job writes per cell."""
    return ["csv", "json"] + (["curves.npz"] if curves else [])


def study_simulate_job(config, exps: list[Experiment], curves: bool):
    """(outputs by extension, command after `linbandits`) of a study's one simulate job: the bundled
    jobs of every experiment and run range, in one `batch`."""
    runs = [(e, c) for e in exps for c in chunk_names(config, e)]
    outputs = {ext: [p.format(chunk=c) for e, c in runs for p in bundled_simulate_outputs(config, e, ext)]
               for ext in simulate_exts(curves)}
    return outputs, batch_command([simulate_command(config, e, a, c, curves) for e, c in runs for a in e.algorithms])


def simulate_command(config, exp: Experiment, algorithm: str, chunk: str, curves: bool) -> str:
    """`simulate-cells ...` (after `linbandits`) for one algorithm and run range over every setting."""
    first, n = chunk_bounds(chunk)
    csvs = [raw_path(config, exp, s, algorithm, chunk) for s in exp.setting_ids()]
    words = [f"simulate-cells --algorithm {shlex.quote(algorithm)} --first-trial {first} --trials {n}",
             option_args(exp.options.get(algorithm, {})), "--curves" if curves else "",
             simulate_cell_args(config, exp, csvs)]
    return " ".join(w for w in words if w)


def simulate_job(config, exp: Experiment, curves: bool):
    """(output patterns by extension, the job's name in log paths, the command after `linbandits`)
    of the experiment's simulate jobs: per algorithm and run range, or all algorithms of a run range
    in one `batch` when bundles_algorithms. The command is a function of the job's wildcards."""
    exts = simulate_exts(curves)
    if not bundles_algorithms(config):
        return ({ext: simulate_outputs(config, exp, ext) for ext in exts}, "{algorithm}",
                lambda w: simulate_command(config, exp, w.algorithm, w.chunk, curves))
    return ({ext: bundled_simulate_outputs(config, exp, ext) for ext in exts}, "all",
            lambda w: batch_command([simulate_command(config, exp, a, w.chunk, curves) for a in exp.algorithms]))


def batch_command(commands: list[str]) -> str:
    """One `linbandits` command line (after `linbandits`) running `commands` in order in one process:
    the command itself if there is one, else a `batch` of them."""
    return commands[0] if len(commands) == 1 else "batch " + " ".join(shlex.quote(c) for c in commands)


def instance_outputs(config, exp: Experiment, ext: str) -> list[str]:
    """The instance files the experiment's instance job writes."""
    return [instance_path(config, exp, s, ext) for s in own_instance_settings(exp)]


def instance_inputs(config, exp: Experiment, ext: str = "npz") -> list[str]:
    """The instance file of every setting of the experiment, wherever it is written."""
    return [instance_path(config, exp, s, ext) for s in exp.setting_ids()]


def instance_jobs(config, exps: list[Experiment]) -> dict[str, list[Experiment]]:
    """The instance jobs, by name: one per experiment, or, when bundles_algorithms (a preview), one per
    study (by_study; their instance-cells commands in one `batch`) and one per experiment built only on
    request."""
    if not bundles_algorithms(config):
        return {e.name: [e] for e in exps}
    return {**by_study(exps), **{e.name: [e] for e in exps if on_request(e)}}


def instance_command(config, exps: list[Experiment]) -> str:
    """The command (after `linbandits`) of an instance job writing the own instance files of `exps`."""
    return batch_command([f"instance-cells --instance {shlex.quote(e.instance)} {instance_cell_args(config, e)}"
                          for e in exps])


def setting_instance_command(config, exp: Experiment, command) -> str:
    """One process for the own instance files of an experiment whose instances a study command builds:
    `command(setting)` (the words before the output paths) + `--out NPZ --summary JSON` per setting."""
    return batch_command([f"{command(s)} --out {shlex.quote(instance_path(config, exp, s))} "
                          f"--summary {shlex.quote(instance_path(config, exp, s, 'json'))}"
                          for s in own_instance_settings(exp)])


def instance_cell_args(config, exp: Experiment) -> str:
    """`--setting` for the experiment's fixed settings, then `--cell SWEPT OUT SUMMARY` per own setting."""
    cells = []
    for s in own_instance_settings(exp):
        own = "" if exp.sweep is None else f"{exp.sweep}={exp.value_of(s)}"
        cells.append(f"--cell {shlex.quote(own)} {shlex.quote(instance_path(config, exp, s))} "
                     f"{shlex.quote(instance_path(config, exp, s, 'json'))}")
    return " ".join(filter(None, [setting_args(exp.settings), *cells]))


def chunk_bounds(chunk: str) -> tuple[int, int]:
    """'0-999' -> (first run 0, 1000 runs)."""
    lo, hi = (int(p) for p in chunk.split("-"))
    return lo, hi - lo + 1


# --------------------------------------------------------------------- paths

def prefix(config) -> str:
    """'' for real runs; 'preview/' when the config asks for a preview, so the two never mix."""
    return "preview/" if config.get("preview") else ""


def instance_path(config, exp: Experiment, setting: str, ext: str = "npz") -> str:
    """results/<study>/instances/<experiment>/<setting>.<ext>, of the experiment that writes it."""
    owner, owner_setting = next(((o, os) for own, o, os in exp.borrowed_instances if own == setting),
                                (exp.name, setting))
    return f"{prefix(config)}results/{exp.study}/instances/{owner}/{owner_setting}.{ext}"


def raw_path(config, exp: Experiment, setting: str, algorithm: str, chunk: str, ext: str = "csv") -> str:
    """results/<study>/raw/<experiment>/<setting>/<algorithm>/chunk<a>-<b>.<ext>: one cell's runs a..b."""
    return f"{prefix(config)}results/{exp.study}/raw/{exp.name}/{setting}/{algorithm}/chunk{chunk}.{ext}"


def raw_chunk_paths(config, exp: Experiment, setting: str, algorithm: str, ext: str = "csv") -> list[str]:
    return [raw_path(config, exp, setting, algorithm, chunk, ext) for chunk in chunk_names(config, exp)]


def raw_inputs(config, exp: Experiment) -> list[str]:
    """Every raw chunk CSV of an experiment: settings outer, then algorithms, then run ranges."""
    return [p for s in exp.setting_ids() for a in exp.algorithms for p in raw_chunk_paths(config, exp, s, a)]


def table_paths(config, exp: Experiment) -> list[str]:
    return [f"{prefix(config)}results/{exp.study}/tables/{exp.name}.{ext}" for ext in ("csv", "md", "tex")]


def figure_paths(config, study: str, name: str) -> list[str]:
    return [f"{prefix(config)}figures/{study}/{name}.{ext}" for ext in ("pdf", "png")]


# ------------------------------------------------------------------- figures

def figures(config) -> dict[str, dict]:
    """The configured figures of every study, by unique name."""
    out = {}
    for study, body in study_sections(config).items():
        for name, spec in (body.get("figures", {}) or {}).items():
            if name in out:
                raise UserError(f"figure name {name!r} is used twice; figure names must be unique")
            out[name] = {**spec, "study": study}
    return out


def study_figures(config, study: str, published_only: bool = True) -> dict[str, dict]:
    abl = ablations(config)
    return {n: f for n, f in figures(config).items()
            if f["study"] == study and not (published_only and n in abl)}


def ablations(config) -> dict[str, Experiment]:
    return {n: e for n, e in experiments(config).items() if e.ablation_of}


def ablation_targets(config, study: str) -> list[str]:
    out = []
    for name, exp in ablations(config).items():
        if exp.study == study:
            out += table_paths(config, exp)
            if name in figures(config):
                out += figure_paths(config, study, name)
    return out


# ------------------------------------------------------------ validation

def check_config(config) -> None:
    """Checks the schema cannot express: names that must exist elsewhere."""
    from linbandits import catalogue

    algorithm_names = catalogue.algorithm_names()
    families = set(catalogue.family_names())
    exps = experiments(config)
    for exp in exps.values():
        external = set(study_sections(config)[exp.study].get("external_instances", []) or [])
        for algo in exp.algorithms:
            if algo not in algorithm_names:
                raise UserError(f"experiment {exp.name}: unknown algorithm {algo!r}; "
                                f"valid algorithms are: {', '.join(algorithm_names)}")
            if catalogue.study_of_algorithm(algo).name != exp.study:
                raise UserError(f"experiment {exp.name} of study {exp.study} runs {algo}, an algorithm of study "
                                f"{catalogue.study_of_algorithm(algo).name}")
        if exp.sweep is not None and not exp.values:
            raise UserError(f"experiment {exp.name}: sweep {exp.sweep!r} needs a non-empty 'values' list")
        if exp.ablation_of and exp.ablation_of not in exps:
            raise UserError(f"experiment {exp.name}: ablation_of {exp.ablation_of!r} is not an experiment")
        if exp.instance not in families and exp.instance not in external:
            raise UserError(f"experiment {exp.name}: unknown instance {exp.instance!r}; valid instances are: "
                            f"{', '.join(sorted(families | external))}")
    for fig, spec in figures(config).items():
        for panel in spec["panels"]:
            if "experiment" in panel and panel["experiment"] not in exps:
                raise UserError(f"figure {fig}: panel experiment {panel['experiment']!r} is not an experiment; "
                                f"experiments are: {', '.join(exps)}")
    check_config_values(config)


# What a job would refuse, refused by the dry run. Values are checked as the jobs receive them: the
# rules pass settings and options on a command line (setting_args, instance_cell_args, option_args),
# so each is checked in its text form by the same code that reads it there.

def check_config_values(config) -> None:
    """Values the schema cannot type: instance settings and swept values against the family's settings,
    algorithm options against each algorithm's options and choices, study-level algorithms and options
    that no experiment uses, and the R6A source. The first problem is one UserError naming the key."""
    check_r6a_source(config)
    for study, body in study_sections(config).items():
        check_study_algorithms_used(study, body)
        check_algorithm_options(study, f"studies/{study}/options", body.get("options"), study_runs(body))
        for name, row in (body.get("experiments") or {}).items():
            where = f"studies/{study}/experiments/{name}"
            check_experiment_settings(where, row)
            run = tuple(row.get("algorithms", body.get("algorithms", ())))
            check_algorithm_options(study, f"{where}/options", row.get("options"), run, experiment=True)


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


def check_algorithm_options(study: str, where: str, options, runs: tuple, experiment: bool = False) -> None:
    """`options:` (algorithm -> {option: value}) of a study or an experiment: each algorithm one that is
    run there, each option one it declares (`defaults`), of its default's type, among its `choices`."""
    from linbandits import catalogue
    from linbandits.options import parse_options

    for algo, opts in (options or {}).items():
        if algo not in catalogue.algorithm_names():
            raise UserError(f"config: {where}/{algo}: unknown algorithm {algo!r}; the algorithms of study "
                            f"{study} are: {', '.join(catalogue.studies()[study].algorithms)}")
        if algo not in runs:
            scope = "the experiment does not run" if experiment else f"no experiment of study {study} runs"
            raise UserError(f"config: {where}/{algo}: {scope} {algo}, so these options apply to nothing "
                            f"(run there: {', '.join(runs) or 'none'}); remove them or run {algo}")
        cls = catalogue.algorithm_class(algo)
        for key, value in (opts or {}).items():
            try:
                parse_options(cls, {key: str(value)})
            except UserError as exc:
                raise UserError(f"config: {where}/{algo}/{key}: {exc}") from None


def check_experiment_settings(where: str, row: dict) -> None:
    """An experiment's `settings` and its swept setting's `values` against its instance family: a
    setting it has, a value of its published default's type (and among its choices, if it declares
    some). Instances a study's own rules build (external_instances) are theirs to check."""
    from linbandits import catalogue

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
    from linbandits import catalogue

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
    import yaml

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
    import jsonschema
    import yaml

    with open(schema_path) as handle:
        schema = yaml.safe_load(handle)
    coerce_command_line_booleans(config, schema)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        raise UserError(describe_schema_error(errors[0]))
    from linbandits.catalogue import studies

    for study, section in study_sections(config).items():
        if study not in studies():
            raise UserError(f"config: studies/{study} is not a study; the studies are: {', '.join(studies())}")
        validator = jsonschema.Draft7Validator(study_schema(schema, study))
        errors = sorted(validator.iter_errors(section), key=lambda e: list(e.absolute_path))
        if errors:
            raise UserError(describe_schema_error(errors[0], ["studies", study]))
    check_config(config)


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
