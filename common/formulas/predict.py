"""Predict a measurement from the ledgers, then name the terms of the gap.

Standard library only. A prediction is the speed ledger's time bound on a set of
roofs: the datasheet's (spec) or the measured achievable ones of ``common.hw_specs``.
Conventions:

* each operator takes max(F / P, D / beta); a pass takes the sum (``formulas.transformer``);
* tensor parallelism over g GPUs splits every matmul and attention operator g ways
  (Megatron-style: heads and MLP columns/rows); norms, residual adds, the activation
  and the embedding lookup are repeated on every GPU;
* it costs two all-reduces per layer (after the attention output projection and after
  the MLP down projection), each of the activations [tokens, d_model], read off a
  measured curve of all-reduce time against message size for g GPUs (where a node
  has one; else only the ring's bytes 2 (g - 1) / g * M / beta_link, no latency);
* a kernel never takes less than a fixed floor (launch and scheduling), so each
  operator adds max(0, floor - its roofline time);
* a request is one prefill of the prompt, then one decode step per new token.

Utilisations: MFU = model FLOPs / (time x peak FLOP/s), MBU = bytes the model must
move / (time x memory bandwidth); both against the datasheet unless said otherwise.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from common.formulas import roofline
from common.formulas.transformer import DTypes, PassLedger, decode_ledger, prefill_ledger
from common.hw_specs import Chip
from common.tables.models import Model
from common.tables.validate import non_negative, positive, positive_int

SHARDED_KINDS = ("matmul", "attention")  # split g ways under tensor parallelism
STEPS_AVERAGED = 16  # decode steps evaluated for a request's mean step
Curves = Mapping[int, Sequence[tuple[float, float]]]  # GPUs -> measured (bytes, seconds) points


class Roofs(NamedTuple):
    """One set of roofs: peak FLOP/s, memory and link bandwidth (B/s), and which were measured."""

    label: str
    peak: float
    mem_bw: float
    link_bw: float | None  # None: the table has no link figure (one GPU needs none)
    measured: tuple[str, ...] = ()  # which of 'compute', 'memory', 'link' came from measurements


def spec_roofs(chip: Chip, precision: str) -> Roofs:
    """The datasheet's roofs of `chip` at `precision`."""
    link = None if chip.link_bw_figure is None else chip.link_bw
    return Roofs("spec", chip.peak_flops(precision), chip.mem_bw, link)


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


def per_gpu_times(ledger: PassLedger, roofs: Roofs, gpus: int = 1) -> list[tuple[int, float]]:
    """(count, one run's time on one GPU) per operator, split g ways where SHARDED_KINDS says."""
    g = positive_int(gpus, "GPUs")
    rows = []
    for op, count in ledger.counted():
        share = g if op.kind in SHARDED_KINDS else 1
        t = roofline.lower_bound_time(op.flops / share, op.nbytes / share, roofs.peak, roofs.mem_bw)
        rows.append((count, t))
    return rows


def roofline_time(ledger: PassLedger, roofs: Roofs, gpus: int = 1) -> float:
    """T_pass = sum over operators of count x max(F / (g P), D / (g beta)) (shared kinds / g)."""
    return sum(count * t for count, t in per_gpu_times(ledger, roofs, gpus))


def curve_time(nbytes: float, points: Sequence[tuple[float, float]]) -> float:
    """Read a measured (message bytes, seconds) curve at M bytes, in seconds.

    Linear between neighbouring points; the first point's time below it (latency
    dominates a tiny message); M / M_last x the last time above it (bandwidth-bound).
    """
    m = non_negative(nbytes, "message bytes")
    if m <= points[0][0]:
        return points[0][1]
    for (a, ta), (b, tb) in itertools.pairwise(points):
        if m <= b:
            return ta + (tb - ta) * (m - a) / (b - a)
    return points[-1][1] * m / points[-1][0]


def allreduce_time(
    nbytes: float, gpus: int, link_bw: float | None, curve: Curves | None = None
) -> float:
    """One all-reduce of M bytes over g GPUs, in seconds; 0 for one GPU.

    Read off the measured curve for g GPUs when there is one; otherwise only the ring's
    bytes, 2 (g - 1) / g * M / beta_link, with no latency (none measured to add).
    """
    g = positive_int(gpus, "GPUs")
    if g == 1:
        return 0.0
    if curve and g in curve:
        return curve_time(nbytes, curve[g])
    if link_bw is None:
        raise ValueError(f"an all-reduce over {g} GPUs needs a link bandwidth; the table has none")
    return 2 * (g - 1) / g * non_negative(nbytes, "message bytes") / positive(link_bw, "link B/s")


def comm_time(
    ledger: PassLedger, gpus: int, link_bw: float | None, curve: Curves | None = None
) -> float:
    """Every all-reduce of the pass: 2 L x one of the activations [tokens, d_model]."""
    message = ledger.tokens * ledger.model.d_model * ledger.dtypes.act_bytes
    return 2 * ledger.model.n_layers * allreduce_time(message, gpus, link_bw, curve)


