"""The CPU backend, run for real at small sizes, and the measure/sweep commands around it."""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

from rooflinelib.store import results  # noqa: E402
from rooflinelib.measure import measure_ceilings, run_sweep  # noqa: E402

CEILING_KEYS = {"name", "kind", "value", "unit", "verified", "spread", "iqr", "noisy", "noise"}
ROW_KEYS = {"k", "intensity", "gbps", "gflops", "verified"}


@pytest.fixture(scope="module")
def cpu_ceilings():
    return measure_ceilings("cpu", size_mib=4, repeats=2)


@pytest.fixture(scope="module")
def cpu_sweep():
    return run_sweep("cpu", ks=(0, 1, 16, 64), size_mib=4, repeats=2)


def test_cpu_ceilings_are_verified_and_labelled(cpu_ceilings):
    assert cpu_ceilings["scope"] == "cpu" and cpu_ceilings["backend"] == "cpu"
    assert [c["name"] for c in cpu_ceilings["ceilings"]] == ["dram-read", "dram-write", "dram-copy", "dram",
                                                             "fp32", "fp64"]
    for c in cpu_ceilings["ceilings"]:
        assert set(c) == CEILING_KEYS and c["verified"] is True and c["value"] > 0
    assert cpu_ceilings["device"]["name"].startswith("CPU")
    assert any("CPU roofline" in n for n in cpu_ceilings["notes"])
    assert all(v >= 0 for v in cpu_ceilings["jit_seconds"].values())


def test_cpu_sweep_rows(cpu_sweep):
    rows = cpu_sweep["rows"]
    assert [r["k"] for r in rows] == [0, 1, 16, 64]
    for r in rows:
        assert set(r) == ROW_KEYS and r["verified"] is True
        assert r["intensity"] == r["k"] / 4
    assert rows[0]["gflops"] == 0 and all(r["gflops"] > 0 for r in rows[1:])
    assert cpu_sweep["ridge"] == pytest.approx(cpu_sweep["peak_gflops"] / cpu_sweep["peak_gbps"])


def test_cpu_result_becomes_a_measured_machine(cpu_ceilings, tmp_path):
    path = results.save(cpu_ceilings, tmp_path / "cpu.json")
    machine = results.to_machine(path)
    assert machine.kind == "measured" and machine.notes == "CPU roofline"
    assert machine.ridge("fp32", "dram") > 0
    # one DRAM roof, named after the mix it came from; the mixes on request
    assert [c.name for c in machine.memory_ceilings] == ["dram"]
    assert machine.ceiling("dram").label == f"DRAM ({results.dram_mix(cpu_ceilings)})"
    both = results.to_machine(path, mixes=True)
    assert [c.name for c in both.memory_ceilings] == ["dram-read", "dram-write", "dram-copy", "dram"]


def test_cpu_dram_is_the_best_mix_and_names_it(cpu_ceilings):
    rates = {c["name"]: c["value"] for c in cpu_ceilings["ceilings"]}
    dram = next(d for d in cpu_ceilings["details"] if d["name"] == "dram")
    mixes = results.dram_mixes(cpu_ceilings)
    assert mixes == {"read": rates["dram-read"], "write": rates["dram-write"], "copy": rates["dram-copy"]}
    assert dram["mixes"] == mixes and rates["dram"] == max(mixes.values())
    assert mixes[dram["mix"]] == rates["dram"] and dram["mix_ceiling"] == f"dram-{dram['mix']}"
    # the mix's kernel and timing are dram's
    part = next(d for d in cpu_ceilings["details"] if d["name"] == dram["mix_ceiling"])
    assert (dram["kernel"], dram["median_s"], dram["n_bytes"]) == (part["kernel"], part["median_s"], part["n_bytes"])
    # each mix's own note (a short window, a small buffer) is listed once, on its own row
    assert not any(n.startswith("dram: ") for n in cpu_ceilings["notes"])


def test_a_kernel_at_the_read_roof_is_not_above_dram(cpu_ceilings):
    """A read-only kernel counted right and running at the read stream's own rate lands at or
    under the DRAM roof whichever mix set it: never 'above-roof' (recount your bytes)."""
    from rooflinelib.core.model import Roofline
    machine = results.to_machine(cpu_ceilings)
    # the memory roof alone: a compute roof measured on a busy machine could cut in first
    roof = Roofline(1e9, machine.ceiling("dram").value)
    for mix, gbps in results.dram_mixes(cpu_ceilings).items():
        intensity = 0.25  # one add per 4-byte element
        verdict = roof.classify(intensity, achieved_gflops=intensity * gbps)
        assert verdict.status != "above-roof" and verdict.fraction_of_roof <= 1 + 1e-12, mix


