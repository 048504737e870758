"""The solutions -> exercises generator: stubs, hidden tests, marker errors, drift, the CLI."""
import ast
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import generator
from rooflinelib.exercises.generator import MarkerError, make_exercise, transform_source

ROOT = Path(__file__).resolve().parents[2]
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}

SETUP = "from rooflinelib.exercises.grading import NOT_ANSWERED, check_number"


def notebook(*cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    for index, (kind, source) in enumerate(cells):
        make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
        nb.cells.append(make(source, id=f"cell-{index}"))
    return nb


def stub(source):
    return transform_source(source, "code", "nb cell 1")[0]


# --- stubs -----------------------------------------------------------------------------------

def test_assignments_become_not_answered_and_the_worked_answer_disappears():
    out = stub("n = 2**24\n### BEGIN SOLUTION\nintensity = 1 / 12  # read A, B; write C\n"
               "### END SOLUTION\ncheck(intensity)")
    assert out == "n = 2**24\nintensity = NOT_ANSWERED\ncheck(intensity)"
    assert "12" not in out.replace("2**24", "")


def test_every_bound_name_gets_one_stub_in_order():
    out = stub("### BEGIN SOLUTION\nb, (c, d) = 1, (2, 3)\na: float = 4\nb = 5\na += 1\n"
               "print(a)\nimport math\n### END SOLUTION")
    assert out.splitlines() == ["b = NOT_ANSWERED", "c = NOT_ANSWERED", "d = NOT_ANSWERED",
                                "a = NOT_ANSWERED"]


def test_a_function_keeps_its_signature_and_docstring_and_returns_the_sentinel():
    out = stub('### BEGIN SOLUTION\ndef unfused_bytes(s, d=128, *, e: int = 2) -> float:\n'
               '    """HBM bytes of unfused attention.\n\n    Count Q, K, V and O."""\n'
               '    return e * (4 * s * d + 4 * s * s)\n### END SOLUTION')
    tree = ast.parse(out)
    function = tree.body[0]
    assert function.name == "unfused_bytes"
    assert ast.unparse(function.args) == "s, d=128, *, e: int=2"
    assert ast.get_docstring(function) == "HBM bytes of unfused attention.\n\nCount Q, K, V and O."
    assert ast.unparse(function.body[-1]) == "return NOT_ANSWERED"
    assert "4 * s * s" not in out


def test_indentation_of_the_block_is_kept():
    out = stub("if True:\n    ### BEGIN SOLUTION\n    x = 3\n    ### END SOLUTION\n    y = x")
    assert out == "if True:\n    x = NOT_ANSWERED\n    y = x"
    ast.parse(out)


def test_hidden_tests_disappear():
    out = stub("c = check(x)\n### BEGIN HIDDEN TESTS\nassert c.passed, c\n### END HIDDEN TESTS\nc")
    assert out == "c = check(x)\nc"


def test_a_cell_without_markers_is_untouched():
    source = "x = 1\n\n\n# a comment\n"
    assert transform_source(source, "code", "w") == (source, 0)


def test_markdown_solution_blocks_become_a_prompt():
    out, stubs = transform_source("Why?\n### BEGIN SOLUTION\nBecause.\n### END SOLUTION\n",
                                  "markdown", "w")
    assert stubs == 1 and "Because" not in out and generator.MARKDOWN_STUB in out


# --- marker errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("source, says", [
    ("### BEGIN SOLUTION\nx = 1\n", "never closed"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n### END SOLUTION", "nested"),
    ("### BEGIN SOLUTION\n### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS\n### END SOLUTION", "nested"),
    ("x = 1\n### END SOLUTION", "without a matching BEGIN"),
    ("### BEGIN SOLUTION\nx = 1\n### END HIDDEN TESTS", "closes the SOLUTION block"),
    ("# begin solution\nx = 1", "looks like a marker"),
    ("### BEGIN SOLUTION here\nx = 1\n### END SOLUTION", "looks like a marker"),
    ("x = 1  ### END SOLUTION", "looks like a marker"),
    ("### BEGIN SOLUTION\nprint(1)\n### END SOLUTION", "binds no name"),
    ("### BEGIN SOLUTION\nfor i in range(3):\n    x = i\n### END SOLUTION", "found For"),
    ("### BEGIN SOLUTION\nrow.x = 1\n### END SOLUTION", "plain names"),
    ("### BEGIN SOLUTION\nx = (\n### END SOLUTION", "not valid Python"),
    ("### BEGIN SOLUTION\n@cache\ndef f():\n    return 1\n### END SOLUTION", "decorators"),
])
def test_bad_markers_are_refused_with_one_line_naming_the_place(source, says):
    with pytest.raises(MarkerError) as error:
        transform_source(source, "code", "solutions/x.ipynb cell 4")
    message = str(error.value)
    assert says in message and "\n" not in message
    assert message.startswith("solutions/x.ipynb cell 4")


