"""Keys 1, 4 and 5 after reviews 27k2 (keys 4-5) and 28k1 (key 1).  Each test calls a check with an
answer the review tried and fails on the key before this round."""
from rooflinelib.exercises import ex04_place_kernel as ex04

RECORDED = ex04.prepare("recorded", progress=None)


# one set of answers built from the key, shared with the keys-21 tests
from test_exercise_keys_review21 import _answers, _check  # noqa: E402


# --- fix 1: key 4's hints name the slip's cause, not the key's relation (review 27k2 item 2) ----

def test_fix1_key4_factor_2_hints_do_not_state_twice_or_half_the_key():
    red = ex04._keys(RECORDED)["reduction"]
    cases = (("reduction roof", "reduction_roof", 2 * red["roof"], "2 FLOPs per add"),
             ("reduction roof", "reduction_roof", red["roof"] / 2, "8 bytes per element"),
             ("reduction achieved", "reduction_gflops", 2 * red["achieved"], "2 FLOPs per add"),
             ("reduction achieved", "reduction_gflops", red["achieved"] / 2, "fewer FLOPs than elements"))
    for question, arg, value, cause in cases:
        check = _check(_answers(RECORDED, **{arg: value}), question)
        assert check.status == "fail", (arg, value, check)
        assert "twice the key" not in check.message and "half the key" not in check.message, check
        assert cause in check.message, (arg, value, check.message)


# --- fix 2: key 5 drill 1: the max is a bound, the sum the no-overlap case (review 27k2) -------

def test_fix2_drill1_hint_and_question_say_what_is_optimistic_truly():
    import json
    from pathlib import Path
    from rooflinelib.exercises import ex05_drills as ex05
    check = ex05.check_drill1("sum", 2).checks[0]
    assert check.status == "fail" and "cautious" not in check.message
    assert "no-overlap case" in check.message
    assert ex05.check_drill1("max", 2).passed
    root = Path(__file__).resolve().parents[2]
    for path in ("solutions/05_conceptual_drills.ipynb", "exercises/05_conceptual_drills.ipynb"):
        cells = json.loads((root / path).read_text())["cells"]
        text = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        drill1 = text[text.index("## Drill 1"):text.index("## Drill 2")]
        assert "Which step is the optimistic one" not in drill1, path
        assert "Taken as the run time, which is the optimistic one" in drill1, path


# --- fix 4: key 1's figure refuses stray extras (review 28k1 K1-1) ------------------------------

import pytest  # noqa: E402

from rooflinelib.exercises import ex01_two_kernels as ex01  # noqa: E402

_CEILINGS = [("dram", "memory", 3_000), ("dram-2tbs", "memory", 2_000), ("fp32", "compute", 120_000)]
_POINTS = [(20, 60e3, None), (20, 40e3, "dram-2tbs"), (80, 120e3, None), (80, 120e3, "dram-2tbs")]


def _figure(ceilings, points):
    pytest.importorskip("plotly")
    from rooflinelib.core.model import Ceiling, Machine
    from rooflinelib.core.placement import KernelPoint
    from rooflinelib.views.plotting import roofline_figure

    machine = Machine("m", ceilings=tuple(Ceiling(*c) for c in ceilings))
    return roofline_figure(machine, [KernelPoint(f"k{i}", x, 1, rate, memory_ceiling=m)
                                     for i, (x, rate, m) in enumerate(points)])


def test_fix4_the_right_figure_still_passes():
    assert ex01.check_figure(_figure(_CEILINGS, _POINTS)).passed


@pytest.mark.parametrize("ceilings, points, words", [
    (_CEILINGS, _POINTS + [(20, 50e3, None)], "a point at 20 FLOP/byte, 50,000 GFLOP/s"),
    ([("slow", "compute", 60_000)] + _CEILINGS, _POINTS, "a compute ceiling at 60,000 GFLOP/s"),
    (_CEILINGS + [("dram-1tbs", "memory", 1_000)], _POINTS, "a memory ceiling at 1,000 GB/s"),
])
def test_fix4_figure_refuses_extras_naming_them(ceilings, points, words):
    check = ex01.check_figure(_figure(ceilings, points))
    assert check.status == "fail", check
    assert words in check.message and "remove" in check.message, check.message


# --- fix 3: key 4's slow-fp64 note uses the loaded GPU's own numbers (review 27k2 item 1) ---------

def test_fix3_slow_fp64_note_speaks_of_this_gpu_not_another():
    from rooflinelib.core.model import Ceiling, Machine
    machine = Machine("made-up 4090-like GPU",
                      (Ceiling("dram", "memory", 1000.0, "made up, spread 1.0%", "DRAM"),
                       Ceiling("fp32", "compute", 82560.0, "made up, spread 1.0%", "fp32 FMA"),
                       Ceiling("fp64", "compute", 1290.0, "made up, spread 1.0%", "fp64 FMA")),
                      kind="measured", provenance={"kind": "gpu"})
    n = 2 ** 27
    red = ex04.KernelRun("reduction", n, 4 * n / (950.0 * 1e9), 0.01, 20, True, "gpu_sum", "GPU")
    fma = ex04.KernelRun("fma", n, 128 * n / (0.8 * 16 * 1000.0 * 1e9), 0.01, 20, True, "gpu_sweep", "GPU")
    setup = ex04.Setup(machine, red, fma, "file", "made up", ())
    text = " ".join(ex04.model_verdict(setup, "the verdict depends on the ridge of the ceilings").also)
    k = ex04._keys(setup)["reduction"]
    assert "1/64-rate fp64" not in text, text
    assert "On this GPU fp64 runs at 1/64 of the fp32 rate" in text, text
    assert f"{k['ridge'] / 2:.3g} FLOP/byte, is {k['ridge'] / 2 / k['intensity']:.2g} times" in text, text
    # the recorded H200 (fp64 at half the fp32 rate) keeps the general sentence
    recorded = " ".join(ex04.model_verdict(RECORDED, "the verdict depends on the ridge of the ceilings").also)
    assert "1/64-rate fp64" in recorded
    assert "On this GPU fp64 runs at" not in recorded


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_no_page_promises_hints_that_never_give_the_answer_away(folder):
    # review 31: slip hints name the slip and its size ("twice the key: ..."), which a student can
    # invert, so the pages promise what the hints do (name the slip), not that they hide the answer
    from pathlib import Path
    import nbformat
    pages = sorted((Path(__file__).resolve().parents[2] / folder).glob("0[1-5]_*.ipynb"))
    assert len(pages) == 5
    for page in pages:
        text = " ".join(c.source for c in nbformat.read(page, 4).cells if c.cell_type == "markdown")
        assert "never give the answer away" not in text, page.name
        assert "A hint names the likely slip behind a wrong answer, so read it before trying again." in text, page.name
