"""Keys 1, 2 and 3 after review 31k1.  Each test calls a check with an answer the review tried and
fails on the key before this round."""
from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises.grading import AnswerError, read_number

import pytest


def _message(answer, unit="TFLOP/s"):
    with pytest.raises(AnswerError) as caught:
        read_number(answer, unit=unit)
    return str(caught.value)


# --- fix 1: a formula with a call and a comma is no thousands slip (review 31k1, key 1 item 1) ----

def test_fix1_call_with_a_comma_says_plain_arithmetic_not_thousands():
    for answer in ("min(120, 20*3)", "min(120,20*3) TFLOP/s", "2*(3,4)"):
        message = _message(answer)
        assert "thousands" not in message, message
        assert "plain arithmetic only" in message and "without quotes" in message, message
    check = ex01.check_predictions("min(120, 20*3)", 120, 40, 120).checks[0]
    assert check.status == "invalid" and "without quotes" in check.message, check


def test_fix1_a_bare_comma_keeps_the_thousands_hint():
    for answer in ("1,20", "1,20 TFLOP/s"):
        message = _message(answer)
        assert "for thousands use 120000 or 120_000" in message, message
        assert "without quotes" not in message
    assert read_number("120,000", unit="TFLOP/s") == 120000


# --- fix 2: key 2 row 7, a TF32 route is refused on a GPU with no TF32 roof (review 31k1 K2-1) ---

from rooflinelib.exercises import ex02_classify as ex02  # noqa: E402
from rooflinelib.core.model import Ceiling, Machine  # noqa: E402

TF32_SPELLINGS = ("tf32", "use tf32", "tf32 tensor cores", "use TF32 tensor cores", "TF32 matrix cores")


def _first_move(number, answer):
    return ex02.check_row(number, 4096 / 6, "compute", "compute", "compute", answer).checks[4]


@pytest.mark.parametrize("answer", TF32_SPELLINGS)
def test_fix2_row_7_refuses_tf32_on_a_gpu_with_no_tf32_roof(answer):
    assert not ex02.lists_tf32_roof()
    check = _first_move(7, answer)
    assert check.status == "fail", check
    assert check.message == ex02._NO_TF32_ROOF
    assert "this GPU lists no TF32 roof" in check.message
    # the bf16 route still passes
    for right in ("instruction-mix", "tensor cores", "smaller-dtype"):
        assert _first_move(7, right).passed


@pytest.mark.parametrize("answer", TF32_SPELLINGS)
def test_fix2_row_9_tf32_hears_it_already_runs_on_the_matrix_cores(answer):
    check = _first_move(9, answer)
    assert check.status == "fail" and check.message == ex02._row(9).on_matrix_cores_hint, check


@pytest.mark.parametrize("answer", TF32_SPELLINGS)
def test_fix2_tf32_passes_where_the_gpu_lists_a_tf32_roof(answer, monkeypatch):
    with_tf32 = Machine(name="exercise GPU with tf32", kind="example", source=ex02.SOURCE,
                        date="2026-11-30",
                        ceilings=(*ex02.MACHINE.ceilings,
                                  Ceiling("tf32-tensor", "compute", 450_000.0, ex02.SOURCE, "tf32 matrix")))
    monkeypatch.setattr(ex02, "MACHINE", with_tf32)
    assert ex02.lists_tf32_roof()
    assert _first_move(7, answer).passed


# --- fix 3: key 2 row 8, "instruction-mix" hears the row's own matrix-roof verdict (K2-2) ---------

def test_fix3_row_8_instruction_mix_hint_is_the_matrix_roof_verdict():
    projection = ex02._row(8)
    check = ex02.check_row(8, projection.intensity, "compute", "memory", "memory",
                           "instruction-mix").checks[4]
    assert check.status == "fail"
    assert check.message == ("against the matrix roof it is memory-bound: faster arithmetic buys no "
                             "time. What raises the FLOPs per weight byte?")
    assert "first check which side" not in check.message


# --- fix 4: slip hints in keys 2 and 3 name the cause, not "twice/half the key" (review 31) -------

import re  # noqa: E402
from pathlib import Path  # noqa: E402

