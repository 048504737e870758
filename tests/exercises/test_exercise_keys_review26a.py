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


@pytest.mark.parametrize("answer", [0.5, lambda k: 2 * k])
def test_row_4_exactly_twice_names_one_operand_first(answer):
    # review 26k1 K2-3: 0.5 is most often one operand's loads; it was told only about coalescing
    key = ex02._row(4).intensity
    value = answer(key) if callable(answer) else answer
    message = ex02.check_row(4, value, N, N, N, N).checks[0].message
    # review 31k1 (keys 32a): the hint names the slip's cause, not its relation to the key
    assert message.startswith("that counts one operand's loads only")
    assert "a row of A and a column of B" in message


def test_row_4_warp_shared_count_keeps_its_coalescing_hint_alone():
    message = ex02.check_row(4, 0.4848, N, N, N, N).checks[0].message
    assert "lets a warp share its loads of A (coalescing)" in message
    assert "one operand" not in message


def test_c1_seconds_for_nanoseconds_hears_the_unit():
    # review 26k1 K2-4: 12.288e-9 got "off by a factor of 10^9: GFLOP/s with FLOP/s?"
    op, memory_s = ex02._tiny()
    check = ex02.check_tiny_launch(op.n_bytes, "12.288e-9", 488.3, "launch", "amortize-launch").checks[1]
    assert check.status == "fail" and "that is in seconds" in check.message
    assert "GFLOP/s" not in check.message
    assert ex02.check_tiny_launch(op.n_bytes, 12.288, 488.3, "launch", "amortize-launch").passed


def test_row_3_model_answer_does_not_claim_a_64_mib_row_stays_on_chip():
    # review 26k1 K2-5: the table gives n = 2^24 fp32, one 64 MiB row
    key = nbformat.read(str(ROOT / "solutions" / "02_classify_kernels.ipynb"), as_version=4)
    code = "\n".join(c.source for c in key.cells if c.cell_type == "code")
    assert "keep the row on chip" not in code
    assert "2 if a row fits on chip (this 64 MiB one does not)" in code


# --- key 3 --------------------------------------------------------------------------------------

def _decode():
    return ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE, queries=1)


def test_decode_half_the_key_names_both_slips():
    # review 26k1 K3-1: 4-byte elements give half the key too
    causal = ops.attention(ex03.SEQ_LEN, ex03.HEAD_DIM, fused=True, dtype=ex03.DTYPE, causal=True)
    decode = _decode()
    four_byte = decode.n_flops / (2 * decode.n_bytes)
    check = ex03.check_stretch(causal.intensity, four_byte, "memory", 8.07).checks[1]
    assert check.status == "fail"
    assert "2 FLOPs" in check.message and "2 bytes, not 4" in check.message


def test_unfused_bytes_without_o_hear_that_o_is_written():
    # review 26k1 K3-2: only "too low at s=100, d=128"
    check = ex03.check_unfused_bytes(lambda s, d: 2 * (3 * s * d + 4 * s * s))
    assert check.status == "fail" and "the output O is written to HBM too" in check.message
    assert ex03.check_unfused_bytes(lambda s, d: 2 * (4 * s * d + 4 * s * s)).passed


def test_crossover_passes_from_the_key_up_as_the_page_says():
    # review 26k1 K3-3: the unrounded 488.6 passed, below the key the page names as the floor
    crossover = ops.attention_fusion_crossover(MI300X.ridge(ex03.BF16_TENSOR), ex03.HEAD_DIM, ex03.DTYPE)
    key = crossover["fused_s"]
    # review 27k1 K3-1: one rule, integer or not: the exact crossover passes too; below it does not
    assert ex03._check_smallest_s(488.6, crossover, "MI300X").passed
    below = ex03._check_smallest_s(488.5, crossover, "MI300X")
    assert below.status == "fail" and "round up" in below.message
    assert ex03._check_smallest_s(key, crossover, "MI300X").passed
    assert ex03._check_smallest_s(494, crossover, "MI300X").passed
    page = nbformat.read(str(ROOT / "exercises" / "03_attention_intensity.ipynb"), as_version=4)
    assert "Give the smallest whole `s` (up to 2% above it passes); the exact crossover passes too." in " ".join(
        " ".join(c.source.split()) for c in page.cells if c.cell_type == "markdown")


# --- key 1 --------------------------------------------------------------------------------------

def test_a_2_tbs_point_drawn_at_the_3_tbs_rate_hears_so():
    # review 26k1 K1-1: only "no point at the prediction for 20 FLOP/byte at 2 TB/s"
    check = ex01.check_figure(_figure(CEILINGS, [(20, 60e3, None), (20, 60e3, "dram-2tbs"),
                                                 (80, 120e3, None), (80, 120e3, "dram-2tbs")]))
    assert check.status == "fail" and "no point at the prediction" not in check.message
    assert ("the point for 20 FLOP/byte at 2 TB/s sits at 60,000 GFLOP/s, but its prediction is "
            "min(P, I x B) = 40,000 GFLOP/s: that is the prediction at 3 TB/s") in check.message


def test_uncapped_points_hear_to_cap_them():
    check = ex01.check_figure(_figure(CEILINGS, [(20, 60e3, None), (20, 40e3, "dram-2tbs"),
                                                 (80, 240e3, None), (80, 160e3, "dram-2tbs")]))
    assert "no point at the prediction" not in check.message
    assert check.message.count("cap it at the compute roof") == 2


def test_a_left_out_2_tbs_roof_is_not_blamed_on_memory_ceilings_the_points_have():
    # review 26k1 K1-2: memory="dram" drops the 2 TB/s roof; the points already name it
    pytest.importorskip("plotly")
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure

    machine = Machine("m", ceilings=tuple(Ceiling(*c) for c in CEILINGS))
    points = [KernelPoint("a", 20, 1, 60e3), KernelPoint("b", 20, 1, 40e3, memory_ceiling="dram-2tbs"),
              KernelPoint("c", 80, 1, 120e3), KernelPoint("d", 80, 1, 120e3, memory_ceiling="dram-2tbs")]
    message = ex01.check_figure(roofline_figure(machine, points, memory="dram")).message
    assert message.startswith("no memory roof at 2 TB/s")
    assert "if it has none, and draw that ceiling in the figure" in message
    assert "give each a memory_ceiling that names your 2 TB/s ceiling:" not in message
    assert not message.rstrip().endswith("names your 2 TB/s ceiling")
