"""Tiled attention's IO model against an independent count of every block it moves.

The reference values are the article's: one head at N = 4096, d_h = 128 in bf16
moves 138.41 MB naively and 4.19 MB at the ideal minimum (the article
'性能建模与 Profiling：算力、带宽与显存账本', section 3.3, the attention ledger).
The shared-memory figures are NVIDIA's: 164 KB per SM on the A100 (Ampere GPU
Architecture Tuning Guide, 'Unified Shared Memory/L1/Texture Cache') and 228 KB on
the H100 (Hopper Tuning Guide, same section), KB meaning 1024 bytes there.
"""

from __future__ import annotations

import math

import pytest

from common import exercises, hw_specs
from common.formulas import attention_io as io
from common.formulas.ledger import attention_counts

BF16, FP32 = 2, 4


def simulated_traffic(n: int, d: int, br: int, bc: int, b: float) -> float:
    """Bytes FlashAttention-2's loops move: Q_i read and O_i written once an outer step; a K, V
    block read unless it is the one the chip already holds."""
    held = None
    moved = 0.0
    for i0 in range(0, n, br):
        rows = min(br, n - i0)
        moved += rows * d * b  # read Q_i
        for j0 in range(0, n, bc):
            cols = min(bc, n - j0)
            if held != j0:
                moved += 2 * cols * d * b  # read K_j and V_j
                held = j0
        moved += rows * d * b  # write O_i
    return moved


def footprint(br: int, bc: int, d: int, b: float) -> float:
    """Q_i, K_j, V_j at b bytes; S (then P), O_i, m_i and l_i in fp32: written out in full."""
    q_block = br * d * b
    kv_blocks = 2 * bc * d * b
    scores = br * bc * 4
    accumulator = br * d * 4
    statistics = 2 * br * 4
    return q_block + kv_blocks + scores + accumulator + statistics


def brute_force_blocks(n: int, d: int, m: float, b: float) -> tuple[int, int]:
    """The rule by exhaustive search: Bc = N if K, V fit beside one row, else Bc = min(Br, d)."""
    if footprint(1, n, d, b) <= m:
        return max(r for r in range(1, n + 1) if footprint(r, n, d, b) <= m), n
    br = max(r for r in range(1, n + 1) if footprint(r, min(r, d), d, b) <= m)
    return br, min(br, d)


GRID = [
    (64, 16, 8, 8), (257, 64, 31, 47), (1, 8, 1, 1),
    (64, 16, 7, 5),  # neither divides N
    (100, 32, 33, 100),  # one key block: K and V read once
    (100, 32, 100, 17),  # one query block
    (4096, 128, 130, 128),  # the H100's blocks
]  # fmt: skip


@pytest.mark.parametrize(("n", "d", "br", "bc"), GRID)
@pytest.mark.parametrize("b", [BF16, FP32])
def test_traffic_and_footprint_equal_the_simulated_loops(n, d, br, bc, b: float) -> None:
    assert io.tiled_traffic(n, d, br, bc, b) == simulated_traffic(n, d, br, bc, b)
    assert io.on_chip_bytes(br, bc, d, b) == footprint(br, bc, d, b)


