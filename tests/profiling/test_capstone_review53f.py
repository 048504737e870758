"""Review 53f: the capstone's mode text, the fastest-mix aside and the measured-ratio hint."""
import json
from pathlib import Path

import pytest

from rooflinelib.profiling import capstone, recorded

SOLUTION = Path(__file__).resolve().parents[2] / "solutions" / "06_place_your_kernel_capstone.ipynb"


def _cell(i):
    return " ".join("".join(json.loads(SOLUTION.read_text())["cells"][i]["source"]).split())


def test_where_it_runs_names_cpu_mode_and_recorded_mode():
    text = _cell(0)
    assert "without one, notebook 04's CPU pair is measured" in text
    assert "in recorded mode, the course's recorded H200 profiles stand in" in text
    assert "without one, the profiles recorded on the course's H200" not in text
    # the counters and kernel times exist only in recorded mode
    assert "(recorded mode adds counters)" in _cell(25) and "(recorded mode) the launches" in _cell(25)


def _raw_pair():
    return {v: recorded.recorded_profiles()[name] for v, name in capstone.RECORDED_SOFTMAX.items()}


def test_the_aside_does_not_call_the_fastest_mix_the_write():
    raw = _raw_pair()
    copy = capstone.RECORDED_PROFILES_COPY_GBPS
    text = capstone.comparison(raw, 2.5, copy_gbps=copy)
    assert "roof of the fastest mix," in text and "the write" not in text
    # the copy is the fastest mix: no aside repeating the same shares
    same = capstone.comparison(raw, 2.5, copy_gbps=raw["3-pass"].peak_gbps)
    assert "fastest mix" not in same and f"the {raw['3-pass'].peak_gbps:,.0f} GB/s copy roof" in same


def test_the_recorded_measured_ratio_is_named_as_the_measurement():
    pair = capstone.recorded_softmax(capstone.recorded_pair()[0])
    measured = pair["3-pass"].seconds / pair["fused"].seconds
    assert round(measured, 2) == 3.02
    for answer in (3.02, round(measured, 3)):
        check = capstone.check_prediction(answer, 16384, 4096)
        assert check.status == "fail" and "speed-up measured on the recorded H200 profiles" in check.message
        assert "24 per element" not in check.message
    for answer in (3.0, "3x"):
        check = capstone.check_prediction(answer, 16384, 4096)
        assert "24 per element" in check.message and "measured" not in check.message
