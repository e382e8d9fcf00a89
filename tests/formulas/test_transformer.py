"""Whole-model ledgers (parameters, FLOPs, bytes, time bounds, memory, critical batch), each
against an independent route: a published figure, a textbook formula written out here, or a
helper of common/ (roofline, ledger) the transformer ledger does not call for it."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest
import reference
from conftest import assert_frozen

from common.formulas import ledger, roofline
from common.formulas import transformer as tf
from common.formulas.transformer import Deployment, DTypes, Op
from common.hw_specs import B200, CHIPS, H100, H200, TPU_V5E
from common.tables.models import (
    DEEPSEEK_V3,
    LLAMA_2_7B,
    LLAMA_3_8B,
    LLAMA_3_70B,
    MODELS,
    Model,
    with_full_mha,
    with_kv_heads,
)

ALL_MODELS = list(MODELS.values())
KIB = 2**10
EXACT_PARAMS = reference.EXACT_PARAMS  # what model.num_parameters() reports for the checkpoints


def ids(m: Model) -> str:
    return m.key


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
def test_each_models_parameters_flops_and_attention(m: Model) -> None:
    assert tf.parameter_count(m) == EXACT_PARAMS[m.key]
    assert tf.parameter_count(m) == pytest.approx(m.published_params, rel=0.02)
    norms = (2 * m.n_layers + 1) * m.d_model
    weights_in_matmuls = EXACT_PARAMS[m.key] - m.vocab_size * m.d_model - norms
    assert tf.decode_ledger(m, 3, 100).kind_total("matmul") == 2 * 3 * weights_in_matmuls
    B, S, kvb = 4, 3000, 1
    f_one, kv_one = roofline.decode_attention_counts(m.n_heads, m.n_kv_heads, m.d_head, S, kvb)
    dl = tf.decode_ledger(m, B, S, DTypes(kv="fp8"))
    qk_pv = sum(op.flops for op in dl.layer if op.name in ("scores Q K^T", "weighted sum P V"))
    assert qk_pv == B * f_one and dl.kind_total("attention", "kv_bytes") == m.n_layers * B * kv_one
    # The K and V projections write the new token's K and V into the cache as well.
    writes = m.n_layers * B * 2 * m.kv_dim * kvb
    assert dl.kv_bytes == m.n_layers * B * kv_one + writes


def test_parameter_count_by_hand_llama_3_8b() -> None:
    d, L, V = 4096, 32, 128256
    attention = d * d + 2 * d * 1024 + d * d  # q, k, v (8 KV heads x 128), o
    mlp = 3 * d * 14336  # gate, up, down
    expected = V * d + L * (attention + mlp + 2 * d) + d + V * d
    assert tf.parameter_count(LLAMA_3_8B) == expected
    assert sum(tf.parameter_breakdown(LLAMA_3_8B).values()) == expected
    tied = dataclasses.replace(LLAMA_3_8B, tied_embeddings=True)
    assert tf.parameter_count(LLAMA_3_8B) - tf.parameter_count(tied) == 128256 * 4096
    ungated = dataclasses.replace(LLAMA_2_7B, gated_mlp=False)
    assert tf.parameter_count(LLAMA_2_7B) - tf.parameter_count(ungated) == 32 * 4096 * 11008
    # A tied LM head is still read in full every decode step.
    read = tf.decode_ledger(tied, 1, 128).weight_bytes
    assert read == tf.decode_ledger(LLAMA_3_8B, 1, 128).weight_bytes
    assert tf.kv_cache_bytes_per_token(LLAMA_2_7B, 2) == 512 * KIB  # the article's 512 KiB/token
    assert tf.kv_cache_bytes_per_token(LLAMA_3_70B, 2) == 2 * 80 * 8 * 128 * 2
    assert tf.kv_cache_bytes_per_token(LLAMA_3_8B, 1) == 64 * KIB  # fp8 cache halves it
    # latent attention caches r_kv + d_rope = 512 + 64 elements a layer, 61 layers
    assert tf.kv_cache_bytes_per_token(DEEPSEEK_V3, 2) == 61 * 576 * 2
    assert tf.kv_cache_bytes_per_token(DEEPSEEK_V3, 1) == 61 * 576


@pytest.mark.parametrize(("m", "ratio"), [(LLAMA_3_8B, 4), (LLAMA_3_70B, 8), (LLAMA_2_7B, 1)])
def test_gqa_shrinks_the_cache_by_the_group_size(m: Model, ratio: int) -> None:
    full = with_full_mha(m)
    assert tf.kv_cache_bytes_per_token(full, 2) / tf.kv_cache_bytes_per_token(m, 2) == ratio
    assert m.n_heads / m.n_kv_heads == ratio
    # Decode attention traffic shrinks by the same factor.
    kv_full = tf.decode_ledger(full, 4, 2048).kind_total("attention", "kv_bytes")
    kv_gqa = tf.decode_ledger(m, 4, 2048).kind_total("attention", "kv_bytes")
    assert kv_full / kv_gqa == pytest.approx(ratio)


def test_gqa_and_weight_only_quantization_fit_more_sequences() -> None:
    assert tf.largest_batch(LLAMA_3_8B, H100, 4096) > 3 * tf.largest_batch(
        with_full_mha(LLAMA_3_8B), H100, 4096
    )
    bf16, int4 = DTypes(), DTypes(weights="int4")
    m, S = LLAMA_3_8B, 4096
    # Prefill is compute-bound at bf16 compute: int4 storage hardly moves it.
    assert tf.pass_time(tf.prefill_ledger(m, 1, S, int4), H100, "bf16") == pytest.approx(
        tf.pass_time(tf.prefill_ledger(m, 1, S, bf16), H100, "bf16"), rel=0.01)  # fmt: skip
    # Decode at batch 1 gains almost the full 4x, held back only by the KV cache.
    gain = tf.tpot_lower_bound(Deployment(m, H100, "bf16", bf16), 1, S) / tf.tpot_lower_bound(
        Deployment(m, H100, "bf16", int4), 1, S)  # fmt: skip
    assert 3 < gain < 4
    # The KV cache and the attention traffic do not change.
    a, b = tf.decode_ledger(m, 8, S, bf16), tf.decode_ledger(m, 8, S, int4)
    assert a.kv_bytes == b.kv_bytes
    assert a.kind_total("attention", "nbytes") == b.kind_total("attention", "nbytes")
    assert b.weight_bytes == pytest.approx(a.weight_bytes / 4)
    # Freed memory holds more sequences.
    assert tf.largest_batch(m, H100, S, int4) > tf.largest_batch(m, H100, S, bf16)
    assert tf.largest_batch(LLAMA_3_70B, H100, 4096) == 0
    assert tf.largest_batch(LLAMA_3_70B, H100, 4096, DTypes(weights="int4")) > 0
    bw_ratio = H200.mem_bw / H100.mem_bw
    decode = tf.tpot_lower_bound(
        Deployment(LLAMA_3_8B, H100, "bf16"), 1, 4096
    ) / tf.tpot_lower_bound(Deployment(LLAMA_3_8B, H200, "bf16"), 1, 4096)
    pre = tf.prefill_ledger(LLAMA_3_8B, 1, 4096)
    prefill = tf.pass_time(pre, H100, "bf16") / tf.pass_time(pre, H200, "bf16")
    assert decode == pytest.approx(bw_ratio, rel=1e-4)  # softmax moves no bytes
    assert prefill < 1.1
    pre = tf.op_times(tf.prefill_ledger(LLAMA_3_8B, 1, 4096), H100, "bf16")
    dec = tf.op_times(tf.decode_ledger(LLAMA_3_8B, 1, 4096), H100, "bf16")
    layer_matmuls = [t for t in pre if t.op.kind == "matmul" and t.count > 1]
    assert layer_matmuls and all(t.bound == "compute" for t in layer_matmuls)
    assert all(t.bound == "memory" for t in dec if t.op.nbytes)
    curve = tf.decode_throughput_curve(
        Deployment(LLAMA_3_8B, H100, "bf16"), 4096, [1, 2, 8, 32, 105])  # fmt: skip
    tps = [t for _, t in curve]
    assert all(b > a for a, b in itertools.pairwise(tps))
    # Never above bandwidth / KV bytes per sequence per step.
    assert max(tps) < H100.mem_bw / (tf.kv_cache_bytes_per_token(LLAMA_3_8B, 2) * 4096)


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
@pytest.mark.parametrize("context", [1, 512, 4096])
@pytest.mark.parametrize("batch", [1, 8])
def test_decode_flops_per_token(m: Model, context: int, batch: int) -> None:
    # Textbook estimate: 2 FLOP per parameter touched (all but the embedding table)
    # plus 4 L Hq dh S for Q K^T and P V over the context.
    n_matmul = EXACT_PARAMS[m.key] - m.vocab_size * m.d_model
    expected = 2 * n_matmul + 4 * m.n_layers * m.n_heads * m.d_head * context
    assert tf.decode_ledger(m, batch, context).flops / batch == pytest.approx(expected, rel=0.01)


def test_prefill_counts_the_causal_half() -> None:
    m, B, S = LLAMA_3_8B, 2, 1024
    pl = tf.prefill_ledger(m, B, S)
    names = ("scores Q K^T", "weighted sum P V")
    qk_pv = m.n_layers * sum(op.flops for op in pl.layer if op.name in names)
    pairs = S * (S + 1) / 2
    assert qk_pv == 4 * m.n_layers * B * m.n_heads * m.d_head * pairs
    full_square = 4 * m.n_layers * B * m.n_heads * m.d_head * S * S
    assert 0.5 < qk_pv / full_square < 0.501
    m, B, S = LLAMA_2_7B, 1, 2048
    naive = ledger.attention_counts(S, m.d_head, 2, materialized=True)[1]
    ideal = ledger.attention_counts(S, m.d_head, 2, materialized=False)[1]
    per_head_extra = naive - ideal
    mat = tf.prefill_ledger(m, B, S, materialized=True)
    flash = tf.prefill_ledger(m, B, S)
    assert mat.nbytes - flash.nbytes == m.n_layers * B * m.n_heads * per_head_extra
    assert mat.flops == flash.flops
    extra = 4 * 32 * 32 * 4096**2 * 2
    assert f"{extra / 1e9:.1f}" == "137.4"
    mat = tf.prefill_ledger(LLAMA_3_8B, 1, 4096, materialized=True)
    flash = tf.prefill_ledger(LLAMA_3_8B, 1, 4096)
    assert mat.nbytes - flash.nbytes == extra
    assert mat.act_bytes - flash.act_bytes == extra and mat.kv_bytes == flash.kv_bytes
    m = dataclasses.replace(LLAMA_3_8B, gated_mlp=False)
    ops = {op.name: op for op in tf.layer_ops(m, 2, 1, 10, MIXED)}
    n, d, ff = 2, m.d_model, m.d_ff
    assert "gate projection" not in ops and "SiLU x up" not in ops
    assert as_tuple(ops["activation"]) == (4 * n * ff, 0, 2 * n * ff * A, 0)
    assert ops["activation"].kind == "elementwise"
    assert as_tuple(ops["up projection"]) == (2 * n * d * ff, d * ff * W, n * d * A + n * ff * A, 0)


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
    t = tf.tpot_lower_bound(Deployment(m, chip, "bf16", dt), 1, S)
    assert w / chip.mem_bw <= t <= (w + kv + act) / chip.mem_bw
    ridge = chip.ridge_point("bf16")
    knee = tf.decode_critical_batch(m, ridge, dt)
    assert knee is not None and weight_matmul_intensity(m, knee, dt) >= ridge
    if knee > 1:
        assert weight_matmul_intensity(m, knee - 1, dt) < ridge
    per_matmul = [cb for _, cb in tf.matmul_critical_batches(m, ridge, dt)]
    assert min(per_matmul) <= knee <= max(per_matmul)


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
def test_each_models_memory_ledger_and_pass_totals_by_hand(m: Model) -> None:
    B, S, dt = 8, 2048, DTypes(weights="int8", kv="fp8")
    led = tf.model_memory_ledger(m, B, S, dt, overhead_rate=0.25)
    assert led.weights == EXACT_PARAMS[m.key] * 1
    assert led.kv_cache == B * S * 2 * m.n_layers * m.n_kv_heads * m.d_head * 1
    assert led.activations == B * 16 * m.d_model * 2  # decode: B active tokens
    assert led.overhead == pytest.approx(0.25 * (led.weights + led.kv_cache + led.activations))
    prefill = tf.model_memory_ledger(m, B, S, dt, overhead_rate=0.25, phase="prefill")
    assert prefill.activations == B * S * 16 * m.d_model * 2
    B, T, d, V = 3, 5, m.d_model, m.vocab_size
    ops = tf.model_ops(m, B, T, MIXED)
    assert [op.name for op in ops] == ["embedding lookup", "final norm", "LM head"]
    embed, norm, head = ops
    assert as_tuple(embed) == (0, B * T * d * W, B * T * d * A, 0)  # read B T rows, write them
    assert embed.kind == "lookup"
    assert as_tuple(norm) == (4 * B * d, d * W, 2 * B * d * A, 0)  # last position only
    assert as_tuple(head) == (2 * B * d * V, d * V * W, B * d * A + B * V * A, 0)
    B, S = 2, 300
    dl = tf.decode_ledger(m, B, S, MIXED)
    layer, once = tf.layer_ops(m, B, 1, S, MIXED), tf.model_ops(m, B, 1, MIXED)
    L = m.n_layers
    for attr in ("flops", "weight_bytes", "act_bytes", "kv_bytes", "nbytes"):
        want = L * sum(getattr(op, attr) for op in layer) + sum(getattr(op, attr) for op in once)
        assert getattr(dl, attr) == want, attr
    assert dl.tokens == B and dl.phase == "decode" and (dl.batch, dl.context) == (B, S)
    assert [c for _, c in dl.counted()] == [L] * len(layer) + [1, 1, 1]
    norm = 4 * B * m.d_model
    assert dl.kind_total("norm") == 2 * L * norm + norm
    assert dl.kind_total("norm", "weight_bytes") == (2 * L + 1) * m.d_model * W
    pl = tf.prefill_ledger(m, B, 64, MIXED)
    assert pl.tokens == B * 64 and pl.phase == "prefill" and pl.new_tokens == pl.context == 64
    assert pl.layer == tf.layer_ops(m, B, 64, 64, MIXED) and pl.once == tf.model_ops(
        m, B, 64, MIXED
    )
    assert pl.dtypes is MIXED and pl.materialized is False


def weight_matmul_intensity(m: Model, batch: int, dt: DTypes) -> float:
    """All weight matmuls of one decode step, from the ledger's own rows."""
    dl = tf.decode_ledger(m, batch, 128, dt)
    return dl.kind_total("matmul") / dl.kind_total("matmul", "nbytes")


