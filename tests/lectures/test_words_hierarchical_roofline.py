"""Lecture 09's words from hand-made records: expected sentences worked by hand, and
property tests on drawn records (no measurement: the lecture's numbers are fakes here)."""

from __future__ import annotations

import dataclasses
import itertools
import math
from types import SimpleNamespace

import pytest
from edit_battery import contradictions
from hypothesis import given, settings
from hypothesis import strategies as st
from present.fake_chips import table

from common.formulas.hierarchy import Plateau
from common.present.display import Heading
from common.tables.units import GIB, KIB, MIB
from lectures.words import hierarchical_roofline as page

L1 = Plateau("L1", 0, 24 * KIB, 1.5e11, 9, 2.0)
L2 = Plateau("L2", 96 * KIB, MIB, 3.6e10, 14, 2.0)
DRAM = Plateau("DRAM", 420 * MIB, math.inf, 5e9, 4, 4.0)
LEVELS = [("L1", 48 * KIB), ("L2", 2 * MIB)]
SIZES = [4 * KIB, 600 * MIB]
COSTS = {"call_seconds": 3e-7, "gil_seconds": 1e-7}


def plateaus(found, detected=(), levels=LEVELS, call_limit=None, measured=None) -> page.Plateaus:
    measured = measured or {p.name: p.bytes_per_s for p in found if p.bytes_per_s}
    return page.Plateaus(found, detected, levels, "known cache sizes", measured, SIZES, call_limit)


def point(size: float, seconds: float, bw: float, corrected: float | None = None) -> dict:
    """One size of the sweep: its working set, time per call and bandwidths."""
    keys = ("working_set_bytes", "seconds", "bytes_per_s", "corrected_bytes_per_s")
    return dict(zip(keys, (size, seconds, bw, corrected), strict=True))


def sweep(points, shares, levels=LEVELS, seconds=1.5, after=COSTS, used=COSTS, reach=None):
    return page.sweep(page.Sweep(points, shares, levels, seconds, after, used, reach))


def steps(inner: float, outer: float) -> str:
    """The sentence on an L2 plateau of `inner` bytes/s against the DRAM's `outer`."""
    l2 = Plateau("L2", MIB, 2 * MIB, inner, 5, 2.0)
    dram = Plateau("DRAM", 8 * MIB, math.inf, outer, 5, 4.0)
    return page.plateau_observations(plateaus([l2, dram])).items[1]


def test_cache_table_or_the_unknown_line() -> None:
    caches = [SimpleNamespace(name="L1d", kind="Data", size_bytes=48 * KIB, shared_cpus=1)]
    table_ = table(page.cache_table(caches, "sysfs"))
    assert table_.rows == [["L1d", "Data", "48 KiB", "1 CPU(s)"]] and table_.note == "source: sysfs"
    unshared = [SimpleNamespace(name="L3", kind="Unified", size_bytes=MIB, shared_cpus=None)]
    assert table(page.cache_table(unshared, "sysfs")).rows[0][3] == "-"
    assert str(page.cache_table([], "")).startswith("cache sizes: unknown")


def test_compute_roof_and_the_raise() -> None:
    n256 = {"side": 256, "bytes": 768 * KIB, "flops_per_s": 2e10}

    def roof(calibrated: float, peak: float, matmuls=(n256,), source: str = "x") -> str:
        return str(page.compute_roof(page.ComputeRoof(calibrated, source, list(matmuls), peak)))

    assert roof(1e10, 2e10, source="lecture 01").splitlines() == [
        "compute roof: 10.0 GFLOP/s (lecture 01)",
        "matmul n=256: 20.0 GFLOP/s (768.00 KiB of matrices)",
        "compute roof raised from 10.0 GFLOP/s to 20.0 GFLOP/s: the n=256 matmul ran faster "
        "than the calibration, which other work probably slowed",
    ]
    assert "raised" not in roof(3e10, 3e10)
    # 10.02 and 10.04 GFLOP/s both print 10.0: no "raised from 10.0 to 10.0"
    assert "raised" not in roof(1.002e10, 1.004e10)
    n128 = {"side": 128, "bytes": 192 * KIB, "flops_per_s": 1.5e10}
    n64 = {"side": 64, "bytes": 48 * KIB, "flops_per_s": 1.2e10}
    assert "the n=256 matmul ran faster than the calibration" in roof(1e10, 2e10, [n128, n256, n64])


