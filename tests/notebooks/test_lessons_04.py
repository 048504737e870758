"""Notebook 04 reads as a lesson: short, no lab log or developer path in the page, the run
history in its appendix, the claims an expert read found wrong no longer made, and an exercise
to do next."""
import re
import pytest

from pathlib import Path

ROOT_04 = Path(__file__).resolve().parents[2]

from test_lessons_03 import cells, markdown, words, appendix, outputs


def test_04_says_the_sweep_is_an_envelope_and_does_not_blame_launches():
    prose, printed = words(markdown("04_sweep.ipynb")), outputs("04_sweep.ipynb")
    assert "walks the whole roofline with **one** kernel" not in prose
    # review 19c: the lesson teaches from the envelope; one sentence and a caveat say so, the
    # per-kernel tables are the appendix's
    assert ("Lab 3 also times `sweep_pipelined` (each thread walks 16 vectors, loading the next while it computes) "
            "and keeps the faster at each K.") in prose and "\nenvelope   " in appendix("appendix-04-sweep.md")
    # review 40b: the caveat, with why it matters (the ridge mixes two kernels' roofs), is the appendix's
    assert "**Caveat: an envelope.**" not in prose and ("B is `sweep`'s and P `sweep_pipelined`'s. Its ridge P/B "
                                                       "therefore mixes two kernels' roofs") in words(appendix("appendix-04-sweep.md"))
    # the launches are measured (10 us between kernels), not blamed
    assert "(extra launches" not in prose + printed and "= time outside the kernels, an estimate (us)" in printed  # review 36b: the row is named by what it is
    # 7c T04-2, 9c T9c-2: a difference of two runs, one with flushed caches: an estimate, not a bound
    assert "at most about 12" not in prose and "Launches and gaps take about 12 µs" not in prose
    # review 19c: the 12 us is a two-run estimate with its upper end, not a measured launch time
    # review 26b: the result in one sentence; the estimate's method is the appendix's
    # review 27b: the sentence says it is an estimate from two runs and gives its upper end
    # review 40b: the estimate with the appendix's upper end, so "inside the kernels" is not overstated
    # review 44b: the 12 us and its one-sentence caveat stay; the upper end (42 us) is the appendix's alone
    # review 51b: 12 us is a low estimate (ncu's cold caches), so the appendix's upper end is said beside it
    assert "about 12 µs, at most about 42, of the 98 µs shortfall" in prose
    assert "The time between kernels is about 12 µs" not in prose and "two-run estimate" not in prose
    assert "for two passes 30 us, so the time outside the kernels stays under about 42 us" in words(appendix("appendix-04-sweep.md"))
    assert "(a separate run from the 418.6 µs above" not in prose and "an estimate, not a bound" not in prose
    assert "a coarse estimate" in words(appendix("appendix-04-sweep.md")) and "Nor is it an upper bound" in words(appendix("appendix-04-sweep.md"))
    # the naive transpose's extra DRAM bytes were never measured: the page must not claim them
    assert "moves several times the bytes" not in prose
    # review 16c: the 88% is a hypothesis's, with the counters that would decide
    assert "That cost\nthe naive kernel" not in markdown("04_sweep.ipynb") and "That cost the naive kernel" not in prose
    # review 19c: the section ends on its likely cause, not on open lab questions
    # review 27b: a read-modify-write shows as DRAM reads, and the 32 x 8 blocks complete each sector in
    # one pass: the page claims no hypothesis with a counter that cannot test it; both are the appendix's
    assert "Hypothesis: these writes cost the naive kernel" not in prose and "read-modify-write" not in prose
    # review 40b: the section closes on the likelier hypothesis, labelled
    assert prose.split("## What to take away")[0].rstrip().endswith(
        "At Lab 1's L2 roof those sectors take about a quarter of the measured time, an estimate pricing partial "
        "sectors as full. **Hypothesis:** most of the "
        "rest is a per-request cost, since each warp's column store is 32 partial-sector writes instead of 4 full ones "
        "([appendix](../docs/appendix-04-sweep.md#the-naive-transposes-bytes)).")
    assert "Two hypotheses for the rest, undecided." in words(appendix("appendix-04-sweep.md"))
    assert "would settle it" in words(appendix("appendix-04-sweep.md"))  # the counters: appendix


def test_the_numbers_in_04s_prose_are_the_recorded_runs():
    import json
    from importlib import resources

    from rooflinelib.core import operators
    from rooflinelib.experiments import recorded_experiments, rows
    from rooflinelib.profiling.recorded import recorded_profiles
    prose = words(markdown("04_sweep.ipynb"))
    sweep = json.loads(resources.files("rooflinelib").joinpath("data/h200_sweep_numba.json").read_text())
    summary = {r["curve"]: r for r in rows.sweep_summary_rows(sweep)}
    envelope, one = summary["envelope"], summary["sweep"]
    for quoted in (f"The ridge P/B, {envelope['ridge']:.2f} FLOP/byte", f"knee is at {envelope['knee']:.2f} (K = {envelope['knee_k']})",
                   f"the kernel reaches {envelope['at_ridge']:.0%} of its roof"):
        assert quoted in prose, quoted
    # review 18c: the one-vector kernel's knee and share are the table's, not the prose's
    # review 19c: the per-kernel summary is the appendix's; the page prints the envelope's roof table
    from rooflinelib.lessons.sweep_lesson import roof_table
    assert rows.sweep_summary_table(sweep) in appendix("appendix-04-sweep.md")
    assert rows.sweep_summary_table(sweep) not in outputs("04_sweep.ipynb") and roof_table(sweep) in outputs("04_sweep.ipynb")
    assert f"{one['knee']:.2f}" not in prose and f"{one['knee']:.2f}" in rows.sweep_summary_table(sweep)
    online = operators.softmax(2 ** 20, fused=True, row_on_chip=False)
    # review 15: the other softmaxes are an aside, kept in the appendix
    assert f"(notebook 02 counts {online.n_flops / 2 ** 20:g} FLOPs)" in words(appendix("appendix-04-sweep.md"))
    ratios = rows.softmax_ratios(recorded_experiments()["softmax"])
    assert f"fusion gained {ratios['measured']:.2f}x" in prose
    split = rows.time_split(recorded_profiles()["softmax 3-pass"])
    # review 16c: the 12 us with the profiling run's two figures it is the difference of
    # review 19c: a two-run estimate, not the profiling run's difference read as launches
    assert f"about {split['between_s'] * 1e6:.0f} µs, at most about 42, of the 98 µs shortfall" in prose  # review 40b, 44b, 51b
    page = words(appendix("appendix-04-sweep.md"))
    assert f"{split['median_s'] * 1e6:.1f} us median" in page and f"{split['kernel_s'] * 1e6:.1f} us summed" in page


def test_04_says_the_shortfall_and_the_gap_between_kernels_come_from_two_runs():
    from rooflinelib.experiments import recorded_experiments, rows
    from rooflinelib.profiling.recorded import recorded_profiles
    prose = words(markdown("04_sweep.ipynb"))
    three = {r["variant"]: r for r in rows.softmax_rows(recorded_experiments()["softmax"])}["3-pass"]
    split = rows.time_split(recorded_profiles()["softmax 3-pass"])
    shortfall = (three['measured_s'] - three['bound_s']) * 1e6
    assert f"about {shortfall:.0f} µs short" in prose
    # review 19c: which run gave which number is the appendix's only
    assert f"The notebook's {shortfall:.0f} us shortfall is the timed experiment's ({three['measured_s'] * 1e6:.1f} us" in words(appendix("appendix-04-sweep.md"))
    # review 7c T04-2's two event-timed medians moved to the appendix (review 9c C9c-3: fewer numbers)
    page = words(appendix("appendix-04-sweep.md"))
    assert (f"differ by {(split['median_s'] - three['measured_s']) * 1e6:.1f} us between runs "
            f"({three['measured_s'] * 1e6:.1f} and {split['median_s'] * 1e6:.1f} us)") in page
    # review 11c C11c-1: which run gave which number is the appendix's (its run table)
    assert "from two runs of the same function, apart from the experiment above" not in prose
    assert "| a profiling run, timed by device events | 425.0 us |" in page
    assert "design history" not in prose


def test_04_defines_the_exp_bound_in_place_and_judges_by_the_kernels_own_mix():
    # An expert read of 04: the exp bound pointed ahead to notebook 06 for a rate the softmax
    # experiment measures itself (the SFU's ex2, one per exp), the online-softmax sentence had no
    # verb, and the take-away scored every memory-bound kernel against the copy, where notebook
    # 03 judges a kernel against its own access mix.
    from rooflinelib.experiments import recorded_experiments
    prose = words(markdown("04_sweep.ipynb"))
    assert "pitfall 5 of notebook 06" not in prose
    # review 26b: the unit named in a clause (notebook 02's term), not by a pointer to notebook 02
    # review 44b: the unit glossed where 04 uses it (notebook 02's term, the SFU)
    assert "the exps at the `ex2` rate of the special-function unit (SFU, which evaluates exp2 and similar in hardware)." in prose
    assert "notebook 02's multi-function unit" not in prose
    assert recorded_experiments()["softmax"].extra["exp_per_s"] > 0  # the rate the bound uses
    assert "recomputes the exp (notebook 02 counts" not in prose
    assert "score the fraction of the copy bandwidth" not in prose
    assert "the bandwidth of its own access mix" in prose
    # the sweep's loop: review 15c E04-1 found the compiled code straight-line below K = 128 (not
    # 64); the detail is the appendix's (test_04_review_15c_the_loop_starts_at_k_128_in_the_ptx)
    from rooflinelib.measure.kernels_numba import SWEEP_UNROLL
    assert "straight-line" not in prose and "loop counter" not in prose
    page = words(appendix("appendix-04-sweep.md"))
    assert f"Below K = {2 * SWEEP_UNROLL} the compiled code of both kernels is straight-line" in page
    assert f"From K = {2 * SWEEP_UNROLL} a loop of {SWEEP_UNROLL} steps ({4 * SWEEP_UNROLL} FMAs a trip" in page


def test_04_names_the_dip_on_the_plateau_the_recorded_sweep_has():
    import json
    from importlib import resources
    sweep = json.loads(resources.files("rooflinelib").joinpath("data/h200_sweep_numba.json").read_text())
    gflops = {r["k"]: r["gflops"] for r in sweep["rows"]}
    assert gflops[128] < gflops[112]  # the dip the appendix names
    # review 15c: an unexplained dip is research log, the appendix's
    assert "K = 128 ran below K = 112" not in words(markdown("04_sweep.ipynb"))
    assert "Both kernels ran slower at K = 128 than at K = 112" in words(appendix("appendix-04-sweep.md"))


def test_04_review_4b_the_profile_is_two_runs_and_the_mixes_and_exp_bound_are_stated_exactly():
    # E4-1: the 425.0 us is a device-event median; only the kernel durations come from ncu
    from rooflinelib.experiments import rows
    from rooflinelib.profiling.recorded import recorded_profiles
    prose, printed = words(markdown("04_sweep.ipynb")), outputs("04_sweep.ipynb")
    assert "Under Nsight Compute the function took" not in prose
    assert "its profiling run timed the same function by device events, 425.0 us median" in words(appendix("appendix-04-sweep.md"))
    table = rows.time_split_table(recorded_profiles()["softmax 3-pass"])
    assert "between the kernels" not in table and "median less ncu kernel time" not in table
    assert "outside the kernels: event-timed run less ncu's kernel time" in table  # 7c C04-3
    # C4-2 (review 4b): which run gave which number; review 6c C4-5 moved the table to the appendix
    assert "| a second run, under Nsight Compute |" in appendix("appendix-04-sweep.md")
    # E4-2: the 3-pass softmax reads three times and writes twice
    assert "for the transpose and the softmax, which read and write equally" not in prose
    assert "3-pass version's 3:2 mix" in prose
    # E4-3: an exp on the FMA pipes is not bound by the MUFU
    assert "so no kernel computes exps faster" not in prose
    # review 19c: the reviewer's plain wording of the refined bound
    # review 26b: one clause, not a hard-floor argument: each exp is one `ex2`
    assert ("Each exp compiles to one `ex2` and a few FMA-pipe instructions, negligible here "
            "([compiled code](../docs/appendix-04-sweep.md#the-softmaxs-exp-in-the-ptx)).") in prose  # review 44b
    assert ("The table's bound is the larger of two times: the bytes at copy speed (each run times its own copy; "
            "they differ by up to 2.5%), and the exps at") in prose


