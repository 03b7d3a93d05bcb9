"""Xu, Honda, Sugiyama: Fully adaptive algorithm for pure exploration in linear bandits
(AISTATS 2018): LinGapE against Soare et al.'s XY allocations, fixed-confidence BAI."""
from linbandits.study import ExternalInstance, Study

_P = "linbandits.studies.lingape"

STUDY = Study(
    name="lingape",
    paper="Xu, Honda, Sugiyama: Fully adaptive algorithm for pure exploration in linear bandits (AISTATS 2018)",
    algorithms={
        "LinGapE": f"{_P}.algorithms:LinGapE",
        "XY-static": f"{_P}.algorithms:XYStatic",
        "XY-adaptive": f"{_P}.algorithms:XYAdaptive",
        "XY-oracle": f"{_P}.algorithms:XYOracle",
    },
    families={
        "lingape_soare": f"{_P}.instances:lingape_soare",
        "lingape_canonical": f"{_P}.instances:lingape_canonical",
    },
    kinds={
        "bai": f"{_P}.instances:BAIInstance",
        "bai_armsets": f"{_P}.instances:ArmSetsInstance",
    },
    commands={
        "lingape-yahoo-instance": (f"{_P}.yahoo:main_instance", "Exp. 3 arm sets from the parsed R6A day of May 1"),
    },
    products=f"{_P}.products:products",
    external_instances={
        # Exp. 3: the arm sets drawn from the parsed R6A day of May 1
        "lingape_yahoo": ExternalInstance(command=f"{_P}.yahoo:instance_command",
                                          inputs=f"{_P}.yahoo:instance_inputs"),
    },
    columns=("recommended", "correct", "stopping_time"),   # what its products read; a user's algorithm returns them (issue 37)
    environment="linbandits.studies.lingape.environment:LingapeEnvironment",
)
