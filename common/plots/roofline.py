"""The roofline figure: rooflines of several chips and named points, as a PNG.

matplotlib is imported only when a figure is drawn (through ``common.plots.style``),
so ``save_roofline_png`` can tell a lecture on a bare ``python3`` that it skipped.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import NamedTuple

from common.formulas.roofline import attainable_flops
from common.formulas.validate import positive
from common.plots.style import (
    SERIES_COLORS,
    log_range,
    matplotlib_available,
    new_figure,
    save_figure,
)


def roofline_figure(
    path: str | os.PathLike[str],
    curves: Sequence[tuple[str, float, float]],
    points: Sequence[tuple[str, float, float]],
    title: str = "Roofline",
    xlim: tuple[float, float] | None = None,
) -> str:
    """Rooflines min(P, I beta) for each (label, P, beta) and named points (label, I, FLOP/s)."""
    fig, ax = new_figure(height=4.8)
    intensities = [p[1] for p in points] + [peak / bw for _, peak, bw in curves]
    lo = xlim[0] if xlim else 10 ** math.floor(math.log10(max(min(intensities) / 3, 1e-3)))
    hi = xlim[1] if xlim else 10 ** math.ceil(math.log10(max(intensities) * 3))
    xs = log_range(lo, hi)
    for (label, peak, bw), color in zip(curves, SERIES_COLORS, strict=False):
        ys = [attainable_flops(x, peak, bw) for x in xs]
        ax.plot(xs, ys, color=color, linewidth=2, label=f"{label} (I* = {peak / bw:.0f})")
        ax.plot([peak / bw], [peak], marker="o", color=color, markersize=4)
    for i, (label, x, y) in enumerate(points):
        ax.plot([x], [y], marker="o", color="black", markersize=5, zorder=5)
        ax.annotate(
            label,
            (x, y),
            textcoords="offset points",
            xytext=(6, -12 if i % 2 else 4),
            fontsize=7.5,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity I (FLOP/byte)")
    ax.set_ylabel("attainable FLOP/s")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    return save_figure(fig, path)


class PngResult(NamedTuple):
    """Outcome of a PNG request: the path written, or why nothing was written."""

    path: str | None
    reason: str

    def __bool__(self) -> bool:
        return self.path is not None


def save_roofline_png(
    path: str,
    curves: Sequence[tuple[str, float, float]],
    points: Sequence[tuple[str, float, float]],
    title: str = "Roofline",
) -> PngResult:
    """Draw rooflines (label, peak, bw) and named points (label, I, FLOP/s) to a PNG at `path`."""
    for label, peak, bw in curves:
        positive(peak, f"{label} peak FLOP/s")
        positive(bw, f"{label} bandwidth")
    if not matplotlib_available():
        return PngResult(None, "matplotlib is not installed; PNG skipped (pip install matplotlib)")
    written = roofline_figure(path, curves, points, title=title)
    return PngResult(written, "saved")
