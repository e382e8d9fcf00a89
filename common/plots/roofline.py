"""The roofline figure: rooflines of several chips and named points, as a PNG.

The roof the points sit on (``placed_on``) is bold and on top, the others thin and dashed;
points are black, their labels clear of the lines and of each other.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any, NamedTuple

from common.formulas.roofline import attainable_flops, ridge_point
from common.plots import style
from common.plots.article import _plain, log_ticks, place_labels
from common.plots.style import NEUTRAL_COLOR, SERIES_COLORS, matplotlib_available, new_figure
from common.present.display import PngResult
from common.shell import sink
from common.tables.validate import positive

Curve = tuple[str, float, float]  # (label, peak FLOP/s, bandwidth bytes/s)
Point = tuple[str, float, float]  # (label, intensity FLOP/byte, FLOP/s)


def x_range(curves: Sequence[Curve], points: Sequence[Point]) -> tuple[float, float]:
    """Decades that hold every point and every ridge, with a margin."""
    xs = [p[1] for p in points if p[1] > 0] + [ridge_point(peak, bw) for _, peak, bw in curves]
    lo = 10 ** math.floor(math.log10(max(min(xs) / 1.5, 1e-3)))
    return lo, 10 ** math.ceil(math.log10(max(xs) * 3))


def _draw_roofs(
    ax: Any, curves: Sequence[Curve], lo: float, hi: float, placed_on: int | None
) -> list[tuple[float, float]]:
    """Draw each roof min(P, I beta); the one at `placed_on` bold and on top. Returns samples."""
    xs = style.log_range(lo, hi, 60)
    samples = []
    placed = curves[placed_on] if placed_on is not None else None
    several = placed is not None and len(curves) > 1  # say which roof the points sit on
    for index, ((label, peak, bw), color) in enumerate(zip(curves, SERIES_COLORS, strict=False)):
        ys = [attainable_flops(x, peak, bw) for x in xs]
        bold = placed_on is None or index == placed_on
        text = f"{label} (I* = {ridge_point(peak, bw):.0f})"
        if several and index == placed_on:
            text += ": points sit here"
        elif several and math.isclose(peak, placed[1]):
            text += f", same peak as {placed[0].split()[0]}"
        width, dash = (2.6, "-") if bold else (1.3, (0, (4, 2)))
        z = 3 if index == placed_on else 2
        ax.plot(xs, ys, color=color, linewidth=width, linestyle=dash, zorder=z, label=text)
        ax.plot([ridge_point(peak, bw)], [peak], marker="o", color=color, markersize=4, zorder=4)
        samples += list(zip(xs, ys, strict=True))
    return samples


def _draw_points(
    ax: Any, points: Sequence[Point], obstacles: Sequence[tuple[float, float]], fontsize: float
) -> None:
    """Black markers (no roof's colour) with labels kept clear of the lines and each other."""
    for _, x, y in points:
        ax.plot(
            [x], [y], marker="o", color="black", markeredgecolor="white", markersize=6, zorder=5
        )
    placed, texts = [(x, y) for _, x, y in points], [label for label, _, _ in points]
    place_labels(ax, placed, texts, fontsize=fontsize, obstacles=obstacles, pad=1.0)


def _frame(ax: Any, lo: float, hi: float, curves: Sequence[Curve], rates: Sequence[float]) -> None:
    """Log axes from lo to hi in intensity, plain ticks, and decades of FLOP/s that hold each
    roof from its left end up to its peak, and every rate."""
    ys = [attainable_flops(lo, peak, bw) for _, peak, bw in curves] + list(rates)
    ys = [y for y in ys + [peak for _, peak, _ in curves] if y > 0]
    y_lo = 10 ** math.floor(math.log10(min(ys)))
    y_hi = 10 ** math.ceil(math.log10(max(ys) * 2))
    ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(y_lo, y_hi))
    log_ticks(ax, "x", lo, hi)
    tera = [10.0**e for e in range(math.ceil(math.log10(y_lo)), math.floor(math.log10(y_hi)) + 1)]
    ax.set_yticks(tera, [_plain(v / 1e12) for v in tera])
    ax.set_yticks([], minor=True)
    ax.set(xlabel="arithmetic intensity I (FLOP/byte)", ylabel="attainable TFLOP/s")


@style.figure
def roofline_figure(path: str | os.PathLike[str], curves: Sequence[Curve], points: Sequence[Point],
                    title: str = "Roofline", placed_on: int | None = None) -> str:  # fmt: skip
    """Rooflines min(P, I beta) for each (label, P, beta) and named points (label, I, FLOP/s)."""
    fig, ax = new_figure(height=4.8)
    lo, hi = x_range(curves, points)
    _frame(ax, lo, hi, curves, [p[2] for p in points])
    samples = _draw_roofs(ax, curves, lo, hi, placed_on)
    ax.set_title(title, fontsize=11)
    ax.legend(loc="lower right", fontsize=9, framealpha=0.95)
    _draw_points(ax, points, samples, fontsize=9)
    return style.save_figure(fig, path)


class RooflinePanel(NamedTuple):
    """One panel of a multi-chip figure: its title, its roof and the points placed on it."""

    title: str
    curve: Curve
    points: Sequence[Point]


