"""Lecture 02's words, from the records it fills (standard library only). Matmuls are
X[B, K] · W[K, N]; intensities are in FLOP/byte."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from common.present import claims, console
from common.present.charts import ascii_roofline
from common.present.claims import change, direction, listing, outgrew, ratio, than
from common.present.console import fmt_bw, fmt_bytes, fmt_flops, fmt_intensity, fmt_rate, fmt_time
from common.present.display import Figure, Group, Observations, PngResult, Preformatted, Table, Text
from common.present.say import say
from lectures.words import figure, section

r0 = "{:.0f}".format  # a ridge or an intensity as the tables print it: no decimals
comma0 = "{:,.0f}".format  # a network ridge as its table prints it: 2,198
never = functools.partial(console.fmt_batch, none="never")  # a critical batch, or 'never'


def matmul_name(B: int) -> str:
    """The row name of X[B, K] · W[K, N]: 'matvec, B=1' or 'matmul, B=16'."""
    return "matvec, B=1" if B == 1 else f"matmul, B={B}"


# --- 1. Intensity of basic operations, and 4. the roofline chart -------------
@dataclass(frozen=True)
class Op:  # one operation on the chip: its counts, I = F / D, bound, attainable FLOP/s, T >=
    name: str
    flops: float
    nbytes: float
    intensity: float
    bound: str  # 'compute' or 'memory'
    attainable: float
    time: float


@dataclass(frozen=True)
class Basics:  # part 1: a vector add, a dot product, X[B, K] · W[K, N] per batch, bf16
    chip: str
    peak: float
    bw: float
    ridge: float
    vector_len: int
    K: int
    N: int
    ops: tuple[Op, ...]  # vector add, dot product, one matmul per batch
    batches: tuple[int, ...]
    limit: float  # KN / (K + N), the intensity no batch passes

    def share(self, op: Op) -> float:
        return op.attainable / self.peak

    def matmuls(self) -> dict[int, Op]:
        return dict(zip(self.batches, self.ops[2:], strict=True))

    def first_compute(self) -> int | None:
        return next((B for B, op in self.matmuls().items() if op.bound == "compute"), None)


def _pct(share: float) -> str:
    """A share of peak to two decimals: '0.06%', never '0.00%' for one above zero ('0.00056%')."""
    text = f"{share:.2%}"
    return f"{share * 100:.2g}%" if share and text == "0.00%" else text


def basics(r: Basics) -> tuple[Group, Observations]:
    """Part 1's table (FLOPs, bytes, I, bound, share of peak, T) and what it shows."""
    rows = [
        [o.name, *counts, o.bound, f"{_pct(r.share(o))}", fmt_time(o.time)]
        for o in r.ops
        for counts in [(fmt_flops(o.flops), fmt_bytes(o.nbytes), fmt_intensity(o.intensity))]
    ]
    title = f"1. Basic operations in bf16 on {r.chip} (ridge {r0(r.ridge)} FLOP/B)"
    sizes = f"Vectors of {r.vector_len:,} numbers; matmul X[B,{r.K}] W[{r.K},{r.N}]."
    head = ["operation", "FLOPs", "bytes", "FLOP/B", "bound", "of peak", "time >="]
    add, dot = r.ops[:2]
    mm = r.matmuls()
    b0, b1, b2, last = r.batches[0], r.batches[1], r.batches[2], r.batches[-1]
    if (first := r.first_compute()) is None:
        crossing = f"No batch in the list reaches the ridge of {r0(r.ridge)} FLOP/B: even "
        crossing += f"B = {last} gets {_pct(r.share(mm[last]))} of peak."
    elif first == b0:
        crossing = f"Every batch in the list reaches the ridge of {r0(r.ridge)} FLOP/B."
    else:
        before = r.batches[r.batches.index(first) - 1]
        crossing = f"The first batch in the list to reach the ridge of {r0(r.ridge)} FLOP/B is "
        crossing += f"B = {first} ({mm[first].intensity:.1f} FLOP/B); at B = {before} the matmul "
        crossing += f"still gets only {_pct(r.share(mm[before]))} of peak."
    items = [
        f"A vector add does {add.intensity:.3f} FLOP per byte and a dot product "
        f"{dot.intensity:.3f}, however long the vectors: each number is used once. On the {r.chip} "
        f"they reach {_pct(r.share(add))} and {_pct(r.share(dot))} of peak; {_vectors_faster(r)}.",
        f"While B is small the matmul's intensity is about B ({mm[b1].intensity:.1f} at B = {b1}, "
        f"{mm[b2].intensity:.1f} at B = {b2}): W is read once and reused by every row of X. At B = "
        f"{b0} it is {mm[b0].intensity:.3f}, {ratio(mm[b0].intensity / dot.intensity)} the dot "
        "product's: each weight is used once.",
        crossing,
        f"For large B the bytes of X and of the output count too: B = {last} gives "
        f"{r0(mm[last].intensity)} FLOP/B, not {last}, and no batch can pass "
        f"KN/(K+N) = {r0(r.limit)}.",
        "Here is the core tension of LLM inference: each decode step makes one token per "
        "sequence, so only batching many sequences keeps the matmuls off the bandwidth roof.",
    ]
    return section(title, sizes, Table(head, rows)), Observations(items)


