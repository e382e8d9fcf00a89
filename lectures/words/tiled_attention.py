"""Lecture 10's words: the IO model of tiled attention (Part 1) and both kernels here (Part 2),
from one record per section; every comparison decided by ``common.present.claims``."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from common.formulas.attention_io import Blocks
from common.formulas.thresholds import Crossover
from common.present import console
from common.present.claims import change, direction, listing, n_of_m, side, speed, than
from common.present.console import fmt_bytes, fmt_kib, fmt_num, fmt_rate, fmt_ratio, fmt_time
from common.present.display import Observations, Table
from common.present.say import say

KINDS = ("naive", "tiled")  # the two kernels, in the order of the tables
_blocks = "{0.rows} x {0.cols}".format  # a block shape: '64 x 128'


def _verdict(i: float, ridge: float, seconds: float) -> str:
    """'memory, 89.0 µs': which roof binds and the time bound."""
    return f"{side(i, ridge).split('-')[0]}, {fmt_time(seconds)}"


@dataclass(frozen=True)
class Gpu:  # a GPU as Part 1 uses it: its bf16 ridge and its shared memory per SM
    name: str
    ridge: float  # bf16 peak / bandwidth, FLOP/byte
    smem: float | None  # bytes


@dataclass(frozen=True)
class Extremes:  # section 1: the naive kernel and the ideal minimum for one head
    n: int
    d_head: int
    flops: float  # F of one head
    gpus: Sequence[Gpu]  # the article's A100 first
    kernels: Mapping[str, tuple[float, float, Sequence[float]]]  # name: D, I, bound on each GPU
    kv_bytes: float  # K and V of the head


def _sides(i: float, gpus: Sequence[Gpu]) -> str:
    """'memory-bound on both chips', or each chip's side when they differ."""
    sides = [side(i, g.ridge) for g in gpus]
    if len(set(sides)) == 1:
        return f"{sides[0]} on {'both chips' if len(gpus) == 2 else 'every chip'}"
    return ", ".join(f"{s} on the {g.name}" for s, g in zip(sides, gpus, strict=True))


def extremes(r: Extremes) -> tuple[Table, Observations]:
    """The two extremes' F, D, I and bound on each GPU, and what they say."""
    head = ["kernel", "F", "D", "I (FLOP/B)", *(f"{g.name}, I* {g.ridge:.1f}" for g in r.gpus)]
    rows = [
        [name, console.fmt_flops(r.flops), fmt_bytes(d), f"{i:.1f}"]
        + [_verdict(i, g.ridge, t) for g, t in zip(r.gpus, bounds, strict=True)]
        for name, (d, i, bounds) in r.kernels.items()]  # fmt: skip
    title = f"One head, N = {r.n:,}, d_h = {r.d_head}, bf16: the bound and T >= max(F/P, D/beta)"
    (d_naive, i_naive, t_naive), (d_ideal, i_ideal, t_ideal) = r.kernels.values()
    ms = functools.partial(fmt_time, unit="ms")
    t0, t1 = t_naive[0], t_ideal[0]
    falls = f"On the {r.gpus[0].name} the time bound {change(t0, t1, ms)}"
    falls += f" ({speed(t0, t1, 1, ms)})" if direction(t0, t1, ms) else ""
    items = [
        f"Naive attention moves {fmt_bytes(d_naive)} at I = {i_naive:.1f} FLOP/byte: "
        f"{_sides(i_naive, r.gpus)}. The ideal moves {fmt_bytes(d_ideal)} "
        f"(1/{d_naive / d_ideal:,.1f} of the bytes, the same F) at I = {i_ideal:.0f}: "
        f"{_sides(i_ideal, r.gpus)}.",
        falls + ": the comparison the article makes.",
        f"The ideal assumes that nothing is ever read twice, as if K and V ({fmt_kib(r.kv_bytes)} "
        "at this size) stayed on chip for every query. One SM's shared memory is a few hundred "
        "KiB. The rest of Part 1 asks what a finite on-chip memory gives."]  # fmt: skip
    return Table(head, rows, title), Observations(items)


class Plan(NamedTuple):  # one chip's blocks from its shared memory, and what they move
    gpu: Gpu
    blocks: Blocks
    query_blocks: int  # T_r = ceil(N / B_r)
    reads: int  # R: how often K and V are each read
    traffic: float  # D, bytes
    intensity: float  # F / D
    seconds: float  # max(F / P, D / beta)
    needed: float | None  # the smallest M_sm reaching the ridge (None: none does)


