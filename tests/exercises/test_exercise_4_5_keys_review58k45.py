"""Review 58 k45: keys 4 and 5.  Each test fails on the key before this round.

Key 4 on a CPU-like setup as the review's CPU run loaded it (Lab 1's best mix the copy, so B = C;
a busy machine's read ceiling far below what the sum then read): the FMA roof's B hint, the
origin row's noise advice, the model answer's noise aside, "B is neither kernel's mix", Part C's
opening word.  Key 5: qualified menu answers, and a speed-up written as the time saved."""
import json

import pytest

from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises import ex05_drills as ex05

from test_exercise_keys_review32b import made_up_setup

RECORDED = ex04.prepare("recorded", progress=None)
ATTEMPT = "the verdict depends on the ridge of the machine, not the kernel"
ADVICE = ("re-run `roofline measure` when no other program is busy before trusting these "
          "ceilings.")


def cpu_setup(best="copy", read=8.6, copy=32.5, write=20.0, p=234.6, p64=117.3, noisy=True,
              red_gflops=8.88, fma_gflops=190.0):
    """The review's CPU run, in its figures: P = 234.6 GFLOP/s, C = 32.5 GB/s (the best mix),
    R = 8.6 GB/s; the sum at 8.88 GFLOP/s (35.5 GB/s, about 4x R)."""
    best_gbps = {"copy": copy, "read": read, "write": write}[best]
    message = ("Your stored Lab 1 result." + ("".join(
        f" filler sentence {i} about this run's stored ceilings and where they came from."
        for i in range(30)) + " It was noisy (dram-read: this process got 69% of a core): "
        + ADVICE if noisy else ""))
    machine = Machine("this CPU", (Ceiling("dram", "memory", best_gbps, "Lab 1, spread 120.0%",
                                           f"DRAM ({best})"),
                                   Ceiling("fp32", "compute", p, "Lab 1, spread 30.0%", "fp32 FMA"),
                                   Ceiling("fp64", "compute", p64, "Lab 1, spread 30.0%", "fp64 FMA")),
                      kind="measured", provenance={"kind": "cpu"})
    n = 2 ** 24
    red = ex04.KernelRun("reduction", n, n / (red_gflops * 1e9), 0.05, 5, True, "cpu_sum", "CPU")
    fma = ex04.KernelRun("fma", n, 128 * n / (fma_gflops * 1e9), 0.05, 5, True, "cpu_sweep", "CPU")
    return ex04.Setup(machine, red, fma, "live", message, (), read, copy, 1.2, 0.3,
                      ("dram-read",) if noisy else ())


def _fma_roof_message(setup, answer):
    k = ex04._keys(setup)
    red, fma = k["reduction"], k["fma"]
    shown = ex04.check_placement(setup, red["intensity"], red["achieved"], red["roof"], red["side"],
                                 red["gbps"] / setup.read_gbps, fma["intensity"], fma["achieved"],
                                 answer, fma["side"], fma["fraction"])
    return next(line for line in str(shown).splitlines() if "FMA kernel roof" in line)


# --- key 4, item 1: the B hint only where B is not the copy -------------------------------------

def test_i_times_c_where_b_is_the_copy_hears_the_min_not_the_wrong_bandwidth():
    setup = cpu_setup()
    assert setup.peak_gbps == setup.copy_gbps
    wrong = ex04._keys(setup)["fma"]["intensity"] * setup.copy_gbps  # 520 > P
    for answer in (wrong, "520 GFLOP/s"):
        line = _fma_roof_message(setup, answer)
        assert "[TRY AGAIN]" in line and "judge it against the copy ceiling" not in line, line
        assert "I x C alone is above the compute roof" in line, line


def test_i_times_b_where_b_is_another_mix_still_hears_the_b_hint():
    setup = cpu_setup(best="write", write=40.0)  # I x B = 640, I x C = 520, both above P
    line = _fma_roof_message(setup, 16 * 40.0)
    assert "judge it against the copy ceiling C" in line and "min(P, I x C)" in line, line
    assert "[PASS]" in _fma_roof_message(setup, 234.6)


# --- key 4, item 2: a noisy Lab 1's advice shown whole; the ceiling suspect, not beaten ----------

def test_the_origin_row_shows_the_noise_advice_whole():
    setup = cpu_setup()
    assert len(setup.message) > 2000
    assert ADVICE in str(setup) and ADVICE in setup._repr_html_().replace("&#x27;", "'")


