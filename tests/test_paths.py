"""linbandits.paths: where every file of a run lives, grouped by study; a preview's under preview/; an
instance file written once and read by every experiment that needs it."""
import copy

from linbandits import catalogue, experiments, paths, products


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
