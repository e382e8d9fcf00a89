"""Both ledgers for a whole decoder-only transformer: per-operator FLOPs and bytes, memory.

Conventions (those of ``common.formulas.roofline`` and ``common.formulas.ledger``): a
multiply-add is 2 FLOP; bytes are every read and write at the element size, each weight
read once per pass; a pass adds ``new_tokens`` tokens to each of ``batch`` caches that then
hold ``context`` (prefill: new_tokens = context = S; decode: one token, the cache at S);
attention FLOPs count the S(S + 1) / 2 pairs a causal mask keeps, its bytes only Q, K, V
and O (``materialized``: the T x S score matrix written and read back too); per-element
counts come from ``common.tables.op_counts`` (rotary embeddings and sampling left out);
prefill applies the final norm and the LM head to each sequence's last position only;
every parameter is stored at the weight precision. A pass takes at least the sum over its
operators of max(F / P_peak, D / beta).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from common.formulas import ledger, roofline
from common.formulas.thresholds import linear_threshold, smallest_integer_reaching
from common.hw_specs import Chip, bytes_per_elem
from common.tables import op_counts
from common.tables.assumptions import ACT_VECTORS_PER_TOKEN, LLM_OVERHEAD_RATE
from common.tables.models import Model
from common.tables.op_counts import RMSNORM_FLOPS_PER_ELEM, SILU_FLOPS_PER_ELEM


# --- Element sizes -----------------------------------------------------------
def _bytes_of(field: str, doc: str) -> property:  # pragma: no mutate block (called at import)
    """Bytes per element of the precision a DTypes names in `field` (hw_specs.bytes_per_elem)."""

    def get(dtypes: DTypes) -> float:  # annotated: the API page gives the property's type
        return bytes_per_elem(getattr(dtypes, field))

    return property(get, doc=doc)


@dataclass(frozen=True)
class DTypes:
    """Storage precisions: weights, KV cache, activations and, where they differ from the
    weights', the embedding and LM head's and the routed experts' (names from hw_specs)."""

    weights: str = "bf16"
    kv: str = "bf16"
    activations: str = "bf16"
    head: str = ""  # the embedding and LM head ("": as the weights)
    experts: str = ""  # a mixture's routed experts ("": as the weights)

    w_bytes = _bytes_of("weights", "Bytes per weight element.")
    kv_bytes = _bytes_of("kv", "Bytes per KV-cache element.")
    act_bytes = _bytes_of("activations", "Bytes per activation element.")

    @property
    def e_bytes(self) -> float:
        """Bytes per element of a routed expert's weights."""
        return bytes_per_elem(self.experts or self.weights)

    @property
    def at_head(self) -> DTypes:
        """These precisions with the weights at the embedding and LM head's."""
        return DTypes(self.head or self.weights, self.kv, self.activations)

    def describe(self) -> str:
        """One line: 'fp8 weights (bf16 embedding and LM head), bf16 KV cache, bf16 activations';
        'bf16 weights (mxfp4 routed experts), ...'."""
        named = ((self.head, "embedding and LM head"), (self.experts, "routed experts"))
        apart = [f"{p} {what}" for p, what in named if p]
        inner = f" ({'; '.join(apart)})" if apart else ""
        return f"{self.weights} weights{inner}, {self.kv} KV cache, {self.activations} activations"


# --- Parameters and KV cache -------------------------------------------------
def _attention_params(m: Model) -> int:
    """One layer's attention weights: d Hq dh + 2 d Hkv dh + Hq dv d; latent attention: queries
    via r_q, d (r_kv + d_rope) + r_kv + r_kv Hq (dh - d_rope + dv), and Hq dv d."""
    d = m.d_model
    if not m.kv_lora_rank:  # a gated query projection makes Hq dh gates as well
        return d * m.q_dim * (1 + m.attention_gate) + 2 * d * m.kv_dim + m.v_dim * d
    r_q, r_kv = m.q_lora_rank, m.kv_lora_rank
    q = d * r_q + r_q + r_q * m.q_dim if r_q else d * m.q_dim
    nope_and_v = m.d_head - m.rope_head_dim + (m.v_head_dim or m.d_head)
    kv = d * (r_kv + m.rope_head_dim) + r_kv + r_kv * m.n_heads * nope_and_v
    return q + kv + m.v_dim * d


