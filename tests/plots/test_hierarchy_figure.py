"""Lecture 09's hierarchical roofline: each operation drawn where its numbers put it, labelled."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from conftest import capture_figures

from common.plots import hierarchy as hierarchy_plots

GB = 1e9
ROOFS = [("L1", 150 * GB), ("L2", 40 * GB), ("L3", 38 * GB), ("DRAM", 10 * GB)]
# two adds whose rates differ by 5% (their markers overlap) and two matmuls
OPS = [
    ("add in L2 (304 KiB)", 1 / 12, 3.3 * GB, "L2"),
    ("add in L3 (13 MiB)", 1 / 12, 3.15 * GB, "L3"),
    ("add in DRAM (512 MiB)", 1 / 12, 0.8 * GB, "DRAM"),
    ("matmul n=256", 42.7, 180 * GB, ""),
]


@pytest.fixture
def figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Draw the figure and keep the matplotlib Figure it saved."""
    saved_figures = capture_figures(monkeypatch)
    hierarchy_plots.hierarchical_roofline_figure(
        tmp_path / "roof.png", ROOFS, 200 * GB, OPS, extra_roofs=[("DRAM, 2 threads", 12 * GB)]
    )
    return saved_figures[-1]


def test_every_operation_is_a_hollow_marker_at_its_numbers(figure: Any) -> None:
    ax = figure.axes[0]
    points = [
        (line.get_xdata()[0], line.get_ydata()[0])
        for line in ax.lines
        if line.get_marker() not in ("None", None, "")
    ]
    assert points == [(i, rate / GB) for _, i, rate, _ in OPS]
    hollow = [ln.get_markerfacecolor() for ln in ax.lines if ln.get_marker() not in ("None", "")]
    assert hollow == ["none"] * len(OPS)  # overlapping markers stay visible


def test_labels_are_the_operations_and_do_not_overlap(figure: Any) -> None:
    ax = figure.axes[0]
    figure.draw_without_rendering()
    labels = {t.get_text(): t for t in ax.texts}
    assert set(labels) >= {name for name, *_ in OPS}
    boxes = [labels[name].get_window_extent() for name, *_ in OPS]
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)
    # a roof that must pass a label passes behind its white box
    assert all(labels[name].get_bbox_patch() is not None for name, *_ in OPS)


def test_the_legend_holds_the_roofs_not_the_points(figure: Any) -> None:
    texts = [t.get_text() for t in figure.legends[0].get_texts()]
    assert texts == [
        "L1 roof, 1 thread: 150.0 GB/s",
        "L2 roof, 1 thread: 40.0 GB/s",
        "L3 roof, 1 thread: 38.0 GB/s",
        "DRAM roof, 1 thread: 10.0 GB/s",
        "DRAM, 2 threads: 12.0 GB/s",
        "compute roof: 200 GFLOP/s",
    ]