def _roofline(*args, env=None):
    return subprocess.run([sys.executable, "-m", "rooflinelib", *args], capture_output=True,
                          text=True, timeout=300, env=env)


@pytest.mark.slow
def test_measure_json_has_the_issue_shape(tmp_path):
    out = tmp_path / "c.json"
    done = _roofline("measure", "--backend", "cpu", "--size-mib", "2", "--repeats", "2",
                     "--json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert set(printed) >= {"device", "ceilings"}
    assert all(set(c) == CEILING_KEYS for c in printed["ceilings"])
    assert results.load(out)["ceilings"] == printed["ceilings"]
    assert "[1/6] dram-read" in done.stderr and "[4/6] dram\n" in done.stderr  # progress goes to stderr


def test_sweep_prints_the_two_tables(tmp_path):
    done = _roofline("sweep", "--backend", "cpu", "--size-mib", "2", "--repeats", "2",
                     "--ks", "0,1,16")
    assert done.returncode == 0, done.stderr
    assert "GFLOP/s" in done.stdout and "ridge = P/B" in done.stdout
    assert "CPU roofline" in done.stdout


def test_sweep_json_has_rows_and_ridge():
    done = _roofline("sweep", "--backend", "cpu", "--size-mib", "2", "--repeats", "2",
                     "--ks", "0,4", "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert all(set(r) == ROW_KEYS for r in printed["rows"]) and printed["ridge"] > 0
    assert done.stderr == ""


@pytest.mark.slow
def test_auto_without_gpu_says_it_measures_the_cpu():
    from rooflinelib.measure.backend import gpu_available
    if gpu_available():
        pytest.skip("a GPU is present")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    done = _roofline("measure", "--size-mib", "2", "--repeats", "2", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert "No CUDA GPU found" in done.stderr and "CPU roofline" in done.stderr
    assert json.loads(done.stdout)["scope"] == "cpu"


@pytest.mark.parametrize("args,field", [
    (["measure", "--backend", "opencl"], "--backend"),
    (["measure", "--backend", "cpu", "--size-mib", "lots"], "--size-mib"),
    (["measure", "--backend", "cpu", "--size-mib", "-3"], "--size-mib"),
    (["measure", "--backend", "cpu", "--repeats", "2.5"], "--repeats"),
    (["measure", "--backend", "cpu", "--out", "/no/such/dir/x.json"], "--out"),
    (["sweep", "--backend", "cpu", "--ks", "1,2"], "--ks"),
    (["sweep", "--backend", "cpu", "--ks", "0,8,4"], "--ks"),
    (["sweep", "--backend", "cpu", "--ks", "0,__import__('os')"], "--ks"),
    (["plot", "--ceilings", "/no/such/file.json"], "--ceilings"),
])
def test_bad_options_get_one_line(args, field):
    done = _roofline(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0], done.stderr


def test_plot_ceilings_uses_a_stored_result(cpu_ceilings, tmp_path):
    path = results.save(cpu_ceilings, tmp_path / "c.json")
    done = _roofline("plot", "--ceilings", str(path), "--demo-kernels", "--json")
    assert done.returncode == 0, done.stderr
    machine = json.loads(done.stdout)["machine"]
    fp32 = next(c["value"] for c in cpu_ceilings["ceilings"] if c["name"] == "fp32")
    assert machine["peak_gflops"] == pytest.approx(fp32)


# The CPU lane's own rules: buffer sizes, the ceiling rule, the trial window, the FMA width.

from rooflinelib.measure import cpu as cpu_lane  # noqa: E402
from rooflinelib.measure.accounting import Work  # noqa: E402

MIB = 2 ** 20


@pytest.mark.parametrize("llc_mib,threads,free_mib,want_mib", [
    (300, 2, 24_000, 600),     # this 2-core Xeon: 2 x LLC
    (8, 8, 16_000, 256),       # a laptop: the floor
    (64, 32, 256_000, 1024),   # many threads: each one's share stays above LLC / 2
    (300, 2, 2_400, 300),      # little free memory: an eighth of it per buffer
    (300, 2, 800, 256),        # never below the floor
])
def test_dram_buffer_size_rule(llc_mib, threads, free_mib, want_mib):
    got = cpu_lane.dram_buffer_bytes(threads, llc_mib * MIB, free_mib * MIB)
    step = 4 * cpu_lane.BLOCK * threads
    assert got % step == 0 and want_mib * MIB <= got < want_mib * MIB + step


def test_last_level_cache_is_the_largest_data_or_unified_cache(tmp_path):
    for name, kind, size in [("index0", "Data", "48K"), ("index1", "Instruction", "512M"),
                             ("index2", "Unified", "2048K"), ("index3", "Unified", "300M")]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "type").write_text(kind + "\n")
        (tmp_path / name / "size").write_text(size + "\n")
    assert cpu_lane.last_level_cache_bytes(str(tmp_path)) == 300 * MIB
    assert cpu_lane.last_level_cache_bytes(str(tmp_path / "missing")) is None


def test_cpu_ceiling_is_the_fastest_trial_and_keeps_median_and_spread():
    import time
    t = cpu_lane.time_in_window(lambda: time.sleep(0.002), 3, 0, 0.0)
    assert t.rule == cpu_lane.CEILING_RULE == "best"
    from rooflinelib.measure.protocol import Measurement
    m = Measurement("dram", "memory", Work(0.0, 1e9), t, True)
    assert m.value == pytest.approx(1e9 / min(t.samples_s) / 1e9)
    assert m.work.gbps(t.median_s) <= m.value
    assert m.ceiling_row()["spread"] == t.spread
    assert m.detail()["rule"] == "best" and m.detail()["median_s"] == t.median_s


def test_trials_fill_the_window_and_never_fall_short_of_repeats():
    import time
    calls = []
    t = cpu_lane.time_in_window(lambda: (calls.append(1), time.sleep(0.01)), 3, 1, 0.1)
    assert t.repeats >= 8 and len(calls) == t.repeats + 1  # the warm-up is not a trial
    assert cpu_lane.time_in_window(lambda: None, 4, 0, 0.0).repeats == 4


def test_cpu_fill_matches_the_reference_values():
    import numpy as np
    from rooflinelib.measure.expected import fill_values
    n = 3 * cpu_lane.BLOCK + 5
    x = cpu_lane.CpuBackend(repeats=2)._data(n)
    assert np.array_equal(x, fill_values(np.arange(n, dtype=np.int64)).astype(np.float32))


def test_small_copy_is_verified_and_says_it_is_below_the_memory_size():
    from rooflinelib.measure.protocol import measure_best
    b = cpu_lane.CpuBackend(repeats=2)
    m = measure_best(b, "dram", "memory", b.copy_runs(4 * MIB))
    assert m.verified and m.value >= m.extra["median_value"] > 0
    if cpu_lane.last_level_cache_bytes():
        assert "below" in m.extra["note"]
    assert m.config["bytes_per_thread"] * b.threads == m.config["buffer_bytes"] == 4 * MIB
    assert b.default_buffer_bytes == cpu_lane.dram_buffer_bytes(b.threads)


@pytest.mark.parametrize("mix", ["read", "write", "copy"])
def test_each_cpu_dram_mix_verifies_and_a_wrong_output_raises(mix, monkeypatch):
    import numpy as np
    from rooflinelib.measure.errors import VerificationError
    from rooflinelib.measure.protocol import measure_run
    b = cpu_lane.CpuBackend(repeats=1, window_s=0)
    assert measure_run(b, f"dram-{mix}", "memory", getattr(b, f"{mix}_runs")(MIB)[0]).verified
    if mix == "read":  # a sum a quarter off
        real = cpu_lane._read()
        monkeypatch.setattr(cpu_lane, "_read", lambda: (lambda x: real(x) + 0.25))
    elif mix == "write":  # the last element never written
        real = cpu_lane._write()
        monkeypatch.setattr(cpu_lane, "_write", lambda: (lambda x, o: (real(x, o), x.__setitem__(-1, np.float32(-1)))))
    else:  # the last element never copied
        monkeypatch.setattr(cpu_lane, "_copy", lambda: (lambda src, dst: dst.__setitem__(slice(0, -1), src[:-1])))
    with pytest.raises(VerificationError, match=f"dram-{mix}"):
        measure_run(b, f"dram-{mix}", "memory", getattr(b, f"{mix}_runs")(MIB)[0])


def test_fma_peak_fills_full_width_registers():
    from rooflinelib.measure.protocol import measure_best
    b = cpu_lane.CpuBackend(repeats=2)
    m = measure_best(b, "fp32", "compute", b.fma_runs("fp32", target_s=0.01))
    lanes = cpu_lane.fma_lanes("fp32")
    assert m.verified and m.config["lanes"] == lanes
    assert m.work.n_flops == 2 * m.config["tasks"] * m.config["n_iter"] * lanes
    if cpu_lane.has_avx512():  # 16 zmm registers of 16 float32 (or 8 float64) per task
        assert lanes == 256 and cpu_lane.fma_lanes("fp64") == 128
        assert m.config["vector_bits"] == 512
    else:
        assert lanes == cpu_lane.LANES and m.config["vector_bits"] is None


def _hot_fma_loop(asm: str) -> list:
    """The lines of the FMA peak's loop over its trips in ``asm``: of the innermost loops (a
    label to a backward branch to it, holding no other loop with FMAs), the one with the most
    FMAs."""
    import re
    lines = asm.splitlines()
    labels = {line.strip()[:-1]: i for i, line in enumerate(lines) if re.fullmatch(r"\.?[\w$.]+:", line.strip())}
    spans = []
    for i, line in enumerate(lines):
        jump = re.match(r"\s*j\w+\s+(\S+)$", line)
        start = labels.get(jump.group(1)) if jump else None
        if start is not None and start <= i and any("vfmadd" in b for b in lines[start:i + 1]):
            spans.append((start, i))
    inner = [(a, b) for a, b in spans if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in spans)]
    if not inner:
        return []
    a, b = max(inner, key=lambda span: sum("vfmadd" in x for x in lines[span[0]:span[1] + 1]))
    return lines[a:b + 1]


@pytest.mark.parametrize("dtype", ["fp32", "fp64"])
def test_fma_peak_loop_keeps_its_values_in_vector_registers(dtype):
    """The FMA peak's hot loop is packed FMAs on registers alone: no stack access (a spill) and
    no scalar FMA.  With 64 float64 values on AVX2 (16 ymm registers, plus a and b) the loop
    spilled, 36 stack accesses among 32 FMAs, and Lab 1's fp64 read 53 GFLOP/s against fp32's
    186; with 32 float64 values LLVM unrolled the lane loop and left every FMA scalar."""
    import platform
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the instructions checked are x86's")
    import numpy as np
    from numba import njit
    from rooflinelib.measure import cpu
    lanes, wide = cpu.fma_lanes(dtype), cpu.has_avx512()
    # a fresh compile: cached code has no assembly
    kernel = njit(parallel=True, fastmath=cpu._FAST)(cpu._fma_peak(dtype, lanes, wide).py_func)
    ftype = np.float32 if dtype == "fp32" else np.float64
    kernel(np.empty(4, ftype), ftype(1), ftype(0), 10)
    loop = _hot_fma_loop("\n".join(kernel.inspect_asm().values()))
    fmas = [line.split()[0] for line in loop if "vfmadd" in line]
    assert fmas, "no FMA loop found in the kernel's assembly"
    assert all(op.endswith(("ps", "pd")) for op in fmas), f"scalar FMAs in the hot loop: {sorted(set(fmas))}"
    spills = [line.strip() for line in loop if "(%rsp)" in line]
    assert not spills, f"{len(spills)} stack accesses among {len(fmas)} FMAs in the hot loop, e.g. {spills[:3]}"
    register = "zmm" if wide else "ymm"
    assert all(register in line for line in loop if "vfmadd" in line)


def test_window_runs_on_while_no_trial_had_the_cores_to_itself():
    import time
    busy, idle = {}, {}

    def spin():  # one thread on a core for 1 ms: its process time keeps up with the clock
        end = time.perf_counter() + 0.001
        while time.perf_counter() < end:
            pass

    # Beside other test workers a whole window of spins can lose its core now and then (a
    # 5 ms spin once had no trial to itself in 0.1 s); a neighbour can only take the core
    # away, so the window stopping early once in three tries is what is being tested.
    for _ in range(3):
        cpu_lane.time_in_window(spin, 2, 0, 0.02, threads=1, stats=busy)
        if busy["uncontended_trials"] >= 2 and busy["window_s"] < cpu_lane.WINDOW_CAP * 0.02:
            break
    assert busy["uncontended_trials"] >= 2 and busy["window_s"] < cpu_lane.WINDOW_CAP * 0.02, busy
    # sleeping gets no CPU time, which is what a thread waiting for a core looks like
    cpu_lane.time_in_window(lambda: time.sleep(0.005), 2, 0, 0.02, threads=1, stats=idle)
    assert idle["uncontended_trials"] == 0 and idle["window_s"] >= cpu_lane.WINDOW_CAP * 0.02


def test_a_window_in_which_no_trial_had_the_cores_says_its_rate_is_a_lower_bound():
    import time

    from rooflinelib.measure.accounting import Work
    from rooflinelib.measure.protocol import Run, measure_run
    b = cpu_lane.CpuBackend(repeats=3, warmup=0, window_s=0.0)
    # a trial that sleeps uses no CPU time: by the backend's own test, no core was its own
    run = Run(lambda: time.sleep(0.002), lambda: None, Work(0.0, 1e6), "sleep")
    m = measure_run(b, "dram", "memory", run)
    assert "lower bound" in m.extra["note"] and "of 3 trials" in m.extra["note"]


@pytest.mark.parametrize("given, window", [("", None), ("0.3", 0.3), (" 2 ", 2.0), ("0", 0.0)])
def test_the_window_variable_sets_lab1_and_lab3s_window_and_the_result_says_so(given, window, monkeypatch):
    from rooflinelib.measure import cpu as cpu_lane
    monkeypatch.setenv(cpu_lane.WINDOW_ENV, given)
    backend = cpu_lane.CpuBackend()
    assert backend.window_s == window
    notes = backend.result_notes({})
    if window is None:
        assert not [n for n in notes if cpu_lane.WINDOW_ENV in n]
    else:
        assert [n for n in notes if f"at least {window:g} s (${cpu_lane.WINDOW_ENV}" in n]
    # a window the caller names wins (the experiments sample a fixed number of trials)
    assert cpu_lane.CpuBackend(window_s=0.0).window_s == 0.0
    assert not [n for n in cpu_lane.CpuBackend(window_s=0.0).result_notes({}) if cpu_lane.WINDOW_ENV in n]


@pytest.mark.parametrize("given, repeats", [("", 10), ("3", 3), (" 1 ", 1)])
def test_the_repeats_variable_sets_the_trials_unless_the_caller_names_them(given, repeats, monkeypatch):
    from rooflinelib.measure import cpu as cpu_lane
    monkeypatch.setenv(cpu_lane.REPEATS_ENV, given)
    backend = cpu_lane.CpuBackend()
    assert backend.repeats == repeats and cpu_lane.DEFAULT_REPEATS == 10
    said = [n for n in backend.result_notes({}) if cpu_lane.REPEATS_ENV in n]
    assert said == ([] if not given else [f"Each rate is the best of at least {repeats} timed trials "
                                          f"(${cpu_lane.REPEATS_ENV}; the default is 10)."])
    # a count the caller names wins, at construction and later (Lab 1's and Lab 3's repeats=)
    assert cpu_lane.CpuBackend(repeats=7).repeats == 7
    backend.repeats = 5
    assert backend.repeats == 5 and not [n for n in backend.result_notes({}) if cpu_lane.REPEATS_ENV in n]
    # the trials are taken: a window of 0 stops at the count
    calls = []
    timing = cpu_lane.CpuBackend(window_s=0.0).time(lambda: calls.append(1))
    assert timing.repeats == repeats and len(calls) == repeats + 1  # and the warm-up


@pytest.mark.parametrize("variable, given, reason", [
    ("WINDOW_ENV", "fast", "must be a number of seconds"), ("WINDOW_ENV", "-1", "from 0 to 600"),
    ("WINDOW_ENV", "nan", "from 0 to 600"), ("WINDOW_ENV", "inf", "from 0 to 600"),
    ("WINDOW_ENV", "1e9", "from 0 to 600"),
    ("REPEATS_ENV", "few", "must be a whole number of trials"),
    ("REPEATS_ENV", "2.5", "must be a whole number of trials"), ("REPEATS_ENV", "0", "from 1 to 1000 trials"),
    ("REPEATS_ENV", "-3", "from 1 to 1000 trials"), ("REPEATS_ENV", "1001", "from 1 to 1000 trials")])
def test_a_bad_window_or_repeats_variable_is_one_line_naming_it(variable, given, reason, monkeypatch):
    from rooflinelib.measure import cpu as cpu_lane
    name = getattr(cpu_lane, variable)
    monkeypatch.setenv(name, given)
    with pytest.raises(ValueError) as err:
        cpu_lane.CpuBackend()
    message = str(err.value)
    assert message.startswith(f"{name}: ") and reason in message and "\n" not in message


def test_few_repeats_are_in_the_stored_result(monkeypatch):
    from rooflinelib.measure import cpu as cpu_lane
    monkeypatch.setenv(cpu_lane.REPEATS_ENV, "2")
    monkeypatch.setenv(cpu_lane.WINDOW_ENV, "0")
    result = measure_ceilings("cpu", size_mib=4)
    stored = results.validate(json.loads(json.dumps(result)))
    assert any("best of at least 2 timed trials" in n for n in stored["notes"])
    # the three dram mixes, dram, fp32, fp64 (window 0); a noisy one is timed in more windows
    assert len(stored["details"]) == 6
    assert all(d["repeats"] == 2 * d.get("windows", 1) for d in stored["details"])


def test_a_short_window_is_in_the_stored_result(monkeypatch):
    from rooflinelib.measure import cpu as cpu_lane
    monkeypatch.setenv(cpu_lane.WINDOW_ENV, "0.05")
    result = measure_ceilings("cpu", size_mib=4, repeats=2)
    stored = results.validate(json.loads(json.dumps(result)))  # as written to and read from a file
    assert any("at least 0.05 s" in n for n in stored["notes"])


# --- issue 25 item 4: a measurement judges itself, and says so in words ---------------------------

from rooflinelib.measure import protocol  # noqa: E402


def test_iqr_is_the_spread_of_the_middle_half():
    # one stray trial blows max - min up to 851%; the middle half stays put
    samples = (1.0, 1.0, 1.02, 1.01, 0.99, 1.0, 1.0, 9.5)
    assert protocol.iqr_spread(samples) == pytest.approx(0.01, abs=0.01)
    assert protocol.iqr_spread((1.0,)) == 0.0


def test_noise_is_judged_in_words():
    clean = protocol.judge_noise((1.0, 1.01, 1.0, 0.99), cpu_share=0.97, threads=2, scope="cpu")
    assert clean["noisy"] is False and clean["noise"] == "" and clean["cpu_share"] == 0.97
    lost = protocol.judge_noise((1.0, 1.01, 1.0, 0.99), cpu_share=0.45, threads=2, scope="cpu")
    assert lost["noisy"] and "got 45% of its 2 cores' time" in lost["noise"]
    assert "another program was using the CPU" in lost["noise"]
    spread = protocol.judge_noise((1.0, 1.5, 2.0, 2.5, 3.0), scope="cpu")
    assert spread["noisy"] and "middle half of its 5 trials spread over" in spread["noise"]


class _SleepingCpu:
    """A CPU backend whose trials sleep: the process gets none of its cores' time.  Each window
    sleeps ``slower`` times longer than the one before (1: every window alike)."""
    name, scope, threads = "cpu", "cpu", 2

    def __init__(self, slower=1.5):
        self.slower, self.windows = slower, 0

    def first_call(self, launch):
        launch()
        return 0.0

    def time(self, launch, repeats=None):
        import time
        from rooflinelib.measure.timing import Timing
        samples = []
        for _ in range(5):
            t0 = time.perf_counter()
            time.sleep(0.01 * self.slower ** self.windows)
            samples.append(time.perf_counter() - t0)
        self.windows += 1
        return Timing(tuple(samples), "best")

    def clock_sampler(self):
        from rooflinelib.measure.provenance import NoClock
        return NoClock()

    def theoretical(self, mhz):
        return {}


def test_a_process_that_lost_its_cores_is_flagged_in_the_row():
    from rooflinelib.measure.accounting import Work
    run = protocol.Run(lambda: None, lambda: None, Work(0.0, 1e6), "sleeper")
    backend = _SleepingCpu(slower=1.5)
    m = protocol.measure_run(backend, "dram", "memory", run)
    row = m.ceiling_row()
    assert row["noisy"] is True and "another program was using the CPU" in row["noise"]
    assert m.extra["cpu_share"] < 0.5
    # timed again, as a browser's burst passes, until two windows agree: here they never do
    assert backend.windows == 1 + protocol.CPU_RETRIES and m.timing.repeats == 5 * backend.windows
    assert "windows of trials did not agree" in row["noise"]


class _SpreadCpu(_SleepingCpu):
    """One thread, trials of 10 to 40 ms in every window: spread, the same best each time."""
    threads = 1

    def time(self, launch, repeats=None):
        from rooflinelib.measure.timing import Timing
        self.windows += 1
        return Timing((0.01, 0.01, 0.02, 0.03, 0.04), "best")


def test_two_windows_that_agree_make_a_noisy_cpu_rate_trustworthy(monkeypatch):
    import time
    import types
    from rooflinelib.measure.accounting import Work
    # a process that kept its core: its CPU time is its wall time
    monkeypatch.setattr(protocol, "time", types.SimpleNamespace(process_time=time.perf_counter,
                                                                perf_counter=time.perf_counter))
    run = protocol.Run(lambda: None, lambda: None, Work(0.0, 1e6), "spread")
    backend = _SpreadCpu()
    m = protocol.measure_run(backend, "dram", "memory", run)
    assert backend.windows == 2 and "agreed within 5%" in m.extra.get("agreed", ""), m.extra
    assert m.ceiling_row()["noisy"] is False and m.timing.repeats == 10


def test_windows_that_agree_while_every_one_lost_its_cores_stay_flagged():
    # a steady neighbour slows every window alike: agreement then proves nothing
    from rooflinelib.measure.accounting import Work
    run = protocol.Run(lambda: None, lambda: None, Work(0.0, 1e6), "sleeper")
    backend = _SleepingCpu(slower=1.0)
    m = protocol.measure_run(backend, "dram", "memory", run)
    row = m.ceiling_row()
    assert backend.windows == 2 and row["noisy"] is True and "may be a lower bound" in row["noise"]


def test_a_busy_neighbour_flags_a_real_cpu_measurement():
    # Two processes that spin on both cores, as a browser drawing the page does: the copy's
    # process loses its cores for part of the time, and the result says so.
    import numba
    if numba.get_num_threads() < 2 or (os.cpu_count() or 1) > 4:
        pytest.skip("needs a small machine whose every core the neighbours can take")
    spin = "import time\nend = time.time() + 20\nwhile time.time() < end: pass"
    hogs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(2 * numba.get_num_threads())]
    try:
        result = measure_ceilings("cpu", size_mib=16, repeats=3)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    flagged = [c for c in result["ceilings"] if c.get("noisy")]
    assert flagged, [(c["name"], c.get("iqr")) for c in result["ceilings"]]
    assert all(c["noise"] for c in flagged)


