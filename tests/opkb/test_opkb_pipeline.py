"""The opkb study through the real pipeline (.test configuration)."""
import json

import pandas as pd
import yaml

from linbandits import pipeline


def config_of(workdir):
    return yaml.safe_load((workdir / "config" / "config.yaml").read_text())


def test_outputs_table_figures_and_claims(full_run):
    config = config_of(full_run)
    experiments = {n: e for n, e in pipeline.study_experiments(config, "opkb").items()
                   if not set(e.algorithms) <= {"OPNN", "OPNN0", "ADA-OPNN"}}     # the default target's
    table = pd.read_csv(full_run / "results/opkb/tables/final_regret.csv")
    assert list(table.columns[:6]) == ["experiment", "algorithm", "n_runs", "T", "mean_regret", "se"]
    assert set(table["experiment"]) == set(experiments)
    for name, exp in experiments.items():
        rows = table[table["experiment"] == name]
        assert len(rows) == len(exp.algorithms)
        assert (rows["n_runs"] == exp.trials * len(exp.setting_ids())).all()
    for stem in ("opkb_fig1", "opkb_fig2"):
        assert (full_run / f"figures/opkb/{stem}.pdf").stat().st_size > 0
        assert (full_run / f"figures/opkb/{stem}.png").stat().st_size > 0
    claims = json.loads((full_run / "results/opkb/claims.json").read_text())
    verdicts = {c["id"]: c["verdict"] for c in claims["claims"]}
    assert {verdicts[k] for k in ("C1_neural", "C2", "C6", "C7_neural", "C8")} == {"not run"}
    assert verdicts["C4_kernel"] in ("holds", "does not hold")
    assert "not run" in (full_run / "results/opkb/claims.md").read_text()


def test_summary_means_are_the_runs_means(full_run):
    summary = json.loads((full_run / "results/opkb/summaries/opkb_env1.json").read_text())
    config = config_of(full_run)
    exp = pipeline.study_experiments(config, "opkb")["opkb_env1"]
    for algorithm in exp.algorithms:
        finals = []
        for setting in exp.setting_ids():
            for path in pipeline.raw_chunk_paths(config, exp, setting, algorithm):
                finals += list(pd.read_csv(full_run / path)["regret"])
        s = summary["algorithms"][algorithm]
        assert s["final"] == finals
        assert abs(s["mean"][-1] - sum(finals) / len(finals)) < 1e-9


def test_results_identical_across_chunk_sizes(full_run, tmp_path, make_workdir, snakemake):
    other = make_workdir(tmp_path / "other", chunk_size=1)
    target = "results/opkb/summaries/opkb_slow.json"
    snakemake(other, "--cores", "1", target)
    assert len(list((other / "results/opkb/raw/opkb_slow/seed0/ADA-OPKB").glob("chunk*.csv"))) == 2
    assert (other / target).read_bytes() == (full_run / target).read_bytes()


def test_neural_variants_are_opt_in(tmp_path, make_workdir, planned_jobs):
    workdir = make_workdir(tmp_path / "fresh")
    default = planned_jobs(workdir, "opkb")
    assert "opkb_report_neural" not in default
    config = config_of(workdir)
    neural = [n for n, e in pipeline.study_experiments(config, "opkb").items()
              if set(e.algorithms) <= {"OPNN", "OPNN0", "ADA-OPNN"}]
    assert neural
    # One simulate job per (experiment, algorithm, run range), every instance seed in it.
    experiments = pipeline.study_experiments(config, "opkb")

    def simulate_jobs(jobs, names):
        return {n: jobs.get(f"simulate_{n}", 0) for n in names}

    kernel = [n for n in experiments if n not in neural]
    expected = {n: len(experiments[n].algorithms) * len(pipeline.chunks(config, experiments[n])) for n in experiments}
    assert simulate_jobs(default, experiments) == {n: expected[n] if n in kernel else 0 for n in experiments}
    jobs = planned_jobs(workdir, "opkb_neural")
    assert jobs["opkb_report_neural"] == 1
    assert simulate_jobs(jobs, experiments) == expected
