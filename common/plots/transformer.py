"""Figures for lectures 07 and 08: the capacity ledger against batch, decode throughput per chip."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import NamedTuple

from common.formulas.ledger import MemoryLedger
from common.plots import style
from common.plots.style import MEMORY_COLOR, NEUTRAL_COLOR, SERIES_COLORS, line_handle, save_figure


class ThroughputPanel(NamedTuple):
    """One chip's curve: (batch, tokens/s) points up to the memory wall, and the compute knee."""

    label: str
    points: Sequence[tuple[int, float]]
    memory_wall: int  # largest batch that fits; 0 when the weights alone do not fit
    knee: int | None  # batch at which decode's weight matmuls turn compute-bound
    ceiling: float | None = None  # tokens/s no batch can beat (bandwidth / KV per sequence)
    note: str = ""  # shown in the panel when there is no curve


@style.figure
def decode_throughput_figure(
    path: str | os.PathLike[str], panels: Sequence[ThroughputPanel], title: str
) -> str:
    """Log-log tokens/s against batch per chip, memory wall and compute knee marked; PNG path."""
    if not panels:
        raise ValueError("need at least one panel to draw")
    fig, axes = style.new_figure(height=4.4, ncols=len(panels))
    axes = [axes] if len(panels) == 1 else list(axes)
    ys = [y for p in panels for _, y in p.points] + [p.ceiling for p in panels if p.ceiling]
    xs_max = [max([p.memory_wall, p.knee or 0, 2]) for p in panels]
    x_hi = 10 ** math.ceil(math.log10(max(xs_max) * 1.5))
    y_lo = 10 ** math.floor(math.log10(min(ys))) if ys else 1.0
    y_hi = 10 ** math.ceil(math.log10(max(ys) * 1.5)) if ys else 10.0
    for ax, panel in zip(axes, panels, strict=True):
        ax.set(xscale="log", yscale="log", xlim=(1, x_hi), ylim=(y_lo, y_hi))
        ax.minorticks_off()  # decades suffice; log minor tick labels cost most of the draw time
        knee = f"knee {panel.knee:,}" if panel.knee is not None else "no knee"
        ax.set_title(f"{panel.label}\nwall {panel.memory_wall:,}, {knee}", fontsize=10)
        ax.set_xlabel("batch (sequences)", fontsize=9.5)
        ax.tick_params(labelsize=8.5)
        if panel.points:
            ax.plot(*zip(*panel.points, strict=True), color=style.ACCENT_COLOR, linewidth=2)
            wall_b, wall_t = panel.points[-1]
            ax.plot([wall_b], [wall_t], marker="s", color=MEMORY_COLOR, markersize=6, zorder=5)
            ax.axvline(wall_b, color=MEMORY_COLOR, linewidth=1, alpha=0.7)
        else:
            look = {"ha": "center", "va": "center", "fontsize": 9.5, "color": MEMORY_COLOR}
            ax.text(
                0.5, 0.5, panel.note or "does not fit", transform=ax.transAxes, wrap=True, **look
            )
        if panel.knee is not None:
            ax.axvline(panel.knee, color=style.COMPUTE_COLOR, linewidth=1, linestyle="--")
        if panel.ceiling:
            ax.axhline(panel.ceiling, color=NEUTRAL_COLOR, linewidth=1, linestyle=":")
        ax.grid(True, which="major", alpha=0.3, linestyle=":", color=NEUTRAL_COLOR)
    axes[0].set_ylabel("decode tokens/s (upper bound)", fontsize=9.5)
    for ax in axes[1:]:
        ax.tick_params(labelleft=False)
    fig.suptitle(title, fontsize=10.5)
    key = [
        line_handle(style.ACCENT_COLOR, "-", "tokens/s bound"),
        line_handle(MEMORY_COLOR, "-", "memory wall (largest batch that fits)", marker="s"),
        line_handle(style.COMPUTE_COLOR, "--", "compute knee (weight matmuls compute-bound)"),
        line_handle(NEUTRAL_COLOR, ":", "bandwidth / KV cache per sequence")]  # fmt: skip
    style.legend_below(fig, key, ncols=2, handlelength=2.2)
    return save_figure(fig, path)


