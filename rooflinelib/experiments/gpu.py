"""The experiments on a CUDA GPU, with Numba-CUDA.

The plumbing is the measurement engine's (:class:`rooflinelib.measure.gpu_backends.NumbaGpu`):
device arrays, first-call timing, device-event timing with a priming launch, verification
before any rate.  The kernels here are the experiments' own; the engine's copy, FMA-peak,
sweep, L2 and SFU measurements are reused where an experiment needs a ceiling.  A DRAM roof an
experiment is judged against is not measured again here: it comes from the one chain of
ceiling sources (:func:`rooflinelib.experiments.roofs.chain_dram_roof`, the CPU experiments'
too), so that notebook 04's softmax and transpose and
notebook 06's GEMMs sit under the same DRAM roof as Lab 1's table and every other notebook.

Kernel rules (docs/h200-facts.md): float32 constants are typed, loops that must cost
nothing are ``while`` loops on int32 counters, and FLOPs and bytes come from
:mod:`rooflinelib.core.operators` or are stated next to the kernel.
"""
from __future__ import annotations


# At module level, as the simulator requires: it swaps the kernels' global ``cuda`` for its own.
from numba import cuda

from rooflinelib.core import operators
from rooflinelib.measure import accounting as acc, registry
from rooflinelib.measure.expected import fill_values, fma_peak_expected
from rooflinelib.measure.gpu_backends import BLOCK, FP32_CONFIGS, NumbaGpu
from rooflinelib.measure.errors import VerificationError
from rooflinelib.measure.experiment_kernels import (SOFTMAX_COLS, SOFTMAX_THREADS, TILE, TILE_ROWS,
                                                    correlate_kernel, empty_kernels,
                                                    grid_stride_sweep, softmax_kernels,
                                                    strided_sum_kernel, transpose_kernels,
                                                    vector_add_kernel)
from rooflinelib.measure.protocol import Run, measure_best, measure_run, measure_sustained
from rooflinelib.measure.provenance import ClockSampler
from rooflinelib.measure.timing import cupy_events, time_with_events
from rooflinelib.core.vocabulary import BF16_TENSOR, FP32_MATRIX
from rooflinelib.experiments.record import Experiment, Variant
from rooflinelib.experiments.roofs import chain_dram_roof
from rooflinelib.measure.sass import kernel_histograms
from rooflinelib.lessons import pitfalls
from rooflinelib.experiments import traps
from rooflinelib.measure.matrix import MatrixGemm, measure_matrix



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
        self.said = []  # what the chain said about each roof taken from it, once each

    def say(self, text):
        if self.progress:
            self.progress(text)

    def experiment(self, name, title, variants, notes=(), **extra) -> Experiment:
        device = self.gpu.finish(self.session)
        return Experiment(name, title, "numba", device, self.started, tuple(variants),
                          tuple(notes), dict(extra), said=tuple(self.said))

    def timed(self, name, launch, n_flops, n_bytes, check, poison=None, **extra) -> Variant:
        """One experiment kernel by the verified-run protocol: ``check()`` returns None when
        the output is right, else what is wrong."""
        m = measure_run(self.gpu, name, "compute", Run(launch, check, acc.Work(float(n_flops), float(n_bytes)),
                                                       name, poison=poison))
        return _variant(name, m.timing, n_flops, n_bytes, m.first_call_s, **extra)

    def ceiling(self, name: str, runs) -> "object":
        """A ceiling of the engine measured here, as Lab 1 measures it."""
        return measure_best(self.gpu, name, registry.get(name).kind, runs, self.progress)

    def dram_roof(self, mix: str):
        """The DRAM roof of ``mix`` from the chain (:func:`chain_dram_roof`)."""
        roof = chain_dram_roof(mix, progress=self.progress)
        self.say(f"  DRAM roof ({mix}): {roof.gbps:,.0f} GB/s, Lab 1 ({roof.origin}, {roof.created})")
        if roof.said() not in self.said:
            self.said.append(roof.said())
        return roof


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
    # The two rates that bound a softmax: Lab 1's copy mix from the chain (its memory roof:
    # each pass reads a row and writes one, so its bytes are a copy's mix, pitfalls.own_dram_mix)
    # and the SFU's exp2 rate measured here (its transcendental roof: every exp needs one ex2;
    # Lab 1 does not measure it).
    copy = run.dram_roof("copy")
    sfu = run.ceiling("sfu", run.gpu.sfu_runs())
    predicted = operators.softmax(2, fused=False).n_bytes / operators.softmax(2, fused=True).n_bytes
    return run.experiment("softmax", "Softmax: three passes against one fused pass", variants,
                          ["Verified on 64 sampled rows against a float64 softmax (relative error < 1e-4).",
                           "exp_per_s is the SFU's measured exp2 rate: each exp needs one ex2, so "
                           "no kernel computes exps faster."],
                          predicted_speedup=predicted, copy_gbps=copy.gbps, dram_roof=copy.as_extra(),
                          exp_per_s=sfu.value * 1e9, exps=rows * cols)


