"""The hierarchical roofline: a bandwidth sweep over working-set sizes and its plateaus.

The streamed operation, z = x + y in fp32 with ``out=``, moves D = 12 n bytes on n
elements, and its working set (the three arrays) is the same 12 n bytes.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from statistics import median  # StatisticsError (a ValueError) when empty
from typing import Any, NamedTuple

from common.formulas import roofline
from common.hw_specs import bytes_per_elem
from common.tables.units import KIB, MIB

FP32 = int(bytes_per_elem("fp32"))  # the sweep streams float32 arrays
STREAM_ARRAYS = 3  # x and y read, z written
BYTES_PER_ELEMENT = STREAM_ARRAYS * FP32  # D = 12 n for z = x + y on n elements
FLOPS_PER_ELEMENT = 1  # one addition

MIN_WORKING_SET_BYTES = 4 * KIB  # the sweep's first size: well inside any L1
ASSUMED_LLC_BYTES = 32 * MIB  # used only to size the sweep when the OS names no cache
ASSUMED_L2_BYTES = 512 * KIB  # used only to size the small matmul when the OS names no L2
# The sweep's largest working set: common.measure.budget.sweep_limit_bytes.

INSIDE_MARGIN = 2.0  # "comfortably inside": 2x from both of a level's boundaries
DRAM_MARGIN = 4.0  # caches keep part of a streamed set up to a few times their size
RELIABLE_CALL_SHARE = 0.9  # above this share of fixed cost, t - t0 is mostly noise
CALL_COST_MATTERS = 0.10  # the per-call cost "matters" when it is >= 10% of a call
FLAT_SLOPE = 0.15  # a plateau changes by < 2**0.15 (11%) per octave of working set
NOISE_FLOOR = 0.05  # log2 units (about 3.5%): bandwidths rarely repeat better than that
SAME_LEVEL_STEP = 1.12  # the detector merges neighbouring plateaus within 12%
# The detector's noise rules, in units of the measured noise sigma (log2 units):
PENALTY_SIGMAS2 = 6.0  # a new segment costs 6 sigma^2 ln(n) of squared error
STRAY_SIGMAS = 3.0  # a point strays from its plateau past max(FLAT_SLOPE, 3 sigma)
SLOPE_SIGMAS = 1.0  # a plateau may tilt by FLAT_SLOPE + 1 sigma per octave
# numpy releases the GIL only inside loops longer than 500 elements
# (NPY_BEGIN_THREADS_THRESHOLDED in numpy/_core/include/numpy/ndarraytypes.h),
# so calls above this length pay a little more fixed cost.
GIL_RELEASE_ELEMENTS = 500

#: Lecture 09's time budgets (seconds) and sweep density, for a full run and for --quick.
#: sizes_per_octave: geometric steps of the sweep; sweep_s: all its sizes together; matmul_s:
#: per matmul size; add_s: per add and round on the hierarchical roofline.
LECTURE_BUDGETS: dict[str, dict[str, float]] = {
    "full": {"sizes_per_octave": 4, "sweep_s": 9.0, "call_cost_s": 0.3, "matmul_s": 0.3,
             "add_s": 0.06, "thread_repeats": 6},
    "quick": {"sizes_per_octave": 2, "sweep_s": 1.5, "call_cost_s": 0.1, "matmul_s": 0.1,
              "add_s": 0.03, "thread_repeats": 3},
}  # fmt: skip


def sweep_lengths(lo_bytes: float, hi_bytes: float, per_octave: int) -> list[int]:
    """Array lengths n whose working sets 12 n grow geometrically from lo to hi bytes."""
    steps = math.floor(math.log2(hi_bytes / lo_bytes) * per_octave + 1e-9)
    sizes = (lo_bytes * 2 ** (i / per_octave) for i in range(steps + 1))
    return sorted({max(1, round(size / BYTES_PER_ELEMENT)) for size in sizes})  # rounding repeats


def corrected_bandwidth(nbytes: float, seconds: float, call_seconds: float) -> float | None:
    """beta = D / (t - t_call): bandwidth without the fixed per-call cost; None if t <= t_call."""
    return None if seconds <= call_seconds else nbytes / (seconds - call_seconds)


def fixed_call_seconds(elements: int, call_seconds: float, gil_seconds: float) -> float:
    """Fixed cost of one call on n elements: t_call, plus the GIL release when n > threshold."""
    return call_seconds + (max(0.0, gil_seconds) if elements > GIL_RELEASE_ELEMENTS else 0.0)


def call_share(seconds: float, call_seconds: float) -> float:
    """Share of a call's time that is the fixed per-call cost: t_call / t, within [0, 1]."""
    return min(1.0, max(0.0, call_seconds / seconds))


