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


@pytest.fixture(scope="session")
def full_run(tmp_path_factory):
    """The whole .test configuration (every study), run once with --cores 2."""
    workdir = _make_workdir(tmp_path_factory.mktemp("full"))
    _snakemake(workdir, "--cores", "2")
    return workdir


def config_of(workdir):
    return read_config(workdir / "config" / "config.yaml")   # with the studies' defaults
