r"""
Roofline basics: intensity, critical batch, tiling, network
===========================================================

How long must a computation take on a chip, at the very least, and what holds it
back: arithmetic, or moving bytes? The roofline model answers by comparing two
numbers, the computation's *arithmetic intensity* (FLOP per byte moved) and the
chip's *ridge point* (peak FLOP/s divided by memory bandwidth). This lecture applies
that one comparison six times: basic operations, the batch a matmul needs on each
chip, low precision and decode attention, the roofline chart, tiling, and a matmul
split over two chips.

Every number below comes from a formula in ``common/roofline.py`` and a figure in
the hardware table ``common/hw_specs.py``. Nothing is timed, so every run prints the
same output; edit a figure in the table and rerun to see every dependent number move.

Run it with ``python3 lectures/02_roofline_basics.py`` (standard library only, well
under a second). Add ``--png`` to also save ``02_roofline.png`` (needs matplotlib)
into ``--outdir DIR`` (default: ``figures/`` at the repository root).
"""

from __future__ import annotations

# sphinx_gallery_start_ignore
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))))
from common.present import boot  # one-line errors, quiet Ctrl-C and closed pipes, before numpy

boot.start()
# sphinx_gallery_end_ignore

from common.files.paths import display_path
from common.formulas.roofline import (
    attainable_flops,
    batched_matvec_counts,
    bound_of,
    critical_batch,
    decode_attention_counts,
    intensity,
    lower_bound_time,
    matmul_counts,
    network_critical_dim,
    ridge_point,
    sharded_matmul_two_chips,
    tiled_matmul_bytes,
)
from common.hw_specs import B200, B300, H100, H200, TPU_V5E, TPU_V6E, bytes_per_elem
from common.plots.roofline import save_roofline_png
from common.present.charts import ascii_roofline
from common.present.cli import add_png_flags, lecture_parser, parse_args
from common.present.console import (
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_rate,
    fmt_time,
    print_header,
    print_observations,
    print_table,
)

parser = lecture_parser(__doc__)
add_png_flags(parser)
args = parse_args(parser)  # a bad --outdir, or --png without matplotlib, is said here


def fmt_intensity(i: float) -> str:
    """Intensity in FLOP/byte: three decimals below 10, one above."""
    return f"{i:.3f}" if i < 10 else f"{i:.1f}"


def fmt_batch(b: int | None) -> str:
    """A critical batch, or 'never' when no batch reaches the ridge."""
    return "never" if b is None else str(b)


# %%
# 1. Intensity of basic operations
# --------------------------------
#
# The *arithmetic intensity* of an operation is the work it does per byte it moves
# to or from main memory, :math:`I = \mathrm{FLOP} / \mathrm{bytes}`. A chip runs at
# full speed only when :math:`I` reaches its *ridge point*
# :math:`I^* = P_{peak} / \beta`; below that, the memory bus sets the pace and the
# best the chip can do is :math:`I \beta` FLOP/s. The time can never be shorter than
# :math:`T = \max(\mathrm{FLOP} / P_{peak},\ \mathrm{bytes} / \beta)`.
#
# We take a vector add and a dot product over :math:`N = 2^{24}` numbers, then the
# matmul :math:`X[B, D]\,W[D, F]` with :math:`D = F = 8192` for a growing batch
# :math:`B` (at :math:`B = 1` it is a matrix-vector product). Everything is bf16 and
# runs on an H100.

VECTOR_N = 2**24
D = F = 8192
BATCHES = (1, 16, 64, 256, 1024, 4096)
BF16 = bytes_per_elem("bf16")

h100_peak, h100_bw = H100.peak_flops("bf16"), H100.mem_bw
h100_ridge = H100.ridge_point("bf16")