from rooflinelib.core import operators as ops  # noqa: E402
from rooflinelib.core.machines import MI300X  # noqa: E402
from rooflinelib.core.vocabulary import BF16_TENSOR  # noqa: E402
from rooflinelib.exercises import ex03_attention as ex03  # noqa: E402

_RELATION = re.compile(r"(twice|half) the key")


def _slip_messages():
    """The message of each slip whose hint used to open with "twice/half the key"."""
    row4, row9 = ex02._row(4).intensity, ex02._row(9).intensity
    yield ex02.check_row(4, 2 * row4, "memory", "memory", "memory", "tile").checks[0].message
    yield ex02.check_row(4, 0.4848, "memory", "memory", "memory", "tile").checks[0].message
    yield ex02.check_row(9, row9 / 2, "compute", "compute", "compute", "overlap").checks[0].message
    _, key_l2, key_hbm = ex02._cached()
    yield ex02.check_cache_resident(2 * key_l2, key_hbm, 0.25, 1.25, "cache").checks[0].message
    yield ex02.check_launch_length(2e6, 213_333, 0.25).checks[2].message
    yield ex03.check_fused_bytes(lambda s, d: 4 * s * d).message
    limit = (4 * ex03.HEAD_DIM + 5) / 8
    limits = ex03.check_limits("constant", "linear", limit / 2, 0.505 / 2).checks
    yield limits[2].message
    yield limits[3].message
    yield ex03.check_limits("constant", "linear", limit, 0.505 * 2).checks[3].message
    mi_ridge = MI300X.ridge(BF16_TENSOR)
    yield ex03.check_crossover(2 * mi_ridge, 489, "no", 206.1, 409).checks[0].message
    full = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE)
    causal = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE, causal=True)
    decode = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE, queries=1)
    yield ex03.check_stretch(full.intensity, decode.intensity, "memory", 8.07).checks[0].message
    yield ex03.check_stretch(causal.intensity / 2, decode.intensity, "memory", 8.07).checks[0].message
    yield ex03.check_stretch(causal.intensity, 2 * decode.intensity, "memory", 8.07).checks[1].message
    yield ex03.check_stretch(causal.intensity, decode.intensity / 2, "memory", 8.07).checks[1].message


def test_fix4_slip_hints_do_not_state_their_relation_to_the_key():
    messages = list(_slip_messages())
    assert len(messages) == 14
    for message in messages:
        assert message and not message.startswith("correct"), message
        assert not _RELATION.search(message), message


def test_fix4_no_hint_in_keys_2_and_3_says_twice_or_half_the_key():
    root = Path(__file__).resolve().parents[2] / "rooflinelib" / "exercises"
    for name in ("ex02_classify.py", "ex03_attention.py"):
        for line in (root / name).read_text().splitlines():
            if line.lstrip().startswith(("#", '"""')) or '"' not in line:
                continue
            assert not re.search(r'"[^"]*(twice|half) the key', line), (name, line)


# --- fix 5: trivials (review 31k1 key 1 item 2, K2-3, K2-4, K3-1) ---------------------------------

def test_fix5_c2_launch_answers_hear_the_run_is_thousands_of_launches():
    checks = ex02.check_far_below(8, 24, 3.125, 0.13, "launch", "amortize-launch").checks
    bound_by, first_step = checks[-2], checks[-1]
    for check in (bound_by, first_step):
        assert check.status == "fail", check
        assert "25.6 ms is thousands of times a 6 µs launch" in check.message, check
        assert "reread the question" not in check.message
    assert ex02.SLOW_SECONDS / ex02.LAUNCH_OVERHEAD_S > 1000


@pytest.mark.parametrize("number, answer", [(6, "quantize weights to fp8"), (8, "quantize weights to fp8"),
                                            (3, "fuse the softmax"), (9, "FlashAttention-3")])
def test_fix5_key2_natural_first_moves_pass_as_their_menu_item(number, answer):
    check = _first_move(number, answer)
    assert check.passed, check


@pytest.mark.parametrize("answer", ["2 M", "2M", "2 million", "2 M elements"])
def test_fix5_c4_two_million_written_with_m_passes(answer):
    check = ex02.check_launch_length(answer, 213_333, 0.5).checks[0]
    assert check.passed, check