@dataclass(frozen=True)
class Schedule:  # section 2: every chip's plan; the sentences name two of them
    n: int
    d_head: int
    plans: Sequence[Plan]
    named: Sequence[Plan]  # the H100's and the A100's
    naive_bytes: float
    ideal_bytes: float


def schedule(r: Schedule) -> tuple[Table, Table, Observations]:
    """Each chip's blocks, their traffic and bound; the reach of each named chip."""
    sizes, bounds = [], []
    for p in r.plans:
        g, i, on_chip = p.gpu, p.intensity, fmt_kib(p.blocks.on_chip_bytes)
        sizes.append([g.name, fmt_kib(g.smem), _blocks(p.blocks), on_chip, p.query_blocks])
        verdict, need = _verdict(i, g.ridge, p.seconds), fmt_kib(p.needed) if p.needed else "never"
        bounds.append([g.name, fmt_bytes(p.traffic), f"{i:.1f}", f"{g.ridge:.1f}", verdict, need])
    title = f"FlashAttention-2's blocks in each chip's shared memory (N = {r.n:,}, "
    title += f"d_h = {r.d_head})"
    note = "bf16. U is the footprint of one inner step, T_r the number of query blocks."
    blocks = Table(["chip", "M_sm", "Br x Bc", "U", "T_r"], sizes, title, note)
    note = "The last column is the smallest M_sm whose blocks reach the chip's ridge point I*."
    head = ["chip", "D", "I", "I*", "bound", "M_sm for I*"]
    bounds = Table(head, bounds, "Their traffic, intensity and bound", note)
    h, a = r.named
    reads = "once, the ideal minimum" if h.reads == 1 else f"R = {h.reads} times each"
    # which of the named chips reach their ridge from shared memory alone, and what it takes
    reach = [p.gpu.name for p in r.named if side(p.intensity, p.gpu.ridge) == "compute-bound"]
    alone = {0: "Neither reaches its ridge", len(r.named): "Both reach their ridge"}.get(
        len(reach), f"Only the {listing(reach)} reaches its ridge")  # fmt: skip
    alone += " from shared memory alone"
    need = [f"{fmt_kib(p.needed)} on the {p.gpu.name} (it has {fmt_kib(p.gpu.smem)})"
            for p in r.named if p.needed is not None]  # fmt: skip
    alone += f": the ridge takes {listing(need)}." if need else "."
    items = [
        "In bf16 the intensity F / D = (4 N^2 d_h) / (2 b N d_h (1 + T_r)) tends to 2 N / (b "
        f"T_r), about B_r, as T_r grows. The {h.gpu.name}'s {fmt_kib(h.gpu.smem)} give B_r = "
        f"{h.blocks.rows} and I = {h.intensity:.1f}; the {a.gpu.name}'s {fmt_kib(a.gpu.smem)} give "
        f"B_r = {a.blocks.rows} and I = {a.intensity:.1f}.",
        alone,
        f"The {h.gpu.name}'s blocks move {fmt_bytes(h.traffic)}, "
        f"{than(h.traffic / r.naive_bytes)} the naive kernel's {fmt_bytes(r.naive_bytes)} "
        f"and {than(h.traffic / r.ideal_bytes, digits=1)} the ideal "
        f"{fmt_bytes(r.ideal_bytes)}: K and V are read {reads}."]  # fmt: skip
    return blocks, bounds, Observations(items)


@dataclass(frozen=True)
class Traffic:  # section 3: the staircase of traffic against M_sm, and its landmarks
    landmarks: Sequence[tuple[str, float, Blocks, float, float]]  # name, M_sm, blocks, D, I
    least: float  # M_sm of one row of each block
    least_bytes: float  # D there: K and V read N times
    as_naive: float  # the smallest M_sm that moves no more than the naive kernel
    slope: float  # of log D against log M_sm, from 16 to 128 KiB
    resident: float  # M_sm holding K and V whole and one query row
    lowest: float  # the lowest D on the curve
    naive_bytes: float
    ideal_bytes: float
    kv_bytes: float


