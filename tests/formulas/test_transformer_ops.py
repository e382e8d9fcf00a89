"""The whole-model speed ledger operator by operator, on GQA models, against hand counts.

Every expected FLOP and byte count below is written out from the definitions (one
multiply-add = 2 FLOP; every read and every write at its element size), with
weights, KV cache and activations at three different sizes so that a byte counted
at the wrong size, or in the wrong column, shows.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import reference
from conftest import assert_frozen

from common.formulas.transformer import (
    Deployment,
    DTypes,
    activation_bytes_per_token,
    batch_grid,
    causal_pairs,
    decode_critical_batch,
    decode_ledger,
    decode_throughput_curve,
    kv_cache_bytes_per_token,
    largest_batch,
    layer_ops,
    matmul_critical_batches,
    model_memory_ledger,
    model_ops,
    op_times,
    pass_time,
    prefill_ledger,
    tpot_lower_bound,
    weight_matmul_shapes,
)
from common.hw_specs import CHIPS, H100, TPU_V5E
from common.tables.models import LLAMA_3_8B, LLAMA_3_70B, MODELS, Model, with_kv_heads

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
        "down projection": (2 * n * ff * d, ff * d * W, n * ff * A + n * d * A, 0),
    }


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
    ops = layer_ops(m, B, T, S, MIXED, materialized)
    want = expected_layer(m, B, T, S, materialized)
    order = [*list(want)[:9], "MLP norm", "gate projection", "up projection", "SiLU x up"]
    assert [op.name for op in ops] == [*order, "down projection", "residual add"]
    for op in ops:
        assert as_tuple(op) == want[op.name], op.name
    kinds = {op.name: op.kind for op in ops}
    assert kinds["softmax"] == kinds["scores Q K^T"] == "attention"
    assert kinds["attention norm"] == "norm" and kinds["SiLU x up"] == "elementwise"
    assert kinds["Q projection"] == "matmul" and kinds["residual add"] == "elementwise"


def test_llama_3_8b_materialized_prefill_sizes_scores_by_query_heads() -> None:
    # Prefill of one 4096-token prompt: the score and probability matrices hold
    # 32 query heads x 4096 x 4096 entries per layer, written and read back once
    # each (4 passes) at 2 bytes: 4 x 32 layers x 32 heads x 4096^2 x 2 = 137.4 GB.
    extra = 4 * 32 * 32 * 4096**2 * 2
    assert f"{extra / 1e9:.1f}" == "137.4"
    mat = prefill_ledger(LLAMA_3_8B, 1, 4096, materialized=True)
    flash = prefill_ledger(LLAMA_3_8B, 1, 4096)
    assert mat.nbytes - flash.nbytes == extra
    assert mat.act_bytes - flash.act_bytes == extra and mat.kv_bytes == flash.kv_bytes


def test_ungated_mlp_by_hand() -> None:
    m = dataclasses.replace(LLAMA_3_8B, gated_mlp=False)
    ops = {op.name: op for op in layer_ops(m, 2, 1, 10, MIXED)}
    n, d, ff = 2, m.d_model, m.d_ff
    assert "gate projection" not in ops and "SiLU x up" not in ops
    assert as_tuple(ops["activation"]) == (4 * n * ff, 0, 2 * n * ff * A, 0)
    assert ops["activation"].kind == "elementwise"
    assert as_tuple(ops["up projection"]) == (2 * n * d * ff, d * ff * W, n * d * A + n * ff * A, 0)


@pytest.mark.parametrize("m", list(MODELS.values()), ids=lambda m: m.key)
def test_once_per_model_operators_by_hand(m: Model) -> None:
    B, T, d, V = 3, 5, m.d_model, m.vocab_size
    ops = model_ops(m, B, T, MIXED)
    assert [op.name for op in ops] == ["embedding lookup", "final norm", "LM head"]
    embed, norm, head = ops
    assert as_tuple(embed) == (0, B * T * d * W, B * T * d * A, 0)  # read B T rows, write them
    assert embed.kind == "lookup"
    assert as_tuple(norm) == (4 * B * d, d * W, 2 * B * d * A, 0)  # last position only
    assert as_tuple(head) == (2 * B * d * V, d * V * W, B * d * A + B * V * A, 0)


@pytest.mark.parametrize("m", list(MODELS.values()), ids=lambda m: m.key)
def test_pass_totals_are_layers_times_layer_plus_once(m: Model) -> None:
    B, S = 2, 300
    dl = decode_ledger(m, B, S, MIXED)
    layer, once = layer_ops(m, B, 1, S, MIXED), model_ops(m, B, 1, MIXED)
    L = m.n_layers
    for attr in ("flops", "weight_bytes", "act_bytes", "kv_bytes", "nbytes"):
        want = L * sum(getattr(op, attr) for op in layer) + sum(getattr(op, attr) for op in once)
        assert getattr(dl, attr) == want, attr
    assert dl.tokens == B and dl.phase == "decode" and (dl.batch, dl.context) == (B, S)
    assert [c for _, c in dl.counted()] == [L] * len(layer) + [1, 1, 1]
    norm = 4 * B * m.d_model
    assert dl.kind_total("norm") == 2 * L * norm + norm
    assert dl.kind_total("norm", "weight_bytes") == (2 * L + 1) * m.d_model * W
    pl = prefill_ledger(m, B, 64, MIXED)
    assert pl.tokens == B * 64 and pl.phase == "prefill" and pl.new_tokens == pl.context == 64
    assert pl.layer == layer_ops(m, B, 64, 64, MIXED) and pl.once == model_ops(m, B, 64, MIXED)
    assert pl.dtypes is MIXED and pl.materialized is False


def test_causal_pairs_by_brute_force() -> None:
    for T, S in ((1, 1), (1, 9), (3, 3), (4, 10), (7, 7), (5, 6)):
        brute = sum(1 for t in range(T) for k in range(S) if k <= S - T + t)
        assert causal_pairs(T, S) == brute
        assert isinstance(causal_pairs(T, S), int)
    assert causal_pairs(1, 4096) == 4096  # decode: the new token sees the whole cache
    assert causal_pairs(4, 4) == 10  # 1 + 2 + 3 + 4
    assert causal_pairs(2, 5) == 4 + 5  # two new tokens after three cached ones


def test_weights_are_read_once_per_pass_at_any_batch() -> None:
    m = LLAMA_3_8B
    embed_rows = 4  # decode at batch 4 reads 4 embedding rows
    weights = reference.EXACT_PARAMS[m.key] - m.vocab_size * m.d_model + embed_rows * m.d_model
    assert decode_ledger(m, 4, 100, MIXED).weight_bytes == weights * W


def test_op_times_by_hand() -> None:
    dl = decode_ledger(LLAMA_3_8B, 8, 2048)
    peak, bw = 989e12, 3.35e12  # H100 bf16 and HBM3 (datasheet)
    rows = op_times(dl, H100, "bf16")
    total = 0.0
    for row, (op, count) in zip(rows, dl.counted(), strict=True):
        compute, memory = op.flops / peak, op.nbytes / bw
        assert row.op is op and row.count == count
        assert (row.compute_s, row.memory_s) == (compute, memory)
        assert row.lower_s == max(compute, memory)
        assert row.bound == ("compute" if compute >= memory else "memory")
        total += count * max(compute, memory)
    assert pass_time(dl, H100, "bf16") == pytest.approx(total, rel=1e-12)
    assert tpot_lower_bound(Deployment(LLAMA_3_8B, H100), 8, 2048) == pytest.approx(total)
    curve = decode_throughput_curve(Deployment(LLAMA_3_8B, H100), 2048, [8, 1])
    assert curve[0] == (8, pytest.approx(8 / total)) and curve[1][0] == 1


def test_ttft_is_the_prefill_pass_and_precision_picks_the_peak() -> None:
    setup = Deployment(LLAMA_3_8B, H100, "fp8", MIXED, materialized=True)
    dl = decode_ledger(LLAMA_3_8B, 2, 512, MIXED, materialized=True)
    by_hand = sum(c * max(op.flops / 1979e12, op.nbytes / 3.35e12) for op, c in dl.counted())
    assert tpot_lower_bound(setup, 2, 512) == pytest.approx(by_hand, rel=1e-12)
    assert Deployment(LLAMA_3_8B, H100).precision == "bf16"
    assert Deployment(LLAMA_3_8B, H100).materialized is False
    assert Deployment(LLAMA_3_8B, H100).dtypes == DTypes("bf16", "bf16", "bf16")


@pytest.mark.parametrize("m", list(MODELS.values()), ids=lambda m: m.key)
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
    got = largest_batch(m, CHIPS[key], S, dt, phase=phase)
    ledger = model_memory_ledger(m, max(got, 1), S, dt, phase=phase)
    assert ledger.total == pytest.approx(1.1 * (weights + max(got, 1) * per_sequence))
    assert abs(got - by_hand) <= 1  # float rounding exactly at a boundary
    if got:
        assert 1.1 * (weights + got * per_sequence) <= capacity * (1 + 1e-12)
    assert 1.1 * (weights + (got + 1) * per_sequence) > capacity * (1 - 1e-12)


def test_llama_3_8b_on_an_h100_in_bf16() -> None:
    # (80e9 / 1.1 - 2 x 8,030,261,248) / (4096 x 128 KiB + 16 x 4096 x 2) = 105.5 -> 105
    per_sequence = 4096 * 128 * 1024 + 16 * 4096 * 2
    assert (80e9 / 1.1 - 2 * 8_030_261_248) / per_sequence == pytest.approx(105.5, abs=0.05)
    assert largest_batch(LLAMA_3_8B, H100, 4096) == 105


def test_weight_matmul_shapes_by_hand() -> None:
    m = LLAMA_3_70B
    shapes = {s.name: s for s in weight_matmul_shapes(m, MIXED)}
    d, q, kv, ff, V, L = 8192, 64 * 128, 8 * 128, 28672, 128256, 80
    assert {n: (s.K, s.N, s.count) for n, s in shapes.items()} == {
        "Q projection": (d, q, L),
        "K projection": (d, kv, L),
        "V projection": (d, kv, L),
        "output projection": (q, d, L),
        "gate projection": (d, ff, L),
        "up projection": (d, ff, L),
        "down projection": (ff, d, L),
        "LM head": (d, V, 1),
    }
    k = shapes["K projection"]
    assert (k.x_bytes, k.w_bytes, k.out_bytes) == (A, W, KV)  # K lands in the cache
    assert (shapes["LM head"].x_bytes, shapes["LM head"].out_bytes) == (A, A)
    ungated = dataclasses.replace(m, gated_mlp=False)
    assert "gate projection" not in [s.name for s in weight_matmul_shapes(ungated)]


def brute_critical_batch(shapes, ridge: float) -> int | None:
    """Smallest B with sum 2BDF / sum (B (D x + F out) + D F w) >= ridge (doubling, bisecting)."""

    def reaches(b: int) -> bool:
        flops = sum(s.count * 2 * b * s.K * s.N for s in shapes)
        nbytes = sum(
            s.count * (b * s.K * s.x_bytes + s.K * s.N * s.w_bytes + b * s.N * s.out_bytes)
            for s in shapes
        )
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


@pytest.mark.parametrize("m", list(MODELS.values()), ids=lambda m: m.key)
@pytest.mark.parametrize("dt", [DTypes(), MIXED], ids=["bf16", "mixed"])
def test_decode_critical_batch_by_brute_force(m: Model, dt: DTypes) -> None:
    shapes = weight_matmul_shapes(m, dt)
    for ridge in (TPU_V5E.ridge_point("bf16"), H100.ridge_point("bf16"), 3.0, 0.5):
        assert decode_critical_batch(m, ridge, dt) == brute_critical_batch(shapes, ridge)
    per = dict((s.name, b) for s, b in matmul_critical_batches(m, 300.0, dt))
    for s in shapes:
        assert per[s.name] == brute_critical_batch([s._replace(count=1)], 300.0), s.name


def test_batch_grid_by_hand() -> None:
    # 10 ** (log10(100) i / 4) for i = 1..3 is 3.16, 10, 31.6: rounded 3, 10, 32.
    assert batch_grid(100, per_decade=2) == [1, 3, 10, 32, 100]
    assert batch_grid(2, per_decade=1) == [1, 2]
    assert batch_grid(1000, per_decade=1) == [1, 10, 100, 1000]
    assert batch_grid(8, per_decade=3) == [1, 2, 4, 8]  # 10 ** (0.903 i / 3), i = 1, 2
    assert batch_grid(1) == [1]
    assert batch_grid(3, per_decade=1) == [1, 3]  # one step per decade: nothing in between
    # 24 points per decade: 10 ** (3 i / 72) for i < 72, rounded, with 1 and 1000
    expected = sorted({1, 1000} | {round(10 ** (3 * i / 72)) for i in range(1, 72)})
    assert batch_grid(1000) == expected
    assert batch_grid(10) == list(range(1, 11))


def test_ledger_records_are_frozen() -> None:
    ops = layer_ops(LLAMA_3_8B, 1, 1, 8)[0]
    assert_frozen(MIXED, ops, decode_ledger(LLAMA_3_8B, 1, 8), Deployment(LLAMA_3_8B, H100))


def test_the_whole_context_window_is_allowed() -> None:
    m = LLAMA_3_8B  # max_position_embeddings 8192 (config.json)
    assert prefill_ledger(m, 1, 8192).context == 8192
    assert decode_ledger(m, 1, 8192).context == 8192
    assert model_memory_ledger(m, 1, 8192).kv_cache == 8192 * 2 * 32 * 8 * 128 * 2


def test_capacity_defaults_bf16_decode_ten_percent() -> None:
    m = LLAMA_3_8B
    assert activation_bytes_per_token(m) == 16 * 4096 * 2  # article, section 3.5's rule
    assert activation_bytes_per_token(m, 4) == 16 * 4096 * 4
    assert kv_cache_bytes_per_token(m) == 2 * 32 * 8 * 128 * 2
    weights = reference.EXACT_PARAMS[m.key] * 2
    kv = 3 * 100 * 2 * 32 * 8 * 128 * 2
    led = model_memory_ledger(m, 3, 100)  # decode: 3 active tokens
    assert (led.weights, led.kv_cache, led.activations) == (weights, kv, 3 * 16 * 4096 * 2)
    assert led.overhead == pytest.approx(0.10 * (weights + kv + 3 * 16 * 4096 * 2))
