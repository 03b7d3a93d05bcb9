"""A run's config: the user's file over each study's own defaults.

Each study folder holds its default section: `studies/<study>/config.yaml` (the published
protocol) and `studies/<study>/config.test.yaml` (the tiny CI section, read instead when the
config says `study_defaults: test`). The user's `config/config.yaml` keeps the top-level keys and,
per study, only what it changes; `with_study_defaults` deep-merges the user's section over the
study's defaults (mappings merge key by key, a key set to null is removed, any other value replaces) before the config is
validated. A study the user's config does not name is included with its defaults (which enable
it), after the named ones in alphabetical order. The workflow (rules/common.smk) and
`linbandits products --config` both read configs through here, so they see the same sections.
"""
from __future__ import annotations

import copy
from pathlib import Path

from linbandits import catalogue
from linbandits.errors import UserError
from linbandits.yamlfile import read_yaml

# study_defaults: which file of the study folder holds its defaults
DEFAULTS_FILES = {"published": "config.yaml", "test": "config.test.yaml"}
# A run's snapshot (results/<study>/config.yaml) says `study_defaults: merged`: its sections are merged
# already and are read as they are (merging again would restore what the user's config removed).
MERGED = "merged"


def deep_merge(base, over):
    """`over` on top of `base`: mappings merge key by key (base's key order first), a key set to null
    (None) in `over` is removed (the one way to drop, e.g., an experiment or a figure of the defaults),
    anything else replaces."""
    if not (isinstance(base, dict) and isinstance(over, dict)):
        return copy.deepcopy(over)
    out = copy.deepcopy(base)
    for key, value in over.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = deep_merge(base[key], value) if key in base else copy.deepcopy(value)
    return out


def defaults_file(study: str, which: str = "published") -> Path:
    """src/linbandits/studies/<study>/config.yaml (or config.test.yaml with `which: test`)."""
    if which not in DEFAULTS_FILES:
        raise UserError(f"config: study_defaults = {which!r} is not allowed; choose one of "
                        f"{', '.join(DEFAULTS_FILES)}")
    module = catalogue.resolve(f"linbandits.studies.{study}")
    return Path(module.__file__).with_name(DEFAULTS_FILES[which])


def study_defaults(study: str, which: str = "published") -> dict | None:
    """The study's default section, or None when its folder has no defaults file (a study that
    only the user's config describes)."""
    path = defaults_file(study, which)
    if not path.exists():
        if which != "published" and defaults_file(study, "published").exists():
            raise UserError(f"study {study} has no {path.name} beside its config.yaml (study_defaults: {which}); "
                            f"add src/linbandits/studies/{study}/{path.name}, the study's tiny section")
        return None
    section = read_yaml(path, f"study {study}'s defaults")
    if not isinstance(section, dict):
        raise UserError(f"{path} is not a mapping of keys (a study's default config section)")
    return section


def with_study_defaults(config: dict, add=None) -> dict:
    """The config with every study section merged over its study's defaults (a snapshot, marked
    `study_defaults: merged`, as it is).

    `add`: the studies to include with their defaults where the config does not name them (None:
    every study found). The user's file is not checked here: a section that is not a mapping is
    left as is, for the schema to name."""
    config = dict(config)
    which = config.get("study_defaults", "published")
    if which == MERGED:
        return config
    user = config.get("studies")
    if user is None:
        user = {}
    if not isinstance(user, dict):
        return config
    known = catalogue.studies()
    names = list(user) + [s for s in known if s not in user and (add is None or s in add)]
    merged = {}
    for study in names:
        section = user.get(study) or {}
        defaults = study_defaults(study, which) if study in known and isinstance(section, dict) else None
        if defaults is None:
            if study in user:
                merged[study] = user[study]
            continue
        merged[study] = deep_merge(defaults, section)
    config["studies"] = merged
    return config


def read_config(path, add=None) -> dict:
    """A config file with its studies' defaults merged in (with_study_defaults)."""
    config = read_yaml(path, "config")
    if not isinstance(config, dict):
        raise UserError(f"config {path} is not a mapping of keys")
    return with_study_defaults(config, add)
