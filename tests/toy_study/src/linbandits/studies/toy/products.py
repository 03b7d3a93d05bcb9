"""The toy study's products: one table, one figure and the claims."""
from __future__ import annotations

from linbandits.products import Product, claims_product

EXPERIMENT = "toy_accuracy"


def products(ctx) -> list[Product]:
    runs = ctx.runs_files(EXPERIMENT)
    return [Product("table", "accuracy", ctx.table_paths("accuracy"), runs, make_table),
            Product("figure", "accuracy_bars", ctx.figure_paths("accuracy_bars"), runs, make_figure),
            *claims_product(ctx, "A toy paper: its one claim")]


def accuracy(ctx):
    """(runs, share correct, its 95% Wilson interval) of Toy-Uniform."""
    from scipy.stats import binomtest

    correct = ctx.runs(EXPERIMENT).column("single", "Toy-Uniform", "correct")
    interval = binomtest(int(correct.sum()), correct.size).proportion_ci(method="wilson")
    return correct.size, float(correct.mean()), float(interval.low), float(interval.high)


def make_table(ctx) -> None:
    import pandas as pd

    from linbandits.tables import write_table

    n, share, _, _ = accuracy(ctx)
    write_table(pd.DataFrame([{"algorithm": "Toy-Uniform", "n_runs": n, "accuracy": share}]),
                *ctx.table_paths("accuracy"))


def make_figure(ctx) -> None:
    from linbandits.studies.toy.figures import draw_figure

    _, share, low, high = accuracy(ctx)
    draw_figure([{"title": "two arms, gap 0.5", "rows": [("Toy-Uniform", share, low, high)]}], {},
                ctx.figure_stem("accuracy_bars"), "", ctx.banner())