def _vectors_faster(r: Basics) -> str:
    """What makes the vector add and the dot product faster, from their bounds."""
    memory = [o.name for o in r.ops[:2] if o.bound == "memory"]
    if len(memory) == 2:
        return "only moving fewer bytes makes them faster"
    if not memory:
        return "at this ridge both are compute-bound, so only more compute makes them faster"
    return f"the {listing(memory)} is memory-bound, the other already compute-bound"


def roofline_chart(r: Basics) -> Group:
    """The text roofline of the chip in bf16 with each operation on it, and its legend."""
    named = list(zip("abcdefghijklmnopqrstuvwxyz", r.ops, strict=False))
    points = [(label, o.intensity, None) for label, o in named]
    legend = [[c, o.name, fmt_intensity(o.intensity), fmt_rate(o.attainable)] for c, o in named]
    chart = Preformatted("\n".join(ascii_roofline(points, r.peak, r.bw)) + "\n")
    table = Table(["point", "operation", "FLOP/B", "attainable"], legend)
    return section(f"4. Roofline of {r.chip}, bf16", chart, table)


@dataclass(frozen=True)
class Roof:  # another chip's bf16 roof drawn beside the bold one: its name, peak and ridge
    chip: str
    peak: float
    ridge: float


def roofline_png(png: PngResult, name: str, r: Basics, others: tuple[Roof, ...]) -> Figure | Text:
    """The saved figure with a caption that says what to look at, or why it was skipped."""
    if not png:
        return Text(f"\n{name}: {png.reason}")
    first = r.first_compute()
    climb = say("up the bandwidth slope; no matmul of the list reaches the flat compute roof")
    if first is not None:
        climb = say(
            "up the bandwidth slope to the matmuls on the flat compute roof from B = {first}",
            first=first)  # fmt: skip
    caption = say(
        "Every operation of part 1 sits on the bold {chip} roof. Follow them from the "
        "vector add at the bottom left {climb}.",
        chip=r.chip,
        climb=climb)  # fmt: skip
    for o in others:
        if fmt_rate(o.peak) == fmt_rate(r.peak) and direction(r.ridge, o.ridge, r0):
            caption = say(
                "{caption} {chip} has the same {peak} peak, so its dashed roof joins the "
                "bold one at its own ridge ({ridge} FLOP/B), further {way}.",
                caption=caption, chip=o.chip, peak=fmt_rate(r.peak), ridge=r0(o.ridge),
                way=say("left") if o.ridge < r.ridge else say("right"),
            )  # fmt: skip
    caption = say(
        "{caption} The dashed roofs of the other chips show how far the same operations "
        "would climb there.",
        caption=caption)  # fmt: skip
    return figure(png.path, caption)


