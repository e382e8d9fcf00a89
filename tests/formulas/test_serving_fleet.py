"""Lecture 14's serving formulas against hand arithmetic and the course's own ledgers:
a mixed continuous-batching step, chunked prefill, the P:D balance, cost and node-hours."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.formulas import serving
from common.formulas import transformer as llm
from common.hw_specs import H100, Chip, Figure
from common.tables.models import DEEPSEEK_V3, LLAMA_3_8B, LLAMA_3_70B, QWEN3_30B_A3B


def test_cost_and_node_hours_by_hand() -> None:
    # $2 an hour over 1,850 tokens/s: 2 / 3600 / 1850 x 1e6 = $0.3003 per million
    assert serving.cost_per_million(1850, 2.0) == pytest.approx(0.30030, rel=1e-4)
    # DeepSeek's decode: 14.8k tokens/s a node of 8 at $2 a GPU-hour: 16 / 3600 / 14.8e3 x 1e6
    assert serving.cost_per_million(14.8e3 / 8, 2.0) == pytest.approx(0.3003, rel=1e-3)
    assert serving.node_hours(3.6e6, 1000) == pytest.approx(1.0)
    # 168e9 output tokens at 14.8k/s a node: 11,351,351 s = 3,153.2 node-hours
    assert serving.node_hours(168e9, 14.8e3) == pytest.approx(3153.15, rel=1e-5)
    assert serving.pd_ratio(3.0, 6.0) == 0.5


# half of Llama-3-8B's layers on a 1,024-token window; DeepSeek-V3 has three dense layers
WINDOWED = dataclasses.replace(LLAMA_3_8B, sliding_window=1024, sliding_layers=16)


@pytest.mark.parametrize("dt", [None, llm.DTypes(weights="fp8", kv="fp8")])
@pytest.mark.parametrize("model", [LLAMA_3_8B, QWEN3_30B_A3B, DEEPSEEK_V3, WINDOWED])
def test_a_mixed_step_without_a_chunk_is_a_decode_step(model, dt) -> None:
    mixed = serving.mixed_step_ledger(model, 0, 1, 64, 4096, dt)
    dec = llm.decode_ledger(model, 64, 4096, dt)
    assert (mixed.flops, mixed.nbytes) == pytest.approx((dec.flops, dec.nbytes))
    assert (mixed.phase, mixed.materialized) == ("mixed", False)
    alone = serving.mixed_step_ledger(model, 512, 512, 0, 1, dt)
    pre = llm.prefill_ledger(model, 1, 512, dt)
    assert (alone.flops, alone.nbytes) == pytest.approx((pre.flops, pre.nbytes))


def test_a_mixed_step_reads_the_weights_once() -> None:
    """Dense: FLOPs add up (every operator is linear in its rows); the KV traffic adds up;
    the weights are read once, not once for the chunk and once for the decode tokens."""
    mixed = serving.mixed_step_ledger(LLAMA_3_8B, 512, 512, 64, 4096)
    pre, dec = llm.prefill_ledger(LLAMA_3_8B, 1, 512), llm.decode_ledger(LLAMA_3_8B, 64, 4096)
    assert mixed.flops == pytest.approx(pre.flops + dec.flops)
    assert mixed.kv_bytes == pytest.approx(pre.kv_bytes + dec.kv_bytes)
    # 8.03e9 parameters x 2 bytes, less the embedding table (128,256 x 4,096), of which only
    # the 512 + 64 rows looked up are read
    m = LLAMA_3_8B
    weights = (llm.parameter_count(m) - m.vocab_size * m.d_model) * 2
    assert mixed.weight_bytes == pytest.approx(weights + 576 * m.d_model * 2)
    assert mixed.weight_bytes < pre.weight_bytes + dec.weight_bytes - 0.9 * weights


@given(st.integers(1, 2048), st.integers(1, 256))
def test_a_mixed_step_never_beats_its_parts(chunk: int, decode: int) -> None:
    """One step of c + m tokens takes at least the longer of its two parts alone, and at
    most both of them one after the other (it shares the weight reads)."""
    t = lambda led: llm.pass_time(led, H100, "bf16")  # noqa: E731
    both = t(serving.mixed_step_ledger(LLAMA_3_8B, chunk, chunk, decode, 4096))
    pre = t(serving.mixed_step_ledger(LLAMA_3_8B, chunk, chunk, 0, 1))
    dec = t(llm.decode_ledger(LLAMA_3_8B, decode, 4096))
    assert max(pre, dec) * (1 - 1e-9) <= both <= (pre + dec) * (1 + 1e-9)


def _holding(nbytes: float) -> Chip:
    """An H100 whose memory holds exactly `nbytes`."""
    return dataclasses.replace(H100, mem_capacity_figure=Figure(nbytes, "B", "test"))


def test_gpus_to_hold_counts_a_ledger_that_just_fits() -> None:
    # one sequence's ledger exactly one GPU's memory: 1 GPU (<=); a 1,024th of it: all 1,024
    # (the last power of two tried); a 2,048th: none
    need = llm.model_memory_ledger(LLAMA_3_70B, 1, 4096).total
    assert serving.gpus_to_hold(LLAMA_3_70B, _holding(need), 4096) == 1
    assert serving.gpus_to_hold(LLAMA_3_70B, _holding(need / 1024), 4096) == 1024
    assert serving.gpus_to_hold(LLAMA_3_70B, _holding(need / 2048), 4096) == 0
    # fp8 weights: their own ledger is what must fit, not the bf16 one
    fp8 = llm.DTypes(weights="fp8")
    need = llm.model_memory_ledger(LLAMA_3_70B, 1, 4096, fp8).total
    assert serving.gpus_to_hold(LLAMA_3_70B, _holding(need), 4096, fp8) == 1


def test_gpus_and_wall_by_hand() -> None:
    # Llama-3-8B: 16 GB of bf16 weights fit one 80 GB H100; Llama-3-70B's 141 GB need two
    assert serving.gpus_to_hold(LLAMA_3_8B, H100, 4096) == 1
    assert serving.gpus_to_hold(LLAMA_3_70B, H100, 4096) == 2
    # on one GPU the wall is lecture 07's largest batch
    assert serving.largest_batch_on(LLAMA_3_8B, H100, 1, 4096) == llm.largest_batch(
        LLAMA_3_8B, H100, 4096
    )
    assert serving.largest_batch_on(LLAMA_3_70B, H100, 1, 4096) == 0
    # in fp8 its 71 GB of weights fit one GPU with room left: the fp8 ledger sets the wall
    fp8 = llm.DTypes(weights="fp8")
    b = serving.largest_batch_on(LLAMA_3_70B, H100, 1, 4096, fp8)
    totals = [llm.model_memory_ledger(LLAMA_3_70B, n, 4096, fp8).total for n in (b, b + 1)]
    assert b > 0 and totals[0] <= H100.mem_capacity < totals[1]
