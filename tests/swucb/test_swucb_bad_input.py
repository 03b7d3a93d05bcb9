"""Bad instance files, options and settings each give one clear message."""
import numpy as np
import pytest

from linbandits.catalogue import build_instance, make_algorithm
from linbandits.cli import main
from linbandits.npzfile import write_npz


def run_cli(tmp_path, capsys, arrays, *extra):
    path = tmp_path / "inst.npz"
    write_npz(path, arrays)
    code = main(["simulate", "--instance-file", str(path), "--algorithm", "SW-UCB", "--trials", "1",
                 "--seed", "1", "--out", str(tmp_path / "out.csv"), *extra])
    return code, capsys.readouterr().err


GOOD = {"X": np.eye(2), "thetas": np.full((50, 2), 0.5), "noise_sd": np.float64(0.1)}


@pytest.mark.parametrize("arrays,needle", [
    ({"X": np.eye(2), "noise_sd": np.float64(0.1)}, "thetas (a linear instance needs X, thetas, noise_sd)"),
    ({**GOOD, "thetas": np.full((50, 3), 0.5)}, "thetas must be T x d with d = 2"),
    ({**GOOD, "thetas": np.full((50, 2), np.nan)}, "NaN or inf"),
    ({**GOOD, "noise_sd": np.array([0.1, 0.2])}, "noise_sd must be a finite scalar"),
    ({**GOOD, "X": np.ones((1, 2))}, "need at least 2 arms"),
])
def test_bad_instance_file_gives_one_line(tmp_path, capsys, arrays, needle):
    code, err = run_cli(tmp_path, capsys, arrays)
    assert code == 2 and needle in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("option,needle", [
    ("window=0", "window='0' is not valid"),
    ("window=wide", "one of agnostic, known, eq12, corrected"),
    ("window=known", "needs the nominal variation budget B_T"),
    ("windw=5", "has no option 'windw'"),
    ("lam=-1", "lam=-1.0 must be > 0"),
])
def test_bad_options_give_one_line(tmp_path, capsys, option, needle):
    code, err = run_cli(tmp_path, capsys, GOOD, "--option", option)
    assert code == 2 and needle in err and "Traceback" not in err


def test_cli_writes_one_row_per_run(tmp_path, capsys):
    code, err = run_cli(tmp_path, capsys, GOOD, "--option", "window=7")
    assert code == 0, err
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "trial,regret" and len(lines) == 2
    assert float(lines[1].split(",")[1]) == 0.0     # both arms equal: no regret whatever is pulled


def test_bad_family_setting_and_budget_need():
    with pytest.raises(Exception, match="budget='linear' is not valid"):
        build_instance("swucb_sinusoid", {"budget": "linear"})
    user = build_instance("swucb_sinusoid", {"T": 100})
    user = type(user)(name="u", X=user.X, thetas=user.thetas, noise_sd=0.1)
    with pytest.raises(Exception, match="variation=budget needs the nominal B_T"):
        make_algorithm("EXP3.S", user, {"variation": "budget"})


def test_cli_runs_do_not_depend_on_chunking(tmp_path):
    """Runs 0..3 in one call or as 0..1 + 2..3 (--first-trial): the same rows, byte for byte."""
    def simulate(out, first, n):
        assert main(["simulate", "--instance", "swucb_sinusoid", "--setting", "T=300,budget=cuberoot",
                     "--algorithm", "BOB", "--trials", str(n), "--first-trial", str(first), "--seed", "12",
                     "--out", str(out)]) == 0
        return out.read_text().splitlines()

    whole = simulate(tmp_path / "all.csv", 0, 4)
    parts = simulate(tmp_path / "a.csv", 0, 2) + simulate(tmp_path / "b.csv", 2, 2)[1:]
    assert whole == parts and len(set(whole[1:])) == 4
    import json
    side = json.loads((tmp_path / "all.json").read_text())
    assert side["tuning"]["H"] == 27 and side["tuning"]["J"] == [1, 2, 5, 11, 27]