def affine_fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares line y = a + b x through the points; returns (a, b)."""
    fit = statistics.linear_regression(xs, ys)  # StatisticsError (a ValueError) if degenerate
    return fit.intercept, fit.slope


def matmul_sides(l2_bytes: float, llc_bytes: float, max_side: int | None = None) -> list[int]:
    """Sides n of two fp32 matmuls whose 12 n^2 bytes fill half of L2 and of the LLC, in
    multiples of 64 and of 256 (one side if equal), each at most `max_side`."""
    small = max(64, int(math.sqrt(l2_bytes / INSIDE_MARGIN / 12)) // 64 * 64)
    large = max(256, int(math.sqrt(llc_bytes / INSIDE_MARGIN / 12)) // 256 * 256)
    if max_side is not None:
        small, large = min(small, max_side), min(large, max_side)
    return sorted({small, large})


def fits_in(size: float, levels: Sequence[tuple[str, int]]) -> str:
    """The level a working set fits in, or '-' when the cache sizes are unknown."""
    return next((name for name, s in levels if size <= s), "DRAM") if levels else "-"


class Plateau(NamedTuple):
    """A level's sustained bandwidth: the median over the sweep points inside its range."""

    name: str
    lo_bytes: float
    hi_bytes: float
    bytes_per_s: float | None  # None: no sweep point inside the range
    points: int
    margin: float | None  # the margin that was used (None: found by the detector)


def in_range(size: float, lo: float, hi: float) -> bool:
    """lo <= size <= hi, within 1% (sweep sizes are rounded to whole elements)."""
    return lo * 0.99 <= size <= hi * 1.01


def plateau_median(
    plateau: Plateau, sizes: Sequence[float], values: Sequence[float | None]
) -> float:
    """The median of the positive values whose size is in the plateau's range (ValueError: none)."""
    return median(_inside(sizes, values, plateau.lo_bytes, plateau.hi_bytes))


def representative_points(
    plateaus: Sequence[Plateau], sizes: Sequence[float], values: Sequence[float | None]
) -> list[tuple[Plateau, int]]:
    """One sweep point per plateau, inside its range: (plateau, index into the sweep)."""
    chosen, points = [], list(enumerate(zip(sizes, values, strict=True)))
    for k, p in enumerate(plateaus):
        lo, hi = max(p.lo_bytes, sizes[0]), min(p.hi_bytes, sizes[-1])
        inside = [i for i, (s, v) in points if v is not None and in_range(s, lo, hi)]
        if not inside:
            continue
        centre = math.sqrt(lo * hi)
        middle = min(inside, key=lambda i: abs(math.log(sizes[i] / centre)))
        chosen.append((p, inside[-1] if k == 0 else middle))
    return chosen


def _inside(
    sizes: Sequence[float], values: Sequence[float | None], lo: float, hi: float
) -> list[float]:
    """The positive values whose size is in range [lo, hi]."""
    return [v for s, v in zip(sizes, values, strict=True) if v and v > 0 and in_range(s, lo, hi)]


