"""tests/repo_files.py lists what git lists, without git (tests that copy the repository run in an
exported tree too). Checked against git where the tree is a git work tree; its rules on their own
everywhere."""
import shutil
import subprocess
from pathlib import Path

import pytest

from repo_files import gitignore_rules, is_ignored, repo_files

REPO = Path(__file__).resolve().parents[1]


def git_files(repo: Path) -> list[str] | None:
    """git ls-files as the copy used it, with only .gitignore's rules (not a developer's own excludes);
    None where there is no git or no work tree."""
    if shutil.which("git") is None or not (repo / ".git").exists():
        return None
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-per-directory=.gitignore"],
                         cwd=repo, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return sorted(f for f in out.stdout.splitlines() if (repo / f).is_file())


def test_the_walk_lists_what_git_lists():
    expected = git_files(REPO)
    if expected is None:
        pytest.skip("not a git work tree (an exported tree): nothing to compare the walk with")
    assert repo_files(REPO) == expected


def test_gitignore_rules_as_git_reads_them(tmp_path):
    (tmp_path / ".gitignore").write_text("# outputs\n/results/\n__pycache__/\n*.pyc\n.test/report.html\n"
                                         "logs/\n!logs/keep.txt\n\n")
    for rel in ["results/a.csv", "src/pkg/results/b.py", "src/__pycache__/m.pyc", "src/m.pyc", "src/m.py",
                ".test/report.html", "x/.test/report.html", "report.html", ".git/HEAD", "logs/keep.txt"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    # /results/ is anchored (a nested results/ is kept); a/b patterns are anchored; .git is never listed;
    # nothing under an ignored directory comes back, as in git (logs/keep.txt stays out).
    assert repo_files(tmp_path) == [".gitignore", "report.html", "src/m.py", "src/pkg/results/b.py",
                                    "x/.test/report.html"]
    rules = gitignore_rules(tmp_path)
    assert is_ignored("results", True, rules) and not is_ignored("results", False, rules)
    assert is_ignored("logs/keep.txt", False, rules) is False   # the rule re-includes it; its directory does not
    expected = git_files_of_fresh_repo(tmp_path)
    if expected is not None:
        assert repo_files(tmp_path) == expected


def git_files_of_fresh_repo(path: Path) -> list[str] | None:
    """The same tree as git sees it (where git is installed): a fresh repository, nothing committed."""
    if shutil.which("git") is None:
        return None
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)
    return git_files(path)
