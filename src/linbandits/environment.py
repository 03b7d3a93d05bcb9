"""One run of a study's problem, stepped by an algorithm: the environment every study offers.

An environment is one run (seed, trial) of an instance: it shows the arms (and the context, where
the study has one), answers `step(arm)` with the reward, and gives the study's columns at the end
(`outcome()`: the Run a paper algorithm's run returns). It draws from the study's own random streams
(linbandits.streams, through the study's stream functions), so a stepped algorithm meets the same
instance draws and contexts as the paper's algorithms in the same run, and the same noise wherever the
study's noise model allows (docs/environments.md says per study what is shared).

    env = make_environment("swucb", instance, seed, trial)      # from an instance object
    env = experiment_environment("swucb_fig1", "T1000", trial)   # an experiment's setting, the pipeline's seed

An algorithm written against it is a `SteppedAlgorithm`: it implements `play(env)`, and runs in the
pipeline like any other (its `run(seed, trial)` builds the environment and returns its outcome).

Each study's environment is its Study's `environment` ("module:Class", in the study's `environment`
module); a study without one offers none.
"""
from __future__ import annotations

import numpy as np

from linbandits.errors import UserError, check_seed
from linbandits.options import parse_options
from linbandits.streams import generator
from linbandits.study import Algorithm, Run

# The purpose of a run's stream for the stepped algorithm's own random choices (exploration, tie-breaks):
# generator(seed, trial, ALGORITHM_PURPOSE). No study's environment or paper algorithm reads it.
ALGORITHM_PURPOSE = 1000


class Environment:
    """The interface every study's environment implements (subclasses set the class attributes).

    Attributes of every environment: `study`, `kinds`, `instance`, `seed`, `trial`, `options` (the
    environment's own options, e.g. opkb's noise model), `t` (steps taken: rounds or pulls),
    `horizon` (the steps a run has, or None where the algorithm decides when to stop), `arms` (the
    arms the next step may pull, one row each), `context` (the current context's index, or None where
    the study has none), `done` (no step is left, or a recommendation was made)."""

    study = ""
    kinds: tuple = ()
    defaults: dict = {}          # its options and their defaults, as an algorithm's (linbandits.options)
    choices: dict = {}           # option -> the values it may take

    @property
    def name(self) -> str:
        return f"the {self.study} environment"

    def __init__(self, instance, seed: int, trial: int, **options):
        if getattr(instance, "kind", None) not in self.kinds:
            raise UserError(f"the {self.study} environment runs on {' or '.join(self.kinds)} instances, but "
                            f"{getattr(instance, 'name', instance)!r} is a {getattr(instance, 'kind', '?')} instance")
        self.instance = instance
        self.seed = check_seed(seed, "the seed")
        if isinstance(trial, bool) or not isinstance(trial, (int, np.integer)) or trial < 0:
            raise UserError(f"the trial must be an integer >= 0, got {trial!r}")
        self.trial = int(trial)
        self.options = parse_options(self, options)
        self.t = 0
        self.setup()

    # -- what a study implements
    def setup(self) -> None:
        """Draw the run's streams and derive what every step reads."""

    @property
    def horizon(self) -> int | None:
        raise NotImplementedError

    @property
    def arms(self) -> np.ndarray:
        raise NotImplementedError

    @property
    def context(self) -> int | None:
        return None

    @property
    def done(self) -> bool:
        raise NotImplementedError

    def step(self, arm: int) -> float:
        raise NotImplementedError

    def outcome(self) -> Run:
        """The run's columns (and curves), as the study's paper algorithms return them."""
        raise NotImplementedError

    # -- shared
    def step_many(self, arms) -> np.ndarray:
        """The rewards of pulling `arms` in order, one step each (the same numbers as step by step)."""
        return np.array([self.step(int(a)) for a in self._arms_many(arms, self.arms.shape[0])], dtype=float)

    def algorithm_generator(self) -> np.random.Generator:
        """A generator for the algorithm's own random choices: generator(seed, trial, ALGORITHM_PURPOSE),
        independent of every stream the environment draws from. Each call starts it afresh."""
        return generator(self.seed, self.trial, ALGORITHM_PURPOSE)

    def _arm(self, arm, count: int) -> int:
        if isinstance(arm, bool) or not isinstance(arm, (int, np.integer)) or not 0 <= arm < count:
            raise UserError(f"{self.study} environment: arm {arm!r} is not an arm of this run; give an integer "
                            f"0..{count - 1}")
        return int(arm)

    def _arms_many(self, arms, count: int) -> np.ndarray:
        """`arms` as an int64 vector of arms of this run, with room for one step each."""
        self._check_open()
        arms = np.asarray(arms).reshape(-1)
        if arms.size and (not np.issubdtype(arms.dtype, np.integer) or arms.min() < 0 or arms.max() >= count):
            raise UserError(f"{self.study} environment: step_many takes integer arms 0..{count - 1}")
        if self.horizon is not None and self.t + arms.size > self.horizon:
            raise UserError(f"{self.study} environment: {arms.size} steps from step {self.t} pass the horizon "
                            f"{self.horizon}")
        return arms.astype(np.int64)

    def _check_open(self) -> None:
        if self.done:
            raise UserError(f"{self.study} environment: the run is over after {self.t} steps (no step is left or a "
                            f"recommendation was made); read env.outcome()")


