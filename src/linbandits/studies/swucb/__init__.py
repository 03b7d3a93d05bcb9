"""Cheung, Simchi-Levi, Zhu: Learning to Optimize under Non-Stationarity (AISTATS 2019):
SW-UCB, Bandit-over-Bandit and the EXP3.S baseline on a drifting two-armed bandit."""
from linbandits.study import Study

_S = "linbandits.studies.swucb"

STUDY = Study(
    name="swucb",
    paper="Cheung, Simchi-Levi, Zhu: Learning to Optimize under Non-Stationarity (AISTATS 2019)",
    algorithms={
        "SW-UCB": f"{_S}.algorithms:SWUCB",
        "BOB": f"{_S}.algorithms:BOB",
        "EXP3.S": f"{_S}.algorithms:EXP3S",
    },
    families={"swucb_sinusoid": f"{_S}.instances:swucb_sinusoid"},
    commands={
        "swucb-tables": (f"{_S}.results:main_tables", "regret, slope, ratio and variation tables from the runs"),
        "swucb-figure": (f"{_S}.figures:main_figure", "log-log regret vs T figure (Figs. 1-2)"),
        "swucb-claims": (f"{_S}.claims:main_claims", "check the paper's claims C1-C5 on the tables"),
    },
)