def test_call_cost_table_and_the_second_measurement() -> None:
    table_ = table(page.call_cost_table({"call_seconds": 3e-7, "gil_seconds": 1.2e-7}))
    assert [r[1] for r in table_.rows] == ["300 ns", "120 ns", "420 ns"]
    # 4 KiB in 400 ns: 10.24 GB/s; 600 MiB in 50 ms: 12.58 GB/s
    points = [point(4 * KIB, 4e-7, 4 * KIB / 4e-7), point(600 * MIB, 0.05, *[600 * MIB / 0.05] * 2)]
    after, used = {"call_seconds": 3.5e-7, "gil_seconds": 9e-8}, {**COSTS, "gil_seconds": 9e-8}
    note = "The sweep's largest working set ran with the working set 1.2x the LLC"
    group = sweep(points, [0.75, 0.0], after=after, used=used, reach=note)
    lines = str(group).splitlines()
    assert lines[0] == (
        "fixed cost measured again after the sweep: 350 ns (+90.0 ns above 500 elements); "
        "used: 300 ns (+90.0 ns)"
    )
    assert "Bandwidth of z = x + y against working set (2 sizes)" in lines[2]
    assert table(group).rows == [
        ["4.0 KiB", "L1", "400 ns", "75%", "10.24 GB/s", "-"],
        ["600.0 MiB", "DRAM", "50.0 ms", "0%", "12.58 GB/s", "12.58 GB/s"],
    ]
    assert table(group).note == "sweep: 2 sizes from 4.00 KiB to 600.00 MiB in 1.5 s"
    assert lines[-1] == f"note: {note}; the DRAM plateau below is not DRAM alone"
    assert "note:" not in str(sweep(points, [0.75, 0.0], after=after, used=used))


def test_plateau_table_compares_with_dram() -> None:
    missing = Plateau("L3", 4 * MIB, 52 * MIB, None, 0, None)
    group = page.plateau_tables(plateaus([L1, missing, DRAM], measured={"L1": 2e10, "DRAM": 5e9}))
    assert str(group).splitlines()[1] == "Plateaus (known cache sizes)"
    rows = table(group).rows
    assert rows[0] == [
        "L1", "48 KiB", "4 KiB - 24 KiB", "9", "2", "150.00 GB/s", "20.00 GB/s", "x30.0",
    ]  # fmt: skip
    assert rows[1] == ["L3", "-", "-", "0", "-", "no point inside", "-", "-"]
    assert rows[2][2] == "420 MiB - 600 MiB"  # clipped to the sweep
    assert table(page.plateau_tables(plateaus([L1, L2]))).rows[0][7] == "-"


def test_detected_table_or_its_absence() -> None:
    detected = [Plateau("plateau 1", 64 * KIB, 1 * MIB, 3.6e10, 12, None)]
    assert table(page.plateau_tables(plateaus([L1], detected)), 1).rows == [
        ["plateau 1", "64 KiB", "1 MiB", "12", "36.00 GB/s", "L2"]
    ]
    group = page.plateau_tables(plateaus([L1]))
    assert "the detector found no run" in str(group)
    headings = [i for i in group.items if isinstance(i, Heading)]
    assert len(headings) == 2 and "change-point detector" in headings[1].title
    said = page.plateau_observations(plateaus([L1, DRAM])).items[-1]
    assert "finds no plateau where the operating system names 2 levels" in said


