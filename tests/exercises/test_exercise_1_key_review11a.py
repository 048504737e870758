"""Exercise 1's key after review 11a: the figure check names the points that sit on the wrong
bandwidth roof, the roof they sit on and the ceiling that fixes them, and a unit slip gets only
its unit hint (K-01-1); the active-roof answer reads the course's own names for the roofs (K-01-2)."""
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01

INTENSITIES = (20, 80, 20, 80)          # the 3 TB/s points first, then the 2 TB/s ones
RATES = (60e3, 120e3, 40e3, 120e3)      # the keys, in GFLOP/s
WRONG_ADVICE = "give each 2 TB/s point memory_ceiling="


def _figure(ceilings, memory_ceilings):
    """``ceilings``: (name, kind, value) triples, in the order the student lists them."""
    pytest.importorskip("plotly")
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure

    machine = Machine("m", ceilings=tuple(Ceiling(*c) for c in ceilings))
    points = [KernelPoint(f"k{i}", x, 1, rate, memory_ceiling=m)
              for i, (x, rate, m) in enumerate(zip(INTENSITIES, RATES, memory_ceilings))]
    return roofline_figure(machine, points)


def test_k01_1_the_2tbs_roof_listed_first_sends_the_3tbs_points_to_their_own_ceiling():
    # neither ceiling is "dram" and no point names one: all four are judged against the 2 TB/s roof
    figure = _figure([("hbm-2", "memory", 2_000), ("hbm-3", "memory", 3_000),
                      ("fp32", "compute", 120_000)], (None,) * 4)
    check = ex01.check_figure(figure)
    assert check.status == "fail"
    assert WRONG_ADVICE not in check.message and "2 TB/s point" not in check.message
    assert check.message == (
        "the points for 20 FLOP/byte at 3 TB/s and 80 FLOP/byte at 3 TB/s are judged against your "
        "2 TB/s roof ('hbm-2'), the one a point without memory_ceiling gets: give each "
        "memory_ceiling='hbm-3', your 3 TB/s ceiling, or name that ceiling \"dram\"")


