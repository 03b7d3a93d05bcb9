"""The study's products (linbandits.products): one error table per experiment, every published cell
beside its reproduction, Figs. 2-6 and the switch figures, Theorem 1's figure, and the claims.

Every product reads the experiments' runs files (linbandits.runs) and instance summaries; the error
table of an experiment (error_tables.experiment_table) is the one aggregation the tables, figures,
Theorem 1 and the published comparison share.
"""
from __future__ import annotations

import functools

from linbandits.products import Product, claims_product, maker

TITLE = "P1-RAGE (Xiong et al.): the paper's claims judged on the reproduced runs"
PUBLISHED = "published_vs_reproduced"
THEOREM1 = "thm1_gbai_bound"
YAHOO_INSTANCE = "yahoo"


def products(ctx) -> list[Product]:
    from linbandits.studies.p1rage.published import PUBLISHED_CSV

    exps = ctx.experiments
    out = []
    for name, exp in exps.items():
        out.append(Product("table", name, ctx.table_paths(name), [*ctx.runs_files(name), *ctx.summaries(name)],
                           functools.partial(make_table, name=name), caption="table",
                           target=exp.opt_in or ""))
    published = list(ctx.published())
    comparison = comparison_paths(ctx)
    out.append(Product("table", PUBLISHED, comparison,
                       [str(PUBLISHED_CSV), *[f for n in published for f in ctx.runs_files(n) + ctx.summaries(n)]],
                       functools.partial(make_comparison, names=published), caption="published"))
    out += ctx.figure_products("linbandits.studies.p1rage.figures:make_figure", inputs=[str(PUBLISHED_CSV)],
                               summaries=True)
    theorem1 = (ctx.section.get("theorem1") or {}).get("experiment")
    if theorem1:
        out.append(Product("figure", THEOREM1, ctx.figure_paths(THEOREM1),
                           [*ctx.runs_files(theorem1), *ctx.summaries(theorem1)],
                           maker("linbandits.studies.p1rage.theorem1:make_theorem1", name=theorem1), caption="thm1",
                           target=exps[theorem1].opt_in or ""))
    roles = ctx.section.get("published") or {}
    out += claims_product(ctx, TITLE, extra_inputs=[comparison[0], str(PUBLISHED_CSV)], sections=claims_sections,
                          caption="claims", witness=functools.partial(published_witness, roles=roles))
    return out


# ------------------------------------------------------------------ tables

def comparison_paths(ctx) -> list[str]:
    return [ctx.results(f"{PUBLISHED}.{ext}") for ext in ("csv", "md", "tex")]


def error_table(ctx, name: str):
    from linbandits.studies.p1rage.error_tables import experiment_table

    return experiment_table(ctx.experiments[name], ctx.runs(name), functools.partial(ctx.summary_path, name))


def make_table(ctx, name: str) -> None:
    from linbandits.tables import write_table

    write_table(error_table(ctx, name), *ctx.table_paths(name))


def synthetic_yahoo(ctx, name: str) -> bool:
    """True when the experiment's instances were built from the synthetic stand-in for R6A."""
    source = (ctx.config.get("r6a") or {}).get("source", "synthetic")
    return ctx.experiments[name].instance == YAHOO_INSTANCE and source == "synthetic"


def make_comparison(ctx, names) -> None:
    import pandas as pd

    from linbandits.studies.p1rage.published import compare, read_published, write_comparison

    reproduced = pd.concat([error_table(ctx, n) for n in names], ignore_index=True)
    yahoo_is_r6a = (ctx.config.get("r6a") or {}).get("source", "synthetic") == "r6a"
    roles = ctx.section.get("published") or {}
    write_comparison(compare(read_published(), reproduced, yahoo_is_r6a, roles), roles, *comparison_paths(ctx))


# ------------------------------------------------------------------ what the figures read

def panel_subtitle(ctx, name: str, table) -> str:
    """The run count of a panel (from its table), and whether it reads the synthetic stand-in for R6A (a
    switch run's choice is its panel's title; the preview banner goes across the figure)."""
    from linbandits.plotting import band_phrase

    notes = [band_phrase(table["n_trials"].unique()) + " per estimate"]
    if synthetic_yahoo(ctx, name):
        notes.append("synthetic stand-in for R6A")
    return "; ".join(notes)


# ------------------------------------------------------------------ claims

def published_witness(evidence, roles: dict):
    """The paper's published cells, judged beside the reproduction (each at its effective size)."""
    from linbandits.studies.p1rage.published import PublishedEvidence

    return PublishedEvidence(evidence, roles)


def claims_sections(ctx, results) -> list[list[str]]:
    """Below the claims: which verdicts read the synthetic stand-in for R6A, and the published
    comparison's summary (the cells that differ, the series beyond the bound)."""
    sections = []
    synthetic = [n for n in ctx.experiments if synthetic_yahoo(ctx, n)]
    if synthetic:
        hit = [r["id"] for r in results if set(r["experiments"]) & set(synthetic)]
        if hit:
            sections.append(["## Synthetic stand-in for R6A", "",
                             f"The verdicts of {', '.join(f'`{h}`' for h in hit)} were computed on the synthetic "
                             "stand-in for R6A (`r6a: source: synthetic`): they say nothing about the paper's data."])
    lines, _ = published_section(comparison_paths(ctx)[0], ctx.section.get("published") or {})
    sections.append(lines)
    return sections


def published_section(path, roles: dict) -> tuple[list[str], dict]:
    """Markdown lines and the summary of the published-vs-reproduced table at `path` (its CSV); roles: the
    config's `published:`."""
    import pandas as pd

    from linbandits.studies.p1rage.published import summary, summary_line

    s = summary(pd.read_csv(path), roles)
    lines = ["## Published beside reproduced", "", summary_line(s) + ".", ""]
    if s["differs"]:
        lines += ["Cells that differ:", ""] + [
            f"- {d['experiment']} {d['algorithm']}{'' if pd.isna(d['x']) else f' x={float(d[chr(120)]):g}'}: "
            f"published {float(d['published_p']):.4g}, reproduced {float(d['reproduced_p']):.4g} "
            f"(z = {float(d['z']):.2f})" for d in s["differs"]] + [""]
    if s["series_beyond"]:
        lines += [f"Series beyond the Bonferroni bound (|Stouffer z| > {s['series_bound']:.2f}):", ""] + [
            f"- {d['experiment']} {d['algorithm']}: Stouffer z = {float(d['stouffer_z']):.2f} over "
            f"{int(d['cells'])} cells" for d in s["series_beyond"]] + [""]
    return lines, s
