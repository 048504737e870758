"""Properties of the model and the catalogue that must hold for every input, checked with hypothesis."""
import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rooflinelib.core import operators as ops
from rooflinelib.core.model import (RIDGE_TOLERANCE, Roofline, attainable_gflops, classify, ridge,
                                    side_of_ridge, time_bounds)

peaks_gflops = st.floats(min_value=1e-3, max_value=1e8, allow_nan=False, allow_infinity=False)
peaks_gbps = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)
intensities = st.floats(min_value=0.0, max_value=1e8, allow_nan=False, allow_infinity=False)
amounts = st.floats(min_value=0.0, max_value=1e18, allow_nan=False, allow_infinity=False)
tolerances = st.floats(min_value=0.0, max_value=0.9, allow_nan=False)
dtypes = st.sampled_from(sorted(ops.DTYPE_BYTES))

SIDE_ORDER = {"memory": 0, "ridge": 1, "compute": 2}


# --- the attainable rate ---------------------------------------------------------------------

@given(intensities, peaks_gflops, peaks_gbps)
def test_attainable_never_exceeds_either_ceiling(intensity, p, b):
    rate = attainable_gflops(intensity, p, b)
    assert 0 <= rate <= p
    assert rate <= intensity * b
    assert rate == p or rate == intensity * b  # it is one of the two roofs, not in between


@given(intensities, intensities, peaks_gflops, peaks_gbps)
def test_attainable_never_decreases_with_intensity(i1, i2, p, b):
    low, high = sorted((i1, i2))
    assert attainable_gflops(low, p, b) <= attainable_gflops(high, p, b)


@given(peaks_gflops, peaks_gbps, st.floats(min_value=1e-9, max_value=1e-2))
def test_attainable_is_continuous_at_the_ridge(p, b, eps):
    r = ridge(p, b)
    at = attainable_gflops(r, p, b)
    assert at == pytest.approx(p, rel=1e-12)
    # a relative step of eps either side moves the rate by at most eps, relatively
    assert attainable_gflops(r * (1 - eps), p, b) == pytest.approx(at, rel=2 * eps)
    assert attainable_gflops(r * (1 + eps), p, b) == pytest.approx(at, rel=2 * eps)


@given(peaks_gflops, peaks_gbps, st.floats(min_value=1e-6, max_value=0.99))
def test_memory_roof_has_slope_b_below_the_ridge(p, b, fraction):
    # below the ridge, doubling I doubles the attainable rate
    i = ridge(p, b) * fraction / 2
    assert attainable_gflops(2 * i, p, b) == pytest.approx(2 * attainable_gflops(i, p, b), rel=1e-12)


# --- the two time bounds ---------------------------------------------------------------------

@given(amounts, amounts, peaks_gflops, peaks_gbps)
def test_time_bounds_are_ordered(n_flops, n_bytes, p, b):
    tb = time_bounds(n_flops, n_bytes, p, b)
    assert tb.overlapped_s <= tb.serial_s <= 2 * tb.overlapped_s
    assert tb.overlapped_s == max(tb.compute_s, tb.memory_s)
    assert tb.compute_s == pytest.approx(n_flops / (p * 1e9), rel=1e-12)
    assert tb.memory_s == pytest.approx(n_bytes / (b * 1e9), rel=1e-12)
    assert tb.serial_s == pytest.approx(tb.compute_s + tb.memory_s, rel=1e-12)


@given(st.floats(min_value=1.0, max_value=1e18), st.floats(min_value=1.0, max_value=1e18),
       peaks_gflops, peaks_gbps)
def test_overlapped_bound_as_a_rate_is_the_roofline(n_flops, n_bytes, p, b):
    # F / max(F/P, M/B) = min(P, I B): the roofline is the overlapped bound read as a rate
    tb = time_bounds(n_flops, n_bytes, p, b)
    rate_gflops = n_flops / tb.overlapped_s / 1e9
    assert rate_gflops == pytest.approx(attainable_gflops(n_flops / n_bytes, p, b), rel=1e-9)
    assert tb.limiter == ("compute" if tb.compute_s >= tb.memory_s else "memory")


# --- classification at the ridge -------------------------------------------------------------

@given(peaks_gflops, peaks_gbps, tolerances)
def test_ridge_band_contains_the_ridge(p, b, tol):
    r = ridge(p, b)
    assert classify(r, p, b, ridge_tolerance=tol).side == "ridge"
    assert Roofline(p, b, ridge_tolerance=tol).side(r) == "ridge"


