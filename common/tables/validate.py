"""Argument checks at the edges (tables as loaded, flags, files): each returns the value or
raises ValueError. The formulas themselves check nothing.
"""

from __future__ import annotations

import math
import numbers


def _number(x: object, what: str, kind: str = "a number") -> float:
    """x as a float when it is a real number (int, float, numpy scalar; not a bool)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise ValueError(f"{what} must be {kind}, got {x!r}")
    try:
        return float(x)
    except OverflowError:  # 10**400: too large for a float (and too long to print)
        digits = math.floor(math.log10(abs(x))) + 1  # type: ignore[arg-type]
        raise ValueError(f"{what} must be finite, got a {digits}-digit number") from None


def positive(x: object, what: str) -> float:
    """x as a float; ValueError unless it is finite and > 0."""
    v = _number(x, what)
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{what} must be a positive finite number, got {x!r}")
    return v


def positive_int(n: object, what: str) -> int:
    """n as an int; ValueError unless it is a whole number >= 1 (2.0 is accepted as 2)."""
    v = _number(n, what, "a positive integer")
    if not math.isfinite(v) or v != int(v) or v < 1:
        raise ValueError(f"{what} must be a positive integer, got {n!r}")
    return int(v)


def finite(x: object, what: str) -> float:
    """x as a float; ValueError unless it is a finite number (not a bool)."""
    v = _number(x, what)
    if not math.isfinite(v):
        raise ValueError(f"{what} must be finite, got {x!r}")
    return v


# From a microcontroller to an exascale machine: a typo such as 1e-300 or 1e308 is caught
# where it was made, not later as an infinite time.
PLAUSIBLE_RANGES: dict[str, tuple[float, float]] = {
    "FLOP/s": (1e6, 1e19),  # 1 MFLOP/s .. 10 EFLOP/s
    "B/s": (1e6, 1e16),  # 1 MB/s .. 10 PB/s
    "B": (1e3, 1e15),  # 1 KB .. 1 PB
}


def plausible(x: object, unit: str, what: str) -> float:
    """x as a float; ValueError unless it is positive, finite and in PLAUSIBLE_RANGES[unit]."""
    v = positive(x, what)
    lo, hi = PLAUSIBLE_RANGES[unit]
    if not lo <= v <= hi:
        raise ValueError(f"{what} must be between {lo:g} and {hi:g} {unit}, got {x!r}")
    return v
