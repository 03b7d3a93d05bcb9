"""The study's products (linbandits.products): the final-regret table, the switch runs' table, Figs. 1-2
with the neural variants (OPNN, OPNN0, ADA-OPNN) beside the kernel algorithms, the claims; the tuning
table and the claims with the tuning result (opt-in target `opkb_tuning`).

Every number is read from the runs files (linbandits.runs): the runs of an experiment are its
instance seeds (settings seed0, seed1, ...), taken in setting order.
"""
from __future__ import annotations

import functools

import numpy as np

from linbandits.products import Product, claims_product
from linbandits.runs import RunSet, mean_se

TITLE = "Hong, Li, Tewari (2023): claims C1-C8 judged on the reproduced runs"
TUNING_TARGET = "opkb_tuning"
NEURAL = ("OPNN", "OPNN0", "ADA-OPNN")
NEURAL_NOT_RUN = "neural variants (OPNN, OPNN0, ADA-OPNN) not run: no neural experiment in the config"
TABLE_COLUMNS = ["experiment", "algorithm", "n_runs", "T", "mean_regret", "se", "min", "max"]
SWITCH_COLUMNS = ["experiment", "base", "choice", "value", "algorithm", "n_runs", "T", "mean_regret", "se", "min",
                  "max", "minus_default", "minus_default_se"]


def products(ctx) -> list[Product]:
    return report_products(ctx) + tuning_products(ctx)


# ------------------------------------------------------------------ which experiments

def neural(ctx) -> list[str]:
    """The experiments of the neural variants (the default target's, as every experiment not opt-in)."""
    return [n for n in ctx.published() if set(ctx.experiments[n].algorithms) <= set(NEURAL)]


def neural_note(ctx, maths: bool = False) -> str:
    """The neural variants' width, precision and step size, in words (the claims) or with the step size's
    symbol typeset (a figure)."""
    from linbandits.studies.opkb.algorithms import OPNN_DEFAULTS

    def values(key):
        return "/".join(sorted({str(ctx.experiments[n].options.get(a, {}).get(key, OPNN_DEFAULTS[key]))
                                for n in neural(ctx) for a in ctx.experiments[n].algorithms}))

    step = r"$\eta \times \mathrm{width}$" if maths else "eta x width"
    return f"neural variants at width {values('width')} (paper: 2048), {values('precision')}, {step} = 2.048e-5"


# Options a series' name states: SW-GPUCB runs with window 3000 (Env 1), 2000 (Env 2 and J.3, the
# authors' configs; the paper's text says 3000) and 1000 (J.3, dashed), so its legend entry and table
# row name the window each curve ran with.
NAMED_OPTIONS = {"SW-GPUCB": ("window",)}


def option_value(exp, algorithm: str, option: str):
    """The value of `option` an experiment's runs of `algorithm` used: the experiment's, else the algorithm's default."""
    from linbandits import catalogue

    return exp.options.get(algorithm, {}).get(option, catalogue.algorithm_class(algorithm).defaults[option])


def label_of(ctx, name: str, algorithm: str) -> str:
    """A series' name: an experiment's `series_label`, else the algorithm with the options it names
    (e.g. SW-GPUCB (window 2000)); for a switch run, also the switched choice unless the name already
    states every option the switch changed."""
    body = (ctx.section.get("experiments") or {}).get(name) or {}
    if body.get("series_label"):
        return body["series_label"]
    exp = ctx.experiments[name]
    named = NAMED_OPTIONS.get(algorithm, ())
    label = algorithm + "".join(f" ({o} {option_value(exp, algorithm, o)})" for o in named)
    if exp.switch_of:
        base = ctx.experiments[exp.switch_of]
        mine, theirs = exp.options.get(algorithm, {}), base.options.get(algorithm, {})
        changed = {k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k)}
        if not changed or not changed <= set(named):
            label += f", {exp.choice} = {exp.switch}"
    return label


# ------------------------------------------------------------------ runs over the instance seeds

