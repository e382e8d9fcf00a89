r"""
The operator ledger: where each kernel sits on the roofline
===========================================================

Which operators of a transformer are limited by compute and which by memory
bandwidth, on an A100, an H100 and this machine? And what would doubling either
resource buy each of them? This lecture keeps the speed ledger, :math:`F` FLOPs
and :math:`D` bytes per operator, and reads the answer off the time bound
:math:`T \ge \max(F / P_{\text{peak}},\ D / \beta)`.

Everything here is a formula applied to the hardware table in
``common/hw_specs.py`` and to the calibration lecture 01 saved; nothing is
measured, so the lecture runs in about a second. The tables and sentences are
composed in ``lectures/words/operator_ledger.py``.

Run it::

    python3 lectures/05_operator_ledger.py                     # A100, bf16
    python3 lectures/05_operator_ledger.py --chip h100 --precision fp8
    python3 lectures/05_operator_ledger.py --results FILE      # another results file

``--chip`` takes any key of the hardware table (a100, h100, h200, b200, b300,
tpu-v5e, tpu-v6e); ``--precision`` one of that chip's precisions, which also sets
the size of every stored element. Add ``--png`` to save ``05_operator_rooflines.png``
(the operators on the A100's and the H100's rooflines; needs matplotlib) into
``--outdir DIR`` (default: ``figures/``). The shapes and the exercise come from
:ref:`the article <sources>`.
"""

from __future__ import annotations

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from common import hw_specs
from common.files.calibration import saved_calibration
from common.formulas import ledger, roofline
from common.formulas.thresholds import crossover
from common.plots.roofline import RooflinePanel, roofline_panels_figure
from common.present.display import show
from common.shell import cli
from lectures.words import operator_ledger as page

# sphinx_gallery_start_ignore
ABOUT = {"flags": ("--chip", "--precision"), "figure": True}


def make_parser() -> cli.LectureParser:
    """The command line: --chip, --precision, --results, --png and --outdir."""
    parser = cli.lecture_parser(__doc__)
    parser.add_argument(
        "--chip", type=cli.one_of(hw_specs.CHIPS, "chip"), default="a100", metavar="CHIP",
        help=f"chip for the ledger and the sweep: {', '.join(hw_specs.CHIPS)} (default: a100)",
    )  # fmt: skip
    parser.add_argument(
        "--precision", type=cli.one_of(hw_specs.BYTES_PER_ELEM, "precision"), default="bf16",
        metavar="NAME", help="precision of the peak and of the stored elements; one the chip has "
        "a peak for (default: bf16)")  # fmt: skip
    cli.add_results_flag(parser)
    cli.add_png_flags(parser)
    return parser


parser = make_parser()
args = cli.parse_args(parser)
# sphinx_gallery_end_ignore

chip = hw_specs.CHIPS[args.chip]
PRECISION = cli.require_precision(parser, chip, args.precision)
PEAK, BW, RIDGE = chip.peak_flops(PRECISION), chip.mem_bw, chip.ridge_point(PRECISION)
e = hw_specs.bytes_per_elem(PRECISION)  # bytes per stored element

# %%
# Four machines, one number each
# ------------------------------
#
# A machine enters the speed ledger through two figures: its peak compute :math:`P_{\text{peak}}`
# (FLOP/s at one precision) and its memory bandwidth :math:`\beta` (bytes/s). Their ratio, the
# ridge point :math:`I^{\ast} = P_{\text{peak}} / \beta`, is the arithmetic intensity at which
# moving the bytes and doing the arithmetic take equally long. The datasheet rows come from the
# hardware table; the last row is what numpy reached on this machine in lecture 01 (fp32, with its
# BLAS library and thread count), if that calibration was saved.

A100, H100 = hw_specs.A100, hw_specs.H100
machines = [(A100, "bf16"), (H100, "bf16"), (H100, "fp8")]
if (chip, PRECISION) not in machines:
    machines.append((chip, PRECISION))
saved = saved_calibration(args.results)


def roof(c: hw_specs.Chip, p: str) -> page.Roof:
    return page.Roof(c.name, p, c.peak_flops(p), c.mem_bw, c.ridge_point(p))


local = None
if saved.calibration is not None:
    peak, bw = saved.peak_flops_per_s, saved.bandwidth_bytes_per_s
    local = page.Roof("this machine", "fp32", peak, bw, roofline.ridge_point(peak, bw))
show(page.machines(page.Machines(tuple(roof(c, p) for c, p in machines), local, saved.reason)))

# %%
# The operator ledger
# -------------------
#
# Each row counts the FLOPs :math:`F` and the bytes :math:`D` of one operator (every read plus
# every write, at the element size), then compares its intensity :math:`I = F / D` with the chip's
# ridge point. The shapes are those of the article: a 16M-element add, LayerNorm over [4096, 3072],
# softmax over [4096, 4096] (fused: one read and one write; naive: three reads and two writes), two
# GEMMs :math:`[M, 4096] \cdot [4096, 4096]`, and one attention head with :math:`N = 4096` tokens
# and head dimension :math:`d_h = 128`.
#
# Attention appears twice. "naive" writes the score matrix S and the probabilities P to memory and
# reads them back (:math:`4N^2` extra elements). "ideal-min" reads Q, K and V once and writes O
# once: a lower bound on traffic, not what a real FlashAttention kernel moves.

