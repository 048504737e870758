"""Place your own kernel: time it, count its bytes, read its counters, and put it on your ceilings.

- :func:`profile` (also ``rooflinelib.profile``): the whole placement of one function call;
- :func:`count_bytes`: a Numba-CUDA kernel's global-memory bytes, counted in the CUDA simulator
  (no GPU needed); :func:`count_accesses` adds the sectors per warp-wide request and the
  shared-memory bank conflicts;
- :func:`load`: a result saved with :meth:`ProfileResult.save`;
- :mod:`.counters`: Nsight Compute on one call, in a process of its own.

Its modules: :mod:`.core` (:func:`profile`), :mod:`.function_timing` (a call timed),
:mod:`.counting` and :mod:`.simulator` (bytes counted in the CUDA simulator), :mod:`.counters`,
:mod:`.profile_result` (the result and its file), :mod:`.recorded` (the shipped profiles),
:mod:`.capstone` (what notebook 07 calls) with :mod:`.races` (its shared-memory race detector, in
the simulator), and the course's own kernels to place:
:mod:`.softmax_targets`, :mod:`.gemm_targets` with :mod:`.gemm_kernels`.

Standard library only at import; numba, cupy and torch are imported when a call needs them.
"""
from rooflinelib.profiling.core import profile, resolve_ceilings
from rooflinelib.profiling.counting import CountError, count_accesses, count_bytes
from rooflinelib.profiling.recorded import load_profiles, recorded_profiles, save_profiles
from rooflinelib.profiling.profile_result import ProfileError, ProfileResult, from_dict, load

__all__ = ["profile", "count_bytes", "count_accesses", "load", "from_dict", "resolve_ceilings", "ProfileResult",
           "ProfileError", "CountError", "load_profiles", "recorded_profiles", "save_profiles"]
