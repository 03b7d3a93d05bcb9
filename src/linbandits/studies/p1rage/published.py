"""Every published cell of Xiong et al. beside its reproduction (spec G).

The published numbers (`p1rage_published.csv`, copied from
shared/published/) come from the authors' result arrays. Fig. 2a's arrays
are not independent trials, so each cell carries an effective size
(`effective_n` = trials / variance inflation); a cell is compared at that
size, or honest agreement would look like a discrepancy.

Per cell: difference = reproduced p - published p, and the pooled
two-proportion z of that difference with the published side at its
effective size. Verdict "consistent" when |z| <= the two-sided 99% normal
quantile (2.576), else "differs". Yahoo! rows (the authors ran real R6A)
are compared only when this run used R6A; on the synthetic stand-in they
are "not comparable". A published cell without a reproduced one is
"not run".

Per series: one (experiment, algorithm) pair is a series; its cells' z are
combined by Stouffer's rule, Z = sum(z) / sqrt(k) over its k compared cells,
which is N(0, 1) when every cell agrees and the cells are independent. A
series whose cells all lean the same way by an amount no single cell shows
(six cells at z = 1.6 each give Z = 3.9) is caught here. With S compared
series, Z is judged against the two-sided Bonferroni bound at level
SERIES_ALPHA: |Z| > Phi^-1(1 - SERIES_ALPHA / (2 S)) is "beyond" (3.67 for
S = 42). Every cell with a z counts, also one whose z is 0 because both sides
saw no error.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError
from linbandits.tables import table_to_csv, table_to_latex, table_to_markdown

PUBLISHED_CSV = Path(__file__).with_name("p1rage_published.csv")
LEVEL = 0.99
SERIES_ALPHA = 0.01
CONSISTENT, DIFFERS, NOT_COMPARABLE, NOT_RUN = "consistent", "differs", "not comparable (synthetic stand-in)", "not run"
WITHIN, BEYOND = "within", "beyond"
CELL_COLUMNS = ["experiment", "algorithm", "x", "published_p", "published_n", "effective_n", "compared_n",
                "reproduced_p", "reproduced_n", "difference", "z", "verdict"]

# The Fig. 2a arrays made of three appended runs: experiment, array length, and per run (trials, how
# many independent trials each of its trials weighs like). Run 1: six workers forked from one
# generator, so six interleaved copies (exact); run 2: the moment estimate over the 32 cells with
# errors, (e_mid - e_last)^2 against the binomial variance, ~28 (docs/p1rage.md); run 3: independent.
THREE_RUN_LENGTH = 21000
THREE_RUNS = ((1000, 6.0), (10000, 28.0), (10000, 1.0))


def three_run_n(runs=THREE_RUNS) -> float:
    """Effective size of an array that appends runs of n_r trials, each weighing like c_r copies: its
    mean has variance p(1 - p) sum(n_r c_r) / N^2, N = sum(n_r), so n_eff = N^2 / sum(n_r c_r)
    (21000^2 / 296000 = 1490 for THREE_RUNS: a run-level inflation of 14.1)."""
    total = sum(n for n, _ in runs)
    return total * total / sum(n * c for n, c in runs)


THREE_RUN_N = round(three_run_n())


def compared_n(experiment: str, n_trials: int, effective_n: float, three_runs: str | None) -> float:
    """The size a published cell is compared at: its effective_n, capped at THREE_RUN_N for the Fig. 2a
    cells of three appended runs (those of experiment `three_runs`, the config's `published: three_runs`;
    the 500-trial blocks see only part of their dependence; a cell's block estimate below the cap
    already shows more, and is kept)."""
    if experiment == three_runs and int(n_trials) == THREE_RUN_LENGTH:
        return min(float(effective_n), float(THREE_RUN_N))
    return float(effective_n)
# Each cell row also carries its series' test (empty where the cell was not compared).
COLUMNS = CELL_COLUMNS + ["series_z", "series_bound", "series_verdict"]
SERIES_COLUMNS = ["experiment", "algorithm", "cells", "stouffer_z", "bound", "verdict"]


def read_published(path=PUBLISHED_CSV) -> pd.DataFrame:
    table = pd.read_csv(path, keep_default_na=False, na_values={"x": [""]})
    needed = {"experiment", "algorithm", "x", "n_trials", "n_errors", "effective_n"}
    if not needed <= set(table.columns):
        raise UserError(f"{path}: published table lacks {sorted(needed - set(table.columns))}")
    table["x"] = table["x"].astype(float)
    return table


def z_at_effective_size(p_pub: float, n_eff: float, p_rep: float, n_rep: int) -> float:
    """Pooled two-proportion z of p_rep - p_pub, the published side at n_eff."""
    pooled = (p_pub * n_eff + p_rep * n_rep) / (n_eff + n_rep)
    variance = pooled * (1 - pooled) * (1 / n_eff + 1 / n_rep)
    return 0.0 if variance <= 0 else (p_rep - p_pub) / math.sqrt(variance)


def stouffer_z(z) -> float:
    """Stouffer's combination sum(z) / sqrt(k) of k cell z-scores."""
    z = np.asarray(z, dtype=float)
    return 0.0 if z.size == 0 else float(z.sum() / math.sqrt(z.size))


