"""The roofline formulas: time bounds, intensity, ridge point, matmul counts and charts.

Standard library only (matplotlib is imported inside ``save_roofline_png`` alone).
Conventions: one multiply-add is 2 FLOP; bytes are every read plus every write
at the element size; time bounds assume compute and memory traffic overlap
perfectly, so the lower bound is the larger of the two times.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from common.validate import non_negative, positive, positive_int


# ---------------------------------------------------------------------------
# Time bounds, intensity, ridge point
# ---------------------------------------------------------------------------
def time_bounds(flops: float, nbytes: float, peak: float, bw: float) -> dict[str, float | str]:
    """T >= max(F / P_peak, D / beta): returns compute, memory, lower (s) and bound."""
    f = non_negative(flops, "FLOP count")
    d = non_negative(nbytes, "byte count")
    p = positive(peak, "peak FLOP/s")
    b = positive(bw, "bandwidth")
    t_compute, t_memory = f / p, d / b
    return {
        "compute": t_compute,
        "memory": t_memory,
        "lower": max(t_compute, t_memory),
        "bound": "compute" if t_compute >= t_memory else "memory",
    }


def lower_bound_time(flops: float, nbytes: float, peak: float, bw: float) -> float:
    """T = max(F / P_peak, D / beta), in seconds."""
    return float(time_bounds(flops, nbytes, peak, bw)["lower"])


def intensity(flops: float, nbytes: float) -> float:
    """Arithmetic intensity I = F / D, in FLOP/byte."""
    return non_negative(flops, "FLOP count") / positive(nbytes, "byte count")


def ridge_point(peak: float, bw: float) -> float:
    """Critical intensity I* = P_peak / beta, in FLOP/byte."""
    return positive(peak, "peak FLOP/s") / positive(bw, "bandwidth")


def attainable_flops(intensity: float, peak: float, bw: float) -> float:
    """Roofline: attainable FLOP/s = min(P_peak, I * beta)."""
    i = non_negative(intensity, "intensity")
    return min(positive(peak, "peak FLOP/s"), i * positive(bw, "bandwidth"))


def bound_of(intensity: float, ridge: float) -> str:
    """'compute' when I >= I*, else 'memory'."""
    i = non_negative(intensity, "intensity")
    return "compute" if i >= positive(ridge, "ridge point") else "memory"


def speedup_2x(flops: float, nbytes: float, peak: float, bw: float) -> tuple[float, float]:
    """What doubling compute or bandwidth buys: (T(P, b) / T(2P, b), T(P, b) / T(P, 2b))."""
    t0 = lower_bound_time(flops, nbytes, peak, bw)
    if t0 == 0:
        return 1.0, 1.0
    return (
        t0 / lower_bound_time(flops, nbytes, 2 * peak, bw),
        t0 / lower_bound_time(flops, nbytes, peak, 2 * bw),
    )


def speedup_2x_at_ratio(ratio: float) -> tuple[float, float]:
    """Speedups from 2x compute and 2x bandwidth for an operation at I / I* = ratio."""
    r = positive(ratio, "I / I*")
    # Put D = 1 byte and beta = 1 byte/s, so P = I* = 1 FLOP/byte and F = ratio.
    return speedup_2x(r, 1.0, 1.0, 1.0)


# ---------------------------------------------------------------------------
# Matmul ledgers
# ---------------------------------------------------------------------------
def matmul_counts(
    B: int, D: int, F: int, x_bytes: float = 2, w_bytes: float = 2, out_bytes: float = 2
) -> tuple[float, float]:
    """X[B,D] @ W[D,F]: F = 2BDF FLOP, bytes = B*D*x + D*F*w + B*F*out."""
    B, D, F = positive_int(B, "B"), positive_int(D, "D"), positive_int(F, "F")
    xb = positive(x_bytes, "bytes per X element")
    wb = positive(w_bytes, "bytes per W element")
    ob = positive(out_bytes, "bytes per output element")
    return 2.0 * B * D * F, B * D * xb + D * F * wb + B * F * ob


def gemm_counts(M: int, K: int, N: int, elem_bytes: float = 2) -> tuple[float, float]:
    """A[M,K] @ B[K,N]: F = 2MNK, D = b (MK + KN + MN)."""
    return matmul_counts(M, K, N, elem_bytes, elem_bytes, elem_bytes)


def critical_batch(
    D: int,
    F: int,
    ridge: float,
    x_bytes: float = 2,
    w_bytes: float = 2,
    out_bytes: float = 2,
) -> int | None:
    """Smallest integer B with 2BDF / (B D x + D F w + B F out) >= I*; None if no B reaches it."""
    D, F = positive_int(D, "D"), positive_int(F, "F")
    r = positive(ridge, "ridge point")
    xb = positive(x_bytes, "bytes per X element")
    wb = positive(w_bytes, "bytes per W element")
    ob = positive(out_bytes, "bytes per output element")
    # I(B) >= r  <=>  B (2DF - r (D x + F out)) >= r D F w; I(B) rises to 2DF / (Dx + F out).
    slope = 2.0 * D * F - r * (D * xb + F * ob)
    if slope <= 0:
        return None

    def reaches(b: int) -> bool:
        f, nbytes = matmul_counts(b, D, F, xb, wb, ob)
        return f / nbytes >= r

    b = max(1, math.ceil(r * D * F * wb / slope))
    while b > 1 and reaches(b - 1):  # guard against rounding in the closed form
        b -= 1
    while not reaches(b):
        b += 1
    return b


def batched_matvec_counts(B: int, D: int, F: int, elem_bytes: float = 2) -> tuple[float, float]:
    """x[b] @ W[b] for b < B, one matrix per example: F = 2BDF, bytes = b (BD + BDF + BF)."""
    B, D, F = positive_int(B, "B"), positive_int(D, "D"), positive_int(F, "F")
    e = positive(elem_bytes, "bytes per element")
    return 2.0 * B * D * F, e * (B * D + B * D * F + B * F)


def decode_attention_counts(
    n_q_heads: int, n_kv_heads: int, d_head: int, context: int, kv_bytes: float = 2
) -> tuple[float, float]:
    """Decode attention, one layer and sequence: F = 4 Hq d ctx, bytes = 2 ctx Hkv d b (K and V)."""
    hq, hkv = positive_int(n_q_heads, "query heads"), positive_int(n_kv_heads, "KV heads")
    if hq % hkv:
        raise ValueError(f"query heads ({hq}) must be a multiple of KV heads ({hkv})")
    d, ctx = positive_int(d_head, "head dim"), positive_int(context, "context")
    return 4.0 * hq * d * ctx, 2.0 * ctx * hkv * d * positive(kv_bytes, "bytes per KV element")


def tiled_matmul_bytes(
    m: int, k: int, n: int, bm: int, bk: int, bn: int, elem_bytes: float = 2
) -> tuple[float, float]:
    """(m x k)(k x n) in bm x bk x bn tiles: bytes = b (mk ceil(n/bn) + kn ceil(m/bm) + mn)."""
    m, k, n = positive_int(m, "m"), positive_int(k, "k"), positive_int(n, "n")
    bm, bn = positive_int(bm, "bm"), positive_int(bn, "bn")
    # bk sets on-chip staging only; main-memory traffic does not depend on it.
    positive_int(bk, "bk")
    e = positive(elem_bytes, "bytes per element")
    # Each output tile streams its bm x k row panel of A and k x bn column panel of B once.
    a_reads = m * k * math.ceil(n / bn)
    b_reads = k * n * math.ceil(m / bm)
    return 2.0 * m * k * n, e * (a_reads + b_reads + m * n)


def sharded_matmul_two_chips(
    B: int, D: int, F: int, peak: float, link_bw: float, elem_bytes: float = 2
) -> dict[str, float | str]:
    """X[B,D] W[D,F] split along D on 2 chips: T_math = BDF / P, T_comms = BFb / link, I = D / b."""
    B, D, F = positive_int(B, "B"), positive_int(D, "D"), positive_int(F, "F")
    p = positive(peak, "peak FLOP/s")
    link = positive(link_bw, "link bandwidth")
    e = positive(elem_bytes, "bytes per element")
    flops_per_chip = 2.0 * B * (D / 2) * F
    comm_bytes = B * F * e  # each chip sends its [B, F] partial sums to the other
    t_math, t_comms = flops_per_chip / p, comm_bytes / link
    return {
        "flops": flops_per_chip,
        "comm_bytes": comm_bytes,
        "t_math": t_math,
        "t_comms": t_comms,
        "intensity": flops_per_chip / comm_bytes,
        "bound": "compute" if t_math >= t_comms else "comms",
    }


def network_critical_dim(peak: float, link_bw: float, elem_bytes: float = 2) -> float:
    """Sharded matmul is compute-bound iff I = D / b > P / link, i.e. D > b P / link."""
    e = positive(elem_bytes, "bytes per element")
    return e * positive(peak, "peak FLOP/s") / positive(link_bw, "link bandwidth")


# ---------------------------------------------------------------------------
# Charts
# ---------------------------------------------------------------------------
def ascii_roofline(
    points: Sequence[tuple[str, float, float | None]],
    peak: float,
    bw: float,
    xmin: float = 0.1,
    xmax: float = 1e4,
    width: int = 64,
    height: int = 16,
) -> list[str]:
    """Log-log text roofline: '/' memory roof, '_' compute roof, '+' ridge, labelled points."""
    p, b = positive(peak, "peak FLOP/s"), positive(bw, "bandwidth")
    lo, hi = positive(xmin, "xmin"), positive(xmax, "xmax")
    if hi <= lo:
        raise ValueError(f"xmax ({xmax}) must be larger than xmin ({xmin})")
    width, height = max(positive_int(width, "width"), 16), max(positive_int(height, "height"), 6)
    ymax = math.log10(p) + 0.25
    ymin = math.log10(attainable_flops(lo, p, b)) - 0.25
    lx0, lx1 = math.log10(lo), math.log10(hi)

    def col(i: float) -> int:
        return round((math.log10(i) - lx0) / (lx1 - lx0) * (width - 1))

    def row(perf: float) -> int:
        return round((ymax - math.log10(perf)) / (ymax - ymin) * (height - 1))

    grid = [[" "] * width for _ in range(height)]
    for c in range(width):
        i = 10 ** (lx0 + c / (width - 1) * (lx1 - lx0))
        r = row(attainable_flops(i, p, b))
        if 0 <= r < height:
            grid[r][c] = "_" if i * b >= p else "/"
    ridge = p / b
    if lo <= ridge <= hi:
        grid[row(p)][col(ridge)] = "+"
    for label, i, perf in points:
        if not lo <= i <= hi:
            continue
        y = attainable_flops(i, p, b) if perf is None else perf
        r, c = row(y), col(i)
        if 0 <= r < height:
            grid[r][c] = label[:1]

    def ylabel(r: int) -> str:
        return f"{10 ** (ymax - r / (height - 1) * (ymax - ymin)):9.1e}"  # FLOP/s at row r

    lines = [
        f"{ylabel(r) if r % 3 == 0 else ' ' * 9} |{''.join(cells)}" for r, cells in enumerate(grid)
    ]
    lines.append(" " * 10 + "+" + "-" * width)
    ticks = [" "] * width
    for decade in range(math.ceil(lx0), math.floor(lx1) + 1):
        text = f"{10.0**decade:g}" if -1 <= decade <= 2 else f"1e{decade}"
        c = min(col(10.0**decade), width - len(text))  # keep the last label inside the axis
        ticks[c : c + len(text)] = text
    lines.append(" " * 11 + "".join(ticks).rstrip())
    lines.append(" " * 11 + "arithmetic intensity (FLOP/byte, log scale); y: FLOP/s (log scale)")
    return lines


class PngResult(NamedTuple):
    """Outcome of a PNG request: the path written, or why nothing was written."""

    path: str | None
    reason: str

    def __bool__(self) -> bool:
        return self.path is not None


def save_roofline_png(
    path: str,
    curves: Sequence[tuple[str, float, float]],
    points: Sequence[tuple[str, float, float]],
    title: str = "Roofline",
) -> PngResult:
    """Draw rooflines (label, peak, bw) and named points (label, I, FLOP/s) to a PNG at `path`."""
    for label, peak, bw in curves:
        positive(peak, f"{label} peak FLOP/s")
        positive(bw, f"{label} bandwidth")
    try:
        from common import plotting
    except ImportError as exc:  # matplotlib missing
        return PngResult(None, f"matplotlib is not available ({exc}); PNG skipped")
    if not plotting.matplotlib_available():
        return PngResult(None, "matplotlib is not installed; PNG skipped (pip install matplotlib)")
    written = plotting.roofline_figure(path, curves, points, title=title)
    return PngResult(written, "saved")
