"""Lecture 09's words: the caches, the sweep, the plateaus, the threads, the roofs per level,
from one record per section; every comparison decided by ``common.present.claims``."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from common.formulas.hierarchy import CALL_COST_MATTERS, GIL_RELEASE_ELEMENTS, Plateau, fits_in
from common.present.claims import change, counted, direction, n_of_m, speed
from common.present.console import fmt_bw, fmt_kib, fmt_rate, fmt_ratio, fmt_time
from common.present.display import Facts, Group, Heading, Observations, Table, Text
from common.present.say import say
from lectures.words import section

Levels = Sequence[tuple[str, int]]  # the data caches, innermost first: (name, bytes)
Row = Mapping[str, Any]
MATCH = 1.05  # neighbouring plateaus closer than 5% are called equal
GAIN = 1.1  # every core streams at least 10% more than one: a real gain
AGREE = 0.1  # two DRAM measurements within 10% agree


_ridge = "{:.1f}".format


def cache_table(caches: Sequence[Any], source: str) -> Group | Text:
    """The caches the operating system reports (name, kind, size_bytes, shared_cpus)."""
    if not caches:
        unknown = "cache sizes: unknown (the operating system does not report them here); the "
        unknown += "sweep runs without marked sizes and a change-point detector finds the plateaus"
        return Text(unknown)
    shared = [f"{c.shared_cpus} CPU(s)" if c.shared_cpus else "-" for c in caches]
    rows = [
        [c.name, c.kind, fmt_kib(c.size_bytes, 0), n] for c, n in zip(caches, shared, strict=True)
    ]
    table = Table(["cache", "type", "size", "shared by"], rows, note=f"source: {source}")
    return section("Caches the operating system reports (as core 0 sees them)", table)


@dataclass(frozen=True)
class ComputeRoof:  # section 2: the calibration, the matmuls timed here, the roof kept
    calibrated: float  # FLOP/s, from the calibration
    source: str  # which calibration
    matmuls: Sequence[Row]  # side, bytes, flops_per_s
    peak: float  # FLOP/s: the faster of the calibration and the matmuls


def compute_roof(r: ComputeRoof) -> Group:
    """The calibrated roof, the two matmuls, and the raise when one of them beat it."""
    facts = [("compute roof", f"{fmt_rate(r.calibrated)} ({r.source})")]
    for m in r.matmuls:
        matrices = f"({fmt_kib(m['bytes'], 2)} of matrices)"
        facts.append((f"matmul n={m['side']}", f"{fmt_rate(m['flops_per_s'])} {matrices}"))
    if direction(r.calibrated, r.peak, fmt_rate) <= 0:
        return Group(Facts(facts))
    side = max(r.matmuls, key=lambda m: m["flops_per_s"])["side"]
    raised = f"compute roof raised from {fmt_rate(r.calibrated)} to {fmt_rate(r.peak)}: the "
    raised += f"n={side} matmul ran faster than the calibration, which other work probably slowed"
    return Group(Facts(facts), Text(raised))


def call_cost_table(costs: Mapping[str, float]) -> Group:
    """t_call on one element, the extra above the GIL threshold, and their sum."""
    call_s, gil_s, n = costs["call_seconds"], costs["gil_seconds"], GIL_RELEASE_ELEMENTS
    rows = [
        ["call on 1 element (t_call)", fmt_time(call_s)],
        [f"extra when numpy releases the GIL (> {n} elements)", fmt_time(gil_s)],
        [f"fixed cost of a call on > {n} elements", fmt_time(call_s + gil_s)]]  # fmt: skip
    return section("Fixed cost of one call of z = x + y", Table(["what", "time"], rows))


@dataclass(frozen=True)
class Sweep:  # section 4: the sweep, the fixed cost again, the cache note
    points: Sequence[Row]  # working_set_bytes, seconds, bytes_per_s, corrected_bytes_per_s
    shares: Sequence[float]  # t0 / t at each point
    levels: Levels
    seconds: float  # the sweep's wall time
    after: Mapping[str, float]  # call and GIL seconds measured after the sweep
    used: Mapping[str, float]  # the lower of the two measurements
    reach: str | None  # budget.cache_note on the largest working set, None when clear


def sweep(r: Sweep) -> Group:
    """The second fixed-cost line, the table of the sweep and the note on its reach."""
    a, u = r.after, r.used
    line = f"fixed cost measured again after the sweep: {fmt_time(a['call_seconds'])} "
    line += f"(+{fmt_time(a['gil_seconds'])} above {GIL_RELEASE_ELEMENTS} elements); used: "
    line += f"{fmt_time(u['call_seconds'])} (+{fmt_time(u['gil_seconds'])})"
    rows = []
    for p, share in zip(r.points, r.shares, strict=True):
        size, corrected = p["working_set_bytes"], p["corrected_bytes_per_s"]
        cells = [fmt_time(p["seconds"]), f"{share:.0%}", fmt_bw(p["bytes_per_s"])]
        cells += ["-" if corrected is None else fmt_bw(corrected)]
        rows.append([fmt_kib(size, 1), fits_in(size, r.levels), *cells])
    lo, hi, n = r.points[0]["working_set_bytes"], r.points[-1]["working_set_bytes"], len(rows)
    homes = [row[1] for row in rows]  # the levels the plateaus below are named after
    starts = [i for i, h in enumerate(homes) if i and h != homes[i - 1]]  # a level's first size
    head = ["working set", "fits in", "time/call", "call cost", "measured", "cost removed"]
    note = f"sweep: {n} sizes from {fmt_kib(lo, 2)} to {fmt_kib(hi, 2)} in {r.seconds:.1f} s"
    table = Table(head, rows, note=note, keep=[0, *starts] if starts else [])
    note = [Text(f"note: {r.reach}; the DRAM plateau below is not DRAM alone")] if r.reach else []
    heading = Heading(f"Bandwidth of z = x + y against working set ({n} sizes)")
    return Group(Text(line), heading, table, *note)


@dataclass(frozen=True)
class Plateaus:  # section 5: a plateau per level, the detector's, the fixed cost's reach
    plateaus: Sequence[Plateau]  # bytes_per_s None where no point fell inside
    detected: Sequence[Plateau]
    levels: Levels
    method: str  # how the levels were found
    measured: Mapping[str, float]  # each found plateau's median without the correction
    sizes: Sequence[float]  # the sweep's working sets
    call_limit: float | None  # largest set whose fixed cost is >= CALL_COST_MATTERS of a call

    @property
    def found(self) -> list[Plateau]:
        return [p for p in self.plateaus if p.bytes_per_s is not None]


def _home(d: Plateau, levels: Levels) -> str:
    return fits_in(math.sqrt(d.lo_bytes * d.hi_bytes), levels)


def plateau_tables(r: Plateaus) -> Group:
    """Per level: cache size, sizes used, the plateau, as measured, x DRAM; then the detector's."""
    size_of, lo, hi = dict(r.levels), r.sizes[0], r.sizes[-1]
    dram = next((p.bytes_per_s for p in r.found if p.name == "DRAM"), None)
    rows = []
    for p in r.plateaus:
        size = fmt_kib(size_of[p.name], 0) if p.name in size_of else "-"
        if p.bytes_per_s is None:
            rows.append([p.name, size, "-", p.points, "-", "no point inside", "-", "-"])
            continue
        used = f"{fmt_kib(max(p.lo_bytes, lo), 0)} - {fmt_kib(min(p.hi_bytes, hi), 0)}"
        margin = "-" if p.margin is None else f"{p.margin:.3g}"
        x_dram = fmt_ratio(p.bytes_per_s / dram, 1) if dram else "-"
        bws = [fmt_bw(p.bytes_per_s), fmt_bw(r.measured[p.name])]
        rows.append([p.name, size, used, p.points, margin, *bws, x_dram])
    head = ["level", "cache size", "sizes used", "points", "margin", "plateau", "measured"]
    head += ["x DRAM"]
    title = "What the change-point detector finds without the cache sizes"
    found = [
        [d.name, fmt_kib(d.lo_bytes, 0), fmt_kib(d.hi_bytes, 0), d.points, fmt_bw(d.bytes_per_s),
         _home(d, r.levels)]
        for d in r.detected]  # fmt: skip
    detected = Table(["plateau", "from", "to", "points", "bandwidth", "fits in"], found)
    none = Text("the detector found no run of flat points (too few sizes or too much noise)")
    shown = detected if r.detected else none
    return section(f"Plateaus ({r.method})", Table(head, rows), Heading(title), shown)


