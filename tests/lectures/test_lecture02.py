"""Lecture 02 run as a student runs it: its printed tables carry the lecture script's numbers."""

from __future__ import annotations

import re

import pytest
from conftest import lecture_path, quiet_run

LECTURE = "02"
WIDTH = 88


#: Rows of each part, whitespace folded, worked by hand: vectors of n = 2^24 bf16 numbers;
#: X[B, 8192] W[8192, 8192]; the H100's 989 TFLOP/s and 3.35 TB/s (ridge 295).
ROWS = [
    # add: n FLOPs over 3 x 2n bytes = 1/6; dot: 2n over 2 x 2n; 0.167 x 3.35 TB/s = 558.3 GFLOP/s
    "vector add 16.78 MFLOP 100.66 MB 0.167 memory",
    "dot product 33.55 MFLOP 67.11 MB 0.500 memory",
    # 2 B 8192^2 FLOPs over 2 (2 x 8192 B + 8192^2) bytes: 1.000, 15.9, 2048.0 (556 µs at peak)
    "matvec, B=1 134.22 MFLOP 134.25 MB 1.000 memory",
    "matmul, B=16 2.15 GFLOP 134.74 MB 15.9 memory",
    "matmul, B=4096 549.76 GFLOP 268.44 MB 2048.0 compute 100.00% 556 µs",
    # part 2: ridge P / beta; critical B by conftest.critical_batch (319 at bf16)
    "H100 SXM bf16 bf16/bf16/bf16 989.00 TFLOP/s 3.35 TB/s 295 319",
    "H100 SXM fp8 fp8/fp8/bf16 1.98 PFLOP/s 3.35 TB/s 591 332",
    "H200 bf16 bf16/bf16/bf16 989.00 TFLOP/s 4.80 TB/s 206",
    "B300 nvfp4 nvfp4/nvfp4/bf16 15.00 PFLOP/s 8.00 TB/s 1875 747",
    "TPU v5e bf16 bf16/bf16/bf16 197.00 TFLOP/s 820.00 GB/s 240 256",
    "TPU v5e int8 int8/int8/int8 394.00 TFLOP/s 820.00 GB/s 480 256",
    # part 3: 4 x 32 heads x 128 x 4096 FLOPs over 2 (K, V) x H_kv x 128 x 4096 x 2 B
    "MHA 32 1 67.11 MFLOP 67.11 MB 1.0", "GQA 8 4 67.11 MFLOP 16.78 MB 4.0",
    "MQA 1 32 67.11 MFLOP 2.10 MB 32.0",
    # part 4's key: the add at 558.3 GFLOP/s, B = 4096 capped at the peak
    "a vector add 0.167 558.3 GFLOP/s", "h matmul, B=4096 2048.0 989.0 TFLOP/s",
    # part 5: 4096^3, A read N / bn and B read M / bm times, C written once (33.5 MB each)
    "32x32x32 8.62 GB 15.9 16.0", "64x64x64 4.33 GB 31.8 32.0", "128x64x128 2.18 GB 63.0 64.0",
    "128x64x256 1.64 GB 83.6 85.3", "256x64x256 1.11 GB 124.1 128.0", "256x256 256 KiB yes 128 no",
    "512x512 1 MiB no 256 no",
    # a 2 x 295 = 590 tile side: 590^2 x 4 B = 1.3 MiB
    "Tile needed for 295 FLOP/B from HBM alone: about 590 x 590; fp32 accumulator 1.3 MiB.",
    # part 6: net I* = P / link, compute iff K > 2 P / link; the steps at K = 8192 on the
    # v5e: 2 x 8 x 8192^2 / 2 chips / 197 TFLOP/s = 2.73 µs against 8 x 8192 x 2 B / 45 GB/s
    "TPU v5e ICI, one link 45 GB/s 4,378 K > 8,755.6 comms comms compute",
    "TPU v6e ICI, one link 90 GB/s 10,222 K > 20,444.4 comms comms comms",
    "H100 SXM NVLink 4 450 GB/s 2,198 K > 4,395.6 comms compute compute",
    "8192 8 2.73 µs 2.91 µs 4,096 comms", "16384 8 5.45 µs 2.91 µs 8,192 compute",
]  # fmt: skip


@pytest.fixture(scope="module")
def output() -> str:
    return quiet_run(LECTURE)


def test_every_part_prints_the_numbers_worked_by_hand(output: str) -> None:
    flat = " ".join(output.split())
    assert [r for r in ROWS if r not in flat] == []
    assert "per example" not in output  # the book's exercise 4 is left to the exercise
    chart = output.split("4. Roofline of H100 SXM, bf16")[1].split("point  operation")[0]
    plot = [line.split("|", 1)[1] for line in chart.splitlines() if "|" in line]
    assert all(any(c in line for line in plot) for c in "abcdefgh+")  # points and the ridge
    long = [line for line in output.splitlines() if len(line) > WIDTH]  # 88 columns
    assert not long, long


def test_no_reference_number_typed_into_the_lecture() -> None:
    pattern = re.compile(
        r"(^|[^0-9.e])(295|206|319|332|1875|747|240|590|8755|4396|20444|200\.6)([^0-9]|$)"
    )
    for lineno, line in enumerate(lecture_path(LECTURE).read_text().splitlines(), 1):
        if not line.lstrip().startswith("#"):
            assert not pattern.search(line), f"line {lineno}: {line}"
