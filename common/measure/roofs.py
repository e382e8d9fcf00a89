"""Measurement helpers (numpy): timers and this machine's two roofs.

The bandwidth roof is a one-thread figure (numpy's elementwise operations), the compute
roof an all-thread one (BLAS); ``calibrate`` also times matmul on one thread.
"""

from __future__ import annotations

import contextlib
import math
import os
import statistics
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, NamedTuple

from common.formulas.roofline import ridge_point
from common.hw_specs import bytes_per_elem
from common.measure import budget, caches, machine
from common.measure.budget import Budget
from common.measure.timing import Clock, best_time, time_samples

FP32 = int(bytes_per_elem("fp32"))  # every measurement here runs in fp32

MAX_FRACTION_OF_FREE_MEMORY = 0.25  # never take more than this share of available memory
MIN_WORKING_SET_BYTES = 3 * FP32 * 1024  # the smallest test that still means something

# The first size whose call takes the target time (far above the timer's resolution, BLAS at
# its steady speed); spaced so that the choice does not flip between runs.
MATMUL_SIZES = (512, 1024, 1536, 2048, 3072, 4096, 6144, 8192)

# Seconds of timed calls; bandwidth moves in phases of a second on a shared machine, so it
# gets the most: the best of many calls is the roof when nothing else competes.
FULL_BUDGET = {"bandwidth_s": 0.8, "bandwidth_min_repeat": 20, "matmul_call_s": 0.06,
               "matmul_s": 0.6, "matmul_min_repeat": 3, "rounds": 3}  # fmt: skip
QUICK_BUDGET = {"bandwidth_s": 0.25, "bandwidth_min_repeat": 5, "matmul_call_s": 0.025,
                "matmul_s": 0.2, "matmul_min_repeat": 2, "rounds": 1}  # fmt: skip


def llc_bytes() -> tuple[int, bool]:
    """(last-level cache bytes, whether the OS reported it); a stated fallback when unknown."""
    llc = caches.last_level_cache_bytes()
    return (llc, True) if llc else (budget.FALLBACK_LLC_BYTES, False)


def memory_cap_bytes() -> int | None:
    """The most bytes one test may allocate: a quarter of available memory (None if unknown)."""
    free = caches.available_memory_bytes()
    return int(free * MAX_FRACTION_OF_FREE_MEMORY) if free else None


def bandwidth_working_set_bytes(plan: Budget | None = None, matmul_bytes: int = 0) -> int:
    """Bytes a bandwidth test streams: budget.stream_bytes, at most 1/4 of available memory."""
    reported = caches.last_level_cache_bytes()
    want = budget.stream_bytes(reported, plan or budget.DEFAULTS["01"], matmul_bytes)
    return max(min(want, memory_cap_bytes() or want), MIN_WORKING_SET_BYTES)


@contextlib.contextmanager
def blas_threads(threads: int | None) -> Iterator[int | None]:
    """Run the block with `threads` BLAS threads (threadpoolctl; no environment change)."""
    if threads is None:
        yield machine.blas_info().get("threads")
        return
    from threadpoolctl import threadpool_limits  # a dependency of the course (pyproject.toml)

    with threadpool_limits(limits=threads, user_api="blas"):
        yield threads


