"""The claims engine shared by every study (engine.py: relations, groups, simultaneous intervals; estimates.py: the
interval methods; quantities.py: what a claim's parts can measure; evidence.py: the runs they read;
report.py: robustness under the protocol switches, causes, Markdown and JSON)."""
from linbandits.claims.engine import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, NO_EVIDENCE, NOT_RUN,  # noqa: F401
                                      VERDICTS, Missing)
