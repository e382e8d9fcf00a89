"""Lectures 06-08's tables and observations: both ledgers of a whole LLM, from computed values.

Standard library only (the three lectures run on a bare ``python3``). Each function
takes what a lecture computed with ``common.formulas.transformer`` (pass ledgers,
operator times, memory ledgers, critical batches) and returns display objects
(``common.present.display``): lecture 06 the speed of prefill and decode, lecture 07
the capacity (the largest batch that fits), lecture 08 the levers (weight
quantization, KV heads, the chip).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from common.formulas.ledger import MemoryLedger
from common.formulas.transformer import (
    DTypes,
    MatmulShape,
    OpTime,
    PassLedger,
    decode_ledger,
    kv_cache_bytes_per_token,
    op_times,
)
from common.hw_specs import Chip
from common.present.claims import ratio, speed
from common.present.console import (
    fmt_batch,
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_gb,
    fmt_intensity,
    fmt_kib,
    fmt_num,
    fmt_rate,
    fmt_ratio,
    fmt_time,
)
from common.present.display import Figure, Group, Heading, Observations, Table, Text, figure
from common.shell.paths import display_path
from common.tables.assumptions import ACT_VECTORS_PER_TOKEN, LLM_OVERHEAD_RATE
from common.tables.models import Model


# ---------------------------------------------------------------------------
# Lecture 06: the model, its parameters, prefill and decode
# ---------------------------------------------------------------------------
def model_section(
    model: Model, chip: Chip, precision: str, dtypes: DTypes, context: int, batch: int
) -> Group:
    """The model's shapes from its config.json, the chip's figures and the storage."""
    m = model
    rows = [
        ["layers", f"{m.n_layers}", "num_hidden_layers"],
        ["d_model", f"{m.d_model:,}", "hidden_size"],
        ["query heads", f"{m.n_heads}", "num_attention_heads"],
        ["KV heads", f"{m.n_kv_heads}", f"num_key_value_heads ({m.attention_kind})"],
        ["head dim", f"{m.d_head}", "hidden_size / num_attention_heads"],
        ["MLP width d_ff", f"{m.d_ff:,}", "intermediate_size"],
        ["MLP", "gated SiLU" if m.gated_mlp else "ungated", "hidden_act, gate_proj"],
        ["vocabulary", f"{m.vocab_size:,}", "vocab_size"],
        ["embeddings", "tied" if m.tied_embeddings else "untied", "tie_word_embeddings"],
        ["window", f"{m.max_context:,} tokens", "max_position_embeddings"],
    ]
    peak, ridge = chip.peak_flops(precision), chip.ridge_point(precision)
    return Group(
        Heading(f"1. {m.name} on {chip.name}"),
        Text(f"Model shapes from {m.config_source}:\n"),
        Table(["quantity", "value", "config.json field"], rows),
        Text(
            f"\nChip: {chip.name}, {precision} peak {fmt_rate(peak)}, memory bandwidth "
            f"{fmt_bw(chip.mem_bw)},\n      capacity {fmt_gb(chip.mem_capacity)}, ridge point "
            f"{ridge:.0f} FLOP/byte."
        ),
        Text(f"Storage: {dtypes.describe()}. Context {context:,} tokens, batch {batch:,}."),
    )


def parameter_section(model: Model, parts: Mapping[str, int], dtypes: DTypes) -> Group:
    """Parameters by part with their formulas, against the published size."""
    n_params = sum(parts.values())
    formulas = {
        "embedding": "V d",
        "attention": "L (2 d Hq dh + 2 d Hkv dh)",
        "mlp": f"L {3 if model.gated_mlp else 2} d d_ff",
        "norms": "(2 L + 1) d",
        "lm_head": "0 (tied)" if model.tied_embeddings else "V d",
    }
    rows = [
        [name, formulas[name], fmt_num(count), f"{count / n_params:.1%}"]
        for name, count in parts.items()
    ]
    rows.append(["total", "", fmt_num(n_params), "100.0%"])
    published = model.published_params or float(n_params)
    shares = {name: count / n_params for name, count in parts.items()}
    gap = abs(n_params / published - 1)
    return Group(
        Heading("2. Parameters from the config"),
        Table(["part", "formula", "parameters", "share"], rows),
        Text(f"\nPublished size: {fmt_num(published)} ({model.params_source})."),
        Observations(
            [
                f"The count from the config, {fmt_num(n_params)}, is "
                + (
                    f"within {gap:.2%} of"
                    if round(gap, 4) > 0  # '0.00%' would say nothing
                    else "less than 0.01% away from"
                )
                + f" the published {fmt_num(published)}.",
                f"The MLP holds {shares['mlp']:.1%} of the weights and attention "
                f"{shares['attention']:.1%}; the embedding and LM head together hold "
                f"{shares['embedding'] + shares['lm_head']:.1%}. At {dtypes.weights} the "
                f"weights take {fmt_gb(n_params * dtypes.w_bytes)}.",
            ]
        ),
    )


def pass_table(pl: PassLedger, times: Sequence[OpTime]) -> Table:
    """One pass's ledger on the chip: one layer's operators, x layers, model-level operators."""
    total = sum(t.count * t.lower_s for t in times)
    L, n_layer = pl.model.n_layers, len(pl.layer)
    layer_t, once_t = times[:n_layer], times[n_layer:]

    def op_row(t: OpTime, share: float) -> list[str]:
        f, d = t.op.flops, t.op.nbytes
        cells = (
            t.op.name,
            fmt_flops(f),
            fmt_bytes(d),
            fmt_intensity(f, d, 2, 0),
            t.bound,
            fmt_time(t.lower_s),
        )
        return [*cells, f"{share:.1%}"]

    rows = [op_row(t, t.count * t.lower_s / total) for t in layer_t]
    lf = sum(t.op.flops for t in layer_t)
    lb = sum(t.op.nbytes for t in layer_t)
    lt = sum(t.lower_s for t in layer_t)
    rows.append(
        [
            "= one layer",
            fmt_flops(lf),
            fmt_bytes(lb),
            fmt_intensity(lf, lb, 2, 0),
            "",
            fmt_time(lt),
            "",
        ]
    )
    rows.append(
        [
            f"x {L} layers",
            fmt_flops(L * lf),
            fmt_bytes(L * lb),
            fmt_intensity(lf, lb, 2, 0),
            "",
            fmt_time(L * lt),
            f"{L * lt / total:.1%}",
        ]
    )
    rows += [op_row(t, t.lower_s / total) for t in once_t]
    rows.append(
        [
            "= whole pass",
            fmt_flops(pl.flops),
            fmt_bytes(pl.nbytes),
            fmt_intensity(pl.flops, pl.nbytes, 2, 0),
            "",
            fmt_time(total),
            "100.0%",
        ]
    )
    return Table(["operator", "FLOPs", "bytes", "FLOP/B", "bound", "time >=", "of pass"], rows)


def prefill_section(pre: PassLedger, times: Sequence[OpTime], chip: Chip, precision: str) -> Group:
    """Prefill's ledger, the time to first token and what to observe."""
    ttft = sum(t.count * t.lower_s for t in times)
    peak, ridge = chip.peak_flops(precision), chip.ridge_point(precision)
    compute_share = sum(t.count * t.lower_s for t in times if t.bound == "compute") / ttft
    elementwise = sum(t.count * t.lower_s for t in times if t.op.kind in ("norm", "elementwise"))
    B, S = pre.batch, pre.context
    return Group(
        Heading(f"3. Prefill: {B:,} x {S:,} prompt tokens on {chip.name} ({precision})"),
        pass_table(pre, times),
        Text(f"\nTime to first token >= {fmt_time(ttft)} (prefill of {B * S:,} tokens)."),
        Observations(
            [
                f"Prefill does {fmt_flops(pre.flops)} and moves {fmt_bytes(pre.nbytes)}: "
                f"{pre.flops / pre.nbytes:.0f} FLOP per byte overall, above the ridge of "
                f"{ridge:.0f}. Compute-bound operators take {compute_share:.1%} of the time, "
                f"and the whole-pass compute time alone is {fmt_time(pre.flops / peak)}.",
                f"Attention (scores, softmax, weighted sum) is "
                f"{pre.kind_total('attention') / pre.flops:.1%} of the FLOPs at {S:,} tokens; "
                "its share grows with the prompt, since its FLOPs grow as S² and the "
                "matmuls' as S.",
                f"Norms, SiLU and residual adds are memory-bound and cost "
                f"{fmt_time(elementwise)} ({elementwise / ttft:.1%} of the pass) in this "
                "unfused ledger; real engines fuse them into the neighbouring matmuls.",
            ]
        ),
    )


