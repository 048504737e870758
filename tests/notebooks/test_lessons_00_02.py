"""Notebooks 00 to 02 read as lessons: 02 opens on the course's GPU, the opening figures draw
the roofs their text names, and the numbers 02's prose states are the ones rooflinelib gives."""
import re
from pathlib import Path

import nbformat
import pytest

from rooflinelib.core import operators
from rooflinelib.views import tables
from rooflinelib.core.machines import A100, H100_SXM, H200

ROOT = Path(__file__).resolve().parents[2]


def cells(name):
    return nbformat.read(str(ROOT / "notebooks" / name), as_version=4).cells


def words(text):
    """The text with every run of white space one space, so a phrase can cross a line break."""
    return " ".join(text.split())


def markdown(name):
    return words("\n".join(c.source for c in cells(name) if c.cell_type == "markdown"))


def says(text, *phrases, absent=()):
    """Assert that ``text`` holds every one of ``phrases`` and none of ``absent``, naming the
    first phrase that fails (notebook 03's lesson tests use it too)."""
    for phrase in phrases:
        assert phrase in text, f"missing: {phrase!r}"
    for phrase in absent:
        assert phrase not in text, f"still there: {phrase!r}"


def first_figure(name):
    """The figure the notebook's first code cell draws, built by running that cell."""
    pytest.importorskip("plotly")
    code = next(c for c in cells(name) if c.cell_type == "code")
    # the last statement may span lines (a call with its arguments): run what comes before it,
    # then evaluate it from its first line
    lines = code.source.splitlines()
    start = max(i for i, line in enumerate(lines) if line and not line.startswith((" ", "\t")))
    namespace = {}
    exec(compile("\n".join(lines[:start]), name, "exec"), namespace)
    return eval(compile("\n".join(lines[start:]), name, "eval"), namespace)


def test_02_opens_on_the_courses_gpu_not_a_vendor_comparison():
    # Review 2: "02 opens on the MI300X". The first thing a student meets is the idea, on the H200.
    first_text = words(cells("02_operator_intensities.ipynb")[0].source)
    assert "H200" in first_text and "MI300X" not in first_text
    figure = first_figure("02_operator_intensities.ipynb")
    assert "H200" in figure.layout.title.text and "MI300X" not in figure.layout.title.text


@pytest.mark.parametrize("name", ["01_derivation.ipynb", "02_operator_intensities.ipynb"])
def test_opening_figure_draws_only_the_hbm_roof_its_text_names(name):
    # Both said "one HBM roof" (01's title) or "the bf16 tensor-core roof" over HBM (02), and
    # both drew the H200's shared-memory roof as well, a green line the text never mentions.
    figure = first_figure(name)
    from rooflinelib.views.plotting import memory_id
    memory = [t.meta for t in figure.data if str(t.meta).startswith(memory_id(""))]
    assert memory == [memory_id("dram")], memory


def test_02_keeps_the_mi300x_fp32_facts():
    # review 15b C02-2: the packed note is the appendix's; the lesson links it beside the ridges
    text = markdown("02_operator_intensities.ipynb")
    page = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    # review 16b: the ridges name the packed row's ridge, 31, so the 12-20 range does not seem to cover it;
    # review 40a: without an appendix link in mid-sentence (cell 0 links the appendix)
    assert "(31 for the MI300X's packed data-sheet figure)" in words(text)
    assert "FP32 vector 163.4" in page and "= 81.7 TFLOP/s" in page and "AMD calls its tensor cores matrix cores" in page
    ridges = tables.ridge_rows(names=("fp32", "fp32-packed"))
    mi300x = {r["name"]: r["peak_gflops"] for r in ridges if r["machine"] == "MI300X"}
    assert mi300x == {"fp32": 81_700, "fp32-packed": 163_400}


def test_02_prose_states_the_numbers_rooflinelib_gives():
    text = markdown("02_operator_intensities.ipynb")
    fp32, bf16 = H200.ridge("fp32"), H200.ridge("bf16-tensor")
    fused_chain = operators.elementwise_chain(2**24, 5, fused=True)
    assert f"{operators.times_below_ridge(fused_chain, fp32):.0f} times below the ridge" in text
    # review 11b C02-3: the fusion section no longer teaches the wrong roof (the ridges' section does)
    assert f"The {operators.times_below_ridge(fused_chain, bf16):.0f} times against the bf16 tensor ridge" not in text
    gaps = [fp32 / k.intensity for k in (operators.vector_add(2**24), operators.reduction(2**24),
                                          operators.softmax(2**24, fused=True))]
    assert (f"Vector add would need {gaps[0]:.0f} times its intensity, the reduction {gaps[1]:.0f} times, "
            f"fused softmax {gaps[2]:.0f}") in text
    sizes = {r["dtype"]: r["smallest_n"] for r in tables.gemm_threshold_rows(H200)}
    # review 19d: the threshold is the ridge crossing; the 10% band calls it "at the ridge"
    assert f"reaches the ridge at N = {sizes['fp32']}" in text
    # review 20c: 619 holds with C in the GEMM's own type (fp8 with bf16 C: the appendix's 825)
    assert f"in every tensor-core precision (C in the same type), at N = {sizes['bf16']}" in text
    assert len({sizes[d] for d in ("tf32", "bf16", "fp16", "fp8")}) == 1


def test_02_says_the_mufu_rate_is_derived():
    # No datasheet lists the MUFU rate: it is SMs x 16 per clock x boost clock (review 2, T1).
    assert "derived" in H200.ceiling("sfu").source


