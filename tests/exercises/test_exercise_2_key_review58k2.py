"""Key 2 after review 58k2.  Each test fails on the key before this round: the menus' own meanings
(and their short forms) read as their options, with the ruling the option's name gets on every row
and part; "packed ops" is no lever on rows 7 and 9; a narrow type on the matrix cores gets the bare
type's ruling; fp16, half precision and int4 read as types (fp16 is no smaller type on a bf16 row,
and row 7 hears that this GPU lists no fp16 roof); row 3's 4-access and 'tile' hints, the
compute rows' memory-lever hint, the bf16 refusal, C2's other levers and rows 4-5's 'batch' say
why; binary-prefix slips of a bandwidth are named; row 9's note says how its bytes are counted."""
import pytest

from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED as N


def _move(row, answer):
    return ex02.check_row(row, N, N, N, N, answer).checks[-1]


def _part_c(answer):
    """Every Part C menu question (and drill 3's, which reads these menus), answered ``answer``."""
    return {"C1 bound": ex02.check_tiny_launch(N, N, N, answer, N).checks[3],
            "C1 step": ex02.check_tiny_launch(N, N, N, N, answer).checks[4],
            "C2 bound": ex02.check_far_below(N, N, N, N, answer, N).checks[4],
            "C2 step": ex02.check_far_below(N, N, N, N, N, answer).checks[5],
            "C3 bound": ex02.check_cache_resident(N, N, N, N, answer).checks[4],
            "C5 level": ex02.check_counters(N, N, answer).checks[2],
            "D3 bound": ex05.check_drill3(N, N, N, N, answer, N).checks[4],
            "D3 step": ex05.check_drill3(N, N, N, N, N, answer).checks[5]}


def _ruling(check):
    return check.status, check.message


# --- item 1: the menus' own meanings ------------------------------------------------------------

#: (what a student types, the option whose printed meaning it is)
MEANINGS = [
    ("fuse with its neighbours", "fuse"), ("fuse with neighbors", "fuse"),
    ("tile for on-chip reuse", "tile"), ("on-chip reuse", "tile"),
    ("batch more tokens", "batch"), ("batch more requests", "batch"),
    ("batch more tokens or requests", "batch"),
    ("use a smaller data type", "smaller-dtype"), ("smaller data type", "smaller-dtype"),
    ("a smaller data type", "smaller-dtype"), ("use a smaller type", "smaller-dtype"),
    ("improve the instruction mix", "instruction-mix"), ("Improve instruction mix", "instruction-mix"),
    ("overlap independent work", "overlap"),
    ("look past the roofline first", "profile"), ("look past the roofline", "profile"),
]
LIMITER_MEANINGS = [
    ("HBM bandwidth", "memory"), ("something the roofline does not model", "unmodelled"),
    ("not modelled by the roofline", "unmodelled"), ("cache level bandwidth", "cache"),
    ("a cache level's bandwidth", "cache"),
]
LEVEL_MEANINGS = [("misses and write-backs", "past-l2"), ("its misses and write-backs", "past-l2"),
                  ("far side of the L2", "past-l2")]


@pytest.mark.parametrize("answer, option", MEANINGS)
@pytest.mark.parametrize("row", range(1, 10))
def test_a_first_move_meaning_gets_its_options_ruling_on_every_row(row, answer, option):
    assert _ruling(_move(row, answer)) == _ruling(_move(row, option))
    assert _move(row, answer).status != "invalid"


@pytest.mark.parametrize("answer, option", MEANINGS + LIMITER_MEANINGS + LEVEL_MEANINGS)
def test_a_meaning_gets_its_options_ruling_in_part_c(answer, option):
    mine, theirs = _part_c(answer), _part_c(option)
    for question in mine:
        if question == "C5 level" and (answer, option) not in LEVEL_MEANINGS:
            continue  # another menu, where 'memory' names HBM as a level and a bandwidth does not
        if theirs[question].status == "invalid":  # a question of another menu: both unreadable
            assert mine[question].status == "invalid", question
        else:
            assert _ruling(mine[question]) == _ruling(theirs[question]), question
    readable = {"memory": ("C1 bound", "C2 bound", "C3 bound", "D3 bound"),
                "unmodelled": ("C2 bound", "D3 bound"), "cache": ("C3 bound",),
                "past-l2": ("C5 level",)}.get(option, ("C1 step", "C2 step"))
    assert all(mine[q].status != "invalid" for q in readable)


@pytest.mark.parametrize("answer, question", [
    ("something the roofline does not model", "C2 bound"), ("cache level bandwidth", "C3 bound"),
    ("misses and write-backs", "C5 level"), ("far side of the L2", "C5 level"),
    ("look past the roofline", "C2 step")])