@style.figure
def memory_ledger_figure(path: str | os.PathLike[str], ledgers: Sequence[tuple[int, MemoryLedger]],
                         capacity: float, wall: int, title: str) -> str:  # fmt: skip
    """The four ledger terms stacked against batch (GB), the chip's capacity and the wall."""
    if not ledgers:
        raise ValueError("need at least one batch to draw")
    fig, ax = style.new_figure(height=4.0)
    xs = [b for b, _ in ledgers]
    terms = ("weights", "kv_cache", "activations", "overhead")
    names = ("weights", "KV cache", "activations", "overhead")
    stacks = [[getattr(led, t) / 1e9 for _, led in ledgers] for t in terms]
    colors = (SERIES_COLORS[0], SERIES_COLORS[2], SERIES_COLORS[4], SERIES_COLORS[3])
    ax.stackplot(xs, stacks, labels=names, colors=colors, alpha=0.85, linewidth=0)
    ax.axhline(capacity / 1e9, color="black", linestyle="--", linewidth=1.2)
    handles = ax.get_legend_handles_labels()[0]  # the four terms, then the capacity line
    handles.append(line_handle("black", "--", f"capacity {capacity / 1e9:.0f} GB"))
    if wall:
        ax.axvline(wall, color=MEMORY_COLOR, linewidth=1.2)
        handles.append(line_handle(MEMORY_COLOR, "-", f"memory wall B = {wall:,}"))
    top = max(capacity, max(led.total for _, led in ledgers)) / 1e9
    ax.set(xlim=(xs[0], xs[-1]), ylim=(0, top * 1.08))
    ax.set(xlabel="batch (sequences)", ylabel="memory (GB)")
    ax.set_title(title, fontsize=10.5)
    style.legend_below(fig, handles, ncols=3, handlelength=2.2)
    return save_figure(fig, path)


@style.figure
def moe_throughput_figure(path: str | os.PathLike[str],
                          curves: dict[str, Sequence[tuple[int, float]]],
                          knees: tuple[int | None, int | None], batch: int,
                          title: str) -> str:  # fmt: skip
    """Tokens/s per GPU against batch (log-log), critical and chosen batches marked; PNG path."""
    from common.plots.article import log_ticks

    fig, ax = style.new_figure(height=4.2)
    ax.set(xscale="log", yscale="log")
    styles = [(style.COMPUTE_COLOR, "-"), (style.ACCENT_COLOR, "-"), (MEMORY_COLOR, "--")]
    handles = []
    for (label, points), (color, ls) in zip(curves.items(), styles, strict=False):
        ax.plot(*zip(*points, strict=True), color=color, ls=ls, lw=2)
        at = min(points, key=lambda p: abs(math.log(p[0] / batch)))
        ax.plot([at[0]], [at[1]], marker="o", color=color, ms=5, zorder=5)
        handles.append(line_handle(color, ls, label))
    for knee, (color, _), name in zip(knees, styles, ("experts", "twin"), strict=False):
        if knee is not None:
            ax.axvline(knee, color=color, lw=1, ls=":")
            handles.append(line_handle(color, ":", f"{name} compute-bound from batch {knee:,}"))
    ax.axvline(batch, color=NEUTRAL_COLOR, lw=1, alpha=0.6)
    handles.append(line_handle(NEUTRAL_COLOR, "-", f"--batch {batch:,}", marker="o"))
    xs = [b for pts in curves.values() for b, _ in pts]
    ys = [t for pts in curves.values() for _, t in pts]
    log_ticks(ax, "x", min(xs), max(xs))
    log_ticks(ax, "y", min(ys), max(ys) * 1.5)
    ax.set_xlabel("batch (tokens a decode step serves)", fontsize=9.5)
    ax.set_ylabel("decode tokens/s per GPU (upper bound)", fontsize=9.5)
    ax.tick_params(labelsize=8.5)
    ax.set_title(title, fontsize=10.5)
    style.legend_below(fig, handles, ncols=2, handlelength=2.2)
    return save_figure(fig, path)
