"""Every study folder has the one skeleton of docs/studies.md ("Layout"): the same module names for the
same roles, one algorithm base, one draw_figure signature.

Each check is a function that takes a study folder (or its package and Study) and returns its
problems as sentences; the tests run them on every study the catalogue finds, and on a copy of a
real study folder and a fake study package with planted defects, so that each check is seen to fail.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import shutil
import sys
import uuid
from collections import Counter
from pathlib import Path

import pytest

from linbandits import catalogue, study
from linbandits.study import Study

STUDIES = Path(catalogue.__file__).resolve().parent / "studies"

# Role -> what it holds. A role is a module `<role>.py` or a package `<role>/`.
REQUIRED = {
    "algorithms": "the study's algorithm classes (a module, or a package of one module per algorithm)",
    "instances": "the instance families and the study's own instance kinds",
    "products": "products(ctx) -> [Product]: its tables, figures and claims",
    "figures": "draw_figure(panels, spec, stem, note, preview) and what it draws with",
}
REQUIRED_FILES = ("__init__.py", "claims.yaml", "config.schema.yaml")
# Optional roles, said here so that leaving one out is a decision: a study whose compiled loops live
# beside their algorithms (or that has none) has no `kernels`; a study whose claims need only the
# shared quantities (linbandits.claims.quantities) has no `quantities`.
OPTIONAL = {
    "kernels": "the compiled (numba) loops and the routines it calls past numpy",
    "quantities": "the study's own claim quantities, QUANTITIES = {name: function}",
    "environment": "one run stepped by an algorithm (a linbandits.environment.Environment), its Study's environment",
}
# Second names for a role: a module under one of these is the role's module under another name.
SECOND_NAMES = {
    "engine": "kernels", "blas": "kernels", "kernel": "kernels", "loops": "kernels", "compiled": "kernels",
    "instance": "instances", "families": "instances", "family": "instances",
    "algorithm": "algorithms", "runner": "algorithms",
    "figure": "figures", "plots": "figures", "plotting": "figures", "product": "products",
    "quantity": "quantities", "design": "designs",
}


def module_names(folder: Path) -> set[str]:
    """The modules and packages directly in a folder, by name (`x` for x.py and for x/__init__.py)."""
    return ({p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
            | {p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()})


def skeleton_problems(folder: Path) -> list[str]:
    """The required roles and files a study folder lacks."""
    names = module_names(folder)
    return ([f"{folder.name}: no `{role}` module or package ({what})" for role, what in REQUIRED.items()
             if role not in names]
            + [f"{folder.name}: no {file}" for file in REQUIRED_FILES if not (folder / file).is_file()])


def second_name_problems(folder: Path) -> list[str]:
    """Modules that hold a role under a second name, and a module beside its own plural (design.py
    beside designs.py), in the study folder and its packages."""
    problems = []
    for sub in [folder, *[p for p in folder.rglob("*") if p.is_dir() and (p / "__init__.py").exists()]]:
        names = module_names(sub)
        where = sub.relative_to(folder.parent)
        for name in sorted(names):
            if name in SECOND_NAMES:
                problems.append(f"{where}: `{name}` is a second name for the role `{SECOND_NAMES[name]}`")
            if name + "s" in names:
                problems.append(f"{where}: `{name}` beside `{name}s`: one module for one role")
    return problems


def quantities_problems(folder: Path) -> list[str]:
    """A study's own claim quantities are its `quantities` module's QUANTITIES, defined nowhere else."""
    problems = []
    for path in sorted(folder.rglob("*.py")):
        defines = any(line.startswith(("QUANTITIES =", "QUANTITIES: "))
                      for line in path.read_text(encoding="utf-8").splitlines())
        if path.stem == "quantities" and not defines:
            problems.append(f"{path.relative_to(folder.parent)}: defines no QUANTITIES")
        if path.stem != "quantities" and defines:
            problems.append(f"{path.relative_to(folder.parent)}: defines QUANTITIES; own quantities go in quantities.py")
    return problems


def declaration_problems(package: str, declared: Study) -> list[str]:
    """The Study's "module:attr" strings name the role modules: algorithms in `algorithms`, families and
    kinds in `instances`, products in `products`."""
    roles = {"algorithms": ("algorithm", "algorithms"), "families": ("family", "instances"),
             "kinds": ("kind", "instances")}
    problems = []
    for field, (what, role) in roles.items():
        for name, target in getattr(declared, field).items():
            module = target.partition(":")[0]
            if module != f"{package}.{role}" and not module.startswith(f"{package}.{role}."):
                problems.append(f"{declared.name}: {what} {name} is {target}, not in {package}.{role}")
    if declared.products.partition(":")[0] != f"{package}.products":
        problems.append(f"{declared.name}: products is {declared.products!r}, not in {package}.products")
    if declared.environment and declared.environment.partition(":")[0] != f"{package}.environment":
        problems.append(f"{declared.name}: environment is {declared.environment!r}, not in {package}.environment")
    return problems


def study_classes(package: str) -> list[type]:
    """Every class defined in a study's package (each of its modules imported)."""
    root = importlib.import_module(package)
    modules = [root] + [importlib.import_module(m.name)
                        for m in pkgutil.walk_packages(root.__path__, f"{package}.")]
    return [c for m in modules for c in vars(m).values()
            if inspect.isclass(c) and c.__module__ == m.__name__]


