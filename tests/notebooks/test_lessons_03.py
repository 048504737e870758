"""Notebook 03 reads as a lesson (its parametrized tests cover 04 too): short, no lab log or developer path in the page, the run
history in their appendix, the claims an expert read found wrong no longer made, and an exercise
to do next."""
import re
from pathlib import Path

import nbformat
import pytest

from test_lessons_00_02 import says

ROOT = Path(__file__).resolve().parents[2]
LESSONS = {"03_ceilings.ipynb": ("appendix-03-ceilings.md", "04_place_your_kernel.ipynb"),
           "04_sweep.ipynb": ("appendix-04-sweep.md", "01_place_two_kernels.ipynb")}
MAX_MARKDOWN_WORDS = 2500
#: Paths of the course's own tree or of the machines it was built on: the appendix's business.
DEVELOPER_PATHS = re.compile(r"benchmarks/|rooflinelib/data|/root/|/work/|/tmp/|/home/")


def cells(name):
    return nbformat.read(str(ROOT / "notebooks" / name), as_version=4).cells


def markdown(name):
    return "\n".join(c.source for c in cells(name) if c.cell_type == "markdown")


def words(text):
    """The text with every run of white space one space, so a phrase can cross a line break."""
    return " ".join(text.split())


def appendix(name):
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


def outputs(name):
    text = []
    for c in cells(name):
        for o in c.get("outputs", []):
            text.append(o.get("text", "") or o.get("data", {}).get("text/plain", ""))
    return "\n".join(text)


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_is_short_and_links_its_appendix_and_its_exercise(name):
    appendix, exercise = LESSONS[name]
    prose = markdown(name)
    assert len(prose.split()) <= MAX_MARKDOWN_WORDS
    assert f"](../docs/{appendix})" in prose and (ROOT / "docs" / appendix).is_file()
    last = [c for c in cells(name) if c.cell_type == "markdown"][-1].source
    assert f"**Now do [exercise {exercise[1]}](../exercises/{exercise})**" in last
    assert (ROOT / "exercises" / exercise).is_file()


@pytest.mark.parametrize("name", LESSONS)
def test_no_developer_path_in_the_page(name):
    code = "\n".join(c.source for c in cells(name) if c.cell_type == "code")
    for text in (markdown(name), outputs(name), code):
        assert not DEVELOPER_PATHS.search(text), DEVELOPER_PATHS.search(text).group(0)


def test_03_compares_cycles_per_scheduler_not_a_warps_step_with_the_latency():
    # The chains experiment lives in the appendix now; its reading there is the same.
    page = words(appendix("appendix-03-ceilings.md"))
    prose = words(markdown("03_ceilings.ipynb"))
    assert "against the 4 of the FFMA's latency" not in page + prose
    assert "cycles/FMA (scheduler)" in page and "8.7 cycles" in page
    assert "A short primer" not in prose  # the primer lives in notebook 02 now
    # review 11b C03-1: the low-power caveat is the appendix's
    # review 15b C03: the check is two sentences in the lesson; what it does not prove is the appendix's
    # review 16b: the SASS count shows the FMAs were kept (emitted), not that they ran
    assert "shows that the FMAs ran" not in prose
    # review 25b: what the FMA count shows is the appendix's, behind the check's link
    assert "The FMA count in the compiled kernel shows the compiler kept the FMAs" not in prose
    # review 44b: the lesson finishes the thought with the appendix's answer (the FMA count in the compiled code)
    # review 51b: a static count shows the FMAs are in the code; fixed trip counts make it run them all
    assert ("The compiled code holds all the FMAs, with fixed trip counts "
            "([appendix](../docs/appendix-03-ceilings.md#how-lab-1-checks-its-fma-kernel)).") in prose
    assert "shows they ran" not in prose
    assert "That proves the output, not the work" in page and "low-power operand pattern" in page


def test_the_numbers_in_03s_prose_are_the_recorded_runs():
    # The prose quotes the recorded H200 run: re-recording it without rewording the page fails.
    from rooflinelib.store import results
    from rooflinelib.experiments import recorded_experiments, rows
    from rooflinelib.core.machines import H200
    from rooflinelib.modes import RunMode, ceilings_for
    prose = words(markdown("03_ceilings.ipynb"))
    lab1 = ceilings_for(RunMode("recorded", None, "recorded H200", "recorded"))
    roof = lab1.machine.roofline("fp32", "dram")
    mixes = results.dram_mixes(lab1.result)
    for quoted in (f"{roof.peak_gbps:,.0f} GB/s", f"{roof.peak_gflops:,.0f} GFLOP/s", f"{roof.ridge:.2f} FLOP/byte",
                   f"vendor's {H200.ridge('fp32'):.2f}",
                   # review 41b: the three mixes' GB/s are the table's; the prose gives the write's and the gaps
                   f"The read's roof (dotted) lies {1 - mixes['read'] / roof.peak_gbps:.0%} lower",
                   # review 19e: the copy's gap to `dram` is quoted once, where the figure is read
                   f"the copy's (dashed) {1 - mixes['copy'] / roof.peak_gbps:.0%}"):
        assert quoted in prose, quoted
    chain = {r["variant"]: r for r in rows.chains_rows(recorded_experiments()["chains"])}
    trap = next(r for name, r in chain.items() if "(slow variant)" in name)
    page = words(appendix("appendix-03-ceilings.md"))
    assert f"every {trap['cycles_per_issue']:.1f} cycles" in page
    assert f"every {chain['1 chain, full occupancy']['cycles_per_issue']:.2f} cycles" in page
    # the notebook's summary of the chains and the traps quotes the same run
    alone = [chain[f"{c}, one warp per scheduler"]["fraction"] for c in ("1 chain", "4 chains")]
    full = [chain[f"{c}, full occupancy"]["fraction"] for c in ("1 chain", "4 chains")]
    # review 3, C03-3: each occupancy's shares named apart; review 14: the summary is the appendix's
    assert (f"one chain per thread reached {alone[0]:.2f} of the peak with one warp per scheduler and "
            f"{full[0]:.2f} at full occupancy; four chains reached {alone[1]:.2f} and {full[1]:.2f}") in page
    assert "| FMA loop |" not in prose and "## Why P needs independent chains" not in prose
    traps = {r["pair"]: r["measured"] for r in rows.trap_rows(recorded_experiments()["traps"])}
    # review 11b C03-3: the traps are one linked sentence in the lesson; their numbers the appendix's
    assert f"`promoted` ran at {traps['float64 promotion']:.2f} of `typed`" in page
    assert f"`range` ran at {traps['range bookkeeping']:.2f} of `while`" in page
    # review 12b C03-2: the lesson keeps only the link to the traps
    assert "float64 literal" not in prose and "#two-traps-that-cut-a-numba-roof)" in prose


@pytest.mark.parametrize("name", LESSONS)
def test_links_to_other_notebooks_land_on_a_heading(name):
    # The primers live in notebooks 01 and 02; a renamed heading would leave the link dangling.
    # The notebook's links and its appendix's (03's chains section, with its primer link, moved
    # there).
    text = markdown(name) + "\n" + appendix(LESSONS[name][0])
    links = re.findall(r"\]\((?:\.\./notebooks/)?(\d\d_[a-z_]+\.ipynb)(?:#([^)]+))?\)", text)
    assert links
    for target, anchor in links:
        headings = {"-".join(line.lstrip("#").split())
                    for line in markdown(target).splitlines() if line.startswith("#")}
        assert not anchor or anchor in headings, (target, anchor)


@pytest.mark.parametrize("name", LESSONS)
def test_every_cell_that_measures_says_a_live_run_can_differ_from_the_text(name):
    measuring = [c.source for c in cells(name) if c.cell_type == "code"
                 and re.search(r"\b(ceilings_for|sweep_for|experiment_for)\(", c.source)]
    assert measuring
    for source in measuring:
        assert "rows.LIVE_NOTE" in source, source.splitlines()[0]


def _recorded_lab1():
    from rooflinelib.modes import RunMode, ceilings_for
    return ceilings_for(RunMode("recorded", None, "recorded H200", "recorded"))


def test_03_quotes_the_iqr_column_the_table_prints():
    # The table shows each ceiling's IQR; the prose once quoted a max - min spread (8%, 12%)
    # the student could not find in it.
    from rooflinelib.views import tables
    prose = words(markdown("03_ceilings.ipynb"))
    result = _recorded_lab1().result
    table = tables.ceilings_table(result)
    assert " IQR " in table
    wide = {c["name"]: f"{100 * c['iqr']:.1f}%" for c in result["ceilings"] if round(100 * c["iqr"], 1) >= 1.0}
    page = words(appendix("appendix-03-ceilings.md"))  # review 14: the full table's reading is the appendix's
    assert wide and "every IQR is under 1% except" in page
    for name, iqr in wide.items():
        assert f"{name}'s {iqr}" in page, (name, iqr)
        assert f"{iqr}  median" in table  # the figure quoted is the one the table prints
    assert len(wide) == 2 and "**spread** column" not in prose and "tf32 tensor row's 12%" not in prose


def test_03_states_the_tensor_core_rows_range_with_fp64_matrix():
    # DMMA (fp64-matrix) runs on the tensor cores too: the range must include its share.
    from rooflinelib.views import tables
    from rooflinelib.core.machines import H200
    prose = words(markdown("03_ceilings.ipynb"))
    rows = {r["name"]: r["fraction"] for r in tables.compare_rows(_recorded_lab1().machine, H200)}
    shares = [rows[n] for n in ("fp16-tensor", "bf16-tensor")]
    # review 10b T03-2: the range rests on the clean rows; tf32's share is named with its NOISY flag
    # review 14: the lesson keeps one tensor row (bf16); the other rows' shares are the appendix's
    page = words(appendix("appendix-03-ceilings.md"))
    assert f"The bf16 tensor cores reach {100 * rows['bf16-tensor']:.1f}%" in prose  # review 32b: 81.5%, as printed
    assert f"fp16 and bf16 reach {100 * min(shares):.1f}-{100 * max(shares):.1f}% of their white-paper figures" in page
    noisy = {c["name"] for c in _recorded_lab1().result["ceilings"] if c.get("noisy")}
    assert noisy == {"tf32-tensor"} and rows["tf32-tensor"] > max(shares)
    assert f"tf32's {100 * rows['tf32-tensor']:.0f}% comes from a NOISY row" in page and "78-83%" not in prose + page
    assert f"fp64-matrix (its DMMA instruction runs on the tensor cores too) reaches {100 * rows['fp64-matrix']:.0f}%" in page
    assert "only the `tensor` rows are tensor-core roofs" not in prose


