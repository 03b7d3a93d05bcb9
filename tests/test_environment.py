"""The shared environment interface (linbandits.environment) and its page, docs/environments.md: the page's
examples run as written; every public attribute of an instance class (on an instance of every family) and
of every study's environment is in the page's tables, and every name there exists (a planted extra
attribute and a dropped row are caught); bad input is one UserError."""
import doctest
import re
from pathlib import Path

import numpy as np
import pytest

import linbandits
from linbandits import catalogue
from linbandits.environment import ALGORITHM_PURPOSE, SteppedAlgorithm, environment_class, make_environment
from linbandits.errors import UserError
from linbandits.studies.lingape.instances import ArmSetsInstance

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "environments.md"
SMALL = {"T": 60, "horizon": 60}      # the settings that shorten a family's instance, where it has them


def test_the_page_examples_run_as_written(monkeypatch):
    monkeypatch.chdir(REPO)           # experiment_environment reads config/config.yaml from the root
    result = doctest.testfile(str(PAGE), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 20 and result.failed == 0


# ---------------------------------------------------------------- every public attribute documented

def documented(text: str) -> dict[str, set[str]]:
    """Class name -> the names in the first column of the tables under its heading `### `Class``
    (`a`, `b(x)`, `c`: a, b, c), up to the next heading."""
    out, current = {}, None
    for line in text.splitlines():
        heading = re.match(r"^#{2,3} `(\w+)`", line)
        if heading:
            current = heading.group(1)
            out[current] = set()
        elif line.startswith("#"):
            current = None
        elif current and line.startswith("| `"):
            first = line.split("|")[1]
            out[current].update(re.findall(r"`(\w+)", first))
    return out


def public(obj) -> set[str]:
    return {a for a in dir(obj) if not a.startswith("_")}


def small_instance(family: str):
    defaults = catalogue.default_settings(family)
    return linbandits.build_instance(family, {k: v for k, v in SMALL.items() if k in defaults})


def instances() -> list:
    """An instance of every family, and the Yahoo! arm-set kind (built from data, no family)."""
    return [small_instance(f) for f in catalogue.family_names()] + [
        ArmSetsInstance(name="sets", arm_sets=np.eye(3)[None], theta=np.ones(3))]


def environments() -> list:
    """One environment of every study that offers one, on its first family's instance."""
    out = []
    for name, study in catalogue.studies().items():
        if study.environment:
            out.append(make_environment(name, small_instance(next(iter(study.families))), 1, 0))
    return out


def attribute_problems(text: str, objects) -> list[str]:
    """Undocumented public attributes and documented names that are not attributes, per class."""
    docs = documented(text)
    problems, by_class = [], {}
    for obj in objects:
        by_class.setdefault(type(obj), set()).update(public(obj))
    for cls, names in by_class.items():
        allowed = set()
        for base in cls.__mro__:
            allowed |= docs.get(base.__name__, set())
        if cls.__name__ not in docs:
            problems.append(f"{cls.__name__}: no section ### `{cls.__name__}`")
        problems += [f"{cls.__name__}.{a}: not documented" for a in sorted(names - allowed)]
        problems += [f"{cls.__name__}.{a}: documented, not an attribute" for a in sorted(allowed - names)]
    return problems


def test_every_public_attribute_of_the_instances_and_environments_is_documented():
    assert attribute_problems(PAGE.read_text(), instances() + environments()) == []


def test_a_planted_attribute_or_a_dropped_row_is_caught():
    text = PAGE.read_text()
    inst = small_instance("swucb_sinusoid")
    object.__setattr__(inst, "secret_drift", 1.0)       # planted: a public attribute the page does not name
    assert attribute_problems(text, [inst]) == ["LinearInstance.secret_drift: not documented"]
    dropped = "\n".join(line for line in text.splitlines() if not line.startswith("| `thetas`"))
    assert attribute_problems(dropped, [small_instance("swucb_sinusoid")]) == ["LinearInstance.thetas: not documented"]
    env = environments()[0]
    dropped = "\n".join(line for line in text.splitlines() if not line.startswith("| `step(arm)`"))
    assert f"{type(env).__name__}.step: not documented" in attribute_problems(dropped, [env])


# ---------------------------------------------------------------- the interface

def test_the_five_studies_offer_an_environment_with_their_kinds():
    offering = {name: study for name, study in catalogue.studies().items() if study.environment}
    assert {"p1rage", "lingape", "swucb", "oam", "opkb"} <= set(offering)     # optional for a new study
    for name, study in offering.items():
        cls = environment_class(name)
        kinds = {k for a in study.algorithms.values() for k in catalogue.resolve(a).kinds}
        assert set(cls.kinds) == kinds and cls.study == name


def test_bad_input_is_one_user_error():
    inst = small_instance("oam_fixed")
    with pytest.raises(UserError, match="'nope' is not a study"):
        make_environment("nope", inst, 1, 0)
    with pytest.raises(UserError, match="runs on linear instances, but 'oam_fixed"):
        make_environment("swucb", inst, 1, 0)
    with pytest.raises(UserError, match="the seed must be >= 0"):
        make_environment("oam", inst, -1, 0)
    with pytest.raises(UserError, match="the trial must be an integer >= 0"):
        make_environment("oam", inst, 1, -2)
    with pytest.raises(UserError, match="the oam environment has no option 'noise'"):
        make_environment("oam", inst, 1, 0, noise="gaussian")
    with pytest.raises(UserError, match="arm 3 is not an arm"):
        make_environment("oam", inst, 1, 0).step(3)
    with pytest.raises(UserError, match="step_many takes integer arms 0..2"):
        make_environment("oam", inst, 1, 0).step_many([0.5])


def test_experiment_environment_is_the_pipelines_run(monkeypatch):
    from linbandits import experiments
    from linbandits.study_config import read_config

    monkeypatch.chdir(REPO)
    config = read_config(REPO / ".test" / "config" / "config.yaml")
    env = linbandits.experiment_environment("oam_fixed_u01", None, 2, config=config)
    exp = experiments.experiments(config)["oam_fixed_u01"]
    setting = exp.setting_ids()[0]
    assert env.seed == experiments.seed_of(config, exp, setting) and env.trial == 2
    built = catalogue.build_instance(exp.instance, exp.instance_settings(setting)).to_arrays()
    assert all(np.array_equal(a, built[k]) for k, a in env.instance.to_arrays().items())
    with pytest.raises(UserError, match="is not an experiment of the config"):
        linbandits.experiment_environment("nope", None, 0, config=config)
    with pytest.raises(UserError, match="has no setting 'u9'"):
        linbandits.experiment_environment("oam_fixed_u01", "u9", 0, config=config)
    with pytest.raises(UserError, match="no config file missing.yaml"):
        linbandits.experiment_environment("oam_fixed_u01", None, 0, config="missing.yaml")


def test_experiment_environment_takes_the_noise_model_the_paper_algorithms_run_with():
    from linbandits.study_config import read_config

    config = read_config(REPO / ".test" / "config" / "config.yaml")
    opkb = config["studies"]["opkb"]
    name = next(n for n, e in opkb["experiments"].items() if e["instance"] != "opkb_cosine")
    opkb["options"] = {a: {**(opkb.get("options") or {}).get(a, {}), "noise": "gaussian"} for a in opkb["algorithms"]}
    assert linbandits.experiment_environment(name, None, 0, config=config).options == {"noise": "gaussian"}


def test_the_algorithm_generator_is_its_own_stream():
    env = make_environment("oam", small_instance("oam_fixed"), 4, 1)
    own = env.algorithm_generator().random(5)
    assert np.array_equal(own, np.random.default_rng([4, 1, ALGORITHM_PURPOSE]).random(5))
    assert not np.array_equal(own, np.random.default_rng([4, 1]).random(5))


class Lazy(SteppedAlgorithm):
    name = "Lazy"
    study = "oam"

    def play(self, env):
        env.step(0)


class NoStudy(SteppedAlgorithm):
    name = "NoStudy"
    kinds = ("contextual",)

    def play(self, env):
        pass


class NoPlay(SteppedAlgorithm):
    name = "NoPlay"
    study = "oam"


def test_a_stepped_algorithm_that_misbehaves_is_one_line():
    inst = small_instance("oam_fixed")
    assert Lazy.kinds == ("contextual",)
    with pytest.raises(UserError, match="stepped 1 of its 60 rounds"):
        Lazy(inst).simulate(0, 1)
    with pytest.raises(UserError, match="NoStudy sets no `study`"):
        NoStudy(inst).simulate(0, 1)
    with pytest.raises(NotImplementedError, match="NoPlay does not implement play"):
        NoPlay(inst).simulate(0, 1)


def test_an_experiment_on_data_reads_the_pipelines_instance_file_or_says_how_to_build_it(tmp_path, monkeypatch):
    from linbandits import experiments, paths
    from linbandits.problems import save_instance
    from linbandits.study_config import read_config

    config = read_config(REPO / ".test" / "config" / "config.yaml")
    monkeypatch.chdir(tmp_path)
    exp = experiments.experiments(config)["exp3_yahoo"]
    path = paths.instance_path(config, exp, exp.setting_ids()[0])
    with pytest.raises(UserError, match=f"build it first: snakemake --cores 2 {path}"):
        linbandits.experiment_environment("exp3_yahoo", None, 0, config=config)
    sets = ArmSetsInstance(name="sets", arm_sets=np.stack([np.eye(3), 2 * np.eye(3)]), theta=np.array([0.5, 0.1, 0.0]))
    Path(path).parent.mkdir(parents=True)
    save_instance(path, sets)
    env = linbandits.experiment_environment("exp3_yahoo", None, 1, config=config)
    assert np.array_equal(env.arms, 2 * np.eye(3)) and env.seed == experiments.seed_of(config, exp, exp.setting_ids()[0])