def decode_section(dec: PassLedger, times: Sequence[OpTime], chip: Chip, precision: str) -> Group:
    """Decode's ledger, the time per output token, the throughput and what to observe."""
    tpot = sum(t.count * t.lower_s for t in times)
    peak, bw, ridge = chip.peak_flops(precision), chip.mem_bw, chip.ridge_point(precision)
    B, S, w = dec.batch, dec.context, dec.dtypes.w_bytes
    q_row = next(t for t in times if t.op.name == "Q projection")
    all_memory = all(t.bound == "memory" for t in times if t.op.nbytes)
    weights_only = dec.weight_bytes / bw
    items = [
        f"Each {w:g}-byte weight is read once per step and used in {B:,} "
        f"multiply-add{'s' if B > 1 else ''} ({2 * B} FLOP), so the Q projection runs at "
        f"{q_row.op.intensity:.2f} FLOP/byte against a ridge of {ridge:.0f}. "
        + (
            "Every operator that moves bytes is memory-bound."
            if all_memory
            else "Some operators are already compute-bound at this batch."
        ),
        f"The step reads {fmt_gb(dec.weight_bytes)} of weights and {fmt_gb(dec.kv_bytes)} of "
        f"KV cache: weights alone need {fmt_time(weights_only)} at {fmt_bw(bw)}, "
        f"{weights_only / tpot:.1%} of the bound. The FLOPs ({fmt_flops(dec.flops)}) would "
        f"take only {fmt_time(dec.flops / peak)} at peak.",
    ]
    if dec.kv_bytes > dec.weight_bytes:
        items.append(
            f"At batch {B:,} the KV cache read per step ({fmt_gb(dec.kv_bytes)}) outweighs the "
            "weights: a bigger batch shares the weights among more tokens, but every sequence "
            "still reads its own cache."
        )
    return Group(
        Heading(f"4. Decode: {B:,} x 1 new token, context {S:,}, on {chip.name} ({precision})"),
        pass_table(dec, times),
        Text(
            f"\nTime per output token >= {fmt_time(tpot)}; decode throughput <= "
            f"{B / tpot:,.1f} tokens/s."
        ),
        Observations(items),
    )