def test_03_has_a_slow_variant_not_a_course_history_and_a_right_latency_definition():
    prose, printed = words(markdown("03_ceilings.ipynb")), outputs("03_ceilings.ipynb")
    for history in ("earlier version of the course", "The old one-chain kernel", "NVVM unrolls it partly"):
        assert history not in prose + printed, history
    page = words(appendix("appendix-03-ceilings.md"))
    assert "deliberately slow variant" in page and "range loop (slow variant)" in page
    # a warp's step is the latency for one chain at one warp only, not for every one-warp row
    assert "nothing else can issue, so this is the FMA's latency" not in page
    assert "only the one-chain, one-warp row measures the FMA's latency" in page


def test_03_says_a_noisy_live_run_is_used_here_while_the_clean_one_stays_stored(tmp_path, monkeypatch):
    # What ceilings_for does, as the page says it: the noisy run is this notebook's machine,
    # and the clean result stored before stays on disk for the others.
    from rooflinelib import measure, modes
    from rooflinelib.store import results
    from rooflinelib.modes import RunMode
    from rooflinelib.store.lab_files import RESULTS_DIR_ENV
    monkeypatch.setenv(RESULTS_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(modes.ENV_VAR, raising=False)
    monkeypatch.setattr(modes, "_measured_now", {})

    def result(fp32, noisy):
        noise = {"noisy": True, "noise": "another program was using the CPU"} if noisy else {}
        return results.validate({
            "format": "rooflinelib-result", "version": 1, "kind": "ceilings", "backend": "cpu", "scope": "cpu",
            "created": "2026-12-01T23:00:00+00:00", "device": {"name": "CPU: test CPU"},
            "ceilings": [{"name": "dram", "kind": "memory", "value": 10.0, "unit": "GB/s", "verified": True,
                          "spread": 0.01, **noise},
                         {"name": "fp32", "kind": "compute", "value": fp32, "unit": "GFLOP/s", "verified": True,
                          "spread": 0.01}]})

    queue = [result(80.0, False), result(20.0, True)]
    monkeypatch.setattr(measure, "measure_ceilings", lambda **options: queue.pop(0))
    cpu = RunMode("cpu", "cpu", "a test CPU")
    modes.ceilings_for(cpu)
    noisy = modes.ceilings_for(cpu)
    assert noisy.machine.ridge() == 2.0  # this notebook draws the noisy run
    assert modes.load_ceilings(backend="cpu").machine.ridge() == 8.0  # the others keep the clean one
    # review 3, C03-2: tool plumbing, so the appendix says it and the lesson links there
    page, prose = words(appendix("appendix-03-ceilings.md")), words(markdown("03_ceilings.ipynb"))
    assert "notebook 03 still uses the noisy run, the others keep the clean one" in page
    # review 37b: where a live Lab 1 keeps its ceilings is plumbing, the appendix's alone
    assert "noisy run" not in prose and "#where-a-live-lab-1-keeps-its-ceilings)" not in prose
    assert "## Where a live Lab 1 keeps its ceilings" in appendix("appendix-03-ceilings.md")


def test_03_does_not_overclaim_the_first_call_the_identity_or_the_roof():
    # The recorded first calls are of kernels compiled before (about 1 ms), not JIT compiles;
    # fma(-0, 1, +0) is +0 and subnormals flush; a short write-heavy kernel can sit above dram.
    prose = words(markdown("03_ceilings.ipynb"))
    page = words(appendix("appendix-03-ceilings.md"))
    for claim in ("column is compilation", "the first call, which compiles", "never lands above its roof",
                  "leaves every value exactly", "FMA count in its SASS"):
        assert claim not in prose + page, claim
    # review 15b C03: the IEEE argument is method detail, kept in the appendix
    assert "IEEE" not in prose and "finite, non-zero, normal value" in page and "a −0 would come out +0" in page
    # review 14: the first calls, the roof's exceptions and the derived figures are the appendix's
    assert "already compiled" in page and "first call" not in prose
    assert "clock differences are the exceptions" in page
    assert "datasheet figure" in page and "derived (SMs x per-SM rate x 1980 MHz)" in page


def test_03_is_one_idea_with_the_chains_and_the_traps_in_its_appendix():
    # Review 2: 03 held five ideas. The lesson keeps measuring the ceilings and judging against
    # them; the chains and the traps experiments run nowhere in it and are summed up with a link
    # to the appendix heading that holds them.
    code = "\n".join(c.source for c in cells("03_ceilings.ipynb") if c.cell_type == "code")
    for experiment in ('"chains"', '"traps"', "traps."):
        assert experiment not in code, experiment
    prose = markdown("03_ceilings.ipynb")
    # review 6b: the copy-roof placement, the 2:1 mix and the 80% threshold: 2,050; review 7b:
    # the tolerance of the GEMM rows, the clock of fp64-matrix, the softmax's run: 2,250 (cap 2,500)
    assert len(prose.split()) <= 2250
    link = "](../docs/appendix-03-ceilings.md#why-the-fma-ceiling-needs-independent-chains)"
    assert link in prose
    headings = {"-".join(line.lstrip("#").strip().lower().replace(",", "").split())
                for line in appendix("appendix-03-ceilings.md").splitlines() if line.startswith("#")}
    assert "why-the-fma-ceiling-needs-independent-chains" in headings
    assert "two-traps-that-cut-a-numba-roof" in headings
    assert "how-lab-1-checks-its-fma-kernel" in headings  # review 4a, C03-2: the lesson links it


def test_the_appendix_prints_the_recorded_chains_and_traps_tables():
    # The tables the notebook no longer prints are in the appendix as the recorded run prints
    # them: a change to the rows or to the run that leaves the page behind fails here.
    from rooflinelib.experiments import recorded_experiments, rows
    page = appendix("appendix-03-ceilings.md")
    runs = recorded_experiments()
    assert rows.chains_table(runs["chains"]) in page
    assert rows.trap_table(runs["traps"]) in page


def test_the_chains_table_shows_every_kernels_sass_ffma_count():
    # Review 2, T5: the instr./FFMA column read "-" for every row but the slow variant, though
    # the run recorded every kernel's SASS. Each row now prints its FFMA count and its
    # instructions per FFMA (the evidence that the FMAs ran).
    from rooflinelib.experiments import recorded_experiments, rows
    got = rows.chains_rows(recorded_experiments()["chains"])
    assert all(r["ffma_in_sass"] and r["issued_per_ffma"] for r in got)
    clean = [r for r in got if "(slow variant)" not in r["variant"]]
    assert [r["ffma_in_sass"] for r in clean if r["warps"] == 16] == [256, 128, 256, 256]
    assert all(round(r["issued_per_ffma"], 1) == 1.0 for r in clean)
    table = rows.chains_table(recorded_experiments()["chains"])
    assert "FFMA in SASS" in table
    assert all(line.rstrip().endswith(("1.0", "6.0")) for line in table.splitlines()[2:])


def test_03s_first_figure_draws_every_dram_mix_with_dram_first():
    # Review 2: the early figure drew only the write mix, so a student could not see the roof a
    # copy is judged against. It draws dram (solid, the ridge's) and the other mixes, dashed.
    from rooflinelib.store import results
    from rooflinelib.views.plotting import roofline_figure
    source = next(c.source for c in cells("03_ceilings.ipynb")
                  if c.cell_type == "code" and "roofline_figure(" in c.source)
    assert "results.mix_roofs(" in source and "memory=dram_roofs" in source
    drawn, names = results.mix_roofs(results.recorded("ceilings"), "H200")
    assert names == ["dram", "dram-read", "dram-copy"]  # dram is the write mix on the H200
    figure = roofline_figure(drawn, compute="fp32", memory=names)
    lines = {t.meta: t.line.dash for t in figure.data if str(t.meta).startswith("mem:")}
    assert lines == {"mem:dram": "solid", "mem:dram-read": "dot", "mem:dram-copy": "dash"}
    prose = words(markdown("03_ceilings.ipynb"))
    assert "`dram` (the solid line)" in prose and "The copy's roof (the dashed line)" not in prose
    # review 11b C03-2: the read's roof is named by its line too (plotting.MIX_DASH)
    assert "The read's roof (dotted) lies 4% lower and the copy's (dashed) 9%" in prose


def test_03_defines_the_softmax_it_places_instead_of_pointing_ahead():
    prose = words(markdown("03_ceilings.ipynb"))
    assert "notebook 04's fused softmax" not in prose
    assert "notebook 02's `fused softmax`" in prose and "reads each element once and writes it once" in prose


def test_03_has_no_lab_log_residue_or_hover_advice_on_a_static_figure():
    # C03-1, C03-4: run times belong to the appendix; a stored figure is a PNG, nothing to hover
    prose = words(markdown("03_ceilings.ipynb"))
    for residue in ("10:15 UTC", "23:41 UTC", "earlier session", "hover"):
        assert residue not in prose, residue
    assert "in a separate session" not in prose  # review 5a, C11: one link to the appendix instead
    assert "10:15 UTC" in appendix("appendix-03-ceilings.md")


def test_03_names_the_copy_mix_ridge_beside_dram_s_and_prints_it():
    # C03-5: the rule "judge a kernel against its own mix" moves the ridge; the page names the
    # copy's ridge next to dram's, and a cell prints every mix's ridge
    from rooflinelib.store import results
    prose, printed = words(markdown("03_ceilings.ipynb")), outputs("03_ceilings.ipynb")
    lab1 = _recorded_lab1()
    mixes = results.dram_mixes(lab1.result)
    peak = lab1.machine.ceiling("fp32").value
    copy_ridge = f"{peak / mixes['copy']:.2f}"
    assert f"{peak:,.0f} / {mixes['copy']:,.0f} = {copy_ridge} FLOP/byte, not {lab1.machine.ridge('fp32', 'dram'):.2f}" in prose
    assert f"copy {copy_ridge} FLOP/byte" in printed
    # its example sits where the page says against either ridge
    from rooflinelib.core.model import side_of_ridge
    dram_ridge, copy = lab1.machine.ridge("fp32", "dram"), peak / mixes["copy"]
    assert side_of_ridge(16, dram_ridge) == "compute"
    assert side_of_ridge(16, copy) == "ridge"
    # review 4a, T03-2: the +-10% band is defined where the example uses it, with how far right
    from rooflinelib.core.model import RIDGE_TOLERANCE
    # review 7b G-1: stated as the grader's log-symmetric band
    assert (f"From ridge / {1 + RIDGE_TOLERANCE:g} to {1 + RIDGE_TOLERANCE:g} × ridge (about {RIDGE_TOLERANCE:.0%} "
            "either side), the course calls a kernel *at the ridge*") in prose
    assert (f"at 16 FLOP/byte is compute-bound by `dram`'s ridge ({16 / dram_ridge - 1:.0%} right of it) "
            f"but at the ridge by its own ({16 / copy - 1:.0%} right)") in prose


def test_03_says_what_stands_between_the_fma_loop_and_its_peak_and_what_the_datasheet_prints():
    # T03-1: the clock does; T03-3: the compute figures are the white paper's (the H200
    # datasheet rounds them), and the bandwidth is the vendor's printed rating, not a derived peak
    prose = words(markdown("03_ceilings.ipynb"))
    assert "nothing stands between" not in prose
    # review 6b E03-2: the clock held 1980 MHz during the FMA loop, so it is not the last 1.5%
    assert "stands the clock the card holds" not in prose
    # review 15b C03: no "still" (there is no contrast): the clock held, so the gap is not the clock
    assert "still reached" not in prose
    # review 16b C03: the open "not the clock" left the student a question; the appendix keeps it
    # with the candidates (launch, tail, the loop's other instructions)
    assert "so the 1.5% gap is not the clock" not in prose
    assert "launch, tail and the loop's few other instructions" in words(appendix("appendix-03-ceilings.md"))
    # review 11b C03-1: the last 1.5% and the refresh caveat moved to the appendix
    assert "The last 1.5% is not the clock" not in prose and "refreshing the cells" not in prose
    assert "its last 1.5% is not the clock" in words(appendix("appendix-03-ceilings.md"))
    assert "refreshing the cells and opening rows" in words(appendix("appendix-03-ceilings.md"))
    assert "fp32: 98.5% of the theoretical 66,908 at the 1980 MHz sampled while it ran" in appendix("appendix-03-ceilings.md")
    # review 6b C03-2: the provenance of the printed figures lives in the appendix
    assert "the H200 datasheet rounds them" not in prose
    assert "its tensor figures only with sparsity" in words(appendix("appendix-03-ceilings.md"))
    assert "The bandwidth figure is the memory interface's peak transfer rate" not in prose
    assert "quoted as a fraction of the printed 4.8 TB/s, not of a derived peak" in words(appendix("appendix-03-ceilings.md"))  # review 15b: moved


def test_03_prints_the_driver_version_apart_from_its_cuda_version():
    # T03-2: "driver 13.0" was the CUDA version the driver supports; the driver is 580.159.04
    from rooflinelib.views import tables
    table = tables.ceilings_table(_recorded_lab1().result)
    assert "driver 580.159.04 (CUDA 13.0)" in table
    printed = outputs("03_ceilings.ipynb")
    assert "driver 13.0," not in printed  # the notebook prints the one-line header (review 5a, C11)


# --- notebook 03 after review 4a -----------------------------------------------------------------

def test_03_sends_the_tensor_clock_to_the_appendix_and_claims_no_clock_it_did_not_read():
    # Review 5a, T4 + C10: the bf16 GEMMs' clock was not reliably read (ten launches, 14 ms, a
    # few lagging NVML samples), so "the 1980 MHz this run held" and "75% of the peak at 1980 MHz"
    # leave the lesson; the appendix keeps the white paper's two clocks and the share as a
    # conditional, with the one matrix row whose sampled clock fell (fp64-matrix, 1770 MHz).
    from rooflinelib.core.machines import H200, NVIDIA_BF16_TENSOR_FLOP_PER_CLOCK_PER_SM
    prose, printed = words(markdown("03_ceilings.ipynb")), outputs("03_ceilings.ipynb")
    code = "\n".join(c.source for c in cells("03_ceilings.ipynb") if c.cell_type == "code")
    for claim in ("this run held", "of the peak at 1980 MHz", "1,070,531"):
        assert claim not in prose + printed + code, claim
    assert "#the-tensor-rows-and-the-clock)" in prose
    # review 12b C03-2: the clock caveat is the appendix's
    assert "their clock during the short GEMMs is not known" not in prose
    assert "So the clock during the tensor GEMMs is not known" in words(appendix("appendix-03-ceilings.md"))
    page = words(appendix("appendix-03-ceilings.md"))
    assert "## The tensor rows and the clock" in page
    per_clock = 132 * NVIDIA_BF16_TENSOR_FLOP_PER_CLOCK_PER_SM["H200"]
    tensor_mhz = 1e3 * H200.ceiling("bf16-tensor").value / per_clock
    assert round(tensor_mhz) == 1830 and f"× {tensor_mhz:.0f} MHz" in page
    details = {d["name"]: d for d in _recorded_lab1().result["details"]}
    bf16, dmma = details["bf16-tensor"], details["fp64-matrix"]
    assert bf16["sm_clock_mhz_during"] == 1980 and dmma["sm_clock_mhz_during"] == 1770
    at_run = per_clock * bf16["sm_clock_mhz_during"] / 1e3
    measured = bf16["configs_tried"][0]["value"]
    assert (f"ten timed bf16 GEMMs took {bf16['median_s'] * bf16['repeats'] * 1e3:.0f} ms" in page
            and "the clock during the tensor GEMMs is not known" in page)
    assert (f"If it held 1980 MHz, bf16's peak was 132 × 4,096 FLOP × 1980 MHz = {at_run / 1e3:,.1f} TFLOP/s, "
            f"and the measured {measured / 1e3:.1f} TFLOP/s is {measured / at_run:.0%} of it "
            f"({measured / H200.ceiling('bf16-tensor').value:.1%} of the white paper's 989.4)") in page
    scaled = H200.ceiling("fp64-matrix").value * 1770 / 1980
    dmma_value = dmma["configs_tried"][0]["value"]
    assert f"took {dmma['median_s'] * dmma['repeats'] * 1e3:.0f} ms" in page
    assert f"the peak at 1770 MHz is {scaled / 1e3:.1f} TFLOP/s, of which the run reached {dmma_value / scaled:.0%}" in page
    assert round(2 * 132 * 64 * 2 * 1.98 / 1e3, 1) == H200.ceiling("fp64-matrix").value / 1e3  # "twice fp64's"
    # the fp32 figure the lesson keeps is still computed in a cell
    assert "132 SMs x 128 lanes x 2 FLOP x 1980 MHz = 66,908 GFLOP/s" in printed


def test_03_names_the_product_the_printed_figures_belong_to():
    # Review 5a, T5: 66.9/33.5/989.4 are the H100 SXM5's (132 SMs), not the full GH100 chip's (144)
    # review 6b C03-2: the lesson keeps one sentence and links the appendix, which names the product
    prose, page = words(markdown("03_ceilings.ipynb")), words(appendix("appendix-03-ceilings.md"))
    says(prose + page, absent=["the GH100 chip's"])
    says(page, "the H100 SXM5's (132 SMs, the GH100 configuration and clocks the H200 also uses) from NVIDIA's "
               "Hopper white paper. The H200 datasheet does not print them")
    says(prose, "The clocks and the figures are in the "
                "[appendix](../docs/appendix-03-ceilings.md#the-tensor-rows-and-the-clock)")


def test_03_turnaround_hypothesis_is_paid_per_switch_not_all_the_time_and_the_title_names_both_labs():
    # Review 5a, T6: controllers batch writes, so a copy pays the turnaround per switch;
    # C2: the title matches notebook 00's learning path
    # review 15b C03: the lesson keeps one sentence, labelled a hypothesis; the rest is the appendix's
    prose, page = words(markdown("03_ceilings.ipynb")), words(appendix("appendix-03-ceilings.md"))
    says(prose, "Hypothesis for why the copy is slowest:", "(the read-write turnaround)",
         absent=["which a copy pays all the time"])
    says(page, "which a copy pays each time the memory controller switches between a batch of reads and a "
               "batch of writes", "## Why the copy is the slowest mix Hypothesis, not measured")
    title = cells("03_ceilings.ipynb")[0].source.splitlines()[0]
    assert title == "# 03 · Measuring the ceilings (Labs 1 and 2)"
    assert "[**03 measuring the ceilings**](03_ceilings.ipynb) (Labs 1 and 2)" in markdown("00_start_here.ipynb")


def test_03_folds_the_runs_record_into_one_line():
    # Review 5a, C11: the table's title line carries the date and the SM clock; driver,
    # temperature, power and the ISO time stay in the result file (roofline measure prints them)
    from rooflinelib.views import tables
    result = _recorded_lab1().result
    short = tables.ceilings_table(result, record=False).splitlines()
    assert short[0] == ("Ceilings of NVIDIA H200  [GPU roofline, numba backend, 2026-12-01; "
                        "SM clock 1980 MHz at the start, 1980 at the end]") and short[1] == ""
    printed, prose = outputs("03_ceilings.ipynb"), words(markdown("03_ceilings.ipynb"))
    page = appendix("appendix-03-ceilings.md")  # review 14: the full table is the appendix's
    assert short[0] in page and "Ceilings of" not in printed
    for residue in ("121.9 W", "T23:41:42", " 35 C"):
        assert residue not in printed + page, residue
    assert "separate session" not in prose and "#the-recorded-run)" in prose
    assert "The rest is the run's record" not in prose
    # the footers say the clock was sampled while each kernel ran, not read once for the run
    assert "MHz sampled while it ran" in page and "read during the run" not in printed + page


def test_the_h200_compute_figures_are_sourced_to_the_hopper_white_paper():
    # the values are the white paper's GH100 figures at two clocks; only the DRAM figure is the
    # H200 datasheet's own
    from rooflinelib.core.machines import H200
    for name, value in (("fp32", 66_900), ("fp64", 33_500), ("tf32-tensor", 494_700), ("bf16-tensor", 989_400)):
        ceiling = H200.ceiling(name)
        assert ceiling.value == value
        assert "Hopper architecture white paper" in ceiling.source and "1.83 GHz" in ceiling.source
        assert "H200 Tensor Core GPU datasheet" not in ceiling.source
    assert "H200 Tensor Core GPU datasheet" in H200.ceiling("dram").source


def test_03_says_a_noisy_flag_names_a_likely_cause_not_a_diagnosis():
    # T03-3: the shipped tf32 row's 10.7% IQR was never diagnosed; the page says so and the
    # library's GPU wording no longer states a busy device as fact
    from rooflinelib.measure.protocol import judge_noise
    prose = words(markdown("03_ceilings.ipynb"))
    assert "with the reason (live, usually another program on the CPU)" not in prose
    assert "with a likely reason, not a diagnosis" in prose and "Judge no kernel against a NOISY ceiling" in prose
    assert "its cause not looked for" not in prose  # review 6b C03-4: lab-log wording
    noise = judge_noise([1.0, 1.0, 1.3, 1.3, 1.0, 1.3], scope="gpu")
    assert noise["noisy"] and "not diagnosed" in noise["noise"] and "was busy" not in noise["noise"]


def test_03_s_decision_table_gives_a_kernel_near_its_compute_roof_no_occupancy_advice():
    # T03-4: at its roof more ILP or occupancy buys nothing; fewer FLOPs or a faster roof does
    from rooflinelib.core import placement
    row = next(r for r in placement.decision_rows() if r["meaning"] == "compute-bound and near peak")
    assert "fewer FLOPs" in row["next"] and "half2" in row["next"]
    assert "ILP" not in row["next"] and "occupancy" not in row["next"]
    printed = outputs("03_ceilings.ipynb")
    assert "raise ILP or occupancy" not in printed and "do fewer FLOPs (a better algorithm)" in printed


def test_03_leads_the_dram_section_with_its_idea_and_keeps_the_tool_plumbing_out():
    # C03-1..C03-5, T03-5
    prose = words(markdown("03_ceilings.ipynb"))
    assert ("## DRAM's three roofs, and which one to judge against **Judge a kernel against the DRAM "
            "roof of its own access mix.**") in prose
    # T03-5; review 12b C03-3: the CPU's write-allocate aside left the GPU's DRAM-mix rule
    # review 44b: streaming (non-temporal) stores skip the write-allocate read; the appendix says so
    assert "non-temporal" not in prose
    assert ("Streaming (non-temporal) stores, which large fills such as `memset` often use, skip that read."
            in words(appendix("appendix-03-ceilings.md")))
    assert "#write-allocate-on-a-cpu)" in prose
    assert "**P** is the median rate of a loop" in prose and "**P** is the best rate" not in prose  # C03-1
    assert "ptxas" not in prose and "ptxas" in appendix("appendix-03-ceilings.md")  # C03-2
    assert "#how-lab-1-checks-its-fma-kernel)" in prose
    assert "`roofline profile`" not in prose  # C03-3: a CLI name the lesson never introduced
    assert "Of the header, the SM clock matters" in words(appendix("appendix-03-ceilings.md"))  # C03-4
    # C03-5; review 8 T3-(noted): one microbenchmark shows no guarantee
    assert "occupancy alone does not guarantee the peak" not in prose
    # review 10b C03-5: the takeaway is in the lesson, the fit in the appendix
    # review 11b T03-1: the 0.50 is not latency hiding falling short (one FMA every 2.01 cycles)
    assert "independent chains per thread closed the gap" in words(appendix("appendix-03-ceilings.md"))


# --- notebook 04 after review 5b ------------------------------------------------------------------

def test_03_places_the_fused_softmax_on_the_copy_roof_of_its_own_mix():
    # E03-1: the worked placement used dram (the write) right after teaching "judge a kernel
    # against the DRAM roof of its own access mix"; it now takes its mix through the library and
    # the roof from the figure's mix machine, and the terminal command gives the same roof
    from rooflinelib.lessons.pitfalls import own_dram_mix
    from rooflinelib.store import results
    # review 14: the plumbing is the library's (lessons.ceilings.place_on_own_mix); the cell calls it
    from rooflinelib.lessons import ceilings
    source = next(c.source for c in cells("03_ceilings.ipynb") if c.cell_type == "code" and "place_on_own_mix" in c.source)
    assert 'roofline("fp32", "dram")' not in source and "read_share=0.5" in source
    lab1 = _recorded_lab1()
    drawn, names = results.mix_roofs(lab1.result, lab1.machine.name)
    assert own_dram_mix(4, 4) == "copy" and "dram-copy" in names
    roof = drawn.roofline("fp32", "dram-copy")
    memory, own = ceilings.own_mix_roof(lab1, 4, 4)
    assert memory == "dram-copy" and (own.peak_gflops, own.peak_gbps) == (roof.peak_gflops, roof.peak_gbps)
    assert ceilings.own_mix_roof(lab1, 8, 0)[0] == "dram-read" and ceilings.own_mix_roof(lab1, 0, 8)[0] == "dram"
    printed = outputs("03_ceilings.ipynb")
    assert f"I = 0.625 FLOP/byte against a ridge of {roof.ridge:.4g}" in printed
    assert f"I x {roof.peak_gbps:,.0f} GB/s) = {0.625 * roof.peak_gbps:,.1f} GFLOP/s" in printed
    assert "5. compare and act: 90% of the roof, memory-bound" in printed
    # review 10b C03-3: the terminal command is the appendix's, with the copy roof the cell uses
    assert "roofline plot" not in printed
    assert (f"`roofline plot --peak-gflops {roof.peak_gflops:.0f} --peak-gbps {roof.peak_gbps:.0f} --kernel "
            f"\"fused softmax, 335544320, 536870912, 2397.0\"`") in words(appendix("appendix-03-ceilings.md"))
    assert "against dram, the fastest mix (4,693 GB/s), not its own: 82%" in printed
    prose = words(markdown("03_ceilings.ipynb"))
    assert "reached 90% of its own roof, the copy's" in prose and "far left of its FMA ridge of 15.40" in prose
    assert "reached 82% of the `dram` roof" not in prose


def test_03_review_6b_wording():
    prose = words(markdown("03_ceilings.ipynb"))
    # E03-3: the tensor figures are at 1830 MHz, not the top clock
    # review 44b: the opening's clock hedge left; cell 6 says the bf16 figure's clock and what it changes
    assert "at its top clock" not in prose and "at a clock it may not state" not in prose
    assert "not 1,980; against a 1,980 MHz peak the share is 75%." in prose
    assert "at a clock the vendor states" not in prose  # review 32b: the H200 datasheet states no clock
    # E03-4: C = A + B reads two bytes per byte written: between the read and copy roofs
    assert "a copy, an elementwise add, the softmax below" not in prose
    assert "a copy, an in-place map x = f(x), the softmax below) meets `dram-copy`" in prose
    # review 7b N3-3: no 2:1 mix was measured: an expectation, labelled
    assert "such as C = A + B (two reads per write), is expected to lie between the read and copy roofs (not measured)" in prose
    # C03-1: "near the roof" is defined, and the 50-80% band has a row
    from rooflinelib.core.model import FAR_BELOW_FRACTION, classify
    assert FAR_BELOW_FRACTION == 0.5 and classify(1, 10, 1, 0.79).status == "below-roof"
    assert classify(1, 10, 1, 0.8).status == "near-roof"
    assert "*Near the roof* means at 80% of it or more; from half to 80% the side's row still applies" in prose
    # C03-3: the three DRAM roofs' numbers are given once, in their own section
    answer = words(next(c.source for c in cells("03_ceilings.ipynb") if c.source.startswith("## The figure")))
    assert "4,509" not in answer and "4,280" not in answer
    # C03-5: the explorer's control is named
    assert "can now switch between the promise and the measurement" not in prose
    assert "its `machine` menu also offers the vendor's `H200`." in prose
    # (trivial) a static FMA count shows the FMAs are in the code; with the trip count and the time, that they ran
    # review 15b C03: the method detail moved to the appendix, which says what proves the work
    assert "The instruction count shows the work is in the code" in words(appendix("appendix-03-ceilings.md"))
    # step 3 of the five takes the B of the kernel's own mix, as the worked placement does
    assert "with *your* Lab 1's P and the B of the kernel's own mix" in prose


def test_03_compare_table_prints_one_decimal_so_fp64_does_not_read_100_percent():
    # C03-6: 33,334 / 33,500 = 99.5% printed as "100%", beside fp32's 98%
    printed, page = outputs("03_ceilings.ipynb"), appendix("appendix-03-ceilings.md")
    assert "99.5%  H100 SXM white paper" in page and " 100%  H100 SXM white paper" not in page
    assert "99.5%" in printed and " 100.0%" not in printed


# --- review 6c (the sixth expert read): notebook 04 -------------------------------------------

def test_03_review_7b_gemm_rows_are_checked_within_a_tolerance_not_bit_for_bit():
    # N3-1: the cuBLAS rows compare with a float64 product within a relative tolerance
    from rooflinelib.measure import matrix
    prose = words(markdown("03_ceilings.ipynb"))
    assert "Every row says `verified`: its output matched bit for bit." not in prose
    tolerances = {name: spec[-1] for name, spec in matrix.MATRIX_CEILINGS.items()}
    assert len(tolerances) == 5 and all(t > 0 for t in tolerances.values())
    assert tolerances["fp64-matrix"] == 1e-12 and tolerances["bf16-tensor"] == 2e-2
    assert ("the five cuBLAS GEMM rows (`-matrix` and `-tensor`) matched a float64 product within a relative "
            "tolerance set by their precision (from 1e-12 for fp64 to 2e-2 for bf16)") in words(appendix("appendix-03-ceilings.md"))
    assert tolerances["fp64-matrix"] == min(tolerances.values()) and tolerances["bf16-tensor"] == max(tolerances.values())
    names = [c["name"] for c in _recorded_lab1().result["ceilings"]]
    assert len(names) - len(tolerances) == 9 and "The nine stream, L2, shared-memory, FMA, fp64 and SFU kernels" not in prose


def test_03_review_7b_fp64_matrix_clock_and_the_bf16_share_at_the_top_clock():
    # N3-2: fp64-matrix's printed peak is at 1980 MHz, its GEMMs sampled 1770 MHz: 96% of that peak
    prose = words(markdown("03_ceilings.ipynb"))
    result = _recorded_lab1().result
    ceilings = {c["name"]: c for c in result["ceilings"]}
    dmma = ceilings["fp64-matrix"]
    mhz = next(d["sm_clock_mhz_during"] for d in result["details"] if d.get("name") == "fp64-matrix")
    assert round(mhz) == 1770
    assert f"{dmma['value'] / (132 * 256 * mhz / 1000):.0%}" == "96%"  # GFLOP/s
    assert f"{ceilings['bf16-tensor']['value'] / (132 * 4096 * 1980 / 1000):.0%}" == "75%"
    # review 8 C3-2: the clock bookkeeping is the appendix's; the lesson keeps one sentence
    page = words(appendix("appendix-03-ceilings.md"))
    assert "the peak at 1770 MHz is 59.8 TFLOP/s, of which the run reached 96%" in page
    assert "the measured 806.9 TFLOP/s is 75% of it" in page
    assert "where it reached 96% of that clock's peak" not in prose and "bf16 would be at 75%" not in prose
    # review 10b C03-4: one sentence on the clocks in the lesson; the rest is the appendix's
    # review 11b C03-1: one line (the tensor rows' clock)
    # review 12b T03-1: the compute figures are the H100 SXM white paper's, not printed on the H200's
    assert "Each ratio is against the printed figure" not in prose
    # review 15b C03: the lesson keeps the provenance in one line; the clocks are the appendix's
    # review 26b: the page says the clock the bf16 figure is quoted at; its source is the appendix's
    # review 40b: the clock is the course's back-calculation (132 SMs x 4,096 FLOP per SM per clock), not the vendor's word
    assert ("That figure corresponds to 1,830 MHz (132 SMs × 4,096 FLOP per SM per clock), not 1,980;" in prose
            and "white paper" not in prose)
    assert "it prints 67, 34 and 67 TFLOP/s for fp32, fp64 and fp64-matrix" in page
    assert "(tf32 494.7, fp16 and bf16 989.4 TFLOP/s) are 132 SMs × their FLOPs per clock × 1830 MHz" in page
    table = [line for line in appendix("appendix-03-ceilings.md").splitlines()
             if line.startswith(("fp32 ", "bf16-tensor", "dram  ")) and (" GFLOP/s " in line or " GB/s " in line)]
    assert len(table) == 3 and all(line.endswith("H100 SXM white paper (same chip, clocks)") for line in table[1:])
    assert table[0].endswith("printed")
    assert "1770 MHz" not in prose
    assert "those figures assume a lower clock, 1830 MHz" not in prose


def test_03_review_7b_softmax_run_and_wrong_roof_wording():
    prose = words(markdown("03_ceilings.ipynb"))
    # N3-4: the softmax's own session measured a copy roof within 0.1% of the ceilings' run
    page = words(appendix("appendix-03-ceilings.md"))
    assert "(4,276 GB/s, ridge 15.45 FLOP/byte)" in page and "softmax runs were timed at 10:15 UTC" in page
    assert "the recorded timing is another run's" not in prose
    # review 8 C3-4: the run log is the appendix's; the lesson says a separate run, 0.1% apart
    assert "4,276" not in prose and "measured the copy roof at 4,276 GB/s, 0.1% under the 4,280" in page
    # review 10b C03-3: that 0.1% is the appendix's provenance, not the lesson's
    assert "the copy roof measured in its own session" not in prose
    # N3-c6, N3-c1, N3-c3
    assert "the right verdict from the wrong roof" not in prose
    # review 33: against the write roof the score is a lower, conservative one, not a wrong one
    assert "but the score is wrong" not in prose and "happens to survive" not in prose
    # review 44b: "cannot reach" claimed more than Lab 1 measured (review 46b: that score is the appendix's)
    assert ("Against `dram`, the write's roof, which a copy-mix kernel did not reach in Lab 1, it would score a "
            "lower, conservative 82%; the verdict holds.") in words(appendix("appendix-03-ceilings.md"))
    assert "This notebook's one idea" not in prose
    assert "## Every row Lab 1 recorded" in appendix("appendix-03-ceilings.md")  # review 14: the table's reading
    # review 7b G-1: the band is log-symmetric; the prose states it as the grader applies it
    from rooflinelib.core.model import side_of_ridge
    assert side_of_ridge(0.905 * 15, 15) == "memory" and side_of_ridge(15 / 1.1 + 1e-9, 15) == "ridge"
    assert "From ridge / 1.1 to 1.1 × ridge (about 10% either side), the course calls a kernel *at the ridge*" in prose


# --- notebook 03 after review 8 -------------------------------------------------------------------

def _md_cell(prefix):
    found = [c.source for c in cells("03_ceilings.ipynb") if c.cell_type == "markdown" and c.source.startswith(prefix)]
    assert len(found) == 1, prefix
    return words(found[0])


def test_03_review_8_counts_the_kernels_and_the_runs_it_compares():
    prose = words(markdown("03_ceilings.ipynb"))
    # T3-1: nine rows above the GEMMs, eight kernels: dram is the fastest mix's row again
    result = _recorded_lab1().result
    from rooflinelib.measure import matrix
    details = [d for d in result["details"] if d["name"] not in matrix.MATRIX_CEILINGS]
    kernels = {(d["kernel"], str(d["config"])) for d in details}
    by_name = {d["name"]: d for d in details}
    assert len(details) == 9 and len(kernels) == 8
    assert by_name["dram"]["kernel"] == by_name[f"dram-{by_name['dram']['mix']}"]["kernel"] and by_name["dram"]["mix"] == "write"
    # review 10b C03-2: the rows named by kind, without the table's bookkeeping
    assert "The memory, FMA, fp64 and SFU rows matched their expected output bit for bit" in words(appendix("appendix-03-ceilings.md"))
    assert "eight kernels" not in prose
    # T3-2, C3-4: no same-card claim the files cannot back; the runs are named separate, once
    assert "timed on the same H200 as the ceilings" not in prose
    # review 10b C03-1: said where it matters, in the softmax's section, not in the opening
    assert "separate runs" not in words(cells("03_ceilings.ipynb")[0].source)
    # review 12b C03-4: one clause of provenance, not a paragraph of it
    assert "another run's roof" not in _md_cell("*Near the roof*")
    # review 16b C03: the provenance is the appendix's, behind one link
    assert "two recorded sessions" not in _md_cell("*Near the roof*")
    # review 32b: the link to the recorded run moved to the reading (review 40b: on the copy notebook 04 uses)
    assert "A live run times it on your machine." in _md_cell("*Near the roof*")
    assert "([appendix](../docs/appendix-03-ceilings.md#the-recorded-run))" in _md_cell("On the recorded H200")
    # review 16b: notebook 02 counts its softmax at 2^24 elements; this one at 2^26 (review 25b:
    # no forward reference to notebook 04)
    assert "The kernel placed here is notebook 02's `fused softmax`, at 2²⁶ elements:" in _md_cell("*Near the roof*")
    page = words(appendix("appendix-03-ceilings.md"))
    assert "so that it was the same card is not shown" in page
    import json
    from importlib import resources
    sweep = json.loads(resources.files("rooflinelib").joinpath("data/h200_sweep_numba.json").read_text())
    assert sweep["created"].startswith("2026-12-01T10:11") and "| Lab 3's sweep (notebook 04) |" in page
    assert "the sweep at 10:11 UTC" in page
    # T3-3: a 2:1 mix scored on the copy, the slowest measured mix, reads an upper estimate
    mixes = results_dram_mixes(result)
    assert min(mixes, key=mixes.get) == "copy"
    assert "the course judges it against the copy" not in prose
    assert "scored against the copy's, the slowest, its fraction is an upper estimate" in prose


def results_dram_mixes(result):
    from rooflinelib.store import results
    return results.dram_mixes(result)


def test_03_review_8_clarity():
    prose = words(markdown("03_ceilings.ipynb"))
    # C3-1: DRAM's roofs and the ridge band are cells of their own; review 14: the table's reading
    # is the appendix's, under the full table
    page = words(appendix("appendix-03-ceilings.md"))
    assert "## Reading Lab 1's table" not in prose and "## Every row Lab 1 recorded" in page
    band = _md_cell("## The ridge band, and the ridge of each mix")
    assert band.startswith("## The ridge band, and the ridge of each mix From ridge / 1.1 to 1.1 × ridge")
    assert "*at the ridge*" not in _md_cell("## DRAM's three roofs")
    # C3-2: one sentence on the tensor rows' clocks
    # review 15b C03: the clocks leave the lesson for the appendix
    # review 26b: the page keeps one clause, the bf16 figure's clock; the derivation is the appendix's
    assert prose.count("1,830 MHz") == 1 and "1830 MHz" in page and "at 1980 MHz bf16" not in prose
    # C3-3: the check said once, shorter, and not again in the take-aways
    # review 41b: the lesson says once what the check proves (the output intact), the appendix how the work is shown
    # review 51b: the stored sums known in advance, checked bit for bit, said once
    assert prose.count("checked bit for bit") == 1 and "That proves the output, not the work" in page
    assert "bit-exact" not in _md_cell("On the recorded H200 the fused softmax")
    # C3-5: the method, then DRAM's roofs, then Lab 2; review 14: the chains and their fit are the appendix's
    order = [prose.index(h) for h in ("## How Lab 1 measures", "## DRAM's three roofs", "## Lab 2 in the notebook")]
    assert order == sorted(order)
    assert "a scheduler loses one cycle whenever the warp it just issued from must wait" in page
    assert "#two-traps-that-cut-a-numba-roof)" in prose  # the traps link lands on their own section
    assert "The appendix fits a model to that, not a documented mechanism" not in prose
    # C3-6: the first-call column is read where the table is; the decision table says each row once
    assert "`first call` times each kernel's first launch apart from the repeats" in page
    decision = next(c for c in cells("03_ceilings.ipynb") if c.cell_type == "code" and "decision_rows()" in c.source)
    printed = "".join(o.get("text", "") for o in decision.outputs)
    assert printed.count("does not model") == 1 and printed.count("Memory-bound") == 1
    assert "bandwidth-optimal" not in printed and len(printed.splitlines()) == 8
    # shorter than before review 8 (2,203 words)
    assert len(prose.split()) < 2203


# --- review 7c (the seventh expert read): notebook 04 -------------------------------------------

def test_03_review_10b_a_large_byte_ratio_has_more_causes_than_the_access_pattern():
    prose = words(markdown("03_ceilings.ipynb"))
    # T03-1: extra bytes may be capacity misses, extra passes or a count at another level
    assert "(a large ratio is an access-pattern bug)" not in prose
    assert ("(a large ratio means extra traffic, from uncoalesced access, cache misses or extra passes, "
            "or a count taken at another level)") in prose


def test_03_review_10b_the_opening_keeps_the_question_and_the_idea():
    opening = words(cells("03_ceilings.ipynb")[0].source)
    # C03-1: the mode is one short paragraph; dates and runs are the appendix's
    assert "2026-12-01" not in opening and "notebook 04's sweep" not in opening
    assert ("Its first cell prints its mode (*live GPU*, *live CPU* or *recorded H200*). The text quotes the "
            "recorded H200 runs (dated in the [appendix](../docs/appendix-03-ceilings.md)); a live run prints its own.") in opening


# --- notebook 03 after review 11b -----------------------------------------------------------------

def test_03_review_11b_full_occupancy_half_is_not_the_latency_and_the_caveats_are_one_line_each():
    from rooflinelib.experiments import recorded_experiments, rows
    prose = words(markdown("03_ceilings.ipynb"))
    # T03-1: sixteen warps cover 4 cycles; the data show one FMA every 2.01 cycles per scheduler
    assert "latency hiding by warps alone fell short" not in prose
    chain = {r["variant"]: r for r in rows.chains_rows(recorded_experiments()["chains"])}
    per_issue = chain["1 chain, full occupancy"]["cycles_per_issue"]
    page = words(appendix("appendix-03-ceilings.md"))  # review 14: the chains are the appendix's
    assert (f"Sixteen warps could cover 4 cycles many times over, yet one chain reached only 0.50 of the peak: "
            f"each scheduler issued an FFMA every {per_issue:.2f} cycles") in page
    assert "something other than the latency cost a cycle per FMA" in page
    # C03-1: the datasheet and "Checked" paragraphs keep one caveat each
    assert "launch, tail and the loop's few other instructions" not in prose
    assert "low-power" not in prose and "few bits toggle" not in prose
    assert "Datasheets quote different units at different clocks" not in prose
    # C03-3: the Numba traps are one sentence with a link, not a paragraph in the chains section
    assert "Two innocent Numba lines" not in prose and "## Why P needs independent chains, and two traps" not in prose
    assert "#two-traps-that-cut-a-numba-roof)" in prose
    # C03-2: how each DRAM roof is drawn, as the chart draws it
    from rooflinelib.measure import registry
    from rooflinelib.views.plotting import MIX_DASH
    assert MIX_DASH[registry.MIX_OF["dram-read"]] == "dot" and MIX_DASH[registry.MIX_OF["dram-copy"]] == "dash"
    assert "The read's roof (dotted)" in prose


# --- review 12c (a fresh expert read): notebook 04 ------------------------------------------------

def test_03_review_12b_opening_and_lab_log_residue():
    # C03-1: the question, then the answer, then the plan; "It" had no referent
    opening = words(cells("03_ceilings.ipynb")[0].source)
    assert "It comes in three steps" not in opening
    # review 44b: the comparison is the table's; the figure draws no vendor line
    assert "The answer (table below): **the datasheet is not your roof**" in opening
    assert "This notebook gets there in three steps" in opening
    # C03-2: the Numba slips are the appendix's; the lesson keeps the link
    prose = words(markdown("03_ceilings.ipynb"))
    assert "Two Numba slips" not in prose and "float64 literal" not in prose
    assert "[two traps that cut a Numba roof](../docs/appendix-03-ceilings.md#two-traps-that-cut-a-numba-roof)" in prose


# --- notebook 03 after review 13b -----------------------------------------------------------------

def test_03_review_13b_fp32_runs_as_tf32_and_the_cublas_first_calls_are_explained():
    from rooflinelib.store import recorded
    prose = words(appendix("appendix-03-ceilings.md"))  # review 14: the full table's reading moved there
    # T03-1: the tensor cores take fp32 inputs as tf32; they lack a full-precision fp32 path
    assert "tensor cores have no fp32 path" not in prose
    assert "no full-precision fp32 path (fp32 inputs run on them only as tf32, rounded)" in prose
    # T03-2: the cuBLAS rows' 0.09-0.13 s first calls are not one GEMM (0.02 s at most)
    assert ("The 0.09-0.13 s of the cuBLAS rows fp32-matrix, fp16-tensor and bf16-tensor is not one GEMM "
            "(0.02 s at most): most likely it holds the library's one-time set-up") in prose
    import json
    data = json.loads(recorded.recorded_file("h200_ceilings_numba.json").read_text(encoding="utf-8"))
    details = {d["name"]: d for d in data["details"]}
    first = [details[n]["first_call_s"] for n in ("fp32-matrix", "fp16-tensor", "bf16-tensor")]
    assert round(min(first), 2) == 0.09 and round(max(first), 2) == 0.13, first
    gemm = max(d["median_s"] for n, d in details.items() if n.endswith(("-matrix", "-tensor")))
    assert round(gemm, 2) == 0.02, gemm


# --- notebook 04 after review 13c -----------------------------------------------------------------



# --- notebook 03 after review 14 (structural) ------------------------------------------------------

def _sections(name):
    """``{heading: words under it}`` of a notebook's ``##`` sections."""
    found, current = {}, None
    for line in markdown(name).splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            found[current] = []
        elif current is not None:
            found[current].extend(line.split())
    return {k: " ".join(v) for k, v in found.items()}


def test_03_review_14_the_lesson_prints_only_the_rows_it_argues_from_and_the_appendix_the_rest():
    # Lab-log item 1: the 14-row table, its first-call timings and its footers left the lesson; the
    # lesson's table is the seven rows its argument uses, the appendix prints every row as the
    # library reproduces it from the recorded run
    from rooflinelib.lessons import ceilings
    from rooflinelib.store import results
    printed = outputs("03_ceilings.ipynb")
    for lab_log in ("first call", "fp32-matrix", "tf32-tensor", "\nsfu ", "\nshared ", "NOISY:", "ridge point I = P / B"):
        assert lab_log not in printed, lab_log
    assert ceilings.LESSON_ROWS == ("dram-read", "dram-write", "dram-copy", "l2", "fp32", "fp64", "bf16-tensor")
    lesson = ceilings.lesson_table(_recorded_lab1())
    assert lesson in printed and len(lesson.splitlines()) == 2 + len(ceilings.LESSON_ROWS) + 1 + 2  # review 32b: + the sources line
    page = appendix("appendix-03-ceilings.md")
    full = ceilings.full_tables(results.recorded("ceilings"))
    assert full in page and 'ceilings.full_tables(results.recorded("ceilings"))' in page
    assert all(f"\n  {name} " in full for name in ("fp32-matrix", "tf32-tensor", "sfu", "shared"))
    assert "#every-row-lab-1-recorded)" in markdown("03_ceilings.ipynb")
    # each DRAM mix against the one printed rate: the copy is 89% of 4.8 TB/s
    rows = {r["name"]: r for r in ceilings.lesson_rows(_recorded_lab1())}
    assert round(100 * rows["dram-copy"]["fraction"]) == 89 and rows["l2"]["datasheet"] is None
    assert "DRAM reaches 89-98% of 4.8 TB/s, by mix" in words(markdown("03_ceilings.ipynb"))


def test_03_review_14_the_chains_aside_and_the_placement_plumbing_left_the_lesson():
    prose = words(markdown("03_ceilings.ipynb"))
    for aside in ("## Why P needs independent chains", "| FMA loop |", "2.01 cycles", "one warp per scheduler"):
        assert aside not in prose, aside
    assert "#why-the-fma-ceiling-needs-independent-chains)" in prose
    code = [c.source for c in cells("03_ceilings.ipynb") if c.cell_type == "code"]
    placement = next(s for s in code if "softmax" in s)
    assert len(placement.splitlines()) <= 6 and "place_on_own_mix(" in placement
    for plumbing in ("own_dram_mix", "five_steps", "drawn.roofline", "dram_roofs"):
        assert plumbing not in placement, plumbing
    assert all(len(s.splitlines()) <= 12 for s in code)
    assert "def " not in "\n".join(code)


def test_03_review_14_a_kernel_within_10_percent_is_not_called_optimal():
    # Technical item 3b: 90% of the copy roof is near it, not optimal; review 15b E03-1: 89.6% is
    # 10.4% under the roof, not "within 10%": "about 10% under"
    from rooflinelib.lessons import ceilings
    from rooflinelib import experiments
    from rooflinelib.modes import RunMode
    printed, prose = outputs("03_ceilings.ipynb"), words(markdown("03_ceilings.ipynb"))
    assert "optimal" not in printed + prose
    assert "5. compare and act: 90% of the roof, memory-bound, about 10% under the copy roof." in printed
    assert "memory-bound, about 10% under the copy roof" in prose and "memory-bound and done" not in prose
    assert "within 10%" not in printed and "at most 10%" not in prose
    assert 0.10 < 1 - 2397.0 / 2675.1 < 0.105  # the recorded share the phrase rounds
    fused = experiments.experiment_for(RunMode("recorded", None, "recorded H200", "recorded"), "softmax").experiment.variant("fused")
    placed = ceilings.place_on_own_mix(fused, _recorded_lab1(), read_share=0.5)
    assert placed in printed
    # a kernel far under its roof gets no "within" clause
    class Slow:
        n_flops, n_bytes, median_s = fused.n_flops, fused.n_bytes, 4 * fused.median_s
    slow = ceilings.place_on_own_mix(Slow, _recorded_lab1())
    assert "under the copy roof" not in slow and "does not model" in slow


def test_03_review_14_the_write_over_read_order_is_a_labelled_hypothesis_with_its_decider():
    # Technical item 3a: the write's roof lies above the read's; the lesson says the order is not
    # our kernels' (the libraries' own kernels show it in the same run), gives the reason as a
    # hypothesis and names what would decide it; the appendix keeps the evidence and the other
    # candidate (writes still in the L2), bounded by notebook 05's appendix
    import json
    # review 15b C03: the investigation record is the appendix's; the lesson keeps the rule, one
    # hypothesis sentence and the link
    section = _sections("03_ceilings.ipynb")["DRAM's three roofs, and which one to judge against"]
    assert "Why the write beats the read" not in section and "PyTorch" not in section
    # review 25b: the section keeps the turnaround hypothesis and one link to how to test it
    assert "why the write beats the read, and what would decide each are in the" not in section
    assert "How to test it: [appendix](../docs/appendix-03-ceilings.md#why-the-copy-is-the-slowest-mix)" in section
    assert "#why-the-copy-is-the-slowest-mix)" in section
    tail = words(appendix("appendix-03-ceilings.md"))
    tail = tail[tail.index("## Why the write beats the read"):]
    assert "Not measured, so hypotheses:" in tail and "What would decide it:" in tail
    run = json.loads((ROOT / "docs" / "measurements" / "dram_mixes_h200.json").read_text())
    vendor = run["vendor"]
    write, read = vendor["torch fill_"]["gbps"], vendor["cupy.sum"]["gbps"]
    assert run["best_vendor"] == {"read": read, "write": write, "copy": run["best_vendor"]["copy"]}
    assert write > read
    assert f"PyTorch's `fill_`, reached {write:,.0f} GB/s, and the fastest library read, CuPy's `sum`, {read:,.0f}" in tail
    page = words(appendix("appendix-03-ceilings.md"))
    assert "## Why the write beats the read" in page
    tried = [c["gbps"] for c in run["lab1"]["numba"]["read"]["configs_tried"]]
    assert f"ran at {min(tried):,.0f} to {max(tried):,.0f} GB/s" in page
    assert f"PyTorch's `sum` {vendor['torch.sum']['gbps']:,.0f}" in page
    assert "Writes still in the L2 when the timer stops" in page and "about 1% of the write roof" in page
    assert "up to about 1% high" in appendix("appendix-05-hierarchy.md")
    # the copy's turnaround stays a hypothesis, with what would decide it
    assert "What would decide it: mixes of 2, 4 and 8" in page and "Hypothesis for why the copy is slowest" in section


def test_03_review_14_one_idea_per_section_and_fewer_words():
    prose = markdown("03_ceilings.ipynb")
    assert len(prose.split()) <= 1800  # 2,042 before review 14
    sections = _sections("03_ceilings.ipynb")
    assert list(sections) == ["The figure: one fp32 roof, three DRAM roofs", "Measured against vendor figures",
                              "How Lab 1 measures: small kernels, checked, timed",
                              "DRAM's three roofs, and which one to judge against",
                              "The ridge band, and the ridge of each mix",
                              "Lab 2 in the notebook: place a measured kernel in five steps", "What to take away"]
    # the datasheet section: claim, number, reason, one bold lead per ceiling
    # review 15b C03: the l2 row's use comes first, right under the table that prints it
    nb = cells("03_ceilings.ipynb")
    table = next(i for i, c in enumerate(nb) if "lesson_table(" in c.source)
    datasheet = words(nb[table + 1].source)
    assert datasheet.startswith("**The `l2` row has no vendor figure.**") and "notebook 05 uses it" in datasheet
    for lead in ("**The FMA loops reach 98.5% (fp32) and 99.5% (fp64) of their figures.**",
                 "**DRAM reaches 89-98% of 4.8 TB/s, by mix.**", "**The bf16 tensor cores reach 81.5%**"):
        assert lead in datasheet, lead


def test_03_review_14_the_lesson_table_and_placement_work_on_a_live_run_without_the_mixes():
    # A live Lab 1 that measured only `dram` (no mixes) still shows its DRAM row, flagged NOISY
    # where it is, with no H200 datasheet beside a CPU; its kernel is placed against `dram`
    from types import SimpleNamespace
    from rooflinelib.lessons import ceilings
    from rooflinelib.store import results
    result = results.validate({
        "format": "rooflinelib-result", "version": 1, "kind": "ceilings", "backend": "cpu", "scope": "cpu",
        "created": "2026-12-01T23:00:00+00:00", "device": {"name": "CPU: test CPU"},
        "ceilings": [{"name": "dram", "kind": "memory", "value": 10.0, "unit": "GB/s", "verified": True,
                      "spread": 0.01, "noisy": True, "noise": "busy"},
                     {"name": "fp32", "kind": "compute", "value": 80.0, "unit": "GFLOP/s", "verified": True,
                      "spread": 0.01}]})
    lab1 = SimpleNamespace(result=result, machine=results.to_machine(result, name="CPU"))
    table = ceilings.lesson_table(lab1)
    assert "dram (NOISY)" in table and "fp32" in table and "4,800" not in table
    kernel = SimpleNamespace(n_flops=5e6, n_bytes=8e6, median_s=1e-3)  # 80% of its 6.25 GFLOP/s roof
    placed = ceilings.place_on_own_mix(kernel, lab1)
    assert placed.startswith("its roof: fp32 and dram, 10 GB/s")
    assert "80% of the roof, memory-bound, about 20% under the dram roof." in placed and "against dram" not in placed


def test_03_review_14_the_method_keeps_the_chains_result_in_one_clause():
    # The chains experiment is the appendix's; the lesson keeps its result (notebook 04 leans on
    # "four chains are enough"), quoted from the recorded run
    from rooflinelib.experiments import recorded_experiments, rows
    chain = {r["variant"]: r for r in rows.chains_rows(recorded_experiments()["chains"])}
    four, one = chain["4 chains, full occupancy"]["fraction"], chain["1 chain, full occupancy"]["fraction"]
    prose = words(markdown("03_ceilings.ipynb"))
    # review 44b: only the latency was measured; one chain's shortfall on a full SM is open
    # review 51b: the open cause moved to the appendix; the lesson keeps the two measured shares
    assert (f"With one chain per thread the H200 reached only {one:.0%} of its peak, even with every SM at its "
            f"64-warp limit; with four, {four:.0%} ("
            "[experiment](../docs/appendix-03-ceilings.md#why-the-fma-ceiling-needs-independent-chains)") in prose


# --- review 15b: notebook 03 ----------------------------------------------------------------------

def test_03_review_15b_the_bandwidth_kernels_are_stream_like_scored_by_the_median():
    # E03-2: STREAM reports the best of its trials; Lab 1 takes the median, so "the method of
    # STREAM" overstated it
    prose = words(markdown("03_ceilings.ipynb"))
    assert "The method is that of STREAM" not in prose
    # review 16b C03: the method's sources are the appendix's, one link from the lesson
    assert ("The bandwidth kernels are STREAM-like (McCalpin 1995), but scored by the median, where STREAM "
            "reports the best trial") in words(appendix("appendix-03-ceilings.md"))
    assert "STREAM" not in prose and "(../docs/appendix-03-ceilings.md#how-lab-1-times-its-ceilings)" in prose
    assert "## How Lab 1 times its ceilings" in appendix("appendix-03-ceilings.md")
    assert "A rate is the median of many repeats after a warm-up" in prose


def test_03_review_15b_is_shorter_and_its_cut_passages_live_in_the_appendix():
    prose = words(markdown("03_ceilings.ipynb"))
    assert len(prose.split()) < 1628  # the word count read 15 scored
    for gone in ("What holds bf16 at 82% was not measured", "What would decide it", "CuPy's sum",
                 "the loop still reached"):
        assert gone not in prose, gone
    page = words(appendix("appendix-03-ceilings.md"))
    headings = [line[3:] for line in appendix("appendix-03-ceilings.md").splitlines() if line.startswith("## ")]
    assert headings.index("Why the copy is the slowest mix") + 1 == headings.index("Why the write beats the read")
    assert "(the read-write turnaround), which a copy pays each time" in page


def test_03_review_16b_the_datasheet_column_names_the_white_paper_for_fp32_and_fp64():
    prose = words(markdown("03_ceilings.ipynb"))
    # the source of the fp32, fp64 and tensor figures is named (review 26b: in the appendix, not the lesson)
    assert "white paper" not in prose
    page = words(appendix("appendix-03-ceilings.md"))
    assert "H100 SXM white paper" in page and "its tensor figures only with sparsity" in page


def test_03_review_16b_dram_is_said_up_front_to_set_the_headline_ridge():
    prose = words(markdown("03_ceilings.ipynb"))
    # review 19e: `dram` also judges the explorer's kernel; the own-mix rule is stated once, below
    # review 40b: that is said where the explorer is, as its caption (test_lessons_review41_03)
    assert ("is named `dram` (the solid line): a write-only roof, which most kernels cannot reach. It sets the headline ridge, 65,895 / 4,693 = 14.04 FLOP/byte, "
            "next to the vendor's 13.94.") in prose
    assert "It draws only `dram` (the write), the one DRAM roof both have;" in prose
    assert "It only draws the headline ridge" not in prose
    assert "and the ridge uses it" not in prose


# --- notebook 03 after review 19e -----------------------------------------------------------------

def test_03_review_19e_says_where_the_datasheet_is_close_and_where_not():
    from rooflinelib.lessons import ceilings
    prose = words(markdown("03_ceilings.ipynb"))
    rows = {r["name"]: r for r in ceilings.lesson_rows(_recorded_lab1())}
    # close: the FMA loops and the write, within about 2% (the write is 2.2% under)
    for name in ("fp32", "fp64", "dram-write"):
        assert rows[name]["fraction"] > 0.975, name
    # not close: the copy mix 11% lower, the bf16 tensor cores 18.5% lower (review 32b: not 18), no L2 figure
    assert round(100 * (1 - rows["dram-copy"]["fraction"])) == 11
    assert f"{100 * (1 - rows['bf16-tensor']['fraction']):.1f}" == "18.5"
    assert rows["l2"]["datasheet"] is None
    # review 25b #3: the read mix (6% lower) is in the list too
    assert round(100 * (1 - rows["dram-read"]["fraction"])) == 6
    # review 40b: one sentence; the percentages are the table's, the missing L2 figure cell 6's
    claim = ("The FMA loops and the fastest DRAM mix match the vendor figures within about 2%; the other mixes "
             "and the tensor cores do not.")
    assert claim in prose
    assert "The `l2` row has no vendor figure." in prose
    # it is the reading the datasheet section opens with, before the table
    nb = cells("03_ceilings.ipynb")
    table = next(i for i, c in enumerate(nb) if "lesson_table(" in c.source)
    assert claim in words(nb[table - 1].source.split("## Measured against vendor figures")[1])
    # words taken out elsewhere: the own-mix rule is not restated in the figure's reading or cell 9
    assert "a kernel is judged against its own mix's roof (below)" not in prose
    assert "A copy sits at 91% of `dram`" not in prose


def test_03_review_19e_dram_rating_iqr_header_and_the_above_roof_case():
    from rooflinelib.core import model
    from rooflinelib.lessons import ceilings
    prose = words(markdown("03_ceilings.ipynb"))
    # the DRAM figure is a printed rating, not "a count of operations"
    assert "not a count of operations" not in prose
    # review 44b: the note about the course left the lesson; the appendix keeps it
    assert "That figure is a rating the vendor prints." in prose and "the course does not derive" not in prose
    assert "the course does not derive an interface rate from it" in words(appendix("appendix-03-ceilings.md"))
    # the IQR column says it is relative to the median
    lesson = ceilings.lesson_table(_recorded_lab1())
    header = lesson.splitlines()[0]
    assert header.rstrip().endswith("IQR / median")
    assert lesson in outputs("03_ceilings.ipynb")
    assert ("**IQR / median** (interquartile range: the width of the middle half of the trials, Q3 − Q1, over "
            "their median)") in prose
    # the fifth case of classify: above 105% of the roof
    assert model.ABOVE_ROOF_FRACTION == 1.05
    assert model.classify(1.0, 100.0, 100.0, achieved_gflops=106.0).status == "above-roof"
    assert "under half is the third row; above 105%, a count, a unit or the roof is wrong." in prose


# --- notebook 03 after review 25b ------------------------------------------------------------------

def test_03_review_25b_decision_table_says_tensor_cores():
    # error 1: "matrix cores" is AMD's term; the course's GPU is NVIDIA's
    from rooflinelib.core import model
    assert "reach a faster roof: tensor cores (matrix cores on AMD)," in model.ADVICE["compute"]
    printed = outputs("03_ceilings.ipynb")
    assert "reach a faster roof: tensor cores (matrix cores on AMD)," in printed
    assert "reach a faster roof: matrix cores," not in printed


def test_03_review_25b_names_the_move_left_for_the_fused_softmax():
    # error 2: the printed row says "fuse kernels" to a kernel already fused; the reading names the
    # one move that still applies: a smaller data type halves the bytes (bf16 is 2 bytes, fp32 4)
    prose = words(markdown("03_ceilings.ipynb"))
    assert "use a smaller dtype" in outputs("03_ceilings.ipynb")
    assert "At these bytes little is left; a larger gain needs fewer bytes." not in prose
    # review 26b: within this kernel only the dtype is left; fusing it into a neighbour still removes its traffic
    assert "Of the row's moves only a smaller data type still applies" not in prose
    assert ("Within this kernel only a smaller data type still applies (bf16 halves the bytes); fusing it into its "
            "producer or consumer, as FlashAttention does, removes its traffic.") in prose


def test_03_review_25b_scopes_the_headline_claim():
    # error 4: fp32 and the write (dram's mix) are within about 2% of the datasheet; the other mixes
    # and the tensor cores are not
    from rooflinelib.lessons import ceilings
    rows = {r["name"]: r for r in ceilings.lesson_rows(_recorded_lab1())}
    assert all(abs(1 - rows[n]["fraction"]) < 0.025 for n in ("fp32", "dram-write"))
    assert all(1 - rows[n]["fraction"] > 0.05 for n in ("dram-read", "dram-copy", "bf16-tensor"))
    opening = words(cells("03_ceilings.ipynb")[0].source)
    assert "the datasheet is not your roof**; the measured compute roof" not in opening
    # review 26b: "access mix" is glossed at its first use
    assert ("**the datasheet is not your roof**, the measured ceilings are. For fp32, fp64 and DRAM's fastest access "
            "mix (the split of a kernel's bytes between reads and writes; here, all writes) the two agree to about 2%; for the other mixes and the tensor cores "
            "they do not.") in opening
    prose = words(markdown("03_ceilings.ipynb"))
    assert "- The datasheet is not your roof. Lab 1's" not in prose
    assert "- Measure your roof: the datasheet matches it only for some work." in prose


def test_03_review_25b_occupancy_has_a_clear_antecedent():
    prose = words(markdown("03_ceilings.ipynb"))
    assert "Its checks include **occupancy**" not in prose
    assert "The third row's checks include **occupancy**" in prose


def test_03_review_26b_the_fp32_figure_follows_from_the_clock():
    # clarity: "the fp32 peak is arithmetic" read oddly; say what it means
    prose = words(markdown("03_ceilings.ipynb"))
    assert "The fp32 peak is arithmetic" not in prose
    assert "The fp32 figure follows from the clock, as the next cell shows at 1980 MHz." in prose


# --- review 32b: notebook 03 ----------------------------------------------------------------------

def test_03_review_32b_the_white_paper_figures_are_not_called_the_h200_datasheet():
    # error 1: 66,900 / 33,500 / 989,400 are the Hopper white paper's (H100 SXM5, same GH100)
    from rooflinelib.core.machines import H200
    from rooflinelib.lessons import ceilings
    assert "white paper" in H200.ceiling("fp32").source and "white paper" in H200.ceiling("bf16-tensor").source
    lesson = ceilings.lesson_table(_recorded_lab1())
    header = lesson.splitlines()[0]
    assert "vendor figure" in header and "datasheet" not in header
    assert ("fp32, fp64 and bf16 from NVIDIA's Hopper white paper (H100 SXM5, the same GH100 configuration); "
            "the H200 datasheet prints 67 / 34 TFLOP/s and its tensor figures only with sparsity") in lesson
    printed = outputs("03_ceilings.ipynb")
    assert lesson in printed
    assert "H200 datasheet fp32 peak" not in printed and "datasheet: H200 ridge" not in printed
    assert "vendor fp32 figure (Hopper white paper, H100 SXM5, same GH100): 66,900 GFLOP/s" in printed
    assert "vendor figures: H200 ridge = 13.94 FLOP/byte (66,900 GFLOP/s / 4,800 GB/s)" in printed
    prose = words(markdown("03_ceilings.ipynb"))
    assert "## Measured against the datasheet" not in prose and "no datasheet figure" not in prose
    assert "The datasheet is close" not in prose and "the datasheet's 13.94" not in prose
    # cell 5: the rows are used by this and later notebooks (l2: notebook 05)
    assert "The rows this lesson uses" not in prose and "lists the rows this and later notebooks use" in prose


def test_03_review_32b_one_figure_for_the_bf16_share():
    from rooflinelib.lessons import ceilings
    share = {r["name"]: r for r in ceilings.lesson_rows(_recorded_lab1())}["bf16-tensor"]["fraction"]
    assert f"{100 * share:.1f}" == "81.5"
    prose = words(markdown("03_ceilings.ipynb"))
    assert "(18% lower)" not in prose and "reach 82%" not in prose
    # review 40b: the lesson leaves the 18.5% gap to the table, which prints the share
    assert "reach 81.5%" in prose
    assert any(line.startswith("bf16-tensor") and line.rstrip().split()[-2] == "81.5%"
               for line in outputs("03_ceilings.ipynb").splitlines())
    assert "(82% of the white paper's 989.4)" not in appendix("appendix-03-ceilings.md")


def test_03_review_32b_the_softmax_reading_flags_two_sessions_and_the_exp_roof():
    reading = _md_cell("On the recorded H200")
    # the softmax (10:15 UTC) and the ceilings (23:41 UTC) are two sessions; the appendix compares their copy roofs
    # (review 40b: that provenance is the appendix's alone, behind the reading's link)
    assert "([appendix](../docs/appendix-03-ceilings.md#the-recorded-run))" in reading
    page = words(appendix("appendix-03-ceilings.md"))
    assert "These are separate runs." in page and "measured the copy roof at 4,276 GB/s, 0.1% under the 4,280" in page
    assert f"{1 - 4276 / 4280:.1%}" == "0.1%"
    # the FMA ridge is not the softmax's compute roof: its exps are (notebook 04)
    # review 33: the pointer names what notebook 04 states (the exps do not bind), not a ridge 04 never gives
    assert "far left of its FMA ridge of 15.40 (its exps do not bind either: notebook 04)" in words(reading)
    assert "The exps do not bind there" in words(markdown("04_sweep.ipynb"))
    # the exps' roof: one exp per element at the SFU row's rate, five FLOPs per element, over the copy roof
    sfu = _recorded_lab1().machine.ceiling("sfu").value
    exp_ridge = 5 * sfu / 4280
    assert 0.625 < exp_ridge < 15.40 and round(exp_ridge, 1) == 4.8


def test_03_review_33_fp64_matches_its_figure_as_the_opening_says():
    import re as _re
    printed = "".join(o.get("text", "") for c in cells("03_ceilings.ipynb") if c.cell_type == "code" for o in c.outputs)
    row = next(line for line in printed.splitlines() if line.startswith("fp64 ") and "GFLOP/s" in line)
    assert abs(100 - float(_re.findall(r"([\d.]+)%", row)[0])) <= 2
    assert "For fp32, fp64 and DRAM's fastest access mix" in words(cells("03_ceilings.ipynb")[0].source)
