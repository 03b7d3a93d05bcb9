"""linbandits.yamlfile: a YAML file's content, or one UserError naming what the file is, the file, what is
wrong (a YAML mistake by line and column) and what to do; only a config's remedy points at
results/<study>/config.yaml. (The CLI's one line for a config that is a directory, not text or not YAML:
tests/test_atomic.py.) Planted bugs: yaml's own exception let through, the config's remedy given for every file."""
import pytest
import yaml
from plain_source import plain

from linbandits import yamlfile
from linbandits.errors import UserError


def said(read_yaml, path, what):
    try:
        return read_yaml(path, what)
    except UserError as exc:
        return str(exc)


def test_the_content_or_one_line_naming_the_file_and_the_mistake(tmp_path):
    (tmp_path / "claims.yaml").write_text("claims:\n  - id: c1\n    text: [unclosed\n")
    (tmp_path / "good.yaml").write_text("claims:\n  - id: c1\n")
    assert yamlfile.read_yaml(tmp_path / "good.yaml", "claims table") == {"claims": [{"id": "c1"}]}
    line = said(yamlfile.read_yaml, tmp_path / "claims.yaml", "claims table")
    assert line.startswith(f"claims table {tmp_path / 'claims.yaml'} is not valid YAML (line 4, column 1: expected")
    assert line.endswith("); fix it there") and "\n" not in line
    assert said(yamlfile.read_yaml, tmp_path / "none.yaml", "claims table") == \
        f"claims table {tmp_path / 'none.yaml'} does not exist"
    planted = plain(yamlfile.read_yaml, "except yaml.YAMLError as exc:", "except KeyError as exc:")
    with pytest.raises(yaml.YAMLError):
        said(planted, tmp_path / "claims.yaml", "claims table")


def test_only_a_configs_remedy_names_the_run_snapshot(tmp_path):
    (tmp_path / "folder").mkdir()
    remedies = [said(yamlfile.read_yaml, tmp_path / "folder", what).split("; ")[-1] for what in ("config", "claims table")]
    assert remedies == ["give the path of the config file itself (results/<study>/config.yaml)",
                        "give the path of the claims table file itself"]
    planted = plain(yamlfile.read_yaml, 'if what == "config" else ""', 'if what else ""')
    assert said(planted, tmp_path / "folder", "claims table").endswith("(results/<study>/config.yaml)")
