r"""
The hierarchical roofline: every level of this machine's memory
================================================================

A single roofline has one bandwidth roof, DRAM's. But data that fits in a cache
streams from that cache, and each cache has its own, higher roof. How fast does
this machine stream data from L1, L2, L3 and DRAM, and which of those roofs
bounds an operation whose data lives at each level?

The lecture reads the cache sizes from the operating system, times the
streaming add :math:`z = x + y` over working sets from a few KiB to several
times the last-level cache, finds one bandwidth plateau per level, and draws the
hierarchical roofline of Yang et al. (2020) with the compute roof that lecture
01 measured. It then streams DRAM from every core at once and shows what that
does to the ridge point.

Run it with ``python3 lectures/09_hierarchical_roofline.py``. Flags:
``--quick`` (a shorter sweep, a few seconds), ``--png`` (also save the two
figures), ``--outdir DIR`` (where the figures go, default ``figures/``),
``--results FILE`` (the shared results file, default ``results/machine.json``).
A full run is budgeted to stay within about twenty seconds.
"""

# sphinx_gallery_start_ignore
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))))
from common.present import boot  # one-line errors, quiet Ctrl-C and closed pipes, before numpy

boot.start()
# sphinx_gallery_end_ignore

import itertools
import math
import time

from common.files import results
from common.files.paths import display_path
from common.formulas import hierarchy, roofline
from common.measure import caches, machine, roofs, timing
from common.measure import hierarchy as sweep
from common.present import cli, console
from common.present.console import fmt_bw, fmt_bytes, fmt_num, fmt_ratio, fmt_time

parser = cli.lecture_parser(__doc__)
parser.add_argument(
    "--quick",
    action="store_true",
    help="shorter sweep (2 sizes per octave, less time per size) for tests",
)
cli.add_png_flags(parser)
cli.add_results_flag(parser, saves=True)
args = cli.parse_args(parser)

QUICK = args.quick
SIZES_PER_OCTAVE = 2 if QUICK else 4  # geometric steps of the sweep
SWEEP_BUDGET_S = 1.5 if QUICK else 9.0  # time for all the sweep's sizes together
CALL_COST_BUDGET_S = 0.1 if QUICK else 0.3
MATMUL_BUDGET_S = 0.1 if QUICK else 0.3  # per matmul size
ADD_BUDGET_S = 0.03 if QUICK else 0.06  # per add and round on the hierarchical roofline
THREAD_REPEATS = 3 if QUICK else 6
lecture_start = time.perf_counter()


def saved(kind: str, path: object) -> None:
    """Print the path of a file this lecture wrote."""
    print(f"saved {kind}: {display_path(path)}")


# %%
# The machine and its caches
# --------------------------
#
# Every core reads through a ladder of caches: a small, very fast L1 data
# cache of its own, a larger L2 (usually its own too), and on most chips an
# L3 that all cores share. DRAM sits below them. The operating system knows
# the sizes: Linux lists them under ``/sys/devices/system/cpu/cpu0/cache``,
# macOS answers ``sysctl hw.l1dcachesize`` and its siblings. The lecture reads
# them rather than assuming them, because they differ a lot between machines.

print(machine.summary_line(machine.describe()))
cache_list, cache_source = caches.read_caches_with_source()
levels = caches.data_levels(cache_list)
llc_bytes = levels[-1][1] if levels else None

console.print_header("Caches the operating system reports (as core 0 sees them)")
if cache_list:
    console.print_table(
        ["cache", "type", "size", "shared by"],
        [
            [
                c.name,
                c.kind,
                fmt_bytes(c.size_bytes, binary=True, digits=0),
                "-" if c.shared_cpus is None else f"{c.shared_cpus} CPU(s)",
            ]
            for c in cache_list
        ],
    )
    print(f"source: {cache_source}")
else:
    print(
        "cache sizes: unknown (the operating system does not report them here); the sweep "
        "runs without marked sizes and a change-point detector finds the plateaus"
    )

# %%
# The compute roof
# ----------------
#
# The hierarchical roofline keeps one compute roof, the matmul rate lecture 01
# measured, and draws one memory roof per level under it. When lecture 01 has
# not run yet, a quick calibration stands in and the line below says so.
#
# Two matmuls are timed here as well, to be placed on the chart later: one
# whose three matrices fit comfortably in L2 and one about half the size of the
# last-level cache. A roof that a measured point rises above is no roof, so if
# either matmul beats the calibration (lecture 01 may have run while other work
# kept the cores busy), the faster rate becomes the compute roof.

