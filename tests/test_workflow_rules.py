"""The workflow reads as a workflow (issue 48): `snakemake --list-rules` gives every rule with a one-line
docstring that starts with its stage, the Snakefile includes one rules file a stage in the stages' order,
no rules file names a study (a study's jobs are its declarations), and the README's way of forcing every
simulation (`--forcerun` with the rule names from `--list-rules`) gives rule names. Planted: a rule
without a docstring, a rules file naming a study."""
import re
import subprocess
import sys
from pathlib import Path

from linbandits import catalogue

REPO = Path(__file__).resolve().parents[1]
STAGES = ("data", "instances", "simulate", "runs", "products", "overview", "archive", "target")
RULES_FILES = ("r6a", "instances", "simulate", "runs", "products", "overview", "archive")   # the stages' order


def list_rules(workdir) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "workflow" / "Snakefile"),
                          "--directory", str(workdir), "--list-rules"], capture_output=True, text=True, check=True)
    return [line for line in out.stdout.splitlines() if line.strip()]


def undocumented(lines: list[str]) -> list[str]:
    """The rules whose docstring is missing or does not start with a stage."""
    pattern = re.compile(r"^(\w+) \((" + "|".join(STAGES) + r"): [^()]*(\(.*\))?[^()]*\)$")
    return [line for line in lines if not pattern.match(line)]


def test_every_rule_has_a_one_line_docstring_naming_its_stage(make_workdir, tmp_path):
    lines = list_rules(make_workdir(tmp_path / "rules"))
    assert len(lines) > 100 and undocumented(lines) == []
    names = {line.split()[0] for line in lines}
    assert {"all", "overview", "study_config"} <= names and any(n.startswith("simulate_") for n in names)
    assert undocumented([*lines, "simulate_nothing"]) == ["simulate_nothing"]          # planted: no docstring


def test_the_readmes_forcerun_finds_the_simulate_rules(make_workdir, tmp_path):
    lines = list_rules(make_workdir(tmp_path / "force"))
    command = re.search(r"grep -o '([^']+)'", (REPO / "README.md").read_text()).group(1)
    found = [m.group(0) for line in lines for m in [re.match(command, line)] if m]
    assert found and found == [line.split()[0] for line in lines if line.startswith("simulate_")]


def study_named(text: str) -> list[str]:
    return [s for s in catalogue.studies() if re.search(rf"\b{s}\b", text)]


def test_the_rules_files_are_the_stages_and_name_no_study():
    snakefile = (REPO / "workflow" / "Snakefile").read_text()
    included = re.findall(r'^include: "rules/(\w+)\.smk"', snakefile, re.M)
    assert included == ["common", *RULES_FILES]
    assert sorted(p.stem for p in (REPO / "workflow" / "rules").glob("*.smk")) == sorted(included)
    for path in (REPO / "workflow" / "rules").glob("*.smk"):
        code = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))
        assert study_named(code) == [], path
    assert study_named('_OPKB_TUNING = config["studies"]["opkb"]') == ["opkb"]            # planted: a study's rule
