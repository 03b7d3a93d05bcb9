"""The config-expansion logic behind the rules (linbandits.pipeline)."""
import copy
import dataclasses
import shlex
import types
import pytest

from linbandits import catalogue, experiments, jobs, paths, products, validation
from linbandits.errors import UserError
from linbandits.study_config import read_config
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"


@pytest.fixture
def config():
    return read_config(REPO / "config/config.yaml")


def test_default_config_is_valid_and_has_the_paper_grid(config):
    validation.validate_config(config, SCHEMA)
    # Other studies add their own experiments; this test pins P1-RAGE's grid.
    exps = {n: e for n, e in experiments.experiments(config).items()
            if e.study == "p1rage" and not e.switch_of}
    assert set(exps) == {"soare_sto", "soare_osci", "soare_period", "multi_osci", "multi_period",
                         "malicious", "multi_sto", "yahoo_repeat"}
    trials = sum(e.trials * len(e.setting_ids()) * len(e.algorithms) for e in exps.values())
    assert trials == 1_098_000  # spec C trial counts
    assert exps["soare_period"].instance_settings("L1800") == {"s": 2.5, "L": 1800}
    assert exps["malicious"].setting_ids() == ["single"]
    switches = {n: e for n, e in experiments.experiments(config).items() if e.study == "p1rage" and e.switch_of}
    assert switches, "the P1-RAGE switch runs (the former ablations) are rows of its switches table"
    choices = config["studies"]["p1rage"]["choices"]
    for name, switch in switches.items():
        assert switch.switch_of in exps and switch.changes and switch.choice in choices
        assert name == f"{switch.switch_of}__{name.split('__')[1]}"


def test_chunks_cover_every_trial_once(config):
    exp = experiments.experiments(config)["soare_sto"]
    for size in (1, 7, 3000, 50000):
        config["chunk_size"] = size
        chunks = experiments.chunks(config, exp)
        covered = [t for lo, n in chunks for t in range(lo, lo + n)]
        assert covered == list(range(exp.trials))
    assert experiments.chunk_bounds("3000-5999") == (3000, 3000)


def test_trial_scale_and_seeds(config):
    config["trial_scale"] = 0.01
    assert experiments.experiments(config)["soare_sto"].trials == 210
    a = experiments.job_seed(config, "soare_sto", "T10")
    assert a == experiments.job_seed(config, "soare_sto", "T10")
    assert a != experiments.job_seed(config, "soare_sto", "T1010")


@pytest.mark.parametrize("mutate, message", [
    (lambda c: c.update(chunk_sise=3), "unknown key 'chunk_sise'"),
    (lambda c: c["studies"]["p1rage"]["experiments"]["malicious"].update(trials="x"), "wrong type"),
    (lambda c: c["r6a"].update(source="web"), "choose one of synthetic, r6a"),
    (lambda c: c["studies"]["p1rage"].update(experimentz={}), "unknown key 'experimentz' at studies/p1rage"),
    (lambda c: c["studies"]["p1rage"]["yahoo"].update(pca="global"), "studies/p1rage/yahoo/pca"),
    # the figure `kind:` is retired: a config that still says it is refused in one line
    (lambda c: c["studies"]["p1rage"]["figures"]["fig4_malicious"].update(kind="bars"), "unknown key 'kind'"),
    (lambda c: c["studies"]["p1rage"]["figures"]["fig4_malicious"].update(caption="fig4.rst"), "caption"),
    (lambda c: c["studies"].update(nosuchpaper=c["studies"]["p1rage"]), "nosuchpaper is not a study"),
    (lambda c: c["studies"]["p1rage"].update(algorithms=["G-BAI", "P2-RAGE"]), "unknown algorithm 'P2-RAGE'"),
    (lambda c: c["studies"]["p1rage"]["experiments"]["malicious"].update(instance="evil"), "unknown instance 'evil'"),
])
def test_bad_config_names_the_problem(config, mutate, message):
    mutate(config)
    with pytest.raises(UserError, match=message):
        validation.validate_config(config, SCHEMA)


def test_paths_are_grouped_by_study_and_preview_goes_elsewhere(config):
    exp = experiments.experiments(config)["malicious"]
    assert products.Context(config, "p1rage").table_paths("malicious")[0] == "results/p1rage/tables/malicious.csv"
    assert paths.raw_chunk_paths(config, exp, "single", "Peace")[0] == \
        "results/p1rage/raw/malicious/single/Peace/chunk0-999.csv"
    assert products.Context(config, "p1rage").figure_paths("fig4_malicious")[1] == "figures/p1rage/fig4_malicious.png"
    config["preview"] = True
    exp = experiments.experiments(config)["malicious"]
    assert exp.trials == 20   # 1000 x the default preview scale 0.02
    assert products.Context(config, "p1rage").table_paths("malicious")[0] == "preview/results/p1rage/tables/malicious.csv"


