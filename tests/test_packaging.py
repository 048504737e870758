"""Packaging: pyproject.toml is the single source of dependencies, environment.yml follows it,
CI runs the README's test command, and ``import rooflinelib`` stays light."""
import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from support.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]

# What `import rooflinelib` must not pull in: the GPU stack, plotting, numpy and the notebook UI.
HEAVY = {"numba", "numba_cuda", "llvmlite", "cupy", "plotly", "numpy", "ipywidgets", "anywidget",
         "IPython", "pandas", "scipy", "matplotlib", "jsonschema"}


def base_requirements():
    return [Requirement(r) for r in PROJECT["dependencies"]]


def all_requirement_names():
    reqs = base_requirements() + [Requirement(r) for extra in PROJECT["optional-dependencies"].values()
                                  for r in extra]
    return {canonicalize_name(r.name) for r in reqs}


# --- environment.yml, read with or without PyYAML ------------------------------------------

def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def parse_plain_yaml(text):
    """Enough YAML for environment.yml: nested mappings, lists of scalars, and list items that
    are one-key mappings (``- pip:`` followed by a deeper list).  Comments are dropped."""
    lines = []
    for raw in text.splitlines():
        body = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if body.strip():
            lines.append((len(body) - len(body.lstrip(" ")), body.strip()))

    def block(i, indent):
        """Parse the lines at ``indent`` starting at i; return (value, next index)."""
        if lines[i][1].startswith("- ") or lines[i][1] == "-":
            items = []
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("-"):
                item = lines[i][1][1:].strip()
                i += 1
                key, sep, rest = item.partition(":")
                if sep and not rest.strip() and i < len(lines) and lines[i][0] > indent:
                    value, i = block(i, lines[i][0])
                    items.append({_scalar(key): value})
                else:
                    items.append(_scalar(item))
            return items, i
        mapping = {}
        while i < len(lines) and lines[i][0] == indent:
            key, sep, rest = lines[i][1].partition(":")
            assert sep, f"environment.yml: cannot read line {lines[i][1]!r}"
            i += 1
            if rest.strip():
                mapping[_scalar(key)] = _scalar(rest)
            elif i < len(lines) and lines[i][0] >= indent and lines[i][1].startswith("-") \
                    or i < len(lines) and lines[i][0] > indent:
                mapping[_scalar(key)], i = block(i, lines[i][0])
            else:
                mapping[_scalar(key)] = None
        return mapping, i

    value, end = block(0, lines[0][0])
    assert end == len(lines), "environment.yml: unexpected indentation"
    return value


ENVIRONMENT_TEXT = (ROOT / "environment.yml").read_text()
ENVIRONMENT = parse_plain_yaml(ENVIRONMENT_TEXT)


def conda_and_pip_entries():
    conda, pip = [], []
    for dep in ENVIRONMENT["dependencies"]:
        if isinstance(dep, dict):
            assert set(dep) == {"pip"}, f"environment.yml: unexpected entry {dep}"
            pip.extend(dep["pip"])
        else:
            conda.append(str(dep))
    return conda, pip


def test_plain_parser_agrees_with_pyyaml():
    yaml = pytest.importorskip("yaml", reason="PyYAML not installed; the plain parser is used alone")
    assert ENVIRONMENT == yaml.safe_load(ENVIRONMENT_TEXT)


def test_plain_parser_reads_the_shape_it_claims():
    text = "name: x\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.12  # c\n  - pip\n" \
           "  - pip:\n      - -e .[test]\n      - 'rich>=13'\n"
    assert parse_plain_yaml(text) == {"name": "x", "channels": ["conda-forge"], "dependencies": [
        "python=3.12", "pip", {"pip": ["-e .[test]", "rich>=13"]}]}


def test_environment_installs_this_project_with_existing_extras():
    _, pip = conda_and_pip_entries()
    editable = [p for p in pip if p.startswith("-e")]
    assert len(editable) == 1, "environment.yml must install the course once, with pip -e"
    match = re.fullmatch(r"-e\s+\.\[([A-Za-z0-9_,\- ]+)\]", editable[0])
    assert match, f"expected '-e .[extras]', got {editable[0]!r}"
    extras = {e.strip() for e in match.group(1).split(",")}
    missing = extras - set(PROJECT["optional-dependencies"])
    assert not missing, f"environment.yml asks for extras pyproject.toml lacks: {missing}"
    assert "test" in extras, "conda users must be able to run the tests"


def test_environment_extras_match_the_test_command():
    course = load_script("course.py")
    _, pip = conda_and_pip_entries()
    extras = re.search(r"\[(.*)\]", next(p for p in pip if p.startswith("-e"))).group(1)
    assert set(extras.split(",")) == set(course.EXTRAS["test"].split(","))


def test_environment_python_satisfies_requires_python():
    conda, _ = conda_and_pip_entries()
    pythons = [c for c in conda if re.match(r"python\b", c)]
    assert len(pythons) == 1
    version = re.fullmatch(r"python\s*=+\s*([0-9.]+)\*?", pythons[0])
    assert version, f"pin python to a version, got {pythons[0]!r}"
    assert SpecifierSet(PROJECT["requires-python"]).contains(version.group(1))


