"""Review 35f's items on the capstone's key (rooflinelib.profiling.capstone) and page: a wrong verdict's
hint quotes the ridge the page printed (E1), a float64 start value (``s = 0.0``, ``-math.inf``) is refused
(E2), the fused kernel's stride-1 slip gets the stride hint, not a race hint (E-stride), the exp's cost is
an inference from the recorded total (E3), and the clarity items (Part 2's rule, Part 4's modes, the
copy-roof hedge in the model answer, the model answer's split, the compile note once per report)."""
import types
from pathlib import Path

import nbformat
import pytest

from support import simulated  # noqa: F401  (the simulator set up as test_capstone sets it up)

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone, softmax_targets  # noqa: E402
from test_capstone_review32 import _solution  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / folder / "06_place_your_kernel_capstone.ipynb" for folder in ("solutions", "exercises")]
FUSED_LOAD = "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c] = x[r, c]\n"
FUSED_STRIDE_ONE = "    for c in range(t, x.shape[1]):\n        row[c] = x[r, c]\n"
FUSED_STARTS = ("    m = float32(-math.inf)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c]",
                "    s = float32(0)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        row[c] = math")


def _markdown(path) -> list:
    return [c.source for c in nbformat.read(str(path), as_version=4).cells if c.cell_type == "markdown"]


def _recorded_machine():
    from rooflinelib.modes import detect_mode
    lab1, _ = capstone.lab1_ceilings(detect_mode("recorded"))
    return lab1.machine


# --- E1: the ridge the hint quotes ------------------------------------------------------------------

def test_a_wrong_verdict_quotes_the_printed_ridge_and_names_the_profiles_roof():
    machine = _recorded_machine()
    printed = machine.roofline("fp32", "dram").ridge  # what Part 3's cell prints
    recorded, _ = capstone.recorded_pair()
    graded = capstone.recorded_softmax(recorded)
    got = capstone.check_verdicts({"3-pass": "compute", "fused": "compute"}, graded, machine,
                                  softmax_targets.ROWS, softmax_targets.COLS)
    for check in got.checks:
        assert check.status == "fail", got
        assert f"the ridge printed above, {printed:.3g} FLOP/byte" in check.message, check
        assert "taken on the copy roof, 4,256 GB/s, whose ridge is 15.5 FLOP/byte" in check.message, check
        assert not check.message.endswith("its profile's ridge, 15.5 FLOP/byte"), check


def test_a_made_up_setup_quotes_its_own_ridge():
    # no profile: the analytic counts on a made-up machine whose ridge is 3 FLOP/byte
    line = types.SimpleNamespace(ridge=3.0, classify=lambda intensity: types.SimpleNamespace(side="memory"))
    machine = types.SimpleNamespace(roofline=lambda compute, memory: line)
    got = capstone.check_verdicts({"3-pass": "compute", "fused": "memory"}, {}, machine, 8, 256)
    assert [c.status for c in got.checks] == ["fail", "pass"], got
    assert got.checks[0].message.endswith("compare its intensity with the ridge printed above, 3 FLOP/byte"), got
    # a profile on the printed roof names one ridge only
    profile = types.SimpleNamespace(ridge=3.0, side="memory", memory="dram", peak_gbps=100.0)
    assert capstone._verdict_ridge(profile, machine) == "the ridge printed above, 3 FLOP/byte"


# --- E2: float64 start values ------------------------------------------------------------------------

def test_a_float64_start_value_is_refused_with_the_line_and_the_fix():
    inf = _solution([(FUSED_STARTS[0], FUSED_STARTS[0].replace("float32(-math.inf)", "-math.inf"))])
    said = capstone._fp64_constant(inf["fused_passes"](capstone.softmax_buffers()))
    assert said.startswith("fused_body: the line `m = -math.inf` starts a value at -math.inf, a float64 constant"), said
    assert "runs in fp64: write float32(-math.inf)" in said and "\n" not in said, said
    zero = _solution([(FUSED_STARTS[1], FUSED_STARTS[1].replace("float32(0)", "0.0"))])
    said = capstone._fp64_constant(zero["fused_passes"](capstone.softmax_buffers()))
    assert "the line `s = 0.0`" in said and "write float32(0.0)" in said, said
    three = _solution([("    s = float32(0)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        v",
                        "    s = 0.0\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        v")])
    assert "exp_sum_body: the line `s = 0.0`" in capstone._fp64_constant(
        three["three_pass_passes"](capstone.softmax_buffers()))


def test_the_right_styles_have_no_float64_start_value():
    atomic = ("    s = block_reduce(s, part, False)\n    if t == 0:\n        sums[r] = s\n",
              "    if t == 0:\n        sums[r] = float32(0)\n    cuda.syncthreads()\n    cuda.atomic.add(sums, r, s)\n")
    divide = ("        y[r, c] = e[r, c] * inv\n", "        y[r, c] = e[r, c] / sums[r]\n")
    first = ("    m = float32(-math.inf)\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        m = max",
             "    m = x[r, 0]\n    k = 0\n    for c in range(t, x.shape[1], cuda.blockDim.x):\n        m = max")
    atomic_max = ("    m = block_reduce(m, part, True)\n    if t == 0:\n        maxima[r] = m\n",
                  "    if t == 0:\n        maxima[r] = -math.inf\n    cuda.syncthreads()\n    cuda.atomic.max(maxima, r, m)\n")
    # the model, an atomic sum, a division, integer 0, an array entry set to -inf (stored as the array's float32)
    for replace in ((), [atomic], [divide], [first], [atomic_max]):
        k = _solution(replace)
        for passes in ("three_pass_passes", "fused_passes"):
            assert capstone._fp64_constant(k[passes](capstone.softmax_buffers())) == "", (replace, passes)


