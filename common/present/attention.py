"""Lecture 10's tables and sentences (tiled attention), built from what the lecture computed.

Each function takes the lecture's numbers (the counts, the plans, the measured
times) and returns the display objects of one section; every sentence's figures
and directions come from those numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from common.formulas import attention_io, numpy_ops
from common.formulas.roofline import intensity, lower_bound_time
from common.hw_specs import A100, H100, Chip
from common.measure import attention
from common.present.claims import listing, side, speed
from common.present.console import (
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_kib,
    fmt_num,
    fmt_rate,
    fmt_ratio,
    fmt_time,
)
from common.present.display import Observations, Table
from common.tables.models import Model

KINDS = ("naive", "tiled")  # the two kernels, in the order of the tables


class OneThread(NamedTuple):
    """This machine's one-thread roofs and costs, as section 6 reports them."""

    peak: float  # P_1, FLOP/s
    beta: float  # bandwidth, bytes/s
    ridge: float  # P_1 / beta, FLOP/byte
    step_s: float  # fixed cost of one inner step, seconds
    exp_s: float  # one exponential, seconds
    compute_bound: bool  # the naive kernel's intensity reaches the ridge


def verdict(i: float, ridge: float, seconds: float) -> str:
    """'memory, 89.0 µs': which roof binds and the time bound."""
    return f"{'compute' if i >= ridge else 'memory'}, {fmt_time(seconds)}"


def on_the_chips(i: float, gpus: Sequence[Chip]) -> str:
    """Which side of each GPU's bf16 ridge an intensity falls: 'memory-bound on both chips'."""
    sides = {c.name: side(i, c.ridge_point("bf16")) for c in gpus}
    if len(set(sides.values())) == 1:
        return f"{next(iter(sides.values()))} on both chips"
    return ", ".join(f"{b} on the {name}" for name, b in sides.items())


def reach_sentence(gpus: Sequence[Chip], needed: Mapping[str, float | None]) -> str:
    """Which GPUs reach their ridge from shared memory alone, and what each would need."""
    short = [c for c in gpus if needed[c.key] is None or needed[c.key] > c.smem_per_sm]
    need = ", ".join(
        f"the {c.name} {fmt_kib(needed[c.key])} ({fmt_ratio(needed[c.key] / c.smem_per_sm)} "
        "what it has)"
        for c in gpus
        if needed[c.key] is not None
    )
    if len(short) == len(gpus):
        head = "Neither reaches its ridge from shared memory alone"
    elif not short:
        head = "Both reach their ridge from shared memory alone"
    else:
        head = f"Only the {listing([c.name for c in gpus if c not in short])} reaches its ridge"
    return f"{head}: the ridge takes {need}." if need else f"{head}."


def extremes_report(
    f: float,
    naive_bytes: float,
    ideal_bytes: float,
    extremes: Mapping[str, float],
    n: int,
    d_head: int,
    gpus: Sequence[Chip],
    kv_bytes: float,
) -> tuple[Any, ...]:
    """Section 1: the naive kernel and the ideal minimum on the A100 and the H100 (F, D, I, "
    "bounds)."""
    F, N, D_HEAD, GPUS = f, n, d_head, gpus  # the lecture's names
    bound_s = {
        (name, c.key): lower_bound_time(F, d, c.peak_flops("bf16"), c.mem_bw)
        for name, d in extremes.items()
        for c in GPUS
    }
    table = Table(
        [
            "kernel",
            "F",
            "D",
            "I (FLOP/B)",
            *(f"{c.name}, I* {c.ridge_point('bf16'):.1f}" for c in GPUS),
        ],
        [
            [name, fmt_flops(F), fmt_bytes(d), f"{intensity(F, d):.1f}"]
            + [
                verdict(intensity(F, d), c.ridge_point("bf16"), bound_s[(name, c.key)])
                for c in GPUS
            ]
            for name, d in extremes.items()
        ],
        title=f"One head, N = {N:,}, d_h = {D_HEAD}, bf16: the bound and T >= max(F/P, D/beta)",
    )
    naive_name, ideal_name = extremes
    notes = Observations(
        [
            f"Naive attention moves {fmt_bytes(naive_bytes)} at I = "
            f"{intensity(F, naive_bytes):.1f} FLOP/byte: "
            f"{on_the_chips(intensity(F, naive_bytes), GPUS)}. The ideal moves "
            f"{fmt_bytes(ideal_bytes)} ({fmt_ratio(naive_bytes / ideal_bytes, 1)} fewer bytes, "
            f"the same F) at I = {intensity(F, ideal_bytes):.0f}: "
            f"{on_the_chips(intensity(F, ideal_bytes), GPUS)}.",
            f"On the {A100.name} the time bound gets "
            f"{speed(bound_s[(naive_name, 'a100')], bound_s[(ideal_name, 'a100')], 1)}, from "
            f"{fmt_time(bound_s[(naive_name, 'a100')], 'ms')} to "
            f"{fmt_time(bound_s[(ideal_name, 'a100')], 'ms')}: the article's numbers.",
            f"The ideal assumes that nothing is ever read twice, as if K and V "
            f"({fmt_kib(kv_bytes)} at this size) stayed on chip for every query. One SM's shared "
            "memory "
            "is a few hundred KiB. The rest of Part 1 asks what a finite on-chip memory gives.",
        ]
    )
    return table, notes


