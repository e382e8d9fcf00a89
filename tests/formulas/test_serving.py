"""Serving formulas against hand arithmetic, brute-force enumeration and DeepEP's published
latencies (the one it was calibrated on apart from the eleven it only checks); lecture 14's
against the course's own ledgers: a mixed continuous-batching step, chunked prefill, the
P:D balance, cost and node-hours."""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.formulas import predict, serving
from common.formulas import transformer as llm
from common.hw_specs import H100, Chip, Figure
from common.tables import measurements as pub
from common.tables.models import DEEPSEEK_V3, LLAMA_3_8B, LLAMA_3_70B, QWEN3_30B_A3B


def brute_remote_shares(experts: int, k: int, ep: int, node: int) -> tuple[float, float]:
    """Every choice of k of E experts for a token on GPU 0, experts E / N to a GPU in order:
    the shares of copies to another GPU of node 0 and to another node."""
    per_gpu = experts // ep
    same_node = other = copies = 0
    for chosen in itertools.combinations(range(experts), k):
        for e in chosen:
            gpu = e // per_gpu
            copies += 1
            same_node += 0 < gpu < node
            other += gpu >= node
    return same_node / copies, other / copies


@pytest.mark.parametrize(("experts", "k", "ep", "node"), [(8, 2, 4, 8), (16, 3, 16, 8),
                                                          (12, 4, 6, 2), (8, 1, 8, 4)])  # fmt: skip
def test_link_fractions_match_every_routing_choice(experts, k, ep, node) -> None:
    got = serving.link_fractions(ep, node)
    assert got == pytest.approx(brute_remote_shares(experts, k, ep, node))
    assert sum(got) == pytest.approx((ep - 1) / ep)  # every expert on another GPU


def test_dispatch_and_combine_bytes_by_hand() -> None:
    # DeepSeek-V3's layer: d = 7168, top-8, EP 8: 8 x 7/8 x 7168 = 50,176 elements a token
    assert serving.dispatch_bytes_per_token(7168, 8, 8, 1) == pytest.approx(50176)
    assert serving.combine_bytes_per_token(7168, 8, 8) == pytest.approx(100352)
    assert serving.dispatch_bytes_per_token(7168, 8, 1, 1) == 0.0  # one GPU: nothing leaves
    # FP8 with one fp32 scale per 128 elements: 50,176 x (1 + 4/128) = 50,176 + 1,568 B
    assert serving.dispatch_bytes_per_token(7168, 8, 8, 1 + 4 / 128) == pytest.approx(51744)
    t = serving.all_to_all_time(128, 7392, 8, 16, 8, 160e9, 50e9, 10e-6)
    assert t == pytest.approx(85.69408e-6)
    # EP 8 stays in the node: 6,623,232 B / 160 GB/s = 41.3952 us
    t = serving.all_to_all_time(128, 7392, 8, 8, 8, 160e9, 50e9, 0.0)
    assert t == pytest.approx(41.3952e-6)
    assert serving.imbalance_factor([4, 2, 1, 1]) == 2.0  # 4 against a fair share of 2
    assert serving.imbalance_factor([3, 3, 3]) == 1.0
    assert serving.imbalance_cost(1e-3, 2.0) == pytest.approx(1e-3)
    assert serving.imbalance_cost(1e-3, 1.0) == 0.0
    rows = predict.deepep_check()
    calibration = [r for r in rows if r[3]]
    assert [r[0] for r in calibration] == ["dispatch, EP 8"]
    assert calibration[0][1] == pytest.approx(calibration[0][2])
    errors = [p / m - 1 for _, p, m, calib in rows if not calib]
    assert len(errors) == 11
    assert statistics.median(abs(e) for e in errors) < 0.08  # 6.3% when written
    assert all(abs(e) < 0.16 for e in errors)  # worst: combine at EP 128, -15.8%
    # combine by hand at EP 16: 128 x 8 x 7,168 x 2 B = 14,680,064 B, half over the card:
    # 146.80064 us at 50 GB/s, + 35.6048 us = 182.40544 us against 195 us
    ep16 = next(p for label, p, _, _ in rows if label == "combine, EP 16")
    assert ep16 == pytest.approx(182.40544e-6)
    # 128 x 8 x 7/8 x 7,168 x (1 + 4/128) B = 6,623,232 B over 160 GB/s = 41.3952 us
    assert predict.deepep_latency() == pytest.approx(77e-6 - 41.3952e-6)
    assert "36 µs a call" in predict.ep_network(H100, 16, 1.0).notes[0]  # 35.6 µs
    for bw in pub.DEEPEP_NORMAL_BW[8]:
        assert 0.9 < bw / pub.H800_NVLINK.value <= 1.0


