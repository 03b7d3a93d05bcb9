"""The study's tables, figures and claims from runs files: planted power laws, the slope estimator the
table and the claims share, synthetic worlds where the claims must hold and where they must fail,
the switch runs' common random numbers, and the figures' canvas."""
import json
import math

import numpy as np
import pytest

from linbandits import experiments, products, runs
from linbandits.catalogue import build_instance, make_algorithm
from linbandits.claims import FAILS_TO_HOLD, HOLDS
from linbandits.claims import estimates as est
from linbandits.claims.evidence import Evidence
from linbandits.claims.quantities import loglog_slope
from linbandits.studies.swucb import results
from linbandits.studies.swucb.results import Series, ratios_table, regret_table, series_label, slopes_table
from linbandits.study_config import read_config

REPO = __file__.rsplit("/tests/", 1)[0]
REPO_CONFIG = read_config(REPO + "/config/config.yaml")
TS = (30000, 60000, 120000, 240000)


def power_law(experiment, algorithm, slope, scale, n=200, noise=0.05, seed=0, options=None, budget="constant"):
    rng = np.random.default_rng(seed)
    return [Series(experiment, algorithm, T, scale * T ** slope * (1 + noise * rng.standard_normal(n)),
                   options or {}, budget, 1.0) for T in TS]


def test_slope_recovers_a_planted_power_law_inside_its_interval():
    s = power_law("f", "SW-UCB", 0.71, 0.3)
    slope, low, high = results.slope_with_ci([x.T for x in s], [x.runs for x in s], 2000, seed=1)
    assert abs(slope - 0.71) < 0.01 and low < 0.71 < high and high - low < 0.05
    again = results.slope_with_ci([x.T for x in s], [x.runs for x in s], 2000, seed=1)
    assert again == (slope, low, high)          # fixed seed: the same interval every run


class OneExperiment:
    """The minimum of experiments.Experiment that Evidence reads."""

    def __init__(self, name, values):
        self.name, self.values, self.sweep = name, tuple(values), "T"

    def setting_ids(self):
        return [f"T{v}" for v in self.values]

    def value_of(self, setting):
        return int(setting[1:])


def evidence_of(tmp_path, series):
    """An Evidence over one experiment whose runs file holds `series` (one algorithm, one Series per T)."""
    exp = OneExperiment("f", [s.T for s in series])
    arrays = {f"T{s.T}/{s.algorithm}/regret": s.runs for s in series}
    meta = {"settings": exp.setting_ids(), "algorithms": [series[0].algorithm], "trials": len(series[0].runs),
            "series": {f"T{s.T}/{s.algorithm}": {"columns": ["regret"], "runs": len(s.runs), "info": []}
                       for s in series}}
    runs.write(str(tmp_path / "f"), arrays, meta, "f", "swucb")
    return Evidence({"f": exp}, lambda n: str(tmp_path / n), lambda n, s: "")


def table_matches_claim(tmp_path, series) -> bool:
    """The table's slope estimator, seeded as the claims engine seeds loglog_slope, gives the claim's numbers."""
    spec = {"quantity": "loglog_slope", "experiment": "f", "a": series[0].algorithm}
    claim, _ = loglog_slope(evidence_of(tmp_path, series), spec, 0.025, "C2")
    seed = est.stream_seed("C2", "loglog_slope", "f", None, series[0].algorithm, None, None)
    table = results.slope_estimate([s.T for s in series], [s.runs for s in series], seed,
                                   resamples=est.BOOTSTRAP_RESAMPLES)
    return (table.low, table.high) == (claim.low, claim.high) and table.value == pytest.approx(claim.value, 1e-12)


def test_the_table_and_the_claims_share_the_slope_estimator(tmp_path):
    assert table_matches_claim(tmp_path, power_law("f", "BOB", 0.93, 0.02, n=50, noise=0.3))


def test_a_planted_estimator_bug_breaks_the_agreement(tmp_path, monkeypatch):
    """The table fitting medians instead of means (a different estimator) no longer gives the claim's interval."""
    series = power_law("f", "BOB", 0.93, 0.02, n=50, noise=0.3)
    original = results.slope_estimate

    def medians(Ts, run_sets, seed, alpha=0.025, resamples=results.BOOTSTRAP):
        shifted = [np.asarray(r) - np.mean(r) + np.median(r) for r in run_sets]
        return original(Ts, shifted, seed, alpha, resamples)

    monkeypatch.setattr(results, "slope_estimate", medians)
    assert not table_matches_claim(tmp_path, series)


