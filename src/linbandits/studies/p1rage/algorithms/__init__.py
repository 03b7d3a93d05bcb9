"""The algorithms, by the names the paper uses. One module each."""
from linbandits.studies.p1rage.algorithms.g_bai import GBAI
from linbandits.studies.p1rage.algorithms.mixed_peace import MixedPeace
from linbandits.studies.p1rage.algorithms.od_linbai import ODLinBAI
from linbandits.studies.p1rage.algorithms.p1_peace import P1Peace
from linbandits.studies.p1rage.algorithms.p1_rage import P1RAGE
from linbandits.studies.p1rage.algorithms.peace import Peace
from linbandits.errors import unknown_name

# The paper's order, used by tables and figures.
ALGORITHMS = {cls.name: cls for cls in (GBAI, P1RAGE, P1Peace, Peace, MixedPeace, ODLinBAI)}


def make_algorithm(name: str, instance, options: dict | None = None):
    if name not in ALGORITHMS:
        raise unknown_name("algorithm", name, ALGORITHMS)
    return ALGORITHMS[name](instance, **(options or {}))
