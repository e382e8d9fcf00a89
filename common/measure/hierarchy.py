"""The hierarchical roofline's measurements (numpy): the bandwidth sweep and call costs."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from common.formulas import hierarchy
from common.formulas.hierarchy import BYTES_PER_ELEMENT, GIL_RELEASE_ELEMENTS, STREAM_ARRAYS
from common.measure.timing import CallTiming, Clock, time_per_call, time_samples


class StreamArrays:
    """Three fp32 arrays x, y, z from one buffer, 1 KiB apart modulo 4 KiB (no x86 "4K
    aliasing"); views(n) gives their first n elements."""

    def __init__(self, max_elements: int) -> None:
        import numpy as np

        page = 1024  # 4 KiB of fp32
        stride = -(-max_elements // page) * page + page // 4  # round up, then +1 KiB
        self.max_elements = max_elements
        self.buffer = np.ones(STREAM_ARRAYS * stride, dtype=np.float32)  # touches every page
        self.x = self.buffer[0:max_elements]
        self.y = self.buffer[stride : stride + max_elements]
        self.z = self.buffer[2 * stride : 2 * stride + max_elements]

    def views(self, n: int) -> tuple[Any, Any, Any]:
        """The first n elements of x, y and z (views, no copies)."""
        return self.x[:n], self.y[:n], self.z[:n]

    def add_call(self, n: int) -> Callable[[], object]:
        """A no-argument function running z = x + y on the first n elements (no allocation)."""
        import numpy as np

        x, y, z = self.views(n)
        add = np.add
        return lambda: add(x, y, z)


def measure_call_costs(
    arrays: StreamArrays, budget_s: float = 0.3, clock: Clock = time.perf_counter
) -> dict[str, Any]:
    """numpy's fixed cost per call of z = x + y (a call on one element) and of releasing the
    GIL, t(501) - t(500) elements across numpy's threshold."""
    share = budget_s / 3
    one = time_per_call(arrays.add_call(1), share, clock=clock)
    below = above = None
    if arrays.max_elements > GIL_RELEASE_ELEMENTS:
        below = time_per_call(arrays.add_call(GIL_RELEASE_ELEMENTS), share, clock=clock).seconds
        above = time_per_call(arrays.add_call(GIL_RELEASE_ELEMENTS + 1), share, clock=clock).seconds
    return hierarchy.call_costs(one.seconds, below, above)


def run_sweep(arrays: StreamArrays, lengths: Sequence[int], budget_s: float, passes: int = 2,
              on_point: Callable[[int, int, int], None] | None = None,
              clock: Clock = time.perf_counter) -> list[dict[str, Any]]:  # fmt: skip
    """Time z = x + y at each length within a total time budget; one record per size."""
    order = [n for p in range(passes) for n in (lengths if p % 2 == 0 else lengths[::-1])]
    per_point = budget_s / max(1, len(order))  # up, down, up, ...
    best: dict[int, CallTiming] = {}
    for step, n in enumerate(order):
        if on_point is not None:
            on_point(step, len(order), n * BYTES_PER_ELEMENT)
        timing = time_per_call(arrays.add_call(n), per_point, clock=clock)
        old = best.get(n, timing._replace(seconds=math.inf, batches=0))
        kept = timing if timing.seconds < old.seconds else old  # a tie keeps the first
        best[n] = kept._replace(batches=old.batches + timing.batches)
    return [{"elements": n, "working_set_bytes": n * BYTES_PER_ELEMENT, "seconds": best[n].seconds,
             "calls_per_batch": best[n].calls, "batches": best[n].batches}
            for n in lengths]  # fmt: skip


def measure_threads(arrays: StreamArrays, n: int, threads: int, repeat: int = 5,
                    clock: Clock = time.perf_counter,
                    add: Callable[[Any, Any, Any], object] | None = None,
                    ) -> dict[str, Any]:  # fmt: skip
    """Bandwidth of z = x + y on n elements from one thread and from `threads` threads."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    add = add or np.add
    x, y, z = arrays.views(n)
    nbytes = n * BYTES_PER_ELEMENT
    bounds = [(k * n // threads, (k + 1) * n // threads) for k in range(max(1, threads))]
    slices = [(x[a:b], y[a:b], z[a:b]) for a, b in bounds]

    def timed(fn: Callable[[], object]) -> float:
        return time_samples(fn, repeat=1, warmup=0, clock=clock)[0]

    one_s = many_s = math.inf
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:

        def all_threads() -> None:
            list(pool.map(lambda s: add(*s), slices))

        add(x, y, z)  # warm-up: pages touched, threads started
        all_threads()
        for _ in range(max(1, repeat)):
            one_s = min(one_s, timed(lambda: add(x, y, z)))
            if threads >= 2:
                many_s = min(many_s, timed(all_threads))
    return {"threads": threads, "working_set_bytes": nbytes, "repeats": max(1, repeat),
            "one_thread_seconds": one_s, "one_thread_bytes_per_s": nbytes / one_s,
            "all_thread_seconds": many_s if threads >= 2 else None,
            "all_thread_bytes_per_s": nbytes / many_s if threads >= 2 else None}  # fmt: skip