def test_04_review_4b_no_unsourced_mi300x_ladder():
    # E4-4: no publication could be named for the MI300X transpose figures
    nb = "\n".join(c.source for c in cells("04_sweep.ipynb"))
    assert "MI300X" not in nb + outputs("04_sweep.ipynb")
    assert "MI300X" not in appendix("appendix-04-sweep.md").split("An earlier version of the notebook set")[0]


def test_04_review_4b_sections_open_their_own_cell_and_the_dial_comes_first():
    md = [c.source for c in cells("04_sweep.ipynb") if c.cell_type == "markdown"]
    for text in md:  # C4-1: a heading starts its cell, so no cell ends one section and opens another
        assert "\n## " not in text, text[:80]
    prose = words(markdown("04_sweep.ipynb"))
    assert prose.index("## The dial: I = K/4") < prose.index("## The sweep against its own roofs")  # C4-5
    assert "## One dial, two kernels" not in prose  # review 19c: the two kernels are a caveat
    assert "course's tests" not in prose  # C4-3; review 15: the PTX count is the appendix's honesty section
    assert "32 `fma.rn.f32` instructions" in words(appendix("appendix-04-sweep.md")).split("## Is the measurement honest?")[1]


def test_04_review_4b_the_copy_rows_roof_is_a_bandwidth():
    # C4-4: K = 0 has no FLOPs; its roof is B in GB/s, not 0.00 GFLOP/s
    import json
    from importlib import resources

    from rooflinelib.views.tables import sweep_tables
    sweep = json.loads(resources.files("rooflinelib").joinpath("data/h200_sweep_numba.json").read_text())
    row = next(line for line in sweep_tables(sweep).splitlines() if line.strip().startswith("0 ") and "copy" in line)
    assert f"{sweep['peak_gbps']:,.0f} GB/s" in row and "0.00     99" not in row


# --- notebook 03 after review 3 ------------------------------------------------------------------

def _sweep_kernels_at(k):
    import json
    from importlib import resources

    from rooflinelib.experiments import rows
    sweep = json.loads(resources.files("rooflinelib").joinpath("data/h200_sweep_numba.json").read_text())
    return {name: next(r["gflops"] for r in curve if r["k"] == k) for name, curve in rows.sweep_curves(sweep).items()}


def test_04_says_the_two_kernels_tie_at_k_40():
    # T04-1: at K = 40 the pipelined kernel leads by 0.16%; it pulls clearly ahead from K = 48
    at40, at48 = _sweep_kernels_at(40), _sweep_kernels_at(48)
    assert abs(at40["sweep_pipelined"] / at40["sweep"] - 1) < 0.005 < at48["sweep_pipelined"] / at48["sweep"] - 1
    prose = words(markdown("04_sweep.ipynb"))
    # review 10c C04-1: the crossover in words; the figure carries the rates, the appendix the tie's
    # review 12c T04-2: the tie says which kernel leads, so "from K = 40 the envelope is pipelined" agrees
    # review 18c: the table's omitted rows' lead is said, and checked below (review 32b: it starts at K = 16)
    # review 19c: one caveat sentence; the leads are the appendix's table
    # review 26b: who wins where (a 0.16% lead at K = 40, "a tie") is the appendix's alone
    assert "tie at K = 40" not in prose and "B is `sweep`'s and P `sweep_pipelined`'s." in words(appendix("appendix-04-sweep.md"))  # review 40b
    assert f"{at40['sweep_pipelined'] / at40['sweep'] - 1:+.1%}  sweep_pipelined" in appendix("appendix-04-sweep.md")
    assert f"{at40['sweep_pipelined']:,.0f} against {at40['sweep']:,.0f} GFLOP/s, a tie" in words(appendix("appendix-04-sweep.md"))
    assert "`sweep_pipelined` from K = 40 (at K = 64" not in prose
    assert "which from K = 40 is `sweep_pipelined`;" not in prose


def test_04_keeps_the_honesty_checks_in_a_box_of_their_own_and_mixes_to_one_sentence():
    # C04-1: the two-kernel cell no longer carries verification, PTX and power; C04-3: mixes
    md = [c.source for c in cells("04_sweep.ipynb") if c.cell_type == "markdown"]
    kernels = appendix("appendix-04-sweep.md").split("*The envelope.*")[1].split("\n\n")[0]  # review 40b: moved
    for aside in ("fma.rn.f32", "low-power", "bit for bit"):
        assert aside not in kernels, aside
    # review 15: the box stood before the table it spoke of; it is the appendix's now, linked in
    # one line after the table
    assert not any(t.startswith("> **Is the measurement honest?**") for t in md)
    box = appendix("appendix-04-sweep.md").split("## Is the measurement honest?")[1].split("\n## ")[0]
    assert "32 `fma.rn.f32` instructions" in box and "low-power operand pattern" in box and "bit for bit" in box
    nb = cells("04_sweep.ipynb")
    table = next(i for i, c in enumerate(nb) if c.cell_type == "code" and "roof_table(lab3.result)" in c.source)
    link = next(i for i, c in enumerate(nb) if "appendix-04-sweep.md#is-the-measurement-honest" in c.source)
    assert link > table
    prose = words(markdown("04_sweep.ipynb"))
    assert "not by the 14.04 FLOP/byte of Lab 1's faster write roof" not in prose
    knee = next(t for t in md if "the knee is at 13.57" in t)
    assert "mix" not in knee  # review 15c: no undefined "write-mix ridge"
    # review 40b: Lab 1's cross-check is the appendix's (the corner's cell states its answer only)
    assert "15.40" not in knee and "Lab 1's copy ridge, 15.40 FLOP/byte, agrees" in words(appendix("appendix-04-sweep.md"))


def test_04_gives_the_launch_answer_before_the_profile_and_the_run_table_after_it():
    # C04-2: result first, the profile's table, the reading, then the run table; no lab-log header
    from rooflinelib.experiments import recorded_experiments, rows
    from rooflinelib.profiling.recorded import recorded_profiles
    nb = cells("04_sweep.ipynb")
    three = {r["variant"]: r for r in rows.softmax_rows(recorded_experiments()["softmax"])}["3-pass"]
    split = rows.time_split(recorded_profiles()["softmax 3-pass"])
    shortfall, between = (three["measured_s"] - three["bound_s"]) * 1e6, split["between_s"] * 1e6
    # review 11c C11c-1: the question, the profile's table, then one short answer
    # review 16c: the 12 us is the profiling run's own difference, both of its figures named
    # review 19c: the time between kernels is a two-run estimate, with its upper end
    # review 26b: the result in one sentence; the method and the upper end are the appendix's
    # review 27b: an estimate from two runs, with its upper end (the appendix derives it)
    # review 35b: the finding and its number; the upper end is the appendix's
    # review 40b: with the appendix's upper end (42 us), still under half the shortfall
    # review 44b: the finding and its number; the caveats are the question's one sentence, the upper end the appendix's
    answer = f"**Mostly not:** about {between:.0f} µs, at most about 42, of the {shortfall:.0f} µs shortfall"  # review 51b
    at = {i for i, c in enumerate(nb) if c.cell_type == "markdown" and c.source.startswith("## Is the shortfall the two extra launches?")}
    table = {i for i, c in enumerate(nb) if c.cell_type == "code" and "softmax_split_brief" in c.source}
    split_at = {i for i, c in enumerate(nb) if c.cell_type == "markdown" and words(c.source).startswith(answer)}
    assert len(at) == len(table) == len(split_at) == 1 and min(at) < min(table) < min(split_at)
    # review 6c C4-5: the run table is the appendix's, linked from the reading
    assert "| run | what it gave" not in markdown("04_sweep.ipynb")
    assert "appendix-04-sweep.md#the-three-pass-softmaxs-time" in nb[min(split_at)].source
    assert "not this machine's run" not in outputs("04_sweep.ipynb") + nb[min(table)].source
    assert 0.1 < between / shortfall < 0.15  # "Mostly not"


def test_04_says_why_exercise_1_comes_again():
    # C04-4: exercise 1's two kernels sit on either side of both its ridges, which the sweep shows
    from rooflinelib.exercises import ex01_two_kernels as ex
    ridges = [ex.PEAK_GFLOPS / b for b in ex.BANDWIDTHS_GBPS]
    low, high = ex.INTENSITIES
    assert low < min(ridges) and high > max(ridges)
    last = words([c for c in cells("04_sweep.ipynb") if c.cell_type == "markdown"][-1].source)
    assert "(again, if you did it after notebook 01)" not in last
    assert "again: it asks what a falling bandwidth roof does to two kernels, one on each side of the ridge" in last


def test_04_defines_shared_memory_and_bank_conflicts_where_it_uses_them():
    # notebook 02's primer no longer defines banks (review 5a, C7): 04 does, at first use
    prose = words(markdown("04_sweep.ipynb"))
    assert "**shared memory** (on-chip memory, notebook 02)" in prose
    # review 51 (words): 04 names it and points to 02, which defines it
    assert "**shared memory**, on-chip space that a block of threads manages itself" in words(markdown("02_operator_intensities.ipynb"))
    assert "the bank serves them in n passes, an n-way **bank conflict**" in prose
    assert "(a bank conflict; notebook 02's" not in prose


def test_04s_appendix_gives_the_pipelined_kernels_lead_as_recorded():
    # T04-1 in the appendix too: a tie at K = 40, a clear lead near the ridge, a small one at the end
    page = words(appendix("appendix-04-sweep.md"))
    lead = {k: (lambda r: r["sweep_pipelined"] / r["sweep"] - 1)(_sweep_kernels_at(k)) for k in (40, 48, 64, 1024)}
    assert f"only by {lead[40]:.2%} (" in page and "a tie" in page
    assert f"by {lead[48]:.1%} at K = 48, {lead[64]:.1%} at K = 64" in page and f"({lead[1024]:.1%} at K = 1024)" in page


def test_04_says_a_live_run_scores_the_softmax_and_the_transpose_on_the_stored_lab1_copy_mix():
    # after 5209ea9: a live run takes the chain's copy roof, not a copy timed beside the kernels
    md = {c.get("id"): words(c.source) for c in cells("04_sweep.ipynb") if c.cell_type == "markdown"}
    # review 11c C11c-4: no footnote; the table's own line names the copy speed's source in every mode
    assert "¹" not in md["sweep-14"] and "the bytes at copy speed" in md["sweep-14"]
    source = words(next(c.source for c in cells("04_sweep.ipynb") if "rows.softmax_table" in c.source))
    assert "print(rows.softmax_table(softmax_run.experiment))" in source
    # review 18c: the recorded copy's provenance is said once, for both experiments; review 25b:
    # in the softmax's method cell, with why the runs differ, so the transpose says only where it is
    assert "(the table's first row; live, your stored Lab 1 copy mix)" not in md["5ab96826"]
    assert "(the table's first row)" in md["5ab96826"]
    # review 26b E1: only the recorded run timed its copy beside the kernels; nothing cancels a live run's drift
    # review 32b: the same two facts, shorter (words paid for the clarity items)
    # review 35b: the spread of the page's copy rates said once
    # review 37b: each experiment times its own copy (4,183 and 4,176 GB/s in one run)
    # review 40b: the copy speed's provenance left the prediction for the appendix (the printed line names the copy)
    assert "Copy speed:" not in md["sweep-14"] and ("A recorded experiment scores its kernels against a copy it times "
                                                   "itself") in words(appendix("appendix-04-sweep.md"))
    assert "cancels that drift" not in md["sweep-14"]
    # review 19c: only the recorded run times its own copy; a live run uses Lab 1's copy mix
    assert "a copy timed in its own run" not in md["sweep-00"]
    # review 20a: the transpose table has no line under it; the roadmap no longer claims one
    assert "Then two memory-bound kernels, a softmax and a transpose, are scored against a copy's bandwidth." in md["sweep-00"]
    assert "the line under each table names its source" not in md["sweep-00"]


