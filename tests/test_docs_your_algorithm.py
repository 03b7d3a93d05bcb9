"""Every command of docs/your-algorithm.md runs, as a stranger would run it (issue 47 item 9): in a fresh
copy of the repository (its files, no results), with the tutorial's file and overlay written from the
page's own code blocks, each ```bash block's commands in the page's order, from the copy's root.

The published-size run of step 4 (`snakemake ... p1rage --configfile mine/config.yaml`, no preview) is
run as a dry run (`-n`): its jobs take hours; the dry run checks that the workflow accepts it and plans
the user's jobs. After the commands: the tutorial's scorecard judged Uniform, the scorecard section's
judged Uniform and the OAM example together, with its figure. Planted: a misspelt target in a command is reported as
a failing command."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from repo_files import repo_files

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "your-algorithm.md"


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def commands(text: str) -> list[str]:
    """The commands of every ```bash block, continuation lines joined, in the page's order."""
    out = []
    for block in blocks(text, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(" ".join(line.split()))
    return out


def published_size(command: str) -> bool:
    return command.startswith("snakemake ") and "preview=true" not in command and " -n" not in command


def as_run(command: str) -> str:
    return command + " -n" if published_size(command) else command


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(cwd / "src"))
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)


@pytest.fixture(scope="module")
def fresh_copy(tmp_path_factory):
    """The repository's files copied (no results), the tutorial's step 1 and 3 written from the page."""
    copy = tmp_path_factory.mktemp("fresh")
    for rel in repo_files(REPO):
        target = copy / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, target)
    text = DOC.read_text()
    (copy / "mine").mkdir()
    (copy / "mine" / "uniform.py").write_text(blocks(text, "python")[0])
    overlay = blocks(text[text.index("**3. Declare it.**"):], "yaml")[0]
    (copy / "mine" / "config.yaml").write_text(overlay)
    return copy


@pytest.fixture(scope="module")
def ran(fresh_copy):
    failed = []
    for command in commands(DOC.read_text()):
        out = run(as_run(command), fresh_copy)
        if out.returncode != 0:
            failed.append(f"{command}: {(out.stderr or out.stdout).strip().splitlines()[-1:]}")
    return fresh_copy, failed


def test_the_page_goes_from_an_empty_file_to_the_scorecard():
    found = commands(DOC.read_text())
    assert any(c.startswith("snakemake --cores 2 scorecard --configfile mine/config.yaml") for c in found)
    assert sum(map(published_size, found)) == 1            # only step 4's published run is dry-run
    assert "/work/" not in DOC.read_text()


def test_every_command_of_the_page_runs(ran):
    copy, failed = ran
    assert failed == []


def test_the_scorecards_judged_the_tutorials_and_the_examples_algorithms(ran):
    copy, _ = ran
    p1rage = (copy / "preview" / "results" / "p1rage" / "comparison.json").read_text()
    assert '"Uniform"' in p1rage
    text = (copy / "preview" / "results" / "scorecard.md").read_text()     # the last scorecard: two studies
    assert "| Uniform |" in text and "| EpsGreedy |" in text and "## oam: final regret" in text
    assert (copy / "preview" / "figures" / "scorecard.png").stat().st_size > 0


def test_planted_misspelt_command_is_reported(ran):
    copy, _ = ran
    out = run("snakemake --cores 2 scorecards --configfile mine/config.yaml --config preview=true -n", copy)
    assert out.returncode != 0
