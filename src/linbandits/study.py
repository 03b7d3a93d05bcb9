"""What a study (one paper) declares, the one run loop of every algorithm, and what runs return.

A study is the package `linbandits.studies.<name>`; its `__init__` defines `STUDY = Study(...)`.
Algorithms, instance families, instance kinds and the study's products are named by
"module:attribute" strings and imported only when used, so `linbandits simulate` pays only for
the study whose algorithm it runs.

Contracts (checked by tests/test_catalogue.py for every study):

- Algorithm: a subclass of `Algorithm` with `name`, `summary` (one line), `kinds` (the instance
  kinds it accepts), `defaults` / `choices` (its options). It implements `run(seed, trial)` ->
  `Run` for one trial, or `run_many(seed, trials, progress)` -> `Records` where a compiled kernel
  runs many trials at once. Either way trial i depends only on (seed, i): chunking never changes
  a number. `simulate(seed, trials)` is the same for every algorithm.
- Instance kind class: `kind` (its name), `required` / `optional` (the .npz arrays that declare
  it), `file_settings` (the --setting keys allowed with --instance-file),
  `from_arrays(arrays, name, meta, settings, where)`, `to_arrays()`, `summary()` (JSON-able),
  and attributes `name`, `meta`.
- Instance family: a function whose keyword defaults are the published settings (read with
  inspect; --setting strings are coerced to their type) and whose docstring's first line
  describes it; returns an instance.
- Products: a function (config) -> list of `linbandits.products.Product`: the study's tables,
  figures and claims, each with its inputs, outputs and maker.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from linbandits.errors import UserError, check_seed
from linbandits.options import parse_options


@dataclasses.dataclass(frozen=True)
class ExternalInstance:
    """An instance a study's own command builds from data (the Yahoo! arm sets), not from a family:
    one job per experiment that names it writes every setting's instance file (rules/instances.smk)."""
    command: str                # "module:function": (config, experiment) -> the command after `linbandits`
    inputs: str                 # "module:function": config -> {name: path or [paths]}, the files the job reads
    # Files the study's target also builds when an experiment uses it (e.g. the R6A quality report).
    also_builds: tuple = ()


@dataclasses.dataclass(frozen=True)
class Study:
    name: str
    paper: str
    algorithms: dict            # algorithm name -> "module:Class"
    families: dict = dataclasses.field(default_factory=dict)   # family name -> "module:function"
    kinds: dict = dataclasses.field(default_factory=dict)      # instance-file kind -> "module:Class"
    commands: dict = dataclasses.field(default_factory=dict)   # CLI subcommand -> ("module:function", help)
    products: str = ""          # "module:function": config -> [Product]
    # True when its simulate jobs also write per-round curves (--curves F.npz).
    curves: bool = False
    # "module:function" returning a context manager entered once per simulate job around all its
    # cells of one algorithm (e.g. P1-RAGE's design cache, shared by the settings of one arm set).
    job_context: str = ""
    # "module:function": config -> [linbandits.jobs.PlannedRule], the study's own jobs besides its
    # simulate jobs (OPKB: its tuning grid); each reads its plan file, like a simulate job.
    jobs: str = ""
    # What the shared code asks a study rather than knowing it (the defaults mean "none"):
    # panel keys of its figures that name further experiments drawn in the same panel (validated
    # like `experiment`);
    panel_lists: tuple = ()
    # swept settings that number runs rather than vary the environment (a sweep over the instance's
    # seed, one instance drawn per run): trial_scale shortens their values like a run count;
    run_sweeps: tuple = ()
    # the exclusive upper bound of its families' seed settings (`seed`, `*_seed`), where a generator
    # needs one (numpy's legacy RandomState: 2**32); None: any non-negative integer;
    seed_limit: int | None = None
    # instance name -> ExternalInstance: instances its own commands build (experiments may name them).
    external_instances: dict = dataclasses.field(default_factory=dict)
    # The CSV columns every algorithm of the study writes, which its products read: a user's algorithm
    # (linbandits.user.algorithms) must return them.
    columns: tuple = ()
    # "module:Class": the study's environment (linbandits.environment), one run stepped by an algorithm;
    # "" offers none.
    environment: str = ""


