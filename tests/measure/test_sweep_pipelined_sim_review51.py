"""``sweep_pipelined``, which gives Lab 3's points from K = 40 on, run in the CUDA simulator against
its gold value: every element after exactly K FMAs, each stored where its own input was read.

Lab 1 and Lab 3 run their FMAs as identities (a = 1, b = 0), so a checked output proves the data
intact, not that each element got its K FMAs: a thread that skipped the FMAs of its prefetched
vector, or stored one vector where another belongs by the same value, would pass.  Here a = 0.99
and b = 0.01, so one FMA more or less, or a vector stored in another's place, changes the value.
The simulator must be on before numba is imported, so the kernels run in a child process
(``support.simulated``), as in test_measure_sim.py.
"""
import pytest

from support import simulated

pytest.importorskip("numba_cuda")

KS = (40, 64, 130)  # straight-line FMAs; exactly one unrolled trip; two trips and a remainder

CHILD = r"""
import json, sys
import numpy as np
from rooflinelib.measure import expected
from rooflinelib.measure import kernels_numba as kn

a, b = np.float32(0.99), np.float32(0.01)
GRID, BLOCK, N_VEC = 2, 32, 140  # each block walks a chunk of 70 vectors: a ragged last step
x = expected.fill_values(np.arange(4 * N_VEC)).astype(np.float32)
out = {}
for k in map(int, sys.argv[1:]):
    gold = x.copy()
    for _ in range(k):  # the simulator's fma is a * b + c in float32, as here
        gold = gold * a + b
    y = np.full_like(x, np.nan)
    kn.sweep_pipelined_kernel(k).compile()[GRID, BLOCK](x, y, a, b)
    done = 4 * BLOCK * (N_VEC // BLOCK)  # sweep: one vector a thread, whole blocks only
    z = np.full_like(x, np.nan)
    kn.sweep_kernel(k).compile()[N_VEC // BLOCK, BLOCK](x[:done], z[:done], a, b)
    out[k] = {"pipelined_exact": bool(np.array_equal(y.view(np.uint32), gold.view(np.uint32))),
              "sweep_exact": bool(np.array_equal(z[:done].view(np.uint32), gold[:done].view(np.uint32))),
              "changed": bool(not np.array_equal(gold, x)),
              "wrong_elements": int(np.count_nonzero(y != gold))}
print("RESULT " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def results():
    return simulated.result(CHILD, args=KS)


@pytest.mark.parametrize("k", KS)
def test_sweep_pipelined_gives_every_element_its_k_fmas_in_place(results, k):
    got = results[str(k)]
    assert got["changed"], got  # the gold value is not the input: the check can fail
    assert got["pipelined_exact"] and got["wrong_elements"] == 0, got


@pytest.mark.parametrize("k", KS)
def test_sweep_agrees_with_the_same_gold_value(results, k):
    assert results[str(k)]["sweep_exact"], results[str(k)]


def test_the_appendix_says_where_sweep_pipelined_is_checked():
    from pathlib import Path
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "appendix-04-sweep.md").read_text().split())
    assert "`sweep_pipelined`'s FMAs are checked in its PTX only" not in page
    assert ("`sweep_pipelined`'s are not counted on hardware: the course's tests run it in the CUDA simulator "
            "against its gold value (K = 40, 64 and 130, with a = 0.99 and b = 0.01, so that every FMA and every "
            "element's place shows in the output), and its PTX holds them.") in page