def _linear_widths(m: Model) -> tuple[int, int, int]:
    """A Gated DeltaNet layer's q and k width K = Hk dk, v width V = Hv dv, state Hv dk dv."""
    V = m.linear_heads * m.linear_value_dim
    return m.linear_key_heads * m.linear_key_dim, V, V * m.linear_key_dim


def _linear_params(m: Model) -> int:
    """A Gated DeltaNet layer: d (2K + 2V + 2Hv) in (q, k, v, gate z, rates b, a), conv (2K + V)
    c, 2 Hv, norm dv, out V d, less the q/k norms (2 dh) extra_layer_params puts in every layer."""
    (K, V, _), Hv, d = _linear_widths(m), m.linear_heads, m.d_model
    inner = d * (2 * K + 2 * V + 2 * Hv) + (2 * K + V) * m.linear_conv - 2 * m.d_head * m.qk_norm
    return inner + 2 * Hv + m.linear_value_dim + V * d


def parameter_breakdown(model: Model) -> dict[str, int]:
    """Parameters by part: embedding V d, attention, MLP L_dense k d d_ff (k = 3 gated, else 2),
    over the L_moe routed layers E k d d_ff_expert, k d d_ff_shared and the router E d (+ E);
    an indexer H_I (d_I r_q + d) + d_I (d + 2) (queries from the query latent, head weights,
    its key and the key's LayerNorm)."""
    d, L, moe = model.d_model, model.n_layers, model.moe_layers
    H, dI = model.index_heads, model.index_head_dim
    mats = 3 if model.gated_mlp else 2
    parts = {
        "embedding": model.vocab_size * d,
        "attention": (L - model.linear_layers) * _attention_params(model),
        "linear attention": model.linear_layers * _linear_params(model),
        "indexer": model.index_layers * (H * (dI * (model.q_lora_rank or d) + d) + dI * (d + 2)),
        "mlp": (L - moe) * mats * d * model.d_ff,
        "experts": moe * model.n_experts * mats * d * model.d_ff_expert,
        "shared experts": moe * mats * d * model.d_ff_shared,
        "router": moe * model.n_experts * (d + model.router_bias),
        "norms": (model.norms_per_layer * L + 1) * d,  # per layer and the final one
        "biases, sinks, q/k norms": L * model.extra_layer_params,
        "lm_head": 0 if model.tied_embeddings else model.vocab_size * d}  # fmt: skip
    always = ("embedding", "attention", "mlp", "norms", "lm_head")
    return {k: v for k, v in parts.items() if v or k in always}


def weight_bytes(model: Model, dtypes: DTypes) -> float:
    """Bytes of the weights: (V d + V d untied) b_head + N_e b_e (routed experts) + the rest
    of N at b_w."""
    parts = parameter_breakdown(model)
    head, experts = parts["embedding"] + parts["lm_head"], parts.get("experts", 0)
    rest = parameter_count(model) - head - experts
    return rest * dtypes.w_bytes + head * dtypes.at_head.w_bytes + experts * dtypes.e_bytes


def ep_weight_bytes(model: Model, dtypes: DTypes, ep: int) -> float:
    """Weight bytes on each of `ep` GPUs under expert parallelism: the routed experts'
    N_e b_e / ep, every other weight whole on every GPU (attention, shared experts, head)."""
    experts = parameter_breakdown(model).get("experts", 0)
    return weight_bytes(model, dtypes) - experts * dtypes.e_bytes * (1 - 1 / ep)


def parameter_count(model: Model) -> int:
    """N = V d (embedding) + L (2 d Hq dh + 2 d Hkv dh + k d d_ff + 2 d) + d + V d (if untied),
    with the experts, router and latent attention of ``parameter_breakdown``."""
    return sum(parameter_breakdown(model).values())


def active_parameter_count(model: Model) -> int:
    """Parameters one token uses: N minus the routed experts it does not choose,
    N - L_moe (E - k) mats d d_ff_expert (N itself for a dense model)."""
    m, mats = model, 3 if model.gated_mlp else 2
    idle = m.moe_layers * (m.n_experts - m.experts_per_token) * mats * m.d_model * m.d_ff_expert
    return parameter_count(m) - idle


def experts_touched(tokens: int, chosen: int, experts: int) -> float:
    """Expected distinct experts n tokens route to, each choosing k of E uniformly and
    independently: E (1 - (1 - k / E)^n) (a skewed router touches fewer)."""
    n, k, E = tokens, chosen, experts
    return E * (1.0 - (1.0 - k / E) ** n)


LINEAR = -1  # layer_groups' window for a Gated DeltaNet layer: no attention, no KV cache