# --- notebook 03 after review 6b ----------------------------------------------------------------

def _nb04_cell(cell_id):
    return next(c for c in cells("04_sweep.ipynb") if c.get("id") == cell_id)


def test_04_says_b_is_the_highest_rate_at_any_k_not_the_copys():
    # T4-1: "K = 0 is a pure copy, so the sweep calibrates its own bandwidth roof B" suggested
    # that K = 0 sets B; on the H200 the highest GB/s is K = 16's and the copy's is lower
    from rooflinelib.store.results import recorded
    rows = recorded("sweep")["rows"]
    top = max(rows, key=lambda r: r["gbps"])
    copy = next(r for r in rows if r["k"] == 0)
    assert top["k"] != 0 and copy["gbps"] < top["gbps"]
    text = words(markdown("04_sweep.ipynb"))
    assert "K = 0 is a pure copy, so the sweep calibrates" not in text
    assert (f"**B**, its highest GB/s at any K: on the H200 {top['gbps']:,.0f} at K = {top['k']} "
            f"(the pure copy at K = 0 gets {copy['gbps']:,.0f})") in text


def test_04_the_softmax_rate_from_ncu_bytes_says_the_writes_fall_short():
    # T4-2: the 3,164 GB/s divides ncu's DRAM bytes, 3% short on the writes, by the time
    from rooflinelib.experiments import rows
    from rooflinelib.profiling.recorded import recorded_profiles
    profile = recorded_profiles()["softmax 3-pass"]
    split = rows.time_split(profile)
    measured = profile.measured
    counted_rate = split["counted_bytes"] / split["kernel_s"] / 1e9
    assert measured["dram_read_bytes"] == pytest.approx(3 * 4 * 2 ** 26, rel=0.001)
    assert measured["dram_write_bytes"] < 0.95 * 2 * 4 * 2 ** 26
    text = words(markdown("04_sweep.ipynb"))
    assert "(the count was right)" not in text
    # review 19c: the byte reconciliation is the appendix's
    assert "all of it on the writes" not in text
    assert "ncu's DRAM bytes fall 3% short of the hand count, all of it on the writes" in words(appendix("appendix-04-sweep.md"))
    assert f"{counted_rate:,.0f} GB/s" in words(appendix("appendix-04-sweep.md"))


def test_04_zooms_into_the_corner_it_asks_about():
    # C4-1: the opening figure's y axis spans four decades; a second view shows the corner
    code = _nb04_cell("sweep-03c")
    assert "xaxis_range" in code.source and "yaxis_range" in code.source and "ridge" in code.source
    assert any(o.get("output_type") == "display_data" for o in code.outputs)


def test_04_keeps_mode_mechanics_and_asides_out_of_its_concept_sentences():
    bound = words(_nb04_cell("sweep-14").source)
    # C4-2: the live/recorded copy is a footnote, not part of the bound's definition
    definition = bound.split("Each exp of these kernels")[0]
    assert "running once first" not in definition and "Lab 1 runs once first" not in bound  # review 11c C11c-4
    # C4-4: the prediction runs without the safe- and online-softmax asides
    prediction = words(_nb04_cell("50bc5cbb").source)
    assert "Milakov" not in prediction and "online softmax" not in prediction
    assert "Milakov" not in bound and "Milakov and Gimelshein" in appendix("appendix-04-sweep.md")  # review 15: an aside
    # C4-3: the knee paragraph is split in two
    # review 15: the knee and why the corner is round are two sections
    # review 15c: the round corner is two sentences in the knee's section
    assert _nb04_cell("sweep-10").source.startswith("## The knee and the round corner")
    # review 19c: the envelope's caveat; review 40b: the appendix's, in its corner section
    assert "*The envelope.*" in appendix("appendix-04-sweep.md").split("## The corner and the dip, unexplained")[1]
    # review 26b: the slow climb right of the ridge (and why is open) is the appendix's
    assert "Right of the ridge the curve climbs slowly" not in words(_nb04_cell("sweep-12").source)
    assert "Right of the ridge the envelope climbs slowly" in words(appendix("appendix-04-sweep.md"))


def test_04_states_the_element_count_of_its_softmax_run(monkeypatch):
    # C4-6: the prediction computes per element on 2^24; the run uses 16384 x 4096 = 2^26
    from rooflinelib import experiments
    from rooflinelib.modes import detect_mode
    monkeypatch.setenv("ROOFLINE_MODE", "recorded")
    run = experiments.experiment_for(detect_mode(), "softmax").experiment
    extra = run.variants[0].extra
    assert extra["rows"] * extra["cols"] == 2 ** 26
    assert "the timed run below uses 2^26 elements" in words(_nb04_cell("50bc5cbb").source)


