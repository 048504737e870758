"""Committed notebooks: canonical nbformat, fixed kernelspec, no widget state, no plotly.js,
under 1 MB, outputs stored only where nbval checks them.  (nbval itself runs them: see course.py.)
"""
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support import notebook_tools  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
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
                     "cell 2: star import", "cell 3: marker 'NBVAL_CHECK_OUTPUT' written as a comment",
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
    recorded = nbformat.v4.new_code_cell("print(lab1.message)")
    recorded.metadata["tags"] = [notebook_tools.RECORDED_TAG]
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
    empty.cells = [nbformat.v4.new_code_cell("print(1)")]
    empty.cells[0].metadata["tags"] = [notebook_tools.RECORDED_TAG]
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
    recorded = nbformat.v4.new_code_cell("# stored output: recorded H200 run\nprint(4)")
    skipped.metadata["tags"] = ["keep-me"]
    plain = nbformat.v4.new_code_cell("# not NBVAL_CHECK_OUTPUT\nprint(3)")
    nb.cells = [marked, skipped, plain, nbformat.v4.new_markdown_cell("# NBVAL_SKIP"), recorded]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(path))
    assert notebook_tools.tags(path) == 3
    out = nbformat.read(str(path), as_version=4)
    assert out.cells[0].source == "print(1)" and out.cells[0].metadata.tags == ["nbval-check-output"]
    assert out.cells[0].outputs[0].text == "1\n"
    assert out.cells[1].source == "x = 1\ny = 2" and out.cells[1].metadata.tags == ["keep-me", "nbval-skip"]
    assert out.cells[2].source == plain.source and "tags" not in out.cells[2].metadata
    assert out.cells[3].source == "# NBVAL_SKIP"  # markdown is prose, never a marker
    # the recorded-run mark students read is a tag too
    assert out.cells[4].source == "print(4)" and out.cells[4].metadata.tags == ["recorded-output"]
    before = path.read_text()
    assert notebook_tools.tags(path) == 0 and path.read_text() == before


ALL_NOTEBOOKS = NOTEBOOKS + sorted((ROOT / "solutions").glob("*.ipynb")) + sorted((ROOT / "exercises").glob("*.ipynb"))


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=[f"{p.parent.name}/{p.name}" for p in ALL_NOTEBOOKS])
def test_no_nbval_marker_is_a_visible_comment(path):
    nb = nbformat.read(str(path), as_version=4)
    visible = [i for i, c in enumerate(nb.cells) if notebook_tools.comment_markers(c)]
    assert not visible, f"cells {visible}: run tests/support/notebook_tools.py tags {path.relative_to(ROOT)}"


# --- every figure visible without running: static images of each figure's first state ---

SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
PNG_1PX = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


@pytest.mark.parametrize("path", NOTEBOOKS + SOLUTIONS, ids=[f"{p.parent.name}/{p.name}" for p in NOTEBOOKS + SOLUTIONS])
def test_every_figure_cell_stores_a_static_image(path):
    # GitHub and nbviewer show no widget and no plotly figure: without a stored PNG the page
    # shows no roofline at all until someone runs it.
    nb = nbformat.read(str(path), as_version=4)
    assert notebook_tools.missing_images(nb) == [], f"run: tests/support/notebook_tools.py refresh {path.relative_to(ROOT)}"


EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))


@pytest.mark.parametrize("path", SOLUTIONS + EXERCISES,
                         ids=[f"{p.parent.name}/{p.name}" for p in SOLUTIONS + EXERCISES])
def test_exercise_notebook_is_committable(path):
    # The same check as the lessons': a solution's captions follow its tags and its recorded
    # cells store their run; a student copy (regenerated from its solution) marks the figure
    # cells whose image it leaves out.
    assert notebook_tools.check(path) == [], f"fix solutions/{path.name}, refresh it, then run exercisegen"


