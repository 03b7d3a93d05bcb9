"""One exception type for every mistake a user can make.

The CLI and the pipeline catch `UserError` and print its message alone (no
traceback): the message must name the problem and say how to fix it.
"""
import argparse
import numbers


class UserError(Exception):
    """Bad input from the user: config, instance file, data files, names."""


def unknown_name(kind: str, name: str, valid) -> UserError:
    valid = sorted(valid)
    return UserError(f"unknown {kind} {name!r}; valid {kind}s are: {', '.join(valid)}")


def check_seed(seed, what: str = "--seed") -> int:
    """A seed (command line or API): numpy's SeedSequence takes non-negative integers only."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise UserError(f"{what} must be an integer, got {seed!r}")
    if seed < 0:
        raise UserError(f"{what} must be >= 0 (numpy's SeedSequence takes non-negative integers), got {seed}")
    return int(seed)


class OneLineArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose mistakes (an argument missing, malformed or not among the choices) are one
    UserError naming the command and pointing at its help, instead of a usage block and an error line.
    Its subparsers are of the same class."""

    def error(self, message):
        raise UserError(f"{self.prog}: {message}; see `{self.prog} --help`")
