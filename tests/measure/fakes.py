"""Fakes of known answer for the measuring code: a clock that only kernels move, and kernels."""

from __future__ import annotations

import threading
from collections.abc import Callable


class FakeClock:
    """A clock whose time moves when a fake kernel says so, and by `tick` at each reading
    (thread-safe); its `sleep` records what it was asked and returns."""

    def __init__(self, start: float = 1000.0, tick: float = 0.0) -> None:
        self.now, self.tick, self.reads, self.slept = start, tick, 0, []
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.reads += 1
            self.now += self.tick
            return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


def kernel(clock: FakeClock, *seconds: float) -> Callable[[], None]:
    """A call that takes `seconds[k]` on its k-th call (the last one repeats), and counts calls."""

    def call() -> None:
        k = min(call.calls, len(seconds) - 1)  # type: ignore[attr-defined]
        call.calls += 1  # type: ignore[attr-defined]
        clock.advance(seconds[k])

    call.calls = 0  # type: ignore[attr-defined]
    return call
