r"""
Machine probe: this computer's two roofs
========================================

How fast can this computer really compute, and how fast can it move data?
This lecture measures both roofs with numpy, prints the ridge point where they
meet, and then times real operations (elementwise, LayerNorm, naive attention,
matrix multiplications) to see how close each one comes to its roofline bound.

Run it from the repository root or from any folder::

    python3 lectures/01_machine_probe.py [--results FILE] [--quick]

``--results FILE`` says where the calibration and the table are saved (default
``results/machine.json``, or ``$ROOFLINE_RESULTS`` when set); lectures 03, 04,
05 and 09 read them. ``--quick`` takes fewer timed repeats: same sizes, noisier
numbers, less time.
"""

from __future__ import annotations

# sphinx_gallery_start_ignore
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))))
from common.present import boot  # one-line errors, quiet Ctrl-C and closed pipes, before numpy

boot.start()
# sphinx_gallery_end_ignore

# %%
# Set-up
# ------
# The probe needs numpy and nothing else. No size below is typed in: every
# working set is derived from this machine's last-level cache (LLC) and its
# available memory. If an earlier run saved a calibration, it is read only to
# compare it with today's; a missing or unusable file is reported in one line.
from functools import partial

import numpy as np

from common.files import results
from common.files.calibration import saved_calibration
from common.files.paths import display_path
from common.formulas import numpy_ops
from common.measure import caches, machine, roofs
from common.present import cli, console, explain
from common.present.console import fmt_bw, fmt_bytes, fmt_flops, fmt_rate, fmt_time

parser = cli.lecture_parser(__doc__)
cli.add_results_flag(parser, saves=True)
parser.add_argument(
    "--quick",
    action="store_true",
    help="take fewer timed repeats (same sizes; noisier numbers, shorter run)",
)
args = cli.parse_args(parser)
mode = "quick" if args.quick else "full"

previous = saved_calibration(args.results)
previous_calibration = previous.calibration
if previous_calibration is not None:
    updated = previous.loaded.data.get("updated")
    print(f"previous calibration: {display_path(previous.loaded.path)} (updated {updated})")
else:
    print(f"previous calibration: none usable ({previous.reason})")

# %%
# This machine
# ------------
# A measured roof means little without the machine it was measured on. Numpy
# hands matrix multiplication to a BLAS library, which picks a kernel for the
# CPU (OpenBLAS calls it the core type) and runs on several threads. Numpy's
# own elementwise operations (``np.add``, ``np.exp``, reductions) run on the
# calling thread only. The thread count therefore belongs next to every number.
desc = machine.describe()
blas = desc["blas"]
blas_threads = blas.get("threads")
blas_env = desc["blas_env"]
cache_list = caches.data_caches(caches.read_caches())
llc_bytes = roofs.llc_bytes()[0]
available = caches.available_memory_bytes()
memory_cap = roofs.memory_cap_bytes()

console.print_header("This machine")
print(f"CPU:              {desc['cpu']}, {desc['cores']} usable cores ({desc['system']})")
if cache_list:
    cache_text = ", ".join(
        f"{c.name} {fmt_bytes(c.size_bytes, binary=True, digits=0)}" for c in cache_list
    )
    print(f"caches (per core view): {cache_text}")
else:
    print(f"caches:           not reported; assuming an LLC of {fmt_bytes(llc_bytes, binary=True)}")
memory_text = fmt_bytes(available, binary=True) if available else "unknown"
print(f"available memory: {memory_text}")
version = f" {blas['version']}" if blas.get("version") else ""
layer = f", {blas['threading_layer']} threading" if blas.get("threading_layer") else ""
print(f"numpy:            {desc['numpy']} (Python {desc['python']})")
print(f"BLAS library:     {blas.get('library')}{version}{layer}")
print(f"BLAS kernel:      {blas.get('kernel')} (the core type the library chose for this CPU)")
print(f"BLAS threads:     {blas_threads} (used by matmul)")
print("numpy elementwise threads: 1 (ufuncs and reductions run on the calling thread)")
env_text = ", ".join(f"{k}={v}" for k, v in blas_env.items()) if blas_env else "none set"
print(f"BLAS environment variables: {env_text}")