def fixed_cost(ledger: PassLedger, roofs: Roofs, floor: float, gpus: int = 1) -> float:
    """Sum over operators of count x max(0, floor - roofline time), in seconds."""
    f = non_negative(floor, "kernel floor")
    return sum(count * max(0.0, f - t) for count, t in per_gpu_times(ledger, roofs, gpus))


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
    curve: Curves | None,
    floor: float,
) -> Decomposition:
    """Measured = roofline at spec + compute efficiency + memory efficiency + all-reduce
    + fixed cost per kernel + what stays unexplained.

    Each efficiency term is the time the roofline sum gains when that one roof moves from
    spec to achievable (compute first, then memory), so the terms add up exactly.
    """
    t_spec = roofline_time(ledger, spec, gpus)
    t_compute = roofline_time(ledger, spec._replace(peak=achievable.peak), gpus)
    t_both = roofline_time(ledger, achievable, gpus)
    terms = (
        Term("roofline at spec peaks", t_spec),
        Term("compute efficiency (achievable matmul peak)", t_compute - t_spec),
        Term("memory efficiency (achievable bandwidth)", t_both - t_compute),
        Term("all-reduce (measured curve)", comm_time(ledger, gpus, achievable.link_bw, curve)),
        Term("fixed cost per kernel (floor)", fixed_cost(ledger, achievable, floor, gpus)),
    )
    return Decomposition(positive(measured, "measured time"), terms)


def predict(ledger: PassLedger, roofs: Roofs, gpus: int, curve: Curves | None = None) -> float:
    """Predicted time: roofline sum on these roofs plus the pass's all-reduces."""
    return roofline_time(ledger, roofs, gpus) + comm_time(ledger, gpus, roofs.link_bw, curve)


def matmul_time(n: int, K: int, N: int, roofs: Roofs, elem_bytes: float = 2) -> float:
    """X[n, K] @ W[K, N]: max(2nKN / P, e (nK + KN + nN) / beta) in seconds."""
    f, d = roofline.matmul_counts(n, K, N, elem_bytes, elem_bytes, elem_bytes)
    return roofline.lower_bound_time(f, d, roofs.peak, roofs.mem_bw)


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
    ledger: PassLedger, roofs: Roofs, gpus: int, curve: Curves | None, floor: float
) -> float:
    """Roofline sum + all-reduces + fixed cost per kernel on these roofs, in seconds."""
    return predict(ledger, roofs, gpus, curve) + fixed_cost(ledger, roofs, floor, gpus)


def efficiency_to_match(
    ledger: PassLedger,
    roofs: Roofs,
    measured: float,
    which: str,
    gpus: int = 1,
    curve: Curves | None = None,
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
        return modelled_time(ledger, scaled, gpus, curve, floor)

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


class Forecast(NamedTuple):
    """A request's predicted times in seconds: each pass as named terms, and the sums."""

    prefill: dict[str, float]  # the prompt pass
    decode_step: dict[str, float]  # one decode step, the mean over the new tokens
    prefill_s: float
    decode_step_s: float
    total_s: float  # prefill + new tokens x decode step


def pass_terms(
    ledger: PassLedger, roofs: Roofs, gpus: int, curve: Curves | None, floor: float
) -> dict[str, float]:
    """One pass as its terms: roofline on these roofs, all-reduces, fixed cost per kernel."""
    return {
        "roofline": roofline_time(ledger, roofs, gpus),
        "all-reduce": comm_time(ledger, gpus, roofs.link_bw, curve),
        "kernel floor": fixed_cost(ledger, roofs, floor, gpus),
    }


def forecast(
    model: Model,
    roofs: Roofs,
    gpus: int,
    batch: int,
    prompt: int,
    new_tokens: int,
    dtypes: DTypes,
    curve: Curves | None,
    floor: float,
) -> Forecast:
    """Prefill of the prompt, then one decode step per new token with the cache at
    prompt + 1, ..., prompt + new tokens. The decode terms are the mean over those steps:
    every step up to STEPS_AVERAGED of them, else the middle step of each of that many
    equal bins (exact while each term is linear in the cache length)."""
    n = positive_int(new_tokens + 1, "new tokens + 1") - 1  # 0: the prompt pass alone
    pre = pass_terms(prefill_ledger(model, batch, prompt, dtypes), roofs, gpus, curve, floor)
    k = min(n, STEPS_AVERAGED)
    total = dict.fromkeys(pre, 0.0)
    for i in range(k):
        context = prompt + 1 + (2 * i + 1) * n // (2 * k)
        step = pass_terms(decode_ledger(model, batch, context, dtypes), roofs, gpus, curve, floor)
        for key, v in step.items():
            total[key] += v / k  # (no step runs when n = 0)
    t_pre, t_step = sum(pre.values()), sum(total.values())
    return Forecast(pre, total, t_pre, t_step, t_pre + n * t_step)
