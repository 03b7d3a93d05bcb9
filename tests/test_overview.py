"""The overview page's command (the pipeline's `overview` rule is a shell job calling it)."""
import json

from linbandits import cli
from linbandits.overview import render_overview


def test_overview_command_writes_the_rendered_page(tmp_path):
    claims = tmp_path / "claims.json"
    claims.write_text(json.dumps({"claims": [{"id": "C1", "figure": "Fig. 1", "verdict": "holds"}]}))
    studies = [{"name": "a", "paper": "Paper A", "enabled": True, "claims": str(claims),
                "figures": ["figures/a/f.pdf"]},
               {"name": "b", "paper": "Paper B", "enabled": False, "claims": None, "figures": []}]
    out = tmp_path / "overview.md"
    assert cli.main(["overview", "--studies", json.dumps(studies), "--preview", "--out", str(out)]) == 0
    text = out.read_text()
    assert text == render_overview(studies, preview=True)
    assert "PREVIEW" in text and "| `a` | Paper A | 1 | 1 | 1 |" in text


def test_overview_command_refuses_bad_json_in_one_line(tmp_path, capsys):
    code = cli.main(["overview", "--studies", "[{", "--out", str(tmp_path / "o.md")])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "--studies is not valid JSON" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "o.md").exists()
