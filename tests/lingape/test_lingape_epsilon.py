"""LinGapE's `epsilon` option (instance | half_gap | a number): the engine against the plain oracle,
whole runs on the same streams, in both forms; planted bugs in how eps is set or passed on; bad values.

half_gap = Delta_min / 2 is the eps of the published Table 1 run (the authors' LinUgapE.py with
epsilon = theta^T (x_1 - x_K) / 2, the true gap of Exp. 1's second-best arm); the oracle computes it
from the spec (tests/lingape/lingape_oracle.py, stop_epsilon), not from the engine's helper.
"""
import math

import numpy as np
import pytest

import lingape_oracle as oracle
from lingape_cases import canonical, pm1_sets, random_bai, soare_wide
from linbandits import cli
from linbandits.errors import UserError
from linbandits.studies.lingape import algorithms
from linbandits.studies.lingape import kernels as kn
from linbandits.studies.lingape import streams
from linbandits.studies.lingape.algorithms import LinGapE
from linbandits.studies.lingape.designs import ratio_table
from linbandits.studies.lingape.instances import REWARD_GAUSSIAN, lingape_canonical, lingape_soare

SEED = 29
TRIALS = [0, 1, 2]

# Small instances that stop within a few thousand pulls; canonical_eps carries an instance epsilon of
# its own (0.1), which half_gap (0.4 there) must override.
CASES = {
    "soare_wide": lambda: soare_wide(d=3, omega=0.6),
    "canonical": lambda: canonical(Delta=0.8, d=4),
    "canonical_eps": lambda: lingape_canonical(Delta=0.8, d=4, epsilon=0.1),
    "random_bai": lambda: random_bai(seed=5),
    "pm1_sets": lambda: pm1_sets(),        # +-1 rewards, each run its own arm set (its own Delta_min)
}


def oracle_run(inst, trial, algo, setting, form="paper", rule="greedy"):
    """(recommended, counts, stopped, correct, eps) of the plain oracle."""
    X, means = inst.arms(trial)
    gaussian = inst.reward == REWARD_GAUSSIAN
    eps = oracle.stop_epsilon(setting, form, means, inst.epsilon)
    arm, T, stopped = oracle.lingape(X, means, oracle.draw_stream(SEED, trial, gaussian),
                                     streams.run_tie_key(SEED, trial), gaussian=gaussian,
                                     noise_sd=inst.noise_scale, R=algo.R, S=algo.S, delta=inst.delta, eps=eps,
                                     form=form, rule=rule, pstar=ratio_table(X) if rule == "ratio" else None)
    return arm, T, stopped, oracle.is_correct(means, arm, eps), eps


def mismatches(inst, setting, form="paper", rule="greedy", trials=TRIALS):
    """How many runs of the engine differ from the oracle's (arm, counts, correct flag or eps used)."""
    algo = LinGapE(inst, epsilon=setting, form=form, rule=rule)
    rec = algo.simulate(SEED, np.asarray(trials))
    bad = 0
    for k, t in enumerate(trials):
        arm, T, stopped, correct, eps = oracle_run(inst, t, algo, setting, form, rule)
        assert stopped
        got = [int(rec.columns[f"pulls_{a}"][k]) for a in range(inst.K)]
        bad += (got != T.tolist() or int(rec.columns["recommended"][k]) != arm
                or int(rec.columns["stopping_time"][k]) != int(T.sum())
                or bool(rec.columns["correct"][k]) != correct or rec.info["epsilon_used"][t] != eps)
    return bad


