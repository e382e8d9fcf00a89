"""Naive and tiled attention in numpy (fp32), and the bytes each one moves.

One head, no mask nor scaling, as in the article: O = softmax(Q K^T) V, Q, K, V [N, d_h].
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from common.formulas import attention_io, numpy_ops
from common.measure.timing import Clock, time_per_call, time_samples

FP32 = numpy_ops.FP32  # both kernels run in float32
STATS_BUFFERS = 5  # tiled: m, l, m_new, alpha and the block's row sums, one value per row
#: numpy calls in one inner step of the tiled kernel (two matmuls, twelve elementwise calls).
CALLS_PER_BLOCK = 14
#: The fixed cost of a block is timed on 1 x 1 blocks of this many rows (d_h = 1).
FIXED_COST_ROWS = 24


def random_qkv(n: int, d_head: int, seed: int = 0, scale: float = 1.0) -> tuple[Any, Any, Any]:
    """Q, K, V of shape [N, d_h]: float32 standard normal, Q multiplied by `scale`."""
    import numpy as np

    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((n, d_head), dtype=np.float32) for _ in range(3))
    q *= np.float32(scale)
    return q, k, v


def naive_phases(q: Any, k: Any, v: Any) -> tuple[Callable[[], Any], ...]:
    """(naive, matmuls only, softmax only) on the same buffers: the naive call makes ten passes
    over the N x N score matrix S, as ``numpy_ops.attention_naive_counts`` counts them."""
    import numpy as np

    n, d = q.shape
    s = np.zeros((n, n), dtype=np.float32)  # written once here, so timing sees no page faults
    o = np.zeros((n, d), dtype=np.float32)
    rowmax, rowsum = np.empty((2, n, 1), dtype=np.float32)
    kt = k.T  # a view: BLAS reads K transposed

    def softmax_only() -> Any:  # the five softmax lines, alone or inside the naive call
        np.max(s, axis=-1, keepdims=True, out=rowmax)  # read S           2 passes
        np.subtract(s, rowmax, out=s)  # read S, write S                  4 passes
        np.exp(s, out=s)  # read S, write S                               6 passes
        np.sum(s, axis=-1, keepdims=True, out=rowsum)  # read S           7 passes
        return np.divide(s, rowsum, out=s)  # read S, write S             9 passes

    def attention_naive() -> Any:
        np.matmul(q, kt, out=s)  # write S                                1 pass of N^2
        softmax_only()
        return np.matmul(s, v, out=o)  # read S; Q, K, V read, O written  10 passes

    def matmuls_only() -> Any:  # the same two matmuls without the softmax between them
        np.matmul(q, kt, out=s)
        return np.matmul(s, v, out=o)

    return attention_naive, matmuls_only, softmax_only


def make_naive(q: Any, k: Any, v: Any) -> Callable[[], Any]:
    """A call computing O with S materialised: ten passes over S (see `naive_phases`)."""
    return naive_phases(q, k, v)[0]


def make_tiled(q: Any, k: Any, v: Any, br: int, bc: int) -> Callable[[], Any]:
    """A call computing O block by block with the online softmax (Br query rows, Bc key rows)."""
    import numpy as np

    n, d = q.shape
    f32 = np.float32
    o = np.zeros((n, d), dtype=f32)
    s_full = np.zeros((br, bc), dtype=f32)  # S, then P, of one block
    s_tail = np.zeros((br, n % bc), dtype=f32) if n % bc else s_full  # the last, shorter block
    acc_buf, pv_buf = np.zeros((br, d), dtype=f32), np.zeros((br, d), dtype=f32)
    m_buf, l_buf, new_buf, alpha_buf, sum_buf = np.zeros((STATS_BUFFERS, br, 1), dtype=f32)

    def attention_tiled() -> Any:
        for i0 in range(0, n, br):  # outer loop: one block Q_i of query rows
            rows = min(br, n - i0)
            qi, acc = q[i0 : i0 + rows], acc_buf[:rows]
            m, total, m_new = m_buf[:rows], l_buf[:rows], new_buf[:rows]
            alpha, rowsum, pv = alpha_buf[:rows], sum_buf[:rows], pv_buf[:rows]
            acc.fill(0.0)
            m.fill(-np.inf)
            total.fill(0.0)
            for j0 in range(0, n, bc):  # inner loop: one block K_j, V_j
                kj, vj = k[j0 : j0 + bc], v[j0 : j0 + bc]
                s = (s_full if kj.shape[0] == bc else s_tail)[:rows]
                np.matmul(qi, kj.T, out=s)  # S = Q_i K_j^T
                np.max(s, axis=1, keepdims=True, out=m_new)
                np.maximum(m_new, m, out=m_new)  # running row maximum
                np.subtract(m, m_new, out=alpha)
                np.exp(alpha, out=alpha)  # rescales what was summed so far
                np.subtract(s, m_new, out=s)
                np.exp(s, out=s)  # P = exp(S - m_new)
                np.multiply(total, alpha, out=total)
                np.sum(s, axis=1, keepdims=True, out=rowsum)
                np.add(total, rowsum, out=total)  # running row sum l
                np.multiply(acc, alpha, out=acc)
                np.matmul(s, vj, out=pv)
                np.add(acc, pv, out=acc)  # O_i = alpha O_i + P V_j
                np.copyto(m, m_new)
            np.divide(acc, total, out=o[i0 : i0 + rows])  # write O_i
        return o

    return attention_tiled


def relative_error(result: Any, reference: Any) -> float:
    """The largest absolute difference over the largest absolute reference value (0 if both 0)."""
    import numpy as np

    scale = float(np.max(np.abs(reference)))
    diff = float(np.max(np.abs(np.asarray(result) - reference)))
    return diff / scale if scale else diff


# --- What each kernel moves and holds ----------------------------------------
def tiled_counts(n: int, d_head: int, br: int, bc: int) -> tuple[float, float]:
    """(F, D) of the tiled kernel: the same F, D = 4 N d_h (2 + 2 R) bytes beyond its cache."""
    flops = numpy_ops.attention_naive_counts(n, d_head)[0]
    return flops, attention_io.tiled_traffic(n, d_head, br, bc, FP32)


def block_count(n: int, br: int, bc: int) -> int:
    """Inner steps of the tiled kernel: T_r T_c = ceil(N / Br) ceil(N / Bc)."""
    return math.ceil(n / br) * math.ceil(n / bc)


def tiled_cache_bytes(d_head: int, br: int, bc: int) -> float:
    """Bytes one inner step touches: U(Br, Bc) in fp32, the P V buffer and three row statistics."""
    extra = FP32 * d_head * br + FP32 * (STATS_BUFFERS - 2) * br
    return attention_io.on_chip_bytes(br, bc, d_head, FP32) + extra


def naive_memory_bytes(n: int, d_head: int) -> float:
    """Bytes the naive kernel allocates beside Q, K and V: S, O and two row statistics."""
    return float(FP32 * (n * n + n * d_head + 2 * n))


def tiled_memory_bytes(n: int, d_head: int, br: int, bc: int) -> float:
    """Bytes the tiled kernel allocates beside Q, K and V: O and its block buffers."""
    blocks = br * bc + br * (n % bc) + 2 * br * d_head + STATS_BUFFERS * br
    return float(FP32 * (n * d_head + blocks))


def fixed_cost_per_block(
    budget_s: float = 0.1, rows: int = FIXED_COST_ROWS, clock: Clock = time.perf_counter
) -> float:
    """Seconds one inner step costs when its blocks are 1 x 1 (d_h = 1): numpy's fixed costs."""
    kernel = make_tiled(*random_qkv(rows, 1, seed=1), 1, 1)
    return time_per_call(kernel, budget_s, clock=clock).seconds / (rows * rows)


def best_times(kernels: Mapping[str, Callable[[], object]], budget_s: float, rounds: int = 2,
               warmup: int = 1, clock: Clock = time.perf_counter) -> dict[str, float]:  # fmt: skip
    """Fastest seconds per call of each kernel, timed in alternating rounds."""
    best = {name: math.inf for name in kernels}
    share = max(0.0, budget_s) / max(1, rounds * len(kernels))
    for r in range(max(1, rounds)):
        for name, kernel in kernels.items():
            samples = time_samples(
                kernel, repeat=1, warmup=warmup if r == 0 else 0, budget_s=share, clock=clock
            )
            best[name] = min(best[name], *samples)
    return best


def exp_seconds_per_element(
    rows: int, cols: int, budget_s: float = 0.05, clock: Clock = time.perf_counter
) -> float:
    """Seconds per element of np.exp on a rows x cols fp32 block (inputs in [-20, 0], as P's)."""
    import numpy as np

    x = np.linspace(-20.0, 0.0, rows * cols, dtype=np.float32).reshape(rows, cols)
    y = np.empty_like(x)
    return time_per_call(lambda: np.exp(x, out=y), budget_s, clock=clock).seconds / (rows * cols)
