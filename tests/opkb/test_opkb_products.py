"""The study's products on synthetic worlds: runs files written in-process, claims that must hold and
must fail, robustness under the removal switch, the tuning claim, the tables and the figures."""
import json

import numpy as np
import pandas as pd
import pytest

from linbandits import experiments, plotting, products, runs
from linbandits.claims import FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, NOT_RUN
from linbandits.studies.opkb import figures, quantities
from linbandits.study_config import read_config

REPO_CONFIG = read_config(__file__.rsplit("/tests/", 1)[0] + "/config/config.yaml")
T = 10000
ROUNDS = np.arange(500, T + 1, 500)           # 3000 among them
SEEDS = 25
KERNEL_CLAIMS = ("C1_kernel", "C3_kernel", "C4_kernel", "C5_kernel", "C7_kernel", "C7_window1000")


def outside(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    return plotting.outside_canvas(fig)


def context(tmp_path, switches=("published",), tuning=False, neural=True) -> products.Context:
    """The repository's opkb section with these switches, without its tuning grid unless `tuning`, without
    its neural experiments unless `neural` (their claims are then "not run")."""
    section = dict(REPO_CONFIG["studies"]["opkb"])
    if not neural:
        section["experiments"] = {n: e for n, e in section["experiments"].items() if not n.endswith("_neural")}
    section["switches"] = [s for s in section["switches"] if s["name"] in switches]
    if not tuning:
        section.pop("tuning", None)
    config = {**{k: v for k, v in REPO_CONFIG.items() if k != "studies"}, "studies": {"opkb": section}}
    # the figures draw only what is left, as validation asks of a config that drops an experiment
    kept = experiments.study_experiments(config, "opkb")
    section["figures"] = {name: {**spec, "series": {e: a for e, a in spec.get("series", {}).items() if e in kept},
                                 "panels": [{k: [n for n in v if n in kept] if isinstance(v, list) else v
                                             for k, v in p.items()} for p in spec["panels"]]}
                          for name, spec in section["figures"].items()}
    return products.Context(config, "opkb")


def seed_effects(seed=0):
    """A large per-instance effect shared by every algorithm of a seed: what pairing removes."""
    return np.random.default_rng(seed).normal(0, 300, SEEDS)


def write_world(tmp_path, ctx, finals: dict, at_switch: dict | None = None) -> None:
    """finals: experiment -> algorithm -> per-seed final regrets. Curves rise linearly to them, except
    where at_switch gives (experiment, algorithm) -> per-seed regret at t = 3000 (then linear from it)."""
    at_switch = at_switch or {}
    for name, series in finals.items():
        exp = ctx.experiments[name]
        arrays, meta = {}, {"settings": exp.setting_ids(), "algorithms": list(series), "trials": 1, "series": {}}
        for algo, values in series.items():
            values = np.asarray(values, float)
            early = at_switch.get((name, algo))
            for i, s in enumerate(exp.setting_ids()):
                curve = values[i] * ROUNDS / T
                if early is not None:
                    curve = np.where(ROUNDS <= 3000, early[i] * ROUNDS / 3000,
                                     early[i] + (values[i] - early[i]) * (ROUNDS - 3000) / (T - 3000))
                arrays[f"{s}/{algo}/regret"] = np.array([values[i]])
                arrays[f"{s}/{algo}/curve_t"] = ROUNDS
                arrays[f"{s}/{algo}/curve_regret"] = curve[None, :]
                meta["series"][f"{s}/{algo}"] = {"columns": ["regret"], "runs": 1, "info": [], "curves": ["regret"]}
        (tmp_path / ctx.runs_stem(name)).parent.mkdir(parents=True, exist_ok=True)
        runs.write(str(tmp_path / ctx.runs_stem(name)), arrays, meta, name, "opkb")
        for s in exp.setting_ids():
            path = tmp_path / ctx.summary_path(name, s)
            path.parent.mkdir(parents=True, exist_ok=True)
            switches = {"opkb_env1": [3000], "opkb_env2": [1500, 5000]}.get(exp.switch_of or name, [])
            path.write_text(json.dumps({"T": T, "meta": {"switches": switches}}))


def paper_world(published_sw_env2=3500.0):
    """The paper's rankings; SW-GPUCB lowest on Env 2 only with the exact removal (the default)."""
    e = seed_effects()
    n = lambda mean, sd, k: mean + e + np.random.default_rng(k).normal(0, sd, SEEDS)  # noqa: E731
    e50 = np.resize(e, 2 * SEEDS)
    c = lambda mean, sd, k: mean + e50 + np.random.default_rng(k).normal(0, sd, 2 * SEEDS)  # noqa: E731
    return {
        "opkb_env1": {"SW-GPUCB": n(500, 30, 1), "WGPUCB": n(2900, 30, 2), "ADA-OPKB": n(2400, 30, 3)},
        "opkb_env2": {"SW-GPUCB": n(1900, 30, 4), "WGPUCB": n(3700, 30, 5), "ADA-OPKB": n(3000, 30, 6)},
        "opkb_env2__published": {"SW-GPUCB": n(published_sw_env2, 30, 7)},
        "opkb_env1__published": {"SW-GPUCB": n(1500, 30, 8)},
        "opkb_cosine": {"GP-UCB": c(900, 30, 9), "OPKB": c(950, 30, 10)},   # J.2: 50 seeds
        "opkb_slow": {"SW-GPUCB": n(2900, 30, 11), "WGPUCB": n(3400, 30, 12), "ADA-OPKB": n(1900, 30, 13)},
        "opkb_slow__published": {"SW-GPUCB": n(2950, 30, 14)},
        "opkb_slow_sw1000": {"SW-GPUCB": n(900, 30, 15)},
        "opkb_slow_sw1000__published": {"SW-GPUCB": n(2300, 30, 16)},
    }


def with_neural(world):
    """The neural variants' runs beside the kernel ones: ADA-OPNN 400 above ADA-OPKB on every panel, OPNN near
    GP-UCB, OPNN0 well above it."""
    gp = world["opkb_cosine"]["GP-UCB"]
    return {**world, **{f"{n}_neural": {"ADA-OPNN": world[n]["ADA-OPKB"] + 400} for n in ("opkb_env1", "opkb_env2", "opkb_slow")},
            "opkb_cosine_neural": {"OPNN": gp * 1.05, "OPNN0": gp * 1.6}}


def early(world, name, algo, scale):
    return {(name, algo): np.asarray(world[name][algo]) * scale}


def judged(tmp_path, monkeypatch, world, at_switch=None, name="claims", **kw):
    monkeypatch.chdir(tmp_path)
    kw.setdefault("neural", any(n.endswith("_neural") for n in world))
    ctx = context(tmp_path, **kw)
    write_world(tmp_path, ctx, world, at_switch)
    product = [p for p in products.study_products(ctx.config, "opkb") if p.name == name][0]
    product.make(ctx)
    return {c["id"]: c for c in json.loads((tmp_path / ctx.claims_paths(name)[1]).read_text())["claims"]}


def test_kernel_claims_hold_on_a_paper_like_world(tmp_path, monkeypatch):
    world = paper_world()
    world["opkb_env2"]["SW-GPUCB"] = world["opkb_env2__published"]["SW-GPUCB"]     # the paper's ranking
    world["opkb_slow"]["SW-GPUCB"] = world["opkb_slow__published"]["SW-GPUCB"]
    world["opkb_slow_sw1000"]["SW-GPUCB"] = world["opkb_slow"]["ADA-OPKB"] - 500
    got = judged(tmp_path, monkeypatch, world, early(world, "opkb_env1", "SW-GPUCB", 0.2))
    assert {k: got[k]["verdict"] for k in KERNEL_CLAIMS} == {k: HOLDS for k in KERNEL_CLAIMS}
    for k in ("C1_neural", "C2", "C3_neural", "C4_neural", "C5_neural", "C6", "C7_neural", "C8_window", "C8_discount"):
        assert got[k]["verdict"] == NOT_RUN, k
    c1 = got["C1_kernel"]["parts"][0]
    assert "t = 3000" in c1["label"] and c1["n"] == SEEDS and c1["method"].startswith("paired")
    assert "opkb_tuning" in got["C8_window"]["parts"][0]["missing"]
    # a claim that was not run is not called robust to anything
    assert got["C1_neural"]["robustness"]["text"] == "not judged (not run)"
    assert got["C1_neural"]["robustness"]["status"] == "not run"


def test_kernel_claims_fail_on_the_opposite_world(tmp_path, monkeypatch):
    world = paper_world()
    env1 = world["opkb_env1"]
    env1["SW-GPUCB"], env1["ADA-OPKB"] = env1["ADA-OPKB"], env1["SW-GPUCB"]       # SW-GPUCB above ADA-OPKB
    for name in ("opkb_env2", "opkb_slow"):                                        # ADA-OPKB the highest
        world[name]["ADA-OPKB"] = world[name]["WGPUCB"] + 1000
    world["opkb_slow_sw1000"]["SW-GPUCB"] = world["opkb_slow"]["WGPUCB"] + 500
    got = judged(tmp_path, monkeypatch, world)
    assert {k: got[k]["verdict"] for k in KERNEL_CLAIMS} == {k: FAILS_TO_HOLD for k in KERNEL_CLAIMS}


def test_env2_ranking_depends_on_the_removal_and_says_why(tmp_path, monkeypatch):
    """Exact removal: SW-GPUCB lowest on Env 2, C3 and C5 fail; the published removal makes them hold.
    The report names the removal choice and the paper's cause."""
    got = judged(tmp_path, monkeypatch, paper_world(published_sw_env2=3600.0))
    for k in ("C3_kernel", "C5_kernel"):
        c = got[k]
        assert c["verdict"] == FAILS_TO_HOLD
        assert c["robustness"]["status"] == "depends"
        run = [r for r in c["robustness"]["runs"] if r["choice"] == "removal"][0]
        assert run["value"] == "published" and run["verdict"] == HOLDS
        assert run["experiments"] == ["opkb_env2__published"]
        assert "depends on removal" in c["robustness"]["text"]
        assert "F20" in c["cause"] and "removal = published it holds" in c["cause"]
        assert "untested for" in c["robustness"]["text"]        # window, noise: no switch run here
    # C1 reads Env 1 at the switch, where the removals agree: robust to the removal
    c1 = got["C1_kernel"]["robustness"]["runs"]
    assert [(r["choice"], r["verdict"]) for r in c1] == [("removal", got["C1_kernel"]["verdict"])]
    # C7's window-1000 part: both SW-GPUCB series switched together
    runs7 = [r for r in got["C7_window1000"]["robustness"]["runs"] if r["choice"] == "removal"][0]
    assert runs7["experiments"] == ["opkb_slow__published", "opkb_slow_sw1000__published"]
    md = (tmp_path / "results/opkb/claims.md").read_text()
    assert "Cause: the sliding window the paper describes (removal = exact): with it SW-GPUCB has the lower regret on Env 2" in md


def test_c1_is_read_at_the_switch_not_at_T(tmp_path, monkeypatch):
    world = paper_world()
    world["opkb_env1"]["SW-GPUCB"] = world["opkb_env1"]["ADA-OPKB"] + 800      # higher at T ...
    at = early(world, "opkb_env1", "SW-GPUCB", 0.02)                              # ... far lower at 3000
    got = judged(tmp_path, monkeypatch, world, at)
    assert got["C1_kernel"]["verdict"] == HOLDS


def test_planted_bug_c1_read_at_T_is_caught(tmp_path, monkeypatch):
    world = paper_world()
    world["opkb_env1"]["SW-GPUCB"] = world["opkb_env1"]["ADA-OPKB"] + 800
    at = early(world, "opkb_env1", "SW-GPUCB", 0.02)
    monkeypatch.setattr(quantities, "_round", lambda evidence, spec, setting, horizon: horizon)
    got = judged(tmp_path, monkeypatch, world, at)
    assert got["C1_kernel"]["verdict"] != HOLDS


def test_differences_are_paired_by_seed(tmp_path, monkeypatch):
    """A 60-regret gap under a seed effect of s.d. 300: paired, it is shown; unpaired it would not be."""
    world = paper_world()
    world["opkb_env2"]["WGPUCB"] = world["opkb_env2"]["ADA-OPKB"] + 60 + np.random.default_rng(3).normal(0, 20, SEEDS)
    got = judged(tmp_path, monkeypatch, world)
    assert got["C4_kernel"]["verdict"] == HOLDS


def test_planted_bug_unpaired_seeds_is_caught(tmp_path, monkeypatch):
    world = paper_world()
    world["opkb_env2"]["WGPUCB"] = world["opkb_env2"]["ADA-OPKB"] + 60 + np.random.default_rng(3).normal(0, 20, SEEDS)
    real = quantities.seed_values

    def shuffled(evidence, ref, spec):             # the second series read in another seed order
        values, k, where = real(evidence, ref, spec)
        return (values[::-1] if ref == spec.get("b") else values), k, where

    monkeypatch.setattr(quantities, "seed_values", shuffled)
    got = judged(tmp_path, monkeypatch, world)
    assert got["C4_kernel"]["verdict"] != HOLDS


def test_neural_claims_are_judged_by_the_default_target(tmp_path, monkeypatch):
    world = paper_world()
    world["opkb_env1_neural"] = {"ADA-OPNN": world["opkb_env1"]["ADA-OPKB"] + 400}
    world["opkb_env2_neural"] = {"ADA-OPNN": world["opkb_env2"]["WGPUCB"] + np.random.default_rng(5).normal(0, 5, SEEDS)}
    world["opkb_slow_neural"] = {"ADA-OPNN": world["opkb_slow"]["ADA-OPKB"] + 100}
    gp = world["opkb_cosine"]["GP-UCB"]
    world["opkb_cosine_neural"] = {"OPNN": gp * 1.05, "OPNN0": gp * 1.6}
    got = judged(tmp_path, monkeypatch, world, early(world, "opkb_env1", "SW-GPUCB", 0.2))
    verdicts = {k: c["verdict"] for k, c in got.items()}
    assert verdicts["C2"] == HOLDS                        # ADA-OPKB below ADA-OPNN
    assert verdicts["C4_neural"] == HOLDS                 # WGPUCB not shown different from ADA-OPNN
    assert verdicts["C6"] == HOLDS and verdicts["C6_gpucb"] == HOLDS
    assert verdicts["C8_window"] == NOT_RUN
    # OPNN 60% above GP-UCB: shown outside the 20% band
    world["opkb_cosine_neural"]["OPNN"] = gp * 1.6
    (tmp_path / "again").mkdir()
    got = judged(tmp_path / "again", monkeypatch, world)
    assert got["C6_gpucb"]["verdict"] == FAILS_TO_HOLD
    assert got["C6"]["verdict"] in (INCONCLUSIVE, FAILS_TO_HOLD)


def tuning_world(tmp_path, ctx, best_window=3000, margin=200.0):
    files = products_module().tuning_files(ctx)
    points = products_module().tuning_points(ctx)
    e = seed_effects()
    k = 0
    for algorithm, opts in points.items():
        for i, o in enumerate(opts):
            base = 2000 + 5 * k
            if algorithm == "SW-GPUCB" and o.get("window") == best_window:
                base = 1000 - margin + 5 * k
            if algorithm == "WGPUCB" and o.get("discount") == 0.9995:
                base = 1000 + 5 * k
            regrets = base + e + np.random.default_rng(k).normal(0, 10, SEEDS)
            path = tmp_path / ctx.results("tuning", algorithm, f"point{i:04d}.json")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"algorithm": algorithm, "options": o, "regrets": regrets.tolist(),
                                        "mean": float(regrets.mean()), "se": 1.0}))
            k += 1
    return files


