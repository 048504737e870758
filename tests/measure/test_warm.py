"""rooflinelib.measure.warm: the CPU kernels compiled once into Numba's cache, so that a later
process finds every one of them there (the FMA peak kernels once missed it in every process)."""
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("numba")

from rooflinelib.measure import cpu, warm  # noqa: E402

# Every kernel the warm-up compiles, called again as the labs call them, and the cache misses
# of each (a miss is a compile)
MISSES = textwrap.dedent("""
    from rooflinelib.measure import cpu, warm
    warm.warm(progress=None)
    kernels = [cpu._fill(), cpu._copy(), cpu._reduction(), cpu.workingset_read_kernel()]
    kernels += [cpu._fma_peak(d, cpu.fma_lanes(d), cpu.has_avx512()) for d in ("fp32", "fp64")]
    kernels += [cpu._sweep(k) for k in cpu.CPU_KS]
    print(sum(len(k.stats.cache_misses) for k in kernels), sum(len(k.stats.cache_hits) for k in kernels))
""")


@pytest.mark.slow
def test_after_the_warm_up_a_new_process_compiles_no_cpu_kernel():
    # Numba's own cache, which course.py filled when it installed: a key that changes from
    # process to process (as the FMA kernels' did) misses it in the second process all the same
    first = subprocess.run([sys.executable, "-m", "rooflinelib.measure.warm"], capture_output=True, text=True,
                           timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr[-2000:]
    assert first.stdout.splitlines()[0] == "compiling the CPU kernels into Numba's cache (once)"
    assert all(f"  {name}: " in first.stdout for name in warm.STEPS)
    again = subprocess.run([sys.executable, "-c", MISSES], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    misses, hits = map(int, again.stdout.split())
    assert misses == 0 and hits >= 4 + 2 + len(cpu.CPU_KS)


def test_a_step_that_fails_is_reported_and_the_others_still_run(monkeypatch, capsys):
    ran = []

    def broken():
        ran.append("broken")
        raise RuntimeError("no compiler\nhere")

    monkeypatch.setattr(warm, "STEPS", {"one": broken, "two": lambda: ran.append("two")})
    assert warm.main([]) == 1
    out = capsys.readouterr().out
    assert ran == ["broken", "two"]
    assert "  one: not compiled (RuntimeError: no compiler here)" in out
    assert "  two: " in out and "1 step(s) failed and compile where first used" in out
    monkeypatch.setattr(warm, "STEPS", {"two": lambda: None})
    assert warm.main([]) == 0