def test_04_points_to_the_ptx_for_one_ex2_per_exp():
    # C4-7: "each exp is one ex2" now points at the PTX, and the PTX says so
    pytest.importorskip("numba_cuda")
    import math
    from numba import cuda

    def exp_one(x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = math.exp(x[i])

    ptx, _ = cuda.compile_ptx(exp_one, "void(float32[::1], float32[::1])", cc=(9, 0))
    assert ptx.count("ex2.approx.ftz.f32") == 1 and ptx.count("fma.r") == 4
    assert "appendix-04-sweep.md#the-softmaxs-exp-in-the-ptx" in _nb04_cell("sweep-14").source
    assert "## The softmax's exp in the PTX" in appendix("appendix-04-sweep.md")


def test_04_the_walker_rounds_as_the_table_does():
    # C4-8: the K slider said "100% of roof" where the table says 99.9%
    from rooflinelib.views import widget_state as ws
    roofline = ws.as_machine("H200").roofline()
    rows = [{"k": 1, "intensity": 0.25, "gbps": 4_000, "gflops": 0.999 * 0.25 * roofline.peak_gbps,
             "verified": True}]
    assert "99.9% of roof" in ws.sweep_point_state(rows, 1, roofline).text()


def test_04_keeps_the_three_runs_table_in_its_appendix():
    # C4-5: the provenance table of the three-pass softmax is lab-log material
    table = "| a second run, under Nsight Compute |"
    assert table not in markdown("04_sweep.ipynb")
    assert table in appendix("appendix-04-sweep.md")


# --- notebook 03 after review 7b ------------------------------------------------------------------

def test_04_review_7c_items():
    prose = words(markdown("04_sweep.ipynb"))
    # T04-1: PTX shows the FMAs were emitted; notebook 05's SASS counters show they executed
    assert "The compiled code shows that they ran" not in prose
    # review 10c T04-2: the counters profiled the one-vector kernel only
    honest = words(appendix("appendix-04-sweep.md"))  # review 15: the honesty checks moved there
    assert "For `sweep`, notebook 05's hardware counters show they executed: ncu counts exactly 2K FLOPs per" in honest
    assert "at K = 1, 8, 64 and 256. `sweep_pipelined`'s are not counted on hardware" in honest  # review 51
    # T04-2: the 12 us is a difference of two runs (review 9c T9c-2: an estimate, not an upper one)
    assert "a coarse estimate" in words(appendix("appendix-04-sweep.md")) and "It is an estimate: the two come from different runs" in prose  # review 40b, 44b
    assert "a coarse estimate" in words(appendix("appendix-04-sweep.md"))  # review 18c: the caveat moved there
    # T04-3: ncu did time each pass; the course kept only the sum
    assert "Which pass is slow was not measured apart" not in prose
    # review 15c: what the course kept of ncu's per-pass times is the appendix's
    assert "the course kept only their sum" not in prose
    assert "the profile file keeps only their sum (`kernel_seconds`), so which pass streams slowly is not known" in words(appendix("appendix-04-sweep.md"))
    # C04-1: the printed per-element counts use the timed run's size
    softmax_code = next(c.source for c in cells("04_sweep.ipynb") if "operators.softmax(n" in c.source)
    assert "n = 2**26" in softmax_code and "n = 2**24" not in softmax_code
    assert "the timed run below uses 2^26 elements" in prose
    # C04-4, C04-5, trivial: K's remainder
    assert "must come out exactly so on every machine" not in prose and "I depends only on K, not on the machine" in prose
    # review 10c C04-2: the authors chose 16 by trial, not Lab 3
    assert "the launch setting Lab 3 chose" not in prose and "each thread walks 16 vectors" in prose  # review 12c C04-6
    assert "Vectors per thread were tried at 1, 4, 8, 16, 32 and 64" in words(appendix("appendix-04-sweep.md"))
    assert "followed by the K % 64 remaining steps, written out" in words(appendix("appendix-04-sweep.md"))
    # C04-2: the PTX detail of the exp lives in the appendix
    assert "four FMAs and a multiply" not in prose and "polynomial on the FMA pipes" not in prose
    assert "polynomial on the FMA pipes is not held to this bound" in appendix("appendix-04-sweep.md")



# --- review 9c (a fresh expert read): notebook 04 -------------------------------------------------

def _nb04_md(cell_id):
    return words(next(c.source for c in cells("04_sweep.ipynb") if c.get("id") == cell_id))


def test_04_review_9c_the_time_outside_the_kernels_is_an_estimate_not_a_bound():
    # T9c-2: ncu flushed the caches before each kernel; the timed run may reuse the L2, so the
    # 12 us can be too low. The appendix bounds how far, from the recorded files.
    from importlib import resources
    from rooflinelib.experiments import recorded_experiments, rows
    from rooflinelib.profiling.recorded import recorded_profiles
    prose = words(markdown("04_sweep.ipynb"))
    assert "at most about 12" not in prose and "the difference between two runs, below" not in prose
    # review 11c C11c-1: the cache-flush caveat is the appendix's; review 18c: the page names the other
    # run in one clause and links the caveat ("not a bound" is the appendix's)
    # review 19c: the estimate's upper end on the page, the runs behind it linked
    # review 26b: the upper end and its reasoning are the appendix's; the page links them
    # review 27b: the upper end stands beside the estimate; its derivation is the appendix's
    assert "(estimated upper end: about 42 µs)" not in prose and "[appendix](../docs/appendix-04-sweep.md#the-three-pass-softmaxs-time)" in prose  # review 35b
    assert "holds at most that much of a pass's 268 MB input, 15 us of traffic" in words(appendix("appendix-04-sweep.md"))
    assert "Nor is it an upper bound" in words(appendix("appendix-04-sweep.md"))
    profile = recorded_profiles()["softmax 3-pass"]
    assert "--cache-control all" in profile.measured["ncu"] and "--clock-control none" in profile.measured["ncu"]
    experiment = recorded_experiments()["softmax"]
    three = {r["variant"]: r for r in rows.softmax_rows(experiment)}["3-pass"]
    split = rows.time_split(profile)
    lab1 = resources.files("rooflinelib").joinpath("data/h200_ceilings_cupy.json").read_text()
    (l2_bytes,) = {int(n) for n in re.findall(r'"reported_l2_bytes": (\d+)', lab1)}
    per_pass_us = l2_bytes / (experiment.extra["copy_gbps"] * 1e9) * 1e6
    most_us = split["between_s"] * 1e6 + 2 * per_pass_us
    shortfall_us = (three["measured_s"] - three["bound_s"]) * 1e6
    assert most_us < shortfall_us / 2
    page = words(appendix("appendix-04-sweep.md"))
    assert (f"the L2 ({l2_bytes:,} B as the device reports it) holds at most that much of a pass's "
            f"{4 * 2 ** 26 / 1e6:.0f} MB input, {per_pass_us:.0f} us of traffic at the copy's "
            f"{experiment.extra['copy_gbps']:,.0f} GB/s; for two passes {2 * per_pass_us:.0f} us, so the time "
            f"outside the kernels stays under about {most_us:.0f} us, less than half the {shortfall_us:.0f} us shortfall") in page


def test_04_review_9c_each_number_of_a_pair_names_its_kernel():
    # C9c-1: "40,537 against 40,471" read as sweep first; each number now names its kernel
    prose = words(markdown("04_sweep.ipynb"))  # review 19c: the two kernels' caveat (review 40b: gone to the appendix)
    at = {k: _sweep_kernels_at(k) for k in (40, 64)}
    assert f"{at[40]['sweep_pipelined']:,.0f} against {at[40]['sweep']:,.0f}" not in prose
    assert f"{at[64]['sweep_pipelined']:,.0f} against" not in prose and "the pipelined kernel 4,063" not in prose
    # review 10c C04-1: six rates in one paragraph were too many; the figure draws both curves
    assert f"{at[64]['sweep_pipelined']:,.0f}" not in prose and "4,063" not in prose


def test_04_review_9c_the_first_figure_says_its_roofs_are_the_sweeps_own():
    # C9c-2: the roofs drawn are the sweep's highest GB/s and GFLOP/s, said under the figure
    from rooflinelib.experiments import rows
    from rooflinelib.modes import RunMode, sweep_for
    nb = cells("04_sweep.ipynb")
    figure = next(i for i, c in enumerate(nb) if c.cell_type == "code" and "roofline_figure(lab3.machine" in c.source)
    # review 16c: B and P are named here; review 18c: and defined in one line where first used
    # review 36b: the envelope and I = K/4 are the dial section's (cell 6), not repeated under the figure
    # review 44b: the roofs are named with their kernels in one clause
    assert words(nb[figure + 1].source).startswith("The roofs are the sweep's best rates, **B** and **P**, each from whichever kernel reached it.")
    lab3 = sweep_for(RunMode("recorded", None, "recorded H200", "recorded"))
    envelope = rows.sweep_summary_rows(lab3.result)[0]
    roofs = {c.kind: c.value for c in lab3.machine.ceilings}
    assert roofs == {"memory": envelope["peak_gbps"], "compute": envelope["peak_gflops"]}


def test_04_review_9c_the_split_and_the_rate_are_two_paragraphs_and_the_copy_rate_is_printed():
    # C9c-3: the dense paragraph split; the copy speed behind "76%" is printed under the table
    from rooflinelib.experiments import recorded_experiments, rows
    from rooflinelib.profiling.recorded import recorded_profiles
    experiment = recorded_experiments()["softmax"]
    copy = experiment.extra["copy_gbps"]
    line = f"copy speed: {copy:,.0f} GB/s, a copy timed in the same run"
    assert line in rows.softmax_table(experiment) and line in outputs("04_sweep.ipynb")
    split = rows.time_split(recorded_profiles()["softmax 3-pass"])
    reading = next(c.source for c in cells("04_sweep.ipynb") if c.cell_type == "markdown" and c.source.startswith("**Mostly not:**"))  # review 35b
    # review 11c C11c-1: short; the rate is the table's, its share printed beside the copy speed;
    # review 12c C04-5: the answer one paragraph, the two open points a list
    # review 19c: one paragraph, two numbers; the bytes are the appendix's
    assert "\n\n" not in reading.strip() and len(reading.split()) <= 60
    # review 15: the share compares counted bytes with counted bytes (ncu's bytes against the
    # copy's counted ones mixed the two); the rate and the share are printed
    counted = split["counted_bytes"] / split["kernel_s"] / 1e9
    assert f"{counted:,.0f}" in appendix("appendix-04-sweep.md") and f"{counted / copy:.0%}" == "78%"
    assert "76% of the copy speed" not in words(reading)
    # review 19c: the rate is the profiler's (cold caches), said in place
    assert "timed by ncu, they streamed at 78% of the copy's event-timed rate" in words(reading)  # review 35b: both rates labelled
    assert "measured under Nsight Compute, with the caches flushed" in words(appendix("appendix-04-sweep.md"))
    assert "copy beside the softmax: counted bytes / its time" in appendix("appendix-04-sweep.md")  # both rates counted
    assert "a separate run from the 418.6 µs above" not in words(reading)
    for gone in ("an eighth", "How the table splits the time"):
        assert gone not in reading, gone


# --- review 10c (a fresh expert read): notebook 04 ------------------------------------------------

def test_04_review_10c_the_round_corner_has_two_hypotheses_and_the_counters_that_would_split_them():
    # T04-1: overlap was the only cause offered; FMA issue slots fit the climb right of the ridge
    text = _nb04_md("sweep-12")
    assert "fits the numbers" not in text
    # review 19c: one sentence and a link in the lesson; the hypotheses and the counters in the appendix
    # review 26b: the cell ends on the lesson; the climb right of the ridge is the appendix's
    # review 33: the corner's sentence carries the appendix's weight (issue slots a few percent at most)
    # review 36b: "issue slots" in plain words (the instructions that share the FMAs' cycles)
    # review 37b: the figure's dip at K = 128 is named on the same link (the page keeps 7 appendix links)
    # review 40b: one hypothesis in the lesson; the issue-slot count, the early knee and the dip behind one link
    # review 44b: the hypothesis is a mechanism for the partial overlap, not the result restated
    assert "why is open" not in text and words(text).endswith("**Hypothesis:** overlap is partial because at I = P/B the memory system and the FMA pipes must both stay busy at once, which finite warps alternating loads and FMAs rarely achieve; a profile's warp stall reasons would test it. Other causes, why the kernel falls short of P, and the dip at K = 128: [appendix](../docs/appendix-04-sweep.md#the-corner-and-the-dip-unexplained).")
    assert "two hypotheses fit" not in text and "undecided" not in text and "PTX" not in text
    page = words(appendix("appendix-04-sweep.md").split("## The corner and the dip, unexplained")[1].split("\n## ")[0])
    assert page.index("- *Overlap*:") < page.index("- *Issue slots*:") < page.index("both predict a loss that falls like 1/K")
    assert "`smsp__inst_executed.sum`, `smsp__inst_executed_pipe_fma.sum` and the warp stall reasons" in page
    assert "counted FFMA instructions of the one-vector `sweep` only" in page
    # the shipped ncu file has no instruction total that would decide it
    from rooflinelib.hierarchy import ncu
    header = ncu.recorded_csv().read_text().split('"ID",', 1)[1].split("\n", 1)[0]
    assert "smsp__inst_executed" not in header and "sm__sass_thread_inst_executed_op_ffma_pred_on.sum" in header
    # the figures it quotes, from the recorded run
    at = {k: _sweep_kernels_at(k) for k in (96, 256)}
    from rooflinelib.experiments import rows
    from rooflinelib.store.results import recorded
    sweep = recorded("sweep")
    envelope = rows.sweep_summary_rows(sweep)[0]
    shares = [max(v.values()) / envelope["peak_gflops"] for v in at.values()]
    assert f"{shares[0]:.0%}" == "92%" and f"{shares[1]:.1%}" == "96.6%"
    assert [f"{k / 4 / envelope['ridge']:.1f}" for k in (96, 256)] == ["1.6", "4.2"]
    assert f"{at[256]['sweep_pipelined'] / at[256]['sweep'] - 1:.1%}" == "2.9%"
    # review 11c T11c-1: both hypotheses predict a 1/K loss; the data and the lead fit both
    assert "issue slots fit that better" not in text and "Overlap alone would matter little" not in text
    assert f"{shares[1]:.1%}" not in text  # review 26b: the appendix's
    assert f"{shares[0]:.1%} of P at K = 96, {shares[1]:.1%} at K = 256" in page
    assert "both predict a loss that falls like 1/K right of the ridge" in page
    assert "The pipelined kernel's 2.9% lead over `sweep` at K = 256 (`configs_tried`) fits both too" in page


def test_04_review_10c_p_is_a_lower_bound_and_the_ridges_are_named_by_mix():
    prose = words(markdown("04_sweep.ipynb"))
    # T04-3: P is read at K = 1024, where the curve still climbs
    # review 44b: one short clause; the "100% by construction" is the appendix's
    # review 46b: the lower bound is said with B's reason under the figure; the bullet says K = 1024's 100% is by construction
    assert "P is the K = 1024 point of a curve still climbing, a lower bound." in prose
    assert "**P**, its highest GFLOP/s, at K = 1024 (so that row reads 100% by construction)." in prose
    assert "is a lower bound on the compute roof, so K = 1024 reads 100% by construction" in words(appendix("appendix-04-sweep.md"))
    # C04-3: Lab 1's `dram` ridge is its write mix's; review 15c: "write-mix ridge" was never
    # defined, so the page names only the copy's ridge, which the sweep's read-and-write mix matches
    from rooflinelib.store.results import recorded
    lab1 = {c["name"]: c["value"] for c in recorded("ceilings")["ceilings"]}
    assert "its `dram` ridge" not in prose and "write-mix" not in prose
    copy_ridge = lab1["fp32"] / lab1["dram-copy"]
    from rooflinelib.experiments import rows as _rows
    gap = copy_ridge / _rows.sweep_summary_rows(recorded("sweep"))[0]["ridge"] - 1
    # review 36b: the gap as measured (1.2%), not a loose "within 2%"
    # review 40b: the cross-check is the appendix's
    assert f"Lab 1's copy ridge, {copy_ridge:.2f} FLOP/byte, agrees with the sweep's 15.21 within {gap:.1%}: a copy too reads and writes every element." in words(appendix("appendix-04-sweep.md"))
    # review 44b: Lab 1's copy ridge is back once, in the plain sentence under the figure that says why the roofs differ
    assert prose.count("15.40") == 1 and f"sits near Lab 1's copy ridge ({copy_ridge:.2f})" in _nb04_md("sweep-03z")
    # T04-4: the dip is in both kernels
    at = {k: _sweep_kernels_at(k) for k in (112, 128)}
    assert all(at[128][name] < at[112][name] for name in ("sweep", "sweep_pipelined"))
    page = words(appendix("appendix-04-sweep.md"))
    assert (f"(`sweep` {at[128]['sweep']:,.0f} against {at[112]['sweep']:,.0f} GFLOP/s, the pipelined one "
            f"{at[128]['sweep_pipelined']:,.0f} against {at[112]['sweep_pipelined']:,.0f})") in page
    # review 15c E04-1: K = 64 has no loop in its compiled code, so it cannot rule the loop out
    assert "so do K = 64 and 256, which do not dip" not in page and "decides neither" in page
    assert "K = 128 is the first K whose code holds a loop, in both kernels" in page


def test_04_review_10c_the_profile_is_announced_as_a_separate_run_and_the_dates_are_gone():
    from rooflinelib.experiments import recorded_experiments, rows
    from rooflinelib.profiling.recorded import recorded_profiles
    three = {r["variant"]: r for r in rows.softmax_rows(recorded_experiments()["softmax"])}["3-pass"]
    split = rows.time_split(recorded_profiles()["softmax 3-pass"])
    # C04-4: said before the table that shows 425.0 under 418.6
    assert round((split["median_s"] - three["measured_s"]) * 1e6) == 6
    # review 15c: the second run's median is the appendix's
    assert "its own median differs" not in _nb04_md("sweep-16q") and "separate run" not in _nb04_md("sweep-16q")
    assert "event-timed medians differ by 6.5 us between runs" in words(appendix("appendix-04-sweep.md"))
    # C04-5: one provenance line (the mode's), not a date in the lesson text
    assert "2026-12-01" not in words(markdown("04_sweep.ipynb"))


# --- review 11c (a fresh expert read): notebook 04 ------------------------------------------------

def test_04_review_11c_is_shorter_and_its_corner_fits_both_hypotheses_in_its_appendix():
    nb = cells("04_sweep.ipynb")
    prose = words(markdown("04_sweep.ipynb"))
    # clarity 3.5 twice, "correct but dense": cut to about 2,200 words
    assert len(prose.split()) <= 2250
    # T11c-3: notebook 05 labels its DRAM-undercount reason a hypothesis
    assert "gives the likely reason" not in prose and "(notebook 05 gives a hypothesis for that)" not in prose
    # review 17a: the hypothesis is in notebook 05's appendix, not on its page: the link says so
    # review 19c: the byte reconciliation moved to 04's appendix, with the link
    assert "appendix-05-hierarchy.md" not in prose
    assert "[Lab 4's run](appendix-05-hierarchy.md#lab-4s-run)): lines still in the L2 when ncu stops counting" in words(appendix("appendix-04-sweep.md"))
    assert "## Lab 4's run" in (ROOT_04 / "docs" / "appendix-05-hierarchy.md").read_text()
    appendix04 = words((ROOT_04 / "docs" / "appendix-04-sweep.md").read_text())
    assert "added up instead of overlapping" not in appendix04 and "would put the knee at the ridge" in appendix04
    # review 17a: B and P come from the two kernels; the take-away credits the profiler with what it did
    assert "B is `sweep`'s and P `sweep_pipelined`'s." in appendix04  # review 19c: the caveat (review 40b: the appendix's)
    # review 18c: what the profiler showed, not "ruled out"; review 19c: an estimate, not the profiler's reading
    assert "the profiler put the launches at" not in prose and "ruled out" not in prose
    # review 25b: the take-away states the rule; the 12 of 98 µs is the section's (cut to pay for words)
    assert "a two-run estimate put the time between kernels at about 12 of the 98 µs" not in prose
    assert "explanation with a measurement. - Score a memory-bound kernel" in prose
    assert "about 12 µs, at most about 42, of the 98 µs shortfall" in prose  # review 40b, 44b, 51b
    assert "find which assumption failed" not in prose
    # C11c-3: B, P and the ridge are a list, not one paragraph
    dial = _nb04_md("sweep-06b")  # review 15: the roofs have their own section
    assert "- **B**, its highest GB/s" in dial and "- **P**, its highest GFLOP/s" in dial and "- **The ridge** P/B" in dial
    # C11c-1: the 12 us takes two short cells around its table, not three long ones
    start = next(i for i, c in enumerate(nb) if c.cell_type == "markdown" and "fusion gained" in c.source)
    end = next(i for i, c in enumerate(nb) if c.source.startswith("## The transpose ladder"))
    assert sum(len(c.source.split()) for c in nb[start:end] if c.cell_type == "markdown") <= 220
    # T11c-1: the appendix carries the two fits, from the recorded sweep
    from rooflinelib.experiments import rows
    from rooflinelib.store.results import recorded
    envelope = rows.sweep_summary_rows(recorded("sweep"))[0]
    overlap = [1 / (1 + 0.14 * envelope["ridge"] / (k / 4)) for k in (96, 256)]
    slots = [4 * k / (4 * k + 35) for k in (96, 256)]
    page = words(appendix("appendix-04-sweep.md"))
    assert (f"f = 0.14 gives {overlap[0]:.1%} at K = 96 and {overlap[1]:.1%} at K = 256, and c = 35 gives "
            f"{slots[0]:.1%} and {slots[1]:.1%}; the run measured 92.0% and 96.6%") in page


# --- notebook 03 after review 10b -----------------------------------------------------------------

def test_04_review_12c_a_read_only_pass_1_brings_the_3_pass_share_nearer_76_percent():
    # T04-1: the bound puts all 20 bytes at the copy rate; pass 1's 4 only read, and Lab 1's read
    # mix is faster, so the share the table prints is a little high
    from rooflinelib.experiments import recorded_experiments, rows
    from rooflinelib.store.results import recorded
    lab1 = {c["name"]: c["value"] for c in recorded("ceilings")["ceilings"]}
    faster = lab1["dram-read"] / lab1["dram-copy"]
    three = {r["variant"]: r for r in rows.softmax_rows(recorded_experiments()["softmax"])}["3-pass"]
    mixed = three["bound_s"] * (16 / 20 + 4 / 20 / faster)
    assert round(three["of_bound"], 2) == 0.77 and 0.985 < mixed / three["bound_s"] < 0.995
    # review 15c: the correction is the appendix's
    assert "Pass 1 only reads" not in _nb04_md("sweep-16")
    assert (f"but pass 1's 4 only read; at a read rate {faster - 1:.0%} above the copy's, as in Lab 1, the 77% the "
            f"notebook's table prints would be nearer {mixed / three['measured_s']:.0%}.") in words(appendix("appendix-04-sweep.md"))


def test_04_review_12c_b_is_a_maximum_of_noisy_medians_in_the_appendix():
    # T04-3
    import json
    from importlib import resources
    sweep = json.loads(resources.files("rooflinelib").joinpath("data/h200_sweep_numba.json").read_text())
    gbps = {r["k"]: r["gbps"] for r in sweep["rows"]}
    page = words(appendix("appendix-04-sweep.md"))
    assert (f"largest of its {len(gbps)} medians, one per K, so the noise of each median biases it slightly upward: "
            f"{max(gbps.values()):,.0f} GB/s at K = {max(gbps, key=gbps.get)} against the pure copy's {gbps[0]:,.0f}") in page


def test_04_review_12c_gives_the_softmax_and_transpose_shapes_where_they_are_used():
    # C04-1, C04-2: a row is 16 KiB (why the fused kernel can keep it on chip); the transpose's n
    import inspect
    from rooflinelib.experiments import gpu
    from rooflinelib.measure.experiment_kernels import SOFTMAX_COLS
    softmax_rows = inspect.signature(gpu.run_softmax).parameters["rows"].default
    n = inspect.signature(gpu.run_transpose).parameters["n"].default
    assert softmax_rows * SOFTMAX_COLS == 2 ** 26
    softmax = _nb04_md("50bc5cbb")
    assert f"over rows of {SOFTMAX_COLS:,} floats." in softmax
    assert f"the timed run below uses 2^26 elements, {softmax_rows:,} rows" in softmax
    assert f"an {n:,} × {n:,} float matrix, {n * n * 4 // 2 ** 20} MiB" in _nb04_md("5ab96826")


def test_04_review_12c_terms_before_use_and_no_trial_and_error_residue():
    # C04-3: B and P named at the first figure; C04-4: PTX glossed; C04-6
    assert "**B** and **P**, each from whichever kernel reached it" in _nb04_md("sweep-03z")  # review 18c: defined where used
    assert "- **B**, its highest GB/s at any K" in _nb04_md("sweep-06b")  # review 46b: the units are the roofs list's
    assert "(see below)" not in _nb04_md("sweep-03z")
    box = words(appendix("appendix-04-sweep.md").split("## Is the measurement honest?")[1])
    assert "the PTX (the compiler's intermediate assembly)" in box and "so x never changes" in box
    assert "chosen by trial" not in words(markdown("04_sweep.ipynb"))


def test_04_review_12c_hypotheses_are_a_list_with_what_would_decide():
    # C04-5: the corner's two hypotheses and the slow pass are bullets, each with its decider
    # review 15c: undecided hypotheses are the appendix's; the lesson keeps two sentences and a link
    corner = appendix("appendix-04-sweep.md").split("## The corner and the dip, unexplained")[1].split("\n## ")[0]
    assert "\n- *Overlap*:" in corner and "\n- *Issue slots*:" in corner and "would.\n" in corner
    slow = words(appendix("appendix-04-sweep.md").split("## The three-pass softmax's time")[1])
    assert "which pass streams slowly is not known" in slow and "per-pass durations would decide" in slow
    reading = next(c.source for c in cells("04_sweep.ipynb") if c.get("id") == "sweep-18")
    assert "Which pass" not in reading and len(reading.split("\n\n")[0].split()) < 60


def _nb04_markdown_words():
    return sum(len(re.findall(r"\S+", c.source)) for c in cells("04_sweep.ipynb") if c.cell_type == "markdown")


@pytest.mark.parametrize("review, most", [
    ("12c", 2214),  # the fresh read asked for cuts: 2,215 words before its fixes (< 2215)
    ("15", 2099),   # review 15: shorter (< 2100)
    ("15c", 1850),  # review 15c: shorter still
    ("18c", 1847),  # review 18c: its fixes may not grow the notebook (1,847 before them)
    ("19c", 1620),  # review 19c: teach from the envelope; tables and lab log to the appendix (1,846 before)
])
def test_04_is_no_longer_than_each_review_left_it(review, most):
    assert _nb04_markdown_words() <= most, review


def test_04_review_13c_the_plateau_is_the_sweeps_roof_and_both_dips_are_named():
    prose = words(markdown("04_sweep.ipynb"))
    # T04-2: 64,907 is the sweep's own P, a lower bound; Lab 1's fp32 FMA roof is 65,895
    assert "levels off under the compute roof (64,907" not in prose
    # review 46b: why P is below Lab 1's is said once, under the first figure; the table prints 64,907
    assert "levels off under its P while" in prose and "P is the K = 1024 point of a curve still climbing" in prose
    from rooflinelib.store.results import recorded_h200, recorded_h200_sweep
    fp32 = next(c.value for c in recorded_h200().ceilings if c.name == "fp32")
    assert f"{fp32:,.0f}" == "65,895" and f"{recorded_h200_sweep()['peak_gflops']:,.0f}" == "64,907"
    # T04-1: the one-vector sweep also dips at K = 192, hidden in the envelope by the pipelined kernel
    one = {t["k"]: t["gflops"] for d in recorded_h200_sweep()["details"] for t in d["configs_tried"]
           if t["kernel"].startswith("sweep<")}
    assert one[192] < one[160] and one[128] < one[112]
    # review 15c: the dips are the appendix's
    assert "Not monotonic" not in prose
    assert ("and `sweep` also at K = 192 (59,176 against 59,777 at K = 160)") in words(appendix("appendix-04-sweep.md"))


# --- review 15 (structure): notebook 04 -----------------------------------------------------------

def test_04_review_15_each_section_is_one_idea():
    # the two-kernel section carried the kernels, the sweep's roofs and the honesty checks
    md = [c.source for c in cells("04_sweep.ipynb") if c.cell_type == "markdown"]
    # review 19c: the two kernels are a caveat paragraph after the knee, not a section
    assert not any(t.startswith("## One dial, two kernels") for t in md)
    kernels = appendix("appendix-04-sweep.md").split("*The envelope.*")[1].split("\n\n")[0]  # review 40b: moved
    assert "- **B**, its highest GB/s" not in kernels and "Is the measurement honest" not in kernels
    roofs = next(t for t in md if t.startswith("## The sweep against its own roofs"))
    assert "- **B**, its highest GB/s" in roofs and "- **P**, its highest GFLOP/s" in roofs
    assert any(t.startswith("## The knee and the round corner") for t in md)  # review 15c: one section
    assert any(t.startswith("## Is the shortfall the two extra launches?") for t in md)
    prose = words(markdown("04_sweep.ipynb"))
    assert prose.index("## The sweep against its own roofs") < prose.index("## The knee and the round corner") < prose.index("## Predict, then measure")


def test_04_review_15_per_kernel_claims_are_printed_per_kernel():
    # the prose quoted one kernel (a tie at K = 40, a dip at K = 192, a 2.9% lead at K = 256)
    # where only the envelope printed: a per-kernel table now prints each number it quotes
    from rooflinelib.lessons.sweep_lesson import QUOTED_KS, kernel_rows, kernel_table
    from rooflinelib.store.results import recorded
    sweep = recorded("sweep")
    at = {r["k"]: r for r in kernel_rows(sweep)}
    assert {32, 40, 48, 112, 128, 160, 192, 256} <= set(at) == set(QUOTED_KS)
    # review 19c: the per-kernel table is the appendix's, as the notebook teaches from the envelope
    assert kernel_table(sweep) not in outputs("04_sweep.ipynb")
    printed = appendix("appendix-04-sweep.md")
    assert kernel_table(sweep) in printed
    for k in (40, 112, 128, 160, 192, 256):
        assert f"{at[k]['sweep']:,.0f}" in printed and f"{at[k]['sweep_pipelined']:,.0f}" in printed, k
    # what the prose says of each kernel is what the table prints
    assert at[32]["lead"] < 0 < at[48]["lead"] and abs(at[40]["lead"]) < 0.005
    assert at[192]["sweep"] < at[160]["sweep"] and at[192]["sweep_pipelined"] > at[160]["sweep_pipelined"]
    assert all(at[128][n] < at[112][n] for n in ("sweep", "sweep_pipelined"))
    assert f"{at[256]['lead']:+.1%}" == "+2.9%" and "+2.9%" in printed
    assert [r["kept"] for r in kernel_rows(sweep, (32, 40))] == ["sweep", "sweep_pipelined"]
    # a one-kernel (CPU) sweep gets a note, not an empty table
    one = {"rows": sweep["rows"], "details": [{"kernel": "sweep<1>"} for _ in sweep["rows"]]}
    assert kernel_rows(one) == [] and "one kernel" in kernel_table(one)


def test_04_review_15_the_softmax_share_compares_counted_bytes_with_counted_bytes():
    from rooflinelib.experiments import recorded_experiments
    from rooflinelib.lessons.sweep_lesson import softmax_split_table, softmax_rates
    from rooflinelib.profiling.recorded import recorded_profiles
    profile, experiment = recorded_profiles()["softmax 3-pass"], recorded_experiments()["softmax"]
    rates = softmax_rates(profile, experiment)
    assert rates["counted_gbps"] == pytest.approx(4 * 5 * 2 ** 26 / profile.measured["kernel_seconds"] / 1e9)
    assert rates["copy_gbps"] == experiment.extra["copy_gbps"] and f"{rates['of_copy']:.0%}" == "78%"
    table = softmax_split_table(profile, experiment)
    assert table in appendix("appendix-04-sweep.md") and "counted bytes" in table  # review 19c: all seven rows there
    page = words(appendix("appendix-04-sweep.md"))
    assert "The notebook compares like with like" in page and "would mix measured and counted bytes" in page
    assert "against the 3,164 GB/s and 76% the notebook's table takes from ncu's bytes" not in page


def test_04_review_15_the_safe_softmax_is_not_credited_to_the_online_normalizers_paper():
    # Milakov and Gimelshein introduced the online normalizer; the safe 3-pass softmax is older
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2]
    prose, page = words(markdown("04_sweep.ipynb")), words(appendix("appendix-04-sweep.md"))
    for text in (prose, page, words(appendix("appendix-00-02.md")), words((root / "REFERENCES.md").read_text())):
        assert "Milakov and Gimelshein's safe softmax" not in text and "their safe softmax" not in text
    # the aside on other softmaxes is the appendix's (it interrupted predict-then-measure)
    assert "Other softmaxes count differently" not in prose and "## Other softmaxes" in appendix("appendix-04-sweep.md")
    assert "The usual safe softmax, older than the online normalizer and the baseline of Milakov and Gimelshein's paper" in page
    assert "Their online normalizer finds the max and the sum in one pass" in page


