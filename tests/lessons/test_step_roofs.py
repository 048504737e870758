"""Pitfall 9 on one GPU: a training step's cost, its measured roofs, the widget that moves it."""
import copy
import math

import pytest

from rooflinelib.core import interconnect
from rooflinelib.store import results
from rooflinelib.lessons import step_roofs
from rooflinelib.views import tables, widget_state as ws
from rooflinelib.core.interconnect import WEIGHT_PASSES, data_parallel_step, streamed_training_step
from rooflinelib.modes import RunMode
from rooflinelib.store.results import ResultError
from rooflinelib.lessons.triage import triage


# --- the model: a step's FLOPs, HBM bytes and link bytes -------------------------------------

def test_streamed_step_counts():
    step = streamed_training_step(n_params=1000, tokens=64, bytes_per_token=768, element_bytes=2)
    assert step.n_flops == 6 * 1000 * 64
    assert step.link_bytes == 64 * 768
    assert step.hbm_bytes == WEIGHT_PASSES * 1000 * 2 + 64 * 768
    assert step.link_intensity == 6 * 1000 / 768


def test_streamed_step_link_intensity_ignores_the_batch_but_hbm_intensity_grows_with_it():
    small, large = (streamed_training_step(10 ** 6, t, 768) for t in (64, 65536))
    assert small.link_intensity == large.link_intensity
    assert large.hbm_intensity > 100 * small.hbm_intensity


def test_data_parallel_step_model_size_cancels_from_every_intensity():
    a, b = (data_parallel_step(p, tokens_per_gpu=512, n_gpus=8) for p in (10 ** 6, 10 ** 9))
    assert a.link_intensity == pytest.approx(b.link_intensity)
    assert a.hbm_intensity == pytest.approx(b.hbm_intensity)
    # 3 n T / ((n - 1) s) from the all-reduce's docstring
    assert a.link_intensity == pytest.approx(3 * 8 * 512 / (7 * 2))
    assert b.n_flops == 1000 * a.n_flops


def test_step_place_matches_place_step():
    step = streamed_training_step(10 ** 6, 4096, 768)
    bounds = step.place(1e6, 4000.0, 50.0)
    assert bounds.link_s == pytest.approx(step.link_bytes / 50e9)
    assert bounds.hbm_s == pytest.approx(step.hbm_bytes / 4000e9)
    assert bounds.compute_s == pytest.approx(step.n_flops / 1e15)
    assert bounds.binding == "link"


