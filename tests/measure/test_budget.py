"""Sizes from a budget: reported caches of 32 MiB to 1.1 GiB and unknown, each lecture within
its memory budget. Expected sizes are worked out by hand in the comments."""

from __future__ import annotations

import argparse
import math

import pytest

from common.measure import budget, caches
from common.measure.budget import Budget

MiB, GiB = 2**20, 2**30
# The fake caches of the issue: two small ones, the 480 MiB cloud VM, a 1.1 GiB one, unknown.
FAKE_LLCS = {"32 MiB": 32 * MiB, "105 MiB": 105 * MiB, "480 MiB": 480 * MiB,
             "1.1 GiB": int(1.1 * GiB), "unknown": None}  # fmt: skip
L01, L03 = Budget(10.0, GiB), Budget(20.0, 3 * GiB // 2)
# Roofs of a slow laptop and of a fast server: the time caps must hold for both.
ROOFS = [(20e9, 5e9), (2e12, 100e9)]  # (P FLOP/s, beta B/s)
HEAD = 128


def test_defaults_are_the_issue_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    assert budget.DEFAULTS["01"] == Budget(10.0, GiB)
    for lecture in ("03", "09", "10"):
        assert budget.DEFAULTS[lecture] == Budget(20.0, 1.5 * GiB)
    assert Budget(10, GiB).arrays_bytes == GiB - 160 * MiB  # 864 MiB
    assert Budget(10, 100 * MiB).arrays_bytes == 64 * MiB  # never below 64 MiB
    monkeypatch.setattr(budget, "headroom", lambda: (None, ""))  # any machine: room unknown
    parser = argparse.ArgumentParser()
    budget.add_flags(parser, "01")
    assert budget.from_args(parser.parse_args([])) == Budget(10.0, GiB)
    args = parser.parse_args(["--memory-limit", "0.5", "--time-limit", "30"])
    assert budget.from_args(args) == Budget(30.0, GiB // 2)
    for bad in (["--memory-limit", "0"], ["--time-limit", "nan"], ["--memory-limit", "x"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)
    assert budget.attention_seq(32 * MiB, GiB, 2e12, 100e9) == 4096
    # 2 x 480 MiB: N = ceil(sqrt(960 MiB / 4) / 512) * 512 = 15872; 400 MiB caps S:
    # 4 N^2 + 16 N 128 <= 400 MiB -> N <= 10240 (10240: 400 MiB + 20 MiB > cap) -> 9728.
    assert budget.attention_seq(480 * MiB, 400 * MiB, 1e15, 1e15) == 9728
    # time: 10 passes x 4 N^2 / 5 GB/s <= 0.15 s -> N <= 4330 -> 4096
    assert budget.attention_seq(480 * MiB, GiB, 1e15, 5e9) == 4096
    # never below 1024
    assert budget.attention_seq(480 * MiB, 1, 1.0, 1.0) == budget.MIN_SEQ
    assert budget.gemm_width(32 * MiB, GiB, 1e12) == 4096  # 64 MiB weight = 2 x LLC
    # 480 MiB wants 8192 (256 MiB < 960 MiB) and 16384; 2 x 512 x 8192^2 / 1 TFLOP/s
    # = 69 ms <= 150 ms, 16384: 275 ms > 150 ms -> 8192
    assert budget.gemm_width(480 * MiB, GiB, 1e12) == 8192
    assert budget.gemm_width(480 * MiB, GiB, 100e9) == 4096  # 8192 would take 0.69 s
    assert budget.gemm_width(None, GiB, 1e12) == 4096  # fallback 32 MiB
    # 4 (K^2 + 1024 K): 4096 needs 80 MiB, 2048 needs 24 MiB
    assert budget.gemm_width(32 * MiB, 30 * MiB, 1e12) == 2048
    assert budget.gemm_width(32 * MiB, 20 * MiB, 1e12) == 1024
    assert budget.matmul_side_cap(budget.DEFAULTS["09"], 100e9, 0.075) == 1536
    # memory: 12 n^2 <= 1376 MiB / 4 -> n <= 5482 -> 5376
    assert budget.matmul_side_cap(budget.DEFAULTS["09"], 1e18, 1.0) == 5376
    llc = FAKE_LLCS["480 MiB"]
    assert budget.attention_longest(llc, budget.DEFAULTS["10"], 1e15, 7e9) == 7168
    assert budget.attention_longest(llc, Budget(40.0, 3 * GiB // 2), 1e15, 7e9) == 10240
    assert budget.cache_note("x", 64 * MiB, 32 * MiB) is None  # 2x: clear
    mixed = budget.cache_note("The bandwidth roof", 1.6 * 480 * MiB, 480 * MiB)
    assert mixed and "1.6x the LLC" in mixed and "mix of LLC and DRAM" in mixed
    inside = budget.cache_note("GEMM", 64 * MiB, 480 * MiB)
    assert inside and "0.13x" in inside and "mostly the LLC" in inside
    assert budget.cache_note("x", 1, None) is None  # unknown cache: nothing to claim
    assert budget.op_seconds(Budget(10.0, GiB)) == pytest.approx(0.12)
    assert budget.op_seconds(Budget(20.0, GiB)) == pytest.approx(0.24)
    assert budget.call_cap(Budget(10.0, GiB)) == pytest.approx(0.15)
    assert budget.time_scale(Budget(40.0, GiB), "09") == 2.0
    assert budget.time_scale(Budget(5.0, GiB), "01") == 0.5
    times = {"sweep_s": 9.0, "sizes_per_octave": 4, "add_s": 0.06}
    assert budget.scaled_times(times, 0.5) == {"sweep_s": 4.5, "sizes_per_octave": 4, "add_s": 0.03}

    def dim(budget_s: float) -> int:
        return budget.sweep_weight_dim((1,), 1e12, 1e9, budget_s)

    assert dim(0.2) == 4096 and dim(0.1) == 2048 and dim(0.0336) == 2048 and dim(0.0335) == 1024
    assert dim(1e-6) == 1024  # never below 1024, even when that overruns too


@pytest.mark.parametrize(("llc", "expected"), [
    (32 * MiB, 256 * MiB),  # 8 x 32 MiB = 256 MiB, within 864 / (8/3) = 324 MiB
    (105 * MiB, 324 * MiB),  # 8 x 105 = 840 MiB, capped at 324 MiB
    (480 * MiB, 324 * MiB), (int(1.1 * GiB), 324 * MiB),
    (None, 256 * MiB),  # the 32 MiB fallback: 8 x 32 MiB
    (1 * MiB, 256 * MiB)])  # the 256 MiB floor  # fmt: skip
def test_stream_bytes_by_hand(llc: int | None, expected: int) -> None:
    assert budget.stream_bytes(llc, L01) == expected // 12 * 12  # whole fp32 elements x 3


@pytest.mark.parametrize("name", list(FAKE_LLCS))
@pytest.mark.parametrize(("peak", "beta"), ROOFS)
def test_lecture01_fits_its_memory_budget_and_time_cap(name: str, peak: float, beta: float) -> None:
    """The stream (W), the matmul (3 n^2 fp32) and the largest operation stay in 1 GiB."""
    llc = FAKE_LLCS[name]
    matmul = 3 * 4 * 2048**2  # the largest matmul the 1/8 cap allows: 48 MiB < 864 / 8
    w = budget.stream_bytes(llc, L01, matmul)
    cap = L01.arrays_bytes - w - matmul
    n = budget.attention_seq(llc, cap, peak, beta, HEAD)
    k = budget.gemm_width(llc, cap, peak)
    elementwise = w * 5 / 3  # a, b, out, tmp and numpy's temporary: 5 vectors of W / 3
    layernorm = w  # x, xc, sq
    attention = 4 * (n * n + 4 * n * HEAD)
    gemm = 4 * (k * k + 2 * 512 * k)
    largest = max(elementwise, layernorm, attention, gemm)
    assert w + matmul + largest <= L01.arrays_bytes
    assert budget.BASELINE_BYTES + w + matmul + largest <= GiB
    # and as far past the cache as the budget allows
    if llc and 8 * llc <= (L01.arrays_bytes - matmul) * 3 / 8:
        assert w > 8 * llc - 12
    # each call within the time cap, on the slow laptop and on the fast server
    n = budget.attention_seq(llc, GiB, peak, beta, HEAD, call_cap_s=0.15)
    call = max(4.0 * n * n * HEAD / peak, 10 * 4 * n * n / beta)
    assert n == budget.MIN_SEQ or call <= 0.15
    k = budget.gemm_width(llc, GiB, peak, 512, call_cap_s=0.15)
    assert k <= budget.HIDDEN or 2.0 * 512 * k * k / peak <= 0.15


@pytest.mark.parametrize(("llc", "copies"), [
    (32 * MiB, 3),  # 1 + ceil(4 x 32 / 64) = 3
    (105 * MiB, 8),  # 1 + ceil(420 / 64) = 1 + 7
    (480 * MiB, 21),  # wants 1 + 30 = 31, the budget holds (1536 - 160 - 8) // 64 = 21
    (int(1.1 * GiB), 21),  # wants 72, holds 21
    (None, 3), (8 * MiB, 1)])  # the 32 MiB fallback; 64 MiB alone is 8 x LLC  # fmt: skip
def test_weight_copies_by_hand(llc: int | None, copies: int) -> None:
    cap = L03.arrays_bytes - 8 * MiB  # X and Y of B = 256, K = 4096
    got = budget.weight_copies(64 * MiB, llc, cap)
    assert got == copies
    assert got * 64 * MiB <= cap  # lecture 03 stays within its budget


@pytest.mark.parametrize("name", list(FAKE_LLCS))
def test_lecture03_never_reads_a_cached_copy_when_the_budget_allows(name: str) -> None:
    llc = FAKE_LLCS[name]
    cap = L03.arrays_bytes - 8 * MiB
    copies = budget.weight_copies(64 * MiB, llc, cap)
    between = budget.streamed_between_bytes(64 * MiB, copies)
    note = budget.cache_note("The sweep", between, llc)
    if between >= 2 * budget.llc_or_fallback(llc):
        assert note is None
    else:  # the 1.1 GiB cache: the page must say it
        assert name == "1.1 GiB" and note and "mix of LLC and DRAM" in note
    limit = budget.sweep_limit_bytes(llc, budget.DEFAULTS["09"], 64 * GiB)
    want = max(8 * budget.llc_or_fallback(llc), 256 * MiB)
    assert limit == min(want, int(0.75 * (1.5 * GiB - 160 * MiB)))
    assert budget.sweep_limit_bytes(llc, budget.DEFAULTS["09"], GiB) <= GiB // 4


# Half of lecture 10's 1,376 MiB arrays budget is 688 MiB = 721,420,288 B, and
# 4 (N^2 + 4 N 128) bytes of S, Q, K, V and O must fit it: N = 12,800 takes 681,574,400 B,
# N = 13,312 takes 736,100,352 B. S = 4 N^2 >= 2 LLC asks N = 4096 for 32 MiB (and the 32 MiB
# fallback), ceil(sqrt(210 MiB / 4) / 512) = 15 steps = 7680 for 105 MiB, and more than
# 12,800 for 480 MiB and 1.1 GiB. A cap read as bytes where it was a length kept every
# case at 1024.
@pytest.mark.parametrize(("name", "expected"), [
    ("32 MiB", 4096), ("105 MiB", 7680), ("480 MiB", 12800), ("1.1 GiB", 12800),
    ("unknown", 4096)])  # fmt: skip
def test_lecture10_longest_length_by_hand(name: str, expected: int) -> None:
    plan = budget.DEFAULTS["10"]
    n = budget.attention_longest(FAKE_LLCS[name], plan, 1e15, 1e15, HEAD)
    assert n == expected and 4 * (n * n + 4 * n * HEAD) <= plan.arrays_bytes / 2


REAL = [caches.Cache(1, "Data", 32 * 1024), caches.Cache(2, "Unified", MiB)]


def test_fake_llc_reaches_every_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(caches.FAKE_LLC_ENV, "105M")
    assert caches.last_level_cache_bytes() == 105 * MiB
    assert caches.data_levels(caches.read_caches_with_source()[0])[-1] == ("L3", 105 * MiB)
    monkeypatch.setenv(caches.FAKE_LLC_ENV, "none")
    assert caches.last_level_cache_bytes() is None
    assert math.isfinite(budget.stream_bytes(caches.last_level_cache_bytes(), L01))
    found, source = caches.faked([*REAL, caches.Cache(3, "Unified", 32 * MiB)], "sysfs", "480M")
    assert found == [*REAL, caches.Cache(3, "Unified", 480 * MiB)]
    assert "faked" in source and "480M" in source
    found, _ = caches.faked(REAL, "sysfs", "1.1G")
    assert caches.last_level_cache_bytes(found) == int(1.1 * GiB)
    assert caches.faked(REAL, "sysfs", "none") == ([], "")
    with pytest.raises(ValueError, match="ROOFLINE_FAKE_LLC"):
        caches.faked(REAL, "sysfs", "lots")
