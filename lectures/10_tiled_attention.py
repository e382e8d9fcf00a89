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

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

import math
import time
from functools import partial

from common.files import results
from common.files.calibration import load_or_calibrate
from common.formulas import attention_io, hierarchy, numpy_ops
from common.formulas.ledger import attention_counts
from common.formulas.roofline import intensity, lower_bound_time, ridge_point
from common.formulas.thresholds import crossover
from common.formulas.transformer import layer_ops
from common.hw_specs import A100, CHIPS, H100, bytes_per_elem
from common.measure import attention, caches, machine, roofs
from common.measure import budget as measure_budget
from common.plots.style import log_range
from common.present import probe
from common.present.display import Text, show
from common.shell import cli
from common.tables.models import LLAMA_3_8B
from lectures.words import tiled_attention as page

ABOUT = {"budget": (20, 1.5), "terms": ("FlashAttention", "tiled attention")}


make_parser = partial(measure_budget.measuring_parser, __doc__, "10", "small sizes, short runs")
args = cli.parse_args(make_parser())  # bad paths, and --png without matplotlib, are said here
QUICK, plan = args.quick, measure_budget.from_args(args)  # plan: the memory and time to spend
TIME_BUDGET_S = 0.15 if QUICK else 0.6  # per sequence length, both kernels together
TIME_BUDGET_S *= measure_budget.time_scale(plan, "10")  # --time-limit against its default
lecture_start = time.perf_counter()

# sphinx_gallery_start_ignore
from common.plots import attention as attention_plots  # the figures (drawn with --png)
from common.present.display import figure
from common.shell.paths import display_path

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
extremes = {"naive: S and P in memory": naive_bytes, "ideal: Q, K, V and O once": ideal_bytes}

GPUS, kv_bytes = (A100, H100), 2 * BF16 * N * D_HEAD  # the two chips; K and V read once


def bound(flops: float, nbytes: float, chip: object) -> float:
    """max(F / P, D / beta) on a chip in bf16, seconds."""
    return lower_bound_time(flops, nbytes, chip.peak_flops("bf16"), chip.mem_bw)


def gpu(chip: object) -> page.Gpu:
    """A chip as Part 1 uses it: its name, bf16 ridge point and shared memory per SM."""
    return page.Gpu(chip.name, chip.ridge_point("bf16"), chip.smem_per_sm)


kernels = {  # name -> (D, I, its bound on each chip)
    name: (d, intensity(F, d), [bound(F, d, c) for c in GPUS]) for name, d in extremes.items()
}
both = page.Extremes(n=N, d_head=D_HEAD, flops=F, gpus=[gpu(c) for c in GPUS], kernels=kernels,
                     kv_bytes=kv_bytes)  # fmt: skip
show(*page.extremes(both))

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
plans = {}  # each chip's blocks, how often they read K and V, their traffic and bound; needed:
for chip in SM_CHIPS:  # the smallest M_sm whose blocks reach the chip's ridge point
    b = attention_io.block_sizes(N, D_HEAD, chip.smem_per_sm, BF16)
    d = attention_io.tiled_traffic(N, D_HEAD, b.rows, b.cols, BF16)
    needed = attention_io.smallest_on_chip_for(N, D_HEAD, chip.ridge_point("bf16"), BF16)
    plans[chip.key] = page.Plan(gpu=gpu(chip), blocks=b, query_blocks=math.ceil(N / b.rows),
                                reads=attention_io.kv_reads(N, b.rows, b.cols), traffic=d,
                                intensity=intensity(F, d), seconds=bound(F, d, chip),
                                needed=needed)  # fmt: skip

plan_all = page.Schedule(n=N, d_head=D_HEAD, plans=list(plans.values()),
                         named=[plans[H100.key], plans[A100.key]], naive_bytes=naive_bytes,
                         ideal_bytes=ideal_bytes)  # fmt: skip
