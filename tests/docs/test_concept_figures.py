"""The course-figure directive's helpers: what the concept pages' figures plot (no Sphinx)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "docs" / "_ext"))
import course  # noqa: E402


class _Chip:
    """A chip of known roofs: 100 FLOP/s peak, 10 B/s bandwidth, so I* = 10 FLOP/byte."""

    name = "Toy"
    mem_bw = 10.0

    def peak_flops(self, precision: str) -> float:
        assert precision == "bf16"
        return 100.0


def test_points_sit_on_the_roof_min_of_peak_and_i_beta() -> None:
    # (label, F, D): I = 2 (on the slope: 2 x 10 B/s = 20 FLOP/s), I = 10 (the ridge),
    # I = 50 (under the flat roof: 100 FLOP/s).
    points = course.on_roof(
        _Chip(), "bf16", [("slope", 20, 10), ("ridge", 100, 10), ("roof", 500, 10)]
    )
    assert points == [("slope", 2.0, 20.0), ("ridge", 10.0, 100.0), ("roof", 50.0, 100.0)]
    assert course.chip_roofs([_Chip()], "bf16") == [("Toy, bf16", 100.0, 10.0)]


def test_draw_runs_the_expression_with_path_and_the_computed_names_or_says_why_not(tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "figs" / "roof.png"
    expression = (
        'roofline.roofline_figure(PATH, chip_roofs([A100], "bf16"), '
        'on_roof(A100, "bf16", [("add", *elementwise_counts(1000))]))'
    )
    assert course.draw(expression, target) == target
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # or says in one line what went wrong
    with pytest.raises(ValueError, match=r"cannot draw x\.png: NameError"):
        course.draw("no_such_function(PATH)", tmp_path / "x.png")
    with pytest.raises(ValueError, match="did not write"):
        course.draw("None", tmp_path / "y.png")


def test_the_figure_rest_links_the_image_and_keeps_the_caption() -> None:
    import docs_hooks

    caption = ["First line,", "second."]
    rst = docs_hooks.figure_block("/_build/f.png", "alt\n text", caption, "rl-figure-img", "f")
    assert rst.splitlines()[1:4] == [
        ".. figure:: /_build/f.png",
        "   :alt: alt text",
        "   :width: 100%",
    ]
    assert rst.rstrip().splitlines()[-2:] == ["   First line,", "   second."]
