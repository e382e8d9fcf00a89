"""Lecture 14's figure: dollars per million output tokens against the decode batch."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from common.plots.article import _plain
from common.plots.style import NEUTRAL_COLOR, SERIES_COLORS, figure, new_figure, save_figure


class CostCurve(NamedTuple):
    """One model's (batch, $/M output tokens) points, up to its memory wall."""

    label: str
    points: Sequence[tuple[int, float]]


@figure
def cost_figure(
    path: str | os.PathLike[str], curves: Sequence[CostCurve], batch: int, title: str
) -> str:
    """Log-log $/M output tokens against batch per model, each wall marked; the PNG's path."""
    if not curves:
        raise ValueError("need at least one curve to draw")
    fig, ax = new_figure(height=4.2)
    ax.set(xscale="log", yscale="log")
    for curve, color in zip(curves, SERIES_COLORS, strict=False):
        xs = [b for b, _ in curve.points]
        ys = [usd for _, usd in curve.points]
        ax.plot(xs, ys, color=color, linewidth=2, label=curve.label)
        ax.plot(xs[-1:], ys[-1:], marker="s", color=color, markersize=6, zorder=5)
        ax.annotate(f"wall {xs[-1]:,}", (xs[-1], ys[-1]), textcoords="offset points",
                    xytext=(4, 6), fontsize=8.5, color=color)  # fmt: skip
    ax.axvline(batch, color=NEUTRAL_COLOR, linewidth=1, linestyle="--", label=f"batch {batch:,}")
    ax.xaxis.set_major_formatter(lambda x, _: _plain(x))  # plain numbers, never 1e+06
    ax.yaxis.set_major_formatter(lambda y, _: f"${_plain(y)}")  # $0.00001, not $1e-05
    ax.set_xlabel("decode batch (sequences)", fontsize=9.5)
    ax.set_ylabel("$ per million output tokens (lower bound)", fontsize=9.5)
    ax.tick_params(labelsize=8.5)
    ax.set_title(title, fontsize=10.5)
    ax.legend(fontsize=9, frameon=False, loc="upper right")
    return save_figure(fig, path)