def test_hidden_tests_in_markdown_are_refused():
    with pytest.raises(MarkerError, match="code cells"):
        transform_source("### BEGIN HIDDEN TESTS\nx\n### END HIDDEN TESTS", "markdown", "w")


def test_a_stub_before_the_sentinel_is_imported_is_refused():
    nb = notebook(("code", "### BEGIN SOLUTION\nx = 1\n### END SOLUTION"), ("code", SETUP))
    with pytest.raises(MarkerError, match="before any cell imports it"):
        make_exercise(nb, "nb")


# --- whole notebooks -------------------------------------------------------------------------

def solution_notebook():
    nb = notebook(
        ("markdown", "# Exercise"),
        ("code", SETUP),
        ("code", "### BEGIN SOLUTION\nridge = 120 / 3\n### END SOLUTION"),
        ("code", "c = check_number(ridge, 40, 'ridge')\n### BEGIN HIDDEN TESTS\nassert c, c\n"
                 "### END HIDDEN TESTS\nc"),
        ("code", "### BEGIN HIDDEN TESTS\nassert ridge == 40\n### END HIDDEN TESTS"),
        ("code", "print(2 + 2)"),
    )
    nb.cells[5].metadata["tags"] = ["nbval-check-output"]
    nb.cells[3].outputs = [nbformat.v4.new_output("stream", text="[PASS] ridge")]
    nb.cells[3].execution_count = 3
    nb.cells[5].outputs = [nbformat.v4.new_output("stream", text="4\n")]
    return nb


def test_exercise_notebook_shape():
    exercise = make_exercise(solution_notebook(), "nb")
    sources = [c.source for c in exercise.cells]
    assert sources == ["# Exercise", SETUP, "ridge = NOT_ANSWERED", "c = check_number(ridge, 40, 'ridge')\nc",
                       "print(2 + 2)"]
    assert exercise.cells[3].outputs == [] and exercise.cells[3].execution_count is None
    assert exercise.cells[4].outputs[0]["text"] == "4\n"  # checked outputs stay
    assert exercise.metadata["kernelspec"] == KERNELSPEC
    assert [c.id for c in exercise.cells] == ["cell-0", "cell-1", "cell-2", "cell-3", "cell-5"]
    nbformat.validate(exercise)


def test_the_source_notebook_is_not_modified():
    nb = solution_notebook()
    before = nbformat.writes(nb)
    make_exercise(nb, "nb")
    assert nbformat.writes(nb) == before


def test_generation_is_deterministic():
    assert generator.notebook_text(make_exercise(solution_notebook())) == \
        generator.notebook_text(make_exercise(solution_notebook()))


# --- the command line ------------------------------------------------------------------------

def course(tmp_path):
    (tmp_path / "solutions").mkdir()
    nbformat.write(solution_notebook(), str(tmp_path / "solutions" / "01_ridge.ipynb"))
    return tmp_path


def test_cli_writes_then_check_passes_then_detects_drift(tmp_path, capsys):
    root = course(tmp_path)
    assert generator.main(["--root", str(root), "--check"]) == 1
    assert "01_ridge.ipynb is missing" in capsys.readouterr().err
    assert generator.main(["--root", str(root)]) == 0
    assert generator.main(["--root", str(root), "--check"]) == 0
    target = root / "exercises" / "01_ridge.ipynb"
    assert "NOT_ANSWERED" in target.read_text() and "120 / 3" not in target.read_text()
    target.write_text(target.read_text().replace("NOT_ANSWERED", "40", 1))
    assert generator.main(["--root", str(root), "--check"]) == 1
    assert "differs from its solution" in capsys.readouterr().err
    assert generator.main(["--root", str(root)]) == 0
    (root / "exercises" / "99_orphan.ipynb").write_text(target.read_text())
    assert generator.main(["--root", str(root), "--check"]) == 1
    assert "99_orphan.ipynb has no notebook" in capsys.readouterr().err