# %%
# Calibrate the two roofs
# -----------------------
# The bandwidth roof :math:`\beta` is the speed of a streaming add
# ``z = x + y`` in fp32, counted as :math:`12n` bytes for :math:`n` elements
# (read two vectors, write one), over a working set of at least eight times
# the LLC, so the caches can hold at most an eighth of it. The compute roof
# :math:`P` is the speed of a square fp32 matmul, counted as :math:`2n^3` FLOP,
# with :math:`n` chosen so that one call is long enough to time well. Each is
# the best of many calls within a time budget: a shared machine has slow
# moments, and a roof is what the hardware allows, not what it gave on
# average. The matmul is measured twice, on all BLAS threads and on one.
console.progress("calibrating: streaming add and matmul ...")
calib = roofs.calibrate(quick=args.quick)
console.progress_done()

beta = calib["bandwidth_bytes_per_s"]
peak = calib["matmul_flops_per_s"]
ridge = calib["ridge_point"]
peak_one = calib["matmul_one_thread_flops_per_s"]
ridge_one = calib["ridge_point_one_thread"]
ws_bytes = calib["bandwidth_working_set_bytes"]
n_mm = calib["matmul_n"]

console.print_header("The two roofs of this machine (numpy, fp32)")
console.print_table(
    ["roof", "value", "threads", "measured with"],
    [
        [
            "bandwidth beta",
            fmt_bw(beta),
            calib["bandwidth_threads"],
            f"z = x + y over {fmt_bytes(ws_bytes, binary=True)} "
            f"({ws_bytes / llc_bytes:.1f}x LLC), best of {calib['bandwidth_samples']}",
        ],
        [
            "compute P",
            fmt_rate(peak),
            calib["matmul_threads"],
            f"C = A @ B, n = {n_mm}, best of {calib['matmul_samples']}",
        ],
        ["compute, 1 thread", fmt_rate(peak_one), 1, "the same matmul, BLAS limited to 1 thread"],
    ],
)
print()
print(f"ridge point I* = P / beta = {fmt_rate(peak)} / {fmt_bw(beta)} = {ridge:.2f} FLOP/byte")
print(f"same-threads ridge (1-thread matmul / 1-thread bandwidth) = {ridge_one:.2f} FLOP/byte")

median_beta = calib["bandwidth_median_bytes_per_s"]
thread_speedup = peak / peak_one
observations = [
    f"The fastest streaming add moved {fmt_bw(beta)}; the median call moved "
    f"{fmt_bw(median_beta)}, {(1 - median_beta / beta) * 100:.0f}% less. Memory is "
    "shared with everything else on the machine, so single calls vary; the best call is "
    "the roof, the median is what a busy moment gives.",
    f"The roofs mix thread counts. The matmul ran on {calib['matmul_threads']} BLAS threads, "
    f"x{thread_speedup:.2f} as fast as on one, but numpy streams memory on one thread. So "
    f"the ridge point {ridge:.2f} FLOP/byte divides an all-thread compute roof by a "
    f"one-thread bandwidth roof: x{ridge / ridge_one:.2f} the same-threads ridge "
    f"({ridge_one:.2f} FLOP/byte, one thread each). For numpy code the mixed ridge is the "
    "honest one, because it is what numpy can reach. A program that streamed memory on "
    "all cores would see a higher bandwidth and a lower ridge.",
]
if isinstance(blas_threads, int) and blas_threads > 1 and thread_speedup < 0.6 * blas_threads:
    observations.append(
        f"Warning: {blas_threads} threads gave only x{thread_speedup:.2f} over one. Another "
        "program was probably using the cores, so the compute roof is too low in this run; "
        "run the lecture again on a quiet machine."
    )
