"""Tiled attention's IO model: main-memory traffic of one schedule with M_sm bytes on chip.

One head of the article's ledger (``common.formulas.ledger.attention_counts``): N tokens,
head dim d_h, no mask, F = 4 N^2 d_h + 5 N^2 FLOP; Q, K, V, O in main memory at b bytes
per element, the on-chip blocks fp32. Blocks: Bc = N when K and V fit beside one query
row (U(1, N) <= M_sm), else Bc = min(Br, d_h); Br the largest with U(Br, Bc) <= M_sm
(FlashAttention's rule, Dao et al., 2022, algorithm 1, with the loops swapped).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from typing import NamedTuple

from common.formulas.ledger import attention_counts
from common.formulas.roofline import intensity
from common.hw_specs import bytes_per_elem

ACC_BYTES = int(bytes_per_elem("fp32"))  # S, P, O_i, m_i and l_i stay fp32 on chip
STATS_PER_ROW = 2  # m_i and l_i: one running max and one running sum per query row


def on_chip_bytes(br: int, bc: int, d_head: int, elem_bytes: float = 2) -> float:
    """U = b d Br + 2 b d Bc + 4 Br Bc + 4 d Br + 8 Br bytes: one inner step's blocks on chip."""
    d, b = d_head, elem_bytes
    return b * d * (br + 2 * bc) + ACC_BYTES * (br * bc + d * br + STATS_PER_ROW * br)


def smallest_on_chip_bytes(d_head: int, elem_bytes: float = 2) -> float:
    """U(1, 1): one row of Q, K and V, one score, one accumulator row and its statistics."""
    return on_chip_bytes(1, 1, d_head, elem_bytes)


def resident_on_chip_bytes(n: int, d_head: int, elem_bytes: float = 2) -> float:
    """U(1, N): K and V whole beside one query row; from here on K and V are read once."""
    return on_chip_bytes(1, n, d_head, elem_bytes)


class Blocks(NamedTuple):
    """Block heights chosen for an on-chip memory, and their footprint U(Br, Bc) in bytes."""

    rows: int  # Br, query rows per outer block
    cols: int  # Bc, key (and value) rows per inner block
    on_chip_bytes: float


def block_sizes(n: int, d_head: int, m_sm: float, elem_bytes: float = 2) -> Blocks:
    """Br and Bc for M_sm bytes on chip by the module's rule; ValueError below U(1, 1)."""
    d, b = d_head, elem_bytes
    if m_sm < (least := on_chip_bytes(1, 1, d, b)):
        raise ValueError(
            f"on-chip memory M_sm = {m_sm:,.0f} B is smaller than one row of each block "
            f"({least:,.0f} B at d_h = {d}, {b:g} B per element)")  # fmt: skip
    resident = on_chip_bytes(1, n, d, b) <= m_sm  # rule 1: K and V stay on chip

    def cols(r: int) -> int:  # rule 2 otherwise: Bc = min(Br, d_h)
        return n if resident else min(r, d)  # r <= n: bisect's range

    br = bisect_left(range(1, n + 1), True, key=lambda r: on_chip_bytes(r, cols(r), d, b) > m_sm)
    return Blocks(br, cols(br), on_chip_bytes(br, cols(br), d, b))


def kv_reads(n: int, br: int, bc: int) -> int:
    """R, how often K and V are each read: T_r = ceil(N / Br), or 1 when Bc = N (T_c = 1)."""
    return 1 if bc == n else math.ceil(n / br)


def tiled_traffic(n: int, d_head: int, br: int, bc: int, elem_bytes: float = 2) -> float:
    """D = b N d_h (2 + 2 R) bytes: Q read and O written once, K and V read R times each."""
    return elem_bytes * n * d_head * (2 + 2 * kv_reads(n, br, bc))


def tiled_counts(n: int, d_head: int, m_sm: float, elem_bytes: float = 2) -> tuple[float, float]:
    """(F, D) of the schedule with the rule's blocks for M_sm: the article's F, the traffic D."""
    blocks = block_sizes(n, d_head, m_sm, elem_bytes)
    flops = attention_counts(n, d_head)[0]  # F does not depend on b
    return flops, tiled_traffic(n, d_head, blocks.rows, blocks.cols, elem_bytes)


def tiled_intensity(n: int, d_head: int, m_sm: float, elem_bytes: float = 2) -> float:
    """I = F / D of the schedule for M_sm, in FLOP/byte (about Br in bf16: 2 Br / b)."""
    return intensity(*tiled_counts(n, d_head, m_sm, elem_bytes))


def smallest_on_chip_for(
    n: int, d_head: int, target_intensity: float, elem_bytes: float = 2
) -> int | None:
    """Smallest whole M_sm in bytes whose schedule reaches I >= target (by bisection: I never
    falls as M_sm grows); None if R = 1 falls short."""
    d, b = d_head, elem_bytes

    def reaches(m: int) -> bool:
        return tiled_intensity(n, d, m, b) >= target_intensity

    hi = math.ceil(on_chip_bytes(1, n, d, b))  # from here on D is the ideal minimum
    lo = math.ceil(on_chip_bytes(1, 1, d, b))
    return lo + bisect_left(range(lo, hi), True, key=reaches) if reaches(hi) else None
