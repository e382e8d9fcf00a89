"""Predict a measurement from the ledgers, then name the terms of the gap.

Standard library only. A prediction is the speed ledger's time bound on a set of
roofs: the datasheet's (spec) or the measured achievable ones of ``common.hw_specs``.
Conventions:

* each operator takes max(F / P, D / beta); a pass takes the sum (``formulas.transformer``);
* tensor parallelism over g GPUs splits every matmul and attention operator g ways
  (Megatron-style: heads and MLP columns/rows); norms, residual adds, the activation
  and the embedding lookup are repeated on every GPU;
* it costs two all-reduces per layer (after the attention output projection and after
  the MLP down projection), each of the activations [tokens, d_model]; a ring
  all-reduce of M bytes over g GPUs takes alpha + 2 (g - 1) / g * M / beta_link;
* a kernel never takes less than a fixed floor (launch and scheduling), so each
  operator adds max(0, floor - its roofline time).

Utilisations: MFU = model FLOPs / (time x peak FLOP/s), MBU = bytes the model must
move / (time x memory bandwidth); both against the datasheet unless said otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from common.formulas import roofline
from common.formulas.transformer import PassLedger
from common.hw_specs import Chip
from common.tables.validate import non_negative, positive, positive_int

SHARDED_KINDS = ("matmul", "attention")  # split g ways under tensor parallelism


class Roofs(NamedTuple):
    """One set of roofs: peak FLOP/s, memory and link bandwidth (B/s), and which were measured."""

    label: str
    peak: float
    mem_bw: float
    link_bw: float
    measured: tuple[str, ...] = ()  # which of 'compute', 'memory', 'link' came from measurements


def spec_roofs(chip: Chip, precision: str) -> Roofs:
    """The datasheet's roofs of `chip` at `precision`."""
    return Roofs("spec", chip.peak_flops(precision), chip.mem_bw, chip.link_bw)


def achievable_roofs(chip: Chip, precision: str) -> Roofs:
    """The measured achievable roofs; each one without a published figure falls back to spec."""
    found = {
        "compute": chip.achievable_flops(precision),
        "memory": chip.achievable_mem_bw,
        "link": chip.achievable_link_bw,
    }
    spec = spec_roofs(chip, precision)
    return Roofs(
        "achievable",
        found["compute"] or spec.peak,
        found["memory"] or spec.mem_bw,
        found["link"] or spec.link_bw,
        tuple(k for k, v in found.items() if v is not None),
    )


def op_time(flops: float, nbytes: float, peak: float, bw: float) -> float:
    """max(F / P, D / beta) in seconds."""
    return roofline.lower_bound_time(flops, nbytes, peak, bw)


def per_gpu_times(ledger: PassLedger, roofs: Roofs, gpus: int = 1) -> list[tuple[int, float]]:
    """(count, one run's time on one GPU) per operator, split g ways where SHARDED_KINDS says."""
    g = positive_int(gpus, "GPUs")
    rows = []
    for op, count in ledger.counted():
        share = g if op.kind in SHARDED_KINDS else 1
        rows.append((count, op_time(op.flops / share, op.nbytes / share, roofs.peak, roofs.mem_bw)))
    return rows


def pass_times(ledger: PassLedger, roofs: Roofs, gpus: int = 1) -> list[float]:
    """Each operator's time on one GPU x its count, in seconds."""
    return [count * t for count, t in per_gpu_times(ledger, roofs, gpus)]


def roofline_time(ledger: PassLedger, roofs: Roofs, gpus: int = 1) -> float:
    """T_pass = sum over operators of count x max(F / (g P), D / (g beta)) (shared kinds / g)."""
    return sum(pass_times(ledger, roofs, gpus))


def allreduce_time(nbytes: float, gpus: int, link_bw: float, latency: float) -> float:
    """Ring all-reduce of M bytes over g GPUs: alpha + 2 (g - 1) / g * M / beta; 0 for one GPU."""
    g = positive_int(gpus, "GPUs")
    if g == 1:
        return 0.0
    m = non_negative(nbytes, "message bytes")
    return non_negative(latency, "latency") + 2 * (g - 1) / g * m / positive(link_bw, "link B/s")


def allreduce_bytes(ledger: PassLedger) -> float:
    """One tensor-parallel all-reduce's message: the activations [tokens, d_model]."""
    return ledger.tokens * ledger.model.d_model * ledger.dtypes.act_bytes


def allreduces(ledger: PassLedger) -> int:
    """All-reduces per pass under tensor parallelism: two per layer."""
    return 2 * ledger.model.n_layers


def comm_time(ledger: PassLedger, gpus: int, link_bw: float, latency: float) -> float:
    """Every all-reduce of the pass: 2 L x (alpha + 2 (g - 1) / g * M / beta)."""
    one = allreduce_time(allreduce_bytes(ledger), gpus, link_bw, latency)
    return allreduces(ledger) * one


def kernels(ledger: PassLedger) -> int:
    """Kernels one GPU launches per pass: every operator of the ledger, x its count."""
    return sum(count for _, count in ledger.counted())


def fixed_cost(ledger: PassLedger, roofs: Roofs, floor: float, gpus: int = 1) -> float:
    """Sum over operators of count x max(0, floor - roofline time), in seconds."""
    f = non_negative(floor, "kernel floor")
    return sum(count * max(0.0, f - t) for count, t in per_gpu_times(ledger, roofs, gpus))


def non_matmul_time(ledger: PassLedger, roofs: Roofs, floor: float, gpus: int = 1) -> float:
    """Time of every operator but the weight matmuls, each at least the kernel floor, in s."""
    f = non_negative(floor, "kernel floor")
    rows = zip(ledger.counted(), per_gpu_times(ledger, roofs, gpus), strict=True)
    return sum(count * max(f, t) for (op, _), (count, t) in rows if op.kind != "matmul")


