"""Designs against the exact solver, and the command line's handling of bad input."""
import subprocess
import sys

import numpy as np
import pytest

from linbandits.studies.p1rage.designs import exact_design, frank_wolfe_designs
from linbandits.catalogue import build_instance
from linbandits.problems import save_instance


def soare_arms(omega=0.1, d=10):
    x = np.zeros(d)
    x[0], x[1] = np.cos(omega), np.sin(omega)
    return np.vstack([np.eye(d), x])


@pytest.mark.parametrize("X", [soare_arms(), np.random.default_rng(0).standard_normal((9, 4))],
                         ids=["soare", "random"])
def test_frank_wolfe_within_one_percent_of_cvxpy_when_run_long(X):
    everything = np.ones(len(X), dtype=bool)
    _, exact = exact_design(X, everything, "xy")
    _, fw = frank_wolfe_designs(X, everything[None], "xy", iterations=5000)
    assert exact <= fw[0] * (1 + 1e-6)  # the exact optimum is the lower one
    assert fw[0] <= exact * 1.01
    _, published = frank_wolfe_designs(X, everything[None], "xy")  # 999 steps
    assert published[0] <= exact * 1.02


def test_g_optimal_value_is_d_kiefer_wolfowitz():
    X = np.random.default_rng(1).standard_normal((12, 5))
    _, exact = exact_design(X, np.ones(12, bool), "g")
    assert exact == pytest.approx(5, rel=1e-4)
    # The published 999 steps of size 0.5/(k+2) get within 2% (here 5.06).
    _, fw = frank_wolfe_designs(X, np.ones((1, 12), bool), "g")
    assert 5 <= fw[0] <= 5 * 1.02


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "linbandits.cli", *args], capture_output=True, text=True)


def test_unknown_algorithm_lists_the_valid_ones(tmp_path):
    out = run_cli("simulate", "--instance", "malicious", "--algorithm", "P2-RAGE", "--trials", "1",
                  "--seed", "0", "--out", str(tmp_path / "o.csv"))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    for name in ("G-BAI", "P1-RAGE", "P1-Peace", "Peace", "Mixed-Peace", "OD-LinBAI"):
        assert name in out.stderr
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("arrays, message", [
    ({"X": np.eye(3), "thetas": np.ones((5, 2)), "noise_sd": 1.0}, "thetas must be T x d"),
    ({"X": np.eye(3), "thetas": np.full((5, 3), np.nan), "noise_sd": 1.0}, "NaN or inf"),
    ({"X": np.ones((4, 3)), "thetas": np.ones((5, 3)), "noise_sd": 1.0}, "rank"),
    ({"X": np.eye(3), "thetas": np.ones((5, 3)), "noise_sd": -1.0}, "noise_sd"),
    ({"X": np.eye(3), "thetas": np.ones((5, 3))}, "lacks noise_sd"),
])
def test_bad_instance_file_is_one_clear_message(tmp_path, arrays, message):
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    out = run_cli("simulate", "--instance-file", str(path), "--algorithm", "G-BAI", "--trials", "1",
                  "--seed", "0", "--out", str(tmp_path / "o.csv"))
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr


def test_simulate_writes_csv_and_sidecar(tmp_path):
    inst = build_instance("soare_sto", {"T": 50})
    path = tmp_path / "inst.npz"
    save_instance(path, inst)
    out = run_cli("simulate", "--instance-file", str(path), "--algorithm", "P1-RAGE", "--trials", "5",
                  "--first-trial", "10", "--seed", "3", "--out", str(tmp_path / "o.csv"), "--option", "m=3")
    assert out.returncode == 0, out.stderr
    lines = (tmp_path / "o.csv").read_text().splitlines()
    assert lines[0] == "trial,recommended,correct" and [int(l.split(",")[0]) for l in lines[1:]] == list(range(10, 15))
    import json
    meta = json.loads((tmp_path / "o.json").read_text())
    assert meta["options"]["m"] == 3 and meta["seed"] == 3 and "elapsed_seconds" in meta and meta["version"]
