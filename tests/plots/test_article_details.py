"""Lecture 04's figures in detail: where the annotations stand off their points, how many
legend columns, how the over-budget bars and the overhead bars sit, and where the
speedup figure's region labels are.

Expected values are hand arithmetic (offsets in points, bar centres at x -+ 0.19 for
bars 0.38 wide, the figure's height 4.6 + 0.16 in per pair of points), never read from
the module under test.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

pytest.importorskip("matplotlib")

from plots.figure_parts import annotation

from common.plots import article, style
from common.plots.article import MeasuredPoint, measured_points
from common.tables.assumptions import ARTICLE_7B

GIB = 2**30


def test_local_roofline_annotations_stand_off_their_points(caught) -> None:
    points = [article.MeasuredPoint(f"op{k}", 2.0**k, 1e9 * 2**k, "memory") for k in range(5)]
    article.local_roofline_figure("l.png", 1000e9, 50e9, points)
    fig = caught[0]
    ax = fig.axes[0]
    p, ridge, beta = annotation(ax, "P = "), annotation(ax, "I* = "), annotation(ax, "beta = ")
    assert tuple(p.xyann) == (5, 4) and p.get_ha() == "left"
    assert tuple(ridge.xyann) == (4, 4)
    assert tuple(beta.xyann) == (-6, 6) and beta.get_ha() == "right" and beta.get_va() == "bottom"
    assert ridge.get_color() == style.NEUTRAL_COLOR
    # five points: 4.6 + 0.16 x ceil(5 / 2) = 5.08 inches tall
    assert fig.get_size_inches()[1] == pytest.approx(4.6 + 0.16 * 3)
    (key,) = fig.legends
    assert key._ncols == 2
    assert ax.get_legend()._loc == 2  # upper left
    handles = ax.get_legend().legend_handles
    assert [h.get_color() for h in handles] == [style.MEMORY_COLOR, style.COMPUTE_COLOR]
    numbers = [t for t in ax.texts if t.get_text().isdigit()]
    assert [t.get_text() for t in numbers] == ["1", "2", "3", "4", "5"]
    caught.clear()  # only the next figure
    article.local_roofline_figure("l.png", 1000e9, 50e9, [])
    ax = caught[0].axes[0]
    note = annotation(ax, "no measured operations")
    assert note.get_position() == (0.03, 0.94) and note.get_transform() == ax.transAxes
    assert (note.get_ha(), note.get_va()) == ("left", "top")
    # x still spans the ridge 20: 20 / 100 / 1.5 = 0.13 -> 0.1; 20 x 10 x 4 = 800 -> 1,000
    assert ax.get_xlim() == pytest.approx((0.1, 1000.0))


@pytest.mark.parametrize(("intensity", "ring"), [(1.015, True), (0.985, True), (1.03, False)])
def test_a_ring_needs_the_same_intensity_within_2_percent(caught, intensity, ring) -> None:
    points = [
        article.MeasuredPoint("a", 1.0, 10e9, "memory"),
        article.MeasuredPoint("b", intensity, 10e9, "memory"),
        article.MeasuredPoint("c", 1.0, 10.5e9, "memory"),  # covers a: 11 pt, or 16 over b too
    ]
    article.local_roofline_figure("l.png", 1000e9, 50e9, points)
    ax = caught[0].axes[0]
    marks = {ln.get_label(): ln for ln in ax.get_lines() if ln.get_label()[:1].isdigit()}
    assert (marks["2  b"].get_markerfacecolor() == "none") is ring
    assert marks["2  b"].get_markersize() == (11 if ring else 6)
    assert marks["3  c"].get_markersize() == (16 if ring else 11)
    assert marks["1  a"].get_markersize() == 6


ROWS = [
    {"B": 1, "latency_s": 2e-3, "t_pred_s": 1e-3, "throughput_per_s": 500.0},
    {"B": 4, "latency_s": 3e-3, "t_pred_s": 1.5e-3, "throughput_per_s": 4 / 3e-3, "anomaly": 1},
    {"B": 16, "latency_s": 8e-3, "t_pred_s": 4e-3, "throughput_per_s": 2000.0},
]


def test_batch_sweep_band_label_legend_and_anomaly_labels(caught) -> None:
    article.batch_sweep_figure("b.png", ROWS, (2, 8))
    lat, tp = caught[0].axes[:2]
    for ax in (lat, tp):
        label = annotation(ax, "I = I*")
        assert label.get_position() == pytest.approx((4.0, 0.97))
        assert label.get_transform() == ax.get_xaxis_transform()
        assert ax.get_legend()._loc == 4  # lower right
        assert not list(ax.get_xticks(minor=True))
    (b4,) = [t for t in lat.texts if t.get_text() == "B=4"]
    assert b4.xy == pytest.approx((4, 3.0)) and b4.get_color() == style.MEMORY_COLOR
    # pushed 3 pt out from the near offsets, or the far ring built from them
    near = [(7, 6), (7, -14), (-7, 6), (-7, -14), (9, -7), (-9, -7), (0, 10), (0, -18)]
    far = [(21, 12), (21, -22.4), (-21, 12), (-21, -22.4), (27, -11.2), (-27, -11.2)]
    assert any(tuple(map(float, b4.xyann)) == pytest.approx(o) for o in near + far)
    assert not [t for t in tp.texts if t.get_text().startswith("B=")]
    # the label keeps clear of both curves: sample them along their log-log segments
    fig = caught[0]
    fig.draw_without_rendering()
    box = b4.get_window_extent()
    for ln in lat.get_lines():
        if ln.get_label() in ("measured", "roofline"):
            (x0, y0), (x1, y1) = ln.get_xydata()[1:3]
            for k in range(9):
                f = k / 8
                px, py = lat.transData.transform((x0 * (x1 / x0) ** f, y0 * (y1 / y0) ** f))
                assert not box.contains(px, py)


def test_memory_ledger_bars_sit_either_side_of_their_batch(caught) -> None:
    article.memory_ledger_figure("m.png", ARTICLE_7B, (1, 24, 48), 0.30, 0.04, 78 * GIB)
    ax, ax2 = caught[0].axes[:2]
    for c in ax.containers:
        assert [b.get_x() + b.get_width() / 2 for b in c] == pytest.approx([0, 1, 2])
        assert [b.get_width() for b in c] == pytest.approx([0.65] * 3)
    centres = {c.get_label(): [b.get_x() + b.get_width() / 2 for b in c] for c in ax2.containers}
    assert centres["overhead 30%"] == pytest.approx([-0.19, 0.81, 1.81])
    assert centres["overhead 4%"] == pytest.approx([0.19, 1.19, 2.19])
    assert centres["over budget"] == pytest.approx([0.0])
    over = {c.get_label(): c for c in ax2.containers}
    assert over["over budget"][0].get_height() == 0 and over["over budget"][0].get_hatch()
    hatched = [b for c in ax2.containers for b in c if b.get_hatch()]
    # 30%: 24 and 48 over 78 GiB; 4%: 1.04 x (13.04 + 24 x 2.5) = 75.9 fits, 48 does not
    assert len(hatched) == 1 + 2 + 1
    for axis in (ax, ax2):
        budget = annotation(axis, "budget ")
        assert budget.get_position() == pytest.approx((-0.45, 78.0))
        assert budget.get_va() == "bottom"
    ooms = [t for t in ax.texts if t.get_text() == "OOM"]
    assert [t.get_position()[0] for t in ooms] == [1, 2]
    assert all(t.get_ha() == "center" and t.get_va() == "bottom" for t in ooms)
    caught.clear()  # only the next figure
    article.memory_ledger_figure("m.png", ARTICLE_7B, (1,), 0.30, 0.04, 200 * GIB)
    ax = caught[0].axes[0]
    assert ax.get_ylim() == pytest.approx((0, 200 * 1.18))
    assert not [t for t in ax.texts if t.get_text() == "OOM"]


def test_speedup_region_labels_and_legend(caught) -> None:
    article.speedup_figure("s.png", lo=0.1, hi=10.0)
    (ax,) = caught[0].axes
    assert annotation(ax, "memory-bound").get_position() == (0.07, 1.5)
    compute = annotation(ax, "compute-bound")
    assert compute.get_position() == (12, 1.5) and compute.get_ha() == "right"
    assert annotation(ax, "I = I*").get_position() == (1.04, 0.93)
    assert ax.get_xlim() == pytest.approx((0.1, 10.0))
    spans = sorted((p.get_x(), p.get_x() + p.get_width()) for p in ax.patches)
    assert spans == [pytest.approx((0.1, 1.0)), pytest.approx((1.0, 10.0))]
    legend = ax.get_legend()
    assert legend._loc == 6  # center left
    assert tuple(legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted()).p0) == (
        pytest.approx((0.0, 0.3))
    )
    (curve,) = [ln for ln in ax.get_lines() if ln.get_label() == "2x compute"]
    xs = list(map(float, curve.get_xdata()))
    assert len(xs) == 300 and xs[0] == pytest.approx(0.1) and xs[-1] == pytest.approx(10.0)
    assert all(math.isclose(b / a, xs[1] / xs[0]) for a, b in itertools.pairwise(xs))


def test_rate_axis_starts_a_decade_under_a_third_of_the_slowest(caught) -> None:
    # x from 10**floor(log10(0.2 / 1.5)) = 0.1, where the roof is 5 GFLOP/s; the point
    # at 2 GFLOP/s is slower: 2 / 3 = 0.67 -> 0.1 (2 itself would give 1); 1000 x 3 -> 10,000
    points = [article.MeasuredPoint("a", 1.0, 2e9, "memory")]
    article.local_roofline_figure("l.png", 1000e9, 50e9, points)
    assert caught[0].axes[0].get_ylim() == pytest.approx((0.1, 10_000.0))
    # at 3.5 GFLOP/s a third is 1.17 -> 1 (a quarter, 0.875, would give 0.1)
    points = [article.MeasuredPoint("a", 1.0, 3.5e9, "memory")]
    article.local_roofline_figure("l.png", 1000e9, 50e9, points)
    assert caught[1].axes[0].get_ylim() == pytest.approx((1.0, 10_000.0))


# --- Lecture 01's operations as points: none hidden, bad rows counted --------
POINTS = [
    MeasuredPoint("add", 1 / 12, 0.83e9, "memory"),
    MeasuredPoint("add+relu 1 expr", 1 / 12, 0.79e9, "memory"),  # would sit under "add"
    MeasuredPoint("GEMM", 256.0, 2.0e11, "compute"),
]


@pytest.fixture
def axes(caught) -> Any:
    """The axes of the figure drawn for POINTS."""
    article.local_roofline_figure("roof.png", 2.35e11, 1.0e10, POINTS)
    return caught[-1].axes[0]


def test_points_are_drawn_at_their_numbers_and_none_hides_another(axes: Any) -> None:
    marks = [ln for ln in axes.lines if ln.get_label()[:1].isdigit()]
    assert [(ln.get_xdata()[0], ln.get_ydata()[0]) for ln in marks] == [
        (p.intensity, p.flops_per_s / 1e9) for p in POINTS
    ]
    first, second, third = marks
    assert second.get_markerfacecolor() == "none"  # a ring around the first point
    assert second.get_markersize() > first.get_markersize()
    assert third.get_markersize() == first.get_markersize()  # alone: a plain dot


def test_good_rows_become_points_and_bad_rows_are_counted() -> None:
    rows = [
        {"name": "add", "intensity": 0.25, "achieved_flops_per_s": 2e9, "bound": "memory"},
        {"name": "odd", "intensity": 4.0, "achieved_flops_per_s": 1e9, "bound": "sideways"},
        {"name": "negative", "intensity": -1.0, "achieved_flops_per_s": 1e9},
        {"name": "no rate", "intensity": 1.0},
        "not a row",
    ]
    points, bad = measured_points(rows)
    assert points == [
        MeasuredPoint("add", 0.25, 2e9, "memory"),
        MeasuredPoint("odd", 4.0, 1e9, "unknown"),
    ]
    assert bad == 3
    assert measured_points([]) == ([], 0)
