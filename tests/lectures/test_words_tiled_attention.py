"""Lecture 10's words from hand-made records (expected sentences worked by hand), and
property tests on drawn records and on Part 1 built from drawn hardware tables."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest
from edit_battery import contradictions
from hypothesis import example, given, settings
from hypothesis import strategies as st
from present.fake_chips import prose
from strategies import edited, hardware_tables

from common.formulas import attention_io
from common.formulas.attention_io import Blocks
from common.formulas.ledger import attention_counts
from common.formulas.roofline import intensity, lower_bound_time
from common.formulas.thresholds import Crossover
from common.tables.units import KIB, MIB
from lectures.words import tiled_attention as page

A, B = page.Gpu("A", 100.0, 200 * KIB), page.Gpu("B", 50.0, 100 * KIB)
EXTREMES = {"naive": (1e8, 40.0, [1e-3, 5e-4]), "ideal": (1e6, 4000.0, [2e-4, 1e-4])}


def extremes(kernels: dict, gpus: tuple = (A, B)) -> tuple:
    """One head of N = 1,000, d_h = 100 and F = 4 GFLOP; K and V 2 MiB."""
    return page.extremes(page.Extremes(1000, 100, 4e9, list(gpus), kernels, 2 * MIB))


def test_extremes_by_hand() -> None:
    table, notes = extremes(EXTREMES)
    assert table.headers[-2:] == ["A, I* 100.0", "B, I* 50.0"]
    assert table.rows[0][:4] == ["naive", "4.00 GFLOP", "100.00 MB", "40.0"]
    assert table.rows[0][4:] == ["memory, 1.00 ms", "memory, 500 µs"]
    assert table.rows[1][4:] == ["compute, 200 µs", "compute, 100 µs"]
    assert table.title.startswith("One head, N = 1,000, d_h = 100, bf16")
    assert notes.items == [
        "Naive attention moves 100.00 MB at I = 40.0 FLOP/byte: memory-bound on both chips. The "
        "ideal moves 1.00 MB (1/100.0 of the bytes, the same F) at I = 4000: compute-bound on both "
        "chips.",
        # 1 ms / 0.2 ms: x5.0 faster
        "On the A the time bound falls from 1.000 ms to 0.200 ms (x5.0 faster): the comparison the "
        "article makes.",
        "The ideal assumes that nothing is ever read twice, as if K and V (2.00 MiB at this "
        "size) stayed on chip for every query. One SM's shared memory is a few hundred KiB. The "
        "rest of Part 1 asks what a finite on-chip memory gives.",
    ]
    # I = 75 sits between B's ridge (50) and A's (100): each chip is named
    split = {**EXTREMES, "naive": (1e8, 75.0, [1e-3, 5e-4])}
    _, notes = extremes(split)
    assert "75.0 FLOP/byte: memory-bound on the A, compute-bound on the B." in notes.items[0]
    three = {k: (d, i, [*t, t[-1]]) for k, (d, i, t) in EXTREMES.items()}
    assert "memory-bound on every chip" in extremes(three, (A, B, B))[1].items[0]
    with pytest.raises(ValueError, match="zip"):
        extremes({**EXTREMES, "naive": (1e8, 40.0, [1e-3, 5e-4, 1e-4])})
    # 1 ms on the A for both kernels (the B's differ): no "x.. faster" to add
    _, notes = extremes({**EXTREMES, "ideal": (1e6, 4000.0, [1e-3, 1e-4])})
    assert notes.items[1].endswith(" ms: the comparison the article makes.")


def plan(gpu: page.Gpu, rows: int, i: float, needed: float | None, reads: int = 8) -> page.Plan:
    blocks = Blocks(rows, 64, 100 * KIB)
    return page.Plan(gpu, blocks, 8, reads, 5e7, i, 2e-5, needed)


def schedule(plans: list, naive: float = 1e8) -> tuple:
    """N = 1,024, d_h = 64, the ideal 1 MB; both plans are the named ones."""
    return page.schedule(page.Schedule(1024, 64, plans, plans, naive, 1e6))


def test_schedule_by_hand() -> None:
    blocks, bounds, notes = schedule([plan(A, 128, 60.0, 400 * KIB), plan(B, 64, 30.0, None)])
    assert blocks.rows[0] == ["A", "200 KiB", "128 x 64", "100 KiB", "8"]
    assert bounds.rows[0] == ["A", "50.00 MB", "60.0", "100.0", "memory, 20.0 µs", "400 KiB"]
    assert bounds.rows[1][-1] == "never" and bounds.title and bounds.note
    assert notes.items == [
        "In bf16 the intensity F / D = (4 N^2 d_h) / (2 b N d_h (1 + T_r)) tends to 2 N / (b "
        "T_r), about B_r, as T_r grows. The A's 200 KiB give B_r = 128 and I = 60.0; the B's "
        "100 KiB give B_r = 64 and I = 30.0.",
        "Neither reaches its ridge from shared memory alone: the ridge takes 400 KiB on the A "
        "(it has 200 KiB).",
        # 5e7 against 1e8 (half) and 1e6 (x50)
        "The A's blocks move 50.00 MB, 1/2.00 as much as the naive kernel's 100.00 MB and x50.0 "
        "as much as the ideal 1.00 MB: K and V are read R = 8 times each.",
    ]
    one = prose(schedule([plan(A, 128, 150.0, 100 * KIB), plan(B, 64, 30.0, 300 * KIB)])[2])
    assert (
        "Only the A reaches its ridge from shared memory alone: the ridge takes 100 KiB on the A "
        "(it has 200 KiB) and 300 KiB on the B (it has 100 KiB)."
    ) in one
    both = [plan(A, 128, 150.0, 100 * KIB, reads=1), plan(B, 64, 50.0, 50 * KIB)]
    text = prose(schedule(both, naive=5e7)[2])
    assert "Both reach their ridge from shared memory alone" in text
    assert "the same as the naive kernel's 50.00 MB and x50.0 as much as" in text
    assert "K and V are read once, the ideal minimum." in text
    said = schedule([plan(B, 64, 30.0, None)] * 2)[2].items[1]  # never: nothing it would take
    assert said.endswith("from shared memory alone.") and "takes" not in said


def traffic(marks: list) -> tuple:
    """One row of each block (1,292 B) moves 8.59 GB; the naive 138 MB, the ideal 4.19 MB."""
    values = (1292.0, 8.59e9, 98_816.0, -0.91, 2 * MIB, 4.19e6, 1.38e8, 4.19e6, 2 * MIB)
    return page.traffic(page.Traffic(marks, *values))


def test_traffic_by_hand() -> None:
    table, caption, notes = traffic([("one row", 1292.0, Blocks(1, 1, 1292.0), 8.59e9, 1.01)])
    assert table.rows == [["one row", "1.26 KiB", "1 x 1", "8.59 GB", "1.0"]]
    assert table.headers == ["landmark", "M_sm", "Br x Bc", "D", "I"]
    assert table.title == "Landmarks on the curve"
    assert caption == (
        "HBM traffic of one head against the on-chip memory per SM (log-log). The staircase is "
        "the tiled schedule, the dashed lines the naive kernel and the ideal minimum. A dotted "
        "line is the traffic F / I* at which the head's intensity reaches a chip's ridge point "
        "(A100, H100), with a dot where the staircase first gets below it; the vertical lines "
        "mark the chips' shared memory per SM."
    )
    assert notes.items == [
        # 8.59 GB / 138 MB = 62.2
        "With 1.26 KiB on chip (one row of each block) K and V are read N times: 8.59 GB, x62 "
        "as much as the naive kernel's traffic. Tiling moves no more than naive only from 96.5 KiB "
        "on.",
        "Between 16 KiB and 128 KiB the staircase falls with a log-log slope of -0.91: doubling "
        "the on-chip memory about halves the traffic, the theorem's 1 / M.",
        "From 2.00 MiB, K and V whole (2.00 MiB) plus one query row, the traffic drops to the "
        "ideal 4.19 MB; the lowest point of the curve is 4.19 MB.",
    ]


def lengths(takes_over: dict) -> page.Lengths:
    heads = {
        512: page.Head(2e6, 1e6, 5e5, 50.0, 100.0, 1e-6, 5e-7),
        1024: page.Head(8e6, 4e6, 1e6, 60.0, 120.0, 4e-6, 2e-6),
    }
    layer = {512: [2e-4, 1e-4, 5e-5], 1024: [4e-4, 5e-4, 2.5e-4]}
    return page.Lengths(B, 64, heads, "M", 2, layer, takes_over)


def test_lengths_by_hand() -> None:
    heads, layer, notes = page.lengths(lengths({"naive": Crossover(512, 1024), "tiled": None}))
    assert heads.rows[1][:4] == ["1,024", "8.00 MB", "4.00 MB", "1.00 MB"]
    assert heads.rows[1][4:] == ["60.0", "120.0", "4.00 µs", "2.00 µs"]
    assert heads.title.startswith("One head on the B (M_sm = 100 KiB, d_h = 64, bf16)")
    # share 0.25 / (0.4 + 0.25) = 38%
    assert layer.rows[1] == ["1,024", "400 µs", "500 µs", "250 µs", "38%"]
    assert layer.title == "One M layer, batch 2, on the B: time bounds"
    assert notes.items[0] == (
        "At N = 1,024 the tiled traffic is 1/2.00 as much as the naive kernel's (2 B_r / d_h in "
        "the limit) and x4 as much as the ideal minimum."
    )
    assert notes.items[1].endswith("ridge of 50.0 both kernels are compute-bound at that length.")
    assert notes.items[2] == (
        "In the layer, attention's bound passes everything else at no length up to 1,024 with the "
        "tiled kernel and at N = 1,024 with the naive one. Below N = 1,024 the projections and "
        "the MLP take longer than attention with either kernel."
    )
    none = lengths({"naive": None, "tiled": None})
    said = page.lengths(none)[2].items[2]
    assert "Up to N = 1,024 the projections and the MLP take longer than attention with" in said
    split = page.lengths(dataclasses.replace(none, gpu=page.Gpu("C", 110.0, 1.0)))[2]
    assert "the tiled kernel is compute-bound and the naive one memory-bound there." in prose(split)


def test_agreement_by_hand() -> None:
    cases = [(300, 16, 300, 300, 1, 7.6e-7), (257, 64, 31, 47, 54, 2e-6)]
    table, notes = page.agreement(cases, 1e-4)
    assert table.rows == [
        ["300", "16", "300 x 300", "yes", "1", "7.6e-07"],
        ["257", "64", "31 x 47", "no", "54", "2.0e-06"],
    ]
    assert table.note == "relative error = max |O_tiled - O_naive| / max |O_naive|"
    assert notes.items[0].startswith(
        "The largest relative error is 2.0e-06, inside the tolerance of 1e-04."
    )
    bad = page.agreement([(96, 128, 1, 1, 9216, 3e-3)], 1e-4)[1].items[0]
    assert bad.startswith("The largest relative error is 3.0e-03, OUTSIDE the tolerance of 1e-04")
    shapes = ((32, 64), (64, 32), (64, 30))
    fits = [page.agreement([(64, 8, r, c, 2, 0.0)], 1e-4)[0].rows[0][3] for r, c in shapes]
    assert fits == ["yes", "yes", "no"]  # 32 x 64 and 64 x 32 tile 64 x 64; 64 x 30 does not
    assert page.agreement(cases[:1], 1e-4)[1].items == [
        "The largest relative error is 7.6e-07, inside the tolerance of 1e-04. The two kernels "
        "add the same terms in a different order and subtract a different running maximum before "
        "each exponential, so they agree to fp32 rounding, not bit for bit.",
        "The online softmax needs no second pass: a block that raises a row's maximum rescales "
        "the sum and the accumulator by exp(m_old - m_new) once, and the division by l happens "
        "once per query block, at the end.",
    ]
    at = page.agreement([(64, 8, 32, 32, 4, 1e-4)], 1e-4)[1].items[0]  # the tolerance itself
    assert "1.0e-04, inside the tolerance" in at


def machine(naive_i: float = 12.8, saved: float = 2.5e10) -> page.Machine:
    caches = [("L1", 32 * KIB, "sysfs"), ("L2", MIB, "sysfs")]
    roofs = (1.6e10, 1.7e10, saved, 2.6e10, 2.6e10, 1.625)  # beta, matmuls, P_1, P_1 / beta
    return page.Machine(caches, *roofs, naive_i, 7e-5, 14, 5.5e-10, "the calibration")


def test_machine_by_hand() -> None:
    caches, roofs, notes = page.machine(machine())
    assert caches.rows == [["L1", "32.0 KiB", "sysfs"], ["L2", "1.00 MiB", "sysfs"]]
    assert [r[1] for r in roofs.rows] == [
        "16.00 GB/s", "17.0 GFLOP/s", "25.0 GFLOP/s", "26.0 GFLOP/s", "1.6 FLOP/byte",
        "70.0 µs", "0.55 ns",
    ]  # fmt: skip
    assert notes.items == [
        "The roofs: the calibration; P_1 = 26.0 GFLOP/s, the faster one-thread matmul of the two.",
        "On one thread the ridge is 1.6 FLOP/byte. The naive kernel in fp32 does 12.8 FLOP per "
        "byte of its ten passes (about (4 d_h + 5) / 40 at any N): at or above the ridge, so by "
        "the roofline it is compute-bound here, and fewer bytes do not lower its bound.",
        # 70 µs / 14 calls = 5 µs; 70 µs x 26 GFLOP/s = 1.82 MFLOP
        "An inner step costs 70.0 µs before any arithmetic, about 5.00 µs per numpy call. In "
        "that time one core does 1.82 MFLOP of matmul: a block must do much more work than that "
        "for the fixed cost to vanish.",
    ]
    assert page.machine(machine(naive_i=1.625))[2].items[1].count("at or above the ridge") == 1
    low = page.machine(machine(naive_i=1.0, saved=0.0))
    said = low[2].items[1]
    assert "below the ridge, so by the roofline fewer bytes would make it faster." in said
    assert low[1].rows[2][1] == "-" and caches.title and roofs.title


def sized(name: str, rows: int, seconds: float, steps: int, traffic: float = 1e7) -> page.Sized:
    return page.Sized(
        name, 32 * KIB, Blocks(rows, rows, 30 * KIB), steps, 64, traffic, 40 * KIB, seconds
    )


def block_sizes(*choices: page.Sized, naive_t: float = 0.1, held: float = 4 * MIB, step_s=1e-5):
    """N = 1,024, d_h = 128, F = 1 GFLOP, P_1 = 40 GFLOP/s; the naive kernel moves 40 MB."""
    return page.block_sizes(
        page.BlockSizes(1024, 128, 1e9, list(choices), (4e7, held, naive_t), 4e10, step_s)
    )


SMALL, BIG = sized("L1 data", 16, 0.2, 4096, traffic=2e8), sized("L2", 64, 0.05, 256)


def test_block_sizes_by_hand() -> None:
    sizes, speeds, notes = block_sizes(SMALL, BIG)
    assert sizes.rows[0] == ["L1 data", "32.0 KiB", "16 x 16", "4,096", "200.00 MB", "40.0 KiB"]
    assert sizes.rows[-1] == ["naive", "-", "-", "-", "40.00 MB", "4.00 MiB"]
    # 1 GFLOP in 0.2 s: 5.0 GFLOP/s, 12% of 40; 4096 x 10 µs = 41 ms of 200 ms: 20%
    assert speeds.rows[0] == ["L1 data", "200 ms", "5.0", "12%", "20%"]
    assert speeds.rows[-1] == ["naive", "100 ms", "10.0", "25%", "-"]
    assert sizes.title and sizes.note and speeds.title
    assert notes.items[0].startswith(
        "With L1 data-sized blocks (16 x 16) the kernel makes 4,096 inner steps and runs x4.00 "
        "slower than the fastest blocks; the fixed costs alone explain 20% of its time."
    )
    assert notes.items[1] == (
        "The fastest blocks came from L2 (64 x 64): 20.0 GFLOP/s, 50% of the one-thread matmul "
        "roof, against 10.0 GFLOP/s for the naive kernel (x2.00 its speed)."
    )
    assert notes.items[2].startswith(
        "Those small blocks even move more than the naive kernel by the model's count, 200.00 MB "
        "against 40.00 MB: K and V are read 64 times"
    )
    items = block_sizes(BIG)[2].items
    assert "inner steps and is the fastest of them;" in items[0] and len(items) == 2
    # the small blocks moving exactly the naive kernel's bytes move no more
    assert len(block_sizes(sized("L1 data", 16, 0.2, 4096, traffic=4e7), BIG)[2].items) == 2
    # fixed costs beyond the time are capped at 100%
    _, speeds, notes = block_sizes(BIG, step_s=1.0)
    assert speeds.rows[0][4] == "100%" and "explain 100% of its time" in notes.items[0]
    # 32 x 128 = 4,096 elements against 16 x 16 = 256: the 16 x 16 blocks are the smaller,
    # though 32 / 128 is the smaller aspect ratio
    # (named so that the first name alphabetically is the wide one)
    wide = page.Sized("L1 data", 64 * KIB, Blocks(32, 128, 60 * KIB), 32, 8, 1e7, 60 * KIB, 0.05)
    square = sized("L2", 16, 0.2, 4096)
    assert block_sizes(wide, square)[2].items[0].startswith("With L2-sized blocks (16 x 16)")
    # half the LLC holds K and V whole, so B_c = N: one block, or K and V read once
    whole = page.Sized("LLC / 2", 8 * MIB, Blocks(1024, 1024, 6 * MIB), 1, 1, 1e6, 6 * MIB, 0.08)
    said = block_sizes(BIG, whole)[2].items[-1]
    assert "(1024 x 1024): a single block, the naive computation with S kept in cache" in said
    half = page.Sized("LLC / 2", 4 * MIB, Blocks(512, 1024, 3 * MIB), 2, 1, 1e6, 3 * MIB, 0.08)
    said = block_sizes(BIG, half)[2].items[-1]
    assert said.endswith("(512 x 1024): K and V are read once, the ideal minimum.")
    assert len(block_sizes(BIG, half._replace(name="L2 / 2"))[2].items) == 2  # not the LLC


def row(nbytes: float, t_c: float, t_m: float, t: float) -> dict:
    return {
        "bytes": nbytes, "intensity": 1e9 / nbytes, "flops": 1e9, "t_compute_s": t_c,
        "t_memory_s": t_m, "t_pred_s": max(t_c, t_m), "t_meas_s": t, "flag": None,
        "bound": "compute" if t_c >= t_m else "memory", "fraction_of_bound": max(t_c, t_m) / t,
    }  # fmt: skip


def kernels(times: dict, naive_t: float = 0.1, compute_bound: bool = True) -> page.Kernels:
    memory = {"naive": 4 * MIB, "tiled": MIB}
    runs = {n: page.Run(Blocks(64, 64, 1.0), {"naive": t[0], "tiled": t[1]},
                        4 * n * n / (32 * MIB), memory)
            for n, t in times.items()}  # fmt: skip
    placed = {"naive": row(4e8, 0.04, 0.05, naive_t), "tiled": row(1e8, 0.04, 0.0125, 0.12)}
    return page.Kernels(
        128, runs, placed, 2.5, 2.5e10, 1e10, compute_bound, 256, 1e-5, 5e-10, 131072, memory
    )


def kernel_notes(times: dict, **record: object) -> list[str]:
    """What to observe under the kernels' tables, for these (naive, tiled) times at each N."""
    return page.kernels(kernels(times, **record))[3].items