def roofline_observations(r: Basics) -> Observations:
    """What part 4 shows: two roofs meeting at the ridge; where the points sit on them."""
    add, dot = r.ops[:2]
    first = r.first_compute()
    reach = "" if first is None else f" and reach the flat roof from B = {first}"
    fusing = f": {_vectors_faster(r)}."
    if add.bound == dot.bound == "memory":
        fusing = ": no amount of tuning their arithmetic helps; only fusing them with neighbours "
        fusing += "to move fewer bytes does."
    items = [
        "The bandwidth roof rises one decade per decade of intensity until the ridge "
        f"({r0(r.ridge)} FLOP/B, {fmt_rate(r.peak)}); past it the compute roof is flat.",
        f"Points a and b sit at the bottom left ({_pct(r.share(add))} and "
        f"{_pct(r.share(dot))} of peak){fusing}",
        f"The matmuls climb the slope as B grows{reach}. On the flat roof a larger batch adds "
        "latency per step but no throughput."]  # fmt: skip
    return Observations(items)


# --- 2. Ridge points and the critical batch ----------------------------------
@dataclass(frozen=True)
class Ridge:  # a chip at a precision: peak, bandwidth, ridge, critical batch of X W
    chip: str
    precision: str
    formats: tuple[str, str, str]  # element formats of X, W and the output
    w_bytes: float  # bytes per weight
    peak: float
    estimate: bool  # the peak is an estimate
    bw: float
    ridge: float
    batch: int | None  # the critical batch, None when no batch reaches the ridge


@dataclass(frozen=True)
class Ridges:  # part 2's rows, and the three pairs its observations compare (before, after)
    K: int
    N: int
    rows: tuple[Ridge, ...]
    bandwidth: tuple[Ridge, Ridge]  # H100 and H200 in bf16
    fp8: tuple[Ridge, Ridge]  # H100 in bf16 and fp8
    nvfp4: tuple[Ridge, Ridge]  # B300 in fp8 and nvfp4


def ridges(r: Ridges) -> tuple[Group, Observations]:
    """Part 2's table (peak, bandwidth, ridge, critical batch) and what it shows."""
    rows = [
        [x.chip, x.precision, "/".join(x.formats), peak, fmt_bw(x.bw), r0(x.ridge), never(x.batch)]
        for x in r.rows
        for peak in [fmt_rate(x.peak, digits=2) + "*" * x.estimate]]  # fmt: skip
    title = f"2. Ridge points and critical batch of X[B,{r.K}] W[{r.K},{r.N}]"
    note = "ridge in FLOP/B; * marks an estimated peak (see the hardware table)."
    head = ["chip", "compute", "X/W/out", "peak", "HBM", "ridge", "critical B"]
    bf16 = [x for x in r.rows if x.precision == "bf16"]
    low, high = min(bf16, key=lambda x: x.ridge), max(bf16, key=lambda x: x.ridge)
    h1, h2 = r.bandwidth
    compute = f"{fmt_rate(h2.peak)} of bf16 compute (the {h1.chip} has {fmt_rate(h1.peak)})"
    if fmt_rate(h1.peak) == fmt_rate(h2.peak):
        compute = f"the {h1.chip}'s {fmt_rate(h1.peak)} of bf16 compute"
    d = direction(h1.ridge, h2.ridge, r0)
    moral = {
        -1: " A lower ridge makes full speed easier to reach.",
        1: " A higher ridge makes full speed harder to reach.",
    }.get(d, "") * (h1.batch != h2.batch)  # a batch that stays says the ridge moved too little
    n0, n1 = r.nvfp4
    busy = {
        1: ": the chip needs larger batches to stay busy",
        -1: ": the chip stays busy with smaller batches",
    }.get(direction(n0.batch, n1.batch) if None not in (n0.batch, n1.batch) else 0, "")
    gain, cut = n1.peak / n0.peak, n0.w_bytes / n1.w_bytes
    only = "only " if direction(cut, gain, lambda x: ratio(x)) > 0 else ""
    x = r.fp8[0]  # its critical batch against the ridge it exceeds (B > I* always: I(B) < B)
    above = f"never reaches its ridge of {r0(x.ridge)}"
    if x.batch is not None:
        above = f"is {x.batch:,}, not {r0(x.ridge)}"
    if str(x.batch) == r0(x.ridge):
        above = f"is {x.batch}, just above the ridge of {x.ridge:.2f}"
    items = [
        f"In bf16 the ridge points run from {r0(low.ridge)} ({low.chip}) to {r0(high.ridge)} "
        f"FLOP/B ({high.chip}): to use its compute, a matmul must reuse every byte it reads that "
        "many times, which at small batch takes about that many tokens at a time.",
        f"{h2.chip} pairs {compute} with {than(h2.bw / h1.bw, 'bandwidth')} the "
        f"{h1.chip} ({fmt_bw(h2.bw)} against {fmt_bw(h1.bw)}), so its ridge "
        f"{change(h1.ridge, h2.ridge, r0, ' FLOP/B')} and its critical batch "
        f"{batch_change(h1.batch, h2.batch)}.{moral}",
        _fp8(*r.fp8),
        f"nvfp4 on {n1.chip}: {ratio(gain)} the fp8 compute with {_bytes(cut, only)}. The "
        f"ridge {change(n0.ridge, n1.ridge, r0, ' FLOP/B')} and the critical "
        f"batch {batch_change(n0.batch, n1.batch)}{busy}.",
        "Since the intensity stays below B, the critical batch sits above the ridge: in "
        f"bf16 on {x.chip} it {above}, because reading X and "
        "writing the output cost bytes too (part 1's last observation)."]  # fmt: skip
    return section(title, note, Table(head, rows)), Observations(items)