def bonferroni_bound(alpha: float, n_series: int) -> float:
    """|Z| beyond this is significant at two-sided level alpha over n_series tests (Bonferroni)."""
    from scipy.stats import norm

    return float(norm.isf(alpha / (2 * n_series)))


def series_tests(comparison: pd.DataFrame, alpha: float = SERIES_ALPHA) -> pd.DataFrame:
    """One row per (experiment, algorithm) series with at least one compared
    cell (SERIES_COLUMNS), in the order the series first appear: its number of
    cells, Stouffer's Z over their z, the Bonferroni bound over all these
    series, and whether |Z| is beyond it."""
    compared = comparison[comparison["verdict"].isin([CONSISTENT, DIFFERS])]
    groups = list(compared.groupby(["experiment", "algorithm"], sort=False)["z"])
    if not groups:
        return pd.DataFrame(columns=SERIES_COLUMNS)
    bound = bonferroni_bound(alpha, len(groups))
    rows = []
    for (experiment, algorithm), z in groups:
        combined = stouffer_z(z)
        rows.append({"experiment": experiment, "algorithm": algorithm, "cells": int(len(z)),
                     "stouffer_z": combined, "bound": bound,
                     "verdict": BEYOND if abs(combined) > bound else WITHIN})
    return pd.DataFrame(rows, columns=SERIES_COLUMNS)


def _with_series(cells: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """The cell table with its series' Z, bound and verdict on every compared cell."""
    series = series_tests(cells, alpha)
    by_series = {(r.experiment, r.algorithm): r for r in series.itertuples()}
    out = cells.copy()
    out["series_z"], out["series_bound"], out["series_verdict"] = np.nan, np.nan, ""
    compared = out["verdict"].isin([CONSISTENT, DIFFERS])
    for i in out.index[compared]:
        r = by_series[(out.at[i, "experiment"], out.at[i, "algorithm"])]
        out.at[i, "series_z"], out.at[i, "series_bound"], out.at[i, "series_verdict"] = \
            r.stouffer_z, r.bound, r.verdict
    return out[COLUMNS]


def _key(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):g}"


