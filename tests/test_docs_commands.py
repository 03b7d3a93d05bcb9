"""Every command of README.md and docs/ runs, as documented, in a copy of the repository (issue 50).

The commands are read from the docs' fenced blocks (tests/docs_commands.py says how, and how a doc
marks a file to create, a syntax synopsis, or a command that cannot run here, with the reason). Each
doc's commands run in order, in one temporary copy of the repository whose config/config.yaml is
the tiny .test configuration and which holds the outputs of the session's finished .test run (what
`snakemake --report` and `linbandits products` read). How each runs here, so that it costs seconds:

| command | run here as |
|---|---|
| `snakemake ... --report`, target `archive`, and a preview a later one of these reads | itself (a .test-sized preview) |
| any other `snakemake ...` | itself with `-n` (Snakemake's dry run: arguments, config, targets, DAG) |
| `linbandits ...` | itself |
| `python -m pytest ...` | itself with `--collect-only -q` (the paths exist and import) |
| `python benchmarks/....py` | itself with `--help` |
| `pip install ...` | itself with `--dry-run --no-deps --no-build-isolation --no-index` (no install) |

A command that exits non-zero fails its test, with its output. The planted doc (a broken command, a
broken synopsis option) must fail these very checks.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from docs_commands import Block, Command, all_blocks, all_commands, blocks, commands
from repo_files import repo_files

REPO = Path(__file__).resolve().parents[1]
TEST_CONFIG = REPO / ".test" / "config" / "config.yaml"
COMMANDS = all_commands(REPO)
NOT_RUN = [c for c in COMMANDS if c.block.mark == "not run"]
SYNOPSES = [c for c in COMMANDS if c.block.mark == "synopsis"]
RUN = [c for c in COMMANDS if not c.block.mark]
PIP_DRY = "--dry-run --no-deps --no-build-isolation --no-index"


def reads_a_finished_run(text: str) -> bool:
    return "--report" in text or " archive" in text


def as_run_here(command: Command, later: list[Command] = ()) -> str:
    """The shell line that runs the documented command here (the table above); later: the doc's
    commands after it."""
    text, program = command.text, command.program
    if program == "snakemake":
        real = reads_a_finished_run(text) or ("preview=true" in text and any(
            reads_a_finished_run(c.text) and "preview=true" in c.text for c in later))
        return text if real else re.sub(r"\bsnakemake\b", "snakemake -n", text, count=1)
    if program in ("python", "python3") and " -m pytest" in text:
        return f"{text} --collect-only -q"
    if program in ("python", "python3") and "benchmarks/" in text:
        return f"{text} --help"
    if program == "pip":
        return re.sub(r"\bpip install\b", f"pip install {PIP_DRY}", text, count=1)
    return text


def make_copy(dest: Path, finished_run: Path | None) -> Path:
    """A copy of the repository on the .test config, holding the finished run's outputs if given."""
    for rel in repo_files(REPO):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, target)
    shutil.copy2(finished_run / "config" / "config.yaml" if finished_run else TEST_CONFIG,
                 dest / "config" / "config.yaml")
    for name in ("results", "figures", "logs", "data", ".snakemake", ".linbandits"):
        if finished_run and (finished_run / name).exists():
            shutil.copytree(finished_run / name, dest / name, symlinks=True)
    return dest


def run_shell(line: str, cwd: Path, timeout: int = 1200) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd / "src")}
    return subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=timeout)


def failure(command: Command, line: str, out: subprocess.CompletedProcess) -> str | None:
    """Why the command failed here, or None."""
    if out.returncode != 0:
        return (f"{command.id}: `{command.text}` (run as `{line}`) exited {out.returncode}:\n"
                f"{out.stdout[-2500:]}\n{out.stderr[-2500:]}")
    if command.program == "pip" and "does not provide the extra" in out.stderr:
        return f"{command.id}: `{command.text}`: {out.stderr.strip()}"
    return None


