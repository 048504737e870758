"""The experiments on a CUDA GPU, with Numba-CUDA.

The plumbing is the measurement engine's (:class:`rooflinelib.measure.engine.NumbaGpu`):
device arrays, first-call timing, device-event timing with a priming launch, verification
before any rate.  The kernels here are the experiments' own; the engine's copy, FMA-peak,
sweep, L2 and SFU measurements are reused where an experiment needs a ceiling.

Kernel rules (docs/h200-facts.md): float32 constants are typed, loops that must cost
nothing are ``while`` loops on int32 counters, and FLOPs and bytes come from
:mod:`rooflinelib.operators` or are stated next to the kernel.
"""
from __future__ import annotations


# At module level, as the simulator requires: it swaps the kernels' global ``cuda`` for its own.
from numba import cuda

from .. import operators
from ..measure import accounting as acc
from ..measure.checks import fill_values, fma_peak_expected
from ..measure.engine import BLOCK, FP32_CONFIGS, NumbaGpu
from ..measure.errors import VerificationError
from ..measure.experiment_kernels import (SOFTMAX_COLS, SOFTMAX_THREADS, TILE, TILE_ROWS, correlate_kernel,
                                          grid_stride_sweep, softmax_kernels, strided_sum_kernel,
                                          transpose_kernels, vector_add_kernel)
from ..measure.protocol import Run, measure_best, measure_run
from ..measure.provenance import ClockSampler
from .record import Experiment, Variant



def _unless(ok: bool, what: str):
    """A check's answer: None when ``ok``, else what is wrong."""
    return None if ok else what


def _variant(name, measurement_timing, n_flops, n_bytes, first_s=0.0, **extra) -> Variant:
    t = measurement_timing
    return Variant(name, float(n_flops), float(n_bytes), t.median_s, t.spread, t.repeats, True,
                   dict(extra, first_call_s=first_s))


class _Run:
    """One experiment's session on the GPU: the backend, its start state, and the result."""

    def __init__(self, progress=None):
        self.gpu = NumbaGpu()
        self.progress = progress
        self.session = self.gpu.start()
        self.started = self.session["started"]

    def say(self, text):
        if self.progress:
            self.progress(text)

    def experiment(self, name, title, variants, notes=(), **extra) -> Experiment:
        device = self.gpu.finish(self.session)
        return Experiment(name, title, "numba", device, self.started, tuple(variants),
                          tuple(notes), dict(extra))

    def timed(self, name, launch, n_flops, n_bytes, check, poison=None, **extra) -> Variant:
        """One experiment kernel by the verified-run protocol: ``check()`` returns None when
        the output is right, else what is wrong."""
        m = measure_run(self.gpu, name, "compute", Run(launch, check, acc.Work(float(n_flops), float(n_bytes)),
                                                       name, poison=poison))
        return _variant(name, m.timing, n_flops, n_bytes, m.first_call_s, **extra)

    def ceiling(self, name: str, runs) -> "object":
        """A ceiling of the engine measured here, as Lab 1 measures it."""
        from ..measure import registry
        return measure_best(self.gpu, name, registry.get(name).kind, runs, self.progress)


# --- experiments -----------------------------------------------------------------------------

#: (chains, unroll) of the chains experiment: every body is short enough for NVVM to unroll
#: fully (64 steps of each chain, or 256 FMAs), so the loop costs three instructions a trip.
CHAIN_CONFIGS = ((1, 64), (2, 64), (4, 64), (8, 32))
#: The old 1-chain shape, kept as the code-generation trap it is: a 256-step ``range`` loop
#: that NVVM unrolls only 64 times, keeping a 64-bit loop counter beside every FFMA.
CHAIN_TRAP = (1, 256)


