"""Both ledgers for a whole decoder-only transformer: per-operator FLOPs and bytes, memory.

Standard library only. The speed ledger lists every operator of one layer (and the
few that run once per model) with its FLOPs and the bytes it moves, split into
weight, activation and KV-cache bytes, each at its own element size. The capacity
ledger reuses ``common.formulas.ledger`` (weights + KV cache + activations + overhead).

Conventions (the same as ``common.formulas.roofline`` and ``common.formulas.ledger``):

* one multiply-add is 2 FLOP; bytes are every read plus every write at the element
  size; each weight is read once per forward pass (a perfect kernel);
* a pass processes ``batch`` sequences, each adding ``new_tokens`` tokens to a cache
  that then holds ``context`` tokens: prefill is new_tokens = context = S, decode is
  new_tokens = 1 with the cache at S tokens (the new one included);
* attention FLOPs count only the query-key pairs a causal mask keeps: a new token at
  position p attends to p + 1 keys, so prefill counts S(S + 1) / 2 pairs per head,
  about half the S^2 a kernel that ignores the mask would compute;
* attention bytes come in two variants: ``materialized`` writes the score matrix
  to HBM and reads it back (the full T x S rectangle, masked entries included),
  while the default minimum-traffic (flash-style) kernel moves only Q, K, V and O;
* per-element FLOP counts (RMSNorm, SiLU, the gate product, softmax) come from
  ``common.tables.op_counts``; rotary
  embeddings (a few FLOP per element of Q and K, fused into the projections in
  practice) and sampling are left out;
* prefill applies the final norm and the LM head to the last position of each
  sequence only: that is all the first output token needs;
* every parameter is stored at the weight precision (real quantizers often keep
  norms and embeddings in bf16; norms are tiny, embeddings a few percent).

Time bounds: each operator gets max(F / P_peak, D / beta) on its own, and a pass
takes at least the sum over its operators (operators run one after another).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from common.formulas import ledger, roofline
from common.formulas.thresholds import linear_threshold, smallest_integer_reaching
from common.hw_specs import Chip, bytes_per_elem
from common.tables.assumptions import ACT_VECTORS_PER_TOKEN, LLM_OVERHEAD_RATE
from common.tables.models import Model
from common.tables.op_counts import (
    GATE_FLOPS_PER_ELEM,
    RMSNORM_FLOPS_PER_ELEM,
    SILU_FLOPS_PER_ELEM,
    SOFTMAX_FLOPS_PER_ELEM,
)


def _check_model(model: object) -> Model:
    """model itself if it is a Model; ValueError otherwise."""
    if not isinstance(model, Model):
        raise ValueError(f"expected a Model from common.tables.models, got {model!r}")
    return model


# ---------------------------------------------------------------------------
# Element sizes
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class DTypes:
    """Storage precisions: weights, KV cache and activations (names from hw_specs)."""

    weights: str = "bf16"
    kv: str = "bf16"
    activations: str = "bf16"

    def __post_init__(self) -> None:
        for what in ("weights", "kv", "activations"):
            bytes_per_elem(getattr(self, what))  # ValueError listing the known precisions

    @property
    def w_bytes(self) -> float:
        """Bytes per weight element."""
        return bytes_per_elem(self.weights)

    @property
    def kv_bytes(self) -> float:
        """Bytes per KV-cache element."""
        return bytes_per_elem(self.kv)

    @property
    def act_bytes(self) -> float:
        """Bytes per activation element."""
        return bytes_per_elem(self.activations)

    def describe(self) -> str:
        """One line: 'bf16 weights, fp8 KV cache, bf16 activations'."""
        return f"{self.weights} weights, {self.kv} KV cache, {self.activations} activations"


# ---------------------------------------------------------------------------
# Parameters and KV cache
# ---------------------------------------------------------------------------
def parameter_breakdown(model: Model) -> dict[str, int]:
    """Parameters by part: embedding V d, attention L d (2 Hq + 2 Hkv) dh, MLP L k d d_ff, ..."""
    m = _check_model(model)
    d, L = m.d_model, m.n_layers
    mlp_matrices = 3 if m.gated_mlp else 2
    return {
        "embedding": m.vocab_size * d,
        "attention": L * (2 * d * m.q_dim + 2 * d * m.kv_dim),  # q, o and k, v projections
        "mlp": L * mlp_matrices * d * m.d_ff,
        "norms": (2 * L + 1) * d,  # two per layer and the final one
        "lm_head": 0 if m.tied_embeddings else m.vocab_size * d,
    }


def parameter_count(model: Model) -> int:
    """N = V d (embedding) + L (2 d Hq dh + 2 d Hkv dh + k d d_ff + 2 d) + d + V d (if untied)."""
    return sum(parameter_breakdown(model).values())


def kv_cache_bytes_per_token(model: Model, kv_bytes: float = 2) -> float:
    """KV cache per token = 2 (K and V) x layers x KV heads x head dim x bytes."""
    m = _check_model(model)
    return ledger.kv_cache_bytes(1, m.n_layers, m.kv_dim, kv_bytes)


def check_context(model: Model, context: int) -> int:
    """context as an int in [1, model.max_context]; ValueError otherwise."""
    m = _check_model(model)
    if context > m.max_context:
        raise ValueError(
            f"context {context} exceeds {m.name}'s window of {m.max_context} tokens "
            f"(max_position_embeddings)"
        )
    return context


# ---------------------------------------------------------------------------
# Speed ledger: operators
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Op:
    """One operator: FLOPs and the bytes it moves, by kind of tensor."""

    name: str
    kind: str  # 'matmul', 'attention', 'norm', 'elementwise' or 'lookup'
    flops: float
    weight_bytes: float = 0.0
    act_bytes: float = 0.0
    kv_bytes: float = 0.0

    @property
    def nbytes(self) -> float:
        """D = weight + activation + KV-cache bytes."""
        return self.weight_bytes + self.act_bytes + self.kv_bytes

    @property
    def intensity(self) -> float:
        """I = F / D in FLOP/byte (infinite when nothing leaves the chip)."""
        if self.nbytes:
            return self.flops / self.nbytes
        return math.inf if self.flops else 0.0


def _matmul(name: str, n: int, K: int, N: int, dt: DTypes, to_cache: bool = False) -> Op:
    """X[n, K] @ W[K, N] via roofline.matmul_counts; the output goes to the KV cache if asked."""
    out_b = dt.kv_bytes if to_cache else dt.act_bytes
    flops, nbytes = roofline.matmul_counts(n, K, N, dt.act_bytes, dt.w_bytes, out_b)
    w = K * N * dt.w_bytes
    out = n * N * out_b
    return Op(
        name,
        "matmul",
        flops,
        weight_bytes=w,
        act_bytes=nbytes - w - (out if to_cache else 0.0),
        kv_bytes=out if to_cache else 0.0,
    )


def _rmsnorm(name: str, n: int, d: int, dt: DTypes) -> Op:
    """RMSNorm over [n, d]: 4 n d FLOP; read x, write y (activations), read the gain (weights)."""
    return Op(
        name,
        "norm",
        RMSNORM_FLOPS_PER_ELEM * n * d,
        weight_bytes=d * dt.w_bytes,
        act_bytes=2 * n * d * dt.act_bytes,
    )


def causal_pairs(new_tokens: int, context: int) -> int:
    """Query-key pairs one head scores: T (S - T) + T (T + 1) / 2; S (S + 1) / 2 at T = S."""
    T, S = new_tokens, context
    if T > S:
        raise ValueError(f"new tokens ({T}) cannot exceed the context ({S})")
    return T * (S - T) + T * (T + 1) // 2


#: The two matrix products of attention (softmax between them), by their operators' names.
ATTENTION_PRODUCTS = ("scores Q K^T", "weighted sum P V")


def _attention_ops(
    m: Model, batch: int, T: int, S: int, dt: DTypes, materialized: bool
) -> list[Op]:
    """Scores Q K^T, softmax and P V for B sequences of T new tokens over S cached ones."""
    a, kvb = dt.act_bytes, dt.kv_bytes
    pairs = batch * m.n_heads * causal_pairs(T, S)  # over all sequences and heads
    stored = batch * m.n_heads * T * S  # the score rectangle a naive kernel writes
    q_or_o = batch * T * m.q_dim * a  # Q read once, O written once
    k_or_v = batch * S * m.kv_dim * kvb  # each cached K (or V) read once per layer
    scores_io = stored * a if materialized else 0.0
    return [
        # S = Q K^T: one multiply-add per (pair, head-dim element).
        Op("scores Q K^T", "attention", 2.0 * pairs * m.d_head, 0.0, q_or_o + scores_io, k_or_v),
        # softmax over kept pairs; materialized: read S, write P (fused, one pass each).
        Op("softmax", "attention", SOFTMAX_FLOPS_PER_ELEM * pairs, 0.0, 2 * scores_io),
        # O = P V: one multiply-add per (pair, head-dim element).
        Op(
            "weighted sum P V", "attention", 2.0 * pairs * m.d_head, 0.0, q_or_o + scores_io, k_or_v
        ),
    ]


def layer_ops(
    model: Model,
    batch: int,
    new_tokens: int,
    context: int,
    dtypes: DTypes | None = None,
    materialized: bool = False,
) -> tuple[Op, ...]:
    """Operators of one decoder layer for B sequences of T new tokens over S cached ones."""
    m = _check_model(model)
    dt = dtypes or DTypes()
    B, T, S = batch, new_tokens, check_context(m, context)
    if T > S:
        raise ValueError(f"new tokens ({T}) cannot exceed the context ({S})")
    n, d, a = B * T, m.d_model, dt.act_bytes
    ops = [
        _rmsnorm("attention norm", n, d, dt),
        _matmul("Q projection", n, d, m.q_dim, dt),
        _matmul("K projection", n, d, m.kv_dim, dt, to_cache=True),
        _matmul("V projection", n, d, m.kv_dim, dt, to_cache=True),
        *_attention_ops(m, B, T, S, dt, materialized),
        _matmul("output projection", n, m.q_dim, d, dt),
        Op("residual add", "elementwise", n * d, act_bytes=3 * n * d * a),  # read 2, write 1
        _rmsnorm("MLP norm", n, d, dt),
    ]
    if m.gated_mlp:
        ops += [
            _matmul("gate projection", n, d, m.d_ff, dt),
            _matmul("up projection", n, d, m.d_ff, dt),
            # silu(g) * u: read g and u, write one tensor.
            Op(
                "SiLU x up",
                "elementwise",
                (SILU_FLOPS_PER_ELEM + GATE_FLOPS_PER_ELEM) * n * m.d_ff,
                act_bytes=3 * n * m.d_ff * a,
            ),
        ]
    else:
        ops += [
            _matmul("up projection", n, d, m.d_ff, dt),
            Op(
                "activation",
                "elementwise",
                SILU_FLOPS_PER_ELEM * n * m.d_ff,
                act_bytes=2 * n * m.d_ff * a,
            ),
        ]
    ops += [
        _matmul("down projection", n, m.d_ff, d, dt),
        Op("residual add", "elementwise", n * d, act_bytes=3 * n * d * a),
    ]
    return tuple(ops)


def model_ops(
    model: Model, batch: int, new_tokens: int, dtypes: DTypes | None = None
) -> tuple[Op, ...]:
    """Once-per-model operators: embedding lookup (B T rows), final norm and LM head (B rows)."""
    m = _check_model(model)
    dt = dtypes or DTypes()
    B, T, d = batch, new_tokens, m.d_model
    return (
        Op("embedding lookup", "lookup", 0.0, B * T * d * dt.w_bytes, B * T * d * dt.act_bytes),
        _rmsnorm("final norm", B, d, dt),
        _matmul("LM head", B, d, m.vocab_size, dt),
    )


@dataclass(frozen=True)
class PassLedger:
    """The speed ledger of one forward pass: per-layer operators (x layers) and model-level ones."""

    phase: str
    model: Model
    batch: int
    new_tokens: int
    context: int
    dtypes: DTypes
    materialized: bool
    layer: tuple[Op, ...]
    once: tuple[Op, ...]

    def counted(self) -> list[tuple[Op, int]]:
        """Every operator with how often it runs per pass (n_layers, or once)."""
        L = self.model.n_layers
        return [(op, L) for op in self.layer] + [(op, 1) for op in self.once]

    def _sum(self, attr: str) -> float:
        return sum(getattr(op, attr) * count for op, count in self.counted())

    @property
    def flops(self) -> float:
        """Total FLOPs of the pass: L x (per-layer sum) + model-level ops."""
        return self._sum("flops")

    @property
    def nbytes(self) -> float:
        """Total bytes moved by the pass."""
        return self._sum("nbytes")

    @property
    def weight_bytes(self) -> float:
        """Weight bytes read by the pass."""
        return self._sum("weight_bytes")

    @property
    def act_bytes(self) -> float:
        """Activation bytes read and written by the pass."""
        return self._sum("act_bytes")

    @property
    def kv_bytes(self) -> float:
        """KV-cache bytes read and written by the pass."""
        return self._sum("kv_bytes")

    @property
    def tokens(self) -> int:
        """Tokens processed: batch x new tokens."""
        return self.batch * self.new_tokens

    def kind_total(self, kind: str, attr: str = "flops") -> float:
        """Sum of `attr` over operators of one kind ('matmul', 'attention', ...)."""
        return sum(getattr(op, attr) * c for op, c in self.counted() if op.kind == kind)


def prefill_ledger(
    model: Model, batch: int, seq: int, dtypes: DTypes | None = None, materialized: bool = False
) -> PassLedger:
    """Prefill: B sequences of S prompt tokens in one pass (T = S new tokens, causal)."""
    m = _check_model(model)
    dt = dtypes or DTypes()
    layer = layer_ops(m, batch, seq, seq, dt, materialized)
    return PassLedger(
        "prefill", m, batch, seq, seq, dt, materialized, layer, model_ops(m, batch, seq, dt)
    )


def decode_ledger(
    model: Model, batch: int, context: int, dtypes: DTypes | None = None, materialized: bool = False
) -> PassLedger:
    """Decode: one new token for each of B sequences whose cache then holds S tokens."""
    m = _check_model(model)
    dt = dtypes or DTypes()
    layer = layer_ops(m, batch, 1, context, dt, materialized)
    return PassLedger(
        "decode", m, batch, 1, context, dt, materialized, layer, model_ops(m, batch, 1, dt)
    )


# ---------------------------------------------------------------------------
# Speed ledger: time bounds on a chip
# ---------------------------------------------------------------------------
class OpTime(NamedTuple):
    """One operator's time bounds on a chip, for one run of it (multiply by count for the pass)."""

    op: Op
    count: int
    compute_s: float
    memory_s: float
    lower_s: float
    bound: str


