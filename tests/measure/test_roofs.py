"""The roofs' measuring code against fakes of known answer, and its sizing rules.

Timings are never compared with fixed values. The arithmetic (bytes / time, 2 n^3 / t,
best and median, thread counts, sample budgets) is checked exactly with a fake clock
and fake kernels; sizing rules with monkeypatched cache and memory sizes (the real kernels:
tests/lectures/test_lecture01, whose run calibrates).
"""

from __future__ import annotations

import contextlib

import pytest
from fakes import FakeClock

from common.measure import caches, machine, roofs

MiB, GiB = 2**20, 2**30


def _fake_machine(monkeypatch: pytest.MonkeyPatch, llc: int | None, free: int | None) -> None:
    monkeypatch.setattr(caches, "last_level_cache_bytes", lambda caches=None: llc)
    monkeypatch.setattr(caches, "available_memory_bytes", lambda: free)


# --- calibrate with fake kernels: a streaming add of 12 MiB in 1/64 s, a 1024^3
# matmul in 1/16 s on all 8 BLAS threads and 1/2 s on one
STREAM_BYTES, N = 12 * MiB, 1024


@pytest.fixture
def fake_calibration(monkeypatch: pytest.MonkeyPatch):
    _fake_machine(monkeypatch, 32 * MiB, 16 * GiB)
    clock = FakeClock()
    state: dict = {"threads": None, "events": []}

    @contextlib.contextmanager
    def blas_threads(threads):
        state["threads"] = 8 if threads is None else threads
        yield state["threads"]
        state["threads"] = None

    def stream() -> None:
        state["events"].append("s")
        clock.advance(1 / 64)

    def matmul() -> None:
        state["events"].append(f"m{state['threads']}")
        clock.advance(1 / 2 / state["threads"])  # a perfectly parallel BLAS

    monkeypatch.setattr(roofs, "blas_threads", blas_threads)
    kernels = roofs.Kernels(stream, STREAM_BYTES, matmul, N)

    def run(**quick: bool) -> dict:
        state["events"].clear()
        return roofs.calibrate(clock=clock, kernels=kernels, **quick)

    return run, state


def test_quick_calibration_arithmetic(fake_calibration) -> None:
    run, state = fake_calibration
    c = run(quick=True)
    bw, peak, one = STREAM_BYTES * 64, 2 * N**3 * 16, 2 * N**3 * 2
    assert c["bandwidth_bytes_per_s"] == bw and c["bandwidth_median_bytes_per_s"] == bw
    assert c["matmul_flops_per_s"] == peak and c["matmul_one_thread_flops_per_s"] == one
    assert c["ridge_point"] == peak / bw and c["ridge_point_one_thread"] == one / bw
    assert (c["matmul_threads"], c["bandwidth_threads"], c["matmul_n"]) == (8, 1, N)
    assert c["bandwidth_working_set_bytes"] == STREAM_BYTES
    # Quick budget: 1/4 s of streaming (16 x 1/64 s), 0.2 s of matmul (4 x 1/16 s).
    assert (c["bandwidth_samples"], c["matmul_samples"]) == (16, 4)
    assert c["bandwidth"]["seconds"] == 1 / 64 and c["matmul"]["seconds"] == 1 / 16
    assert (c["llc_bytes"], c["llc_known"], c["quick"]) == (32 * MiB, True, True)
    assert c["available_memory_bytes"] == 16 * GiB
    assert state["events"] == ["s"] * 17 + ["m8"] * 5 + ["m1"] * 2  # warm-ups included
    c = run()  # no quick=: the full calibration
    # Full budget in 3 rounds: 0.8 / 3 = 0.27 s of streaming per round (18 x 1/64 s,
    # at least ceil(20 / 3) = 7) and 0.6 / 3 = 0.2 s of matmul per round (4 x 1/16 s).
    assert (c["bandwidth_samples"], c["matmul_samples"]) == (3 * 18, 3 * 4)
    first = ["s"] * 19 + ["m8"] * 5
    later = ["s"] * 18 + ["m8"] * 4
    assert state["events"] == first + later + later + ["m1"] * 2 and c["quick"] is False
    quiet = [1.0, 1.05, 1.1]
    assert roofs.busy_reasons(quiet, quiet, 0.2, 2) == []
    spread = [1.0, 2.0, 2.0]  # the median call at 50% of the best
    reasons = roofs.busy_reasons(spread, quiet, None, 2)
    assert reasons == ["the median streaming add ran at 50% of its best call"]
    loaded = roofs.busy_reasons(quiet, quiet, 1.5, 2)  # 1.5 >= max(1, 2 / 2)
    assert loaded == ["the load average was 1.50 on 2 cores before it began"]
    assert roofs.busy_reasons(quiet, quiet, 1.5, 4) == []  # 1.5 < 2 on 4 cores
    points = [(100.0, 10.0, 1.0), (10.0, 100.0, 2.0)]  # (F, D, t)
    peak, beta = roofs.raised_roofs(50.0, 20.0, points)
    assert (peak, beta) == (100.0, 50.0) and all(t >= max(f / peak, d / beta) for f, d, t in points)
    assert roofs.raised_roofs(1e3, 1e3, points) == (1e3, 1e3)  # nothing faster: unchanged


