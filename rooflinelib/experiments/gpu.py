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
from ..measure.experiment_kernels import (SOFTMAX_COLS, SOFTMAX_THREADS, TILE, TILE_ROWS, grid_stride_sweep,
                                          softmax_kernels, strided_sum_kernel, transpose_kernels,
                                          vector_add_kernel)
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

def run_chains(progress=None, n_iter: int = 2048) -> Experiment:
    """The engine's FMA-peak kernel with 1, 2, 4 and 8 chains (256 FMAs per loop trip)."""
    run = _Run(progress)
    configs = ((1, 256), (2, 128), (4, 64), (8, 32))
    best = run.ceiling("fp32", run.gpu.fma_runs("fp32", configs, n_iter))
    variants = []
    for tried in best.extra["configs_tried"]:
        seconds = acc.fma_peak_work(run.gpu.threads_to_fill(), n_iter, tried["unroll"],
                                    tried["chains"]).n_flops / (tried["value"] * 1e9)
        variants.append(Variant(f"{tried['chains']} chain{'s' if tried['chains'] > 1 else ''}",
                                tried["value"] * seconds * 1e9, 0.0, seconds, 0.0, run.gpu.repeats,
                                True, dict(tried)))
    return run.experiment("chains", "FMA rate against the number of independent chains", variants,
                          ["Rates from the engine's verified fma_peak runs; spread in its details."])


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


def run_launch(progress=None, small: int = 4096, large: int = 2 ** 26) -> Experiment:
    import numpy as np
    run = _Run(progress)
    kernel = vector_add_kernel()
    variants = []
    for label, n in ((f"{small} elements", small), (f"{large} elements", large)):
        ha, hb = fill_values(np.arange(n)).astype(np.float32), fill_values(np.arange(n, 2 * n)).astype(np.float32)
        a, b, c = cuda.to_device(ha), cuda.to_device(hb), cuda.device_array(n, np.float32)
        blocks = min(run.gpu.sm_count * 32, max(1, n // BLOCK))
        launch = lambda k=kernel, x=a, y=b, z=c, g=blocks: k[g, BLOCK](x, y, z)  # noqa: E731
        cost = operators.vector_add(n)
        variants.append(run.timed(label, launch, cost.n_flops, cost.n_bytes,
                                  lambda c=c, ha=ha, hb=hb: _unless(np.array_equal(c.copy_to_host(), ha + hb), "differs"),
                                  poison=lambda c=c: run.gpu.poison(c), elements=n))
        run.say(f"  vector add {label}: {variants[-1].median_s * 1e6:,.2f} us")
    return run.experiment("launch", "Vector add: 4096 elements against 64 M", variants,
                          ["Device-event times exclude the host's launch overhead, about 4 us more."])


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