def test_kernels_by_hand() -> None:
    # S = 4 N^2 against 32 MiB: 0.5 at 2048, 2.0 at 4096, 8.0 at 8192 (only 8192 above 2x)
    timed = kernels({2048: (0.04, 0.05), 4096: (0.2, 0.21), 8192: (1.0, 0.96)})
    times, scores, roof, notes, caption = page.kernels(timed)
    assert times.rows[0] == ["2,048", "64 x 64", "40.0 ms", "50.0 ms", "x1.25"]
    # 40 ms / 2048^2 = 9.54 ns per score
    assert scores.rows[0] == ["2,048", "0.5", "9.54", "11.92", "4.00 MiB", "1.00 MiB"]
    assert roof.rows[0] == ["naive", "400.00 MB", "2.5", "50.0 ms, memory", "100 ms", "50%"]
    assert roof.title == "On this machine's one-thread roofline at N = 8,192 (ridge 2.5 FLOP/byte)"
    assert roof.note == (
        "Both kernels do F = 1.00 GFLOP; T bound = max(F / P_1, D / beta) with P_1 = 25.0 GFLOP/s."
    )
    assert times.title and scores.title
    assert caption == (
        "Seconds per call of both kernels against N (log-log): measured (markers), and the two "
        "parts of the roofline bound with this machine's one-thread roofs, F / P_1 (the same for "
        "both) and each kernel's D / beta. A kernel's bound is the higher of its two lines. The "
        "vertical line is where the naive kernel's N x N scores fill the last-level cache."
    )
    assert notes.items == [
        "The tiled kernel takes x1.25 at N = 2,048, x1.05 at N = 4,096, x0.96 at N = 8,192 the "
        "naive kernel's time. It is slower at 2 of the 3 lengths and within 10% of the naive "
        "kernel at 2. Both kernels are compute-bound on one core here, so the bytes the tiled one "
        "saves do not lower its bound, while its many small matmuls run below the roof and every "
        "inner step pays a fixed cost.",
        # 1 s against the sum 90 ms (0.91 away) and the max 50 ms (0.95 away): closer to the sum
        "numpy runs the naive kernel's phases one after the other: the matmuls at F / P_1 = "
        "40.0 ms, then ten passes over S at D / beta = 50.0 ms (10.00 GB/s). It took 1.00 s at "
        "N = 8,192, closer to their sum, 90.0 ms, than to the roofline's max, 50.0 ms, which "
        "assumes the two overlap.",
        # 0.96 s - 0.04 - 8192^2 x 0.5 ns (33.6 ms) - 256 x 10 µs (2.56 ms) = 884 ms
        "The tiled kernel moves 1/4.0 as much as the naive kernel's bytes (100.00 MB, 12.5 ms at "
        "that bandwidth), so its time goes elsewhere: of its 960 ms, 40.0 ms is F at the matmul "
        "roof, 33.6 ms the N^2 exponentials at 0.50 ns each, 2.56 ms the fixed costs of 256 "
        "steps, and the remaining 884 ms its small matmuls running below the roof and its other "
        "passes over the blocks. The naive kernel pays for the same exponentials.",
        # per score, 2048 -> 8192: naive 9.54 -> 14.90 ns (x1.56), tiled 11.92 -> 14.31 ns (x1.20)
        "Per score the naive kernel takes 9.54 ns at N = 2,048 (S inside the last-level cache) "
        "and 14.90 ns at N = 8,192 (S 8.0 times the cache), x1.56; the tiled one x1.20. Here the "
        "savings show in time: the tiled kernel's blocks stay in the L2.",
        "Where the savings always show: memory. The naive kernel holds S, 4.00 MiB at N = 8,192 "
        "and 4.00 MiB at 131,072 tokens; the tiled kernel needs 1.00 MiB there, its output and "
        "its blocks.",
    ]
    # tiled 0.05 s -> 1.5 s: x30 for x16 the scores, x1.88 per score
    assert kernel_notes({2048: (0.04, 0.05), 8192: (1.0, 1.5)})[3].endswith(
        "x1.56; the tiled one x1.88. Here the passes over S cost about the "
        "same whether S sits in the cache or in DRAM: the savings do not show in time."
    )
    faster = kernel_notes({2048: (0.04, 0.02), 4096: (0.055, 0.03)}, compute_bound=False)
    assert "the naive kernel's time. It is never slower: its blocks cost less" in faster[0]
    assert "closer to the roofline's max, 50.0 ms, than to their sum, 90.0 ms: here" in faster[1]
    assert len(faster) == 4  # no length with S past twice the cache
    assert (
        "It is slower at the one length. By the roofline it should win, since "
        "the naive kernel is memory-bound here"
        in kernel_notes({2048: (0.04, 0.08)}, compute_bound=False)[0]
    )
    assert "It is never slower" in kernel_notes({1024: (0.1, 0.1)})[0]  # equal times: not slower
    assert "It is slower at 1 of the 2 lengths and" in kernel_notes({1: (1, 2), 2: (1, 1)})[0]
    # per score, 2048 -> 8192 (2^22 and 2^26 scores): naive 1/16 s -> 1.1 s grows x1.1, tiled
    # 1/16 s -> 1 s grows x1.0: exactly 1.1 times, which does not count as showing
    same = kernel_notes({2048: (0.0625, 0.0625), 8192: (1.1, 1.0)})[3]
    assert same.endswith("the savings do not show in time.")
    # S exactly the cache counts as inside it
    runs = {
        n: page.Run(Blocks(64, 64, 1.0), {"naive": t, "tiled": t}, x, {"naive": 1.0, "tiled": 1.0})
        for n, t, x in ((2896, 0.1, 1.0), (8192, 1.0, 8.0))}  # fmt: skip
    record = dataclasses.replace(kernels({1024: (1.0, 1.0)}), runs=runs)
    assert "at N = 2,896 (S inside the last-level cache)" in page.kernels(record)[3].items[3]
    # a measured time exactly between the sum (0.75 s) and the max (0.5 s): not closer to the sum
    tie = {"naive": row(4e8, 0.25, 0.5, 0.625), "tiled": row(1e8, 0.25, 0.1, 1.0)}
    tie = page.kernels(dataclasses.replace(kernels({1024: (0.625, 1.0)}), placed=tie))[3].items
    assert "closer to the roofline's max, 500 ms, than to their sum, 750 ms" in tie[1]
    # a tiled time below its parts leaves nothing, not a negative remainder
    assert "and the remaining 0.00 ns its small matmuls" in kernel_notes({8192: (1.0, 0.05)})[2]


