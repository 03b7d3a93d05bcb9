"""docs/api.md's examples run as written (doctest), and the API refuses bad input in one error."""
import doctest
from pathlib import Path

import pytest

import linbandits
from linbandits.errors import UserError

API_DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def test_the_documented_examples_run_as_written():
    result = doctest.testfile(str(API_DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0


def test_bad_input_is_one_user_error():
    inst = linbandits.build_instance("oam_fixed", {"horizon": 100})
    algo = linbandits.make_algorithm("OAM", inst)
    with pytest.raises(UserError, match="the seed must be >= 0"):
        algo.simulate(seed=-1, trials=2)
    with pytest.raises(UserError, match="trials must be at least 1"):
        algo.simulate(seed=0, trials=0)
    with pytest.raises(UserError, match="unknown setting"):
        linbandits.build_instance("oam_fixed", {"nope": 1})
    with pytest.raises(UserError, match="has no option"):
        linbandits.make_algorithm("OAM", inst, {"nope": 1})
