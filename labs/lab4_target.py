#!/usr/bin/env python3
"""Lab 4's default program to profile: our own kernels, whose FLOPs and bytes we count by hand.

    python3 labs/lab4_ncu.py profile          # runs this under ncu, then imports the counters

Each kernel below is launched exactly once (ncu profiles every launch that matches its -k
filter) and verified afterwards:

1. the Lab 2 sweep kernel at K = 1, 8, 64 and 256 on 1 GiB in and 1 GiB out, twenty times the
   H200's 50 MB L2, so that the few megabytes of dirty lines the L2 still holds when a kernel
   ends are a small part of its DRAM writes;
2. the same kernel at K = 8 on 64 MiB in and out, where they are not: ncu then reports fewer
   DRAM writes than the kernel makes, and the gap is the lesson;
3. the working-set read kernel re-reading 32 MiB (which the L2 holds) about 33 times: a
   kernel that looks memory-bound against DRAM but is bound by the L2.

The analytic FLOPs and bytes of every launch, in launch order, go to ``--analytic`` (JSON), which
``lab4_ncu.py show --analytic`` compares with the counters.  Nothing is printed on stdout, so
that ncu's CSV there stays clean.
"""
import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MIB = 1024 * 1024


def log(message):
    print(message, file=sys.stderr, flush=True)


def sweep_launch(gpu, k, buffer_bytes, records):
    from rooflinelib.measure import accounting as acc
    from rooflinelib.measure.engine import VerificationError
    n_vec, x, y = gpu.sweep_buffers(buffer_bytes)
    launch = gpu.sweep_launcher(k, n_vec, x, y)
    gpu.poison(y)
    launch()
    gpu.synchronize()
    bad = gpu.count_mismatches(x, y)
    if bad:
        raise VerificationError(f"verification: sweep k={k}: {bad} floats differ from the input")
    work = acc.sweep_work(4 * n_vec, k)
    half = work.n_bytes / 2  # one float32 read and one written per element
    records.append({"name": f"sweep K={k}, {buffer_bytes // MIB} MiB", "kernel": "sweep", "k": k,
                    "buffer_bytes": 16 * n_vec, "n_flops": work.n_flops, "dram_bytes": work.n_bytes,
                    "dram_read_bytes": half, "dram_write_bytes": half,
                    "l2_bytes": work.n_bytes, "l1_bytes": work.n_bytes})
    gpu.release(x, y)
    log(f"sweep K={k} on {buffer_bytes // MIB} MiB: verified")


def workingset_launch(gpu, ws_chunks, n_pass, records):
    import numpy as np
    from rooflinelib.measure.engine import VerificationError
    from rooflinelib.workingset import expected_gpu_sums, gpu_data
    from rooflinelib.workingset_kernels import BLOCK, CHUNK_BYTES, read_kernel
    kernel = read_kernel("global").compile()
    grid = gpu.sm_count * gpu.resident_blocks_per_sm(kernel, BLOCK)  # one wave, as the sweep
    data = gpu.upload(gpu_data(ws_chunks))
    out = gpu.empty(4 * grid * BLOCK, "fp32")
    kernel[grid, BLOCK](data, out, np.int32(ws_chunks), np.int32(n_pass))
    gpu.synchronize()
    got = gpu.host(out).astype(np.float64).reshape(grid * BLOCK, 4)
    if not np.array_equal(got, expected_gpu_sums(ws_chunks, n_pass, grid)):
        raise VerificationError("verification: working-set read: wrong sums")
    requested = float(grid) * n_pass * CHUNK_BYTES
    stored = 16.0 * grid * BLOCK
    ws_bytes = ws_chunks * CHUNK_BYTES
    records.append({"name": f"ws_read {ws_bytes // MIB} MiB x{requested / ws_bytes:.2f}",
                    "kernel": "ws_read", "ws_bytes": ws_bytes, "requested_bytes": requested,
                    # one add per float loaded: ncu counts these FADDs as FLOPs
                    "n_flops": requested / 4, "l1_bytes": requested + stored,
                    "l2_bytes": requested + stored, "dram_read_bytes": float(ws_bytes)})
    log(f"ws_read {ws_bytes // MIB} MiB, {requested / 1e6:.0f} MB requested: verified")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--analytic", required=True, help="where to write the analytic counts (JSON)")
    parser.add_argument("--ks", default="1,8,64,256", help="sweep K values on the large buffers")
    parser.add_argument("--large-mib", type=int, default=1024, help="each sweep buffer, MiB")
    parser.add_argument("--small-mib", type=int, default=64, help="the small-buffer sweep, MiB (0: skip)")
    parser.add_argument("--ws-mib", type=int, default=32, help="working set of the read kernel, MiB (0: skip)")
    parser.add_argument("--ws-passes", type=int, default=64, help="chunks each block reads")
    args = parser.parse_args(argv)
    try:
        ks = [int(k) for k in args.ks.split(",") if k.strip()]
    except ValueError:
        parser.error(f"--ks: expected comma-separated whole numbers, got {args.ks!r}")
    from rooflinelib.measure.engine import NumbaGpu
    from rooflinelib.workingset_kernels import CHUNK_BYTES
    gpu = NumbaGpu()
    records = []
    for k in ks:
        sweep_launch(gpu, k, args.large_mib * MIB, records)
    if args.small_mib:
        sweep_launch(gpu, 8, args.small_mib * MIB, records)
    if args.ws_mib:
        workingset_launch(gpu, args.ws_mib * MIB // CHUNK_BYTES, args.ws_passes, records)
    Path(args.analytic).write_text(json.dumps(records, indent=1) + "\n")
    log(f"analytic counts of {len(records)} launches written to {args.analytic}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