def test_environment_lists_no_dependency_missing_from_pyproject():
    conda, pip = conda_and_pip_entries()
    known = all_requirement_names()
    for entry in conda:
        name = canonicalize_name(re.split(r"[=<>!~ ]", entry, maxsplit=1)[0])
        assert name in {"python", "pip"} or name in known, \
            f"environment.yml installs {entry!r}, which pyproject.toml does not list"
    for entry in pip:
        if entry.startswith("-e"):
            continue
        assert canonicalize_name(Requirement(entry).name) in known, \
            f"environment.yml pip-installs {entry!r}, which pyproject.toml does not list"


# --- pyproject.toml --------------------------------------------------------------------------

def test_numpy_pinned_below_2_5_in_base_dependencies():
    numpy = [r for r in base_requirements() if canonicalize_name(r.name) == "numpy"]
    assert len(numpy) == 1, "numpy must be a base dependency so that every install path obeys the pin"
    spec = numpy[0].specifier
    assert not spec.contains("2.5.0") and not spec.contains("2.5.2") and not spec.contains("3.0.0")
    assert spec.contains("2.4.6")  # the version numba-cuda 0.30.4 is known to work with
    comments = " ".join(line for line in (ROOT / "pyproject.toml").read_text().splitlines()
                        if line.lstrip().startswith("#"))
    assert "2.5" in comments and "numba-cuda" in comments, "say why numpy is pinned, next to the pin"


def test_gpu_stack_only_in_extras():
    base = {canonicalize_name(r.name) for r in base_requirements()}
    assert not base & {"numba-cuda", "cupy", "cupy-cuda13x", "cupy-cuda12x"}
    gpu = {canonicalize_name(Requirement(r).name): Requirement(r)
           for r in PROJECT["optional-dependencies"]["gpu"]}
    assert "numba-cuda" in gpu and gpu["numba-cuda"].specifier.contains("0.30.4")
    assert any(name.startswith("cupy") for name in gpu)


def test_test_extra_has_the_test_tools():
    names = {canonicalize_name(Requirement(r).name) for r in PROJECT["optional-dependencies"]["test"]}
    assert {"pytest", "hypothesis", "nbval"} <= names


def test_console_script_roofline_is_declared_and_resolves():
    target = PYPROJECT["project"]["scripts"]["roofline"]
    module, _, function = target.partition(":")
    assert module and function, f"entry point {target!r} must be module:function"
    # a module file, or a package whose __init__.py defines the function
    stem = ROOT / module.replace(".", "/")
    path = next((p for p in (stem.with_suffix(".py"), stem / "__init__.py") if p.is_file()), None)
    assert path is not None, f"{target!r} points at a module that does not exist"
    tree = ast.parse(path.read_text())
    assert any(isinstance(node, ast.FunctionDef) and node.name == function for node in tree.body)


# --- import weight ---------------------------------------------------------------------------

def modules_after(statement):
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"})
    assert done.returncode == 0, done.stderr
    return {name.partition(".")[0] for name in json.loads(done.stdout)}


@pytest.mark.parametrize("statement", [
    "import rooflinelib",
    "import rooflinelib.core.model, rooflinelib.core.machines, rooflinelib.core.expr, rooflinelib.core.operators",
    "from rooflinelib import *",
])
def test_import_rooflinelib_stays_light(statement):
    loaded = modules_after(statement)
    assert "rooflinelib" in loaded
    assert not loaded & HEAVY, f"{statement!r} imported {sorted(loaded & HEAVY)}"


def test_the_heavy_check_can_fail():
    # guard against a check that passes vacuously: the same probe does see numpy when it loads
    assert "numpy" in modules_after("import numpy")


# --- CI --------------------------------------------------------------------------------------

def readme_quick_start_commands():
    readme = ROOT / "README.md"
    if not readme.exists():
        pytest.skip("README.md does not exist yet, so there is no test command to compare with")
    text = readme.read_text()
    section = text.split("## Quick start", 1)
    assert len(section) == 2, "README.md needs a '## Quick start' section"
    block = re.search(r"```[a-z]*\n(.*?)```", section[1], re.S)
    assert block, "the quick start needs a code block"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines()
            if line.split("#")[0].strip()]


def test_readme_quick_start_is_two_commands():
    commands = readme_quick_start_commands()
    assert len(commands) == 2, commands


def test_ci_runs_the_readme_test_command():
    test_commands = [c for c in readme_quick_start_commands() if c.split()[-1] == "test"]
    assert test_commands == ["python3 course.py test"]
    ci = ROOT / ".ci" / "run"
    assert os.access(ci, os.X_OK), ".ci/run must be executable"
    lines = [l.strip() for l in ci.read_text().splitlines() if l.strip() and not l.strip().startswith("#")]
    runs = [l for l in lines if "course.py" in l]
    assert runs, ".ci/run does not call course.py"
    assert all(re.fullmatch(r"(exec\s+)?python3 course\.py test", l) for l in runs), runs


def test_course_opens_jupyterlab_at_the_root_on_the_first_notebook(monkeypatch):
    course = load_script("course.py")
    calls = []
    monkeypatch.setattr(course, "ensure_env", lambda extras: None)
    monkeypatch.setattr(course, "serve", lambda args: calls.append(args) or 0)
    assert course.main(["--no-browser"]) == 0
    args = calls[-1]
    assert args[1] == "lab" and "--LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb" in args
    # given a notebook alone, Jupyter would serve the notebook's folder, not the repository
    assert f"--ServerApp.root_dir={course.ROOT}" in args and "--no-browser" in args
    course.main(["--ServerApp.root_dir=/elsewhere"])
    assert [a for a in calls[-1] if "root_dir" in a] == ["--ServerApp.root_dir=/elsewhere"]
