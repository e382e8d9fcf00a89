"""Tiled attention's edges: sizes at their limits, the default element size, and the
bisection for the smallest on-chip memory against a brute-force loop, in fp32 (the lecture
runs bf16)."""

from __future__ import annotations

from common.formulas import attention_io as io

N_MAX = 2**32


def test_sizes_at_their_limits_are_kept() -> None:
    # U = b d Br + 2 b d Bc + 4 Br Bc + 4 d Br + 8 Br at Br = 1, Bc = 2^32, d = 1, b = 1
    assert io.on_chip_bytes(1, N_MAX, 1, 1) == 1 + 2 * N_MAX + 4 * N_MAX + 4 + 8
    assert io.tiled_traffic(8, 2**16, 8, 8, 8) == 8 * 8 * 2**16 * (2 + 2)  # R = 1


def test_tiled_traffic_is_bf16_unless_told() -> None:
    # D = b N d (2 + 2 R), R = ceil(64 / 16) = 4: 2 x 64 x 8 x 10 bytes
    assert io.tiled_traffic(64, 8, 16, 16) == 10240


def test_the_smallest_on_chip_memory_in_fp32_matches_a_brute_force_loop() -> None:
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


def test_tiled_counts_are_bf16_unless_told() -> None:
    # all of K and V on chip (R = 1): D = b N d (2 + 2) = 2 x 64 x 8 x 4 bytes
    assert io.tiled_counts(64, 8, 10**6)[1] == 4096