def plateau_observations(r: Plateaus) -> Observations:
    """How much each step down the hierarchy costs, and what the blind detector makes of it."""
    found, items = r.found, []
    if len(found) >= 2:
        first, last = found[0], found[-1]
        steps = f"The {first.name} plateau is {fmt_bw(first.bytes_per_s)} and the {last.name} "
        steps += f"plateau {fmt_bw(last.bytes_per_s)}: the same operation streams "
        steps += f"{speed(first.bytes_per_s, last.bytes_per_s, 1)} when its data fits in "
        items.append(steps + f"{first.name}.")
    for inner, outer in itertools.pairwise(found):
        x = inner.bytes_per_s / outer.bytes_per_s
        a, b = fmt_bw(inner.bytes_per_s), fmt_bw(outer.bytes_per_s)
        if x >= MATCH:
            step = f"Leaving {inner.name} for {outer.name} costs {fmt_ratio(x)} in bandwidth "
            step += f"({a} to {b})."
        elif x > 1 / MATCH:
            step = f"{inner.name} ({a}) and {outer.name} ({b}) are within {MATCH - 1:.0%} of each "
            step += "other. When two neighbouring plateaus match, the limit is not that cache but "
            step += "the core: numpy's loop and the load/store units cannot use the faster level."
        else:
            step = f"The {inner.name} plateau ({a}) comes out below the {outer.name} plateau "
            step += f"({b}). No cache is slower than the one outside it: at {inner.name} sizes "
            step += "the fixed call cost is most of the time, so the corrected bandwidth there "
            step += "is the least certain number of the sweep (rerun when the machine is quiet)."
        items.append(step)
    if r.levels:
        homes = [_home(d, r.levels) for d in r.detected]
        named = ", ".join(
            f"{fmt_bw(d.bytes_per_s)} in {h}" for d, h in zip(r.detected, homes, strict=True)
        )
        crowded = sorted({h for h in homes if homes.count(h) > 1})
        plateaus = f"{counted(len(r.detected), 'plateau')} ({named})" if named else "no plateau"
        text = f"Without the sizes, the change-point detector finds {plateaus} where the "
        text += f"operating system names {counted(len(found), 'level')}."
        if crowded:
            text += f" More than one lies inside {', '.join(crowded)}: a gradual transition, a "
            text += "step in numpy's own loop or a change in the machine's load, rather than a "
            text += "cache boundary. That is why the sizes the operating system reports come first."
        elif len(r.detected) < len(found):
            text += " Levels close to each other, or with too few points, merge or vanish for it."
        items.append(text)
    return Observations(items)


