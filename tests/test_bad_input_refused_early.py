"""Bad input is refused before any job runs, in one line naming the key or argument and the fix.

Each config mistake below used to pass `snakemake -n` and fail inside a job (or never: an algorithm
listed but run by no experiment); the real Snakemake's dry run must now stop on it. Each command-line
mistake used to print a traceback or numpy's wording; the real CLI must now print one line. A control
run with valid values of the same kinds shows the checks refuse the mistake, not the key."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from linbandits import jobs, validation
from linbandits.errors import UserError
from linbandits.study_config import read_config

REPO = Path(__file__).resolve().parents[1]
TEST_CONFIG = REPO / ".test" / "config" / "config.yaml"


def tiny_config():
    return read_config(TEST_CONFIG)


def p1rage(c):
    return c["studies"]["p1rage"]


def exp(c, name, study="p1rage"):
    return c["studies"][study]["experiments"][name]


def switch(c, name, study="p1rage"):
    return next(sw for sw in c["studies"][study]["switches"] if sw["name"] == name)


# (mutation of the .test config, the key the one line must name, words of the fix it must give)
DRY_RUN_CASES = {
    "setting of the wrong type": (
        lambda c: exp(c, "malicious")["settings"].update(T="abc"),
        "studies/p1rage/experiments/malicious/settings/T", ["'abc' is not a valid int", "default T=10000"]),
    "swept value of the wrong type": (
        lambda c: exp(c, "soare_sto").update(values=[10, "2x10"]),
        "studies/p1rage/experiments/soare_sto/values[1] (swept setting T)", ["'2x10' is not a valid int"]),
    "unknown setting": (
        lambda c: exp(c, "malicious")["settings"].update(horizon=600),
        "studies/p1rage/experiments/malicious/settings/horizon",
        ["has no setting 'horizon'", "its settings are: T, zero_round, noise_sd, noise"]),
    "unknown study-level option": (
        lambda c: p1rage(c).update(options={"P1-RAGE": {"mm": 3}}),
        "studies/p1rage/options/P1-RAGE/mm", ["P1-RAGE has no option 'mm'", "its options are: design", "m (default 15)"]),
    "unknown experiment-level option": (
        lambda c: exp(c, "exp2_canonical", "lingape")["options"]["LinGapE"].update(mm=3),
        "studies/lingape/experiments/exp2_canonical/options/LinGapE/mm", ["LinGapE has no option 'mm'"]),
    "unknown option of a switch run": (
        lambda c: switch(c, "threshold_one")["options"]["P1-RAGE"].update(mm=3),
        "studies/p1rage/switches/threshold_one/options/P1-RAGE/mm", ["P1-RAGE has no option 'mm'"]),
    "option value not among the choices": (
        lambda c: p1rage(c).update(options={"P1-RAGE": {"update": "sometimes"}}),
        "studies/p1rage/options/P1-RAGE/update", ["choose one of batched, every_round"]),
    "study-level algorithm no experiment runs": (
        lambda c: c["studies"]["oam"]["algorithms"].append("LinTS"),
        "studies/oam/algorithms", ["lists LinTS, which no experiment of oam runs",
                                   "remove it from studies/oam/algorithms or add it to an experiment's algorithms"]),
    "R6A source without its directory": (
        lambda c: c.update(r6a={"source": "r6a"}),
        "r6a: r6a_dir is not set", ["set r6a: r6a_dir to the directory holding the seven licensed R6A day files",
                                    "or use r6a: source: synthetic"]),
}


def write_config(workdir, config):
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


@pytest.mark.parametrize("case", list(DRY_RUN_CASES))
def test_the_dry_run_refuses_it_in_one_line(case, tmp_path, make_workdir, snakemake):
    mutate, key, fix = DRY_RUN_CASES[case]
    work = make_workdir(tmp_path / "w")
    config = tiny_config()
    mutate(config)
    write_config(work, config)
    out = snakemake(work, "-n", "--cores", "1", check=False, timeout=300)
    assert out.returncode != 0, f"the dry run accepted the {case}:\n{out.stdout[-2000:]}"
    errors = [line for line in out.stderr.splitlines() if line.startswith("config:")]
    assert len(errors) == 1, out.stderr
    assert key in errors[0] and all(words in errors[0] for words in fix), errors[0]
    assert "Traceback" not in out.stderr and "R6A_DIR_NOT_SET" not in out.stderr


def test_control_valid_values_of_the_same_kinds_pass_the_dry_run(tmp_path, make_workdir, planned_jobs):
    """Settings, swept values and options given as strings the jobs read (as they reach the command line),
    a choice, and the R6A source with its directory: the same keys as above, all accepted."""
    work = make_workdir(tmp_path / "w")
    config = tiny_config()
    exp(config, "malicious")["settings"].update(T="600", zero_round="true")
    exp(config, "soare_sto").update(values=[10, "210"])
    p1rage(config).update(options={"P1-RAGE": {"m": "15", "update": "every_round"}})
    switch(config, "threshold_one")["options"]["P1-RAGE"].update(first_threshold=1)
    config["r6a"] = {"source": "r6a", "r6a_dir": str(tmp_path / "r6a")}
    write_config(work, config)
    jobs = planned_jobs(work)
    assert jobs["yahoo_check"] == 1 and "simulate_malicious" in jobs


# The same checks through validation.validate_config: the cases above and their neighbours.
UNIT_CASES = [
    (lambda c: exp(c, "malicious")["settings"].update(zero_round="maybe"), "settings/zero_round: .* not a valid bool"),
    (lambda c: exp(c, "malicious")["settings"].update(noise="uniform"),
     r"settings/noise = 'uniform' is not allowed for instance family malicious; choose one of gaussian, bounded"),
    (lambda c: exp(c, "soare_sto").update(values=[10, 210.5]), r"values\[1\] \(swept setting T\): .*'210.5' is not a valid int"),
    (lambda c: exp(c, "soare_sto").update(sweep="horizon"),
     "soare_sto/sweep = 'horizon' is not a setting of instance family soare_sto; its settings are: T, omega"),
    (lambda c: exp(c, "soare_osci")["settings"].update(s=1),
     "soare_osci/settings/s is the swept setting, which each value of .* replaces; remove it from settings"),
    (lambda c: exp(c, "opkb_env1", "opkb").update(values=[-1]),
     r"opkb_env1/values\[0\] \(swept setting seed\): .*seed='-1' is not a valid seed; seeds are integers from 0"),
    (lambda c: switch(c, "threshold_one")["options"].update({"Peace": {"design": "exact"}}),
     "switches/threshold_one/options/Peace: the experiment does not run Peace, so these options apply to "
     "nothing .*; remove them or run Peace"),
    (lambda c: switch(c, "no_zero_round")["settings"].update(zero_round="maybe"),
     "switches/no_zero_round/settings/zero_round: .* not a valid bool"),
    (lambda c: switch(c, "no_zero_round").update(of=["nope"]),
     "switches/no_zero_round/of: 'nope' is not an experiment of p1rage"),
    (lambda c: c["studies"]["swucb"].update(options={"P1-RAGE": {"m": 3}}),
     "studies/swucb/options/P1-RAGE: no experiment of study swucb runs P1-RAGE"),
    (lambda c: p1rage(c).update(options={"P2-RAGE": {"m": 3}}),
     "studies/p1rage/options/P2-RAGE: unknown algorithm 'P2-RAGE'; the algorithms of study p1rage are: G-BAI"),
    (lambda c: p1rage(c).update(options={"P1-RAGE": {"m": 2.5}}), "options/P1-RAGE/m: .*'2.5' is not a valid int"),
    (lambda c: exp(c, "exp1_soare_xy", "lingape").update(options={"XY-static": {"max_pulls": "lots"}}),
     "exp1_soare_xy/options/XY-static/max_pulls: .*'lots' is not a valid int"),
    (lambda c: c["studies"]["lingape"]["options"]["XY-adaptive"].update(max_pull=10),
     "studies/lingape/options/XY-adaptive/max_pull: XY-adaptive has no option 'max_pull'; its options are: .*max_pulls"),
    (lambda c: c.update(r6a={"source": "r6a", "r6a_dir": ""}), "r6a: source is r6a but r6a: r6a_dir is not set"),
]


@pytest.mark.parametrize("mutate, message", UNIT_CASES)
def test_validation_names_the_key_and_the_fix(mutate, message):
    config = tiny_config()
    validation.validate_config(config, REPO / "workflow/schemas/config.schema.yaml")   # control: valid as it is
    config = tiny_config()
    mutate(config)
    with pytest.raises(UserError, match=message) as err:
        validation.validate_config(config, REPO / "workflow/schemas/config.schema.yaml")
    assert "\n" not in str(err.value)


def test_the_published_config_passes_every_check():
    validation.validate_config(read_config(REPO / "config/config.yaml"),
                             REPO / "workflow/schemas/config.schema.yaml")


# ------------------------------------------------------------------ command line

def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "linbandits.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def one_line_error(run) -> str:
    assert run.returncode == 2, (run.returncode, run.stderr[-2000:])
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr[-2000:]
    return lines[0]


@pytest.fixture(scope="module")
def instance_file(tmp_path_factory):
    where = tmp_path_factory.mktemp("instance")
    run = cli("instance", "--instance", "malicious", "--setting", "T=50", "--out", where / "good.npz",
              "--summary", where / "good.json", cwd=where)
    assert run.returncode == 0, run.stderr
    return where / "good.npz"


@pytest.mark.parametrize("args, expected", [
    (["simulate", "--instance", "malicious", "--setting", "T=50", "--algorithm", "G-BAI", "--trials", 1,
      "--seed", -1, "--out", "x.csv"], "error: --seed must be >= 0 (numpy's SeedSequence takes non-negative integers), got -1"),
    (["run-job", "{plan}"], "the seed must be >= 0 (numpy's SeedSequence takes non-negative integers), got -5"),
    (["batch", "simulate --instance malicious --algorithm G-BAI --trials 1 --seed -1 --out x.csv"],
     "error: --seed must be >= 0"),
    (["yahoo-synthetic", "--out-dir", "syn", "--lines-per-day", 100, "--seed", -1], "error: --seed must be >= 0"),
    (["p1rage-yahoo-instance", "--days", *"abcdefg", "--pca", "per_day", "--L", 10, "--seed", -1, "--out", "y.npz",
      "--summary", "y.json"], "error: --seed must be >= 0"),
    (["instance", "--instance", "opkb_env1", "--setting", "seed=-1", "--out", "o.npz", "--summary", "o.json"],
     "setting seed='-1' is not a valid seed; seeds are integers from 0 to 2**32 - 1"),
    (["instance", "--instance", "oam_circle", "--setting", "arm_seed=-2", "--out", "o.npz", "--summary", "o.json"],
     "setting arm_seed='-2' is not a valid seed"),
])
def test_a_negative_seed_is_one_line(args, expected, tmp_path, instance_file):
    # a simulate job's plan: its second cell's seed is negative
    plan = jobs.write_plan(str(instance_file.parent / "plan.json"), {"runner": jobs.SIMULATE, "tasks": [
        {"algorithm": "G-BAI", "options": {}, "first_trial": 0, "trials": 1, "curves": False,
         "cells": [{"instance": str(instance_file), "seed": s, "out": out} for s, out in ((3, "first.csv"),
                                                                                        (-5, "second.csv"))]}]})
    run = cli(*[str(a).format(good=instance_file, plan=plan) for a in args], cwd=tmp_path)
    line = one_line_error(run)
    assert expected in line
    assert list(tmp_path.iterdir()) == []   # refused before anything is written (a plan: not even cell 1)


def corrupt_files(where, good):
    where.mkdir()
    (where / "text.npz").write_text("not an archive\n")
    (where / "random.npz").write_bytes(np.random.default_rng(0).bytes(300))          # np.load: "pickled data"
    (where / "truncated.npz").write_bytes(good.read_bytes()[:500])
    np.savez(where / "objects.npz", X=np.array([{"a": 1}], dtype=object))
    damaged = bytearray(good.read_bytes())
    damaged[200:260] = bytes(60)
    (where / "damaged.npz").write_bytes(bytes(damaged))
    return {"text": "not an .npz (zip) archive", "random": "not an .npz (zip) archive",
            "truncated": "not an .npz (zip) archive", "objects": "holds Python objects",
            "damaged": "cannot be read (Bad CRC-32"}


def test_a_corrupt_instance_file_is_one_line_naming_it_and_how_to_regenerate_it(tmp_path, instance_file):
    reasons = corrupt_files(tmp_path / "files", instance_file)
    control = cli("simulate", "--instance-file", instance_file, "--algorithm", "G-BAI", "--trials", 1, "--seed", 1,
                  "--out", tmp_path / "ok.csv", cwd=tmp_path)
    assert control.returncode == 0, control.stderr
    for name, reason in reasons.items():
        path = tmp_path / "files" / f"{name}.npz"
        line = one_line_error(cli("simulate", "--instance-file", path, "--algorithm", "G-BAI", "--trials", 1,
                                  "--seed", 1, "--out", tmp_path / "x.csv", cwd=tmp_path))
        assert line.startswith(f"error: {path} is not a valid instance file: "), line
        assert reason in line and "pickle" not in line, line
        assert "regenerate it: delete it and rerun snakemake" in line
        assert f"linbandits instance --instance FAMILY --setting K=V,... --out {path} --summary " in line
