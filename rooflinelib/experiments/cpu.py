"""The experiments on this machine's CPU, with Numba's parallel target.

The CPU stands in for the GPU when there is none: the same questions, asked of cores, SIMD
lanes, caches and DRAM instead of SMs, warps, L2 and HBM.  Every kernel verifies its output
(bit for bit where the arithmetic is exact, against a float64 reference within a stated
tolerance where it is not) before and after it is timed, by the verified-run protocol on the CPU
backend (:func:`rooflinelib.measure.protocol.measure_run`); every row keeps the median of
``repeats`` trials after a warm-up.

FLOPs and bytes come from :mod:`rooflinelib.core.operators` where the catalogue has the operator,
and are stated next to the kernel otherwise.  A DRAM roof an experiment is judged against (the
softmax's, the transpose's) is not timed here: it is the student's stored Lab 1 copy mix, from
the one chain of ceiling sources (:func:`rooflinelib.experiments.roofs.chain_dram_roof`), as on
the GPU.
"""
from __future__ import annotations

import math

from rooflinelib.core import operators
from rooflinelib.store.fileio import read_text
from rooflinelib.lessons.pitfalls import fft_correlation_flops, fft_length
from rooflinelib.measure.expected import fill_values, fma_peak_expected
from rooflinelib.measure import experiment_kernels_cpu as kernels
from rooflinelib.measure.protocol import Run, measure_run, measure_best
from rooflinelib.measure.provenance import cpu_provenance, now_iso
from rooflinelib.measure.timing import Stopwatch
from rooflinelib.core.model import Work
from rooflinelib.experiments.record import Experiment, Variant
from rooflinelib.experiments.roofs import chain_dram_roof
from rooflinelib.measure.cpu import CpuBackend

REPEATS = 7
WARMUP = 1


# --- shared plumbing -------------------------------------------------------------------------

def _threads() -> int:
    import numba
    return numba.get_num_threads()


def _device() -> dict:
    return cpu_provenance(_threads())


def _data(n: int):
    import numpy as np
    return fill_values(np.arange(n, dtype=np.int64)).astype(np.float32)


def _elements(size_mib: float, multiple: int = 4096) -> int:
    n = int(size_mib * 2 ** 20) // 4
    return max(multiple, n - n % multiple)


def _unless(ok: bool, what: str):
    """A check's answer: None when ``ok``, else what is wrong."""
    return None if ok else what


def _timed(name, run, n_flops, n_bytes, repeats=REPEATS, warmup=WARMUP, *, check, poison=None,
           **extra) -> Variant:
    """One experiment kernel by the verified-run protocol on the CPU backend: ``check()``
    returns None when the output is right (before and after the timed runs), else what is
    wrong.  The row keeps the median of ``repeats`` trials, no window of seconds."""
    backend = CpuBackend(repeats=repeats, warmup=warmup, window_s=0.0)
    m = measure_run(backend, name, "compute", Run(run, check, Work(float(n_flops), float(n_bytes)), name,
                                                  poison=poison))
    # the measurement's own judgement (protocol.judge_noise), so the table can say it was noisy
    judged = {key: m.extra[key] for key in ("iqr", "noisy", "noise", "cpu_share") if key in m.extra}
    return Variant(name, float(n_flops), float(n_bytes), m.timing.median_s, m.timing.spread,
                   m.timing.repeats, True, dict(extra, first_call_s=m.first_call_s, **judged))


def _experiment(name, title, variants, notes=(), said=(), **extra) -> Experiment:
    return Experiment(name, title, "cpu", _device(), now_iso(), tuple(variants), tuple(notes),
                      dict(extra), said=tuple(said))


def _dram_roof(mix: str, progress):
    """The CPU's DRAM roof of ``mix`` from the chain, said as the GPU's is."""
    roof = chain_dram_roof(mix, backend="cpu", progress=progress)
    _say(progress, f"  DRAM roof ({mix}): {roof.gbps:,.1f} GB/s, Lab 1 ({roof.origin}, {roof.created})")
    return roof


def _say(progress, text):
    if progress:
        progress(text)


# --- chains: dependent against independent ---------------------------------------------------

CHAIN_WIDTHS = (1, 4, 16, 64)


