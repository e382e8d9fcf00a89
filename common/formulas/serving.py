"""Serving formulas: expert-parallel dispatch and combine, load imbalance, speculative decoding.

Standard library only; inputs are checked where they enter (flags, config reader), not here.

Expert parallelism (EP) over N GPUs spreads a mixture's E experts E / N to a GPU. Each
token's hidden vector [d] goes to each of its k routed experts (dispatch) and k results
come back to be summed (combine). Under uniform routing an expert lives on another GPU
with probability (N - 1) / N; of those, (min(N, G) - 1) / N sit in the token's own node of
G GPUs (NVLink) and (N - min(N, G)) / N in other nodes (the network card). Both links
carry at once, so a transfer takes latency + the slower link's bytes over its bandwidth.

Speculative decoding (Leviathan et al. 2023, arXiv 2211.17192): a draft proposes K
tokens, the target verifies them in one pass and keeps the longest accepted prefix plus
one token of its own; each draft token is accepted with probability a, independently.
"""

from __future__ import annotations

from collections.abc import Sequence


# ---------------------------------------------------------------------------
# Expert parallelism
# ---------------------------------------------------------------------------
def remote_fraction(ep: int) -> float:
    """Share of a token's routed experts on other GPUs under uniform routing: (N - 1) / N."""
    return (ep - 1) / ep


def link_fractions(ep: int, node_gpus: int) -> tuple[float, float]:
    """(share in the own node but another GPU, share in other nodes) of a token's experts:
    ((min(N, G) - 1) / N, (N - min(N, G)) / N) for N EP ranks in nodes of G GPUs."""
    local = min(ep, node_gpus)
    return (local - 1) / ep, (ep - local) / ep


def dispatch_bytes_per_token(d_model: int, k: int, ep: int, elem_bytes: float) -> float:
    """Bytes one token sends per MoE layer: k (N - 1) / N x d x b (b: the dispatch
    precision's bytes per element, scales included, e.g. 1 + 4 / 128 for FP8 with one
    fp32 scale per 128 elements)."""
    return k * remote_fraction(ep) * d_model * elem_bytes


def combine_bytes_per_token(d_model: int, k: int, ep: int, elem_bytes: float = 2) -> float:
    """Bytes one token gets back per MoE layer: k (N - 1) / N x d x b (bf16: b = 2)."""
    return k * remote_fraction(ep) * d_model * elem_bytes


def all_to_all_time(
    tokens: float,
    bytes_per_copy: float,
    k: int,
    ep: int,
    node_gpus: int,
    node_bw: float,
    net_bw: float,
    latency: float,
) -> float:
    """One dispatch (or combine) of T tokens on one GPU, in seconds:
    latency + max(T k f_node m / beta_node, T k f_net m / beta_net), with m the bytes of
    one token's copy to one expert and f the link fractions of ``link_fractions``."""
    f_node, f_net = link_fractions(ep, node_gpus)
    copies = tokens * k * bytes_per_copy
    net = copies * f_net / net_bw if f_net else 0.0
    return latency + max(copies * f_node / node_bw, net)


def imbalance_factor(loads: Sequence[float]) -> float:
    """Busiest expert's (or GPU's) load over the fair share: max(x) / mean(x); 1 = balanced."""
    return max(loads) * len(loads) / sum(loads)


def imbalance_cost(expert_seconds: float, factor: float) -> float:
    """Seconds a step loses waiting for the busiest GPU: (f - 1) x the balanced expert time
    (every GPU waits for the one with f times the fair share of tokens)."""
    return (factor - 1) * expert_seconds


# ---------------------------------------------------------------------------
# Speculative decoding
# ---------------------------------------------------------------------------
def expected_tokens(acceptance: float, draft: int) -> float:
    """Expected tokens per verify step, (1 - a^(K + 1)) / (1 - a); K + 1 at a = 1
    (Leviathan et al. 2023, eq. 1)."""
    a, K = acceptance, draft
    if a >= 1:
        return K + 1.0
    return (1 - a ** (K + 1)) / (1 - a)


def speculative_speedup(
    acceptance: float, draft: int, draft_cost: float, verify_cost: float = 1.0
) -> float:
    """Speed-up over plain decoding, a factor: E(a, K) / (K c + v), with c a draft token's
    cost and v the verify pass's, each in target decode steps (v = 1: the K + 1 tokens
    cost one memory-bound step, Leviathan et al.'s assumption)."""
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


# ---------------------------------------------------------------------------
# Skewed routing
# ---------------------------------------------------------------------------
def skewed_shares(experts: int, chosen: int, exponent: float) -> list[float]:
    """Each expert's chance q_i of being among a token's k choices when popularity falls as
    i^-s (Zipf-like): q_i = min(1, c i^-s) with c set so that sum q_i = k; s = 0 gives the
    uniform k / E. The most popular experts are capped at 1 (every token takes them)."""
    weights = [(i + 1) ** -exponent for i in range(experts)]
    lo, hi = 0.0, chosen / min(weights)
    for _ in range(200):  # sum min(1, c w_i) rises with c: bisect for k
        c = (lo + hi) / 2
        lo, hi = (c, hi) if sum(min(1.0, c * w) for w in weights) < chosen else (lo, c)
    return [min(1.0, hi * w) for w in weights]


def experts_touched_by_shares(tokens: int, shares: Sequence[float]) -> float:
    """Expected distinct experts n independent tokens reach: sum_i 1 - (1 - q_i)^n; with
    every q_i = k / E it is E (1 - (1 - k / E)^n)."""
    return sum(1.0 - (1.0 - q) ** tokens for q in shares)


def gpu_loads(shares: Sequence[float], ep: int) -> list[float]:
    """Each of N GPUs' share of the routed tokens with expert i on GPU i mod N (round-robin):
    sum of q_i over its experts."""
    return [sum(shares[g::ep]) for g in range(ep)]