def traffic(r: Traffic) -> tuple[Table, str, Observations]:
    """The landmarks' table, the figure's caption and what to observe."""
    rows = [
        [name, fmt_kib(m), _blocks(b), fmt_bytes(d), f"{i:.1f}"] for name, m, b, d, i in r.landmarks
    ]
    table = Table(["landmark", "M_sm", "Br x Bc", "D", "I"], rows, "Landmarks on the curve")
    caption = say(
        "HBM traffic of one head against the on-chip memory per SM (log-log). The staircase is "
        "the tiled schedule, the dashed lines the naive kernel and the ideal minimum. A dotted "
        "line is the traffic F / I* at which the head's intensity reaches a chip's ridge point "
        "(A100, H100), with a dot where the staircase first gets below it; the vertical lines "
        "mark the chips' shared memory per SM.")  # fmt: skip
    items = [
        f"With {fmt_kib(r.least)} on chip (one row of each block) K and V are read N times: "
        f"{fmt_bytes(r.least_bytes)}, {than(r.least_bytes / r.naive_bytes, digits=0)} the naive "
        f"kernel's traffic. Tiling moves no more than naive only from {fmt_kib(r.as_naive)} on.",
        f"Between 16 KiB and 128 KiB the staircase falls with a log-log slope of {r.slope:.2f}: "
        "doubling the on-chip memory about halves the traffic, the theorem's 1 / M.",
        f"From {fmt_kib(r.resident)}, K and V whole ({fmt_kib(r.kv_bytes)}) plus one query "
        f"row, the traffic drops to the ideal {fmt_bytes(r.ideal_bytes)}; the lowest point of "
        f"the curve is {fmt_bytes(r.lowest)}."]  # fmt: skip
    return table, caption, Observations(items)


class Head(NamedTuple):  # one head at one N: bytes, intensities, bounds
    naive: float
    tiled: float
    ideal: float
    i_naive: float
    i_tiled: float
    t_naive: float
    t_tiled: float


@dataclass(frozen=True)
class Lengths:  # section 4: one head against N on one GPU, then a whole layer
    gpu: Gpu
    d_head: int
    heads: Mapping[int, Head]  # N -> the head
    model: str
    batch: int
    layer: Mapping[int, Sequence[float]]  # N -> rest of the layer, naive, tiled attention (s)
    takes_over: Mapping[str, Crossover | None]  # kernel -> where attention passes the rest


def lengths(r: Lengths) -> tuple[Table, Table, Observations]:
    """One head's traffic and bounds against N, then the layer's, and what to observe."""
    gpu = r.gpu
    rows = [  # the Head's bytes, intensities and bounds, in its order
        [f"{n:,}", *map(fmt_bytes, h[:3]), *(f"{i:.1f}" for i in h[3:5]), *map(fmt_time, h[5:])]
        for n, h in r.heads.items()]  # fmt: skip
    head = ["N", "D naive", "D tiled", "D ideal", "I naive", "I tiled", "T naive", "T tiled"]
    title = f"One head on the {gpu.name} (M_sm = {fmt_kib(gpu.smem)}, d_h = {r.d_head}, bf16): "
    heads = Table(head, rows, title + "traffic, intensity and T >= max(F/P, D/beta)")
    rows = [
        [f"{n:,}", *map(fmt_time, (rest, tn, tt)), f"{tt / (rest + tt):.0%}"]
        for n, (rest, tn, tt) in r.layer.items()]  # fmt: skip
    head = ["N", "rest of layer", "attention naive", "attention tiled", "tiled attention's share"]
    title = f"One {r.model} layer, batch {r.batch}, on the {gpu.name}: time bounds"
    largest = max(r.heads)
    h = r.heads[largest]
    tiled_side, naive_side = side(h.i_tiled, gpu.ridge), side(h.i_naive, gpu.ridge)
    crossings = {kind: c.first for kind, c in r.takes_over.items() if c}
    over = dict.fromkeys(r.takes_over, f"no length up to {largest:,}")
    over |= {kind: f"N = {n:,}" for kind, n in crossings.items()}
    below = f"Below N = {min(crossings.values()):,}" if crossings else f"Up to N = {largest:,}"
    levels = f"The tiled kernel's intensity levels off near B_r ({h.i_tiled:.1f} FLOP/byte at "
    levels += f"N = {largest:,}), the naive one's near d_h / 2 ({h.i_naive:.1f}); against the "
    levels += f"{gpu.name}'s ridge of {gpu.ridge:.1f} "
    if tiled_side == naive_side:
        levels += f"both kernels are {tiled_side} at that length."
    else:
        levels += f"the tiled kernel is {tiled_side} and the naive one {naive_side} there."
    items = [
        f"At N = {largest:,} the tiled traffic is {than(h.tiled / h.naive)} the naive kernel's (2 "
        f"B_r / d_h in the limit) and {than(h.tiled / h.ideal, digits=0)} the ideal minimum.",
        levels,
        f"In the layer, attention's bound passes everything else at {over['tiled']} with the "
        f"tiled kernel and at {over['naive']} with the naive one. {below} the projections "
        "and the MLP take longer than attention with either kernel."]  # fmt: skip
    return heads, Table(head, rows, title), Observations(items)