def attention_kernels_section(
    kernels: Mapping[tuple[str, bool], tuple[PassLedger, float, float]], context: int
) -> Group:
    """(phase, materialized) -> (ledger, attention time, pass time): table and observations."""
    rows = [
        [
            phase,
            "materialized" if materialized else "minimum traffic",
            fmt_flops(pl.kind_total("attention")),
            fmt_bytes(pl.kind_total("attention", "nbytes")),
            fmt_time(t_attn),
            fmt_time(t_pass),
        ]
        for (phase, materialized), (pl, t_attn, t_pass) in kernels.items()
    ]
    pre_slow = kernels["prefill", True][2] / kernels["prefill", False][2]
    dec_slow = kernels["decode", True][2] / kernels["decode", False][2]
    S = context
    return Group(
        Heading("5. Attention: materialized scores against minimum traffic"),
        Table(["phase", "kernel", "FLOPs", "bytes", "attention >=", "pass >="], rows),
        Observations(
            [
                f"Materializing the scores makes the prefill pass {fmt_ratio(pre_slow)} slower "
                f"and the decode step {fmt_ratio(dec_slow)}. In prefill the scores are a "
                f"{S:,} x {S:,} square per head and dwarf Q, K and V; in decode they are one "
                "row per head, small next to the cached K and V that must be read anyway.",
            ]
        ),
    )


