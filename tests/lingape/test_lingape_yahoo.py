"""Exp. 3 arm sets from a parsed R6A day (the shared reader's output format)."""
import json

import numpy as np
import pytest

from linbandits.errors import UserError
from linbandits.problems import load_instance_file
from linbandits.r6a import reader as r6a
from linbandits.studies.lingape import yahoo


class FakeParser:
    def __init__(self, z, clicks):
        self.z_chunks, self.click_chunks = [z.astype(np.float32)], [clicks.astype(np.uint8)]


def day_file(tmp_path, n=4000, seed=0, day="20090501"):
    rng = np.random.default_rng(seed)
    u = np.c_[np.ones(n), rng.uniform(0, 1, (n, 5))]
    a = np.c_[np.ones(n), rng.uniform(0, 1, (n, 5))]
    z = (u[:, :, None] * a[:, None, :]).reshape(n, 36)
    p = np.clip(0.02 + 0.15 * u[:, 1] * a[:, 2], 0, 1)
    clicks = rng.random(n) < p
    path = tmp_path / f"day{day}.npz"
    r6a.write_day_npz(path, FakeParser(z, clicks), {"day": day, "synthetic": True})
    return path


def test_arm_sets_follow_the_protocol(tmp_path):
    path = day_file(tmp_path)
    out, summary = tmp_path / "inst.npz", tmp_path / "inst.json"
    yahoo.build(path, K=4, runs=3, out=out, summary_path=summary)
    inst = load_instance_file(out)
    s = json.loads(summary.read_text())
    z, clicks, _ = r6a.load_day_npz(path)
    theta = np.linalg.solve(z.astype(float).T @ z.astype(float) + 0.01 * np.eye(36),
                            z.astype(float).T @ (2.0 * clicks - 1))
    assert inst.theta == pytest.approx(theta, rel=1e-8)
    assert inst.arm_sets.shape == (3, 4, 36) and inst.noise_scale == 2.0
    for run in range(3):
        values = inst.arm_sets[run] @ inst.theta
        assert -0.88 < values[0] < 1.0
        assert np.all((values[1:] > -1.0) & (values[1:] < -0.93))
        assert len(set(s["arm_rows"][run])) == 4
        assert s["min_gap"][run] >= 0.05
    assert s["synthetic"] is True and "synthetic" in s["source"]


def test_wrong_day_and_too_few_rows(tmp_path):
    with pytest.raises(UserError, match="May 1"):
        yahoo.build(day_file(tmp_path, day="20090502"), K=2, runs=1, out=tmp_path / "a.npz",
                    summary_path=tmp_path / "a.json")
    with pytest.raises(UserError, match="bad rows"):
        yahoo.build(day_file(tmp_path, n=200), K=150, runs=1, out=tmp_path / "b.npz",
                    summary_path=tmp_path / "b.json")