def run_transpose(progress=None, n: int = 8192) -> Experiment:
    import numpy as np
    run = _Run(progress)
    n -= n % TILE
    host = fill_values(np.arange(n * n)).astype(np.float32).reshape(n, n)
    a = cuda.to_device(host)
    out = cuda.device_array((n, n), np.float32)
    grid, block = (n // TILE, n // TILE), (TILE, TILE_ROWS)
    moved = 2.0 * 4 * n * n
    # A transpose reads each element once and writes it once: it is judged against Lab 1's copy
    # mix, from the chain (rows.transpose_rows reads it from copy_gbps).
    copy = run.dram_roof("copy")
    variants = []
    for name, kernel in zip(("naive", "tiled", "tiled + padded"), transpose_kernels()):
        launch = lambda k=kernel: k[grid, block](a, out)  # noqa: E731
        variants.append(run.timed(name, launch, 0.0, moved,
                                  lambda: _unless(np.array_equal(out.copy_to_host(), host.T), "differs from a.T"),
                                  poison=lambda: run.gpu.poison(out), n=n))
        run.say(f"  transpose {name}: {variants[-1].gbps:,.0f} GB/s")
    return run.experiment("transpose", "The transpose ladder against a copy", variants,
                          ["Zero FLOPs: scored as a fraction of Lab 1's DRAM copy (the copy mix)."],
                          copy_gbps=copy.gbps, dram_roof=copy.as_extra())


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
            timing = time_with_events(lambda: graph.launch(stream), cupy_events(), rounds, 0, stream=stream)
        if float(x.get()[0]) != 1.0:
            raise RuntimeError("the graph's kernels did not run")
    except Exception as exc:  # no CuPy, or no graphs in this CuPy: say so
        return None, f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}"
    return (timing.median_s / n, timing.spread, rounds), None


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
    """The engine's L2 read (Lab 1's working sets) against its DRAM copy.

    Both rows are the experiment's subjects, timed in one session as the pitfall compares them
    (a working set the L2 holds against one it cannot), not a roof anything is judged against:
    notebook 06 places the L2 kernel under Lab 1's DRAM roof from the chain."""
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
    variants = [Variant("exp2, fast math (one MUFU.EX2)", sfu.work.n_flops, 0.0, sfu.timing.median_s, sfu.timing.spread,
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

    from rooflinelib.measure.experiment_kernels import CORRELATE_OUTPUTS, CORRELATE_TAPS
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


def _round_trip_wall_s(launch, sync, n: int = 200) -> tuple:
    """Host seconds of one launch followed by a synchronize (what a caller that waits for every
    kernel pays), median and spread over ``n`` round trips."""
    import statistics
    import time
    for _ in range(20):
        launch()
        sync()
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        launch()
        sync()
        samples.append(time.perf_counter() - t0)
    med = statistics.median(samples)
    return med, (max(samples) - min(samples)) / med, n


def run_launch_empty(progress=None, elements: int = 4096) -> Experiment:
    """Pitfall 1's launch overhead, measured on an empty kernel: by device events (as every
    kernel of the course is timed), by the wall clock around a launch and its synchronize, and
    by the wall clock over launches back to back; with one float argument and with the vector
    add's three arrays; beside the tiny vector add itself and the device's own cost in a CUDA
    graph, all in one session, so that the tiny add's time can be taken apart."""
    import numpy as np
    run = _Run(progress)
    touch, touch_three = empty_kernels()
    ha = fill_values(np.arange(elements)).astype(np.float32)
    hb = fill_values(np.arange(elements, 2 * elements)).astype(np.float32)
    a, b = cuda.to_device(ha), cuda.to_device(hb)
    c, x = cuda.device_array(elements, np.float32), cuda.device_array(1, np.float32)
    blocks = min(run.gpu.sm_count * 32, max(1, elements // BLOCK))
    one = (lambda: touch[1, 32](x), lambda: float(x.copy_to_host()[0]) == 1.0, lambda: run.gpu.poison(x))
    three = (lambda: touch_three[1, 32](a, b, c), lambda: float(c.copy_to_host()[0]) == float(ha[0] + hb[0]),
             lambda: run.gpu.poison(c))
    variants = []
    for args, (launch, ok, poison) in (("one float", one), ("three arrays", three)):
        label = f"empty kernel, {args}"
        variants.append(run.timed(f"{label} (device events)", launch, 0.0, 0.0,
                                  lambda ok=ok: _unless(ok(), "did not run"), poison=poison,
                                  part="device events", arguments=args))
        per, spread, n = _round_trip_wall_s(launch, cuda.synchronize)
        if not ok():
            raise VerificationError(f"verification: launch_empty: the {label} did not run")
        variants.append(Variant(f"{label}, launch + synchronize (wall clock)", 0.0, 0.0, per, spread, n, True,
                                {"part": "round trip", "arguments": args}))
        per, spread, rounds = _per_launch_wall_s(launch, cuda.synchronize)
        variants.append(Variant(f"{label}, host dispatch (wall clock, back to back)", 0.0, 0.0, per, spread,
                                rounds, True, {"part": "host dispatch", "arguments": args, "launches": 2000}))
        for v in variants[-3:]:
            run.say(f"  {v.name}: {v.median_s * 1e6:,.2f} us")
    kernel = vector_add_kernel()
    cost = operators.vector_add(elements)
    variants.append(run.timed(f"vector add, {elements} elements (device events)",
                              lambda: kernel[blocks, BLOCK](a, b, c), cost.n_flops, cost.n_bytes,
                              lambda: _unless(np.array_equal(c.copy_to_host(), ha + hb), "differs"),
                              poison=lambda: run.gpu.poison(c), part="kernel", elements=elements))
    run.say(f"  {variants[-1].name}: {variants[-1].median_s * 1e6:,.2f} us")
    notes = ["Every empty kernel checked to have written its mark; the vector add checked bit for bit."]
    graph, reason = _graph_per_kernel_s()
    if graph:
        variants.append(Variant("empty kernel, device cost in a CUDA graph (CuPy)", 0.0, 0.0, graph[0], graph[1],
                                graph[2], True, {"part": "device", "library": "CuPy graph", "launches": 1000}))
        run.say(f"  device, in a CUDA graph: {graph[0] * 1e6:,.2f} us per kernel")
    else:
        notes.append(f"No CUDA-graph measurement: {reason}")
    return run.experiment("launch_empty", "An empty kernel's launch: device events, wall clock, CUDA graph",
                          variants, notes, elements=elements)


#: Pitfall 4's shape: C (M x N) = A (M x K) @ B (K x N) with a short K, so that the bf16 GEMM's
#: intensity (about K FLOP/byte) lies between the fp32 and the bf16 tensor ridges of an H200.
WRONG_CEILING_SHAPE = (16384, 16384, 128)


def run_wrong_ceiling(progress=None, m: int = WRONG_CEILING_SHAPE[0], n: int = WRONG_CEILING_SHAPE[1],
                      k: int = WRONG_CEILING_SHAPE[2]) -> Experiment:
    """Pitfall 4: one GEMM shape twice through cuBLAS, in fp32 on the CUDA cores (SGEMM, no
    TF32) and in bf16 on the tensor cores, each checked against a float64 product; and, in the
    same session, the compute ceilings either could be compared with: the fp32 FMA peak and the
    square bf16 tensor GEMM; the DRAM roofs of every access mix come from the chain."""
    run = _Run(progress)
    variants = []
    for name, label in ((FP32_MATRIX, "fp32 GEMM on the CUDA cores (cuBLAS SGEMM)"),
                        (BF16_TENSOR, "bf16 GEMM on the tensor cores (cuBLAS)")):
        gemm = MatrixGemm(name, n, m=m, k=k)
        got = measure_matrix(run.gpu, name, n, gemm=gemm, progress=run.progress)
        variants.append(_variant(label, got.timing, got.work.n_flops, got.work.n_bytes, got.first_call_s,
                                 ceiling=name, m=m, n=n, k=k, dtype=gemm.dtype, element_bytes=gemm.element_bytes,
                                 call=got.kernel, relative_error=got.extra.get("relative_error"),
                                 sm_clock_mhz_during=got.extra.get("sm_clock_mhz_during")))
        gemm.release()
    fp32 = run.ceiling("fp32", run.gpu.fma_runs("fp32"))
    # every mix Lab 1 measured, from the chain: each GEMM is judged against its own mix
    # (readings.wrong_ceiling_rows; at this shape 98% of the bytes are C's writes)
    mixes = {mix: run.dram_roof(mix) for mix in ("read", "write", "copy")}
    tensor = measure_matrix(run.gpu, BF16_TENSOR, 8192, progress=run.progress)
    return run.experiment("wrong_ceiling", f"One GEMM shape ({m} x {n} x {k}) on the CUDA cores and on the tensor cores",
                          variants, ["Both products checked on four rows against a float64 product."],
                          fp32_gflops=fp32.value, dram_gbps=mixes["copy"].gbps,
                          bf16_tensor_gflops=tensor.value, dram_mixes={mix: roof.gbps for mix, roof in mixes.items()},
                          dram_roof=mixes["copy"].as_extra(),
                          shape=[m, n, k])


def run_sustained(progress=None, seconds: float = 120.0, n: int = 8192, window_repeats: int = 300) -> Experiment:
    """Pitfall 8: the bf16 tensor GEMM of Lab 1's ceiling, first as Lab 1 measures it (a short
    microbenchmark), then back to back for ``seconds`` in windows of ``window_repeats`` timed
    launches with the SM clock, the board power and NVML's clock-event reasons sampled in each,
    then the short microbenchmark again on the hot card."""
    run = _Run(progress)
    gemm = MatrixGemm(BF16_TENSOR, n)

    def sampled():
        return ClockSampler(interval_s=0.02, power=True)

    def short(label):
        with sampled() as s:
            got = measure_matrix(run.gpu, BF16_TENSOR, n, gemm=gemm)
        return _variant(label, got.timing, got.work.n_flops, got.work.n_bytes, got.first_call_s,
                        part="microbenchmark", call=got.kernel, **s.summary())

    before = short("microbenchmark, cool card (10 launches)")
    run.say(f"  {before.name}: {before.gflops:,.0f} GFLOP/s")
    chosen = next(r for r in gemm.runs() if r.kernel == before.extra["call"])
    windows = measure_sustained(run.gpu, BF16_TENSOR, "compute", chosen, seconds, window_repeats, sampled)
    variants = [before]
    for w in windows:
        variants.append(_variant(f"sustained, window {w.extra['window'] + 1}", w.timing, w.work.n_flops,
                                 w.work.n_bytes, part="sustained",
                                 **{key: w.extra.get(key) for key in ("elapsed_s", "sm_clock_mhz_median",
                                    "sm_clock_mhz_min", "power_w_median", "power_w_max",
                                    "clock_event_reasons", "samples")}))
        if w.extra["window"] % 20 == 0:
            run.say(f"  {variants[-1].name} at {w.extra['elapsed_s']:.0f} s: {variants[-1].gflops:,.0f} GFLOP/s, "
                    f"{w.extra.get('sm_clock_mhz_median')} MHz, {w.extra.get('power_w_median')} W")
    after = short("microbenchmark, hot card (10 launches)")
    variants.append(after)
    run.say(f"  {after.name}: {after.gflops:,.0f} GFLOP/s")
    gemm.release()
    return run.experiment("sustained", f"A bf16 tensor GEMM ({n}^3) held for {seconds:.0f} s against its short microbenchmark",
                          variants, ["Every window verified: the product checked after the first call and "
                                     "again after the last window."], seconds=seconds, n=n,
                          window_repeats=window_repeats)


#: Pitfall 7's race at one signal length and four filter lengths: the FLOP ratio grows with m,
#: so the sizes straddle the point where the FFT's fewer FLOPs start to win on the H200.
ALGORITHM_SIZES = ((2 ** 22, 2 ** 8), (2 ** 22, 2 ** 10), (2 ** 22, 2 ** 12), (2 ** 22, 2 ** 14))


def run_algorithm_sizes(progress=None, sizes=ALGORITHM_SIZES) -> Experiment:
    """:func:`run_algorithm` at each (n, m) of ``sizes``: the direct kernel and the FFT route,
    every row verified, named by its filter length."""
    variants, peaks, first = [], [], None
    for n, m in sizes:
        race = run_algorithm(progress, n=n, m=m)
        first = first or race
        peaks.append(race.extra["fp32_peak_gflops"])
        for v in race.variants:
            variants.append(Variant(f"{v.name}, m = {m}", v.n_flops, v.n_bytes, v.median_s, v.spread, v.repeats,
                                    True, dict(v.extra, n=race.extra["n"], m=race.extra["m"])))
    return Experiment("algorithm_sizes", "Direct against FFT correlation at four filter lengths", "numba",
                      first.device, first.created, tuple(variants), first.notes,
                      {"fp32_peak_gflops": max(peaks), "sizes": [list(s) for s in sizes]})