def speed_png(
    path: str, phases: Mapping[str, Sequence[OpTime]], chip: Chip, precision: str
) -> Figure:
    """The saved prefill/decode roofline (phase -> operator times), with what to look at."""
    ridge = chip.ridge_point(precision)

    def on_flat(phase: str, times: Sequence[OpTime]) -> str:  # how many of the drawn ones
        drawn = [t for t in times if t.op.flops and t.op.nbytes]
        return f"{sum(t.op.intensity >= ridge for t in drawn)} of {phase}'s {len(drawn)}"

    where = " and ".join(on_flat(phase, times) for phase, times in phases.items())
    caption = (
        f"Every operator of one prefill pass (hollow squares) and of one decode step (dots) "
        f"that moves bytes, on the {chip.name}'s {precision} roofline (ridge {ridge:.0f} "
        "FLOP/B, dotted). Look at which side of the ridge each phase lands: the flat compute "
        f"roof holds {where} operators; everything left of the ridge runs at the speed of "
        "memory, where only moving fewer bytes helps."
    )
    return figure(path, caption, display_path(path))


def speed_summary(
    model: Model,
    chip: Chip,
    precision: str,
    dtypes: DTypes,
    n_params: int,
    ttft: float,
    tpot: float,
    batch: int,
    context: int,
    achievable: tuple[float, float, Sequence[str]] | None = None,
) -> Group:
    """Lecture 06's lines for a capacity plan: the model, its size and its two time bounds.

    `achievable`: (TTFT, TPOT, which roofs were measured) at the hardware table's achievable
    roofs, printed beside the spec bounds.
    """
    published = model.published_params or float(n_params)
    rows = [
        ["model / chip", f"{model.name} on {chip.name}, {precision} compute"],
        ["storage", dtypes.describe()],
        ["parameters (config / published)", f"{fmt_num(n_params)} / {fmt_num(published)}"],
        ["weights", fmt_gb(n_params * dtypes.w_bytes)],
        [
            "time to first token >=",
            f"{fmt_time(ttft, unit='ms', digits=3)} (batch {batch:,}, {context:,}-token prompts)",
        ],
        [
            "time per output token >=",
            f"{fmt_time(tpot, unit='ms', digits=3)} (batch {batch:,}, context {context:,})",
        ],
        ["decode throughput <=", f"{batch / tpot:,.1f} tokens/s"],
    ]
    if achievable is not None:
        a_ttft, a_tpot, measured = achievable
        got = [r for r in ("compute", "memory") if r in measured]
        rest = [r for r in ("compute", "memory") if r not in measured]
        which = "; ".join(
            part
            for part in (
                f"measured {' and '.join(got)} roof" + ("s" if len(got) > 1 else "") if got else "",
                f"{' and '.join(rest)} at spec: none published" if rest else "",
            )
            if part
        )
        rows += [
            [
                "time to first token, achievable roofs >=",
                f"{fmt_time(a_ttft, unit='ms', digits=3)} ({which})",
            ],
            [
                "time per output token, achievable roofs >=",
                f"{fmt_time(a_tpot, unit='ms', digits=3)} ({which})",
            ],
        ]
    return Group(Heading("Summary", page=""), Table(["quantity", "value"], rows))


