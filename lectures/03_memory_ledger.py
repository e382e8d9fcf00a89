r"""
The memory ledger and the batch sweep
=====================================

How many requests fit on one card, and how large should the batch be? The first
question is the capacity ledger: weights + KV cache + activations + overhead,
summed against the memory budget. The second is the speed ledger seen from the
batch axis: one weight matrix, read once per call, serves more tokens as the
batch grows. We compute the first for a 7B model and measure the second on this
machine.

The ledger is pure arithmetic. The sweep times one fixed fp32 weight matrix
multiplied by a batch of B token vectors, for B = 1, 2, 4, ..., 256, in at most
about 5 seconds, and saves its rows to the results file (section
``batch_sweep``) so that ``04_make_figures.py`` can draw them.

Run it::

    python3 lectures/03_memory_ledger.py
    python3 lectures/03_memory_ledger.py --budget-gib 70     # another memory budget
    python3 lectures/03_memory_ledger.py --results FILE      # another results file
    python3 lectures/03_memory_ledger.py --png               # also draw the two figures
    python3 lectures/03_memory_ledger.py --memory-limit 1    # measure within 1 GiB of RAM

The sweep's roofline prediction uses lecture 01's calibration from the results
file; without it, a quick calibration (about a second) is measured instead.
"""

from __future__ import annotations

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

import time
from functools import partial

from common.files import results
from common.files.calibration import load_or_calibrate
from common.formulas import ledger, roofline, thresholds
from common.formulas.roofline import bound_of, intensity, lower_bound_time, matmul_counts
from common.hw_specs import bytes_per_elem
from common.measure import budget, caches, machine, roofs, timing
from common.plots import article
from common.present import console, display, figures, probe
from common.present.display import show
from common.shell import cli
from common.shell.paths import display_path
from common.tables import assumptions
from common.tables.units import GIB
from lectures.words import memory_ledger as page

ABOUT = {"budget": (20, 1.5), "terms": ("batch sweep",)}


def make_parser() -> cli.LectureParser:
    """The command line: --budget-gib, --results, --png, --outdir, the measuring budget."""
    parser = cli.lecture_parser(__doc__)
    cli.add_budget_flag(parser)
    cli.add_results_flag(parser, saves=True)
    cli.add_png_flags(parser)
    return budget.add_flags(parser, "03")


args = cli.parse_args(make_parser())
BUDGET = args.budget_gib * GIB
PLAN = budget.from_args(args)  # the memory and time the sweep may spend on this machine

# %%
# The model and the price of one token
# ------------------------------------
#
# The ledger's inputs are the teaching model of :ref:`the article <sources>`: 7e9 parameters in
# fp16, 32 layers, a KV width :math:`d_{kv} = 4096` per layer (32 KV heads of 128), sequences of
# 4096 tokens, and about 128 KiB of live activations per token during prefill (a rule of thumb for
# :math:`d_{model} = 4096`; real engines differ a lot). Each token stores one K and one V vector in
# every layer: :math:`2 \cdot L \cdot d_{kv} \cdot b` bytes.

model = assumptions.ARTICLE_7B
weights_bytes = model.n_params * model.weight_bytes
kv_per_token = ledger.kv_bytes_per_token(model.n_layers, model.d_kv, model.kv_bytes)
kv_per_sequence = kv_per_token * model.seq
show(page.model_facts(model, weights_bytes, kv_per_token, kv_per_sequence, BUDGET))

# %%
# The four-term ledger
# --------------------
#
# Does a batch fit? For unchunked prefill of :math:`B` sequences of :math:`S` tokens, the memory is
# the sum of four terms,
#
# .. math::
#
#    M = N_{params} b_w + 2 B S L d_{kv} b + B S a + \rho \cdot (\text{sum of the first three})
#
# with the overhead rate :math:`\rho` set to the article's assumption of 30% (allocator slack,
# fragmentation, workspaces; an assumed rate, not a measured one). ``model_ledger`` computes the
# four terms for one batch size.

BATCHES = assumptions.ARTICLE_BATCHES
RATE = assumptions.ARTICLE_OVERHEAD_RATE
at = {b: ledger.model_ledger(model, b, RATE) for b in BATCHES}
show(page.ledger_table(at, BUDGET, RATE), page.ledger_observations(at, BUDGET, kv_per_sequence))

# %%
# Cutting the overhead to 4%
# --------------------------
#
# Suppose a better allocator (paged KV blocks, for instance) cut the overhead rate from 30% to 4%.
# This is a teaching assumption, not a measured PagedAttention result: a real gain applies to the
# KV allocation only and must be measured.

LOW = assumptions.LOW_OVERHEAD_RATE
low = {b: ledger.model_ledger(model, b, LOW) for b in BATCHES}
show(page.overhead(at, low, BUDGET, RATE, LOW))

# %%
# The ledger as a picture
# -----------------------
#
# With ``--png`` (the site passes it) the two tables above become one figure: the four terms
# stacked at 30% overhead, and the totals at both rates.

