"""Notebook 06 as a lesson: the library behind its figures and statements.

Each test here fails on the code the course issue (item by item) found wrong."""
from __future__ import annotations
import re
from pathlib import Path
import pytest
from rooflinelib.store.results import recorded_h200

from test_lessons_05 import _legend_entries, ROOT, _cells, _markdown, _printed, _code, _prose, recorded


def test_pitfall_7_says_where_a_direct_kernel_at_its_roof_would_have_won():
    # issue 24: at m = 256 and 1024 the direct kernel at 100% of its roof (32 and 130 us) beats
    # cuFFT (386 us); the FFT "won" there only against a kernel at 8% of its roof.
    from rooflinelib.lessons import pitfalls
    from rooflinelib.experiments.record import recorded_experiments
    rows = {r["m"]: r for r in pitfalls.race_rows(recorded_experiments()["algorithm_sizes"])}
    assert sorted(rows) == [256, 1024, 4096, 16384]
    assert all(r["fft_beats_measured"] for r in rows.values())
    assert [rows[m]["fft_beats_roof"] for m in sorted(rows)] == [False, False, True, True]
    assert rows[256]["direct_at_roof_s"] == pytest.approx(32.5e-6, rel=0.01)
    assert rows[1024]["direct_at_roof_s"] == pytest.approx(130e-6, rel=0.01)
    assert all(0.07 < r["fraction_of_roof"] < 0.09 for r in rows.values())


def test_a_clock_that_held_still_is_read_at_one_value():
    from rooflinelib.lessons import pitfalls
    from rooflinelib.experiments.record import recorded_experiments
    seen = pitfalls.clocks_seen(recorded_experiments()["clocks"])
    assert pitfalls.mhz_text(min(seen), max(seen)) == "at 1,980 MHz"
    assert pitfalls.mhz_text(2596.2, 2595.9) == "at 2,596 MHz"
    assert pitfalls.mhz_text(1485, 1560) == "between 1,485 and 1,560 MHz"


def test_the_gemm_tile_use_case_does_not_offer_a_tile_no_sm_can_hold():
    # issue 24 item 11: "tiles of at least 613 (1024 as a power of two)" from the no-L2 model
    from rooflinelib.lessons import use_cases
    figure = next(r["figure"] for r in use_cases.use_case_rows() if r["use"].startswith("GEMM tile"))
    assert "1024 as a power of two" not in figure
    assert "128 x 256" in figure and "registers" in figure and "L2" in figure
    assert use_cases.tile_intensity(128, 256, "bf16") == pytest.approx(85.33, rel=1e-3)


def test_a_small_models_step_is_not_said_to_sit_on_its_roof():
    # issue 24, section 6: the GEMMs of a one-million-parameter model cannot "sit on their roof"
    from rooflinelib.lessons import step_roofs
    from rooflinelib.views import widget_state
    from rooflinelib.modes import RunMode
    roofs = step_roofs.step_roofs_for(RunMode("recorded", None, "recorded"))
    small = widget_state.link_step_state(roofs, n_params=10 ** 6, tokens=4096, bytes_per_token=768).text()
    assert "can sit on its roof" not in small and "pitfall 1" in small
    large = widget_state.link_step_state(roofs, n_params=10 ** 9, tokens=4096, bytes_per_token=768).text()
    assert "pitfall 1" not in large


def test_the_link_step_widgets_labels_are_whole():
    pytest.importorskip("ipywidgets")
    pytest.importorskip("plotly")
    from rooflinelib.lessons import step_roofs
    from rooflinelib.views import widgets
    from rooflinelib.modes import RunMode
    widget = widgets.link_step_widget(step_roofs.step_roofs_for(RunMode("recorded", None, "recorded")),
                                      n_params=10 ** 6)
    assert widget.overlap.indent is False and widget.overlap.layout.width
    assert widget.scenario.style.button_width == "auto"


def test_the_link_step_widgets_legend_has_room_under_its_plot():
    pytest.importorskip("ipywidgets")
    pytest.importorskip("plotly")
    from rooflinelib.lessons import step_roofs
    from rooflinelib.views import widgets
    from rooflinelib.modes import RunMode
    from rooflinelib.views.plotting import LEGEND_ENTRY_PX
    figure = widgets.link_step_widget(step_roofs.step_roofs_for(RunMode("recorded", None, "recorded")),
                                      n_params=10 ** 6).figure
    entries = _legend_entries(figure)
    assert figure.layout.legend.y < 0 and figure.layout.legend.orientation == "v"
    assert figure.layout.margin.b >= LEGEND_ENTRY_PX * entries


# --- the notebooks themselves --------------------------------------------------------------------

def test_notebook_06_does_not_print_exercise_2s_answers():
    code, printed = _code("06"), _printed("06")
    assert "ex02_classify" not in code and "EXERCISE_ROWS" not in code
    assert "row 8" not in printed and "projection GEMM at batch 128" not in printed


def test_notebook_06_reads_a_clock_that_held_still_at_one_value():
    printed = _printed("06")
    assert not re.search(r"between ([\d,]+) and \1 MHz", printed)
    assert "the clock read at 1,980 MHz" in printed


def test_notebook_06_states_what_the_issue_found_wrong_correctly():
    text = "\n".join(_markdown("06"))
    assert "needs no measurement" not in text and "do not run on the FMA pipes" not in text
    assert "MUFU" in text and "lists four" not in text
    page = (ROOT / "docs" / "appendix-06-pitfalls.md").read_text()  # review 44d: the packed note is the appendix's
    assert "163.4" in page and "packed" in page and "81.7" in page
    assert "32 and 130 µs" in text  # pitfall 7: the direct kernel at its roof would win there
    assert "1024 as a power of two" not in _printed("06")


def test_the_profiler_use_case_names_the_dram_mix_it_compares():
    # The DRAM roof is Lab 1's best mix, not necessarily the copy: the row says which.
    from rooflinelib.lessons import use_cases
    figure = next(r["figure"] for r in use_cases.use_case_rows() if r["use"].startswith("vendor"))
    title = recorded_h200().ceiling("dram").title
    assert f"its {title} roof" in figure and "derives from unit throughputs" in figure


def test_notebook_06_runs_a_regression_gate_that_passes_and_one_that_fails():
    # issue 27 item 6: the use case shows a live gate, and a deliberately slowed kernel failing it
    assert "testing.demo_gates(mode)" in _code("06")
    printed = _printed("06")
    assert "- copy: pass," in printed and "- slowed_copy: below," in printed  # review 12d C06-5: one line each


def test_the_figures_notebook_06s_prose_quotes_are_the_recorded_runs():
    # The interpretations are prose with the recorded numbers put in (issue 24): each number
    # here is computed from the shipped runs and must appear in the text as written.
    from rooflinelib.lessons import pitfalls, step_roofs
    from rooflinelib.views import widget_state
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.modes import RunMode
    runs = recorded_experiments()
    text = " ".join(" ".join(_markdown("06")).split())
    launch = runs["launch"].variants
    device = next(v.median_s for v in launch if v.extra.get("part") == "device")
    assert device * 1e6 == pytest.approx(0.64, abs=0.005)  # printed in the cell, not quoted
    # review 26d: the first run's time is the chart's point: the prose gives its factor under the roof
    from rooflinelib.lessons import pitfalls as _pitfalls
    # review 32d: the chart plots the run the section prints (launch_empty's add), not the noisy first run
    charted = next(v for v in runs["launch_empty"].variants if v.extra.get("part") == "kernel")
    under = charted.median_s / (49152 / _pitfalls.recorded_mix_roofs()[0].ceiling("dram-copy").value / 1e9)
    # review 27d E1: the prose's factor holds for the charted run and the printed one alike
    assert under > 5000 and "fp32 vector add sits more than 5,000 times under its roof" in text
    assert f"{under:,.0f}x under it" in _printed("06")
    assert f"{launch[0].median_s * 1e6:.1f} µs" not in text
    # review 9d T6-2: the 26 us dispatch is one float's; the add's three arrays cost 49 us
    empty = pitfalls.recorded_empty_launch()
    one, three = (empty["dispatch_s"][k] * 1e6 for k in ("one float", "three arrays"))
    # review 11d T06-3/C06-2: the second run's one-float dispatch (30 us) is not set beside the
    # first run's (26 us); its three-array figures are printed in one line, the prose reads them
    assert "µs with one float" not in text and "grows with the arguments" not in text
    # review 12d C06-2: the point first; review 18a: the time is the host's dispatch, not the device's launch
    # review 26d: the add's time set beside the empty kernel's, in plain words
    assert "The add took no longer than the empty kernel: the time is mostly the host's **dispatch** (Numba's whole launch path" in text
    assert "the time is the launch, not the bytes" not in text
    # review 15 (R15-3): the second run's dispatch figures are the appendix's
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert f"dispatched in {three:.1f} µs in the second run, against {one:.1f} µs given one float" in page
    starved = runs["starved"].variants
    assert f"Two blocks ran {starved[1].gflops / starved[0].gflops:.0f}x slower than the full grid" in text
    memory, compute, serial, overlapped = (v.median_s for v in runs["overlap"].variants)
    hidden = (memory + compute - overlapped) / min(memory, compute)
    assert pitfalls.overlap_hidden(runs["overlap"]) == pytest.approx(hidden)
    assert f"`sweep` took {overlapped * 1e6:.0f} µs, hiding {hidden:.0%} of the shorter phase" in text
    l2, copy = runs["cache"].variants
    from rooflinelib.store.results import dram_mixes, recorded as recorded_run
    read_roof = dram_mixes(recorded_run("ceilings"))["read"]  # the L2 kernel only reads: its own mix's roof
    assert f"moved {l2.gbps / 1e3:.2f} TB/s: {l2.gbps / read_roof:.1f} times Lab 1's read roof" in text
    exp2, fma = runs["transcendental"].variants
    assert f"`exp2` ran at {exp2.gflops:,.0f} G results/s against {fma.gflops:,.0f} GFLOP/s" in text
    rows = {r["m"]: r for r in pitfalls.race_rows(runs["algorithm_sizes"])}
    assert f"at its roof ({rows[256]['direct_at_roof_s'] * 1e6:.0f} and {rows[1024]['direct_at_roof_s'] * 1e6:.0f} µs) would beat" in text
    assert f"beat this whole-signal FFT (about {rows[256]['fft_s'] * 1e6:.0f} µs)" in text
    assert f"it loses even at its roof to the FFT's {rows[4096]['fft_s'] * 1e6:.0f} µs" in text  # its times: the table's
    sustained = runs["sustained"].variants
    held = min(v.gflops for v in sustained if v.extra.get("part") == "sustained")
    # review 18a: the burst's rate is printed (two lines of evidence), the prose gives the share
    assert f"ten launches, cool card: {sustained[0].gflops / 1e3:.0f} TFLOP/s" in _printed("06")
    assert f"{held / sustained[0].gflops:.0%} of its ten-launch burst at the lowest" in text
    roofs = step_roofs.step_roofs_for(RunMode("recorded", None, "recorded"))
    step = widget_state.link_step_state(roofs, n_params=10 ** 6, tokens=4096, bytes_per_token=768)
    # review 32d: the ratio is printed under the link's table; the prose no longer repeats it
    assert f"HBM over the measured link: {roofs.hbm_gbps / roofs.host_link.gbps:.0f}x" in _printed("06")
    assert f"the GPU waits {step.communication_share:.0%} of the time" in text
    assert f"out of reach twice over: its {step.bounds.compute_s * 1e6:.0f} µs of arithmetic" in text


def test_the_tiny_add_sits_almost_four_decades_under_its_roof_as_06_opens():
    # review 1, item 1: "five decades" for 0.0641 GFLOP/s under a 391 GFLOP/s roof (3.8 decades)
    from rooflinelib.lessons import pitfalls
    from rooflinelib.lessons import pitfalls_lesson
    machine, _ = pitfalls.recorded_mix_roofs()
    rows = pitfalls.roof_shares(pitfalls.recorded_points(), machine)  # review 32d: the chart's points
    add = rows[0]
    assert add["name"].startswith("pitfall 1: 4096-element add") and add["memory"] == "dram-copy"
    assert add["roof_gflops"] == pytest.approx(machine.ceiling("dram-copy").value / 12)
    assert 3.5 < add["decades_under"] < 4
    opening = " ".join("".join(_cells("06")[0]["source"]).split())
    assert "five decades" not in opening
    # review 7d T06-3: the 63.9 µs is the host's dispatch: the opening and the chart's label say so
    # review 10d C06-1: the opening keeps one sentence of meaning; the figures are cell 3's printout
    assert "four decades" not in opening and "569%" not in opening
    # review 11d T06-2: a point above its roof may be miscounted, not only on the wrong roof
    assert "A point far under its roof means another limit is at work; one above it, the wrong roof or miscounted work." in opening
    assert "1: 4096-element add (device events)" in [p[2] for p in pitfalls.RECORDED_POINTS]
    # review 11d C06-3: "decades" was never defined in the notebook; the factor is printed instead
    assert "decades" not in _printed("06") and "decade" not in _prose("06")
    assert f"{1 / add['fraction']:,.0f}x under it" in _printed("06")


