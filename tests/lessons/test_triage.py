"""The pitfalls triage tree: each pitfall's fingerprint leads to that pitfall, in a sound order."""
import pytest

from rooflinelib.core.model import Roofline
from rooflinelib.lessons.triage import (KernelFacts, NUMBER_FIELDS, BOOLEAN_FIELDS, PITFALLS,
                                        facts_from_inputs, triage, triage_report)

# One set of facts per pitfall, each what notebook 06's demonstration of it shows.
FINGERPRINTS = {
    1: KernelFacts(fraction_of_roof=0.003, side="memory", duration_us=3.0),
    2: KernelFacts(fraction_of_roof=0.55, side="ridge", serial_phases=True),
    3: KernelFacts(fraction_of_roof=2.5, side="memory", l2_hit_rate=0.95),
    4: KernelFacts(fraction_of_roof=0.3, side="compute", matrix_instructions=True, roof_is_matrix=False),
    5: KernelFacts(fraction_of_roof=0.2, side="compute", transcendental_share=0.6),
    6: KernelFacts(fraction_of_roof=0.9, side="memory", bytes_ratio=8.0),
    7: KernelFacts(fraction_of_roof=0.98, side="compute", cheaper_algorithm=True),
    8: KernelFacts(fraction_of_roof=0.7, side="compute", clock_ratio=0.75),
    9: KernelFacts(fraction_of_roof=0.9, side="compute", communication_share=0.7),
}


def test_there_are_nine_pitfalls():
    assert sorted(PITFALLS) == list(range(1, 10))


@pytest.mark.parametrize("pitfall", sorted(FINGERPRINTS))
def test_each_fingerprint_names_its_pitfall(pitfall):
    diagnosis = triage(FINGERPRINTS[pitfall])
    assert pitfall in diagnosis.pitfalls
    assert diagnosis.likely.pitfall == pitfall


def test_cache_resident_kernel_above_its_hbm_roof_names_the_cache_before_counting():
    # Above the DRAM roof with a 95% L2 hit rate: the cache explains the point, so the cache
    # comes first; recounting (GB against GiB) is what is left only if it does not.
    diagnosis = triage(FINGERPRINTS[3])
    assert "lives in cache" in diagnosis.likely.cause
    assert "GiB" not in diagnosis.likely.next_step
    # review 7d, C06-4: at 250% of the roof the 5% the L2 missed are 12.5% of it: the hit rate
    # explains the point, so no "the cache does not fully explain" line follows
    assert diagnosis.pitfalls == [3]
    assert "cache does not fully explain" not in diagnosis.text()
    assert triage(KernelFacts(fraction_of_roof=2.02, side="memory", l2_hit_rate=0.997)).pitfalls == [3]


def test_a_point_the_hit_rate_cannot_explain_adds_a_recount():
    # 400% of the DRAM roof with 60% served by the L2: the 40% it missed alone are 160% of the
    # roof, which no hit rate explains, so recounting follows the cache
    diagnosis = triage(KernelFacts(fraction_of_roof=4.0, side="memory", l2_hit_rate=0.6))
    assert diagnosis.pitfalls == [3, 6]
    assert "cache does not fully explain" in diagnosis.findings[1].cause
    assert "the 40% of its bytes the L2 missed alone would be 160% of it" in diagnosis.findings[1].evidence
    # the edge: the missed bytes at the roof's own tolerance are explained, just past it are not
    assert triage(KernelFacts(fraction_of_roof=2.0, side="memory", l2_hit_rate=0.5)).pitfalls == [3]
    assert triage(KernelFacts(fraction_of_roof=2.2, side="memory", l2_hit_rate=0.5)).pitfalls == [3, 6]


def test_above_the_roof_without_a_cache_is_a_counting_error_first():
    diagnosis = triage(KernelFacts(fraction_of_roof=2.5, side="memory", l2_hit_rate=0.2))
    assert diagnosis.likely.pitfall == 6 and "above its own roof" in diagnosis.likely.cause
    assert 3 not in diagnosis.pitfalls
    compute = triage(KernelFacts(fraction_of_roof=1.5, side="compute", l2_hit_rate=0.95))
    assert compute.likely.pitfall == 6 and "above its own roof" in compute.likely.cause


