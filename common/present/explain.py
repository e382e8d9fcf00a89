"""Sentences that explain a measurement: why a timed point can sit above its roof.

Standard library only; lecture 01 prints these under its table of operations.
"""

from __future__ import annotations

from typing import Any

from common.formulas.numpy_ops import CACHE_MARGIN


def above_roof_reasons(
    row: dict[str, Any], llc_bytes: float, bandwidth_threads: int | None
) -> list[str]:
    """Likely reasons a measured point sits above its roof, most specific first."""
    reasons = []
    if row.get("same_as_calibration"):
        reasons.append(
            "it repeats the calibration's own operation, so the roof itself was measured "
            "in a slower moment (another program may have been running)"
        )
    if row["working_set_bytes"] <= CACHE_MARGIN * llc_bytes:
        reasons.append(
            "its working set is within twice the last-level cache, so repeated runs "
            "find part of it cached and beat the main-memory roof"
        )
    threads = row.get("threads")
    if (
        row["bound"] == "memory"
        and isinstance(threads, int)
        and isinstance(bandwidth_threads, int)
        and threads > bandwidth_threads
    ):
        reasons.append(
            f"it streamed memory on {threads} threads, while the bandwidth roof was "
            f"measured on {bandwidth_threads}"
        )
    reasons.append("its bytes may be over-counted (a pass the hardware did not really make)")
    reasons.append("timer noise: the roofs were measured in a slower moment than this run")
    return reasons