# ---------------------------------------------------------------------------
# Lecture 07: the capacity ledger and the critical batch
# ---------------------------------------------------------------------------
def memory_section(
    model: Model,
    chip: Chip,
    dtypes: DTypes,
    context: int,
    ledgers: Mapping[int, MemoryLedger],
    kv_token: float,
    act_token: float,
    wall: int,
) -> Group:
    """The memory ledger at a few batches, the largest batch that fits and what to observe."""
    S, cap = context, chip.mem_capacity
    rows = [
        [
            f"{b:,}",
            fmt_gb(led.weights),
            fmt_gb(led.kv_cache),
            fmt_gb(led.activations),
            fmt_gb(led.overhead),
            fmt_gb(led.total),
            "fits" if led.fits(cap) else "OOM",
        ]
        for b, led in ledgers.items()
    ]
    one = ledgers[1]
    if wall:
        at_wall = ledgers[wall]
        act_share = at_wall.activations / at_wall.total
        result = f"Largest batch that fits: {wall:,} sequences at context {S:,}."
        items = [
            f"The weights are fixed at {fmt_gb(one.weights)}; each sequence adds "
            f"{fmt_bytes(kv_token * S)} of KV cache, so after weights and overhead the chip "
            f"holds {wall:,} sequences. At that batch the KV cache is "
            f"{fmt_gb(at_wall.kv_cache)}, {at_wall.kv_cache / at_wall.weights:.1f}x the "
            "weights.",
            (
                f"Activations stay small in decode ({fmt_bytes(at_wall.activations)}, "
                f"{act_share:.1%} of the total at batch {wall:,}) because only one token per "
                "sequence is in flight."
                if act_share < 0.05
                else f"Activations are {act_share:.1%} of the total at batch {wall:,}: with a "
                "context this short, the one token in flight per sequence weighs about as much "
                f"as its cache ({fmt_kib(act_token, 2)} against {fmt_kib(kv_token * S, 2)}), so "
                "the "
                "activation assumption matters."
            ),
        ]
    else:
        chips_needed = math.ceil(one.total / cap)
        if one.weights > cap:
            result = f"Largest batch that fits: 0 (the weights alone need {fmt_gb(one.weights)})."
            what = f"The weights alone ({fmt_gb(one.weights)}) exceed"
        else:
            result = f"Largest batch that fits: 0 (one sequence already needs {fmt_gb(one.total)})."
            what = f"One sequence with its weights and overhead ({fmt_gb(one.total)}) exceeds"
        items = [
            f"{what} the chip's {fmt_gb(cap)}: this model needs at least {chips_needed} chips "
            "(tensor parallelism) or smaller weights. The speed ledger of lecture 06 is what "
            "one chip would do if it could hold them.",
        ]
    L = model.n_layers
    return Group(
        Heading(f"1. Memory ledger at context {S:,} on {chip.name} ({fmt_gb(cap)})"),
        Text(
            f"KV cache per token: {fmt_kib(kv_token, 2)} (2 x {L} layers x {model.n_kv_heads} KV "
            f"heads x {model.d_head} x {dtypes.kv_bytes:g} B); per {S:,}-token sequence: "
            f"{fmt_kib(kv_token * S, 2)}."
        ),
        Text(
            f"Assumptions: activations {fmt_kib(act_token, 2)} per active token "
            f"({ACT_VECTORS_PER_TOKEN} x d_model x {dtypes.act_bytes:g} B); overhead "
            f"{LLM_OVERHEAD_RATE:.0%} of the other three.\n"
        ),
        Table(["batch", "weights", "KV cache", "activations", "overhead", "total", "fits?"], rows),
        Text("\n" + result),
        Observations(items),
    )


def critical_batch_section(
    shapes: Sequence[tuple[MatmulShape, int | None]],
    knee: int | None,
    wall: int,
    chip: Chip,
    precision: str,
    dtypes: DTypes,
    context: int,
) -> Group:
    """Each weight matmul's critical batch, decode's as a whole, and the knee against the wall."""
    ridge, w = chip.ridge_point(precision), dtypes.w_bytes
    rows = [[s.name, f"{s.K:,}", f"{s.N:,}", f"x {s.count}", fmt_batch(cb)] for s, cb in shapes]
    rows.append(["all weight matmuls", "", "", "", fmt_batch(knee)])
    items = []
    if knee is not None:
        items.append(
            f"With {w:g}-byte weights a matmul's intensity is close to 2B / {w:g} FLOP/byte "
            f"while B is small, so it meets the ridge of {ridge:.0f} near B = "
            f"{ridge * w / 2:.0f}; the narrow K and V projections need a larger batch because "
            "their activations weigh more."
        )
        if wall and wall < knee:
            items.append(
                f"At {context:,} tokens of context the memory wall ({wall:,}) comes before the "
                f"knee ({knee:,}): on this chip decode stays bandwidth-bound at every batch that "
                "fits. A shorter context, a smaller KV cache or smaller weights moves the wall."
            )
        elif wall:
            items.append(
                f"The knee ({knee:,}) comes before the memory wall ({wall:,}): between them the "
                "weight matmuls are compute-bound, while attention still reads its KV cache at "
                "memory speed."
            )
    return Group(
        Heading(f"2. Critical batch of decode's weight matmuls on {chip.name} ({precision})"),
        Table(["matmul", "K", "N", "per step", "critical batch"], rows),
        Text(f"\nDecode critical batch: {fmt_batch(knee)} (ridge {ridge:.0f} FLOP/byte)."),
        Observations(items) if items else None,
    )


