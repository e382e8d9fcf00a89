"""Lecture 01's roofline figure: every operation where its numbers put it, none hidden."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import capture_figures

from common.plots import article
from common.plots.article import MeasuredPoint

POINTS = [
    MeasuredPoint("add", 1 / 12, 0.83e9, "memory"),
    MeasuredPoint("add+relu 1 expr", 1 / 12, 0.79e9, "memory"),  # would sit under "add"
    MeasuredPoint("GEMM", 256.0, 2.0e11, "compute"),
]


@pytest.fixture
def axes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The axes of the figure drawn for POINTS."""
    saved_figures = capture_figures(monkeypatch)
    article.local_roofline_figure(tmp_path / "roof.png", 2.35e11, 1.0e10, POINTS)
    return saved_figures[-1].axes[0]


def test_points_are_drawn_at_their_numbers_and_none_hides_another(axes: Any) -> None:
    marks = [ln for ln in axes.lines if ln.get_label()[:1].isdigit()]
    assert [(ln.get_xdata()[0], ln.get_ydata()[0]) for ln in marks] == [
        (p.intensity, p.flops_per_s / 1e9) for p in POINTS
    ]
    first, second, third = marks
    assert second.get_markerfacecolor() == "none"  # a ring around the first point
    assert second.get_markersize() > first.get_markersize()
    assert third.get_markersize() == first.get_markersize()  # alone: a plain dot
