"""Lecture 07's words (standard library only): an LLM's capacity ledger, wall and knee."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from common.formulas.ledger import BATCH_SEARCH_LIMIT, MemoryLedger
from common.formulas.transformer import MatmulShape
from common.present.claims import at_least, direction, times
from common.present.console import fmt_batch, fmt_bytes, fmt_gb, fmt_kib, fmt_pct
from common.present.display import Figure, Group, Table
from common.present.say import say
from common.tables.assumptions import ACT_VECTORS_PER_TOKEN, LLM_OVERHEAD_RATE
from lectures.words import figure, section
from lectures.words.llm_speed import Setup as Setup
from lectures.words.llm_speed import fmt_ridge
from lectures.words.llm_speed import png_hint as png_hint


@dataclass(frozen=True)
class Capacity:  # the memory ledger at a few batches (1 among them), per-token sizes and the wall
    ledgers: Mapping[int, MemoryLedger]
    kv_token: float  # bytes of KV cache per token
    act_token: float  # bytes of activations per token in flight
    wall: int  # the largest batch that fits (0: none)
    chips: int  # chips one sequence needs: ceil(total at batch 1 / capacity)


@dataclass(frozen=True)
class Knee:  # each weight matmul's critical batch, decode's as a whole, and the small-B estimate
    shapes: Sequence[tuple[MatmulShape, int | None]]
    knee: int | None
    estimate: float  # ridge x bytes per weight / 2: where 2B / w meets the ridge


def memory_section(s: Setup, c: Capacity) -> Group:
    """The memory ledger at a few batches, the largest batch that fits and what to observe."""
    S, cap, m, one = s.context, s.chip.mem_capacity, s.model, c.ledgers[1]
    rows = [
        [f"{b:,}", *map(fmt_gb, (*x, x.total)), "fits" if x.fits(cap) else "OOM"]
        for b, x in c.ledgers.items()]  # fmt: skip
    if c.wall:
        top = c.ledgers[c.wall]
        act = top.activations / top.total
        wall = at_least(c.wall, BATCH_SEARCH_LIMIT)
        result = f"Largest batch that fits: {wall} sequences at context {S:,}."
        if c.wall >= BATCH_SEARCH_LIMIT:
            result += " The search stops at --batch's maximum: a larger batch may fit too."
        items = [
            f"The weights are fixed at {fmt_gb(one.weights)}; each sequence adds "
            f"{fmt_kib(c.kv_token * S, 2)} of KV cache, so after weights and overhead the chip "
            f"holds {wall} sequences. At that batch the KV cache is "
            f"{fmt_gb(top.kv_cache)}, {times(top.kv_cache / top.weights)} as the weights.",
            f"Activations stay small in decode ({fmt_bytes(top.activations)}, {fmt_pct(act, 1)} of "
            f"the total at batch {c.wall:,}) because only one token per sequence is in flight."
            if round(act, 3) < 0.05
            else f"Activations are {act:.1%} of the total at batch {c.wall:,}: the one token "
            f"in flight per sequence weighs {fmt_kib(c.act_token, 2)} against its cache's "
            f"{fmt_kib(c.kv_token * S, 2)}, so the activation assumption matters."]  # fmt: skip
    else:
        alone = one.weights > cap
        need = fmt_gb(one.weights if alone else one.total)
        needs = "the weights alone need" if alone else "one sequence already needs"
        result = f"Largest batch that fits: 0 ({needs} {need})."
        what = "The weights alone" if alone else "One sequence with its weights and overhead"
        text = f"{what} ({need}) exceed{'' if alone else 's'} the chip's {fmt_gb(cap)}: this model "
        text += f"needs at least {c.chips} chips (tensor parallelism) or smaller weights. The "
        items = [
            text + "speed ledger of lecture 06 is what one chip would do if it could hold them."
        ]
    kv = f"KV cache per token: {fmt_kib(c.kv_token, 2)} (2 x {m.n_layers} layers x "
    kv += f"{m.n_kv_heads} KV heads x {m.d_head} x {s.dtypes.kv_bytes:g} B); per "
    kv += f"{S:,}-token sequence: {fmt_kib(c.kv_token * S, 2)}."
    rules = f"Assumptions: activations {fmt_kib(c.act_token, 2)} per active token "
    rules += f"({ACT_VECTORS_PER_TOKEN} x d_model x {s.dtypes.act_bytes:g} B); overhead "
    rules += f"{LLM_OVERHEAD_RATE:.0%} of the other three.\n"
    head = ["batch", "weights", "KV cache", "activations", "overhead", "total", "fits?"]
    title = f"1. Memory ledger at context {S:,} on {s.chip.name} ({fmt_gb(cap)})"
    return section(title, kv, rules, Table(head, rows), "\n" + result, items=items)


def critical_batch_section(s: Setup, k: Knee, wall: int) -> Group:
    """Each weight matmul's critical batch, decode's as a whole, and the knee against the wall."""
    rows = [[x.name, f"{x.K:,}", f"{x.N:,}", f"x {x.count}", fmt_batch(b)] for x, b in k.shapes]
    rows.append(["all weight matmuls", "", "", "", fmt_batch(k.knee)])
    w, items = s.dtypes.w_bytes, []
    if k.knee is not None:
        cb = {x.name: b for x, b in k.shapes}
        kv, q = cb.get("K projection"), cb.get("Q projection")
        narrow = ""
        if kv and q and kv > q and s.model.kv_dim < s.model.q_dim:
            narrow = f"; the narrower K and V projections need a larger batch ({kv:,} against "
            narrow += f"{q:,} for Q) because their activations weigh more against their weights"
        text = f"With {w:g}-byte weights a matmul's intensity is close to 2B / {w:g} FLOP/byte "
        near, ridge = f"near B = {k.estimate:,.0f}", f"the ridge of {fmt_ridge(s.ridge)}"
        near = f"pass {ridge} from B = 1" if k.estimate < 0.5 else f"meet {ridge} {near}"
        text += f"while B is small, so it would {near}{narrow}. Counted exactly, all weight "
        text += "matmuls together reach it "
        items.append(text + f"at B = {k.knee:,}, the knee.")
        order = direction(k.knee, wall, "{:d}".format) if wall else None
        shown = at_least(wall, BATCH_SEARCH_LIMIT)
        if order == -1:
            text = f"At {s.context:,} tokens of context the memory wall ({wall:,}) comes before "
            text += f"the knee ({k.knee:,}): on this chip the weight matmuls stay below the ridge "
            text += "at every batch that fits. A shorter context, a smaller KV cache or smaller "
            items.append(text + "weights moves the wall.")
        elif order == 1:
            text = f"The knee ({k.knee:,}) comes before the memory wall ({shown}): between them "
            items.append(text + "the weight matmuls together are past the ridge.")
        elif order == 0:
            items.append(f"The knee and the memory wall fall on the same batch, {wall:,}.")
    title = f"2. Critical batch of decode's weight matmuls on {s.chip.name} ({s.precision})"
    knee = f"\nDecode critical batch: {fmt_batch(k.knee)} (ridge {fmt_ridge(s.ridge)} FLOP/byte)."
    table = Table(["matmul", "K", "N", "per step", "critical batch"], rows)
    return section(title, table, knee, items=items)


def capacity_png(path: str, s: Setup, c: Capacity) -> Figure:
    """The saved memory-ledger figure, with a caption that says what to look at."""
    where = say("one sequence already passes it, so no batch fits")
    if c.ledgers[1].weights > s.chip.mem_capacity:
        where = say("the weights alone already pass it, so no batch fits")
    if c.wall:
        where = say(
            "the total stays under it up to B = {wall}, where the search stops", wall=f"{c.wall:,}"
        )
    if c.wall and c.wall < BATCH_SEARCH_LIMIT:
        where = say("the total crosses it at B = {wall}, the memory wall", wall=f"{c.wall:,}")
    caption = say(
        "The four terms of the capacity ledger against batch at a context of {context} "
        "tokens, stacked, under the {chip}'s {capacity} (dashed). "
        "The weights are a fixed floor and the KV cache grows in step with the batch: {where}.",
        context=f"{s.context:,}", chip=s.chip.name, capacity=fmt_gb(s.chip.mem_capacity),
        where=where,
    )  # fmt: skip
    return figure(path, caption)