def test_critical_batch_reference_values() -> None:
    # Llama-3-70B's Q and output projections are 8192 x 8192: the reference 319 on H100 bf16.
    rows = dict(
        (s.name, cb) for s, cb in tf.matmul_critical_batches(LLAMA_3_70B, H100.ridge_point("bf16"))
    )
    assert rows["Q projection"] == 319 and rows["output projection"] == 319
    # Weight bytes set the knee: about ridge x bytes per weight / 2.
    ridge = H100.ridge_point("bf16")
    for w in ("bf16", "int8", "int4"):
        knee = tf.decode_critical_batch(LLAMA_3_8B, ridge, DTypes(weights=w))
        approx = ridge * DTypes(weights=w).w_bytes / 2
        assert approx <= knee <= 1.15 * approx
    assert tf.decode_critical_batch(LLAMA_3_8B, 1e6) is None  # a ridge no batch can reach
    m = LLAMA_3_70B
    shapes = {s.name: s for s in tf.weight_matmul_shapes(m, MIXED)}
    d, q, kv, ff, V, L = 8192, 64 * 128, 8 * 128, 28672, 128256, 80
    assert {n: (s.K, s.N, s.count) for n, s in shapes.items()} == {
        "Q projection": (d, q, L), "K projection": (d, kv, L), "V projection": (d, kv, L),
        "output projection": (q, d, L), "gate projection": (d, ff, L),
        "up projection": (d, ff, L), "down projection": (ff, d, L), "LM head": (d, V, 1),
    }  # fmt: skip
    k = shapes["K projection"]
    assert (k.x_bytes, k.w_bytes, k.out_bytes) == (A, W, KV)  # K lands in the cache
    assert (shapes["LM head"].x_bytes, shapes["LM head"].out_bytes) == (A, A)
    ungated = dataclasses.replace(m, gated_mlp=False)
    assert "gate projection" not in [s.name for s in tf.weight_matmul_shapes(ungated)]