calibration, calibration_note = roofs.load_or_calibrate(args.results)
peak_flops = float(calibration["matmul_flops_per_s"])
print(f"compute roof: {fmt_num(peak_flops, 1, 'FLOP/s')} ({calibration_note})")

l2_bytes = levels[1][1] if len(levels) >= 2 else hierarchy.ASSUMED_L2_BYTES
llc_or_assumed = llc_bytes or hierarchy.ASSUMED_LLC_BYTES
# n x n fp32 matrices A, B, C take 12 n^2 bytes; keep them within half a cache.
matmul_sides = sorted(
    {
        max(64, int(math.sqrt(l2_bytes / hierarchy.INSIDE_MARGIN / 12)) // 64 * 64),
        max(256, int(math.sqrt(llc_or_assumed / hierarchy.INSIDE_MARGIN / 12)) // 256 * 256),
    }
)
matmuls = []
for side in matmul_sides:
    rate = roofs.measure_matmul(side, repeat=3, budget_s=MATMUL_BUDGET_S)
    flops, nbytes = roofline.gemm_counts(side, side, side, elem_bytes=4)
    matmuls.append(
        {"side": side, "flops": flops, "bytes": nbytes, "flops_per_s": rate["flops_per_s"]}
    )
    print(
        f"matmul n={side}: {fmt_num(rate['flops_per_s'], 1, 'FLOP/s')} "
        f"({fmt_bytes(nbytes, binary=True)} of matrices)"
    )
fastest = max(matmuls, key=lambda m: m["flops_per_s"])
if fastest["flops_per_s"] > peak_flops:
    print(
        f"compute roof raised from {fmt_num(peak_flops, 1, 'FLOP/s')} to "
        f"{fmt_num(fastest['flops_per_s'], 1, 'FLOP/s')}: the n={fastest['side']} matmul "
        f"ran faster than the calibration, which other work probably slowed"
    )
    peak_flops = fastest["flops_per_s"]
    calibration_note += f"; raised to lecture 09's n={fastest['side']} matmul"

# %%
# The fixed cost of a call
# ------------------------
#
# Every numpy call pays a fixed cost before it touches data: Python
# dispatches the call, numpy checks the arrays' types, shapes and overlap, and
# picks a loop. For a large array that cost vanishes against the streaming
# time. For an array of a few KiB it is most of the time. The lecture measures
# it directly as the time of :math:`z = x + y` on one element. Many calls are
# timed back to back and the total divided by their number, because a single
# call is too short to time reliably on its own.
#
# numpy also releases the GIL around loops longer than 500 elements (so other
# Python threads can run meanwhile), which adds a little to the fixed cost of
# every larger call. The lecture measures that step too, as the difference
# between calls on 501 and 500 elements.
#
# With the fixed cost :math:`t_0` known, the bandwidth the memory itself
# delivered is :math:`\beta = D / (t - t_0)` instead of :math:`D / t`.

sweep_limit = hierarchy.sweep_limit_bytes(llc_bytes, caches.available_memory_bytes())
lengths = hierarchy.sweep_lengths(hierarchy.MIN_WORKING_SET_BYTES, sweep_limit, SIZES_PER_OCTAVE)
arrays = sweep.StreamArrays(lengths[-1])
GIL_N = hierarchy.GIL_RELEASE_ELEMENTS
costs_before = sweep.measure_call_costs(arrays, CALL_COST_BUDGET_S)
call_s, gil_s = costs_before["call_seconds"], costs_before["gil_seconds"]

console.print_header("Fixed cost of one call of z = x + y")
console.print_table(
    ["what", "time"],
    [
        ["call on 1 element (t_call)", fmt_time(call_s)],
        [f"extra when numpy releases the GIL (> {GIL_N} elements)", fmt_time(gil_s)],
        [f"fixed cost of a call on > {GIL_N} elements", fmt_time(call_s + gil_s)],
    ],
)

# %%
# Sweeping the working set
# ------------------------
#
# The sweep times the same streaming add at working sets that grow
# geometrically, several sizes per octave, from a few KiB to several times the
# last-level cache. The three arrays are carved once from one buffer, so no
# memory is allocated inside the timed loop; ``np.add(x, y, out=z)`` reads
# :math:`8n` bytes and writes :math:`4n`, so :math:`D = 12n` bytes, the same as
# its working set. Each size gets an equal share of a fixed time budget and
# keeps its fastest batch: the attainable bandwidth. The sizes are swept twice,
# up and then down, so that a burst of other work on the machine spoils one
# pass at a few sizes rather than the result. The fixed cost is measured again
# after the sweep for the same reason, and the lower of the two is used.

sweep_start = time.perf_counter()
points = sweep.run_sweep(
    arrays,
    lengths,
    SWEEP_BUDGET_S,
    on_point=lambda i, n, b: console.progress(
        f"sweep {i + 1}/{n}: working set {fmt_bytes(b, binary=True, digits=0)}"
    ),
)
console.progress_done()
sweep_seconds = time.perf_counter() - sweep_start
costs_after = sweep.measure_call_costs(arrays, CALL_COST_BUDGET_S)
costs = hierarchy.merge_call_costs(costs_before, costs_after)
call_s, gil_s = costs["call_seconds"], costs["gil_seconds"]
print(
    f"fixed cost measured again after the sweep: {fmt_time(costs_after['call_seconds'])} "
    f"(+{fmt_time(costs_after['gil_seconds'])} above {GIL_N} elements); used: "
    f"{fmt_time(call_s)} (+{fmt_time(gil_s)})"
)

sizes = [p["working_set_bytes"] for p in points]
seconds = [p["seconds"] for p in points]
fixed = [hierarchy.fixed_call_seconds(p["elements"], call_s, gil_s) for p in points]
measured_bw = [s / t for s, t in zip(sizes, seconds, strict=True)]
shares = [hierarchy.call_share(t, f) for t, f in zip(seconds, fixed, strict=True)]
# The correction divides by t - t0; where t0 is almost all of t it mostly amplifies noise.
corrected_bw = [
    hierarchy.corrected_bandwidth(s, t, f) if share <= hierarchy.RELIABLE_CALL_SHARE else None
    for s, t, f, share in zip(sizes, seconds, fixed, shares, strict=True)
]
for p, bw, cbw in zip(points, measured_bw, corrected_bw, strict=True):
    p["bytes_per_s"] = bw
    p["corrected_bytes_per_s"] = cbw


def fits_in(size: float) -> str:
    """The level a working set fits in, or '-' when the cache sizes are unknown."""
    return hierarchy.level_of_size(size, levels) if levels else "-"


console.print_header(f"Bandwidth of z = x + y against working set ({len(points)} sizes)")
console.print_table(
    ["working set", "fits in", "time/call", "call cost", "measured", "cost removed"],
    [
        [
            fmt_bytes(s, binary=True, digits=1),
            fits_in(s),
            fmt_time(t),
            f"{share:.0%}",
            fmt_bw(bw),
            "-" if cbw is None else fmt_bw(cbw),
        ]
        for s, t, share, bw, cbw in zip(
            sizes, seconds, shares, measured_bw, corrected_bw, strict=True
        )
    ],
)
print(
    f"sweep: {len(points)} sizes from {fmt_bytes(sizes[0], binary=True)} to "
    f"{fmt_bytes(sizes[-1], binary=True)} in {sweep_seconds:.1f} s"
)

# %%
# A plateau for each level
# ------------------------
#
# A *plateau* is the bandwidth the sweep holds while the working set stays
# inside one level: bigger than the level below it, smaller than the level
# itself. Near a boundary the curve bends gradually (part of the data still
# hits, the hardware prefetchers help), so the lecture only trusts points
# comfortably inside a range: at least twice the previous level's size and at
# most half of this level's. For DRAM it waits until four times the last-level
# cache, because modern replacement policies keep part of a streamed working
# set in a cache well past its nominal size. The plateau is the median of the
# corrected bandwidths in the range. When a range holds no point, the margin
# is relaxed and the table says so.
#
# The same curve also goes to a change-point detector that is not told the
# cache sizes. It cuts the curve into flat pieces by least squares, paying a
# penalty for every extra piece that grows with the measurement noise (so
# noise alone does not create a level), and keeps the pieces that are flat
# and span at least an octave of working set. On a machine whose operating
# system does not report its caches, that detector names the levels alone.

detected = hierarchy.find_plateaus(sizes, corrected_bw)
if levels:
    plateaus = hierarchy.plateaus_known(sizes, corrected_bw, levels)
    plateau_method = "known cache sizes"
else:
    plateaus = hierarchy.name_detected(detected)
    plateau_method = "change-point detector (cache sizes unknown)"
found = [p for p in plateaus if p.bytes_per_s is not None]
roofs = [(p.name, p.bytes_per_s) for p in found]
dram = next((p for p in found if p.name == "DRAM"), None)
measured_plateau = {
    p.name: hierarchy.median(
        [
            bw
            for s, bw in zip(sizes, measured_bw, strict=True)
            if hierarchy.in_range(s, p.lo_bytes, p.hi_bytes)
        ]
    )
    for p in found
}


def range_text(p: hierarchy.Plateau) -> str:
    """A plateau's working-set range, clipped to the sweep."""
    lo = max(p.lo_bytes, sizes[0])
    hi = min(p.hi_bytes, sizes[-1])
    return f"{fmt_bytes(lo, binary=True, digits=0)} - {fmt_bytes(hi, binary=True, digits=0)}"


console.print_header(f"Plateaus ({plateau_method})")
size_of = dict(levels)
console.print_table(
    ["level", "cache size", "sizes used", "points", "margin", "plateau", "measured", "x DRAM"],
    [
        [
            p.name,
            fmt_bytes(size_of[p.name], binary=True, digits=0) if p.name in size_of else "-",
            range_text(p) if p.bytes_per_s else "-",
            p.points,
            "-" if p.margin is None else f"{p.margin:.3g}",
            fmt_bw(p.bytes_per_s) if p.bytes_per_s else "no point inside",
            fmt_bw(measured_plateau[p.name]) if p.bytes_per_s else "-",
            fmt_ratio(p.bytes_per_s / dram.bytes_per_s, 1) if p.bytes_per_s and dram else "-",
        ]
        for p in plateaus
    ],
)

console.print_header("What the change-point detector finds without the cache sizes")
if detected:
    console.print_table(
        ["plateau", "from", "to", "points", "bandwidth", "fits in"],
        [
            [
                d.name,
                fmt_bytes(d.lo_bytes, binary=True, digits=0),
                fmt_bytes(d.hi_bytes, binary=True, digits=0),
                d.points,
                fmt_bw(d.bytes_per_s),
                fits_in(math.sqrt(d.lo_bytes * d.hi_bytes)),
            ]
            for d in detected
        ],
    )
else:
    print("the detector found no run of flat points (too few sizes or too much noise)")

# %%
# The figure below shows the measured curve, the curve with the fixed cost
# removed, the cache sizes the operating system reported, and each plateau
# drawn across the sizes it was taken from.

call_limit = hierarchy.call_cost_limit_bytes(sizes, seconds, fixed)
if args.png:
    from common.plots import hierarchy as hierarchy_plots

    written = hierarchy_plots.bandwidth_sweep_figure(
        args.outdir / "09_bandwidth_by_working_set.png",
        sizes,
        measured_bw,
        corrected_bw,
        [(c.name, c.size_bytes) for c in caches.data_caches(cache_list)],
        [(p.name, p.lo_bytes, p.hi_bytes, p.bytes_per_s) for p in found],
        call_limit,
    )
    saved("figure", written)

observations = []
if len(found) >= 2:
    first, last = found[0], found[-1]
    observations.append(
        f"The {first.name} plateau is {fmt_bw(first.bytes_per_s)} and the {last.name} "
        f"plateau {fmt_bw(last.bytes_per_s)}: the same operation streams "
        f"{fmt_ratio(first.bytes_per_s / last.bytes_per_s, 1)} faster when its data "
        f"fits in {first.name}."
    )
MATCH = 1.05  # neighbouring plateaus closer than 5% are called equal
for inner, outer in itertools.pairwise(found):
    ratio = inner.bytes_per_s / outer.bytes_per_s
    if ratio >= MATCH:
        observations.append(
            f"Leaving {inner.name} for {outer.name} costs {fmt_ratio(ratio)} in bandwidth "
            f"({fmt_bw(inner.bytes_per_s)} to {fmt_bw(outer.bytes_per_s)})."
        )
    elif ratio > 1 / MATCH:
        observations.append(
            f"{inner.name} ({fmt_bw(inner.bytes_per_s)}) and {outer.name} "
            f"({fmt_bw(outer.bytes_per_s)}) differ by only {fmt_ratio(ratio)}. When two "
            f"neighbouring plateaus match, the limit is not that cache but the core: "
            f"numpy's loop and the load/store units cannot use the faster level."
        )
    else:
        observations.append(
            f"The {inner.name} plateau ({fmt_bw(inner.bytes_per_s)}) comes out below the "
            f"{outer.name} plateau ({fmt_bw(outer.bytes_per_s)}). No cache is slower than "
            f"the one outside it: at {inner.name} sizes the fixed call cost is most of the "
            f"time, so the corrected bandwidth there is the least certain number of the "
            f"sweep (rerun when the machine is quiet)."
        )
if levels:
    homes = [fits_in(math.sqrt(d.lo_bytes * d.hi_bytes)) for d in detected]
    named = ", ".join(
        f"{fmt_bw(d.bytes_per_s)} in {home}" for d, home in zip(detected, homes, strict=True)
    )
    crowded = sorted({h for h in homes if homes.count(h) > 1})
    text = (
        f"Without the sizes, the change-point detector finds {len(detected)} plateau(s) "
        f"({named or 'none'}) where the operating system names {len(found)} levels."
    )
    if crowded:
        text += (
            f" More than one lies inside {', '.join(crowded)}: a gradual transition, a "
            f"step in numpy's own loop or a change in the machine's load, rather than a "
            f"cache boundary. That is why the sizes the operating system reports come first."
        )
    elif len(detected) < len(found):
        text += (
            f" Levels within {fmt_ratio(hierarchy.SAME_LEVEL_STEP)} of each other, or with "
            f"too few points, merge or vanish for the detector."
        )
    observations.append(text)
console.print_observations(observations)

# %%
# Why the fixed cost matters, and where
# -------------------------------------
#
# At the smallest working sets the measured bandwidth rises with the size
# although every byte comes from L1: the fixed cost is spread over more bytes.
# Removing it flattens the curve. A straight line through the times of the
# smallest sizes tells the same story from the other side: its slope is
# :math:`1/\beta` and where it crosses zero bytes is the fixed cost, which
# should be close to the one measured directly.

small = [
    (s, t)
    for p, s, t in zip(points, sizes, seconds, strict=True)
    if p["elements"] > hierarchy.GIL_RELEASE_ELEMENTS
    and s <= (levels[0][1] / hierarchy.INSIDE_MARGIN if levels else 16 * 2**10)
]
fit = (
    hierarchy.affine_fit([s for s, _ in small], [t for _, t in small]) if len(small) >= 3 else None
)

observations = [
    f"One call costs {fmt_time(call_s)} before it moves a byte "
    f"({fmt_time(call_s + gil_s)} above {GIL_N} elements). That is "
    f"{shares[0]:.0%} of the time at the smallest working set, "
    f"{fmt_bytes(sizes[0], binary=True)}, where the measured bandwidth is only "
    f"{fmt_bw(measured_bw[0])}."
]
if call_limit is not None:
    observations.append(
        f"The fixed cost is at least {hierarchy.CALL_COST_MATTERS:.0%} of a call up to "
        f"a working set of {fmt_bytes(call_limit, binary=True)}; past that the "
        f"correction changes the bandwidth by less than that."
    )
if fit is not None and fit[1] > 0:
    observations.append(
        f"A line fitted to the times of the {len(small)} sizes from "
        f"{fmt_bytes(small[0][0], binary=True)} to {fmt_bytes(small[-1][0], binary=True)} "
        f"crosses zero bytes at {fmt_time(fit[0])}, against {fmt_time(call_s + gil_s)} "
        f"measured directly; its slope gives {fmt_bw(1 / fit[1])}, a second estimate "
        f"of the {found[0].name if found else 'first'} roof."
    )
console.print_observations(observations)

# %%
# One thread against every core, at DRAM
# --------------------------------------
#
# numpy's elementwise functions run on the calling thread, so every number so
# far is one core's bandwidth. But a large ufunc call releases the GIL (the
# step measured above), so several Python threads can each add their own
# slice of the arrays at the same time. At DRAM sizes that asks the memory
# controller for more than one core can. The matmul that set the compute roof
# already ran on every BLAS thread, so the fair ridge point for a program that
# uses every core divides by the all-thread bandwidth.

thread_count = machine.usable_cores()
threaded = sweep.measure_threads(arrays, lengths[-1], thread_count, THREAD_REPEATS)
one_bw = threaded["one_thread_bytes_per_s"]
all_bw = threaded["all_thread_bytes_per_s"]
blas_threads = machine.blas_info().get("threads")
ridge_one = roofline.ridge_point(peak_flops, one_bw)
ridge_all = roofline.ridge_point(peak_flops, all_bw) if all_bw else None

console.print_header(
    f"DRAM bandwidth at {fmt_bytes(threaded['working_set_bytes'], binary=True)}: "
    f"1 thread against {thread_count}"
)
console.print_table(
    ["threads", "bandwidth", "ridge point P / beta"],
    [
        ["1", fmt_bw(one_bw), f"{ridge_one:.1f} FLOP/byte"],
        [
            str(thread_count),
            fmt_bw(all_bw) if all_bw else "-",
            f"{ridge_all:.1f} FLOP/byte" if ridge_all else "-",
        ],
    ],
)
print(
    f"P = {fmt_num(peak_flops, 1, 'FLOP/s')} (matmul on {blas_threads} BLAS "
    f"{'thread' if blas_threads == 1 else 'threads'})"
)

observations = []
if all_bw:
    gain = all_bw / one_bw
    if gain >= 1.1:
        observations.append(
            f"{thread_count} threads stream {fmt_bw(all_bw)} from DRAM against "
            f"{fmt_bw(one_bw)} from one: {fmt_ratio(gain)}. One core cannot keep enough "
            f"requests in flight to use all the memory bandwidth."
        )
    else:
        observations.append(
            f"{thread_count} threads stream {fmt_bw(all_bw)} from DRAM against "
            f"{fmt_bw(one_bw)} from one ({fmt_ratio(gain)}): no real gain this time. "
            f"Either one core already saturates this memory system, or other programs "
            f"kept the other cores busy during the measurement (rerun when it is quiet)."
        )
    change = (
        "stays about the same,"
        if abs(ridge_all / ridge_one - 1) < 0.05
        else "drops"
        if ridge_all < ridge_one
        else "rises"
    )
    observations.append(
        f"The ridge point {change} from {ridge_one:.1f} to {ridge_all:.1f} FLOP/byte, when "
        f"the bandwidth roof uses every core, as the compute roof does. That is the fairer "
        f"ridge point for a program that runs on every core."
    )
else:
    observations.append(
        "This process may run on one core only, so there is no all-thread measurement; "
        f"the ridge point stays {ridge_one:.1f} FLOP/byte."
    )
same_size_bw = measured_bw[-1]  # the sweep's own point at this working set
gap = one_bw / same_size_bw - 1
agreement = (
    "the two agree"
    if abs(gap) <= 0.1
    else "a gap that size shows how much the machine's load moves a DRAM measurement "
    "from one moment to the next"
)
observations.append(
    f"One thread here streams {fmt_bw(one_bw)}; the sweep measured {fmt_bw(same_size_bw)} "
    f"at the same working set, {abs(gap):.0%} {'less' if gap >= 0 else 'more'}: {agreement}."
)
console.print_observations(observations)

# %%
# The hierarchical roofline
# -------------------------
#
# Yang et al. (2020) extend the roofline to every level of memory: one
# bandwidth roof per level, all under the same compute roof. For each kernel,
# profilers count the bytes that crossed each level and place the kernel once
# per level, at that level's arithmetic intensity. Nsight Compute draws such a
# chart for GPU kernels (L1, L2 and device memory roofs from hardware
# counters); Intel Advisor's cache-aware roofline does the same for CPU loops
# (L1, L2, L3 and DRAM). The level whose point sits closest under its roof is
# the one that limits the kernel.
#
# Without hardware counters, the lecture places operations by where their data
# lives. The streaming add has :math:`I = 1/12` FLOP/byte at every size. Run
# repeatedly on a working set that sits in L2, its bytes cross the L1 and L2
# boundaries on every call but, once the data is in L2, hardly ever the L3 or
# DRAM ones: in Yang's terms its L3 and DRAM intensities are enormous, so only
# the L1 and L2 roofs can bind it, and the lower one, L2's, does. So the model
# predicts :math:`\min(P, I \beta_{level})` for the level that holds the
# data. The lecture times the add afresh at one size inside each level,
# independently of the sweep, so the check is a real one. Two matmuls join
# them, one small enough for L2 and one about half the size of the last-level
# cache, each with :math:`I = n/6` for an :math:`n \times n` fp32 matmul that
# reads each matrix once. For each operation the table shows the roof the
# model predicts and the roof the measured point sits closest to.

# One add per level, at a size inside its range (the first level's at its largest
# size, where the fixed cost weighs least; the others nearest the range's middle).
chosen = []
for p in found:
    lo, hi = max(p.lo_bytes, sizes[0]), min(p.hi_bytes, sizes[-1])
    centre = math.sqrt(lo * hi)
    inside = [
        i
        for i, (s, c) in enumerate(zip(sizes, corrected_bw, strict=True))
        if c is not None and hierarchy.in_range(s, lo, hi)
    ]
    if not inside:
        continue
    middle = min(inside, key=lambda k: abs(math.log(sizes[k] / centre)))
    chosen.append((p, inside[-1] if p is found[0] else middle))
# Timed afresh, twice round the levels, keeping the faster time of each.
add_seconds = {i: math.inf for _, i in chosen}
for _ in range(2):
    for _, i in chosen:
        best = timing.time_per_call(arrays.add_call(points[i]["elements"]), ADD_BUDGET_S)
        add_seconds[i] = min(add_seconds[i], best.seconds)

operations = []  # one dict per operation placed on the chart
for p, i in chosen:
    n, t = points[i]["elements"], add_seconds[i]
    t0 = hierarchy.fixed_call_seconds(n, call_s, gil_s)
    operations.append(
        {
            "label": f"add in {p.name} ({fmt_bytes(sizes[i], binary=True, digits=0)})",
            "level": p.name,
            "working_set_bytes": sizes[i],
            "intensity": hierarchy.FLOPS_PER_ELEMENT / hierarchy.BYTES_PER_ELEMENT,
            "seconds": t,
            # t - t0 is kept above a tenth of t, as for the sweep's trusted points
            "flops_per_s": n * hierarchy.FLOPS_PER_ELEMENT / max(t - t0, t / 10),
            "flops_per_s_with_call_cost": n * hierarchy.FLOPS_PER_ELEMENT / t,
        }
    )

for mm in matmuls:
    operations.append(
        {
            "label": f"matmul n={mm['side']}",
            "level": fits_in(mm["bytes"]),
            "working_set_bytes": mm["bytes"],
            "intensity": roofline.intensity(mm["flops"], mm["bytes"]),
            "flops_per_s": mm["flops_per_s"],
            "flops_per_s_with_call_cost": mm["flops_per_s"],
        }
    )

roof_bw = dict(roofs)
for op in operations:
    nearest, fraction = hierarchy.closest_roof(
        op["intensity"], op["flops_per_s"], roofs, peak_flops
    )
    op["closest_roof"], op["fraction_of_closest"] = nearest, fraction
    if op["level"] in roof_bw:
        bound, value = hierarchy.predicted_bound(op["intensity"], op["level"], roofs, peak_flops)
        op["predicted_roof"], op["fraction_of_predicted"] = bound, op["flops_per_s"] / value
    else:
        op["predicted_roof"], op["fraction_of_predicted"] = None, None

console.print_header("Operations on the hierarchical roofline")
console.print_table(
    ["operation", "data in", "I (FLOP/B)", "GFLOP/s", "model's roof", "of it", "closest roof"],
    [
        [
            op["label"],
            op["level"],
            f"{op['intensity']:.3g}",
            f"{op['flops_per_s'] / 1e9:.2f}",
            op["predicted_roof"] or "-",
            "-" if op["fraction_of_predicted"] is None else f"{op['fraction_of_predicted']:.0%}",
            op["closest_roof"],
        ]
        for op in operations
    ],
)
print(
    "The adds were timed again for this table and their GFLOP/s have the fixed call cost "
    "removed; the matmuls are timed as they are."
)

# %%
# The figure draws each level's roof in the colour of its plateau in the
# first figure, the all-thread DRAM roof dashed, and the compute roof on top.

if args.png:
    from common.plots import hierarchy as hierarchy_plots

    written = hierarchy_plots.hierarchical_roofline_figure(
        args.outdir / "09_hierarchical_roofline.png",
        roofs,
        peak_flops,
        [
            (
                op["label"],
                op["intensity"],
                op["flops_per_s"],
                op["level"] if "add" in op["label"] else "",
            )
            for op in operations
        ],
        extra_roofs=[(f"DRAM, {thread_count} threads", all_bw)] if all_bw else [],
    )
    saved("figure", written)

observations = []
adds = [op for op in operations if op["label"].startswith("add")]
for op in adds:
    verdict = (
        "as the model predicts"
        if op["closest_roof"] == op["predicted_roof"]
        else f"not the {op['predicted_roof']} roof the model predicts"
    )
    observations.append(
        f"The add with a {fmt_bytes(op['working_set_bytes'], binary=True)} working set "
        f"(data in {op['level']}) runs at {fmt_num(op['flops_per_s'], 2, 'FLOP/s')}, "
        f"closest to the {op['closest_roof']} roof, {verdict}."
    )
if adds:
    l1_add = adds[0]
    observations.append(
        f"With its call cost, the {l1_add['level']}-sized add reaches only "
        f"{fmt_num(l1_add['flops_per_s_with_call_cost'], 2, 'FLOP/s')}: at that size no "
        f"memory roof bounds a numpy call, the fixed cost does."
    )
for op in operations:
    if op["label"].startswith("matmul"):
        where = f", data in {op['level']}" if op["level"] != "-" else ""
        observations.append(
            f"{op['label']} (I = {op['intensity']:.0f} FLOP/byte{where}) runs at "
            f"{fmt_num(op['flops_per_s'], 1, 'FLOP/s')}, "
            f"{op['flops_per_s'] / peak_flops:.1%} of the compute roof; its closest roof is "
            f"{op['closest_roof']}."
        )
console.print_observations(observations)

# %%
# Saving the results
# ------------------
#
# Everything measured here goes into the results file's ``hierarchy`` section,
# beside lecture 01's ``probe``, so later lectures and the docs can read the
# roofs of this machine without measuring again.

payload = {
    "quick": QUICK,
    "operation": "z = x + y, fp32, out= (reads 8 B and writes 4 B per element)",
    "bytes_per_element": hierarchy.BYTES_PER_ELEMENT,
    "cache_source": cache_source or None,
    "caches": [
        {
            "name": c.name,
            "level": c.level,
            "type": c.kind,
            "size_bytes": c.size_bytes,
            "shared_cpus": c.shared_cpus,
        }
        for c in cache_list
    ],
    "levels": [{"name": name, "size_bytes": size} for name, size in levels],
    "per_call": costs,
    "sweep": {
        "sizes_per_octave": SIZES_PER_OCTAVE,
        "budget_seconds": SWEEP_BUDGET_S,
        "wall_seconds": sweep_seconds,
        "points": points,
    },
    "plateau_method": plateau_method,
    "plateaus": [
        {
            "level": p.name,
            "lo_bytes": p.lo_bytes,
            "hi_bytes": None if math.isinf(p.hi_bytes) else p.hi_bytes,
            "bytes_per_s": p.bytes_per_s,
            "measured_bytes_per_s": measured_plateau.get(p.name),
            "points": p.points,
            "margin": p.margin,
        }
        for p in plateaus
    ],
    "detected_plateaus": [
        {
            "lo_bytes": d.lo_bytes,
            "hi_bytes": d.hi_bytes,
            "bytes_per_s": d.bytes_per_s,
            "points": d.points,
        }
        for d in detected
    ],
    "compute_roof_flops_per_s": peak_flops,
    "compute_roof_source": calibration_note,
    "operations": operations,
    "threads": {**threaded, "ridge_one_thread": ridge_one, "ridge_all_threads": ridge_all},
    "lecture_seconds": time.perf_counter() - lecture_start,
}
saved(
    "results", f"{results.save_section('hierarchy', payload, args.results)} (section 'hierarchy')"
)
print(f"lecture time: {time.perf_counter() - lecture_start:.1f} s")

# %%
# Caveats
# -------
#
# - **Hardware prefetchers.** Streaming is the easiest pattern to predict, so
#   prefetchers fetch the next lines before they are asked for. That lifts the
#   DRAM plateau to what a perfectly predictable kernel gets; a kernel that
#   jumps around memory sees less.
# - **A shared L3.** Every core shares the last-level cache, and so do the
#   other programs on the machine. The L3 plateau is what one thread gets
#   while the rest of the machine leaves it alone.
# - **Virtual machines and noise.** On a cloud VM the L3 and DRAM are shared
#   with other tenants, and the hypervisor may move the VM between cores. The
#   sweep keeps the fastest batch at each size, which filters out
#   interruptions but not a neighbour that is busy all the time.
# - **Small matmuls on a busy machine.** A multi-threaded BLAS call waits for
#   all its threads. When another program holds a core, a small matmul that
#   takes microseconds can wait milliseconds for its second thread; a large
#   one hides the wait.
# - **Write-allocate.** Most CPUs read a cache line before writing to it, so
#   ``z`` is read as well as written and the true traffic at DRAM is closer
#   to 16 bytes per element than the 12 the ledger counts. The ledger's count
#   is the convention of lecture 01; the hardware moves more.
# - **numpy's temporaries.** The sweep writes into ``out=z``. The everyday
#   ``z = x + y`` allocates a new array on every call, and a large fresh
#   allocation brings page faults and extra traffic that the sweep avoids.
