"""Aggregation, the final table and the claim checks, on small runs made in-process."""
import numpy as np
import pytest

from linbandits.claims import FAILS_TO_HOLD, HOLDS, NOT_RUN, load_claims
from linbandits.cli import main
from linbandits.problems import save_instance
from linbandits.studies.oam.aggregate import Aggregate, aggregate_experiment, read_aggregate, write_aggregate
from linbandits.studies.oam.claims import CLAIMS_TABLE, check_claims
from linbandits.studies.oam.instance import oam_circle


def simulate(tmp_path, inst_file, algo, first, n, tag):
    out = tmp_path / f"{tag}_{algo}_{first}.csv"
    assert main(["simulate", "--instance-file", str(inst_file), "--algorithm", algo, "--trials", str(n),
                 "--first-trial", str(first), "--seed", "0", "--out", str(out),
                 "--curves", str(out.with_suffix(".curves.npz"))]) == 0
    return str(out)


def test_aggregates_do_not_depend_on_chunking(tmp_path):
    inst = tmp_path / "i.npz"
    save_instance(inst, oam_circle(K=5, random_theta=True, horizon=300))
    assert main(["instance", "--instance-file", str(inst), "--out", str(tmp_path / "j.npz"),
                 "--summary", str(tmp_path / "i.json")]) == 0
    spec = {"title": "t", "trials": 4, "seed": 0, "summary": str(tmp_path / "i.json"), "instance": str(inst)}
    whole = {a: [simulate(tmp_path, inst, a, 0, 4, "w")] for a in ("OAM", "OSSB")}
    parts = {a: [simulate(tmp_path, inst, a, 2, 2, "p"), simulate(tmp_path, inst, a, 0, 2, "p")]
             for a in ("OAM", "OSSB")}
    write_aggregate(aggregate_experiment("w", {**spec, "series": whole}), tmp_path / "w")
    write_aggregate(aggregate_experiment("w", {**spec, "series": parts}), tmp_path / "p")
    assert (tmp_path / "w/w.npz").read_bytes() == (tmp_path / "p/w.npz").read_bytes()
    agg = read_aggregate(tmp_path / "w/w")
    assert agg.C > 0 and "median" in agg.meta["C_note"] and agg.regret["OAM"].shape[0] == 4


def fake(name, horizon, curves, C=1.0, **meta):
    """An aggregate with given per-run final regrets (curves: algo -> runs x 3 values at n/10, n/2, n)."""
    t = np.array([horizon // 10, horizon // 2, horizon])
    return Aggregate(name, {"title": name, "horizon": horizon, "n_runs": 4, "C": C, "algorithms": list(curves),
                            **meta}, t, {a: np.asarray(v, float) for a, v in curves.items()})


def runs(end, spread=1.0, early=None, half=None):
    e = np.array([end - spread, end, end + spread, end])
    return np.column_stack([e * 0.1 if early is None else np.full(4, early),
                            e * 0.5 if half is None else np.full(4, half), e])


def verdicts(aggs):
    return {r["id"]: r["verdict"] for r in check_claims(aggs, load_claims(CLAIMS_TABLE))}


def test_claims_hold_on_a_paper_like_world_and_fail_on_the_opposite():
    paper = {
        "oam_fixed_u01": fake("oam_fixed_u01", 100, {"OAM": runs(10), "LinUCB": runs(30)}),
        "oam_fixed_u02": fake("oam_fixed_u02", 100, {"OAM": runs(10), "LinUCB": runs(30)}),
        "oam_scenario_one": fake("oam_scenario_one", 100, {"OAM": runs(10, early=5), "LinUCB": runs(30, early=2)}),
        "oam_scenario_two": fake("oam_scenario_two", 100, {"OAM": runs(10), "LinUCB": runs(10.5)}, C=0.0),
        "oam_bounded": fake("oam_bounded", 100, {"OAM": runs(10, half=9.9), "LinUCB": runs(8, half=7.9)}, C=0.0),
        "oam_circle100": fake("oam_circle100", 100, {"OAM": runs(10), "OSSB": runs(100, 20), "LinTS": runs(90)}),
        "oam_circle5": fake("oam_circle5", 100, {"OAM": runs(10), "OSSB": runs(20)}),
        "oam_random_theta": fake("oam_random_theta", 100, {"OAM": runs(10), "OSSB": runs(20),
                                                           "LinTS-heuristic": runs(5, 0.5)}),
    }
    assert set(verdicts(paper).values()) == {HOLDS}
    swapped = {name: fake(name, 100, {a: v for a, v in zip(agg.regret, reversed(list(agg.regret.values())))},
                          C=1.0) for name, agg in paper.items()}
    swapped["oam_scenario_two"] = fake("oam_scenario_two", 100, {"OAM": runs(10), "LinUCB": runs(20)})
    swapped["oam_bounded"] = fake("oam_bounded", 100, {"OAM": runs(10, half=5), "LinUCB": runs(8, half=7.9)})
    got = verdicts(swapped)
    assert set(got.values()) == {FAILS_TO_HOLD}, got


def test_switches_are_judged_in_place_of_their_experiment_and_missing_runs_are_not_run():
    base = fake("oam_circle100", 100, {"OAM": runs(200), "OSSB": runs(100, 20), "LinTS": runs(90)})
    switch = fake("oam_circle100_eps0", 100, {"OAM": runs(10)}, switch_of="oam_circle100", switch="eps=0")
    got = verdicts({"oam_circle100": base, "oam_circle100_eps0": switch})
    assert got["C5"] == FAILS_TO_HOLD and got["C5 [switch eps=0]"] == HOLDS
    assert got["C1"] == NOT_RUN and "C1 [switch eps=0]" not in got


def test_a_claim_of_a_longer_switch_uses_only_the_switch_runs():
    base = fake("oam_bounded", 100, {"OAM": runs(10, half=5), "LinUCB": runs(8, half=4)}, C=0.0)
    long = fake("oam_bounded_long", 1000, {"OAM": runs(12, half=11.9), "LinUCB": runs(9, half=8.9)}, C=0.0,
                switch_of="oam_bounded", switch="n=1e5")
    got = verdicts({"oam_bounded": base, "oam_bounded_long": long})
    assert got["C4"] == FAILS_TO_HOLD and got["C4 [switch n=1e5]"] == HOLDS
