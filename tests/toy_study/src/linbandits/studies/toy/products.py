"""The toy study's products: one table and its claims."""
from __future__ import annotations

from linbandits.products import Product, claims_product


def products(ctx) -> list[Product]:
    exp = "toy_accuracy"
    table = Product("table", "accuracy", ctx.table_paths("accuracy"), ctx.runs_files(exp), make_table)
    return [table, *claims_product(ctx, "A toy paper: its one claim")]


def make_table(ctx) -> None:
    import pandas as pd

    from linbandits.runs import RunSet
    from linbandits.tables import write_table

    correct = RunSet(ctx.runs_stem("toy_accuracy")).column("single", "Toy-Uniform", "correct")
    table = pd.DataFrame([{"algorithm": "Toy-Uniform", "n_runs": correct.size, "accuracy": float(correct.mean())}])
    write_table(table, *ctx.table_paths("accuracy"))