def test_right_answers_in_the_menus_words_pass(answer, question):
    assert _part_c(answer)[question].status == "pass"


@pytest.mark.parametrize("row, answer", [(9, "overlap independent work"), (7, "improve the instruction mix"),
                                         (1, "use a smaller data type"), (6, "smaller data type"),
                                         (8, "batch more tokens"), (6, "batch more requests"),
                                         (1, "fuse with its neighbours"), (4, "tile for on-chip reuse")])
def test_right_first_moves_in_the_menus_words_pass(row, answer):
    assert _move(row, answer).status == "pass"


def test_hbm_bandwidth_on_c3_hears_the_memory_hint():
    check = _part_c("HBM bandwidth")["C3 bound"]
    assert check.status == "fail" and "well below the HBM roof" in check.message


@pytest.mark.parametrize("row", [4, 5, 9])
def test_a_smaller_data_type_still_fails_where_the_rule_refuses_it(row):
    assert _move(row, "use a smaller data type").status == "fail"


# --- item 2: packed ops ---------------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["packed ops", "use packed ops", "packed math"])
def test_packed_ops_do_not_pass_on_row_7(answer):
    check = _move(7, answer)
    assert check.status == "fail"
    assert "the fp32 vector roof is that peak" in check.message
    assert "Which faster units could run its multiply-adds?" in check.message


@pytest.mark.parametrize("answer", ["packed ops", "packed instructions"])
def test_packed_ops_do_not_pass_on_row_9(answer):
    check = _move(9, answer)
    assert check.status == "fail"
    assert "the exps, one per score, on the MUFU at the note's 3,500 G exp/s" in check.message


def test_packed_ops_on_a_memory_row_keep_the_mix_hint():
    assert _ruling(_move(1, "packed ops")) == _ruling(_move(1, "instruction-mix"))


@pytest.mark.parametrize("row", [7, 9])
def test_the_mix_still_passes_on_rows_7_and_9(row):
    assert _move(row, "instruction-mix").status == "pass"
    assert _move(row, "improve the instruction mix").status == "pass"


# --- item 3: a narrow type on the matrix cores ------------------------------------------------------

@pytest.mark.parametrize("answer", ["use fp8 tensor cores", "fp8 tensor cores", "fp8 matrix cores",
                                    "int8 tensor cores"])
@pytest.mark.parametrize("row", [6, 8])
def test_a_narrow_type_on_the_matrix_cores_passes_where_the_bare_type_does(row, answer):
    check, bare = _move(row, answer), _move(row, "fp8")
    assert check.status == "pass" == bare.status
    assert check.message.startswith(bare.message)
    assert "the matrix cores add nothing to it" in check.message and "waits on bytes" in check.message


@pytest.mark.parametrize("row", [4, 5, 9])
def test_fp8_tensor_cores_still_fail_where_fp8_does(row):
    assert _ruling(_move(row, "use fp8 tensor cores")) == _ruling(_move(row, "fp8"))


def test_fp8_tensor_cores_on_row_7_hear_there_is_no_fp8_roof():
    check = _move(7, "use fp8 tensor cores")
    assert check.status == "fail" and "this GPU lists no fp8 roof" in check.message


@pytest.mark.parametrize("row", range(1, 10))
def test_the_singular_tensor_core_is_the_plural(row):
    assert _ruling(_move(row, "tensor core")) == _ruling(_move(row, "tensor cores"))
    assert _ruling(_move(row, "matrix core")) == _ruling(_move(row, "matrix cores"))


# --- item 4: fp16, half precision, int4 ---------------------------------------------------------------

@pytest.mark.parametrize("answer", ["fp16", "use fp16", "half precision", "int4", "quantize weights to int4",
                                    "quantise"])
@pytest.mark.parametrize("row", [1, 2, 3])
def test_a_smaller_type_on_an_fp32_memory_row_passes(row, answer):
    assert _ruling(_move(row, answer)) == _ruling(_move(row, "smaller-dtype"))


@pytest.mark.parametrize("row", [6, 8])
def test_int4_passes_on_the_bf16_memory_rows(row):
    assert _ruling(_move(row, "int4")) == _ruling(_move(row, "smaller-dtype"))


@pytest.mark.parametrize("answer", ["fp16", "use fp16", "half precision", "fp16 weights"])
@pytest.mark.parametrize("row", [6, 8, 9])
def test_fp16_is_no_smaller_type_on_a_bf16_row(row, answer):
    check = _move(row, answer)
    assert check.status == "fail"
    assert "fp16 is as wide as bf16 (2 bytes)" in check.message


