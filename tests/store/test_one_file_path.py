"""Every file the package and the labs read or write goes through rooflinelib.store.fileio: no other
module opens a file itself.  A new ``open(...)`` or ``Path.write_text`` elsewhere fails here,
naming the file and the line, so that the one read path and the one write path stay one."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "rooflinelib").rglob("*.py")) + sorted((ROOT / "labs").glob("*.py"))

#: Method names that read or write a file by themselves.
FILE_METHODS = {"read_text", "write_text", "read_bytes", "write_bytes", "write_html", "open"}
#: Where a raw call is the point: the one path itself, and the CLI's dup2 of /dev/null over a
#: stdout whose reader left.
ALLOWED = {("rooflinelib/store/fileio.py", "os.open"), ("rooflinelib/cli/__init__.py", "os.open")}


def _calls(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            yield node.lineno, "open"
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else "?"
            if func.attr in FILE_METHODS:
                yield node.lineno, f"{owner}.{func.attr}"
            elif owner == "json" and func.attr in ("load", "dump"):
                yield node.lineno, f"json.{func.attr}"


def test_no_module_reads_or_writes_a_file_but_through_fileio():
    found = []
    for path in SOURCES:
        relative = path.relative_to(ROOT).as_posix()
        for line, call in _calls(path):
            if (relative, call) not in ALLOWED:
                found.append(f"{relative}:{line}: {call}")
    assert not found, "use rooflinelib.store.fileio (read_text, read_json, write_atomic):\n" + "\n".join(found)


def test_the_check_sees_the_calls_it_forbids(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import json\nopen('x')\nPath('y').write_text('z')\njson.load(f)\nfig.write_html('a')\n")
    assert [call for _, call in _calls(sample)] == ["open", "?.write_text", "json.load", "fig.write_html"]
