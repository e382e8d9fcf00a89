"""Figures of lecture 09: bandwidth against working set, and the hierarchical roofline."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from common.formulas.roofline import attainable_flops, ridge_point
from common.plots import style
from common.plots.article import place_labels
from common.present.console import fmt_bytes

GB = 1e9  # figures show decimal GB/s and GFLOP/s, like the console
WHITE = {"fc": "white", "ec": "none", "alpha": 0.85}  # a label's box, over the lines it crosses


def level_color(name: str, order: Sequence[str]) -> str:
    """The colour of a memory level, stable across both figures."""
    index = list(order).index(name) if name in order else len(order)
    return style.SERIES_COLORS[index % len(style.SERIES_COLORS)]


@style.figure
def bandwidth_sweep_figure(path: str | os.PathLike[str], sizes: Sequence[float],
                           measured: Sequence[float], corrected: Sequence[float | None],
                           caches: Sequence[tuple[str, int]],
                           plateaus: Sequence[tuple[str, float, float, float]],
                           call_cost_limit: float | None = None) -> str:  # fmt: skip
    """Bandwidth (GB/s) against working set, caches (label, bytes) marked, plateaus (level,
    lo bytes, hi bytes, bytes/s) drawn over their ranges."""
    fig, ax = style.new_figure(height=4.6)
    lo, hi = min(sizes) / 1.3, max(sizes) * 1.3
    ax.set_xscale("log", base=2)
    if call_cost_limit is not None:
        label, look = "fixed call cost ≥ 10% of the time", {"fontsize": 7, "color": "#555555"}
        style.labelled_band(ax, lo, call_cost_limit, label, 0.12, 0.975, **look)
    pairs = [(s, c / GB) for s, c in zip(sizes, corrected, strict=True) if c is not None]
    for points, color, lw, label in (
        ([(s, m / GB) for s, m in zip(sizes, measured, strict=True)], style.NEUTRAL_COLOR, 1,
         "measured per call"),
        (pairs, style.MEMORY_COLOR, 1.2, "per-call cost removed"),
    ):  # fmt: skip
        if points:
            ax.plot(*zip(*points, strict=True), marker=".", color=color, lw=lw, label=label)
    order = [p[0] for p in plateaus]
    for name, p_lo, p_hi, bw in plateaus:
        a, b = max(p_lo, lo), min(p_hi, hi)
        if a >= b:
            continue
        color = level_color(name, order)
        ax.plot([a, b], [bw / GB, bw / GB], color=color, lw=4, alpha=0.75, solid_capstyle="butt")
        # a label centred at the right edge would run off the axes
        x, ha = (b, "right") if b >= hi / 1.01 else (math.sqrt(a * b), "center")
        box = {"bbox": {**WHITE, "boxstyle": "round,pad=0.15"}, "zorder": 6}
        look = {"fontsize": 7.5, "color": color, "fontweight": "bold", "ha": ha, **box}
        look |= {"xytext": (0, 7), "textcoords": "offset points"}
        ax.annotate(f"{name} {bw / GB:.0f} GB/s", (x, bw / GB), **look)
    for label, size in caches:
        if lo <= size <= hi:
            ax.axvline(size, color="black", lw=0.8, ls="--", alpha=0.6)
            text = f"{label} {fmt_bytes(size, binary=True, digits=0)} "
            box = {"bbox": {**WHITE, "boxstyle": "round,pad=0.1"}, "zorder": 6}
            up = {"rotation": 90, "va": "bottom", "ha": "right", "fontsize": 7, **box}
            ax.text(size, 0.015, text, transform=ax.get_xaxis_transform(), **up)
    ax.set(ylim=(0, max([m / GB for m in measured] + [p[1] for p in pairs]) * 1.18), xlim=(lo, hi))
    style.binary_ticks(ax, lo, hi)
    ax.set(xlabel="working set of z = x + y (fp32, three arrays)", ylabel="bandwidth (GB/s)")
    ax.set_title("Streaming bandwidth by working-set size")
    ax.legend(loc="upper right", fontsize=7.5)
    return style.save_figure(fig, path)


@style.figure
def hierarchical_roofline_figure(path: str | os.PathLike[str], roofs: Sequence[tuple[str, float]],
                                 peak: float, operations: Sequence[tuple[str, float, float, str]],
                                 extra_roofs: Sequence[tuple[str, float]] = (),
                                 title: str = "Hierarchical roofline of this machine",
                                 ) -> str:  # fmt: skip
    """A memory roof per level, (level, bytes/s), extra_roofs dashed, the compute roof, and
    operations (label, FLOP/byte, FLOP/s, level whose colour to use or '' for black)."""
    fig, ax = style.new_figure(height=5.4)
    bws = [bw for _, bw in roofs] + [bw for _, bw in extra_roofs]
    intensities = [op[1] for op in operations] + [ridge_point(peak, bw) for bw in bws]
    xlo = 10 ** math.floor(math.log10(min(intensities) / 2))
    xhi = 10 ** math.ceil(math.log10(max(intensities) * 2))
    xs = style.log_range(xlo, xhi)
    order = [name for name, _ in roofs]
    threads_note = ", 1 thread" if extra_roofs else ""  # the sweep streams from one thread
    series = [
        (f"{name} roof{threads_note}", bw, level_color(name, order), 2, "-") for name, bw in roofs
    ]
    series += [(name, bw, style.NEUTRAL_COLOR, 1.5, "--") for name, bw in extra_roofs]
    for name, bw, color, lw, ls in series:
        rates = [attainable_flops(x, peak, bw) / GB for x in xs]
        ax.plot(xs, rates, color=color, lw=lw, ls=ls, label=f"{name}: {bw / GB:.1f} GB/s")
    ax.axhline(
        peak / GB, color="black", lw=1, alpha=0.5, label=f"compute roof: {peak / GB:.0f} GFLOP/s"
    )
    # Hollow markers stay visible on a roof; one that would cover an earlier one (same
    # intensity, rate within 25%) is drawn larger, around it.
    markers = "oDs^v<>P"
    for i, (_, x, flops, level) in enumerate(operations):
        color = level_color(level, order) if level else "black"
        covered = sum(1 for _, x0, f0, _ in operations[:i] if x0 == x and 0.8 < flops / f0 < 1.25)
        ring = {"mfc": "none", "mec": color, "mew": 1.6, "ms": 8 + 5 * covered, "ls": "none"}
        ax.plot([x], [flops / GB], marker=markers[i % len(markers)], zorder=5, **ring)
    ys = [op[2] / GB for op in operations] + [xlo * min(bws) / GB]
    ax.set(xscale="log", yscale="log", xlim=(xlo, xhi), ylim=(min(ys) / 2, peak / GB * 2.5))
    ax.set(xlabel="arithmetic intensity I (FLOP/byte)", ylabel="attainable GFLOP/s", title=title)
    style.legend_below(fig, ncols=3, fontsize=7)
    lines = [(x, attainable_flops(x, peak, bw) / GB) for bw in bws for x in xs[::8]]
    before = len(ax.texts)
    placed, texts = [(x, flops / GB) for _, x, flops, _ in operations], [op[0] for op in operations]
    place_labels(ax, placed, texts, fontsize=7, obstacles=lines, pad=2)
    for text in ax.texts[before:]:  # where a roof must cross a label, it passes behind it
        text.set(**style.OVER)
    return style.save_figure(fig, path)
