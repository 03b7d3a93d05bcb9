"""A run's config is each study's own defaults under the user's sections (linbandits.study_config)."""
from pathlib import Path

import pytest
import yaml

from linbandits import catalogue, study_config
from linbandits.errors import UserError
from linbandits.study_config import deep_merge, read_config, with_study_defaults

REPO = Path(__file__).resolve().parents[1]


def test_mappings_merge_key_by_key_and_other_values_replace():
    base = {"a": 1, "m": {"x": 1, "y": {"p": 1, "q": 2}}, "l": [1, 2, 3]}
    over = {"m": {"y": {"q": 5}, "z": 3}, "l": [9], "b": 2}
    merged = deep_merge(base, over)
    assert merged == {"a": 1, "m": {"x": 1, "y": {"p": 1, "q": 5}, "z": 3}, "l": [9], "b": 2}
    assert list(merged) == ["a", "m", "l", "b"]            # the defaults' order first
    assert base == {"a": 1, "m": {"x": 1, "y": {"p": 1, "q": 2}}, "l": [1, 2, 3]}   # inputs untouched
    assert deep_merge({"m": {"x": 1}}, {"m": 2}) == {"m": 2}         # a non-mapping replaces a mapping


def test_a_key_set_to_null_is_removed():
    """The one way to drop a default experiment or figure: `experiments: {soare_period: null}`."""
    base = {"experiments": {"a": {"trials": 1}, "b": {"trials": 2}}, "figures": {"f": {}}}
    merged = deep_merge(base, {"experiments": {"b": None, "c": {"trials": 3}}, "figures": None, "gone": None})
    assert merged == {"experiments": {"a": {"trials": 1}, "c": {"trials": 3}}}


def test_a_section_overrides_one_key_and_keeps_the_rest():
    config = {"seed": 1, "chunk_size": 5, "studies": {"oam": {"experiments": {"oam_bounded": {"trials": 7}}}}}
    merged = with_study_defaults(config)
    defaults = study_config.study_defaults("oam")
    oam = merged["studies"]["oam"]
    assert oam["experiments"]["oam_bounded"]["trials"] == 7
    assert oam["experiments"]["oam_bounded"]["instance"] == defaults["experiments"]["oam_bounded"]["instance"]
    assert oam["figures"] == defaults["figures"] and oam["enabled"] is True
    # every other study is there with its defaults, after the named one
    assert list(merged["studies"]) == ["oam", *[s for s in catalogue.studies() if s != "oam"]]
    assert merged["studies"]["p1rage"] == study_config.study_defaults("p1rage")
    assert "studies" not in config or config["studies"] == {"oam": {"experiments": {"oam_bounded": {"trials": 7}}}}


def test_add_limits_the_studies_included_with_their_defaults():
    merged = with_study_defaults({"seed": 1, "studies": {"oam": {"enabled": False}}}, add=["swucb"])
    assert list(merged["studies"]) == ["oam", "swucb"] and merged["studies"]["oam"]["enabled"] is False


def test_the_test_defaults_are_each_studys_tiny_section():
    merged = read_config(REPO / ".test/config/config.yaml")
    for study in catalogue.studies():
        tiny = yaml.safe_load(study_config.defaults_file(study, "test").read_text())
        assert merged["studies"][study] == tiny
        assert tiny != study_config.study_defaults(study)


def test_the_user_config_names_no_experiment_of_its_own():
    """config/config.yaml keeps the top-level keys and `enabled` per study: the protocol is the studies'."""
    user = yaml.safe_load((REPO / "config/config.yaml").read_text())
    assert all(set(section) <= {"enabled"} for section in user["studies"].values())
    assert "studies" not in yaml.safe_load((REPO / ".test/config/config.yaml").read_text())


def test_a_study_without_its_tiny_section_is_named(monkeypatch, tmp_path):
    real = study_config.defaults_file

    def missing_test_file(study, which="published"):
        return tmp_path / "config.test.yaml" if which == "test" and study == "oam" else real(study, which)

    monkeypatch.setattr(study_config, "defaults_file", missing_test_file)
    with pytest.raises(UserError, match="study oam has no config.test.yaml"):
        with_study_defaults({"study_defaults": "test"})


def test_a_shallow_merge_would_lose_the_defaults(monkeypatch):
    """Planted bug: a section replacing the study's section whole (dict.update) loses its experiments."""
    monkeypatch.setattr(study_config, "deep_merge", lambda base, over: {**base, **over})
    with pytest.raises(KeyError, match="instance"):     # oam_bounded kept only its trials
        test_a_section_overrides_one_key_and_keeps_the_rest()


def test_a_snapshot_is_read_as_it_is():
    """results/<study>/config.yaml is merged already (`study_defaults: merged`): merging it again would
    put back what the user's config removed (an experiment set to null)."""
    user = {"seed": 1, "studies": {"oam": {"experiments": {"oam_fixed_u01": None}}}}
    merged = with_study_defaults(user, add=[])
    assert "oam_fixed_u01" not in merged["studies"]["oam"]["experiments"]
    snapshot = {**merged, "study_defaults": study_config.MERGED}
    assert with_study_defaults(snapshot) == snapshot
    again = with_study_defaults({**merged, "study_defaults": "published"}, add=[])      # the planted re-merge
    assert "oam_fixed_u01" in again["studies"]["oam"]["experiments"]
