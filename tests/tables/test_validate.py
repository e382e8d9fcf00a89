"""Argument checks (common.tables.validate): each returns the value as the right type or
raises a one-line ValueError; plausible ranges for typed-in figures."""

from __future__ import annotations

import dataclasses
import math

import pytest

from common import hw_specs
from common.tables import validate


@pytest.mark.parametrize(("unit", "inside", "outside"), [
    ("FLOP/s", [1e6, 989e12, 1e19], [1e-300, 999_999.0, 1.1e19, 1e308]),
    ("B/s", [1e6, 3.35e12, 1e16], [1e-300, 5e5, 2e16]), ("B", [1e3, 80e9, 1e15], [1.0, 2e15]),
])  # fmt: skip
def test_plausible_accepts_its_range_and_names_the_figure_outside_it(
    unit: str, inside: list[float], outside: list[float]
) -> None:
    for x in inside:
        assert validate.plausible(x, unit, "a figure") == x
    for x in outside:
        with pytest.raises(ValueError) as info:
            validate.plausible(x, unit, "H100 SXM bf16 peak FLOP/s")
        message = str(info.value)
        assert message.startswith("H100 SXM bf16 peak FLOP/s must be between")
        assert unit in message and repr(x) in message


def test_plausible_and_positive_refuse_and_name_what_they_refuse() -> None:
    for bad in (0, -1.0, math.nan, math.inf, "989e12", True):
        with pytest.raises(ValueError, match="must be"):
            validate.plausible(bad, "FLOP/s", "peak")
    table = dict(hw_specs.H100.peak_flops_table)
    table["bf16"] = hw_specs.flops(1e-300, "test")
    chip = dataclasses.replace(hw_specs.H100, peak_flops_table=table)
    with pytest.raises(ValueError, match=r"H100 SXM bf16 peak FLOP/s must be between .* 1e-300"):
        chip.peak_flops("bf16")
    assert validate.positive(3, "x") == 3.0 and isinstance(validate.positive(3, "x"), float)
    assert validate.positive(1e-300, "x") == 1e-300
    assert validate.positive_int(1, "n") == 1
    assert validate.positive_int(2.0, "n") == 2 and isinstance(validate.positive_int(2.0, "n"), int)
    for bad in (0, -3, 1.5, math.inf, math.nan, True, "4"):
        with pytest.raises(ValueError, match=r"^n must be a positive integer, got "):
            validate.positive_int(bad, "n")
    assert validate.finite(-2, "x") == -2.0
    assert validate.finite(0, "x") == 0.0
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match="x must be finite"):
            validate.finite(bad, "x")
    with pytest.raises(ValueError, match="x must be a number"):
        validate.finite(True, "x")
    for bad in (0, 0.0, -1, math.inf, math.nan):
        with pytest.raises(ValueError, match=r"^peak must be a positive finite number, got "):
            validate.positive(bad, "peak")
    for bad in (True, "2", None):
        with pytest.raises(ValueError, match=rf"^peak must be a number, got {bad!r}$"):
            validate.positive(bad, "peak")
