"""Instance files of the contextual kind: the summary contract and one clear message per bad file."""
import json

import numpy as np
import pytest

from linbandits.cli import main
from linbandits.npzfile import write_npz
from linbandits.problems import load_instance_file, save_instance
from linbandits.studies.oam.instances import oam_circle, oam_scenario_one

GOOD = {"actions": np.array([[[1.0, 0.0], [0.0, 1.0], [0.9, 0.5]]]), "p": np.array([1.0]),
        "theta": np.array([1.0, 0.0]), "noise_sd": np.float64(1.0), "horizon": np.int64(1000)}


def test_summary_holds_the_lower_bound_and_allocation(tmp_path):
    write_npz(tmp_path / "f.npz", GOOD)
    assert main(["instance", "--instance-file", str(tmp_path / "f.npz"), "--out", str(tmp_path / "g.npz"),
                 "--summary", str(tmp_path / "s.json")]) == 0
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["lower_bound_C"] == pytest.approx(20.0, rel=1e-12)
    assert summary["optimal_allocation"][0][0] is None          # infinity: the optimal arm
    assert summary["optimal_allocation"][0][2] == pytest.approx(200.0, rel=1e-12)
    assert summary["f_n"] == pytest.approx(2 * (1 + 1 / np.log(1000)) * np.log(1000) + 2 * np.log(2 * np.log(1000)))
    back = load_instance_file(tmp_path / "g.npz")
    np.testing.assert_array_equal(back.actions, GOOD["actions"])
    assert back.horizon == 1000 and back.kind == "contextual"


def test_families_round_trip_byte_identically(tmp_path):
    for inst in (oam_scenario_one(), oam_circle(K=5, random_theta=True)):
        save_instance(tmp_path / "a.npz", inst)
        save_instance(tmp_path / "b.npz", inst)
        assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
        back = load_instance_file(tmp_path / "a.npz")
        assert back.theta_sd == inst.theta_sd and back.p.tolist() == inst.p.tolist()


@pytest.mark.parametrize("change, message", [
    ({"p": np.array([0.6])}, "p must be positive and sum to 1"),
    ({"p": np.array([0.5, 0.5])}, r"p must hold one probability per context, shape \(1,\)"),
    ({"actions": np.ones((3, 2))}, "actions must be an M x K x d array"),
    ({"theta": np.array([1.0, 0.0, 0.0])}, "theta must be a vector of d = 2 entries"),
    ({"theta": np.array([np.nan, 0.0])}, "theta contains NaN or inf"),
    ({"actions": np.array([[[1.0, 0.0], [np.inf, 1.0], [0.9, 0.5]]])}, "actions contains NaN or inf"),
    ({"noise_sd": np.float64(-1.0)}, "noise_sd must be a finite scalar >= 0"),
    ({"horizon": np.float64(10.5)}, "horizon must be an integer scalar >= 3"),
    ({"actions": np.array([[[1.0, 0.0], [2.0, 0.0]]])}, "must span R"),
    ({"actions": np.array([["a", "b"]])}, "actions must hold real numbers"),
])
def test_bad_instance_file_gets_one_clear_message(tmp_path, capsys, change, message):
    write_npz(tmp_path / "bad.npz", {**GOOD, **change})
    code = main(["simulate", "--instance-file", str(tmp_path / "bad.npz"), "--algorithm", "OAM",
                 "--trials", "1", "--seed", "0", "--out", str(tmp_path / "x.csv")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("error: instance file") and __import__("re").search(message, err[0]), err[0]


def test_missing_array_is_named(tmp_path, capsys):
    write_npz(tmp_path / "bad.npz", {k: v for k, v in GOOD.items() if k != "p"})
    assert main(["instance", "--instance-file", str(tmp_path / "bad.npz"), "--out", str(tmp_path / "g.npz"),
                 "--summary", str(tmp_path / "s.json")]) == 2
    assert "lacks p" in capsys.readouterr().err


def test_bad_options_and_wrong_instance_for_an_algorithm(tmp_path, capsys):
    save_instance(tmp_path / "s1.npz", oam_scenario_one(horizon=50))
    args = ["simulate", "--instance-file", str(tmp_path / "s1.npz"), "--trials", "1", "--seed", "0",
            "--out", str(tmp_path / "x.csv")]
    assert main([*args, "--algorithm", "OSSB"]) == 2
    assert "needs a fixed action set (M = 1 context)" in capsys.readouterr().err
    assert main([*args, "--algorithm", "OAM", "--option", "schedule=sometimes"]) == 2
    assert "choose one of constant, loglog" in capsys.readouterr().err
    assert main([*args, "--algorithm", "OAM", "--option", "epsilon=-1"]) == 2
    assert "epsilon must be a finite number >= 0" in capsys.readouterr().err
