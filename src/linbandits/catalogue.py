"""Every study's algorithms, instance families and instance kinds, by name.

Studies are found as the subpackages of linbandits.studies; each declares a
STUDY (linbandits.study.Study) whose entries are "module:attribute" strings,
imported only when asked for. Names are unique across the product: an
algorithm or family name says which study it belongs to.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import numbers
import pkgutil

import linbandits.studies
from linbandits.errors import UserError, unknown_name
from linbandits.study import Study

# Instance-file kinds that more than one study reads (linbandits.problems); a study's own are its Study.kinds.
SHARED_KINDS = {"linear": "linbandits.problems.linear:LinearInstance"}

TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


def resolve(target: str):
    """'package.module:attribute' -> the attribute."""
    module, _, attr = target.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


@functools.lru_cache(maxsize=None)
def studies() -> dict[str, Study]:
    found = {}
    for info in sorted(pkgutil.iter_modules(linbandits.studies.__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"linbandits.studies.{info.name}")
        study = getattr(module, "STUDY", None)
        if study is None:
            continue
        if study.name != info.name:
            raise UserError(f"study folder {info.name} declares STUDY.name {study.name!r}; they must agree")
        found[study.name] = study
    for what in ("algorithms", "families", "kinds", "commands"):
        owner = {}
        for study in found.values():
            for name in getattr(study, what):
                if name in owner or (what == "kinds" and name in SHARED_KINDS):
                    raise UserError(f"{what[:-1]} name {name!r} is declared by study {study.name} and by "
                                    f"{owner.get(name, 'the shared kinds')}; names must be unique")
                owner[name] = study.name
    return found


def study_of_algorithm(name: str) -> Study:
    for study in studies().values():
        if name in study.algorithms:
            return study
    # [user algorithms, issue 37] a user's own class, declared in the config or by an entry point
    from linbandits.user import algorithms as user_algorithms

    if user_algorithms.is_user_algorithm(name):
        return studies()[user_algorithms.study_name(name)]
    raise unknown_name("algorithm", name, algorithm_names())


def algorithm_names() -> list[str]:
    return [a for s in studies().values() for a in s.algorithms]


def algorithm_class(name: str):
    study = study_of_algorithm(name)
    if name not in study.algorithms:   # [user algorithms, issue 37]
        from linbandits.user import algorithms as user_algorithms

        return user_algorithms.algorithm_class(name)
    return resolve(study.algorithms[name])


def make_algorithm(name: str, instance, options: dict | None = None):
    """An algorithm on an instance; an instance of a kind it cannot run on is a UserError."""
    cls = algorithm_class(name)
    if instance.kind not in cls.kinds:
        raise UserError(f"algorithm {name} runs on {' or '.join(cls.kinds)} instances, but "
                        f"{instance.name} is a {instance.kind} instance")
    return cls(instance, **(options or {}))


def family_names() -> list[str]:
    return [f for s in studies().values() for f in s.families]


def study_of_family(name: str) -> Study:
    for study in studies().values():
        if name in study.families:
            return study
    raise unknown_name("instance", name, family_names())


def family(name: str):
    return resolve(study_of_family(name).families[name])


def instance_kinds() -> dict:
    """Kind name -> class, for every kind any study reads."""
    return {kind: resolve(target) for kind, target in kind_targets().items()}


def kind_targets() -> dict:
    """Kind name -> "module:attribute" of its class, for every kind any study reads (nothing imported)."""
    targets = dict(SHARED_KINDS)
    for study in studies().values():
        targets.update(study.kinds)
    return targets


def commands() -> dict[str, tuple[str, str]]:
    return {name: spec for s in studies().values() for name, spec in s.commands.items()}


# ------------------------------------------------------------------ instances

def default_settings(name: str) -> dict:
    """Setting name -> published default of one instance family."""
    params = inspect.signature(family(name)).parameters.values()
    return {p.name: p.default for p in params}


def build_instance(name: str, settings: dict | None = None):
    """Build family `name`; settings override defaults and may be strings ("2.5", "true")."""
    defaults = default_settings(name)
    settings = dict(settings or {})
    unknown = sorted(set(settings) - set(defaults))
    if unknown:
        raise UserError(f"instance {name}: unknown setting(s) {', '.join(unknown)}; "
                        f"valid settings are: {', '.join(defaults)}")
    coerced = {key: coerce_setting(name, key, value, defaults[key]) for key, value in settings.items()}
    return family(name)(**coerced)


def coerce_setting(family_name: str, key: str, value, default):
    """Convert value to the type of default, or raise a UserError naming key, value and type."""
    kind = type(default)
    text = value.strip() if isinstance(value, str) else None
    converted = None
    if kind is bool:
        if isinstance(value, bool):
            converted = value
        elif text is not None and text.lower() in TRUE_WORDS + FALSE_WORDS:
            converted = text.lower() in TRUE_WORDS
    elif kind is int:
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            converted = int(value)
        elif isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer():
            converted = int(value)      # 1800.0 from a YAML/JSON file means 1800
        elif text is not None:
            try:
                converted = int(text)
            except ValueError:
                pass
    elif kind is float:
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            converted = float(value)
        elif text is not None:
            try:
                converted = float(text)
            except ValueError:
                pass
    elif kind is str and isinstance(value, str):
        converted = text
    if converted is None:
        raise UserError(f"instance {family_name}: setting {key}={value!r} is not a valid {kind.__name__} "
                        f"(expected {kind.__name__}, e.g. the default {key}={default!r})")
    if is_seed_setting(key) and kind is int:
        check_seed_setting(family_name, key, value, converted, default)
    return converted


def check_seed_setting(family_name: str, key: str, value, seed: int, default) -> None:
    """A seed setting is a non-negative integer, below the family's study's `seed_limit` if it declares one."""
    limit = study_of_family(family_name).seed_limit if family_name in family_names() else None
    if seed < 0 or (limit is not None and seed >= limit):
        allowed = (f"from 0 to {describe_limit(limit - 1)} (numpy's seeding rule for this family's generator)"
                   if limit is not None else "from 0 up (numpy's SeedSequence takes non-negative integers)")
        raise UserError(f"instance {family_name}: setting {key}={value!r} is not a valid seed; seeds are integers "
                        f"{allowed}, e.g. the default {key}={default!r}")


def describe_limit(n: int) -> str:
    """2**32 - 1 rather than 4294967295, where n is one less than a power of two."""
    return f"2**{(n + 1).bit_length() - 1} - 1" if n > 0 and (n + 1) & n == 0 else str(n)


def is_seed_setting(key: str) -> bool:
    """A setting that seeds a generator (`seed`, `arm_seed`, ...): a non-negative integer (check_seed_setting)."""
    return key == "seed" or key.endswith("_seed")


# ---------------------------------------------------------------------- help

def describe_instances() -> str:
    """One block per family: its summary line and settings with defaults (for --help)."""
    lines = ["instances (name: settings=default), by study:"]
    for study in studies().values():
        for name in study.families:
            builder = family(name)
            lines.append(f"  {name} [{study.name}]: {(inspect.getdoc(builder) or '').splitlines()[0]}")
            choices = getattr(builder, "setting_choices", {})
            for key, default in default_settings(name).items():
                allowed = f"  one of {'|'.join(map(str, choices[key]))}" if key in choices else ""
                lines.append(f"      {key}={default}  ({type(default).__name__}){allowed}")
            for note in getattr(builder, "setting_notes", ()):
                lines.append(f"      {note}")
    lines.append("  or --instance-file F.npz of one of these kinds:")
    for kind, cls in instance_kinds().items():
        optional = f" (optional: {', '.join(cls.optional)})" if cls.optional else ""
        lines.append(f"      {kind}: {', '.join(cls.required)}{optional}")
    return "\n".join(lines)


def describe_algorithms() -> str:
    lines = ["algorithms (name [study]: options=default), by study:"]
    for study in studies().values():
        for name in study.algorithms:
            cls = algorithm_class(name)
            opts = ", ".join(f"{k}={v}" for k, v in cls.defaults.items()) or "none"
            lines.append(f"  {name} [{study.name}, {'/'.join(cls.kinds)} instances]: {cls.summary}")
            lines.append(f"      options: {opts}")
    return "\n".join(lines)
