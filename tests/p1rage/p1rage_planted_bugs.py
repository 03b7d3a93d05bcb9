"""Planted bugs: plausible one-line mistakes in the engine, each planted by
the test suite itself (test_p1rage_planted_bugs.py) to prove that the exact
replay against the oracle catches it.

A bug names a function or method of the engine, a snippet of its source and
the replacement. Planting recompiles the function's source with the
snippet replaced and swaps in the new code object (with pytest's
monkeypatch, undone after the test), so every reference to the function
sees the bug. The snippet must occur exactly once, so the list cannot go
stale silently when the engine changes.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import textwrap

_ALG = "linbandits.studies.p1rage.algorithms"


@dataclasses.dataclass(frozen=True)
class PlantedBug:
    name: str
    module: str
    qualname: str
    old: str
    new: str
    algorithms: tuple  # the algorithms whose replay must catch it

    def target(self):
        obj = importlib.import_module(self.module)
        for part in self.qualname.split("."):
            obj = getattr(obj, part)
        return obj

    def source(self) -> str:
        return textwrap.dedent(inspect.getsource(self.target()))

    def plant(self, monkeypatch):
        func = self.target()
        source = self.source()
        assert source.count(self.old) == 1, f"{self.name}: snippet not found once in {self.qualname}"
        namespace: dict = {}
        exec(compile(source.replace(self.old, self.new), inspect.getsourcefile(func), "exec"),
             func.__globals__, namespace)
        monkeypatch.setattr(func, "__code__", namespace[func.__name__].__code__)


P1 = ("P1-RAGE", "P1-Peace")

BUGS = [
    PlantedBug("p1_loop_never_applies_its_mixture", f"{_ALG}.p1_loop", "P1Loop.play",
               "lam, sinv = self.mixtures(self.levels(arm_values(self.X, theta_sum / start)))",
               "self.levels(arm_values(self.X, theta_sum / start))", P1),
    PlantedBug("first_update_after_round_E_minus_1", f"{_ALG}.p1_loop", "P1Loop.update_times",
               "return range(0, self.T, E)", "return range(E - 1, self.T, E)", P1),
    PlantedBug("rage_first_threshold_one", f"{_ALG}.p1_rage", "P1RAGE.levels",
               'float(self.options["first_threshold"])', "1.0", ("P1-RAGE",)),
    PlantedBug("mixed_peace_ranks_by_epoch_only_estimate", f"{_ALG}.mixed_peace", "MixedPeace.play",
               "est = arm_values(self.X, theta_sum / (start + n_pulls))",
               "est = arm_values(self.X, ips_increment(self.X, sums, sinv) / n_pulls)", ("Mixed-Peace",)),
    PlantedBug("iid_pulls_meet_theta_bar", "linbandits.studies.p1rage.kernels", "TrialBatch._iid_drawn",
               "self._table, start, self.stationary",
               "(self.instance.X @ self.instance.theta_bar)[None, :], start, True",
               ("G-BAI", "P1-RAGE", "P1-Peace", "Mixed-Peace")),
    PlantedBug("theta_t_shifted_by_one_round", "linbandits.studies.p1rage.kernels", "TrialBatch._iid_drawn",
               "self._table, start, self.stationary",
               "self._table, start - 1, self.stationary",
               ("G-BAI", "P1-RAGE", "P1-Peace", "Mixed-Peace")),
    PlantedBug("ties_ranked_in_increasing_index", f"{_ALG}.elimination", "rank_descending",
               'return np.flip(np.argsort(values, axis=-1, kind="stable"), axis=-1)',
               'return np.argsort(-values, axis=-1, kind="stable")',
               ("P1-Peace", "Peace", "Mixed-Peace", "OD-LinBAI")),
    PlantedBug("peace_planned_batch_meets_theta_bar", "linbandits.studies.p1rage.kernels",
               "TrialBatch._planned_ordered",
               "self._table, self.stationary",
               "(self.instance.X @ self.instance.theta_bar)[None, :], True", ("Peace", "OD-LinBAI")),
    PlantedBug("ips_divides_by_rounds_plus_one", f"{_ALG}.p1_loop", "P1Loop.play",
               "theta = theta_sum / self.T", "theta = theta_sum / (self.T + 1)", P1),
]

_ENGINE = "linbandits.studies.p1rage.kernels"

# Mistakes in the batched draws on each trial's own generator, the path the exact replay (an
# injected stream) does not take: p1rage_reference_engine.batched_mismatches must notice each.
BATCHED_BUGS = [
    PlantedBug("uniforms_from_the_wrong_trials_generator", _ENGINE, "TrialBatch._iid_drawn",
               "g = self._rngs[i]", "g = self._rngs[j]", ("G-BAI",)),
    PlantedBug("binomial_noise_from_the_wrong_trials_generator", _ENGINE, "TrialBatch._noise",
               "B[j] = self._rngs[i].binomial(C[j], 0.5)", "B[j] = self._rngs[j].binomial(C[j], 0.5)", ("G-BAI",)),
    PlantedBug("multinomial_reads_the_first_rows_of_lam", _ENGINE, "TrialBatch._iid_multinomial",
               "rows = lam[idx]", "rows = lam[:idx.size]", ("Mixed-Peace",)),
    PlantedBug("noise_drawn_before_the_uniforms", _ENGINE, "TrialBatch._iid_drawn",
               "g.random(out=U[j])\n            if Z is not None:\n                g.standard_normal(out=Z[j])",
               "if Z is not None:\n                g.standard_normal(out=Z[j])\n            g.random(out=U[j])",
               ("G-BAI",)),
    PlantedBug("shuffle_only_what_fits_before_T", _ENGINE, "TrialBatch._planned_ordered",
               "g.shuffle(orders[offsets[j]:offsets[j] + total[j]])",
               "g.shuffle(orders[offsets[j]:offsets[j] + min(total[j], room[j])])", ("Peace",)),
    PlantedBug("positions_read_with_every_trials_plan", _ENGINE, "TrialBatch._planned_ordered",
               "_arms_at_positions(offsets, total, plan, orders)",
               "_arms_at_positions(offsets, total, np.ascontiguousarray(counts[:m]), orders)", ("OD-LinBAI",)),
    PlantedBug("one_round_bounded_noise_sign_flipped", _ENGINE, "TrialBatch._pull_one_round",
               "(1.0 if g.random() < 0.5 else -1.0)", "(1.0 if g.random() >= 0.5 else -1.0)", ("P1-RAGE",)),
]