def test_bad_inputs_raise_value_error() -> None:
    with pytest.raises(ValueError, match="has no 'nvfp4' peak"):
        tf.tpot_lower_bound(Deployment(LLAMA_3_8B, H100, "nvfp4"), 1, 128)
    assert Op("softmax", "attention", 10.0).intensity == math.inf
    assert Op("nothing", "lookup", 0.0).intensity == 0.0
    assert Op("mm", "matmul", 8.0, 2.0, 1.0, 1.0).intensity == 2.0
    v = tf.verify_ledger(LLAMA_3_8B, 2, 4, 1024, DTypes(weights="fp8"))
    ops = {op.name: op for op in v.once}
    assert ops["LM head"].flops == 2 * 8 * 4096 * 128256
    assert ops["LM head"].weight_bytes == 4096 * 128256
    assert ops["embedding lookup"].weight_bytes == 8 * 4096
    assert (v.batch, v.new_tokens, v.context, v.tokens) == (2, 4, 1024, 8)
    # against a brute-force count: test_model_families' test_windowed_causal_pairs_by_brute_force
    assert tf.causal_pairs(1, 4096) == 4096  # decode: the new token sees the whole cache
    assert tf.causal_pairs(4, 4) == 10  # 1 + 2 + 3 + 4
    assert tf.causal_pairs(2, 5) == 4 + 5  # two new tokens after three cached ones
    assert tf.batch_grid(100, per_decade=2) == [1, 3, 10, 32, 100]
    assert tf.batch_grid(2, per_decade=1) == [1, 2]
    assert tf.batch_grid(1000, per_decade=1) == [1, 10, 100, 1000]
    assert tf.batch_grid(8, per_decade=3) == [1, 2, 4, 8]  # 10 ** (0.903 i / 3), i = 1, 2
    assert tf.batch_grid(1) == [1]
    assert tf.batch_grid(3, per_decade=1) == [1, 3]  # one step per decade: nothing in between
    # 24 points per decade: 10 ** (3 i / 72) for i < 72, rounded, with 1 and 1000
    expected = sorted({1, 1000} | {round(10 ** (3 * i / 72)) for i in range(1, 72)})
    assert tf.batch_grid(1000) == expected and tf.batch_grid(10) == list(range(1, 11))
    ops = tf.layer_ops(LLAMA_3_8B, 1, 1, 8)[0]
    assert_frozen(MIXED, ops, tf.decode_ledger(LLAMA_3_8B, 1, 8), Deployment(LLAMA_3_8B, H100))