def run_chains(progress=None, widths=CHAIN_WIDTHS, target_s: float = 0.05, repeats=REPEATS) -> Experiment:
    """FMA rate with 1, 4, 16 and 64 independent chains per task (identity FMAs, exact)."""
    import numpy as np
    tasks = _threads() * 4
    out = np.empty(tasks, np.float32)
    one, zero = np.float32(1), np.float32(0)
    variants = []
    for width in widths:
        kernel = kernels.chains_kernel(width)
        kernel(out, one, zero, 10)  # compile
        with Stopwatch() as probe:
            kernel(out, one, zero, 20000)
        trips = int(min(5_000_000, max(1000, 20000 * target_s / max(probe.seconds, 1e-6))))
        out.fill(-1)
        kernel(out, one, zero, trips)
        expected = fma_peak_expected(np.arange(tasks), width)
        variants.append(_timed(f"{width} chain{'s' if width > 1 else ''}",
                               lambda: kernel(out, one, zero, trips),
                               2.0 * tasks * trips * width, 0.0, repeats,
                               check=lambda: _unless(np.array_equal(out.astype(np.int64), expected), "wrong sums"),
                               poison=lambda: out.fill(-1), chains=width, trips=trips))
        _say(progress, f"  {width} chains: {variants[-1].gflops:,.1f} GFLOP/s")
    return _experiment("chains", "FMA rate against the number of independent chains", variants,
                       ["One chain waits for each FMA to finish before the next can start "
                        "(latency); many independent chains keep the pipelines full (throughput)."])


# --- softmax: three passes against one -------------------------------------------------------

