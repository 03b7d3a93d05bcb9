"""Instances drawn as the authors drew them; the instance file kind; the simulate contract and bad input."""
import json

import numpy as np
import pandas as pd
import pytest

from linbandits.cli import main
from linbandits.errors import UserError
from linbandits.npzfile import write_npz
from linbandits.problems import load_instance_file, save_instance
from linbandits.studies.opkb import instances


def test_env1_is_the_authors_draw():
    """Legacy seed s: A = randn(N, d) normalised, r ~ N(0, K) (RandomState.multivariate_normal), max|r| = 0.8;
    r for t <= 3000, -r after."""
    inst = instances.opkb_env1(seed=3)
    state = np.random.RandomState(3)
    A = state.randn(100, 10)
    A /= np.linalg.norm(A, axis=1)[:, None]
    K = np.exp(-np.sum((A[:, None] - A[None]) ** 2, axis=2) / (2 * 0.2 ** 2))
    r = state.multivariate_normal(np.zeros(100), K)
    r = r / np.abs(r).max() * 0.8
    assert np.allclose(inst.arms, A, atol=1e-15)
    assert np.allclose(inst.rewards[0], r, atol=1e-12)
    assert np.array_equal(inst.rewards[2999], inst.rewards[0]) and np.array_equal(inst.rewards[3000], -inst.rewards[0])
    assert inst.rewards.shape == (10000, 100) and np.abs(inst.rewards).max() == pytest.approx(0.8)


def test_env2_switches_and_cosine_phases():
    inst = instances.opkb_env2(seed=0, T=6000)
    signs = np.sign(inst.rewards[:, 0] / inst.rewards[0, 0])
    assert signs[1499] == 1 and signs[1500] == -1 and signs[4999] == -1 and signs[5000] == 1
    slow = instances.opkb_cosine_slow(seed=0, T=7000)
    assert np.array_equal(slow.rewards[999], slow.rewards[0])
    assert np.allclose(slow.rewards[3500], -slow.rewards[0])     # phase pi
    assert np.allclose(slow.rewards[6500], slow.rewards[0])      # phase 2 pi
    cos = instances.opkb_cosine(seed=0, T=5)
    assert cos.rewards.shape == (5, 256) and np.array_equal(cos.rewards[4], cos.rewards[0])


def test_instance_file_round_trip(tmp_path):
    inst = instances.opkb_env1(seed=0, N=5, d=2, T=7, switch=3)
    save_instance(tmp_path / "i.npz", inst)
    back = load_instance_file(tmp_path / "i.npz")
    assert back.kind == "arm_rewards" and np.array_equal(back.rewards, inst.rewards)


@pytest.mark.parametrize("arrays, message", [
    ({"arms": np.zeros((4, 2)), "rewards": np.zeros((5, 3)), "noise_sd": np.float64(0.1)}, "rewards must be T x N"),
    ({"arms": np.zeros(4), "rewards": np.zeros((5, 4)), "noise_sd": np.float64(0.1)}, "arms must be an N x d"),
    ({"arms": np.zeros((4, 2)), "rewards": np.full((5, 4), np.nan), "noise_sd": np.float64(0.1)}, "NaN"),
    ({"arms": np.zeros((4, 2)), "rewards": np.zeros((5, 4)), "noise_sd": np.float64(-1)}, "noise_sd"),
    ({"arms": np.zeros((4, 2)), "noise_sd": np.float64(0.1)}, "lacks rewards"),
])
def test_bad_instance_files_give_one_clear_message(tmp_path, arrays, message):
    write_npz(tmp_path / "bad.npz", arrays)
    with pytest.raises(UserError, match=message):
        load_instance_file(tmp_path / "bad.npz")


def test_simulate_contract(tmp_path, capsys):
    inst = instances.opkb_env1(seed=0, N=8, d=3, T=300, switch=100)
    save_instance(tmp_path / "i.npz", inst)
    out = tmp_path / "r.csv"
    assert main(["simulate", "--instance-file", str(tmp_path / "i.npz"), "--algorithm", "SW-GPUCB", "--trials", "2",
                 "--seed", "4", "--out", str(out), "--option", "window=50", "--curves", str(tmp_path / "c.npz")]) == 0
    table = pd.read_csv(out)
    assert list(table.columns) == ["trial", "regret"] and list(table["trial"]) == [0, 1]
    curves = np.load(tmp_path / "c.npz")
    assert np.allclose(curves["regret"][:, -1], table["regret"]) and curves["t"][-1] == 300
    assert json.loads(out.with_suffix(".json").read_text())["options"]["window"] == 50
    # run 1 alone gives the same number (run i depends only on (seed, i))
    main(["simulate", "--instance-file", str(tmp_path / "i.npz"), "--algorithm", "SW-GPUCB", "--trials", "1",
          "--first-trial", "1", "--seed", "4", "--out", str(tmp_path / "one.csv"), "--option", "window=50"])
    assert pd.read_csv(tmp_path / "one.csv")["regret"][0] == table["regret"][1]
    assert main(["simulate", "--instance-file", str(tmp_path / "i.npz"), "--algorithm", "ADA-OPKB", "--trials", "1",
                 "--seed", "4", "--out", str(out), "--option", "windw=5"]) == 2
    assert "no option 'windw'" in capsys.readouterr().err


def test_truncated_noise_needs_rewards_below_one(tmp_path, capsys):
    write_npz(tmp_path / "big.npz", {"arms": np.eye(3), "rewards": np.full((5, 3), 1.5), "noise_sd": np.float64(0.1)})
    assert main(["simulate", "--instance-file", str(tmp_path / "big.npz"), "--algorithm", "GP-UCB", "--trials", "1",
                 "--seed", "0", "--out", str(tmp_path / "o.csv")]) == 2
    assert "noise=gaussian" in capsys.readouterr().err


def test_help_lists_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = capsys.readouterr().out
    for option in ("rbf_length", "lam", "v=", "window", "discount", "scale", "sigma", "beta_scale", "mu_scale",
                   "e_scale", "g_scale", "eps_scale", "mixture_probability"):
        assert option in text


def test_an_opkb_simulate_job_imports_neither_numba_nor_other_studies(tmp_path):
    """The fixed cost of a job: loading an instance file that names its kind imports that kind's module only
    (OAM's pulls in numba), and OPKB / ADA-OPKB run without numba."""
    import subprocess
    import sys

    path = tmp_path / "env1.npz"
    save_instance(path, instances.opkb_env1(seed=0, N=12, d=3, T=60, switch=30))
    code = ("import sys; from linbandits.problems import load_instance_file; "
            "from linbandits.catalogue import make_algorithm; import numpy as np; "
            f"inst = load_instance_file({str(path)!r}); "
            "make_algorithm('ADA-OPKB', inst, {}).simulate(1, np.arange(1)); "
            "print(sorted(m for m in sys.modules if m == 'numba' or m.startswith('linbandits.studies.')))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    loaded = eval(out.strip().splitlines()[-1])
    assert "numba" not in loaded
    assert not [m for m in loaded if m.count(".") > 2 and not m.startswith("linbandits.studies.opkb.")], loaded
