"""Matplotlib figures for the lectures: one house style, atomic PNG output.

matplotlib is imported inside the functions, so importing this module never
fails; ``matplotlib_available()`` tells a lecture whether it can draw. Figures
use the object-oriented API (``matplotlib.figure.Figure``), never pyplot, so no
display or global state is involved and files are the only output.
"""

from __future__ import annotations

import importlib.util
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common.fileio import atomic_write_with, writable_dir

# Colours shared by every figure (colour-blind-safe Okabe-Ito palette).
MEMORY_COLOR = "#D55E00"  # memory-bound points and bandwidth roofs
COMPUTE_COLOR = "#0072B2"  # compute-bound points and compute roofs
ACCENT_COLOR = "#009E73"  # a good outcome, a second series
NEUTRAL_COLOR = "#7F7F7F"  # guides: ridge lines, budgets
SERIES_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")

MAX_WIDTH_IN = 7.2  # figures no wider than the docs' text column
DPI = 150


def matplotlib_available() -> bool:
    """True when matplotlib can be imported."""
    return importlib.util.find_spec("matplotlib") is not None


def require_matplotlib() -> None:
    """Raise ImportError with an install hint when matplotlib is missing."""
    if not matplotlib_available():
        raise ImportError("matplotlib is not installed (pip install matplotlib)")


def new_figure(width: float = MAX_WIDTH_IN, height: float = 4.5, ncols: int = 1) -> tuple[Any, Any]:
    """A Figure and its axes (one, or a row of `ncols`), in the house style."""
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(min(width, MAX_WIDTH_IN), height), dpi=DPI, layout="constrained")
    axes = fig.subplots(1, ncols)
    for ax in [axes] if ncols == 1 else list(axes):
        ax.grid(True, which="major", alpha=0.3, linestyle=":")
        ax.spines["top"].set_visible(False)
        ax.spines["right"].set_visible(False)
    return fig, axes


def save_figure(fig: Any, path: str | os.PathLike[str]) -> str:
    """Write `fig` as a PNG atomically (a failed save keeps the old file); return the path."""
    target = Path(path)
    writable_dir(target.parent, "figure folder")
    atomic_write_with(target, lambda handle: fig.savefig(handle, format="png", dpi=DPI))
    return str(target)


def log_range(lo: float, hi: float, n: int = 400) -> list[float]:
    """n points spaced evenly in log10 between lo and hi."""
    a, b = math.log10(lo), math.log10(hi)
    return [10 ** (a + (b - a) * i / (n - 1)) for i in range(n)]


def roofline_figure(
    path: str | os.PathLike[str],
    curves: Sequence[tuple[str, float, float]],
    points: Sequence[tuple[str, float, float]],
    title: str = "Roofline",
    xlim: tuple[float, float] | None = None,
) -> str:
    """Rooflines min(P, I beta) for each (label, P, beta) and named points (label, I, FLOP/s)."""
    from common.roofline import attainable_flops

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
