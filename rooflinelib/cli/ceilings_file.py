"""``roofline plot --ceilings FILE``: a stored result (measured or recorded, JSON or the CSV of
``--csv``) as the roofline."""
from __future__ import annotations

from rooflinelib.store.lab_files import machine_from_csv
from rooflinelib.store.results import ResultError, to_machine
from rooflinelib.cli.errors import UsageError


def machine_from_ceilings_file(path: str, precision) -> tuple:
    """``(machine, compute_name, memory_name)`` for :func:`rooflinelib.cli.plot.resolve_machine`.

    The machine holds every ceiling of the file (the HTML chart draws them all); the verdicts
    use ``precision`` (default fp32, else the file's first compute ceiling) against dram.
    """
    if not str(path).strip():
        raise UsageError("--ceilings: empty file name")
    try:
        # A CSV from --csv holds the numbers alone; the JSON result keeps the provenance too.
        machine = machine_from_csv(path) if str(path).lower().endswith(".csv") else to_machine(path)
    except ResultError as exc:  # it names the file, the row or field, and the reason
        raise UsageError(f"--ceilings: {' '.join(str(exc).split())}") from None
    except ValueError as exc:  # a ceiling the model refuses: the file's checks should have
        raise UsageError(f"--ceilings: {path}: {' '.join(str(exc).split())}") from None
    computes = [c.name for c in machine.compute_ceilings]
    if precision is None:
        precision = "fp32" if "fp32" in computes else (computes[0] if computes else None)
    if precision not in computes:
        raise UsageError(f"--precision: {path} has no compute ceiling {precision!r}; "
                         f"it has: {', '.join(computes) or 'none'}")
    if not machine.has("dram"):
        raise UsageError(f"--ceilings: {path} has no dram ceiling to place kernels against")
    return machine, precision, "dram"
