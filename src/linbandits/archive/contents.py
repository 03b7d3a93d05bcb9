"""What an archive of a run holds: per enabled study, the files its products read (its config snapshot,
runs files, instance summaries and files; the package files such as its claims table and published
numbers), what `verify` needs besides (every instance summary, the instance files built from data),
a user's algorithm file, and the products whose SHA-256 it records."""
from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

from linbandits import catalogue, experiments, paths, products, study_config
from linbandits.archive.record import PACKAGE_DIR
from linbandits.errors import UserError


def studies_of_config(config_path: Path, preview: bool) -> list[dict]:
    """The studies of a user's config in order, each enabled one with its snapshot path (as rules/common.smk
    finds them)."""
    raw = study_config.read_config(config_path)
    if preview:
        raw["preview"] = True
    prefix = paths.prefix(raw)
    enabled = experiments.enabled_studies(raw)
    return [{"name": s, "enabled": s in enabled,
             **({"snapshot": f"{prefix}results/{s}/config.yaml"} if s in enabled else {})}
            for s in experiments.study_sections(raw)]


def published_in_code(study: str) -> dict[str, object]:
    """The PUBLISHED* tables (mappings or lists) of a study's `published` module, by name."""
    name = f"linbandits.studies.{study}.published"
    if importlib.util.find_spec(name) is None:
        return {}
    module = importlib.import_module(name)
    return {attr: value for attr, value in sorted(vars(module).items())
            if attr.startswith("PUBLISHED") and isinstance(value, (dict, list, tuple))}


def published_files(study: str) -> list[Path]:
    """The data files (PUBLISHED* paths) of a study's `published` module."""
    name = f"linbandits.studies.{study}.published"
    if importlib.util.find_spec(name) is None:
        return []
    module = importlib.import_module(name)
    return [value for attr, value in sorted(vars(module).items())
            if attr.startswith("PUBLISHED") and isinstance(value, Path)]


def replay_files(config: dict, study: str) -> set[str]:
    """What `verify` needs beyond the products' inputs: the instance summary of every setting the default
    target runs (a replay checks the instance it builds from the config against it), and the instance files
    a study's own command builds from data (the Yahoo! arm sets), which a reader cannot build without
    that data: from the synthetic stand-in only (the R6A licence does not allow passing the log on, nor
    what is built from it here)."""
    external = catalogue.studies()[study].external_instances
    synthetic = (config.get("r6a") or {}).get("source", "synthetic") == "synthetic"
    out = set()
    for exp in experiments.study_experiments(config, study).values():
        if experiments.on_request(exp):
            continue
        for setting in exp.setting_ids():
            out.add(paths.instance_path(config, exp, setting, "json"))
            if exp.instance in external and synthetic:
                out.add(paths.instance_path(config, exp, setting, "npz"))
    return out


def user_algorithm_files(config: dict) -> set[str]:
    """The user's own algorithm files (`extra_algorithms` targets `path/file.py:Class`, relative to the run)."""
    out = set()
    for entries in (config.get("extra_algorithms") or {}).values():
        for spec in (entries or {}).values():
            target = spec.get("class") if isinstance(spec, dict) else spec
            module = str(target).rpartition(":")[0]
            if module.endswith(".py") and not Path(module).is_absolute():
                out.add(module)
    return out


def study_contents(run_dir: Path, study: str, snapshot: str) -> dict:
    """One enabled study's share: its run files (relative to the run), its package files and its products."""
    config = products.load_config(run_dir / snapshot, study)
    made = [p for p in products.study_products(config, study) if not p.target]
    outputs = {str(f) for p in made for f in p.outputs}
    run_files, package_files = {snapshot}, set()
    for f in {str(f) for p in made for f in p.inputs} - outputs:
        path = Path(f)
        if not path.is_absolute():
            run_files.add(f)
        elif path.resolve().is_relative_to(PACKAGE_DIR):
            package_files.add(path.resolve().relative_to(PACKAGE_DIR).as_posix())
        else:
            raise UserError(f"study {study}: a product reads {f}, which lies neither in the run nor in the "
                            f"linbandits package; an archive cannot hold it")
    package_files |= {p.resolve().relative_to(PACKAGE_DIR).as_posix() for p in published_files(study)}
    run_files |= replay_files(config, study) | user_algorithm_files(config)
    return {"config": config, "run": run_files, "package": package_files, "products": sorted(outputs)}
