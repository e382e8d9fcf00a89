"""The timer against a fake clock: sample counts, budgets, batching and the best time, exactly
(durations are binary fractions, so sums and differences of fake times are exact)."""

from __future__ import annotations

import pytest
from fakes import FakeClock, kernel

from common.measure import timing


def test_time_samples_records_each_calls_duration(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    fn = kernel(clock, 1 / 8, 1 / 4, 1 / 2, 1 / 16, 1 / 32)
    durations = timing.time_samples(fn, repeat=3, warmup=2, clock=clock)
    assert durations == [1 / 2, 1 / 16, 1 / 32]  # the two warm-up calls are not timed
    assert fn.calls == 5
    clock = FakeClock()
    fn = kernel(clock, 1 / 64)
    # at least 2 samples, more while less than 1/4 s has passed: 16 x 1/64 = 1/4
    durations = timing.time_samples(fn, repeat=2, warmup=0, budget_s=0.25, clock=clock)
    assert durations == [1 / 64] * 16
    capped = timing.time_samples(fn, repeat=2, warmup=0, budget_s=0.25, max_repeat=5, clock=clock)
    assert len(capped) == 5
    assert len(timing.time_samples(fn, repeat=0, warmup=0, clock=clock)) == 1  # at least one
    assert len(timing.time_samples(fn, repeat=7, warmup=0, budget_s=0.01, clock=clock)) == 7
    clock = FakeClock()
    fn = kernel(clock, 1 / 4, 1 / 4, 1 / 2, 1 / 2, 1 / 8, 1 / 8, 1 / 8, 1 / 8)
    durations = timing.time_samples(fn, repeat=2, warmup=0, calls=2, clock=clock)
    assert durations == [1 / 4, 1 / 2]  # (1/4 + 1/4) / 2 and (1/2 + 1/2) / 2
    assert fn.calls == 4
    assert timing.time_samples(fn, repeat=1, warmup=0, calls=0, clock=clock) == [1 / 8]
    clock = FakeClock()
    fn = kernel(clock, 1.0, 3 / 8, 1 / 8, 1 / 4, 1 / 2)
    assert timing.best_time(fn, repeat=4, warmup=1, clock=clock) == 1 / 8
    fn = kernel(clock, 1 / 32)
    assert timing.best_time(fn, repeat=1, warmup=0, budget_s=0.25, clock=clock) == 1 / 32
    assert fn.calls == 8  # the budget was passed on: 8 x 1/32 = 1/4
    clock = FakeClock()
    fn = kernel(clock, 1 / 8)
    assert timing.time_samples(fn, clock=clock) == [1 / 8] * 5 and fn.calls == 6
    fn = kernel(clock, 1 / 8, 1 / 4, 1 / 4, 1 / 4, 1 / 4, 1 / 16)
    assert timing.best_time(fn, clock=clock) == 1 / 16 and fn.calls == 6  # 1 + 5, no budget
    free = kernel(clock, 0.0)  # a call the clock cannot see: the sample cap stops the loop
    assert len(timing.time_samples(free, warmup=0, budget_s=1.0, clock=clock)) == 10_000
    clock = FakeClock()
    fn = kernel(clock, 1 / 64)
    assert timing.best_time(fn, clock=clock) == 1 / 64 and fn.calls == 6
    clock = FakeClock()
    fn = kernel(clock, 1 / 1024)
    # 1, 2, 4, 8 calls last 1/1024 ... 8/1024; 16 calls = 1/64 s >= 1/100 s
    calls, elapsed = timing.calls_per_batch(fn, min_batch_s=0.01, clock=clock)
    assert (calls, elapsed) == (16, 16 / 1024) and fn.calls == 1 + 2 + 4 + 8 + 16
    assert timing.calls_per_batch(kernel(clock, 1 / 64), 1 / 64, clock=clock) == (1, 1 / 64)
    assert timing.MIN_BATCH_S == 2e-4 and timing.MAX_CALLS_PER_BATCH == 1 << 24
    clock = FakeClock()
    monkeypatch.setattr(timing, "MAX_CALLS_PER_BATCH", 8)
    assert timing.calls_per_batch(kernel(clock, 0.0), 1.0, clock=clock) == (8, 0.0)
    clock = FakeClock()
    # warm-up 1/8; calls_per_batch: 1 call of 1/1024 is < 1/512, 2 calls = 1/512: k = 2;
    # then two more batches of 2 calls: the second one faster (1/2048 per call).
    fn = kernel(clock, 1 / 8, 1 / 1024, 1 / 1024, 1 / 1024, 1 / 1024, 1 / 1024, 1 / 2048)
    got = timing.time_per_call(fn, budget_s=0.0, min_batch_s=1 / 512, clock=clock)
    assert got == timing.CallTiming(1 / 2048, 2, 3) and fn.calls == 1 + 1 + 2 + 2 + 2
    clock = FakeClock()
    # the search batch of 2 calls runs at 1/2048 per call; the later batches are slower
    fn = kernel(clock, 1 / 8, 1 / 2048, 1 / 2048, 1 / 2048, 1 / 512)
    got = timing.time_per_call(fn, budget_s=0.0, min_batch_s=1 / 1024, clock=clock)
    assert got == timing.CallTiming(1 / 2048, 2, 3)
    clock = FakeClock()
    fn = kernel(clock, 1 / 64)
    # warm-up (not counted); the batch search: 1 call of 1/64 >= 1/128 -> k = 1, 1/64 spent;
    # 1/2 - 1/64 left: 31 more batches of one call (the first of them is one of min_batches).
    got = timing.time_per_call(fn, budget_s=0.5, min_batch_s=1 / 128, min_batches=2, clock=clock)
    assert got == timing.CallTiming(1 / 64, 1, 1 + 31)
    few = timing.time_per_call(fn, budget_s=0.0, min_batch_s=1 / 128, min_batches=4, clock=clock)
    assert few.batches == 4
