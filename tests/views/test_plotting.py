"""The shared Plotly figure: roofs where the model puts them, stable ids, honest hover text."""
import math
import subprocess
import sys

import pytest

pytest.importorskip("plotly")

from rooflinelib import get_machine
from rooflinelib.core import operators  # noqa: E402
from rooflinelib.core.placement import KernelPoint  # noqa: E402
from rooflinelib.views.plotting import (X_TITLE, Y_TITLE, find_trace, kernel_hover_text,
                                        machine_from_peaks, primary_roofline, roofline_figure,
                                        select_ceilings, trace_ids, write_html)

H200 = get_machine("H200")
LAB2 = machine_from_peaks(78500, 4650)
MY_SOFTMAX = KernelPoint("my_softmax", 5 * 2 ** 24, 8 * 2 ** 24, 410)


@pytest.fixture(scope="module")
def h200_figure():
    return roofline_figure(H200, operators.demo_kernels())


def test_one_trace_per_ceiling_ridge_and_kernel(h200_figure):
    ids = trace_ids(h200_figure)
    compute = [c.name for c in H200.compute_ceilings]
    memory = [m.name for m in H200.memory_ceilings]
    assert sorted(i for i in ids if i.startswith("roof:")) == sorted(f"roof:{n}" for n in compute)
    assert sorted(i for i in ids if i.startswith("mem:")) == sorted(f"mem:{n}" for n in memory)
    assert sorted(i for i in ids if i.startswith("ridge:")) == sorted(f"ridge:{n}" for n in compute)
    kernels = [i for i in ids if i.startswith("kernel:")]
    assert kernels == [f"kernel:{k.name}" for k in operators.demo_kernels()]
    assert len(ids) == len(set(ids))
    # fp32 and dram come first by default: they make the primary roofline.
    assert ids.index("mem:dram") == 0
    assert [i for i in ids if i.startswith("roof:")][0] == "roof:fp32"


def test_axes_are_log_log_with_units(h200_figure):
    layout = h200_figure.layout
    assert layout.xaxis.type == "log" and layout.yaxis.type == "log"
    assert layout.xaxis.title.text == X_TITLE and "FLOP/byte" in X_TITLE
    assert layout.yaxis.title.text == Y_TITLE and "GFLOP/s" in Y_TITLE
    # Ranges are in log10 units and cover every kernel.
    low, high = layout.xaxis.range
    for kernel in operators.demo_kernels():
        assert low < math.log10(kernel.intensity) < high


def test_roofs_meet_where_the_model_says(h200_figure):
    top_memory = max(m.value for m in H200.memory_ceilings)
    top_compute = max(c.value for c in H200.compute_ceilings)
    fp32 = find_trace(h200_figure, "roof:fp32")
    assert list(fp32.y) == [66_900, 66_900]
    assert fp32.x[0] == pytest.approx(66_900 / top_memory)  # starts on the highest memory roof
    dram = find_trace(h200_figure, "mem:dram")
    assert dram.x[-1] == pytest.approx(top_compute / 4800)  # capped by the highest compute roof
    for x, y in zip(dram.x, dram.y):
        assert y == pytest.approx(x * 4800)  # slope B on log-log axes
    assert find_trace(h200_figure, "mem:dram").line.width > find_trace(h200_figure, "mem:shared").line.width


def test_tensor_roofs_are_dashed(h200_figure):
    assert find_trace(h200_figure, "roof:bf16-tensor").line.dash == "dash"
    assert find_trace(h200_figure, "roof:fp64-matrix").line.dash == "dash"
    assert find_trace(h200_figure, "roof:fp32").line.dash == "solid"


def test_ridges_sit_at_p_over_b_of_the_primary_memory(h200_figure):
    for ceiling in H200.compute_ceilings:
        ridge = find_trace(h200_figure, f"ridge:{ceiling.name}")
        assert ridge.line.dash == "dot"
        assert ridge.x[0] == ridge.x[1] == pytest.approx(ceiling.value / 4800)
        assert ridge.y[1] == ceiling.value
    annotations = {a.name: a for a in h200_figure.layout.annotations}
    fp32 = annotations["ridge:fp32"]
    assert fp32.x == pytest.approx(math.log10(66_900 / 4800))  # log axes: log10 positions
    assert "13.9" in fp32.text