def test_check_finds_a_figure_cell_without_its_image(tmp_path):
    nb = nbformat.v4.new_notebook()
    direct = nbformat.v4.new_code_cell('widgets.time_bounds_widget(n_flops=F)')
    assigned = nbformat.v4.new_code_cell('explorer = widgets.intensity_explorer("H200")')
    named = nbformat.v4.new_code_cell("explorer")
    shown = nbformat.v4.new_code_cell("if graded:\n    display(first.figure(title='x'))")
    drawn = nbformat.v4.new_code_cell('roofline_figure(H200)')
    drawn.outputs = [nbformat.v4.new_output("display_data", data={
        "image/png": PNG_1PX, "text/plain": "[static image]"})]
    live = nbformat.v4.new_code_cell("sweep_figure(live) if live is not None else None")
    live.metadata["tags"] = [notebook_tools.LIVE_ONLY_TAG]
    not_a_figure = nbformat.v4.new_code_cell("figure_count = len(rows)\nprint(figure_count)")
    a_check = nbformat.v4.new_code_cell("check = ex.check_figure(figure)\ncheck")  # grades a figure, draws none
    nb.cells = [direct, assigned, named, shown, drawn, live, not_a_figure, a_check]
    assert notebook_tools.missing_images(nb) == [0, 2, 3]
    path = tmp_path / "figures.ipynb"
    nbformat.write(notebook_tools.canonical(nb), str(path))
    problems = notebook_tools.check(path)
    assert [p.split(":")[0] for p in problems if "static image" in p] == ["cell 0", "cell 2", "cell 3"]
    # the image survives strip (which executes nothing) and is the only output kept
    text = nbformat.reads(path.read_text(), as_version=4)
    assert text.cells[4].outputs[0].data == {"image/png": PNG_1PX, "text/plain": "[static image]"}
    assert text.cells[4].execution_count == 1


def test_canonical_keeps_a_figure_cells_image_and_drops_its_widget():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("widgets.gemm_widget()")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
                        "text/plain": "VBox()", "application/vnd.jupyter.widget-view+json": {"model_id": "m"}}),
                    nbformat.v4.new_output("display_data", data={"image/png": PNG_1PX, "text/plain": "alt"})]
    nb.cells = [cell]
    out = notebook_tools.canonical(nb)
    assert [o.data for o in out.cells[0].outputs] == [{"image/png": PNG_1PX, "text/plain": "alt"}]


def test_check_refuses_an_image_that_is_not_a_png(tmp_path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("roofline_figure(H200)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": "bm90IGEgcG5n", "text/plain": "x"})]
    nb.cells = [cell]
    path = tmp_path / "bad_image.ipynb"
    nbformat.write(notebook_tools.canonical(nb), str(path))
    assert "cell 0: a stored image is not a base64 PNG" in notebook_tools.check(path)


def test_a_caption_says_recorded_h200_only_for_a_cell_tagged_as_drawing_that_data(tmp_path):
    # Figures of the made-up example GPU or a datasheet GPU are the same in every mode; their
    # captions said "its first state in recorded-H200 mode" all the same.
    plain = nbformat.v4.new_code_cell('roofline_figure(get_machine("example 120 TFLOP/s, 3 TB/s"))')
    recorded = nbformat.v4.new_code_cell("roofline_figure(lab1.machine)")
    recorded.metadata["tags"] = [notebook_tools.RECORDED_FIGURE_TAG]
    assert notebook_tools.caption(plain, "The worked example") == (
        "[static image: The worked example, as the cell first draws it; run the cell for the interactive figure]")
    assert "recorded" not in notebook_tools.caption(plain, "The worked example").lower()
    assert "recorded H200 runs" in notebook_tools.caption(recorded, "Measured ceilings")
    widget = notebook_tools._first_line({"figures": [], "lines": ["fraction of roof: 12/60", "side: ridge"]})
    assert widget == "a widget (fraction of roof: 12/60)"
    # check() refuses the old caption, and a caption that disagrees with the cell's tag
    old = "[static image: The worked example, its first state in recorded-H200 mode; run the cell for the interactive figure]"
    nb = nbformat.v4.new_notebook()
    nb.cells = [plain, recorded]
    path = tmp_path / "captions.ipynb"

    def flagged(plain_alt, recorded_alt):
        for cell, alt in ((plain, plain_alt), (recorded, recorded_alt)):
            cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": PNG_1PX, "text/plain": alt})]
        nbformat.write(notebook_tools.canonical(nb), str(path))
        return [p.split(":")[0] for p in notebook_tools.check(path) if "caption" in p]

    right = (notebook_tools.caption(plain, "x"), notebook_tools.caption(recorded, "y"))
    assert flagged(*right) == []
    assert flagged(old, right[1]) == ["cell 0"]
    assert flagged(right[0], right[0]) == ["cell 1"]  # tagged, but captioned as a plain figure
    assert flagged(right[1], right[1]) == ["cell 0"]  # untagged, but captioned as recorded data