def compare(published: pd.DataFrame, reproduced: pd.DataFrame, yahoo_is_r6a: bool, roles: dict,
            level: float = LEVEL) -> pd.DataFrame:
    """One row per published cell (COLUMNS): the cell's own comparison and its series' test. roles: the
    config's `published:` (the experiment of the authors' real-R6A cells, `r6a`, and of Fig. 2a's
    three-run arrays, `three_runs`)."""
    from scipy.stats import norm   # here: the figure jobs import this module for the published cells alone

    critical = norm.ppf(0.5 + level / 2)
    rep = {(r.experiment, r.algorithm, _key(r.x)): r for r in reproduced.itertuples()}
    rows = []
    for r in published.itertuples():
        p_pub = r.n_errors / r.n_trials
        n_compared = compared_n(r.experiment, r.n_trials, r.effective_n, roles.get("three_runs"))
        row = {"experiment": r.experiment, "algorithm": r.algorithm, "x": r.x, "published_p": p_pub,
               "published_n": int(r.n_trials), "effective_n": float(r.effective_n), "compared_n": n_compared,
               "reproduced_p": np.nan,
               "reproduced_n": np.nan, "difference": np.nan, "z": np.nan}
        match = rep.get((r.experiment, r.algorithm, _key(r.x)))
        if match is None:
            row["verdict"] = NOT_RUN
        else:
            p_rep, n_rep = match.n_errors / match.n_trials, int(match.n_trials)
            row.update(reproduced_p=p_rep, reproduced_n=n_rep, difference=p_rep - p_pub)
            if r.experiment == roles.get("r6a") and not yahoo_is_r6a:
                row["verdict"] = NOT_COMPARABLE
            else:
                z = z_at_effective_size(p_pub, n_compared, p_rep, n_rep)
                row.update(z=z, verdict=CONSISTENT if abs(z) <= critical else DIFFERS)
        rows.append(row)
    return _with_series(pd.DataFrame(rows, columns=CELL_COLUMNS), SERIES_ALPHA)


def summary(comparison: pd.DataFrame, roles: dict, series_alpha: float = SERIES_ALPHA) -> dict:
    synthetic = comparison[comparison["experiment"] != roles.get("r6a")]
    compared = synthetic[synthetic["verdict"].isin([CONSISTENT, DIFFERS])]
    yahoo = comparison[comparison["experiment"] == roles.get("r6a")]
    series = series_tests(comparison, series_alpha)
    return {"synthetic_cells": int(len(synthetic)), "compared": int(len(compared)),
            "series": int(len(series)), "series_alpha": series_alpha,
            "series_bound": float(series["bound"].iloc[0]) if len(series) else None,
            "series_beyond": series[series["verdict"] == BEYOND][["experiment", "algorithm", "cells",
                                                                  "stouffer_z"]].to_dict("records"),
            "consistent": int((compared["verdict"] == CONSISTENT).sum()),
            "differs": compared[compared["verdict"] == DIFFERS][["experiment", "algorithm", "x", "published_p",
                                                                  "reproduced_p", "z"]].to_dict("records"),
            "yahoo": "compared" if (yahoo["verdict"].isin([CONSISTENT, DIFFERS])).any()
            else ("not comparable: this run used the synthetic stand-in for R6A"
                  if (yahoo["verdict"] == NOT_COMPARABLE).any() else "not run")}


def summary_line(s: dict) -> str:
    line = f"{s['consistent']} of {s['synthetic_cells']} synthetic cells consistent"
    if s["compared"] != s["synthetic_cells"]:
        line += f" ({s['synthetic_cells'] - s['compared']} not run)"
    line += (f" (99%, pooled z at the published effective size; Fig. 2a's three-run arrays at most at "
             f"{THREE_RUN_N})")
    if s["series"]:
        line += (f"; {len(s['series_beyond'])} of {s['series']} (experiment, algorithm) series beyond the "
                 f"Bonferroni bound |Stouffer z| > {s['series_bound']:.2f} (two-sided, alpha = {s['series_alpha']:g} "
                 f"over {s['series']} series)")
    return line + f"; Yahoo! R6A rows: {s['yahoo']}"


def write_comparison(comparison: pd.DataFrame, roles: dict, csv_path, md_path, tex_path) -> dict:
    s = summary(comparison, roles)
    series = series_tests(comparison, s["series_alpha"])
    cells = comparison[CELL_COLUMNS]
    write_text_atomic(csv_path, table_to_csv(comparison))
    write_text_atomic(md_path, f"# Published beside reproduced\n\n{summary_line(s)}.\n\n"
                      "## Per series (Stouffer z over the series' cells)\n\n" + table_to_markdown(series)
                      + "\n## Per cell\n\n" + table_to_markdown(cells))
    write_text_atomic(tex_path, f"% {summary_line(s)}\n% Per series (Stouffer z over the series' cells)\n"
                      + table_to_latex(series) + "% Per cell\n" + table_to_latex(cells))
    return s