def test_the_size_probe_times_the_best_of_two_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setattr(roofs, "best_time", lambda fn, **kw: seen.append(kw) or 1.0)
    assert roofs._time_square_matmul(8) == 1.0 and seen == [{"repeat": 2, "warmup": 0}]
    assert roofs.QUICK_BUDGET == {
        "bandwidth_s": 0.25, "bandwidth_min_repeat": 5, "matmul_call_s": 0.025, "matmul_s": 0.2,
        "matmul_min_repeat": 2, "rounds": 1}  # fmt: skip
    assert roofs.FULL_BUDGET == {
        "bandwidth_s": 0.8, "bandwidth_min_repeat": 20, "matmul_call_s": 0.06, "matmul_s": 0.6,
        "matmul_min_repeat": 3, "rounds": 3}  # fmt: skip
    assert roofs.MAX_FRACTION_OF_FREE_MEMORY == 0.25
    summary = roofs._matmul_summary([1 / 2, 1 / 4, 1.0], 100, 3)
    best = 2 * 100**3 / (1 / 4)  # 2 n^3 FLOP in the best time
    assert summary == {"flops_per_s": best, "n": 100, "seconds": 0.25, "threads": 3, "samples": 3}

    def time_call(n: int) -> float:  # a 1024^3 matmul takes 1/20 s, time grows as n^3
        return 0.05 * (n / 1024) ** 3

    assert roofs.MATMUL_SIZES == (512, 1024, 1536, 2048, 3072, 4096, 6144, 8192)
    assert roofs.matmul_size_for(0.06, time_call=time_call) == 1536
    assert roofs.matmul_size_for(0.05, time_call=time_call) == 1024  # >= counts
    assert roofs.matmul_size_for(1e9, time_call=time_call) == 8192  # none is slow enough
    capped = roofs.matmul_size_for(0.06, max_bytes=3 * 4 * 1024**2, time_call=time_call)
    assert capped == 1024  # 1536 would need 3 x 4 x 1536^2 bytes
    assert roofs.matmul_size_for(1e9, max_bytes=1, time_call=time_call) == 512
    assert roofs._stream_add(12 * MiB)[1] == 12 * MiB  # x, y, z: 12 bytes per element
    assert roofs._stream_add(100)[1] == 3 * 1024 * 4  # at least 1024 elements per array
    # a clock moving 1/256 s at each reading: every timed call lasts 1/256 s
    mm = roofs.measure_matmul(n=64, repeat=2, threads=1, clock=FakeClock(0.0, 1 / 256))
    assert mm["flops_per_s"] == 2 * 64**3 * 256 and mm["threads"] == 1 and mm["samples"] == 2
    assert roofs.measure_matmul(n=64, threads=1, clock=FakeClock(0.0, 1 / 256))["samples"] == 3


