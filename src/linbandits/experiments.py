"""The experiments of a config: what every rule and product asks about them.

The config holds studies (one per paper); a study holds experiments, each a row of a settings
table: an instance family, the swept setting and its values, fixed settings, algorithm options and
a run count; and switch runs (its `switches:` table), each an experiment with one protocol choice
changed. This module turns those tables into `Experiment`s with their settings, run ranges and
seeds; linbandits.paths says where their files are and linbandits.jobs what their jobs run.
"""
from __future__ import annotations

import dataclasses
import hashlib

from linbandits import catalogue
from linbandits.user import algorithms as user_algorithms
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
    changes: str = ""
    seed: int | None = None
    chunk_size: int | None = None
    settings_per_job: int | None = None     # settings of a simulate job (None: all; see setting_groups)
    priority: int = 0
    opt_in: str | None = None     # the opt-in target that builds it (not the default target)
    # A switch run: experiment `switch_of` with one protocol choice (`choice`, a name of the study's
    # `choices:` table) set to `switch` (a label of the value); its runs use the base's seeds.
    switch_of: str | None = None
    choice: str | None = None
    switch: str | None = None
    # (setting, experiment, its setting) for each setting whose instance another experiment writes.
    borrowed_instances: tuple = ()
    # (setting, user algorithm, experiment) for each of a user algorithm's settings whose runs another
    # experiment, on the same instance, seed, runs and options, makes (issue 47; _share_user_runs).
    borrowed_runs: tuple = ()

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
    """Every experiment of every study (its switch runs included), by unique name."""
    out = {}
    scale = float(config.get("trial_scale", 1.0))
    if config.get("preview"):
        scale *= float(config.get("preview_scale", 0.02))
    floor = int(config.get("min_trials", 1))
    for study, body in study_sections(config).items():
        declared = catalogue.studies().get(study)
        run_sweeps = declared.run_sweeps if declared else ()
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
            if row.get("sweep") in run_sweeps and scale != 1.0:
                # A sweep over runs (the study's Study.run_sweeps, e.g. the instance's seed: one
                # instance drawn per run, as the OPKB authors did): scaled like a run count, first
                # values kept.
                values = values[:max(min(2, len(values)), int(round(len(values) * scale)))]
            row_algos = tuple(row.get("algorithms", algos))
            opts = {a: {**options.get(a, {}), **(row.get("options", {}) or {}).get(a, {})} for a in row_algos}
            # [user algorithms, issue 37] the user's own algorithms join the study's experiments, with
            # options per experiment as a paper algorithm's (issue 47)
            extra, extra_options = user_algorithms.extra_for(config, study, name, row, options)
            row_algos, opts = row_algos + extra, {**opts, **extra_options}
            switch_of = row.get("switch_of")
            opt_in = row.get("opt_in")
            if switch_of and not opt_in and not config.get("robustness", True):
                opt_in = "robustness"
            out[name] = Experiment(
                study=study, name=name, instance=row["instance"], sweep=row.get("sweep"),
                values=values, settings=dict(row.get("settings", {}) or {}),
                options=opts, trials=trials, algorithms=row_algos,
                title=row.get("title", name),
                changes=row.get("changes", ""), seed=row.get("seed"), chunk_size=row.get("chunk_size"),
                settings_per_job=row.get("settings_per_job"),
                priority=int(row.get("priority", 0)), opt_in=opt_in, switch_of=switch_of,
                choice=row.get("choice"), switch=None if row.get("switch") is None else str(row["switch"]))
    return _share_user_runs(config, _share_instances(out))