Case = tuple[int, int, int, int, int, float]  # N, d_h, Br, Bc, inner steps, relative error


def agreement(cases: Sequence[Case], tolerance: float) -> tuple[Table, Observations]:
    """How closely the tiled kernel agrees with the naive one, case by case."""
    head = ["N", "d_h", "Br x Bc", "blocks divide N", "inner steps", "relative error"]
    rows = [
        [f"{n:,}", d, f"{br} x {bc}", "no" if n % br or n % bc else "yes", f"{steps:,}", f"{e:.1e}"]
        for n, d, br, bc, steps, e in cases]  # fmt: skip
    title = "Tiled against naive attention on random inputs (fp32)"
    note = "relative error = max |O_tiled - O_naive| / max |O_naive|"
    worst = max(c[-1] for c in cases)
    within = f"inside the tolerance of {tolerance:.0e}"
    if worst > tolerance:
        within = f"OUTSIDE the tolerance of {tolerance:.0e}: the tiled kernel is wrong"
    items = [
        f"The largest relative error is {worst:.1e}, {within}. The two kernels add the same "
        "terms in a different order and subtract a different running maximum before each "
        "exponential, so they agree to fp32 rounding, not bit for bit.",
        "The online softmax needs no second pass: a block that raises a row's maximum rescales "
        "the sum and the accumulator by exp(m_old - m_new) once, and the division by l happens "
        "once per query block, at the end."]  # fmt: skip
    return Table(head, rows, title, note), Observations(items)


@dataclass(frozen=True)
class Machine:  # section 6: this machine's caches and one-thread roofs
    caches: Sequence[tuple[str, float, str]]  # name, bytes, where the size came from
    beta: float  # bytes/s, one thread
    all_threads: float  # FLOP/s, the calibration's matmul on every thread
    saved_peak: float  # FLOP/s, the calibration's one-thread matmul (0: none saved)
    fresh_peak: float  # FLOP/s, the one-thread matmul timed now
    peak: float  # P_1, the faster of the two
    ridge: float  # P_1 / beta
    naive_intensity: float  # the naive kernel's fp32 F / D
    step_s: float  # fixed cost of one inner step
    calls: int  # numpy calls per inner step
    exp_s: float  # one exponential
    source: str  # where the roofs came from


def machine(r: Machine) -> tuple[Table, Table, Observations]:
    """The caches and roofs tables, and what they imply for the two kernels."""
    rows = [[name, fmt_kib(size), source] for name, size, source in r.caches]
    caches = Table(["cache", "size", "source"], rows, title="Caches, as core 0 sees them")
    rows = [
        ["memory bandwidth beta (1 thread)", console.fmt_bw(r.beta)],
        ["matmul, all threads", fmt_rate(r.all_threads)],
        ["matmul, 1 thread (calibration)", fmt_rate(r.saved_peak) if r.saved_peak else "-"],
        ["matmul n = 1024, 1 thread (now)", fmt_rate(r.fresh_peak)],
        ["ridge point P_1 / beta", f"{r.ridge:.1f} FLOP/byte"],
        ["fixed cost of one inner step", fmt_time(r.step_s)],
        ["one exponential (numpy, fp32)", fmt_time(r.exp_s)]]  # fmt: skip
    ridge = f"On one thread the ridge is {r.ridge:.1f} FLOP/byte. The naive kernel in fp32 does "
    ridge += f"{r.naive_intensity:.1f} FLOP per byte of its ten passes (about (4 d_h + 5) / 40 "
    ridge += "at any N): "
    if side(r.naive_intensity, r.ridge) == "compute-bound":
        ridge += "at or above the ridge, so by the roofline it is compute-bound here, and fewer "
        ridge += "bytes do not lower its bound."
    else:
        ridge += "below the ridge, so by the roofline fewer bytes would make it faster."
    items = [
        f"The roofs: {r.source}; P_1 = {fmt_rate(r.peak)}, the faster one-thread matmul of "
        "the two.",
        ridge,
        f"An inner step costs {fmt_time(r.step_s)} before any arithmetic, about "
        f"{fmt_time(r.step_s / r.calls)} per numpy call. In that time one core does "
        f"{fmt_num(r.step_s * r.peak, 2, 'FLOP')} of matmul: a block must do much more work "
        "than that for the fixed cost to vanish."]  # fmt: skip
    return caches, Table(["roof", "value"], rows, "Roofs of this machine"), Observations(items)


