"""A user's algorithms in a study's claims report: each one's section (its paired comparisons with the
paper's algorithms, linbandits.user.comparison, and its summaries over each sweep, linbandits.user.summary),
the leaderboard, and results/<study>/comparison.json, which the scorecard reads."""
from __future__ import annotations

import json

from linbandits import catalogue
from linbandits.atomic import write_text_atomic
from linbandits.user import comparison, summary


def sections(ctx, users: list[str]) -> list[list[str]]:
    """The claims report's section of each user algorithm, and results/<study>/comparison.json."""
    alpha = 1 - ctx.level
    out, data, sums, counts = [], {}, {}, {}
    for user in users:
        raw = comparison.raw_rows(ctx, user, alpha)
        rows = comparison.distinct(raw)
        comparison.holm(rows, alpha)
        sums[user] = summary.summaries(ctx, user, ctx.level)
        out.append(comparison.section(ctx, user, rows, ctx.level, raw_count=len(raw))
                   + summary.section(user, sums[user], ctx.level))
        data[user] = comparison.records(rows)
        counts[user] = {"cells": len(raw), "distinct": len(rows)}
    board = comparison.leaderboard(ctx, users, alpha) if len(users) > 1 else None
    write_text_atomic(ctx.results("comparison.json"), json.dumps(
        {"study": ctx.study, "level": ctx.level,
         "metric": comparison.metric_of(catalogue.studies()[ctx.study].columns),
         "users": users, "comparisons": data, "summaries": sums, "counts": counts,
         "paper_algorithms": comparison.paper_algorithms_in(ctx), "leaderboard": board}, indent=1) + "\n")
    return out