def layer_groups(model: Model) -> list[tuple[int, bool, int]]:
    """The model's kinds of layer as (window, dense MLP, count): full-attention routed (or
    dense-model) layers, sliding-window ones, Gated DeltaNet ones (LINEAR); a mixture's dense."""
    dense = model.dense_layers if model.n_experts else 0
    main = model.n_layers - dense
    slide_main = min(model.sliding_layers, main)
    slide_dense = model.sliding_layers - slide_main
    gdn_main = min(model.linear_layers, main - slide_main)  # Gated DeltaNet: window LINEAR
    gdn_dense = model.linear_layers - gdn_main
    kinds = [(0, False, main - slide_main - gdn_main), (model.sliding_window, False, slide_main),
             (LINEAR, False, gdn_main), (0, True, dense - slide_dense - gdn_dense),
             (model.sliding_window, True, slide_dense), (LINEAR, True, gdn_dense)]  # fmt: skip
    return [(w, dn, c) for w, dn, c in kinds if c]


def kv_cache_elements(model: Model, context: int) -> int:
    """Elements one sequence caches at S tokens: sum over layers of min(S, window) x
    cache_width (2 Hkv dh, or r_kv + d_rope for latent attention), + S d_I an indexer's keys."""
    S, width = context, model.cache_width  # a Gated DeltaNet layer (window LINEAR) caches none
    cached = sum(c * (min(S, max(w, 0)) if w else S) for w, _, c in layer_groups(model))
    return cached * width + model.index_layers * S * model.index_head_dim


def state_bytes(model: Model, dtypes: DTypes) -> float:
    """Bytes a sequence keeps besides its KV cache: per Gated DeltaNet layer its Hv dk dv
    state (4 B each under mamba_ssm_dtype float32, else b_kv) and (2K + V)(c - 1) conv taps."""
    K, V, state = _linear_widths(model)
    taps = (2 * K + V) * (model.linear_conv - 1) * dtypes.kv_bytes
    return model.linear_layers * (state * (4 if model.state_fp32 else dtypes.kv_bytes) + taps)


def kv_shards(model: Model, gpus: int) -> int:
    """KV-cache shards under g-way tensor parallelism: min(g, Hkv); 1 for a latent cache, which
    every GPU's query heads read whole."""
    return 1 if model.kv_lora_rank else min(gpus, model.n_kv_heads)


def kv_cache_bytes_per_token(model: Model, kv_bytes: float = 2) -> float:
    """KV cache per token = 2 (K and V) x attention layers x KV heads x head dim x bytes
    (layers x (r_kv + d_rope) x bytes for latent attention, + d_I x bytes a layer's indexer
    keys; no window applied)."""
    width = (model.n_layers - model.linear_layers) * model.cache_width
    return float((width + model.index_layers * model.index_head_dim) * kv_bytes)


# --- Speed ledger: operators -------------------------------------------------
@dataclass(frozen=True)
class Op:
    """One operator: FLOPs and the bytes it moves, by kind of tensor."""

    name: str
    kind: str  # 'matmul', 'attention', 'recurrence', 'norm', 'elementwise' or 'lookup'
    flops: float
    weight_bytes: float = 0.0
    act_bytes: float = 0.0
    kv_bytes: float = 0.0
    inputs: float = 0.0  # a matmul's activation input: its elements, n K

    @property
    def nbytes(self) -> float:
        """D = weight + activation + KV-cache bytes."""
        return self.weight_bytes + self.act_bytes + self.kv_bytes

    @property
    def intensity(self) -> float:
        """I = F / D in FLOP/byte (infinite when nothing leaves the chip, 0 for no work)."""
        return self.flops / self.nbytes if self.nbytes else math.inf if self.flops else 0.0


def _matmul(name: str, n: int, K: int, N: int, dt: DTypes, to_cache: bool = False) -> Op:
    """X[n, K] @ W[K, N] via roofline.matmul_counts; the output goes to the KV cache if asked."""
    out_b = dt.kv_bytes if to_cache else dt.act_bytes
    flops, nbytes = roofline.matmul_counts(n, K, N, dt.act_bytes, dt.w_bytes, out_b)
    w, kv = K * N * dt.w_bytes, n * N * out_b if to_cache else 0.0
    return Op(name, "matmul", flops, w, nbytes - w - kv, kv, n * K)