def sweep_caption(r: Plateaus) -> str:
    """What to look at in the bandwidth-by-working-set figure."""
    caption = say(
        "Bandwidth of z = x + y against its working set, with the cache sizes the operating "
        "system reports as dashed lines. Look at the steps down: each coloured bar is a "
        "plateau, drawn over the sizes it was taken from ({steps}).",
        steps=", ".join(f"{p.name} {fmt_bw(p.bytes_per_s)}" for p in r.found))  # fmt: skip
    if r.call_limit is None:
        return caption
    return say(
        "{caption} In the grey band (working sets up to {size}) the fixed cost of a call is at "
        "least {share} of its time, so the measured curve (grey) sits below the corrected one.",
        caption=caption,
        size=fmt_kib(r.call_limit, 2),
        share=f"{CALL_COST_MATTERS:.0%}")  # fmt: skip


@dataclass(frozen=True)
class FixedCost:  # section 6: the fixed cost at the smallest sizes, a line fit
    costs: Mapping[str, float]  # call_seconds, gil_seconds
    smallest: tuple[float, float, float]  # the smallest set: bytes, fixed-cost share, D / t
    call_limit: float | None
    small: Sequence[tuple[float, float]]  # (bytes, seconds) of the sizes fitted
    fit: tuple[float, float] | None  # t = t0 + D / beta: (t0, 1 / beta), None: too few sizes
    first_level: str  # the innermost level with a plateau