def test_slopes_table_puts_theory_beside_the_fit():
    series = power_law("f2", "SW-UCB", 1.0, 0.01, budget="cuberoot") + \
        power_law("f2", "BOB", 0.8, 0.05, budget="cuberoot", seed=2)
    table = slopes_table(series, n_boot=500).set_index("series")
    assert table.loc["SW-UCB", "theory_slope"] == pytest.approx(1.0)
    assert table.loc["BOB", "theory_slope"] == pytest.approx(5 / 6)
    assert table.loc["BOB", "slope"] == pytest.approx(0.8, abs=0.02)
    assert table.loc["BOB", "ci95_low"] < table.loc["BOB", "slope"] < table.loc["BOB", "ci95_high"]
    assert list(table.columns[:4]) == ["figure", "slope", "ci95_low", "ci95_high"]


def test_regret_table_ratios_and_a_switch_beside_its_base():
    a = power_law("f", "SW-UCB", 0.7, 1.0)
    b = power_law("f", "EXP3.S", 0.7, 5.0, seed=4)
    reg = regret_table(a + b)
    row = reg[(reg["series"] == "EXP3.S") & (reg["T"] == 60000)].iloc[0]
    runs_ = b[1].runs
    assert row["mean_regret"] == pytest.approx(runs_.mean(), rel=1e-15)
    assert row["se"] == pytest.approx(runs_.std(ddof=1) / math.sqrt(len(runs_)), rel=1e-12)
    assert row["band_high"] - row["mean_regret"] == pytest.approx(1.96 * row["se"])
    ratios = ratios_table(a + b)
    sw = ratios[(ratios["numerator"] == "SW-UCB") & (ratios["denominator"] == "EXP3.S")]
    assert len(sw) == 4 and sw["ratio"].between(0.15, 0.25).all()
    # a switch run that reran EXP3.S only, at two of the T: paired with the base's SW-UCB at those T
    switch = [s for s in power_law("f__x", "EXP3.S", 0.7, 2.0, seed=5, options={"variant": "rexp3"}) if s.T < 100000]
    merged = results.with_base(switch, a + b, "f__x")
    assert [(s.experiment, s.label, s.T) for s in merged] == [
        ("f__x", "SW-UCB", 30000), ("f__x", "EXP3.S (variant=rexp3)", 30000),
        ("f__x", "SW-UCB", 60000), ("f__x", "EXP3.S (variant=rexp3)", 60000)]
    assert merged[0].runs is a[0].runs
    x = ratios_table(merged)
    assert x["ratio"].iloc[0] == pytest.approx(a[0].runs.mean() / switch[0].runs.mean())


def test_series_label_names_only_changed_options():
    assert series_label("SW-UCB", {"window": "agnostic", "lam": 1.0, "S": 1.0}) == "SW-UCB"
    assert series_label("SW-UCB", {"window": "known", "lam": 1.0, "S": 1.0}) == "SW-UCB (window=known)"
    assert series_label("EXP3.S", {"variant": "rexp3", "variation": "instance"}) == "EXP3.S (variant=rexp3)"
    assert series_label("EXP3.S", {"variant": "exp3s", "variation": "budget"}) == "EXP3.S (variation=budget)"


# ------------------------------------------------------------------ synthetic worlds

OPTIONS = {"rexp3": {"EXP3.S": {"variant": "rexp3", "variation": "instance"}},
           "v_budget": {"EXP3.S": {"variant": "exp3s", "variation": "budget"}},
           "known_window": {"SW-UCB": {"window": "known", "lam": 1.0, "S": 1.0}}}


def world(tmp_path, rates: dict, tv_ratio: float, n: int = 100) -> products.Context:
    """The repo's swucb config (published experiments and switches) with runs files whose regret at T is
    scale T^slope (1 + 0.05 noise), rates[experiment][algorithm] = (scale, slope), and a variation table
    with the given total variation / B_T."""
    section = REPO_CONFIG["studies"]["swucb"]
    config = {**{k: v for k, v in REPO_CONFIG.items() if k != "studies"}, "studies": {"swucb": section}}
    ctx = products.Context(config, "swucb")
    for k, (name, exp) in enumerate(ctx.experiments.items()):
        switch = name.split("__")[1] if "__" in name else None
        budget = exp.settings["budget"]
        arrays, meta = {}, {"settings": exp.setting_ids(), "algorithms": list(exp.algorithms), "trials": n,
                            "series": {}}
        for j, algo in enumerate(exp.algorithms):
            scale, slope = rates[name][algo]
            for s in exp.setting_ids():
                T = exp.value_of(s)
                rng = np.random.default_rng([k, j, T])
                arrays[f"{s}/{algo}/regret"] = scale * T ** slope * (1 + 0.05 * rng.standard_normal(n))
                B = 1.0 if budget == "constant" else T ** (1 / 3)
                info = {"options": (OPTIONS.get(switch) or {}).get(algo, {}),
                        "instance_summary": {"T": T, "meta": {"budget": budget, "B_T": B}}}
                meta["series"][f"{s}/{algo}"] = {"columns": ["regret"], "runs": n, "info": [info]}
        runs.write(ctx.runs_stem(name), arrays, meta, name, "swucb")
    rows = ["figure,T,B_T,total_variation,tv_over_B_T,paper_bound,bgz_variation"]
    for name in ("swucb_fig1", "swucb_fig2"):
        for T in ctx.experiments[name].values:
            rows.append(f"{name},{T},1,{tv_ratio},{tv_ratio},{math.sqrt(2)},3")
    path = tmp_path / ctx.table_paths("variation")[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(rows) + "\n")
    return ctx


