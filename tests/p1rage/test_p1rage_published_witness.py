"""The paper's published cells as a claims witness: each cell at its effective size, matched to the
run's settings by their swept value, analysed unpaired; a claim judged on them reads what the
paper's own data show. A planted witness at the nominal size (21,000 dependent trials as if
independent) is caught."""
import numpy as np
import pandas as pd
import pytest

from linbandits.claims import engine
from linbandits.claims.engine import HOLDS, INCONCLUSIVE, Missing
from linbandits.claims.quantities import QUANTITIES
from linbandits.studies.p1rage import published


class Run:
    """The run's evidence: experiment e swept over T (settings T10, T1010)."""

    def settings(self, exp):
        return ["T10", "T1010"]

    def x(self, exp, s):
        return float(s[1:])

    def setting_label(self, exp, s):
        return f"T = {s[1:]}"

    def summary(self, exp, s):
        return {"synthetic": True}


TABLE = pd.DataFrame([
    # experiment, algorithm, x, n_trials, n_errors, effective_n
    ("e", "A", 10.0, 21000, 2100, 1000),
    ("e", "B", 10.0, 21000, 2520, 1000),
    ("e", "A", 1010.0, 1000, 100, 1000),
    ("e", "B", 1010.0, 1000, 300, 1000),
], columns=["experiment", "algorithm", "x", "n_trials", "n_errors", "effective_n"])


def witness():
    return published.PublishedEvidence(Run(), {}, TABLE)


def test_a_cell_is_its_effective_size_and_the_runs_are_unpaired():
    w = witness()
    correct = w.column("e", "T10", "A", "correct")
    assert correct.size == 1000 and int((correct == 0).sum()) == 100        # 0.1 of the effective 1000
    assert not w.paired_runs("e") and not w.shares_seeds("e")
    assert w.summary("e", "T10")["synthetic"] is False                      # the authors' data, not a stand-in
    with pytest.raises(Missing):
        w.column("e", "T10", "C", "correct")


def better_claim():
    return {"id": "c", "quote": "q", "parts": [
        {"quantity": "error_difference", "experiment": "e", "a": "A", "b": "B", "each_setting": "all", "less": 0}]}


def test_a_claim_judged_on_the_published_cells():
    j = engine.judge(better_claim(), witness(), QUANTITIES)
    leaves = engine.leaves_of(j["tree"])
    assert [leaf.estimate.n for leaf in leaves] == [1000, 1000]
    assert "unpaired" in leaves[0].estimate.method
    # 0.10 vs 0.12 at 1000 effective trials straddles 0; 0.1 vs 0.3 does not
    assert [leaf.verdict for leaf in leaves] == [INCONCLUSIVE, HOLDS]


def test_planted_witness_at_the_nominal_size_is_caught(monkeypatch):
    """Read at the 21,000 trials of the dependent Fig. 2a arrays, the T = 10 cell would look decisive."""
    monkeypatch.setattr(published, "compared_n", lambda exp, n_trials, effective_n, three_runs: float(n_trials))
    j = engine.judge(better_claim(), witness(), QUANTITIES)
    assert engine.leaves_of(j["tree"])[0].verdict == HOLDS       # the test above would fail
    assert np.isclose(engine.leaves_of(j["tree"])[0].estimate.n, 21000)


def test_each_cell_is_looked_up_once_and_kept_apart_from_the_others(monkeypatch):
    """The engine asks for the same cells over and over: each is found once, and a cell kept is its
    own (a cache keyed on the experiment alone would give A's errors for B: 100 where B has 120)."""
    w = witness()
    found = []
    find = w._find_cell
    monkeypatch.setattr(w, "_find_cell", lambda *key: found.append(key) or find(*key))
    cells = [(s, a) for s in ("T10", "T1010") for a in "AB"]
    for _ in range(3):
        assert [int((w.column("e", s, a, "correct") == 0).sum()) for s, a in cells] == [100, 120, 100, 300]
        with pytest.raises(Missing):
            w.column("e", "T10", "C", "correct")
    assert len(found) == 5
