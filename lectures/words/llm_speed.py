"""Lecture 06's words (standard library only); ``Setup`` and ``png_hint`` serve 07-14 too."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from common.formulas.transformer import DTypes, OpTime, PassLedger
from common.hw_specs import Chip
from common.present.claims import above, counted, direction, listing, n_of_m, than
from common.present.console import (
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_gb,
    fmt_intensity,
    fmt_num,
    fmt_pct,
    fmt_rate,
    fmt_time,
)
from common.present.display import Figure, Group, Table, Text
from common.present.say import say
from common.tables.models import Model
from lectures.words import figure, section


@dataclass(frozen=True)
class Setup:  # what the flags chose, with the chip's peak (FLOP/s) and ridge (FLOP/byte)
    model: Model
    chip: Chip
    precision: str
    dtypes: DTypes
    context: int
    batch: int
    peak: float
    ridge: float


@dataclass(frozen=True)
class Phase:  # one pass: its ledger, operator times, bound, compute time and weight-read time (s)
    ledger: PassLedger
    times: Sequence[OpTime]
    time: float  # sum of max(F / P_peak, D / beta)
    compute: float  # F / P_peak
    weights: float  # weight bytes / beta


def model_section(s: Setup) -> Group:
    """The model's shapes from its config.json, the chip's figures and the storage."""
    m, c = s.model, s.chip
    head = "hidden_size / num_attention_heads" if m.d_head * m.n_heads == m.d_model else "head_dim"
    rows = [
        ["layers", f"{m.n_layers}", "num_hidden_layers"],
        ["d_model", f"{m.d_model:,}", "hidden_size"],
        ["query heads", f"{m.n_heads}", "num_attention_heads"],
        ["KV heads", f"{m.n_kv_heads}", f"num_key_value_heads ({m.attention_kind})"],
        ["head dim", f"{m.d_head}", head],
        ["MLP width d_ff", f"{m.d_ff:,}", "intermediate_size"],
        ["MLP", "gated SiLU" if m.gated_mlp else "ungated", "hidden_act, gate_proj"],
        ["vocabulary", f"{m.vocab_size:,}", "vocab_size"],
        ["embeddings", "tied" if m.tied_embeddings else "untied", "tie_word_embeddings"],
        ["window", f"{m.max_context:,} tokens", "max_position_embeddings"]]  # fmt: skip
    chip = f"\nChip: {c.name}, {s.precision} peak {fmt_rate(s.peak)}, memory bandwidth "
    chip += f"{fmt_bw(c.mem_bw)},\n      capacity {fmt_gb(c.mem_capacity)}, ridge point "
    chip += f"{fmt_ridge(s.ridge)} FLOP/byte."
    storage = f"Storage: {s.dtypes.describe()}. Context {counted(s.context, 'token')}, batch "
    storage += f"{s.batch:,}."
    table = Table(["quantity", "value", "config.json field"], rows)
    shapes = f"Model shapes from {m.config_source}:\n"
    return section(f"1. {m.name} on {c.name}", shapes, table, chip, storage)


NEAR = 0.10  # a count this close to the published size is said to be "within" it


def fmt_ridge(x: float) -> str:
    """A ridge or intensity (FLOP/byte) as lectures 06-08 and 13 print it: whole from 10 on
    (1,181), two significant digits below (a peak edited to 1/1000: a ridge of 0.3, not 0)."""
    return f"{x:,.0f}" if x >= 9.5 else f"{x:.2g}"


_ms = functools.partial(fmt_time, unit="ms", digits=3)


def parameter_section(s: Setup, parts: Mapping[str, int], n_params: int) -> Group:
    """Parameters by part with their formulas, against the published size."""
    m = s.model
    formulas = {"embedding": "V d", "attention": "L (2 d Hq dh + 2 d Hkv dh)"}
    formulas |= {"mlp": f"L {3 if m.gated_mlp else 2} d d_ff"}
    formulas["norms"] = f"({m.norms_per_layer} L + 1) d"  # Gemma 2 and 3: four a layer
    formulas["biases, sinks, q/k norms"] = f"L x {m.extra_layer_params:,}"  # Qwen3's q/k norms
    formulas["lm_head"] = "0 (tied)" if m.tied_embeddings else "V d"
    share = {name: n / n_params for name, n in parts.items()}
    rows = [[k, formulas.get(k, "-"), fmt_num(n), fmt_pct(share[k], 1)] for k, n in parts.items()]
    rows.append(["total", "", fmt_num(n_params), "100.0%"])
    if published := m.published_params:
        gap = abs(n_params / published - 1)
        near = f"within {gap:.2%} of" if round(gap, 4) else "less than 0.01% away from"
        near = near if gap <= NEAR else than(n_params / published)  # not 'within 97.53%'
        source = f" ({m.params_source})" if m.params_source else ""  # none given: no '()'
        size = f"Published size: {fmt_num(published)}{source}."
        against = f"The count from the config, {fmt_num(n_params)}, is {near} the published "
        against += f"{fmt_num(published)}."
    else:
        size = "Published size: none in the model table."
        against = f"The count from the config, {fmt_num(n_params)}, has no published size to "
        against += "be checked against: the model table gives none for this model."
    mlp = f"The MLP holds {share['mlp']:.1%} of the weights and attention "
    mlp += f"{share['attention']:.1%}; the embedding and LM head together hold "
    mlp += f"{share['embedding'] + share['lm_head']:.1%}. At {s.dtypes.weights} the "
    mlp += f"weights take {fmt_gb(n_params * s.dtypes.w_bytes)}."
    table = Table(["part", "formula", "parameters", "share"], rows)
    return section("2. Parameters from the config", table, f"\n{size}", items=[against, mlp])


def _row(name: str, f: float, d: float, bound: str, t: float, share: str) -> list[str]:
    return [name, fmt_flops(f), fmt_bytes(d), fmt_intensity(f, d, 2, 0), bound, fmt_time(t), share]


def _per_s(rate: float) -> str:
    """A rate bound: one decimal from 1 up, three significant digits below ('0.216', not
    '0.2', which would state a lower ceiling than the bound)."""
    return f"{rate:,.1f}" if rate >= 1 else f"{rate:.3g}"


def _pct(t: float, p: Phase) -> str:
    """t's share of the pass; a share that is not zero never prints as 0.0%."""
    return fmt_pct(t / p.time, 1)