def judged(tmp_path, monkeypatch, rates, tv_ratio) -> dict:
    monkeypatch.chdir(tmp_path)
    ctx = world(tmp_path, rates, tv_ratio)
    claims = [p for p in products.study_products(ctx.config, "swucb") if p.kind == "claims"][0]
    claims.make(ctx)
    return {c["id"]: c for c in json.loads((tmp_path / ctx.claims_paths()[1]).read_text())["claims"]}


# The paper's picture: SW-UCB 20% of EXP3.S on Fig. 1 with slopes 2/3; Fig. 2 slopes 1 and 5/6, BOB a
# third of SW-UCB; the switches alike.
PAPER = {
    "swucb_fig1": {"SW-UCB": (0.2, 0.6), "EXP3.S": (1.0, 0.6)},
    "swucb_fig2": {"SW-UCB": (0.02, 1.0), "BOB": (0.04, 0.833)},
    "swucb_fig1__rexp3": {"EXP3.S": (1.1, 0.6)},
    "swucb_fig1__v_budget": {"EXP3.S": (0.9, 0.6)},
    "swucb_fig2__known_window": {"SW-UCB": (0.5, 0.7)},
}


def test_claims_hold_on_a_paper_like_world(tmp_path, monkeypatch):
    got = judged(tmp_path, monkeypatch, PAPER, tv_ratio=1.2)
    assert {k: c["verdict"] for k, c in got.items()} == {f"C{k}": HOLDS for k in range(1, 6)}
    assert got["C1"]["robustness"]["status"] == "robust"
    assert {(r["choice"], r["value"]) for r in got["C1"]["robustness"]["runs"]} == {
        ("exp3s_tuning", "V = B_T"), ("exp3s_variant", "rexp3")}


def test_claims_fail_on_the_opposite_world(tmp_path, monkeypatch):
    opposite = {
        "swucb_fig1": {"SW-UCB": (0.05, 0.9), "EXP3.S": (1.0, 0.6)},     # SW-UCB above EXP3.S, slope 0.9
        "swucb_fig2": {"SW-UCB": (0.02, 0.6), "BOB": (0.2, 1.1)},        # slopes far from theory; BOB worse
        "swucb_fig1__rexp3": {"EXP3.S": (1.1, 0.6)},
        "swucb_fig1__v_budget": {"EXP3.S": (0.9, 0.6)},
        "swucb_fig2__known_window": {"SW-UCB": (0.5, 0.7)},
    }
    got = judged(tmp_path, monkeypatch, opposite, tv_ratio=4.2426)
    assert {k: c["verdict"] for k, c in got.items()} == {f"C{k}": FAILS_TO_HOLD for k in range(1, 6)}
    assert "3 sqrt(2) B_T" in got["C5"]["cause"]


def test_c1_depends_on_exp3s_tuning_where_the_two_v_differ(tmp_path, monkeypatch):
    """SW-UCB 9% of EXP3.S with V = 3 and 18% with V = B_T: the report says that C1 depends on the tuning."""
    rates = {**PAPER, "swucb_fig1": {"SW-UCB": (0.09, 0.6), "EXP3.S": (1.0, 0.6)},
             "swucb_fig1__v_budget": {"EXP3.S": (0.5, 0.6)}}
    c1 = judged(tmp_path, monkeypatch, rates, tv_ratio=1.2)["C1"]
    assert c1["verdict"] == FAILS_TO_HOLD
    assert c1["robustness"]["status"] == "depends"
    assert "depends on exp3s_tuning" in c1["robustness"]["text"]
    assert "exp3s_tuning = V = B_T it holds" in c1["cause"]
    by_value = {r["value"]: r["verdict"] for r in c1["robustness"]["runs"]}
    assert by_value == {"V = B_T": HOLDS, "rexp3": FAILS_TO_HOLD}