def test_lab2_ridge_position():
    figure = roofline_figure(LAB2, [MY_SOFTMAX])
    assert find_trace(figure, "ridge:fp32").x[0] == pytest.approx(78500 / 4650)
    assert trace_ids(figure) == ["mem:dram", "roof:fp32", "ridge:fp32", "kernel:my_softmax"]


def test_kernel_points_sit_at_roof_or_achieved_rate(h200_figure):
    gemm = find_trace(h200_figure, "kernel:GEMM fp32 N=8192")
    assert gemm.x[0] == pytest.approx(8192 / 6)
    assert gemm.y[0] == 66_900  # not timed: on the fp32 roof
    assert gemm.marker.symbol == "circle-open"
    vadd = find_trace(h200_figure, "kernel:vector add")
    assert vadd.y[0] == pytest.approx(4800 / 12)
    measured = find_trace(roofline_figure(LAB2, [MY_SOFTMAX]), "kernel:my_softmax")
    assert measured.y[0] == 410 and measured.marker.symbol == "circle"


def test_hover_text_gives_intensity_roof_and_verdict():
    figure = roofline_figure(LAB2, [MY_SOFTMAX])
    hover = find_trace(figure, "kernel:my_softmax").hovertext[0]
    assert "intensity: 0.625 FLOP/byte" in hover
    assert "roof: 2,906 GFLOP/s" in hover
    assert "achieved: 410 GFLOP/s" in hover
    assert "verdict: memory-bound, 14% of roof (far below its roof)" in hover
    assert find_trace(figure, "kernel:my_softmax").hoverinfo == "text"
    gemm_hover = kernel_hover_text(operators.gemm(8192), primary_roofline(LAB2))
    assert "compute-bound (not measured)" in gemm_hover


def test_choice_and_order_of_ceilings():
    figure = roofline_figure(H200, compute=["bf16-tensor", "fp32"], memory="dram")
    assert trace_ids(figure) == ["mem:dram", "roof:bf16-tensor", "roof:fp32",
                                 "ridge:bf16-tensor", "ridge:fp32"]
    assert primary_roofline(H200, compute="bf16-tensor").ridge == pytest.approx(989_400 / 4800)
    # The verdict follows the first compute ceiling: unfused attention is memory-bound on bf16.
    attention = operators.attention(8192, 128, fused=False)
    hover = kernel_hover_text(attention, primary_roofline(H200, compute="bf16-tensor"))
    assert "memory-bound" in hover
    with pytest.raises(ValueError, match="compute: .*no ceiling 'fp4'"):
        roofline_figure(H200, compute=["fp4"])
    with pytest.raises(ValueError, match="memory ceiling"):
        select_ceilings(H200, "compute", ["dram"])


def test_duplicate_kernel_names_get_distinct_ids():
    kernels = [KernelPoint("k", 1, 1), KernelPoint("k", 2, 1)]
    ids = trace_ids(roofline_figure(LAB2, kernels))
    assert ids[-2:] == ["kernel:k", "kernel:k#2"]


def test_x_range_is_given_in_flop_per_byte():
    figure = roofline_figure(LAB2, x_range=(0.01, 1000))
    assert list(figure.layout.xaxis.range) == pytest.approx([-2, 3])
    with pytest.raises(ValueError, match="x_range"):
        roofline_figure(LAB2, x_range=(10, 1))


def test_widget_variant_updates_in_place():
    pytest.importorskip("anywidget")
    import plotly.graph_objects as go

    widget = roofline_figure(LAB2, [MY_SOFTMAX], widget=True)
    assert isinstance(widget, go.FigureWidget)
    assert isinstance(roofline_figure(LAB2), go.Figure)
    with widget.batch_update():
        find_trace(widget, "kernel:my_softmax").y = [800]
    assert find_trace(widget, "kernel:my_softmax").y == (800,)
    with pytest.raises(KeyError):
        find_trace(widget, "kernel:nope")


def test_write_html_is_standalone(tmp_path):
    path = write_html(roofline_figure(LAB2, [MY_SOFTMAX]), tmp_path / "chart.html")
    html = path.read_text(encoding="utf-8")
    assert "plotly.js v" in html and "kernel:my_softmax" in html
    assert "<script src=" not in html