def capacity_png(path: str, chip: Chip, wall: int, context: int) -> Figure:
    """The saved memory-ledger figure, with a caption that says what to look at."""
    where = (
        f"the total crosses it at B = {wall:,}, the memory wall"
        if wall
        else "the weights alone already pass it, so no batch fits"
    )
    caption = (
        f"The four terms of the capacity ledger against batch at a context of {context:,} "
        f"tokens, stacked, under the {chip.name}'s {fmt_gb(chip.mem_capacity)} (dashed). The "
        f"weights are a fixed floor and the KV cache grows in step with the batch: {where}."
    )
    return figure(path, caption, display_path(path))


def capacity_summary(
    kv_token: float, context: int, wall: int, knee: int | None, ridge: float
) -> Group:
    """Lecture 07's lines for a capacity plan: KV per token and sequence, wall and knee."""
    rows = [
        ["KV cache per token", fmt_kib(kv_token, 2)],
        [f"KV cache per {context:,}-token sequence", fmt_kib(kv_token * context, 2)],
        ["largest batch that fits", f"{wall:,}"],
        ["decode critical batch", fmt_batch(knee)],
        ["ridge point (FLOP/byte)", f"{ridge:.0f}"],
    ]
    return Group(Heading("Summary", page=""), Table(["quantity", "value"], rows))


# ---------------------------------------------------------------------------
# Lecture 08: the levers
# ---------------------------------------------------------------------------
def quantization_section(
    quant: Mapping[str, Mapping[str, Any]], precision: str, batch: int, context: int
) -> Group:
    """Weight-only quantization: what each weight precision changes, and what it does not."""
    B = batch
    rows = [
        [
            w,
            fmt_gb(q["weights"]),
            fmt_time(q["ttft"]),
            fmt_time(q["tpot"]),
            f"{B / q['tpot']:,.0f}",
            fmt_batch(q["knee"]),
            f"{q['wall']:,}",
            fmt_kib(q["kv_token"], 2),
            fmt_bytes(q["attn_bytes"]),
        ]
        for w, q in quant.items()
    ]
    q16, q4 = quant["bf16"], quant["int4"]
    weight_ratio, tpot_ratio = q16["weights"] / q4["weights"], q16["tpot"] / q4["tpot"]
    why_less = (
        "less than the byte ratio because the KV cache is still read at full size"
        if tpot_ratio < 0.99 * weight_ratio
        else "the full byte ratio, since weight reads set the step time"
    )
    knee16, knee4 = fmt_batch(q16["knee"]), fmt_batch(q4["knee"])
    return Group(
        Heading(
            f"1. Weight-only quantization ({precision} compute, batch {B:,}, context {context:,})"
        ),
        Table(
            [
                *("weights", "size", "TTFT >=", "TPOT >=", "tok/s <="),
                *("knee", "fits", "KV/token", "attn bytes"),
            ],
            rows,
        ),
        Observations(
            [
                f"Changes: int4 weights are {weight_ratio:.1f}x smaller, and the decode step gets "
                f"{fmt_ratio(tpot_ratio)} faster at batch {B:,}, {why_less}. The knee drops from "
                f"{knee16} to {knee4}: fewer bytes per weight means fewer rows are needed to earn "
                "the ridge. The freed memory holds KV cache, so the largest batch grows from "
                f"{q16['wall']:,} to {q4['wall']:,}.",
                f"Unchanged: prefill ({fmt_ratio(q16['ttft'] / q4['ttft'])} from int4), because "
                f"its matmuls are compute-bound and still compute at {precision}; the KV cache "
                f"per token ({fmt_kib(q4['kv_token'], 2)}); and the attention traffic per decode "
                "step "
                f"({fmt_bytes(q4['attn_bytes'])}). Only --kv changes those two.",
            ]
        ),
    )