if args.png:
    out = args.outdir / "03_memory_ledger.png"
    title = f"Memory ledger of a {model.name} model"
    path = article.memory_ledger_figure(out, model, BATCHES, RATE, LOW, BUDGET, title)
    show(display.figure(path, figures.ledger_caption(model, BATCHES, RATE, LOW, BUDGET)))

# %%
# The largest batch that fits
# ---------------------------
#
# The tables sample six batch sizes, so the largest one that fits is not necessarily among them.
# ``largest_batch_that_fits`` searches every integer batch size for the last one whose total stays
# within the budget.


def largest_of(rate: float, phase: str = "prefill") -> page.Largest:
    """The largest batch that fits, its total and the total of one more sequence."""
    at_batch = partial(ledger.model_ledger, model, overhead_rate=rate, phase=phase)  # of B alone
    best = ledger.largest_batch_that_fits(BUDGET, at_batch)
    total = at_batch(best).total if best else None
    return page.Largest(rate=rate, batch=best, total=total, one_more=at_batch(best + 1).total)


largest = [largest_of(r) for r in (RATE, LOW)]
show(page.largest(largest, at, BUDGET))

# %%
# Decode keeps fewer activations alive
# ------------------------------------
#
# The ledger above is for unchunked prefill, where all :math:`B S` tokens pass through a layer
# together. In token-by-token decode only :math:`B` tokens are active, so the activation term
# becomes :math:`B a` instead of :math:`B S a`. The KV cache still holds all :math:`B S` tokens.

decode = {b: ledger.model_ledger(model, b, RATE, "decode") for b in BATCHES}
show(page.decode(at, decode, BUDGET, [largest_of(r, "decode") for r in (RATE, LOW)], largest))

# %%
# Measuring a batch sweep
# -----------------------
#
# Now the speed side: how large is a batch worth making? One fp32 weight matrix :math:`W[K, K]`
# multiplies a batch of :math:`B` token vectors, :math:`Y = X W`. The roofline model counts
# :math:`F = 2 B K^2` and :math:`D = 4 (K^2 + 2 B K)` bytes: the weights once, X read, Y written.
# Small batches are memory-bound (all of W moves for a few tokens); as :math:`B` grows each weight
# byte serves more tokens and the intensity rises past the ridge point.
#
# The matrix is the article's :math:`4096 \times 4096` (64 MiB), shrunk only if even one call per
# batch size would overrun the time budget. The weights must come from main memory, not from the
# last-level cache: where the cache could hold W, the sweep rotates through copies of it, so that
# between two reads of one copy the others stream several times the cache's size through it (the
# facts below give the bytes, or say where the memory budget allows fewer copies).

import numpy as np  # only the sweep needs numpy

SWEEP_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# timed calls stop here (4 s for the default --time-limit 20); with allocation and warm-up, about a
# quarter of the run's budget
SWEEP_BUDGET_S = 4.0 * budget.time_scale(PLAN, "03")
MAX_REPEATS = 9
FP32 = int(bytes_per_elem("fp32"))

calib, calib_note = load_or_calibrate(args.results)
P, BETA = float(calib["matmul_flops_per_s"]), float(calib["bandwidth_bytes_per_s"])
RIDGE = roofline.ridge_point(P, BETA)

K = budget.sweep_weight_dim(SWEEP_BATCHES, P, BETA, SWEEP_BUDGET_S)  # 4096, or less if slow
W_BYTES = FP32 * K**2
LLC = caches.last_level_cache_bytes()
io_bytes = 2 * FP32 * SWEEP_BATCHES[-1] * K  # X and Y of the largest batch
COPIES = budget.weight_copies(W_BYTES, LLC, PLAN.arrays_bytes - io_bytes)
BETWEEN = budget.streamed_between_bytes(W_BYTES, COPIES)  # bytes read between two reads of a W
cache_note = budget.cache_note("The sweep", BETWEEN, LLC)
setup = page.Setup(source=calib_note, peak=P, beta=BETA, ridge=RIDGE, width=K, weight_bytes=W_BYTES,
                   llc_bytes=LLC, copies=COPIES, cache_note=cache_note)  # fmt: skip
show(page.sweep_facts(setup), probe.built_here(machine.describe(), LLC, "03_memory_ledger.py"))

# %%
# Each batch size is timed several times and the fastest call kept; the repeats share a fixed time
# budget, one equal share per batch size still to go.