class Sized(NamedTuple):  # one cache-sized block choice of section 7, timed
    name: str  # where M_sm came from ("L2 / 2")
    m_sm: float  # bytes
    blocks: Blocks
    steps: int  # inner steps
    reads: int  # R: how often K and V are each read
    traffic: float  # D of the model, bytes
    touched: float  # bytes one inner step works on
    seconds: float


@dataclass(frozen=True)
class BlockSizes:  # section 7: the blocks each cache size gives, timed
    n: int
    d_head: int
    flops: float  # F at that N
    sized: Sequence[Sized]
    naive: tuple[float, float, float]  # D, bytes allocated, seconds
    peak: float  # P_1
    step_s: float


def block_sizes(r: BlockSizes) -> tuple[Table, Table, Observations]:
    """The blocks each cache size gives, their speed on one thread, and what to observe."""
    n, (d_naive, held, t_naive) = r.n, r.naive

    def rate(t: float) -> list[str]:
        return [f"{r.flops / t / 1e9:.1f}", f"{r.flops / t / r.peak:.0%}"]

    fixed = {s.name: min(1.0, s.steps * r.step_s / s.seconds) for s in r.sized}  # fixed-cost share
    sizes, speeds = [], []
    for s in r.sized:
        d, touched = fmt_bytes(s.traffic), fmt_kib(s.touched)
        sizes.append([s.name, fmt_kib(s.m_sm), _blocks(s.blocks), f"{s.steps:,}", d, touched])
        speeds.append([s.name, fmt_time(s.seconds), *rate(s.seconds), f"{fixed[s.name]:.0%}"])
    sizes.append(["naive", "-", "-", "-", fmt_bytes(d_naive), fmt_kib(held)])
    speeds.append(["naive", fmt_time(t_naive), *rate(t_naive), "-"])
    head = ["M_sm from", "M_sm", "Br x Bc", "steps", "D (model)", "touched"]
    title = f"Blocks for tiled attention at N = {n:,}, d_h = {r.d_head}, fp32"
    note = "touched: the bytes one inner step works on (for naive: S, O and the row statistics)."
    sizes = Table(head, sizes, title, note)
    note = "fixed cost: the share of the time that the inner steps' fixed costs explain."
    head = ["M_sm from", "time", "GFLOP/s", "of P_1", "fixed cost"]
    fast = min(r.sized, key=lambda s: s.seconds)
    small = min(r.sized, key=lambda s: s.blocks.rows * s.blocks.cols)
    than_fast = "and is the fastest of them"
    if small is not fast:
        than_fast = f"and runs {speed(fast.seconds, small.seconds)} than the fastest blocks"
    items = [
        f"With {small.name}-sized blocks ({_blocks(small.blocks)}) the kernel makes "
        f"{small.steps:,} inner steps {than_fast}; the fixed costs alone explain "
        f"{fixed[small.name]:.0%} of its time. The model counts bytes; small blocks pay per call, "
        "which a fused GPU kernel does not.",
        f"The fastest blocks came from {fast.name} ({_blocks(fast.blocks)}): "
        f"{rate(fast.seconds)[0]} GFLOP/s, {rate(fast.seconds)[1]} of the one-thread matmul "
        f"roof, against {rate(t_naive)[0]} GFLOP/s for the naive kernel "
        f"({fmt_ratio(t_naive / fast.seconds)} its speed)."]  # fmt: skip
    if small.traffic > d_naive:
        more = "Those small blocks even move more than the naive kernel by the model's count, "
        more += f"{fmt_bytes(small.traffic)} against {fmt_bytes(d_naive)}: K and V are read "
        items.append(more + f"{small.reads} times, the small-M_sm end of the first figure.")
    if whole := [s for s in r.sized if s.name == "LLC / 2" and s.blocks.cols == n]:
        held = "Half the last-level cache holds K and V whole, so the rule takes B_c = N "
        held += f"({_blocks(whole[0].blocks)}): "
        if whole[0].blocks.rows == n:
            held += "a single block, the naive computation with S kept in cache, which passes "
            held += "over S five times instead of ten."
        else:
            held += "K and V are read once, the ideal minimum."
        items.append(held)
    return sizes, Table(head, speeds, "Their speed on one thread", note), Observations(items)


