"""Lecture 09's tables and sentences: caches, the bandwidth sweep, plateaus, roofs per level.

Standard library only. The functions take what the lecture measured (cache
records, the sweep's sizes and bandwidths, plateaus of
``common.formulas.hierarchy``, the operations placed on the roofs) and return
display objects (``common.present.display``) and figure captions.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from common.formulas.hierarchy import (
    CALL_COST_MATTERS,
    GIL_RELEASE_ELEMENTS,
    SAME_LEVEL_STEP,
    Plateau,
    fits_in,
)
from common.present.console import fmt_bw, fmt_bytes, fmt_num, fmt_ratio, fmt_time
from common.present.display import Facts, Group, Heading, Observations, Table, Text
from common.present.probe import built_here as built_here  # lecture 09 names its machine
from common.present.probe import measured_on as measured_on

Levels = Sequence[tuple[str, int]]  # the data caches, innermost first: (name, bytes)
MATCH = 1.05  # neighbouring plateaus closer than 5% are called equal


def _binary(n: float, digits: int = 2) -> str:
    return fmt_bytes(n, binary=True, digits=digits)


def _flops(x: float, digits: int = 1) -> str:
    return fmt_num(x, digits, "FLOP/s")


def cache_table(caches: Sequence[Any], source: str) -> Group | Text:
    """The caches the operating system reports (name, kind, size_bytes, shared_cpus)."""
    if not caches:
        return Text(
            "cache sizes: unknown (the operating system does not report them here); the sweep "
            "runs without marked sizes and a change-point detector finds the plateaus"
        )
    return Group(
        Heading("Caches the operating system reports (as core 0 sees them)"),
        Table(
            ["cache", "type", "size", "shared by"],
            [
                [
                    c.name,
                    c.kind,
                    _binary(c.size_bytes, 0),
                    "-" if c.shared_cpus is None else f"{c.shared_cpus} CPU(s)",
                ]
                for c in caches
            ],
            note=f"source: {source}",
        ),
    )


def compute_roof_facts(
    calibrated: float, source: str, matmuls: Sequence[Mapping[str, Any]], peak: float
) -> Group:
    """The calibrated compute roof, the two matmuls timed here, and a raise if one beat it."""
    facts = Facts(
        [("compute roof", f"{_flops(calibrated)} ({source})")]
        + [
            (
                f"matmul n={m['side']}",
                f"{_flops(m['flops_per_s'])} ({_binary(m['bytes'])} of matrices)",
            )
            for m in matmuls
        ]
    )
    if peak <= calibrated:
        return Group(facts)
    side = max(matmuls, key=lambda m: m["flops_per_s"])["side"]
    return Group(
        facts,
        Text(
            f"compute roof raised from {_flops(calibrated)} to {_flops(peak)}: the n={side} "
            "matmul ran faster than the calibration, which other work probably slowed"
        ),
    )


def call_cost_table(costs: Mapping[str, Any]) -> Group:
    """t_call on one element, the extra above the GIL threshold, and their sum."""
    call_s, gil_s = costs["call_seconds"], costs["gil_seconds"]
    n = GIL_RELEASE_ELEMENTS
    return Group(
        Heading("Fixed cost of one call of z = x + y"),
        Table(
            ["what", "time"],
            [
                ["call on 1 element (t_call)", fmt_time(call_s)],
                [f"extra when numpy releases the GIL (> {n} elements)", fmt_time(gil_s)],
                [f"fixed cost of a call on > {n} elements", fmt_time(call_s + gil_s)],
            ],
        ),
    )


def notes(sentences: Sequence[str | None]) -> list[Text]:
    """One 'note:' line per sentence given (None: nothing to say)."""
    return [Text(f"note: {s}; the DRAM plateau below is not DRAM alone") for s in sentences if s]


def after_sweep_line(after: Mapping[str, Any], used: Mapping[str, Any]) -> Text:
    """The fixed cost measured again after the sweep, and the lower one used."""
    return Text(
        f"fixed cost measured again after the sweep: {fmt_time(after['call_seconds'])} "
        f"(+{fmt_time(after['gil_seconds'])} above {GIL_RELEASE_ELEMENTS} elements); used: "
        f"{fmt_time(used['call_seconds'])} (+{fmt_time(used['gil_seconds'])})"
    )


def sweep_table(
    points: Sequence[Mapping[str, Any]],
    shares: Sequence[float],
    levels: Levels,
    sweep_seconds: float,
) -> Group:
    """Per sweep point: its level, time per call, fixed-cost share, D/t and D/(t - t0).

    points: working_set_bytes, seconds, bytes_per_s and corrected_bytes_per_s (or None).
    """
    sizes = [p["working_set_bytes"] for p in points]
    rows = []
    for p, share in zip(points, shares, strict=True):
        corrected = p["corrected_bytes_per_s"]
        rows.append(
            [
                _binary(p["working_set_bytes"], 1),
                fits_in(p["working_set_bytes"], levels),
                fmt_time(p["seconds"]),
                f"{share:.0%}",
                fmt_bw(p["bytes_per_s"]),
                "-" if corrected is None else fmt_bw(corrected),
            ]
        )
    return Group(
        Heading(f"Bandwidth of z = x + y against working set ({len(sizes)} sizes)"),
        Table(
            ["working set", "fits in", "time/call", "call cost", "measured", "cost removed"],
            rows,
            note=f"sweep: {len(sizes)} sizes from {_binary(sizes[0])} to {_binary(sizes[-1])} "
            f"in {sweep_seconds:.1f} s",
        ),
    )


def _range_text(p: Plateau, sizes: Sequence[float]) -> str:
    """A plateau's working-set range, clipped to the sweep."""
    return f"{_binary(max(p.lo_bytes, sizes[0]), 0)} - {_binary(min(p.hi_bytes, sizes[-1]), 0)}"


