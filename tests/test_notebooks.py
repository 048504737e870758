"""Committed notebooks: canonical nbformat, fixed kernelspec, no widget state, no plotly.js,
under 1 MB, outputs stored only where nbval checks them.  (nbval itself runs them: see course.py.)
"""
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import notebook_tools  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_committable(path):
    assert notebook_tools.check(path) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_checks_some_output(path):
    # Deterministic results are checked, not only executed: at least one cell per notebook
    # carries stored output or asserts.
    nb = nbformat.read(str(path), as_version=4)
    checked = [c for c in nb.cells if notebook_tools.is_checked(c)]
    asserting = [c for c in nb.cells if c.cell_type == "code" and "assert " in c.source]
    assert checked or asserting


def test_check_catches_what_it_should(tmp_path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(1)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "text/plain": "x", "application/vnd.jupyter.widget-view+json": {"model_id": "m"}})]
    tagged = nbformat.v4.new_code_cell("print(2)")
    tagged.metadata["tags"] = [notebook_tools.CHECK_TAG]
    nb.cells = [cell, tagged, nbformat.v4.new_code_cell("from math import *"),
                nbformat.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(3)")]
    nb.metadata["widgets"] = {"state": {}}
    path = tmp_path / "bad.ipynb"
    nbformat.write(nb, str(path))
    problems = "\n".join(notebook_tools.check(path))
    for expected in ("a widget view", "kernelspec", "saved widget state", "cell 0: outputs stored",
                     "cell 1: tagged nbval-check-output but has no stored output",
                     "cell 2: star import", "cell 3: nbval marker NBVAL_CHECK_OUTPUT written as a comment",
                     "not in canonical form"):
        assert expected in problems
    notebook_tools.strip(path)
    remaining = notebook_tools.check(path)
    assert remaining[:2] == ["cell 1: tagged nbval-check-output but has no stored output",
                             "cell 2: star import"]
    assert notebook_tools.tags(path) == 1 and notebook_tools.tags(path) == 0  # idempotent
    assert notebook_tools.check(path) == ["cell 1: tagged nbval-check-output but has no stored output",
                                          "cell 2: star import", "cell 3: tagged nbval-check-output but has no stored output"]


def test_canonical_keeps_only_plain_text_of_checked_cells():
    nb = nbformat.v4.new_notebook()
    checked = nbformat.v4.new_code_cell("1")
    checked.metadata["tags"] = [notebook_tools.CHECK_TAG]
    checked.outputs = [nbformat.v4.new_output("execute_result", execution_count=7, data={
        "text/plain": "1", "text/html": "<b>1</b>"})]
    nb.cells = [checked]
    out = notebook_tools.canonical(nb)
    assert out.cells[0].outputs[0].data == {"text/plain": "1"}
    assert out.cells[0].execution_count == 1
    assert out.metadata["kernelspec"] == notebook_tools.KERNELSPEC


def test_recorded_run_cells_keep_their_printed_text_and_nothing_else(tmp_path):
    nb = nbformat.v4.new_notebook()
    recorded = nbformat.v4.new_code_cell(notebook_tools.RECORDED_MARK + "\nprint(lab1.message)")
    recorded.outputs = [nbformat.v4.new_output("stream", name="stdout", text="recorded H200\n"),
                        nbformat.v4.new_output("display_data", data={"text/plain": "Figure()"})]
    plain = nbformat.v4.new_code_cell("print(3)")
    plain.outputs = [nbformat.v4.new_output("stream", name="stdout", text="3\n")]
    nb.cells = [recorded, plain]
    figure = nbformat.v4.new_output("display_data", data={
        "text/plain": "Figure({...})", "application/vnd.plotly.v1+json": {}})
    recorded.outputs.append(figure)
    out = notebook_tools.canonical(nb)
    assert [o.output_type for o in out.cells[0].outputs] == ["stream", "display_data"]
    assert out.cells[0].outputs[1].data == {"text/plain": "Figure()"}  # a plain result stays
    assert out.cells[0].outputs[0].text == "recorded H200\n"
    assert out.cells[1].outputs == []
    empty = nbformat.v4.new_notebook()
    empty.cells = [nbformat.v4.new_code_cell(notebook_tools.RECORDED_MARK + "\nprint(1)")]
    path = tmp_path / "empty.ipynb"
    nbformat.write(notebook_tools.canonical(empty), str(path))
    assert any("has no stored output" in p for p in notebook_tools.check(path))


MEASURED = [p for p in NOTEBOOKS if p.name[:2] in ("03", "04", "05", "06")]


@pytest.mark.parametrize("path", MEASURED, ids=[p.name for p in MEASURED])
def test_measured_notebooks_show_a_recorded_run_before_they_are_run(path):
    # The prose says what the tables show ("every row says verified"): the committed page
    # carries the text of a run in recorded mode, so it reads right before anyone runs it.
    nb = nbformat.read(str(path), as_version=4)
    recorded = [c for c in nb.cells if notebook_tools.is_recorded(c)]
    assert recorded, path.name
    text = "".join(o.text for c in recorded for o in c.outputs)
    assert "recorded H200" in text or "Recorded on NVIDIA H200" in text


def test_tags_moves_every_comment_marker_and_keeps_outputs(tmp_path):
    nb = nbformat.v4.new_notebook()
    marked = nbformat.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(1)")
    marked.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    skipped = nbformat.v4.new_code_cell("x = 1\n# NBVAL_SKIP\ny = 2")
    skipped.metadata["tags"] = ["keep-me"]
    plain = nbformat.v4.new_code_cell("# not NBVAL_CHECK_OUTPUT\nprint(3)")
    nb.cells = [marked, skipped, plain, nbformat.v4.new_markdown_cell("# NBVAL_SKIP")]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(path))
    assert notebook_tools.tags(path) == 2
    out = nbformat.read(str(path), as_version=4)
    assert out.cells[0].source == "print(1)" and out.cells[0].metadata.tags == ["nbval-check-output"]
    assert out.cells[0].outputs[0].text == "1\n"
    assert out.cells[1].source == "x = 1\ny = 2" and out.cells[1].metadata.tags == ["keep-me", "nbval-skip"]
    assert out.cells[2].source == plain.source and "tags" not in out.cells[2].metadata
    assert out.cells[3].source == "# NBVAL_SKIP"  # markdown is prose, never a marker
    before = path.read_text()
    assert notebook_tools.tags(path) == 0 and path.read_text() == before


ALL_NOTEBOOKS = NOTEBOOKS + sorted((ROOT / "solutions").glob("*.ipynb")) + sorted((ROOT / "exercises").glob("*.ipynb"))


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=[f"{p.parent.name}/{p.name}" for p in ALL_NOTEBOOKS])
def test_no_nbval_marker_is_a_visible_comment(path):
    nb = nbformat.read(str(path), as_version=4)
    visible = [i for i, c in enumerate(nb.cells) if notebook_tools.comment_markers(c)]
    assert not visible, f"cells {visible}: run tests/notebook_tools.py tags {path.relative_to(ROOT)}"