def test_footprint_by_hand() -> None:
    # U(130, 128) at d = 128, bf16: 33,280 + 65,536 + 66,560 + 66,560 + 1,040.
    assert io.on_chip_bytes(130, 128, 128, 2) == 232_976
    assert io.smallest_on_chip_bytes(128, 2) == 256 + 512 + 4 + 512 + 8
    assert io.smallest_on_chip_bytes(128) == 1292  # bf16 unless told
    # fp32 (b = 4), N = 16, d = 64: U(1, 16) = 8,776 B > 6,000, so Bc = min(Br, d); U(r, r) =
    # 256 r + 512 r + 4 r^2 + 256 r + 8 r = 1,032 r + 4 r^2: 5,260 B at r = 5, 6,336 at 6
    assert io.block_sizes(16, 64, 6000, 4) == (5, 5, 5260)
    # U(1, 4096): Q row 256 + K and V 2,097,152 + S row 16,384 + O row 512 + statistics 8.
    assert io.resident_on_chip_bytes(4096, 128, 2) == 2_114_312
    h100 = io.block_sizes(4096, 128, 228 * 1024, BF16)
    assert (h100.rows, h100.cols) == (130, 128)
    # A100: square blocks, 4 B^2 + 1288 B <= 167,936 holds at B = 99, not at 100.
    a100 = io.block_sizes(4096, 128, 164 * 1024, BF16)
    assert (a100.rows, a100.cols) == (99, 99)
    # 2 B N d_h (1 + T_r): H100 T_r = 32, A100 T_r = 42.
    assert io.tiled_traffic(4096, 128, 130, 128, BF16) == 2 * 2 * 4096 * 128 * 33
    assert io.tiled_traffic(4096, 128, 99, 99, BF16) == 2 * 2 * 4096 * 128 * 43
    flops, naive = attention_counts(4096, 128, BF16)  # 138.41 MB: test_ledger
    ideal = attention_counts(4096, 128, BF16, materialized=False)[1]  # 4.19 MB
    # Enough on chip for K and V whole: the tiled traffic is the ideal minimum exactly.
    enough = io.tiled_counts(4096, 128, 4 * 1024**2, BF16)
    assert enough == (flops, ideal) and f"{flops / enough[1]:.0f}" == "2068"
    # One row of each block: K and V are read N times, 62 times the naive traffic.
    least = io.tiled_counts(4096, 128, io.smallest_on_chip_bytes(128), BF16)[1]
    assert least == 2 * 2 * 4096 * 128 * (1 + 4096) and least > naive
    d64 = io.tiled_counts(4096, 128, 64 * 1024, BF16)[1]
    d128 = io.tiled_counts(4096, 128, 128 * 1024, BF16)[1]
    assert 1.8 < d64 / d128 < 2.2
    ridge = hw_specs.H100.ridge_point("bf16")
    m = io.smallest_on_chip_for(8192, 128, ridge, BF16)
    assert m == 457_088
    flops = attention_counts(8192, 128, BF16)[0]
    for memory, reaches in ((m, True), (m - 1, False)):
        br, bc = brute_force_blocks(8192, 128, memory, BF16)
        assert (flops / simulated_traffic(8192, 128, br, bc, BF16) >= ridge) is reaches
    assert io.smallest_on_chip_for(64, 16, 1e9, BF16) is None
    # Reachable at the very smallest footprint: that footprint is the answer.
    assert io.smallest_on_chip_for(64, 16, 0.5, BF16) == io.smallest_on_chip_bytes(16, BF16)
    i = io.tiled_intensity(8192, 128, io.on_chip_bytes(128, 128, 128, BF16), BF16)
    assert 0.95 * 128 < i < 1.05 * 128 and io.resident_on_chip_bytes(10, 8, 4) == 752
    # the default element is bf16 (2 bytes): the same schedule as elem_bytes=2
    assert io.tiled_intensity(1024, 64, 64 * 1024) == io.tiled_intensity(1024, 64, 64 * 1024, 2)
    assert io.tiled_intensity(1024, 64, 64 * 1024) != io.tiled_intensity(1024, 64, 64 * 1024, 3)
    # D = b N d (2 + 2 R), R = ceil(64 / 16) = 4: 2 x 64 x 8 x 10 bytes
    assert io.tiled_traffic(64, 8, 16, 16) == 10240
    # all of K and V on chip (R = 1): D = b N d (2 + 2) = 2 x 64 x 8 x 4 bytes
    assert io.tiled_counts(64, 8, 10**6)[1] == 4096
    # sizes at their limits are kept
    # U = b d Br + 2 b d Bc + 4 Br Bc + 4 d Br + 8 Br at Br = 1, Bc = 2^32, d = 1, b = 1
    assert io.on_chip_bytes(1, 2**32, 1, 1) == 1 + 2 * 2**32 + 4 * 2**32 + 4 + 8
    assert io.tiled_traffic(8, 2**16, 8, 8, 8) == 8 * 8 * 2**16 * (2 + 2)  # R = 1
    n, d, b = 64, 8, 4
    least = 4 * 8 + 2 * 4 * 8 + 4 + 4 * 8 + 8  # U(1, 1): one row of each block, 140 B
    whole = 4 * 8 + 2 * 4 * 8 * 64 + 4 * 64 + 4 * 8 + 8  # U(1, N): K and V read once, 4,424 B
    first: dict[float, int] = {}  # each intensity the schedule reaches, at its smallest M_sm
    for m in range(least, whole + 1):
        first.setdefault(io.tiled_intensity(n, d, m, b), m)
    assert len(first) > 10
    for target, m in first.items():
        assert io.smallest_on_chip_for(n, d, target, b) == m
    assert io.smallest_on_chip_for(n, d, 1.01 * max(first), b) is None
    # the chips' figures and sources: test_hw_specs
    assert hw_specs.H100.smem_per_sm == 228 * 1024
    with pytest.raises(ValueError, match="no shared-memory-per-SM figure"):
        _ = hw_specs.TPU_V5E.smem_per_sm
    values = exercises.get_exercise("tiled-head-dim").solve().values
    # d = 64: Bc = 64 and 648 Br + 16,384 <= 233,472 gives Br = 335; T_r = 25.
    # d = 128: the H100's 130 x 128; T_r = 64 (130 * 63 = 8,190 < 8,192).
    # d = 256: square blocks, 4 B^2 + 2568 B <= 233,472 gives B = 80; T_r = 103.
    expected = {64: (335, 64, 25), 128: (130, 128, 64), 256: (80, 80, 103)}
    for d, (br, bc, t_r) in expected.items():
        assert values[d][:2] == (br, bc) and values[d][2] == 2 * 2 * 8192 * d * (1 + t_r)
    assert values[64][3] > hw_specs.H100.ridge_point("bf16") > values[128][3]