def plateau_table(
    plateaus: Sequence[Plateau],
    levels: Levels,
    method: str,
    measured: Mapping[str, float],
    sizes: Sequence[float],
) -> Group:
    """Per level: cache size, the sizes used, the plateau (cost removed), as measured, x DRAM."""
    size_of = dict(levels)
    dram = next((p for p in plateaus if p.name == "DRAM" and p.bytes_per_s), None)
    rows = []
    for p in plateaus:
        ok = bool(p.bytes_per_s)
        rows.append(
            [
                p.name,
                _binary(size_of[p.name], 0) if p.name in size_of else "-",
                _range_text(p, sizes) if ok else "-",
                p.points,
                "-" if p.margin is None else f"{p.margin:.3g}",
                fmt_bw(p.bytes_per_s) if ok else "no point inside",
                fmt_bw(measured[p.name]) if ok else "-",
                fmt_ratio(p.bytes_per_s / dram.bytes_per_s, 1) if ok and dram else "-",
            ]
        )
    return Group(
        Heading(f"Plateaus ({method})"),
        Table(
            [
                "level",
                "cache size",
                "sizes used",
                "points",
                "margin",
                "plateau",
                "measured",
                "x DRAM",
            ],
            rows,
        ),
    )


def detected_table(detected: Sequence[Plateau], levels: Levels) -> Group:
    """The plateaus the change-point detector finds without the cache sizes."""
    title = "What the change-point detector finds without the cache sizes"
    if not detected:
        return Group(
            Heading(title),
            Text("the detector found no run of flat points (too few sizes or too much noise)"),
        )
    return Group(
        Heading(title),
        Table(
            ["plateau", "from", "to", "points", "bandwidth", "fits in"],
            [
                [
                    d.name,
                    _binary(d.lo_bytes, 0),
                    _binary(d.hi_bytes, 0),
                    d.points,
                    fmt_bw(d.bytes_per_s),
                    fits_in(math.sqrt(d.lo_bytes * d.hi_bytes), levels),
                ]
                for d in detected
            ],
        ),
    )