def run_chains(progress=None, n_iter: int = 2048) -> Experiment:
    """The engine's FMA-peak kernel with 1, 2, 4 and 8 chains, at full occupancy (every thread
    the GPU holds: 16 warps per scheduler on Hopper) and at one warp per scheduler (a 128-thread
    block per SM), each verified; plus the SASS opcode counts of every kernel.

    With 16 warps to switch between, a scheduler has an independent FFMA to issue every cycle
    even with one chain per warp; with one warp, only the warp's own chains can cover the
    FFMA's latency, and the rate climbs with the chain count until they do.
    """
    import numpy as np

    from ..measure.sass import kernel_histograms
    run = _Run(progress)
    g = run.gpu
    per_sm_low = 4 * 32  # one warp for each of the SM's four schedulers
    variants = []
    for (chains, unroll), trap in [(c, False) for c in CHAIN_CONFIGS] + [(CHAIN_TRAP, True)]:
        source = g.kn.fma_peak_kernel("fp32", chains, unroll, n_iter)
        kernel = source.compile()
        sass = kernel_histograms([source]).get(source.name, {})
        settings = [("full occupancy", g.sm_count * (g.max_threads_per_sm // BLOCK), BLOCK)]
        if not trap:
            settings.append(("one warp per scheduler", g.sm_count, per_sm_low))
        for setting, grid, block in settings:
            threads = grid * block
            out = g.empty(threads, "fp32")
            want = fma_peak_expected(np.arange(threads), chains)
            launch = (lambda k=kernel, gr=grid, bl=block, o=out:  # noqa: E731
                      k[gr, bl](o, np.float32(1), np.float32(0)))
            flops = acc.fma_peak_work(threads, n_iter, unroll, chains).n_flops
            name = (f"{chains} chain{'s' if chains > 1 else ''}, {setting}" if not trap else
                    f"1 chain, unroll {unroll} (NVVM unrolls it partly), {setting}")
            variants.append(run.timed(
                name, launch, flops, 0.0,
                lambda o=out, w=want: _unless(np.array_equal(g.host(o).astype(np.int64), w), "wrong sums"),
                poison=lambda o=out: g.poison(o), chains=chains, unroll=unroll, n_iter=n_iter,
                setting=setting, warps_per_scheduler=threads // g.sm_count // 4 // 32,
                dependent_steps=n_iter * unroll, trap=trap, sass=sass))
            run.say(f"  {name}: {variants[-1].gflops:,.0f} GFLOP/s")
    return run.experiment("chains", "FMA rate against independent chains, at full and at low occupancy",
                          variants, ["Every variant verified; SASS opcode counts of each kernel in its details."])


def run_softmax(progress=None, rows: int = 16384, cols: int = SOFTMAX_COLS) -> Experiment:
    import numpy as np
    run = _Run(progress)
    row_max, exp_sum, normalize, fused = softmax_kernels(cols)
    host = (fill_values(np.arange(rows * cols)) / 1024).astype(np.float32).reshape(rows, cols)
    x = cuda.to_device(host)
    scratch, y3, yf = (cuda.device_array((rows, cols), np.float32) for _ in range(3))
    maxima, sums = cuda.device_array(rows, np.float32), cuda.device_array(rows, np.float32)

    def three_pass():
        row_max[rows, SOFTMAX_THREADS](x, maxima)
        exp_sum[rows, SOFTMAX_THREADS](x, maxima, scratch, sums)
        normalize[rows, SOFTMAX_THREADS](scratch, sums, y3)

    def one_pass():
        fused[rows, SOFTMAX_THREADS](x, yf)

    sample = host[:: max(1, rows // 64)].astype(np.float64)
    reference = np.exp(sample - sample.max(axis=1, keepdims=True))
    reference /= reference.sum(axis=1, keepdims=True)

    def check(out):
        got = out.copy_to_host()[:: max(1, rows // 64)]
        error = float(np.max(np.abs(got - reference) / reference))
        return _unless(error < 1e-4, f"relative error {error:.2e} against float64")

    variants = []
    for name, is_fused, launch, out in (("3-pass", False, three_pass, y3), ("fused", True, one_pass, yf)):
        cost = operators.softmax(rows * cols, fused=is_fused)
        variants.append(run.timed(name, launch, cost.n_flops, cost.n_bytes, lambda out=out: check(out),
                                  poison=lambda out=out: run.gpu.poison(out), rows=rows, cols=cols))
        run.say(f"  softmax {name}: {variants[-1].gbps:,.0f} GB/s")
    # The two rates that bound a softmax, measured in the same run: the copy bandwidth (its
    # memory roof) and the SFU's exp2 rate (its transcendental roof: every exp needs one ex2).
    copy = run.ceiling("dram", run.gpu.copy_runs(rows * cols * 4))
    sfu = run.ceiling("sfu", run.gpu.sfu_runs())
    predicted = operators.softmax(2, fused=False).n_bytes / operators.softmax(2, fused=True).n_bytes
    return run.experiment("softmax", "Softmax: three passes against one fused pass", variants,
                          ["Verified on 64 sampled rows against a float64 softmax (relative error < 1e-4).",
                           "exp_per_s is the SFU's measured exp2 rate: each exp needs one ex2, so "
                           "no kernel computes exps faster."],
                          predicted_speedup=predicted, copy_gbps=copy.value, exp_per_s=sfu.value * 1e9,
                          exps=rows * cols)


def run_transpose(progress=None, n: int = 8192) -> Experiment:
    import numpy as np
    run = _Run(progress)
    n -= n % TILE
    host = fill_values(np.arange(n * n)).astype(np.float32).reshape(n, n)
    a = cuda.to_device(host)
    out = cuda.device_array((n, n), np.float32)
    grid, block = (n // TILE, n // TILE), (TILE, TILE_ROWS)
    moved = 2.0 * 4 * n * n
    copy = run.ceiling("dram", run.gpu.copy_runs(n * n * 4))
    variants = [Variant("copy", 0.0, copy.work.n_bytes, copy.timing.median_s, copy.timing.spread,
                        copy.timing.repeats, True, {"kernel": copy.kernel})]
    for name, kernel in zip(("naive", "tiled", "tiled + padded"), transpose_kernels()):
        launch = lambda k=kernel: k[grid, block](a, out)  # noqa: E731
        variants.append(run.timed(name, launch, 0.0, moved,
                                  lambda: _unless(np.array_equal(out.copy_to_host(), host.T), "differs from a.T"),
                                  poison=lambda: run.gpu.poison(out), n=n))
        run.say(f"  transpose {name}: {variants[-1].gbps:,.0f} GB/s")
    return run.experiment("transpose", "The transpose ladder against a copy", variants,
                          ["Zero FLOPs: scored as a fraction of the copy's bandwidth."])


def _per_launch_wall_s(launch, sync, n: int = 2000, rounds: int = 5) -> tuple:
    """Host seconds per launch of ``n`` launches back to back (the dispatch: the GPU drains an
    empty kernel faster than any host enqueues it), median and spread over ``rounds``."""
    import statistics
    import time
    for _ in range(50):
        launch()
    sync()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            launch()
        samples.append((time.perf_counter() - t0) / n)
        sync()
    med = statistics.median(samples)
    return med, (max(samples) - min(samples)) / med, rounds


def _graph_per_kernel_s(n: int = 1000, rounds: int = 5):
    """Device seconds per empty kernel inside a CUDA graph of ``n`` of them (CuPy), where no
    host work sits between two launches: the GPU's own cost of a launch.  None without CuPy."""
    import statistics
    try:
        import cupy as cp
        kernel = cp.RawKernel(r'extern "C" __global__ void touch(float* x) { x[0] = 1.0f; }', "touch")
        x = cp.zeros(1, cp.float32)
        stream = cp.cuda.Stream(non_blocking=True)
        with stream:
            stream.begin_capture()
            for _ in range(n):
                kernel((1,), (32,), (x,))
            graph = stream.end_capture()
            graph.launch(stream)
            stream.synchronize()
            samples = []
            for _ in range(rounds):
                start, end = cp.cuda.Event(), cp.cuda.Event()
                start.record(stream)
                graph.launch(stream)
                end.record(stream)
                end.synchronize()
                samples.append(cp.cuda.get_elapsed_time(start, end) / 1e3 / n)
        if float(x.get()[0]) != 1.0:
            raise RuntimeError("the graph's kernels did not run")
    except Exception as exc:  # no CuPy, or no graphs in this CuPy: say so
        return None, f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}"
    med = statistics.median(samples)
    return (med, (max(samples) - min(samples)) / med, rounds), None


def _dispatchers(run):
    """(label, launch, sync, check) for an empty kernel that writes x[0] = 1, per library."""
    import numpy as np

    @cuda.jit("void(float32[::1])")
    def touch(x):
        if cuda.threadIdx.x == 0:
            x[0] = 1.0

    x = cuda.to_device(np.zeros(1, np.float32))
    out = [("Numba-CUDA", lambda: touch[1, 32](x), cuda.synchronize,
            lambda: float(x.copy_to_host()[0]) == 1.0)]
    try:
        import cupy as cp
        kernel = cp.RawKernel(r'extern "C" __global__ void touch(float* x) { x[0] = 1.0f; }', "touch")
        y = cp.zeros(1, cp.float32)
        out.append(("CuPy RawKernel", lambda: kernel((1,), (32,), (y,)), cp.cuda.Device().synchronize,
                    lambda: float(y.get()[0]) == 1.0))
    except Exception:  # CuPy missing: the others still measure
        pass
    try:
        import torch
        if torch.cuda.is_available():
            z = torch.zeros(1, device="cuda")
            out.append(("torch (fill_ on one float)", lambda: z.fill_(1.0), torch.cuda.synchronize,
                        lambda: float(z.item()) == 1.0))
    except Exception:  # torch missing: the others still measure
        pass
    return out


def run_launch(progress=None, small: int = 4096, large: int = 2 ** 26) -> Experiment:
    """Pitfall 1: what a launch costs, taken apart.  The vector add at 4096 and 64 M elements
    timed with device events as every kernel is; an empty kernel's host dispatch per launch
    (Numba, CuPy, torch: wall clock over launches back to back); and its device cost per launch
    inside a CUDA graph, where no host work separates two kernels."""
    import numpy as np
    run = _Run(progress)
    kernel = vector_add_kernel()
    variants = []
    for label, n in ((f"vector add, {small} elements (device events)", small),
                     (f"vector add, {large} elements (device events)", large)):
        ha, hb = fill_values(np.arange(n)).astype(np.float32), fill_values(np.arange(n, 2 * n)).astype(np.float32)
        a, b, c = cuda.to_device(ha), cuda.to_device(hb), cuda.device_array(n, np.float32)
        blocks = min(run.gpu.sm_count * 32, max(1, n // BLOCK))
        launch = lambda k=kernel, x=a, y=b, z=c, g=blocks: k[g, BLOCK](x, y, z)  # noqa: E731
        cost = operators.vector_add(n)
        variants.append(run.timed(label, launch, cost.n_flops, cost.n_bytes,
                                  lambda c=c, ha=ha, hb=hb: _unless(np.array_equal(c.copy_to_host(), ha + hb), "differs"),
                                  poison=lambda c=c: run.gpu.poison(c), elements=n, part="kernel"))
        run.say(f"  {label}: {variants[-1].median_s * 1e6:,.2f} us")
    for library, launch, sync, ok in _dispatchers(run):
        per, spread, rounds = _per_launch_wall_s(launch, sync)
        if not ok():
            raise VerificationError(f"verification: launch: the empty {library} kernel did not run")
        variants.append(Variant(f"empty kernel, host dispatch ({library})", 0.0, 0.0, per, spread, rounds,
                                True, {"part": "host dispatch", "library": library, "launches": 2000}))
        run.say(f"  host dispatch, {library}: {per * 1e6:,.2f} us per launch")
    graph, reason = _graph_per_kernel_s()
    notes = ["Device events around one launch include the host's dispatch whenever the launch "
             "before it finishes first: for a tiny kernel they measure the host, not the GPU."]
    if graph:
        variants.append(Variant("empty kernel, device cost in a CUDA graph (CuPy)", 0.0, 0.0, graph[0], graph[1],
                                graph[2], True, {"part": "device", "library": "CuPy graph", "launches": 1000}))
        run.say(f"  device, in a CUDA graph: {graph[0] * 1e6:,.2f} us per kernel")
    else:
        notes.append(f"No CUDA-graph measurement: {reason}")
    return run.experiment("launch", "What a launch costs: the kernel, the host's dispatch, the device's", variants,
                          notes)


def run_starved(progress=None, k: int = 64, n: int = 2 ** 24) -> Experiment:
    import numpy as np
    run = _Run(progress)
    host = fill_values(np.arange(n)).astype(np.float32)
    x, y = cuda.to_device(host), cuda.device_array(n, np.float32)
    kernel = grid_stride_sweep(k)
    one, zero = np.float32(1), np.float32(0)
    variants = []
    for blocks in (2, run.gpu.sm_count * 8):
        launch = lambda g=blocks: kernel[g, BLOCK](x, y, one, zero)  # noqa: E731
        variants.append(run.timed(f"{blocks} blocks", launch, 2.0 * k * n, 8.0 * n,
                                  lambda: _unless(np.array_equal(y.copy_to_host(), host), "changed the data"),
                                  poison=lambda: run.gpu.poison(y), blocks=blocks, k=k))
        run.say(f"  {blocks} blocks: {variants[-1].gflops:,.0f} GFLOP/s")
    return run.experiment("starved", f"Sweep kernel K={k}: 2 blocks against a full grid", variants)


def run_overlap(progress=None, size_mib: float = 1024, k: int = 64) -> Experiment:
    """The engine's copy and FMA-peak kernels one after the other, against its sweep at K,
    which moves the same bytes and does about the same FLOPs in one overlapped kernel."""
    import numpy as np
    run = _Run(progress)
    g = run.gpu
    buffers = g.sweep_buffers(int(size_mib * 2 ** 20))
    n_vec, x, y = buffers.n_vec, buffers.x, buffers.y
    copy = g.copy_launcher(1, BLOCK, n_vec, x, y)
    threads = g.threads_to_fill()
    out = g.empty(threads, "fp32")
    sweep_flops = acc.sweep_work(4 * n_vec, k).n_flops
    n_iter = max(1, round(sweep_flops / acc.fma_peak_work(threads, 1, 32, 8).n_flops))
    fma = g.fma_launcher("fp32", 8, 32, n_iter, threads, out)
    sweep = g.sweep_launcher(k, n_vec, x, y)
    def data_kept():
        return _unless(g.count_mismatches(x, y) == 0, "copy or sweep changed the data")

    def fma_right():
        return _unless(np.array_equal(g.host(out).astype(np.int64), fma_peak_expected(np.arange(threads), 8)),
                       "FMA phase wrong")

    def both():
        return data_kept() or fma_right()

    def poison_y():
        g.poison(y)

    def poison_both():
        g.poison(y)
        g.poison(out)

    flops = acc.fma_peak_work(threads, n_iter, 32, 8).n_flops
    moved = acc.copy_work(n_vec).n_bytes
    variants = [run.timed("memory phase alone", copy, 0.0, moved, data_kept, poison_y),
                run.timed("compute phase alone", fma, flops, 0.0, fma_right, lambda: g.poison(out)),
                run.timed("one after the other", lambda: (copy(), fma()), flops, moved, both, poison_both),
                run.timed(f"overlapped (sweep kernel, K = {k})", sweep, sweep_flops, moved, data_kept, poison_y)]
    return run.experiment("overlap", f"Serial against overlapped phases (K = {k})", variants, k=k)


def run_cache(progress=None) -> Experiment:
    """The engine's L2 read (Lab 1's working sets) against its DRAM copy."""
    run = _Run(progress)
    l2 = run.ceiling("l2", run.gpu.l2_runs())
    dram = run.ceiling("dram", run.gpu.copy_runs(1024 * 2 ** 20))
    variants = [Variant(f"{m.name}: {m.kernel}", 0.0, m.work.n_bytes, m.timing.median_s,
                        m.timing.spread, m.timing.repeats, True, dict(m.config)) for m in (l2, dram)]
    return run.experiment("cache", "L2-resident against DRAM-sized working set", variants)


def run_transcendental(progress=None) -> Experiment:
    run = _Run(progress)
    sfu = run.ceiling("sfu", run.gpu.sfu_runs())
    fma = run.ceiling("fp32", run.gpu.fma_runs("fp32"))
    variants = [Variant("exp2 (SFU)", sfu.work.n_flops, 0.0, sfu.timing.median_s, sfu.timing.spread,
                        sfu.timing.repeats, True, dict(sfu.extra)),
                Variant("FMA", fma.work.n_flops, 0.0, fma.timing.median_s, fma.timing.spread,
                        fma.timing.repeats, True, dict(fma.config))]
    return run.experiment("transcendental", "exp2 against fused multiply-add", variants)


def run_strided(progress=None, n: int = 2 ** 28, strides=(1, 2, 4, 8, 16, 32)) -> Experiment:
    import numpy as np
    run = _Run(progress)
    host = ((np.arange(n) * 40503) & 3).astype(np.float32) * np.float32(0.25)
    x = cuda.to_device(host)
    threads = run.gpu.threads_to_fill()
    out = cuda.device_array(threads, np.float32)
    kernel = strided_sum_kernel()
    variants = []
    for stride in strides:
        launch = lambda s=stride: kernel[threads // BLOCK, BLOCK](x, np.int64(s), out)  # noqa: E731
        count = n // stride
        expected = float(np.sum(host[: count * stride: stride], dtype=np.float64))
        variants.append(run.timed(f"stride {stride}", launch, float(count), 4.0 * count,
                                  lambda e=expected: _unless(float(out.copy_to_host().astype(np.float64).sum()) == e,
                                                             "wrong sum"),
                                  poison=lambda: run.gpu.poison(out), stride=stride))
        run.say(f"  stride {stride}: {variants[-1].gbps:,.0f} useful GB/s")
    return run.experiment("strided", "Useful bandwidth of strided reads", variants)


def run_algorithm(progress=None, n: int = 2 ** 22, m: int = 2 ** 12) -> Experiment:
    """Pitfall 7 on the GPU: a correlation of n outputs with an m-tap filter, directly (2 n m
    FLOPs in FMAs from shared memory) against the FFT route through cuFFT (three real
    transforms of about 2.5 L log2 L FLOPs each, L >= n + m), both checked on 64 outputs
    against a float64 sum, and the fp32 ceiling measured in the same session."""
    import numpy as np

    from .. import pitfalls
    from ..measure.experiment_kernels import CORRELATE_OUTPUTS, CORRELATE_TAPS
    import cupy as cp
    run = _Run(progress)
    threads = 256
    span = threads * CORRELATE_OUTPUTS
    n -= n % span
    m -= m % CORRELATE_TAPS
    rng = np.random.default_rng(20261201)
    host_signal = rng.standard_normal(n + m + CORRELATE_TAPS).astype(np.float32)
    host_taps = rng.standard_normal(m).astype(np.float32)
    signal, taps = cp.asarray(host_signal), cp.asarray(host_taps)
    out = cp.empty(n, cp.float32)
    kernel = correlate_kernel(threads)
    sample = np.linspace(0, n - 1, 64).astype(np.int64)
    windows = host_signal[sample[:, None] + np.arange(m)[None, :]].astype(np.float64)
    reference = windows @ host_taps.astype(np.float64)
    scale = float(np.max(np.abs(reference)))
    length = pitfalls.fft_length(n, m)
    result = {}

    def direct():
        kernel[n // span, threads](signal, taps, out)

    def via_fft():
        spectrum = cp.fft.rfft(signal[: n + m], length) * cp.conj(cp.fft.rfft(taps, length))
        result["fft"] = cp.fft.irfft(spectrum, length)[:n]

    def close(got):
        error = float(np.max(np.abs(cp.asnumpy(got)[sample] - reference))) / scale
        return _unless(error < 1e-3, f"error {error:.2e} of the largest output")

    peak = run.ceiling("fp32", run.gpu.fma_runs("fp32")).value
    direct_row = run.timed("direct O(n m)", direct, 2.0 * n * m, 4.0 * (2 * n + 2 * m), lambda: close(out),
                           poison=lambda: out.fill(float("nan")))
    direct_row.extra.update(fraction_of_fp32_peak=direct_row.gflops / peak,
                            seconds_at_100_percent=direct_row.n_flops / (peak * 1e9))
    fft_row = run.timed("FFT O(L log L) (cuFFT)", via_fft, pitfalls.fft_correlation_flops(length), 0.0,
                        lambda: close(result["fft"]), length=length)
    for v in (direct_row, fft_row):
        run.say(f"  {v.name}: {v.median_s * 1e3:,.3f} ms, {v.gflops:,.0f} GFLOP/s")
    return run.experiment("algorithm", "Direct correlation against FFT correlation", [direct_row, fft_row],
                          ["Both checked on 64 outputs against a float64 sum (error < 1e-3 of the largest)."],
                          fp32_peak_gflops=peak, n=n, m=m)


def run_clocks(progress=None, runs: int = 8) -> Experiment:
    run = _Run(progress)
    variants = []
    for i in range(runs):
        with ClockSampler() as clocks:
            m = run.ceiling("fp32", run.gpu.fma_runs("fp32", FP32_CONFIGS[:1]))
        variants.append(Variant(f"run {i + 1}", m.work.n_flops, 0.0, m.timing.median_s, m.timing.spread,
                                m.timing.repeats, True, {"sm_clock_mhz": clocks.median_mhz}))
    return run.experiment("clocks", "The same FMA ceiling, measured again and again", variants)


def run_traps(progress=None, trips: int = 256) -> Experiment:
    """The trap kernels of :mod:`.traps` on this GPU: verified, timed, and their SASS counted,
    over the whole kernel and in its hot loop (what every thread repeats)."""
    import numpy as np
    from . import traps
    run = _Run(progress)
    threads = run.gpu.threads_to_fill()
    out = run.gpu.empty(threads, "fp32")
    one, zero = np.float32(1), np.float32(0)
    expected = fma_peak_expected(np.arange(threads), traps.CHAINS)
    variants = []
    for variant in traps.VARIANTS:
        function, signature = traps.kernel_source(variant)
        kernel = cuda.jit(signature)(function)
        launch = lambda k=kernel: k[threads // BLOCK, BLOCK](out, one, zero, np.int32(trips))  # noqa: E731
        try:
            text = kernel.inspect_sass(signature.args)
            sass, loop = traps.sass_summary(text), traps.sass_loop_summary(text)
            sass_extra = {"sass": sass, "sass_loop": loop, "issue_bound": traps.issue_bound(loop)}
        except Exception as exc:  # nvdisasm missing: the rate still stands
            sass_extra = {"sass": {"unavailable": f"{type(exc).__name__}: {str(exc)[:120]}"}}
        flops = 2.0 * threads * trips * traps.FMAS_PER_TRIP
        variants.append(run.timed(variant, launch, flops, 0.0,
                                  lambda: _unless(np.array_equal(run.gpu.host(out).astype(np.int64), expected),
                                                  "wrong sums"),
                                  poison=lambda: run.gpu.poison(out), ptx=traps.ptx_summary(variant),
                                  trips=trips, fmas_per_trip=traps.FMAS_PER_TRIP, **sass_extra))
        run.say(f"  {variant}: {variants[-1].gflops:,.0f} GFLOP/s")
    return run.experiment("traps", "Two traps that cut a Numba roof", variants,
                          [f"{traps.CHAINS} chains x {traps.INNER} inner steps per trip; 'while' is "
                           "the 'typed' kernel, timed again as the fix of the range trap."])