basic_ops = [  # (name, FLOPs, bytes)
    # z = x + y: N additions; read x and y, write z.
    ("vector add", float(VECTOR_N), 3 * VECTOR_N * BF16),
    # x . y: N multiplies and N - 1 additions; read x and y, write one number.
    ("dot product", 2.0 * VECTOR_N - 1, (2 * VECTOR_N + 1) * BF16),
]
matmul = {B: matmul_counts(B, D, F) for B in BATCHES}  # B -> (FLOPs, bytes)
for B, counts in matmul.items():
    basic_ops.append(("matvec, B=1" if B == 1 else f"matmul, B={B}", *counts))

op_intensity = {name: intensity(flops, nbytes) for name, flops, nbytes in basic_ops}
op_share = {  # fraction of peak the roofline allows
    name: attainable_flops(i, h100_peak, h100_bw) / h100_peak for name, i in op_intensity.items()
}

rows = []
for name, flops, nbytes in basic_ops:
    i = op_intensity[name]
    rows.append(
        [
            name,
            fmt_flops(flops),
            fmt_bytes(nbytes),
            fmt_intensity(i),
            bound_of(i, h100_ridge),
            f"{op_share[name]:.2%}",
            fmt_time(lower_bound_time(flops, nbytes, h100_peak, h100_bw)),
        ]
    )
print_header(f"1. Basic operations in bf16 on {H100.name} (ridge {h100_ridge:.0f} FLOP/B)")
print(f"Vectors of N = {VECTOR_N:,} numbers; matmul X[B,{D}] W[{D},{F}].")
print()
print_table(["operation", "FLOPs", "bytes", "FLOP/B", "bound", "of peak", "time >="], rows)

matmul_i = {B: intensity(*counts) for B, counts in matmul.items()}
matmul_share = {B: attainable_flops(i, h100_peak, h100_bw) / h100_peak for B, i in matmul_i.items()}
compute_batches = [B for B in BATCHES if bound_of(matmul_i[B], h100_ridge) == "compute"]
if not compute_batches:  # possible after editing the hardware table
    crossing = (
        f"No batch in the list reaches the ridge of {h100_ridge:.0f} FLOP/B: even "
        f"B = {BATCHES[-1]} gets {matmul_share[BATCHES[-1]]:.2%} of peak."
    )
elif compute_batches[0] == BATCHES[0]:
    crossing = f"Every batch in the list reaches the ridge of {h100_ridge:.0f} FLOP/B."
else:
    first = compute_batches[0]
    before = BATCHES[BATCHES.index(first) - 1]
    crossing = (
        f"The first batch in the list to reach the ridge of {h100_ridge:.0f} FLOP/B is "
        f"B = {first} ({matmul_i[first]:.1f} FLOP/B); at B = {before} the matmul still gets "
        f"only {matmul_share[before]:.2%} of peak."
    )
# 2BDF / (2BD + 2DF + 2BF) grows towards 2DF / (2D + 2F) as B grows.
matmul_limit = D * F / (D + F)
print_observations(
    [
        f"A vector add does {op_intensity['vector add']:.3f} FLOP per byte and a dot product "
        f"{op_intensity['dot product']:.3f}, however long the vectors: each number is used "
        f"once. On an {H100.name} they reach {op_share['vector add']:.2%} and "
        f"{op_share['dot product']:.2%} of peak; only moving fewer bytes makes them faster.",
        f"While B is small the matmul's intensity is about B ({matmul_i[BATCHES[1]]:.1f} at "
        f"B = {BATCHES[1]}, {matmul_i[BATCHES[2]]:.1f} at B = {BATCHES[2]}): W is read once "
        f"and reused by every row of X. At B = {BATCHES[0]} it is {matmul_i[BATCHES[0]]:.3f}, "
        "no better than the dot product.",
        crossing,
        f"For large B the bytes of X and of the output count too: B = {BATCHES[-1]} gives "
        f"{matmul_i[BATCHES[-1]]:.0f} FLOP/B, not {BATCHES[-1]}, and no batch can pass "
        f"DF/(D+F) = {matmul_limit:.0f}.",
        "Here is the core tension of LLM inference: each decode step makes one token per "
        "sequence, so only batching many sequences keeps the matmuls off the bandwidth roof.",
    ]
)

