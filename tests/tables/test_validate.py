"""Argument checks (common.tables.validate): plausible ranges for typed-in figures."""

from __future__ import annotations

import dataclasses
import math

import pytest

from common import hw_specs
from common.tables import validate


@pytest.mark.parametrize(
    ("unit", "inside", "outside"),
    [
        ("FLOP/s", [1e6, 989e12, 1e19], [1e-300, 999_999.0, 1.1e19, 1e308]),
        ("B/s", [1e6, 3.35e12, 1e16], [1e-300, 5e5, 2e16]),
        ("B", [1e3, 80e9, 1e15], [1.0, 2e15]),
    ],
)
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


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, "989e12", True])
def test_plausible_still_refuses_what_positive_refuses(bad: object) -> None:
    with pytest.raises(ValueError, match="must be"):
        validate.plausible(bad, "FLOP/s", "peak")


def test_a_tiny_peak_in_the_hardware_table_is_named_where_it_is_read() -> None:
    # Issue 14: a bf16 peak of 1e-300 gave "time must be finite, got inf", naming nothing.
    table = dict(hw_specs.H100.peak_flops_table)
    table["bf16"] = hw_specs.flops(1e-300, "test")
    chip = dataclasses.replace(hw_specs.H100, peak_flops_table=table)
    with pytest.raises(ValueError, match=r"H100 SXM bf16 peak FLOP/s must be between .* 1e-300"):
        chip.peak_flops("bf16")
    with pytest.raises(ValueError, match="H100 SXM peak bf16 must be between"):
        chip.validate()


def test_every_figure_of_the_table_is_plausible() -> None:
    for chip in hw_specs.CHIPS.values():
        chip.validate()
