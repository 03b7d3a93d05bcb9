"""Helper modules of the studies' tests are imported by their bare name (pytest
puts each test folder on sys.path), so two studies' `replay.py` would shadow
each other and one study's tests would import the other's. Names must be unique.
And every shared module's tests are found by its name."""
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_test_helper_module_names_are_unique_across_studies():
    names = Counter(
        p.name for p in TESTS.rglob("*.py")
        if p.name not in ("conftest.py", "__init__.py") and "toy_study" not in p.parts
        and not (p.parent / "__init__.py").exists())
    assert [n for n, c in names.items() if c > 1] == []


def modules_without_a_test_file(package: Path, tests: Path) -> list[str]:
    return sorted(p.stem for p in package.glob("*.py")
                  if not p.stem.startswith("__") and not (tests / f"test_{p.stem}.py").exists())


def test_every_shared_module_has_a_test_file_named_after_it(tmp_path):
    """Tests findable by module (issue 48): src/linbandits/<module>.py has tests/test_<module>.py (scenario
    tests that exercise many modules live beside them). Planted: a module without one."""
    assert modules_without_a_test_file(TESTS.parent / "src" / "linbandits", TESTS) == []
    for name in ("__init__", "plotting", "untested"):
        (tmp_path / f"{name}.py").write_text("")
    assert modules_without_a_test_file(tmp_path, TESTS) == ["untested"]
