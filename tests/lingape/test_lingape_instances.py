"""Instance files, the simulate contract, closed forms and XY-oracle's published total."""
import csv
import json
import math

import numpy as np
import pytest

from linbandits import cli
from linbandits.studies.lingape.algorithms import XYOracle
from linbandits.studies.lingape.designs import oracle_design, soare_oracle_closed_form
from linbandits.studies.lingape.instances import lingape_canonical, lingape_soare


def write(path, **arrays):
    np.savez(path, **arrays)
    return str(path)


def simulate(args, capsys):
    code = cli.main(["simulate", *args])
    return code, capsys.readouterr().err


def good_arrays():
    return {"X": np.eye(3), "theta": np.array([1.0, 0.2, 0.0]), "noise_sd": np.float64(1.0)}


def test_simulate_contract(tmp_path, capsys):
    f = write(tmp_path / "inst.npz", **good_arrays(), delta=np.float64(0.1))
    out = tmp_path / "runs.csv"
    code, err = simulate(["--instance-file", f, "--algorithm", "LinGapE", "--trials", "3", "--seed", "5",
                          "--out", str(out)], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["trial", "recommended", "correct", "stopping_time", "pulls_0", "pulls_1", "pulls_2"]
    for row in rows:
        assert int(row["stopping_time"]) == sum(int(row[f"pulls_{a}"]) for a in range(3))
        assert all(int(row[f"pulls_{a}"]) >= 1 for a in range(3))
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert sidecar["instance_kind"] == "bai" and sidecar["instance_summary"]["delta"] == 0.1
    # run 2 alone, as a chunk of its own, is the same run
    out2 = tmp_path / "run2.csv"
    simulate(["--instance-file", f, "--algorithm", "LinGapE", "--trials", "1", "--first-trial", "2", "--seed", "5",
              "--out", str(out2)], capsys)
    assert list(csv.DictReader(out2.open()))[0] == rows[2]


@pytest.mark.parametrize("change, message", [
    ({"X": np.ones(3)}, "K x d matrix"),
    ({"theta": np.ones(2)}, "theta must be a vector of length d = 3"),
    ({"X": np.array([[1.0, 0, 0], [0, np.nan, 0], [0, 0, 1]])}, "NaN"),
    ({"X": np.array([[1.0, 0, 0], [0, 1, 0], [1, 1, 0]])}, "rank 2 < d = 3"),
    ({"noise_sd": np.float64(0.0)}, "noise_sd = 0.0 must be a finite number > 0"),
    ({"noise_sd": np.ones(2)}, "noise_sd must be a scalar"),
    ({"delta": np.float64(1.5)}, "delta = 1.5 must lie in (0, 1)"),
    ({"epsilon": np.float64(-1.0)}, "epsilon = -1.0 must be >= 0"),
])
def test_bad_instance_files(tmp_path, capsys, change, message):
    f = write(tmp_path / "bad.npz", **{**good_arrays(), **change})
    code, err = simulate(["--instance-file", f, "--algorithm", "XY-static", "--trials", "1", "--seed", "0",
                          "--out", str(tmp_path / "o.csv")], capsys)
    assert code == 2
    assert message in err and err.count("\n") == 1


def test_missing_array_and_unknown_option(tmp_path, capsys):
    arrays = good_arrays()
    del arrays["noise_sd"]
    f = write(tmp_path / "bad.npz", **arrays)
    code, err = simulate(["--instance-file", f, "--algorithm", "LinGapE", "--trials", "1", "--seed", "0",
                          "--out", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and "noise_sd" in err
    f = write(tmp_path / "ok.npz", **good_arrays())
    code, err = simulate(["--instance-file", f, "--algorithm", "LinGapE", "--trials", "1", "--seed", "0",
                          "--option", "rule=sideways", "--out", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and "choose one of greedy, ratio" in err


def test_soare_gaps_and_minimum_gap():
    inst = lingape_soare(d=5)
    assert inst.best_arm == 0
    assert inst.min_gap == pytest.approx(9.999916667e-5, rel=1e-9)
    assert inst.gaps[1:5].tolist() == [2.0, 2.0, 2.0, 2.0]
    canon = lingape_canonical(Delta=0.1)
    assert canon.gaps.tolist() == pytest.approx([0.1] * 5)


def test_oracle_design_matches_closed_form():
    d = 5
    inst = lingape_soare(d=d)
    p, value = oracle_design(inst.X, inst.means)
    closed = soare_oracle_closed_form(d)
    assert closed[:3] == pytest.approx([0.00497498, 0.99495040, 2.48742e-5], rel=2e-6)
    assert p == pytest.approx(closed, abs=1e-7)
    # design value of the closed form: max_i ||y_i / Delta_i||^2 under sum p x x^T
    M = inst.X.T @ (closed[:, None] * inst.X)
    ys = [(inst.X[0] - inst.X[i]) / inst.gaps[i] for i in range(1, d + 1)]
    closed_value = max(float(y @ np.linalg.solve(M, y)) for y in ys)
    assert closed_value == pytest.approx(10100.836, abs=1e-3)
    assert value == pytest.approx(closed_value, rel=1e-6)
    # H_oracle (rho squared) = (1 - cos w + sin w)^2 / Delta_min^2
    w = 0.01
    assert (1 - math.cos(w) + math.sin(w)) ** 2 / inst.min_gap ** 2 == pytest.approx(10100.08, abs=0.01)


def test_xy_oracle_reproduces_table1_total():
    """XY-oracle at d = 5 stops near Table 1's 2,742,457 on any CPU.

    The run is deterministic but ~2.7e6 floating-point pulls long: the pull at which the stopping
    rule first holds may move by a pull or two with another CPU's or BLAS's rounding (issue 26: no
    test pins the bit pattern of a long run). Within 10 pulls here; the exact published total is
    a claim (`table1-oracle-total`, judged on the pipeline's runs), and the engine's exactness is
    tested by whole short runs against the plain oracle (test_lingape_engine_vs_oracle.py)."""
    rec = XYOracle(lingape_soare(d=5)).simulate(0, np.arange(2))
    totals = rec.columns["stopping_time"].tolist()
    assert totals[0] == totals[1]                                 # reward-free: every run the same
    assert abs(totals[0] - 2742457) <= 10
    published = [13646, 2728606, 68, 68, 68, 1]
    got = [int(rec.columns[f"pulls_{a}"][0]) for a in range(6)]
    assert all(abs(g - p) <= 10 for g, p in zip(got, published))   # design tolerance moves a few pulls
