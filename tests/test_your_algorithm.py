"""A user's algorithm beside a study's (issue 37, docs/your-algorithm.md).

- Refused before any job, one line naming the algorithm and the fix: not an Algorithm, neither run nor
  run_many, a wrong signature, kinds the study's instances are not, a paper algorithm's name, an import
  error, a missing file or class, an experiment its study does not have.
- A broken one fails its own job in one line naming the algorithm and the job (it raises; it returns the
  wrong columns or shape), writes nothing, and leaves the paper's files untouched.
- With `extra_algorithms` empty nothing changes; with it, the paper's simulate plans and seeds are
  the same (its results cannot change).
- The comparison engine: a planted equal twin is inconclusive (no difference) everywhere, a worse one is
  found worse; planted bugs (an unpaired analysis, a sign flip, no multiplicity control, intervals printed
  at another level than the decision's) make these checks fail.
- End to end through the real Snakemake (.test's P1-RAGE slice, --cores 1): the example, a twin of
  G-BAI and a guesser; the tables gain their rows, the figures their series and still pass the print
  checks, the claims report its sections; then three broken algorithms fail in one line each, the
  paper's files unchanged.
"""
import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import yaml

from linbandits import catalogue, experiments, jobs
from linbandits.user import algorithms as user_algorithms
from linbandits.user import comparison
from linbandits.errors import UserError
from linbandits.study_config import read_config
from linbandits.validation import validate_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
TEST_CONFIG = REPO / ".test" / "config" / "config.yaml"
EXAMPLE = REPO / "examples" / "p1rage_uniform" / "uniform.py"

USER_CODE = textwrap.dedent('''
    import numpy as np
    from linbandits.streams import generator
    from linbandits.study import Algorithm, Records, Run
    from linbandits.studies.p1rage.algorithms.g_bai import GBAI


    class Twin(GBAI):             # G-BAI under another name: the planted equal twin
        name = "Twin"


    class Guess(Algorithm):       # recommends a uniformly random arm: deliberately worse
        kinds = ("linear",)

        def run(self, seed, trial):
            arm = int(generator(seed, trial, 7).integers(self.instance.K))
            return Run(columns={"recommended": arm, "correct": int(arm == self.instance.best_arm)})


    class Raises(Guess):
        def run(self, seed, trial):
            return 1 / 0


    class NoColumns(Guess):
        def run(self, seed, trial):
            return Run(columns={"recommended": 0})


    class BadShape(Guess):
        def run_many(self, seed, trials, progress=None):
            return Records(columns={"recommended": np.zeros((len(trials), 2)), "correct": np.zeros((len(trials), 2))})


    class NotAlgorithm:
        kinds = ("linear",)

        def run(self, seed, trial):
            pass


    class NoRun(Algorithm):
        kinds = ("linear",)


    class BadSignature(Guess):
        def run(self, seed):
            pass


    class WrongKinds(Guess):
        kinds = ("contextual",)


    class Installed(Guess):       # as an installed package would declare it: its study named
        study = "p1rage"
''')


@pytest.fixture(scope="module")
def user_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("user") / "user_algs.py"
    path.write_text(USER_CODE)
    (path.parent / "broken_import.py").write_text("import no_such_module_here\n")
    return path


def test_config(extra=None, **more) -> dict:
    config = read_config(TEST_CONFIG)
    if extra is not None:
        config["extra_algorithms"] = extra
    config.update(more)
    return config


test_config.__test__ = False


# ---------------------------------------------------------------- refused before any job

BAD = [
    ("Plain", "{f}:NotAlgorithm", "not a subclass of linbandits.study.Algorithm"),
    ("NoRun", "{f}:NoRun", "implements neither run"),
    ("Sig", "{f}:BadSignature", "has the signature run(self, seed); write run(self, seed, trial)"),
    ("Kinds", "{f}:WrongKinds", "runs on linear instances; set kinds = ('linear',)"),
    ("G-BAI", "{f}:Guess", "is the paper's algorithm of study p1rage; give yours another name"),
    ("Imp", "{d}/broken_import.py:X", "importing"),
    ("Gone", "{d}/no_such_file.py:X", "no file"),
    ("NoClass", "{f}:Missing", "has no attribute 'Missing'"),
    ("Mod", "no_such_package.algs:X", "importing no_such_package.algs failed (ModuleNotFoundError"),
    ("My+Alg", "{f}:Guess", "is not usable in file paths"),
]


