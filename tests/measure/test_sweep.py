"""The hierarchy sweep's measurements (common.measure.hierarchy): structure, not speed."""

from __future__ import annotations

import itertools
import threading

import numpy as np
from fakes import FakeClock

from common.measure import hierarchy as sweep


def test_stream_arrays_and_timers() -> None:
    arrays = sweep.StreamArrays(4096)
    x, y, z = arrays.views(1000)
    assert x.shape == y.shape == z.shape == (1000,) and x.dtype == np.float32
    assert not np.shares_memory(x, z) and not np.shares_memory(y, z)
    # the arrays start 1 KiB apart modulo 4 KiB (no 4K aliasing)
    starts = [a.__array_interface__["data"][0] for a in (x, y, z)]
    assert {(b - a) % 4096 for a, b in itertools.pairwise(starts)} == {1024}
    arrays.add_call(1000)()  # the real sweep, timers and threads: tests/lectures/test_lecture09
    assert float(z[0]) == 2.0
    arrays = sweep.StreamArrays(1)
    assert arrays.x.shape == arrays.y.shape == arrays.z.shape == (1,)
    big = sweep.StreamArrays(4096)
    assert big.z.shape == (4096,) and big.buffer.shape == (3 * (4096 + 256),)  # +1 KiB each


T_CALL, GIL, PER_ELEMENT = 2.0**-21, 2.0**-24, 2.0**-32  # binary fractions: sums stay exact


class FakeArrays:
    """Stands in for StreamArrays: add_call(n) costs t_call (+ GIL past 500) + n x per element."""

    def __init__(self, clock: FakeClock, max_elements: int = 10**6, factors=()) -> None:
        self.clock, self.max_elements = clock, max_elements
        self.factors = list(factors)  # per add_call: a multiplier on its cost (default 1)
        self.made: list[int] = []

    def add_call(self, n: int):
        factor = self.factors[len(self.made)] if len(self.made) < len(self.factors) else 1.0
        self.made.append(n)
        cost = factor * (T_CALL + (GIL if n > 500 else 0.0) + n * PER_ELEMENT)
        return lambda: self.clock.advance(cost)


def test_call_costs_are_the_one_element_time_and_the_gil_step() -> None:
    clock = FakeClock()
    arrays = FakeArrays(clock)
    costs = sweep.measure_call_costs(arrays, budget_s=0.003, clock=clock)
    assert arrays.made == [1, 500, 501] and costs["call_seconds"] == T_CALL + PER_ELEMENT
    assert costs["below_threshold_seconds"] == T_CALL + 500 * PER_ELEMENT
    assert costs["above_threshold_seconds"] == T_CALL + GIL + 501 * PER_ELEMENT
    assert costs["gil_seconds"] == GIL + PER_ELEMENT  # one element apart: streaming cancels
    small = sweep.measure_call_costs(FakeArrays(clock, max_elements=500), 0.003, clock=clock)
    assert small["gil_seconds"] == 0.0 and small["below_threshold_seconds"] is None
    clock = FakeClock()
    arrays = FakeArrays(clock)
    # three timings of a third of the budget each: each overshoots by at most one batch
    # (2e-4 s of calls doubled) plus its warm-up call
    spent = _elapsed(clock, lambda: sweep.measure_call_costs(arrays, clock=clock))
    assert 0.3 <= spent <= 0.3 + 3 * 5e-4
    spent = _elapsed(clock, lambda: sweep.measure_call_costs(arrays, 0.03, clock=clock))
    assert 0.03 <= spent <= 0.03 + 3 * 5e-4
    clock = FakeClock()
    # up (16, 256, 4096), then down (4096, 256, 16): the second 256 runs twice as fast
    arrays = FakeArrays(clock, factors=[1, 1, 1, 1, 0.5, 1])
    seen = []
    points = sweep.run_sweep(
        arrays, [16, 256, 4096], budget_s=0.006, on_point=lambda *a: seen.append(a), clock=clock
    )
    assert arrays.made == [16, 256, 4096, 4096, 256, 16]
    assert seen == [(k, 6, n * 12) for k, n in enumerate([16, 256, 4096, 4096, 256, 16])]
    cost = {n: T_CALL + n * PER_ELEMENT for n in (16, 256)} | {4096: T_CALL + GIL + 4096 / 2**32}
    cost[256] /= 2
    assert [p["seconds"] for p in points] == [cost[16], cost[256], cost[4096]]
    assert [p["elements"] for p in points] == [16, 256, 4096]
    assert [p["working_set_bytes"] for p in points] == [192, 3072, 49152]
    for p in points:
        # both passes' batches are counted; batches of k calls, k the first power of two
        # whose batch lasts 2e-4 s
        k = 1
        while k * p["seconds"] < 2e-4:
            k *= 2
        assert p["batches"] >= 2 * 3 and p["calls_per_batch"] in (k, 2 * k)
    one_pass = sweep.run_sweep(FakeArrays(clock), [16], budget_s=0.0, passes=1, clock=clock)
    assert one_pass[0]["batches"] == 3 and one_pass[0]["calls_per_batch"] == 512
    clock = FakeClock()
    arrays = FakeArrays(clock)
    lengths = [16, 256, 4096]
    spent = _elapsed(clock, lambda: sweep.run_sweep(arrays, lengths, 0.06, clock=clock))
    assert 0.06 <= spent <= 0.06 + 6 * 5e-4  # 6 points of 1/100 s each
    spent = _elapsed(clock, lambda: sweep.run_sweep(arrays, lengths, 0.06, passes=3, clock=clock))
    assert 0.06 <= spent <= 0.06 + 9 * 5e-4
    assert arrays.made[-9:] == [16, 256, 4096, 4096, 256, 16, 16, 256, 4096]  # up, down, up
    clock = FakeClock()
    arrays = FakeArrays(clock)
    spent = _elapsed(clock, lambda: sweep.run_sweep(arrays, [16], 0.01, passes=1, clock=clock))
    assert 0.01 <= spent <= 0.01 + 5e-4


