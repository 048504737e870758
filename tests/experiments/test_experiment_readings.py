"""The rows notebook 06 prints beside its measurements, read from the shipped H200 runs: each
number the notebook's prose interprets is in them, computed from the measurement.

The sentences this module once assembled are gone (issue 24: interpretations are prose in
markdown, with the recorded numbers put in; tests/notebooks/test_lessons_05.py and test_lessons_06.py check that prose)."""
import inspect

import pytest

from rooflinelib.experiments import pitfall_readings, recorded_experiments


def test_readings_assembles_no_sentences():
    public = [name for name, f in inspect.getmembers(pitfall_readings, inspect.isfunction)
              if f.__module__ == pitfall_readings.__name__ and not name.startswith("_")]
    assert public and all(name.endswith("_rows") for name in public)


def test_the_shipped_wrong_ceiling_rows_flip_the_verdict():
    rows = pitfall_readings.wrong_ceiling_rows(recorded_experiments()["wrong_ceiling"])
    bf16 = {r["roof"]: r for r in rows if r["dtype"] == "bf16"}
    assert bf16["fp32 FMA roof"]["side"] == "compute-bound" and bf16["fp32 FMA roof"]["fraction"] > 5
    assert bf16["bf16 tensor roof"]["side"] == "memory-bound"
    assert bf16["bf16 tensor roof"]["fraction"] == pytest.approx(0.63, abs=0.005)  # against its write mix


def test_the_shipped_sustained_rows_keep_the_microbenchmarks_around_the_windows():
    rows = pitfall_readings.sustained_rows(recorded_experiments()["sustained"], every_s=20)
    assert rows[0]["label"].startswith("microbenchmark, cool") and rows[-1]["label"].startswith("microbenchmark, hot")
    assert round(rows[0]["tflops"]) == 797 and all(r["elapsed_s"] is not None for r in rows[1:-1])


def test_the_shipped_race_rows_name_the_measured_winner_per_filter_length():
    rows = pitfall_readings.algorithm_sizes_rows(recorded_experiments()["algorithm_sizes"])
    assert [r["m"] for r in rows] == [256, 1024, 4096, 16384] and {r["winner"] for r in rows} == {"FFT"}
