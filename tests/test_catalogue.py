"""Every study honours the contracts of linbandits.study; instance files declare their kind."""
import inspect
from pathlib import Path

import numpy as np
import pytest

import linbandits.studies
from linbandits import catalogue
from linbandits.errors import UserError
from linbandits.npzfile import write_npz
from linbandits.problems import detect_kind, load_instance_file, save_instance

STUDIES_DIR = Path(linbandits.studies.__file__).parent


def test_studies_are_found_and_named_as_their_folders():
    """Every folder of linbandits/studies with an __init__ is a study (no list of names to keep)."""
    found = catalogue.studies()
    folders = {p.parent.name for p in STUDIES_DIR.glob("*/__init__.py")}
    assert "p1rage" in found and set(found) == folders
    for name, study in found.items():
        assert study.name == name and study.paper


@pytest.mark.parametrize("study", sorted(catalogue.studies()))
def test_every_algorithm_honours_the_contract(study):
    kinds = catalogue.instance_kinds()
    for name, target in catalogue.studies()[study].algorithms.items():
        cls = catalogue.resolve(target)
        assert cls.name == name and cls.summary
        assert cls.kinds and set(cls.kinds) <= set(kinds), (name, cls.kinds)
        assert isinstance(cls.defaults, dict)
        assert callable(getattr(cls, "simulate", None))


@pytest.mark.parametrize("study", sorted(catalogue.studies()))
def test_every_family_and_kind_honours_the_contract(study):
    for name in catalogue.studies()[study].families:
        builder = catalogue.family(name)
        assert (inspect.getdoc(builder) or "").strip(), f"family {name} needs a docstring"
        params = inspect.signature(builder).parameters.values()
        assert all(p.default is not inspect.Parameter.empty for p in params), f"{name}: every setting has a default"
    for kind, target in catalogue.studies()[study].kinds.items():
        cls = catalogue.resolve(target)
        assert cls.kind == kind and cls.required
        for attr in ("from_arrays", "to_arrays", "summary"):
            assert callable(getattr(cls, attr)), (kind, attr)


def test_names_are_unique_across_the_product():
    algos, families = catalogue.algorithm_names(), catalogue.family_names()
    assert len(algos) == len(set(algos)) and len(families) == len(set(families))


def test_a_planted_name_clash_is_refused(monkeypatch):
    from linbandits.study import Study

    real = catalogue.studies()
    clash = Study(name="clash", paper="x", algorithms={"G-BAI": "nowhere:Nothing"})
    catalogue.studies.cache_clear()
    monkeypatch.setattr("linbandits.catalogue.pkgutil.iter_modules",
                        lambda path: [type("M", (), {"name": n, "ispkg": True}) for n in [*real, "clash"]])
    import importlib
    original = importlib.import_module

    def fake_import(name, *args):
        if name.endswith(".clash"):
            return type("Mod", (), {"STUDY": clash})
        return original(name, *args)
    monkeypatch.setattr("linbandits.catalogue.importlib.import_module", fake_import)
    try:
        with pytest.raises(UserError, match="algorithm name 'G-BAI' is declared by study p1rage and by clash"):
            catalogue.studies()
    finally:
        catalogue.studies.cache_clear()


def test_instance_files_round_trip_and_declare_their_kind(tmp_path):
    inst = catalogue.build_instance("soare_sto", {"T": "30"})
    save_instance(tmp_path / "a.npz", inst)
    save_instance(tmp_path / "b.npz", inst)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()   # byte-reproducible
    back = load_instance_file(tmp_path / "a.npz")
    assert back.kind == "linear" and back.name == inst.name
    np.testing.assert_array_equal(back.thetas, inst.thetas)


def test_kind_detection_by_arrays_and_by_entry(tmp_path):
    kinds = catalogue.instance_kinds()
    arrays = {"X": np.eye(2), "thetas": np.ones((3, 2)), "noise_sd": np.float64(1)}
    assert detect_kind(arrays, "f", kinds) == "linear"
    assert detect_kind({**arrays, "kind": np.array("linear")}, "f", kinds) == "linear"
    with pytest.raises(UserError, match="declares kind 'nonsense'"):
        detect_kind({**arrays, "kind": np.array("nonsense")}, "f", kinds)
    with pytest.raises(UserError, match="no known kind"):
        detect_kind({"Y": np.eye(2)}, "f", kinds)
    write_npz(tmp_path / "bad.npz", {"X": np.eye(2), "thetas": np.ones((3, 2))})
    with pytest.raises(UserError, match="lacks noise_sd"):
        load_instance_file(tmp_path / "bad.npz")
    write_npz(tmp_path / "ok.npz", arrays)
    with pytest.raises(UserError, match="--setting s does not apply"):
        load_instance_file(tmp_path / "ok.npz", {"s": "1"})
