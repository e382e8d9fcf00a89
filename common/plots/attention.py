"""Figures of lecture 10: tiled attention's traffic against on-chip memory, and kernel times."""

from __future__ import annotations

import os
from collections.abc import Sequence

from common.plots import style
from common.present.console import fmt_bytes

MB = 1e6  # traffic in decimal MB, like the article's 138.41 MB and 4.19 MB


@style.figure
def traffic_figure(path: str | os.PathLike[str], m_values: Sequence[float],
                   traffic: Sequence[float], naive_bytes: float, ideal_bytes: float, flops: float,
                   chips: Sequence[tuple[str, float]],
                   ridges: Sequence[tuple[str, float, float | None]], title: str,
                   ) -> str:  # fmt: skip
    """Traffic (MB) against M_sm (log-log): naive and ideal lines, chips (label, M_sm bytes)
    and ridges (label, I*, smallest M_sm reaching it or None) drawn at the traffic F / I*."""
    fig, ax = style.new_figure(height=4.6)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    lo, hi = min(m_values), max(m_values)
    tiled = {"drawstyle": "steps-post", "color": style.COMPUTE_COLOR, "lw": 1.8}
    ax.plot(m_values, [d / MB for d in traffic], label="tiled (FlashAttention-2 loops)", **tiled)
    for level, color, label in (
        (naive_bytes, style.MEMORY_COLOR, "naive: S, P in HBM"),
        (ideal_bytes, style.ACCENT_COLOR, "ideal minimum"),
    ):
        ax.axhline(level / MB, color=color, lw=1.2, ls="--", label=label)
    for label, ridge, m_at in ridges:
        level = flops / ridge / MB
        ax.axhline(level, color=style.NEUTRAL_COLOR, lw=0.8, ls=":")
        text = f" I = {ridge:.0f} FLOP/B: {label} ridge"
        ax.text(lo, level, text, fontsize=8, va="bottom", color="#444444")
        if m_at is not None:
            ax.plot([m_at], [level], marker="o", ms=5, color="black", zorder=5)
    for i, (label, m_sm) in enumerate(chips):
        color = style.SERIES_COLORS[(3 + i) % len(style.SERIES_COLORS)]
        ax.axvline(m_sm, color=color, lw=1.0)
        text, y = f" {label}\n {fmt_bytes(m_sm, binary=True, digits=0)}", 0.68 - 0.09 * i
        ax.text(
            m_sm, y, text, transform=ax.get_xaxis_transform(), fontsize=8, color=color, va="top"
        )
    style.binary_ticks(ax, lo, hi)
    ax.set_xlim(lo, hi)
    ax.set(xlabel="on-chip memory per SM, M_sm", ylabel="HBM traffic of one head (MB)")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    return style.save_figure(fig, path)


@style.figure
def kernel_times_figure(path: str | os.PathLike[str], ns: Sequence[int], naive_s: Sequence[float],
                        tiled_s: Sequence[float], compute_s: Sequence[float],
                        naive_memory_s: Sequence[float], tiled_memory_s: Sequence[float],
                        llc_tokens: float | None, title: str,
                        xlabel: str = "sequence length N") -> str:  # fmt: skip
    """Seconds per call of both kernels against N (log-log) with compute_s = F / P, each one's
    D / beta and llc_tokens, the N whose N x N scores fill the LLC (None: not marked)."""
    fig, ax = style.new_figure(height=4.8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.plot(ns, naive_s, marker="o", color=style.MEMORY_COLOR, lw=1.6, label="naive, measured")
    ax.plot(ns, tiled_s, marker="s", color=style.COMPUTE_COLOR, lw=1.6, label="tiled, measured")
    ax.plot(ns, compute_s, color="black", lw=1.2, ls="-.", label="F / P (both kernels)")
    ax.plot(ns, naive_memory_s, color=style.MEMORY_COLOR, lw=1, ls="--", label="D / beta, naive")
    ax.plot(ns, tiled_memory_s, color=style.COMPUTE_COLOR, lw=1, ls=":", label="D / beta, tiled")
    if llc_tokens is not None and min(ns) <= llc_tokens <= max(ns):
        ax.axvline(llc_tokens, color=style.NEUTRAL_COLOR, lw=1)
        text, where = " S fills the\n last-level cache", ax.get_xaxis_transform()
        ax.text(llc_tokens, 0.03, text, transform=where, fontsize=8, va="bottom", color="#444444")
    ax.set_xticks(list(ns), [f"{n:,}" for n in ns])
    ax.minorticks_off()
    ax.set(xlabel=xlabel, ylabel="seconds per call")
    ax.set_title(title, fontsize=10)
    style.legend_below(fig, ncols=3, fontsize=8)
    return style.save_figure(fig, path)
