"""Lecture 09's figures by their axes: binary working-set ticks on a log2 axis, GB/s from
bytes/s, the plateaus over their own sizes, the cache lines inside the range, and the
hierarchical roofline's decades, roofs min(P, I beta) and ring for a covered point.

Expected values are worked out here (powers of 4 bytes, bytes / 1e9, decades around the
data), never read from the module under test.
"""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

from plots.figure_parts import xy

from common.plots import hierarchy as hplots

KIB, MIB, GB = 1024.0, 1024.0**2, 1e9


def test_bandwidth_sweep_axes_plateaus_and_caches(caught) -> None:
    sizes = [4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, 1 * MIB]
    measured = [100e9, 100e9, 50e9, 50e9, 20e9]
    hplots.bandwidth_sweep_figure(
        "b.png",
        sizes,
        measured,
        [None, 110e9, 55e9, 52e9, 21e9],
        [("L1d", 32 * 1024), ("L3", 64 * 1024 * 1024)],  # L3 is outside the range
        [("L1", 1 * KIB, 32 * KIB, 100e9), ("L2", 48 * KIB, 300 * KIB, 50e9), ("X", 5e6, 6e6, 1)],
        call_cost_limit=8 * KIB,
    )
    (ax,) = caught[0].axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    lo, hi = 4 * KIB / 1.3, 1 * MIB * 1.3
    assert ax.get_xlim() == pytest.approx((lo, hi))
    # y from 0 to 18% above the largest of measured and corrected: 110 GB/s x 1.18.
    assert ax.get_ylim() == pytest.approx((0.0, 110 * 1.18))
    # Powers of 4 bytes inside the range: 4 KiB .. 1 MiB.
    assert [float(t) for t in ax.get_xticks()] == [4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, MIB]
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "4 KiB",
        "16 KiB",
        "64 KiB",
        "256 KiB",
        "1 MiB",
    ]
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


def test_hierarchical_roofline_axes_and_roofs(caught) -> None:
    roofs = [("L1", 200e9), ("DRAM", 20e9)]
    ops = [
        ("add, L1", 1 / 12, 15e9, "L1"),
        ("add again", 1 / 12, 16e9, "L1"),  # within 25%: drawn around the first
        ("add, DRAM", 1 / 12, 1.6e9, "DRAM"),
    ]
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
    caught.clear()  # only the next figure
    roofs = [("L1", 200e9), ("DRAM", 20e9)]
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
    assert len(caught[0].legends[0].get_texts()) == 4 and caught[0].legends[0]._ncols == 3


def test_plateau_labels_centre_on_their_range_or_end_at_the_right_edge(caught) -> None:
    sizes = [4 * KIB, 64 * KIB]
    lo, hi = 4 * KIB / 1.3, 64 * KIB * 1.3
    plateaus = [
        ("L2", 8 * KIB, 32 * KIB, 30e9),  # centred at sqrt(8 x 32) KiB = 16 KiB
        ("E", 40 * KIB, hi / 1.005, 20e9),  # within 1% of the edge: ends there
        ("F", 40 * KIB, hi / 1.05, 10e9),  # 5% short of it: centred
        ("Z", 50 * KIB, 50 * KIB, 5e9),  # an empty range: not drawn
    ]
    hplots.bandwidth_sweep_figure(
        "b.png", sizes, [40e9, 40e9], [None, None], [("lo", lo), ("hi", hi)], plateaus
    )
    (ax,) = caught[0].axes
    labels = {t.get_text(): t for t in ax.texts}
    assert labels["L2 30 GB/s"].xy == pytest.approx((16 * KIB, 30.0))
    assert labels["L2 30 GB/s"].get_ha() == "center"
    assert labels["E 20 GB/s"].get_ha() == "right" and labels["F 10 GB/s"].get_ha() == "center"
    assert "Z 5 GB/s" not in labels
    flats = [ln for ln in ax.get_lines() if ln.get_linewidth() == 4]
    assert len(flats) == 3
    caches = [float(ln.get_xdata()[0]) for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert caches == pytest.approx([lo, hi])  # the range's own ends are inside it
    caught.clear()  # only the next figure
    sizes = [4 * KIB, 64 * KIB]
    hplots.bandwidth_sweep_figure(
        "b.png", sizes, [10e9, 10e9], [None, None], [], [("DRAM", 8 * KIB, 1e12, 10e9)]
    )
    (ax,) = caught[0].axes
    (label,) = [t for t in ax.texts if t.get_text() == "DRAM 10 GB/s"]
    assert label.xy[0] == pytest.approx(64 * KIB * 1.3) and label.get_ha() == "right"
    assert not ax.patches  # no call-cost band without its limit
    assert ax.get_lines()[0].get_label() == "measured per call"
    assert not any(ln.get_label() == "per-call cost removed" for ln in ax.get_lines())