def plateaus_known(
    sizes: Sequence[float], bandwidths: Sequence[float | None], levels: Sequence[tuple[str, int]]
) -> list[Plateau]:
    """One plateau per level (and DRAM): the median bandwidth of the points inside its range."""
    # level k's range is [S_(k-1) m, S_k / m] (DRAM's: past m x LLC), m the first margin tried
    # that holds a point
    edges = [0.0, *(float(size) for _, size in levels), math.inf]
    plateaus = []
    for k, name in enumerate([*(name for name, _ in levels), "DRAM"]):
        first = DRAM_MARGIN if k == len(levels) else INSIDE_MARGIN
        tried = [first] + [m for m in (INSIDE_MARGIN, math.sqrt(INSIDE_MARGIN), 1.0) if m < first]
        spans = [(edges[k] * m, edges[k + 1] / m, m) for m in tried]
        hits = [(lo, hi, m, v) for lo, hi, m in spans if (v := _inside(sizes, bandwidths, lo, hi))]
        if hits:
            lo, hi, m, values = hits[0]
            plateaus.append(Plateau(name, lo, hi, median(values), len(values), m))
        else:
            plateaus.append(Plateau(name, *spans[0][:2], None, 0, None))
    return plateaus


def segment_means(values: Sequence[float], penalty: float, min_length: int = 2) -> list[int]:
    """Optimal piecewise-constant split: start indices minimising SSE + penalty per segment."""
    n = len(values)
    if n < 2 * min_length:  # too short to split
        return [0] if n else []
    s1 = list(itertools.accumulate(values, initial=0.0))  # prefix sums: O(1) segment costs
    s2 = list(itertools.accumulate((v * v for v in values), initial=0.0))

    def sse(a: int, b: int) -> float:  # values[a:b]
        total = s1[b] - s1[a]
        return s2[b] - s2[a] - total * total / (b - a)

    best = [0.0] + [math.inf] * n  # best[b]: cheapest split of values[:b]; inf if impossible
    start = [0] * (n + 1)
    for b in range(min_length, n + 1):
        for a in range(0, b - min_length + 1):
            if (cost := best[a] + sse(a, b) + penalty) < best[b]:
                best[b], start[b] = cost, a
    cuts, b = [], n
    while b > 0:
        cuts.append(start[b])
        b = start[b]
    return sorted(cuts)


def find_plateaus(sizes: Sequence[float], bandwidths: Sequence[float | None]) -> list[Plateau]:
    """Plateaus of a bandwidth curve, named 'plateau 1', ... outward, without the cache sizes:
    on log2 scales a 3-point median, then constant segments by penalised least squares
    (penalty 6 sigma^2 ln n, sigma the neighbours' noise, at least `NOISE_FLOOR`), kept when
    flat enough and long enough, neighbours within the factor `SAME_LEVEL_STEP` merged."""
    min_points, min_octaves = 3, 1.0  # a plateau spans 3 points and an octave at least
    pts = sorted(
        (float(s), float(b)) for s, b in zip(sizes, bandwidths, strict=True) if b and b > 0
    )
    if len(pts) < min_points:
        return []
    xs = [math.log2(s) for s, _ in pts]
    raw_all = [math.log2(b) for _, b in pts]

    def level(seg: list[int]) -> float:  # a segment's median bandwidth
        return median([pts[i][1] for i in seg])

    ys = [median(raw_all[max(0, i - 1) : i + 2]) for i in range(len(raw_all))]  # 3-point
    # Noise of one point from neighbour differences of the raw curve (the median
    # ignores the few differences that straddle a step), with a floor.
    diffs = [abs(b - a) for a, b in itertools.pairwise(raw_all)]
    sigma = max(NOISE_FLOOR, 1.4826 * median(diffs) / math.sqrt(2))  # 3 points or more
    cuts = [*segment_means(ys, PENALTY_SIGMAS2 * sigma**2 * math.log(len(ys))), len(ys)]
    stray_limit = max(FLAT_SLOPE, STRAY_SIGMAS * sigma)
    segments: list[list[int]] = []
    for a, b in itertools.pairwise(cuts):
        idx = list(range(a, b))
        if len(idx) < min_points or xs[idx[-1]] - xs[idx[0]] < min_octaves - 0.05:
            continue
        slope = affine_fit([xs[i] for i in idx], [ys[i] for i in idx])[1]
        # Flat, and flat throughout: at most a quarter of the points stray from the
        # segment's median by more than the allowed slope or the noise allows.
        raw = [raw_all[i] for i in idx]
        strays = sum(abs(r - median(raw)) > stray_limit for r in raw)
        if abs(slope) <= FLAT_SLOPE + SLOPE_SIGMAS * sigma and strays <= len(idx) // 4:
            segments.append(idx)
    merged: list[list[int]] = []
    for seg in segments:
        if merged:
            a, b = level(merged[-1]), level(seg)
            if max(a, b) / min(a, b) < SAME_LEVEL_STEP:
                merged[-1] = merged[-1] + seg
                continue
        merged.append(seg)
    return [
        Plateau(f"plateau {k}", pts[seg[0]][0], pts[seg[-1]][0], level(seg), len(seg), None)
        for k, seg in enumerate(merged, 1)]  # fmt: skip


