"""Review 51f's items on the capstone's key (rooflinelib.profiling.capstone, solutions/06).  ``1 / sums[r]``
and ``row[c] * (1 / s)`` passed, though Numba's ``/`` on an int gives a float64 as ``1.0 / sums[r]`` does
(refused); "2.5x" passed Part 3 and could not be read in Part 4; the 1.25 hint named a 3-pass count that
cannot give it; the 3.0 hint told the measured ratio before any profile; ``m = x[r, t]`` got a hint that did
not name the line; Part 2's count stopped with a traceback after a kernel indexed past an array, and a
passing 3-pass version's formula waited for the fused kernel."""
import types

import pytest

from support import simulated  # noqa: F401  (the simulator set up as test_capstone sets it up)

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402
from test_capstone_review32 import _solution  # noqa: E402

INV = "    inv = float32(1) / sums[r]\n"
FUSED_INV = "    inv = float32(1) / s\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        y[r, c] = row[c] * inv\n"
FUSED_START = "    m = float32(-math.inf)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c]"
FUSED_PART = "    part = cuda.shared.array(THREADS, float32)\n    m = float32(-math.inf)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c]"


# --- 1: an int in a true division is float64, as 1.0 is ------------------------------------------------

@pytest.mark.parametrize("passes, old, new, line", [
    ("three_pass_passes", INV, "    inv = 1 / sums[r]\n", "inv = 1 / sums[r]"),
    ("fused_passes", FUSED_INV, FUSED_INV.replace("    inv = float32(1) / s\n", "").replace("row[c] * inv", "row[c] * (1 / s)"),
     "y[r, c] = row[c] * (1 / s)"),
])
def test_a_division_with_an_int_is_refused_as_1_0_is(passes, old, new, line):
    wrong = _solution([(old, new)])
    said = capstone._fp64_constant(wrong[passes](capstone.softmax_buffers()))
    assert f"the line `{line}` divides with 1, an integer" in said, said
    assert "runs in fp64: write float32(1)" in said and "\n" not in said, said


@pytest.mark.parametrize("old, new", [
    ((), ()),  # the model: float32(1) / sums[r]
    (INV, "    inv = float32(1) / float32(2) / sums[r] * float32(2)\n"),
    ("        y[r, c] = e[r, c] * inv\n", "        y[r, c] = e[r, c] / sums[r]\n"),  # float32 over float32
    (INV, "    inv = float32(1 / 1) / sums[r]\n"),  # converted once inside float32(...), as 1.0 is
    (INV, "    half = cuda.blockDim.x // 2\n    inv = float32(1) / sums[r]\n"),  # floor division stays int
])
def test_float32_divisions_and_floor_division_pass(old, new):
    k = _solution([(old, new)] if old else [])
    for passes in ("three_pass_passes", "fused_passes"):
        assert capstone._fp64_constant(k[passes](capstone.softmax_buffers())) == "", (new, passes)


def test_the_kernel_check_refuses_1_over_sums():
    good, wrong = _solution(), _solution([(INV, "    inv = 1 / sums[r]\n")])
    got = capstone.check_kernels(wrong["three_pass_passes"], good["fused_passes"])
    assert [c.status for c in got.checks] == ["fail", "pass"], got
    assert "normalize_body: the line `inv = 1 / sums[r]` divides with 1, an integer" in got.checks[0].message


# --- 2, 3, 4: the prediction ---------------------------------------------------------------------------

def test_a_prediction_written_with_x_is_read_the_same_in_part_3_and_part_4():
    rows, cols = capstone.SIM_ROWS, capstone.SIM_COLS
    assert capstone.check_prediction("2.5x", rows, cols).passed
    three = types.SimpleNamespace(n_flops=capstone.operators.SOFTMAX_FLOPS_PER_ELEMENT * rows * cols)
    for answer in ("2.5x", "2.5 ×", 2.5):
        assert capstone._prediction(answer, three) == (2.5, ""), answer
    value, note = capstone._prediction("fast", three)
    assert "could not be read" in note and value == pytest.approx(capstone.model_speedup(rows, cols))


def test_the_1_25_hint_names_only_the_fused_count():
    check = capstone.check_prediction(1.25, capstone.SIM_ROWS, capstone.SIM_COLS)
    assert check.status == "fail" and "read x three times (16 bytes per element instead of 8)" in check.message
    assert "3-pass count" not in check.message and "leaves out passes" not in check.message, check


@pytest.mark.parametrize("answer", [3.0, "3.005", "3x"])
def test_the_3_hint_does_not_give_the_measured_ratio_before_profiling(answer):
    check = capstone.check_prediction(answer, capstone.SIM_ROWS, capstone.SIM_COLS)
    assert check.status == "fail" and "3 is also the number of launches (3 against 1)" in check.message, check
    assert "measured" not in check.message and "H200" not in check.message, check


# --- 6: a max started at x[r, t] -----------------------------------------------------------------------

