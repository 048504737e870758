"""Review 51 of notebook 05: what the sweep's 'spread' series really reads (each block a window of the set from
its own chunk, the whole set only up to that window), the model's setting said as the model's, the L2-served
qualifier of ncu's L2 peak, the clock behind fp64's ratio over 1, and the clarity items.  Each test fails on the
text or code before the fix."""
import ast
import pathlib
import re

import numpy as np
import pytest

from test_lessons_03 import appendix, cells, markdown, outputs, words
from test_lessons_review36_05 import NB, PAGE, _lesson, _md

from rooflinelib.hierarchy import level_placement as h
from rooflinelib.hierarchy import workingset_files as wsr
from rooflinelib.measure.expected import block_chunks, passes_for

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLUE = ("global", "spread")


def _recorded():
    return wsr.recorded("h200", "numba")


def _blocks_per_chunk(n_chunks, grid, n_pass):
    """Distinct blocks that read each chunk in one launch, from the kernel's own walk: block b reads n_pass chunks
    from its first, wrapping within its cycle (expected.block_chunks, the layout the simulator tests check)."""
    first, length, origin = block_chunks(n_chunks, grid, "spread")
    readers = np.zeros(n_chunks, dtype=np.int64)
    for f, n, o in zip(first, length, origin):
        seen = np.unique(o + (f - o + np.arange(min(n_pass, n))) % n)
        readers[seen] += 1
    return readers


@pytest.mark.parametrize("ws_bytes", [5e6, 20e6, 73.2e6, 537e6])
def test_spread_reading_is_the_kernels_walk(ws_bytes):
    recorded = _recorded()
    grid, chunk, per_launch = 792, recorded["config"]["chunk_bytes"], recorded["config"]["bytes_per_launch"]
    n_chunks = int(ws_bytes) // chunk
    n_pass = passes_for(per_launch, grid, n_chunks)
    reading = wsr.spread_reading(recorded, ws_bytes)
    assert reading.grid == grid and reading.window_bytes == n_pass * chunk
    readers = _blocks_per_chunk(n_chunks, grid, n_pass)
    assert reading.blocks_per_line == pytest.approx(readers.mean(), rel=1e-9)
    assert readers.max() - readers.min() <= 1  # evenly spread: the mean is every line's count, within one


def test_the_h200_figures_the_page_and_appendix_quote():
    recorded = _recorded()
    blue = next(s for s in recorded["series"] if (s["access"], s["pattern"]) == BLUE)
    assert blue["grid"] == 792 and recorded["config"]["bytes_per_launch"] == 8e9
    window = wsr.spread_reading(recorded, 1e6).window_bytes
    assert f"{window / 1e6:.1f}" == "10.1" and passes_for(8e9, 792, 1) == 617
    # up to the window every block reads the whole buffer; past it, far fewer than 792
    assert wsr.spread_reading(recorded, 10e6).blocks_per_line == 792
    peak_at = max((g, size) for size, g in ((r["bytes"], r["gbps"]) for r in blue["rows"]) if 60e6 < size < 100e6)[1]
    at_peak = wsr.spread_reading(recorded, peak_at)
    assert f"{peak_at / 1e6:.0f}" == "73" and round(at_peak.blocks_per_line, -1) == 110
    page = words(appendix(PAGE))
    for size, quoted in ((537e6, 15), (123e6, 65), (28.2e6, 280), (380e6, 21)):
        value = wsr.spread_reading(recorded, size).blocks_per_line
        assert abs(value - quoted) <= (5 if quoted > 100 else 0.6), (size, value)
    assert "about 110 at 73 MB, 15 at 537 MB" in page and "each line read by about 65 blocks" in page
    assert "(about 280 at 28.2 MB, 110 at 73 MB, 21 at 380 MB)" in page


def test_spread_reading_refuses_bad_input_in_one_line():
    recorded = _recorded()
    with pytest.raises(wsr.HierarchyError, match="^ws_bytes: must be a positive number"):
        wsr.spread_reading(recorded, -1)
    with pytest.raises(wsr.HierarchyError, match="^series: this result has no 'shared' 'spread' series"):
        wsr.spread_reading(recorded, 1e6, access="shared")


def test_the_page_says_what_blue_reads():
    text = words(markdown(NB))
    for wrong in ("every SM reading the whole buffer", "all SMs read the same lines", "the sweep's blue series"):
        assert wrong not in text, wrong
    assert ("Each block reads 10.1 MB from its own starting chunk, wrapping around: the whole buffer up to 10.1 MB, "
            "a window past that.") in _md("c7621aef")
    assert "to 14.7 TB/s at 73 MB, where about 110 blocks read each line: they share fetches" in _md("9ee81857")
    assert "(hypothesis, section 6)" in _md("9ee81857")


def test_section_6_says_the_setting_and_the_markers_are_the_models():
    text = _md("8a2cdb0a")
    assert "Below, every SM reads the same working set" not in text
    assert text.startswith("## 6. Move the working set The simplest cache model assumes every SM reads the same W bytes 64 times")
    assert ("The explorer's markers and cross are the model's predictions, not measurements; blue reads this way only "
            "up to 10.1 MB.") in text
    # and the library's own reader count is the model's, documented as such
    assert "the model lets every SM read the whole set" in " ".join(h.sm_readers.__doc__.split())


