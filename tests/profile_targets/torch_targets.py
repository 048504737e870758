"""torch work for the profiler's GPU lane: a bf16 GEMM of 8192 x 8192 x 8192."""
N = 8192
N_FLOPS = 2 * N ** 3
N_BYTES = 3 * N * N * 2  # A and B read once, C written once: the compulsory traffic


def setup():
    import torch
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(N, N, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(N, N, device="cuda", dtype=torch.bfloat16, generator=g)
    return a, b, torch.empty(N, N, device="cuda", dtype=torch.bfloat16)


def gemm(a, b, c):
    import torch
    return torch.matmul(a, b, out=c)