def test_the_table_says_noisy_in_words_and_shows_the_iqr():
    from rooflinelib.views.tables import ceilings_table
    lab1 = results.recorded("ceilings", "numba")
    for c in lab1["ceilings"]:
        c.update(iqr=0.02, noisy=False, noise="")
    lab1["ceilings"][0].update(spread=8.51, iqr=0.35, noisy=True,
                               noise="another program was using the CPU")
    text = ceilings_table(results.validate(lab1))
    assert "IQR" in text.splitlines()[3] and "851.0%" not in text and "35.0%" in text
    assert "NOISY: 1 of" in text and "re-run Lab 1 when no other program is busy" in text
    assert "another program was using the CPU" in text


def test_noise_fields_are_checked_by_the_schema():
    lab1 = results.recorded("ceilings", "numba")
    lab1["ceilings"][0]["noisy"] = "yes"
    with pytest.raises(results.ResultError, match="noisy"):
        results.validate(lab1)


def test_roofline_measure_never_replaces_a_clean_stored_result_with_a_noisy_one(tmp_path, monkeypatch, capsys):
    import argparse
    from rooflinelib.cli import measure as cli_measure
    from rooflinelib.store.lab_files import RESULTS_DIR_ENV, default_path
    monkeypatch.setenv(RESULTS_DIR_ENV, str(tmp_path))
    clean = results.recorded("ceilings", "numba")
    for c in clean["ceilings"]:
        c.update(noisy=False, noise="")
    path = default_path("ceilings", "numba")
    path.parent.mkdir(parents=True, exist_ok=True)
    results.save(clean, path)
    before = path.read_bytes()
    noisy = results.recorded("ceilings", "numba")
    noisy["ceilings"][0].update(noisy=True, noise="another program was using the CPU")
    args = argparse.Namespace(out=None, no_save=False, csv=None, quiet=False, json=False)
    cli_measure._finish(results.validate(noisy), args, lambda r: "table")
    assert path.read_bytes() == before
    assert "not stored: this run was noisy" in capsys.readouterr().err


