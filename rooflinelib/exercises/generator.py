"""Turn the instructor notebooks in ``solutions/`` into the student notebooks in ``exercises/``.

``solutions/`` is the single source.  In its code cells, nbgrader-style markers fence off what
students must not see::

    ### BEGIN SOLUTION
    intensity = 1 / 12      # the worked answer
    ### END SOLUTION

    ### BEGIN HIDDEN TESTS
    assert check.passed, check   # the instructor copy insists that every check passes
    ### END HIDDEN TESTS

A solution block becomes a stub that binds the same names to ``NOT_ANSWERED``
(``intensity = NOT_ANSWERED``); a function defined in the block keeps its signature and docstring
and returns ``NOT_ANSWERED``.  A hidden-tests block disappears.  Nested, unclosed, stray or
misspelled markers are refused with a one-line error naming the notebook, the cell and the line.

Outputs.  The page must show its given data (the tables, menus and figures a student reads
before answering) without being run, on GitHub too, and must show nothing of an answer.  So a
code cell keeps its stored outputs, their tags (``recorded-output``, ``figure``, ...) and its
figure images only when it comes before the notebook's first cell that holds a solution block
and the generator left its source unchanged: no such cell can read an answer, since none has
been written yet.  Those outputs are the solution's recorded-mode run (ROOFLINE_MODE=recorded,
tests/support/notebook_tools.py), so a cell that prints the mode says so; the student's own run
replaces them.  Every other cell is cleared (its figure cell tagged ``figure-in-exercise``),
except a cell tagged ``nbval-check-output`` whose source is unchanged, which nbval compares.
A notebook without a solution block keeps no outputs (it has no line between given and
answered).  A cell that keeps outputs has execution count 1, as in the solution (nbval refuses a
stored output without one: "unrun reference cell"); every other count is cleared.

    python -m rooflinelib.exercises.generator            # rewrite exercises/ from solutions/
    python -m rooflinelib.exercises.generator --check    # exit 1 if exercises/ differs from what it would write

nbgrader.  Both copies carry nbgrader's cell metadata (schema 3), derived from the markers, so
a course that runs nbgrader can ``generate_assignment`` and ``autograde`` them: a cell with a
solution block is an autograded answer (``solution``), a cell with hidden tests is an
autograded test worth :data:`TEST_POINTS` point (``grade``, ``locked``, ``points``), and each
has a stable ``grade_id`` named after what it answers or checks.  Writing updates the metadata
of ``solutions/`` in place (nothing else in them); ``--check`` reports a solution whose
metadata is missing or stale.  nbgrader's own release replaces an answer with ``raise
NotImplementedError()``; the copies here keep the ``NOT_ANSWERED`` stubs, whose checks say
NOT ANSWERED YET instead of raising.
"""
from __future__ import annotations

import argparse
import ast
import copy
import json
import re
import sys
import textwrap
from pathlib import Path

from rooflinelib.store.fileio import read_text, write_atomic

_MARKER = re.compile(r"^(?P<indent>[ \t]*)#+[ \t]*(?P<edge>BEGIN|END)[ \t]+"
                     r"(?P<kind>SOLUTION|HIDDEN TESTS)[ \t]*$")
# Anything that looks like a marker but is not exactly one: refused rather than ignored, so a
# typo can never leak a solution into the student copy.
_LOOSE_MARKER = re.compile(r"(BEGIN|END)\s*(SOLUTION|HIDDEN\s*TESTS?)", re.IGNORECASE)

SENTINEL = "NOT_ANSWERED"
#: A solution cell that stores the output of a run in recorded mode starts with this line (see
#: tests/support/notebook_tools.py).  The student copy drops the line; a cell that keeps its
#: output (see the module docstring) gets the tag that replaced it.
RECORDED_MARK = "# stored output: recorded H200 run"
#: The tags that now mark such cells, and cells that store a static image of their figure (and
#: say where its data comes from).
STORED_OUTPUT_TAGS = ("recorded-output", "figure", "figure-live-only", "figure-recorded-h200")
#: The tag of a student copy's cell that draws a figure whose image the copy leaves out (a cell
#: at or after the first answer cell: the solution's image may show the worked answers; the
#: student's own run draws it).  tests/support/notebook_tools.py expects no image there (same name).
EXERCISE_FIGURE_TAG = "figure-in-exercise"
MARKDOWN_STUB = "_Write your answer here._"


#: nbgrader's cell-metadata schema, and the points of one autograded check.
NBGRADER_SCHEMA = 3
TEST_POINTS = 1


class MarkerError(ValueError):
    """A solution notebook whose markers cannot be turned into an exercise.  One line."""