def algorithm_problems(package: str, declared: Study) -> list[str]:
    """Every declared algorithm subclasses study.Algorithm; no class in the study is named `Algorithm`;
    a class that subclasses study.Algorithm directly and is not a declared algorithm (the study's base)
    is named `<Study>Algorithm`."""
    base_name = declared.name.capitalize() + "Algorithm"
    problems = []
    classes = {}
    for name, target in declared.algorithms.items():
        cls = catalogue.resolve(target)
        classes[cls] = name
        if not (inspect.isclass(cls) and issubclass(cls, study.Algorithm)):
            problems.append(f"{declared.name}: algorithm {name} ({target}) is not a subclass of study.Algorithm")
    for cls in study_classes(package):
        where = f"{cls.__module__}.{cls.__name__}"
        if cls.__name__ == "Algorithm":
            problems.append(f"{where}: a class named Algorithm shadows study.Algorithm; name it {base_name}")
        elif study.Algorithm in cls.__bases__ and cls not in classes and cls.__name__ != base_name:
            problems.append(f"{where}: the study's algorithm base is named {base_name}")
    return problems


def draw_figure_problems(figures_modules: dict) -> list[str]:
    """Every study's figures.draw_figure has the signature most of them have."""
    signatures = {}
    problems = []
    for name, module in figures_modules.items():
        draw = getattr(module, "draw_figure", None)
        if not callable(draw):
            problems.append(f"{name}: figures has no draw_figure")
        else:
            signatures[name] = str(inspect.signature(draw))
    if signatures:
        common, _ = Counter(signatures.values()).most_common(1)[0]
        problems += [f"{name}: draw_figure{sig}, not draw_figure{common}"
                     for name, sig in signatures.items() if sig != common]
    return problems


# ------------------------------------------------------------------ every study

def folders() -> dict[str, Path]:
    return {name: STUDIES / name for name in catalogue.studies()}


@pytest.mark.parametrize("name", sorted(catalogue.studies()))
def test_every_study_folder_has_the_skeleton(name):
    folder = folders()[name]
    assert skeleton_problems(folder) + second_name_problems(folder) + quantities_problems(folder) == []


@pytest.mark.parametrize("name", sorted(catalogue.studies()))
def test_every_study_declares_into_its_role_modules_and_has_one_algorithm_base(name):
    package = f"linbandits.studies.{name}"
    declared = catalogue.studies()[name]
    assert declaration_problems(package, declared) + algorithm_problems(package, declared) == []


def test_every_study_draws_its_figures_through_one_signature():
    modules = {name: importlib.import_module(f"linbandits.studies.{name}.figures") for name in catalogue.studies()}
    assert len(modules) >= 2 and draw_figure_problems(modules) == []