SWITCH_OVERRIDES = ("settings", "options", "algorithms", "values", "preview_values", "trials", "chunk_size",
                    "settings_per_job",
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
                raise UserError(f"config: studies/{study}/switches/{sw['name']}/of: {base!r} is not an experiment of "
                                f"{study}; its experiments are: {', '.join(rows)}")
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
    the switch runs) need no instance job of their own. Owners are published experiments before
    switch runs, then config order."""
    families = set(catalogue.family_names())
    owners: dict = {}
    out = {}
    for name, exp in sorted(exps.items(), key=lambda item: bool(item[1].switch_of)):
        borrowed = []
        if exp.instance in families:
            for setting in exp.setting_ids():
                key = (exp.study, exp.instance, tuple(sorted((k, repr(v)) for k, v in exp.instance_settings(setting).items())))
                owner = owners.setdefault(key, (name, setting))
                if owner[0] != name:
                    borrowed.append((setting, *owner))
        out[name] = dataclasses.replace(exp, borrowed_instances=tuple(borrowed)) if borrowed else exp
    return {name: out[name] for name in exps}


def _share_user_runs(config, exps: dict[str, Experiment]) -> dict[str, Experiment]:
    """Point a user algorithm's settings at an earlier experiment's that has the same runs of it.

    A run is a pure function of the setting's instance (family, settings, and run count, which an
    external instance may read), the seed, the run range and the algorithm's options: where all of them
    are equal (lingape's exp1_soare/_xy/_adaptive share instances and seed 0), the user's algorithm runs
    once and every such experiment's runs file reads those runs. The paper's algorithms keep their own
    runs (the published protocol runs them so). Owners: experiments built by default first, published
    experiments before switch runs, then config order."""
    owners: dict = {}
    out = {}
    first = sorted(exps.items(), key=lambda item: (on_request(item[1]), bool(item[1].switch_of)))
    for name, exp in first:
        users = user_algorithms.user_algorithms_of(exp.algorithms)
        borrowed = []
        for setting in exp.setting_ids() if users else ():
            place = (exp.study, exp.instance, setting, repr(sorted(exp.instance_settings(setting).items())),
                     seed_of(config, exp, setting), exp.trials, tuple(chunk_names(config, exp)))
            for user in users:
                key = (*place, user, repr(sorted(exp.options.get(user, {}).items())))
                owner = owners.setdefault(key, name)
                if owner != name:
                    borrowed.append((setting, user, owner))
        out[name] = dataclasses.replace(exp, borrowed_runs=tuple(borrowed)) if borrowed else exp
    return {name: out[name] for name in exps}


def runs_owner(exp: Experiment, setting: str, algorithm: str) -> str:
    """The experiment whose raw runs of (setting, algorithm) `exp` reads: its own, or a user algorithm's
    runs made by another experiment (_share_user_runs)."""
    return next((o for s, a, o in exp.borrowed_runs if (s, a) == (setting, algorithm)), exp.name)


def study_experiments(config, study: str) -> dict[str, Experiment]:
    return {n: e for n, e in experiments(config).items() if e.study == study}


def chunks(config, experiment: Experiment) -> list[tuple[int, int]]:
    """(first run, number of runs) of every simulate job of a setting."""
    size = int(experiment.chunk_size or config["chunk_size"])
    return [(lo, min(size, experiment.trials - lo)) for lo in range(0, experiment.trials, size)]


def setting_groups(experiment: Experiment) -> list[tuple[str, ...]]:
    """The settings each simulate job of the experiment runs: all of them in one job, or
    `settings_per_job` at a time. Costly runs (e.g. the neural OPKB variants at width 2048, minutes a
    seed) want small jobs: Snakemake resumes only whole jobs, and a cluster runs jobs side by side.
    The files and numbers are the same either way (a setting's runs depend on its seed only)."""
    ids = tuple(experiment.setting_ids())
    size = experiment.settings_per_job or max(len(ids), 1)
    return [ids[i:i + size] for i in range(0, len(ids), size)]


def chunk_names(config, experiment: Experiment) -> list[str]:
    """'0-2999', '3000-5999', ...: the run ranges of an experiment's simulate jobs."""
    return [f"{lo}-{lo + n - 1}" for lo, n in chunks(config, experiment)]


def chunk_bounds(chunk: str) -> tuple[int, int]:
    """'0-999' -> (first run 0, 1000 runs)."""
    lo, hi = (int(p) for p in chunk.split("-"))
    return lo, hi - lo + 1


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


def own_instance_settings(exp: Experiment) -> list[str]:
    """The settings whose instance file this experiment writes (the others it reads from their owner)."""
    borrowed = {b[0] for b in exp.borrowed_instances}
    return [s for s in exp.setting_ids() if s not in borrowed]


def on_request(exp: Experiment) -> bool:
    """An experiment the default target does not build: one with an opt-in target."""
    return bool(exp.opt_in)


def published(exps: dict) -> dict:
    """The experiments of the published protocol (no switch runs, none built only on request)."""
    return {n: e for n, e in exps.items() if not on_request(e) and not e.switch_of}


def switch_runs(exps: dict, opt_in: bool = False) -> dict:
    """The switch runs the default target builds (with `opt_in`: every one, also those an opt-in target
    builds, e.g. all of them with `robustness: false`)."""
    return {n: e for n, e in exps.items() if e.switch_of and (opt_in or not on_request(e))}


def by_study(exps: list[Experiment]) -> dict[str, list[Experiment]]:
    """The experiments the default target builds, grouped by study: what one study-level job bundles
    (experiments built only on request keep their own jobs, or a bundle would build them always)."""
    groups: dict[str, list[Experiment]] = {}
    for e in exps:
        if not on_request(e):
            groups.setdefault(e.study, []).append(e)
    return groups


def runs_experiment(config, experiment, algorithm: str, setting: str) -> Experiment:
    """The experiment whose runs of `algorithm` at `setting` the experiment `experiment` (one or its name)
    reads: itself, or, for a user algorithm, the first experiment with the same instance, seed, runs and
    options (a user's algorithm runs once per distinct instance set; its runs are in that experiment's raw
    files, and in every such experiment's runs file)."""
    exps = experiments(config)
    exp = exps[experiment] if isinstance(experiment, str) else experiment
    return exps[runs_owner(exp, setting, algorithm)]
