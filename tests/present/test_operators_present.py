"""Lecture 05's tables and sentences (common.present.operators), called in this process.

Chips of round numbers (peak 100 TFLOP/s, 1 TB/s: ridge 100 FLOP/B) so every
expected value is hand arithmetic; no expected text comes from the module itself.
"""

from __future__ import annotations

from fake_chips import chip, observed, prose, rows

from common.files.calibration import SavedCalibration
from common.formulas.thresholds import Crossover
from common.present import operators as ops_present
from common.present.display import Observations


def saved(peak: float | None = None, bw: float | None = None) -> SavedCalibration:
    if peak is None:
        return SavedCalibration(None, "no record yet", "test", None)  # type: ignore[arg-type]
    cal = {"matmul_flops_per_s": peak, "bandwidth_bytes_per_s": bw}
    return SavedCalibration(cal, "", "test", None)  # type: ignore[arg-type]


A = chip("Old", 100e12, 1e12)  # ridge 100
B = chip("New", 300e12, 2e12, fp8=600e12)  # ridge 150


def test_machines_table_rows_by_hand() -> None:
    text = prose(ops_present.machines_table([(A, "bf16"), (B, "fp8")], saved(2e11, 4e10)))
    assert "Old (bf16) | 100 TFLOP/s | 1.000 TB/s | 100.0" in text
    assert "New (fp8) | 600 TFLOP/s | 2.000 TB/s | 300.0" in text  # 600 / 2
    # measured 200 GFLOP/s over 40 GB/s = 5.0 FLOP/B
    assert "this machine (numpy, fp32) | 200.0 GFLOP/s | 40.000 GB/s | 5.0" in text
    assert "not measured" not in text
    none = prose(ops_present.machines_table([(A, "bf16")], saved()))
    assert "this machine (numpy, fp32) | not measured (run lecture 01) | - | -" in none
    assert "note: this machine is not measured: no record yet" in none


def test_machines_observations_by_hand() -> None:
    text = prose(ops_present.machines_observations(A, B, saved(2e11, 4e10)))
    # bandwidth x2, compute x3: ridge 100 -> 150 rose
    assert "A100 -> H100: bandwidth x2.00, bf16 compute x3.00, ridge point 100.0 -> 150.0" in text
    assert "H100 fp8 peak vs A100 bf16 peak: 6.0x" in text  # 600 / 100
    assert (
        "From Old to New, bf16 compute grew x3.00 but bandwidth only x2.00, so the ridge "
        "point rose from 100.0 to 150.0 FLOP/B: on the newer chip more kernels fall on the "
        "memory-bound side." in text
    )
    assert "H100's fp8 peak is 6.0x A100's bf16 peak" in text
    assert "This machine's ridge point is 5.0 FLOP/B" in text
    fell = prose(
        ops_present.machines_observations(A, chip("Wide", 150e12, 3e12, fp8=150e12), saved())
    )
    # compute x1.5, bandwidth x3: ridge 100 -> 50 fell
    assert (
        "ridge point fell from 100.0 to 50.0 FLOP/B: on the newer chip more kernels reach" in fell
    )
    assert "This machine" not in fell
    same = prose(
        ops_present.machines_observations(A, chip("Twice", 200e12, 2e12, fp8=200e12), saved())
    )
    assert "the same kernels are memory-bound on both." in same


OPS = [
    ("elementwise add", 1e9, 12e9),  # I = 1/12 = 0.08
    ("LayerNorm", 8e9, 4e9),  # I = 2.00
    ("GEMM 64x4096x4096", 2 * 64 * 4096 * 4096, 2 * (64 * 4096 * 2 + 4096 * 4096)),
    ("big GEMM", 1e12, 1e9),  # I = 1000
]
# GEMM M=64: F = 2.147e9, D = 2 * (524,288 + 16,777,216) = 34.6e6: I = 62.06


