"""Lecture 12's figure: the profiled operators over time, one row per operator, from the trace."""

from __future__ import annotations

import os
from collections.abc import Sequence

from common.plots.style import SERIES_COLORS, figure, new_figure, save_figure


@figure
def timeline_figure(
    path: str | os.PathLike[str],
    rows: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    title: str,
) -> str:
    """Save bars (start, duration) in ms, one row per name; gaps between bars stay white."""
    fig, ax = new_figure(height=0.9 + 0.28 * len(rows))
    for i, (_, bars) in enumerate(rows):
        ax.broken_barh(list(bars), (i - 0.4, 0.8), color=SERIES_COLORS[i % len(SERIES_COLORS)])
    ax.set_yticks(range(len(rows)), [name for name, _ in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("time since the pass began (ms)")
    ax.set_title(title, fontsize=10)
    return save_figure(fig, path)
