"""The widgets: their state functions (numbers and text) and their in-place figure updates.

No browser is involved; tests/browser/ drives the explorer in a real one.
"""
import math
import subprocess
import sys

import pytest

from rooflinelib.views import widget_state as ws
from rooflinelib.core.model import Ceiling
from rooflinelib.views.plotting import find_trace, trace_ids

widgets = pytest.importorskip("rooflinelib.views.widgets")
pytest.importorskip("ipywidgets")
pytest.importorskip("anywidget")


# --- explorer state --------------------------------------------------------------------------

def test_explorer_state_below_and_above_the_ridge():
    below = ws.explorer_state("H200", "fp32", 1.0)
    assert below.ridge == pytest.approx(66_900 / 4_800)
    assert below.side == "memory" and below.attainable_gflops == pytest.approx(4_800)
    assert below.verdict_text().startswith("memory-bound: I = 1 FLOP/byte, ridge = 13.9 FLOP/byte")
    assert "I x B = 4,800 GFLOP/s" in below.verdict_text()
    above = ws.explorer_state("H200", "fp32", 1176.27)
    assert above.side == "compute" and above.attainable_gflops == 66_900
    assert above.verdict_text().startswith("compute-bound: I = 1,176 FLOP/byte")
    assert "memory-bound" not in above.verdict_text()


def test_explorer_state_at_the_ridge():
    state = ws.explorer_state("example 120 TFLOP/s, 3 TB/s", "fp32", 40)
    assert state.side == "ridge" and state.bound == "at the ridge"
    assert "within 10%" in state.verdict_text()


def test_precision_moves_the_ridge_and_can_flip_the_verdict():
    fp32 = ws.explorer_state("H200", "fp32", 90)
    bf16 = ws.explorer_state("H200", "bf16-tensor", 90)
    assert fp32.side == "compute" and bf16.side == "memory"
    assert bf16.ridge == pytest.approx(989_400 / 4_800)


@pytest.mark.parametrize("args, message", [
    (("H200", "fp32", -1), "intensity: must be a positive number"),
    (("H200", "fp32", "lots"), "intensity: must be a number"),
    (("H200", "fp3", 1), "precision: H200 has no ceiling 'fp3'"),
    (("Z80", "fp32", 1), "machine: unknown 'Z80'"),
    (("A100", "fp8-tensor", 1), "precision: A100 has no ceiling 'fp8-tensor'"),
])
def test_explorer_state_errors_are_one_line(args, message):
    with pytest.raises(ValueError) as info:
        ws.explorer_state(*args)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_attainable_doubles_below_the_ridge_and_stays_flat_above():
    for low in (0.25, 1, 4):
        assert ws.explorer_state("A100", "fp32", 2 * low).attainable_gflops == pytest.approx(
            2 * ws.explorer_state("A100", "fp32", low).attainable_gflops)
    assert ws.explorer_state("A100", "fp32", 50).attainable_gflops == ws.explorer_state(
        "A100", "fp32", 100).attainable_gflops == 19_500


# --- other states ----------------------------------------------------------------------------

def test_time_bounds_state_on_the_worked_example():
    state = ws.time_bounds_state(240e9, 20e9, 120_000, 3_000)
    assert state.compute_s == pytest.approx(2e-3) and state.memory_s == pytest.approx(20 / 3 * 1e-3)
    assert state.limiter == "memory" and state.overlapped_gflops == pytest.approx(36_000)
    assert state.serial_s / state.overlapped_s == pytest.approx(1.3)
    assert [label for label, _ in state.bars()][2].startswith("max")
    assert "6.67 ms" in state.text() and "36,000 GFLOP/s" in state.text()
    with pytest.raises(ValueError, match="^n_bytes: must be a positive"):
        ws.time_bounds_state(1, 0, 1, 1)


def test_equal_times_make_the_serial_bound_twice_the_overlapped():
    state = ws.time_bounds_state(120e9, 3e9, 120_000, 3_000)
    assert state.serial_s == pytest.approx(2 * state.overlapped_s)


@pytest.mark.parametrize("machine, dtype, smallest", [
    ("MI300X", "fp32", 93), ("MI300X", "bf16", 741), ("MI300X", "fp8", 741),
])
def test_gemm_state_reproduces_the_course_table(machine, dtype, smallest):
    state = ws.gemm_state(machine, dtype, 512)
    assert state.smallest_n == smallest
    assert state.intensity == pytest.approx(2 * 512 / (3 * {"fp32": 4, "bf16": 2, "fp8": 1}[dtype]), rel=1e-12)


