"""The opkb study through the real pipeline (.test configuration, shared full run)."""
import json

import pandas as pd
import yaml

from linbandits import experiments, paths
from linbandits.studies.opkb.products import SWITCH_COLUMNS, TABLE_COLUMNS
from linbandits.studies.opkb.tuning import grid_points, point_batches
from linbandits.study_config import read_config

NEURAL = {"OPNN", "OPNN0", "ADA-OPNN"}


def config_of(workdir):
    return read_config(workdir / "config" / "config.yaml")   # with the studies' defaults


def published(config):
    return {n: e for n, e in experiments.study_experiments(config, "opkb").items() if not e.opt_in and not e.switch_of}


def test_table_matches_the_raw_runs(full_run):
    config = config_of(full_run)
    published_exps = published(config)
    table = pd.read_csv(full_run / "results/opkb/tables/final_regret.csv")
    assert list(table.columns) == TABLE_COLUMNS
    assert list(table["experiment"].unique()) == list(published_exps)
    for row in table.itertuples():
        exp = published_exps[row.experiment]
        algorithm = row.algorithm.split(" (window ")[0]          # SW-GPUCB's label names its window
        finals = pd.concat(pd.read_csv(full_run / p) for s in exp.setting_ids()
                           for p in paths.raw_chunk_paths(config, exp, s, algorithm))["regret"]
        assert row.n_runs == exp.trials * len(exp.setting_ids()) == len(finals)
        assert abs(row.mean_regret - finals.mean()) < 1e-9 * max(1.0, abs(finals.mean()))
    switches = pd.read_csv(full_run / "results/opkb/tables/switch_regret.csv")
    assert list(switches.columns) == SWITCH_COLUMNS
    assert set(switches["experiment"]) == {n for n, e in experiments.study_experiments(config, "opkb").items()
                                           if e.switch_of and not e.opt_in}
    assert set(switches[switches["choice"] == "removal"]["algorithm"]) == {"SW-GPUCB (window 200)",
                                                                           "SW-GPUCB (window 100)"}


def test_figures_and_claims(full_run):
    for stem in ("opkb_fig1", "opkb_fig2"):
        for ext in ("pdf", "png"):
            assert (full_run / f"figures/opkb/{stem}.{ext}").stat().st_size > 1000
    claims = json.loads((full_run / "results/opkb/claims.json").read_text())
    by_id = {c["id"]: c for c in claims["claims"]}
    for k in ("C8_window", "C8_discount"):
        assert by_id[k]["verdict"] == "not run", k
    # the neural variants run in the default target: every claim but C8 is judged
    for k in ("C1_neural", "C2", "C3_neural", "C4_neural", "C5_neural", "C6", "C6_gpucb", "C6_opkb", "C7_neural",
              "C7_window1000_neural", "C3_kernel", "C4_kernel", "C5_kernel", "C7_kernel", "C7_window1000"):
        assert by_id[k]["verdict"] in ("holds", "does not hold", "inconclusive"), k
        for part in by_id[k]["parts"]:
            assert part["low"] is not None and part["high"] is not None and part["n"] == 2
            assert part["method"].startswith("paired")
    # C3, C5 and C7 judged again under both switches of the tiny config; C4 does not depend on them
    for k in ("C3_kernel", "C5_kernel", "C7_kernel", "C7_window1000"):
        runs = {(r["choice"], r["value"]) for r in by_id[k]["robustness"]["runs"]}
        assert runs == {("removal", "published"), ("window", "300")}, k
    assert by_id["C4_kernel"]["robustness"]["runs"] == []
    assert [r["experiments"] for r in by_id["C7_window1000"]["robustness"]["runs"]] == [
        ["opkb_slow__published", "opkb_slow_sw1000__published"], ["opkb_slow__w300"]]
    # C1 reads Env 1 at its switch (t = 200 in the tiny config)
    assert "t = 200" in by_id["C1_kernel"]["parts"][0]["label"]
    md = (full_run / "results/opkb/claims.md").read_text()
    assert "neural variants at width 8 (paper: 2048), float32" in md and "removal" in md


