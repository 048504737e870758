"""Notebook 07's library (rooflinelib.profiling.capstone): the notebook's own kernels counted in
the CUDA simulator, the self-graded checks, the live pair's verification, the comparison of the
prediction with the measurement, and the recorded H200 profiles, missing and present."""
import dataclasses
import sys
from pathlib import Path

import numpy as np
import nbformat
import pytest

from support import simulated

pytest.importorskip("numba.cuda")

from rooflinelib.core import operators  # noqa: E402
from rooflinelib.exercises.grading import NOT_ANSWERED  # noqa: E402
from rooflinelib.core.machines import get_machine  # noqa: E402
from rooflinelib.modes import RunMode, load_ceilings  # noqa: E402
from rooflinelib.profiling import ProfileError, capstone, recorded  # noqa: E402
from rooflinelib.store import recorded as recorded_folder  # noqa: E402
from rooflinelib.profiling.core import _placement  # noqa: E402
from rooflinelib.profiling.profile_result import ProfileResult  # noqa: E402

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "07_place_your_kernel.ipynb"
F32 = 4


@pytest.fixture(scope="module")
def kernels():
    """The notebook's kernel cell, run as it stands: the tests count what students read."""
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "def softmax_3pass" in c.source)
    namespace = {}
    exec(compile(cell.source, str(NOTEBOOK), "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def counts(kernels):
    out = {}
    for rows, cols in capstone.SIM_SIZES:
        b = capstone.softmax_buffers(rows, cols)
        out[rows, cols] = {"3-pass": capstone.count_passes(kernels["three_pass_passes"](b), rows, capstone.SIM_THREADS),
                           "fused": capstone.count_passes(kernels["fused_passes"](b), rows, capstone.SIM_THREADS)}
    return out


@pytest.mark.slow
def test_the_notebooks_kernels_move_the_bytes_the_model_counts_plus_the_per_row_values(counts):
    t = capstone.SIM_THREADS
    for (rows, cols), c in counts.items():
        n = rows * cols
        three, fused = c["3-pass"], c["fused"]
        assert three["launches"] == 3 and fused["launches"] == 1
        # x twice and e once read, e and y written; maxima and sums written once, read once a launch
        assert capstone.distinct_bytes(three) == operators.softmax(n, fused=False).n_bytes + 4 * F32 * rows
        assert capstone.distinct_bytes(fused) == operators.softmax(n, fused=True).n_bytes
        # every thread of a row's block reads its maxima (pass 2) and sums (pass 3) value
        assert three["read"] + three["written"] == 20 * n + 2 * F32 * rows * (t + 1)
        assert fused["read"] + fused["written"] == 8 * n  # the row stays in shared memory


def test_the_simulated_buffers_hold_what_each_pass_hands_the_next():
    b = capstone.softmax_buffers(4, 64)
    assert np.allclose(b["e"], np.exp(b["x"] - b["maxima"][:, None]))
    assert np.allclose(b["e"] / b["sums"][:, None], capstone.reference_softmax(b["x"]), rtol=1e-5)


def _formula_checks(counts, variant):
    return {size: c[variant] for size, c in counts.items()}


def test_the_byte_formula_check_passes_the_count_and_catches_the_usual_slips(counts):
    three, fused = _formula_checks(counts, "3-pass"), _formula_checks(counts, "fused")
    assert capstone.check_byte_formula(lambda rows, cols: 20 * rows * cols, three, "q").passed
    assert capstone.check_byte_formula(lambda rows, cols: 8 * rows * cols, fused, "q").passed
    elements = capstone.check_byte_formula(lambda rows, cols: 2 * rows * cols, fused, "q")
    assert elements.status == "fail" and "elements, not bytes" in elements.message
    t = capstone.SIM_THREADS
    accesses = capstone.check_byte_formula(lambda rows, cols: 20 * rows * cols + 8 * rows * (t + 1), three, "q")
    assert accesses.status == "fail" and "every access" in accesses.message
    # a constant that fits one size fails at the other: the two sizes hold different elements
    first = next(iter(fused))
    constant = capstone.distinct_bytes(fused[first])
    assert capstone.check_byte_formula(lambda rows, cols: constant, fused, "q").status == "fail"
    assert capstone.check_byte_formula(lambda rows, cols: 12 * rows * cols, fused, "q").status == "fail"
    assert capstone.check_byte_formula(NOT_ANSWERED, fused, "q").status == "unanswered"
    assert capstone.check_byte_formula(lambda rows, cols: 1 / 0, fused, "q").status == "invalid"
    assert capstone.check_byte_formula(lambda r: r, fused, "q").status == "invalid"


def test_the_prediction_is_the_byte_ratio_and_its_slips_get_their_hints():
    assert capstone.model_speedup(8, 256) == pytest.approx(2.5)
    assert capstone.check_prediction(2.5, 8, 256).passed
    assert capstone.check_prediction("20/8", 8, 256).passed
    assert "slow time over the fast" in capstone.check_prediction(0.4, 8, 256).message
    assert "streaming online softmax" in capstone.check_prediction(20 / 12, 8, 256).message
    assert "FLOPs are the same" in capstone.check_prediction(1, 8, 256).message
    assert capstone.check_prediction(NOT_ANSWERED, 8, 256).status == "unanswered"
    assert capstone.check_prediction("fast", 8, 256).status == "invalid"


def _profile(name, seconds, n_bytes, machine, measured=None, side="memory"):
    elements = 16384 * 4096
    n_flops = operators.softmax(elements).n_flops
    roof = machine.roofline("fp32", "dram")
    hierarchical = None
    if measured is not None:
        measured = dict(measured, name=name, n_flops=n_flops, achieved_gflops=n_flops / seconds / 1e9,
                        dram_over_analytic=(measured["dram_read_bytes"] + measured["dram_write_bytes"]) / n_bytes)
        hierarchical = _placement(measured, machine, "fp32")
    verdict = roof.classify(n_flops / n_bytes, n_flops / seconds / 1e9)
    return ProfileResult(
        name=name, n_flops=n_flops, n_bytes=n_bytes, seconds=seconds, spread=0.01, first_call_s=0.5, repeats=50,
        library="numba", clock="device events", machine=machine.name, ceilings_source="test", compute="fp32",
        memory="dram", peak_gflops=roof.peak_gflops, peak_gbps=roof.peak_gbps, roof_gflops=verdict.roof_gflops,
        side=side, fraction_of_roof=verdict.fraction_of_roof, advice="a", measured=measured,
        hierarchical=hierarchical,
        device={"name": "NVIDIA H200", "backend": "numba", "started": "2026-12-01T12:00:00+00:00",
                "before": {"driver": "13.0", "sm_clock_mhz": 1980}})


@pytest.fixture(scope="module")
def h200():
    return load_ceilings().machine  # the recorded H200 run: fp32, dram, l2 and shared ceilings


def _counters(n_bytes, l2_factor=1.3, kernels=1):
    return {"dram_read_bytes": 0.6 * n_bytes, "dram_write_bytes": 0.39 * n_bytes, "lts_bytes": l2_factor * n_bytes,
            "l1_bytes": 1.05 * n_bytes, "fp32_flops": 3.0 * 16384 * 4096, "tensor_instructions": 0,
            "kernels": kernels, "collection_s": 9.0}


@pytest.fixture()
def recorded_pair_file(tmp_path, monkeypatch, h200):
    n = 16384 * 4096
    bytes3, bytesf = operators.softmax(n, fused=False).n_bytes, operators.softmax(n, fused=True).n_bytes
    profiles = [_profile("softmax 3-pass", 1.2 * bytes3 / 4.276e12, bytes3, h200, _counters(bytes3, kernels=3)),
                _profile("softmax fused", 1.05 * bytesf / 4.276e12, bytesf, h200, _counters(bytesf))]
    recorded.save_profiles(profiles, tmp_path / "h200_profiles_numba.json", created="2026-12-01", note="test")
    monkeypatch.setattr(recorded_folder, "DATA_DIR", tmp_path)
    return profiles


def test_missing_recorded_profiles_say_not_recorded_yet_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(recorded_folder, "DATA_DIR", tmp_path)
    profiles, message = capstone.recorded_pair()
    assert profiles == {} and "not recorded yet" in message and "\n" not in message
    assert capstone.recorded_softmax(profiles) == {}
    assert capstone.counters_text(profiles) == "no recorded softmax profiles"


def test_recorded_profiles_carry_their_provenance_counters_and_levels(recorded_pair_file):
    profiles, message = capstone.recorded_pair()
    assert set(profiles) == {"softmax 3-pass", "softmax fused"}
    for fact in ("NVIDIA H200", "2026-12-01", "driver 13.0", "SM clock 1980 MHz", "shipped with the course"):
        assert fact in message
    assert "/" not in message.split("measured")[0]  # no file path in what the notebook prints
    text = capstone.counters_text(profiles)
    assert "3 launch(es)" in text and "0.990x the analytic" in text
    # both DRAM counts are 0.99 of their analytic counts, so their ratio is the model's
    assert "DRAM bytes, 3-pass over fused: 2.50 (the model's byte ratio: 2.50)" in text
    assert "times, 3-pass over fused: 2.86" in text
    fused = capstone.recorded_softmax(profiles)["fused"]
    levels = capstone.levels_text(fused)
    binding = fused.hierarchical["binding"]
    assert [line for line in levels.splitlines() if "<- binds" in line][0].split()[0] == capstone.LEVEL_LABELS[binding]
    assert set(fused.hierarchical["levels"]) >= {"dram", "l2"}


def test_a_profile_without_counters_has_no_level_table(h200):
    plain = _profile("softmax fused", 1e-4, 8 * 16384 * 4096, h200)
    assert "no level-by-level placement" in capstone.levels_text(plain)
    assert "recorded without ncu counters" in capstone.counters_text({"softmax fused": plain})


def test_the_comparison_names_the_assumption_that_failed(h200):
    n = 16384 * 4096
    b3, bf = operators.softmax(n, fused=False).n_bytes, operators.softmax(n, fused=True).n_bytes
    at_roof = {"3-pass": _profile("3", b3 / 4.2e12, b3, h200), "fused": _profile("f", bf / 4.2e12, bf, h200)}
    assert "the prediction holds" in capstone.comparison(at_roof, 2.5)
    slow_passes = dict(at_roof, **{"3-pass": _profile("3", 1.5 * b3 / 4.2e12, b3, h200)})
    assert "equal-bandwidth assumption" in capstone.comparison(slow_passes, 2.5)
    slow_fused = dict(at_roof, fused=_profile("f", 4 * bf / 4.2e12, bf, h200))
    assert "something other than its bytes" in capstone.comparison(slow_fused, 2.5)
    unread = capstone.comparison(at_roof, NOT_ANSWERED)
    assert unread.startswith("(your prediction could not be read: not answered yet") and "predicted 2.50x" in unread
    assert "cannot be tested" in capstone.comparison({"fused": at_roof["fused"]}, 2.5, where="here")


def test_verdicts_are_graded_against_the_profile_or_else_the_analytic_placement(h200):
    right = {"3-pass": "memory", "fused": "memory-bound"}
    assert capstone.check_verdicts(right, {}, h200, 16384, 4096).passed
    compute_side = {"3-pass": _profile("3", 1e-3, 100, h200, side="compute")}
    report = capstone.check_verdicts(right, compute_side, h200, 16384, 4096)
    assert [c.status for c in report.checks] == ["fail", "pass"] and "its profile" in report.checks[0].question
    assert capstone.check_verdicts({"3-pass": NOT_ANSWERED}, {}, h200, 1, 1).status == "unanswered"
    assert capstone.check_verdicts(NOT_ANSWERED, {}, h200, 1, 1).status == "unanswered"
    wrong_type = capstone.check_verdicts(["memory"], {}, h200, 1, 1)
    assert wrong_type.status == "invalid" and "a dict" in wrong_type.checks[0].message
    assert capstone.check_verdicts({"3-pass": "fast", "fused": "memory"}, {}, h200, 1, 1).status == "invalid"


def test_graded_profiles_prefer_the_live_pair_then_the_recorded_one(recorded_pair_file):
    profiles, _ = capstone.recorded_pair()
    live = capstone.Pair(1, 1, profiles={"fused": recorded_pair_file[1]})
    assert capstone.graded_profiles(live, profiles)[1] == "this run"
    assert capstone.graded_profiles(capstone.Pair(0, 0), profiles)[1] == "the recorded H200 profiles"
    assert capstone.graded_profiles(capstone.Pair(0, 0), {}) == ({}, "no live or recorded profile")


CPU_MODE = RunMode("cpu", "cpu", "CPU: test")


def test_recorded_mode_profiles_nothing():
    pair = capstone.profile_pair(RunMode("recorded", None, "recorded"), get_machine("H200"))
    assert pair.profiles == {} and "nothing is profiled" in pair.text()


def test_gpu_mode_needs_both_launchers():
    with pytest.raises(ProfileError, match=r"^launchers: give a function for 'fused'"):
        capstone.profile_pair(RunMode("gpu", "numba", "GPU"), get_machine("H200"), launchers={"3-pass": len})


def test_the_cpu_pair_is_verified_and_a_wrong_output_is_dropped(monkeypatch):
    monkeypatch.setattr(capstone, "CPU_ROWS", 32)
    three_pass, fused = capstone.cpu_kernels()

    def broken(x, y):  # forgets to normalize its last row
        fused(x, y)
        y[-1] = 0.5

    monkeypatch.setattr(capstone, "cpu_kernels", lambda: (three_pass, broken))
    pair = capstone.profile_pair(CPU_MODE, get_machine("H200"), repeats=2,
                                 byte_formulas={"3-pass": lambda rows, cols: 20 * rows * cols, "fused": NOT_ANSWERED})
    assert list(pair.profiles) == ["3-pass"]
    text = pair.text()
    assert "3-pass: verified on every row" in text and "fused: WRONG OUTPUT" in text
    assert "fused: your byte formula could not be used (not answered yet)" in text
    assert pair.profiles["3-pass"].n_bytes == 20 * 32 * capstone.CPU_COLS
    assert pair.profiles["3-pass"].library == "cpu"


def test_count_passes_refuses_bad_launch_lists(kernels):
    with pytest.raises(ProfileError, match=r"^passes: give at least one"):
        capstone.count_passes([], 1, 32)
    with pytest.raises(ProfileError, match=r"^passes\[0\]: expected \(kernel, args\)"):
        capstone.count_passes([kernels["fused"]], 1, 32)


def test_the_cpu_sources_are_the_two_kernels_the_notebook_profiles():
    source = capstone.cpu_sources()
    assert "def three_pass(x, scratch, y, row_max, row_sum)" in source and "def fused(x, y)" in source


GPU_LANE = r"""
import sys, nbformat
from numba.cuda.simulator import api
api.Event.elapsed_time = lambda self, other: 1.0  # the simulator's events read -1 ms
from rooflinelib.core.machines import get_machine
from rooflinelib.modes import RunMode
from rooflinelib.profiling import capstone
nb = nbformat.read(sys.argv[1], as_version=4)
namespace = {}
exec(next(c.source for c in nb.cells if c.cell_type == "code" and "def softmax_3pass" in c.source), namespace)
pair = capstone.profile_pair(RunMode("gpu", "numba", "the CUDA simulator"), get_machine("H200"),
                             launchers={"3-pass": namespace["softmax_3pass"], "fused": lambda x, y: None},
                             byte_formulas={"3-pass": lambda rows, cols: 20 * rows * cols}, repeats=1, gpu_size=(1, 256))
print(pair.text())
print("PROFILED", sorted(pair.profiles), pair.profiles["3-pass"].library, pair.profiles["3-pass"].n_bytes)
"""


@pytest.mark.slow
def test_the_gpu_lane_profiles_the_notebooks_launchers_and_drops_a_kernel_that_writes_nothing():
    # numba-cuda's simulator stands in for the GPU: device arrays, launches and events, no timing
    done = simulated.run(code=GPU_LANE, args=[NOTEBOOK])
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "Profiled live on the CUDA simulator, your Numba-CUDA kernels: 1 rows x 256" in out
    assert "3-pass: verified on 1 rows spread over the matrix" in out
    assert "fused: WRONG OUTPUT (largest relative error nan" in out
    assert "PROFILED ['3-pass'] numba 5120.0" in out


@pytest.mark.slow
@pytest.mark.parametrize("shipped", [False, True], ids=["profiles missing", "profiles shipped"])
def test_the_notebook_runs_in_recorded_mode_with_the_profiles_missing_or_shipped(shipped, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ROOFLINE_MODE", "recorded")
    if not shipped:  # the shipped folder without its profiles
        for path in recorded_folder.recorded_files():
            if "_profiles_" not in path.name:
                (tmp_path / path.name).write_bytes(path.read_bytes())
        monkeypatch.setattr(recorded_folder, "DATA_DIR", tmp_path)
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    namespace = {"display": lambda *shown: None}
    for cell in nb.cells:
        if cell.cell_type == "code":
            exec(compile(cell.source, str(NOTEBOOK), "exec"), namespace)
    out = capsys.readouterr().out
    assert "[PASS] 3-pass bytes" in out and "[PASS] predicted speed-up" in out and "verdicts: 2 correct" in out
    if shipped:  # the shipped profiles are used: their counters and level tables are printed
        # (round 16: 07's section 5 prints the counters, no longer the profiles' provenance line)
        assert "DRAM bytes, 3-pass over fused: 2.54" in out and "<- binds" in out
        assert "the recorded H200 profiles: predicted 2.50x" in out
    else:
        assert out.count("not recorded yet") == 2  # sections 5 and 6, one line each
        assert "no live or recorded profile: the prediction cannot be tested" in out
        assert "the analytic counts on these ceilings" in out


@pytest.mark.parametrize("kind, options", [("cpu", {"size_mib": 64, "repeats": 3}),
                                           ("gpu", {"matrix": False, "links": False}), ("recorded", {})])
def test_lab1_measures_only_what_the_softmax_needs_when_nothing_is_stored(kind, options, monkeypatch):
    from rooflinelib import modes
    asked = {}
    monkeypatch.setattr("rooflinelib.store.lab_files.stored_path", lambda kind_, backend: None)
    monkeypatch.setattr(modes, "student_ceilings", lambda mode, measure, **o: asked.update(o) or measure)
    mode = RunMode(kind, None if kind == "recorded" else ("cpu" if kind == "cpu" else "numba"), "test")
    loaded, seconds = capstone.lab1_ceilings(mode)
    assert loaded == "if-missing" and asked == options and seconds >= 0


def test_a_stored_lab1_result_is_used_before_any_measurement(tmp_path, monkeypatch):
    from rooflinelib import modes
    stored = recorded_folder.DATA_DIR / "h200_ceilings_numba.json"
    monkeypatch.setattr("rooflinelib.store.lab_files.stored_path", lambda kind, backend: stored)
    from rooflinelib import measure
    monkeypatch.setattr(measure, "measure_ceilings", lambda **o: pytest.fail("measured although a result was stored"))
    loaded, _ = capstone.lab1_ceilings(RunMode("gpu", "numba", "GPU"))
    assert loaded.origin == "file" and loaded.path == str(stored)


# --- issue 24: the shipped recordings, the shortfall's split, the kernels' check -------------------

def test_the_shipped_gemms_l1_row_is_called_the_l1_not_shared_memory():
    profiles, _ = capstone.recorded_pair()
    text = capstone.levels_text(profiles["gemm naive"])
    assert "shared memory" not in text and "\n  l1 " in text
    assert "l1tex__t_bytes" in capstone.L1_NOTE and "not in it" in capstone.L1_NOTE


def test_a_stored_profiles_l1_traffic_reads_as_the_l1_as_a_live_profiles_does():
    # review 2: the shipped profiles keep ncu's L1 bytes on a 'shared' level (saved before the L1
    # was named), so gemm naive's printed verdict read "bound by shared memory" where a live
    # profile(counters=True) says "bound by L1 cache"; the file keeps its key, the reader says l1
    from rooflinelib.store.fileio import read_json
    stored = {r["name"]: r for r in read_json(recorded_folder.DATA_DIR / "h200_profiles_numba.json", ValueError,
                                              "a profiles file")["profiles"]}
    assert "shared" in stored["gemm naive"]["hierarchical"]["levels"]  # the shipped file as recorded
    profiles, _ = capstone.recorded_pair()
    for name, p in profiles.items():
        assert list(p.hierarchical["levels"]) == ["dram", "l2", "l1"], name
        # (the verdict and the level lines; the triage's advice may name shared memory as a lever)
        assert "shared memory" not in p.hierarchical["verdict"] and " at shared" not in p.text(), name
        assert "shared memory" not in capstone.levels_text(p), name
    naive = profiles["gemm naive"]
    assert naive.hierarchical["binding"] == "l1" and "gemm naive: bound by L1 cache" in naive.text()
    assert naive.hierarchical["levels"]["l1"] == stored["gemm naive"]["hierarchical"]["levels"]["shared"]
    from rooflinelib.hierarchy.levels import LEVEL_TITLES
    from rooflinelib.profiling.profile_result import SHARED_TO_L1_TITLES
    assert SHARED_TO_L1_TITLES == (LEVEL_TITLES["shared"], LEVEL_TITLES["l1"])
    # a placement that already names the L1 is left as it is
    assert recorded.load_profiles(recorded_folder.DATA_DIR / "h200_profiles_numba.json")["gemm tiled"].hierarchical[
        "binding"] == "l2"


def test_the_3_pass_shortfall_is_split_into_launches_and_kernels():
    profiles, _ = capstone.recorded_pair()
    three, fused = profiles["softmax 3-pass"], profiles["softmax fused"]
    g = capstone.gap_breakdown(three, fused)
    assert g["expected_s"] == pytest.approx(fused.seconds * 2.5)
    assert g["outside_kernels_s"] == pytest.approx(three.seconds - three.measured["kernel_seconds"])
    assert g["outside_kernels_s"] + g["inside_kernels_s"] == pytest.approx(g["shortfall_s"])
    assert g["outside_kernels_s"] < 0.25 * g["shortfall_s"]  # the launches are the smaller part
    text = capstone.comparison(capstone.recorded_softmax(profiles), 2.5)
    assert "pays three launches" not in text and "inside its kernels" in text


def test_the_shortfalls_split_says_it_comes_from_two_runs():
    # review 2, T15/K2: the kernels' times are the profiled run's, the median the timed run's
    profiles, _ = capstone.recorded_pair()
    three, fused = profiles["softmax 3-pass"], profiles["softmax fused"]
    for text in (capstone.gap_text(three, fused), capstone.comparison(capstone.recorded_softmax(profiles), 2.5),
                 str(capstone.model_gap("an honest attempt of my own with enough words in it",
                                        capstone.recorded_softmax(profiles)))):
        assert "second run" in text
        # review 9d T7-3: what differs between the two runs is said where the split is made
        assert "flushed the L2 before each kernel" in text and "the timed run did not" in text


def test_no_shipped_profile_names_a_developers_path():
    profiles, _ = capstone.recorded_pair()
    for p in profiles.values():
        assert "/root" not in p.text() and "/tmp" not in p.text() and "/work" not in p.text()


def test_the_kernel_check_passes_the_notebooks_kernels_and_waits_for_stubs(kernels):
    namespace = kernels
    assert capstone.check_kernels(namespace["three_pass_passes"], namespace["fused_passes"]).passed
    from numba import cuda

    def fused_body(x, y):
        """the exercise's stub"""
        return None

    stub = cuda.jit(fused_body)
    got = capstone.check_kernels(namespace["three_pass_passes"], lambda b: [(stub, (b["x"], b["y"]))])
    assert [c.status for c in got.checks] == ["pass", "unanswered"]


# --- review 1: one convention for the GEMMs, a level binds only near its roof, the SASS shown -----

def test_a_level_is_marked_binding_only_when_the_kernel_reaches_half_its_roof():
    profiles, _ = capstone.recorded_pair()
    for name in ("softmax 3-pass", "softmax fused"):  # 72% and 86% of the DRAM copy roof
        assert "dram" in [line for line in capstone.levels_text(profiles[name]).splitlines() if "<- binds" in line][0]
    for name in ("gemm naive", "gemm tiled"):  # 8% and 18% of their best level: the limit is elsewhere
        text = capstone.levels_text(profiles[name])
        assert "<- binds" not in text and "bound by" not in text and "traffic binds" not in text
        assert f"{name}: no level binds" in text and "the limit is elsewhere" in text


# --- review 3, K6-1: the model answer takes the comparison's branch, and claims counters only when they exist

ATTEMPT = "an honest attempt of my own with enough words in it"


def _pair(h200, seconds_3, seconds_f, counters=False):
    n = 16384 * 4096
    b3, bf = operators.softmax(n, fused=False).n_bytes, operators.softmax(n, fused=True).n_bytes
    return {"3-pass": _profile("3", seconds_3, b3, h200, _counters(b3, kernels=3) if counters else None),
            "fused": _profile("f", seconds_f, bf, h200, _counters(bf) if counters else None)}


def test_a_cpu_like_pair_where_fusion_gained_less_gets_a_model_answer_that_says_so(h200):
    # a CPU-like run: no counters, fusion 1.67x, the fused kernel at 28% of its roof, the 3-pass at 42%
    n = 16384 * 4096
    bf = operators.softmax(n, fused=True).n_bytes
    seconds_f = bf / (0.28 * h200.roofline("fp32", "dram").peak_gbps * 1e9)
    pair = _pair(h200, 1.67 * seconds_f, seconds_f)
    assert capstone.outcome(pair["3-pass"], pair["fused"], 2.5) == "less-fused-slow"
    text = str(capstone.model_gap(ATTEMPT, pair, "this run"))
    assert "gained less than its bytes" in text and "something other than its bytes" in text
    assert "fused kernel reached 28%" in text
    assert "counters' DRAM bytes" not in text and "in the simulator" in text and "no hardware counters" in text
    assert "more." not in text and "took -" not in text and "second, profiled run" not in text
    assert "something other than its bytes" in capstone.comparison(pair, 2.5)  # the two agree


def test_a_pair_exactly_as_predicted_gets_a_model_answer_where_the_prediction_holds(h200):
    n = 16384 * 4096
    bf = operators.softmax(n, fused=True).n_bytes
    seconds_f = bf / 3.2e12
    for counters in (False, True):
        pair = _pair(h200, 2.5 * seconds_f, seconds_f, counters)
        text = str(capstone.model_gap(ATTEMPT, pair, "this run"))
        assert "fusion gave 2.50x against the 2.50x" in text and "Equal bandwidth held as well" in text
        assert "did not" not in text and " more." not in text and "0 ns" not in text
        assert ("The bytes held: the counters' DRAM bytes are 0.990x" in text) == counters
        assert "the prediction holds" in capstone.comparison(pair, 2.5)


def test_the_model_answer_splits_the_extra_time_only_when_fusion_gained_more(h200):
    n = 16384 * 4096
    bf = operators.softmax(n, fused=True).n_bytes
    seconds_f = bf / 3.6e12
    plain = str(capstone.model_gap(ATTEMPT, _pair(h200, 3.2 * seconds_f, seconds_f), "this run"))
    assert "fusion gained more than its bytes" in plain and "Equal bandwidth did not:" in plain
    assert "second, profiled run" not in plain and "kernels' own times (a profile with counters)" in plain
    # the 3-pass version at the roof, the fused one under it but above half: gained less, not the fused-slow branch
    less = _pair(h200, 2.0 * seconds_f, seconds_f)
    assert capstone.outcome(less["3-pass"], less["fused"], 2.5) == "less"
    assert "other way" in str(capstone.model_gap(ATTEMPT, less, "this run"))


def test_a_prediction_below_the_measured_ratio_never_reports_a_negative_shortfall(h200):
    n = 16384 * 4096
    bf = operators.softmax(n, fused=True).n_bytes
    seconds_f = bf / 3.6e12
    pair = _pair(h200, 2.0 * seconds_f, seconds_f)  # measured 2.0x, the bytes 2.5x
    text = capstone.comparison(pair, 1.67)  # the student predicted the streaming ratio
    # review 26f, 4: judged against the byte ratio, as the model answer is
    assert "gained less than the 2.50x the bytes predict" in text and "the bytes alone predict 2.50x, not 1.67x" in text
    assert "took -" not in text and "us more" not in text


# --- review 3 (07): the same DRAM bytes, not the same bytes; no lab-log timings; the stall ratio explained

def _prose07():
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    return " ".join(" ".join(c.source for c in nb.cells if c.cell_type == "markdown").split())


def test_07_says_the_gemm_fix_kept_the_dram_bytes_not_all_bytes():
    text = _prose07()
    assert "the same FLOPs and bytes" not in text
    # review 5b, T07-1: the DRAM bytes were not measured then; now the counter table prints them
    assert "with the same FLOPs and, by Nsight Compute's count, DRAM bytes" in text  # 10d C07-5, 12d E07-1
    assert "3.9x slower, with the same FLOPs and DRAM bytes." in text  # review 27e; review 33e: in the question
    assert "reads and writes as a softmax does" not in text
    # review 6d, T07-3: the copy roof is the nearest measured mix, not the 3-pass version's own
    assert "like the softmaxes, mixes reads and writes, so its roof is theirs" not in text
    # review 18a: that caveat is the appendix's now (section 4 keeps one sentence of provenance)
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "appendix-07.md").read_text().split())
    assert "The copy roof is the nearest measured mix, not exactly each softmax's own." in page
    assert "so its 74% of the copy roof is if anything generous" in page


def test_07_keeps_lab_log_timings_and_the_sass_reconstruction_in_its_appendix():
    text = _prose07()
    for residue in ("seconds earlier", "11 minutes later", "4 x 16 for", "a thread's 16 values of `sa`"):
        assert residue not in text
    # review 4b, C7-2/C7-3: the second timing and the roofs' bookkeeping live in the appendix
    assert "comes from a second timing in the same session" not in text
    # review 5b, C07-1: the "Which Lab 1" paragraph and the 7.98-against-7.62 clause are the appendix's
    assert "**Which Lab 1.**" not in text and "7.98" not in text and "a separate run from the counter table's" not in text
    assert "within 3% of the shipped one" not in text and "2.3% above" not in text
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "appendix-07.md").read_text().split())
    assert "seconds later" in page and "(16 + 4 x 16) / 16 = 5.0" in page and "11 minutes later" in page
    assert "## Which Lab 1 each section uses" in page and "within 3% of the shipped one's" in page