def test_02_mufu_share_is_counted_per_clock():
    # Review 3a T02-1: both rates at one clock (50%, not 46%). Review 5a C8: the argument in its
    # direct form, per SM and per clock, printed by the cell: 512 FLOP at 4,096 per clock = 1/8
    # clock against one exp at 16 per clock = 1/16 clock, whatever the clock.
    from rooflinelib.core.machines import NVIDIA_BF16_TENSOR_FLOP_PER_CLOCK_PER_SM, NVIDIA_SFU_PER_SM
    text = markdown("02_operator_intensities.ipynb")
    assert "the clock the tensor figure implies" not in text and "nearly half" not in text
    # review 40a: the prose says the result (half, a quarter); the cell prints the per-clock chain
    # review 37a: one clock, since the datasheet quotes its tensor and MUFU rates at different clocks;
    # review 44a: said as "counted in one SM's clock cycles", not the cryptic "at any one clock"
    assert ("At d = 128, counted in one SM's clock cycles, a score's exp takes the MUFU half the time its two GEMMs take the "
            "tensor cores of an H100 or H200 SM, a quarter on an A100") in words(text)
    assert "whatever the clock" not in text
    assert "half again as long on the H100 and H200" in text
    # review 20c: 01's opening figures are the dense peaks (the H200 datasheet prints 67, and its
    # tensor figures with sparsity)
    opening = words(cells("01_derivation.ipynb")[0].source)
    # review 32a: 66.9 is derived from the published configuration (the datasheet prints 67);
    # review 40a: only the fp32 roof is derived; review 41a: 989.4 is half the datasheet's sparse 1,979
    assert "H200's published dense peaks" not in opening and "datasheet figures" not in opening
    assert "derived from its published configuration" not in opening
    assert "(989.4 TFLOP/s dense)" in opening  # review 46a
    # review 20c: the exp instruction alone sets these, so they are lower bounds
    assert "tensor roof says: at least a quarter longer on the A100" in text
    for machine in (A100, H100_SXM, H200):
        per_clock = NVIDIA_BF16_TENSOR_FLOP_PER_CLOCK_PER_SM[machine.name]
        assert operators.exp_time_over_matrix_time(128, machine) == pytest.approx(
            (1 / NVIDIA_SFU_PER_SM) / (4 * 128 / per_clock))
    cell = next(c for c in cells("02_operator_intensities.ipynb") if "exp_time_over_matrix_time" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert "H200: a score's GEMMs, 512 FLOP at 4,096 per clock = 1/8 clock; its exp at 16 per clock = 1/16 clock" in printed
    assert "costs 50% of the tensor time" in printed and "A100" in printed and "costs 25%" in printed


def test_00_and_01_quote_the_launch_and_strided_figures_of_their_own_kernel():
    from rooflinelib.lessons import analogy, chart_reading
    text00, text01 = markdown("00_start_here.ipynb"), markdown("01_derivation.ipynb")
    # T00-1: 26-30 us was a one-float kernel's dispatch; review 5a C1: 00 gives no dispatch figure
    assert "26 to 30" not in text00 and "0.64 µs in another" not in text00
    assert "Numba's host dispatch" not in text00 and "A launch from Python adds the host's work" in text00
    # T00-3, then review 5a C1: the re-reads cross the cache that serves them (no L1/L2 before 02)
    assert "crosses that cache 5 times and HBM once" in text00
    # T01-1: 8x is the L2's sector amplification; HBM moves 64 bytes at a time on the H200
    assert chart_reading.error_sizes(H200)["strided_amplification_hbm"] == 16
    # review 6a C01-3: 01 keeps the L2's 8x; HBM's 16x (extrapolated past stride 16) is 02's
    assert "about 16 times at the H200's HBM" not in text01
    assert "it moves 8 times the bytes it uses through the L2" in text01
    # T01-2: a machine slip moves the ridge, a count slip the point, not both
    assert "every point by that factor" not in text01


def test_the_running_example_is_not_a_normalization_at_12_flop_per_byte():
    # Review 3a T00-2/T01-3: real normalizations sit near 1 FLOP/byte (02's softmax); 12 is a stencil.
    for name in ("00_start_here.ipynb", "01_derivation.ipynb"):
        assert "normalization" not in words("\n".join(c.source for c in cells(name))).lower(), name


def test_00_gemm_under_half_its_roof_points_past_the_chart():
    # Review 3a C00-2: 46% of its roof is "far below" by the course's triage, not "its instructions".
    text = markdown("00_start_here.ipynb")
    assert "Its bytes are not the first suspect; its instructions are" not in text
    assert "notebook 06's triage" in text
    # review 9a T00-1: latency is hidden by work in flight, not occupancy as such; review 10a
    # C00-3: the start page names one suspect and leaves the list to notebook 01
    # review 26a: "memory waits", two words shorter, pays for the stencil's gloss
    assert "occupancy" not in text and "too little work in flight to hide memory waits" in text


def test_00_figure_names_the_roof_as_its_ridge_does():
    # Review 3a C00-3: the roof said "relevant arithmetic", its ridge "ridge fp32".
    figure = first_figure("00_start_here.ipynb")
    roof = next(t.name for t in figure.data if str(t.meta).startswith("roof:"))
    ridge = next(a.text for a in figure.layout.annotations if str(a.text).startswith("ridge"))
    assert roof.startswith("fp32") and ridge.startswith("ridge fp32"), (roof, ridge)


def test_01_reads_the_chart_errors_on_one_machine():
    # Review 3a C01-1: unit slips on the example GPU, the rest on the H100, in one cell.
    code = next(c.source for c in cells("01_derivation.ipynb") if "chart_reading.error_sizes" in c.source)
    assert "H100" not in code and code.count('get_machine("H200")') == 1


def test_02_review_3a_wording():
    text = markdown("02_operator_intensities.ipynb")
    assert "asymmetry" not in text and "Weight-only quantization" in text  # T02-2
    # T02-3; review 11b C02-1: the kernels' intensities are given where the kernels are defined
    # review 46a: said in the attention section, not before it
    assert "(of its three kernels, the two GEMMs sit near d = 128 FLOP/byte, the softmax, 1% of the FLOPs and not on tensor cores, at 5/4)" in words(text)
    assert "not either roof, set its time" in text  # T02-4: N = 84 / 619 is the model's verdict
    assert "directly attached to half of the SMs" not in text  # T02-5, then review 4a T02-2
    assert "## Fusion moves a kernel up the slope, not across the ridge" in text  # C02-2
    assert "Hover over a point" not in text and "in a running notebook, hover" in text  # C02-3
    assert "drawn at their roofs, not measurements" in words(text)  # C02-3: predictions, not measurements
    assert "Two terms for later notebooks" not in text  # C02-1, 4a C02-2, then 5a C7: moved out


def test_primer_defines_the_terms_02_uses_and_its_links_hold():
    # 02's primer defines what 02 uses (review 5a C7: bank conflicts and occupancy move to the
    # notebooks that use them); every link to its heading still lands on it.
    primer = next(c.source for c in cells("02_operator_intensities.ipynb")
                  if c.cell_type == "markdown" and c.source.startswith("## Primer: how bytes and FLOPs reach the hardware"))
    for term in ("sectors", "coalesced"):
        assert re.search(r"\*\*" + term + r"\*\*", primer, re.I), term
    for term in ("bank", "occupancy", "partition"):
        assert term not in primer.lower(), term
    linking = [p for p in (ROOT / "notebooks").glob("*.ipynb")
               if "02_operator_intensities.ipynb#" in p.read_text(encoding="utf-8")]
    for path in linking:
        for anchor in re.findall(r"02_operator_intensities\.ipynb#([^)\s\"]+)", path.read_text(encoding="utf-8")):
            assert anchor == "Primer:-how-bytes-and-FLOPs-reach-the-hardware", (path.name, anchor)


def test_00_says_which_figure_images_are_recorded_h200_data():
    # 00 said "every figure image comes from recorded-H200 mode"; its own figure is the made-up
    # example GPU, and the images' captions now say which figures draw recorded data.
    text = markdown("00_start_here.ipynb")
    assert "every figure image" not in text


# --- review 4a ----------------------------------------------------------------------------------

def test_00_launch_figures_are_a_bound_not_a_traffic_time():
    # T00-1/C00-3: 10.2 ns is the traffic time at full bandwidth, which 49 KB never reaches; the
    # course has no measured DRAM latency, so the text states a bound and names the limit.
    text = markdown("00_start_here.ipynb")
    assert "A tiny kernel's time is its launch and the memory's latency: HBM moves" in text  # review 51a
    # review 9a C00-5: one sentence an item, the numbers in the cell's output
    assert "some 60 times the traffic" not in text
    # review 15a: one reading (no "prepared once and replayed", no "the GPU itself")
    assert "some 60 times the least time a 4,096-element add needs for its bytes" not in text
    # review 15e: the bound and the launch are two ideas, read one after the other
    assert "the shortest possible time to move a 4,096-element add's bytes" not in text
    # review 44a: "the cheapest launch" needed CUDA graphs, which come later: the GPU's own cost
    assert ("HBM moves a 4,096-element add's bytes in 10 ns at best. Launched back to back, kernels cost the GPU "
            "some 60 times that each.") in text  # review 46a: three sentences; 51a: per kernel, back to back
    code = next(c.source for c in cells("00_start_here.ipynb") if "break_figures" in c.source)
    assert "x that bound" in code and "at least {" in code


def test_00_reads_as_a_lesson():
    text = markdown("00_start_here.ipynb")
    # T00-2: a broken sentence
    assert "what the chart does not draw is, such as" not in text
    # C00-1: the terminal workflow is install detail, one link away
    assert "my_ceilings.json" not in text and "docs/install.md#measuring-on-a-gpu-cluster-without-jupyter" in text
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert "\n## Measuring on a GPU cluster without Jupyter\n" in install and "my_ceilings.json" in install
    # C00-2: pitfall numbers mean nothing before notebook 06's list
    assert not re.search(r"pitfall \d", text), re.search(r"pitfall \d", text)


def test_01_review_4a_wording():
    text = markdown("01_derivation.ipynb")
    assert "no implementation beats either one" not in text  # T01-1
    # review 5a C5: a measured ceiling means nothing at step 1; notebook 03 introduces it
    assert "A measured ceiling" not in text
    assert "which warps switching" not in text and "warp switching makes possible" in text  # T01-2
    assert "(64-byte units, measured up to stride 16)" not in text  # T01-3, then review 6a C01-3
    assert "four common errors" not in text and "## Four ways a placement goes wrong" in text  # C01-1


def test_01_prints_one_reading_error_a_line():
    # C01-2: the GiB, Gbit and wrong-roof slips were packed into one printed line.
    cell = next(c for c in cells("01_derivation.ipynb") if "chart_reading.error_sizes" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs).splitlines()
    assert printed, "no stored output"
    for line in printed:
        assert sum(key in line for key in ("GiB/s", "Gbit/s", "tensor roof")) <= 1, line


def test_02_review_4a_wording():
    text = markdown("02_operator_intensities.ipynb")
    # T02-1: fp8 doubles the ridge; what stays is the N at which I(N) meets it
    assert "the ridge and the size that reaches it do not move" not in text
    # review 9b C02-4: the ridge doubles with the peak; the intensity only with every matrix in fp8
    assert ("fp8 doubles bf16's peak, so the ridge doubles; stored in fp8, A, B and C take half the bytes, "
            "so every GEMM's intensity doubles too") in text
    assert H200.ridge("fp8-tensor") == pytest.approx(2 * H200.ridge("bf16-tensor"), rel=1e-3)  # 1,978.9 vs 989.4
    # T02-2: nothing measured says the other partition is slower; the fabric bytes are counted
    assert "slower crossbar" not in text  # (5a C7: the partitions are notebook 05's, defined there)
    # T02-3/C02-2: the primer defines what 02 uses; the rest is a glossary for later
    assert "This notebook uses the first two" not in text
    # T02-4: unfused attention's point is three kernels; review 10b C02-1: said where it is explained
    # (the placement table's reading), so the opening holds the answer and the figure
    assert "three kernels" not in words(cells("02_operator_intensities.ipynb")[0].source)
    # C02-3: the per-clock aside lives in the appendix
    assert "Per clock, Hopper's is 16" not in text
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "ratio is 14.8 on Hopper where the per-clock ratio is 16" in appendix
    # C02-4: the one row counted at the SMs is named before the table prints 0.25
    table = next(i for i, c in enumerate(cells("02_operator_intensities.ipynb")) if "operator_rows()" in c.source)
    # review 10b T02-2: what its threads load, before coalescing (a warp's shared row is one request)
    assert "counts what its threads load, before coalescing or any cache serves them" in words(cells("02_operator_intensities.ipynb")[table - 1].source)
    # C02-5: b_q is defined where it is used (since review 5a C7, the appendix's L2 aside)
    assert "b_q" not in text
    assert "the b_q rows of Q that one block keeps on chip" in appendix


# --- review 5a ----------------------------------------------------------------------------------

def test_the_worked_example_judges_two_fp32_fma_kernels_against_its_one_fp32_roof():
    # T1: the example GPU has one compute roof; the GEMM's first suspect was "the intended matrix
    # instructions", which that roof does not assume.
    from rooflinelib.core.machines import EXAMPLE_120T_3TB
    assert [c.name for c in EXAMPLE_120T_3TB.ceilings if c.kind == "compute"] == ["fp32"]
    text00, text01 = markdown("00_start_here.ipynb"), markdown("01_derivation.ipynb")
    assert "whether it runs the instructions the roof assumes" not in text00
    assert "Both do their arithmetic as fp32 fused multiply-adds (FMAs), so one compute roof, the fp32 one, judges both" in text00
    assert "intended matrix instructions" not in text01
    assert "Both run fp32 FMAs, so the same fp32 roof judges both" in text01
    assert "120 TFLOP/s of fp32 FMAs" in text01
    assert "instead of FMAs" in text01  # review 10a C00-3: 00 leaves the suspects to 01


def test_00_breaks_use_no_term_defined_later():
    # C1: CUDA graphs, host dispatch, SMs, L1 and L2 appeared on the start page before any
    # notebook defines them.
    section = next(words(c.source) for c in cells("00_start_here.ipynb")
                   if c.cell_type == "markdown" and "## Where the picture breaks" in c.source)
    section = section[section.index("## Where the picture breaks"):]
    for term in (r"\bSMs?\b", r"\bL1\b", r"\bL2\b", r"CUDA graph", r"dispatch"):
        assert not re.search(term, section), term
    # review 6a C00-2: packed fp32 is notebook 02's, one pointer away
    assert "counting packed instructions" not in section
    # review 7a C00-2: "unpacked", as printed, is glossed where it is printed; review 9a C00-2:
    # packing is notebook 02's, so the start page only points there
    assert "one FMA per lane" not in section and "packed into one lane" not in section
    # review 10a C00-2: "unpacked" and 163.4 came unexplained; the cell prints the packed figure
    assert "163.4" not in section and "lane" not in section
    # review 11a T-00-1: "issued two at a time" reads as dual issue; packed is one instruction
    # doing two FMAs (per lane, a word 00 does not define, hence "lane" stays out)
    assert "issued two at a time" not in section
    # review 15a: two FMAs per thread (a wavefront instruction does far more), in a shorter item;
    # review 15e: packed fp32 is too much for the first hour, so 00 leaves it to 02 and the appendix
    # review 25a: "ordinary fp32" left the data sheet's 163.4 (16x) unexplained: the page says which fp32
    # review 32a: fp64 vector ties with it, and the packed qualifier leaves the first hour
    assert "unpacked fp32 (16 times its data sheet's packed figure)" not in section
    # review 33: the fp32 rate that ties fp64 is the unpacked one; review 37a: the course's unpacked
    # roof is not the data sheet's fp32 figure, so the point is made on the H200, whose roofs need no
    # qualifier (the MI300X is notebook 06's)
    assert "MI300X" not in section and "packed" not in section
    assert "fp32 on its vector units (the FP32 CUDA cores)" in section  # review 46a: NVIDIA's name
    assert "where its fp32 and fp64 vector units tie" not in section
    assert "ordinary fp32" not in section and "two FMAs" not in section
    assert "two fp32 FMAs, not one" not in section


def test_00_quotes_one_launch_figure_the_course_quotes_everywhere_in_microseconds():
    # C3: 00 printed "0.59 us", said "about 0.6 µs", exercise 2 said "0.64 µs".
    from rooflinelib.lessons import pitfalls
    device_us = f"{pitfalls.recorded_launch_costs()['device_s'] * 1e6:.2f} µs"
    text00 = markdown("00_start_here.ipynb")
    # review 9a C00-5: the figure is the cell's to print, and no other one is quoted
    assert "µs" not in text00 and "about 0.6" not in text00 and "0.59" not in text00
    cell = next(c for c in cells("00_start_here.ipynb") if "break_figures" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert device_us in printed and not re.search(r"\d us\b", printed), printed
    # exercise 2 (C4) quotes the same run's figure, in its text or its given table (stored in the
    # worked answers; the student copy prints it when run)
    shown = []
    for folder in ("exercises", "solutions"):
        exercise = nbformat.read(str(ROOT / folder / "02_classify_kernels.ipynb"), as_version=4).cells
        shown += [c.source for c in exercise if c.cell_type == "markdown"]
        shown += [o.get("text", "") + o.get("data", {}).get("text/plain", "")
                  for c in exercise for o in c.get("outputs", [])]
    assert device_us in words("\n".join(shown))


def test_01_defines_the_units_of_a_strided_read_before_using_them():
    # C4: "stride-32", "L2", "32-byte units" came before notebook 02's primer; the item now says
    # what the units are, and the items come in the order the cell prints them.
    text = markdown("01_derivation.ipynb")
    assert "Compulsory bytes" not in text
    assert "Memory moves data in fixed-size blocks, never single values: the L2 (the GPU's large on-chip cache" in text
    assert text.index("**Units.**") < text.index("**Counted bytes are not measured traffic.**") < text.index("**The wrong compute roof.**")
    cell = next(c for c in cells("01_derivation.ipynb") if "chart_reading.error_sizes" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert printed.index("given in GiB/s, used as GB/s") < printed.index("stride-32") < printed.index("tensor roof")


def test_01_says_its_mode_without_a_mode_cell():
    # C6: a cell printed the mode, then the text said it did not matter.
    nb = cells("01_derivation.ipynb")
    assert not any("detect_mode" in c.source for c in nb)
    # review 6a C01-4: said once, at the end, not before step 1
    assert "every mode" not in nb[0].source and "appendix" not in nb[0].source
    last = words([c for c in nb if c.cell_type == "markdown"][-1].source)
    assert "comes from a formula or a datasheet, so it prints the same in every mode" in last


# --- review 5a, notebook 02 -------------------------------------------------------------------

def test_02_claims_no_ridge_trend_its_table_does_not_show():
    # T2: "the tensor cores gained far more speed than HBM ... so faster arithmetic makes more
    # kernels memory-bound", beside a table where the bf16 ridge moves 200.6 -> 206.1 (A100 -> H200).
    from rooflinelib.core.machines import A100
    text = markdown("02_operator_intensities.ipynb")
    assert "gained far more speed" not in text and "faster arithmetic makes" not in text
    # review 6b E02-2: the naive GEMM's 0.25 is counted at the SMs, not at HBM like the ridges
    # review 10b C02-2: said directly, no rows to count
    assert "Six of the ten rows" not in text
    assert ("Apart from the GEMMs and the two full-sequence attention rows, every row of the operator table "
            "sits at about 1 FLOP/byte or below, more than ten times left of every ridge here") in words(text)
    rows = [r for r in tables.operator_rows() if not r["operator"].startswith("GEMM")
            and r["operator"] not in ("attention (unfused)", "attention (fused)")]
    assert len(rows) == 7 and max(r["intensity"] for r in rows) < 1.02
    assert min(r["ridge"] for r in tables.ridge_rows(names=("fp32",))) > 10 * max(r["intensity"] for r in rows)
    compute = H200.ceiling("bf16-tensor").value / A100.ceiling("bf16-tensor").value
    hbm = H200.ceiling("dram").value / A100.ceiling("dram").value
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert f"grew {compute:.2f} times" in appendix and f"bandwidth {hbm:.2f} times" in appendix
    assert f"206.1 / 13.94 = {H200.ridge('bf16-tensor') / H200.ridge('fp32'):.1f} on the H200" in text


def test_02_hbm_64_byte_unit_is_a_fit_to_timings():
    # T3: "the H200's HBM, which moves 64 bytes at a time" stated a measured fit as HBM's property;
    # review 6b E02-1/C02-2: nor was the unit "measured": it is what strided timings fit, up to
    # stride 16, and stride 32 measured worse than the fit (pitfall 6). Review 9b C02-5: a lab
    # result inside a primer that defines terms; the fit is notebook 06's, labelled there
    text = markdown("02_operator_intensities.ipynb")
    assert "which moves 64 bytes at a time" not in text and "measured to move in 64-byte units" not in text
    assert "64-byte" not in text and "**stride**" not in text
    # review 32a: HBM is measured up to stride 16 only; fully scattered reads are an extrapolation
    assert "at HBM it measures worse still" not in text
    # review 40a: the HBM evidence is for strided reads, so the primer's example is a strided read
    assert "scattered" not in text
    assert ("32 floats 128 bytes apart (stride 32) cost 32 sectors: 8 times the bytes used at the L2. At HBM such a "
            "read is slower still (notebook 06, pitfall 6). The course's byte counts assume coalesced access.") in words(text)
    pitfall_6 = markdown("06_pitfalls.ipynb")
    assert "64 bytes" in pitfall_6 and "hypothesis" in pitfall_6
    page = " ".join((ROOT / "docs" / "appendix-06-pitfalls.md").read_text(encoding="utf-8").split())
    assert "the run measured 5.5%" in page and "6.6% of stride 1's" in page  # worse than 1/16


def test_02_has_no_mode_cell():
    # C6: 02 printed the run mode, then said it did not matter; it says so in words instead.
    sources = [c.source for c in cells("02_operator_intensities.ipynb")]
    assert not any("detect_mode" in s for s in sources)
    assert "reads the same in every mode" in markdown("02_operator_intensities.ipynb")


def test_02_is_one_sitting_on_one_thread():
    # C7: 34 cells and ~2,470 words holding about ten ideas. Off-thread material left: the
    # glossary for later notebooks, the roof-ratio cell, the dtype cell, the GEMM widget.
    nb = cells("02_operator_intensities.ipynb")
    text = markdown("02_operator_intensities.ipynb")
    # review 6b added the fp8 output caveat, the tensor tile and the stride's definition: 2,300;
    # review 7b the wrong roof's two directions, tf32 and the shared N: 2,400 (course cap 2,500)
    # review 40a split the primer from the table's set-up and gave the own-roof table its heading cell: 32
    assert len(nb) <= 32 and len(text.split()) <= 2400, (len(nb), len(text.split()))
    assert "bank conflict" not in text and "occupancy" not in text
    code = "\n".join(c.source for c in nb if c.cell_type == "code")
    assert "roof_ratio" not in code and "gemm_widget" not in code and "vector_add(2**24, dtype)" not in code


def test_02_prints_no_tensor_roof_for_the_mi300x():
    # C9: the text calls the MI300X's units matrix cores; a printed line said "MI300X bf16 tensor roof".
    lines = [line for c in cells("02_operator_intensities.ipynb") for o in c.get("outputs", [])
             for line in "".join(o.get("text", "")).splitlines() if "MI300X" in line]
    assert lines and not [line for line in lines if "tensor" in line], lines
    assert any("bf16 matrix" in line for line in lines)


def test_02_gemm_element_size_is_not_the_sequence_length():
    # s was both the element size (I = 2N/(3s)) and, two sections later, attention's sequence length.
    text = markdown("02_operator_intensities.ipynb")
    assert "\\frac{2N}{3e}" in text and "\\frac{2N}{3s}" not in text
    header = tables.render(tables.gemm_threshold_rows(H200), tables.GEMM_COLUMNS).splitlines()[0]
    assert "bytes per element" in header and "s (bytes)" not in header


def test_02_widget_instructions_say_they_need_a_running_notebook():
    # The stored figures are PNGs: "Press play" and "Move s and d" asked a reader of the page for
    # controls the image does not have.
    text = markdown("02_operator_intensities.ipynb")
    assert "Press play." not in text and "Move s and d in the widget and watch" not in text
    assert "In a running notebook, run the cell and press play; the image shows b = 1" in text
    assert "In a running notebook, move s and d in the widget (the image shows s = 1024, d = 128)" in text
    assert "### The exp: a second compute roof" in text


def test_00_learning_path_names_the_labs_each_notebook_title_names():
    # C2: the path said "03 measuring the ceilings (Labs 1 and 2)", 03's title "(Lab 1)".
    labs = re.compile(r"\((Labs? [\d, and]+)\)")
    path = next(c.source for c in cells("00_start_here.ipynb")
                if c.cell_type == "markdown" and c.source.startswith("## The learning path"))
    rows = re.findall(r"^\| \d+ \| \[\*\*\d\d [^*]+\*\*\]\((\d\d_\w+\.ipynb)\)([^|]*)\|", path, re.M)
    assert len(rows) == 7, rows
    for name, after in rows:
        title = cells(name)[0].source.splitlines()[0]
        assert labs.findall(after) == labs.findall(title), (name, after, title)
    assert labs.findall(cells("03_ceilings.ipynb")[0].source.splitlines()[0]) == ["Labs 1 and 2"]


# --- review 6a (notebooks 00 and 01) -------------------------------------------------------------

def test_00_review_6a_span_and_launch():
    from rooflinelib import get_machine
    from rooflinelib.lessons import analogy
    text = markdown("00_start_here.ipynb")
    # T00-1: fp64 vector is as slow as unpacked fp32 on the MI300X, and its fp8 figure is dense
    mi300x = get_machine("MI300X")
    assert mi300x.ceiling("fp64").value == mi300x.ceiling("fp32").value == 81_700
    assert "plain fp32 arithmetic at 81.7" not in text
    # review 7a T00-1: the slowest of its multiply-add roofs (the SFUs are slower); review 37a: the
    # page compares two named H200 roofs instead, so "slowest" is no longer claimed there
    assert analogy.break_figures()["roofs"]["also_low"] == ["fp64 vector"]
    assert "the slowest of its multiply-add roofs" not in text
    cell = next(c for c in cells("00_start_here.ipynb") if "break_figures" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    # review 15e: the library's unpacked fp32 vector roof; review 25a: printed with the library's
    # label, as notebook 02's table prints it
    assert analogy.break_figures()["roofs"]["low"] == "fp32 vector, unpacked"
    # review 32a: packed and unpacked are a qualifier a first-hour reader cannot use; the page
    # prints the two roofs that tie at the bottom, and the appendix keeps the packed figure
    # review 33: the fp32 rate that ties fp64 is named unpacked; the packed figure stays the appendix's;
    # review 37a: the page prints the H200's two roofs, with no packed / unpacked qualifier at all
    assert "163.4" not in printed and "packed" not in printed
    assert "2. H200, two compute roofs: 1,978.9 TFLOP/s (fp8 tensor, dense) against 66.9 (fp32 vector): 30x" in printed
    # T00-2: 0.64 µs is the cheapest launch (empty kernels replayed from a CUDA graph)
    # review 7a C00-3: how it was recorded is the appendix's; review 9a C00-3: "the cheapest way"
    # is said in words a first-hour reader has (a CUDA graph is notebook 06's)
    assert "launched the cheapest way," not in text
    # review 10a C00-1: the same words, the 60-word sentence split; review 15a: read once
    # review 44a: no "cheapest launch" before CUDA graphs are met: the GPU's own cost of a launch
    assert ("kernels cost the GPU some 60 times that each") in text  # review 46a, 51a
    assert "A launch from Python adds the host's work" in text
    assert "replayed as a batch" not in text and "Little" not in text
    assert "appendix-00-02.md#the-recorded-launch-figures-notebook-00" in text
    assert "empty kernels replayed in a CUDA graph" in (ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8")
    # C00-1: one launch figure, under its own name, no lab-log bookkeeping in the cell
    launch = analogy.break_figures()["launch"]
    assert launch["device_s"] == launch["second_device_launch_s"]
    assert "second_" not in cell.source and "notebook 06 quotes" not in cell.source
    assert "launch['device_s']" in cell.source


def test_01_review_6a_correctness():
    from rooflinelib.core import model
    text = markdown("01_derivation.ipynb")
    # T01-1: a barrier-tiled kernel pays the sum only when no other block fills the gaps
    assert "A kernel that cannot overlap (load a tile" not in text
    assert "with only one block on each SM and the SMs in step, so that the whole GPU moves no bytes while it computes" in text
    assert "a second resident block on an SM, or SMs that drift out of step, lets one block's loads overlap another's arithmetic" in text
    # T01-2: P and B in FLOP/s and byte/s; in GFLOP/s and GB/s the quotients are nanoseconds
    assert "| FLOP/s (quoted in GFLOP/s) |" in text and "| byte/s (quoted in GB/s) |" in text
    # review 15e: the nanoseconds are a code comment where time_bounds is called, not step 3's prose
    assert "nanoseconds" not in text
    code = next(c.source for c in cells("01_derivation.ipynb") if "time_bounds(F, M, P, B)" in c.source)
    assert "F/P and M/B come out in nanoseconds; time_bounds returns seconds" in code
    # T01-3: the A100 of the menu is the 40 GB part, and the printed line says so
    assert "The menu's A100 is the 40 GB part" in text
    cell = next(c for c in cells("01_derivation.ipynb") if "explorer_state(machine" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert "A100 (HBM2, 40 GB part, 1,555 GB/s): fp32 ridge 12.5" in printed
    # T01-4: 66.9 is the unrounded figure
    # review 15e: the datasheet's rounding is the appendix's footnote; the lesson keeps 66.9
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "(66.9 TFLOP/s)" in text and "rounds to 67" not in text
    assert "= 66.9 TFLOP/s, which the datasheet rounds to 67" in appendix
    # C01-1: the status bands are the model's
    assert model.FAR_BELOW_FRACTION == 0.5 and model.ABOVE_ROOF_FRACTION == 1.05
    assert model.classify(1, 100, 100, achieved_gflops=80).status == "near-roof"
    assert model.classify(1, 100, 100, achieved_gflops=79).status == "below-roof"
    assert ("near-roof from 80% of the roof, below-roof from 50% to 80%, far-below under 50%, and "
            "above-roof past 105%") in text


def test_01_review_6a_clarity():
    text = markdown("01_derivation.ipynb")
    # C01-2: the fourth way has no number
    assert "Each has a size" not in text and "Three of them have a size" in text
    # C01-3: the L2's 8x only; HBM's units are notebook 02's
    cell = next(c for c in cells("01_derivation.ipynb") if "chart_reading.error_sizes" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert "stride-32 fp32 read: 8x the bytes it uses at the L2 (32-byte units)\n" in printed
    # review 19d: the 64-byte unit, labelled a hypothesis about the L2's fetch from HBM; review 25a:
    # that hypothesis is the appendix's, and the notebook names no unit at HBM
    assert "64-byte" not in printed and "64-byte" not in text
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "Hypothesis for the 64-byte unit: it is the L2's fetch from HBM" in appendix
    # the widgets are still images on the page
    assert "in a running notebook, run the cell to get the sliders" in text
    assert "run the cell in a running notebook to use it" in text


# --- notebook 02 after review 6b ----------------------------------------------------------------

def test_02_review_6b_fp8_output_and_the_tensor_tile_are_stated_with_their_numbers():
    text = markdown("02_operator_intensities.ipynb")
    # E02-3: "same N" holds only with C in fp8 as well; with a bf16 C, I = 2N^3 / (4N^2) = N/2
    fp8_ridge = H200.ridge("fp8-tensor")
    n_bf16_out = next(n for n in range(1, 4096) if 2 * n**3 / (n * n * (1 + 1 + 2)) >= fp8_ridge)
    assert n_bf16_out == 825
    assert "so every GEMM's intensity doubles too" in text and "the **same** N" not in text  # review 9b C02-4
    # review 15b C02-3, 16b, then review 19d: the bf16-C case is a second idea; it is the appendix's
    # review 33: one clause in the notebook says real fp8 GEMMs write C in bf16, with its N and the link
    assert "With C written in bf16" not in text
    # review 44a: only what is true: fp8 GEMMs usually, not always, write C in bf16 (some in fp32)
    assert ("fp8 GEMMs usually write C in bf16 (N = 825) or fp32 "
            "([appendix](../docs/appendix-00-02.md#the-gemm-sizes-at-the-ridge-notebook-02))") in words(text)
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert ("An fp8 GEMM that writes C in bf16, as usual, moves $N^2 (1 + 1 + 2)$ bytes, so $I = N/2$ and "
            f"it reaches the fp8 ridge at N = {n_bf16_out}.") in appendix
    # C02-1: the tensor-core tile is printed, not "15 to 16 times further right"
    assert "15 to 16 times further right" not in text
    tiles = {m.name: (operators.smallest_tile(m.ridge("fp32"), 4096)["exact"],
                      operators.smallest_tile(m.ridge("bf16-tensor"), 4096, "bf16")["exact"]) for m in (A100, H100_SXM, H200)}
    # review 25a: 435 is the exact b at N = 4096; 2I* itself is 412
    assert f"b = {tiles['H200'][1]} at N = 4096, {tiles['H200'][1] / tiles['H200'][0]:.1f} times the fp32 tile of {tiles['H200'][0]}" in words(text)  # review 33: as printed
    assert all(7.5 < big / small < 8.5 for small, big in tiles.values()), tiles
    assert "get the rest of their reuse from the L2" in text
    cell = next(c for c in cells("02_operator_intensities.ipynb") if "smallest_tile" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert f"H200: smallest tile reaching the fp32 ridge b = {tiles['H200'][0]}" in printed
    assert f"reaching the bf16 tensor ridge b = {tiles['H200'][1]}, {tiles['H200'][1] / tiles['H200'][0]:.1f}x wider" in printed


def test_02_review_6b_clarity():
    text = markdown("02_operator_intensities.ipynb")
    # C02-3: the primer quotes a timing fit, so "every number" is the cells' printed ones
    assert "Every number here comes from" not in text and "Every number the cells print comes from a formula" in text
    # C02-4: the MI300X packed/unpacked explanation is one line here, the rest in the appendix
    # review 40a: the lesson names the packed row's ridge without a mid-sentence link; the appendix explains it
    assert "two FMAs per lane" not in text and "MI300X's packed data-sheet figure" in text
    headings = {"-".join(line.lstrip("#").strip().lower().replace("'", "").replace("(", "").replace(")", "").split())
                for line in (ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("## ")}
    assert "the-mi300xs-fp32-figures-notebooks-00-and-02" in headings
    # C02-5: no forward reference inside the opening answer
    assert "as the text under its table explains" not in words(cells("02_operator_intensities.ipynb")[0].source)
    # an unlabelled "because" left the decode section
    assert "that is why it is the standard tool" not in text


# --- review 7a (notebooks 00 and 01) -------------------------------------------------------------

def _printed(name, marker):
    cell = next(c for c in cells(name) if c.cell_type == "code" and marker in c.source)
    return "".join(o.get("text", "") for o in cell.outputs)


def test_01_review_7a_the_max_bounds_every_kernel_and_the_sum_is_no_upper_bound():
    text = markdown("01_derivation.ipynb")
    # T01-2: max(F/P, M/B) needs no overlap; overlap makes it reachable
    assert "If the overlap is perfect, only the slower job counts" not in text
    assert "The two floors of step 1 hold for every kernel, so together they give" in text
    # review 15a: overlap reaches the bound; review 19d: only the slower job need run at its peak
    assert "Perfect overlap, the slower job at its peak throughout and the other hidden under it, reaches this bound." in text
    assert "give $t \\ge \\max(F/P, M/B)$ for every kernel" in text
    assert "none gives their sum" not in text
    # T01-1: real kernels do not sit between the bounds; the sum is one schedule's cost
    assert "Real kernels sit between the two bounds" not in text
    assert "The sum is the cost of one schedule, not an upper bound on the run time" in text
    assert "a kernel can take longer than even the sum when something the model does not draw binds" in text
    # ... and the tiled GEMM shows it, with the rates step 4 prints
    printed = _printed("01_derivation.ipynb", "roofline.classify(kernel_intensity, achieved)")
    P, B = 120_000, 3_000
    for intensity, achieved in ((12, 30_000), (90, 55_000)):
        no_overlap = 1 / (1 / P + 1 / (intensity * B))
        roof = min(P, intensity * B)
        assert f"with no overlap at all: {no_overlap:,.0f} GFLOP/s = {no_overlap / roof:.0%} of its roof" in printed
    assert "with no overlap at all: 27,692 GFLOP/s = 77% of its roof" in printed  # stencil: 83% achieved
    assert "with no overlap at all: 83,077 GFLOP/s = 69% of its roof" in printed  # GEMM: 46% achieved
    assert "below even the 69% it would reach with no overlap at all" in text  # review 10a C01-2
    assert "stalls at the barriers between tiles" not in text
    # the time form of the same fact (review 7a's figures), for a 90 GFLOP, 1 GB GEMM
    from rooflinelib import time_bounds
    gemm = time_bounds(90e9, 1e9, P, B)
    assert round(gemm.serial_s * 1e3, 2) == 1.08 and round(90e9 / 55_000e9 * 1e3, 2) == 1.64


def test_01_review_7a_sparsity_stencil_strides_and_wording():
    from rooflinelib.core.machines import H200 as h200
    text00, text01 = markdown("00_start_here.ipynb"), markdown("01_derivation.ipynb")
    # T01-3: 989.4 is dense; the datasheet's 1,979 is with 2:4 sparsity (twice the dense figure)
    assert f"{round(2 * h200.ceiling('bf16-tensor').value / 1e3):,}" == "1,979"
    # review 15e: the sparsity footnote moves to the appendix; the opening keeps "dense"; review 41a:
    # it names the 1,979 it halves, once, and leaves what 2:4 sparsity is to the appendix
    # review 46a: "sparse 1,979" was jargon on the first page; the appendix keeps the footnote
    assert "(989.4 TFLOP/s dense)" in text01 and text01.count("1,979") == 0
    assert "2:4" not in text01 and "two zeros in every four" not in text01
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert ("The bf16 tensor roof is 989.4 TFLOP/s on dense matrices; the datasheet's 1,979 assumes 2:4 "
            "structured sparsity, two zeros in every four values of one operand") in appendix
    # T00-2: 12 FLOP/byte is a high-order stencil with temporal blocking, in both notebooks
    # review 15a: the gloss is notebook 01's, where the stencil is the running example
    # review 26a: 00 says what temporal blocking does (reuse across time steps) in plain words
    assert "A stencil kernel reusing data across time steps, at 12 FLOP/byte" in text00
    assert "a high-order stencil kernel with temporal blocking (several time steps per pass over memory) does 240 GFLOP" in text01
    assert "A stencil kernel at 12" not in text00
    # T01-4: 8x against the L2, more against HBM
    assert "sits that much further left" not in text01
    # review 15e: "further still against HBM" is said of the H200; review 19d: the larger unit is
    # the L2's fetch from HBM, labelled a hypothesis
    # review 32a: the HBM claim is measured up to stride 16 only; review 40a: that provenance is the appendix's
    assert ("and sits 8 times further left on an L2 roofline. On the H200, strided reads sit further still "
            "against HBM (notebook 06, pitfall 6; [appendix]") in text01
    # C01-1: the bound, not the measured point, is size-free
    assert "lands on the same point" not in text01
    # review 9a C01-3: "bound" meant a time bound in step 2, and that one doubles
    assert "has the same bound" not in text01 and "with the same intensity has the same attainable rate" in text01
    # C01-2: an instruction class, not just a precision
    assert "an instruction class (precision and unit) and a memory level" in text01
    # C00-1: no undefined jargon in the learning path
    assert "MUFU" not in text00 and "sectors" not in text00
    # review 32a: notebook 02 covers the exp on the MUFU, not sin
    assert "memory transaction sizes, caches, and the special-function unit (exp)" in text00 and "sin)" not in text00
    # T00-1: the printed span says which roofs it spans (review 37a: two H200 roofs)
    assert "2. H200, two compute roofs: 1,978.9 TFLOP/s (fp8 tensor, dense)" in _printed("00_start_here.ipynb", "break_figures")


def test_01_review_7a_explorer_verdict_names_hbm_not_dram():
    # C01-3: the verdict line said "(fp32 against dram on H200)"
    from rooflinelib.views.widget_state import explorer_state
    assert "(fp32 against HBM3e on H200)" in explorer_state("H200", "fp32", 1).verdict_text()
    assert "(fp32 against HBM2 on A100)" in explorer_state("A100", "fp32", 1).verdict_text()
    assert "against dram" not in explorer_state("example 120 TFLOP/s, 3 TB/s", "fp32", 1).verdict_text()



# --- review 9a (notebooks 00 and 01) -------------------------------------------------------------

def test_00_01_review_9a_the_example_gpu_is_imaginary_and_the_gemm_suspects_agree():
    text00, text01 = markdown("00_start_here.ipynb"), markdown("01_derivation.ipynb")
    # C00-1: no GPU has 120 TFLOP/s of fp32 with 3 TB/s; its ridge of 40 is not a typical one
    assert "worked example: an imaginary GPU with round numbers, 120 TFLOP/s of fp32 arithmetic" in text00
    assert "on an imaginary GPU with round numbers that sustains 120 TFLOP/s of fp32 FMAs" in text01
    # T00-1: the same suspects for the same GEMM in both notebooks, latency hidden by work in
    # flight (warps or independent instructions), and the on-chip memory its tiles live in
    # review 10a C00-3: 00 names one suspect and points to 01, which lists them
    assert "too few independent instructions per warp" in text01
    assert "the on-chip memory its tiles live in" in text01
    assert "notebook 01 names the usual ones, notebook 06's triage tests them" in text00
    for text in (text00, text01):
        assert "between tiles" not in text and "occupancy" not in text


def test_00_review_9a_the_stencil_name_sits_clear_of_the_slanted_roof():
    # C00-4: the name sat left of the point, on the bandwidth roof that runs above-left of it
    figure = first_figure("00_start_here.ipynb")
    stencil = next(t for t in figure.data if t.name == "stencil")
    gemm = next(t for t in figure.data if t.name == "tiled GEMM")
    assert stencil.x[0] < 40 and stencil.textposition == "bottom right", stencil.textposition
    assert gemm.textposition == "middle right"


def test_00_review_9a_each_break_is_one_sentence_and_the_cell_prints_its_numbers():
    # C00-5: the breaks were four to five sentences each, their numbers said twice
    section = next(c.source for c in cells("00_start_here.ipynb")
                   if c.cell_type == "markdown" and "## Where the picture breaks" in c.source)
    items = re.findall(r"^\d\. \*\*[^*]+\*\*(.+?)(?=^\d\. |\Z)", section, re.M | re.S)
    assert len(items) == 3, items
    for item in items:
        # review 10a C00-1: one 60-word sentence was the page's hardest; short sentences instead
        sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", words(item))
        assert len(sentences) <= 3 and max(len(x.split()) for x in sentences) <= 36, sentences
    for figure in ("49,152", "10.2 ns", "0.64", "1,978.9", "66.9", "16,384"):
        assert figure not in section, figure
    printed = _printed("00_start_here.ipynb", "break_figures")
    for figure in ("49,152 bytes", "at least 10.2 ns", "0.64 µs", "1,978.9 TFLOP/s", "66.9 (fp32 vector)", "16,384-byte"):
        assert figure in printed, figure


def test_01_review_9a_wavefront_bf16_bytes_and_the_explorer():
    text = markdown("01_derivation.ipynb")
    # T01-1: RDNA runs wave32; 64 is CDNA's (the MI300X of the course)
    assert "(AMD's equivalent, the wavefront, has 64)" not in text
    assert "(on AMD's data-centre GPUs the equivalent, the wavefront, has 64)" in text
    # T01-2: fp32 outputs, indices and metadata do not halve
    assert "would also roughly halve its bytes and so roughly double its I" in text
    # C01-5: no API call in the lesson's prose
    assert "use_ceilings" not in text and "notebook 03 loads measured ones into it" in text
    # C01-4, then review 15e: step 2 states the maximum and the sum first; the primer follows it
    # as how a GPU overlaps
    nb = cells("01_derivation.ipynb")
    at = next(i for i, c in enumerate(nb) if c.cell_type == "markdown" and c.source.startswith("## Step 2"))
    step2 = words(nb[at].source)
    # review 10a T01-1: the bound holds for every kernel; overlap is what reaches it
    assert "The bound needs one fact" not in step2
    assert "The two floors of step 1 hold for every kernel, so together they give" in step2
    assert step2.index("\\max") < step2.index("Perfect overlap, the slower job at its peak throughout and the other hidden under it, reaches this bound")
    # review 32a: the step's formula, then the cell computing it; review 40a: the primer comes before step 2
    assert "Primer" not in step2 and "bounds.serial_s" in nb[at + 1].source
    assert nb[at - 1].source.startswith("## Primer: warps, schedulers and issue slots")


def test_01_review_9a_the_ridge_and_the_two_verdicts_are_two_steps_bands_first():
    # C01-2: one step held the ridge, two kernels, the no-overlap rate and the bands, and the
    # bands were printed before the text defined them
    nb = cells("01_derivation.ipynb")
    headings = [c.source.splitlines()[0] for c in nb if c.cell_type == "markdown" and c.source.startswith("## Step")]
    assert headings == ["## Step 1: two floors under the run time",
                        "## Step 2: the floors give a maximum, no overlap costs a sum",
                        "## Step 3: from a time to a rate", "## Step 4: the ridge point",
                        "## Step 5: reading two verdicts", "## Step 6: slide it yourself"]
    at = {h: next(i for i, c in enumerate(nb) if c.source.startswith(h)) for h in headings}
    ridge = next(i for i, c in enumerate(nb) if c.cell_type == "code" and "roofline.ridge" in c.source)
    verdicts = next(i for i, c in enumerate(nb) if c.cell_type == "code" and "({v.status})" in c.source)
    bands = next(i for i, c in enumerate(nb) if c.cell_type == "markdown" and "near-roof from 80% of the roof" in words(c.source))
    # review 15e: the bands, a rule of thumb, are a small box, no longer inside step 5's opening;
    # review 19d: the box comes before the verdicts that print its words
    assert at["## Step 4: the ridge point"] < ridge < at["## Step 5: reading two verdicts"] < bands < verdicts
    assert bands < at["## Step 6: slide it yourself"] and not nb[bands].source.startswith("#")
    assert verdicts < at["## Step 6: slide it yourself"]
    assert "(near-roof)" in "".join(o.get("text", "") for o in nb[verdicts].outputs)
    text = markdown("01_derivation.ipynb")
    assert "Step 5's tiled GEMM (general matrix multiply) does" in text and "far higher roof (step 6 shows it on the H200)" in text
    appendix = (ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8")
    assert "Notebook 01's step 5 prints, for each example kernel" in appendix


def test_01_review_9a_check_yourself_gives_nothing_away():
    # C01-1: question 1 was exercise 1's first questions (120 TFLOP/s, 3 TB/s, 20 FLOP/byte),
    # question 2 exercise 5's drill 2, and the stored output printed both answers under "Work
    # both out on paper"
    from rooflinelib import classify
    from rooflinelib.exercises import ex01_two_kernels as ex01, ex05_drills as ex05
    nb = cells("01_derivation.ipynb")
    question = next(words(c.source) for c in nb if c.cell_type == "markdown" and c.source.startswith("## Check yourself"))
    answers = next(c for c in nb if c.cell_type == "code" and "first = classify(" in c.source)
    assert not answers.outputs and "nbval-check-output" not in answers.metadata.get("tags", [])
    assert "sustains 100 TFLOP/s on the arithmetic a kernel uses and 4 TB/s" in question
    assert "does 30 FLOP per HBM byte" in question
    assert "P = 800 TFLOP/s in bf16 and B = 4.0 TB/s. A bf16 kernel does 50 FLOP/byte" in question
    assert "first = classify(30, 100_000, 4_000)" in answers.source
    assert "second = classify(50, 800_000, 4_000)" in answers.source
    first, second = classify(30, 100_000, 4_000), classify(50, 800_000, 4_000)
    assert (first.ridge, first.side, first.roof_gflops) == (25, "compute", 100_000)
    assert (second.ridge, second.side, second.roof_gflops) == (200, "memory", 200_000)
    exercise_ridges = {ex01.PEAK_GFLOPS / b for b in ex01.BANDWIDTHS_GBPS} | {ex05.D2_PEAK_GFLOPS / ex05.D2_GBPS}
    assert not {first.ridge, second.ridge} & exercise_ridges, exercise_ridges


# --- review 10a (notebooks 00 and 01) ------------------------------------------------------------

def test_01_review_10a_overlap_reaches_the_bound_and_an_above_roof_point_may_have_the_wrong_roof():
    text = markdown("01_derivation.ipynb")
    # T-01-1: max(F/P, M/B) holds for every kernel; overlap is what lets a kernel reach it
    assert "The bound needs one fact" not in text
    assert "The two floors of step 1 hold for every kernel, so together they give" in text
    assert "Perfect overlap, the slower job at its peak throughout and the other hidden under it, reaches this bound" in text
    # T-01-2: a point above its roof can be scored against the wrong roof (pitfall 4's bf16 GEMM
    # on the fp32 roof), not only miscounted
    assert "which means a count or a unit is wrong" not in text
    # review 15a: no pitfall numbers before the reader knows what a pitfall is
    assert "above-roof past 105%, which means a count, a unit or the roof is wrong (notebook 06 shows each)" in text
    assert "a wrong instruction class is pitfall 4" not in text
    # review 12a T01-1: each cause points to its own pitfall, not all of them to pitfall 4
    assert "memory level or clock; pitfall 4 in notebook 06" not in text
    # T-01-3: notebook 06's 64-byte fit explains strides up to 16; past it is an extrapolation
    assert "as pitfall 6 in notebook 06 measures on the H200" not in text
    # review 15a: the provenance (measured to stride 16, extrapolated past it) is the appendix's
    assert "past it, an extrapolation" not in text
    # review 25a: the hypothesis (the L2's 64-byte fetch) moved to the appendix's section
    # review 40a: the stride-16 provenance is the appendix's alone
    assert "strided reads sit further still against HBM (notebook 06, pitfall 6; [appendix]" in text
    assert "measured up to stride 16" not in text
    appendix = (ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8")
    appendix = words(appendix)
    assert "the longest measured" not in appendix and "the longest stride the fit explains" in appendix
    assert "The run timed stride 32 too, at 5.5% of stride 1's useful bandwidth" in appendix
    # ... the figures notebook 06 prints from the recorded run
    printed06 = _printed("06_pitfalls.ipynb", 'show("strided")')
    assert "stride 32    5.5% of the stride-1 useful bandwidth" in printed06
    assert "stride 16    6.6% of the stride-1 useful bandwidth" in printed06


def test_01_review_10a_at_the_ridge_is_defined_before_the_explorer_shows_it():
    # C-01-1: the explorer's third verdict appeared in step 6 undefined
    from rooflinelib.core.model import RIDGE_TOLERANCE
    from rooflinelib.views.widget_state import explorer_state
    assert RIDGE_TOLERANCE == 0.10
    ridge = explorer_state("H200", "fp32", 1).ridge
    assert explorer_state("H200", "fp32", ridge / 1.1 * 1.001).bound == "at the ridge"
    assert explorer_state("H200", "fp32", ridge / 1.1 * 0.999).bound == "memory-bound"
    assert explorer_state("H200", "fp32", ridge * 1.1 * 1.001).bound == "compute-bound"
    nb = cells("01_derivation.ipynb")
    definition = next(i for i, c in enumerate(nb) if c.cell_type == "markdown"
                      and "is **at the ridge**" in c.source)
    explorer = next(i for i, c in enumerate(nb) if c.cell_type == "code" and "intensity_explorer(" in c.source)
    assert definition < explorer
    assert "(ridge / 1.1 to 1.1 × ridge)" in words(nb[definition].source)


def test_01_review_10a_the_unit_slip_table_names_its_right_row():
    # C-01-3: "none: GFLOP/s over GB/s" read as a slip called "none"
    printed = _printed("01_derivation.ipynb", "chart_reading.unit_slips(")
    assert "none:" not in printed and printed.startswith("no slip (GFLOP/s over GB/s)")


def test_00_review_10a_the_packed_figure_is_the_appendixs_and_no_gemm_suspect_list():
    text = markdown("00_start_here.ipynb")
    # C00-2: the data sheet's packed figure was the cell's to print, beside the unpacked one;
    # review 15e took it out; review 25a put it back; review 32a: a first-hour reader cannot use the
    # packed / unpacked qualifier, so the page links the appendix section that reconciles the data sheet
    from rooflinelib.lessons import analogy
    roofs = analogy.break_figures()["roofs"]
    printed = _printed("00_start_here.ipynb", "break_figures")
    assert "the data sheet's packed fp32 vector" not in printed and f"{roofs['packed_fp32_gflops'] / 1e3:,.1f}" not in printed
    assert round(roofs["ratio"]) == 32 and "ordinary fp32" not in printed
    # review 33: "unpacked" named the fp32 rate that ties fp64; review 37a: the page makes the point
    # on the H200, so neither qualifier is on it and it links the H200's datasheet section
    assert "packed" not in text and "appendix-00-02.md#the-h200s-datasheet-figures-notebooks-00-and-01" in text
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "and the 16× from the data sheet's packed 163.4, so that a reader who checks the data sheet finds both" not in appendix
    assert (f"keep the data sheet's packed {roofs['packed_fp32_gflops'] / 1e3:,.1f} and its "
            f"{roofs['ratio_to_packed']:.0f}× span") in appendix
    # C00-3: the opening page leaves the triage suspects to notebooks 01 and 06
    opening = words(cells("00_start_here.ipynb")[0].source)
    assert "independent instructions" not in opening and "index arithmetic" not in opening
    # C00-1: the launch break's 60-word sentence is split
    assert "one launch, even done the cheapest way" not in text
    assert "Launched back to back, kernels cost the GPU some 60 times" in text  # review 46a, 51a


# --- notebook 02 after review 7b ------------------------------------------------------------------

def test_02_review_7b_wrong_roof_direction_and_forward_references():
    text = words(markdown("02_operator_intensities.ipynb"))
    # N2-1: the higher bf16 ridge makes fp32 code look farther from compute-bound, not closer
    assert 'which claims of "compute-bound after fusion" wrongly use' not in text
    # review 11b C02-3: both directions, once, in the ridges' section
    # review 40a: one concrete case, a bf16 kernel at 90 FLOP/byte, capped at 44% of its peak
    assert f"{90 * H200.ceiling('dram').value / H200.ceiling('bf16-tensor').value:.0%}" == "44%"
    assert ("A bf16 tensor-core kernel at 90 FLOP/byte looks compute-bound against the fp32 ridge, yet its own "
            "roof caps it at 44% of the bf16 peak") in text
    assert 90 > H200.ridge("fp32") and 90 < H200.ridge("bf16-tensor")
    apart, together = (operators.elementwise_chain(2**24, 5, fused=f) for f in (False, True))
    assert operators.times_below_ridge(together, H200.ridge("bf16-tensor")) > \
        operators.times_below_ridge(together, H200.ridge("fp32")) > 1
    # N2-c4: forward references name the notebook first; no bare "(pitfall N)"
    assert not re.search(r"pitfall \d of notebook 06", text) and "(pitfall 1)" not in text
    # N2-c2, N2-c3: the naive GEMM's count is explained; tf32 is defined; why N is shared
    assert "though the caches serve most of its rereads" not in text
    assert "tf32 (TensorFloat-32" in text
    e = {"tf32-tensor": 4, "fp16-tensor": 2, "bf16-tensor": 2}
    assert len({round(H200.ridge(n) * e[n], 6) for n in e}) == 1
    assert "each tensor precision's ridge scales as 1/(bytes per element)" in text


# --- notebook 02 after review 9b --------------------------------------------------------------------

def test_02_review_9b_clarity():
    nb = cells("02_operator_intensities.ipynb")
    text = markdown("02_operator_intensities.ipynb")
    table = next(i for i, c in enumerate(nb) if "operator_rows()" in c.source)
    before = words(nb[table - 1].source)
    # C02-1: the naive GEMM's count is said once
    assert before.count("counts what its threads load") == 1
    # C02-3: the two decode rows point ahead to the section that introduces decoding
    rows = [r["operator"] for r in tables.operator_rows()]
    assert "attention (fused, decode)" in rows and "decode matvec" in rows
    assert "The two decode rows, generating one token at a time (the last section)" in before
    assert [i for i, c in enumerate(nb) if c.source.startswith("## Decoding")][0] > table
    # C02-2: the online form's higher intensity is added FLOPs, not fewer bytes
    fused = operators.softmax(2**24, fused=True)
    online = operators.softmax(2**24, fused=True, row_on_chip=False)
    assert online.intensity > fused.intensity and online.n_bytes > fused.n_bytes
    assert online.n_flops == 2 * fused.n_flops
    assert f"The online form's higher I ({online.intensity:.3g} against {fused.intensity:.3g}) comes from " \
           "added FLOPs, not fewer bytes: rescaling its running sum adds a subtract, an exp and a multiply " \
           "per element, and its second pass recomputes x − m and its exp" in text
    assert "an add, a multiply, a compare, an `exp` or a divide is **1 FLOP**" in text
    # C02-4: why one N, and what fp8 still buys, are two paragraphs after the threshold's
    # review 15b C02-3: "why one N" has its own sub-heading
    # review 44a: one aside in the section; what fp8 buys is the appendix's, beside the N = 825 case
    cell = next(c.source for c in nb if c.cell_type == "markdown" and "### Why one N" in c.source)
    paragraphs = [words(p) for p in cell.split("\n\n")]
    assert paragraphs[1] == "### Why one N for every tensor precision"
    assert paragraphs[2].startswith("On the H200 each tensor precision's ridge scales")
    assert len(paragraphs) == 3 and "What fp8 buys" not in text
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert ("it reaches the fp8 ridge at N = 825. What fp8 buys: a compute-bound GEMM gains 2× from the doubled "
            "roof, a memory-bound operator 2× from the halved bytes.") in appendix


# --- notebook 02 after review 10b -----------------------------------------------------------------

def test_02_review_10b_the_wrong_roof_misjudges_the_distance_and_the_naive_gemm_counts_thread_loads():
    text = words(markdown("02_operator_intensities.ipynb"))
    # T02-1: a verdict is a label; what the wrong roof gets wrong is the distance to the ridge
    assert "A verdict read against the wrong one" not in text
    ratio = H200.ridge("bf16-tensor") / H200.ridge("fp32")
    assert (f"a kernel's distance from its ridge is misjudged by the ratio of the two ridges, "
            f"{H200.ridge('bf16-tensor'):.1f} / {H200.ridge('fp32'):.2f} = {ratio:.1f} on the H200") in text
    # T02-2: 8 bytes per FMA are what each thread loads; a warp's shared row of A is one request
    assert "what its SMs request" not in text
    assert "its 0.25 FLOP/byte counts what its threads load, before coalescing or any cache serves them" in text
    assert {r["operator"]: r["level"] for r in tables.operator_rows()}["GEMM naive"] == "thread loads"
    # C02-1: the answer leads the opening; C02-3: the placement table says why it repeats the figure
    opening = words(cells("02_operator_intensities.ipynb")[0].source)
    assert opening.index("only a large GEMM and fused attention reach the flat part") < opening.index("Each point is judged")
    assert "The figure at the top as a table, repeated now that the ridges are known" in text


# --- review 11a (notebooks 00 and 01) ------------------------------------------------------------

def test_01_review_11a_the_tensor_core_gemm_is_a_bf16_rewrite_and_the_check_prints_when_run():
    text = markdown("01_derivation.ipynb")
    # T-01-1: an fp32 GEMM does not meet step 6's bf16 roof as it stands; rewritten in bf16 it
    # does, at a new intensity (step 6's try-it 2 says why)
    assert "The same GEMM on tensor cores would meet another" not in text
    # review 32a: the example GPU has no tensor roof; step 6 shows the rewrite on the H200
    assert ("Rewritten in bf16 for the tensor cores, the GEMM would move to a new intensity under a "
            "far higher roof (step 6 shows it on the H200).") in text and "far higher roof (step 6)." not in text
    assert "roughly halve its bytes and so roughly double its I" in text
    # C-01-4: the check cell has no stored output on purpose; the question says so
    question = next(words(c.source) for c in cells("01_derivation.ipynb")
                    if c.cell_type == "markdown" and c.source.startswith("## Check yourself"))
    assert question.endswith("Work both out on paper; the answers print only when you run the cell.")


# --- notebook 02 after review 11b -----------------------------------------------------------------

def test_02_review_11b_decode_gqa_unfused_order_and_one_idea_per_section():
    nb = cells("02_operator_intensities.ipynb")
    text = words(markdown("02_operator_intensities.ipynb"))
    # T02-1: "no better" holds with one query head per K/V head; GQA raises it to about the group size
    assert "Decode attention is no better" not in text
    # review 15b E02-1: a group of 16 passes the H200's fp32 ridge; only the tensor ridge is far right
    assert ("Decode attention with one query head per K/V head is no better (grouped-query attention raises "
            "it to about the group size, still far left of the tensor-core ridge: exercise 3)") in text
    assert "still far left of every ridge" not in text
    gqa = operators.attention(8192, 128, fused=True, dtype="bf16", queries=1, heads_per_kv=8).intensity
    assert 7.5 < gqa < 8.5 and gqa < min(H200.ridge("fp32"), H200.ridge("bf16-tensor"))
    g16 = operators.attention(8192, 128, fused=True, dtype="bf16", queries=1, heads_per_kv=16).intensity
    assert g16 > H200.ridge("fp32") and 10 * g16 < H200.ridge("bf16-tensor")
    # C02-1: the unfused kernels' intensities come after the attention section defines them
    attention = next(i for i, c in enumerate(nb) if c.source.startswith("## Attention"))
    assert all("5/4" not in c.source for c in nb[:attention])
    # C02-2: the softmax rows have a length; C02-5: the unfused count's softmax keeps a row on chip
    from rooflinelib.measure.experiment_kernels import SOFTMAX_COLS
    # review 40a: notebook 04's size is the appendix's aside
    assert f"Take rows of {SOFTMAX_COLS:,} elements, 2²⁴ in all. The course's" in text and "2²⁶" not in text
    assert "notebook 04 times the same softmax on 2²⁶" in words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "($8s^2$ bytes; a softmax that keeps each row on chip)" in text
    # C02-3: the fusion section is about fusion; the wrong roof is the ridges' section's
    fusion = next(c.source for c in nb if c.source.startswith("The fused chain is five times faster"))
    assert "bf16" not in fusion and "wrong roof" not in fusion
    code = next(c.source for c in nb if "elementwise_chain" in c.source)
    assert "bf16-tensor" not in code
    # C02-4: the MUFU subsection is shorter: one definition, the per-clock count, one consequence
    mufu = next(c.source for c in nb if c.source.startswith("Run after the GEMMs"))
    assert len(mufu.split("\n\n")[0].split()) < 60 and "That verdict is against the tensor roof alone" not in text


def test_02_review_13b_tensor_core_reuse_names_clusters_as_well_as_the_l2():
    # T02-1: on Hopper part of the rest of the reuse comes from clusters sharing loaded tiles
    # review 15b C02-4: the lesson keeps one sentence; the clusters and the accumulator are the appendix's
    text = markdown("02_operator_intensities.ipynb")
    page = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    # review 40a: the 128 x 256 example and its 85 FLOP/byte are the appendix's
    assert ("Real tensor-core kernels use smaller tiles and get the rest of their reuse from the L2 "
            "([appendix](../docs/appendix-00-02.md#tensor-core-tiles-notebook-02))") in words(text)
    assert ("get the rest of their reuse from the L2, which serves re-reads of A and B that the tile formula "
            "charges to HBM, and, on Hopper, from clusters of blocks") in page
    # review 25a: FlashAttention-3's overlap names a warp group (review 41a: a four-warp group; the
    # appendix says more); the tile section leaves the accumulator's warp groups to the appendix
    tile = next(c.source for c in cells("02_operator_intensities.ipynb") if "Real tensor-core kernels" in c.source)
    assert "warp group" not in tile and "cluster" not in text
    assert "a warp group is four warps" in page


# --- review 15: notebook 02 -----------------------------------------------------------------------

def test_02_review_15_minimum_traffic_is_defined_where_it_is_first_used():
    # "compulsory" traffic was used undefined; the convention now says what the minimum is
    nb = cells("02_operator_intensities.ipynb")
    text = markdown("02_operator_intensities.ipynb")
    assert "compulsory" not in text.lower()
    first = next(c.source for c in nb if c.cell_type == "markdown" and "minimum HBM traffic" in c.source)
    assert ("bytes are the **minimum HBM traffic** of the implementation named: each pass reads its inputs "
            "once and writes its outputs once, counted from the tensor sizes") in words(first)
    # the counts follow that definition: the three-pass softmax's 3 reads and 2 writes of 4 bytes
    assert operators.softmax(2 ** 24, fused=False).n_bytes == 5 * 4 * 2 ** 24


def test_02_review_15_the_exp_is_one_mufu_instruction_plus_fp32_operations_counted_as_one_flop():
    text = markdown("02_operator_intensities.ipynb")
    assert "the exp is one MUFU result" not in text
    # review 15b E02-3: the ex2.approx.ftz fast path has no range handling; only a full-accuracy exp adds it
    assert "range handling" not in text
    # review 40a: the full-accuracy variant is the appendix's
    # review 44a: the ex2-plus-multiply is the fast form; the accurate expf adds a few FMAs; one unit, two names
    assert ("It runs on the **special-function unit (MUFU; `sfu` in code)**: in the fast form, one `ex2` instruction "
            "plus an FP32 multiply that changes the base (an accurate `expf` adds a few FMAs). At d = 128,") in words(text)
    # review 51a (words): the convention is said once, in the counting rules, with the profiler's difference
    assert "The course counts the exp as 1 FLOP" not in text
    assert "an `exp` or a divide is **1 FLOP**" in text  # the convention the count keeps
    assert "takes the MUFU half the time its two GEMMs take" in words(text)


def test_02_review_15_tile_sizes_are_examples_with_their_accumulator():
    text = markdown("02_operator_intensities.ipynb")
    assert "some 25 tiles of 128 × 128" not in text
    n = next(r["smallest_n"] for r in tables.gemm_threshold_rows(H200) if r["dtype"] == "bf16")
    blocks = (-(-n // 128)) ** 2
    assert f"Cut into 128 × 128 tiles, a {n}³ GEMM is {blocks} blocks for 132 SMs" in text
    assert 128 * 256 * 4 == 128 * 1024
    # review 15b C02-4: the CUTLASS details moved to the appendix, with the terms they need
    page = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    assert "CUTLASS" not in text and "128 KiB" not in text
    assert ("A common CUTLASS configuration on Hopper gives a block a 128 × 256 tile of C, whose fp32 accumulator "
            "alone takes 128 KiB of registers (128 × 256 × 4 B, half of an SM's 256 KiB register file), held by "
            "two warp groups (a warp group is four warps") in page


def test_02_review_15_is_no_longer_than_before():
    nb = cells("02_operator_intensities.ipynb")
    assert sum(len(re.findall(r"\S+", c.source)) for c in nb if c.cell_type == "markdown") <= 2300


def test_02_review_15_the_appendix_says_what_an_exp_compiles_to():
    page = words((ROOT / "docs" / "appendix-00-02.md").read_text())
    assert "A float32 `exp` compiles to one MUFU `ex2` plus a few FP32 operations on the FMA pipes" in page
    # review 15b E02-3: which path the four FMAs belong to
    assert ("The fast path (CUDA's `__expf`) adds only the multiply by log2 e that changes the base to 2^x; "
            "a full-accuracy exp adds a range reduction") in page
    assert "one `ex2.approx.ftz.f32`, four FMAs and a multiply" in page
    # the same count notebook 04's appendix shows from the compiler
    assert "one `ex2.approx.ftz.f32`, four FMAs (range\nreduction) and a multiply" in (ROOT / "docs" / "appendix-04-sweep.md").read_text()


# --- review 15b: notebook 02 ----------------------------------------------------------------------

def test_02_review_15b_the_a100_is_labelled_the_40_gb_part():
    # E02-2: 1,555 GB/s is the A100 40GB; the 80 GB SXM part's 2,039 GB/s gives an fp32 ridge of 9.6
    nb = cells("02_operator_intensities.ipynb")
    table = next(i for i, c in enumerate(nb) if "ridge_rows(" in c.source)
    assert "(the A100 is the 40 GB part;" in words(nb[table - 1].source)
    assert A100.ceiling("dram").value == 1555 and "40 GB" in A100.source
    assert round(A100.ceiling("fp32").value / 2039, 1) == 9.6


def test_02_review_15b_the_ridges_section_ends_on_ivanov_and_the_wrong_roof_is_its_own_paragraph():
    nb = cells("02_operator_intensities.ipynb")
    cell = next(c.source for c in nb if c.cell_type == "markdown" and "Ivanov et al." in c.source)
    assert words(cell).endswith("Fusion, quantization and FlashAttention pay off by deleting bytes.")
    # review 40a: the ridges' cell is one topic; the wrong roof is a paragraph under the own-roof table
    wrong = next(c.source for c in nb if c.cell_type == "markdown" and "**The wrong roof.**" in c.source)
    paragraphs = [words(p) for p in wrong.split("\n\n## GEMM")[0].split("\n\n")]
    assert paragraphs[-1].startswith("**The wrong roof.** Read against the wrong kind of roof")
    assert "Vector add would need" in wrong and "wrong roof" not in cell
    assert "163.4" not in cell and "v_pk_fma" not in cell
    assert sum(len(c.source.split()) for c in nb if c.cell_type == "markdown") < 2296  # read 15's count


def test_02_review_15b_each_decode_row_is_glossed_before_the_table():
    # C02-1: the table brings in two decode rows before decoding is taught: each gets a gloss
    nb = cells("02_operator_intensities.ipynb")
    table = next(i for i, c in enumerate(nb) if "operator_rows()" in c.source)
    rows = [r["operator"] for r in tables.operator_rows()]
    assert "decode matvec" in rows and "attention (fused, decode)" in rows
    # review 46a: a shorter gloss; the decode section's cell gives the sizes
    assert "are a matrix-vector product and one query's attention" in words(nb[table - 1].source)
    decode = next(c.source for c in nb if c.cell_type == "code" and "decode_matvec" in c.source)
    assert "decode_matvec(8192, 8192" in decode and "operators.attention(8192, 128" in decode


def test_02_review_16b_the_ridge_range_names_the_packed_row_and_each_softmax_size_is_its_own():
    says(words(markdown("02_operator_intensities.ipynb")),
         # the 12-20 range does not claim to cover the MI300X's packed fp32 row (30.8)
         "The fp32 vector ridges sit between about 12 and 20 FLOP/byte (31 for the MI300X's packed "
         "data-sheet figure)",
         # 2^24 here; review 40a: notebook 04's 2^26 is the appendix's aside
         "Take rows of 4,096 elements, 2²⁴ in all.")


def test_02_review_16b_the_paper_baseline_ratios_are_given_in_place():
    # "they are smaller" told the student nothing: the two ratios against the safe softmax
    # (3 reads + 1 write = 16 bytes; online 12, row on chip 8)
    says(words(markdown("02_operator_intensities.ipynb")),
         "against the paper's baseline (three reads, one write) they are 1.33x and 2x",
         absent=["they are smaller"])
    assert round(16 / 12, 2) == 1.33 and 16 / 8 == 2


# --- round 19: the stored figures of 00, 01 and 02 name what they show -----------------------------

def _cell_result(name, call):
    """What the code cell of notebook ``name`` that holds ``call`` displays: the code cells
    before it run first (its inputs), then the cell itself, its last statement evaluated."""
    nb = [c for c in cells(name) if c.cell_type == "code"]
    target = next(i for i, c in enumerate(nb) if call in c.source)
    namespace = {}
    for c in nb[:target]:
        exec(compile(c.source, name, "exec"), namespace)
    return eval(compile(nb[target].source, name, "eval"), namespace)


def _shown(control):
    """A slider's readout as the stored image writes it (the refresh's own capture code)."""
    import sys
    import textwrap
    sys.path.insert(0, str(ROOT / "tests"))
    from support import notebook_tools
    source = notebook_tools.CAPTURE_SOURCE
    namespace = {}
    exec(textwrap.dedent(source[source.index("    def shown(control):"):source.index("    def walk(")]),
         namespace)
    return f"{control.description}: {namespace['shown'](control)}"


def test_00_y_axis_says_rate_since_it_plots_achieved_points_and_the_legend_says_which_is_attainable():
    # Cosmetic item of read 18: the axis said "attainable rate" over the two kernels' achieved rates
    from rooflinelib import get_machine
    from rooflinelib.views.plotting import LEGEND_TITLE, Y_TITLE, roofline_figure
    figure = first_figure("00_start_here.ipynb")
    assert figure.layout.yaxis.title.text == "rate (GFLOP/s)"
    assert figure.layout.legend.title.text == "roofs (attainable), kernels (achieved)"
    kernels = [t for t in figure.data if t.mode and "markers" in t.mode]
    assert [t.marker.symbol for t in kernels] == ["circle", "circle"]  # both timed: achieved rates
    assert "the y axis is its rate in GFLOP/s" in markdown("00_start_here.ipynb")
    # Every other chart keeps its title: 01's and 02's opening figures draw roofs and model
    # predictions on them (open markers), which are attainable rates
    assert Y_TITLE == "attainable rate (GFLOP/s)" and LEGEND_TITLE == "ceilings and kernels"
    plain = roofline_figure(get_machine("H200"))
    assert plain.layout.yaxis.title.text == Y_TITLE and plain.layout.legend.title.text == LEGEND_TITLE
    for name in ("01_derivation.ipynb", "02_operator_intensities.ipynb"):
        opening = first_figure(name)
        assert opening.layout.yaxis.title.text == Y_TITLE
        assert all(t.marker.symbol == "circle-open" for t in opening.data if t.mode and "markers" in t.mode)


def test_01_time_bounds_readouts_are_plain_numbers_a_student_can_type_back():
    # Cosmetic item of read 18: ".3g" showed F (FLOPs): 2.4e+11 and B (GB/s): 3e+03 in the image
    pytest.importorskip("ipywidgets")
    from rooflinelib.views import widgets
    widget = _cell_result("01_derivation.ipynb", "widgets.time_bounds_widget(")
    controls = (widget.flops, widget.bytes, widget.peak, widget.bandwidth)
    assert [_shown(c) for c in controls] == ["F (GFLOP): 240", "M (GB): 20", "P (GFLOP/s): 120000",
                                             "B (GB/s): 3000"]
    # ".3r": plain decimals to three digits in the live slider too, no suffix or comma that the
    # browser's parseFloat would misread when a student types a value
    assert all(c.readout_format == ".3r" for c in controls)
    # the same bounds as the example's F, M, P and B in their own units
    example = widgets.time_bounds_widget(n_flops=240e9, n_bytes=20e9, peak_gflops=120_000.0, peak_gbps=3_000.0)
    assert widget.text.value == example.text.value and "F/P = 2 ms, M/B = 6.67 ms" in widget.text.value
    widget.flops.value = 480  # GFLOP
    assert "F/P = 4 ms" in widget.text.value
    # every other caller keeps ".3g" and FLOPs (the capture test of test_notebooks pins its lines)
    assert [_shown(c) for c in (example.flops, example.bandwidth)] == ["F (FLOPs): 2.4e+11", "B (GB/s): 3e+03"]


def test_02_attention_widget_names_its_points_by_their_s_in_one_colour():
    # Cosmetic item of read 18: the legend read "this s", in the unfused curve's red
    pytest.importorskip("ipywidgets")
    from rooflinelib.views import widgets
    widget = _cell_result("02_operator_intensities.ipynb", "widgets.attention_widget(")
    names = [t.name for t in widget.figure.data]
    assert "this s" not in names and names[-1] == "s = 1024"
    points = widget.figure.data[-1]
    assert points.marker.color == widgets.POINT_COLOUR and list(points.x) == [1024, 1024]
    widget.s_slider.value = 4096
    assert widget.figure.data[-1].name == "s = 4096"
    # every other caller keeps its legend (the browser test pins "this s")
    default = widgets.attention_widget("H200", s=1024, d=128).figure.data[-1]
    assert default.name == "this s" and list(default.marker.color) == ["#d62728", "#2ca02c"]


# --- notebook 02 after review 19d -----------------------------------------------------------------

def test_02_review_19d_gemm_threshold_is_the_ridge_crossing_and_the_band_is_computed():
    from rooflinelib.core.model import side_of_ridge
    text = words(markdown("02_operator_intensities.ipynb"))
    assert "compute-bound from N = 84" not in text and "it needs N = 619" not in text
    assert "reaches the ridge at N = 84; in every tensor-core precision (C in the same type), at N = 619" in text
    # the band's first compute-bound N, from the library
    first = {}
    for dtype, ceiling in (("fp32", "fp32"), ("bf16", "bf16-tensor")):
        e, r = operators.dtype_bytes(dtype), H200.ridge(ceiling)
        first[dtype] = next(n for n in range(1, 5000) if side_of_ridge(2 * n / (3 * e), r) == "compute")
        assert side_of_ridge(2 * {"fp32": 84, "bf16": 619}[dtype] / (3 * e), r) == "ridge"
    # review 25a: the band's thresholds, too terse in the lesson, are the appendix's (asserted below)
    assert "ridge band" not in text and f"N = {first['fp32']}" not in text
    # the fp8-with-bf16-C aside moved to the appendix; review 33: the notebook keeps one clause and the link
    assert text.count("N = 825") == 1 and "fp8 GEMMs usually write C in bf16 (N = 825)" in words(text)
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    fp8 = next(n for n in range(1, 5000) if n / 2 >= H200.ridge("fp8-tensor"))
    assert f"it reaches the fp8 ridge at N = {fp8}" in appendix
    assert f"says compute-bound at N = {first['fp32']} (fp32) and N = {first['bf16']} (bf16)" in appendix


def test_02_gemm_table_heads_its_threshold_as_the_ridge_crossing():
    """The column holds the smallest N with 2N/(3e) >= ridge (the crossing, not the band's
    first compute-bound N): its header, the widget's threshold line and the stored output say so."""
    header = dict((c.key, c.header) for c in tables.GEMM_COLUMNS)["smallest_n"]
    assert header == "smallest N at the ridge"
    nb = nbformat.read(ROOT / "notebooks" / "02_operator_intensities.ipynb", as_version=4)
    stored = "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                     for o in c.get("outputs", []))
    assert "smallest N at the ridge" in stored and "smallest compute-bound N" not in stored
    src = (ROOT / "rooflinelib" / "views" / "widgets.py").read_text(encoding="utf-8")
    assert "smallest compute-bound N" not in src

def test_02_review_19d_softmax_subtract_notebook_03_and_the_special_function_unit():
    text = words(markdown("02_operator_intensities.ipynb"))
    # the online form's 10 FLOPs: 5 + (subtract, exp, multiply) + the recomputed x - m and exp
    assert operators.softmax(2**24, fused=True, row_on_chip=False).n_flops == 10 * 2**24
    assert "second pass recomputes x − m and its exp" in text and "recomputes the exp." not in text
    assert "notebook 03 measures the real ceilings" not in text
    assert "notebook 03 measures the H200's, or your machine's)" in text
    # notebook 00 calls it the special-function unit: 02 names it so where it first uses it
    first = text.index("MUFU")
    assert text[first - len("**special-function unit ("):first] == "**special-function unit ("


# --- review 25a -----------------------------------------------------------------------------------

def test_02_review_25a_flashattention_3_overlaps_warp_groups_in_one_block():
    # FA3's ping-pong schedule overlaps one warp group's softmax with another warp group's GEMMs
    # inside the same thread block, not one block's with another block's (review 41a: the sentence
    # says a warp group is four warps)
    text = words(markdown("02_operator_intensities.ipynb"))
    assert "overlaps one block's softmax" not in text
    assert ("On Hopper, FlashAttention-3 (Shah et al. 2024) overlaps one four-warp group's softmax with "
            "another's GEMMs in one block.") in text


def test_02_review_25a_the_tensor_tile_is_2i_star_412_and_435_at_n_4096():
    text = words(markdown("02_operator_intensities.ipynb"))
    twice = 2 * H200.ridge("bf16-tensor")
    exact = operators.smallest_tile(H200.ridge("bf16-tensor"), 4096, "bf16")["exact"]
    assert (round(twice), exact) == (412, 435)
    assert "ridge: 435 on the H200" not in text
    # review 40a: b ~ 2I* derived in one clause, and the exact tiles on both sides of the ratio
    assert ("With 2-byte elements the same formula gives $I \\approx b/2$, so the bf16 tensor ridge needs "
            f"$b \\approx 2I^{{*}}$: on the H200, b = {exact} at N = 4096, 7.6 times the fp32 tile of 57") in text
    printed = _printed("02_operator_intensities.ipynb", "smallest_tile(")
    assert f"H200: smallest tile reaching the fp32 ridge b = 57" in printed
    assert f"b = {exact}, 7.6x wider; 2I* = {round(twice)}" in printed


def test_01_and_02_review_25a_the_bounds_are_not_called_non_predictions():
    # 02 predicts speed-ups from the bounds (as 04 and the capstone do); 01's heading no longer says
    # "Neither bound is a prediction", and 02's points are "the model's bounds"
    text01, text02 = markdown("01_derivation.ipynb"), words(markdown("02_operator_intensities.ipynb"))
    assert "Neither bound is a prediction" not in text01
    assert "### The max is a floor; the sum is not a ceiling" in text01
    assert "The points are the model's bounds, drawn at their roofs, not measurements" in text02
    assert "model's predictions" not in text02


def test_00_01_02_review_26a_words_fixed():
    text00, text01, text02 = (markdown(n) for n in ("00_start_here.ipynb", "01_derivation.ipynb",
                                                    "02_operator_intensities.ipynb"))
    appendix = words((ROOT / "docs" / "appendix-00-02.md").read_text(encoding="utf-8"))
    # 02 cell 18 (minor): the tile lifts the HBM bound (no L2 help) to the fp32 roof; it does not
    # make an SGEMM run at the roof (shared memory and registers are the appendix's)
    says(text02, "64 × 64 tiles lift the HBM bound to the A100's and the H200's fp32 roofs",
         absent=["64 × 64 tiles reach the A100's and the H200's fp32 roofs"])
    says(appendix, "a 64 × 64 tile lifts that bound to the fp32 roof. It does not make an SGEMM run at the roof",
         "a real SGEMM also reuses each loaded value from registers")
    # 02 (trivial): a 128 x 256 bf16 tile's intensity against the H200's bf16 tensor ridge
    tile = 128 * 256 / (128 + 256)
    assert (round(tile), round(H200.ridge("bf16-tensor"))) == (85, 206)
    # review 40a: the example tile is the appendix's alone
    assert "128 × 256" not in text02
    says(appendix, "≈ 85 FLOP per byte it loads from HBM, under the H200's bf16 tensor ridge of 206",
         f"the remaining factor of about {H200.ridge('bf16-tensor') / tile:.1f}")
    # 02 (trivial): the 60 MiB L2 is what the recorded H200 reports, not a datasheet figure
    # review 44a: one L2 in two linked halves (notebook 05 counts the bytes that cross between them)
    says(text02, "all SMs share one L2 (60 MiB in two linked halves on the recorded H200)", absent=["(60 MiB on the H200)"])
    # 01 cell 5 (trivial): a warp stalls where it uses the value, so it waits for data, not a load
    says(text01, "A warp waiting hundreds of cycles for data from HBM is simply not picked",
         absent=["for a load from HBM"])
    # 01 cell 25 (trivial): the slips say which way the ridge moves; review 44a: the table's factors
    # say it once (above 1 it rises, below 1 it falls), with no second line repeating them
    printed = _printed("01_derivation.ipynb", "chart_reading.unit_slips(")
    says(printed, "bandwidth given in GiB/s, used as GB/s   ridge      14.97 FLOP/byte (1.074x the right one)",
         "bandwidth given in Gbit/s, used as GB/s  ridge      1.742 FLOP/byte (0.125x the right one)",
         absent=["the ridge moves", "the ridge rises", "the ridge falls"])
    # 00 (clarity): temporal blocking glossed in plain words, not the bare term
    says(text00, "A stencil kernel reusing data across time steps, at 12 FLOP/byte",
         absent=["temporal blocking", "high-order"])


def test_00_01_02_review_26a_did_not_grow():
    for name, before in (("00_start_here.ipynb", 1390), ("01_derivation.ipynb", 2383),
                         ("02_operator_intensities.ipynb", 2238)):
        assert len(markdown(name).split()) < before, name


def test_00_01_02_review_25a_did_not_grow():
    for name, before in (("00_start_here.ipynb", 1392), ("01_derivation.ipynb", 2386),
                         ("02_operator_intensities.ipynb", 2245)):
        assert len(markdown(name).split()) <= before, name


# --- review 32a (notebooks 00, 01 and 02) ----------------------------------------------------------

def test_02_review_32a_the_unfused_point_says_its_softmax_flops_are_not_tensor_flops():
    # minor 1: the unfused point is judged against the bf16 tensor roof though its softmax's 5s²
    # FLOPs run off the tensor cores; their share, 5 / (4d + 5) at d = 128, is 1%
    d = 128
    unfused = operators.attention(8192, d, fused=False, dtype="bf16")
    share = operators.SOFTMAX_FLOPS_PER_ELEMENT * 8192 ** 2 / unfused.n_flops
    assert share == pytest.approx(5 / (4 * d + 5)) and f"{share:.0%}" == "1%"
    text = words(markdown("02_operator_intensities.ipynb"))
    # review 46a: said where attention is taught, beside its three kernels' intensities
    assert (f"the two GEMMs sit near d = 128 FLOP/byte, the softmax, {share:.0%} of the FLOPs and not on tensor cores, "
            "at 5/4)") in text
    # the verdict holds either way: each of the three kernels is memory-bound against its own roof
    assert unfused.n_flops / unfused.n_bytes < H200.ridge("bf16-tensor")
    assert (operators.SOFTMAX_FLOPS_PER_ELEMENT / 4) < H200.ridge("fp32")  # the softmax at 5/4 FLOP/byte
    assert "at 5/4)" in text


def test_02_review_32a_both_exp_figures_are_lower_bounds():
    text = words(markdown("02_operator_intensities.ipynb"))
    assert ("at least a quarter longer on the A100, at least half again as long on the H100 and H200") in text


def test_00_review_32a_the_kitchen_pictures_the_model_and_breaks_in_at_least_three_places():
    text = words(markdown("00_start_here.ipynb"))
    assert "the roofline's optimistic model, breaks in three places" not in text
    assert "The kitchen, like the roofline it pictures, breaks in at least three places." in text
    # the learning path names what notebook 02 covers on the special-function unit: the exp, not sin
    assert "(exp, sin)" not in text and "sin" not in markdown("02_operator_intensities.ipynb").split()


def test_01_review_32a_the_primer_does_not_split_step_2_from_its_cell():
    nb = cells("01_derivation.ipynb")
    step2 = next(i for i, c in enumerate(nb) if c.source.startswith("## Step 2"))
    assert nb[step2 + 1].cell_type == "code" and "serial / overlapped" in nb[step2 + 1].source
    # review 40a: the primer comes before step 2, so step 2 reads as one argument
    assert nb[step2 - 1].source.startswith("## Primer: warps")
    assert nb[step2 + 2].source.startswith("### The max is a floor")
    # the terms the max-is-a-floor section uses (SM, warps, issue slots) are defined before it
    assert "issue slots" in nb[step2 + 2].source and "**issue slot**" in nb[step2 - 1].source


def test_00_01_02_review_32a_did_not_grow():
    for name, before in (("00_start_here.ipynb", 1389), ("01_derivation.ipynb", 2382),
                         ("02_operator_intensities.ipynb", 2237)):
        assert len(markdown(name).split()) <= before, name


def test_02_review_33_sectors_are_the_caches_and_one_n_is_scoped():
    text = words(markdown("02_operator_intensities.ipynb"))
    assert "Memory moves in 32-byte" not in text and "The L1 and the L2 exchange 32-byte **sectors**." in text
    assert "in every tensor-core precision (C in the same type), at N = 619" in text
    assert "fp8 GEMMs usually write C in bf16 (N = 825) or fp32" in text and "though N stays" not in text
    assert "about 8 times the fp32 tile" not in text


def test_02_review_37a_a_decode_token_time_is_a_floor():
    # the weight and KV-cache bytes over the HBM bandwidth bound a token's time from below: other work only adds
    text = markdown("02_operator_intensities.ipynb")
    assert "so a token takes at least its weight and KV-cache bytes over the HBM bandwidth" in text
    assert "a token's time is its weight" not in text