def test_plateau_observations() -> None:
    close = Plateau("L3", 4 * MIB, 52 * MIB, 5.1e9, 10, 2.0)  # within 5% of DRAM
    low = Plateau("L2", 96 * KIB, MIB, 3e9, 5, 2.0)  # below its outer neighbour
    items = page.plateau_observations(plateaus([L1, L2, close, DRAM])).items
    assert items[0].endswith("streams x30.0 faster when its data fits in L1.")  # 150 / 5
    assert items[1] == "Leaving L1 for L2 costs x4.17 in bandwidth (150.00 GB/s to 36.00 GB/s)."
    assert items[3].startswith("L3 (5.10 GB/s) and DRAM (5.00 GB/s) are within 5% of each other.")
    assert items[4].startswith("Without the sizes, the change-point detector finds no plateau")
    assert items[4].endswith("merge or vanish for it.")  # 0 found against 4 levels
    below = page.plateau_observations(plateaus([low, DRAM], levels=[])).items
    assert below[0].endswith("streams x1.7 slower when its data fits in L2.")  # 5 / 3
    assert below[1].startswith("The L2 plateau (3.00 GB/s) comes out below the DRAM plateau")
    assert len(below) == 2  # no cache sizes: nothing about the detector
    # two detected plateaus inside L2 (geometric middles 256 KiB and 1 MiB)
    twins = [Plateau("a", 128 * KIB, 512 * KIB, 4e10, 5, None),
             Plateau("b", 512 * KIB, 2 * MIB, 3e10, 5, None)]  # fmt: skip
    text = page.plateau_observations(plateaus([L1, L2], twins)).items[-1]
    assert "finds 2 plateaus (40.00 GB/s in L2, 30.00 GB/s in L2) where" in text
    assert "More than one lies inside L2:" in text
    # x1.05 exactly costs; 1 / 1.05 exactly is below, not "within 5%"
    assert steps(1.05e10, 1e10).startswith("Leaving L2 for DRAM costs x1.05")
    assert steps(1e10, 1.05e10).startswith(
        "The L2 plateau (10.00 GB/s) comes out below the DRAM plateau (10.50 GB/s)."
    )
    assert steps(1.02e10, 1e10) == (
        "L2 (10.20 GB/s) and DRAM (10.00 GB/s) are within 5% of each other. When two "
        "neighbouring plateaus match, the limit is not that cache but the core: numpy's loop and "
        "the load/store units cannot use the faster level."
    )
    low = [Plateau("L1", 0, KIB, 1e10, 5, 2.0), Plateau("L2", MIB, 2 * MIB, 2e10, 5, 2.0)]
    assert page.plateau_observations(plateaus(low)).items[1] == (
        "The L1 plateau (10.00 GB/s) comes out below the L2 plateau (20.00 GB/s). No cache is "
        "slower than the one outside it: at L1 sizes the fixed call cost is most of the time, so "
        "the corrected bandwidth there is the least certain number of the sweep (rerun when the "
        "machine is quiet)."
    )
    # one detected plateau in each of two levels: as many as the levels, none crowded
    apart = [Plateau("a", 4 * KIB, 16 * KIB, 9e10, 5, None),
             Plateau("b", 128 * KIB, 512 * KIB, 3e10, 5, None)]  # fmt: skip
    assert page.plateau_observations(plateaus([L1, L2], apart)).items[-1] == (
        "Without the sizes, the change-point detector finds 2 plateaus (90.00 GB/s in L1, "
        "30.00 GB/s in L2) where the operating system names 2 levels."
    )


def test_fixed_cost_observations() -> None:
    small = [(1 * KIB * 4, 5e-7), (8 * KIB, 6e-7), (16 * KIB, 8e-7)]
    record = page.FixedCost(COSTS, (4 * KIB, 0.8, 2e9), 64 * KIB, small, (3.8e-7, 1e-11), "L1")
    items = page.fixed_cost_observations(record).items
    assert items[0] == (
        "One call costs 300 ns before it moves a byte (400 ns above 500 elements). That is 80% "
        "of the time at the smallest working set, 4.00 KiB, where the measured bandwidth is "
        "2.00 GB/s."
    )
    assert items[1].startswith(
        "The fixed cost is at least 10% of a call up to a working set of 64.00 KiB"
    )
    # slope 1e-11 s/byte: 100 GB/s
    assert items[2] == (
        "A line fitted to the times of the 3 sizes from 4.00 KiB to 16.00 KiB crosses zero "
        "bytes at 380 ns, against 400 ns measured directly; its slope gives 100.00 GB/s, a "
        "second estimate of the L1 roof."
    )
    bare = page.FixedCost(COSTS, (4 * KIB, 0.8, 2e9), None, small, (3.8e-7, -1e-11), "L1")
    assert len(page.fixed_cost_observations(bare).items) == 1
    flat = page.FixedCost(COSTS, (4 * KIB, 0.8, 2e9), None, [(KIB, 1e-7)] * 3, (3e-7, 0.0), "L1")
    assert len(page.fixed_cost_observations(flat).items) == 1


