"""Exercise 1's key after review 9a: the model conclusion's general lesson is exact, the everyday
"50% slower" gets a hint that names the exercise's convention, and KernelPoint says which memory
ceiling a point without one is judged against, as the student copy does."""
from pathlib import Path

import nbformat
import pytest

from rooflinelib.core.model import attainable_gflops, ridge
from rooflinelib.exercises import ex01_two_kernels as ex01

ROOT = Path(__file__).resolve().parents[2]
ATTEMPT = "a conclusion in my own words, " * 5


def _markdown(folder):
    cells = nbformat.read(str(ROOT / folder / "01_place_two_kernels.ipynb"), as_version=4).cells
    return " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")


def test_k1_1_a_kernel_between_the_old_and_the_new_ridge_slows_down_too():
    before, after = ex01.BANDWIDTHS_GBPS
    old_ridge, new_ridge = ridge(ex01.PEAK_GFLOPS, before), ridge(ex01.PEAK_GFLOPS, after)
    assert (old_ridge, new_ridge) == (40, 60)
    # the fact the old sentence missed: at I = 50, compute-bound before the drop, 120 -> 100 TFLOP/s
    assert attainable_gflops(50, ex01.PEAK_GFLOPS, before) == 120_000
    assert attainable_gflops(50, ex01.PEAK_GFLOPS, after) == 100_000
    # the new lesson, checked across the range: a kernel slows exactly when it is left of the new ridge
    for intensity in (1, 20, 40, 41, 50, 59.9, 60, 61, 80, 500):
        slows = attainable_gflops(intensity, ex01.PEAK_GFLOPS, after) < attainable_gflops(intensity, ex01.PEAK_GFLOPS, before)
        assert slows == (intensity < new_ridge), intensity
    model = ex01.model_conclusion(ATTEMPT)
    text = str(model)
    assert model.revealed
    assert "Only a kernel whose active roof is the bandwidth roof feels the drop" not in text
    assert ("Only a kernel whose active roof after the drop is the bandwidth roof feels it: here the 20 "
            "FLOP/byte kernel. A kernel between the old and the new ridge (40 to 60 FLOP/byte) would "
            "switch from the compute roof to the bandwidth roof and slow down too.") in text
    assert "only the bandwidth-bound kernel slows down" not in model.key_points
    assert "a kernel slows down only if it is left of the new ridge" in model.key_points


def test_k1_2_fifty_percent_slower_names_the_convention():
    # run time x 1.5 is "50% slower" in everyday words; the exercise reads a percentage as the
    # share of the rate lost (33%), and the hint says so instead of "too high"
    fifty = ex01.check_slowdowns("50%", "0%")
    assert [c.status for c in fifty.checks] == ["fail", "pass"]
    message = fifty.checks[0].message
    assert "too high" not in message
    assert "50% is how much longer the run takes" in message and "share of the rate lost" in message
    assert "33" not in message  # the hint does not give the answer away
    assert "50% is how much longer" in ex01.check_slowdowns("50 percent", 1).checks[0].message
    # the same reading as a bare fraction
    half = ex01.check_slowdowns(0.5, 1).checks[0]
    assert half.status == "fail" and "how much longer the run takes" in half.message
    # right answers still pass; other wrong percentages keep their plain hint
    assert ex01.check_slowdowns("33%", "0%").passed and ex01.check_slowdowns(1.5, 1).passed
    assert "how much longer" not in ex01.check_slowdowns("20%", 1).checks[0].message
    # the instructions state the convention before the student answers
    for folder in ("solutions", "exercises"):
        assert ('a percentage such as `"10%"` is read as the share of the rate lost, not as how much '
                'longer the run takes') in _markdown(folder)


def test_ce1_1_kernelpoint_and_the_copy_name_the_same_default_memory_ceiling():
    pytest.importorskip("plotly")
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure

    doc = " ".join(KernelPoint.__doc__.split())
    assert "``None`` means the chart's first memory ceiling: the machine's ``\"dram\"`` ceiling when it has one" in doc
    for folder in ("solutions", "exercises"):
        # review 10a C-EX1-1: the same rule, said plainly
        assert ('Without it, a point is judged against the ceiling named `"dram"` if there is one, else '
                'the first memory ceiling you listed') in _markdown(folder)
    # and that is what the chart does, with "dram" listed second
    machine = Machine("m", ceilings=(Ceiling("dram-2tbs", "memory", 2_000), Ceiling("dram", "memory", 3_000),
                                     Ceiling("fp32", "compute", 120_000)))
    figure = roofline_figure(machine, [KernelPoint("k", 20, 1, 60_000)])
    point = next(t for t in figure.data if str(t.meta).startswith("kernel:"))
    assert "ridge 40 FLOP/byte)" in " ".join(point.hovertext)
