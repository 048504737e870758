"""Keys 1, 2, 3 and 5 after reviews 44k1 and 44k2.  Each test calls a check (or reads a generated
page) with what the review tried, and fails on the key before this round."""
import pytest

from rooflinelib.core.model import Ceiling, Machine
from rooflinelib.core.placement import KernelPoint
from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.views.plotting import roofline_figure


# --- key 1, item 1: a bandwidth roof in GB/s, and the compute roof named by its peak ------------

@pytest.mark.parametrize("answers", [
    ("3000 GB/s", "compute", "2000 GB/s", "compute"),
    ("memory (3000 GB/s)", "peak compute", "memory (2000 GB/s)", "compute peak"),
    ("3,000 GB/s", "peak FLOP/s", "the 2000 GB/s roof", "compute throughput"),
])
def test_key1_roofs_in_gb_s_and_peak_spellings_pass(answers):
    result = ex01.check_active_roofs(*answers)
    assert all(c.passed for c in result.checks), result


def test_key1_the_other_cases_bandwidth_in_gb_s_is_still_refused():
    check = ex01.check_active_roofs("compute", "compute", "3000 GB/s", "compute").checks[2]
    assert check.status == "fail"
    assert "3 TB/s is the roof of the other case's bandwidth" in check.message


# --- key 1, item 2: filler words alone do not say which roof ------------------------------------

@pytest.mark.parametrize("answer", ["the roof", "roof", "the"])
def test_key1_filler_words_hear_which_roof_not_empty(answer):
    check = ex01.check_active_roofs(answer, "compute", "memory", "compute").checks[0]
    assert check.status == "invalid", check
    assert "empty" not in check.message
    assert "does not say which roof" in check.message


# --- key 1, item 3: the two 20 FLOP/byte points with their memory ceilings swapped ----------------

def _figure_with_swapped_ceilings():
    machine = Machine("g", ceilings=(Ceiling("dram", "memory", 3_000),
                                     Ceiling("dram-2tbs", "memory", 2_000),
                                     Ceiling("fp32", "compute", 120_000)))
    points = [KernelPoint("20 FLOP/B at 3 TB/s", 20, 1, 60_000, memory_ceiling="dram-2tbs"),
              KernelPoint("20 FLOP/B at 2 TB/s", 20, 1, 40_000),
              KernelPoint("80 FLOP/B at 3 TB/s", 80, 1, 120_000),
              KernelPoint("80 FLOP/B at 2 TB/s", 80, 1, 120_000, memory_ceiling="dram-2tbs")]
    return roofline_figure(machine, points), points


def test_key1_swapped_memory_ceilings_are_named_as_swapped():
    check = ex01.check_figure(*_figure_with_swapped_ceilings())
    assert check.status == "fail"
    assert "memory ceilings swapped" in check.message
    assert "swap their memory_ceiling" in check.message
    # the old hint sent the student to each point's "own bandwidth", naming the wrong point
    assert "use this point's own bandwidth" not in check.message


# --- key 2, row 7: TF32 is refused on this table, with why ---------------------------------------

def test_key2_row7_tf32_hint_grants_the_real_gpu_move_and_says_why_not_here():
    assert not ex02.lists_tf32_roof()
    check = ex02.check_row(7, 4096 / 6, "compute", "compute", "compute", "use TF32 tensor cores").checks[4]
    assert check.status == "fail", check
    assert "on a real GPU" in check.message and "usual first move" in check.message
    assert "lists no TF32 roof" in check.message


# --- key 5, drill 6: no FMA/copy factor-of-2 hint where nothing is counted -------------------------

@pytest.mark.parametrize("factor", [3.33, 13.3])
def test_key5_drill6_has_no_factor_of_two_counting_hint(factor):
    check = ex05.check_drill6("right", factor).checks[1]
    assert check.status == "fail"
    assert "multiply-add" not in check.message and "recount" not in check.message


# --- key 3: the student page states no answer before the student gives it ------------------------

import json  # noqa: E402
from pathlib import Path  # noqa: E402

from rooflinelib.exercises import ex03_attention as ex03  # noqa: E402
from rooflinelib.exercises.grading import NOT_ANSWERED  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: what the page used to say before the checks: Part B's growths and limit, Part C's verdict and
#: H200 ridge, Part D's decode intensity
ANSWERS = ("no sequence length", "few hundred tokens", "saturates", "d / 2", "(4d + 5) / 8", "206",
           "near 1 FLOP/byte", "memory-bound at every length", "rescues")


def _text(cell) -> str:
    outputs = " ".join(str(o.get("text", "")) + " ".join(map(str, o.get("data", {}).values()))
                       for o in cell.get("outputs", []))
    return " ".join(("".join(cell["source"]) + " " + outputs).split())


def test_key3_the_student_page_shows_no_answer_before_its_answer_cell():
    cells = json.loads((ROOT / "exercises" / "03_attention_intensity.ipynb").read_text())["cells"]
    answers = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and "NOT_ANSWERED" in "".join(c["source"])
               and "import" not in "".join(c["source"])]
    assert len(answers) == 5  # Parts A to D and the take-away
    before = " ".join(_text(c) for c in cells[:answers[-1]])
    for answer in ANSWERS:
        assert answer not in before, answer


def test_key3_the_conclusions_are_revealed_after_an_attempt():
    assert not ex03.model_takeaway(NOT_ANSWERED).revealed
    assert not ex03.model_takeaway("fused grows").revealed
    model = ex03.model_takeaway("Unfused levels off near d/2; fused grows with s past the ridge; decode is memory-bound.")
    assert model.revealed
    text = " ".join(model.model_answer.split())
    for claim in ("at d = 128 no sequence length brings it to the matrix cores' ridge",
                  "which it only approaches as s grows, exceeds the H200's bf16 ridge of 206 only for d ≥ 412",
                  "reaches the tensor ridge at a few hundred tokens (409 on the H200, 489 on the MI300X)",
                  "lands near 1 FLOP/byte, memory-bound"):
        assert claim in text, claim
    assert "at most 1/1.5 ≈ 67% of the tensor roof on the H200" in " ".join(model.also)