class DocRun:
    """One doc's commands run in order in one copy; a command's test runs those before it first."""

    def __init__(self, root: Path, finished_run: Path):
        self.root, self.finished_run, self.copies, self.results = root, finished_run, {}, {}

    def result(self, command: Command) -> str | None:
        if command.id not in self.results:
            copy = self.copies.get(command.doc)
            if copy is None:
                copy = make_copy(self.root / command.doc.replace("/", "_"), self.finished_run)
                for block in blocks(REPO / command.doc, REPO):
                    if block.mark == "file":
                        (copy / block.mark_arg).parent.mkdir(parents=True, exist_ok=True)
                        (copy / block.mark_arg).write_text(block.text)
                self.copies[command.doc] = copy
            doc = [c for c in RUN if c.doc == command.doc]
            for i, earlier in enumerate(doc):
                if earlier.id not in self.results:
                    line = as_run_here(earlier, doc[i + 1:])
                    self.results[earlier.id] = failure(earlier, line, run_shell(line, copy))
                if earlier.id == command.id:
                    break
        return self.results[command.id]


@pytest.fixture(scope="module")
def doc_run(finished_run, tmp_path_factory):
    return DocRun(tmp_path_factory.mktemp("docs"), finished_run[0])


@pytest.mark.parametrize("command", RUN, ids=[c.id for c in RUN])
def test_documented_command_runs(command, doc_run):
    problem = doc_run.result(command)
    assert problem is None, problem


def help_options(program_words: list[str], cwd: Path) -> set[str]:
    out = run_shell(" ".join(program_words + ["--help"]), cwd)
    assert out.returncode == 0, out.stderr
    return set(re.findall(r"--[a-z][a-z0-9-]*", out.stdout))


def synopsis_problems(command: Command, cwd: Path = REPO) -> list[str]:
    """The --options of a synopsis that its command's --help does not list."""
    words = command.words
    sub = [w for w in words[:2]] if command.program == "linbandits" else [words[0]]
    known = help_options(sub, cwd)
    return [f"{command.id}: {opt} is not an option of `{' '.join(sub)}`"
            for opt in re.findall(r"--[a-z][a-z0-9-]*", command.text) if opt not in known]


@pytest.mark.parametrize("command", SYNOPSES, ids=[c.id for c in SYNOPSES])
def test_documented_synopsis_names_real_options(command):
    assert synopsis_problems(command) == []


def test_every_command_not_run_says_why_and_is_counted():
    """Not run is the exception, in the doc with its reason; the count is printed and bounded."""
    for command in NOT_RUN:
        assert len(command.block.mark_arg) > 15, f"{command.id}: `not run` without a reason"
    print(f"\n{len(RUN)} documented commands run, {len(SYNOPSES)} synopses checked, "
          f"{len(NOT_RUN)} not run:")
    for command in NOT_RUN:
        print(f"  {command.id} `{command.text}`: {command.block.mark_arg}")
    assert len(NOT_RUN) <= 2, "more documented commands are not run: make them runnable"
    assert len(RUN) >= 30


def test_every_doc_block_of_a_program_is_found():
    """The extraction misses nothing: every line of a shell block starting with a program is a command."""
    found = {(c.doc, c.text.split()[0]) for c in COMMANDS}
    for block in all_blocks(REPO):
        if block.info in ("bash", "sh", "shell", "console") and block.mark != "file":
            assert commands(block), f"{block.doc}:{block.line}: a shell block with no command"
    assert ("README.md", "snakemake") in found and ("docs/your-algorithm.md", "linbandits") in found


PLANTED_DOC = """# planted

<!-- docs-test: file mine/x.txt -->
```
hello
```

```bash
snakemake --cores 2 --config preview=true preview/figures/p1rage/fig4_malicious.pdf
linbandits simulate --instance soare_sto --setting T=1010 --algorithm NoSuchAlgorithm --trials 2 --seed 1 --out /tmp/x.csv
```

<!-- docs-test: synopsis -->
```
linbandits simulate --instance NAME --algorithm A --trials N --no-such-option X
```
"""


def test_planted_broken_doc_fails(tmp_path):
    """The README's old one-figure recipe (--config swallows the target), an unknown algorithm and a
    synopsis option that does not exist each fail; the file block is a file, not a command."""
    doc = tmp_path / "docs" / "planted.md"
    doc.parent.mkdir()
    doc.write_text(PLANTED_DOC)
    found = [b for b in blocks(doc, tmp_path)]
    assert [b.mark for b in found] == ["file", "", "synopsis"]
    run, synopsis = commands(found[1]), commands(found[2])
    assert commands(found[0]) == [] and len(run) == 2
    copy = make_copy(tmp_path / "copy", None)
    for command in run:
        line = as_run_here(command)
        assert failure(command, line, run_shell(line, copy)) is not None, command.text
    assert synopsis_problems(synopsis[0]) == [
        "docs/planted.md:15: --no-such-option is not an option of `linbandits simulate`"]