def plateau_observations(
    found: Sequence[Plateau], detected: Sequence[Plateau], levels: Levels
) -> Observations:
    """How much each step down the hierarchy costs, and what the blind detector makes of it."""
    items = []
    if len(found) >= 2:
        first, last = found[0], found[-1]
        items.append(
            f"The {first.name} plateau is {fmt_bw(first.bytes_per_s)} and the {last.name} "
            f"plateau {fmt_bw(last.bytes_per_s)}: the same operation streams "
            f"{fmt_ratio(first.bytes_per_s / last.bytes_per_s, 1)} faster when its data "
            f"fits in {first.name}."
        )
    for inner, outer in itertools.pairwise(found):
        ratio = inner.bytes_per_s / outer.bytes_per_s
        a, b = fmt_bw(inner.bytes_per_s), fmt_bw(outer.bytes_per_s)
        if ratio >= MATCH:
            items.append(
                f"Leaving {inner.name} for {outer.name} costs {fmt_ratio(ratio)} in bandwidth "
                f"({a} to {b})."
            )
        elif ratio > 1 / MATCH:
            items.append(
                f"{inner.name} ({a}) and {outer.name} ({b}) differ by only {fmt_ratio(ratio)}. "
                "When two neighbouring plateaus match, the limit is not that cache but the "
                "core: numpy's loop and the load/store units cannot use the faster level."
            )
        else:
            items.append(
                f"The {inner.name} plateau ({a}) comes out below the {outer.name} plateau ({b}). "
                f"No cache is slower than the one outside it: at {inner.name} sizes the fixed "
                "call cost is most of the time, so the corrected bandwidth there is the least "
                "certain number of the sweep (rerun when the machine is quiet)."
            )
    if levels:
        homes = [fits_in(math.sqrt(d.lo_bytes * d.hi_bytes), levels) for d in detected]
        pairs = zip(detected, homes, strict=True)
        named = ", ".join(f"{fmt_bw(d.bytes_per_s)} in {h}" for d, h in pairs)
        crowded = sorted({h for h in homes if homes.count(h) > 1})
        text = (
            f"Without the sizes, the change-point detector finds {len(detected)} plateau(s) "
            f"({named or 'none'}) where the operating system names {len(found)} levels."
        )
        if crowded:
            text += (
                f" More than one lies inside {', '.join(crowded)}: a gradual transition, a "
                "step in numpy's own loop or a change in the machine's load, rather than a "
                "cache boundary. That is why the sizes the operating system reports come first."
            )
        elif len(detected) < len(found):
            text += (
                f" Levels within {fmt_ratio(SAME_LEVEL_STEP)} of each other, or with too few "
                "points, merge or vanish for the detector."
            )
        items.append(text)
    return Observations(items)


def sweep_caption(found: Sequence[Plateau], call_limit: float | None) -> str:
    """What to look at in the bandwidth-by-working-set figure."""
    steps = ", ".join(f"{p.name} {fmt_bw(p.bytes_per_s)}" for p in found)
    shaded = (
        f" In the grey band (working sets up to {_binary(call_limit)}) the fixed cost of a "
        "call is at least a tenth of its time, so the measured curve (grey) sits below the "
        "corrected one."
        if call_limit is not None
        else ""
    )
    return (
        "Bandwidth of z = x + y against its working set, with the cache sizes the operating "
        "system reports as dashed lines. Look at the steps down: each coloured bar is a "
        f"plateau, drawn over the sizes it was taken from ({steps})." + shaded
    )