def mfu(flops: float, seconds: float, peak: float) -> float:
    """Model FLOPs utilisation: F / (T x P_peak), a fraction."""
    return non_negative(flops, "FLOPs") / (positive(seconds, "time") * positive(peak, "peak"))


def mbu(nbytes: float, seconds: float, bw: float) -> float:
    """Memory-bandwidth utilisation: D / (T x beta), a fraction."""
    return non_negative(nbytes, "bytes") / (positive(seconds, "time") * positive(bw, "bandwidth"))


class Term(NamedTuple):
    """One named term of a decomposition, in seconds."""

    name: str
    seconds: float


class Decomposition(NamedTuple):
    """Measured time as a sum of named, computed terms plus what stays unexplained."""

    measured: float
    terms: tuple[Term, ...]

    @property
    def explained(self) -> float:
        """Sum of the named terms, in seconds."""
        return sum(t.seconds for t in self.terms)

    @property
    def unexplained(self) -> float:
        """Measured minus explained (negative: the terms overshoot the measurement)."""
        return self.measured - self.explained


def decompose(
    ledger: PassLedger,
    spec: Roofs,
    achievable: Roofs,
    measured: float,
    gpus: int,
    latency: float,
    floor: float,
) -> Decomposition:
    """Measured = roofline at spec + compute efficiency + memory efficiency + link + fixed + rest.

    Each efficiency term is the time the roofline sum gains when that one roof moves from
    spec to achievable (compute first, then memory), so the terms add up exactly.
    """
    t_spec = roofline_time(ledger, spec, gpus)
    t_compute = roofline_time(ledger, spec._replace(peak=achievable.peak), gpus)
    t_both = roofline_time(ledger, achievable, gpus)
    comm_spec = comm_time(ledger, gpus, spec.link_bw, latency)
    comm_ach = comm_time(ledger, gpus, achievable.link_bw, latency)
    terms = (
        Term("roofline at spec peaks", t_spec),
        Term("compute efficiency (achievable matmul peak)", t_compute - t_spec),
        Term("memory efficiency (achievable bandwidth)", t_both - t_compute),
        Term("all-reduce at spec link (latency + bytes)", comm_spec),
        Term("link efficiency (achievable link)", comm_ach - comm_spec),
        Term("fixed cost per kernel (floor)", fixed_cost(ledger, achievable, floor, gpus)),
    )
    return Decomposition(positive(measured, "measured time"), terms)


def predict(ledger: PassLedger, roofs: Roofs, gpus: int, latency: float) -> float:
    """Predicted time: roofline sum on these roofs plus the all-reduces over their link."""
    return roofline_time(ledger, roofs, gpus) + comm_time(ledger, gpus, roofs.link_bw, latency)


def matmul_time(n: int, K: int, N: int, roofs: Roofs, elem_bytes: float = 2) -> float:
    """X[n, K] @ W[K, N]: max(2nKN / P, e (nK + KN + nN) / beta) in seconds."""
    f, d = roofline.matmul_counts(n, K, N, elem_bytes, elem_bytes, elem_bytes)
    return op_time(f, d, roofs.peak, roofs.mem_bw)


def ridge_tokens(K: int, N: int, roofs: Roofs, elem_bytes: float = 2) -> int | None:
    """Smallest n at which X[n, K] @ W[K, N] turns compute-bound on these roofs."""
    ridge = roofline.ridge_point(roofs.peak, roofs.mem_bw)
    return roofline.critical_batch(K, N, ridge, elem_bytes, elem_bytes, elem_bytes)


def flat_until(tokens: Sequence[int], seconds: Sequence[float], tolerance: float = 0.25) -> int:
    """Index of the last measurement within (1 + tolerance) x the first: where the flat part ends.

    A memory-bound matmul's time barely moves with n (the weights dominate the bytes);
    the measured knee lies between this point and the next.
    """
    if len(tokens) != len(seconds) or not tokens:
        raise ValueError("flat_until needs as many times as token counts, at least one")
    tol = non_negative(tolerance, "tolerance")
    last = 0
    for i, t in enumerate(seconds):
        if t > (1 + tol) * seconds[0]:
            break
        last = i
    return last


def modelled_time(
    ledger: PassLedger, roofs: Roofs, gpus: int, latency: float, floor: float
) -> float:
    """Roofline sum + all-reduces + fixed cost per kernel on these roofs, in seconds."""
    return predict(ledger, roofs, gpus, latency) + fixed_cost(ledger, roofs, floor, gpus)


def efficiency_to_match(
    ledger: PassLedger,
    roofs: Roofs,
    measured: float,
    which: str,
    gpus: int = 1,
    latency: float = 0.0,
    floor: float = 0.0,
) -> float | None:
    """Fraction e of roofs.peak (which='peak') or roofs.mem_bw ('mem_bw') at which the
    modelled time equals the measurement; None when no e in (0, 1] reaches it.

    The modelled time falls as e grows, so bisection on e finds the one crossing.
    """
    if which not in ("peak", "mem_bw"):
        raise ValueError(f"which must be 'peak' or 'mem_bw', not {which!r}")
    target = positive(measured, "measured time")

    def at(e: float) -> float:
        scaled = roofs._replace(**{which: getattr(roofs, which) * e})
        return modelled_time(ledger, scaled, gpus, latency, floor)

    if at(1.0) > target:  # even the full roof is too slow
        return None
    lo, hi = 1e-6, 1.0
    if at(lo) < target:
        return None
    for _ in range(200):
        mid = (lo + hi) / 2
        if at(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
