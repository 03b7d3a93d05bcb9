"""The wheel is the product outside a repository: a non-editable install must hold every file the
package has in src/linbandits, its modules and the data files it reads beside them (config schemas,
claims tables, published numbers). The list comes from the source tree, so a data file added later
is covered without touching this test. Built offline: no index, no build isolation (the installed
setuptools, a dependency of the project)."""
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "linbandits"
# What pyproject.toml names besides the package (readme, license-files): a build needs them.
BUILD_FILES = ("pyproject.toml", "README.md", "LICENSE")


def is_cache(rel: Path) -> bool:
    return any(part == "__pycache__" or part.endswith(".egg-info") for part in rel.parts) or \
        rel.suffix in (".pyc", ".pyo")


def package_files(package: Path = PACKAGE) -> set[str]:
    """Every file of the package in the source tree, as a wheel path ('linbandits/...'); caches left out."""
    return {p.relative_to(package.parent).as_posix() for p in package.rglob("*")
            if p.is_file() and not is_cache(p.relative_to(package.parent))}


def source_copy(dest: Path) -> Path:
    """What a build reads (pyproject's files and src/), copied: building in the repository would leave
    build/ and an .egg-info in it."""
    dest.mkdir(parents=True)
    for name in BUILD_FILES:
        shutil.copy2(REPO / name, dest / name)
    shutil.copytree(PACKAGE, dest / "src" / "linbandits",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    return dest


def build_wheel(tree: Path, out: Path) -> Path:
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                          "--disable-pip-version-check", "-q", "-w", str(out), str(tree)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"the wheel did not build:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    wheels = list(out.glob("linbandits-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def missing_from(wheel: Path, package: Path) -> list[str]:
    """The package's files (package_files) that the wheel lacks."""
    with zipfile.ZipFile(wheel) as archive:
        return sorted(package_files(package) - set(archive.namelist()))


def test_the_wheel_holds_every_file_of_the_package(tmp_path):
    data = {f for f in package_files() if not f.endswith(".py")}
    # The scan sees the data files the package reads (the p1rage table was once left out of the wheel).
    assert {"linbandits/studies/p1rage/p1rage_published.csv", "linbandits/studies/p1rage/claims.yaml",
            "linbandits/studies/lingape/config.schema.yaml"} <= data
    tree = source_copy(tmp_path / "src-tree")
    wheel = build_wheel(tree, tmp_path / "dist")
    assert missing_from(wheel, PACKAGE) == []
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in metadata.splitlines()

    # Installed from the wheel alone (no repository on the path), the package reads its data files.
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check",
                    "-q", "--target", str(target), str(wheel)], check=True, capture_output=True, timeout=600)
    # ... and a product without a caption of its own gets the generic one (once read from workflow/report,
    # which a wheel does not have)
    probe = ("import sys, linbandits, linbandits.studies.p1rage.published as p; from pathlib import Path; "
             "from linbandits.products import SHARED_CAPTIONS; "
             "print(linbandits.__file__); print(len(p.read_published())); "
             "site = Path(linbandits.__file__).parents[1]; "
             "print(sorted(f for f in sys.argv[1:] if not (site / f).is_file())); "
             "print(sorted(k for k in ('table', 'figure', 'claims') if not (SHARED_CAPTIONS / f'{k}.rst').is_file()))")
    run = subprocess.run([sys.executable, "-c", probe, *sorted(data)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": str(target)})
    assert run.returncode == 0, run.stderr[-3000:]
    where, rows, absent, captions_absent = run.stdout.splitlines()
    assert Path(where).is_relative_to(target)
    assert int(rows) > 0 and absent == "[]" and captions_absent == "[]"


def test_planted_a_data_file_left_out_of_package_data_is_caught(tmp_path):
    """The same check on a copy whose package-data no longer names CSV files: it must name the table."""
    tree = source_copy(tmp_path / "src-tree")
    pyproject = tree / "pyproject.toml"
    text = pyproject.read_text()
    planted = text.replace(', "*.csv"', "")
    assert planted != text, "the planted change did not apply: package-data no longer lists \"*.csv\" this way"
    pyproject.write_text(planted)
    wheel = build_wheel(tree, tmp_path / "dist")
    assert missing_from(wheel, tree / "src" / "linbandits") == ["linbandits/studies/p1rage/p1rage_published.csv"]


def test_citation_and_licence_agree_with_the_package():
    """CITATION.cff cites this version under this licence, and its references are the five papers the
    README's study table names (same titles)."""
    import re

    import yaml

    import linbandits

    pyproject = (REPO / "pyproject.toml").read_text()
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    assert citation["cff-version"] == "1.2.0"
    assert citation["version"] == version == linbandits.__version__
    assert re.search(r'^license = "MIT"', pyproject, re.M) and citation["license"] == "MIT"
    assert (REPO / "LICENSE").read_text().startswith("MIT License\n\nCopyright (c) 2026 the linbandits developers\n")
    readme = (REPO / "README.md").read_text().lower()
    titles = [ref["title"] for ref in citation["references"]]
    assert len(titles) == 5 and all(f"*{t.lower()}*" in readme for t in titles), titles
    assert f"## [{version}]" in (REPO / "CHANGELOG.md").read_text()
