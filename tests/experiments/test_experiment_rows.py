"""The numbers notebooks 03 and 04 print (rooflinelib.experiments.rows): the accounting behind
each, on made-up runs where the answer is known and on the recorded H200 runs the prose quotes."""
import json
from importlib import resources

import pytest

from rooflinelib.experiments import recorded_experiments, rows
from rooflinelib.experiments.record import Experiment, Variant
from rooflinelib.profiling.recorded import recorded_profiles

H200 = {"name": "NVIDIA H200", "sm_count": 132, "compute_capability": "9.0", "before": {"sm_clock_mhz": 1980}}


def experiment(name, variants, device=H200, backend="numba", **extra):
    """variants: (name, n_flops, n_bytes, median_s, extra dict)."""
    made = tuple(Variant(n, f, b, s, 0.01, 10, True, dict(x)) for n, f, b, s, x in variants)
    return Experiment(name, name, backend, dict(device), "2026-12-01T00:00:00+00:00", made, (), extra)


def recorded_sweep():
    return json.loads(resources.files("rooflinelib").joinpath("data/h200_sweep_numba.json").read_text())


def by_variant(table):
    return {r["variant"]: r for r in table}


def test_cycles_per_issue_divides_a_warps_step_among_the_warps_of_its_scheduler():
    # 16 warps per scheduler, one chain each, 1,000 steps in 1e-5 s at 1,600 MHz: one warp's
    # steps are 16 cycles apart, and the scheduler issued one FMA per cycle (the peak).  The old
    # reading set the 16 against the FMA's latency.
    full = ("1 chain, full occupancy", 1.0, 0.0, 1e-5,
            {"chains": 1, "warps_per_scheduler": 16, "dependent_steps": 1000, "setting": "full occupancy"})
    alone = ("1 chain, one warp per scheduler", 1.0, 0.0, 2.5e-6,
             {"chains": 1, "warps_per_scheduler": 1, "dependent_steps": 1000, "setting": "one warp per scheduler"})
    four = ("4 chains, one warp per scheduler", 1.0, 0.0, 2.5e-6,
            {"chains": 4, "warps_per_scheduler": 1, "dependent_steps": 1000, "setting": "one warp per scheduler"})
    run = experiment("chains", [full, alone, four], device=dict(H200, before={"sm_clock_mhz": 1600}))
    got = by_variant(rows.chains_rows(run))
    assert got[full[0]]["cycles_per_step"] == pytest.approx(16.0)
    assert got[full[0]]["cycles_per_issue"] == pytest.approx(1.0)
    assert got[alone[0]]["cycles_per_step"] == got[alone[0]]["cycles_per_issue"] == pytest.approx(4.0)
    assert got[four[0]]["cycles_per_issue"] == pytest.approx(1.0)  # four chains: four FMAs a step
    # the stall model uses the one-warp, one-chain step as its latency, for full-occupancy rows only
    assert got[full[0]]["model"] == pytest.approx(0.5) and got[alone[0]]["model"] is None


def test_the_recorded_chains_the_notebook_quotes():
    got = by_variant(rows.chains_rows(recorded_experiments()["chains"]))
    # the code-generation trap is named as the slow variant it is, not by the compiler's doing
    assert not any("NVVM" in name for name in got)
    trap = got["1 chain, 256-step range loop (slow variant), full occupancy"]
    # 139 cycles between one warp's steps is 16 warps' turns: 8.7 cycles per FFMA per scheduler,
    # above the 6.0 instructions its SASS issues per FFMA
    assert round(trap["cycles_per_step"]) == 139
    assert trap["cycles_per_issue"] == pytest.approx(8.69, abs=0.01)
    assert trap["issued_per_ffma"] == pytest.approx(6.0, abs=0.05) and trap["fraction"] == pytest.approx(0.115, abs=0.005)
    assert got["1 chain, one warp per scheduler"]["cycles_per_step"] == pytest.approx(4.08, abs=0.01)
    assert got["1 chain, full occupancy"]["cycles_per_issue"] == pytest.approx(2.01, abs=0.01)
    full = [got[f"{c}, full occupancy"] for c in ("1 chain", "2 chains", "4 chains", "8 chains")]
    assert [round(r["model"], 2) for r in full] == [0.5, 0.67, 1.0, 1.0]
    assert [round(r["fraction"], 2) for r in full] == [0.5, 0.66, 0.99, 0.99]
    text = rows.chains_table(recorded_experiments()["chains"])
    assert "cycles/FMA (scheduler)" in text and "8.69" in text


