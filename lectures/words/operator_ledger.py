"""Lecture 05's words (standard library only): the operator ledger's tables and sentences."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from common.formulas.thresholds import Crossover
from common.present import claims, console
from common.present.claims import change, direction, listing, n_of_m, rose, speed, than, times
from common.present.console import fmt_bw, fmt_bytes, fmt_flops, fmt_peak, fmt_rate, fmt_time
from common.present.display import Figure, Group, Table
from common.present.explain import crossover_line
from common.present.say import say
from lectures.words import figure, section


@dataclass(frozen=True)
class Roof:  # a machine at one precision: peak P (FLOP/s), bandwidth beta (B/s), I* = P / beta
    chip: str
    precision: str
    peak: float
    bw: float
    ridge: float


@dataclass(frozen=True)
class Machines:  # section 1: A100 bf16, H100 bf16, H100 fp8 (then the lecture's chip), here
    roofs: tuple[Roof, ...]
    local: Roof | None  # lecture 01's numpy fp32 roofs, when saved
    reason: str = ""  # why there are none


@dataclass(frozen=True)
class Op:  # an operator: F, D (B), I, bound, T = max(F/P, D/beta) (s), speedups at 2P, 2 beta
    name: str
    flops: float
    nbytes: float
    intensity: float
    bound: str
    time: float
    speedups: tuple[float, float] = (1.0, 1.0)


@dataclass(frozen=True)
class Ledger:  # sections 2, 4, 5: the operators (the last two: naive, ideal attention)
    roof: Roof
    elem_bytes: float
    ops: tuple[Op, ...]


@dataclass(frozen=True)
class Rooflines:  # section 3: the saved figure and, per chip, the key numbers on its flat roof
    path: str
    precision: str
    flat: tuple[tuple[str, tuple[int, ...]], ...]
    count: int  # operators in the key


@dataclass(frozen=True)
class Sweep:  # section 6: GEMM [M, width] x [width, width] per M from 1; first M with I >= I*
    roof: Roof
    width: int
    rows: dict[int, Op]
    cross: Crossover | None
    exact_m: int | None  # smallest integer M with I >= I*, if any
    limit: float  # I as M grows without bound (FLOP/B)


def _time(t: float) -> str:
    """0.089 ms from 0.01 ms up, else fmt_time's own unit (4.38 µs): ratios read off the text."""
    return fmt_time(t, "ms", 3) if t >= 1e-5 else fmt_time(t)


def _roof(r: Roof) -> list[str]:
    return [fmt_bw(r.bw, 3), f"{r.ridge:,.1f}"]


def machines(m: Machines) -> Group:
    """Peak, bandwidth and ridge of each roof, this machine's, and the A100 -> H100 step."""
    rows = [[f"{r.chip} ({r.precision})", fmt_peak(r.peak), *_roof(r)] for r in m.roofs]
    here = ["this machine (numpy, fp32)", "not measured (run lecture 01)", "-", "-"]
    rows.append([here[0], fmt_rate(m.local.peak), *_roof(m.local)] if m.local else here)
    a, h, h8 = m.roofs[:3]
    lo, hi = sorted((a.ridge, h.ridge))  # a kernel between the ridges changes side
    band = f"a kernel between {lo:,.1f} and {hi:,.1f} FLOP/B"
    who = {
        1: f"{band} falls to the memory-bound side",
        -1: f"{band} reaches the compute roof it misses on the older",
        0: "the same kernels are memory-bound on both",
    }[direction(a.ridge, h.ridge)]
    fp8 = f"{h.chip}'s fp8 peak is {than(h8.peak / h.peak)} its bf16 peak"
    if direction(h.peak, h8.peak, fmt_peak) > 0:  # the gain over bf16, and where it helps
        fp8 += f" and {than(h8.peak / a.peak)} {a.chip}'s {a.precision} peak: it helps only "
        fp8 += "kernels that are compute-bound (and can run in fp8)."
    else:
        fp8 += " in this table, so it helps no kernel."
    grown = claims.outgrew("bf16 compute", h.peak / a.peak, "bandwidth", h.bw / a.bw)
    items = [
        f"From {a.chip} to {h.chip}, {grown}, so the ridge point "
        f"{rose(a.ridge, h.ridge, unit=' FLOP/B')}: on the newer chip {who}.",
        fp8 + " Quoting the wrong precision's peak can flip the verdict of the ledger.",
    ]
    if m.local:
        text = f"This machine's ridge point is {m.local.ridge:,.1f} FLOP/B, measured with numpy in "
        text += "fp32. It is what numpy can reach, not a datasheet figure: another BLAS library or "
        items.append(text + "thread count moves it.")
    table = Table(["machine", "peak P", "bandwidth beta", "ridge I* (FLOP/B)"], rows)
    note = None if m.local else f"note: this machine is not measured: {m.reason}"
    return section("Machines: peak compute, bandwidth and ridge point", table, note, items=items)


