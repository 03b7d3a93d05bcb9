"""From parsed R6A days to the Fig. 2b instance: PCA, per-day ridge, arm set, theta schedule.

Spec section E, steps 3-6. Everything a day contributes to PCA and ridge is a
few sums over its rows (count, mean, centred scatter, Z^T y), accumulated in
float64 chunk by chunk, so a 4.5M-row day is never copied whole.

PCA: the right singular vectors of the centred day matrix are the eigenvectors
of its centred scatter matrix, in the same order. Singular vectors are only
defined up to sign, and with per-day bases the signs change theta_bar. The
published runs kept the signs numpy's SVD of the centred day matrix returns
(LAPACK's choice), so by default (`pca_signs="numpy"`) each day's axes are
taken from exactly that SVD; `pca_signs="fixed"` flips each axis to make its
largest-magnitude entry positive instead (reproducible across LAPACK builds,
not the published protocol). The instance metadata records which was used.
With one shared basis the signs cannot change theta_bar or any reward; it is
always sign-fixed.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from linbandits.errors import UserError, check_seed
from linbandits.problems import save_instance
from linbandits.problems.linear import LinearInstance
from linbandits.r6a import reader as r6a

PCA_DIM = 24
RIDGE_LAMBDA = 0.01
N_ARMS = 24
MEDIUM_BAND = (1.0, 0.05)   # medium rows: reward in (max - 1.0, max - 0.05)
PCA_VARIANTS = ("per_day", "shared")
MAX_DRAWS = 1000
STATS_CHUNK = 1 << 18
PCA_SIGNS = {"numpy": "as numpy's SVD of the centred day matrix returns them (published)",
             "fixed": "each axis flipped so that its largest-magnitude entry is positive"}


def outer_features(U: np.ndarray, A: np.ndarray) -> np.ndarray:
    """z = outer(u, a) flattened user-major: z[6 i + j] = u_i a_j (so z[0] = u_1 a_1)."""
    return (U[:, :, None] * A[:, None, :]).reshape(len(U), -1)


@dataclasses.dataclass
class DayStats:
    """Sufficient statistics of one day (or several pooled) for PCA and ridge."""

    n: int
    mean: np.ndarray      # 36
    scatter: np.ndarray   # 36 x 36, sum of (z - mean)(z - mean)^T
    zty: np.ndarray       # 36, sum of z * y
    clicks: int

    @property
    def gram(self) -> np.ndarray:
        """Z^T Z of the uncentred rows."""
        return self.scatter + self.n * np.outer(self.mean, self.mean)


def day_stats(z: np.ndarray, y: np.ndarray, chunk: int = STATS_CHUNK) -> DayStats:
    parts = []
    for start in range(0, len(z), chunk):
        zc = np.asarray(z[start:start + chunk], dtype=np.float64)
        yc = np.asarray(y[start:start + chunk], dtype=np.float64)
        m = zc.mean(axis=0)
        d = zc - m
        parts.append(DayStats(len(zc), m, d.T @ d, zc.T @ yc, int(yc.sum())))
    if not parts:
        raise UserError("a day has no rows left after parsing; PCA and ridge need data")
    return merge_stats(parts)


def merge_stats(parts) -> DayStats:
    """Pool statistics exactly (Chan et al.'s update keeps the centred scatter accurate)."""
    total = parts[0]
    for p in parts[1:]:
        n = total.n + p.n
        delta = p.mean - total.mean
        total = DayStats(n, total.mean + delta * (p.n / n),
                         total.scatter + p.scatter + np.outer(delta, delta) * (total.n * p.n / n),
                         total.zty + p.zty, total.clicks + p.clicks)
    return total


def pca_basis(stats: DayStats, k: int = PCA_DIM) -> tuple[np.ndarray, float]:
    """(V, explained): V is k x 36 (rows = top principal axes), explained the variance share kept."""
    if stats.n <= k:
        raise UserError(f"PCA to {k} dimensions needs more than {k} rows, got {stats.n}")
    eigval, eigvec = np.linalg.eigh(stats.scatter)
    order = np.argsort(eigval)[::-1][:k]
    V = eigvec[:, order].T
    V *= np.where(V[np.arange(k), np.abs(V).argmax(axis=1)] < 0, -1.0, 1.0)[:, None]
    total = float(np.clip(eigval, 0, None).sum())
    explained = float(np.clip(eigval[order], 0, None).sum() / total) if total > 0 else 1.0
    return V, explained


def svd_basis(z, k: int = PCA_DIM) -> tuple[np.ndarray, float]:
    """(V, explained) from numpy's SVD of the centred day matrix, signs as it returns them."""
    Z = np.asarray(z, np.float64)
    if len(Z) <= k:
        raise UserError(f"PCA to {k} dimensions needs more than {k} rows, got {len(Z)}")
    _, sing, vt = np.linalg.svd(Z - Z.mean(axis=0), full_matrices=False)
    power = sing ** 2
    return vt[:k].copy(), float(power[:k].sum() / power.sum()) if power.sum() > 0 else 1.0


def ridge_theta(V: np.ndarray, stats: DayStats, lam: float = RIDGE_LAMBDA) -> np.ndarray:
    """theta = (Z^T Z + lam I)^-1 Z^T y with Z = z V^T, the projection of the uncentred z."""
    A = V @ stats.gram @ V.T + lam * np.eye(len(V))
    return np.linalg.solve(A, V @ stats.zty)


def fit_day_thetas(stats: list[DayStats], pca: str, day_bases=None) -> tuple[list[np.ndarray], np.ndarray, list[float]]:
    """(bases, thetas): one basis per day ('per_day', as published) or one for all ('shared').
    day_bases: per-day (V, explained) already fitted (the published SVD signs)."""
    if pca == "per_day" and day_bases is not None:
        fitted = list(day_bases)
    elif pca == "per_day":
        fitted = [pca_basis(s) for s in stats]
    elif pca == "shared":
        fitted = [pca_basis(merge_stats(stats))] * len(stats)
    else:
        raise UserError(f"unknown PCA variant {pca!r}; valid variants are: {', '.join(PCA_VARIANTS)}")
    bases = [V for V, _ in fitted]
    thetas = np.array([ridge_theta(V, s) for V, s in zip(bases, stats)])
    return bases, thetas, [e for _, e in fitted]


def row_rewards(z: np.ndarray, V: np.ndarray, theta: np.ndarray, chunk: int = STATS_CHUNK) -> np.ndarray:
    """(z V^T) theta for every row, without forming z V^T."""
    w = V.T @ theta
    return np.concatenate([np.asarray(z[s:s + chunk], np.float64) @ w for s in range(0, len(z), chunk)])


def select_arm_rows(rewards: np.ndarray, project, rng: np.random.Generator, n_arms: int = N_ARMS):
    """(row indices, note): the best row then n_arms - 1 medium rows, redrawn until full rank.

    project(indices) returns those rows' PCA features (the arms).
    """
    best = int(np.argmax(rewards))
    top = rewards[best]
    medium = np.flatnonzero((rewards > top - MEDIUM_BAND[0]) & (rewards < top - MEDIUM_BAND[1]))
    if len(medium) < n_arms - 1:
        raise UserError(f"only {len(medium)} day-1 rows have a reward in (max - {MEDIUM_BAND[0]}, "
                        f"max - {MEDIUM_BAND[1]}) under theta_bar; {n_arms - 1} are needed for the arm set "
                        "(more lines per day would help)")
    # How isolated the best row is: the rows (itself included) within the band's minimum gap of it.
    near_best = int(np.count_nonzero(rewards >= top - MEDIUM_BAND[1]))
    for draw in range(1, MAX_DRAWS + 1):
        rows = np.concatenate([[best], rng.choice(medium, n_arms - 1, replace=False)])
        if np.linalg.matrix_rank(project(rows)) == n_arms:
            return rows, {"draws_until_full_rank": draw, "medium_rows": int(len(medium)),
                          "rows_within_min_gap_of_best": near_best}
    raise UserError(f"no draw of {n_arms - 1} medium rows in {MAX_DRAWS} gave a full-rank {n_arms} x {n_arms} "
                    "arm matrix; the day-1 features span too few directions")


def arm_set_diagnostics(X: np.ndarray, day_thetas: np.ndarray, T: int) -> dict:
    """How hard and how non-stationary an arm set is, before any run (docs/p1rage.md, "The shared-PCA
    switch"). Arm 0 is the arm selected as best (under the mean of the day thetas).

    - best_arm_by_day: each day's best arm (one arm throughout: the best arm never changes);
    - selected_arm_lead_by_day: arm 0's reward minus the best other arm's, each day (negative on a
      day where another arm is better);
    - min_gap_in_uniform_sd: the smallest gap under the mean theta over the standard deviation
      sqrt(2 K / T) of the difference of two arms' least-squares estimates when each of the K
      linearly independent arms is pulled T / K times with unit noise. At 5 or more, uniform
      allocation errs with probability below 1e-5 (union bound over the arms): an instance on
      which the algorithms do at least that well gives every one of them 0 errors and cannot
      rank them.
    """
    by_day = X @ day_thetas.T                          # K x days
    lead = by_day[0] - np.delete(by_day, 0, axis=0).max(axis=0)
    rewards = X @ day_thetas.mean(axis=0)
    min_gap = float(rewards[0] - np.delete(rewards, 0).max())
    best_by_day = by_day.argmax(axis=0)
    return {"best_arm_by_day": [int(a) for a in best_by_day],
            "days_selected_arm_is_best": int(np.count_nonzero(best_by_day == 0)),
            "selected_arm_lead_by_day": [float(v) for v in lead],
            "min_gap_in_uniform_sd": min_gap / float(np.sqrt(2 * len(X) / T))}


def cycle_thetas(day_thetas: np.ndarray, L: int, T: int) -> np.ndarray:
    """theta_1 for L rounds, ..., theta_7 for L rounds, the week repeated and cut at T."""
    if L < 1 or T < 1:
        raise UserError(f"L and T must be positive integers, got L = {L}, T = {T}")
    week = np.repeat(day_thetas, L, axis=0)
    reps = -(-T // len(week))
    return np.tile(week, (reps, 1))[:T]


def load_days(paths) -> tuple[list[str], list[dict], bool]:
    """Order the parsed days by date and read their provenance; mixing real and synthetic is an error."""
    metas = []
    for p in paths:
        meta = r6a.load_day_npz(p, meta_only=True)
        metas.append((meta.get("day", ""), str(p), meta))
    days = [d for d, _, _ in metas]
    if len(set(days)) != len(days):
        raise UserError(f"the day files repeat a day ({', '.join(days)}); pass each day once")
    metas.sort()
    synthetic = {bool(m.get("synthetic")) for _, _, m in metas}
    if len(synthetic) > 1:
        raise UserError("the day files mix the real R6A data and the synthetic stand-in; "
                        "parse all seven days from one corpus")
    return [p for _, p, _ in metas], [m for _, _, m in metas], synthetic.pop()


# The last fit, by (day files, PCA variant, sign rule, seed): a batch job builds every L of an experiment in one
# process, and all but the schedule is the same for every L (the day files are the job's inputs: fixed).
_FITS: dict = {}


def fit_days_and_arms(day_files, pca: str, pca_signs: str, seed: int):
    """Steps 3-5 of spec section E (everything but the L-day schedule)."""
    paths, metas, synthetic = load_days(day_files)
    stats, svd_bases = [], []
    for p in paths:   # one day in memory at a time
        z, clicks, _ = r6a.load_day_npz(p)
        stats.append(day_stats(z, clicks))
        if pca == "per_day" and pca_signs == "numpy":
            svd_bases.append(svd_basis(z))
        del z, clicks
    bases, thetas, explained = fit_day_thetas(stats, pca, svd_bases or None)
    z1, _, _ = r6a.load_day_npz(paths[0])
    rewards = row_rewards(z1, bases[0], thetas.mean(axis=0))
    rng = np.random.default_rng(seed)
    rows, note = select_arm_rows(rewards, lambda idx: np.asarray(z1[idx], np.float64) @ bases[0].T, rng)
    X = np.asarray(z1[rows], np.float64) @ bases[0].T
    return paths, metas, synthetic, stats, thetas, explained, rows, note, X


def build_yahoo_instance(day_files, pca: str, L: int, T: int, seed: int, out, summary_path=None,
                         pca_signs: str = "numpy") -> dict:
    """Steps 3-6 of spec section E; writes the instance .npz (and summary JSON); returns the summary."""
    if pca not in PCA_VARIANTS:
        raise UserError(f"unknown PCA variant {pca!r}; valid variants are: {', '.join(PCA_VARIANTS)}")
    if pca_signs not in PCA_SIGNS:
        raise UserError(f"unknown PCA sign rule {pca_signs!r}; valid rules are: {', '.join(PCA_SIGNS)}")
    if pca == "shared":
        pca_signs = "fixed"   # signs of a shared basis change nothing
    key = (tuple(str(p) for p in day_files), pca, pca_signs, seed)
    if key not in _FITS:
        _FITS.clear()
        _FITS[key] = fit_days_and_arms(day_files, pca, pca_signs, seed)
    paths, metas, synthetic, stats, thetas, explained, rows, note, X = _FITS[key]
    theta_bar = thetas.mean(axis=0)
    source = r6a.SYNTHETIC_SOURCE if synthetic else r6a.REAL_SOURCE
    schedule = cycle_thetas(thetas, L, T)
    meta = {"name": "yahoo_r6a_synthetic" if synthetic else "yahoo_r6a", "source": source,
            "synthetic": synthetic, "pca": pca, "pca_dim": PCA_DIM, "pca_signs": pca_signs,
            "pca_sign_rule": PCA_SIGNS[pca_signs],
            "ridge_lambda": RIDGE_LAMBDA, "seed": seed, "L": L, "T": T,
            "days": [m.get("day") for m in metas], "day_1_rows": [int(r) for r in rows]}
    inst = LinearInstance(name=meta["name"], X=X.copy(), thetas=schedule, noise_sd=1.0, meta=meta)
    summary = {
        **meta,
        "K": N_ARMS, "d": PCA_DIM, "noise_sd": 1.0,
        "best_arm": inst.best_arm, "min_gap": inst.min_gap, "gaps": [float(g) for g in inst.gaps],
        # Arm 0 is the best day-1 row under the mean of the seven thetas; when T is not a
        # multiple of 7L the schedule's mean differs and the best arm may move.
        "selected_best_arm": 0, "best_arm_is_selected": inst.best_arm == 0,
        "theta_by_day": thetas.tolist(), "theta_bar_of_days": theta_bar.tolist(),
        "arm_rewards_under_theta_bar_of_days": (X @ theta_bar).tolist(),
        "rows_per_day": [s.n for s in stats],
        "click_rate_per_day": [s.clicks / s.n for s in stats],
        "pca_explained_variance": explained,
        **note,
        **arm_set_diagnostics(X, thetas, T),
    }
    save_instance(out, inst)
    if summary_path is not None:
        r6a.atomic_write_json(summary_path, summary)
    return summary


def main_instance(argv=None) -> int:
    """`linbandits p1rage-yahoo-instance`: PCA, per-day ridge and arm set -> instance .npz + summary."""
    import argparse
    from pathlib import Path

    p = argparse.ArgumentParser(prog="linbandits p1rage-yahoo-instance",
                                description="PCA, per-day ridge and arm set -> the Fig. 2b instance")
    p.add_argument("--days", required=True, nargs="+", type=Path, help="the seven yahoo-parse outputs")
    p.add_argument("--pca", required=True, choices=PCA_VARIANTS)
    p.add_argument("--pca-signs", default="numpy", choices=tuple(PCA_SIGNS),
                   help="numpy: the signs numpy's SVD returns (published); fixed: largest entry positive")
    p.add_argument("--L", required=True, type=int, help="rounds per day")
    p.add_argument("--T", type=int, default=21000)
    p.add_argument("--seed", required=True, type=int, help="seed of the arm-set draw")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--summary", required=True, type=Path)
    args = p.parse_args(argv)
    check_seed(args.seed)
    if len(args.days) != 7:
        raise UserError(f"--days needs the seven parsed days (May 1-7), got {len(args.days)} files")
    summary = build_yahoo_instance(args.days, args.pca, args.L, args.T, args.seed, args.out, args.summary,
                                   args.pca_signs)
    print(f"instance ({summary['source']}, PCA {args.pca}): best arm {summary['best_arm']}, "
          f"min gap {summary['min_gap']:.4g} ({summary['min_gap_in_uniform_sd']:.2f} sd of a uniform allocation), "
          f"arm 0 best on {summary['days_selected_arm_is_best']} of {len(summary['days'])} days -> {args.out}")
    return 0


def instance_inputs(config: dict) -> dict:
    """The files a Yahoo! instance job reads: the seven parsed R6A days and their quality report."""
    from linbandits.r6a.reader import PUBLISHED_DAYS

    return {"days": [f"data/processed/r6a/day{d}.npz" for d in PUBLISHED_DAYS], "qc": "data/processed/r6a_qc.json"}


def instance_command(config: dict, exp) -> str:
    """The instance job of a Yahoo! experiment (after `linbandits`): every L in one process, so the PCA
    and ridge fits (the same for every L) are made once. A switch run may set its own PCA variant
    (choice `pca`: one shared basis)."""
    from linbandits import jobs
    from linbandits.r6a.reader import PUBLISHED_DAYS

    yahoo = config["studies"]["p1rage"].get("yahoo", {})
    pca = exp.settings.get("pca", yahoo.get("pca", "per_day"))
    days = " ".join(f"data/processed/r6a/day{d}.npz" for d in PUBLISHED_DAYS)
    return jobs.setting_instance_command(config, exp, lambda s: (
        f"p1rage-yahoo-instance --days {days} --pca {pca} --pca-signs {yahoo.get('pca_signs', 'numpy')} "
        f"--L {exp.value_of(s)} --T {yahoo.get('T', 21000)} --seed {yahoo.get('arm_seed', 0)}"))
