"""A Lab 1 result on a CPU, stored where the chain of ceiling sources looks, for tests of what
reads it (the experiments' DRAM roofs): each DRAM mix at its own rate, so that a reader that took
the wrong one, or timed its own copy, is told apart."""
from rooflinelib.store import results
from rooflinelib.store.lab_files import default_path

#: GB/s of each DRAM mix: none a rate this VM's own copy would come out at to four digits.
MIX_GBPS = {"read": 21.0, "write": 13.0, "copy": 17.25}
NOISE = "another program was using the CPU"


def _ceiling(name, kind, value, **more):
    return {"name": name, "kind": kind, "value": value, "unit": "GB/s" if kind == "memory" else "GFLOP/s",
            "verified": True, "spread": 0.01, **more}


def cpu_result(copy_gbps: float = MIX_GBPS["copy"], noisy: bool = False,
               created: str = "2026-12-02T04:00:00+00:00") -> dict:
    """A validated CPU ceilings result with the three mixes (``copy_gbps`` for the copy, which
    judged itself noisy when ``noisy``); ``dram`` is the fastest, the read."""
    noise = {"noisy": True, "noise": NOISE} if noisy else {}
    mixes = dict(MIX_GBPS, copy=copy_gbps)
    best = max(mixes, key=mixes.get)
    return results.validate({
        "format": "rooflinelib-result", "version": 1, "kind": "ceilings", "backend": "cpu", "scope": "cpu",
        "created": created, "device": {"name": "CPU: test CPU"},
        "ceilings": [_ceiling(f"dram-{mix}", "memory", gbps, **(noise if mix == "copy" else {}))
                     for mix, gbps in mixes.items()]
        + [_ceiling("dram", "memory", mixes[best]), _ceiling("fp32", "compute", 100.0)],
        "details": [{"name": "dram", "mix": best}]})


def store_cpu(result: dict):
    """``result`` saved as the stored CPU Lab 1 result ($ROOFLINE_RESULTS_DIR); its path."""
    path = default_path("ceilings", "cpu")
    path.parent.mkdir(parents=True, exist_ok=True)
    return results.save(result, path)