def _counts(o: Op) -> list[str]:
    return [fmt_flops(o.flops), fmt_bytes(o.nbytes)]


def ratio(o: Op, r: Roof) -> list[str]:
    """I / I*, the bound and the time bound: the ledger table's last columns."""
    return [console.fmt_fraction(o.intensity / r.ridge), o.bound, _time(o.time)]


def ledger(led: Ledger) -> Group:
    """Each operator's F, D, I, I/I*, bound and time bound; how many are memory-bound."""
    r = led.roof
    rows = [[o.name, *_counts(o), f"{o.intensity:.2f}", *ratio(o, r)] for o in led.ops]
    memory = sum(o.bound == "memory" for o in led.ops)
    add, norm, gemm = (
        next(o for o in led.ops if o.name.startswith(p)) for p in ("elem", "LayerNorm", "GEMM")
    )
    fast = [n for n, o in (("the add", add), ("LayerNorm", norm)) if o.bound == "compute"]
    reach = "reaches" if len(fast) == 1 else "reach"
    verdict = f"{listing(fast)} {reach} the compute roof here, so faster arithmetic helps."
    if not fast:
        verdict = "both are memory-bound, so a faster arithmetic unit cannot shorten them at all."
    items = [
        f"{n_of_m(memory, len(led.ops)).capitalize()} operators "
        f"{'is' if memory == 1 else 'are'} memory-bound on "
        f"{r.chip} at {r.precision}. The elementwise add sits at I = {add.intensity:.2f} "
        f"FLOP/B and LayerNorm at {norm.intensity:.2f}, against I* = {r.ridge:,.1f}: " + verdict,
        "The add's intensity does not depend on its size: F and D both grow with the "
        f"element count. A GEMM's does: at M = {gemm.name.split()[1].split('x')[0]} it "
        f"is already {gemm.intensity:.1f} FLOP/B, because each weight byte is reused by "
        "every row of the input."]  # fmt: skip
    chip = f"chip: {r.chip}, {r.precision}: P = {fmt_peak(r.peak)}, beta = {fmt_bw(r.bw, 3)}, "
    chip += f"I* = {r.ridge:,.1f} FLOP/B; elements of {led.elem_bytes:g} byte"
    chip += "s" * (led.elem_bytes != 1)
    table = Table(["operator", "F", "D", "I (FLOP/B)", "I/I*", "bound", "time bound"], rows)
    return section(f"Operator ledger on {r.chip}, {r.precision}", chip, table, items=items)


def rooflines(r: Rooflines) -> Figure:
    """The saved operator rooflines, with a caption that says what to look at."""
    on = [
        say("{ops} on the {chip}", ops=listing(list(map(str, ns)), say("none")), chip=c)
        for c, ns in r.flat]  # fmt: skip
    caption = say(
        "The operators of the ledger on the {dtype} rooflines of the {chips}, numbered "
        "as in the key. Each sits at min(P, I beta) of its panel's chip; the dotted line is "
        "the ridge. Look at which reach the flat roof, right of the ridge: {flat}.",
        dtype=r.precision,
        chips=listing([c for c, _ in r.flat]),
        flat=functools.reduce(lambda a, b: say("{a}; {b}", a=a, b=b), on))  # fmt: skip
    if any(len(ns) < r.count for _, ns in r.flat):
        caption = say(
            "{caption} The others sit on the slope and run at the speed of memory.", caption=caption
        )
    return figure(r.path, caption)


def attention(led: Ledger) -> Group:
    """Naive (S and P in memory) against ideal-minimum attention: table and observations."""
    n, i = led.ops[-2:]
    one = lambda x: f"{x:.1f}"  # noqa: E731
    flops, jump = f"x{i.flops / n.flops:.3f}", f"x{i.intensity / n.intensity:.1f}"
    stay = ("rise", "fall", "stay at")
    moved = f"The FLOPs {change(n.flops, i.flops, fmt_flops, words=stay)} ({flops}); the bytes "
    moved += f"{change(n.nbytes, i.nbytes, fmt_bytes, words=stay)}, so the intensity "
    moved += change(n.intensity, i.intensity, one, " FLOP/B", ("jumps", "drops", "stays at"))
    rows = [
        ["FLOPs", fmt_flops(n.flops), fmt_flops(i.flops), flops],
        ["bytes", fmt_bytes(n.nbytes), fmt_bytes(i.nbytes), times(i.nbytes / n.nbytes, 0)],
        ["intensity (FLOP/B)", one(n.intensity), one(i.intensity), jump],
        ["bound", n.bound, i.bound, ""],
        ["roofline time", _time(n.time), _time(i.time), speed(n.time, i.time, 1, _time)],
    ]
    table = Table(["", "naive (S, P in memory)", "ideal minimum traffic", "change"], rows)
    move = f"moves from the {n.bound}-bound to the {i.bound}-bound side"
    move = f"stays on the {n.bound}-bound side" if n.bound == i.bound else move
    time = f"The time bound {change(n.time, i.time, _time)}"
    if direction(n.time, i.time, _time):
        time += f" ({speed(n.time, i.time, 1, _time)}). The whole gain comes from moving "
        time += "fewer bytes, not from computing less."
        fewer, faster = n.nbytes / i.nbytes, n.time / i.time
        if i.bound == "compute" and f"{faster:.1f}" != f"{fewer:.1f}":
            d = claims.off_one(faster, 1)  # the digits that show the time fell
            time += f" The bytes fall to 1/{fewer:.0f} but the time only to 1/{faster:.{d}f}: "
            time += "the ideal kernel is compute-bound, so the compute roof caps the gain."
    else:
        time += ": moving fewer bytes saves no time that shows at these digits."
    caveat = "Caveat: the ideal minimum is a bound computed from a formula, not a measured "
    caveat += "FlashAttention kernel. Real tiled kernels reread K and V (or Q) block by block, "
    caveat += "so they move more bytes than this, and their speed must be measured."
    moved += f" and the kernel {move} of I* = {led.roof.ridge:,.1f}."
    title = "Attention: S and P in memory vs ideal minimum traffic"
    return section(title, table, items=[moved, time, caveat])


