"""benchmarks/browser_vs_alone.py's judgement of each figure (issue 25's target: a browser run's
live CPU figure within 15% of the same cell run alone, or flagged noisy by the browser run)."""
from support.scripts import load_script


def _script():
    return load_script("benchmarks/browser_vs_alone.py", "browser_vs_alone")


def _figure(name, value, noisy=False):
    return {"figure": name, "value": value, "unit": "GB/s", "noisy": noisy, "noise": "lost its cores" if noisy else ""}


def test_a_figure_holds_within_15_percent_or_when_the_browser_run_flagged_it():
    bva = _script()
    alone = [_figure("Lab 1: dram", 10.0), _figure("Lab 1: fp32", 100.0), _figure("Lab 1: fp64", 50.0),
             _figure("experiment softmax: fused", 1.0)]
    browser = [_figure("Lab 1: dram", 8.6), _figure("Lab 1: fp32", 80.0), _figure("Lab 1: fp64", 20.0, noisy=True),
               _figure("experiment cache: extra", 3.0)]
    rows = {r["figure"]: r for r in bva.compare(alone, browser)}
    assert rows["Lab 1: dram"]["ratio"] == 0.86 and rows["Lab 1: dram"]["holds"]
    assert rows["Lab 1: fp32"]["within_15_percent"] is False and rows["Lab 1: fp32"]["holds"] is False
    fp64 = rows["Lab 1: fp64"]
    assert fp64["ratio"] == 0.4 and fp64["browser_noisy"] and fp64["holds"] and fp64["browser_noise"] == "lost its cores"
    # a figure only one run produced cannot be compared: it does not hold
    assert rows["experiment softmax: fused"]["browser"] is None and not rows["experiment softmax: fused"]["holds"]
    assert rows["experiment cache: extra"]["alone"] is None and not rows["experiment cache: extra"]["holds"]
    assert list(rows)[:4] == ["Lab 1: dram", "Lab 1: fp32", "Lab 1: fp64", "experiment softmax: fused"]
