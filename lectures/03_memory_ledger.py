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

The sweep's roofline prediction uses lecture 01's calibration from the results
file; without it, a quick calibration (about a second) is measured instead.
"""

from __future__ import annotations

# sphinx_gallery_start_ignore
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))))
from common.present import boot  # one-line errors, quiet Ctrl-C and closed pipes, before numpy

boot.start()
# sphinx_gallery_end_ignore

import time

from common.files import results
from common.files.paths import display_path
from common.formulas import ledger, thresholds
from common.formulas.roofline import bound_of, intensity, lower_bound_time, matmul_counts
from common.hw_specs import bytes_per_elem
from common.measure import caches, roofs, timing
from common.present import cli, console
from common.present.console import (
    fmt_bytes,
    fmt_time,
    print_header,
    print_observations,
    print_table,
)
from common.tables import assumptions
from common.tables.units import GIB, KIB, MIB

parser = cli.lecture_parser(__doc__)
cli.add_budget_flag(parser)
cli.add_results_flag(parser, saves=True)
args = cli.parse_args(parser)
BUDGET = args.budget_gib * GIB

# %%
# The model and the price of one token
# ------------------------------------
#
# The ledger's inputs are the article's teaching model: 7e9 parameters in fp16,
# 32 layers, a KV width :math:`d_{kv} = 4096` per layer (32 KV heads of 128),
# sequences of 4096 tokens, and about 128 KiB of live activations per token
# during prefill (a rule of thumb for :math:`d_{model} = 4096`; real engines
# differ a lot). Each token stores one K and one V vector in every layer:
# :math:`2 \cdot L \cdot d_{kv} \cdot b` bytes.

model = assumptions.ARTICLE_7B
weights_bytes = model.n_params * model.weight_bytes
kv_per_token = ledger.kv_bytes_per_token(model.n_layers, model.d_kv, model.kv_bytes)
kv_per_sequence = kv_per_token * model.seq

print_header("The 7B model")
print(
    f"model: {model.n_params / 1e9:g}B parameters x {model.weight_bytes:g} bytes = "
    f"{weights_bytes / GIB:.1f} GiB of weights; {model.n_layers} layers, d_kv = {model.d_kv}"
)
print(
    f"KV cache: {kv_per_token / KIB:.0f} KiB per token; "
    f"{kv_per_sequence / GIB:.2f} GiB per {model.seq}-token sequence"
)
print(f"activations: {model.act_bytes_per_token / KIB:.0f} KiB per active token")
print(f"memory budget: {args.budget_gib:g} GiB")

# %%
# The four-term ledger
# --------------------
#
# For unchunked prefill of :math:`B` sequences of :math:`S` tokens,
#
# .. math::
#
#    M = N_{params} b_w + 2 B S L d_{kv} b + B S a + \rho \cdot (\text{sum of the first three})
#
# with the overhead rate :math:`\rho` set to the article's assumption of 30%
# (allocator slack, fragmentation, workspaces; an assumed rate, not a measured one).


def ledger_rows(rate: float, phase: str = "prefill") -> list[list[str]]:
    """One table row per batch size: the four terms, the total and the verdict."""
    out = []
    for b in assumptions.ARTICLE_BATCHES:
        m = ledger.model_ledger(model, b, rate, phase)
        out.append(
            [
                b,
                f"{m.weights / GIB:.1f}",
                f"{m.kv_cache / GIB:.2f}",
                f"{m.activations / GIB:.2f}",
                f"{m.overhead / GIB:.2f}",
                f"{m.total / GIB:.2f}",
                "fits" if m.fits(BUDGET) else "OOM",
            ]
        )
    return out


LEDGER_HEADERS = ["batch", "weights", "KV cache", "activations", "overhead", "total"]
RATE = assumptions.ARTICLE_OVERHEAD_RATE
print_header(f"Prefill ledger in GiB, overhead {RATE:.0%}, budget {args.budget_gib:g} GiB")
print_table([*LEDGER_HEADERS, f"{args.budget_gib:g} GiB?"], ledger_rows(RATE))

at = {b: ledger.model_ledger(model, b, RATE) for b in assumptions.ARTICLE_BATCHES}
fitting = [b for b, m in at.items() if m.fits(BUDGET)]
failing = [b for b, m in at.items() if not m.fits(BUDGET)]
m16 = ledger.model_ledger(model, 16, RATE)
kv_over_weights = m16.kv_cache / m16.weights
verdict = (
    f"Batches {', '.join(map(str, fitting))} fit; {', '.join(map(str, failing))} run out of memory."
    if fitting and failing
    else ("Every batch in the table fits." if fitting else "No batch in the table fits.")
)
print_observations(
    [
        f"The weights cost {at[1].weights / GIB:.1f} GiB at every batch size. The KV cache grows "
        f"by {kv_per_sequence / GIB:.2f} GiB per sequence: at batch 16 it holds "
        f"{m16.kv_cache / GIB:.2f} GiB, {kv_over_weights:.1f}x the weights.",
        f"{verdict} 'The weights fit, so it runs' checks one term of four.",
    ]
)

# %%
# Cutting the overhead to 4%
# --------------------------
#
# Suppose a better allocator (paged KV blocks, for instance) cut the overhead
# rate from 30% to 4%. This is a teaching assumption, not a measured PagedAttention
# result: a real gain applies to the KV allocation only and must be measured.

LOW = assumptions.LOW_OVERHEAD_RATE
compare = []
for b in assumptions.ARTICLE_BATCHES:
    hi_m, lo_m = ledger.model_ledger(model, b, RATE), ledger.model_ledger(model, b, LOW)
    change = "OOM -> fits" if not hi_m.fits(BUDGET) and lo_m.fits(BUDGET) else ""
    compare.append(
        [
            b,
            f"{hi_m.total / GIB:.2f}",
            "fits" if hi_m.fits(BUDGET) else "OOM",
            f"{lo_m.total / GIB:.2f}",
            "fits" if lo_m.fits(BUDGET) else "OOM",
            change,
        ]
    )
print_header(f"Overhead {RATE:.0%} vs {LOW:.0%}, budget {args.budget_gib:g} GiB")
print_table(
    [
        "batch",
        f"total at {RATE:.0%} (GiB)",
        "verdict",
        f"total at {LOW:.0%} (GiB)",
        "verdict",
        "change",
    ],
    compare,
)
rescued = [row[0] for row in compare if row[-1]]
if rescued:
    b = rescued[0]
    rescued_note = (
        f"At batch {b} the total drops from {ledger.model_ledger(model, b, RATE).total / GIB:.2f} "
        f"to {ledger.model_ledger(model, b, LOW).total / GIB:.2f} GiB: same card, same model, "
        "and one more row of the table fits."
    )
else:
    rescued_note = "No batch size in the table changes its verdict under this budget."
print_observations([rescued_note])

# %%
# The largest batch that fits
# ---------------------------
#
# The tables sample six batch sizes, so the largest one that fits is not
# necessarily among them. ``largest_batch_that_fits`` searches every integer
# batch size for the last one whose total stays within the budget.

largest = {}
for rate in (RATE, LOW):
    best = ledger.largest_batch_that_fits(
        BUDGET, lambda b, r=rate: ledger.model_ledger(model, b, r)
    )
    largest[rate] = best
print_header(f"Largest prefill batch within {args.budget_gib:g} GiB")
rows = []
for rate, best in largest.items():
    fits_total = f"{ledger.model_ledger(model, best, rate).total / GIB:.2f}" if best else "-"
    next_total = ledger.model_ledger(model, best + 1, rate).total / GIB
    rows.append([f"{rate:.0%}", best, fits_total, f"{next_total:.2f}"])
print_table(["overhead", "largest batch", "its total (GiB)", "one more (GiB)"], rows)
largest_in_table = max((b for b in assumptions.ARTICLE_BATCHES if at[b].fits(BUDGET)), default=0)
if largest[RATE] == 0:
    largest_note = f"At {RATE:.0%} overhead not even one sequence fits this budget."
elif largest[RATE] > largest_in_table:
    largest_note = (
        f"At {RATE:.0%} overhead the table's largest fitting row is batch {largest_in_table}, "
        f"but every batch up to {largest[RATE]} fits: the table only samples some batch sizes."
    )
else:
    largest_note = f"At {RATE:.0%} overhead the largest batch, {largest[RATE]}, is a table row."
print_observations([largest_note, f"At {LOW:.0%} overhead the largest batch is {largest[LOW]}."])

# %%
# Decode keeps fewer activations alive
# ------------------------------------
#
# The ledger above is for unchunked prefill, where all :math:`B S` tokens pass
# through a layer together. In token-by-token decode only :math:`B` tokens are
# active, so the activation term becomes :math:`B a` instead of :math:`B S a`.
# The KV cache still holds all :math:`B S` tokens.

print_header(f"Decode ledger in GiB, overhead {RATE:.0%}, budget {args.budget_gib:g} GiB")
print_table([*LEDGER_HEADERS, f"{args.budget_gib:g} GiB?"], ledger_rows(RATE, "decode"))
decode_largest = {
    rate: ledger.largest_batch_that_fits(
        BUDGET, lambda b, r=rate: ledger.model_ledger(model, b, r, "decode")
    )
    for rate in (RATE, LOW)
}
print()
print(
    f"largest decode batch: {decode_largest[RATE]} at {RATE:.0%} overhead, "
    f"{decode_largest[LOW]} at {LOW:.0%} (prefill: {largest[RATE]} and {largest[LOW]})"
)
act_prefill = ledger.model_ledger(model, 16, RATE).activations
act_decode = ledger.model_ledger(model, 16, RATE, "decode").activations
print_observations(
    [
        f"At batch 16 the activations shrink from {fmt_bytes(act_prefill, binary=True)} "
        f"(prefill) to {fmt_bytes(act_decode, binary=True)} (decode), so decode fits "
        f"{decode_largest[RATE]} sequences instead of {largest[RATE]}. The KV cache, which grows "
        "with every token kept, is now almost all of the variable part.",
    ]
)

# %%
# Measuring a batch sweep
# -----------------------
#
# Now the speed side. One fp32 weight matrix :math:`W[d, d]` multiplies a batch of
# :math:`B` token vectors, :math:`Y = X W`. The roofline model counts
# :math:`F = 2 B d^2` and :math:`D = 4 (d^2 + 2 B d)` bytes: the weights once, X
# read, Y written. Small batches are memory-bound (all of W moves for a few
# tokens); as :math:`B` grows each weight byte serves more tokens and the
# intensity rises past the ridge point.
#
# The matrix is the article's :math:`4096 \times 4096` (64 MiB), enlarged when the
# last-level cache could hold half of it (the weights must come from main memory),
# and shrunk only if even one call per batch size would overrun the time budget.
# Each batch size is timed several times and the fastest call kept; the repeats
# share a fixed time budget.

from functools import partial

import numpy as np  # only the sweep needs numpy

SWEEP_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
SWEEP_BUDGET_S = 4.0  # timed calls stop here; allocation and warm-up keep the total under 5 s
MAX_REPEATS = 9
FP32 = int(bytes_per_elem("fp32"))

calib, calib_note = roofs.load_or_calibrate(args.results)
P = float(calib["matmul_flops_per_s"])
BETA = float(calib["bandwidth_bytes_per_s"])
RIDGE = P / BETA


def sweep_cost_s(d: int) -> float:
    """Predicted time of the shortest possible sweep: one warm-up and one timed call per batch."""
    return sum(
        2 * lower_bound_time(*matmul_counts(b, d, d, FP32, FP32, FP32), P, BETA)
        for b in SWEEP_BATCHES
    )


def choose_weight_dim() -> int:
    """4096 (the article's), or 8192 if W would be under 2x the last-level cache; halve if slow."""
    llc = caches.last_level_cache_bytes() or 0
    d = 8192 if 2 * llc > FP32 * 4096**2 else 4096
    while d > 1024 and sweep_cost_s(d) > SWEEP_BUDGET_S:
        d //= 2
    return d


D_MODEL = choose_weight_dim()
llc_bytes = caches.last_level_cache_bytes()
print_header("Batch sweep: Y[B, d] = X[B, d] @ W[d, d], fp32")
print(f"calibration: {calib_note}")
print(f"roofs: P = {console.fmt_rate(P)}, beta = {console.fmt_bw(BETA)}, I* = {RIDGE:.2f} FLOP/B")
print(
    f"weight matrix: [{D_MODEL}, {D_MODEL}] fp32 = {FP32 * D_MODEL**2 / MIB:.0f} MiB"
    + (f" (last-level cache: {llc_bytes / MIB:.0f} MiB)" if llc_bytes else "")
)
if llc_bytes and 2 * llc_bytes > FP32 * D_MODEL**2:
    print("note: the weights are under twice the last-level cache, so small batches may be")
    print("      served partly from cache; this machine was too slow for a larger matrix")

t_sweep = time.perf_counter()
deadline = t_sweep + SWEEP_BUDGET_S
rng = np.random.default_rng(0)
W = rng.standard_normal((D_MODEL, D_MODEL), dtype=np.float32)
latencies = []
for k, B in enumerate(SWEEP_BATCHES):
    console.progress(f"timing batch {B} ({k + 1}/{len(SWEEP_BATCHES)})")
    X = rng.standard_normal((B, D_MODEL), dtype=np.float32)
    Y = np.empty((B, D_MODEL), dtype=np.float32)
    share = (deadline - time.perf_counter()) / (len(SWEEP_BATCHES) - k)  # this batch's time
    # One warm-up call (first touch of Y, BLAS buffers), then the fastest timed call.
    call = partial(np.matmul, X, W, out=Y)
    latencies.append(min(timing.time_samples(call, 1, 1, share, max_repeat=MAX_REPEATS)))
console.progress_done()
sweep_seconds = time.perf_counter() - t_sweep

# %%
# What the sweep shows
# --------------------
#
# Each row puts the model (F, D, I, the bound and the predicted time
# :math:`\max(F/P, D/\beta)` from the calibration) beside the measurement (the
# fastest call, and the throughput :math:`B / T` in tokens per second). A roofline
# predicts two things for this sweep: latency never falls as :math:`B` grows, and
# throughput never falls either, since :math:`F` grows in proportion to :math:`B`
# and :math:`D` more slowly. A measured point that breaks either rule by more than
# the timing tolerance is flagged with ``!``: the model cannot explain it.

anomalies = ledger.sweep_anomalies(SWEEP_BATCHES, latencies)
notes: dict[int, list[str]] = {}
for a in anomalies:
    text = (
        f"throughput below B={a.other}"
        if a.kind == "throughput_drop"
        else f"slower than B={a.other}"
    )
    notes.setdefault(a.batch, []).append(text)

sweep_rows = []
for B, latency in zip(SWEEP_BATCHES, latencies, strict=True):
    flops, nbytes = matmul_counts(B, D_MODEL, D_MODEL, FP32, FP32, FP32)
    i = intensity(flops, nbytes)
    sweep_rows.append(
        {
            "B": B,
            "flops": flops,
            "bytes": nbytes,
            "intensity": i,
            "bound": bound_of(i, RIDGE),
            "latency_s": latency,
            "throughput_per_s": B / latency,
            "t_pred_s": lower_bound_time(flops, nbytes, P, BETA),
            "anomaly": "; ".join(notes[B]) if B in notes else None,
        }
    )

print_table(
    [
        "B",
        "F (GFLOP)",
        "D (MB)",
        "I (FLOP/B)",
        "bound",
        "latency",
        "tokens/s",
        "roofline",
        "of bound",
        "",
    ],
    [
        [
            r["B"],
            f"{r['flops'] / 1e9:.3f}",
            f"{r['bytes'] / 1e6:.2f}",
            f"{r['intensity']:.2f}",
            r["bound"],
            fmt_time(r["latency_s"], unit="ms", digits=3),
            f"{r['throughput_per_s']:,.0f}",
            fmt_time(r["t_pred_s"], unit="ms", digits=3),
            f"{r['t_pred_s'] / r['latency_s']:.0%}",
            "!" if r["anomaly"] else "",
        ]
        for r in sweep_rows
    ],
)

cross = thresholds.crossover(SWEEP_BATCHES, [r["intensity"] for r in sweep_rows], RIDGE)
by_b = {r["B"]: r for r in sweep_rows}
print()
if cross is None:
    print(f"ridge crossing: none; every B up to {SWEEP_BATCHES[-1]} stays below I* = {RIDGE:.2f}")
elif cross.before is None:
    print(f"ridge crossing: none; already compute-bound at B = {cross.first}")
else:
    print(
        f"ridge crossing: B in ({cross.before}, {cross.first}]: I({cross.before}) = "
        f"{by_b[cross.before]['intensity']:.2f} < I* = {RIDGE:.2f} <= I({cross.first}) = "
        f"{by_b[cross.first]['intensity']:.2f}"
    )
for B in SWEEP_BATCHES:
    if B in notes:
        print(f"! B={B}: {'; '.join(notes[B])}")
print(f"sweep time: {sweep_seconds:.2f} s")

saved = results.save_section(
    "batch_sweep",
    {
        "weight_shape": [D_MODEL, D_MODEL],
        "weight_bytes": FP32 * D_MODEL**2,
        "dtype": "float32",
        "rows": sweep_rows,
        "calibration": {
            "bandwidth_bytes_per_s": BETA,
            "matmul_flops_per_s": P,
            "ridge_point": RIDGE,
        },
        "calibration_source": calib_note,
        "crossing": None if cross is None else {"before": cross.before, "first": cross.first},
        "anomaly_tolerance": ledger.ANOMALY_TOLERANCE,
        "sweep_seconds": sweep_seconds,
    },
    args.results,
)
print(f"saved results: {display_path(saved)}")

first, last = sweep_rows[0], sweep_rows[-1]
sweep_observations = [
    f"From B = {first['B']} to B = {last['B']}, latency grew "
    f"{last['latency_s'] / first['latency_s']:.1f}x while throughput grew "
    f"{last['throughput_per_s'] / first['throughput_per_s']:.1f}x. At B = {last['B']} each "
    f"token's share of the {FP32 * D_MODEL**2 / MIB:.0f} MiB weight read is "
    f"{FP32 * D_MODEL**2 / last['B'] / MIB:.2f} MiB.",
]
if cross is not None and cross.before is not None:
    sweep_observations.append(
        f"The model crosses the ridge point between B = {cross.before} and B = {cross.first}. "
        "That is where the prediction changes from a flat bandwidth cost to a cost growing "
        "with B; the measured curve need not bend sharply at the same place."
    )
over = [r for r in sweep_rows if r["t_pred_s"] > r["latency_s"]]
if over:
    worst = max(over, key=lambda r: r["t_pred_s"] / r["latency_s"])
    if worst["bound"] == "memory":
        bw_threads = calib.get("bandwidth_threads") or (calib.get("bandwidth") or {}).get("threads")
        mm_threads = calib.get("matmul_threads") or (calib.get("matmul") or {}).get("threads")
        why_faster = (
            f"the bandwidth roof was measured on {bw_threads} "
            f"{'thread' if bw_threads == 1 else 'threads'} while BLAS runs {mm_threads}, "
            "and a cache holding part of W also moves bytes faster than memory."
            if bw_threads and mm_threads and bw_threads != mm_threads
            else "a cache holding part of W moves bytes faster than main memory."
        )
    else:
        why_faster = (
            "the compute roof is the rate of one calibration matmul, and BLAS runs other "
            "shapes faster or slower; on a shared machine both timings also vary from run "
            "to run."
        )
    sweep_observations.append(
        f"At B = {worst['B']} the measurement beat the roofline "
        f"({worst['t_pred_s'] / worst['latency_s']:.0%} of the bound). The bound comes from a "
        f"calibration, not from physics: {why_faster}"
    )
for B in SWEEP_BATCHES:
    for a in anomalies:
        if a.batch != B:
            continue
        other = by_b[a.other]
        mine = by_b[B]
        if a.kind == "throughput_drop":
            sweep_observations.append(
                f"B = {B} took {fmt_time(mine['latency_s'], unit='ms', digits=2)}, "
                f"{mine['latency_s'] / other['latency_s']:.1f}x as long as B = {a.other} for "
                f"{B // a.other}x the tokens: throughput fell as the batch grew."
            )
        else:
            sweep_observations.append(
                f"B = {B} took {fmt_time(mine['latency_s'], unit='ms', digits=2)}, "
                f"{mine['latency_s'] / other['latency_s']:.2f}x the time of the larger "
                f"B = {a.other}: a bigger batch finished sooner."
            )
if anomalies:
    sweep_observations.append(
        "The roofline cannot see these: BLAS libraries switch kernels and thread splits with "
        "the matrix shape (a single row often takes a matrix-vector path), and other programs "
        "can take a core in the middle of a timing. Rerun the lecture: an anomaly that comes "
        "back every time belongs to the library, one that moves is noise, and only a profiler "
        "can tell which cause it was."
    )
else:
    sweep_observations.append(
        f"No batch size broke the two rules by more than {ledger.ANOMALY_TOLERANCE:.0%} on this "
        "run: the measured curve behaves as the model expects, even where its level differs."
    )
sweep_observations.append(
    f"The whole sweep took {sweep_seconds:.2f} s. The capacity ledger says how large a batch "
    "can be; this sweep says how large it is worth making."
)
print_observations(sweep_observations)
