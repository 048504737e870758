"""The communication roof: a third roof, set by the link a step's data crosses between devices.

A kernel's roofline has two roofs, compute and HBM.  A training or inference *step* that also
moves data over a link (PCIe to the host, NVLink or Infinity Fabric to other GPUs) has a third:

    attainable FLOP/s <= link bandwidth x communication intensity,

where the communication intensity is the step's FLOPs per byte communicated.  The step is
placed on all three roofs at once by :func:`place_step`, which names the one that binds.

Conventions, stated once:
- ``n_bytes`` of a communication cost is what **one GPU sends** during the step (its egress).
  For the ring collectives here that equals what it receives, and both flow at once on a
  full-duplex link, so the time bound is ``n_bytes / per-direction bandwidth``.  Dividing by
  a datasheet's bidirectional figure instead would promise twice the real rate.
- Link rates are GB/s, decimal (1e9 byte/s), like every rate in the package; GiB never appears.
- One multiply-add is 2 FLOPs (see :mod:`rooflinelib.core.model`).  Element sizes are passed as
  ``element_bytes`` (2 for bf16/fp16, 4 for fp32).
"""
from __future__ import annotations

from dataclasses import dataclass

from rooflinelib.core.model import Work, checked_count, checked_non_negative, checked_positive, time_bounds


# --- datasheet links -------------------------------------------------------------------------

@dataclass(frozen=True)
class Link:
    """One device's link, from its datasheet.  Every link here is full duplex and symmetric:
    ``gbps_per_direction`` (GB/s, 1e9 byte/s) flows each way at once, and the figure vendors
    print is usually the sum of the two, :attr:`gbps_both_directions`."""

    name: str
    label: str
    gbps_per_direction: float
    n_links: int
    source: str
    note: str = ""

    def __post_init__(self):
        checked_positive(f"{self.name} gbps_per_direction", self.gbps_per_direction)
        checked_count(f"{self.name} n_links", self.n_links)

    @property
    def gbps_both_directions(self) -> float:
        """Both directions summed, in GB/s: the 'bidirectional' figure datasheets print."""
        return 2 * self.gbps_per_direction


_PCIE5 = ("PCI Express Base Specification, Revision 5.0 (PCI-SIG): 32 GT/s per lane, 128b/130b "
          "encoding; the H100 and H200 datasheets print 'PCIe Gen5: 128 GB/s' (both directions)")
_NVLINK4 = ("NVIDIA H100 Tensor Core GPU Architecture white paper: 18 fourth-generation NVLink "
            "links per GPU, 900 GB/s total; H100 and H200 datasheets (SXM): 'NVLink: 900 GB/s'")
_MI300X_IF = ("AMD Instinct MI300X data sheet: 7 Infinity Fabric links, peak 128 GB/s per link "
              "(both directions); AMD CDNA 3 architecture white paper")

LINKS = {row.name: row for row in (
    Link("pcie5-x16", "PCIe Gen5 x16", 64.0, 16, _PCIE5,
         "64 GB/s each way (128 GB/s both directions) is the signalling rate, 16 lanes x "
         "32 GT/s / 8 bits; 128b/130b encoding leaves 63.0 GB/s and packet headers less, so "
         "copies measure below it. n_links counts lanes."),
    Link("nvlink4", "NVLink 4, per H100/H200 SXM GPU", 450.0, 18, _NVLINK4,
         "18 links x 25 GB/s each way = 450 GB/s per direction, 900 GB/s both directions, "
         "summed over all of one GPU's links (through NVSwitch, one peer can get all of it)."),
    Link("mi300x-if-link", "MI300X Infinity Fabric, one link", 64.0, 1, _MI300X_IF,
         "One x16 link: 128 GB/s both directions, 64 GB/s each way. On an 8-GPU MI300X "
         "platform each link goes to a different peer, so one pair of GPUs gets this."),
    Link("mi300x-if", "MI300X Infinity Fabric, all 7 links", 448.0, 7, _MI300X_IF,
         "7 links x 64 GB/s each way = 448 GB/s per direction, 896 GB/s both directions; a "
         "collective reaches it only by talking to all seven peers at once."),
)}


def link(name: str) -> Link:
    """The datasheet row named ``name`` (a key of :data:`LINKS`)."""
    try:
        return LINKS[name]
    except (KeyError, TypeError):
        raise ValueError(f"link: unknown {name!r}; known: {', '.join(LINKS)}") from None


