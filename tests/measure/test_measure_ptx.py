"""Every Numba-CUDA measurement kernel compiled to sm_90 PTX, without a GPU, and its
instruction mix checked.

This is the only CPU-side guard against two traps measured on the H200
(docs/h200-facts.md): a float64 literal that silently turns fp32
FMAs into fp64 ones, and numba-cuda failing to compile with numpy 2.5.  It also checks that the
memory kernels use 16-byte accesses and that the compute loops carry nothing but their FMAs.
The CuPy kernels' CUDA C++ is compiled with NVRTC and checked the same way.
"""
import re

import pytest

pytest.importorskip("numba_cuda")

from rooflinelib.measure import kernels_numba as kn  # noqa: E402

INSTR = re.compile(r"^\s*(@!?%p\d+\s+)?([a-z][\w.]*)")


def instructions(ptx):
    """(opcode, line) for every instruction line of the PTX."""
    out = []
    for line in ptx.splitlines():
        s = line.strip()
        if not s or s.startswith(("//", ".", "{", "}", "$", ")")) or s.endswith(":"):
            continue
        m = INSTR.match(s)
        if m:
            out.append((m.group(2), s))
    return out


def loops(ptx):
    """Bodies (lists of (opcode, line)) of the backward branches: the loops."""
    lines = ptx.splitlines()
    labels = {l.strip()[:-1]: i for i, l in enumerate(lines) if re.match(r"^\$\w+:$", l.strip())}
    bodies = []
    for i, line in enumerate(lines):
        m = re.search(r"\bbra(?:\.uni)?\s+(\$\w+);", line)
        if m and labels.get(m.group(1), i) < i:
            bodies.append(instructions("\n".join(lines[labels[m.group(1)] + 1:i + 1])))
    return bodies


def count(ptx, opcode):
    return sum(1 for op, _ in instructions(ptx) if op == opcode)


@pytest.fixture(scope="module")
def ptx_of():
    cache = {}

    def get(source):
        if source.name not in cache:
            cache[source.name] = source.ptx(cc=(9, 0))
        return cache[source.name]
    return get


def test_numpy_is_below_2_5():
    # numba-cuda 0.30.4 cannot compile any kernel with numpy 2.5 (np.row_stack is gone)
    import numpy
    major, minor = (int(x) for x in numpy.__version__.split(".")[:2])
    assert (major, minor) < (2, 5)


@pytest.mark.parametrize("vpt", [1, 2, 4])
def test_copy_moves_16_bytes_per_access(ptx_of, vpt):
    ptx = ptx_of(kn.copy_kernel(vpt))
    assert count(ptx, "ld.global.v4.f32") == vpt
    assert count(ptx, "st.global.v4.f32") == vpt
    scalar = [op for op, _ in instructions(ptx) if op.startswith(("ld.global", "st.global"))
              and ".v4." not in op]
    assert scalar == []
    assert loops(ptx) == []


@pytest.mark.parametrize("chains,unroll", [(8, 32), (16, 16), (4, 64)])
def test_fp32_fma_peak_is_pure_fp32_fma(ptx_of, chains, unroll):
    ptx = ptx_of(kn.fma_peak_kernel("fp32", chains, unroll, 4096))
    assert ".f64" not in ptx  # the float64-promotion trap
    assert ".local" not in ptx  # the chains live in registers
    (body,) = loops(ptx)
    fmas = [op for op, _ in body if op == "fma.rn.f32"]
    assert len(fmas) == chains * unroll == count(ptx, "fma.rn.f32")
    others = [line for op, line in body if op != "fma.rn.f32"]
    assert len(others) <= 3, others  # count-down, compare, branch


def test_fp64_fma_peak_uses_fp64_fma(ptx_of):
    ptx = ptx_of(kn.fma_peak_kernel("fp64", 8, 32, 1024))
    (body,) = loops(ptx)
    assert sum(1 for op, _ in body if op == "fma.rn.f64") == 256
    assert count(ptx, "fma.rn.f32") == 0


@pytest.mark.parametrize("k", [0, 1, 7, 64, 100, 128, 1000, 1024])
def test_sweep_has_exactly_k_fmas_per_element(ptx_of, k):
    ptx = ptx_of(kn.sweep_kernel(k))
    assert ".f64" not in ptx and ".local" not in ptx
    assert count(ptx, "ld.global.v4.f32") == 1 and count(ptx, "st.global.v4.f32") == 1
    body = loops(ptx)
    total = count(ptx, "fma.rn.f32")
    if not body:  # straight-line code: every FMA written out
        assert total == 4 * k
    else:  # a loop of k // 64 trips of 256 FMAs, then the k % 64 remainder
        (loop,) = body
        in_loop = sum(1 for op, _ in loop if op == "fma.rn.f32")
        assert in_loop == 4 * kn.SWEEP_UNROLL
        assert total == 4 * kn.SWEEP_UNROLL + 4 * (k % kn.SWEEP_UNROLL)
        assert k // kn.SWEEP_UNROLL >= 2
        assert len(loop) - in_loop <= 3


