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

The order follows the roofline chapter of :ref:`the book <sources>` (*How to Scale
Your Model*), as :ref:`the lecture script <sources>` of CS349E does. Every number
below comes from a formula in ``common/formulas/roofline.py`` and a figure in the
hardware table ``common/hw_specs.py``; the tables and sentences are composed in
``lectures/words/roofline_basics.py``. Nothing is timed, so every run prints the
same output; edit a figure in the table and rerun to see every dependent number move.

Run it with ``python3 lectures/02_roofline_basics.py`` (standard library only, well
under a second). Add ``--png`` to also save ``02_roofline.png`` (needs matplotlib)
into ``--outdir DIR`` (default: ``figures/`` at the repository root).
"""

from __future__ import annotations

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from functools import partial

from common.formulas import roofline
from common.hw_specs import B200, B300, H100, H200, TPU_V5E, TPU_V6E, bytes_per_elem
from common.plots.roofline import save_roofline_png
from common.present.display import show
from common.shell.cli import parse_args, png_parser
from common.tables import assumptions
from lectures.words import roofline_basics as page

ABOUT = {"flags": (), "figure": True, "chip": "h100", "bare": True,
         "terms": ("roofline", "critical batch", "ridge point")}  # fmt: skip

make_parser = partial(png_parser, __doc__)  # the command line: --png and --outdir
args = parse_args(make_parser())  # a bad --outdir, or --png without matplotlib, is said here

# %%
# 1. Intensity of basic operations
# --------------------------------
#
# The *arithmetic intensity* of an operation is the work it does per byte it moves
# to or from main memory, :math:`I = F / D` for :math:`F` FLOP and :math:`D` bytes.
# A chip runs at full speed only when :math:`I` reaches its *ridge point*
# :math:`I^* = P_{peak} / \beta`; below that, the memory bus sets the pace and the
# best the chip can do is :math:`I \beta` FLOP/s. The time can never be shorter than
# :math:`T = \max(F / P_{peak},\ D / \beta)`.
#
# We take a vector add and a dot product over vectors of :math:`2^{24}` numbers,
# then the matmul :math:`X[B, K] \cdot W[K, N]` with :math:`K = N = 8192` for a
# growing batch :math:`B` (at :math:`B = 1` it is a matrix-vector product): it does
# :math:`2BKN` FLOP and moves X, W and the output once. Everything is bf16 and runs
# on an H100.

VECTOR_LEN = 2**24
K = N = 8192
BATCHES = (1, 16, 64, 256, 1024, 4096)
BF16 = bytes_per_elem("bf16")

basic_ops = [  # (name, FLOPs, bytes)
    # z = x + y: one addition per element; read x and y, write z.
    ("vector add", float(VECTOR_LEN), 3 * VECTOR_LEN * BF16),
    # x . y: a multiply per element and one addition fewer; read x and y, write one number.
    ("dot product", 2.0 * VECTOR_LEN - 1, (2 * VECTOR_LEN + 1) * BF16)]  # fmt: skip
basic_ops += [(page.matmul_name(B), *roofline.matmul_counts(B, K, N)) for B in BATCHES]
op_intensity = {name: roofline.intensity(f, d) for name, f, d in basic_ops}

peak, bw, h100_ridge = H100.peak_flops("bf16"), H100.mem_bw, H100.ridge_point("bf16")
basic_records = tuple(
    page.Op(name=name, flops=f, nbytes=d, intensity=op_intensity[name],
            bound=roofline.bound_of(op_intensity[name], h100_ridge),
            attainable=roofline.attainable_flops(op_intensity[name], peak, bw),
            time=roofline.lower_bound_time(f, d, peak, bw))
    for name, f, d in basic_ops)  # fmt: skip
matmul_limit = K * N / (K + N)  # 2BKN / (2BK + 2KN + 2BN) grows towards KN / (K + N)
part1 = page.Basics(chip=H100.name, peak=peak, bw=bw, ridge=h100_ridge, vector_len=VECTOR_LEN,
                    K=K, N=N, ops=basic_records, batches=BATCHES, limit=matmul_limit)  # fmt: skip
show(*page.basics(part1))

# %%
# 2. Ridge points and the critical batch
# --------------------------------------
#
# Each chip has one ridge point per precision. The *critical batch* is the smallest
# :math:`B` at which the matmul's intensity reaches it, counting every byte: X read,
# W read and the output written, each at its own element size. Low-precision
# formats shrink the bytes *and* raise the peak, so the critical batch tells us
# which of the two wins. The table keeps :math:`K = N = 8192`.

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
    (TPU_V6E, "bf16", ("bf16", "bf16", "bf16"))]  # fmt: skip

rows = {
    (c.key, p): page.Ridge(
        chip=c.name, precision=p, formats=formats, w_bytes=bytes_per_elem(formats[1]),
        peak=c.peak_flops(p), estimate=c.peak_flops_table[p].estimate, bw=c.mem_bw,
        ridge=c.ridge_point(p),  # the smallest B reaching it, or None:
        batch=roofline.critical_batch(K, N, c.ridge_point(p), *map(bytes_per_elem, formats)),
    )
    for c, p, formats in CASES}  # fmt: skip
part2 = page.Ridges(
    K, N, tuple(rows.values()),
    bandwidth=(rows[(H100.key, "bf16")], rows[(H200.key, "bf16")]),
    fp8=(rows[(H100.key, "bf16")], rows[(H100.key, "fp8")]),
    nvfp4=(rows[(B300.key, "fp8")], rows[(B300.key, "nvfp4")]))  # fmt: skip
show(*page.ridges(part2))

# %%
# 3. Low precision and decode attention
# -------------------------------------
#
# Exercises 1 and 2 of the roofline chapter of the book, on a
# TPU v5e. For small :math:`B` nearly all the bytes are W's, so
# :math:`I \approx 2BKN / (KN\,w) = 2B / w` for :math:`w` bytes per weight, and the
# critical batch is about :math:`I^* w / 2`. That estimate is the book's answer; the
# last column of the first table counts every byte. Decode attention over a KV cache
# is a batch that shares nothing: every sequence reads its own cache. (Exercise 4,
# one matrix per example, is ``python3 -m common.exercises per-example-matrices``.)

V5E_CASES = [  # (case, compute precision, element formats of X, W and the output)
    ("ex. 1: int8 X and W", "int8", ("int8", "int8", "int8")),
    ("ex. 2: int8 W, bf16 X", "bf16", ("bf16", "int8", "bf16")),
    ("all bf16", "bf16", ("bf16", "bf16", "bf16"))]  # fmt: skip
v5e = []  # (case, compute, ridge, bytes per weight, book's B, exact B)
for case, precision, formats in V5E_CASES:
    w_bytes, v5e_ridge = bytes_per_elem(formats[1]), TPU_V5E.ridge_point(precision)
    exact = roofline.critical_batch(K, N, v5e_ridge, *map(bytes_per_elem, formats))
    book = v5e_ridge * w_bytes / 2  # the book's estimate I* w / 2
    v5e.append(page.V5e(case=case, precision=precision, ridge=v5e_ridge, w_bytes=w_bytes,
                        book=book, exact=exact))  # fmt: skip

Q_HEADS, HEAD_DIM, CONTEXT = 32, 128, 4096
ATTENTION = (("MHA", Q_HEADS), ("GQA", 8), ("MQA", 1))  # (variant, KV heads)
LONG = 8 * CONTEXT  # the same at 8x the context
attention = []  # each variant's decode attention, one layer and sequence: F, D, I, I at LONG
for variant, kv in ATTENTION:
    f, d = roofline.decode_attention_counts(Q_HEADS, kv, HEAD_DIM, CONTEXT)
    i = roofline.intensity(f, d)
    long_i = roofline.intensity(*roofline.decode_attention_counts(Q_HEADS, kv, HEAD_DIM, LONG))
    attention.append(page.Attention(variant=variant, kv_heads=kv, flops=f, nbytes=d, intensity=i,
                                    long_intensity=long_i))  # fmt: skip

part3 = page.Exercises(
    chip=TPU_V5E.name, K=K, N=N, v5e=tuple(v5e),
    int8_gain=TPU_V5E.peak_flops("int8") / TPU_V5E.peak_flops("bf16"),
    q_heads=Q_HEADS, head_dim=HEAD_DIM, context=CONTEXT, long_context=LONG,
    attention=tuple(attention), ridge_chip=H100.name, ridge=h100_ridge)  # fmt: skip
show(*page.exercises(part3))

# %%
# 4. The roofline chart
# ---------------------
#
# On log-log axes the roofline is two straight lines: the slanted bandwidth roof
# :math:`I \beta` on the left and the flat compute roof :math:`P_{peak}` on the
# right, meeting at the ridge point. Each operation of part 1 sits on the H100's roof
# at its intensity, :math:`\min(P_{peak}, I \beta)`. With ``--png`` (as on this page)
# the chart is a figure, the H100's roof in bold and the bf16 roofs of three other
# chips dashed for comparison; in a terminal without it, the same chart is drawn in
# text, the ridge marked ``+`` and the points named in a legend below it.

png = None
if args.png:
    others = (H200, B200, TPU_V5E)
    curves = [(f"{c.name} bf16", c.peak_flops("bf16"), c.mem_bw) for c in (H100, *others)]
    points = [
        (name.split(", ")[-1], i, roofline.attainable_flops(i, peak, bw))
        for name, i in op_intensity.items()]  # fmt: skip
    out = str(args.outdir / "02_roofline.png")
    title = f"bf16 rooflines; points placed on {H100.name}"
    png = save_roofline_png(out, curves, points, title, placed_on=0)  # on the first curve
    roofs = tuple(page.Roof(c.name, c.peak_flops("bf16"), c.ridge_point("bf16")) for c in others)
    show(page.roofline_png(png, "02_roofline.png", part1, roofs))
if not png:  # a terminal, or no matplotlib: the chart in text
    show(page.roofline_chart(part1))
show(page.roofline_observations(part1))

# %%
# 5. Tiling: what main memory sees
# --------------------------------
#
# A matmul kernel computes its output in tiles of :math:`b_m \times b_n` values,
# streaming a row panel of the left matrix and a column panel of the right one
# through on-chip memory for each tile. Every tile re-reads its panels from main
# memory, so the bigger the tile, the more each byte is reused. Per step along the
# inner dimension a tile does :math:`2 b_m b_n` FLOP on :math:`b_m + b_n` input
# values, so its intensity is about :math:`b_m b_n / (b_m + b_n)` in bf16. The
# exact count adds the output write. We multiply two bf16 matrices of
# :math:`4096 \times 4096`.

SIZE = 4096
TILES = ((32, 32, 32), (64, 64, 64), (128, 64, 128), (128, 64, 256), (256, 64, 256))
FP32 = bytes_per_elem("fp32")


def tile_intensity(bm: int, bn: int) -> float:
    """Main-memory FLOP/B of a bm x bn bf16 output tile: 2 bm bn / (2 (bm + bn))."""
    return 2 * bm * bn / (BF16 * (bm + bn))


tiled = []  # (tile, bytes, exact intensity, approximate intensity)
for bm, bk, bn in TILES:
    f, d = roofline.tiled_matmul_bytes(SIZE, SIZE, SIZE, bm, bk, bn)
    tiled.append((f"{bm}x{bk}x{bn}", d, roofline.intensity(f, d), tile_intensity(bm, bn)))

# The fp32 accumulator of an output tile must stay on chip until the inner loop ends.
OUT_TILES = ((64, 64), (128, 128), (128, 256), (256, 256), (512, 512))
# A square s x s tile reaches s / 2 FLOP/B in bf16: it needs s = 2 I*.
side = BF16 * H100.ridge_point("bf16")

part5 = page.Tiling(
    size=SIZE,
    tiles=tuple(tiled),
    outputs=tuple((f"{m}x{n}", m * n * FP32, tile_intensity(m, n)) for m, n in OUT_TILES),
    register_file=assumptions.SM_REGISTER_FILE_BYTES, chip=H100.name, ridge=h100_ridge, side=side,
    accumulator=side**2 * FP32,  # that tile's fp32 accumulator, in bytes
)  # fmt: skip
show(*page.tiling(part5))

# %%
# 6. The network roofline
# -----------------------
#
# Split :math:`X[B, K] \cdot W[K, N]` along :math:`K` over two chips. Each chip
# multiplies its half, :math:`B K N` FLOP, then sends its :math:`[B, N]` partial
# sums (bf16) to the other over one link. Compute time and communication both grow
# with :math:`B N`, so the *network intensity* is :math:`K / 2` FLOP per byte sent,
# whatever :math:`B`. The split is compute-bound when that beats the chip's network
# ridge, peak FLOP/s divided by link bandwidth. Link figures are one direction of
# one link, from the hardware table.

NETWORK_CHIPS = (TPU_V5E, TPU_V6E, H100, B300)
NETWORK_DIMS = (4096, 8192, 16384)
SHARD_N, SHARD_B = 8192, 512  # any batch gives the same verdicts: the v5e rows check it
# A chip the table lists without a link figure sits this part out (the page says so).
linked = [chip for chip in NETWORK_CHIPS if chip.link_bw_figure is not None]

links = {}  # chip key -> its network ridge, critical K and the bound at each K
for chip in linked:
    peak, link = chip.peak_flops("bf16"), chip.link_bw
    steps = [roofline.sharded_matmul_two_chips(SHARD_B, k, SHARD_N, peak, link, BF16)
             for k in NETWORK_DIMS]  # fmt: skip
    links[chip.key] = page.Link(
        chip=chip.name, link=chip.link_name, link_bw=link, peak=peak,
        estimate=chip.peak_flops_table["bf16"].estimate, ridge=roofline.ridge_point(peak, link),
        critical_k=roofline.network_critical_dim(peak, link, BF16),
        bounds=tuple((k, step["bound"]) for k, step in zip(NETWORK_DIMS, steps, strict=True)),
    )  # fmt: skip

v5e_steps = []  # (K, B, T_math, T_comms, I, bound)
if TPU_V5E in linked:
    v5e_peak, v5e_link = TPU_V5E.peak_flops("bf16"), TPU_V5E.link_bw
    for k in (8192, 16384):
        for B in (8, 128, 2048):
            s = roofline.sharded_matmul_two_chips(B, k, SHARD_N, v5e_peak, v5e_link, BF16)
            v5e_steps.append((k, B, s["t_math"], s["t_comms"], s["intensity"], s["bound"]))

part6 = page.Network(N=SHARD_N, links=tuple(links.get(c.key) for c in NETWORK_CHIPS),
                     steps=tuple(v5e_steps),
                     missing=tuple(c.name for c in NETWORK_CHIPS if c not in linked))  # fmt: skip
show(*page.network(part6))