# %%
# 2. Ridge points and the critical batch
# --------------------------------------
#
# Each chip has one ridge point per precision. The *critical batch* is the smallest
# :math:`B` at which the matmul's intensity reaches it, counting every byte: X read,
# W read and the output written, each at its own element size. Low-precision
# formats shrink the bytes *and* raise the peak, so the critical batch tells us
# which of the two wins. The table keeps :math:`D = F = 8192`.

CASES = [  # (chip, compute precision, element formats of X, W and the output)
    (H100, "bf16", ("bf16", "bf16", "bf16")),
    (H100, "fp8", ("fp8", "fp8", "bf16")),
    (H200, "bf16", ("bf16", "bf16", "bf16")),
    (B200, "bf16", ("bf16", "bf16", "bf16")),
    (B200, "fp8", ("fp8", "fp8", "bf16")),
    (B300, "fp8", ("fp8", "fp8", "bf16")),
    (B300, "nvfp4", ("nvfp4", "nvfp4", "bf16")),
    (TPU_V5E, "bf16", ("bf16", "bf16", "bf16")),
    (TPU_V5E, "int8", ("int8", "int8", "int8")),
    (TPU_V6E, "bf16", ("bf16", "bf16", "bf16")),
]

ridge = {}  # (chip key, precision) -> FLOP/B
crit_batch = {}  # (chip key, precision) -> smallest B, or None
rows = []
for chip, precision, formats in CASES:
    key = (chip.key, precision)
    ridge[key] = chip.ridge_point(precision)
    crit_batch[key] = critical_batch(D, F, ridge[key], *(bytes_per_elem(p) for p in formats))
    estimate = "*" if chip.peak_flops_table[precision].estimate else ""
    rows.append(
        [
            chip.name,
            precision,
            "/".join(formats),
            fmt_rate(chip.peak_flops(precision), digits=2) + estimate,
            fmt_bw(chip.mem_bw),
            f"{ridge[key]:.0f}",
            fmt_batch(crit_batch[key]),
        ]
    )
print_header(f"2. Ridge points and critical batch of X[B,{D}] W[{D},{F}]")
print("ridge in FLOP/B; * marks an estimated peak (see the hardware table).")
print_table(["chip", "compute", "X/W/out", "peak", "HBM", "ridge", "critical B"], rows)