def op_times(pass_ledger: PassLedger, chip: Chip, precision: str) -> list[OpTime]:
    """Per operator: roofline.time_bounds(F, D, P_peak(precision), beta)."""
    peak, bw = chip.peak_flops(precision), chip.mem_bw
    rows = []
    for op, count in pass_ledger.counted():
        t = roofline.time_bounds(op.flops, op.nbytes, peak, bw)
        compute, memory, lower = float(t["compute"]), float(t["memory"]), float(t["lower"])
        rows.append(OpTime(op, count, compute, memory, lower, str(t["bound"])))
    return rows


def pass_time(pass_ledger: PassLedger, chip: Chip, precision: str) -> float:
    """T_pass >= sum over operators of count x max(F / P_peak, D / beta), in seconds."""
    return sum(t.count * t.lower_s for t in op_times(pass_ledger, chip, precision))


@dataclass(frozen=True)
class Deployment:
    """What a whole-model time bound needs besides the workload: model, chip and precisions.

    `precision` selects the chip's peak FLOP/s; `dtypes` the storage sizes of
    weights, KV cache and activations; `materialized` the attention kernel.
    """

    model: Model
    chip: Chip
    precision: str = "bf16"
    dtypes: DTypes = field(default_factory=DTypes)
    materialized: bool = False

    def __post_init__(self) -> None:
        _check_model(self.model)
        if not isinstance(self.chip, Chip):
            raise ValueError(f"expected a Chip from common.hw_specs, got {self.chip!r}")
        self.chip.peak_flops(self.precision)  # ValueError naming the precisions it has