def pass_table(p: Phase) -> Table:
    """One pass's ledger: one layer's operators, x layers, then the model-level operators."""
    L, n = p.ledger.model.n_layers, len(p.ledger.layer)
    rows = [
        _row(t.op.name, t.op.flops, t.op.nbytes, t.bound, t.lower_s, _pct(t.count * t.lower_s, p))
        for t in p.times]  # fmt: skip
    f, d = (sum(getattr(t.op, k) for t in p.times[:n]) for k in ("flops", "nbytes"))
    lt = sum(t.lower_s for t in p.times[:n])
    rows[n:n] = [
        _row("= one layer", f, d, "", lt, ""),
        _row(f"x {L} layers", L * f, L * d, "", L * lt, _pct(L * lt, p))]  # fmt: skip
    rows.append(_row("= whole pass", p.ledger.flops, p.ledger.nbytes, "", p.time, "100.0%"))
    return Table(["operator", "FLOPs", "bytes", "FLOP/B", "bound", "time >=", "of pass"], rows)


def prefill_section(s: Setup, p: Phase) -> Group:
    """Prefill's ledger, the time to first token and what to observe."""
    pre, B, S, ai = p.ledger, p.ledger.batch, p.ledger.context, p.ledger.flops / p.ledger.nbytes
    fused = [t for t in p.times if t.op.kind in ("norm", "elementwise")]
    small = sum(t.count * t.lower_s for t in fused)
    heavy = sum(t.count * t.lower_s for t in p.times if t.bound == "compute" and t.op.nbytes)
    moving = [t.bound for t in p.times if t.op.nbytes]  # n of them compute-bound
    n, of, share = moving.count("compute"), len(moving), _pct(heavy, p)
    busy = f"Compute-bound operators ({n_of_m(n, of)} that move bytes) take {share} of the time"
    busy = busy if n else "No operator that moves bytes is compute-bound"
    items = [
        f"Prefill does {fmt_flops(pre.flops)} and moves {fmt_bytes(pre.nbytes)}: {fmt_ridge(ai)} "
        f"FLOP per byte overall, {above(ai, s.ridge, fmt_ridge)} the ridge of "
        f"{fmt_ridge(s.ridge)}. {busy}, and the whole-pass compute time alone is "
        f"{fmt_time(p.compute)}.",
        "Attention (scores, softmax, weighted sum) is "
        f"{fmt_pct(pre.kind_total('attention') / pre.flops, 1)} of the FLOPs at "
        f"{counted(S, 'token')}; its share grows with the prompt, since its FLOPs grow as S² "
        "and the matmuls' as S.",
        "Of the norms, SiLU and residual adds, "
        f"{n_of_m(sum(t.bound == 'memory' for t in fused), len(fused))} are memory-bound; together "
        f"they cost {fmt_time(small)} ({_pct(small, p)} of the pass) in this unfused ledger. Real "
        "engines fuse them into the neighbouring matmuls."]  # fmt: skip
    title = f"3. Prefill: {B:,} x {S:,} prompt tokens on {s.chip.name} ({s.precision})"
    ttft = f"\nTime to first token >= {fmt_time(p.time)} (prefill of {counted(B * S, 'token')})."
    return section(title, pass_table(p), ttft, items=items)


