"""`roofline plot`, run as a user runs it: the console script in a subprocess.

Also the pieces it stands on: parsing of "name, flops, bytes[, achieved_gflops]" and the
placement record that --json prints.
"""
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rooflinelib import Roofline, get_machine
from rooflinelib.core.placement import (PLACEMENT_KEYS, KernelPoint, parse_kernel_spec, place,
                                        verdict_phrase)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).with_name("roofline")
# The console script when the package is installed (pip install -e .), else the module.
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "rooflinelib.cli"]

LAB2 = ["plot", "--peak-gflops", "78500", "--peak-gbps", "4650"]
MY_SOFTMAX = "my_softmax, 5*2**24, 8*2**24, 410"


def roofline(*args, command=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run((command or COMMAND) + list(args), capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env=env)


def assert_one_line_error(result, field):
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert field in lines[0], lines[0]
    assert result.stdout == ""


# --- the console script ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_json():
    result = roofline(*LAB2, "--demo-kernels", "--kernel", MY_SOFTMAX, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_json_has_exactly_the_documented_shape(demo_json):
    assert set(demo_json) == {"machine", "kernels"}
    assert set(demo_json["machine"]) == {"peak_gflops", "peak_gbps", "ridge"}
    for kernel in demo_json["kernels"]:
        assert tuple(kernel) == PLACEMENT_KEYS
        assert kernel["side"] in ("memory", "compute", "ridge")


def test_json_machine_values(demo_json):
    machine = demo_json["machine"]
    assert machine["peak_gflops"] == 78500
    assert machine["peak_gbps"] == 4650
    assert machine["ridge"] == pytest.approx(78500 / 4650)


def test_json_demo_kernels_match_the_hand_derived_intensities(demo_json):
    kernels = {k["name"]: k for k in demo_json["kernels"]}
    assert len(kernels) == 7
    assert kernels["vector add"]["intensity"] == pytest.approx(1 / 12)
    assert kernels["sum reduction"]["intensity"] == pytest.approx(0.25, rel=1e-6)
    assert kernels["fused softmax"]["intensity"] == pytest.approx(0.625)
    assert kernels["GEMM fp32 N=8192"]["intensity"] == pytest.approx(1365.33, abs=0.01)
    assert kernels["fused attention bf16 s=8192"]["intensity"] == pytest.approx(4136)
    # roof = min(P, I*B) and the side follows the ridge (16.9 FLOP/byte here).
    assert kernels["vector add"]["roof_gflops"] == pytest.approx(4650 / 12)
    assert kernels["GEMM fp32 N=8192"]["roof_gflops"] == 78500
    assert [k["side"] for k in demo_json["kernels"][:3]] == ["memory"] * 3
    assert kernels["GEMM fp32 N=8192"]["side"] == "compute"
    for name in ("vector add", "GEMM fp32 N=8192"):
        assert kernels[name]["achieved_gflops"] is None
        assert kernels[name]["fraction_of_roof"] is None
        assert kernels[name]["advice"]


def test_json_measured_kernel_far_below_its_roof(demo_json):
    mine = demo_json["kernels"][-1]
    assert mine["name"] == "my_softmax"
    assert mine["flops"] == 5 * 2 ** 24 and mine["bytes"] == 8 * 2 ** 24
    assert mine["achieved_gflops"] == 410
    assert mine["fraction_of_roof"] == pytest.approx(410 / (0.625 * 4650))
    assert mine["side"] == "memory"
    assert "roofline does not model" in mine["advice"]


def test_ascii_chart_and_table():
    result = roofline(*LAB2, "--demo-kernels", "--kernel", MY_SOFTMAX)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    chart, rest = result.stdout.split("\n\n", 1)
    lines = chart.splitlines()
    assert lines[0] == "Roofline of given peaks [given peaks]"  # the machine and its mode
    lines = lines[1:]
    assert lines[0].strip() == "GFLOP/s"
    axis = next(i for i, line in enumerate(lines) if line.strip().startswith("+-")
                or line.strip().startswith("++"))
    plot_rows = [line[9:] for line in lines[1:axis]]  # drop the y labels and the axis bar
    assert len(plot_rows) == 18  # the default height
    assert "FLOP/byte" in chart
    assert any("#" in row for row in plot_rows)
    ridge_columns = {row.index(":") for row in plot_rows if ":" in row}
    assert len(ridge_columns) == 1
    ridge_column = ridge_columns.pop()
    # Letters left of the ridge for the memory-bound kernels, right of it for GEMM and attention.
    columns = {mark: row.index(mark) for row in plot_rows for mark in "ABCDEFG" if mark in row}
    assert set(columns) == set("ABCDEFG")
    assert all(columns[m] < ridge_column for m in "ABCG")
    assert all(columns[m] > ridge_column for m in "DEF")
    # Legend and table.
    assert "ridge P/B = 16.88 FLOP/byte" in rest
    assert "% of roof" in rest and "roof GFLOP/s" in rest and "next step" in rest
    table_rows = [line for line in rest.splitlines() if line[:1] in "ABCDEFG" and "  " in line]
    assert len(table_rows) == 7
    assert "14%" in table_rows[-1] and "my_softmax" in table_rows[-1]
    assert " - " in table_rows[0]  # no achieved rate: '-' in the % column


def test_datasheet_machine_without_a_gpu():
    h200 = get_machine("H200")
    result = roofline("plot", "--machine", "H200", "--precision", "bf16-tensor", "--demo-kernels",
                      "--json")
    assert result.returncode == 0, result.stderr
    machine = json.loads(result.stdout)["machine"]
    assert machine["peak_gflops"] == h200.ceiling("bf16-tensor").value
    assert machine["peak_gbps"] == h200.ceiling("dram").value
    assert machine["ridge"] == pytest.approx(h200.ridge("bf16-tensor"))
    sides = [k["side"] for k in json.loads(result.stdout)["kernels"]]
    # Against the bf16 tensor roof, unfused attention is memory-bound (notebook 02).
    assert sides == ["memory", "memory", "memory", "memory", "compute", "compute"]


def test_html_is_standalone(tmp_path):
    target = tmp_path / "roofline.html"
    result = roofline(*LAB2, "--demo-kernels", "--html", str(target), "--json")
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)  # --html leaves --json's stdout parseable
    html = target.read_text(encoding="utf-8")
    assert "plotly.js v" in html  # the library itself, inline
    assert not re.search(r"<script[^>]*\bsrc\s*=", html, re.IGNORECASE)  # nothing fetched
    assert "cdn.plot.ly/plotly" not in html
    assert len(html) > 1_000_000
    for name in ("roof:fp32", "mem:dram", "ridge:fp32", "kernel:GEMM fp32 N=8192"):
        assert name in html


def test_module_entry_point_works():
    result = roofline(*LAB2, "--kernel", "k, 1, 1", "--json", command=[sys.executable, "-m",
                                                                        "rooflinelib.cli"])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["kernels"][0]["intensity"] == 1


def test_help_exits_zero():
    result = roofline("plot", "--help")
    assert result.returncode == 0
    assert "--peak-gflops" in result.stdout and "--kernel" in result.stdout


BAD_INPUTS = [
    (["--peak-gflops", "lots"], "--peak-gflops"),
    (["--peak-gflops", "-5"], "--peak-gflops"),
    (["--peak-gbps", "__import__('os')"], "--peak-gbps"),
    (["--peak-gflops", "9**9**9**9"], "--peak-gflops"),
    (["--peak-gbps", "0"], "--peak-gbps"),
    (["--kernel", "k, 1"], "--kernel"),
    (["--kernel", "k, 1e9, lots"], "bytes"),
    (["--kernel", "k, -1, 1"], "flops"),
    (["--kernel", "k, 2**4000, 1"], "flops"),
    (["--kernel", "k, 1, 1, fast"], "achieved_gflops"),
    (["--kernel", "k, 1, 1, -3"], "achieved_gflops"),
    (["--kernel", " , 1, 1"], "name"),
    (["--kernel", "k\x1b[2J, 1, 1"], "name"),
    (["--width", "3"], "--width"),
]


@pytest.mark.parametrize("changes, field", BAD_INPUTS, ids=[" ".join(c) for c, _ in BAD_INPUTS])
def test_bad_input_is_one_line_naming_the_field(changes, field):
    args = {"--peak-gflops": "78500", "--peak-gbps": "4650"}
    kernels = []
    for option, value in zip(changes[::2], changes[1::2]):
        if option == "--kernel":
            kernels.append(value)
        else:
            args[option] = value
    argv = ["plot"] + [x for pair in args.items() for x in pair]
    for spec in kernels:
        argv += ["--kernel", spec]
    assert_one_line_error(roofline(*argv), field)


@pytest.mark.parametrize("argv, field", [
    (["plot", "--peak-gflops", "78500"], "--peak-gbps"),
    (["plot", "--machine", "H900"], "--machine"),
    (["plot", "--machine", "H200", "--precision", "dram"], "--precision"),
    (["plot", *LAB2[1:], "--html", "/nonexistent-dir/x.html"], "--html"),
    (["plot", *LAB2[1:], "--frobnicate"], "--frobnicate"),
])
def test_bad_options_are_one_line(argv, field):
    assert_one_line_error(roofline(*argv), field)


def test_ascii_path_does_not_import_plotly():
    code = ("import sys, io, contextlib; from rooflinelib.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    rc = main(['plot', '--peak-gflops', '1e3', '--peak-gbps', '1e2', '--demo-kernels'])\n"
            "assert rc == 0, rc\n"
            "assert 'plotly' not in sys.modules, 'plotly imported'\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, cwd=ROOT)
    assert result.returncode == 0, result.stderr


# --- in process: main() and the parsers it stands on -----------------------------------------

def test_main_returns_two_and_prints_one_line(capsys):
    from rooflinelib.cli import main

    assert main(["plot", "--peak-gflops", "1", "--peak-gbps", "1", "--kernel", "a,1,2,3,4"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "--kernel" in captured.err
    assert main(["plot", "--peak-gflops", "1", "--peak-gbps", "1", "--kernel", "a,1,1"]) == 0


def test_parse_kernel_spec_accepts_formulas():
    point = parse_kernel_spec(MY_SOFTMAX)
    assert point == KernelPoint("my_softmax", 83886080, 134217728, 410)
    assert point.intensity == 0.625
    assert parse_kernel_spec(" gemm ,2*8192**3, 3*8192**2*4 ").achieved_gflops is None


@pytest.mark.parametrize("spec, message", [
    ("a, 1", "--kernel 'a, 1': expected"),
    ("a, 1, 2, 3, 4", "got 5 comma-separated fields"),
    ("a, x, 1", "--kernel 'a' flops:"),
    ("a, 1, 1/0", "--kernel 'a' bytes: division by zero"),
    ("a, 1, 2, 0", "--kernel 'a' achieved_gflops: must be positive"),
    ("a, 1e300, 1e-300", "--kernel 'a' intensity:"),
    ("x" * 61 + ", 1, 1", "name: longer than 60"),
    ("a\tb, 1, 1", "name: contains control"),
])
def test_parse_kernel_spec_errors_name_the_field(spec, message):
    with pytest.raises(ValueError) as info:
        parse_kernel_spec(spec)
    text = str(info.value)
    assert message in text
    assert "\n" not in text


def test_kernel_point_validates_and_converts_operators():
    from rooflinelib.core.operators import gemm

    point = KernelPoint.from_op(gemm(8192, "fp32"), achieved_gflops=50_000)
    assert point.name == "GEMM" and point.intensity == pytest.approx(8192 / 6)
    with pytest.raises(ValueError, match="n_bytes"):
        KernelPoint("k", 1, 0)
    with pytest.raises(ValueError, match="name"):
        KernelPoint("", 1, 1)
    with pytest.raises(ValueError, match="achieved_gflops"):
        KernelPoint("k", 1, 1, float("nan"))


def test_place_follows_the_decision_table():
    line = Roofline(78500, 4650)
    on_roof = place(KernelPoint("gemm", 2 * 8192 ** 3, 3 * 8192 ** 2 * 4, 75_000), line)
    assert on_roof["side"] == "compute"
    assert on_roof["fraction_of_roof"] == pytest.approx(75_000 / 78_500)
    assert on_roof["advice"].startswith("Compute-bound")
    at_ridge = place(KernelPoint("knee", 78500, 4650), line)
    assert at_ridge["side"] == "ridge" and at_ridge["roof_gflops"] == pytest.approx(78500)
    above = place(KernelPoint("fast", 1, 1, 9000), line)  # roof is 4650 at I = 1
    assert "impossible" in above["advice"]
    assert math.isclose(above["fraction_of_roof"], 9000 / 4650)
    assert verdict_phrase(KernelPoint("fast", 1, 1, 9000), line).endswith("check counts)")
    assert verdict_phrase(KernelPoint("k", 1, 1), line) == "memory-bound (not measured)"


@pytest.mark.parametrize("args,source", [
    (["--machine", "H200"], "H200 [datasheet]"),
    (["--ceilings", "rooflinelib/data/h200_ceilings_numba.json"], "[recorded H200, measured 2026-12-01]"),
])
def test_chart_and_table_name_the_machine_and_the_mode(args, source):
    result = roofline("plot", *args, "--demo-kernels")
    assert result.returncode == 0, result.stderr
    chart, table = result.stdout.split("\n\n", 1)
    assert chart.splitlines()[0].startswith("Roofline of") and source in chart.splitlines()[0]
    heads = [line for line in table.splitlines() if line.startswith("Kernels on")]
    assert len(heads) == 1 and source in heads[0], table
    assert "(CPU advice)" not in heads[0] and "shared memory" in " ".join(table.split())


def test_a_cpu_result_is_labelled_live_cpu_and_gets_cpu_advice(tmp_path):
    from rooflinelib.store import results
    cpu = results.recorded("ceilings", "numba")
    cpu = dict(cpu, scope="cpu", backend="cpu", device=dict(cpu["device"], name="CPU: test", kind="cpu"),
               ceilings=[c for c in cpu["ceilings"] if c["name"] in ("dram", "fp32", "fp64")])
    try:
        path = results.save(cpu, tmp_path / "cpu.json")
    except results.ResultError as exc:
        pytest.skip(f"a CPU result cannot be made from the recorded run here: {exc}")
    result = roofline("plot", "--ceilings", str(path), "--demo-kernels")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "[live CPU, measured 2026-12-01]" in text and "(CPU advice)" in text
    assert "SIMD" in text and "shared memory" not in text and "occupancy" not in text
