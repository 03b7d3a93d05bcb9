"""Exp. 3 (Fig. 3, App. A): arm sets from the Yahoo! R6A day of May 1 (spec section 3).

z = outer(u, a) flattened user-major (36-d, no PCA), rows with z[0] > 0 (the
shared reader's output, linbandits.r6a); theta* = ridge (lambda 0.01) on +-1
click targets; per run (seed = run index) one "good" row with x^T theta* in
(-0.88, 1.0) as arm 0 and K-1 distinct "bad" rows with x^T theta* in
(-1.0, -0.93), uniformly; so every gap is >= 0.05.
"""
from __future__ import annotations

import argparse

import numpy as np

from linbandits.errors import UserError
from linbandits.problems import save_instance
from linbandits.r6a import reader as r6a
from linbandits.studies.lingape.instances import ArmSetsInstance

RIDGE_LAMBDA = 0.01
GOOD_BAND = (-0.88, 1.0)
BAD_BAND = (-1.0, -0.93)
NOISE_SCALE = 2.0            # LinGapE's R and XY-static's sigma (the paper's "2-sub-Gaussian")
CHUNK = 1 << 18


def ridge_theta(z, clicks, lam: float = RIDGE_LAMBDA) -> np.ndarray:
    """(Z^T Z + lam I)^-1 Z^T y with y = +1 clicked, -1 not, accumulated in float64 chunks."""
    gram = np.zeros((36, 36))
    zty = np.zeros(36)
    for s in range(0, len(z), CHUNK):
        zc = np.asarray(z[s:s + CHUNK], np.float64)
        yc = 2.0 * np.asarray(clicks[s:s + CHUNK], np.float64) - 1.0
        gram += zc.T @ zc
        zty += zc.T @ yc
    return np.linalg.solve(gram + lam * np.eye(36), zty)


def row_values(z, theta) -> np.ndarray:
    return np.concatenate([np.asarray(z[s:s + CHUNK], np.float64) @ theta for s in range(0, len(z), CHUNK)])


def draw_arm_sets(values, K: int, runs: int):
    """Row indices of every run's arms: good row first, then K-1 distinct bad rows."""
    good = np.flatnonzero((values > GOOD_BAND[0]) & (values < GOOD_BAND[1]))
    bad = np.flatnonzero((values > BAD_BAND[0]) & (values < BAD_BAND[1]))
    if len(good) < 1 or len(bad) < K - 1:
        raise UserError(f"the day has {len(good)} good rows (x^T theta* in {GOOD_BAND}) and {len(bad)} bad rows "
                        f"(in {BAD_BAND}); a {K}-arm set needs 1 and {K - 1} (more lines per day would help)")
    out = []
    for run in range(runs):
        rng = np.random.default_rng(run)
        out.append(np.concatenate([[rng.choice(good)], rng.choice(bad, K - 1, replace=False)]))
    return np.array(out), len(good), len(bad)


def build(day_file, K: int, runs: int, out, summary_path) -> dict:
    z, clicks, meta = r6a.load_day_npz(day_file)
    if meta.get("day") != "20090501":
        raise UserError(f"Exp. 3 uses the day of May 1 (20090501); {day_file} holds day {meta.get('day')}")
    theta = ridge_theta(z, clicks)
    values = row_values(z, theta)
    rows, n_good, n_bad = draw_arm_sets(values, K, runs)
    sets = np.asarray(z[rows.ravel()], np.float64).reshape(runs, K, 36)
    synthetic = bool(meta.get("synthetic"))
    source = r6a.SYNTHETIC_SOURCE if synthetic else r6a.REAL_SOURCE
    info = {"source": source, "synthetic": synthetic, "day": meta.get("day"), "ridge_lambda": RIDGE_LAMBDA,
            "good_band": GOOD_BAND, "bad_band": BAD_BAND, "K": K}
    inst = ArmSetsInstance(name=f"yahoo_r6a{'_synthetic' if synthetic else ''}_K{K}", arm_sets=sets, theta=theta,
                           noise_scale=NOISE_SCALE, meta=info)
    save_instance(out, inst)
    summary = {**inst.summary(), "rows": int(len(values)), "row_reward_min": float(values.min()),
               "row_reward_max": float(values.max()),
               "rows_outside_unit": int(np.sum((values < -1) | (values > 1))), "good_rows": int(n_good),
               "bad_rows": int(n_bad), "arm_rows": rows.tolist(), "click_rate": float(np.mean(clicks)),
               "synthetic": synthetic, "source": source}
    r6a.atomic_write_json(summary_path, summary)
    return summary


def main_instance(argv=None) -> int:
    """`linbandits lingape-yahoo-instance`: the Exp. 3 arm sets of one K."""
    p = argparse.ArgumentParser(prog="linbandits lingape-yahoo-instance")
    p.add_argument("--day", required=True, help="yahoo-parse output of 20090501")
    p.add_argument("--K", required=True, type=int)
    p.add_argument("--runs", required=True, type=int)
    p.add_argument("--out", required=True)
    p.add_argument("--summary", required=True)
    args = p.parse_args(argv)
    if args.K < 2 or args.runs < 1:
        raise UserError(f"--K must be >= 2 and --runs >= 1, got K = {args.K}, runs = {args.runs}")
    s = build(args.day, args.K, args.runs, args.out, args.summary)
    print(f"Exp. 3 instance ({s['source']}): K = {args.K}, {args.runs} arm sets, min gaps {s['min_gap']}")
    return 0


# The parsed R6A day Exp. 3 draws its arm sets from (May 1), as the shared R6A rules write it.
EXP3_DAY = "data/processed/r6a/day20090501.npz"


def instance_inputs(config: dict) -> dict:
    """The file an Exp. 3 instance job reads: the parsed R6A day of May 1."""
    return {"day": EXP3_DAY}


def instance_command(config: dict, exp) -> str:
    """The instance job of an Exp. 3 experiment (after `linbandits`): its K values in one process."""
    from linbandits import jobs

    return jobs.setting_instance_command(config, exp, lambda s: (
        f"lingape-yahoo-instance --day {EXP3_DAY} --K {exp.value_of(s)} --runs {exp.trials}"))