def test_07_explains_why_the_mio_stall_ratio_exceeds_an_smsps_warps():
    # review 6d, C07-5: the stall-reason paragraph moved to the appendix, with its unit
    text = _prose07()
    assert "58.8 warps waiting per issuing cycle" not in text and "mio_throttle" not in text
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "appendix-07.md").read_text().split())
    assert "warp-cycles stalled on that queue per issued instruction" in page and "16 warps" in page
    assert "the counters above name it" not in text
    assert "section 6's counters point at shared-memory passes" in page  # the GEMM's levels: review 9d C7-2


# --- review 4b, E7-1: a read-and-write kernel is scored against the copy mix, as notebook 04's rule says

def _lab1_copy_of_the_profiles_run():
    from rooflinelib.store.fileio import read_json
    lab1 = read_json(Path(__file__).resolve().parents[2] / "docs" / "measurements" / "h200_run17" / "lab1.json",
                     ValueError, "a Lab 1 result")
    return next(c["value"] for c in lab1["ceilings"] if c["name"] == "dram-copy")


def test_the_recorded_softmaxes_are_scored_against_their_runs_copy_mix_first():
    assert capstone.RECORDED_PROFILES_COPY_GBPS == _lab1_copy_of_the_profiles_run()
    profiles, _ = capstone.recorded_pair()
    pair = capstone.recorded_softmax(profiles)
    copy = capstone.copy_roof_gbps(None, capstone.graded_profiles(capstone.Pair(1, 1), profiles)[1])
    assert copy == capstone.RECORDED_PROFILES_COPY_GBPS
    three, fused = pair["3-pass"], pair["fused"]
    share3, sharef = three.achieved_gbps / copy, fused.achieved_gbps / copy
    assert round(100 * share3) == 74 and round(100 * sharef) == 90
    # the profiles themselves are placed on that copy mix: their own lines give the same shares
    for p, share in ((three, share3), (fused, sharef)):
        assert p.memory == "dram-copy" and p.peak_gbps == copy and p.fraction_of_roof == pytest.approx(share)
        assert f"{share:.0%} of its roof" in p.text() and "fp32 / dram-copy of" in p.text()
        assert p.hierarchical["levels"]["dram"]["ceiling_gbps"] == copy
    text = capstone.comparison(pair, 2.5, where=capstone.RECORDED_WHERE, copy_gbps=copy)
    assert f"moved its counted bytes at {share3:.0%} of the {copy:,.0f} GB/s copy roof, the fused one at {sharef:.0%}." in text
    model = str(capstone.model_gap(ATTEMPT, pair, copy_gbps=copy))
    assert f"the fused kernel reached {sharef:.0%} of the {copy:,.0f} GB/s copy roof and the 3-pass version {share3:.0%}" in model
    # profiles placed on the fastest mix (a live run's), with a copy mix given: the copy's shares lead
    raw = {v: recorded.recorded_profiles()[name] for v, name in capstone.RECORDED_SOFTMAX.items()}
    assert raw["3-pass"].memory == "dram" and raw["3-pass"].peak_gbps > copy
    lead = (f"moved its counted bytes at {share3:.0%} of the {copy:,.0f} GB/s copy roof, the fused one at "
            f"{sharef:.0%} (a copy reads and writes, as both softmaxes do; against the {raw['3-pass'].peak_gbps:,.0f} "
            f"GB/s roof of the fastest mix, {raw['3-pass'].fraction_of_roof:.0%} and "
            f"{raw['fused'].fraction_of_roof:.0%})")
    assert lead in capstone.comparison(raw, 2.5, where=capstone.RECORDED_WHERE, copy_gbps=copy)
    # without a copy mix the shares stay those of the roof the profiles were placed on
    assert (f"at {raw['3-pass'].fraction_of_roof:.0%} of the {raw['3-pass'].peak_gbps:,.0f} GB/s memory roof"
            in capstone.comparison(raw, 2.5))


def test_a_live_lab1s_copy_mix_is_the_live_pairs_roof():
    from rooflinelib.store.results import dram_mixes, recorded as recorded_result
    from rooflinelib.modes import Loaded
    lab1 = Loaded("recorded", "the shipped Lab 1", result=recorded_result("ceilings"))
    assert capstone.copy_roof_gbps(lab1, "this run") == dram_mixes(recorded_result("ceilings"))["copy"]
    assert capstone.copy_roof_gbps(lab1, "this run") != capstone.RECORDED_PROFILES_COPY_GBPS
    datasheet = Loaded("datasheet", "no measurement")  # no measured mix: the memory roof's shares
    assert capstone.copy_roof_gbps(datasheet, "this run") is None


