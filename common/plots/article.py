"""The four figures of lecture 04: local roofline, batch sweep, memory ledger, 2x speedups."""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, NamedTuple

from common.files.results import positive_number
from common.formulas import ledger
from common.formulas.roofline import attainable_flops, ridge_point, speedup_2x_at_ratio
from common.plots import style
from common.tables.units import GIB


class MeasuredPoint(NamedTuple):
    """One measured operation on the roofline: name, intensity, achieved FLOP/s, bound."""

    name: str
    intensity: float  # FLOP/byte
    flops_per_s: float  # achieved
    bound: str  # predicted: "memory" or "compute"


def measured_points(operations: Sequence[Any]) -> tuple[list[MeasuredPoint], int]:
    """Lecture 01's operation rows as roofline points; also how many rows were unusable."""
    points, bad = [], 0
    for op in operations:
        try:
            name = str(op["name"])
            i = positive_number(op, "intensity")
            achieved = positive_number(op, "achieved_flops_per_s")
            bound = op.get("bound") if op.get("bound") in ("memory", "compute") else "unknown"
            points.append(MeasuredPoint(name, i, achieved, bound))
        except (KeyError, TypeError, ValueError, AttributeError):
            bad += 1
    return points, bad


# --- Label placement ---------------------------------------------------------
_OFFSETS = ((4, 3), (4, -11), (-4, 3), (-4, -11), (6, -4), (-6, -4), (0, 7), (0, -15))


def _overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _plain(v: float) -> str:
    """A tick label as a plain number: 0.00001, 0.05, 1, 1,000, 1,000,000 (never 1e+06)."""
    if v >= 1:
        return f"{v:,.0f}"
    text = f"{v:g}"
    return f"{Decimal(text):f}" if "e" in text else text


def log_ticks(ax: Any, axis: str, lo: float, hi: float) -> None:
    """Plain-number ticks on a log axis: 1-2-5 steps over short ranges, decades over long."""
    steps = (1, 2, 5) if math.log10(hi / lo) <= 3 else (1,)
    values = [m * 10.0**e
              for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
              for m in steps
              if lo <= m * 10.0**e * (1 + 1e-9) and m * 10.0**e <= hi * (1 + 1e-9)]  # fmt: skip
    setter = ax.set_xticks if axis == "x" else ax.set_yticks
    setter(values, [_plain(v) for v in values])
    setter([], minor=True)


def _along(xs: Sequence[float], ys: Sequence[float], per_segment: int = 8) -> list[tuple]:
    """Points spaced along a polyline drawn on log-log axes (obstacles for labels)."""
    pts = list(zip(xs, ys, strict=True))
    out = [(x0 * (x1 / x0) ** (k / per_segment), y0 * (y1 / y0) ** (k / per_segment))
           for (x0, y0), (x1, y1) in itertools.pairwise(pts)
           for k in range(per_segment)]  # fmt: skip
    return [*out, pts[-1]]


def place_labels(ax: Any, points: Sequence[tuple[float, float]], texts: Sequence[str] = (),
                 fontsize: float = 8, color: str = "black",
                 obstacles: Sequence[tuple[float, float]] = (),
                 pad: float = 0.0) -> None:  # fmt: skip
    """Annotate points, each label at the first offset whose box stays inside the axes and
    clear of markers, texts, the legend and `obstacles`; `pad` (points) pushes it out."""
    texts = texts or [str(k) for k in range(1, len(points) + 1)]  # no texts: numbered 1, 2, ...
    fig = ax.figure
    fig.draw_without_rendering()  # apply the layout so data -> pixel transforms are final
    px_per_pt = fig.dpi / 72
    size_px = fontsize * px_per_pt
    marker_px = 5 * px_per_pt
    line_px = 2.5 * px_per_pt
    offsets = [(dx + math.copysign(pad, dx) if dx else 0, dy + math.copysign(pad, dy) if dy else 0)
               for dx, dy in _OFFSETS]  # fmt: skip
    anchors = [tuple(ax.transData.transform(p)) for p in points]
    markers = [(x - marker_px, y - marker_px, x + marker_px, y + marker_px) for x, y in anchors]
    lines = (ax.transData.transform(p) for p in obstacles)
    taken = [(ox - line_px, oy - line_px, ox + line_px, oy + line_px) for ox, oy in lines]
    artists = [a for a in [*ax.texts, ax.get_legend()] if a is not None]  # annotations, legend
    taken += [tuple(a.get_window_extent().extents) for a in artists]
    frame = ax.get_window_extent()
    # A second ring further out, joined to its point by a thin leader line.
    far = [(dx * 3, dy * 2 if dy > 0 else dy * 1.6) for dx, dy in offsets if dx]
    look = {"fontsize": fontsize, "color": color}
    for k, ((x, y), (px, py), text) in enumerate(zip(anchors, points, texts, strict=True)):
        others = markers[:k] + markers[k + 1 :]
        best, width = None, 0.62 * size_px * max(len(text), 1)  # the label's approximate box
        for dx, dy in [*offsets, *far]:
            left = x + dx * px_per_pt if dx >= 0 else x + dx * px_per_pt - width  # left-aligned
            box = (left, y + dy * px_per_pt, left + width, y + dy * px_per_pt + size_px)
            inside = frame.x0 <= box[0] and box[2] <= frame.x1
            inside = inside and frame.y0 <= box[1] and box[3] <= frame.y1
            clashes = sum(_overlap(box, o) for o in taken + others) + (0 if inside else 100)
            if best is None or clashes < best[0]:
                best = (clashes, (dx, dy), box)
            if clashes == 0:
                break
        _, (dx, dy), box = best
        taken.append(box)
        leader = {"arrowstyle": "-", "color": color, "lw": 0.5, "shrinkA": 0, "shrinkB": 3}
        at = {"xytext": (dx, dy), "ha": "left" if dx >= 0 else "right", "va": "bottom"}
        arrow = None if (dx, dy) in offsets else leader
        ax.annotate(text, (px, py), textcoords="offset points", **at, arrowprops=arrow, **look)