@pytest.mark.parametrize(
    ("n", "d", "m", "b"), [(64, 16, 1000, BF16), (64, 16, 3000, BF16), (64, 16, 9000, BF16),
     (64, 16, 20_000, BF16),  # K and V fit: Bc = N
     (200, 8, 5000, FP32), (50, 64, 60_000, FP32)],
)  # fmt: skip
def test_block_sizes_follow_the_rule(n: int, d: int, m: float, b: float) -> None:
    blocks = io.block_sizes(n, d, m, b)
    assert (blocks.rows, blocks.cols) == brute_force_blocks(n, d, m, b)
    assert blocks.on_chip_bytes == footprint(blocks.rows, blocks.cols, d, b) <= m


@pytest.mark.parametrize(("n", "d", "b"), [(64, 16, BF16), (100, 32, FP32), (48, 128, BF16)])
def test_traffic_never_grows_with_memory_and_never_beats_the_ideal(
    n: int, d: int, b: float
) -> None:
    ideal = 4 * b * n * d
    lo = math.ceil(footprint(1, 1, d, b))
    hi = math.ceil(footprint(1, n, d, b)) + 5000
    previous = math.inf
    for m in range(lo, hi, 37):
        traffic = io.tiled_counts(n, d, m, b)[1]
        assert traffic <= previous and traffic >= ideal
        previous = traffic
    assert previous == ideal


@pytest.mark.parametrize(("n", "d"), [(64, 16), (4096, 128)])
def test_kv_fitting_whole_gives_the_ideal(n: int, d: int) -> None:
    at = io.resident_on_chip_bytes(n, d, BF16)
    assert io.block_sizes(n, d, at, BF16).cols == n
    assert io.tiled_counts(n, d, at, BF16)[1] == 4 * BF16 * n * d
    assert io.tiled_counts(n, d, at - 1, BF16)[1] > 4 * BF16 * n * d


@pytest.mark.parametrize(
    ("call", "match"), [(lambda: io.block_sizes(64, 16, 10), "smaller than one row"),
     (lambda: io.block_sizes(64, 16, 0), "on-chip memory")],
)  # fmt: skip
def test_bad_input_is_a_one_line_value_error(call: object, match: str) -> None:
    with pytest.raises(ValueError, match=match) as info:
        call()  # type: ignore[operator]
    assert "\n" not in str(info.value)