@given(st.lists(intensities, min_size=2, max_size=20), peaks_gflops, peaks_gbps, tolerances)
def test_sides_go_memory_ridge_compute_as_intensity_grows(values, p, b, tol):
    sides = [classify(i, p, b, ridge_tolerance=tol).side for i in sorted(values)]
    ranks = [SIDE_ORDER[s] for s in sides]
    assert ranks == sorted(ranks)


@given(peaks_gflops, peaks_gbps, tolerances)
def test_sides_either_side_of_the_band(p, b, tol):
    r = ridge(p, b)
    below, above = r / (1 + tol) * (1 - 1e-9), r * (1 + tol) * (1 + 1e-9)
    assume(below > 0)
    assert side_of_ridge(below, r, tol) == "memory"
    assert side_of_ridge(above, r, tol) == "compute"


@given(intensities, peaks_gflops, peaks_gbps, st.floats(min_value=0.0, max_value=0.5))
def test_wider_band_never_moves_a_point_off_the_ridge(intensity, p, b, extra):
    # whatever is 'ridge' at the default tolerance stays 'ridge' with a wider band
    r = ridge(p, b)
    if side_of_ridge(intensity, r, RIDGE_TOLERANCE) == "ridge":
        assert side_of_ridge(intensity, r, min(RIDGE_TOLERANCE + extra, 0.99)) == "ridge"


@given(peaks_gflops, peaks_gbps, st.floats(min_value=1e-9, max_value=1e-3))
def test_classification_roof_is_continuous_across_the_band_edges(p, b, eps):
    r = ridge(p, b)
    for edge in (r / (1 + RIDGE_TOLERANCE), r, r * (1 + RIDGE_TOLERANCE)):
        left = classify(edge * (1 - eps), p, b).roof_gflops
        right = classify(edge * (1 + eps), p, b).roof_gflops
        assert right >= left
        assert right - left <= 3 * eps * right


@given(st.floats(min_value=1e-3, max_value=1e4), peaks_gflops, peaks_gbps,
       st.lists(st.floats(min_value=0.0, max_value=3.0), min_size=2, max_size=10))
def test_status_is_monotone_in_the_achieved_rate(intensity, p, b, fractions):
    order = {"far-below": 0, "below-roof": 1, "near-roof": 2, "above-roof": 3}
    roof = attainable_gflops(intensity, p, b)
    assume(roof > 0)
    statuses = [classify(intensity, p, b, achieved_gflops=f * roof).status for f in sorted(fractions)]
    ranks = [order[s] for s in statuses]
    assert ranks == sorted(ranks)


@given(intensities, peaks_gflops, peaks_gbps, st.floats(min_value=0.0, max_value=1e9))
def test_verdict_fields_are_consistent(intensity, p, b, achieved):
    assume(attainable_gflops(intensity, p, b) > 0)
    v = classify(intensity, p, b, achieved_gflops=achieved)
    assert v.roof_gflops == attainable_gflops(intensity, p, b)
    assert v.fraction_of_roof == pytest.approx(achieved / v.roof_gflops)
    assert v.side in SIDE_ORDER and v.advice


# --- the operator catalogue ------------------------------------------------------------------

sizes = st.integers(min_value=1, max_value=2 ** 20)


def _finite_positive(op):
    assert op.n_flops > 0 and op.n_bytes > 0
    assert math.isfinite(op.intensity) and op.intensity > 0


@given(sizes, dtypes, st.booleans())
def test_elementwise_intensities_positive_and_finite(n, dtype, fused):
    for op in (ops.vector_add(n, dtype), ops.reduction(n, dtype), ops.softmax(n, fused, dtype)):
        _finite_positive(op)


@given(st.integers(min_value=1, max_value=2 ** 16), st.data(), dtypes)
def test_gemm_intensities_positive_finite_and_ordered(n, data, dtype):
    tile = data.draw(st.integers(min_value=1, max_value=n), label="tile")
    perfect, naive, tiled = ops.gemm(n, dtype), ops.gemm_naive(n, dtype), ops.gemm_tiled(n, tile, dtype)
    for op in (perfect, naive, tiled):
        _finite_positive(op)
    # reuse only ever helps: naive <= tiled <= perfect (equal at b = 1 and b = n)
    assert naive.intensity <= tiled.intensity * (1 + 1e-12)
    assert tiled.intensity <= perfect.intensity * (1 + 1e-12)