def _rmsnorm(name: str, n: int, d: int, dt: DTypes) -> Op:
    """RMSNorm over [n, d]: 4 n d FLOP; read x, write y (activations), read the gain (weights)."""
    return Op(
        name, "norm", RMSNORM_FLOPS_PER_ELEM * n * d, d * dt.w_bytes, 2 * n * d * dt.act_bytes
    )


def causal_pairs(new_tokens: int, context: int, window: int = 0) -> int:
    """Query-key pairs one head scores: T (S - T) + T (T + 1) / 2; with a window W,
    f(S) - f(S - T), f(n) = n (n + 1) / 2 up to n = W, then W (W + 1) / 2 + (n - W) W."""
    T, S = new_tokens, context
    if not window or window >= S:
        return T * (S - T) + T * (T + 1) // 2

    def f(n: int) -> int:
        m = min(n, window)
        return m * (m + 1) // 2 + (n - m) * window

    return f(S) - f(S - T)


#: The two matrix products of attention (softmax between them), by their operators' names.
ATTENTION_PRODUCTS = ("scores Q K^T", "weighted sum P V")


def _attention_ops(
    m: Model, batch: int, T: int, S: int, dt: DTypes, materialized: bool, window: int = 0
) -> list[Op]:
    """Q K^T, softmax and P V over min(S, W + T - 1) keys (sparse attention: W its top k);
    latent attention (absorbed) scores over r_kv + d_rope and sums r_kv per head, reading the
    cached latent once."""
    a, kvb, window = dt.act_bytes, dt.kv_bytes, window or (m.index_layers and m.index_topk)
    pairs = batch * m.n_heads * causal_pairs(T, S, window)  # over all sequences and heads
    seen = min(S, window + T - 1) if window else S
    stored = batch * m.n_heads * T * seen  # the score rectangle a naive kernel writes
    if m.kv_lora_rank:
        score_dim, value_dim = m.cache_width, m.kv_lora_rank
        k_read, v_read = batch * seen * m.cache_width * kvb, 0.0
    else:
        score_dim = value_dim = m.d_head
        k_read = v_read = batch * seen * m.kv_dim * kvb  # each cached K (or V) read once
    q_in = batch * T * m.n_heads * score_dim * a  # Q read once
    o_out = batch * T * m.n_heads * value_dim * a  # O written once
    scores_io = stored * a if materialized else 0.0
    return [
        # S = Q K^T: one multiply-add per (pair, head-dim element).
        Op("scores Q K^T", "attention", 2.0 * pairs * score_dim, 0.0, q_in + scores_io, k_read),
        # softmax over kept pairs; materialized: read S, write P (fused, one pass each).
        Op("softmax", "attention", op_counts.SOFTMAX_FLOPS_PER_ELEM * pairs, 0.0, 2 * scores_io),
        # O = P V: one multiply-add per (pair, head-dim element).
        Op(
            "weighted sum P V", "attention", 2.0 * pairs * value_dim, 0.0, o_out + scores_io, v_read
        )]  # fmt: skip


def _indexer_ops(m: Model, batch: int, T: int, S: int, dt: DTypes) -> list[Op]:
    """DeepSeek Sparse Attention's indexer (deepseek-ai/DeepSeek-V3.2-Exp inference/model.py,
    commit 3b99a53, class Indexer), each operator x index_layers / L (the layers that run
    one): H_I d_I queries from the query latent, a cached key of d_I and H_I head weights;
    scores of every causal pair, 2 d_I + 3 FLOP a pair and head (dot, ReLU, weight, sum), each
    sequence's keys read once and the fp32 scores written, then read by the top k."""
    if not m.index_layers:  # dense attention: no indexer
        return []
    n, H, dI, pairs = batch * T, m.index_heads, m.index_head_dim, batch * causal_pairs(T, S)
    ops = [_matmul("indexer Q projection", n, m.q_lora_rank or m.d_model, H * dI, dt),
           _matmul("indexer K projection", n, m.d_model, dI, dt, to_cache=True),
           _rmsnorm("indexer K norm", n, dI, dt),
           _matmul("indexer head weights", n, m.d_model, H, dt),
           Op("indexer scores", "attention", pairs * H * (2 * dI + 3), 0.0,
              n * H * dI * dt.act_bytes + 8 * pairs, batch * S * dI * dt.kv_bytes)]  # fmt: skip
    share = m.index_layers / m.n_layers
    return [Op(o.name, o.kind, *(share * x for x in (o.flops, o.weight_bytes, o.act_bytes,
               o.kv_bytes))) for o in ops]  # fmt: skip


