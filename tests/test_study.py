"""linbandits.study: the one run loop. An algorithm that implements run(seed, trial) gets run_many and
simulate: trial i's numbers depend on (seed, i) alone, so any range or chunking gives the same rows; columns
in trial order, curves stacked under their rounds `t`, counters summed into the sidecar's round_counts,
progress told after each trial. Records refuse columns of different lengths and a `trial` column; trials are
an int n (0..n-1) or indices. Planted bugs (the loop with one snippet changed, Records without its checks):
a trial numbered by its place in the call, counters kept from the last trial only, the checks left out."""
import numpy as np
import pytest
from plain_source import plain

from linbandits import study
from linbandits.errors import UserError
from linbandits.streams import generator
from linbandits.study import Algorithm, Records, Run


class Draws(Algorithm):
    """Three draws of the trial's stream, its curve on rounds 1, 2, 3, and one counter."""

    name, summary, kinds = "Draws", "three draws per trial", ("linear",)

    def run(self, seed, trial):
        x = generator(seed, trial).random(3)
        return Run(columns={"first": x[0], "pulls": trial + 1}, curves={"t": np.array([1, 2, 3]), "regret": x},
                   counters={"rounds": 2})


def records_problems(simulate):
    """Why simulate (of Draws, seed 5) is not the one run loop, or []."""
    algorithm = Draws(instance=None)
    whole = simulate(algorithm, 5, 6)
    problems = []
    if not np.array_equal(whole.columns["pulls"], np.arange(1, 7)):
        problems.append("columns out of trial order")
    for chunk in (range(2, 4), [5, 4]):
        part = simulate(algorithm, 5, chunk)
        if not np.array_equal(part.columns["first"], whole.columns["first"][list(chunk)]):
            problems.append(f"trials {list(chunk)} differ from the whole run's")
    if whole.curves["t"].tolist() != [1, 2, 3] or whole.curves["regret"].shape != (6, 3):
        problems.append("curves not stacked under their rounds")
    if whole.info != {"round_counts": {"rounds": 12}}:
        problems.append(f"info {whole.info}")
    return problems


def test_a_run_per_trial_gives_the_run_loop():
    told = []
    assert records_problems(lambda a, seed, trials, progress=None: a.simulate(seed, trials, progress)) == []
    Draws(instance=None).simulate(5, 3, lambda done, total: told.append((done, total)))
    assert told == [(1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize("old, new, problem", [
    ("one = self.run(seed, int(trial))", "one = self.run(seed, done - 1)", "trials [2, 3] differ"),
    ("counters[k] = counters.get(k, 0) + int(v)", "counters[k] = int(v)", "info"),
])
def test_planted_run_loop_bugs_are_caught(old, new, problem):
    planted = plain(Algorithm.run_many, old, new)

    def simulate(algorithm, seed, trials, progress=None):
        return planted(algorithm, seed, study.as_trials(trials), progress)

    assert any(p.startswith(problem) for p in records_problems(simulate))


def test_records_refuse_uneven_columns_and_a_trial_column(monkeypatch):
    bad = [{"a": [1, 2], "b": [1.0]}, {"trial": [0], "a": [1]}]
    for columns, words in zip(bad, ["differ in length", "must not contain 'trial'"]):
        with pytest.raises(ValueError, match=words):
            Records(columns=columns)
    monkeypatch.setattr(Records, "__post_init__", lambda self: None)
    assert all(Records(columns=columns) for columns in bad)


def test_trials_are_a_count_or_indices():
    assert study.as_trials(3).tolist() == [0, 1, 2] and study.as_trials(np.int64(2)).tolist() == [0, 1]
    assert study.as_trials(range(4, 6)).tolist() == [4, 5] and study.as_trials([7, 2]).tolist() == [7, 2]
    for trials, words in ((0, "at least 1"), ([3, -1], "must be >= 0")):
        with pytest.raises(UserError, match=words):
            study.as_trials(trials)
