"""The preview's overview and report (issue 50): every "not run" claim says why in the overview, the
HTML report of a preview says PREVIEW in its header and a full run's does not, and the overview is
the report's first category. Through the real Snakemake (`--report`) on a one-study .test preview.
Planted: an overview without the reasons and a report description without the PREVIEW block fail."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from linbandits import overview
from linbandits.claims.engine import NOT_RUN

REPO = Path(__file__).resolve().parents[1]
STUDY = "oam"     # its .test preview leaves experiments out, so some of its claims are not run


def report_parts(html: str) -> tuple[str, dict]:
    """(the workflow description, the categories) a Snakemake HTML report shows."""
    desc = json.loads(re.search(r"var workflow_desc = (.*?);\n", html).group(1))
    categories = json.loads(re.search(r"var categories = (.*?);\n", html).group(1))
    return desc, categories


def first_category(categories: dict) -> str:
    # the report's menu sorts its categories with localeCompare, case-insensitive; these names are ASCII
    return sorted(categories, key=str.casefold)[0]


def header_says_preview(desc: str) -> bool:
    return bool(re.search(r"<h1[^>]*>\s*PREVIEW", desc))


def not_run_rows_without_reason(text: str) -> list[str]:
    return [line for line in text.splitlines()
            if line.startswith("| `") and "| **not run** |" in line and "| not run: " not in line]


@pytest.fixture(scope="module")
def preview_run(tmp_path_factory, make_workdir, snakemake):
    work = make_workdir(tmp_path_factory.mktemp("preview") / "w")
    path = work / "config" / "config.yaml"
    config = yaml.safe_load(path.read_text())
    for study, section in config["studies"].items():
        section["enabled"] = study == STUDY
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    snakemake(work, "--cores", "2", "--config", "preview=true")
    snakemake(work, "--config", "preview=true", "--report", "preview/report.html")
    return work


def test_every_not_run_claim_says_why(preview_run):
    text = (preview_run / "preview" / "results" / "overview.md").read_text()
    claims = json.loads((preview_run / "preview" / "results" / STUDY / "claims.json").read_text())["claims"]
    not_run = [c for c in claims if c["verdict"] == NOT_RUN]
    assert not_run, "the one-study preview has no claim that was not run: the test would prove nothing"
    assert not_run_rows_without_reason(text) == []
    for claim in not_run:
        row = next(l for l in text.splitlines() if l.startswith(f"| `{claim['id']}` "))
        assert "not run: experiment " in row or "opt-in target" in row, row


def test_planted_overview_without_reasons_is_caught(preview_run, monkeypatch):
    monkeypatch.setattr(overview, "not_run_reason", lambda record: "")
    studies = [overview.study_entry(preview_run / "preview" / "results" / STUDY / "config.yaml")]
    assert not_run_rows_without_reason(overview.render_overview(studies, preview=True))


def test_preview_report_says_preview_and_starts_with_the_overview(preview_run):
    desc, categories = report_parts((preview_run / "preview" / "report.html").read_text())
    assert header_says_preview(desc), desc[:500]
    assert first_category(categories) == "1. Overview"
    overview_files = [f for files in categories["1. Overview"].values() for f in files]
    assert "preview/results/overview.md" in overview_files
    assert STUDY in categories


def test_full_run_report_does_not_say_preview(full_run, snakemake, tmp_path):
    snakemake(full_run, "--report", str(tmp_path / "report.html"))
    desc, categories = report_parts((tmp_path / "report.html").read_text())
    assert not header_says_preview(desc) and "PREVIEW" not in desc
    assert first_category(categories) == "1. Overview"


def test_planted_description_without_preview_is_caught(preview_run, snakemake, tmp_path):
    workflow = tmp_path / "workflow"
    shutil.copytree(REPO / "workflow", workflow)
    rst = workflow / "report" / "workflow.rst"
    rst.write_text(re.sub(r"\{% if .*?\{% endif %\}\n", "", rst.read_text(), flags=re.S))
    snakemake(preview_run, "--config", "preview=true", "--report", str(tmp_path / "r.html"),
              snakefile=workflow / "Snakefile")
    desc, _ = report_parts((tmp_path / "r.html").read_text())
    assert not header_says_preview(desc)