def test_04_review_15_uses_no_term_notebook_03_may_leave_to_its_appendix():
    # 04 named "full occupancy", a term only notebook 03's lesson defined: said in warps (01's) instead
    prose = words(markdown("04_sweep.ipynb"))
    assert "occupancy" not in prose
    # review 40b: nor does it imply the sweep kernels run with every SM full of warps (not shown)
    assert "as many warps" not in prose and "A vector's four floats are four independent FMA chains per thread." in prose


# --- review 15c (a fresh expert read): notebook 04 -----------------------------------------------

def test_04_review_15c_the_loop_starts_at_k_128_in_the_ptx():
    # E04-1: NVVM folds the one-trip loop of K = 64..127 away; the first loop is at K = 128
    pytest.importorskip("numba_cuda")
    from rooflinelib.measure import kernels_numba as kn
    for k in (64, 112, 127):
        ptx = kn.sweep_kernel(k).ptx()
        assert ptx.count("fma.rn.f32") == 4 * k and not re.search(r"\bbra\b", ptx), k
    for k in (128, 192):
        ptx = kn.sweep_kernel(k).ptx()
        assert re.search(r"\bbra\b", ptx) and ptx.count("fma.rn.f32") == 4 * kn.SWEEP_UNROLL + 4 * (k % kn.SWEEP_UNROLL), k
    assert kn.sweep_pipelined_kernel(112).ptx().count("fma.rn.f32") == 4 * 112  # straight-line K code too
    page = words(appendix("appendix-04-sweep.md"))
    assert "`sweep_kernel(112)`'s PTX holds 448 `fma.rn.f32` and no branch" in page
    prose = words(markdown("04_sweep.ipynb"))
    assert "below K = 64" not in prose and "K = 64 on each trip" not in prose
    assert "K is a compile-time constant: each K is its own compiled kernel" in prose


