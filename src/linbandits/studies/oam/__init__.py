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
    commands={
        "oam-aggregate": (f"{_P}.aggregate:main_aggregate", "chunks of every experiment -> checked regret curves + C"),
        "oam-figures": (f"{_P}.figures:main_figures", "draw Figs. 1-4 and the switch figures"),
        "oam-table": (f"{_P}.final_table:main_table", "the final-regret table of every (experiment, algorithm)"),
        "oam-claims": (f"{_P}.claims:main_claims", "check claims C1-C8, and again under the switches"),
    },
)
