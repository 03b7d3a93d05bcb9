"""linbandits.errors: an unknown name lists the valid ones in order; a seed is a non-negative integer (numpy's
too, not True, not 1.0) returned as int; a command's argument mistake is one UserError naming the command and
its --help, in its subcommands too. Planted bugs: the valid names in the order given, a seed check that takes
a bool, argparse's own parser (usage and exit)."""
import argparse

import numpy as np
import pytest
from plain_source import plain

from linbandits import errors
from linbandits.errors import OneLineArgumentParser, UserError


def test_an_unknown_name_lists_the_valid_ones_sorted():
    valid = {"oam": 1, "lingape": 2, "p1rage": 3}
    expected = "unknown study 'opkp'; valid studys are: lingape, oam, p1rage"
    assert str(errors.unknown_name("study", "opkp", valid)) == expected
    planted = plain(errors.unknown_name, "valid = sorted(valid)", "valid = list(valid)")
    assert str(planted("study", "opkp", valid)) != expected


def refusals(check_seed):
    """What check_seed says about each candidate: the int it returns, or the start of its refusal."""
    out = []
    for seed in (7, np.int64(7), 0, -1, True, 1.0, "7"):
        try:
            kept = check_seed(seed)
            out.append((kept, type(kept)))
        except UserError as exc:
            out.append(str(exc).split(",")[0])
    return out


def test_a_seed_is_a_non_negative_integer_and_never_a_bool():
    assert refusals(errors.check_seed) == [
        (7, int), (7, int), (0, int), "--seed must be >= 0 (numpy's SeedSequence takes non-negative integers)",
        "--seed must be an integer", "--seed must be an integer", "--seed must be an integer"]
    planted = plain(errors.check_seed, "isinstance(seed, bool) or not isinstance(seed, numbers.Integral)",
                    "not isinstance(seed, numbers.Integral)")
    assert refusals(planted)[4] == (1, int)


def parser(cls):
    p = cls(prog="linbandits")
    sub = p.add_subparsers(dest="command", required=True)
    simulate = sub.add_parser("simulate")
    simulate.add_argument("--trials", type=int, required=True)
    return p


@pytest.mark.parametrize("argv, command, problem", [
    (["simualte"], "linbandits", "invalid choice: 'simualte'"),
    (["simulate", "--trials", "ten"], "linbandits simulate", "argument --trials: invalid int value: 'ten'"),
])
def test_an_argument_mistake_is_one_line_naming_the_command_and_its_help(argv, command, problem, capsys):
    with pytest.raises(UserError) as refused:
        parser(OneLineArgumentParser).parse_args(argv)
    line = str(refused.value)
    assert line.startswith(f"{command}: ") and line.endswith(f"; see `{command} --help`"), line
    assert problem in line and "\n" not in line and capsys.readouterr().err == ""
    with pytest.raises(SystemExit):                 # planted: argparse's parser prints usage and exits
        parser(argparse.ArgumentParser).parse_args(argv)
    assert "usage:" in capsys.readouterr().err
