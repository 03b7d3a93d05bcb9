"""Planted bugs of the OAM study: each is applied by the suite with monkeypatch, and a test
asserts that it makes one of the suite's comparisons fail (test_oam_planted_bugs.py).

The OAM kernel is numba-compiled; a bug in one of its helpers is planted by swapping the
helper and running the kernel's Python source (`py_func`), which reads the module's
globals at call time.
"""
from linbandits.studies.oam import allocation
from linbandits.studies.oam.algorithms import oam


def no_rescaling(monkeypatch):
    """The SDP without the mandatory rescaling: matrix_frac(z_j, H(alpha)) <= Delta_j^2 / 2."""
    monkeypatch.setattr(allocation, "rescaled_program", lambda Z, gaps: (Z, gaps ** 2 / 2.0, 1.0))


def _python_kernel(monkeypatch):
    monkeypatch.setattr(oam, "oam_run", oam.oam_run.py_func)


def exploit_with_delta(monkeypatch):
    """The exploitation test (4.3) with Delta instead of Delta^2."""
    _python_kernel(monkeypatch)
    monkeypatch.setattr(oam, "exploit_threshold", lambda dmin, gap, fn: max(dmin, gap) / fn)


def forced_never(monkeypatch):
    """Forced exploration (b2) never triggers."""
    _python_kernel(monkeypatch)
    monkeypatch.setattr(oam, "forced", lambda n_b2, eps, s: False)


BUGS = {"no_rescaling": no_rescaling, "exploit_with_delta": exploit_with_delta, "forced_never": forced_never}
