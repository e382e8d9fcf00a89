"""Whole-model ledgers: parameter counts, FLOPs, bytes, time bounds, memory and critical batch.

Each test checks the code against an independent route to the same number: a
published figure, a textbook formula written out here, or another helper in
common/ (roofline, ledger) that the transformer ledger does not call for it.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest
import reference

from common.formulas import ledger, roofline
from common.formulas.transformer import (
    Deployment,
    DTypes,
    Op,
    decode_critical_batch,
    decode_ledger,
    decode_throughput_curve,
    kv_cache_bytes_per_token,
    largest_batch,
    matmul_critical_batches,
    model_memory_ledger,
    op_times,
    parameter_breakdown,
    parameter_count,
    pass_time,
    prefill_ledger,
    tpot_lower_bound,
    verify_ledger,
)
from common.hw_specs import B200, CHIPS, H100, H200
from common.tables.models import (
    DEEPSEEK_V3,
    LLAMA_2_7B,
    LLAMA_3_8B,
    LLAMA_3_70B,
    MODELS,
    Model,
    with_full_mha,
)

ALL_MODELS = list(MODELS.values())
KIB, GIB = 2**10, 2**30


EXACT_PARAMS = reference.EXACT_PARAMS  # what model.num_parameters() reports for the checkpoints


def ids(m: Model) -> str:
    return m.key


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
def test_parameter_count_matches_the_checkpoint_and_the_published_size(m: Model) -> None:
    assert parameter_count(m) == EXACT_PARAMS[m.key]
    assert parameter_count(m) == pytest.approx(m.published_params, rel=0.02)


def test_parameter_count_by_hand_llama_3_8b() -> None:
    d, L, V = 4096, 32, 128256
    attention = d * d + 2 * d * 1024 + d * d  # q, k, v (8 KV heads x 128), o
    mlp = 3 * d * 14336  # gate, up, down
    expected = V * d + L * (attention + mlp + 2 * d) + d + V * d
    assert parameter_count(LLAMA_3_8B) == expected
    assert sum(parameter_breakdown(LLAMA_3_8B).values()) == expected


def test_tied_and_ungated_variants() -> None:
    tied = dataclasses.replace(LLAMA_3_8B, tied_embeddings=True)
    assert parameter_count(LLAMA_3_8B) - parameter_count(tied) == 128256 * 4096
    ungated = dataclasses.replace(LLAMA_2_7B, gated_mlp=False)
    assert parameter_count(LLAMA_2_7B) - parameter_count(ungated) == 32 * 4096 * 11008
    # A tied LM head is still read in full every decode step.
    assert (
        decode_ledger(tied, 1, 128).weight_bytes == decode_ledger(LLAMA_3_8B, 1, 128).weight_bytes
    )


def test_kv_cache_per_token_reference_values() -> None:
    # 2 x layers x KV heads x head dim x bytes.
    assert kv_cache_bytes_per_token(LLAMA_2_7B, 2) == 512 * KIB  # the article's 512 KiB/token
    assert kv_cache_bytes_per_token(LLAMA_3_8B, 2) == 128 * KIB
    assert kv_cache_bytes_per_token(LLAMA_3_70B, 2) == 2 * 80 * 8 * 128 * 2
    assert kv_cache_bytes_per_token(LLAMA_3_8B, 1) == 64 * KIB  # fp8 cache halves it
    # latent attention caches r_kv + d_rope = 512 + 64 elements a layer, 61 layers
    assert kv_cache_bytes_per_token(DEEPSEEK_V3, 2) == 61 * 576 * 2
    assert kv_cache_bytes_per_token(DEEPSEEK_V3, 1) == 61 * 576
    # The article: one 4096-token sequence of the 7B model takes 2.00 GiB.
    assert kv_cache_bytes_per_token(LLAMA_2_7B, 2) * 4096 == 2 * GIB


@pytest.mark.parametrize(("m", "ratio"), [(LLAMA_3_8B, 4), (LLAMA_3_70B, 8), (LLAMA_2_7B, 1)])
def test_gqa_shrinks_the_cache_by_the_group_size(m: Model, ratio: int) -> None:
    full = with_full_mha(m)
    assert kv_cache_bytes_per_token(full, 2) / kv_cache_bytes_per_token(m, 2) == ratio
    assert m.n_heads / m.n_kv_heads == ratio
    # Decode attention traffic shrinks by the same factor.
    kv_full = decode_ledger(full, 4, 2048).kind_total("attention", "kv_bytes")
    kv_gqa = decode_ledger(m, 4, 2048).kind_total("attention", "kv_bytes")
    assert kv_full / kv_gqa == pytest.approx(ratio)


def test_gqa_fits_more_sequences() -> None:
    assert largest_batch(LLAMA_3_8B, H100, 4096) > 3 * largest_batch(
        with_full_mha(LLAMA_3_8B), H100, 4096
    )


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
@pytest.mark.parametrize("context", [1, 512, 4096])
@pytest.mark.parametrize("batch", [1, 8])
def test_decode_flops_per_token(m: Model, context: int, batch: int) -> None:
    # Textbook estimate: 2 FLOP per parameter touched (all but the embedding table)
    # plus 4 L Hq dh S for Q K^T and P V over the context.
    n_matmul = EXACT_PARAMS[m.key] - m.vocab_size * m.d_model
    expected = 2 * n_matmul + 4 * m.n_layers * m.n_heads * m.d_head * context
    per_token = decode_ledger(m, batch, context).flops / batch
    assert per_token == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
def test_matmul_flops_are_exactly_two_per_weight(m: Model) -> None:
    norms = (2 * m.n_layers + 1) * m.d_model
    weights_in_matmuls = EXACT_PARAMS[m.key] - m.vocab_size * m.d_model - norms
    assert decode_ledger(m, 3, 100).kind_total("matmul") == 2 * 3 * weights_in_matmuls


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
def test_decode_attention_agrees_with_roofline(m: Model) -> None:
    B, S, kvb = 4, 3000, 1
    f_one, kv_one = roofline.decode_attention_counts(m.n_heads, m.n_kv_heads, m.d_head, S, kvb)
    dl = decode_ledger(m, B, S, DTypes(kv="fp8"))
    qk_pv = sum(op.flops for op in dl.layer if op.name in ("scores Q K^T", "weighted sum P V"))
    assert qk_pv == B * f_one
    assert dl.kind_total("attention", "kv_bytes") == m.n_layers * B * kv_one
    # The K and V projections write the new token's K and V into the cache as well.
    writes = m.n_layers * B * 2 * m.kv_dim * kvb
    assert dl.kv_bytes == m.n_layers * B * kv_one + writes


def test_prefill_counts_the_causal_half() -> None:
    m, B, S = LLAMA_3_8B, 2, 1024
    pl = prefill_ledger(m, B, S)
    names = ("scores Q K^T", "weighted sum P V")
    qk_pv = m.n_layers * sum(op.flops for op in pl.layer if op.name in names)
    pairs = S * (S + 1) / 2
    assert qk_pv == 4 * m.n_layers * B * m.n_heads * m.d_head * pairs
    full_square = 4 * m.n_layers * B * m.n_heads * m.d_head * S * S
    assert 0.5 < qk_pv / full_square < 0.501


def test_materialized_attention_adds_the_score_traffic() -> None:
    # The article's one-head count: materialized moves 4 N^2 more elements than minimum traffic.
    m, B, S = LLAMA_2_7B, 1, 2048
    naive = ledger.attention_counts(S, m.d_head, 2, materialized=True)[1]
    ideal = ledger.attention_counts(S, m.d_head, 2, materialized=False)[1]
    per_head_extra = naive - ideal
    mat = prefill_ledger(m, B, S, materialized=True)
    flash = prefill_ledger(m, B, S)
    assert mat.nbytes - flash.nbytes == m.n_layers * B * m.n_heads * per_head_extra
    assert mat.flops == flash.flops


DTYPE_CASES = [DTypes(), DTypes(weights="int4", kv="fp8"), DTypes(weights="int8")]


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
@pytest.mark.parametrize("chip", [H100, H200, B200], ids=lambda c: c.key)
@pytest.mark.parametrize("dt", DTYPE_CASES, ids=lambda d: d.describe())
def test_decode_at_batch_1_is_weight_reads(m: Model, chip, dt: DTypes) -> None:
    S = 4096
    # Every weight except the embedding table is read once; the embedding, one row.
    w = (EXACT_PARAMS[m.key] - m.vocab_size * m.d_model + m.d_model) * dt.w_bytes
    kv = 2 * m.n_layers * m.n_kv_heads * m.d_head * dt.kv_bytes * (S + 1)  # read S, write 1
    # Generous activation allowance: a dozen vectors of d and d_ff per layer, and the logits.
    act = (m.n_layers * 12 * (m.d_model + m.d_ff) + 2 * m.vocab_size) * dt.act_bytes
    t = tpot_lower_bound(Deployment(m, chip, "bf16", dt), 1, S)
    assert w / chip.mem_bw <= t <= (w + kv + act) / chip.mem_bw


def test_h200_speeds_decode_by_its_bandwidth_but_not_prefill() -> None:
    bw_ratio = H200.mem_bw / H100.mem_bw
    decode = tpot_lower_bound(Deployment(LLAMA_3_8B, H100, "bf16"), 1, 4096) / tpot_lower_bound(
        Deployment(LLAMA_3_8B, H200, "bf16"), 1, 4096
    )
    pre = prefill_ledger(LLAMA_3_8B, 1, 4096)
    prefill = pass_time(pre, H100, "bf16") / pass_time(pre, H200, "bf16")
    assert decode == pytest.approx(bw_ratio, rel=1e-4)  # softmax moves no bytes
    assert prefill < 1.1


def test_pass_time_is_the_sum_of_operator_bounds() -> None:
    pl = decode_ledger(LLAMA_3_8B, 16, 1024)
    rows = op_times(pl, H100, "bf16")
    by_hand = sum(
        c * max(op.flops / H100.peak_flops("bf16"), op.nbytes / H100.mem_bw)
        for op, c in pl.counted()
    )
    assert pass_time(pl, H100, "bf16") == pytest.approx(by_hand)
    assert len(rows) == len(pl.layer) + len(pl.once)
    # No bound can beat the whole pass's own roofline.
    whole = max(pl.flops / H100.peak_flops("bf16"), pl.nbytes / H100.mem_bw)
    assert pass_time(pl, H100, "bf16") >= whole


def test_prefill_is_compute_bound_and_decode_memory_bound() -> None:
    pre = op_times(prefill_ledger(LLAMA_3_8B, 1, 4096), H100, "bf16")
    dec = op_times(decode_ledger(LLAMA_3_8B, 1, 4096), H100, "bf16")
    layer_matmuls = [t for t in pre if t.op.kind == "matmul" and t.count > 1]
    assert layer_matmuls and all(t.bound == "compute" for t in layer_matmuls)
    assert all(t.bound == "memory" for t in dec if t.op.nbytes)


def test_weight_only_quantization() -> None:
    bf16, int4 = DTypes(), DTypes(weights="int4")
    m, S = LLAMA_3_8B, 4096
    # Prefill is compute-bound at bf16 compute: int4 storage hardly moves it.
    assert pass_time(prefill_ledger(m, 1, S, int4), H100, "bf16") == pytest.approx(
        pass_time(prefill_ledger(m, 1, S, bf16), H100, "bf16"), rel=0.01
    )
    # Decode at batch 1 gains almost the full 4x, held back only by the KV cache.
    gain = tpot_lower_bound(Deployment(m, H100, "bf16", bf16), 1, S) / tpot_lower_bound(
        Deployment(m, H100, "bf16", int4), 1, S
    )
    assert 3 < gain < 4
    # The KV cache and the attention traffic do not change.
    a, b = decode_ledger(m, 8, S, bf16), decode_ledger(m, 8, S, int4)
    assert a.kv_bytes == b.kv_bytes
    assert a.kind_total("attention", "nbytes") == b.kind_total("attention", "nbytes")
    assert b.weight_bytes == pytest.approx(a.weight_bytes / 4)
    # Freed memory holds more sequences.
    assert largest_batch(m, H100, S, int4) > largest_batch(m, H100, S, bf16)


def test_throughput_curve_rises_with_batch() -> None:
    curve = decode_throughput_curve(Deployment(LLAMA_3_8B, H100, "bf16"), 4096, [1, 2, 8, 32, 105])
    tps = [t for _, t in curve]
    assert all(b > a for a, b in itertools.pairwise(tps))
    assert tps[0] == pytest.approx(
        1 / tpot_lower_bound(Deployment(LLAMA_3_8B, H100, "bf16"), 1, 4096)
    )
    # Never above bandwidth / KV bytes per sequence per step.
    ceiling = H100.mem_bw / (kv_cache_bytes_per_token(LLAMA_3_8B, 2) * 4096)
    assert max(tps) < ceiling


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
def test_memory_ledger_terms(m: Model) -> None:
    B, S, dt = 8, 2048, DTypes(weights="int8", kv="fp8")
    led = model_memory_ledger(m, B, S, dt, overhead_rate=0.25)
    assert led.weights == EXACT_PARAMS[m.key] * 1
    assert led.kv_cache == B * S * 2 * m.n_layers * m.n_kv_heads * m.d_head * 1
    assert led.activations == B * 16 * m.d_model * 2  # decode: B active tokens
    assert led.overhead == pytest.approx(0.25 * (led.weights + led.kv_cache + led.activations))
    prefill = model_memory_ledger(m, B, S, dt, overhead_rate=0.25, phase="prefill")
    assert prefill.activations == B * S * 16 * m.d_model * 2


@pytest.mark.parametrize("chip", list(CHIPS.values()), ids=lambda c: c.key)
def test_largest_batch_is_the_memory_wall(chip) -> None:
    wall = largest_batch(LLAMA_3_8B, chip, 4096)
    if wall:
        assert model_memory_ledger(LLAMA_3_8B, wall, 4096).total <= chip.mem_capacity
    assert model_memory_ledger(LLAMA_3_8B, wall + 1, 4096).total > chip.mem_capacity


def test_70b_in_bf16_does_not_fit_one_h100() -> None:
    assert largest_batch(LLAMA_3_70B, H100, 4096) == 0
    assert largest_batch(LLAMA_3_70B, H100, 4096, DTypes(weights="int4")) > 0


def weight_matmul_intensity(m: Model, batch: int, dt: DTypes) -> float:
    """All weight matmuls of one decode step, from the ledger's own rows."""
    dl = decode_ledger(m, batch, 128, dt)
    return dl.kind_total("matmul") / dl.kind_total("matmul", "nbytes")


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
@pytest.mark.parametrize("chip", [H100, H200, B200], ids=lambda c: c.key)
@pytest.mark.parametrize("dt", DTYPE_CASES, ids=lambda d: d.describe())
def test_decode_critical_batch_is_where_the_ledger_crosses_the_ridge(m, chip, dt) -> None:
    ridge = chip.ridge_point("bf16")
    knee = decode_critical_batch(m, ridge, dt)
    assert knee is not None
    assert weight_matmul_intensity(m, knee, dt) >= ridge
    if knee > 1:
        assert weight_matmul_intensity(m, knee - 1, dt) < ridge
    per_matmul = [cb for _, cb in matmul_critical_batches(m, ridge, dt)]
    assert min(per_matmul) <= knee <= max(per_matmul)