def test_k01_1_a_3tbs_point_given_the_2tbs_ceiling_is_told_to_name_its_own():
    figure = _figure([("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000),
                      ("fp32", "compute", 120_000)], ("dram-2tbs", None, "dram-2tbs", "dram-2tbs"))
    check = ex01.check_figure(figure)
    assert check.message == (
        "the point for 20 FLOP/byte at 3 TB/s is judged against your 2 TB/s roof ('dram-2tbs'), "
        "the one its memory_ceiling names: give it memory_ceiling='dram', your 3 TB/s ceiling")


def test_k01_1_the_2tbs_points_left_on_dram_still_get_their_ceiling_named():
    figure = _figure([("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000),
                      ("fp32", "compute", 120_000)], (None,) * 4)
    message = ex01.check_figure(figure).message
    assert message.startswith("the points for 20 FLOP/byte at 2 TB/s and 80 FLOP/byte at 2 TB/s are "
                              "judged against your 3 TB/s roof ('dram')")
    assert message.endswith("give each memory_ceiling='dram-2tbs', your 2 TB/s ceiling")
    assert '"dram"' not in message  # renaming would move the 3 TB/s points instead


@pytest.mark.parametrize("ceilings, hint", [
    # the compute roof in TFLOP/s
    ([("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000), ("fp32", "compute", 120)],
     "your compute roof is at 120 GFLOP/s: a compute Ceiling's value is in GFLOP/s, so 120 TFLOP/s "
     "is 120_000"),
    # the bandwidths in TB/s
    ([("dram", "memory", 3), ("dram-2tbs", "memory", 2), ("fp32", "compute", 120_000)],
     "your memory roof is at 3 GB/s: a memory Ceiling's value is in GB/s, so 3 TB/s is 3_000; "
     "your memory roof is at 2 GB/s: a memory Ceiling's value is in GB/s, so 2 TB/s is 2_000"),
])
def test_k01_1_a_unit_slip_gets_only_the_unit_hint(ceilings, hint):
    check = ex01.check_figure(_figure(ceilings, (None, None, "dram-2tbs", "dram-2tbs")))
    assert check.status == "fail" and check.message == hint
    assert "judged against" not in check.message and "memory_ceiling" not in check.message


def test_k01_1_a_unit_slip_and_a_wrong_roof_are_both_named():
    figure = _figure([("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000),
                      ("fp32", "compute", 120)], (None,) * 4)
    message = ex01.check_figure(figure).message
    assert message.startswith("your compute roof is at 120 GFLOP/s")
    assert "20 FLOP/byte at 2 TB/s and 80 FLOP/byte at 2 TB/s are judged against your 3 TB/s" in message
    assert "3 TB/s are judged" not in message


def test_k01_1_a_ridge_neither_key_names_says_where_to_look():
    # an extra compute ceiling listed first, and no ceiling named "fp32": the points are judged on it
    figure = _figure([("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000),
                      ("fp64", "compute", 60_000), ("peak", "compute", 120_000)],
                     (None, None, "dram-2tbs", "dram-2tbs"))
    message = ex01.check_figure(figure).message
    assert "gives a ridge of 20 and 30 FLOP/byte, neither 40 nor 60" in message
    assert 'the compute ceiling named "fp32" if there is one, else the first you listed' in message
    assert "memory_ceiling" not in message
    # the worked answer's figure still passes
    assert ex01.check_figure(_figure([("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000),
                                      ("fp32", "compute", 120_000)],
                                     (None, None, "dram-2tbs", "dram-2tbs"))).passed


@pytest.mark.parametrize("answers", [
    ("slanted roof", "fp32 roof", "the slanted roof", "flat roof"),
    ("DRAM bandwidth", "FP32", "memory bandwidth", "compute ceiling"),
    ("HBM roof", "120 TFLOP/s", "bandwidth roof", "the fp32 roof"),
    ("memory ceiling", "fp32 FMAs", "Slanted", "compute roof"),
])
def test_k01_2_the_courses_names_for_the_roofs_are_read(answers):
    assert ex01.check_active_roofs(*answers).passed


def test_k01_2_a_wrong_roof_in_the_courses_words_still_fails_and_a_bandwidth_figure_is_not_memory():
    wrong = ex01.check_active_roofs("fp32 roof", "slanted roof", "memory", "compute")
    assert [c.status for c in wrong.checks] == ["fail", "fail", "pass", "pass"]
    # review 40k1: a bandwidth figure is read against the case's own bandwidth, not as "memory":
    # "3 TB/s" for the 2 TB/s case still fails
    assert ex01.check_active_roofs("3 TB/s", "compute", "memory", "compute").checks[0].status == "pass"
    assert ex01.check_active_roofs("memory", "compute", "3 TB/s", "compute").checks[2].status == "fail"


def test_k01_1_a_point_whose_hover_text_was_replaced_is_told_so():
    figure = _figure([("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000),
                      ("fp32", "compute", 120_000)], (None, None, "dram-2tbs", "dram-2tbs"))
    figure.update_traces(hovertext=None, selector={"meta": "kernel:k0"})
    message = ex01.check_figure(figure).message
    assert message == ("the hover text of the point for 20 FLOP/byte at 3 TB/s names no ridge: keep the "
                       "hover text roofline_figure writes")


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_c_ex1_1_the_plot_rules_are_three_bullets(folder):
    from pathlib import Path

    import nbformat
    path = Path(__file__).resolve().parents[2] / folder / "01_place_two_kernels.ipynb"
    cell = next(c.source for c in nbformat.read(str(path), as_version=4).cells
                if c.cell_type == "markdown" and c.source.startswith("## 3. The plot"))
    rules = cell[cell.index("```\n\n") + 5:]
    bullets = [line for line in rules.splitlines() if line.startswith("- ")]
    assert [b.split()[1] for b in bullets] == ["A", "Give", "The"], bullets
    assert rules.rstrip().endswith("\n\nOnce your cell runs, hover over a point to read its verdict.")
