"""Keys after review 17b: exercise 2's verdict hint blames the roof only when the answer is the
side against the other roof; exercise 4's Part A says how much beside 4n its check admits."""
from rooflinelib.exercises import ex02_classify as ex02


def _verdict(number, answer):
    row = ex02._row(number)
    report = ex02.check_row(number, row.intensity, "memory" if row.intensity < 15 else "compute",
                            "memory", answer, sorted(row.first_steps)[0])
    return next(c for c in report.checks if c.question.startswith("verdict"))


def test_a_verdict_wrong_against_both_ridges_is_not_told_it_used_the_wrong_roof():
    # row 2 (a sum reduction, I = 0.25) is memory-bound against either ridge: "compute" is wrong
    # against both, so "classify it against that roof's ridge" blamed a roof it did not use
    check = _verdict(2, "compute")
    assert check.status == "fail"
    assert "classify it against that roof's ridge" not in check.message
    assert "that side holds against neither ridge" in check.message


def test_row_8s_wrong_roof_verdict_keeps_its_own_hint():
    # row 8 (bf16 projection, I ~ 124): compute-bound against fp32's ridge of 15, memory-bound
    # against the bf16 ridge it runs on; "compute" is the wrong-roof answer
    check = _verdict(8, "compute")
    assert check.status == "fail" and "a bf16 GEMM runs on the matrix cores" in check.message


def test_the_wrong_roof_side_gets_the_runs_on_hint_where_the_two_ridges_disagree():
    # no row but 8 has the ridges disagree; the hint follows the side against the other ridge
    row = ex02._row(9)
    hints = ex02._verdict_hints(row)
    assert "classify it against that roof's ridge" in hints["compute"]
    assert "neither ridge" in hints["memory"] and "neither ridge" in hints["ridge"]