show(*page.schedule(plan_all))

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
landmarks = {"one row of each block": least, "no more than naive": as_naive}
landmarks |= {f"{c.name} ridge": m for c in GPUS if (m := plans[c.key].needed)}  # reachable ones
landmarks["K and V whole"] = resident
marks = []  # (name, M_sm, blocks, D, I) at each landmark
for name, m in landmarks.items():
    d = attention_io.tiled_counts(N, D_HEAD, m, BF16)[1]  # the traffic of the rule's blocks
    marks.append((name, m, attention_io.block_sizes(N, D_HEAD, m, BF16), d, intensity(F, d)))
lo, hi = (attention_io.tiled_counts(N, D_HEAD, m, BF16)[1] for m in (16 * 1024, 128 * 1024))
slope = math.log(hi / lo) / math.log(128 / 16)  # of log D against log M_sm

# sphinx_gallery_start_ignore
same_sm = sorted({c.smem_per_sm for c in SM_CHIPS})
drawn = args.png and attention_plots.traffic_figure(
    args.outdir / "10_traffic_vs_on_chip_memory.png", m_grid, curve, naive_bytes, ideal_bytes, F,
    [(" / ".join(c.name for c in SM_CHIPS if c.smem_per_sm == m), m) for m in same_sm],
    [(c.name, c.ridge_point("bf16"), plans[c.key].needed) for c in GPUS],
    f"One head, N = {N:,}, d_h = {D_HEAD}, bf16: FlashAttention-2's loops")  # fmt: skip
# sphinx_gallery_end_ignore
traffic = page.Traffic(landmarks=marks, least=least, least_bytes=curve[0], as_naive=as_naive,
                       slope=slope, resident=resident, lowest=min(curve), naive_bytes=naive_bytes,
                       ideal_bytes=ideal_bytes, kv_bytes=kv_bytes)  # fmt: skip
table, caption, notes = page.traffic(traffic)
show(table, figure(drawn, caption) if drawn else None, notes)

# %%
# 4. Longer sequences: one head, then a whole layer
# -------------------------------------------------
#
# Keep the H100 and its shared memory and let :math:`N` grow from 512 to
# 131,072 tokens. Both kernels' traffic grows as :math:`N^2`: the naive one
# writes and reads :math:`4 N^2` elements, the tiled one rereads K and V
# :math:`T_r \approx N / B_r` times, :math:`2 N^2 d_h / B_r` elements. Only the
# ideal minimum grows linearly.

SEQS = [512 * 2**k for k in range(9)]  # 512 ... 131,072 tokens
MODEL, BATCH = LLAMA_3_8B, 1
per_head, heads_at = {}, {}  # N -> (F, D naive, D tiled); N -> one head's D, I and bound
for n in SEQS:
    f, dn = attention_counts(n, D_HEAD, BF16)
    dt = attention_io.tiled_counts(n, D_HEAD, H100.smem_per_sm, BF16)[1]
    di = attention_counts(n, D_HEAD, BF16, materialized=False)[1]
    per_head[n] = (f, dn, dt)
    heads_at[n] = page.Head(naive=dn, tiled=dt, ideal=di, i_naive=intensity(f, dn),
                            i_tiled=intensity(f, dt), t_naive=bound(f, dn, H100),
                            t_tiled=bound(f, dt, H100))  # fmt: skip

# %%
# A whole layer puts attention beside everything else the layer does: the
# projections, the MLP, the norms. Those grow linearly with the number of
# tokens and attention quadratically, so past some length attention takes over.
# The layer is one of Llama-3-8B (32 query heads of 128) for one sequence, in
# bf16. Each query head is counted as its own head (a kernel that shares K and
# V between the query heads of a group reads less), and there is no causal
# mask, as in the article's ledger (a mask halves the FLOPs and the rereads
# alike). Each operator gets its own bound :math:`\max(F/P, D/\beta)`, summed
# over the layer.

