"""The sentences the notebooks print after an experiment: computed from the measurement, so a
different outcome gives a different sentence, and the shipped H200 run says what it measured."""
import pytest

from rooflinelib.experiments import readings, recorded_experiments
from rooflinelib.experiments.record import Experiment, Variant

H200 = {"name": "NVIDIA H200"}


def experiment(name, rows, backend="numba", device=H200, **extra):
    """rows: (variant name, n_flops, n_bytes, median_s, extra dict)."""
    variants = tuple(Variant(n, f, b, s, 0.01, 10, True, dict(x)) for n, f, b, s, x in rows)
    return Experiment(name, name, backend, dict(device), "2026-11-30T00:00:00+00:00", variants, (), extra)


def softmax(three_s, fused_s, exp_per_s=None, copy_gbps=4000.0):
    n = 2 ** 24
    extra = {"predicted_speedup": 2.5, "copy_gbps": copy_gbps}
    if exp_per_s:
        extra.update(exp_per_s=exp_per_s, exps=n)
    return experiment("softmax", [("3-pass", 5.0 * n, 20.0 * n, three_s, {}),
                                  ("fused", 5.0 * n, 8.0 * n, fused_s, {})], **extra)


def test_softmax_agreement_and_both_ways_of_parting():
    bytes_fused = 8 * 2 ** 24 / 4000e9
    assert "Within 15%" in readings.softmax(softmax(2.5 * bytes_fused, bytes_fused))
    above = readings.softmax(softmax(3.0 * bytes_fused, bytes_fused))
    assert "measured 3.00x" in above and "more than the bytes predict" in above
    slow_exp = readings.softmax(softmax(1.2 * bytes_fused, bytes_fused, exp_per_s=2 ** 24 / (2 * bytes_fused)))
    assert "bound by its exps" in slow_exp
    fast_exp = readings.softmax(softmax(1.2 * bytes_fused, bytes_fused, exp_per_s=1e15))
    assert "not because of its exps" in fast_exp


def test_refined_softmax_uses_the_exp_rate_and_says_when_it_is_missing():
    bytes_fused = 8 * 2 ** 24 / 4000e9
    exp_bound = softmax(2.6 * bytes_fused, 2.1 * bytes_fused, exp_per_s=2 ** 24 / (2 * bytes_fused))
    text = readings.softmax_refined(exp_bound)
    assert "refined prediction 1.25x" in text and "did not record" not in text
    missing = readings.softmax_refined(softmax(3 * bytes_fused, bytes_fused))
    assert "not recorded" in missing and "did not record an exp rate" in missing


def traps_run(range_s, loop=True):
    def row(name, seconds, ffma, other):
        sass_loop = {"FFMA": ffma, "DFMA": 0, "all": ffma + other} if loop else None
        return (name, 1e12, 0.0, seconds, {"sass_loop": sass_loop} if loop else {})
    return experiment("traps", [row("promoted", 2.0, 128, 5), row("typed", 1.0, 128, 5),
                                row("range", range_s, 128, 81), row("while", 1.0, 128, 5)])


def test_trap_readings_set_each_rate_against_its_prediction():
    text = readings.traps(traps_run(1.7)).splitlines()
    assert "0.50 of 'typed'" in text[0] and "Predicted 0.50" in text[0]
    assert "what the model says, to 0%" in text[0]
    # 1/1.7 = 0.59 against 0.64: inside the tolerance, but the reading must say it is short
    assert "Predicted 0.64" in text[1] and "what the model says" not in text[1]
    assert "within 15% of the prediction, but 8% below it" in text[1]
    assert "not all of it" in text[1]
    assert "cost less than predicted" in readings.traps(traps_run(1.0)).splitlines()[1]
    assert "even more than predicted" in readings.traps(traps_run(2.5)).splitlines()[1]
    assert "did not show in this run" in readings.traps(traps_run(1.0, loop=False)).splitlines()[1]


