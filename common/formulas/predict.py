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
* expert parallelism over N GPUs (``--ep N``) runs as DeepSeek-V3 and DeepEP deploy it:
  attention, dense layers, shared experts, embedding and LM head data-parallel (each GPU
  holds their weights whole and runs its ceil(B / N) sequences), the routed experts
  expert-parallel (each GPU 1 / N of the experts' work over the whole batch); tokens reach
  their experts by dispatch and combine, so no all-reduce runs (``ep_pass``);
* a request of n new tokens is one prefill of the prompt (it yields the first new token),
  then n - 1 decode steps.

Utilisations: MFU = model FLOPs / (time x peak FLOP/s), MBU = bytes the model must
move / (time x memory bandwidth); both against the datasheet unless said otherwise.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from common.formulas import roofline, serving
from common.formulas import transformer as llm
from common.formulas.transformer import DTypes, Op, PassLedger, decode_ledger, prefill_ledger
from common.hw_specs import Chip, bytes_per_elem, get_chip, shipped_chip
from common.tables import engines
from common.tables import measurements as pub
from common.tables.models import Model

SHARDED_KINDS = ("matmul", "attention", "recurrence")  # split g ways under tensor parallelism
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
    """The measured achievable roofs; each one without a published figure, or capped by an
    edited datasheet figure below it, is the spec's (and is not named in `measured`)."""
    found = (chip.achievable_flops(precision), chip.achievable_mem_bw, chip.achievable_link_bw)
    spec = spec_roofs(chip, precision)
    pairs = zip(("compute", "memory", "link"), found, spec[1:4], strict=True)
    measured = tuple(k for k, v, s in pairs if v is not None and v < s)
    peak, bw, link = (v or s for v, s in zip(found, spec[1:4], strict=True))
    return Roofs("achievable", peak, bw, link, measured)


def per_gpu_times(
    ledger: PassLedger, roofs: Roofs, gpus: int = 1, attention_peak: float | None = None,
    mem_bw: Mapping[str, float] | None = None, kv_ways: int | None = None,
    peaks: Mapping[str, float] | None = None) -> list[tuple[int, float]]:  # fmt: skip
    """(count, one run's time on one GPU) per operator, split g ways where SHARDED_KINDS says;
    `attention_peak`: the FLOP/s of the attention operators where it differs from roofs.peak;
    `mem_bw`, `peaks`: the B/s and FLOP/s of the operators they name where not the roofs';
    `kv_ways`: the GPUs the KV cache bytes split over where not g (llm.kv_shards)."""
    split = ((op, count, gpus if op.kind in SHARDED_KINDS else 1) for op, count in ledger.counted())
    bound, bw, named = roofline.lower_bound_time, mem_bw or {}, peaks or {}

    def peak(op: Op) -> float:
        if op.name in named:
            return named[op.name]
        return roofs.peak if attention_peak is None or op.kind != "attention" else attention_peak

    def moved(op: Op, g: int) -> float:  # D / g, the cache's bytes over min(g, kv_ways)
        return (op.nbytes - op.kv_bytes) / g + op.kv_bytes / min(g, kv_ways or g)

    return [(c, bound(op.flops / g, moved(op, g), peak(op), bw.get(op.name, roofs.mem_bw)))
            for op, c, g in split]  # fmt: skip


def roofline_time(ledger: PassLedger, roofs: Roofs, gpus: int = 1) -> float:
    """T_pass = sum over operators of count x max(F / (g P), D / (g beta)) (shared kinds / g)."""
    return sum(count * t for count, t in per_gpu_times(ledger, roofs, gpus))


def _read(x: float, points: Sequence[tuple[float, float]]) -> float | None:
    """y at x, linear between points, the first y below them; None past the last point."""
    if x <= points[0][0]:
        return points[0][1]
    for (a, ya), (b, yb) in itertools.pairwise(points):
        if x <= b:
            return ya + (yb - ya) * (x - a) / (b - a)
    return None


def allreduce_time(
    nbytes: float, gpus: int, link_bw: float | None, curve: Curves | None = None
) -> float:
    """One all-reduce of M bytes over g GPUs, s: the measured curve for g GPUs, else the ring's
    bytes 2 (g - 1) / g * M / beta_link (no latency measured to add); 0 for one GPU."""
    if gpus == 1:
        return 0.0
    if curve and gpus in curve:  # past its last point, M / M_last x that time (bandwidth-bound)
        t, (m_last, t_last) = _read(nbytes, curve[gpus]), curve[gpus][-1]
        return t_last * nbytes / m_last if t is None else t
    if link_bw is None:
        raise ValueError(
            f"an all-reduce over {gpus} GPUs needs a link bandwidth; the table has none"
        )
    return 2 * (gpus - 1) / gpus * nbytes / link_bw


def comm_time(
    ledger: PassLedger, gpus: int, link_bw: float | None, curve: Curves | None = None
) -> float:
    """Every all-reduce of the pass: 2 L x one of the activations [tokens, d_model]."""
    message = ledger.tokens * ledger.model.d_model * ledger.dtypes.act_bytes
    return 2 * ledger.model.n_layers * allreduce_time(message, gpus, link_bw, curve)


def fixed_cost(ledger: PassLedger, roofs: Roofs, floor: float, gpus: int = 1) -> float:
    """Sum over operators of count x max(0, floor - roofline time), in seconds."""
    return sum(count * max(0.0, floor - t) for count, t in per_gpu_times(ledger, roofs, gpus))


def mfu(flops: float, seconds: float, peak: float) -> float:
    """Model FLOPs utilisation: F / (T x P_peak), a fraction."""
    return flops / (seconds * peak)


def mbu(nbytes: float, seconds: float, bw: float) -> float:
    """Memory-bandwidth utilisation: D / (T x beta), a fraction."""
    return nbytes / (seconds * bw)


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


def decompose(ledger: PassLedger, spec: Roofs, achievable: Roofs, measured: float, gpus: int,
              curve: Curves | None, floor: float) -> Decomposition:  # fmt: skip
    """Measured = bound at spec + compute, memory and link efficiency (each the bound's gain
    as that roof alone moves from spec to achievable, in that order, so they add up exactly)
    + all-reduce latency beyond the ring's bytes + fixed cost per kernel + the unexplained."""
    t_spec = bound_time(ledger, spec, gpus)
    t_compute = bound_time(ledger, spec._replace(peak=achievable.peak), gpus)
    t_memory = bound_time(ledger, achievable._replace(link_bw=spec.link_bw), gpus)
    t_both = bound_time(ledger, achievable, gpus)
    ring = comm_time(ledger, gpus, achievable.link_bw, None)
    latency = max(0.0, comm_time(ledger, gpus, achievable.link_bw, curve) - ring)
    terms = (
        Term("bound at spec roofs", t_spec),
        Term("compute efficiency (achievable matmul peak)", t_compute - t_spec),
        Term("memory efficiency (achievable bandwidth)", t_memory - t_compute),
        Term("link efficiency (achievable link)", t_both - t_memory),
        Term("all-reduce latency (measured curve beyond ring bytes)", latency),
        Term("fixed cost per kernel (floor)", fixed_cost(ledger, achievable, floor, gpus)),
    )
    return Decomposition(measured, terms)


def matmul_time(n: int, K: int, N: int, roofs: Roofs, elem_bytes: float = 2) -> float:
    """X[n, K] @ W[K, N]: max(2nKN / P, e (nK + KN + nN) / beta) in seconds."""
    f, d = roofline.gemm_counts(n, K, N, elem_bytes)
    return roofline.lower_bound_time(f, d, roofs.peak, roofs.mem_bw)


def ridge_tokens(K: int, N: int, roofs: Roofs, elem_bytes: float = 2) -> int | None:
    """Smallest n at which X[n, K] @ W[K, N] turns compute-bound on these roofs."""
    ridge = roofline.ridge_point(roofs.peak, roofs.mem_bw)
    return roofline.critical_batch(K, N, ridge, elem_bytes, elem_bytes, elem_bytes)


def flat_until(tokens: Sequence[int], seconds: Sequence[float], tolerance: float = 0.25) -> int:
    """Index of the last measurement within (1 + tolerance) x the first: where the flat part
    ends."""
    rises = (i for i, t in enumerate(seconds) if t > (1 + tolerance) * seconds[0])
    return next(rises, len(seconds)) - 1


def modelled_time(
    ledger: PassLedger, roofs: Roofs, gpus: int, curve: Curves | None, floor: float
) -> float:
    """Roofline sum + all-reduces + fixed cost per kernel on these roofs, in seconds."""
    comm = comm_time(ledger, gpus, roofs.link_bw, curve)
    return roofline_time(ledger, roofs, gpus) + comm + fixed_cost(ledger, roofs, floor, gpus)


def efficiency_to_match(ledger: PassLedger, roofs: Roofs, measured: float, which: str,
                        gpus: int = 1, curve: Curves | None = None,
                        floor: float = 0.0) -> float | None:  # fmt: skip
    """Fraction e of roofs.peak (which='peak') or roofs.mem_bw ('mem_bw') at which the
    modelled time equals the measurement; None when no e in (0, 1] reaches it."""

    def at(e: float) -> float:
        scaled = roofs._replace(**{which: getattr(roofs, which) * e})
        return modelled_time(ledger, scaled, gpus, curve, floor)

    lo, hi = 1e-6, 1.0
    if at(hi) > measured or at(lo) < measured:  # even the full roof too slow, or never slow
        return None
    for _ in range(200):
        lo, hi = (mid, hi) if at(mid := (lo + hi) / 2) > measured else (lo, mid)
    return (lo + hi) / 2


@dataclass(frozen=True)
class EngineRoofs:
    """What an engine's kernels measurably reach, as shares of the datasheet's roofs."""

    gemm: tuple[tuple[int, float], ...]  #: (rows M, share of the spec peak), rising M; (): 1.0
    hbm_share: float  #: share of the spec HBM bandwidth
    floor: float  #: seconds no kernel goes below (the GPU time of the smallest kernels)
    step: float  #: seconds per forward pass (CPU scheduling)
    curve: Curves | None  #: measured all-reduce times (None: ring bytes over the link)
    launch: float = 0.0  #: seconds of CPU launch per kernel the GPU waits for (eager)
    notes: tuple[str, ...] = ()  #: terms left out or carried from another chip, said plainly
    attention_share: float = 1.0  #: attention's peak / the GEMMs' (16-bit beside FP8 GEMMs)
    #: B/s a decode attention of one block per query head walks the cache at, each KV head once
    #: per query head (engines.KV_REREAD; 0: it reads each KV head once, or no walk measured)
    kv_reread: float = 0.0
    kv_copies: bool = False  #: the KV heads copied once per query head in HBM (engines.KV_COPIES)
    #: a weight-reading GEMM's start-up time (s) and its bandwidth's share of the spec's: its
    #: time t0 + D / (share x beta) for D bytes on one GPU (None: at hbm_share like the rest)
    gemv: tuple[float, float] | None = None
    curve_link: float | None = None  #: the link B/s the curve was measured over (as shipped)
    #: B/s one decode-attention block streams where each (sequence, KV head) has one block
    #: over its whole cache (0: the engine splits the cache, or no rate was measured)
    kv_block: float = 0.0
    once_groups: tuple[int, ...] = ()  #: query heads a KV head read once all the same (XQA's)
    once_blocks: float = 0.0  #: ... only where a GPU's KV heads (rounded up) x batch reach this
    fp8_quant: tuple[str, ...] = ()  #: FP8 layers whose input it quantizes apart (quantizations)


def gemm_share(rows: int, points: Sequence[tuple[int, float]]) -> float:
    """Share of the spec peak a GEMM of M rows reaches: linear in M between measured
    points, the first point's share below them, the last above; never above 1."""
    if not points:
        return 1.0
    share = _read(rows, points)
    return min(1.0, points[-1][1] if share is None else share)


EP_TERMS = ("EP dispatch", "EP combine")
#: The forecast's term for attention kernels that run in the 16-bit network while the GEMMs
#: run in FP8 (``engines.FP8_ENGINE_BUILD``): their time at the 16-bit peak less at the GEMMs'.
ATTENTION_TERM = "attention at the 16-bit peak"
#: The forecast's term for decode attention under grouped-query attention (g query heads to a
#: KV head) that reads each KV head once per query head (``engines.KV_PER_HEAD``, or a group
#: its XQA does not take): no faster than g x its KV bytes at the measured walk kv_reread
#: (prefill reads no cache this way: 0); or that copies it g times (``engines.KV_COPIES``):
#: 2 g x its KV bytes more through HBM (the copy reads it, writes g; attention reads g, not 1).
#: None for g = 1.
KV_TERM = "KV re-read per query head"
#: The forecast's term for a KV cache split over fewer shards than GPUs (llm.kv_shards): a
#: latent cache, or fewer KV heads than GPUs, which each GPU reads whole (its heads' share).
SHARED_KV_TERM = "KV cache read on every GPU"
#: The forecast's term for a decode attention that gives each (sequence, KV head) one thread
#: block over its whole cache (``engines.Engine.one_block``): no block streams faster than
#: the measured kv_block B/s, so a layer takes at least its cache / (blocks x kv_block).
BLOCK_TERM = "one block per KV head"
#: The forecast's term for the kernels an engine runs to quantize an FP8 layer's input
#: (``engines.FP8_QUANT``), each no faster than the floor.
QUANT_TERM = "FP8 input quantization"
#: Matmuls an FP8 checkpoint runs in 16 bits: the router (its ReplicatedLinear built with
#: quant_config=None, as in vLLM's qwen2_moe.py and qwen3_next.py) and the LM head.
UNQUANTIZED = ("router", "LM head")


def quantizations(ledger: PassLedger, eng: EngineRoofs, at: Roofs) -> list[tuple]:
    """((kernel, count), (count, its time at `at`)) of each input quantization `eng` runs
    apart (``engines.FP8_QUANT``): "linear", one before each run of adjacent FP8 matmuls on
    one input (Q, K and V; gate and up); "experts", one before each of a fused MoE's two
    GEMMs. Each reads the input's n K elements at the activations' bytes and writes them at
    FP8's, whole on every GPU."""
    dt, out, last = ledger.dtypes, [], None
    for op, count in ledger.counted():
        expert = op.name.startswith("expert ")
        kept = op.kind != "matmul" or op.name in UNQUANTIZED or not op.weight_bytes
        fp8 = (dt.experts or dt.weights) if expert else dt.weights
        if kept or fp8 != "fp8" or ("experts" if expert else "linear") not in eng.fp8_quant:
            last = None
        elif last != (op.inputs, count):  # not the input the matmul before it read
            q = Op(f"{op.name} input quantization", "elementwise", op.inputs,
                   act_bytes=op.inputs * (dt.act_bytes + bytes_per_elem("fp8")))  # fmt: skip
            t = roofline.lower_bound_time(q.flops, q.nbytes, at.peak, at.mem_bw)
            out, last = [*out, ((q, count), (count, t))], (op.inputs, count)
    return out


@dataclass(frozen=True)
class EPNetwork:
    """The links a mixture's dispatch and combine cross under expert parallelism over `ep` GPUs."""

    ep: int  #: GPUs the routed experts spread over
    node_gpus: int  #: GPUs a node, on its node link
    node_bw: float  #: the node link, B/s
    net_bw: float  #: the network card each GPU has, B/s
    latency: float  #: fixed, per call, s
    dispatch_bytes: float  #: bytes per element sent
    combine_bytes: float = 2.0  #: bytes per element returned (bf16)
    notes: tuple[str, ...] = ()  #: where each figure comes from, for the output


def deepep_latency() -> float:
    """Per-call latency, s: DeepEP's low-latency dispatch at the calibration EP size minus
    its bytes over the H800's NVLink (calibration; the other sizes and every combine
    only check it: ``deepep_check``)."""
    run = next(r for r in pub.DEEPEP_LOW_LATENCY if r.ep == pub.DEEPEP_CALIBRATION_EP)
    net = deepep_network(run.ep, 0.0)
    return run.dispatch.seconds - ep_call(pub.DEEPEP_TOKENS, net, "dispatch", pub.DEEPEP_HIDDEN,
                                          pub.DEEPEP_TOPK)  # fmt: skip


def deepep_network(ep: int, latency: float) -> EPNetwork:
    """The links of DeepEP's published tables: H800 nodes of 8 on NVLink, one CX7 per GPU."""
    return EPNetwork(ep, pub.DEEPEP_NODE_GPUS, pub.H800_NVLINK.value, pub.CX7_IB.value,
                     latency, pub.DEEPEP_DISPATCH_BYTES, pub.DEEPEP_COMBINE_BYTES)  # fmt: skip


def ep_call(tokens: float, net: EPNetwork, which: str, d_model: int, k: int) -> float:
    """One dispatch or combine of `tokens` tokens from one GPU, in seconds."""
    b = net.dispatch_bytes if which == "dispatch" else net.combine_bytes
    return serving.all_to_all_time(tokens, d_model * b, k, net.ep, net.node_gpus, net.node_bw,
                                   net.net_bw, net.latency)  # fmt: skip


def deepep_check() -> list[tuple[str, float, float, bool]]:
    """(label, predicted s, measured s, calibration?) for every DeepEP low-latency call."""
    lat = deepep_latency()
    rows = []
    for r in pub.DEEPEP_LOW_LATENCY:
        net = deepep_network(r.ep, lat)
        for which, m in (("dispatch", r.dispatch), ("combine", r.combine)):
            t = ep_call(pub.DEEPEP_TOKENS, net, which, pub.DEEPEP_HIDDEN, pub.DEEPEP_TOPK)
            calib = which == "dispatch" and r.ep == pub.DEEPEP_CALIBRATION_EP
            rows.append((f"{which}, EP {r.ep}", t, m.seconds, calib))
    return rows


def ep_network(chip: Chip, ep: int, dispatch_bytes: float) -> EPNetwork:
    """Expert parallelism on `chip`: its link (the hardware table's roof) inside its nodes
    (all N GPUs where the table draws none), DeepEP's CX7 card between them, DeepEP's
    calibrated per-call latency."""
    latency, node, link = deepep_latency(), chip.node or ep, f"the {chip.name}'s link roof"
    where = (f"{node} GPUs a node on {link}, {pub.CX7_IB.what} between nodes" if ep > node
             else f"all {ep} GPUs in one node on {link}")  # fmt: skip
    notes = (
        f"EP dispatch and combine: {where}, {latency * 1e6:,.0f} µs a call (DeepEP's EP-8 "
        "dispatch on H800s less its bytes; checked on its other 11 latencies); attention "
        "data-parallel, so no all-reduce",)  # fmt: skip
    return EPNetwork(ep, node, chip.link_bw, pub.CX7_IB.value, latency, dispatch_bytes, 2.0,
                     notes)  # fmt: skip


def ep_pass(ledger_at: Callable[[int], PassLedger], batch: int, ep: int) -> PassLedger:
    """The pass the busiest of N expert-parallel GPUs runs (DeepSeek-V3's deployment):
    every operator but the routed experts for its ceil(B / N) sequences, whole weights
    (data-parallel), and 1 / N of the routed experts' operators over all B sequences (their
    FLOPs, the weights of the experts the batch reaches, their rows). Run on one GPU."""
    local, whole = ledger_at(-(-batch // ep)), ledger_at(batch)

    def mix(mine: Sequence[Op], all_: Sequence[Op]) -> tuple[Op, ...]:  # experts: 1 / N of all
        return tuple(Op(w.name, w.kind, w.flops / ep, w.weight_bytes / ep, w.act_bytes / ep,
                        w.kv_bytes / ep) if w.name.startswith("expert ") else o
                     for o, w in zip(mine, all_, strict=True))  # fmt: skip

    variants = tuple((mix(a, b), c) for (a, c), (b, _) in zip(local.variants, whole.variants,
                                                               strict=True))  # fmt: skip
    return dataclasses.replace(local, layer=mix(local.layer, whole.layer), variants=variants)


def _laid_out(at: Callable[[int], PassLedger], req: Request, spec: Roofs, eng: EngineRoofs,
              ep: EPNetwork | None) -> dict[str, float]:  # fmt: skip
    """forecast_terms of a request's pass as it is laid out: the whole pass over its g
    tensor-parallel GPUs, or under `ep` the busiest GPU's ``ep_pass`` on one."""
    if ep is None:
        return forecast_terms(at(req.batch), spec, eng, req.gpus)
    return forecast_terms(ep_pass(at, req.batch, ep.ep), spec, eng, 1, ep)


def bound_time(ledger: PassLedger, roofs: Roofs, gpus: int = 1) -> float:
    """The roofline bound of a pass: sum of max(F / P, D / beta) + the all-reduces' ring bytes
    2 (g - 1) / g * M / beta_link, no latency. No implementation beats it on these roofs."""
    return roofline_time(ledger, roofs, gpus) + comm_time(ledger, gpus, roofs.link_bw, None)


def measured_shares(ledger: PassLedger, spec: Roofs, eng: EngineRoofs, gpus: int
                    ) -> tuple[Roofs, dict[str, float], dict[str, float]]:  # fmt: skip
    """The spec roofs at the engine's measured shares, under which each kernel takes
    max(F / (e(M) P), D / (s beta)) per GPU share (e(M) the GEMM share at the pass's rows, s
    the HBM share); by name, each weight-reading GEMM's B/s that makes it t0 + D / beta, and
    each routed expert matmul's e(M) P at its own rows, M = F b / (2 W) (its tokens over the
    experts they reach: n k / E_touched)."""
    e, s = gemm_share(ledger.tokens, eng.gemm), min(1.0, eng.hbm_share)
    bw, peaks, b = {}, {}, ledger.dtypes.e_bytes
    for op in (op for op, _ in ledger.counted() if op.kind == "matmul" and op.weight_bytes):
        if eng.gemv:
            d = op.nbytes / gpus
            bw[op.name] = d / (eng.gemv[0] + d / (eng.gemv[1] * spec.mem_bw))
        if op.name.startswith("expert "):
            rows = round(op.flops * b / (2 * op.weight_bytes))
            peaks[op.name] = gemm_share(rows, eng.gemm) * spec.peak
    return spec._replace(peak=e * spec.peak, mem_bw=s * spec.mem_bw), bw, peaks


def operator_forecast(ledger: PassLedger, spec: Roofs, eng: EngineRoofs, gpus: int = 1
                      ) -> dict[str, float]:  # fmt: skip
    """One run of each operator on one GPU as the forecast counts it, s, by name (one in
    several kinds of layer: its last): its time at ``measured_shares``, no less than the floor."""
    shares, bw, peaks = measured_shares(ledger, spec, eng, gpus)
    times = per_gpu_times(ledger, shares, gpus, None, bw, peaks=peaks)
    ops = [*zip(ledger.counted(), times, strict=True), *quantizations(ledger, eng, shares)]
    return {op.name: max(eng.floor, t) for (op, _), (_, t) in ops}


def forecast_terms(
    ledger: PassLedger, spec: Roofs, eng: EngineRoofs, gpus: int, ep: EPNetwork | None = None
) -> dict[str, float]:
    """One pass, s: the bound at spec roofs + each named term of the gap (each >= 0, so never
    below the bound); under `ep`, the dispatch and combine of each MoE layer's tokens too."""
    shares, bw, peaks = measured_shares(ledger, spec, eng, gpus)
    kernels = per_gpu_times(ledger, shares, gpus, None, bw, peaks=peaks)
    t_kernels = sum(c * t for c, t in kernels)
    at = eng.attention_share * shares.peak  # attention in a 16-bit network beside FP8 GEMMs
    if eng.attention_share != 1.0:
        kernels = per_gpu_times(ledger, shares, gpus, at, bw, peaks=peaks)
    slower = sum(c * t for c, t in kernels) - t_kernels
    attention = {} if eng.attention_share == 1.0 else {ATTENTION_TERM: slower}
    m, g = ledger.model, ledger.model.n_heads // ledger.model.n_kv_heads
    whole = {}
    if (ways := llm.kv_shards(m, gpus)) < gpus:  # each shard of the cache read on g / ways GPUs
        held = per_gpu_times(ledger, shares, gpus, at, bw, ways, peaks)
        whole[SHARED_KV_TERM] = sum(c * t for c, t in held) - sum(c * t for c, t in kernels)
        kernels = held
    once = g in eng.once_groups and -(-m.n_kv_heads // gpus) * ledger.batch >= eng.once_blocks
    walks = eng.kv_reread if g > 1 and not once else 0.0
    walk = walks if ledger.phase == "decode" else 0.0
    read = [(c, max(t, g * op.kv_bytes / gpus / walk) if walk and op.kind == "attention" else t)
            for (op, _), (c, t) in zip(ledger.counted(), kernels, strict=True)]  # fmt: skip
    extra, was = sum(c * t for c, t in read) - sum(c * t for c, t in kernels), read
    if eng.kv_block:  # in decode, a layer's blocks each stream no faster than kv_block
        per, decode = ledger.batch * m.n_kv_heads * eng.kv_block, ledger.phase == "decode"
        read = [(c, max(t, op.kv_bytes / per) if decode and op.kind == "attention" else t)
                for (op, _), (c, t) in zip(ledger.counted(), was, strict=True)]  # fmt: skip
    slow = sum(c * t for c, t in read) - sum(c * t for c, t in was)
    block = {BLOCK_TERM: slow} if eng.kv_block else {}
    copies = eng.kv_copies * 2 * g * ledger.kind_total("attention", "kv_bytes") / gpus
    seconds = extra + copies / shares.mem_bw
    reread = {KV_TERM: seconds} if walks or (g > 1 and eng.kv_copies) else {}
    at = eng.curve_link if eng.curve and gpus in eng.curve and eng.curve_link else spec.link_bw
    ring = comm_time(ledger, gpus, at, None)  # the bytes on the measured curve's own link
    measured = comm_time(ledger, gpus, spec.link_bw, eng.curve)
    ways = zip(EP_TERMS, ("dispatch", "combine"), strict=True) if ep else ()
    quant = quantizations(ledger, eng, shares)
    exchange = {  # under `ep`: each MoE layer sends its tokens to their experts and back
        t: m.moe_layers * ep_call(ledger.tokens, ep, w, m.d_model, m.experts_per_token)
        for t, w in ways}  # fmt: skip
    return {
        "bound (spec roofs)": bound_time(ledger, spec, gpus),
        "measured GEMM and HBM shares": max(0.0, t_kernels - roofline_time(ledger, spec, gpus)),
        **attention, **whole, **reread, **block,
        "all-reduce beyond ring bytes": max(0.0, measured - ring),
        "kernel floor": sum(c * max(0.0, eng.floor - t) for c, t in read),
        **({QUANT_TERM: sum(c * max(eng.floor, t) for _, (c, t) in quant)} if quant else {}),
        "CPU launch per kernel": sum(c for c, _ in kernels) * eng.launch,
        "fixed cost per step": eng.step, **exchange,
    }  # fmt: skip


class Forecast(NamedTuple):
    """A request's times in seconds: each pass as named terms, the sums, and the bound."""

    prefill: dict[str, float]  # the prompt pass
    decode_step: dict[str, float]  # one decode step, the mean over the n - 1 steps
    prefill_s: float
    decode_step_s: float
    total_s: float  # prefill + (new tokens - 1) x decode step
    bound_prefill_s: float  # the roofline bound at spec roofs (the first term of each pass)
    bound_decode_step_s: float
    bound_s: float  # the whole request's: bound_prefill_s + (n - 1) x bound_decode_step_s


@dataclass(frozen=True, kw_only=True)
class Request:
    """One request: `batch` sequences of `prompt` tokens each generating `new_tokens`, on
    `model` split over `gpus` GPUs (tensor parallel; expert-parallel when the forecast is
    given an ``EPNetwork``), stored in `dtypes`."""

    model: Model
    gpus: int = 1
    batch: int = 1
    prompt: int
    new_tokens: int
    dtypes: DTypes = field(default_factory=DTypes)


def forecast(req: Request, spec: Roofs, eng: EngineRoofs, ep: EPNetwork | None = None) -> Forecast:
    """Prefill (it yields the first new token), then n - 1 decode steps at caches prompt + 1,
    ..., prompt + n - 1, as FasterTransformer (ParallelGpt.cc) and vLLM's benchmark_latency
    count n new tokens; the decode terms are their mean: every step up to STEPS_AVERAGED,
    else the middle step of that many equal bins (exact while terms are linear in the cache)."""
    m, dt = req.model, req.dtypes
    steps = max(0, req.new_tokens - 1)  # 0 new tokens or 1: the prompt pass alone
    pre = _laid_out(lambda n: prefill_ledger(m, n, req.prompt, dt), req, spec, eng, ep)
    k = min(steps, STEPS_AVERAGED)
    total = dict.fromkeys(pre, 0.0)
    for i in range(k):
        context = req.prompt + 1 + (2 * i + 1) * steps // (2 * k)
        step = _laid_out(lambda n, s=context: decode_ledger(m, n, s, dt), req, spec, eng, ep)
        for key, v in step.items():
            total[key] += v / k  # (no step runs when n <= 1)
    t_pre, t_step = sum(pre.values()), sum(total.values())
    bound = next(iter(pre))
    return Forecast(pre, total, t_pre, t_step, t_pre + steps * t_step, pre[bound], total[bound],
                    pre[bound] + steps * total[bound])  # fmt: skip


class Speculation(NamedTuple):
    """A request under speculative decoding, in seconds: the draft's cost per token and its
    source, the verify pass, tokens per verify step and the request's total."""

    draft_step_s: float  # one draft token
    draft_prefill_s: float  # the draft model's prompt pass (0 for a draft head)
    verify_step_s: float  # one target pass over K + 1 tokens a sequence
    tokens_per_step: float  # E = (1 - a^(K + 1)) / (1 - a), at most the n - 1 to generate
    total_s: float  # prefill + draft prefill + (n - 1) / E x (K draft + verify)
    speedup: float  # decode steps' time without speculation over with it
    draft: str  # what the draft is and where its cost comes from


EAGLE_HEAD = (
    "a draft head of one decoder layer on the target's features (EAGLE: Li et al. 2024, "
    "arXiv 2401.15077: an FC layer and one decoder layer, the target's embedding and LM head "
    "reused): each draft token costs 1 / L of a target decode step")  # fmt: skip


def speculate(req: Request, spec: Roofs, eng: EngineRoofs, draft_len: int, acceptance: float,
              draft: Model | None = None, ep: EPNetwork | None = None) -> Speculation:  # fmt: skip
    """The request of ``forecast`` with K = draft_len draft tokens per verify step, each
    accepted with probability a: the n - 1 tokens after the prefill take (n - 1) / E(a, K)
    verify steps of K draft tokens and one target pass over K + 1 tokens a sequence. Each
    pass is taken at the mean cache, prompt + n / 2 (the terms are linear in the cache).
    `draft`: a separate draft model on the same GPUs (its prefill counted); None: EAGLE_HEAD.
    """
    model, batch, gpus, prompt, dt = req.model, req.batch, req.gpus, req.prompt, req.dtypes
    plain = forecast(req, spec, eng, ep)
    ctx = min(prompt + max(1, req.new_tokens // 2), model.max_context - draft_len)

    def seconds(at: Callable[[int], PassLedger]) -> float:
        return sum(_laid_out(at, req, spec, eng, ep).values())

    verify_s = seconds(lambda b: llm.verify_ledger(model, b, draft_len + 1, ctx + draft_len, dt))
    if draft is None:
        draft_s, draft_pre, what = plain.decode_step_s / model.n_layers, 0.0, EAGLE_HEAD
        if not plain.decode_step_s:  # one new token: no decode step to take 1 / L of
            draft_s = seconds(lambda b: decode_ledger(model, b, prompt + 1, dt)) / model.n_layers
    else:  # a dense draft: tensor parallel, or data-parallel beside expert-parallel experts
        d_batch, d_gpus = (batch, gpus) if ep is None else (-(-batch // ep.ep), 1)

        def cost(led: PassLedger) -> float:
            return sum(forecast_terms(led, spec, eng, d_gpus).values())

        draft_s = cost(decode_ledger(draft, d_batch, min(ctx, draft.max_context), dt))
        draft_pre = cost(prefill_ledger(draft, d_batch, min(prompt, draft.max_context), dt))
        what = f"the draft model {draft.name}, its decode step on the same GPUs"
    steps = max(0, req.new_tokens - 1)
    e = serving.expected_tokens(acceptance, draft_len)
    e = min(e, float(steps)) if steps else e  # no more tokens a step than are left
    spec_s = steps / e * (draft_len * draft_s + verify_s)  # at least one verify when steps
    speedup = steps * plain.decode_step_s / spec_s if steps else 1.0
    return Speculation(draft_s, draft_pre, verify_s, e, plain.prefill_s + draft_pre + spec_s,
                       speedup, what)  # fmt: skip


def request_bound(req: Request, roofs: Roofs, ep: EPNetwork | None = None) -> float:
    """The roofline bound of a whole request on these roofs, in seconds (no engine terms;
    under `ep`, its layout without dispatch and combine)."""
    return forecast(req, roofs, EngineRoofs((), 1.0, 0.0, 0.0, None), ep).bound_s


def engine_dtypes(precision: str, engine: str) -> DTypes:
    """What `engine` stores at `precision`: weights in it; activations in it at 2 bytes or
    more, else 16-bit (``engines.LOW_PRECISION_ACTIVATIONS``: FP8 GEMMs in a 16-bit network),
    and so the embedding and LM head (``engines.QUANTIZED_BODY``); the KV cache as the
    activations unless the engine keeps it in the weights' format."""
    wide = engines.LOW_PRECISION_ACTIVATIONS
    narrow = bytes_per_elem(precision) < bytes_per_elem(wide)
    act = wide if narrow else precision
    kv = precision if engines.ENGINES[engine].low_precision_cache else act
    return DTypes(precision, kv, act, act if narrow else "")


def compute_precision(chip: Chip, precision: str) -> str:
    """The matmuls' precision: `precision` where `chip` has its peak or it is wider than 16
    bits, else the 16-bit network's (engines.WEIGHT_ONLY: fp16 at bf16's rate, int4 widened)."""
    wide = engines.LOW_PRECISION_ACTIVATIONS
    fits = bytes_per_elem(precision) <= bytes_per_elem(wide)
    return wide if fits and precision not in chip.precisions else precision


def engine_roofs(chip: Chip, engine: str, precision: str, gpus: int = 1) -> EngineRoofs:
    """The measured terms of `engine` on `chip` over g = `gpus` GPUs (``tables.engines``): the
    GEMM shares at the largest measured shard degree <= g and the line t0 + D / beta of a
    weight read, each of the datasheet as shipped (an edit moves the forecast); a term nobody
    measured on this chip is left out or falls back to the achievable roof, as `notes` says.
    Beside sub-16-bit GEMMs, attention runs at the 16-bit network's peak (attention_share);
    only FP8 GEMMs quantize their input (fp8_quant: weight-only FP8 quantizes none)."""
    eng = engines.ENGINES[engine]
    terms = engines.CHIP_TERMS.get(chip.key)
    spec = spec_roofs(chip, precision)
    dtypes = engine_dtypes(precision, engine)  # attention in its activations (FP8_ENGINE_BUILD)
    notes = [] if terms is None or not terms.note else [terms.note]
    gemv: tuple[float, float] | None = None
    if terms is None:  # the achievable roofs' shares (hw_specs: of the datasheet as shipped)
        ach = achievable_roofs(chip, precision)
        gemm = ((1, ach.peak / spec.peak),)
        hbm, floor, curve = ach.mem_bw / spec.mem_bw, 0.0, None
        attention = achievable_roofs(chip, dtypes.activations).peak / ach.peak
        notes.append(
            f"no per-shape GEMM or kernel-floor measurement on the {chip.name}: flat "
            "achievable roofs, no kernel floor, all-reduce as ring bytes (no latency)")  # fmt: skip
    else:
        home = shipped_chip(get_chip(terms.measured_on))  # shares of the datasheet measured on
        peak_bf16 = home.peak_flops("bf16")
        # measured in bf16; at another precision, scaled by the ratio of the best-shape
        # matmul's shares at the two precisions (hw_specs' MAMF figures), where both exist
        scale = 1.0
        mamf, mamf_bf16 = home.achievable_flops(precision), home.achievable_flops("bf16")
        if precision != "bf16" and mamf and mamf_bf16:
            scale = (mamf / home.peak_flops(precision)) / (mamf_bf16 / peak_bf16)
        if precision != "bf16":  # the weight-read line too: its bytes at `precision`
            notes.append(f"GEMM shares and the weight-read line measured in bf16, used at "
                         f"{precision}{' unscaled' * (scale == 1.0)}")  # fmt: skip
        # attention at the activations' peak, at the GEMM's measured bf16 share (unscaled)
        attention = chip.peak_flops(dtypes.activations) / (scale * spec.peak)
        degree = max(d for d in terms.gemm if d <= max(1, gpus))
        if degree != gpus:
            notes.append(f"GEMM shares measured at {degree}-way shards, used at {gpus}")
        t0, beta = (t.value for t in terms.gemv)  # a one-row GEMM: t0 + D / beta
        k, n_g = engines.GEMM_K, engines.GEMM_N // degree
        counts = [roofline.gemm_counts(m, k, n_g) for m in engines.GEMM_ROWS]
        ridge = roofline.ridge_point(peak_bf16, beta)
        gemm = tuple(  # the rows where the GEMM is compute-bound: F / D past the ridge P / beta
            (m, scale * f / (t.value * peak_bf16))
            for m, t, (f, d) in zip(engines.GEMM_ROWS, terms.gemm[degree], counts, strict=True)
            if roofline.bound_of(roofline.intensity(f, d), ridge) == "compute")  # fmt: skip
        hbm = beta / home.mem_bw  # what a kernel streams: weights' beyond t0, the cache, the rest
        if chip.key in engines.HBM_SHARE_CALIBRATION:  # the calibrated one-GPU share, scaled
            # by the measured loss of a g-way shard of the gate+up GEMM at one row
            one, own = (terms.gemm[g][0].value * g for g in (1, degree))
            hbm = engines.HBM_SHARE_CALIBRATION[chip.key].value * one / own
        else:
            mine = shipped_chip(chip)  # shares carried from another chip: no faster than it streams
            cap = (mine.achievable_mem_bw or mine.mem_bw) / mine.mem_bw
            if terms.measured_on != chip.key and hbm > cap:
                hbm = cap
                notes.append(f"HBM shares capped at the {chip.name}'s own stream ({cap:.1%})")
            gemv = (t0, min(1.0, hbm))
        floor = sum(t.value for t in terms.small_kernels) / len(terms.small_kernels)
        curve = terms.allreduce  # the node's NCCL curve, unless the engine has its own kernel:
        if eng.allreduce and gpus > 1 and chip.key not in eng.allreduce_chips:
            chips = ", ".join(get_chip(k).name for k in eng.allreduce_chips)
            notes.append(engines.NO_OWN_ALLREDUCE.format(chips=chips))
        elif eng.allreduce and gpus > 1:  # its points, then NCCL's past its largest size
            if carried := eng.allreduce_chips[chip.key]:
                notes.append(carried.format(chip=chip.name))
            node, curve = curve or {}, {}
            for g, own_terms in eng.allreduce.items():
                own = tuple(zip(engines.ALLREDUCE_BYTES, (t.value for t in own_terms), strict=True))
                curve[g] = own + tuple(p for p in node.get(g, ()) if p[0] > own[-1][0])
    notes += [
        n for t, n in ((eng.launch, engines.NO_LAUNCH), (eng.step, engines.NO_STEP)) if t is None
    ]
    if precision == "fp8" and "linear" not in eng.fp8_quant:
        what = "linear layers outside a fused MoE" if eng.fp8_quant else "layers"
        notes.append(engines.FP8_QUANT_NONE.format(what=what))
    launch, step = (0.0 if t is None else t.value for t in (eng.launch, eng.step))
    link = None if terms is None or home.link_bw_figure is None else home.link_bw  # the curve's

    def rate(by_chip: Mapping, term: str, what: str) -> float:  # B/s, from s a token a head
        if (t := by_chip.get(chip.key, {}).get(dtypes.kv)) is None:
            notes.append(f"{term}: no {what} measured for the {dtypes.kv} cache on the "
                         f"{chip.name} (left out)")  # fmt: skip
            return 0.0
        return 2 * engines.BLOCK_MODEL.d_head * bytes_per_elem(dtypes.kv) / t.value

    per_head, sms = eng.kv_reads == engines.KV_PER_HEAD or eng.once_groups, 0.0
    if eng.once_groups and not (sms := engines.XQA_SMS.get(chip.key, 0.0)):
        notes.append(f"{KV_TERM}: no SM count for the {chip.name}, so XQA at every batch")
    walk = rate(engines.KV_REREAD, KV_TERM, "walk") if per_head else 0.0
    block = rate(engines.KV_BLOCK, BLOCK_TERM, "block's stream") if eng.one_block else 0.0
    return EngineRoofs(gemm, min(1.0, hbm), floor, step, curve, launch, tuple(notes), attention,
                       walk, eng.kv_reads == engines.KV_COPIES, gemv, link, block,
                       eng.once_groups, sms / engines.XQA_MIN_BLOCK_FACTOR,
                       eng.fp8_quant * (precision == "fp8"))  # fmt: skip
