"""16-byte loads and stores of four float32 values, for Numba-CUDA kernels.

Why: a memory kernel needs enough bytes in flight per thread to cover DRAM latency.  With one
4-byte load per thread an H200 copy reached only 0.65-0.73 of ``cupy.copyto``; 16 bytes per
thread reached 0.97 (docs/h200-facts.md, docs/measurements/history.md).  Numba has no float4 array type, and a complex128
view compiles to two 8-byte loads, so these intrinsics emit the single 16-byte instructions
(``ld.global.v4.f32`` / ``st.global.v4.f32``, ``LDG.E.128`` / ``STG.E.128`` in SASS) that CUDA
C++ gets from ``float4``.

Vector ``i`` of a float32 array is elements ``4i .. 4i+3``.  The array's data must be 16-byte
aligned, which every device allocation is.

Under the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) kernels run as Python, so the same
names are plain functions doing four scalar accesses.
"""
from __future__ import annotations

import os


def simulator_enabled() -> bool:
    """True when numba-cuda runs kernels in its Python simulator."""
    try:
        from numba.cuda.core import config
        return bool(config.ENABLE_CUDASIM)
    except ImportError:  # other numba-cuda layouts read the same variable
        return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


if simulator_enabled():

    def load4(array, i):
        j = 4 * i
        return array[j], array[j + 1], array[j + 2], array[j + 3]

    def load4_cg(array, i):
        return load4(array, i)

    def load4_nc(array, i):
        return load4(array, i)

    def store4(array, i, v0, v1, v2, v3):
        j = 4 * i
        array[j] = v0
        array[j + 1] = v1
        array[j + 2] = v2
        array[j + 3] = v3

else:
    from llvmlite import ir
    from numba import types
    from numba.cuda.extending import intrinsic

    _F32X4 = ir.VectorType(ir.FloatType(), 4)

    def _vector_pointer(context, builder, array_type, array, index_type, index):
        # Address of element 4*index, as a pointer to <4 x float> in the array's address space.
        ary = context.make_array(array_type)(context, builder, array)
        i = context.cast(builder, index, index_type, types.intp)
        first = builder.mul(i, ir.Constant(i.type, 4))
        element = builder.gep(ary.data, [first])
        return builder.bitcast(element, _F32X4.as_pointer(element.type.addrspace))

    def _check(array, index):
        if not (isinstance(array, types.Array) and array.dtype == types.float32
                and array.ndim == 1 and array.layout == "C"):
            raise TypeError(f"array: needs a 1-D C-contiguous float32 array, got {array}")
        if not isinstance(index, types.Integer):
            raise TypeError(f"index: needs an integer, got {index}")

    @intrinsic
    def load4(typingctx, array, index):
        """Elements 4i..4i+3 as a tuple, in one 16-byte load."""
        _check(array, index)
        sig = types.UniTuple(types.float32, 4)(array, index)

        def codegen(context, builder, sig, args):
            ptr = _vector_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1])
            vec = builder.load(ptr, align=16)
            lanes = [builder.extract_element(vec, ir.Constant(ir.IntType(32), k)) for k in range(4)]
            return context.make_tuple(builder, sig.return_type, lanes)

        return sig, codegen

    def _asm_load4(operator, doc):
        @intrinsic
        def load(typingctx, array, index):
            _check(array, index)
            sig = types.UniTuple(types.float32, 4)(array, index)

            def codegen(context, builder, sig, args):
                ptr = _vector_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1])
                f32 = ir.FloatType()
                fn = ir.FunctionType(ir.LiteralStructType([f32] * 4), [ptr.type])
                asm = ir.InlineAsm(fn, f"ld.global.{operator}.v4.f32 {{$0, $1, $2, $3}}, [$4];",
                                   "=f,=f,=f,=f,l")
                vec = builder.call(asm, [ptr])
                lanes = [builder.extract_value(vec, k) for k in range(4)]
                return context.make_tuple(builder, sig.return_type, lanes)

            return sig, codegen

        load.__doc__ = doc
        return load

    load4_cg = _asm_load4("cg", "Like load4 but ``ld.global.cg``: cached in L2 only, never in "
                                "L1, so that a read-only L2 benchmark measures the L2.")
    load4_nc = _asm_load4("nc", "Like load4 but ``ld.global.nc``: the read-only (texture) path.")

    @intrinsic
    def store4(typingctx, array, index, v0, v1, v2, v3):
        """Store four float32 values at elements 4i..4i+3 in one 16-byte store."""
        _check(array, index)
        for name, v in zip(("v0", "v1", "v2", "v3"), (v0, v1, v2, v3)):
            if v != types.float32:
                raise TypeError(f"{name}: needs float32, got {v}")
        sig = types.void(array, index, v0, v1, v2, v3)

        def codegen(context, builder, sig, args):
            ptr = _vector_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1])
            vec = ir.Constant(_F32X4, ir.Undefined)
            for k in range(4):
                vec = builder.insert_element(vec, args[2 + k], ir.Constant(ir.IntType(32), k))
            builder.store(vec, ptr, align=16)
            return context.get_dummy_value()

        return sig, codegen
