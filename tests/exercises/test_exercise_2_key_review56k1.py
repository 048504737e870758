"""Key 2 after review 56k1 (section "Exercise 2").  Each test fails on the key before this round:
row 9's "pipelining" (which FlashAttention-3 uses for its exp/MMA overlap) passes with a note, the
load-only overlap spellings keep their hint; "use fp8 tensor cores" hears the bare "fp8"'s ruling;
readable phrasings of the right move are graded, and on a row where they are wrong they get the
ruling the option's other spellings get."""
import pytest

from rooflinelib.exercises import ex02_classify as ex02
from rooflinelib.exercises import ex05_drills as ex05
from rooflinelib.exercises.grading import NOT_ANSWERED as N


def _move(row, answer):
    return ex02.check_row(row, N, N, N, N, answer).checks[-1]


def _same_ruling(row, answer, spelling):
    """``answer`` on ``row`` gets exactly what the option's own ``spelling`` gets there."""
    mine, theirs = _move(row, answer), _move(row, spelling)
    assert (mine.status, mine.message) == (theirs.status, theirs.message), (row, answer, mine, theirs)


# --- item 1: row 9's "pipelining" ---------------------------------------------------------------

@pytest.mark.parametrize("answer", ["pipelining", "software pipelining", "Software-Pipelining",
                                    "intra-warpgroup pipelining"])
def test_row_9_pipelining_passes(answer):
    check = _move(9, answer)
    assert check.status == "pass", check


@pytest.mark.parametrize("answer", ["pipelining", "software pipelining"])
def test_row_9_pipelining_pass_says_which_pipelining_helps(answer):
    message = _move(9, answer).message
    assert "exps on the MUFU under the matrix multiplies (MMAs) of another block, not the loads" in message


@pytest.mark.parametrize("answer", ["prefetch", "prefetching", "double buffering", "async copies",
                                    "async copy", "warp specialization", "warp-specialized"])
def test_row_9_load_only_overlap_keeps_its_hint(answer):
    check = _move(9, answer)
    assert check.status == "fail" and check.message == ex02._row(9).load_overlap_hint, check


def test_menu_gloss_sorts_the_examples_as_the_key_reads_them():
    gloss = ex02.FIRST_STEPS.options["overlap"][0]
    assert "loads with math (prefetch, async copies)" in gloss
    assert "one unit's work with another's (pipelining)" in gloss
    assert len(gloss) <= len("overlap independent work: loads with math, or one unit's work with "
                             "another's (pipelining, prefetch, async copies)")
    # every example in the gloss reads as the overlap it is listed under, on row 9
    assert {"prefetch", "async copies"} <= {s for s in ex02.LOAD_OVERLAP_SPELLINGS}
    assert "pipelining" in ex02.GENERIC_PIPELINING_SPELLINGS


@pytest.mark.parametrize("row", [r.number for r in ex02.ROWS if r.number != 9])
@pytest.mark.parametrize("answer", ["pipelining", "software pipelining", "warp specialization",
                                    "intra-warpgroup pipelining"])
def test_pipelining_elsewhere_gets_the_overlap_ruling(row, answer):
    # no row but 9 accepts overlap: there these spellings fail exactly as "overlap" does
    assert not _move(row, answer).passed
    _same_ruling(row, answer, "overlap")


# --- item 2: row 9's "use fp8 tensor cores" ----------------------------------------------------

@pytest.mark.parametrize("answer", ["use fp8 tensor cores", "fp8 tensor cores", "fp8 matrix cores",
                                    "use FP8 matrix cores"])
def test_row_9_fp8_on_the_tensor_cores_hears_the_fp8_ruling(answer):
    check = _move(9, answer)
    assert check.status == "fail"
    assert check.message == _move(9, "fp8").message
    assert "this GPU lists no fp8 roof" in check.message
    assert "already runs on the matrix cores" not in check.message


def test_row_9_tensor_cores_alone_keep_the_matrix_core_hint():
    assert _move(9, "use tensor cores").message == ex02._row(9).on_matrix_cores_hint
    assert _move(9, "bf16 tensor cores").message == ex02._row(9).on_matrix_cores_hint