def ttft_lower_bound(setup: Deployment, batch: int, seq: int) -> float:
    """Time to first token >= prefill pass time for B prompts of S tokens, in seconds."""
    prefill = prefill_ledger(setup.model, batch, seq, setup.dtypes, setup.materialized)
    return pass_time(prefill, setup.chip, setup.precision)


def tpot_lower_bound(setup: Deployment, batch: int, context: int) -> float:
    """Time per output token >= decode pass time at batch B and context S, in seconds."""
    decode = decode_ledger(setup.model, batch, context, setup.dtypes, setup.materialized)
    return pass_time(decode, setup.chip, setup.precision)


def decode_tokens_per_s(setup: Deployment, batch: int, context: int) -> float:
    """Decode throughput bound = B / TPOT, in tokens/s (every sequence gains one token a step)."""
    return batch / tpot_lower_bound(setup, batch, context)


# ---------------------------------------------------------------------------
# Capacity ledger
# ---------------------------------------------------------------------------
def activation_bytes_per_token(model: Model, act_bytes: float = 2) -> float:
    """Peak live activations per active token: 16 x d_model x bytes (the article's rule)."""
    m = _check_model(model)
    return ACT_VECTORS_PER_TOKEN * m.d_model * act_bytes


def model_memory_ledger(
    model: Model,
    batch: int,
    context: int,
    dtypes: DTypes | None = None,
    overhead_rate: float = LLM_OVERHEAD_RATE,
    phase: str = "decode",
) -> ledger.MemoryLedger:
    """N b_w + 2 B S L Hkv dh b_kv + T a + rho x (sum); T = B in decode, B S in prefill."""
    m = _check_model(model)
    dt = dtypes or DTypes()
    B, S = batch, check_context(m, context)
    return ledger.memory_ledger(
        n_params=parameter_count(m),
        weight_bytes=dt.w_bytes,
        n_layers=m.n_layers,
        d_kv=m.kv_dim,
        batch=B,
        seq=S,
        act_bytes_per_token=activation_bytes_per_token(m, dt.act_bytes),
        overhead_rate=overhead_rate,
        kv_bytes=dt.kv_bytes,
        active_tokens=B if phase == "decode" else B * S,
    )


