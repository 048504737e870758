"""Exercise 2's key after review 7b: launch levers, error carried forward, the given data."""
from rooflinelib.exercises import ex02_classify as ex02


def _statuses(result):
    return [check.status for check in result.checks]


def test_a_cuda_graph_is_not_a_byte_lever_on_rows_6_and_8():
    # K2-1: "cuda graphs" and "graphs" passed as "batch" on the memory-bound decode and projection
    for number, intensity, vs_fp32 in ((6, 0.9998, "memory"), (8, 124.1, "compute")):
        for answer in ("cuda graphs", "graphs", "persistent kernel"):
            step = ex02.check_row(number, intensity, vs_fp32, "memory", "memory", answer).checks[4]
            assert step.status == "fail", (number, answer)
            assert "removes launch cost, not bytes or FLOPs" in step.message
        assert ex02.check_row(number, intensity, vs_fp32, "memory", "memory", "batch").checks[4].passed
    assert ex02.FIRST_STEPS.read("cuda graphs") == "amortize-launch"
    assert "per launch" not in ex02.FIRST_STEPS.options["batch"][0]


def test_c1_accepts_amortizing_the_launch():
    for answer in ("cuda graphs", "amortize-launch", "fuse"):
        assert ex02.check_tiny_launch(49152, 12.29, 488, "launch", answer).checks[4].passed, answer


def test_sides_are_judged_on_the_students_own_intensity():
    # K2-2: 2731 (the square GEMM) for row 8, then a comparison of 2731.  Review 14: every side is
    # graded against the right intensity (124), so a side that holds only for 2731 is consistent
    # with it but does not pass; a side right for both passes and says so
    result = ex02.check_row(8, 2731, "compute", "compute", "compute", "batch")
    assert _statuses(result) == ["fail", "pass", "fail", "fail", "pass"]
    assert "for your 2731" in result.checks[1].message
    for check in result.checks[2:4]:
        assert "consistent with your intensity of 2731" in check.message
    # a wrong comparison of the student's own number: the hint is about that number, and the
    # row-8 key hint ("that is its verdict against the fp32 vector roof") is not given
    wrong = ex02.check_row(8, 2731, "memory", "ridge", "ridge", "batch")
    assert _statuses(wrong) == ["fail", "fail", "fail", "fail", "pass"]
    assert all("nor for your intensity of 2731" in c.message for c in wrong.checks[1:4])
    assert "runs on the bf16 matrix cores: classify it" in wrong.checks[3].message
    assert all("fp32 vector roof, but" not in c.message for c in wrong.checks[1:4])
    # row 9 with the unfused intensity (memory-bound against bf16): consistent, but not passing
    unfused = ex02._row(9).intensity_mistakes[0][0]
    check = ex02.check_row(9, unfused, "compute", "memory", "memory", "overlap").checks[3]
    assert check.status == "fail" and "consistent with your intensity" in check.message
    # a right intensity: the key's hints as before
    key = ex02.check_row(8, 124, "compute", "memory", "compute", "batch").checks[3]
    assert key.status == "fail" and "matrix cores" in key.message
    # an unreadable intensity carries nothing forward
    assert _statuses(ex02.check_row(8, "abc", "compute", "memory", "memory", "batch"))[0] == "invalid"


def test_the_given_data_table_is_not_cut():
    # K2-3: the table cut each cell at 200 characters, dropping C3's profiler fractions
    table = ex02.given_part_c()
    for text in (str(table), table._repr_html_()):
        assert "35% of the HBM roof, 92% of the L2 bandwidth ceiling" in text
        assert "&quot;video memory&quot; for both)" in text or '"video memory" for both)' in text
    assert max(len(str(cell)) for row in table.rows for cell in row) > 200


def test_infinity_cache_and_bare_latency_get_hints():
    # K2-4: FETCH_SIZE/WRITE_SIZE are not the Infinity Cache's own traffic
    for answer in ("infinity cache", "mall"):
        level = ex02.check_counters("dram__bytes_read.sum", "dram__bytes_write.sum", answer).checks[2]
        assert level.status == "fail" and "not its own traffic" in level.message
    assert ex02.check_counters("dram__bytes_read.sum", "dram__bytes_write.sum", "past-l2").checks[2].passed
    # K2-6: a bare "latency" is a hint, not "unreadable"
    c1 = ex02.check_tiny_launch(49152, 12.29, 488, "latency", "batch").checks[3]
    c2 = ex02.check_far_below(8, 24, 3.125, 0.13, "latency", "profile").checks[4]
    for check in (c1, c2):
        assert check.status == "fail" and "latency of what" in check.message
    assert ex02.check_far_below(8, 24, 3.125, 0.13, "memory latency", "profile").checks[4].passed


def test_the_ridge_band_hint_states_the_band_exactly():
    # review 7b G-1: 0.905 x ridge is outside [ridge/1.1, 1.1 x ridge]; "within about 10%" said otherwise
    from rooflinelib.exercises.grading import check_side
    check = check_side("ridge", 0.905 * 15, 15, "side")
    assert check.status == "fail" and "from ridge / 1.1 to 1.1 x ridge" in check.message
    assert "within about" not in check.message


def test_exercise_3_does_not_read_a_bare_grows_as_linear():
    # review 7b K3-1: "grows" fits a quadratic answer as well
    from rooflinelib.exercises import ex03_attention as ex03
    assert not ex03.check_limits("saturates", "grows", 64.6, 0.505).passed
    assert ex03.check_limits("saturates", "proportional to s", 64.6, 0.505).passed


def test_exercise_4_gives_its_ceilings_as_a_table_and_says_y_is_written():
    # review 7b K4-c1 and the trivial note: one paragraph held P, B, R, C and two scoring rules;
    # the FMA kernel writes y, not x
    from pathlib import Path
    import nbformat
    root = Path(__file__).resolve().parents[2]
    for folder in ("solutions", "exercises"):
        cells = nbformat.read(str(root / folder / "04_place_your_kernel.ipynb"), as_version=4).cells
        text = " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")
        assert "then is written back" not in text and "the result is written to a second array, y" in text
        assert "| `R` | Lab 1's DRAM read ceiling (`dram-read`) | GB/s | the reduction, which only reads |" in text
        assert "| `C` | Lab 1's DRAM copy ceiling (`dram-copy`) | GB/s | the FMA kernel, which reads x and writes y |" in text
