"""No two modules of the package import each other, directly or around a circle.

Every import counts, also one inside a function: an import moved into a function to dodge a
circle at start-up still ties the two modules together (each needs the other to work), and the
circle comes back as soon as someone moves the import to the top. A module that both sides
need goes into a small module of its own (e.g. linbandits.yamlfile, lingape/stopping.py)."""
import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"


def module_files(src: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `package` under `src` (a package by its __init__)."""
    out = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imported_modules(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The package's modules that the file imports anywhere in it (functions included). `from P import X`
    is module P.X where that is a module, else P; the parent packages Python also runs are left out (a
    package that imports its own submodules is no circle of two modules)."""
    is_package = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:      # relative: from the module's package, up level - 1 more
                base = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    out.add(f"{source}.{alias.name}")
                elif source in modules:
                    out.add(source)
    out.discard(name)
    return out


def import_circles(src: Path, package: str) -> list[list[str]]:
    """Every set of modules that import each other around a circle (the strongly connected components
    of the import graph with more than one module), each sorted, in a stable order."""
    modules = module_files(src, package)
    graph = {name: sorted(imported_modules(path, name, modules)) for name, path in modules.items()}
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):       # Tarjan's algorithm; the package has a few hundred modules, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(circles)


def test_no_module_of_linbandits_is_in_an_import_circle():
    assert import_circles(SRC, "linbandits") == []


def write(root: Path, files: dict) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize("files, circles", [
    # the circle of issue 35: one side's import hidden inside a function
    ({"pkg/products.py": "from pkg.claims.report import judge\n",
      "pkg/claims/report.py": "def load():\n    from pkg.products import read_yaml\n"},
     [["pkg.claims.report", "pkg.products"]]),
    # three modules around, one by `from package import module`, one relative
    ({"pkg/a.py": "from pkg import b\n", "pkg/b.py": "import pkg.c\n",
      "pkg/c.py": "def f():\n    from .a import g\n"},
     [["pkg.a", "pkg.b", "pkg.c"]]),
    # the mend: the shared function in a module of its own
    ({"pkg/products.py": "from pkg.claims.report import judge\nfrom pkg.yamlfile import read_yaml\n",
      "pkg/claims/report.py": "def load():\n    from pkg.yamlfile import read_yaml\n", "pkg/yamlfile.py": ""},
     []),
    # a package that imports its own submodule, which imports a name of the package: no circle of modules
    ({"pkg/claims/__init__.py": "from pkg.claims.engine import HOLDS\n",
      "pkg/claims/engine.py": "HOLDS = 'holds'\n"},
     []),
])
def test_a_planted_circle_is_found_and_only_a_circle(tmp_path, files, circles):
    assert import_circles(write(tmp_path, files), "pkg") == circles