def batch_change(before: int | None, after: int | None) -> str:
    """How a critical batch moves: 'rises from a to b', 'stays at a', or to/from 'never'."""
    if before is None and after is None:
        return "is never reached, before or after"
    if before is None or after is None:
        return f"goes from {never(before)} to {never(after)}"
    return change(before, after, "{:,}".format)


def _bytes(cut: float, only: str = "", of: str = "") -> str:
    """Bytes old / new in words: 'the bytes cut (only) to 1/2.00', 'the bytes raised x1.50'
    or 'the same bytes' (an edited table may make low precision no smaller); `of`: whose."""
    factor = claims.multiple(1 / cut)
    if factor == "the same":
        return f"the same bytes{of}"
    if factor[0] == "1":
        return f"the bytes{of} cut {only}to {factor}"
    return f"the bytes{of} raised {factor}"


def _fp8(bf16: Ridge, fp8: Ridge) -> str:
    """fp8 against bf16: the peak's factor, the bytes' factor, and what the batch did."""
    gain, cut = fp8.peak / bf16.peak, bf16.w_bytes / fp8.w_bytes
    d = direction(1.0, gain, lambda x: f"{x:.2f}")
    peak = {0: "keeps the peak", 1: f"raises the peak {ratio(gain)}"}
    head = f"fp8 {peak.get(d, f'lowers the peak to 1/{1 / gain:.2f}')} with "
    head += f"{_bytes(cut, of=' of X and W')}, so the critical batch "
    head += _barely(bf16.batch, fp8.batch)
    if fp8.batch is None or bf16.batch is None:
        return head + " (bf16 to fp8)."
    if 0.8 <= (moved := fp8.batch / bf16.batch) <= 1.25:
        head += f" in bf16 ({ratio(moved)}). Low precision speeds up both sides of the ledger; "
        return head + "by itself it does not change which side limits."
    head += f" ({ratio(moved)}): the peak and the bytes do not move together here, so fp8 "
    return head + "changes which side limits."


# --- 3. Low precision, one matrix per example, decode attention --------------
@dataclass(frozen=True)
class V5e:  # one low-precision case on the TPU v5e: the book's B ~ I* w / 2 and the exact B
    case: str
    precision: str
    ridge: float
    w_bytes: float
    book: float
    exact: int | None


