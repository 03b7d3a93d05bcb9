"""linbandits.options: an algorithm's options, declared by its `defaults` and `choices`, from text (the
command line, a job's plan) or YAML values: each to its default's type, or one UserError naming the
option and what is allowed. Planted bug: a parser that keeps the text as it came."""
import pytest

from linbandits import options
from linbandits.errors import UserError


class Toy:
    name = "Toy"
    defaults = {"m": 15, "eps": 0.5, "fast": True, "design": "frank_wolfe", "window": None}
    choices = {"design": ("frank_wolfe", "cvxpy")}


@pytest.mark.parametrize("given, expected", [
    ({}, Toy.defaults),
    ({"m": "9", "eps": "1e-3", "fast": "off", "design": "cvxpy", "window": "none"},
     {"m": 9, "eps": 0.001, "fast": False, "design": "cvxpy", "window": None}),
    ({"window": "300", "eps": 2}, {**Toy.defaults, "window": 300, "eps": 2.0}),
    ({"window": "0.5", "fast": "YES"}, {**Toy.defaults, "window": 0.5, "fast": True}),
])
def test_options_take_their_defaults_type(given, expected):
    parsed = options.parse_options(Toy, given)
    assert parsed == expected and all(type(parsed[k]) is type(v) for k, v in expected.items())


@pytest.mark.parametrize("given, words", [
    ({"mm": "3"}, "Toy has no option 'mm'; its options are: m (default 15), eps (default 0.5)"),
    ({"m": "many"}, "Toy option m: 'many' is not a valid int"),
    ({"fast": "perhaps"}, "Toy option fast: 'perhaps' is not a valid bool"),
    ({"design": "greedy"}, "Toy option design='greedy' is not allowed; choose one of frank_wolfe, cvxpy"),
    ({"window": "wide"}, "'wide' is not a valid number or 'none'"),
])
def test_a_bad_option_is_one_line_naming_it(given, words):
    with pytest.raises(UserError) as err:
        options.parse_options(Toy, given)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_planted_text_kept_as_it_came_is_caught(monkeypatch):
    monkeypatch.setattr(options, "coerce", lambda raw, default, what: raw)
    assert options.parse_options(Toy, {"m": "9"}) != {**Toy.defaults, "m": 9}
