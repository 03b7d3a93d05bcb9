"""The paper's instances by name, with settings that may arrive as command-line strings.

Each builder's keyword defaults are the published protocol; they are the
single table of defaults (read with inspect), so nothing here repeats them.
"""
from __future__ import annotations

import inspect
import numbers

from linbandits.errors import UserError, unknown_name
from linbandits.instances.base import NOISE_KINDS, Instance, load_instance_file, save_instance_file
from linbandits.instances.malicious import malicious
from linbandits.instances.multivariate import INDICATORS, SERIES, THETA_DRAWS, multi_osci, multi_sto
from linbandits.instances.soare import soare_osci, soare_sto

FAMILIES = {
    "soare_sto": soare_sto,
    "soare_osci": soare_osci,
    "malicious": malicious,
    "multi_sto": multi_sto,
    "multi_osci": multi_osci,
}

# Allowed values of the string settings, shown by describe_instances.
SETTING_CHOICES = {
    "noise": NOISE_KINDS,
    "series": tuple(SERIES),
    "indicator": INDICATORS,
    "theta_draw": THETA_DRAWS,
}

TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")

__all__ = ["FAMILIES", "Instance", "build_instance", "default_settings", "describe_instances",
           "load_instance_file", "save_instance_file"]


def default_settings(family: str) -> dict:
    """Setting name -> published default of one family."""
    if family not in FAMILIES:
        raise unknown_name("instance", family, FAMILIES)
    params = inspect.signature(FAMILIES[family]).parameters.values()
    return {p.name: p.default for p in params}


def build_instance(name: str, settings: dict | None = None) -> Instance:
    """Build family `name`; settings override defaults and may be strings ("2.5", "true")."""
    defaults = default_settings(name)
    settings = dict(settings or {})
    unknown = sorted(set(settings) - set(defaults))
    if unknown:
        raise UserError(f"instance {name}: unknown setting(s) {', '.join(unknown)}; "
                        f"valid settings are: {', '.join(defaults)}")
    coerced = {key: coerce_setting(name, key, value, defaults[key]) for key, value in settings.items()}
    return FAMILIES[name](**coerced)


def coerce_setting(family: str, key: str, value, default):
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
        raise UserError(f"instance {family}: setting {key}={value!r} is not a valid {kind.__name__} "
                        f"(expected {kind.__name__}, e.g. the default {key}={default!r})")
    return converted


def describe_instances() -> str:
    """One block per family: its summary line and settings with defaults (for --help)."""
    lines = ["instances (name: settings=default):"]
    for family, builder in FAMILIES.items():
        lines.append(f"  {family}: {inspect.getdoc(builder).splitlines()[0]}")
        for key, default in default_settings(family).items():
            choices = f"  one of {'|'.join(SETTING_CHOICES[key])}" if key in SETTING_CHOICES else ""
            lines.append(f"      {key}={default}  ({type(default).__name__}){choices}")
        if "series" in default_settings(family):
            for series, sweep in SERIES.items():
                lines.append(f"      series={series} allows s in {list(sweep['s'])} with L in {list(sweep['L'])}")
    lines.append("  or a file: X (K x d), thetas (T x d), noise_sd in an .npz (see load_instance_file)")
    return "\n".join(lines)