# --- issue 25 item 5: the CPU sweep keeps the faster of its two forms where both vectorize -------

def test_the_sweep_times_both_forms_between_16_and_64_and_keeps_the_faster():
    from rooflinelib.measure import cpu as cpu_lane
    assert [form for form, _ in cpu_lane.sweep_forms(16)] == ["elementwise"]
    assert [form for form, _ in cpu_lane.sweep_forms(32)] == ["elementwise", "lanes"]
    assert [form for form, _ in cpu_lane.sweep_forms(64)] == ["elementwise", "lanes"]
    assert [form for form, _ in cpu_lane.sweep_forms(128)] == ["lanes"]
    result = run_sweep("cpu", ks=(0, 32), size_mib=4, repeats=2)
    detail = result["details"][1]
    tried = {c["form"]: c for c in detail["configs_tried"]}
    assert set(tried) == {"elementwise", "lanes"} and all(c["verified"] for c in tried.values())
    assert result["rows"][1]["gflops"] == pytest.approx(max(c["gflops"] for c in tried.values()))
    assert f"({detail['config']['form']})" in detail["kernel"]


def test_the_sweep_table_names_its_noisy_points_in_words():
    from rooflinelib.views.tables import sweep_tables
    sweep = results.recorded("sweep", "numba")
    sweep["details"][2].update(noisy=True, noise="this process got 9% of its 2 cores' time while it was "
                                                 "timed (under 80%): another program was using the CPU")
    text = sweep_tables(sweep)
    assert f"NOISY: 1 of {len(sweep['rows'])} points (K = {sweep['rows'][2]['k']})" in text
    assert "another program was using the CPU" in text and "re-run Lab 3" in text


