"""The claims of Sec. 7 (spec section 4, C1-C5), checked on the study's tables.

CLI (called by the pipeline):
    linbandits swucb-claims --claims claims.yaml --tables-dir results/swucb/tables \
        --out-md results/swucb/claims.md --out-json results/swucb/claims.json
Tolerances (each a DEFAULT of the spec):
  C1  geometric mean over T of mean Reg(SW-UCB)/mean Reg(EXP3.S) in [0.1, 0.3] ("about 20%");
  C2  every Fig. 1 slope <= 2/3 + 0.1 (O~(T^(2/3)) "optimal");
  C3  |slope - theory| <= 0.15 for SW-UCB (theory 1) and BOB (theory 5/6) in Fig. 2;
  C4  mean Reg(BOB)/mean Reg(SW-UCB) < 0.5 at every T ("much smaller");
  C5  sum_t ||theta_{t+1} - theta_t|| <= sqrt(2) B_T at every T of both figures.
"""
from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from linbandits.claims import FAILS_TO_HOLD, HOLDS, NOT_RUN, load_claims, result, write_claims
from linbandits.studies.swucb.results import read_table

C1_RANGE = (0.1, 0.3)
C2_SLACK = 0.1
C3_TOLERANCE = 0.15
C4_LIMIT = 0.5


def _verdict(ok: bool) -> str:
    return HOLDS if ok else FAILS_TO_HOLD


def _slope_row(slopes, experiment, series):
    rows = slopes[(slopes["figure"] == experiment) & (slopes["series"] == series)]
    return None if rows.empty else rows.iloc[0]


def _ratios(ratios, experiment, num, den):
    rows = ratios[(ratios["figure"] == experiment) & (ratios["numerator"] == num) & (ratios["denominator"] == den)]
    return rows.sort_values("T")


def _slope_text(row) -> str:
    return (f"{row['series']}: slope {row['slope']:.3f} [95% CI {row['ci95_low']:.3f}, {row['ci95_high']:.3f}], "
            f"theory {row['theory_slope']:.3f}")


def check_c1(claim, tables):
    r = _ratios(tables["ratios"], claim["experiment"], "SW-UCB", "EXP3.S")
    test = (f"geometric mean over T of mean Reg(SW-UCB)/mean Reg(EXP3.S) in [{C1_RANGE[0]}, {C1_RANGE[1]}]")
    if r.empty:
        return result(claim, test, ["no SW-UCB and EXP3.S series in " + claim["experiment"]], NOT_RUN)
    gm = float(np.exp(np.log(r["ratio"]).mean()))
    numbers = [f"geometric mean {gm:.3f} over {len(r)} T", "per T: " + ", ".join(f"{x:.3f}" for x in r["ratio"])]
    return result(claim, test, numbers, _verdict(C1_RANGE[0] <= gm <= C1_RANGE[1]), measured=gm)


def check_c2(claim, tables):
    test = f"log-log slope of each Fig. 1 series <= 2/3 + {C2_SLACK}"
    rows = [_slope_row(tables["slopes"], claim["experiment"], s) for s in ("SW-UCB", "EXP3.S")]
    if any(r is None for r in rows):
        return result(claim, test, ["series missing in " + claim["experiment"]], NOT_RUN)
    ok = all(r["slope"] <= 2 / 3 + C2_SLACK for r in rows)
    return result(claim, test, [_slope_text(r) for r in rows], _verdict(ok),
                  measured={r["series"]: float(r["slope"]) for r in rows})


def check_c3(claim, tables):
    test = f"|slope - theory| <= {C3_TOLERANCE} for SW-UCB (d^(2/3)(B_T+1)T^(2/3): 1) and BOB ((B_T+1)^(1/4)T^(3/4): 5/6)"
    rows = [_slope_row(tables["slopes"], claim["experiment"], s) for s in ("SW-UCB", "BOB")]
    if any(r is None for r in rows):
        return result(claim, test, ["series missing in " + claim["experiment"]], NOT_RUN)
    ok = all(abs(r["slope"] - r["theory_slope"]) <= C3_TOLERANCE for r in rows)
    return result(claim, test, [_slope_text(r) for r in rows], _verdict(ok),
                  measured={r["series"]: float(r["slope"]) for r in rows})


def check_c4(claim, tables):
    r = _ratios(tables["ratios"], claim["experiment"], "BOB", "SW-UCB")
    test = f"mean Reg(BOB)/mean Reg(SW-UCB) < {C4_LIMIT} at every T"
    if r.empty:
        return result(claim, test, ["no BOB and SW-UCB series in " + claim["experiment"]], NOT_RUN)
    worst = float(r["ratio"].max())
    numbers = [f"largest ratio {worst:.3f} (T = {int(r.loc[r['ratio'].idxmax(), 'T'])})",
               "per T: " + ", ".join(f"{x:.3f}" for x in r["ratio"])]
    return result(claim, test, numbers, _verdict(worst < C4_LIMIT), measured=worst)


def check_c5(claim, tables):
    experiments = claim["experiment"] if isinstance(claim["experiment"], list) else [claim["experiment"]]
    v = tables["variation"]
    v = v[v["figure"].isin(experiments)]
    test = "sum_t ||theta_{t+1} - theta_t||_2 <= sqrt(2) B_T at every T (computed from the instances)"
    if v.empty:
        return result(claim, test, ["no instances of " + ", ".join(experiments)], NOT_RUN)
    numbers = []
    for experiment, rows in v.groupby("figure", sort=False):
        rows = rows.sort_values("T")
        numbers.append(f"{experiment}: variation / B_T from {rows['tv_over_B_T'].iloc[0]:.4f} to "
                       f"{rows['tv_over_B_T'].iloc[-1]:.4f} (3 sqrt(2) = {3 * math.sqrt(2):.4f}; "
                       f"stated bound sqrt(2) = {math.sqrt(2):.4f}); variation {rows['total_variation'].iloc[0]:.4g} "
                       f"at T = {int(rows['T'].iloc[0])}")
    ok = bool((v["total_variation"] <= v["paper_bound"]).all())
    return result(claim, test, numbers, _verdict(ok), measured=float(v["tv_over_B_T"].max()))


CHECKS = {"C1": check_c1, "C2": check_c2, "C3": check_c3, "C4": check_c4, "C5": check_c5}


def judge(claims, tables) -> list[dict]:
    return [CHECKS[c["id"].split("_")[0]](c, tables) for c in claims]


def read_tables(tables_dir) -> dict[str, pd.DataFrame]:
    return {name: read_table(f"{tables_dir}/{name}.csv") for name in ("slopes", "ratios", "variation")}


def main_claims(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits swucb-claims")
    p.add_argument("--claims", required=True)
    p.add_argument("--tables-dir", required=True)
    p.add_argument("--out-md", required=True)
    p.add_argument("--out-json", required=True)
    p.add_argument("--preview", action="store_true")
    args = p.parse_args(argv)
    results = judge(load_claims(args.claims), read_tables(args.tables_dir))
    title = "SW-UCB / BOB (Cheung et al. 2019): claims of Sec. 7, checked"
    if args.preview:
        title += " (PREVIEW: reduced run counts)"
    write_claims(results, args.out_md, args.out_json, study="swucb", title=title)
    return 0