def test_gemm_state_refuses_a_precision_the_machine_lacks():
    assert "fp8" not in ws.gemm_dtypes("A100")
    with pytest.raises(ValueError, match="^dtype: A100 has no fp8-tensor ceiling"):
        ws.gemm_state("A100", "fp8", 1024)
    with pytest.raises(ValueError, match="^n: must be at least 1"):
        ws.gemm_state("A100", "fp32", 0)


def test_attention_state_fused_crosses_unfused_never_does():
    state = ws.attention_state("MI300X", 8192, 128, "bf16")
    assert state.unfused_side == "memory" and state.fused_side == "compute"
    assert state.unfused_crossover_s is None
    assert state.unfused_limit == pytest.approx((4 * 128 + 5) / 8)
    assert 480 <= state.fused_crossover_s <= 500  # the course: "crossing the ridge at s ~ 490"
    assert "never reaches the ridge" in state.text()
    curves = ws.attention_curves(128)
    assert all(b > a for a, b in zip(curves["fused"], curves["fused"][1:]))
    assert max(curves["unfused"]) < state.unfused_limit


@pytest.mark.parametrize("tile, a100_gflops, a100_side", [
    (1, 389, "memory"), (32, 12_400, "memory"), (64, 19_500, "compute"), (128, 19_500, "compute"),
])
def test_tile_state_matches_the_tile_model(tile, a100_gflops, a100_side):
    state = ws.tile_state(tile)
    a100, h100, h200 = state.rows
    assert a100.attainable_gflops == pytest.approx(a100_gflops, rel=0.005)
    assert a100.side == a100_side
    assert (a100.smallest_tile_pow2, h100.smallest_tile_pow2) == (64, 128)
    assert a100.tensor_ridge == pytest.approx(312_000 / 1_555)  # the course: "201 flop/byte"
    assert h100.side == ("compute" if tile == 128 else "memory")


def test_sweep_point_state_places_rows_and_flags_unverified():
    roofline = ws.as_machine("H200").roofline()
    rows = [{"k": 0, "intensity": 0.0, "gbps": 4_000, "gflops": 0.0, "verified": True},
            {"k": 4, "intensity": 1.0, "gbps": 4_000, "gflops": 4_000, "verified": True},
            {"k": 256, "intensity": 64.0, "gbps": 900, "gflops": 60_000, "verified": False}]
    low = ws.sweep_point_state(rows, 4, roofline)
    assert low.side == "memory" and low.fraction_of_roof == pytest.approx(4_000 / 4_800)
    copy = ws.sweep_point_state(rows, 0, roofline)
    assert copy.fraction_of_roof == pytest.approx(4_000 / 4_800)
    high = ws.sweep_point_state(rows, 256, roofline)
    assert high.side == "compute" and "NOT verified" in high.text()
    with pytest.raises(ValueError, match="^k: no sweep row for K = 8"):
        ws.sweep_point_state(rows, 8, roofline)


def test_text_helpers():
    assert ws.seconds_text(6.667e-3) == "6.67 ms" and ws.seconds_text(4e-9) == "4 ns"
    assert ws.gflops_text(66_900) == "66,900 GFLOP/s (66.9 TFLOP/s)"
    assert ws.intensity_text(1_176.3) == "1,176" and ws.intensity_text(1 / 12) == "0.0833"
    grid = ws.log_grid(1, 100, per_decade=2)
    assert grid[0] == 1 and grid[-1] == pytest.approx(100) and len(grid) == 5


# --- the explorer widget ---------------------------------------------------------------------

@pytest.fixture
def explorer():
    return widgets.intensity_explorer("H200", "fp32", intensity=1.0)


def _point(fig):
    trace = find_trace(fig, "kernel:" + widgets.POINT_NAME)
    return trace.x[0], trace.y[0]


