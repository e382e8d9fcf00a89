"""The roofline figures by their axes: scales, limits, ticks, the ridge at P / beta, the roof
at P, panel titles and the key; expected values by hand, never read from the module."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from plots.figure_parts import ticks, xy

from common.plots import roofline as rplots
from common.plots import style

H100 = ("H100", 989e12, 3.35e12)  # ridge 989 / 3.35 = 295.2 FLOP/B
H200 = ("H200", 989e12, 4.8e12)  # same peak, ridge 206.0
A100 = ("A100", 312e12, 1.555e12)  # ridge 200.6


def roof_lines(ax) -> list:
    """The plotted roofs: lines of more than two points (markers and guides have fewer)."""
    return [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2]


def test_single_roofline_axes_scales_limits_and_units(caught) -> None:
    rplots.roofline_figure("r.png", [H100], [("matvec", 1.0, 3.35e12)], title="One chip")
    (ax,) = caught[0].axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # x: intensities 1.0 and 295; 1 / 1.5 rounds down to the decade 0.1, 295 x 3 up to 1,000.
    assert ax.get_xlim() == pytest.approx((0.1, 1000.0))
    # y: the roof at x = 0.1 (0.335 TFLOP/s) down to its decade; the roof's peak (989
    # TFLOP/s, above the point) doubled up to its decade: 0.1 to 10,000 TFLOP/s.
    assert ax.get_ylim() == pytest.approx((1e11, 1e16))
    assert ticks(ax, "y") == [(1e11, "0.1"), (1e12, "1"), (1e13, "10"), (1e14, "100"),
                              (1e15, "1,000"), (1e16, "10,000")]  # TFLOP/s  # fmt: skip
    assert "FLOP/byte" in ax.get_xlabel() and "TFLOP/s" in ax.get_ylabel()
    assert ax.get_title() == "One chip"
    (roof,) = roof_lines(ax)
    xs = [x for x, _ in xy(roof)]
    assert xs[0] == pytest.approx(0.1) and xs[-1] == pytest.approx(1000.0)
    assert all(y == pytest.approx(min(989e12, x * 3.35e12)) for x, y in xy(roof))
    assert max(y for _, y in xy(roof)) == pytest.approx(989e12)  # the roof's height is P
    ridge = [xy(ln) for ln in ax.get_lines() if len(ln.get_xdata()) == 1]
    assert [(989e12 / 3.35e12, 989e12)] in ridge  # the ridge marker at (P / beta, P)
    assert roof.get_label() == "H100 (I* = 295)"
    markers = [xy(ln)[0] for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert (989e12 / 3.35e12, 989e12) in markers and (1.0, 3.35e12) in markers
    assert [t.get_text() for t in ax.texts] == ["matvec"]
    # rate ticks stay plain past a million TFLOP/s: lecture 05 with every figure x1000 (the
    # H100's 989e15 FLOP/s) put '1e+06' above '100,000'; 1e18 FLOP/s is 1,000,000 TFLOP/s
    rplots.roofline_figure("r.png", [("H100 x1000", 989e15, 3.35e15)], [], title="x1000")
    labels = dict(ticks(caught[1].axes[0], "y"))
    assert labels[1e18] == "1,000,000" and labels[1e19] == "10,000,000"
    assert not [t for t in labels.values() if "e" in t]


def test_the_roof_the_points_sit_on_is_bold_and_named(caught) -> None:
    rplots.roofline_figure("r.png", [H100, H200, A100], [("gemm", 500.0, 989e12)], placed_on=0)
    (ax,) = caught[0].axes
    roofs = {ln.get_label(): ln for ln in roof_lines(ax)}
    assert set(roofs) == {"H100 (I* = 295): points sit here", "H200 (I* = 206), same peak as H100",
                          "A100 (I* = 201)"}  # fmt: skip
    bold = roofs["H100 (I* = 295): points sit here"]
    thin = [roofs["H200 (I* = 206), same peak as H100"], roofs["A100 (I* = 201)"]]
    assert all(bold.get_linewidth() > ln.get_linewidth() for ln in thin)
    assert bold.get_linestyle() == "-" and all(ln.get_linestyle() != "-" for ln in thin)
    assert all(bold.get_zorder() > ln.get_zorder() for ln in thin)
    for ln, (_, peak, bw) in zip(thin, (H200, A100), strict=True):
        assert all(y == pytest.approx(min(peak, x * bw)) for x, y in xy(ln))
    point = [ln for ln in ax.get_lines() if xy(ln) == [(500.0, 989e12)]]
    assert len(point) == 1 and point[0].get_color() == "black"
    assert [t.get_text() for t in ax.texts] == ["gemm"]
    caught.clear()  # only the next figure
    rplots.roofline_figure("r.png", [H100, A100], [("p", 10.0, 1e13)])
    (ax,) = caught[0].axes
    roofs = roof_lines(ax)
    assert [ln.get_label() for ln in roofs] == ["H100 (I* = 295)", "A100 (I* = 201)"]
    assert roofs[0].get_linewidth() == roofs[1].get_linewidth()
    assert {ln.get_linestyle() for ln in roofs} == {"-"}
    caught.clear()  # only the next figure
    rplots.roofline_figure("r.png", [H100, H200], [("p", 1.0, 3.35e12)], placed_on=0)
    (ax,) = caught[0].axes
    labels = [ln.get_label() for ln in roof_lines(ax)]
    assert labels == ["H100 (I* = 295): points sit here", "H200 (I* = 206), same peak as H100"]


def test_panels_each_titled_with_their_own_chip_and_ridge(caught) -> None:
    panels = [
        rplots.RooflinePanel("A100", A100, [("1", 1.0, 1.555e12)]),
        rplots.RooflinePanel("H100", H100, [("1", 1.0, 3.35e12), ("2", 400.0, 989e12)]),
    ]
    key = ["1  matvec", "2  gemm"]
    rplots.roofline_panels_figure("p.png", panels, key, "Two chips")
    fig = caught[0]
    axes = fig.axes
    assert len(axes) == 2
    assert [ax.get_title() for ax in axes] == ["A100: I* = 201 FLOP/B", "H100: I* = 295 FLOP/B"]
    assert fig.get_suptitle() == "Two chips"
    for ax, (_, peak, bw) in zip(axes, (A100, H100), strict=True):
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        # Shared range: intensities 1.0 .. 400 and ridges 201, 295 -> 0.1 .. 10,000.
        assert ax.get_xlim() == pytest.approx((0.1, 10000.0))
        (roof,) = roof_lines(ax)
        assert all(y == pytest.approx(min(peak, x * bw)) for x, y in xy(roof))
        guides = [ln for ln in ax.get_lines() if list(ln.get_ydata()) == [0, 1]]
        assert [float(ln.get_xdata()[0]) for ln in guides] == [pytest.approx(peak / bw)]
    # y: every panel's roof at x = 0.1 and every point, lowest 0.1 x 1.555e12, down to its
    # decade; the highest, 989e12, doubled (room above) and up to its decade, 1e16.
    assert axes[0].get_ylim() == pytest.approx((1e11, 1e16))
    assert axes[1].get_ylim() == axes[0].get_ylim()
    assert axes[0].get_ylabel() and not axes[1].get_ylabel()
    assert [t.get_text() for t in axes[0].texts] == ["1"]
    assert [t.get_text() for t in axes[1].texts] == ["1", "2"]
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == key
    assert legend._ncols == 1
    panel = rplots.RooflinePanel("H100", H100, [(str(k), 10.0 * k, 1e13) for k in range(1, 6)])
    rplots.roofline_panels_figure("p.png", [panel], [f"{k}  op" for k in range(1, 6)], "t")
    assert len(caught[1].axes) == 1 and caught[1].legends[0]._ncols == 2  # a long key
    with pytest.raises(ValueError, match="at least one panel"):
        rplots.roofline_panels_figure("p.png", [], [], "none")
    caught.clear()  # only the next figure
    panels = [rplots.RooflinePanel(n, c, [("1", 1.0, 1e12)]) for n, c in (("a", A100), ("h", H100))]
    rplots.roofline_panels_figure("p.png", panels, ["1  x"], "t")
    first, second = caught[0].axes
    assert first.yaxis.get_tick_params(which="major").get("labelleft", True)
    assert second.yaxis.get_tick_params(which="major")["labelleft"] is False


def test_coinciding_points_are_grouped_by_position_and_counted() -> None:
    points = [(1.0, 3e12), (1.004, 3e12), (1000.0, 9e14), (1.0, 3e12)]
    prefill = rplots.PointSeries("prefill operators", points, ["norm", "norm", "matmul", "matmul"])
    decode = rplots.PointSeries("decode operators", [(1.0, 3e12), (4.0, 1e13)], ["matmul"] * 2)
    groups = rplots.coinciding([prefill, decode])
    assert [(x, y) for x, y, _ in groups] == [(1.0, 3e12), (4.0, 1e13), (1000.0, 9e14)]
    texts = [text for _, _, text in groups]
    assert texts == ["prefill norm x2, matmul x1; decode matmul x1", "decode matmul x1",
                     "prefill matmul x1"]  # fmt: skip
    a = rplots.PointSeries("a ops", [(1.0, 1.0), (1.0105, 1.0), (10.6, 50.0)], ["n", "m", "k"])
    groups = rplots.coinciding([a])
    assert [x for x, _, _ in groups] == [1.0, 1.0105, 10.6]  # 1.05% apart: two positions
    tie = rplots.PointSeries("b ops", [(4.0, 1e12), (1.0, 3e12), (1.0, 3e12)], ["z", "y", "x"])
    # Sorted by intensity (not by rate), names of equal count in alphabetical order.
    assert rplots.coinciding([tie]) == [(1.0, 3e12, "b x x1, y x1"), (4.0, 1e12, "b z x1")]


def test_series_figure_marks_each_group_and_keys_the_positions(caught) -> None:
    curve = ("H100 SXM bf16", 989e12, 3.35e12)
    series = [
        rplots.PointSeries("prefill operators", [(0.5, 1.675e12), (600.0, 989e12)], ["a", "b"]),
        rplots.PointSeries("decode operators", [(0.5, 1.675e12)], ["a"]),
    ]
    rplots.roofline_series_figure("s.png", curve, series, "Both phases")
    fig = caught[0]
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_title() == "Both phases"
    groups = {ln.get_label(): ln for ln in ax.get_lines() if ln.get_linestyle() == "None"}
    assert xy(groups["prefill operators"]) == [(0.5, 1.675e12), (600.0, 989e12)]
    assert xy(groups["decode operators"]) == [(0.5, 1.675e12)]
    # A point of the second group on one of the first stays visible: hollow and larger first.
    first, second = groups["prefill operators"], groups["decode operators"]
    assert first.get_markerfacecolor() == "white" and second.get_markerfacecolor() != "white"
    assert first.get_markersize() > second.get_markersize()
    guides = [ln for ln in ax.get_lines() if list(ln.get_ydata()) == [0, 1]]
    assert [float(ln.get_xdata()[0]) for ln in guides] == [pytest.approx(989 / 3.35)]
    (roof,) = roof_lines(ax)
    assert all(y == pytest.approx(min(989e12, x * 3.35e12)) for x, y in xy(roof))
    assert [t.get_text() for t in ax.texts] == ["1", "2"]
    (key,) = fig.legends
    keys = [t.get_text() for t in key.get_texts()]
    assert keys == ["1  I = 0.5: prefill a x1; decode a x1", "2  I = 600: prefill b x1"]
    caught.clear()  # only the next figure
    curve = ("H100", 989e12, 3.35e12)
    rplots.roofline_series_figure("s.png", curve, [rplots.PointSeries("ops", [(1.0, 3e12)])], "t")
    fig = caught[0]
    assert not fig.legends and not fig.axes[0].texts
    named = rplots.PointSeries("ops", [(1.0, 3e12)], ["x"])
    rplots.roofline_series_figure("s.png", curve, [named], "t")
    assert caught[1].get_figheight() > fig.get_figheight()  # room for the key below


def test_house_style_figure_log_range_and_atomic_saves(tmp_path) -> None:
    fig, ax = style.new_figure()
    assert tuple(fig.get_size_inches()) == pytest.approx((7.2, 4.5))  # the docs' column
    assert fig.dpi == 150
    assert not ax.spines["top"].get_visible() and not ax.spines["right"].get_visible()
    assert ax.spines["left"].get_visible()
    assert all(line.get_visible() for line in ax.get_xgridlines())
    wide, axes = style.new_figure(width=20.0, height=3.0, ncols=3)
    assert tuple(wide.get_size_inches()) == pytest.approx((7.2, 3.0))  # never wider
    assert len(axes) == 3 and not any(a.spines["top"].get_visible() for a in axes)
    narrow, _ = style.new_figure(width=4.0)
    assert narrow.get_size_inches()[0] == pytest.approx(4.0)
    path = style.save_figure(fig, tmp_path / "f.png")
    png = (tmp_path / "f.png").read_bytes()
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert path == str(tmp_path / "f.png") and (width, height) == (1080, 675)  # 7.2 x 150 dpi
    assert style.log_range(0.01, 100.0, 5) == pytest.approx([0.01, 0.1, 1.0, 10.0, 100.0])
    assert len(style.log_range(1.0, 2.0)) == 400
    assert style.log_range(1.0, 1000.0, 4) == pytest.approx([1.0, 10.0, 100.0, 1000.0])
    assert style.matplotlib_available()
    style.require_matplotlib()  # no error where matplotlib is installed
    # save_roofline_png checks its bandwidths; a figure is written atomically
    # its peaks and the skip without matplotlib: tests/formulas/test_roofline.py
    with pytest.raises(ValueError, match="bandwidth"):
        rplots.save_roofline_png(str(tmp_path / "x.png"), [("bad", 1e12, -1.0)], [])
    path = rplots.roofline_figure(tmp_path / "a.png", [("A", 1e12, 1e9)], [("p", 1.0, 1e9)])
    assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # written atomically:
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png", "f.png"]  # no temporary left


def test_ranges_leave_out_empty_values_reach_slow_points_and_keep_small_ones(caught) -> None:
    """A point with no FLOP/s still widens the intensity range but not the rate axis; a toy
    machine of a few FLOP/s keeps its sub-1 rates; 1 / 1.5 margin below the lowest I."""
    rplots.roofline_figure("r.png", [H100], [("idle", 5000.0, 0.0), ("low", 0.155, 5e11)])
    (ax,) = caught[0].axes
    # x: 0.155 / 1.5 = 0.103 -> 0.1 (with a margin of 1.65 it would fall to 0.01);
    # 5,000 x 3 = 15,000 -> 100,000.
    assert ax.get_xlim() == pytest.approx((0.1, 1e5))
    # y: the roof at 0.1 (3.35e11) up to its peak 989e12 doubled (the idle point's 0 is
    # left out): 1e11 .. 1e16.
    assert ax.get_ylim() == pytest.approx((1e11, 1e16))
    rplots.roofline_figure("t.png", [("toy", 10.0, 1.0)], [("p", 0.05, 0.05)])
    (toy,) = caught[1].axes
    # x: 0.05 / 1.5 -> 0.01, ridge 10 x 3 -> 100; y: roof at 0.01 is 0.01 FLOP/s -> 0.01,
    # its peak 10 FLOP/s x 2 = 20 -> 100: the flat roof stays in view.
    assert toy.get_xlim() == pytest.approx((0.01, 100.0))
    assert toy.get_ylim() == pytest.approx((0.01, 100.0))
    panel = rplots.RooflinePanel("toy", ("toy", 10.0, 1.0), [("1", 0.05, 0.05)])
    rplots.roofline_panels_figure("p.png", [panel], ["1  p"], "t")
    assert caught[2].axes[0].get_ylim() == pytest.approx((0.01, 100.0))  # P = 10, x 2 -> 100
    series = rplots.PointSeries("ops", [(0.05, 0.05)])
    rplots.roofline_series_figure("s.png", ("toy", 10.0, 1.0), [series], "t")
    assert caught[3].axes[0].get_ylim() == pytest.approx((0.01, 100.0))
    # A point below every roof widens the rate axis down; a point at intensity 0 or rate 0 is
    # left out of the log ranges; the top is the peak doubled, up to its decade.
    points = [("slow", 1.0, 1e9), ("nothing", 0.0, 1e10)]
    rplots.roofline_figure("r.png", [H100], points)
    (ax,) = caught[4].axes
    # x: 1.0 / 1.5 -> 0.1 (the point at 0 is left out), 295 x 3 -> 1,000; y: 1e9 -> 1e9.
    assert ax.get_xlim() == pytest.approx((0.1, 1000.0))
    assert ax.get_ylim() == pytest.approx((1e9, 1e16))
    panel = rplots.RooflinePanel("H100", H100, [("1", 1.0, 1e9), ("2", 2.0, 0.0)])
    rplots.roofline_panels_figure("p.png", [panel], ["1  slow", "2  idle"], "t")
    assert caught[5].axes[0].get_ylim() == pytest.approx((1e9, 1e16))
    series = rplots.PointSeries("ops", [(1.0, 1e9), (2.0, 0.0)])
    rplots.roofline_series_figure("s.png", H100, [series], "t")
    assert caught[6].axes[0].get_ylim() == pytest.approx((1e9, 1e16))
    # A peak of 4 FLOP/s: 4 x 2 = 8 -> 10 (a margin of x 3 would give 12 -> 100); the
    # bottom is the roof at 1 / 1.5 -> 0.1: 0.1 FLOP/s.
    rplots.roofline_figure("t.png", [("toy", 4.0, 1.0)], [("p", 1.0, 1.0)])
    assert caught[7].axes[0].get_ylim() == pytest.approx((0.1, 10.0))


def test_series_figure_range_colours_a_third_group_and_whole_intensities(caught) -> None:
    curve = ("H100 SXM bf16", 989e12, 3.35e12)
    series = [
        rplots.PointSeries("prefill operators", [(0.5, 1.675e12), (600.0, 989e12)]),
        rplots.PointSeries("decode operators", [(0.5, 1.675e12)]),
        rplots.PointSeries("third operators", [(2.0, 6.7e12)]),
    ]
    rplots.roofline_series_figure("s.png", curve, series, "t")
    (ax,) = caught[0].axes
    # x: 0.5 / 1.5 -> 0.1, 600 x 3 -> 10,000; y: the roof at 0.1 (3.35e11) -> 1e11, the
    # highest point 989e12 doubled -> 1e16.
    assert ax.get_xlim() == pytest.approx((0.1, 1e4))
    assert ax.get_ylim() == pytest.approx((1e11, 1e16))
    groups = {ln.get_label(): ln for ln in ax.get_lines() if ln.get_linestyle() == "None"}
    # Groups never take the roof's colour; the third is hollow again, like the first.
    (roof,) = roof_lines(ax)
    colours = [groups[s.label].get_markeredgecolor() for s in series]
    assert roof.get_color() not in colours and len(set(colours)) == 3
    assert colours[0] == style.MEMORY_COLOR  # prefill in the memory colour, as captioned
    assert groups["third operators"].get_markerfacecolor() == "white"
    # the key prints whole intensities from ten
    s = rplots.PointSeries("ops", [(10.6, 1e13), (2.25, 5e12)], ["big", "small"])
    rplots.roofline_series_figure("s.png", ("H100", 989e12, 3.35e12), [s], "t")
    (key,) = caught[1].legends
    texts = [t.get_text() for t in key.get_texts()]
    assert texts == ["1  I = 2.25: ops small x1", "2  I = 11: ops big x1"]
    assert key._ncols == 1