def test_critical_batch_reference_values() -> None:
    # Llama-3-70B's Q and output projections are 8192 x 8192: the reference 319 on H100 bf16.
    rows = dict(
        (s.name, cb) for s, cb in matmul_critical_batches(LLAMA_3_70B, H100.ridge_point("bf16"))
    )
    assert rows["Q projection"] == 319
    assert rows["output projection"] == 319
    # Weight bytes set the knee: about ridge x bytes per weight / 2.
    ridge = H100.ridge_point("bf16")
    for w in ("bf16", "int8", "int4"):
        knee = decode_critical_batch(LLAMA_3_8B, ridge, DTypes(weights=w))
        approx = ridge * DTypes(weights=w).w_bytes / 2
        assert approx <= knee <= 1.15 * approx
    assert decode_critical_batch(LLAMA_3_8B, 1e6) is None  # a ridge no batch can reach


def test_bad_inputs_raise_value_error() -> None:
    with pytest.raises(ValueError, match="has no 'nvfp4' peak"):
        tpot_lower_bound(Deployment(LLAMA_3_8B, H100, "nvfp4"), 1, 128)


def test_op_intensity() -> None:
    assert Op("softmax", "attention", 10.0).intensity == math.inf
    assert Op("nothing", "lookup", 0.0).intensity == 0.0
    assert Op("mm", "matmul", 8.0, 2.0, 1.0, 1.0).intensity == 2.0


