"""The two GPU backends, :class:`NumbaGpu` and :class:`CupyGpu`: the same kernels, the same
launch shapes, the same checks, so that the two can be compared kernel for kernel.

Each implements :class:`rooflinelib.measure.backend.Backend`.  What they share lives in
:class:`_GpuBase`: the launch shapes, how each kernel is set up and checked, and the session
(warm-up, clocks before and after).  What differs is small and named: allocation, poisoning,
the host copy, the event timer and one launcher per kernel.  Measuring is not done here: a
kernel method returns :class:`~rooflinelib.measure.protocol.Run` objects, and
:func:`~rooflinelib.measure.protocol.measure_run` verifies and times them.
"""
from __future__ import annotations

from rooflinelib.measure import accounting as acc, kernels_cupy as kc
from rooflinelib.measure.expected import (READ_EXACT_TERMS, expected_gpu_sums, fma_peak_expected,
                                          gpu_data, l2_slab_expected, read_sum, sfu_expected,
                                          shared_expected, fill_values, fill_sum)
from rooflinelib.measure.errors import BackendUnavailable, VerificationError
from rooflinelib.measure.protocol import Run, SweepBuffers, mismatch_message
from rooflinelib.measure.provenance import (FMA_LANES_PER_SM, SFU_PER_CLOCK_PER_SM,
                                            SHARED_BYTES_PER_CLOCK_PER_SM, ClockSampler, finish,
                                            gpu_snapshot, now_iso)
from rooflinelib.measure.timing import Stopwatch, Timing, device_events, time_with_events


def theoretical(sm_count: int, cc: tuple, clock_mhz) -> dict:
    """Per-clock peaks of this architecture at ``clock_mhz`` (empty where unknown)."""
    if not clock_mhz:
        return {}
    ghz = float(clock_mhz) / 1000.0
    out = {"clock_mhz": float(clock_mhz)}
    lanes = FMA_LANES_PER_SM.get(tuple(cc))
    if lanes:
        out["fp32_gflops"] = sm_count * lanes[0] * 2 * ghz
        out["fp64_gflops"] = sm_count * lanes[1] * 2 * ghz
    if tuple(cc) in SFU_PER_CLOCK_PER_SM:
        out["sfu_gops"] = sm_count * SFU_PER_CLOCK_PER_SM[tuple(cc)] * ghz
    out["shared_gbps"] = sm_count * SHARED_BYTES_PER_CLOCK_PER_SM * ghz
    return out


# Launch shapes.  256-thread blocks, as many as the SM holds, for the compute kernels.
BLOCK = 256
COPY_CONFIGS = ((1, 256), (2, 256), (4, 256), (1, 1024))  # (vectors per thread, block)
#: The write-only stream: (vectors per thread, block), as the copy launches.
WRITE_CONFIGS = ((1, 256), (2, 256), (4, 256), (8, 256), (1, 1024))
#: The read-only stream: (loads in flight per thread per trip, block); a resident grid (as many
#: blocks as the SMs hold) walks the buffer.
READ_CONFIGS = ((2, 256), (4, 256), (8, 256), (4, 1024))
FP32_CONFIGS = ((8, 32), (16, 16), (4, 64))  # (chains, unroll): 256 FMAs per loop trip
FP32_ITER = 4096
FP64_CONFIGS = ((8, 32),)
FP64_ITER = 1024
#: Vectors each thread of the sweep walks (1: one vector per thread, no pipelining), tried at
#: every K; the point reports the fastest, as the copy ceiling does.  Measured on the H200
#: (docs/measurements/history.md), neither setting alone serves the whole curve: one vector
#: per thread reads at 0.999 of the copy ceiling at K = 0 but leaves the memory roof 2 K-steps
#: before the ridge (load latency and FMA time add up); 16 vectors, software-pipelined,
#: overlap them and put the knee within one step, but lose ~5% of the bandwidth at K = 0.
SWEEP_VECTOR_CONFIGS = (1, 16)
#: The pipelined setting, for callers that ask for one kernel only.
SWEEP_VECTORS_PER_THREAD = 16
#: The L2 ceiling reads working sets of these fractions of the L2 the device reports (16, 21
#: and 25 MB on the H200's 60 MiB), each block reading L2_ITERS chunks.  Below about a quarter
#: of the L2 the blocks that read one chunk run together and their requests merge before the
#: L2's slices (ncu's lts__t_bytes then counts less than the SMs asked for: 93% at 8 MB on the
#: H200, 96-97.5% from 16 MB up); above half, the far partition's share of the L2 shows.
L2_FRACTIONS = (0.25, 1 / 3, 0.4)
L2_ITERS = 32  # chunks per block (even: read two per trip): 512 KiB
L2_DEFAULT_BYTES = 4 * 2 ** 20  # when the device does not report its L2 size
L2_BYTES_PER_LAUNCH = 8e9  # ~0.85 ms at 9.5 TB/s: ramp and tail small
SHARED_FILL_MOD = 5
#: Host <-> device copies: 256 MiB each way (5 ms pinned at PCIe Gen5 rates, 30 ms pageable),
#: timed 5 times.  At 64 MiB the Numba copies read 0.86-0.92 of torch's on the H200, at 256 MiB
#: 0.97-0.98 (2026-12-01, runs 11 and 11b).
LINK_BYTES = 256 * 2 ** 20
#: The pageable copies are shown beside the ceiling, never used as one: 64 MiB (~6-9 ms each)
#: keeps their cost in Lab 1 a quarter of what 256 MiB took.
LINK_PAGEABLE_BYTES = 64 * 2 ** 20
LINK_REPEATS = 5
SHARED_UNROLL = 4
SHARED_PASSES = 4096
SFU_SHAPE = (8, 8, 512)  # chains, unroll, n_iter


