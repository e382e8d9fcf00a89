"""Fakes of known answer for the measuring code: a clock that only kernels move, and kernels."""

from __future__ import annotations

import threading
from collections.abc import Callable


class FakeClock:
    """A clock whose time moves only when a fake kernel says so (thread-safe)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.reads = 0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.reads += 1
            return self.now

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