def test_07_and_the_capstone_key_lead_with_the_copy_mix_shares():
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    printed = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "at 74% of the 4,256 GB/s copy roof, the fused one at 90%" in printed
    text = _prose07()
    assert "at 74% of the DRAM roof of a copy" in text
    assert "at 90% of the copy roof and the three passes at 74%" in text
    assert "moved its bytes at 81% of the memory roof" not in text
    key = nbformat.read(str(NOTEBOOK.parents[1] / "solutions" / "06_place_your_kernel_capstone.ipynb"), as_version=4)
    code = "\n".join(c.source for c in key.cells if c.cell_type == "code")
    assert "where=graded_where, copy_gbps=copy_gbps, explain=False)" in code and "graded_where, copy_gbps=copy_gbps)" in code


def test_07s_section_6_is_split_into_simulator_hardware_and_caps():
    # review 4b, C7-1: four definitions, three tables and two cap models were two markdown cells
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    heads = [line for c in nb.cells if c.cell_type == "markdown" for line in c.source.splitlines()
             if line.startswith("### ")]
    for head in ("### The slip, counted in the simulator", "### The same kernels on the H200",
                 "### The tiled pair: shared-memory passes cap the rate", "### The naive pair: instruction issue and stalls"):
        assert head in heads
    paragraphs = [p for c in nb.cells if c.cell_type == "markdown" for p in c.source.split("\n\n")]
    assert not [p for p in paragraphs if "warp-cycles stalled" in p]  # review 6d, C07-5: the appendix's


# --- review 5: the kernel check refuses the unsafe softmax; the model answer in three points -----

def _unsafe(kernels_source: str) -> dict:
    """The notebook's kernels with the max subtraction dropped: exp(x) / sum(exp(x))."""
    unsafe = kernels_source.replace("math.exp(x[r, c] - m)", "math.exp(x[r, c])").replace(
        "math.exp(row[c] - m)", "math.exp(row[c])")
    assert unsafe.count("math.exp(") == 2 and "- m)" not in unsafe
    namespace = {}
    exec(compile(unsafe, "unsafe softmax", "exec"), namespace)
    return namespace


def test_the_kernel_check_fails_a_softmax_without_the_max_subtraction(kernels, monkeypatch):
    # review 5b K6-1: on the course's small values (up to 16) exp(x) / sum(exp(x)) matched the
    # float64 reference and passed; a row of x + 100 overflows float32's exp without the shift
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    source = next(c.source for c in nb.cells if c.cell_type == "code" and "def softmax_3pass" in c.source)
    unsafe = _unsafe(source)
    got = capstone.check_kernels(unsafe["three_pass_passes"], unsafe["fused_passes"])
    assert [c.status for c in got.checks] == ["fail", "fail"]
    assert "one large value" in str(got) and "float32's range" in str(got)
    # review 18b, 2: the 3-pass hint names the cause too, as the fused one does
    assert "sums[r] is not the sum" in got.checks[0].message
    assert "overflows float32's range unless maxima[r] is subtracted first" in got.checks[0].message
    # mixing: the safe 3-pass with the unsafe fused kernel fails only the fused one
    mixed = capstone.check_kernels(kernels["three_pass_passes"], unsafe["fused_passes"])
    assert [c.status for c in mixed.checks] == ["pass", "fail"]
    # without the large element the unsafe fused kernel passes: the element is what catches it (the
    # unsafe 3-pass still fails there, on its sums of exp(x) rather than exp(x - max): review 7d)
    monkeypatch.setattr(capstone, "LARGE_SHIFT", 0.0)
    monkeypatch.setattr(capstone, "NEGATIVE_SHIFT", 0.0)  # review 26f: the all-negative row underflows it too
    without = capstone.check_kernels(unsafe["three_pass_passes"], unsafe["fused_passes"])
    assert [c.status for c in without.checks] == ["fail", "pass"] and "sums[r]" in str(without)
    assert "overflows" not in str(without)  # no large value, no overflow to name


def test_the_capstone_model_answer_is_three_points_not_the_comparison_again():
    # review 5b CK-1: one paragraph that repeated the comparison line word for word
    profiles, _ = capstone.recorded_pair()
    pair = capstone.recorded_softmax(profiles)
    copy = capstone.RECORDED_PROFILES_COPY_GBPS
    model = capstone.model_gap(ATTEMPT, pair, capstone.RECORDED_WHERE, copy_gbps=copy)
    lines = model.model_answer.split("\n")
    assert len(lines) == 4 and all(line.startswith("- ") for line in lines[1:])
    assert lines[1].startswith("- The bytes held") and lines[2].startswith("- Equal bandwidth did not")
    assert lines[3].startswith("- Where the extra 72.9 us went")
    assert capstone.gap_text(pair["3-pass"], pair["fused"]) not in model.model_answer
    assert "At the fused kernel's rate the 3-pass version would take" not in model.model_answer
    assert model._repr_html_().count("<li>") == 3 + len(model.key_points)


# --- review 5b (07): the GEMMs' DRAM bytes measured, the recorded pair named, one Lab 1 ------------

def test_07s_gemm_counter_table_prints_the_dram_bytes_the_prose_calls_the_same():
    # T07-1: "the same DRAM bytes" was stated with no DRAM bytes recorded in the table
    from rooflinelib.profiling import gemm_targets
    rows = gemm_targets.recorded_rows(gemm_targets.recorded_counters())
    dram = [r["dram_bytes"] for r in rows.values()]
    assert all(d for d in dram) and max(dram) / min(dram) < 1.02
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    printed = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "DRAM MB" in printed
    for d in dram:
        assert f"{d / 1e6:7.1f}" in printed
    text = _prose07()
    assert f"{min(dram) / 1e6:.1f} to {max(dram) / 1e6:.1f} MB" in text


def test_07_says_where_the_recorded_pair_is_first_used_that_it_is_the_courses_kernels():
    # T07-2, C07-3: section 4's figures belong to softmax_targets (row in registers), not section 1's kernel
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    cells = [c for c in nb.cells]
    first_use = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "capstone.recorded_pair()" in c.source)
    # review 26e: said before section 4's first output (the profile cell), ahead of the first use
    profile = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "capstone.profile_pair(" in c.source)
    before = cells[profile - 1]
    assert profile < first_use and not any(c.source.startswith("## ") for c in cells[profile:first_use])
    assert before.cell_type == "markdown" and "the course's pair stands in" in before.source
    # review 37e: what the pair is (fused row in registers, not yours) is said once, in cell 0;
    # review 39e: once, in section 4, where the recorded pair's numbers are read
    section_4 = " ".join(" ".join(c.source for c in cells[profile:]
                                  if c.cell_type == "markdown").split("## 5.")[0].split())
    # review 42e: it also says the course's loops run a fixed count, yours stride by the block size
    # review 46e: the fixed count glossed (it lets the compiler keep the row in registers)
    assert "keep their fused kernel's row in registers (yours, shared memory)" in section_4  # review 44e: named
    assert "not your kernels" not in cells[0].source


def test_07s_gemm_shares_use_the_recorded_runs_own_lab_1():
    from rooflinelib.store.results import recorded_h200
    # T07-3: the counter table and caps used the shipped Lab 1 while sections 4-5 used their run's
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "recorded_h200()" not in code
    assert "gemm_targets.recorded_roofs(recorded)" in code
    from rooflinelib.profiling import gemm_targets
    lab1 = recorded_h200()
    assert gemm_targets.recorded_roofs({})[:2] == (lab1.ceiling("fp32").value, lab1.ceiling("shared").value)
    profiles, _ = capstone.recorded_pair()
    own = profiles["gemm tiled"]
    shared = own.hierarchical["levels"]["l1"]["ceiling_gbps"]
    printed = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert f"fp32 {own.peak_gflops:,.0f} GFLOP/s, shared memory {shared:,.0f} GB/s" in printed
    text = _prose07()
    # review 46e round: "printed above" cut for words; the figure is still the run's own, printed in cell 33
    assert f"shared-memory roof ({shared:,.0f} GB/s)" in " ".join(text.split()) and "32.9 TB/s on the shipped run" not in text



# --- review 6d: each hint fits the failure it is shown for; "read x once" enforced; 07's L2 row,
# the naive caps and the recorded pair's roofs said plainly ------------------------------------

def _kernel_source() -> str:
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code" and "def softmax_3pass" in c.source)


def _variant(old: str, new: str) -> dict:
    import linecache
    source = _kernel_source()
    assert source.count(old) == 1, old
    source = source.replace(old, new)
    name = f"<a wrong kernel {abs(hash(source))}>"  # its source readable, as a notebook cell's is
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace = {}
    exec(compile(source, name, "exec"), namespace)
    return namespace


def test_a_fused_kernel_without_the_reductions_is_sent_to_the_reductions_not_to_overflow(kernels):
    # K-1: each thread normalised by its own partial max and sum got "does every exp stay inside
    # float32's range?", though no exp overflows
    wrong = _variant("    m = block_reduce(m, part, True)\n    s = float32(0)\n", "    s = float32(0)\n")
    got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"]
    assert "check the reductions" in str(got) and "float32's range" not in str(got)


def test_the_overflow_hint_is_given_only_when_the_ordinary_rows_are_right(kernels):
    unsafe = _unsafe(_kernel_source())
    got = str(capstone.check_kernels(kernels["three_pass_passes"], unsafe["fused_passes"]))
    assert "the ordinary rows are right" in got and "float32's range" in got and "reductions" not in got


def test_a_kernel_striding_by_threads_is_told_the_simulator_runs_fewer(kernels):
    # K-4: correct at 256 threads a block, it left outputs unwritten at the simulator's 32 with no reason given
    source = _kernel_source()
    wrong = {}
    exec(compile(source.replace("range(t, x.shape[1], cuda.blockDim.x)", "range(t, x.shape[1], THREADS)"),
                 "strides by THREADS", "exec"), wrong)
    got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
    assert got.checks[1].status == "fail"
    assert "never written" in str(got) and f"runs {capstone.SIM_THREADS} threads a block" in str(got)
    assert "cuda.blockDim.x" in str(got)


def test_a_fused_kernel_that_reads_x_again_from_global_memory_is_refused(kernels):
    # K-2: the exercise says "read x once, keep the row in shared memory"; a kernel re-reading x[r, c]
    # passed every check, as distinct bytes per launch count a re-read once
    wrong = _variant("        row[c] = math.exp(row[c] - m)\n", "        row[c] = math.exp(x[r, c] - m)\n")
    got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"]
    # review 51: two loads of x per element, not "reads x 2 times from global memory": the second load is
    # likely a cache hit, and DRAM traffic follows only if the row left the cache (a hypothesis)
    assert "issues 2 loads of x per element" in str(got) and "shared memory" in str(got)
    assert "times from global memory" not in str(got)
    assert "costs DRAM traffic only if the row no longer sits in the L1 or L2 cache (a hypothesis" in str(got)
    # the notebook's fused kernel reads x exactly once
    b = capstone.softmax_buffers()
    assert capstone.count_passes(kernels["fused_passes"](b), capstone.SIM_ROWS, capstone.SIM_THREADS)["read"] == b["x"].nbytes


def test_the_speedup_hints_speak_of_bytes_not_units_or_fmas():
    # K-3: 5.0 and 1.25 got "one fused multiply-add is 2 FLOPs", 2.56 "binary (KiB) and decimal (KB)"
    for wrong, hint in ((5.0, "write of y"), (1.25, "read x three times"), (2.56, "too high"), (2.44, "too low")):
        message = capstone.check_prediction(wrong, 8, 256).message
        assert hint in message, (wrong, message)
        assert "multiply-add" not in message and "KiB" not in message and "GiB" not in message
    assert capstone.check_prediction(2.5, 8, 256).passed


def test_the_counting_convention_says_when_a_re_read_is_free():
    # K-2 / C-EX-2: "a re-read is taken as served by the caches" contradicted "keep the row on chip"
    rule = "A re-read within one launch is counted once, as if cached, which holds only while the re-read data fits on"
    # review 35f: the capstone gives the rule as its own sentences, the caveat after (test_capstone_review36)
    capstone_rule = "A re-read within one launch is counted once, as if cached: that holds only while the re-read"
    key = nbformat.read(str(NOTEBOOK.parents[1] / "solutions" / "06_place_your_kernel_capstone.ipynb"), as_version=4)
    student = nbformat.read(str(NOTEBOOK.parents[1] / "exercises" / "06_place_your_kernel_capstone.ipynb"), as_version=4)
    for nb, said in ((key, capstone_rule), (student, capstone_rule)):
        prose = " ".join(" ".join(c.source for c in nb.cells if c.cell_type == "markdown").split())
        assert said in prose and "taken as served by the caches" not in prose
    # review 44e: notebook 07 keeps the per-launch rule and links the within-launch caveat to its appendix
    lesson = " ".join(" ".join(c.source for c in nbformat.read(str(NOTEBOOK), as_version=4).cells
                               if c.cell_type == "markdown").split())
    appendix = " ".join((NOTEBOOK.parents[1] / "docs" / "appendix-07.md").read_text().split())
    assert "appendix-07.md#what-section-2s-rule-assumes" in lesson and "taken as served by the caches" not in lesson
    assert rule in appendix and "## What section 2's rule assumes" in (NOTEBOOK.parents[1] / "docs" / "appendix-07.md").read_text()
    counted = {(1, 4): {"read": 48, "written": 16, "unique_read": 16, "unique_written": 16}}
    hint = capstone.check_byte_formula(lambda rows, cols: 64 * rows * cols / 4, counted, "q").message
    assert "counted once, as if cached" in hint


def test_the_exercise_says_the_recorded_fused_kernel_keeps_its_row_in_registers():
    # C-EX-1
    for folder in ("solutions", "exercises"):
        nb = nbformat.read(str(NOTEBOOK.parents[1] / folder / "06_place_your_kernel_capstone.ipynb"), as_version=4)
        part4 = next(c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## Part 4"))
        assert "registers" in part4 and "softmax_targets" in part4


def _printed07():
    nb = nbformat.read(str(NOTEBOOK), as_version=4)
    return "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


def test_07s_l2_row_says_its_bytes_include_the_partitions_traffic():
    # T07-1: lts__t_bytes counts the fabric between the two L2 partitions, Lab 1's L2 roof does not
    assert "traffic between the H200's two L2" in capstone.L2_NOTE and "upper bound" in capstone.L2_NOTE
    # review 17c: notebook 07 prints only the DRAM row; the l2 row and its note are in its appendix
    page = (NOTEBOOK.parents[1] / "docs" / "appendix-07.md").read_text()
    assert capstone.L2_NOTE in page and "## The softmaxes level by level" in page
    profiles, _ = capstone.recorded_pair()
    tiled = capstone.levels_text(profiles["gemm tiled"])
    assert "the longest, l2" in tiled and "(an upper bound: see the l2 note)" in tiled
    assert "upper bound" not in capstone.levels_text(profiles["gemm naive"])  # its longest level is the L1
    # review 9d C7-2: the printed notes carry the reason; the prose points at them, once
    # review 11d C07-3: the notes carry the reasons, one line each; the prose only points at them
    # review 17c: the l1/l2 rows and their notes moved to the appendix; the prose links them
    assert "[the L2 and L1 rows](../docs/appendix-07.md#the-softmaxes-level-by-level)" in _prose07() and "upper bound" not in _prose07().split("## 6.")[0].split("## 5.")[1]


def test_07_does_not_claim_the_caps_rank_the_naive_kernels():
    # T07-2: both naive kernels have the same 2.9% issue cap and ran at 1.4% and 1.9%
    from rooflinelib.profiling import gemm_targets
    rows = list(gemm_targets.recorded_rows(gemm_targets.recorded_counters()).values())
    naive = [r for r in rows if r["shared_passes_per_ffma"] == 0]
    assert len({round(gemm_targets.issue_cap(r["instructions_per_ffma"]), 3) for r in naive}) == 1
    text = _prose07()
    assert "they agree with the order the kernels ran in" not in text
    assert "the cap bounds them but cannot rank them" in text
    # the stall readings the appendix quotes are the recorded ones
    page = (Path(__file__).resolve().parents[2] / "docs" / "appendix-07.md").read_text()
    stalls = gemm_targets.recorded_counters()["ncu"]["stalls"]
    for kernel in ("gemm_naive_rows_kernel", "gemm_naive_kernel"):
        value = stalls[kernel]["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"]
        assert f"| {value:.2f} |" in page
    assert "## The naive pair: what the caps leave open" in page


def test_07_names_the_recorded_gemms_and_the_recorded_pairs_roof():
    printed = _printed07()
    # C07-3: the level table names the variant as the counter table does (review 9d C7-2: in the appendix)
    page = (Path(__file__).resolve().parents[2] / "docs" / "appendix-07.md").read_text()
    assert "gemm tiled, warp along a row: " in page and capstone.levels_text(capstone.recorded_pair()[0]["gemm tiled"]) in page
    # C07-2: the placement's bookkeeping note is not in the lesson's output
    assert "the above-roof check keeps" not in printed
    # C07-1: why the recorded pair's ridge is 15.5, not section 3's 14 (round 16, review 15d: the
    # notebook names the pair's one roof where it is first used; the two ridges are the appendix's)
    assert "ridge: 14 FLOP/byte" in printed
    cells = nbformat.read(str(NOTEBOOK), as_version=4).cells
    first_use = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "capstone.recorded_pair()" in c.source)
    # review 18a: the figure's roofs named where first used; review 19b T2: the ridges differ by the
    # mix (copy against section 3's write), not by the session
    # review 26e: said plainly, without an undefined "mix" or "session"
    # review 32e: one sentence that the recorded profiles sit on their own run's Lab 1, on its copy roof
    # review 33e: one sentence on the copy roof; the run's own Lab 1 is the appendix's
    # review 35e: "scored on the copy roof, 4,256 GB/s, of the run that recorded them", in one sentence
    # review 39e: that sentence names the copy roof as Lab 1's read+write mix; the ridges are the appendix's
    # review 44e: the nearest measured mix; which run's Lab 1 is section 3's sentence
    assert ("A kernel that reads and writes is scored on the nearest measured mix, the copy (read+write 1:1), "
            "4,256 GB/s." in " ".join(cells[first_use - 1].source.split()))
    assert "(fp32 65,979 GFLOP/s, shared memory 32,814 GB/s)" in page
    page = " ".join(page.split())
    assert "the recorded pair's ridge is 15.5 FLOP/byte" in page and "not the ridge of 14 that section 3 predicts" in page
    # T07-4 / review 12d E07-1: the opening names the binding cause, the shared-memory passes
    # (round 17, review 16d: the numbers live in section 6 alone, counted per warp-wide FFMA there)
    opening = " ".join(cells[0].source.split())
    assert "shared-memory reads collid" in opening and "section 6" in opening
    assert "So 5 passes per FFMA cap the tiled kernel down a column at 0.98 / 5 / 3.94 = 5.0% of the fp32 roof" in _prose07()


