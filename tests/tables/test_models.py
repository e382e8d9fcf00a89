"""The model table: values match the published config.json files, lookups and what-if twins."""

from __future__ import annotations

import dataclasses

import pytest
import reference
from conftest import assert_frozen

from common.tables import models


@pytest.mark.parametrize("key", list(reference.MODEL_CONFIGS))
def test_table_matches_published_config(key: str) -> None:
    m = models.MODELS[key]
    fields = "n_layers d_model n_heads n_kv_heads d_head d_ff gated_mlp vocab_size "
    fields += "tied_embeddings max_context published_params"
    assert tuple(getattr(m, f) for f in fields.split()) == reference.MODEL_CONFIGS[key]
    assert m.d_head * m.n_heads == m.d_model  # Llama: head_dim = hidden_size / heads
    _, _, heads, kv_heads, dh, *_ = reference.MODEL_CONFIGS[key]
    assert m.q_dim == heads * dh
    assert m.kv_dim == kv_heads * dh
    kind = "MHA" if kv_heads == heads else ("MQA" if kv_heads == 1 else "GQA")
    assert m.attention_kind == kind
    assert "meta-llama/" in m.config_source and "Hugging Face" in m.params_source


def test_the_table_holds_the_three_models() -> None:
    assert list(models.MODELS) == list(reference.MODEL_CONFIGS)
    assert [m.name for m in models.MODELS.values()] == ["Llama-2-7B", "Llama-3-8B", "Llama-3-70B"]
    assert "meta-llama/Meta-Llama-3-8B, file config.json" in models.LLAMA_3_8B.config_source
    assert models.with_kv_heads(models.LLAMA_3_70B, 2).attention_kind == "GQA"
    assert models.with_kv_heads(models.LLAMA_3_70B, 64).attention_kind == "MHA"
    assert models.with_kv_heads(models.LLAMA_3_8B, 1).attention_kind == "MQA"
    with pytest.raises(ValueError, match="llama-2-7b, llama-3-8b, llama-3-70b"):
        models.get_model("gpt-5")
    assert models.get_model("Mixtral-8x7B") is models.MIXTRAL_8X7B
    assert models.get_model("deepseek-v3").attention_kind == "MLA"
    assert not set(models.MOE_MODELS) & set(models.MODELS)
    # DeepSeek-V3 caches 512 + 64 elements per token and layer (not 2 x 128 x 192).
    assert models.DEEPSEEK_V3.cache_width == 576 and models.DEEPSEEK_V3.v_dim == 128 * 128
    assert models.MIXTRAL_8X7B.moe_layers == 32 and models.DEEPSEEK_V3.moe_layers == 61 - 3
    assert dataclasses.replace(models.LLAMA_3_8B, n_layers=1024).n_layers == 1024  # the most layers
    with pytest.raises(ValueError, match="n_layers"):
        dataclasses.replace(models.LLAMA_3_8B, n_layers=1025)
    assert dataclasses.replace(models.LLAMA_3_8B, published_params=0.5).published_params == 0.5
    assert_frozen(models.LLAMA_3_8B)
    twin = models.with_full_mha(models.LLAMA_3_70B)
    assert twin.n_kv_heads == twin.n_heads == 64
    assert twin.published_params is None
    assert "MHA" in twin.name and twin.key != models.LLAMA_3_70B.key
    # Every other shape is the same model.
    same = ("n_layers", "d_model", "n_heads", "d_head", "d_ff", "vocab_size", "max_context")
    for field in same:
        assert getattr(twin, field) == getattr(models.LLAMA_3_70B, field)
    assert models.with_full_mha(models.LLAMA_2_7B) is models.LLAMA_2_7B  # already MHA
    assert twin.name == "Llama-3-70B (MHA)" and twin.key == "llama-3-70b-kv64"
    four = models.with_kv_heads(models.LLAMA_3_70B, 4)
    assert (four.name, four.key) == ("Llama-3-70B (4 KV heads)", "llama-3-70b-kv4")
    assert four.n_kv_heads == 4
    assert "what-if" in four.note and four.params_source == ""
    assert models.LLAMA_3_70B.n_kv_heads == 8  # the table itself is untouched (frozen)
    for kv_heads, words in ((5, "multiple of KV heads"), (0, "positive integer")):
        with pytest.raises(ValueError, match=words):
            models.with_kv_heads(models.LLAMA_3_8B, kv_heads)
    for name in ("llama-3-8b", "Llama-3-8B", "LLAMA_3_8B", " llama 3 8b "):
        assert models.get_model(name) is models.LLAMA_3_8B
    bad = [({"n_layers": 0}, ""), ({"d_model": -1}, ""), ({"d_ff": 1.5}, ""),
           ({"vocab_size": True}, ""), ({"published_params": 0}, ""),
           ({"n_heads": 8.0}, r"n_heads must be a positive integer, got 8\.0"),
           ({"vocab_size": 2**24 + 1}, "vocab_size must be at most 16,777,216")]  # fmt: skip
    for change, words in bad:
        with pytest.raises(ValueError, match="Llama-3-8B: " + words):
            dataclasses.replace(models.LLAMA_3_8B, **change)


LINEAR = {f"linear_{size}": 1 for size in ("heads", "key_heads", "key_dim", "value_dim", "conv")}


@pytest.mark.parametrize(("fields", "words"), [
    ({"n_experts": 8, "experts_per_token": 9, "d_ff_expert": 8}, "experts_per_token must be"),
    ({"n_experts": 8, "experts_per_token": 2}, "needs d_ff_expert"),
    ({"sliding_layers": 2}, "needs a sliding_window"),
    ({"dense_layers": 33}, "dense_layers exceeds n_layers"),
    # a mixture whose 32 layers are all dense: its experts sit in no layer
    ({"n_experts": 8, "experts_per_token": 2, "d_ff_expert": 8, "dense_layers": 32}, "no MoE"),
    # 20 sliding + 13 Gated DeltaNet layers of 32
    ({"sliding_layers": 20, "sliding_window": 8, "linear_layers": 13, **LINEAR}, r"\+ linear"),
    ({"kv_lora_rank": 512, "rope_head_dim": 128}, "0 < rope_head_dim < d_head"),
    ({"n_experts": -1}, "n_experts must be a whole number >= 0"),
    ({"published_active": 0}, "published_active must be > 0"),
])  # fmt: skip
def test_a_mixture_or_latent_record_out_of_shape_is_one_line(fields, words) -> None:
    with pytest.raises(ValueError, match=words):
        dataclasses.replace(models.LLAMA_3_8B, **fields)