def call_cost_observations(
    costs: Mapping[str, Any],
    sizes: Sequence[float],
    shares: Sequence[float],
    measured: Sequence[float],
    call_limit: float | None,
    small: Sequence[tuple[float, float]],
    fit: tuple[float, float] | None,
    first_level: str,
) -> Observations:
    """The fixed cost against the smallest sizes; a line fit through their times checks it."""
    call_s, gil_s = costs["call_seconds"], costs["gil_seconds"]
    items = [
        f"One call costs {fmt_time(call_s)} before it moves a byte "
        f"({fmt_time(call_s + gil_s)} above {GIL_RELEASE_ELEMENTS} elements). That is "
        f"{shares[0]:.0%} of the time at the smallest working set, {_binary(sizes[0])}, where "
        f"the measured bandwidth is only {fmt_bw(measured[0])}."
    ]
    if call_limit is not None:
        items.append(
            f"The fixed cost is at least {CALL_COST_MATTERS:.0%} of a call up to a working set "
            f"of {_binary(call_limit)}; past that the correction changes the bandwidth by less "
            "than that."
        )
    if fit is not None and fit[1] > 0:
        items.append(
            f"A line fitted to the times of the {len(small)} sizes from {_binary(small[0][0])} "
            f"to {_binary(small[-1][0])} crosses zero bytes at {fmt_time(fit[0])}, against "
            f"{fmt_time(call_s + gil_s)} measured directly; its slope gives "
            f"{fmt_bw(1 / fit[1])}, a second estimate of the {first_level} roof."
        )
    return Observations(items)


def threads_table(
    threaded: Mapping[str, Any],
    ridge_one: float,
    ridge_all: float | None,
    peak: float,
    blas_threads: object,
) -> Group:
    """DRAM bandwidth from one thread and from every core, with the ridge point of each."""
    n, all_bw = threaded["threads"], threaded["all_thread_bytes_per_s"]
    table = Group(
        Heading(
            f"DRAM bandwidth at {_binary(threaded['working_set_bytes'])}: 1 thread against {n}"
        ),
        Table(
            ["threads", "bandwidth", "ridge point P / beta"],
            [
                ["1", fmt_bw(threaded["one_thread_bytes_per_s"]), f"{ridge_one:.1f} FLOP/byte"],
                [
                    str(n),
                    fmt_bw(all_bw) if all_bw else "-",
                    f"{ridge_all:.1f} FLOP/byte" if ridge_all else "-",
                ],
            ],
        ),
    )
    word = "thread" if blas_threads == 1 else "threads"
    return Group(table, Text(f"P = {_flops(peak)} (matmul on {blas_threads} BLAS {word})"))


def threads_observations(
    threaded: Mapping[str, Any],
    ridge_one: float,
    ridge_all: float | None,
    sweep_bytes_per_s: float,
) -> Observations:
    """What every core adds at DRAM, the fairer ridge point, and the sweep's own DRAM point."""
    n = threaded["threads"]
    one_bw, all_bw = threaded["one_thread_bytes_per_s"], threaded["all_thread_bytes_per_s"]
    items = []
    if all_bw and ridge_all:
        gain = all_bw / one_bw
        streams = f"{n} threads stream {fmt_bw(all_bw)} from DRAM against {fmt_bw(one_bw)} from one"
        if gain >= 1.1:
            items.append(
                f"{streams}: {fmt_ratio(gain)}. One core cannot keep enough requests in flight "
                "to use all the memory bandwidth."
            )
        else:
            items.append(
                f"{streams} ({fmt_ratio(gain)}): no real gain this time. Either one core "
                "already saturates this memory system, or other programs kept the other cores "
                "busy during the measurement (rerun when it is quiet)."
            )
        if abs(ridge_all / ridge_one - 1) < 0.05:
            change = "stays about the same,"
        else:
            change = "drops" if ridge_all < ridge_one else "rises"
        items.append(
            f"The ridge point {change} from {ridge_one:.1f} to {ridge_all:.1f} FLOP/byte, when "
            "the bandwidth roof uses every core, as the compute roof does. That is the fairer "
            "ridge point for a program that runs on every core."
        )
    else:
        items.append(
            "This process may run on one core only, so there is no all-thread measurement; "
            f"the ridge point stays {ridge_one:.1f} FLOP/byte."
        )
    gap = sweep_bytes_per_s / one_bw - 1  # the sweep's point relative to this one
    agreement = (
        "the two agree"
        if abs(gap) <= 0.1
        else "a gap that size shows how much the machine's load moves a DRAM measurement "
        "from one moment to the next"
    )
    items.append(
        f"One thread here streams {fmt_bw(one_bw)}; the sweep measured "
        f"{fmt_bw(sweep_bytes_per_s)} at the same working set, {abs(gap):.0%} "
        f"{'less' if gap < 0 else 'more'}: {agreement}."
    )
    return Observations(items)