def _linear_ops(m: Model, batch: int, T: int, dt: DTypes) -> list[Op]:
    """A Gated DeltaNet layer for B T tokens: in projection; conv (2 c FLOP a channel) and delta
    rule, 7 dk dv FLOP a token and value head (decay S, read S^T k, write k delta^T, read S^T q;
    prefill's chunks' own products left out), each state read and written once; norm; out."""
    (K, V, state), n, a = _linear_widths(m), batch * T, dt.act_bytes
    Hv, c = m.linear_heads, m.linear_conv
    flops = n * (2 * (2 * K + V) * c + 7 * state)
    # the state, as activations: split with its heads over the tensor-parallel GPUs
    moved = n * (2 * K + 3 * V + 2 * Hv) * a + 2 * batch * state_bytes(m, dt) / m.linear_layers
    return [
        _matmul("linear-attention in projection", n, m.d_model, 2 * K + 2 * V + 2 * Hv, dt),
        Op("convolution and delta rule", "recurrence", flops, (2 * K + V) * c * dt.w_bytes, moved),
        _rmsnorm("gated norm", n * Hv, m.linear_value_dim, dt),
        _matmul("linear-attention out projection", n, V, m.d_model, dt)]  # fmt: skip


def _projection_ops(m: Model, n: int, dt: DTypes) -> list[Op]:
    """Q, K, V projections; latent attention: queries via r_q, the cached latent, absorbed."""
    d = m.d_model
    if not m.kv_lora_rank:
        return [
            _matmul("Q projection", n, d, m.q_dim * (1 + m.attention_gate), dt),  # gates too
            _matmul("K projection", n, d, m.kv_dim, dt, to_cache=True),
            _matmul("V projection", n, d, m.kv_dim, dt, to_cache=True)]  # fmt: skip
    r_q, r_kv = m.q_lora_rank, m.kv_lora_rank
    if r_q:  # each latent is normalised before its up projection (and the cache)
        ops = [
            _matmul("Q down projection", n, d, r_q, dt),
            _rmsnorm("Q latent norm", n, r_q, dt),
            _matmul("Q up projection", n, r_q, m.q_dim, dt)]  # fmt: skip
    else:
        ops = [_matmul("Q projection", n, d, m.q_dim, dt)]
    up = m.n_heads * (m.d_head - m.rope_head_dim + (m.v_head_dim or m.d_head))
    ops.append(_matmul("KV down projection", n, d, m.cache_width, dt, to_cache=True))
    ops.append(_rmsnorm("KV latent norm", n, r_kv, dt))
    ops.append(_matmul("KV up projection (absorbed)", n, r_kv, up, dt))
    return ops


def _mlp_ops(m: Model, n: int, d_ff: int, dt: DTypes, prefix: str = "") -> list[Op]:
    """A (gated) MLP of width d_ff for n rows; routed experts ('expert ') run n k rows with the
    weights of experts_touched(n, k, E) experts."""
    expert, gated, d, a = prefix == "expert ", m.gated_mlp, m.d_model, dt.act_bytes
    rows = n * m.experts_per_token if expert else n
    touched = experts_touched(n, m.experts_per_token, m.n_experts) if expert else 0.0

    def mm(name: str, K: int, N: int) -> Op:
        if not expert:
            return _matmul(prefix + name, n, K, N, dt)
        w, x = touched * K * N * dt.e_bytes, (rows if name == "down projection" else n) * K
        return Op(prefix + name, "matmul", 2.0 * rows * K * N, w, rows * (K + N) * a, inputs=x)

    act = SILU_FLOPS_PER_ELEM + op_counts.GATE_FLOPS_PER_ELEM if gated else SILU_FLOPS_PER_ELEM
    return [
        *([mm("gate projection", d, d_ff)] if gated else []),
        mm("up projection", d, d_ff),
        # silu(g) * u reads g and u and writes one tensor; a plain activation reads one
        Op(prefix + ("SiLU x up" if gated else "activation"), "elementwise", act * rows * d_ff,
           act_bytes=(3 if gated else 2) * rows * d_ff * a),
        mm("down projection", d_ff, d),
    ]  # fmt: skip


#: A mixture's routing around its experts: each token's top k of the router's E scores, and
#: the sum of its k experts' outputs weighted by them (kernels of their own in every engine).
ROUTING_OPS = ("router top-k", "top-k weighted sum")