@pytest.mark.parametrize(("llc", "free", "expected"), [
    # lecture 01's budget: 1 GiB - 160 MiB = 864 MiB of arrays, the stream 3/8 of it (the
    # rule itself, the floor and the unknown cache: test_budget's test_stream_bytes_by_hand)
    (32 * MiB, 100 * GiB, 256 * MiB // 12 * 12),  # 8x the LLC
    (64 * MiB, 100 * GiB, 324 * MiB),  # 8x = 512 MiB, capped by the budget at 324 MiB
    (64 * MiB, 1 * GiB, GiB // 4),  # capped at a quarter of free memory
    (64 * MiB, None, 324 * MiB),  # unknown free memory: the budget alone
    (64 * MiB, 4096, 3 * 4 * 1024)])  # absurdly little memory: 1024 fp32 elements x 3  # fmt: skip
def test_bandwidth_working_set_rules(
    monkeypatch: pytest.MonkeyPatch, llc: int | None, free: int | None, expected: int
) -> None:
    _fake_machine(monkeypatch, llc, free)
    assert roofs.bandwidth_working_set_bytes() == expected


def test_working_set_is_8x_llc_when_the_budget_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    for llc_mib in (2, 8, 32, 96, 256, 480, 1126):
        _fake_machine(monkeypatch, llc_mib * MiB, 512 * GiB)
        ws = roofs.bandwidth_working_set_bytes()
        assert ws > min(8 * llc_mib * MiB, 324 * MiB) - 12
        assert ws <= 324 * MiB  # 3/8 of lecture 01's 864 MiB of arrays
    _fake_machine(monkeypatch, None, GiB)
    assert roofs.llc_bytes() == (32 * MiB, False)
    _fake_machine(monkeypatch, 16 * MiB, GiB)
    assert roofs.llc_bytes() == (16 * MiB, True) and roofs.memory_cap_bytes() == GiB // 4
    monkeypatch.setattr(machine, "blas_info", lambda: {"threads": 6})
    with roofs.blas_threads(None) as used:
        assert used == 6
    with roofs.blas_threads(1) as used:
        assert used == 1
        from threadpoolctl import threadpool_info

        blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        assert all(p["num_threads"] == 1 for p in blas)


# --- RoofRun: the roofs re-timed between operations (fake clock, kernels of known speed) ---
def _two_thread_machine(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A 32 MiB-LLC machine with 2 BLAS threads, and the fake clock its kernels move."""
    _fake_machine(monkeypatch, 32 * MiB, 16 * GiB)
    monkeypatch.setattr(roofs, "blas_threads", lambda t: contextlib.nullcontext(t or 2))
    return FakeClock()


def test_roofs_taken_between_operations_catch_a_quieter_moment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = _two_thread_machine(monkeypatch)
    # The calibration runs while the machine is busy (1/32 s per stream, 1/8 s per
    # matmul); once the operations start, both kernels run twice as fast.
    slow = {"factor": 2.0}

    def stream() -> None:
        clock.advance(slow["factor"] / 64)

    def matmul() -> None:
        clock.advance(slow["factor"] / 16)

    run = roofs.RoofRun(roofs.Kernels(stream, STREAM_BYTES, matmul, N), quick=True, clock=clock)
    busy = run.start().calibration()
    assert busy["matmul_flops_per_s"] == 2 * N**3 * 8
    assert busy["bandwidth_bytes_per_s"] == STREAM_BYTES * 32
    slow["factor"] = 1.0
    op = run.time_op(lambda: clock.advance(0.01), repeat=2, budget_s=0.0, rounds=2)
    assert op == pytest.approx(0.01)
    quiet = run.calibration()
    assert quiet["matmul_flops_per_s"] == 2 * N**3 * 16  # a fast call between the rounds
    assert quiet["bandwidth_bytes_per_s"] == STREAM_BYTES * 64
    assert quiet["matmul_samples"] == busy["matmul_samples"] + 2  # one per round
    assert quiet["bandwidth_samples"] == busy["bandwidth_samples"] + 2
    clock = _two_thread_machine(monkeypatch)
    kernels = roofs.Kernels(lambda: clock.advance(1 / 64), 64, lambda: clock.advance(1 / 16), 8)
    run = roofs.RoofRun(kernels, quick=True, clock=clock).start()
    run.also("matmul", 1 / 32)  # the square GEMM, timed as an operation, ran faster
    run.also("bandwidth", 1 / 128)
    run.also("bandwidth", 1.0)  # and one slow call
    c = run.calibration()
    assert c["matmul_flops_per_s"] == 2 * 8**3 * 32
    assert c["bandwidth_bytes_per_s"] == 64 * 128 and c["bandwidth"]["seconds"] == 1 / 128
    assert (
        c["bandwidth_median_bytes_per_s"] == 64 * 64
    )  # median 1/64 s: not the worst, not the best
    assert c["bandwidth_samples"] == 16 + 2 and c["bandwidth"]["working_set_bytes"] == 64
    clock = _two_thread_machine(monkeypatch)
    kernels = roofs.Kernels(lambda: clock.advance(1 / 64), 64, lambda: clock.advance(1 / 16), 8)
    # a 1 s budget: the deadline is 0.6 s after the start, long past after the calibration
    run = roofs.RoofRun(kernels, quick=True, clock=clock, seconds=1.0).start()
    calls = []
    run.time_op(lambda: calls.append(clock.advance(0.001)), repeat=2, budget_s=5.0, rounds=2)
    assert len(calls) == 3  # one warm-up and one call per round, not 5 s of calls
