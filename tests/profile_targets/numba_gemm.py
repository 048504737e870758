"""The course's naive and tiled fp32 GEMMs (rooflinelib/profiling/gemm_targets.py) at n = 2048,
for the profiler's GPU lane: the same FLOPs and the same compulsory bytes, and about TILE times
fewer L1 requests tiled."""
from rooflinelib.profiling.gemm_targets import (N, N_BYTES, N_FLOPS, TILE, gemm_naive, gemm_tiled,
                                                setup)

__all__ = ["N", "N_BYTES", "N_FLOPS", "TILE", "gemm_naive", "gemm_tiled", "setup"]