def _cell_role(cell) -> str:
    """'solution', 'test' or '' from the cell's markers (the markers are validated later)."""
    kinds = {m.group("kind") for m in map(_MARKER.match, cell.source.splitlines()) if m}
    if cell.cell_type == "code" and "HIDDEN TESTS" in kinds:
        return "test"
    return "solution" if "SOLUTION" in kinds else ""


def _grade_name(cell, role: str, index: int) -> str:
    """What a cell answers (the first name it assigns) or checks (the check it calls)."""
    if role == "test":
        match = re.search(r"\.(check_\w+|\w+\((?=\d))", cell.source)
        if match and match.group(1).endswith("("):  # ex.model_answer(3, ...): model-answer-3
            number = re.match(r"\d+", cell.source[match.end():]).group(0)
            return match.group(1)[:-1].replace("_", "-") + f"-{number}"
    else:
        match = re.search(r"^[ \t]*(?:def[ \t]+)?([A-Za-z_]\w*)[ \t]*(?:=|\()", _solution_lines(cell), re.M)
    return match.group(1).replace("_", "-") if match else f"cell-{index}"


def _solution_lines(cell) -> str:
    inside, lines = False, []
    for line in cell.source.splitlines():
        m = _MARKER.match(line)
        if m:
            inside = m.group("edge") == "BEGIN" and m.group("kind") == "SOLUTION"
        elif inside:
            lines.append(line)
    return "\n".join(lines)


def nbgrader_cells(notebook, stem: str) -> list:
    """``[(cell index, nbgrader metadata or None)]`` for every cell of a solution notebook."""
    out, used, answered = [], set(), None
    for index, cell in enumerate(notebook.cells, start=1):
        role = _cell_role(cell)
        if not role:
            out.append((index, None))
            continue
        name = _grade_name(cell, role, index)
        if role == "solution":
            answered = name
        elif answered is not None:  # a check is named after the answer it checks
            name, answered = answered, None
        elif name.startswith("check-"):
            name = name[len("check-"):]
        base = f"{stem}-{'check' if role == 'test' else 'answer'}-{name}"
        grade_id, n = base, 2
        while grade_id in used:
            grade_id, n = f"{base}-{n}", n + 1
        used.add(grade_id)
        meta = {"grade": role == "test", "grade_id": grade_id, "locked": role == "test",
                "schema_version": NBGRADER_SCHEMA, "solution": role == "solution", "task": False}
        if role == "test":
            meta["points"] = TEST_POINTS
        out.append((index, meta))
    return out


def with_nbgrader_metadata(notebook, stem: str):
    """A copy of ``notebook`` whose cells carry exactly the nbgrader metadata of their markers."""
    marked = copy.deepcopy(notebook)
    for (index, meta), cell in zip(nbgrader_cells(marked, stem), marked.cells):
        cell.metadata.pop("nbgrader", None)
        if meta is not None:
            cell.metadata["nbgrader"] = meta
    return marked


def _stub_for_function(node: ast.FunctionDef, indent: str) -> list:
    if node.decorator_list:
        raise ValueError(f"function {node.name!r} has decorators; stubs cannot keep them")
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    lines = [f"{indent}{keyword} {node.name}({ast.unparse(node.args)}){returns}:"]
    doc = ast.get_docstring(node, clean=True)
    inner = indent + "    "
    if doc:
        doc_lines = doc.replace('"""', r'\"\"\"').splitlines()
        if len(doc_lines) == 1:
            lines.append(f'{inner}"""{doc_lines[0]}"""')
        else:
            lines.append(f'{inner}"""{doc_lines[0]}')
            lines += [f"{inner}{line}" if line else "" for line in doc_lines[1:]]
            lines.append(f'{inner}"""')
    lines.append(f"{inner}return {SENTINEL}")
    return lines


def _names_of(target) -> list:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _names_of(element)]
    if isinstance(target, ast.Starred):
        return _names_of(target.value)
    raise ValueError(f"it assigns to {ast.unparse(target)!r}; a stub can only stand in for plain names")


def make_stub(block_lines: list, indent: str) -> list:
    """The stub lines that replace one solution block (``ValueError`` saying why not)."""
    source = textwrap.dedent("".join(block_lines))
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(f"the block is not valid Python on its own ({exc.msg}, block line "
                         f"{exc.lineno})") from None
    names, functions = [], []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names += _names_of(target)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            names += _names_of(node.target)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(node)
        elif isinstance(node, (ast.Expr, ast.Import, ast.ImportFrom, ast.Pass)):
            continue  # the worked answer's displays and helper imports are not part of the stub
        else:
            raise ValueError(f"a solution block may hold assignments, functions and expressions; "
                             f"found {type(node).__name__} at block line {node.lineno}")
    lines = []
    for name in dict.fromkeys(n for n in names if n not in {f.name for f in functions}):
        lines.append(f"{indent}{name} = {SENTINEL}")
    for function in functions:
        if lines:
            lines += [""] if indent else ["", ""]  # PEP 8: two blank lines between top-level defs
        lines += _stub_for_function(function, indent)
    if not lines:
        raise ValueError("the block binds no name, so the exercise would have nothing to fill in")
    return [line + "\n" for line in lines]