def test_an_experiment_table_names_its_noisy_rows_in_words():
    from rooflinelib.experiments import recorded_experiments
    from rooflinelib.experiments.record import Experiment, Variant
    from rooflinelib.views.tables import experiment_text
    clean = Variant("1 chain", 2e9, 0.0, 0.5, 0.01, 7, True, {"noisy": False, "noise": ""})
    noisy = Variant("4 chains", 8e9, 0.0, 40.0, 3.4, 7, True,
                    {"noisy": True, "noise": "this process got 2% of its 2 cores' time while it was timed "
                                             "(under 80%): another program was using the CPU"})
    experiment = Experiment("chains", "FMA rate against chains", "cpu", {"name": "CPU: test"}, "2026-12-02",
                            (clean, noisy))
    text = experiment_text(experiment)
    assert "NOISY: 1 of 2 rows" in text and "4 chains: this process got 2%" in text
    assert "NOISY" not in experiment_text(Experiment("chains", "t", "cpu", {"name": "x"}, "2026", (clean,)))
    assert recorded_experiments()  # the recorded runs still render
    assert all(experiment_text(e) for e in recorded_experiments().values())


def test_a_cpu_experiment_row_carries_its_judgement():
    from rooflinelib.experiments import cpu as cpu_experiments
    e = cpu_experiments.run_chains(widths=(1,), target_s=0.005, repeats=3)
    extra = e.variants[0].extra
    assert isinstance(extra["noisy"], bool) and "iqr" in extra and "cpu_share" in extra