def test_04_review_15c_only_per_vector_instructions_shrink_like_1_over_k():
    # E04-2: loop control costs a fixed few instructions per 256-FMA trip, a near-constant floor
    prose, page = words(markdown("04_sweep.ipynb")), words(appendix("appendix-04-sweep.md"))
    assert "load, store or loop instruction" not in prose + page
    # review 19c: the hypotheses are the appendix's; review 32b: the lesson gives issue slots' bound, once
    # review 36b: the lesson names the instructions in plain words; "issue slot" stays the appendix's
    # review 40b: the instruction count is the appendix's alone, behind the corner's one link
    assert "issue slot" not in prose.lower() and "a few percent of the FMAs' cycles" not in prose
    assert "alone would cost at most 384/400, about 96% at K = 96" in page
    assert "each address, load or store instruction takes an FMA's issue slot" in page
    assert "a near-constant loss of about 1%, not a 1/K one" in page


def test_04_review_15c_the_ridge_comes_from_the_best_rates_and_the_half_is_explained():
    # E04-3: B is K = 16's rate, not an end of the sweep; C: why the knee's slope is 1/2
    prose = words(markdown("04_sweep.ipynb"))
    assert "from the sweep's ends" not in prose
    # review 41b: the ridge's two best rates come from two kernels, said in the roofs' own bullet
    # review 44b: said in one clause under the figure ("each from whichever kernel reached it"); the why is the appendix's
    assert "each from whichever kernel reached it" in prose and "therefore mixes two kernels' roofs" in words(appendix("appendix-04-sweep.md"))
    assert "The 1/2 is a convention" not in prose
    # review 16c: the model and its slope as display math, the claim on a line of its own
    assert "$$P \\cdot \\frac{I}{I + P/B}, \\qquad \\text{log-log slope} = \\frac{P/B}{I + P/B} = \\frac{1}{2} \\text{ at } I = P/B.$$" in _nb04_md("sweep-10")
    assert next(c.source for c in cells("04_sweep.ipynb") if c.get("id") == "sweep-10").endswith(
        "\n\nSo the two extremes of overlap, full (a sharp corner) and none, both turn at the ridge.")
    # the claim: d ln(P I / (I + P/B)) / d ln I = (P/B) / (I + P/B), 1/2 at I = P/B
    import math
    P, B = 64_907.0, 4_267.0
    f = lambda i: math.log(P * i / (i + P / B))
    i, h = P / B, 1e-6
    assert (f(i * math.exp(h)) - f(i * math.exp(-h))) / (2 * h) == pytest.approx(0.5, abs=1e-6)


def test_04_review_15c_the_transpose_names_read_and_write_counters_in_the_appendix():
    # E04-4: a partly written sector may be read first, so the extra traffic may show as reads
    prose, page = words(markdown("04_sweep.ipynb")), words(appendix("appendix-04-sweep.md"))
    # review 27b: the page names no counter (a write counter alone cannot test a read-modify-write);
    # the hypotheses and the full command are the appendix's
    assert "would settle it" not in prose and "dram__bytes_read.sum" not in prose and "dram__bytes_write.sum" not in prose
    assert "**Hypothesis:** most of the rest is a per-request cost" in prose  # review 40b, 44b
    assert "dram__bytes_write.sum,dram__bytes_read.sum,lts__t_sectors_op_write.sum" in page
    assert "could show up as reads as well as writes" in page


def test_04_review_15c_one_softmax_table_and_no_lab_log():
    nb = cells("04_sweep.ipynb")
    printed = outputs("04_sweep.ipynb")
    # one table: kernel time, time outside, counted-byte rate against the copy; no repeated row
    assert printed.count("DRAM bytes, Nsight Compute / counted") == 0  # review 19c: the appendix's
    assert appendix("appendix-04-sweep.md").count("DRAM bytes, Nsight Compute / counted") == 1
    assert "median by device events" not in printed and "the kernels' DRAM rate (GB/s)" not in printed
    assert "rates from counted bytes" not in printed and "3,164" not in printed
    code = [c.source for c in nb if c.cell_type == "code"]
    assert not any("time_split_table" in c or "softmax_split_table" in c for c in code)
    assert sum("softmax_split_brief(" in c for c in code) == 1
    prose = words(markdown("04_sweep.ipynb"))
    for gone in ("(second table;", "course kept only", "its own median differs", "nearer 76%", "Not monotonic",
                 "two hypotheses, undecided", "write-mix"):
        assert gone not in prose, gone


def test_04_review_16c_the_time_outside_the_kernels_adds_up_on_the_page():
    # the 12.3 us is 425.0 - 412.8, both printed in the same table (was: 425.0 only in the appendix)
    from rooflinelib.experiments import rows
    from rooflinelib.profiling.recorded import recorded_profiles
    split = rows.time_split(recorded_profiles()["softmax 3-pass"])
    printed = outputs("04_sweep.ipynb")
    median, kernels, between = (round(split[k] * 1e6, 1) for k in ("median_s", "kernel_s", "between_s"))
    assert f"profiling run: the 3-pass softmax, event-timed (us)               {median:.1f}" in appendix("appendix-04-sweep.md")
    # review 36b: the page prints both operands again, named by run, and their difference
    assert (f"a second event-timed run (us) {median:.1f} less Nsight Compute's 3 kernels, summed (us) {kernels:.1f} "
            f"= time outside the kernels, an estimate (us) {between:.1f}") in words(printed)
    assert (median, kernels, between) == (425.0, 412.8, 12.3) and abs(median - kernels - between) < 0.11
    prose = words(markdown("04_sweep.ipynb"))
    assert "and run along the flat roof" not in prose and "levels off under the flat roof" in prose  # review 19c: one curve
    # notebook 02 names it "special-function unit (MUFU, multi-function unit)"; 04 uses the first name
    assert "special-function unit (MUFU" in markdown("02_operator_intensities.ipynb") and "MUFU" not in prose
    assert "The table also gives each version a refined bound, the larger of two times: its bytes" not in prose


# --- review 18c (a fresh expert read): notebook 04 -----------------------------------------------

def _ptx_counts(ptx, loop_only=False):
    """(FMAs, other instructions) in a kernel's PTX; with loop_only, in its last loop's body only."""
    lines = [l.strip() for l in ptx.splitlines()]
    if loop_only:
        back = max(i for i, l in enumerate(lines) if re.match(r"@%p\d+ bra\s", l))
        label = lines[back].split()[-1].rstrip(";") + ":"
        lines = lines[lines.index(label) + 1:back + 1]
    body = [l for l in lines if l and not l.startswith(("//", ".", "{", "}", ")", "$")) and not l.endswith(":")]
    fma = sum(l.startswith("fma.rn.f32") for l in body)
    return fma, len(body) - fma


def test_04_review_18c_the_issue_slot_hypothesis_is_bounded_by_the_ptx():
    # E1: at K = 96 a thread issues 384 FMAs per vector against about 16 other instructions, so issue
    # slots explain at most a few points of the 8% the envelope lacks there
    # review 19c: the counts are the appendix's, with PTX defined and set against the SASS
    assert "the PTX holds 384 FMAs" not in words(markdown("04_sweep.ipynb"))
    page = words(appendix("appendix-04-sweep.md"))
    assert "about 96% at K = 96, some 4 of the 8 points lost there: at most a few percent" in page
    assert "The PTX is not what the scheduler issues: the machine code (SASS) would count the issue slots exactly" in page
    assert "at K = 96 has 384 `fma.rn.f32` and 16 other instructions" in page and "384/400, about 96% at K = 96" in page
    assert f"{384 / 400:.0%}" == "96%"
    pytest.importorskip("numba_cuda")
    from rooflinelib.measure import kernels_numba as kn
    assert _ptx_counts(kn.sweep_pipelined_kernel(96).ptx(), loop_only=True) == (384, 16)
    assert _ptx_counts(kn.sweep_kernel(96).ptx()) == (384, 18)
    assert "The one-vector `sweep` at K = 96 has 18 besides its 384 FMAs, setup included" in page