heads, layer = BATCH * MODEL.n_heads, {}  # layer: N -> [rest, naive, tiled attention] in s
for n, (f, dn, dt) in per_head.items():
    # the layer's other operators for BATCH x n tokens (they see only that count)
    ops = [o for o in layer_ops(MODEL, BATCH * n, new_tokens=1, context=1) if o.kind != "attention"]
    rest = sum(bound(o.flops, o.nbytes, H100) for o in ops)
    layer[n] = [rest, *(bound(heads * f, heads * d, H100) for d in (dn, dt))]
takes_over = {kind: crossover(SEQS, [t[k] / t[0] for t in layer.values()], 1.0)
              for k, kind in ((1, "naive"), (2, "tiled"))}  # fmt: skip

longer = page.Lengths(gpu=gpu(H100), d_head=D_HEAD, heads=heads_at, model=MODEL.name, batch=BATCH,
                      layer=layer, takes_over=takes_over)  # fmt: skip
show(*page.lengths(longer))

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

CASES = [(257, 64, 31, 47), (1000, 128, 333, 128), (777, 32, 777, 100), (300, 16, 300, 300),
         (96, 128, 1, 1)]  # fmt: skip
TOLERANCE, errors = 1e-4, {}
with roofs.blas_threads(1):
    for n, d, br, bc in CASES:
        q, k, v = attention.random_qkv(n, d, seed=n)
        reference = attention.make_naive(q, k, v)()
        tiled = attention.make_tiled(q, k, v, br, bc)()
        errors[(n, d, br, bc)] = attention.relative_error(tiled, reference)

cases = [(*c, attention.block_count(c[0], *c[2:]), e) for c, e in errors.items()]  # with steps
show(*page.agreement(cases, TOLERANCE))

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
reported_llc = caches.last_level_cache_bytes(cache_list)  # None when the OS reports none
llc = reported_llc or hierarchy.ASSUMED_LLC_BYTES
calibration, calibration_source = load_or_calibrate(args.results)
beta = calibration["bandwidth_bytes_per_s"]
saved_peak_1 = calibration.get("matmul_one_thread_flops_per_s", 0.0)
budget = 0.1 if QUICK else 0.3
fresh = roofs.measure_matmul(1024, repeat=3, budget_s=budget, threads=1)
peak_1 = max(saved_peak_1, fresh["flops_per_s"])
with roofs.blas_threads(1):
    step_s = attention.fixed_cost_per_block(budget / 2)
exp_s = attention.exp_seconds_per_element(512, 128)  # one exponential, in cache

ridge_1 = ridge_point(peak_1, beta)
naive_i = intensity(*numpy_ops.attention_naive_counts(N, D_HEAD))

# sphinx_gallery_start_ignore
found = [(name, size, cache_source) for name, size in levels.items()]
assumed = [("L2 (assumed)", l2, "not reported"), ("LLC (assumed)", llc, "-")]
here = page.Machine(caches=found or assumed, beta=beta,
                    all_threads=calibration["matmul_flops_per_s"], saved_peak=saved_peak_1,
                    fresh_peak=fresh["flops_per_s"], peak=peak_1, ridge=ridge_1,
                    naive_intensity=naive_i, step_s=step_s, calls=attention.CALLS_PER_BLOCK,
                    exp_s=exp_s, source=calibration_source)  # fmt: skip
built = probe.built_here(machine.describe(), reported_llc, "10_tiled_attention.py")
# sphinx_gallery_end_ignore
show(built, *page.machine(here))  # the caches, the roofs and the notes on them

# %%
# 7. Block sizes from this machine's caches
# -----------------------------------------
#
# The same footprint rule picks the blocks, now with :math:`b = 4` (fp32) and
# a cache size as :math:`M_{sm}`: the L1 data cache, half the L2 (lecture 09's
# margin for "comfortably inside"), the whole L2, and half the last-level cache.
# Every kernel runs at the same :math:`N`, timed in alternating rounds.

