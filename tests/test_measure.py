"""Measurement helpers (common.measure) and lecture 01's ledger (common.probe_ops).

Timings are never compared with fixed values: measured numbers are checked for
being positive, finite and internally consistent; sizing rules are checked with
monkeypatched cache and memory sizes.
"""

from __future__ import annotations

import math

import pytest

from common.formulas import numpy_ops, roofline
from common.measure import caches, roofs
from common.present import explain

MiB = 2**20
GiB = 2**30


@pytest.fixture(scope="module")
def quick_calibration() -> dict:
    """One quick calibration of this machine, shared by the tests below."""
    return roofs.calibrate(quick=True)


def _fake_machine(monkeypatch: pytest.MonkeyPatch, llc: int | None, free: int | None) -> None:
    monkeypatch.setattr(caches, "last_level_cache_bytes", lambda caches=None: llc)
    monkeypatch.setattr(caches, "available_memory_bytes", lambda: free)


# ---------------------------------------------------------------------------
# calibrate
# ---------------------------------------------------------------------------
def test_quick_calibration_numbers_are_positive_and_finite(quick_calibration: dict) -> None:
    for key in (
        "bandwidth_bytes_per_s",
        "matmul_flops_per_s",
        "ridge_point",
        "matmul_one_thread_flops_per_s",
        "ridge_point_one_thread",
        "bandwidth_median_bytes_per_s",
    ):
        value = quick_calibration[key]
        assert isinstance(value, float) and math.isfinite(value) and value > 0, key


def test_ridge_is_peak_over_bandwidth(quick_calibration: dict) -> None:
    c = quick_calibration
    assert c["ridge_point"] == pytest.approx(c["matmul_flops_per_s"] / c["bandwidth_bytes_per_s"])
    assert c["ridge_point_one_thread"] == pytest.approx(
        c["matmul_one_thread_flops_per_s"] / c["bandwidth_bytes_per_s"]
    )


def test_calibration_is_physically_sensible(quick_calibration: dict) -> None:
    c = quick_calibration
    assert c["quick"] is True
    assert c["bandwidth_threads"] == 1
    assert c["matmul_n"] in roofs.MATMUL_SIZES
    assert c["bandwidth_samples"] >= roofs.QUICK_BUDGET["bandwidth_min_repeat"]
    assert c["matmul_samples"] >= roofs.QUICK_BUDGET["matmul_min_repeat"]
    # the best call is at least as fast as the median call
    assert c["bandwidth_bytes_per_s"] >= c["bandwidth_median_bytes_per_s"]
    # between 100 MB/s and 100 TB/s; between 100 MFLOP/s and 10 PFLOP/s
    assert 1e8 < c["bandwidth_bytes_per_s"] < 1e14
    assert 1e8 < c["matmul_flops_per_s"] < 1e16
    assert c["bandwidth"]["working_set_bytes"] == c["bandwidth_working_set_bytes"]
    assert c["matmul"]["n"] == c["matmul_n"]


def test_calibration_working_set_follows_the_rule(quick_calibration: dict) -> None:
    ws = quick_calibration["bandwidth_working_set_bytes"]
    expected = roofs.bandwidth_working_set_bytes()
    # n = expected // 12 elements per vector, so at most 11 bytes are lost to rounding
    assert expected - 3 * roofs.FP32 < ws <= expected
    llc = quick_calibration["llc_bytes"]
    cap = roofs.memory_cap_bytes()
    assert ws >= roofs.LLC_MULTIPLE * llc - 12 or (cap is not None and ws >= cap - 12)


# ---------------------------------------------------------------------------
# Working-set sizing (monkeypatched machine)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("llc", "free", "expected"),
    [
        (64 * MiB, 100 * GiB, 8 * 64 * MiB),  # 8x the LLC
        (128 * MiB, 100 * GiB, 8 * 128 * MiB),
        (1 * MiB, 100 * GiB, roofs.MIN_BANDWIDTH_SET_BYTES),  # floor for a small LLC
        (None, 100 * GiB, 8 * roofs.FALLBACK_LLC_BYTES),  # unknown LLC: stated fallback
        (64 * MiB, 1 * GiB, GiB // 4),  # capped at a quarter of free memory
        (64 * MiB, None, 8 * 64 * MiB),  # unknown free memory: no cap
        (64 * MiB, 4096, roofs.MIN_WORKING_SET_BYTES),  # absurdly little memory
    ],
)
def test_bandwidth_working_set_rules(
    monkeypatch: pytest.MonkeyPatch, llc: int | None, free: int | None, expected: int
) -> None:
    _fake_machine(monkeypatch, llc, free)
    assert roofs.bandwidth_working_set_bytes() == expected


