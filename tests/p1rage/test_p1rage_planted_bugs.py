"""Every planted bug of p1rage_planted_bugs.py must make the exact replay fail for
at least one of the algorithms it names, on the stationary or the
oscillating replay instance; unplanted, test_p1rage_replay.py shows the
replay passes. Every one of BATCHED_BUGS must make the comparison of the batched draws with
the per-trial loops fail (unplanted: test_p1rage_batched_draws.py)."""
import pytest
from p1rage_planted_bugs import BATCHED_BUGS, BUGS
from p1rage_reference_engine import batched_mismatches
from p1rage_replay import replay_instance, replay_mismatches


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_planted_bug_makes_the_replay_fail(bug, monkeypatch):
    bug.plant(monkeypatch)
    caught = []
    for stationary in (False, True):
        for name in bug.algorithms:
            if replay_mismatches(name, replay_instance(stationary)):
                caught.append((name, stationary))
                break
        if caught:
            break
    assert caught, f"{bug.name} went unnoticed by the replay"


def test_bug_names_are_unique_and_cover_the_issue_list():
    names = [b.name for b in BUGS]
    assert len(set(names)) == len(names)
    assert {"p1_loop_never_applies_its_mixture", "first_update_after_round_E_minus_1", "rage_first_threshold_one",
            "mixed_peace_ranks_by_epoch_only_estimate", "iid_pulls_meet_theta_bar",
            "theta_t_shifted_by_one_round", "ties_ranked_in_increasing_index"} <= set(names)


@pytest.mark.parametrize("bug", BATCHED_BUGS, ids=[b.name for b in BATCHED_BUGS])
def test_planted_bug_makes_the_batched_draws_differ(bug, monkeypatch):
    bug.plant(monkeypatch)
    assert batched_mismatches(bug.algorithms), f"{bug.name} went unnoticed by the batched-draws comparison"


def test_batched_bug_names_are_unique():
    names = [b.name for b in BUGS + BATCHED_BUGS]
    assert len(set(names)) == len(names)
