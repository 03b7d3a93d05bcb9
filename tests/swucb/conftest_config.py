import yaml


def config_of(workdir):
    return yaml.safe_load((workdir / "config" / "config.yaml").read_text())