def test_working_set_is_at_least_8x_llc_when_memory_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    for llc_mib in (2, 8, 32, 96, 256):
        _fake_machine(monkeypatch, llc_mib * MiB, 512 * GiB)
        ws = roofs.bandwidth_working_set_bytes()
        assert ws >= roofs.LLC_MULTIPLE * llc_mib * MiB
        assert ws <= 512 * GiB * roofs.MAX_FRACTION_OF_FREE_MEMORY


def test_llc_fallback_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_machine(monkeypatch, None, GiB)
    assert roofs.llc_bytes() == (roofs.FALLBACK_LLC_BYTES, False)
    _fake_machine(monkeypatch, 16 * MiB, GiB)
    assert roofs.llc_bytes() == (16 * MiB, True)
    assert roofs.memory_cap_bytes() == GiB // 4


def test_measure_bandwidth_uses_the_given_working_set() -> None:
    bw = roofs.measure_bandwidth(working_set_bytes=12 * MiB, repeat=3)
    assert bw["working_set_bytes"] == 12 * MiB
    assert bw["threads"] == 1 and bw["samples"] >= 3
    assert bw["bytes_per_s"] == pytest.approx(bw["working_set_bytes"] / bw["seconds"])


def test_matmul_size_respects_memory_cap() -> None:
    smallest = roofs.MATMUL_SIZES[0]
    assert roofs.matmul_size_for(call_s=100.0, max_bytes=3 * 4 * smallest**2) == smallest
    assert roofs.matmul_size_for(call_s=0.0) == smallest  # any call is long enough


def test_measure_matmul_reports_threads() -> None:
    mm = roofs.measure_matmul(n=256, repeat=2, threads=1)
    assert mm["n"] == 256 and mm["threads"] == 1
    assert mm["flops_per_s"] == pytest.approx(2 * 256**3 / mm["seconds"])


def test_time_samples_repeat_and_budget() -> None:
    calls = []
    durations = roofs.time_samples(lambda: calls.append(1), repeat=4, warmup=2)
    assert len(durations) == 4 and len(calls) == 6
    durations = roofs.time_samples(lambda: None, repeat=1, budget_s=0.02, max_repeat=50)
    assert 1 <= len(durations) <= 50
    assert roofs.best_time(lambda: None, repeat=3) == pytest.approx(0.0, abs=0.01)


# ---------------------------------------------------------------------------
# probe_ops: sizes
# ---------------------------------------------------------------------------
def test_elementwise_and_layernorm_fill_the_working_set() -> None:
    ws = 256 * MiB
    n = numpy_ops.elementwise_n(ws)
    assert 3 * 4 * n <= ws < 3 * 4 * (n + 1)
    rows, d = numpy_ops.layernorm_shape(ws)
    assert d == numpy_ops.HIDDEN and rows % numpy_ops.ROW_STEP == 0
    assert 3 * 4 * rows * d <= ws < 3 * 4 * (rows + numpy_ops.ROW_STEP) * d


@pytest.mark.parametrize("llc_mib", [1, 8, 32, 40, 96, 256])
def test_attention_and_gemm_arrays_exceed_twice_the_llc(llc_mib: int) -> None:
    llc = llc_mib * MiB
    seq = numpy_ops.attention_seq_len(llc)
    assert seq % numpy_ops.SEQ_STEP == 0
    assert 4 * seq * seq >= 2 * llc
    assert seq == numpy_ops.SEQ_STEP or 4 * (seq - numpy_ops.SEQ_STEP) ** 2 < 2 * llc
    k = numpy_ops.gemm_width(llc)
    assert k >= numpy_ops.HIDDEN and 4 * k * k >= 2 * llc


def test_article_sizes_on_a_32_mib_cache() -> None:
    assert numpy_ops.attention_seq_len(32 * MiB) == 4096  # the article's N
    assert numpy_ops.gemm_width(32 * MiB) == 4096  # the article's K = N