def seed_runs(runs: RunSet, exp, algorithm: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(final regrets, curve rounds, curves) of every run of every setting, in setting order."""
    finals, curves, t = [], [], None
    for s in exp.setting_ids():
        finals.append(np.asarray(runs.column(s, algorithm, "regret"), float))
        rounds, c = runs.curve(s, algorithm)
        t = rounds if t is None else t
        curves.append(np.asarray(c, float))
    return np.concatenate(finals), np.asarray(t), np.vstack(curves)


# ------------------------------------------------------------------ the default target

def report_products(ctx) -> list[Product]:
    names = list(ctx.published())
    runs = [f for n in names for f in ctx.runs_files(n)]
    out = [Product("table", "final_regret", ctx.table_paths("final_regret"), runs,
                   functools.partial(make_final_table, names=names, name="final_regret"), caption="table")]
    switches = [n for n in ctx.switch_runs() if n in ctx.experiments]
    if switches:
        inputs = [f for n in switches + sorted({ctx.experiments[n].switch_of for n in switches})
                  for f in ctx.runs_files(n)]
        out.append(Product("table", "switch_regret", ctx.table_paths("switch_regret"), inputs,
                           functools.partial(make_switch_table, names=switches), caption="switch_table"))
    out += ctx.figure_products("linbandits.studies.opkb.figures:make_figure")
    out += claims_product(ctx, TITLE, quantities=_quantities(), caption="claims",
                          sections=lambda c, results: neural_section(c))
    return out


def neural_section(ctx) -> list:
    """The claims' note on the neural variants: their width, or that no neural experiment ran."""
    return [[f"Neural variants: {neural_note(ctx) if neural(ctx) else NEURAL_NOT_RUN}."]]


def _quantities() -> dict:
    from linbandits.studies.opkb.quantities import QUANTITIES

    return QUANTITIES


def make_final_table(ctx, names, name) -> None:
    """Per (experiment, algorithm): mean, s.e., min and max of the final regret over every run."""
    import pandas as pd

    from linbandits.tables import write_table

    rows = []
    for exp_name in names:
        exp, runs = ctx.experiments[exp_name], ctx.runs(exp_name)
        for algorithm in exp.algorithms:
            finals, t, _ = seed_runs(runs, exp, algorithm)
            mean, se = mean_se(finals)
            rows.append({"experiment": exp_name, "algorithm": label_of(ctx, exp_name, algorithm),
                         "n_runs": finals.size, "T": int(t[-1]), "mean_regret": mean, "se": se,
                         "min": float(finals.min()), "max": float(finals.max())})
    write_table(pd.DataFrame(rows, columns=TABLE_COLUMNS), *ctx.table_paths(name), exact_columns=("n_runs", "T"))


def make_switch_table(ctx, names) -> None:
    """Per switch run and switched algorithm: its final regret and its paired difference from the same
    algorithm's default run (the switch uses its base's seeds: the same instances and noise)."""
    import pandas as pd

    from linbandits.tables import write_table

    rows = []
    for exp_name in names:
        exp, runs = ctx.experiments[exp_name], ctx.runs(exp_name)
        base, base_runs = ctx.experiments[exp.switch_of], ctx.runs(exp.switch_of)
        for algorithm in exp.algorithms:
            finals, t, _ = seed_runs(runs, exp, algorithm)
            mean, se = mean_se(finals)
            default, _, _ = seed_runs(base_runs, base, algorithm)
            diff, diff_se = mean_se(finals - default)
            rows.append({"experiment": exp_name, "base": exp.switch_of, "choice": exp.choice, "value": exp.switch,
                         "algorithm": label_of(ctx, exp.switch_of, algorithm), "n_runs": finals.size,
                         "T": int(t[-1]), "mean_regret": mean, "se": se, "min": float(finals.min()),
                         "max": float(finals.max()), "minus_default": diff, "minus_default_se": diff_se})
    write_table(pd.DataFrame(rows, columns=SWITCH_COLUMNS), *ctx.table_paths("switch_regret"),
                exact_columns=("n_runs", "T", "value"))


# ------------------------------------------------------------------ opkb_tuning

def tuning_points(ctx) -> dict[str, list[dict]]:
    from linbandits.studies.opkb.tuning import grid_points

    tuning = ctx.section.get("tuning") or {}
    if not tuning:
        return {}
    return grid_points(tuning, ctx.experiments[tuning["experiment"]].options)


def tuning_files(ctx) -> list[str]:
    from linbandits.studies.opkb.tuning import point_file

    return [ctx.results(point_file(algorithm, i))
            for algorithm, points in tuning_points(ctx).items() for i in range(len(points))]


def tuning_products(ctx) -> list[Product]:
    files = tuning_files(ctx)
    if not files:
        return []
    outputs = ctx.table_paths("tuning") + [ctx.results("tables", "tuning.json")]
    return [
        Product("table", "tuning_table", outputs, files, functools.partial(make_tuning_table, files=files),
                caption="tuning", target=TUNING_TARGET),
        *claims_product(ctx, TITLE, quantities=_quantities(), extra_inputs=files,
                        extras=lambda c: {"tuning": files}, name="claims_tuning", target=TUNING_TARGET,
                        caption="claims", sections=lambda c, results: neural_section(c)),
    ]


def make_tuning_table(ctx, files) -> None:
    from linbandits.studies.opkb.tuning import write_tuning_table

    write_tuning_table(files, ctx.table_paths("tuning"), ctx.results("tables", "tuning.json"))