def schedule_report(
    plans: Mapping[str, tuple[Chip, Any, float, float]],
    f: float,
    naive_bytes: float,
    ideal_bytes: float,
    n: int,
    d_head: int,
    needed: Mapping[str, float],
) -> tuple[Any, ...]:
    """Section 2: each chip's blocks from its shared memory, their traffic and bound."""
    F, N, D_HEAD = f, n, d_head  # the lecture's names
    block_rows, bound_rows = [], []
    for key, (chip, blocks, traffic, i) in plans.items():
        ridge = chip.ridge_point("bf16")
        seconds = lower_bound_time(F, traffic, chip.peak_flops("bf16"), chip.mem_bw)
        block_rows.append(
            [
                chip.name,
                fmt_kib(chip.smem_per_sm),
                f"{blocks.rows} x {blocks.cols}",
                fmt_kib(blocks.on_chip_bytes),
                -(-N // blocks.rows),
            ]
        )
        bound_rows.append(
            [
                chip.name,
                fmt_bytes(traffic),
                f"{i:.1f}",
                f"{ridge:.1f}",
                verdict(i, ridge, seconds),
                fmt_kib(needed[key]) if needed[key] else "never",
            ]
        )
    block_table = Table(
        ["chip", "M_sm", "Br x Bc", "U", "T_r"],
        block_rows,
        title=f"FlashAttention-2's blocks in each chip's shared memory (N = {N:,}, d_h = {D_HEAD})",
        note="bf16. U is the footprint of one inner step, T_r the number of query blocks.",
    )
    table = Table(
        ["chip", "D", "I", "I*", "bound", "M_sm for I*"],
        bound_rows,
        title="Their traffic, intensity and bound",
        note="The last column is the smallest M_sm whose blocks reach the chip's ridge point I*.",
    )
    h100_plan, a100_plan = plans["h100"], plans["a100"]
    notes = Observations(
        [
            f"In bf16 the intensity is about B_r: F / D = (4 N^2 d_h) / (2 b N d_h (1 + T_r)) is "
            f"close to 2 N / (b T_r) = B_r. The {H100.name}'s {fmt_kib(H100.smem_per_sm)} give "
            f"B_r = {h100_plan[1].rows} and I = {h100_plan[3]:.1f}; the {A100.name}'s "
            f"{fmt_kib(A100.smem_per_sm)} give B_r = {a100_plan[1].rows} and I = "
            f"{a100_plan[3]:.1f}.",
            reach_sentence((H100, A100), needed),
            f"The {H100.name}'s blocks cut the traffic from {fmt_bytes(naive_bytes)} to "
            f"{fmt_bytes(h100_plan[2])} ({fmt_ratio(naive_bytes / h100_plan[2])} fewer bytes), but "
            "that "
            f"is still {fmt_ratio(h100_plan[2] / ideal_bytes, 1)} the ideal: K and V are read "
            f"T_r = {-(-N // h100_plan[1].rows)} times each.",
            "Real kernels do better than this model in two ways it leaves out: they keep the score "
            "block and the accumulator in registers, a second on-chip store beside shared memory, "
            "and the L2 cache serves many of the rereads of K and V before they reach HBM.",
        ]
    )
    return block_table, table, notes


def lengths_report(
    per_head: Mapping[int, tuple[float, float, float, float]],
    layer: Mapping[int, Sequence[float]],
    takes_over: Mapping[str, Any],
    model: Model,
    batch: int,
    peak: float,
    bw: float,
    d_head: int,
    seqs: Sequence[int],
) -> tuple[Any, ...]:
    """Section 4: one head's traffic and bounds against N, then a whole layer's."""
    SEQS, MODEL, BATCH, D_HEAD = seqs, model, batch, d_head  # the lecture's names
    head_rows, time_rows = [], []
    for n, (f, dn, dt, di) in per_head.items():
        tn, tt = (lower_bound_time(f, d, peak, bw) for d in (dn, dt))
        head_rows.append(
            [
                f"{n:,}",
                fmt_bytes(dn),
                fmt_bytes(dt),
                fmt_bytes(di),
                f"{intensity(f, dn):.1f}",
                f"{intensity(f, dt):.1f}",
            ]
        )
        time_rows.append([f"{n:,}", fmt_time(tn), fmt_time(tt), fmt_ratio(tn / tt)])
    head_table = Table(
        ["N", "D naive", "D tiled", "D ideal", "I naive", "I tiled"],
        head_rows,
        title=f"One head on the {H100.name} (M_sm = {fmt_kib(H100.smem_per_sm)}, "
        f"d_h = {D_HEAD}, bf16)",
    )
    time_table = Table(
        ["N", "T naive", "T tiled", "gain"],
        time_rows,
        title="The same head's time bounds, T >= max(F/P, D/beta)",
    )
    layer_table = Table(
        ["N", "rest of layer", "attention naive", "attention tiled", "tiled attention's share"],
        [
            [f"{n:,}", fmt_time(r), fmt_time(tn), fmt_time(tt), f"{tt / (r + tt):.0%}"]
            for n, (r, tn, tt) in layer.items()
        ],
        title=f"One {MODEL.name} layer, batch {BATCH}, on the {H100.name}: time bounds",
    )
    largest = SEQS[-1]
    f_big, dn_big, dt_big, di_big = per_head[largest]
    tiled_side = side(intensity(f_big, dt_big), H100.ridge_point("bf16"))
    naive_side = side(intensity(f_big, dn_big), H100.ridge_point("bf16"))

    def over(kind: str) -> str:
        """Where attention's bound first passes the rest of the layer's."""
        cross = takes_over[kind]
        return f"N = {cross.first:,}" if cross else f"no length up to {largest:,}"

    notes = Observations(
        [
            f"Per head the tiled traffic stays quadratic: at N = {largest:,} it is "
            f"{fmt_ratio(dn_big / dt_big)} below the naive kernel's (2 B_r / d_h in the limit) but "
            f"{fmt_ratio(dt_big / di_big, 0)} above the ideal minimum.",
            f"The tiled kernel's intensity levels off near B_r ({intensity(f_big, dt_big):.1f} "
            f"FLOP/byte at N = {largest:,}), the naive one's near d_h / 2 "
            f"({intensity(f_big, dn_big):.1f}); against the {H100.name}'s ridge of "
            f"{H100.ridge_point('bf16'):.1f} "
            + (
                f"both kernels are {tiled_side} at that length."
                if tiled_side == naive_side
                else f"the tiled kernel is {tiled_side} and the naive one {naive_side} there."
            ),
            f"In the layer, attention's bound passes everything else at {over('tiled')} with the "
            f"tiled kernel and at {over('naive')} with the naive one. Below that the projections "
            "and the MLP dominate and the choice of attention kernel barely shows.",
        ]
    )
    return head_table, time_table, layer_table, notes


def block_sizes_report(
    block_n: int,
    d_head: int,
    sized: Mapping[str, Any],
    budgets: Mapping[str, float | None],
    block_times: Mapping[str, float],
    peak_1: float,
    step_s: float,
) -> tuple[Any, ...]:
    """Section 7: the blocks each cache size gives, and their speed on one thread."""
    BLOCK_N, D_HEAD = block_n, d_head  # the lecture's names
    block_flops = attention.naive_counts(BLOCK_N, D_HEAD)[0]

    def speed(t: float) -> list[str]:
        """GFLOP/s and the share of the one-thread matmul roof."""
        return [f"{block_flops / t / 1e9:.1f}", f"{block_flops / t / peak_1:.0%}"]

    size_rows, speed_rows = [], []
    for name, b in sized.items():
        t, steps = block_times[name], attention.block_count(BLOCK_N, b.rows, b.cols)
        size_rows.append(
            [
                name,
                fmt_kib(budgets[name]),
                f"{b.rows} x {b.cols}",
                f"{steps:,}",
                fmt_bytes(attention.tiled_counts(BLOCK_N, D_HEAD, b.rows, b.cols)[1]),
                fmt_kib(attention.tiled_cache_bytes(D_HEAD, b.rows, b.cols)),
            ]
        )
        speed_rows.append([name, fmt_time(t), *speed(t), f"{min(1.0, steps * step_s / t):.0%}"])
    t_naive = block_times["naive"]
    size_rows.append(
        [
            "naive",
            "-",
            "-",
            "-",
            fmt_bytes(attention.naive_counts(BLOCK_N, D_HEAD)[1]),
            fmt_kib(attention.naive_memory_bytes(BLOCK_N, D_HEAD)),
        ]
    )
    speed_rows.append(["naive", fmt_time(t_naive), *speed(t_naive), "-"])
    size_table = Table(
        ["M_sm from", "M_sm", "Br x Bc", "steps", "D (model)", "touched"],
        size_rows,
        title=f"Blocks for tiled attention at N = {BLOCK_N:,}, d_h = {D_HEAD}, fp32",
        note="touched: the bytes one inner step works on (for naive: S, O and the row statistics).",
    )
    table = Table(
        ["M_sm from", "time", "GFLOP/s", "of P_1", "fixed cost"],
        speed_rows,
        title="Their speed on one thread",
        note="fixed cost: the share of the time that the inner steps' fixed costs explain.",
    )
    timed = {name: block_times[name] for name in sized}
    fastest = min(timed, key=timed.get)
    smallest = min(sized, key=lambda name: sized[name].rows * sized[name].cols)
    small_b, fast_b = sized[smallest], sized[fastest]
    small_steps = attention.block_count(BLOCK_N, small_b.rows, small_b.cols)
    items = [
        f"With {smallest}-sized blocks ({small_b.rows} x {small_b.cols}) the kernel makes "
        f"{small_steps:,} inner steps and runs {fmt_ratio(timed[smallest] / timed[fastest], 1)} "
        f"slower than the fastest blocks; the fixed costs alone explain "
        f"{min(1.0, small_steps * step_s / timed[smallest]):.0%} of its time. The model counts "
        "bytes; small blocks pay per call, which a fused GPU kernel does not.",
        f"The fastest blocks came from {fastest} ({fast_b.rows} x {fast_b.cols}): "
        f"{speed(timed[fastest])[0]} GFLOP/s, {speed(timed[fastest])[1]} of the one-thread "
        f"matmul roof, against {speed(t_naive)[0]} GFLOP/s for the naive kernel "
        f"({fmt_ratio(t_naive / timed[fastest])} its speed).",
    ]
    small_d = attention.tiled_counts(BLOCK_N, D_HEAD, small_b.rows, small_b.cols)[1]
    naive_d = attention.naive_counts(BLOCK_N, D_HEAD)[1]
    if small_d > naive_d:
        items.append(
            f"Those small blocks even move more than the naive kernel by the model's count, "
            f"{fmt_bytes(small_d)} against {fmt_bytes(naive_d)}: K and V are read "
            f"{-(-BLOCK_N // small_b.rows)} "
            "times, the small-M_sm end of the first figure."
        )
    b_llc = sized.get("LLC / 2")
    if b_llc and b_llc.cols == BLOCK_N:
        items.append(
            "Half the last-level cache holds K and V whole, so the rule takes B_c = N "
            f"({b_llc.rows} x {b_llc.cols}): "
            + (
                "a single block, the naive computation with S kept in cache, which passes over S "
                "five times instead of ten."
                if b_llc.rows == BLOCK_N
                else "K and V are read once, the ideal minimum."
            )
        )
    notes = Observations(items)
    return size_table, table, notes


def kernels_report(
    measured: Mapping[int, tuple[Any, Mapping[str, float]]],
    counts: Mapping[int, Mapping[str, tuple[float, float]]],
    n_list: Sequence[int],
    llc: float,
    one: OneThread,
    d_head: int,
    fp32: float,
) -> tuple[Any, ...]:
    """Section 8: both kernels' times, time per score, memory, and the one-thread roofline."""
    N_LIST, D_HEAD, FP32 = n_list, d_head, fp32  # the lecture's names
    peak_1, beta, ridge_1, step_s, exp_s, compute_bound = one
    times_rows, score_rows, memory_rows = [], [], []
    for n, (b, t) in measured.items():
        times_rows.append(
            [
                f"{n:,}",
                f"{b.rows} x {b.cols}",
                fmt_time(t["naive"]),
                fmt_time(t["tiled"]),
                fmt_ratio(t["tiled"] / t["naive"]),
            ]
        )
        score_rows.append(
            [f"{n:,}", f"{FP32 * n * n / llc:.2g}"]
            + [f"{t[kind] / n**2 * 1e9:.2f}" for kind in KINDS]
        )
        memory_rows.append(
            [
                f"{n:,}",
                fmt_kib(attention.naive_memory_bytes(n, D_HEAD)),
                fmt_kib(attention.tiled_memory_bytes(n, D_HEAD, b.rows, b.cols)),
            ]
        )
    times_table = Table(
        ["N", "Br x Bc", "naive", "tiled", "tiled / naive"],
        times_rows,
        title=f"Seconds per call, d_h = {D_HEAD}, fp32, one thread (fastest timed call)",
    )
    score_table = Table(
        ["N", "S / LLC", "ns/score naive", "ns/score tiled"],
        score_rows,
        title="Time per score, with the size of S against the last-level cache",
    )
    memory_table = Table(
        ["N", "memory naive", "memory tiled"],
        memory_rows,
        title="What each kernel allocates beside Q, K and V",
    )
    top = N_LIST[-1]
    b_top, t_top = measured[top]
    placed = {
        kind: numpy_ops.roofline_row(kind, *counts[top][kind], t_top[kind], peak_1, beta, 0.0)
        for kind in KINDS
    }
    roof_table = Table(
        ["kernel", "D", "I", "T bound", "measured", "of bound"],
        [
            [
                kind,
                fmt_bytes(r["bytes"]),
                f"{r['intensity']:.1f}",
                f"{fmt_time(r['t_pred_s'])}, {r['bound']}",
                fmt_time(r["t_meas_s"]),
                r["flag"] or f"{r['fraction_of_bound']:.0%}",
            ]
            for kind, r in placed.items()
        ],
        title=f"On this machine's one-thread roofline at N = {top:,} "
        f"(ridge {ridge_1:.1f} FLOP/byte)",
        note=f"Both kernels do F = {fmt_flops(placed['naive']['flops'])}; "
        f"T bound = max(F / P_1, D / beta) with P_1 = {fmt_rate(peak_1)}.",
    )
    ratios = {n: t["tiled"] / t["naive"] for n, (_, t) in measured.items()}
    per_score = {kind: [measured[n][1][kind] / n**2 for n in N_LIST] for kind in KINDS}
    inside = [n for n in N_LIST if FP32 * n * n <= llc]
    outside = [n for n in N_LIST if FP32 * n * n > 2 * llc]
    steps_top = attention.block_count(top, b_top.rows, b_top.cols)
    slower = [n for n, r in ratios.items() if r > 1]
    close = [n for n, r in ratios.items() if abs(r - 1) <= 0.1]
    why = (
        f"It is slower at {len(slower)} of {len(ratios)} lengths"
        + (f" and within 10% of the naive kernel at {len(close)}" if close else "")
        + ". "
        + (
            "Both kernels are compute-bound on one core here, so the bytes the tiled one saves "
            "do not lower its bound, while its many small matmuls run below the roof and every "
            "inner step pays a fixed cost."
            if compute_bound
            else "By the roofline it should win, since the naive kernel is memory-bound here, but "
            "its small matmuls run below the roof and every inner step pays a fixed cost."
        )
        if slower
        else "It is never slower: its blocks cost less here than the naive kernel's passes over S."
    )
    naive_serial = placed["naive"]["t_compute_s"] + placed["naive"]["t_memory_s"]
    exps_s = top**2 * exp_s
    rest_s = t_top["tiled"] - placed["tiled"]["t_compute_s"] - exps_s - steps_top * step_s
    items = [
        "The tiled kernel takes "
        + ", ".join(f"{fmt_ratio(r)} at N = {n:,}" for n, r in ratios.items())
        + f" the naive kernel's time. {why}",
        f"numpy runs the naive kernel's phases one after the other: the matmuls at "
        f"F / P_1 = {fmt_time(placed['naive']['t_compute_s'])}, then ten passes over S at "
        f"D / beta = {fmt_time(placed['naive']['t_memory_s'])} ({fmt_bw(beta)}). It took "
        f"{fmt_time(t_top['naive'])} at N = {top:,}, "
        + (
            f"closer to their sum, {fmt_time(naive_serial)}, than to the roofline's max, "
            f"{fmt_time(placed['naive']['t_pred_s'])}, which assumes the two overlap."
            if abs(t_top["naive"] - naive_serial)
            < abs(t_top["naive"] - placed["naive"]["t_pred_s"])
            else f"closer to the roofline's max, {fmt_time(placed['naive']['t_pred_s'])}, than to "
            f"their sum, {fmt_time(naive_serial)}: here the two overlapped, or a roof was low."
        ),
        "The tiled kernel moves "
        f"{fmt_ratio(placed['naive']['bytes'] / placed['tiled']['bytes'], 1)} "
        f"fewer bytes ({fmt_bytes(placed['tiled']['bytes'])}, "
        f"{fmt_time(placed['tiled']['t_memory_s'])} "
        f"at that bandwidth), so its time goes elsewhere: of its {fmt_time(t_top['tiled'])}, "
        f"{fmt_time(placed['tiled']['t_compute_s'])} is F at the matmul roof, "
        f"{fmt_time(exps_s)} the N^2 exponentials at {fmt_time(exp_s)} each, "
        f"{fmt_time(steps_top * step_s)} the fixed costs of {steps_top:,} steps, and the "
        f"remaining {fmt_time(max(0.0, rest_s))} its small matmuls running below the roof and "
        "its other passes over the blocks. The naive kernel pays for the same exponentials.",
    ]
    if inside and outside:
        a, z = N_LIST.index(inside[-1]), N_LIST.index(outside[0])
        growth = {kind: per_score[kind][z] / per_score[kind][a] for kind in KINDS}
        seen = (
            "Here the savings show in time: the tiled kernel's blocks stay in the L2."
            if growth["naive"] > 1.1 * growth["tiled"]
            else "Here the passes over S cost about the same whether S sits in the cache or in "
            "DRAM: the savings do not show in time."
        )
        items.append(
            f"Per score the naive kernel takes {per_score['naive'][a] * 1e9:.2f} ns at "
            f"N = {inside[-1]:,} (S inside the last-level cache) and "
            f"{per_score['naive'][z] * 1e9:.2f} ns at N = {outside[0]:,} (S "
            f"{FP32 * outside[0] ** 2 / llc:.1f} times the cache), {fmt_ratio(growth['naive'])}; "
            f"the tiled one {fmt_ratio(growth['tiled'])}. {seen}"
        )
    items.append(
        "Where the savings always show: memory. The naive kernel holds S, "
        f"{fmt_kib(attention.naive_memory_bytes(top, D_HEAD))} at N = {top:,} and "
        f"{fmt_kib(attention.naive_memory_bytes(131072, D_HEAD))} at 131,072 tokens; the tiled "
        "kernel "
        f"needs {fmt_kib(attention.tiled_memory_bytes(131072, D_HEAD, b_top.rows, b_top.cols))} "
        "there, "
        "its output and its blocks."
    )
    notes = Observations(items)
    caption = (
        "Seconds per call of both kernels against N (log-log): measured (markers), and the two "
        "parts of the roofline bound with this machine's one-thread roofs, F / P_1 (the same for "
        "both) and each kernel's D / beta. A kernel's bound is the higher of its two lines. The "
        "vertical line is where the naive kernel's N x N scores fill the last-level cache."
    )
    return times_table, score_table, memory_table, roof_table, notes, caption


def traffic_report(
    landmarks: Mapping[str, float],
    m_grid: Sequence[float],
    curve: Sequence[float],
    least: float,
    resident: float,
    needed: Mapping[str, float],
    naive_bytes: float,
    ideal_bytes: float,
    kv_bytes: float,
    f: float,
    n: int,
    d_head: int,
    bf16: float,
) -> tuple[Any, ...]:
    """Section 3: the landmarks of the traffic curve, its caption and what to observe."""
    F, N, D_HEAD, BF16 = f, n, d_head, bf16  # the lecture's names
    rows = []
    for name, m in landmarks.items():
        blocks = attention_io.block_sizes(N, D_HEAD, m, BF16)
        d = attention_io.tiled_traffic(N, D_HEAD, blocks.rows, blocks.cols, BF16)
        rows.append(
            [
                name,
                fmt_kib(m),
                f"{blocks.rows} x {blocks.cols}",
                fmt_bytes(d),
                f"{intensity(F, d):.1f}",
            ]
        )
    table = Table(["landmark", "M_sm", "Br x Bc", "D", "I"], rows, title="Landmarks on the curve")
    span = [m for m in m_grid if 16 * 1024 <= m <= 128 * 1024]
    d_lo, d_hi = (attention_io.tiled_counts(N, D_HEAD, m, BF16)[1] for m in (span[0], span[-1]))
    slope = math.log(d_hi / d_lo) / math.log(span[-1] / span[0])
    caption = (
        "HBM traffic of one head against the on-chip memory per SM (log-log). The staircase is "
        "the tiled schedule, the dashed lines the naive kernel and the ideal minimum. A dotted "
        "line is the traffic F / I* at which the head's intensity reaches a chip's ridge point "
        "(A100, H100), with a dot where the staircase first gets below it; the vertical lines "
        "mark the chips' shared memory per SM."
    )
    notes = Observations(
        [
            f"With {fmt_kib(least)} on chip (one row of each block) K and V are read N times: "
            f"{fmt_bytes(curve[0])}, {fmt_ratio(curve[0] / naive_bytes, 0)} the naive kernel's "
            "traffic. "
            "Tiling moves no more than naive only from "
            f"{fmt_kib(landmarks['no more than naive'])} on.",
            f"Between 16 KiB and 128 KiB the staircase falls with a log-log slope of {slope:.2f}: "
            "doubling the on-chip memory about halves the traffic, the theorem's 1 / M.",
            "The chips' shared memories sit on that slope, "
            + (
                "well before either ridge"
                if all(needed[c.key] is None or needed[c.key] > c.smem_per_sm for c in (A100, H100))
                else "not all of them before their ridge"
            )
            + f" ({fmt_kib(needed['a100'])} for the {A100.name}, {fmt_kib(needed['h100'])} for "
            f"the {H100.name}).",
            f"From {fmt_kib(resident)}, K and V whole ({fmt_kib(kv_bytes)}) plus one query row, "
            "the "
            "traffic "
            f"drops to the ideal {fmt_bytes(ideal_bytes)}; the lowest point of the curve is "
            f"{fmt_bytes(min(curve))}, never below it.",
        ]
    )
    return table, caption, notes


def agreement_report(
    errors: Mapping[tuple[int, int, int, int], float], tolerance: float
) -> tuple[Any, ...]:
    """Section 5: how closely the tiled kernel agrees with the naive one on random inputs."""
    TOLERANCE = tolerance  # the lecture's names
    table = Table(
        ["N", "d_h", "Br x Bc", "blocks divide N", "inner steps", "relative error"],
        [
            [
                f"{n:,}",
                d,
                f"{br} x {bc}",
                "yes" if n % br == 0 and n % bc == 0 else "no",
                f"{attention.block_count(n, br, bc):,}",
                f"{e:.1e}",
            ]
            for (n, d, br, bc), e in errors.items()
        ],
        title="Tiled against naive attention on random inputs (fp32)",
        note="relative error = max |O_tiled - O_naive| / max |O_naive|",
    )
    worst = max(errors.values())
    within = (
        f"{fmt_ratio(TOLERANCE / worst, 0)} inside the tolerance of {TOLERANCE:.0e}"
        if worst <= TOLERANCE
        else f"OUTSIDE the tolerance of {TOLERANCE:.0e}: the tiled kernel is wrong"
    )
    notes = Observations(
        [
            f"The largest relative error is {worst:.1e}, {within}. The two kernels add the same "
            "terms in a different order and subtract a different running maximum before each "
            "exponential, so they agree to fp32 rounding, not bit for bit.",
            "The online softmax needs no second pass: a block that raises a row's maximum rescales "
            "the sum and the accumulator by exp(m_old - m_new) once, and the division by l happens "
            "once per query block, at the end.",
        ]
    )
    return table, notes


def machine_report(
    levels: Mapping[str, int],
    l2: float,
    llc: float,
    cache_source: str,
    calibration: Mapping[str, Any],
    calibration_source: str,
    saved_peak_1: float,
    fresh: Mapping[str, Any],
    peak_1: float,
    beta: float,
    step_s: float,
    exp_s: float,
    n: int,
    d_head: int,
) -> tuple[Any, ...]:
    """Section 6: this machine's caches and one-thread roofs, and what they imply."""
    N, D_HEAD = n, d_head  # the lecture's names
    ridge_1 = peak_1 / beta
    naive_i = intensity(*attention.naive_counts(N, D_HEAD))
    cache_rows = [[name, fmt_kib(size), cache_source] for name, size in levels.items()]
    if not levels:
        cache_rows = [
            ["L2 (assumed)", fmt_kib(l2), "not reported"],
            ["LLC (assumed)", fmt_kib(llc), "-"],
        ]
    roof_rows = [
        ["memory bandwidth beta (1 thread)", fmt_bw(beta)],
        ["matmul, all threads", fmt_rate(calibration["matmul_flops_per_s"])],
        ["matmul, 1 thread (calibration)", fmt_rate(saved_peak_1) if saved_peak_1 else "-"],
        ["matmul n = 1024, 1 thread (now)", fmt_rate(fresh["flops_per_s"])],
        ["ridge point P_1 / beta", f"{ridge_1:.1f} FLOP/byte"],
        ["fixed cost of one inner step", fmt_time(step_s)],
        ["one exponential (numpy, fp32)", fmt_time(exp_s)],
    ]
    compute_bound = naive_i >= ridge_1
    notes = Observations(
        [
            f"The roofs: {calibration_source}; P_1 = {fmt_rate(peak_1)}, the faster one-thread "
            "matmul of the two.",
            f"On one thread the ridge is {ridge_1:.1f} FLOP/byte. The naive kernel in fp32 does "
            f"{naive_i:.1f} FLOP per byte of its ten passes (about (4 d_h + 5) / 40 at any N): "
            + (
                "above the ridge, so by the roofline it is compute-bound here, and fewer bytes do "
                "not lower its bound."
                if compute_bound
                else "below the ridge, so by the roofline fewer bytes would make it faster."
            ),
            f"An inner step costs {fmt_time(step_s)} before any arithmetic, about "
            f"{fmt_time(step_s / attention.CALLS_PER_BLOCK)} per numpy call. In that time one core "
            f"does {fmt_num(step_s * peak_1, 2, 'FLOP')} of matmul: a block must do much more work "
            "than that for the fixed cost to vanish.",
        ]
    )
    one = OneThread(peak_1, beta, ridge_1, step_s, exp_s, compute_bound)
    return cache_rows, roof_rows, one, notes