def optional_role_problems(package: str, role: str) -> list[str]:
    """An optional role, where a study has it, holds what its name says: `kernels` its routines (at least
    one function), `quantities` a non-empty QUANTITIES of functions, `environment` an Environment class."""
    module = importlib.import_module(f"{package}.{role}")
    if role == "environment":
        from linbandits.environment import Environment

        own = [c for c in vars(module).values() if inspect.isclass(c) and issubclass(c, Environment)
               and c.__module__ == module.__name__]
        return [] if own else [f"{package}.environment defines no linbandits.environment.Environment"]
    if role == "kernels":
        own = [f for f in vars(module).values() if callable(f) and getattr(f, "__module__", "") == module.__name__]
        return [] if own else [f"{package}.kernels defines no routine"]
    table = getattr(module, "QUANTITIES", None)
    if not (isinstance(table, dict) and table and all(callable(f) for f in table.values())):
        return [f"{package}.quantities: QUANTITIES is not a non-empty dict of functions"]
    return []


def optional_roles() -> list:
    """(study, role, present) for every study and optional role: the test ids say which study has none."""
    return [pytest.param(name, role, role in module_names(folder), id=f"{name}-{role}-"
                         f"{'present' if role in module_names(folder) else 'none'}")
            for name, folder in folders().items() for role in OPTIONAL]


@pytest.mark.parametrize("name, role, present", optional_roles())
def test_an_optional_role_holds_what_it_says_or_is_absent(name, role, present):
    if present:
        assert optional_role_problems(f"linbandits.studies.{name}", role) == []
    else:   # absent: its module does not hide under a second name either
        assert not [p for p in second_name_problems(folders()[name]) if f"role `{role}`" in p]


# ------------------------------------------------------------------ planted defects

@pytest.fixture
def copied(tmp_path):
    """A copy of a real study folder (the first the catalogue finds): clean before a defect is planted."""
    name = min(catalogue.studies())
    folder = tmp_path / name
    shutil.copytree(STUDIES / name, folder, ignore=shutil.ignore_patterns("__pycache__"))
    assert skeleton_problems(folder) + second_name_problems(folder) + quantities_problems(folder) == []
    return folder


def module_of_role(folder: Path, role: str) -> Path:
    return folder / f"{role}.py" if (folder / f"{role}.py").exists() else folder / role


@pytest.mark.parametrize("role", [*REQUIRED, "claims.yaml", "config.schema.yaml"])
def test_a_missing_role_is_reported(copied, role):
    path = copied / role if role.endswith(".yaml") else module_of_role(copied, role)
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    expected = f"no {role}" if role.endswith(".yaml") else f"no `{role}` module or package"
    assert [p for p in skeleton_problems(copied) if expected in p] == [f"{copied.name}: {expected}" + (
        "" if role.endswith(".yaml") else f" ({REQUIRED[role]})")]


@pytest.mark.parametrize("planted, expected", [
    ("engine.py", "`engine` is a second name for the role `kernels`"),
    ("blas.py", "`blas` is a second name for the role `kernels`"),
    ("instance.py", "`instance` is a second name for the role `instances`"),
    ("families.py", "`families` is a second name for the role `instances`"),
    ("figure.py", "`figure` beside `figures`"),
])
def test_a_second_name_for_a_role_is_reported(copied, planted, expected):
    (copied / planted).write_text('"""planted"""\n', encoding="utf-8")
    assert any(expected in p for p in second_name_problems(copied))


def test_a_module_beside_its_plural_is_reported(copied):
    (copied / "designs.py").write_text('"""planted"""\n', encoding="utf-8")
    (copied / "design.py").write_text('"""planted"""\n', encoding="utf-8")
    problems = second_name_problems(copied)
    assert any("`design` beside `designs`" in p for p in problems)
    assert any("`design` is a second name for the role `designs`" in p for p in problems)
    nested = copied / "algorithms_extra"
    nested.mkdir()
    (nested / "__init__.py").write_text("", encoding="utf-8")
    (nested / "runner.py").write_text("", encoding="utf-8")
    assert any("algorithms_extra: `runner` is a second name" in p for p in second_name_problems(copied))


def test_empty_optional_roles_are_reported(fake, tmp_path):
    pkg, _, _ = fake
    root = tmp_path / pkg
    (root / "kernels.py").write_text("LIMIT = 3\n", encoding="utf-8")
    (root / "quantities.py").write_text("QUANTITIES = {}\n", encoding="utf-8")
    (root / "environment.py").write_text("from linbandits.environment import Environment\n", encoding="utf-8")
    assert optional_role_problems(pkg, "environment") == [
        f"{pkg}.environment defines no linbandits.environment.Environment"]
    assert optional_role_problems(pkg, "kernels") == [f"{pkg}.kernels defines no routine"]
    assert optional_role_problems(pkg, "quantities") == [
        f"{pkg}.quantities: QUANTITIES is not a non-empty dict of functions"]