N, D_HEAD, BF16 = 4096, 128, 2


def part1(table: dict) -> tuple[page.Extremes, page.Schedule, page.Lengths]:
    """Sections 1, 2 and 4's records as the lecture builds them, for any hardware table."""
    a100, h100 = table["a100"], table["h100"]
    f, naive = attention_counts(N, D_HEAD, BF16)
    ideal = attention_counts(N, D_HEAD, BF16, materialized=False)[1]

    def gpu(c):
        return page.Gpu(c.name, c.ridge_point("bf16"), c.smem_per_sm)

    def t(fl, d, c):
        return lower_bound_time(fl, d, c.peak_flops("bf16"), c.mem_bw)

    gpus = (a100, h100)
    kernels = {
        k: (d, intensity(f, d), [t(f, d, c) for c in gpus])
        for k, d in (("naive", naive), ("ideal", ideal))}  # fmt: skip

    def plan(c):
        b = attention_io.block_sizes(N, D_HEAD, c.smem_per_sm, BF16)
        d = attention_io.tiled_traffic(N, D_HEAD, b.rows, b.cols, BF16)
        need = attention_io.smallest_on_chip_for(N, D_HEAD, c.ridge_point("bf16"), BF16)
        reads = attention_io.kv_reads(N, b.rows, b.cols)
        return page.Plan(
            gpu(c), b, math.ceil(N / b.rows), reads, d, intensity(f, d), t(f, d, c), need
        )

    named = [plan(h100), plan(a100)]
    heads = {}
    for n in (512, 8192, 131072):
        fn, dn = attention_counts(n, D_HEAD, BF16)
        dt = attention_io.tiled_counts(n, D_HEAD, h100.smem_per_sm, BF16)[1]
        di = attention_counts(n, D_HEAD, BF16, materialized=False)[1]
        heads[n] = page.Head(
            dn, dt, di, intensity(fn, dn), intensity(fn, dt), t(fn, dn, h100), t(fn, dt, h100)
        )
    layer = {n: [1e-3 * n / 512, h.t_naive, h.t_tiled] for n, h in heads.items()}
    over = {
        k: next((Crossover(None, n) for n, x in layer.items() if x[i] >= x[0]), None)
        for i, k in ((1, "naive"), (2, "tiled"))}  # fmt: skip
    return (
        page.Extremes(N, D_HEAD, f, [gpu(c) for c in gpus], kernels, 2 * BF16 * N * D_HEAD),
        page.Schedule(N, D_HEAD, named, named, naive, ideal),
        page.Lengths(gpu(h100), D_HEAD, heads, "M", 1, layer, over),
    )