def largest_batch(
    model: Model,
    chip: Chip,
    context: int,
    dtypes: DTypes | None = None,
    overhead_rate: float = LLM_OVERHEAD_RATE,
    phase: str = "decode",
) -> int:
    """Largest B whose memory ledger fits the chip's capacity at context S; 0 if none."""
    m, dt = _check_model(model), dtypes or DTypes()
    check_context(m, context)
    return ledger.largest_batch_that_fits(
        chip.mem_capacity,
        lambda b: model_memory_ledger(m, b, context, dt, overhead_rate, phase),
    )


# ---------------------------------------------------------------------------
# When decode's weight matmuls turn compute-bound
# ---------------------------------------------------------------------------
class MatmulShape(NamedTuple):
    """One weight matmul X[B, K] W[K, N] of a decode step, with its element sizes and count."""

    name: str
    K: int  # input width (rows of W)
    N: int  # output width (columns of W)
    x_bytes: float
    w_bytes: float
    out_bytes: float
    count: int


def weight_matmul_shapes(model: Model, dtypes: DTypes | None = None) -> list[MatmulShape]:
    """Every weight matmul of a decode step: the layer's projections (x L) and the LM head."""
    m, dt = _check_model(model), dtypes or DTypes()
    a, w, kv, L, d = dt.act_bytes, dt.w_bytes, dt.kv_bytes, m.n_layers, m.d_model
    shapes = [
        MatmulShape("Q projection", d, m.q_dim, a, w, a, L),
        MatmulShape("K projection", d, m.kv_dim, a, w, kv, L),
        MatmulShape("V projection", d, m.kv_dim, a, w, kv, L),
        MatmulShape("output projection", m.q_dim, d, a, w, a, L),
    ]
    if m.gated_mlp:
        shapes.append(MatmulShape("gate projection", d, m.d_ff, a, w, a, L))
    shapes += [
        MatmulShape("up projection", d, m.d_ff, a, w, a, L),
        MatmulShape("down projection", m.d_ff, d, a, w, a, L),
        MatmulShape("LM head", d, m.vocab_size, a, w, a, 1),
    ]
    return shapes