def test_ledger_table_by_hand() -> None:
    text = prose(ops_present.ledger_table(OPS, A, "bf16", 2))
    assert "Operator ledger on Old, bf16" in text
    assert "P = 100 TFLOP/s, beta = 1.000 TB/s, I* = 100.0 FLOP/B; elements of 2 bytes" in text
    # add: D / beta = 12 ms; I/I* = 0.00083
    assert "elementwise add | 1.00 GFLOP | 12.00 GB | 0.08 | 0.001 | memory | 12.000 ms" in text
    assert "LayerNorm | 8.00 GFLOP | 4.00 GB | 2.00 | 0.020 | memory | 4.000 ms" in text
    # big GEMM: F / P = 10 ms > D / beta = 1 ms
    assert "big GEMM | 1.00 TFLOP | 1.00 GB | 1000.00 | 10.000 | compute | 10.000 ms" in text


def test_ledger_observations_by_hand() -> None:
    text = prose(ops_present.ledger_observations(OPS, A, "bf16"))
    assert "3 of the 4 operators are memory-bound on Old at bf16." in text
    assert (
        "elementwise add sits at I = 0.08 FLOP/B and LayerNorm at 2.00, against I* = 100.0" in text
    )
    assert "at M = 64 it is already 62.1 FLOP/B" in text
    low = prose(ops_present.ledger_observations(OPS, chip("Low", 1e12, 1e12), "bf16"))
    # ridge 1: add only below; LayerNorm 2 >= 1 and GEMMs above
    assert "1 of the 4 operators are memory-bound" in low


def test_rooflines_caption_by_hand() -> None:
    fig = ops_present.rooflines_png("figures/x.png", OPS, [A, chip("Low", 2e12, 1e12)], "bf16")
    text = prose(fig)
    # Old ridge 100: only op 4; Low ridge 2: ops 2 (I = 2.00 exactly), 3, 4
    assert "only operators 4 on the Old, and 2, 3, 4 on the Low reach the flat roof" in text
    assert "rooflines of the Old and Low" in text
    none = prose(ops_present.rooflines_png("figures/x.png", OPS[:2], [A], "bf16"))
    assert "only operators none on the Old reach" in none


def test_attention_comparison_by_hand() -> None:
    # naive: 1e12 FLOP, 100e9 B (I = 10, memory, 100 ms); ideal: 1e12 FLOP, 1e9 B (I = 1000)
    text = prose(ops_present.attention_comparison((1e12, 100e9), (1e12, 1e9), A, "bf16"))
    assert "FLOPs | 1.00 TFLOP | 1.00 TFLOP | x1.000" in text
    assert "bytes | 100.00 GB | 1.00 GB | 100x fewer" in text
    assert "intensity (FLOP/B) | 10.0 | 1000.0 | x100.0" in text
    assert "bound | memory | compute |" in text
    # times: max(10 ms, 100 ms) = 100 ms and max(10 ms, 1 ms) = 10 ms: x10.0
    assert "roofline time | 100.000 ms | 10.000 ms | x10.0 faster" in text
    assert (
        "The FLOPs are unchanged (x1.000); the bytes fall 100x, so the intensity jumps from 10.0 "
        "to 1000.0 FLOP/B and the kernel moves from the memory-bound to the compute-bound side "
        "of I* = 100.0." in text
    )
    assert "The time bound falls from 100.000 ms to 10.000 ms (x10.0)." in text
    stay = prose(ops_present.attention_comparison((1e12, 100e9), (1e12, 20e9), A, "bf16"))
    # ideal I = 50 < 100: still memory-bound
    assert "the kernel stays on the memory-bound side of I* = 100.0" in stay


def test_speedup_section_by_hand() -> None:
    two = [("add", 1e9, 12e9), ("gemm", 1e12, 1e9)]
    speed = {"add": (1.0, 2.0), "gemm": (2.0, 1.0)}
    text = prose(ops_present.speedup_section(two, speed, A, "bf16"))
    assert "Speedup from doubling one resource (Old, bf16)" in text
    assert "add | 0.001 | 1.00x | 2.00x" in text
    assert "gemm | 10.000 | 2.00x | 1.00x" in text
    assert "For 1 of the 2 operators, twice the compute buys 1.00x" in text
    assert "Every row reads 1.00x or 2.00x" in text
    near = {"add": (1.0, 2.0), "gemm": (1.5, 1.333)}
    text = prose(ops_present.speedup_section(two, near, A, "bf16"))
    assert "Within a factor of 2 of the ridge (gemm), the upgrade" in text
    # 1.004 prints 1.00x and counts as no gain; 1.006 does not
    edge = {"add": (1.004, 2.0), "gemm": (1.006, 1.996)}
    text = prose(ops_present.speedup_section(two, edge, A, "bf16"))
    assert "For 1 of the 2 operators, twice the compute buys 1.00x" in text
    assert "Within a factor of 2 of the ridge (gemm)" in text  # 1.006 is off 1 by > 0.005


