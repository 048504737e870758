"""The folder of shipped recordings is located in one place, store/recorded.py, and every loader
finds its file through it: no other module of the package names DATA_DIR or builds a path to
a 'data' folder (ten modules joined DATA_DIR themselves, two through store.results' copy)."""
import ast
from pathlib import Path

import pytest

from rooflinelib.store import recorded as recorded_folder
from rooflinelib.store import results

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "rooflinelib"
HOME = PACKAGE / "store" / "recorded.py"


def _builds_a_data_path(node) -> bool:
    """``x / "data"``, ``x.joinpath("data")`` or ``os.path.join(..., "data")`` (a docstring or a
    message may say where the folder is)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return isinstance(node.right, ast.Constant) and node.right.value == "data"
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("joinpath", "join"):
        return any(isinstance(a, ast.Constant) and a.value == "data" for a in node.args)
    return False


def offences():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == HOME or "__pycache__" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = (isinstance(node, ast.Name) and node.id == "DATA_DIR") or \
                    (isinstance(node, ast.Attribute) and node.attr == "DATA_DIR") or \
                    (isinstance(node, ast.alias) and node.name == "DATA_DIR")
            if named or _builds_a_data_path(node):
                yield f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"


def test_no_module_but_store_recorded_locates_the_recorded_folder():
    assert list(offences()) == []


def test_a_recorded_file_is_a_name_in_the_one_folder():
    assert recorded_folder.recorded_file("h200_ceilings_numba.json").is_file()
    for bad in ("", "..", "../README.md", "sub/x.json", "/etc/passwd", None):
        with pytest.raises(ValueError, match="recorded file"):
            recorded_folder.recorded_file(bad)
    assert recorded_folder.is_recorded(recorded_folder.recorded_file("h200_ceilings_numba.json"))
    assert not recorded_folder.is_recorded(ROOT / "README.md")


def test_pointing_the_one_folder_elsewhere_moves_every_loader(monkeypatch, tmp_path):
    monkeypatch.setattr(recorded_folder, "DATA_DIR", tmp_path)
    assert results.recorded_names() == []
    with pytest.raises(results.ResultError):
        results.recorded("ceilings", "numba")
    from rooflinelib.experiments import record
    from rooflinelib.hierarchy import workingset_files
    from rooflinelib.profiling import recorded as profiles
    assert record.recorded_path().parent == tmp_path
    for load in (workingset_files.recorded, profiles.recorded_profiles):
        with pytest.raises(Exception):
            load()
