"""Each planted bug makes the exact replay against the plain oracle fail."""
import math

import pytest

from linbandits.catalogue import build_instance, make_algorithm

from swucb_planted_bugs import PLANTED
from swucb_replay import mismatch, oracle_bob, oracle_sw_ucb

SEED = 77


def replay_mismatch(algorithm):
    instance = build_instance("swucb_sinusoid", {"T": 1200, "budget": "cuberoot"})
    alg = make_algorithm(algorithm, instance)
    problems = []
    for trial in (0, 1):
        if algorithm == "SW-UCB":
            w = math.floor((2 * instance.T) ** (2 / 3))
            problems.append(mismatch(alg.trajectory(SEED, trial), oracle_sw_ucb(instance, SEED, trial, w)))
        else:
            problems.append(mismatch(alg.trajectory(SEED, trial), oracle_bob(instance, SEED, trial)))
    return [p for p in problems if p]


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_planted_bug_is_caught(name, monkeypatch):
    plant, algorithm = PLANTED[name]
    assert replay_mismatch(algorithm) == []          # the comparison passes on the real code ...
    plant(monkeypatch)
    assert replay_mismatch(algorithm) != []          # ... and fails with the bug
