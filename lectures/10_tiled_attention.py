r"""
Attention with finite on-chip memory
====================================

The attention ledger of :ref:`the article <sources-article>`, which lecture 05
reproduces, stops at two extremes for one head: a naive kernel that writes its
score matrices to main memory, and an ideal minimum that reads Q, K and V once
and writes O once. The article says itself that the ideal is not what a real
kernel achieves: a tiled kernel holds only a few blocks on chip, so it reads K
and V again and again. How much does a tiled kernel really move when its
on-chip memory is finite, where does that leave it on the roofline, and what
happens when we run one here?

Part 1 (sections 1 to 4) builds the IO model of one named schedule,
FlashAttention-2's, as a function of the on-chip memory per processing unit
:math:`M_{sm}`: pure formulas, as in lectures 02 and 05. Part 2 (sections 5
to 8) writes the naive kernel and the tiled one in numpy, checks that they
agree, times both on this machine with blocks sized from its caches, and
places them on its roofline.

Run it with ``python3 lectures/10_tiled_attention.py`` (needs numpy; about
fifteen seconds). Flags: ``--quick`` (small sizes, a few seconds), ``--png``
(also save the two figures), ``--outdir DIR`` (where they go, default
``figures/``), ``--results FILE`` (the results file whose lecture-01
calibration gives this machine's roofs, default ``results/machine.json``).
"""

# sphinx_gallery_start_ignore
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))))
from common.shell import boot  # one-line errors, quiet Ctrl-C and closed pipes, before numpy

boot.start()
# sphinx_gallery_end_ignore

import time

from common.files import results
from common.files.calibration import load_or_calibrate
from common.formulas import attention_io, hierarchy, numpy_ops
from common.formulas.ledger import attention_counts
from common.formulas.roofline import intensity, lower_bound_time
from common.formulas.thresholds import crossover
from common.formulas.transformer import layer_ops
from common.hw_specs import A100, CHIPS, H100, bytes_per_elem
from common.measure import attention, caches, roofs
from common.plots.style import log_range
from common.present.display import Observations, Table, Text, show
from common.shell import cli
from common.shell.paths import display_path
from common.tables.models import LLAMA_3_8B


