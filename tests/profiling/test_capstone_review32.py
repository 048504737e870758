"""Review 31f's items on the capstone's key (rooflinelib.profiling.capstone, solutions/06):
NumPy calls refused by a source check on every machine, the 3-pass byte slip named, the quick
checks run before the slow stated launch, and the hints' wording."""
import linecache
from pathlib import Path

import nbformat
import numpy as np
import pytest

from support import simulated  # noqa: F401  (the simulator set up as test_capstone sets it up)

pytest.importorskip("numba.cuda")

from rooflinelib.profiling import capstone  # noqa: E402

SOLUTION = Path(__file__).resolve().parents[2] / "solutions" / "06_place_your_kernel_capstone.ipynb"


def _solution(replace: tuple = ()) -> dict:
    """The model solution's kernel cells (block_reduce, the four bodies, the launches), run with their
    source readable, as a notebook cell's is; ``replace`` is (old, new) pairs applied first."""
    nb = nbformat.read(str(SOLUTION), as_version=4)
    cells = [c.source for c in nb.cells if c.cell_type == "code"
             and ("def block_reduce" in c.source or "def row_max_body" in c.source or "def fused_passes" in c.source)]
    source = "\n\n".join(cells)
    for old, new in replace:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    name = f"<capstone solution {abs(hash(source))}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace = {}
    exec(compile(source, name, "exec"), namespace)
    return namespace


def _body(src: str, **globs):
    name = f"<body {abs(hash(src))}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    namespace = dict(globs)
    exec(compile(src, name, "exec"), namespace)
    return next(v for k, v in namespace.items() if k.endswith("_body"))


def test_the_model_solution_has_no_refused_call():
    k = _solution()
    for name in ("row_max_body", "exp_sum_body", "normalize_body", "fused_body", "block_reduce"):
        fn = k[name]
        assert capstone._module_call(getattr(fn, "py_func", fn)) == "", name


def test_numpy_calls_are_refused_by_the_source_check_math_and_cuda_pass():
    import math
    from numba import cuda, float32
    bad = _body("def f_body(x, y):\n    r = cuda.blockIdx.x\n    y[r, 0] = np.exp(x[r, 0])\n", np=np, cuda=cuda)
    said = capstone._module_call(bad)
    assert "the line `y[r, 0] = np.exp(x[r, 0])` calls np.exp" in said and "call math.exp instead" in said, said
    assert "\n" not in said
    aliased = _body("def f_body(x, y):\n    y[0, 0] = numpy.sum(x[0])\n", numpy=np)
    assert "calls numpy.sum" in capstone._module_call(aliased)
    assert "use a math function" in capstone._module_call(aliased)
    fsum = _body("def f_body(x, y):\n    y[0, 0] = math.fsum(x[0])\n", math=math)
    assert "calls math.fsum" in capstone._module_call(fsum)
    fine = _body("def f_body(x, y):\n    r, t = cuda.blockIdx.x, cuda.threadIdx.x\n"
                 "    y[r, t] = math.exp(x[r, t]) + np.float32(1) + float32(-math.inf) * 0\n"
                 "    cuda.syncthreads()\n", np=np, math=math, cuda=cuda, float32=float32)
    assert capstone._module_call(fine) == ""


def test_np_exp_is_refused_where_the_compiler_cannot_run(monkeypatch):
    # review 31f, 1: with no NVVM (the simulator on) fused_body using np.exp passed
    monkeypatch.setattr(capstone, "_compiler_available", lambda: False)
    good = _solution()
    wrong = _solution([("row[c] = math.exp(row[c] - m)", "row[c] = np.exp(row[c] - m)")])
    wrong["np"] = np
    got = capstone.check_kernels(good["three_pass_passes"], wrong["fused_passes"])
    assert got.checks[0].status == "pass", got
    assert got.checks[1].status == "fail", got
    message = got.checks[1].message
    assert "np.exp" in message and "math.exp" in message and "the line `" in message, message
    assert "np.exp" in capstone.NOT_COMPILED