def transform_source(source: str, cell_type: str, where: str):
    """(new source, number of stubs) for one cell; :class:`MarkerError` on bad markers."""
    text, stubs, _ = _transform(source, cell_type, where)
    return text, stubs


def _transform(source: str, cell_type: str, where: str):
    lines = source.splitlines(keepends=True)
    out, stubs, kept = [], 0, []
    open_at, open_kind, open_indent, block = None, None, "", []
    for number, line in enumerate(lines, start=1):
        match = _MARKER.match(line.rstrip("\r\n"))
        if match is None and _LOOSE_MARKER.search(line):
            raise MarkerError(f"{where} line {number}: {line.strip()!r} looks like a marker but is "
                              f"not one; write '### BEGIN SOLUTION' on a line of its own")
        if match is None:
            if open_at:
                block.append(line)
            else:
                out.append(line)
                kept.append(line)
            continue
        edge, kind = match.group("edge"), match.group("kind")
        if cell_type != "code" and kind != "SOLUTION":
            raise MarkerError(f"{where} line {number}: {kind} markers belong in code cells")
        if edge == "BEGIN":
            if open_at is not None:
                raise MarkerError(f"{where} line {number}: nested '{line.strip()}' inside the "
                                  f"{open_kind} block opened at line {open_at}")
            open_at, open_kind, open_indent, block = number, kind, match.group("indent"), []
            continue
        if open_at is None:
            raise MarkerError(f"{where} line {number}: '{line.strip()}' without a matching BEGIN")
        if kind != open_kind:
            raise MarkerError(f"{where} line {number}: '{line.strip()}' closes the {open_kind} "
                              f"block opened at line {open_at}")
        if kind == "SOLUTION":
            if cell_type == "code":
                try:
                    out += make_stub(block, open_indent)
                except ValueError as exc:
                    raise MarkerError(f"{where} solution block at line {open_at}: {exc}") from None
            else:
                out.append(MARKDOWN_STUB + "\n")
            stubs += 1
        open_at, block = None, []
    if open_at is not None:
        raise MarkerError(f"{where} line {open_at}: '### BEGIN {open_kind}' is never closed "
                          f"(blocks must end in the cell they start in)")
    text = "".join(out)
    if text != source:
        text = re.sub(r"\n{4,}", "\n\n\n", text).strip("\n")
    return text, stubs, "".join(kept)


def make_exercise(notebook, name: str = "notebook"):
    """The student copy of one solution notebook (an ``nbformat`` node); which outputs it keeps:
    the module docstring."""
    exercise = copy.deepcopy(notebook)
    cells, sentinel_bound = [], False
    roles = [_cell_role(cell) for cell in exercise.cells]
    first_answer = roles.index("solution") if "solution" in roles else 0  # none: keep nothing
    for index, cell in enumerate(exercise.cells, start=1):
        where = f"{name} cell {index}"
        original = cell.source
        marked = cell.cell_type == "code" and original.startswith(RECORDED_MARK + "\n")
        if marked:
            original = original[len(RECORDED_MARK) + 1:]
        source, stubs, kept = _transform(original, cell.cell_type, where)
        if cell.cell_type == "code":
            # The sentinel must be imported (outside any solution block) before a stub uses it.
            if re.search(rf"\b{SENTINEL}\b", kept):
                sentinel_bound = True
            elif stubs and not sentinel_bound:
                raise MarkerError(f"{where}: the stub uses {SENTINEL} before any cell imports it; "
                                  f"add 'from rooflinelib.exercises.grading import {SENTINEL}' to the setup cell")
        if original.strip() and not source.strip():
            continue  # a cell that held only hidden tests
        cell.source = source
        if cell.cell_type == "code":
            given = index - 1 < first_answer
            # nbval compares a cell tagged nbval-check-output with its stored output
            checked = "nbval-check-output" in cell.metadata.get("tags", [])
            keep = source == original and (given or checked)
            tags = cell.metadata.get("tags", [])
            if keep and marked and cell.outputs and "recorded-output" not in tags:
                cell.metadata["tags"] = tags + ["recorded-output"]  # the dropped line's meaning
            if not keep:
                cell.outputs = []
                # the tags that say what the outputs are (tests/support/notebook_tools.py) go with them
                before = cell.metadata.get("tags", [])
                tags = [t for t in before if t not in STORED_OUTPUT_TAGS]
                if "figure" in before or "figure-live-only" in before:
                    tags.append(EXERCISE_FIGURE_TAG)
                if tags:
                    cell.metadata["tags"] = tags
                else:
                    cell.metadata.pop("tags", None)
            cell.execution_count = 1 if keep and cell.outputs else None
        cells.append(cell)
    exercise.cells = cells
    return exercise


