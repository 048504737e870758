"""Fix round 38 (review 38c), notebook 05: ncu's roofline chart draws its L1 and L2 roofs from other
counters than the ones the course reads. Each test fails on the text before the fix."""
from test_lessons_03 import cells, markdown, words, appendix

NB = "05_hierarchical.ipynb"
PAGE = "appendix-05-hierarchy.md"
ANCHOR = "#ncus-roofline-chart-which-counters-it-draws"


def _md(cell_id):
    return words(next(c.source for c in cells(NB) if c.get("id") == cell_id))


def test_section_5_is_about_the_counters_peaks_not_ncus_chart():
    # error 2: the 133,257 and 15,425 are l1tex__t_bytes' and lts__t_bytes' peaks, not the chart's roofs
    text = words(markdown(NB))
    assert "Nsight Compute's own chart" not in text and "draws rooflines of its own" not in text
    head = _md("9437f8c3-ncu")
    assert head.startswith("## 5. Nsight Compute's peaks")
    assert "For each counter ncu reports a **theoretical peak**" in head
    assert "Against the measured roofs" in head
    after = _md("cc5a9b48")
    assert "its L2 and L1 peaks are not" not in after
    # review 39c: one sentence; the chart's counters are the appendix's (linked from the section it points to)
    assert "ncu's L1 and L2 peaks are its counters' rates" in after  # review 46c
    assert "#measured-roofs-against-ncus-peaks)" in after and ANCHOR not in after
    measured = words(appendix(PAGE).split("## Measured roofs against ncu's peaks")[1].split("\n## ")[0])
    assert f"ncu's roofline chart draws its L1 and L2 roofs from other counters ([below]({ANCHOR}))" in measured


def test_only_lab4s_profile_counts_the_partition_traffic():
    # error 1: ncu's chart plots the bytes the L2 sends to the SMs, not lts__t_bytes
    # review 39c: the caution is the appendix's "Try it yourself"; "1.5 times as much", not "more"
    assert "**Caution:**" not in _md("7483eee1")
    caution = words(appendix(PAGE).split("## Try it yourself")[1])
    assert "ncu's own chart and" not in caution and "1.5 times more" not in caution
    assert "`lts__t_bytes`), not notebook 05's \"to L2\" bytes: about 1.5 times as much" in caution
    assert "two partitions, which ncu's chart leaves out" in caution


def test_the_takeaway_names_the_total_traffic_peaks():
    last = _md("b44e88ec")
    assert "ncu's derived L1 and L2 peaks" not in last
    # review 39c; review 44c: with the qualifier (the counters this course reads)
    assert "Judge headroom against a measured roof, not against ncu's L1 and L2 peaks." in last


def test_shared_fetches_are_a_hypothesis_beside_l1_hits():
    # error 3: the appendix calls the mechanism a hypothesis and finds part of the excess in L1 hits
    text = _md("9437f8c3")
    assert "beats that roof because its blocks share fetches" not in text
    # review 39c: the mechanism left unmeasured is labelled; the 98% is the reading
    # review 44c: the labelled hypothesis is the appendix's note, which section 4 links
    assert "Hypothesis:" not in text and "#is-the-l2-roof-the-right-one-for-ws_read)" in text
    assert "Hypothesis: each byte's 25 readers reach it at different times." in words(appendix(PAGE))


def test_the_appendix_names_the_charts_counters_with_provenance():
    raw = appendix(PAGE)
    assert "\n## ncu's roofline chart: which counters it draws\n" in raw
    section = words(raw.split("\n## ncu's roofline chart: which counters it draws\n")[1].split("\n## ")[0])
    page = words(raw)
    for fact in ("`SpeedOfLight_HierarchicalSingleRooflineChart.section`", "2026-12-03", "Nsight Compute 2025.3.1",
                 "`--clock-control none`", "SM clock 1.98 GHz, L2 clock 1.71 GHz",
                 "`l1tex__lsu_writeback_active_mem_lgds` x 128 B", "`lts__lts2xbar_cycles_active` x 32 B",
                 "132 per cycle x 128 B x 1.98 GHz = 33.5 TB/s", "188 per cycle x 32 B x 1.71 GHz = 10.3 TB/s",
                 "9.02 KB per cycle x 1.71 GHz = 15.4 TB/s", "67.58 KB per cycle x 1.98 GHz = 133.8 TB/s"):
        assert fact in section, fact
    # the figures agree with themselves and with the measured roofs (32.1 and 9.76 TB/s)
    assert round(132 * 128 * 1.98e9 / 1e12, 1) == 33.5 and round(188 * 32 * 1.71e9 / 1e12, 1) == 10.3
    assert (round(32.1 / 33.5, 2), round(9.76 / 10.3, 2)) == (0.96, 0.95) and "0.96 and 0.95" in section
    # the wrong attribution is gone from the appendix's table of figures
    assert "| Nsight Compute's own roofline |" not in page and "Nsight Compute's own roofline;" not in page
    assert page.count(f"]({ANCHOR})") >= 2


def test_the_ncu_docstring_calls_the_product_a_counters_peak():
    from rooflinelib.hierarchy import ncu
    doc = " ".join(ncu.__doc__.split())
    assert "Their product is ncu's ceiling" not in doc
    assert "Their product is ncu's peak for that counter" in doc
    assert "ncu's roofline chart draws its L1 and L2 roofs from other counters" in doc


def test_the_markdown_word_count_did_not_grow():
    # 1,529 before review 38c's fixes
    assert sum(len(c.source.split()) for c in cells(NB) if c.cell_type == "markdown") <= 1529
