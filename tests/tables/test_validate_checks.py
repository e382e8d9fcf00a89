"""Argument checks: each returns the value as the right type or raises a one-line ValueError."""

from __future__ import annotations

import math

import pytest

from common.tables import validate


def test_positive_accepts_and_converts() -> None:
    assert validate.positive(3, "x") == 3.0 and isinstance(validate.positive(3, "x"), float)
    assert validate.positive(1e-300, "x") == 1e-300


@pytest.mark.parametrize("bad", [0, 0.0, -1, math.inf, math.nan])
def test_positive_rejects(bad: object) -> None:
    with pytest.raises(ValueError, match=r"^peak must be a positive finite number, got "):
        validate.positive(bad, "peak")


@pytest.mark.parametrize("bad", [True, "2", None])
def test_non_numbers_are_named_as_such(bad: object) -> None:
    with pytest.raises(ValueError, match=rf"^peak must be a number, got {bad!r}$"):
        validate.positive(bad, "peak")


def test_positive_int() -> None:
    assert validate.positive_int(1, "n") == 1
    assert validate.positive_int(2.0, "n") == 2 and isinstance(validate.positive_int(2.0, "n"), int)
    for bad in (0, -3, 1.5, math.inf, math.nan, True, "4"):
        with pytest.raises(ValueError, match=r"^n must be a positive integer, got "):
            validate.positive_int(bad, "n")


def test_finite() -> None:
    assert validate.finite(-2, "x") == -2.0
    assert validate.finite(0, "x") == 0.0
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match="x must be finite"):
            validate.finite(bad, "x")
    with pytest.raises(ValueError, match="x must be a number"):
        validate.finite(True, "x")
