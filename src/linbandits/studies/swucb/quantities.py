"""The study's own claim quantities (linbandits.claims.quantities has the shared ones).

Each is a function (evidence, spec, alpha, claim_id) -> (Estimate, label), as the engine asks.

    variation_over_budget  the instance's total variation over its budget B_T, from the variation
                           table (evidence.extras["variation"]): exact
"""
from __future__ import annotations

from linbandits.claims import estimates as est
from linbandits.claims.engine import Missing, fmt


def variation_over_budget(evidence, spec, alpha, claim_id):
    """sum_t ||theta_{t+1} - theta_t||_2 / B_T of one instance, from the variation table: exact."""
    import pandas as pd

    exp, setting = spec["experiment"], spec["setting"]
    table = pd.read_csv(evidence.extras["variation"])
    T = int(evidence.x(exp, setting))
    row = table[(table["figure"] == exp) & (table["T"] == T)]
    if row.empty:
        raise Missing(f"the variation table has no row for {exp} at T = {T}")
    r = row.iloc[0]
    return (est.exact(float(r["tv_over_B_T"]), "exact (computed from the instance)"),
            f"total variation {fmt(float(r['total_variation']))} / B_T {fmt(float(r['B_T']))}, {exp}, T = {T}")


QUANTITIES = {"variation_over_budget": variation_over_budget}