def test_explorer_starts_where_asked(explorer):
    assert trace_ids(explorer.figure) == ["mem:dram", "roof:fp32", "ridge:fp32", "kernel:your kernel"]
    assert _point(explorer.figure) == (1.0, 4_800)
    assert "memory-bound" in explorer.verdict.value
    assert widgets.EXPLORER_CLASS in explorer.box._dom_classes
    assert widgets.SLIDER_CLASS in explorer.slider._dom_classes
    assert widgets.VERDICT_CLASS in explorer.verdict._dom_classes
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_slider_moves_the_point_in_place_across_the_ridge(explorer):
    figure = explorer.figure
    explorer.slider.value = 1024.0
    assert explorer.figure is figure  # updated, not redrawn
    assert _point(figure) == (1024.0, 66_900)
    assert "compute-bound" in explorer.verdict.value and "memory-bound" not in explorer.verdict.value
    assert explorer.state.side == "compute"


def test_a_slider_move_sends_one_figure_message(explorer):
    messages = []
    names = [n for n in explorer.figure.trait_names() if n.startswith("_py2js_")]
    explorer.figure.observe(lambda change: messages.append(change["name"]) if change["new"] else None,
                            names=names)
    explorer.slider.value = 8.0
    assert _point(explorer.figure) == (8.0, 8 * 4_800)
    assert len(messages) == 1, messages  # x, y and hover text travel together (batch_update)


def test_precision_and_machine_redraw_the_roofs_in_place(explorer):
    figure = explorer.figure
    explorer.slider.value = 90.0
    explorer.precision_menu.value = "bf16-tensor"
    assert explorer.figure is figure
    assert trace_ids(figure) == ["mem:dram", "roof:bf16-tensor", "ridge:bf16-tensor", "kernel:your kernel"]
    assert "memory-bound" in explorer.verdict.value
    assert _point(figure) == (90.0, 90 * 4_800)
    explorer.machine_menu.value = "A100"
    assert explorer.precision_menu.value == "bf16-tensor"
    assert find_trace(figure, "roof:bf16-tensor").y[0] == 312_000
    explorer.machine_menu.value = "example 120 TFLOP/s, 3 TB/s"  # no bf16 roof: falls back to fp32
    assert explorer.precision_menu.value == "fp32"
    assert trace_ids(figure)[1] == "roof:fp32"
    assert "compute-bound" in explorer.verdict.value  # 90 > 40


def test_use_ceilings_swaps_in_measured_ceilings_in_one_call(explorer):
    measured = [Ceiling("dram", "memory", 4_000.0, "Lab 1"), Ceiling("fp32", "compute", 60_000.0, "Lab 1")]
    returned = explorer.use_ceilings(measured)
    assert returned is explorer
    assert explorer.machine_menu.value == "H200 (measured)"
    assert explorer.state.ridge == pytest.approx(15.0)
    assert find_trace(explorer.figure, "roof:fp32").y[0] == 60_000
    assert explorer.machine.ceiling("bf16-tensor").value == 989_400  # others kept
    assert _point(explorer.figure) == (1.0, 4_000)


def test_use_ceilings_takes_a_whole_machine(explorer):
    machine = ws.as_machine("A100").with_ceilings(
        Ceiling("dram", "memory", 1_400.0, "Lab 1"), name="my A100", kind="measured")
    explorer.use_ceilings(machine)
    assert explorer.machine_menu.value == "my A100"
    assert explorer.state.peak_gbps == 1_400
    with pytest.raises(ValueError, match="^measured: expected a Machine or Ceiling"):
        explorer.use_ceilings(["dram"])


def test_bad_intensity_shows_an_error_and_keeps_the_point(explorer):
    state = explorer.update(intensity=-3)
    assert state.intensity == 1.0
    assert "intensity: must be a positive number" in explorer.verdict.value
    assert _point(explorer.figure) == (1.0, 4_800)


def test_slider_range_spans_every_datasheet_ridge(explorer):
    from rooflinelib.core.machines import DATASHEET_MACHINES
    ridges = [m.ridge(c.name) for m in DATASHEET_MACHINES for c in m.compute_ceilings]
    low, high = 2 ** explorer.slider.min, 2 ** explorer.slider.max
    assert low < 1 / 12 and high > max(ridges)


# --- the other widgets -----------------------------------------------------------------------

def test_time_bounds_widget_bars_follow_the_sliders():
    widget = widgets.time_bounds_widget()
    bars = widget.figure.data[0]
    assert bars.x[0] == pytest.approx(2.0) and bars.x[1] == pytest.approx(20 / 3)  # in ms
    assert widget.figure.layout.xaxis.title.text == "time (ms)"
    widget.flops.value = 1e15
    assert "compute time is the larger" in widget.text.value
    assert bars.x[2] == pytest.approx(max(bars.x[0], bars.x[1]))
    assert bars.x[3] == pytest.approx(bars.x[0] + bars.x[1])


