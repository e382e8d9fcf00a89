"""The one timer of the course: samples of a call's duration within a time budget."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

Clock = Callable[[], float]

MIN_BATCH_S = 2e-4  # a batch of short calls lasts at least this long (timer and loop noise)
MAX_CALLS_PER_BATCH = 1 << 24


def time_samples(fn: Callable[[], object], repeat: int = 5, warmup: int = 1, budget_s: float = 0.0,
                 max_repeat: int = 10_000, calls: int = 1,
                 clock: Clock = time.perf_counter) -> list[float]:  # fmt: skip
    """Seconds per call, each sample the mean of `calls` back-to-back calls: `repeat` samples
    at least, more while `budget_s` lasts."""
    batch = max(1, calls)
    for _ in range(max(0, warmup)):
        fn()
    durations: list[float] = []
    start = clock()
    while len(durations) < max(1, repeat) or (
        clock() - start < budget_s and len(durations) < max_repeat
    ):
        t0 = clock()
        for _ in range(batch):
            fn()
        durations.append((clock() - t0) / batch)
    return durations


def best_time(fn: Callable[[], object], **samples: Any) -> float:
    """Fastest of the timed calls (at least `repeat`, more while `budget_s` lasts), in seconds."""
    return min(time_samples(fn, **samples))


class CallTiming(NamedTuple):
    """Best time per call, from batches of `calls` back-to-back calls."""

    seconds: float
    calls: int
    batches: int


def calls_per_batch(
    fn: Callable[[], object], min_batch_s: float = MIN_BATCH_S, clock: Clock = time.perf_counter
) -> tuple[int, float]:
    """Smallest power of two k whose k back-to-back calls last >= min_batch_s; (k, seconds)."""
    calls = 1
    while True:
        t0 = clock()
        for _ in range(calls):
            fn()
        if (elapsed := clock() - t0) >= min_batch_s or calls >= MAX_CALLS_PER_BATCH:
            return calls, elapsed
        calls *= 2


def time_per_call(fn: Callable[[], object], budget_s: float, min_batch_s: float = MIN_BATCH_S,
                  min_batches: int = 3,
                  clock: Clock = time.perf_counter) -> CallTiming:  # fmt: skip
    """Fastest mean time per call over batches of k calls, k grown until a batch >= min_batch_s."""
    fn()  # warm-up: caches filled, code paths resolved
    start = clock()
    calls, elapsed = calls_per_batch(fn, min_batch_s, clock)
    remaining = max(0.0, budget_s - (clock() - start))
    samples = time_samples(
        fn, repeat=max(0, min_batches - 1), warmup=0, budget_s=remaining, calls=calls, clock=clock
    )
    return CallTiming(min([elapsed / calls, *samples]), calls, 1 + len(samples))


def rotating(
    fn: Callable[..., object], x: object, operands: Sequence[object], out: object
) -> Callable[[], object]:
    """A call fn(x, operands[k], out=out) whose k moves on by one each call (cycling)."""
    turn = itertools.cycle(operands)
    return lambda: fn(x, next(turn), out=out)
