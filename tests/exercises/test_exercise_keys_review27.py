"""Keys 1-3 after review 27k1.  Each test calls a check with an answer the review tried and fails on
the key before this round."""
from pathlib import Path

import nbformat
import pytest

from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03

ROOT = Path(__file__).resolve().parents[2]


def _first_move(number, answer):
    return ex02.check_row(number, 4096 / 6, "compute", "compute", "compute", answer).checks[4]


# --- fix 1: key 2 row 7, bf16 is this GPU's only matrix route ------------------------------------

def test_the_exercise_gpu_has_no_tf32_roof():
    # the premise: the only matrix roof listed is bf16, so the matrix cores mean bf16 here
    compute = {c.name for c in ex02.MACHINE.ceilings if c.kind == "compute"}
    assert compute == {"fp32", ex02.BF16_TENSOR}


@pytest.mark.parametrize("answer", ["smaller-dtype", "smaller dtype", "dtype"])
def test_row_7_accepts_a_smaller_type_as_the_route_onto_the_matrix_cores(answer):
    check = _first_move(7, answer)
    assert check.passed, check
    assert "no TF32 roof" in check.message and "faster units, not through fewer bytes" in check.message
    assert "20 times the fp32 vector roof" in check.message


# Review 31k1 K2-1 (keys 32a): the TF32 spellings are refused on this GPU, which lists no TF32 roof
# (test_exercise_keys_review32a.py pins that); the matrix-core spellings still pass.
@pytest.mark.parametrize("answer", ["tensor cores", "matrix cores", "instruction-mix"])
def test_row_7_reads_tensor_core_spellings_as_instruction_mix(answer):
    check = _first_move(7, answer)
    assert check.passed, check
    assert "bf16" in check.message and "no TF32 roof" in check.message


def test_row_7_model_answer_says_what_the_key_does():
    cells = nbformat.read(str(ROOT / "solutions/02_classify_kernels.ipynb"), as_version=4).cells
    source = next(c.source for c in cells if "row7_first_step =" in c.source)
    assert '"smaller-dtype" passes too' in source and "no TF32 roof" in source
    assert "is refused" not in source
    # the menu names the matrix cores under instruction-mix, as the pass note does
    assert "matrix cores" in ex02.FIRST_STEPS.options["instruction-mix"][0]


def test_row_9_still_refuses_a_smaller_type_first():
    # row 9 already runs on the bf16 matrix cores: the exception is row 7's alone
    assert not _first_move(9, "smaller dtype").passed
    assert [r.number for r in ex02.ROWS if r.dtype_is_matrix_route] == [7]


# --- fix 2: key 3 Part C, one rule for non-integer crossovers -----------------------------------

from rooflinelib.core import operators as ops  # noqa: E402
from rooflinelib.core.machines import H200, MI300X  # noqa: E402


def _crossover(gpu):
    return ops.attention_fusion_crossover(gpu.ridge(ex03.BF16_TENSOR), ex03.HEAD_DIM, ex03.DTYPE)


@pytest.mark.parametrize("gpu, name, exact, shortcut", [(MI300X, "MI300X", 488.6, 493.4),
                                                        (H200, "H200", 408.3, 412.25)])
def test_crossover_grades_every_non_integer_by_one_rule(gpu, name, exact, shortcut):
    crossover = _crossover(gpu)
    key = crossover["fused_s"]
    assert key == round(crossover["fused_estimate"] + 0.5)  # the whole-number key is the exact one rounded up
    # the review's inconsistency: the unrounded shortcut passed and the exact crossover did not
    for value in (exact, shortcut, key, key + 0.5, crossover["fused_estimate"]):
        check = ex03._check_smallest_s(value, crossover, name)
        assert check.passed, (value, check)
    # below the exact crossover (to one decimal) does not reach the ridge, integer or not
    for value in (crossover["fused_estimate"] - 0.2, key - 1.5, key - 2):
        check = ex03._check_smallest_s(value, crossover, name)
        assert check.status == "fail" and "still below the ridge" in check.message, (value, check)
    # more than 2% above the key fails, integer or not
    assert not ex03._check_smallest_s(key * 1.025, crossover, name).passed
    assert not ex03._check_smallest_s(round(key * 1.03), crossover, name).passed