# --- (a) The local roofline with lecture 01's measured operations ------------
@style.figure
def local_roofline_figure(path: str | os.PathLike[str], peak: float, bandwidth: float,
                          points: Sequence[MeasuredPoint],
                          title: str = "This machine's roofline") -> str:  # fmt: skip
    """Roof min(P, I beta) and numbered measured points coloured by predicted bound."""
    ridge = ridge_point(peak, bandwidth)
    giga = 1e9  # the y axis is in GFLOP/s
    xs_data = [p.intensity for p in points] + [ridge / 100, ridge * 10]
    lo = 10 ** math.floor(math.log10(min(xs_data) / 1.5))
    hi = 10 ** math.ceil(math.log10(max(xs_data) * 4))
    fig, ax = style.new_figure(height=4.6 + 0.16 * math.ceil(len(points) / 2))
    xs = style.log_range(lo, hi)
    roof = [attainable_flops(x, peak, bandwidth) / giga for x in xs]
    ax.plot(xs, roof, color="black", linewidth=2)
    ax.axvline(ridge, color=style.NEUTRAL_COLOR, linestyle="--", linewidth=1)
    ax.set(xscale="log", yscale="log", xlim=(lo, hi))
    y_lo = min([p.flops_per_s for p in points] + [attainable_flops(lo, peak, bandwidth)]) / 3
    y_lo = 10 ** math.floor(math.log10(y_lo / giga))
    y_hi = 10 ** math.ceil(math.log10(max([peak] + [p.flops_per_s for p in points]) * 3 / giga))
    ax.set_ylim(y_lo, y_hi)
    log_ticks(ax, "x", lo, hi)
    log_ticks(ax, "y", y_lo, y_hi)
    offset = {"textcoords": "offset points", "fontsize": 8}
    ax.annotate(f"P = {peak / giga:,.0f} GFLOP/s", (ridge, peak / giga), xytext=(5, 4), **offset)
    ax.annotate(
        f"I* = {ridge:.1f}", (ridge, y_lo), xytext=(4, 4), color=style.NEUTRAL_COLOR, **offset
    )
    slope_x = math.sqrt(lo * ridge)  # midway up the bandwidth roof, in log space
    slope = (slope_x, attainable_flops(slope_x, peak, bandwidth) / giga)
    beta = f"beta = {bandwidth / 1e9:.1f} GB/s"
    ax.annotate(beta, slope, xytext=(-6, 6), ha="right", va="bottom", **offset)
    colors = {"memory": style.MEMORY_COLOR, "compute": style.COMPUTE_COLOR}
    for k, p in enumerate(points, 1):
        color = colors.get(p.bound, style.NEUTRAL_COLOR)
        # A point that would hide an earlier one (same intensity, rate within 25%) is a
        # ring around it, so both stay visible.
        under = sum(math.isclose(q.intensity, p.intensity, rel_tol=0.02)
                    and 0.8 < p.flops_per_s / q.flops_per_s < 1.25
                    for q in points[: k - 1])  # fmt: skip
        look = {"mfc": "none", "mec": color, "mew": 1.5} if under else {"mec": "white", "mew": 1.0}
        look |= {"marker": "o", "ls": "", "ms": 6 + 5 * under, "zorder": 5}
        ax.plot([p.intensity], [p.flops_per_s / giga], color=color, label=f"{k}  {p.name}", **look)
    ax.set(xlabel="arithmetic intensity I (FLOP/byte)", ylabel="GFLOP/s (measured)", title=title)
    if points:
        style.legend_below(fig, ncols=2, fontsize=7.5, handletextpad=0.3, columnspacing=1.2)
        key = [ax.plot([], [], marker="o", linestyle="", color=c)[0] for c in colors.values()]
        names = ["memory-bound (predicted)", "compute-bound (predicted)"]
        # upper left: above the bandwidth roof, where no point, line or ridge label is
        ax.legend(key, names, loc="upper left", fontsize=7.5)
        placed = [(p.intensity, p.flops_per_s / giga) for p in points]
        place_labels(ax, placed, obstacles=list(zip(xs, roof, strict=True)))
    else:
        none = "no measured operations (run lecture 01)"
        muted = {"ha": "left", "va": "top", "fontsize": 9, "color": style.NEUTRAL_COLOR}
        ax.text(0.03, 0.94, none, transform=ax.transAxes, **muted)
    return style.save_figure(fig, path)


