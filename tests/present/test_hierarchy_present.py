"""Lecture 09's tables and sentences, from hand-made caches, sweeps, plateaus and operations."""

from __future__ import annotations

import math
from types import SimpleNamespace

from common.formulas.hierarchy import Plateau
from common.present import hierarchy as report
from common.present.display import Group, Table
from common.tables.units import GIB, KIB, MIB

L1 = Plateau("L1", 0, 24 * KIB, 1.5e11, 9, 2.0)
L2 = Plateau("L2", 96 * KIB, MIB, 3.6e10, 14, 2.0)
DRAM = Plateau("DRAM", 420 * MIB, math.inf, 5e9, 4, 4.0)
LEVELS = [("L1", 48 * KIB), ("L2", 2 * MIB)]
SIZES = [4 * KIB, 600 * MIB]


def table(group: Group) -> Table:
    """The table in a group (a heading, the table, maybe a note)."""
    return next(item for item in group.items if isinstance(item, Table))


def test_cache_table_or_the_unknown_line() -> None:
    caches = [SimpleNamespace(name="L1d", kind="Data", size_bytes=48 * KIB, shared_cpus=1)]
    table_ = table(report.cache_table(caches, "sysfs"))
    assert table_.rows == [["L1d", "Data", "48 KiB", "1 CPU(s)"]]
    assert table_.note == "source: sysfs"
    assert str(report.cache_table([], "")).startswith("cache sizes: unknown")


def test_compute_roof_facts_and_the_raise() -> None:
    matmuls = [{"side": 256, "bytes": 768 * KIB, "flops_per_s": 2e10}]
    lines = str(report.compute_roof_facts(1e10, "lecture 01's calibration", matmuls, 2e10))
    assert lines.splitlines() == [
        "compute roof: 10.0 GFLOP/s (lecture 01's calibration)",
        "matmul n=256: 20.0 GFLOP/s (768.00 KiB of matrices)",
        "compute roof raised from 10.0 GFLOP/s to 20.0 GFLOP/s: the n=256 matmul ran faster "
        "than the calibration, which other work probably slowed",
    ]
    assert "raised" not in str(report.compute_roof_facts(3e10, "x", matmuls, 3e10))


def test_call_cost_table_and_the_second_measurement() -> None:
    table_ = table(report.call_cost_table({"call_seconds": 3e-7, "gil_seconds": 1.2e-7}))
    assert [r[1] for r in table_.rows] == ["300 ns", "120 ns", "420 ns"]
    line = str(
        report.after_sweep_line(
            {"call_seconds": 3.5e-7, "gil_seconds": 9e-8},
            {"call_seconds": 3e-7, "gil_seconds": 9e-8},
        )
    )
    assert line == (
        "fixed cost measured again after the sweep: 350 ns (+90.0 ns above 500 elements); "
        "used: 300 ns (+90.0 ns)"
    )


def test_sweep_table_cells() -> None:
    # 4 KiB in 400 ns: 10.24 GB/s; 600 MiB in 50 ms: 12.58 GB/s
    points = [
        {"working_set_bytes": 4 * KIB, "seconds": 4e-7, "bytes_per_s": 4 * KIB / 4e-7,
         "corrected_bytes_per_s": None},
        {"working_set_bytes": 600 * MIB, "seconds": 0.05, "bytes_per_s": 600 * MIB / 0.05,
         "corrected_bytes_per_s": 600 * MIB / 0.05},
    ]  # fmt: skip
    table_ = table(report.sweep_table(points, [0.75, 0.0], LEVELS, 1.5))
    assert table_.rows == [
        ["4.0 KiB", "L1", "400 ns", "75%", "10.24 GB/s", "-"],
        ["600.0 MiB", "DRAM", "50.0 ms", "0%", "12.58 GB/s", "12.58 GB/s"],
    ]
    assert table_.note == "sweep: 2 sizes from 4.00 KiB to 600.00 MiB in 1.5 s"


def test_plateau_table_compares_with_dram() -> None:
    missing = Plateau("L3", 4 * MIB, 52 * MIB, None, 0, None)
    group = report.plateau_table(
        [L1, missing, DRAM], LEVELS, "known cache sizes", {"L1": 2e10, "DRAM": 5e9}, SIZES
    )
    assert str(group).splitlines()[1] == "Plateaus (known cache sizes)"
    table_ = table(group)
    assert table_.rows[0] == [
        "L1", "48 KiB", "4 KiB - 24 KiB", "9", "2", "150.00 GB/s", "20.00 GB/s", "x30.0",
    ]  # fmt: skip
    assert table_.rows[1][5] == "no point inside" and table_.rows[1][7] == "-"
    assert table_.rows[2][2] == "420 MiB - 600 MiB"  # clipped to the sweep


def test_detected_table_or_its_absence() -> None:
    detected = [Plateau("plateau 1", 64 * KIB, 1 * MIB, 3.6e10, 12, None)]
    assert table(report.detected_table(detected, LEVELS)).rows == [
        ["plateau 1", "64 KiB", "1 MiB", "12", "36.00 GB/s", "L2"]
    ]
    assert "the detector found no run" in str(report.detected_table([], LEVELS))


