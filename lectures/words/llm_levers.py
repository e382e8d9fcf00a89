"""Lecture 08's words (standard library only): weight quantization, KV heads and the chip."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from common.formulas.ledger import BATCH_SEARCH_LIMIT
from common.hw_specs import Chip
from common.present import claims
from common.present.claims import above, at_least, change, counted, n_of_m, ratio, speed, times
from common.present.console import fmt_batch, fmt_bw, fmt_bytes, fmt_gb, fmt_kib, fmt_time
from common.present.display import Figure, Group, Observations, Table
from common.present.say import say
from common.tables.models import Model
from lectures.words import figure, section
from lectures.words.llm_speed import Setup as Setup
from lectures.words.llm_speed import fmt_ridge
from lectures.words.llm_speed import png_hint as png_hint


@dataclass(frozen=True)
class Quant:  # lectures 06 and 07 redone with one weight precision (times in s, sizes in bytes)
    weights: float
    ttft: float
    tpot: float
    knee: int | None
    wall: int
    kv_token: float
    attn_bytes: float  # attention's bytes per decode step
    prefill_compute: int  # prefill's weight matmuls that are compute-bound...
    prefill_matmuls: int  # ...of this many


@dataclass(frozen=True)
class Variant:  # the model or its twin with other KV heads, at the lecture's batch and context
    model: Model
    kv: float  # KV-cache bytes per token
    wall: int
    tpot: float
    attn_bytes: float  # attention's bytes per decode step
    attn_intensity: float  # decode attention's FLOP/byte


@dataclass(frozen=True)
class ChipRun:  # the model on one chip: its roofs, bounds, wall, knee and (figure chips) its curve
    chip: Chip
    peak: float  # FLOP/s at the section's precision
    ridge: float
    ttft: float  # at the lecture's batch
    tpot1: float  # at batch 1
    wall: int
    at_wall: float  # decode tokens/s at the wall (0: none fits)
    knee: int | None
    ceiling: float  # bandwidth / one sequence's KV cache: no batch's tokens/s beats it
    matmul: float  # seconds of weight-matmul compute per token at the peak
    b1_memory: bool  # every weight matmul of a batch-1 decode step is memory-bound


QUANT = ("weights", "size", "TTFT >=", "TPOT >=", "tok/s <=", "knee", "fits", "KV/token")
SAME = ("grows", "shrinks", "stays at")
CHIPS = ("TPOT (B=1) >=", "fits", "tok/s at the wall", "knee")
_kib = functools.partial(fmt_kib, digits=2)
_int = "{:,.0f}".format


def _wall(n: int) -> str:
    """A largest batch in a table cell: '>=1,048,576' where the search stopped at its bound."""
    return f">={n:,}" if n >= BATCH_SEARCH_LIMIT else f"{n:,}"


def quantization_section(s: Setup, quant: Mapping[str, Quant]) -> Group:
    """Weight-only quantization: what each weight precision changes, and what it does not."""
    B, a, b = s.batch, quant["bf16"], quant["int4"]
    why = "the full byte ratio: weight reads set the step time"
    if ratio(a.tpot / b.tpot) != ratio(a.weights / b.weights):
        why = "less than the byte ratio, since int4 shrinks only the weight reads, not the KV "
        why += "cache, the activations or the FLOPs"
    rows = [
        [w, fmt_gb(q.weights), fmt_time(q.ttft), fmt_time(q.tpot), f"{B / q.tpot:,.0f}", *last]
        for w, q in quant.items()
        for last in [(fmt_batch(q.knee), _wall(q.wall), _kib(q.kv_token), fmt_bytes(q.attn_bytes))]
    ]
    compute = [n_of_m(q.prefill_compute, q.prefill_matmuls) for q in (a, b)]
    gain = "only the memory-bound ones gain from fewer bytes."
    pre, step = (speed(x, y, shown=fmt_time) for x, y in ((a.ttft, b.ttft), (a.tpot, b.tpot)))
    if pre == "no faster" and b.prefill_compute < b.prefill_matmuls:
        gain = "the memory-bound ones read fewer weight bytes, but the time that saves is too "
        gain += "small a part of the pass to show."
    top, (k0, k1) = BATCH_SEARCH_LIMIT, (a.knee, b.knee)  # a knee None: no batch reaches it
    walls = f"batch {change(a.wall, b.wall, _int, words=SAME)}"
    if min(a.wall, b.wall) >= top:
        walls = f"batch reaches the search's bound ({top:,}, --batch's maximum) either way"
    elif max(a.wall, b.wall) >= top:
        walls = f"batch goes from {at_least(a.wall, top)} to {at_least(b.wall, top)} (the search "
        walls += "stops at --batch's maximum)"
    knee = "Neither precision's weight matmuls reach the ridge at any batch: no knee."
    if k0 and k1:
        fewer = ": fewer bytes per weight means fewer rows earn the ridge." if k1 < k0 else "."
        knee = f"The knee {change(k0, k1, _int, words=('rises', 'drops', 'stays at'))}{fewer}"
    elif k1:
        knee = f"int4 weights bring a knee, B = {k1:,}; bf16 weights reach the ridge at no batch."
    freed = f"The freed memory holds KV cache, so the largest {walls}." if b.wall else ""
    freed = freed or f"Even with int4 weights no sequence fits the {s.chip.name}'s memory."
    items = [
        f"int4 weights take {times(b.weights / a.weights)} memory as bf16, and the decode step "
        f"gets {step} at batch {B:,}, {why}. {knee} {freed}",
        f"Prefill gets {pre} with int4 weights. {compute[0].capitalize()} weight "
        f"matmuls are compute-bound with bf16 weights and {compute[1]} with int4: a compute-bound "
        f"matmul computes at {s.precision} whatever the weights' storage; {gain}",
        f"The KV cache per token {change(a.kv_token, b.kv_token, _kib, words=SAME)} and "
        "the attention traffic per decode step "
        f"{change(a.attn_bytes, b.attn_bytes, fmt_bytes, words=SAME)}: only --kv "
        "changes those two."]  # fmt: skip
    title = f"1. Weight-only quantization ({s.precision} compute, batch {B:,}, "
    title += f"context {s.context:,})"
    return section(title, Table([*QUANT, "attn bytes"], rows), items=items)


def kv_heads_section(s: Setup, variants: Sequence[Variant]) -> Group:
    """A model against its twin with other KV heads: cache, wall, traffic and step time."""
    S, B = s.context, s.batch
    rows = [
        [v.model.name, f"{v.model.n_kv_heads}", _kib(v.kv), _kib(v.kv * S), _wall(v.wall), *last]
        for v in variants
        for last in [(fmt_bytes(v.attn_bytes), fmt_time(v.tpot))]]  # fmt: skip
    many, few = sorted(variants, key=lambda v: -v.model.n_kv_heads)
    kv = ratio(many.kv / few.kv)
    fits = f"though on {s.chip.name} neither fits one sequence."
    if few.wall:
        fits = f"and the largest batch is {at_least(many.wall, BATCH_SEARCH_LIMIT)} against "
        fits += f"{at_least(few.wall, BATCH_SEARCH_LIMIT)}."
    head = ["model", "KV heads", "KV/token", "KV/sequence", "fits", "attn bytes", "TPOT >="]
    items = [
        f"{many.model.n_kv_heads} KV heads store {kv} the KV cache of {few.model.n_kv_heads}, for "
        f"the same {many.model.n_heads} query heads. At {counted(S, 'token')} that is "
        f"{_kib(many.kv * S)} per sequence against {_kib(few.kv * S)}, {fits}",
        f"Decode reads the whole cache every step, so attention moves {fmt_bytes(many.attn_bytes)} "
        f"against {fmt_bytes(few.attn_bytes)} per step at batch {B:,} "
        f"({ratio(many.attn_bytes / few.attn_bytes)}), and decode attention runs at "
        f"{many.attn_intensity:.2f} FLOP/byte against {few.attn_intensity:.2f}: each KV head read "
        "serves the query heads of its group."]  # fmt: skip
    title = f"2. KV heads and the KV cache ({s.dtypes.kv} cache, context {S:,}, batch {B:,})"
    return section(title, Table(head, rows), items=items)


def chips_section(s: Setup, runs: Mapping[str, ChipRun], precision: str) -> Group:
    """Every chip with the precision: ridge, bandwidth, TTFT, TPOT at batch 1, wall and knee."""
    rows = [
        [
            *(r.chip.name, fmt_ridge(r.ridge), fmt_bw(r.chip.mem_bw), fmt_time(r.ttft)),
            *(fmt_time(r.tpot1), _wall(r.wall), _int(r.at_wall) if r.wall else "-"),
            fmt_batch(r.knee),
        ]
        for r in runs.values()]  # fmt: skip
    note = f"(not every chip in the figure has a {s.precision} peak, so this section uses bf16)"
    table = Table(["chip", "ridge", "bandwidth", f"TTFT (B={s.batch:,}) >=", *CHIPS], rows)
    title = f"3. {s.model.name} across chips ({precision} compute, context {s.context:,})"
    return section(title, note if precision != s.precision else None, table)


def throughput_png(path: str, s: Setup, chips: Sequence[str]) -> Figure:
    """The saved throughput figure, with a caption that says what to look at."""
    caption = say(
        "Decode throughput bound of {model} against batch at a context of {context} tokens, one "
        "panel per chip ({chips}). Each curve stops at its memory wall (solid line); the dashed "
        "line is the batch where the weight matmuls turn compute-bound, the dotted one the "
        "bandwidth divided by one sequence's KV cache. Look at how each curve bends: a bigger "
        "batch shares the weights, but every sequence reads its own cache, so the curve flattens "
        "towards the dotted ceiling.",
        model=s.model.name, context=f"{s.context:,}", chips=", ".join(chips),
    )  # fmt: skip
    return figure(path, caption)


def chips_observations(
    runs: Mapping[str, ChipRun], b1_intensity: float, kv_seq: float, pair=("h100", "h200")
) -> Observations:
    """What the chips show, `pair` (old, new) compared: bandwidth sets decode, compute prefill."""
    h1, h2, b2 = runs["h100"], runs["h200"], runs["b200"]
    ridges = [r.ridge for r in runs.values()]
    n_memory = sum(r.b1_memory for r in runs.values())
    ends = change(min(ridges), max(ridges), fmt_ridge, words=("run", "", "are all"))
    said = "every weight matmul of decode is memory-bound on every chip."
    if n_memory != len(runs):
        said = f"{n_of_m(len(runs) - n_memory, len(runs))} chips have a ridge low enough for a "
        said += "batch-1 weight matmul to be compute-bound."
    items = [f"At batch 1 the Q projection runs at {b1_intensity:.2f} FLOP/byte while the "]
    items[0] += f"ridges above {ends}: {said}"
    if pair[0] in runs and pair[1] in runs:  # a chip without the precision has no run
        o, n = runs[pair[0]], runs[pair[1]]
        decode, prefill = speed(o.tpot1, n.tpot1), speed(o.ttft, n.ttft)
        only = "only " * (1 < round(o.ttft / n.ttft, 2) < round(o.tpot1 / n.tpot1, 2))
        text = f"Against {o.chip.name}, {n.chip.name} has {times(n.peak / o.peak)} compute and "
        text += f"{times(n.chip.mem_bw / o.chip.mem_bw)} bandwidth: decode at batch 1 gets "
        items.append(text + f"{decode}, prefill {only}{prefill}.")
    if h1.wall:  # why H100's curve flattens (no sequence fits: no curve): KV reads or compute
        kv = f"each sequence reads its own {fmt_gb(kv_seq)} of KV cache per step"
        compute = 1 / h1.matmul if h1.matmul else float("inf")
        said = f"The throughput flattens because {kv}: no batch beats bandwidth / that, "
        said += f"{h1.ceiling:,.0f} tokens/s on {h1.chip.name} and {b2.ceiling:,.0f} on "
        said += f"{b2.chip.name}."
        if claims.binding([("kv", h1.ceiling), ("compute", compute)]) == "compute":
            said = f"On {h1.chip.name} the throughput flattens because the weight matmuls turn "
            said += f"compute-bound: {fmt_time(h1.matmul)} of compute per token caps it at "
            said += f"{compute:,.0f} tokens/s, below the {h1.ceiling:,.0f} that the KV reads "
            said += f"alone would allow ({kv})."
        items.append(said)
    if past := [r for r in (h1, h2, b2) if r.knee and r.wall > r.knee]:
        r = past[0]
        text = f"Past its knee (B = {r.knee:,}) the weight matmuls on {r.chip.name} together are "
        text += f"past the ridge and cost {fmt_time(r.matmul)} of compute per token, so the curve "
        text += f"ends at {r.at_wall:,.0f} tokens/s at its wall, "
        text += f"{above(r.at_wall, r.ceiling, _int)} the bandwidth ceiling of {r.ceiling:,.0f}: a "
        items.append(text + "bigger batch adds work as fast as it adds tokens.")
    return Observations(items)
