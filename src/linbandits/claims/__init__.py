"""The claims engine shared by every study (see engine.py), and the verdict words.

`linbandits.claims.legacy` keeps the old per-study verdict helpers until every study
judges its claims through the engine.
"""
from linbandits.claims.engine import (FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, LEVEL, NO_EVIDENCE, NOT_RUN,  # noqa: F401
                                      VERDICTS, Missing)
from linbandits.claims.legacy import (combine, counts, load_claims, read_claims_json, render_markdown,  # noqa: F401
                                      result, summary_line, write_claims)
