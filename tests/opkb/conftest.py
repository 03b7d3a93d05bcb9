import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from linbandits.studies.opkb.kernels import one_blas_thread  # noqa: E402

one_blas_thread()

# A small switching instance and constants that make ADA-OPKB replay and restart (3 restarts, ~30 blocks).
SMALL_ADA = dict(rbf_length=0.2, noise="truncated", sigma=100.0, beta_scale=50.0, mu_scale=0.2, e_scale=0.005,
                 g_scale=0.05, eps_scale=0.02, mixture_probability=0.2, delta=1e-4, j_star=2)


@pytest.fixture(scope="session")
def small_switch():
    from linbandits.studies.opkb.instances import opkb_env1

    return opkb_env1(seed=1, N=20, d=4, T=3000, switch=1200)
