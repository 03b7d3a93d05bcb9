"""A user algorithm's options per experiment (issue 47), in the paper's algorithms' form: a study's
`options:` and an experiment row's `options:` name it like a paper algorithm (lingape's Exp. 2 gives
LinGapE S = 2 so). Accepted and validated against the user class's `defaults` in one line; carried into
the job plans, so that changing them changes exactly the user's plans (the jobs Snakemake reruns).
Planted: the old behaviour (only the declared options reach the user) is caught.
"""
import pytest
from user_lingape import SCHEMA, write_user_file
from user_lingape import lingape_config as declared_in

from linbandits import jobs
from linbandits.errors import UserError
from linbandits.experiments import experiments
from linbandits.user import algorithms as user_algorithms
from linbandits.validation import validate_config


@pytest.fixture(scope="module")
def user_file(tmp_path_factory):
    return write_user_file(tmp_path_factory.mktemp("user"))


def lingape_config(user_file, row_options=None, study_options=None, declared=None) -> dict:
    config = declared_in(user_file, {"options": declared} if declared else None)
    body = config["studies"]["lingape"]
    if row_options is not None:
        body["experiments"]["exp2_canonical"].setdefault("options", {})["Mine"] = row_options
    if study_options is not None:
        body.setdefault("options", {})["Mine"] = study_options
    return config


def plans(config) -> dict:
    """Every simulate job's plan text of lingape, by plan file."""
    out = {}
    for rule in jobs.planned_rules(config, "lingape", list(experiments(config).values())):
        for w in rule.wildcards:
            out[rule.plan_file.format(**w)] = jobs.plan_text(rule.plan(w))
    return out


def test_an_experiment_rows_options_reach_the_user_algorithm_there_only(user_file):
    config = lingape_config(user_file, row_options={"S": 2.0}, study_options={"lam": 0.5}, declared={"S": 9.0})
    validate_config(config, SCHEMA)
    exps = experiments(config)
    assert exps["exp2_canonical"].options["Mine"] == {"S": 2.0, "lam": 0.5}     # the row's over the declared
    assert exps["exp2_adaptive"].options["Mine"] == {"S": 9.0, "lam": 0.5}      # the study's over the declared
    assert exps["exp2_canonical"].options["LinGapE"] == {"S": 2.0}


def test_changing_them_changes_exactly_the_user_algorithms_plans(user_file):
    for size in ("algorithm", "study"):
        before = plans({**lingape_config(user_file), "job_size": size})
        after = plans({**lingape_config(user_file, row_options={"S": 2.0}), "job_size": size})
        changed = [p for p in before.keys() | after.keys() if before.get(p) != after.get(p)]
        assert changed and all("/Mine/" in p or p.endswith("/simulate/Mine.json") for p in changed), changed
        if size == "algorithm":
            # exp2_canonical's user jobs now with S = 2; exp2_adaptive, which shared its runs of the user's
            # algorithm while their options were equal (test_user_runs_shared.py), runs it itself
            assert sorted({p.split("/simulate/")[1].split("/")[0] for p in changed}) == \
                ["exp2_adaptive", "exp2_canonical"], changed
            assert all(p in before for p in changed if "/exp2_canonical/" in p)
        assert all('"S": "2.0"' in after[p] for p in changed if "/exp2_adaptive/" not in p)


def test_planted_old_behaviour_declared_options_only_is_caught(user_file, monkeypatch):
    def declared_only(config, study, experiment, row, study_options=None):
        names = [d.name for d in user_algorithms.declared(config).values()
                 if d.study == study and user_algorithms.joins(d, experiment, row)]
        return tuple(names), {n: dict(user_algorithms.declared(config)[n].options) for n in names}

    monkeypatch.setattr(user_algorithms, "extra_for", declared_only)
    with pytest.raises(AssertionError):
        test_changing_them_changes_exactly_the_user_algorithms_plans(user_file)
    with pytest.raises(AssertionError):
        test_an_experiment_rows_options_reach_the_user_algorithm_there_only(user_file)


BAD = [
    # (row options, study options, what the one line says)
    ({"gamma": 1.0}, None, "options/Mine/gamma: Mine has no option 'gamma'; its options are: rule (default greedy)"),
    ({"gamma": 1.0}, None, "(or declare 'gamma' in the `defaults` of"),
    ({"S": "abc"}, None, "options/Mine/S: Mine option S: 'abc' is not a valid number or 'none'"),
    ({"rule": "best"}, None, "Mine option rule='best' is not allowed; choose one of"),
    (None, {"gamma": 1.0}, "studies/lingape/options/Mine/gamma: Mine has no option 'gamma'"),
]


@pytest.mark.parametrize("row, study, expected", BAD)
def test_a_bad_option_is_one_line_naming_it_and_the_fix(user_file, row, study, expected):
    with pytest.raises(UserError) as err:
        validate_config(lingape_config(user_file, row_options=row, study_options=study), SCHEMA)
    assert expected in str(err.value) and "\n" not in str(err.value)


def test_an_undeclared_name_or_one_not_run_there_is_refused(user_file):
    config = lingape_config(user_file)
    config["studies"]["lingape"]["experiments"]["exp2_canonical"]["options"]["Yours"] = {"S": 2.0}
    with pytest.raises(UserError, match=r"exp2_canonical/options/Yours: unknown algorithm 'Yours'.* user algorithms "
                                        r"declared for it: Mine \(declare yours under extra_algorithms: lingape: Yours\)"):
        validate_config(config, SCHEMA)
    config = lingape_config(user_file, row_options={"S": 2.0})
    config["extra_algorithms"]["lingape"]["Mine"]["experiments"] = ["exp1_soare"]
    with pytest.raises(UserError, match="exp2_canonical/options/Mine: the experiment does not run Mine"):
        validate_config(config, SCHEMA)
