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


@pytest.mark.parametrize("answer", ["tf32", "use TF32 tensor cores", "TF32 tensor cores",
                                    "tensor cores", "matrix cores", "instruction-mix"])
def test_row_7_reads_tf32_and_tensor_core_spellings_as_instruction_mix(answer):
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