def test_a_warps_step_is_the_latency_only_for_one_chain_at_one_warp():
    # With one warp per scheduler, 8 chains issue 8 FMAs a step: the step is their issue time
    # (8.47 cycles on the recorded H200), not the FMA's latency (4.08, the one-chain row).
    got = by_variant(rows.chains_rows(recorded_experiments()["chains"]))
    one, eight = got["1 chain, one warp per scheduler"], got["8 chains, one warp per scheduler"]
    assert eight["cycles_per_step"] == pytest.approx(8 * eight["cycles_per_issue"])
    assert eight["cycles_per_step"] > 2 * one["cycles_per_step"]


def test_chains_on_a_cpu_have_no_cycles_and_scale_to_the_best_rate():
    cpu = experiment("chains", [("1 chain", 1e9, 0.0, 1.0, {"chains": 1}), ("4 chains", 4e9, 0.0, 1.0, {"chains": 4})],
                     device={"name": "CPU: AMD EPYC"}, backend="cpu")
    got = rows.chains_rows(cpu)
    assert [r["fraction"] for r in got] == [0.25, 1.0]
    assert all(r["cycles_per_step"] is None and r["cycles_per_issue"] is None and r["model"] is None for r in got)
    assert rows.chains_table(cpu).count(" - ") >= 2
    assert "of best" in rows.chains_table(cpu) and "of peak" not in rows.chains_table(cpu)
    assert "of peak" in rows.chains_table(recorded_experiments()["chains"])


def test_trap_rows_against_their_predictions():
    got = {r["pair"]: r for r in rows.trap_rows(recorded_experiments()["traps"])}
    assert round(got["float64 promotion"]["measured"], 2) == 0.48 and got["float64 promotion"]["predicted"] == pytest.approx(0.5, abs=0.01)
    assert round(got["range bookkeeping"]["measured"], 2) == 0.56
    assert got["range bookkeeping"]["predicted"] == pytest.approx((128 / 209) / (128 / 133), abs=1e-6)
    unknown = experiment("traps", [(n, 1e12, 0.0, s, {}) for n, s in
                                   (("promoted", 2.0), ("typed", 1.0), ("range", 1.5), ("while", 1.0))],
                         device={"name": "Some GPU"})
    assert all(r["predicted"] is None and r["basis"] == "-" for r in rows.trap_rows(unknown))


def test_the_recorded_sweep_is_two_kernels_and_the_envelope_keeps_the_faster():
    sweep = recorded_sweep()
    curves = rows.sweep_curves(sweep)
    assert set(curves) == {"sweep", "sweep_pipelined"}
    assert all(len(c) == len(sweep["rows"]) for c in curves.values())
    for row, a, b in zip(sweep["rows"], curves["sweep"], curves["sweep_pipelined"]):
        assert row["gflops"] == max(a["gflops"], b["gflops"])
    kept = dict(rows.kept_kernels(sweep))
    assert {k for k, v in kept.items() if v == "sweep"} == {0, 1, 2, 4, 8, 16, 24, 32}
    assert min(k for k, v in kept.items() if v == "sweep_pipelined") == 40


def test_the_knee_and_the_85_percent_belong_to_the_envelope_and_are_read_per_kernel():
    summary = {r["curve"]: r for r in rows.sweep_summary_rows(recorded_sweep())}
    envelope = summary["envelope"]
    assert round(envelope["ridge"], 2) == 15.21 and envelope["knee_k"] == 56 and round(envelope["at_ridge"], 2) == 0.85
    one = summary["sweep"]
    assert one["knee_k"] == 48 and round(one["knee"], 2) == 12.59 and round(one["at_ridge"], 2) == 0.79
    assert summary["sweep_pipelined"]["knee_k"] == 56 and round(summary["sweep_pipelined"]["at_ridge"], 2) == 0.85
    assert "envelope    " in rows.sweep_summary_table(recorded_sweep())


