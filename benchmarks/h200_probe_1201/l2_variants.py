#!/usr/bin/env python3
"""Probe (H200, 2026-12-01): which read-kernel shape lets the L2's slices serve the most bytes
per second, measured by ncu's ``lts__t_bytes.sum / gpu__time_duration.sum``.

Every variant reads a working set of whole 16 KiB-or-larger chunks that fits the L2 and checks
its sums exactly (all data are 1.0, so each thread's sum is the number of values it read).

    python3 l2_variants.py events  OUT.json   # device-event rates, median of 10
    python3 l2_variants.py ncu                # two launches per variant, to run under ncu

Shapes: ``persist`` launches the blocks the SMs hold at once, each cycling over its own chunks;
``slab`` launches many short blocks, block b reading ``iters`` chunks (b % groups) + i * groups,
so that the blocks which read one chunk run at different times.
"""
import json
import sys

import cupy as cp
import numpy as np

SOURCE = r"""
template <typename T> __device__ __forceinline__ T ld(const T* p, bool cg);
template <> __device__ __forceinline__ float4 ld<float4>(const float4* p, bool cg) { return cg ? __ldcg(p) : *p; }
template <> __device__ __forceinline__ double ld<double>(const double* p, bool cg) { return cg ? __ldcg(p) : *p; }
template <> __device__ __forceinline__ double2 ld<double2>(const double2* p, bool cg) { return cg ? __ldcg(p) : *p; }
__device__ __forceinline__ double total(float4 v) { return (double)v.x + v.y + v.z + v.w; }
__device__ __forceinline__ double total(double v) { return v; }
__device__ __forceinline__ double total(double2 v) { return v.x + v.y; }

template <typename T, int BLOCK, int LOADS, bool CG>
__global__ void __launch_bounds__(BLOCK) l2probe_persist(const T* __restrict__ data, double* out,
                                                          int n_chunks, int n_pass) {
    const int first = (blockIdx.x * n_chunks) / gridDim.x;
    int last = ((blockIdx.x + 1) * n_chunks) / gridDim.x;
    if (last <= first) last = first + 1;
    const int chunk = BLOCK * LOADS;
    int c = first;
    double s = 0.0;
    for (int p = 0; p < n_pass; ++p) {
        const T* base = data + (size_t)c * chunk + threadIdx.x;
        T v[LOADS];
#pragma unroll
        for (int u = 0; u < LOADS; ++u) v[u] = ld(base + u * BLOCK, CG);
#pragma unroll
        for (int u = 0; u < LOADS; ++u) s += total(v[u]);
        if (++c == last) c = first;
    }
    out[blockIdx.x * BLOCK + threadIdx.x] = s;
}

template <typename T, int BLOCK, int LOADS, bool CG>
__global__ void __launch_bounds__(BLOCK) l2probe_slab(const T* __restrict__ data, double* out,
                                                       int groups, int iters) {
    const int chunk = BLOCK * LOADS;
    const int g = blockIdx.x % groups;
    double s = 0.0;
    for (int i = 0; i < iters; ++i) {
        const T* base = data + (size_t)(i * groups + g) * chunk + threadIdx.x;
        T v[LOADS];
#pragma unroll
        for (int u = 0; u < LOADS; ++u) v[u] = ld(base + u * BLOCK, CG);
#pragma unroll
        for (int u = 0; u < LOADS; ++u) s += total(v[u]);
    }
    // one value per block: the block's reads, reduced through shared memory
    __shared__ double part[BLOCK / 32];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0;
        for (int w = 0; w < BLOCK / 32; ++w) t += part[w];
        out[blockIdx.x] = t;
    }
}
"""

TYPES = {"float4": (16, 4), "double": (8, 1), "double2": (16, 2)}  # bytes, values per element
# (shape, type, block, loads per thread per chunk, cg)
VARIANTS = [
    ("persist", "float4", 256, 4, True),
    ("persist", "float4", 1024, 1, True),
    ("persist", "double", 1024, 2, True),
    ("persist", "double", 1024, 2, False),
    ("persist", "float4", 512, 2, True),
    ("slab", "double", 1024, 2, False),
    ("slab", "double", 1024, 2, True),
    ("slab", "float4", 1024, 1, True),
    ("slab", "float4", 1024, 1, False),
    ("slab", "float4", 256, 4, True),
    ("slab", "float4", 512, 2, True),
    ("slab", "double2", 1024, 1, True),
]
SIZES_MB = (8, 16, 25)
BYTES_PER_LAUNCH = 8e9
SLAB_ITERS = 32