def test_gemm_widget_follows_n_precision_and_machine():
    widget = widgets.gemm_widget("MI300X", "bf16", 512)
    point = widget.figure.data[3]
    assert point.x[0] == 512 and point.y[0] == pytest.approx(512 / 3)
    assert widget.figure.data[2].x[0] == 741
    widget.n_slider.value = 1024
    assert "compute-bound" in widget.text.value
    widget.machine_menu.value = "example 120 TFLOP/s, 3 TB/s"
    assert widget.dtype_menu.value == "fp32" and list(widget.dtype_menu.options) == ["fp32"]


def test_attention_widget_marks_the_crossing():
    widget = widgets.attention_widget("MI300X", 1024, 128)
    unfused, fused, ridge, crossing, points = widget.figure.data
    assert crossing.x[0] == ws.attention_state("MI300X", 1024, 128).fused_crossover_s
    assert list(points.x) == [1024, 1024]
    widget.d_menu.value = 64
    assert widget.figure.data[4].y[0] == pytest.approx(ws.attention_state("MI300X", 1024, 64).unfused_intensity)


def test_tile_animation_has_a_play_control_and_moves_three_points():
    widget = widgets.tile_animation()
    import ipywidgets
    assert isinstance(widget.play, ipywidgets.Play)
    assert (widget.play.min, widget.play.max) == (0, len(ws.TILE_SIZES) - 1)
    widget.tile_slider.value = 64
    for name, gflops in (("A100", 19_500), ("H200", 66_900)):
        trace = find_trace(widget.figure, f"{name}|kernel:tiled GEMM")
        assert trace.y[0] == pytest.approx(gflops)
    assert "b = 64" in widget.text.value
    ids = trace_ids(widget.figure)
    assert "H100 SXM|roof:bf16-tensor" in ids and "A100|mem:dram" in ids


def test_sweep_walker_walks_the_rows():
    rows = [{"k": 0, "intensity": 0.0, "gbps": 4_000, "gflops": 0.0, "verified": True},
            {"k": 4, "intensity": 1.0, "gbps": 4_000, "gflops": 4_000, "verified": True},
            {"k": 256, "intensity": 64.0, "gbps": 900, "gflops": 60_000, "verified": True}]
    walker = widgets.sweep_walker(rows, "H200")
    assert list(walker.k_slider.options) == [4, 256]
    walker.k_slider.value = 256
    trace = find_trace(walker.figure, "kernel:sweep K")
    assert (trace.x[0], trace.y[0]) == (64.0, 60_000)
    assert "compute-bound" in walker.text.value
    with pytest.raises(ValueError, match="^rows: the sweep has no row"):
        widgets.sweep_walker(rows[:1], "H200")


def test_triage_tool_reports_and_survives_bad_input():
    tool = widgets.triage_tool(duration_us="3", fraction_of_roof="0.01")
    assert "Pitfall 1" in tool.report.value
    tool.inputs["blocks"].value = "__import__('os')"
    assert "Cannot triage yet: blocks: names and calls are not allowed" in tool.report.value
    tool.inputs["blocks"].value = ""
    tool.inputs["duration_us"].value = ""
    tool.inputs["l2_hit_rate"].value = "0.9"
    assert "Pitfall 3" in tool.report.value


def test_widgets_module_imports_no_plotting_library_until_used():
    code = ("import sys, rooflinelib.views.widgets, rooflinelib.views.widget_state; "
            "print([m for m in ('plotly', 'ipywidgets', 'numba', 'numpy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("make,change", [
    # each change renames some traces (the ridge's, the crossing's) and not others
    (lambda: widgets.gemm_widget("MI300X", "bf16", 512),
     lambda w: setattr(w.dtype_menu, "value", [d for d in w.dtype_menu.options if d != "bf16"][0])),
    (lambda: widgets.attention_widget("MI300X", s=1024, d=128), lambda w: setattr(w.d_menu, "value", 64)),
    (lambda: widgets.intensity_explorer("H200", "fp32", 4.0),
     lambda w: setattr(w.machine_menu, "value", "MI300X")),
])
def test_updates_never_send_a_null_trace_name(make, change):
    # plotly.js reads a null in an update as "unset": a name set at construction then showed
    # as "trace 0" in the browser once another trace's name changed in the same message.
    widget = make()
    sent = []
    original = widget.figure._send_update_msg
    widget.figure._send_update_msg = lambda *a, **k: (sent.append(k.get("restyle_data", a[0] if a else {})),
                                                       original(*a, **k))
    change(widget)
    names = [v for restyle in sent for v in restyle.get("name", [])]
    assert sent and names, "the update sent no names at all"
    # batch_update puts plotly's Undefined there, which goes to the browser as null
    assert all(isinstance(name, str) and name for name in names), names
    assert all(t.name for t in widget.figure.data if t.showlegend is not False)


