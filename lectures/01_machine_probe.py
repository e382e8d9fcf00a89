r"""
Machine probe: this computer's two roofs
========================================

How fast can this computer really compute, and how fast can it move data?
This lecture measures both roofs with numpy, prints the ridge point where they
meet, and then times real operations (elementwise, LayerNorm, naive attention,
matrix multiplications) to see how close each one comes to its roofline bound.

Run it from the repository root or from any folder::

    python3 lectures/01_machine_probe.py [--results FILE] [--quick] [--png [--outdir DIR]]
        [--memory-limit GIB] [--time-limit S]

``--results FILE`` says where the calibration and the table are saved (default
``results/machine.json``, or ``$ROOFLINE_RESULTS`` when set); lectures 03, 04,
05 and 09 read them. ``--quick`` takes fewer timed repeats: same sizes, noisier
numbers, less time. ``--png`` also draws this machine's roofline with the timed
operations on it, into ``figures/`` or ``--outdir DIR``. ``--memory-limit`` and
``--time-limit`` set the budget every size is chosen within (default 1 GiB and
10 s, which a laptop can afford).
"""

from __future__ import annotations

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

# %%
# Set-up
# ------
# The probe needs numpy and nothing else. No size below is typed in: every working set is chosen
# within a memory and a time budget, and as far beyond this machine's last-level cache (LLC) as
# that budget allows. If an earlier run saved a calibration, it is read only to compare it with
# today's; a missing or unusable file is reported in one line.
from functools import partial

import numpy as np

from common.files import results
from common.files.calibration import saved_calibration
from common.formulas import numpy_ops, roofline
from common.measure import attention, budget, caches, machine, roofs
from common.plots import article
from common.present import console, display, figures, probe
from common.present.display import show
from common.shell import cli
from common.shell.paths import display_path
from lectures.words import machine_probe as page

ABOUT = {"budget": (10, 1)}


make_parser = partial(budget.measuring_parser, __doc__, "01",
                      "fewer timed repeats (same sizes; noisier numbers, shorter run)")  # fmt: skip
args = cli.parse_args(make_parser())
plan = budget.from_args(args)  # the memory and time this run may spend

previous = saved_calibration(args.results)
show(page.previous_text(previous))

# %%
# This machine
# ------------
# A measured roof means little without the machine it was measured on. Numpy hands matrix
# multiplication to a BLAS library, which picks a kernel for the CPU (OpenBLAS calls it the core
# type) and runs on several threads. Numpy's own elementwise operations (``np.add``, ``np.exp``,
# reductions) run on the calling thread only. The thread count therefore belongs next to every
# number.
desc = machine.describe()
blas_threads = desc["blas"].get("threads")
cache_list = [(c.name, c.size_bytes) for c in caches.data_caches(caches.read_caches())]
llc_bytes, reported_llc = roofs.llc_bytes()[0], caches.last_level_cache_bytes()
show(
    page.machine_facts(desc, cache_list, llc_bytes, caches.available_memory_bytes()),
    probe.built_here(desc, llc_bytes, "01_machine_probe.py"))  # fmt: skip

# %%
# Calibrate the two roofs
# -----------------------
# The bandwidth roof :math:`\beta` is the speed of a streaming add ``z = x + y`` in fp32, counted
# as :math:`12n` bytes for :math:`n` elements (read two vectors, write one), over a working set of
# eight times the LLC where the memory budget allows, so the caches can hold at most an eighth of
# it. The compute roof :math:`P` is the speed of a square fp32 matmul, counted as :math:`2n^3`
# FLOP, with :math:`n` chosen so that one call is long enough to time well. Each is the best of
# many calls within a time budget: a shared machine has slow moments, and a roof is what the
# hardware allows, not what it gave on average. The matmul is measured twice, on all BLAS threads
# and on one. Where the two roofs meet is the ridge point :math:`I^{\ast} = P / \beta`.
#
# The two roofs are not measured once and for all: both are timed again between the operations
# below, and each roof is the best call of the whole run. A roof and the operations under it so
# share the machine's quiet and busy moments, and no operation can beat a roof only because it ran
# at a quieter moment than the calibration. The roofs are printed after the operations, once they
# are final.
console.progress("calibrating: streaming add and matmul ...")
run = roofs.roof_run(args.quick, plan)
console.progress_done()
first = run.calibration()  # the first rounds' roofs: enough to size the operations