@pytest.mark.parametrize("model", [LLAMA_3_8B, DEEPSEEK_V3])  # DeepSeek: 3 dense layers
def test_a_verify_pass_of_one_token_is_a_decode_step(model) -> None:
    fp8 = DTypes(weights="fp8", kv="fp8")
    one, dec = tf.verify_ledger(model, 3, 1, 1024, fp8), tf.decode_ledger(model, 3, 1024, fp8)
    assert (one.phase, dec.phase) == ("verify", "decode")
    assert dataclasses.replace(one, phase="decode") == dec


# --- Operator by operator, against hand counts: every FLOP and byte written out from the
# definitions, weights, KV cache and activations at three different sizes so that a byte
# counted at the wrong size, or in the wrong column, shows.
W, KV, A = 0.5, 2.0, 4.0  # int4 weights, bf16 KV cache, fp32 activations: none is 1 byte
MIXED = DTypes(weights="int4", kv="bf16", activations="fp32")


def expected_layer(m: Model, B: int, T: int, S: int, materialized: bool) -> dict:
    """name -> (FLOPs, weight bytes, activation bytes, KV bytes), counted by hand."""
    L, d, hq, hkv, dh, ff = m.n_layers, m.d_model, m.n_heads, m.n_kv_heads, m.d_head, m.d_ff
    del L
    n = B * T
    pairs = sum(S - T + t + 1 for t in range(T))  # token t of T new sees S - T + t + 1 keys
    stored = B * hq * T * S if materialized else 0  # score rectangle, one entry per query head
    q_read = n * hq * dh * A
    k_read = B * S * hkv * dh * KV
    return {
        "attention norm": (4 * n * d, d * W, 2 * n * d * A, 0),
        "Q projection": (2 * n * d * hq * dh, d * hq * dh * W, n * d * A + n * hq * dh * A, 0),
        "K projection": (2 * n * d * hkv * dh, d * hkv * dh * W, n * d * A, n * hkv * dh * KV),
        "V projection": (2 * n * d * hkv * dh, d * hkv * dh * W, n * d * A, n * hkv * dh * KV),
        "scores Q K^T": (2 * B * hq * pairs * dh, 0, q_read + stored * A, k_read),
        "softmax": (5 * B * hq * pairs, 0, 2 * stored * A, 0),
        "weighted sum P V": (2 * B * hq * pairs * dh, 0, q_read + stored * A, k_read),
        "output projection": (2 * n * hq * dh * d, hq * dh * d * W, n * hq * dh * A + n * d * A, 0),
        "residual add": (n * d, 0, 3 * n * d * A, 0),
        "MLP norm": (4 * n * d, d * W, 2 * n * d * A, 0),
        "gate projection": (2 * n * d * ff, d * ff * W, n * d * A + n * ff * A, 0),
        "up projection": (2 * n * d * ff, d * ff * W, n * d * A + n * ff * A, 0),
        "SiLU x up": (5 * n * ff, 0, 3 * n * ff * A, 0),  # SiLU 4 + gate 1 per element
        "down projection": (2 * n * ff * d, ff * d * W, n * ff * A + n * d * A, 0)}  # fmt: skip