def _dram_mixes_script():
    from support.scripts import load_script
    return load_script("benchmarks/dram_mixes.py", "dram_mixes_benchmark")


def test_the_c_reference_stores_as_lab1_does_and_reports_streaming_stores_beside(tmp_path):
    """The benchmark's target compares Lab 1's CPU write and copy with a C fill and copy of
    ordinary vector stores (write-allocate, as Numba's loops compile), and reports a fill and a
    copy with streaming stores beside them, each verified by the program itself."""
    import shutil
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler")
    bench = _dram_mixes_script()
    exe = bench.build_reference(tmp_path)
    got = bench.reference_cpu(exe, 4 * 4096 * 8, 2, 0.05)
    assert {v["stores"] for k, v in got.items() if "streaming" not in k} == {"regular"}
    for mix in ("write", "copy"):
        nt = got[f"C {mix} (streaming stores)"]
        assert nt["mix"] == mix and nt["stores"] == "streaming" and nt["gbps"] > 0 and nt["median_gbps"] > 0
    objdump = shutil.which("objdump")
    if objdump is None:
        return
    stores = {}
    function = None
    for line in subprocess.run([objdump, "-d", str(exe)], capture_output=True, text=True).stdout.splitlines():
        if line.endswith(">:"):
            function = line.split("<")[1].split(".")[0]
        elif "vmovnt" in line or "movntps" in line:
            stores.setdefault(function, set()).add("streaming")
    assert "fill_nt" in stores and "copy_nt" in stores
    assert "fill" not in stores and "copy" not in stores


def test_lab1_cpu_write_stores_plainly_and_copy_calls_memcpy():
    """What the CPU reference is matched against: Lab 1's write is a loop of ordinary vector
    stores (no streaming store, no memset), and LLVM turns its copy loop into one memcpy per
    thread's chunk, whose stores are glibc's choice by size (streaming above
    glibc.cpu.x86_non_temporal_threshold), never a streaming store of the kernel's own."""
    import platform
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the store instructions checked are x86's")
    import numpy as np
    from numba import njit
    from rooflinelib.measure import cpu
    copy = njit(parallel=True)(cpu._copy().py_func)  # a fresh compile: cached code has no assembly
    write = njit(parallel=True, fastmath={"reassoc"})(cpu._write().py_func)
    src = np.ones(cpu.BLOCK, np.float32)
    copy(src, np.empty_like(src))
    write(np.empty(cpu.BLOCK, np.float32), cpu.write_offsets())
    copy_asm, write_asm = ("\n".join(k.inspect_asm().values()) for k in (copy, write))
    assert "movups" in write_asm and "movnt" not in write_asm
    assert "memset" not in write_asm and "memcpy" not in write_asm
    assert "$memcpy" in copy_asm and "movnt" not in copy_asm