@given(st.integers(min_value=1, max_value=2 ** 16), st.integers(min_value=1, max_value=2 ** 16))
def test_bigger_tiles_never_lower_intensity(n, b):
    assume(b < n)
    assert ops.gemm_tiled(n, b).intensity <= ops.gemm_tiled(n, b + 1).intensity


@given(st.integers(min_value=1, max_value=2 ** 17), st.integers(min_value=1, max_value=512), st.data(),
       dtypes, st.booleans(), st.integers(min_value=1, max_value=16))
def test_attention_intensities_positive_finite_and_ordered(s, d, data, dtype, causal, g):
    q = data.draw(st.integers(min_value=1, max_value=s), label="queries")
    fused = ops.attention(s, d, True, dtype, causal, q, g)
    unfused = ops.attention(s, d, False, dtype, causal, q, g)
    _finite_positive(fused)
    _finite_positive(unfused)
    assert unfused.n_flops == fused.n_flops
    assert unfused.intensity < fused.intensity  # fusion only deletes bytes
    # the score traffic grows with the FLOPs, g included: the limit holds for every variant
    assert unfused.intensity < ops.attention_intensity_limit(d, fused=False, dtype=dtype)
    full = ops.attention(s, d, True, dtype, False, q, g)
    assert fused.n_flops <= full.n_flops  # masking never adds work
    if g > 1:
        assert fused.intensity > ops.attention(s, d, True, dtype, causal, q, 1).intensity


@given(sizes, sizes, dtypes)
def test_decode_matvec_intensity_positive_finite(rows, cols, dtype):
    op = ops.decode_matvec(rows, cols, dtype)
    _finite_positive(op)
    assert op.intensity < 2 / ops.DTYPE_BYTES[dtype]  # one FMA per weight read, at most


@given(st.floats(min_value=1e-3, max_value=1e4), dtypes)
def test_smallest_compute_bound_gemm_n_is_smallest(r, dtype):
    n = ops.smallest_compute_bound_gemm_n(r, dtype)
    assert ops.gemm(n, dtype).intensity >= r
    assert n == 1 or ops.gemm(n - 1, dtype).intensity < r


@given(st.floats(min_value=1e-2, max_value=2e3), st.integers(min_value=1, max_value=2 ** 15), dtypes)
def test_smallest_tile_is_smallest(r, n, dtype):
    answer = ops.smallest_tile(r, n, dtype)
    exact = answer["exact"]
    if exact is None:
        assert ops.gemm_tiled(n, n, dtype).intensity < r  # not even one tile of n gets there
        assert answer["power_of_two"] is None
    else:
        assert 1 <= exact <= n
        assert ops.gemm_tiled(n, exact, dtype).intensity >= r
        assert exact == 1 or ops.gemm_tiled(n, exact - 1, dtype).intensity < r
        p2 = answer["power_of_two"]
        if p2 is not None:
            assert p2 >= exact and p2 & (p2 - 1) == 0 and p2 <= n


@given(st.floats(min_value=1e-2, max_value=2e3), st.integers(min_value=1, max_value=512),
       st.sampled_from(["bf16", "fp16", "fp32", "fp8"]))
def test_fusion_crossover_is_the_first_compute_bound_s(r, d, dtype):
    answer = ops.attention_fusion_crossover(r, d, dtype)
    s = answer["fused_s"]
    assert ops.attention(s, d, True, dtype).intensity >= r
    assert s == 1 or ops.attention(s - 1, d, True, dtype).intensity < r
    assert answer["unfused_ever_compute_bound"] == (answer["unfused_s"] is not None)
    if answer["unfused_limit"] <= r:
        assert answer["unfused_s"] is None
    if answer["unfused_s"] is not None:
        u = answer["unfused_s"]
        assert ops.attention(u, d, False, dtype).intensity >= r
        assert u == 1 or ops.attention(u - 1, d, False, dtype).intensity < r


@given(st.integers(min_value=1, max_value=512), st.sampled_from(["bf16", "fp32", "fp8"]),
       st.floats(min_value=1e-16, max_value=1e-6))
def test_fusion_crossover_near_the_unfused_limit_returns(d, dtype, gap):
    # a ridge a hair below the unfused limit needs an astronomically long sequence; the search
    # must answer (or say "never") instead of stepping towards it one token at a time
    limit = ops.attention_intensity_limit(d, fused=False, dtype=dtype)
    answer = ops.attention_fusion_crossover(limit * (1 - gap), d, dtype)
    u = answer["unfused_s"]
    if u is not None:
        assert ops.attention(u, d, False, dtype).intensity >= limit * (1 - gap)