def test_the_comparison_prints_bytes_bandwidth_and_time_as_bullets():
    # C07-4: one six-line paragraph held the whole argument
    printed = _printed07()
    for head in ("\n- bytes: ", "\n- bandwidth: "):
        assert head in printed
    # review 17c: the split rests on a second (ncu) run: it is printed in notebook 07's appendix
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    assert "\n- where the time went: " not in printed
    assert capstone.gap_text(pair["3-pass"], pair["fused"]) in (NOTEBOOK.parents[1] / "docs" / "appendix-07.md").read_text()
    # the markdown under it no longer repeats the split's figures, and the CPU aside is its own paragraph
    cell = next(c.source for c in nbformat.read(str(NOTEBOOK), as_version=4).cells
                if c.cell_type == "markdown" and c.source.startswith("The prediction is two claims"))
    # review 37e: the 73 µs lost is derived on the page (352 µs at the fused rate, 425 µs taken),
    # from the event-timed run alone; the ncu run's kernel sum (413 µs) stays in the appendix
    assert "413 µs" not in cell
    # review 19b: the CPU aside sat inside the H200 result; it is a note in section 4 and the appendix's
    assert "On a CPU" not in cell
    section4 = " ".join(_prose07().split("## 4. Measure")[1].split("## 5.")[0].split())
    assert "there fusion can gain less than its bytes predict ([why](../docs/appendix-07.md#on-a-cpu))" in section4


# --- review 7d: a pass 1 that does not compute the maximum fails; the race named; formulas by position

_THREAD0_MAX = ("""    m = float32(-math.inf)
    for c in range(t, x.shape[1], cuda.blockDim.x):
        m = max(m, x[r, c])
    m = block_reduce(m, part, True)
    if t == 0:
        maxima[r] = m""", """    if t == 0:
        maxima[r] = x[r, 0]""")
_NO_REDUCE = ("""        m = max(m, x[r, c])
    m = block_reduce(m, part, True)
    if t == 0:""", """        m = max(m, x[r, c])
    if t == 0:""")
_FUSED_THREAD0 = ("""        m = max(m, row[c])
    m = block_reduce(m, part, True)
    s = float32(0)""", """        m = max(m, row[c])
    if t == 0:
        part[0] = m
    cuda.syncthreads()
    m = part[0]
    cuda.syncthreads()
    s = float32(0)""")


def test_a_3_pass_whose_max_is_not_the_rows_maximum_fails(kernels):
    # K1: the large row was x + 100 everywhere, so shifting by ANY element of it kept exp in range
    # and maxima[r] = x[r, 0] (or thread 0's own strided max) passed
    for old, new in (_THREAD0_MAX, _NO_REDUCE):
        wrong = _variant(old, new)
        got = capstone.check_kernels(wrong["three_pass_passes"], kernels["fused_passes"])
        assert [c.status for c in got.checks] == ["fail", "pass"], got
    right = capstone.check_kernels(kernels["three_pass_passes"], kernels["fused_passes"])
    assert right.passed, right


def test_a_fused_kernel_shifted_by_one_threads_max_fails(kernels):
    wrong = _variant(*_FUSED_THREAD0)
    got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"], got


def test_the_3_pass_maxima_and_sums_are_checked_even_when_y_is_right(kernels, monkeypatch):
    # without the large element y stays right for any shift: the maxima check still names pass 1
    monkeypatch.setattr(capstone, "LARGE_SHIFT", 0.0)
    wrong = _variant(*_THREAD0_MAX)
    got = capstone.check_kernels(wrong["three_pass_passes"], kernels["fused_passes"])
    assert [c.status for c in got.checks] == ["fail", "pass"]
    assert "maxima[r] is not the largest x[r, c]" in str(got)


def test_the_large_row_hint_names_a_missing_syncthreads_too():
    # K3: a fused kernel missing cuda.syncthreads() was told only to keep exp in float32's range
    import numpy as np
    x = capstone.softmax_input(4, 64)
    x[capstone.LARGE_ROW, capstone.LARGE_COL] += np.float32(capstone.LARGE_SHIFT)
    y = capstone.reference_softmax(x).astype(np.float32)
    y[capstone.LARGE_ROW] = np.nan
    hint = capstone._wrong_output(y, x, 1.0)
    # review 41f, E3: the race detector runs before this hint and reports a missing barrier itself, so the
    # hint no longer guesses one (test_capstone_review42)
    assert "float32's range" in hint and "cuda.syncthreads()" not in hint


def test_the_byte_formula_is_called_by_position():
    # K4: def three_pass_bytes(r, c) got CHECK YOUR INPUT with a bare TypeError
    n = {"read": 0, "written": 0}
    counted = {(8, 256): dict(n, unique_read=8 * 256 * 12, unique_written=8 * 256 * 8),
               (4, 1024): dict(n, unique_read=4 * 1024 * 12, unique_written=4 * 1024 * 8)}

    def renamed(r, c):
        return 4 * r * c * 5

    assert capstone.check_byte_formula(renamed, counted, "3-pass bytes").status == "pass"
    from rooflinelib.exercises.grading import NOT_ANSWERED
    assert capstone.check_byte_formula(NOT_ANSWERED, counted, "3-pass bytes").status == "unanswered"


def test_the_key_describes_one_large_element_not_a_shifted_row():
    key = nbformat.read(str(NOTEBOOK.parents[1] / "solutions" / "06_place_your_kernel_capstone.ipynb"), as_version=4)
    text = "\n".join(c.source for c in key.cells if c.cell_type == "markdown")
    assert "plus 100" not in text and "one element of one row raised by 200" in text.lower()


def test_the_time_between_the_kernels_is_said_to_be_within_the_runs_noise():
    # review 7d T07-3: "leaves 12.3 us" is the difference of two runs, the size of their spread
    profiles, _ = capstone.recorded_pair()
    pair = capstone.recorded_softmax(profiles)
    text = capstone.gap_text(pair["3-pass"], pair["fused"])
    assert "outside its kernels (launches, gaps)  about 12 us, within the two runs' noise" in text
    assert "12.3 us" not in text
    model = capstone.model_gap(ATTEMPT, pair, capstone.RECORDED_WHERE, copy_gbps=capstone.RECORDED_PROFILES_COPY_GBPS)
    assert "within the two runs' noise" in model.model_answer and "12.3 us" not in model.model_answer


def test_07_says_a_cpu_exp_is_software_and_why_the_gemms_keep_the_write_mix():
    text = _prose07()
    # T07-1: a CPU has no exp unit
    # review 19b: the CPU paragraph is the appendix's ("On a CPU"), linked from section 4
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "appendix-07.md").read_text().split())
    assert "on a slow unit" not in text and "Each `exp` is a software sequence of a dozen or more vector" in page
    # T07-2: two DRAM roofs in one table, now with the reason
    assert "Far under any DRAM roof, it stays on the run's fastest DRAM mix (the write)" in page


def test_a_shared_array_sized_at_run_time_is_refused_by_the_compiler(kernels):
    # K2: cuda.shared.array(x.shape[1], float32) ran in the simulator and passed, but Numba's CUDA
    # target rejects it at type inference (no GPU needed to see it)
    from numba import cuda, float32
    try:  # the check needs NVVM, not a GPU; without it the simulator's verdict stands (nothing to test)
        cuda.compile_ptx(lambda a: None, (float32[:],), cc=(9, 0))
    except Exception as exc:
        pytest.skip(f"no CUDA compiler here: {type(exc).__name__}")
    wrong = _variant("row = cuda.shared.array(MAX_COLS, float32)", "row = cuda.shared.array(x.shape[1], float32)")
    got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"], got
    assert "Numba's CUDA compiler refuses it" in str(got) and "MAX_COLS" in str(got)


def test_07_defines_ffma_where_it_first_appears():
    # review 7d C07-4: "FFMA" and "warp-wide FFMA" were used without a definition
    text = _prose07()
    # review 33e: ncu's FLOP paragraph (which defined FFMA first) moved to the appendix
    # review 34e: defined in section 6's term list, before the first printed FFMA
    assert text.index("- **FFMA.** One fused multiply-add in each lane of a warp") == text.index("FFMA") - len("- **")


# --- fix round 9 (review 7d, items left open): 07's opening in plain words, a bridge into section 6,
# one GEMM in the level tables; the capstone asks before it shows, and prints what its answer cites

def _cells07():
    return nbformat.read(str(NOTEBOOK), as_version=4).cells


def test_07s_opening_uses_no_term_that_section_6_defines_and_links_there():
    # C07-1: "16 sectors per request", "passes" and "warp layout" stood 20 cells before their definitions
    import re
    cells = _cells07()
    opening = cells[0].source
    assert not re.search(r"\bsectors?\b|\bwarps?\b|\bbanks?\b|the passes \(", opening), opening
    assert "its loads fetched 4x the bytes they used" not in opening  # review 12d E07-1: not the binding cause
    # review 19b: Jupyter's in-page anchor did not resolve on GitHub; the opening names the section
    assert not re.findall(r"\]\(#([^)]+)\)", opening) and "to at most 5% of the fp32 roof (section 6)." in " ".join(opening.split())
    six = next(c.source for c in cells if c.cell_type == "markdown" and c.source.startswith("## 6."))
    assert six.startswith("## 6. ")  # the section the opening names


def test_07_bridges_from_the_softmaxes_into_section_6():
    # C07-3: section 6 began a second lesson with no word of why
    six = next(c.source for c in _cells07() if c.cell_type == "markdown" and c.source.startswith("## 6."))
    body = six.split("\n\n", 1)[1]
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    three, fused = (f"{pair[v].achieved_gbps / capstone.RECORDED_PROFILES_COPY_GBPS:.0%}" for v in ("3-pass", "fused"))
    # review 34e: the bridge sentence was cut to pay for the Lab 1 sentence; section 6 opens on the GEMM,
    # and the softmaxes' two shares stand in the sections before it
    assert body.lstrip().startswith("A matrix multiply (GEMM, `C = A B`) does 2n³ FLOPs")
    assert f"at {fused} of the copy roof and the three passes at {three}" in " ".join(" ".join(c.source for c in nbformat.read(str(NOTEBOOK), as_version=4).cells).split("## 6.")[0].split())


def test_07s_level_tables_are_the_softmax_pair_in_section_5():
    # C07-5: four level tables; review 9d C7-2: the GEMM's caveats distracted from the softmaxes' point,
    # so 07 places the softmax pair only, in section 5, and the tiled GEMM's table is the appendix's
    assert capstone.LEVEL_TABLE_NAMES == ("softmax 3-pass", "softmax fused")
    printed = _printed07()
    assert "gemm tiled, warp along a row: " not in printed and "gemm naive, warp along a row: " not in printed
    assert "softmax 3-pass: " in printed and "softmax fused: " in printed
    cells = _cells07()
    at = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "LEVEL_TABLE_NAMES" in c.source)
    five, six = (next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith(h))
                 for h in ("## 5.", "## 6."))
    assert five < at < six
    text = _prose07()
    assert "The GEMM is the counter table's tiled kernel along a row" not in text
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "appendix-07.md").read_text().split())
    assert "The GEMM is the counter table's tiled kernel along a row" in page and "no level binds" in page
    # the aside on ncu's own roofline chart is the appendix's now
    assert "ncu --set roofline" not in text and "ncu --set roofline" in page


def test_the_comparison_can_leave_the_gaps_reading_to_the_student(h200):
    # E-1: the exercise printed "where the time went" above the question that asks where it went
    n = 16384 * 4096
    bf = operators.softmax(n, fused=True).n_bytes
    seconds_f = bf / 3.6e12
    for seconds_3, reading in ((3.2 * seconds_f, "- where the time went: "), (2.5 * seconds_f, "- so both ran"),
                               (2.0 * seconds_f, "- why: ")):
        pair = _pair(h200, seconds_3, seconds_f, counters=True)
        full = capstone.comparison(pair, 2.5)
        short = capstone.comparison(pair, 2.5, explain=False)
        assert reading in full and reading not in short
        assert full.startswith(short) and short.count("\n- ") == 2


def _key_cells():
    return nbformat.read(str(NOTEBOOK.parents[1] / "solutions" / "06_place_your_kernel_capstone.ipynb"),
                         as_version=4).cells


def _printed_before_part5(cells):
    part5 = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## Part 5"))
    return "\n".join(o.get("text", "") for c in cells[:part5] if c.cell_type == "code" for o in c.get("outputs", []))


