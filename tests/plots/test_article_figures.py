"""Lectures 04, 07, 08, 11 and 14's figures by their axes and data: log scales, limits in decades,
ticks in the axis' unit, guides and labels where the inputs put them, the plotted terms;
expected values by hand in the comments, never read from the code."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from conftest import capture_figures
from matplotlib.colors import to_hex
from plots.figure_parts import annotation, horizontal_at, line, ticks, vertical_at, xy

from common.formulas.ledger import MemoryLedger
from common.plots import article, serving, style, transformer
from common.plots import predict as pplots
from common.plots.article import MeasuredPoint, measured_points
from common.tables.assumptions import ARTICLE_7B

GIB = 2**30


def test_log_ticks_step_1_2_5_over_short_ranges_and_by_decades_over_long() -> None:
    _, ax = style.new_figure()
    ax.set_xscale("log")
    ax.set_yscale("log")
    article.log_ticks(ax, "x", 0.05, 20.0)  # under three decades: 1-2-5
    assert ticks(ax, "x") == [(0.05, "0.05"), (0.1, "0.1"), (0.2, "0.2"), (0.5, "0.5"), (1.0, "1"),
                              (2.0, "2"), (5.0, "5"), (10.0, "10"), (20.0, "20")]  # fmt: skip
    article.log_ticks(ax, "y", 1.0, 1000.0)  # exactly three decades: still 1-2-5
    assert [v for v, _ in ticks(ax, "y")] == pytest.approx(
        [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000])  # fmt: skip
    article.log_ticks(ax, "y", 0.1, 10_000.0)  # five decades: decades only, with commas
    assert ticks(ax, "y") == [(0.1, "0.1"), (1.0, "1"), (10.0, "10"), (100.0, "100"),
                              (1000.0, "1,000"), (10000.0, "10,000")]  # fmt: skip
    assert not list(ax.get_yticks(minor=True))
    article.log_ticks(ax, "x", 1000, 2000)
    assert [t for _, t in ticks(ax, "x")] == ["1,000", "2,000"]
    # decades counted from the range, not from one
    article.log_ticks(ax, "y", 100.0, 5000.0)  # 1.7 decades (5,000 alone would be 3.7)
    assert ticks(ax, "y") == [(100.0, "100"), (200.0, "200"), (500.0, "500"),
                              (1000.0, "1,000"), (2000.0, "2,000"), (5000.0, "5,000")]  # fmt: skip
    article.log_ticks(ax, "y", 0.1, 500.0)  # 3.7 decades: decades only
    assert ticks(ax, "y") == [(0.1, "0.1"), (1.0, "1"), (10.0, "10"), (100.0, "100")]
    # a bound on a tick counts though the product rounds past it: 5 x 10.0**-6 is a hair
    # below 5e-6, and 5 x 10.0**-15 a hair above 5e-15
    article.log_ticks(ax, "y", 5e-6, 1e-4)
    assert ticks(ax, "y")[0][0] == pytest.approx(5e-6)
    article.log_ticks(ax, "y", 1e-16, 5e-15)
    assert ticks(ax, "y")[-1][0] == pytest.approx(5e-15)


POINTS = [
    article.MeasuredPoint("add", 1 / 12, 5e9, "memory"),
    article.MeasuredPoint("gemm", 300.0, 900e9, "compute"),
    article.MeasuredPoint("odd", 2.0, 50e9, "unknown"),
]


def test_local_roofline_axes_limits_ticks_and_roof(caught) -> None:
    article.local_roofline_figure("l.png", 1000e9, 50e9, POINTS, title="Here")
    fig = caught[0]
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # x: intensities 1/12 .. 300 and ridge / 100 .. ridge x 10 (0.2 .. 200): 1/12 / 1.5
    # down to 0.01, 300 x 4 up to 10,000.
    assert ax.get_xlim() == pytest.approx((0.01, 10_000.0))
    # y (GFLOP/s): the roof at 0.01 is 0.5, / 3 -> 0.167 -> 0.1; P x 3 = 3,000 -> 10,000.
    assert ax.get_ylim() == pytest.approx((0.1, 10_000.0))
    assert [v for v, _ in ticks(ax, "x")] == pytest.approx([0.01, 0.1, 1, 10, 100, 1000, 1e4])
    assert ticks(ax, "y")[-1] == (10_000.0, "10,000")
    assert "FLOP/byte" in ax.get_xlabel() and "GFLOP/s" in ax.get_ylabel()
    assert ax.get_title() == "Here"
    (roof,) = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2]
    assert xy(roof)[0] == pytest.approx((0.01, 0.5)) and xy(roof)[-1][0] == pytest.approx(1e4)
    assert roof.get_color() == "black"
    assert all(y == pytest.approx(min(1000e9, x * 50e9) / 1e9) for x, y in xy(roof))
    assert vertical_at(ax) == [pytest.approx(20.0)]  # the ridge P / beta
    (dashed,) = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert float(dashed.get_xdata()[0]) == 20.0
    texts = {t.get_text() for t in ax.texts}
    assert {"P = 1,000 GFLOP/s", "I* = 20.0", "beta = 50.0 GB/s"} <= texts
    assert annotation(ax, "P = ").xy == pytest.approx((20.0, 1000.0))
    assert annotation(ax, "I* = ").xy == pytest.approx((20.0, 0.1))
    slope = math.sqrt(0.01 * 20.0)  # midway along the bandwidth roof in log space
    assert annotation(ax, "beta = ").xy == pytest.approx((slope, slope * 50.0))
    marks = {ln.get_label(): ln for ln in ax.get_lines() if ln.get_label()[:1].isdigit()}
    assert marks["1  add"].get_color() == style.MEMORY_COLOR
    assert marks["2  gemm"].get_color() == style.COMPUTE_COLOR
    assert marks["3  odd"].get_color() == style.NEUTRAL_COLOR
    assert [xy(marks[k]) for k in ("1  add", "2  gemm", "3  odd")] == [
        [(1 / 12, 5.0)], [(300.0, 900.0)], [(2.0, 50.0)]]  # fmt: skip
    (key,) = fig.legends
    assert [t.get_text() for t in key.get_texts()] == ["1  add", "2  gemm", "3  odd"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["memory-bound (predicted)", "compute-bound (predicted)"]
    numbers = [(t.get_text(), tuple(t.xy)) for t in ax.texts if t.get_text().isdigit()]
    places = [xy(marks[k])[0] for k in ("1  add", "2  gemm", "3  odd")]  # each on its mark
    assert numbers == [(str(n), pytest.approx(place)) for n, place in enumerate(places, 1)]
    caught.clear()  # only the next figure: no points, one note in the corner
    article.local_roofline_figure("l.png", 1000e9, 50e9, [])
    fig = caught[0]
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.texts][-1] == "no measured operations (run lecture 01)"
    assert not fig.legends and ax.get_legend() is None
    note = annotation(ax, "no measured operations")
    assert note.get_position() == (0.03, 0.94) and note.get_transform() == ax.transAxes
    assert (note.get_ha(), note.get_va()) == ("left", "top")
    # x still spans the ridge 20: 20 / 100 / 1.5 = 0.13 -> 0.1; 20 x 10 x 4 = 800 -> 1,000
    assert ax.get_xlim() == pytest.approx((0.1, 1000.0))
    # the rate axis starts a decade under a third of the slowest point
    # x from 10**floor(log10(0.2 / 1.5)) = 0.1, where the roof is 5 GFLOP/s; the point
    # at 2 GFLOP/s is slower: 2 / 3 = 0.67 -> 0.1 (2 itself would give 1); 1000 x 3 -> 10,000;
    # at 3.5 GFLOP/s a third is 1.17 -> 1 (a quarter, 0.875, would give 0.1)
    for rate, bottom in ((2e9, 0.1), (3.5e9, 1.0)):
        points = [article.MeasuredPoint("a", 1.0, rate, "memory")]
        article.local_roofline_figure("l.png", 1000e9, 50e9, points)
        assert caught[-1].axes[0].get_ylim() == pytest.approx((bottom, 10_000.0))
    # its points: good rows become points and bad rows are counted
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
    assert bad == 3 and measured_points([]) == ([], 0)


# b against a: the same intensity within 2% and a rate within 25% (a ratio of 0.8 or 1.25 is
# clear); c, at a's place plus 5%, covers a and any b whose rate is within 25% of its own
@pytest.mark.parametrize(
    ("intensity", "rate", "ring", "c_covers"),
    [(1.0, 10e9, True, 2), (1.0, 12.4e9, True, 2), (1.0, 12.5e9, False, 2), (1.0, 8e9, False, 1),
     (1.0, 8.1e9, True, 1), (1.015, 10e9, True, 2), (0.985, 10e9, True, 2), (1.03, 10e9, False, 1)],
)  # fmt: skip
def test_a_point_on_an_earlier_one_is_a_ring_grown_5_points_a_point_covered(
    caught, intensity, rate, ring, c_covers
) -> None:
    seen = (("a", 1.0, 10e9), ("b", intensity, rate), ("c", 1.0, 10.5e9), ("far", 1.5, 10e9))
    points = [article.MeasuredPoint(*p, "memory") for p in seen]
    article.local_roofline_figure("l.png", 1000e9, 50e9, points)
    ax = caught[0].axes[0]
    marks = {ln.get_label(): ln for ln in ax.get_lines() if ln.get_label()[:1].isdigit()}
    assert (marks["2  b"].get_markerfacecolor() == "none") is ring
    assert marks["2  b"].get_markersize() == (11 if ring else 6)
    assert marks["3  c"].get_markersize() == 6 + 5 * c_covers
    assert marks["4  far"].get_markerfacecolor() != "none"  # another intensity: a dot
    assert marks["1  a"].get_markeredgecolor() == "white" and marks["1  a"].get_markersize() == 6


ROWS = [
    {"B": 1, "latency_s": 2e-3, "t_pred_s": 1e-3, "throughput_per_s": 500.0},
    {"B": 4, "latency_s": 3e-3, "t_pred_s": 1.5e-3, "throughput_per_s": 4 / 3e-3},
    {"B": 16, "latency_s": 8e-3, "t_pred_s": 4e-3, "throughput_per_s": 2000.0, "anomaly": 1},
]
PLAIN = [{k: v for k, v in r.items() if k != "anomaly"} for r in ROWS]  # no anomaly
ROWS_B4 = [dict(r, anomaly=1) if r["B"] == 4 else r for r in PLAIN]  # the anomaly at B = 4


def test_batch_sweep_axes_and_the_crossing_band(caught) -> None:
    article.batch_sweep_figure("b.png", ROWS, (2, 8), title="Sweep")
    fig = caught[0]
    lat, tp = fig.axes[:2]
    for ax in (lat, tp):
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        assert ax.get_xlim() == pytest.approx((1 / 1.4, 16 * 1.4))
        assert ticks(ax, "x") == [(1.0, "1"), (4.0, "4"), (16.0, "16")]
        assert "batch" in ax.get_xlabel()
        (band,) = [p for p in ax.patches if p.get_alpha() == 0.15]
        assert (band.get_x(), band.get_x() + band.get_width()) == pytest.approx((2.0, 8.0))
        label = annotation(ax, "I = I*")
        assert label.get_position()[0] == pytest.approx(4.0)  # sqrt(2 x 8), mid-band in log
    # y: all values of the panel, / 1.3 below and x 1.3 above.
    assert lat.get_ylim() == pytest.approx((1.0 / 1.3, 8.0 * 1.3))
    assert tp.get_ylim() == pytest.approx((500.0 / 1.3, 4000.0 * 1.3))
    assert lat.get_ylabel() == "latency (ms)" and tp.get_ylabel() == "throughput (tokens/s)"
    titles = (lat.get_title(), tp.get_title(), fig.get_suptitle())
    assert titles == ("Latency", "Throughput", "Sweep")
    assert "B=16" in [t.get_text() for t in lat.texts]
    assert xy(line(lat, "measured")) == [(1, 2.0), (4, 3.0), (16, 8.0)]  # ms
    assert xy(line(lat, "roofline")) == [(1, 1.0), (4, 1.5), (16, 4.0)]
    assert xy(line(tp, "measured")) == [(1, 500.0), (4, pytest.approx(4 / 3e-3)), (16, 2000.0)]
    predicted = [(1, 1 / 1e-3), (4, 4 / 1.5e-3), (16, 16 / 4e-3)]  # B / t_pred, not t / B
    assert xy(line(tp, "roofline")) == [(b, pytest.approx(t)) for b, t in predicted]
    assert xy(line(lat, "anomaly")) == [(16, 8.0)]
    # an anomaly at B = 4: its label sits on its point, clear of both curves
    article.batch_sweep_figure("b.png", ROWS_B4, (2, 8))
    lat, tp = caught[1].axes[:2]
    (b4,) = [t for t in lat.texts if t.get_text() == "B=4"]
    assert b4.xy == pytest.approx((4, 3.0)) and b4.get_color() == style.MEMORY_COLOR
    # pushed 3 pt out from the near offsets, or the far ring built from them
    near = [(7, 6), (7, -14), (-7, 6), (-7, -14), (9, -7), (-9, -7), (0, 10), (0, -18)]
    far = [(21, 12), (21, -22.4), (-21, 12), (-21, -22.4), (27, -11.2), (-27, -11.2)]
    assert any(tuple(map(float, b4.xyann)) == pytest.approx(o) for o in near + far)
    assert not [t for t in tp.texts if t.get_text().startswith("B=")]
    # the label keeps clear of both curves: sample them along their log-log segments
    caught[1].draw_without_rendering()
    box = b4.get_window_extent()
    for ln in lat.get_lines():
        if ln.get_label() in ("measured", "roofline"):
            (x0, y0), (x1, y1) = ln.get_xydata()[1:3]
            for k in range(9):
                f = k / 8
                px, py = lat.transData.transform((x0 * (x1 / x0) ** f, y0 * (y1 / y0) ** f))
                assert not box.contains(px, py)


@pytest.mark.parametrize("crossing", [None, (None, 4)])
def test_batch_sweep_without_a_crossing_has_no_band(caught, crossing) -> None:
    article.batch_sweep_figure("b.png", PLAIN, crossing)
    lat = caught[0].axes[0]
    assert not [p for p in lat.patches if p.get_alpha() == 0.15] and not lat.texts
    assert not any(ln.get_label() == "anomaly" for ln in lat.get_lines())


def test_memory_ledger_axes_budget_and_out_of_memory_marks(caught) -> None:
    article.memory_ledger_figure("m.png", ARTICLE_7B, (1, 24), 0.30, 0.04, 78 * GIB, title="7B")
    fig = caught[0]
    ax, ax2 = fig.axes[:2]
    for axis in (ax, ax2):
        assert ticks(axis, "x") == [(0.0, "1"), (1.0, "24")] and horizontal_at(axis) == [78.0]
        assert "budget 78 GiB" in [t.get_text() for t in axis.texts]
    # Batch 24 at 30%: 1.3 x (14e9 B of weights + 24 x 2.5 GiB) is the top; + 18% room.
    top = 1.3 * (14e9 / GIB + 24 * 2.5)
    assert ax.get_ylim() == pytest.approx((0.0, top * 1.18)) and ax2.get_ylim() == ax.get_ylim()
    assert ax.get_ylabel() == "memory (GiB)" and fig.get_suptitle() == "7B"
    assert ax.get_title() == "Four terms, overhead 30%"
    (oom,) = [t for t in ax.texts if t.get_text() == "OOM"]
    assert tuple(oom.get_position()) == pytest.approx((1.0, top))
    # Hand ledger (article, section 4.3): weights 14e9 B; KV 2 GiB per sequence; 0.5 GiB
    # of activations per sequence; overhead = rate x the three.
    w, kv, act = 14e9 / GIB, 2.0, 0.5
    terms = {"weights": [w, w], "KV cache": [kv, 24 * kv], "activations": [act, 24 * act],
             "overhead": [0.3 * (w + kv + act), 0.3 * (w + 24 * (kv + act))]}  # fmt: skip
    bottoms = [0.0, 0.0]
    for container in ax.containers:
        heights = [bar.get_height() for bar in container]
        assert heights == pytest.approx(terms[container.get_label()])
        assert [bar.get_y() for bar in container] == pytest.approx(bottoms)
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
    assert [c.get_label() for c in ax.containers] == list(terms)
    totals = {c.get_label(): [bar.get_height() for bar in c] for c in ax2.containers}
    assert totals["overhead 30%"] == pytest.approx([1.3 * (w + 2.5), 1.3 * (w + 24 * 2.5)])
    assert totals["overhead 4%"] == pytest.approx([1.04 * (w + 2.5), 1.04 * (w + 24 * 2.5)])
    hatched = {c.get_label(): [bool(b.get_hatch()) for b in c] for c in ax2.containers}
    assert hatched["overhead 30%"] == [False, True] and hatched["overhead 4%"] == [False, False]
    assert [float(ln.get_ydata()[0]) for ln in ax.get_lines()] == [78.0]  # the budget line
    # the bars sit either side of their batch
    article.memory_ledger_figure("m.png", ARTICLE_7B, (1, 24, 48), 0.30, 0.04, 78 * GIB)
    ax, ax2 = caught[1].axes[:2]
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


def test_speedup_axes_and_guides(caught) -> None:
    article.speedup_figure("s.png", title="2x")
    article.speedup_figure("s.png", lo=0.1, hi=10.0)
    for figure, (lo, hi) in zip(caught, [(0.05, 20.0), (0.1, 10.0)], strict=True):
        (ax,) = figure.axes
        assert ax.get_xlim() == pytest.approx((lo, hi))
        spans = sorted((p.get_x(), p.get_x() + p.get_width()) for p in ax.patches)
        assert spans == [pytest.approx((lo, 1.0)), pytest.approx((1.0, hi))]
    (ax,) = caught[0].axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert ax.get_ylim() == pytest.approx((0.9, 2.15))
    assert sorted(vertical_at(ax)) == [0.5, 1.0, 2.0]
    assert ticks(ax, "x")[0] == (0.05, "0.05") and ticks(ax, "x")[-1] == (20.0, "20")
    assert ax.get_title() == "2x" and "I / I*" in ax.get_xlabel()
    for label, which in (("2x compute", 0), ("2x bandwidth", 1)):
        for r, s in xy(line(ax, label)):
            t = max(r, 1.0)  # T = max(F / P, D / beta) with D = beta = P = 1, F = r
            by_hand = t / max(r / 2, 1.0) if which == 0 else t / max(r, 0.5)
            assert s == pytest.approx(by_hand), (label, r)
    xs = [x for x, _ in xy(line(ax, "2x compute"))]  # 300 points, evenly in log space
    assert len(xs) == 300 and xs[0] == pytest.approx(0.05) and xs[-1] == pytest.approx(20.0)
    assert all(math.isclose(b / a, xs[1] / xs[0]) for a, b in itertools.pairwise(xs))


def test_decode_throughput_axes_span_every_panel(caught) -> None:
    panels = [
        transformer.ThroughputPanel("H100", [(1, 100.0), (8, 700.0), (64, 3000.0)], 64, 32, 5e3),
        transformer.ThroughputPanel("B200", [(1, 200.0), (300, 9000.0)], 300, None),
    ]
    transformer.decode_throughput_figure("d.png", panels, "Llama")
    fig = caught[0]
    a, b = fig.axes[:2]
    for ax in (a, b):
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
        # x: largest wall or knee 300, x 1.5 = 450 -> 1,000; y: 100 .. 9,000 x 1.5 -> 100 .. 1e5
        assert ax.get_xlim() == pytest.approx((1.0, 1000.0))
        assert ax.get_ylim() == pytest.approx((100.0, 1e5))
    assert a.get_title() == "H100\nwall 64, knee 32" and b.get_title() == "B200\nwall 300, no knee"
    assert vertical_at(b) == [300.0]  # the wall only: no knee
    assert a.get_ylabel() and fig.get_suptitle() == "Llama"
    (legend,) = fig.legends
    assert len(legend.get_texts()) == 4
    assert xy(a.get_lines()[0]) == [(1, 100.0), (8, 700.0), (64, 3000.0)]
    assert xy(a.get_lines()[1]) == [(64, 3000.0)]  # the memory wall marker
    # the guides: a vertical line at the wall and one at the knee, and a horizontal ceiling
    assert sorted(vertical_at(a)) == [32, 64]
    assert any(list(ln.get_ydata()) == [5e3, 5e3] for ln in a.get_lines())
    with pytest.raises(ValueError, match="at least one panel"):
        transformer.decode_throughput_figure("d.png", [], "t")
    caught.clear()  # only the next figure
    panels = [transformer.ThroughputPanel("H100", [(1, 100.0), (4, 300.0)], 4, None, 2e4)]
    transformer.decode_throughput_figure("d.png", panels, "t")
    # y: 100 .. the ceiling 2e4 x 1.5 = 3e4 -> 1e5 (the points alone would stop at 1,000).
    assert caught[0].axes[0].get_ylim() == pytest.approx((100.0, 1e5))
    empty = [transformer.ThroughputPanel("tiny", [], 0, None, None, note="too big")]
    transformer.decode_throughput_figure("e.png", empty, "t")
    (ax,) = caught[1].axes
    assert ax.get_ylim() == pytest.approx((1.0, 10.0))  # nothing to show: one decade
    # x: no wall and no knee: at least batch 2, x 1.5 -> 10.
    assert ax.get_xlim() == pytest.approx((1.0, 10.0))
    assert [t.get_text() for t in ax.texts] == ["too big"]
    caught.clear()  # only the next figure
    panels = [
        transformer.ThroughputPanel("a", [(1, 10.0), (8, 80.0)], 8, 4),
        transformer.ThroughputPanel("b", [], 0, None, note="weights do not fit"),
    ]
    transformer.decode_throughput_figure("d.png", panels, "t")
    fig = caught[0]
    first, second = fig.axes
    assert second.yaxis.get_tick_params(which="major")["labelleft"] is False
    assert first.yaxis.get_tick_params(which="major").get("labelleft", True)
    (note,) = second.texts
    assert tuple(note.get_position()) == (0.5, 0.5)  # in the middle of its empty panel
    assert note.get_text() == "weights do not fit" and not second.get_lines()
    assert fig.legends[0]._ncols == 2


def test_capacity_ledger_stack_in_gigabytes_with_wall_and_capacity(caught) -> None:
    def led(b: int) -> MemoryLedger:
        return MemoryLedger(16e9, b * 0.5e9, b * 0.1e9, 1e9)

    transformer.memory_ledger_figure("c.png", [(1, led(1)), (100, led(100))], 80e9, 90, "Cap")
    fig = caught[0]
    (ax,) = fig.axes
    assert len(ax.collections) == 4
    assert ax.get_xlim() == pytest.approx((1.0, 100.0))
    assert ax.get_ylim() == pytest.approx((0.0, max(80e9, led(100).total) / 1e9 * 1.08))  # GB
    assert horizontal_at(ax) == [80.0] and vertical_at(ax) == [90.0]
    assert ax.get_ylabel() == "memory (GB)" and ax.get_title() == "Cap"
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts == ["weights", "KV cache", "activations", "overhead", "capacity 80 GB",
                     "memory wall B = 90"]  # fmt: skip
    with pytest.raises(ValueError, match="at least one batch"):
        transformer.memory_ledger_figure("c.png", [], 80e9, 0, "none")
    caught.clear()  # only the next figure
    ledgers = [(1, led(1)), (50, led(50)), (100, led(100))]
    transformer.memory_ledger_figure("c.png", ledgers, 60e9, 70, "Cap")
    fig = caught[0]
    (ax,) = fig.axes
    # Tops of the stack at B = 100, in GB: weights 16, + KV 50, + activations 10, + 1.
    tops = [max(float(v) for v in p.get_paths()[0].vertices[:, 1]) for p in ax.collections]
    assert tops == pytest.approx([16.0, 66.0, 76.0, 77.0])
    colours = [to_hex(p.get_facecolor()[0]) for p in ax.collections]
    assert colours == [style.SERIES_COLORS[k].lower() for k in (0, 2, 4, 3)]
    assert ax.get_xlim() == pytest.approx((1.0, 100.0))
    # The total (77 GB) above the capacity (60 GB) sets the top, with 8% of room.
    assert ax.get_ylim() == pytest.approx((0.0, 77.0 * 1.08))
    assert fig.legends[0]._ncols == 3


@pytest.mark.parametrize(("wall", "x_hi"), [(64, 100.0), (80, 1000.0), (7, 100.0)])
def test_decode_throughput_batch_axis_leaves_half_again_past_the_wall(caught, wall, x_hi):
    """x runs to the decade above 1.5 x the largest wall or knee: 96 -> 100, 120 -> 1,000,
    10.5 -> 100."""
    panels = [transformer.ThroughputPanel("c", [(1, 10.0), (wall, 100.0)], wall, None)]
    transformer.decode_throughput_figure("d.png", panels, "t")
    assert caught[0].axes[0].get_xlim() == pytest.approx((1.0, x_hi))


def test_the_figure_is_written_and_draws_no_ridge_it_lacks(monkeypatch, tmp_path: Path) -> None:
    kept = capture_figures(monkeypatch)
    monkeypatch.setattr(pplots, "save_figure", style.save_figure)
    cases = [pplots.CaseBars("a", 0.063, 0.045, 0.051)]
    measured, spec = [(1, 1e-4), (64, 1.2e-4)], [(1, 1e-4), (512, 3e-4)]
    curve = pplots.OperatorCurve("mm", measured, spec, [(1, 1.1e-4), (512, 3.4e-4)], 214, None)
    assert Path(pplots.predict_figure(tmp_path / "f.png", cases, curve, "title")).is_file()
    lines = {ln.get_label() for ln in kept[0].axes[1].get_lines()}
    assert "spec ridge n = 214" in lines and not any("achievable ridge" in k for k in lines)


def test_bars_sit_around_their_case_and_the_curve_is_in_ms_on_log_axes(caught) -> None:
    cases = [pplots.CaseBars("a", 0.063, 0.045, 0.051), pplots.CaseBars("b", 0.022, 0.017, 0.019)]
    curve = pplots.OperatorCurve(
        "mm", [(1, 2e-4), (64, 3e-4)], [(1, 1e-4), (512, 3e-4)], [(1, 1.1e-4), (512, 4e-4)], 8, 16
    )
    pplots.predict_figure("f.png", cases, curve, "title")
    top, bottom = caught[0].axes
    bars = top.patches
    width = bars[0].get_width()
    # Three bars per case (measured, spec, achievable), side by side centred on the case.
    centres = [round(b.get_x() + b.get_width() / 2, 9) for b in bars]
    assert centres == [round(i + (j - 1) * width, 9) for j in range(3) for i in range(2)]
    heights = [round(b.get_height(), 9) for b in bars]
    assert heights == [63.0, 22.0, 45.0, 17.0, 51.0, 19.0]  # measured, spec, achievable; ms
    assert [t.get_text() for t in top.get_xticklabels()] == ["a", "b"]
    assert top.get_ylabel() == "time (ms)" and top.get_title() == "title"
    assert bottom.get_xscale() == "log" and bottom.get_yscale() == "log"
    lines = {ln.get_label(): ln for ln in bottom.get_lines()}
    assert list(lines["predicted at spec peaks"].get_ydata()) == pytest.approx([0.1, 0.3])
    assert list(lines["predicted at achievable roofs"].get_ydata()) == pytest.approx([0.11, 0.4])
    assert list(lines["measured"].get_ydata()) == pytest.approx([0.2, 0.3])
    ridges = {k: float(ln.get_xdata()[0]) for k, ln in lines.items() if "ridge" in k}
    assert ridges == {"spec ridge n = 8": 8.0, "achievable ridge n = 16": 16.0}
    assert bottom.get_ylabel() == "time (ms)" and bottom.get_title() == "mm"
    for ax in (top, bottom):
        assert not ax.spines["top"].get_visible() and not ax.spines["right"].get_visible()


def test_ticks_stay_plain_at_a_million_sequences_and_a_hundred_thousandth_of_a_dollar(
    caught,
) -> None:
    # lecture 14 --price 0.01 with an H100 x1000: walls past 10**5 sequences and costs
    # below $0.0001 once labelled '1e+06' and '$1e-05'
    points = [(1, 2e-3), (10**3, 3e-5), (2**20, 2e-6)]
    serving.cost_figure("c.png", [serving.CostCurve("model", points)], 64, "cost")
    (ax,) = caught[0].axes
    ax.figure.canvas.draw()  # the tick labels are made when the figure is drawn
    xs, ys = ({float(f"{v:.6g}"): t for v, t in ticks(ax, axis)} for axis in "xy")
    assert xs[1e6] == "1,000,000" and xs[1e3] == "1,000" and xs[1.0] == "1"
    assert ys[1e-5] == "$0.00001" and ys[1e-3] == "$0.001"
    assert not [t for t in [*xs.values(), *ys.values()] if "e" in t]