def operations_table(operations: Sequence[Mapping[str, Any]]) -> Group:
    """Each operation: where its data lives, I, GFLOP/s, the model's roof, the closest roof."""
    return Group(
        Heading("Operations on the hierarchical roofline"),
        Table(
            [
                "operation",
                "data in",
                "I (FLOP/B)",
                "GFLOP/s",
                "model's roof",
                "of it",
                "closest roof",
            ],
            [
                [
                    op["label"],
                    op["level"],
                    f"{op['intensity']:.3g}",
                    f"{op['flops_per_s'] / 1e9:.2f}",
                    op["predicted_roof"] or "-",
                    "-"
                    if op["fraction_of_predicted"] is None
                    else f"{op['fraction_of_predicted']:.0%}",
                    op["closest_roof"],
                ]
                for op in operations
            ],
            note="The adds were timed again for this table and their GFLOP/s have the fixed call "
            "cost removed; the matmuls are timed as they are.",
        ),
    )


def operations_observations(operations: Sequence[Mapping[str, Any]], peak: float) -> Observations:
    """Whether each add sits on the roof of its level, and how far the matmuls reach."""
    items = []
    adds = [op for op in operations if op["label"].startswith("add")]
    for op in adds:
        verdict = (
            "as the model predicts"
            if op["closest_roof"] == op["predicted_roof"]
            else f"not the {op['predicted_roof']} roof the model predicts"
        )
        items.append(
            f"The add with a {_binary(op['working_set_bytes'])} working set (data in "
            f"{op['level']}) runs at {_flops(op['flops_per_s'], 2)}, closest to the "
            f"{op['closest_roof']} roof, {verdict}."
        )
    if adds:
        items.append(
            f"With its call cost, the {adds[0]['level']}-sized add reaches only "
            f"{_flops(adds[0]['flops_per_s_with_call_cost'], 2)}: at that size no memory roof "
            "bounds a numpy call, the fixed cost does."
        )
    for op in operations:
        if op["label"].startswith("matmul"):
            where = f", data in {op['level']}" if op["level"] != "-" else ""
            items.append(
                f"{op['label']} (I = {op['intensity']:.0f} FLOP/byte{where}) runs at "
                f"{_flops(op['flops_per_s'])}, {op['flops_per_s'] / peak:.1%} of the compute "
                f"roof; its closest roof is {op['closest_roof']}."
            )
    return Observations(items)


def roofline_caption(operations: Sequence[Mapping[str, Any]], peak: float) -> str:
    """What to look at in the hierarchical roofline."""
    adds = [op for op in operations if op["label"].startswith("add")]
    on_own = sum(op["closest_roof"] == op["predicted_roof"] for op in adds)
    same_i = f", I = {adds[0]['intensity']:.3g} FLOP/byte," if adds else ""
    return (
        "One bandwidth roof per memory level (solid, one thread; dashed, DRAM from every "
        f"core) under the compute roof of {_flops(peak)}. Every add has the same intensity"
        f"{same_i} and is labelled with the level its data lives in. Look at which roof each "
        f"one touches: {on_own} of the {len(adds)} sit closest to the roof of their own level. "
        "The matmuls sit far to the right, under the compute roof."
    )