bf16_ridges = {chip.name: ridge[(chip.key, p)] for chip, p, _ in CASES if p == "bf16"}
low_chip, high_chip = min(bf16_ridges, key=bf16_ridges.get), max(bf16_ridges, key=bf16_ridges.get)
batch = {key: fmt_batch(b) for key, b in crit_batch.items()}
h100_bf16, h100_fp8 = crit_batch[("h100", "bf16")], crit_batch[("h100", "fp8")]
fp8_vs_bf16 = f"x{h100_fp8 / h100_bf16:.2f}" if h100_fp8 and h100_bf16 else "no ratio"
fp8_compute_gain = H100.peak_flops("fp8") / H100.peak_flops("bf16")
nvfp4_compute_gain = B300.peak_flops("nvfp4") / B300.peak_flops("fp8")
nvfp4_byte_gain = bytes_per_elem("fp8") / bytes_per_elem("nvfp4")
print_observations(
    [
        f"In bf16 the ridge points run from {bf16_ridges[low_chip]:.0f} ({low_chip}) to "
        f"{bf16_ridges[high_chip]:.0f} FLOP/B ({high_chip}): to use its compute, a matmul must "
        "process a few hundred tokens at a time.",
        f"{H200.name} pairs {fmt_rate(H200.peak_flops('bf16'))} of bf16 compute (the "
        f"{H100.name} has {fmt_rate(H100.peak_flops('bf16'))}) with "
        f"x{H200.mem_bw / H100.mem_bw:.2f} the bandwidth ({fmt_bw(H200.mem_bw)} against "
        f"{fmt_bw(H100.mem_bw)}), so its ridge falls from {ridge[('h100', 'bf16')]:.0f} to "
        f"{ridge[('h200', 'bf16')]:.0f} FLOP/B and its critical batch from "
        f"{batch[('h100', 'bf16')]} to {batch[('h200', 'bf16')]}. More bandwidth makes full "
        "speed easier to reach.",
        f"fp8 raises the peak x{fp8_compute_gain:.2f} and halves the bytes of X and W, so the "
        f"critical batch barely moves: {batch[('h100', 'fp8')]} against "
        f"{batch[('h100', 'bf16')]} in bf16 ({fp8_vs_bf16}). Low precision speeds up both "
        "sides of the ledger; by itself it does not change which side limits.",
        f"nvfp4 on {B300.name} breaks that pattern: x{nvfp4_compute_gain:.1f} the fp8 compute "
        f"for only x{nvfp4_byte_gain:.2f} fewer bytes. The ridge jumps from "
        f"{ridge[('b300', 'fp8')]:.0f} to {ridge[('b300', 'nvfp4')]:.0f} FLOP/B and the "
        f"critical batch from {batch[('b300', 'fp8')]} to {batch[('b300', 'nvfp4')]}: the "
        "chip needs much larger batches to stay busy.",
        f"Since the intensity is about B, the critical batch sits just above the ridge: in "
        f"bf16 on {H100.name} it is {batch[('h100', 'bf16')]}, not "
        f"{ridge[('h100', 'bf16')]:.0f}, because reading X and writing the output cost bytes "
        "too (part 1's last observation).",
    ]
)

# %%
# 3. Low precision, one matrix per example, decode attention
# ----------------------------------------------------------
#
# Exercises 1, 2 and 4 of the roofline chapter of *How to Scale Your Model*, on a
# TPU v5e. For small :math:`B` nearly all the bytes are W's, so
# :math:`I \approx 2BDF / (DF\,w) = 2B / w` for :math:`w` bytes per weight, and the
# critical batch is about :math:`I^* w / 2`. That estimate is the book's answer; the
# last column counts every byte.

V5E_CASES = [  # (case, compute precision, element formats of X, W and the output)
    ("ex. 1: int8 X and W", "int8", ("int8", "int8", "int8")),
    ("ex. 2: int8 W, bf16 X", "bf16", ("bf16", "int8", "bf16")),
    ("all bf16", "bf16", ("bf16", "bf16", "bf16")),
]
v5e_rows = []
v5e_exact, v5e_book = {}, {}
for case, precision, formats in V5E_CASES:
    w_bytes = bytes_per_elem(formats[1])
    v5e_ridge = TPU_V5E.ridge_point(precision)
    v5e_book[case] = v5e_ridge * w_bytes / 2  # from I ~ 2B / w
    v5e_exact[case] = critical_batch(D, F, v5e_ridge, *(bytes_per_elem(p) for p in formats))
    v5e_rows.append(
        [
            case,
            precision,
            f"{v5e_ridge:.0f}",
            f"~ {2 / w_bytes:g} B",
            f"{v5e_book[case]:.0f}",
            fmt_batch(v5e_exact[case]),
        ]
    )
print_header(f"3. Low precision on {TPU_V5E.name}, X[B,{D}] W[{D},{F}]")
print("book's B = ridge x w / 2 with w bytes per weight; exact B counts every byte.")
print_table(["case", "compute", "ridge", "I, small B", "book's B", "exact B"], v5e_rows)

