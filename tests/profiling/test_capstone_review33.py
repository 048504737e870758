"""Review 33f's items on the capstone's key (rooflinelib.profiling.capstone): two shared arrays on one
line refused before the simulator runs (it would make them one array), a fused kernel that starts its
maximum at x[r, 0] told the cause, and the fused byte slip of 4 bytes per element named."""
import pytest

from support import simulated  # noqa: F401  (the simulator set up as test_capstone sets it up)

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from test_capstone_review32 import _body, _solution  # noqa: E402

TWO_LINES = "row = cuda.shared.array(MAX_COLS, float32)\n    part = cuda.shared.array(THREADS, float32)"
ONE_LINE = "row = cuda.shared.array(MAX_COLS, float32); part = cuda.shared.array(THREADS, float32)"


def test_two_shared_arrays_on_one_line_are_refused_before_the_simulator_runs(monkeypatch):
    # review 33f, 1: the simulator keys a shared array by its line, so a right kernel failed with a wrong hint
    def not_run(*args, **kwargs):
        raise AssertionError("the simulator ran a kernel the source check refuses")

    good = _solution()
    wrong = _solution([(TWO_LINES, ONE_LINE)])
    monkeypatch.setattr(capstone, "_simulate_output", not_run)
    got = capstone.check_kernels(good["three_pass_passes"], wrong["fused_passes"])
    assert got.checks[1].status == "fail", got
    message = got.checks[1].message
    assert f"the line `{ONE_LINE}` allocates 2 shared arrays" in message, message
    assert "on its own line" in message and "apart by their line" in message and "\n" not in message, message


def test_the_tuple_form_is_refused_and_one_allocation_a_line_is_not():
    from numba import cuda, float32
    globs = dict(cuda=cuda, float32=float32, MAX_COLS=4096, THREADS=256)
    tupled = _body("def f_body(x, y):\n    row, part = cuda.shared.array(MAX_COLS, float32), "
                   "cuda.shared.array(THREADS, float32)\n    y[0, 0] = row[0] + part[0]\n", **globs)
    said = capstone._shared_on_one_line([(cuda.jit(tupled), ())])
    assert "f_body: the line `row, part = cuda.shared.array(" in said and "allocates 2 shared arrays" in said, said
    split = _body("def f_body(x, y):\n    row = cuda.shared.array(MAX_COLS, float32)\n"
                  "    part = cuda.shared.array(THREADS, float32)\n    y[0, 0] = row[0] + part[0]\n", **globs)
    assert capstone._shared_on_one_line([(cuda.jit(split), ())]) == ""
    k = _solution()
    for passes in ("three_pass_passes", "fused_passes"):
        assert capstone._shared_on_one_line(k[passes](capstone.softmax_buffers(8, 256))) == "", passes


@pytest.mark.slow
def test_the_model_solution_with_one_allocation_a_line_passes():
    k = _solution()
    got = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "pass"], got


def test_a_max_started_at_x_r_0_is_told_its_cause(monkeypatch):
    # review 33f, 2: "reads x 1.12 times" with no hint that every thread reads x[r, 0]
    monkeypatch.setattr(capstone, "_at_the_limits", lambda *a, **k: "")
    good = _solution()
    wrong = _solution([(TWO_LINES + "\n    m = float32(-math.inf)", TWO_LINES + "\n    m = x[r, 0]")])
    got = capstone.check_kernels(good["three_pass_passes"], wrong["fused_passes"])
    assert got.checks[1].status == "fail", got
    message = got.checks[1].message
    assert "the line `m = x[r, 0]` has every thread read the same element of x" in message, message
    assert "start the max at -inf" in message, message


def test_the_fused_byte_slip_of_4_bytes_per_element_is_named():
    # review 33f, 3: 4n got only "too low"
    k = _solution()
    fused = {}
    for rows, cols in capstone.SIM_SIZES:
        b = capstone.softmax_buffers(rows, cols)
        fused[(rows, cols)] = capstone.count_passes(k["fused_passes"](b), rows, capstone.SIM_THREADS)
    assert capstone.check_byte_formula(lambda rows, cols: 8 * rows * cols, fused, "fused bytes").passed
    got = capstone.check_byte_formula(lambda rows, cols: 4 * rows * cols, fused, "fused bytes")
    assert got.status == "fail" and "the write of y left out" in got.message, got
