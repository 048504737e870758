"""The three roofs of a training step, from measurements: compute, HBM and the host link.

:mod:`rooflinelib.core.interconnect` says where a step sits against three roofs; this module finds
the roofs.  On a GPU it measures them (Lab 1 with its link ceilings); anywhere else it loads the
H200 runs shipped with the course: Lab 1's ceilings and its host <-> device copies.  Every roof
keeps the line that says where it came from.  Datasheet links (NVLink, PCIe's signalling rate)
are offered beside the measured one, labelled as datasheet figures.
"""
from __future__ import annotations

from dataclasses import dataclass

from rooflinelib.core import interconnect
from rooflinelib.store import results
from rooflinelib.core.vocabulary import compute_ceiling
from rooflinelib.modes import describe_result
from rooflinelib.store.results import ResultError
from rooflinelib.store.recorded import recorded_file

#: The dtypes training runs in, best first.
TRAINING_DTYPES = ("bf16", "fp16", "tf32", "fp32")
#: Compute roofs a training step can use, best first: the matrix units of the training dtypes,
#: then the vector roof every GPU and CPU has.
COMPUTE_PREFERENCE = tuple(compute_ceiling(d, "matrix") for d in TRAINING_DTYPES) + (compute_ceiling("fp32"),)
#: The HBM roof of a step, best first: a step reads the weights and the batch and writes the
#: gradients, a mix of reads and writes (under 90% one way: notebook 03's rule, pitfalls'
#: ONE_WAY_SHARE), so it is scored on the copy mix; the fastest mix only where no copy was measured.
HBM_PREFERENCE = ("dram-copy", "dram")
#: The link ceilings, from Lab 1's registry (group "link").
LINK_CEILINGS = ("pcie-h2d", "pcie-d2h")
#: The link choices of the widget: the measured PCIe copy, then datasheet rows.
DATASHEET_LINKS = ("pcie5-x16", "nvlink4")


@dataclass(frozen=True)
class LinkRoof:
    """One link's per-direction rate in GB/s, what it is, and where the figure came from."""

    name: str
    label: str
    gbps: float
    measured: bool
    source: str


@dataclass(frozen=True)
class StepRoofs:
    """A device's compute and HBM roofs and the links its steps may cross."""

    device: str
    compute_name: str
    peak_gflops: float
    hbm_gbps: float
    links: tuple  # LinkRoof, the measured host link first
    origin: str  # "live" (measured now), "file" (the stored Lab 1 result) or "recorded"
    message: str  # where each figure came from, in a few lines
    pageable_gbps: dict  # {"h2d": GB/s, "d2h": GB/s} of pageable copies, where measured
    hbm_name: str = "dram"  # the Lab 1 ceiling hbm_gbps is (HBM_PREFERENCE)

    def link(self, name: str) -> LinkRoof:
        for roof in self.links:
            if roof.name == name:
                return roof
        raise ValueError(f"link: unknown {name!r}; known: {', '.join(r.name for r in self.links)}")

    @property
    def host_link(self) -> LinkRoof:
        """The measured host link: the slower direction of the pinned copies."""
        return self.links[0]


def _values(result: dict) -> dict:
    return {c["name"]: float(c["value"]) for c in result["ceilings"] if c.get("verified")}


def _pageable(result: dict) -> dict:
    rates = {}
    for detail in result.get("details", ()):
        for tried in detail.get("configs_tried", ()):
            if tried.get("host_memory") == "pageable" and tried.get("verified"):
                rates[tried["direction"]] = float(tried["gbps"])
    return rates


def roofs_from(ceilings: dict, links: dict, origin: str, message: str) -> StepRoofs:
    """Build the roofs from a validated Lab 1 result (``ceilings``) and one holding the link
    ceilings (``links``; the same dict when Lab 1 measured them).  Raises ``ResultError``
    naming what is missing."""
    values, link_values = _values(ceilings), _values(links)
    compute = next((name for name in COMPUTE_PREFERENCE if name in values), None)
    if compute is None:
        raise ResultError(f"ceilings: no verified compute roof among {', '.join(COMPUTE_PREFERENCE)}")
    hbm = next((name for name in HBM_PREFERENCE if name in values), None)
    if hbm is None:
        raise ResultError("ceilings: no verified 'dram-copy' or 'dram' ceiling, the HBM roof")
    missing = [name for name in LINK_CEILINGS if name not in link_values]
    if missing:
        raise ResultError(f"ceilings: no verified {', '.join(missing)}: run Lab 1 on a GPU with its link ceilings")
    slower = min(LINK_CEILINGS, key=link_values.get)
    measured = LinkRoof("pcie-measured", "PCIe, measured (pinned copies, the slower direction)",
                        link_values[slower], True, f"{slower}, {describe_result(links)}")
    datasheet = tuple(LinkRoof(row.name, f"{row.label}, datasheet", row.gbps_per_direction, False, row.source)
                      for row in (interconnect.link(n) for n in DATASHEET_LINKS))
    device = ceilings.get("device", {}).get("name", "unknown device")
    return StepRoofs(device, compute, values[compute], values[hbm], (measured,) + datasheet,
                     origin, message, _pageable(links), hbm)


