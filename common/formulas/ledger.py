"""The two ledgers' formulas beyond matmul: operator FLOP/byte counts and the memory ledger."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import NamedTuple

from common.tables.assumptions import BATCH_SEARCH_LIMIT
from common.tables.models import ModelSpec
from common.tables.op_counts import LAYERNORM_FLOPS_PER_ELEM, SOFTMAX_FLOPS_PER_ELEM


# --- Speed ledger: operators -------------------------------------------------
def elementwise_counts(n: int, elem_bytes: float = 2, reads: int = 2) -> tuple[float, float]:
    """n elements, one op each, `reads` inputs and one output: F = n, D = b (reads + 1) n."""
    return float(n), elem_bytes * (reads + 1) * n


def layernorm_counts(n: int, d: int, elem_bytes: float = 2) -> tuple[float, float]:
    """LayerNorm without bias over [n, d]: about 6 ops per element, read x and write y once."""
    return float(LAYERNORM_FLOPS_PER_ELEM * n * d), elem_bytes * 2 * n * d


def softmax_counts(
    n: int, d: int, elem_bytes: float = 2, fused: bool = True
) -> tuple[float, float]:
    """Row softmax over [n, d]: F = 5nd; fused reads once, writes once, naive 3 reads + 2 writes."""
    return float(SOFTMAX_FLOPS_PER_ELEM * n * d), elem_bytes * (2 if fused else 5) * n * d


def attention_counts(
    N: int, d_head: int, elem_bytes: float = 2, materialized: bool = True
) -> tuple[float, float]:
    """One head: F = 4 N^2 d + 5 N^2; D = b (4N^2 + 4Nd) materialized, b 4Nd at minimum traffic."""
    b, d = elem_bytes, d_head
    flops = 4.0 * N * N * d + SOFTMAX_FLOPS_PER_ELEM * N * N
    # Q, K, V read and O written once (4Nd); materializing S and P adds write S, read S,
    # write P, read P (4N^2).
    nbytes = b * (4 * N * N + 4 * N * d) if materialized else b * 4 * N * d
    return flops, nbytes


# --- Capacity ledger ---------------------------------------------------------
def kv_cache_bytes(n_tokens: int, n_layers: int, d_kv: int, elem_bytes: float = 2) -> float:
    """KV cache = 2 (K and V) x tokens x layers x d_kv x bytes, with d_kv = KV heads x head dim."""
    return 2.0 * n_tokens * n_layers * d_kv * elem_bytes


class MemoryLedger(NamedTuple):
    """The four terms of the capacity ledger, in bytes."""

    weights: float
    kv_cache: float
    activations: float
    overhead: float

    @property
    def total(self) -> float:
        """Sum of the four terms."""
        return self.weights + self.kv_cache + self.activations + self.overhead

    def fits(self, budget_bytes: float) -> bool:
        """True when the total stays within the budget."""
        return self.total <= budget_bytes


def memory_ledger(n_params: float, weight_bytes: float, n_layers: int, d_kv: int, batch: int,
                  seq: int, act_bytes_per_token: float, overhead_rate: float, kv_bytes: float = 2,
                  active_tokens: int | None = None) -> MemoryLedger:  # fmt: skip
    """Weights N b_w + KV 2 B S L d_kv b + activations T a + overhead rho x (sum of the three),
    in bytes; T, the tokens alive at once, is B S in prefill and B in decode."""
    w = n_params * weight_bytes
    kv = kv_cache_bytes(batch * seq, n_layers, d_kv, kv_bytes)
    act = (batch * seq if active_tokens is None else active_tokens) * act_bytes_per_token
    return MemoryLedger(w, kv, act, overhead_rate * (w + kv + act))


def largest_batch_that_fits(
    budget_bytes: float, ledger_at: object, limit: int = BATCH_SEARCH_LIMIT
) -> int:
    """Largest batch B >= 0 with ledger_at(B).total <= budget (totals grow with B); 0 if none,
    `limit` meaning "at least `limit`"."""
    return bisect_left(range(1, limit + 1), True, key=lambda b: ledger_at(b).total > budget_bytes)


def kv_bytes_per_token(n_layers: int, d_kv: int, elem_bytes: float = 2) -> float:
    """KV cache one token costs: 2 (K and V) x layers x d_kv x bytes."""
    return kv_cache_bytes(1, n_layers, d_kv, elem_bytes)


# --- A model in the capacity ledger (its record, ModelSpec, is in common.tables.models)
def model_ledger(
    spec: ModelSpec, batch: int, overhead_rate: float, phase: str = "prefill"
) -> MemoryLedger:
    """memory_ledger for `spec`; prefill keeps B S tokens' activations alive, decode only B."""
    sizes = {k: v for k, v in spec._asdict().items() if k != "name"}  # memory_ledger's names
    active = None if phase == "prefill" else batch
    return memory_ledger(batch=batch, overhead_rate=overhead_rate, active_tokens=active, **sizes)


# --- Sweeps: what a roofline cannot explain ----------------------------------
ANOMALY_TOLERANCE = 0.10  # timing noise allowed before a measured point counts as an anomaly


class Anomaly(NamedTuple):
    """A measured batch the roofline cannot explain: `kind` relative to batch `other`."""

    batch: int
    kind: str  # "throughput_drop" (fewer tokens/s than `other` < batch) or
    #            "slower_than_larger" (more latency than `other` > batch)
    other: int


def sweep_anomalies(
    batches: Sequence[int], latencies: Sequence[float], tolerance: float = ANOMALY_TOLERANCE
) -> list[Anomaly]:
    """Neighbours that break T(B) <= T(B') <= (B'/B) T(B) for B < B', beyond `tolerance`."""
    bs, ts = list(batches), list(latencies)
    found: list[Anomaly] = []
    for i in range(len(bs)):
        if i > 0 and ts[i] > ts[i - 1] * (bs[i] / bs[i - 1]) * (1 + tolerance):
            found.append(Anomaly(bs[i], "throughput_drop", bs[i - 1]))
        if i + 1 < len(bs) and ts[i] > ts[i + 1] * (1 + tolerance):
            found.append(Anomaly(bs[i], "slower_than_larger", bs[i + 1]))
    return found
