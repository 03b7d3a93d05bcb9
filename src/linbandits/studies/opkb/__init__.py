"""Study opkb: Hong, Li, Tewari (AISTATS 2023), ADA-OPKB / ADA-OPNN for non-stationary kernel bandits."""
from linbandits.study import Study

_A = "linbandits.studies.opkb.algorithms"
_I = "linbandits.studies.opkb.instances"

STUDY = Study(
    name="opkb",
    paper="Hong, Li, Tewari: An Optimization-based Algorithm for Non-stationary Kernel Bandits without Prior "
          "Knowledge (AISTATS 2023)",
    algorithms={
        "GP-UCB": f"{_A}:GPUCB",
        "SW-GPUCB": f"{_A}:SWGPUCB",
        "WGPUCB": f"{_A}:WGPUCB",
        "OPKB": f"{_A}:OPKB",
        "ADA-OPKB": f"{_A}:ADAOPKB",
        "OPNN": f"{_A}:OPNN",
        "OPNN0": f"{_A}:OPNN0",
        "ADA-OPNN": f"{_A}:ADAOPNN",
    },
    families={
        "opkb_env1": f"{_I}:opkb_env1",
        "opkb_env2": f"{_I}:opkb_env2",
        "opkb_cosine": f"{_I}:opkb_cosine",
        "opkb_cosine_slow": f"{_I}:opkb_cosine_slow",
    },
    kinds={"arm_rewards": f"{_I}:ArmRewardsInstance"},
    commands={
        "opkb-tune": ("linbandits.studies.opkb.tuning:main_point", "opkb: one tuning grid point on every Env 1 seed"),
    },
    products="linbandits.studies.opkb.products:products",
    columns=("regret",),   # what its products read; a user's algorithm returns them (issue 37)
    environment="linbandits.studies.opkb.environment:OpkbEnvironment",
    curves=True,
    panel_lists=("dashed",),    # experiments drawn dashed in the same panel
    run_sweeps=("seed",),       # one instance drawn per run, as the authors did
    seed_limit=2**32,           # its instances draw from numpy's legacy RandomState
)