def test_sizes_respect_the_memory_cap() -> None:
    assert 4 * numpy_ops.attention_seq_len(256 * MiB, cap_bytes=64 * MiB) ** 2 <= 64 * MiB
    assert 4 * numpy_ops.gemm_width(256 * MiB, cap_bytes=64 * MiB) ** 2 <= 64 * MiB


def test_same_flops_matmul_size() -> None:
    n = numpy_ops.elementwise_n(256 * MiB)
    m = numpy_ops.same_flops_matmul_size(n)
    assert m % numpy_ops.SAME_FLOPS_STEP == 0
    assert 2 * m**3 == pytest.approx(n, rel=0.25)


# ---------------------------------------------------------------------------
# probe_ops: ledgers
# ---------------------------------------------------------------------------
def test_elementwise_ledgers_count_passes() -> None:
    n = 1000
    assert numpy_ops.add_counts(n) == (n, 12 * n)
    assert numpy_ops.add_relu_two_pass_counts(n) == (2 * n, 20 * n)
    assert numpy_ops.add_relu_one_expr_counts(n) == (2 * n, 24 * n)
    f, d = numpy_ops.add_counts(n)
    assert f / d == pytest.approx(1 / 12)  # I = 1 / (3 b) with b = 4


def test_layernorm_and_attention_ledgers_match_the_article() -> None:
    f, d = numpy_ops.layernorm_numpy_counts(4096, 3072)
    assert f == 6 * 4096 * 3072 and d == 10 * 4 * 4096 * 3072
    f, d = numpy_ops.attention_naive_counts(4096, 128)
    assert round(f / 1e9, 2) == 8.67  # the article's F = 4 N^2 Dh + 5 N^2
    assert d == 4 * (10 * 4096**2 + 4 * 4096 * 128)
    f_mm, d_mm = numpy_ops.attention_matmul_counts(4096, 128)
    f_sm, d_sm = numpy_ops.attention_softmax_counts(4096)
    assert f_mm + f_sm == f and d_mm + d_sm == d  # the two phases make up the whole


def test_gemm_ledger_is_fp32_gemm_counts() -> None:
    assert numpy_ops.gemm_fp32_counts(512, 4096, 4096) == roofline.gemm_counts(512, 4096, 4096, 4)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, None])
def test_ledgers_reject_bad_sizes(bad: object) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        numpy_ops.add_counts(bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# probe_ops: rows and flags
# ---------------------------------------------------------------------------
def _row(t_meas: float, **kw: object) -> dict:
    args = {"working_set_bytes": 1e9, "threads": 1}
    args.update(kw)
    return numpy_ops.roofline_row("op", 1e9, 4e9, t_meas, 1e11, 1e10, **args)


def test_roofline_row_is_consistent() -> None:
    row = _row(0.8)
    assert row["t_pred_s"] == max(1e9 / 1e11, 4e9 / 1e10) == 0.4
    assert row["bound"] == "memory" and row["intensity"] == 0.25
    assert row["fraction_of_bound"] == pytest.approx(0.5)
    assert row["achieved_flops_per_s"] == pytest.approx(1e9 / 0.8)
    assert row["flag"] is None and row["threads"] == 1


def test_flag_only_above_110_percent() -> None:
    assert _row(0.4 / 1.10)["flag"] is None  # exactly 110%: not flagged
    assert _row(0.4 / 1.11)["flag"] == "above roof"
    with pytest.raises(ValueError, match="measured time"):
        _row(0.0)


def test_above_roof_reasons() -> None:
    llc = 32 * MiB
    cached = _row(0.1, working_set_bytes=16 * MiB, threads=2)
    reasons = explain.above_roof_reasons(cached, llc, 1)
    assert "cache" in reasons[0]
    assert any("2 threads" in r for r in reasons)
    assert any("over-counted" in r for r in reasons) and any("noise" in r for r in reasons)
    streaming = _row(0.1, working_set_bytes=1e9, threads=1)
    reasons = explain.above_roof_reasons(streaming, llc, 1)
    assert not any("cache" in r for r in reasons[:1])
    assert not any("threads" in r for r in reasons)
    assert not any("calibration" in r for r in reasons)
    twin = _row(0.1, working_set_bytes=1e9, threads=1, same_as_calibration=True)
    assert "calibration's own operation" in explain.above_roof_reasons(twin, llc, 1)[0]