def threads(one=1e10, every=2.5e10, n=4, sweep_bw=5e9) -> page.Threads:
    # P = 200 GFLOP/s: ridge 20 FLOP/byte on one thread, 200 / 25 = 8 on four
    ridge_all = 2e11 / every if every else None
    return page.Threads(n, GIB, one, every, 2e11 / one, ridge_all, 2e11, n, sweep_bw)


def test_threads_table_and_observations() -> None:
    group = page.threads_table(threads())
    assert str(group).splitlines()[1] == "DRAM bandwidth at 1.00 GiB: 1 thread against 4"
    assert str(group).splitlines()[-1] == "P = 200.0 GFLOP/s (matmul on 4 BLAS threads)"
    assert table(group).rows == [["1", "10.00 GB/s", "20.0 FLOP/byte"],
                                 ["4", "25.00 GB/s", "8.0 FLOP/byte"]]  # fmt: skip
    items = page.threads_observations(threads()).items
    assert items[:2] == [
        "4 threads stream 25.00 GB/s from DRAM against 10.00 GB/s from one: x2.50. One core cannot "
        "keep enough requests in flight to use all the memory bandwidth.",
        "The ridge point drops from 20.0 to 8.0 FLOP/byte when the bandwidth roof uses every "
        "core, as the compute roof does. That is the fairer ridge point for a program that runs "
        "on every core.",
    ]
    # the sweep's 5 GB/s is half of the one-thread 10 GB/s: 50% less, not 100%
    assert "the sweep measured 5.00 GB/s at the same working set, 50% less" in items[2]
    flat = page.threads_observations(threads(every=1.0001e10)).items
    assert "from one, less than x1.1: no real gain" in flat[0]
    assert flat[1].startswith("The ridge point stays at 20.0 FLOP/byte when")  # 19.998
    alone = page.Threads(1, GIB, 1e10, None, 20.0, None, 2e11, 1, 1.05e10)
    items = page.threads_observations(alone).items
    assert "the ridge point stays 20.0 FLOP/byte" in items[0]
    assert items[1].endswith("5% more: the two agree.")
    assert "matmul on 1 BLAS thread)" in str(page.threads_table(alone))
    assert table(page.threads_table(alone)).rows[1] == ["1", "-", "-"]
    same = page.threads_observations(threads(sweep_bw=1.001e10)).items
    assert same[2].endswith("at the same working set, the same: the two agree.")
    big = dataclasses.replace(threads(), working_set_bytes=100 * MIB)
    assert "DRAM bandwidth at 100.00 MiB: 1 thread" in str(page.threads_table(big))
    assert page.threads_observations(threads(every=1.05e10)).items[0] == (
        "4 threads stream 10.50 GB/s from DRAM against 10.00 GB/s from one, less than x1.1: no "
        "real gain this time. Either one core already saturates this memory system, or other "
        "programs kept the other cores busy during the measurement (rerun when it is quiet)."
    )
    assert "no real gain" not in page.threads_observations(threads(every=1.1e10)).items[0]
    said = page.threads_observations(threads(sweep_bw=2e10)).items[2]
    assert said.endswith(
        "100% more: a gap that size shows how much the machine's load moves a DRAM measurement "
        "from one moment to the next."
    )
    # 200 GFLOP/s over 25 GB/s from one thread = 8.0; over 10 GB/s from every core = 20.0
    items = page.threads_observations(threads(one=2.5e10, every=1e10)).items
    assert any("The ridge point rises from 8.0 to 20.0 FLOP/byte" in i for i in items)


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
    rows = table(page.operations_table(OPS)).rows
    assert rows[0] == ["add in L1 (23 KiB)", "L1", "0.0833", "12.00", "L1", "96%", "L1"]
    unplaced = {**OPS[2], "level": "-", "predicted_roof": None, "fraction_of_predicted": None}
    assert table(page.operations_table([unplaced])).rows[0][4:6] == ["-", "-"]
    items = page.operations_observations(OPS, 2e11).items
    assert items[0] == (
        "The add with a 23.00 KiB working set (data in L1) runs at 12.00 GFLOP/s, closest to the "
        "L1 roof, as the model predicts."
    )
    assert items[1].endswith("closest to the L3 roof, not the DRAM roof the model predicts.")
    # 3 GFLOP/s against 12: the fixed cost is 75% of the call
    assert items[2] == (
        "With its call cost, the L1-sized add reaches 3.00 GFLOP/s against 12.00 GFLOP/s "
        "without it: at that size no memory roof bounds a numpy call, the fixed cost does."
    )
    assert items[3].startswith("matmul n=256 (I = 43 FLOP/byte, data in L2) runs at 100.0")
    assert "50.0% of the compute roof" in items[3]
    light = [{**OPS[0], "flops_per_s_with_call_cost": 8e9}, OPS[1]]  # a third of the call
    said = page.operations_observations(light, 2e11).items[2]
    assert said.endswith("without it: the fixed cost takes less than half of the call.")
    free = [{**OPS[0], "flops_per_s_with_call_cost": 1.2e10}]  # prints the same: no sentence
    assert len(page.operations_observations(free, 2e11).items) == 1
    said = page.operations_observations([unplaced], 2e11).items[0]
    assert "data in" not in said and "matmul n=256 (I = 43 FLOP/byte) runs" in said
    half = [{**OPS[0], "flops_per_s_with_call_cost": 6e9}]  # the fixed cost is half the call
    assert page.operations_observations(half, 2e11).items[1].endswith("the fixed cost does.")
    # 12.001 and 12.000 GFLOP/s both print 12.00: nothing to say
    close = [{**OPS[0], "flops_per_s": 1.2001e10, "flops_per_s_with_call_cost": 1.2e10}]
    assert len(page.operations_observations(close, 2e11).items) == 1
    caption = page.roofline_caption(OPS, 2e11)
    assert "compute roof of 200.0 GFLOP/s" in caption and "I = 0.0833 FLOP/byte," in caption
    assert "1 of the 2 sit closest to the roof of their own level" in caption