def test_whole_edges() -> None:
    assert ops_present._whole(1.004) and ops_present._whole(0.996)
    assert ops_present._whole(2.004) and ops_present._whole(1.996)
    assert not ops_present._whole(1.006) and not ops_present._whole(0.994)
    assert not ops_present._whole(2.006) and not ops_present._whole(1.994)


def sweep(width: int, ms: list[int]) -> dict[int, tuple[float, float]]:
    return {m: (2.0 * m * width * width, 2.0 * (m * width * 2 + width * width)) for m in ms}


def test_sweep_section_by_hand() -> None:
    w = 1000
    sw = sweep(w, [1, 100, 1000])
    # I(m) = 2 m w^2 / (2 (2 m w + w^2)) = m w / (2 m + w): I(1) = 0.998, I(100) = 83.33,
    # I(1000) = 333.33; ridge 100 -> crossover (100, 1000]
    text = prose(ops_present.sweep_section(sw, w, A, "bf16", Crossover(100, 1000), 126, 500.0))
    assert "GEMM [M, 1000] x [1000, 1000] on Old, bf16" in text
    assert "1 | 2.00 MFLOP | 2.00 MB | 1.00 | memory" in text
    assert "1000 | 2.00 GFLOP | 6.00 MB | 333.33 | compute" in text
    assert "ridge point: I* = 100.0 FLOP/B" in text
    assert "crossover: M in (100, 1000]: I(100) = 83.33 < I* = 100.0 <= I(1000) = 333.33" in text
    assert "smallest integer M with I >= I*: 126" in text
    assert "At M = 1 (one token, as in decode) the GEMM does 1.00 FLOP per byte" in text
    assert "never exceeds 500.0 FLOP/B" in text
    group = ops_present.sweep_section(sw, w, A, "bf16", Crossover(100, 1000), 126, 500.0)
    (obs,) = [i for i in group.items if isinstance(i, Observations)]
    assert [s.split()[:3] for s in obs.items] == [
        ["At", "M", "="],
        ["The", "sweep", "crosses"],
        ["I", "grows", "almost"],
    ]
    assert "between M = 100 and M = 1000; the exact threshold is M = 126" in obs.items[1]
    none = prose(ops_present.sweep_section(sw, w, A, "bf16", None, None, 500.0))
    assert "crossover: none; every M up to 1000 stays memory-bound" in none
    assert "smallest integer M" not in none and "The sweep crosses" not in none
    first = prose(ops_present.sweep_section(sw, w, A, "bf16", Crossover(None, 1), 1, 500.0))
    assert "crossover: none needed; already compute-bound at M = 1" in first
    assert "The sweep crosses" not in first