@pytest.mark.parametrize("name,target,expected", BAD, ids=[b[0] for b in BAD])
def test_a_bad_user_algorithm_is_one_line_naming_it_and_the_fix(user_file, name, target, expected):
    target = target.format(f=user_file, d=user_file.parent)
    with pytest.raises(UserError) as err:
        validate_config(test_config({"p1rage": {name: target}}), SCHEMA)
    message = str(err.value)
    assert "\n" not in message
    assert name in message and expected in message, message


def test_an_experiment_the_study_lacks_is_refused(user_file):
    extra = {"p1rage": {"Guess": {"class": f"{user_file}:Guess", "experiments": ["soare_stoo"]}}}
    with pytest.raises(UserError, match=r"Guess/experiments: 'soare_stoo' is not an experiment of p1rage"):
        validate_config(test_config(extra), SCHEMA)


def test_a_malformed_entry_is_refused_by_the_schema(user_file):
    with pytest.raises(UserError, match="extra_algorithms/p1rage/Guess"):
        validate_config(test_config({"p1rage": {"Guess": {"klass": "x:Y"}}}), SCHEMA)


def test_a_good_user_algorithm_passes_and_joins_the_published_experiments_only(user_file):
    config = test_config({"p1rage": {"Guess": f"{user_file}:Guess"}})
    validate_config(config, SCHEMA)
    exps = experiments.study_experiments(config, "p1rage")
    published = [e for e in exps.values() if not e.switch_of]
    assert published and all("Guess" in e.algorithms for e in published)
    assert all("Guess" not in e.algorithms for e in exps.values() if e.switch_of)


def test_a_restricted_one_runs_only_where_listed(user_file):
    extra = {"p1rage": {"Guess": {"class": f"{user_file}:Guess", "experiments": ["malicious"]}}}
    exps = experiments.study_experiments(test_config(extra), "p1rage")
    assert [n for n, e in exps.items() if "Guess" in e.algorithms] == ["malicious"]


def installed(monkeypatch, user_file, value):
    from importlib.metadata import EntryPoint

    monkeypatch.syspath_prepend(str(user_file.parent))
    monkeypatch.setattr(user_algorithms, "entry_points",
                        lambda: (EntryPoint(name="Installed", value=value, group=user_algorithms.ENTRY_POINT_GROUP),))


def test_an_entry_point_joins_its_study_like_a_config_entry(monkeypatch, user_file):
    installed(monkeypatch, user_file, "user_algs:Installed")
    config = test_config()
    validate_config(config, SCHEMA)
    exps = experiments.study_experiments(config, "p1rage")
    assert all("Installed" in e.algorithms for e in exps.values() if not e.switch_of)
    task = tasks_of(config, exps["malicious"])[("Installed", 0)]
    assert (task["study"], task["user_class"]) == ("p1rage", "user_algs:Installed")
    # a config entry of the same name overrides it (here: runs nowhere)
    quiet = test_config({"p1rage": {"Installed": {"class": "user_algs:Installed", "experiments": []}}})
    assert not any("Installed" in e.algorithms for e in experiments.experiments(quiet).values())


def test_an_entry_point_without_its_study_is_one_line(monkeypatch, user_file):
    installed(monkeypatch, user_file, "user_algs:Guess")
    with pytest.raises(UserError, match=r"entry point linbandits.algorithms: Installed = user_algs:Guess: the class "
                                        r"sets no `study` attribute; add study = "):
        validate_config(test_config(), SCHEMA)


# ---------------------------------------------------------------- the paper's runs unchanged

def tasks_of(config, exp) -> dict:
    """(algorithm, first run) -> the task of every simulate job of the experiment (its plan's)."""
    return {(t["algorithm"], t["first_trial"]): t for r in jobs.simulate_rules(config, [exp]) for w in r.wildcards
            for t in r.plan(w)["tasks"]}


def paper_tasks(config) -> dict:
    return {(exp.name, *key): task for exp in experiments.experiments(config).values()
            for key, task in tasks_of(config, exp).items() if not user_algorithms.is_user_algorithm(key[0])}


def test_empty_extra_algorithms_changes_nothing(user_file):
    plain = test_config()
    assert experiments.experiments(test_config({})) == experiments.experiments(plain)
    assert experiments.experiments(test_config({"p1rage": None})) == experiments.experiments(plain)


