"""The operator catalogue against hand-derived counts and every figure of the course's tables.

Each expected value is written as the derivation itself (FMA = 2 FLOPs, exp = 1, bytes that
cross HBM), so a failing test shows which term disagrees.
"""
import math
import subprocess
import sys

import numpy as np
import pytest

from rooflinelib.core import operators as ops
from rooflinelib.core.machines import A100, H100_SXM, MI300X

BYTES = {"fp64": 8, "fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}


def approx(value, rel=1e-12):
    return pytest.approx(value, rel=rel)


# --- hand-derived counts ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", list(BYTES))
@pytest.mark.parametrize("n", [1, 7, 2 ** 24])
def test_vector_add_counts(n, dtype):
    s = BYTES[dtype]
    op = ops.vector_add(n, dtype)
    assert op.n_flops == n  # one add per element
    assert op.n_bytes == (s + s + s) * n  # read A, read B, write C
    assert op.intensity == approx(n / (3 * s * n))
    assert op.dtype == dtype


@pytest.mark.parametrize("dtype", list(BYTES))
@pytest.mark.parametrize("n", [1, 1000, 2 ** 24])
def test_reduction_counts(n, dtype):
    s = BYTES[dtype]
    op = ops.reduction(n, dtype)
    assert op.n_flops == n
    assert op.n_bytes == n * s + 1 * s  # read A once, write one scalar
    assert op.intensity == approx(n / ((n + 1) * s))


@pytest.mark.parametrize("n", [1, 4096, 2 ** 24])
def test_softmax_counts(n):
    three_pass = ops.softmax(n, fused=False, dtype="fp32")
    fused = ops.softmax(n, fused=True, dtype="fp32")
    # max, subtract, exp, accumulate, divide: 5 FLOPs per element in both forms
    assert three_pass.n_flops == fused.n_flops == 5 * n
    # pass 1 reads; pass 2 reads and writes; pass 3 reads and writes
    assert three_pass.n_bytes == (4 + (4 + 4) + (4 + 4)) * n
    assert fused.n_bytes == (4 + 4) * n  # one read, one write
    assert "3-pass" in three_pass.name and "fused" in fused.name


@pytest.mark.parametrize("n", [1, 4096, 2 ** 24])
def test_streaming_online_softmax_reads_twice_and_writes_once(n):
    # The online normalizer without the row on chip: one read for max and sum, one read and
    # one write for the output.  12 bytes per fp32 element, 1.67x over the course's 3 passes.
    # Its FLOPs are not the 3-pass form's: the rescaling adds a subtract, an exp and a multiply
    # per element, and pass 2 recomputes the exp (10 FLOPs, I = 10/12).
    streaming = ops.softmax(n, fused=True, dtype="fp32", row_on_chip=False)
    three_pass = ops.softmax(n, fused=False, dtype="fp32")
    on_chip = ops.softmax(n, fused=True, dtype="fp32", row_on_chip=True)
    assert streaming.n_flops == 10 * n and three_pass.n_flops == on_chip.n_flops == 5 * n
    assert streaming.n_bytes == (4 + 4 + 4) * n
    assert streaming.intensity == approx(10 / 12)
    assert three_pass.n_bytes / streaming.n_bytes == approx(5 / 3)
    assert three_pass.n_bytes / on_chip.n_bytes == approx(2.5)
    assert streaming.name != on_chip.name
    # row_on_chip means nothing for the 3-pass form
    assert ops.softmax(n, fused=False, row_on_chip=False) == three_pass
    assert ops.softmax(n, fused=True, dtype="bf16", row_on_chip=False).n_bytes == 6 * n


def test_naive_and_tiled_gemm_say_where_their_bytes_are_counted():
    # review 10b T02-2: the naive GEMM's 8 bytes per FMA are what each thread loads, before a warp's
    # shared row of A is coalesced into one broadcast request: not what the SM requests
    assert ops.gemm_naive(64).level == "thread loads"
    assert ops.gemm_tiled(64, 16).level == "SM requests"
    assert ops.gemm(64).level == "HBM" and ops.vector_add(64).level == "HBM"


def test_exp_time_over_matrix_time_on_the_h200_datasheet():
    from rooflinelib.core.machines import A100, H100_SXM, H200, sfu_at_tensor_clock
    # Review 3a T02-1: the SFU row is derived at the 1.98 GHz boost, the 989.4 TFLOP/s tensor
    # figure is 132 x 4,096 x 1.83 GHz; at one clock an exp (1/16 clock per SM) against 512
    # FLOPs (4,096 per clock per SM) is exactly half. The old mixed-clock ratio printed 0.46.
    ratio = ops.exp_time_over_matrix_time(128, H200)
    assert ratio == approx(0.5)
    assert ops.exp_time_over_matrix_time(128, H100_SXM) == approx(0.5)
    assert ops.exp_time_over_matrix_time(128, A100) == approx(0.25)  # 2,048 FLOP/clock/SM, one clock
    assert sfu_at_tensor_clock(H200) == approx(16 * 989_400 / 4096)  # 3,865 G exp/s
    assert 1.829 < sfu_at_tensor_clock(H200) / (132 * 16) < 1.831  # the 1.83 GHz the figure implies
    assert ops.exp_time_over_matrix_time(256, H200) == approx(ratio / 2)


@pytest.mark.parametrize("dtype", list(BYTES))
@pytest.mark.parametrize("n", [1, 2, 93, 8192])
def test_gemm_perfect_reuse_counts(n, dtype):
    s = BYTES[dtype]
    op = ops.gemm(n, dtype)
    assert op.n_flops == 2 * n ** 3
    assert op.n_bytes == 3 * n * n * s
    assert op.intensity == approx(2 * n / (3 * s))


def test_gemm_rectangular_counts():
    m, n, k = 64, 4096, 512
    op = ops.gemm(n, "bf16", m=m, k=k)
    assert op.n_flops == 2 * m * n * k
    assert op.n_bytes == (m * k + k * n + m * n) * 2


@pytest.mark.parametrize("n", [1, 64, 8192])
def test_gemm_naive_counts(n):
    op = ops.gemm_naive(n, "fp32")
    assert op.n_flops == 2 * n ** 3
    # every output reads a row of A and a column of B (2n elements); C is written once
    assert op.n_bytes == (n * n * 2 * n + n * n) * 4
    assert op.intensity == approx(2 * n ** 3 / ((2 * n ** 3 + n * n) * 4))


@pytest.mark.parametrize("n, b", [(1, 1), (4096, 1), (4096, 16), (4096, 128), (4096, 4096), (100, 7)])
def test_gemm_tiled_counts(n, b):
    op = ops.gemm_tiled(n, b, "fp32")
    assert op.n_flops == 2 * n ** 3
    assert op.n_bytes == approx((2 * n ** 3 / b + n * n) * 4)
    assert op.intensity == approx(2 * n ** 3 / ((2 * n ** 3 / b + n * n) * 4))
    # the tile model's closed form
    assert op.intensity == approx((b / 4) / (1 + b / (2 * n)))


def test_gemm_tiled_one_by_one_tile_is_the_naive_kernel():
    assert ops.gemm_tiled(512, 1).n_bytes == ops.gemm_naive(512).n_bytes


@pytest.mark.parametrize("s, d", [(1, 128), (2, 128), (512, 64), (8192, 128)])
@pytest.mark.parametrize("dtype", ["bf16", "fp32", "fp8"])
def test_attention_prefill_counts(s, d, dtype):
    e = BYTES[dtype]
    unfused = ops.attention(s, d, fused=False, dtype=dtype)
    fused = ops.attention(s, d, fused=True, dtype=dtype)
    # two GEMMs (QK^T, PV) at 2d FLOPs per pair each, then 5 FLOPs of softmax per score
    assert unfused.n_flops == fused.n_flops == 4 * s * s * d + 5 * s * s
    # Q, K, V read and O written: 4sd elements; unfused adds the s x s score and probability
    # matrices, each written once and read once
    assert fused.n_bytes == 4 * s * d * e
    assert unfused.n_bytes == (4 * s * d + 4 * s * s) * e
    assert unfused.intensity == approx(s * (4 * d + 5) / (4 * e * (d + s)))
    assert fused.intensity == approx(s * (4 * d + 5) / (4 * e * d))


def test_attention_bf16_matches_the_courses_byte_formulas():
    s, d = 4096, 128
    assert ops.attention(s, d, fused=False).n_bytes == 8 * s * d + 8 * s * s
    assert ops.attention(s, d, fused=True).n_bytes == 8 * s * d


def test_decode_matvec_counts():
    rows, cols = 4096, 11008
    op = ops.decode_matvec(rows, cols, "bf16")
    assert op.n_flops == 2 * rows * cols  # one FMA per weight
    assert op.n_bytes == (rows * cols + cols + rows) * 2  # W once, x in, y out
    assert op.intensity == approx(2 * rows * cols / ((rows * cols + cols + rows) * 2))


def test_opcost_intensity_is_flops_over_bytes():
    op = ops.OpCost(name="x", n_flops=10, n_bytes=4)
    assert op.intensity == 2.5


def test_an_operators_cost_and_a_kernels_accounting_are_one_type():
    from rooflinelib.measure import accounting
    from rooflinelib.core.model import Work
    assert accounting.Work is Work and issubclass(ops.OpCost, Work)
    op = ops.vector_add(1000)
    assert op.gbps(1e-6) == op.n_bytes / 1e-6 / 1e9 and op.gflops(1e-6) == 1000 / 1e-6 / 1e9
    assert ops.OpCost(name="copy", n_flops=0, n_bytes=8).intensity == 0.0
    assert math.isinf(Work(1.0, 0.0).intensity)


# --- every figure of the course's intensity tables ---------------------------------------------

def test_vector_add_one_twelfth():
    op = ops.vector_add(2 ** 24, "fp32")
    assert op.intensity == approx(1 / 12)
    assert round(op.intensity, 4) == 0.0833


def test_reduction_quarter():
    assert ops.reduction(2 ** 24, "fp32").intensity == approx(0.25, rel=1e-6)


def test_softmax_three_pass_quarter_fused_0625_ratio_25():
    n = 2 ** 24
    three_pass, fused = ops.softmax(n, fused=False).intensity, ops.softmax(n, fused=True).intensity
    assert three_pass == 0.25
    assert fused == 0.625
    assert fused / three_pass == 2.5


def test_gemm_fp32_8192():
    op = ops.gemm(8192, "fp32")
    assert op.intensity == approx(8192 / 6)
    assert round(op.intensity, 1) == 1365.3


@pytest.mark.parametrize("n", [64, 1024, 8192, 65536])
def test_naive_gemm_stays_at_a_quarter_whatever_n(n):
    intensity = ops.gemm_naive(n, "fp32").intensity
    assert intensity < 0.25
    assert intensity == pytest.approx(0.25, rel=1 / n)


def test_tile_model_4096():
    assert round(ops.gemm_tiled(4096, 16, "fp32").intensity, 2) == 3.99
    assert round(ops.gemm_tiled(4096, 128, "fp32").intensity, 1) == 31.5


def test_unfused_attention_limit_and_s8192():
    assert ops.attention_intensity_limit(128, fused=False, dtype="bf16") == (4 * 128 + 5) / 8 == 64.625
    assert round(ops.attention_intensity_limit(128, fused=False), 1) == 64.6
    at_8192 = ops.attention(8192, 128, fused=False).intensity
    assert at_8192 == pytest.approx(64, rel=0.01)
    # "512, 8192 or 32768 tokens, it barely moves": rises towards the limit, never past it
    by_s = [ops.attention(s, 128, fused=False).intensity for s in (512, 8192, 32768)]
    assert by_s == sorted(by_s)
    assert all(50 < i < 64.625 for i in by_s)  # s=512 gives 51.7
    assert ops.attention_intensity_limit(128, fused=True) == math.inf


def test_fused_attention_grows_as_0505_s():
    for s in (512, 8192, 32768):
        assert round(ops.attention(s, 128, fused=True).intensity / s, 3) == 0.505
    assert ops.attention(8192, 128, fused=True).intensity == 4136


def test_fusion_crossover_on_mi300x_bf16():
    ridge = MI300X.ridge("bf16-tensor")
    assert round(ridge, 1) == 246.7
    answer = ops.attention_fusion_crossover(ridge, 128, "bf16")
    assert answer["fused_s"] == 489
    assert abs(answer["fused_s"] - 490) <= 1  # the course: "s ~ 490"
    assert ops.attention(488, 128, fused=True).intensity < ridge <= ops.attention(489, 128, fused=True).intensity
    assert answer["fused_estimate"] == approx(ridge * 4 * 2 * 128 / (4 * 128 + 5))
    # unfused never gets there: its limit is 64.6 against a ridge of 246.7
    assert answer["unfused_ever_compute_bound"] is False
    assert answer["unfused_s"] is None
    assert answer["unfused_limit"] == 64.625


def test_fusion_crossover_when_unfused_does_cross():
    ridge = 20.0  # below the unfused limit of 64.6
    answer = ops.attention_fusion_crossover(ridge, 128)
    s = answer["unfused_s"]
    assert answer["unfused_ever_compute_bound"] is True
    assert ops.attention(s - 1, 128, fused=False).intensity < ridge <= ops.attention(s, 128, fused=False).intensity
    assert answer["fused_s"] < s  # fusion always gets there first


def test_decode_attention_about_one():
    s, d = 8192, 128
    op = ops.attention(s, d, fused=True, queries=1)
    assert op.n_flops == s * (4 * d + 5)
    assert op.n_bytes == (2 * d + 2 * s * d) * 2  # q and o, plus the whole K and V cache
    assert op.intensity == pytest.approx(1, rel=0.02)
    assert "decode" in op.name


def test_batch1_decode_matvec_about_one_at_bf16():
    assert ops.decode_matvec(8192, 8192, "bf16").intensity == pytest.approx(1, rel=1e-3)


@pytest.mark.parametrize("ceiling, dtype, expected", [
    ("fp32", "fp32", 93),
    ("fp32-matrix", "fp32", 185),
    ("bf16-tensor", "bf16", 741),
    ("fp8-tensor", "fp8", 741),
])
def test_smallest_compute_bound_gemm_on_mi300x(ceiling, dtype, expected):
    ridge = MI300X.ridge(ceiling)
    n = ops.smallest_compute_bound_gemm_n(ridge, dtype)
    assert n == expected
    assert ops.gemm(n - 1, dtype).intensity < ridge <= ops.gemm(n, dtype).intensity


def test_fp8_and_bf16_need_the_same_gemm_n():
    # halving bytes and doubling P cancel exactly for GEMM
    assert (ops.smallest_compute_bound_gemm_n(MI300X.ridge("fp8-tensor"), "fp8")
            == ops.smallest_compute_bound_gemm_n(MI300X.ridge("bf16-tensor"), "bf16"))


@pytest.mark.parametrize("machine, exact, power_of_two", [(A100, 51, 64), (H100_SXM, 81, 128)])
def test_smallest_tile(machine, exact, power_of_two):
    ridge = machine.ridge("fp32")
    tile = ops.smallest_tile(ridge, 4096, "fp32")
    assert tile["exact"] == exact
    assert tile["power_of_two"] == power_of_two
    assert tile["estimate"] == approx(4 * ridge)  # b ~ 4 I*
    assert ops.gemm_tiled(4096, exact - 1).intensity < ridge <= ops.gemm_tiled(4096, exact).intensity


@pytest.mark.parametrize("n", [1, 5, 7, 4096])
def test_smallest_tile_when_only_the_whole_matrix_reaches(n):
    ridge = ops.gemm_tiled(n, n).intensity  # a ridge met exactly by one n x n tile
    assert ops.smallest_tile(ridge, n)["exact"] == n


def test_fusion_crossover_a_hair_below_the_unfused_limit_finishes():
    # the closed form is off by millions of tokens here; stepping from it used to hang
    code = ("import math; from rooflinelib.core import operators as ops; "
            "r = math.nextafter(64.625, 0); a = ops.attention_fusion_crossover(r, 128); "
            "u = a['unfused_s']; assert u is None or ops.attention(u, 128, False).intensity >= r; "
            "print(a['fused_s'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "128"


def test_smallest_tile_unreachable_gives_none():
    # a tiny matrix cannot reach a bf16 tensor ridge with any tile
    assert ops.smallest_tile(300.0, 64, "fp32") == {"exact": None, "power_of_two": None, "estimate": 1200.0}


def test_demo_kernels_are_the_courses_six_in_order():
    demo = ops.demo_kernels()
    names = [k.name for k in demo]
    assert names[0] == "vector add" and names[1] == "sum reduction" and names[2] == "fused softmax"
    assert "unfused attention" in names[3] and "GEMM fp32 N=8192" == names[4]
    assert "fused attention" in names[5] and "s=8192" in names[5]
    intensities = [k.intensity for k in demo]
    assert intensities[0] == approx(1 / 12)
    assert intensities[1] == pytest.approx(0.25, rel=1e-6)
    assert intensities[2] == 0.625
    assert intensities[3] == pytest.approx(64, rel=0.01)
    assert round(intensities[4], 1) == 1365.3
    assert intensities[5] == 4136


def test_operator_table_rows_come_from_the_functions():
    rows = ops.operator_table()
    assert len(rows) == 11
    for row in rows:
        assert set(row) == {"operator", "dtype", "n_flops", "n_bytes", "level", "intensity"}
        assert row["intensity"] == approx(row["n_flops"] / row["n_bytes"])
    by_name = {r["operator"]: r["intensity"] for r in rows}
    assert by_name["3-pass softmax"] == 0.25 and by_name["fused softmax"] == 0.625
    # the online normalizer's rescaling (subtract, exp, multiply) and its recomputed exp in pass 2
    assert by_name["online softmax, streaming"] == approx(10 / 12)
    assert {r["operator"]: r["level"] for r in rows}["GEMM naive"] == "thread loads"
    assert by_name["GEMM naive"] == pytest.approx(0.25, rel=1e-4)
    assert by_name["decode matvec"] == pytest.approx(1, rel=1e-3)


# --- edge cases ------------------------------------------------------------------------------

def test_tiny_n_one():
    assert ops.vector_add(1).intensity == approx(1 / 12)
    assert ops.reduction(1).intensity == approx(1 / (2 * 4))  # the scalar out is not negligible
    assert ops.softmax(1, fused=True).intensity == 0.625
    assert ops.gemm(1).intensity == approx(2 / (3 * 4))
    assert ops.gemm_naive(1).intensity == approx(2 / ((2 + 1) * 4))
    assert ops.gemm_tiled(1, 1).intensity == approx(2 / ((2 / 1 + 1) * 4))
    assert ops.decode_matvec(1, 1).intensity == approx(2 / (3 * 2))
    one = ops.attention(1, 1, fused=False)
    assert one.n_flops == 4 + 5 and one.n_bytes == (4 + 4) * 2
    assert ops.smallest_compute_bound_gemm_n(1e-9, "fp32") == 1


def test_s_much_smaller_than_d():
    s, d = 2, 128
    unfused, fused = ops.attention(s, d, fused=False), ops.attention(s, d, fused=True)
    # the score matrix is tiny next to Q, K, V: fusion saves almost nothing
    assert unfused.intensity / fused.intensity == approx(d / (d + s))
    # and both are about s/2, far below any ridge
    assert fused.intensity == approx(s * (4 * d + 5) / (8 * d))
    assert unfused.intensity < fused.intensity < 1.1


def test_fp8_counts():
    assert ops.vector_add(1024, "fp8").intensity == approx(1 / 3)
    assert ops.gemm(3000, "fp8").intensity == approx(2 * 3000 / 3)
    assert ops.attention_intensity_limit(128, fused=False, dtype="fp8") == (4 * 128 + 5) / 4
    assert ops.attention(1024, 128, fused=True, dtype="fp8").n_bytes == 4 * 1024 * 128 * 1
    # memory-bound operators gain a clean 2x from halving the bytes (fp8 against bf16)
    assert ops.softmax(1000, dtype="fp8").intensity == 2 * ops.softmax(1000, dtype="bf16").intensity


def test_causal_roughly_halves_the_flops():
    s, d = 8192, 128
    full = ops.attention(s, d, fused=True)
    causal = ops.attention(s, d, fused=True, causal=True)
    # keys 0..i for query i: s(s+1)/2 pairs instead of s^2
    assert causal.n_flops == (s * (s + 1) // 2) * (4 * d + 5)
    assert causal.n_flops / full.n_flops == approx((s + 1) / (2 * s))
    assert causal.n_flops / full.n_flops == pytest.approx(0.5, rel=1e-3)
    assert causal.n_bytes == full.n_bytes  # masking deletes work, not traffic
    unfused = ops.attention(s, d, fused=False, causal=True)
    assert unfused.n_bytes == ops.attention(s, d, fused=False).n_bytes  # rectangle materialized
    assert "causal" in causal.name


def test_causal_chunk_of_queries_counts_the_trapezoid():
    s, q, d = 100, 10, 64
    op = ops.attention(s, d, fused=True, causal=True, queries=q)
    pairs = sum(s - q + i + 1 for i in range(q))  # the last q positions
    assert op.n_flops == pairs * (4 * d + 5)


def test_causal_decode_is_plain_decode():
    assert (ops.attention(4096, 128, fused=True, causal=True, queries=1).n_flops
            == ops.attention(4096, 128, fused=True, queries=1).n_flops)


@pytest.mark.parametrize("g", [2, 4, 8])
def test_gqa_raises_decode_intensity_about_g_fold(g):
    s, d = 8192, 128
    mha = ops.attention(s, d, fused=True, queries=1)
    gqa = ops.attention(s, d, fused=True, queries=1, heads_per_kv=g)
    assert gqa.n_flops == g * mha.n_flops
    assert gqa.n_bytes == (2 * g * d + 2 * s * d) * 2  # K, V read once for all g heads
    assert gqa.intensity / mha.intensity == approx(g * (1 + s) / (g + s))
    assert gqa.intensity / mha.intensity == pytest.approx(g, rel=0.01)
    assert f"GQA {g}:1" in gqa.name


def test_numpy_and_integral_float_sizes_are_accepted():
    assert ops.gemm(np.int64(8192)).n_flops == 2 * 8192 ** 3
    assert ops.gemm(8192.0).n_flops == 2 * 8192 ** 3
    assert ops.vector_add(np.arange(1, 3)[1]).n_flops == 2


# --- invalid inputs: ValueError naming the field ---------------------------------------------

BAD_COUNTS = [0, -1, -8192, 2.5, 1e-3, True, False, float("nan"), float("inf"), "8", None, 1 + 0j]

COUNT_FIELDS = [
    ("n", lambda v: ops.vector_add(v)),
    ("n", lambda v: ops.reduction(v)),
    ("n", lambda v: ops.softmax(v)),
    ("n", lambda v: ops.gemm(v)),
    ("m", lambda v: ops.gemm(16, m=v)),
    ("k", lambda v: ops.gemm(16, k=v)),
    ("n", lambda v: ops.gemm_naive(v)),
    ("n", lambda v: ops.gemm_tiled(v, 1)),
    ("tile", lambda v: ops.gemm_tiled(4096, v)),
    ("s", lambda v: ops.attention(v, 128, fused=True)),
    ("d", lambda v: ops.attention(128, v, fused=False)),
    ("queries", lambda v: ops.attention(128, 128, fused=True, queries=v)),
    ("heads_per_kv", lambda v: ops.attention(128, 128, fused=True, heads_per_kv=v)),
    ("rows", lambda v: ops.decode_matvec(v, 16)),
    ("cols", lambda v: ops.decode_matvec(16, v)),
    ("n", lambda v: ops.smallest_tile(10.0, v)),
    ("d", lambda v: ops.attention_intensity_limit(v, fused=False)),
    ("d", lambda v: ops.attention_fusion_crossover(100.0, v)),
]


OPTIONAL_FIELDS = {"m", "k", "queries"}  # None there means "same as n" or "same as s"
BAD_SIZE_CASES = [
    pytest.param(field, call, bad, id=f"{field}{i}-{bad!r}")
    for i, (field, call) in enumerate(COUNT_FIELDS) for bad in BAD_COUNTS
    if not (bad is None and field in OPTIONAL_FIELDS)
]


@pytest.mark.parametrize("field, call, bad", BAD_SIZE_CASES)
def test_bad_sizes_raise_value_error_naming_the_field(field, call, bad):
    with pytest.raises(ValueError) as info:
        call(bad)
    assert str(info.value).startswith(f"{field}:")
    assert "\n" not in str(info.value)


DTYPE_CALLS = [
    lambda t: ops.vector_add(8, t), lambda t: ops.reduction(8, t), lambda t: ops.softmax(8, dtype=t),
    lambda t: ops.gemm(8, t), lambda t: ops.gemm_naive(8, t), lambda t: ops.gemm_tiled(8, 2, t),
    lambda t: ops.attention(8, 8, fused=True, dtype=t), lambda t: ops.decode_matvec(8, 8, t),
    lambda t: ops.smallest_compute_bound_gemm_n(10.0, t), lambda t: ops.smallest_tile(10.0, 64, t),
    lambda t: ops.attention_fusion_crossover(10.0, 8, t),
]


@pytest.mark.parametrize("dtype", ["fp4", "FP32", "float32", "", "int8"])
@pytest.mark.parametrize("call", DTYPE_CALLS)
def test_unknown_dtype_raises_naming_dtype(call, dtype):
    with pytest.raises(ValueError, match=r"^dtype: unknown"):
        call(dtype)


def test_tile_larger_than_n():
    with pytest.raises(ValueError, match=r"^tile: must not exceed n"):
        ops.gemm_tiled(64, 128)


def test_queries_larger_than_s():
    with pytest.raises(ValueError, match=r"^queries: must not exceed s"):
        ops.attention(16, 64, fused=True, queries=17)


RIDGE_CALLS = [
    lambda r: ops.smallest_compute_bound_gemm_n(r, "fp32"),
    lambda r: ops.smallest_tile(r, 4096),
    lambda r: ops.attention_fusion_crossover(r, 128),
]


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), True, "20", None], ids=repr)
@pytest.mark.parametrize("call", RIDGE_CALLS)
def test_bad_ridge_raises_naming_ridge(call, bad):
    with pytest.raises(ValueError, match=r"^ridge:"):
        call(bad)


def test_softmax_docstring_credits_the_online_normalizer_not_the_safe_softmax_to_its_paper():
    # review 15: Milakov and Gimelshein introduced the online normalizer; the safe (3-pass)
    # softmax is older, their paper's baseline
    doc = " ".join(ops.softmax.__doc__.split())
    assert "Milakov and Gimelshein's safe softmax" not in doc
    assert "The usual safe softmax, older than the online normalizer" in doc
