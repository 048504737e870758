"""The keys of exercises 2, 3 and 4 after review 11b: the crossover s must reach the ridge,
decode's factor-2 slips hear decode's causes, the rounding hint only where a rounding can explain
the miss, and exercise 2's graph length, row 8's "fuse" and row 9's MMAs."""
import pytest

from rooflinelib.core import operators as ops
from rooflinelib.core.machines import H200, MI300X
from rooflinelib.core.vocabulary import BF16_TENSOR
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03
from rooflinelib.exercises import ex04_place_kernel as ex04
from rooflinelib.exercises.grading import NOT_ANSWERED, check_number


def _crossover(s_mi300x, s_h200):
    checks = ex03.check_crossover(246.7, s_mi300x, "no", 206.1, s_h200).checks
    return checks[1], checks[4]


@pytest.mark.parametrize("gpu, below, key", [("MI300X", 480, 489), ("H200", 402, 409)])
def test_a_crossover_below_the_key_does_not_reach_the_ridge(gpu, below, key):
    # K3-1: 480 (MI300X) and 402 (H200) passed within a symmetric 2%, yet neither reaches its ridge
    machine = {"MI300X": MI300X, "H200": H200}[gpu]
    ridge = machine.ridge(BF16_TENSOR)
    assert ops.attention(below, 128, fused=True, dtype="bf16").intensity < ridge
    assert ops.attention(key, 128, fused=True, dtype="bf16").intensity >= ridge
    index = 0 if gpu == "MI300X" else 1
    for answer in (below, key - 1):
        check = _crossover(*((answer, 409) if index == 0 else (489, answer)))[index]
        assert check.status == "fail" and "still below the ridge" in check.message, check
    for answer in (key, round(key * 1.01), int(key * 1.02)):
        check = _crossover(*((answer, 409) if index == 0 else (489, answer)))[index]
        assert check.passed, check
    too_high = _crossover(*((int(key * 1.03), 409) if index == 0 else (489, int(key * 1.03))))[index]
    assert too_high.status == "fail" and "smaller s already reaches" in too_high.message
    slip = _crossover(*((2 * key, 409) if index == 0 else (489, 2 * key)))[index]
    assert slip.status == "fail" and "factor of 2" in slip.message


def test_decode_off_by_two_hears_decodes_causes_not_a_copy():
    # K3-2: 0.5 for 1.01 heard "a copy both reads and writes"; decode copies nothing
    decode = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype="bf16", queries=1).intensity
    gqa = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype="bf16", queries=1,
                        heads_per_kv=ex03.GQA_GROUP).intensity
    causal = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype="bf16", causal=True).intensity
    for factor, words in ((0.5, "2 FLOPs"), (2.0, "all of K and all of V")):
        checks = ex03.check_stretch(causal, factor * decode, "memory", factor * gqa).checks
        for check in (checks[1], checks[3]):
            assert check.status == "fail" and words in check.message
            assert "copy" not in check.message


@pytest.mark.parametrize("value, key, unit, rtol, rounding", [
    (12, 12.288, "ns", 0.02, True),      # two significant figures
    (0.0835, 0.0833, "", 0.001, True),   # within 1%, under a tighter tolerance
    (0.793, 0.8217, "fraction", 0.03, False),  # the fraction against the wrong roof
    (1.0, 0.967, "fraction", 0.03, False),     # a claim, not a rounding
    (15, 12.288, "ns", 0.02, False),
])
def test_the_rounding_hint_only_where_a_rounding_explains_the_miss(value, key, unit, rtol, rounding):
    # K4-1: every miss within 5% heard "if you rounded, keep three significant figures"
    check = check_number(value, key, "q", unit=unit, rtol=rtol)
    assert check.status == "fail"
    assert ("if you rounded" in check.message) is rounding, check.message


def test_the_fma_fraction_against_i_times_c_alone_names_the_roof():
    setup = ex04.prepare("recorded", progress=None)
    fma = ex04._keys(setup)["fma"]
    wrong = fma["achieved"] / (fma["intensity"] * setup.copy_gbps)
    assert abs(wrong / fma["fraction"] - 1) > 0.03
    check = ex04.check_placement(setup, *([NOT_ANSWERED] * 9), wrong).checks[-1]
    assert check.status == "fail" and "the roof you found above" in check.message
    assert "if you rounded" not in check.message
    assert ex04.check_placement(setup, *([NOT_ANSWERED] * 9), round(fma["fraction"], 2)).checks[-1].passed


def test_the_graph_length_hears_the_4_byte_slip_too():
    # K2-1: the dispatch length had it; 213,333 x 3 for the graph heard only "too high"
    _, graph = ex02._launch_lengths()
    check = ex02.check_launch_length(NOT_ANSWERED, 3 * graph, NOT_ANSWERED).checks[1]
    assert check.status == "fail" and "12 bytes, not 4" in check.message


def test_row_8_fuse_asks_what_makes_a_weight_serve_more_tokens():
    # K2-2: "fuse" on the projection GEMM heard the generic "reread the question"
    row = next(r for r in ex02.ROWS if r.number == 8)
    assert "serve more tokens" in row.step_hints["fuse"]


def test_row_9_defines_mma_at_first_use():
    # CX-1: "MMA" is not defined in notebooks 00-02
    row = next(r for r in ex02.ROWS if r.number == 9)
    assert "MMAs (matrix multiply-accumulates on the tensor cores)" in ex02.ROW_9_NOTE
    assert "MMA" not in row.description  # review 12b CK2-1: the row defers to the note


def _notebook_text(path):
    import nbformat
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    return " ".join(" ".join(c.source for c in nbformat.read(str(root / path), as_version=4).cells).split())


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_exercise_3_says_the_limit_is_approached_and_the_crossover_must_reach_the_ridge(folder):
    # CX-2: at d = 411 the limit equals the H200 ridge, which no finite s reaches
    ridge = H200.ridge(BF16_TENSOR)
    assert ops.attention_intensity_limit(411, fused=False, dtype="bf16") <= ridge
    assert ops.attention_intensity_limit(412, fused=False, dtype="bf16") > ridge
    text = _notebook_text(f"{folder}/03_attention_intensity.ipynb")
    assert "reaches the H200's bf16 ridge of 206 only from d = 411" not in text
    # review 44k1: the take-away is revealed after the student's own (ex03.model_takeaway)
    claim = "which it only approaches as s grows, exceeds the H200's bf16 ridge of 206 only for d ≥ 412"
    assert claim not in text
    assert claim in " ".join(ex03.model_takeaway("unfused levels off and fused grows with the length s").model_answer.split())
    # K3-1: the question says the crossover passes only at or above the key
    # (review 19g1: "below it" read as "below the ridge"; the key is what an answer is above)
    # review 27k1 K3-1: the floor is the exact crossover, integer or not
    # review 31k1 (keys 32a): the rule in one plain sentence
    assert ("below the exact crossover does not reach the ridge. Give the smallest whole `s` (up to "
            "2% above it passes); the exact crossover passes too.") in text
    assert "below it does not reach" not in text