def name_detected(plateaus: Sequence[Plateau]) -> list[Plateau]:
    """Name detected plateaus as levels: L1, L2, ... and the last (largest sets) DRAM."""
    count = len(plateaus)
    names = [f"L{k}" for k in range(1, count)] + ["DRAM"] if count else []
    return [p._replace(name=name) for p, name in zip(plateaus, names, strict=True)]


def closest_roof(
    intensity: float, flops_per_s: float, roofs: Sequence[tuple[str, float]], peak: float
) -> tuple[str, float]:
    """The roof nearest a measured point on log scales, (name, measured / roof): each level's
    I beta below P, or P itself ('compute')."""
    candidates = [(name, intensity * bw) for name, bw in roofs if intensity * bw < peak]
    candidates.append(("compute", peak))
    name, value = min(candidates, key=lambda c: abs(math.log(flops_per_s / c[1])))
    return name, flops_per_s / value


def roof_verdict(intensity: float, flops_per_s: float, level: str,
                 roofs: Sequence[tuple[str, float]], peak: float) -> dict[str, Any]:  # fmt: skip
    """The roof a point sits closest to and the one predicted for `level`, each with
    measured / roof (the predicted pair None when `level` has no roof)."""
    closest, fraction = closest_roof(intensity, flops_per_s, roofs, peak)
    verdict: dict[str, Any] = {"closest_roof": closest, "fraction_of_closest": fraction}
    if level in dict(roofs):
        rate = roofline.attainable_flops(intensity, peak, dict(roofs)[level])
        predicted, value = (level, rate) if rate < peak else ("compute", peak)
        verdict.update(predicted_roof=predicted, fraction_of_predicted=flops_per_s / value)
    else:
        verdict.update(predicted_roof=None, fraction_of_predicted=None)
    return verdict


def call_cost_limit_bytes(
    sizes: Sequence[float], seconds: Sequence[float], fixed_seconds: Sequence[float]
) -> float | None:
    """The largest working set whose fixed cost is >= CALL_COST_MATTERS of its call; or None."""
    timed = zip(sizes, seconds, fixed_seconds, strict=True)
    return max((s for s, t, f in timed if call_share(t, f) >= CALL_COST_MATTERS), default=None)


def call_costs(
    one_element_s: float, below_s: float | None, above_s: float | None
) -> dict[str, Any]:
    """The call-cost record from t(1), t(500), t(501): t_call and the GIL step t(501) - t(500)."""
    gil = 0.0 if below_s is None or above_s is None else max(0.0, above_s - below_s)
    return {"call_seconds": one_element_s, "gil_seconds": gil,
            "gil_threshold_elements": GIL_RELEASE_ELEMENTS, "below_threshold_seconds": below_s,
            "above_threshold_seconds": above_s}  # fmt: skip


def merge_call_costs(*records: dict[str, Any]) -> dict[str, Any]:
    """Combine call-cost measurements from several moments: the fastest of each timing."""

    def fastest(key: str) -> float | None:
        return min((r[key] for r in records if r.get(key) is not None), default=None)

    return call_costs(
        min(r["call_seconds"] for r in records),
        fastest("below_threshold_seconds"),
        fastest("above_threshold_seconds"))  # fmt: skip
