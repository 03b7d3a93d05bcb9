"""The scorecard across studies (linbandits.user.scorecard, issue 47 item 7).

- From the studies' comparison.json: per study and experiment, the verdicts against the paper's best of
  each setting (a comparison standing for several experiments counts in each of them, once per cell) and
  the sweep's summary against the paper's best; studies keep their own metric (no number across them);
  planted: a comparison counted in its first experiment only, a cell that is not the best counted.
- The leaderboard: every entry against every other, the paper's algorithms as entries, ranked by paired
  verdicts; a planted reversed tally is caught.
- End to end through the real Snakemake on .test's swucb (the discounted-UCB example and a twin of SW-UCB:
  a leaderboard; the error-probability panel is drawn and checked above, P1-RAGE's .test run being 10 min):
  `snakemake --cores 2 scorecard` writes results/scorecard.{md,json} and figures/scorecard.{pdf,png}, the
  figure passes the print checks (7.2 in, text >= 7 pt, greyscale, honest axes, no Type 3 font); the
  twin is identical to SW-UCB run for run; the scorecard agrees with the studies' comparison.json; with
  no user algorithm the target stops with one line.
"""
import copy
import json
import shutil
from pathlib import Path

import pytest
import yaml

from linbandits import figure_checks
from linbandits.user import comparison, scorecard

REPO = Path(__file__).resolve().parents[1]


def cell(experiment, setting, best):
    return {"experiment": experiment, "setting": setting, "best": best}


def study_json():
    """A lingape-like comparison.json: one comparison standing for two experiments (best in both), one
    against a paper algorithm that is not the best, one no evidence."""
    rows = [
        {"verdict": "worse", "stands_for": [cell("exp2", "D1", True), cell("exp2_adaptive", "D1", True)]},
        {"verdict": "better", "stands_for": [cell("exp2", "D1", False)]},
        {"verdict": "no evidence", "stands_for": [cell("exp2", "D2", True)]},
    ]
    summary = {"experiment": "exp2", "against": "paper's best", "kind": "geometric-mean ratio", "value": 1.5,
               "low": 1.1, "high": 2.0, "n": 10, "settings": 2, "method": "t", "reason": "", "verdict": "higher"}
    return {"study": "lingape", "level": 0.95, "metric": "stopping_time", "users": ["Mine"],
            "comparisons": {"Mine": rows}, "summaries": {"Mine": [summary, dict(summary, against="XY-static")]},
            "counts": {"Mine": {"cells": 4, "distinct": 3}}, "leaderboard": None}


def test_verdicts_against_the_best_count_in_every_experiment_a_comparison_stands_for():
    scores = scorecard.experiment_scores(study_json())["Mine"]
    assert scores["exp2"]["counts"] == {"better": 0, "inconclusive": 0, "worse": 1, "no evidence": 1}
    assert scores["exp2_adaptive"]["counts"] == {"better": 0, "inconclusive": 0, "worse": 1, "no evidence": 0}
    assert scores["exp2"]["summary"]["value"] == 1.5 and "summary" not in scores["exp2_adaptive"]


def test_planted_first_experiment_only_is_caught():
    planted = study_json()
    for r in planted["comparisons"]["Mine"]:
        r["stands_for"] = r["stands_for"][:1]
    assert "exp2_adaptive" not in scorecard.experiment_scores(planted)["Mine"]


def test_planted_non_best_cell_counted_is_caught(monkeypatch):
    planted = study_json()
    planted["comparisons"]["Mine"][1]["stands_for"][0]["best"] = True
    assert scorecard.experiment_scores(planted)["Mine"]["exp2"]["counts"]["better"] == 1   # the check above fails


def test_each_study_keeps_its_metric_and_nothing_is_averaged_across():
    other = study_json() | {"study": "p1rage", "metric": "error"}
    text = scorecard.markdown(scorecard.build([study_json(), other]))
    assert "## lingape: stopping time" in text and "## p1rage: error probability" in text
    assert "1.5 [1.1, 2]" in text
    for word in ("overall", "average over the studies", "all studies"):
        assert word not in text.lower()


def test_the_figure_passes_the_print_checks_and_keeps_metrics_on_their_own_axes():
    other = copy.deepcopy(study_json()) | {"study": "p1rage", "metric": "error"}
    other["summaries"]["Mine"][0] |= {"kind": "mean difference", "value": -0.1, "low": -0.3, "high": None}
    fig = scorecard.draw(scorecard.build([study_json(), other]))
    assert figure_checks.figure_problems(fig) == []
    assert [ax.get_xscale() for ax in fig.axes] == ["log", "linear"]
    assert fig.get_size_inches()[0] == pytest.approx(7.2)


def test_the_leaderboard_ranks_by_paired_verdicts():
    rows = [{"who": "A", "against": "B", "verdict": "better"}, {"who": "A", "against": "C", "verdict": "better"},
            {"who": "B", "against": "C", "verdict": "inconclusive"}]
    table = board_of(rows, ["A", "B", "C"])
    assert [t["entry"] for t in table] == ["A", "B", "C"] and table[0]["better"] == 2
    assert table[1]["worse"] == 1 and table[2]["worse"] == 1 and table[1]["inconclusive"] == 1