def test_static_figure_writes_a_widgets_text_under_its_figure():
    figure = {"data": [], "layout": {"height": 300, "margin": {"b": 50, "l": 220}, "title": {"text": "t"}}}
    out = notebook_tools.static_figure(figure, ["F (FLOPs): 2.4e+11", "x" * 250])
    lines = out["layout"]["annotations"][-1]["text"].split("<br>")
    assert lines[0] == "F (FLOPs): 2.4e+11" and len(lines) == 4  # 250 characters wrap to three lines
    assert out["layout"]["height"] == 300 + 4 * notebook_tools.TEXT_LINE_PX + 12
    assert out["layout"]["margin"]["b"] == 50 + 4 * notebook_tools.TEXT_LINE_PX + 12
    assert out["layout"]["width"] == notebook_tools.IMAGE_WIDTH_PX
    assert figure["layout"]["height"] == 300  # the captured figure is not changed
    alone = notebook_tools.static_figures({"figures": [], "lines": ["verdict: <memory-bound>"]})
    assert len(alone) == 1 and alone[0]["data"] == []
    assert alone[0]["layout"]["annotations"][0]["text"] == "verdict: &lt;memory-bound&gt;"


def _kaleido_and_chromium():
    import os
    import shutil
    try:
        import kaleido  # noqa: F401
    except ImportError:
        kaleido = None
    browser = any(shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome"))
    if kaleido is None or not browser:
        if os.environ.get("ROOFLINE_REQUIRE_BROWSER"):
            pytest.fail("static figure images need kaleido (the test extra) and chromium")
        pytest.skip("kaleido or chromium missing: static figure images are not drawn here")


@pytest.mark.slow
def test_refresh_stores_the_first_state_of_each_figure_the_same_bytes_each_time(tmp_path):
    _kaleido_and_chromium()
    nb = nbformat.v4.new_notebook()
    setup = nbformat.v4.new_code_cell("from rooflinelib.views import widgets\nfrom rooflinelib.core.machines import H200\n"
                                      "from rooflinelib.views.plotting import roofline_figure")
    figure = nbformat.v4.new_code_cell("roofline_figure(H200, compute=['fp32'])")
    widget = nbformat.v4.new_code_cell("bounds = widgets.time_bounds_widget(n_flops=240e9, n_bytes=20e9, "
                                       "peak_gflops=120_000.0, peak_gbps=3_000.0)\nbounds")
    # a later cell moves the widget: the image keeps the state it was displayed in
    later = nbformat.v4.new_code_cell("bounds.flops.value = 1e12\nprint('moved')")
    nb.cells = [setup, figure, widget, later]
    path = tmp_path / "figures.ipynb"
    nbformat.write(nb, str(path))
    notebook_tools.refresh(path)
    first = path.read_bytes()
    out = nbformat.reads(first.decode(), as_version=4)
    assert notebook_tools.check(path) == []
    assert [len(notebook_tools.images_of(c)) for c in out.cells] == [0, 1, 1, 0]
    assert [notebook_tools.FIGURE_TAG in notebook_tools.tags_of(c) for c in out.cells] == [False, True, True, False]
    alt = out.cells[2].outputs[0].data["text/plain"]
    assert "lower bounds on the run time" in alt and notebook_tools.PLAIN_CAPTION in alt
    assert "recorded" not in alt.lower()  # a widget of formula values: no mode to name
    assert out.cells[3].outputs == []  # an unchecked cell's text is not stored
    notebook_tools.refresh(path)
    assert path.read_bytes() == first


def test_capture_hook_records_a_widgets_first_state():
    # The hook that refresh runs in the kernel, run here in an IPython shell of our own.
    IPython = pytest.importorskip("IPython")
    from IPython.testing.globalipapp import get_ipython
    shell = get_ipython()
    before = shell.display_formatter.format
    try:
        shell.run_cell(notebook_tools.CAPTURE_SOURCE % notebook_tools.STATIC_MIMETYPE)
        from rooflinelib.views import widgets
        bounds = widgets.time_bounds_widget(n_flops=240e9, n_bytes=20e9, peak_gflops=120_000.0, peak_gbps=3_000.0)
        data, _ = shell.display_formatter.format(bounds)
        captured = data[notebook_tools.STATIC_MIMETYPE]
        assert captured["lines"][:4] == ["F (FLOPs): 2.4e+11", "M (bytes): 2e+10", "P (GFLOP/s): 1.2e+05",
                                         "B (GB/s): 3e+03"]
        assert len(captured["figures"]) == 1 and captured["figures"][0]["layout"]["title"]["text"] == "lower bounds on the run time"
        assert shell.display_formatter.format(3)[0] == {"text/plain": "3"}  # other objects untouched
    finally:
        shell.display_formatter.format = before


def test_capture_hook_names_a_selection_at_its_first_option():
    # A SelectionSlider made with value= at its first option has an empty .label; its static
    # image showed "parameters:" with nothing after it (notebook 06's link widget).
    pytest.importorskip("IPython")
    widgets = pytest.importorskip("ipywidgets")
    from IPython.testing.globalipapp import get_ipython
    shell = get_ipython()
    before = shell.display_formatter.format
    try:
        shell.run_cell(notebook_tools.CAPTURE_SOURCE % notebook_tools.STATIC_MIMETYPE)
        first = widgets.SelectionSlider(options=[("1e6", 1), ("1e7", 2)], value=1, description="parameters")
        later = widgets.Dropdown(options=["fp32", "bf16"], value="bf16", description="precision")
        assert first.label == ""  # the ipywidgets behaviour this works around
        data, _ = shell.display_formatter.format(widgets.VBox([first, later]))
        assert data[notebook_tools.STATIC_MIMETYPE]["lines"] == ["parameters: 1e6", "precision: bf16"]
    finally:
        shell.display_formatter.format = before


def test_student_copy_drops_the_tags_of_the_outputs_it_drops():
    from rooflinelib.exercises.generator import make_exercise
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("ex.placement_figure(setup)")
    cell.metadata["tags"] = [notebook_tools.FIGURE_TAG, "keep-me"]
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": PNG_1PX, "text/plain": "x"})]
    recorded = nbformat.v4.new_code_cell("print(check)")
    recorded.metadata["tags"] = [notebook_tools.RECORDED_TAG]
    nb.cells = [cell, recorded]
    cell.metadata["tags"].append(notebook_tools.RECORDED_FIGURE_TAG)
    out = make_exercise(nb)
    # the copy's figure cell stores no image (the solution's shows the answers) and says so
    assert out.cells[0].outputs == []
    assert out.cells[0].metadata["tags"] == ["keep-me", notebook_tools.EXERCISE_FIGURE_TAG]
    assert "tags" not in out.cells[1].metadata
    assert notebook_tools.missing_images(out) == []
    out.cells[0].metadata["tags"] = ["keep-me"]
    assert notebook_tools.missing_images(out) == [0]


# --- lessons, not lab logs: length, terms before use, the learning path, no developer paths ---

import re  # noqa: E402

MAX_MARKDOWN_WORDS = 2500


def markdown_words(nb) -> int:
    return sum(len(re.findall(r"\S+", c.source)) for c in nb.cells if c.cell_type == "markdown")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_lecture_notebook_is_at_most_2500_words_of_markdown(path):
    nb = nbformat.read(str(path), as_version=4)
    assert markdown_words(nb) <= MAX_MARKDOWN_WORDS, f"{path.name}: {markdown_words(nb)} words; run histories go to docs/"


#: Each term, the notebook whose primer defines it (in bold), and the pattern of a mention
#: (occupancy, bank conflicts and L2 partitions are defined where first used, in 03, 04 and 05:
#: review 5a, C7).
PRIMER_TERMS = {
    "warp": ("01", r"\bwarps?\b"), "scheduler": ("01", r"\bschedulers?\b"), "issue slot": ("01", r"\bissue slots?\b"),
    "sector": ("02", r"\bsectors?\b"), "coalesce": ("02", r"\bcoalesc"), "occupancy": ("03", r"\boccupancy\b"),
    "bank conflict": ("04", r"\bbank conflicts?\b"), "partition": ("05", r"\bpartitions?\b"), "MUFU": ("02", r"\bMUFU\b"),
}


@pytest.mark.parametrize("term", sorted(PRIMER_TERMS))
def test_each_hardware_term_is_defined_before_a_lesson_uses_it(term):
    # Notebook 00 is the course map and may name what comes; from 01 on, the first markdown
    # cell that mentions the term is the primer that defines it.
    where, pattern = PRIMER_TERMS[term]
    for path in NOTEBOOKS:
        if path.name[:2] == "00":
            continue
        nb = nbformat.read(str(path), as_version=4)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "markdown" and re.search(pattern, cell.source, re.I):
                defined = re.search(r"\*\*[^*]*" + pattern.replace(r"\b", "", 1) + r"[^*]*\*\*", cell.source, re.I)
                assert path.name[:2] == where and defined, (
                    f"{term!r} first appears in {path.name} cell {index}, before the primer of notebook {where}")
                break
        else:
            continue
        break
    else:
        pytest.fail(f"{term!r} is never used")


def _exercise_links(text) -> list:
    return re.findall(r"\]\(\.\./exercises/([^)#]+\.ipynb)\)", text)


def test_notebook_00_lists_each_notebook_with_its_time_and_exercise():
    nb = nbformat.read(str(ROOT / "notebooks" / "00_start_here.ipynb"), as_version=4)
    table = next(c.source for c in nb.cells if c.cell_type == "markdown" and "## The learning path" in c.source)
    rows = [line for line in table.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [re.search(r"\*\*(\d\d) ", row).group(1) for row in rows] == [p.name[:2] for p in NOTEBOOKS]
    for row in rows:
        assert re.search(r"\| \d+ min \|", row), row
    for name in _exercise_links(table):
        assert (ROOT / "exercises" / name).exists(), name
    linked = set(_exercise_links(table))
    assert {p.name for p in (ROOT / "exercises").glob("0[1-6]_*.ipynb")} <= linked


@pytest.mark.parametrize("name, exercises", [("01_derivation", ["01_place_two_kernels.ipynb"]),
                                             ("02_operator_intensities", ["02_classify_kernels.ipynb",
                                                                          "03_attention_intensity.ipynb"])])
def test_lecture_ends_with_its_exercise(name, exercises):
    nb = nbformat.read(str(ROOT / "notebooks" / f"{name}.ipynb"), as_version=4)
    last = [c for c in nb.cells if c.cell_type == "markdown"][-1].source
    assert "Now do" in last and _exercise_links(last) == exercises
    assert all((ROOT / "exercises" / e).exists() for e in exercises)


DEVELOPER_PATH = re.compile(r"(?<![\w.])/(?:root|tmp|work|home|Users)/")


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=[f"{p.parent.name}/{p.name}" for p in ALL_NOTEBOOKS])
def test_no_developer_path_in_stored_outputs(path):
    # A stored output is what a student reads first: "/root/out/run16/lab1.json" tells them
    # nothing and names a machine they never had.
    nb = nbformat.read(str(path), as_version=4)
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
            assert not DEVELOPER_PATH.search(text), f"cell {index}: {DEVELOPER_PATH.search(text).group(0)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_text_that_announces_the_next_cell_is_followed_by_it(path):
    # 02 said "the next cell sets the exp's time" under the cell that did (out of order).
    nb = nbformat.read(str(path), as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and re.search(r"\b(the next cell|the cell below)\b", cell.source, re.I):
            following = nb.cells[index + 1] if index + 1 < len(nb.cells) else None
            assert following is not None and following.cell_type == "code", f"cell {index}"


def test_fp32_kernels_are_never_judged_against_the_bf16_ridge_alone():
    # Pitfall 4 inside the notebook that teaches it: an fp32 kernel's distance to the bf16
    # matrix ridge is printed only beside its distance to its own, the fp32 vector ridge.
    nb = nbformat.read(str(ROOT / "notebooks" / "02_operator_intensities.ipynb"), as_version=4)
    lines = [line for c in nb.cells for o in c.get("outputs", []) for line in "".join(o.get("text", "")).splitlines()]
    against_bf16 = [line for line in lines if re.search(r"below the (MI300X )?bf16|below its bf16", line)]
    # review 11b C02-3: the fusion cell prints only the fp32 distance; the wrong roof is the ridges' section's
    assert any("below the fp32 vector ridge" in line for line in lines)
    for line in against_bf16:
        assert "fp32 vector ridge" in line, line