def decode_section(s: Setup, p: Phase) -> Group:
    """Decode's ledger, the time per output token, the throughput and what to observe."""
    dec, B, S, w = p.ledger, p.ledger.batch, p.ledger.context, p.ledger.dtypes.w_bytes
    q = next(t.op.intensity for t in p.times if t.op.name == "Q projection")
    moving = [t.bound for t in p.times if t.op.nbytes]  # n of them compute-bound
    n, of = moving.count("compute"), len(moving)
    bound = "Every operator that moves bytes is memory-bound."
    if n:
        bound = f"{n_of_m(n, of).capitalize()} operators that move bytes are compute-bound at "
        bound += "this batch."
    items = [
        f"Each {w:g}-byte weight is read once per step and used in {B:,} "
        f"multiply-add{'s' if B > 1 else ''} ({2 * B:,} FLOP), so the Q projection runs at {q:.2f} "
        f"FLOP/byte, {above(q, s.ridge, fmt_ridge)} the ridge of {fmt_ridge(s.ridge)}. {bound}",
        f"The step reads {fmt_gb(dec.weight_bytes)} of weights and {fmt_gb(dec.kv_bytes)} of "
        f"KV cache: weights alone need {fmt_time(p.weights)} at {fmt_bw(s.chip.mem_bw)}, "
        f"{_pct(p.weights, p)} of the bound. The FLOPs ({fmt_flops(dec.flops)}) would take "
        f"{fmt_time(p.compute)} at peak."]  # fmt: skip
    if direction(dec.weight_bytes, dec.kv_bytes, fmt_gb) > 0:
        text = f"At batch {B:,} the KV cache read per step ({fmt_gb(dec.kv_bytes)}) outweighs the "
        text += "weights: a bigger batch shares the weights among more tokens, but every sequence "
        items.append(text + "still reads its own cache.")
    title = f"4. Decode: {B:,} x 1 new token, context {S:,}, on {s.chip.name} ({s.precision})"
    tpot = f"\nTime per output token >= {fmt_time(p.time)}; decode throughput <= "
    return section(title, pass_table(p), tpot + f"{_per_s(B / p.time)} tokens/s.", items=items)


def speed_png(path: str, s: Setup, phases: Mapping[str, Phase]) -> Figure:
    """The saved prefill/decode roofline, with what to look at."""
    flat = [
        say(
            "{count} {phase}",
            count=n_of_m(sum(t.bound == "compute" for t in drawn), len(drawn)),
            phase=say({"prefill": "prefill", "decode": "decode"}[name]),
        )
        for name, p in phases.items()
        for drawn in [[t for t in p.times if t.op.flops and t.op.nbytes]]]  # fmt: skip
    caption = say(
        "Every operator of one prefill pass (hollow squares) and of one decode step (dots) "
        "that moves bytes, on the {chip}'s {dtype} roofline (ridge "
        "{ridge} FLOP/B, dotted). Look at which side of the ridge each phase lands: "
        "the flat compute roof holds {flat} operators; everything left of the "
        "ridge runs at the speed of memory, where only moving fewer bytes helps.",
        chip=s.chip.name, dtype=s.precision, ridge=fmt_ridge(s.ridge), flat=listing(flat),
    )  # fmt: skip
    return figure(path, caption)


def speed_summary(s: Setup, n_params: int, ttft: float, tpot: float, achievable: tuple) -> Group:
    """The lines for a plan: size, both time bounds at spec and `achievable` (TTFT, TPOT, roofs)."""
    m, B, S = s.model, s.batch, s.context
    published = m.published_params or n_params
    got = [r for r in ("compute", "memory") if r in achievable[2]]
    rest = [r for r in ("compute", "memory") if r not in got]
    which = "; ".join(
        [f"measured {' and '.join(got)} roof" + "s" * (len(got) > 1)] * bool(got)
        + [f"{' and '.join(rest)} at spec: none published"] * bool(rest))  # fmt: skip
    rows = [
        ["model / chip", f"{m.name} on {s.chip.name}, {s.precision} compute"],
        ["storage", s.dtypes.describe()],
        ["parameters (config / published)", f"{fmt_num(n_params)} / {fmt_num(published)}"],
        ["weights", fmt_gb(n_params * s.dtypes.w_bytes)],
        ["time to first token >=", f"{_ms(ttft)} (batch {B:,}, {S:,}-token prompts)"],
        ["time per output token >=", f"{_ms(tpot)} (batch {B:,}, context {S:,})"],
        ["decode throughput <=", f"{_per_s(B / tpot)} tokens/s"],
        ["time to first token, achievable roofs >=", f"{_ms(achievable[0])} ({which})"],
        ["time per output token, achievable roofs >=", f"{_ms(achievable[1])} ({which})"],
    ]
    return section("Summary", Table(["quantity", "value"], rows), page="")


def png_hint(name: str) -> Text:
    """The reminder, without --png, that the flag saves the lecture's figure."""
    return Text(f"\n(add --png to save the figure {name})")
