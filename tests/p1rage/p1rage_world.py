"""Synthetic worlds for the study's products: runs files and instance summaries written where the
products read them, with error probabilities chosen per (experiment, setting, algorithm), so that
the tables, figures and claims can be checked where the claims must hold and where they must fail."""
from __future__ import annotations

import copy
import json
import zlib
from pathlib import Path

import numpy as np

from linbandits import runs as runs_module
from linbandits.products import Context
from linbandits.study_config import read_config

REPO = Path(__file__).resolve().parents[2]
BEST_ARM = 0


def study_config(robustness: bool = False) -> dict:
    """The .test config's P1-RAGE section alone (its switch runs only with `robustness`)."""
    config = read_config(REPO / ".test/config/config.yaml")
    config["studies"] = {"p1rage": copy.deepcopy(config["studies"]["p1rage"])}
    config["robustness"] = robustness
    return config


def outcomes(n: int, errors: int, wrong_arm: int = 1, key: str = "") -> tuple[np.ndarray, np.ndarray]:
    """(recommended, correct) of n runs of which `errors` recommend a wrong arm. The erring runs are
    drawn by `key` (experiment, setting, algorithm): two algorithms' errors fall on independent runs,
    as if their outcomes did not correlate (the engine analyses a setting's runs paired)."""
    recommended = np.full(n, BEST_ARM, dtype=np.int64)
    erring = np.random.default_rng(zlib.crc32(key.encode())).permutation(n)[:errors]
    recommended[erring] = wrong_arm
    return recommended, (recommended == BEST_ARM).astype(np.int64)


def write_world(root: Path, config: dict, error_of, n: int = 2000, min_gap=lambda exp, s: 0.01) -> Context:
    """Every experiment of the config's P1-RAGE section: n runs per (setting, algorithm), of which
    round(error_of(experiment, setting, algorithm, first setting?) * n) err. Returns the products' Context (paths are
    relative: call it with root as the working directory)."""
    ctx = Context(config, "p1rage")
    for name, exp in ctx.experiments.items():
        arrays, series = {}, {}
        for setting in exp.setting_ids():
            summary = root / ctx.summary_path(name, setting)
            summary.parent.mkdir(parents=True, exist_ok=True)
            summary.write_text(json.dumps({"best_arm": BEST_ARM, "min_gap": min_gap(name, setting), "K": 11, "d": 10,
                                           "T": int(exp.instance_settings(setting).get("T", 1010))}))
            for algo in exp.algorithms:
                k = int(round(error_of(name, setting, algo, setting == exp.setting_ids()[0]) * n))
                rec, correct = outcomes(n, k, key=f"{name}/{setting}/{algo}")
                arrays[f"{setting}/{algo}/recommended"] = rec
                arrays[f"{setting}/{algo}/correct"] = correct
                series[f"{setting}/{algo}"] = {"columns": ["recommended", "correct"], "runs": n, "info": []}
        meta = {"settings": exp.setting_ids(), "algorithms": list(exp.algorithms), "trials": n, "series": series}
        stem = root / ctx.runs_stem(name)
        stem.parent.mkdir(parents=True, exist_ok=True)
        runs_module.write(str(stem), arrays, meta, name, "p1rage")
    return ctx


# ------------------------------------------------------------------ worlds where the claims hold / fail

UNSTABLE = ("Peace", "OD-LinBAI")


def holding(exp: str, setting: str, algo: str, first: bool) -> float:
    """A world where every claim of the study holds."""
    base = exp.split("__")[0]
    if base in ("multi_osci", "multi_period", "soare_osci", "soare_period", "yahoo_repeat") and algo in UNSTABLE:
        return 0.01 if first else 0.99
    if base == "malicious":
        return 0.95 if algo in UNSTABLE else 0.3
    if base == "multi_sto":
        return {"G-BAI": 0.15, "Mixed-Peace": 0.15}.get(algo, 0.05)
    if base == "soare_sto":
        return {"G-BAI": 0.3, "Mixed-Peace": 0.28, "OD-LinBAI": 0.4}.get(algo, 0.15)
    return {"G-BAI": 0.3, "Mixed-Peace": 0.3}.get(algo, 0.15)


def failing(exp: str, setting: str, algo: str, first: bool) -> float:
    """A world where every claim of the study fails: P1-RAGE and P1-Peace worse than G-BAI and
    Mixed-Peace and far from Peace, Mixed-Peace far from G-BAI, Peace and OD-LinBAI steady and good,
    the others error-prone and spread over the settings."""
    base = exp.split("__")[0]
    if algo in UNSTABLE:
        return 0.02 if base == "malicious" else 0.3
    if base == "malicious":
        return 0.9
    if algo in ("P1-RAGE", "P1-Peace"):
        return 0.8 if first else 0.95
    if algo == "Mixed-Peace":
        return 0.02 if first else 0.9
    return 0.3 if first else 0.6