def test_operators_fixed_words() -> None:
    """Headings, column labels and the fixed halves of sentences: units and directions."""
    group = ops_present.machines_table([(A, "bf16")], saved())
    assert "Machines: peak compute, bandwidth and ridge point" in str(group)
    assert rows(group)[0] == ["machine", "peak P", "bandwidth beta", "ridge I* (FLOP/B)"]
    text = prose(ops_present.machines_observations(A, B, saved(2e11, 4e10)))
    assert "ridge point 100.0 -> 150.0 FLOP/B H100 fp8" in text
    assert (
        "but it only helps kernels that are compute-bound (and can run in fp8). Quoting the wrong "
        "precision's peak can flip the verdict of the ledger." in text
    )
    assert "This machine's ridge point is 5.0 FLOP/B, measured with numpy in fp32. It is" in text
    assert rows(ops_present.ledger_table(OPS, A, "bf16", 2))[0] == [
        "operator",
        *("F", "D", "I (FLOP/B)", "I/I*", "bound", "time bound"),
    ]
    obs = ops_present.ledger_observations(OPS, A, "bf16").items
    assert obs[0].endswith(
        "against I* = 100.0: a faster arithmetic unit cannot shorten them at all."
    )
    assert obs[1].startswith(
        "The add's intensity does not depend on its size: F and D both grow with the element "
        "count. A GEMM's does: at M = 64 it is already 62.1 FLOP/B, because each weight byte"
    )
    cap = ops_present.rooflines_png("figures/x.png", OPS, [A], "bf16").caption
    assert " ".join(cap.split()).startswith(
        "The operators of the ledger on the bf16 rooflines of the Old, numbered as in the key. "
        "Each sits at min(P, I beta) of its panel's chip; the dotted line is the ridge. Look at "
        "how many sit on the slope, left of the ridge: only operators 4 on the Old reach the flat "
        "roof. The others run at the speed of memory."
    )
    group = ops_present.attention_comparison((1e12, 100e9), (1e12, 1e9), A, "bf16")
    assert "Attention: S and P in memory vs ideal minimum traffic" in str(group)
    assert rows(group) == [
        ["", "naive (S, P in memory)", "ideal minimum traffic", "change"],
        ["FLOPs", "1.00 TFLOP", "1.00 TFLOP", "x1.000"],
        ["bytes", "100.00 GB", "1.00 GB", "100x fewer"],
        ["intensity (FLOP/B)", "10.0", "1000.0", "x100.0"],
        ["bound", "memory", "compute", ""],
        ["roofline time", "100.000 ms", "10.000 ms", "x10.0 faster"],
    ]
    obs = observed(group)
    assert obs[1].endswith(
        "(x10.0). The whole gain comes from moving fewer bytes, not from computing less."
    )
    assert obs[2].endswith("so they move more bytes than this, and their speed must be measured.")


def test_speedup_words_and_edges() -> None:
    two = [("add", 1e9, 12e9), ("gemm", 1e12, 1e9)]
    group = ops_present.speedup_section(two, {"add": (1.0, 2.0), "gemm": (2.0, 1.0)}, A, "bf16")
    assert rows(group)[0] == ["operator", "I/I*", "2x compute", "2x bandwidth"]
    obs = observed(group)
    assert obs[0] == (
        "For 1 of the 2 operators, twice the compute buys 1.00x: they are memory-bound, and only "
        "more bandwidth (or fewer bytes: fusion, smaller data types) makes them faster."
    )
    assert obs[1] == (
        "Every row reads 1.00x or 2.00x because every operator lies more than a factor of 2 from "
        "the ridge. Closer in, the upgrade that helps would pay less than 2x."
    )
    # 1.005 is not below 1.005: it is a gain, though it prints 1.00x
    edge = ops_present.speedup_section(two, {"add": (1.005, 2.0), "gemm": (2.0, 1.0)}, A, "bf16")
    assert "For 0 of the 2 operators" in prose(edge)
    assert not ops_present._whole(1.0052) and not ops_present._whole(2.0052)
    assert ops_present._whole(1.0048) and ops_present._whole(1.9952)


def test_sweep_fixed_words() -> None:
    w = 1000
    group = ops_present.sweep_section(
        sweep(w, [1, 100, 1000]), w, A, "bf16", Crossover(100, 1000), 126, 500.0
    )
    assert rows(group)[0] == ["M", "F", "D", "I (FLOP/B)", "bound"]
    assert "\nridge point: I* = 100.0 FLOP/B\n" in str(group)
    obs = observed(group)
    assert obs[0] == (
        "At M = 1 (one token, as in decode) the GEMM does 1.00 FLOP per byte: a matrix-vector "
        "product streams every weight once and uses it once. Small-batch decode is memory-bound, "
        "so quantizing the weights helps by moving fewer bytes, not by faster math."
    )
    assert obs[1].endswith(
        "Below it the weights' bandwidth sets the time, above it the arithmetic does."
    )
    assert obs[2] == (
        "I grows almost in proportion to M at first, then saturates: it never exceeds 500.0 "
        "FLOP/B for these weights, however large M gets."
    )