def test_a_max_started_at_x_r_t_is_named_with_its_line():
    wrong = _solution([(FUSED_START, FUSED_START.replace("float32(-math.inf)", "x[r, t]"))])
    said = capstone._once_rules(wrong["fused_passes"], capstone.SIM_SIZES[0])
    assert "the line `m = x[r, t]` reads x outside the loops" in said, said
    assert "float32(-math.inf)" in said and "every thread read the same element" not in said, said
    # the constant column keeps its own cause
    fixed = _solution([(FUSED_START, FUSED_START.replace("float32(-math.inf)", "x[r, 0]"))])
    said = capstone._once_rules(fixed["fused_passes"], capstone.SIM_SIZES[0])
    assert "the line `m = x[r, 0]` has every thread read the same element of x" in said, said
    # the model reads x in its loop only: nothing to name, and its count is once
    buffers = capstone.softmax_buffers()
    assert capstone._fixed_x_read(_solution()["fused_passes"](buffers), buffers["x"]) == ("", False)
    assert capstone._once_rules(_solution()["fused_passes"], capstone.SIM_SIZES[0]) == ""


# --- 8, 9: Part 2 counts and checks each version on its own ------------------------------------------------

def test_part_2_counts_only_the_versions_that_passed_and_never_stops():
    good = _solution()
    short = _solution([(FUSED_PART, FUSED_PART.replace("cuda.shared.array(THREADS, float32)",
                                                       "cuda.shared.array(16, float32)"))])
    check = capstone.check_kernels(good["three_pass_passes"], short["fused_passes"])
    passed = capstone.versions_passed(check)
    assert passed == {"3-pass": True, "fused": False}, check
    with pytest.raises(capstone.CountError):  # what the page's cell ran before
        capstone.count_passes(short["fused_passes"](capstone.softmax_buffers()), capstone.SIM_ROWS, capstone.SIM_THREADS)
    # a version marked passing whose count stops gets nothing to check against, not a traceback
    counts = capstone.count_versions(good["three_pass_passes"], short["fused_passes"], {"3-pass": True, "fused": True})
    assert all(c["fused"] == {} for c in counts.values()), counts
    counts = capstone.count_versions(good["three_pass_passes"], short["fused_passes"], passed)
    three = capstone.check_byte_formula(lambda rows, cols: 4 * rows * cols * 5,
                                        {s: c["3-pass"] for s, c in counts.items()}, "3-pass bytes",
                                        kernels_ok=passed["3-pass"])
    fused = capstone.check_byte_formula(lambda rows, cols: 4 * rows * cols * 2,
                                        {s: c["fused"] for s, c in counts.items()}, "fused bytes",
                                        kernels_ok=passed["fused"])
    assert three.passed, three
    assert fused.status == "unanswered" and "finish your kernels first" in fused.message, fused


# --- 5: the usual byte-count slips, named ----------------------------------------------------------------

@pytest.mark.parametrize("version, per_element, hint", [
    ("3-pass", 12, "x, e and y each counted once overall: count an array once per launch that touches it"),
    ("3-pass", 40, "a float32 is 4 bytes, not 8"),
    ("fused", 16, "stay on chip, so only x's read and y's write cross DRAM"),
])
def test_the_usual_byte_slips_get_their_own_hints(version, per_element, hint):
    k = _solution()
    counts = capstone.count_versions(k["three_pass_passes"], k["fused_passes"], {"3-pass": True, "fused": True})
    counted = {s: c[version] for s, c in counts.items()}
    got = capstone.check_byte_formula(lambda rows, cols: per_element * rows * cols, counted, f"{version} bytes")
    assert got.status == "fail" and hint in got.message, got
    assert "too low" not in got.message and "too high" not in got.message, got
    right = 20 if version == "3-pass" else 8
    assert capstone.check_byte_formula(lambda rows, cols: right * rows * cols, counted, f"{version} bytes").passed


# --- 7: a chunked loop whose start is named first ------------------------------------------------------------

def test_a_chunked_loop_over_a_named_start_gets_the_note():
    from test_capstone_review45 import _passes
    head = ("def a_body(x, y):\n    r, t = cuda.blockIdx.x, cuda.threadIdx.x\n    cols = x.shape[1]\n"
            "    n = (cols + cuda.blockDim.x - 1) // cuda.blockDim.x\n")
    named = head + "    lo = t * n\n    hi = min(lo + n, cols)\n    for c in range(lo, hi):\n        y[r, c] = x[r, c]\n"
    assert capstone._chunked_loop(_passes(named)) == "the loop `for c in range(lo, hi):` (a_body)"
    # the thread's index itself as the start is the stride-1 slip, told elsewhere; a block-wide start is no run
    for start in ("t", "cuda.threadIdx.x", "r"):
        other = head + f"    for c in range({start}, cols):\n        y[r, c] = x[r, c]\n"
        assert capstone._chunked_loop(_passes(other)) == "", start


# --- 11a: a CPU's rates keep their figures ---------------------------------------------------------------------

def test_rates_keep_three_figures_below_100_gb_s():
    # a CPU run's 1.1 and 0.58 GB/s printed as "1" and "1", against shares of 9.8% and 5.2%
    assert [capstone._rate(v) for v in (1.1, 0.58, 3157.9, 12.345)] == ["1.1", "0.58", "3,158", "12.3"]