@pytest.mark.parametrize("form", ["paper", "scratch"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_half_gap_engine_equals_oracle(case, form):
    assert mismatches(CASES[case](), "half_gap", form) == 0


def test_half_gap_with_the_ratio_rule():
    assert mismatches(random_bai(seed=5), "half_gap", "paper", "ratio", trials=[0, 1]) == 0


@pytest.mark.parametrize("setting", ["instance", "0.3", 0.3])
def test_instance_and_number_engine_equal_oracle(setting):
    """'instance' keeps the instance's own epsilon (0.1 here) in the paper form and Delta_min in the scratch
    form; a number (a string from the command line or a YAML float) is that eps."""
    inst = CASES["canonical_eps"]()
    assert mismatches(inst, setting, "paper") == 0
    assert mismatches(inst, setting, "scratch") == 0


@pytest.mark.parametrize("case", sorted(CASES))
def test_half_gap_changes_runs(case):
    """The comparisons above are not vacuous: on every case the oracle's half_gap runs differ from its runs
    at the form's old eps (paper: the instance's; scratch: Delta_min), and stop no later."""
    inst = CASES[case]()
    algo = LinGapE(inst)
    for form in ("paper", "scratch"):
        old = [oracle_run(inst, t, algo, "instance", form) for t in TRIALS]
        new = [oracle_run(inst, t, algo, "half_gap", form) for t in TRIALS]
        assert any(o[1].tolist() != h[1].tolist() for o, h in zip(old, new))
        # paper: eps grows from the instance's (0 or 0.1) to Delta_min/2: never later; scratch: shrinks
        if form == "paper":
            assert all(h[1].sum() <= o[1].sum() for o, h in zip(old, new))
        else:
            assert all(h[1].sum() >= o[1].sum() for o, h in zip(old, new))


@pytest.mark.parametrize("make, expected", [
    (lambda: lingape_soare(d=5), 1.0 - math.cos(0.01)),      # Exp. 1: theta^T (x_1 - x_{d+1}) / 2
    (lambda: lingape_soare(d=9), 1.0 - math.cos(0.01)),
    (lambda: lingape_canonical(Delta=0.1), 0.05),             # Exp. 2: Delta / 2
])
def test_half_gap_value_is_the_closed_form(make, expected):
    """Which gap: the true gap of Exp. 1's second-best arm x_{d+1} (Delta_min = 2 (1 - cos 0.01), spec sec. 7),
    halved. Read from the sidecar of runs cut after one pull (rtol 1e-10: 2 - 2 cos 0.01 loses ~12 digits to
    cancellation in the means)."""
    inst = make()
    rec = LinGapE(inst, epsilon="half_gap", max_pulls=inst.K + 1).simulate(0, np.array([0, 1]))
    assert rec.info["censored_trials"] == [0, 1]
    for t in (0, 1):
        assert rec.info["epsilon_used"][t] == pytest.approx(expected, rel=1e-10)


# ------------------------------------------------------------------ planted bugs

def eps_ignored(setting, form, means, instance_eps):
    """Planted bug: the option is read but the old eps is used."""
    return REAL_EPSILON("instance", form, means, instance_eps)


def full_gap(setting, form, means, instance_eps):
    """Planted bug: half_gap gives Delta_min instead of Delta_min / 2."""
    return 2 * REAL_EPSILON(setting, form, means, instance_eps) if setting == "half_gap" else \
        REAL_EPSILON(setting, form, means, instance_eps)


def largest_gap(setting, form, means, instance_eps):
    """Planted bug: half of the largest gap instead of the smallest."""
    if setting == "half_gap":
        return float(means.max() - means.min()) / 2
    return REAL_EPSILON(setting, form, means, instance_eps)


def paper_form_only(setting, form, means, instance_eps):
    """Planted bug: the scratch form keeps its hard-coded Delta_min whatever the option says."""
    return REAL_EPSILON("instance" if form == "scratch" else setting, form, means, instance_eps)


REAL_EPSILON = algorithms.lingape_epsilon
PLANTED = {"eps_ignored": eps_ignored, "full_gap": full_gap, "largest_gap": largest_gap,
           "paper_form_only": paper_form_only}


def all_mismatches(form):
    return sum(mismatches(CASES[c](), "half_gap", form) for c in ("soare_wide", "canonical_eps", "pm1_sets"))


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_planted_epsilon_bug_is_caught(monkeypatch, bug):
    form = "scratch" if bug == "paper_form_only" else "paper"
    assert all_mismatches(form) == 0          # the control: no bug, no mismatch
    monkeypatch.setattr(algorithms, "lingape_epsilon", PLANTED[bug])
    assert all_mismatches(form) > 0


def test_planted_eps_dropped_on_the_way_to_the_kernel(monkeypatch):
    """Planted bug: the kernel is called with eps = 0 whatever was computed (the engine's eps is the 18th
    argument of lingape_kernel); the sidecar would still show the right eps, the runs must not."""
    real = kn.lingape_kernel

    def eps_zero(*args):
        args = list(args)
        args[17] = 0.0
        return real(*args)

    assert all_mismatches("paper") == 0
    monkeypatch.setattr(kn, "lingape_kernel", eps_zero)
    assert all_mismatches("paper") > 0


# ------------------------------------------------------------------ bad values

@pytest.mark.parametrize("value", ["half", "Delta_min/2", "-0.1", "nan", "inf", "", "HALF_GAP"])
def test_bad_epsilon_is_one_clear_line(tmp_path, capsys, value):
    code = cli.main(["simulate", "--instance", "lingape_soare", "--setting", "d=2", "--algorithm", "LinGapE",
                     "--option", f"epsilon={value}", "--trials", "1", "--seed", "0",
                     "--out", str(tmp_path / "x.csv")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "LinGapE option epsilon=" in err[0] and "half_gap" in err[0] and "instance" in err[0], err[0]
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("value", [-1.0, float("nan"), True, [0.1]])
def test_bad_epsilon_from_yaml_values(value):
    with pytest.raises(UserError, match="LinGapE option epsilon="):
        LinGapE(soare_wide(), epsilon=value)
