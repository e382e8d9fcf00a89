"""Sentences that explain a result: why a timed point sits above its roof, where a sweep crosses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common.formulas.numpy_ops import CACHE_MARGIN
from common.formulas.thresholds import Crossover


def above_roof_reasons(
    row: dict[str, Any], llc_bytes: float, bandwidth_threads: int | None
) -> list[str]:
    """Likely reasons a measured point sits above its roof, most specific first."""
    reasons = []
    if row.get("same_as_calibration"):
        reasons.append(
            "it repeats the calibration's own operation, so the roof itself was measured "
            "in a slower moment (another program may have been running)")  # fmt: skip
    if row["working_set_bytes"] <= CACHE_MARGIN * llc_bytes:
        reasons.append("its working set is within twice the last-level cache, so repeated runs "
                       "find part of it cached and beat the main-memory roof")  # fmt: skip
    threads = row.get("threads")
    counted = isinstance(threads, int) and isinstance(bandwidth_threads, int)
    if row["bound"] == "memory" and counted and threads > bandwidth_threads:
        reasons.append(f"it streamed memory on {threads} threads, while the bandwidth roof was "
                       f"measured on {bandwidth_threads}")  # fmt: skip
    reasons.append("its bytes may be over-counted (a pass the hardware did not really make)")
    reasons.append("timer noise: the roofs were measured in a slower moment than this run")
    return reasons


def crossover_line(cross: Crossover | None, intensity_at: Mapping[int, float], ridge: float,
                   size: str, last: int, label: str = "crossover",
                   ridge_digits: int = 2) -> str:  # fmt: skip
    """Where a sweep's intensity reaches I*: '{label}: M in (a, b]: I(a) < I* <= I(b)'."""
    r = f"{ridge:,.{ridge_digits}f}"
    if cross is None:
        return f"{label}: none; every {size} up to {last} stays below I* = {r}"
    if cross.before is None:
        return f"{label}: none needed; already compute-bound at {size} = {cross.first}"
    a, b = cross.before, cross.first
    return (f"{label}: {size} in ({a}, {b}]: I({a}) = {intensity_at[a]:,.2f} < I* = {r} "
            f"<= I({b}) = {intensity_at[b]:,.2f}")  # fmt: skip