def products_module():
    from linbandits.studies.opkb import products as p

    return p


def test_tuning_claim_and_table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ctx = context(tmp_path, tuning=True, neural=False)
    small = {"experiment": "opkb_env1", "grids": {"SW-GPUCB": {"window": [1000, 2000, 3000]},
                                                  "WGPUCB": {"discount": [0.999, 0.9995]}}}
    ctx.section["tuning"] = small
    ctx.config["studies"]["opkb"]["tuning"] = small
    tuning_world(tmp_path, ctx)
    write_world(tmp_path, ctx, paper_world())
    by_name = {p.name: p for p in products.study_products(ctx.config, "opkb")}
    assert by_name["tuning_table"].target == by_name["claims_tuning"].target == "opkb_tuning"
    by_name["tuning_table"].make(ctx)
    table = pd.read_csv(tmp_path / ctx.table_paths("tuning")[0])
    assert list(table["algorithm"]) == ["SW-GPUCB"] * 3 + ["WGPUCB"] * 2
    assert json.loads((tmp_path / ctx.results("tables", "tuning.json")).read_text())["best_window"] == 3000
    by_name["claims_tuning"].make(ctx)
    got = {c["id"]: c for c in json.loads((tmp_path / ctx.claims_paths("claims_tuning")[1]).read_text())["claims"]}
    assert got["C8_window"]["verdict"] == HOLDS and got["C8_discount"]["verdict"] == HOLDS


