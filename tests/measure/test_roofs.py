"""Measurement helpers (common.measure) and lecture 01's ledger (common.probe_ops).

Timings are never compared with fixed values: measured numbers are checked for
being positive, finite and internally consistent; sizing rules are checked with
monkeypatched cache and memory sizes.
"""

from __future__ import annotations

import math

import pytest

from common.measure import caches, roofs

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