def test_the_paper_plans_and_seeds_are_the_same_with_a_user_algorithm(user_file):
    plain, extra = test_config(), test_config({"p1rage": {"Guess": f"{user_file}:Guess"}})
    assert paper_tasks(plain) == paper_tasks(extra)
    tasks = tasks_of(extra, experiments.experiments(extra)["soare_sto"])
    assert tasks[("Guess", 0)]["user_class"] == f"{user_file}:Guess"
    # the user's job reads the same instances and seeds, cell for cell, as G-BAI's (common random numbers)
    assert [(c["instance"], c["seed"], c["out"].replace("/Guess/", "/X/")) for c in tasks[("Guess", 0)]["cells"]] == \
        [(c["instance"], c["seed"], c["out"].replace("/G-BAI/", "/X/")) for c in tasks[("G-BAI", 0)]["cells"]]


# ---------------------------------------------------------------- a broken one fails its own job in one line

def simulate(user_file, name, out):
    return subprocess.run([sys.executable, "-m", "linbandits", "simulate", "--instance", "malicious", "--setting",
                           "T=60", "--algorithm", name, "--user-algorithm", f"p1rage/{name}={user_file}:{name}",
                           "--trials", "3", "--seed", "5", "--out", str(out)], capture_output=True, text=True)


@pytest.mark.parametrize("name,expected", [
    ("Raises", "user algorithm Raises failed in malicious[T=60]: ZeroDivisionError: division by zero (at user_algs.py:"),
    ("NoColumns", "user algorithm NoColumns in malicious[T=60]: its runs lack the column(s) correct"),
    ("BadShape", "user algorithm BadShape in malicious[T=60]: column 'recommended' has shape (3, 2), not (3,)"),
])
def test_a_broken_run_is_one_line_naming_it_and_writes_nothing(user_file, tmp_path, name, expected):
    out = tmp_path / "cell.csv"
    res = simulate(user_file, name, out)
    assert res.returncode == 2
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and expected in errors[0] and "Traceback" not in res.stderr, res.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_good_run_of_the_cli_writes_the_study_columns(user_file, tmp_path):
    out = tmp_path / "cell.csv"
    res = simulate(user_file, "Guess", out)
    assert res.returncode == 0, res.stderr
    assert out.read_text().splitlines()[0] == "trial,recommended,correct"


# ---------------------------------------------------------------- the comparison engine

ALPHA = 0.05


def judged(cases, metric="regret") -> list[dict]:
    """Rows of (mine, theirs) runs judged together, as the section judges a user algorithm's family."""
    rows = [comparison.row("e", f"s{i}", "P", False, mine, theirs, metric, ALPHA) for i, (mine, theirs) in
            enumerate(cases)]
    comparison.holm(rows, ALPHA)
    return rows


def regret_cases(shift: float, n: int = 40, seed: int = 3):
    """Regrets of a paper algorithm that vary a lot from run to run (the instance's draw), and the user's:
    the same runs plus `shift` plus a little noise of its own. Paired, `shift` is plain; unpaired, it drowns."""
    rng = np.random.default_rng(seed)
    theirs = rng.normal(100.0, 30.0, n)
    return theirs + shift + rng.normal(0.0, 1.0, n), theirs


def error_cases(p_mine: float, p_theirs: float, n: int = 200, seed: int = 4):
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    return (u < p_mine).astype(int), (u < p_theirs).astype(int)   # common random numbers: nested errors


def test_an_equal_twin_is_no_difference_everywhere():
    theirs = regret_cases(0.0)[1]
    errs = error_cases(0.3, 0.3)[1]
    rows = judged([(theirs, theirs)] * 3) + judged([(errs, errs)] * 3, metric="error")
    assert [r["verdict"] for r in rows] == ["inconclusive"] * 6
    assert all(r["identical"] and r["difference"] == 0 for r in rows)
    assert all(r["low"] <= 0 <= r["high"] for r in rows)
    assert [(r["low"], r["high"]) for r in rows[:3]] == [(0.0, 0.0)] * 3     # paired: exactly no difference