def test_runs_files_do_not_depend_on_chunking(full_run, tmp_path, make_workdir, snakemake):
    other = make_workdir(tmp_path / "other", chunk_size=1)
    target = "results/opkb/runs/opkb_slow.npz"
    snakemake(other, "--cores", "1", target)
    assert len(list((other / "results/opkb/raw/opkb_slow/seed0/ADA-OPKB").glob("chunk*.csv"))) == 2
    assert (other / target).read_bytes() == (full_run / target).read_bytes()


def test_study_target_builds_nothing_twice(full_run, planned_jobs):
    assert planned_jobs(full_run, "opkb") == {}


def test_neural_variants_run_by_default_and_tuning_is_opt_in(tmp_path, make_workdir, planned_jobs):
    workdir = make_workdir(tmp_path / "fresh")
    config = config_of(workdir)
    exps = experiments.study_experiments(config, "opkb")
    neural = [n for n, e in exps.items() if set(e.algorithms) <= NEURAL]
    assert {a for n in neural for a in exps[n].algorithms} == NEURAL and not any(exps[n].opt_in for n in neural)

    def simulate_jobs(jobs):
        return {n: jobs.get(f"simulate_{n}", 0) for n in exps}

    expected = {n: len(e.algorithms) * len(experiments.chunks(config, e)) for n, e in exps.items()}
    default = planned_jobs(workdir, "opkb")
    assert simulate_jobs(default) == {n: 0 if exps[n].opt_in else expected[n] for n in exps}
    assert all(simulate_jobs(default)[n] for n in neural)
    # one table, figure and claims product each (none of the former opkb_neural target's *_neural ones)
    assert default["opkb_claims"] == default["opkb_opkb_fig1"] == default["opkb_opkb_fig2"] == 1
    assert not any(k.startswith("opkb_") and k.endswith("_neural") for k in default)
    assert not any(k.endswith(("_tuning", "tuning_table")) or k.startswith("opkb_tune_") for k in default)
    tuning = planned_jobs(workdir, "opkb_tuning")
    points = grid_points(config["studies"]["opkb"]["tuning"], exps["opkb_env1"].options)
    batches = point_batches(points, 10)
    assert sorted((a, i) for a, _, indices in batches for i in indices) == \
        sorted((a, i) for a, options in points.items() for i in range(len(options)))
    assert {k: n for k, n in tuning.items() if k.startswith("opkb_tune_")} == \
        {f"opkb_tune_{a.replace('-', '_')}_{first:04d}": 1 for a, first, _ in batches}
    assert tuning["opkb_tuning_table"] == tuning["opkb_claims_tuning"] == 1


def test_a_batch_of_tuning_points_writes_what_one_job_a_point_wrote(tmp_path, make_workdir, snakemake):
    """Two points a job (`points_per_job: 2`): every point's file is the one a job of that point alone
    writes (the former layout: one job a point), and each job's plan holds its points."""
    import subprocess
    import sys

    from linbandits import jobs
    from linbandits.studies.opkb import tuning

    work = make_workdir(tmp_path / "batched")
    config_path = work / "config" / "config.yaml"
    raw = yaml.safe_load(config_path.read_text())
    raw["studies"]["opkb"]["tuning"]["points_per_job"] = 2
    config_path.write_text(yaml.safe_dump(raw, sort_keys=False))
    config = config_of(work)
    exp = experiments.study_experiments(config, "opkb")[config["studies"]["opkb"]["tuning"]["experiment"]]
    points = grid_points(config["studies"]["opkb"]["tuning"], exp.options)
    assert any(len(indices) > 1 for _, _, indices in point_batches(points, 2))
    files = [f"results/opkb/tuning/{a}/point{i:04d}.json" for a, options in points.items() for i in range(len(options))]
    snakemake(work, "--cores", "2", *files)
    batches = tuning.jobs(config)
    assert sorted(f for r in batches for f in r.outputs["points"]) == sorted(files)
    for rule in batches:
        plan = rule.plan({})
        assert json.loads((work / rule.plan_file).read_text()) == plan      # what the job read
        for point in plan["points"]:
            alone = tmp_path / "alone.json"
            one = jobs.write_plan(str(tmp_path / "one.json"), {**plan, "points": [{**point, "out": str(alone)}]})
            subprocess.run([sys.executable, "-m", "linbandits", "run-job", one], cwd=work, check=True,
                           capture_output=True)
            assert (work / point["out"]).read_bytes() == alone.read_bytes(), point