def test_tuning_value_off_the_grid_is_not_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ctx = context(tmp_path, tuning=True, neural=False)
    small = {"experiment": "opkb_env1", "grids": {"SW-GPUCB": {"window": [1000, 2000]}, "WGPUCB": {"discount": [0.999]}}}
    ctx.section["tuning"] = small
    ctx.config["studies"]["opkb"]["tuning"] = small
    tuning_world(tmp_path, ctx)
    write_world(tmp_path, ctx, paper_world())
    claims = [p for p in products.study_products(ctx.config, "opkb") if p.name == "claims_tuning"][0]
    claims.make(ctx)
    got = {c["id"]: c for c in json.loads((tmp_path / ctx.claims_paths("claims_tuning")[1]).read_text())["claims"]}
    assert got["C8_window"]["verdict"] == NOT_RUN
    assert "not a point of SW-GPUCB's tuning grid" in got["C8_window"]["parts"][0]["missing"]


def test_tables_and_figures(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ctx = context(tmp_path)
    world = with_neural(paper_world())
    write_world(tmp_path, ctx, world)
    by_name = {p.name: p for p in products.study_products(ctx.config, "opkb")}
    by_name["final_regret"].make(ctx)
    table = pd.read_csv(tmp_path / ctx.table_paths("final_regret")[0])
    assert list(table.columns) == products_module().TABLE_COLUMNS
    assert list(table["experiment"].unique()) == ["opkb_env1", "opkb_env2", "opkb_cosine", "opkb_slow", "opkb_slow_sw1000",
                                                  "opkb_env1_neural", "opkb_env2_neural", "opkb_cosine_neural",
                                                  "opkb_slow_neural"]
    row = table[(table.experiment == "opkb_env2") & (table.algorithm == "SW-GPUCB (window 2000)")].iloc[0]
    assert row.n_runs == SEEDS and row["T"] == T
    assert row.mean_regret == pytest.approx(np.mean(world["opkb_env2"]["SW-GPUCB"]), rel=1e-9)
    assert table[table.experiment == "opkb_slow_sw1000"]["algorithm"].tolist() == ["SW-GPUCB (window 1000)"]
    by_name["switch_regret"].make(ctx)
    sw = pd.read_csv(tmp_path / ctx.table_paths("switch_regret")[0])
    row = sw[sw.experiment == "opkb_env2__published"].iloc[0]
    assert (row.choice, row.value, row.algorithm) == ("removal", "published", "SW-GPUCB (window 2000)")
    diff = np.asarray(world["opkb_env2__published"]["SW-GPUCB"]) - world["opkb_env2"]["SW-GPUCB"]
    assert row.minus_default == pytest.approx(diff.mean(), rel=1e-9)
    assert row.minus_default_se == pytest.approx(diff.std(ddof=1) / np.sqrt(SEEDS), rel=1e-9)
    # the figure: every label inside the canvas, the published removal drawn dashed on Env 2, n in the
    # subtitle (a series of another n says so in its legend entry)
    seen = {}
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem: seen.update(fig=fig))
    by_name["opkb_fig1"].make(ctx)
    fig = seen["fig"]
    assert outside(fig) == []
    env2 = fig.axes[1]
    lines = {line.get_label(): line for line in env2.lines}
    published, default = ("SW-GPUCB (window 2000), removal = published", "SW-GPUCB (window 2000)")
    assert published in lines
    assert lines[published].get_linestyle() == "--"
    assert lines[default].get_linestyle() == "-"
    assert lines[default].get_color() == lines[published].get_color()
    assert len(env2.collections) == len(env2.lines)          # a band under every curve
    # every series of the paper's figures: the neural variants beside the kernel algorithms, solid
    assert "neural variants at width 512 (paper: 2048), float32" in fig._suptitle.get_text()
    assert {line.get_label() for line in fig.axes[0].lines} >= {"ADA-OPNN", "ADA-OPKB"}
    assert lines["ADA-OPNN"].get_linestyle() == "-"
    from linbandits.figure_checks import figure_problems

    plotting.finish_figure(fig)
    assert figure_problems(fig) == []
    by_name["opkb_fig2"].make(ctx)
    assert outside(seen["fig"]) == []
    plotting.finish_figure(seen["fig"])
    assert figure_problems(seen["fig"]) == []
    j2, j3 = ({line.get_label() for line in ax.lines} for ax in seen["fig"].axes[:2])    # (then the legends)
    assert {"OPNN", "OPNN0", "OPKB"} <= j2
    assert {"SW-GPUCB (window 1000)", "ADA-OPNN"} <= j3