def test_the_capstone_asks_where_the_time_went_before_it_shows_it():
    # E-1: the stored key printed the split ("the kernels themselves lost 60.6 us") above Part 5
    printed = _printed_before_part5(_key_cells())
    assert "fusion gained more than predicted" in printed  # the comparison is there, its reading is not
    assert "where the time went" not in printed and "inside its kernels" not in printed
    for folder in ("solutions", "exercises"):
        nb = nbformat.read(str(NOTEBOOK.parents[1] / folder / "06_place_your_kernel_capstone.ipynb"), as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert "copy_gbps=copy_gbps, explain=False))" in code


def test_the_capstone_prints_the_counters_its_model_answer_cites():
    # E-2: the model answer cited "0.973x" and "0.957x" (and ncu's 413 us), which only notebook 07 printed
    profiles, _ = capstone.recorded_pair()
    pair = capstone.recorded_softmax(profiles)
    model = capstone.model_gap(ATTEMPT, pair, capstone.RECORDED_WHERE,
                               copy_gbps=capstone.RECORDED_PROFILES_COPY_GBPS).model_answer
    cited = [f"{p.measured['dram_over_analytic']:.3f}x" for p in (pair["3-pass"], pair["fused"])]
    cited.append(capstone._us(pair["3-pass"].measured["kernel_seconds"]))
    printed = _printed_before_part5(_key_cells())
    for figure in cited:
        assert figure in model and figure in printed, figure
    # the graded pair, keyed by variant, prints as the recorded set does; a live pair says it has no counters
    assert capstone.counters_text(pair) == capstone.counters_text(profiles)
    plain = {v: dataclasses.replace(p, measured=None) for v, p in pair.items()}
    assert capstone.counters_text(plain) == "3-pass: profiled without ncu counters\nfused: profiled without ncu counters"


def test_the_capstone_says_its_parts_1_to_3_repeat_notebook_07():
    # E-3: 07's worked cells hold Parts 1 to 3 word for word; the exercise now says so
    for folder in ("solutions", "exercises"):
        nb = nbformat.read(str(NOTEBOOK.parents[1] / folder / "06_place_your_kernel_capstone.ipynb"), as_version=4)
        first = " ".join(nb.cells[0].source.split())
        assert "Parts 1 to 3 repeat notebook 07's sections 1 to 3" in first and "rebuild them from memory" in first
        assert "you explain the gap before the model answer shows it" in first


# --- review 9d: the capstone key's byte check waits for the kernels, the fused rules count x's reads
# and y's writes, the 1.25 hint's arithmetic; 07's split names the L2 flush, its row bytes, its exp --

def test_a_right_byte_formula_waits_for_the_kernels_instead_of_being_called_too_high():
    # K-1: stub kernels count 0 bytes, and 4*rows*cols*(3+2) got "[TRY AGAIN] ... too high"
    zero = {"read": 0, "written": 0, "unique_read": 0, "unique_written": 0}
    stubs = {size: dict(zero) for size in capstone.SIM_SIZES}
    got = capstone.check_byte_formula(lambda rows, cols: 4 * rows * cols * 5, stubs, "3-pass bytes")
    assert got.status == "unanswered" and "finish your kernels first" in got.message
    # counts from kernels that have not passed their check are no key either
    n = {"read": 1, "written": 1}
    counted = {(8, 256): dict(n, unique_read=8 * 256 * 12, unique_written=8 * 256 * 8),
               (4, 1024): dict(n, unique_read=4 * 1024 * 12, unique_written=4 * 1024 * 8)}
    wrong = capstone.check_byte_formula(lambda rows, cols: 4 * rows * cols * 2, counted, "q", kernels_ok=False)
    assert wrong.status == "unanswered" and "passed their check" in wrong.message
    assert capstone.check_byte_formula(lambda rows, cols: 4 * rows * cols * 5, counted, "q", kernels_ok=True).passed
    for folder in ("solutions", "exercises"):
        nb = nbformat.read(str(NOTEBOOK.parents[1] / folder / "06_place_your_kernel_capstone.ipynb"), as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code" and "check_byte_formula" in c.source)
        # review 51f, 9: each formula waits for its own version's check, not for both
        assert code.count('kernels_ok=passed["3-pass"]') == 1 and code.count('kernels_ok=passed["fused"]') == 1, folder


_Y_AS_SCRATCH = {
    "        row[c] = x[r, c]\n        m = max(m, row[c])\n": "        y[r, c] = x[r, c]\n        m = max(m, y[r, c])\n",
    "        row[c] = math.exp(row[c] - m)\n        s += row[c]\n": "        y[r, c] = math.exp(y[r, c] - m)\n        s += y[r, c]\n",
    "        y[r, c] = row[c] * inv\n": "        y[r, c] = y[r, c] * inv\n",
}


def test_the_read_once_rule_counts_reads_of_x_alone(kernels):
    # K-2: a fused kernel reading x once but using y as its scratch row was told it read x 5 times
    source = _kernel_source()
    for old, new in _Y_AS_SCRATCH.items():
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    scratch = {}
    exec(compile(source, "y as scratch", "exec"), scratch)
    got = capstone.check_kernels(kernels["three_pass_passes"], scratch["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"]
    assert "loads of x" not in str(got) and "reads x" not in str(got) and "writes 3x the bytes of y" in str(got)
    # count_bytes tells the arrays apart: the notebook's fused kernel reads x once and writes y once
    b = capstone.softmax_buffers()
    per = capstone.count_passes(kernels["fused_passes"](b), capstone.SIM_ROWS, capstone.SIM_THREADS)["per_launch"][0]
    assert per["by_argument"] == {"args[0]": {"read": b["x"].nbytes, "written": 0},
                                  "args[1]": {"read": 0, "written": b["y"].nbytes}}


def test_the_write_once_rule_is_checked(kernels):
    # K-3: a fused kernel storing its exps in y, then overwriting them, passed "write y once"
    wrong = _variant("        s += row[c]\n", "        s += row[c]\n        y[r, c] = row[c]\n")
    got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"]
    assert "writes 2x the bytes of y" in str(got) and "write each element of y once" in str(got)


def test_the_1_25_hint_says_x_read_three_times_not_more_than_once():
    # K-4: reading x twice gives 12 bytes an element (the 1.67 hint); 16 is x read three times
    message = capstone.check_prediction(1.25, 8, 256).message
    assert "read x three times (16 bytes per element" in message and "more than once" not in message


def test_07_places_the_per_row_bytes_on_the_columns_and_prices_the_exp():
    # T7-1: "the per-row values shrink as rows grow" named the wrong driver (it is the columns);
    # T7-2: an exp counted as one FLOP right after pitfall 5 priced it at 16, with no word of it
    text = _prose07()
    assert "shrink as rows grow" not in text  # review 18a: the per-row bytes in a sentence of their own
    assert "16 bytes a row (a maximum and a sum, each written and read once): 0.06 per element at 256 columns, 0.02 at 1,024" in text
    assert "each `exp` counted as one FLOP, this course's convention" in text  # round 16: not "the roofline's"
    # review 32e: the pipes run at once (the slower binds), so no added figure is printed: both stay left
    # review 44e: the sum said as an upper bound ("at most"), the exp priced at 16 FLOPs
    # review 46e: "about", as the exp also needs a few FMAs
    assert ("an `exp` costs 16 FLOPs, so about 20 FLOPs an element: 1 and 2.5 FLOP per byte, still far left of "
            "the ridge." in " ".join(text.split()) and "1.0 and 2.5" not in text)
    n = 1 << 20  # even adding the exp's 16 to the other FLOPs (more than the slower pipe's time) stays far left
    for fused, most in ((False, 1.0), (True, 2.5)):
        cost = operators.softmax(n, fused=fused)
        assert (cost.n_flops - n + 16 * n) / cost.n_bytes == pytest.approx(most) and most < 14 / 5
    key = " ".join(c.source for c in _key_cells() if c.cell_type == "markdown")
    assert "exp, sum, divide" not in key and "counted as one FLOP, this course's convention" in " ".join(key.split())


def test_07_gives_the_recorded_pair_not_being_yours_its_own_line():
    # C7-5: the note was easy to miss inside a provenance sentence
    # review 26e: in section 4's first cell, before the output it qualifies
    cell = next(c.source for c in _cells07() if c.cell_type == "markdown" and c.source.startswith("## 4. Measure"))
    assert "Without a live profile, the course's pair stands in" in " ".join(cell.split())  # review 37e


def test_the_comparisons_split_is_one_line_each():
    # C7-1: the split was one conditional sentence of about 80 words
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    lines = capstone.gap_text(pair["3-pass"], pair["fused"]).splitlines()
    # review 10d C07-3: a three-row table, the expected time and the shortfall's two parts
    # review 11d C07-2: the rows carry numbers only; the one caveat is the line after them
    assert len(lines) == 6 and lines[1].split()[:4] == ["expected,", "at", "the", "fused"]
    assert all(len(line) < 90 for line in lines[1:4]) and "flushed the L2" in lines[4]
    assert lines[2].strip().startswith("outside its kernels (launches, gaps)")
    assert lines[3].strip().startswith("inside its kernels (slow passes)")
    assert all(line[41] == " " and line[42] != " " for line in lines[1:4])  # the times in one column


def test_a_wrong_verdict_is_pointed_at_the_ridge_it_is_graded_against():
    # E-1: graded on the recorded pair's copy roof (ridge 15.5), the hint pointed at Part 3's 14
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    got = capstone.check_verdicts({"3-pass": "compute", "fused": "memory"}, pair, get_machine("h200"), 16384, 4096)
    # review 35f, E1: the printed ridge first, then the roof the profile is graded on, named
    # review 41f, E4: each ridge named by its roof
    assert got.checks[0].status == "fail" and "taken on the copy roof, 4,256 GB/s, whose ridge is 15.5" \
        in got.checks[0].message
    assert "the ridge printed above, 13.9 FLOP/byte" in got.checks[0].message
    analytic = capstone.check_verdicts({"3-pass": "compute", "fused": "memory"}, {}, get_machine("h200"), 16384, 4096)
    assert "the ridge printed above" in analytic.checks[0].message


# --- fix round 10 (review 10d): the key tells a missing barrier from an unwritten output, refuses a
# run-time shared-array shape without a compiler, and the exercise prints what Part 5 needs

_NO_BARRIER = ("""    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
        m = max(m, row[c])
    m = block_reduce(m, part, True)
    s = float32(0)
    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = math.exp(row[c] - m)
        s += row[c]
    s = block_reduce(s, part, False)
""", """    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
    if t == 0:  # no cuda.syncthreads() first: the other threads' elements may not be there yet
        for c in range(x.shape[1]):
            m = max(m, row[c])
        s = float32(0)
        for c in range(x.shape[1]):
            s += math.exp(row[c] - m)
        part[0] = m
        part[1] = s
    cuda.syncthreads()
    m = part[0]
    s = part[1]
    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = math.exp(row[c] - m)
""")


def test_a_fused_kernel_reading_shared_memory_before_a_barrier_is_told_so_every_time(kernels):
    # K-1: its NaN (np.empty's leftovers) was counted as "never written" and sent to the loop stride,
    # or the leftovers let it pass at random; shared arrays now start as NaN, y as UNWRITTEN
    wrong = _variant(*_NO_BARRIER)
    messages = set()
    for _ in range(2):
        got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
        assert [c.status for c in got.checks] == ["pass", "fail"], got
        messages.add(got.checks[1].message)
    assert len(messages) == 1, messages
    message = messages.pop()
    # round 17: the race detector names the race (the NaN fill alone caught it only in some orders)
    assert "a race" in message and "a cuda.syncthreads() missing" in message
    assert "never written" not in message and "stride" not in message
    from rooflinelib.profiling import simulator
    assert simulator.SHARED_FILL is None  # the fill is the check's alone
    assert simulator.SHARED_WRAPPER is None  # and so is the race detector's wrapper


def test_an_output_never_written_is_told_apart_from_one_written_as_nan():
    x = capstone.softmax_input(4, 64)
    y = capstone.reference_softmax(x).astype(np.float32)
    y[1, :8] = capstone.UNWRITTEN
    assert "8 of the 192 outputs of the ordinary rows were never written" in capstone._wrong_output(y, x, 1.0)
    y[1, :8] = np.nan
    hint = capstone._wrong_output(y, x, 1.0)
    assert "came out NaN" in hint and "never written" not in hint


def test_a_shared_array_sized_at_run_time_is_refused_without_a_compiler(kernels, monkeypatch):
    # K-2: on a machine without NVVM the simulator's PASS stood for a kernel the GPU cannot compile
    from numba import cuda

    def no_nvvm(*args, **kwargs):
        raise RuntimeError("NVVM not available")

    monkeypatch.setattr(cuda, "compile_ptx", no_nvvm, raising=False)
    wrong = _variant("row = cuda.shared.array(MAX_COLS, float32)", "row = cuda.shared.array(x.shape[1], float32)")
    got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"], got
    message = got.checks[1].message
    assert "fused: cuda.shared.array(x.shape[1], ...) has a shape set at run time" in message
    assert "\n" not in message and "MAX_COLS" in message


def test_the_static_shape_check_accepts_what_the_compiler_takes_and_names_what_it_refuses():
    # the forms checked against compile_ptx for sm_90 (2026-12-02, this VM): a literal, a global, a local
    # only assigned a literal, a closure's constant, a tuple of them and shape= compile; an expression
    # (N * 2, module.N) or a parameter does not
    source = """from numba import cuda, float32
N = 64
def literal(x):
    s = cuda.shared.array(64, float32)
def glob(x):
    s = cuda.shared.array(N, dtype=float32)
def local(x):
    n = 64
    s = cuda.shared.array(n, float32)
def pair(x):
    s = cuda.shared.array((N, 2), float32)
def keyword(x):
    s = cuda.shared.array(shape=N, dtype=float32)
def product(x):
    s = cuda.shared.array(N * 2, float32)
def param(x, n):
    s = cuda.local.array(n, float32)
def reassigned(x):
    n = 64
    n = x.shape[0]
    s = cuda.shared.array(n, float32)
"""
    import linecache
    name = "<shape forms>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace = {}
    exec(compile(source, name, "exec"), namespace)
    for ok in ("literal", "glob", "local", "pair", "keyword"):
        assert capstone._unsized_array(namespace[ok]) == "", ok
    # a closure's constant compiles too; a parameter named like a global int is still a parameter
    closure = """from numba import cuda, float32
N = 64
def make(n):
    def closure(x):
        s = cuda.shared.array(n, float32)
    return closure
def shadow(x, N):
    s = cuda.shared.array(N, float32)
"""
    linecache.cache["<closures>"] = (len(closure), None, closure.splitlines(True), "<closures>")
    exec(compile(closure, "<closures>", "exec"), namespace)
    assert capstone._unsized_array(namespace["make"](32)) == ""
    assert capstone._unsized_array(namespace["shadow"]).startswith("shadow: cuda.shared.array(N, ...)")
    assert capstone._unsized_array(namespace["product"]).startswith("product: cuda.shared.array(N * 2, ...)")
    assert capstone._unsized_array(namespace["param"]).startswith("param: cuda.local.array(n, ...)")
    assert capstone._unsized_array(namespace["reassigned"]).startswith("reassigned: cuda.shared.array(n, ...)")


def test_the_notebooks_kernels_pass_the_static_shape_check(kernels):
    for name in ("row_max", "exp_sum", "normalize", "fused", "block_reduce"):
        assert capstone._unsized_array(kernels[name].py_func) == "", name


def test_part_4_prints_the_rates_part_5s_split_needs():
    # X-2: the split needs the fused kernel's rate in GB/s; Part 4 printed only its share
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    text = capstone.comparison(pair, 2.5, where=capstone.RECORDED_WHERE, copy_gbps=capstone.RECORDED_PROFILES_COPY_GBPS,
                               explain=False)
    assert (f"Rates: {pair['3-pass'].achieved_gbps:,.0f} GB/s (3-pass) and {pair['fused'].achieved_gbps:,.0f} GB/s "
            "(fused).") in text
    for folder in ("exercises", "solutions"):
        nb = nbformat.read(str(NOTEBOOK.parents[1] / folder / "06_place_your_kernel_capstone.ipynb"), as_version=4)
        text = " ".join(" ".join(c.source for c in nb.cells if c.cell_type == "markdown").split())
        assert "its bytes at the fused kernel's rate (Part 4's GB/s)" in text, folder
        # X-1: block_reduce's part array was never asked for
        assert "A kernel that reduces allocates `part = cuda.shared.array(THREADS, float32)`" in text, folder
        assert "a kernel returns nothing" in text, folder


def test_the_keys_verdict_comment_names_the_ridge_it_is_graded_on():
    # K-3: the comment said "far left of the ridge" (Part 3 printed 14; the check grades on 15.5)
    key = nbformat.read(str(NOTEBOOK.parents[1] / "solutions" / "06_place_your_kernel_capstone.ipynb"), as_version=4)
    cell = next(c.source for c in key.cells if c.cell_type == "code" and "verdicts = {" in c.source)
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    # review 18b: one ridge named (the one printed above, 14); the check's hint names the graded 15.5,
    # and both intensities sit far left of either ridge, so the worked verdicts hold on both
    assert f"{pair['3-pass'].ridge:.3g}" == "15.5" and "far left of the ridge printed above" in cell
    assert "15.5" not in cell
    assert max(p.intensity for p in pair.values()) < 0.1 * min(14, pair["3-pass"].ridge)


def test_07_prices_an_exp_at_least_at_its_mufu_and_reads_the_caps_as_bounds():
    text = _prose07()
    # T07-1: the SFU's rate prices an exp; review 32e: by the slower pipe, not added, so no "at least" sum
    assert "to at least 1.0 and 2.5" not in text and "Priced at the SFU's rate" in text
    assert "hypotheses from counts, not measured bounds" not in text  # T07-2
    # review 19b T6: the clock cancels in the shared cap; "which one binds" read as a run report
    # review 26e: the caps count shared loads only, so they are upper bounds that the tile stores tighten
    # review 41e: upper bounds in any case; without the stores they are looser ones
    assert "The caps count shared loads only, so they are looser upper bounds ([the tile stores]" in " ".join(text.split())
    assert "(at the recorded clock)" not in text and "which one binds is the hypothesis" not in text


def test_07_says_why_the_gemms_dram_bytes_are_under_the_compulsory_minimum():
    # T07-3: 45.6 to 46.4 MB against 3n^2 floats, 50.3 MB, with no word of why
    text = _prose07()
    n = 2048
    assert f"{3 * n * n * 4 / 1e6:.1f}" == "50.3"
    # review 11d T07-2: the shares are printed from the unrounded counts (7.9 and 9.3%)
    # review 19b: "section 5's hypothesis" was a run-report pointer; the hypothesis is labelled in place
    # review 32e: the hypothesis moved to the appendix with the read/write split that supports it
    # review 33e: the appendix's hypothesis in one clause, linked
    # review 34e: the hypothesis is the appendix's alone; the page links it
    assert ("46.4 MB, 7.9 to 9.3% under 3n² floats; the shortfall is all in C's writes "
            "([appendix](../docs/appendix-07.md#the-gemms-dram-bytes))") in " ".join(text.split())
    appendix = " ".join((NOTEBOOK.parents[1] / "docs" / "appendix-07.md").read_text().split())
    assert "Hypothesis: the rest of C was still in the L2 when the kernel ended" in appendix


def test_07s_recorded_profiles_print_without_the_advice_and_levels_repeated():
    # C07-2: each profile's advice in full, and 'levels:' lines section 5's table repeats
    profiles, _ = capstone.recorded_pair()
    summary = capstone.profile_summary(profiles["softmax 3-pass"])
    assert "advice:" not in summary and "levels:" not in summary and "  ncu:" not in summary
    assert summary.splitlines()[0] == profiles["softmax 3-pass"].text().splitlines()[0]
    # round 16 (review 15d): 07 prints the recorded pair's counters and level tables, not the
    # profiles' own text; nothing printed repeats an advice or a levels line
    printed = _printed07()
    assert "advice:" not in printed and "  levels:" not in printed
    assert not any("recorded[name].text()" in c.source for c in _cells07() if c.cell_type == "code")


# --- review 11d (a fresh read): notebook 07, the capstone key, exercise 6 -----------------------

def test_07_review_11d_wording():
    from rooflinelib.profiling import gemm_targets
    text, printed = _prose07(), _printed07()
    # T07-1: 341 FLOP/byte holds because A, B and C fit the L2
    # (review 15: one claim per sentence; the L2's two halves are the appendix's detail)
    appendix07 = " ".join((Path(__file__).resolve().parents[2] / "docs" / "appendix-07.md").read_text().split())
    assert "a line may be held in both, so \"fits the L2\" alone does not guarantee one crossing" in appendix07
    assert "341 FLOP per byte of DRAM traffic, if each element crosses DRAM once" in text
    assert ("A, B and C take 48 MiB, which fits the 60 MiB L2, and the DRAM bytes below confirm "
            "at most one crossing each") in text  # review 38e: C reaches DRAM as 12.1-12.7 of 16.8 MB
    assert f"{gemm_targets.N_BYTES / 2 ** 20:.0f}" == "48"  # MiB beside MiB (STYLE: never mix MB and MiB)
    # T07-2: the shortfall under 3n² is printed, and quoted as printed
    dram = [r["dram_bytes"] for r in gemm_targets.recorded_rows(gemm_targets.recorded_counters()).values()]
    low, high = 1 - max(dram) / gemm_targets.N_BYTES, 1 - min(dram) / gemm_targets.N_BYTES
    assert f"DRAM bytes {low:.1%} to {high:.1%} under the 50.3 MB of 3n² floats" in printed
    assert f"{low:.1%} to {high:.1%}".replace("% to", " to") + " under 3n² floats" in text and "8 to 9%" not in text
    # T07-3: the passes' 74% gets a labelled hypothesis and the counter that would test it
    # (review 15d E1: the slowness is open; ramp-up and tail are one possible part, sized)
    # review 34e: said unexplained once; the appendix's estimate, against the 73 µs the page lets a reader derive
    # review 35e item 1: the ~12 µs outside the kernels said; the ramp-up estimate is the appendix's
    # review 36e: the rest is inside the kernels; the estimate stays the appendix's
    # review 46e: time outside the kernels, within the runs' noise, not measured launch overhead
    assert ("about 12 of the 73 µs fall outside the kernels ([within noise](") in " ".join(text.split())
    # review 13d T07-1: the barrier argument cannot explain it (the fused kernel runs the same two
    # block reductions over fewer bytes)
    assert "barrier" not in text.split("fall outside the kernels")[1].split("A live run")[0]
    # review 19b: one sentence per open point; the counters that would decide are the appendix's
    assert "Nsight Compute's duration and DRAM throughput for each pass would say which pass is slow" in appendix07
    # C07-5: FADD and FMUL count one, FFMA two; review 19b T4: the max and the SFU's exp are not counted
    assert ("ncu counts FADD and FMUL as one FLOP and FFMA, the fused multiply-add, as two, the arithmetic around "
            "the `exp` included; the max and the SFU's `exp` instruction are not counted.") in appendix07  # review 33e
    # C07-1: the opening's result is the two findings, short
    result = text.split("**The result")[1].split("**Where it runs.**")[0]
    assert len(result.split()) < 90 and "(reads and writes, the nearest mix Lab 1 measures)" not in result


def test_the_level_notes_are_one_line_each():
    # review 11d C07-3: two notes of 40 to 60 words under a table whose conclusion is "DRAM binds"
    assert len(capstone.L1_NOTE.split()) < 25 and len(capstone.L2_NOTE.split()) < 25
    assert "\n" not in capstone.L1_NOTE + capstone.L2_NOTE


def test_the_key_and_exercise_6_review_11d():
    key = nbformat.read(str(NOTEBOOK.parents[1] / "solutions" / "06_place_your_kernel_capstone.ipynb"), as_version=4)
    student = nbformat.read(str(NOTEBOOK.parents[1] / "exercises" / "06_place_your_kernel_capstone.ipynb"), as_version=4)
    worked = next(c.source for c in key.cells if "gap_explanation = (" in c.source)
    # K-1: the worked answer hedges the cross-run split as the model answer does
    assert "the kernels' own times show that" not in worked
    # review 36f (clarity): the hedge said once, plainly
    assert "Nsight Compute's kernel times come from a second run (L2 flushed before each); assuming they hold" in " ".join(
        worked.replace('"\n    "', "").split())
    for nb in (key, student):
        text = " ".join(" ".join(c.source for c in nb.cells if c.cell_type == "markdown").split())
        # K-2: the checks test correctness and traffic, not speed
        assert "The kernel checks test correctness and traffic, not speed" in text
        # X-1 / review 18b: the task names one ridge (the one printed above); a wrong verdict's hint
        # names the profile's ridge it is graded against (test_a_wrong_verdict_is_pointed_at_the_ridge_...)
        assert "version's side of the ridge printed above" in text and "15.5" not in text
        assert "with its kernels' own time (where Part 4 printed it)" in text


# --- review 12d: the row-max hint names the reduction; Part 5's L2 caveat is printed ------------

def test_a_row_max_without_its_reduction_is_sent_to_pass_1_not_to_overflow(kernels):
    # K-1: thread 0's own max is right in every ordinary row, so only the large row failed, and the
    # hint asked about exp's range and a missing barrier instead of the missing reduction
    wrong = _variant("    m = block_reduce(m, part, True)\n    if t == 0:\n        maxima[r] = m\n",
                     "    if t == 0:\n        maxima[r] = m\n")
    got = capstone.check_kernels(wrong["three_pass_passes"], kernels["fused_passes"])
    assert got.checks[0].status == "fail"
    assert "pass 1 must reduce over the whole row" in str(got) and "float32's range" not in str(got)


def test_the_counters_text_says_ncu_flushed_the_l2(recorded_pair_file):
    # K-2: exercise 6 Part 5's model answer rests on ncu's L2 flush; the printed counters now say it
    profiles, _ = capstone.recorded_pair()
    text = capstone.counters_text(profiles)
    assert text.count("ncu flushed the L2 before each kernel; the timed run did not") == 1


def test_07_counts_distinct_words_per_bank_and_caps_the_naive_pair_by_its_l1_bytes():
    # E07-2: "8 threads to each bank": 16 threads ask for 8 different words; the words set the passes
    prose = _prose07()
    assert "8 threads to each bank" not in prose and "8 different words in each of the two banks it uses, so 8 passes" in prose
    # E07-3: the L1 bytes do give caps, looser than the issue cap; review 18a: they bind nowhere, so
    # the appendix prints and states them
    assert "which no count above turns into time" not in prose
    page = (Path(__file__).resolve().parents[2] / "docs" / "appendix-07.md").read_text()
    for cap in ("L1 bytes   5.8%", "L1 bytes  24.8%"):
        assert cap in page
    flat = " ".join(page.split())
    assert ("The naive kernels' L1 caps, 5.8% and 24.8%, differ as their sectors per load do (8.5 against 2.0), "
            "but both lie above their shared 3.0% issue cap") in flat  # review 19b T3: on the measured roof


# --- fix round 13 (review 13d K-1): a NaN output need not come from shared memory; the check also
# fills maxima, e and sums with NaN, so the hint names a pass reading an intermediate too

def test_the_nan_hint_names_the_poisoned_intermediates_not_only_shared_memory():
    x = capstone.softmax_input(4, 64)
    y = capstone.reference_softmax(x).astype(np.float32)
    y[1, :8] = np.nan
    hint = capstone._wrong_output(y, x, 1.0)
    assert "maxima, e and sums" in hint and "earlier pass" in hint
    assert "a cuda.syncthreads() missing" in hint


# --- fix round 16 (review 15d, capstone key): a local alias of a constant sizes a shared array;
# a mistyped verdict key is named; "this course's convention" for the exp --------------------

ALIAS = "n = MAX_COLS\n    row = cuda.shared.array(n, float32)"


@pytest.mark.parametrize("compiler", [True, False], ids=["compiler-decides", "source-check-alone"])
def test_a_fused_kernel_sizing_its_row_through_a_local_alias_passes(kernels, monkeypatch, compiler):
    # K-1: numba-cuda 0.30.4 compiles `n = MAX_COLS; cuda.shared.array(n, float32)` (.shared .b8
    # _cudapy_smem_1[16384] for sm_90), but the source check called n "set at run time" first.
    # Where compile_ptx runs but this VM has no driver for the device function, the source check
    # stands, so both paths are tested: the compiler's verdict (on a GPU) and the source's (here).
    if not compiler:
        monkeypatch.setattr(capstone, "_compiler_available", lambda: False)
    alias = _variant("row = cuda.shared.array(MAX_COLS, float32)", ALIAS)
    got = capstone.check_kernels(kernels["three_pass_passes"], alias["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "pass"], got
    # a size known only at run time is still refused, through an alias too
    for shape in ("x.shape[1]", "cols"):
        wrong = _variant("row = cuda.shared.array(MAX_COLS, float32)",
                         f"cols = x.shape[1]\n    row = cuda.shared.array({shape}, float32)")
        got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
        assert [c.status for c in got.checks] == ["pass", "fail"], got
        assert "Numba's CUDA compiler refuses it" in got.checks[1].message and "MAX_COLS" in got.checks[1].message


SHAPE_FORMS = """from numba import cuda, float32
N = 64
M = 128
def alias(x):
    n = N
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
def chain(x):
    n = N
    m = n
    s = cuda.shared.array(m, float32)
    s[0] = x[0]
def annotated(x):
    n: int = N
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
def unpacked(x):
    n, m = N, 2
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
def alias_pair(x):
    n = N
    s = cuda.shared.array((n, 2), float32)
    s[0, 0] = x[0]
def alias_local(x):
    n = N
    s = cuda.local.array(n, float32)
    s[0] = x[0]
def same_in_both_branches(x):
    n = 64
    if x[0] > 0:
        n = N
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
def reassigned_in_line(x):
    n = N
    n = M
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
def differs_by_branch(x):
    if x[0] > 0:
        n = N
    else:
        n = M
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
def alias_of_shape(x):
    n = x.shape[0]
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
def alias_of_product(x):
    n = N * 2
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
def alias_of_parameter(x, k):
    n = k
    s = cuda.shared.array(n, float32)
    s[0] = x[0]
def alias_in_a_loop(x):
    for n in range(N):
        s = cuda.shared.array(n, float32)
        s[0] = x[0]
def make(c):
    def closure_alias(x):
        n = c
        s = cuda.shared.array(n, float32)
        s[0] = x[0]
    return closure_alias
"""
SHAPE_COMPILES = ("alias", "chain", "annotated", "unpacked", "alias_pair", "alias_local", "same_in_both_branches",
                  "reassigned_in_line")
SHAPE_REFUSED = ("differs_by_branch", "alias_of_shape", "alias_of_product", "alias_of_parameter", "alias_in_a_loop")


def _shape_forms() -> dict:
    import linecache
    name = "<shape forms, round 16>"
    linecache.cache[name] = (len(SHAPE_FORMS), None, SHAPE_FORMS.splitlines(True), name)
    namespace = {}
    exec(compile(SHAPE_FORMS, name, "exec"), namespace)
    namespace["closure_alias"] = namespace["make"](32)
    return namespace


def test_the_source_check_resolves_local_aliases_of_constants():
    forms = _shape_forms()
    for ok in SHAPE_COMPILES + ("closure_alias",):
        assert capstone._unsized_array(forms[ok]) == "", ok
    for refused in SHAPE_REFUSED:
        message = capstone._unsized_array(forms[refused])
        assert message.startswith(f"{refused}: cuda."), (refused, message)
        assert "has a shape set at run time" in message and "a local name set to one" in message


def test_the_source_check_agrees_with_numba_cuda_on_every_shape_form():
    # the forms above, compiled for sm_90 (no device function in them, so no driver is needed)
    from numba import cuda, float32, int64
    if not capstone._compiler_available():
        pytest.skip("no CUDA compiler (NVVM) here")
    forms = _shape_forms()
    for name in SHAPE_COMPILES + SHAPE_REFUSED + ("closure_alias",):
        types = (float32[:], int64) if name == "alias_of_parameter" else (float32[:],)
        try:
            cuda.compile_ptx(forms[name], types, cc=(9, 0))
            compiled = True
        except Exception as exc:
            from numba.core.errors import NumbaError
            assert isinstance(exc, NumbaError), (name, exc)
            compiled = False
        assert compiled == (capstone._unsized_array(forms[name]) == ""), name


def test_a_compiler_refusal_not_about_an_array_gets_no_shape_hint(monkeypatch):
    # the old check added "(a shared array's size must be a constant, such as MAX_COLS)" to every
    # typing error; the compiler's own line is told without memory addresses or "Failed in" lines
    def refuse(*args, **kwargs):
        from numba.core.errors import TypingError
        raise TypingError("Failed in cuda mode pipeline (step: nopython frontend)\n"
                          "Unknown attribute 'append' of type list(float64)<iv=None>\n")

    from numba import cuda
    monkeypatch.setattr(capstone, "_compiler_available", lambda: True)
    monkeypatch.setattr(cuda, "compile_ptx", refuse, raising=False)
    forms = _shape_forms()
    said = capstone._compile_refusal([(cuda.jit(forms["alias"]), (np.zeros(4, np.float32),))])
    assert said == "Unknown attribute 'append' of type list(float64)<iv=None>"
    line = capstone._first_compiler_line("No implementation of function Function(<function shared.array at "
                                         "0x7f5643f9db20>) found for signature:\n \n >>> array(int64, class(float32))\n")
    assert line == ("No implementation of function Function(<function shared.array>) found for signature: "
                    "array(int64, class(float32))")
    assert capstone._first_compiler_line(line) + capstone.SHAPE_HINT == line + capstone.SHAPE_HINT
    # on the H200 Numba wraps its lines in bold (seen in round 16's GPU run)
    bold = "\x1b[1mFailed in cuda mode pipeline (step: nopython frontend)\n\x1b[1m\x1b[1mCannot infer the type of variable 'scratch'"
    assert capstone._first_compiler_line(bold) == "Cannot infer the type of variable 'scratch'"


@pytest.mark.parametrize("mistyped", ["3pass", "three-pass", "3-Pass"])
def test_a_mistyped_verdict_key_is_named_with_the_keys_expected(h200, mistyped):
    # K-2: {"3pass": "memory", "fused": "memory"} got "[NOT ANSWERED YET] ... replace NOT_ANSWERED"
    got = capstone.check_verdicts({mistyped: "memory", "fused": "memory"}, {}, h200, 16384, 4096)
    assert got.status == "invalid", got
    three = got.checks[0]
    assert three.status == "invalid" and "NOT_ANSWERED" not in three.message
    assert repr(mistyped) in three.message and "'3-pass' and 'fused'" in three.message
    assert got.checks[1].passed
    # an extra key beside the two right ones is named too; the two right ones alone pass
    extra = capstone.check_verdicts({"3-pass": "memory", "fused": "memory", mistyped: "memory"}, {}, h200, 16384, 4096)
    assert extra.status == "invalid" and repr(mistyped) in str(extra)
    assert capstone.check_verdicts({"3-pass": "memory", "fused": "memory"}, {}, h200, 16384, 4096).passed
    # a dict lacking a key, with no unknown one, is still not answered yet
    assert capstone.check_verdicts({"fused": "memory"}, {}, h200, 16384, 4096).status == "unanswered"


def test_the_key_calls_one_flop_per_exp_this_courses_convention_and_shows_the_verdicts_dict():
    for path in ("solutions", "exercises"):
        nb = nbformat.read(str(NOTEBOOK.parents[1] / path / "06_place_your_kernel_capstone.ipynb"), as_version=4)
        text = " ".join(" ".join(c.source for c in nb.cells if c.cell_type == "markdown").split())
        assert "the roofline's convention" not in text and "counted as one FLOP, this course's convention" in text
        assert 'as `{"3-pass": ..., "fused": ...}`' in text, path
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert "16 KB of float32" not in code and "16 KiB of float32" in code


# --- fix round 17 (review 16d): shared-memory races refused whatever the simulator's thread order,
# the racy thread-0 scan pointed at the barrier, a row in cuda.local.array refused

_LOAD_AND_MAX = """    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
        m = max(m, row[c])
    m = block_reduce(m, part, True)
"""
# review 16d's kernel: the cooperative load, then (no barrier) each thread reads a contiguous chunk
_CHUNKS_NO_BARRIER = """    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
    per = x.shape[1] // cuda.blockDim.x
    for c in range(t * per, t * per + per):
        m = max(m, row[c])
    m = block_reduce(m, part, True)
"""


def _fused_status(kernels, wrong):
    got = capstone.check_kernels(kernels["three_pass_passes"], wrong["fused_passes"])
    assert got.checks[0].status == "pass", got
    return got.checks[1]


def test_a_fused_kernel_reading_other_threads_entries_before_a_barrier_is_refused_every_run(kernels):
    # review 16d, capstone 1: it passed 3 runs of 3 (the NaN fill caught the race only when the
    # simulator ran the reader first); the race detector does not depend on the order
    wrong = _variant(_LOAD_AND_MAX, _CHUNKS_NO_BARRIER)
    for _ in range(3):
        check = _fused_status(kernels, wrong)
        assert check.status == "fail", check
        assert "a race" in check.message and "no cuda.syncthreads() between" in check.message
        assert "put a cuda.syncthreads() after the loop that writes the shared array" in check.message
        assert "row[c] = x[r, c]" in check.message and "m = max(m, row[c])" in check.message


def test_a_barrier_given_by_block_reduce_is_not_refused(kernels):
    # the same contiguous chunks, read after block_reduce, whose first barrier orders the load
    # before them: no race, and the check passes
    right = _variant(_LOAD_AND_MAX, """    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
        m = max(m, row[c])
    m = block_reduce(m, part, True)
    top = float32(-math.inf)
    per = x.shape[1] // cuda.blockDim.x
    for c in range(t * per, t * per + per):  # other threads' entries, after block_reduce's barriers
        top = max(top, row[c])
    m = max(m, block_reduce(top, part, True))  # its first barrier ends these reads before the writes below
""")
    check = _fused_status(kernels, right)
    assert check.status == "pass", check


def test_atomic_updates_of_one_shared_entry_are_not_a_race(kernels):
    # a reduction by cuda.atomic.max on a shared entry: many threads update it in one epoch, and
    # the value is read only after a barrier
    right = _variant(_LOAD_AND_MAX, """    if t == 0:
        part[0] = float32(-math.inf)
    cuda.syncthreads()
    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
        m = max(m, row[c])
    cuda.atomic.max(part, 0, m)
    cuda.syncthreads()
    m = part[0]
    cuda.syncthreads()
""")
    check = _fused_status(kernels, right)
    assert check.status == "pass", check


_FUSED_AFTER_ARRAYS = """    m = float32(-math.inf)
    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
        m = max(m, row[c])
    m = block_reduce(m, part, True)
    s = float32(0)
    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = math.exp(row[c] - m)
        s += row[c]
    s = block_reduce(s, part, False)
    inv = float32(1) / s
    for c in range(t, x.shape[1], cuda.blockDim.x):
        y[r, c] = row[c] * inv
"""
# review 16d's kernel: thread 0 scans the row the others are still loading, then one barrier
_THREAD_0_SCAN = """    n = x.shape[1]
    for c in range(t, n, cuda.blockDim.x):
        row[c] = x[r, c]
    if t == 0:
        m = float32(-math.inf)
        for c in range(n):
            m = max(m, row[c])
        s = float32(0)
        for c in range(n):
            s += math.exp(row[c] - m)
        part[0] = m
        part[1] = s
    cuda.syncthreads()
    m = part[0]
    s = part[1]
    for c in range(t, n, cuda.blockDim.x):
        y[r, c] = math.exp(row[c] - m) / s
"""


def test_a_thread_0_scan_before_the_barrier_is_pointed_at_the_barrier_not_the_reductions(kernels):
    # review 16d, capstone 3: the hint was "check the reductions" (its outputs came out 0, not NaN)
    wrong = _variant(_FUSED_AFTER_ARRAYS, _THREAD_0_SCAN)
    check = _fused_status(kernels, wrong)
    assert check.status == "fail" and "a cuda.syncthreads() missing" in check.message
    assert "check the reductions" not in check.message


def test_a_fused_kernel_keeping_its_row_in_local_memory_is_refused_with_the_reason(kernels):
    # review 16d, capstone 2: a per-thread cuda.local.array row passed the read-once/write-once rules
    wrong = _variant("""    row = cuda.shared.array(MAX_COLS, float32)
    part = cuda.shared.array(THREADS, float32)
    m = float32(-math.inf)
    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
        m = max(m, row[c])
""", _local_values("MAX_COLS", "per thread: element i is column t + i * blockDim.x"))
    check = _fused_status(kernels, wrong)
    assert check.status == "fail", check
    # review 18b, 1: the exercise's rule first, then the off-chip reason, as vals[i] is a run-time index
    assert "this exercise asks for the row in cuda.shared.array(MAX_COLS, float32)" in check.message
    assert check.message.endswith(capstone.LOCAL_ROW_REASON + capstone.LOCAL_ROW_OFF_CHIP.format(index="vals[i]"))
    assert "off chip behind the L1" in check.message


# thread 1 writes shared entry 1 and thread 0 reads it; the sleeps pick the order the simulator
# runs the two in, and a barrier between them (BARRIER) orders them on a GPU too
_RACE_KERNEL = """
import time

from numba import cuda
import numpy as np


def kernel(out):
    s = cuda.shared.array(2, np.float32)
    t = cuda.threadIdx.x
    if t == 1:
        time.sleep(WRITE_SLEEP)
        s[1] = 1.0
    if BARRIER:
        cuda.syncthreads()
    if t == 0:
        time.sleep(READ_SLEEP)
        out[0] = s[1]
"""


@pytest.mark.parametrize("read_sleep, write_sleep, barrier, raced", [
    (0.0, 0.05, False, True),   # no barrier, the read first
    (0.05, 0.0, False, True),   # no barrier, the write first
    (0.0, 0.05, True, False),   # ordered by cuda.syncthreads()
], ids=["read_first", "write_first", "ordered"])
def test_the_race_detector_catches_a_race_in_either_order_and_leaves_the_simulator_as_it_was(
        read_sleep, write_sleep, barrier, raced):
    from numba.cuda.simulator import kernel as sim_kernel, kernelapi
    from rooflinelib.profiling import races, simulator
    sync, atomic = sim_kernel.BlockThread.syncthreads, kernelapi.FakeCUDAAtomic
    namespace = {"READ_SLEEP": read_sleep, "WRITE_SLEEP": write_sleep, "BARRIER": barrier}
    exec(compile(_RACE_KERNEL, "<race kernel>", "exec"), namespace)
    for _ in range(2):
        out = np.zeros(2, np.float32)
        with simulator.quick(), races.detect() as found:
            sim_kernel.FakeCUDAKernel(namespace["kernel"], device=False)[1, 2](out)
        assert bool(found) is raced, found
        if not raced:
            assert out[0] == 1.0  # the read saw the write
    assert sim_kernel.BlockThread.syncthreads is sync and kernelapi.FakeCUDAAtomic is atomic
    assert simulator.SHARED_WRAPPER is None


def test_the_simulator_proxies_share_one_array_face():
    # the array face (shape, size, ndim, dtype, strides, nbytes, len) is written once, in counting
    from rooflinelib.profiling import counting, races
    face = ("shape", "size", "ndim", "dtype", "strides", "nbytes", "__len__")
    for proxy in (counting.CountingArray, counting.RecordedShared, races.RaceShared):
        assert issubclass(proxy, counting.ArrayFace) and not set(face) & set(vars(proxy)), proxy
    array = np.zeros((3, 4), np.float32)
    watched = races.RaceShared(array, races._State(), "global")
    assert (watched.shape, watched.size, watched.ndim, watched.dtype, watched.strides, watched.nbytes, len(watched)) == (
        array.shape, array.size, array.ndim, array.dtype, array.strides, array.nbytes, 3)


def test_threads_storing_one_value_alike_are_not_a_race_but_different_values_are():
    from numba.cuda.simulator import kernel as sim_kernel
    from rooflinelib.profiling import races, simulator
    namespace = {}
    exec(compile('''
from numba import cuda
import numpy as np


def alike(out):  # every thread stores 1 in flag[0], read after a barrier: benign
    flag = cuda.shared.array(1, np.float32)
    flag[0] = 1.0
    cuda.syncthreads()
    out[cuda.threadIdx.x] = flag[0]


def differ(out):  # every thread stores its own index: which lands last is luck
    flag = cuda.shared.array(1, np.float32)
    flag[0] = cuda.threadIdx.x
    cuda.syncthreads()
    out[cuda.threadIdx.x] = flag[0]
''', "<store kernels>", "exec"), namespace)
    for name, raced in (("alike", False), ("differ", True)):
        out = np.zeros(4, np.float32)
        with simulator.quick(), races.detect() as found:
            sim_kernel.FakeCUDAKernel(namespace[name], device=False)[1, 4](out)
        assert bool(found) is raced, (name, found)
        if raced:
            assert found[0].sentence().startswith("two threads write one shared-array entry")


# --- fix round 18 (review 17e): races on global memory refused; the stated launch (1 row x MAX_COLS,
# THREADS threads) simulated once, so a shared array too small for it fails; the local-array hint's condition

_PASS2_REDUCE = "    s = block_reduce(s, part, False)\n    if t == 0:\n        sums[r] = s"
_PASS1_REDUCE = "    m = block_reduce(m, part, True)\n    if t == 0:\n        maxima[r] = m"


def _three_pass_status(kernels, variant):
    got = capstone.check_kernels(variant["three_pass_passes"], kernels["fused_passes"])
    assert got.checks[1].status == "pass", got
    return got.checks[0]


@pytest.mark.parametrize("old, new, line", [
    # review 17e E1: every thread adds its part to sums[r] without an atomic after thread 0 zeroes it
    (_PASS2_REDUCE, "    if t == 0:\n        sums[r] = 0\n    cuda.syncthreads()\n    sums[r] += s", "sums[r] += s"),
    # review 17e E1: every thread compares with maxima[r] and stores its own maximum
    (_PASS1_REDUCE, "    if t == 0:\n        maxima[r] = -math.inf\n    cuda.syncthreads()\n"
                    "    if m > maxima[r]:\n        maxima[r] = m", "maxima[r] = m"),
])
def test_a_race_on_a_global_output_entry_is_refused_with_the_atomic_or_block_reduce_hint(kernels, old, new, line):
    check = _three_pass_status(kernels, _variant(old, new))
    assert check.status == "fail", check
    assert "a race" in check.message and "global-array entry" in check.message and line in check.message
    assert "block_reduce" in check.message and "cuda.atomic.add" in check.message


@pytest.mark.parametrize("old, new", [
    (_PASS2_REDUCE, "    if t == 0:\n        sums[r] = 0\n    cuda.syncthreads()\n    cuda.atomic.add(sums, r, s)"),
    (_PASS1_REDUCE, "    if t == 0:\n        maxima[r] = -math.inf\n    cuda.syncthreads()\n    cuda.atomic.max(maxima, r, m)"),
])
def test_the_same_global_updates_made_atomic_pass(kernels, old, new):
    check = _three_pass_status(kernels, _variant(old, new))
    assert check.status == "pass", check


@pytest.mark.parametrize("old, new, line", [
    # review 17e E2: part sized 32 overflows at THREADS = 256 threads; a row of 1,024 at MAX_COLS = 4,096
    ("    row = cuda.shared.array(MAX_COLS, float32)\n    part = cuda.shared.array(THREADS, float32)",
     "    row = cuda.shared.array(MAX_COLS, float32)\n    part = cuda.shared.array(32, float32)", "part[t] = value"),
    ("row = cuda.shared.array(MAX_COLS, float32)", "row = cuda.shared.array(1024, float32)", "row[c] = x[r, c]"),
])
def test_a_shared_array_too_small_for_the_stated_launch_is_refused(kernels, old, new, line):
    check = _fused_status(kernels, _variant(old, new))
    assert check.status == "fail", check
    assert "at the stated launch (1 row x 4,096 columns, 256 threads a block)" in check.message
    assert f"the line `{line}`" in check.message and "out of bounds" in check.message
    assert "needs THREADS entries, the row MAX_COLS" in check.message and "tid=" not in check.message


def test_the_stated_launch_is_the_exercises():
    from rooflinelib.measure import experiment_kernels
    assert (capstone.LIMIT_ROWS, capstone.LIMIT_COLS, capstone.LIMIT_THREADS) == (
        1, experiment_kernels.SOFTMAX_COLS, experiment_kernels.SOFTMAX_THREADS)


# notebook 07's recorded design: a few values a thread in a local array, every index known once the
# constant-count loops unroll, so the compiler may keep it in registers (07 says "the row in registers")
_LOCAL_UNROLLED = """    vals = cuda.local.array(32, float32)  # element j is column t + j * blockDim.x
    for j in range(32):
        c = t + j * cuda.blockDim.x
        if c < x.shape[1]:
            vals[j] = x[r, c]
            m = max(m, vals[j])
    for j in range(32):
        c = t + j * cuda.blockDim.x
        if c < x.shape[1]:
            row[c] = vals[j]
"""


def test_the_local_array_hint_says_off_chip_only_for_a_run_time_index(kernels):
    # review 17e E3 / 18b, 1: notebook 07's fused kernel keeps its few values a thread in registers
    # (unrolled, constant indices); only a local array indexed at run time is local memory, off chip
    assert "off chip" not in capstone.LOCAL_ROW_REASON and "off chip behind the L1" in capstone.LOCAL_ROW_OFF_CHIP
    assert capstone.LOCAL_ROW_REASON.startswith(
        "keeps values in cuda.local.array: this exercise asks for the row in cuda.shared.array(MAX_COLS, float32)")
    check = _fused_status(kernels, _variant(_LOAD_AND_MAX.replace("    m = block_reduce(m, part, True)\n", ""),
                                            _LOCAL_UNROLLED))
    assert check.status == "fail", check
    assert check.message.endswith(capstone.LOCAL_ROW_REASON), check.message  # the rule, no off-chip claim


@pytest.mark.parametrize("body, index", [
    ("    v = cuda.local.array(8, float32)\n    for j in range(8):\n        v[j] = 0\n    return v[0]\n", ""),
    ("    v = cuda.local.array(8, float32)\n    for j in range(N):\n        v[j + 1] = 0\n    return v[N - 1]\n", ""),
    ("    v = cuda.local.array(8, float32)\n    for j in range(k):\n        v[j] = 0\n    return v[0]\n", "v[j]"),
    ("    v = cuda.local.array(8, float32)\n    i = 0\n    for j in range(8):\n        v[i] = 0\n        i += 1\n"
     "    return v[0]\n", "v[i]"),
    ("    v = cuda.local.array(8, float32)\n    v[cuda.threadIdx.x] = 0\n    return v[0]\n", "v[cuda.threadIdx.x]"),
])
def test_a_run_time_index_is_told_from_an_unrolled_one(body, index):
    import ast
    source = "def f(k):\n" + body
    namespace = {"N": 4, "cuda": None, "float32": None}
    exec(compile(source, "<f>", "exec"), namespace)
    tree = ast.parse(source)
    assert capstone._run_time_index(tree, namespace["f"], ["v"]) == index


# --- review 18b: the model-answer page (cell 6 a list, one ridge, what Part 5 uses, the FLOP count
# explained, Part 5's questions numbered) ---------------------------------------------------------

def _key_and_student():
    root = NOTEBOOK.parents[1]
    return [nbformat.read(str(root / d / "06_place_your_kernel_capstone.ipynb"), as_version=4)
            for d in ("solutions", "exercises")]


def test_the_capstone_page_review_18b():
    profiles, _ = capstone.recorded_pair()
    pair = capstone.recorded_softmax(profiles)
    per_element = pair["fused"].measured["fp32_flops"] / (pair["fused"].n_flops / 5)
    assert f"{per_element:.1f}" == "13.4" and pair["3-pass"].measured["fp32_flops"] == pair["fused"].measured["fp32_flops"]
    for nb in _key_and_student():
        md = [c.source for c in nb.cells if c.cell_type == "markdown"]
        # cell 6: four items (sizes; overflow; intermediates and races; traffic), not one paragraph
        check = next(m for m in md if m.startswith("The check runs both versions"))
        items = [line for line in check.splitlines() if line.startswith("- **")]
        assert [i.split("**")[1] for i in items] == ["Sizes:", "Range:", "Intermediates and races:", "Traffic:"]
        # review 26f, 2 and 3: the all-negative row and the 3-pass re-read rule are stated with the check
        assert "all negative" in items[1] and "maximum started at 0" in items[1] and "3-pass pass" in items[3]
        # cell 15/16: one ridge in the task
        task = next(m for m in md if m.startswith("Both versions do 5 FLOPs per element"))
        assert "15.5" not in task and "ridge printed above" in task
        # after the counters: which numbers Part 5 uses, and why ncu's FLOPs exceed the 5 a element
        at = next(i for i, c in enumerate(nb.cells) if "capstone.counters_text(graded)" in c.source)
        after, before = nb.cells[at + 1], nb.cells[at - 1]
        # review 31f: the numbers Part 5 uses are named above the output; only the FLOP note follows it
        assert before.cell_type == "markdown" and before.source.rstrip().splitlines()[-1].startswith(
            "Part 5 uses the two GB/s rates")
        assert after.cell_type == "markdown" and after.source.startswith("On the recorded pair ncu counts 13.4")
        # review 35f, E3: an inference from the total, no instruction breakdown
        # review 41f, E2: exact, with what ncu leaves out named (test_capstone_review42)
        # review 51f, 10: a bound, since the 10.4 also holds the reciprocal and the reductions' adds
        assert "ncu counts 13.4 fp32 FLOPs per element, not 5." in after.source and "leaves at most 10.4 per `exp`" \
            in after.source
        assert not any("The next cell ends with Nsight Compute's counters" in m for m in md)
        # cell 21: three numbered questions
        part5 = next(m for m in md if m.startswith("## Part 5: explain the gap"))
        assert [line[:3] for line in part5.splitlines() if line[:1].isdigit()] == ["1. ", "2. ", "3. "]
    key = _key_and_student()[0]
    worked = next(c.source for c in key.cells if "verdicts = {" in c.source)
    assert "15.5" not in worked and "(14)" not in worked



# --- fix round 21 (review 19f)

_EVERY_THREAD_STORES = "    m = block_reduce(m, part, True)\n    maxima[r] = m"


def test_every_thread_storing_one_value_is_never_a_race_however_the_threads_ran():
    # review 19f K-1: "same value" was decided outside the lock, so a store landing between another
    # thread's compare and its store made a benign store a race (7 of 10 runs in one process)
    from numba.cuda.simulator import kernel as sim_kernel
    from rooflinelib.profiling import races, simulator
    namespace = {}
    exec(compile('''
from numba import cuda
import numpy as np


def store_alike(out):  # every thread stores one result in each entry, in shared and global memory
    flag = cuda.shared.array(64, np.float32)
    for i in range(64):
        flag[i] = 3.0
        out[i] = 3.0
    cuda.syncthreads()
    out[64 + cuda.threadIdx.x] = flag[cuda.threadIdx.x]
''', "<store kernels>", "exec"), namespace)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads switch often, as in the runs that were refused
    try:
        for run in range(20):
            out = np.full(96, np.nan, np.float32)
            with simulator.quick(), races.detect() as found:
                sim_kernel.FakeCUDAKernel(namespace["store_alike"], device=False)[2, 32](found.watch(out))
            assert not found, (run, found[0].sentence())
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.slow
def test_a_3_pass_whose_every_thread_stores_the_reduced_maximum_passes_every_run(kernels):
    # review 19f K-1 (r03): block_reduce hands every thread the result, so maxima[r] = m on every thread is right
    variant = _variant(_PASS1_REDUCE, _EVERY_THREAD_STORES)
    for _ in range(4):
        assert _three_pass_status(kernels, variant).status == "pass"


def test_a_reduction_hard_coded_for_32_threads_fails_at_the_stated_launch(kernels):
    # review 19f K-2 (w21): exact at the simulator's 32 threads, and y was right at 256 threads on a plain
    # input; the stated launch now holds the large value in thread 255's column
    wrong = _variant("    step = cuda.blockDim.x // 2\n", "    step = 16\n")
    got = capstone.check_kernels(wrong["three_pass_passes"], wrong["fused_passes"])
    for check in got.checks:
        assert check.status == "fail", check
        assert "at the stated launch" in check.message and "thread 255's" in check.message, check


def test_unwritten_outputs_name_the_stride_only_for_the_columns_a_32_thread_stride_misses():
    # review 19f K-5: an off-by-one, a loop over shape[0] or swapped indices were all told to stride by blockDim.x
    x = capstone.softmax_input(8, 256)
    y = capstone.reference_softmax(x).astype(np.float32)
    strided = y.copy()
    strided[:, np.arange(256) % capstone.LIMIT_THREADS >= capstone.SIM_THREADS] = capstone.UNWRITTEN
    assert "stride by cuda.blockDim.x" in capstone._wrong_output(strided, x, 1.0)
    last = y.copy()
    last[:, -1] = capstone.UNWRITTEN
    told = capstone._wrong_output(last, x, 1.0)
    assert "stride" not in told and "column 255 of rows 1-7" in told, told


def test_a_warp_shuffle_is_told_the_simulator_has_none(kernels):
    # review 19f K-6: a raw "'FakeCUDAModule' object has no attribute 'shfl_down_sync'" came back
    wrong = _variant("    m = block_reduce(m, part, True)\n    s = float32(0)\n",
                     "    m = cuda.shfl_down_sync(0xffffffff, m, 16)\n    s = float32(0)\n")
    check = _fused_status(kernels, wrong)
    assert check.status == "invalid" and "FakeCUDAModule" not in check.message, check
    assert "no warp shuffles" in check.message and "block_reduce" in check.message, check


def test_a_small_local_array_beside_the_shared_row_passes(kernels):
    # review 19f K-4 (b): the row is in cuda.shared.array(MAX_COLS) as asked; a 2-entry local array holds (max, sum)
    wrong = _variant("    s = float32(0)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c] = math.exp",
                     "    acc = cuda.local.array(2, float32)\n    acc[0] = m\n    s = float32(0)\n"
                     "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c] = math.exp")
    assert _fused_status(kernels, wrong).status == "pass"
    assert capstone.SMALL_LOCAL == 16  # a 32-entry local array (notebook 07's design) is still refused


def test_a_second_read_of_x_is_told_as_a_source_rule(kernels):
    # review 19f K-4 (a): row[c] = x[r, c]; m = max(m, x[r, c]) was told to "keep the row in shared memory", which it does
    wrong = _variant("        m = max(m, row[c])\n    m = block_reduce(m, part, True)",
                     "        m = max(m, x[r, c])\n    m = block_reduce(m, part, True)")
    check = _fused_status(kernels, wrong)
    assert check.status == "fail" and "each x[r, c] its source reads" in check.message, check
    assert "then use row[c]" in check.message, check


def test_a_compile_check_that_cannot_run_says_so(kernels, monkeypatch):
    # review 19f K-3: without a GPU, Numba compiles block_reduce for the current device, raises
    # CudaSupportError, and the check skipped the compiler in silence
    from numba import cuda
    from numba.cuda.cudadrv.error import CudaSupportError

    def no_device(*args, **kwargs):
        raise CudaSupportError("no CUDA-capable device")

    monkeypatch.setattr(capstone, "_compiler_available", lambda: True)
    monkeypatch.setattr(cuda, "compile_ptx", no_device, raising=False)
    assert capstone._compile_refusal(kernels["fused_passes"](capstone.softmax_buffers())) == capstone.NOT_COMPILED
    assert "the compile check did not run" in capstone.NOT_COMPILED and "np.exp" in capstone.NOT_COMPILED


def test_a_speedup_written_with_its_x_is_accepted():
    # review 19f K-7: "2.5x" was CHECK YOUR INPUT ("drop the unit 'x'"); the course itself prints "2.50x"
    assert capstone.check_prediction("2.5x", capstone.SIM_ROWS, capstone.SIM_COLS).status == "pass"
    assert capstone.check_prediction("3x", capstone.SIM_ROWS, capstone.SIM_COLS).status == "fail"


def test_the_key_says_profile_pair_checks_the_output_after_timing():
    # review 19f K-8: the code poisons y, times the launchers and then checks the output
    page = Path(__file__).resolve().parents[2] / "solutions" / "06_place_your_kernel_capstone.ipynb"
    text = " ".join(nbformat.read(str(page), as_version=4).cells[18].source.split())
    # review 35f: one line per mode; the GPU's says timing first, then the output check
    assert "**GPU:** your two launchers, timed at the profiled size, their output checked against a float64" in text
    assert "after checking the output" not in text


# --- review 23f: a small-size IndexError gets the stated rule or the hint; the PASS line counts the
# stated launch; 2 and 3 as the predicted speed-up get their own hints ---------------------------

def _local_values(size: str, note: str) -> str:
    """Pass 1 of a fused kernel that first keeps its values in a local array of ``size`` entries."""
    return f"""    vals = cuda.local.array({size}, float32)  # {note}
    part = cuda.shared.array(THREADS, float32)
    m = float32(-math.inf)
    i = 0
    for c in range(t, x.shape[1], cuda.blockDim.x):
        vals[i] = x[r, c]
        m = max(m, vals[i])
        i += 1
    row = cuda.shared.array(MAX_COLS, float32)
    i = 0
    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = vals[i]
        i += 1
"""


_LOCAL_16 = _local_values("16", "sized for 256 threads: 4,096 / 256 values a thread")


def test_a_local_array_too_small_at_the_small_sizes_gets_the_local_row_rule(kernels):
    # review 23f, 1: at 4 x 1,024 with 32 threads vals[16] is past the end, and the check printed
    # "[CHECK YOUR INPUT] ... the simulator stopped: IndexError: tid=[...] ..."
    wrong = _variant("""    row = cuda.shared.array(MAX_COLS, float32)
    part = cuda.shared.array(THREADS, float32)
    m = float32(-math.inf)
    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
        m = max(m, row[c])
""", _LOCAL_16)
    check = _fused_status(kernels, wrong)
    assert check.status == "fail", check
    assert "simulator stopped" not in check.message and "IndexError" not in check.message
    assert check.message == ("your fused kernel " + capstone.LOCAL_ROW_REASON
                             + capstone.LOCAL_ROW_OFF_CHIP.format(index="vals[i]")), check.message


def test_a_shared_array_too_small_at_the_small_sizes_gets_the_past_the_end_hint(kernels):
    # review 23f, 1: any IndexError at the small sizes reads as _at_the_limits's hint, with the line
    wrong = _variant("    row = cuda.shared.array(MAX_COLS, float32)\n    part = cuda.shared.array(THREADS, float32)\n",
                     "    row = cuda.shared.array(MAX_COLS, float32)\n    part = cuda.shared.array(16, float32)\n")
    check = _fused_status(kernels, wrong)
    assert check.status == "fail", check
    assert "simulator stopped" not in check.message
    assert check.message.startswith(f"at {capstone.SIM_ROWS} rows x {capstone.SIM_COLS} columns, "
                                    f"{capstone.SIM_THREADS} threads a block, the line `"), check.message
    assert "indexes past an array's end" in check.message and "needs THREADS entries" in check.message


def test_the_pass_line_counts_the_stated_launch(kernels):
    # review 23f, 2 (and 36f, E3: a third size, not a multiple of the block): the PASS names the sizes it ran
    got = capstone.check_kernels(kernels["three_pass_passes"], kernels["fused_passes"])
    assert got.passed, got
    for check in got.checks:
        assert check.message.startswith("correct in the simulator at 3 small sizes and the stated launch ("), check
    page = Path(__file__).resolve().parents[2] / "solutions" / "06_place_your_kernel_capstone.ipynb"
    printed = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "")
                      for c in nbformat.read(str(page), as_version=4).cells
                      if c.cell_type == "code" for o in c.get("outputs", []))
    assert "correct at 2 sizes in the simulator" not in printed
    assert printed.count("correct in the simulator at 3 small sizes and the stated launch") == 2


@pytest.mark.parametrize("answer, hint", [
    # review 41f, E5: reworded; review 51: 3.0 is first named as 24 bytes per element over 8
    (3.0, "that counts the 3-pass version's bytes as 24 per element"),
    # review 51f, 4: the hint names the launches, never the measured ratio Part 4 has not shown yet
    ("3.005", "3 is also the number of launches (3 against 1), but the prediction is bytes over bytes"),
    ("3x", "the prediction is bytes over bytes"),
    (2.0, "counts the 3-pass version's bytes as 16 per element"),
    ("16/8", "pass 3 reads e and writes y, 20 bytes per element"),
])
def test_two_and_three_as_the_speedup_get_their_own_hints(answer, hint):
    # review 23f, 4: both got only "too low" / "too high"; 3 is what the measurement shows
    check = capstone.check_prediction(answer, capstone.SIM_ROWS, capstone.SIM_COLS)
    assert check.status == "fail" and hint in check.message, check
    assert "too low" not in check.message and "too high" not in check.message


def test_the_page_says_the_copy_roof_flatters_the_3_pass_share():
    # review 23f, 3: the 3-pass version is graded against the copy roof, though its pass 1 only reads (a
    # faster mix: read 4,595 GB/s against the copy's 4,256 in the recorded Lab 1); one sentence says so
    for folder in ("solutions", "exercises"):
        nb = nbformat.read(str(NOTEBOOK.parents[1] / folder / "06_place_your_kernel_capstone.ipynb"), as_version=4)
        # review 35f: said in the model answer, as the reason the 3-pass share is an upper bound
        after = next(c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## Part 5"))
        assert "if anything generous" not in after, folder
        model = next(c for c in nb.cells if "capstone.model_gap(" in c.source)
        if folder == "solutions":
            assert "The 74% is an upper bound: pass 1 only reads, which streams faster than a copy." in str(
                model.outputs), folder
        assert "a shift by any other value of that row overflows too" not in " ".join(
            c.source for c in nb.cells if c.cell_type == "markdown")


# --- review 26f: a global index past the end, a maximum started at 0, a stride of 1, a wrong
# prediction near the measured ratio -----------------------------------------------------------

def test_a_transposed_global_index_gets_the_global_arrays_shape_not_the_shared_sizes(kernels):
    # 26f, 1: y[r, c] = e[c, r] * inv was told "a shared array ... needs THREADS entries"
    wrong = _variant("        y[r, c] = e[r, c] * inv\n", "        y[r, c] = e[c, r] * inv\n")
    check = capstone.check_kernels(wrong["three_pass_passes"], kernels["fused_passes"]).checks[0]
    assert check.status == "fail", check
    assert "`y[r, c] = e[c, r] * inv`" in check.message and "indexes past an array's end" in check.message
    assert "THREADS entries" not in check.message and "shared" not in check.message, check.message
    assert f"global memory, of shape {capstone.SIM_ROWS} x {capstone.SIM_COLS}" in check.message
    assert "not x[c, r]" in check.message


@pytest.mark.parametrize("variant", ["3-pass", "fused"])
def test_a_maximum_started_at_0_fails_on_the_all_negative_row_with_the_minus_inf_hint(kernels, variant):
    # 26f, 2: the course's input is all positive, so m = float32(0) passed every check
    old = "    m = float32(-math.inf)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        " + (
        "m = max(m, x[r, c])" if variant == "3-pass" else "row[c] = x[r, c]")
    wrong = _variant(old, old.replace("float32(-math.inf)", "float32(0)"))
    got = capstone.check_kernels(wrong["three_pass_passes"], wrong["fused_passes"])
    check = got.checks[0 if variant == "3-pass" else 1]
    assert [c.status for c in got.checks] == (["fail", "pass"] if variant == "3-pass" else ["pass", "fail"]), got
    assert f"row {capstone.SIM_ROWS - 1}" in check.message and "all negative" in check.message, check.message
    # review 34f E3: the fused kernel's check refuses a max started at x[r, 0] (every thread re-reads it),
    # so only the 3-pass hint offers the row's first value
    assert "-inf" in check.message and ("row's first value" in check.message) == (variant == "3-pass")
    assert "NaN, the value this check puts" not in check.message


def test_the_all_negative_row_keeps_the_right_answers_passing_and_the_unsafe_hint_whole(kernels):
    got = capstone.check_kernels(kernels["three_pass_passes"], kernels["fused_passes"])
    assert got.passed, got
    first = _variant("    m = float32(-math.inf)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        m = max(m, x[r, c])\n",
                     "    m = x[r, t]\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        m = max(m, x[r, c])\n")
    assert capstone.check_kernels(first["three_pass_passes"], kernels["fused_passes"]).passed
    unsafe = str(capstone.check_kernels(kernels["three_pass_passes"], _unsafe(_kernel_source())["fused_passes"]))
    assert "the ordinary rows are right" in unsafe and "float32's range" in unsafe and "underflows" in unsafe
    assert "start at -inf" not in unsafe


def test_a_3_pass_kernel_with_a_stride_of_1_is_refused_with_the_coalescing_reason(kernels):
    # 26f, 3: range(t, x.shape[1]) gave the right maxima with about 30x (128x at 256 threads) the loads
    source = _kernel_source()
    old = "    m = float32(-math.inf)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        m = max(m, x[r, c])\n"
    wrong = _variant(old, old.replace(", cuda.blockDim.x)", ")"))
    assert source.count(old) == 1
    check = capstone.check_kernels(wrong["three_pass_passes"], kernels["fused_passes"]).checks[0]
    assert check.status == "fail", check
    assert check.message.startswith("right output, but pass 1 (row_max") and " issues 30.1 loads of x per element" in check.message
    assert "stride 1" in check.message and "coalesced" in check.message and "cuda.blockDim.x" in check.message


def test_a_prediction_other_than_the_byte_ratio_is_not_said_to_hold_near_the_measured_ratio(h200):
    # 26f, 4: comparison(graded, 3.0) said "the prediction holds" at 3.02x, which the check refuses
    pair = _pair(h200, 3.02e-4, 1e-4)
    text = capstone.comparison(pair, 3.0)
    head = text.splitlines()[0]
    assert "predicted 3.00x, measured 3.02x" in head and "the prediction holds" not in text
    assert "gained more than the 2.50x the bytes predict" in head, head
    assert "time followed bytes" not in text
    assert capstone.outcome(pair["3-pass"], pair["fused"], 2.5) == "more"
    assert "the prediction holds" in capstone.comparison(_pair(h200, 2.5e-4, 1e-4), 2.5)


def test_np_exp_is_refused_where_the_compiler_runs(kernels):
    # review 28f, 1: compile_ptx raises KeyError(<ufunc 'exp'>) for np.exp, which counted as "compiles";
    # and block_reduce, a device function, was compiled for the current GPU, so with none the check did not run
    if not capstone._compiler_available():
        pytest.skip("Numba's CUDA compiler (NVVM) is not available here")
    assert capstone._compile_refusal(kernels["fused_passes"](capstone.softmax_buffers())) == ""
    wrong = _variant("        row[c] = math.exp(row[c] - m)", "        row[c] = np.exp(row[c] - m)")
    wrong["np"] = np
    check = _fused_status(kernels, wrong)
    assert check.status == "fail", check
    assert "np.exp" in check.message and "math.exp" in check.message, check
    assert capstone._compiler_crash(KeyError(np.exp)).startswith("np.exp is not compiled in a GPU kernel")


def test_an_init_racing_the_atomics_is_told_to_add_the_barrier(kernels):
    # review 28f, 2: thread 0 zeroes sums[r], every thread then does cuda.atomic.add with no barrier: the
    # hint said "update the entry with cuda.atomic.add", which the student already does
    wrong = _variant("    s = block_reduce(s, part, False)\n    if t == 0:\n        sums[r] = s\n",
                     "    if t == 0:\n        sums[r] = float32(0)\n    cuda.atomic.add(sums, r, s)\n")
    check = capstone.check_kernels(wrong["three_pass_passes"], kernels["fused_passes"]).checks[0]
    assert check.status == "fail" and "a race" in check.message, check
    assert "one with an atomic" in check.message and "no atomic and" not in check.message, check
    assert "Put a cuda.syncthreads() after the plain write and before the atomics" in check.message, check
    assert "cuda.atomic.add / cuda.atomic.max" not in check.message, check


def test_a_pass_writing_more_than_its_own_output_is_refused(kernels):
    # review 28f, 3: pass 3 also wrote e (e[r, c] = e[r, c] * inv; y[r, c] = e[r, c]) and passed, so the
    # student's right 20 bytes/element formula was then refused without a word about the extra write
    wrong = _variant("        y[r, c] = e[r, c] * inv\n",
                     "        e[r, c] = e[r, c] * inv\n        y[r, c] = e[r, c]\n")
    check = capstone.check_kernels(wrong["three_pass_passes"], kernels["fused_passes"]).checks[0]
    assert check.status == "fail", check
    assert "pass 3 (normalize" in check.message and ") writes e, which is not its output" in check.message and "write only y" in check.message, check


def test_a_pass_says_so_where_the_compiler_cannot_run(kernels, monkeypatch):
    # review 28f, 1: under the CUDA simulator (or with no NVVM) the compile check was skipped in silence
    monkeypatch.setattr(capstone, "_compiler_available", lambda: False)
    got = capstone.check_kernels(kernels["three_pass_passes"], kernels["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "pass"], got
    # review 35f: said once, under the report, not on every PASS line
    assert str(got).count("the compile check did not run") == 1 and "np.exp" in got.note, got
    assert not any("compile check" in c.message for c in got.checks), got
