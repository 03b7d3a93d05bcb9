"""The repository's own files without git.

What `git ls-files --cached --others --exclude-standard` lists in a clean clone, found by walking
the tree and leaving out `.git` and what the top-level .gitignore ignores. An exported tree (a
release tarball, GitHub's "Download ZIP") has no .git, so a test that copies the repository uses
this; tests/test_repo_files.py checks it against git where there is one.

The .gitignore rules understood are git's: blank lines and `#` comments skipped; `!` re-includes;
a trailing `/` matches directories only; a pattern with a `/` at its start or middle is anchored at
the repository root, one without matches a name at any depth; the last matching rule wins, and
nothing under an ignored directory is listed.
"""
from __future__ import annotations

import fnmatch
import os
from pathlib import Path


def gitignore_rules(repo: Path) -> list[tuple[str, bool, bool, bool]]:
    """(pattern, anchored, directories only, negated) for every rule of repo/.gitignore, in order."""
    path = repo / ".gitignore"
    rules = []
    for line in (path.read_text().splitlines() if path.exists() else []):
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line[1:] if negated else line
        dir_only = pattern.endswith("/")
        pattern = pattern.rstrip("/")
        anchored = "/" in pattern
        rules.append((pattern.lstrip("/"), anchored, dir_only, negated))
    return rules


def is_ignored(rel: str, is_dir: bool, rules) -> bool:
    """Whether the .gitignore rules ignore rel (a path relative to the root, '/'-separated)."""
    ignored = False
    name = rel.rsplit("/", 1)[-1]
    for pattern, anchored, dir_only, negated in rules:
        if dir_only and not is_dir:
            continue
        if fnmatch.fnmatchcase(rel if anchored else name, pattern):
            ignored = not negated
    return ignored


def repo_files(repo: Path) -> list[str]:
    """Every file of the repository that git would list (tracked or not ignored), sorted, '/'-separated."""
    repo = Path(repo)
    rules = gitignore_rules(repo)
    out = []
    for top, dirs, files in os.walk(repo):
        base = Path(top).relative_to(repo).as_posix()
        prefix = "" if base == "." else f"{base}/"
        dirs[:] = sorted(d for d in dirs if d != ".git" and not os.path.islink(os.path.join(top, d))
                         and not is_ignored(prefix + d, True, rules))
        out += [prefix + f for f in files if f != ".git" and not is_ignored(prefix + f, False, rules)]
    return sorted(out)
