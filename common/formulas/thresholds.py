"""Where a growing quantity first reaches a threshold: the critical batch and the crossover."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

MAX_SEARCH = 1 << 40  # a threshold beyond this is reported as unreachable


def smallest_integer_reaching(reaches: Callable[[int], bool], estimate: float) -> int | None:
    """Smallest integer b >= 1 with reaches(b), for a predicate that stays true once true."""
    if not math.isfinite(estimate) or estimate > MAX_SEARCH:
        return None
    b = max(1, math.ceil(estimate))
    while b > 1 and reaches(b - 1):
        b -= 1
    while not reaches(b):
        b += 1
        if b > MAX_SEARCH:
            return None
    return b


def linear_threshold(
    gain: float, cost: float, fixed: float, threshold: float
) -> tuple[float, Callable[[int], bool]] | None:
    """For I(b) = gain b / (cost b + fixed): the closed-form b with I(b) = threshold and the
    test I(b) >= threshold; None when I's limit, gain / cost, stays below it."""
    slope = gain - threshold * cost  # I(b) >= I*  <=>  b (gain - I* cost) >= I* fixed
    if slope <= 0:
        return None

    def reaches(b: int) -> bool:
        return gain * b >= threshold * (cost * b + fixed)

    return threshold * fixed / slope, reaches


class Crossover(NamedTuple):
    """The first size whose value reaches the threshold, and the size before it (None if first)."""

    before: int | None
    first: int


def crossover(sizes: Sequence[int], values: Sequence[float], threshold: float) -> Crossover | None:
    """First size with value >= threshold in an increasing sweep, with its predecessor."""
    i = next((i for i, value in enumerate(values) if value >= threshold), None)
    return None if i is None else Crossover(sizes[i - 1] if i else None, sizes[i])