BLOCK_N = 1024 if QUICK else 2048
budgets = {"L1 data": levels.get("L1"), "L2 / 2": l2 / 2, "L2": l2, "LLC / 2": llc / 2}
q, k, v = attention.random_qkv(BLOCK_N, D_HEAD)
sized, kernels = {}, {"naive": attention.make_naive(q, k, v)}
for name, m in budgets.items():
    if m:  # a cache the operating system did not report is left out
        b = sized[name] = attention_io.block_sizes(BLOCK_N, D_HEAD, m, FP32)
        kernels[name] = attention.make_tiled(q, k, v, b.rows, b.cols)
with roofs.blas_threads(1):
    block_times = attention.best_times(kernels, 2 * TIME_BUDGET_S, warmup=0)
del kernels, q, k, v

# %%
# The model's traffic counts what crosses into the block store; the speed table's
# last column is the share of the time that the inner steps' fixed costs explain.

rows = [  # each cache-sized choice: its blocks, steps, reads, traffic, bytes touched and time
    page.Sized(name=name, m_sm=budgets[name], blocks=b, seconds=block_times[name],
               steps=attention.block_count(BLOCK_N, b.rows, b.cols),
               reads=attention_io.kv_reads(BLOCK_N, b.rows, b.cols),
               traffic=attention.tiled_counts(BLOCK_N, D_HEAD, b.rows, b.cols)[1],
               touched=attention.tiled_cache_bytes(D_HEAD, b.rows, b.cols))
    for name, b in sized.items()]  # fmt: skip
block_f, naive_d = numpy_ops.attention_naive_counts(BLOCK_N, D_HEAD)
naive_row = (naive_d, attention.naive_memory_bytes(BLOCK_N, D_HEAD), block_times["naive"])
blocked = page.BlockSizes(n=BLOCK_N, d_head=D_HEAD, flops=block_f, naive=naive_row, peak=peak_1,
                          sized=rows, step_s=step_s)  # fmt: skip
size_table, table, notes = page.block_sizes(blocked)
stamp = probe.measured_on(machine.describe(), reported_llc)  # whose numbers, and when
show(size_table, table, stamp, notes)

# %%
# 8. Both kernels against the sequence length
# -------------------------------------------
#
# Now both kernels run at growing :math:`N`, the tiled one with the blocks of
# half the L2. The largest :math:`N` is the smallest multiple of 512 whose
# score matrix is at least twice the last-level cache, so that the naive
# kernel's passes over :math:`S` must go to DRAM, as far as the run's memory
# and time budgets allow (``--memory-limit``, ``--time-limit``). Each kernel's
# bytes are counted as lecture 01 counts its passes: the naive one moves
# :math:`4 (10 N^2 + 4 N d_h)` bytes, the tiled one the IO model's
# :math:`4 N d_h (2 + 2R)`.

n_llc = measure_budget.attention_longest(reported_llc, plan, peak_1, beta, D_HEAD)
N_LIST = (
    [256, 512, 1024] if QUICK else sorted({n for n in (1024, 2048, 4096) if n < n_llc} | {n_llc})
)
measured = {}
with roofs.blas_threads(1):
    for n in N_LIST:
        q, k, v = attention.random_qkv(n, D_HEAD)
        b = attention_io.block_sizes(n, D_HEAD, l2 / 2, FP32)
        kernels = {"naive": attention.make_naive(q, k, v)}
        kernels["tiled"] = attention.make_tiled(q, k, v, b.rows, b.cols)
        measured[n] = (b, attention.best_times(kernels, TIME_BUDGET_S, warmup=0))
        del kernels, q, k, v

# %%
# Each kernel's bound uses the one-thread roofs above, at the longest :math:`N`;
# the memory each one allocates beside Q, K and V is counted out to a long context.

