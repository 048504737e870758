"""Coalescing and bank conflicts, counted in the CUDA simulator (count_accesses): the course's
GEMMs map threadIdx.x to the column, so a warp's global loads touch the fewest sectors and its
shared-memory tiles are read without bank conflicts; the row-mapped variants (a deliberate slip:
each warp down a column of C) are caught by the same counts."""
import numpy as np
import pytest

pytest.importorskip("numba.cuda")
from numba import cuda, float32  # noqa: E402  (module level: the simulator swaps this cuda)

from rooflinelib.profiling import CountError, count_accesses  # noqa: E402
from rooflinelib.profiling import gemm_targets as g  # noqa: E402


@cuda.jit
def copy_kernel(src, dst):
    i = cuda.grid(1)
    if i < src.size:
        dst[i] = src[i]


@cuda.jit
def strided_kernel(src, dst):
    i = cuda.grid(1)
    dst[i] = src[i * 32]  # one float per 128-byte line: 32 sectors for 128 useful bytes


@cuda.jit
def shared_stride_kernel(src, dst):
    tile = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    tile[t] = src[t]
    tile[t + 32] = src[t + 32]
    cuda.syncthreads()
    dst[t] = tile[2 * t]  # words 0, 2, .., 62: two per bank of banks 0, 2, .., 30


def test_a_coalesced_copy_needs_four_sectors_a_request_and_a_strided_read_thirty_two():
    x = np.arange(32 * 32, dtype=np.float32)
    copy = count_accesses(copy_kernel, 2, 32, x[:64], np.zeros(64, np.float32))
    assert copy["global_load"]["requests"] == 2 and copy["global_load"]["sectors_per_request"] == 4
    assert copy["global_store"]["sectors_per_request"] == 4
    strided = count_accesses(strided_kernel, 1, 32, x, np.zeros(32, np.float32))
    assert strided["global_load"]["sectors_per_request"] == 32
    assert strided["read"] == 32 * 4  # the bytes asked for are the same 128


def test_a_stride_two_shared_read_is_a_two_way_bank_conflict():
    got = count_accesses(shared_stride_kernel, 1, 32, np.arange(64, dtype=np.float32), np.zeros(32, np.float32))
    s = got["shared_load"]
    assert s["requests"] == 1 and s["wavefronts"] == 2 and s["bank_conflicts"] == 1
    assert got["shared_store"]["bank_conflicts"] == 0  # consecutive words: one per bank


@pytest.fixture(scope="module")
def gemm_counts():
    return g.access_counts()


def test_the_course_gemms_load_coalesced_and_read_shared_tiles_without_conflicts(gemm_counts):
    naive, tiled = gemm_counts["naive, threadIdx.x -> column"], gemm_counts["tiled, threadIdx.x -> column"]
    # per warp and k: A's word is one sector per row of the warp (2 rows), B's 16 floats two
    assert naive["global_load"]["sectors_per_request"] == 2
    # a tile row of 16 floats is 64 contiguous bytes: two sectors for each of the warp's 2 rows
    assert tiled["global_load"]["sectors_per_request"] == 4
    assert tiled["shared_load"]["bank_conflicts"] == 0 and tiled["shared_store"]["bank_conflicts"] == 0
    assert tiled["shared_load"]["wavefronts_per_request"] == 1


def test_the_row_mapped_gemms_are_caught(gemm_counts):
    naive, tiled = gemm_counts["naive, threadIdx.x -> row"], gemm_counts["tiled, threadIdx.x -> row"]
    assert naive["global_load"]["sectors_per_request"] == 8.5  # 16 sectors for A, 1 for B: 17 per warp per k
    assert tiled["global_load"]["sectors_per_request"] == 16  # 4x the 4 sectors that 128 useful bytes need
    # sa read down a column: 8 threads per bank, 8 passes; sb: one pass. 9 passes per FFMA
    assert tiled["shared_load"]["wavefronts_per_request"] == 4.5
    assert tiled["shared_load"]["bank_conflicts"] == 7 * tiled["shared_load"]["requests"] // 2


