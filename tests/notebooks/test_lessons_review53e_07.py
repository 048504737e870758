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


def test_58e_07_the_takeaway_treats_a_cap_as_a_bound_the_stalls_confirm():
    """The naive GEMM down a column ran at under half its tightest cap (the issue cap), its warps waiting
    on global loads (long-scoreboard stalls): the tightest cap is an upper bound, not by itself the limit."""
    from rooflinelib.profiling import gemm_targets
    recorded = gemm_targets.recorded_counters()
    naive = gemm_targets.recorded_rows(recorded)["naive, threadIdx.x -> row"]
    fp32 = 65_979.0  # the recorded run's Lab 1 fp32 roof, printed in section 6
    _, roof_ffmas, _ = gemm_targets.per_sm_clock(recorded, 32_814.0, fp32)  # the shared roof, printed there too
    share_of_cap = naive["gflops"] / fp32 / gemm_targets.issue_cap(naive["instructions_per_ffma"], roof_ffmas)
    assert share_of_cap < 0.5
    stalls = recorded["ncu"]["stalls"]["gemm_naive_rows_kernel"]
    waits = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
    assert stalls[waits] > 10 * stalls["smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"]
    take = _md("## What to take away")
    assert "the tightest names the limit" not in take
    assert ("Each cap bounds the kernel; the stall reasons show whether the tightest binds or what the kernel "
            "waited on instead.") in take


def test_58e_07_the_gemm_times_are_event_timed_and_the_counts_come_from_a_second_run():
    table = _md("### The same kernels on the H200")
    assert "Timed and counted by Nsight Compute" not in table
    assert "Timed with CUDA events, counted by Nsight Compute" in table
    assert "(ncu: *wavefront*)" in _md("Five terms")