@pytest.mark.parametrize("model", [LLAMA_3_8B, DEEPSEEK_V3])  # DeepSeek: 3 dense layers
def test_a_verify_pass_of_one_token_is_a_decode_step(model) -> None:
    fp8 = DTypes(weights="fp8", kv="fp8")
    one, dec = verify_ledger(model, 3, 1, 1024, fp8), decode_ledger(model, 3, 1024, fp8)
    assert (one.phase, dec.phase) == ("verify", "decode")
    assert dataclasses.replace(one, phase="decode") == dec


def test_a_verify_pass_checks_every_drafted_token() -> None:
    # B = 2 sequences x T = 4 tokens: the LM head runs on 8 rows, 2 x 8 x 4096 x 128,256 FLOP,
    # and reads its 4096 x 128,256 fp8 weights once; the embedding reads 8 rows
    v = verify_ledger(LLAMA_3_8B, 2, 4, 1024, DTypes(weights="fp8"))
    ops = {op.name: op for op in v.once}
    assert ops["LM head"].flops == 2 * 8 * 4096 * 128256
    assert ops["LM head"].weight_bytes == 4096 * 128256
    assert ops["embedding lookup"].weight_bytes == 8 * 4096
    assert (v.batch, v.new_tokens, v.context, v.tokens) == (2, 4, 1024, 8)