# Exercise 4: x[b] @ W[b] for every example b, so nothing is shared across the batch.
per_example_batches = (1, 16, 256, 4096)
per_example_i = {}
rows = []
for B in per_example_batches:
    flops, nbytes = batched_matvec_counts(B, D, F)
    per_example_i[B] = intensity(flops, nbytes)
    rows.append([B, fmt_flops(flops), fmt_bytes(nbytes), f"{per_example_i[B]:.3f}"])
print()
print(f"Exercise 4: one W[{D},{F}] per example, bf16.")
print_table(["B", "FLOPs", "bytes", "FLOP/B"], rows)

Q_HEADS, HEAD_DIM, CONTEXT = 32, 128, 4096
ATTENTION = (("MHA", Q_HEADS), ("GQA", 8), ("MQA", 1))  # (variant, KV heads)
attention_i = {}
rows = []
for variant, kv_heads in ATTENTION:
    flops, nbytes = decode_attention_counts(Q_HEADS, kv_heads, HEAD_DIM, CONTEXT)
    attention_i[variant] = intensity(flops, nbytes)
    rows.append(
        [
            variant,
            kv_heads,
            Q_HEADS // kv_heads,
            fmt_flops(flops),
            fmt_bytes(nbytes),
            f"{attention_i[variant]:.1f}",
        ]
    )
print()
print(
    f"Decode attention, one layer and one sequence, bf16 KV cache:\n"
    f"{Q_HEADS} query heads of dim {HEAD_DIM}, context {CONTEXT:,} tokens."
)
print_table(["variant", "KV heads", "q per KV", "FLOPs", "KV bytes", "FLOP/B"], rows)

long_context = 8 * CONTEXT
long_i = [
    intensity(*decode_attention_counts(Q_HEADS, kv, HEAD_DIM, long_context)) for _, kv in ATTENTION
]
ex1, ex2, all_bf16 = (case for case, _, _ in V5E_CASES)
int8_gain = TPU_V5E.peak_flops("int8") / TPU_V5E.peak_flops("bf16")
print_observations(
    [
        f"Exercise 1: int8 gives x{int8_gain:.1f} the v5e's bf16 peak and halves the size of "
        f"every number, so the critical batch stays where bf16 has it: "
        f"{fmt_batch(v5e_exact[ex1])} against {fmt_batch(v5e_exact[all_bf16])}. The small-B "
        f"estimate gives {v5e_book[ex1]:.0f}.",
        f"Exercise 2: int8 weights with bf16 compute halve the bytes of W at the same peak, "
        f"and the critical batch halves with them: {fmt_batch(v5e_exact[ex2])} (estimate "
        f"{v5e_book[ex2]:.0f}). This is why weight-only quantization pays off so well in "
        "decode.",
        f"Exercise 4: with one matrix per example the intensity is "
        f"{per_example_i[per_example_batches[0]]:.3f} at B = {per_example_batches[0]} and "
        f"still {per_example_i[per_example_batches[-1]]:.3f} at B = {per_example_batches[-1]}. "
        "Batching only helps when the batch shares data.",
        "Decode attention has exactly that shape: every sequence reads its own KV cache, and "
        "the intensity equals the number of query heads per KV head: "
        + ", ".join(f"{v} {attention_i[v]:.1f}" for v, _ in ATTENTION)
        + f" FLOP/B. At a context of {long_context:,} tokens it is the same ("
        + ", ".join(f"{i:.1f}" for i in long_i)
        + "), and the batch size never enters.",
        f"Even MQA's {attention_i['MQA']:.1f} FLOP/B is x{h100_ridge / attention_i['MQA']:.1f} "
        f"below the {H100.name} ridge: fewer KV heads cut the bytes, which is what GQA and "
        "MQA are for.",
    ]
)

# %%
# 4. The roofline chart
# ---------------------
#
# On log-log axes the roofline is two straight lines: the slanted bandwidth roof
# :math:`I \beta` on the left and the flat compute roof :math:`P_{peak}` on the
# right, meeting at the ridge point (``+``). Each operation of part 1 sits on the
# roof at its intensity; the legend below the chart names the points.

