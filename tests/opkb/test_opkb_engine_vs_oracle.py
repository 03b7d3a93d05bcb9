"""ADA-OPKB / OPKB: the block-at-once engine agrees exactly with the round-by-round oracle on the same
random streams; each planted bug makes the comparison fail."""
import numpy as np
import pytest
from conftest import SMALL_ADA
from opkb_oracle import opkb_oracle

from linbandits.studies.opkb import opkb


def compare(instance, options, seed, adaptive):
    run = opkb.run_opkb(instance, options, seed, 0, adaptive)
    arms, regret, restarts = opkb_oracle(instance, options, seed, 0, adaptive)
    return (np.array_equal(run["arms"], arms) and run["restarts"] == restarts
            and np.max(np.abs(run["regret"] - regret)) <= 1e-12), run


@pytest.mark.parametrize("seed", [0, 1])
def test_ada_opkb_equals_oracle_with_restarts(small_switch, seed):
    same, run = compare(small_switch, SMALL_ADA, seed, adaptive=True)
    assert same
    assert run["restarts"] >= 2          # the test exercises replays and restarts
    assert run["blocks"] > 20


def test_opkb_equals_oracle(small_switch):
    same, run = compare(small_switch, SMALL_ADA, 3, adaptive=False)
    assert same and run["restarts"] == 0


def test_replay_strategies_are_mixed_in_tested_intervals(small_switch):
    """The replay intervals the test uses hold rounds of more than one strategy (nested replays),
    so an IPS estimate with the wrong strategy's S^-1 is visible."""
    seen = []
    real = opkb.ips_estimate

    def spy(indices, *args):
        seen.append(len(np.unique(indices)))
        return real(indices, *args)

    opkb.ips_estimate, saved = spy, opkb.ips_estimate
    try:
        opkb.run_opkb(small_switch, SMALL_ADA, 0, 0, True)
    finally:
        opkb.ips_estimate = saved
    assert max(seen) >= 2


def never_restart(*args, **kwargs):
    return False


def ips_with_current_strategy(indices, arms, ys, leverage_of, N):
    # planted bug: every round weighted by the newest strategy's S^-1, not the replayed one's
    return REAL_IPS(np.full_like(indices, len(leverage_of) - 1), arms, ys, leverage_of, N)


REAL_IPS = opkb.ips_estimate
PLANTED = {"replay test never restarts": ("change_detected", never_restart),
           "IPS uses the current strategy": ("ips_estimate", ips_with_current_strategy)}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_planted_bug_is_caught(small_switch, monkeypatch, bug):
    name, replacement = PLANTED[bug]
    monkeypatch.setattr(opkb, name, replacement)
    same, _ = compare(small_switch, SMALL_ADA, 0, adaptive=True)
    assert not same, f"planted bug '{bug}' went unnoticed"