def test_chains_reading_finds_where_the_rate_levels_off():
    def run(*rates):
        return experiment("chains", [(f"{c} chains", r, 0.0, 1.0, {"chains": c})
                                     for c, r in zip((1, 2, 4, 8), rates)])
    assert "levels off from 4 chains" in readings.chains(run(1, 2, 9.8, 10))
    assert "Still climbing" in readings.chains(run(1, 2, 4, 8))
    assert "More chains did not help" in readings.chains(run(10, 10, 10, 10))


def test_chains_reading_at_two_occupancies_on_a_gpu():
    def run(full, low, trap_s):
        device = dict(H200, sm_count=132, compute_capability="9.0", before={"sm_clock_mhz": 1980})
        peak = 132 * 128 * 2 * 1.98  # GFLOP/s
        steps = 495_000  # 1 ms at 1,980 MHz: 4.0 cycles a step
        rows = []
        for setting, warps, fractions in (("full occupancy", 16, full), ("one warp per scheduler", 1, low)):
            for c, f in zip((1, 2, 4, 8), fractions):
                rows.append((f"{c} chains, {setting}", f * peak * 1e9 * 1e-3, 0.0, 1e-3,
                             {"chains": c, "setting": setting, "warps_per_scheduler": warps,
                              "dependent_steps": steps, "trap": False}))
        sass = {"FFMA": 64, "IADD3": 65, "SEL": 64, "EXIT": 1}
        rows.append(("trap", 0.1 * peak * 1e9 * trap_s, 0.0, trap_s,
                     {"chains": 1, "setting": "full occupancy", "warps_per_scheduler": 16,
                      "dependent_steps": 4 * steps, "trap": True, "sass": sass}))
        return readings.chains(experiment("chains", rows, device=device)).splitlines()
    text = run((0.5, 0.667, 1.0, 1.0), (0.25, 0.5, 0.98, 1.0), 0.04)
    assert "every 4.0 cycles (0.250 of the peak)" in text[2] and "levels off at 4 chains" in text[2]
    assert "it fits, to 0%" in text[3]
    assert "3.0 instructions issued per FFMA" in text[4] and "cap it at 0.33" in text[4]
    assert "below even that" in text[4] and "code generation, not latency" in text[4]
    # a full-occupancy curve the stall model does not fit is called so
    assert "does not fit" in run((0.2, 0.3, 0.9, 1.0), (0.25, 0.5, 0.98, 1.0), 0.04)[3]
    # one chain at the peak with 16 warps: no model line to offer
    assert not any("A model in" in line for line in run((1.0, 1.0, 1.0, 1.0), (0.25, 0.5, 1, 1), 0.04))