class Run(NamedTuple):  # both kernels at one N of section 8
    blocks: Blocks  # the tiled kernel's
    seconds: Mapping[str, float]  # kernel -> fastest call
    s_per_llc: float  # S = 4 N^2 bytes against the last-level cache
    memory: Mapping[str, float]  # kernel -> bytes allocated beside Q, K and V


@dataclass(frozen=True)
class Kernels:  # section 8: both kernels against N, the longest on the roofline
    d_head: int
    runs: Mapping[int, Run]
    placed: Mapping[str, Mapping[str, Any]]  # kernel -> numpy_ops.roofline_row at the longest N
    ridge: float  # P_1 / beta
    peak: float  # P_1
    beta: float
    compute_bound: bool  # the naive kernel's intensity reaches the ridge
    steps: int  # inner steps of the tiled kernel at the longest N
    step_s: float
    exp_s: float
    far: int  # a long context the memory sentence names
    far_memory: Mapping[str, float]  # kernel -> bytes allocated at `far`


def kernels(r: Kernels) -> tuple[Table, Table, Table, Observations, str]:
    """Both kernels' times, time per score and memory, the roofline rows; notes and caption."""
    ns, ratios, times, scores, roof = list(r.runs), {}, [], [], []
    for n, u in r.runs.items():
        t = [u.seconds[k] for k in KINDS]
        ratios[n] = t[1] / t[0]  # tiled / naive
        times.append([f"{n:,}", _blocks(u.blocks), *map(fmt_time, t), fmt_ratio(ratios[n])])
        cells = [f"{x / n**2 * 1e9:.2f}" for x in t] + [fmt_kib(u.memory[k]) for k in KINDS]
        scores.append([f"{n:,}", f"{u.s_per_llc:.2g}", *cells])
    for k, p in r.placed.items():
        bound, share = f"{fmt_time(p['t_pred_s'])}, {p['bound']}", f"{p['fraction_of_bound']:.0%}"
        cells = [fmt_bytes(p["bytes"]), f"{p['intensity']:.1f}", bound, fmt_time(p["t_meas_s"])]
        roof.append([k, *cells, p["flag"] or share])
    title = f"Seconds per call, d_h = {r.d_head}, fp32, one thread (fastest timed call)"
    times = Table(["N", "Br x Bc", "naive", "tiled", "tiled / naive"], times, title)
    head = ["N", "S / LLC", "ns/score naive", "ns/score tiled", "memory naive", "memory tiled"]
    title = "Time per score and memory beside Q, K and V, with S against the last-level cache"
    scores = Table(head, scores, title)
    top, naive, tiled = ns[-1], r.placed["naive"], r.placed["tiled"]
    title = f"On this machine's one-thread roofline at N = {top:,} (ridge {r.ridge:.1f} FLOP/byte)"
    note = f"Both kernels do F = {console.fmt_flops(naive['flops'])}; "
    note += f"T bound = max(F / P_1, D / beta) with P_1 = {fmt_rate(r.peak)}."
    roof = Table(["kernel", "D", "I", "T bound", "measured", "of bound"], roof, title, note)
    slower = [n for n, x in ratios.items() if x > 1]
    close = [n for n, x in ratios.items() if abs(x - 1) <= 0.1]
    why = "It is never slower: its blocks cost less here than the naive kernel's passes over S."
    if slower:
        why = f"It is slower at {n_of_m(len(slower), len(ratios))} length{'s' * (len(ratios) > 1)}"
        if close:
            why += f" and within 10% of the naive kernel at {len(close)}"
        if r.compute_bound:
            why += ". Both kernels are compute-bound on one core here, so the bytes the tiled one "
            why += "saves do not lower its bound, while its many"
        else:
            why += ". By the roofline it should win, since the naive kernel is memory-bound here, "
            why += "but its"
        why += " small matmuls run below the roof and every inner step pays a fixed cost."
    t_top = r.runs[top].seconds
    serial = naive["t_compute_s"] + naive["t_memory_s"]
    exps_s, steps_s = top**2 * r.exp_s, r.steps * r.step_s
    rest_s = t_top["tiled"] - tiled["t_compute_s"] - exps_s - steps_s
    phases = "numpy runs the naive kernel's phases one after the other: the matmuls at "
    phases += f"F / P_1 = {fmt_time(naive['t_compute_s'])}, then ten passes over S at "
    phases += f"D / beta = {fmt_time(naive['t_memory_s'])} ({console.fmt_bw(r.beta)}). It took "
    phases += f"{fmt_time(t_top['naive'])} at N = {top:,}, "
    if abs(t_top["naive"] - serial) < abs(t_top["naive"] - naive["t_pred_s"]):
        phases += f"closer to their sum, {fmt_time(serial)}, than to the roofline's max, "
        phases += f"{fmt_time(naive['t_pred_s'])}, which assumes the two overlap."
    else:
        phases += f"closer to the roofline's max, {fmt_time(naive['t_pred_s'])}, than to "
        phases += f"their sum, {fmt_time(serial)}: here the two overlapped, or a roof was low."
    takes = ", ".join(f"{fmt_ratio(x)} at N = {n:,}" for n, x in ratios.items())
    items = [
        f"The tiled kernel takes {takes} the naive kernel's time. {why}",
        phases,
        f"The tiled kernel moves {than(tiled['bytes'] / naive['bytes'], digits=1)} the naive "
        f"kernel's bytes ({fmt_bytes(tiled['bytes'])}, {fmt_time(tiled['t_memory_s'])} at that "
        f"bandwidth), so its time goes elsewhere: of its {fmt_time(t_top['tiled'])}, "
        f"{fmt_time(tiled['t_compute_s'])} is F at the matmul roof, {fmt_time(exps_s)} the N^2 "
        f"exponentials at {fmt_time(r.exp_s)} each, {fmt_time(steps_s)} the fixed costs of "
        f"{r.steps:,} steps, and the remaining {fmt_time(max(0.0, rest_s))} its small matmuls "
        "running below the roof and its other passes over the blocks. The naive kernel pays "
        "for the same exponentials."]  # fmt: skip
    inside = [n for n in ns if r.runs[n].s_per_llc <= 1]
    if inside and (outside := [n for n in ns if r.runs[n].s_per_llc > 2]):
        a, z = inside[-1], outside[0]
        per = {k: [r.runs[n].seconds[k] / n**2 for n in (a, z)] for k in KINDS}
        growth = {k: per[k][1] / per[k][0] for k in KINDS}
        if growth["naive"] > 1.1 * growth["tiled"]:
            seen = "Here the savings show in time: the tiled kernel's blocks stay in the L2."
        else:
            seen = "Here the passes over S cost about the same whether S sits in the cache or in "
            seen += "DRAM: the savings do not show in time."
        score = f"Per score the naive kernel takes {per['naive'][0] * 1e9:.2f} ns at N = {a:,} "
        score += f"(S inside the last-level cache) and {per['naive'][1] * 1e9:.2f} ns at N = "
        score += f"{z:,} (S {r.runs[z].s_per_llc:.1f} times the cache), "
        score += f"{fmt_ratio(growth['naive'])}; the tiled one {fmt_ratio(growth['tiled'])}. "
        items.append(score + seen)
    memory = "Where the savings always show: memory. The naive kernel holds S, "
    memory += f"{fmt_kib(r.runs[top].memory['naive'])} at N = {top:,} and "
    memory += f"{fmt_kib(r.far_memory['naive'])} at {r.far:,} tokens; the tiled kernel needs "
    items.append(memory + f"{fmt_kib(r.far_memory['tiled'])} there, its output and its blocks.")
    caption = say(
        "Seconds per call of both kernels against N (log-log): measured (markers), and the two "
        "parts of the roofline bound with this machine's one-thread roofs, F / P_1 (the same for "
        "both) and each kernel's D / beta. A kernel's bound is the higher of its two lines. The "
        "vertical line is where the naive kernel's N x N scores fill the last-level cache."
    )
    return times, scores, roof, Observations(items), caption
