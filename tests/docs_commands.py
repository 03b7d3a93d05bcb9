"""The commands of README.md and docs/**/*.md, as a reader would type them, and how a test runs each.

A command is a shell line of a fenced block (```bash, ```sh, ```console or unlabelled) whose first
word (after any VAR=value assignments) is a program a reader of this project runs; a trailing
backslash joins lines, `a && b` is two commands, a `# comment` is dropped. Lines of other shapes (a
directory tree, a file's text) are no commands.

An HTML comment on the line before a fence says more about the block, in the doc itself:
  <!-- docs-test: file PATH -->            the block is a file the text asks the reader to create:
                                           written to PATH before the doc's commands run
  <!-- docs-test: synopsis -->             a command's syntax, not a command: each --option of it
                                           must be one that `<command> --help` lists
  <!-- docs-test: not run: REASON -->      its commands cannot run here; counted, with the reason
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

PROGRAMS = ("snakemake", "linbandits", "python", "python3", "pip", "bash", "conda", "export")
SHELL_INFO = ("bash", "sh", "shell", "console", "")
FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[\w+-]*)\s*$")
MARK = re.compile(r"^<!--\s*docs-test:\s*(?P<kind>file|synopsis|not run)\s*:?\s*(?P<arg>.*?)\s*-->\s*$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")


@dataclass(frozen=True)
class Block:
    doc: str            # the doc's path relative to the repository
    line: int           # the fence's line number (1-based)
    info: str           # the fence's language
    text: str
    mark: str = ""      # "", "file", "synopsis" or "not run"
    mark_arg: str = ""  # the file's path or the reason


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    text: str
    block: Block
    part: int = 0       # the command's place in an `a && b` line

    @property
    def words(self) -> list[str]:
        return shlex.split(self.text)

    @property
    def program(self) -> str:
        return next(w for w in self.words if not ASSIGNMENT.match(w))

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}" + (f"+{self.part}" if self.part else "")


def doc_paths(repo: Path) -> list[Path]:
    return [repo / "README.md"] + sorted((repo / "docs").rglob("*.md"))


def blocks(path: Path, repo: Path) -> list[Block]:
    """Every fenced block of a Markdown file, with the docs-test mark on the line before it."""
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        mark = MARK.match(lines[i - 1].strip()) if i else None
        out.append(Block(
            doc=path.relative_to(repo).as_posix(), line=i + 1, info=fence["info"],
            text="\n".join(l[len(fence["indent"]):] for l in lines[i + 1:end]) + "\n",
            mark=mark["kind"] if mark else "", mark_arg=mark["arg"] if mark else "",
        ))
        i = end + 1
    return out


def commands(block: Block) -> list[Command]:
    """The block's commands, in order (none where it is a file or not a shell block)."""
    if block.info not in SHELL_INFO or block.mark == "file":
        return []
    out, pending, start = [], "", 0
    for offset, raw in enumerate(block.text.splitlines()):
        if not pending:
            start = block.line + 1 + offset
        pending += raw
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        line, pending = pending, ""
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        if not words:
            continue
        first = next((w for w in words if not ASSIGNMENT.match(w)), "")
        if first not in PROGRAMS:
            continue
        text = _strip_comment(line)
        for part, command in enumerate(re.split(r"\s+&&\s+", text)):
            out.append(Command(block.doc, start, command.strip(), block, part))
    return out


def _strip_comment(line: str) -> str:
    """The line up to its unquoted ` #` comment, as typed (a glob stays a glob)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].strip()
    return line.strip()


def all_blocks(repo: Path) -> list[Block]:
    return [b for p in doc_paths(repo) for b in blocks(p, repo)]


def all_commands(repo: Path) -> list[Command]:
    return [c for b in all_blocks(repo) for c in commands(b)]
