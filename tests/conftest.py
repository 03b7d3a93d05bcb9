"""Fixtures shared by the pipeline tests of every study: real Snakemake in
temporary working directories on the tiny .test configuration. The full run
is made once per session and shared (tests that change files use copies)."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from linbandits.study_config import read_config

REPO = Path(__file__).resolve().parents[1]
TEST_CONFIG = REPO / ".test" / "config" / "config.yaml"


def _make_workdir(path: Path, **overrides) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    config = read_config(TEST_CONFIG)   # every study's tiny section written out: tests edit them
    config.update(overrides)
    (path / "config").mkdir(exist_ok=True)
    (path / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def _snakemake(workdir: Path, *args, check=True, timeout=1200, snakefile=REPO / "workflow" / "Snakefile", env=None):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(snakefile), "--directory", str(workdir), *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and out.returncode != 0:
        raise AssertionError(f"snakemake failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out


def _planned_jobs(workdir: Path, *targets, **kwargs) -> dict:
    """Job counts per rule of a dry run."""
    out = _snakemake(workdir, "-n", "--cores", "1", *targets, **kwargs)
    counts, in_table = {}, False
    for line in out.stdout.splitlines():
        if line.startswith("job ") and "count" in line:
            in_table = True
            continue
        if in_table:
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                if parts[0] == "total":
                    break
                counts[parts[0]] = int(parts[1])
    return counts


@pytest.fixture
def config():
    """The published config (config/config.yaml under every study's defaults), a fresh copy per test."""
    return read_config(REPO / "config" / "config.yaml")


@pytest.fixture(scope="session")
def make_workdir():
    return _make_workdir


@pytest.fixture(scope="session")
def snakemake():
    return _snakemake


@pytest.fixture(scope="session")
def planned_jobs():
    return _planned_jobs


def _stamps(workdir: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every output of a run: what a later run's rerun decisions read."""
    return {p.relative_to(workdir).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for d in ("results", "figures") for p in (workdir / d).rglob("*") if p.is_file()}


@pytest.fixture(scope="session")
def finished_run(tmp_path_factory):
    """The whole .test configuration (every study), run once with --cores 2, and its outputs' stamps."""
    workdir = _make_workdir(tmp_path_factory.mktemp("full"))
    _snakemake(workdir, "--cores", "2")
    return workdir, _stamps(workdir)


@pytest.fixture
def full_run(finished_run):
    """The session's .test run, read-only: a test that writes an output into it (instead of into a copy)
    fails here, by name, rather than a later test that copies the run and finds jobs to redo."""
    workdir, stamps = finished_run
    yield workdir
    now = _stamps(workdir)
    changed = sorted(f for f, s in now.items() ^ stamps.items())
    stamps.clear()
    stamps.update(now)                          # the next test is judged on its own writes
    assert not changed, f"this test wrote into the shared .test run (use a copy): {changed[:5]}"


def config_of(workdir):
    return read_config(workdir / "config" / "config.yaml")   # with the studies' defaults
