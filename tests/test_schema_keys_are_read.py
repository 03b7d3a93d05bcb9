"""Every key the config schema accepts in an experiment is one the code reads: a key left in the
schema after the code stopped reading it (issue 35: `ablation_of`) would be accepted and silently
do nothing, where a key the schema does not declare is refused with one line naming it."""
import ast
from pathlib import Path

import yaml
from linbandits.study_config import read_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
EXPERIMENTS = REPO / "src" / "linbandits" / "experiments.py"     # what reads an experiment's row


def string_constants(path: Path) -> set[str]:
    return {node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def unread_experiment_keys(schema: dict, reader: Path) -> list[str]:
    """The keys of the schema's experiment definition that the reader never names."""
    keys = schema["definitions"]["experiment"]["properties"]
    return sorted(set(keys) - string_constants(reader))


def test_every_experiment_key_of_the_schema_is_read():
    assert unread_experiment_keys(yaml.safe_load(SCHEMA.read_text()), EXPERIMENTS) == []


def test_a_key_left_in_the_schema_is_found():
    schema = yaml.safe_load(SCHEMA.read_text())
    schema["definitions"]["experiment"]["properties"]["ablation_of"] = {"type": "string"}
    assert unread_experiment_keys(schema, EXPERIMENTS) == ["ablation_of"]


def test_a_retired_key_in_a_config_is_refused_in_one_line():
    from linbandits.errors import UserError
    from linbandits.validation import validate_config

    config = read_config(REPO / ".test" / "config" / "config.yaml")
    experiments = config["studies"]["p1rage"]["experiments"]
    experiments[next(iter(experiments))]["ablation_of"] = "soare_sto"
    try:
        validate_config(config, SCHEMA)
    except UserError as exc:
        message = str(exc)
    else:
        raise AssertionError("a config with `ablation_of` was accepted")
    assert "unknown key 'ablation_of'" in message and "\n" not in message
