"""The model table: the decoder-only transformers the course sizes, each with its source.

Standard library only, in the style of the hardware table ``common/hw_specs.py``:
every value is a plain literal in one place below, copied from the model's
published ``config.json`` on the Hugging Face hub (field names in the comments).
Edit a number here and rerun lectures 06-08; every dependent number moves with it.

The published parameter counts are a cross-check only: the course derives its own
count from the config (``common.formulas.transformer.parameter_count``) and a test checks
that the two agree.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

from common.tables import slips
from common.tables.validate import positive_int

# ---------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------
CHECKED = "checked 2026-12-01"  # when the course last compared these values with the files


def _config(repo: str) -> str:
    return f"Hugging Face hub, {repo}, file config.json (fields named beside each value); {CHECKED}"


def _size(repo: str, size: str) -> str:
    return f"Hugging Face hub, {repo}, model card's 'Model size' (safetensors): {size}; {CHECKED}"


LLAMA_2_7B_CONFIG = _config("meta-llama/Llama-2-7b-hf")
LLAMA_3_8B_CONFIG = _config("meta-llama/Meta-Llama-3-8B")
LLAMA_3_70B_CONFIG = _config("meta-llama/Meta-Llama-3-70B")
LLAMA_2_7B_SIZE = _size("meta-llama/Llama-2-7b-hf", "6.74B params")
LLAMA_3_8B_SIZE = _size("meta-llama/Meta-Llama-3-8B", "8.03B params")
LLAMA_3_70B_SIZE = _size("meta-llama/Meta-Llama-3-70B", "70.6B params")


#: The largest value each size can mean, so that a typo (vocab_size=10**30) is refused:
#: x12 or more above the table's largest (80 layers, width 8,192, 64 heads, head 128,
#: MLP 28,672, vocabulary 128,256, window 8,192), room for any model to come.
MOST: dict[str, int] = {
    "n_layers": 1024, "d_model": 2**18, "n_heads": 2**14, "n_kv_heads": 2**14,
    "d_head": 2**14, "d_ff": 2**20, "vocab_size": 2**24, "max_context": 2**30,
}  # fmt: skip


@dataclass(frozen=True)
class Model:
    """A decoder-only transformer (pre-norm, RMSNorm, rotary positions, no biases)."""

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

    def __post_init__(self) -> None:
        sizes = "n_layers d_model n_heads n_kv_heads d_head d_ff vocab_size max_context"
        for field in sizes.split():
            value = getattr(self, field)
            if isinstance(value, float):  # a config value is an integer, never 4096.0
                raise ValueError(f"{self.name}: {field} must be a positive integer, got {value!r}")
            if positive_int(value, f"{self.name}: {field}") > MOST[field]:
                raise ValueError(
                    f"{self.name}: {field} must be at most {MOST[field]:,}, got {value:.3g}"
                )
        if self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"{self.name}: query heads ({self.n_heads}) must be a multiple of "
                f"KV heads ({self.n_kv_heads})"
            )
        if self.published_params is not None and not self.published_params > 0:
            raise ValueError(f"{self.name}: published_params must be > 0 or None")

    @property
    def q_dim(self) -> int:
        """Width of the query projection: n_heads x d_head."""
        return self.n_heads * self.d_head

    @property
    def kv_dim(self) -> int:
        """Width of the key (and of the value) projection: n_kv_heads x d_head."""
        return self.n_kv_heads * self.d_head

    @property
    def group_size(self) -> int:
        """Query heads sharing one KV head: n_heads / n_kv_heads (1 = full multi-head)."""
        return self.n_heads // self.n_kv_heads

    @property
    def attention_kind(self) -> str:
        """'MHA' (one KV head per query head), 'MQA' (one KV head) or 'GQA' (in between)."""
        if self.n_kv_heads == self.n_heads:
            return "MHA"
        return "MQA" if self.n_kv_heads == 1 else "GQA"


slips.check_table_source(slips.source_of(globals()), __file__, Model)  # a field lost, a key twice

# ---------------------------------------------------------------------------
# The table. Edit a literal, rerun a lecture.
# ---------------------------------------------------------------------------
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
    config_source=LLAMA_2_7B_CONFIG,
    published_params=6.74e9,
    params_source=LLAMA_2_7B_SIZE,
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
    config_source=LLAMA_3_8B_CONFIG,
    published_params=8.03e9,
    params_source=LLAMA_3_8B_SIZE,
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
    params_source=LLAMA_3_70B_SIZE,
)

MODELS: dict[str, Model] = {m.key: m for m in (LLAMA_2_7B, LLAMA_3_8B, LLAMA_3_70B)}
slips.check_records(globals())  # booleans are True or False


def get_model(name: str) -> Model:
    """Look a model up by key or name, case-insensitively ('llama-3-8b', 'Llama-3-8B')."""
    wanted = str(name).strip().lower().replace("_", "-").replace(" ", "-")
    for model in MODELS.values():
        if wanted in (model.key, model.name.lower()):
            return model
    raise ValueError(f"unknown model {name!r}; choose one of: {', '.join(MODELS)}")


def with_kv_heads(model: Model, n_kv_heads: int) -> Model:
    """The same model with another number of KV heads (a what-if; n_heads must divide evenly)."""
    if not isinstance(model, Model):
        raise ValueError(f"expected a Model, got {model!r}")
    if n_kv_heads == model.n_kv_heads:
        return model
    kind = "MHA" if n_kv_heads == model.n_heads else f"{n_kv_heads} KV heads"
    return dataclasses.replace(
        model,
        name=f"{model.name} ({kind})",
        key=f"{model.key}-kv{n_kv_heads}",
        n_kv_heads=n_kv_heads,
        published_params=None,
        params_source="",
        note=f"{model.name} with {n_kv_heads} KV heads (a what-if, not a released model)",
    )


def with_full_mha(model: Model) -> Model:
    """The same model with full multi-head attention: n_kv_heads = n_heads (for GQA comparisons)."""
    return with_kv_heads(model, model.n_heads)


# ---------------------------------------------------------------------------
# A model as the capacity ledger sees it (the article's 7B is in common.tables.assumptions)
# ---------------------------------------------------------------------------
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
    return dataclasses.replace(
        model,
        name=f"{model.name} / {f}",
        key=f"{model.key}-div{f}",
        n_layers=positive_int(n_layers or max(1, model.n_layers // f), "layers"),
        d_model=model.d_model // f,
        n_heads=max(1, model.n_heads // f),
        n_kv_heads=max(1, model.n_kv_heads // f),
        d_ff=model.d_ff // f,
        vocab_size=model.vocab_size // f,
        published_params=None,
        params_source="",
        note=f"{model.name} with its widths divided by {f} (a what-if, not a released model)",
    )