def test_a_one_kernel_sweep_is_one_curve():
    made = [{"k": k, "intensity": k / 4, "gbps": 10.0 if k <= 40 else 400.0 / k,
             "gflops": min(100.0, 2.5 * k)} for k in (0, 8, 16, 40, 80, 160)]
    result = {"rows": made, "details": [{"kernel": f"cpu_sweep<{r['k']}>",
                                         "configs_tried": [{"kernel": f"cpu_sweep<{r['k']}>", "gbps": r["gbps"],
                                                            "gflops": r["gflops"]}]} for r in made]}
    assert list(rows.sweep_curves(result)) == ["cpu_sweep"]
    summary = rows.sweep_summary_rows(result)
    assert [r["curve"] for r in summary] == ["the sweep"]
    assert summary[0]["ridge"] == pytest.approx(10.0) and summary[0]["ridge_k"] == 40
    assert summary[0]["at_ridge"] == pytest.approx(1.0)


def test_softmax_rows_on_the_recorded_run():
    run = recorded_experiments()["softmax"]
    got = by_variant(rows.softmax_rows(run))
    assert round(got["3-pass"]["of_bound"], 2) == 0.77 and round(got["fused"]["of_bound"], 2) == 0.92
    assert got["fused"]["exp_s"] == pytest.approx(16.2e-6, abs=0.1e-6)
    ratios = rows.softmax_ratios(run)
    assert ratios["predicted"] == 2.5 and ratios["refined"] == pytest.approx(2.5) and round(ratios["measured"], 2) == 2.99
    assert "measured 2.99x" in rows.softmax_table(run)


def test_softmax_bound_by_its_exps_when_the_exp_rate_is_low():
    n = 2 ** 20
    run = experiment("softmax", [("3-pass", 5.0 * n, 20.0 * n, 1e-3, {}), ("fused", 5.0 * n, 8.0 * n, 1e-3, {})],
                     predicted_speedup=2.5, copy_gbps=1000.0, exp_per_s=n / 1e-3, exps=n)
    got = by_variant(rows.softmax_rows(run))
    assert got["fused"]["bound_s"] == pytest.approx(1e-3)  # the exps: 1 ms, against 8 MiB / 1 TB/s
    # both versions wait on the same exps, so the refined bound predicts no gain from fusion
    assert rows.softmax_ratios(run)["refined"] == pytest.approx(1.0)
    assert "-" in rows.softmax_table(experiment(
        "softmax", [("3-pass", 1.0, 20.0, 1.0, {}), ("fused", 1.0, 8.0, 1.0, {})], predicted_speedup=2.5, copy_gbps=1.0))


def test_three_pass_time_split_puts_the_launches_at_a_small_part_of_the_shortfall():
    split = rows.time_split(recorded_profiles()["softmax 3-pass"])
    assert split["kernels"] == 3
    assert split["between_s"] == pytest.approx(split["median_s"] - split["kernel_s"])
    # the shortfall notebook 04 explains: the 3-pass softmax's time past its bytes at copy speed
    three = by_variant(rows.softmax_rows(recorded_experiments()["softmax"]))["3-pass"]
    shortfall = three["measured_s"] - three["bound_s"]
    assert 0 < split["between_s"] < 0.15 * shortfall
    assert split["dram_bytes"] / split["counted_bytes"] == pytest.approx(0.973, abs=0.005)
    assert split["kernel_gbps"] == pytest.approx(split["dram_bytes"] / split["kernel_s"] / 1e9)
    text = rows.time_split_table(recorded_profiles()["softmax 3-pass"])
    assert f"{split['kernel_s'] * 1e6:,.1f}" in text and f"{split['between_s'] * 1e6:,.1f}" in text and "0.973" in text


def test_transpose_rows_as_fractions_of_the_copy():
    got = by_variant(rows.transpose_rows(recorded_experiments()["transpose"]))
    assert [round(got[v]["of_copy"], 2) for v in ("naive", "tiled", "tiled + padded")] == [0.12, 0.4, 0.82]
    assert "82%" in rows.transpose_table(recorded_experiments()["transpose"])
