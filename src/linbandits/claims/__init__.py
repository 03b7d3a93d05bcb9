"""The claims engine shared by every study (engine.py: relations, groups, simultaneous intervals; estimates.py: the
interval methods; quantities.py: what a claim's parts can measure; evidence.py: the runs they read; load.py: a study's claims
table; judge.py: every claim judged, with its cause; robustness.py: again under the protocol switches;
records.py: the JSON form of a judged part; audit.py: verdicts against their printed intervals; render.py:
Markdown and JSON)."""
from linbandits.claims.engine import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, NO_EVIDENCE, NOT_RUN,  # noqa: F401
                                      VERDICTS, Missing)
