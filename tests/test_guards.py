"""A user's mistake on the command line or in the checkout, refused in one line through the real
Snakemake (issue 50): the problem and the fix, no traceback, before any job. What Snakemake refuses
before it reads the workflow is in README.md's Troubleshooting table, whose messages are checked to
be what Snakemake prints. Planted: the workflow without its guards fails these checks."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
BROKEN_YAML = "chunk_size: 5\nrobustness: false: true\n"   # line 2: a second colon


def refusal(out) -> str:
    """The one line a refused command printed, or an AssertionError saying why it is not one."""
    text = out.stdout + out.stderr
    assert out.returncode != 0, text[-2000:]
    assert "Traceback" not in text and "Exception" not in text, text[-3000:]
    ours = [l for l in out.stderr.splitlines() if l.strip() and not l.startswith(("Using workflow", "Assuming"))]
    assert len(ours) == 1, f"not one line:\n{out.stderr[-3000:]}"
    assert "Building DAG" not in text and "rule " not in out.stdout, text[-2000:]
    return ours[0]


def run(snakemake, work, *args, snakefile=REPO / "workflow" / "Snakefile", timeout=300):
    return snakemake(work, *args, check=False, snakefile=snakefile, timeout=timeout)


@pytest.fixture
def work(tmp_path, make_workdir):
    return make_workdir(tmp_path / "w")


def test_cores_zero(work, snakemake):
    line = refusal(run(snakemake, work, "--cores", "0"))    # before this guard, a silent hang
    assert "--cores 0" in line and "--cores 1" in line


def test_config_file_that_is_not_yaml_names_file_and_line(work, snakemake):
    (work / "config" / "config.yaml").write_text(BROKEN_YAML)
    line = refusal(run(snakemake, work, "-n", "--cores", "1"))
    assert line.startswith("config/config.yaml line 2, column") and "fix the file" in line


def test_preview_target_without_the_flag(work, snakemake):
    line = refusal(run(snakemake, work, "-n", "--cores", "1", "preview/figures/p1rage/fig4_malicious.pdf"))
    assert "--config preview=true" in line and "preview/figures/p1rage/fig4_malicious.pdf" in line


def test_full_size_target_in_a_preview(work, snakemake):
    line = refusal(run(snakemake, work, "-n", "--cores", "1", "figures/p1rage/fig4_malicious.pdf",
                       "--config", "preview=true"))
    assert "ask for preview/figures/p1rage/fig4_malicious.pdf" in line


def test_unknown_target_says_how_to_list_the_valid_ones(work, snakemake):
    line = refusal(run(snakemake, work, "-n", "--cores", "1", "figures/p1rage/fig9.pdf"))
    assert "'figures/p1rage/fig9.pdf'" in line and "--list-rules" in line and "p1rage" in line


def test_valid_targets_pass(work, snakemake):
    for target in ("p1rage", "figures/p1rage/fig4_malicious.pdf", "all"):
        out = run(snakemake, work, "-n", "--cores", "1", target)
        assert out.returncode == 0, out.stderr[-2000:]


def test_unknown_algorithm_in_a_study_list_is_named_unknown(work, snakemake):
    path = work / "config" / "config.yaml"
    config = yaml.safe_load(path.read_text())
    config["studies"]["oam"]["algorithms"] = ["OAM", "OAMM"]
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    out = run(snakemake, work, "-n", "--cores", "1")
    text = out.stderr
    assert out.returncode != 0 and "Traceback" not in text
    assert "unknown algorithm 'OAMM'" in text and "studies/oam/algorithms" in text
    assert "which no experiment" not in text


def test_read_only_checkout(work, snakemake):
    if shutil.which("unshare") is None:
        pytest.skip("no unshare: a read-only mount cannot be made here")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"unshare -m refused ({probe.stderr.decode().strip()}): no read-only mount here")
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "workflow" / "Snakefile"), "--directory",
           str(work), "-n", "--cores", "1"]
    script = (f"mount --bind {work} {work} && mount -o remount,ro,bind {work} && "
              + " ".join(f"'{c}'" for c in cmd))
    out = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300)
    line = refusal(out)
    assert "read-only" in line and str(work) in line and "writable" in line


def without_guards(tmp_path: Path) -> Path:
    """A copy of the workflow whose Snakefile has no guard calls (what the user met before)."""
    copy = tmp_path / "workflow"
    shutil.copytree(REPO / "workflow", copy)
    snakefile = copy / "Snakefile"
    text = snakefile.read_text()
    text = re.sub(r"\n_guards\.refuse_on_error\((.|\n)*?\)\n(?=\n|$)", "\n", text)
    assert "refuse_on_error" not in text
    snakefile.write_text(text)
    return snakefile


def test_planted_workflow_without_guards_fails_these_checks(tmp_path, make_workdir, snakemake):
    snakefile = without_guards(tmp_path)
    work = make_workdir(tmp_path / "w")
    with pytest.raises(AssertionError):
        refusal(run(snakemake, work, "-n", "--cores", "1", "figures/p1rage/fig9.pdf", snakefile=snakefile))
    with pytest.raises(AssertionError):
        refusal(run(snakemake, work, "-n", "--cores", "1", "preview/figures/p1rage/fig4_malicious.pdf",
                    snakefile=snakefile))
    (work / "config" / "config.yaml").write_text(BROKEN_YAML)
    with pytest.raises(AssertionError):
        refusal(run(snakemake, work, "-n", "--cores", "1", snakefile=snakefile))


# ------------------------------------------------ README.md's Troubleshooting table

def troubleshooting_rows() -> list[tuple[str, str, str]]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Troubleshooting", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| `") else []
        if len(cells) == 3:
            typed, printed = (re.match(r"`([^`]*)`", c).group(1) for c in cells[:2])
            fix = re.findall(r"`(python [^`]*)`", cells[2])
            rows.append((typed, printed, fix[0] if fix else ""))
    return rows


def test_troubleshooting_table_has_the_rows():
    assert len(troubleshooting_rows()) == 3


@pytest.mark.parametrize("typed, printed, fix", troubleshooting_rows(),
                         ids=[r[0][:60] for r in troubleshooting_rows()])
def test_troubleshooting_message_is_what_snakemake_prints(typed, printed, fix, work):
    """Each row's command, typed in a copy's root, prints the documented message; its fix command works."""
    (work / "mine.yaml").write_text(BROKEN_YAML)
    args = typed.split()[1:]
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "workflow" / "Snakefile"), *args]
    out = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=300)
    assert out.returncode != 0
    assert printed in out.stdout + out.stderr, (out.stdout + out.stderr)[-2000:]
    if fix:
        shown = subprocess.run(fix.replace("python ", f"{sys.executable} ", 1), shell=True, cwd=work,
                               capture_output=True, text=True)
        assert shown.returncode != 0 and "mine.yaml" in shown.stderr and "line 2" in shown.stderr