def test_threads_bandwidth_from_each_ways_own_time() -> None:
    clock = FakeClock()
    arrays = sweep.StreamArrays(4096)
    per_element = 2.0**-30
    threads = 4

    def add(x, y, z) -> None:  # one thread streams n elements in n c; four share the time
        inside_pool = threading.current_thread() is not threading.main_thread()
        clock.advance(len(x) * per_element / (threads if inside_pool else 1))

    got = sweep.measure_threads(arrays, 4096, threads, repeat=3, clock=clock, add=add)
    one = 4096 * per_element
    assert got["one_thread_seconds"] == one and got["all_thread_seconds"] == one / threads
    assert got["one_thread_bytes_per_s"] == 4096 * 12 / one
    assert got["all_thread_bytes_per_s"] == 4096 * 12 / (one / threads)
    assert (got["threads"], got["working_set_bytes"], got["repeats"]) == (4, 4096 * 12, 3)
    single = sweep.measure_threads(arrays, 4096, 1, repeat=0, clock=clock, add=add)
    assert single["all_thread_seconds"] is None and single["repeats"] == 1
    assert single["one_thread_bytes_per_s"] == 4096 * 12 / one

    clock = FakeClock()
    arrays = sweep.StreamArrays(4096)
    threads = 2
    barrier = threading.Barrier(threads, timeout=10)  # every part waits for the others
    main_calls, parts = [], []

    def add(x, y, z) -> None:
        assert all(map(np.shares_memory, (x, y, z), (arrays.x, arrays.y, arrays.z)))
        if threading.current_thread() is threading.main_thread():
            main_calls.append(len(x))
            clock.advance(len(x) * 2.0**-30)
        else:
            parts.append(len(x))
            barrier.wait()  # fails unless all parts run at the same time
            clock.advance(len(x) * 2.0**-30 / threads)

    got = sweep.measure_threads(arrays, 4096, threads, repeat=2, clock=clock, add=add)
    assert main_calls == [4096] * 3  # warm-up and two timed calls, one sample each
    assert parts == [2048] * 6  # warm-up and two timed rounds, two halves each
    assert got["all_thread_seconds"] == 4096 * 2.0**-30 / 2 and got["repeats"] == 2
    calls = []

    def one(x, y, z) -> None:
        calls.append(threading.current_thread() is threading.main_thread())
        clock.advance(len(x) * 2.0**-30)

    single = sweep.measure_threads(arrays, 4096, 1, repeat=1, clock=clock, add=one)
    assert single["all_thread_seconds"] is None and single["repeats"] == 1
    assert calls == [True, False, True]  # warm-up, the pool's one-part warm-up, one timing
    assert sweep.measure_threads(arrays, 64, 2, clock=clock, add=add)["repeats"] == 5  # default


def _elapsed(clock: FakeClock, fn) -> float:
    start = clock.now
    fn()
    return clock.now - start