def brute_expected_tokens(a: float, K: int) -> float:
    """Every accept/reject pattern of K draft tokens with its probability: the target keeps
    the accepted prefix plus one token of its own."""
    total = 0.0
    for pattern in itertools.product((True, False), repeat=K):
        p = math.prod(a if ok else 1 - a for ok in pattern)
        prefix = next((i for i, ok in enumerate(pattern) if not ok), K)
        total += p * (prefix + 1)
    return total


@given(st.floats(0, 1), st.integers(1, 8))
def test_expected_tokens_match_every_acceptance_outcome(a, K) -> None:
    assert serving.expected_tokens(a, K) == pytest.approx(brute_expected_tokens(a, K))


def test_acceptance_for_speedup_inverts_it() -> None:
    # K = 1, a free draft: speed-up 1 + a, so 1.5 means a = 0.5
    assert serving.acceptance_for_speedup(1.5, 1, 0.0) == pytest.approx(0.5)
    for a in (0.1, 0.6, 0.95):
        s = serving.speculative_speedup(a, 5, 0.1)
        assert serving.acceptance_for_speedup(s, 5, 0.1) == pytest.approx(a, abs=1e-9)
    assert serving.acceptance_for_speedup(10.0, 4, 0.05) is None  # above (K + 1) / (Kc + 1)
    assert serving.acceptance_for_speedup(0.5, 4, 0.05) is None  # below 1 / (Kc + 1)
    assert serving.expected_tokens(1.0, 4) == 5 and serving.expected_tokens(0.0, 4) == 1
    # a = 0.8, K = 4: (1 - 0.32768) / 0.2 = 3.3616; draft 5% of a step: 3.3616 / 1.2
    assert serving.expected_tokens(0.8, 4) == pytest.approx(3.3616)
    assert serving.speculative_speedup(0.8, 4, 0.05) == pytest.approx(3.3616 / 1.2)
    # DeepSeek's decode: 14.8k tokens/s a node of 8 at $2 a GPU-hour: 16 / 3600 / 14.8e3 x 1e6
    assert serving.cost_per_million(14.8e3 / 8, 2.0) == pytest.approx(0.30030, rel=1e-4)
    assert serving.node_hours(3.6e6, 1000) == pytest.approx(1.0)
    # 168e9 output tokens at 14.8k/s a node: 11,351,351 s = 3,153.2 node-hours
    assert serving.node_hours(168e9, 14.8e3) == pytest.approx(3153.15, rel=1e-5)
    assert serving.pd_ratio(3.0, 6.0) == 0.5 and serving.tokens_per_s_per_gpu(1000, 2.0, 4) == 125.0
    # Dense: FLOPs add up (every operator is linear in its rows); the KV traffic adds up; the
    # weights are read once, not once for the chunk and once for the decode tokens.
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


def test_gpus_to_hold_counts_a_ledger_that_just_fits_and_the_wall_by_hand() -> None:
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
    # Llama-3-8B: 16 GB of bf16 weights fit one 80 GB H100; Llama-3-70B's 141 GB need two
    assert serving.gpus_to_hold(LLAMA_3_8B, H100, 4096) == 1
    assert serving.gpus_to_hold(LLAMA_3_70B, H100, 4096) == 2
    # on one GPU the wall is lecture 07's largest batch
    assert serving.largest_batch_on(LLAMA_3_8B, H100, 1, 4096) == llm.largest_batch(
        LLAMA_3_8B, H100, 4096
    )
    assert serving.largest_batch_on(LLAMA_3_70B, H100, 1, 4096) == 0
    # in fp8 its 71 GB of weights fit one GPU with room left: the fp8 ledger sets the wall
    b = serving.largest_batch_on(LLAMA_3_70B, H100, 1, 4096, fp8)
    totals = [llm.model_memory_ledger(LLAMA_3_70B, n, 4096, fp8).total for n in (b, b + 1)]
    assert b > 0 and totals[0] <= H100.mem_capacity < totals[1]