@dataclass(frozen=True)
class Attention:  # decode attention of one variant: KV heads, F, KV bytes, I, I at long context
    variant: str
    kv_heads: int
    flops: float
    nbytes: float
    intensity: float
    long_intensity: float


@dataclass(frozen=True)
class Exercises:  # part 3: the v5e cases (int8, int8 weights, bf16) and decode attention
    chip: str
    K: int
    N: int
    v5e: tuple[V5e, V5e, V5e]
    int8_gain: float  # the v5e's int8 peak / its bf16 peak
    q_heads: int
    head_dim: int
    context: int
    long_context: int
    attention: tuple[Attention, ...]  # MHA, GQA, MQA
    ridge_chip: str
    ridge: float  # bf16 ridge of the chip decode attention is held against


def exercises(r: Exercises) -> tuple[Group, Observations]:
    """Part 3's two tables (v5e cases, decode attention) and what they show."""
    v5e = [
        [x.case, x.precision, r0(x.ridge), f"~ {2 / x.w_bytes:g} B", r0(x.book), never(x.exact)]
        for x in r.v5e]  # fmt: skip
    attention = [
        [a.variant, a.kv_heads, r.q_heads // a.kv_heads, *counts, f"{a.intensity:.1f}"]
        for a in r.attention
        for counts in [(fmt_flops(a.flops), fmt_bytes(a.nbytes))]]  # fmt: skip
    table = section(
        f"3. Low precision on {r.chip}, X[B,{r.K}] W[{r.K},{r.N}]",
        "book's B = ridge x w / 2 with w bytes per weight; exact B counts every byte.",
        Table(["case", "compute", "ridge", "I, small B", "book's B", "exact B"], v5e),
        "\nDecode attention, one layer and one sequence, bf16 KV cache:\n"
        f"{r.q_heads} query heads of dim {r.head_dim}, context {r.context:,} tokens.",
        Table(["variant", "KV heads", "q per KV", "FLOPs", "KV bytes", "FLOP/B"], attention),
    )
    int8, weights, bf16 = r.v5e
    now = ", ".join(f"{a.variant} {a.intensity:.1f}" for a in r.attention)
    later = [f"{a.long_intensity:.1f}" for a in r.attention]
    same = later == [f"{a.intensity:.1f}" for a in r.attention]
    mqa = min(r.attention, key=lambda a: a.kv_heads)
    below = direction(mqa.intensity, r.ridge, lambda x: f"{x:.1f}") > 0
    items = [
        f"Exercise 1: int8 gives {ratio(r.int8_gain)} the v5e's bf16 peak and halves the "
        f"size of every number, so the critical batch {_barely(bf16.exact, int8.exact)} "
        f"(bf16 to int8). The small-B estimate gives {r0(int8.book)}.",
        "Exercise 2: int8 weights with bf16 compute halve the bytes of W at the same peak, and "
        f"the critical batch {batch_change(bf16.exact, weights.exact)} (estimate "
        f"{r0(weights.book)}). This is why weight-only quantization pays off so well in decode.",
        "Decode attention is a batch that shares no data: every sequence reads its own KV "
        f"cache, and the intensity equals the number of query heads per KV head: {now} FLOP/B. "
        f"At a context of {r.long_context:,} tokens it is {'the same' if same else 'now'} "
        f"({', '.join(later)}), and the batch size never enters.",
        f"MQA's {mqa.intensity:.1f} FLOP/B is {'below' if below else 'at or past'} the "
        f"{r.ridge_chip} ridge of {r.ridge:.1f}: fewer KV heads cut the bytes, which is what "
        "GQA and MQA are for."]  # fmt: skip
    return table, Observations(items)


def _barely(before: int | None, after: int | None) -> str:
    """'barely moves: a against b' within x1.25 either way, else how the batch changed."""
    if before and after and 0.8 <= after / before <= 1.25:
        return f"barely moves: {after:,} against {before:,}"
    return batch_change(before, after)


# --- 5. Tiling ---------------------------------------------------------------
@dataclass(frozen=True)
class Tiling:  # part 5: tile traffic, output tiles against registers, the ridge's tile
    size: int
    tiles: tuple[tuple[str, float, float, float], ...]  # (bm x bk x bn, bytes, exact I, approx I)
    outputs: tuple[tuple[str, float, float], ...]  # (bm x bn, fp32 accumulator bytes, I)
    register_file: int
    chip: str
    ridge: float
    side: float  # the square tile that reaches the ridge from HBM alone
    accumulator: float  # its fp32 accumulator, bytes


def tiling(r: Tiling) -> tuple[Group, Observations]:
    """Part 5's tables (tile traffic, output tiles) and what they show."""
    reg = console.fmt_kib(r.register_file, 0)
    traffic = [[t, fmt_bytes(d), f"{e:.1f}", f"{a:.1f}"] for t, d, e, a in r.tiles]
    yes = {True: "yes", False: "no"}
    fits = [
        [t, console.fmt_kib(acc, 0), yes[acc <= r.register_file], r0(i), yes[i >= r.ridge]]
        for t, acc, i in r.outputs]  # fmt: skip
    head = ["tile bm x bk x bn", "main-memory traffic", "FLOP/B exact", "bm*bn/(bm+bn)"]
    table = section(
        f"5. Tiling a ({r.size}x{r.size}) @ ({r.size}x{r.size}) bf16 matmul",
        Table(head, traffic),
        f"\nOutput tile against one SM's {reg} register file and the {r.chip} ridge:",
        Table(["output tile", "fp32 accumulator", f"fits {reg}", "FLOP/B", "reaches ridge"], fits),
        f"\nTile needed for {r0(r.ridge)} FLOP/B from HBM alone: about {r.side:.0f} x "
        f"{r.side:.0f}; fp32 accumulator {console.fmt_kib(r.accumulator, 1)}.")  # fmt: skip
    (small, _, s_exact, s_approx), (large, _, l_exact, l_approx) = r.tiles[0], r.tiles[-1]
    gap = r.accumulator > r.register_file
    verdict = "No single SM gets there by itself." if gap else "One SM's registers can hold it."
    items = [
        "Exact and approximate intensities differ only by the output write: "
        f"{s_exact:.1f} against {s_approx:.1f} for {small} tiles, {l_exact:.1f} against "
        f"{l_approx:.1f} for {large}. The inner size bk does not change the traffic.",
        f"To reach the {r.chip} ridge of {r0(r.ridge)} FLOP/B on its own, an SM would need "
        f"an output tile of about {r.side:.0f} x {r.side:.0f}, whose fp32 accumulator "
        f"takes {console.fmt_kib(r.accumulator, 1)}: {than(r.accumulator / r.register_file)} its "
        f"{reg} register file. {verdict}",
        ("Real GPUs close that gap in two ways. " if gap else "Real GPUs go further. ")
        + "A large L2 cache lets many SMs share the panels they fetch, so HBM sees far less "
        "traffic than every SM fetching alone. And Blackwell adds Tensor Memory (TMEM) beside "
        "each SM to hold accumulators, and lets two SMs run one MMA on shared operands: both "
        "exist to make tiles bigger."]  # fmt: skip
    return table, Observations(items)


# --- 6. The network roofline -------------------------------------------------
@dataclass(frozen=True)
class Link:  # a chip's bf16 peak against one link: network ridge, critical K, bound at each K
    chip: str
    link: str
    link_bw: float
    peak: float
    estimate: bool  # the bf16 peak is an estimate
    ridge: float  # network ridge, FLOP per byte sent
    critical_k: float
    bounds: tuple[tuple[int, str], ...]  # (K, bound)


@dataclass(frozen=True)
class Network:  # part 6: the links of v5e, v6e, H100, B300 (None: no link figure), the v5e's steps
    N: int
    links: tuple[Link | None, Link | None, Link | None, Link | None]
    # (K, B, T_math, T_comms, I, bound); none without the v5e's link
    steps: tuple[tuple[int, int, float, float, float, str], ...]
    missing: tuple[str, ...] = ()  # chips left out: no link figure in the table


def network(r: Network) -> tuple[Group, Observations]:
    """Part 6's tables (network ridge per chip, the v5e's steps) and what they show."""
    link = functools.partial(console.fmt_si, unit="B/s", significant=3)  # 450 GB/s, 4.5 TB/s
    rows = [
        [c.chip, c.link, link(c.link_bw), comma0(c.ridge), f"K > {c.critical_k:,.1f}"]
        + [b for _, b in c.bounds]
        for c in r.links
        if c is not None]  # fmt: skip
    steps = [[k, B, fmt_time(tm), fmt_time(tc), f"{i:,.0f}", b] for k, B, tm, tc, i, b in r.steps]
    v5e, v6e, h100, b300 = r.links
    dims = [k for k, _ in next((c.bounds for c in r.links if c is not None), ())]
    head = ["chip", "link", "one way", "net I*", "compute iff", *(f"K={k}" for k in dims)]
    net = "net I* = bf16 peak / link bandwidth, in FLOP per byte sent; then the bound at each K."
    ici = f"\n{v5e.chip}, one ICI link: the batch does not change the verdict." if v5e else ""
    ici *= bool(steps)
    missing = f"Left out: {listing(r.missing)}, with no link figure in common/hw_specs.py."
    table = section(
        f"6. X[B,K] W[K,{r.N}] split along K over two chips, bf16",
        missing if r.missing else None,
        *([net, Table(head, rows)] if rows else []),
        *([ici, Table(["K", "B", "T_math", "T_comms", "FLOP/B sent", "bound"], steps)] * bool(ici)),
    )
    said = []  # each sentence only when the chips it compares have their links
    if v5e is not None and r.steps:
        dims = sorted({k for k, *_ in r.steps})
        batches = sorted({B for _, B, *_ in r.steps})
        verdict = {k: "/".join(sorted({s[-1] for s in r.steps if s[0] == k})) for k in dims}
        at = [f"at K = {k:,} every one is {verdict[k]}-bound" for k in dims]
        text = f"Network intensity is K/2 FLOP per byte, so on {v5e.chip} the split pays off only "
        text += f"for K > {v5e.critical_k:,.1f}. Of the batches from {batches[0]} to "
        said.append(text + f"{batches[-1]:,}, {listing(at)}.")
    if v5e is not None and h100 is not None:
        only = "only " if h100.critical_k < v5e.critical_k else ""
        text = f"{h100.link} carries {than(h100.link_bw / v5e.link_bw, 'bandwidth')} one "
        text += f"{v5e.chip} ICI link, and the {h100.chip} needs {only}K > {h100.critical_k:,.1f}."
        said.append(text)
    if v5e is not None and v6e is not None:
        text = f"{v6e.chip} has {ratio(v6e.peak / v5e.peak)} the {v5e.chip}'s compute and "
        text += f"{ratio(v6e.link_bw / v5e.link_bw)} its link bandwidth, so one link needs "
        said.append(text + f"K > {v6e.critical_k:,.1f}; real systems use several links at once.")
    if h100 is not None and b300 is not None:
        c_gain, l_gain = b300.peak / h100.peak, b300.link_bw / h100.link_bw
        trend = " Compute grows faster than communication, a trend that runs through this course."
        said.append(
            f"From {h100.chip} to {b300.chip}, "
            + outgrew(f"bf16 peak{' (an estimate)' * b300.estimate}", c_gain, "NVLink", l_gain)
            + f": the network ridge {change(h100.ridge, b300.ridge, comma0, ' FLOP/B')}."
            + trend * (direction(1, c_gain, ratio) > 0 < direction(l_gain, c_gain, ratio))
        )
    if not said:
        said.append("With no chip's link in the table, there is no network ridge to compare.")
    return table, Observations(said)
