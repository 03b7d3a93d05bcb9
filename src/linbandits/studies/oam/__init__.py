"""Hao, Lattimore, Szepesvari (AISTATS 2020): Adaptive Exploration in Linear Contextual Bandit.
The asymptotic lower bound C(theta), OAM and its baselines, Figs. 1-4 and claims C1-C8."""
from linbandits.study import Study

_P = "linbandits.studies.oam"

STUDY = Study(
    name="oam",
    paper="Hao, Lattimore, Szepesvari: Adaptive Exploration in Linear Contextual Bandit (AISTATS 2020)",
    algorithms={
        "OAM": f"{_P}.oam:OAM",
        "LinUCB": f"{_P}.linucb:LinUCB",
        "OSSB": f"{_P}.ossb:OSSB",
        "LinTS": f"{_P}.lints:LinTS",
        "LinTS-heuristic": f"{_P}.lints:LinTSHeuristic",
    },
    families={
        "oam_fixed": f"{_P}.instance:oam_fixed",
        "oam_scenario_one": f"{_P}.instance:oam_scenario_one",
        "oam_two_contexts": f"{_P}.instance:oam_two_contexts",
        "oam_circle": f"{_P}.instance:oam_circle",
    },
    kinds={"contextual": f"{_P}.instance:ContextualInstance"},
    curves=True,
    products=f"{_P}.products:products",
    columns=("regret",),   # what its products read; a user's algorithm returns them (issue 37)
)