def test_wasted_bytes_at_the_roof_is_never_called_bandwidth_optimal():
    diagnosis = triage(FINGERPRINTS[6])
    assert diagnosis.likely.pitfall == 6
    text = diagnosis.text()
    assert "optimal" not in text
    assert "bytes it does not need" in diagnosis.findings[-1].cause
    assert "8x the analytic bytes" in diagnosis.findings[-1].evidence


def test_too_few_blocks_is_pitfall_one():
    diagnosis = triage(KernelFacts(fraction_of_roof=0.02, side="compute", blocks=2, sm_count=132))
    assert diagnosis.likely.pitfall == 1
    assert "2 blocks for 132 SMs" in diagnosis.likely.evidence


def test_low_occupancy_is_pitfall_two_only_below_the_roof():
    low = KernelFacts(fraction_of_roof=0.4, side="memory", occupancy=0.1)
    assert triage(low).likely.pitfall == 2
    at_roof = KernelFacts(fraction_of_roof=0.9, side="memory", occupancy=0.1)
    assert 2 not in triage(at_roof).pitfalls


def test_vector_kernel_against_matrix_roof_is_pitfall_four():
    facts = KernelFacts(fraction_of_roof=0.05, side="memory", matrix_instructions=False, roof_is_matrix=True)
    assert triage(facts).likely.pitfall == 4
    assert "vector kernel" in triage(facts).likely.cause


def test_launch_bound_outranks_everything_inside_the_kernel():
    facts = KernelFacts(fraction_of_roof=0.01, duration_us=2.0, occupancy=0.05, bytes_ratio=4.0)
    assert triage(facts).pitfalls[0] == 1
    assert set(triage(facts).pitfalls) == {1, 2, 6}


def test_interconnect_outranks_the_kernel():
    facts = KernelFacts(communication_share=0.5, duration_us=5.0)
    assert triage(facts).pitfalls == [9, 1]


def test_the_launch_finding_quotes_the_recorded_dispatch_and_device_cost():
    text = triage(KernelFacts(duration_us=5.0)).text()
    # the figures of the recorded H200 run, host and device apart, never a typed round figure
    assert "host's dispatch of one launch from Python (6.2-25.9 us per launch" in text, text
    assert "recorded on NVIDIA H200 on 2026-12-01" in text and "device's own cost is 0.64 us" in text


def test_thresholds_are_edges():
    assert 1 not in triage(KernelFacts(duration_us=10.0)).pitfalls
    assert 1 in triage(KernelFacts(duration_us=9.99)).pitfalls
    assert 6 not in triage(KernelFacts(bytes_ratio=1.49)).pitfalls
    assert 6 in triage(KernelFacts(bytes_ratio=1.5)).pitfalls


def test_no_fingerprint_falls_back_to_the_decision_table():
    memory = triage(KernelFacts(fraction_of_roof=0.9, side="memory"))
    assert memory.likely.pitfall is None
    # without the profiler's byte count, "optimal" would be a guess
    assert memory.likely.cause == "memory-bound and at the bandwidth roof"
    assert "fewer bytes" in memory.likely.next_step
    known = triage(KernelFacts(fraction_of_roof=0.9, side="memory", bytes_ratio=1.0))
    assert known.likely.cause == "memory-bound, at the bandwidth roof with no extra bytes"
    compute = triage(KernelFacts(fraction_of_roof=0.9, side="compute"))
    assert "instruction mix" in compute.likely.next_step
    far = triage(KernelFacts(fraction_of_roof=0.2, side="compute"))
    assert "does not model" in far.likely.cause
    assert "duration_us" in far.missing and "occupancy" in far.missing
    # review 7d, C06-6: the text names the facts by the triage form's labels, not by field name
    text = far.text()
    assert "duration_us" not in text and "sm_count" not in text and "l2_hit_rate" not in text
    assert f"Facts that would sharpen this: {NUMBER_FIELDS['duration_us']}; {NUMBER_FIELDS['blocks']}; " in text
    assert BOOLEAN_FIELDS["matrix_instructions"].rstrip("?") in text


