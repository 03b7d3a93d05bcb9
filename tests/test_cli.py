"""linbandits.cli: the command line. `instance-cells` writes, for every setting, exactly what `instance`
writes for it alone; `batch` runs its commands in order in one process, stops at the first failure and
holds commands, not batches; `--setting`/`--option` pairs parse into one dict or one line naming the
mistake. (`simulate` by hand: tests/test_designs_and_cli.py; a simulate job's plan: tests/test_cells.py.)
"""
import shlex

import numpy as np
import pytest

from linbandits import cli
from linbandits.cli import main
from linbandits.errors import UserError


def npz_arrays(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def test_instance_cells_write_what_instance_writes(tmp_path):
    args = ["instance-cells", "--instance", "soare_osci", "--setting", "L=200"]
    for i, own in enumerate(["s=0", "s=2.5", "s=7"]):
        args += ["--cell", own, str(tmp_path / f"cells{i}.npz"), str(tmp_path / f"cells{i}.json")]
        assert main(["instance", "--instance", "soare_osci", "--setting", f"L=200,{own}", "--out",
                     str(tmp_path / f"one{i}.npz"), "--summary", str(tmp_path / f"one{i}.json")]) == 0
    assert main(args) == 0
    for i in range(3):
        a, b = npz_arrays(tmp_path / f"cells{i}.npz"), npz_arrays(tmp_path / f"one{i}.npz")
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
        assert (tmp_path / f"cells{i}.json").read_text() == (tmp_path / f"one{i}.json").read_text()


def simulate(out, algorithm="G-BAI", trials=3):
    return (f"simulate --instance malicious --setting T=60 --algorithm {algorithm} --trials {trials} --seed 4 "
            f"--out {shlex.quote(str(out))}")


def test_a_batch_writes_what_its_commands_write_one_by_one_and_stops_at_a_failure(tmp_path):
    algorithms = ["G-BAI", "Peace", "OD-LinBAI"]
    assert main(["batch", *[simulate(tmp_path / f"batch_{a}.csv", a) for a in algorithms]]) == 0
    for a in algorithms:
        assert main(shlex.split(simulate(tmp_path / f"one_{a}.csv", a))) == 0
        assert (tmp_path / f"batch_{a}.csv").read_bytes() == (tmp_path / f"one_{a}.csv").read_bytes()
    # a failing command stops the batch with its code; the commands after it do not run
    assert main(["batch", simulate(tmp_path / "bad.csv", trials=0), simulate(tmp_path / "after.csv")]) == 2
    assert not (tmp_path / "after.csv").exists()
    assert main(["batch", "batch simulate"]) == 2
    assert main(["batch"]) == 2


@pytest.mark.parametrize("items, expected", [
    (["a=1,b=2", "c=x"], {"a": "1", "b": "2", "c": "x"}),
    ([" a = 1 ,", "a=2"], {"a": "2"}),
    (None, {}),
])
def test_pairs_parse_into_one_dict(items, expected):
    assert cli.parse_pairs(items, "--setting") == expected


def test_a_pair_without_its_value_is_one_line_naming_it():
    with pytest.raises(UserError, match=r"--option 'm' is not of the form KEY=VALUE"):
        cli.parse_pairs(["m"], "--option")


def test_every_delegated_command_is_listed_and_a_simulate_job_runs_through_one(capsys):
    """`run-job` runs a plan file (the workflow's simulate jobs); `simulate-cells` is gone with the
    command lines it parsed."""
    assert "run-job" in cli.delegated_commands()
    assert main(["simulate-cells", "--algorithm", "G-BAI"]) == 2
    assert "invalid choice: 'simulate-cells'" in capsys.readouterr().err