def test_a_worse_one_is_found_worse_and_a_better_one_better():
    worse, better = judged([regret_cases(2.0)]), judged([regret_cases(-2.0)])
    assert worse[0]["verdict"] == "worse" and better[0]["verdict"] == "better"
    assert judged([error_cases(0.6, 0.2)], metric="error")[0]["verdict"] == "worse"
    assert judged([error_cases(0.2, 0.6)], metric="error")[0]["verdict"] == "better"


def unpaired(mine, theirs, metric, alpha):
    from linbandits.claims import estimates

    if metric == "error":
        return estimates.proportion_difference(int(mine.sum()), mine.size, int(theirs.sum()), theirs.size, alpha)
    return estimates.mean_difference(mine, theirs, alpha, paired=False)


def test_planted_unpaired_analysis_loses_the_worse_one(monkeypatch):
    monkeypatch.setattr(comparison, "paired_estimate", unpaired)
    assert judged([regret_cases(2.0)])[0]["verdict"] == "inconclusive"        # the check above would fail
    twin = judged([(regret_cases(0.0)[1],) * 2])[0]
    assert twin["high"] - twin["low"] > 10                                      # no longer exactly no difference


def test_planted_sign_flip_is_caught(monkeypatch):
    monkeypatch.setattr(comparison, "verdict_of",
                        lambda low, high, null=0.0: "worse" if high < null else "better" if low > null else
                        "inconclusive")
    assert judged([regret_cases(2.0)])[0]["verdict"] == "better"


def holm_cases(shift: float = 0.36):
    """One comparison significant at 5% alone (the difference's p about 0.01; with shift 0.45 the ratio's too,
    p about 0.015) among nine with no difference."""
    rng = np.random.default_rng(9)
    cases = []
    for i in range(10):
        theirs = rng.normal(100.0, 30.0, 40)
        d = rng.normal(0.0, 1.0, 40)
        d = d - d.mean() + (shift if i == 0 else 0.0)         # t about 2.6 for the first at 0.36
        cases.append((theirs + d, theirs))
    return cases


def test_holm_keeps_a_lone_nominal_hit_inconclusive_and_agrees_with_its_intervals():
    rows = judged(holm_cases())
    assert 0.005 < rows[0]["p_difference"] < 0.05
    assert [r["verdict"] for r in rows] == ["inconclusive"] * 10
    assert rows[0]["level"] == pytest.approx(ALPHA / 10)
    assert comparison.disagreements(rows) == []


def test_planted_no_multiplicity_control_is_caught(monkeypatch):
    monkeypatch.setattr(comparison, "holm", lambda rows, alpha: [r.update(
        level=alpha, **dict(zip(("low", "high"), comparison.interval_at(r["estimate"], alpha))),
        verdict=comparison.verdict_of(*comparison.interval_at(r["estimate"], alpha))) for r in rows])
    assert judged(holm_cases())[0]["verdict"] == "worse"


def test_planted_interval_at_another_level_than_the_decision_is_caught(monkeypatch):
    real = comparison.holm

    def printed_nominal(rows, alpha):
        real(rows, alpha)
        for r in rows:    # the decision kept, the intervals printed at the unadjusted level
            r["low"], r["high"] = comparison.interval_at(r["estimate"], alpha)
            r["ratio_low"], r["ratio_high"] = comparison.interval_at(r["ratio"], alpha)

    monkeypatch.setattr(comparison, "holm", printed_nominal)
    assert comparison.disagreements(judged(holm_cases(0.45))) != []


def test_holm_steps_down():
    # three strong differences and one null: the strong ones decided at alpha/4, alpha/3, alpha/2
    rows = judged([regret_cases(5.0, seed=s) for s in (1, 2, 3)] + [regret_cases(0.0, seed=4)])
    assert [r["verdict"] for r in rows[:3]] == ["worse"] * 3
    assert sorted(round(ALPHA / r["level"]) for r in rows[:3]) == [2, 3, 4]
    assert rows[3]["verdict"] == "inconclusive" and rows[3]["level"] == pytest.approx(ALPHA)


# ---------------------------------------------------------------- end to end through Snakemake

