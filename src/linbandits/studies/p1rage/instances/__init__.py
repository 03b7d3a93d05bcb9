"""The paper's instances (spec C). Each builder's keyword defaults are the
published protocol; they are the single table of defaults (read with inspect
by linbandits.catalogue), so nothing here repeats them."""
from __future__ import annotations

from linbandits.problems.linear import NOISE_KINDS
from linbandits.studies.p1rage.instances.malicious import malicious
from linbandits.studies.p1rage.instances.multivariate import INDICATORS, SERIES, THETA_DRAWS, multi_osci, multi_sto
from linbandits.studies.p1rage.instances.soare import soare_osci, soare_sto

# Allowed values of the string settings, shown by `linbandits simulate --help`.
for _builder in (soare_sto, soare_osci, malicious, multi_sto, multi_osci):
    _builder.setting_choices = {"noise": NOISE_KINDS, "series": tuple(SERIES), "indicator": INDICATORS,
                                "theta_draw": THETA_DRAWS}
multi_osci.setting_notes = tuple(f"series={series} allows s in {list(sweep['s'])} with L in {list(sweep['L'])}"
                                 for series, sweep in SERIES.items())

__all__ = ["malicious", "multi_osci", "multi_sto", "soare_osci", "soare_sto"]
