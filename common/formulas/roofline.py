"""The roofline formulas: time bounds, intensity, ridge point, matmul counts and charts.

One multiply-add is 2 FLOP; bytes are every read plus every write at the element size;
compute and traffic overlap perfectly, so the lower bound is the larger of the two times.
"""

from __future__ import annotations

import math
from typing import Literal

from common.formulas.thresholds import linear_threshold, smallest_integer_reaching


# --- Time bounds, intensity, ridge point -------------------------------------
def time_bounds(flops: float, nbytes: float, peak: float, bw: float) -> dict[str, float | str]:
    """T >= max(F / P_peak, D / beta): returns compute, memory, lower (s) and bound."""
    t_compute, t_memory = flops / peak, nbytes / bw
    return {"compute": t_compute, "memory": t_memory, "lower": max(t_compute, t_memory),
            "bound": "compute" if t_compute >= t_memory else "memory"}  # fmt: skip


def lower_bound_time(flops: float, nbytes: float, peak: float, bw: float) -> float:
    """T = max(F / P_peak, D / beta), in seconds."""
    return float(time_bounds(flops, nbytes, peak, bw)["lower"])


def intensity(flops: float, nbytes: float) -> float:
    """Arithmetic intensity I = F / D, in FLOP/byte."""
    return flops / nbytes


def ridge_point(peak: float, bw: float) -> float:
    """Critical intensity I* = P_peak / beta, in FLOP/byte."""
    return peak / bw


def attainable_flops(intensity: float, peak: float, bw: float) -> float:
    """Roofline: attainable FLOP/s = min(P_peak, I * beta)."""
    return min(peak, intensity * bw)


def bound_of(intensity: float, ridge: float) -> Literal["compute", "memory"]:
    """'compute' when I >= I*, else 'memory'."""
    return "compute" if intensity >= ridge else "memory"


def speedup_2x(flops: float, nbytes: float, peak: float, bw: float) -> tuple[float, float]:
    """What doubling compute or bandwidth buys: (T(P, b) / T(2P, b), T(P, b) / T(P, 2b))."""
    t0 = lower_bound_time(flops, nbytes, peak, bw)
    return (
        t0 / lower_bound_time(flops, nbytes, 2 * peak, bw),
        t0 / lower_bound_time(flops, nbytes, peak, 2 * bw))  # fmt: skip


def speedup_2x_at_ratio(ratio: float) -> tuple[float, float]:
    """Speedups from 2x compute and 2x bandwidth for an operation at I / I* = ratio."""
    # Put D = 1 byte and beta = 1 byte/s, so P = I* = 1 FLOP/byte and F = ratio.
    return speedup_2x(ratio, 1.0, 1.0, 1.0)


# --- Matmul ledgers ----------------------------------------------------------
def matmul_counts(
    B: int, K: int, N: int, x_bytes: float = 2, w_bytes: float = 2, out_bytes: float = 2
) -> tuple[float, float]:
    """X[B,K] @ W[K,N]: F = 2BKN FLOP, D = B K x + K N w + B N out bytes."""
    return 2.0 * B * K * N, B * K * x_bytes + K * N * w_bytes + B * N * out_bytes


def gemm_counts(M: int, K: int, N: int, elem_bytes: float = 2) -> tuple[float, float]:
    """[M,K] @ [K,N]: F = 2MKN FLOP, D = e (MK + KN + MN) bytes for e bytes per element."""
    return matmul_counts(M, K, N, elem_bytes, elem_bytes, elem_bytes)


def critical_batch(
    K: int, N: int, ridge: float, x_bytes: float = 2, w_bytes: float = 2, out_bytes: float = 2
) -> int | None:
    """Smallest integer B with 2BKN / (B K x + K N w + B N out) >= I*; None if no B reaches it."""
    # I(B) = 2KN B / ((K x + N out) B + K N w) rises towards 2KN / (K x + N out).
    solved = linear_threshold(2.0 * K * N, K * x_bytes + N * out_bytes, K * N * w_bytes, ridge)
    return None if solved is None else smallest_integer_reaching(solved[1], solved[0])


def batched_matvec_counts(B: int, K: int, N: int, elem_bytes: float = 2) -> tuple[float, float]:
    """x[b] @ W[b][K,N] for b < B, one matrix per example: F = 2BKN, D = e (BK + BKN + BN)."""
    return 2.0 * B * K * N, elem_bytes * (B * K + B * K * N + B * N)


def decode_attention_counts(
    n_q_heads: int, n_kv_heads: int, d_head: int, context: int, kv_bytes: float = 2
) -> tuple[float, float]:
    """Decode attention, one layer and sequence: F = 4 Hq d ctx, bytes = 2 ctx Hkv d b (K and V)."""
    return 4.0 * n_q_heads * d_head * context, 2.0 * context * n_kv_heads * d_head * kv_bytes


def tiled_matmul_bytes(
    m: int, k: int, n: int, bm: int, bk: int, bn: int, elem_bytes: float = 2
) -> tuple[float, float]:
    """(m x k)(k x n) in bm x bk x bn tiles: bytes = b (mk ceil(n/bn) + kn ceil(m/bm) + mn)."""
    # bk sets on-chip staging only; main-memory traffic does not depend on it.
    # Each output tile streams its bm x k row panel of A and k x bn column panel of B once.
    a_reads = m * k * math.ceil(n / bn)
    b_reads = k * n * math.ceil(m / bm)
    return 2.0 * m * k * n, elem_bytes * (a_reads + b_reads + m * n)


def sharded_matmul_two_chips(
    B: int, K: int, N: int, peak: float, link_bw: float, elem_bytes: float = 2
) -> dict[str, float | str]:
    """X[B,K] W[K,N] split along K on 2 chips: T_math = BKN / P, T_comms = BNe / link, I = K / e."""
    flops_per_chip = 2.0 * B * (K / 2) * N
    comm_bytes = B * N * elem_bytes  # each chip sends its [B, N] partial sums to the other
    t_math, t_comms = flops_per_chip / peak, comm_bytes / link_bw
    return {"flops": flops_per_chip, "comm_bytes": comm_bytes, "t_math": t_math, "t_comms": t_comms,
            "intensity": flops_per_chip / comm_bytes,
            "bound": "compute" if t_math >= t_comms else "comms"}  # fmt: skip


def network_critical_dim(peak: float, link_bw: float, elem_bytes: float = 2) -> float:
    """Split along K over two chips, compute-bound iff I = K / e > P / link: K > e P / link."""
    return elem_bytes * peak / link_bw
