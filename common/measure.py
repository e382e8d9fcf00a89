"""Measurement helpers (numpy): timers and this machine's two roofs.

Imported only by the lectures that measure. Working sets are sized from the
machine (last-level cache, available memory), never from fixed constants.

Numpy's elementwise operations run on one thread; its matmul runs on every
BLAS thread. So the bandwidth roof measured here is a one-thread figure and the
compute roof an all-thread figure; ``calibrate`` records both thread counts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from common import caches, machine, results

FP32 = 4  # bytes per float32 element: every measurement here runs in fp32

# Quick-calibration defaults, used when no results file is usable and a lecture
# must not spend the probe's full time. They are stated, not hidden.
MIN_BANDWIDTH_SET_BYTES = 256 * 2**20
MAX_FRACTION_OF_FREE_MEMORY = 0.25


def best_time(fn: Callable[[], object], repeat: int = 5, warmup: int = 1) -> float:
    """Fastest of `repeat` timed calls after `warmup` untimed ones, in seconds."""
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bandwidth_working_set_bytes() -> int:
    """Bytes a bandwidth test should stream: >= 8x the last-level cache, <= 1/4 of free memory."""
    llc = caches.last_level_cache_bytes() or 32 * 2**20
    want = max(8 * llc, MIN_BANDWIDTH_SET_BYTES)
    free = caches.available_memory_bytes()
    if free is not None:
        want = min(want, int(free * MAX_FRACTION_OF_FREE_MEMORY))
    return max(want, 3 * FP32 * 1024)


def measure_bandwidth(working_set_bytes: int | None = None, repeat: int = 10) -> dict[str, Any]:
    """Streaming add z = x + y over a working set (read 2n, write n, fp32): bytes/s."""
    import numpy as np

    total = working_set_bytes or bandwidth_working_set_bytes()
    n = max(1024, total // (3 * FP32))
    x = np.ones(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    z = np.empty(n, dtype=np.float32)
    t = best_time(lambda: np.add(x, y, out=z), repeat=repeat)
    return {
        "bytes_per_s": 3 * n * FP32 / t,
        "working_set_bytes": 3 * n * FP32,
        "seconds": t,
        "threads": 1,  # numpy ufuncs run on the calling thread
    }


def measure_matmul(n: int = 2048, repeat: int = 3) -> dict[str, Any]:
    """Square fp32 matmul C = A @ B of size n: FLOP/s with F = 2 n^3."""
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    c = np.empty((n, n), dtype=np.float32)
    t = best_time(lambda: np.matmul(a, b, out=c), repeat=repeat)
    return {
        "flops_per_s": 2.0 * n**3 / t,
        "n": n,
        "seconds": t,
        "threads": machine.blas_info().get("threads"),
    }


def calibrate(quick: bool = False) -> dict[str, Any]:
    """Measure this machine's bandwidth and matmul roofs and their ridge point."""
    bw = measure_bandwidth(repeat=3 if quick else 10)
    mm = measure_matmul(n=1024 if quick else 2048, repeat=2 if quick else 3)
    return {
        "bandwidth_bytes_per_s": bw["bytes_per_s"],
        "matmul_flops_per_s": mm["flops_per_s"],
        "ridge_point": mm["flops_per_s"] / bw["bytes_per_s"],
        "bandwidth": bw,
        "matmul": mm,
        "quick": quick,
    }


def load_or_calibrate(path: object = None) -> tuple[dict[str, Any], str]:
    """The probe's saved calibration, or a fresh quick one; returns (calibration, where from)."""
    loaded = results.load_results(path)  # type: ignore[arg-type]
    probe, reason = results.get_section(loaded, "probe")
    if probe is not None:
        try:
            calib = probe["calibration"]
            results.positive_number(calib, "bandwidth_bytes_per_s")
            results.positive_number(calib, "matmul_flops_per_s")
            return calib, f"lecture 01's calibration from {loaded.path}"
        except (KeyError, TypeError, ValueError) as exc:
            reason = f"results file {loaded.path} has a bad probe section ({exc})"
    calib = calibrate(quick=True)
    return calib, f"{reason}; measured a quick calibration instead"