def test_series_labels_and_legend_no_longer_say_every_sm_reads_all():
    pytest.importorskip("plotly")
    from rooflinelib.hierarchy import plot as hp
    from rooflinelib.hierarchy.workingset import SERIES_NAMES
    assert not any("every SM" in name for name in SERIES_NAMES.values())
    assert SERIES_NAMES[BLUE] == "global loads (L1 + L2), overlapping windows"
    recorded = _recorded()
    fig = hp.sweep_figure(recorded)
    series = [t for t in fig.data if str(t.meta).startswith("series:")]
    assert len(series) == 4 and not any("every SM" in t.name for t in series)
    assert "global loads (L1 + L2), overlapping windows" in [t.name for t in series]
    # lookups keep working: the recorded file keeps its names, the traces their stored-name ids
    stored = next(s["name"] for s in recorded["series"] if (s["access"], s["pattern"]) == BLUE)
    assert f"series:{stored}" in [t.meta for t in series]
    assert wsr.series_of(recorded, stored).label == SERIES_NAMES[BLUE]
    assert wsr.series_by_access(recorded, *BLUE).name == stored


def test_the_explorers_legend_and_hover_say_model():
    pytest.importorskip("ipywidgets")
    from rooflinelib.hierarchy import plot as hp
    from rooflinelib.views.plotting import find_trace
    lesson = _lesson()
    explorer = hp.working_set_explorer(lesson.recorded, lesson.reading, reads=64, flops_per_byte=0.25, ws_bytes=28.2e6)
    cross = find_trace(explorer.sweep, "ws-marker")
    assert "model" in cross.name and "not measured" in cross.name and "predicted by the model" in cross.hovertemplate
    markers = [t for t in explorer.roofline.data if str(t.meta).startswith("hier:") and t.mode == "markers"]
    assert markers and all(t.name.startswith("working-set model @ ") for t in markers)
    assert all("working-set model" in t.hovertext[0] for t in markers)
    assert "model" in explorer.roofline.layout.title.text


def _docstrings(path):
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    docs = {"<module>": ast.get_docstring(tree)}
    docs.update({n.name: ast.get_docstring(n) or "" for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)})
    return docs


def test_the_docstrings_say_what_spread_reads():
    kernels = _docstrings("rooflinelib/measure/workingset_kernels.py")
    for name in ("<module>", "_read_source", "read_kernel"):
        doc = " ".join(kernels[name].split())
        assert "walks the whole" not in doc and "every block walks" not in doc, name
        assert "n_pass" in doc, name
    assert "not by all" in " ".join(kernels["_read_source"].split())
    chunks = " ".join(_docstrings("rooflinelib/measure/expected.py")["block_chunks"].split())
    assert "all of it only while n_chunks <= n_pass" in chunks
    placement = _docstrings("rooflinelib/hierarchy/level_placement.py")
    assert "every SM reads the whole working set (global" not in placement["hierarchy_series"]
    assert "the series that measures the working-set model's own kernel" not in placement["kernel_curve"]
    assert "only up to one block's window" in " ".join(placement["kernel_curve"].split())


def test_the_appendix_says_what_spread_reads():
    page = words(appendix(PAGE))
    # once, where the series table says the file's older names were wrong past 10.1 MB
    assert page.count("every SM reads all") == 1 and "Every SM reads it all" not in page
    assert "which said every SM reads all of the buffer: true only up to 10.1 MB" in page
    assert "with every SM reading all of the buffer" not in page
    assert "The model's kernel is the sweep's \"every SM reads all\" series" not in page
    assert "**Overlapping windows** (`spread`): block b of the grid's 792 starts at chunk b x n_chunks / 792" in page
    assert "is the sweep's global-load overlapping-window series (L1 + L2) only up to 10.1 MB" in page


def test_cell_22_bounds_only_what_the_l2_itself_serves():
    lesson = _lesson()
    peak = lesson.kernels[0].peaks().gbps["l2"]
    orange = wsr.series_by_access(lesson.recorded, "global-cg", "slices")
    shared = max(orange.shared_data().gbps)
    assert shared / peak > 0.7 > lesson.machine.ceiling("l2").value / peak  # SMs sharing fetches see more
    text = _md("cc5a9b48")
    assert "no kernel tried passed 0.7 of the L2's 15.4 TB/s" not in text
    assert "No kernel tried had the L2 itself serve 0.7 of its 15.4 TB/s (SMs sharing fetches receive more)" in text


def test_fp64_over_its_peak_is_the_clock_and_the_clocks_are_printed():
    from rooflinelib.hierarchy import lesson as hl
    lesson = _lesson()
    ncu_mhz = lesson.kernels[0].peaks().sm_clock_mhz
    lab_mhz = hl.measured_clocks_mhz()
    assert f"{ncu_mhz:,.0f}" == "1,972" and lab_mhz == [1980.0]
    peak = lesson.kernels[0].peaks().gflops["fp64"]
    measured = lesson.machine.ceiling("fp64").value
    assert measured > peak and measured < peak * lab_mhz[0] / ncu_mhz  # above ncu's peak, below it at the lab's clock
    assert hl.clocks_text(lesson) in outputs(NB)
    assert "fp64 passes its peak, which ncu takes at a lower clock (last line)." in _md("cc5a9b48")
    assert "1,972" not in markdown(NB)  # the clocks are printed, not typed


def test_clarity_items():
    # the sweep is not named before section 2 defines it
    assert "sweep" not in _md("5d0a7e31")
    # the result first, the caveat after
    text = _md("9437f8c3")
    assert text.startswith("**`ws_read` is L2-bound.**") and text.endswith("the binding level does not change.")
    assert "Only load rates were measured" not in text
    # the labs by what they are: the ceilings lab is notebook 03's; "Lab 4" only in the title
    prose = words(markdown(NB))
    assert re.findall(r"Lab \d", prose) == ["Lab 4"] and prose.startswith("# 05 · The hierarchical roofline (Lab 4)")
    assert "This notebook's lab profiles two kernels:" in prose


def test_the_markdown_word_count_fell():
    assert sum(len(c.source.split()) for c in cells(NB) if c.cell_type == "markdown") <= 1482  # 1,489 before