if previous_calibration is not None:
    old_beta = previous_calibration["bandwidth_bytes_per_s"]
    old_peak = previous_calibration["matmul_flops_per_s"]
    observations.append(
        f"The previous run measured {fmt_bw(old_beta)} and {fmt_rate(old_peak)}: today's "
        f"roofs differ by {(beta / old_beta - 1) * 100:+.1f}% and "
        f"{(peak / old_peak - 1) * 100:+.1f}%. That is the run-to-run noise of a measured "
        "roof; keep it in mind when a point lands a few percent above its roof."
    )
console.print_observations(observations)

# %%
# The operations and their ledgers
# --------------------------------
# Now the article's operations, in fp32. For each one the FLOP count
# :math:`F` comes from the formula, and the byte count :math:`D` from the
# passes the code really makes over main memory: the comment next to each numpy
# line keeps a running count, in passes over the largest arrays. The
# prediction is the roofline bound :math:`\max(F/P,\ D/\beta)`.
#
# One line needs a decision. ``np.maximum(a + b, 0, out=out)`` looks fused, but
# numpy first materialises ``a + b`` in a fresh temporary as large as ``a``.
# Memory that large comes straight from the operating system, which hands it
# over zero-filled: one more write pass before numpy writes into it. It is
# charged: six passes, against five for the two-pass version with a
# preallocated buffer. The page faults themselves cost time too, which no byte
# count captures.
rng = np.random.default_rng(0)
llc_working_set = roofs.bandwidth_working_set_bytes()
budget_s = numpy_ops.OP_BUDGET_S[mode]
rows = []


def time_op(label, fn):
    """Best time of `fn` within this lecture's per-operation budget (progress on a TTY)."""
    console.progress(f"timing {label} ...")
    t = roofs.best_time(fn, repeat=numpy_ops.MIN_REPEAT, budget_s=budget_s)
    console.progress_done()
    return t


def add_row(name, shape, counts, t, working_set, threads, threads_text=None, twin=False):
    """Append the roofline row of one timed operation (twin: repeats a calibration)."""
    rows.append(
        numpy_ops.roofline_row(
            name,
            *counts,
            t,
            peak,
            beta,
            working_set,
            shape=shape,
            threads=threads,
            threads_text=threads_text or str(threads),
            same_as_calibration=twin,
        )
    )


# Elementwise: each vector is a third of the bandwidth working set. Each
# builder allocates its arrays and returns the timed function; the arrays are
# freed as soon as that function is dropped, so only one operation's data is
# in memory at a time.
n = numpy_ops.elementwise_n(llc_working_set)
vec = 4 * n  # bytes of one fp32 vector


def make_elementwise(n):
    a = rng.random(n, dtype=np.float32) - np.float32(0.5)
    b = rng.random(n, dtype=np.float32) - np.float32(0.5)
    out = np.empty(n, dtype=np.float32)
    tmp = np.empty(n, dtype=np.float32)

    def add():
        np.add(a, b, out=out)  # read a, read b, write out               3 passes

    def add_relu_two_passes():
        np.add(a, b, out=tmp)  # read a, read b, write tmp               3 passes
        np.maximum(tmp, 0, out=out)  # read tmp, write out               5 passes

    def add_relu_one_expression():
        # a + b goes to a fresh temporary that the OS zero-fills         1 pass
        # read a and b, write the temporary: 4; read it, write out:      6 passes
        np.maximum(a + b, 0, out=out)

    return add, add_relu_two_passes, add_relu_one_expression


add, add_relu_two_passes, add_relu_one_expression = make_elementwise(n)
for name, fn, counts, n_vectors in (
    ("add", add, numpy_ops.add_counts(n), 3),
    ("add+relu 2 passes", add_relu_two_passes, numpy_ops.add_relu_two_pass_counts(n), 4),
    ("add+relu 1 expr", add_relu_one_expression, numpy_ops.add_relu_one_expr_counts(n), 4),
):
    add_row(name, f"[{n}]", counts, time_op(name, fn), n_vectors * vec, 1, twin=name == "add")