def notebook_text(notebook) -> str:
    """Canonical text of a notebook, as ``nbformat.write`` produces it."""
    import nbformat

    text = nbformat.writes(notebook)
    return text if text.endswith("\n") else text + "\n"


def _read(path: Path):
    import nbformat

    text = read_text(path, MarkerError, "a notebook", "notebook")
    try:
        return nbformat.reads(text, as_version=4)
    except (json.JSONDecodeError, nbformat.reader.NotJSONError, RecursionError, ValueError) as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise MarkerError(f"{path}: cannot read it as a notebook ({reason[:120]})") from None


def _current(path: Path):
    """The text ``path`` holds now, or None when there is no file yet."""
    if not path.exists() and not path.is_symlink():
        return None
    return read_text(path, MarkerError, "a notebook", "notebook")


def plan(solutions: Path, exercises: Path) -> dict:
    """{exercise path: text it should hold} for every notebook in ``solutions``."""
    wanted = {}
    for path in sorted(solutions.glob("*.ipynb")):
        marked = with_nbgrader_metadata(_read(path), path.stem)
        wanted[exercises / path.name] = notebook_text(make_exercise(marked, f"{solutions.name}/{path.name}"))
    return wanted


def solution_plan(solutions: Path) -> dict:
    """{solution path: its text with the nbgrader metadata of its markers}."""
    return {path: notebook_text(with_nbgrader_metadata(_read(path), path.stem))
            for path in sorted(solutions.glob("*.ipynb"))}


def drift(solutions: Path, exercises: Path) -> list:
    """One line per exercise notebook that differs from what the generator would write, and per
    solution notebook whose nbgrader metadata is missing or stale."""
    wanted = plan(solutions, exercises)
    problems = [f"{solutions.name}/{path.name}: nbgrader metadata missing or stale"
                for path, text in solution_plan(solutions).items() if _current(path) != text]
    for path, text in wanted.items():
        current = _current(path)
        if current is None:
            problems.append(f"{exercises.name}/{path.name} is missing")
        elif current != text:
            problems.append(f"{exercises.name}/{path.name} differs from its solution notebook")
    for path in sorted(exercises.glob("*.ipynb")):
        if path not in wanted:
            problems.append(f"{exercises.name}/{path.name} has no notebook in {solutions.name}/")
    return problems


def write(solutions: Path, exercises: Path) -> list:
    """Write every exercise notebook; return the paths whose content changed."""
    changed = []
    try:
        exercises.mkdir(exist_ok=True)
    except OSError as exc:
        raise MarkerError(f"{exercises}: cannot create the folder ({exc.strerror or exc})") from None
    for path, text in solution_plan(solutions).items():
        if _current(path) != text:
            write_atomic(path, text, MarkerError)
            changed.append(path)
    for path, text in plan(solutions, exercises).items():
        if _current(path) != text:
            write_atomic(path, text, MarkerError)
            changed.append(path)
    return changed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rooflinelib.exercises.generator",
                                     description="Write exercises/*.ipynb from solutions/*.ipynb.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if exercises/ is out of date")
    parser.add_argument("--root", default=".", help="the course folder (default: current folder)")
    args = parser.parse_args(argv)
    root = Path(args.root)
    solutions, exercises = root / "solutions", root / "exercises"
    if not solutions.is_dir():
        print(f"exercisegen: no solutions/ folder in {root.resolve()}", file=sys.stderr)
        return 2
    try:
        if args.check:
            problems = drift(solutions, exercises)
            for line in problems:
                print(f"exercisegen: {line}", file=sys.stderr)
            if problems:
                print("exercisegen: run 'python -m rooflinelib.exercises.generator' and commit the result",
                      file=sys.stderr)
                return 1
            print(f"exercisegen: exercises/ matches solutions/ ({len(list(solutions.glob('*.ipynb')))} notebooks)")
            return 0
        changed = write(solutions, exercises)
    except MarkerError as exc:
        print(f"exercisegen: {exc}", file=sys.stderr)
        return 2
    for path in changed:
        print(f"exercisegen: wrote {path}")
    if not changed:
        print("exercisegen: exercises/ already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