# --- (b) Latency and throughput against batch size ---------------------------
@style.figure
def batch_sweep_figure(path: str | os.PathLike[str], rows: Sequence[dict[str, Any]],
                       crossing: tuple[int | None, int] | None,
                       title: str = "Batch sweep") -> str:  # fmt: skip
    """Measured latency and throughput against B, roofline prediction, ridge crossing, anomalies."""
    bs = [int(r["B"]) for r in rows]
    latency_ms = [1e3 * float(r["latency_s"]) for r in rows]
    predicted_ms = [1e3 * float(r["t_pred_s"]) for r in rows]
    throughput = [float(r["throughput_per_s"]) for r in rows]
    predicted_tp = [b / (t / 1e3) for b, t in zip(bs, predicted_ms, strict=True)]
    flagged = [(b, t) for b, t, r in zip(bs, latency_ms, rows, strict=True) if r.get("anomaly")]
    band = crossing is not None and crossing[0] is not None
    fig, (ax_lat, ax_tp) = style.new_figure(height=3.9, ncols=2)
    ax_lat.plot(bs, latency_ms, marker="o", color=style.COMPUTE_COLOR, label="measured")
    ax_lat.plot(bs, predicted_ms, linestyle="--", color=style.NEUTRAL_COLOR, label="roofline")
    ax_tp.plot(bs, throughput, marker="s", color=style.ACCENT_COLOR, label="measured")
    ax_tp.plot(bs, predicted_tp, linestyle="--", color=style.NEUTRAL_COLOR, label="roofline")
    if flagged:
        ring = {"marker": "o", "ms": 11, "mfc": "none", "mec": style.MEMORY_COLOR, "ls": ""}
        xs, ys = [b for b, _ in flagged], [t for _, t in flagged]
        ax_lat.plot(xs, ys, zorder=6, label="anomaly", **ring)
    for ax, values in ((ax_lat, latency_ms + predicted_ms), (ax_tp, throughput + predicted_tp)):
        ax.set(xscale="log", yscale="log", xlim=(bs[0] / 1.4, bs[-1] * 1.4))
        ax.set_xticks(bs, [str(b) for b in bs], fontsize=7.5)
        ax.set_xticks([], minor=True)
        lo, hi = min(values) / 1.3, max(values) * 1.3
        ax.set_ylim(lo, hi)
        log_ticks(ax, "y", lo, hi)
        ax.set_xlabel("batch B (tokens per call)")
        if band:
            # at the top: small batches have low latency and low throughput
            style.labelled_band(ax, *crossing, "I = I*", 0.15, 0.97, fontsize=7.5, **style.OVER)
        ax.legend(loc="lower right", fontsize=7.5)
    for ax, name, unit in ((ax_lat, "Latency", "ms"), (ax_tp, "Throughput", "tokens/s")):
        ax.set_ylabel(f"{name.lower()} ({unit})")
        ax.set_title(name, fontsize=9.5)
    fig.suptitle(title, fontsize=10)
    if flagged:
        lines = _along(bs, latency_ms) + _along(bs, predicted_ms)
        texts = [f"B={b}" for b, _ in flagged]
        place_labels(ax_lat, flagged, texts, 7.5, style.MEMORY_COLOR, obstacles=lines, pad=3)
    return style.save_figure(fig, path)