def test_transpose_strided_launch_starved_cache_clocks_algorithm_and_knee():
    moved = 8.0 * 2 ** 26
    ladder = experiment("transpose", [("copy", 0, moved, 1.0, {}), ("naive", 0, moved, 8.0, {}),
                                      ("tiled", 0, moved, 3.0, {}), ("tiled + padded", 0, moved, 3.1, {})])
    assert "did not climb at tiled -> tiled + padded" in readings.transpose(ladder)
    # On a GPU, useful bytes per second fall 16x by stride 16 and no further: one 64-byte DRAM
    # unit (two sectors) per float.  A fall of only 8x is less than that model.
    rows = [(f"stride {s}", 1, b, 1.0, {"stride": s}) for s, b in ((1, 4.0), (16, 0.25), (32, 0.25))]
    assert "The transaction model holds" in readings.strided(experiment("strided", rows))
    assert "The transaction model holds" in readings.strided(experiment("strided", rows, backend="cpu"))
    sector_only = [(f"stride {s}", 1, b, 1.0, {"stride": s}) for s, b in ((1, 4.0), (8, 0.5), (32, 0.5))]
    assert "Less than the model" in readings.strided(experiment("strided", sector_only))
    launch = experiment("launch", [("small", 1, 1.0, 1e-5, {}), ("large", 1, 1e6, 1e-4, {})])
    assert "latency-bound" in readings.launch(launch)
    assert len(readings.launch(launch).splitlines()) == 1  # no dispatch or device rows: nothing more
    apart = experiment("launch", [("small", 1, 1.0, 8e-6, {"part": "kernel"}),
                                  ("large", 1, 1e6, 1e-4, {"part": "kernel"}),
                                  ("numba", 0, 0, 2e-5, {"part": "host dispatch", "library": "Numba-CUDA"}),
                                  ("graph", 0, 0, 5e-7, {"part": "device", "library": "CuPy graph"})])
    lines = readings.launch(apart).splitlines()
    assert "Numba-CUDA 20.0 us" in lines[1] and "0.50 us per kernel" in lines[2]
    assert "16x the device's cost" in lines[3] and "0.4x Numba's dispatch" in lines[3]
    starved = experiment("starved", [("1 task", 1.0, 1, 1.0, {}), ("16 tasks", 1.0, 1, 0.8, {})])
    assert "Little was lost" in readings.starved(starved)
    cache = experiment("cache", [("small", 0, 1.0, 1.0, {}), ("large", 0, 1.0, 1.02, {})])
    assert "No gain here" in readings.cache(cache)
    clocks = experiment("clocks", [("run 1", 1.0, 0, 1.0, {"sm_clock_mhz": 1980}),
                                   ("run 2", 1.0, 0, 1.2, {"sm_clock_mhz": 1650})])
    text = readings.clocks(clocks)
    assert "16.7% apart" in text and "1,650 and 1,980 MHz" in text and "It moved" in text
    race = experiment("algorithm", [("direct", 1, 1, 9.0, {"fraction_of_fp32_peak": 0.36,
                                                           "seconds_at_100_percent": 3.2}),
                                    ("FFT", 1, 1, 6.0, {})])
    assert "shortfall, not through the algorithm alone" in readings.algorithm(race)
    near = experiment("algorithm", [("direct", 1, 1, 9.0, {"fraction_of_fp32_peak": 0.9,
                                                          "seconds_at_100_percent": 8.1}),
                                    ("FFT", 1, 1, 6.0, {})])
    assert "even against the direct kernel at 100%" in readings.algorithm(near)
    assert "shows the bound" not in readings.algorithm(near)  # near its roof: an efficient kernel lost
    flipped = experiment("algorithm", [("direct", 1, 1, 1.0, {}), ("FFT", 1, 1, 2.0, {})])
    assert "order flips" in readings.algorithm(flipped)
    agreed = readings.knee({"intensity": 13.5, "k": 56}, 16.0, 64, 1)
    assert "consistent with the ridge" in agreed and "not a prediction" in agreed
    assert "part on this run" in readings.knee({"intensity": 4.0, "k": 16}, 16.0, 64, 5)
    assert "never turns" in readings.knee(None, 16.0, 64, None)


def test_the_shipped_h200_run_reads_as_measured():
    recorded = recorded_experiments()
    traps = readings.traps(recorded["traps"]).splitlines()
    # float64 promotion: 0.48 against the datasheet's 0.50; range: 0.56 against 0.64, which the
    # reading must not call agreement without saying how far short it is
    assert "the trap cost what the model says, to 4%" in traps[0], traps
    assert "0.56 of 'while'" in traps[1] and "12% below it" in traps[1], traps
    assert "64-byte unit" in readings.strided(recorded["strided"])
    cache = readings.cache(recorded["cache"])
    assert "2.2x the rate" in cache and "copy16" in cache and "most of the gain is the cache" in cache
    assert "The transaction model holds" in readings.strided(recorded["strided"])
    assert "did not record" not in readings.softmax_refined(recorded["softmax"])
    for name in ("chains", "softmax", "transpose", "launch", "starved", "overlap", "cache",
                 "transcendental", "strided", "algorithm", "clocks"):
        assert getattr(readings, name)(recorded[name]).strip(), name