def check_part1(table: dict) -> None:
    extremes, schedule, lengths_ = part1(table)
    t1, n1 = page.extremes(extremes)
    *_, n2 = page.schedule(schedule)
    *_, n4 = page.lengths(lengths_)
    text = " ".join(prose(n) for n in (n1, n2, n4))
    assert not contradictions(text), contradictions(text)
    assert (
        "None" not in text and "x0 " not in text and "x0." not in re.sub(r"x0\.\d*[1-9]", "", text)
    )
    for cells, (_, i, _) in zip(t1.rows, extremes.kernels.values(), strict=True):
        for cell, g in zip(cells[4:], extremes.gpus, strict=True):
            assert cell.startswith("compute") == (i >= g.ridge)
    reached = [p.intensity >= p.gpu.ridge for p in schedule.named]
    said = n2.items[1]
    assert said.startswith("Both") == all(reached) and said.startswith("Neither") == (
        not any(reached)
    )
    for p in schedule.named:  # a chip reaches its ridge exactly when its need fits its memory
        assert (p.needed is not None and p.needed <= p.gpu.smem) == (p.intensity >= p.gpu.ridge)
    h = schedule.named[0]
    assert bool(re.search(r", 1/[\d.,]+ as much as the naive", n2.items[2])) == (
        f"{h.traffic / schedule.naive_bytes:.2f}" < "1.00"
    )
    below = re.search(r"Below N = ([\d,]+)", n4.items[2])
    if below:  # under the first crossing, attention with either kernel stays under the rest
        first = int(below.group(1).replace(",", ""))
        assert all(x[1] < x[0] and x[2] < x[0] for n, x in lengths_.layer.items() if n < first)