points, legend = [], []
for label, (name, _, _) in zip("abcdefgh", basic_ops, strict=True):
    i = op_intensity[name]
    points.append((label, i, None))  # None: place the point on the roof
    legend.append(
        [label, name, fmt_intensity(i), fmt_rate(attainable_flops(i, h100_peak, h100_bw))]
    )
print_header(f"4. Roofline of {H100.name}, bf16")
print("\n".join(ascii_roofline(points, h100_peak, h100_bw)))
print()
print_table(["point", "operation", "FLOP/B", "attainable"], legend)

if args.png:
    curves = [
        (f"{c.name} bf16", c.peak_flops("bf16"), c.mem_bw) for c in (H100, H200, B200, TPU_V5E)
    ]
    png_points = [
        (name, i, attainable_flops(i, h100_peak, h100_bw)) for name, i in op_intensity.items()
    ]
    png = save_roofline_png(
        str(args.outdir / "02_roofline.png"),
        curves,
        png_points,
        title=f"bf16 rooflines; points placed on {H100.name}",
    )
    print()
    print(f"saved figure: {display_path(png.path)}" if png else f"02_roofline.png: {png.reason}")

print_observations(
    [
        f"The bandwidth roof rises one decade per decade of intensity until the ridge "
        f"({h100_ridge:.0f} FLOP/B, {fmt_rate(h100_peak)}); past it the compute roof is flat.",
        f"Points a and b sit at the bottom left ({op_share['vector add']:.2%} and "
        f"{op_share['dot product']:.2%} of peak): no amount of tuning their arithmetic helps; "
        "only fusing them with neighbours to move fewer bytes does.",
        "The matmuls climb the slope as B grows"
        + (f" and reach the flat roof from B = {compute_batches[0]}" if compute_batches else "")
        + ". On the flat roof a larger batch adds latency per step but no throughput.",
    ]
)

# %%
# 5. Tiling: what main memory sees
# --------------------------------
#
# A matmul kernel computes its output in tiles of :math:`b_m \times b_n` values,
# streaming panels of A and B through on-chip memory. Every tile re-reads its
# panels from main memory, so the bigger the tile, the more each byte is reused.
# Per step along :math:`k` a tile does :math:`2 b_m b_n` FLOP on
# :math:`b_m + b_n` input values, so its intensity is about
# :math:`b_m b_n / (b_m + b_n)` in bf16. The exact count adds the output write.
# We multiply two bf16 matrices of :math:`4096 \times 4096`.

SIZE = 4096
TILES = ((32, 32, 32), (64, 64, 64), (128, 64, 128), (128, 64, 256), (256, 64, 256))
FP32 = bytes_per_elem("fp32")
# One H100 SM holds 65,536 32-bit registers (NVIDIA H100 architecture whitepaper).
SM_REGISTER_FILE_BYTES = 65536 * 4


def tile_intensity(bm: int, bn: int) -> float:
    """Main-memory FLOP/B of a bm x bn bf16 output tile: 2 bm bn / (2 (bm + bn))."""
    return 2 * bm * bn / (BF16 * (bm + bn))


tiled = {}  # (bm, bk, bn) -> (exact, approximate) intensity
rows = []
for bm, bk, bn in TILES:
    flops, nbytes = tiled_matmul_bytes(SIZE, SIZE, SIZE, bm, bk, bn)
    tiled[(bm, bk, bn)] = (intensity(flops, nbytes), tile_intensity(bm, bn))
    rows.append([f"{bm}x{bk}x{bn}", fmt_bytes(nbytes), *(f"{i:.1f}" for i in tiled[(bm, bk, bn)])])
print_header(f"5. Tiling a ({SIZE}x{SIZE}) @ ({SIZE}x{SIZE}) bf16 matmul")
print_table(["tile bm x bk x bn", "main-memory traffic", "FLOP/B exact", "bm*bn/(bm+bn)"], rows)

