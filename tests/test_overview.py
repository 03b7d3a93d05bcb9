"""The overview page's command: the studies of a run, their figures, verdicts (the primary readings counted,
post-hoc ones beside them), robustness and causes, and the findings page it links first."""
import json
from pathlib import Path

import yaml

from linbandits import cli
from linbandits.overview import disabled_entry, render_overview, study_entry
from linbandits.study_config import read_config

TEST_CONFIG = read_config(Path(__file__).parents[1] / ".test/config/config.yaml")


def snapshot(tmp_path, study, enabled=True, claims=None) -> str:
    top = {k: v for k, v in TEST_CONFIG.items() if k != "studies"}
    section = {**TEST_CONFIG["studies"][study], "enabled": enabled, "paper": f"Paper {study}"}
    folder = tmp_path / "results" / study
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(yaml.safe_dump({**top, "studies": {study: section}}))
    if claims is not None:
        (folder / "claims.json").write_text(json.dumps({"study": study, "claims": claims}))
    return str(folder / "config.yaml")


def test_overview_lists_verdicts_robustness_and_causes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    claims = [{"id": "C1", "figure": "Fig. 1", "verdict": "does not hold", "scope": "at n = 400",
               "cause": "a protocol choice: with horizon = 800 it holds",
               "flip": {"text": "does not hold for any threshold at or below 0.5", "threshold_sensitive": False},
               "robustness": {"status": "depends", "text": "depends on horizon (400: does not hold; 800: holds)"}},
              {"id": "C2", "figure": "Fig. 2", "verdict": "holds", "robustness": {"status": "robust", "text": "robust"},
               "flip": {"text": "holds for any threshold below 1.05", "threshold_sensitive": True}}]
    oam = snapshot(tmp_path, "oam", claims=claims)
    out, found = tmp_path / "overview.md", tmp_path / "findings.md"
    assert cli.main(["overview", "--study", oam, "--disabled", "swucb", "--preview", "--out", str(out),
                     "--findings", str(found)]) == 0
    text = out.read_text()
    assert text == render_overview([study_entry(oam), disabled_entry("swucb")], preview=True)
    assert "PREVIEW" in text
    figures = len(TEST_CONFIG["studies"]["oam"]["figures"])      # the tiny config's figures
    assert f"| `oam` | Paper oam | {figures} | 2 | 1 | 1 | 0 | 0 | 0 | 1 | 0 |" in text
    # the findings page is linked first, and lists the claim that does not hold
    assert text.splitlines()[2].startswith("**What the papers got wrong: [findings.md](findings.md)**")
    assert "`C1` does not hold" in found.read_text()
    assert ("**does not hold at n = 400** | does not hold for any threshold at or below 0.5 | depends on horizon"
            in text and "a protocol choice: with horizon = 800 it holds" in text)
    assert "**holds** | holds for any threshold below 1.05 (**threshold-sensitive**) | robust" in text
    assert "| `swucb` | Cheung, Simchi-Levi, Zhu" in text and "`enabled: false`" in text


def test_the_counts_are_the_primary_verdicts_and_post_hoc_readings_come_second(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    post = {"verdict": "holds", "seen": ["published"], "prompted_by": "p", "reason": "r", "robustness": {}}
    claims = [{"id": "C1", "figure": "Fig. 1", "verdict": "does not hold", "robustness": {"text": "robust"},
               "post_hoc": post}]
    text = render_overview([study_entry(snapshot(tmp_path, "oam", claims=claims))])
    assert f"| `oam` | Paper oam | {len(TEST_CONFIG['studies']['oam']['figures'])} | 1 | 0 | 1 | 0 | 0 | 0 | 0 | 1 |" in text
    row = [line for line in text.splitlines() if line.startswith("| `C1`")][0]
    assert row.index("**does not hold**") < row.index("post hoc (chosen after seeing the paper's published data): holds")


def test_a_missing_claims_file_is_one_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    oam = snapshot(tmp_path, "oam")
    assert cli.main(["overview", "--study", oam, "--out", str(tmp_path / "o.md")]) == 2
    err = capsys.readouterr().err.strip()
    assert "claims.json does not exist" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "o.md").exists()
