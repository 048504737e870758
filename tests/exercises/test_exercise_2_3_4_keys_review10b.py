"""Exercises 2, 3 and 4 after review 10b: row 9 states the schedule its first move follows from,
the fp8 note borrows no H200 roof, rows 1-3 say why batching cannot help, the FLOPs check names a
miscounted softmax, and exercise 4's hints fit a sum and a roof above the compute peak."""
from pathlib import Path

import nbformat

from rooflinelib.exercises import ex02_classify as ex02, ex03_attention as ex03, ex04_place_kernel as ex04
from rooflinelib.exercises.grading import NOT_ANSWERED

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ex04.prepare("recorded", progress=None)


def _source(path):
    nb = nbformat.read(str(ROOT / path), as_version=4)
    return "\n".join(c.source for c in nb.cells)


def test_row_9_says_its_exps_run_after_the_mmas_so_overlap_follows():
    # K2-1: "close to its roof" and "overlap" agree only when the row says the exps are serial
    row = ex02._row(9)
    # review 12b CK2-1: said in the note under the problem table, not in the row's too-wide cell
    assert "after each block's MMAs (matrix multiply-accumulates on the tensor cores), not beside them" in ex02.ROW_9_NOTE
    assert ex02.ROW_9_NOTE in str(ex02.problem_table()) and "note under the table" in row.description
    assert "overlap" in row.first_steps
    for path in ("solutions/02_classify_kernels.ipynb", "exercises/02_classify_kernels.ipynb"):
        text = " ".join(_source(path).split())
        assert "Assume each kernel runs close to its roof;" not in text
        assert "Assume each kernel runs as close to its roof as its description allows" in text
        # K2-C2: the wrong-roof row is flagged before it is answered
        assert "### Row 8: the projection at batch 128 Watch which roof this one runs on." in text


def test_row_9_fp8_note_borrows_no_h200_roof_and_says_the_2x_needs_overlap():
    # K2-2: the exercise GPU has no fp8 roof; with the exps after the MMAs fp8 gains 1.5x
    check = ex02.check_row(9, 8192 * (4 * 128 + 5) / (8 * 128), "compute", "compute", "compute", "fp8")
    note = check.checks[-1].message
    # review 14: refused as the first move (compute-bound), the fp8 reasoning kept in the refusal
    assert check.checks[-1].status == "fail" and "on the H200" not in note
    # review 53k1 K2-3: the missing roof leads; the MMA-only speed-up is a hypothetical
    assert note.index("this GPU lists no fp8 roof") < note.index("even with one, only the MMAs would speed up, not the exps")
    assert all(c.name != "fp8-tensor" for c in ex02.MACHINE.ceilings)
    # the 1.5x: bf16 MMAs T, exps T/2 (given rate); fp8 MMAs T/2, exps T/2
    mma = 4 * 128 / ex02.MACHINE.ceiling(ex02.BF16_TENSOR).value
    exp = 1 / ex02.MUFU_G_EXP_PER_S
    assert round((mma + exp) / (mma / 2 + exp), 1) == 1.5
    comment = " ".join(_source("solutions/02_classify_kernels.ipynb").split())
    assert "twice bf16's on the H200" not in comment


def test_rows_1_to_3_say_why_batch_cannot_raise_their_intensity():
    # K2-C1: not the generic "reread the question"
    for number in (1, 2, 3):
        row = ex02._row(number)
        check = ex02.check_row(number, row.intensity, "memory", "memory", "memory", "batch")
        assert not check.passed
        assert "cannot rise" in check.checks[-1].message and "reread" not in check.checks[-1].message


def test_a_softmax_miscount_is_named():
    # K3-C1: a 3-FLOP softmax was "wrong at 1 of 5 test points"
    check = ex03.check_flops(lambda s, d: 4 * s * s * d + 3 * s * s)
    assert check.status == "fail" and "check the softmax's FLOPs per score" in check.message
    assert ex03.check_flops(lambda s, d: 4 * s * s * d + 5 * s * s).status == "pass"
    # K3-C2: the question says a bare "grows" is not read as an answer
    for path in ("solutions/03_attention_intensity.ipynb", "exercises/03_attention_intensity.ipynb"):
        assert 'bare `"grows"` fits two of them' in " ".join(_source(path).split())


def _placement(**answers):
    names = ("reduction_intensity", "reduction_gflops", "reduction_roof", "reduction_side",
             "reduction_fraction_of_dram", "fma_intensity", "fma_gflops", "fma_roof", "fma_side",
             "fma_fraction_of_roof")
    checks = ex04.check_placement(RECORDED, *(answers.get(n, NOT_ANSWERED) for n in names)).checks
    return dict(zip(names, checks))


def test_a_doubled_reduction_intensity_hears_about_adds_not_fmas_or_copies():
    # K4-1: the generic factor-2 hint spoke of FMAs and copies
    key = ex04._keys(RECORDED)["reduction"]["intensity"]
    message = _placement(reduction_intensity=2 * key)["reduction_intensity"].message
    assert "an add is 1 FLOP" in message and "copy" not in message


def test_a_roof_above_the_compute_peak_hears_the_min():
    # K4-2: 16 x B is above P; it got only "your value is too high"
    fma = ex04._keys(RECORDED)["fma"]
    above = fma["intensity"] * RECORDED.peak_gbps
    assert above > RECORDED.peak_gflops
    for answer in (above, 1.5 * RECORDED.peak_gflops):
        message = _placement(fma_roof=answer)["fma_roof"].message
        assert "attainable is the min of the two roofs" in message, message
    assert _placement(reduction_roof=2 * RECORDED.peak_gflops)["reduction_roof"].message.startswith(
        "attainable is the min of the two roofs")
    assert _placement(fma_roof=fma["roof"])["fma_roof"].status == "pass"


def test_the_model_answer_names_the_side_in_words_and_the_docstring_agrees():
    # K4-C1: "ridge-side" read oddly; K4-C2: the docstring said "far right of a CPU's" ridge
    source = _source("solutions/04_place_your_kernel.ipynb")
    assert "{fma_side}-side" not in source and "ex.SIDES.options[fma_side][0]" in source
    assert "far right\nof a CPU's" not in ex04.__doc__ and "wide-vector server CPUs" in ex04.__doc__
