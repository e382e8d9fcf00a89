"""Tests for common.hw_specs: the hardware table, its ridge points and its errors."""

from __future__ import annotations

import dataclasses
import math

import pytest

from common.hw_specs import (
    A100,
    B200,
    B300,
    BYTES_PER_ELEM,
    CHIPS,
    H100,
    H200,
    TPU_V5E,
    TPU_V6E,
    Chip,
    bytes_per_elem,
    flops,
    get_chip,
)
from common.present.console import fmt_ratio

# ---------------------------------------------------------------------------
# The figures of NUMBERS.md's hardware table (dense peaks, one-way links)
# ---------------------------------------------------------------------------
REFERENCE_FIGURES = [
    # chip, {precision: peak FLOP/s}, memory B/s, link B/s (None: not given)
    (A100, {"bf16": 312e12}, 1555e9, None),
    (H100, {"bf16": 989e12, "fp8": 1979e12}, 3.35e12, 450e9),
    (H200, {"bf16": 989e12, "fp8": 1979e12}, 4.8e12, 450e9),
    (B200, {"bf16": 2.25e15, "fp8": 4.5e15}, 8e12, 900e9),
    (B300, {"nvfp4": 15e15, "fp8": 5e15, "bf16": 2.5 * 989e12}, 8e12, 900e9),
    (TPU_V5E, {"bf16": 197e12, "int8": 394e12}, 8.2e11, 4.5e10),
    (TPU_V6E, {"bf16": 920e12}, 1.64e12, 9e10),
]


@pytest.mark.parametrize(("chip", "peaks", "mem_bw", "link_bw"), REFERENCE_FIGURES)
def test_table_matches_reference_figures(chip: Chip, peaks, mem_bw, link_bw) -> None:
    for precision, peak in peaks.items():
        # B300 bf16 is "about 2.5x H100": an estimate, checked loosely
        rel = 0.02 if chip.peak_flops_table[precision].estimate else 1e-12
        assert chip.peak_flops(precision) == pytest.approx(peak, rel=rel)
    assert chip.mem_bw == mem_bw
    if link_bw is not None:
        assert chip.link_bw == link_bw


def test_estimates_are_marked() -> None:
    assert B200.peak_flops_table["bf16"].estimate
    assert B200.peak_flops_table["fp8"].estimate
    assert B300.peak_flops_table["bf16"].estimate
    assert not H100.peak_flops_table["bf16"].estimate


@pytest.mark.parametrize("chip", list(CHIPS.values()), ids=list(CHIPS))
def test_every_figure_is_valid_and_sourced(chip: Chip) -> None:
    chip.validate()
    labels = []
    for label, figure in chip.figures():
        labels.append(label)
        assert figure.source.strip(), f"{chip.name} {label} has no source"
        assert figure.unit in ("FLOP/s", "B/s", "B")
        assert math.isfinite(figure.value) and figure.value > 0
    assert "memory bandwidth" in labels and "memory capacity" in labels
    assert any(label.startswith("link") for label in labels)
    assert chip.mem_capacity > 0


# ---------------------------------------------------------------------------
# Ridge points (article and lecture-script sections of NUMBERS.md)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("chip", "precision", "shown", "digits"),
    [
        (A100, "bf16", "200.6", 1),
        (H100, "bf16", "295.2", 1),
        (H100, "fp8", "590.7", 1),
        (H100, "bf16", "295", 0),
        (H200, "bf16", "206", 0),
        (B300, "nvfp4", "1875", 0),
        (TPU_V5E, "bf16", "240", 0),
    ],
)
def test_ridge_points(chip: Chip, precision: str, shown: str, digits: int) -> None:
    assert f"{chip.ridge_point(precision):.{digits}f}" == shown


def test_ridge_point_is_critical_intensity() -> None:
    for chip in CHIPS.values():
        for precision in chip.precisions:
            ridge = chip.peak_flops(precision) / chip.mem_bw
            assert chip.ridge_point(precision) == ridge
            assert chip.critical_intensity(precision) == ridge


def test_a100_to_h100_ratios() -> None:
    assert fmt_ratio(H100.mem_bw / A100.mem_bw) == "x2.15"
    assert fmt_ratio(H100.peak_flops("bf16") / A100.peak_flops("bf16")) == "x3.17"
    assert f"{H100.peak_flops('fp8') / A100.peak_flops('bf16'):.1f}x" == "6.3x"


