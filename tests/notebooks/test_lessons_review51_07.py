"""Notebook 07, fix round 51: a fresh expert read's minor items.

1. Two ridges, 14 (printed in section 3) and 15.5 (section 3's prose and section 4's figure), read as
   one machine's one ridge: section 3 now says the printed one is on Lab 1's fastest DRAM roof and the
   other on the recorded profiles' copy roof.
2. "copy roof" was used before section 4 said what it is: it is defined where first used.
3. The tiled kernels' pass count, "(16 + 4 × 16) and (16 + 4 × 2) per 16 FFMAs", was dense: it is said
   in words, each number named, and reproduced here from the recorded SASS.
Each test fails on the notebook as it was before; the markdown did not grow."""
from __future__ import annotations

from test_lessons_07 import _cells, _printed, _prose  # noqa: F401  (one home)

WORDS_BEFORE = 2077


def _flat(text: str) -> str:
    return " ".join(text.split())


def _md(start: str) -> str:
    return _flat(next(c.source for c in _cells() if c.cell_type == "markdown" and c.source.startswith(start)))


def test_51_07_did_not_grow():
    assert sum(len(c.source.split()) for c in _cells() if c.cell_type == "markdown") <= WORDS_BEFORE


def test_51_07_section_3_says_which_ridge_is_which():
    from rooflinelib.profiling import capstone, gemm_targets
    from rooflinelib.store.results import dram_mixes, recorded, recorded_h200
    three = _md("## 3. Predict")
    assert "its copy roof gives a ridge of 15.5" not in three
    assert "The ridge below is on its fastest DRAM roof." in three
    # the ridge printed below: the shipped Lab 1's fp32 over its fastest mix, the write, named in the output
    shipped, mixes = recorded_h200(), dram_mixes(recorded("ceilings"))
    assert max(mixes, key=mixes.get) == "write"
    assert f"ridge: {shipped.ceiling('fp32').value / mixes['write']:.3g} FLOP/byte" == "ridge: 14 FLOP/byte"
    assert "ridge: 14 FLOP/byte (fp32 65,894.9 GFLOP/s over DRAM (write) 4,692.6 GB/s" in _printed()
    # the other: the recorded profiles' run, fp32 over its copy mix
    fp32, _, _ = gemm_targets.recorded_roofs(capstone.recorded_pair()[0])
    copy_ridge = fp32 / capstone.RECORDED_PROFILES_COPY_GBPS
    assert f"on their run's **copy roof**, a copy's DRAM rate (ridge {copy_ridge:.1f})" in three  # review 51e


def test_51_07_the_copy_roof_is_defined_where_first_used():
    prose = _flat(_prose())
    first = prose.index("copy roof")
    assert prose[first - 2:].startswith("**copy roof**, a copy's DRAM rate")
    assert first < prose.index("## 4. Measure")


def test_51_07_the_pass_count_is_in_words_and_reproduces_the_recorded_passes():
    from rooflinelib.profiling import gemm_targets
    text = _md("The hardware's sectors per request")
    assert "(16 + 4 × 16)" not in text and "one's passes" not in text
    # review 51e: the counts first, then the factor they imply, said to be this kernel's, not a rule
    said = ("`sa`'s 4 loads took 64 and 8 of the 80 and 24 passes per 16 FFMAs: 16 and 2 each, twice its "
            "4-byte loads' 8 and 1.")
    assert said in text
    assert text.index(said) < text.index("That factor is this kernel's")
    recorded = gemm_targets.recorded_counters()
    rows = gemm_targets.recorded_rows(recorded)
    for name, sa_passes, total in (("tiled, threadIdx.x -> row", 8, 80), ("tiled, threadIdx.x -> column", 1, 24)):
        sass = recorded["variants"][name]["sass"]
        assert (sass["FFMA"], sass["LDS"], sass["LDS.128"]) == (16, 16, 4)
        passes = sass["LDS"] * 1 + sass["LDS.128"] * 2 * sa_passes
        assert passes == total
        assert round(passes / sass["FFMA"], 1) == round(rows[name]["shared_passes_per_ffma"], 1)
