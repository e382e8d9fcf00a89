"""Serving formulas: expert-parallel dispatch and combine, load imbalance, speculative decoding.

Speculative decoding (Leviathan et al. 2023, arXiv 2211.17192): the target verifies a
draft's K tokens in one pass, each accepted with probability a, independently.
"""

from __future__ import annotations

from collections.abc import Sequence

from common.formulas import transformer as llm
from common.formulas.ledger import largest_batch_that_fits
from common.formulas.transformer import DTypes, layer_ops, model_memory_ledger, model_ops
from common.hw_specs import Chip
from common.tables.models import Model

MAX_GPUS = 1024  # the most GPUs gpus_to_hold tries


# --- Expert parallelism ------------------------------------------------------
def link_fractions(ep: int, node_gpus: int) -> tuple[float, float]:
    """(share in the own node but another GPU, share in other nodes) of a token's experts:
    ((min(N, G) - 1) / N, (N - min(N, G)) / N) for N EP ranks in nodes of G GPUs."""
    local = min(ep, node_gpus)
    return (local - 1) / ep, (ep - local) / ep


def dispatch_bytes_per_token(d_model: int, k: int, ep: int, elem_bytes: float) -> float:
    """Bytes one token sends per MoE layer: k (N - 1) / N x d x b, b the dispatch bytes per
    element with its scales (1 + 4 / 128 for FP8 with an fp32 scale per 128 elements)."""
    return k * ((ep - 1) / ep) * d_model * elem_bytes


def combine_bytes_per_token(d_model: int, k: int, ep: int, elem_bytes: float = 2) -> float:
    """Bytes one token gets back per MoE layer: k (N - 1) / N x d x b (bf16: b = 2)."""
    return dispatch_bytes_per_token(d_model, k, ep, elem_bytes)


def all_to_all_time(tokens: float, bytes_per_copy: float, k: int, ep: int, node_gpus: int,
                    node_bw: float, net_bw: float, latency: float) -> float:  # fmt: skip
    """One dispatch (or combine) of T tokens on one GPU, in seconds: latency + max(T k f_node
    m / beta_node, T k f_net m / beta_net), m bytes a copy, f of ``link_fractions``."""
    f_node, f_net = link_fractions(ep, node_gpus)
    copies = tokens * k * bytes_per_copy
    return latency + max(copies * f_node / node_bw, copies * f_net / net_bw)


def imbalance_factor(loads: Sequence[float]) -> float:
    """Busiest expert's (or GPU's) load over the fair share: max(x) / mean(x); 1 = balanced."""
    return max(loads) * len(loads) / sum(loads)


def imbalance_cost(expert_seconds: float, factor: float) -> float:
    """Seconds a step loses waiting for the busiest GPU: (f - 1) x the balanced expert time."""
    return (factor - 1) * expert_seconds


# --- Speculative decoding ----------------------------------------------------
def expected_tokens(acceptance: float, draft: int) -> float:
    """Expected tokens per verify step, (1 - a^(K + 1)) / (1 - a); K + 1 at a = 1
    (Leviathan et al. 2023, eq. 1)."""
    a, K = acceptance, draft
    return K + 1.0 if a >= 1 else (1 - a ** (K + 1)) / (1 - a)


def speculative_speedup(
    acceptance: float, draft: int, draft_cost: float, verify_cost: float = 1.0
) -> float:
    """Speed-up over plain decoding: E(a, K) / (K c + v), c a draft token's cost and v the
    verify pass's in target decode steps (v = 1: Leviathan et al.'s memory-bound step)."""
    return expected_tokens(acceptance, draft) / (draft * draft_cost + verify_cost)


def acceptance_for_speedup(
    speedup: float, draft: int, draft_cost: float, verify_cost: float = 1.0
) -> float | None:
    """The acceptance rate a at which ``speculative_speedup`` equals S, by bisection
    (the speed-up rises with a); None when even a = 1 falls short or a = 0 overshoots."""

    def s(a: float) -> float:
        return speculative_speedup(a, draft, draft_cost, verify_cost)

    if not s(0.0) <= speedup <= s(1.0):
        return None
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if s(mid) < speedup else (lo, mid)
    return (lo + hi) / 2


def tokens_per_s_per_gpu(tokens: float, seconds: float, gpus: int) -> float:
    """Throughput per GPU: tokens / (seconds x GPUs), in tokens/s."""
    return tokens / (seconds * gpus)


