"""Exercise 5's key after review 7c: drill 8's model answer names the wrong-roof case first,
drill 4's key point limits "fusion rarely changes the verdict" to elementwise kernels, right
answers in common words are read, and a ratio of two times gets no FMA/copy factor-of-2 hint."""
import pytest

from rooflinelib.exercises import ex05_drills as ex05


def test_drill_8_model_answer_names_the_wrong_roof():
    # K5-1: 96% of the fp32 vector roof is poor for work the tensor cores could do
    text, points = ex05.MODEL_ANSWERS[8]
    assert "The roof can be the wrong one" in text and "tensor cores" in text
    assert points[0].startswith("the roof may be the wrong one (instruction mix")


def test_drill_4_key_point_limits_the_fusion_rule_to_elementwise_kernels():
    # K5-2: drill 7 shows fusion that deletes O(s^2) traffic does move attention across the ridge
    _, points = ex05.MODEL_ANSWERS[4]
    assert "fusion rarely changes the verdict" not in points
    assert any(p.startswith("fusing elementwise kernels rarely changes the verdict") and "attention" in p
               for p in points)


@pytest.mark.parametrize("answer", ["moves to the right", "higher intensity", "rightwards"])
def test_drill_6_reads_right_in_common_words(answer):
    # K5-3
    assert ex05.check_drill6(answer, 20 / 3).passed


@pytest.mark.parametrize("answer", ["maximum of the two", "taking the max"])
def test_drill_1_reads_the_max_in_common_words(answer):
    assert ex05.check_drill1(answer, 2).passed


def test_drill_4_and_7_read_common_words():
    assert ex05.check_drill4(0.125, 0.625, "still memory-bound", 5).passed
    assert not ex05.check_drill4(0.125, 0.625, "still compute-bound", 5).passed
    assert ex05.check_drill7((4 * 128 + 5) / 8, "proportional to s").passed


def test_ratios_of_two_times_get_no_fma_or_copy_hint():
    # K5-4: the generic factor-2 hint talks of FMAs and copies, which a ratio of times does not count
    for text in (str(ex05.check_drill1("max", 1)), str(ex05.check_drill3(20, 20, 30, 0.4, "unmodelled", "profile"))):
        assert "fused multiply-add" not in text and "copy both reads" not in text
    assert "1 would mean the sum never exceeds the max" in str(ex05.check_drill1("max", 1))
    assert not ex05.check_drill1("max", 1).passed
