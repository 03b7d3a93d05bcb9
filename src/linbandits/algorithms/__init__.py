"""The algorithms, by the names the paper uses. One module each."""
from linbandits.algorithms.g_bai import GBAI
from linbandits.algorithms.mixed_peace import MixedPeace
from linbandits.algorithms.od_linbai import ODLinBAI
from linbandits.algorithms.p1_peace import P1Peace
from linbandits.algorithms.p1_rage import P1RAGE
from linbandits.algorithms.peace import Peace
from linbandits.errors import unknown_name

# The paper's order, used by tables and figures.
ALGORITHMS = {cls.name: cls for cls in (GBAI, P1RAGE, P1Peace, Peace, MixedPeace, ODLinBAI)}


def make_algorithm(name: str, instance, options: dict | None = None):
    if name not in ALGORITHMS:
        raise unknown_name("algorithm", name, ALGORITHMS)
    return ALGORITHMS[name](instance, **(options or {}))


def describe_algorithms() -> str:
    lines = []
    for name, cls in ALGORITHMS.items():
        opts = ", ".join(f"{k}={v}" for k, v in cls.defaults.items())
        lines.append(f"  {name:12s} {cls.summary}\n  {'':12s} options: {opts}")
    return "\n".join(lines)
