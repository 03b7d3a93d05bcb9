"""Raw chunks of one experiment -> one summary per algorithm: mean and s.e. of the cumulative regret curve.

A run is one (setting, trial); with the authors' protocol every setting is one instance seed and holds one
run, so the n runs of an algorithm are its n instance seeds.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from linbandits.atomic import write_text_atomic
from linbandits.errors import UserError
from linbandits.npzfile import read_npz
from linbandits.tables import collect_trials, read_chunk


def summarise(chunks: list[str]) -> dict:
    """chunks: CSV paths of one algorithm (all settings: raw/<experiment>/<setting>/<algorithm>/chunk*.csv);
    each setting's chunks must hold its runs 0..k-1 once; curves come from the .curves.npz beside each CSV."""
    finals, curves, t = [], [], None
    by_setting: dict[str, list[str]] = {}
    for path in chunks:
        by_setting.setdefault(str(Path(path).parent), []).append(str(path))
    for paths in by_setting.values():
        collect_trials(paths, None, ("trial", "regret"), integer_columns=("trial",))
        for path in paths:
            runs = read_chunk(path, ("trial", "regret"), ("trial",))
            arrays = read_npz(path[: -len(".csv")] + ".curves.npz", "curves file")
            if not np.array_equal(arrays["trial"], runs["trial"].to_numpy()):
                raise UserError(f"curves beside {path} hold other runs than its CSV; delete both and rerun")
            if t is None:
                t = arrays["t"]
            elif not np.array_equal(t, arrays["t"]):
                raise UserError(f"curves of {path} are on other rounds than the experiment's first chunk")
            if not np.allclose(arrays["regret"][:, -1], runs["regret"].to_numpy(float), rtol=1e-12, atol=1e-9):
                raise UserError(f"curves beside {path} do not end at its CSV's regret; delete both and rerun")
            finals += list(runs["regret"].to_numpy(float))
            curves.append(arrays["regret"])
    curves = np.vstack(curves)
    n = len(finals)
    se = curves.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(curves.shape[1])
    return {"t": t.tolist(), "mean": curves.mean(axis=0).tolist(), "se": se.tolist(), "final": finals}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits opkb-summarise")
    p.add_argument("--experiment", required=True)
    p.add_argument("--title", default="")
    p.add_argument("--chunks", nargs="+", action="append", required=True, metavar=("ALGORITHM", "CSV"),
                   help="an algorithm name followed by its chunk CSVs (repeat per algorithm)")
    p.add_argument("--n", type=int, required=True, help="runs expected per algorithm")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    out = {"experiment": args.experiment, "title": args.title, "algorithms": {}}
    for group in args.chunks:
        algorithm, paths = group[0], group[1:]
        summary = summarise(paths)
        if len(summary["final"]) != args.n:
            raise UserError(f"{args.experiment}/{algorithm}: {len(summary['final'])} runs, expected {args.n}")
        out["algorithms"][algorithm] = summary
    write_text_atomic(args.out, json.dumps(out) + "\n")
    return 0