def make_parser() -> cli.LectureParser:
    """The command line: --quick, --png, --outdir and --results."""
    parser = cli.lecture_parser(__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, short runs")
    cli.add_png_flags(parser)
    cli.add_results_flag(parser, saves=True)
    return parser


args = cli.parse_args(make_parser())  # bad paths, and --png without matplotlib, are said here
QUICK = args.quick
TIME_BUDGET_S = 0.15 if QUICK else 0.6  # per sequence length, both kernels together
lecture_start = time.perf_counter()

# sphinx_gallery_start_ignore
import math

from common.plots import attention as attention_plots
from common.present.console import (
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_kib,
    fmt_num,
    fmt_rate,
    fmt_ratio,
    fmt_time,
)
from common.present.display import figure


def verdict(i: float, ridge: float, seconds: float) -> str:
    """'memory, 89.0 µs': which roof binds and the time bound."""
    return f"{'compute' if i >= ridge else 'memory'}, {fmt_time(seconds)}"


def saved_figure(drawn: str, caption: str) -> object:
    """The display object of a figure just written (None when --png is off)."""
    return figure(drawn, caption, display_path(drawn)) if drawn else None


# sphinx_gallery_end_ignore

# %%
# 1. The two extremes of the article
# ----------------------------------
#
# One head over :math:`N` tokens with head dimension :math:`d_h` does
# :math:`F = 4 N^2 d_h + 5 N^2` FLOP: two :math:`N \times N \times d_h` matmuls
# and a softmax of about five operations per score. The naive kernel writes the
# scores :math:`S` and the probabilities :math:`P` to main memory and reads both
# back, so its traffic has a quadratic term, :math:`D = b\,(4 N^2 + 4 N d_h)` for
# :math:`b` bytes per element. The ideal minimum keeps every quadratic quantity
# on chip and moves :math:`D = 4 b N d_h`. The article evaluates both at
# :math:`N = 4096`, :math:`d_h = 128` in bf16, on the A100; the H100 joins here.

N, D_HEAD = 4096, 128
BF16 = bytes_per_elem("bf16")
F, naive_bytes = attention_counts(N, D_HEAD, BF16)
ideal_bytes = attention_counts(N, D_HEAD, BF16, materialized=False)[1]
extremes = {
    "naive: S and P in memory": naive_bytes,
    "ideal: Q, K, V and O once": ideal_bytes,
}

# sphinx_gallery_start_ignore
GPUS = (A100, H100)
bound_s = {
    (name, c.key): lower_bound_time(F, d, c.peak_flops("bf16"), c.mem_bw)
    for name, d in extremes.items()
    for c in GPUS
}
table = Table(
    [
        "kernel",
        "F",
        "D",
        "I (FLOP/B)",
        *(f"{c.name}, I* {c.ridge_point('bf16'):.1f}" for c in GPUS),
    ],
    [
        [name, fmt_flops(F), fmt_bytes(d), f"{intensity(F, d):.1f}"]
        + [verdict(intensity(F, d), c.ridge_point("bf16"), bound_s[(name, c.key)]) for c in GPUS]
        for name, d in extremes.items()
    ],
    title=f"One head, N = {N:,}, d_h = {D_HEAD}, bf16: the bound and T >= max(F/P, D/beta)",
)
naive_name, ideal_name = extremes
kv_bytes = 2 * BF16 * N * D_HEAD
notes = Observations(
    [
        f"Naive attention moves {fmt_bytes(naive_bytes)} at I = {intensity(F, naive_bytes):.1f} "
        f"FLOP/byte, under both ridges: memory-bound. The ideal moves {fmt_bytes(ideal_bytes)} "
        f"({fmt_ratio(naive_bytes / ideal_bytes, 1)} fewer bytes, the same F) at "
        f"I = {intensity(F, ideal_bytes):.0f}: compute-bound on both chips.",
        f"On the {A100.name} the time bound falls "
        f"{fmt_ratio(bound_s[(naive_name, 'a100')] / bound_s[(ideal_name, 'a100')], 1)}, from "
        f"{fmt_time(bound_s[(naive_name, 'a100')], 'ms')} to "
        f"{fmt_time(bound_s[(ideal_name, 'a100')], 'ms')}: the article's numbers.",
        f"The ideal assumes that nothing is ever read twice, as if K and V "
        f"({fmt_kib(kv_bytes)} at this size) stayed on chip for every query. One SM's shared "
        "memory "
        "is a few hundred KiB. The rest of Part 1 asks what a finite on-chip memory gives.",
    ]
)
# sphinx_gallery_end_ignore
show(table, notes)

# %%
# 2. FlashAttention-2's schedule and its footprint
# ------------------------------------------------
#
# FlashAttention (Dao et al., 2022) computes attention in blocks that fit on
# chip and never writes :math:`S` or :math:`P`: the *online softmax* keeps, for
# each query row, a running maximum :math:`m` and a running sum :math:`l`, and
# rescales what it has accumulated whenever a new block raises the maximum.
# FlashAttention-2 (Dao, 2023) puts the query blocks in the outer loop. Its
# forward pass, with :math:`T_r = \lceil N / B_r \rceil` query blocks and
# :math:`T_c = \lceil N / B_c \rceil` key blocks, is the schedule this lecture
# models:
#
# .. code-block:: text
#
#    for i = 1 .. T_r:        read Q_i (B_r rows); O_i = 0, m_i = -inf, l_i = 0
#        for j = 1 .. T_c:    read K_j and V_j (B_c rows each)
#            S = Q_i K_j^T;  update m_i and l_i
#            O_i = exp(m_old - m_i) O_i + exp(S - m_i) V_j
#        write O_i / l_i
#
# Q is read once and O written once, but every :math:`K_j` and :math:`V_j` is
# read once per query block, so the traffic is
#
# .. math:: D = b\, N d_h\, (2 + 2R), \qquad R = T_r,
#
# except that a block already on chip is not read again: when K and V form one
# block (:math:`B_c = N`), :math:`R = 1` and the traffic is the ideal minimum.
# It is never less.
#
# **The footprint rule.** One inner step holds :math:`Q_i`, :math:`K_j` and
# :math:`V_j` at :math:`b` bytes per element, the score block (overwritten by
# :math:`P`) and the accumulator :math:`O_i` in fp32, and two fp32 statistics
# per row:
#
# .. math::
#
#    U(B_r, B_c) ={} & b d_h B_r + 2 b d_h B_c + 4 B_r B_c \\
#    & + 4 d_h B_r + 8 B_r \le M_{sm}.
#
# If K and V fit whole beside one query row, :math:`U(1, N) \le M_{sm}`, then
# :math:`B_c = N`. Otherwise :math:`B_c = \min(B_r, d_h)` and :math:`B_r` is as
# large as the footprint allows: FlashAttention's own rule
# (:math:`B_c = \lceil M/4d \rceil`, :math:`B_r = \min(\lceil M/4d \rceil, d)`)
# with the loops swapped, so that the outer block is the large one. Then
# :math:`B_r` grows as :math:`M_{sm} / ((b + 8) d_h)` and
# :math:`D \approx 2 b N^2 d_h / B_r` falls as :math:`N^2 d_h^2 / M_{sm}`: the
# :math:`\Theta(N^2 d^2 / M)` HBM accesses of FlashAttention's IO-complexity
# theorem (theorem 2 of Dao et al., 2022), against :math:`\Theta(N d + N^2)` for
# the naive kernel. The hardware table now lists each chip's shared memory per
# SM, the most one kernel may use.

SM_CHIPS = [chip for chip in CHIPS.values() if chip.smem_per_sm_figure is not None]
plans = {}
for chip in SM_CHIPS:
    blocks = attention_io.block_sizes(N, D_HEAD, chip.smem_per_sm, BF16)
    traffic = attention_io.tiled_traffic(N, D_HEAD, blocks.rows, blocks.cols, BF16)
    plans[chip.key] = (chip, blocks, traffic, intensity(F, traffic))
needed = {}  # the smallest M_sm whose blocks reach each chip's ridge point
for chip in SM_CHIPS:
    ridge = chip.ridge_point("bf16")
    needed[chip.key] = attention_io.smallest_on_chip_for(N, D_HEAD, ridge, BF16)

# sphinx_gallery_start_ignore
block_rows, bound_rows = [], []
for key, (chip, blocks, traffic, i) in plans.items():
    ridge = chip.ridge_point("bf16")
    seconds = lower_bound_time(F, traffic, chip.peak_flops("bf16"), chip.mem_bw)
    block_rows.append(
        [
            chip.name,
            fmt_kib(chip.smem_per_sm),
            f"{blocks.rows} x {blocks.cols}",
            fmt_kib(blocks.on_chip_bytes),
            -(-N // blocks.rows),
        ]
    )
    bound_rows.append(
        [
            chip.name,
            fmt_bytes(traffic),
            f"{i:.1f}",
            f"{ridge:.1f}",
            verdict(i, ridge, seconds),
            fmt_kib(needed[key]) if needed[key] else "never",
        ]
    )
block_table = Table(
    ["chip", "M_sm", "Br x Bc", "U", "T_r"],
    block_rows,
    title=f"FlashAttention-2's blocks in each chip's shared memory (N = {N:,}, d_h = {D_HEAD})",
    note="bf16. U is the footprint of one inner step, T_r the number of query blocks.",
)
table = Table(
    ["chip", "D", "I", "I*", "bound", "M_sm for I*"],
    bound_rows,
    title="Their traffic, intensity and bound",
    note="The last column is the smallest M_sm whose blocks reach the chip's ridge point I*.",
)
h100_plan, a100_plan = plans["h100"], plans["a100"]
notes = Observations(
    [
        f"In bf16 the intensity is about B_r: F / D = (4 N^2 d_h) / (2 b N d_h (1 + T_r)) is "
        f"close to 2 N / (b T_r) = B_r. The {H100.name}'s {fmt_kib(H100.smem_per_sm)} give "
        f"B_r = {h100_plan[1].rows} and I = {h100_plan[3]:.1f}; the {A100.name}'s "
        f"{fmt_kib(A100.smem_per_sm)} give B_r = {a100_plan[1].rows} and I = {a100_plan[3]:.1f}.",
        f"Neither reaches its ridge from shared memory alone: the {H100.name} would need "
        f"{fmt_kib(needed['h100'])} ({fmt_ratio(needed['h100'] / H100.smem_per_sm)} what it has), "
        f"the {A100.name} {fmt_kib(needed['a100'])} "
        f"({fmt_ratio(needed['a100'] / A100.smem_per_sm)}).",
        f"The {H100.name}'s blocks cut the traffic from {fmt_bytes(naive_bytes)} to "
        f"{fmt_bytes(h100_plan[2])} ({fmt_ratio(naive_bytes / h100_plan[2])} fewer bytes), but "
        "that "
        f"is still {fmt_ratio(h100_plan[2] / ideal_bytes, 1)} the ideal: K and V are read "
        f"T_r = {-(-N // h100_plan[1].rows)} times each.",
        "Real kernels do better than this model in two ways it leaves out: they keep the score "
        "block and the accumulator in registers, a second on-chip store beside shared memory, "
        "and the L2 cache serves many of the rereads of K and V before they reach HBM.",
    ]
)
# sphinx_gallery_end_ignore
show(block_table, table, notes)

# %%
# 3. Traffic against on-chip memory
# ---------------------------------
#
# Now let :math:`M_{sm}` grow from the smallest footprint, one row of every
# block, to twice what K and V need whole. The figure's right axis reads the
# same curve as intensity, :math:`I = F / D`, so the ridge points of the A100
# and the H100 become horizontal lines: where the staircase crosses one, the
# schedule turns compute-bound on that chip.

least = attention_io.smallest_on_chip_bytes(D_HEAD, BF16)
resident = attention_io.resident_on_chip_bytes(N, D_HEAD, BF16)
m_grid = log_range(least, 2 * resident, 400)
curve = [attention_io.tiled_counts(N, D_HEAD, m, BF16)[1] for m in m_grid]
as_naive = attention_io.smallest_on_chip_for(N, D_HEAD, F / naive_bytes, BF16)
landmarks = {
    "one row of each block": least,
    "no more than naive": as_naive,
    f"{A100.name} ridge": needed["a100"],
    f"{H100.name} ridge": needed["h100"],
    "K and V whole": resident,
}

# sphinx_gallery_start_ignore
drawn = ""
if args.png:
    same_sm = sorted({c.smem_per_sm for c in SM_CHIPS})
    drawn = attention_plots.traffic_figure(
        args.outdir / "10_traffic_vs_on_chip_memory.png",
        m_grid,
        curve,
        naive_bytes,
        ideal_bytes,
        F,
        [(" / ".join(c.name for c in SM_CHIPS if c.smem_per_sm == m), m) for m in same_sm],
        [(c.name, c.ridge_point("bf16"), needed[c.key]) for c in GPUS],
        f"One head, N = {N:,}, d_h = {D_HEAD}, bf16: FlashAttention-2's loops",
    )
rows = []
for name, m in landmarks.items():
    blocks = attention_io.block_sizes(N, D_HEAD, m, BF16)
    d = attention_io.tiled_traffic(N, D_HEAD, blocks.rows, blocks.cols, BF16)
    rows.append(
        [
            name,
            fmt_kib(m),
            f"{blocks.rows} x {blocks.cols}",
            fmt_bytes(d),
            f"{intensity(F, d):.1f}",
        ]
    )
table = Table(["landmark", "M_sm", "Br x Bc", "D", "I"], rows, title="Landmarks on the curve")
span = [m for m in m_grid if 16 * 1024 <= m <= 128 * 1024]
d_lo, d_hi = (attention_io.tiled_counts(N, D_HEAD, m, BF16)[1] for m in (span[0], span[-1]))
slope = math.log(d_hi / d_lo) / math.log(span[-1] / span[0])
caption = (
    "HBM traffic of one head against the on-chip memory per SM (log-log). The staircase is "
    "the tiled schedule, the dashed lines the naive kernel and the ideal minimum. A dotted "
    "line is the traffic F / I* at which the head's intensity reaches a chip's ridge point "
    "(A100, H100), with a dot where the staircase first gets below it; the vertical lines "
    "mark the chips' shared memory per SM."
)
notes = Observations(
    [
        f"With {fmt_kib(least)} on chip (one row of each block) K and V are read N times: "
        f"{fmt_bytes(curve[0])}, {fmt_ratio(curve[0] / naive_bytes, 0)} the naive kernel's "
        "traffic. "
        f"Tiling moves no more than naive only from {fmt_kib(landmarks['no more than naive'])} on.",
        f"Between 16 KiB and 128 KiB the staircase falls with a log-log slope of {slope:.2f}: "
        "doubling the on-chip memory about halves the traffic, the theorem's 1 / M.",
        f"The chips' shared memories sit on that slope, well before either ridge "
        f"({fmt_kib(needed['a100'])} for the {A100.name}, {fmt_kib(needed['h100'])} for the "
        f"{H100.name}).",
        f"From {fmt_kib(resident)}, K and V whole ({fmt_kib(kv_bytes)}) plus one query row, the "
        "traffic "
        f"drops to the ideal {fmt_bytes(ideal_bytes)}; the lowest point of the curve is "
        f"{fmt_bytes(min(curve))}, never below it.",
    ]
)
# sphinx_gallery_end_ignore
show(table, saved_figure(drawn, caption), notes)

# %%
# 4. Longer sequences: one head, then a whole layer
# -------------------------------------------------
#
# Keep the H100 and its shared memory and let :math:`N` grow from 512 to
# 131,072 tokens. Both kernels' traffic grows as :math:`N^2`: the naive one
# writes and reads :math:`4 N^2` elements, the tiled one rereads K and V
# :math:`T_r \approx N / B_r` times, :math:`2 N^2 d_h / B_r` elements. Only the
# ideal minimum grows linearly.
#
# A whole layer puts attention beside everything else the layer does: the
# projections, the MLP, the norms. Those grow linearly with the number of
# tokens and attention quadratically, so past some length attention takes over.
# The layer is one of Llama-3-8B (32 query heads of 128) for one sequence, in
# bf16. Each query head is counted as its own head (a kernel that shares K and
# V between the query heads of a group reads less), and there is no causal
# mask, as in the article's ledger (a mask halves the FLOPs and the rereads
# alike). Each operator gets its own bound :math:`\max(F/P, D/\beta)`, summed
# over the layer.

SEQS = [512 * 2**k for k in range(9)]  # 512 ... 131,072 tokens
peak, bw = H100.peak_flops("bf16"), H100.mem_bw
MODEL, BATCH = LLAMA_3_8B, 1
per_head = {}  # N -> (F, D naive, D tiled, D ideal)
for n in SEQS:
    f, d_naive = attention_counts(n, D_HEAD, BF16)
    d_tiled = attention_io.tiled_counts(n, D_HEAD, H100.smem_per_sm, BF16)[1]
    d_ideal = attention_counts(n, D_HEAD, BF16, materialized=False)[1]
    per_head[n] = (f, d_naive, d_tiled, d_ideal)


def rest_of_layer_s(n: int) -> float:
    """The layer's other operators for BATCH x n tokens (they see only that count)."""
    ops = layer_ops(MODEL, BATCH * n, new_tokens=1, context=1)
    kept = [o for o in ops if o.kind != "attention"]
    return sum(lower_bound_time(o.flops, o.nbytes, peak, bw) for o in kept)


heads = BATCH * MODEL.n_heads
layer = {}  # N -> [rest of the layer, naive attention, tiled attention], seconds
for n, (f, dn, dt, _) in per_head.items():
    bounds = [lower_bound_time(heads * f, heads * d, peak, bw) for d in (dn, dt)]
    layer[n] = [rest_of_layer_s(n), *bounds]
takes_over = {
    kind: crossover(SEQS, [t[k] / t[0] for t in layer.values()], 1.0)
    for k, kind in ((1, "naive"), (2, "tiled"))
}

# sphinx_gallery_start_ignore
head_rows, time_rows = [], []
for n, (f, dn, dt, di) in per_head.items():
    tn, tt = (lower_bound_time(f, d, peak, bw) for d in (dn, dt))
    head_rows.append(
        [
            f"{n:,}",
            fmt_bytes(dn),
            fmt_bytes(dt),
            fmt_bytes(di),
            f"{intensity(f, dn):.1f}",
            f"{intensity(f, dt):.1f}",
        ]
    )
    time_rows.append([f"{n:,}", fmt_time(tn), fmt_time(tt), fmt_ratio(tn / tt)])
head_table = Table(
    ["N", "D naive", "D tiled", "D ideal", "I naive", "I tiled"],
    head_rows,
    title=f"One head on the {H100.name} (M_sm = {fmt_kib(H100.smem_per_sm)}, d_h = {D_HEAD}, bf16)",
)
time_table = Table(
    ["N", "T naive", "T tiled", "gain"],
    time_rows,
    title="The same head's time bounds, T >= max(F/P, D/beta)",
)
layer_table = Table(
    ["N", "rest of layer", "attention naive", "attention tiled", "tiled attention's share"],
    [
        [f"{n:,}", fmt_time(r), fmt_time(tn), fmt_time(tt), f"{tt / (r + tt):.0%}"]
        for n, (r, tn, tt) in layer.items()
    ],
    title=f"One {MODEL.name} layer, batch {BATCH}, on the {H100.name}: time bounds",
)
largest = SEQS[-1]
f_big, dn_big, dt_big, di_big = per_head[largest]


def over(kind: str) -> str:
    """Where attention's bound first passes the rest of the layer's."""
    cross = takes_over[kind]
    return f"N = {cross.first:,}" if cross else f"no length up to {largest:,}"


notes = Observations(
    [
        f"Per head the tiled traffic stays quadratic: at N = {largest:,} it is "
        f"{fmt_ratio(dn_big / dt_big)} below the naive kernel's (2 B_r / d_h in the limit) but "
        f"{fmt_ratio(dt_big / di_big, 0)} above the ideal minimum.",
        f"Both kernels stay memory-bound on the {H100.name} at every length: the tiled one's "
        f"intensity levels off near B_r ({intensity(f_big, dt_big):.1f} FLOP/byte at N = "
        f"{largest:,}), the naive one's near d_h / 2 ({intensity(f_big, dn_big):.1f}), both "
        f"under the ridge of {H100.ridge_point('bf16'):.1f}.",
        f"In the layer, attention's bound passes everything else at {over('tiled')} with the "
        f"tiled kernel and at {over('naive')} with the naive one. Below that the projections "
        "and the MLP dominate and the choice of attention kernel barely shows.",
    ]
)
# sphinx_gallery_end_ignore
show(head_table, time_table, layer_table, notes)

# %%
# 5. Two kernels in numpy
# -----------------------
#
# Part 2 runs both kernels on this machine, in fp32. The naive kernel is
# lecture 01's: it writes :math:`S` and makes ten passes over it (write, row
# maximum, subtract, exponentiate, row sum, divide, read for :math:`P V`). The
# tiled kernel is FlashAttention-2's loop written with numpy calls into buffers
# made once, so a timed call allocates nothing. Its inner step, from
# ``common/measure/attention.py``:
#
# .. literalinclude:: ../../common/measure/attention.py
#    :language: python
#    :pyobject: make_tiled
#    :start-at: def attention_tiled
#    :end-at: return o
#
# Before timing anything we check that the two agree on random inputs, with
# blocks that divide :math:`N`, blocks that do not, one block of everything and
# blocks of a single row.

CASES = [  # (N, d_h, Br, Bc)
    (257, 64, 31, 47),
    (1000, 128, 333, 128),
    (777, 32, 777, 100),
    (300, 16, 300, 300),
    (96, 128, 1, 1),
]
TOLERANCE = 1e-4
errors = {}
with roofs.blas_threads(1):
    for n, d, br, bc in CASES:
        q, k, v = attention.random_qkv(n, d, seed=n)
        reference = attention.naive_attention(q, k, v)
        tiled = attention.tiled_attention(q, k, v, br, bc)
        errors[(n, d, br, bc)] = attention.relative_error(tiled, reference)

# sphinx_gallery_start_ignore
table = Table(
    ["N", "d_h", "Br x Bc", "blocks divide N", "inner steps", "relative error"],
    [
        [
            f"{n:,}",
            d,
            f"{br} x {bc}",
            "yes" if n % br == 0 and n % bc == 0 else "no",
            f"{attention.block_count(n, br, bc):,}",
            f"{e:.1e}",
        ]
        for (n, d, br, bc), e in errors.items()
    ],
    title="Tiled against naive attention on random inputs (fp32)",
    note="relative error = max |O_tiled - O_naive| / max |O_naive|",
)
worst = max(errors.values())
within = (
    f"{fmt_ratio(TOLERANCE / worst, 0)} inside the tolerance of {TOLERANCE:.0e}"
    if worst <= TOLERANCE
    else f"OUTSIDE the tolerance of {TOLERANCE:.0e}: the tiled kernel is wrong"
)
notes = Observations(
    [
        f"The largest relative error is {worst:.1e}, {within}. The two kernels add the same "
        "terms in a different order and subtract a different running maximum before each "
        "exponential, so they agree to fp32 rounding, not bit for bit.",
        "The online softmax needs no second pass: a block that raises a row's maximum rescales "
        "the sum and the accumulator by exp(m_old - m_new) once, and the division by l happens "
        "once per query block, at the end.",
    ]
)
# sphinx_gallery_end_ignore
show(table, notes)

# %%
# 6. This machine: its caches and its roofs
# -----------------------------------------
#
# On a CPU the role of an SM's shared memory falls to a core's own cache: the
# L2 here, which keeps a block set close to the core, with the shared
# last-level cache behind it. The sizes come from the operating system (lecture
# 09 reads the same table). The roofs come from lecture 01's calibration, or a
# quick calibration when there is none. Both kernels run on one thread: numpy's
# elementwise calls are single-threaded anyway, and a multi-threaded BLAS call on
# a small block waits for its second thread whenever another program holds that
# core. So the compute roof is a one-thread matmul rate: the calibration's, or
# the lecture's own measurement when that is faster (a roof that a measured
# matmul rises above is no roof).
#
# The tiled kernel makes fourteen numpy calls per inner step, and each call
# costs a fixed time before it touches any data. The lecture measures that cost
# directly, as the tiled kernel's time per step on blocks of one element.

FP32 = bytes_per_elem("fp32")
cache_list, cache_source = caches.read_caches_with_source()
levels = dict(caches.data_levels(cache_list))  # {"L1": bytes, "L2": bytes, ...}
l2 = levels.get("L2", hierarchy.ASSUMED_L2_BYTES)
llc = caches.last_level_cache_bytes(cache_list) or hierarchy.ASSUMED_LLC_BYTES
calibration, calibration_source = load_or_calibrate(args.results)
beta = calibration["bandwidth_bytes_per_s"]
saved_peak_1 = calibration.get("matmul_one_thread_flops_per_s", 0.0)
budget = 0.1 if QUICK else 0.3
fresh = roofs.measure_matmul(1024, repeat=3, budget_s=budget, threads=1)
peak_1 = max(saved_peak_1, fresh["flops_per_s"])
with roofs.blas_threads(1):
    step_s = attention.fixed_cost_per_block(budget / 2)
exp_s = attention.exp_seconds_per_element(512, 128)  # one exponential, in cache

# sphinx_gallery_start_ignore
ridge_1 = peak_1 / beta
naive_i = intensity(*attention.naive_counts(N, D_HEAD))
cache_rows = [[name, fmt_kib(size), cache_source] for name, size in levels.items()]
if not levels:
    cache_rows = [
        ["L2 (assumed)", fmt_kib(l2), "not reported"],
        ["LLC (assumed)", fmt_kib(llc), "-"],
    ]
roof_rows = [
    ["memory bandwidth beta (1 thread)", fmt_bw(beta)],
    ["matmul, all threads", fmt_rate(calibration["matmul_flops_per_s"])],
    ["matmul, 1 thread (calibration)", fmt_rate(saved_peak_1) if saved_peak_1 else "-"],
    ["matmul n = 1024, 1 thread (now)", fmt_rate(fresh["flops_per_s"])],
    ["ridge point P_1 / beta", f"{ridge_1:.1f} FLOP/byte"],
    ["fixed cost of one inner step", fmt_time(step_s)],
    ["one exponential (numpy, fp32)", fmt_time(exp_s)],
]
compute_bound = naive_i >= ridge_1
notes = Observations(
    [
        f"The roofs: {calibration_source}; P_1 = {fmt_rate(peak_1)}, the faster one-thread "
        "matmul of the two.",
        f"On one thread the ridge is {ridge_1:.1f} FLOP/byte. The naive kernel in fp32 does "
        f"{naive_i:.1f} FLOP per byte of its ten passes (about (4 d_h + 5) / 40 at any N): "
        + (
            "above the ridge, so by the roofline it is compute-bound here, and fewer bytes do "
            "not lower its bound."
            if compute_bound
            else "below the ridge, so by the roofline fewer bytes would make it faster."
        ),
        f"An inner step costs {fmt_time(step_s)} before any arithmetic, about "
        f"{fmt_time(step_s / attention.CALLS_PER_BLOCK)} per numpy call. In that time one core "
        f"does {fmt_num(step_s * peak_1, 2, 'FLOP')} of matmul: a block must do much more work "
        "than that for the fixed cost to vanish.",
    ]
)
# sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
cache_table = Table(["cache", "size", "source"], cache_rows, title="Caches, as core 0 sees them")
roof_table = Table(["roof", "value"], roof_rows, title="Roofs of this machine")
# sphinx_gallery_end_ignore
show(cache_table, roof_table, notes)

# %%
# 7. Block sizes from this machine's caches
# -----------------------------------------
#
# The same footprint rule picks the blocks, now with :math:`b = 4` (fp32) and
# a cache size as :math:`M_{sm}`: the L1 data cache, half the L2 (lecture 09's
# margin for "comfortably inside"), the whole L2, and half the last-level cache.
# Every kernel runs at the same :math:`N`, timed in alternating rounds. The
# model's traffic counts what crosses into the block store; the speed table's
# last column is the share of the time that the inner steps' fixed costs explain.

BLOCK_N = 1024 if QUICK else 2048
budgets = {"L1 data": levels.get("L1"), "L2 / 2": l2 / 2, "L2": l2}
budgets["LLC / 2"] = llc / 2
q, k, v = attention.random_qkv(BLOCK_N, D_HEAD)
sized, kernels = {}, {"naive": attention.make_naive(q, k, v)}
for name, m in budgets.items():
    if m:  # a cache the operating system did not report is left out
        b = sized[name] = attention_io.block_sizes(BLOCK_N, D_HEAD, m, FP32)
        kernels[name] = attention.make_tiled(q, k, v, b.rows, b.cols)
with roofs.blas_threads(1):
    block_times = attention.best_times(kernels, 2 * TIME_BUDGET_S, warmup=0)
del kernels, q, k, v

# sphinx_gallery_start_ignore
block_flops = attention.naive_counts(BLOCK_N, D_HEAD)[0]


def speed(t: float) -> list[str]:
    """GFLOP/s and the share of the one-thread matmul roof."""
    return [f"{block_flops / t / 1e9:.1f}", f"{block_flops / t / peak_1:.0%}"]


size_rows, speed_rows = [], []
for name, b in sized.items():
    t, steps = block_times[name], attention.block_count(BLOCK_N, b.rows, b.cols)
    size_rows.append(
        [
            name,
            fmt_kib(budgets[name]),
            f"{b.rows} x {b.cols}",
            f"{steps:,}",
            fmt_bytes(attention.tiled_counts(BLOCK_N, D_HEAD, b.rows, b.cols)[1]),
            fmt_kib(attention.tiled_cache_bytes(D_HEAD, b.rows, b.cols)),
        ]
    )
    speed_rows.append([name, fmt_time(t), *speed(t), f"{min(1.0, steps * step_s / t):.0%}"])
t_naive = block_times["naive"]
size_rows.append(
    [
        "naive",
        "-",
        "-",
        "-",
        fmt_bytes(attention.naive_counts(BLOCK_N, D_HEAD)[1]),
        fmt_kib(attention.naive_memory_bytes(BLOCK_N, D_HEAD)),
    ]
)
speed_rows.append(["naive", fmt_time(t_naive), *speed(t_naive), "-"])
size_table = Table(
    ["M_sm from", "M_sm", "Br x Bc", "steps", "D (model)", "touched"],
    size_rows,
    title=f"Blocks for tiled attention at N = {BLOCK_N:,}, d_h = {D_HEAD}, fp32",
    note="touched: the bytes one inner step works on (for naive: S, O and the row statistics).",
)
table = Table(
    ["M_sm from", "time", "GFLOP/s", "of P_1", "fixed cost"],
    speed_rows,
    title="Their speed on one thread",
    note="fixed cost: the share of the time that the inner steps' fixed costs explain.",
)
timed = {name: block_times[name] for name in sized}
fastest = min(timed, key=timed.get)
smallest = min(sized, key=lambda name: sized[name].rows * sized[name].cols)
small_b, fast_b = sized[smallest], sized[fastest]
small_steps = attention.block_count(BLOCK_N, small_b.rows, small_b.cols)
items = [
    f"With {smallest}-sized blocks ({small_b.rows} x {small_b.cols}) the kernel makes "
    f"{small_steps:,} inner steps and runs {fmt_ratio(timed[smallest] / timed[fastest], 1)} "
    f"slower than the fastest blocks; the fixed costs alone explain "
    f"{min(1.0, small_steps * step_s / timed[smallest]):.0%} of its time. The model counts "
    "bytes; small blocks pay per call, which a fused GPU kernel does not.",
    f"The fastest blocks came from {fastest} ({fast_b.rows} x {fast_b.cols}): "
    f"{speed(timed[fastest])[0]} GFLOP/s, {speed(timed[fastest])[1]} of the one-thread "
    f"matmul roof, against {speed(t_naive)[0]} GFLOP/s for the naive kernel "
    f"({fmt_ratio(t_naive / timed[fastest])} its speed).",
]
small_d = attention.tiled_counts(BLOCK_N, D_HEAD, small_b.rows, small_b.cols)[1]
naive_d = attention.naive_counts(BLOCK_N, D_HEAD)[1]
if small_d > naive_d:
    items.append(
        f"Those small blocks even move more than the naive kernel by the model's count, "
        f"{fmt_bytes(small_d)} against {fmt_bytes(naive_d)}: K and V are read "
        f"{-(-BLOCK_N // small_b.rows)} "
        "times, the small-M_sm end of the first figure."
    )
b_llc = sized.get("LLC / 2")
if b_llc and b_llc.cols == BLOCK_N:
    items.append(
        "Half the last-level cache holds K and V whole, so the rule takes B_c = N "
        f"({b_llc.rows} x {b_llc.cols}): "
        + (
            "a single block, the naive computation with S kept in cache, which passes over S "
            "five times instead of ten."
            if b_llc.rows == BLOCK_N
            else "K and V are read once, the ideal minimum."
        )
    )
notes = Observations(items)
# sphinx_gallery_end_ignore
show(size_table, table, notes)

# %%
# 8. Both kernels against the sequence length
# -------------------------------------------
#
# Now both kernels run at growing :math:`N`, the tiled one with the blocks of
# half the L2. The largest :math:`N` is lecture 01's choice, the smallest
# multiple of 512 whose score matrix is at least twice the last-level cache, so
# that the naive kernel's passes over :math:`S` must go to DRAM. Each kernel's
# bytes are counted as lecture 01 counts its passes: the naive one moves
# :math:`4 (10 N^2 + 4 N d_h)` bytes, the tiled one the IO model's
# :math:`4 N d_h (2 + 2R)`. The bounds use the one-thread roofs above.

n_llc = numpy_ops.attention_seq_len(llc, roofs.memory_cap_bytes())
N_LIST = [256, 512, 1024] if QUICK else sorted({1024, 2048, 4096, n_llc})
measured = {}
with roofs.blas_threads(1):
    for n in N_LIST:
        q, k, v = attention.random_qkv(n, D_HEAD)
        b = attention_io.block_sizes(n, D_HEAD, l2 / 2, FP32)
        kernels = {"naive": attention.make_naive(q, k, v)}
        kernels["tiled"] = attention.make_tiled(q, k, v, b.rows, b.cols)
        measured[n] = (b, attention.best_times(kernels, TIME_BUDGET_S, warmup=0))
        del kernels, q, k, v
counts = {
    n: {"naive": attention.naive_counts(n, D_HEAD)}
    | {"tiled": attention.tiled_counts(n, D_HEAD, b.rows, b.cols)}
    for n, (b, _) in measured.items()
}

# sphinx_gallery_start_ignore
KINDS = ("naive", "tiled")
drawn = ""
if args.png:
    drawn = attention_plots.kernel_times_figure(
        args.outdir / "10_kernel_times.png",
        N_LIST,
        *([measured[n][1][kind] for n in N_LIST] for kind in KINDS),
        [counts[n]["naive"][0] / peak_1 for n in N_LIST],
        *([counts[n][kind][1] / beta for n in N_LIST] for kind in KINDS),
        math.sqrt(llc / FP32),
        f"Both kernels on this machine (blocks from half the L2, d_h = {D_HEAD})",
        "sequence length N (fp32, one thread)",
    )
times_rows, score_rows, memory_rows = [], [], []
for n, (b, t) in measured.items():
    times_rows.append(
        [
            f"{n:,}",
            f"{b.rows} x {b.cols}",
            fmt_time(t["naive"]),
            fmt_time(t["tiled"]),
            fmt_ratio(t["tiled"] / t["naive"]),
        ]
    )
    score_rows.append(
        [f"{n:,}", f"{FP32 * n * n / llc:.2g}"] + [f"{t[kind] / n**2 * 1e9:.2f}" for kind in KINDS]
    )
    memory_rows.append(
        [
            f"{n:,}",
            fmt_kib(attention.naive_memory_bytes(n, D_HEAD)),
            fmt_kib(attention.tiled_memory_bytes(n, D_HEAD, b.rows, b.cols)),
        ]
    )
times_table = Table(
    ["N", "Br x Bc", "naive", "tiled", "tiled / naive"],
    times_rows,
    title=f"Seconds per call, d_h = {D_HEAD}, fp32, one thread (fastest timed call)",
)
score_table = Table(
    ["N", "S / LLC", "ns/score naive", "ns/score tiled"],
    score_rows,
    title="Time per score, with the size of S against the last-level cache",
)
memory_table = Table(
    ["N", "memory naive", "memory tiled"],
    memory_rows,
    title="What each kernel allocates beside Q, K and V",
)
top = N_LIST[-1]
b_top, t_top = measured[top]
placed = {
    kind: numpy_ops.roofline_row(kind, *counts[top][kind], t_top[kind], peak_1, beta, 0.0)
    for kind in KINDS
}
roof_table = Table(
    ["kernel", "D", "I", "T bound", "measured", "of bound"],
    [
        [
            kind,
            fmt_bytes(r["bytes"]),
            f"{r['intensity']:.1f}",
            f"{fmt_time(r['t_pred_s'])}, {r['bound']}",
            fmt_time(r["t_meas_s"]),
            r["flag"] or f"{r['fraction_of_bound']:.0%}",
        ]
        for kind, r in placed.items()
    ],
    title=f"On this machine's one-thread roofline at N = {top:,} (ridge {ridge_1:.1f} FLOP/byte)",
    note=f"Both kernels do F = {fmt_flops(placed['naive']['flops'])}; "
    f"T bound = max(F / P_1, D / beta) with P_1 = {fmt_rate(peak_1)}.",
)
ratios = {n: t["tiled"] / t["naive"] for n, (_, t) in measured.items()}
per_score = {kind: [measured[n][1][kind] / n**2 for n in N_LIST] for kind in KINDS}
inside = [n for n in N_LIST if FP32 * n * n <= llc]
outside = [n for n in N_LIST if FP32 * n * n > 2 * llc]
steps_top = attention.block_count(top, b_top.rows, b_top.cols)
slower = [n for n, r in ratios.items() if r > 1]
close = [n for n, r in ratios.items() if abs(r - 1) <= 0.1]
why = (
    f"It is slower at {len(slower)} of {len(ratios)} lengths"
    + (f" and within 10% of the naive kernel at {len(close)}" if close else "")
    + ". "
    + (
        "Both kernels are compute-bound on one core here, so the bytes the tiled one saves "
        "do not lower its bound, while its many small matmuls run below the roof and every "
        "inner step pays a fixed cost."
        if compute_bound
        else "By the roofline it should win, since the naive kernel is memory-bound here, but "
        "its small matmuls run below the roof and every inner step pays a fixed cost."
    )
    if slower
    else "It is never slower: its blocks cost less here than the naive kernel's passes over S."
)
naive_serial = placed["naive"]["t_compute_s"] + placed["naive"]["t_memory_s"]
exps_s = top**2 * exp_s
rest_s = t_top["tiled"] - placed["tiled"]["t_compute_s"] - exps_s - steps_top * step_s
items = [
    "The tiled kernel takes "
    + ", ".join(f"{fmt_ratio(r)} at N = {n:,}" for n, r in ratios.items())
    + f" the naive kernel's time. {why}",
    f"numpy runs the naive kernel's phases one after the other: the matmuls at "
    f"F / P_1 = {fmt_time(placed['naive']['t_compute_s'])}, then ten passes over S at "
    f"D / beta = {fmt_time(placed['naive']['t_memory_s'])} ({fmt_bw(beta)}). It took "
    f"{fmt_time(t_top['naive'])} at N = {top:,}, "
    + (
        f"closer to their sum, {fmt_time(naive_serial)}, than to the roofline's max, "
        f"{fmt_time(placed['naive']['t_pred_s'])}, which assumes the two overlap."
        if abs(t_top["naive"] - naive_serial) < abs(t_top["naive"] - placed["naive"]["t_pred_s"])
        else f"closer to the roofline's max, {fmt_time(placed['naive']['t_pred_s'])}, than to "
        f"their sum, {fmt_time(naive_serial)}: here the two overlapped, or a roof was low."
    ),
    f"The tiled kernel moves {fmt_ratio(placed['naive']['bytes'] / placed['tiled']['bytes'], 1)} "
    f"fewer bytes ({fmt_bytes(placed['tiled']['bytes'])}, "
    f"{fmt_time(placed['tiled']['t_memory_s'])} "
    f"at that bandwidth), so its time goes elsewhere: of its {fmt_time(t_top['tiled'])}, "
    f"{fmt_time(placed['tiled']['t_compute_s'])} is F at the matmul roof, "
    f"{fmt_time(exps_s)} the N^2 exponentials at {fmt_time(exp_s)} each, "
    f"{fmt_time(steps_top * step_s)} the fixed costs of {steps_top:,} steps, and the "
    f"remaining {fmt_time(max(0.0, rest_s))} its small matmuls running below the roof and "
    "its other passes over the blocks. The naive kernel pays for the same exponentials.",
]
if inside and outside:
    a, z = N_LIST.index(inside[-1]), N_LIST.index(outside[0])
    growth = {kind: per_score[kind][z] / per_score[kind][a] for kind in KINDS}
    seen = (
        "Here the savings show in time: the tiled kernel's blocks stay in the L2."
        if growth["naive"] > 1.1 * growth["tiled"]
        else "Here the passes over S cost about the same whether S sits in the cache or in "
        "DRAM: the savings do not show in time."
    )
    items.append(
        f"Per score the naive kernel takes {per_score['naive'][a] * 1e9:.2f} ns at "
        f"N = {inside[-1]:,} (S inside the last-level cache) and "
        f"{per_score['naive'][z] * 1e9:.2f} ns at N = {outside[0]:,} (S "
        f"{FP32 * outside[0] ** 2 / llc:.1f} times the cache), {fmt_ratio(growth['naive'])}; "
        f"the tiled one {fmt_ratio(growth['tiled'])}. {seen}"
    )
items.append(
    "Where the savings always show: memory. The naive kernel holds S, "
    f"{fmt_kib(attention.naive_memory_bytes(top, D_HEAD))} at N = {top:,} and "
    f"{fmt_kib(attention.naive_memory_bytes(131072, D_HEAD))} at 131,072 tokens; the tiled kernel "
    f"needs {fmt_kib(attention.tiled_memory_bytes(131072, D_HEAD, b_top.rows, b_top.cols))} there, "
    "its output and its blocks."
)
notes = Observations(items)
caption = (
    "Seconds per call of both kernels against N (log-log): measured (markers), and the two "
    "parts of the roofline bound with this machine's one-thread roofs, F / P_1 (the same for "
    "both) and each kernel's D / beta. A kernel's bound is the higher of its two lines. The "
    "vertical line is where the naive kernel's N x N scores fill the last-level cache."
)
# sphinx_gallery_end_ignore
show(times_table, score_table, memory_table, roof_table, saved_figure(drawn, caption), notes)

# %%
# The times and their byte counts go into the results file's ``attention``
# section, beside lecture 01's ``probe``, so nothing measured here is lost.

# sphinx_gallery_start_ignore
payload = {
    "quick": QUICK,
    "head_dim": D_HEAD,
    "threads": 1,
    "roofs": {"bandwidth_bytes_per_s": beta, "matmul_flops_per_s": peak_1},
    "roofs_source": calibration_source,
    "fixed_cost_per_step_s": step_s,
    "block_n": BLOCK_N,
    "blocks": [
        {"from": name, "m_sm_bytes": budgets[name], "rows": b.rows, "cols": b.cols}
        | {"seconds": block_times[name]}
        for name, b in sized.items()
    ],
    "naive_seconds_at_block_n": block_times["naive"],
    "sequence": [
        {"n": n, "rows": b.rows, "cols": b.cols}
        | {f"{kind}_seconds": t[kind] for kind in KINDS}
        | {f"{kind}_bytes": counts[n][kind][1] for kind in KINDS}
        for n, (b, t) in measured.items()
    ],
}
# sphinx_gallery_end_ignore
payload["lecture_seconds"] = time.perf_counter() - lecture_start
written = results.save_section("attention", payload, args.results)
shown = f"saved results: {display_path(written)} (section 'attention')"
show(Text(f"{shown}; the lecture took {payload['lecture_seconds']:.1f} s"))

# %%
# What the model leaves out
# -------------------------
#
# - **Registers.** A GPU kernel keeps the score block and the accumulator in
#   registers, a store about as large as shared memory on the A100 and the
#   H100. Counting both as :math:`M_{sm}` moves each chip's line to the right
#   in the first figure.
# - **The L2 cache.** What the model counts as main-memory traffic is
#   everything that leaves the SM. K and V of one head are small next to a
#   data-centre GPU's L2, so many of the rereads are served there, and HBM sees
#   less than :math:`D`. Lecture 09 shows the same effect on this CPU, level by
#   level.
# - **Other schedules.** FlashAttention's first version puts K and V in the
#   outer loop and rereads Q and O instead; FlashAttention-3 overlaps the loads
#   with the matmuls on Hopper. The traffic here belongs to one schedule and its
#   footprint rule, both stated above, and moves when either changes.
# - **Causal masks and grouped-query attention.** A causal kernel skips the
#   blocks above the diagonal, halving both the FLOPs and the rereads; a kernel
#   that shares K and V between the query heads of a group reads them once per
#   group. Neither changes the shape of the curves.
# - **numpy is not a fused kernel.** Every numpy call pays a fixed cost and
#   writes its result to memory; a GPU kernel keeps the whole inner step in
#   registers and shared memory. Part 2 measures the arithmetic and the bytes
#   of the schedule, not what a fused kernel would achieve on this CPU.