def layer_ops(model: Model, batch: int, new_tokens: int, context: int, dtypes: DTypes | None = None,
              materialized: bool = False, window: int = 0, dense: bool = False,
              ) -> tuple[Op, ...]:  # fmt: skip
    """Operators of one decoder layer for B sequences of T new tokens over S cached ones
    (window 0: full attention; dense: a mixture's dense layer, its MLP of width d_ff)."""
    dt = dtypes or DTypes()
    B, T, S = batch, new_tokens, context
    n, d, a = B * T, model.d_model, dt.act_bytes
    post = model.norms_per_layer > 2  # Gemma: a norm after attention and after the MLP too
    add = Op("residual add", "elementwise", n * d, act_bytes=3 * n * d * a)  # read 2, write 1
    heads = ((model.n_heads, "Q"), (model.n_kv_heads, "K")) if model.qk_norm else ()
    qk = [_rmsnorm(f"{w} norm", n * h, model.d_head, dt) for h, w in heads]  # gains of d_head
    o, gated = n * model.v_dim, model.attention_gate  # sigmoid(gate) x o: read 2, write 1
    gate = [Op("output gate", "elementwise", SILU_FLOPS_PER_ELEM * o, act_bytes=3 * o * a)] * gated
    mixer = _linear_ops(model, B, T, dt) if window == LINEAR else [
        *_projection_ops(model, n, dt), *qk, *_indexer_ops(model, B, T, S, dt),
        *_attention_ops(model, B, T, S, dt, materialized, window), *gate,
        _matmul("output projection", n, model.v_dim, d, dt)]  # fmt: skip
    ops = [
        _rmsnorm("attention norm", n, d, dt), *mixer,
        *[_rmsnorm("post-attention norm", n, d, dt)] * post, add, _rmsnorm("MLP norm", n, d, dt),
    ]  # fmt: skip
    if model.n_experts and not dense:  # the router (d -> E), its top-k (a softmax over E, k
        # weights and ids out), each token's k experts, their weighted sum, shared ones
        E, k, mac = model.n_experts, model.experts_per_token, op_counts.FLOPS_PER_MULTIPLY_ADD
        top = Op(ROUTING_OPS[0], "elementwise", op_counts.SOFTMAX_FLOPS_PER_ELEM * n * E,
                 act_bytes=(n * E + 2 * n * k) * a)  # fmt: skip
        total = Op(ROUTING_OPS[1], "elementwise", mac * n * k * d, act_bytes=(n * k + n) * d * a)
        ops += [_matmul("router", n, d, E, dt), top]
        ops += [*_mlp_ops(model, n, model.d_ff_expert, dt, "expert "), total]
        ops += _mlp_ops(model, n, model.d_ff_shared, dt, "shared ") if model.d_ff_shared else []
    else:
        ops += _mlp_ops(model, n, model.d_ff, dt)
    return (*ops, *[_rmsnorm("post-MLP norm", n, d, dt)] * post, add)


def model_ops(
    model: Model, batch: int, new_tokens: int, dtypes: DTypes | None = None
) -> tuple[Op, ...]:
    """Once-per-model operators: embedding lookup (B T rows), final norm and LM head (B rows)."""
    dt = dtypes or DTypes()
    B, T, d, w = batch, new_tokens, model.d_model, dt.at_head.w_bytes
    return (
        Op("embedding lookup", "lookup", 0.0, B * T * d * w, B * T * d * dt.act_bytes),
        _rmsnorm("final norm", B, d, dt),
        _matmul("LM head", B, d, model.vocab_size, dt.at_head))  # fmt: skip


def _total(attr: str, doc: str) -> property:  # pragma: no mutate block (called at import)
    """A pass's total of operator field `attr`: sum of op.attr x how often op runs."""
    return property(lambda p: sum(getattr(op, attr) * c for op, c in p.counted()), doc=doc)


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
    #: other kinds of layer (sliding-window, a mixture's dense ones), each with its count;
    #: `layer` runs n_layers minus their counts times
    variants: tuple[tuple[tuple[Op, ...], int], ...] = ()

    def counted(self) -> list[tuple[Op, int]]:
        """Every operator with how often it runs per pass (n_layers, or once)."""
        L = self.model.n_layers - sum(c for _, c in self.variants)
        rows = [(op, L) for op in self.layer]
        rows += [(op, c) for ops, c in self.variants for op in ops]
        return rows + [(op, 1) for op in self.once]

    flops = _total("flops", "Total FLOPs of the pass: L x (per-layer sum) + model-level ops.")
    nbytes = _total("nbytes", "Total bytes moved by the pass.")
    weight_bytes = _total("weight_bytes", "Weight bytes read by the pass.")
    act_bytes = _total("act_bytes", "Activation bytes read and written by the pass.")
    kv_bytes = _total("kv_bytes", "KV-cache bytes read and written by the pass.")

    @property
    def tokens(self) -> int:
        """Tokens processed: batch x new tokens."""
        return self.batch * self.new_tokens

    def kind_total(self, kind: str, attr: str = "flops") -> float:
        """Sum of `attr` over operators of one kind ('matmul', 'attention', ...)."""
        return sum(getattr(op, attr) * c for op, c in self.counted() if op.kind == kind)


