"""A student page shows its given data without being run, and nothing of an answer.

The rule lives in rooflinelib/exercises/generator.py's docstring: a code cell keeps its stored
outputs (tags and figure images included) only when it comes before the first cell that holds a
solution block and the generator left its source unchanged."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import generator
from rooflinelib.exercises.generator import make_exercise

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
SETUP = "from rooflinelib.exercises.grading import NOT_ANSWERED"
PNG_1PX = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _figure_cell(source):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = ["figure", "figure-recorded-h200"]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="given table\n"),
                    nbformat.v4.new_output("display_data", data={"image/png": PNG_1PX, "text/plain": "alt"})]
    cell.execution_count = 2
    return cell


def _notebook(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SETUP), *cells]
    return nb


def test_a_given_cell_keeps_its_outputs_tags_and_image_and_a_later_one_does_not():
    given = _figure_cell("ex.machine_figure()")
    answer = nbformat.v4.new_code_cell("### BEGIN SOLUTION\nridge = 40\n### END SOLUTION")
    later = _figure_cell("ex.placement_figure(ridge)")
    out = make_exercise(_notebook(given, answer, later), "nb")
    kept = out.cells[1]
    # count 1, as the solution and refresh store it: nbval refuses an output without a count
    assert kept.outputs == given.outputs and kept.execution_count == 1
    assert kept.metadata["tags"] == ["figure", "figure-recorded-h200"]
    # the figure after the answer may plot the answer: cleared, and marked as left out
    assert out.cells[3].outputs == [] and out.cells[3].metadata["tags"] == [generator.EXERCISE_FIGURE_TAG]


def test_a_given_cell_the_generator_changes_keeps_no_output():
    changed = nbformat.v4.new_code_cell("x = 1\n### BEGIN HIDDEN TESTS\nassert x == 1\n### END HIDDEN TESTS\nx")
    changed.metadata["tags"] = ["recorded-output"]
    changed.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    answer = nbformat.v4.new_code_cell("### BEGIN SOLUTION\nridge = 40\n### END SOLUTION")
    out = make_exercise(_notebook(changed, answer), "nb")
    assert out.cells[1].source == "x = 1\nx" and out.cells[1].outputs == []
    assert out.cells[1].execution_count is None
    assert "tags" not in out.cells[1].metadata


def test_a_notebook_without_an_answer_cell_keeps_no_output():
    out = make_exercise(_notebook(_figure_cell("ex.machine_figure()")), "nb")
    assert out.cells[1].outputs == [] and out.cells[1].metadata["tags"] == [generator.EXERCISE_FIGURE_TAG]


def test_a_given_cell_with_the_old_comment_mark_keeps_its_output_under_the_tag():
    given = nbformat.v4.new_code_cell(generator.RECORDED_MARK + "\nprint(setup)")
    given.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ceilings H200\n")]
    answer = nbformat.v4.new_code_cell("### BEGIN SOLUTION\nridge = 40\n### END SOLUTION")
    out = make_exercise(_notebook(given, answer), "nb")
    assert out.cells[1].source == "print(setup)" and out.cells[1].outputs == given.outputs
    assert out.cells[1].metadata["tags"] == ["recorded-output"]


# --- the course's pages ------------------------------------------------------------------------

def _first_answer(nb) -> int:
    return [generator._cell_role(c) for c in nb.cells].index("solution")


def _text(cell) -> str:
    return "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))


def _pair(path):
    solution = nbformat.read(str(path), as_version=4)
    exercise = nbformat.read(str(ROOT / "exercises" / path.name), as_version=4)
    return solution, exercise


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_each_page_keeps_exactly_the_outputs_of_its_given_cells(path):
    solution, exercise = _pair(path)
    first = _first_answer(solution)
    given = {c.id: c for c in solution.cells[:first] if c.cell_type == "code"}
    answered_ids = {c.id for c in solution.cells[first:]}
    for cell in exercise.cells:
        if cell.cell_type != "code":
            continue
        assert cell.execution_count == (1 if cell.outputs else None), cell.id
        if cell.id in given:
            assert cell.outputs == given[cell.id].outputs, cell.id
            assert cell.metadata.get("tags", []) == given[cell.id].metadata.get("tags", []), cell.id
        else:
            assert cell.id in answered_ids and cell.outputs == [], cell.id


def test_the_pages_show_their_given_tables_and_say_the_mode_they_were_run_in():
    shown = {path.name: "".join(_text(c) for c in _pair(path)[1].cells) for path in SOLUTIONS}
    assert "bf16 matrix  compute  900,000 GFLOP/s" in shown["02_classify_kernels.ipynb"]
    assert "ceilings           NVIDIA H200 (recorded)" in shown["04_place_your_kernel.ipynb"]
    assert "def gpu_sum(x, out):" in shown["04_place_your_kernel.ipynb"]
    # the capstone's setup cell prints the mode, so the stored run says it is the recorded data
    # and a student's own run says which mode it ran in
    assert shown["06_place_your_kernel_capstone.ipynb"].startswith("Mode: recorded H200 data")


@pytest.mark.slow
@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_kept_outputs_are_what_the_unanswered_page_prints_and_no_answer_line(path, monkeypatch):
    """The kept outputs are the page's own recorded-mode run with no answer written (so none can
    depend on an answer), and no kept line is one that only the solution's answered cells print."""
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("ROOFLINE_MODE", "recorded")  # the mode the solutions' outputs were run in
    solution, exercise = _pair(path)
    run = nbformat.read(str(ROOT / "exercises" / path.name), as_version=4)
    nbclient.NotebookClient(run, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "exercises")}}).execute()
    ran = {c.id: _text(c) for c in run.cells if c.cell_type == "code"}
    kept = {c.id: _text(c) for c in exercise.cells if c.cell_type == "code" and c.outputs}
    for cell_id, text in kept.items():
        assert text == ran[cell_id], cell_id
    unanswered_lines = {line for text in ran.values() for line in text.splitlines()}
    answer_only = {line for c in solution.cells[_first_answer(solution):] if c.cell_type == "code"
                   for line in _text(c).splitlines()} - unanswered_lines
    leaked = {line for text in kept.values() for line in text.splitlines()} & answer_only
    assert not leaked, sorted(leaked)[:3]