# %%
# The operations and their ledgers
# --------------------------------
# Now the operations of :ref:`the article <sources>`, in fp32. For each one the FLOP count
# :math:`F` comes from the formula, and the byte count :math:`D` from the passes the code really
# makes over main memory: the comment next to each numpy line keeps a running count, in passes over
# the largest arrays. The prediction is the roofline bound :math:`T = \max(F/P,\ D/\beta)`.
#
# ``measure`` times one operation (its best call within a fixed budget) and turns its counts into a
# row of the roofline table.
rng = np.random.default_rng(0)
llc_working_set = first["bandwidth_working_set_bytes"]  # the calibration's stream
cap = plan.arrays_bytes - llc_working_set - 12 * first["matmul_n"] ** 2  # left for one operation
call_cap = budget.call_cap(plan)  # one call's bound, at most
budget_s = numpy_ops.OP_BUDGET_S["quick"] if args.quick else budget.op_seconds(plan)
timed = []  # one entry per timed operation; rows once the roofs are final


def measure(name, shape, fn, counts, working_set, threads, threads_text="", twin=False):
    """Time `fn` between calls of the two roofs; its row waits for the final roofs."""
    console.progress(f"timing {name} ...")
    t = run.time_op(fn, numpy_ops.MIN_REPEAT, budget_s)
    console.progress_done()
    timed.append((name, shape, counts, t, working_set, threads, threads_text, twin))


# %%
# Elementwise: three ways to add
# ------------------------------
# Each vector is a third of the calibration's working set. One line needs a decision.
# ``np.maximum(a + b, 0, out=out)`` looks fused, but numpy first materialises ``a + b`` in a fresh
# temporary as large as ``a``. Memory that large comes straight from the operating system, which
# hands it over zero-filled: one more write pass before numpy writes into it. It is charged: six
# passes, against five for the two-pass version with a preallocated buffer. The page faults
# themselves cost time too, which no byte count captures.
n = numpy_ops.elementwise_n(llc_working_set)
vec = 4 * n  # bytes of one fp32 vector


def make_elementwise(n):
    a = rng.random(n, dtype=np.float32) - np.float32(0.5)
    b = rng.random(n, dtype=np.float32) - np.float32(0.5)
    out, tmp = np.empty(n, dtype=np.float32), np.empty(n, dtype=np.float32)

    def add():
        np.add(a, b, out=out)  # read a, read b, write out               3 passes

    def add_relu_two_passes():
        np.add(a, b, out=tmp)  # read a, read b, write tmp               3 passes
        np.maximum(tmp, 0, out=out)  # read tmp, write out               5 passes

    def add_relu_one_expr():
        # a + b goes to a fresh temporary that the OS zero-fills         1 pass
        # read a and b, write the temporary: 4; read it, write out:      6 passes
        np.maximum(a + b, 0, out=out)

    return add, add_relu_two_passes, add_relu_one_expr


add, add_relu_two_passes, add_relu_one_expr = make_elementwise(n)
for name, fn, counts, n_vectors in (
    ("add", add, numpy_ops.add_counts(n), 3),
    ("add+relu 2 passes", add_relu_two_passes, numpy_ops.add_relu_two_pass_counts(n), 4),
    ("add+relu 1 expr", add_relu_one_expr, numpy_ops.add_relu_one_expr_counts(n), 4),
):
    measure(name, f"[{n}]", fn, counts, n_vectors * vec, 1, twin=name == "add")
if 3 * vec == run.kernels.stream_bytes:  # the add is the bandwidth roof's own kernel
    run.also("bandwidth", timed[0][3])
del add, add_relu_two_passes, add_relu_one_expr, fn  # frees the vectors


# %%
# LayerNorm
# ---------
# LayerNorm without bias, every buffer preallocated. Six operations per element, but each numpy
# call is a separate pass over the whole array: ten passes in all.
def make_layernorm(n_rows, d):
    x = rng.random((n_rows, d), dtype=np.float32)
    gamma = rng.random(d, dtype=np.float32)
    mu, sigma = np.empty((n_rows, 1), dtype=np.float32), np.empty((n_rows, 1), dtype=np.float32)
    xc, sq = np.empty_like(x), np.empty_like(x)

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
ln_counts = numpy_ops.layernorm_numpy_counts(ln_rows, ln_d)
ln_bytes = 3 * 4 * ln_rows * ln_d  # x, xc and sq
shape = f"[{ln_rows},{ln_d}]"
measure("LayerNorm", shape, make_layernorm(ln_rows, ln_d), ln_counts, ln_bytes, 1)


