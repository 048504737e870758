"""The sentences notebook 06 prints after an experiment: computed from the measurement, so a
different outcome gives a different sentence, and the shipped H200 run says what it measured."""

from rooflinelib.experiments import readings, recorded_experiments
from rooflinelib.experiments.record import Experiment, Variant

H200 = {"name": "NVIDIA H200"}


def experiment(name, rows, backend="numba", device=H200, **extra):
    """rows: (variant name, n_flops, n_bytes, median_s, extra dict)."""
    variants = tuple(Variant(n, f, b, s, 0.01, 10, True, dict(x)) for n, f, b, s, x in rows)
    return Experiment(name, name, backend, dict(device), "2026-11-30T00:00:00+00:00", variants, (), extra)


def test_strided_launch_starved_cache_clocks_and_algorithm():
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


def test_the_shipped_h200_run_reads_as_measured():
    recorded = recorded_experiments()
    assert "64-byte unit" in readings.strided(recorded["strided"])
    cache = readings.cache(recorded["cache"])
    assert "2.2x the rate" in cache and "copy16" in cache and "most of the gain is the cache" in cache
    assert "The transaction model holds" in readings.strided(recorded["strided"])
    for name in ("launch", "starved", "overlap", "cache",
                 "transcendental", "strided", "algorithm", "clocks"):
        assert getattr(readings, name)(recorded[name]).strip(), name


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


