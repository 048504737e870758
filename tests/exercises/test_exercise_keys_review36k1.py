"""Keys 1, 2 and 3 after review 36k1: a memory_ceiling that names no ceiling of the figure is
refused in one line (key 1), and the missing-ceiling hint no longer speaks of such a point when
none exists; key 2's take-away names a cache level's bandwidth among what holds a point far under
its roof, a bare "latency" keeps its hint but leaves the menu, and row 8's fp8 note gives the cut
(48%: only the weights shrink); key 3's Part D says what the key counts as the traffic."""
import json
from pathlib import Path

import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("solutions", "exercises")
CEILINGS = (("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000), ("fp32", "compute", 120_000))


def _points(name_for_2tbs):
    from rooflinelib.core.placement import KernelPoint

    return [KernelPoint("a", 20, 1, 60e3), KernelPoint("b", 20, 1, 40e3, memory_ceiling=name_for_2tbs),
            KernelPoint("c", 80, 1, 120e3), KernelPoint("d", 80, 1, 120e3, memory_ceiling=name_for_2tbs)]


def _figure(points, **kwargs):
    pytest.importorskip("plotly")
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.views.plotting import roofline_figure

    return roofline_figure(Machine("m", ceilings=tuple(Ceiling(*c) for c in CEILINGS)), points, **kwargs)


def _markdown(path, cell_id):
    nb = json.loads((ROOT / path).read_text())
    return " ".join(" ".join("".join(c["source"]).split()) for c in nb["cells"] if c.get("id") == cell_id)


def _source(path, cell_id):
    nb = json.loads((ROOT / path).read_text())
    return "".join(next("".join(c["source"]) for c in nb["cells"] if c.get("id") == cell_id))


# --- key 1 -----------------------------------------------------------------------------------

def test_k1_1_a_misspelled_memory_ceiling_is_refused_in_one_line_naming_the_valid_names():
    points = _points("dram2")
    check = ex01.check_figure(_figure(points), points)
    assert check.status == "fail"
    assert check.message == ("memory_ceiling='dram2' (point 'b') names no memory ceiling of your "
                             "figure: use 'dram' or 'dram-2tbs'")


def test_k1_1_the_right_names_and_the_solution_page_still_pass():
    points = _points("dram-2tbs")
    assert ex01.check_figure(_figure(points), points).passed
    # the page hands the points to the check, so a student's misspelling is seen
    for folder in PAGES:
        assert "ex.check_figure(figure, kernels)" in _source(f"{folder}/01_place_two_kernels.ipynb", "ex04-14")


def test_k1_1_without_the_points_or_with_a_ceiling_left_out_the_older_hints_stand():
    points = _points("dram2")
    # no points given: the check reads the figure alone, as before
    assert "judged against your 3 TB/s roof" in ex01.check_figure(_figure(points)).message
    # the 2 TB/s ceiling not drawn: the missing roof is the problem named, not the name
    right = _points("dram-2tbs")
    message = ex01.check_figure(_figure(right, memory="dram"), right).message
    assert message.startswith("no memory roof at 2 TB/s")


def test_k1_2_the_missing_ceiling_hint_has_no_clause_about_a_point_that_does_not_exist():
    from rooflinelib.core.placement import KernelPoint

    points = [KernelPoint(n, x, 1, r) for n, x, r in (("a", 20, 60e3), ("b", 20, 40e3),
                                                      ("c", 80, 120e3), ("d", 80, 120e3))]
    message = ex01.check_figure(_figure(points, memory="dram"), points).message
    assert message.startswith("no memory roof at 2 TB/s")
    assert "draw that ceiling in the figure" in message
    assert "names a ceiling the figure does not draw" not in message


# --- key 2 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("folder", PAGES)
def test_k2_1_the_take_away_names_a_cache_levels_bandwidth(folder):
    text = _markdown(f"{folder}/02_classify_kernels.ipynb", "ex01-50")
    bullet = text.split("When a point sits far under its own roof", 1)[1].split(" - ", 1)[0]
    assert "a cache level's bandwidth" in bullet
    assert "come before bytes and FLOPs" not in bullet


def test_k2_2_latency_leaves_the_menu_but_keeps_its_hint():
    for menu in (ex02.LIMITERS, ex02.C3_LIMITERS):
        assert "latency" not in [row[0] for row in menu.table().rows]
        assert "'latency'" not in menu.menu()
        assert menu.read("latency") == "latency"          # still read, so it reaches its hint
        with pytest.raises(Exception) as refused:
            menu._read("bytes please")
        assert "'latency'" not in str(refused.value) and "'cache'" in str(refused.value)
    assert "latency" in ex02.LIMITERS.names()             # exercise 5 lists and accepts it
    # the stored table on the solution page is the one the student sees
    table = "".join("".join(o.get("text", "")) for c in json.loads(
        (ROOT / "solutions/02_classify_kernels.ipynb").read_text())["cells"]
        if c.get("id") == "ex01-39" for o in c.get("outputs", []))
    assert "latency alone" not in table


def test_k2_3_row_8s_fp8_note_gives_the_cut_not_a_halving():
    row = next(r for r in ex02.ROWS if r.number == 8)
    note = row.step_notes["smaller-dtype"]
    assert "halve" not in note and "by 48% (only the weights shrink)" in note
    # 48%: the weights' half over all the bytes (activations and outputs stay bf16)
    hidden, tokens = 8192, 128
    assert round(100 * hidden * hidden / (2 * (hidden * hidden + 2 * tokens * hidden))) == 48
    assert "fp8 weights halve" not in _source("solutions/02_classify_kernels.ipynb", "ex01-33")


# --- key 3 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("folder", PAGES)
def test_k3_1_part_d_says_what_the_traffic_counts(folder):
    text = _markdown(f"{folder}/03_attention_intensity.ipynb", "ex02-15")
    assert "over the shared traffic" not in text
    assert "over the traffic: K and V once, 8 query and 8 output rows" in text
