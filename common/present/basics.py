"""Lecture 02's tables and observations: roofline basics, built from computed values.

Standard library only (lecture 02 runs on a bare ``python3``). Each function takes
what the lecture computed and returns display objects (``common.present.display``):
the lecture keeps the computation a student should see and calls ``show`` on these.
Matmuls are X[B, K] · W[K, N]; intensities are in FLOP/byte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from common.formulas.roofline import attainable_flops, bound_of, lower_bound_time
from common.hw_specs import Chip, bytes_per_elem
from common.present.charts import ascii_roofline
from common.present.claims import change, ratio
from common.present.console import (
    fmt_batch,
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_intensity,
    fmt_rate,
    fmt_time,
)
from common.present.display import (
    Figure,
    Group,
    Heading,
    Observations,
    PngResult,
    Preformatted,
    Table,
    Text,
    figure,
)
from common.shell.paths import display_path

Op = tuple[str, float, float]  # (name, FLOPs, bytes)
Case = tuple[Chip, str, tuple[str, str, str]]  # (chip, compute precision, X/W/out formats)


def matmul_name(B: int) -> str:
    """The row name of X[B, K] · W[K, N]: 'matvec, B=1' or 'matmul, B=16'."""
    return "matvec, B=1" if B == 1 else f"matmul, B={B}"


# ---------------------------------------------------------------------------
# 1. Intensity of basic operations
# ---------------------------------------------------------------------------
def basic_ops_table(ops: Sequence[Op], chip: Chip, vector_len: int, K: int, N: int) -> Group:
    """Part 1's table: each operation's FLOPs, bytes, intensity, bound, share of peak, time."""
    peak, bw, ridge = chip.peak_flops("bf16"), chip.mem_bw, chip.ridge_point("bf16")
    rows = []
    for name, flops, nbytes in ops:
        i = flops / nbytes
        rows.append(
            [
                name,
                fmt_flops(flops),
                fmt_bytes(nbytes),
                fmt_intensity(i),
                bound_of(i, ridge),
                f"{attainable_flops(i, peak, bw) / peak:.2%}",
                fmt_time(lower_bound_time(flops, nbytes, peak, bw)),
            ]
        )
    return Group(
        Heading(f"1. Basic operations in bf16 on {chip.name} (ridge {ridge:.0f} FLOP/B)"),
        Text(f"Vectors of {vector_len:,} numbers; matmul X[B,{K}] W[{K},{N}]."),
        Table(["operation", "FLOPs", "bytes", "FLOP/B", "bound", "of peak", "time >="], rows),
    )


def basic_ops_observations(
    intensities: Mapping[str, float], chip: Chip, batches: Sequence[int], K: int, N: int
) -> Observations:
    """What part 1 shows: vectors stay at the bottom, the matmul climbs with B up to a limit."""
    peak, bw, ridge = chip.peak_flops("bf16"), chip.mem_bw, chip.ridge_point("bf16")
    share = {name: attainable_flops(i, peak, bw) / peak for name, i in intensities.items()}
    mm = {B: intensities[matmul_name(B)] for B in batches}
    mm_share = {B: share[matmul_name(B)] for B in batches}
    compute = [B for B in batches if bound_of(mm[B], ridge) == "compute"]
    if not compute:  # possible after editing the hardware table
        crossing = (
            f"No batch in the list reaches the ridge of {ridge:.0f} FLOP/B: even "
            f"B = {batches[-1]} gets {mm_share[batches[-1]]:.2%} of peak."
        )
    elif compute[0] == batches[0]:
        crossing = f"Every batch in the list reaches the ridge of {ridge:.0f} FLOP/B."
    else:
        first = compute[0]
        before = batches[batches.index(first) - 1]
        crossing = (
            f"The first batch in the list to reach the ridge of {ridge:.0f} FLOP/B is "
            f"B = {first} ({mm[first]:.1f} FLOP/B); at B = {before} the matmul still gets "
            f"only {mm_share[before]:.2%} of peak."
        )
    limit = K * N / (K + N)  # 2BKN / (2BK + 2KN + 2BN) grows towards KN / (K + N)
    return Observations(
        [
            f"A vector add does {intensities['vector add']:.3f} FLOP per byte and a dot "
            f"product {intensities['dot product']:.3f}, however long the vectors: each number "
            f"is used once. On an {chip.name} they reach {share['vector add']:.2%} and "
            f"{share['dot product']:.2%} of peak; only moving fewer bytes makes them faster.",
            f"While B is small the matmul's intensity is about B ({mm[batches[1]]:.1f} at "
            f"B = {batches[1]}, {mm[batches[2]]:.1f} at B = {batches[2]}): W is read once "
            f"and reused by every row of X. At B = {batches[0]} it is {mm[batches[0]]:.3f}, "
            "no better than the dot product.",
            crossing,
            f"For large B the bytes of X and of the output count too: B = {batches[-1]} gives "
            f"{mm[batches[-1]]:.0f} FLOP/B, not {batches[-1]}, and no batch can pass "
            f"KN/(K+N) = {limit:.0f}.",
            "Here is the core tension of LLM inference: each decode step makes one token per "
            "sequence, so only batching many sequences keeps the matmuls off the bandwidth roof.",
        ]
    )


# ---------------------------------------------------------------------------
# 2. Ridge points and the critical batch
# ---------------------------------------------------------------------------
def ridge_table(
    cases: Sequence[Case],
    ridge: Mapping[tuple[str, str], float],
    crit: Mapping[tuple[str, str], int | None],
    K: int,
    N: int,
) -> Group:
    """Part 2's table: each chip and precision's peak, bandwidth, ridge and critical batch."""
    rows = []
    for chip, precision, formats in cases:
        key = (chip.key, precision)
        estimate = "*" if chip.peak_flops_table[precision].estimate else ""
        rows.append(
            [
                chip.name,
                precision,
                "/".join(formats),
                fmt_rate(chip.peak_flops(precision), digits=2) + estimate,
                fmt_bw(chip.mem_bw),
                f"{ridge[key]:.0f}",
                fmt_batch(crit[key], "never"),
            ]
        )
    return Group(
        Heading(f"2. Ridge points and critical batch of X[B,{K}] W[{K},{N}]"),
        Text("ridge in FLOP/B; * marks an estimated peak (see the hardware table)."),
        Table(["chip", "compute", "X/W/out", "peak", "HBM", "ridge", "critical B"], rows),
    )


def ridge_observations(
    cases: Sequence[Case],
    ridge: Mapping[tuple[str, str], float],
    crit: Mapping[tuple[str, str], int | None],
    h100: Chip,
    h200: Chip,
    b300: Chip,
) -> Observations:
    """What part 2 shows: bandwidth lowers the ridge, fp8 keeps the batch, nvfp4 raises it."""
    fp8_bytes, nvfp4_bytes = bytes_per_elem("fp8"), bytes_per_elem("nvfp4")
    bf16 = {chip.name: ridge[(chip.key, p)] for chip, p, _ in cases if p == "bf16"}
    low, high = min(bf16, key=bf16.__getitem__), max(bf16, key=bf16.__getitem__)
    h1, h2, b3 = h100.key, h200.key, b300.key
    r0 = lambda x: f"{x:.0f}"  # noqa: E731 - ridges print without decimals
    h100_peak, h200_peak = h100.peak_flops("bf16"), h200.peak_flops("bf16")
    compute = (
        f"the {h100.name}'s {fmt_rate(h100_peak)} of bf16 compute"
        if fmt_rate(h100_peak) == fmt_rate(h200_peak)
        else f"{fmt_rate(h200_peak)} of bf16 compute (the {h100.name} has {fmt_rate(h100_peak)})"
    )
    r_h1, r_h2 = ridge[(h1, "bf16")], ridge[(h2, "bf16")]
    ridge_moves = change(r_h1, r_h2, r0, " FLOP/B")
    if r_h2 < r_h1 and h200.mem_bw > h100.mem_bw:
        moral = " More bandwidth makes full speed easier to reach."
    elif r_h2 > r_h1:
        moral = " A higher ridge makes full speed harder to reach."
    else:
        moral = ""
    fp8_gain = h100.peak_flops("fp8") / h100.peak_flops("bf16")
    fp8_cut = bytes_per_elem("bf16") / fp8_bytes
    nvfp4_gain = b300.peak_flops("nvfp4") / b300.peak_flops("fp8")
    nvfp4_cut = fp8_bytes / nvfp4_bytes
    nv_only = "only " if nvfp4_gain > nvfp4_cut else ""
    nv_batch = _batch_change(crit[(b3, "fp8")], crit[(b3, "nvfp4")])
    nv_b0, nv_b1 = crit[(b3, "fp8")], crit[(b3, "nvfp4")]
    if nv_b0 and nv_b1 and nv_b1 > nv_b0:
        nv_moral = ": the chip needs larger batches to stay busy"
    elif nv_b0 and nv_b1 and nv_b1 < nv_b0:
        nv_moral = ": the chip stays busy with smaller batches"
    else:
        nv_moral = ""
    hb, hr = crit[(h1, "bf16")], ridge[(h1, "bf16")]
    above = "never reaches it" if hb is None else f"is {hb}, not {hr:.0f}"
    return Observations(
        [
            f"In bf16 the ridge points run from {bf16[low]:.0f} ({low}) to {bf16[high]:.0f} "
            f"FLOP/B ({high}): to use its compute, a matmul must reuse every byte it reads "
            "that many times, which at small batch takes about that many tokens at a time.",
            f"{h200.name} pairs {compute} with {ratio(h200.mem_bw / h100.mem_bw)} the "
            f"bandwidth ({fmt_bw(h200.mem_bw)} against {fmt_bw(h100.mem_bw)}), so its ridge "
            f"{ridge_moves} and its critical batch "
            f"{_batch_change(crit[(h1, 'bf16')], crit[(h2, 'bf16')])}.{moral}",
            _fp8_observation(fp8_gain, fp8_cut, crit[(h1, "fp8")], crit[(h1, "bf16")]),
            f"nvfp4 on {b300.name}: {ratio(nvfp4_gain)} the fp8 compute for {nv_only}"
            f"{ratio(nvfp4_cut)} fewer bytes. The ridge "
            f"{change(ridge[(b3, 'fp8')], ridge[(b3, 'nvfp4')], r0, ' FLOP/B')} and the "
            f"critical batch {nv_batch}{nv_moral}.",
            f"Since the intensity stays below B, the critical batch sits above the ridge: in "
            f"bf16 on {h100.name} it {above}, because reading X and writing the output cost "
            "bytes too (part 1's last observation).",
        ]
    )


def _batch_change(before: int | None, after: int | None) -> str:
    """How a critical batch moves: 'rises from a to b', 'stays at a', or both when one is never."""
    if before is None or after is None:
        return f"goes from {fmt_batch(before, 'never')} to {fmt_batch(after, 'never')}"
    return change(before, after, str)


def _fp8_observation(gain: float, cut: float, fp8: int | None, bf16: int | None) -> str:
    """fp8 against bf16: the peak's factor, the bytes' factor, and what the batch did."""
    peak = (
        "keeps the peak"
        if f"{gain:.2f}" == "1.00"
        else f"raises the peak {ratio(gain)}"
        if gain > 1
        else f"lowers the peak {ratio(1 / gain)}"
    )
    head = f"fp8 {peak} and cuts the bytes of X and W {ratio(cut)}, so the critical batch "
    if fp8 is None or bf16 is None:
        return head + f"goes from {fmt_batch(bf16, 'never')} in bf16 to {fmt_batch(fp8, 'never')}."
    r = fp8 / bf16
    if 0.8 <= r <= 1.25:
        return (
            head + f"barely moves: {fp8} against {bf16} in bf16 ({ratio(r)}). Low precision "
            "speeds up both sides of the ledger; by itself it does not change which side limits."
        )
    return (
        head + f"{change(bf16, fp8, str)} ({ratio(r)}): the peak and the bytes do not move "
        "together here, so fp8 changes which side limits."
    )


# ---------------------------------------------------------------------------
# 3. Low precision, one matrix per example, decode attention
# ---------------------------------------------------------------------------
def v5e_table(
    rows: Sequence[tuple[str, str, float, float, float, int | None]], chip: Chip, K: int, N: int
) -> Group:
    """Exercises 1 and 2: (case, compute, ridge, w bytes, book's B, exact B) as a table."""
    return Group(
        Heading(f"3. Low precision on {chip.name}, X[B,{K}] W[{K},{N}]"),
        Text("book's B = ridge x w / 2 with w bytes per weight; exact B counts every byte."),
        Table(
            ["case", "compute", "ridge", "I, small B", "book's B", "exact B"],
            [
                [
                    case,
                    p,
                    f"{r:.0f}",
                    f"~ {2 / w:g} B",
                    f"{book:.0f}",
                    fmt_batch(exact, "never"),
                ]
                for case, p, r, w, book, exact in rows
            ],
        ),
    )


def per_example_table(counts: Mapping[int, tuple[float, float]], K: int, N: int) -> Group:
    """Exercise 4: FLOPs, bytes and intensity of x[b] @ W[b] for each batch B."""
    rows = [[B, fmt_flops(f), fmt_bytes(d), f"{f / d:.3f}"] for B, (f, d) in counts.items()]
    return Group(
        Text(f"\nExercise 4: one W[{K},{N}] per example, bf16."),
        Table(["B", "FLOPs", "bytes", "FLOP/B"], rows),
    )


def attention_table(
    counts: Mapping[str, tuple[int, float, float]], q_heads: int, head_dim: int, context: int
) -> Group:
    """Decode attention per variant: (KV heads, FLOPs, KV bytes) -> table with FLOP/B."""
    rows = [
        [v, kv, q_heads // kv, fmt_flops(f), fmt_bytes(d), f"{f / d:.1f}"]
        for v, (kv, f, d) in counts.items()
    ]
    return Group(
        Text(
            "\nDecode attention, one layer and one sequence, bf16 KV cache:\n"
            f"{q_heads} query heads of dim {head_dim}, context {context:,} tokens."
        ),
        Table(["variant", "KV heads", "q per KV", "FLOPs", "KV bytes", "FLOP/B"], rows),
    )


def exercise_observations(
    v5e: Sequence[tuple[str, str, float, float, float, int | None]],
    per_example: Mapping[int, tuple[float, float]],
    attention: Mapping[str, tuple[int, float, float]],
    long: tuple[int, Mapping[str, float]],
    v5e_chip: Chip,
    h100: Chip,
) -> Observations:
    """What part 3 shows, from its three tables' rows and (long context, variant -> I) there."""
    long_context, long_attention = long
    (*_, book1, exact1), (*_, book2, exact2), (*_, exact_bf16) = v5e
    per_example_i = {B: f / d for B, (f, d) in per_example.items()}
    attention_i = {v: f / d for v, (_, f, d) in attention.items()}
    int8_gain = v5e_chip.peak_flops("int8") / v5e_chip.peak_flops("bf16")
    first, last = min(per_example_i), max(per_example_i)
    ridge = h100.ridge_point("bf16")
    return Observations(
        [
            f"Exercise 1: int8 gives {ratio(int8_gain, 1)} the v5e's bf16 peak and halves the "
            f"size of every number, so the critical batch "
            + (
                f"stays where bf16 has it: {fmt_batch(exact1, 'never')} against "
                f"{fmt_batch(exact_bf16, 'never')}."
                if exact1 and exact_bf16 and 0.8 <= exact1 / exact_bf16 <= 1.25
                else f"{_batch_change(exact_bf16, exact1)} (bf16 to int8)."
            )
            + f" The small-B estimate gives {book1:.0f}.",
            f"Exercise 2: int8 weights with bf16 compute halve the bytes of W at the same peak, "
            f"and the critical batch {_batch_change(exact_bf16, exact2)} (estimate "
            f"{book2:.0f}). This is why weight-only quantization pays off so well in decode.",
            f"Exercise 4: with one matrix per example the intensity is "
            f"{per_example_i[first]:.3f} at B = {first} and still {per_example_i[last]:.3f} at "
            f"B = {last}. Batching only helps when the batch shares data.",
            "Decode attention has exactly that shape: every sequence reads its own KV cache, "
            "and the intensity equals the number of query heads per KV head: "
            + ", ".join(f"{v} {i:.1f}" for v, i in attention_i.items())
            + f" FLOP/B. At a context of {long_context:,} tokens it is the same ("
            + ", ".join(f"{i:.1f}" for i in long_attention.values())
            + "), and the batch size never enters.",
            (
                f"Even MQA's {attention_i['MQA']:.1f} FLOP/B is "
                f"{ratio(ridge / attention_i['MQA'], 1)} below the {h100.name} ridge: fewer KV "
                "heads cut the bytes, which is what GQA and MQA are for."
                if ridge > attention_i["MQA"]
                else f"MQA's {attention_i['MQA']:.1f} FLOP/B reaches the {h100.name} ridge of "
                f"{ridge:.1f}: fewer KV heads cut the bytes, which is what GQA and MQA are for."
            ),
        ]
    )


# ---------------------------------------------------------------------------
# 4. The roofline chart
# ---------------------------------------------------------------------------
def roofline_chart(intensities: Mapping[str, float], chip: Chip) -> Group:
    """The ASCII roofline of `chip` in bf16 with each operation on it, and its legend."""
    peak, bw = chip.peak_flops("bf16"), chip.mem_bw
    labels = "abcdefghijklmnopqrstuvwxyz"
    points = [(label, i, None) for label, i in zip(labels, intensities.values(), strict=False)]
    legend = [
        [label, name, fmt_intensity(i), fmt_rate(attainable_flops(i, peak, bw))]
        for label, (name, i) in zip(labels, intensities.items(), strict=False)
    ]
    return Group(
        Heading(f"4. Roofline of {chip.name}, bf16"),
        Preformatted("\n".join(ascii_roofline(points, peak, bw)) + "\n"),
        Table(["point", "operation", "FLOP/B", "attainable"], legend),
    )


def roofline_png(png: PngResult, name: str, chip: Chip, others: Sequence[Chip]) -> Figure | Text:
    """The saved figure with a caption that says what to look at, or why it was skipped."""
    if not png:
        return Text(f"\n{name}: {png.reason}")
    same_peak = [c.name for c in others if c.peak_flops("bf16") == chip.peak_flops("bf16")]
    shared = (
        f" {', '.join(same_peak)} has the same {fmt_rate(chip.peak_flops('bf16'))} peak, so "
        f"its dashed roof joins the bold one at its own ridge, further left."
        if same_peak
        else ""
    )
    caption = (
        f"Every operation of part 1 sits on the bold {chip.name} roof. Follow them from the "
        "vector add at the bottom left up the bandwidth slope to the large matmuls on the "
        f"flat compute roof.{shared} The dashed roofs of the other chips show how far the "
        "same operations would climb there."
    )
    return figure(png.path, caption, display_path(png.path))


def roofline_observations(
    intensities: Mapping[str, float], chip: Chip, batches: Sequence[int]
) -> Observations:
    """What part 4 shows: two roofs meeting at the ridge; where the points sit on them."""
    peak, bw, ridge = chip.peak_flops("bf16"), chip.mem_bw, chip.ridge_point("bf16")
    share = [attainable_flops(i, peak, bw) / peak for i in intensities.values()]
    compute = [B for B in batches if intensities[matmul_name(B)] >= ridge]
    return Observations(
        [
            f"The bandwidth roof rises one decade per decade of intensity until the ridge "
            f"({ridge:.0f} FLOP/B, {fmt_rate(peak)}); past it the compute roof is flat.",
            f"Points a and b sit at the bottom left ({share[0]:.2%} and {share[1]:.2%} of "
            "peak): no amount of tuning their arithmetic helps; only fusing them with "
            "neighbours to move fewer bytes does.",
            "The matmuls climb the slope as B grows"
            + (f" and reach the flat roof from B = {compute[0]}" if compute else "")
            + ". On the flat roof a larger batch adds latency per step but no throughput.",
        ]
    )


# ---------------------------------------------------------------------------
# 5. Tiling
# ---------------------------------------------------------------------------
def tiling_tables(
    size: int,
    tiled: Mapping[tuple[int, int, int], tuple[float, float, float]],
    accumulators: Mapping[tuple[int, int], tuple[float, float]],
    register_file: int,
    chip: Chip,
    needed: tuple[float, float],
) -> Group:
    """Tile traffic and intensities; output tiles against the register file and the ridge.

    `needed` is the side of the square tile that would reach the ridge and the bytes of
    its fp32 accumulator.
    """
    needed_side, needed_accumulator = needed
    ridge = chip.ridge_point("bf16")
    reg = fmt_bytes(register_file, binary=True, digits=0)
    traffic = [
        [f"{bm}x{bk}x{bn}", fmt_bytes(nbytes), f"{exact:.1f}", f"{approx:.1f}"]
        for (bm, bk, bn), (nbytes, exact, approx) in tiled.items()
    ]
    fits = [
        [
            f"{bm}x{bn}",
            fmt_bytes(acc, binary=True, digits=0),
            "yes" if acc <= register_file else "no",
            f"{i:.0f}",
            "yes" if i >= ridge else "no",
        ]
        for (bm, bn), (acc, i) in accumulators.items()
    ]
    return Group(
        Heading(f"5. Tiling a ({size}x{size}) @ ({size}x{size}) bf16 matmul"),
        Table(
            ["tile bm x bk x bn", "main-memory traffic", "FLOP/B exact", "bm*bn/(bm+bn)"], traffic
        ),
        Text(f"\nOutput tile against one SM's {reg} register file and the {chip.name} ridge:"),
        Table(["output tile", "fp32 accumulator", f"fits {reg}", "FLOP/B", "reaches ridge"], fits),
        Text(
            f"\nTile needed for {ridge:.0f} FLOP/B from HBM alone: about {needed_side:.0f} x "
            f"{needed_side:.0f}; fp32 accumulator "
            f"{fmt_bytes(needed_accumulator, binary=True, digits=1)}."
        ),
    )


def tiling_observations(
    tiled: Mapping[tuple[int, int, int], tuple[float, float, float]],
    register_file: int,
    chip: Chip,
    needed: tuple[float, float],
) -> Observations:
    """What part 5 shows: the output write is the gap; no single SM holds the needed tile."""
    needed_side, needed_accumulator = needed
    tiles = list(tiled)
    (s_bm, s_bk, s_bn), (l_bm, l_bk, l_bn) = tiles[0], tiles[-1]
    small, large = tiled[tiles[0]], tiled[tiles[-1]]
    reg = fmt_bytes(register_file, binary=True, digits=0)
    return Observations(
        [
            f"Exact and approximate intensities differ only by the output write: "
            f"{small[1]:.1f} against {small[2]:.1f} for {s_bm}x{s_bk}x{s_bn} tiles, "
            f"{large[1]:.1f} against {large[2]:.1f} for {l_bm}x{l_bk}x{l_bn}. The inner size "
            "bk does not change the traffic.",
            f"To reach the {chip.name} ridge of {chip.ridge_point('bf16'):.0f} FLOP/B on its "
            f"own, an SM would need an output tile of about {needed_side:.0f} x "
            f"{needed_side:.0f}, whose fp32 accumulator takes "
            f"{fmt_bytes(needed_accumulator, binary=True, digits=1)}: "
            f"{ratio(needed_accumulator / register_file, 1)} its {reg} register file. "
            + (
                "No single SM gets there by itself."
                if needed_accumulator > register_file
                else "One SM's registers could hold it."
            ),
            "Real GPUs close the gap in two ways. A large L2 cache lets many SMs share the "
            "panels they fetch, so HBM sees far less traffic than every SM fetching alone. And "
            "Blackwell adds Tensor Memory (TMEM) beside each SM to hold accumulators, and lets "
            "two SMs run one MMA on shared operands: both exist to make tiles bigger.",
        ]
    )


# ---------------------------------------------------------------------------
# 6. The network roofline
# ---------------------------------------------------------------------------
Network = tuple[Mapping[str, float], Mapping[str, float], Mapping[tuple[str, int], str]]


def network_tables(
    chips: Sequence[Chip],
    network: Network,
    v5e_steps: Mapping[tuple[int, int], Mapping[str, float | str]],
    v5e: Chip,
    N: int,
) -> Group:
    """Network ridge and verdict per chip and K; then the v5e's times at several batches.

    `network` holds, by chip key, the network ridge and the critical K, and the bound
    by (chip key, K).
    """
    net_ridge, net_dim, verdicts = network
    dims = list(dict.fromkeys(k for _, k in verdicts))
    rows = [
        [
            c.name,
            c.link_name,
            fmt_bw(c.link_bw, digits=0),
            f"{net_ridge[c.key]:,.0f}",
            f"K > {net_dim[c.key]:,.1f}",
            *(verdicts[(c.key, k)] for k in dims),
        ]
        for c in chips
    ]
    steps = [
        [
            k,
            B,
            fmt_time(float(r["t_math"])),
            fmt_time(float(r["t_comms"])),
            f"{float(r['intensity']):,.0f}",
            r["bound"],
        ]
        for (k, B), r in v5e_steps.items()
    ]
    return Group(
        Heading(f"6. X[B,K] W[K,{N}] split along K over two chips, bf16"),
        Text(
            "net I* = bf16 peak / link bandwidth, in FLOP per byte sent; then the bound at each K."
        ),
        Table(
            ["chip", "link", "one way", "net I*", "compute iff", *(f"K={k}" for k in dims)], rows
        ),
        Text(f"\n{v5e.name}, one ICI link: the batch does not change the verdict."),
        Table(["K", "B", "T_math", "T_comms", "FLOP/B sent", "bound"], steps),
    )


def network_observations(
    network: Network,
    v5e_steps: Mapping[tuple[int, int], Mapping[str, float | str]],
    v5e: Chip,
    v6e: Chip,
    h100: Chip,
    b300: Chip,
) -> Observations:
    """What part 6 shows: K/2 against the network ridge; compute outgrows the links."""
    net_ridge, net_dim, _ = network
    dims = sorted({k for k, _ in v5e_steps})
    batches = sorted({B for _, B in v5e_steps})
    verdict = {
        k: "/".join(sorted({str(v5e_steps[(k, B)]["bound"]) for B in batches})) for k in dims
    }
    estimate = " (an estimate)" if b300.peak_flops_table["bf16"].estimate else ""
    c_gain = b300.peak_flops("bf16") / h100.peak_flops("bf16")
    l_gain = b300.link_bw / h100.link_bw
    return Observations(
        [
            f"Network intensity is K/2 FLOP per byte, so on {v5e.name} the split pays off only "
            f"for K > {net_dim[v5e.key]:,.1f}. At K = {dims[0]:,} every batch from "
            f"{batches[0]} to {batches[-1]:,} is {verdict[dims[0]]}-bound; at K = {dims[1]:,} "
            f"every one is {verdict[dims[1]]}-bound.",
            f"{h100.link_name} carries {ratio(h100.link_bw / v5e.link_bw, 0)} the bandwidth "
            f"of one v5e ICI link, so the {h100.name} needs "
            + ("only " if net_dim[h100.key] < net_dim[v5e.key] else "")
            + f"K > {net_dim[h100.key]:,.1f}.",
            f"{v6e.name} has {ratio(v6e.peak_flops('bf16') / v5e.peak_flops('bf16'))} the v5e's "
            f"compute and {ratio(v6e.link_bw / v5e.link_bw, 1)} its link bandwidth, so one link "
            f"needs K > {net_dim[v6e.key]:,.1f}; real systems use several links at once.",
            f"{b300.name}'s bf16 peak{estimate} is {ratio(c_gain)} the {h100.name}'s, its "
            f"NVLink {'only ' if c_gain > l_gain else ''}{ratio(l_gain, 1)}: the network ridge "
            f"{change(net_ridge[h100.key], net_ridge[b300.key], _comma0, ' FLOP/B')}."
            + (
                " Compute grows faster than communication, a trend that runs through this course."
                if c_gain > l_gain
                else ""
            ),
        ]
    )


def _comma0(x: float) -> str:
    return f"{x:,.0f}"