def matmul_critical_batches(
    model: Model, ridge: float, dtypes: DTypes | None = None
) -> list[tuple[MatmulShape, int | None]]:
    """Each weight matmul's roofline.critical_batch: smallest B with 2BKN / D(B) >= I*."""
    return [
        (s, roofline.critical_batch(s.K, s.N, ridge, s.x_bytes, s.w_bytes, s.out_bytes))
        for s in weight_matmul_shapes(model, dtypes)
    ]


def decode_critical_batch(model: Model, ridge: float, dtypes: DTypes | None = None) -> int | None:
    """Smallest B with sum 2BKN / sum (B(Kx + N out) + KNw) >= I* over all weight matmuls."""
    shapes = weight_matmul_shapes(model, dtypes)
    W = sum(s.count * s.K * s.N for s in shapes)  # multiply-adds per token
    A = sum(s.count * (s.K * s.x_bytes + s.N * s.out_bytes) for s in shapes)  # bytes per token
    Wb = sum(s.count * s.K * s.N * s.w_bytes for s in shapes)  # weight bytes, once per step

    # Intensity 2BW / (BA + Wb) rises towards 2W / A as B grows.
    solved = linear_threshold(2.0 * W, A, Wb, ridge)
    return None if solved is None else smallest_integer_reaching(solved[1], solved[0])


# ---------------------------------------------------------------------------
# Curves for the figure
# ---------------------------------------------------------------------------
def batch_grid(hi: int, per_decade: int = 24) -> list[int]:
    """Distinct integers from 1 to hi, spaced evenly in log10 (hi itself included)."""
    steps = max(1, math.ceil(math.log10(hi) * per_decade)) if hi > 1 else 0
    grid = {1, hi}
    for i in range(1, steps):
        grid.add(round(10 ** (math.log10(hi) * i / steps)))
    return sorted(grid)


def decode_throughput_curve(
    setup: Deployment, context: int, batches: Iterable[int]
) -> list[tuple[int, float]]:
    """(B, tokens/s bound) for each batch B: B / TPOT(B) on the chip."""
    return [(b, decode_tokens_per_s(setup, b, context)) for b in batches]
