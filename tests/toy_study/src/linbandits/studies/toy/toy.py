"""Algorithm, instance family, table and claim of the toy study."""
from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from linbandits.claims import FAILS_TO_HOLD, HOLDS, result, write_claims
from linbandits.options import parse_options
from linbandits.problems.linear import LinearInstance
from linbandits.study import Records
from linbandits.tables import collect_trials, write_table


def toy_two_arms(*, gap: float = 0.5, T: int = 20) -> LinearInstance:
    """Two arms e_1, e_2 with means 1 and 1 - gap."""
    return LinearInstance(name=f"toy_two_arms[gap={gap:g}]", X=np.eye(2),
                          thetas=np.tile([1.0, 1.0 - gap], (T, 1)), noise_sd=1.0)


class ToyUniform:
    name = "Toy-Uniform"
    summary = "pull the arms in turn, recommend the larger mean"
    kinds = ("linear",)
    defaults = {}
    choices = {}

    def __init__(self, instance, **options):
        self.options = parse_options(self, options)
        self.instance = instance

    def simulate(self, seed, trials, progress=None) -> Records:
        inst = self.instance
        rec = np.empty(len(trials), dtype=np.int64)
        for j, trial in enumerate(trials):
            rng = np.random.default_rng([seed, int(trial)])
            arms = np.arange(inst.T) % inst.K
            rewards = inst.means()[np.arange(inst.T), arms] + inst.noise_sd * rng.standard_normal(inst.T)
            rec[j] = np.argmax([rewards[arms == k].mean() for k in range(inst.K)])
        return Records(columns={"recommended": rec, "correct": (rec == inst.best_arm).astype(np.int64)})


def main_table(argv=None) -> int:
    p = argparse.ArgumentParser(prog="linbandits toy-table")
    p.add_argument("--chunks", nargs="+", required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--out-stem", required=True, help="writes STEM.csv/.md/.tex")
    p.add_argument("--claims-stem", required=True, help="writes STEM.md/.json")
    args = p.parse_args(argv)
    runs = collect_trials(args.chunks, args.n, ("trial", "recommended", "correct"))
    accuracy = float(runs["correct"].mean())
    table = pd.DataFrame([{"algorithm": "Toy-Uniform", "n_runs": len(runs), "accuracy": accuracy}])
    write_table(table, f"{args.out_stem}.csv", f"{args.out_stem}.md", f"{args.out_stem}.tex")
    claim = {"id": "better_than_coin", "quote": "uniform exploration finds the better arm", "figure": "Table 1"}
    verdict = HOLDS if accuracy > 0.5 else FAILS_TO_HOLD
    write_claims([result(claim, "accuracy above 1/2", [f"accuracy {accuracy:.3g}"], verdict)],
                 f"{args.claims_stem}.md", f"{args.claims_stem}.json", study="toy")
    return 0
