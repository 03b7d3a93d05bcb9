"""linbandits: reproducible replications of five papers on (non-)stationary linear bandits.

The Python API (docs/api.md): `build_instance(family, settings)`, `make_algorithm(name, instance,
options)` and the algorithm's `simulate(seed, trials)`, where trials is a count n (trials 0..n-1) or a
range of trial indices; `instance_families()` and `algorithm_names()` list what exists.
`make_environment(study, instance, seed, trial)` and `experiment_environment(experiment, setting, trial)`
give one run to step through (linbandits.environment, docs/environments.md).
"""
__version__ = "0.1.0"

__all__ = ["build_instance", "make_algorithm", "algorithm_names", "instance_families", "make_environment",
           "experiment_environment", "__version__"]

# Each function imports the catalogue when called, not this file at its top: every import of a
# submodule (linbandits.errors, ...) runs this file first, and would load the catalogue (numpy, every
# study's declaration) with it, and the catalogue imports submodules of this package.


def build_instance(family: str, settings: dict | None = None):
    """An instance of a family (e.g. "soare_sto"); settings override the published defaults."""
    from linbandits.catalogue import build_instance as build

    return build(family, settings)


def make_algorithm(name: str, instance, options: dict | None = None):
    """An algorithm (e.g. "P1-RAGE") on an instance; options override its defaults."""
    from linbandits.catalogue import make_algorithm as make

    return make(name, instance, options)


def algorithm_names() -> list[str]:
    from linbandits.catalogue import algorithm_names as names

    return names()


def instance_families() -> list[str]:
    from linbandits.catalogue import family_names

    return family_names()


def make_environment(study: str, instance, seed: int, trial: int, **options):
    """Run `trial` of `instance` under `seed`, to step through as `study`'s problem (docs/environments.md)."""
    from linbandits.environment import make_environment as make

    return make(study, instance, seed, trial, **options)


def experiment_environment(experiment: str, setting: str | None, trial: int, config="config/config.yaml",
                           seed: int | None = None):
    """Run `trial` of a configured experiment's setting, with the pipeline's instance and seed."""
    from linbandits.environment import experiment_environment as make

    return make(experiment, setting, trial, config=config, seed=seed)
