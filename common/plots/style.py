"""Matplotlib figures for the lectures: one house style, atomic PNG output."""

from __future__ import annotations

import functools
import inspect
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from common.files.atomic import atomic_write_with, writable_dir
from common.present.console import fmt_bytes
from common.shell import sink
from common.shell.cli import matplotlib_available

Draw = TypeVar("Draw", bound=Callable[..., str])

# Colours shared by every figure (colour-blind-safe Okabe-Ito palette).
MEMORY_COLOR = "#D55E00"  # memory-bound points and bandwidth roofs
COMPUTE_COLOR = "#0072B2"  # compute-bound points and compute roofs
ACCENT_COLOR = "#009E73"  # a good outcome, a second series
NEUTRAL_COLOR = "#7F7F7F"  # guides: ridge lines, budgets
SERIES_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")

# A label's white box, drawn over the lines: a curve that must cross the label passes behind it.
OVER = {"bbox": {"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.9},
        "zorder": 6}  # fmt: skip

MAX_WIDTH_IN = 7.2  # figures no wider than the docs' text column
DPI = 150


def figure(draw: Draw) -> Draw:
    """Mark a figure function (its first argument the PNG's path): when a host takes the
    figures (``common.shell.sink``), it gets the function's name and arguments instead."""
    signature = inspect.signature(draw)
    name = f"{draw.__module__}.{draw.__qualname__}"

    @functools.wraps(draw)
    def routed(*args: Any, **kwargs: Any) -> str:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        if sink.hand(name, dict(bound.arguments)):
            return str(next(iter(bound.arguments.values())))
        return draw(*args, **kwargs)

    return routed  # type: ignore[return-value]


def require_matplotlib() -> None:
    """Raise ImportError with an install hint when matplotlib is missing."""
    if not matplotlib_available():
        raise ImportError("matplotlib is not installed (pip install matplotlib)")


def new_figure(
    width: float = MAX_WIDTH_IN, height: float = 4.5, ncols: int = 1, nrows: int = 1
) -> tuple[Any, Any]:
    """A Figure and its axes (one, or a grid of `nrows` x `ncols`), in the house style."""
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(min(width, MAX_WIDTH_IN), height), dpi=DPI, layout="constrained")
    axes = fig.subplots(nrows, ncols)
    for ax in fig.get_axes():
        ax.grid(True, which="major", alpha=0.3, linestyle=":")
        ax.spines[["top", "right"]].set_visible(False)
    return fig, axes


def legend_below(fig: Any, handles: Sequence[Any] | None = None, **style: Any) -> None:
    """One frameless legend under the axes: `handles`, or every labelled artist's."""
    given = {} if handles is None else {"handles": list(handles)}
    look = {"ncols": 1, "fontsize": 9, "frameon": False} | style  # one column, 9 pt by default
    fig.legend(**given, loc="outside lower center", **look)


def line_handle(color: str | None, linestyle: str, label: str, marker: str = "") -> Any:
    """A legend entry for a line style, drawn on no axes."""
    from matplotlib.lines import Line2D

    return Line2D([], [], color=color, linestyle=linestyle, marker=marker, label=label)


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


def binary_ticks(ax: Any, lo: float, hi: float) -> None:
    """Ticks at powers of 4 bytes from lo to hi with KiB/MiB/GiB labels (a log2 x axis)."""
    ticks = [4.0**k for k in range(math.floor(math.log(lo, 4)), math.ceil(math.log(hi, 4)) + 1)]
    ticks = [t for t in ticks if lo <= t <= hi]
    ax.set_xticks(ticks, [fmt_bytes(t, binary=True, digits=0) for t in ticks])
    ax.minorticks_off()


def labelled_band(
    ax: Any, lo: float, hi: float, text: str, alpha: float, y: float, **style: Any
) -> None:
    """Shade lo <= x <= hi in grey with `text` at its top, centred on a log x axis."""
    ax.axvspan(lo, hi, color=NEUTRAL_COLOR, alpha=alpha, lw=0)
    middle = math.sqrt(lo * hi)
    ax.text(middle, y, text, transform=ax.get_xaxis_transform(), ha="center", va="top", **style)