class RegretEnvironment(Environment):
    """A run of a fixed number of rounds scored by its cumulative pseudo-regret (swucb, oam, opkb)."""

    @property
    def done(self) -> bool:
        return self.t >= self.horizon

    def _check_complete(self) -> None:
        if self.t < self.horizon:
            raise UserError(f"{self.study} environment: the run stepped {self.t} of its {self.horizon} rounds; "
                            f"step every round before reading the outcome")


class BestArmEnvironment(Environment):
    """A best-arm identification run, ended by `recommend(arm)` (p1rage, lingape)."""

    recommended: int | None = None

    def recommend(self, arm: int) -> None:
        """End the run with a recommendation."""
        if self.recommended is not None:
            raise UserError(f"{self.study} environment: the run already recommended arm {self.recommended}")
        self.recommended = self._arm(arm, self.arms.shape[0])

    def _check_complete(self) -> None:
        if self.recommended is None:
            raise UserError(f"{self.study} environment: the run made no recommendation; call env.recommend(arm) "
                            f"before reading the outcome")


def environment_class(study: str) -> type:
    """The environment class of a study (its Study's `environment`)."""
    from linbandits import catalogue

    studies = catalogue.studies()
    if study not in studies:
        raise UserError(f"{study!r} is not a study; the studies are: {', '.join(studies)}")
    target = studies[study].environment
    if not target:
        offering = [s for s, d in studies.items() if d.environment]
        raise UserError(f"study {study} offers no environment; these do: {', '.join(offering)}")
    return catalogue.resolve(target)


def make_environment(study: str, instance, seed: int, trial: int, **options) -> Environment:
    """The environment of run `trial` of `instance` under `seed`, stepped as `study`'s problem."""
    return environment_class(study)(instance, seed, trial, **options)


def experiment_environment(experiment: str, setting: str | None, trial: int, config="config/config.yaml",
                           seed: int | None = None) -> Environment:
    """Run `trial` of one setting of a configured experiment, as the pipeline runs it: its instance (built
    from its family and settings, or read from the instance file the pipeline wrote), its job seed (unless
    `seed` is given) and the environment options its paper algorithms run with (opkb's noise model).
    `config`: the config file the pipeline runs with (a path, relative to the working directory, or a dict)."""
    from linbandits import catalogue, experiments, paths
    from linbandits.problems import load_instance_file
    from linbandits.study_config import read_config, with_study_defaults

    if isinstance(config, dict):
        config = with_study_defaults(config)
    else:
        from pathlib import Path

        if not Path(config).is_file():
            raise UserError(f"no config file {config} (from {Path.cwd()}); give the path of the config the pipeline "
                            f"runs with, e.g. config=\"config/config.yaml\" from the repository's root")
        config = read_config(config)
    exps = experiments.experiments(config)
    if experiment not in exps:
        raise UserError(f"{experiment!r} is not an experiment of the config; its experiments are: {', '.join(exps)}")
    exp = exps[experiment]
    setting = setting or exp.setting_ids()[0]
    if setting not in exp.setting_ids():
        raise UserError(f"experiment {experiment} has no setting {setting!r}; it has {', '.join(exp.setting_ids())}")
    if exp.instance in catalogue.family_names():
        instance = catalogue.build_instance(exp.instance, exp.instance_settings(setting))
    else:
        from pathlib import Path

        path = paths.instance_path(config, exp, setting)
        if not Path(path).is_file():
            raise UserError(f"experiment {experiment}'s instances are built from data by the pipeline and {path} is "
                            f"not there yet; build it first: snakemake --cores 2 {path}")
        instance = load_instance_file(path)
    cls = environment_class(exp.study)
    paper = [exp.options.get(a, {}) for a in exp.algorithms if a in catalogue.studies()[exp.study].algorithms]
    options = {}
    for key in cls.defaults:
        values = [o[key] for o in paper if key in o]
        if len({repr(v) for v in values}) > 1:
            raise UserError(f"experiment {experiment}: its algorithms run with different {key} options "
                            f"({', '.join(sorted({str(v) for v in values}))}); call make_environment with the one "
                            f"you want")
        if values:
            options[key] = values[0]
    run_seed = experiments.seed_of(config, exp, setting) if seed is None else seed
    return cls(instance, run_seed, trial, **options)


class SteppedAlgorithm(Algorithm):
    """An algorithm written against a study's environment: set `study` (and `name`, `summary`, `defaults`)
    and implement `play(env)`, which steps the run (and, for best-arm identification, recommends).

    `run(seed, trial)` builds the environment of `self.instance` for that run and returns its outcome, so
    the class is declared and run like any other algorithm (`extra_algorithms:`); an option whose name is
    one of the environment's options (opkb: `noise`) is passed to the environment too. `kinds` defaults
    to the study's environment's."""

    study = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.study and not cls.__dict__.get("kinds"):
            cls.kinds = environment_class(cls.study).kinds

    def play(self, env: Environment) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not implement play(env)")

    def environment(self, seed: int, trial: int) -> Environment:
        """The environment of run `trial` of this algorithm's instance."""
        if not self.study:
            raise UserError(f"{type(self).__name__} sets no `study`; add study = \"<study>\" (the study whose "
                            f"environment it steps)")
        cls = environment_class(self.study)
        return cls(self.instance, seed, trial, **{k: v for k, v in self.options.items() if k in cls.defaults})

    def run(self, seed: int, trial: int) -> Run:
        env = self.environment(seed, trial)
        self.play(env)
        return env.outcome()