def test_quantities_outside_their_module_are_reported(copied):
    with open(copied / "products.py", "a", encoding="utf-8") as f:
        f.write("\nQUANTITIES = {}\n")
    assert any("products.py: defines QUANTITIES" in p for p in quantities_problems(copied))
    (copied / "quantities.py").write_text('"""no dict"""\n', encoding="utf-8")
    assert any("quantities.py: defines no QUANTITIES" in p for p in quantities_problems(copied))


FAKE_INIT = '''from linbandits.study import Study

STUDY = Study(name="{name}", paper="a planted paper",
              algorithms={{"Good": "{pkg}.algorithms:Good", "Plain": "{pkg}.algorithms:Plain",
                          "Elsewhere": "{pkg}.engine:Elsewhere"}},
              families={{"fam": "{pkg}.families:fam"}},
              products="{pkg}.report:products", environment="{pkg}.engine:Elsewhere")
'''
FAKE_ALGORITHMS = '''from linbandits import study


class Algorithm(study.Algorithm):
    """planted: shadows study.Algorithm"""


class Base(study.Algorithm):
    """planted: the study's base under another name"""


class Good(Algorithm):
    name = "Good"


class Plain:
    """planted: not a study.Algorithm"""
'''
FAKE_ENGINE = '''from linbandits import study


class Elsewhere(study.Algorithm):
    name = "Elsewhere"
'''
FAKE_FIGURES = '''def draw_figure(series, stem, level):
    """planted: another signature"""
'''


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A fake study package with every class and declaration defect planted; (package, Study, figures)."""
    name = "fake"
    pkg = f"layout_planted_{uuid.uuid4().hex[:8]}"
    root = tmp_path / pkg
    root.mkdir()
    (root / "__init__.py").write_text(FAKE_INIT.format(name=name, pkg=pkg), encoding="utf-8")
    (root / "algorithms.py").write_text(FAKE_ALGORITHMS, encoding="utf-8")
    (root / "engine.py").write_text(FAKE_ENGINE, encoding="utf-8")
    (root / "families.py").write_text("def fam():\n    pass\n", encoding="utf-8")
    (root / "figures.py").write_text(FAKE_FIGURES, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield pkg, importlib.import_module(pkg).STUDY, importlib.import_module(f"{pkg}.figures")
    for module in [m for m in sys.modules if m == pkg or m.startswith(f"{pkg}.")]:
        del sys.modules[module]


def test_planted_class_defects_are_reported(fake):
    pkg, declared, _ = fake
    problems = algorithm_problems(pkg, declared)
    assert any(p.startswith(f"{pkg}.algorithms.Algorithm: a class named Algorithm") for p in problems)
    assert any(p.startswith(f"{pkg}.algorithms.Base: the study's algorithm base is named FakeAlgorithm")
               for p in problems)
    assert any("algorithm Plain" in p and "not a subclass of study.Algorithm" in p for p in problems)
    # a declared algorithm is never taken for a base, wherever it lives
    assert not any("Good" in p or "Elsewhere" in p for p in problems)


def test_planted_declaration_defects_are_reported(fake):
    pkg, declared, _ = fake
    problems = declaration_problems(pkg, declared)
    assert any("algorithm Elsewhere" in p and f"not in {pkg}.algorithms" in p for p in problems)
    assert any("family fam" in p and f"not in {pkg}.instances" in p for p in problems)
    assert any("products is" in p for p in problems)
    assert any("environment is" in p and f"not in {pkg}.environment" in p for p in problems)
    assert not any("algorithm Good" in p for p in problems)


def test_a_different_draw_figure_signature_is_reported(fake):
    _, _, figures = fake
    real = {name: importlib.import_module(f"linbandits.studies.{name}.figures") for name in catalogue.studies()}
    problems = draw_figure_problems({**real, "fake": figures})
    assert [p.split(":")[0] for p in problems] == ["fake"]
    assert "draw_figure(series, stem, level)" in problems[0]
    assert draw_figure_problems({**real, "nofigure": object()}) == ["nofigure: figures has no draw_figure"]
