"""The model table: the decoder-only transformers the course sizes, each with its source.

Like ``common/hw_specs.py``: each value a literal from the model's ``config.json`` on the
Hugging Face hub (its key beside the field); edit one and rerun lectures 06-08.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, NamedTuple

from common.tables import slips
from common.tables.validate import positive_int

# --- Sources -----------------------------------------------------------------
CHECKED = "checked 2026-12-01"  # when the course last compared these values with the files


def _config(repo: str) -> str:
    return f"Hugging Face hub, {repo}, file config.json (fields named beside each value); {CHECKED}"


def _size(repo: str, size: str) -> str:
    return f"Hugging Face hub, {repo}, model card's 'Model size' (safetensors): {size}; {CHECKED}"


LLAMA_3_70B_CONFIG = _config("meta-llama/Meta-Llama-3-70B")  # also cited by measurements.py


#: The largest value each size can mean, so that a typo (vocab_size=10**30) is refused:
#: x12 or more above the table's largest (80 layers, width 8,192, 64 heads, head 128,
#: MLP 28,672, vocabulary 128,256, window 8,192), room for any model to come.
MOST: dict[str, int] = {
    "n_layers": 1024, "d_model": 2**18, "n_heads": 2**14, "n_kv_heads": 2**14,
    "d_head": 2**14, "d_ff": 2**20, "vocab_size": 2**24, "max_context": 2**30,
}  # fmt: skip


@dataclass(frozen=True)
class Model:
    """A decoder-only transformer (pre-norm, RMSNorm, rotary positions), dense or a
    mixture of experts, with grouped-query or latent attention, full or sliding-window."""

    name: str
    key: str
    n_layers: int  # num_hidden_layers
    d_model: int  # hidden_size
    n_heads: int  # num_attention_heads (query heads)
    n_kv_heads: int  # num_key_value_heads (< n_heads: grouped-query attention)
    d_head: int  # head_dim (hidden_size / num_attention_heads when not given)
    d_ff: int  # intermediate_size
    gated_mlp: bool  # hidden_act silu with gate_proj: down(silu(gate(x)) * up(x))
    vocab_size: int  # vocab_size
    tied_embeddings: bool  # tie_word_embeddings
    max_context: int  # max_position_embeddings
    config_source: str
    published_params: float | None = None
    params_source: str = ""
    note: str = ""
    # Mixture of experts (n_experts 0: every layer has the dense MLP of width d_ff).
    n_experts: int = 0  # num_local_experts, num_experts or n_routed_experts (E)
    experts_per_token: int = 0  # num_experts_per_tok or experts_per_token (k of E)
    d_ff_expert: int = 0  # moe_intermediate_size (intermediate_size for Mixtral, gpt-oss)
    d_ff_shared: int = 0  # shared experts' width, every token: n_shared_experts x d_ff_expert
    dense_layers: int = 0  # first_k_dense_replace: leading layers with the dense MLP
    router_bias: bool = False  # a bias per expert in the router (DeepSeek-V3, gpt-oss)
    # Multi-head latent attention (kv_lora_rank 0: K and V cached per KV head).
    kv_lora_rank: int = 0  # kv_lora_rank: the latent cached per token and layer
    q_lora_rank: int = 0  # q_lora_rank (0: a full-rank query projection)
    rope_head_dim: int = 0  # qk_rope_head_dim, part of d_head = qk_nope + qk_rope, cached
    v_head_dim: int = 0  # v_head_dim (0: d_head)
    # Sliding-window attention: that many layers cache at most the last `sliding_window`.
    sliding_window: int = 0  # sliding_window
    sliding_layers: int = 0  # layers that use it (layer_types, or the family's pattern)
    norms_per_layer: int = 2  # RMSNorm gains of d_model per layer (Gemma 2 and 3: four)
    extra_layer_params: int = 0  # per layer: biases, attention sinks, q/k norm gains (memory)
    qk_norm: bool = False  # an RMSNorm on each query and key head (Qwen3, Gemma 3, some GLM)
    published_active: float | None = None  # parameters a token uses, where published
    # Gated DeltaNet layers (Qwen3-Next, Qwen3.5): no KV cache, a state per sequence instead
    linear_layers: int = 0  # layer_types' "linear_attention"; the other layers attend in full
    linear_heads: int = 0  # linear_num_value_heads (Hv)
    linear_key_heads: int = 0  # linear_num_key_heads (Hk)
    linear_key_dim: int = 0  # linear_key_head_dim (dk)
    linear_value_dim: int = 0  # linear_value_head_dim (dv)
    linear_conv: int = 0  # linear_conv_kernel_dim: a causal convolution over q, k and v
    state_fp32: bool = False  # mamba_ssm_dtype float32: the state in 4 bytes, not the cache's
    attention_gate: bool = False  # the query projection also makes a gate for each output
    # DeepSeek Sparse Attention: an indexer scores every cached token (one key of index_head_dim
    # cached per token), and each query attends to its top index_topk alone
    index_layers: int = 0  # layers with an indexer (indexer_types "full"; "shared" reuse its pick)
    index_topk: int = 0  # index_topk
    index_heads: int = 0  # index_n_heads
    index_head_dim: int = 0  # index_head_dim
    # The checkpoint's format where its config.json has a quantization_config ("": 16-bit)
    quant_weights: str = ""  # its linear layers' (the embedding and LM head stay 16-bit)
    quant_experts: str = ""  # its routed experts' alone (attention left 16-bit, as gpt-oss)
    quantization: str = ""  # what the config says, in words

    def __post_init__(self) -> None:
        counts = [
            f.name for f in dataclasses.fields(self) if f.type == "int" and f.name not in MOST
        ]
        for field, most in MOST.items():
            value = getattr(self, field)
            if isinstance(value, float):  # a config value is an integer, never 4096.0
                raise ValueError(f"{self.name}: {field} must be a positive integer, got {value!r}")
            if positive_int(value, f"{self.name}: {field}") > most:
                raise ValueError(f"{self.name}: {field} must be at most {most:,}, got {value:.3g}")
        for field in counts:  # the optional sizes, 0 when unused
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{self.name}: {field} must be a whole number >= 0, got {value!r}")
        if self.n_experts and not 1 <= self.experts_per_token <= self.n_experts:
            raise ValueError(f"{self.name}: experts_per_token must be 1 to n_experts")
        if self.n_experts and not self.d_ff_expert:
            raise ValueError(f"{self.name}: a mixture of experts needs d_ff_expert")
        if self.dense_layers > self.n_layers - bool(self.n_experts):
            raise ValueError(f"{self.name}: dense_layers exceeds n_layers or leaves no MoE layer")
        if self.sliding_layers + self.linear_layers > self.n_layers:
            raise ValueError(f"{self.name}: sliding + linear layers exceed n_layers")
        if self.sliding_layers and not self.sliding_window:
            raise ValueError(f"{self.name}: sliding_layers needs a sliding_window")
        sizes = (self.linear_heads, self.linear_key_heads, self.linear_key_dim, self.linear_conv)
        if self.linear_layers and not all((*sizes, self.linear_value_dim)):
            raise ValueError(f"{self.name}: linear_layers needs each linear_ size above 0")
        index = (self.index_topk, self.index_heads, self.index_head_dim)
        if self.index_layers and (not all(index) or self.index_layers > self.n_layers):
            raise ValueError(f"{self.name}: index_layers needs each index_ size, at most n_layers")
        if self.kv_lora_rank and not 0 < self.rope_head_dim < self.d_head:
            raise ValueError(f"{self.name}: latent attention needs 0 < rope_head_dim < d_head")
        if self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"{self.name}: query heads ({self.n_heads}) must be a multiple of "
                f"KV heads ({self.n_kv_heads})"
            )
        for field in ("published_params", "published_active"):
            value = getattr(self, field)
            if value is not None and not value > 0:
                raise ValueError(f"{self.name}: {field} must be > 0 or None")

    @property
    def q_dim(self) -> int:
        """Width of the query projection: n_heads x d_head."""
        return self.n_heads * self.d_head

    @property
    def kv_dim(self) -> int:
        """Width of the key (and of the value) projection: n_kv_heads x d_head."""
        return self.n_kv_heads * self.d_head

    @property
    def v_dim(self) -> int:
        """Width of the attention output before the output projection: n_heads x v_head_dim."""
        return self.n_heads * (self.v_head_dim or self.d_head)

    @property
    def moe_layers(self) -> int:
        """Layers whose MLP is routed experts: n_layers - dense_layers (0 for a dense model)."""
        return self.n_layers - self.dense_layers if self.n_experts else 0

    @property
    def cache_width(self) -> int:
        """Elements cached per token and layer: 2 n_kv_heads d_head (K and V), or
        kv_lora_rank + qk_rope_head_dim for latent attention (one latent for K and V)."""
        return self.kv_lora_rank + self.rope_head_dim if self.kv_lora_rank else 2 * self.kv_dim

    @property
    def attention_kind(self) -> str:
        """'MLA' (a cached latent), 'MHA' (a KV head per query head), 'MQA' (one) or 'GQA'."""
        if self.kv_lora_rank:
            return "MLA"
        if self.n_kv_heads == self.n_heads:
            return "MHA"
        return "MQA" if self.n_kv_heads == 1 else "GQA"


slips.check_table_source(slips.source_of(globals()), __file__, Model)  # a field lost, a key twice

# --- The table. Edit a literal, rerun a lecture. -----------------------------
LLAMA_2_7B = Model(
    name="Llama-2-7B",
    key="llama-2-7b",
    n_layers=32,
    d_model=4096,
    n_heads=32,
    n_kv_heads=32,
    d_head=128,
    d_ff=11008,
    gated_mlp=True,
    vocab_size=32000,
    tied_embeddings=False,
    max_context=4096,
    config_source=_config("meta-llama/Llama-2-7b-hf"),
    published_params=6.74e9,
    params_source=_size("meta-llama/Llama-2-7b-hf", "6.74B params"),
)

LLAMA_3_8B = Model(
    name="Llama-3-8B",
    key="llama-3-8b",
    n_layers=32,
    d_model=4096,
    n_heads=32,
    n_kv_heads=8,
    d_head=128,
    d_ff=14336,
    gated_mlp=True,
    vocab_size=128256,
    tied_embeddings=False,
    max_context=8192,
    config_source=_config("meta-llama/Meta-Llama-3-8B"),
    published_params=8.03e9,
    params_source=_size("meta-llama/Meta-Llama-3-8B", "8.03B params"),
)

LLAMA_3_70B = Model(
    name="Llama-3-70B",
    key="llama-3-70b",
    n_layers=80,
    d_model=8192,
    n_heads=64,
    n_kv_heads=8,
    d_head=128,
    d_ff=28672,
    gated_mlp=True,
    vocab_size=128256,
    tied_embeddings=False,
    max_context=8192,
    config_source=LLAMA_3_70B_CONFIG,
    published_params=70.6e9,
    params_source=_size("meta-llama/Meta-Llama-3-70B", "70.6B params"),
)

MIXTRAL_8X7B = Model(
    name="Mixtral-8x7B",
    key="mixtral-8x7b",
    n_layers=32,
    d_model=4096,
    n_heads=32,
    n_kv_heads=8,
    d_head=128,
    d_ff=14336,
    gated_mlp=True,
    vocab_size=32000,
    tied_embeddings=False,
    max_context=32768,
    config_source=_config("mistralai/Mixtral-8x7B-v0.1"),
    published_params=46.7e9,
    params_source=(
        "Mistral AI, 'Mixtral of experts' (blog post, 2023-12-11): 46.7B total parameters, "
        f"12.9B used per token; {CHECKED}"
    ),
    n_experts=8,  # num_local_experts
    experts_per_token=2,  # num_experts_per_tok
    d_ff_expert=14336,  # intermediate_size: each expert is a gated MLP of that width
    published_active=12.9e9,
)

QWEN3_30B_A3B = Model(
    name="Qwen3-30B-A3B",
    key="qwen3-30b-a3b",
    n_layers=48,
    d_model=2048,
    n_heads=32,
    n_kv_heads=4,
    d_head=128,  # head_dim (not hidden_size / heads = 64)
    d_ff=6144,  # intermediate_size (no layer uses it: mlp_only_layers is empty)
    gated_mlp=True,
    vocab_size=151936,
    tied_embeddings=False,
    max_context=40960,
    config_source=_config("Qwen/Qwen3-30B-A3B"),
    published_params=30.5e9,
    params_source=(
        "Hugging Face hub, Qwen/Qwen3-30B-A3B, model card's 'Number of Parameters': 30.5B in "
        f"total and 3.3B activated; {CHECKED}"
    ),
    n_experts=128,  # num_experts
    experts_per_token=8,  # num_experts_per_tok
    d_ff_expert=768,  # moe_intermediate_size
    extra_layer_params=2 * 128,  # q_norm and k_norm, head_dim each
    qk_norm=True,
    published_active=3.3e9,
)

DEEPSEEK_V3 = Model(
    name="DeepSeek-V3",
    key="deepseek-v3",
    n_layers=61,
    d_model=7168,
    n_heads=128,
    n_kv_heads=128,  # num_key_value_heads (latent attention caches no per-head K, V)
    d_head=192,  # qk_nope_head_dim 128 + qk_rope_head_dim 64
    d_ff=18432,  # intermediate_size, the first three layers' dense MLP
    gated_mlp=True,
    vocab_size=129280,
    tied_embeddings=False,
    max_context=163840,
    config_source=_config("deepseek-ai/DeepSeek-V3"),
    published_params=671e9,
    params_source=(
        "DeepSeek-AI, DeepSeek-V3 Technical Report (arXiv 2412.19437), abstract: 671B total "
        "parameters, 37B activated per token (the 14B multi-token-prediction module apart); "
        f"{CHECKED}"
    ),
    n_experts=256,  # n_routed_experts
    experts_per_token=8,  # num_experts_per_tok
    d_ff_expert=2048,  # moe_intermediate_size
    d_ff_shared=2048,  # n_shared_experts 1 x moe_intermediate_size
    dense_layers=3,  # first_k_dense_replace
    kv_lora_rank=512,
    q_lora_rank=1536,
    rope_head_dim=64,  # qk_rope_head_dim
    v_head_dim=128,
    router_bias=True,  # e_score_correction_bias
    published_active=37e9,
)

#: The dense models lectures 06-08 offer (--model); the mixtures of experts apart.
MODELS: dict[str, Model] = {m.key: m for m in (LLAMA_2_7B, LLAMA_3_8B, LLAMA_3_70B)}
MOE_MODELS: dict[str, Model] = {m.key: m for m in (MIXTRAL_8X7B, QWEN3_30B_A3B, DEEPSEEK_V3)}
slips.check_records(globals())  # booleans are True or False


def get_model(name: str) -> Model:
    """Look a model up by key or name, case-insensitively ('llama-3-8b', 'Llama-3-8B')."""
    wanted = str(name).strip().lower().replace("_", "-").replace(" ", "-")
    for model in (*MODELS.values(), *MOE_MODELS.values()):
        if wanted in (model.key, model.name.lower()):
            return model
    raise ValueError(f"unknown model {name!r}; choose one of: {', '.join((*MODELS, *MOE_MODELS))}")


def with_kv_heads(model: Model, n_kv_heads: int) -> Model:
    """The same model with another number of KV heads (a what-if; n_heads must divide evenly)."""
    if n_kv_heads == model.n_kv_heads:
        return model
    kind = "MHA" if n_kv_heads == model.n_heads else f"{n_kv_heads} KV heads"
    return what_if(
        model,
        f"{model.name} ({kind})",
        f"{model.key}-kv{n_kv_heads}",
        f"{model.name} with {n_kv_heads} KV heads (a what-if, not a released model)",
        n_kv_heads=n_kv_heads,
    )


def what_if(model: Model, name: str, key: str, note: str, **changes: Any) -> Model:
    """`model` with `changes` under a new name and key, its published counts dropped."""
    dropped = {"published_params": None, "published_active": None, "params_source": ""}
    return dataclasses.replace(model, name=name, key=key, note=note, **dropped, **changes)


def with_full_mha(model: Model) -> Model:
    """The same model with full multi-head attention: n_kv_heads = n_heads (for GQA comparisons)."""
    return with_kv_heads(model, model.n_heads)


# --- A model as the capacity ledger sees it (the article's 7B is in common.tables.assumptions)
class ModelSpec(NamedTuple):
    """What the capacity ledger needs to know about a model and its requests."""

    name: str
    n_params: float  # parameters
    weight_bytes: float  # bytes per parameter
    n_layers: int
    d_kv: int  # KV heads x head dim, per layer
    kv_bytes: float  # bytes per KV cache element
    seq: int  # tokens per sequence
    act_bytes_per_token: float  # peak live activations per active token


def shrunk(model: Model, factor: int, n_layers: int | None = None) -> Model:
    """A small what-if of the same shape: d_model, d_ff, the vocabulary and both head counts
    (at least 1) divided by `factor`, the head size kept; n_layers (default L / factor)."""
    f = positive_int(factor, "shrink factor")
    return what_if(
        model,
        f"{model.name} / {f}",
        f"{model.key}-div{f}",
        f"{model.name} with its widths divided by {f} (a what-if, not a released model)",
        n_layers=positive_int(n_layers or max(1, model.n_layers // f), "layers"),
        d_model=model.d_model // f,
        n_heads=max(1, model.n_heads // f),
        n_kv_heads=max(1, model.n_kv_heads // f),
        d_ff=model.d_ff // f,
        vocab_size=model.vocab_size // f,
    )


def dense_twin(model: Model) -> Model:
    """A dense model of the same active size: every MLP as wide as the experts a token uses,
    d_ff = k d_ff_expert + d_ff_shared (the router and the idle experts gone); a what-if."""
    if not model.n_experts:
        return model
    return what_if(
        model,
        f"dense {model.name} twin",
        f"{model.key}-dense",
        f"{model.name} with one dense MLP as wide as a token's experts (a what-if)",
        d_ff=model.experts_per_token * model.d_ff_expert + model.d_ff_shared,
        router_bias=False,
        **dict.fromkeys(("n_experts", "experts_per_token", "d_ff_expert", "d_ff_shared"), 0),
        dense_layers=0,
    )
