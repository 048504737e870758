"""Review 56f's items on the capstone's key (rooflinelib.profiling.capstone, solutions/06): a write-after-write
race on the shared row was told to put its barrier "after the last read", which points inside thread 0's branch;
a live run whose timings were far too noisy still got a bandwidth verdict; a byte formula in GB or a prediction
typed as a percent got only "too low"/"too high"; Part 3 named its roof and size otherwise than the hint and
Part 4; cell 6 promised that every race fails."""
import pytest

from support import simulated  # noqa: F401  (the simulator set up as test_capstone sets it up)

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone, races  # noqa: E402
from test_capstone_review32 import _solution  # noqa: E402
from test_capstone import _FUSED_AFTER_ARRAYS  # noqa: E402

# --- 1: two writes of one shared entry ----------------------------------------------------------------

# the model fused kernel up to its last loop (one home: test_capstone's kernel text)
_MODEL_FUSED = _FUSED_AFTER_ARRAYS[:_FUSED_AFTER_ARRAYS.index(
    "    for c in range(t, x.shape[1], cuda.blockDim.x):\n        y[r, c]")]
# every thread loads its part of the row; thread 0 alone finds the max and overwrites the row in place
_THREAD0 = """    for c in range(t, x.shape[1], cuda.blockDim.x):
        row[c] = x[r, c]
{barrier}    if t == 0:
        m = float32(-math.inf)
        for c in range(x.shape[1]):
            m = max(m, row[c])
        s = float32(0)
        for c in range(x.shape[1]):
            row[c] = math.exp(row[c] - m)
            s += row[c]
        part[0] = s
    cuda.syncthreads()
    inv = float32(1) / part[0]
"""


def _thread0(barrier: str = ""):
    return _solution([(_MODEL_FUSED, _THREAD0.format(barrier=barrier))])


def test_a_write_after_write_race_names_both_writes_and_the_barrier_before_the_branch():
    k = _thread0()
    check = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    assert [c.status for c in check.checks] == ["pass", "fail"], check
    said = check.checks[1].message
    assert "last read" not in said and "overwrites it" not in said, said
    if "two threads write one shared-array entry" not in said:  # the simulator ran a load after thread 0's read
        assert "(the write `row[c] = x[r, c]`, the read `m = max(m, row[c])`)" in said, said
        assert "put a cuda.syncthreads() after the loop that writes the shared array" in said, said
        return
    assert "first `row[c] = x[r, c]`, then `row[c] = math.exp(row[c] - m)`" in said, said
    assert ("put a cuda.syncthreads() after the loop `for c in range(t, x.shape[1], cuda.blockDim.x):` that writes "
            "`row[c] = x[r, c]` and before `if t == 0:`") in said, said
    assert "last read" not in said and "overwrites it" not in said, said


def test_the_write_after_write_hint_on_its_own_race_object():
    # the race as the simulator reported it: thread 0's in-place write first, another thread's load second
    race = races.Race(1, 0, 1, "row[c] = math.exp(row[c] - m)", "row[c] = x[r, c]", "write after write")
    said = capstone._race_hint(race, _thread0()["fused_passes"](capstone.softmax_buffers()))
    assert said.startswith("two threads write one shared-array entry with no cuda.syncthreads() between the two: "
                           "first `row[c] = x[r, c]`, then `row[c] = math.exp(row[c] - m)`."), said
    assert "after the loop `for c in range(t, x.shape[1], cuda.blockDim.x):` that writes" in said, said
    assert "before `if t == 0:`" in said and "last read" not in said, said
    # the read-first hints keep their words
    read = races.Race(1, 0, 1, "row[c] = math.exp(row[c] - m)", "m = max(m, row[c])", "write after read")
    assert "after the last read of the entry and before the write that overwrites it" in capstone._race_hint(
        read, _thread0()["fused_passes"](capstone.softmax_buffers()))


def test_following_the_write_after_write_hint_gives_a_kernel_that_passes():
    k = _thread0("    cuda.syncthreads()\n")  # where the hint says: after the load loop, before `if t == 0:`
    check = capstone.check_kernels(k["three_pass_passes"], k["fused_passes"])
    assert [c.status for c in check.checks] == ["pass", "pass"], check


# --- 2: a live run too noisy to judge the bandwidth claim -------------------------------------------------

def _recorded_pair():
    from rooflinelib.profiling import recorded
    return {v: recorded.recorded_profiles()[name] for v, name in capstone.RECORDED_SOFTMAX.items()}


def _with_samples(p, spread_middle: float):
    """``p`` with 12 timed repeats around its median whose middle half spreads over ``spread_middle`` of it."""
    import dataclasses
    m = p.seconds
    lows, highs = [m * (1 - spread_middle / 2)] * 5, [m * (1 + spread_middle / 2)] * 5
    return dataclasses.replace(p, samples_s=tuple(lows + [m, m] + highs))