def kv_heads_section(
    variants: Mapping[str, tuple[Model, Mapping[str, Any]]],
    chip: Chip,
    dtypes: DTypes,
    batch: int,
    context: int,
) -> Group:
    """A model against its twin with other KV heads: cache, wall, traffic and step time."""
    S, B = context, batch
    rows = [
        [
            m.name,
            f"{m.n_kv_heads}",
            fmt_kib(v["kv"], 2),
            fmt_kib(v["kv"] * S, 2),
            f"{v['wall']:,}",
            fmt_bytes(v["attn_bytes"]),
            fmt_time(v["tpot"]),
        ]
        for m, v in variants.values()
    ]
    (mha, m_stats), (grouped, g_stats) = sorted(variants.values(), key=lambda mv: -mv[0].n_kv_heads)
    kv_ratio = m_stats["kv"] / g_stats["kv"]
    return Group(
        Heading(f"2. KV heads and the KV cache ({dtypes.kv} cache, context {S:,}, batch {B:,})"),
        Table(
            ["model", "KV heads", "KV/token", "KV/sequence", "fits", "attn bytes", "TPOT >="], rows
        ),
        Text(f"\nKV cache, {mha.name} over {grouped.name}: {fmt_ratio(kv_ratio)}"),
        Observations(
            [
                f"Full multi-head attention stores {fmt_ratio(kv_ratio)} the KV cache of the "
                f"grouped version: {mha.n_kv_heads} KV heads against {grouped.n_kv_heads}, the "
                f"group size {mha.n_heads // grouped.n_kv_heads}. At {S:,} tokens that is "
                f"{fmt_kib(m_stats['kv'] * S, 2)} per sequence against "
                f"{fmt_kib(g_stats['kv'] * S, 2)}, "
                + (
                    f"and the largest batch is {m_stats['wall']:,} against {g_stats['wall']:,}."
                    if g_stats["wall"]
                    else f"though on {chip.name} neither fits: the weights come first."
                ),
                "Decode reads the whole cache every step, so attention traffic shrinks by the "
                f"same factor ({fmt_bytes(m_stats['attn_bytes'])} against "
                f"{fmt_bytes(g_stats['attn_bytes'])} per step at batch {B:,}); decode "
                "attention's intensity equals the group size, query heads / KV heads.",
            ]
        ),
    )


def chips_section(
    model: Model,
    stats: Mapping[str, Mapping[str, Any]],
    chips: Mapping[str, Chip],
    precision: str,
    asked: str,
    batch: int,
    context: int,
) -> Group:
    """Every chip with the precision: ridge, bandwidth, TTFT, TPOT at batch 1, wall and knee."""
    rows = [
        [
            chips[key].name,
            f"{chips[key].ridge_point(precision):.0f}",
            fmt_bw(chips[key].mem_bw),
            fmt_time(s["ttft"]),
            fmt_time(s["tpot1"]),
            f"{s['wall']:,}",
            fmt_batch(s["knee"]),
        ]
        for key, s in stats.items()
    ]
    note = (
        Text(f"(not every chip in the figure has a {asked} peak, so this section uses bf16)")
        if precision != asked
        else None
    )
    return Group(
        Heading(f"3. {model.name} across chips ({precision} compute, context {context:,})"),
        note,
        Table(
            [
                *("chip", "ridge", "bandwidth"),
                *(f"TTFT (B={batch:,}) >=", "TPOT (B=1) >=", "fits", "knee"),
            ],
            rows,
        ),
    )


def throughput_table(curves: Mapping[str, tuple[str, Sequence[tuple[int, float]], int]]) -> Table:
    """key -> (chip name, (batch, tokens/s) curve, wall): tokens/s at B = 1 and at the wall."""
    rows = [
        [name, f"{c[0][1]:,.0f}", f"{wall:,}", f"{c[-1][1]:,.0f}"] if c else [name, "-", "0", "-"]
        for name, c, wall in curves.values()
    ]
    return Table(["chip", "tok/s at B=1", "memory wall", "tok/s at the wall"], rows)


