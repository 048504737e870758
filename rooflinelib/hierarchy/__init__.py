"""The hierarchical roofline (notebook 05, Lab 4): one memory roof per level of the memory
hierarchy, found in a measured working-set sweep, and a kernel placed once per level.

- :mod:`.workingset_files`: the ``rooflinelib-workingset`` result file (load, validate, save,
  recorded runs) and :class:`~.workingset_files.Series`, :class:`~.workingset_files.HierarchyError`;
- :mod:`.levels`: the levels found in a sweep's numbers (plateaus, bandwidths, capacities);
- :mod:`.level_placement`: a kernel's FLOPs and bytes per level placed against those levels,
  the working-set model, and the hierarchical machine of a result;
- :mod:`.workingset`: the working-set sweep itself, measured on a GPU or this CPU;
- :mod:`.ncu`: Nsight Compute counters imported as hierarchical kernels;
- :mod:`.plot`: the charts and the working-set explorer;
- :mod:`.level_readings`: numbers behind notebook 05's prose (shared-memory peak, L2 sharing,
  L2 bytes by source);
- :mod:`.lesson`: notebook 05's data in one call (``lesson.load()``), each Lab 4 launch placed
  with the bytes its SMs asked the L2 for, and the notebook's tables.

Import the module you need (``from rooflinelib.hierarchy import level_placement``); this package
offers no names of its own, so that each name has one home.
"""

__all__ = []
