"""Review 53d, notebook 06: pitfall 2's 70% was stated as what `sweep` hid, but it is derived, not
measured: (t_memory + t_compute - t_overlapped) / min over the two phases timed alone, which assumes the
fused kernel's phases would run as fast as the separate kernels. The page now says what it is reckoned
from. The test fails on the text before the fix; the markdown did not grow (round 51d's count)."""
import nbformat

from test_lessons_05 import ROOT
from test_notebooks import markdown_words
from test_lessons_review47_06 import _flat, _text

from rooflinelib.experiments.record import recorded_experiments
from rooflinelib.lessons import pitfalls


def test_53d_06_the_hidden_share_says_it_is_reckoned_from_the_phases_alone():
    hidden = pitfalls.overlap_hidden(recorded_experiments()["overlap"])
    text = _flat(_text())
    assert (f"hiding {hidden:.0%} of the shorter phase behind the longer (from each phase's time alone), "
            "where the roofline assumes 100%.") in text
    assert "behind the longer, where the roofline assumes 100%" not in text
    nb = nbformat.read(ROOT / "notebooks" / "06_pitfalls.ipynb", as_version=4)
    assert markdown_words(nb) <= 2121