def published_for(experiment: str, published: pd.DataFrame | None = None) -> pd.DataFrame:
    """The published cells of one experiment, as error_prob by algorithm and x (for figures)."""
    published = read_published() if published is None else published
    rows = published[published["experiment"] == experiment].copy()
    rows["error_prob"] = rows["n_errors"] / rows["n_trials"]
    return rows


# ------------------------------------------------------------------ the published data as a claims witness

class PublishedEvidence:
    """The paper's own published cells as evidence for the claims engine: each (experiment, algorithm,
    x) cell becomes `compared_n` runs (its effective size) with as many errors as its published error
    probability gives at that size. The cells are independent of each other (no pairing across
    algorithms or settings: the published arrays are not the reproduction's common random numbers), so
    the engine analyses them unpaired. Settings are the run's own, matched by their swept value.
    Yahoo! cells are the authors' real-R6A runs: on them a claim about R6A is judged for real."""

    def __init__(self, evidence, roles: dict, table: pd.DataFrame | None = None):
        self.evidence, self.extras, self.roles = evidence, {}, roles
        self.table = read_published() if table is None else table
        # (exp, setting, algorithm) -> (n, errors), or the Missing it raised: the engine asks for the
        # same cell over and over (P1-RAGE's preview claims ~1,100 times, ~1.5 ms of pandas each)
        self._cells = {}

    def __getattr__(self, attr):     # experiment, x, setting_label, trials: the run's own
        return getattr(self.evidence, attr)

    def _rows(self, exp: str) -> pd.DataFrame:
        from linbandits.claims.engine import Missing

        rows = self.table[self.table["experiment"] == exp]
        if rows.empty:
            raise Missing(f"no published cells of {exp}")
        return rows

    def _x(self, exp: str, setting: str):
        try:
            value = self.evidence.x(exp, setting)
        except Exception:
            return None
        return None if value is None else float(value)

    def settings(self, exp: str) -> list[str]:
        rows = self._rows(exp)
        published = set(rows["x"].dropna().tolist())
        own = self.evidence.settings(exp)
        if not published:
            return own[:1]
        return [s for s in own if self._x(exp, s) in published]

    def _cell(self, exp: str, setting: str, algorithm: str):
        from linbandits.claims.engine import Missing

        key = (exp, setting, algorithm)
        if key not in self._cells:
            try:
                self._cells[key] = self._find_cell(exp, setting, algorithm)
            except Missing as missing:
                self._cells[key] = missing
        found = self._cells[key]
        if isinstance(found, Missing):
            raise Missing(*found.args)     # a new one each time: a raised exception keeps its traceback
        return found

    def _find_cell(self, exp: str, setting: str, algorithm: str):
        from linbandits.claims.engine import Missing

        rows = self._rows(exp)
        rows = rows[rows["algorithm"] == algorithm]
        x = self._x(exp, setting) if rows["x"].notna().any() else None
        if x is not None:
            rows = rows[rows["x"] == x]
        if rows.empty:
            raise Missing(f"no published cell of {algorithm} in {exp}" + (f" at x = {x:g}" if x is not None else ""))
        row = rows.iloc[0]
        n = max(1, int(round(compared_n(exp, int(row["n_trials"]), float(row["effective_n"]),
                                        self.roles.get("three_runs")))))
        errors = int(round(float(row["n_errors"]) / float(row["n_trials"]) * n))
        return n, errors

    def has_series(self, exp, setting, algorithm) -> bool:
        from linbandits.claims.engine import Missing

        try:
            self._cell(exp, setting, algorithm)
            return True
        except Missing:
            return False

    def column(self, exp: str, setting: str, algorithm: str, column: str):
        from linbandits.claims.engine import Missing

        if column != "correct":
            raise Missing(f"the published cells record error probabilities only, not {column!r}")
        n, errors = self._cell(exp, setting, algorithm)
        return np.r_[np.zeros(errors, dtype=np.int64), np.ones(n - errors, dtype=np.int64)]

    def summary(self, exp: str, setting: str) -> dict:
        # the authors' Yahoo! runs read the real R6A log: not a stand-in
        return {**self.evidence.summary(exp, setting), "synthetic": False, "source": "authors' published runs"}

    def paired_runs(self, exp: str) -> bool:
        return False

    def shares_seeds(self, exp: str) -> bool:
        return False