# --- communication intensity of the common cases ---------------------------------------------

@dataclass(frozen=True)
class CommCost(Work):
    """FLOPs of one step (or one layer, as ``name`` says) against the bytes one GPU sends over
    the link in it.  ``intensity`` is FLOP per byte communicated; infinite if nothing is sent."""

    name: str = ""
    note: str = ""


def ring_allreduce_factor(n_gpus: int) -> float:
    """2(n-1)/n: the bytes each GPU sends in a ring all-reduce, per byte of the buffer.

    A reduce-scatter ((n-1)/n of the buffer) then an all-gather (the same again); it is the
    bandwidth-optimal all-reduce (Patarasuk and Yuan, 2009).  0 for one GPU, 1 for two, and
    it approaches 2 as n grows."""
    n = checked_count("n_gpus", n_gpus)
    return 2 * (n - 1) / n


def ring_allgather_factor(n_gpus: int) -> float:
    """(n-1)/n: the bytes each GPU sends in a ring all-gather, per byte of the gathered result."""
    n = checked_count("n_gpus", n_gpus)
    return (n - 1) / n


def data_parallel_allreduce(n_params: int, tokens_per_gpu: int, n_gpus: int,
                            element_bytes: int = 2) -> CommCost:
    """One data-parallel training step on one GPU: forward and backward on its own tokens, then
    a ring all-reduce of the gradients.

    - FLOPs = 6 x n_params x tokens_per_gpu: 2 per parameter per token forward (one
      multiply-add) and 4 backward (gradients of the activations and of the weights).  The
      usual dense-transformer convention (Kaplan et al., 2020); it leaves out attention's
      score FLOPs and any recomputation.
    - bytes sent = 2(n-1)/n x n_params x element_bytes, the gradients in their element size.
    - intensity = 6 P T / (2(n-1)/n x P s) = 3 n T / ((n-1) s): the model size cancels, so only
      the tokens each GPU processes per step raise it.  Infinite for one GPU.
    """
    p = checked_count("n_params", n_params)
    t = checked_count("tokens_per_gpu", tokens_per_gpu)
    n = checked_count("n_gpus", n_gpus)
    s = checked_count("element_bytes", element_bytes)
    return CommCost(n_flops=6 * p * t, n_bytes=ring_allreduce_factor(n) * p * s,
                    name=f"data parallel, {n} GPUs",
                    note="6 x params x tokens per step; ring all-reduce of the gradients")


TP_COLLECTIVES = ("all-reduce", "all-gather")


def tensor_parallel_matmul(tokens: int, d_in: int, d_out: int, n_gpus: int,
                           element_bytes: int = 2, collective: str = "all-reduce") -> CommCost:
    """One linear layer Y[T, d_out] = X[T, d_in] W split over n GPUs, forward pass, per GPU.

    Each GPU does 2 T d_in d_out / n FLOPs.  Then:
    - ``"all-reduce"`` (W split by rows, along d_in; the partial sums of Y are added):
      bytes sent = 2(n-1)/n x T d_out s, intensity = d_in / ((n-1) s);
    - ``"all-gather"`` (W split by columns, along d_out; the slices of Y are gathered):
      bytes sent = (n-1)/n x T d_out s, intensity = 2 d_in / ((n-1) s).
    The tokens cancel: unlike data parallelism, a bigger batch does not help, only a wider
    layer (or fewer GPUs) does.  Megatron-LM's layers pair the two splits so that one
    all-reduce serves two matmuls (Shoeybi et al., 2019).
    """
    t = checked_count("tokens", tokens)
    d_in, d_out = checked_count("d_in", d_in), checked_count("d_out", d_out)
    n = checked_count("n_gpus", n_gpus)
    s = checked_count("element_bytes", element_bytes)
    if collective not in TP_COLLECTIVES:
        raise ValueError(f"collective: must be one of {', '.join(TP_COLLECTIVES)}, got {collective!r}")
    split, size = ("d_in", d_in) if collective == "all-reduce" else ("d_out", d_out)
    if size % n:
        raise ValueError(f"{split}: must be divisible by n_gpus ({n}) to split the weights, got {size}")
    factor = ring_allreduce_factor(n) if collective == "all-reduce" else ring_allgather_factor(n)
    return CommCost(n_flops=2 * t * d_in * d_out / n, n_bytes=factor * t * d_out * s,
                    name=f"tensor parallel matmul, {n} GPUs, {collective}",
                    note="forward pass of one layer, per GPU")