del add, add_relu_two_passes, add_relu_one_expression, fn  # frees the vectors


# LayerNorm without bias, every buffer preallocated.
def make_layernorm(n_rows, d):
    x = rng.random((n_rows, d), dtype=np.float32)
    gamma = rng.random(d, dtype=np.float32)
    mu = np.empty((n_rows, 1), dtype=np.float32)
    sigma = np.empty((n_rows, 1), dtype=np.float32)
    xc = np.empty_like(x)
    sq = np.empty_like(x)

    def layernorm():
        np.mean(x, axis=-1, keepdims=True, out=mu)  # read x              1 pass
        np.subtract(x, mu, out=xc)  # read x, write xc                    3 passes
        np.multiply(xc, xc, out=sq)  # read xc, write sq                  5 passes
        np.mean(sq, axis=-1, keepdims=True, out=sigma)  # read sq         6 passes
        np.sqrt(sigma + 1e-5, out=sigma)  # one value per row             (negligible)
        np.divide(xc, sigma, out=xc)  # read xc, write xc                 8 passes
        np.multiply(xc, gamma, out=xc)  # read xc, write xc               10 passes

    return layernorm


ln_rows, ln_d = numpy_ops.layernorm_shape(llc_working_set)
add_row(
    "LayerNorm",
    f"[{ln_rows},{ln_d}]",
    numpy_ops.layernorm_numpy_counts(ln_rows, ln_d),
    time_op("LayerNorm", make_layernorm(ln_rows, ln_d)),
    3 * 4 * ln_rows * ln_d,  # x, xc and sq
    1,
)


# Naive attention, one head, S materialised. No 1/sqrt(Dh) scaling, as in the
# article: it would add one more pass and change nothing else.
def make_attention(n, dh):
    q = rng.standard_normal((n, dh), dtype=np.float32)
    kt = np.ascontiguousarray(rng.standard_normal((n, dh), dtype=np.float32).T)
    v = rng.standard_normal((n, dh), dtype=np.float32)
    s = np.empty((n, n), dtype=np.float32)
    o = np.empty((n, dh), dtype=np.float32)
    rowmax = np.empty((n, 1), dtype=np.float32)
    rowsum = np.empty((n, 1), dtype=np.float32)

    def attention_naive():
        np.matmul(q, kt, out=s)  # write S                                1 pass of N^2
        np.max(s, axis=-1, keepdims=True, out=rowmax)  # read S           2 passes
        np.subtract(s, rowmax, out=s)  # read S, write S                  4 passes
        np.exp(s, out=s)  # read S, write S                               6 passes
        np.sum(s, axis=-1, keepdims=True, out=rowsum)  # read S           7 passes
        np.divide(s, rowsum, out=s)  # read S, write S                    9 passes
        np.matmul(s, v, out=o)  # read S, write O; Q, K, V read once      10 passes

    def matmuls_only():  # the same two matmuls without the softmax between them
        np.matmul(q, kt, out=s)
        np.matmul(s, v, out=o)

    def softmax_only():  # the same five softmax lines alone
        np.max(s, axis=-1, keepdims=True, out=rowmax)
        np.subtract(s, rowmax, out=s)
        np.exp(s, out=s)
        np.sum(s, axis=-1, keepdims=True, out=rowsum)
        np.divide(s, rowsum, out=s)

    return attention_naive, matmuls_only, softmax_only