# %%
# Naive attention
# ---------------
# One head, the score matrix :math:`S` (:math:`N \times N`) materialised, no :math:`1/\sqrt{d_h}`
# scaling (as in the article: it would add one more pass and change nothing else). The same code is
# also split into its two phases, the matmuls and the softmax, to see later where the time goes.
# The kernel is the one lecture 10 measures too, in ``common/measure/attention.py``:
#
# .. literalinclude:: /../common/measure/attention.py
#    :pyobject: naive_phases
#    :start-at: def attention_naive
#    :end-before: return attention_naive, matmuls_only
#    :dedent: 4
#
# The sequence length :math:`N` is chosen so that :math:`S` is twice the LLC, as far as the memory
# and time budgets allow. The matmuls run on every BLAS thread, the softmax on one: the threads
# column says so.
peak_0, beta_0 = first["matmul_flops_per_s"], first["bandwidth_bytes_per_s"]
dh = numpy_ops.HEAD_DIM
seq = budget.attention_seq(reported_llc, cap, peak_0, beta_0, dh, call_cap)
q, k, v = attention.random_qkv(seq, dh)
attention_naive, matmuls_only, softmax_only = attention.naive_phases(q, k, v)
counts = numpy_ops.attention_naive_counts(seq, dh)
nbytes = 4 * (seq * seq + 4 * seq * dh)  # S, then Q, K, V and O
threads = f"{blas_threads}+1"  # the matmuls on every BLAS thread, the softmax on one
shape = f"N={seq}, d_h={dh}"
measure("attention naive", shape, attention_naive, counts, nbytes, blas_threads, threads)
# The two phases alone. S is already in memory: no warm-up call is needed.
t_att_mm = roofs.best_time(matmuls_only, repeat=2, warmup=0)
t_att_sm = roofs.best_time(softmax_only, repeat=2, warmup=0)
del attention_naive, matmuls_only, softmax_only, q, k, v


# %%
# Matrix multiplications
# ----------------------
# A GEMM of :math:`M` rows by a square :math:`K \times K` weight twice the LLC where the budget
# allows: a few rows (like decoding: the whole weight read for little work) and many rows (like
# prefill: the weight reused); then the calibration's own square matmul. Shapes read :math:`M
# \times K \times K`.
def make_gemm(m, k, n):
    lhs = rng.random((m, k), dtype=np.float32)
    weight = rng.random((k, n), dtype=np.float32)
    res = np.empty((m, n), dtype=np.float32)
    return partial(np.matmul, lhs, weight, out=res)  # one pass over A, B and C


k_dim = budget.gemm_width(reported_llc, cap, peak_0, numpy_ops.GEMM_WIDE_M, call_cap)
n_mm = first["matmul_n"]
for m, k, n_cols, name in (
    (numpy_ops.GEMM_SKINNY_M, k_dim, k_dim, f"GEMM M={numpy_ops.GEMM_SKINNY_M}"),
    (numpy_ops.GEMM_WIDE_M, k_dim, k_dim, f"GEMM M={numpy_ops.GEMM_WIDE_M}"),
    (n_mm, n_mm, n_mm, "GEMM square"),
):
    counts = numpy_ops.gemm_fp32_counts(m, k, n_cols)
    nbytes = 4 * (m * k + k * n_cols + m * n_cols)
    gemm, square = make_gemm(m, k, n_cols), name == "GEMM square"
    measure(name, f"{m}x{k}x{n_cols}", gemm, counts, nbytes, blas_threads, twin=square)
    del gemm  # frees the matrices before the next ones are made
run.also("matmul", timed[-1][3])  # the square GEMM is the compute roof's own kernel

# %%
# The two roofs of this machine
# -----------------------------
# Every call of the two roof kernels in this run, the calibration's and those between the
# operations, went into the best call below.
calib = run.calibration(desc["cores"])
peak, beta = calib["matmul_flops_per_s"], calib["bandwidth_bytes_per_s"]
ridge = calib["ridge_point"]  # I* = P / beta
rows = []  # per operation: I = F/D, t_pred = max(F/P, D/beta), against the final roofs
for name, shape, counts, t, working_set, threads, threads_text, twin in timed:
    row = numpy_ops.roofline_row(name, *counts, t, peak, beta, working_set, shape=shape)
    row.update(threads=threads, threads_text=threads_text or str(threads))
    rows.append({**row, "same_as_calibration": twin})
# a note for the stream and each working set sized past the LLC that the budget kept near it
near = [("The bandwidth roof", calib["bandwidth_working_set_bytes"])]
swept = ("LayerNorm", "attention naive", f"GEMM M={numpy_ops.GEMM_SKINNY_M}")
near += [(r["name"], r["working_set_bytes"]) for r in rows if r["name"] in swept]
near_llc = tuple(filter(None, (budget.cache_note(n, ws, reported_llc) for n, ws in near)))
stamp = probe.measured_on(desc, llc_bytes)  # under every measured table: whose numbers
show(page.roofs(page.Roofs(calib, previous.calibration, blas_threads, near_llc), llc_bytes, stamp))
# %%
# The ledger: what each operation must do
# ---------------------------------------
# Before any timing, the counts alone sort the operations: an intensity :math:`I = F/D` below the
# ridge point :math:`I^{\ast}` means memory-bound.
show(page.ledger_table(rows, ridge))