def test_04_review_18c_the_no_overlap_formula_is_read_against_the_data():
    # clarity: the formula predicts 50% at the ridge; the envelope reached 85%: overlap is partial
    from rooflinelib.experiments import rows
    from rooflinelib.store.results import recorded
    envelope = rows.sweep_summary_rows(recorded("sweep"))[0]
    ridge = envelope["ridge"]
    assert ridge / (ridge + ridge) == 0.5 and 0.5 < envelope["at_ridge"] < 1
    text = _nb04_md("sweep-12")
    # review 32b: K = 64 is I = 16, not the ridge: no overlap gives 51% there
    i = envelope["ridge_k"] / 4
    assert envelope["ridge_k"] == 64 and f"{i / (i + ridge):.0%}" == "51%"
    # review 46b: said once, in the answer that opens the section; the hypothesis follows the knee's reading
    assert (f"near the ridge (K = {envelope['ridge_k']}) the kernel reaches {envelope['at_ridge']:.0%} of its roof, between a "
            f"sharp corner (100%) and no overlap of memory and FMA time ({i / (i + ridge):.0%})") in words(_nb04_md("sweep-10"))
    assert "(K = 56), on the table's last line. **Hypothesis:** overlap is partial because at I = P/B" in words(text)
    # the per-kernel numbers are the table's (printed), not the paragraph's
    for gone in ("12.59", "79%", "Alone, `sweep_pipelined`"):
        assert gone not in text, gone
    # review 19c: each kernel alone is the caveat's and the appendix's
    assert "Each alone turns within two K steps of its own ridge" in words(appendix("appendix-04-sweep.md"))  # review 40b
    assert "each alone turns within two K steps of its ridge" in words(appendix("appendix-04-sweep.md"))
    for r in rows.sweep_summary_rows(recorded("sweep"))[1:]:
        assert 0 <= QUOTED_STEPS.index(r["ridge_k"]) - QUOTED_STEPS.index(r["knee_k"]) <= 2, r["curve"]


QUOTED_STEPS = [0, 1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 160, 192, 256, 384, 512, 768, 1024]


def test_04_review_18c_the_rows_below_k_32_are_said_and_the_l2_sectors_named():
    from rooflinelib.store.results import recorded_h200_sweep
    sweep = recorded_h200_sweep()
    assert [r["k"] for r in sweep["rows"]] == QUOTED_STEPS
    lead = {}
    for d in sweep["details"]:
        one = next(t for t in d["configs_tried"] if t["kernel"].startswith("sweep<"))
        pipe = next(t for t in d["configs_tried"] if t["kernel"].startswith("sweep_pipelined<"))
        lead[one["k"]] = pipe["gbps"] / one["gbps"] - 1
    below = [lead[k] for k in lead if k < 32]
    assert all(-0.055 < v < -0.045 for v in below)  # "by about 5%"
    assert f"{-max(below):.1%}" == "4.6%" and f"{-min(below):.1%}" == "4.8%" and f"{-lead[32]:.1%}" == "3.7%"
    page = words(appendix("appendix-04-sweep.md"))
    assert "from K = 0 to 24 the pipelined kernel trails by 4.6 to 4.8%, 3.7% at K = 32" in page
    # E3: the sectors are the L2's; DRAM's access granularity is not asserted
    prose = words(markdown("04_sweep.ipynb"))
    assert "the L2 and DRAM move" not in prose and ("land in 32 different sectors (the L2's 32-byte units, "
                                                         "[notebook 02](02_operator_intensities.ipynb#Primer:-how-bytes-and-FLOPs-reach-the-hardware))") in prose


# --- review 19c (a fresh expert read): notebook 04 -----------------------------------------------

def test_04_review_19c_the_figure_and_the_lesson_read_the_envelope_alone():
    # the main obstacle was every statement in three versions: the figure draws the envelope,
    # one sentence says each K keeps the faster kernel, one caveat after the knee names them
    nb = cells("04_sweep.ipynb")
    figure = next(c for c in nb if c.cell_type == "code" and "roofline_figure(lab3.machine" in c.source)
    assert "sweep_curves" not in figure.source and 'lab3.result["rows"]' in figure.source
    code = "\n".join(c.source for c in nb if c.cell_type == "code")
    assert "kernel_table" not in code and "sweep_summary_table" not in code and "sweep_tables" not in code
    md = [c for c in nb if c.cell_type == "markdown"]
    knee = next(i for i, c in enumerate(md) if c.source.startswith("## The knee and the round corner"))
    # review 25b: the kernel is named and defined once in the dial section; the caveat names it again
    # review 46b: the opening names both kernels at the curve's first mention, pointing to the dial
    dial = next(i for i, c in enumerate(md) if c.source.startswith("## The dial: I = K/4"))
    caveat = [i for i, c in enumerate(md) if "`sweep_pipelined`" in c.source]
    # review 40b: the caveat after the knee is the appendix's, with why it matters
    # review 41b: the roofs' bullet names which kernel gives B and which P, before the knee
    assert caveat[:2] == [0, dial] and all(i < knee for i in caveat) and not any(c.source.startswith("**Caveat: an envelope.**") for c in md)
    assert "therefore mixes two kernels' roofs" in words(appendix("appendix-04-sweep.md"))


def test_04_review_19c_the_roof_table_prints_the_corner_not_every_k():
    from rooflinelib.lessons.sweep_lesson import ROOF_TABLE_KS, roof_table
    from rooflinelib.store.results import recorded_h200_sweep
    sweep = recorded_h200_sweep()
    short, full = roof_table(sweep), roof_table(sweep, ks=None)
    body = lambda t: [l.split()[0] for l in t.splitlines() if l[:5].strip().isdigit()]
    assert body(short) == [str(k) for k in ROOF_TABLE_KS] and body(full) == [str(r["k"]) for r in sweep["rows"]]
    assert "knee (where the curve turns): I = 13.57 FLOP/byte, nearest K = 56; the ridge P/B = 15.21" in short
    row = lambda t, k: next(l for l in t.splitlines() if l.split()[:1] == [str(k)])
    assert "96.6%" in row(short, 256) and "85.2%" in row(short, 64) and "100.0%" in row(full, 1024)
    assert "B" in row(full, 0).split() and "copy" in row(full, 0)  # K = 0: scored by its GB/s against B
    printed = outputs("04_sweep.ipynb")
    assert short in printed and "Intensity sweep on" not in printed and "verified" not in printed
    code = next(c.source for c in cells("04_sweep.ipynb") if "roof_table(" in c.source)
    assert "roof_table(lab3.result, ks=None) prints every K" in code


def test_04_review_19c_event_timed_is_defined_where_first_used_and_ptx_is_not_used():
    md = [c.source for c in cells("04_sweep.ipynb") if c.cell_type == "markdown"]
    first = next(i for i, t in enumerate(md) if "event-timed" in t)
    assert "The times above are **event-timed**: CUDA events bracket the launches." in words(md[first])  # review 26b
    # never defined in 00-04: review 36b asks the lesson to say where sweep_pipelined's FMAs were
    # checked (the PTX only), so it is used once, glossed where it is used
    prose = words(markdown("04_sweep.ipynb"))
    # review 44b: the lesson says it in plain words (the compiled code); the PTX is the appendix's
    assert prose.count("PTX") == 0 and "the compiled code holds all K FMAs" in prose


def test_04_review_19c_the_takeaway_and_the_exercise_pointer():
    last = words([c for c in cells("04_sweep.ipynb") if c.cell_type == "markdown"][-1].source)
    assert "check each prediction against the sweep's curve" not in last
    assert last.endswith("one on each side of the ridge: left of it the rate scales with B; right of it, it does not.")
    assert "read each kernel alone before crediting one" not in last


def test_04_review_19c_few_appendix_links_and_none_mid_sentence():
    prose = markdown("04_sweep.ipynb")
    links = re.findall(r"\[[^\]]*\]\(\.\./docs/appendix[^)]*\)", prose)
    assert len(links) <= 7, links
    for link in links:  # each closes its sentence (or its bracket, which closes the sentence)
        after = prose.split(link, 1)[1][:2]
        assert after[:1] in (".", "") or after == ").", link


# --- review 20a ---------------------------------------------------------------------------------

def _md04():
    from test_lessons_03 import cells
    return {c.get("id"): words(c.source) for c in cells("04_sweep.ipynb") if c.cell_type == "markdown"}


def test_04_review_20a_the_naive_transposes_l2_traffic_explains_a_quarter():
    # error 1: the 8x L2 sector traffic, at Lab 1's L2 roof, takes ~250 us of the 1,062 us measured
    from rooflinelib.experiments import recorded_experiments
    from rooflinelib.lessons.sweep_lesson import naive_transpose_l2_estimate
    from rooflinelib.store.results import recorded_h200
    l2 = recorded_h200().ceiling("l2").value
    est = naive_transpose_l2_estimate(recorded_experiments()["transpose"], l2)
    assert f"{l2:,.0f}" == "9,763" and f"{est['sector_bytes'] / 1e9:.2f}" == "2.42"
    assert round(est["l2_s"] * 1e6) == 247 and round(est["naive_s"] * 1e6) == 1062
    assert 0.2 < est["share"] < 0.3  # "about a quarter"
    text = _md04()["sweep-20"]
    assert "The likely cost is the 8x sector traffic at the L2" not in text
    assert ("those sectors take about a quarter of the measured time, an estimate pricing partial sectors as full. "
            "**Hypothesis:**") in words(text)  # review 40b, 44b, 46b
    assert "No profile of the transpose" not in text and "No Nsight Compute profile of the transpose ladder" in words(appendix("appendix-04-sweep.md"))
    page = words(appendix("appendix-04-sweep.md"))
    assert "L2 sector traffic alone explains about a quarter of the naive kernel's time." in page
    for quoted in (f"({l2:,.0f} GB/s) that takes {est['l2_s'] * 1e6:.0f} us",
                   f"about {est['l2_s'] / est['copy_s']:.1f} copies, against the {est['naive_s'] * 1e6:,.0f} us measured "
                   f"({est['naive_s'] / est['copy_s']:.1f} copies): {est['share']:.0%}",
                   "The rest is at HBM", "read-modify-writes", "(b) is the less likely: with 32 x 8 blocks",
                   "The counters that would decide are the kernel's L2 write sectors and its DRAM bytes read and written"):
        assert quoted in page, quoted


def test_04_review_20a_cell_21_is_labelled_recorded_and_the_roadmap_says_so():
    # error 2: cell 21 prints the recorded H200 profile in every mode; its header says so, and
    # cell 0 no longer says a live run prints all its own numbers
    from rooflinelib.lessons.sweep_lesson import BRIEF_HEADER
    # review 36b: cell 0 says once that the profile is always recorded; the header names the run
    assert BRIEF_HEADER.endswith("the recorded H200 run")
    code = next(c for c in cells("04_sweep.ipynb") if c.cell_type == "code" and "softmax_split_brief(" in c.source)
    assert "recorded_profiles()" in code.source
    printed = "".join(o.get("text", "") for o in code.outputs)
    assert printed.startswith(BRIEF_HEADER)
    text = _md04()["sweep-00"]
    assert "a live run prints its own." not in text
    # review 25b: which profile, said plainly
    assert "except one labelled recorded profile" not in text
    assert "a live run prints its own, except the softmax profile, always recorded." in text


