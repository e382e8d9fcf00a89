"""Figures for lecture 06: decode throughput bound against batch, one panel per chip.

Drawing only: the numbers come from ``common.transformer``. matplotlib is reached
through ``common.plotting`` (object-oriented Figure, atomic PNG), so importing this
module never fails without matplotlib.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import NamedTuple

from common.plots.style import (
    ACCENT_COLOR,
    COMPUTE_COLOR,
    MEMORY_COLOR,
    NEUTRAL_COLOR,
    new_figure,
    save_figure,
)


class ThroughputPanel(NamedTuple):
    """One chip's curve: (batch, tokens/s) points up to the memory wall, and the compute knee."""

    label: str
    points: Sequence[tuple[int, float]]
    memory_wall: int  # largest batch that fits; 0 when the weights alone do not fit
    knee: int | None  # batch at which decode's weight matmuls turn compute-bound
    ceiling: float | None = None  # tokens/s no batch can beat (bandwidth / KV per sequence)
    note: str = ""  # shown in the panel when there is no curve


def decode_throughput_figure(
    path: str | os.PathLike[str], panels: Sequence[ThroughputPanel], title: str
) -> str:
    """Log-log tokens/s against batch per chip, memory wall and compute knee marked; PNG path."""
    if not panels:
        raise ValueError("need at least one panel to draw")
    fig, axes = new_figure(height=3.6, ncols=len(panels))
    axes = [axes] if len(panels) == 1 else list(axes)
    ys = [y for p in panels for _, y in p.points] + [p.ceiling for p in panels if p.ceiling]
    xs_max = [max([p.memory_wall, p.knee or 0, 2]) for p in panels]
    x_hi = 10 ** math.ceil(math.log10(max(xs_max) * 1.5))
    y_lo = 10 ** math.floor(math.log10(min(ys))) if ys else 1.0
    y_hi = 10 ** math.ceil(math.log10(max(ys) * 1.5)) if ys else 10.0
    for ax, panel in zip(axes, panels, strict=True):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.minorticks_off()  # decades suffice; log minor tick labels cost most of the draw time
        ax.set_xlim(1, x_hi)
        ax.set_ylim(y_lo, y_hi)
        ax.set_title(panel.label, fontsize=9)
        ax.set_xlabel("batch (sequences)", fontsize=8)
        ax.tick_params(labelsize=7)
        if panel.points:
            bs = [b for b, _ in panel.points]
            tps = [t for _, t in panel.points]
            ax.plot(bs, tps, color=ACCENT_COLOR, linewidth=2)
            wall_b, wall_t = panel.points[-1]
            ax.plot([wall_b], [wall_t], marker="s", color=MEMORY_COLOR, markersize=6, zorder=5)
            ax.axvline(
                wall_b,
                color=MEMORY_COLOR,
                linewidth=1,
                linestyle="-",
                alpha=0.7,
                label=f"memory wall B = {wall_b:,}",
            )
        else:
            ax.text(
                0.5,
                0.5,
                panel.note or "does not fit",
                transform=ax.transAxes,
                ha="center",
                va="center",
                fontsize=8,
                color=MEMORY_COLOR,
                wrap=True,
            )
        if panel.knee is not None:
            ax.axvline(
                panel.knee,
                color=COMPUTE_COLOR,
                linewidth=1,
                linestyle="--",
                label=f"compute knee B = {panel.knee:,}",
            )
        if panel.ceiling:
            ax.axhline(
                panel.ceiling,
                color=NEUTRAL_COLOR,
                linewidth=1,
                linestyle=":",
                label="bandwidth / KV per sequence",
            )
        if ax.get_legend_handles_labels()[0]:  # an empty panel has nothing to explain
            ax.legend(loc="best", fontsize=6, handlelength=1.6, framealpha=0.9)
    axes[0].set_ylabel("decode tokens/s (upper bound)", fontsize=8)
    for ax in axes[1:]:
        ax.tick_params(labelleft=False)
    fig.suptitle(title, fontsize=9)
    for ax in axes:
        ax.grid(True, which="major", alpha=0.3, linestyle=":", color=NEUTRAL_COLOR)
    return save_figure(fig, path)
