"""Algorithm options: defaults declared by the class, values that may arrive as strings.

Every algorithm of every study declares `defaults` (option -> default value)
and may declare `choices` (option -> allowed values); `parse_options` turns
`--option K=V` strings into values of the default's type, or raises one
UserError naming the option and the valid ones.
"""
from __future__ import annotations

from linbandits.errors import UserError

TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")


def parse_options(algo, options: dict) -> dict:
    out = dict(algo.defaults)
    for key, raw in options.items():
        if key not in algo.defaults:
            valid = ", ".join(f"{k} (default {v})" for k, v in algo.defaults.items()) or "none"
            raise UserError(f"{algo.name} has no option {key!r}; its options are: {valid}")
        default = algo.defaults[key]
        out[key] = coerce(raw, default, f"{algo.name} option {key}")
        allowed = getattr(algo, "choices", {}).get(key)
        if allowed is not None and out[key] not in allowed:
            raise UserError(f"{algo.name} option {key}={out[key]!r} is not allowed; "
                            f"choose one of {', '.join(map(str, allowed))}")
    return out


def coerce(raw, default, what: str):
    """raw (a string from the command line, or a YAML value) as the type of default.

    A default of None accepts a number or the word 'none'.
    """
    if not isinstance(raw, str):
        if isinstance(default, float) and isinstance(raw, int) and not isinstance(raw, bool):
            return float(raw)
        return raw
    text = raw.strip()
    try:
        if isinstance(default, bool):
            if text.lower() in TRUE_WORDS:
                return True
            if text.lower() in FALSE_WORDS:
                return False
            raise ValueError
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
        if default is None:
            if text.lower() == "none":
                return None
            number = float(text)
            return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    except ValueError:
        kind = "number or 'none'" if default is None else type(default).__name__
        raise UserError(f"{what}: {raw!r} is not a valid {kind}") from None
    return text