def _stream_add(working_set_bytes: int) -> tuple[Callable[[], object], int]:
    """A streaming add z = x + y over the working set, and the bytes one call moves (12 n)."""
    import numpy as np

    n = max(1024, working_set_bytes // (3 * FP32))
    x, y = np.ones(n, dtype=np.float32), np.ones(n, dtype=np.float32)
    z = np.empty(n, dtype=np.float32)  # the first (warm-up) call touches its pages
    return partial(np.add, x, y, out=z), 3 * n * FP32


def _time_square_matmul(n: int) -> float:
    """Seconds of one fp32 n x n matmul: the faster of two calls (a hiccup cannot stop a search)."""
    import numpy as np

    a, c = np.ones((n, n), dtype=np.float32), np.empty((n, n), dtype=np.float32)
    return best_time(partial(np.matmul, a, a, out=c), repeat=2, warmup=0)


def matmul_size_for(call_s: float, max_bytes: int | None = None,
                    time_call: Callable[[int], float] = _time_square_matmul) -> int:  # fmt: skip
    """First size in MATMUL_SIZES whose fp32 n x n matmul takes >= call_s (timed upwards)."""
    chosen = MATMUL_SIZES[0]
    for n in MATMUL_SIZES:
        if max_bytes is not None and 3 * FP32 * n * n > max_bytes:
            break
        chosen = n
        if time_call(n) >= call_s:
            break
    return chosen


def _square_operands(n: int) -> tuple[Any, Any, Any]:
    """Two random fp32 n x n matrices and an output buffer."""
    import numpy as np

    rng = np.random.default_rng(0)
    a, b = (rng.random((n, n), dtype=np.float32) for _ in range(2))
    return a, b, np.empty((n, n), dtype=np.float32)


def _matmul_summary(durations: list[float], n: int, threads: int | None) -> dict[str, Any]:
    """Best FLOP/s (2 n^3 / t) of square-matmul durations."""
    t = min(durations)
    return dict(flops_per_s=2.0 * n**3 / t, n=n, seconds=t, threads=threads, samples=len(durations))


def measure_matmul(n: int, repeat: int = 3, budget_s: float = 0.0, threads: int | None = None,
                   clock: Clock = time.perf_counter) -> dict[str, Any]:  # fmt: skip
    """Square fp32 matmul C = A @ B of size n: FLOP/s = 2 n^3 / t."""
    import numpy as np

    a, b, c = _square_operands(n)
    with blas_threads(threads) as used:
        durations = time_samples(
            partial(np.matmul, a, b, out=c), repeat=repeat, budget_s=budget_s, clock=clock
        )
    return _matmul_summary(durations, a.shape[0], used)


class Kernels(NamedTuple):
    """What calibrate times: the streaming add and the bytes it moves, the matmul and its n."""

    stream: Callable[[], object]
    stream_bytes: int
    matmul: Callable[[], object]
    matmul_n: int


def _numpy_kernels(quick: bool, plan: Budget | None = None) -> Kernels:
    """The real kernels: a matmul sized by speed, a streaming add over the rest of the budget."""
    import numpy as np

    cap = memory_cap_bytes()
    if plan is not None:
        cap = min(cap or plan.arrays_bytes, plan.arrays_bytes // 8)
    call_s = (QUICK_BUDGET if quick else FULL_BUDGET)["matmul_call_s"]
    a, b, c = _square_operands(matmul_size_for(call_s, cap))
    stream, stream_bytes = _stream_add(bandwidth_working_set_bytes(plan, 3 * a.nbytes))
    return Kernels(stream, stream_bytes, partial(np.matmul, a, b, out=c), a.shape[0])


def roof_run(quick: bool, plan: Budget) -> RoofRun:
    """A started RoofRun on the real kernels, sized within `plan` (lecture 01's budget)."""
    return RoofRun(_numpy_kernels(quick, plan), quick, seconds=plan.seconds).start()


BUSY_MEDIAN_SHARE = 0.8  # a roof whose median call is below 80% of its best: a busy run
BUSY_LOAD_SHARE = 0.5  # other work: a load average >= half the cores before the run


def busy_reasons(
    bw_times: list[float], mm_times: list[float], load_before: float | None, cores: int | None
) -> list[str]:
    """Why a run looks busy: roofs' median calls far below their best, or a loaded machine."""
    reasons = []
    for name, times in (("streaming add", bw_times), ("matmul", mm_times)):
        if (share := min(times) / statistics.median(times)) < BUSY_MEDIAN_SHARE:
            reasons.append(f"the median {name} ran at {share * 100:.0f}% of its best call")
    if load_before is not None and cores and load_before >= max(1.0, BUSY_LOAD_SHARE * cores):
        reasons.append(f"the load average was {load_before:.2f} on {cores} cores before it began")
    return reasons


class RoofRun:
    """Both roofs, the best of every call: ``time_op`` interleaves one call of each roof
    kernel per round with its operation's (``also``: an operation that is a roof's kernel)."""

    def __init__(self, kernels: Kernels, quick: bool, clock: Clock = time.perf_counter,
                 seconds: float = math.inf) -> None:  # fmt: skip
        self.kernels, self.quick, self.clock = kernels, quick, clock
        # past this moment an operation gets its minimum calls only (a slow, busy machine)
        self.deadline = clock() + budget.OPS_DEADLINE_SHARE * seconds
        self.bw_times: list[float] = []
        self.mm_times: list[float] = []
        self.one_times: list[float] = []
        self.load_before: float | None = None  # the 1-minute load average, where the OS says
        with contextlib.suppress(AttributeError, OSError):
            self.load_before = os.getloadavg()[0]

    def start(self) -> RoofRun:
        """The calibration's own rounds: streaming add and matmul alternating, then 1 thread."""
        budget = QUICK_BUDGET if self.quick else FULL_BUDGET
        stream, _, matmul, _ = self.kernels
        rounds = budget["rounds"]
        # Rounds alternate: each roof is sampled in a shared machine's fast and slow phases.
        with blas_threads(None):
            for r in range(rounds):
                self.bw_times += self._round(
                    stream, r, rounds, budget["bandwidth_min_repeat"], budget["bandwidth_s"]
                )
                self.mm_times += self._round(
                    matmul, r, rounds, budget["matmul_min_repeat"], budget["matmul_s"])  # fmt: skip
        # Two calls, only to compare thread counts: the operands are already hot, the best of
        # two absorbs the thread change.
        with blas_threads(1):
            self.one_times += time_samples(matmul, repeat=2, warmup=0, clock=self.clock)
        return self

    def _round(
        self, fn: Callable[[], object], r: int, rounds: int, repeat: int, budget_s: float
    ) -> list[float]:
        """Round `r` of `rounds`: its share of `repeat` calls and `budget_s` seconds of `fn`."""
        share = -(-repeat // rounds)  # calls, rounded up; the first round warms up
        return time_samples(
            fn, repeat=share, warmup=int(r == 0), budget_s=budget_s / rounds, clock=self.clock
        )

    def time_op(
        self, fn: Callable[[], object], repeat: int, budget_s: float, rounds: int = 1
    ) -> float:
        """Best seconds of `fn` over `rounds` rounds, each followed by one call of both roofs."""
        stream, _, matmul, _ = self.kernels
        best, budget_s = math.inf, 0.0 if self.clock() > self.deadline else budget_s
        for r in range(rounds):
            best = min(best, *self._round(fn, r, rounds, repeat, budget_s))
            self.bw_times += time_samples(stream, repeat=1, warmup=0, clock=self.clock)
            self.mm_times += time_samples(matmul, repeat=1, warmup=0, clock=self.clock)
        return best

    def also(self, kind: str, seconds: float) -> None:
        """A call of the roof's own kernel timed as an operation ('bandwidth' or 'matmul')."""
        (self.bw_times if kind == "bandwidth" else self.mm_times).append(seconds)

    def calibration(self, cores: int | None = None) -> dict[str, Any]:
        """The calibration record: best of all the run's calls of each roof kernel."""
        _, stream_bytes, _, matmul_n = self.kernels
        llc, llc_known = llc_bytes()
        best = min(self.bw_times)  # numpy ufuncs run on the calling thread: 1 thread
        bw = {"bytes_per_s": stream_bytes / best,
              "working_set_bytes": stream_bytes,
              "seconds": best,
              "threads": 1,
              "samples": len(self.bw_times),
              "median_bytes_per_s": stream_bytes / statistics.median(self.bw_times)}  # fmt: skip
        with blas_threads(None) as mm_threads:
            pass
        mm = _matmul_summary(self.mm_times, matmul_n, mm_threads)
        one = _matmul_summary(self.one_times, matmul_n, 1)
        reasons = busy_reasons(self.bw_times, self.mm_times, self.load_before, cores)
        return {
            "bandwidth_bytes_per_s": bw["bytes_per_s"], "matmul_flops_per_s": mm["flops_per_s"],
            "ridge_point": ridge_point(mm["flops_per_s"], bw["bytes_per_s"]),
            "bandwidth_threads": bw["threads"], "matmul_threads": mm["threads"],
            "bandwidth_working_set_bytes": bw["working_set_bytes"],
            "bandwidth_samples": bw["samples"],
            "bandwidth_median_bytes_per_s": bw["median_bytes_per_s"],
            "matmul_n": mm["n"], "matmul_samples": mm["samples"],
            "matmul_median_flops_per_s": 2.0 * matmul_n**3 / statistics.median(self.mm_times),
            "matmul_one_thread_flops_per_s": one["flops_per_s"],
            "ridge_point_one_thread": ridge_point(one["flops_per_s"], bw["bytes_per_s"]),
            "llc_bytes": llc, "llc_known": llc_known,
            "available_memory_bytes": caches.available_memory_bytes(),
            "load_average_before": self.load_before, "busy": bool(reasons),
            "busy_reasons": reasons, "bandwidth": bw, "matmul": mm, "quick": self.quick,
        }  # fmt: skip


def calibrate(
    quick: bool = False, clock: Clock = time.perf_counter, kernels: Kernels | None = None
) -> dict[str, Any]:
    """Measure this machine's bandwidth and matmul roofs and their ridge point I* = P / beta."""
    run = RoofRun(kernels or _numpy_kernels(quick), quick, clock).start()
    return run.calibration(machine.usable_cores())


def raised_roofs(
    peak: float, beta: float, points: list[tuple[float, float, float]]
) -> tuple[float, float]:
    """Roofs no point beats: P' = max(P, F/t), beta' = max(beta, D/t) over (F, D, t) points."""
    peak_up = max([peak, *(f / t for f, _, t in points)])
    beta_up = max([beta, *(d / t for _, d, t in points)])
    return peak_up, beta_up
