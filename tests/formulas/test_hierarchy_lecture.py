"""The hierarchy helpers lecture 09 calls: matmul sizes, levels, medians, chosen points, roofs."""

from __future__ import annotations

import math

import pytest

from common.formulas import hierarchy
from common.formulas.hierarchy import Plateau
from common.tables.units import KIB, MIB


def test_matmul_sides_fill_half_of_each_cache() -> None:
    # sqrt(2 MiB / 2 / 12) = 295.6 -> 256 (multiple of 64); sqrt(105 MiB / 24) = 2141.8 -> 2048
    assert hierarchy.matmul_sides(2 * MIB, 105 * MIB) == [256, 2048]
    assert hierarchy.matmul_sides(KIB, KIB) == [64, 256]  # the floors
    one = 2 * 12 * 256**2  # both caches give n = 256 exactly: one matmul
    assert hierarchy.matmul_sides(one, one) == [256]


def test_fits_in_names_the_level_or_a_dash() -> None:
    levels = [("L1", 1000), ("L2", 8000)]
    assert hierarchy.fits_in(1000, levels) == "L1"
    assert hierarchy.fits_in(1001, levels) == "L2"
    assert hierarchy.fits_in(9000, levels) == "DRAM"
    assert hierarchy.fits_in(5, []) == "-"


def test_plateau_median_skips_missing_values() -> None:
    plateau = Plateau("L2", 2, 4, None, 0, None)
    assert hierarchy.plateau_median(plateau, [1, 2, 3, 4], [10, None, 30, 40]) == 35
    with pytest.raises(ValueError):
        hierarchy.plateau_median(plateau._replace(lo_bytes=10, hi_bytes=20), [1, 2], [1.0, 2.0])


def test_representative_points() -> None:
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


def test_roof_verdict() -> None:
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


def test_lecture_budgets_are_shorter_when_quick() -> None:
    full, quick = hierarchy.LECTURE_BUDGETS["full"], hierarchy.LECTURE_BUDGETS["quick"]
    assert set(full) == set(quick)
    assert all(quick[k] < full[k] for k in full)
