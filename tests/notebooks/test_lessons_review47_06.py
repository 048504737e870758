"""Notebook 06, fix round 47: the slips of a fresh expert read of the round-45 text.

Each test fails on the notebook (or library) as it was before this round and passes now."""
from __future__ import annotations

from math import log2

import nbformat

from test_lessons_05 import ROOT, _cells, _markdown, _printed  # one home
from test_notebooks import markdown_words

#: The markdown words before this round; the round must not grow them.
WORDS_BEFORE = 2122


def _flat(text: str) -> str:
    return " ".join(text.split())


def _text() -> str:
    return _flat(" ".join(_markdown("06")))


def _section(start: str, end: str) -> str:
    return _text().split(start)[1].split(end)[0]


def test_the_round_did_not_grow_the_markdown():
    nb = nbformat.read(ROOT / "notebooks" / "06_pitfalls.ipynb", as_version=4)
    assert markdown_words(nb) <= WORDS_BEFORE


def test_the_236_is_said_to_come_from_counting_like_overlap_save_not_from_the_products():
    # item 1: "omits the products (about 236 with them)" read as if the products lowered 345 to 236.
    # The products raise it (to ~351); 236 is the count on overlap-save's basis: one transform fewer
    # (the filter's made once), the products added.
    from rooflinelib.lessons import pitfalls
    n, m = 2 ** 22, 2 ** 12
    length = pitfalls.algorithm_race(n, m)["length"]
    transforms = pitfalls.fft_correlation_flops(length) / n
    products = 6 * (length // 2 + 1) / n
    assert round(transforms) == 345 and round(transforms + products) == 351
    assert round(transforms * 2 / 3 + products) == 236
    section = _section("## Pitfall 7", "## Pitfall 8")
    assert "omits the products" not in section and "with them" not in section
    # review 51d, 16: the figure has its unit; the printed legend above says how each column counts
    assert "Counted overlap-save's way, the whole-signal route needs 236 FLOPs per output." in section
    assert "345" in _printed("06")  # the column the sentence corrects is on the page


def test_the_opening_names_all_three_mixes():
    # item 2: three mixes named, two identifiers given; the write mix is `dram` in Lab 1's run
    from rooflinelib.lessons import pitfalls
    machine, _ = pitfalls.recorded_mix_roofs()
    assert machine.ceiling("dram").value == machine.ceiling("dram-write").value
    assert "write" in machine.ceiling("dram").label
    opening = _flat("".join(_cells("06")[0]["source"]))
    assert "copy, read or write (`dram-copy`, `dram-read`, and `dram` for writes, the fastest;" in opening


def test_the_opening_charts_ridge_is_said_to_be_the_write_roofs():
    # item 2: the ridge marker sits on the write roof while most points are scored on other mixes
    from rooflinelib.lessons import pitfalls
    from rooflinelib.views.plotting import roofline_figure
    machine, memory = pitfalls.recorded_mix_roofs()
    fig = roofline_figure(machine, pitfalls.recorded_points(), compute=["fp32"], memory=memory)
    ridge = next(t for t in fig.data if getattr(t, "meta", None) == "ridge:fp32")
    fp32 = machine.ceiling("fp32").value
    assert abs(ridge.x[0] - fp32 / machine.ceiling("dram-write").value) < 1e-9
    assert abs(ridge.x[0] - fp32 / machine.ceiling("dram-copy").value) > 0.5
    code = "".join(_cells("06")[2]["source"])
    assert "(ridge marked on the write roof)" in code


def test_the_starved_grids_494x_is_said_plainly():
    # item 3: "the chart's 494x adds the full grid's 2.8x" was too compressed
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    starved, full = recorded_experiments()["starved"].variants
    machine, _ = pitfalls.recorded_mix_roofs()
    rows = pitfalls.roof_shares([pitfalls.MixPoint(v.name, v.n_flops, v.n_bytes, v.gflops, "dram-copy")
                                 for v in (starved, full)], machine)
    slower, under = full.gflops / starved.gflops, rows[1]["roof_gflops"] / full.gflops
    assert round(slower) == 174 and f"{under:.1f}" == "2.8" and round(slower * under) == 494
    text = _text()
    assert "494x adds" not in text
    assert ("Two blocks ran 174x slower than the full grid, which ran 2.8x under the roof: hence the "
            "chart's 494x") in text


def test_the_bound_lists_memory_time_beside_the_other_three():
    # item 2: "the slowest of three times" left out the bytes at the memory roof
    remedy = _section("## Pitfall 5", "## Pitfall 6").split("**Remedy.**")[1]
    assert "of three times" not in remedy
    assert "bytes at the memory roof" in remedy and "exps at the MUFU roof" in remedy


def test_the_stride_tables_values_sit_under_their_headers():
    # item 3: both values printed under "32-B sectors" because the 30-wide field ran past its header
    from rooflinelib.lessons import pitfalls, pitfalls_lesson
    for text in (pitfalls_lesson.stride_table_text(), _printed("06")):
        lines = text.splitlines()
        i = next(k for k, line in enumerate(lines) if line.startswith("stride") and "64-B fetch" in line)
        header, rows = lines[i], lines[i + 1:i + 7]
        ends = [header.index(name) + len(name) for name in ("stride", "32-B sectors", "64-B fetch")]
        for stride, row in zip((1, 2, 4, 8, 16, 32), rows):
            values = (stride, pitfalls.strided_amplification(stride),
                      pitfalls.strided_amplification(stride, transaction_bytes=pitfalls.GPU_DRAM_ACCESS_BYTES))
            for end, value in zip(ends, values):  # each value right-aligned to its header's last column
                token = f"{value:g}"
                assert row[end - len(token):end] == token and row[end:end + 1] in ("", " "), (row, value)
    assert "16                                8   16" not in _printed("06")


def test_pitfall_8_contrasts_a_short_burst_with_a_long_hold():
    # items 2 and 3: "The ceiling held still" missed the contrast; the hot-card burst and the burst's
    # clock were named but never shown on the page
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    held = pitfalls.sustained_summary(recorded_experiments()["sustained"])
    assert f"{1 - held['hot_tflops'] / held['cool_tflops']:.0%}" == "2%"
    section = _section("## Pitfall 8", "## Pitfall 9")
    assert "The ceiling held still" not in section and "hot card" not in section
    # review 51d, 17: the 13% is the symptom, after the output; the hot burst's 2% is printed by the cell
    assert "Ceiling runs are short bursts." in section and "Held, the GEMM lost 13% within a second" in section
    assert "(2% lower)" in _printed("06")
    assert "burst's clock" not in section
    assert "NVML sampled no clock during the burst: compare rates, not clocks." in section