def pipeline_activations(n_params_per_stage: int, tokens_per_microbatch: int, d_model: int,
                         element_bytes: int = 2, training: bool = True) -> CommCost:
    """One micro-batch through one middle pipeline stage.

    - inference (forward only): FLOPs = 2 x P_stage x T; the stage sends its output
      activations, T x d_model x s bytes, to the next stage; intensity = 2 P_stage / (d s).
    - training: FLOPs = 6 x P_stage x T (the convention of :func:`data_parallel_allreduce`);
      the stage also sends the gradient of its input, the same size, back to the previous
      stage: bytes sent = 2 T d s, intensity = 3 P_stage / (d s).
    The micro-batch size cancels.  The first and last stages send half as much.
    """
    p = checked_count("n_params_per_stage", n_params_per_stage)
    t = checked_count("tokens_per_microbatch", tokens_per_microbatch)
    d = checked_count("d_model", d_model)
    s = checked_count("element_bytes", element_bytes)
    if not isinstance(training, bool):
        raise ValueError(f"training: must be True or False, got {training!r}")
    passes = 2 if training else 1
    return CommCost(n_flops=(6 if training else 2) * p * t, n_bytes=passes * t * d * s,
                    name="pipeline stage, " + ("training" if training else "inference"),
                    note="one micro-batch through a middle stage")


def host_to_device_batch(n_flops: float, batch_bytes: float) -> CommCost:
    """A step that copies its batch from the host before computing on it (over PCIe, say).

    bytes sent = batch_bytes, the batch as it crosses the link (after any host-side
    compression or decoding); FLOPs = n_flops, those of the step that consumes it;
    intensity = n_flops / batch_bytes.  Both usually scale with the batch size, so the
    intensity is a property of the model and the sample format, not of the batch size."""
    return CommCost(n_flops=checked_positive("n_flops", n_flops), n_bytes=checked_positive("batch_bytes", batch_bytes),
                    name="host-to-device batch", note="the batch over the host link, per step")


# --- three roofs -----------------------------------------------------------------------------

ROOFS = ("compute", "hbm", "link")


def link_roof_gflops(intensity: float, link_gbps: float) -> float:
    """The communication roof, I_link x L, in GFLOP/s: GB/s times FLOP/byte needs no factor."""
    return checked_non_negative("intensity", intensity) * checked_positive("link_gbps", link_gbps)


@dataclass(frozen=True)
class StepBounds:
    """Lower bounds on one step's time, in seconds, from the three roofs."""

    n_flops: float
    compute_s: float  # F / P
    hbm_s: float  # M / B
    link_s: float  # C / L
    overlapped_s: float  # max of the three: math, HBM traffic and communication fully overlap
    serial_s: float  # their sum: no overlap at all

    @property
    def binding(self) -> str:
        """The roof with the longest bound: 'compute', 'hbm' or 'link' (a tie goes to the
        earlier, as in :attr:`rooflinelib.core.model.TimeBounds.limiter`)."""
        times = (self.compute_s, self.hbm_s, self.link_s)
        return ROOFS[times.index(max(times))]

    @property
    def attainable_gflops(self) -> float:
        """F / max(F/P, M/B, C/L) = min(P, I_hbm x B, I_link x L), in GFLOP/s."""
        return self.n_flops / self.overlapped_s / 1e9


def place_step(n_flops: float, hbm_bytes: float, link_bytes: float,
               peak_gflops: float, hbm_gbps: float, link_gbps: float) -> StepBounds:
    """A step on three roofs: compute (``peak_gflops``), HBM (``hbm_gbps``) and the link
    (``link_gbps``, per direction, against ``link_bytes`` one GPU sends).  The first two are
    :func:`rooflinelib.core.model.time_bounds`; the link adds C / L."""
    # validated here so that an error names this function's fields, not time_bounds' ones
    n_flops = checked_positive("n_flops", n_flops)
    hbm_bytes = checked_non_negative("hbm_bytes", hbm_bytes)
    two = time_bounds(n_flops, hbm_bytes, checked_positive("peak_gflops", peak_gflops),
                      checked_positive("hbm_gbps", hbm_gbps))
    link_s = checked_non_negative("link_bytes", link_bytes) / (checked_positive("link_gbps", link_gbps) * 1e9)
    times = (two.compute_s, two.memory_s, link_s)
    return StepBounds(n_flops, two.compute_s, two.memory_s, link_s, max(times), sum(times))