def test_far_past_the_read_ceiling_the_model_answer_says_measure_again():
    setup = cpu_setup()
    assert ex04._keys(setup)["reduction"]["gbps"] / setup.read_gbps > 4
    shown = str(ex04.model_verdict(setup, ATTEMPT))
    assert "a few percent" not in shown, shown
    assert "the read ceiling looks wrong, not beaten: Lab 1 flagged it NOISY" in shown, shown
    assert "Re-run `roofline measure` when no other program is busy" in shown
    # not flagged, but more than NOISY_IQR past it: suspect all the same, by the distance
    quiet = str(ex04.model_verdict(cpu_setup(noisy=False), ATTEMPT))
    assert "a few percent" not in quiet and "more than 10% past it, the read ceiling looks wrong" in quiet


def test_a_few_percent_past_the_read_ceiling_keeps_the_few_percent_aside():
    setup = cpu_setup(noisy=False, red_gflops=8.6 * 1.05 / 4)  # 5% past R, no flag
    shown = str(ex04.model_verdict(setup, ATTEMPT))
    assert "a kernel can pass it by a few percent" in shown and "looks wrong" not in shown


# --- key 4, item 3: "B is neither kernel's mix" only where true --------------------------------

@pytest.mark.parametrize("best, said", [
    ("copy", "(the same as P / C: B is the copy here, the FMA kernel's own mix)"),
    ("read", "B is the read here, the reduction's own mix"),
    ("write", "(not used: B is neither kernel's mix)")])
def test_the_p_over_b_row_names_b_as_a_kernels_mix_where_it_is(best, said):
    setup = cpu_setup(best=best, read=40.0 if best == "read" else 8.6, write=50.0 if best == "write" else 20.0)
    row = dict(setup.describe().rows)["ridge P / B"]
    assert said in row and (best == "write") == ("neither" in row), row


# --- key 4, item 4: a CPU's small rates keep three significant figures -------------------------

def test_cpu_rates_in_the_model_answer_keep_three_significant_figures():
    shown = str(ex04.model_verdict(cpu_setup(), ATTEMPT))
    assert "I x R = 2.15 GFLOP/s" in shown and "the run reached 8.88 GFLOP/s" in shown, shown
    assert "of 8.6 GB/s" in shown
    # the H200's stay in whole units
    assert "I x R = 1,127 GFLOP/s" in str(ex04.model_verdict(RECORDED, ATTEMPT))


# --- key 4, item 7: Part C's first word answers the question printed above it ------------------

@pytest.mark.parametrize("setup", [RECORDED, cpu_setup(), made_up_setup(35_600.0, 900.0, 556.0, 200.0),
                                   made_up_setup(66_000.0, 4_600.0, 4_300.0, 4_200.0)])
def test_part_c_opens_with_yes_or_no_to_the_same_verdict_question(setup):
    shown = ex04.model_verdict(setup, ATTEMPT)
    k = ex04._keys(setup)["fma"]
    same = ex04.side_of_ridge(k["intensity"], ex04.H200.ridge("fp32", "dram")) == k["side"]
    title, first = str(shown).split("\n")[:2]
    assert title == "[MODEL ANSWER] " + ex04.PART_C_QUESTION
    assert "same verdict" in title and "does the verdict depend" not in title
    assert first.startswith("Yes, the same verdict: " if same else "No, a different verdict: "), first
    # the page asks this question first, in these words
    assert "Would the FMA kernel get the same verdict against the H200's datasheet and against the " \
           "ceilings this notebook loaded?" in _markdown("solutions/04_place_your_kernel.ipynb")


def _markdown(path):
    cells = json.load(open(path, encoding="utf-8"))["cells"]
    return " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")


def test_the_recorded_part_c_answer_is_no():
    assert ex04.model_verdict(RECORDED, ATTEMPT).model_answer.startswith("No, a different verdict: ")


# --- key 5, item 1: "<option> (<note>)" and "<option>: <note>" read as the option ---------------

@pytest.mark.parametrize("menu, answer, option", [
    ("BOUNDS", "max (perfect overlap)", "max"), ("BOUNDS", "max: perfect overlap", "max"),
    ("BOUNDS", "max; perfect overlap", "max"), ("BOUNDS", "sum (no overlap)", "sum"),
    ("_LIMITERS", "unmodelled (occupancy/latency)", "unmodelled"), ("_FIRST_STEPS", "profile (ncu)", "profile"),
    ("_FIRST_STEPS", "profile: check occupancy", "profile"), ("_SIDES", "memory-bound (still)", "memory"),
    ("_SIDES", "memory (left of the ridge)", "memory"), ("RIDGE_MOVES", "right (higher intensity)", "right"),
    ("RIDGE_MOVES", "right: 6.7x", "right")])
def test_an_option_with_a_note_reads_as_the_option(menu, answer, option):
    assert getattr(ex05, menu).read(answer) == option


