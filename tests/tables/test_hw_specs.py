"""Tests for common.hw_specs: the hardware table, its ridge points and its errors."""

from __future__ import annotations

import dataclasses
import math

import pytest
import reference
from conftest import assert_frozen

from common import hw_specs
from common.hw_specs import (
    A100,
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


def test_the_table_has_exactly_the_reference_chips() -> None:
    assert list(CHIPS) == list(reference.HARDWARE)
    assert {key: chip.name for key, chip in CHIPS.items()} == reference.CHIP_NAMES
    assert fmt_ratio(H100.mem_bw / A100.mem_bw) == reference.A100_TO_H100_BW
    bf16 = H100.peak_flops("bf16") / A100.peak_flops("bf16")
    assert fmt_ratio(bf16) == reference.A100_TO_H100_BF16
    ratio = H100.peak_flops("fp8") / A100.peak_flops("bf16")
    assert f"{ratio:.1f}x" == reference.H100_FP8_OVER_A100_BF16
    assert BYTES_PER_ELEM == reference.BYTES_PER_ELEMENT
    for precision, nbytes in reference.BYTES_PER_ELEMENT.items():  # fp32 4, bf16 2, fp8 1, ...
        assert bytes_per_elem(precision) == nbytes
    assert bytes_per_elem("nvfp4") == (16 * 4 + 8) / 16 / 8 == 0.5625
    assert f"{bytes_per_elem('fp8') / bytes_per_elem('nvfp4'):.2f}" == "1.78"
    message = refusal(bytes_per_elem, "fp7")
    assert "'fp7'" in message and all(name in message for name in BYTES_PER_ELEM)
    message = refusal(TPU_V5E.peak_flops, "fp8")
    assert TPU_V5E.name in message and "'fp8'" in message
    assert all(precision in message for precision in TPU_V5E.precisions)
    with pytest.raises(ValueError, match="bf16, fp8, nvfp4"):
        B300.ridge_point("fp4")
    assert hw_specs.capacity(1.0, "s") == hw_specs.Figure(1.0, "B", "s", False, "")
    assert hw_specs.bandwidth(1.0, "s", True, "n") == hw_specs.Figure(1.0, "B/s", "s", True, "n")
    assert flops(2.0, "s") == hw_specs.Figure(2.0, "FLOP/s", "s", False, "")
    assert flops(2.0, "s", True, "dense") == hw_specs.Figure(2.0, "FLOP/s", "s", True, "dense")
    assert "link" in [label for label, _ in dataclasses.replace(H100, link_name="").figures()][-2:]
    assert hw_specs.Figure(1.0, "B", "a source").estimate is False  # a figure is measured
    assert_frozen(H100.mem_bw_figure, H100)
    assert dataclasses.replace(H100, key="another key") == H100  # the key is only a handle
    figure = dataclasses.replace(H100.achievable_flops_table["bf16"], value=-1.0)
    chip = dataclasses.replace(H100, achievable_flops_table={"bf16": figure})
    with pytest.raises(ValueError, match=r"^H100 SXM achievable bf16 FLOP/s must be"):
        chip.achievable_flops("bf16")
    for name, chip in [("h100", H100), ("H100", H100), ("H100 SXM", H100), ("tpu-v5e", TPU_V5E),
                       ("TPU v5e", TPU_V5E), ("tpu_v6e", TPU_V6E), ("A100 40GB SXM", A100),
                       (" b300 ", B300)]:  # fmt: skip
        assert get_chip(name) is chip, name
    for name in ["h300", "", "tpu v4", "H100 PCIe"]:
        message = refusal(get_chip, name)
        assert "unknown chip" in message and all(key in message for key in CHIPS)


@pytest.mark.parametrize("key", list(reference.HARDWARE))
def test_every_figure_value_unit_estimate_flag_and_source(key: str) -> None:
    chip = CHIPS[key]
    got = {label: (fig.value, fig.unit, fig.estimate) for label, fig in chip.figures()}
    want = reference.HARDWARE[key]
    assert got == want
    assert chip.mem_bw == want["memory bandwidth"][0]
    assert chip.mem_capacity == want["memory capacity"][0]
    assert chip.link_bw == next(v for label, v in want.items() if label.startswith("link"))[0]
    peaks = {label.removeprefix("peak "): v[0] for label, v in want.items() if "peak" in label}
    assert chip.precisions == tuple(peaks)
    for precision, peak in peaks.items():
        assert chip.peak_flops(precision) == peak
        ridge = peak / want["memory bandwidth"][0]  # I* = P / beta by hand
        assert chip.ridge_point(precision) == ridge
        assert chip.critical_intensity(precision) == ridge
    # each figure cites the chip's own document; TPUs their Google documentation except the
    # ICI link (the book's chapter)
    names = {"tpu-v5e": ("v5e",), "tpu-v6e": ("v6e",), "b300": ("B300", "Blackwell Ultra")}
    names["a100-80gb"] = ("A100 80GB",)
    for label, figure in chip.figures():
        if label.startswith("link (ICI"):
            assert "How to Scale Your Model" in figure.source
            assert "'All About Rooflines'" in figure.source
        elif label == "shared memory per SM":  # the architecture's tuning guide
            assert "Tuning Guide" in figure.source and "Shared Memory" in figure.source
        else:
            assert any(n in figure.source for n in names.get(chip.key, (chip.key.upper(),)))
    assert f"link ({chip.link_name})" in [label for label, _ in chip.figures()][-2:]


@pytest.mark.parametrize(("chip", "precision", "shown", "digits"), [
    (A100, "bf16", reference.RIDGE_A100_BF16, 1), (H100, "bf16", reference.RIDGE_H100_BF16, 1),
    (H100, "fp8", reference.RIDGE_H100_FP8, 1), (H100, "bf16", "295", 0),
    (H200, "bf16", reference.RIDGE_H200_BF16, 0), (TPU_V5E, "bf16", reference.RIDGE_V5E_BF16, 0),
    (B300, "nvfp4", str(reference.RIDGE_B300_NVFP4), 0),
])  # fmt: skip
def test_ridge_points(chip: Chip, precision: str, shown: str, digits: int) -> None:
    assert f"{chip.ridge_point(precision):.{digits}f}" == shown


def refusal(call, *args) -> str:
    """The message of the ValueError that call(*args) raises."""
    with pytest.raises(ValueError) as info:
        call(*args)
    return str(info.value)


BAD_VALUES = [0, 0.0, -989e12, math.nan, math.inf, -math.inf, True, False, "989e12", None]


@pytest.mark.parametrize("bad", BAD_VALUES, ids=repr)
@pytest.mark.parametrize(("field", "read", "what"), [
    ("peak_flops_table", lambda chip: chip.ridge_point("bf16"), "bf16 peak FLOP/s"),
    ("mem_bw_figure", lambda chip: chip.mem_bw, "memory bandwidth"),
    ("link_bw_figure", lambda chip: chip.link_bw, "link bandwidth"),
    ("mem_capacity_figure", lambda chip: chip.mem_capacity, "memory capacity"),
])  # fmt: skip
def test_a_bad_figure_is_named_where_it_is_read(bad: object, field: str, read, what: str) -> None:
    if field == "peak_flops_table":
        figure = {**H100.peak_flops_table, "bf16": flops(bad, "test")}  # type: ignore[arg-type]
    else:
        figure = dataclasses.replace(getattr(H100, field), value=bad)
    chip = dataclasses.replace(H100, **{field: figure})
    with pytest.raises(ValueError, match=f"^H100 SXM {what} must be") as info:
        read(chip)
    assert repr(bad) in str(info.value)
    assert chip.peak_flops("fp8") == H100.peak_flops("fp8")  # other figures still work
