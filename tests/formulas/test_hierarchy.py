"""The hierarchy sweep's pure half on synthetic curves, the helpers lecture 09 calls, and the
plateau detector's target: on 100 random four-level machines (each level 1.5-3x faster than the
next) swept at 4 points an octave with 8% log-normal noise, at least 95% of curves give exactly
four plateaus, each within 10% of the true bandwidth (the detector before it: about 43%)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from common.formulas import hierarchy
from common.formulas.hierarchy import Plateau

KIB, MIB, GB = 2**10, 2**20, 1e9

FOUR_LEVELS = [("L1", 32 * KIB), ("L2", 1 * MIB), ("L3", 32 * MIB)]
FOUR_PLATEAUS = {"L1": 200 * GB, "L2": 100 * GB, "L3": 60 * GB, "DRAM": 20 * GB}
NO_L3 = [("L1", 64 * KIB), ("L2", 4 * MIB)]
NO_L3_PLATEAUS = {"L1": 150 * GB, "L2": 70 * GB, "DRAM": 25 * GB}


def synthetic_curve(levels: list[tuple[str, int]], plateaus: dict[str, float], seed: int,
                    noise: float = 0.03, per_octave: int = 4,
                    hi_bytes: float = 256 * MIB) -> tuple[list[float], list[float]]:  # fmt: skip
    """Bandwidth against working set: logistic steps in log2 size, log-normal noise `noise`."""
    rng = random.Random(seed)
    names = [name for name, _ in levels] + ["DRAM"]
    sizes = [
        n * hierarchy.BYTES_PER_ELEMENT
        for n in hierarchy.sweep_lengths(4 * KIB, hi_bytes, per_octave)]  # fmt: skip
    bws = []
    for s in sizes:
        log_bw = math.log(plateaus["DRAM"])
        for (name, size), outer in zip(levels, names[1:], strict=True):
            step = math.log(plateaus[name]) - math.log(plateaus[outer])
            # the drop is centred just past the cache size and spread over about an octave
            log_bw += step / (1 + math.exp((math.log2(s) - math.log2(size) - 0.3) / 0.25))
        bws.append(math.exp(log_bw + rng.gauss(0.0, noise)))
    return sizes, bws


def random_machine(rng: random.Random) -> tuple[list[tuple[str, int]], dict[str, float]]:
    """Three caches and DRAM of plausible sizes and bandwidths (each level 1.5-3x the next)."""
    levels = [
        ("L1", 2 ** rng.randint(15, 16)),  # 32-64 KiB
        ("L2", 2 ** rng.randint(19, 21)),  # 512 KiB - 2 MiB
        ("L3", 2 ** rng.randint(24, 25)),  # 16-32 MiB
    ]
    dram = rng.uniform(10, 30) * GB
    l3 = dram * rng.uniform(1.8, 3.0)
    l2 = l3 * rng.uniform(1.5, 2.0)
    l1 = l2 * rng.uniform(1.5, 2.0)
    return levels, {"L1": l1, "L2": l2, "L3": l3, "DRAM": dram}


def close(a: float, b: float, tol: float) -> bool:
    return abs(a / b - 1) <= tol


KNOWN = [(FOUR_LEVELS, FOUR_PLATEAUS, seed) for seed in (0, 1, 2, 3)]
KNOWN += [(NO_L3, NO_L3_PLATEAUS, seed) for seed in (10, 11)]


@pytest.mark.parametrize(("levels", "truth", "seed"), KNOWN)
def test_plateaus_known_with_and_without_l3(levels, truth: dict, seed: int) -> None:
    sizes, bws = synthetic_curve(levels, truth, seed)
    found = hierarchy.plateaus_known(sizes, bws, levels)
    assert [p.name for p in found] == list(truth)  # L1, L2, (L3,) DRAM
    for p in found:
        assert p.bytes_per_s is not None and p.points >= 3
        assert close(p.bytes_per_s, truth[p.name], 0.06), p
    assert [p.margin for p in found] == [2.0] * len(levels) + [4.0]


def test_plateau_is_median_of_points_inside() -> None:
    sizes = [1 * KIB, 2 * KIB, 4 * KIB, 8 * KIB, 64 * KIB, 128 * KIB]
    bws = [10.0, 30.0, 20.0, 999.0, 5.0, 7.0]
    found = hierarchy.plateaus_known(sizes, bws, [("L1", 16 * KIB)])
    assert found[0] == Plateau("L1", 0.0, 8 * KIB, 25.0, 4, 2.0)  # median of 10, 30, 20, 999
    assert found[1].name == "DRAM" and found[1].bytes_per_s == 6.0
    assert found[1].lo_bytes == 64 * KIB and math.isinf(found[1].hi_bytes)
    sizes = [1 * KIB, 2 * KIB, 4 * KIB, 64 * KIB]
    found = hierarchy.plateaus_known(sizes, [None, 30.0, None, 5.0], [("L1", 16 * KIB)])
    assert (found[0].bytes_per_s, found[0].points) == (30.0, 1)
    plateau = Plateau("L2", 2, 4, None, 0, None)
    assert hierarchy.plateau_median(plateau, [1, 2, 3, 4], [10, None, 30, 40]) == 35
    with pytest.raises(ValueError):
        hierarchy.plateau_median(plateau._replace(lo_bytes=10, hi_bytes=20), [1, 2], [1.0, 2.0])
    levels = [("L1", 16 * KIB)]
    found = hierarchy.plateaus_known([1 * KIB, 2 * KIB, 3 * KIB], [0.0, 0.5, 0.7], levels)
    assert found[0].bytes_per_s == pytest.approx(0.6)  # the zero is no measurement
    # the only L1 point sits at 15.5 KiB: found only at the bare boundary (margin 1)
    edge = hierarchy.plateaus_known([15.5 * KIB, 1 * MIB], [10.0, 5.0], levels)[0]
    assert (edge.bytes_per_s, edge.margin) == (10.0, 1.0)
    levels = [("L1", 32 * KIB), ("L2", 64 * KIB), ("L3", 8 * MIB)]  # no size 2x from both ends
    sizes, bws = synthetic_curve(
        levels, {"L1": 200 * GB, "L2": 150 * GB, "L3": 60 * GB, "DRAM": 20 * GB}, seed=5
    )
    found = {p.name: p for p in hierarchy.plateaus_known(sizes, bws, levels)}
    assert found["L2"].bytes_per_s is not None
    assert found["L2"].margin is not None and found["L2"].margin < 2.0 and found["L1"].margin == 2.0
    sizes, bws = synthetic_curve(FOUR_LEVELS, FOUR_PLATEAUS, seed=3, hi_bytes=16 * MIB)
    found = hierarchy.plateaus_known(sizes, bws, FOUR_LEVELS)
    assert found[-1].name == "DRAM"
    assert found[-1].bytes_per_s is None and found[-1].points == 0 and found[-1].margin is None
    sizes, bws = synthetic_curve(FOUR_LEVELS, FOUR_PLATEAUS, seed=4, hi_bytes=80 * MIB)
    dram = hierarchy.plateaus_known(sizes, bws, FOUR_LEVELS)[-1]
    assert dram.bytes_per_s is not None
    assert dram.margin is not None and dram.margin < hierarchy.DRAM_MARGIN


def test_level_ranges() -> None:
    found = hierarchy.plateaus_known([], [], FOUR_LEVELS)  # no points: the first margins' ranges
    assert [(p.name, p.lo_bytes, p.hi_bytes) for p in found] == [
        ("L1", 0, 16 * KIB), ("L2", 64 * KIB, 512 * KIB), ("L3", 2 * MIB, 16 * MIB),
        ("DRAM", 128 * MIB, math.inf),
    ]  # fmt: skip
    assert hierarchy.plateaus_known([], [], [])[0] == Plateau("DRAM", 0.0, math.inf, None, 0, None)
    levels = [("L1", 1000), ("L2", 8000)]
    assert [hierarchy.fits_in(n, levels) for n in (1000, 1001, 9000)] == ["L1", "L2", "DRAM"]
    assert hierarchy.fits_in(5, []) == "-"
    sizes = (16 * KIB, 32 * KIB, 33 * KIB, 2**30)
    assert [hierarchy.fits_in(n, FOUR_LEVELS) for n in sizes] == ["L1", "L1", "L2", "DRAM"]
    lengths = hierarchy.sweep_lengths(4 * KIB, 256 * MIB, 4)
    assert len(lengths) == 16 * 4 + 1 and lengths == sorted(set(lengths))
    ws = [n * hierarchy.BYTES_PER_ELEMENT for n in lengths]
    assert close(ws[0], 4 * KIB, 0.01) and close(ws[-1], 256 * MIB, 0.01)
    ratios = [b / a for a, b in itertools.pairwise(ws)]
    assert all(close(r, 2**0.25, 0.02) for r in ratios[5:])
    assert len(hierarchy.sweep_lengths(4 * KIB, 64 * KIB, 2)) == 9
    # the edges: n = round(4096 x 2^i / 12) for i = 0..4 at one size per octave
    assert hierarchy.sweep_lengths(4096, 65536, 1) == [341, 683, 1365, 2731, 5461]
    assert hierarchy.sweep_lengths(4096, 4096, 4) == [341]  # lo = hi is one size
    assert hierarchy.sweep_lengths(1, 12, 1) == [1]  # never below one element
    assert hierarchy.sweep_lengths(12, 48, 4) == [1, 2, 3, 4]  # repeats dropped
    # log2(2^(1/4)) x 4 is 0.9999999999999998 in floating point: still two sizes
    assert len(hierarchy.sweep_lengths(4096, 4096 * 2 ** (1 / 4), 4)) == 2


BLIND = [(FOUR_LEVELS, FOUR_PLATEAUS, seed) for seed in (0, 1, 2, 3, 4)]
BLIND += [(NO_L3, NO_L3_PLATEAUS, seed) for seed in (7, 8, 9)]


@pytest.mark.parametrize(("levels", "truth", "seed"), BLIND)
def test_detector_finds_four_levels_or_three_without_l3(levels, truth: dict, seed: int) -> None:
    sizes, bws = synthetic_curve(levels, truth, seed)
    found = hierarchy.find_plateaus(sizes, bws)
    assert len(found) == len(truth)
    for p, (name, bw) in zip(found, truth.items(), strict=True):
        assert close(p.bytes_per_s, bw, 0.08), (name, p)
    # each plateau stays between the cache sizes around it (with the transition's width)
    bounds = [0.0] + [size for _, size in levels] + [math.inf]
    for p, lo, hi in zip(found, bounds, bounds[1:], strict=False):
        assert lo / 2 <= p.lo_bytes <= p.hi_bytes <= hi * 2
    assert [p.name for p in hierarchy.name_detected(found)] == list(truth)


def test_detector_agrees_with_known_sizes() -> None:
    sizes, bws = synthetic_curve(FOUR_LEVELS, FOUR_PLATEAUS, seed=21)
    known = hierarchy.plateaus_known(sizes, bws, FOUR_LEVELS)
    blind = hierarchy.find_plateaus(sizes, bws)
    for k, b in zip(known, blind, strict=True):
        assert close(k.bytes_per_s, b.bytes_per_s, 0.08)
    same = {"L1": 100 * GB, "L2": 97 * GB, "L3": 60 * GB, "DRAM": 20 * GB}
    sizes, bws = synthetic_curve(FOUR_LEVELS, same, seed=2, noise=0.01)
    found = hierarchy.find_plateaus(sizes, bws)
    assert len(found) == 3 and close(found[0].bytes_per_s, 98.5 * GB, 0.05)


def test_detector_on_a_flat_curve_and_on_too_few_points() -> None:
    sizes = [4 * KIB * 2**i for i in range(12)]
    (flat,) = hierarchy.find_plateaus(sizes, [50.0] * 12)  # a detected plateau spans its points
    assert flat[:5] == ("plateau 1", sizes[0], sizes[-1], 50.0, 12)
    assert hierarchy.find_plateaus(sizes[:2], [50.0, 50.0]) == []
    assert hierarchy.find_plateaus(sizes[:4], [None, None, 50.0, None]) == []
    assert hierarchy.name_detected([]) == []
    three = hierarchy.find_plateaus([4096, 8192, 16384], [50.0] * 3)
    assert [(p.points, p.bytes_per_s) for p in three] == [(3, 50.0)]  # three points suffice
    assert hierarchy.find_plateaus([2**12, 2**12.48, 2**12.96], [50.0] * 3)  # 0.96 octave
    assert hierarchy.find_plateaus([2**12, 2**12.25, 2**12.5], [50.0] * 3) == []  # too short
    # a two-point bump survives the 3-point median and is cut out: 22 of 24 points remain
    (bump,) = hierarchy.find_plateaus(SIZES_24, _with([10, 11], 2.0))
    assert bump.points == 22
    # eight of 24 points 15% high (in pairs, so the noise estimate stays at its floor):
    # more than a quarter stray, so no plateau; six are within the allowance
    assert hierarchy.find_plateaus(SIZES_24, _with([2, 3, 8, 9, 14, 15, 20, 21], 2**0.2)) == []
    assert len(hierarchy.find_plateaus(SIZES_24, _with([2, 3, 9, 10, 16, 17], 2**0.2))) == 1
    # a clean tilt of 0.3 per octave over one octave is not flat, though no point strays
    tilt = [100 * 2 ** (0.3 * i / 4) for i in range(5)]
    assert hierarchy.find_plateaus(SIZES_24[:5], tilt) == []
    # medians exactly 12% apart are two levels (the merge needs less than 12%)
    assert len(hierarchy.find_plateaus(SIZES_24, [100.0] * 12 + [112.0] * 12)) == 2
    slow = hierarchy.find_plateaus(sizes, [0.5] * 12)  # bandwidth below 1 B/s still counts
    assert [p.bytes_per_s for p in slow] == [0.5]
    # a range just one octave short of the 0.95-octave minimum (0.947) is too short
    assert hierarchy.find_plateaus([2**12, 2**12.47, 2**12.947], [50.0] * 3) == []


def test_median() -> None:
    assert hierarchy.median([3, 1, 2]) == 2 and hierarchy.median([4, 1, 2, 3]) == 2.5
    nbytes = [8 * KIB, 12 * KIB, 16 * KIB, 24 * KIB]
    times = [450e-9 + d / (110 * GB) for d in nbytes]
    intercept, slope = hierarchy.affine_fit(nbytes, times)
    assert intercept == pytest.approx(450e-9) and 1 / slope == pytest.approx(110 * GB)
    bad = [(hierarchy.find_plateaus, [1.0, 2.0, 3.0], [1.0, 2.0]), (hierarchy.median, []),
           (hierarchy.plateaus_known, [1.0, 2.0], [1.0], [("L1", 16 * KIB)]),
           (hierarchy.call_cost_limit_bytes, [1.0, 2.0], [1.0], [1.0]),
           (hierarchy.affine_fit, [1.0], [2.0]),
           (hierarchy.affine_fit, [1.0, 1.0], [2.0, 3.0])]  # fmt: skip
    for call, *args in bad:  # lengths that differ, too few points
        with pytest.raises(ValueError):
            call(*args)


def test_corrected_bandwidth_math() -> None:
    # D = 1200 B in t = 1 us with t_call = 0.4 us: the memory moved it in 0.6 us.
    assert hierarchy.corrected_bandwidth(1200, 1e-6, 4e-7) == pytest.approx(2e9)
    assert hierarchy.corrected_bandwidth(1200, 1e-6, 0.0) == pytest.approx(1.2e9)
    assert hierarchy.corrected_bandwidth(1200, 4e-7, 4e-7) is None
    assert hierarchy.corrected_bandwidth(1200, 3e-7, 4e-7) is None
    t_call, gil, beta = 400e-9, 60e-9, 120 * GB
    for n in (16, 500, 501, 4096, 10**6):
        d = n * hierarchy.BYTES_PER_ELEMENT
        t0 = hierarchy.fixed_call_seconds(n, t_call, gil)
        assert t0 == pytest.approx(t_call + (gil if n > 500 else 0.0))
        assert hierarchy.corrected_bandwidth(d, t0 + d / beta, t0) == pytest.approx(beta)
    assert hierarchy.fixed_call_seconds(10**6, t_call, -5e-9) == t_call  # noise never lowers t0
    assert hierarchy.call_share(1e-6, 4e-7) == pytest.approx(0.4)
    assert hierarchy.call_share(1e-6, 2e-6) == 1.0
    sizes = [4 * KIB, 64 * KIB, 1 * MIB, 16 * MIB]
    seconds = [5e-7, 1.5e-6, 1.2e-5, 2e-4]
    fixed = [4e-7] * 4
    assert hierarchy.call_cost_limit_bytes(sizes, seconds, fixed) == 64 * KIB
    assert hierarchy.call_cost_limit_bytes(sizes[2:], seconds[2:], fixed[2:]) is None
    record = hierarchy.call_costs(4e-7, 6e-7, 6.5e-7)
    assert record == {
        "call_seconds": 4e-7, "gil_seconds": pytest.approx(0.5e-7), "gil_threshold_elements": 500,
        "below_threshold_seconds": 6e-7, "above_threshold_seconds": 6.5e-7,
    }  # fmt: skip
    assert hierarchy.call_costs(4e-7, 6e-7, 5e-7)["gil_seconds"] == 0.0  # noise: never negative
    assert hierarchy.call_costs(4e-7, None, 5e-7)["gil_seconds"] == 0.0
    assert hierarchy.call_costs(4e-7, 6e-7, None)["gil_seconds"] == 0.0
    merged = hierarchy.merge_call_costs(
        hierarchy.call_costs(5e-7, 7e-7, 8e-7),
        hierarchy.call_costs(4e-7, 9e-7, None),
        hierarchy.call_costs(6e-7, None, 7.5e-7),
    )
    fastest = [merged[f"{k}_seconds"] for k in ("call", "below_threshold", "above_threshold")]
    assert fastest == [4e-7, 7e-7, 7.5e-7]  # the fastest of each timing
    assert merged["gil_seconds"] == pytest.approx(0.5e-7)
    only = hierarchy.merge_call_costs(hierarchy.call_costs(5e-7, None, None))
    assert only["below_threshold_seconds"] is None and only["gil_seconds"] == 0.0


def test_roofs_for_operations() -> None:
    roofs = [("L1", 200 * GB), ("L2", 100 * GB), ("DRAM", 20 * GB)]
    peak = 100 * GB  # FLOP/s
    i_add = 1 / 12
    # An add running just under the L2 roof is closest to it.
    name, fraction = hierarchy.closest_roof(i_add, 0.95 * i_add * 100 * GB, roofs, peak)
    assert name == "L2" and fraction == pytest.approx(0.95)
    assert hierarchy.closest_roof(i_add, i_add * 19 * GB, roofs, peak)[0] == "DRAM"
    # At high intensity every memory roof is above the compute roof.
    assert hierarchy.closest_roof(200.0, 60 * GB, roofs, peak) == ("compute", 0.6)
    verdict = hierarchy.roof_verdict(i_add, i_add * 100 * GB, "L1", roofs, peak)
    assert verdict["predicted_roof"] == "L1"
    assert verdict["fraction_of_predicted"] == pytest.approx(0.5)
    verdict = hierarchy.roof_verdict(10.0, 50 * GB, "DRAM", roofs, peak)
    assert verdict["predicted_roof"] == "compute" and verdict["fraction_of_predicted"] == 0.5
    roofs = [("L1", 5.0)]
    assert hierarchy.closest_roof(0.1, 0.5, roofs, 0.8) == ("L1", 1.0)  # small numbers work
    assert hierarchy.roof_verdict(1.0, 5.0, "L1", roofs, 5.0)["predicted_roof"] == "compute"  # tie
    assert hierarchy.call_cost_limit_bytes([100], [10.0], [1.0]) == 100  # exactly 10%
    # the L1 roof (I beta = 160) lies above the compute roof (100): it is not a candidate
    assert hierarchy.closest_roof(1.0, 150.0, [("L1", 160.0)], 100.0) == ("compute", 1.5)
    roofs = [("L1", 1e11), ("L2", 2e10)]
    # I = 0.1: L1 roof 10 GFLOP/s, L2 roof 2 GFLOP/s; 1.9 GFLOP/s is 95% of L2's
    near = hierarchy.roof_verdict(0.1, 1.9e9, "L2", roofs, 1e12)
    assert near["closest_roof"] == "L2" and near["predicted_roof"] == "L2"
    assert near["fraction_of_closest"] == pytest.approx(0.95)
    assert near["fraction_of_predicted"] == pytest.approx(0.95)
    # I = 100: both memory roofs are above P = 1 TFLOP/s, so compute bounds; 0.5 TFLOP/s is 50%
    high = hierarchy.roof_verdict(100, 5e11, "L2", roofs, 1e12)
    assert high["closest_roof"] == "compute" and high["predicted_roof"] == "compute"
    assert high["fraction_of_predicted"] == pytest.approx(0.5)
    unknown = hierarchy.roof_verdict(0.1, 1.9e9, "-", roofs, 1e12)
    assert unknown["predicted_roof"] is None and unknown["fraction_of_predicted"] is None


def test_segment_means_finds_steps() -> None:
    values = [5.0] * 6 + [3.0] * 5 + [1.0] * 7
    assert hierarchy.segment_means(values, penalty=0.5) == [0, 6, 11]
    assert hierarchy.segment_means(values, penalty=1e6) == [0]  # steps never pay for themselves
    assert hierarchy.segment_means([1.0, 9.0, 1.0], penalty=0.0) == [0]  # too short to split
    assert hierarchy.segment_means([], penalty=1.0) == []
    # every segment keeps at least min_length values, even with a free split
    cuts = hierarchy.segment_means([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], penalty=0.0, min_length=2)
    assert all(b - a >= 2 for a, b in itertools.pairwise([*cuts, 6]))
    rng = random.Random(3)
    for _ in range(40):
        n = rng.randint(4, 9)
        values = [rng.choice([0.0, 1.0, 3.0]) + rng.gauss(0, 0.2) for _ in range(n)]
        penalty, min_length = rng.uniform(0.05, 1.5), rng.choice([1, 2, 3])
        if n < 2 * min_length:
            continue
        assert hierarchy.segment_means(values, penalty, min_length) == _brute_segments(
            values, penalty, min_length
        )
    assert hierarchy.segment_means([0.0, 0.0, 9.0, 9.0], 0.1) == [0, 2]  # min length 2
    assert hierarchy.segment_means([1.0, 5.0, 9.0], 0.0, min_length=1) == [0, 1, 2]
    assert hierarchy.segment_means([2.0] * 6, penalty=0.0) == [0]  # ties keep one segment


def test_stream_constants() -> None:
    # z = x + y in fp32: read 8 bytes, write 4 per element; numpy's GIL threshold of 500
    assert (hierarchy.BYTES_PER_ELEMENT, hierarchy.FLOPS_PER_ELEMENT) == (12, 1)
    assert hierarchy.GIL_RELEASE_ELEMENTS == 500
    assert hierarchy.MIN_WORKING_SET_BYTES == 4096 and hierarchy.ASSUMED_L2_BYTES == 512 * 1024
    assert (hierarchy.INSIDE_MARGIN, hierarchy.DRAM_MARGIN) == (2.0, 4.0)
    assert (hierarchy.RELIABLE_CALL_SHARE, hierarchy.CALL_COST_MATTERS) == (0.9, 0.10)
    assert (hierarchy.PENALTY_SIGMAS2, hierarchy.STRAY_SIGMAS, hierarchy.SLOPE_SIGMAS) == (6, 3, 1)
    assert (hierarchy.FLAT_SLOPE, hierarchy.NOISE_FLOOR, hierarchy.SAME_LEVEL_STEP) == (
        0.15, 0.05, 1.12)  # fmt: skip
    assert hierarchy.ASSUMED_LLC_BYTES == 32 * MIB
    full, quick = hierarchy.LECTURE_BUDGETS["full"], hierarchy.LECTURE_BUDGETS["quick"]
    assert set(full) == set(quick) and all(quick[k] < full[k] for k in full)
    assert hierarchy.in_range(99.0, 100, 200) and not hierarchy.in_range(98.9, 100, 200)
    assert hierarchy.in_range(202.0, 100, 200) and not hierarchy.in_range(202.1, 100, 200)
    assert hierarchy.in_range(100, 100, 200) and hierarchy.in_range(200, 100, 200)
    assert hierarchy.matmul_sides(2 * MIB, 105 * MIB) == [256, 2048]
    assert hierarchy.matmul_sides(KIB, KIB) == [64, 256]  # the floors
    # a side cap of 1,024 (then 128) cuts the larger side (then both) to it
    assert hierarchy.matmul_sides(2 * MIB, 105 * MIB, 1024) == [256, 1024]
    assert hierarchy.matmul_sides(2 * MIB, 105 * MIB, 128) == [128]
    one = 2 * 12 * 256**2  # both caches give n = 256 exactly: one matmul
    assert hierarchy.matmul_sides(one, one) == [256]
    sizes = [1, 2, 5, 10, 20, 40, 80, 160, 320, 640]
    values = [1.0] * 10
    values[5] = None  # 40: no corrected value
    plateaus = [
        Plateau("L1", 0, 10, 1.0, 4, 2.0),
        Plateau("L2", 20, 100, 1.0, 2, 2.0),
        Plateau("L3", 1000, 2000, None, 0, None),  # past the sweep: left out
        Plateau("DRAM", 200, math.inf, 1.0, 2, 4.0),
    ]
    chosen = hierarchy.representative_points(plateaus, sizes, values)
    # L1: the largest size inside (10, index 3); L2: range 20..100, middle sqrt(2000) = 44.7,
    # nearest of 20 and 80 in log scale is 80 (index 6); DRAM: 200..640, middle 357.8 -> 320
    assert [(p.name, i) for p, i in chosen] == [("L1", 3), ("L2", 6), ("DRAM", 8)]


def _brute_segments(values: list[float], penalty: float, min_length: int) -> list[int]:
    """The cheapest split by trying every one (SSE + penalty per segment)."""
    n = len(values)

    def sse(part: list[float]) -> float:
        mean = sum(part) / len(part)
        return sum((v - mean) ** 2 for v in part)

    def splits(start: int):
        if start == n:
            yield []
            return
        for end in range(start + min_length, n + 1):
            for rest in splits(end):
                yield [start, *rest]

    return min(
        splits(0),
        key=lambda cuts: sum(sse(values[a:b]) + penalty for a, b in itertools.pairwise([*cuts, n])),
    )


SIZES_24 = [4096 * 2 ** (i / 4) for i in range(24)]


def _with(indices: list[int], factor: float, n: int = 24) -> list[float]:
    values = [100.0] * n
    for i in indices:
        values[i] = 100.0 * factor
    return values


def detected_right(seed: int, noise: float) -> bool:
    levels, truth = random_machine(random.Random(1000 + seed))
    sizes, bws = synthetic_curve(levels, truth, seed, noise=noise)
    found = hierarchy.find_plateaus(sizes, bws)
    return len(found) == 4 and all(
        abs(p.bytes_per_s / t - 1) <= 0.10 for p, t in zip(found, truth.values(), strict=True)
    )


@pytest.mark.parametrize(("noise", "target"), [(0.03, 0.99), (0.08, 0.95)])
def test_accuracy_target_on_random_machines(noise: float, target: float) -> None:
    right = sum(detected_right(seed, noise) for seed in range(100))
    assert right >= 100 * target, f"{right}/100 curves right at {noise:.0%} noise"