def test_enabled_studies_and_fixed_experiment_seeds(config):
    enabled = experiments.enabled_studies(config)
    assert "p1rage" in enabled
    config["studies"]["p1rage"]["enabled"] = False
    assert experiments.enabled_studies(config) == [s for s in enabled if s != "p1rage"]
    config["studies"]["p1rage"]["experiments"]["malicious"]["seed"] = 5
    assert experiments.job_seed(config, "malicious", "single") == 5
    assert experiments.job_seed(config, "multi_sto", "single") != 5


@pytest.mark.parametrize("given, expected", [("true", True), ("True", True), ("false", False), (True, True)])
def test_preview_switch_from_the_command_line(config, given, expected):
    # `--config preview=true` arrives as the string 'true'
    config["preview"] = given
    validation.validate_config(config, SCHEMA)
    assert config["preview"] is expected
    assert paths.prefix(config) == ("preview/" if expected else "")


def test_a_misspelled_boolean_is_still_refused(config):
    config["preview"] = "yes please"
    with pytest.raises(UserError, match="preview"):
        validation.validate_config(config, SCHEMA)


def test_a_simulate_job_lists_every_setting_with_its_own_seed_and_files(config):
    """The job of (experiment, algorithm, chunk) runs each setting on its own instance file with the
    seed job_seed gives that setting, and writes that setting's chunk file (the paths aggregation reads)."""
    import shlex

    for name, exp in experiments.experiments(config).items():
        for chunk, (lo, n) in zip(experiments.chunk_names(config, exp), experiments.chunks(config, exp)):
            algo = exp.algorithms[0]
            csvs = [p.format(algorithm=algo, chunk=chunk) for p in paths.simulate_outputs(config, exp)]
            assert csvs == [paths.raw_chunk_paths(config, exp, s, algo)[lo // int(exp.chunk_size or config["chunk_size"])]
                            for s in exp.setting_ids()]
            words = shlex.split(jobs.simulate_cell_args(config, exp, csvs))
            cells = [words[i + 1:i + 4] for i in range(0, len(words), 4)]
            assert all(words[i] == "--cell" for i in range(0, len(words), 4))
            assert cells == [[paths.instance_path(config, exp, s), str(experiments.job_seed(config, name, s)), out]
                             for s, out in zip(exp.setting_ids(), csvs)]
        words = shlex.split(jobs.instance_cell_args(config, exp))
        own = [words[i + 1] for i, w in enumerate(words) if w == "--cell"]
        assert own == ["" if exp.sweep is None else f"{exp.sweep}={exp.value_of(s)}"
                       for s in experiments.own_instance_settings(exp)]
        fixed = [words[i + 1] for i, w in enumerate(words) if w == "--setting"]
        assert fixed == [f"{k}={v}" for k, v in exp.settings.items()]


def test_a_bundled_job_runs_the_same_commands_as_the_jobs_it_replaces(config):
    """A preview bundles an experiment's algorithms into one job: it writes exactly the files of the
    per-algorithm jobs and runs exactly their commands (through `linbandits batch`)."""
    assert not jobs.bundles_algorithms(config)
    assert jobs.bundles_algorithms({**config, "preview": True})
    for exp in experiments.experiments(config).values():
        for chunk in experiments.chunk_names(config, exp):
            separate = sorted(p.format(algorithm=a, chunk=chunk) for a in exp.algorithms
                              for p in paths.simulate_outputs(config, exp, "csv"))
            bundled = sorted(p.format(chunk=chunk) for p in paths.bundled_simulate_outputs(config, exp, "csv"))
            assert bundled == separate
            for a in exp.algorithms:
                words = shlex.split(jobs.simulate_command(config, exp, a, chunk, curves=False))
                assert words[:3] == ["simulate-cells", "--algorithm", a]
                outs = [words[i + 3] for i, w in enumerate(words) if w == "--cell"]
                assert outs == [p.format(algorithm=a, chunk=chunk) for p in paths.simulate_outputs(config, exp)]
            outputs, job, command = jobs.simulate_job({**config, "bundle_algorithms": True}, exp, curves=False)
            assert job == "all" and outputs["csv"] == paths.bundled_simulate_outputs(config, exp, "csv")
            line = command(types.SimpleNamespace(chunk=chunk))
            singles = [jobs.simulate_command(config, exp, a, chunk, curves=False) for a in exp.algorithms]
            # one algorithm: its command as it is; more: a batch of them
            assert (shlex.split(line) == ["batch", *singles]) if len(singles) > 1 else line == singles[0]


def job_cells(config, exp, groups) -> list[list[str]]:
    """The --cell words (instance, seed, output) of each group's simulate job, every algorithm and chunk."""
    cells = []
    for settings in groups:
        for a in exp.algorithms:
            for chunk in experiments.chunk_names(config, exp):
                outputs, _, command = jobs.simulate_job(config, exp, False, settings)
                words = shlex.split(command(types.SimpleNamespace(algorithm=a, chunk=chunk)))
                got = [words[i + 1:i + 4] for i, w in enumerate(words) if w == "--cell"]
                assert [c[2] for c in got] == [p.format(algorithm=a, chunk=chunk) for p in outputs["csv"]]
                cells += got
    return cells


def test_jobs_of_a_few_settings_run_the_cells_of_the_one_job(config):
    """`settings_per_job` splits an experiment's simulate job by settings: its jobs run exactly the one
    job's cells (instance, seed, file), each once (the width-2048 switch: one instance seed a job)."""
    w2048 = experiments.experiments(config)["opkb_env1_neural__w2048"]
    assert w2048.settings_per_job == 1 and len(experiments.setting_groups(w2048)) == len(w2048.setting_ids())
    for k in (1, 2, 7, 100):
        exp = dataclasses.replace(experiments.experiments(config)["opkb_env1_neural"], settings_per_job=k)
        groups = experiments.setting_groups(exp)
        assert all(len(g) <= k for g in groups)
        assert sorted(map(tuple, job_cells(config, exp, groups))) == sorted(map(tuple, job_cells(config, exp, [None])))


def test_planted_dropped_group_of_settings_is_caught(config, monkeypatch):
    exp = dataclasses.replace(experiments.experiments(config)["opkb_env1_neural"], settings_per_job=7)
    original = experiments.setting_groups
    monkeypatch.setattr(experiments, "setting_groups", lambda e: original(e)[:-1])   # the last, short group lost
    groups = experiments.setting_groups(exp)
    assert sorted(map(tuple, job_cells(config, exp, groups))) != sorted(map(tuple, job_cells(config, exp, [None])))


def test_an_instance_is_written_once_and_read_by_every_experiment_that_needs_it(config):
    """Experiments on the same family and settings (switch runs that change an algorithm's options only)
    read the instance file of the first published experiment that has it; each
    file has exactly one writer, and a setting differing in one value keeps its own file."""
    exps = experiments.experiments(config)
    writers = {}
    for name, exp in exps.items():
        for path in paths.instance_outputs(config, exp, "npz"):
            assert path not in writers, f"{path} written by {writers[path]} and {name}"
            writers[path] = name
    for name, exp in exps.items():
        for path in paths.instance_inputs(config, exp):
            if exp.instance in catalogue.family_names():
                assert path in writers, f"{name} reads {path}, which no instance job writes"
    rexp3, fig1 = exps["swucb_fig1__rexp3"], exps["swucb_fig1"]
    assert paths.instance_outputs(config, rexp3, "npz") == []
    assert paths.instance_inputs(config, rexp3) == paths.instance_inputs(config, fig1)
    # fig2 differs from fig1 only in its budget setting: its own files
    assert set(paths.instance_inputs(config, exps["swucb_fig2"])).isdisjoint(paths.instance_inputs(config, fig1))
    # a switch run never owns a file a published experiment needs
    for name, exp in exps.items():
        if not exp.switch_of:
            assert all(not exps[writers[p]].switch_of for p in paths.instance_inputs(config, exp) if p in writers)
    # a changed setting is a different instance
    changed = copy.deepcopy(config)
    rexp3_row = [sw for sw in changed["studies"]["swucb"]["switches"] if sw["name"] == "rexp3"][0]
    rexp3_row["settings"] = {"budget": "cuberoot"}
    moved = experiments.experiments(changed)["swucb_fig1__rexp3"]
    assert paths.instance_inputs(changed, moved) == paths.instance_inputs(changed, experiments.experiments(changed)["swucb_fig2"])


def test_a_sweep_over_seeds_is_scaled_like_runs(config):
    """opkb sweeps the instance seed (one instance per run): a preview or trial_scale keeps the
    first values, never fewer than two (a standard error needs two); the full run keeps all 25."""
    full = experiments.experiments(config)["opkb_env1"]
    assert full.values == tuple(range(25))
    preview = experiments.experiments({**config, "preview": True})
    assert preview["opkb_env1"].values == (0, 1)
    assert preview["opkb_cosine"].values == (0, 1)
    assert experiments.experiments({**config, "trial_scale": 0.2})["opkb_env1"].values == tuple(range(5))
    # other sweeps are settings of the environment: never cut
    assert preview["soare_osci"].values == full_values(config, "soare_osci")


def full_values(config, name):
    return experiments.experiments(config)[name].values


def test_a_preview_runs_the_preview_values_only(config):
    assert experiments.experiments(config)["exp2_canonical"].values == (1.0, 0.1, 0.01)
    config["preview"] = True
    assert experiments.experiments(config)["exp2_canonical"].values == (1.0, 0.1)
    assert experiments.experiments(config)["exp1_soare"].values == tuple(range(2, 11))   # no preview_values: all
    config["studies"]["lingape"]["experiments"]["exp2_canonical"]["preview_values"] = [0.1, 0.5]
    with pytest.raises(UserError, match=r"exp2_canonical: preview_values \[0.5\] are not among its values"):
        experiments.experiments(config)


def test_bundled_instance_jobs_run_the_same_commands_and_write_the_same_files(config):
    exps = [e for e in experiments.experiments(config).values()
            if e.instance in catalogue.family_names() and experiments.own_instance_settings(e)]
    single = jobs.instance_jobs(config, exps)
    assert [g for g in single.values() if len(g) != 1] == []
    commands = {e.name: jobs.instance_command(config, [e]) for e in exps}
    assert all(c.startswith("instance-cells --instance ") for c in commands.values())
    config["bundle_algorithms"] = True
    bundled = jobs.instance_jobs(config, exps)
    assert set(bundled) == {e.study for e in exps if not e.opt_in} | {e.name for e in exps if e.opt_in}
    assert sorted(e.name for g in bundled.values() for e in g) == sorted(single)
    for group in bundled.values():
        words = shlex.split(jobs.instance_command(config, group))
        expected = [commands[e.name] for e in group]
        assert (words[1:] == expected and words[0] == "batch") if len(group) > 1 else \
            jobs.instance_command(config, group) == expected[0]


def test_a_previews_study_job_runs_the_per_experiment_commands(config):
    config["preview"] = True
    exps = experiments.experiments(config)
    bundles = jobs.study_simulate_jobs(config, list(exps.values()))
    assert set(bundles) == set(config["studies"])
    assert not any(experiments.on_request(e) for g in bundles.values() for e in g)
    assert {e.name for g in bundles.values() for e in g} == {n for n, e in exps.items() if not experiments.on_request(e)}
    for study, group in bundles.items():
        outputs, commands = jobs.study_simulate_job(config, group, curves=False)
        expected = [jobs.simulate_command(config, e, a, c, curves=False)
                    for e in group for c in experiments.chunk_names(config, e) for a in e.algorithms]
        assert commands == expected and all("\n" not in c for c in commands)  # one per line of the plan
        assert sorted(outputs["csv"]) == sorted(p.format(chunk=c) for e in group for c in experiments.chunk_names(config, e)
                                                for p in paths.bundled_simulate_outputs(config, e, "csv"))
    config["preview"] = False
    assert jobs.study_simulate_jobs(config, list(experiments.experiments(config).values())) == {}


def test_jobs_a_simulate_job_waits_for_carry_its_priority(config):
    """Instances and runs jobs take the priority of the simulate jobs they feed; in a preview, where
    one simulate job serves a study, the study's highest (else P1-RAGE's Yahoo! chain starts last)."""
    exps = list(experiments.experiments(config).values())
    p1 = [e for e in exps if e.study == "p1rage"]
    urgent = max(e.priority for e in p1)
    plain = [e for e in p1 if e.priority < urgent]
    assert urgent > 0 and plain
    config["preview"] = False
    assert jobs.upstream_priority(config, plain[:1], exps) == plain[0].priority
    config["preview"] = True
    assert jobs.upstream_priority(config, plain[:1], exps) == urgent


def test_a_figure_is_built_by_the_target_that_builds_what_it_must_draw(config):
    """With robustness: false (every switch run in the robustness target), a figure whose `series` names a
    switch run waits for it whole; one that draws a switch run beside what it must draw leaves it out."""
    config["robustness"] = False
    figures = {(s, p.name): p for s in ("oam", "opkb", "lingape") for p in products.study_products(config, s)
               if p.kind == "figure"}
    assert figures[("oam", "fig_switch_long")].target == "robustness"       # its series are switch runs
    assert figures[("opkb", "opkb_fig1")].target == "robustness"            # the text's window 3000 is one
    assert figures[("oam", "fig1_fixed_action_set")].target == ""
    fig1 = figures[("lingape", "fig1_soare")]
    assert fig1.target == "" and not any("__" in f for f in fig1.inputs)  # LinGapE's switch entries left out
    config["robustness"] = True
    assert all(not p.target for s in ("oam", "opkb", "lingape") for p in products.study_products(config, s)
               if p.kind == "figure")