def as_tuple(op) -> tuple:
    return (op.flops, op.weight_bytes, op.act_bytes, op.kv_bytes)


CASES = [  # (model, batch, new tokens, context)
    (LLAMA_3_8B, 3, 1, 1000),  # decode
    (LLAMA_3_8B, 2, 64, 64),  # prefill
    (LLAMA_3_70B, 1, 16, 40),  # a chunk of 16 new tokens after 24 cached ones
    (with_kv_heads(LLAMA_3_8B, 1), 2, 8, 8),  # MQA
]


@pytest.mark.parametrize(("m", "B", "T", "S"), CASES, ids=lambda c: getattr(c, "key", c))
@pytest.mark.parametrize("materialized", [False, True])
def test_every_layer_operator_by_hand(m: Model, B: int, T: int, S: int, materialized) -> None:
    ops = tf.layer_ops(m, B, T, S, MIXED, materialized)
    want = expected_layer(m, B, T, S, materialized)
    order = [*list(want)[:9], "MLP norm", "gate projection", "up projection", "SiLU x up"]
    assert [op.name for op in ops] == [*order, "down projection", "residual add"]
    for op in ops:
        assert as_tuple(op) == want[op.name], op.name
    kinds = {op.name: op.kind for op in ops}
    assert kinds["softmax"] == kinds["scores Q K^T"] == "attention"
    assert kinds["attention norm"] == "norm" and kinds["SiLU x up"] == "elementwise"
    assert kinds["Q projection"] == "matmul" and kinds["residual add"] == "elementwise"


