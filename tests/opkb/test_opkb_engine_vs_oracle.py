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


def test_held_results_are_those_computed_afresh(small_switch):
    """KernelConstants holds pi's leverage (from the D-design solve), the solver's uniform start and pi(A) per
    set A; each is bit for bit what computing it afresh gives, and gamma_T is that of a fresh D-design."""
    from solver_reference import InformationGain as Reference, d_design as ref_design, leverages as ref_leverages

    from linbandits.studies.opkb import designs
    from linbandits.studies.opkb.features import features

    Phi = features(small_switch.arms, SMALL_ADA["rbf_length"])
    c = opkb.KernelConstants(Phi, small_switch.T, SMALL_ADA)
    bits = lambda a: np.asarray(a).view(np.int64)  # noqa: E731
    assert np.array_equal(bits(c.pi), bits(ref_design(Phi, c.lam)))
    assert np.array_equal(bits(c.leverage(c.pi)), bits(ref_leverages(Phi, c.pi, c.lam)))
    uniform = np.full(len(Phi), 1.0 / len(Phi))
    assert np.array_equal(bits(c.uniform_leverage()), bits(ref_leverages(Phi, uniform, c.lam)))
    assert c.gamma_T == Reference(Phi, small_switch.T, SMALL_ADA["sigma"]).exact(small_switch.T)
    good = np.arange(len(Phi)) % 3 == 0
    assert np.array_equal(bits(c.good_design(good)), bits(ref_design(Phi[np.ix_(good, good)], c.lam)))
    assert c.good_design(good) is c.good_design(good.copy())             # held: solved once
    assert c.leverage(c.pi) is c.leverage(c.pi)
    assert not np.array_equal(c.good_design(~good), designs.d_design(Phi[np.ix_(good, good)], c.lam))


def stale_get(self, key, objects):
    # planted bug: a held value is returned whatever the features it was computed from
    return next((v[2] for (_, k), v in self._held.items() if k == key), None)


@pytest.mark.parametrize("planted", [False, True])
def test_held_results_follow_new_features(small_switch, monkeypatch, planted):
    """New features (as OPNN's refresh() assigns them, with their pi): every held value is recomputed for them;
    a hold that ignores the features (planted) returns the old features' values."""
    from linbandits.studies.opkb import designs
    from linbandits.studies.opkb.features import features

    if planted:
        monkeypatch.setattr(opkb.KernelConstants, "_get", stale_get)
    c = opkb.KernelConstants(features(small_switch.arms, 0.2), small_switch.T, SMALL_ADA)
    good = np.arange(c.N) % 3 == 0
    c.uniform_leverage(), c.leverage(c.pi), c.good_design(good)
    c.Phi = features(small_switch.arms, 1.0)
    c.pi = designs.d_design(c.Phi, c.lam)
    uniform = np.full(c.N, 1.0 / c.N)
    follow = (np.array_equal(c.uniform_leverage(), designs.leverages(c.Phi, uniform, c.lam)),
              np.array_equal(c.leverage(c.pi), designs.leverages(c.Phi, c.pi, c.lam)),
              np.array_equal(c.good_design(good), designs.d_design(c.Phi[np.ix_(good, good)], c.lam)))
    assert all(follow) != planted