BW = st.floats(1e8, 1e12)


@st.composite
def plateau_lists(draw: st.DrawFn) -> list[Plateau]:
    names = ["L1", "L2", "L3", "DRAM"][: draw(st.integers(1, 4))]
    return [
        Plateau(n, 2**i * MIB, 2 ** (i + 1) * MIB, draw(BW), 5, 2.0) for i, n in enumerate(names)
    ]


@settings(max_examples=150, deadline=None)
@given(plateau_lists())
def test_plateau_sentences_hold_for_drawn_bandwidths(found: list[Plateau]) -> None:
    items = page.plateau_observations(plateaus(found)).items
    assert not contradictions(" ".join(items))
    for inner, outer in itertools.pairwise(found):
        x = inner.bytes_per_s / outer.bytes_per_s
        said = next(i for i in items
                    if i.startswith((f"Leaving {inner.name}", f"{inner.name} (",
                                     f"The {inner.name} plateau (")))  # fmt: skip
        assert ("costs" in said) == (x >= 1.05) and ("below" in said) == (x <= 1 / 1.05)


@settings(max_examples=150, deadline=None)
@given(BW, st.one_of(st.none(), BW), BW, st.integers(2, 64))
def test_thread_sentences_hold_for_drawn_bandwidths(
    one: float, every, sweep_bw: float, n: int
) -> None:
    text = " ".join(page.threads_observations(threads(one, every, n, sweep_bw)).items)
    assert not contradictions(text)
    if every:
        assert ("no real gain" in text) == (every < 1.1 * one)
    assert ("the two agree" in text) == (abs(sweep_bw / one - 1) <= 0.1)
    assert "% less" not in text or sweep_bw < one
    assert " 0% " not in text


@settings(max_examples=150, deadline=None)
@given(st.floats(1e8, 1e12), st.floats(1e6, 1e12), st.floats(1e9, 1e13))
def test_operation_sentences_hold_for_drawn_rates(rate: float, paid: float, peak: float) -> None:
    ops = [{**OPS[0], "flops_per_s": rate, "flops_per_s_with_call_cost": min(rate, paid)}, OPS[2]]
    items = page.operations_observations(ops, peak).items
    assert not contradictions(" ".join(items))
    call = [i for i in items if i.startswith("With its call cost")]
    if call:
        assert ("the fixed cost does" in call[0]) == (min(rate, paid) <= rate / 2)


