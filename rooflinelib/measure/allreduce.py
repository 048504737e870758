"""NCCL all-reduce bandwidth across the GPUs of one host, and a data-parallel step around it.

One process per GPU (``multiprocessing``, spawned), through ``torch.distributed`` (NCCL) or
CuPy's NCCL bindings.  For each message size, from 1 KiB to 1 GiB:

1. every rank fills its buffer with small integers that depend on the rank, so that the sum
   over ranks is exact in float32 and known in advance;
2. one all-reduce (SUM), checked element for element on every rank;
3. a warm-up, then ``repeats`` all-reduces, each between two device events, queued back to
   back; a repeat's time is the slowest rank's;
4. the buffer is filled and reduced once more and checked again.

Reported: the median time, the *algorithm bandwidth* (message bytes / time) and the *bus
bandwidth* (algorithm bandwidth x 2(n-1)/n, what each GPU's links carry in a ring; Patarasuk and
Yuan, 2009), and the latency of small messages.  The result is a ``ceilings`` file with one
ceiling, ``nvlink-allreduce`` (the bus bandwidth at large messages), the whole curve, and the
provenance of every GPU.  NVLink multicast (NVLS) stays off: ``NCCL_NVLS_ENABLE=0`` is set in every
worker, and nothing here creates multicast objects.

    python -m rooflinelib.measure.allreduce --gpus 2 [--library torch|cupy] [--out FILE] [--step]
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time
from dataclasses import dataclass

from rooflinelib.store.fileio import read_json, write_atomic
from rooflinelib.measure.timing import device_events, time_queued
from rooflinelib.core.interconnect import ring_allreduce_factor
from rooflinelib.store import results
from rooflinelib.measure.provenance import gpu_snapshot, now_iso
from rooflinelib.measure.dp_step import time_step

KIB = 2 ** 10
#: 1 KiB to 1 GiB in steps of 4.
SIZES = tuple(KIB * 4 ** e for e in range(11))
#: Messages at least this large set the ceiling (the curve's plateau); smaller ones its latency.
PLATEAU_BYTES = 64 * 2 ** 20
LATENCY_BYTES = 64 * KIB
REPEATS = 20
WARMUP = 5
LIBRARIES = ("torch", "cupy")
PATTERN = 7  # fill values (i mod PATTERN) + rank + 1: small integers, sums exact in float32
TIMEOUT_S = 600


class AllReduceError(RuntimeError):
    """The all-reduce could not run, or a result failed its check: one line saying which."""


# --- what the check expects --------------------------------------------------------------------

def fill_host(n: int, rank: int):
    import numpy as np
    return ((np.arange(n, dtype=np.int64) % PATTERN) + rank + 1).astype(np.float32)


def expected_sum(n: int, world: int):
    """The element-wise sum over ``world`` ranks of :func:`fill_host`: exact in float32."""
    import numpy as np
    base = (np.arange(n, dtype=np.int64) % PATTERN) * world + world * (world + 1) // 2
    return base.astype(np.float32)


def bus_factor(world: int) -> float:
    return ring_allreduce_factor(world)


@dataclass(frozen=True)
class SizePoint:
    """One message size: its median time (the slowest rank's, per repeat) and its bandwidths."""

    n_bytes: int
    median_s: float
    spread: float
    world: int
    verified: bool

    @property
    def algbw_gbps(self) -> float:
        return self.n_bytes / self.median_s / 1e9

    @property
    def busbw_gbps(self) -> float:
        return self.algbw_gbps * bus_factor(self.world)

    def row(self) -> dict:
        return {"bytes": self.n_bytes, "median_s": self.median_s, "spread": self.spread,
                "algbw_gbps": self.algbw_gbps, "busbw_gbps": self.busbw_gbps, "verified": self.verified}


def merge(per_rank: list, world: int) -> list:
    """Size points from each rank's ``{bytes: [seconds per repeat]}``: the slowest rank of each
    repeat, then the median over repeats.  Every rank must have checked every size."""
    if len(per_rank) != world:
        raise AllReduceError(f"ranks: expected {world} reports, got {len(per_rank)}")
    points = []
    for size in sorted(per_rank[0]["times"], key=int):
        series = [r["times"][size] for r in per_rank]
        if any(len(s) != len(series[0]) for s in series):
            raise AllReduceError(f"size {size}: the ranks timed different numbers of repeats")
        slowest = sorted(max(values) for values in zip(*series))
        median = statistics.median(slowest)
        verified = all(r["verified"].get(size) for r in per_rank)
        if not verified:
            raise AllReduceError(f"verification: size {size}: a rank's all-reduce result was wrong")
        points.append(SizePoint(int(size), median, (slowest[-1] - slowest[0]) / median, world, verified))
    return points


def plateau_gbps(points) -> float:
    """The ceiling: the best bus bandwidth among messages of at least PLATEAU_BYTES."""
    big = [p.busbw_gbps for p in points if p.n_bytes >= PLATEAU_BYTES]
    if not big:
        raise AllReduceError(f"sizes: none of at least {PLATEAU_BYTES // 2 ** 20} MiB, so no plateau to report")
    return max(big)


def latency_s(points) -> float:
    small = [p.median_s for p in points if p.n_bytes <= LATENCY_BYTES]
    return min(small) if small else None


def to_result(points, world: int, library: str, gpus: list, created: str, step=None) -> dict:
    """A validated ``ceilings`` result: ``nvlink-allreduce`` and the curve, with ``"gpus"``."""
    if world < 2:
        raise AllReduceError("gpus: an all-reduce ceiling needs at least 2 GPUs (one GPU sends nothing)")
    ceiling = plateau_gbps(points)
    spread = next(p.spread for p in points if p.n_bytes >= PLATEAU_BYTES and p.busbw_gbps == ceiling)
    result = {
        "format": results.FORMAT, "version": results.VERSION, "kind": "ceilings",
        "backend": "cupy" if library == "cupy" else "numba", "scope": "gpu", "created": created,
        "device": {"name": f"{world} x {gpus[0].get('name', 'GPU')}", "kind": "gpu", "gpus": gpus,
                   "library": library, "nccl_nvls_enable": "0"},
        "gpus": world,
        "ceilings": [{"name": "nvlink-allreduce", "kind": "memory", "value": ceiling, "unit": "GB/s",
                      "verified": True, "spread": spread}],
        "allreduce_curve": [p.row() for p in points],
        "latency_s": latency_s(points),
        "notes": [f"NCCL all-reduce (SUM, float32) over {world} GPUs through {library}; bus bandwidth = "
                  f"algorithm bandwidth x 2(n-1)/n = x {bus_factor(world):.3g}; every size checked on every rank"],
    }
    if step is not None:
        result["data_parallel_step"] = step
    return results.validate(result)


# --- the workers ---------------------------------------------------------------------------------

class _Comm:
    """One rank's NCCL communicator, buffers and events, through torch or CuPy."""

    def __init__(self, library: str, rank: int, world: int, rendezvous: str):
        self.library, self.rank, self.world = library, rank, world
        if library == "torch":
            import torch
            import torch.distributed as dist
            torch.cuda.set_device(rank)
            dist.init_process_group("nccl", init_method=f"file://{rendezvous}", rank=rank, world_size=world)
            self.torch, self.dist = torch, dist
        else:
            import cupy
            from cupy.cuda import nccl
            cupy.cuda.Device(rank).use()
            uid_file = rendezvous + ".uid"
            if rank == 0:
                uid = nccl.get_unique_id()  # bytes in CuPy 14, a tuple of small ints before
                write_atomic(uid_file, json.dumps({"hex": uid.hex()} if isinstance(uid, bytes)
                                                  else {"ints": list(uid)}), AllReduceError)
            deadline = time.time() + 60
            while not os.path.exists(uid_file):
                if time.time() > deadline:
                    raise AllReduceError("rendezvous: rank 0's NCCL id never appeared")
                time.sleep(0.05)
            stored = read_json(uid_file, AllReduceError, "an NCCL id file")
            uid = bytes.fromhex(stored["hex"]) if "hex" in stored else tuple(stored["ints"])
            self.cupy, self.nccl = cupy, nccl
            self.comm = nccl.NcclCommunicator(world, uid, rank)
        self.events = device_events(library)

    def buffer(self, n: int):
        host = fill_host(n, self.rank)
        if self.library == "torch":
            return self.torch.from_numpy(host).cuda()
        return self.cupy.asarray(host)

    def refill(self, buf):
        host = fill_host(buf.numel() if self.library == "torch" else buf.size, self.rank)
        if self.library == "torch":
            buf.copy_(self.torch.from_numpy(host))
        else:
            buf.set(host)

    def allreduce(self, buf, op: str = "sum"):
        if self.library == "torch":
            self.dist.all_reduce(buf, op=self.dist.ReduceOp.SUM if op == "sum" else self.dist.ReduceOp.MAX)
        else:
            nccl = self.nccl
            stream = self.cupy.cuda.get_current_stream().ptr
            self.comm.allReduce(buf.data.ptr, buf.data.ptr, buf.size, nccl.NCCL_FLOAT32,
                                nccl.NCCL_SUM if op == "sum" else nccl.NCCL_MAX, stream)

    def host(self, buf):
        return buf.cpu().numpy() if self.library == "torch" else self.cupy.asnumpy(buf)

    def synchronize(self):
        """torch: the whole device; CuPy: the current stream, where NCCL is told to run."""
        self.events.synchronize()

    def close(self):
        if self.library == "torch":
            self.dist.destroy_process_group()


def _check(comm: _Comm, buf, n: int) -> bool:
    import numpy as np
    comm.synchronize()
    return bool(np.array_equal(comm.host(buf), expected_sum(n, comm.world)))


def _measure_sizes(comm: _Comm, sizes, repeats: int) -> dict:
    times, verified = {}, {}
    for size in sizes:
        n = max(1, size // 4)
        buf = comm.buffer(n)
        comm.allreduce(buf)
        ok = _check(comm, buf, n)
        for _ in range(WARMUP):
            comm.allreduce(buf)
        comm.synchronize()
        times[str(size)] = list(time_queued(lambda: comm.allreduce(buf), comm.events, repeats))
        comm.synchronize()
        comm.refill(buf)
        comm.allreduce(buf)
        verified[str(size)] = ok and _check(comm, buf, n)
        del buf
    return {"times": times, "verified": verified}


def _worker(rank: int, world: int, library: str, sizes, repeats: int, rendezvous: str, out_dir: str,
            step: bool):
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # before NCCL initialises: no NVLink multicast
    report = {"rank": rank}
    try:
        comm = _Comm(library, rank, world, rendezvous)
        report.update(_measure_sizes(comm, sizes, repeats))
        report["gpu"] = _gpu_facts(rank) | {"after": gpu_snapshot()}
        if step and library == "torch":
            report["step"] = time_step(comm.torch, comm.dist, rank, world)
        comm.close()
    except Exception as exc:  # reported by the parent in one line
        report["error"] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    write_atomic(os.path.join(out_dir, f"rank{rank}.json"), json.dumps(report), AllReduceError)


def _gpu_facts(rank: int) -> dict:
    try:
        import pynvml as nv
        nv.nvmlInit()
        h = nv.nvmlDeviceGetHandleByIndex(rank)
        name = nv.nvmlDeviceGetName(h)
        return {"index": rank, "name": name.decode() if isinstance(name, bytes) else name,
                "pci_bus_id": _text(nv.nvmlDeviceGetPciInfo(h).busId)}
    except Exception:
        return {"index": rank, "name": "GPU"}


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def run(world: int = 2, library: str = "torch", sizes=SIZES, repeats: int = REPEATS, step: bool = False,
        timeout_s: float = TIMEOUT_S) -> tuple:
    """Measure on ``world`` GPUs; ``(points, per-rank reports)``.  AllReduceError names what
    went wrong: too few GPUs, a rank that failed, a wrong result or a timeout."""
    import multiprocessing as mp
    import tempfile
    if library not in LIBRARIES:
        raise AllReduceError(f"library: must be one of {', '.join(LIBRARIES)}, got {library!r}")
    if isinstance(world, bool) or not isinstance(world, int) or world < 1:
        raise AllReduceError(f"gpus: must be a whole number of at least 1, got {world!r}")
    visible = _visible_gpus(library)
    if visible < world:
        raise AllReduceError(f"gpus: {world} asked for, {visible} visible on this host")
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as out_dir:
        rendezvous = os.path.join(out_dir, "rendezvous")
        procs = [ctx.Process(target=_worker, args=(r, world, library, tuple(sizes), repeats, rendezvous, out_dir, step))
                 for r in range(world)]
        for p in procs:
            p.start()
        deadline = time.time() + timeout_s
        for p in procs:
            p.join(max(1.0, deadline - time.time()))
        if any(p.is_alive() for p in procs):
            for p in procs:
                p.kill()
            raise AllReduceError(f"timeout: the all-reduce did not finish within {timeout_s:.0f} s")
        reports = []
        for r in range(world):
            path = os.path.join(out_dir, f"rank{r}.json")
            if not os.path.exists(path):
                raise AllReduceError(f"rank {r}: exited with status {procs[r].exitcode} and no report")
            reports.append(read_json(path, AllReduceError, "a rank's report", "result"))
    failed = [f"rank {r['rank']}: {r['error']}" for r in reports if "error" in r]
    if failed:
        raise AllReduceError("; ".join(failed))
    return merge(reports, world), reports


def _visible_gpus(library: str) -> int:
    try:
        if library == "torch":
            import torch
            return torch.cuda.device_count()
        import cupy
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return 0


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(prog="python -m rooflinelib.measure.allreduce", description=__doc__.split("\n")[0])
    parser.add_argument("--gpus", type=int, default=2)
    parser.add_argument("--library", choices=LIBRARIES, default="torch")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--step", action="store_true", help="also time a data-parallel step (torch)")
    parser.add_argument("--out", help="write the validated result here (needs --gpus 2 or more)")
    args = parser.parse_args(argv)
    created = now_iso()
    try:
        points, reports = run(args.gpus, args.library, repeats=args.repeats, step=args.step)
    except AllReduceError as exc:
        print(f"allreduce: error: {exc}", file=sys.stderr)
        return 2
    for p in points:
        print(f"{p.n_bytes:>12,d} B  {p.median_s * 1e6:10.1f} us  algbw {p.algbw_gbps:8.2f} GB/s  "
              f"busbw {p.busbw_gbps:8.2f} GB/s  spread {p.spread:.1%}")
    step = reports[0].get("step")
    if step:
        print(json.dumps(step))
    if args.out:
        result = to_result(points, args.gpus, args.library, [r["gpu"] for r in reports], created, step)
        write_atomic(args.out, json.dumps(result, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