def test_figures_without_neural_experiments_say_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ctx = context(tmp_path, neural=False)
    write_world(tmp_path, ctx, paper_world())
    seen = {}
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem: seen.update(fig=fig))
    [p for p in products.study_products(ctx.config, "opkb") if p.name == "opkb_fig1"][0].make(ctx)
    assert "neural variants (OPNN, OPNN0, ADA-OPNN) not run" in seen["fig"]._suptitle.get_text()


def test_preview_banner_stands_above_the_title(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ctx = context(tmp_path, neural=False)
    ctx.preview = True
    write_world(tmp_path, ctx, paper_world())
    seen = {}
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem: seen.update(fig=fig))
    [p for p in products.study_products(ctx.config, "opkb") if p.name == "opkb_fig1"][0].make(ctx)
    text = seen["fig"]._suptitle.get_text()
    assert text.startswith("PREVIEW") and "cumulative regret" in text


def test_the_default_target_reads_the_neural_runs(tmp_path):
    ctx = context(tmp_path)
    ps = {p.name: p for p in products.study_products(ctx.config, "opkb")}
    assert set(ps) == {"final_regret", "switch_regret", "opkb_fig1", "opkb_fig2", "claims"}
    assert not any(p.target for p in ps.values())
    for name in ("opkb_env1_neural", "opkb_env2_neural", "opkb_cosine_neural", "opkb_slow_neural"):
        runs_file = f"results/opkb/runs/{name}.npz"
        assert runs_file in ps["claims"].inputs and runs_file in ps["final_regret"].inputs
    figures_read = ps["opkb_fig1"].inputs + ps["opkb_fig2"].inputs
    assert all(f"results/opkb/runs/{name}.npz" in figures_read
               for name in ("opkb_env1_neural", "opkb_env2_neural", "opkb_cosine_neural", "opkb_slow_neural"))
    assert any("opkb_slow_sw1000__published" in f for f in ps["claims"].inputs)
    # the neural variants' precision and width switches are opt-in (robustness): read by its product only
    ctx = context(tmp_path, switches=("published", "float64", "w2048"))
    ps = {p.name: p for p in products.study_products(ctx.config, "opkb")}
    for name in ("opkb_env1_neural__float64", "opkb_cosine_neural__w2048"):
        runs_file = f"results/opkb/runs/{name}.npz"
        assert runs_file in ps["robustness"].inputs and runs_file not in ps["claims"].inputs


def test_robustness_false_moves_the_switch_runs_to_the_robustness_target(tmp_path):
    ctx = context(tmp_path)
    config = {**ctx.config, "robustness": False}
    ps = {p.name: p for p in products.study_products(config, "opkb")}
    assert "switch_regret" not in ps                            # no switch run in the default target
    assert not any("__published" in f for f in ps["opkb_fig1"].inputs)
    robust = ps["robustness"]
    assert robust.target == "robustness"
    assert any("opkb_env2__published" in f for f in robust.inputs)
    assert "results/opkb/runs/opkb_env1_neural.npz" in robust.inputs     # the neural claims judged there too
