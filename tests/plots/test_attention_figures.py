"""Lecture 10's figures by the data matplotlib holds: traffic in MB (bytes / 1e6) on log axes,
ridge levels at F / I*, the chips' memories, ticks every factor of 4, the kernel times."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

from plots.figure_parts import horizontal_at, line, ticks, vertical_at, xy

from common.plots import attention, style

KIB = 1024.0


def test_traffic_figure_by_its_data_and_axes(caught) -> None:
    m = [4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB]
    d = [800e6, 200e6, 50e6, 10e6]  # bytes, falling as M grows
    # A100 ridge 200 FLOP/B is reached at D = F / 200 = 20 MB (first M below it: 256 KiB);
    # a ridge of 1000 (D = 4 MB) is never reached.
    chips = [("A100", 164 * KIB), ("H100", 228 * KIB)]
    ridges = [("A100", 200.0, 256 * KIB), ("X", 1000.0, None)]
    attention.traffic_figure("t.png", m, d, 400e6, 8e6, 4e9, chips, ridges, "One head")
    (fig,) = caught
    assert len(fig.axes) == 1, "no second axis: intensity F / D would run downwards"
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_xlim() == pytest.approx((4 * KIB, 256 * KIB))
    tiled = line(ax, "tiled (FlashAttention-2 loops)")
    assert xy(tiled) == [(x, y / 1e6) for x, y in zip(m, d, strict=True)]  # MB
    assert tiled.get_drawstyle() == "steps-post"
    assert "MB" in ax.get_ylabel() and "M_sm" in ax.get_xlabel()
    assert ax.get_title() == "One head"
    # the naive and ideal levels, and the ridges
    assert float(line(ax, "naive: S, P in HBM").get_ydata()[0]) == pytest.approx(400.0)
    assert float(line(ax, "ideal minimum").get_ydata()[0]) == pytest.approx(8.0)
    # Ridges at F / I* in MB: 4e9 / 200 = 20 MB and 4e9 / 1000 = 4 MB.
    assert sorted(horizontal_at(ax)) == pytest.approx([4.0, 8.0, 20.0, 400.0])
    labels = [t.get_text() for t in ax.texts]
    assert " I = 200 FLOP/B: A100 ridge" in labels and " I = 1000 FLOP/B: X ridge" in labels
    dots = [xy(ln) for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert dots == [[(256 * KIB, pytest.approx(20.0))]]  # only the ridge that is reached
    assert vertical_at(ax) == pytest.approx([164 * KIB, 228 * KIB])
    assert " A100\n 164 KiB" in labels and " H100\n 228 KiB" in labels
    # Each chip's line and label in one colour of its own, after the curves' colours;
    # the labels stack downwards (axes fraction) so that neighbours do not overlap.
    chips = [ln for ln in ax.get_lines() if list(ln.get_ydata()) == [0, 1]]
    chip_labels = [t for t in ax.texts if "KiB" in t.get_text()]
    assert [ln.get_color() for ln in chips] == [style.SERIES_COLORS[3], style.SERIES_COLORS[4]]
    assert [t.get_color() for t in chip_labels] == [ln.get_color() for ln in chips]
    assert [t.get_position()[1] for t in chip_labels] == pytest.approx([0.68, 0.59])
    # ticks every factor of four in binary units
    assert ticks(ax, "x") == [(4 * KIB, "4 KiB"), (16 * KIB, "16 KiB"), (64 * KIB, "64 KiB"),
                              (256 * KIB, "256 KiB")]  # fmt: skip
    attention.traffic_figure("n.png", [5 * KIB, 100 * KIB], [1e6, 1e6], 1e6, 1e6, 1e9, [], [], "t")
    assert [float(t) for t in caught[-1].axes[0].get_xticks()] == [16 * KIB, 64 * KIB]


def test_kernel_times_by_data(caught) -> None:
    ns = [256, 1024, 4096]
    times = [[1e-3, 2e-2, 5e-1], [2e-3, 1e-2, 1e-1], [1e-4, 1e-3, 1e-2], [5e-4, 1e-2, 2e-1],
             [1e-4, 1e-3, 5e-3]]  # naive, tiled, F / P, D / beta naive and tiled  # fmt: skip
    attention.kernel_times_figure("k.png", ns, *times, 1500.0, "Both kernels")
    (fig,) = caught
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert xy(line(ax, "naive, measured")) == [(256, 1e-3), (1024, 2e-2), (4096, 5e-1)]
    assert xy(line(ax, "tiled, measured")) == [(256, 2e-3), (1024, 1e-2), (4096, 1e-1)]
    assert [y for _, y in xy(line(ax, "F / P (both kernels)"))] == [1e-4, 1e-3, 1e-2]
    assert [y for _, y in xy(line(ax, "D / beta, naive"))] == [5e-4, 1e-2, 2e-1]
    assert [y for _, y in xy(line(ax, "D / beta, tiled"))] == [1e-4, 1e-3, 5e-3]
    assert line(ax, "naive, measured").get_color() == style.MEMORY_COLOR
    assert line(ax, "tiled, measured").get_color() == style.COMPUTE_COLOR
    assert vertical_at(ax) == [1500.0]
    assert ticks(ax, "x") == [(256, "256"), (1024, "1,024"), (4096, "4,096")]
    assert "seconds" in ax.get_ylabel() and ax.get_xlabel() == "sequence length N"
    assert ax.get_title() == "Both kernels"
    (legend,) = fig.legends
    assert len(legend.get_texts()) == 5 and legend._ncols == 3
    (cache,) = ax.texts
    assert cache.get_position() == pytest.approx((1500.0, 0.03))  # at the foot of its line


@pytest.mark.parametrize("llc", [None, 100.0, 10_000.0, 256.0, 4096.0])
def test_the_cache_line_is_drawn_only_inside_the_measured_range(llc, caught) -> None:
    ns = [256, 4096]
    t = [1e-3, 1e-2]
    attention.kernel_times_figure("k.png", ns, t, t, t, t, t, llc, "t", xlabel="N")
    (ax,) = caught[0].axes
    inside = llc is not None and 256 <= llc <= 4096
    assert vertical_at(ax) == ([llc] if inside else [])
    assert bool(ax.texts) == inside and ax.get_xlabel() == "N"
