"""A data-parallel training step on every rank: a GEMM-heavy layer stack's forward and backward,
then the all-reduce of its gradients, timed apart, in sequence, and overlapped.

Run inside :mod:`rooflinelib.measure.allreduce`'s torch workers (``--step``).  The model is
``LAYERS`` bias-free linear layers of ``D x D`` in bf16; every rank trains on the same seeded
batch, so after the all-reduce each gradient must equal ``world`` times the rank's own, which
is checked (exactly for two GPUs: doubling a bf16 number is exact).  FLOPs per step are
6 x parameters x tokens (:func:`rooflinelib.core.interconnect.data_parallel_step`); the gradients
are parameters x 2 bytes.
"""
from __future__ import annotations

import statistics

from rooflinelib.measure.timing import torch_events, time_queued

D = 8192
LAYERS = 4
TOKENS = (256, 1024, 4096)
REPEATS = 10




def time_step(torch, dist, rank: int, world: int, d: int = D, layers: int = LAYERS, tokens=TOKENS,
              repeats: int = REPEATS) -> dict:
    gen = torch.Generator(device="cuda").manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(d, d, bias=False) for _ in range(layers)])
    model = model.to(device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, device="cuda", dtype=torch.bfloat16, generator=gen) / d ** 0.5)
    params = list(model.parameters())
    n_params = sum(p.numel() for p in params)

    def backward(x):
        for p in params:
            p.grad = None
        model(x).float().sum().backward()

    def allreduce():
        for p in params:
            dist.all_reduce(p.grad)

    handles = []

    def hook(p):
        handles.append(dist.all_reduce(p.grad, async_op=True))

    def overlapped(x):
        hooks = [p.register_post_accumulate_grad_hook(hook) for p in params]
        try:
            backward(x)
            for h in handles:
                h.wait()
        finally:
            handles.clear()
            for h in hooks:
                h.remove()

    events = torch_events()

    def timed(fn):
        fn()
        events.synchronize()
        dist.barrier()
        return statistics.median(time_queued(fn, events, repeats))

    rows = []
    for t in tokens:
        x = torch.randn(t, d, device="cuda", dtype=torch.bfloat16, generator=torch.Generator(device="cuda").manual_seed(1))
        backward(x)
        local = params[0].grad.clone()
        allreduce()
        want = local * world
        exact = bool(torch.equal(params[0].grad, want)) if world == 2 else bool(
            torch.allclose(params[0].grad.float(), want.float(), rtol=1e-2, atol=1e-3))
        if not exact:
            raise RuntimeError(f"verification: tokens {t}: the all-reduced gradient is not {world} x the local one")
        compute_s = timed(lambda: backward(x))
        comm_s = timed(allreduce)
        serial_s = timed(lambda: (backward(x), allreduce()))
        overlap_s = timed(lambda: overlapped(x))
        rows.append({"tokens_per_gpu": t, "n_flops": 6 * n_params * t, "grad_bytes": 2 * n_params,
                     "compute_s": compute_s, "comm_s": comm_s, "serial_s": serial_s, "overlapped_s": overlap_s,
                     "verified": True})
    return {"d": d, "layers": layers, "n_params": n_params, "world": world, "rank": rank, "rows": rows}