def test_row_8_fp8_tensor_cores_get_the_bare_fp8s_ruling():
    # row 8 accepts a smaller type (fp8 weights). Review 58k2 item 3: the matrix-core hint ("...or
    # moves fewer bytes?") answered itself, so "fp8 tensor cores" now gets the bare "fp8"'s pass
    # (fewer bytes), never a compute move's: its note says the matrix cores add nothing here
    check, bare = _move(8, "use fp8 tensor cores"), _move(8, "fp8")
    assert check.status == "pass" == bare.status and check.message.startswith(bare.message)
    assert "the matrix cores add nothing to it" in check.message


# --- item 3: readable phrasings ----------------------------------------------------------------

RIGHT = [  # (row, answer, the option's own spelling)
    (3, "fuse the passes", "fuse"),
    (9, "polynomial exp", "instruction-mix"),
    (9, "fewer exps", "instruction-mix"),
    (9, "fewer transcendentals", "instruction-mix"),
    (4, "use shared memory", "tile"),
    (4, "shared memory tiling", "tile"),
    (5, "increase tile size", "tile"),
    (5, "register tiling", "tile"),
    (6, "increase batch size", "batch"),
    (6, "continuous batching", "batch"),
    (8, "continuous batching", "batch"),
]


@pytest.mark.parametrize("row, answer, spelling", RIGHT)
def test_a_readable_phrasing_passes_where_its_option_is_right(row, answer, spelling):
    assert ex02.FIRST_STEPS.read(answer) == spelling
    assert _move(row, answer).passed
    _same_ruling(row, answer, spelling)


@pytest.mark.parametrize("row, answer, spelling", [
    (4, "fuse the passes", "fuse"), (9, "fuse the passes", "fuse"),
    (3, "polynomial exp", "instruction-mix"), (8, "fewer exps", "instruction-mix"),
    (9, "use shared memory", "tile"), (6, "shared memory tiling", "tile"),
    (8, "increase tile size", "tile"), (7, "register tiling", "tile"),
    (1, "increase batch size", "batch"), (9, "continuous batching", "batch"),
])
def test_a_readable_phrasing_where_it_is_wrong_gets_its_options_ruling(row, answer, spelling):
    assert not _move(row, answer).passed
    _same_ruling(row, answer, spelling)


@pytest.mark.parametrize("answer", ["polynomial exp", "fewer exps", "fewer transcendentals"])
def test_row_7_exp_spellings_do_not_pass_on_a_gemm(answer):
    # row 7 accepts the instruction mix (onto the matrix cores), but a GEMM computes no exps
    check = _move(7, answer)
    assert check.status == "fail" and "computes no exps" in check.message
    assert _move(7, "instruction-mix").passed


@pytest.mark.parametrize("answer", ["exp2", "use exp2"])
def test_row_9_bare_exp2_is_not_the_mix_and_hears_why(answer):
    check = _move(9, answer)
    assert check.status == "fail" and "saves an FMUL" in check.message and "not a MUFU op" in check.message
    assert _move(1, answer).status == "invalid"


@pytest.mark.parametrize("answer", ["already at the roof", "already at the compute roof"])
def test_already_at_the_roof_stays_unreadable(answer):
    # it could mean the compute roof as well as the bandwidth score: no option is read from it
    assert _move(2, answer).status == "invalid"


@pytest.mark.parametrize("answer", ["IO-bound", "I/O bound", "io bound"])
def test_io_bound_reads_as_memory_for_the_sides(answer):
    row1 = ex02.check_row(1, N, answer, answer, answer, N).checks[1:4]
    assert all(c.passed for c in row1), row1
    # where memory is wrong, it gets memory's ruling (row 8: memory against bf16, compute against fp32)
    io, memory = (ex02.check_row(8, N, a, a, a, N).checks[1:4] for a in (answer, "memory"))
    assert [(c.status, c.message) for c in io] == [(c.status, c.message) for c in memory]
    assert io[0].status == "fail" and io[1].passed and io[2].passed


def test_c3_still_refuses_shared_memory_as_l1():
    check = ex02.check_cache_resident(N, N, N, N, "shared memory").checks[-1]
    assert check.status == "fail" and check.message == ex02._C3_L1_HINT


def test_exercise_5_reads_the_new_gloss_and_still_wants_profile():
    gloss = ex02.FIRST_STEPS.options["overlap"][0]
    assert ex05._FIRST_STEPS.read(gloss) == "overlap"