def test_cli_reports_marker_errors_in_one_line_and_exit_2(tmp_path, capsys):
    root = course(tmp_path)
    nb = solution_notebook()
    nb.cells[2].source = "### BEGIN SOLUTION\nridge = 40\n"
    nbformat.write(nb, str(root / "solutions" / "01_ridge.ipynb"))
    assert generator.main(["--root", str(root)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "01_ridge.ipynb cell 3 line 1" in err and "never closed" in err
    assert not (root / "exercises" / "01_ridge.ipynb").exists()


def test_cli_without_solutions_or_with_a_broken_notebook(tmp_path, capsys):
    assert generator.main(["--root", str(tmp_path)]) == 2
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "bad.ipynb").write_text("{not json")
    assert generator.main(["--root", str(tmp_path), "--check"]) == 2
    assert "cannot read it as a notebook" in capsys.readouterr().err


# --- the course's own notebooks --------------------------------------------------------------

SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))


@pytest.mark.skipif(not SOLUTIONS, reason="no solution notebooks yet")
def test_committed_exercises_match_their_solutions():
    assert generator.drift(ROOT / "solutions", ROOT / "exercises") == []


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_course_exercises_leak_no_solution_and_parse(path):
    exercise = make_exercise(nbformat.read(str(path), as_version=4), path.name)
    text = generator.notebook_text(exercise)
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS"):
        assert marker not in text
    for cell in exercise.cells:
        if cell.cell_type == "code":
            ast.parse(cell.source)


@pytest.mark.parametrize("path", SOLUTIONS + sorted((ROOT / "exercises").glob("*.ipynb")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_course_notebooks_are_canonical(path):
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert generator.notebook_text(nb) == text, "not written by nbformat.write"
    assert nb.metadata["kernelspec"] == KERNELSPEC
    assert "widgets" not in nb.metadata
    assert len(text.encode()) < 1_000_000
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        solution = path.parent.name == "solutions"
        recorded = (solution and cell.source.startswith(generator.RECORDED_MARK + "\n")
                    or any(tag in tags for tag in generator.STORED_OUTPUT_TAGS))
        if recorded:  # a recorded-mode run (a student copy's given cells too): text and figure images
            assert cell.execution_count == (1 if cell.outputs else None), cell.source[:60]
            for output in cell.outputs:
                assert output.output_type in ("stream", "display_data"), cell.source[:60]
                assert set(output.get("data", {})) <= {"text/plain", "image/png"}, cell.source[:60]
        elif cell.cell_type == "code" and "nbval-check-output" not in cell.metadata.get("tags", []):
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]
        assert "!pip" not in cell.source and "import *" not in cell.source


EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", EXERCISES, ids=lambda p: p.name)
def test_unanswered_exercises_run_clean_and_every_check_says_not_answered_yet(path, monkeypatch):
    """The student copy runs top to bottom without an error, and no check passes or fails.

    On the recorded H200 runs: what a check says of a missing answer does not depend on the
    mode, and nbval runs these same copies in the machine's own mode (live on a CPU in CI)."""
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("ROOFLINE_MODE", "recorded")  # the kernel inherits this environment
    nb = nbformat.read(str(path), as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    checks = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source[:60]
        if cell.source.startswith(("check = ", "model = ")):
            checks += 1
            text = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
            assert "NOT ANSWERED YET" in text.upper(), (cell.source[:60], text[:200])
            for word in ("[PASS]", "[TRY AGAIN]", "[CHECK YOUR INPUT]", "[MODEL ANSWER]"):
                assert word not in text, (cell.source[:60], text[:200])
    assert checks >= 3


def test_the_recorded_output_mark_never_reaches_the_student_copy():
    nb = solution_notebook()
    nb.cells[3].source = generator.RECORDED_MARK + "\n" + nb.cells[3].source
    nb.cells[3].outputs = [nbformat.v4.new_output("stream", text="[PASS] ridge")]
    exercise = make_exercise(nb, "x.ipynb")
    assert all(generator.RECORDED_MARK not in c.source for c in exercise.cells)
    assert exercise.cells[3].outputs == []
    assert exercise.cells[3].source == make_exercise(solution_notebook(), "x.ipynb").cells[3].source


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_every_solution_shows_a_recorded_mode_run(path):
    # The solutions are read as worked answers: each carries the output of a run, so that the
    # PASS lines and the model answers read right before anyone runs it.
    nb = nbformat.read(str(path), as_version=4)
    shown = [c for c in nb.cells if c.cell_type == "code" and c.outputs]
    assert shown, path.name
    text = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "")
                   for c in shown for o in c.outputs)
    assert "[PASS]" in text and "[TRY AGAIN]" not in text, path.name
