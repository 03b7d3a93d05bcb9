"""The study's products (linbandits.products): a stopping-time table per experiment, Table 1 beside
the published one, Figs. 1-3 and the claims, all read from the runs files (linbandits.runs)."""
from __future__ import annotations

import functools

import numpy as np

from linbandits.products import Product, claims_product
from linbandits.runs import RunSet
from linbandits.studies.lingape.published import PUBLISHED_TABLE1, PublishedTable1
from linbandits.studies.lingape.stopping import censored_count

TITLE = "LinGapE (Xu, Honda, Sugiyama 2018): the claims of Sec. 7 judged on the reproduced runs"
SUMMARY_COLUMNS = ["algorithm", "x", "runs", "mean_tau", "sd_tau", "min_tau", "median_tau", "max_tau", "run0_tau",
                   "correct", "censored"]
TABLE1 = "table1_arm_pulls_d5"

# How each published column was made (docs/protocols/lingape.md, section D): said beside the table.
PUBLISHED_SETTING = {
    "LinGapE": ("the published LinGapE column (total 431,119) is the authors' LinUgapE.py (paper form, greedy "
                "rule, seed 0) with epsilon = Delta_min/2, a line commented out in their stored file; with "
                "epsilon = 0, the paper's text, the same seed stops at 1,015,526"),
}


def products(ctx) -> list[Product]:
    exps = ctx.built()
    out = [Product("table", name, ctx.table_paths(name), ctx.runs_files(name),
                   functools.partial(make_stopping_table, name=name), caption="table")
           for name in exps]
    table1 = ctx.section.get("table1")
    witness = None
    if table1:
        check_table1(table1)
        used = sorted({col[0] for col in table1["columns"].values()} & set(exps))
        out.append(Product("table", TABLE1, ctx.table_paths(TABLE1), [f for n in used for f in ctx.runs_files(n)],
                           functools.partial(make_table1, spec=table1), caption="table1"))
        # the paper's Table 1 runs stand for the experiments its published columns are compared with (a
        # switch run's column: its base's runs, which the claims read)
        shown = {ctx.experiments[col[0]].switch_of or col[0] for col in table1["columns"].values() if len(col) > 2}
        witness = functools.partial(PublishedTable1, experiments=shown, setting=table1["setting"])
    out += ctx.figure_products("linbandits.studies.lingape.figures:make_figure", summaries=True)
    from linbandits.studies.lingape.quantities import QUANTITIES

    out += claims_product(ctx, TITLE, quantities=QUANTITIES, witness=witness)
    return out


# ------------------------------------------------------------------ stopping-time tables

def stopping_rows(exp, runs: RunSet) -> list[dict]:
    """One row per (setting, algorithm): the distribution of the stopping time over the runs."""
    rows = []
    for s in exp.setting_ids():
        for algorithm in exp.algorithms:
            tau = runs.column(s, algorithm, "stopping_time").astype(float)
            correct = runs.column(s, algorithm, "correct")
            rows.append({"algorithm": algorithm, "x": float(exp.value_of(s)), "runs": int(tau.size),
                         "mean_tau": tau.mean(), "sd_tau": tau.std(ddof=1) if tau.size > 1 else 0.0,
                         "min_tau": tau.min(), "median_tau": float(np.median(tau)), "max_tau": tau.max(),
                         "run0_tau": tau[0], "correct": correct.mean(), "censored": censored_count(runs, s, algorithm)})
    return rows


def make_stopping_table(ctx, name) -> None:
    import pandas as pd

    from linbandits.tables import write_table

    rows = stopping_rows(ctx.experiments[name], ctx.runs(name))
    write_table(pd.DataFrame(rows, columns=SUMMARY_COLUMNS), *ctx.table_paths(name))


# ------------------------------------------------------------------ Table 1

def pull_matrix(runs: RunSet, setting: str, algorithm: str) -> np.ndarray:
    """runs x arms pull counts."""
    columns = runs.meta["series"][f"{setting}/{algorithm}"]["columns"]
    arms = [c for c in columns if c.startswith("pulls_")]
    return np.stack([runs.column(setting, algorithm, c) for c in arms], axis=1)


def table1(columns: dict):
    """columns: label -> (runs x arms pulls, published counts or None). Rows: arms 1..K and the total."""
    import pandas as pd

    frames, K = [], None
    for label, (pulls, published) in columns.items():
        K = pulls.shape[1]
        block = {}
        if published is not None:
            block[f"{label} published"] = list(published) + [sum(published)]
        totals = pulls.sum(axis=1)
        block[f"{label} run 0"] = list(pulls[0]) + [int(totals[0])]
        block[f"{label} median"] = list(np.median(pulls, axis=0)) + [float(np.median(totals))]
        block[f"{label} min"] = list(pulls.min(axis=0)) + [int(totals.min())]
        block[f"{label} max"] = list(pulls.max(axis=0)) + [int(totals.max())]
        frames.append(pd.DataFrame(block))
    table = pd.concat(frames, axis=1)
    table.insert(0, "arm", [str(a + 1) for a in range(K)] + ["total"])
    return table


def check_table1(spec: dict) -> None:
    from linbandits.errors import UserError

    for label, col in spec["columns"].items():
        if len(col) > 2 and col[2] not in PUBLISHED_TABLE1:
            raise UserError(f"lingape table1 column {label!r}: the published column {col[2]!r} is not one of "
                            f"{', '.join(PUBLISHED_TABLE1)}")


def table1_notes(spec: dict) -> list[str]:
    """What the table says below itself: where each published column came from."""
    notes = []
    for label, col in spec["columns"].items():
        published = col[2] if len(col) > 2 else None
        if published in PUBLISHED_SETTING:
            notes.append(f"`{label} published`: {PUBLISHED_SETTING[published]}.")
    return notes


def make_table1(ctx, spec) -> None:
    from linbandits.atomic import write_text_atomic
    from linbandits.tables import latex_escape, write_table

    setting = spec["setting"]
    columns = {}
    for label, col in spec["columns"].items():
        experiment, algorithm = col[0], col[1]
        published = PUBLISHED_TABLE1[col[2]] if len(col) > 2 else None
        columns[label] = (pull_matrix(ctx.runs(experiment), setting, algorithm), published)
    table = table1(columns)
    csv, md, tex = ctx.table_paths(TABLE1)
    write_table(table, csv, md, tex, exact_columns=tuple(c for c in table.columns if c != "arm"))
    notes = table1_notes(spec)
    if notes:
        write_text_atomic(md, open(md, encoding="utf-8").read() + "\n" + "\n".join(f"Note: {n}" for n in notes) + "\n")
        write_text_atomic(tex, open(tex, encoding="utf-8").read()
                          + "".join(f"% Note: {latex_escape(n)}\n" for n in notes))
