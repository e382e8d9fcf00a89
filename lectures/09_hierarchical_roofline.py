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
A full run is budgeted to stay within about twenty seconds (``--time-limit S``
changes it; ``--memory-limit GIB`` the memory its arrays may take, default 1.5).
"""

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

import dataclasses
import math
import time
from functools import partial

from common.files import results
from common.files.calibration import load_or_calibrate
from common.formulas import hierarchy, roofline
from common.measure import budget as measure_budget
from common.measure import caches, machine, roofs, timing
from common.measure import hierarchy as sweep
from common.plots.hierarchy import bandwidth_sweep_figure, hierarchical_roofline_figure
from common.present import console, display, probe
from common.present.display import show
from common.shell import cli
from common.shell.paths import display_path
from lectures.words import hierarchical_roofline as page

ABOUT = {"budget": (20, 1.5), "terms": ("hierarchical roofline",)}


make_parser = partial(measure_budget.measuring_parser, __doc__, "09",
                      "shorter sweep (2 sizes per octave, less time each)")  # fmt: skip
args = cli.parse_args(make_parser())

QUICK = args.quick
plan = measure_budget.from_args(args)  # the memory and time this run may take
scale = measure_budget.time_scale(plan, "09")  # --time-limit against its default, 20 s
budget = measure_budget.scaled_times(hierarchy.LECTURE_BUDGETS["quick" if QUICK else "full"], scale)
lecture_start = time.perf_counter()

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

cache_list, cache_source = caches.read_caches_with_source()
levels = caches.data_levels(cache_list)  # data caches (name, bytes), innermost first
llc_bytes = levels[-1][1] if levels else None
show(
    display.Text(machine.summary_line(machine.describe())),
    page.cache_table(cache_list, cache_source),
    probe.built_here(machine.describe(), llc_bytes, "09_hierarchical_roofline.py"),
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

calibration, calibration_note = load_or_calibrate(args.results)
calibrated = peak_flops = float(calibration["matmul_flops_per_s"])
l2_bytes = levels[1][1] if len(levels) >= 2 else hierarchy.ASSUMED_L2_BYTES
matmuls = []
side_cap = measure_budget.matmul_side_cap(plan, calibrated, budget["matmul_s"] / 4)
for side in hierarchy.matmul_sides(l2_bytes, llc_bytes or hierarchy.ASSUMED_LLC_BYTES, side_cap):
    rate = roofs.measure_matmul(side, 3, budget["matmul_s"])["flops_per_s"]
    flops, nbytes = roofline.gemm_counts(side, side, side, elem_bytes=4)
    matmuls.append({"side": side, "flops": flops, "bytes": nbytes, "flops_per_s": rate})
fastest = max(matmuls, key=lambda m: m["flops_per_s"])
peak_flops = max(peak_flops, fastest["flops_per_s"])
raised = f"; raised to lecture 09's n={fastest['side']} matmul" if peak_flops > calibrated else ""
roof_source = calibration_note + raised
show(page.compute_roof(page.ComputeRoof(calibrated, calibration_note, matmuls, peak_flops)))

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

sweep_limit = measure_budget.sweep_limit_bytes(llc_bytes, plan, caches.available_memory_bytes())
per_octave = int(budget["sizes_per_octave"])
smallest = hierarchy.MIN_WORKING_SET_BYTES
lengths = hierarchy.sweep_lengths(smallest, sweep_limit, per_octave)
arrays = sweep.StreamArrays(lengths[-1])  # x, y and z, carved once from one buffer
costs_before = sweep.measure_call_costs(arrays, budget["call_cost_s"])
show(page.call_cost_table(costs_before))

# %%
# Sweeping the working set
# ------------------------
#
# The sweep times the same streaming add at working sets that grow
# geometrically, several sizes per octave, from a few KiB to several times the
# last-level cache. No memory is allocated inside the timed loop;
# ``np.add(x, y, out=z)`` reads :math:`8n` bytes and writes :math:`4n`, so
# :math:`D = 12n` bytes, the same as its working set. Each size gets an equal
# share of a fixed time budget and keeps its fastest batch: the attainable
# bandwidth. The sizes are swept twice, up and then down, so that a burst of
# other work on the machine spoils one pass at a few sizes rather than the
# result. The fixed cost is measured again after the sweep for the same reason,
# and the lower of the two is used.


def progress(i: int, n: int, nbytes: int) -> None:
    size = console.fmt_bytes(nbytes, binary=True, digits=0)
    console.progress(f"sweep {i + 1}/{n}: working set {size}")


sweep_start = time.perf_counter()
points = sweep.run_sweep(arrays, lengths, budget["sweep_s"], on_point=progress)
console.progress_done()
sweep_seconds = time.perf_counter() - sweep_start
costs_after = sweep.measure_call_costs(arrays, budget["call_cost_s"])
costs = hierarchy.merge_call_costs(costs_before, costs_after)
call_s, gil_s = costs["call_seconds"], costs["gil_seconds"]

# %%
# With the fixed cost :math:`t_0` of each call known, the bandwidth the memory
# itself delivered is :math:`\beta = D / (t - t_0)` instead of :math:`D / t`.
# Where :math:`t_0` is almost all of :math:`t`, the difference is mostly noise,
# and the table leaves the corrected value out.

sizes = [p["working_set_bytes"] for p in points]
seconds = [p["seconds"] for p in points]
fixed = [hierarchy.fixed_call_seconds(p["elements"], call_s, gil_s) for p in points]
shares = [hierarchy.call_share(t, t0) for t, t0 in zip(seconds, fixed, strict=True)]
measured_bw = [d / t for d, t in zip(sizes, seconds, strict=True)]  # D / t
corrected_bw = [  # D / (t - t0), where the call's fixed cost leaves enough of t to trust
    hierarchy.corrected_bandwidth(d, t, t0) if share <= hierarchy.RELIABLE_CALL_SHARE else None
    for d, t, t0, share in zip(sizes, seconds, fixed, shares, strict=True)]  # fmt: skip
for p, bw, cbw in zip(points, measured_bw, corrected_bw, strict=True):
    p["bytes_per_s"], p["corrected_bytes_per_s"] = bw, cbw
reach = measure_budget.cache_note("The sweep's largest working set", sizes[-1], llc_bytes)
stamp = probe.measured_on(machine.describe(), llc_bytes)  # whose numbers, and when
show(page.sweep(page.Sweep(points=points, shares=shares, levels=levels, seconds=sweep_seconds,
     after=costs_after, used=costs, reach=reach)), stamp)  # fmt: skip

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
level_roofs = [(p.name, p.bytes_per_s) for p in found]  # one bandwidth roof per level
# the same medians without the correction
raw_plateau = {p.name: hierarchy.plateau_median(p, sizes, measured_bw) for p in found}
call_limit = hierarchy.call_cost_limit_bytes(sizes, seconds, fixed)
here = page.Plateaus(plateaus=plateaus, detected=detected, levels=levels, method=plateau_method,
                     measured=raw_plateau, sizes=sizes, call_limit=call_limit)  # fmt: skip
show(page.plateau_tables(here))

# %%
# The figure shows the measured curve, the curve with the fixed cost removed,
# the cache sizes the operating system reported, and each plateau drawn across
# the sizes it was taken from.

shown = []
if args.png:
    path = bandwidth_sweep_figure(
        args.outdir / "09_bandwidth_by_working_set.png", sizes, measured_bw, corrected_bw,
        [(c.name, c.size_bytes) for c in caches.data_caches(cache_list)],
        [(p.name, p.lo_bytes, p.hi_bytes, p.bytes_per_s) for p in found], call_limit)  # fmt: skip
    shown.append(display.figure(path, page.sweep_caption(here)))
show(*shown, page.plateau_observations(here))

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

l1_limit = levels[0][1] / hierarchy.INSIDE_MARGIN if levels else 16 * 2**10
small = [
    (d, t)
    for p, d, t in zip(points, sizes, seconds, strict=True)
    if p["elements"] > hierarchy.GIL_RELEASE_ELEMENTS and d <= l1_limit]  # fmt: skip
# t = t0 + D / beta: the fit returns (t0, 1/beta)
fit = hierarchy.affine_fit(*zip(*small, strict=True)) if len(small) >= 3 else None
first_level = found[0].name if found else "first"
smallest = (sizes[0], shares[0], measured_bw[0])
show(page.fixed_cost_observations(page.FixedCost(costs=costs, smallest=smallest,
     call_limit=call_limit, small=small, fit=fit, first_level=first_level)))  # fmt: skip

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
threaded = sweep.measure_threads(arrays, lengths[-1], thread_count, int(budget["thread_repeats"]))
one_bw, all_bw = threaded["one_thread_bytes_per_s"], threaded["all_thread_bytes_per_s"]
ridge_one = roofline.ridge_point(peak_flops, one_bw)
ridge_all = roofline.ridge_point(peak_flops, all_bw) if all_bw else None
both = page.Threads(threads=thread_count, working_set_bytes=threaded["working_set_bytes"],
                    one_bw=one_bw, all_bw=all_bw, ridge_one=ridge_one, ridge_all=ridge_all,
                    peak=peak_flops, blas_threads=machine.blas_info().get("threads"),
                    sweep_bw=measured_bw[-1])  # fmt: skip
show(page.threads_table(both), stamp, page.threads_observations(both))

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
# independently of the sweep, so the check is a real one: twice round the
# levels, keeping the faster time of each.

# one sweep point per level: (plateau, index into the sweep)
chosen = hierarchy.representative_points(found, sizes, corrected_bw)
add_seconds = {i: math.inf for _, i in chosen}
for _ in range(2):
    for _, i in chosen:
        t = timing.time_per_call(arrays.add_call(points[i]["elements"]), budget["add_s"]).seconds
        add_seconds[i] = min(add_seconds[i], t)
operations = []  # one dict per operation placed on the chart
for p, i in chosen:
    n, t = points[i]["elements"], add_seconds[i]
    t0 = hierarchy.fixed_call_seconds(n, call_s, gil_s)
    flops = n * hierarchy.FLOPS_PER_ELEMENT
    operations.append({
        "label": f"add in {p.name} ({console.fmt_bytes(sizes[i], binary=True, digits=0)})",
        "level": p.name, "working_set_bytes": sizes[i],
        "intensity": hierarchy.FLOPS_PER_ELEMENT / hierarchy.BYTES_PER_ELEMENT, "seconds": t,
        "flops_per_s": flops / max(t - t0, t / 10),  # t - t0 kept above a tenth of t
        "flops_per_s_with_call_cost": flops / t})  # fmt: skip

# %%
# Two matmuls join them, one small enough for L2 and one about half the size of
# the last-level cache, each with :math:`I = n/6` for an :math:`n \times n` fp32
# matmul that reads each matrix once. For each operation the table shows the
# roof the model predicts and the roof the measured point sits closest to.

operations += [
    {"label": f"matmul n={mm['side']}", "level": hierarchy.fits_in(mm["bytes"], levels),
     "working_set_bytes": mm["bytes"], "intensity": roofline.intensity(mm["flops"], mm["bytes"]),
     "flops_per_s": mm["flops_per_s"], "flops_per_s_with_call_cost": mm["flops_per_s"]}
    for mm in matmuls]  # fmt: skip
for op in operations:
    placed = op["intensity"], op["flops_per_s"], op["level"]
    op.update(hierarchy.roof_verdict(*placed, level_roofs, peak_flops))
show(page.operations_table(operations), stamp)

# %%
# The figure draws each level's roof in the colour of its plateau in the
# first figure, the all-thread DRAM roof dashed, and the compute roof on top.

shown = []
if args.png:
    out = args.outdir / "09_hierarchical_roofline.png"
    marks = [  # the adds in the colour of their level, the matmuls in black
        (o["label"], o["intensity"], o["flops_per_s"], o["level"] if "add" in o["label"] else "")
        for o in operations]  # fmt: skip
    dram_all = [(f"DRAM, {thread_count} threads", all_bw)] if all_bw else []
    path = hierarchical_roofline_figure(out, level_roofs, peak_flops, marks, dram_all)
    shown.append(display.figure(path, page.roofline_caption(operations, peak_flops)))
show(*shown, page.operations_observations(operations, peak_flops))

# %%
# Saving the results
# ------------------
#
# Everything measured here goes into the results file's ``hierarchy`` section,
# beside lecture 01's ``probe``, so later lectures and the docs can read the
# roofs of this machine without measuring again: the caches, the call costs,
# every sweep point, the plateaus (known and detected), the compute roof, the
# operations and the thread comparison.

# sphinx_gallery_start_ignore
payload = {
    "quick": QUICK, "operation": "z = x + y, fp32, out= (reads 8 B and writes 4 B per element)",
    "bytes_per_element": hierarchy.BYTES_PER_ELEMENT, "cache_source": cache_source or None,
    "caches": [{"name": c.name, **dataclasses.asdict(c)} for c in cache_list],
    "levels": [{"name": name, "size_bytes": size} for name, size in levels], "per_call": costs,
    "sweep": {"sizes_per_octave": per_octave, "budget_seconds": budget["sweep_s"],
              "wall_seconds": sweep_seconds, "points": points},
    "plateau_method": plateau_method,
    "plateaus": [  # a level's range ends at None where it runs past the sweep (DRAM)
        p._asdict() | {"hi_bytes": None if math.isinf(p.hi_bytes) else p.hi_bytes}
        | {"measured_bytes_per_s": raw_plateau.get(p.name)} for p in plateaus],
    "detected_plateaus": [d._asdict() for d in detected], "compute_roof_flops_per_s": peak_flops,
    "compute_roof_source": roof_source, "operations": operations,
    "threads": {**threaded, "ridge_one_thread": ridge_one, "ridge_all_threads": ridge_all},
    "lecture_seconds": time.perf_counter() - lecture_start,
}  # fmt: skip
# sphinx_gallery_end_ignore
saved = results.save_section("hierarchy", payload, args.results)
show(
    display.Text(f"saved results: {display_path(saved)} (section 'hierarchy')"),
    display.Text(f"lecture time: {time.perf_counter() - lecture_start:.1f} s"),
)

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