def test_04_review_20a_trivial_items():
    md = _md04()
    # item 4: the floor needs only that each exp needs one ex2 (it is ex2 plus FMAs and a multiply)
    assert "Each exp here is one `ex2` instruction" not in md["sweep-14"]
    # item 5: the table's last line gives the knee's nearest K (56) and the ridge, not K = 64
    assert "nearest K = 64" not in md["sweep-12"]
    assert "the knee is at 13.57 (K = 56), on the table's last line." in md["sweep-12"]
    assert "The ridge P/B, 15.21 FLOP/byte" in md["sweep-03z"]  # review 46b: the ridge is quoted once
    from rooflinelib.lessons.sweep_lesson import roof_table
    from rooflinelib.store.results import recorded
    last = roof_table(recorded("sweep")).rstrip().splitlines()[-1]
    assert "13.57" in last and "nearest K = 56" in last and "15.21" in last
    # item 6: the 85% also pays for the other instructions (their issue slots: the appendix's hypothesis);
    # review 25b: the lesson gave no reason for it, so the claim and its PTX count are the appendix's
    assert "(other instructions cost at most a few %)" not in md["sweep-12"]
    assert "384 `fma.rn.f32` and 16 other instructions" in appendix("appendix-04-sweep.md")
    # item 7: the per-thread description is `sweep`'s; the pipelined form is named where the dial is
    assert md["sweep-04"].startswith("## The dial: I = K/4 In `sweep`, every thread loads a 16-byte vector")
    # review 25b: `sweep_pipelined` is named and defined once, here; the caveat only names it
    assert "Lab 3 also times `sweep_pipelined` (each thread walks 16 vectors, loading the next while it computes)" in md["sweep-04"]
    assert "(loading its next vector while it computes)" not in words(appendix("appendix-04-sweep.md")).split("*The envelope.*")[1][:400]
    # clarity: the envelope is defined in the dial section, not forward-referenced in cell 4
    assert "the caveat after the knee says which" not in md["sweep-03z"]
    # clarity: the 42 us names its reason (the appendix's L2-reuse bound)
    # review 26b: the 42 us's reason is the appendix's; the page links it
    # review 27b: the page gives the upper end beside the estimate, so 12 us does not read as measured
    assert "(estimated upper end: about 42 µs)" not in md["sweep-18"] and "#the-three-pass-softmaxs-time" in md["sweep-18"]
    assert "for two passes 30 us, so the time outside the kernels stays under about 42 us" in words(appendix("appendix-04-sweep.md"))


# --- notebook 04 after review 25b ------------------------------------------------------------------

def test_04_review_25b_the_side_column_marks_notebook_03s_ridge_band():
    # error 1: notebook 03 calls ridge/1.1 to 1.1 x ridge "at the ridge"; K = 56 (I = 14) and
    # K = 64 (I = 16) lie in that band (13.8 to 16.7 here), so the table must not call them
    # "memory" and "compute"
    from rooflinelib.lessons.sweep_lesson import roof_table
    from rooflinelib.store.results import recorded
    sweep = recorded("sweep")
    ridge = sweep["ridge"]
    table = roof_table(sweep)
    sides = {int(line.split()[0]): line.split()[6] for line in table.splitlines()
             if line[:5].strip().isdigit()}
    for k, side in sides.items():
        i = k / 4
        want = "ridge" if ridge / 1.1 <= i <= ridge * 1.1 else ("memory" if i < ridge else "compute")
        assert side == want, (k, side)
    assert sides[56] == sides[64] == "ridge" and sides[48] == "memory" and sides[72] == "compute"
    assert table in outputs("04_sweep.ipynb")


def test_04_review_25b_prints_k_1024_where_p_is():
    # clarity: the text puts P at K = 1024; the default table prints that row
    from rooflinelib.lessons.sweep_lesson import roof_table
    from rooflinelib.store.results import recorded
    sweep = recorded("sweep")
    row = [line for line in roof_table(sweep).splitlines() if line.startswith(" 1024 ")]
    assert len(row) == 1 and "100.0%" in row[0] and f"{sweep['peak_gflops']:,.0f}" in row[0]
    assert row[0] in outputs("04_sweep.ipynb")


def test_04_review_25b_says_why_the_copy_speeds_differ():
    # error 3: four copy bandwidths across notebooks 03 and 04 (Lab 1's 4,280, the softmax's copy
    # 4,183, the sweep's K = 0 copy 4,261, the transpose's 4,176): each recorded experiment scores
    # against the copy timed beside it; the spread, said with its numbers, is the page's
    from rooflinelib import experiments
    from rooflinelib.store.results import recorded
    recorded_runs = experiments.recorded_experiments()
    softmax_copy = recorded_runs["softmax"].extra["copy_gbps"]
    transpose_copy = recorded_runs["transpose"].variant("copy").gbps
    sweep_copy = next(r["gbps"] for r in recorded("sweep")["rows"] if r["k"] == 0)
    from test_lessons_03 import _recorded_lab1
    from rooflinelib.lessons import ceilings
    lab1_copy = next(r["measured"] for r in ceilings.lesson_rows(_recorded_lab1()) if r["name"] == "dram-copy")
    copies = [softmax_copy, transpose_copy, sweep_copy, lab1_copy]
    assert [round(c) for c in copies] == [4183, 4176, 4261, 4280]
    lo, hi = min(copies), max(copies)
    assert round(lo) == 4176 and round(hi) == 4280 and round(100 * (hi - lo) / lo, 1) == 2.5
    text = words(_md04()["sweep-14"])
    # review 26b E1: the drift in one plain sentence, true in both modes (a live run scores on Lab 1's copy)
    # review 40b: the provenance left the prediction; the appendix says it, true in both modes
    assert "Separate runs' copies differ by up to 2.5%." not in text
    assert "a live run scores them against your Lab 1 copy roof. The line under the softmax table names which. Separate runs' copies differ by up to 2.5%." in words(appendix("appendix-04-sweep.md"))
    assert "cancels that drift" not in text


def test_04_review_28b_the_naive_transpose_is_described_per_warp():
    # review 28b: one thread reads down a column and writes along a row over its loop; the row read
    # and column write are what a warp's 32 neighbouring threads do together
    prose = words(markdown("04_sweep.ipynb"))
    assert "each thread reads along a row" not in prose
    assert "- **naive**: each warp reads along a row (neighbouring threads read neighbouring addresses)" in prose


# --- review 32b: notebook 04 ----------------------------------------------------------------------

def test_04_review_32b_the_round_corner_is_most_likely_partial_overlap():
    text = words(_nb04_md("sweep-12"))
    assert "The corner is round: the overlap is partial." not in text
    assert "most likely from partial overlap" not in text  # review 33: the appendix gives two hypotheses
    assert ("**Hypothesis:** overlap is partial because at I = P/B the memory system and the FMA pipes must both stay busy") in text  # review 40b, 44b, 51b
    page = words(appendix("appendix-04-sweep.md"))
    # the appendix's PTX bound: at K = 96, 384 FMAs and 16 others per vector, so issue slots cost at most 4%
    assert "issue slots alone would cost at most 384/400, about 96% at K = 96" in page and "most a few percent" in page
    assert "## The corner and the dip, unexplained" in appendix("appendix-04-sweep.md")


def test_04_review_32b_the_appendix_says_where_the_table_starts():
    from rooflinelib.lessons.sweep_lesson import ROOF_TABLE_KS, roof_table
    from rooflinelib.store.results import recorded
    assert ROOF_TABLE_KS[0] == 16
    first = roof_table(recorded("sweep")).splitlines()[3]
    assert first.split()[0] == "16" and first in outputs("04_sweep.ipynb")
    page = words(appendix("appendix-04-sweep.md"))
    assert "the notebook's table starts at K = 32" not in page and "the notebook's table starts at K = 16" in page


def test_04_review_32b_the_78_percent_is_under_nsight_compute_with_caches_flushed():
    reading = words(_nb04_md("sweep-18"))
    # review 44b: the cache flush is said once, in the question's caveat sentence
    assert "timed by ncu, they streamed at 78% of the copy's event-timed rate" in reading  # review 35b
    assert "ncu's cold caches may lengthen its kernel times" in words(_nb04_md("sweep-16q"))
    assert "--cache-control all" in appendix("appendix-04-sweep.md")


def test_04_review_32b_clarity_the_dial_up_front_and_no_fragment():
    from rooflinelib.measure.accounting import sweep_intensity
    # each point: K FMAs (2K FLOPs) on a 4-byte read and a 4-byte write per element
    assert all(sweep_intensity(k) == 2 * k / 8 == k / 4 for k in (1, 16, 64, 1024))
    # review 36b: I = K/4 is derived in the dial section before it is used, not stated under the figure
    assert "I = K/4" not in _nb04_md("sweep-03z") and "I(K) = \\frac{2K}{8} = \\frac{K}{4}" in _nb04_md("sweep-04")
    opening = words(_nb04_md("sweep-00"))
    assert "In notebook 03's modes (live GPU, live CPU, recorded H200)." not in opening
    assert "**How this notebook runs.** It runs in notebook 03's three modes." in opening
    # the special-function unit is defined where the course first uses it, in notebook 02
    assert "special-function unit (MUFU" in markdown("02_operator_intensities.ipynb")
    assert len(markdown("04_sweep.ipynb").split()) <= 1533  # review 32b: no growth


def test_04_review_33_the_42_us_is_an_estimate_and_the_corner_is_weighed_as_the_appendix_does():
    prose = words(markdown("04_sweep.ipynb"))
    assert "(at most about 42 µs)" not in prose and "(estimated upper end: about 42 µs)" not in prose  # review 35b: the appendix's
    assert "most likely from partial overlap" not in prose
    assert "[appendix](../docs/appendix-04-sweep.md#the-three-pass-softmaxs-time))." in prose  # review 35b: the link closes the finding


def test_review34b_envelope_up_front_and_ptx_count():
    """Review 34b: the curve is said to be the faster of two kernels where it is first shown (cells 0
    and 4, and the figure's legend), so the caveat after the knee is short; the issue-slot bound is
    said to rest on a PTX count (SASS was not checked), not stated as 'at most'."""
    nb = cells("04_sweep.ipynb")
    md = {c.get("id"): c.source for c in nb if c.cell_type == "markdown"}
    assert "at each K the faster of two kernels" in words(md["sweep-00"])
    # review 36b: cell 6 names the two kernels and keeps the faster; cell 4 no longer repeats it
    assert "keeps the faster at each K" in words(md["sweep-04"]) and "faster of two kernels" not in md["sweep-03z"]
    assert any('name="best of two kernels"' in c.source for c in nb if c.cell_type == "code")
    assert not any('name="sweep"' in c.source for c in nb if c.cell_type == "code")
    assert "a few percent at most" not in words(md["sweep-12"]) and "a few percent of the FMAs' cycles" not in words(md["sweep-12"])  # review 40b: the appendix's
    assert "B and P come from two kernels (below)" not in md["sweep-12"]
    assert "sweep-12b" not in md  # review 40b: the caveat cell is the appendix's


def test_review34b_the_roof_table_says_which_rows_it_skips():
    """Review 34b: the roof table jumps from K = 256 to K = 1024; the prose under it says so."""
    from rooflinelib.lessons.sweep_lesson import ROOF_TABLE_KS
    assert 256 in ROOF_TABLE_KS and 1024 in ROOF_TABLE_KS and not {384, 512, 768} & set(ROOF_TABLE_KS)
    # review 41b: the prose repeated the code cell's comment, which the table's cell keeps
    code = next(c.source for c in cells("04_sweep.ipynb") if c.cell_type == "code" and "roof_table(lab3.result)" in c.source)
    assert "# roof_table(lab3.result, ks=None) prints every K from 0 to 1024" in code


def test_review34b_the_knee_cell_gives_the_finding_then_one_labelled_hypothesis():
    text = _nb04_md("sweep-12")
    assert text.count("**Hypothesis:**") == 1 and "likely" not in text
    assert text.index("the knee is at 13.57") < text.index("**Hypothesis:**") < text.index("#the-corner-and-the-dip-unexplained")
