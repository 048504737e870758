"""Keys 1-3 after review 26k1.  Each test calls a check with an answer the review tried and fails on
the key before this round."""
from pathlib import Path

import nbformat
import pytest

from rooflinelib.core import operators as ops
from rooflinelib.core.machines import MI300X
from rooflinelib.exercises import ex01_two_kernels as ex01
from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex03_attention as ex03

from test_exercise_1_key_review15a import CEILINGS, _figure

ROOT = Path(__file__).resolve().parents[2]
N = "memory"


# --- key 2 --------------------------------------------------------------------------------------

def _c3(bound_by):
    n_flops, l2, hbm = ex02._cached()
    return ex02.check_cache_resident(l2, hbm, n_flops / l2, n_flops / hbm, bound_by)


@pytest.mark.parametrize("answer", ["l1", "L1", "L1 cache", "shared memory"])
def test_c3_refuses_the_l1_with_a_hint_on_which_level_serves_the_re_reads(answer):
    # review 26k1 K2-1 (moderate): "l1" passed; each pass runs in a different block
    check = _c3(answer).checks[-1]
    assert check.status == "fail"
    assert "different block" in check.message and "Which level serves them" in check.message
    assert "L2" not in check.message  # the hint does not give the answer away


def test_the_l1_stays_a_cache_answer_outside_c3():
    # the other questions (and exercise 5) read LIMITERS as before
    assert ex02.LIMITERS.read("l1") == "cache"


@pytest.mark.parametrize("answer", ["l2 cache", "L2 cache", "the L2", "L2$", "l2 cache bandwidth",
                                    "L2", "cache", "l2 bandwidth"])
def test_c3_reads_natural_spellings_of_the_l2(answer):
    # review 26k1 K2-2: "l2 cache" was CHECK YOUR INPUT
    assert _c3(answer).passed, answer