def test_unplaced_kernel_asks_for_a_measurement():
    diagnosis = triage(KernelFacts())
    assert "not placed yet" in diagnosis.likely.cause
    assert diagnosis.missing[0] == "fraction_of_roof"


def test_a_kernel_at_its_roof_keeps_the_lever_next_to_the_pitfall():
    diagnosis = triage(FINGERPRINTS[7])
    assert diagnosis.likely.pitfall == 7
    assert diagnosis.findings[-1].pitfall is None
    assert "instruction mix" in diagnosis.findings[-1].next_step


def test_placed_computes_fraction_and_side_from_a_measurement():
    # the course's interview question: 4e11 FLOPs, 2e10 bytes, 12 TFLOP/s on P = 60 TFLOP/s,
    # B = 3 TB/s. I = 20 sits on the ridge, at 20% of the roof.
    roofline = Roofline(60_000, 3_000)
    facts = KernelFacts.placed(4e11 / 2e10, 12_000, roofline)
    assert facts.side == "ridge"
    assert facts.fraction_of_roof == pytest.approx(0.2)
    assert "does not model" in triage(facts).likely.cause


@pytest.mark.parametrize("kwargs, message", [
    (dict(occupancy=1.5), "occupancy: must be a number from 0 to 1"),
    (dict(l2_hit_rate=-0.1), "l2_hit_rate: must be a number from 0 to 1"),
    (dict(duration_us=0), "duration_us: must be positive"),
    (dict(fraction_of_roof=float("nan")), "fraction_of_roof: must be a finite number"),
    (dict(blocks=0), "blocks: must be a whole number of at least 1"),
    (dict(blocks=2.5), "blocks: must be a whole number"),
    (dict(serial_phases="yes"), "serial_phases: must be True, False or None"),
    (dict(side="left"), "side: must be 'memory', 'ridge' or 'compute'"),
])
def test_bad_facts_are_one_line_errors(kwargs, message):
    with pytest.raises(ValueError) as info:
        KernelFacts(**kwargs)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_form_values_become_facts():
    values = {name: "" for name in NUMBER_FIELDS}
    values.update({name: "unknown" for name in BOOLEAN_FIELDS})
    values.update(duration_us="2**2", blocks="2", sm_count="132", serial_phases="no", side="memory",
                  fraction_of_roof="12/60")
    facts = facts_from_inputs(values)
    assert facts.duration_us == 4.0 and facts.blocks == 2 and facts.serial_phases is False
    assert facts.fraction_of_roof == pytest.approx(0.2) and facts.occupancy is None


@pytest.mark.parametrize("values, message", [
    ({"duration_us": "__import__('os')"}, "duration_us: names and calls are not allowed"),
    ({"blocks": "2.5"}, "blocks: must be a whole number"),
    ({"occupancy": "3"}, "occupancy: must be a number from 0 to 1"),
    ({"serial_phases": "maybe"}, "serial_phases: answer yes, no or unknown"),
    ({"favourite_colour": "red"}, "favourite_colour: not a fact the triage knows"),
    ({"duration_us": "9**9**9**9"}, "duration_us: exponent"),
])
def test_bad_form_values_give_one_line_reports(values, message):
    report = triage_report(values)
    assert report.startswith("Cannot triage yet: " + message), report
    assert "\n" not in report


def test_report_text_names_cause_evidence_and_next_step():
    text = triage_report({"duration_us": "3", "fraction_of_roof": "0.003", "side": "memory"})
    lines = text.splitlines()
    assert lines[0].startswith("Likely cause: Pitfall 1 (a short or starved kernel never reaches either roof)")
    assert "because it runs for 3 us" in lines[1]
    assert lines[2].lstrip().startswith("next step: Batch the work")