#: The shipped two-GPU all-reduce measurement, when there is one (rooflinelib.measure.allreduce).
ALLREDUCE_FILE = "h200x2_allreduce.json"


def recorded_allreduce():
    """The shipped all-reduce result (a validated ``ceilings`` result holding
    ``nvlink-allreduce``), or None when none is shipped."""
    path = recorded_file(ALLREDUCE_FILE)
    return results.load(path) if path.is_file() else None


def _with_allreduce(roofs: StepRoofs) -> StepRoofs:
    """``roofs`` with the measured all-reduce link after the host link, when it is shipped."""
    result = recorded_allreduce()
    if result is None:
        return StepRoofs(roofs.device, roofs.compute_name, roofs.peak_gflops, roofs.hbm_gbps, roofs.links,
                         roofs.origin, roofs.message + " NVLink: the datasheet's figure (not measured here).",
                         roofs.pageable_gbps, roofs.hbm_name)
    value = _values(result)["nvlink-allreduce"]
    measured = LinkRoof("nvlink-allreduce", f"NVLink all-reduce, measured ({result.get('gpus', 2)} GPUs, bus bandwidth)",
                        value, True, f"nvlink-allreduce, {describe_result(result)}")
    links = roofs.links[:1] + (measured,) + roofs.links[1:]
    return StepRoofs(roofs.device, roofs.compute_name, roofs.peak_gflops, roofs.hbm_gbps, links, roofs.origin,
                     roofs.message + f" All-reduce bandwidth from the recorded two-GPU run ({describe_result(result)}).",
                     roofs.pageable_gbps, roofs.hbm_name)


def recorded_step_roofs(backend: str = "numba") -> StepRoofs:
    """The recorded H200's roofs: Lab 1's ceilings and the host <-> device copies shipped with
    the course (two files of the same card, measured the same day)."""
    ceilings = results.recorded("ceilings", backend)
    links = results.recorded_links(backend)
    message = (f"Compute and HBM roofs from the recorded H200 Lab 1 run ({describe_result(ceilings)}); "
               f"host link from the recorded H200 copies ({describe_result(links)}).")
    return _with_allreduce(roofs_from(ceilings, links, "recorded", message))


def step_roofs_for(mode, backend: str = "numba", progress=None) -> StepRoofs:
    """The roofs for a notebook in ``mode`` (a :class:`rooflinelib.modes.RunMode`).

    On a GPU, the compute and HBM roofs are the student's Lab 1 result, through the one chain
    of ceilings (:func:`rooflinelib.modes.student_ceilings`: stored, else measured once now with
    its link ceilings and stored), so that they are the roofs every other notebook shows; the
    host link is that result's, else the recorded H200 copies, and the message says which.
    With no GPU (the CPU has no host link to measure) or when no GPU result can be had, the
    recorded H200 is used, and the message says why.
    """
    if mode.live and mode.mode == "gpu":
        from rooflinelib.modes import student_ceilings
        loaded = student_ceilings(mode, measure="if-missing", progress=progress, links=True)
        if loaded.origin in ("live", "file"):
            try:
                return _with_allreduce(roofs_from(loaded.result, loaded.result, loaded.origin, loaded.message))
            except ResultError as exc:  # a stored result measured without its link ceilings
                links = results.recorded_links(mode.backend or backend)
                message = (f"{loaded.message} Host link from the recorded H200 copies "
                           f"({describe_result(links)}), as this result has none ({exc}).")
                try:
                    return _with_allreduce(roofs_from(loaded.result, links, loaded.origin, message))
                except ResultError as missing:
                    why = f"Your Lab 1 result cannot give a step's roofs ({missing}); "
        else:
            why = f"The live run gave no link ceilings ({loaded.message}); "
    elif mode.mode == "cpu":
        why = "A CPU has no host link of its own to measure; "
    else:
        why = ""
    roofs = recorded_step_roofs(backend)
    return StepRoofs(roofs.device, roofs.compute_name, roofs.peak_gflops, roofs.hbm_gbps, roofs.links,
                     roofs.origin, why + roofs.message, roofs.pageable_gbps, roofs.hbm_name)
