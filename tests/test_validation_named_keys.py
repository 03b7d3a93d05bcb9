"""Every experiment a product reads is a key of the study's config, checked before any job (issue 48):
renaming an experiment everywhere but in one such key (Theorem 1's, the published cells' roles, Table 1's
columns, the tuning grid's, a figure's series) stops validation with one line naming that key; so do a
claim or a choice that a key names and the study does not have, and a figure's series that no panel
draws. Planted: with the check of the named keys switched off, the renamed experiment passes silently."""
from pathlib import Path

import pytest

from linbandits import validation
from linbandits.errors import UserError
from linbandits.study_config import read_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
CONFIG = REPO / "config" / "config.yaml"


def renamed(section, old: str, new: str, keep: tuple):
    """The study section with experiment `old` (and its switch runs `old__*`) called `new` everywhere: its
    row, every value and every mapping key that names it, but at the path `keep`."""
    def name(value):
        if value == old:
            return new
        if isinstance(value, str) and value.startswith(old + "__"):
            return new + value[len(old):]
        return value

    def walk(node, path):
        if path == keep or path[-1:] == ("instance",):     # (an instance family may share its name)
            return node
        if isinstance(node, dict):
            return {name(k): walk(v, (*path, k)) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, (*path, k)) for k, v in enumerate(node)]
        return name(node)

    return walk(section, ())


CASES = [
    ("p1rage", "soare_sto", ("theorem1", "experiment")),
    ("p1rage", "yahoo_repeat", ("published", "r6a")),
    ("p1rage", "soare_sto", ("published", "three_runs")),
    ("lingape", "exp1_soare", ("table1", "columns", "LinGapE", 0)),
    ("opkb", "opkb_env1", ("tuning", "experiment")),
    ("opkb", "opkb_env2", ("figures", "opkb_fig1", "series")),
    ("oam", "oam_fixed_u01", ("figures", "fig_switch_long", "series")),
]


def validate(config):
    validation.validate_config(config, SCHEMA)


@pytest.mark.parametrize("study, old, keep", CASES, ids=[f"{s}-{'/'.join(map(str, k))}" for s, _, k in CASES])
def test_a_renamed_experiment_is_one_line_naming_the_key_that_still_names_it(study, old, keep):
    config = read_config(CONFIG)
    validate(config)          # the repository's config passes
    config["studies"][study] = renamed(config["studies"][study], old, old + "_renamed", keep)
    with pytest.raises(UserError) as caught:
        validate(config)
    message = str(caught.value)
    assert "\n" not in message and f"studies/{study}/{'/'.join(map(str, keep))}" in message, message
    assert f"{old!r} is not an experiment of {study}" in message, message


@pytest.mark.parametrize("key, value, expected", [
    ("claim", "C9", "studies/swucb/reference/claim = 'C9' is not a claim of swucb; its claims are: C1, C2"),
    ("choice", "windows", "studies/swucb/reference/choice = 'windows' is not a choice of swucb"),
])
def test_a_claim_or_choice_a_key_names_must_be_the_studys(key, value, expected):
    config = read_config(CONFIG)
    config["studies"]["swucb"]["reference"][key] = value
    with pytest.raises(UserError, match=expected):
        validate(config)


def test_a_series_no_panel_draws_is_one_line():
    """OPKB Fig. 1b without the paper's window 3000 among its dashed series, which its series name."""
    config = read_config(CONFIG)
    panel = config["studies"]["opkb"]["figures"]["opkb_fig1"]["panels"][1]
    panel["dashed"] = [n for n in panel["dashed"] if n != "opkb_env2__w3000"]
    with pytest.raises(UserError, match="figures/opkb_fig1/series names opkb_env2__w3000, which no panel of the "
                                        "figure draws") as caught:
        validate(config)
    assert "\n" not in str(caught.value)


def test_planted_unchecked_keys_let_a_renamed_experiment_through(monkeypatch):
    monkeypatch.setattr(validation, "check_named_keys", lambda *args: None)
    config = read_config(CONFIG)
    config["studies"]["p1rage"] = renamed(config["studies"]["p1rage"], "soare_sto", "soare_sto_renamed",
                                          ("theorem1", "experiment"))
    validate(config)          # accepted: Theorem 1's figure would have read an experiment that is not there