@pytest.mark.parametrize("k", [0, 1, 64, 100, 1024])
def test_pipelined_sweep_has_k_fmas_per_element(ptx_of, k):
    ptx = ptx_of(kn.sweep_pipelined_kernel(k))
    assert ".f64" not in ptx and ".local" not in ptx
    ops = [op for op, _ in instructions(ptx)]
    assert not [op for op in ops if op.startswith(("ld.global", "st.global")) and ".v4." not in op]
    total = count(ptx, "fma.rn.f32")
    bodies = loops(ptx)
    if k >= 2 * kn.SWEEP_UNROLL:  # the K loop: exactly 256 FMAs a trip, nothing else but control
        inner = [b for b in bodies if sum(1 for op, _ in b if op == "fma.rn.f32") == 4 * kn.SWEEP_UNROLL]
        # besides the FMAs: the count-down, compare and branch (parameter reads are constant
        # operands in SASS)
        assert inner and min(len([op for op, _ in b if op not in ("fma.rn.f32", "ld.param.f32")])
                             for b in inner) <= 3
        assert total == 4 * kn.SWEEP_UNROLL + 4 * (k % kn.SWEEP_UNROLL)
    else:  # the vector loop may be unrolled a few times: a whole number of copies of 4k FMAs
        assert total % (4 * k) == 0 if k else total == 0


def test_l2_ceiling_kernel_reads_16_bytes_through_the_l2_only(ptx_of):
    """The engine's L2 ceiling reads with ``.cg`` loads (the L1 never answers), whole chunks per
    trip of its loop, and stores one float4 per block after a reduction in shared memory."""
    from rooflinelib.measure import accounting as acc
    ptx = ptx_of(kn.l2_slab_kernel())
    loads = count(ptx, "ld.global.cg.v4.f32")
    assert loads >= acc.WS_UNROLL and loads % acc.WS_UNROLL == 0
    assert count(ptx, "ld.global.f32") == count(ptx, "ld.global.v4.f32") == 0  # no L1-cached load
    assert ".f64" not in ptx
    bodies = [b for b in loops(ptx) if any(op == "ld.global.cg.v4.f32" for op, _ in b)]
    assert bodies and all(sum(1 for op, _ in b if op == "ld.global.cg.v4.f32") % acc.WS_UNROLL == 0
                          for b in bodies)
    assert count(ptx, "st.global.v4.f32") == 1
    assert count(ptx, "bar.sync") >= 1


def test_working_set_read_kernel_reads_16_bytes_through_the_l2_only(ptx_of):
    from rooflinelib.measure import workingset_kernels as wk
    ptx = ptx_of(wk.read_kernel("global-cg", "slices"))
    loads = count(ptx, "ld.global.cg.v4.f32")
    assert loads >= wk.UNROLL and loads % wk.UNROLL == 0  # whole chunks (NVVM may unroll the loop)
    assert count(ptx, "ld.global.f32") == count(ptx, "ld.global.v4.f32") == 0


def test_shared_read_uses_16_byte_shared_loads(ptx_of):
    ptx = ptx_of(kn.shared_read_kernel(4))
    assert count(ptx, "ld.shared.v4.f32") >= 4
    assert count(ptx, "ld.shared.f32") == 0
    assert ".f64" not in ptx


def test_sfu_kernel_uses_the_hardware_exp2(ptx_of):
    ptx = ptx_of(kn.sfu_kernel(8, 8, 1024))
    (body,) = loops(ptx)
    assert sum(1 for op, _ in body if op == "ex2.approx.ftz.f32") == 64
    assert ".f64" not in ptx


def test_every_kernel_family_compiles_for_sm90(ptx_of):
    for source in kn.ptx_targets():
        ptx = ptx_of(source)
        assert ".target sm_90" in ptx, source.name


# --- the CuPy backend's CUDA C++, compiled with NVRTC (no GPU needed) -------------------------