def test_plateau_observations() -> None:
    close = Plateau("L3", 4 * MIB, 52 * MIB, 5.1e9, 10, 2.0)  # within 5% of DRAM
    low = Plateau("L2", 96 * KIB, MIB, 3e9, 5, 2.0)  # below its outer neighbour
    items = report.plateau_observations([L1, L2, close, DRAM], [], LEVELS).items
    assert items[0].endswith("streams x30.0 faster when its data fits in L1.")  # 150 / 5
    assert items[1] == "Leaving L1 for L2 costs x4.17 in bandwidth (150.00 GB/s to 36.00 GB/s)."
    assert "L3 (5.10 GB/s) and DRAM (5.00 GB/s) differ by only x1.02" in items[3]
    assert items[4].startswith("Without the sizes, the change-point detector finds 0 plateau(s)")
    below = report.plateau_observations([low, DRAM], [], []).items  # 3 GB/s under 5 GB/s
    assert below[1].startswith("The L2 plateau (3.00 GB/s) comes out below the DRAM plateau")
    assert len(below) == 2  # no cache sizes: nothing about the detector


def test_threads_table_and_observations() -> None:
    threaded = {
        "threads": 4,
        "working_set_bytes": GIB,
        "one_thread_bytes_per_s": 1e10,
        "all_thread_bytes_per_s": 2.5e10,
    }
    # P = 200 GFLOP/s: ridge 20 FLOP/byte on one thread, 8 on four
    group = report.threads_table(threaded, 20.0, 8.0, 2e11, 4)
    lines = str(group).splitlines()
    assert lines[1] == "DRAM bandwidth at 1.00 GiB: 1 thread against 4"
    assert lines[-1] == "P = 200.0 GFLOP/s (matmul on 4 BLAS threads)"
    items = report.threads_observations(threaded, 20.0, 8.0, 5e9).items
    assert "4 threads stream 25.00 GB/s from DRAM against 10.00 GB/s from one: x2.50" in items[0]
    assert items[1].startswith("The ridge point drops from 20.0 to 8.0 FLOP/byte")
    # the sweep's 5 GB/s is half of the one-thread 10 GB/s: 50% less, not 100%
    assert "the sweep measured 5.00 GB/s at the same working set, 50% less" in items[2]
    alone = {**threaded, "threads": 1, "all_thread_bytes_per_s": None}
    items = report.threads_observations(alone, 20.0, None, 1.05e10).items
    assert "the ridge point stays 20.0 FLOP/byte" in items[0]
    assert items[1].endswith("5% more: the two agree.")


OPS = [
    {
        "label": "add in L1 (23 KiB)", "level": "L1", "working_set_bytes": 23 * KIB,
        "intensity": 1 / 12, "flops_per_s": 1.2e10, "flops_per_s_with_call_cost": 3e9,
        "predicted_roof": "L1", "fraction_of_predicted": 0.96, "closest_roof": "L1",
    },
    {
        "label": "add in DRAM (512 MiB)", "level": "DRAM", "working_set_bytes": 512 * MIB,
        "intensity": 1 / 12, "flops_per_s": 6e8, "flops_per_s_with_call_cost": 6e8,
        "predicted_roof": "DRAM", "fraction_of_predicted": 1.44, "closest_roof": "L3",
    },
    {
        "label": "matmul n=256", "level": "L2", "working_set_bytes": 768 * KIB,
        "intensity": 256 / 6, "flops_per_s": 1e11, "flops_per_s_with_call_cost": 1e11,
        "predicted_roof": "compute", "fraction_of_predicted": 0.5, "closest_roof": "compute",
    },
]  # fmt: skip


def test_operations_table_observations_and_caption() -> None:
    assert table(report.operations_table(OPS)).rows[0] == [
        "add in L1 (23 KiB)",
        "L1",
        "0.0833",
        "12.00",
        "L1",
        "96%",
        "L1",
    ]
    items = report.operations_observations(OPS, 2e11).items
    assert items[0].endswith("closest to the L1 roof, as the model predicts.")
    assert items[1].endswith("closest to the L3 roof, not the DRAM roof the model predicts.")
    assert items[2].startswith("With its call cost, the L1-sized add reaches only 3.00 GFLOP/s")
    assert items[3].startswith("matmul n=256 (I = 43 FLOP/byte, data in L2) runs at 100.0")
    assert "50.0% of the compute roof" in items[3]
    caption = report.roofline_caption(OPS, 2e11)
    assert "compute roof of 200.0 GFLOP/s" in caption and "I = 0.0833 FLOP/byte" in caption
    assert "1 of the 2 sit closest to the roof of their own level" in caption


def test_sweep_caption() -> None:
    caption = report.sweep_caption([L1, DRAM], 128 * KIB)
    assert "(L1 150.00 GB/s, DRAM 5.00 GB/s)" in caption
    assert "working sets up to 128.00 KiB" in caption
    assert "grey band" not in report.sweep_caption([L1], None)