def _pass(
    phase: str, m: Model, batch: int, T: int, S: int, dt: DTypes | None, mat: bool, once: tuple
) -> PassLedger:
    """A pass's ledger: each kind of layer's operators and the model-level model_ops(*once)."""
    dt = dt or DTypes()
    kinds = [(layer_ops(m, batch, T, S, dt, mat, w, dn), c) for w, dn, c in layer_groups(m)]
    once_ops = model_ops(m, *once, dt)
    return PassLedger(phase, m, batch, T, S, dt, mat, kinds[0][0], once_ops, tuple(kinds[1:]))


def prefill_ledger(
    model: Model, batch: int, seq: int, dtypes: DTypes | None = None, materialized: bool = False
) -> PassLedger:
    """Prefill: B sequences of S prompt tokens in one pass (T = S new tokens, causal)."""
    return _pass("prefill", model, batch, seq, seq, dtypes, materialized, (batch, seq))


def decode_ledger(
    model: Model, batch: int, context: int, dtypes: DTypes | None = None, materialized: bool = False
) -> PassLedger:
    """Decode: one new token for each of B sequences whose cache then holds S tokens."""
    return _pass("decode", model, batch, 1, context, dtypes, materialized, (batch, 1))


def verify_ledger(
    model: Model, batch: int, new_tokens: int, context: int, dtypes: DTypes | None = None
) -> PassLedger:
    """A speculative verify pass: T new tokens for each of B sequences whose cache then
    holds S (T <= S), with the LM head on every one of the B T tokens (each is checked)."""
    return _pass(
        "verify", model, batch, new_tokens, context, dtypes, False, (batch * new_tokens, 1)
    )


# --- Speed ledger: time bounds on a chip -------------------------------------
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
    """Model, chip, the precision of the peak FLOP/s, the storage `dtypes` and the attention
    kernel (`materialized`): what a whole-model time bound needs besides the workload."""

    model: Model
    chip: Chip
    precision: str = "bf16"
    dtypes: DTypes = field(default_factory=DTypes)
    materialized: bool = False


def tpot_lower_bound(setup: Deployment, batch: int, context: int) -> float:
    """Time per output token >= decode pass time at batch B and context S, in seconds."""
    decode = decode_ledger(setup.model, batch, context, setup.dtypes, setup.materialized)
    return pass_time(decode, setup.chip, setup.precision)


# --- Capacity ledger ---------------------------------------------------------
def activation_bytes_per_token(model: Model, act_bytes: float = 2) -> float:
    """Peak live activations per active token: 16 x d_model x bytes (the article's rule)."""
    return ACT_VECTORS_PER_TOKEN * model.d_model * act_bytes


def model_memory_ledger(model: Model, batch: int, context: int, dtypes: DTypes | None = None,
                        overhead_rate: float = LLM_OVERHEAD_RATE,
                        phase: str = "decode") -> ledger.MemoryLedger:  # fmt: skip
    """N b_w + B kv_cache_elements(S) b_kv + T a + rho x (sum), in bytes; T = B in decode,
    B S in prefill (2 B S L Hkv dh b_kv without windows or a latent cache)."""
    dt = dtypes or DTypes()
    w = parameter_count(model) * dt.w_bytes
    kv = batch * (kv_cache_elements(model, context) * dt.kv_bytes + state_bytes(model, dt))
    tokens = batch if phase == "decode" else batch * context
    act = tokens * activation_bytes_per_token(model, dt.act_bytes)
    return ledger.MemoryLedger(w, kv, act, overhead_rate * (w + kv + act))