# --- (c) The stacked memory ledger and the overhead comparison ---------------
@style.figure
def memory_ledger_figure(path: str | os.PathLike[str], spec: ledger.ModelSpec,
                         batches: Sequence[int], rate: float, low_rate: float, budget_bytes: float,
                         title: str = "Memory ledger") -> str:  # fmt: skip
    """Stacked four-term ledger at `rate` and totals at `rate` vs `low_rate` against a budget."""
    at = [ledger.model_ledger(spec, b, rate) for b in batches]
    low = [ledger.model_ledger(spec, b, low_rate) for b in batches]
    budget = budget_bytes / GIB
    fig, (ax, ax2) = style.new_figure(height=3.9, ncols=2)
    xs = list(range(len(batches)))
    colors = (style.COMPUTE_COLOR, style.MEMORY_COLOR, "#E69F00", style.NEUTRAL_COLOR)
    bottom = [0.0] * len(batches)
    for name, color in zip(("weights", "kv_cache", "activations", "overhead"), colors, strict=True):
        values = [getattr(m, name) / GIB for m in at]
        label = name.replace("_", " ").replace("kv", "KV")
        ax.bar(xs, values, bottom=bottom, color=color, width=0.65, label=label)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    width = 0.38
    for shift, series, label, color in (
        (-width / 2, at, f"overhead {rate:.0%}", style.MEMORY_COLOR),
        (width / 2, low, f"overhead {low_rate:.0%}", style.ACCENT_COLOR),
    ):
        totals = [m.total / GIB for m in series]
        bars = ax2.bar([x + shift for x in xs], totals, width, label=label, color=color)
        for bar, m in zip(bars, series, strict=True):
            if not m.fits(budget_bytes):
                bar.set_hatch("////")
                bar.set_edgecolor("white")
    ax2.bar([0], [0], width, color="white", edgecolor="black", hatch="////", label="over budget")
    top = max(m.total for m in at) / GIB
    for axis in (ax, ax2):
        axis.axhline(budget, color="black", linestyle="--", linewidth=1)
        axis.set_xticks(xs, [str(b) for b in batches])
        axis.set_xlabel("batch (sequences)")
        axis.set_ylim(0, max(top, budget) * 1.18)
        axis.text(-0.45, budget, f"budget {budget:g} GiB", va="bottom", fontsize=7.5)
        axis.legend(loc="upper left", fontsize=7.5)
    oom = {"ha": "center", "va": "bottom", "color": style.MEMORY_COLOR, "fontweight": "bold"}
    for x, m in zip(xs, at, strict=True):
        if not m.fits(budget_bytes):
            ax.text(x, m.total / GIB, "OOM", fontsize=7.5, **oom)
    ax.set_ylabel("memory (GiB)")
    ax.set_title(f"Four terms, overhead {rate:.0%}", fontsize=9.5)
    ax2.set_title("Total by overhead rate", fontsize=9.5)
    fig.suptitle(title, fontsize=10)
    return style.save_figure(fig, path)


# --- (d) What doubling compute or bandwidth buys, against I / I* -------------
@style.figure
def speedup_figure(path: str | os.PathLike[str], lo: float = 0.05, hi: float = 20.0,
                   title: str = "2x compute or 2x bandwidth?") -> str:  # fmt: skip
    """Speedups from 2x compute and 2x bandwidth as functions of I / I*."""
    ratios = style.log_range(lo, hi, 300)
    gains = [speedup_2x_at_ratio(r) for r in ratios]
    fig, ax = style.new_figure(height=3.8)
    ax.axvspan(lo, 1, color=style.MEMORY_COLOR, alpha=0.06, lw=0)
    ax.axvspan(1, hi, color=style.COMPUTE_COLOR, alpha=0.06, lw=0)
    for i, color, ls in ((0, style.COMPUTE_COLOR, "-"), (1, style.MEMORY_COLOR, "--")):
        label = f"2x {('compute', 'bandwidth')[i]}"
        ax.plot(ratios, [g[i] for g in gains], color=color, linewidth=2, linestyle=ls, label=label)
    ax.axvline(1, color="black", linewidth=1)
    for x in (0.5, 2):
        ax.axvline(x, color=style.NEUTRAL_COLOR, linewidth=0.8, linestyle=":")
    ax.set(xscale="log", xlim=(lo, hi))
    log_ticks(ax, "x", lo, hi)
    ax.set(ylim=(0.9, 2.15), xlabel="I / I* (intensity over ridge point)", ylabel="speedup")
    ax.text(0.07, 1.5, "memory-bound", fontsize=8.5, color=style.MEMORY_COLOR)
    ax.text(12, 1.5, "compute-bound", fontsize=8.5, color=style.COMPUTE_COLOR, ha="right")
    ax.text(1.04, 0.93, "I = I*", fontsize=7.5)
    ax.set_title(title)
    ax.legend(loc="center left", fontsize=8, bbox_to_anchor=(0.0, 0.3))
    return style.save_figure(fig, path)
