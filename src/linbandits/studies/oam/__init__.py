"""Hao, Lattimore, Szepesvari (AISTATS 2020): Adaptive Exploration in Linear Contextual Bandit.
The asymptotic lower bound C(theta), OAM and its baselines, Figs. 1-4 and claims C1-C8."""
from linbandits.study import Study

_P = "linbandits.studies.oam"

STUDY = Study(
    name="oam",
    paper="Hao, Lattimore, Szepesvari: Adaptive Exploration in Linear Contextual Bandit (AISTATS 2020)",
    algorithms={
        "OAM": f"{_P}.algorithms.oam:OAM",
        "LinUCB": f"{_P}.algorithms.linucb:LinUCB",
        "OSSB": f"{_P}.algorithms.ossb:OSSB",
        "LinTS": f"{_P}.algorithms.lints:LinTS",
        "LinTS-heuristic": f"{_P}.algorithms.lints:LinTSHeuristic",
    },
    families={
        "oam_fixed": f"{_P}.instances:oam_fixed",
        "oam_scenario_one": f"{_P}.instances:oam_scenario_one",
        "oam_two_contexts": f"{_P}.instances:oam_two_contexts",
        "oam_circle": f"{_P}.instances:oam_circle",
    },
    kinds={"contextual": f"{_P}.instances:ContextualInstance"},
    curves=True,
    products=f"{_P}.products:products",
    panel_lists=("overlay",),   # switch runs drawn on the same panel
    columns=("regret",),   # what its products read; a user's algorithm returns them (issue 37)
    environment="linbandits.studies.oam.environment:OamEnvironment",
)