N, D_H = 4096, 128  # tokens, head dimension
att = f"[N={N}, d_h={D_H}]"
ops = [  # (name, F, D)
    ("elementwise add [16M]", *ledger.elementwise_counts(16_000_000, e, reads=2)),
    ("LayerNorm [4096, 3072]", *ledger.layernorm_counts(4096, 3072, e)),
    ("softmax fused [4096, 4096]", *ledger.softmax_counts(4096, 4096, e, fused=True)),
    ("softmax naive [4096, 4096]", *ledger.softmax_counts(4096, 4096, e, fused=False)),
    ("GEMM 512x4096x4096", *roofline.gemm_counts(512, 4096, 4096, e)),
    ("GEMM 4096x4096x4096", *roofline.gemm_counts(4096, 4096, 4096, e)),
    (f"attention naive {att}", *ledger.attention_counts(N, D_H, e, materialized=True)),
    (f"attention ideal-min {att}", *ledger.attention_counts(N, D_H, e, materialized=False)),
]


def op(name: str, flops: float, nbytes: float) -> page.Op:
    """One operator's record on the lecture's chip: I, bound, time bound, 2x speedups."""
    i, t = roofline.intensity(flops, nbytes), roofline.lower_bound_time(flops, nbytes, PEAK, BW)
    return page.Op(name=name, flops=flops, nbytes=nbytes, intensity=i, time=t,
                   bound=roofline.bound_of(i, RIDGE),
                   speedups=roofline.speedup_2x(flops, nbytes, PEAK, BW))  # fmt: skip


operators = page.Ledger(roof=roof(chip, PRECISION), elem_bytes=e, ops=tuple(op(*o) for o in ops))
show(page.ledger(operators))

# %%
# Where the operators sit on the roofline
# ---------------------------------------
#
# The same ledger as a picture (with ``--png``): each operator sits on a chip's roof at its
# intensity, :math:`\min(P_{\text{peak}},\ I \beta)`, once on the A100 and once on the H100 (at the
# lecture's precision; a chip chosen with ``--chip`` gets a panel of its own). The dotted line is
# each chip's ridge point.

if args.png:
    compared = {c.key: c for c in (A100, H100, chip)}.values()  # each chip once
    chips = [c for c in compared if PRECISION in c.precisions]
    at = dict(enumerate((roofline.intensity(f, d) for _, f, d in ops), 1))  # key number: I
    panels, flat = [], []
    for c in chips:
        peak, ridge = c.peak_flops(PRECISION), c.ridge_point(PRECISION)
        points = [(str(n), i, roofline.attainable_flops(i, peak, c.mem_bw)) for n, i in at.items()]
        panels.append(RooflinePanel(f"{c.name} {PRECISION}", (c.name, peak, c.mem_bw), points))
        on_roof = tuple(n for n, i in at.items() if roofline.bound_of(i, ridge) == "compute")
        flat.append((c.name, on_roof))
    key = [f"{n}  {name}" for n, (name, _, _) in enumerate(ops, 1)]
    target = args.outdir / "05_operator_rooflines.png"
    path = roofline_panels_figure(target, panels, key, f"Operators, {PRECISION}")
    show(page.rooflines(page.Rooflines(str(path), PRECISION, tuple(flat), len(ops))))

# %%
# Naive against ideal-minimum attention
# -------------------------------------
#
# Keeping S and P on chip changes nothing in the arithmetic; it removes the quadratic memory
# traffic. Side by side, on the same chip:

show(page.attention(operators))  # the ledger's last two rows: naive and ideal-min

# %%
# Two times the compute or two times the bandwidth?
# -------------------------------------------------
#
# Before paying for a faster chip or a rewrite, ask what doubling one resource buys. With :math:`T
# = \max(F/P, D/\beta)`, doubling :math:`P` helps only when the compute term is the larger one, and
# doubling :math:`\beta` only when the memory term is. The upgrade that helps pays the full 2x only
# when the operator lies at least a factor of 2 from the ridge (:math:`I/I^{\ast} \le 1/2` or
# :math:`\ge 2`); closer in, the other resource becomes the limit before the gain is complete.

show(page.speedups(operators))  # each record holds roofline.speedup_2x(F, D, P, beta)

# %%
# When does a GEMM become compute-bound?
# --------------------------------------
#
# A GEMM :math:`[M, 4096] \cdot [4096, 4096]` reads the whole weight matrix whatever :math:`M` is,
# so a larger :math:`M` (more tokens per batch) reuses each weight byte more often and raises
# :math:`I`. The sweep below walks :math:`M = 1, 2, 4, \dots, 1024, 4096` and finds the first
# :math:`M` whose intensity reaches the ridge point.
#
# **Exercise** (from the article). Open ``common/hw_specs.py``, set A100's bf16 ``peak_flops`` to
# ``1979e12`` (H100's fp8 figure) and leave the bandwidth alone. Rerun this lecture and watch the
# ridge point and the crossover move. (This is a controlled experiment, not an H100: a real upgrade
# changes the bandwidth too.)

WIDTH = 4096  # the weight matrix is [WIDTH, WIDTH]
M_SWEEP = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096)
sweep = {m: op(str(m), *roofline.gemm_counts(m, WIDTH, WIDTH, e)) for m in M_SWEEP}

cross = crossover(M_SWEEP, [sweep[m].intensity for m in M_SWEEP], RIDGE)
exact_m = roofline.critical_batch(WIDTH, WIDTH, RIDGE, e, e, e)
# I as M grows without bound: 2 W^2 M / (e (2 W M + W^2)) -> W / e
limit = 2.0 * WIDTH * WIDTH / (e * (WIDTH + WIDTH))

swept = page.Sweep(roof=operators.roof, width=WIDTH, rows=sweep, cross=cross,
                   exact_m=exact_m, limit=limit)  # fmt: skip
show(page.sweep(swept))
