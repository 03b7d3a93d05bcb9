"""The study's algorithms, one module each with its numba round loop: OAM (`oam`), LinUCB (`linucb`),
OSSB (`ossb`), LinTS and its heuristic (`lints`); `base` holds their shared base `OamAlgorithm`."""