seq = numpy_ops.attention_seq_len(llc_bytes, memory_cap)
dh = numpy_ops.HEAD_DIM
attention_naive, matmuls_only, softmax_only = make_attention(seq, dh)
add_row(
    "attention naive",
    f"N={seq}, Dh={dh}",
    numpy_ops.attention_naive_counts(seq, dh),
    time_op("naive attention", attention_naive),
    4 * (seq * seq + 4 * seq * dh),  # S, then Q, K, V and O
    blas_threads,
    threads_text=f"{blas_threads}+1",
)
# The same code in its two phases, to see where the time goes (observations below).
# S is already in memory: no warm-up call is needed.
t_att_mm = roofs.best_time(matmuls_only, repeat=2, warmup=0)
t_att_sm = roofs.best_time(softmax_only, repeat=2, warmup=0)
del attention_naive, matmuls_only, softmax_only


# GEMMs: a K x N weight at least twice the LLC, a few rows (like decoding) and
# many rows (like prefill); then the calibration's own square matmul.
def make_gemm(m, k, n):
    lhs = rng.random((m, k), dtype=np.float32)
    weight = rng.random((k, n), dtype=np.float32)
    res = np.empty((m, n), dtype=np.float32)
    return partial(np.matmul, lhs, weight, out=res)  # read A, read B, write C: one pass each


k_dim = numpy_ops.gemm_width(llc_bytes, memory_cap)
for m, k, n_cols, name in (
    (numpy_ops.GEMM_SKINNY_M, k_dim, k_dim, f"GEMM M={numpy_ops.GEMM_SKINNY_M}"),
    (numpy_ops.GEMM_WIDE_M, k_dim, k_dim, f"GEMM M={numpy_ops.GEMM_WIDE_M}"),
    (n_mm, n_mm, n_mm, "GEMM square"),
):
    add_row(
        name,
        f"{m}x{k}x{n_cols}",
        numpy_ops.gemm_fp32_counts(m, k, n_cols),
        time_op(name, make_gemm(m, k, n_cols)),
        4 * (m * k + k * n_cols + m * n_cols),
        blas_threads,
        twin=name == "GEMM square",
    )

console.print_header("The ledger: what each operation must do")
console.print_table(
    ["operation", "shape", "F", "D", "I (FLOP/B)", "working set", "threads"],
    [
        [
            r["name"],
            r["shape"],
            fmt_flops(r["flops"]),
            fmt_bytes(r["bytes"]),
            f"{r['intensity']:.3g}",
            f"{fmt_bytes(r['working_set_bytes'], binary=True)}",
            r["threads_text"],
        ]
        for r in rows
    ],
)
print(f"(I* = {ridge:.2f} FLOP/byte: below it an operation is memory-bound)")


def percent_text(row):
    """'87%', or a flag instead of a percentage above 110% of the roof."""
    if row["flag"]:
        return "above roof (see note)"
    return f"{row['fraction_of_bound'] * 100:.0f}%"


console.print_header("The roofline's prediction next to the measurement")
console.print_table(
    ["operation", "F/P", "D/beta", "bound", "t_pred", "t_meas", "% of bound", "achieved"],
    [
        [
            r["name"],
            fmt_time(r["t_compute_s"]),
            fmt_time(r["t_memory_s"]),
            r["bound"],
            fmt_time(r["t_pred_s"]),
            fmt_time(r["t_meas_s"]),
            percent_text(r),
            fmt_rate(r["achieved_flops_per_s"]),
        ]
        for r in rows
    ],
)
flagged_rows = [r for r in rows if r["flag"]]
if flagged_rows:
    print()
for r in flagged_rows:
    reasons = explain.above_roof_reasons(r, llc_bytes, calib["bandwidth_threads"])
    print(
        f"note: {r['name']} ran at {r['fraction_of_bound'] * 100:.0f}% of its bound, "
        f"which the roofline forbids. Likely reasons: {'; '.join(reasons)}."
    )