def largest_batch(
    model: Model, chip: Chip, context: int, dtypes: DTypes | None = None, phase: str = "decode"
) -> int:
    """Largest B whose memory ledger (LLM overhead rate) fits the chip at context S; 0 if none."""
    return ledger.largest_batch_that_fits(
        chip.mem_capacity, lambda b: model_memory_ledger(model, b, context, dtypes, phase=phase)
    )


# --- When decode's weight matmuls turn compute-bound -------------------------
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
    m, dt = model, dtypes or DTypes()
    a, w, kv, L, d = dt.act_bytes, dt.w_bytes, dt.kv_bytes, m.n_layers, m.d_model
    q, k = m.q_dim, m.kv_dim
    qkvo = [("Q", d, q, a), ("K", d, k, kv), ("V", d, k, kv), ("output", q, d, a)]
    mlp = [*[("gate", d, m.d_ff, a)] * m.gated_mlp, ("up", d, m.d_ff, a), ("down", m.d_ff, d, a)]
    shapes = [MatmulShape(f"{n} projection", K, N, a, w, out, L) for n, K, N, out in qkvo + mlp]
    return [*shapes, MatmulShape("LM head", d, m.vocab_size, a, dt.at_head.w_bytes, a, 1)]


def matmul_critical_batches(
    model: Model, ridge: float, dtypes: DTypes | None = None
) -> list[tuple[MatmulShape, int | None]]:
    """Each weight matmul's roofline.critical_batch: smallest B with 2BKN / D(B) >= I*."""
    return [
        (s, roofline.critical_batch(s.K, s.N, ridge, s.x_bytes, s.w_bytes, s.out_bytes))
        for s in weight_matmul_shapes(model, dtypes)]  # fmt: skip


def decode_critical_batch(model: Model, ridge: float, dtypes: DTypes | None = None) -> int | None:
    """Smallest B with sum 2BKN / sum (B(Kx + N out) + KNw) >= I* over all weight matmuls."""
    shapes = weight_matmul_shapes(model, dtypes)
    W = sum(s.count * s.K * s.N for s in shapes)  # multiply-adds per token
    A = sum(s.count * (s.K * s.x_bytes + s.N * s.out_bytes) for s in shapes)  # bytes per token
    Wb = sum(s.count * s.K * s.N * s.w_bytes for s in shapes)  # weight bytes, once per step
    # Intensity 2BW / (BA + Wb) rises towards 2W / A as B grows.
    solved = linear_threshold(2.0 * W, A, Wb, ridge)
    return None if solved is None else smallest_integer_reaching(solved[1], solved[0])


# --- Curves for the figure ---------------------------------------------------
def batch_grid(hi: int, per_decade: int = 24) -> list[int]:
    """Distinct integers from 1 to hi, spaced evenly in log10 (hi itself included)."""
    steps = max(1, math.ceil(math.log10(hi) * per_decade))
    return sorted({1, hi, *(round(10 ** (math.log10(hi) * i / steps)) for i in range(1, steps))})


def decode_throughput_curve(
    setup: Deployment, context: int, batches: Iterable[int]
) -> list[tuple[int, float]]:
    """(B, tokens/s bound) for each batch B: B / TPOT(B) on the chip."""
    return [(b, b / tpot_lower_bound(setup, b, context)) for b in batches]


def expert_intensity(model: Model, tokens: int, dtypes: DTypes | None = None) -> float:
    """FLOP per byte of a routed expert matmul X[n k, d] W_e[d, f] at n tokens:
    2 n k d f / (E_touched(n) d f w + n k (d + f) a), with E_touched of ``experts_touched``."""
    m, dt = model, dtypes or DTypes()
    d, f, k = m.d_model, m.d_ff_expert, m.experts_per_token
    touched = experts_touched(tokens, k, m.n_experts)
    flops = 2.0 * tokens * k * d * f
    return flops / (touched * d * f * dt.e_bytes + tokens * k * (d + f) * dt.act_bytes)


def expert_critical_batch(model: Model, ridge: float, dtypes: DTypes | None = None) -> int | None:
    """Smallest batch n at which the routed experts' matmuls reach the ridge I*."""
    m, dt = model, dtypes or DTypes()
    d, f, k, E = m.d_model, m.d_ff_expert, m.experts_per_token, m.n_experts
    dense = roofline.critical_batch(d, f, ridge, dt.act_bytes, dt.e_bytes, dt.act_bytes)
    if dense is None:
        return None
    start = dense * E / k  # pragma: no mutate (where the exact search starts: its speed only)
    return smallest_integer_reaching(lambda n: expert_intensity(m, n, dt) >= ridge, start)
