"""Lecture 09's figures in detail: where each text sits (data or axes coordinates), which
marker each operation gets, how much larger a covering marker is, and that the roofline's
labels are pushed out by their pad and stay inside the axes, clear of each other.

Expected positions are hand arithmetic: sqrt(lo x hi) for a centred band label, 0.015 and
0.975 of the axes' height, 8 + 5 points per covered marker, offsets (4, 3) pt and the
like pushed 2 pt out.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

pytest.importorskip("matplotlib")

from common.plots import hierarchy as hplots
from common.plots import style

KIB, GB = 1024.0, 1e9


def sweep(caught, caches=(), plateaus=(), limit=None):
    sizes = [4 * KIB, 16 * KIB, 64 * KIB]
    hplots.bandwidth_sweep_figure(
        "b.png", sizes, [40e9, 30e9, 20e9], [None, None, None], caches, plateaus, limit
    )
    return caught[-1].axes[0], sizes[0] / 1.3, sizes[-1] * 1.3


def test_cache_band_and_plateau_labels_stand_by_their_lines(caught) -> None:
    ax, _, _ = sweep(caught, caches=[("L1d", 32 * 1024)])
    (t,) = ax.texts
    assert t.get_text() == "L1d 32 KiB "
    assert t.get_position() == pytest.approx((32 * 1024, 0.015))  # x in bytes, y in axes
    assert t.get_transform() == ax.get_xaxis_transform()
    assert (t.get_rotation(), t.get_ha(), t.get_va()) == (90, "right", "bottom")
    assert t.get_bbox_patch() is not None and t.get_zorder() == 6
    caught.clear()  # only the next figure
    ax, lo, _ = sweep(caught, limit=8 * KIB)
    (span,) = ax.patches
    assert span.get_alpha() == pytest.approx(0.12)
    (t,) = ax.texts
    assert t.get_text() == "fixed call cost ≥ 10% of the time"
    assert t.get_position() == pytest.approx((math.sqrt(lo * 8 * KIB), 0.975))
    assert t.get_transform() == ax.get_xaxis_transform()
    assert ax.get_legend()._loc == 1  # upper right
    caught.clear()  # only the next figure
    ax, _, _ = sweep(caught, plateaus=[("L2", 8 * KIB, 32 * KIB, 30e9)])
    (t,) = ax.texts
    assert t.xy == pytest.approx((16 * KIB, 30.0))
    assert tuple(t.xyann) == (0, 7) and t.anncoords == "offset points"
    assert t.get_zorder() == 6 and t.get_bbox_patch() is not None
    (flat,) = [ln for ln in ax.get_lines() if ln.get_linewidth() == 4]
    assert flat.get_color() == t.get_color() == style.SERIES_COLORS[0]


def roofline(caught, ops, roofs=(("L1", 200e9), ("DRAM", 20e9)), extra=()):
    hplots.hierarchical_roofline_figure("h.png", list(roofs), 150e9, ops, list(extra))
    fig = caught[-1]
    ax = fig.axes[0]
    points = [ln for ln in ax.get_lines() if ln.get_marker() not in ("None", None, "")]
    return fig, ax, points


def test_markers_cycle_through_eight_shapes_and_black_without_a_level(caught) -> None:
    ops = [(f"op{k}", 2.0**k, 1e9 * 1.5**k, "L1" if k else "") for k in range(9)]
    _, _, points = roofline(caught, ops)
    assert [p.get_marker() for p in points] == ["o", "D", "s", "^", "v", "<", ">", "P", "o"]
    assert points[0].get_markeredgecolor() == "black"
    assert points[1].get_markeredgecolor() == hplots.level_color("L1", ["L1", "DRAM"])
    assert all(p.get_markersize() == 8 for p in points)  # no two share an intensity
    n = len(style.SERIES_COLORS)
    order = [f"L{k}" for k in range(n + 1)]
    assert hplots.level_color(f"L{n}", order) == style.SERIES_COLORS[0]
    assert hplots.level_color("L0", order) == style.SERIES_COLORS[0]
    assert hplots.level_color("L1", order) == style.SERIES_COLORS[1]


def test_each_covered_marker_grows_by_5_points(caught) -> None:
    ops = [
        ("a", 0.5, 4e9, "L1"),
        ("b", 0.5, 4.2e9, "L1"),  # covers a
        ("c", 0.5, 3.9e9, "L1"),  # covers a and b
        ("d", 0.5, 5e9, "L1"),  # 5 / 4 = 1.25: just clear of a; covers b; 5 / 3.9 clears c
        ("e", 0.5, 3.2e9, "L1"),  # 3.2 / 4 = 0.8: clear of a; 3.2 / 3.9 = 0.82: covers c
        ("f", 0.6, 4e9, "L1"),  # another intensity
    ]
    _, _, points = roofline(caught, ops)
    assert [p.get_markersize() for p in points] == [8, 13, 18, 13, 13, 8]
    assert [p.get_markerfacecolor() for p in points] == ["none"] * 6


def test_roofs_span_the_whole_intensity_axis(caught) -> None:
    _, ax, _ = roofline(caught, [("a", 1 / 12, 15e9, "L1")], extra=[("8 threads", 60e9)])
    lo, hi = ax.get_xlim()
    seen = 0
    for ln in ax.get_lines():
        if "GB/s" in ln.get_label():  # the roofs
            xs = list(map(float, ln.get_xdata()))
            assert xs[0] == pytest.approx(lo) and xs[-1] == pytest.approx(hi)
            assert xs == sorted(xs) and len(xs) > 8
            seen += 1
    assert seen == 3
    caught.clear()  # only the next figure
    # extra roof 1 GB/s: its ridge 150 / 1 = 150 -> x 2 = 300 -> 1,000; at x = 0.01 it
    # is at 0.01 GFLOP/s, halved 0.005
    _, ax, _ = roofline(caught, [("a", 1 / 12, 15e9, "L1")], extra=[("1 thread", 1e9)])
    assert ax.get_xlim() == pytest.approx((0.01, 1000.0))
    assert ax.get_ylim() == pytest.approx((0.005, 375.0))


def test_roofline_labels_are_pushed_2_points_out_and_stay_inside(caught) -> None:
    ops = [
        ("add in L1", 1 / 12, 15e9, "L1"),
        ("add in DRAM", 1 / 12, 1.6e9, "DRAM"),
        ("matmul n=256", 40.0, 120e9, ""),
        ("dot", 0.25, 5e9, "DRAM"),
    ]
    fig, ax, _ = roofline(caught, ops)
    # the near offsets pushed 2 pt out, and the far ones built from them
    near = [(6, 5), (6, -13), (-6, 5), (-6, -13), (8, -6), (-8, -6), (0, 9), (0, -17)]
    far = [(18, 10), (18, -20.8), (-18, 10), (-18, -20.8), (24, -9.6), (-24, -9.6)]
    labels = [t for t in ax.texts if t.get_text() in {name for name, *_ in ops}]
    assert [t.get_text() for t in labels] == [name for name, *_ in ops]
    for t, (_, x, flops, _) in zip(labels, ops, strict=True):
        assert t.xy == pytest.approx((x, flops / GB))
        off = tuple(map(float, t.xyann))
        assert any(off == pytest.approx(o) for o in near + far)
        assert t.get_zorder() == 6 and t.get_bbox_patch() is not None
    fig.draw_without_rendering()
    frame = ax.get_window_extent()
    boxes = [t.get_window_extent() for t in labels]
    for b in boxes:
        assert frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and b.y1 <= frame.y1
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)


ON_ROOFS = [
    [
        ("on L1", 0.1, 20e9, "L1"),
        ("on DRAM", 0.5, 10e9, "DRAM"),
        ("on 5 GB/s", 2.0, 10e9, ""),
        ("at peak", 30.0, 150e9, ""),
    ],
    [(f"L1 {x:g}", x, x * 200e9, "L1") for x in (0.02, 0.05, 0.2, 0.5)]
    + [(f"D {x:g}", x, x * 20e9, "DRAM") for x in (0.03, 0.3, 3.0)],
]


@pytest.mark.parametrize("ops", ON_ROOFS)
def test_labels_keep_clear_of_every_roof(caught, ops) -> None:
    """Points sitting on the roofs: no label's box (0.62 x 7 pt per character by 7 pt, at
    its offset) covers a roof sample (every eighth, 2.5 pt either side) of any roof."""
    roofs = [("L1", 200e9), ("DRAM", 20e9)]
    fig, ax, _ = roofline(caught, ops, roofs=roofs, extra=[("5 GB/s", 5e9)])
    s = fig.dpi / 72
    samples = []
    for ln in ax.get_lines():
        if "GB/s" in ln.get_label():
            xs, ys = ln.get_xdata()[::8], ln.get_ydata()[::8]
            samples += [tuple(ax.transData.transform((x, y))) for x, y in zip(xs, ys, strict=True)]
    assert len(samples) > 12
    for t in ax.texts:
        px, py = ax.transData.transform(t.xy)
        dx, dy = (v * s for v in t.xyann)
        width = 0.62 * 7 * s * len(t.get_text())
        left = px + dx if dx >= 0 else px + dx - width
        b = (left, py + dy, left + width, py + dy + 7 * s)
        for ox, oy in samples:
            r = 2.5 * s
            assert not (b[0] < ox + r and ox - r < b[2] and b[1] < oy + r and oy - r < b[3])


def test_intensity_axis_takes_the_decades_around_half_and_twice_the_data(caught) -> None:
    # ridges 160 / 640 = 0.25 and 160 / 40 = 4; an add at 0.3: 0.25 / 2 = 0.125 -> 0.1,
    # 4 x 2 = 8 -> 10 (a third and three times would give 0.01 and 100)
    roofs = [("L1", 640e9), ("DRAM", 40e9)]
    hplots.hierarchical_roofline_figure("h.png", roofs, 160e9, [("a", 0.3, 10e9, "DRAM")])
    ax = caught[-1].axes[0]
    assert ax.get_xlim() == pytest.approx((0.1, 10.0))
    # y: the add at 10 GFLOP/s and the DRAM roof at 0.1 (4) halved: 2; 160 x 2.5 on top
    assert ax.get_ylim() == pytest.approx((2.0, 400.0))
    caught.clear()  # only the next figure
    # an add at 0.15: half is 0.075, so the axis starts at 0.01, not 0.1
    roofs = [("L1", 640e9), ("DRAM", 40e9)]
    hplots.hierarchical_roofline_figure("h.png", roofs, 160e9, [("a", 0.15, 5e9, "DRAM")])
    assert caught[-1].axes[0].get_xlim() == pytest.approx((0.01, 10.0))


def test_a_plateau_ending_exactly_1_percent_short_of_the_edge_counts_as_at_it(caught) -> None:
    hi = 64 * KIB * 1.3
    ax, _, _ = sweep(caught, plateaus=[("E", 20 * KIB, hi / 1.01, 20e9)])
    (t,) = ax.texts
    assert t.get_ha() == "right" and t.xy[0] == pytest.approx(hi / 1.01)


# --- Each operation drawn where its numbers put it, labelled -----------------
ROOFS = [("L1", 150 * GB), ("L2", 40 * GB), ("L3", 38 * GB), ("DRAM", 10 * GB)]
# two adds whose rates differ by 5% (their markers overlap) and two matmuls
OPS = [
    ("add in L2 (304 KiB)", 1 / 12, 3.3 * GB, "L2"),
    ("add in L3 (13 MiB)", 1 / 12, 3.15 * GB, "L3"),
    ("add in DRAM (512 MiB)", 1 / 12, 0.8 * GB, "DRAM"),
    ("matmul n=256", 42.7, 180 * GB, ""),
]


@pytest.fixture
def figure(caught) -> Any:
    """The Figure drawn for ROOFS and OPS."""
    hplots.hierarchical_roofline_figure(
        "roof.png", ROOFS, 200 * GB, OPS, extra_roofs=[("DRAM, 2 threads", 12 * GB)]
    )
    return caught[-1]


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
