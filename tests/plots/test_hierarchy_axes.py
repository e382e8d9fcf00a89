"""Lecture 09's figures by their axes and data: binary ticks, GB/s, plateaus, cache lines,
the hierarchical roofline's decades, roofs min(P, I beta), markers and labels; expected
values worked out here (powers of 4 bytes, sqrt(lo x hi), 8 + 5 pt a covered marker)."""

from __future__ import annotations

import itertools
import math

import pytest

pytest.importorskip("matplotlib")

from plots.figure_parts import line, ticks, xy

from common.plots import hierarchy as hplots
from common.plots import style

KIB, MIB, GB = 1024.0, 1024.0**2, 1e9


def test_bandwidth_sweep_axes_plateaus_their_labels_and_caches(caught) -> None:
    sizes = [4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, 1 * MIB]
    measured = [100e9, 100e9, 50e9, 50e9, 20e9]
    corrected = [None, 110e9, 55e9, 52e9, 21e9]
    caches = [("L1d", 32 * 1024), ("L3", 64 * 1024 * 1024)]  # L3 is outside the range
    plateaus = [("L1", 1 * KIB, 32 * KIB, 100e9), ("L2", 48 * KIB, 300 * KIB, 50e9)]
    plateaus.append(("X", 5e6, 6e6, 1))
    hplots.bandwidth_sweep_figure("b.png", sizes, measured, corrected, caches, plateaus, 8 * KIB)
    (ax,) = caught[0].axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    lo, hi = 4 * KIB / 1.3, 1 * MIB * 1.3
    assert ax.get_xlim() == pytest.approx((lo, hi))
    # y from 0 to 18% above the largest of measured and corrected: 110 GB/s x 1.18.
    assert ax.get_ylim() == pytest.approx((0.0, 110 * 1.18))
    # Powers of 4 bytes inside the range: 4 KiB .. 1 MiB.
    assert ticks(ax, "x") == [(4 * KIB, "4 KiB"), (16 * KIB, "16 KiB"), (64 * KIB, "64 KiB"),
                              (256 * KIB, "256 KiB"), (MIB, "1 MiB")]  # fmt: skip
    assert "GB/s" in ax.get_ylabel()
    flats = [xy(ln) for ln in ax.get_lines() if ln.get_linewidth() == 4]
    # The L1 plateau clipped to the axes' left edge; X lies outside: not drawn.
    assert flats == [[(lo, 100.0), (32 * KIB, 100.0)], [(48 * KIB, 50.0), (300 * KIB, 50.0)]]
    caches = [float(ln.get_xdata()[0]) for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert caches == [32 * 1024]
    (span,) = ax.patches
    assert (span.get_x(), span.get_x() + span.get_width()) == pytest.approx((lo, 8 * KIB))
    texts = [t.get_text() for t in ax.texts]
    assert "L1 100 GB/s" in texts and "L2 50 GB/s" in texts and "L1d 32 KiB " in texts
    assert all("L3" not in t for t in texts)
    colors = {t.get_text(): t.get_color() for t in ax.texts}
    assert colors["L2 50 GB/s"] == hplots.level_color("L2", ["L1", "L2", "X"])
    pairs = zip(sizes, measured, strict=True)
    assert xy(line(ax, "measured per call")) == [(s, m / GB) for s, m in pairs]
    assert xy(line(ax, "per-call cost removed")) == [
        (s, pytest.approx(c / GB)) for s, c in zip(sizes[1:], corrected[1:], strict=True)
    ]
    caught.clear()  # only the next figure: a plateau with no end stops at the right edge
    sizes = [4096.0 * 2**k for k in range(10)]
    plateaus = [("L1", 4096.0, 32768.0, 100e9), ("DRAM", 2**17, math.inf, 20e9)]
    hplots.bandwidth_sweep_figure("h.png", sizes, [20e9] * 10, [None] * 10, [], plateaus, 8192)
    (ax,) = caught[0].axes
    flats = [xy(ln) for ln in ax.get_lines() if ln.get_linewidth() == 4]
    hi = max(sizes) * 1.3
    assert flats == [[(4096.0, 100.0), (32768.0, 100.0)], [(2**17, 20.0), (hi, 20.0)]]
    labels = [t.get_text() for t in ax.texts]
    assert "L1 100 GB/s" in labels and "DRAM 20 GB/s" in labels
    caught.clear()  # only the next figure: plateau labels centre on their range or end at the edge
    sizes = [4 * KIB, 64 * KIB]
    lo, hi = 4 * KIB / 1.3, 64 * KIB * 1.3
    plateaus = [
        ("L2", 8 * KIB, 32 * KIB, 30e9),  # centred at sqrt(8 x 32) KiB = 16 KiB
        ("E", 40 * KIB, hi / 1.005, 20e9),  # within 1% of the edge: ends there
        ("F", 40 * KIB, hi / 1.05, 10e9),  # 5% short of it: centred
        ("G", 20 * KIB, hi / 1.01, 15e9),  # exactly 1% short: at the edge
        ("Z", 50 * KIB, 50 * KIB, 5e9),  # an empty range: not drawn
    ]
    hplots.bandwidth_sweep_figure(
        "b.png", sizes, [40e9, 40e9], [None, None], [("lo", lo), ("hi", hi)], plateaus)  # fmt: skip
    (ax,) = caught[0].axes
    labels = {t.get_text(): t for t in ax.texts}
    assert labels["L2 30 GB/s"].xy == pytest.approx((16 * KIB, 30.0))
    assert labels["L2 30 GB/s"].get_ha() == "center"
    assert labels["E 20 GB/s"].get_ha() == "right" and labels["F 10 GB/s"].get_ha() == "center"
    assert labels["G 15 GB/s"].get_ha() == "right" and labels["G 15 GB/s"].xy[0] == pytest.approx(
        hi / 1.01)  # fmt: skip
    assert "Z 5 GB/s" not in labels
    flats = [ln for ln in ax.get_lines() if ln.get_linewidth() == 4]
    assert len(flats) == 4
    caches = [float(ln.get_xdata()[0]) for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert caches == pytest.approx([lo, hi])  # the range's own ends are inside it
    caught.clear()  # only the next figure
    dram = [("DRAM", 8 * KIB, 1e12, 10e9)]
    hplots.bandwidth_sweep_figure("b.png", sizes, [10e9, 10e9], [None, None], [], dram)
    (ax,) = caught[0].axes
    (label,) = [t for t in ax.texts if t.get_text() == "DRAM 10 GB/s"]
    assert label.xy[0] == pytest.approx(64 * KIB * 1.3) and label.get_ha() == "right"
    assert not ax.patches  # no call-cost band without its limit
    assert ax.get_lines()[0].get_label() == "measured per call"
    assert not any(ln.get_label() == "per-call cost removed" for ln in ax.get_lines())


def test_hierarchical_roofline_axes_and_roofs(caught) -> None:
    roofs = [("L1", 200e9), ("DRAM", 20e9)]
    ops = [("add, L1", 1 / 12, 15e9, "L1"),
           ("add again", 1 / 12, 16e9, "L1"),  # within 25%: drawn around the first
           ("add, DRAM", 1 / 12, 1.6e9, "DRAM")]  # fmt: skip
    hplots.hierarchical_roofline_figure("h.png", roofs, 150e9, ops, title="Here")
    fig = caught[0]
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # x: intensities 1/12 and P / beta = 0.75, 7.5: 1/24 down to 0.01, 15 up to 100.
    assert ax.get_xlim() == pytest.approx((0.01, 100.0))
    # y: the lowest point 1.6 GB/s and the DRAM roof at 0.01 (0.2) halved; P x 2.5 on top.
    assert ax.get_ylim() == pytest.approx((0.1, 375.0))
    assert "FLOP/byte" in ax.get_xlabel() and "GFLOP/s" in ax.get_ylabel()
    assert ax.get_title() == "Here"
    roof = next(ln for ln in ax.get_lines() if ln.get_label() == "L1 roof: 200.0 GB/s")
    assert all(y == pytest.approx(min(150.0, x * 200.0)) for x, y in xy(roof))
    assert roof.get_color() == hplots.level_color("L1", ["L1", "DRAM"])
    points = [ln for ln in ax.get_lines() if ln.get_marker() not in ("None", None, "")]
    assert [xy(p) for p in points] == [[(1 / 12, 15.0)], [(1 / 12, 16.0)], [(1 / 12, 1.6)]]
    sizes = [p.get_markersize() for p in points]
    assert sizes[1] > sizes[0] == sizes[2]  # only the covered one grows
    assert len({p.get_marker() for p in points}) == 3
    assert points[2].get_markeredgecolor() == hplots.level_color("DRAM", ["L1", "DRAM"])
    assert [t.get_text() for t in ax.texts] == ["add, L1", "add again", "add, DRAM"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "compute roof: 150 GFLOP/s" in legend and "DRAM roof: 20.0 GB/s" in legend
    assert any(xy(ln) == [(0, 150.0), (1, 150.0)] for ln in ax.get_lines())  # compute roof
    caught.clear()  # only the next figure
    ops = [("slow", 1.0, 0.01e9, "DRAM")]
    hplots.hierarchical_roofline_figure("h.png", roofs, 150e9, ops, [("all cores", 5e9)])
    (ax,) = caught[0].axes
    # x: intensities 1, 0.75, 7.5, 30 -> 0.375 down to 0.1, 60 up to 100.
    assert ax.get_xlim() == pytest.approx((0.1, 100.0))
    # y: the slow point 0.01 GB/s is below every roof at x = 0.1 (0.5 GFLOP/s for the
    # 5 GB/s roof); halved: 0.005.
    assert ax.get_ylim() == pytest.approx((0.005, 375.0))
    extra = next(ln for ln in ax.get_lines() if ln.get_label() == "all cores: 5.0 GB/s")
    assert all(y == pytest.approx(min(150.0, x * 5.0)) for x, y in xy(extra))
    legend = [t.get_text() for t in caught[0].legends[0].get_texts()]
    assert legend == ["L1 roof, 1 thread: 200.0 GB/s", "DRAM roof, 1 thread: 20.0 GB/s",
                      "all cores: 5.0 GB/s", "compute roof: 150 GFLOP/s"]  # fmt: skip
    # with an extra roof, the roofs name their thread count: each is min(P, I beta)
    for label, bw in (("L1 roof, 1 thread: 200.0 GB/s", 200e9), ("all cores: 5.0 GB/s", 5e9)):
        assert all(y == pytest.approx(min(150e9, x * bw) / GB) for x, y in xy(line(ax, label)))
    assert all(y <= 150 for _, y in xy(line(ax, "DRAM roof, 1 thread: 20.0 GB/s")))
    assert [t.get_text() for t in ax.texts] == ["slow"]  # labelled in place


def roofline(caught, ops, roofs=(("L1", 200e9), ("DRAM", 20e9)), extra=()):
    hplots.hierarchical_roofline_figure("h.png", list(roofs), 150e9, ops, list(extra))
    fig = caught[-1]
    ax = fig.axes[0]
    points = [ln for ln in ax.get_lines() if ln.get_marker() not in ("None", None, "")]
    return fig, ax, points


def test_markers_cycle_through_eight_shapes_black_without_a_level_and_grow_covered(caught) -> None:
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
    assert hplots.level_color("L2", ["L1", "L2"]) == style.SERIES_COLORS[1]
    assert hplots.level_color("L9", ["L1"]) == style.SERIES_COLORS[1]
    # each covered marker grows by 5 points
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


def test_roofs_span_the_intensity_axis_of_the_decades_around_the_data(caught) -> None:
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
    caught.clear()  # only the next: the intensity axis spans half to twice the data, in decades
    # ridges 160 / 640 = 0.25 and 160 / 40 = 4; an add at 0.3: 0.25 / 2 = 0.125 -> 0.1,
    # 4 x 2 = 8 -> 10 (a third and three times would give 0.01 and 100)
    roofs = [("L1", 640e9), ("DRAM", 40e9)]
    hplots.hierarchical_roofline_figure("h.png", roofs, 160e9, [("a", 0.3, 10e9, "DRAM")])
    ax = caught[0].axes[0]
    assert ax.get_xlim() == pytest.approx((0.1, 10.0))
    # y: the add at 10 GFLOP/s and the DRAM roof at 0.1 (4) halved: 2; 160 x 2.5 on top
    assert ax.get_ylim() == pytest.approx((2.0, 400.0))
    caught.clear()  # only the next figure
    # an add at 0.15: half is 0.075, so the axis starts at 0.01, not 0.1
    hplots.hierarchical_roofline_figure("h.png", roofs, 160e9, [("a", 0.15, 5e9, "DRAM")])
    assert caught[-1].axes[0].get_xlim() == pytest.approx((0.01, 10.0))


def test_roofline_labels_are_pushed_2_points_out_and_stay_inside(caught) -> None:
    ops = [("add in L1", 1 / 12, 15e9, "L1"), ("add in DRAM", 1 / 12, 1.6e9, "DRAM"),
           ("matmul n=256", 40.0, 120e9, ""), ("dot", 0.25, 5e9, "DRAM")]  # fmt: skip
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
    [("on L1", 0.1, 20e9, "L1"), ("on DRAM", 0.5, 10e9, "DRAM"), ("on 5 GB/s", 2.0, 10e9, ""),
     ("at peak", 30.0, 150e9, "")],
    [(f"L1 {x:g}", x, x * 200e9, "L1") for x in (0.02, 0.05, 0.2, 0.5)]
    + [(f"D {x:g}", x, x * 20e9, "DRAM") for x in (0.03, 0.3, 3.0)],
]  # fmt: skip


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