@style.figure
def roofline_panels_figure(
    path: str | os.PathLike[str], panels: Sequence[RooflinePanel], key: Sequence[str], title: str
) -> str:
    """One roofline per panel, side by side on shared axes, numbered points; `key` names them."""
    if not panels:
        raise ValueError("need at least one panel to draw")
    fig, axes = new_figure(height=5.0, ncols=len(panels))
    axes = [axes] if len(panels) == 1 else list(axes)
    every = [p for panel in panels for p in panel.points]
    lo, hi = x_range([panel.curve for panel in panels], every)
    for ax, panel in zip(axes, panels, strict=True):
        _frame(ax, lo, hi, [p.curve for p in panels], [p[2] for p in every])
        label, peak, bw = panel.curve
        samples = _draw_roofs(ax, [panel.curve], lo, hi, 0)
        ax.axvline(ridge_point(peak, bw), color=NEUTRAL_COLOR, linestyle=":", linewidth=1, zorder=1)
        ax.set_title(f"{label}: I* = {ridge_point(peak, bw):.0f} FLOP/B", fontsize=10.5)
        ax.tick_params(labelsize=9)
        ax.xaxis.label.set_size(10)
        ax.yaxis.label.set_size(10)
        _draw_points(ax, panel.points, samples, fontsize=10)
    for ax in axes[1:]:
        ax.set_ylabel("")
        ax.tick_params(labelleft=False)
    fig.suptitle(title, fontsize=11)
    fig.get_layout_engine().set(wspace=0.08)  # room between the panels' outer tick labels
    _key_below(fig, key, ncols=2 if len(key) > 4 else 1, fontsize=9.5)
    return style.save_figure(fig, path)


def _key_below(fig: Any, key: Sequence[str], **look: Any) -> None:
    """The figure's key under the axes: 'number  name' lines, with no marker drawn."""
    handles = [style.line_handle(None, "none", text) for text in key]
    style.legend_below(fig, handles, handlelength=0, handletextpad=0, **look)


class PointSeries(NamedTuple):
    """(intensity, FLOP/s) points drawn with one marker, and optionally `names`, one per point
    (coinciding points are labelled once, with how many of each name)."""

    label: str
    points: Sequence[tuple[float, float]]
    names: Sequence[str] = ()


def coinciding(series: Sequence[PointSeries]) -> list[tuple[float, float, str]]:
    """Named points grouped by position (intensities within 1%), rising I: (I, FLOP/s, what
    sits there, e.g. 'prefill norm x2, matmul x1; decode matmul x8')."""
    groups: list[tuple[float, float, dict[str, dict[str, int]]]] = []
    for s in series:
        for (x, y), name in zip(s.points, s.names, strict=True):
            found = next((g[2] for g in groups if math.isclose(x, g[0], rel_tol=0.01)), None)
            if found is None:
                found = {}
                groups.append((x, y, found))
            counts = found.setdefault(s.label.split()[0], {})
            counts[name] = counts.get(name, 0) + 1
    out = []
    for x, y, found in sorted(groups, key=lambda g: g[0]):
        parts = []
        for who, counts in found.items():
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            parts.append(f"{who} " + ", ".join(f"{name} x{n}" for name, n in ranked))
        out.append((x, y, "; ".join(parts)))
    return out


@style.figure
def roofline_series_figure(
    path: str | os.PathLike[str], curve: Curve, series: Sequence[PointSeries], title: str
) -> str:
    """One chip's roof and its ridge with groups of points, one marker and colour per group."""
    fig, ax = new_figure(height=4.4 + (2.2 if any(s.names for s in series) else 0))
    _, peak, bw = curve
    every = [(f"{s.label} {k}", x, y) for s in series for k, (x, y) in enumerate(s.points)]
    lo, hi = x_range([curve], every)
    _frame(ax, lo, hi, [curve], [y for _, _, y in every])
    samples = _draw_roofs(ax, [curve], lo, hi, 0)
    ax.axvline(ridge_point(peak, bw), color=NEUTRAL_COLOR, linestyle=":", linewidth=1, zorder=1)
    # The first group hollow and large, the next filled and smaller: coinciding points of
    # two groups stay visible, one inside the other.
    hollow = {"marker": "s", "ms": 10, "mfc": "white", "mew": 1.6}
    for index, ((name, points, _), color) in enumerate(
        zip(series, SERIES_COLORS[1:], strict=False)
    ):
        look = hollow if index % 2 == 0 else {"marker": "o", "ms": 5.5, "mfc": color, "mew": 0.8}
        xs, ys = [x for x, _ in points], [y for _, y in points]
        ax.plot(xs, ys, ls="none", mec=color, zorder=5 + index, label=name, **look)
    ax.set_title(title, fontsize=11)
    ax.legend(loc="lower right", fontsize=9, framealpha=0.95)
    # Named points: each position numbered once on the axes, what sits there in the key
    # below (16 operators of a phase land on a handful of positions).
    if groups := coinciding([s for s in series if s.names]):
        place_labels(ax, [(x, y) for x, y, _ in groups], fontsize=10, obstacles=samples, pad=3.0)
        key = [f"{k}  I = {x:,.0f}: {text}" if x >= 10 else f"{k}  I = {x:.3g}: {text}"
               for k, (x, _, text) in enumerate(groups, 1)]  # fmt: skip
        _key_below(fig, key, ncols=1, fontsize=9)
    return style.save_figure(fig, path)


def save_roofline_png(path: str, curves: Sequence[Curve], points: Sequence[Point],
                      title: str = "Roofline",
                      placed_on: int | None = None) -> PngResult:  # fmt: skip
    """Draw rooflines (label, peak, bw) and named points (label, I, FLOP/s) to a PNG at `path`."""
    for label, peak, bw in curves:
        positive(peak, f"{label} peak FLOP/s")
        positive(bw, f"{label} bandwidth")
    if not matplotlib_available() and not sink.diverted():
        return PngResult(None, "matplotlib is not installed; PNG skipped (pip install matplotlib)")
    written = roofline_figure(path, curves, points, title=title, placed_on=placed_on)
    return PngResult(written, "saved")
