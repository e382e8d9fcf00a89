"""Lecture 01's operation ledger: sizes, FLOP and byte counts, and roofline rows.

Bytes count every pass the numpy code makes over main memory (4n bytes per pass over n
fp32 elements; a read and a write are two passes), as lecture 01's comments count them.
"""

from __future__ import annotations

import math
from typing import Any

from common.formulas import roofline
from common.hw_specs import bytes_per_elem
from common.tables.op_counts import LAYERNORM_FLOPS_PER_ELEM, SOFTMAX_FLOPS_PER_ELEM

FP32 = int(bytes_per_elem("fp32"))  # every array lecture 01 times is float32
ABOVE_ROOF = 1.10  # a measured point more than 10% above its roof is flagged, not printed as %
CACHE_MARGIN = 2  # swept arrays are >= 2x the LLC
HIDDEN = 4096  # LayerNorm row width and the GEMMs' K = N: the article's model width
HEAD_DIM = 128  # attention head dimension D_h (the article's)
SEQ_STEP = 512  # attention sequence lengths are multiples of this
ROW_STEP = 64  # LayerNorm row counts are multiples of this
GEMM_SKINNY_M = 8  # a decode-like GEMM: few rows, weight-streaming, memory-bound
GEMM_WIDE_M = 512  # the article's GEMM 512 x 4096 x 4096
SAME_FLOPS_STEP = 16  # the same-FLOPs matmul size is a multiple of this

# Time budgets (seconds of timed calls per operation): at least MIN_REPEAT calls.
OP_BUDGET_S = {"full": 0.2, "quick": 0.05}
MIN_REPEAT = 2

# Passes over main memory, as counted next to each numpy line in lecture 01.
ADD_PASSES = 3  # read a, read b, write out
ADD_RELU_TWO_PASS_PASSES = 5  # + read tmp, write out; the add wrote tmp
ADD_RELU_ONE_EXPR_PASSES = 6  # the two-pass traffic + the OS zero-filling the fresh temporary
LAYERNORM_PASSES = 10  # mean, subtract, square, mean, divide, scale (the article's count)
ATTENTION_S_PASSES = 10  # write S, max, subtract, exp, sum, divide, read S for P @ V


# --- Sizes from the machine --------------------------------------------------
def elementwise_n(working_set_bytes: int) -> int:
    """Elements per vector so that a, b, out (3 fp32 vectors) fill the working set."""
    return max(1024, working_set_bytes // (3 * FP32))


def layernorm_shape(working_set_bytes: int, d: int = HIDDEN) -> tuple[int, int]:
    """[rows, d] so that x, xc and its square (3 fp32 arrays) fill the working set."""
    return max(ROW_STEP, working_set_bytes // (3 * FP32 * d) // ROW_STEP * ROW_STEP), d


def attention_seq_len(llc_bytes: int, cap_bytes: int | None = None) -> int:
    """Smallest multiple of SEQ_STEP with the N x N score matrix S >= 2x LLC (within the cap)."""
    n = SEQ_STEP * max(1, math.ceil(math.sqrt(CACHE_MARGIN * llc_bytes / FP32) / SEQ_STEP))
    while cap_bytes is not None and FP32 * n * n > cap_bytes and n > SEQ_STEP:
        n -= SEQ_STEP
    return n


def same_flops_matmul_size(flops: float) -> int:
    """Square matmul size m (a multiple of SAME_FLOPS_STEP) whose 2 m^3 is closest to `flops`."""
    return max(SAME_FLOPS_STEP, round((flops / 2) ** (1 / 3) / SAME_FLOPS_STEP) * SAME_FLOPS_STEP)


# --- FLOP and byte ledgers (fp32) --------------------------------------------
def add_counts(n: int) -> tuple[float, float]:
    """out = a + b: F = n, D = 3 passes x 4n bytes."""
    return float(n), float(ADD_PASSES * FP32 * n)


def add_relu_two_pass_counts(n: int) -> tuple[float, float]:
    """tmp = a + b; out = max(tmp, 0): F = 2n, D = 5 passes x 4n bytes."""
    return 2.0 * n, float(ADD_RELU_TWO_PASS_PASSES * FP32 * n)


def add_relu_one_expr_counts(n: int) -> tuple[float, float]:
    """out = max(a + b, 0) with a fresh temporary: F = 2n, D = 6 passes x 4n (zero fill + 5)."""
    return 2.0 * n, float(ADD_RELU_ONE_EXPR_PASSES * FP32 * n)


def layernorm_numpy_counts(rows: int, d: int) -> tuple[float, float]:
    """LayerNorm (no bias) of [rows, d]: F = 6 rows d, D = 10 passes x 4 rows d bytes."""
    e = rows * d
    return float(LAYERNORM_FLOPS_PER_ELEM * e), float(LAYERNORM_PASSES * FP32 * e)


def attention_naive_counts(n: int, dh: int) -> tuple[float, float]:
    """Naive one-head attention: F = 4 N^2 Dh + 5 N^2, D = 4 (10 N^2 + 4 N Dh) bytes."""
    flops = 4.0 * n * n * dh + SOFTMAX_FLOPS_PER_ELEM * n * n
    return flops, float(FP32 * (ATTENTION_S_PASSES * n * n + 4 * n * dh))


def attention_matmul_counts(n: int, dh: int) -> tuple[float, float]:
    """The two matmuls of naive attention alone: F = 4 N^2 Dh, D = 4 (2 N^2 + 4 N Dh)."""
    return 4.0 * n * n * dh, float(FP32 * (2 * n * n + 4 * n * dh))


def attention_softmax_counts(n: int) -> tuple[float, float]:
    """The in-place softmax passes over S alone: F = 5 N^2, D = 4 x 8 N^2 bytes."""
    return float(SOFTMAX_FLOPS_PER_ELEM * n * n), float(FP32 * (ATTENTION_S_PASSES - 2) * n * n)


def gemm_fp32_counts(m: int, k: int, n: int) -> tuple[float, float]:
    """fp32 A[M,K] @ B[K,N]: F = 2MNK, D = 4 (MK + KN + MN)."""
    return roofline.gemm_counts(m, k, n, FP32)


# --- Rows: the roofline's prediction next to the measurement -----------------
def roofline_row(name: str, flops: float, nbytes: float, t_meas_s: float, peak_flops_per_s: float,
                 bandwidth_bytes_per_s: float, working_set_bytes: float,
                 **extra: Any) -> dict[str, Any]:  # fmt: skip
    """One operation: I = F/D, t_pred = max(F/P, D/beta), fraction = t_pred/t_meas, flag."""
    bounds = roofline.time_bounds(flops, nbytes, peak_flops_per_s, bandwidth_bytes_per_s)
    fraction = float(bounds["lower"]) / t_meas_s
    return {"name": name, **extra, "flops": float(flops), "bytes": float(nbytes),
            "intensity": roofline.intensity(flops, nbytes), "bound": bounds["bound"],
            "t_compute_s": bounds["compute"], "t_memory_s": bounds["memory"],
            "t_pred_s": bounds["lower"], "t_meas_s": float(t_meas_s), "fraction_of_bound": fraction,
            "achieved_flops_per_s": flops / t_meas_s, "achieved_bytes_per_s": nbytes / t_meas_s,
            "working_set_bytes": float(working_set_bytes),
            "flag": "above roof" if fraction > ABOVE_ROOF else None}  # fmt: skip