@pytest.fixture(scope="module")
def counts():
    k = _solution()
    out = {}
    for rows, cols in capstone.SIM_SIZES:
        b = capstone.softmax_buffers(rows, cols)
        out[(rows, cols)] = capstone.count_passes(k["three_pass_passes"](b), rows, capstone.SIM_THREADS), \
            capstone.count_passes(k["fused_passes"](b), rows, capstone.SIM_THREADS)
    return out


def test_the_3pass_byte_slips_16n_and_24n_are_named(counts):
    # review 31f, 2: 16n got only "too low", 24n only "too high"
    three = {s: c[0] for s, c in counts.items()}
    fused = {s: c[1] for s, c in counts.items()}
    passes = "pass 1 reads x, pass 2 reads x and writes e, pass 3 reads e and writes y"
    assert capstone.check_byte_formula(lambda rows, cols: 20 * rows * cols, three, "q").passed
    for per_element in (16, 24):
        got = capstone.check_byte_formula(lambda rows, cols: per_element * rows * cols, three, "q")
        assert got.status == "fail" and f"{per_element} bytes per element" in got.message, got
        assert passes in got.message, got
    # the fused version's count has no such hint: 12n is a fused slip of its own
    got = capstone.check_byte_formula(lambda rows, cols: 12 * rows * cols, fused, "q")
    assert got.status == "fail" and passes not in got.message, got


def test_a_stride_1_slip_is_refused_before_the_slow_stated_launch_and_the_page_gives_the_time(monkeypatch):
    # review 31f, 3: the stated launch (4,096 columns, 256 threads) ran first and took 40 s to minutes for a
    # stride of 1; the page said "a few seconds" where a right kernel takes 10-20 s
    def not_reached(*args, **kwargs):
        raise AssertionError("the stated launch ran before the re-read check")

    monkeypatch.setattr(capstone, "_at_the_limits", not_reached)
    good = _solution()
    wrong = _solution([("    for c in range(t, e.shape[1], cuda.blockDim.x):", "    for c in range(t, e.shape[1]):")])
    got = capstone.check_kernels(wrong["three_pass_passes"], good["fused_passes"])
    assert got.checks[0].status == "fail" and "pass 3 (normalize_body) issues 30.1 loads of e per element" in got.checks[0].message, got
    for folder in ("solutions", "exercises"):
        nb = nbformat.read(str(SOLUTION.parents[1] / folder / SOLUTION.name), as_version=4)
        check = next(c.source for c in nb.cells if c.cell_type == "markdown"
                     and c.source.startswith("The check runs both versions"))
        assert "(10–20 s)" in check and "a few seconds" not in check


def test_a_nan_error_is_said_as_nan_or_inf_in_the_output():
    # review 31f, 4: "the largest relative error is nan"
    assert capstone._largest_error(float("nan")) == "the output holds NaN or inf"
    assert capstone._largest_error(float("inf")) == "the output holds NaN or inf"
    assert capstone._largest_error(0.5) == "the largest relative error is 0.5"


def test_the_speedup_slips_name_their_cause_not_the_key():
    # review 31f, 5: "twice the key's" / "half the key's"
    for wrong, cause in ((5.0, "a fused count of 4 bytes per element"), (1.25, "read x three times")):
        message = capstone.check_prediction(wrong, 8, 256).message
        assert cause in message and "the key" not in message, message
    source = Path(capstone.__file__).read_text()
    assert "twice the key" not in source and "half the key" not in source


def test_the_model_answers_third_point_is_split_into_sentences():
    # review 31f, clarity: one long sentence with three clauses and a conditional
    profiles, _ = capstone.recorded_pair()
    pair = capstone.recorded_softmax(profiles)
    said = capstone._shortfall_sentence(pair["3-pass"], pair["fused"])
    # review 35f: the split as a sum, then the caveat as its own sentence
    assert "about 12 us launches and gaps (within the two runs' noise) + 60.6 us passes below the fused kernel's " \
           "rate, since the three kernels took 413 us" in said, said
    assert said.endswith(". This assumes the kernels ran about as long in both runs: Nsight Compute flushed the L2 "
                         "before each kernel, the timed run did not."), said