# %%
# The prediction next to the measurement
# --------------------------------------
# The percentage is :math:`t_{\mathrm{pred}} / t_{\mathrm{meas}}`: the share of the roofline's
# speed the code reached. At 100% the operation ran exactly as fast as the slower of the two roofs
# allows; at 50% it took twice the bound. A point well above 100% is not a record but a sign that
# the ledger or the roofs are wrong for that run: the table prints "above roof" instead for
# anything more than 10% over, with a note on the likely reasons.
show(page.timing_table(rows, stamp, llc_bytes, calib["bandwidth_threads"]))

# %%
# Reading the table needs three more numbers: the bounds of attention's two phases on their own,
# the cost of the zero-fill pass, and the bytes a fused LayerNorm would move.
f_mm, d_mm = numpy_ops.attention_matmul_counts(seq, dh)
f_sm, d_sm = numpy_ops.attention_softmax_counts(seq)
phases = {  # measured time and roofline bound of each phase
    "matmuls": (t_att_mm, roofline.lower_bound_time(f_mm, d_mm, peak, beta)),
    "softmax": (t_att_sm, roofline.lower_bound_time(f_sm, d_sm, peak, beta))}  # fmt: skip
zero_fill_s = vec / beta  # one more write pass over a vector
fused_ln_bytes = 2 * 4 * ln_rows * ln_d  # read x once, write y once
show(page.operation_observations(page.Operations(rows, ridge, phases, zero_fill_s, fused_ln_bytes)))

# %%
# This machine's roofline
# -----------------------
# The same table as a picture: each operation sits at its intensity :math:`I` and its measured
# FLOP/s, under the roof :math:`\min(P,\ I \beta)`. With ``--png`` (the site passes it) the lecture
# draws it.
if args.png:
    points, _ = article.measured_points(rows)
    out = args.outdir / "01_machine_roofline.png"
    path = article.local_roofline_figure(out, peak, beta, points)
    show(display.figure(path, figures.roofline_caption(peak, beta, points)))

# %%
# Same FLOPs, different times
# ---------------------------
# FLOPs alone do not predict time. Take the add from the table and a small square matmul with
# (almost) the same FLOP count: the add must stream all its data through memory, the matmul reuses
# every element it loads many times.
f_add, d_add = numpy_ops.add_counts(n)
m_same = numpy_ops.same_flops_matmul_size(f_add)
f_same, d_same = numpy_ops.gemm_fp32_counts(m_same, m_same, m_same)
t_same = roofs.best_time(make_gemm(m_same, m_same, m_same), repeat=5, budget_s=budget_s)
t_add = rows[0]["t_meas_s"]  # the add timed above
same = {
    "matmul": dict(name=f"GEMM {m_same}^3", shape=f"{m_same}x{m_same}x{m_same}", flops=f_same),
    "elementwise": dict(name=f"add [{n}]", shape=f"[{n}]", flops=f_add)}  # fmt: skip
same["matmul"].update(bytes=d_same, t_meas_s=t_same)
same["elementwise"].update(bytes=d_add, t_meas_s=t_add)
show(page.same_flops(page.SameFlops(same["matmul"], same["elementwise"], peak, 3 * vec), stamp))

# %%
# Save the calibration
# --------------------
# Later lectures read this machine's roofs and the table above from the results file instead of
# measuring again. It is written atomically: a crash or Ctrl-C before this point leaves the
# previous file as it was.
attention_phases = {"matmuls_t_meas_s": t_att_mm, "matmuls_t_pred_s": phases["matmuls"][1]}
attention_phases |= {"softmax_t_meas_s": t_att_sm, "softmax_t_pred_s": phases["softmax"][1]}
payload = {
    "calibration": {k: v for k, v in calib.items() if not isinstance(v, dict)},
    "operations": rows,
    "attention_phases": attention_phases,
    "same_flops": {**same, "flop_ratio": f_add / f_same, "time_ratio": t_add / t_same},
    "mode": "quick" if args.quick else "full"}  # fmt: skip
saved = results.save_section("probe", payload, args.results, this_machine=desc)
show(display.Text(f"\nsaved results: {display_path(saved)}"))
