
from linbandits.study_config import read_config


def config_of(workdir):
    return read_config(workdir / "config" / "config.yaml")   # with the studies' defaults
