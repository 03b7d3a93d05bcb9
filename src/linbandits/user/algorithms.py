"""A user's own algorithm beside a study's: declared, loaded, checked before any job, run by the same rules.

Declared in the config's top-level `extra_algorithms` (study -> {name: target or {class, experiments,
options}}) or by an installed package under the entry-point group `linbandits.algorithms` (the entry's
name is the algorithm's name, its value "module:Class"; the class names its study in a `study`
attribute). A target is "package.module:Class" or "path/to/file.py:Class" (a path relative to the
directory the workflow runs in).

The class is a subclass of `linbandits.study.Algorithm` with the study's interface: `kinds` including
the kind of the instances of every experiment it runs, `run(seed, trial)` or
`run_many(seed, trials, progress)` returning the columns the study's products read (`Study.columns`).
It joins every published experiment of its study (not the switch runs, which re-judge the paper's
claims under a protocol choice), or only those its entry lists (a switch run listed by name: it is
compared there too, linbandits.user.comparison), on the same job seeds as the paper's
algorithms: trial i of a setting draws from the same stream index for every algorithm (paired
comparisons). Its runs are simulate jobs of their own, never shared with the paper's algorithms
(linbandits.jobs), so its failure leaves their files alone.

Checked before any job by linbandits.user.checks (the workflow's config validation).

Nothing here lives only in memory across processes: a simulate job is told the class by its plan
(linbandits.jobs; `linbandits simulate` by hand: `--user-algorithm STUDY/NAME=TARGET`), the products by
the config snapshot they read.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path

from linbandits.errors import UserError

ENTRY_POINT_GROUP = "linbandits.algorithms"
CONFIG_KEY = "extra_algorithms"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

# name -> (study, target) of the user algorithms this process knows of (from a config it read or a
# simulate command's --user-algorithm); the catalogue asks here for a name that no study declares.
_KNOWN: dict[str, tuple[str, str]] = {}
_CLASSES: dict[str, type] = {}
_ORDER: dict[str, int] = {}


@dataclasses.dataclass(frozen=True)
class Declared:
    study: str
    name: str
    target: str
    experiments: tuple | None      # None: every published experiment of the study
    options: dict
    source: str                    # where it was declared, for messages


@functools.lru_cache(maxsize=None)
def entry_points() -> tuple:
    """The installed entry points of the group (read once per process)."""
    from importlib.metadata import entry_points as found

    return tuple(found(group=ENTRY_POINT_GROUP))


def declared(config) -> dict[str, Declared]:
    """Every user algorithm of a config (its `extra_algorithms`, then installed entry points), by name."""
    out: dict[str, Declared] = {}
    for study, entries in ((config or {}).get(CONFIG_KEY) or {}).items():
        for name, spec in (entries or {}).items():
            where = f"config: {CONFIG_KEY}/{study}/{name}"
            if isinstance(spec, str):
                spec = {"class": spec}
            if not isinstance(spec, dict) or not isinstance(spec.get("class"), str):
                raise UserError(f"{where}: give the class as \"package.module:Class\" or \"path/file.py:Class\" "
                                f"(or a mapping with `class:` and optionally `experiments:` and `options:`)")
            if name in out:
                raise UserError(f"{where}: algorithm {name} is declared under studies {out[name].study} and {study}; "
                                f"give one of them another name")
            exps = spec.get("experiments")
            out[name] = Declared(study, str(name), spec["class"], None if exps is None else tuple(exps),
                                 dict(spec.get("options") or {}), where)
    for ep in entry_points():
        if ep.name in out:          # the config's entry (e.g. restricted to some experiments) wins
            continue
        where = f"entry point {ENTRY_POINT_GROUP}: {ep.name} = {ep.value}"
        cls = _import(ep.name, ep.value, where)
        study = getattr(cls, "study", None)
        if not isinstance(study, str):
            raise UserError(f"{where}: the class sets no `study` attribute; add study = \"<study>\" to {ep.value} "
                            f"(the study whose experiments it runs)")
        out[ep.name] = Declared(study, ep.name, ep.value, None, {}, where)
    for d in out.values():
        register(d.name, d.target, d.study)
    _ORDER.clear()
    _ORDER.update({name: i for i, name in enumerate(out)})
    return out


def register(name: str, target: str, study: str = "") -> None:
    """Make a user algorithm known to this process (a simulate command's --user-algorithm)."""
    if _KNOWN.get(name) != (study, target):
        _KNOWN[name] = (study, target)
        _CLASSES.pop(name, None)


def is_user_algorithm(name: str) -> bool:
    return name in _KNOWN


def order(name: str) -> int:
    """The place of a user algorithm in the order the config (last read) declares them (its figure style)."""
    return _ORDER.get(name, list(_KNOWN).index(name))


def target_of(name: str) -> str:
    """The class of a known user algorithm, as declared (what a simulate job's plan names)."""
    return _KNOWN[name][1]


def study_name(name: str) -> str:
    """The study of a known user algorithm (from its declaration, else from its class)."""
    study, _ = _KNOWN[name]
    return study or getattr(algorithm_class(name), "study", "")


def algorithm_class(name: str) -> type:
    """The class of a known user algorithm, imported once, named `name` (its series and files' name)."""
    if name not in _CLASSES:
        study, target = _KNOWN[name]
        cls = _import(name, target, f"algorithm {name} ({target})")
        if getattr(cls, "name", None) != name:
            cls = type(cls.__name__, (cls,), {"name": name, "__module__": cls.__module__})
        _CLASSES[name] = cls
    return _CLASSES[name]


def _import(name: str, target: str, where: str) -> type:
    module_part, sep, attr = target.rpartition(":")
    if not sep or not module_part or not attr:
        raise UserError(f"{where}: {target!r} is not \"package.module:Class\" or \"path/file.py:Class\"; "
                        f"name the module (or file) and the class, separated by ':'")
    try:
        if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
            module = _load_file(module_part, where)
        else:
            module = importlib.import_module(module_part)
    except UserError:
        raise
    except Exception as exc:  # the user's module: any error it raises on import is theirs to fix
        raise UserError(f"{where}: importing {module_part} failed ({type(exc).__name__}: {exc}); fix the module "
                        f"(run `python -c \"import ...\"` on it to see the traceback)") from None
    cls = getattr(module, attr, None)
    if cls is None:
        raise UserError(f"{where}: {module_part} has no attribute {attr!r}; name a class it defines")
    return cls


def _load_file(path: str, where: str):
    file = Path(path)
    if not file.is_file():
        raise UserError(f"{where}: no file {path} (from {Path.cwd()}); give the path relative to the directory the "
                        f"workflow runs in, or an absolute path")
    digest = hashlib.sha256(str(file.resolve()).encode()).hexdigest()[:10]
    module_name = f"linbandits_user_{re.sub(r'[^A-Za-z0-9_]', '_', file.stem)}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        with own_numba_cache(file):
            spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def numba_cache_dir() -> Path:
    """Where the numba functions of user files loaded here keep their cache (`cache=True`)."""
    home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(home) / "linbandits" / "numba"


@contextlib.contextmanager
def own_numba_cache(file: Path):
    """Numba functions of a user file defined with `cache=True` keep their cache in numba_cache_dir(), not
    in the __pycache__ beside the file. Numba names a cache entry by the file (not the module) and, on
    loading it, imports the module it was compiled in by name: an entry written by `import mine` would
    make the loader here (module linbandits_user_mine_<digest>) fail on `import mine`, and an entry
    written here would make a later `import mine` fail the same way. Separate caches never meet."""
    if b"numba" not in file.read_bytes():     # a file that never names numba defines no numba function
        yield
        return
    import numba.core.config as numba_config

    before = numba_config.CACHE_DIR
    numba_config.CACHE_DIR = str(numba_cache_dir())
    try:
        yield
    finally:
        numba_config.CACHE_DIR = before


# ---------------------------------------------------------------- where they run

def joins(d: Declared, experiment: str, row: dict) -> bool:
    """Whether user algorithm `d` runs in an experiment row of its study: every published experiment,
    or those its entry lists (a switch run only when listed by name)."""
    if d.experiments is not None:
        return experiment in d.experiments
    return not row.get("switch_of")


def extra_for(config, study: str, experiment: str, row: dict, study_options=None) -> tuple[tuple, dict]:
    """(names, options by name) of the user algorithms that run in one experiment row. Options as a paper
    algorithm's: the declared ones, under the study's `options:` for it, under the row's (a switch row's
    merged in already)."""
    names, options = [], {}
    row_options = row.get("options") or {}
    for d in declared(config).values():
        if d.study == study and joins(d, experiment, row):
            names.append(d.name)
            options[d.name] = {**d.options, **(study_options or {}).get(d.name, {}), **row_options.get(d.name, {})}
    return tuple(names), options


def register_flag(value: str) -> str:
    """`STUDY/NAME=TARGET` (a simulate command's --user-algorithm) -> NAME, now known to this process."""
    head, sep, target = value.partition("=")
    study, slash, name = head.partition("/")
    if not (sep and slash and study and name and target):
        raise UserError(f"--user-algorithm {value!r} is not STUDY/NAME=TARGET (e.g. p1rage/Uniform=mymod:Uniform)")
    register(name, target, study)
    return name


def user_algorithms_of(names) -> list[str]:
    return [n for n in names if is_user_algorithm(n)]


# ---------------------------------------------------------------- checked in the job

def check_records(name: str, records, n_trials: int, expected: tuple, job: str) -> None:
    """What a user algorithm's run returned, before anything is written: one line naming it and the job."""
    import numpy as np

    from linbandits.study import Records

    if not isinstance(records, Records):
        raise UserError(f"user algorithm {name} in {job}: run_many returned {type(records).__name__}, not "
                        f"linbandits.study.Records; return Records(columns={{...}})")
    columns = records.columns
    missing = [c for c in expected if c not in columns]
    if missing:
        raise UserError(f"user algorithm {name} in {job}: its runs lack the column(s) {', '.join(missing)} that "
                        f"the study's products read (it returned {', '.join(columns) or 'none'}); return "
                        f"Run(columns={{{', '.join(repr(c) + ': ...' for c in expected)}}})")
    for key, values in columns.items():
        arr = np.asarray(values)
        if arr.shape != (n_trials,):
            raise UserError(f"user algorithm {name} in {job}: column {key!r} has shape {arr.shape}, not "
                            f"({n_trials},) (one number per run); return one scalar per run")
        if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool) or not np.all(np.isfinite(arr.astype(float))):
            raise UserError(f"user algorithm {name} in {job}: column {key!r} holds values that are not finite "
                            f"numbers; return one finite number per run")


def simulate_checked(algorithm, seed: int, trials, progress, expected: tuple, where: str):
    """A user algorithm's runs of one cell; an exception inside it or runs of the wrong shape are one
    UserError naming the algorithm and the job's cell (nothing of the cell is written)."""
    name = algorithm.name
    try:
        records = algorithm.simulate(seed, trials, progress=progress)
    except UserError as exc:
        raise UserError(f"user algorithm {name} in {where}: {exc}") from None
    except Exception as exc:  # the user's code: any failure is reported, one line, as theirs
        import traceback

        frames = traceback.extract_tb(exc.__traceback__)
        if isinstance(exc, ModuleNotFoundError) and any("numba" in f.filename and "caching" in f.filename
                                                        for f in frames):
            raise UserError(f"user algorithm {name} failed in {where}: numba's cache of a cache=True function "
                            f"({exc}) was written under another module name; delete the __pycache__ folder "
                            f"beside the file that defines it, or make {numba_cache_dir()} writable") from None
        frame = frames[-1]
        raise UserError(f"user algorithm {name} failed in {where}: {type(exc).__name__}: {exc} (at "
                        f"{Path(frame.filename).name}:{frame.lineno}); fix its run method") from None
    check_records(name, records, len(trials), expected, where)
    return records