def fixed_cost_observations(r: FixedCost) -> Observations:
    """What the fixed cost does to the smallest sizes; the fit's intercept checks it."""
    call_s, gil_s = r.costs["call_seconds"], r.costs["gil_seconds"]
    size, share, bw = r.smallest
    items = [
        f"One call costs {fmt_time(call_s)} before it moves a byte ({fmt_time(call_s + gil_s)} "
        f"above {GIL_RELEASE_ELEMENTS} elements). That is {share:.0%} of the time at the smallest "
        f"working set, {fmt_kib(size, 2)}, where the measured bandwidth is {fmt_bw(bw)}."
    ]
    if r.call_limit is not None:
        reach = f"The fixed cost is at least {CALL_COST_MATTERS:.0%} of a call up to a working "
        reach += f"set of {fmt_kib(r.call_limit, 2)}; past that the correction changes the "
        items.append(reach + "bandwidth by less than that.")
    if r.fit is not None and r.fit[1] > 0:
        fit = f"A line fitted to the times of the {len(r.small)} sizes from "
        fit += f"{fmt_kib(r.small[0][0], 2)} to {fmt_kib(r.small[-1][0], 2)} crosses zero bytes "
        fit += f"at {fmt_time(r.fit[0])}, against {fmt_time(call_s + gil_s)} measured directly; "
        fit += f"its slope gives {fmt_bw(1 / r.fit[1])}, a second estimate of the "
        items.append(fit + f"{r.first_level} roof.")
    return Observations(items)


@dataclass(frozen=True)
class Threads:  # section 7: DRAM from one thread and every core, their ridges
    threads: int
    working_set_bytes: float
    one_bw: float  # bytes/s, one thread
    all_bw: float | None  # bytes/s, every thread (None: one core only)
    ridge_one: float  # P / one_bw, FLOP/byte
    ridge_all: float | None  # P / all_bw
    peak: float  # FLOP/s, the compute roof
    blas_threads: object  # what the BLAS reports
    sweep_bw: float  # the sweep's D / t at the same working set


def threads_table(r: Threads) -> Group:
    """DRAM bandwidth from one thread and from every core, with the ridge point of each."""
    every = [fmt_bw(r.all_bw) if r.all_bw else "-"]
    every += [f"{_ridge(r.ridge_all)} FLOP/byte" if r.ridge_all else "-"]
    rows = [["1", fmt_bw(r.one_bw), f"{_ridge(r.ridge_one)} FLOP/byte"], [str(r.threads), *every]]
    title = f"DRAM bandwidth at {fmt_kib(r.working_set_bytes, 2)}: 1 thread against {r.threads}"
    word = "thread" if r.blas_threads == 1 else "threads"
    table = Table(["threads", "bandwidth", "ridge point P / beta"], rows)
    return section(title, table, f"P = {fmt_rate(r.peak)} (matmul on {r.blas_threads} BLAS {word})")


def threads_observations(r: Threads) -> Observations:
    """What every core adds at DRAM, the fairer ridge point, and the sweep's own DRAM point."""
    items = []
    if r.all_bw:
        streams = f"{r.threads} threads stream {fmt_bw(r.all_bw)} from DRAM against "
        streams += f"{fmt_bw(r.one_bw)} from one"
        if r.all_bw >= GAIN * r.one_bw:
            streams += f": {fmt_ratio(r.all_bw / r.one_bw)}. One core cannot keep enough "
            streams += "requests in flight to use all the memory bandwidth."
        else:
            streams += f", less than {fmt_ratio(GAIN, 1)}: no real gain this time. Either one "
            streams += "core already saturates this memory system, or other programs kept the "
            streams += "other cores busy during the measurement (rerun when it is quiet)."
        moved = change(
            r.ridge_one, r.ridge_all, _ridge, " FLOP/byte", ("rises", "drops", "stays at")
        )
        fair = f"The ridge point {moved} when the bandwidth roof uses every core, as the compute "
        fair += "roof does. That is the fairer ridge point for a program that runs on every core."
        items += [streams, fair]
    else:
        one = "This process may run on one core only, so there is no all-thread measurement; "
        items.append(one + f"the ridge point stays {_ridge(r.ridge_one)} FLOP/byte.")
    gap = r.sweep_bw / r.one_bw - 1  # the sweep's point against this one
    than = "less" if gap < 0 else "more"
    said = "the same" if f"{abs(gap):.0%}" == "0%" else f"{abs(gap):.0%} {than}"
    agreement = "a gap that size shows how much the machine's load moves a DRAM measurement "
    agreement += "from one moment to the next"
    agreement = "the two agree" if abs(gap) <= AGREE else agreement
    sweep = f"One thread here streams {fmt_bw(r.one_bw)}; the sweep measured "
    sweep += f"{fmt_bw(r.sweep_bw)} at the same working set, {said}: {agreement}."
    return Observations([*items, sweep])