# %%
# Reading the table
# -----------------
# The percentage is :math:`t_{\mathrm{pred}} / t_{\mathrm{meas}}`: the share
# of the roofline's speed the code reached. At 100% the operation ran exactly
# as fast as the slower of the two roofs allows; at 50% it took twice the
# bound. A point well above 100% is not a record but a sign that the ledger or
# the roofs are wrong for that run: the table prints "above roof" instead for
# anything more than 10% over, with a note on the likely reasons.
by_name = {r["name"]: r for r in rows}
add_r = by_name["add"]
two_r = by_name["add+relu 2 passes"]
one_r = by_name["add+relu 1 expr"]
ln_r = by_name["LayerNorm"]
att_r = by_name["attention naive"]
skinny_r = by_name[f"GEMM M={numpy_ops.GEMM_SKINNY_M}"]
square_r = by_name["GEMM square"]
f_mm, d_mm = numpy_ops.attention_matmul_counts(seq, dh)
f_sm, d_sm = numpy_ops.attention_softmax_counts(seq)
t_mm_pred = max(f_mm / peak, d_mm / beta)
t_sm_pred = max(f_sm / peak, d_sm / beta)
zero_fill_s = vec / beta


def pct(x):
    """A fraction as a whole percentage."""
    return f"{x * 100:.0f}%"


memory_rows = [r for r in rows if r["name"].startswith(("add", "LayerNorm"))]
max_elementwise_i = max(r["intensity"] for r in memory_rows)
fused_ln_bytes = 2 * 4 * ln_rows * ln_d  # read x once, write y once
overlap_limit = max(t_mm_pred, t_sm_pred) / (t_mm_pred + t_sm_pred)
wide_r = by_name[f"GEMM M={numpy_ops.GEMM_WIDE_M}"]

console.print_observations(
    [
        f"The add reached {pct(add_r['fraction_of_bound'])} of its bound. It repeats the "
        "calibration's own access pattern, so it should sit near 100%; far from it, the "
        "machine changed speed between the two measurements.",
        f"The elementwise rows and LayerNorm have I <= {max_elementwise_i:.2f} FLOP/byte, "
        f"x{ridge / max_elementwise_i:.0f} or more below I* = {ridge:.2f}: memory-bound, so a "
        "faster compute roof would not change their times at all.",
        f"add+relu in two passes took {fmt_time(two_r['t_meas_s'])}; written as one "
        f"expression it took {fmt_time(one_r['t_meas_s'])}, "
        f"x{one_r['t_meas_s'] / two_r['t_meas_s']:.2f} as long. The one line is not fused: "
        f"its temporary costs a zero-fill pass ({fmt_time(zero_fill_s)} at the bandwidth "
        "roof) plus page faults. Charged six passes, it reaches "
        f"{pct(one_r['fraction_of_bound'])} of its bound; the page faults are the part no "
        "byte count captures.",
        f"LayerNorm reached {pct(ln_r['fraction_of_bound'])}. Its ten passes move "
        f"{fmt_bytes(ln_r['bytes'])} for six operations per element; a fused kernel that "
        f"reads x once and writes y once would move {fmt_bytes(fused_ln_bytes)}.",
        f"Naive attention reached only {pct(att_r['fraction_of_bound'])} of its bound "
        f"({att_r['bound']}-bound, I = {att_r['intensity']:.1f} FLOP/byte). Timed alone, its "
        f"two matmuls took {fmt_time(t_att_mm)} (their bound: {fmt_time(t_mm_pred)}) and its "
        f"softmax {fmt_time(t_att_sm)} (bound: {fmt_time(t_sm_pred)}). The roofline assumes "
        "the phases overlap, so it charges only the larger one; numpy runs them one after "
        "the other, so the times add, and even perfect phases would reach only "
        f"{pct(overlap_limit)}. On their own, the matmuls reached "
        f"{pct(t_mm_pred / t_att_mm)} of their bound and the softmax "
        f"{pct(t_sm_pred / t_att_sm)}: the softmax runs on one thread, and its exp, counted "
        "as one FLOP, costs many instructions.",
        f"GEMM M={numpy_ops.GEMM_SKINNY_M} reads its whole weight for "
        f"{numpy_ops.GEMM_SKINNY_M} rows only (like decoding one token for a few sequences): "
        f"I = {skinny_r['intensity']:.2f} FLOP/byte, {skinny_r['bound']}-bound, "
        f"{pct(skinny_r['fraction_of_bound'])} of its bound. GEMM M={numpy_ops.GEMM_WIDE_M} "
        f"reuses the same weight {numpy_ops.GEMM_WIDE_M} times: I = "
        f"{wide_r['intensity']:.0f}, {wide_r['bound']}-bound, "
        f"{pct(wide_r['fraction_of_bound'])}. The square GEMM repeats the calibration's own "
        f"matmul, so it should sit near 100%: {pct(square_r['fraction_of_bound'])}.",
    ]
)