def _nvrtc_ptx(names):
    nvrtc = pytest.importorskip("cuda.bindings.nvrtc")
    from rooflinelib.measure import kernels_cupy as kc
    err, prog = nvrtc.nvrtcCreateProgram(kc.SOURCE.encode(), b"measure.cu", 0, [], [])
    for n in names:
        nvrtc.nvrtcAddNameExpression(prog, n.encode())
    opts = [b"--gpu-architecture=compute_90", *(o.encode() for o in kc.OPTIONS)]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        pytest.fail(log.decode())
    _, size = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * size
    nvrtc.nvrtcGetPTX(prog, ptx)
    text = ptx.rstrip(b"\x00 ").decode()
    lowered = {n: nvrtc.nvrtcGetLoweredName(prog, n.encode())[1].decode() for n in names}
    return text, lowered


def _entry(ptx, mangled):
    start = ptx.index(f".entry {mangled}(")
    end = ptx.find(".entry ", start + 10)
    return ptx[start:end if end > 0 else len(ptx)]


def test_cupy_kernels_compile_with_the_same_instruction_mix():
    from rooflinelib.measure import kernels_cupy as kc
    names = [kc.copy_name(1), kc.fma_peak_name("fp32", 8, 32, 4096), kc.sweep_name(0),
             kc.sweep_name(64), kc.sweep_name(1000), kc.sweep_name(1000, True), "count_mismatches"]
    ptx, lowered = _nvrtc_ptx(names)
    copy = _entry(ptx, lowered[kc.copy_name(1)])
    assert count(copy, "ld.global.nc.v4.f32") + count(copy, "ld.global.v4.f32") == 1
    assert count(copy, "st.global.v4.f32") == 1
    fma = _entry(ptx, lowered[kc.fma_peak_name("fp32", 8, 32, 4096)])
    assert count(fma, "fma.rn.f32") == 256 and ".f64" not in fma
    assert count(_entry(ptx, lowered[kc.sweep_name(0)]), "fma.rn.f32") == 0
    assert count(_entry(ptx, lowered[kc.sweep_name(64)]), "fma.rn.f32") in (256,)
    for pipelined in (False, True):
        big = _entry(ptx, lowered[kc.sweep_name(1000, pipelined)])
        assert count(big, "fma.rn.f32") == 4 * kc.SWEEP_UNROLL + 4 * (1000 % kc.SWEEP_UNROLL)


#: a float64 instruction (not a register such as %f64)
F64 = re.compile(r"\.f64\b")


@pytest.mark.parametrize("unroll", [4, 8])
def test_dram_read_loads_16_bytes_and_adds_in_fp32(ptx_of, unroll):
    """The read stream: 16-byte loads only, float32 adds (no float64 anywhere), its loop
    holding several loads in flight, and one 16-byte store per block."""
    ptx = ptx_of(kn.dram_read_kernel(unroll, 256))
    assert not F64.search(ptx)
    scalar = [op for op, _ in instructions(ptx) if op.startswith("ld.global") and ".v4." not in op]
    assert scalar == []
    assert count(ptx, "st.global.v4.f32") == 1
    hot = max(loops(ptx), key=lambda body: sum(op == "ld.global.v4.f32" for op, _ in body))
    assert sum(op == "ld.global.v4.f32" for op, _ in hot) >= unroll
    assert sum(op == "add.f32" for op, _ in hot) == 4 * sum(op == "ld.global.v4.f32" for op, _ in hot)


@pytest.mark.parametrize("vpt", [1, 4])
def test_dram_write_stores_16_bytes_and_reads_nothing(ptx_of, vpt):
    ptx = ptx_of(kn.dram_write_kernel(vpt))
    assert count(ptx, "st.global.v4.f32") == vpt and not F64.search(ptx)
    assert [op for op, _ in instructions(ptx) if op.startswith("ld.global")] == []
    assert [op for op, _ in instructions(ptx) if op.startswith("st.global") and ".v4." not in op] == []
    assert loops(ptx) == []


def test_cupy_dram_read_and_write_match_the_numba_mix():
    from rooflinelib.measure import kernels_cupy as kc
    names = [kc.dram_read_name(4, 256), kc.dram_write_name(4), "fill_read", "count_write_mismatches"]
    ptx, lowered = _nvrtc_ptx(names)
    read = _entry(ptx, lowered[kc.dram_read_name(4, 256)])
    loads = count(read, "ld.global.nc.v4.f32") + count(read, "ld.global.v4.f32")
    stores = count(read, "st.global.v4.f32") + count(read, "st.global.v4.u32")  # a float4 copied as bits
    assert loads >= 4 and not F64.search(read) and stores == 1
    write = _entry(ptx, lowered[kc.dram_write_name(4)])
    assert count(write, "st.global.v4.f32") == 4 and "ld.global" not in write and not F64.search(write)
