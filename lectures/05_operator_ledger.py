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
measured, so the lecture runs in about a second.

Run it::

    python3 lectures/05_operator_ledger.py                     # A100, bf16
    python3 lectures/05_operator_ledger.py --chip h100 --precision fp8
    python3 lectures/05_operator_ledger.py --results FILE      # another results file

``--chip`` takes any key of the hardware table (a100, h100, h200, b200, b300,
tpu-v5e, tpu-v6e); ``--precision`` one of that chip's precisions, which also sets
the size of every stored element.
"""

from __future__ import annotations

# sphinx_gallery_start_ignore
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))))
from common.present import boot  # one-line errors, quiet Ctrl-C and closed pipes, before numpy

boot.start()
# sphinx_gallery_end_ignore

from common import hw_specs
from common.files.calibration import saved_calibration
from common.formulas.ledger import (
    attention_counts,
    elementwise_counts,
    layernorm_counts,
    softmax_counts,
)
from common.formulas.roofline import (
    bound_of,
    critical_batch,
    gemm_counts,
    intensity,
    ridge_point,
    speedup_2x,
    time_bounds,
)
from common.formulas.thresholds import crossover
from common.present import cli
from common.present.console import (
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_rate,
    fmt_ratio,
    fmt_time,
    print_header,
    print_observations,
    print_table,
)

parser = cli.lecture_parser(__doc__)
parser.add_argument(
    "--chip",
    type=cli.one_of(hw_specs.CHIPS, "chip"),
    default="a100",
    metavar="CHIP",
    help=f"chip for the ledger and the sweep: {', '.join(hw_specs.CHIPS)} (default: a100)",
)
parser.add_argument(
    "--precision",
    type=cli.one_of(hw_specs.BYTES_PER_ELEM, "precision"),
    default="bf16",
    metavar="NAME",
    help="precision of the peak and of the stored elements; one the chip has a peak for "
    "(default: bf16)",
)
cli.add_results_flag(parser)
args = cli.parse_args(parser)

chip = hw_specs.CHIPS[args.chip]
PRECISION = cli.require_precision(parser, chip, args.precision)
PEAK = chip.peak_flops(PRECISION)  # ValueError naming the chip's precisions if it lacks this one
BW = chip.mem_bw
RIDGE = ridge_point(PEAK, BW)
ELEM_BYTES = hw_specs.bytes_per_elem(PRECISION)


def fmt_peak(flops_per_s: float) -> str:
    """A datasheet peak in TFLOP/s, as vendors quote it: 312e12 -> '312 TFLOP/s'."""
    return f"{flops_per_s / 1e12:g} TFLOP/s"


# %%
# Four machines, one number each
# ------------------------------
#
# A machine enters the speed ledger through two figures: its peak compute
# :math:`P_{\text{peak}}` (FLOP/s at one precision) and its memory bandwidth
# :math:`\beta` (bytes/s). Their ratio, the ridge point
# :math:`I^{\ast} = P_{\text{peak}} / \beta`, is the arithmetic intensity at which
# moving the bytes and doing the arithmetic take equally long. The datasheet rows
# come from the hardware table; the last row is what numpy reached on this machine
# in lecture 01 (fp32, with its BLAS library and thread count), if that calibration
# was saved.

A100, H100 = hw_specs.A100, hw_specs.H100
machines = [(A100, "bf16"), (H100, "bf16"), (H100, "fp8")]
if (chip, PRECISION) not in machines:
    machines.append((chip, PRECISION))

saved = saved_calibration(args.results)
why_missing = saved.reason
local = None
if saved.calibration is not None:
    local = (saved.peak_flops_per_s, saved.bandwidth_bytes_per_s)

rows = [
    [
        f"{c.name} ({p})",
        fmt_peak(c.peak_flops(p)),
        fmt_bw(c.mem_bw, digits=3),
        f"{c.ridge_point(p):.1f}",
    ]
    for c, p in machines
]
if local is not None:
    rows.append(
        [
            "this machine (numpy, fp32)",
            fmt_rate(local[0]),
            fmt_bw(local[1], digits=3),
            f"{ridge_point(*local):.1f}",
        ]
    )
else:
    rows.append(["this machine (numpy, fp32)", "not measured (run lecture 01)", "-", "-"])

print_header("Machines: peak compute, bandwidth and ridge point")
print_table(["machine", "peak P", "bandwidth beta", "ridge I* (FLOP/B)"], rows)
if local is None:
    print(f"note: this machine is not measured: {why_missing}")

bw_ratio = H100.mem_bw / A100.mem_bw
bf16_ratio = H100.peak_flops("bf16") / A100.peak_flops("bf16")
fp8_vs_a100 = H100.peak_flops("fp8") / A100.peak_flops("bf16")
print()
print(
    f"A100 -> H100: bandwidth {fmt_ratio(bw_ratio)}, bf16 compute {fmt_ratio(bf16_ratio)}, "
    f"ridge point {A100.ridge_point('bf16'):.1f} -> {H100.ridge_point('bf16'):.1f} FLOP/B"
)
print(f"H100 fp8 peak vs A100 bf16 peak: {fp8_vs_a100:.1f}x")

observations = [
    f"From A100 to H100, bf16 compute grew {fmt_ratio(bf16_ratio)} but bandwidth only "
    f"{fmt_ratio(bw_ratio)}, so the ridge point rose from {A100.ridge_point('bf16'):.1f} to "
    f"{H100.ridge_point('bf16'):.1f} FLOP/B: on the newer chip more kernels fall on the "
    "memory-bound side.",
    f"H100's fp8 peak is {fp8_vs_a100:.1f}x A100's bf16 peak, but it only helps kernels that "
    "are compute-bound (and can run in fp8). Quoting the wrong precision's peak can flip the "
    "verdict of the ledger.",
]
if local is not None:
    observations.append(
        f"This machine's ridge point is {ridge_point(*local):.1f} FLOP/B, measured with numpy in "
        "fp32. It is what numpy can reach, not a datasheet figure: another BLAS library or "
        "thread count moves it."
    )
print_observations(observations)

# %%
# The operator ledger
# -------------------
#
# Each row counts the FLOPs :math:`F` and the bytes :math:`D` of one operator
# (every read plus every write, at the element size), then compares its intensity
# :math:`I = F / D` with the chip's ridge point. The shapes are the article's:
# a 16M-element add, LayerNorm over [4096, 3072], softmax over [4096, 4096] (fused:
# one read and one write; naive: three reads and two writes), two GEMMs, and one
# attention head with :math:`N = 4096` tokens and :math:`D_h = 128`.
#
# Attention appears twice. "naive" writes the score matrix S and the probabilities
# P to memory and reads them back (:math:`4N^2` extra elements). "ideal-min" reads
# Q, K and V once and writes O once: a lower bound on traffic, not what a real
# FlashAttention kernel moves.

N_TOKENS, D_HEAD = 4096, 128
operators = [
    ("elementwise add [16M]", *elementwise_counts(16_000_000, ELEM_BYTES, reads=2)),
    ("LayerNorm [4096, 3072]", *layernorm_counts(4096, 3072, ELEM_BYTES)),
    ("softmax fused [4096, 4096]", *softmax_counts(4096, 4096, ELEM_BYTES, fused=True)),
    ("softmax naive [4096, 4096]", *softmax_counts(4096, 4096, ELEM_BYTES, fused=False)),
    ("GEMM 512x4096x4096", *gemm_counts(512, 4096, 4096, ELEM_BYTES)),
    ("GEMM 4096x4096x4096", *gemm_counts(4096, 4096, 4096, ELEM_BYTES)),
    (
        "attention naive [N=4096, Dh=128]",
        *attention_counts(N_TOKENS, D_HEAD, ELEM_BYTES, materialized=True),
    ),
    (
        "attention ideal-min [N=4096, Dh=128]",
        *attention_counts(N_TOKENS, D_HEAD, ELEM_BYTES, materialized=False),
    ),
]

print_header(f"Operator ledger on {chip.name}, {PRECISION}")
print(
    f"chip: {chip.name}, {PRECISION}: P = {fmt_peak(PEAK)}, beta = {fmt_bw(BW, digits=3)}, "
    f"I* = {RIDGE:.1f} FLOP/B; elements of {ELEM_BYTES:g} bytes"
)
ledger_rows = []
for name, flops, nbytes in operators:
    i = intensity(flops, nbytes)
    ledger_rows.append(
        [
            name,
            fmt_flops(flops),
            fmt_bytes(nbytes),
            f"{i:.2f}",
            f"{i / RIDGE:.3f}",
            bound_of(i, RIDGE),
            fmt_time(time_bounds(flops, nbytes, PEAK, BW)["lower"], unit="ms", digits=3),
        ]
    )
print_table(["operator", "F", "D", "I (FLOP/B)", "I/I*", "bound", "time bound"], ledger_rows)

by_name = {name: (flops, nbytes) for name, flops, nbytes in operators}
add_i = intensity(*by_name["elementwise add [16M]"])
ln_i = intensity(*by_name["LayerNorm [4096, 3072]"])
gemm_small_i = intensity(*by_name["GEMM 512x4096x4096"])
memory_bound = [name for name, f, d in operators if bound_of(intensity(f, d), RIDGE) == "memory"]
print_observations(
    [
        f"{len(memory_bound)} of the {len(operators)} operators are memory-bound on "
        f"{chip.name} at {PRECISION}. The elementwise add sits at I = {add_i:.2f} FLOP/B and "
        f"LayerNorm at {ln_i:.2f}, against I* = {RIDGE:.1f}: a faster arithmetic unit cannot "
        "shorten them at all.",
        "The add's intensity does not depend on its size: F and D both grow with the element "
        f"count. A GEMM's does: at M = 512 it is already {gemm_small_i:.1f} FLOP/B, because each "
        "weight byte is reused by every row of the input.",
    ]
)

# %%
# Naive against ideal-minimum attention
# -------------------------------------
#
# Keeping S and P on chip changes nothing in the arithmetic; it removes the
# quadratic memory traffic. Side by side, on the same chip:

F_naive, D_naive = by_name["attention naive [N=4096, Dh=128]"]
F_ideal, D_ideal = by_name["attention ideal-min [N=4096, Dh=128]"]
I_naive, I_ideal = intensity(F_naive, D_naive), intensity(F_ideal, D_ideal)
T_naive = time_bounds(F_naive, D_naive, PEAK, BW)["lower"]
T_ideal = time_bounds(F_ideal, D_ideal, PEAK, BW)["lower"]
bound_naive, bound_ideal = bound_of(I_naive, RIDGE), bound_of(I_ideal, RIDGE)

print_header("Attention: S and P in memory vs ideal minimum traffic")
print_table(
    ["", "naive (S, P in memory)", "ideal minimum traffic", "change"],
    [
        ["FLOPs", fmt_flops(F_naive), fmt_flops(F_ideal), fmt_ratio(F_ideal / F_naive, 3)],
        ["bytes", fmt_bytes(D_naive), fmt_bytes(D_ideal), f"{D_naive / D_ideal:.0f}x fewer"],
        ["intensity (FLOP/B)", f"{I_naive:.1f}", f"{I_ideal:.1f}", fmt_ratio(I_ideal / I_naive, 1)],
        ["bound", bound_naive, bound_ideal, ""],
        [
            "roofline time",
            fmt_time(T_naive, unit="ms", digits=3),
            fmt_time(T_ideal, unit="ms", digits=3),
            f"{fmt_ratio(T_naive / T_ideal, 1)} faster",
        ],
    ],
)
if bound_naive == bound_ideal:
    bound_move = f"stays on the {bound_naive}-bound side"
else:
    bound_move = f"moves from the {bound_naive}-bound to the {bound_ideal}-bound side"
print_observations(
    [
        f"The FLOPs are unchanged ({fmt_ratio(F_ideal / F_naive, 3)}); the bytes fall "
        f"{D_naive / D_ideal:.0f}x, so the intensity jumps from {I_naive:.1f} to {I_ideal:.1f} "
        f"FLOP/B and the kernel {bound_move} of I* = {RIDGE:.1f}.",
        f"The time bound falls from {fmt_time(T_naive, unit='ms', digits=3)} to "
        f"{fmt_time(T_ideal, unit='ms', digits=3)} ({fmt_ratio(T_naive / T_ideal, 1)}). The "
        "whole gain comes from moving fewer bytes, not from computing less.",
        "Caveat: the ideal minimum is a bound computed from a formula, not a measured "
        "FlashAttention kernel. Real tiled kernels reread K and V (or Q) block by block, so they "
        "move more bytes than this, and their speed must be measured.",
    ]
)

# %%
# Two times the compute or two times the bandwidth?
# -------------------------------------------------
#
# Before paying for a faster chip or a rewrite, ask what doubling one resource buys.
# With :math:`T = \max(F/P, D/\beta)`, doubling :math:`P` helps only when the
# compute term is the larger one, and doubling :math:`\beta` only when the memory
# term is. The upgrade that helps pays the full 2x only when the operator lies at
# least a factor of 2 from the ridge (:math:`I/I^{\ast} \le 1/2` or :math:`\ge 2`);
# closer in, the other resource becomes the limit before the gain is complete.

speedups = {name: speedup_2x(flops, nbytes, PEAK, BW) for name, flops, nbytes in operators}
print_header(f"Speedup from doubling one resource ({chip.name}, {PRECISION})")
print_table(
    ["operator", "I/I*", "2x compute", "2x bandwidth"],
    [
        [
            name,
            f"{intensity(f, d) / RIDGE:.3f}",
            f"{speedups[name][0]:.2f}x",
            f"{speedups[name][1]:.2f}x",
        ]
        for name, f, d in operators
    ],
)


def _whole(x: float) -> bool:
    """True for a speedup of 1x or 2x (to the printed precision)."""
    return abs(x - 1) < 0.005 or abs(x - 2) < 0.005


no_gain = [name for name, (sc, _) in speedups.items() if sc < 1.005]
partial = [name for name, (sc, sb) in speedups.items() if not (_whole(sc) and _whole(sb))]
if partial:
    partial_note = (
        f"Within a factor of 2 of the ridge ({', '.join(partial)}), the upgrade that helps pays "
        "less than 2x: after doubling, the other resource becomes the limit."
    )
else:
    partial_note = (
        "Every row reads 1.00x or 2.00x because every operator lies more than a factor of 2 "
        "from the ridge. Closer in, the upgrade that helps would pay less than 2x."
    )
print_observations(
    [
        f"For {len(no_gain)} of the {len(operators)} operators, twice the compute buys "
        f"{min(sc for sc, _ in speedups.values()):.2f}x: they are memory-bound, and only more "
        "bandwidth (or fewer bytes: fusion, smaller data types) makes them faster.",
        partial_note,
    ]
)

# %%
# When does a GEMM become compute-bound?
# --------------------------------------
#
# A GEMM :math:`[M, 4096] \times [4096, 4096]` reads the whole weight matrix
# whatever :math:`M` is, so a larger :math:`M` (more tokens per batch) reuses each
# weight byte more often and raises :math:`I`. The sweep below walks
# :math:`M = 1, 2, 4, \dots, 1024, 4096` and finds the first :math:`M` whose
# intensity reaches the ridge point.
#
# **Exercise.** Open ``common/hw_specs.py``, set A100's bf16 ``peak_flops`` to
# ``1979e12`` (H100's fp8 figure) and leave the bandwidth alone. Rerun this lecture
# and watch the ridge point and the crossover move. (This is a controlled
# experiment, not an H100: a real upgrade changes the bandwidth too.)

K_DIM = N_DIM = 4096
M_SWEEP = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096)
sweep = []
for m in M_SWEEP:
    flops, nbytes = gemm_counts(m, K_DIM, N_DIM, ELEM_BYTES)
    sweep.append((m, flops, nbytes, intensity(flops, nbytes)))

print_header(f"GEMM [M, {K_DIM}] x [{K_DIM}, {N_DIM}] on {chip.name}, {PRECISION}")
print_table(
    ["M", "F", "D", "I (FLOP/B)", "bound"],
    [[m, fmt_flops(f), fmt_bytes(d), f"{i:.2f}", bound_of(i, RIDGE)] for m, f, d, i in sweep],
)

intensity_at = {m: i for m, _, _, i in sweep}
cross = crossover(M_SWEEP, [i for *_, i in sweep], RIDGE)
exact_m = critical_batch(K_DIM, N_DIM, RIDGE, ELEM_BYTES, ELEM_BYTES, ELEM_BYTES)
print()
print(f"ridge point: I* = {RIDGE:.1f} FLOP/B")
if cross is None:
    print(f"crossover: none; every M up to {M_SWEEP[-1]} stays memory-bound")
elif cross.before is None:
    print(f"crossover: none needed; already compute-bound at M = {cross.first}")
else:
    print(
        f"crossover: M in ({cross.before}, {cross.first}]: I({cross.before}) = "
        f"{intensity_at[cross.before]:.2f} < I* = {RIDGE:.1f} <= I({cross.first}) = "
        f"{intensity_at[cross.first]:.2f}"
    )
if exact_m is not None:
    print(f"smallest integer M with I >= I*: {exact_m}")

limit = 2.0 * K_DIM * N_DIM / (ELEM_BYTES * (K_DIM + N_DIM))  # I as M grows without bound
sweep_observations = [
    f"At M = 1 (one token, as in decode) the GEMM does {intensity_at[1]:.2f} FLOP per byte: a "
    "matrix-vector product streams every weight once and uses it once. Small-batch decode is "
    "memory-bound, so quantizing the weights helps by moving fewer bytes, not by faster math.",
    f"I grows almost in proportion to M at first, then saturates: it never exceeds "
    f"{limit:.1f} FLOP/B for these K and N, however large M gets.",
]
if cross is not None and cross.before is not None:
    sweep_observations.insert(
        1,
        f"The sweep crosses the ridge between M = {cross.before} and M = {cross.first}; the "
        f"exact threshold is M = {exact_m}. Below it the weights' bandwidth sets the time, above "
        "it the arithmetic does.",
    )
print_observations(sweep_observations)