def test_op_times_by_hand() -> None:
    dl = tf.decode_ledger(LLAMA_3_8B, 8, 2048)
    peak, bw = 989e12, 3.35e12  # H100 bf16 and HBM3 (datasheet)
    rows = tf.op_times(dl, H100, "bf16")
    total = 0.0
    for row, (op, count) in zip(rows, dl.counted(), strict=True):
        compute, memory = op.flops / peak, op.nbytes / bw
        assert row.op is op and row.count == count
        assert (row.compute_s, row.memory_s) == (compute, memory)
        assert row.lower_s == max(compute, memory)
        assert row.bound == ("compute" if compute >= memory else "memory")
        total += count * max(compute, memory)
    assert tf.pass_time(dl, H100, "bf16") == pytest.approx(total, rel=1e-12)
    assert tf.tpot_lower_bound(Deployment(LLAMA_3_8B, H100), 8, 2048) == pytest.approx(total)
    curve = tf.decode_throughput_curve(Deployment(LLAMA_3_8B, H100), 2048, [8, 1])
    assert curve[0] == (8, pytest.approx(8 / total)) and curve[1][0] == 1
    setup = Deployment(LLAMA_3_8B, H100, "fp8", MIXED, materialized=True)
    dl = tf.decode_ledger(LLAMA_3_8B, 2, 512, MIXED, materialized=True)
    by_hand = sum(c * max(op.flops / 1979e12, op.nbytes / 3.35e12) for op, c in dl.counted())
    assert tf.tpot_lower_bound(setup, 2, 512) == pytest.approx(by_hand, rel=1e-12)
    assert Deployment(LLAMA_3_8B, H100).precision == "bf16"
    assert Deployment(LLAMA_3_8B, H100).materialized is False
    assert Deployment(LLAMA_3_8B, H100).dtypes == DTypes("bf16", "bf16", "bf16")


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
@pytest.mark.parametrize("key", list(reference.HARDWARE))
@pytest.mark.parametrize("phase", ["decode", "prefill"])
def test_largest_batch_by_hand(m: Model, key: str, phase: str) -> None:
    S = 2048
    capacity = reference.HARDWARE[key]["memory capacity"][0]
    _, d, _, hkv, dh, *_ = reference.MODEL_CONFIGS[m.key]
    weights = reference.EXACT_PARAMS[m.key] * 1  # int8 weights
    kv_per_token = 2 * m.n_layers * hkv * dh * 1  # fp8 cache: K and V per layer
    act_per_token = 16 * d * 2  # 16 live bf16 vectors of d_model (article, section 3.5)
    per_sequence = S * kv_per_token + (act_per_token if phase == "decode" else S * act_per_token)
    dt = DTypes(weights="int8", kv="fp8")
    # (1 + 10%) (weights + B x per sequence) <= capacity
    by_hand = max(0, math.floor((capacity / 1.1 - weights) / per_sequence))
    got = tf.largest_batch(m, CHIPS[key], S, dt, phase=phase)
    ledger = tf.model_memory_ledger(m, max(got, 1), S, dt, phase=phase)
    assert ledger.total == pytest.approx(1.1 * (weights + max(got, 1) * per_sequence))
    assert abs(got - by_hand) <= 1  # float rounding exactly at a boundary
    if got:
        assert 1.1 * (weights + got * per_sequence) <= capacity * (1 + 1e-12)
    assert 1.1 * (weights + (got + 1) * per_sequence) > capacity * (1 - 1e-12)