def name_of(shape, t, block, loads, cg):
    return f"l2probe_{shape}<{t}, {block}, {loads}, {'true' if cg else 'false'}>"


def build():
    names = [name_of(*v) for v in VARIANTS]
    mod = cp.RawModule(code=SOURCE, options=("-std=c++17",), name_expressions=names)
    return {v: mod.get_function(name_of(*v)) for v in VARIANTS}


def plan(variant, size_mb, sm_count, fn):
    shape, t, block, loads, cg = variant
    elem_bytes, per_elem = TYPES[t]
    chunk_bytes = block * loads * elem_bytes
    n_chunks = max(1, int(size_mb * 1e6) // chunk_bytes)
    if shape == "persist":
        # registers decide residency here (no shared memory): 64 K per SM, allocated per warp
        # in units of 256
        per_warp = -(-fn.num_regs * 32 // 256) * 256
        blocks_per_sm = max(1, min(2048 // block, 65536 // (per_warp * (block // 32))))
        grid = sm_count * max(1, blocks_per_sm)
        n_pass = max(1, int(BYTES_PER_LAUNCH / (grid * chunk_bytes)))
        per_thread_values = n_pass * loads * per_elem
        return dict(grid=grid, args=(np.int32(n_chunks), np.int32(n_pass)), out=grid * block,
                    want=float(per_thread_values), n_bytes=float(grid) * n_pass * chunk_bytes,
                    chunk_bytes=chunk_bytes, n_chunks=n_chunks, blocks_per_chunk=grid / n_chunks)
    iters = SLAB_ITERS
    groups = max(1, n_chunks // iters)
    n_chunks = groups * iters
    grid = max(groups, int(BYTES_PER_LAUNCH / (iters * chunk_bytes)) // groups * groups)
    return dict(grid=grid, args=(np.int32(groups), np.int32(iters)), out=grid,
                want=float(iters * loads * per_elem * block), n_bytes=float(grid) * iters * chunk_bytes,
                chunk_bytes=chunk_bytes, n_chunks=n_chunks, blocks_per_chunk=None)


def main():
    mode = sys.argv[1]
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    sm_count = props["multiProcessorCount"]
    fns = build()
    data = cp.ones(int(30e6) // 8 + 4096, dtype=cp.float64)  # 1.0 everywhere, viewed per type
    rows = []
    for v in VARIANTS:
        for size_mb in SIZES_MB:
            fn = fns[v]
            p = plan(v, size_mb, sm_count, fn)
            block = v[2]
            out = cp.zeros(p["out"], dtype=cp.float64)
            launch = lambda: fn((p["grid"],), (block,), (data, out, *p["args"]))  # noqa: E731
            out.fill(-1)
            launch()
            cp.cuda.Device().synchronize()
            got = cp.asnumpy(out)
            ok = bool(np.all(got == p["want"]))
            if not ok:
                print(f"FAILED verification {v} {size_mb} MB: {got[:4]} want {p['want']}", file=sys.stderr)
                continue
            if mode == "ncu":
                launch()
                cp.cuda.Device().synchronize()
                continue
            for _ in range(3):
                launch()
            samples = []
            for _ in range(10):
                s, e = cp.cuda.Event(), cp.cuda.Event()
                launch()  # the prime: the timed launch queues behind it
                s.record()
                launch()
                e.record()
                e.synchronize()
                samples.append(cp.cuda.get_elapsed_time(s, e) / 1e3)
            med = float(np.median(samples))
            row = dict(variant=name_of(*v), shape=v[0], type=v[1], block=block, loads=v[3], cg=v[4],
                       size_mb=size_mb, grid=p["grid"], n_chunks=p["n_chunks"], chunk_bytes=p["chunk_bytes"],
                       blocks_per_chunk=p["blocks_per_chunk"], n_bytes=p["n_bytes"], median_s=med,
                       spread=(max(samples) - min(samples)) / med, gbps=p["n_bytes"] / med / 1e9,
                       verified=True)
            rows.append(row)
            print(f"{row['variant']:45s} {size_mb:3d} MB grid {p['grid']:6d}: {row['gbps']:9,.0f} GB/s "
                  f"(spread {100 * row['spread']:.1f}%)", file=sys.stderr)
    if mode == "events":
        with open(sys.argv[2], "w") as f:
            json.dump({"device": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