@pytest.mark.parametrize("answer", ["fp16", "half precision", "fp16 tensor cores", "use fp16 tensor cores"])
def test_fp16_on_row_7_hears_this_gpu_lists_no_fp16_roof(answer):
    assert not any(c.name.startswith("fp16") for c in ex02.MACHINE.ceilings)
    check = _move(7, answer)
    assert check.status == "fail" and "this GPU lists no fp16 roof" in check.message


def test_int4_on_row_7_hears_this_gpu_lists_no_int4_roof():
    check = _move(7, "int4")
    assert check.status == "fail" and "this GPU lists no int4 roof" in check.message


@pytest.mark.parametrize("row", [4, 5])
def test_fp16_still_fails_where_tiling_comes_first(row):
    assert _ruling(_move(row, "fp16")) == _ruling(_move(row, "smaller-dtype"))


# --- items 6-9, 11: hints -------------------------------------------------------------------------------

def test_row_3_four_accesses_hear_the_five_this_kernel_makes():
    row = ex02._row(3)
    check = ex02.check_row(3, row.op.n_flops / (4 * 2 ** 24 * 4), N, N, N, N).checks[0]
    assert check.status == "fail"
    assert "you counted 4 accesses of the row; this one makes 5" in check.message
    assert "pass 3 reads that buffer and writes the result" in check.message


@pytest.mark.parametrize("answer", ["batch", "score-bandwidth", "bigger batch"])
@pytest.mark.parametrize("row", [7, 9])
def test_a_memory_lever_on_a_compute_row_is_not_said_to_delete_bytes(row, answer):
    message = _move(row, answer).message
    assert "deleting bytes" not in message
    assert "fewer bytes, or more FLOPs per byte, buy no time" in message


@pytest.mark.parametrize("row", [6, 8, 9])
def test_bf16_on_a_bf16_row_asks_what_makes_it_faster(row):
    message = _move(row, "bf16").message
    assert "which lever moves it" not in message and "which lever makes it faster?" in message


@pytest.mark.parametrize("answer", ["tile", "bigger tiles", "shared memory tiling"])
def test_row_3_tile_hears_the_row_does_not_fit_on_chip(answer):
    check = _move(3, answer)
    assert check.status == "fail" and "the row is 64 MiB: it does not fit on chip" in check.message


@pytest.mark.parametrize("row", [4, 5])
def test_rows_4_and_5_batch_hear_why(row):
    check = _move(row, "batch")
    assert check.status == "fail" and "this GEMM has no batch to grow" in check.message


@pytest.mark.parametrize("answer", ["overlap", "score-bandwidth", "instruction-mix", "batch"])
def test_c2_other_levers_hear_why(answer):
    check = _part_c(answer)["C2 step"]
    assert check.status == "fail" and "C2's data does not say why" in check.message


# --- item 5: binary prefixes on a bandwidth ------------------------------------------------------------

@pytest.mark.parametrize("factor", [2 ** 30 / 1e9, 1e9 / 2 ** 30])
def test_a_ridge_with_gib_hears_the_gib_hint(factor):
    for check, key in zip(ex02.check_ridges(15 * factor, 300 * factor).checks, (15, 300)):
        assert check.status == "fail" and "binary (GiB, 2^30 bytes)" in check.message, check


@pytest.mark.parametrize("ns, prefix", [(12.288 / (2 ** 40 / 1e12), "TiB"), (12.288 / (2 ** 30 / 1e9), "GiB")])
def test_c1_time_with_a_binary_bandwidth_hears_the_prefix_hint(ns, prefix):
    check = ex02.check_tiny_launch(N, f"{ns:.4g}", N, N, N).checks[1]
    assert check.status == "fail" and f"binary ({prefix}" in check.message


def test_c4_counts_with_a_binary_bandwidth_hear_the_prefix_hint():
    dispatch, graph = ex02._launch_lengths()
    checks = ex02.check_launch_length(dispatch * 2 ** 40 / 1e12, graph * 2 ** 30 / 1e9, N).checks
    assert "binary (TiB" in checks[0].message and "binary (GiB" in checks[1].message
    right = ex02.check_launch_length(dispatch, graph, 0.5)
    assert right.passed


def test_right_ridges_and_times_still_pass():
    assert ex02.check_ridges(15, 300).passed
    assert ex02.check_tiny_launch(49152, 12.288, 488.3, "launch", "amortize-launch").passed


# --- item 10: row 9's byte count -----------------------------------------------------------------------

def test_row_9_note_says_q_k_v_and_o_cross_hbm_once():
    assert "Q, K, V and O each cross HBM once" in ex02.ROW_9_NOTE
    assert "re-reads of K and V as L2 hits" in ex02.ROW_9_NOTE
    row = ex02._row(9)  # the note states the key's own count: 8sd bytes
    assert row.op.n_bytes == 4 * 8192 * 128 * 2
