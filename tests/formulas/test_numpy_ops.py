"""Lecture 01's operation ledger (common.formulas.numpy_ops) and its explanations."""

from __future__ import annotations

import pytest

from common.formulas import numpy_ops, roofline
from common.present import explain

MiB = 2**20
GiB = 2**30


def test_elementwise_and_layernorm_fill_the_working_set() -> None:
    ws = 256 * MiB
    n = numpy_ops.elementwise_n(ws)
    assert 3 * 4 * n <= ws < 3 * 4 * (n + 1)
    rows, d = numpy_ops.layernorm_shape(ws)
    assert d == numpy_ops.HIDDEN and rows % numpy_ops.ROW_STEP == 0
    assert 3 * 4 * rows * d <= ws < 3 * 4 * (rows + numpy_ops.ROW_STEP) * d
    assert numpy_ops.elementwise_n(12 * 5000 + 11) == 5000
    assert isinstance(numpy_ops.elementwise_n(12 * 5000), int)
    assert numpy_ops.elementwise_n(100) == 1024  # never below 1024 elements
    # 3 fp32 arrays of [rows, 4096] in 200 MiB: 200 Mi / 48 Ki = 4266 rows -> 4224 (x 64)
    assert numpy_ops.layernorm_shape(200 * MiB) == (4224, 4096)
    assert isinstance(numpy_ops.layernorm_shape(200 * MiB)[0], int)
    assert numpy_ops.layernorm_shape(1000) == (64, 4096)  # at least one step of rows
    assert numpy_ops.layernorm_shape(3 * 4 * 64 * 100 * 10, d=100) == (640, 100)
    m = numpy_ops.same_flops_matmul_size(n)
    assert m % numpy_ops.SAME_FLOPS_STEP == 0 and 2 * m**3 == pytest.approx(n, rel=0.25)
    # (1e9 / 2)^(1/3) = 793.7 -> 50 x 16 = 800
    assert numpy_ops.same_flops_matmul_size(1e9) == 800
    assert numpy_ops.same_flops_matmul_size(10) == 16
    assert (numpy_ops.HIDDEN, numpy_ops.HEAD_DIM, numpy_ops.GEMM_WIDE_M) == (4096, 128, 512)
    assert (numpy_ops.SEQ_STEP, numpy_ops.ROW_STEP, numpy_ops.SAME_FLOPS_STEP) == (512, 64, 16)
    assert (numpy_ops.GEMM_SKINNY_M, numpy_ops.CACHE_MARGIN, numpy_ops.FP32) == (8, 2, 4)
    assert numpy_ops.OP_BUDGET_S == {"full": 0.2, "quick": 0.05} and numpy_ops.MIN_REPEAT == 2
    assert numpy_ops.ABOVE_ROOF == 1.10 and numpy_ops.attention_seq_len(256 * MiB) == 11776
    assert numpy_ops.attention_seq_len(1024) == 512  # the smallest step
    assert numpy_ops.attention_seq_len(256 * MiB, cap_bytes=4 * 4096**2) == 4096  # = cap fits
    assert numpy_ops.attention_seq_len(256 * MiB, cap_bytes=4 * 4096**2 - 1) == 3584
    assert numpy_ops.attention_seq_len(256 * MiB, cap_bytes=1) == 512  # never below one step
    assert numpy_ops.attention_seq_len(32 * MiB) == 4096  # the article's N
    assert 4 * numpy_ops.attention_seq_len(256 * MiB, cap_bytes=64 * MiB) ** 2 <= 64 * MiB
    n = 1000
    assert numpy_ops.add_counts(n) == (n, 12 * n)  # I = 1 / (3 b) with b = 4
    assert numpy_ops.add_relu_two_pass_counts(n) == (2 * n, 20 * n)
    assert numpy_ops.add_relu_one_expr_counts(n) == (2 * n, 24 * n)
    f, d = numpy_ops.layernorm_numpy_counts(4096, 3072)
    assert f == 6 * 4096 * 3072 and d == 10 * 4 * 4096 * 3072
    f, d = numpy_ops.attention_naive_counts(4096, 128)
    assert round(f / 1e9, 2) == 8.67  # the article's F = 4 N^2 Dh + 5 N^2
    assert d == 4 * (10 * 4096**2 + 4 * 4096 * 128)
    f_mm, d_mm = numpy_ops.attention_matmul_counts(4096, 128)
    f_sm, d_sm = numpy_ops.attention_softmax_counts(4096)
    assert f_mm + f_sm == f and d_mm + d_sm == d  # the two phases make up the whole
    assert numpy_ops.gemm_fp32_counts(512, 4096, 4096) == roofline.gemm_counts(512, 4096, 4096, 4)
    row = _row(0.8)
    assert row["t_pred_s"] == max(1e9 / 1e11, 4e9 / 1e10) == 0.4
    assert row["bound"] == "memory" and row["intensity"] == 0.25
    assert row["fraction_of_bound"] == pytest.approx(0.5)
    assert row["achieved_flops_per_s"] == pytest.approx(1e9 / 0.8)
    assert row["flag"] is None and row["threads"] == 1 and row["achieved_bytes_per_s"] == 4e9 / 0.8
    assert row["t_compute_s"] == 1e9 / 1e11 and row["t_memory_s"] == 4e9 / 1e10
    assert (row["flops"], row["bytes"], row["t_meas_s"]) == (1e9, 4e9, 0.8)
    assert row["working_set_bytes"] == 1e9 and row["name"] == "op"
    assert _row(0.4 / 1.10)["flag"] is None  # exactly 110%: not flagged
    assert _row(0.4 / 1.11)["flag"] == "above roof"
    llc = 32 * MiB
    cached = _row(0.1, working_set_bytes=16 * MiB, threads=2)
    reasons = explain.above_roof_reasons(cached, llc, 1)
    assert "cache" in reasons[0] and any("2 threads" in r for r in reasons)
    assert any("over-counted" in r for r in reasons) and any("noise" in r for r in reasons)
    streaming = _row(0.1, working_set_bytes=1e9, threads=1)
    reasons = explain.above_roof_reasons(streaming, llc, 1)
    assert not any("cache" in r for r in reasons[:1]) and not any("threads" in r for r in reasons)
    assert not any("calibration" in r for r in reasons)
    twin = _row(0.1, working_set_bytes=1e9, threads=1, same_as_calibration=True)
    assert "calibration's own operation" in explain.above_roof_reasons(twin, llc, 1)[0]


@pytest.mark.parametrize("llc_mib", [1, 8, 32, 40, 96, 256])
def test_attention_scores_exceed_twice_the_llc(llc_mib: int) -> None:
    llc = llc_mib * MiB
    seq = numpy_ops.attention_seq_len(llc)
    assert seq % numpy_ops.SEQ_STEP == 0 and 4 * seq * seq >= 2 * llc
    assert seq == numpy_ops.SEQ_STEP or 4 * (seq - numpy_ops.SEQ_STEP) ** 2 < 2 * llc


def _row(t_meas: float, **kw: object) -> dict:
    args = {"working_set_bytes": 1e9, "threads": 1}
    args.update(kw)
    return numpy_ops.roofline_row("op", 1e9, 4e9, t_meas, 1e11, 1e10, **args)
