"""Fix round 51, notebook 06: "Held long, a kernel can lose 15%" read as a loss that takes long to come,
yet the recorded run lost 13% in its first one-second window, NVML already reporting the power cap;
15% is the lowest window. The page says when the loss appears and how large, the cell prints the first
window beside the burst, and the appendix no longer calls the live 30 s hold perhaps too short. Each
test fails on the text before the fix; the markdown did not grow."""
from __future__ import annotations

import nbformat

from test_lessons_05 import ROOT, _markdown, _printed  # one home
from test_notebooks import markdown_words


def _flat(text: str) -> str:
    return " ".join(text.split())


def _held():
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    return pitfalls.sustained_summary(recorded_experiments()["sustained"])


def test_51_06_did_not_grow():
    nb = nbformat.read(ROOT / "notebooks" / "06_pitfalls.ipynb", as_version=4)
    assert markdown_words(nb) <= 2121  # before this round


def test_51_06_the_loss_is_dated_to_the_first_second_and_sized_from_the_recorded_windows():
    held = _held()
    # the first held window ended about a second in, already 13% under the cool burst, with the power cap
    assert held["first_s"] < 1.05 and held["first_reasons"] == [4]
    first_loss = 1 - held["first_tflops"] / held["cool_tflops"]
    section = _flat(" ".join(_markdown("06"))).split("## Pitfall 8")[1].split("## Pitfall 9")[0]
    assert "Held long" not in section and "lose 15% once" not in section
    # since review 51d: the loss is the symptom, said after the output (the power cap is the cause's)
    assert f"Held, the GEMM lost {first_loss:.0%} within a second" in section
    assert "the software power cap" in section
    # the lowest window, 15% under, stays the symptom's figure
    assert f"{held['low_tflops'] / held['cool_tflops']:.0%} of its ten-launch burst at the lowest" in section


def test_51_06_the_cell_prints_the_first_window_beside_the_burst():
    held = _held()
    line = (f"the first window, to {held['first_s']:.1f} s: {held['first_tflops']:.0f} TFLOP/s, "
            f"{held['first_tflops'] / held['cool_tflops']:.0%} of the cool card's burst")
    assert line == "the first window, to 1.0 s: 695 TFLOP/s, 87% of the cool card's burst"
    assert line in _printed("06")


def test_51_06_the_appendix_says_the_loss_came_at_once():
    page = _flat((ROOT / "docs" / "appendix-06-pitfalls.md").read_text())
    assert "which may be too short for the card to reach its power cap" not in page
    assert ("The loss came at once: the first window, which ended 1.0 s into the hold, ran at 695 TFLOP/s "
            "(87% of the cool microbenchmark), NVML already reporting the software power cap in it") in page
    assert "that is long enough, since the power cap set in within the first second." in page
