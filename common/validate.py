"""Argument checks shared by the formulas: each returns the value or raises ValueError.

Standard library only. Messages name the quantity, so a student who types a
zero or a word into the hardware table learns which figure is wrong.
"""

from __future__ import annotations

import math


def _number(x: object, what: str, kind: str = "a number") -> float:
    """x as a float when it is an int or float (not a bool); ValueError otherwise."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"{what} must be {kind}, got {x!r}")
    return float(x)


def positive(x: object, what: str) -> float:
    """x as a float; ValueError unless it is finite and > 0."""
    v = _number(x, what)
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{what} must be a positive finite number, got {x!r}")
    return v


def non_negative(x: object, what: str) -> float:
    """x as a float; ValueError unless it is finite and >= 0."""
    v = _number(x, what)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{what} must be a finite number >= 0, got {x!r}")
    return v


def positive_int(n: object, what: str) -> int:
    """n as an int; ValueError unless it is a whole number >= 1 (2.0 is accepted as 2)."""
    v = _number(n, what, "a positive integer")
    if not math.isfinite(v) or v != int(v) or v < 1:
        raise ValueError(f"{what} must be a positive integer, got {n!r}")
    return int(v)