# The fp32 accumulator of an output tile must stay on chip until the k loop ends.
OUT_TILES = ((64, 64), (128, 128), (128, 256), (256, 256), (512, 512))
register_file = fmt_bytes(SM_REGISTER_FILE_BYTES, binary=True, digits=0)
rows = []
for bm, bn in OUT_TILES:
    accumulator = bm * bn * FP32
    tile_i = tile_intensity(bm, bn)
    rows.append(
        [
            f"{bm}x{bn}",
            fmt_bytes(accumulator, binary=True, digits=0),
            "yes" if accumulator <= SM_REGISTER_FILE_BYTES else "no",
            f"{tile_i:.0f}",
            "yes" if tile_i >= h100_ridge else "no",
        ]
    )
print()
print(f"Output tile against one SM's {register_file} register file and the {H100.name} ridge:")
print_table(
    ["output tile", "fp32 accumulator", f"fits {register_file}", "FLOP/B", "reaches ridge"],
    rows,
)

# A square s x s tile reaches s / 2 FLOP/B in bf16: it needs s = 2 I*.
needed_side = BF16 * h100_ridge
needed_accumulator = needed_side**2 * FP32
print()
print(
    f"Tile needed for {h100_ridge:.0f} FLOP/B from HBM alone: about {needed_side:.0f} x "
    f"{needed_side:.0f}; fp32 accumulator {fmt_bytes(needed_accumulator, binary=True, digits=1)}."
)

smallest, largest = tiled[TILES[0]], tiled[TILES[-1]]
print_observations(
    [
        f"Exact and approximate intensities differ only by the output write: "
        f"{smallest[0]:.1f} against {smallest[1]:.1f} for {TILES[0][0]}x{TILES[0][1]}x"
        f"{TILES[0][2]} tiles, {largest[0]:.1f} against {largest[1]:.1f} for "
        f"{TILES[-1][0]}x{TILES[-1][1]}x{TILES[-1][2]}. The inner size bk does not change "
        "the traffic.",
        f"To reach the {H100.name} ridge of {h100_ridge:.0f} FLOP/B on its own, an SM would "
        f"need an output tile of about {needed_side:.0f} x {needed_side:.0f}, whose fp32 "
        f"accumulator takes {fmt_bytes(needed_accumulator, binary=True, digits=1)}: "
        f"x{needed_accumulator / SM_REGISTER_FILE_BYTES:.1f} its {register_file} register "
        "file. No single SM gets there by itself.",
        "Real GPUs close the gap in two ways. A large L2 cache lets many SMs share the "
        "panels they fetch, so HBM sees far less traffic than every SM fetching alone. And "
        "Blackwell adds Tensor Memory (TMEM) beside each SM to hold accumulators, and lets "
        "two SMs run one MMA on shared operands: both exist to make tiles bigger.",
    ]
)

# %%
# 6. The network roofline
# -----------------------
#
# Split :math:`X[B, D]\,W[D, F]` along :math:`D` over two chips. Each chip
# multiplies its half, :math:`B D F` FLOP, then sends its :math:`[B, F]` partial
# sums (bf16) to the other over one link. Compute time and communication both grow
# with :math:`B F`, so the *network intensity* is :math:`D / 2` FLOP per byte sent,
# whatever :math:`B`. The split is compute-bound when that beats the chip's network
# ridge, peak FLOP/s divided by link bandwidth. Link figures are one direction of
# one link, from the hardware table.

NETWORK_CHIPS = (TPU_V5E, TPU_V6E, H100, B300)
NETWORK_DIMS = (4096, 8192, 16384)
SHARD_F = 8192
SHARD_B = 512  # any batch gives the same verdicts; part 6's second table checks it