def board_of(rows, entries):
    """user.comparison.leaderboard's tally and ranking, on judged rows."""
    tally = {e: {"entry": e, "better": 0, "worse": 0, "inconclusive": 0, "no evidence": 0} for e in entries}
    return comparison.rank(comparison.tally(rows, tally), entries)


def test_planted_reversed_tally_is_caught(monkeypatch):
    monkeypatch.setattr(comparison, "FLIP", {"better": "better", "worse": "worse"})
    rows = [{"who": "A", "against": "B", "verdict": "better"}]
    assert board_of(rows, ["A", "B"])[1]["worse"] == 0          # B lost, but the tally says otherwise


# ---------------------------------------------------------------- end to end through Snakemake

TWIN = '''
from linbandits.studies.swucb.algorithms import SWUCB


class MineSW(SWUCB):            # SW-UCB under another name: identical runs, a second user algorithm
    name = "Mine-SW"
'''


def user_config(workdir: Path) -> Path:
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    for study in config["studies"]:
        config["studies"][study]["enabled"] = study == "swucb"
    config["extra_algorithms"] = {
        "swucb": {"D-LinUCB": {"class": "examples/swucb_discounted/discounted.py:DiscountedUCB",
                               "options": {"gamma": 0.995}},
                  "Mine-SW": "mine/twin.py:MineSW"}}
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    for example in ("swucb_discounted",):
        shutil.copytree(REPO / "examples" / example, workdir / "examples" / example)
    (workdir / "mine").mkdir()
    (workdir / "mine" / "twin.py").write_text(TWIN)
    return workdir


@pytest.fixture(scope="module")
def scorecard_run(tmp_path_factory, make_workdir, snakemake):
    workdir = user_config(make_workdir(tmp_path_factory.mktemp("scorecard")))
    snakemake(workdir, "--cores", "2", "scorecard")
    return workdir


def test_the_target_writes_the_scorecard_and_its_figure(scorecard_run):
    for path in ("results/scorecard.md", "results/scorecard.json", "figures/scorecard.pdf",
                 "figures/scorecard.png"):
        assert (scorecard_run / path).stat().st_size > 0, path
    assert figure_checks.font_problems(scorecard_run / "figures" / "scorecard.pdf") == []
    text = (scorecard_run / "results" / "scorecard.md").read_text()
    assert "## swucb: final regret" in text and "### swucb: leaderboard" in text
    assert "| swucb_fig1 | D-LinUCB |" in text and "| swucb_fig2 | Mine-SW |" in text


def test_the_scorecard_agrees_with_the_studies_comparisons(scorecard_run):
    card = json.loads((scorecard_run / "results" / "scorecard.json").read_text())
    for study in ("swucb",):
        data = json.loads((scorecard_run / "results" / study / "comparison.json").read_text())
        for user, scores in card["studies"][study]["experiments"].items():
            best = [(c["experiment"], r["verdict"]) for r in data["comparisons"][user] for c in r["stands_for"]
                    if c["best"]]
            for exp, score in scores.items():
                assert sum(score["counts"].values()) == sum(e == exp for e, _ in best)
            assert comparison.disagreements(data["comparisons"][user]) == []


def test_the_twin_ties_with_its_original_on_the_leaderboard(scorecard_run):
    data = json.loads((scorecard_run / "results" / "swucb" / "comparison.json").read_text())
    twins = [r for r in data["leaderboard"]["comparisons"] if {r["who"], r["against"]} == {"Mine-SW", "SW-UCB"}]
    assert twins and all(r["identical"] and r["verdict"] == "inconclusive" for r in twins)
    entries = {t["entry"] for t in data["leaderboard"]["table"]}
    assert {"SW-UCB", "D-LinUCB", "Mine-SW"} <= entries
    twin, original = (next(t for t in data["leaderboard"]["table"] if t["entry"] == e) for e in ("Mine-SW", "SW-UCB"))
    assert (twin["better"], twin["worse"], twin["rank"]) == (original["better"], original["worse"], original["rank"])


def test_without_a_user_algorithm_the_target_stops_in_one_line(tmp_path, make_workdir, snakemake):
    workdir = make_workdir(tmp_path / "none")
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    for study in config["studies"]:
        config["studies"][study]["enabled"] = study == "oam"
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    out = snakemake(workdir, "--cores", "1", "scorecard", check=False)
    assert out.returncode != 0
    assert "scorecard: the scorecard has no user algorithm to judge" in out.stderr + out.stdout


def test_ties_share_a_rank():
    rows = [{"who": "A", "against": "C", "verdict": "better"}, {"who": "B", "against": "C", "verdict": "better"}]
    assert [t["rank"] for t in board_of(rows, ["A", "B", "C"])] == [1, 1, 3]
