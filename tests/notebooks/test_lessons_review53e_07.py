"""Review 53e, notebook 07: ncu's byte ratio was "measured on hardware", read as if the timed runs'
conditions were tested. Nsight Compute flushes the caches before each kernel (section 2 says it
enforces the between-launch rule rather than testing it), so the ratio is measured on flushed caches.
The test fails on the text before the fix; the markdown stays within round 51e's count."""
from test_lessons_07 import _cells


def _md(start: str) -> str:
    return " ".join(next(c.source for c in _cells() if c.cell_type == "markdown" and c.source.startswith(start)).split())


def test_53e_07_the_byte_ratio_says_it_was_measured_on_flushed_caches():
    rule = _md("## 2. Count the bytes")
    assert "flushes the caches before each kernel, so it enforces the rule there rather than testing it" in rule
    readings = _md("Three readings:")
    assert "measured on hardware." not in readings
    assert "is the byte half of the prediction, measured on flushed caches." in readings