def test_the_shipped_chains_read_latency_at_low_occupancy_and_the_trap_as_code():
    text = readings.chains(recorded_experiments()["chains"]).splitlines()
    # full occupancy: one chain at half the 66.9 TFLOP/s peak, levelling off from 4 chains
    assert text[0].startswith("Full occupancy (16 warps per scheduler)") and "66,908 GFLOP/s" in text[0]
    assert "1 chain 33,312 (0.50)" in text[0] and "levels off from 4 chains" in text[0], text
    assert "1 chain 16,409 (0.25)" in text[1] and "levels off from 4 chains" in text[1], text
    # one warp per scheduler: one dependent FFMA per ~4 cycles is the latency
    assert "every 4.1 cycles (0.245 of the peak)" in text[2] and "FFMA's latency" in text[2], text
    # the stall model is reported as a fit, not a cause
    assert "gives 0.50, 0.67, 1.00, 1.00 for 1, 2, 4, 8 chains" in text[3], text
    assert "it fits, to 1%" in text[3] and "not an explanation" in text[3], text
    # the old kernel: its SASS, and a step far longer than the latency
    assert "7,699 GFLOP/s" in text[4] and "6.0 instructions issued per FFMA" in text[4], text
    assert "64 FFMA, each beside one IADD3, IMAD.X" in text[4] and "139 cycles" in text[4], text
    assert text[4].endswith("code generation, not latency."), text


def test_the_shipped_launch_separates_the_device_from_the_host():
    text = readings.launch(recorded_experiments()["launch"]).splitlines()
    assert "The small add took 63.9 us (its repeats spread by 126%)" in text[0] and "latency-bound" in text[0]
    assert "Numba-CUDA 25.9 us, CuPy RawKernel 6.24 us, torch (fill_ on one float) 8.00 us" in text[1], text
    assert "0.64 us per kernel" in text[2], text
    assert "100x the device's cost" in text[3] and "2.5x Numba's dispatch" in text[3], text
    assert "the host's side of the launch, not the GPU's" in text[3], text


def test_the_shipped_algorithm_race_says_tuning_cannot_win_it():
    text = readings.algorithm(recorded_experiments()["algorithm"])
    assert "24x fewer FLOPs finished 16.3x sooner" in text and "at 8% of its roof" in text, text
    assert "(520.0 us, 1.35x the FFT's 384.1 us)" in text, text
    assert "shows the bound, not an efficient kernel losing" in text and "at most 12x" in text, text


def test_trap_ptx_reading_names_both_traps():
    from rooflinelib.experiments import traps
    ok, reason = traps.cuda_toolkit_available()
    if not ok:
        pytest.skip(reason)
    text = readings.trap_ptx().splitlines()
    assert "the trap is visible in PTX" in text[0]
    assert "48 integer compare/select/add instructions (48 of them 64-bit) beside 128 FMAs" in text[1]


def test_at_the_ridge_names_max_against_sum():
    # a sweep whose ends give P = 100 and B = 10 (ridge 10): at I = 10 it reached 85
    rows = [{"k": 0, "intensity": 0.0, "gflops": 0.0}, {"k": 8, "intensity": 2.0, "gflops": 20.0},
            {"k": 40, "intensity": 10.0, "gflops": 85.0}, {"k": 400, "intensity": 100.0, "gflops": 100.0}]
    text = readings.at_the_ridge(rows, 10.0)
    assert "K = 40" in text and "85% of its roof" in text and "max against sum" in text
    on_roof = [dict(r, gflops=100.0) if r["k"] == 40 else r for r in rows]
    assert "max against sum" not in readings.at_the_ridge(on_roof, 10.0)


def test_at_the_ridge_on_the_recorded_h200_sweep():
    import json
    from importlib import resources
    sweep = json.loads(resources.files("rooflinelib").joinpath("data/h200_sweep_numba.json").read_text())
    text = readings.at_the_ridge(sweep["rows"], sweep["ridge"])
    assert "K = 64" in text and "85% of its roof" in text