# --- Serving a fleet (lecture 14): continuous batching, disaggregation, cost -
def mixed_step_ledger(model: Model, chunk: int, chunk_context: int, decode_batch: int,
                      decode_context: int,
                      dtypes: DTypes | None = None) -> llm.PassLedger:  # fmt: skip
    """One continuous-batching step: a prefill chunk of c tokens (cache at S_c) beside m
    decode tokens (caches at S_d), weights read once, c + m at most the window."""
    dt = dtypes or DTypes()
    n, m = chunk + decode_batch, decode_batch
    parts = [(1, chunk, chunk_context)] * bool(chunk) + [(m, 1, decode_context)] * bool(m)
    groups = []
    for window, dense, count in llm.layer_groups(model):
        own = [layer_ops(model, b, t, s, dt, False, window, dense) for b, t, s in parts]
        ops = tuple(_summed(op, own) for op in layer_ops(model, 1, n, n, dt, False, window, dense))
        groups.append((ops, count))
    embed = model_ops(model, 1, n, dt)[0]
    head = model_ops(model, m + bool(chunk), 1, dt)[1:]
    layer, variants = groups[0][0], tuple(groups[1:])
    return llm.PassLedger("mixed", model, 1, n, max(chunk_context, decode_context), dt, False,
                      layer, (embed, *head), variants)  # fmt: skip


def _summed(op: llm.Op, parts: Sequence[Sequence[llm.Op]]) -> llm.Op:
    """`op` unless it is attention, else the parts' operators of its name added up."""
    if op.kind != "attention":
        return op
    same = [a for ops in parts for a in ops if a.name == op.name]
    fields = ("flops", "weight_bytes", "act_bytes", "kv_bytes")
    return llm.Op(op.name, op.kind, *(sum(getattr(a, f) for a in same) for f in fields))


def pd_ratio(prefill_gpu_s: float, decode_gpu_s: float) -> float:
    """Prefill GPUs per decode GPU that balance their rates: P / D = t_p / t_d, t_p and t_d
    the GPU-seconds one request spends in prefill and in decode."""
    return prefill_gpu_s / decode_gpu_s


def cost_per_million(tokens_per_s_per_gpu: float, price_per_gpu_hour: float) -> float:
    """Dollars per 1e6 tokens: price ($ per GPU-hour) / 3600 / (tokens/s per GPU) x 1e6."""
    return price_per_gpu_hour / 3600 / tokens_per_s_per_gpu * 1e6


def node_hours(tokens: float, tokens_per_s_per_node: float) -> float:
    """Node-hours a token count takes at a per-node rate: tokens / rate / 3600."""
    return tokens / tokens_per_s_per_node / 3600


def gpus_to_hold(model: Model, chip: Chip, context: int, dtypes: DTypes | None = None) -> int:
    """The fewest GPUs, a power of two up to MAX_GPUS, whose memory holds one sequence at
    S tokens: min g = 2^i with ledger(B = 1, S).total <= g x capacity; 0 when none does."""
    need = model_memory_ledger(model, 1, context, dtypes).total
    powers = (2**i for i in range(MAX_GPUS.bit_length()))
    return next((g for g in powers if need <= g * chip.mem_capacity), 0)


def largest_batch_on(
    model: Model, chip: Chip, gpus: int, context: int, dtypes: DTypes | None = None
) -> int:
    """Largest decode batch whose memory ledger at S tokens fits g GPUs' memory (weights
    and KV cache split g ways): max B with ledger(B, S).total <= g x capacity; 0 if none."""
    return largest_batch_that_fits(
        gpus * chip.mem_capacity, lambda b: model_memory_ledger(model, b, context, dtypes)
    )


# --- Skewed routing ----------------------------------------------------------
def skewed_shares(experts: int, chosen: int, exponent: float) -> list[float]:
    """Each expert's chance of being among a token's k choices under Zipf-like popularity:
    q_i = min(1, c i^-s), c such that sum q_i = k (s = 0: the uniform k / E)."""
    weights = [(i + 1) ** -exponent for i in range(experts)]
    lo, hi = 0.0, chosen / min(weights)
    # sum min(1, c w_i) rises with c: bisect for k
    for _ in range(200):  # pragma: no mutate (199 or 201 halvings end at the same float)
        c = (lo + hi) / 2
        lo, hi = (c, hi) if sum(min(1.0, c * w) for w in weights) < chosen else (lo, c)
    return [min(1.0, hi * w) for w in weights]


def experts_touched_by_shares(tokens: int, shares: Sequence[float]) -> float:
    """Expected distinct experts n independent tokens reach: sum_i 1 - (1 - q_i)^n; with
    every q_i = k / E it is E (1 - (1 - k / E)^n)."""
    return sum(1.0 - (1.0 - q) ** tokens for q in shares)


def gpu_loads(shares: Sequence[float], ep: int) -> list[float]:
    """Each of N GPUs' share of the routed tokens, expert i on GPU i mod N: its experts' q_i."""
    return [sum(shares[g::ep]) for g in range(ep)]
