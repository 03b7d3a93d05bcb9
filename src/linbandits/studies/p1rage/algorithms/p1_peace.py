"""P1-Peace (Algorithms 4-5): G-design mixed with Peace's virtual eliminations."""
from linbandits.studies.p1rage.algorithms.elimination import peace_levels
from linbandits.studies.p1rage.algorithms.p1_loop import P1Loop


class P1Peace(P1Loop):
    name = "P1-Peace"
    summary = "P1 loop with Peace-Elimination (halve the design value by sorted prefixes)"

    def levels(self, est):
        return peace_levels(self.designs, est)
