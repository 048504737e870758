"""Every package ``__init__`` has the same face: a docstring whose first line says the package's
role and which names each of its modules (a reader of the front door sees every room), and an
explicit ``__all__``: the names the package itself offers, empty where it offers none.  Every
name that code elsewhere imports from a package (rather than from one of its modules) is in that
package's ``__all__``, and every ``__all__`` name exists.  Code defined in an ``__init__`` (a
function, a class, a constant) is part of the face, so it is listed too."""
import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rooflinelib"
INITS = sorted(p for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts)


def dotted(init: Path) -> str:
    return ".".join(init.parent.relative_to(ROOT).parts)


def modules_of(folder: Path) -> list:
    return sorted(p.stem if p.is_file() else p.name for p in folder.iterdir()
                  if (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
                  or (p.is_dir() and (p / "__init__.py").is_file()))


def tree(init: Path) -> ast.Module:
    return ast.parse(init.read_text(encoding="utf-8"))


def declared_all(module: ast.Module):
    for node in module.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return node.value
    return None


def imported_from_packages() -> dict:
    """name -> the files that import it from a package (not from one of its modules)."""
    packages = {dotted(init): set(modules_of(init.parent)) for init in INITS}
    found = {}
    sources = [p for folder in ("rooflinelib", "tests", "benchmarks", "labs")
               for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts]
    for path in sources + [ROOT / "course.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in packages:
                for alias in node.names:
                    if alias.name not in packages[node.module] and alias.name != "*":
                        found.setdefault((node.module, alias.name), []).append(path.relative_to(ROOT))
    return found


@pytest.mark.parametrize("init", INITS, ids=dotted)
def test_the_docstring_says_the_role_and_names_every_module(init):
    doc = ast.get_docstring(tree(init))
    assert doc and doc.splitlines()[0].strip(), f"{dotted(init)}: no docstring saying its role"
    missing = [m for m in modules_of(init.parent) if not re.search(rf"(?<![\w]){m}(?![\w])", doc)]
    assert missing == [], f"{dotted(init)}: the docstring does not name {missing}"


@pytest.mark.parametrize("init", INITS, ids=dotted)
def test_all_is_a_literal_list_of_names_that_exist(init):
    value = declared_all(tree(init))
    assert isinstance(value, (ast.List, ast.Tuple)), f"{dotted(init)}: no literal __all__"
    names = [ast.literal_eval(e) for e in value.elts]
    assert all(isinstance(n, str) for n in names) and len(names) == len(set(names))
    package = importlib.import_module(dotted(init))
    assert [n for n in names if not hasattr(package, n)] == []


@pytest.mark.parametrize("init", INITS, ids=dotted)
def test_what_an_init_defines_is_in_its_all(init):
    module = tree(init)
    listed = {ast.literal_eval(e) for e in declared_all(module).elts} if declared_all(module) else set()
    defined = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
    public = {n for n in defined if not n.startswith("_")}
    assert sorted(public - listed) == [], f"{dotted(init)}: defined but not in __all__"


def test_every_name_imported_from_a_package_is_in_its_all():
    faces = {}
    for init in INITS:
        value = declared_all(tree(init))
        faces[dotted(init)] = {ast.literal_eval(e) for e in value.elts} if value is not None else set()
    outside = {f"from {package} import {name}": sorted(map(str, files))[:3]
               for (package, name), files in imported_from_packages().items()
               if name not in faces[package]}
    assert outside == {}


def test_the_tests_follow_the_package():
    """tests/<role>/ for each sub-package; notebooks, browser, support and the inputs beside them."""
    roles = {init.parent.name for init in INITS if init.parent != PACKAGE}
    extras = {"notebooks", "browser", "support", "data", "profile_targets"}
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert sorted(folders - roles - extras) == [], "a tests/ folder that names no package"
    for folder in folders & roles:
        assert list((ROOT / "tests" / folder).glob("test_*.py")), f"tests/{folder}/ holds no test"
    # a test named for a package (test_measure_cpu.py, test_cli.py) lives in that package's folder
    stray = sorted(p.name for p in (ROOT / "tests").glob("test_*.py")
                   if any(p.stem == f"test_{r}" or p.stem.startswith(f"test_{r}_") for r in roles))
    assert stray == [], f"move these into their package's folder: {stray}"
