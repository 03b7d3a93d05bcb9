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
    products=f"{_S}.products:products",
    panel_lists=("also",),      # further experiments drawn in the same panel
    columns=("regret",),   # what its products read; a user's algorithm returns them (issue 37)
    environment="linbandits.studies.swucb.environment:SwucbEnvironment",
)