# %%
# Same FLOPs, different times
# ---------------------------
# FLOPs alone do not predict time. Take the add from the table and a small
# square matmul with (almost) the same FLOP count: the add must stream all its
# data through memory, the matmul reuses every element it loads many times.
f_add, d_add = numpy_ops.add_counts(n)
m_same = numpy_ops.same_flops_matmul_size(f_add)
f_same, d_same = numpy_ops.gemm_fp32_counts(m_same, m_same, m_same)
t_same = roofs.best_time(make_gemm(m_same, m_same, m_same), repeat=5, budget_s=budget_s)
t_add = add_r["t_meas_s"]
time_ratio = t_add / t_same

console.print_header("Same FLOPs, different times")
console.print_table(
    ["operation", "F", "D", "I (FLOP/B)", "t_meas", "achieved"],
    [
        [
            f"GEMM {m_same}^3",
            fmt_flops(f_same),
            fmt_bytes(d_same),
            f"{f_same / d_same:.1f}",
            fmt_time(t_same),
            fmt_rate(f_same / t_same),
        ],
        [
            f"add [{n}]",
            fmt_flops(f_add),
            fmt_bytes(d_add),
            f"{f_add / d_add:.3f}",
            fmt_time(t_add),
            fmt_rate(f_add / t_add),
        ],
    ],
)
print(f"FLOP ratio add / GEMM = {f_add / f_same:.3f}; time ratio = x{time_ratio:.0f}")
console.print_observations(
    [
        f"The two operations do the same work within {abs(f_add / f_same - 1) * 100:.1f}%, "
        f"yet the add takes x{time_ratio:.0f} as long. It moves {fmt_bytes(d_add)} for its "
        f"FLOPs, the matmul {fmt_bytes(d_same)}: intensity, not the FLOP count, sets the time.",
        "The pair is small because the add's vectors were sized to the memory budget "
        f"({fmt_bytes(3 * vec, binary=True)} in all). At this size the matmul ran at "
        f"{fmt_rate(f_same / t_same)}, {pct(f_same / t_same / peak)} of P; a larger pair "
        "would widen the gap, since the add's time grows with its bytes.",
    ]
)

# %%
# Save the calibration
# --------------------
# Later lectures read this machine's roofs and the table above from the results
# file instead of measuring again. It is written atomically: a crash or Ctrl-C
# before this point leaves the previous file as it was.
payload = {
    "calibration": {k: v for k, v in calib.items() if not isinstance(v, dict)},
    "operations": rows,
    "attention_phases": {
        "matmuls_t_meas_s": t_att_mm,
        "matmuls_t_pred_s": t_mm_pred,
        "softmax_t_meas_s": t_att_sm,
        "softmax_t_pred_s": t_sm_pred,
    },
    "same_flops": {
        "matmul": {
            "shape": f"{m_same}x{m_same}x{m_same}",
            "flops": f_same,
            "bytes": d_same,
            "t_meas_s": t_same,
        },
        "elementwise": {"shape": f"[{n}]", "flops": f_add, "bytes": d_add, "t_meas_s": t_add},
        "flop_ratio": f_add / f_same,
        "time_ratio": time_ratio,
    },
    "mode": mode,
}
saved = results.save_section("probe", payload, args.results, this_machine=desc)
print(f"\nsaved results: {display_path(saved)}")