def small_config(workdir: Path, extra: dict) -> Path:
    """.test's P1-RAGE slice: soare_sto (T = 10 and 1010, 120 runs) and malicious, two figures."""
    config = yaml.safe_load(TEST_CONFIG.read_text())
    p1 = read_config(TEST_CONFIG)["studies"]["p1rage"]
    # null drops a default experiment or figure (linbandits.study_config.deep_merge)
    experiments = {k: None for k in p1["experiments"] if k not in ("soare_sto", "malicious")}
    experiments["soare_sto"] = {"values": [10, 1010], "trials": 120}
    figures = {k: None for k in p1["figures"] if k not in ("fig2a_soare_sto", "fig4_malicious")}
    config["studies"] = {"p1rage": {"experiments": experiments, "published": {"r6a": None}, "figures": figures, "switches": []},
                         **{s: {"enabled": False} for s in catalogue.studies() if s != "p1rage"}}
    config["extra_algorithms"] = extra
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return workdir


def paper_files(workdir: Path) -> dict:
    """Every raw chunk of the paper's algorithms and every product, with its digest."""
    user = {"Uniform", "Twin", "Guess", "Raises", "NoColumns", "BadShape"}
    raw = [p for p in (workdir / "results" / "p1rage" / "raw").rglob("*") if p.is_file() and p.parent.name not in user]
    products = [p for d in ("figures", "results/p1rage/tables") for p in (workdir / d).rglob("*") if p.is_file()]
    products += list((workdir / "results" / "p1rage").glob("claims.*"))
    return {str(p.relative_to(workdir)): hashlib.sha256(p.read_bytes()).hexdigest() for p in raw + products}


@pytest.fixture(scope="module")
def example_run(tmp_path_factory, user_file, snakemake):
    workdir = small_config(tmp_path_factory.mktemp("yours"), {"p1rage": {
        "Uniform": f"{EXAMPLE}:Uniform", "Twin": f"{user_file}:Twin", "Guess": f"{user_file}:Guess"}})
    snakemake(workdir, "--cores", "1", "p1rage")
    return workdir


def section_rows(workdir: Path) -> dict:
    import json

    return json.loads((workdir / "results" / "p1rage" / "comparison.json").read_text())["comparisons"]


def test_the_example_runs_end_to_end_and_the_report_gains_its_sections(example_run):
    text = (example_run / "results" / "p1rage" / "claims.md").read_text()
    for name in ("Uniform", "Twin", "Guess"):
        assert f"## {name} against the paper's algorithms" in text
    rows = section_rows(example_run)
    paper = ["G-BAI", "P1-RAGE", "P1-Peace", "Peace", "Mixed-Peace", "OD-LinBAI"]
    cells = [("soare_sto", "T10"), ("soare_sto", "T1010"), ("malicious", "single")]
    for name in ("Uniform", "Twin", "Guess"):
        assert sorted((r["experiment"], r["setting"], r["against"]) for r in rows[name]) == \
            sorted((e, s, a) for e, s in cells for a in paper)
        assert comparison.disagreements(rows[name]) == []
        assert sum(r["best"] for r in rows[name]) == len(cells)


def test_the_equal_twin_is_no_difference_against_its_original(example_run):
    rows = [r for r in section_rows(example_run)["Twin"] if r["against"] == "G-BAI"]
    assert len(rows) == 3
    assert all(r["identical"] and r["difference"] == 0 and r["verdict"] == "inconclusive" for r in rows)


def test_the_guesser_is_found_worse_than_the_paper_best(example_run):
    best = {(r["experiment"], r["setting"]): r["verdict"] for r in section_rows(example_run)["Guess"] if r["best"]}
    assert best[("soare_sto", "T1010")] == "worse" and best[("malicious", "single")] == "worse"


def test_the_tables_gain_rows_and_the_figures_series_that_pass_the_print_checks(example_run, monkeypatch):
    import pandas as pd

    from linbandits import figure_checks
    from test_figures_fit import drawn_figures

    table = pd.read_csv(example_run / "results" / "p1rage" / "tables" / "soare_sto.csv")
    assert {"Uniform", "Twin", "Guess"} <= set(table["algorithm"])
    found = drawn_figures(example_run, monkeypatch, "p1rage", figure_checks.figure_problems)
    assert found and [(stem, problems) for stem, problems in found if problems] == []