def test_llama_3_8b_on_an_h100_in_bf16() -> None:
    # (80e9 / 1.1 - 2 x 8,030,261,248) / (4096 x 128 KiB + 16 x 4096 x 2) = 105.5 -> 105
    per_sequence = 4096 * 128 * 1024 + 16 * 4096 * 2
    assert (80e9 / 1.1 - 2 * 8_030_261_248) / per_sequence == pytest.approx(105.5, abs=0.05)
    assert tf.largest_batch(LLAMA_3_8B, H100, 4096) == 105
    m = LLAMA_3_8B  # max_position_embeddings 8192 (config.json)
    assert tf.prefill_ledger(m, 1, 8192).context == 8192
    assert tf.decode_ledger(m, 1, 8192).context == 8192
    assert tf.model_memory_ledger(m, 1, 8192).kv_cache == 8192 * 2 * 32 * 8 * 128 * 2
    assert tf.activation_bytes_per_token(m) == 16 * 4096 * 2  # article, section 3.5's rule
    assert tf.activation_bytes_per_token(m, 4) == 16 * 4096 * 4
    assert tf.kv_cache_bytes_per_token(m) == 128 * KIB  # 2 x 32 x 8 x 128 x 2 bytes, by default
    weights = reference.EXACT_PARAMS[m.key] * 2
    kv = 3 * 100 * 2 * 32 * 8 * 128 * 2
    led = tf.model_memory_ledger(m, 3, 100)  # decode: 3 active tokens
    assert (led.weights, led.kv_cache, led.activations) == (weights, kv, 3 * 16 * 4096 * 2)
    assert led.overhead == pytest.approx(0.10 * (weights + kv + 3 * 16 * 4096 * 2))


