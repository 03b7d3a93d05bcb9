"""What a study (one paper) declares, and what its runs return.

A study is the package `linbandits.studies.<name>`; its `__init__` defines
`STUDY = Study(...)`. Algorithms, instance families and instance-file kinds
are named by "module:attribute" strings and imported only when used, so
`linbandits simulate` pays only for the study whose algorithm it runs.

Contracts (checked by tests/test_catalogue.py for every study):

- Algorithm class: `name`, `summary` (one line), `kinds` (tuple of the
  instance kinds it accepts), `defaults` / `choices` (options, parsed by
  linbandits.options.parse_options in __init__(instance, **options), kept in
  `self.options`), and `simulate(seed, trials, progress=None) -> Records`.
  Run i of a call depends only on (seed, trials[i]): chunking never changes
  a number.
- Instance kind class: `kind` (its name), `required` / `optional` (the .npz
  arrays that declare it), `file_settings` (the --setting keys allowed with
  --instance-file), `from_arrays(arrays, name, meta, settings, where)`,
  `to_arrays()`, `summary()` (JSON-able), and attributes `name`, `meta`.
- Instance family: a function whose keyword defaults are the published
  settings (read with inspect; --setting strings are coerced to their type)
  and whose docstring's first line describes it; returns an instance.
"""
from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Study:
    name: str
    paper: str
    algorithms: dict            # algorithm name -> "module:Class"
    families: dict = dataclasses.field(default_factory=dict)   # family name -> "module:function"
    kinds: dict = dataclasses.field(default_factory=dict)      # instance-file kind -> "module:Class"
    commands: dict = dataclasses.field(default_factory=dict)   # CLI subcommand -> ("module:function", help)
    # True when its simulate jobs also write per-round curves (--curves F.npz).
    curves: bool = False
    # True when every `ablation_of` experiment gets an automatic figure beside
    # its published experiment (drawn by the study's own figure command).
    ablation_figures: bool = False


@dataclasses.dataclass
class Records:
    """What `simulate` returns for the runs it was given, in their order.

    columns: per-run columns of the CSV after `trial`, in CSV order; integer
        arrays are written as integers, floats at full precision.
    curves: optional per-run curves, e.g. {"t": rounds (G,), "regret": (n, G)};
        written by `linbandits simulate --curves F.npz`.
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
