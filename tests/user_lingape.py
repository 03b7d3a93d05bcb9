"""A user algorithm for lingape that the user-algorithm tests share: LinGapE under another name (its options
S, lam, rule, ... declared), in a file of its own, and the .test config that declares it."""
import textwrap
from pathlib import Path

from linbandits.study_config import read_config

REPO = Path(__file__).resolve().parents[1]
TEST_CONFIG = REPO / ".test" / "config" / "config.yaml"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"

USER_CODE = textwrap.dedent('''
    from linbandits.studies.lingape.algorithms import LinGapE


    class Mine(LinGapE):
        name = "Mine"
''')


def write_user_file(folder: Path) -> Path:
    path = folder / "mine_lingape.py"
    path.write_text(USER_CODE)
    return path


def lingape_config(user_file, entry=None) -> dict:
    """.test's config with Mine declared for lingape (`entry`: its declaration's other keys)."""
    config = read_config(TEST_CONFIG)
    config["extra_algorithms"] = {"lingape": {"Mine": {"class": f"{user_file}:Mine", **(entry or {})}}}
    return config
