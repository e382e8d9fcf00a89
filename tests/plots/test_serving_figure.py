"""Lecture 14's cost figure: plain tick labels at any batch and any price, written by hand."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

from plots.figure_parts import ticks

from common.plots import serving


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
