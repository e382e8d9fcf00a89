"""Lecture 12's two exercises, worked by hand for Llama 3 8B / 4 (d 1024, 8 layers, 8 query
heads and 2 KV heads of 128, d_ff 3584, vocabulary 32064, untied embeddings) in fp32."""

from __future__ import annotations

import math

import pytest

import common.exercises as ex

D, L, H, HKV, DH, FF, V, B = 1024, 8, 8, 2, 128, 3584, 32064, 4
PER_TOKEN_LAYER = 2 * (D * H * DH + 2 * D * HKV * DH + H * DH * D + 3 * D * FF)  # matmul FLOPs


def test_profile_exercises_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = ex.get_exercise("profiler-flops").solve()
    for S in (256, 1024, 4096):
        full = 2 * L * H * 2 * S * S * DH  # Q K^T and P V over every entry of S x S
        causal = 2 * L * H * 2 * S * (S + 1) // 2 * DH  # only the kept pairs
        v = answer.values[S]
        assert (v["profiler"], v["ledger"]) == (full, causal)
        # the pass: weight matmuls, the LM head on the last token, the attention products;
        # norms, softmax and the MLP's elementwise work add well under 1% more
        matmuls = S * L * PER_TOKEN_LAYER + 2 * D * V + causal
        assert v["extra_share"] == pytest.approx((full - causal) / matmuls, rel=5e-3)
        assert v["extra_share"] < (full - causal) / matmuls
    assert answer.values[256]["profiler"] == 2_147_483_648
    assert answer.table.rows[0] == ("256", "1.1 GFLOP", "2.1 GFLOP", "1.9%")
    assert r"\frac{S(S+1)}{2}" in answer.formula
    calib = ex.Calibration(1e10, 1e11, "a test machine")  # 10 GB/s, 100 GFLOP/s: ridge 10
    monkeypatch.setattr(ex, "measured_calibration", lambda section, source: calib)
    answer = ex.get_exercise("decode-context").solve()
    # every weight once: the layers' matrices, 2L + 1 norms, one embedding row, the LM head
    weights = B * (L * PER_TOKEN_LAYER // 2 + (2 * L + 1) * D + D + V * D)
    assert weights == 567_615_488
    kv_per_token = 2 * L * HKV * DH * B
    assert answer.values["even_context"] == math.ceil(weights / kv_per_token) == 34_645
    for S in (256, 1024, 4096, 8192):
        v = answer.values[S]
        # + about 1.5 MB of activations read and written (under 0.3% of the step)
        assert v["bytes"] == pytest.approx(weights + S * kv_per_token, rel=3e-3)
        assert v["seconds"] == pytest.approx(v["bytes"] / 1e10)  # memory-bound: D / beta
        # read S tokens of K and V, write the new token's: (S + 1) tokens of cache
        assert v["kv_share"] == pytest.approx((S + 1) * kv_per_token / v["bytes"], rel=1e-9)
    said = " ".join(answer.steps)
    assert "memory-bound at every context, so its bound is bytes / bandwidth" in said
    assert "rose from 57.3 ms to 70.3 ms" in said
    assert "beyond the model's 8,192-token window" in said