def l2_working_sets(l2_bytes=None, iters: int = L2_ITERS) -> tuple:
    """Working sets (whole chunk groups of ``iters`` chunks) the L2 ceiling reads on a device
    that reports an L2 of ``l2_bytes`` (None: unknown)."""
    group = iters * acc.CHUNK_BYTES
    if not l2_bytes or l2_bytes <= 0:
        return (max(group, L2_DEFAULT_BYTES // group * group),)
    return tuple(sorted({max(1, int(f * l2_bytes) // group) * group for f in L2_FRACTIONS}))


def _vector_count(size_bytes: int, multiple: int) -> int:
    n = int(size_bytes) // acc.VECTOR_BYTES
    return max(multiple, n - n % multiple)


class _GpuBase:
    """What both GPU backends share: the plan of each kernel, its checks and the session."""

    name = "?"
    scope = "gpu"
    repeats = 20
    warmup = 2
    default_buffer_bytes = 2 ** 30
    sweep_ks = None  # Lab 3's defaults (sweep.DEFAULT_KS)

    # -- to provide: device_facts(), empty(n, dtype), host(array), upload(array), fill(x),
    #    fill_read(x), poison(x), count_mismatches(a, b), count_write_mismatches(x),
    #    synchronize(), release(), and the launchers: copy, read, write, fma, sweep,
    #    l2, shared, sfu

    def provenance(self) -> dict:
        return dict(self.device_facts(), backend=self.name)

    def threads_to_fill(self) -> int:
        return self.sm_count * self.max_threads_per_sm

    # -- the session --------------------------------------------------------------------------

    def warm_up(self, seconds: float = 0.3):
        """Keep the GPU busy for a moment so that the clocks read "before" are the running
        clocks, not the idle ones (an idle H200 reads 345 MHz)."""
        import time
        x = self.empty(2 ** 26, "fp32")
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            self.fill(x)
            self.synchronize()
        del x
        self.release()

    def start(self) -> dict:
        started = now_iso()
        self.warm_up()
        return {"started": started, "before": gpu_snapshot()}

    def finish(self, session: dict) -> dict:
        return finish(self.provenance(), session["before"], gpu_snapshot(), self.name,
                      session["started"])

    def result_notes(self, device: dict) -> list:
        if device.get("clock_drift_flag"):
            return [f"SM clock moved {100 * device['sm_clock_drift']:+.1f}% between the start and "
                    "the end of the run: re-measure before trusting small gaps"]
        return []

    # -- the protocol's primitives --------------------------------------------------------------

    def first_call(self, launch) -> float:
        with Stopwatch() as sw:
            launch()
            self.synchronize()
        return sw.seconds

    def time(self, launch, repeats=None) -> Timing:
        # the backend's name is its library's: its events are measure.timing's
        return time_with_events(launch, device_events(self.name), repeats or self.repeats, self.warmup,
                                prime=launch)

    def clock_sampler(self):
        return ClockSampler()

    def theoretical(self, clock_mhz) -> dict:
        return theoretical(self.sm_count, self.cc, clock_mhz)

    def _mismatches(self, got, want, what: str):
        import numpy as np
        return mismatch_message(int(np.count_nonzero(got != want)), got.size, what)

    # -- DRAM -----------------------------------------------------------------------------------

    def copy_runs(self, size_bytes: int) -> list:
        """A copy of two buffers of ``size_bytes`` each, in every COPY_CONFIGS shape."""
        multiple = max(v * b for v, b in COPY_CONFIGS)
        n_vec = _vector_count(size_bytes, multiple)
        src = self.empty(4 * n_vec, "fp32")
        dst = self.empty(4 * n_vec, "fp32")
        self.fill(src)

        def check():
            return mismatch_message(self.count_mismatches(src, dst), 4 * n_vec, "floats")

        return [Run(self.copy_launcher(vpt, block, n_vec, src, dst), check, acc.copy_work(n_vec),
                    f"copy16 x{vpt} block {block}",
                    {"vectors_per_thread": vpt, "block": block, "buffer_bytes": 16 * n_vec},
                    poison=lambda: self.poison(dst))
                for vpt, block in COPY_CONFIGS]

    def read_runs(self, size_bytes: int) -> list:
        """A read-only walk over one buffer of ``size_bytes``, in every READ_CONFIGS shape:
        each block's four lane sums, added on the host, must equal the exact
        :func:`~rooflinelib.measure.expected.read_sum`."""
        import numpy as np
        n_vec = _vector_count(size_bytes, max(b for _, b in READ_CONFIGS))
        x = self.empty(4 * n_vec, "fp32")
        self.fill_read(x)
        want = read_sum(4 * n_vec)
        runs = []
        for unroll, block in READ_CONFIGS:
            # a resident grid, with enough blocks that no lane of a block sums more values than
            # float32 holds exactly
            grid = max(self.sm_count * max(1, self.max_threads_per_sm // block), -(-n_vec // READ_EXACT_TERMS))
            out = self.empty(4 * grid, "fp32")

            def check(out=out):
                got = float(self.host(out).astype(np.float64).sum())
                return None if got == want else f"sum {got!r}, expected {want!r}"

            runs.append(Run(self.read_launcher(unroll, block, grid, x, out), check,
                            acc.dram_read_work(4 * n_vec), f"read16 x{unroll} block {block}",
                            {"loads_per_trip": unroll, "block": block, "grid": grid,
                             "buffer_bytes": 16 * n_vec},
                            poison=lambda out=out: self.poison(out)))
        return runs

    def write_runs(self, size_bytes: int) -> list:
        """A write-only stream into one buffer of ``size_bytes``, in every WRITE_CONFIGS shape;
        every element is checked on the device against
        :func:`~rooflinelib.measure.expected.write_values`."""
        n_vec = _vector_count(size_bytes, max(v * b for v, b in WRITE_CONFIGS))
        x = self.empty(4 * n_vec, "fp32")

        def check():
            return mismatch_message(self.count_write_mismatches(x), 4 * n_vec, "floats")

        return [Run(self.write_launcher(vpt, block, n_vec, x), check, acc.dram_write_work(4 * n_vec),
                    f"write16 x{vpt} block {block}",
                    {"vectors_per_thread": vpt, "block": block, "buffer_bytes": 16 * n_vec},
                    poison=lambda: self.poison(x))
                for vpt, block in WRITE_CONFIGS]

    # -- FMA peak -------------------------------------------------------------------------------

    def fma_runs(self, dtype: str, configs=None, n_iter: int = None) -> list:
        """``chains`` register-resident FMA chains per thread, every thread the GPU holds."""
        import numpy as np
        if configs is None:
            configs = FP32_CONFIGS if dtype == "fp32" else FP64_CONFIGS
        n_iter = n_iter or (FP32_ITER if dtype == "fp32" else FP64_ITER)
        threads = self.threads_to_fill()
        out = self.empty(threads, dtype)
        t_index = np.arange(threads)
        runs = []
        for chains, unroll in configs:
            def check(chains=chains):
                got = self.host(out).astype(np.float64)
                return self._mismatches(got, fma_peak_expected(t_index, chains), "threads' sums")
            runs.append(Run(self.fma_launcher(dtype, chains, unroll, n_iter, threads, out), check,
                            acc.fma_peak_work(threads, n_iter, unroll, chains),
                            f"fma_peak<{dtype}> chains {chains} x unroll {unroll}",
                            {"chains": chains, "unroll": unroll, "n_iter": n_iter,
                             "threads": threads, "block": BLOCK},
                            poison=lambda: self.poison(out), peak_key=f"{dtype}_gflops"))
        return runs

    # -- the sweep ------------------------------------------------------------------------------

    def sweep_buffers(self, size_bytes: int) -> SweepBuffers:
        n_vec = _vector_count(size_bytes, BLOCK * 64)
        x = self.empty(4 * n_vec, "fp32")
        y = self.empty(4 * n_vec, "fp32")
        self.fill(x)
        return SweepBuffers(n_vec, x, y)

    def sweep_runs(self, k: int, buffers: SweepBuffers, all_ks=(), vectors_per_thread=None) -> list:
        """Sweep point ``k`` in every launch configuration of ``vectors_per_thread`` (an int, a
        tuple, or None for SWEEP_VECTOR_CONFIGS): 1, one vector per thread; 2 or more, the
        software-pipelined kernel walking that many."""
        if vectors_per_thread is None:
            configs = SWEEP_VECTOR_CONFIGS
        elif isinstance(vectors_per_thread, int):
            configs = (vectors_per_thread,)
        else:
            configs = tuple(int(v) for v in vectors_per_thread)
        if not configs or any(v < 1 for v in configs):
            raise ValueError("vectors_per_thread: must be whole numbers of at least 1")
        n_vec, x, y = buffers.n_vec, buffers.x, buffers.y

        def check():  # identity FMAs: y must equal x bit for bit
            return mismatch_message(self.count_mismatches(x, y), 4 * n_vec, "floats")

        runs = []
        for vpt in configs:
            if n_vec % (BLOCK * vpt):
                raise ValueError("vectors_per_thread: must divide the vectors into whole blocks")
            runs.append(Run(self.sweep_launcher(k, n_vec, x, y, all_ks, vpt), check,
                            acc.sweep_work(4 * n_vec, k),
                            f"{'sweep_pipelined' if vpt > 1 else 'sweep'}<{k}>",
                            {"k": k, "elements": 4 * n_vec, "block": BLOCK, "vectors_per_thread": vpt},
                            poison=lambda: self.poison(y)))
        return runs

    # -- the L2 -----------------------------------------------------------------------------------

    def l2_runs(self, working_sets=None, iters: int = L2_ITERS,
                bytes_per_launch: float = L2_BYTES_PER_LAUNCH) -> list:
        """The L2 read (``ld.global.cg``: the L1 never answers) of each working set (bytes;
        default :func:`l2_working_sets` of the device's L2): many short blocks, each reading
        ``iters`` chunks of its own group."""
        import numpy as np
        if iters < 2 or iters % 2:
            raise ValueError(f"iters: the kernel reads chunks in pairs; must be even, got {iters!r}")
        sizes = tuple(working_sets or l2_working_sets(getattr(self, "l2_bytes", None), iters))
        groups_of = [max(1, int(s) // (iters * acc.CHUNK_BYTES)) for s in sizes]
        data = self.upload(gpu_data(max(groups_of) * iters))
        runs = []
        for groups in groups_of:
            per_block = iters * acc.CHUNK_BYTES
            grid = max(1, int(bytes_per_launch // (per_block * groups))) * groups
            out = self.empty(4 * grid, "fp32")

            def check(groups=groups, grid=grid, out=out):
                got = self.host(out).astype(np.float64).reshape(grid, 4)
                return self._mismatches(got, l2_slab_expected(groups, iters, grid), "block sums")

            runs.append(Run(self.l2_launcher(data, out, groups, iters, grid), check,
                            acc.Work(0.0, float(grid) * per_block),
                            f"l2_slab {groups * per_block / 1e6:.1f} MB (ld.global.cg, 16 B)",
                            {"working_set_bytes": groups * per_block, "groups": groups,
                             "iters": iters, "grid": grid, "block": acc.WS_BLOCK,
                             "reported_l2_bytes": getattr(self, "l2_bytes", None)},
                            poison=lambda out=out: self.poison(out)))
        return runs

    # -- shared memory and the SFU -----------------------------------------------------------------

    def shared_runs(self, unroll: int = SHARED_UNROLL, n_pass: int = SHARED_PASSES) -> list:
        import numpy as np
        floats = 4096
        n_vec = floats // 4
        if n_vec % (unroll * BLOCK):
            raise ValueError("unroll: unroll * block must divide the shared tile's vectors")
        threads = self.threads_to_fill()
        blocks = threads // BLOCK
        data_host = (np.arange(floats) % SHARED_FILL_MOD).astype(np.float32)
        data = self.upload(data_host)
        out = self.empty(4 * threads, "fp32")
        want = shared_expected(data_host.reshape(n_vec, 4).astype(np.float64), BLOCK, n_pass, unroll)

        def check():
            got = self.host(out).astype(np.float64).reshape(blocks, BLOCK, 4)
            return self._mismatches(got, np.broadcast_to(want[None, :, :], got.shape), "sums")

        return [Run(self.shared_launcher(data, out, unroll, n_pass, n_vec - 1, blocks), check,
                    acc.read_work(threads, n_pass * unroll), "shared_read (ld.shared.v4, 16 B)",
                    {"passes": n_pass, "unroll": unroll, "threads": threads, "tile_bytes": floats * 4},
                    poison=lambda: self.poison(out), peak_key="shared_gbps")]

    def sfu_runs(self, chains: int = SFU_SHAPE[0], unroll: int = SFU_SHAPE[1],
                 n_iter: int = SFU_SHAPE[2]) -> list:
        import numpy as np
        threads = self.threads_to_fill()
        out = self.empty(threads, "fp32")
        want = sfu_expected(np.arange(threads), chains, n_iter * unroll)

        def check():
            return self._mismatches(self.host(out).astype(np.float64), want, "threads' sums")

        return [Run(self.sfu_launcher(out, chains, unroll, n_iter, threads), check,
                    acc.sfu_work(threads, n_iter, unroll, chains), "sfu (ex2.approx.ftz)",
                    {"chains": chains, "unroll": unroll, "n_iter": n_iter, "threads": threads},
                    poison=lambda: self.poison(out), peak_key="sfu_gops")]

    # -- host <-> device ----------------------------------------------------------------------------

    def _link_buffers(self, n: int, pinned: bool):
        """Device buffer, reference and host buffer of ``n`` floats for the link copies, made
        once per size and kind and kept: both directions copy the same buffers, so Lab 1 pays
        for one page-locked allocation and one reference, not one per direction."""
        import numpy as np
        cache = self.__dict__.setdefault("_link_cache", {})
        key = (n, pinned)
        if key not in cache:
            device = self.empty(n, "fp32")
            reference = self.empty(n, "fp32")
            self.fill(reference)  # the fill kernel's values, made on the device ...
            want_host = self.host(reference)  # ... and on the host (numpy would take a second)
            head = fill_values(np.arange(min(n, 1 << 16), dtype=np.int64)).astype(np.float32)
            if not np.array_equal(want_host[: head.size], head):  # the fill kernel is the reference
                raise VerificationError("verification: link: the device fill differs from fill_values")
            host = self.pinned(n) if pinned else np.empty(n, np.float32)
            cache[key] = (device, reference, want_host, host)
        return cache[key]

    def link_runs(self, direction: str, size_bytes: int = LINK_BYTES,
                  pageable_bytes: int = LINK_PAGEABLE_BYTES) -> list:
        """Copies between host and device memory, ``direction`` "h2d" or "d2h": ``size_bytes``
        from page-locked ("pinned") host memory, which the copy engines read and write directly,
        and ``pageable_bytes`` from ordinary (pageable) host memory, which the driver stages
        through a pinned buffer of its own.  Checked bit for bit: the device side against the
        fill kernel's values, the host side against :func:`checks.fill_values`."""
        import numpy as np
        if direction not in ("h2d", "d2h"):
            raise ValueError(f"direction: must be 'h2d' or 'd2h', got {direction!r}")
        runs = []
        for kind, size in (("pinned", size_bytes), ("pageable", pageable_bytes)):
            n = max(1, int(size) // 4)
            device, reference, want_host, host = self._link_buffers(n, kind == "pinned")
            if direction == "h2d":
                host[:] = want_host
                launch = self.to_device_launcher(host, device)

                def check(device=device, reference=reference, n=n):
                    return mismatch_message(self.count_mismatches(device, reference), n, "floats")

                poison = (lambda device=device: self.poison(device))
            else:
                self.fill(device)
                launch = self.to_host_launcher(device, host)

                def check(host=host, want_host=want_host, n=n):
                    bad = int(np.count_nonzero(host.view(np.uint32) != want_host.view(np.uint32)))
                    return mismatch_message(bad, n, "floats")

                poison = (lambda host=host: host.fill(np.nan))
            runs.append(Run(launch, check, acc.Work(0.0, 4.0 * n), f"{direction} {kind} {4 * n / 2 ** 20:.0f} MiB",
                            {"direction": direction, "host_memory": kind, "bytes": 4 * n}, poison=poison))
        return runs

    # -- Exercise 4's reduction ----------------------------------------------------------------------

    def reduction_run(self, buffers: SweepBuffers) -> Run:
        """The sum of Lab 3's input, in float64 (exact for the fill values, in any order)."""
        launch, result, label = self.reduction_launcher(buffers.x)
        n = 4 * buffers.n_vec
        want = fill_sum(n)
        # the Numba kernel adds into its output at every launch: checked after the first only
        return Run(launch, lambda: None if result() == want else f"sum {result()!r}, expected {want!r}",
                   acc.Work(float(n), 4.0 * n), label, {"elements": n}, recheck=False)

    # -- the working-set sweep's read (rooflinelib.hierarchy.workingset) ----------------------------------

    def workingset_run(self, kernel_source, data, n_chunks: int, n_pass: int, grid: int,
                       pattern: str, access: str) -> Run:
        """One point of the working-set sweep: ``grid`` blocks of the working-set kernel read
        ``n_chunks`` chunks ``n_pass`` times each (Numba: the kernels are Numba's)."""
        raise NotImplementedError(f"backend {self.name}: the working-set sweep runs on numba")


class NumbaGpu(_GpuBase):
    """Numba-CUDA kernels from :mod:`.kernels_numba` and :mod:`.workingset_kernels`."""

    name = "numba"

    def __init__(self):
        try:
            from numba import cuda
        except Exception as exc:  # numba-cuda missing or broken (numpy 2.5: see docs/install.md)
            raise BackendUnavailable(f"backend numba: cannot import numba.cuda ({exc})") from None
        if not cuda.is_available():
            raise BackendUnavailable("backend numba: no CUDA GPU is available to Numba")
        from rooflinelib.measure import kernels_numba as kn
        self.cuda, self.kn = cuda, kn
        dev = cuda.get_current_device()
        self.sm_count = int(dev.MULTIPROCESSOR_COUNT)
        self.max_threads_per_sm = int(dev.MAX_THREADS_PER_MULTIPROCESSOR)
        self.cc = tuple(dev.compute_capability)
        self.device_name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        try:
            self.l2_bytes = int(dev.L2_CACHE_SIZE)
        except Exception:  # an attribute this driver does not report: the default working set
            self.l2_bytes = None

    def device_facts(self) -> dict:
        from numba.cuda.cudadrv import runtime, driver
        facts = {"name": self.device_name, "kind": "gpu", "sm_count": self.sm_count,
                 "compute_capability": f"{self.cc[0]}.{self.cc[1]}"}
        try:
            facts["cuda_runtime_nvrtc"] = ".".join(map(str, runtime.get_version()))
            facts["cuda_driver"] = ".".join(map(str, driver.get_version()))
        except Exception:
            pass
        return facts

    def synchronize(self):
        self.cuda.synchronize()

    def resident_blocks_per_sm(self, kernel, block: int = BLOCK) -> int:
        """How many ``block``-thread blocks of the compiled ``kernel`` one SM holds at once,
        from the driver's occupancy calculator (registers and shared memory included).

        A working-set read launches exactly this many per SM.  With more, the blocks past the
        first wave wait for a slot, and while the first wave runs only its part of the working
        set is being reused: on the H200 the read kernels take 36-38 registers, six blocks fit
        where the thread limit alone allows eight, and a grid of eight per SM kept a 79 MB set
        "in" a 63 MB L2.  Without the calculator (the simulator) the thread limit decides."""
        limit = max(1, self.max_threads_per_sm // block)
        try:
            overload = next(iter(kernel.overloads.values()))
            per_sm = overload.max_cooperative_grid_blocks(block) // self.sm_count
        except Exception:
            return limit
        return max(1, min(limit, per_sm))

    def empty(self, n, dtype):
        import numpy as np
        return self.cuda.device_array(int(n), dtype=np.float32 if dtype == "fp32" else np.float64)

    def release(self):
        """Numba frees device arrays when they are no longer referenced."""

    def poison(self, x):
        """Every byte 0xFF: NaN in every float, equal to no input value."""
        from numba.cuda.cudadrv.driver import device_memset
        device_memset(x, 0xFF, x.nbytes)

    def host(self, array):
        return array.copy_to_host()

    def upload(self, host_array):
        return self.cuda.to_device(host_array)

    def fill(self, x):
        self.kn.fill_kernel().compile()[self.sm_count * 8, BLOCK](x)

    def fill_read(self, x):
        self.kn.fill_read_kernel().compile()[self.sm_count * 8, BLOCK](x)

    def count_write_mismatches(self, x) -> int:
        import numpy as np
        count = self.cuda.to_device(np.zeros(1, np.int32))
        self.kn.write_mismatch_kernel().compile()[self.sm_count * 8, BLOCK](x, count)
        return int(count.copy_to_host()[0])

    def count_mismatches(self, a, b) -> int:
        import numpy as np
        count = self.cuda.to_device(np.zeros(1, np.int32))
        self.kn.mismatch_kernel().compile()[self.sm_count * 8, BLOCK](a, b, count)
        return int(count.copy_to_host()[0])

    # kernel launchers: each returns a zero-argument callable that enqueues one launch

    def copy_launcher(self, vpt, block, n_vec, src, dst):
        kernel = self.kn.copy_kernel(vpt).compile()
        grid = n_vec // (vpt * block)
        return lambda: kernel[grid, block](src, dst)

    def read_launcher(self, unroll, block, grid, x, out):
        kernel = self.kn.dram_read_kernel(unroll, block).compile()
        return lambda: kernel[grid, block](x, out)

    def write_launcher(self, vpt, block, n_vec, x):
        kernel = self.kn.dram_write_kernel(vpt).compile()
        grid = n_vec // (vpt * block)
        return lambda: kernel[grid, block](x)

    def fma_launcher(self, dtype, chains, unroll, n_iter, threads, out):
        import numpy as np
        kernel = self.kn.fma_peak_kernel(dtype, chains, unroll, n_iter).compile()
        one, zero = (np.float32(1), np.float32(0)) if dtype == "fp32" else (1.0, 0.0)
        return lambda: kernel[threads // BLOCK, BLOCK](out, one, zero)

    def sweep_launcher(self, k, n_vec, x, y, all_ks=(), vectors_per_thread=1):
        import numpy as np
        one, zero = np.float32(1), np.float32(0)
        if vectors_per_thread > 1:
            kernel = self.kn.sweep_pipelined_kernel(k).compile()
            grid = n_vec // (BLOCK * vectors_per_thread)
            return lambda: kernel[grid, BLOCK](x, y, one, zero)
        kernel = self.kn.sweep_kernel(k).compile()
        return lambda: kernel[n_vec // BLOCK, BLOCK](x, y, one, zero)

    def l2_launcher(self, data, out, groups, iters, grid):
        import numpy as np
        kernel = self.kn.l2_slab_kernel().compile()
        args = (data, out, np.int32(groups), np.int32(iters))
        return lambda: kernel[grid, acc.WS_BLOCK](*args)

    def shared_launcher(self, data, out, unroll, n_pass, mask, blocks):
        import numpy as np
        kernel = self.kn.shared_read_kernel(unroll).compile()
        args = (data, out, np.int32(n_pass), np.int32(mask))
        return lambda: kernel[blocks, BLOCK](*args)

    def sfu_launcher(self, out, chains, unroll, n_iter, threads):
        import numpy as np
        kernel = self.kn.sfu_kernel(chains, unroll, n_iter).compile()
        zero = np.float32(0)
        return lambda: kernel[threads // BLOCK, BLOCK](out, zero)

    def pinned(self, n: int):
        import numpy as np
        return self.cuda.pinned_array(int(n), dtype=np.float32)

    # The driver's copy, not DeviceNDArray.copy_to_device/copy_to_host: those spend about
    # 0.3 ms of host work inside the timed window before the copy is queued (256 MiB pinned on
    # the H200, 2026-12-02: 51.9 GB/s through copy_to_device, 54.5 through the driver's
    # cuMemcpyHtoD it ends in, 55.1 through CuPy), which is not the link's time.
    def to_device_launcher(self, host, device):
        copy, size = self.cuda.cudadrv.driver.host_to_device, host.nbytes
        return lambda: copy(device, host, size)

    def to_host_launcher(self, device, host):
        copy, size = self.cuda.cudadrv.driver.device_to_host, host.nbytes
        return lambda: copy(host, device, size)

    def reduction_launcher(self, x):
        """Launch, the sum (read after the first launch; later launches keep adding), label."""
        import numpy as np
        kernel = self.kn.reduction_kernel().compile()
        out = self.cuda.to_device(np.zeros(1, np.float64))
        grid = self.sm_count * (self.max_threads_per_sm // BLOCK)
        return (lambda: kernel[grid, BLOCK](x, out)), (lambda: float(out.copy_to_host()[0])), \
            "gpu_sum (Numba-CUDA, 16-byte loads, float64 partial sums)"

    def workingset_run(self, kernel_source, data, n_chunks, n_pass, grid, pattern, access) -> Run:
        import numpy as np
        kernel = kernel_source.compile()
        out = self.empty(4 * grid * acc.WS_BLOCK, "fp32")
        args = (data, out, np.int32(n_chunks), np.int32(n_pass))

        def check():
            got = self.host(out).astype(np.float64).reshape(grid * acc.WS_BLOCK, 4)
            return self._mismatches(got, expected_gpu_sums(n_chunks, n_pass, grid, pattern), "sums")

        return Run(lambda: kernel[grid, acc.WS_BLOCK](*args), check,
                   acc.chunk_read_work(grid, n_pass, acc.CHUNK_BYTES),
                   f"ws_read {access} {pattern} {n_chunks * acc.CHUNK_BYTES} B",
                   {"n_chunks": n_chunks, "n_pass": n_pass, "grid": grid},
                   poison=lambda: self.poison(out))


class CupyGpu(_GpuBase):
    """CUDA C++ kernels from :mod:`.kernels_cupy`, compiled by NVRTC."""

    name = "cupy"

    def __init__(self):
        try:
            import cupy
        except Exception as exc:
            raise BackendUnavailable(f"backend cupy: cannot import cupy ({exc})") from None
        try:
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise RuntimeError("no device")
            props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        except Exception as exc:
            raise BackendUnavailable(f"backend cupy: no CUDA GPU is available to CuPy ({exc})") from None
        self.cp, self.kc = cupy, kc
        self.sm_count = int(props["multiProcessorCount"])
        self.max_threads_per_sm = int(props["maxThreadsPerMultiProcessor"])
        self.cc = (int(props["major"]), int(props["minor"]))
        self.l2_bytes = int(props.get("l2CacheSize", 0)) or None
        name = props["name"]
        self.device_name = name.decode() if isinstance(name, bytes) else str(name)

    def device_facts(self) -> dict:
        rt = self.cp.cuda.runtime

        def version(v):
            return f"{v // 1000}.{v % 1000 // 10}"
        return {"name": self.device_name, "kind": "gpu", "sm_count": self.sm_count,
                "compute_capability": f"{self.cc[0]}.{self.cc[1]}",
                "cuda_runtime": version(rt.runtimeGetVersion()),
                "cuda_driver": version(rt.driverGetVersion())}

    def synchronize(self):
        self.cp.cuda.Device().synchronize()

    def empty(self, n, dtype):
        return self.cp.empty(int(n), dtype=self.cp.float32 if dtype == "fp32" else self.cp.float64)

    def release(self):
        """Hand the memory pool's free blocks back, so that the next kernel's buffers fit."""
        self.cp.get_default_memory_pool().free_all_blocks()

    def poison(self, x):
        """Every byte 0xFF: NaN in every float, equal to no input value."""
        x.view(self.cp.uint8).fill(0xFF)

    def host(self, array):
        return self.cp.asnumpy(array)

    def upload(self, host_array):
        return self.cp.asarray(host_array)

    def fill(self, x):
        cp = self.cp
        i = cp.arange(x.size, dtype=cp.int64)
        x[...] = ((i * 40503) & 65535).astype(cp.float32) * cp.float32(0.25) + cp.float32(1)
        del i

    def fill_read(self, x):
        fn = self.kc.kernel("fill_read")
        fn((self.sm_count * 8,), (BLOCK,), (x, self.cp.uint64(x.size)))

    def count_write_mismatches(self, x) -> int:
        cp = self.cp
        count = cp.zeros(1, dtype=cp.uint64)
        fn = self.kc.kernel("count_write_mismatches")
        fn((self.sm_count * 8,), (BLOCK,), (x, cp.uint64(x.size), count))
        return int(count.get()[0])

    def count_mismatches(self, a, b) -> int:
        cp = self.cp
        count = cp.zeros(1, dtype=cp.uint64)
        fn = self.kc.kernel("count_mismatches")
        fn((self.sm_count * 8,), (BLOCK,), (a, b, cp.uint64(a.size), count))
        return int(count.get()[0])

    def copy_launcher(self, vpt, block, n_vec, src, dst):
        fn = self.kc.kernel(self.kc.copy_name(vpt),
                            tuple(self.kc.copy_name(v) for v, _ in COPY_CONFIGS))
        grid = n_vec // (vpt * block)
        return lambda: fn((grid,), (block,), (src, dst))

    def read_launcher(self, unroll, block, grid, x, out):
        names = tuple(self.kc.dram_read_name(u, b) for u, b in READ_CONFIGS)
        fn = self.kc.kernel(self.kc.dram_read_name(unroll, block), names)
        n = self.cp.uint64(x.size // 4)
        return lambda: fn((grid,), (block,), (x, n, out))

    def write_launcher(self, vpt, block, n_vec, x):
        names = tuple(self.kc.dram_write_name(v) for v in sorted({v for v, _ in WRITE_CONFIGS}))
        fn = self.kc.kernel(self.kc.dram_write_name(vpt), names)
        grid = n_vec // (vpt * block)
        return lambda: fn((grid,), (block,), (x,))

    def fma_launcher(self, dtype, chains, unroll, n_iter, threads, out):
        import numpy as np
        fn = self.kc.kernel(self.kc.fma_peak_name(dtype, chains, unroll, n_iter))
        one, zero = (np.float32(1), np.float32(0)) if dtype == "fp32" else (np.float64(1), np.float64(0))
        return lambda: fn((threads // BLOCK,), (BLOCK,), (out, one, zero))

    def sweep_launcher(self, k, n_vec, x, y, all_ks=(), vectors_per_thread=1):
        import numpy as np
        pipelined = vectors_per_thread > 1
        names = tuple(self.kc.sweep_name(j, pipelined) for j in all_ks) or (self.kc.sweep_name(k, pipelined),)
        fn = self.kc.kernel(self.kc.sweep_name(k, pipelined), names)
        one, zero = np.float32(1), np.float32(0)
        if pipelined:
            grid = n_vec // (BLOCK * vectors_per_thread)
            n = np.uint64(n_vec)
            return lambda: fn((grid,), (BLOCK,), (x, y, n, one, zero))
        return lambda: fn((n_vec // BLOCK,), (BLOCK,), (x, y, one, zero))

    def pinned(self, n: int):
        import numpy as np
        memory = self.cp.cuda.alloc_pinned_memory(4 * int(n))
        return np.frombuffer(memory, np.float32, int(n))

    def to_device_launcher(self, host, device):
        return lambda: device.set(host)

    def to_host_launcher(self, device, host):
        return lambda: device.get(out=host)

    def reduction_launcher(self, x):
        cp = self.cp
        last = {}

        def launch():
            last["sum"] = cp.sum(x, dtype=cp.float64)
        return launch, (lambda: float(last["sum"].get())), "cupy.sum(dtype=float64)"

    def l2_launcher(self, data, out, groups, iters, grid):
        import numpy as np
        fn = self.kc.kernel("l2_slab")
        args = (data, out, np.int32(groups), np.int32(iters))
        return lambda: fn((grid,), (acc.WS_BLOCK,), args)

    def shared_launcher(self, data, out, unroll, n_pass, mask, blocks):
        import numpy as np
        fn = self.kc.kernel(self.kc.shared_read_name(unroll))
        args = (data, out, np.int32(n_pass), np.int32(mask))
        return lambda: fn((blocks,), (BLOCK,), args)

    def sfu_launcher(self, out, chains, unroll, n_iter, threads):
        import numpy as np
        fn = self.kc.kernel(self.kc.sfu_name(chains, unroll, n_iter))
        zero = np.float32(0)
        return lambda: fn((threads // BLOCK,), (BLOCK,), (out, zero))