# --- whole training steps, with their HBM traffic -------------------------------------------

@dataclass(frozen=True)
class StepCost:
    """One training step on one GPU: its FLOPs, the bytes it moves to and from HBM, and the
    bytes it sends over a link.  ``hbm_intensity`` is what the device's roofline sees;
    ``link_intensity`` is the third roof's x-coordinate.  :func:`place_step` takes all three."""

    n_flops: float
    hbm_bytes: float
    link_bytes: float
    name: str = ""
    note: str = ""

    @property
    def hbm_intensity(self) -> float:
        return self.n_flops / self.hbm_bytes if self.hbm_bytes else float("inf")

    @property
    def link_intensity(self) -> float:
        return self.n_flops / self.link_bytes if self.link_bytes else float("inf")

    def place(self, peak_gflops: float, hbm_gbps: float, link_gbps: float) -> StepBounds:
        return place_step(self.n_flops, self.hbm_bytes, self.link_bytes, peak_gflops, hbm_gbps, link_gbps)


#: Weight traffic of one training step, in multiples of the model's bytes: the weights are read
#: by the forward pass and again by the backward pass (for the activations' gradients), and
#: the weights' gradients are written once.  Activations and the optimizer are left out, so the
#: HBM bytes here are a lower bound and the HBM roof an upper one.
WEIGHT_PASSES = 3

#: What a step can receive from the host, per token (bytes): the inputs after host-side
#: preparation, as they cross the link.
TOKEN_INPUTS = {
    "token id (int32)": 4,
    "16x16 RGB patch, uint8": 16 * 16 * 3,
    "16x16 RGB patch, fp32": 16 * 16 * 3 * 4,
    "precomputed 1024-wide fp16 embedding": 1024 * 2,
}


def streamed_training_step(n_params: int, tokens: int, bytes_per_token: int,
                           element_bytes: int = 2) -> StepCost:
    """A dense model's training step whose batch of ``tokens`` is copied from the host first.

    - FLOPs = 6 x n_params x tokens (:func:`data_parallel_allreduce`'s convention);
    - HBM bytes >= WEIGHT_PASSES x n_params x element_bytes + the batch, tokens x bytes_per_token;
    - link bytes = tokens x bytes_per_token.

    The link intensity, 6 n_params / bytes_per_token, does not depend on the batch: only a
    bigger model per input byte raises it.  The HBM intensity grows with the batch, as the
    weights' traffic is spread over more tokens.  So a larger batch moves the step across the
    device's ridge while its link roof stays where it was."""
    p = checked_count("n_params", n_params)
    t = checked_count("tokens", tokens)
    b = checked_count("bytes_per_token", bytes_per_token)
    s = checked_count("element_bytes", element_bytes)
    return StepCost(n_flops=6 * p * t, hbm_bytes=WEIGHT_PASSES * p * s + t * b, link_bytes=t * b,
                    name="training step, batch streamed from the host",
                    note=f"{p:,} parameters, {t:,} tokens of {b:,} bytes")


def data_parallel_step(n_params: int, tokens_per_gpu: int, n_gpus: int,
                       element_bytes: int = 2) -> StepCost:
    """One GPU's data-parallel training step: :func:`data_parallel_allreduce`'s FLOPs and
    link bytes, with the weights' HBM traffic (WEIGHT_PASSES x n_params x element_bytes).

    Every term is proportional to n_params, so the model size sets the step's time but not
    which roof binds: that is the tokens per GPU (and the number of GPUs) alone."""
    comm = data_parallel_allreduce(n_params, tokens_per_gpu, n_gpus, element_bytes)
    return StepCost(n_flops=comm.n_flops, hbm_bytes=WEIGHT_PASSES * n_params * element_bytes,
                    link_bytes=comm.n_bytes, name=comm.name,
                    note=f"{n_params:,} parameters, {tokens_per_gpu:,} tokens per GPU")
