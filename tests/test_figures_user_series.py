"""Every study's figures draw a user's own algorithm beside the paper's (extra_algorithms,
docs/your-algorithm.md; issue 47): on a copy of the .test run with one user algorithm per study (a paper
algorithm under another name, one of them with an option of its own left at its default), each study's
figures draw the user's series (gid series:<experiment>/<name>) in the user look, inside the canvas and
passing the print checks, and its legend entry leaves the option at its default out. Planted: lingape's
figures as they were (the panel entries only) lose the user's series, and the check says so."""
import shutil
import textwrap

import pytest
import yaml
from matplotlib.figure import Figure

from linbandits import cli, figure_checks, plotting

USER_CODE = textwrap.dedent('''
    from linbandits.studies.lingape.algorithms import XYStatic
    from linbandits.studies.oam.algorithms.linucb import LinUCB
    from linbandits.studies.opkb.algorithms import WGPUCB
    from linbandits.studies.p1rage.algorithms.g_bai import GBAI
    from linbandits.studies.swucb.algorithms import SWUCB


    class MineP1(GBAI):
        name = "Mine-P1"


    class MineLG(XYStatic):
        name = "Mine-LG"


    class MineSW(SWUCB):          # an option of its own, at its default: not named in a legend
        name = "Mine-SW"
        defaults = {**SWUCB.defaults, "gamma": 0.0}


    class MineOAM(LinUCB):
        name = "Mine-OAM"


    class MineKB(WGPUCB):
        name = "Mine-KB"
''')

# study -> (the user's algorithm, its class, the one experiment it runs in)
USERS = {"p1rage": ("Mine-P1", "MineP1", "soare_sto"), "lingape": ("Mine-LG", "MineLG", "exp2_canonical"),
         "swucb": ("Mine-SW", "MineSW", "swucb_fig1"), "oam": ("Mine-OAM", "MineOAM", "oam_fixed_u01"),
         "opkb": ("Mine-KB", "MineKB", "opkb_env1")}


@pytest.fixture(scope="module")
def user_run(finished_run, tmp_path_factory, snakemake):
    """The .test run again with the five user algorithms: only their jobs and what reads them run."""
    full_run = finished_run[0]
    workdir = tmp_path_factory.mktemp("user_series") / "run"
    shutil.copytree(full_run, workdir, ignore=shutil.ignore_patterns(".snakemake"))
    (workdir / "mine.py").write_text(USER_CODE)
    config = yaml.safe_load((workdir / "config" / "config.yaml").read_text())
    config["extra_algorithms"] = {study: {name: {"class": f"mine.py:{cls}", "experiments": [experiment]}}
                                  for study, (name, cls, experiment) in USERS.items()}
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    snakemake(workdir, "--cores", "2")
    return workdir


def figures_of(workdir, monkeypatch, study) -> list[Figure]:
    """Every figure of the study, drawn again in-process from the run's files."""
    monkeypatch.chdir(workdir)
    drawn = []
    original = Figure.savefig

    def keep(self, fname, *args, **kwargs):
        if str(kwargs.get("format", "")) == "pdf":
            drawn.append(self)
        return original(self, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    assert cli.main(["products", "--study", study, "--kind", "figure", "--config", f"results/{study}/config.yaml"]) == 0
    return drawn


def user_series_problems(figures, study) -> list[str]:
    name, _, experiment = USERS[study]
    problems = []
    if not any(f"{experiment}/{name}" in figure_checks.drawn_series(fig) for fig in figures):
        problems.append(f"{study}: no figure draws {name}'s series of {experiment}")
    for fig in figures:
        lines = [line for ax in fig.axes for line in ax.get_lines()
                 if line.get_gid() == plotting.series_gid(experiment, name)]
        looks = {(line.get_color(), line.get_marker()) for line in lines}
        if any(colour != plotting.USER_COLOUR or marker not in plotting.USER_MARKERS for colour, marker in looks):
            problems.append(f"{study}: {name} drawn as {looks}, not in the user look (black, a user marker)")
        entries = [t.get_text() for legend in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
                   for t in legend.get_texts() if name in t.get_text()]
        problems += [f"{study}: an option at its default in the legend entry {e!r}" for e in entries if "gamma" in e]
        problems += [f"{study}: {p}" for p in plotting.outside_canvas(fig) + figure_checks.figure_problems(fig)]
    return problems


@pytest.mark.parametrize("study", list(USERS))
def test_every_study_draws_the_user_series(user_run, monkeypatch, study):
    assert user_series_problems(figures_of(user_run, monkeypatch, study), study) == []


def test_planted_figures_without_the_user_series_are_caught(user_run, monkeypatch):
    from linbandits.studies.lingape import figures as lingape_figures

    monkeypatch.setattr(lingape_figures.user_algorithms, "user_algorithms_of", lambda names: [])
    found = user_series_problems(figures_of(user_run, monkeypatch, "lingape"), "lingape")
    assert found == ["lingape: no figure draws Mine-LG's series of exp2_canonical"]
