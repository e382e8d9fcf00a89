"""Figures tested by the data they plot: the lines, markers and bars matplotlib holds.

Each figure function is run with ``save_figure`` replaced by a catcher, so the test
reads the Figure object itself and checks every plotted series against values worked
out here (the roof min(P, I beta), the ledger terms, the speedups ...), not PNG bytes.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from plots.figure_parts import line, xy

from common.plots import article, style, transformer
from common.plots import hierarchy as hplots
from common.plots import roofline as rplots
from common.tables.assumptions import ARTICLE_7B

GIB, GB = 2**30, 1e9


def roof(i: float, peak: float, bw: float) -> float:
    return min(peak, i * bw)


def test_roofline_figure_draws_both_roofs_and_the_points(caught) -> None:
    rplots.roofline_figure("r.png", [("H100", 989e12, 3.35e12)], [("matvec", 1.0, 3.35e12)])
    (ax,) = caught[0].axes
    curve = line(ax, "H100 (I* = 295)")
    pts = xy(curve)
    assert all(y == pytest.approx(roof(x, 989e12, 3.35e12)) for x, y in pts)
    assert max(y for _, y in pts) == pytest.approx(989e12)  # the compute roof is there
    assert min(x for x, _ in pts) < 1 < 295 < max(x for x, _ in pts)
    markers = [xy(ln)[0] for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert (989e12 / 3.35e12, 989e12) in markers and (1.0, 3.35e12) in markers
    assert [t.get_text() for t in ax.texts] == ["matvec"]


def test_local_roofline_by_data(caught) -> None:
    points = [
        article.MeasuredPoint("add", 1 / 12, 5e9, "memory"),
        article.MeasuredPoint("gemm", 300.0, 900e9, "compute"),
    ]
    article.local_roofline_figure("l.png", 1000e9, 50e9, points)
    ax = caught[0].axes[0]
    roof_line = next(ln for ln in ax.get_lines() if ln.get_color() == "black")
    assert all(y == pytest.approx(roof(x, 1000e9, 50e9) / 1e9) for x, y in xy(roof_line))
    assert max(y for _, y in xy(roof_line)) == pytest.approx(1000)  # GFLOP/s
    dots = {ln.get_label(): (xy(ln)[0], ln.get_color()) for ln in ax.get_lines() if xy(ln)}
    assert dots["1  add"] == ((1 / 12, 5.0), style.MEMORY_COLOR)
    assert dots["2  gemm"] == ((300.0, 900.0), style.COMPUTE_COLOR)
    ridge = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert [float(ln.get_xdata()[0]) for ln in ridge] == [20.0]  # I* = 1000 / 50
    texts = [t.get_text() for t in ax.texts]
    assert "P = 1,000 GFLOP/s" in texts and "I* = 20.0" in texts and "beta = 50.0 GB/s" in texts


def test_batch_sweep_by_data(caught) -> None:
    rows = [
        {"B": 1, "latency_s": 2e-3, "t_pred_s": 1e-3, "throughput_per_s": 500.0},
        {"B": 4, "latency_s": 3e-3, "t_pred_s": 1.5e-3, "throughput_per_s": 4 / 3e-3},
        {"B": 16, "latency_s": 8e-3, "t_pred_s": 4e-3, "throughput_per_s": 2000.0, "anomaly": 1},
    ]
    article.batch_sweep_figure("b.png", rows, (1, 4))
    lat, tp = caught[0].axes[:2]
    assert xy(line(lat, "measured")) == [(1, 2.0), (4, 3.0), (16, 8.0)]  # ms
    assert xy(line(lat, "roofline")) == [(1, 1.0), (4, 1.5), (16, 4.0)]
    assert xy(line(tp, "measured")) == [(1, 500.0), (4, pytest.approx(4 / 3e-3)), (16, 2000.0)]
    predicted = [(1, 1 / 1e-3), (4, 4 / 1.5e-3), (16, 16 / 4e-3)]  # B / t_pred, not t / B
    assert xy(line(tp, "roofline")) == [(b, pytest.approx(t)) for b, t in predicted]
    assert xy(line(lat, "anomaly")) == [(16, 8.0)]
    spans = [p for p in lat.patches if p.get_alpha() == 0.15]
    assert len(spans) == 1


def test_memory_ledger_stack_by_data(caught) -> None:
    batches = (1, 24)
    article.memory_ledger_figure("m.png", ARTICLE_7B, batches, 0.30, 0.04, 78 * GIB)
    ax, ax2 = caught[0].axes[:2]
    # Hand ledger (article, section 4.3): weights 14e9 B; KV 2 GiB per sequence; 0.5 GiB
    # of activations per sequence; overhead = rate x the three.
    w, kv, act = 14e9 / GIB, 2.0, 0.5
    terms = {
        "weights": [w, w],
        "KV cache": [kv, 24 * kv],
        "activations": [act, 24 * act],
        "overhead": [0.3 * (w + kv + act), 0.3 * (w + 24 * (kv + act))],
    }
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
    assert "OOM" in [t.get_text() for t in ax.texts]


def test_speedup_curves_by_data(caught) -> None:
    article.speedup_figure("s.png")
    (ax,) = caught[0].axes
    for label, which in (("2x compute", 0), ("2x bandwidth", 1)):
        for r, s in xy(line(ax, label)):
            t = max(r, 1.0)  # T = max(F / P, D / beta) with D = beta = P = 1, F = r
            by_hand = t / max(r / 2, 1.0) if which == 0 else t / max(r, 0.5)
            assert s == pytest.approx(by_hand), (label, r)
    assert min(x for x, _ in xy(line(ax, "2x compute"))) == pytest.approx(0.05)


def test_bandwidth_sweep_by_data(caught) -> None:
    sizes = [4096.0 * 2**k for k in range(10)]
    measured = [100e9 if s < 2**16 else 20e9 for s in sizes]
    corrected = [None, *[m * 1.1 for m in measured[1:]]]
    hplots.bandwidth_sweep_figure(
        "h.png",
        sizes,
        measured,
        corrected,
        [("L1d", 32768)],
        [("L1", 4096.0, 32768.0, 100e9), ("DRAM", 2**17, math.inf, 20e9)],
        call_cost_limit=8192,
    )
    (ax,) = caught[0].axes
    assert xy(line(ax, "measured per call")) == [
        (s, m / GB) for s, m in zip(sizes, measured, strict=True)
    ]
    assert xy(line(ax, "per-call cost removed")) == [
        (s, pytest.approx(c / GB)) for s, c in zip(sizes[1:], corrected[1:], strict=True)
    ]
    flats = [xy(ln) for ln in ax.get_lines() if ln.get_linewidth() == 4]
    hi = max(sizes) * 1.3
    assert flats == [[(4096.0, 100.0), (32768.0, 100.0)], [(2**17, 20.0), (hi, 20.0)]]
    caches = [float(ln.get_xdata()[0]) for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert caches == [32768.0]
    labels = [t.get_text() for t in ax.texts]
    assert "L1 100 GB/s" in labels and "DRAM 20 GB/s" in labels


def test_hierarchical_roofline_by_data(caught) -> None:
    roofs = [("L1", 200e9), ("DRAM", 20e9)]
    ops = [("add, L1", 1 / 12, 15e9, "L1"), ("matmul", 100.0, 120e9, "")]
    hplots.hierarchical_roofline_figure("hr.png", roofs, 150e9, ops, [("DRAM, 8 thr", 60e9)])
    (ax,) = caught[0].axes
    for label, bw in (("L1 roof, 1 thread: 200.0 GB/s", 200e9), ("DRAM, 8 thr: 60.0 GB/s", 60e9)):
        for x, y in xy(line(ax, label)):
            assert y == pytest.approx(min(150e9, x * bw) / GB)
    assert all(y <= 150 for _, y in xy(line(ax, "DRAM roof, 1 thread: 20.0 GB/s")))
    points = [ln for ln in ax.get_lines() if ln.get_marker() not in ("None", None, "")]
    assert [xy(p) for p in points] == [[(1 / 12, 15.0)], [(100, 120)]]  # labelled in place
    assert [t.get_text() for t in ax.texts] == ["add, L1", "matmul"]
    assert points[0].get_markeredgecolor() == hplots.level_color("L1", ["L1", "DRAM"])
    assert any(xy(ln) == [(0, 150.0), (1, 150.0)] for ln in ax.get_lines())  # compute roof


def test_decode_throughput_by_data(caught) -> None:
    panels = [
        transformer.ThroughputPanel("H100", [(1, 100.0), (8, 700.0), (64, 3000.0)], 64, 32, 5e3),
        transformer.ThroughputPanel("small", [], 0, None, None, note="weights do not fit"),
    ]
    transformer.decode_throughput_figure("d.png", panels, "title")
    ax, ax2 = caught[0].axes
    assert xy(ax.get_lines()[0]) == [(1, 100.0), (8, 700.0), (64, 3000.0)]
    assert xy(ax.get_lines()[1]) == [(64, 3000.0)]  # the memory wall marker
    # The legend sits below the panels; the guides are a vertical line at the wall and
    # one at the knee (axes coordinates 0..1 in y) and a horizontal ceiling.
    verticals = [ln for ln in ax.get_lines() if list(ln.get_ydata()) == [0, 1]]
    assert sorted(float(ln.get_xdata()[0]) for ln in verticals) == [32, 64]
    assert any(list(ln.get_ydata()) == [5e3, 5e3] for ln in ax.get_lines())
    assert [t.get_text() for t in ax2.texts] == ["weights do not fit"] and not ax2.get_lines()
    with pytest.raises(ValueError, match="at least one panel"):
        transformer.decode_throughput_figure("d.png", [], "t")


def test_level_colors_and_log_range() -> None:
    assert hplots.level_color("L2", ["L1", "L2"]) == style.SERIES_COLORS[1]
    assert hplots.level_color("L9", ["L1"]) == style.SERIES_COLORS[1]
    xs = style.log_range(1.0, 1000.0, 4)
    assert xs == pytest.approx([1.0, 10.0, 100.0, 1000.0])


def test_a_figure_is_written_atomically(tmp_path) -> None:
    path = rplots.roofline_figure(tmp_path / "r.png", [("A", 1e12, 1e9)], [("p", 1.0, 1e9)])
    assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.png"]
