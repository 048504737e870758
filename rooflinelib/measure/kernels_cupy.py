"""The CuPy backend's kernels: CUDA C++ compiled by NVRTC through ``cupy.RawModule``.

The same kernels as :mod:`.kernels_numba` (copy, read, write, FMA peak, the sweep, the L2 read, the
shared-memory read and the SFU), written the way CUDA
C++ writes them: ``float4`` for 16-byte accesses and templates for compile-time counts.  They
take the same launch parameters and do the same work, so one count in :mod:`.accounting` and
one check serve both backends, and the two backends can be compared kernel for kernel.

CuPy is imported only inside the functions that need it.
"""
from __future__ import annotations

from functools import lru_cache

from rooflinelib.measure.accounting import CHUNK_VECTORS, WS_BLOCK, WS_UNROLL

SWEEP_UNROLL = 64  # as the Numba sweep: 64 steps of 4 chains per loop trip
SHARED_FLOATS = 4096  # as the Numba shared-memory kernel: 16 KiB per block

SOURCE = (f"#define SWEEP_UNROLL {SWEEP_UNROLL}\n#define WS_BLOCK {WS_BLOCK}\n#define WS_UNROLL {WS_UNROLL}\n"
          f"#define CHUNK_VECTORS {CHUNK_VECTORS}\n#define SHARED_FLOATS {SHARED_FLOATS}\n") + r"""
// dst[v] = src[v] for 16-byte vectors; VPT vectors per thread, one block-width apart,
// all loads issued before the first store.
template <int VPT>
__global__ void copy16(const float4* __restrict__ src, float4* __restrict__ dst) {
    const size_t first = (size_t)blockIdx.x * blockDim.x * VPT + threadIdx.x;
    float4 v[VPT];
#pragma unroll
    for (int u = 0; u < VPT; ++u) v[u] = src[first + (size_t)u * blockDim.x];
#pragma unroll
    for (int u = 0; u < VPT; ++u) dst[first + (size_t)u * blockDim.x] = v[u];
}

// DRAM read only (kernels_numba.dram_read_kernel): a grid-stride walk, UNROLL independent
// 16-byte loads per thread per trip, lane sums reduced per block into out[b].
template <int UNROLL, int BLOCK>
__global__ void __launch_bounds__(BLOCK) dram_read(const float4* __restrict__ x, size_t n,
                                                   float4* __restrict__ out) {
    __shared__ float4 part[BLOCK];
    const int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (BLOCK * UNROLL) + tid;
    const size_t stride = (size_t)gridDim.x * (BLOCK * UNROLL);
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
    for (; i + (size_t)(UNROLL - 1) * BLOCK < n; i += stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = x[i + (size_t)u * BLOCK];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) { s.x += v[u].x; s.y += v[u].y; s.z += v[u].z; s.w += v[u].w; }
    }
    for (; i < n; i += BLOCK) {
        const float4 v = x[i];
        s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
    }
    part[tid] = s;
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half >>= 1) {
        if (tid < half) {
            const float4 o = part[tid + half];
            part[tid].x += o.x; part[tid].y += o.y; part[tid].z += o.z; part[tid].w += o.w;
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = part[0];
}

// DRAM write only (kernels_numba.dram_write_kernel): vector j = b, b + 1/4, b + 1/2, b + 3/4,
// b = j mod 65536; VPT vectors per thread, one block-width apart.
template <int VPT>
__global__ void dram_write(float4* __restrict__ x) {
    const size_t first = (size_t)blockIdx.x * blockDim.x * VPT + threadIdx.x;
#pragma unroll
    for (int u = 0; u < VPT; ++u) {
        const size_t j = first + (size_t)u * blockDim.x;
        const float b = (float)(int)(j & 65535u);
        x[j] = make_float4(b, b + 0.25f, b + 0.5f, b + 0.75f);
    }
}

// x[e] = checks.read_values(e), and count[0] += elements that differ from checks.write_values.
__global__ void fill_read(float* x, size_t n) {
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (size_t)gridDim.x * blockDim.x)
        x[e] = (float)((unsigned)((e * 40503u) & 65535u) >> 13) * 0.25f;
}
__global__ void count_write_mismatches(const float* x, size_t n, unsigned long long* count) {
    unsigned long long bad = 0;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (size_t)gridDim.x * blockDim.x)
        bad += (x[e] != (float)(unsigned)((e >> 2) & 65535u) + (float)(unsigned)(e & 3u) * 0.25f);
    if (bad) atomicAdd(count, bad);
}

// CHAINS independent FMA chains per thread, N_ITER trips of UNROLL steps; identity FMAs
// (a = 1, b = 0) so that thread t stores exactly sum_c ((t % 1024) + c + 1).
template <typename T, int CHAINS, int UNROLL, int N_ITER>
__global__ void fma_peak(T* out, T a, T b) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const T seed = (T)(t & 1023u);
    T v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) v[c] = seed + (T)(c + 1);
#pragma unroll 1
    for (int i = 0; i < N_ITER; ++i) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) v[c] = fma(v[c], a, b);
        }
    }
    T total = (T)0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) total += v[c];
    out[t] = total;
}

// K identity FMAs on each float of one 16-byte vector per thread: I = K / 4 FLOP/byte.
template <int K>
__global__ void sweep(const float4* __restrict__ x, float4* __restrict__ y, float a, float b) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = x[i];
#pragma unroll 1
    for (int j = 0; j < K / SWEEP_UNROLL; ++j) {
#pragma unroll
        for (int u = 0; u < SWEEP_UNROLL; ++u) {
            v.x = fmaf(v.x, a, b); v.y = fmaf(v.y, a, b);
            v.z = fmaf(v.z, a, b); v.w = fmaf(v.w, a, b);
        }
    }
#pragma unroll
    for (int u = 0; u < K % SWEEP_UNROLL; ++u) {
        v.x = fmaf(v.x, a, b); v.y = fmaf(v.y, a, b);
        v.z = fmaf(v.z, a, b); v.w = fmaf(v.w, a, b);
    }
    y[i] = v;
}

// The same work, software-pipelined: each block walks its own contiguous chunk of n / grid
// vectors, a block-width at a time, each thread loading its next vector before it computes on
// the current one (see kernels_numba.sweep_pipelined_kernel).
template <int K>
__global__ void sweep_pipelined(const float4* __restrict__ x, float4* __restrict__ y, size_t n,
                                float a, float b) {
    const size_t chunk = n / gridDim.x;
    const size_t end = (size_t)blockIdx.x * chunk + chunk;
    size_t i = (size_t)blockIdx.x * chunk + threadIdx.x;
    if (i >= end) return;
    float4 v = x[i];
    for (;;) {
        const size_t following = i + blockDim.x;
        float4 w = v;
        if (following < end) w = x[following];
#pragma unroll 1
        for (int j = 0; j < K / SWEEP_UNROLL; ++j) {
#pragma unroll
            for (int u = 0; u < SWEEP_UNROLL; ++u) {
                v.x = fmaf(v.x, a, b); v.y = fmaf(v.y, a, b);
                v.z = fmaf(v.z, a, b); v.w = fmaf(v.w, a, b);
            }
        }
#pragma unroll
        for (int u = 0; u < K % SWEEP_UNROLL; ++u) {
            v.x = fmaf(v.x, a, b); v.y = fmaf(v.y, a, b);
            v.z = fmaf(v.z, a, b); v.w = fmaf(v.w, a, b);
        }
        y[i] = v;
        if (following >= end) break;
        i = following;
        v = w;
    }
}

// The L2 ceiling (kernels_numba.l2_slab_kernel): block b reads chunks i * groups + b % groups,
// i < iters, two per trip starting at pair (b / groups) % (iters / 2), with ld.global.cg, and
// reduces its threads' four sums into out[b].
__device__ __forceinline__ void add4(float4& s, float4 a, float4 b, float4 c, float4 d,
                                     float4 e, float4 f, float4 h, float4 k) {
    s.x += ((a.x + b.x) + (c.x + d.x)) + ((e.x + f.x) + (h.x + k.x));
    s.y += ((a.y + b.y) + (c.y + d.y)) + ((e.y + f.y) + (h.y + k.y));
    s.z += ((a.z + b.z) + (c.z + d.z)) + ((e.z + f.z) + (h.z + k.z));
    s.w += ((a.w + b.w) + (c.w + d.w)) + ((e.w + f.w) + (h.w + k.w));
}
__global__ void __launch_bounds__(WS_BLOCK) l2_slab(const float4* __restrict__ data, float4* out,
                                                    int groups, int iters) {
    __shared__ float4 part[WS_BLOCK];
    const int tid = threadIdx.x;
    const int g = blockIdx.x % groups;
    const int pairs = iters / 2;
    const int phase = (blockIdx.x / groups) % pairs;
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int p = 0; p < pairs; ++p) {
        int q = p + phase;
        if (q >= pairs) q -= pairs;
        const float4* first = data + (size_t)(2 * q * groups + g) * CHUNK_VECTORS + tid;
        const float4* second = first + (size_t)groups * CHUNK_VECTORS;
        const float4 a = __ldcg(first), b = __ldcg(first + WS_BLOCK);
        const float4 c = __ldcg(first + 2 * WS_BLOCK), d = __ldcg(first + 3 * WS_BLOCK);
        const float4 e = __ldcg(second), f = __ldcg(second + WS_BLOCK);
        const float4 h = __ldcg(second + 2 * WS_BLOCK), k = __ldcg(second + 3 * WS_BLOCK);
        add4(s, a, b, c, d, e, f, h, k);
    }
    part[tid] = s;
    __syncthreads();
    for (int width = WS_BLOCK / 2; width > 0; width >>= 1) {
        if (tid < width) {
            float4 o = part[tid + width];
            part[tid].x += o.x; part[tid].y += o.y; part[tid].z += o.z; part[tid].w += o.w;
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = part[0];
}

// Shared-memory read bandwidth (kernels_numba.shared_read_kernel): every block copies
// SHARED_FLOATS floats into shared memory, then each thread sums UNROLL 16-byte vectors per
// pass, starting at (p * UNROLL * blockDim) & mask.
template <int UNROLL>
__global__ void shared_read(const float* __restrict__ data, float4* out, int n_pass, int mask) {
    __shared__ float4 tile[SHARED_FLOATS / 4];
    float* flat = reinterpret_cast<float*>(tile);
    for (int j = threadIdx.x; j < SHARED_FLOATS; j += blockDim.x) flat[j] = data[j];
    __syncthreads();
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
    const int step = UNROLL * blockDim.x;
    for (int p = 0; p < n_pass; ++p) {
        const int start = (p * step) & mask;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const float4 x = tile[start + threadIdx.x + u * blockDim.x];
            s.x += x.x; s.y += x.y; s.z += x.z; s.w += x.w;
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// The SFU ceiling (kernels_numba.sfu_kernel): v += exp2(v * zero) on CHAINS chains, one
// ex2.approx.ftz per step and chain; each step adds exactly 1.
__device__ __forceinline__ float ex2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
template <int CHAINS, int UNROLL, int N_ITER>
__global__ void sfu(float* out, float zero) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const float seed = (float)(t & 63u);
    float v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) v[c] = seed + (float)c;
#pragma unroll 1
    for (int i = 0; i < N_ITER; ++i) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) v[c] = v[c] + ex2_approx(v[c] * zero);
        }
    }
    float total = 0.f;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) total += v[c];
    out[t] = total;
}

// count[0] += positions where a and b differ (the inputs hold no NaN and no -0).
__global__ void count_mismatches(const float* a, const float* b, size_t n, unsigned long long* count) {
    unsigned long long bad = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        bad += (a[i] != b[i]);
    if (bad) atomicAdd(count, bad);
}
"""