def speedups(led: Ledger) -> Group:
    """Each operator's speedup from 2x compute and 2x bandwidth, and what the pattern says."""
    r, ops = led.roof, led.ops
    rows = [[o.name, ratio(o, r)[0], *(f"{s:.2f}x" for s in o.speedups)] for o in ops]
    if memory := [o for o in ops if o.bound == "memory"]:
        they, them = ("it is", "it") if len(memory) == 1 else ("they are", "them")
        first = f"For {n_of_m(len(memory), len(ops))} operators, twice the compute buys "
        first += f"{max(o.speedups[0] for o in memory):.2f}x: {they} memory-bound, and only "
        first += f"more bandwidth (or fewer bytes: fusion, smaller data types) makes {them} faster."
    else:
        first = f"None of the {len(ops)} operators is memory-bound here: the compute term sets "
        first += "every time bound, so twice the compute pays for each, in full or in part."
    partial = [o.name for o in ops if {f"{s:.2f}" for s in o.speedups} - {"1.00", "2.00"}]
    second = "Every row reads 1.00x or 2.00x because every operator lies more than a factor of "
    second += "2 from the ridge. Closer in, the upgrade that helps would pay less than 2x."
    if partial:
        second = f"Within a factor of 2 of the ridge ({listing(partial)}), the upgrade that helps "
        second += "pays less than 2x: after doubling, the other resource becomes the limit."
    table = Table(["operator", "I/I*", "2x compute", "2x bandwidth"], rows)
    title = f"Speedup from doubling one resource ({r.chip}, {r.precision})"
    return section(title, table, items=[first, second])


def sweep(s: Sweep) -> Group:
    """The GEMM sweep over M: table, the ridge crossing and observations."""
    r, rows = s.roof, s.rows
    i_at = {m: o.intensity for m, o in rows.items()}
    cross = crossover_line(s.cross, i_at, r.ridge, "M", max(rows), ridge_digits=1)
    lines = [f"\nridge point: I* = {r.ridge:,.1f} FLOP/B", cross]
    if s.exact_m is not None:
        lines.append(f"smallest integer M with I >= I*: {s.exact_m}")
    decode = f"That already reaches I* = {r.ridge:,.1f}: on this roof even decode is compute-bound."
    if rows[1].bound == "memory":
        decode = "Small-batch decode is memory-bound, so quantizing the weights helps by moving "
        decode += "fewer bytes, not by faster math."
    items = [
        f"At M = 1 (one token, as in decode) the GEMM does {rows[1].intensity:.2f} FLOP "
        f"per byte: a matrix-vector product streams every weight once and uses it once. {decode}",
        f"I grows almost in proportion to M at first, then saturates: it never exceeds "
        f"{s.limit:,.1f} FLOP/B for these weights, however large M gets."]  # fmt: skip
    if s.cross is not None and s.cross.before is not None:
        crossed = f"The sweep crosses the ridge between M = {s.cross.before} and M = "
        crossed += f"{s.cross.first}; the exact threshold is M = {s.exact_m}. Below it the "
        items.insert(1, crossed + "weights' bandwidth sets the time, above it the arithmetic does.")
    table = [[m, *_counts(o), f"{o.intensity:.2f}", o.bound] for m, o in rows.items()]
    title = f"GEMM [M, {s.width}] x [{s.width}, {s.width}] on {r.chip}, {r.precision}"
    table = Table(["M", "F", "D", "I (FLOP/B)", "bound"], table)
    return section(title, table, "\n".join(lines), items=items)