def test_both_mappings_ask_for_the_same_bytes(gemm_counts):
    rows, cols = gemm_counts["tiled, threadIdx.x -> row"], gemm_counts["tiled, threadIdx.x -> column"]
    assert rows["read"] == cols["read"] and rows["unique_read"] == cols["unique_read"]


def test_shared_passes_per_ffma_and_the_cap_they_set(gemm_counts):
    per_ffma = g.shared_passes_per_ffma(gemm_counts)
    assert per_ffma["tiled, threadIdx.x -> row"] == 9 and per_ffma["tiled, threadIdx.x -> column"] == 2
    # 128 B a clock of shared memory (one pass) against 4 warp-wide FFMAs a clock, per SM
    assert g.shared_cap(9, shared_gbps=128 * 1.98 * 132, fp32_gflops=2 * 128 * 1.98 * 132) == pytest.approx(1 / 36)


def test_count_accesses_refuses_a_launch_too_large_to_keep():
    with pytest.raises(CountError, match=r"^griddim, blockdim: 65,536 threads"):
        count_accesses(copy_kernel, 256, 256, np.zeros(1, np.float32), np.zeros(1, np.float32))


def test_the_h200s_counters_agree_with_the_simulators_sectors(gemm_counts):
    recorded = g.recorded_rows(g.recorded_counters())
    for name, counted in gemm_counts.items():
        assert recorded[name]["exact"]
        assert recorded[name]["sectors_per_request"] == pytest.approx(counted["global_load"]["sectors_per_request"])
    # the compiler merged four of sa's scalar loads into one 16-byte load (LDS.128), so the
    # hardware made fewer shared passes per FFMA than the code as written: 5 and 1.5, not 9 and 2
    assert recorded["tiled, threadIdx.x -> row"]["shared_passes_per_ffma"] == pytest.approx(5, rel=0.01)
    assert recorded["tiled, threadIdx.x -> column"]["shared_passes_per_ffma"] == pytest.approx(1.5, rel=0.01)
    assert recorded["tiled, threadIdx.x -> column"]["conflicts_per_ffma"] < 0.01
    assert recorded["tiled, threadIdx.x -> column"]["gflops"] > 3 * recorded["tiled, threadIdx.x -> row"]["gflops"]
    text = g.recorded_table(g.recorded_counters(), 66_000)
    assert "H200" in text and "sectors/load" in text


def test_the_issue_cap():
    assert g.issue_cap(34.3) == pytest.approx(0.029, abs=0.001) and g.issue_cap(0.5) == 1.0


def test_the_gemm_kernels_compile_to_fp32_fmas_for_sm_90():
    from numba.types import float32 as f32
    sig = (f32[:, :], f32[:, :], f32[:, :])
    for name, kernel in g.kernels().items():
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))
        assert "fma.rn.f32" in ptx and ".f64" not in ptx, name
        if "tiled" in name:  # the 16-step inner loop unrolled: 16 FMAs, 32 shared loads
            assert ptx.count("fma.rn.f32") == 16 and ptx.count("ld.shared.f32") == 32, name


def test_the_tables_name_where_a_warp_lies_in_c_and_the_recorded_sass_shows_the_16_byte_loads():
    recorded = g.recorded_counters()
    table = g.recorded_table(recorded, 65_000)
    assert "threadIdx.x -> row" not in table and "threadIdx.x -> column" not in table
    assert "tiled, warp along a row " in table and "tiled, warp down a column " in table
    caption = g.access_table(g.access_counts()).splitlines()[0]
    assert len(caption) < 100 and "threadIdx" not in caption, caption  # the lesson states the convention
    sass = g.sass_table(recorded).splitlines()
    assert [line.split()[-6:] for line in sass[2:]] == [["16", "16", "4", "2", "20", "32"]] * 2
    assert "hold no SASS" in g.sass_table({"tile": 16, "variants": {"x": {"sass": {"FFMA": 1}}}})
