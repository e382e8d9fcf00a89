"""Captions of the article's four figures (lectures 01, 03 and 04): what to look at in each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from common.formulas import ledger
from common.formulas.numpy_ops import ABOVE_ROOF
from common.formulas.roofline import attainable_flops, ridge_point, speedup_2x_at_ratio
from common.present.console import fmt_bw, fmt_rate
from common.present.display import Group, Heading, Observations, Table
from common.present.say import say
from common.tables.units import GIB

Point = tuple[str, float, float, str]  # name, intensity I (FLOP/byte), achieved FLOP/s, bound


def roofline_caption(peak: float, beta: float, points: Sequence[Point]) -> str:
    """The roofline min(P, I beta), its ridge, and the points nearest and farthest under it."""
    roofs = say("The sloped line is the measured bandwidth roof β = {beta}, the flat one the "
                "measured compute roof P = {peak}; they meet at the ridge point "
                "I* = P/β = {ridge} FLOP/byte (dashed).",
                beta=fmt_bw(beta), peak=fmt_rate(peak),
                ridge=f"{ridge_point(peak, beta):.2f}")  # fmt: skip
    if not points:
        return say("{roofs} No operation is placed yet: run lecture 01 to measure them.",
                   roofs=roofs)  # fmt: skip
    share = [(name, rate / attainable_flops(i, peak, beta)) for name, i, rate, _ in points]
    below = [s for s in share if s[1] <= ABOVE_ROOF] or share
    best, worst = max(below, key=lambda s: s[1]), min(below, key=lambda s: s[1])
    return say(
        "{roofs} Each numbered point is one timed operation, at its counted intensity I = F/D "
        "and its measured FLOP/s, orange where the model predicts memory-bound and blue where "
        "it predicts compute-bound. Look at the gap between a point and the roof above it: "
        "{best} {reach} ({share}), {worst} only {low} of it.",
        roofs=roofs, best=best[0],
        reach=say("sits on its roof") if best[1] >= 0.95 else say("reaches its roof"),
        share=f"{best[1]:.0%}", worst=worst[0], low=f"{worst[1]:.0%}")  # fmt: skip


def sweep_caption(rows: Sequence[Mapping[str, Any]], crossing: tuple[Any, Any] | None) -> str:
    """The batch sweep: flat latency while memory-bound, throughput growing, the ridge band."""
    first, last = rows[0], rows[-1]
    growth = last["latency_s"] / first["latency_s"]
    gain = last["throughput_per_s"] / first["throughput_per_s"]
    caption = say(
        "Left, the fastest measured call (solid) and the roofline's max(F/P, D/β) (dashed) "
        "for B = {first} to {last}; right, tokens per second. Look at how little "
        "the latency grows (x{growth}) while the throughput grows x{gain}.",
        first=first["B"], last=last["B"], growth=f"{growth:.1f}", gain=f"{gain:.1f}")  # fmt: skip
    if crossing is not None and crossing[0] is not None:
        caption = say(
            "{caption} The grey band between B = {lo} and B = {hi} is where the model's "
            "intensity crosses the ridge point: left of it the weights' bytes set the time.",
            caption=caption, lo=crossing[0], hi=crossing[1])  # fmt: skip
    if flagged := [str(r["B"]) for r in rows if r.get("anomaly")]:
        caption = say("{caption} Circled: B = {flagged}, which break a rule no roofline can break.",
                      caption=caption, flagged=", ".join(flagged))  # fmt: skip
    return caption


def ledger_caption(spec: ledger.ModelSpec, batches: Sequence[int], rate: float, low_rate: float,
                   budget_bytes: float) -> str:  # fmt: skip
    """The stacked ledger against the budget line, and what the lower overhead rate rescues."""
    at = {b: ledger.model_ledger(spec, b, rate) for b in batches}
    low = {b: ledger.model_ledger(spec, b, low_rate) for b in batches}
    over = [b for b in batches if not at[b].fits(budget_bytes)]
    rescued = [b for b in over if low[b].fits(budget_bytes)]
    first = say("every bar stays under it")
    if over:
        b, total = over[0], f"{at[over[0]].total / GIB:.2f}"
        first = say("the first bar over it is batch {batch} ({total} GiB)", batch=b, total=total)
    caption = say(
        "Left: the four terms of the {model} model in unchunked prefill at {rate} overhead. Look "
        "at the weights, {weights} GiB at every batch, while the KV cache and activations grow "
        "with every sequence; against the {budget} GiB budget (dashed) {first}.",
        model=spec.name, rate=f"{rate:.0%}", weights=f"{at[batches[0]].weights / GIB:.1f}",
        budget=f"{budget_bytes / GIB:g}", first=first)  # fmt: skip
    if rescued:
        caption = say("{caption} Right: at {rate} overhead batch {batches} fits as well.",
                      caption=caption, rate=f"{low_rate:.0%}",
                      batches=", ".join(map(str, rescued)))  # fmt: skip
    return say("{caption} Hatched bars are over the budget.", caption=caption)


def speedup_caption() -> str:
    """Which upgrade pays on each side of the ridge point."""
    return say(
        "The speedup that 2x compute (blue) and 2x bandwidth (orange) buy an operation, "
        "against its intensity relative to the ridge, I/I*. Look at the two sides of I/I* = 1: "
        "left of it only bandwidth helps, right of it only compute; the full 2x needs the "
        "operation beyond the dotted lines at 1/2 and 2.")  # fmt: skip


def written_table(written: Sequence[tuple[str, str]]) -> Group:
    """The figures written (path, what it was drawn from), by file name."""
    return Group(
        Heading("Figures written", page=""),
        Table(["figure", "drawn from"], [[PurePath(path).name, src] for path, src in written]),
    )


def drawn_observations(peak: float, beta: float, points: Sequence[Point],
                       rows: Sequence[Mapping[str, Any]] | None, spec: ledger.ModelSpec,
                       batches: Sequence[int], rates: tuple[float, float],
                       budget_bytes: float) -> Observations:  # fmt: skip
    """What the four figures say together, from the numbers they plot."""
    items = []
    if points:
        roofs = [(rate, attainable_flops(i, peak, beta)) for _, i, rate, _ in points]
        half = sum(roof / 2 <= rate <= 2 * roof for rate, roof in roofs)  # 263%: not within 2
        items.append(
            f"{half} of the {len(points)} operations on the roofline reach at least half of "
            "the roof above them: for those the two-roof model explains the time within a "
            "factor of two.")  # fmt: skip
    else:
        items.append("The roofline shows the roofs only: no measured operation was saved.")
    if rows:
        first, last = rows[0], rows[-1]
        growth = last["latency_s"] / first["latency_s"]
        gain = last["throughput_per_s"] / first["throughput_per_s"]
        items.append(
            f"In the sweep, B = {last['B']} takes x{growth:.1f} the time of B = {first['B']} "
            f"and delivers x{gain:.1f} the tokens per second, for x{last['B'] / first['B']:.0f} "
            "the tokens per call: the weights are read once per call, whatever the batch."
        )
    largest = [
        max((b for b in batches if ledger.model_ledger(spec, b, r).fits(budget_bytes)), default=0)
        for r in rates]  # fmt: skip
    items.append(
        f"In the ledger, the largest batch of the figure that fits {budget_bytes / GIB:g} GiB "
        f"is {largest[0]} at {rates[0]:.0%} overhead and {largest[1]} at {rates[1]:.0%}."
    )
    low = 0.25  # an operation well left of the ridge
    at_ridge, left = speedup_2x_at_ratio(1.0), speedup_2x_at_ratio(low)
    items.append(
        f"At the ridge itself (I/I* = 1) 2x compute buys x{at_ridge[0]:.2f} and 2x bandwidth "
        f"x{at_ridge[1]:.2f}; at I/I* = {low:g}, 2x bandwidth buys x{left[1]:.2f} and 2x "
        f"compute x{left[0]:.2f}.")  # fmt: skip
    return Observations(items)