def test_a_user_series_is_drawn_in_the_user_style(example_run, monkeypatch):
    from linbandits import plotting
    from test_figures_fit import drawn_figures

    styles = {}

    def record(fig):
        for ax in fig.axes:
            for line in ax.get_lines():
                styles[line.get_label()] = (line.get_color(), line.get_marker())
        return []

    drawn_figures(example_run, monkeypatch, "p1rage", record)
    # the equal twin's curve lies on G-BAI's, and its legend entry says so
    assert "Twin (on G-BAI)" in styles
    styles = {label.split(" (on ")[0]: style for label, style in styles.items()}
    assert styles.get("Uniform") == plotting.USER_STYLE                     # the first declared: a black star
    assert [styles.get(n) for n in ("Twin", "Guess")] == [(plotting.USER_COLOUR, m) for m in plotting.USER_MARKERS[1:3]]
    assert styles.get("G-BAI", (None,))[0] not in (None, plotting.USER_COLOUR)


def test_the_paper_claims_are_the_same_without_the_user_algorithms(example_run, monkeypatch, tmp_path):
    import json

    from linbandits import products

    mine = json.loads((example_run / "results" / "p1rage" / "claims.json").read_text())
    config = yaml.safe_load((example_run / "results" / "p1rage" / "config.yaml").read_text())
    config["extra_algorithms"] = {}
    (tmp_path / "plain.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.chdir(example_run)
    claims = products.Context(config, "p1rage").claims_paths()
    before = {p: Path(p).read_bytes() for p in claims}
    try:
        assert products.main(["--study", "p1rage", "--kind", "claims", "--config", str(tmp_path / "plain.yaml")]) == 0
        plain = json.loads(Path(claims[1]).read_text())
    finally:
        for p, data in before.items():
            Path(p).write_bytes(data)
    assert plain["claims"] == mine["claims"]


def test_broken_user_algorithms_fail_their_own_jobs_and_leave_the_paper_files(example_run, user_file, snakemake,
                                                                              tmp_path):
    import shutil

    workdir = tmp_path / "broken"
    shutil.copytree(example_run, workdir, symlinks=True)
    before = paper_files(workdir)
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    config["extra_algorithms"]["p1rage"].update({
        name: {"class": f"{user_file}:{name}", "experiments": ["malicious"]}
        for name in ("Raises", "NoColumns", "BadShape")})
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    out = snakemake(workdir, "--cores", "1", "--keep-going", "p1rage", check=False)
    assert out.returncode != 0
    logs = {p.parent.name: p.read_text().strip().splitlines()
            for p in (workdir / "logs" / "p1rage" / "simulate" / "malicious").glob("*/chunk*.log")}
    for name, words in (("Raises", "failed in malicious/single chunk0-19: ZeroDivisionError"),
                        ("NoColumns", "in malicious/single chunk0-19: its runs lack the column(s) correct"),
                        ("BadShape", "in malicious/single chunk0-19: column 'recommended' has shape (20, 2)")):
        errors = [line for line in logs[name] if line.startswith("error:")]
        assert len(errors) == 1 and f"user algorithm {name}" in errors[0] and words in errors[0], logs[name]
        assert not list((workdir / "results" / "p1rage" / "raw" / "malicious" / "single" / name).glob("*.csv"))
    assert paper_files(workdir) == before


def test_a_bad_user_algorithm_stops_the_workflow_before_any_job(user_file, snakemake, tmp_path):
    workdir = small_config(tmp_path, {"p1rage": {"Sig": f"{user_file}:BadSignature"}})
    out = snakemake(workdir, "-n", "--cores", "1", "p1rage", check=False)
    assert out.returncode != 0
    assert "Sig.run has the signature run(self, seed); write run(self, seed, trial)" in out.stderr + out.stdout
    assert not (workdir / "results").exists()



def test_the_oam_example_meets_the_paper_algorithms_random_numbers():
    """examples/oam_egreedy reads OAM's documented stream itself: the same theta, contexts and noise as
    the study's algorithms in the same run (common random numbers)."""
    from linbandits.catalogue import build_instance
    from linbandits.studies.oam.streams import run_stream

    target = f"{REPO / 'examples' / 'oam_egreedy' / 'egreedy.py'}:EpsGreedy"
    user_algorithms.register("EpsGreedy", target, "oam")
    instance = build_instance("oam_circle", {"K": 5, "random_theta": True, "horizon": 50})
    theta, contexts, noise = user_algorithms.algorithm_class("EpsGreedy")(instance).stream(3, 7)
    study = run_stream(instance, 3, 7)
    assert np.array_equal(theta, study.theta) and np.array_equal(contexts, study.contexts)
    assert np.array_equal(noise, study.noise)
