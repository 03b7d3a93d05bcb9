"""Helper modules of the studies' tests are imported by their bare name (pytest
puts each test folder on sys.path), so two studies' `replay.py` would shadow
each other and one study's tests would import the other's. Names must be unique."""
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_test_helper_module_names_are_unique_across_studies():
    names = Counter(
        p.name for p in TESTS.rglob("*.py")
        if p.name not in ("conftest.py", "__init__.py") and "toy_study" not in p.parts
        and not (p.parent / "__init__.py").exists())
    assert [n for n, c in names.items() if c > 1] == []