@pytest.mark.parametrize("menu, answer", [
    ("BOUNDS", "max: not the sum"), ("BOUNDS", "max (or sum)"), ("_LIMITERS", "unmodelled (launch)"),
    ("_LIMITERS", "unmodelled (latency)"), ("_LIMITERS", "compute (not memory)"), ("_FIRST_STEPS", "fuse (tile)"),
    ("_SIDES", "memory-bound (at the ridge)"), ("_SIDES", "memory (near the ridge)"),
    ("_SIDES", "compute (past the ridge)"), ("_SIDES", "compute-bound (memory before)"),
    ("RIDGE_MOVES", "right (not left)")])
def test_a_note_that_names_another_option_stays_unreadable(menu, answer):
    with pytest.raises(ex05.AnswerError):
        getattr(ex05, menu)._read(answer)


def test_qualified_answers_pass_in_the_drills_and_wrong_ones_do_not():
    assert str(ex05.check_drill1("max (perfect overlap)", 2)).startswith("Drill 1: 2 correct")
    assert str(ex05.check_drill4(0.125, 0.625, "still memory-bound: 0.625 < 20", 5)).startswith("Drill 4: 4 correct")
    assert str(ex05.check_drill4(0.125, 0.625, "memory-bound (still)", 5)).startswith("Drill 4: 4 correct")
    assert str(ex05.check_drill6("right (higher intensity)", "20/3")).startswith("Drill 6: 2 correct")
    assert "[PASS] side" not in str(ex05.check_drill4(0.125, 0.625, "compute-bound (now)", 5))
    assert not str(ex05.check_drill6("left (lower intensity)", "20/3")).startswith("Drill 6: 2 correct")
    assert "[TRY AGAIN] the optimistic step: adding the two times" in str(ex05.check_drill1("sum (no overlap)", 2))


# --- key 5, item 2: a speed-up written as the share of time saved --------------------------------

@pytest.mark.parametrize("answer", ["80%", 0.8, "0.8"])
def test_the_time_saved_hears_that_a_speedup_is_before_over_after(answer):
    shown = str(ex05.check_drill4(0.125, 0.625, "memory", answer))
    assert "share of the time saved" in shown and "time before over the time after" in shown, shown
    assert not shown.startswith("Drill 4: 4 correct")
    assert str(ex05.check_drill4(0.125, 0.625, "memory", "500%")).startswith("Drill 4: 4 correct")


# --- key 4, items 5 and 6: the FMA fraction against the datasheet, and with FMAs counted as 1 ---

def _fma_fraction_message(setup, answer):
    k = ex04._keys(setup)
    red, fma = k["reduction"], k["fma"]
    shown = ex04.check_placement(setup, red["intensity"], red["achieved"], red["roof"], red["side"],
                                 red["gbps"] / setup.read_gbps, fma["intensity"], fma["achieved"],
                                 fma["roof"], fma["side"], answer)
    return next(line for line in str(shown).splitlines() if "FMA kernel fraction" in line)


def test_a_fraction_of_the_datasheet_peak_passes_with_the_roofs_note():
    fma = ex04._keys(RECORDED)["fma"]
    for answer in (fma["achieved"] / ex04.H200.ceiling("fp32").value, 0.812, "81.2%"):
        line = _fma_fraction_message(RECORDED, answer)
        assert "[PASS]" in line and "the H200 datasheet's fp32 peak" in line, line
    for answer in (fma["fraction"], 0.82, "82%"):
        line = _fma_fraction_message(RECORDED, answer)
        assert "[PASS]" in line and "datasheet" not in line, line


def test_a_fraction_with_each_multiply_add_counted_once_hears_it():
    fma = ex04._keys(RECORDED)["fma"]
    half = fma["achieved"] / 2 / min(RECORDED.peak_gflops, fma["intensity"] / 2 * RECORDED.copy_gbps)
    line = _fma_fraction_message(RECORDED, round(half, 3))
    assert "[TRY AGAIN]" in line and "each multiply-add as 1 FLOP, in the rate and in the roof alike" in line, line
    # where P binds at I / 2 (a CPU-like P), that fraction differs from I x C alone's: named alone
    setup = cpu_setup(p=100.0, noisy=False, fma_gflops=80.0)
    k = ex04._keys(setup)["fma"]
    half = k["achieved"] / 2 / min(setup.peak_gflops, k["intensity"] / 2 * setup.copy_gbps)
    assert abs(half / k["fraction"] - 1) > 0.05
    line = _fma_fraction_message(setup, round(half, 4))
    assert "[TRY AGAIN]" in line and "each multiply-add as 1 FLOP" in line, line