@dataclasses.dataclass
class Records:
    """What `simulate` returns for the trials it was given, in their order.

    columns: per-trial columns of the CSV after `trial`, in CSV order; integer arrays are
        written as integers, floats at full precision.
    curves: optional per-trial curves, e.g. {"t": rounds (G,), "regret": (n, G)}; written by
        `linbandits simulate --curves F.npz`.
    info: extra entries for the JSON sidecar.
    """

    columns: dict
    curves: dict | None = None
    info: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        lengths = {k: len(np.asarray(v)) for k, v in self.columns.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"Records columns differ in length: {lengths}")
        if "trial" in self.columns:
            raise ValueError("Records columns must not contain 'trial'; the CLI writes it")


@dataclasses.dataclass
class Run:
    """One trial: its CSV values, its curves (with their rounds under "t"), its counters for the sidecar."""

    columns: dict
    curves: dict | None = None
    counters: dict | None = None


def as_trials(trials) -> np.ndarray:
    """An int n means trials 0..n-1; a range or a sequence of indices is taken as is."""
    if isinstance(trials, (int, np.integer)) and not isinstance(trials, bool):
        if trials < 1:
            raise UserError(f"trials must be at least 1, got {trials}")
        return np.arange(int(trials), dtype=np.int64)
    out = np.asarray(list(trials) if isinstance(trials, range) else trials, dtype=np.int64).reshape(-1)
    if out.size and out.min() < 0:
        raise UserError(f"trial indices must be >= 0, got {int(out.min())}")
    return out


class Algorithm:
    """The one run loop. Subclasses set the class attributes and implement `run` or `run_many`."""

    name = ""
    summary = ""
    kinds: tuple = ()
    defaults: dict = {}
    choices: dict = {}

    def __init__(self, instance, **options):
        self.options = parse_options(self, options)
        self.instance = instance
        self.setup()

    def setup(self) -> None:
        """Derived constants; refuse an instance or options the algorithm cannot run (a UserError)."""

    def run(self, seed: int, trial: int) -> Run:
        raise NotImplementedError(f"{type(self).__name__} implements neither run nor run_many")

    def info(self) -> dict:
        """Extra sidecar entries that do not depend on the trials (e.g. tuned constants)."""
        return {}

    def run_many(self, seed: int, trials: np.ndarray, progress=None) -> Records:
        columns: dict[str, list] = {}
        curves: dict[str, list] = {}
        counters: dict[str, int] = {}
        rounds = None
        for done, trial in enumerate(trials, 1):
            one = self.run(seed, int(trial))
            for k, v in one.columns.items():
                columns.setdefault(k, []).append(v)
            if one.curves:
                if rounds is None:
                    rounds = np.asarray(one.curves["t"])
                for k, v in one.curves.items():
                    if k != "t":
                        curves.setdefault(k, []).append(np.asarray(v))
            for k, v in (one.counters or {}).items():
                counters[k] = counters.get(k, 0) + int(v)
            if progress is not None:
                progress(done, len(trials))
        info = self.info()
        if counters:
            info = {**info, "round_counts": counters}
        curve_out = {"t": rounds, **{k: np.stack(v) for k, v in curves.items()}} if curves else None
        return Records(columns={k: np.asarray(v) for k, v in columns.items()}, curves=curve_out, info=info)

    def simulate(self, seed, trials, progress=None) -> Records:
        """Trials `trials` (an int n: trials 0..n-1; or a range / sequence of indices) from `seed`."""
        records = self.run_many(check_seed(seed, "the seed"), as_trials(trials), progress)
        return records