t_sweep = time.perf_counter()
deadline = t_sweep + SWEEP_BUDGET_S
rng = np.random.default_rng(0)
W = rng.standard_normal((K, K), dtype=np.float32)
weights = [W] + [W.copy() for _ in range(COPIES - 1)]  # equal copies, read in turn
latencies = []
for i, B in enumerate(SWEEP_BATCHES):
    console.progress(f"timing batch {B} ({i + 1}/{len(SWEEP_BATCHES)})")
    X = rng.standard_normal((B, K), dtype=np.float32)
    Y = np.empty((B, K), dtype=np.float32)
    share = (deadline - time.perf_counter()) / (len(SWEEP_BATCHES) - i)  # its time
    # One warm-up call (first touch of Y, BLAS buffers), then the fastest timed call.
    call = timing.rotating(np.matmul, X, weights, Y)  # W copies in turn
    latencies.append(min(timing.time_samples(call, 1, 1, share, max_repeat=MAX_REPEATS)))
console.progress_done()
sweep_seconds = time.perf_counter() - t_sweep
del weights, W

# %%
# A roof that a measured point rises above is no roof. Lecture 01 measured its bandwidth on one
# thread; BLAS reads W on all its threads, and a quieter moment may give a faster matmul than the
# calibration saw. Where the sweep itself ran faster than a roof, the roof is raised to that rate,
# and the line below says so.
counts = {b: matmul_counts(b, K, K, FP32, FP32, FP32) for b in SWEEP_BATCHES}  # F, D
measured = [(*counts[b], t) for b, t in zip(SWEEP_BATCHES, latencies, strict=True)]
P_CALIB, BETA_CALIB = P, BETA
P, BETA = roofs.raised_roofs(P, BETA, measured)
RIDGE = roofline.ridge_point(P, BETA)
show(page.raised_line(P_CALIB, BETA_CALIB, P, BETA))

# %%
# What the sweep shows
# --------------------
#
# Each row puts the model (F, D, I, the bound and the predicted time :math:`\max(F/P, D/\beta)`
# from the calibration) beside the measurement (the fastest call, and the throughput :math:`B / T`
# in tokens per second). A roofline predicts two things for this sweep: latency never falls as
# :math:`B` grows, and throughput never falls either, since :math:`F` grows in proportion to
# :math:`B` and :math:`D` more slowly. A measured point that breaks either rule by more than the
# timing tolerance is flagged with ``!``: the model cannot explain it.

anomalies = ledger.sweep_anomalies(SWEEP_BATCHES, latencies)
notes: dict[int, list[str]] = {}
for a in anomalies:
    broken = "throughput below" if a.kind == "throughput_drop" else "slower than"
    notes.setdefault(a.batch, []).append(f"{broken} B={a.other}")
sweep_rows = []
for B, latency in zip(SWEEP_BATCHES, latencies, strict=True):
    flops, nbytes = counts[B]
    i, anomaly = intensity(flops, nbytes), "; ".join(notes[B]) if B in notes else None
    row = dict(B=B, flops=flops, bytes=nbytes, intensity=i, bound=bound_of(i, RIDGE))
    row |= dict(latency_s=latency, throughput_per_s=B / latency, anomaly=anomaly)
    sweep_rows.append(row | {"t_pred_s": lower_bound_time(flops, nbytes, P, BETA)})
cross = thresholds.crossover(SWEEP_BATCHES, [r["intensity"] for r in sweep_rows], RIDGE)
sweep = page.Sweep(rows=sweep_rows, crossing=cross, ridge=RIDGE, anomalies=anomalies, calib=calib,
                   weight_bytes=W_BYTES, seconds=sweep_seconds)  # fmt: skip
show(page.sweep_table(sweep), probe.measured_on(machine.describe(), LLC))

# %%
# The rows are saved for lecture 04, which draws them; with ``--png`` this lecture draws them too.

calibration = dict(bandwidth_bytes_per_s=BETA, matmul_flops_per_s=P, ridge_point=RIDGE)
calibration_measured = dict(bandwidth_bytes_per_s=BETA_CALIB, matmul_flops_per_s=P_CALIB)
payload = {"weight_shape": [K, K], "weight_bytes": W_BYTES, "dtype": "float32", "rows": sweep_rows}
payload |= {"calibration": calibration, "calibration_measured": calibration_measured}
payload |= {"weight_copies": COPIES, "streamed_between_reads_bytes": BETWEEN, "llc_bytes": LLC}
payload |= {"calibration_source": calib_note, "crossing": cross and cross._asdict()}
payload |= {"anomaly_tolerance": ledger.ANOMALY_TOLERANCE, "sweep_seconds": sweep_seconds}
saved = results.save_section("batch_sweep", payload, args.results)
show(display.Text(f"saved results: {display_path(saved)}"))

# %%
# What the sweep says
# -------------------
#
# With ``--png`` the sweep is drawn as in lecture 04: latency and throughput against :math:`B`,
# measured and predicted.

shown = []
if args.png:
    crossing = None if cross is None else (cross.before, cross.first)
    title = f"Batch sweep, W[{K}, {K}] fp32"
    out = args.outdir / "03_batch_sweep.png"
    path = article.batch_sweep_figure(out, sweep_rows, crossing, title)
    shown.append(display.figure(path, figures.sweep_caption(sweep_rows, crossing)))
show(*shown, page.sweep_observations(sweep))