def test_a_noisy_live_run_states_no_bandwidth_verdict():
    from rooflinelib.measure.protocol import NOISY_IQR
    raw = _recorded_pair()
    copy = capstone.RECORDED_PROFILES_COPY_GBPS
    noisy = {"3-pass": _with_samples(raw["3-pass"], 0.5), "fused": raw["fused"]}
    text = capstone.comparison(noisy, 2.5, where="this run", copy_gbps=copy)
    assert "too noisy to judge the equal-bandwidth claim" in text, text
    assert "the middle half of the timed repeats spread over 50% of their median for the 3-pass version (12 " \
           "repeats)" in text, text
    assert f", more than the {NOISY_IQR:.0%} past which Lab 1 calls a measurement noisy" in text, text
    assert "Rerun Part 4 on an idle machine" in text and "gained more" not in text, text
    assert "where the time went" not in text, text
    model = capstone.model_gap("the bytes held and the bandwidth did not hold here", noisy, "this run", copy_gbps=copy)
    said = str(model)
    assert "This run is too noisy to judge the second" in said and "Rerun Part 4 on an idle machine" in said, said
    assert "Equal bandwidth did not" not in said and "Where the extra" not in said, said
    # the fused kernel alone noisy is named as such
    text = capstone.comparison({"3-pass": raw["3-pass"], "fused": _with_samples(raw["fused"], 0.3)}, 2.5,
                               where="this run", copy_gbps=copy)
    assert "spread over 30% of their median for the fused version (12 repeats)" in text, text
    assert "3-pass version (" not in text, text


def test_a_quiet_live_run_and_the_recorded_pair_keep_their_verdict():
    raw = _recorded_pair()
    copy = capstone.RECORDED_PROFILES_COPY_GBPS
    quiet = {v: _with_samples(p, 0.05) for v, p in raw.items()}
    for profiles, where in ((quiet, "this run"), ({v: _with_samples(p, 0.5) for v, p in raw.items()},
                                                  capstone.RECORDED_WHERE)):
        text = capstone.comparison(profiles, 2.5, where=where, copy_gbps=copy)
        assert "fusion gained more than predicted" in text and "too noisy" not in text, (where, text)
        said = str(capstone.model_gap("the bytes held and the bandwidth did not hold here", profiles, where,
                                      copy_gbps=copy))
        assert "Equal bandwidth did not" in said and "too noisy" not in said, (where, said)


# --- 4: a byte formula in GB or GiB, a prediction typed as a percent -------------------------------------

def test_a_byte_formula_in_gb_or_gib_is_told_the_formula_returns_bytes():
    k = _solution()
    counted = {}
    for rows, cols in capstone.SIM_SIZES:
        b = capstone.softmax_buffers(rows, cols)
        counted[(rows, cols)] = (capstone.count_passes(k["three_pass_passes"](b), rows, capstone.SIM_THREADS),
                                 capstone.count_passes(k["fused_passes"](b), rows, capstone.SIM_THREADS))
    for i, (name, per_element) in enumerate((("3-pass bytes", 20), ("fused bytes", 8))):
        at = {s: c[i] for s, c in counted.items()}
        assert capstone.check_byte_formula(lambda rows, cols: per_element * rows * cols, at, name).passed
        for divisor, unit in ((1e9, "GB (divided by 1e9)"), (2 ** 30, "GiB (divided by 2**30)")):
            got = capstone.check_byte_formula(lambda rows, cols: per_element * rows * cols / divisor, at, name)
            assert got.status == "fail" and f"that is the count in {unit}: the formula returns bytes" in got.message, got
        # a wrong count in GB is not told it is right but for the unit
        got = capstone.check_byte_formula(lambda rows, cols: (per_element + 4) * rows * cols / 1e9, at, name)
        assert got.status == "fail" and "the formula returns bytes" not in got.message, got


def test_a_prediction_of_250_is_asked_whether_it_is_a_percent():
    rows, cols = capstone.SIM_ROWS, capstone.SIM_COLS
    got = capstone.check_prediction(250, rows, cols)
    assert got.status == "fail" and "a percent? 250% is 2.5x: give the ratio itself" in got.message, got
    for right in (2.5, "2.5x", "250%"):
        assert capstone.check_prediction(right, rows, cols).passed, right
    assert "a percent?" not in capstone.check_prediction(300, rows, cols).message


# --- 3, 5, 6: the page's words against what the checks and the cells do ------------------------------------

def _nb_cell(i):
    import json
    from pathlib import Path
    nb = json.loads((Path(__file__).resolve().parents[2] / "solutions" / "06_place_your_kernel_capstone.ipynb").read_text())
    cell = nb["cells"][i]
    out = "".join("".join(o.get("text", "")) for o in cell.get("outputs", ()))
    return " ".join("".join(cell["source"]).split()), out


def test_part_3_prints_the_roof_by_the_name_the_verdict_hint_uses():
    from rooflinelib import modes
    source, printed = _nb_cell(14)
    machine = modes.load_ceilings().machine  # the recorded run, as the stored output was made
    title = machine.ceiling("dram").title
    assert f"GFLOP/s over {title} " in printed, printed
    graded = capstone.recorded_softmax(capstone.recorded_pair()[0])  # on the copy roof, as Part 4 grades them
    hint = capstone.check_verdicts({"3-pass": "compute", "fused": "memory"}, graded, machine,
                                   capstone.softmax_targets.ROWS, capstone.softmax_targets.COLS).checks[0].message
    assert f"(fp32 over the {title} roof)" in hint, hint


def test_part_3_says_which_size_each_mode_profiles():
    _, printed = _nb_cell(14)
    rows, cols = capstone.softmax_targets.ROWS, capstone.softmax_targets.COLS
    assert (f"the profiled size: {rows:,} x {cols:,} float32 on a GPU and in the recorded profiles, "
            f"{capstone.CPU_ROWS:,} x {capstone.CPU_COLS:,} on a CPU") in printed, printed
    assert "the GPU's profiled size" not in printed
    # the prediction Part 3 checks is a byte ratio, the same at both sizes
    assert capstone.model_speedup(rows, cols) == capstone.model_speedup(capstone.CPU_ROWS, capstone.CPU_COLS)


def test_the_race_rule_says_only_what_the_check_refuses():
    text, _ = _nb_cell(6)
    assert "Races that can change the result fail." in text, text
    assert "Races on shared or global memory fail" not in text
