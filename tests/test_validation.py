"""linbandits.validation: a bad config is one line naming the key and what is allowed, before any job
(the dry run's view: tests/test_bad_input_refused_early.py)."""
import pytest

from linbandits import paths, validation
from linbandits.errors import UserError
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"


@pytest.mark.parametrize("mutate, message", [
    (lambda c: c.update(chunk_sise=3), "unknown key 'chunk_sise'"),
    (lambda c: c["studies"]["p1rage"]["experiments"]["malicious"].update(trials="x"), "wrong type"),
    (lambda c: c["r6a"].update(source="web"), "choose one of synthetic, r6a"),
    (lambda c: c["studies"]["p1rage"].update(experimentz={}), "unknown key 'experimentz' at studies/p1rage"),
    (lambda c: c["studies"]["p1rage"]["yahoo"].update(pca="global"), "studies/p1rage/yahoo/pca"),
    # the figure `kind:` is retired: a config that still says it is refused in one line
    (lambda c: c["studies"]["p1rage"]["figures"]["fig4_malicious"].update(kind="bars"), "unknown key 'kind'"),
    (lambda c: c["studies"]["p1rage"]["figures"]["fig4_malicious"].update(caption="fig4.rst"), "caption"),
    (lambda c: c["studies"].update(nosuchpaper=c["studies"]["p1rage"]), "nosuchpaper is not a study"),
    (lambda c: c["studies"]["p1rage"].update(algorithms=["G-BAI", "P2-RAGE"]), "unknown algorithm 'P2-RAGE'"),
    (lambda c: c["studies"]["p1rage"]["experiments"]["malicious"].update(instance="evil"), "unknown instance 'evil'"),
])
def test_bad_config_names_the_problem(config, mutate, message):
    mutate(config)
    with pytest.raises(UserError, match=message):
        validation.validate_config(config, SCHEMA)


@pytest.mark.parametrize("given, expected", [("true", True), ("True", True), ("false", False), (True, True)])
def test_preview_switch_from_the_command_line(config, given, expected):
    # `--config preview=true` arrives as the string 'true'
    config["preview"] = given
    validation.validate_config(config, SCHEMA)
    assert config["preview"] is expected
    assert paths.prefix(config) == ("preview/" if expected else "")


def test_a_misspelled_boolean_is_still_refused(config):
    config["preview"] = "yes please"
    with pytest.raises(UserError, match="preview"):
        validation.validate_config(config, SCHEMA)
