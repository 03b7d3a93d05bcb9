"""Xiong, Camilleri, Fazel, Jain, Jamieson: A/B Testing and Best-arm Identification for
Linear Bandits with Robustness to Non-stationarity (fixed-budget BAI)."""
from linbandits.study import ExternalInstance, Study

_P = "linbandits.studies.p1rage"

STUDY = Study(
    name="p1rage",
    paper="Xiong, Camilleri, Fazel, Jain, Jamieson: A/B Testing and Best-arm Identification for Linear "
          "Bandits with Robustness to Non-stationarity",
    algorithms={
        "G-BAI": f"{_P}.algorithms.g_bai:GBAI",
        "P1-RAGE": f"{_P}.algorithms.p1_rage:P1RAGE",
        "P1-Peace": f"{_P}.algorithms.p1_peace:P1Peace",
        "Peace": f"{_P}.algorithms.peace:Peace",
        "Mixed-Peace": f"{_P}.algorithms.mixed_peace:MixedPeace",
        "OD-LinBAI": f"{_P}.algorithms.od_linbai:ODLinBAI",
    },
    families={
        "soare_sto": f"{_P}.instances:soare_sto",
        "soare_osci": f"{_P}.instances:soare_osci",
        "malicious": f"{_P}.instances:malicious",
        "multi_sto": f"{_P}.instances:multi_sto",
        "multi_osci": f"{_P}.instances:multi_osci",
    },
    job_context=f"{_P}.designs:sharing_designs",
    commands={
        "p1rage-yahoo-instance": (f"{_P}.yahoo:main_instance", "PCA, per-day ridge and arm set -> Fig. 2b instance"),
    },
    products=f"{_P}.products:products",
    external_instances={
        # Fig. 2b: the arm sets from the R6A days (PCA, per-day ridge)
        "yahoo": ExternalInstance(command=f"{_P}.yahoo:instance_command", inputs=f"{_P}.yahoo:instance_inputs",
                                  also_builds=("data/processed/r6a_qc.json",)),
    },
    columns=("recommended", "correct"),   # what its products read; a user's algorithm returns them (issue 37)
    environment="linbandits.studies.p1rage.environment:P1rageEnvironment",
)