def throughput_png(path: str, model: Model, context: int, chips: Sequence[Chip]) -> Figure:
    """The saved throughput figure, with a caption that says what to look at."""
    caption = (
        f"Decode throughput bound of {model.name} against batch at a context of {context:,} "
        f"tokens, one panel per chip ({', '.join(c.name for c in chips)}). Each curve stops at "
        "its memory wall (solid line); the dashed line is the batch where the weight matmuls "
        "turn compute-bound, the dotted one the bandwidth divided by one sequence's KV cache. "
        "Look at how each curve bends: a bigger batch shares the weights, but every sequence "
        "reads its own cache, so the curve flattens towards the dotted ceiling."
    )
    return figure(path, caption, display_path(path))


def _only_less_faster(gain: float, other: float, digits: int = 2) -> bool:
    """True when speed-up `gain` is above x1 but below `other`, as both print ('x1.50')."""
    shown, other_shown = round(gain, digits), round(other, digits)
    return 1 < shown < other_shown


def chips_observations(
    model: Model,
    stats: Mapping[str, Mapping[str, Any]],
    curves: Mapping[str, tuple[str, Sequence[tuple[int, float]], int]],
    chips: Mapping[str, Chip],
    precision: str,
    dtypes: DTypes,
    context: int,
) -> Observations:
    """What the chip comparison shows: bandwidth sets decode, compute prefill, KV the ceiling."""
    h100, h200, b200 = chips["h100"], chips["h200"], chips["b200"]
    h1, h2 = stats[h100.key], stats[h200.key]
    ridges = [chips[k].ridge_point(precision) for k in stats]
    kv_seq = kv_cache_bytes_per_token(model, dtypes.kv_bytes) * context
    one = decode_ledger(model, 1, context, dtypes)  # batch 1: every matmul memory-bound?
    b1_memory_bound = all(
        t.bound == "memory"
        for key in stats
        for t in op_times(one, chips[key], precision)
        if t.op.kind == "matmul"
    )
    items = [
        f"At batch 1 the weight matmuls run at about {2 / dtypes.w_bytes:.0f} FLOP/byte while "
        f"the ridges above run from {min(ridges):.0f} to {max(ridges):.0f}: "
        + (
            "decode is bandwidth-bound on every chip."
            if b1_memory_bound
            else "some chip's ridge is low enough that a matmul is compute-bound."
        ),
        f"{h200.name} has {ratio(h200.peak_flops(precision) / h100.peak_flops(precision))} the "
        f"compute of {h100.name} and {ratio(h200.mem_bw / h100.mem_bw)} the bandwidth: decode at "
        f"batch 1 gets {speed(h1['tpot1'], h2['tpot1'])}, prefill "
        + ("only " if _only_less_faster(h1["ttft"] / h2["ttft"], h1["tpot1"] / h2["tpot1"]) else "")
        + f"{speed(h1['ttft'], h2['ttft'])}, because decode waits on bytes and prefill on "
        "FLOPs.",
        f"The throughput flattens because each sequence reads its own {fmt_gb(kv_seq)} of KV "
        f"cache per step: no batch beats bandwidth / that, {h100.mem_bw / kv_seq:,.0f} tokens/s "
        f"on {h100.name} and {b200.mem_bw / kv_seq:,.0f} on {b200.name}.",
    ]
    past_knee = [
        key
        for key, (_, curve, wall) in curves.items()
        if curve and stats[key]["knee"] and wall > stats[key]["knee"]
    ]
    if past_knee:
        c, (_, curve, _) = chips[past_knee[0]], curves[past_knee[0]]
        items.append(
            f"Past its knee (B = {stats[c.key]['knee']:,}) the weight matmuls on {c.name} are "
            "compute-bound and cost "
            f"{fmt_time(one.kind_total('matmul') / c.peak_flops(precision))} of compute per "
            f"token, so the curve levels off at {curve[-1][1]:,.0f} tokens/s, below the "
            "bandwidth ceiling: a bigger batch adds work as fast as it adds tokens."
        )
    return Observations(items)


def png_hint(name: str) -> Text:
    """The reminder, without --png, that the flag saves the lecture's figure."""
    return Text(f"\n(add --png to save the figure {name})")