def test_pitfall_3s_triage_is_fed_measured_figures():
    # review 1, item 2: the 95% hit rate and 250% were made-up inputs to triage(...)
    from rooflinelib.lessons import pitfalls
    from rooflinelib.experiments.record import recorded_experiments
    facts = pitfalls.recorded_cache_facts()
    l2, copy = recorded_experiments()["cache"].variants
    # review 51d, 7: scored on the kernel's own mix, the read roof (2.10x), as the prose says, not the write roof (2.02x)
    from rooflinelib.store import results as shipped
    assert facts["fraction_of_dram"] == pytest.approx(l2.gbps / shipped.dram_mixes(shipped.recorded("ceilings"))["read"])
    assert 2.09 < facts["fraction_of_dram"] < 2.11 and round(facts["over_copy"], 1) == 2.2
    assert facts["ws_bytes"] < facts["reported_l2_bytes"] == 60 * 2 ** 20
    assert 0.99 < facts["hit_rate"] < 1  # ncu: DRAM read the 25.2 MB set once per 8 GB asked
    code, printed, text = _code("06"), _printed("06"), _prose("06")
    assert "l2_hit_rate=0.95" not in code and "fraction_of_roof=2.5" not in code
    assert f"{facts['hit_rate']:.1%} of its requested bytes did not come from DRAM" in printed
    assert "Pitfall 3" in printed
    # review 7d C06-4: the 99.7% hit rate explains the 202%, so no recount follows it
    assert "Also: Pitfall 6" not in printed and "cache does not fully explain" not in printed
    assert f"Nsight Compute ({facts['hit_rate_when'][:10]})" not in printed  # a date is the appendix's
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    when = facts["hit_rate_when"]
    assert f"recorded {when[:10]}, {when[11:]}" in page
    assert (f"here they are {1 - facts['hit_rate']:.1%} of {facts['fraction_of_dram']:.0%}, about "
            f"{(1 - facts['hit_rate']) * facts['fraction_of_dram']:.1%} of the roof") in page
    assert "95% L2 hit rate" not in text and f"a byte-based **L2 hit rate** of {facts['hit_rate']:.1%}" in text
    # review 16d E2: the byte-based stand-in is named as such, beside ncu's sector-based metric
    # review 19: the sector-based aside is the appendix's
    assert "a byte-based **L2 hit rate**" in text and "ncu's own *L2 Hit Rate* counts sectors" not in text
    assert "ncu's own *L2 Hit Rate* counts sectors" in " ".join(
        (ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert f"its L2 hit rate is {facts['hit_rate']:.1%}" in printed  # was "100%" for 99.7%


def test_both_recorded_launch_runs_are_named_with_their_figures():
    # review 1, item 6: 0.64 us / 25.89 us here, 0.59 us / 30 us in notebook 00: two runs
    from rooflinelib.lessons import pitfalls
    runs = pitfalls.recorded_launch_runs()
    assert [r["experiment"] for r in runs] == ["launch", "launch_empty"]
    assert [r["when"] for r in runs] == ["2026-12-01 10:16 UTC", "2026-12-01 11:57 UTC"]
    assert pitfalls.recorded_launch_costs()["when"] == runs[0]["when"]
    text = _prose("06")
    # review 3: notebook 00 is edited on its own; 06 makes no claim about what 00 quotes
    assert "notebook 00 quotes" not in text
    printed = _printed("06")
    # review 9d T6-2: the second run is quoted for what it adds, Numba's dispatch by arguments,
    # without its date (the appendix has it); its device cost is in the appendix's table
    dispatch = pitfalls.recorded_empty_launch()["dispatch_s"]
    assert dispatch["one float"] * 1e6 == pytest.approx(runs[1]["numba_dispatch_s"] * 1e6)
    # review 15 (R15-3): the launch numbers beyond the one figure are the appendix's
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert f"| {dispatch['three arrays'] * 1e6:.1f} µs | about 4,200 times |" in page
    assert f"{dispatch['one float'] * 1e6:.1f} us" not in printed  # the appendix has the second run's one float
    assert "over both recorded runs" not in printed.lower()
    assert "a recorded run (" not in printed and "a second recorded run" not in printed
    assert "launch costs from a recorded run" not in printed
    assert "the one notebook 00 quotes" not in text


def test_triage_cells_get_the_measured_fractions_of_roof():
    # review 2, item T9: 06 passed 0.02 and 0.55; the recorded runs give 0.002 and 0.5093
    from rooflinelib.lessons import pitfalls
    from rooflinelib.lessons import pitfalls_lesson
    share = {r["name"]: r["fraction"] for r in pitfalls.roof_shares(pitfalls.recorded_points(), pitfalls.recorded_mix_roofs()[0])}
    assert round(share["pitfall 1: grid-stride K=64 on 2 blocks"], 3) == 0.002
    assert round(share["pitfall 2: same FLOPs and bytes, two kernels"], 4) == 0.5093
    code = _code("06")
    assert "fraction_of_roof=0.02," not in code and "fraction_of_roof=0.55," not in code
    assert 'fraction_of_roof=share["pitfall 1: grid-stride K=64 on 2 blocks"]' in code
    assert 'fraction_of_roof=share["pitfall 2: same FLOPs and bytes, two kernels"]' in code


def test_the_measured_tensor_gemm_above_the_vector_roof_is_triaged_as_the_wrong_roof_first():
    # 06 passed a made-up 0.3 for the bf16 GEMM; fed its measured 569%, triage named a counting
    # error first, though the kernel's matrix instructions against a vector roof explain the point
    from rooflinelib.lessons import pitfalls
    from rooflinelib.lessons.triage import KernelFacts, triage
    share = {r["name"]: r["fraction"] for r in pitfalls.roof_shares(pitfalls.recorded_points(), pitfalls.recorded_mix_roofs()[0])}
    gemm = share["pitfall 4: bf16 GEMM (tensor cores)"]
    assert gemm > 5
    wrong_roof = triage(KernelFacts(fraction_of_roof=gemm, side="compute", matrix_instructions=True, roof_is_matrix=False))
    assert wrong_roof.pitfalls == [4, 6] and "matrix roof does not explain" in wrong_roof.text()
    assert triage(KernelFacts(fraction_of_roof=gemm, side="compute")).pitfalls == [6]
    assert triage(KernelFacts(fraction_of_roof=0.3, side="compute", matrix_instructions=True, roof_is_matrix=False)).pitfalls == [4]
    assert 'fraction_of_roof=share["pitfall 4: bf16 GEMM (tensor cores)"]' in _code("06")


def test_a_measured_share_near_100_percent_is_not_printed_as_100():
    # pitfall 3's triage said "its L2 hit rate is 100%" where Nsight Compute counted 99.7%
    from rooflinelib.lessons.triage import KernelFacts, triage
    text = triage(KernelFacts(fraction_of_roof=2.0, side="memory", l2_hit_rate=0.997)).text()
    assert "its L2 hit rate is 99.7%" in text and "100%" not in text
    assert "its L2 hit rate is 100%" in triage(KernelFacts(fraction_of_roof=2.0, side="memory", l2_hit_rate=1.0)).text()


def test_the_sustained_gemms_range_power_and_clock_reason_are_the_recorded_windows():
    # 06 said "680 to 695" (the lowest window is 679.5) and gave no reading for why the clock fell
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.testing import THROTTLE_REASONS
    windows = [v for v in recorded_experiments()["sustained"].variants if v.extra.get("part") == "sustained"]
    low, high = min(v.gflops for v in windows) / 1e3, max(v.gflops for v in windows) / 1e3
    medians = max(v.extra["power_w_median"] for v in windows)
    peaks = max(v.extra["power_w_max"] for v in windows)
    reasons = {r for v in windows for r in v.extra["clock_event_reasons"]} - {0}
    text = _prose("06")
    assert f"ran at {low:.0f} to {high:.0f} TFLOP/s" in text
    # review 9d: the window medians and peaks are printed; the prose names the limit they sit at
    # review 18a: the notebook prints two lines of evidence; the per-window peaks are the appendix's
    assert f"board power up to {medians:.0f} W (window medians), limit 700 W" in _printed("06")
    assert f"per-window peaks up to {peaks:.0f} W" in " ".join(
        (ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "The board ran at its 700 W limit" in text and abs(medians - 700) < 5
    assert [THROTTLE_REASONS[r] for r in sorted(reasons)] == ["software power cap"]
    assert "NVML names the reason: the software power cap" in " ".join(text.split())


def test_the_read_over_copy_ratio_pitfall_3_cites_is_lab_1s_and_printed():
    # 06 said "1.05 times as fast as a copy (notebook 05)"; notebook 05 never says it
    from rooflinelib.store.results import dram_mixes, recorded
    mixes = dram_mixes(recorded("ceilings"))
    # review 44d: the read-only L2 kernel is set against Lab 1's read roof itself, printed from the run
    assert f"Lab 1's read roof: {mixes['read']:,.0f} GB/s" in _printed("06")
    # review 19: cell 0 says Lab 1 is notebook 03's, once; the sentence names Lab 1
    assert "times Lab 1's read roof, its own mix's" in " ".join(_prose("06").split())
    assert "**Lab 1** (notebook 03)" in _prose("06") and "copy (notebook 05)" not in _prose("06")


def test_the_strided_kernels_triage_gets_its_measured_share_and_the_64_byte_fit():
    # 06 passed a made-up fraction_of_roof=0.9 and bytes_ratio=8 for the strided reads
    from rooflinelib.lessons import pitfalls
    share = {r["name"]: r["fraction"] for r in pitfalls.roof_shares(pitfalls.recorded_points(), pitfalls.recorded_mix_roofs()[0])}
    stride16 = share["pitfall 6: stride-16 reads"]
    ratio = pitfalls.strided_amplification(16, transaction_bytes=pitfalls.GPU_DRAM_ACCESS_BYTES)
    assert ratio == 16 and 0.05 < stride16 < 0.07
    code, printed = _code("06"), _printed("06")
    assert "fraction_of_roof=0.9," not in code and "bytes_ratio=8.0" not in code
    assert (f"stride 16: {stride16:.1%} of the dram-read roof counted with the useful bytes "
            f"(stride 1 ran at {pitfalls.recorded_stride_one_share():.0%} of it), {stride16 * ratio:.0%} counted") in printed
    # review 11d T06-5: the 16x is the 64-byte-fetch hypothesis's, and the triage line says so
    assert "the bytes moved are 16x" not in printed and "the profiler counts" not in printed
    assert ("the bytes moved would be 16x the analytic bytes if the L2 fetches 64 B (a hypothesis, not a "
            "counter reading)") in printed
    # the prose says the 16 is the fit's, not a profiler's reading
    assert "the triage gets stride 16's amplification under that hypothesis, 16x" in " ".join(_prose("06").split())
    # review 16d: which strides the fit explains is the appendix's
    assert "Stride 16 is the longest stride the fit explains" in " ".join(
        (ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())


def test_pitfall_5_counts_the_mufu_against_flops_not_fma_instructions():
    # "16 results per clock against 128 FMAs" then "16x apart" read as 8x against 16x
    from rooflinelib.core.machines import H200
    text = _prose("06")
    # review 15 (R15-5): 8 times fewer results than FMAs, 16 times in FLOPs, both said
    assert "16 MUFU results and 128 FP32 FMAs, 8 times fewer" in text and "that is 16 times in FLOPs" in text
    assert round(H200.ceiling("fp32").value / H200.ceiling("sfu").value) == 16
    assert "16x apart" in _printed("06")


def test_notebook_06_stays_short_enough_for_one_sitting():
    # review 2: "06 is long" (2,499 words against the 2,500 cap); the use cases and the gates'
    # detail live in docs/, and the lesson keeps the nine pitfalls and the triage tool
    # review 4b's fixes (the step's HBM bytes, the empty kernel's figure, the stride-1 baseline, the
    # fetch-granularity mechanism, the write roof's hypothesis) added about 60 words: 2,400, under
    # the 2,500 of every lesson. Review 6d asked for the timing protocol's reason, a starved-grid
    # heading, the live sustained run's length and the HBM legend: 2,499, at the lesson cap
    assert sum(len(text.split()) for text in _markdown("06")) <= 2500
    text = "\n".join(_markdown("06"))
    assert all(re.search(rf"^## Pitfall {n}, [a-zA-Z ]+$", text, re.M) for n in range(1, 10))
    assert "## The triage tool" in text
    assert "../docs/ci-gates.md" in text and "../docs/appendix-06-use-cases.md" in text


def test_pitfall_1s_traffic_time_is_at_lab_1s_dram_roof_not_the_datasheets():
    # review 1, item 9: 10.2 ns at the datasheet's 4,800 GB/s
    from rooflinelib.lessons import pitfalls
    # review 5b: the add reads two arrays and writes one, so its traffic is timed at the copy roof
    machine, _ = pitfalls.recorded_mix_roofs()
    copy = machine.ceiling("dram-copy").value
    bounds = pitfalls.recorded_launch_bounds(4096, machine, "dram-copy")
    assert bounds[0][2]["traffic_s"] == pytest.approx(49152 / (copy * 1e9))
    printed, text = _printed("06"), _prose("06")
    assert f"{bounds[0][2]['traffic_s'] * 1e9:.1f} ns of traffic at Lab 1's copy roof, {copy:,.0f} GB/s" in printed
    assert "4,800 GB/s" not in printed
    # review 32d: the device cost's ratio to the traffic is the appendix's; the notebook says "about 0.6 µs"
    assert f"{bounds[0][2]['launch_over_traffic']:.0f} times this add's traffic" not in text
    assert f"| {bounds[0][1] * 1e6:.2f} µs | {bounds[0][2]['launch_over_traffic']:.0f} times |" in " ".join(
        (ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())  # review 15 (R15-3): Numba's ratio is the appendix's
    assert f"| {bounds[1][2]['launch_over_traffic']:,.0f} times |" in page


def test_the_tensor_gemm_is_judged_against_its_own_mix_the_write_roof():
    # review 1, item 8: 98% of the bf16 GEMM's bytes are C's writes; 70% was against the copy
    from rooflinelib.lessons import pitfalls
    from rooflinelib.experiments import pitfall_readings
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.store.results import dram_mixes, recorded
    rows = pitfall_readings.wrong_ceiling_rows(recorded_experiments()["wrong_ceiling"])
    bf16 = next(r for r in rows if r["dtype"] == "bf16" and r["roof"] == "bf16 tensor roof")
    assert bf16["dram_mix"] == "write" and bf16["write_share"] > 0.98
    assert bf16["dram_gbps"] == dram_mixes(recorded("ceilings"))["write"]
    assert round(bf16["fraction"], 2) == 0.63 and bf16["side"] == "memory-bound"
    assert pitfalls.own_dram_mix(1, 1) == "copy" and pitfalls.own_dram_mix(1, 0) == "read"
    with pytest.raises(ValueError, match="read_bytes, write_bytes"):
        pitfalls.own_dram_mix(0, 0)
    text = _prose("06")
    assert "memory-bound at 63%" in text and "memory-bound at 70%" not in text


def test_the_gates_roof_is_named_by_its_run():
    # review 1, item 10: "Lab 1's copy ceiling" 4,258 here against 4,280 in notebook 03
    from rooflinelib import testing
    from rooflinelib.store.results import dram_mixes, recorded
    # The session's detail (4,258 against the shipped 4,280) lives in docs/ci-gates.md; 06 names the run.
    from rooflinelib.store.fileio import read_text
    gates = testing.recorded_gates()
    roof = gates["gates"][0]["roof"]
    text = _prose("06")
    assert "Both use the copy roof of the gates' own session" in " ".join(text.split())  # review 17c
    assert "of Lab 1's copy ceiling" not in text
    page = " ".join(read_text(ROOT / "docs" / "ci-gates.md", ValueError, 1_000_000).split())
    assert f"gated on the H200 on {gates['created'][:10]} at {gates['created'][11:16]} UTC" in page
    assert f"Their roof, {roof:,.0f} GB/s, is the DRAM copy ceiling of a Lab 1 run" in page
    assert f"not the shipped Lab 1 run's {dram_mixes(recorded('ceilings'))['copy']:,.0f} GB/s" in page


def test_the_use_cases_live_in_the_appendix_and_06_keeps_the_live_gate():
    # review 1, clarity: 06 too long for one sitting; the use cases move to docs/
    from rooflinelib.lessons import use_cases
    from rooflinelib.store.fileio import read_text
    page = read_text(ROOT / "docs" / "appendix-06-use-cases.md", ValueError, 1_000_000)
    assert use_cases.use_case_markdown() in page
    assert "use_case_rows" not in _code("06") and "../docs/appendix-06-use-cases.md" in "\n".join(_markdown("06"))
    assert "testing.demo_gates(mode)" in _code("06")


def test_06_prints_dates_not_the_minutes_of_its_recorded_runs():
    import re
    printed = _printed("06")
    assert not re.search(r"\d\d:\d\d UTC", printed) and "the run of" not in printed


def test_06s_stride_32_pairs_each_prediction_with_its_own_time():
    from rooflinelib.lessons import pitfalls
    text = _prose("06")
    assert "6.25% and about 123 µs" not in text
    # review 5b, C06-5: the notebook says stride 32 is unexplained; the prediction's figures are the appendix's
    # review 15d: the two unexplained readings are the appendix's; the notebook names and links them
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "the run measured 5.5% in 149 µs" in page and "stride 32 took 149 µs" not in text
    # review 16d: one hedge, the two exceptions linked (the appendix names them)
    # review 26d: the link text is plain; review 32d: "two strides do not fit it" said what it means
    assert "so from stride 16 on no two useful floats share a fetch. Stride 32 ran slower than that predicts ([appendix](../docs/appendix-06-pitfalls.md#pitfall-6-the-dram-unit))" in " ".join(text.split())
    assert "two strides do not fit it" not in text
    assert "Stride 32 fits neither" in page and "stride 1 itself ran slower" in page
    assert ("stride 16's amplification under that hypothesis, 16x; for your own kernel, Nsight Compute's"
            in " ".join(text.split()))
    assert pitfalls.strided_amplification(32, transaction_bytes=pitfalls.GPU_DRAM_ACCESS_BYTES) == \
        pitfalls.strided_amplification(16, transaction_bytes=pitfalls.GPU_DRAM_ACCESS_BYTES) == 16
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "predicts 6.25%" not in page and "and so stride 16's useful share, 6.6%" in page


def test_a_gate_is_said_to_catch_a_change_that_slows_only_the_kernel():
    text = _prose("06")
    assert "A new driver or clock moves kernel and roof together" not in text
    assert ("A change that slows only the kernel, such as a compiler or library update, lowers the share"
            in " ".join(text.split()))
    page = " ".join((ROOT / "docs" / "ci-gates.md").read_text().split())
    assert "a new driver or a different clock moves the kernel and the roof together" not in page
    assert "slows only the kernel" in page


def test_each_pitfall_has_one_short_name_in_the_table_and_its_heading():
    import re
    glance = next(cell for cell in _markdown("06") if cell.startswith("## The nine at a glance"))
    table = [line for line in glance.splitlines() if re.match(r"\| \d ", line)]
    names = {int(line.split()[1]): line.split("|")[1].strip()[2:] for line in table}
    assert len(names) == 9
    headings = [line for cell in _markdown("06") for line in cell.splitlines() if line.startswith("## Pitfall ")]
    assert [h.split(":")[0] for h in headings] == [f"## Pitfall {n}, {names[n]}" for n in range(1, 10)]



# --- review 4b (05): the read-only explorer on the read mix, the undercounted launch, the L2 series

def test_the_64_byte_fit_names_the_l2_fetch_granularity_and_the_slow_stride_1_baseline():
    from rooflinelib.experiments.record import recorded_experiments
    text = " ".join(_prose("06").split())
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "not a documented figure" not in text and "`cudaLimitMaxL2FetchGranularity`" in page
    strided = recorded_experiments()["strided"].variants
    base, two = strided[0], strided[1]
    others = [v.median_s for v in strided[1:5]]
    assert base.median_s > max(others)  # stride 1 ran slower than strides 2 to 16
    assert (f"stride 1 itself ran slower ({base.median_s * 1e6:.0f} µs) than strides 2 to 16 "
            f"({min(others) * 1e6:.0f} to {max(others) * 1e6:.0f} µs)") in page
    assert "Stride 32 ran slower than that predicts" in " ".join(text.split())  # review 15d/16d/32d: detail in the appendix
    assert f"so stride 2 shows {two.gbps / base.gbps:.1%} rather than 50%" in page  # review 15: the appendix's


def test_the_empty_kernel_beside_the_tiny_add_is_quoted_with_its_figures():
    from rooflinelib.lessons import pitfalls
    pair = pitfalls.recorded_empty_kernel_pair()
    text = " ".join(_prose("06").split())
    # review 11d C06-2: the second run's figures are one printed line; the prose reads them
    # review 15 (R15-3): the pair is the launch section's one figure; the prose reads it
    assert (f"between device events: the add {pair['add_s'] * 1e6:.1f} us, an empty kernel given the same "
            f"three arrays {pair['empty_s'] * 1e6:.1f} us") in _printed("06")
    assert "beside an empty kernel given the same arrays" in text and "took no longer than the empty kernel" in text


def test_the_link_steps_hbm_bytes_are_defined_and_its_output_is_in_lines():
    from rooflinelib.lessons import step_roofs
    from rooflinelib.views import widget_state
    from rooflinelib.modes import RunMode
    from rooflinelib.core.interconnect import WEIGHT_PASSES
    roofs = step_roofs.step_roofs_for(RunMode("recorded", None, "recorded"))
    step = widget_state.link_step_state(roofs, n_params=10 ** 6, tokens=4096, bytes_per_token=768)
    assert WEIGHT_PASSES == 3 and step.step.hbm_bytes == 3 * 2 * 10 ** 6 + 4096 * 768
    # review 15: the definition is the appendix's (pitfall 9's section); the notebook prints the bytes
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "The step's HBM bytes are a lower bound: the bf16 weights read twice, their gradients written once, and the batch" in page
    printed = _printed("06")
    # review 15d E2: the printed HBM bytes are a lower bound, and say what they leave out
    assert (f"HBM at least {step.step.hbm_bytes / 1e6:.2f} MB (bf16 weights read twice, gradients written, the batch; "
            f"no activations or optimizer state), link {step.step.link_bytes / 1e6:.2f} MB a step") in printed
    assert f"HBM {step.step.hbm_bytes / 1e6:.2f} MB," not in printed
    assert max(len(line) for line in printed.splitlines() if "FLOP/byte on HBM" in line) < 300


def test_pitfall_6_has_one_name_and_06_has_no_lab_log_voice():
    text = "\n".join(_markdown("06"))
    assert "wasted bytes" not in text and "## Pitfall 6, miscounted bytes\n" in text
    assert "(30 s on a live GPU)" not in text and "the pitfalls run held" not in text


def test_the_write_roofs_possible_flattery_is_a_labelled_hypothesis():
    # review 6d C06-4: an untested aside about Lab 1's write roof is appendix material
    sentence = ("A hypothesis, not tested: writes still in the L2 when Lab 1's write kernel ends may flatter "
                "that roof by a percent or so.")
    assert sentence not in " ".join(_prose("06").split())
    page = (Path(__file__).resolve().parents[2] / "docs" / "appendix-06-pitfalls.md").read_text()
    assert sentence in " ".join(page.split())


# --- review 5b (06): T06-1 to T06-5, C06-1 to C06-6

def test_the_sustained_bursts_show_their_rate_only_and_the_advice_names_the_held_state():
    # T06-1: 797 TFLOP/s at 117 W, and 781 at 1,545 MHz: NVML lags a ten-launch burst
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    held = pitfalls.sustained_summary(recorded_experiments()["sustained"])
    assert round(held["low_tflops"]) == 679 and round(held["high_tflops"]) == 695
    assert held["power_limit_w"] == 700 and held["reasons"] == [4]
    assert round(held["cool_tflops"]) == 797 and round(held["hot_tflops"]) == 781
    printed = _printed("06")
    # review 18a: two lines of evidence; the burst prints its rate only (no lagging clock or power)
    assert "ten launches, cool card: 797 TFLOP/s; after the hold, hot card: 781 TFLOP/s (2% lower)\n" in printed
    assert "held 120 s: 679 to 695 TFLOP/s, SM clock between 1,485 and 1,560 MHz\n" in printed
    assert "the first window, to 1.0 s: 695 TFLOP/s, 87% of the cool card's burst\n" in printed  # review 51
    assert ("board power up to 697 W (window medians), limit 700 W; "
            "NVML's reason for the lower clock: software power cap") in printed
    assert "microbenchmark, " not in printed and " 117" not in printed
    text = _prose("06")
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "a ceiling measured in the same thermal and power state, held as long as the kernel runs" in text
    assert "still reached 781" not in text and "still reached 781 TFLOP/s" in page  # the hot burst: appendix
    # review 16d: the lag of NVML's samples is the appendix's; the notebook links it in one clause
    assert "NVML's samples lag a burst" not in text and "before NVML's readings catch up" in page
    with pytest.raises(ValueError, match="sustained"):
        pitfalls.sustained_summary(type("E", (), {"variants": [], "device": {}})())
    # the triage's step for a dropped clock gives the same advice
    from rooflinelib.lessons.triage import KernelFacts, triage
    found = triage(KernelFacts(fraction_of_roof=0.7, side="compute", clock_ratio=0.76)).text()
    assert "in the thermal and power state the kernel runs in, held as long as the kernel runs" in found


def test_the_64_byte_column_is_headed_as_a_fit():
    # T06-2: the header stated a 64-byte GPU DRAM unit as fact
    code = _code("06")
    # review 6d C06-5: "fits the H200 data" asserted the fit before the data was shown
    # review 7d T06-1: HBM3 reads 32-byte bursts; the 64 bytes are the L2's fetch (two sectors), as the appendix says
    # review 10d C06-3: the column is named, its caveat is in the prose
    assert "print(pitfalls_lesson.stride_table_text())" in code  # review 46d: columns under their headers
    assert "stride  32-B sectors  64-B fetch" in _printed("06")
    assert "DRAM access unit" not in code and "sector pairs, GPU DRAM" not in code
    text = _prose("06")
    assert "64-byte unit at DRAM" not in text
    # review 7d C06-8: the hypothesis in a sentence of its own
    # review 15 (R15-4): the cause paragraph is labelled a hypothesis and names the column
    assert ("**Cause, a hypothesis.** The L2 fetches two sectors, 64 bytes, from DRAM at a time (the table's "
            "64-B column), so from stride 16 on no two useful floats share a fetch.") in " ".join(text.split())
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "64-byte unit at DRAM" not in page
    assert "fits the H200 data" not in code


def test_each_opening_kernel_is_scored_on_its_own_access_mix():
    # T06-3: the read-only stride-32 kernel was scored against the write mix (4,693 GB/s)
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    from rooflinelib.store.results import dram_mixes, recorded
    machine, memory = pitfalls.recorded_mix_roofs()
    assert memory[0] == "dram" and "dram-read" in memory and "dram-copy" in memory
    rows = {r["name"]: r for r in pitfalls.roof_shares(pitfalls.recorded_points(), machine)}
    mixes = dram_mixes(recorded("ceilings"))
    # review 6d T06-2: the point is stride 16, the longest stride the 64-byte fit explains
    stride = rows["pitfall 6: stride-16 reads"]
    v = recorded_experiments()["strided"].variants[4]
    assert v.name == "stride 16"
    assert stride["memory"] == "dram-read" and stride["fraction"] == pytest.approx(v.gbps / mixes["read"])
    assert round(stride["fraction"], 3) == 0.060 and round(16 * stride["fraction"], 2) == 0.97
    assert rows["pitfall 4: bf16 GEMM (tensor cores)"]["memory"] == "dram-write"
    assert [r["bound"] for r in rows.values()].count("memory") == 2
    # a machine without the mixes falls back to the one named
    assert pitfalls.roof_shares(pitfalls.recorded_points(), recorded_h200())[4]["memory"] == "dram"
    code, printed = _code("06"), _printed("06")
    assert "pitfalls.recorded_mix_roofs()" in code and 'memory=["dram"]' not in code
    assert f"{'pitfall 6: stride-16 reads':46s}    6.04% of the dram-read roof" in printed
    assert "stride 16: 6.0% of the dram-read roof counted with the useful bytes (stride 1 ran at 91% of it), 97% counted" in printed
    assert "stride-32 reads" not in printed and "80% counted" not in printed
    assert "4.80%" not in printed and "77% counted" not in printed


def test_the_overlap_share_names_its_kernel_and_is_printed():
    # T06-4: 70% is notebook 04's one-vector sweep, not overlap in general
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    hidden = pitfalls.overlap_hidden(recorded_experiments()["overlap"])
    assert round(hidden, 2) == 0.70
    assert f"overlapped: {hidden:.0%} of the shorter phase hidden behind the longer" in _printed("06")
    text = _prose("06")
    assert "(b) notebook 04's one-vector `sweep` kernel" in text and "`sweep` took 672 µs, hiding 70%" in text
    # review 6d C06-7: "hides more" is quantified, from notebook 04's recorded sweep, and printed
    from rooflinelib.experiments import pitfall_readings
    lead = pitfall_readings.pipelined_lead_rows((64,))[0]
    assert round(lead["lead"], 3) == 0.081
    assert (f"sweep_pipelined {lead['pipelined_gflops']:,.0f} GFLOP/s, sweep {lead['sweep_gflops']:,.0f}: "
            f"{lead['lead']:.1%} faster") in _printed("06")
    assert "hides more" not in text and f"(notebook 04's `sweep_pipelined`, {lead['lead']:.1%} faster at K = 64)" in " ".join(text.split())


def test_the_sustained_run_is_said_to_last_two_minutes():
    # T06-5: the run held the GEMM for 120 s
    from rooflinelib.experiments.record import recorded_experiments
    assert recorded_experiments()["sustained"].extra["seconds"] == 120
    text = " ".join(_prose("06").split())
    # review 32d: "on the H200" cut (the header names the device)
    # review 33d E1: the held GEMM is the 8192^3 one, not pitfall 4's, and the page says so
    assert "The recorded run held a bf16 GEMM (8192³) for two minutes" in text and "for minutes" not in text
    # review 16d E1: the two minutes are the recording's; the cell, run live, holds it for what it asks
    assert "The next cell runs the GEMM" not in text
    # review 6d T06-1: the live cell holds it for the seconds its code asks, and the prose says so;
    # review 7d C06-8: without the code's argument (`seconds=30`), which is machinery, not lesson
    import re as _re
    asked = int(_re.search(r'"sustained", gpu=\{"seconds": (\d+)\}', _code("06")).group(1))
    # review 15d C: the live seconds are mode noise on a recorded page; the appendix says them
    assert "`seconds=" not in text
    # review 26d: the live seconds are the appendix's alone (mode noise on a recorded page)
    assert "(run live, the next cell holds it" not in text
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert f"Run live, the notebook's cell holds the GEMM for {asked} s" in page


def test_06_headings_name_each_pitfall_once():
    # C06-1: "Pitfall 1, short or starved: A short or starved kernel never reaches either roof"
    headings = [line for cell in _markdown("06") for line in cell.splitlines() if line.startswith("## Pitfall ")]
    assert len(headings) == 9 and not [h for h in headings if ":" in h]


def test_06_clarity_items_of_review_5b():
    text, printed = _prose("06"), _printed("06")
    # C06-2: the two ways, lettered; review 32d: the same FLOPs and bytes, not the same work
    assert "The same FLOPs and bytes, two ways: (a) split into two kernels, a copy, then arithmetic" in text
    assert "the same work" not in text
    assert "The measurement does the same work as a copy kernel" not in text
    # C06-3: exp2 results, not FLOPs
    # review 25d: the exp2 row's rate sits under its own unit, not under "GFLOP/s"
    assert "exp2, fast math (one MUFU.EX2)      2.14 ms  4,140 G results/s" in printed
    assert re.search(r"\nFMA +8\.58 ms  66,070 GFLOP/s", printed)
    assert "GFLOP/s  spread\n----------  -----------  ----  -------  ------\nexp2" not in printed
    # C06-4: a table's header names the backend, a row its library
    assert "Table headers name the backend" not in text  # review 11d C06-1: housekeeping, not the answer
    # C06-5: the strided paragraph keeps the fit and says stride 1 and 32 are unexplained
    strided = " ".join(next(c for c in _markdown("06") if c.startswith("**Symptom.** With 32-byte sectors")).split())
    assert "Stride 32 ran slower than that predicts" in strided and "cudaLimitMaxL2FetchGranularity" not in strided  # review 15d: named, linked
    assert "stride 1 and stride 32" not in strided  # review 16d: one hedge; the appendix names them
    assert len(strided.split()) < 130
    # C06-6: the launch lesson lands before the four timing sources
    pitfall1 = " ".join(next(c for c in _markdown("06") if c.startswith("## Pitfall 1")).split())
    # review 15 (R15-4): the symptom and its number first, then the cause, the launch, measured
    # review 26d: one time for the add: the chart's factor in the symptom, the second run's time printed
    # review 27d E1: the chart places the first run (63.9 us), the section prints the second (57.9 us):
    # "more than 5,000 times" holds for both (see test_06_review_27d_...)
    # review 28d: the chart's 5,566x is an earlier run of the add; the page says so
    # review 32d: the chart plots the printed run now; the add took tens of microseconds
    assert ("fp32 vector add sits more than 5,000 times under its roof: its 49 kB need 11.5 ns at Lab 1's copy "
            "roof, yet it took tens of microseconds.") in pitfall1
    assert "earlier run" not in pitfall1
    assert "63.9" not in pitfall1 and "A later session" not in pitfall1
    assert pitfall1.index("**Symptom.**") < pitfall1.index("**Cause, measured.**")
    assert "the time is mostly the host's **dispatch** (Numba's whole launch path" in " ".join(_prose("06").split())


# --- review 5b (05): the refusal is Lab 4's, the chart read after its idea, rows named, own mixes

def test_06_review_6d_technical_wording():
    text = " ".join(_prose("06").split())
    # T06-3: the tensor GEMM's bytes are its output, so HBM traffic is no lever; the gap's cause is a hypothesis
    assert "with HBM traffic as the lever" not in text
    # review 11d T06-4: no DRAM counter was taken for this GEMM, and an output can shrink
    assert "cannot shrink" not in text and "is not a byte count" not in text
    # review 15: the gap's hypothesis is the appendix's; the notebook says the gap is open
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert ("Its bytes are almost all its output (analytic; no DRAM counter was taken), so the gap is unlikely "
            "to be extra bytes; that its arithmetic and its stores overlap poorly (pitfall 2) is one hypothesis "
            "to test") in page
    assert "cannot shrink" not in page and "is not a byte count" not in page
    # review 26d: the section ends on its result; the open gap is the appendix's, linked
    assert "What holds it at 63% is open" not in text
    # review 32d: the point (opposite verdicts) before the table; the link text says where it leads
    assert "memory-bound at 63% (of I × B, 591.4) ([why only 63%](../docs/appendix-06-pitfalls.md#pitfall-4-the-write-roof-and-the-tensor-gemms-gap))" in text
    assert "[its gap]" not in text
    assert text.index("Against two compute roofs the bf16 kernel gets opposite verdicts.") < text.index("**Symptom.** Against the fp32 roof")
    # review 11d C06-5: the triage's verdict in plain words
    # review 33d T5: a point above its roof is not "compute-bound" at any share
    assert "sits above the roof, at 569%, a share no kernel reaches." in text and "fed it" not in text
    assert "compute-bound at 569%" not in text
    # T06-4: the copy roof is the nearest measured mix, not the add's own
    # review 18a: the clause's three qualifiers are the appendix's (the opening chart's section)
    assert "the nearest measured mix" not in text
    assert "the copy for the vector add (the nearest measured mix: the add reads two arrays and writes one" in " ".join(
        (ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    # T06-5: a graph's own launch is paid once; per kernel only the device's cost remains
    # review 7d T06-2: the 0.64 µs was an empty kernel's; a graph of adds still pays each add's own run
    assert "only the device's cost" not in text
    # review 28d: the 0.64 us is an empty kernel's; the add's own run comes on top
    # review 32d: the 0.64 us was the other run's; the table's run measured 0.59: "about 0.6 µs"
    assert "Each kernel still pays the device's launch cost, about 0.6 µs, plus its own run." in text
    assert "0.64" not in text
    assert "graph, which leaves only the device's cost." not in text


def test_06_explains_why_device_events_time_the_hosts_dispatch():
    # C06-1: the claim rested on the appendix's timing protocol; the lesson now states it
    text = " ".join(_prose("06").split())
    assert "device events also time the GPU idling" not in text
    # review 9d C6-1: the protocol as three steps, the idle gap the events bracket named
    # review 12d C06-2: the three steps went to the appendix; the idle gap the events bracket stays
    # review 15: the stream's order is the appendix's; the notebook keeps the idle gap it causes
    # review 15d C: how events on the GPU time the host, in one sentence
    # review 25d: the 48.6 µs is printed (the last line of the launch figure), and the ~10 µs between
    # it and the empty kernel's time between events is said to be unexplained
    # review 26d: the ~10 µs residual is the appendix's; Numba's dispatch is given its scale (CuPy, torch)
    # review 27d E4: CuPy's and torch's dispatch took one argument, Numba's 48.6 µs three arrays: said so
    # review 32d: the mechanism in two sentences; the other libraries' dispatch is the appendix's, like for like
    assert ("the time is mostly the host's **dispatch** (Numba's whole launch path, 48.6 µs), not the "
            "add's bytes. In an idle stream the GPU stamps the start event at once, while the host still prepares "
            "the launch. So for a kernel shorter than the dispatch, the events time the host ([other libraries]"
            "(../docs/appendix-06-pitfalls.md#pitfall-1-every-launch-cost-measured))") in text
    assert "CuPy" not in text and "torch" not in text
    assert ("like for like (an empty kernel given one float, Numba 25.9 µs), the other two libraries dispatched "
            "faster: CuPy's `RawKernel` in 6.24 µs") in " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "Numba's dispatch is slow" not in text
    assert "unexplained" not in text
    assert ("59.1 µs between device events but dispatched in 48.6 µs back to back: about 10 µs more, which the "
            "course does not explain") in " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "the add's three arrays (second run) | 48.6 µs |" in (ROOT / "docs" / "appendix-06-pitfalls.md").read_text()
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "each repeat queues the untimed launch, a start event, the timed launch and an end event" in page
    assert ("In one stream the GPU reaches the start event, then idles while the host dispatches the timed add; "
            "the end event follows the add") in page


def test_06_review_6d_clarity_items():
    text, printed, cells = _prose("06"), _printed("06"), _markdown("06")
    # C06-2: the launch table says what the element count means
    assert "the bytes take as long from" not in printed
    assert "| 229,053 elements |" in " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    # C06-3: the starved grid has its own sub-heading inside pitfall 1
    headings = [line for cell in cells for line in cell.splitlines() if line.startswith("#")]
    assert headings.index("### A starved grid") == headings.index("## Pitfall 1, short or starved") + 1
    # C06-6: the widget's GPUs field is explained for the streaming scenario
    # review 32d: the field's detail is the appendix's; the notebook says what it does and links it
    assert ("The widget can all-reduce gradients instead ([appendix](../docs/appendix-06-pitfalls.md#pitfall-9-the-"
            "widgets-all-reduce))") in " ".join(text.split())
    assert "greyed" in (ROOT / "docs" / "appendix-06-pitfalls.md").read_text()
    # C06-7: no double spaces in the prose
    assert not [c for c in cells if "  " in c.replace("\n  ", "\n")]
    # C06-8, review 18a: Lab 1's three HBM roofs are the appendix's; the first output prints the six shares
    assert "Lab 1's HBM roofs by access mix" not in printed and "(dram: the write mix" not in printed
    assert ("writes alone (`dram`) 4,693 GB/s, reads alone (`dram-read`) 4,509 GB/s, a copy (`dram-copy`) "
            "4,280 GB/s") in " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    # review 7d C06-8: the opening no longer points at the cell (machinery, not lesson)
    assert "the cell under the chart lists Lab 1's three" not in " ".join(cells[0].split())


# --- review 6c (the sixth expert read): notebook 05 -------------------------------------------

def test_06_says_when_a_tiled_kernel_pays_the_sum_of_its_two_times():
    # review 6a T01-1, the same claim in 06's pitfall 2: F/P + M/B only when no other block on the
    # SM fills the gaps; a second resident block overlaps one block's loads with another's math
    text = _prose("06")
    assert "with no other block on their SM to fill the gaps, pay `F/P + M/B`" in text
    assert "then loads the next pays `F/P + M/B`" not in text


# --- review 7c (the seventh expert read): notebook 05 -------------------------------------------

def test_06s_starved_grid_labels_64_warps_as_an_upper_bound():
    # review 7d T06-4: 64 warps per SM needs 8 resident blocks, which registers may not allow
    text = _prose("06")
    # review 26d: the two-block hypothesis is the appendix's, with the bound
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "each busy SM held 8 warps of at most 64" in page  # review 19: the bound, in fewer words
    assert "8 warps of at most 64" not in " ".join(text.split())


def test_06s_gemm_rows_say_which_term_sets_the_attainable_roof():
    # C06-3: "fp32 GEMM against the bf16 tensor roof: ... 39.0 of 295.7 TFLOP/s" read as if 295.7
    # were the tensor roof; it is the memory roof at I = 63 (I x B), below P
    from rooflinelib.experiments import pitfall_readings
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.store.results import recorded_h200
    run = recorded_experiments()["wrong_ceiling"]
    # review 9d C6-3/C6-5: the roofs are Lab 1's, those of the opening chart and of pitfall 9
    lab1 = recorded_h200()
    peaks = {"fp32 FMA roof": lab1.ceiling("fp32").value, "bf16 tensor roof": lab1.ceiling("bf16-tensor").value}
    printed = _printed("06")
    assert "GEMM against the bf16 tensor roof" not in printed and "attainable at I = min(P, I x B)" in printed
    terms = []
    for row in pitfall_readings.wrong_ceiling_rows(run):
        assert row["peak_gflops"] == peaks[row["roof"]]
        memory = row["intensity"] * row["dram_gbps"]
        term = "I x B" if memory < peaks[row["roof"]] else "P"
        terms.append(term)
        assert row["roof_gflops"] == pytest.approx(min(memory, peaks[row["roof"]]))
        shown = f"{row['roof_gflops'] / 1e3:7,.1f} = {term}, {row['side']}"
        # review 9d C6-4: an fp32 GEMM on the bf16 tensor roof is a pairing no kernel has: not printed
        assert (shown in printed) == (not (row["dtype"] == "fp32" and row["roof"] == "bf16 tensor roof"))
    assert terms == ["P", "I x B", "P", "I x B"]


def test_06s_triage_asks_for_facts_by_the_forms_labels():
    # C06-6: "Facts that would sharpen this: duration_us, blocks, sm_count, ..." showed field names
    from rooflinelib.lessons.triage import NUMBER_FIELDS
    printed = _printed("06")
    line = next(line for line in printed.splitlines() if line.startswith("Facts that would sharpen this"))
    assert "duration_us" not in line and "sm_count" not in line and "_" not in line
    assert f"{NUMBER_FIELDS['duration_us']}; {NUMBER_FIELDS['blocks']}; {NUMBER_FIELDS['sm_count']}" in line


def test_06s_dense_readings_are_split_into_result_mechanism_and_remedy():
    # C06-8: one paragraph carried the result, the timing protocol, a second run and the remedy
    # review 15 (R15-4): every reading is split into symptom, cause and remedy paragraphs, each
    # starting its own paragraph; the launch's cause and its remedy (the CUDA graph) stand apart
    paragraphs = [p for cell in _markdown("06") for p in cell.split("\n\n")]
    for label in ("**Symptom.**", "**Cause", "**Remedy.**"):
        assert all(p.startswith(label) for p in paragraphs if label in p), label
        assert sum(p.startswith(label) for p in paragraphs) >= 9, label
    remedy = next(p for p in paragraphs if p.startswith("**Remedy.** Fuse or batch"))
    assert "CUDA graph" in remedy and "µs" in remedy


# --- review 9d (a fresh read): notebook 06 -----------------------------------------------------

def test_06s_phases_in_turn_get_fusion_as_their_remedy():
    # T6-1: the measured case is two kernels; the triage advised double-buffering tiles
    printed, text = _printed("06"), _prose("06")
    assert "Double-buffer: prefetch the next tile" not in printed
    assert ("next step: Overlap the phases: fuse a load kernel and a compute kernel into one; inside one "
            "kernel, double-buffer") in printed
    assert "**Remedy.** Fuse the phases into one kernel, as (b) does; inside it, prefetch" in " ".join(text.split())
    assert "Here (b)" not in text
    assert "| 2 no overlap | load and compute phases in turn |" in text


def test_06_has_one_fp32_and_one_bf16_roof():
    # C6-3, C6-5: 568% (the run's own fp32 roof) beside 569% (Lab 1's); the bf16 peak unprinted
    # while 797 and 806.9 TFLOP/s appeared elsewhere
    from rooflinelib.lessons import pitfalls
    from rooflinelib.experiments import pitfall_readings
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.store.results import recorded_h200
    lab1 = recorded_h200()
    fp32, bf16 = lab1.ceiling("fp32").value / 1e3, lab1.ceiling("bf16-tensor").value / 1e3
    machine, _ = pitfalls.recorded_mix_roofs()
    chart = next(r for r in pitfalls.roof_shares(pitfalls.recorded_points(), machine) if "bf16 GEMM" in r["name"])
    rows = pitfall_readings.wrong_ceiling_rows(recorded_experiments()["wrong_ceiling"])
    wrong = next(r for r in rows if r["dtype"] == "bf16" and r["roof"] == "fp32 FMA roof")
    assert wrong["fraction"] == pytest.approx(chart["fraction"])
    printed, text = _printed("06"), _prose("06")
    assert f"fp32 FMA {fp32:,.1f} " in printed and f"bf16 tensor {bf16:,.1f} " in printed
    assert f"({wrong['fraction']:.0%})" in printed and "(568%)" not in printed
    assert f"sits above the roof, at {wrong['fraction']:.0%}," in text and "568%" not in text
    assert "in the opening chart, on Lab 1's roof" not in text
    assert f"bf16 tensor at {bf16:,.1f} TFLOP/s, it is memory-bound at 63% (of I × B, 591.4)" in text
    # review 32d: the sustained paragraph names the GEMM, not a second figure for its roof
    assert "The recorded run held a bf16 GEMM (8192³) for two minutes" in " ".join(text.split()) and "797" not in text
    assert f"compute (bf16-tensor)                                 {bf16 * 1e3:,.0f}" in printed
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "the pitfall run also timed the two roofs beside its gemms, 66.1 and 797.3 tflop/s" in page.lower()


def test_06s_launch_names_the_dispatch_with_the_adds_arguments():
    # T6-2, C6-2: 26 us is one float's dispatch; with the add's three arrays it is 49 us
    from rooflinelib.lessons import pitfalls
    dispatch = pitfalls.recorded_empty_launch()["dispatch_s"]
    assert dispatch["three arrays"] > 1.5 * dispatch["one float"]
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())  # review 15: the appendix's
    assert "the add's three arrays (second run) | 48.6 µs | about 4,200 times" in page
    assert "30.3 us" not in _printed("06")  # review 11d T06-3: the second run's one float is the appendix's


def test_06s_opening_maps_the_chart_to_the_sections():
    # C6-6: six ideas in two sentences; three HBM lines unexplained
    from rooflinelib.store.results import dram_mixes, recorded
    mixes = dram_mixes(recorded("ceilings"))
    assert max(mixes.values()) / min(mixes.values()) < 1.10
    opening = " ".join("".join(_cells("06")[0]["source"]).split())
    assert "each labelled with the pitfall that misreads it" in opening
    # review 10d C06-1, review 18a: the first output prints the six shares only; the appendix says it
    assert "The chart's three HBM lines lie within 10%" in " ".join(
        (ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    from rooflinelib.lessons import pitfalls
    assert all(label.split(":")[0].isdigit() for _, _, label, _ in pitfalls.RECORDED_POINTS)


def test_06s_strided_anomalies_stand_in_a_paragraph_of_their_own():
    # C6-8
    strided = next(c for c in _markdown("06") if c.startswith("**Symptom.** With 32-byte sectors"))
    paragraphs = strided.split("\n\n")
    # review 15d C: the paragraph was lab-log material; the notebook names the two readings in a clause
    assert not any(p.startswith("Two readings stay unexplained:") for p in paragraphs)
    assert any("Stride 32 ran slower than that predicts" in " ".join(p.split()) for p in paragraphs)


def test_06_stores_no_stray_blank_lines_between_output_pieces():
    # C6-9: a print split by the kernel's flush was stored as two outputs, the second starting
    # with its newline: a blank line in the rendered notebook. canonical() merges them.
    import nbformat
    from support import notebook_tools
    for cell in _cells("06"):
        outputs = cell.get("outputs", [])
        for a, b in zip(outputs, outputs[1:]):
            assert not (a["output_type"] == b["output_type"] == "stream" and a["name"] == b["name"]), cell["source"][:1]
    pieces = [nbformat.v4.new_output("stream", name="stdout", text="Recorded on the H200."),
              nbformat.v4.new_output("stream", name="stdout", text="\ntable\n"),
              nbformat.v4.new_output("stream", name="stderr", text="warning\n")]
    merged = notebook_tools.merged_streams(pieces)
    assert [(o.name, o.text) for o in merged] == [("stdout", "Recorded on the H200.\ntable\n"), ("stderr", "warning\n")]


def test_06s_nvlink_row_is_a_datasheet_figure_not_a_roadmap():
    # C6-7
    # review 15 (R15-2): the roofs' provenance line is printed on a live machine only; the table's
    # source column says the NVLink row is the datasheet's, and the message still says so
    from rooflinelib.lessons import step_roofs
    from rooflinelib.modes import RunMode
    printed = _printed("06")
    nvlink = next(line for line in printed.splitlines() if line.startswith("NVLink"))
    assert nvlink.split()[-1] == "datasheet" and "shipped yet" not in printed
    message = step_roofs.step_roofs_for(RunMode("recorded", None, "recorded")).message
    assert "NVLink: the datasheet's figure (not measured here)." in message


# --- review 10c (a fresh expert read): notebook 05 ------------------------------------------------

def test_06_prices_an_exp_by_what_it_compiles_to():
    # T06-1: exp is a MUFU instruction plus FFMAs and FMULs; review 15 (R15-5): its price is the
    # MUFU pipe's throughput, not its issue (the test below has the numbers)
    text = _prose("06")
    assert "plus FFMAs and FMULs (fused multiply-adds and multiplies) that scale the argument" in text
    assert "the MUFU issue alone" not in text and "as one FLOP costs 16 times" not in text


def test_06_labels_the_bytes_moved_share_as_resting_on_the_64_byte_fetch():
    # T06-2: "97% counted with the bytes moved" printed as if measured
    from rooflinelib.lessons import pitfalls
    machine, _ = pitfalls.recorded_mix_roofs()
    stride16 = next(r for r in pitfalls.roof_shares(pitfalls.recorded_points(), machine)
                    if r["name"] == "pitfall 6: stride-16 reads")
    ratio = pitfalls.strided_amplification(16, transaction_bytes=pitfalls.GPU_DRAM_ACCESS_BYTES)
    assert (f"{stride16['fraction'] * ratio:.0%} counted with the bytes moved if the L2 fetches 64 B "
            f"({ratio:g} per useful byte)") in _printed("06")
    assert "stride 16's amplification under that hypothesis, 16x" in " ".join(_prose("06").split())


def test_06s_gate_says_when_a_slower_clock_leaves_the_share_alone():
    # T06-3: a kernel limited elsewhere (latency, issue) slows with the SM clock while the HBM roof does not
    text = _prose("06")
    # review 25d: with its condition: the kernel is bound by the roof the clock slows
    assert ("A slower clock slows a roof and a kernel bound by that roof alike, so the share holds"
            in " ".join(text.split()))
    assert "slows a kernel and the roof that limits it alike" not in " ".join(text.split())


def test_06_says_the_starved_grid_is_grid_stride_and_what_a_token_is():
    text = _prose("06")
    # C06-5; review 15d C: the kernel named by its notebook, without the CPU's task count
    # review 26d E1: the starved kernel is not notebook 04's sweep; it is named as what it is
    # review 28d: a grid-stride thread handles many floats, one at a time
    # review 32d: the grid-stride loop defined in a clause; the run-on split
    assert ("A **grid-stride loop** strides each thread by the grid's size, so any grid covers the array. This "
            "kernel runs one dependent chain of K FMAs per float on 2²⁴ floats") in " ".join(text.split())
    assert "Notebook 04's grid-stride" not in text
    assert "on a CPU, one task" not in text
    assert "4,096 tokens per step of 768 bytes each (16 × 16 RGB bytes)" in text  # C06-4
    assert 16 * 16 * 3 == 768 and "bytes_per_token=768" in _code("06")


def test_06s_launch_costs_keep_the_graph_and_numbas_dispatch_and_the_rest_go_to_the_appendix():
    # C06-2: four launch costs from three libraries buried the point; CuPy's and torch's are the appendix's
    from rooflinelib.lessons import pitfalls
    machine, _ = pitfalls.recorded_mix_roofs()
    kept = pitfalls.recorded_launch_bounds(4096, machine, "dram-copy", libraries=("Numba-CUDA",))
    assert [part for part, _, _ in kept] == ["device's own cost (CUDA graph)", "host dispatch, Numba-CUDA"]
    printed = _printed("06")
    # review 15 (R15-3): the notebook prints none of the four; the appendix has them all
    assert "its traffic would equal this cost at" not in printed and "CuPy" not in printed
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    for part, launch_s, bound in pitfalls.recorded_launch_bounds(4096, machine, "dram-copy")[2:]:
        n = pitfalls.launch_dominance_elements(machine.ceiling("dram-copy").value, launch_s)
        assert f"in {launch_s * 1e6:.2f} µs" in page and f"{bound['launch_over_traffic']:,.0f} times" in page
        assert f"{n:,} elements" in page


# --- review 11d (a fresh read): notebook 06 ----------------------------------------------------

def test_06s_pitfall_7_verdict_holds_against_the_whole_signal_fft_only():
    # T06-1: the raced FFT is one transform of the whole signal; overlap-save, the better FFT
    # route for short filters, was not raced, so "tuning is the fix" at m = 256 and 1,024 was
    # a verdict against the wrong rival
    from rooflinelib.lessons import pitfalls
    text, printed = " ".join(_prose("06").split()), _printed("06")
    assert "tuning is the fix" not in text
    # review 33d T3: 386 us is m = 256's FFT time; m = 1,024's is 387
    assert "would beat this whole-signal FFT (about 386 µs)" in text and "FFT's 386 µs" not in text
    assert "**overlap-save**, FFTs on blocks a few times m long" in text
    # review 16d: one hedge each; the appendix says what the unraced route leaves open
    assert "(last table; not raced)" in text and "whether a tuned direct kernel beats it" not in text
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "the notebook's verdict holds against the whole-signal FFT only" in page
    assert "or through an FFT of the whole signal" in text
    overlap_save = next(p for p in "\n".join(_markdown("06")).split("\n\n") if "**overlap-save**" in p)
    assert "µs" not in overlap_save.split("**overlap-save**")[1]  # no unmeasured time
    os256 = pitfalls.overlap_save_flops_per_output(256, 8 * 256)
    # review 32d: the overlap-save counts are a small table of their own
    assert f"    256     512               345  {os256:12.0f}" in printed
    assert f"  1,024   2,048               345  {pitfalls.overlap_save_flops_per_output(1024, 8 * 1024):12.0f}" in printed


def test_06s_cache_table_and_gate_section_speak_plainly():
    # C06-4: engine kernel names out of the lesson; C06-6: the gate section tied to pitfall 8
    # and shortened, with a word on its one-round interval
    printed, text = _printed("06"), " ".join(_prose("06").split())
    assert "l2_slab" not in printed and "copy16" not in printed
    assert "L2-resident re-read (25.2 MB set)       844 us" in printed
    assert "DRAM copy (1.07 GB buffer)              503 us" in printed
    assert "GB moved" not in printed  # review 15: lab-log lines under the table are gone
    gate = next(c for c in _markdown("06") if c.startswith("## Beyond the pitfalls"))
    assert "pitfall 8's remedy as a test" in " ".join(gate.split()) and len(gate.split()) < 90
    assert "95% interval" not in printed  # review 12d C06-5: verdict, share and threshold only


# --- review 12d: notebook 06 -----------------------------------------------------------------

def test_06_review_12d_labels_hypotheses_and_the_gate_speak_plainly():
    printed, text = _printed("06"), " ".join(_prose("06").split())
    # E06-1: the small add was timed by device events around its launch, not by the host
    assert "host-timed" not in printed and "pitfall 1: 4096-element add (device events)" in printed
    # E06-2: heat is bounded (2%), the power cap is a hypothesis, the bursts' clock not observed
    assert "not heat" not in text
    # review 15d E4: heat and the cap do not add apart: a hotter die meets the cap at a lower clock
    assert "heat cost at most those 2%" not in text
    # review 18a: the bursts and the heat hypothesis are the appendix's; the notebook says the burst's clock is unknown
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "2% under the cool card's 797. Hypothesis: the power cap, which a hotter die meets at a lower clock" in page
    # review 26d: the section ends on its result; the burst's unsampled clock is the appendix's
    assert "the burst's own clock is unknown" not in text
    assert "The burst's own clock was not truly sampled" in page
    assert "(../docs/appendix-06-pitfalls.md#pitfall-8-the-sustained-run-every-ten-seconds)" in text
    # C06-1: 'dram' never names the copy roof: the gate prints no roof name
    assert "roof: dram " not in printed
    # C06-2: the event paragraph leads with what the events measured; no lab-log phrasing
    assert "second run (printed last)" not in text and "the host's **dispatch** (Numba" in text
    # C06-3: the triage's next step does not repeat its cause
    assert "next step: Bound by something the roofline does not model" not in printed
    assert "next step: Check launch size and duration" in printed
    # C06-4: no undefined "fit"
    assert "the fit explains" not in text
    # C06-5: the gate prints verdict, share and threshold, one line each
    # review 16d: "(4,258 GB/s)" after the share could be read as the copy's rate; the roof is named as the roof
    # review 17c: "62.0% of its roof, 4,258 GB/s" still read as the slowed copy's rate; the kernel's
    # rate (share x roof, from the recorded gates) and the roof are printed apart, each labelled
    assert "- copy: pass, 4,224 GB/s, 99.2% of its 4,258 GB/s roof; threshold 90%" in printed
    assert "- slowed_copy: below, 2,639 GB/s, 62.0% of its 4,258 GB/s roof; threshold 70%" in printed
    assert "of its roof (4,258 GB/s)" not in printed and "of its roof, 4,258 GB/s" not in printed
    from rooflinelib.testing import recorded_gates
    for g in recorded_gates()["gates"]:
        assert f"achieved {g['share'] * g['roof']:,.0f} GB/s" in g["message"]


# --- review 13d: notebook 06 ------------------------------------------------------------------

def test_06_review_13d_fft_tie_and_three_array_dispatch():
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    text = " ".join(_prose("06").split())
    # T06-1: at m = 256 the FFT's lead is about its own spread: a tie, not a win
    sizes = recorded_experiments()["algorithm_sizes"]
    direct, fft = sizes.variants[0], sizes.variants[1]
    assert direct.extra.get("m") == fft.extra.get("m") == 256 or "m = 256" in fft.name
    lead = 1 - fft.median_s / direct.median_s
    # review 17c: "by 3%, a tie within its 2% spread" contradicted itself; the lead is about the
    # two timings' spreads together (2.2% + 0.5%)
    # review 27d: "faster at every length" and "a tie" no longer in one sentence
    # review 28d: with spread = (max - min) / median, a 2.9% gap over spreads summing to 2.7% means no
    # repeat overlapped: faster as measured (the table's "only as measured"), not a tie
    spreads = fft.spread + direct.spread
    assert lead > spreads
    # review 33d: the spreads are the table's; the sentence states the lead alone
    assert (f"The FFT was faster at all four lengths, at m = 256 by {lead:.0%}." in text
            and "just over the two spreads" not in text
            and "a tie" not in text and "within its" not in text and "faster at every length" not in text)
    assert abs(lead - (fft.spread + direct.spread)) < 0.005
    assert lead < fft.spread + direct.spread + 0.01 and "The FFT beat the direct kernel at every length" not in text
    # T06-2: the add's own dispatch (three arrays) beside the one-float empty kernel's ratio
    three = pitfalls.recorded_empty_launch()["dispatch_s"]["three arrays"]
    assert "49,152 bytes, 11.5 ns of traffic" in _printed("06")
    assert round(three / 11.5e-9, -2) == 4200
    # review 15 (R15-3): both dispatch ratios are the appendix's table
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert f"the add's three arrays (second run) | {three * 1e6:.1f} µs | about 4,200 times" in page
    assert "an empty kernel given one float | 25.89 µs | 2,254 times" in page


# --- fix round 15 (f15_06): one provenance line, thin cells, one launch figure, sections of
# symptom / cause / remedy, the exp's price by MUFU throughput, the strided reads' buffer ----------

def test_06_names_its_runs_once_and_each_table_starts_with_its_result():
    # R15-2: "Recorded on NVIDIA H200 ..." was printed by about 12 cells
    from rooflinelib.lessons import pitfalls_lesson
    printed = _printed("06")
    assert "Recorded on NVIDIA H200" not in printed and "shipped with the course" in printed
    # review 17c: "numba backend" was false of the GEMM and gate tables (CuPy): no backend in the header;
    # the appendix names each table's backend
    assert printed.count("shipped with the course") == 1 and "numba backend" not in printed
    page = " ".join(open(ROOT / "docs" / "appendix-06-pitfalls.md").read().split())
    assert ("its own kernels through Numba; the cuBLAS GEMMs (pitfalls 4 and 8), cuFFT (pitfall 7) and the "
            "regression gates (`rooflinelib/data/h200_gates_cupy.json`) through CuPy") in page
    assert "these gates ran on the" not in printed and "measured 2026-12-01" not in printed
    first = next(c for c in _cells("06") if c["cell_type"] == "code")
    header = "".join("".join(o.get("text", "")) for o in first["outputs"])
    assert header.startswith("Mode: recorded H200 data.") and len(header.strip().splitlines()) == 1
    # review 51d, 8: the Nsight Compute run pitfall 3 quotes is dated too
    assert "2026-12-01 and 2026-12-02" in header and pitfalls_lesson.recorded_run_dates() == ["2026-12-01", "2026-12-02"]
    # each experiment's table is headed by its title, not by the device and the backend
    # review 32d: the table is titled by its kernel, a grid-stride loop, not notebook 04's sweep
    assert "\nGrid-stride kernel K=64: 2 blocks against a full grid\nvariant" in printed
    assert "Sweep kernel" not in printed
    assert " - NVIDIA H200, numba backend" not in printed


def test_06s_provenance_note_is_printed_only_where_a_table_differs_from_the_header():
    from types import SimpleNamespace
    from rooflinelib.experiments import Outcome
    from rooflinelib.lessons.pitfalls_lesson import Lesson
    from rooflinelib.modes import RunMode
    recorded = Lesson(RunMode("recorded", None, "recorded", "recorded"))
    live = Lesson(RunMode("cpu", "cpu", "a CPU"))
    run = SimpleNamespace(said=())
    loaded = Outcome(run, "recorded", "Recorded on NVIDIA H200 on 2026-12-01 and shipped with the course. "
                                      "(this experiment needs a GPU)")
    assert recorded.note(loaded) == ""
    assert live.note(loaded) == loaded.message  # a live notebook says which tables are not live
    assert live.note(Outcome(run, "live", "Measured just now on a CPU.")) == ""
    assert live.note(Outcome(SimpleNamespace(said=("Lab 1 ran now.",)), "live", "x")) == "Lab 1 ran now."
    assert recorded.header().count("\n") == 0 and "recorded H200" in recorded.header()
    assert "this machine's numbers" in live.header()


def test_06s_code_cells_are_thin_and_define_no_helpers():
    # R15-1: a helper function defined in the first code cell; loops of formatting in others
    code_cells = ["".join(c["source"]) for c in _cells("06") if c["cell_type"] == "code"]
    assert not any(re.search(r"^\s*def |^\s*class ", cell, re.M) for cell in code_cells)
    assert not any(re.search(r"^\s*for .*:\s*$", cell, re.M) and "print(" in cell and cell.count("\n") > 6
                   for cell in code_cells)
    assert max(cell.count("\n") + 1 for cell in code_cells[1:]) <= 8
    assert "pitfalls_lesson.Lesson(mode)" in code_cells[0] and "said = set()" not in code_cells[0]


def test_06s_launch_section_has_one_figure_and_the_other_launch_numbers_in_the_appendix():
    # R15-3: two crowded printouts (a six-row table, four launch costs, a second run's line)
    from rooflinelib.lessons import pitfalls, pitfalls_lesson
    from rooflinelib.experiments.record import recorded_experiments
    cells = _cells("06")
    start = next(i for i, c in enumerate(cells) if "## Pitfall 1," in "".join(c["source"]))
    end = next(i for i, c in enumerate(cells) if "### A starved grid" in "".join(c["source"]))
    figures = [c for c in cells[start:end] if c["cell_type"] == "code"]
    assert len(figures) == 1 and "".join(figures[0]["source"]).strip() == 'launch = lesson.show("launch_empty")'
    shown = "".join("".join(o.get("text", "")) for o in figures[0]["outputs"])
    pair = pitfalls_lesson.launch_pair(recorded_experiments()["launch_empty"])
    assert shown.splitlines() == [
        "4096-element add: 49,152 bytes, 11.5 ns of traffic at Lab 1's copy roof, 4,280 GB/s",
        f"between device events: the add {pair['add_s'] * 1e6:.1f} us, an empty kernel given the same three "
        f"arrays {pair['empty_s'] * 1e6:.1f} us",
        # review 25d: the 48.6 µs the prose quotes is printed; review 26d: the ~10 µs it leaves is the appendix's
        f"the host's dispatch of that empty kernel, launched back to back: {pair['dispatch_s'] * 1e6:.1f} us"]
    assert "short of its time between events" not in shown
    assert f"{pair['dispatch_s'] * 1e6:.1f}" == "48.6" and abs((pair['empty_s'] - pair['dispatch_s']) * 1e6 - 10) < 1  # "about 10 µs more"
    printed = _printed("06")
    for gone in ("CuPy", "torch", "host dispatch", "its traffic would equal this cost at", "67108864 elements"):
        assert gone not in printed, gone
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "## Pitfall 1: every launch cost measured" in page
    machine, _ = pitfalls.recorded_mix_roofs()
    for part, launch_s, bound in pitfalls.recorded_launch_bounds(4096, machine, "dram-copy")[:2]:
        n = pitfalls.launch_dominance_elements(machine.ceiling("dram-copy").value, launch_s)
        assert f"| {launch_s * 1e6:.2f} µs | {bound['launch_over_traffic']:,.0f} times | {n:,} elements |" in page
    three = pitfalls.recorded_empty_launch()["dispatch_s"]["three arrays"]
    assert f"| {three * 1e6:.1f} µs | about {round(three / 11.5e-9, -2):,.0f} times |" in page
    # the remedy's device cost: both runs' (0.64 and 0.59 µs) round to "about 0.6 µs" (review 32d)
    text = _prose("06")
    device = pitfalls.recorded_launch_bounds(4096, machine, "dram-copy")[0]
    second = next(v.median_s for v in recorded_experiments()["launch_empty"].variants if v.extra.get("part") == "device")
    assert round(device[1] * 1e6, 1) == round(second * 1e6, 1) == 0.6
    assert "the device's launch cost, about 0.6 µs" in " ".join(text.split())


def test_06_each_pitfall_section_gives_symptom_cause_and_remedy_in_that_order():
    # R15-4: each section = symptom, the number, the cause (counter or labelled hypothesis), the remedy
    text = "\n".join(_markdown("06"))
    sections = re.split(r"^## ", text, flags=re.M)
    pitfalls_ = [s for s in sections if s.startswith("Pitfall ")]
    assert len(pitfalls_) == 9
    for section in pitfalls_:
        found = [section.find(label) for label in ("**Symptom.**", "**Cause", "**Remedy.**")]
        assert all(i >= 0 for i in found) and found == sorted(found), section.splitlines()[0]
    # every cause that is not a counter reading says so
    for label in re.findall(r"\*\*Cause[^*]*\*\*", text):
        assert label in ("**Cause.**", "**Cause, measured.**", "**Cause, a hypothesis.**")
    assert sum(len(t.split()) for t in _markdown("06")) <= 2200  # 2,480 before this round


def test_06_prices_an_exp_by_the_mufu_pipes_throughput_beside_the_fma_pipes():
    # R15-5: "the MUFU issue alone" for the 16x; the price is the MUFU pipe's throughput
    from rooflinelib.core.machines import H200
    from rooflinelib.lessons import pitfalls_lesson
    price = pitfalls_lesson.mufu_price((9, 0))
    assert price == {"mufu_per_clock": 16, "fma_lanes": 128, "fmas_per_exp": 8, "flops_per_exp": 16}
    assert round(H200.ceiling("fp32").value / H200.ceiling("sfu").value) == price["flops_per_exp"]
    text = _prose("06")
    # the price is the MUFU pipe's throughput, not its issue (review 15d E3: an exp also takes an issue slot)
    assert "MUFU issue" not in text.split("## Pitfall 5")[1].split("## Pitfall 6")[0]
    assert ("The MUFU pipe's throughput sets an exp's price: per clock, an H100 or H200 SM returns 16 MUFU "
            "results and 128 FP32 FMAs, 8 times fewer") in text
    assert "Counting an FMA as 2 FLOPs and an exp as 1, that is 16 times in FLOPs" in text  # review 28d
    # review 15d E3: one issue slot each; a scheduler's MUFU quarter takes 32 / (16 / 4) = 8 clocks a
    # warp-wide exp, so exps bind past one in 8 instructions: one exp per 7 others
    schedulers = 4
    clocks = 32 // (price["mufu_per_clock"] // schedulers)
    assert clocks == price["fmas_per_exp"] == 8
    assert "more than one exp per 8 FMA-pipe instructions" not in text
    # review 18a: the break-even in plain words (one exp in 8 instructions), the same figures
    # review 25d: "its share of the MUFU pipe" named as the scheduler's 16 / 4 lanes
    # review 32d: an issue slot defined before use; the exp holds the MUFU pipe 8 clocks, not 8 issue slots
    flat = " ".join(text.split())
    # review 44d: the SM's four schedulers named; 4 of its 16 MUFU results a clock each, not "lanes"
    assert (f"An SM has four schedulers. Each issues one warp-instruction a clock (one **issue slot**) and gets "
            f"{price['mufu_per_clock'] // schedulers} of the SM's {price['mufu_per_clock']} MUFU results a clock: "
            f"a warp-wide exp takes {clocks} clocks, the time of {clocks} FFMAs. If more than 1 instruction in "
            f"{clocks} is an exp") in flat
    assert ("the MUFU pipe binds; instructions issued meanwhile are free. Below that ratio, the MUFU "
            "instruction costs one issue slot like any other") in flat
    assert "issue slots (16 FLOPs)" not in flat
    printed = _printed("06")
    assert "per SM and clock: 16 MUFU results, 128 FP32 FMAs: 8x fewer exps, 16x in FLOPs (an FMA is 2)" in printed
    assert "MUFU 4.18 T results/s: 16x apart" in printed
    with pytest.raises(ValueError, match="compute_capability"):
        pitfalls_lesson.mufu_price((1, 0))


def test_06_states_the_strided_reads_buffer_and_the_level_that_serves_them():
    # R15-6: the stride experiment's fixed buffer was not stated
    from rooflinelib.lessons import pitfalls, pitfalls_lesson
    from rooflinelib.experiments.record import recorded_experiments
    run = recorded_experiments()["strided"]
    buffer = pitfalls_lesson.strided_buffer_bytes(run)
    assert buffer == 2 ** 28 * 4
    l2 = pitfalls.recorded_cache_facts()["reported_l2_bytes"]
    text = _prose("06")
    assert (f"Every stride reads across one {buffer / 1e9:.2f} GB buffer, {buffer / l2:.0f} times the "
            f"{l2 / 2 ** 20:.0f} MiB L2, each sector once: the L2 holds nothing for reuse, so DRAM serves every read") in text
    assert f"every stride across one {buffer / 1e9:.2f} GB buffer" in _printed("06")
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "Every stride reads across the same buffer of 2²⁸ floats, 1.07 GB" in page
    import dataclasses
    bad = dataclasses.replace(run, variants=(run.variants[0], dataclasses.replace(run.variants[1], n_bytes=1.0)))
    with pytest.raises(ValueError, match="strided"):
        pitfalls_lesson.strided_buffer_bytes(bad)


def test_06s_appendix_links_land_on_headings_of_the_appendix():
    # review 15: the moved passages are linked by anchor; each anchor is a heading's slug
    page = (ROOT / "docs" / "appendix-06-pitfalls.md").read_text()
    slugs = {re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
             for line in page.splitlines() if line.startswith("#")}
    anchors = re.findall(r"appendix-06-pitfalls\.md#([\w\-]+)", "\n".join(_markdown("06")))
    assert len(anchors) >= 5 and set(anchors) <= slugs, set(anchors) - slugs


# --- review 15d (read 15): notebook 06 ------------------------------------------------------------

def test_06_says_the_two_add_times_come_from_two_runs():
    # C: 63.9 µs in the prose and 57.9 µs printed for the same add; the second run's is said so
    from rooflinelib.experiments.record import recorded_experiments
    run = recorded_experiments()["launch_empty"]
    add = next(v for v in run.variants if v.name.startswith("vector add"))
    second = f"{add.median_s * 1e6:.1f}"
    assert second == "57.9" and f"the add {second} us" in _printed("06")
    text = " ".join(_prose("06").split())
    # review 26d: one time for the add: the prose quotes none of the two runs' times, the chart's factor instead
    assert "**Cause, measured.** Timed beside an empty kernel given the same arrays" in text
    assert "63.9 µs" not in text and "A later session" not in text
    assert f"{second} µs" not in text


def test_06_states_the_fft_length_the_library_uses():
    # E1: "L a little over n + m" gave half the printed FLOPs; L is the power of two above n + 2m
    from rooflinelib.lessons import pitfalls
    n, m = 2 ** 22, 2 ** 12
    length = pitfalls.fft_length(n, m)
    assert length == 2 ** 23 and length > n + 2 * m >= length // 2
    assert round(length / (n + m)) == 2  # "about twice n + m"
    assert pitfalls.algorithm_race(n, m)["length"] == length and f"L = {length:,}" in _printed("06")
    text = " ".join(_prose("06").split())
    assert "a little over n + m" not in text
    # review 17c: n + 2m is this course's margin (linear correlation needs n + m - 1)
    # review 18a: L in one clause; the margin (n + 2m) is the appendix's
    # review 25d: the text says what pitfalls.fft_length does (the power of two above n + 2m)
    # review 26d: the requirement (n + m − 1) and the code's margin (n + 2m), in one clause
    # review 27d: the code's margin (n + 2m) is the code cell's comment, the requirement stays in the text
    assert "(three real transforms of length L ≥ n + m − 1)" in text and "as a margin" not in text
    assert "# L: the first power of two above n + 2m, a margin over n + m − 1" in _code("06")
    assert "holds the full correlation, n + m − 1" not in text
    assert pitfalls.fft_length(n, m) == 1 << (n + 2 * m).bit_length() and pitfalls.fft_length(3, 0) == 4
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "the course takes the one above n + 2m" in page and "L = 2²³, about twice n + m" in page


def test_06_defines_the_l2_hit_rate_and_says_why_the_gates_thresholds_differ():
    text = " ".join(_prose("06").split())
    # C: the fingerprint's "L2 hit rate" is named where its number is given
    # review 26d: the 99.7% is a separate Nsight Compute run's, and says so
    assert ("In a separate Nsight Compute run at this footprint, DRAM served 0.3% of the requested "
            "bytes: a byte-based **L2 hit rate** of 99.7%, 1 − DRAM bytes / requested bytes") in text
    assert "came without DRAM" not in text
    # C: 90% and 70% with no word: the slowed copy fails even the looser gate
    printed = _printed("06")
    assert "threshold 90%" in printed and "threshold 70%" in printed
    # review 26d: why the thresholds differ, in a clause
    assert ("The copy passed its 90% gate; the slowed copy failed even a looser 70% one, so the slowdown failed "
            "it, not a strict threshold") in text
    # C: the GEMM's write share is printed under its table, not said twice
    assert "98.5% of its bytes are C's writes" not in text and "(98.5% of each GEMM's bytes are writes)" in printed


def test_06_does_not_grow_in_review_15d():
    words = sum(len(c.split()) for c in _markdown("06"))
    assert words <= 2178, words


def test_06s_race_table_ends_in_a_short_column():
    # C: "the FFT beats ... the kernel as measured, not one at its roof" crowded the last column
    from rooflinelib.lessons import pitfalls
    from rooflinelib.experiments.record import recorded_experiments
    race = pitfalls.race_rows(recorded_experiments()["algorithm_sizes"])
    printed = _printed("06")
    assert "not one at its roof" not in printed and "FFT faster" in printed
    # review 26d: plain headers and verdicts
    assert "FLOP ratio: direct FLOPs / FFT FLOPs" in printed and "FLOPs/FFT" not in printed
    for r in race:
        word = "even against direct at its roof" if r["fft_beats_roof"] else "only as measured"
        assert any(line.startswith(f"{r['m']:7,d} ") and line.endswith(word) for line in printed.splitlines())
    assert [r["fft_beats_roof"] for r in race] == [False, False, True, True]


def test_the_strided_triage_advice_fits_a_dram_fetch():
    # review 16d E3: padding against bank conflicts is shared-memory advice, not a cure for a
    # strided read's DRAM fetch unit; the step names what fixes it
    from rooflinelib.lessons.triage import KernelFacts, triage
    step = triage(KernelFacts(fraction_of_roof=0.06, side="memory", bytes_ratio=16)).text()
    assert "Fix the access pattern first" in step and "bank conflicts" not in step
    assert "bank conflicts" not in _printed("06")


def test_06_does_not_grow_in_review_16d():
    # review 16d: the fixes cut hedges; the notebook's markdown stays at or under its round-17 count
    assert sum(len(c.split()) for c in _markdown("06")) <= 2152


# --- review 17c (i18_0607) ----------------------------------------------------------------------

def test_06_window_1s_power_reading_is_said_to_lag():
    # review 17c: window 1 read 392 W at an already throttled clock, beside "ran at its 700 W limit"
    from rooflinelib.lessons import pitfalls_lesson
    text = " ".join(_prose("06").split())
    # review 18a: the windows are the appendix's, and so is the lag; the notebook prints no 392 W
    assert "The board ran at its 700 W limit, and NVML names the reason" in text and "392" not in text
    from rooflinelib.experiments.record import recorded_experiments
    assert "392" not in pitfalls_lesson.sustained_text(recorded_experiments()["sustained"])
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "**Window 1's power reading lags.** Its median, 392 W," in page


# --- review 18a (k19_06): clarity 3.5 -> 4; the minor errors ------------------------------------

def test_06_review_18a_the_first_output_prints_the_six_shares_only():
    first = next("".join(o.get("text", "")) for c in _cells("06") if c["cell_type"] == "code"
                 and "pitfalls_lesson.shares_text" in "".join(c["source"]) for o in c["outputs"])
    lines = first.strip().splitlines()
    assert len(lines) == 6 and all(line.startswith("pitfall ") for line in lines)
    assert "(dram: the write mix" not in first and "GB/s" not in first


def test_06_review_18a_pitfall_8_leads_with_its_lesson_and_its_detail_is_the_appendixs():
    from rooflinelib.experiments.record import recorded_experiments
    from rooflinelib.lessons import pitfalls
    run = recorded_experiments()["sustained"]
    held = pitfalls.sustained_summary(run)
    cells = _markdown("06")
    start = next(i for i, c in enumerate(cells) if "## Pitfall 8" in c)
    section = " ".join(" ".join(cells[start:start + 3]).split("## Pitfall 8")[1].split("## Pitfall 9")[0].split())
    # the lesson first: a held kernel lost 15% at the power cap, which a ten-launch ceiling cannot see
    # review 51: the loss shows within the first second (the first window, 13%), not only "held long"
    # review 51d: the section opens on its two outputs (a lead-in), the 13% is the symptom, after them
    lesson = section.index("The fp32 roof at three clocks, then one ceiling measured in repeated bursts:")
    assert lesson < section.index("**Symptom.** Held, the GEMM lost 13% within a second")
    assert section.index("**Symptom.**") < section.index("**Cause, measured.**") < section.index("**Remedy.**")
    assert round(100 * (1 - held["first_tflops"] / held["cool_tflops"])) == 13 and held["first_s"] < 1.05
    assert round(100 * (1 - held["low_tflops"] / held["cool_tflops"])) == 15
    # the 85% against 76% mismatch is stated and explained (review 18a, minor 1)
    clocks = [v.extra["sm_clock_mhz_median"] for v in run.variants if v.extra.get("part") == "sustained"]
    assert round(100 * 1500 / 1980) == 76 and min(clocks) <= 1500 <= max(clocks)
    assert f"{held['low_tflops'] / held['cool_tflops']:.0%}" == "85%"
    # review 26d: the section ends on its result; the 76% against 85% is the appendix's
    assert ("The clock held near 1,500 MHz ([every ten seconds](../docs/appendix-06-pitfalls.md#pitfall-8-the-"
            "sustained-run-every-ten-seconds))") in section
    assert "76%" not in section and "unknown" not in section
    # the lab-log detail moved whole: window 1's lag, the hot burst, the heat hypothesis
    for moved in ("window 1", "392", "781", "hot card right after", "temperature alone", "Hypothesis"):
        assert moved not in section
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    for kept in ("**Window 1's power reading lags.**", "**Temperature alone cost little.**",
                 "**Rates and clocks need not scale together here.**", "still reached 781 TFLOP/s"):
        assert kept in page
    printed = [line for c in _cells("06") if c["cell_type"] == "code" and 'lesson.show("sustained"' in "".join(c["source"])
               for o in c["outputs"] for line in "".join(o.get("text", "")).splitlines()]
    # review 33d: the GEMM's shape, then the three lines of evidence; review 51: and the first window's
    assert len(printed) == 5 and printed[0] == "the GEMM: bf16 on the tensor cores, 8192 x 8192 x 8192"


def test_06_review_18a_the_small_fixes():
    text = " ".join(_prose("06").split())
    cells = _markdown("06")
    # cell 4: the cache fingerprint is 'often' above the DRAM roof
    # review 27d E3: above the DRAM roof only by requested bytes
    assert "| 3 caches | a high L2 hit rate; by requested bytes, often above the DRAM roof |" in " ".join(cells)
    assert "| 3 caches | a point above the DRAM roof" not in " ".join(cells)
    # cell 0: Lab 1 and the access mixes recalled before use (notebook 03's terms)
    opening = " ".join(cells[0].split())
    assert "**Lab 1** (notebook 03) measured the H200's roofs; its DRAM roof depends on the **access mix**" in opening
    # review 26d: the mixes in plain words; the labels' mapping is the appendix's (checked above)
    assert "depends on the **access mix**: copy, read or write (`dram-copy`, `dram-read`, and `dram` for writes" in opening
    # cell 23: the exp break-even in plain words
    assert ("If more than 1 instruction in 8 is an exp (the FFMAs and FMULs around it count as others), the MUFU "
            "pipe binds; instructions issued meanwhile are free") in text
    assert "beyond one per 7 other instructions" not in text
    # cell 46: one idea a sentence
    assert "It fails when the kernel's share of that roof drops below a threshold." in text
    # the markdown got shorter (2,152 words before this round)
    assert sum(len(c.split()) for c in cells) < 2152


def test_06_review_18a_the_streaming_steps_image_does_not_claim_8_gpus():
    pytest.importorskip("IPython")
    pytest.importorskip("ipywidgets")
    pytest.importorskip("plotly")
    from IPython.testing.globalipapp import get_ipython
    from support import notebook_tools
    from rooflinelib.lessons import step_roofs
    from rooflinelib.modes import RunMode
    from rooflinelib.views import widgets
    shell = get_ipython()
    before = shell.display_formatter.format
    try:
        shell.run_cell(notebook_tools.CAPTURE_SOURCE % notebook_tools.STATIC_MIMETYPE)
        widget = widgets.link_step_widget(step_roofs.step_roofs_for(RunMode("recorded", None, "recorded")),
                                          n_params=10 ** 6)  # as cell 42 draws it: streaming
        data, _ = shell.display_formatter.format(widget)
        lines = data[notebook_tools.STATIC_MIMETYPE]["lines"]
    finally:
        shell.display_formatter.format = before
    assert "GPUs: 8" not in lines and "GPUs: not used here (greyed out)" in lines
    assert "each token: 16x16 RGB patch, uint8 (768 B)" in lines  # an enabled control still shows its value


# --- review 25d: notebook 06 ------------------------------------------------------------------------

def test_06_review_25d_the_full_grid_is_itself_under_its_roof():
    # item 4: the chart's 494x has two parts: two blocks against the full grid, and the full grid
    # against the fp32 roof (35%); both printed from the library, the prose reads them
    from rooflinelib.lessons import pitfalls
    from rooflinelib.experiments.record import recorded_experiments
    starved, full = recorded_experiments()["starved"].variants
    machine, _ = pitfalls.recorded_mix_roofs()
    rows = pitfalls.roof_shares([pitfalls.MixPoint(v.name, v.n_flops, v.n_bytes, v.gflops, "dram-copy")
                                 for v in (starved, full)], machine)
    assert rows[1]["bound"] == "compute" and f"{rows[1]['fraction']:.0%}" == "35%"
    assert abs(rows[0]["fraction"] - starved.gflops / full.gflops * rows[1]["fraction"]) < 1e-12
    printed = _printed("06")
    assert (f"1056 blocks: 35% of the fp32 roof ({rows[1]['roof_gflops']:,.0f} GFLOP/s); 2 blocks: "
            f"{starved.gflops / full.gflops:.2%} of the full grid, {rows[0]['fraction']:.2%} of the roof") in printed
    assert f"{1 / rows[0]['fraction']:,.0f}x under it" == "494x under it" and "494x under it" in printed
    text = " ".join(_prose("06").split())
    # review 26d: the 494x as a product, said plainly, each factor from the recorded run
    assert round(full.gflops / starved.gflops) == 174 and f"{rows[1]['roof_gflops'] / full.gflops:.1f}" == "2.8"
    # review 44d: the factors of one kind in one line; the chart's 494x = 174x x the full grid's 2.8x
    assert ("Two blocks ran 174x slower than the full grid, which ran 2.8x under the roof: hence the "
            "chart's 494x") in text  # review 46d: said plainly
    assert "is both" not in text


def test_06_review_25d_caches_scoped_and_the_mufu_lanes_named_and_both_spreads_shown():
    # item 5: the model knows nothing of caches only when it counts the bytes the algorithm requests
    text = " ".join(_prose("06").split())
    assert "Counting the bytes an algorithm requests, the model knows nothing of caches." in text
    assert "## Pitfall 3, caches The model knows nothing of caches" not in text
    # "its share of the MUFU pipe": a scheduler's 4 lanes (16 per SM over 4 schedulers), 32 / 4 = 8 clocks
    from rooflinelib.lessons import pitfalls_lesson
    price = pitfalls_lesson.mufu_price()
    assert price["mufu_per_clock"] // 4 == 4 and 32 // 4 == price["fmas_per_exp"] == 8
    assert "gets 4 of the SM's 16 MUFU results a clock: a warp-wide exp takes 8 clocks" in text
    assert "its share of the MUFU pipe" not in text
    # cell 32 speaks of both timings' spreads: the table shows both, labelled
    printed = _printed("06")
    # review 32d: one column per spread, the term defined under the table
    assert "spread, direct  spread, FFT" in printed and "   386 us            0.5%         2.2%" in printed
    assert "spread: (max - min) / median of the repeats" in printed


# --- review 26d (a27_06): 06 at 4 / 3.5; errors first, then clarity ------------------------------

def test_06_review_26d_the_starved_grid_runs_a_grid_stride_kernel_not_notebook_04s_sweep():
    import inspect
    from rooflinelib.experiments import gpu
    from rooflinelib.measure import experiment_kernels
    # the experiment launches grid_stride_sweep; its loop is one float and one dependent FMA chain a thread
    run = inspect.getsource(gpu.run_starved)
    assert "grid_stride_sweep" in run and "n: int = 2 ** 24" in run
    kernel = inspect.getsource(experiment_kernels.grid_stride_sweep)
    assert "v = x[i]" in kernel and "v = cuda.fma(v, a, b)" in kernel and "i += stride" in kernel
    text = " ".join(_prose("06").split())
    assert "grid-stride `sweep`" not in text and "one dependent chain of K FMAs per float" in text
    # the full grid's 35% is a labelled hypothesis, beside notebook 04's 51.2 TFLOP/s and the counter that decides
    # review 27d E2: both hypotheses, the two ways the kernels differ, the counters that would decide
    # review 28d: the page says the 35% is open beside 04's four-chain 51.2 TFLOP/s; the two hypotheses and the
    # stall-reason counters (undefined on the page) are the appendix's
    # review 32d: the open 35% is one clause with the appendix link; the comparison with 04 is the appendix's
    assert ("which ran 2.8x under the roof: hence the chart's 494x "
            "([appendix](../docs/appendix-06-pitfalls.md#the-starved-grids-kernel))") in text
    assert "Why the full grid itself" not in text
    assert "where notebook 04's `sweep` at K = 64 reached 51.2" in " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "Hypotheses for the 35%" not in text
    assert "Hypothesis for the 35%: one dependent FMA chain" not in text
    assert "sweep 51,166" in _printed("06")
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "## The starved grid's kernel" in (ROOT / "docs" / "appendix-06-pitfalls.md").read_text()
    assert "`experiment_kernels.grid_stride_sweep`" in page and "four independent FMA chains" in page


def test_06_review_26d_triage_is_defined_at_its_first_use():
    cells = _markdown("06")
    glance = next(i for i, c in enumerate(cells) if c.startswith("## The nine at a glance"))
    # review 37d: pitfalls 5, 7 and 8 do not call triage, so "each section feeds it" was not true
    assert ("**Triage** (`triage`) takes what you know of a kernel and names the likeliest pitfall; pitfalls "
            "1–4, 6 and 9 feed it their measurements.") in " ".join(cells[glance].split())
    # and the list is what the page does: the pitfall sections whose code calls triage
    calling, pitfall = set(), None
    for cell in _cells("06"):
        text = "".join(cell["source"])
        headings = re.findall(r"^## (?:Pitfall (\d)|.*)", text, re.M) if cell["cell_type"] == "markdown" else []
        if headings:
            pitfall = int(headings[-1]) if headings[-1] else None
        elif cell["cell_type"] == "code" and pitfall and "triage(" in text:
            calling.add(pitfall)
    assert calling == {1, 2, 3, 4, 6, 9}
    assert not any("triage" in c.lower() for c in cells[:glance])


def test_06_review_26d_fft_flop_bases_are_said():
    printed = _printed("06")
    assert ("FLOPs per output, counted (overlap-save was not raced)\n  whole-signal FFT: three transforms of the "
            "whole signal\n  overlap-save: blocks of 8m, two transforms and the products each (the filter's transform "
            "made once)") in printed
    import math
    from rooflinelib.lessons import pitfalls
    n, m = 2 ** 22, 2 ** 12
    length = pitfalls.fft_length(n, m)
    same_basis = (2 * 2.5 * length * math.log2(length) + 6 * (length // 2 + 1)) / n
    assert round(same_basis) == 236
    assert round(pitfalls.fft_correlation_flops(length) / n) == 345
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "The two FFT counts stand on different bases." in page and "about 236 FLOPs per output" in page


def test_06_review_26d_markdown_words_go_down():
    assert sum(len(c.split()) for c in _markdown("06")) < 2125  # review 32d: 2,125 before that round


# --- review 27d (d28_06): 06 at 4 / 4 for two minor errors --------------------------------------------

def test_06_review_27d_the_launch_symptom_holds_for_the_charted_and_the_printed_add():
    from rooflinelib.lessons import pitfalls, pitfalls_lesson
    from rooflinelib.experiments.record import recorded_experiments
    copy = pitfalls.recorded_mix_roofs()[0].ceiling("dram-copy").value
    first = next(v for v in recorded_experiments()["launch"].variants if "4096 elements" in v.name)
    printed = pitfalls_lesson.launch_pair(recorded_experiments()["launch_empty"])
    ratios = [pitfalls.launch_bound_at(4096, copy, t)["launch_over_traffic"]
              for t in (first.median_s, printed["add_s"])]
    assert all(r > 5000 for r in ratios) and round(ratios[0], -1) != round(ratios[1], -1)  # two runs, both over
    # review 32d: the chart now plots the printed run's add (point A), not the first run's noisy one
    point = pitfalls.recorded_points()[0]
    assert point.name.startswith("pitfall 1: 4096-element add")
    assert point.n_flops / point.achieved_gflops / 1e9 == pytest.approx(printed["add_s"])
    assert "pitfalls.recorded_points()" in _code("06")
    # one table of chart points (RECORDED_POINTS): its pitfall-1 row is the printed run's kernel variant
    assert recorded_experiments()["launch_empty"].variants[pitfalls.RECORDED_POINTS[0][1]].extra["part"] == "kernel"
    text = " ".join(_prose("06").split())
    assert "5,566" not in text and "sits more than 5,000 times under its roof" in text


def test_06_review_27d_the_starved_grids_gap_and_both_hypotheses():
    from rooflinelib.experiments.record import recorded_experiments
    starved, full = recorded_experiments()["starved"].variants
    left = (2 / 132) / (starved.gflops / full.gflops)
    assert f"{left:.1f}" in ("2.6", "2.7") and 2.55 < left < 2.7
    text = " ".join(_prose("06").split())
    # review 28d: the 35% hypotheses and their stall-reason counters are the appendix's; the page says it is open
    assert round(132 / 2) == 66 and round(full.gflops / starved.gflops) == 174
    assert "174x = 66x (130 of 132 SMs idle) × 2.6x (hypothesis: 8 warps per SM cannot hide latency)." in text
    assert "long-scoreboard" not in text
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "Hypothesis for the other factor of about 2.6: each busy SM held 8 warps of at most 64" in page
    assert "**Too few bytes in flight.**" in page and "**Too few FMAs issued per clock.**" in page
    assert "long-scoreboard stalls (waiting on memory) point to the second" in page
    # the kernel sits at 16 FLOP/byte (K = 64: 128 FLOPs per 8 bytes), 4 bytes a thread, 8 KB per SM at 64 warps
    assert round(full.n_flops / full.n_bytes) == 16 and 64 * 32 * 4 == 8192


def test_06_review_27d_trivials_the_hold_the_dispatch_and_short_kernels():
    from rooflinelib.experiments.record import recorded_experiments
    assert recorded_experiments()["sustained"].extra["seconds"] == 120
    code = _code("06")
    # review 33d: "maybe too short to reach the power cap" was lab log
    assert ("# live, this holds 30 s; the recorded run held 120 s\n"
            'sustained = lesson.show("sustained", gpu={"seconds": 30})') in code
    text = " ".join(_prose("06").split())
    assert "split among kernels likely too short to reach their roofs (pitfall 1)" in text
    # CuPy's timed dispatch launches a kernel of one pointer argument; torch fills one float
    import inspect
    from rooflinelib.experiments import gpu
    source = inspect.getsource(gpu)
    assert 'void touch(float* x)' in source and '"torch (fill_ on one float)"' in source


def test_06_review_27d_shared_labels_are_scoped():
    # review 27d: the caches pitfall holds for requested bytes (with DRAM bytes the point falls back
    # under the roof), and a microsecond kernel is likely, not surely, too short to reach its roof
    from rooflinelib.lessons.triage import PITFALLS
    assert PITFALLS[3] == "on requested bytes, the model knows nothing of caches"
    import json
    nb = json.loads((ROOT / "notebooks" / "06_pitfalls.ipynb").read_text())
    out = json.dumps([c.get("outputs", []) for c in nb["cells"]])
    assert "on requested bytes, the model knows nothing of caches" in out
    assert "each lasts microseconds, too short to reach its roof" not in out
    assert "each lasts microseconds, likely too short to reach its roof" in out


def test_06_review_30d_the_starved_kernel_is_not_called_sweep_and_dispatch_is_most_of_the_time():
    # review 30d: notebook 04's `sweep` is another kernel; the chart and the printed shares name the
    # starved one as grid-stride. The add's 57.9 us is mostly (48.6 of it) the host's dispatch
    from rooflinelib.lessons import pitfalls
    import json
    nb = json.loads((ROOT / "notebooks" / "06_pitfalls.ipynb").read_text())
    out = json.dumps([c.get("outputs", []) for c in nb["cells"]])
    assert "sweep K=64 on 2 blocks" not in out and "grid-stride K=64 on 2 blocks" in out
    assert ("starved", 0, "1: grid-stride K=64 on 2 blocks", "copy") in pitfalls.RECORDED_POINTS
    text = " ".join(_prose("06").split())
    assert "the time is mostly the host's **dispatch** (Numba's whole launch path" in text


# --- review 32d (h32_06): 06 at 4.5 / 3.5; the trivial errors and the clarity items ---------------

def test_06_review_32d_trivial_errors_and_clarity_items():
    from rooflinelib.experiments.record import recorded_experiments
    text = " ".join(_prose("06").split())
    code, printed = _code("06"), _printed("06")
    # item 4: 81.7 TFLOP/s is a peak
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())  # review 44d: moved there
    assert "unpacked code gets at most 81.7." in page and "unpacked code gets 81.7" not in page + text
    # item 3: point C is two kernels with the same FLOPs and bytes; the chart counts runs, not kernels
    overlap = recorded_experiments()["overlap"].variants
    assert overlap[2].n_bytes == overlap[3].n_bytes and abs(overlap[2].n_flops / overlap[3].n_flops - 1) < 0.001
    assert "pitfall 2: same FLOPs and bytes, two kernels" in printed and "the same work" not in printed
    assert 'title="Six runs measured on the H200' in code and "Six kernels" not in code
    assert "six H200 runs" in text and "six H200 kernels" not in text
    # point E: the read kernel's FLOPs said where its chart point is read
    strided = recorded_experiments()["strided"].variants
    assert all(v.n_flops / v.n_bytes == 0.25 for v in strided)
    assert "The strided kernel counts one add per float read (0.25 FLOP/byte)." in text
    # cell 19: the point before the table; the write mix in one line
    # review 33d (words): the write mix is said once, in the printed line under the table
    assert "Against two compute roofs the bf16 kernel gets opposite verdicts." in text
    assert "memory roof B: Lab 1's write mix, 4,693 GB/s (98.5% of each GEMM's bytes are writes)" in _printed("06")
    # cell 45: the stored widget image is captioned as live (by its own static caption; the prose no longer repeats it)
    widget = next(c for c in _cells("06") if c["cell_type"] == "code" and "triage_tool(" in "".join(c["source"]))
    caption = " ".join("".join(o.get("data", {}).get("text/plain", "")) for o in widget["outputs"])
    assert "run the cell for the interactive figure" in caption
    # pitfall 1 is the lesson, not the record of two runs
    assert "earlier run" not in text and "CuPy" not in text and "6.2 µs" not in text


def test_06_review_32d_stride_32_ran_slower_than_the_64_byte_fetch_predicts():
    # the 64-byte fetch predicts stride 32 at half stride 16's time (the same useful share); it took longer
    from rooflinelib.experiments.record import recorded_experiments
    base, *_, s16, s32 = recorded_experiments()["strided"].variants
    assert (s16.name, s32.name) == ("stride 16", "stride 32")
    assert s32.median_s > s16.median_s / 2 and s32.gbps / base.gbps < s16.gbps / base.gbps
    text = " ".join(_prose("06").split())
    assert "Stride 32 ran slower than that predicts" in text and "Stride 32 ran faster" not in text


def test_06_review_33d_the_held_gemm_the_pcie_rate_the_l2_roof_and_the_burst_clock():
    from rooflinelib.experiments.record import recorded_experiments
    run = recorded_experiments()["sustained"]
    n = run.extra["n"]
    # E1: the held GEMM is 8192^3 (2 n^3 FLOPs a launch), not pitfall 4's 16384 x 16384 x 128
    assert n == 8192 and all(v.n_flops == 2 * n ** 3 for v in run.variants)
    assert "(8192^3)" in run.title and "16384" not in run.title
    text, printed = " ".join(_prose("06").split()), _printed("06")
    assert "held the bf16 GEMM" not in text and "a bf16 GEMM (8192³)" in text
    assert "the GEMM: bf16 on the tensor cores, 8192 x 8192 x 8192\nten launches, cool card: 797 TFLOP/s;" in printed
    # T2: 64 GB/s is PCIe Gen5 x16's raw rate per direction; 63.0 after 128b/130b; 128 both ways
    assert ("PCIe Gen5 x16: 64 GB/s per direction is the raw rate, 63.0 after 128b/130b encoding; "
            "data sheets print 128 GB/s, both directions") in printed
    # T4: the L2 kernel's 202% names its roof: Lab 1's fastest DRAM mix, the write
    # review 44d: the read-only L2 kernel is set against Lab 1's read roof, its own mix's, by name
    assert "Lab 1's read roof: 4,509 GB/s, so the kernel ran 2.1x it" in printed and "202% of Lab 1's DRAM roof" not in printed
    assert "2.1 times Lab 1's read roof, its own mix's." in text
    # clarity: the burst's clock reading predates its load, so 76% and 85% need not match
    assert "NVML sampled no clock during the burst: compare rates, not clocks." in text  # review 46d
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text().split())
    assert "NVML's readings before the load" in page


def test_06_review_37d_link_bound_says_what_small_means():
    # the link's intensity is 6 x parameters / bytes per token, whatever the batch: "small model on
    # large inputs" left "small" undefined; few parameters per byte of input is what the formula says
    text = " ".join(" ".join(_markdown("06")).split())
    assert "so a model with few parameters per byte of input is link-bound at any batch size" in text
    assert "small model on large inputs" not in text