def test_h200_is_h100_compute_with_faster_memory() -> None:
    for precision in ("bf16", "fp8"):
        assert H200.peak_flops(precision) == H100.peak_flops(precision)
    assert H200.mem_bw > H100.mem_bw
    assert H200.ridge_point("bf16") < H100.ridge_point("bf16")


# ---------------------------------------------------------------------------
# Bytes per element
# ---------------------------------------------------------------------------
def test_bytes_per_element() -> None:
    assert bytes_per_elem("fp32") == 4
    assert bytes_per_elem("bf16") == bytes_per_elem("fp16") == 2
    assert bytes_per_elem("fp8") == bytes_per_elem("int8") == 1
    assert bytes_per_elem("nvfp4") == (16 * 4 + 8) / 16 / 8 == 0.5625
    assert f"{bytes_per_elem('fp8') / bytes_per_elem('nvfp4'):.2f}" == "1.78"


def test_unknown_precision_lists_the_known_ones() -> None:
    with pytest.raises(ValueError) as info:
        bytes_per_elem("fp7")
    message = str(info.value)
    assert "'fp7'" in message
    for name in BYTES_PER_ELEM:
        assert name in message


def test_chip_without_a_precision_names_the_ones_it_has() -> None:
    with pytest.raises(ValueError) as info:
        TPU_V5E.peak_flops("fp8")
    message = str(info.value)
    assert TPU_V5E.name in message and "'fp8'" in message
    for precision in TPU_V5E.precisions:
        assert precision in message
    with pytest.raises(ValueError, match="bf16, fp8, nvfp4"):
        B300.ridge_point("fp4")


# ---------------------------------------------------------------------------
# Looking chips up
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "chip"),
    [
        ("h100", H100),
        ("H100", H100),
        ("H100 SXM", H100),
        ("tpu-v5e", TPU_V5E),
        ("TPU v5e", TPU_V5E),
        ("tpu_v6e", TPU_V6E),
        ("A100 40GB SXM", A100),
        (" b300 ", B300),
    ],
)
def test_get_chip(name: str, chip: Chip) -> None:
    assert get_chip(name) is chip


@pytest.mark.parametrize("name", ["h300", "", "tpu v4", "H100 PCIe"])
def test_unknown_chip_names_the_valid_choices(name: str) -> None:
    with pytest.raises(ValueError) as info:
        get_chip(name)
    message = str(info.value)
    assert "unknown chip" in message
    for key in CHIPS:
        assert key in message


# ---------------------------------------------------------------------------
# A bad figure typed into the table fails with a message naming it
# ---------------------------------------------------------------------------
BAD_VALUES = [0, 0.0, -989e12, math.nan, math.inf, -math.inf, True, False, "989e12", None]


def _with_peak(value: object) -> Chip:
    table = dict(H100.peak_flops_table)
    table["bf16"] = flops(value, "test")  # type: ignore[arg-type]
    return dataclasses.replace(H100, peak_flops_table=table)


@pytest.mark.parametrize("bad", BAD_VALUES, ids=repr)
def test_bad_peak_raises_value_error(bad: object) -> None:
    chip = _with_peak(bad)
    with pytest.raises(ValueError) as info:
        chip.peak_flops("bf16")
    assert "H100 SXM bf16 peak FLOP/s" in str(info.value)
    assert repr(bad) in str(info.value)
    with pytest.raises(ValueError, match="peak FLOP/s"):
        chip.ridge_point("bf16")
    with pytest.raises(ValueError, match="H100 SXM peak bf16 must be"):
        chip.validate()
    assert chip.peak_flops("fp8") == H100.peak_flops("fp8")  # other figures still work


@pytest.mark.parametrize("bad", BAD_VALUES, ids=repr)
@pytest.mark.parametrize(
    ("field", "prop", "what"),
    [
        ("mem_bw_figure", "mem_bw", "memory bandwidth"),
        ("link_bw_figure", "link_bw", "link bandwidth"),
        ("mem_capacity_figure", "mem_capacity", "memory capacity"),
    ],
)
def test_bad_bandwidth_or_size_raises_value_error(bad: object, field: str, prop: str, what: str):
    figure = dataclasses.replace(getattr(H100, field), value=bad)
    chip = dataclasses.replace(H100, **{field: figure})
    with pytest.raises(ValueError, match=f"H100 SXM {what} must be"):
        getattr(chip, prop)