def test_tables_and_figures_on_a_world(tmp_path, monkeypatch):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from linbandits.plotting import outside_canvas
    from linbandits.studies.swucb import figures, products as sw

    monkeypatch.chdir(tmp_path)
    ctx = world(tmp_path, PAPER, tv_ratio=1.2)
    made = {p.name: p for p in products.study_products(ctx.config, "swucb")}
    for name in ("regret", "slopes", "ratios"):
        made[name].make(ctx)
    import pandas as pd

    slopes = pd.read_csv(ctx.table_paths("slopes")[0])
    assert list(slopes["figure"]) == ["swucb_fig1", "swucb_fig1", "swucb_fig2", "swucb_fig2", "swucb_fig1__rexp3",
                                      "swucb_fig1__v_budget", "swucb_fig2__known_window"]
    ratios = pd.read_csv(ctx.table_paths("ratios")[0])
    assert set(ratios["figure"]) == {"swucb_fig1", "swucb_fig2", "swucb_fig1__rexp3", "swucb_fig1__v_budget",
                                     "swucb_fig2__known_window"}
    # every figure: drawn inside its canvas, one band per series, the run count and the slope CI in the legend
    drawn = {}
    monkeypatch.setattr(figures, "save_figure", lambda fig, stem: drawn.__setitem__(stem, fig))
    for name in ctx.section["figures"]:
        made[name].make(ctx)
    assert len(drawn) == 3
    for stem, fig in drawn.items():
        FigureCanvasAgg(fig)
        assert outside_canvas(fig) == [], stem
        for ax in [ax for ax in fig.axes if ax.axison]:          # not the blank rows holding the legends
            texts = [t.get_text() for t in ax.get_legend().get_texts()]
            assert all("(100 runs):\nslope" in t and "[" in t for t in texts[:-1]), texts
            assert texts[-1] == figures.FIT_LABEL
            assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    switches = drawn[[s for s in drawn if s.endswith("swucb_switches")][0]]
    left = [t.get_text() for t in switches.axes[1].get_legend().get_texts()]
    # the switch in words, not its config key, and no subscript in a legend (B_T would be drawn at 4.9 pt)
    assert any(t.startswith("EXP3.S (V = the variation budget)") for t in left)
    assert any(t.startswith("EXP3.S (Rexp3, restarts)") for t in left)
    from linbandits.figure_checks import figure_problems
    from linbandits.plotting import finish_figure

    for stem, fig in drawn.items():
        finish_figure(fig)
        assert figure_problems(fig) == [], stem
    assert sw.TITLE


# ------------------------------------------------------------------ common random numbers

def switch_shares_the_noise(config, switch_name, trial=0, T=1200) -> bool:
    """A switch run's run `trial` is the base's: same simulate seed, hence the same noise matrix
    (trajectories.noise_matrix reads generator(seed, trial, 0) only)."""
    from linbandits.studies.swucb import trajectories

    exps = experiments.experiments(config)
    switch = exps[switch_name]
    base = exps[switch.switch_of]
    setting = switch.setting_ids()[0]
    seeds = experiments.seed_of(config, switch, setting), experiments.seed_of(config, base, setting)
    instance = build_instance("swucb_sinusoid", {"T": T, "budget": switch.settings["budget"]})
    return np.array_equal(trajectories.noise_matrix(instance, seeds[0], trial), trajectories.noise_matrix(instance, seeds[1], trial))


@pytest.mark.parametrize("switch", ["swucb_fig1__rexp3", "swucb_fig1__v_budget", "swucb_fig2__known_window"])
def test_switch_runs_share_their_base_noise(switch):
    assert switch_shares_the_noise(REPO_CONFIG, switch)


def test_a_planted_own_seed_switch_is_caught(monkeypatch):
    """Switch runs seeded from their own names (the old separate experiments) see other noise."""
    monkeypatch.setattr(experiments, "seed_of", lambda config, exp, setting: experiments._hashed_seed(config, exp.name, setting))
    assert not switch_shares_the_noise(REPO_CONFIG, "swucb_fig1__rexp3")


def test_the_noise_does_not_depend_on_the_algorithm_or_its_options():
    from linbandits.studies.swucb import trajectories

    instance = build_instance("swucb_sinusoid", {"T": 900, "budget": "constant"})
    seen = []
    for name, options in (("SW-UCB", {}), ("EXP3.S", {}), ("EXP3.S", {"variant": "rexp3"}),
                          ("EXP3.S", {"variation": "budget"}), ("BOB", {})):
        alg = make_algorithm(name, instance, options)
        alg.run(5, 2)
        seen.append(alg._eta.copy())                   # the noise matrix the run played
    assert all(np.array_equal(seen[0], s) for s in seen[1:])
    assert np.array_equal(seen[0], trajectories.noise_matrix(instance, 5, 2))