# --- E-stride: the fused kernel's stride of 1 ---------------------------------------------------------

def test_the_stride_source_check_finds_the_fused_slip_and_not_the_model():
    wrong = _solution([(FUSED_LOAD, FUSED_STRIDE_ONE)])
    assert capstone._stride_one_loop(wrong["fused_passes"](capstone.softmax_buffers())) == \
        "for c in range(t, x.shape[1]):"
    good = _solution()
    for passes in ("three_pass_passes", "fused_passes"):
        assert capstone._stride_one_loop(good[passes](capstone.softmax_buffers())) == "", passes
    serial = _solution([(FUSED_LOAD, "    for c in range(0, x.shape[1]):\n        row[c] = x[r, c]\n")])
    assert capstone._stride_one_loop(serial["fused_passes"](capstone.softmax_buffers())) == ""


@pytest.mark.slow
def test_the_fused_stride_slip_gets_the_stride_hint_and_a_float64_start_is_refused():
    good = _solution()
    wrong = _solution([(FUSED_LOAD, FUSED_STRIDE_ONE)])
    got = capstone.check_kernels(good["three_pass_passes"], wrong["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"], got
    said = got.checks[1].message
    assert "the loop `for c in range(t, x.shape[1]):` has a stride of 1" in said, said
    assert "range(t, cols, cuda.blockDim.x)" in said and "coalesced" in said, said
    assert "syncthreads" not in said, said
    fp64 = _solution([(FUSED_STARTS[0], FUSED_STARTS[0].replace("float32(-math.inf)", "-math.inf")),
                      (FUSED_STARTS[1], FUSED_STARTS[1].replace("float32(0)", "0.0"))])
    got = capstone.check_kernels(good["three_pass_passes"], fp64["fused_passes"])
    assert [c.status for c in got.checks] == ["pass", "fail"], got
    assert "right output, but fused_body: the line `m = -math.inf`" in got.checks[1].message, got


# --- E3 and the page's clarity items -------------------------------------------------------------------

def test_the_exp_cost_is_an_inference_from_the_recorded_total():
    for page in PAGES:
        note = next(m for m in _markdown(page) if m.startswith("On the recorded pair ncu counts 13.4"))
        # review 51f, 10: the rest of the total bounds the exp (the reciprocal and the reductions' adds are in it too)
        assert "That total, less the subtract, sum and multiply, leaves at most 10.4 per `exp`" in note, page
        assert "each `exp` costs 10.4" not in note, page
        assert "multiply-add" not in note and "compiles to" not in note, page


def test_part_2_gives_the_rule_in_two_sentences_then_the_caveat():
    for page in PAGES:
        part2 = " ".join(next(m for m in _markdown(page) if m.startswith("## Part 2")).split())
        assert "Count each array a launch touches once per launch. Leave out the per-row `maxima` and `sums`." \
            in part2, page
        # review 51: the fused kernel makes no re-read of x (its later loops read the row from shared
        # memory): the caveat no longer says it does
        assert part2.endswith("A re-read within one launch is counted once, as if cached: that holds only while "
                              "the re-read data fits on chip."), page
        assert "as the fused kernel's row in shared memory does" not in part2, page


def test_part_4_gives_one_line_per_mode_and_part_5_no_hedge():
    for page in PAGES:
        md = _markdown(page)
        part4 = next(m for m in md if m.startswith("## Part 4")).splitlines()
        modes = [line for line in part4 if line.startswith("- **")]
        assert [line.split(":**")[0] for line in modes] == ["- **GPU", "- **CPU", "- **Recorded"], page
        assert "registers, not in shared memory" in modes[2], page
        part5 = " ".join(next(m for m in md if m.startswith("## Part 5")).split())
        assert "if anything generous" not in part5 and "Pass 1 only reads" not in part5, page


def test_the_model_answer_gives_the_upper_bound_and_the_split_as_a_sum():
    recorded, _ = capstone.recorded_pair()
    pair = capstone.recorded_softmax(recorded)
    model = capstone.model_gap("the bytes held, the bandwidth did not, launches are small", pair,
                               capstone.RECORDED_WHERE, copy_gbps=capstone.RECORDED_PROFILES_COPY_GBPS)
    lines = model.model_answer.split("\n")
    assert lines[2].endswith("The 74% is an upper bound: pass 1 only reads, which streams faster than a copy."), lines
    assert lines[3].startswith("- Where the extra 72.9 us went (beyond the fused kernel's rate): about 12 us "
                               "launches and gaps (within the two runs' noise) + 60.6 us passes"), lines
    assert "(Nsight Compute flushed" not in lines[3], lines


def test_the_compile_note_is_said_once_under_the_report():
    ok = capstone.Check("q", "pass", "correct")
    noted = capstone.NotedReport("your kernels", (ok, ok), "Note: the compile check did not run")
    assert str(noted).count("compile check did not run") == 1 and str(noted).endswith("did not run"), noted
    assert noted._repr_html_().count("compile check did not run") == 1
    assert not any(capstone.NOT_COMPILED in c.message for c in noted.checks)
    source = Path(capstone.__file__).read_text()
    assert 'float64 softmax){not_compiled}' not in source  # the PASS line no longer carries it