def test_selection_sliders_snap_an_off_list_number_and_name_themselves_for_anything_else():
    pytest.importorskip("ipywidgets")
    pytest.importorskip("plotly")
    from traitlets import TraitError
    from rooflinelib.views import widgets
    g = widgets.gemm_widget("H200", "bf16", 512)
    sizes = ws.GEMM_SIZES
    for value, snapped in ((10 ** 400, max(sizes)), (float("inf"), max(sizes)), (0, min(sizes)),
                           (-3, min(sizes)), (5000, 4096)):
        g.n_slider.value = value
        assert g.n_slider.value == snapped
        assert f"N = {snapped}" in g.text.value  # the widget shows the snapped size
    for bad in ("big", float("nan")):
        with pytest.raises(TraitError, match=r"^N: must be one of its values \(16 to 16384\), got "):
            g.n_slider.value = bad


def test_every_figure_widget_is_made_by_figure_widget():
    # plotly's own FigureWidget makes the browser run plotly.js once per figure
    # (plotting.figure_widget, tests/browser/test_widget_loader.py)
    from pathlib import Path
    from rooflinelib.views import plotting
    package = Path(plotting.__file__).parent
    direct = [f"{path.relative_to(package)}:{number}" for path in sorted(package.rglob("*.py"))
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              if "FigureWidget(" in line and "class FigureWidget(" not in line]
    assert direct == [], direct
    explorer = widgets.intensity_explorer("H200", "fp32", 4.0)
    assert explorer.figure._esm == plotting._WIDGET_LOADER_ESM and len(explorer.figure._plotly_bundle) > 10 ** 6


def test_time_bounds_widget_starts_exactly_at_the_examples_values():
    # The browser moves a log slider to its nearest stop, 10 ** (min + k * step), and sends that
    # back: from whole-decade ranges the worked example (240 GFLOP, 20 GB, 120 TFLOP/s, 3 TB/s)
    # became 2.51e11 / 1.26e5 / 3.16e3 and its 6.667 ms memory bound 6.31 ms.
    import math
    widget = widgets.time_bounds_widget(n_flops=240e9, n_bytes=20e9, peak_gflops=120_000.0, peak_gbps=3_000.0)
    for control, value in ((widget.flops, 240e9), (widget.bytes, 20e9), (widget.peak, 120_000.0),
                           (widget.bandwidth, 3_000.0)):
        k = round((math.log10(value) - control.min) / control.step)
        snapped = 10 ** (control.min + k * control.step)
        assert abs(snapped - value) <= 1e-9 * value, (control.description, snapped)
        assert control.value == value
    state = widget.update()
    assert f"{state.memory_s * 1e3:.3f}" == "6.667"


def test_machine_and_precision_menus_fit_their_longest_option():
    # ipywidgets' default Dropdown (300 px, 100 of them the description) cut the machine names
    # short ("example 120 TFLOP/s, 3 TB/s").
    from rooflinelib.core.machines import machine_names
    explorer = widgets.IntensityExplorer("H200", "fp32", intensity=1.0, warm=False)
    menus = [explorer.machine_menu, explorer.precision_menu,
             widgets.gemm_widget("MI300X", "bf16", 512).machine_menu,
             widgets.attention_widget("MI300X", s=1024, d=128).machine_menu]
    longest_machine = max(map(len, machine_names()))
    longest_precision = max(len(label) for m in explorer.machines.values() for label, _ in ws.precision_options(m))
    for menu, longest in zip(menus, (longest_machine, longest_precision, 0, 0)):
        labels = [label if isinstance(label, str) else label[0] for label in menu.options]
        longest = max([longest] + [len(label) for label in labels])
        width = int(menu.layout.width.removesuffix("px"))
        description = int(menu.style.description_width.removesuffix("px"))
        assert width - description - 30 >= widgets.MENU_PX_PER_CHAR * longest, (menu.description, width, longest)
