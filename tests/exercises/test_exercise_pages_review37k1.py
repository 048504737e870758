"""Review 37k1's page items for exercises 2 and 3: what the fused model assumes, and Part C's plan."""
import json

import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _markdown(stem: str, folder: str = "solutions") -> str:
    page = next((ROOT / folder).glob(f"{stem}_*.ipynb"))
    cells = json.loads(page.read_text())["cells"]
    return " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")


def test_exercise_3_says_the_fused_count_assumes_the_l2_serves_k_and_v_re_reads():
    # the key counts Q, K, V and O once (8sd bytes); a real kernel re-reads K and V per query block
    for folder in ("solutions", "exercises"):
        text = _markdown("03", folder)
        # review 51k1, Ex3-4: "a cache", not "the L2": the MI300X's L2 is 4 MB per XCD, and its
        # Infinity Cache would serve the re-reads there
        assert ("A real fused kernel re-reads `K` and `V` for each block of queries; the model assumes a cache "
                "serves those re-reads (at s = 8192 one head's `K` and `V` take 4.2 MB), so HBM sees each once.") in text
    assert round(8192 * 128 * 2 * 2 / 1e6, 1) == 4.2  # K and V, bf16, d = 128, in decimal MB


def test_exercise_2_part_c_says_which_kernel_each_later_question_returns_to():
    text = _markdown("02")
    assert "Three kernels (C1 to C3), then two questions that return to them: C4 to C1's add, C5 to C3's counters." in text
    assert "about the first of them and about counters" not in text
    assert "Stay with C1's GPU" in text and "C3's verdict came from a profiler's byte counters" in text


def test_review_38k1_cache_as_c1_or_c2s_limit_hears_why_not():
    # the take-away lists a cache level among the causes far under a roof; C2's data cannot show one
    from rooflinelib.exercises import ex02_classify as ex02
    from rooflinelib.exercises.grading import NOT_ANSWERED as N
    for answer in ("cache", "L2"):
        c2 = ex02.check_far_below(N, N, N, N, answer, N).checks[4]
        assert c2.status == "fail" and c2.message.startswith("nothing in C2's data"), c2.message
        assert "C3 is that case" in c2.message
        c1 = ex02.check_tiny_launch(N, N, N, answer, N).checks[3]
        assert c1.status == "fail" and "launch overhead" in c1.message, c1.message


@pytest.mark.parametrize("answer", ["fp8", "int8", "quantize weights to fp8", "int8 tensor cores"])
def test_review_39k1_row_7_refuses_a_type_this_gpu_lists_no_matrix_roof_for(answer):
    from rooflinelib.exercises import ex02_classify as ex02
    row7 = next(r for r in ex02._rows() if r.number == 7)
    check = ex02._check_first_step(row7, answer, {})
    assert check.status == "fail" and "this GPU lists no" in check.message and "roof" in check.message, check


@pytest.mark.parametrize("answer", ["bf16 tensor cores", "use bf16 matrix cores", "smaller dtype", "tensor cores"])
def test_review_39k1_row_7_reads_the_bf16_route_named_in_full(answer):
    from rooflinelib.exercises import ex02_classify as ex02
    row7 = next(r for r in ex02._rows() if r.number == 7)
    assert ex02._check_first_step(row7, answer, {}).passed


def test_review_39k1_row_8s_fp8_weights_still_pass():
    from rooflinelib.exercises import ex02_classify as ex02
    row8 = next(r for r in ex02._rows() if r.number == 8)
    assert ex02._check_first_step(row8, "fp8 weights", {}).passed