def test_triage_rejects_other_objects():
    with pytest.raises(ValueError, match="facts: expected KernelFacts"):
        triage({"duration_us": 3})


# --- issue 24 item 4.6 and issue 25 item 6: the lever fits the side and the machine ----------

GPU_WORDS = ("CUDA", "occupancy", "shared memory", "warp", "SM", "coalesc", "grid", "async copies")


@pytest.mark.parametrize("target", ["gpu", "cpu"])
def test_a_memory_side_kernel_below_its_roof_is_not_told_to_overlap(target):
    # The 3-pass softmax at I = 0.25 against a ridge of 15.4, at 60% of its bandwidth roof: the
    # old ridge branch told it "both roofs are close, or overlap is incomplete ... Overlap loads
    # with math", but there is next to no math to overlap with.
    facts = KernelFacts.placed(0.25, 0.6 * 0.25 * 4_281, Roofline(66_000, 4_281))
    assert facts.side == "memory" and facts.fraction_of_roof == pytest.approx(0.6)
    likely = triage(facts, target).likely
    assert "overlap is incomplete" not in likely.cause
    assert not likely.next_step.lower().startswith("overlap")
    assert "memory-bound" in likely.cause and "bandwidth roof" in likely.evidence
    assert "access mix" in likely.next_step


def test_a_compute_side_kernel_below_its_roof_gets_the_compute_lever():
    likely = triage(KernelFacts(fraction_of_roof=0.6, side="compute")).likely
    assert "overlap is incomplete" not in likely.cause and "ILP" in likely.next_step


def test_only_a_kernel_at_the_ridge_is_told_to_overlap():
    likely = triage(KernelFacts(fraction_of_roof=0.6, side="ridge")).likely
    assert likely.cause == "both roofs are close, or overlap is incomplete"
    assert likely.next_step.startswith("Overlap loads with math")


@pytest.mark.parametrize("facts", [
    KernelFacts(fraction_of_roof=0.6, side="memory"), KernelFacts(fraction_of_roof=0.9, side="memory"),
    KernelFacts(fraction_of_roof=0.6, side="compute"), KernelFacts(fraction_of_roof=0.9, side="compute"),
    KernelFacts(fraction_of_roof=0.6, side="ridge"), KernelFacts(fraction_of_roof=0.1, side="memory"),
    KernelFacts(fraction_of_roof=0.5, side="memory", duration_us=3.0),
    KernelFacts(fraction_of_roof=0.5, side="compute", transcendental_share=0.5),
    KernelFacts(fraction_of_roof=0.5, side="ridge", serial_phases=True),
    KernelFacts(fraction_of_roof=2.0, side="memory", l2_hit_rate=0.9),
])
def test_cpu_code_gets_cpu_advice(facts):
    diagnosis = triage(facts, "cpu")
    text = diagnosis.text()
    for word in GPU_WORDS:
        assert word not in text, (word, text)
    assert not set(diagnosis.missing) & {"blocks", "sm_count", "occupancy", "matrix_instructions"}


def test_triage_target_is_checked():
    with pytest.raises(ValueError, match="target: must be 'gpu' or 'cpu'"):
        triage(KernelFacts(), "tpu")


def test_serial_phases_advice_fits_two_kernels_as_well_as_one():
    # review 9d T6-1: notebook 06 feeds this branch two kernels (a copy, then the arithmetic),
    # whose fix is fusion; "double-buffer the next tile" fits only phases inside one kernel
    found = triage(KernelFacts(fraction_of_roof=0.51, side="ridge", serial_phases=True)).likely
    assert found.pitfall == 2
    assert "fuse a load kernel and a compute kernel into one" in found.next_step
    assert "inside one kernel, double-buffer" in found.next_step
    assert "separate kernels, or barriers with no prefetch" in found.evidence
    assert BOOLEAN_FIELDS["serial_phases"] == "loads and math in turn, not overlapped?"
    assert "barrier" not in BOOLEAN_FIELDS["serial_phases"]
