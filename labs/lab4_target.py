#!/usr/bin/env python3
"""Lab 4's default program to profile: our own kernels, whose FLOPs and bytes we count by hand.

    python3 labs/lab4_ncu.py profile          # runs this under ncu, then imports the counters

Each kernel below is launched exactly once (ncu profiles every launch that matches its -k
filter) and verified afterwards:

1. the Lab 3 sweep kernel at K = 1, 8, 64 and 256 on 1 GiB in and 1 GiB out, twenty times the
   H200's 60 MiB L2, so that the few megabytes of dirty lines the L2 still holds when a kernel
   ends are a small part of its DRAM writes;
2. the same kernel at K = 8 on 64 MiB in and out, where they are not: ncu then reports fewer
   DRAM writes than the kernel makes, and the gap is the lesson;
3. the working-set read kernel re-reading 32 MiB (which the L2 holds) some 25 times (the count
   follows from the grid): a kernel that looks memory-bound against DRAM but is bound by the L2;
4. with ``--l2-sharing 2,32``, the L2-only read (``ld.global.cg``, a slice per block) on each of
   those working sets (MiB), once: below one 16 KiB chunk per block the blocks share chunks,
   and the L2's slices (``lts__t_bytes``) then serve fewer bytes than the SMs asked for.

The analytic FLOPs and bytes of every launch, in launch order, go to ``--analytic`` (JSON), which
``lab4_ncu.py show --analytic`` compares with the counters.  Nothing is printed on stdout, so
that ncu's CSV there stays clean.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MIB = 1024 * 1024


def log(message):
    print(message, file=sys.stderr, flush=True)


def sweep_launch(gpu, k, buffer_bytes, records):
    from rooflinelib.measure.protocol import launch_verified
    buffers = gpu.sweep_buffers(buffer_bytes)
    n_vec = buffers.n_vec
    (run,) = gpu.sweep_runs(k, buffers, vectors_per_thread=1)
    launch_verified(gpu, "sweep", run)
    work = run.work
    half = work.n_bytes / 2  # one float32 read and one written per element
    records.append({"name": f"sweep K={k}, {buffer_bytes // MIB} MiB", "kernel": "sweep", "k": k,
                    "buffer_bytes": 16 * n_vec, "n_flops": work.n_flops, "dram_bytes": work.n_bytes,
                    "dram_read_bytes": half, "dram_write_bytes": half,
                    "l2_bytes": work.n_bytes, "l1_bytes": work.n_bytes})
    del buffers, run
    gpu.release()
    log(f"sweep K={k} on {buffer_bytes // MIB} MiB: verified")


def read_once(gpu, access, pattern, ws_chunks, n_pass=None, bytes_per_launch=2e9):
    """One verified launch of the working-set read kernel (``access``, ``pattern``) on
    ``ws_chunks`` chunks, one wave of resident blocks, as the sweep launches it; ``n_pass``
    chunks per block (default: enough for ``bytes_per_launch``).  Returns (grid, n_pass)."""
    from rooflinelib.measure.expected import gpu_data, passes_for
    from rooflinelib.measure.protocol import launch_verified
    from rooflinelib.measure.workingset_kernels import BLOCK, read_kernel
    source = read_kernel(access, pattern)
    grid = gpu.sm_count * gpu.resident_blocks_per_sm(source.compile(), BLOCK)
    n_pass = n_pass or passes_for(bytes_per_launch, grid, ws_chunks)
    data = gpu.upload(gpu_data(ws_chunks))
    launch_verified(gpu, "working-set read", gpu.workingset_run(source, data, ws_chunks, n_pass, grid,
                                                                 pattern, access))
    del data
    gpu.release()
    return grid, n_pass


def workingset_launch(gpu, ws_chunks, n_pass, records):
    from rooflinelib.measure.workingset_kernels import BLOCK, CHUNK_BYTES
    grid, n_pass = read_once(gpu, "global", "spread", ws_chunks, n_pass)
    requested = float(grid) * n_pass * CHUNK_BYTES
    stored = 16.0 * grid * BLOCK
    ws_bytes = ws_chunks * CHUNK_BYTES
    records.append({"name": f"ws_read {ws_bytes // MIB} MiB x{requested / ws_bytes:.2f}",
                    "kernel": "ws_read", "ws_bytes": ws_bytes, "requested_bytes": requested,
                    # one add per float loaded: ncu counts these FADDs as FLOPs
                    "n_flops": requested / 4, "l1_bytes": requested + stored,
                    "l2_bytes": requested + stored, "dram_read_bytes": float(ws_bytes)})
    log(f"ws_read {ws_bytes // MIB} MiB, {requested / 1e6:.0f} MB requested: verified")


def sharing_launch(gpu, ws_chunks, records, bytes_per_launch=2e9):
    """The L2 ceiling's kernel (``ld.global.cg``, 'slices') on a working set of ``ws_chunks``
    chunks.  ``l2_bytes`` is what the SMs request: the slices serve exactly that unless blocks
    share chunks."""
    from rooflinelib.measure.workingset_kernels import BLOCK, CHUNK_BYTES
    grid, n_pass = read_once(gpu, "global-cg", "slices", ws_chunks, bytes_per_launch=bytes_per_launch)
    requested = float(grid) * n_pass * CHUNK_BYTES
    ws_bytes = ws_chunks * CHUNK_BYTES
    records.append({"name": f"ws_read .cg {ws_bytes // MIB} MiB, {grid / ws_chunks:.2f} blocks/chunk",
                    "kernel": "ws_read_cg_slices", "ws_bytes": ws_bytes, "grid": grid,
                    "blocks_per_chunk": grid / ws_chunks, "requested_bytes": requested,
                    "n_flops": requested / 4, "l2_bytes": requested + 16.0 * grid * BLOCK})
    log(f"ws_read .cg {ws_bytes // MIB} MiB, {grid} blocks: verified")


#: The largest K of the sweep kernel (as ``roofline sweep --ks``) and the most chunks a block
#: of the working-set read may be asked to read.
MAX_K, MAX_WS_PASSES = 4096, 65536


def parse_options(argv=None):
    """The options, each number checked as the ``roofline`` command checks its own
    (:func:`rooflinelib.cli.errors.number_option`); a bad one is a one-line UsageError."""
    from rooflinelib.cli.errors import ArgumentParser, number_option
    from rooflinelib.measure.backend import MAX_BUFFER_MIB
    parser = ArgumentParser(prog="lab4_target.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--analytic", required=True, help="where to write the analytic counts (JSON)")
    parser.add_argument("--ks", default="1,8,64,256", help="sweep K values on the large buffers")
    parser.add_argument("--large-mib", default="1024", help="each sweep buffer, MiB")
    parser.add_argument("--small-mib", default="64", help="the small-buffer sweep, MiB (0: skip)")
    parser.add_argument("--ws-mib", default="32", help="working set of the read kernel, MiB (0: skip)")
    parser.add_argument("--ws-passes", default="64", help="chunks each block reads")
    parser.add_argument("--l2-sharing", default="", help="working sets (MiB, comma-separated) for the "
                        "L2-only read with and without blocks sharing chunks (default: none)")
    args = parser.parse_args(argv)
    args.ks = [number_option(k, "--ks", integer=True, minimum=0, maximum=MAX_K)
               for k in args.ks.split(",") if k.strip()]
    args.l2_sharing = [number_option(m, "--l2-sharing", integer=True, minimum=1, maximum=MAX_BUFFER_MIB)
                       for m in args.l2_sharing.split(",") if m.strip()]
    args.large_mib = number_option(args.large_mib, "--large-mib", integer=True, minimum=1, maximum=MAX_BUFFER_MIB)
    for name in ("small_mib", "ws_mib"):
        setattr(args, name, number_option(getattr(args, name), f"--{name.replace('_', '-')}", integer=True,
                                          minimum=0, maximum=MAX_BUFFER_MIB))
    args.ws_passes = number_option(args.ws_passes, "--ws-passes", integer=True, minimum=1, maximum=MAX_WS_PASSES)
    return args


def main(argv=None):
    from rooflinelib.cli.errors import UsageError, option_error
    from rooflinelib.store.fileio import FileError, check_target, write_atomic
    try:
        args = parse_options(argv)
        # before minutes of launches under ncu, not after them
        check_target(args.analytic, option_error("--analytic"))
    except UsageError as exc:
        print(f"lab4_target: {' '.join(str(exc).split())[:400]}", file=sys.stderr)
        return 2
    ks, sharing = args.ks, args.l2_sharing
    from rooflinelib.measure.gpu_backends import NumbaGpu
    from rooflinelib.measure.workingset_kernels import CHUNK_BYTES
    gpu = NumbaGpu()
    records = []
    for k in ks:
        sweep_launch(gpu, k, args.large_mib * MIB, records)
    if args.small_mib:
        sweep_launch(gpu, 8, args.small_mib * MIB, records)
    if args.ws_mib:
        workingset_launch(gpu, args.ws_mib * MIB // CHUNK_BYTES, args.ws_passes, records)
    for mib in sharing:
        sharing_launch(gpu, mib * MIB // CHUNK_BYTES, records)
    try:
        write_atomic(args.analytic, json.dumps(records, indent=1) + "\n")
    except FileError as exc:
        print(f"lab4_target: --analytic: {exc}", file=sys.stderr)
        return 2
    log(f"analytic counts of {len(records)} launches written to {args.analytic}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