def run_softmax(progress=None, size_mib: float = 32, cols: int = 2048, repeats=REPEATS) -> Experiment:
    """Row softmax of a float32 matrix, three passes (5 accesses per element) against one
    fused pass (2 accesses); each row is 8 KB, so the fused kernel's rereads hit the cache."""
    import numpy as np
    rows = max(16, _elements(size_mib) // cols)
    x = (_data(rows * cols).reshape(rows, cols) / np.float32(1024)).astype(np.float32)
    scratch, y3, yf = (np.empty_like(x) for _ in range(3))
    row_max, row_sum = np.empty(rows, np.float32), np.empty(rows, np.float32)
    three_pass, fused = kernels.softmax_kernels()
    three_pass(x, scratch, y3, row_max, row_sum)
    fused(x, yf)
    reference = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    reference /= reference.sum(axis=1, keepdims=True)

    def close(got):
        error = float(np.max(np.abs(got - reference) / reference))
        return _unless(error < 1e-4, f"relative error {error:.2e} against float64")

    # Its memory roof: Lab 1's copy mix from the chain (each pass reads a row and writes one,
    # so its bytes are a copy's mix, pitfalls.own_dram_mix); taken first, so that a Lab 1 run
    # the chain needs happens before the timing, and a missing one stops before it.
    copy = _dram_roof("copy", progress)
    variants = []
    for name, fused_flag, run, got in (("3-pass", False, lambda: three_pass(x, scratch, y3, row_max, row_sum), y3),
                                       ("fused", True, lambda: fused(x, yf), yf)):
        cost = operators.softmax(rows * cols, fused=fused_flag, dtype="fp32")
        variants.append(_timed(name, run, cost.n_flops, cost.n_bytes, repeats, check=lambda g=got: close(g),
                               poison=lambda g=got: g.fill(np.nan), rows=rows, cols=cols))
        _say(progress, f"  softmax {name}: {variants[-1].gbps:,.1f} GB/s")
    predicted = operators.softmax(2, fused=False).n_bytes / operators.softmax(2, fused=True).n_bytes
    # the softmax's other bound, its transcendental roof (pitfall 5): Lab 1 does not measure it
    exp_rate = run_transcendental(target_s=0.02, repeats=3).variant("exp").gflops
    return _experiment("softmax", "Softmax: three passes against one fused pass", variants,
                       ["Verified against a float64 softmax to a relative error below 1e-4."],
                       said=[copy.said()], predicted_speedup=predicted, copy_gbps=copy.gbps,
                       dram_roof=copy.as_extra(), exp_per_s=exp_rate * 1e9, exps=rows * cols)


# --- the transpose ladder --------------------------------------------------------------------



def run_transpose(progress=None, n: int = 4096, repeats=REPEATS) -> Experiment:
    """Transpose an n x n float32 matrix: naive, tiled (32 x 32), and tiled into rows padded
    by one cache line, each scored as a fraction of Lab 1's DRAM copy mix (it reads each
    element once and writes it once), from the chain."""
    import numpy as np
    n = max(kernels.TILE, n - n % kernels.TILE)
    a = _data(n * n).reshape(n, n)
    out = np.empty_like(a)
    padded_store = np.empty((n, n + kernels.PAD), np.float32)
    padded = padded_store[:, :n]  # rows n + 16 floats apart: no power-of-two stride
    naive, tiled = kernels.transpose_kernels()
    expected = a.T
    checks = (("naive", naive, out), ("tiled", tiled, out), ("tiled + padded", tiled, padded))
    moved = 2.0 * 4 * n * n  # each element read once and written once
    copy = _dram_roof("copy", progress)
    variants = []
    for name, kernel, target in checks:
        variants.append(_timed(name, lambda k=kernel, t=target: k(a, t), 0, moved, repeats,
                               check=lambda t=target: _unless(np.array_equal(t, expected), "differs from a.T"),
                               poison=lambda t=target: t.fill(-1), n=n))
        _say(progress, f"  transpose {name}: {variants[-1].gbps:,.1f} GB/s")
    return _experiment("transpose", "The transpose ladder against a copy", variants,
                       ["Zero FLOPs: scored as a fraction of Lab 1's DRAM copy (the copy mix).",
                        "On a CPU, padding the rows breaks the power-of-two stride that makes "
                        "a column's elements compete for the same cache sets; on a GPU it "
                        "breaks shared-memory bank conflicts. Same idea, different hardware."],
                       said=[copy.said()], copy_gbps=copy.gbps, dram_roof=copy.as_extra())


# --- pitfall 1: launch-bound and starved -----------------------------------------------------

def run_launch(progress=None, small: int = 4096, large_mib: float = 64, repeats: int = 25) -> Experiment:
    """Vector add of 4096 elements and of a DRAM-sized vector: same intensity, 1/12."""
    import numpy as np
    parallel_add, serial_add = kernels.vector_add_kernels()
    variants = []
    for label, n, kernel in ((f"{small} elements, parallel", small, parallel_add),
                             (f"{small} elements, one thread", small, serial_add),
                             ("large, parallel", _elements(large_mib), parallel_add)):
        a, b = _data(n), _data(n)[::-1].copy()
        c = np.empty_like(a)
        cost = operators.vector_add(n, "fp32")
        variants.append(_timed(label, lambda k=kernel, x=a, y=b, z=c: k(x, y, z),
                               cost.n_flops, cost.n_bytes, repeats,
                               check=lambda x=a, y=b, z=c: _unless(np.array_equal(z, x + y), "differs"),
                               poison=lambda z=c: z.fill(-1), elements=n))
        _say(progress, f"  vector add {label}: {variants[-1].median_s * 1e6:,.1f} us")
    return _experiment("launch", "Vector add: a few thousand elements against many millions", variants,
                       ["Both sizes have I = 1/12 FLOP/byte, so the roofline gives both the "
                        "same roof; whatever separates their rates is fixed start-up cost, not bytes."])


def run_starved(progress=None, k: int = 64, size_mib: float = 16, repeats=REPEATS) -> Experiment:
    """The sweep kernel at K FMAs per element, with one parallel task against one per core
    (times 8): the same intensity, K/4, and a fraction of the machine."""
    import numpy as np
    threads = _threads()
    n = _elements(size_mib, 128 * threads * 8)
    x = _data(n)
    y = np.empty_like(x)
    one, zero = np.float32(1), np.float32(0)
    kernel = kernels.chunked_sweep(k)
    variants = []
    for chunks in (1, threads * 8):
        variants.append(_timed(f"{chunks} parallel task{'s' if chunks > 1 else ''}",
                               lambda c=chunks: kernel(x, y, one, zero, c),
                               2.0 * k * n, 8.0 * n, repeats,
                               check=lambda: _unless(np.array_equal(x, y), "changed the data"),
                               poison=lambda: y.fill(-1), chunks=chunks, k=k))
        _say(progress, f"  sweep k={k}, {chunks} tasks: {variants[-1].gflops:,.1f} GFLOP/s")
    return _experiment("starved", f"Sweep kernel K={k}: one task against {threads * 8}", variants,
                       [f"This machine has {threads} thread(s) for Numba; a GPU has thousands of "
                        "lanes, so a starved grid can lose far more there."])


# --- pitfall 2: serial against overlapped ----------------------------------------------------

OVERLAP_KS = (4, 8, 16, 32, 64, 128, 256)


def run_overlap(progress=None, size_mib: float = 64, repeats=REPEATS) -> Experiment:
    """The same bytes and FLOPs twice: as the sweep kernel, whose loop loads, computes and stores
    element by element so the core overlaps the two, and as a copy followed by an FMA loop on
    registers.  K is picked so that the two phases take about as long: the worst case for
    no overlap."""
    import numpy as np
    threads = _threads()
    tasks = threads * 8
    n = _elements(size_mib, 128 * tasks)
    x, y = _data(n), np.empty(n, np.float32)
    one, zero = np.float32(1), np.float32(0)
    copy = kernels.chunked_sweep(0)
    copy(x, y, one, zero, tasks)
    with Stopwatch() as copy_time:
        copy(x, y, one, zero, tasks)
    fma = kernels.chains_kernel(64)
    out = np.empty(tasks, np.float32)
    fma(out, one, zero, 10)
    with Stopwatch() as probe:
        fma(out, one, zero, 2000)
    flop_rate = 2.0 * tasks * 2000 * 64 / max(probe.seconds, 1e-9)
    balanced = flop_rate * copy_time.seconds / (2.0 * n)  # K at which F/P = M/B
    k = min(OVERLAP_KS, key=lambda kk: abs(math.log(kk / max(balanced, 1e-9))))
    trips = max(1, k * n // (tasks * 64))  # the same FLOPs as the sweep at this K
    sweep = kernels.chunked_sweep(k)
    want = fma_peak_expected(np.arange(tasks), 64)

    def data_kept():
        return _unless(np.array_equal(x, y), f"sweep k={k} or copy changed the data")

    def fma_right():
        return _unless(np.array_equal(out.astype(np.int64), want), "FMA phase: wrong sums")

    def poison_y():
        y.fill(-1)

    def poison_both():
        y.fill(-1)
        out.fill(-1)

    flops, moved = 2.0 * tasks * trips * 64, 8.0 * n
    variants = [
        _timed("memory phase alone", lambda: copy(x, y, one, zero, tasks), 0, moved, repeats,
               check=data_kept, poison=poison_y),
        _timed("compute phase alone", lambda: fma(out, one, zero, trips), flops, 0, repeats,
               check=fma_right, poison=lambda: out.fill(-1)),
        _timed("one after the other", lambda: (copy(x, y, one, zero, tasks), fma(out, one, zero, trips)),
               flops, moved, repeats, check=lambda: data_kept() or fma_right(), poison=poison_both),
        _timed("overlapped (sweep kernel)", lambda: sweep(x, y, one, zero, tasks), flops, moved, repeats,
               check=data_kept, poison=poison_y),
    ]
    for v in variants:
        _say(progress, f"  {v.name}: {v.median_s * 1e3:,.2f} ms")
    return _experiment("overlap", f"Serial against overlapped phases (K = {k})", variants,
                       ["The roofline assumes max(F/P, M/B); code that cannot overlap pays F/P + M/B."],
                       k=k)


# --- pitfall 3: a cache-resident working set -------------------------------------------------

def _cache_sizes(small_kib: float, large_mib: float):
    tasks = _threads()
    large_n = _elements(large_mib, 4096 * tasks)
    small_n = max(1024 * tasks, int(small_kib * 1024) // 4 // (1024 * tasks) * 1024 * tasks)
    return ((f"{small_kib:g} KiB, copied {large_n // small_n} times", small_n, large_n // small_n),
            (f"{large_mib:g} MiB, copied once", large_n, 1))


def run_cache(progress=None, small_kib: float = 32, large_mib: float = 64, sizes=None,
              repeats=REPEATS) -> Experiment:
    """Copies moving the same number of bytes: a working set that fits in the core's cache,
    copied many times, against one far larger than the caches, copied once."""
    import numpy as np
    kernel = kernels.passes_copy()
    tasks = _threads()
    variants = []
    for label, n, passes in sizes or _cache_sizes(small_kib, large_mib):
        x = _data(n)
        y = np.empty_like(x)
        variants.append(_timed(label, lambda a=x, b=y, p=passes: kernel(a, b, p, tasks),
                               0.0, 8.0 * n * passes, repeats,
                               check=lambda a=x, b=y: _unless(np.array_equal(a, b), "copy differs"),
                               poison=lambda b=y: b.fill(-1), elements=n, passes=passes))
        _say(progress, f"  {label}: {variants[-1].gbps:,.1f} GB/s")
    return _experiment("cache", "Cache-resident against DRAM-sized working set", variants,
                       ["Both move the same number of bytes through the core. Only the "
                        "DRAM-sized one moves them through DRAM."])


# --- pitfall 5: transcendentals --------------------------------------------------------------

def run_transcendental(progress=None, target_s: float = 0.05, repeats=REPEATS) -> Experiment:
    """exp against FMA, both in 64 independent chains per task, both exact."""
    import numpy as np
    tasks = _threads() * 4
    out = np.empty(tasks, np.float32)
    exp_chains = kernels.exp_kernels()
    zero = np.float32(0)
    exp_chains(out, zero, 10)
    with Stopwatch() as probe:
        exp_chains(out, zero, 2000)
    trips = int(max(100, 2000 * target_s / max(probe.seconds, 1e-9)))
    t = np.arange(tasks)
    expected = 64 * (t % 64) + 64 * 63 // 2 + 64 * trips
    exp_variant = _timed("exp", lambda: exp_chains(out, zero, trips), float(tasks) * 64 * trips, 0,
                         repeats, check=lambda: _unless(np.array_equal(out.astype(np.int64), expected), "wrong sums"),
                         poison=lambda: out.fill(-1), trips=trips, note="one exp counted as 1 operation")
    fma_rate = run_chains(widths=(64,), target_s=target_s, repeats=repeats).variants[0]
    fma_variant = Variant("FMA", fma_rate.n_flops, 0.0, fma_rate.median_s, fma_rate.spread,
                          fma_rate.repeats, True, dict(fma_rate.extra))
    _say(progress, f"  exp: {exp_variant.gflops:,.2f} G/s, FMA: {fma_variant.gflops:,.2f} GFLOP/s")
    return _experiment("transcendental", "exp against fused multiply-add", [exp_variant, fma_variant],
                       ["Counting exp as 1 FLOP and scoring it against the FMA roof hides how "
                        "much slower it is."])


# --- pitfall 6: strided reads ----------------------------------------------------------------

STRIDES = (1, 2, 4, 8, 16, 32)


def run_strided(progress=None, size_mib: float = 128, strides=STRIDES, repeats=REPEATS) -> Experiment:
    """Sum every s-th float of a DRAM-sized buffer: useful bytes per second as s grows."""
    import numpy as np
    tasks = _threads()
    n = _elements(size_mib, max(strides) * 4096 * tasks)
    x = _data(n)
    kernel = kernels.strided_kernel()
    partial = np.empty(tasks, np.float64)
    variants = []
    for stride in strides:
        count = (n // stride) // tasks * tasks
        expected = float(np.sum(x[: count * stride: stride], dtype=np.float64))
        variants.append(_timed(f"stride {stride}", lambda s=stride: kernel(x, s, partial),
                               float(count), 4.0 * count, repeats,
                               check=lambda e=expected: _unless(float(np.sum(partial)) == e, "wrong sum"),
                               poison=lambda: partial.fill(np.nan), stride=stride))
        _say(progress, f"  stride {stride}: {variants[-1].gbps:,.2f} useful GB/s")
    return _experiment("strided", "Useful bandwidth of strided reads", variants,
                       ["Bytes counted are the useful ones: 4 per element read. The memory "
                        "system moves whole 64-byte lines, so from stride 16 on the line model "
                        "predicts 16 times more bytes moved than used."])


# --- pitfall 7: O(n^2) at its roof against O(n log n) ----------------------------------------

def run_algorithm(progress=None, n: int = 2 ** 16, m: int = 2 ** 14, repeats: int = 5) -> Experiment:
    """A correlation of n outputs with an m-tap filter: directly (2nm FLOPs, FMA-bound) against
    the FFT route (three real transforms of about 2.5 L log2 L FLOPs each, L >= n + 2m)."""
    import numpy as np
    rng = np.random.default_rng(20261130)
    signal = rng.standard_normal(n + m).astype(np.float32)
    taps = rng.standard_normal(m).astype(np.float32)
    out = np.empty(n, np.float32)
    direct = kernels.correlate_kernel()
    length = fft_length(n, m)

    def via_fft():
        spectrum = np.fft.rfft(signal, length) * np.conj(np.fft.rfft(taps, length))
        return np.fft.irfft(spectrum, length)[:n]

    reference = np.correlate(signal.astype(np.float64), taps.astype(np.float64), "valid")[:n]
    scale = float(np.max(np.abs(reference)))
    result = {}

    def close(got):
        error = float(np.max(np.abs(got - reference))) / scale
        return _unless(error < 1e-4, f"error {error:.2e} of the largest output")

    def fft_route():
        result["fft"] = via_fft()

    fft_flops = fft_correlation_flops(length)
    # The ceiling is the best of a few measurements, as a ceiling always is (ERT reports the
    # best configuration): a busy moment can only make a run slower, never faster.
    backend = CpuBackend(repeats=3, window_s=0.0)  # three short trials, three times: no window of seconds
    peak = max(measure_best(backend, "fp32", "compute", backend.fma_runs("fp32", target_s=0.05)).value
               for _ in range(3))
    timed_direct = _timed("direct O(n m)", lambda: direct(signal, taps, out), 2.0 * n * m,
                          4.0 * (2 * n + 2 * m), repeats, check=lambda: close(out), poison=lambda: out.fill(np.nan))
    direct_row = Variant(timed_direct.name, timed_direct.n_flops, timed_direct.n_bytes,
                         timed_direct.median_s, timed_direct.spread, timed_direct.repeats, True,
                         {"fraction_of_fp32_peak": timed_direct.gflops / peak,
                          "seconds_at_100_percent": timed_direct.n_flops / (peak * 1e9)})
    fft_row = _timed("FFT O(L log L)", fft_route, fft_flops, 0.0, repeats, check=lambda: close(result["fft"]),
                     length=length)
    for v in (direct_row, fft_row):
        _say(progress, f"  {v.name}: {v.median_s * 1e3:,.2f} ms, {v.gflops:,.1f} GFLOP/s")
    return _experiment("algorithm", "Direct correlation against FFT correlation", [direct_row, fft_row],
                       ["Both verified against numpy's float64 correlation."],
                       fp32_peak_gflops=peak, n=n, m=m)


# --- pitfall 8: the ceiling moves ------------------------------------------------------------

def _cpu_mhz() -> float:
    try:
        values = [float(line.split(":")[1]) for line in read_text("/proc/cpuinfo").splitlines()
                  if line.lower().startswith("cpu mhz")]
        return sum(values) / len(values) if values else float("nan")
    except (ValueError, IndexError):  # FileError included
        return float("nan")


def run_clocks(progress=None, runs: int = 8, target_s: float = 0.03) -> Experiment:
    """The fp32 FMA ceiling measured ``runs`` times in a row, with the clock read around each."""
    variants = []
    for i in range(runs):
        before = _cpu_mhz()
        v = run_chains(widths=(64,), target_s=target_s, repeats=3).variants[0]
        after = _cpu_mhz()
        # each run keeps its own noise judgement: under a browser's load one fell to 0.4% of the
        # run alone with no flag (benchmarks/browser_vs_alone.py, 2026-12-02)
        judged = {key: v.extra[key] for key in ("iqr", "noisy", "noise", "cpu_share") if key in v.extra}
        variants.append(Variant(f"run {i + 1}", v.n_flops, 0.0, v.median_s, v.spread, v.repeats, True,
                                {"cpu_mhz_before": before, "cpu_mhz_after": after, **judged}))
        _say(progress, f"  run {i + 1}: {variants[-1].gflops:,.1f} GFLOP/s")
    return _experiment("clocks", "The same FMA ceiling, measured again and again", variants,
                       ["Clock readings come from /proc/cpuinfo (NaN where it has none)."])
