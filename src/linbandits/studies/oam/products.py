"""The study's products: the lower-bound constants, the final-regret table, Figs. 1-4 with the switch
figures, and the claims (linbandits.products)."""
from __future__ import annotations

import functools

import numpy as np

from linbandits.products import Product, claims_product
from linbandits.runs import mean_se

TITLE = "OAM (Hao, Lattimore, Szepesvari 2020): claims C1-C8 judged on the reproduced runs"
BOUNDS_COLUMNS = ["experiment", "title", "switch", "horizon", "C", "C_log_n", "C_note"]
FINAL_COLUMNS = ["experiment", "title", "switch", "algorithm", "horizon", "n_runs", "mean_regret", "se", "C", "C_log_n"]


def products(ctx) -> list[Product]:
    exps = ctx.built()
    bounds = ctx.table_paths("lower_bounds")
    instances = [p for n in exps for p in (ctx.summary_path(n, "single"), ctx.instance_path(n, "single"))]
    runs = [f for n in exps for f in ctx.runs_files(n)]
    out = [
        Product("table", "lower_bounds", bounds, instances, functools.partial(make_bounds, names=list(exps)),
                caption="lower_bounds"),
        Product("table", "final_regret", ctx.table_paths("final_regret"), runs + [bounds[0]],
                functools.partial(make_final_table, names=list(exps)), caption="table"),
    ]
    out += ctx.figure_products("linbandits.studies.oam.figures:make_figure", inputs=[bounds[0]])
    out += claims_product(ctx, TITLE)
    return out


# ------------------------------------------------------------------ lower bounds

def reference_C(ctx, name: str) -> tuple[float, str]:
    """C of the instance, or for an instance whose theta is redrawn per run (D.2) the median over the
    runs of C(theta_r), the theta each run played against (C(theta) is heavy-tailed in theta)."""
    from linbandits import experiments
    from linbandits.tables import read_summary

    summary = read_summary(ctx.summary_path(name, "single"), ("lower_bound_C", "horizon"))
    if not summary.get("theta_random"):
        return float(summary["lower_bound_C"]), "C(theta) of the instance"
    from linbandits.problems import load_instance_file
    from linbandits.studies.oam.allocation import lower_bound
    from linbandits.studies.oam.streams import run_theta

    exp = ctx.experiments[name]
    inst = load_instance_file(ctx.instance_path(name, "single"))
    seed = experiments.seed_of(ctx.config, exp, "single")
    values = [lower_bound(inst.actions, run_theta(inst, seed, r)).C for r in range(exp.trials)]
    return float(np.median(values)), (f"median over the runs of C(theta_r), theta redrawn per run "
                                      f"(mean {np.mean(values):.4g})")


def make_bounds(ctx, names) -> None:
    import pandas as pd

    from linbandits.tables import read_summary, write_table

    rows = []
    for name in names:
        exp = ctx.experiments[name]
        horizon = int(read_summary(ctx.summary_path(name, "single"), ("horizon",))["horizon"])
        C, note = reference_C(ctx, name)
        rows.append({"experiment": name, "title": exp.title, "switch": exp.switch or "", "horizon": horizon,
                     "C": C, "C_log_n": C * float(np.log(horizon)), "C_note": note})
    write_table(pd.DataFrame(rows, columns=BOUNDS_COLUMNS), *ctx.table_paths("lower_bounds"),
                exact_columns=("horizon",))


def read_bounds(ctx):
    import pandas as pd

    return pd.read_csv(ctx.table_paths("lower_bounds")[0], keep_default_na=False).set_index("experiment")


# ------------------------------------------------------------------ final regret

def make_final_table(ctx, names) -> None:
    import pandas as pd

    from linbandits.tables import write_table

    bounds = read_bounds(ctx)
    rows = []
    for name in names:
        exp, runs = ctx.experiments[name], ctx.runs(name)
        C, horizon = float(bounds.loc[name, "C"]), int(bounds.loc[name, "horizon"])
        for algo in exp.algorithms:
            final = runs.column("single", algo, "regret").astype(float)
            mean, se = mean_se(final)
            rows.append({"experiment": name, "title": exp.title, "switch": exp.switch or "", "algorithm": algo,
                         "horizon": horizon, "n_runs": final.size, "mean_regret": mean, "se": se, "C": C,
                         "C_log_n": C * float(np.log(horizon))})
    write_table(pd.DataFrame(rows, columns=FINAL_COLUMNS), *ctx.table_paths("final_regret"),
                exact_columns=("horizon", "n_runs"))