def test_importing_the_module_does_not_import_plotly():
    code = "import sys, rooflinelib.views.plotting; assert 'plotly' not in sys.modules"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_each_kernel_is_judged_against_its_own_dtypes_roof_like_the_table():
    # Notebook 02's chart draws fp32 first and bf16-tensor second; the table judges unfused bf16
    # attention against the bf16 matrix ridge, so the chart's hover text must say the same.
    from rooflinelib.views import tables
    from rooflinelib.core.machines import MI300X
    kernels = operators.demo_kernels()
    figure = roofline_figure(MI300X, kernels=kernels, compute=["fp32", "bf16-tensor"])
    table = {row["operator"]: row for row in tables.place_rows(kernels, MI300X)}
    for kernel in kernels:
        hover = find_trace(figure, f"kernel:{kernel.name}").hovertext[0]
        row = table[kernel.name]
        assert f"({row['ceiling']} vs dram" in hover, (kernel.name, hover)
        assert row["side"] in hover, (kernel.name, hover)
    unfused = find_trace(figure, "kernel:unfused attention bf16 s=8192")
    assert "memory-bound" in unfused.hovertext[0]
    assert unfused.y[0] == pytest.approx(table["unfused attention bf16 s=8192"]["roof_gflops"])
    # without the bf16 roof on the chart, the primary (fp32) roof is all there is to judge by
    only_fp32 = roofline_figure(MI300X, kernels=kernels, compute=["fp32"])
    assert "(fp32 vs dram" in find_trace(only_fp32, "kernel:unfused attention bf16 s=8192").hovertext[0]


def test_fp32_matrix_is_labelled_sgemm_on_nvidia_and_matrix_on_amd():
    from rooflinelib.core.machines import MI300X
    from rooflinelib.core.model import Ceiling, Machine
    nvidia = Machine("H200 (recorded)", ceilings=(
        Ceiling("dram", "memory", 4276.0, "test", "DRAM"),
        Ceiling("fp32-matrix", "compute", 51_279.0, "test", "fp32 GEMM (cuBLAS)")))
    label = find_trace(roofline_figure(nvidia), "roof:fp32-matrix").name
    assert "SGEMM on the CUDA cores" in label
    titled = Machine("H200 (recorded)", ceilings=(
        Ceiling("dram", "memory", 4276.0, "test", "DRAM"),
        Ceiling("fp32-matrix", "compute", 51_279.0, "test", "fp32 GEMM (cuBLAS, CUDA cores)")))
    once = find_trace(roofline_figure(titled), "roof:fp32-matrix").name
    assert once.count("CUDA cores") == 1 and "no fp32 tensor path" in once
    amd = find_trace(roofline_figure(MI300X, compute=["fp32-matrix"]), "roof:fp32-matrix").name
    assert "SGEMM" not in amd and "fp32 matrix" in amd


def test_the_ceiling_colours_come_from_the_registry_and_hierarchy_plot_imports():
    # the hierarchical chart builds its level colours on plotting.COLOURS
    from rooflinelib.hierarchy import plot as hierarchy_plot
    from rooflinelib.measure import registry
    from rooflinelib.views.plotting import COLOURS
    assert COLOURS["dram"] == registry.colour_of("dram") and "fp32" in COLOURS
    assert hierarchy_plot.LEVEL_COLOURS["dram"] == COLOURS["dram"]


def test_two_named_kernels_a_fraction_of_a_decade_apart_label_away_from_each_other():
    # notebook 07's softmaxes: I = 0.25 and 0.625, names wider than the gap between them; centred
    # above one marker and below the other, "softmax 3-pass" and "softmax fused" overprinted
    fused = KernelPoint("softmax fused", 5 * 2 ** 26, 8 * 2 ** 26, 2382)
    three = KernelPoint("softmax 3-pass", 5 * 2 ** 26, 20 * 2 ** 26, 790)
    for first, second in ((fused, three), (three, fused)):
        fig = roofline_figure(LAB2, [first, second])
        assert find_trace(fig, "kernel:softmax 3-pass").textposition == "middle left"
        assert find_trace(fig, "kernel:softmax fused").textposition == "middle right"
    # one name, or letters for more kernels, keep their places
    assert find_trace(roofline_figure(LAB2, [MY_SOFTMAX]), "kernel:my_softmax").textposition == "top center"