def test_crossover_page_states_the_rule_the_check_applies():
    for folder in ("solutions", "exercises"):
        page = nbformat.read(str(ROOT / folder / "03_attention_intensity.ipynb"), as_version=4)
        text = " ".join(" ".join(c.source.split()) for c in page.cells if c.cell_type == "markdown")
        # review 31k1 (keys 32a): the rule in one plain sentence
        assert "Give the smallest whole `s` (up to 2% above it passes); the exact crossover passes too." in text
        assert "from the key up" not in text
    # the rule holds for a crossover of 99.6, key 100 (the page's former example)
    example = {"fused_s": 100, "fused_estimate": 99.6}
    assert ex03._check_smallest_s(99.6, example, "x").passed and ex03._check_smallest_s(100, example, "x").passed
    assert not ex03._check_smallest_s(99.5, example, "x").passed


# --- fix 3: key 3 Part D, exactly twice the key names both causes -------------------------------

def _part_d():
    full = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE)
    causal = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE, causal=True)
    decode = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE, queries=1)
    gqa = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE, queries=1,
                        heads_per_kv=ex03.GQA_GROUP)
    return full, causal, decode, gqa


def test_part_d_elements_for_bytes_lands_on_twice_every_key():
    # the premise: counting bf16 elements instead of bytes doubles each intensity exactly
    full, causal, decode, gqa = _part_d()
    for op in (causal, decode, gqa):
        assert op.n_flops / (op.n_bytes / 2) == pytest.approx(2 * op.intensity)
    assert full.intensity == pytest.approx(2 * causal.intensity, rel=1e-3)  # and so does no mask


@pytest.mark.parametrize("index, other", [(0, "above the diagonal"), (1, "all of K and all of V"),
                                          (3, "all of K and all of V")])
def test_part_d_twice_the_key_names_both_causes(index, other):
    _, causal, decode, gqa = _part_d()
    answers = [causal.intensity, decode.intensity, "memory", gqa.intensity]
    answers[index] = 2 * answers[index]  # the review's 4136, 2.02 and 16.1
    check = ex03.check_stretch(*answers).checks[index]
    assert check.status == "fail", check
    assert "did you count elements?" in check.message and other in check.message, check
    assert "check both" in check.message


# --- fix 4: key 1, a point above the roofs is refused -------------------------------------------

from test_exercise_1_key_review15a import CEILINGS, _figure  # noqa: E402

GOOD = [(20, 60e3, None), (20, 40e3, "dram-2tbs"), (80, 120e3, None), (80, 120e3, "dram-2tbs")]


@pytest.mark.parametrize("extra, words", [((50, 150e3, None), "above the compute roof"),
                                          ((10, 50e3, None), "above the 3 TB/s bandwidth roof")])
def test_figure_refuses_an_extra_point_above_the_roofs(extra, words):
    # review 27k1 K1-1: a fifth kernel at 50 FLOP/byte and 150,000 GFLOP/s passed
    assert ex01.check_figure(_figure(CEILINGS, GOOD)).passed
    check = ex01.check_figure(_figure(CEILINGS, GOOD + [extra]))
    assert check.status == "fail" and words in check.message, check
    assert "no kernel runs above its roof" in check.message


def test_uncapped_points_keep_their_own_hint_alone():
    check = ex01.check_figure(_figure(CEILINGS, GOOD[:2] + [(80, 240e3, None), (80, 160e3, "dram-2tbs")]))
    assert check.status == "fail" and "cap it at the compute roof" in check.message
    assert "no kernel runs above its roof" not in check.message


# --- review 28k1 K3-1: the exact crossover written to two decimals passes too ----------------------

@pytest.mark.parametrize("gpu, name", [(H200, "H200"), (MI300X, "MI300X")])
def test_the_exact_crossover_to_two_decimals_passes(gpu, name):
    crossover = _crossover(gpu)
    exact = crossover["fused_estimate"]
    for written in (round(exact, 2), round(exact, 1), exact):
        check = ex03._check_smallest_s(written, crossover, name)
        assert check.passed, (written, check)
    # still refused: a value below the crossover by more than its rounding
    assert not ex03._check_smallest_s(round(exact, 2) - 0.02, crossover, name).passed