def brute_critical_batch(shapes, ridge: float) -> int | None:
    """Smallest B with sum 2BDF / sum (B (D x + F out) + D F w) >= ridge (doubling, bisecting)."""

    def reaches(b: int) -> bool:
        flops = sum(s.count * 2 * b * s.K * s.N for s in shapes)
        nbytes = sum(
            s.count * (b * s.K * s.x_bytes + s.K * s.N * s.w_bytes + b * s.N * s.out_bytes)
            for s in shapes)  # fmt: skip
        return flops >= ridge * nbytes

    hi = 1
    while not reaches(hi):
        hi *= 2
        if hi > 1 << 40:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reaches(mid) else (mid, hi)
    return hi if hi > 1 or not reaches(1) else 1


@pytest.mark.parametrize("m", ALL_MODELS, ids=ids)
@pytest.mark.parametrize("dt", [DTypes(), MIXED], ids=["bf16", "mixed"])
def test_decode_critical_batch_by_brute_force(m: Model, dt: DTypes) -> None:
    shapes = tf.weight_matmul_shapes(m, dt)
    for ridge in (TPU_V5E.ridge_point("bf16"), H100.ridge_point("bf16"), 3.0, 0.5):
        assert tf.decode_critical_batch(m, ridge, dt) == brute_critical_batch(shapes, ridge)
    per = dict((s.name, b) for s, b in tf.matmul_critical_batches(m, 300.0, dt))
    for s in shapes:
        assert per[s.name] == brute_critical_batch([s._replace(count=1)], 300.0), s.name