_CTYPE = {"fp32": "float", "fp64": "double"}


def copy_name(vectors_per_thread: int) -> str:
    return f"copy16<{int(vectors_per_thread)}>"


def dram_read_name(unroll: int, block: int) -> str:
    return f"dram_read<{int(unroll)}, {int(block)}>"


def dram_write_name(vectors_per_thread: int) -> str:
    return f"dram_write<{int(vectors_per_thread)}>"


def fma_peak_name(dtype: str, chains: int, unroll: int, n_iter: int) -> str:
    return f"fma_peak<{_CTYPE[dtype]}, {int(chains)}, {int(unroll)}, {int(n_iter)}>"


def shared_read_name(unroll: int) -> str:
    return f"shared_read<{int(unroll)}>"


def sfu_name(chains: int, unroll: int, n_iter: int) -> str:
    return f"sfu<{int(chains)}, {int(unroll)}, {int(n_iter)}>"


def sweep_name(k: int, pipelined: bool = False) -> str:
    return f"sweep_pipelined<{int(k)}>" if pipelined else f"sweep<{int(k)}>"


OPTIONS = ("--std=c++17",)


@lru_cache(maxsize=None)
def module(name_expressions: tuple):
    """One RawModule holding the template instances named; compiled on first use of a kernel
    (CuPy caches the binary on disk, keyed by the source)."""
    import cupy

    return cupy.RawModule(code=SOURCE, options=OPTIONS, name_expressions=name_expressions)


def kernel(name_expression: str, all_names: tuple = ()):
    """The compiled kernel ``name_expression``, from a module holding ``all_names`` too (so a
    sweep compiles its K values in one NVRTC call)."""
    names = tuple(all_names) or (name_expression,)
    if name_expression not in names:
        names = names + (name_expression,)
    return module(names).get_function(name_expression)
