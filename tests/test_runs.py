"""linbandits.runs: an experiment's raw chunks into one runs file, and the one mean / standard error.

collect() keeps every (setting, algorithm)'s runs 0..n-1 exactly once, sorted by run whatever the chunks'
order, with the sidecars' extras (not the job's own entries); a run missing or twice, a sidecar missing,
curves on other rounds: one UserError naming the file. Planted bugs: a collector that keeps the chunks'
order, a mean_se with the population deviation.
"""
import json
import math

import numpy as np
import pytest

from linbandits import runs
from linbandits.errors import UserError
from linbandits.npzfile import write_npz


def chunk(root, setting, algorithm, first, values, curves=None, info=None):
    """A raw chunk as a simulate job writes it: CSV (trial first), sidecar, optional curves."""
    path = root / setting / algorithm / f"chunk{first}-{first + len(values) - 1}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    trials = range(first, first + len(values))
    path.write_text("trial,regret\n" + "".join(f"{t},{v!r}\n" for t, v in zip(trials, values)))
    sidecar = {"command": "simulate", "seed": 7, "first_trial": first, "trials": len(values), "elapsed_seconds": 1.5,
               **(info or {})}
    path.with_suffix(".json").write_text(json.dumps(sidecar))
    if curves is not None:
        write_npz(str(path.with_suffix(".curves.npz")), {"trial": np.array(list(trials)), "t": np.array([10, 20]),
                                                        "regret": np.asarray(curves, float)})
    return str(path)


def test_runs_are_collected_once_each_in_run_order_with_the_sidecars_extras(tmp_path):
    paths = [chunk(tmp_path, "T10", "A", 3, [3.0, 4.0], curves=[[3, 30], [4, 40]], info={"designs": 2}),
             chunk(tmp_path, "T10", "A", 0, [0.0, 1.0, 2.0], curves=[[0, 0], [1, 10], [2, 20]]),
             chunk(tmp_path, "T10", "B", 0, [9.0, 8.0, 7.0, 6.0, 5.0], curves=np.zeros((5, 2)))]
    arrays, meta = runs.collect(paths, 5, curves=True)
    assert arrays["T10/A/regret"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert arrays["T10/A/curve_regret"][:, 1].tolist() == [0, 10, 20, 30, 40]
    assert meta["settings"] == ["T10"] and meta["algorithms"] == ["A", "B"]
    info = meta["series"]["T10/A"]["info"]
    assert [i["seed"] for i in info] == [7, 7] and info[1]["designs"] == 2       # by first run: 0.. then 3..
    assert not any(k in i for i in info for k in runs.JOB_ONLY)
    stem = str(tmp_path / "runs" / "exp")
    runs.write(stem, arrays, meta, "exp", "toy")
    back = runs.RunSet(stem)
    assert back.column("T10", "B", "regret").tolist() == [9.0, 8.0, 7.0, 6.0, 5.0] and back.has("T10", "A")
    assert back.curve("T10", "A")[0].tolist() == [10, 20]


@pytest.mark.parametrize("damage, words", [
    (lambda root: chunk(root, "T10", "A", 1, [1.0, 2.0]), "appear more than once"),
    (lambda root: None, "missing"),
])
def test_a_run_missing_or_twice_is_one_line(tmp_path, damage, words):
    paths = [chunk(tmp_path, "T10", "A", 0, [0.0, 1.0, 2.0])]
    extra = damage(tmp_path)
    with pytest.raises(UserError, match=words):
        runs.collect(paths + ([extra] if extra else []), 4, curves=False)


def test_a_missing_sidecar_names_the_chunk(tmp_path):
    path = chunk(tmp_path, "T10", "A", 0, [0.0])
    (tmp_path / "T10" / "A" / "chunk0-0.json").unlink()
    with pytest.raises(UserError, match=r"sidecar .*chunk0-0.json of .*chunk0-0.csv is missing; delete the chunk"):
        runs.collect([path], 1, curves=False)


def test_curves_on_other_rounds_are_refused(tmp_path):
    paths = [chunk(tmp_path, "T10", "A", 0, [0.0], curves=[[1, 2]]),
             chunk(tmp_path, "T10", "A", 1, [1.0], curves=[[1, 2]])]
    write_npz(paths[1][:-4] + ".curves.npz", {"trial": np.array([1]), "t": np.array([5, 6]), "regret": np.ones((1, 2))})
    with pytest.raises(UserError, match="on other rounds"):
        runs.collect(paths, 2, curves=True)


def test_planted_collector_in_chunk_order_is_caught(tmp_path, monkeypatch):
    """The check above fails when the runs keep the chunks' order instead of the runs'."""
    from linbandits import tables

    real = tables.collect_trials
    monkeypatch.setattr(tables, "collect_trials", lambda paths, n, **kw: real(paths, n, **kw).sort_values(
        "file", kind="stable", key=lambda f: f.map({p: i for i, p in enumerate(paths)})))
    paths = [chunk(tmp_path, "T10", "A", 3, [3.0, 4.0]), chunk(tmp_path, "T10", "A", 0, [0.0, 1.0, 2.0])]
    arrays, _ = runs.collect(paths, 5, curves=False)
    assert arrays["T10/A/regret"].tolist() != [0.0, 1.0, 2.0, 3.0, 4.0]


def test_mean_and_standard_error():
    assert runs.mean_se([1.0, 2.0, 3.0, 6.0]) == (3.0, math.sqrt(14 / 3) / 2)
    mean, se = runs.mean_se([5.0])
    assert mean == 5.0 and math.isnan(se)
    m, s = runs.curve_mean_se([[0.0, 2.0], [2.0, 6.0]])
    assert m.tolist() == [1.0, 4.0] and np.allclose(s, [1.0, 2.0])
    assert runs.curve_mean_se([[1.0, 2.0]])[1].tolist() == [0.0, 0.0]


def test_planted_population_deviation_is_caught(monkeypatch):
    monkeypatch.setattr(runs, "mean_se", lambda values: (float(np.mean(values)),
                                                          float(np.std(values) / math.sqrt(len(values)))))
    assert runs.mean_se([1.0, 2.0, 3.0, 6.0]) != (3.0, math.sqrt(14 / 3) / 2)