net_ridge, net_dim = {}, {}
rows = []
for chip in NETWORK_CHIPS:
    peak = chip.peak_flops("bf16")
    net_ridge[chip.key] = ridge_point(peak, chip.link_bw)
    net_dim[chip.key] = network_critical_dim(peak, chip.link_bw, BF16)
    verdicts = [
        sharded_matmul_two_chips(SHARD_B, dim, SHARD_F, peak, chip.link_bw, BF16)["bound"]
        for dim in NETWORK_DIMS
    ]
    rows.append(
        [
            chip.name,
            chip.link_name,
            fmt_bw(chip.link_bw, digits=0),
            f"{net_ridge[chip.key]:,.0f}",
            f"D > {net_dim[chip.key]:,.1f}",
            *verdicts,
        ]
    )
print_header(f"6. X[B,D] W[D,{SHARD_F}] split along D over two chips, bf16")
print("net I* = bf16 peak / link bandwidth, in FLOP per byte sent; then the bound at each D.")
print_table(
    ["chip", "link", "one way", "net I*", "compute iff", *(f"D={d}" for d in NETWORK_DIMS)],
    rows,
)

V5E_DIMS = (8192, 16384)
V5E_BATCHES = (8, 128, 2048)
v5e_peak, v5e_link = TPU_V5E.peak_flops("bf16"), TPU_V5E.link_bw
v5e_bounds = {}
rows = []
for dim in V5E_DIMS:
    for B in V5E_BATCHES:
        r = sharded_matmul_two_chips(B, dim, SHARD_F, v5e_peak, v5e_link, BF16)
        v5e_bounds[(dim, B)] = r["bound"]
        rows.append(
            [
                dim,
                B,
                fmt_time(r["t_math"]),
                fmt_time(r["t_comms"]),
                f"{r['intensity']:,.0f}",
                r["bound"],
            ]
        )
print()
print(f"{TPU_V5E.name}, one ICI link: the batch does not change the verdict.")
print_table(["D", "B", "T_math", "T_comms", "FLOP/B sent", "bound"], rows)

b300_estimate = " (an estimate)" if B300.peak_flops_table["bf16"].estimate else ""
b300_compute_gain = B300.peak_flops("bf16") / H100.peak_flops("bf16")
b300_link_gain = B300.link_bw / H100.link_bw
v5e_verdicts = {dim: sorted({v5e_bounds[(dim, B)] for B in V5E_BATCHES}) for dim in V5E_DIMS}
print_observations(
    [
        f"Network intensity is D/2 FLOP per byte, so on {TPU_V5E.name} the split pays off only "
        f"for D > {net_dim['tpu-v5e']:,.1f}. At D = {V5E_DIMS[0]:,} every batch from "
        f"{V5E_BATCHES[0]} to {V5E_BATCHES[-1]:,} is {'/'.join(v5e_verdicts[V5E_DIMS[0]])}-"
        f"bound; at D = {V5E_DIMS[1]:,} every one is "
        f"{'/'.join(v5e_verdicts[V5E_DIMS[1]])}-bound.",
        f"{H100.link_name} carries x{H100.link_bw / TPU_V5E.link_bw:.0f} the bandwidth of "
        f"one v5e ICI link, so the {H100.name} needs only D > {net_dim['h100']:,.1f}.",
        f"{TPU_V6E.name} has x{TPU_V6E.peak_flops('bf16') / TPU_V5E.peak_flops('bf16'):.2f} the "
        f"v5e's compute but only x{TPU_V6E.link_bw / TPU_V5E.link_bw:.1f} its link bandwidth, "
        f"so one link needs D > {net_dim['tpu-v6e']:,.1f}; real systems use several links "
        "at once.",
        f"{B300.name}'s bf16 peak{b300_estimate} is x{b300_compute_gain:.2f} the "
        f"{H100.name}'s, its NVLink only x{b300_link_gain:.1f}: the network ridge rises "
        f"from {net_ridge['h100']:,.0f} to {net_ridge['b300']:,.0f} FLOP/B. "
        "Compute grows faster than communication, a trend that runs through this course.",
    ]
)