@settings(max_examples=30, deadline=None)
@given(hardware_tables())
@example(edited(h100={"peak bf16": 10.0}))  # no shared memory reaches the ridge: 10 stopped
@example(edited(h100={"smem": 20.0}, a100={"smem": 0.05}))  # one chip reaches, the other not
@example(edited(h100={"peak bf16": 0.05, "mem_bw": 20.0}))  # the ridge below one row a block
@example(edited(a100={"mem_bw": 0.05}))  # the ideal memory-bound on one chip only
def test_part1_words_hold_for_drawn_hardware_and_edits_that_broke_them(table: dict) -> None:
    check_part1(table)


SECONDS = st.floats(1e-4, 10.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(SECONDS, SECONDS), min_size=1, max_size=4), SECONDS, st.booleans())
def test_kernel_words_hold_for_drawn_times(times: list, naive_t: float, bound: bool) -> None:
    record = kernels(dict(zip((1024, 2048, 4096, 8192), times, strict=False)), naive_t, bound)
    text = " ".join(page.kernels(record)[3].items)
    assert not contradictions(text)
    assert ("It is never slower" in text) == (sum(t > n for n, t in times) == 0)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([8, 16, 64, 128]), SECONDS), min_size=1, max_size=4), SECONDS
)
def test_block_words_hold_for_drawn_times(choices: list, naive_t: float) -> None:
    rows = [sized(f"M{i}", r, t, 1024 // r) for i, (r, t) in enumerate(choices)]
    items = block_sizes(*rows, naive_t=naive_t, held=MIB)[2].items
    assert not contradictions(" ".join(items))
    fastest = min(rows, key=lambda s: s.seconds)
    assert f"The fastest blocks came from {fastest.name} " in items[1]