@pytest.mark.parametrize("call, message", [
    (lambda: streamed_training_step(0, 64, 768), r"^n_params: must be at least 1"),
    (lambda: streamed_training_step(10, 64.5, 768), r"^tokens: must be a whole number"),
    (lambda: streamed_training_step(10, 64, -4), r"^bytes_per_token: must be at least 1"),
    (lambda: data_parallel_step(10, 64, math.nan), r"^n_gpus: must be a whole number"),
])
def test_step_errors_name_the_field(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- the roofs, from the shipped H200 runs ---------------------------------------------------

def test_recorded_roofs_come_from_the_shipped_files():
    roofs = step_roofs.recorded_step_roofs()
    lab1 = {c["name"]: c["value"] for c in results.recorded("ceilings")["ceilings"]}
    links = {c["name"]: c["value"] for c in results.recorded_links()["ceilings"]}
    assert roofs.origin == "recorded"
    assert roofs.compute_name == "bf16-tensor" and roofs.peak_gflops == lab1["bf16-tensor"]
    # review 51d: a step reads and writes (under 90% one way), so its HBM roof is the copy mix
    assert roofs.hbm_gbps == lab1["dram-copy"] and roofs.hbm_name == "dram-copy"
    assert roofs.host_link.measured and roofs.host_link.gbps == min(links["pcie-h2d"], links["pcie-d2h"])
    assert [r.measured for r in roofs.links] == [True, False, False]
    assert roofs.link("nvlink4").gbps == interconnect.link("nvlink4").gbps_per_direction
    # pageable copies are kept beside the pinned ceiling, and are slower
    assert set(roofs.pageable_gbps) == {"h2d", "d2h"}
    assert max(roofs.pageable_gbps.values()) < roofs.host_link.gbps


def test_roofs_refuse_a_result_without_link_ceilings():
    lab1 = results.recorded("ceilings")
    with pytest.raises(ResultError, match=r"^ceilings: no verified pcie-h2d, pcie-d2h"):
        step_roofs.roofs_from(lab1, lab1, "live", "")


def test_roofs_ignore_unverified_ceilings():
    lab1 = copy.deepcopy(results.recorded("ceilings"))
    for row in lab1["ceilings"]:
        if row["name"] in ("dram", "dram-copy"):
            row["verified"] = False
    with pytest.raises(ResultError, match=r"^ceilings: no verified 'dram-copy' or 'dram'"):
        step_roofs.roofs_from(lab1, results.recorded_links(), "live", "")


def test_cpu_mode_says_why_it_uses_the_recorded_h200():
    roofs = step_roofs.step_roofs_for(RunMode("cpu", "cpu", "a test CPU"))
    assert roofs.origin == "recorded"
    assert roofs.message.startswith("A CPU has no host link of its own to measure")


def test_gpu_mode_falls_back_to_recorded_when_the_live_run_fails(monkeypatch):
    from rooflinelib import modes

    def failing(mode, **options):
        assert options["links"] is True  # Lab 1 is asked for its link ceilings
        return modes.Loaded("recorded", "the live ceilings run on a test GPU failed (boom)")

    monkeypatch.setattr(modes, "student_ceilings", failing)
    roofs = step_roofs.step_roofs_for(RunMode("gpu", "numba", "a test GPU"))
    assert roofs.origin == "recorded"
    assert "failed (boom)" in roofs.message


def test_roofs_table_lists_measured_and_datasheet_rows():
    text = tables.step_roofs_text(step_roofs.recorded_step_roofs())
    assert "compute (bf16-tensor)" in text and "HBM, copy mix (dram-copy)" in text
    sources = [line.split()[-1] for line in text.splitlines()[2:]]
    assert sources == ["measured"] * 3 + ["datasheet"] * 2 + ["measured"] * 2
    assert "pageable host memory, h2d" in text


# --- the widget's state ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def roofs():
    return step_roofs.recorded_step_roofs()


def test_small_model_on_patches_is_link_bound_while_the_device_calls_it_compute_bound(roofs):
    state = ws.link_step_state(roofs, n_params=10 ** 6, tokens=4096, bytes_per_token=768)
    assert state.device_side == "compute"
    assert state.link_bound and state.bounds.binding == "link"
    assert state.communication_share == pytest.approx(1 - state.device_s / state.bounds.link_s)
    verdict = triage(state.triage_facts())
    assert verdict.likely.pitfall == 9


def test_a_larger_model_crosses_off_the_link_roof(roofs):
    state = ws.link_step_state(roofs, n_params=10 ** 8, tokens=4096, bytes_per_token=768)
    assert not state.link_bound
    assert state.communication_share == 0.0
    assert "not what limits it" in state.text()


def test_all_reduce_needs_more_tokens_per_gpu_over_pcie_than_over_nvlink(roofs):
    def first_compute_bound(link):
        return next(t for t in ws.STEP_TOKENS if not ws.link_step_state(
            roofs, ws.LINK_SCENARIOS[1], 10 ** 8, t, n_gpus=8, link=link).link_bound)
    assert first_compute_bound("pcie-measured") > 4 * first_compute_bound("nvlink4")


def test_without_overlap_the_link_time_adds(roofs):
    over = ws.link_step_state(roofs, n_params=10 ** 8, tokens=4096, overlap=True)
    serial = ws.link_step_state(roofs, n_params=10 ** 8, tokens=4096, overlap=False)
    assert serial.step_s == pytest.approx(over.device_s + over.bounds.link_s)
    assert serial.communication_share > 0 == over.communication_share


@pytest.mark.parametrize("values, message", [
    (dict(scenario="fly"), r"^scenario: must be one of"),
    (dict(n_params=0), r"^n_params"),
    (dict(tokens=float("inf")), r"^tokens"),
    (dict(link="carrier pigeon"), r"^link: unknown 'carrier pigeon'"),
    (dict(overlap="yes"), r"^overlap: must be True or False"),
    (dict(scenario=ws.LINK_SCENARIOS[1], n_gpus=1), r"^n_gpus"),
])
def test_link_state_errors_name_the_field(roofs, values, message):
    with pytest.raises(ValueError, match=message):
        ws.link_step_state(roofs, **values)


def test_link_widget_moves_its_points_and_flips_its_title(roofs):
    pytest.importorskip("ipywidgets")
    pytest.importorskip("plotly")
    from rooflinelib.views import widgets
    w = widgets.link_step_widget(roofs, n_params=10 ** 6)
    assert w.figure.layout.title.text.endswith("link-bound")
    names = [t.name for t in w.figure.data]
    assert widgets.DEVICE_POINT in names and widgets.STEP_POINT in names
    assert any(name.startswith("link roof: PCIe, measured") for name in names)
    before = w.figure.data[4].y[0]
    w.params.value = 10 ** 9
    assert w.figure.layout.title.text.endswith("compute-bound")
    assert w.figure.data[4].y[0] > before
    w.scenario.value = ws.LINK_SCENARIOS[1]
    assert w.inputs.disabled and not w.gpus.disabled


def test_gpu_mode_uses_the_stored_lab1_result_and_measures_nothing(monkeypatch, tmp_path):
    # Issue 25 item 3: the step's compute and HBM roofs are the student's stored Lab 1 result
    # (the ridge every other notebook shows), not a fresh Lab 1 each time the cell runs.
    from rooflinelib import measure, modes
    from rooflinelib.store.lab_files import RESULTS_DIR_ENV, default_path
    monkeypatch.setenv(RESULTS_DIR_ENV, str(tmp_path))
    lab1 = results.recorded("ceilings")
    lab1["ceilings"] = [dict(c, value=c["value"] * 0.5) if c["name"] in ("dram", "dram-copy") else c
                        for c in lab1["ceilings"]]
    results.save(lab1, default_path("ceilings", "numba"))
    monkeypatch.setattr(measure, "measure_ceilings", lambda **o: pytest.fail("measured although a result was stored"))
    roofs = step_roofs.step_roofs_for(RunMode("gpu", "numba", "a test GPU"))
    stored = modes.load_ceilings(backend="numba")
    copy_roof = next(c["value"] for c in stored.result["ceilings"] if c["name"] == "dram-copy")
    assert roofs.origin == "file" and roofs.hbm_gbps == copy_roof and roofs.hbm_name == "dram-copy"
    assert "Host link from the recorded H200 copies" in roofs.message