def operations_table(operations: Sequence[Row]) -> Group:
    """Each operation: where its data lives, I, GFLOP/s, the model's roof, the closest roof."""
    rows = [
        [op["label"], op["level"], f"{op['intensity']:.3g}", f"{op['flops_per_s'] / 1e9:.2f}",
         op["predicted_roof"] or "-", "-" if share is None else f"{share:.0%}", op["closest_roof"]]
        for op in operations
        for share in [op["fraction_of_predicted"]]]  # fmt: skip
    head = ["operation", "data in", "I (FLOP/B)", "GFLOP/s", "model's roof", "of it"]
    head += ["closest roof"]
    note = "The adds were timed again for this table and their GFLOP/s have the fixed call "
    note += "cost removed; the matmuls are timed as they are."
    return section("Operations on the hierarchical roofline", Table(head, rows, note=note))


def operations_observations(operations: Sequence[Row], peak: float) -> Observations:
    """Whether each add sits on the roof of its level, and how far the matmuls reach."""
    items, adds = [], [op for op in operations if op["label"].startswith("add")]
    for op in adds:
        verdict = "as the model predicts"
        if op["closest_roof"] != op["predicted_roof"]:
            verdict = f"not the {op['predicted_roof']} roof the model predicts"
        add = f"The add with a {fmt_kib(op['working_set_bytes'], 2)} working set (data in "
        add += f"{op['level']}) runs at {fmt_rate(op['flops_per_s'], 2)}, closest to the "
        items.append(add + f"{op['closest_roof']} roof, {verdict}.")
    if adds:
        first, paid = adds[0], adds[0]["flops_per_s_with_call_cost"]
        share = 1 - paid / first["flops_per_s"]  # of the call's time, the fixed cost's share
        if direction(first["flops_per_s"], paid, lambda x: fmt_rate(x, 2)) < 0:
            cause = "the fixed cost takes less than half of the call"
            if share >= 0.5:
                cause = "at that size no memory roof bounds a numpy call, the fixed cost does"
            paying = f"With its call cost, the {first['level']}-sized add reaches "
            paying += f"{fmt_rate(paid, 2)} against {fmt_rate(first['flops_per_s'], 2)} without it"
            items.append(paying + f": {cause}.")
    for op in operations:
        if op["label"].startswith("matmul"):
            where = f", data in {op['level']}" if op["level"] != "-" else ""
            matmul = f"{op['label']} (I = {op['intensity']:.0f} FLOP/byte{where}) runs at "
            matmul += f"{fmt_rate(op['flops_per_s'])}, {op['flops_per_s'] / peak:.1%} of the "
            items.append(matmul + f"compute roof; its closest roof is {op['closest_roof']}.")
    return Observations(items)


def roofline_caption(operations: Sequence[Row], peak: float) -> str:
    """What to look at in the hierarchical roofline."""
    adds = [op for op in operations if op["label"].startswith("add")]
    on_own = sum(op["closest_roof"] == op["predicted_roof"] for op in adds)
    i = f"{adds[0]['intensity']:.3g}" if adds else ""
    look = ""
    if len(adds) > 1:
        look = say(
            "Every add has the same intensity, I = {i} FLOP/byte, and is labelled with the "
            "level its data lives in. Look at which roof each one touches: {count} sit closest "
            "to the roof of their own level. ",
            i=i,
            count=n_of_m(on_own, len(adds)))  # fmt: skip
    elif adds:
        look = say(
            "The add, at I = {i} FLOP/byte, is labelled with the level its data lives in; "
            "look at which roof it touches: its own level's is {closest}. ",
            i=i,
            closest=say("the closest") if on_own else say("not the closest"))  # fmt: skip
    return say(
        "One bandwidth roof per memory level (solid, one thread; dashed, DRAM from every "
        "core) under the compute roof of {peak}. {look}The matmuls sit far to the right, "
        "under the compute roof.",
        peak=fmt_rate(peak),
        look=look)  # fmt: skip