counts = {n: {"naive": numpy_ops.attention_naive_counts(n, D_HEAD),
              "tiled": attention.tiled_counts(n, D_HEAD, b.rows, b.cols)}
          for n, (b, _) in measured.items()}  # fmt: skip
top, (b_top, t_top) = N_LIST[-1], measured[N_LIST[-1]]
placed = {kind: numpy_ops.roofline_row(kind, *counts[top][kind], t_top[kind], peak_1, beta, 0.0)
          for kind in page.KINDS}  # fmt: skip


def memory_of(n: int, b: object) -> dict[str, float]:
    """Bytes each kernel allocates beside Q, K and V at length n."""
    tiled = attention.tiled_memory_bytes(n, D_HEAD, b.rows, b.cols)
    return {"naive": attention.naive_memory_bytes(n, D_HEAD), "tiled": tiled}


runs = {n: page.Run(b, t, FP32 * n * n / llc, memory_of(n, b)) for n, (b, t) in measured.items()}
FAR = 131072  # a long context, for the memory each kernel needs

steps_top = attention.block_count(top, b_top.rows, b_top.cols)
timed = page.Kernels(d_head=D_HEAD, runs=runs, placed=placed, ridge=ridge_1, peak=peak_1, beta=beta,
                     compute_bound=naive_i >= ridge_1, steps=steps_top, step_s=step_s, exp_s=exp_s,
                     far=FAR, far_memory=memory_of(FAR, b_top))  # fmt: skip
# sphinx_gallery_start_ignore
drawn = args.png and attention_plots.kernel_times_figure(
    args.outdir / "10_kernel_times.png", N_LIST,
    *([measured[n][1][kind] for n in N_LIST] for kind in page.KINDS),
    [counts[n]["naive"][0] / peak_1 for n in N_LIST],
    *([counts[n][kind][1] / beta for n in N_LIST] for kind in page.KINDS),
    math.sqrt(llc / FP32),
    f"Both kernels on this machine (blocks from half the L2, d_h = {D_HEAD})",
    "sequence length N (fp32, one thread)")  # fmt: skip
# sphinx_gallery_end_ignore

times_table, score_table, roof_table, notes, caption = page.kernels(timed)
reach = measure_budget.cache_note(f"N = {top:,}", FP32 * top**2, llc)  # S kept near the cache?
reach_line = [Text(f"note: {reach}, so no length here shows S in DRAM")] if reach else []
shown = figure(drawn, caption) if drawn else None
show(times_table, score_table, roof_table, stamp, *reach_line, shown, notes)

# %%
# The times and their byte counts go into the results file's ``attention``
# section, beside lecture 01's ``probe``, so nothing measured here is lost.

# sphinx_gallery_start_ignore
payload = {
    "quick": QUICK, "head_dim": D_HEAD, "threads": 1,
    "roofs": {"bandwidth_bytes_per_s": beta, "matmul_flops_per_s": peak_1},
    "roofs_source": calibration_source, "fixed_cost_per_step_s": step_s, "block_n": BLOCK_N,
    "blocks": [{"from": name, "m_sm_bytes": budgets[name], "rows": b.rows, "cols": b.cols}
               | {"seconds": block_times[name]} for name, b in sized.items()],
    "naive_seconds_at_block_n": block_times["naive"],
    "sequence": [{"n": n, "rows": b.rows, "cols": b.cols}
                 | {f"{kind}_seconds": t[kind] for kind in page.KINDS}
                 | {f"{kind}_bytes": counts[n][kind][1] for kind in page.KINDS}
                 for n, (b, t) in measured.items()],
}  # fmt: skip
# sphinx_gallery_end_ignore
payload["lecture_seconds"] = time.perf_counter() - lecture_start
written = results.save_section("attention", payload, args.results)
saved = f"saved results: {display_path(written)} (section 'attention')"
show(Text(f"{saved}; the lecture took {payload['lecture_seconds']:.1f} s"))

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