def test_three_sizes_clip_to_the_last_and_notes_keep_two_decimals() -> None:
    sizes = [4 * KIB, 64 * MIB, 600 * MIB]
    record = page.Plateaus([DRAM], [], LEVELS, "m", {"DRAM": 5e9}, sizes, None)
    assert table(page.plateau_tables(record)).rows[0][2] == "420 MiB - 600 MiB"
    costs = {"call_seconds": 1e-7, "gil_seconds": 0.0}
    group = sweep(
        [point(b, 1e-3, 1e9) for b in sizes], [0.0] * 3, seconds=2.0, after=costs, used=costs
    )
    assert table(group).note == "sweep: 3 sizes from 4.00 KiB to 600.00 MiB in 2.0 s"
    note = table(sweep([point(100 * KIB, 1e-5, 1e10)], [0.5])).note
    assert note == "sweep: 1 sizes from 100.00 KiB to 100.00 KiB in 1.5 s"
    record = page.FixedCost(COSTS, (100 * KIB, 0.8, 2e9), None, [], None, "L1")
    said = page.fixed_cost_observations(record).items[0]
    assert "at the smallest working set, 100.00 KiB," in said
    with pytest.raises(ValueError, match="zip"):
        sweep([point(4 * KIB, 4e-7, 1e10)], [0.5, 0.5])


def test_captions_word_for_word() -> None:
    assert page.sweep_caption(plateaus([L1, DRAM], call_limit=128 * KIB)) == (
        "Bandwidth of z = x + y against its working set, with the cache sizes the operating "
        "system reports as dashed lines. Look at the steps down: each coloured bar is a plateau, "
        "drawn over the sizes it was taken from (L1 150.00 GB/s, DRAM 5.00 GB/s). In the grey "
        "band (working sets up to 128.00 KiB) the fixed cost of a call is at least 10% of its "
        "time, so the measured curve (grey) sits below the corrected one."
    )
    assert "grey band" not in page.sweep_caption(plateaus([L1]))
    adds = [*OPS[:2], {**OPS[1], "label": "add in L2", "intensity": 0.5, "closest_roof": "DRAM"}]
    assert page.roofline_caption([*adds, OPS[2]], 2e11) == (
        "One bandwidth roof per memory level (solid, one thread; dashed, DRAM from every core) "
        "under the compute roof of 200.0 GFLOP/s. Every add has the same intensity, I = 0.0833 "
        "FLOP/byte, and is labelled with the level its data lives in. Look at which roof each one "
        "touches: 2 of the 3 sit closest to the roof of their own level. The matmuls sit far to "
        "the right, under the compute roof."
    )
    ops = table(page.operations_table(OPS))
    assert ops.headers[2] == "I (FLOP/B)" and ops.note
    caption = page.roofline_caption([OPS[0], OPS[2]], 2e11)  # 1/12 = 0.0833 FLOP/byte
    assert "The add, at I = 0.0833 FLOP/byte, is labelled" in caption
    assert "Every add" not in caption and "sit closest" not in caption  # no count of many
    assert "its own level's is the closest" in caption  # OPS[0] sits on its own roof
    other = page.roofline_caption([OPS[1], OPS[2]], 2e11)  # the DRAM add sits closest to L3
    assert "its own level's is not the closest" in other
    caption = page.roofline_caption([OPS[2]], 2e11)  # the matmul alone: no add's intensity
    assert "FLOP/byte," not in caption


def test_the_sweep_marks_the_first_size_of_each_level_for_a_phone() -> None:
    """Issue 34: folded on a phone, the 65-row sweep shows the first size in each level the
    plateaus below are named after. LEVELS by hand: 4 and 40 KiB fit L1 (48 KiB), 64 KiB
    and 1 MiB fit L2 (2 MiB), 8 MiB and 600 MiB are DRAM: rows 0, 2 and 4 begin a level."""
    sizes = [4 * KIB, 40 * KIB, 64 * KIB, MIB, 8 * MIB, 600 * MIB]
    points = [point(s, s / 1e10, 1e10, 1e10) for s in sizes]
    costs = {"call_seconds": 3e-7, "gil_seconds": 9e-8}
    shares = [0.0] * len(sizes)
    swept = table(sweep(points, shares, seconds=1.0, after=costs, used=costs))
    assert [row[1] for row in swept.rows] == ["L1", "L1", "L2", "L2", "DRAM", "DRAM"]
    assert swept.keep == {0, 2, 4} and swept._repr_html_().count('<tr class="rl-keep">') == 3
    # without cache sizes every row is '-': no level begins, nothing is marked
    blind = table(sweep(points, shares, [], seconds=1.0, after=costs, used=costs))
    assert blind.keep == frozenset()