def test_fix5_c4_count_reader_keeps_other_answers_as_they_were():
    assert ex02._count(2e6) == 2e6 and ex02._count("2e6") == "2e6" and ex02._count("2 MB") == "2 MB"
    assert not ex02.check_launch_length("6e6", 213_333, 0.5).checks[0].passed


def test_fix5_key3_489_tokens_passes():
    checks = ex03.check_crossover(246.7, "489 tokens", "no", 206.1, "409 tokens").checks
    assert checks[1].passed and checks[4].passed, checks
    assert not ex03.check_crossover(246.7, "480 tokens", "no", 206.1, 409).checks[1].passed


@pytest.mark.parametrize("answer, side", [("compute roof (fp32)", "compute"),
                                          ("compute bound (flat roof)", "compute"),
                                          ("horizontal", "compute"), ("memory (sloped roof)", "memory")])
def test_fix5_key1_natural_roof_names_are_read(answer, side):
    right = {"memory": ("memory", "compute", "memory", "compute"),
             "compute": ("memory", "compute", "memory", "compute")}[side]
    answers = list(right)
    slot = 1 if side == "compute" else 0
    answers[slot] = answer
    check = ex01.check_active_roofs(*answers).checks[slot]
    assert check.passed, check
    # read as the other side where that is wrong, not refused as unreadable
    answers = list(right)
    answers[1 - slot] = answer
    assert ex01.check_active_roofs(*answers).checks[1 - slot].status == "fail"


def test_fix5_key1_unreadable_roof_lists_the_pages_answers_only():
    check = ex01.check_active_roofs("xyz", "compute", "memory", "compute").checks[0]
    assert check.status == "invalid"
    assert "'memory' or 'compute'" in check.message and "ridge" not in check.message, check
    # 'ridge' is still read, and hears this case's ridge (review 39k1: not the band the page never defines)
    assert "ridge of 40" in ex01.check_active_roofs("ridge", "compute", "memory", "compute").checks[0].message


# --- fix 6: clarity (review 31k1): key 3's tolerance sentence, key 2's long refusals ---------------

import nbformat  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_fix6_key3_states_the_crossover_rule_in_one_sentence(folder):
    page = nbformat.read(str(ROOT / folder / "03_attention_intensity.ipynb"), as_version=4)
    text = " ".join(" ".join(c.source.split()) for c in page.cells if c.cell_type == "markdown")
    assert "Give the smallest whole `s` (up to 2% above it passes); the exact crossover passes too." in text
    assert "were the crossover 99.6" not in text and "whole-number key passes" not in text
    # the sentence is the check's rule: the exact crossover, the whole s, 2% above it pass; below fails
    crossover = ops.attention_fusion_crossover(MI300X.ridge(BF16_TENSOR), ex03.HEAD_DIM, ex03.DTYPE)
    key = crossover["fused_s"]
    for passing in (crossover["fused_estimate"], key, key * 1.02):
        assert ex03._check_smallest_s(passing, crossover, "MI300X").passed, passing
    for failing in (crossover["fused_estimate"] - 0.5, key * 1.025):
        assert not ex03._check_smallest_s(failing, crossover, "MI300X").passed, failing


def _refusals():
    for number in (4, 5, 9):
        yield ex02.check_row(number, 1, "memory", "memory", "memory", "smaller dtype").checks[4]
    yield ex02.check_cache_resident(*["x"] * 4, "unmodelled").checks[4]


def test_fix6_key2_long_refusals_are_one_diagnosis_and_one_question():
    old_words = (53, 57, 108, 55)  # rows 4, 5, 9 and C3 before review 31k1
    for check, before in zip(_refusals(), old_words):
        assert check.status == "fail", check
        assert len(check.message.split()) < before, check.message
        # one sentence of diagnosis, then one question
        assert check.message.endswith("?") and check.message.count("?") == 1, check.message
        assert check.message.rstrip("?").count(". ") == 1, check.message
        assert len(check.message.split()) <= 72, (len(check.message.split()), check.message)
    row9 = ex02.check_row(9, 1, "compute", "compute", "compute", "fp8").checks[4].message
    assert len(row9.split()) < 80  # was 108
