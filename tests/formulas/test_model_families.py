"""The model families of --config: counts by hand on tiny configs, released models against
their published totals, and the mixtures' and latent attention's ledgers by hand."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from published_configs import ALL, GEMMA_3_4B
from published_configs import DEEPSEEK_V3 as PUBLISHED

from common.formulas import transformer as tf
from common.tables import configs
from common.tables.configs import model_from_config
from common.tables.models import DEEPSEEK_V3, MIXTRAL_8X7B, MOE_MODELS, QWEN3_30B_A3B

BASE = {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
        "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100,
        "max_position_embeddings": 64, "tie_word_embeddings": False}  # fmt: skip
MIXTRAL = {"model_type": "mixtral", "hidden_size": 16, "num_hidden_layers": 2,
           "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 24,
           "num_local_experts": 4, "num_experts_per_tok": 2, "vocab_size": 10,
           "max_position_embeddings": 64}  # fmt: skip
# Gated DeltaNet: 2 key heads and 4 value heads of 4 (K = 8, V = 16), conv 4; layer 0 linear,
# layer 1 full (every second); 2 heads of 8 and 1 KV head attend in full, the queries gated.
GDN = {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "head_dim": 8,
       "num_key_value_heads": 1, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
       "linear_key_head_dim": 4, "linear_value_head_dim": 4, "full_attention_interval": 2,
       "vocab_size": 10, "max_position_embeddings": 64}  # fmt: skip
NEXT = {**GDN, "model_type": "qwen3_next", "num_experts": 4, "num_experts_per_tok": 2,
        "moe_intermediate_size": 8, "shared_expert_intermediate_size": 12}  # fmt: skip
DEEPSEEK = {"model_type": "deepseek_v3", "hidden_size": 16, "num_hidden_layers": 3,
            "num_attention_heads": 2, "q_lora_rank": 8, "kv_lora_rank": 6,
            "qk_rope_head_dim": 2, "qk_nope_head_dim": 4, "v_head_dim": 4,
            "intermediate_size": 32, "moe_intermediate_size": 8, "n_routed_experts": 4,
            "num_experts_per_tok": 2, "n_shared_experts": 1, "first_k_dense_replace": 1,
            "vocab_size": 10, "max_position_embeddings": 64}  # fmt: skip
DSA = {**DEEPSEEK, "model_type": "deepseek_v32", "index_n_heads": 2, "index_head_dim": 4,
       "index_topk": 8}  # fmt: skip

# (config, total, active) counted by hand; d = hidden size, dh = head size.
TINY = {
    # d 64, 4 heads of 16, 2 KV heads: q 64*64 + k, v 2*64*32 + o 64*64 = 12,288; gated MLP
    # 3*64*128 = 24,576; norms 2*64 + 64; embedding and LM head 100*64 each.
    "llama": ({**BASE, "model_type": "llama"}, 12288 + 24576 + 192 + 2 * 6400, None),
    "mistral": ({**BASE, "model_type": "mistral", "sliding_window": 8}, 49856, None),
    # qwen2 adds q, k, v biases: 64 + 32 + 32.
    "qwen2": ({**BASE, "model_type": "qwen2"}, 49856 + 128, None),
    # qwen3, head_dim 32 (not 64 / 4), 2 layers, tied, d_ff 96, V 50: q 64*128, k, v
    # 2*64*64, o 128*64 = 24,576; q/k norms 2*32; MLP 3*64*96 = 18,432; norms 128:
    # 43,200 a layer, x2, + final norm 64 + embedding 50*64.
    "qwen3": ({**BASE, "model_type": "qwen3", "num_hidden_layers": 2, "head_dim": 32,
               "intermediate_size": 96, "vocab_size": 50, "tie_word_embeddings": True},
              2 * 43200 + 64 + 3200, None),
    # phi3 with 4 KV heads: attention 4*64*64 = 16,384 (fused qkv holds the same counts).
    "phi3": ({**BASE, "model_type": "phi3", "num_key_value_heads": 4},
             16384 + 24576 + 192 + 12800, None),
    # gemma2 with Gemma2Config's defaults: 4 KV heads, head_dim 256, tied. d 32, 8 heads:
    # q 32*2048, k, v 2*32*1024, o 2048*32 = 196,608; MLP 3*32*64 = 6,144; four norms 128:
    # 202,880 a layer, x2, + final 32 + embedding 10*32.
    "gemma2": ({"model_type": "gemma2", "hidden_size": 32, "num_hidden_layers": 2,
                "num_attention_heads": 8, "intermediate_size": 64, "vocab_size": 10},
               2 * 202880 + 32 + 320, None),
    # gemma3 nested, with Gemma3TextConfig's 8 heads, 4 KV heads, head_dim 256: d 16:
    # q, k, v, o 4*32,768... = 98,304; q/k norms 512; MLP 3*16*32 = 1,536; norms 64:
    # 100,416 a layer, x6, + final 16 + embedding 20*16.
    "gemma3": ({"model_type": "gemma3", "text_config": {"hidden_size": 16, "vocab_size": 20,
                "intermediate_size": 32, "num_hidden_layers": 6}}, 6 * 100416 + 16 + 320, None),
    # mixtral: d 16, 2 heads of 8, 1 KV head: attention 256 + 2*128 + 256 = 768; 4 experts
    # 4*3*16*24 = 4,608; router 4*16; norms 32: 5,472 a layer, x2, + 16 + 2*10*16.
    # Active: 2 of 4 experts, so 2 layers x 2 idle x 1,152 fewer.
    "mixtral": (MIXTRAL, 2 * 5472 + 16 + 320, 2 * 5472 + 16 + 320 - 2 * 2 * 1152),
    # qwen2_moe: d 16, 2 heads of 8 (MHA): attention 256 + 2*128 + 256... = 1,024, biases 48,
    # shared_expert_gate 16; experts 4*3*16*8 = 1,536; shared expert 3*16*12 = 576;
    # router 64; norms 32: 3,296 a layer, x2, + 16 + 320. Active: 2 x 2 idle x 384 fewer.
    "qwen2_moe": ({"model_type": "qwen2_moe", "hidden_size": 16, "num_hidden_layers": 2,
                   "num_attention_heads": 2, "intermediate_size": 40, "moe_intermediate_size": 8,
                   "shared_expert_intermediate_size": 12, "num_experts": 4,
                   "num_experts_per_tok": 2, "vocab_size": 10, "max_position_embeddings": 64},
                  2 * 3296 + 336, 2 * 3296 + 336 - 2 * 2 * 384),
    # deepseek_v3: queries 16*8 + 8 + 8*2*6 = 232; latent 16*(6 + 2) + 6 + 6*2*(4 + 4) = 230;
    # output 2*4*16 = 128: 590 a layer, x3. Layer 0 dense 3*16*32 = 1,536; layers 1-2:
    # experts 4*3*16*8 = 1,536, shared 3*16*8 = 384, router 4*16 + 4 biases: 1,988 each.
    # Norms 3*32 + 16; embedding and head 2*160. Active: 2 layers x 2 idle x 384 fewer.
    "deepseek_v3": (DEEPSEEK, 3 * 590 + 1536 + 2 * 1988 + 96 + 16 + 320,
                    3 * 590 + 1536 + 2 * 1988 + 96 + 16 + 320 - 2 * 2 * 384),
    # deepseek_v32: deepseek_v3's 3*590 + 1,536 + 2*1,988 = 7,282 and an indexer a layer:
    # queries from the query latent 8*(2*4), head weights 16*2, its key 16*4 and the key's
    # LayerNorm 2*4: 168, x3. glm_moe_dsa's schedule (every 2nd from layer 1: GlmMoeDsaConfig's
    # rule) gives layers 0 and 2 one, layer 1 none.
    "deepseek_v32": (DSA, 7282 + 3 * 168 + 432, 7282 + 3 * 168 + 432 - 1536),
    "glm_moe_dsa": ({**DSA, "model_type": "glm_moe_dsa", "index_topk_freq": 2,
                     "index_skip_topk_offset": 1}, 7282 + 2 * 168 + 432, 7282 + 336 + 432 - 1536),
    # gpt_oss: d 16, 2 heads of 4, 1 KV head: q 16*8, k, v 2*16*4, o 8*16 = 384; biases
    # 8 + 4 + 4 + 16 = 32; sinks 2; experts 4*3*16*8 = 1,536 and their biases 4*(16 + 16);
    # router 64 + 4; norms 32: 2,182 a layer, x2, + 16 + 320. Active: 2 x 2 idle x 384 fewer.
    "gpt_oss": ({"model_type": "gpt_oss", "hidden_size": 16, "num_hidden_layers": 2,
                 "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
                 "intermediate_size": 8, "num_local_experts": 4, "experts_per_token": 2,
                 "vocab_size": 10, "max_position_embeddings": 64, "sliding_window": 4,
                 "layer_types": ["sliding_attention", "full_attention"]},
                2 * 2182 + 336, 2 * 2182 + 336 - 2 * 2 * 384),
    # glm4_moe, DeepSeek-V3's experts on grouped-query attention with biases and q/k norms:
    # d 16, 2 heads of 8, 1 KV head: q 16*16, k, v 2*16*8, o 16*16 = 768, biases 16 + 8 + 8,
    # norms 2*8: 816 a layer, x2. Layer 0 dense 3*16*32 = 1,536; layer 1 as DeepSeek's, 1,988.
    # Norms 2*32 + 16; embedding and head 2*160. Active: 1 layer x 2 idle x 384 fewer.
    "glm4_moe": ({**DEEPSEEK, "model_type": "glm4_moe", "num_hidden_layers": 2, "head_dim": 8,
                  "num_key_value_heads": 1, "attention_bias": True, "use_qk_norm": True},
                 2 * 816 + 1536 + 1988 + 80 + 320, 2 * 816 + 1536 + 1988 + 80 + 320 - 768),
    # minimax_m2: mixtral's + a routing bias per expert, 4, and q/k norms across the heads,
    # 2*8 + 8: 5,500 a layer. Active: 2 x 2 idle x 1,152 fewer.
    "minimax_m2": ({**MIXTRAL, "model_type": "minimax_m2"}, 2 * 5500 + 336, 11336 - 4 * 1152),
    # mistral3 nests a mistral text model: its count (a vision tower is not read)
    "mistral3": ({"model_type": "mistral3", "text_config": {**BASE, "model_type": "mistral"}},
                 49856, None),
    # qwen3_next: full layer q 16*32 (gates too), k, v 2*16*8, o 16*16 = 1,024, q/k norms 16;
    # linear layer in 16*(8 + 8 + 16 + 16 + 4 + 4) = 896, conv (8 + 8 + 16)*4 = 128, decay and
    # step 8, norm 4, out 16*16 = 256: 1,292; each layer experts 4*3*16*8 = 1,536, shared
    # 3*16*12 = 576, router 64, shared gate 16, norms 32; + 16 + 320. Active: 2 x 2 x 384 fewer.
    "qwen3_next": (NEXT, 1040 + 1292 + 2 * 2224 + 336, 7116 - 4 * 384),
    # qwen3_5 nests a dense qwen3_5_text: the same two mixers, an MLP of 3*16*24 each
    "qwen3_5": ({"model_type": "qwen3_5", "text_config": {**GDN, "model_type": "qwen3_5_text",
                 "intermediate_size": 24}}, 1040 + 1292 + 2 * (1152 + 32) + 336, None),
    # llama4 nested, every second layer routed (1 and 3), each with a shared expert: d 16,
    # 2 heads of 8, 1 KV head: attention 768 a layer, x4; routed 4*3*16*8 + shared 384 +
    # router 64 = 1,984, x2; dense 3*16*32 = 1,536, x2; norms 4*32 + 16; embedding and head
    # 2*160. Active: 2 layers x 3 idle x 384 fewer.
    "llama4": ({"model_type": "llama4", "text_config": {
                    "hidden_size": 16, "num_hidden_layers": 4, "num_attention_heads": 2,
                    "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 8,
                    "intermediate_size_mlp": 32, "num_local_experts": 4,
                    "interleave_moe_layer_step": 2, "vocab_size": 10,
                    "max_position_embeddings": 64}},
               4 * 768 + 2 * 1984 + 2 * 1536 + 144 + 320, 10576 - 2 * 3 * 384),
    # gpt2: d 64, 4 heads, n_inner 4*64: attention 4*64*64, MLP 2*64*256, norms 2*64 + 64
    # (biases left out), one tied embedding 100*64.
    "gpt2": ({"model_type": "gpt2", "n_embd": 64, "n_layer": 1, "n_head": 4, "vocab_size": 100},
             16384 + 32768 + 192 + 6400, None),
    # gemma (1): head_dim and tying left out are GemmaConfig's 256 and True: attention 3*8192
    "gemma": ({"model_type": "gemma", "hidden_size": 16, "num_hidden_layers": 1, "vocab_size": 10,
               "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 8},
              24576 + 384 + 48 + 160, None),
    # opt: the same, but ffn_dim left out is OPTConfig's 3,072, not 4 d: MLP 2*64*3072
    "opt": ({"model_type": "opt", "hidden_size": 64, "num_hidden_layers": 1,
             "num_attention_heads": 4, "vocab_size": 100}, 16384 + 393216 + 192 + 6400, None),
}  # fmt: skip


@pytest.mark.parametrize("family", list(TINY))
def test_each_family_counts_its_parameters_by_hand(family: str) -> None:
    config, total, active = TINY[family]
    m = model_from_config(config, f"{family}.json")
    assert tf.parameter_count(m) == total
    assert tf.active_parameter_count(m) == (total if active is None else active)


@pytest.mark.parametrize("key", list(ALL))
def test_released_models_match_their_published_counts(key: str) -> None:
    """Within one unit of the published figure's last printed digit."""
    p = ALL[key]
    m = model_from_config(p.config, f"{key}.json")
    assert m.name.removesuffix(" (text model)") == p.config["architectures"][0]
    assert tf.parameter_count(m) == pytest.approx(p.total, abs=p.digits)
    if p.active is not None:
        embedding = m.vocab_size * m.d_model if p.active_excludes_embedding else 0
        assert tf.active_parameter_count(m) - embedding == pytest.approx(p.active, abs=p.digits)


def test_no_shared_expert_llama4_chunks_and_refusals_naming_file_key_value(tmp_path) -> None:
    # DeepSeek-V3 with n_shared_experts 0: the tiny count less its 2 MoE layers' shared 384.
    m = model_from_config({**DEEPSEEK, "n_shared_experts": 0})
    total, active = TINY["deepseek_v3"][1:]
    assert (tf.parameter_count(m), tf.active_parameter_count(m)) == (total - 768, active - 768)
    # Llama 4: the RoPE layers (all but every fourth) attend in chunks, read as a window
    text = TINY["llama4"][0]["text_config"]
    l4 = model_from_config({"model_type": "llama4_text", **text})
    assert (l4.sliding_window, l4.sliding_layers, l4.dense_layers) == (8192, 3, 2)
    with pytest.raises(ValueError, match=r"'no_rope_layers' must hold 0 or 1 for 4 layers$"):
        model_from_config({"model_type": "llama4_text", **text, "no_rope_layers": [1, 2, 1, 0]})
    with pytest.raises(ValueError, match=r"^my\.json lacks 'hidden_size' \(llama family\)$"):
        model_from_config({k: v for k, v in BASE.items() if k != "hidden_size"}, "my.json")
    with pytest.raises(ValueError, match=r"'num_hidden_layers' must .*, got 'two'$"):
        model_from_config({**BASE, "num_hidden_layers": "two"})
    # A file of exactly MAX_BYTES is read; its path names a refusal of what it holds.
    path = tmp_path / "exact.json"
    text = json.dumps({**BASE, "architectures": ["Exact"]})
    path.write_text(text + " " * (configs.MAX_BYTES - len(text)))
    assert configs.read_config(path).name == "Exact"
    path.write_text(json.dumps({**BASE, "model_type": "qwen2", "num_hidden_layers": None}))
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))} lacks 'num_hidden_layers'"):
        configs.read_config(path)
    # Qwen2-MoE honours use_sliding_window as Qwen2 does: both layers slide on a window of 4.
    qwen = {**TINY["qwen2_moe"][0], "use_sliding_window": True, "sliding_window": 4}
    m = model_from_config(qwen | {"max_window_layers": 0})
    assert (m.sliding_window, m.sliding_layers) == (4, 2)


def test_configs_read_the_library_defaults_and_the_family_their_architectures_name() -> None:
    m = model_from_config(GEMMA_3_4B.config, "gemma-3-4b.json")
    assert (m.n_heads, m.n_kv_heads, m.d_head, m.vocab_size) == (8, 4, 256, 262208)
    assert (m.max_context, m.sliding_window, m.sliding_layers) == (131072, 1024, 34 - 34 // 6)
    parts = tf.parameter_breakdown(m)
    body = tf.parameter_count(m) - parts["embedding"] - parts["lm_head"]
    assert body == pytest.approx(GEMMA_3_4B.total, abs=GEMMA_3_4B.digits)
    assert m.tied_embeddings and m.name == "Gemma3ForConditionalGeneration (text model)"
    # Kimi K2 ships model_type "kimi_k2" with DeepSeek-V3's model class: read as deepseek_v3
    # (DeepSeek-V3's published config pinned above gives 671B); an unknown class is refused.
    own_config = PUBLISHED.config | {"model_type": "kimi_k2"}
    own = model_from_config(own_config, "kimi.json")
    assert tf.parameter_count(own) == pytest.approx(PUBLISHED.total, abs=PUBLISHED.digits)
    assert own.kv_lora_rank == PUBLISHED.config["kv_lora_rank"]
    unknown = PUBLISHED.config | {"model_type": "kimi_k2", "architectures": ["KimiForCausalLM"]}
    with pytest.raises(ValueError, match="unsupported model_type 'kimi_k2'"):
        model_from_config(unknown, "kimi.json")
    # a config without model_type whose class is Mixtral's is Mixtral, not a dense Llama
    bare = {k: v for k, v in MIXTRAL.items() if k != "model_type"}
    classed = model_from_config(bare | {"architectures": ["MixtralForCausalLM"]})
    assert tf.parameter_count(classed) == tf.parameter_count(model_from_config(MIXTRAL))
    assert classed.n_experts == MIXTRAL["num_local_experts"] > 0
    # Kimi K2.5 wraps it as a text_config that names DeepSeek-V3's class the same way
    wrapper = {"architectures": ["KimiK25ForConditionalGeneration"], "model_type": "kimi_k25"}
    nested = model_from_config(wrapper | {"text_config": own_config}, "k25.json")
    assert tf.parameter_count(nested) == tf.parameter_count(own)
    assert nested.name == "KimiK25ForConditionalGeneration (text model)"
    with pytest.raises(ValueError, match=r"'kimi_k2' in k25\.json's text_config"):
        model_from_config(wrapper | {"text_config": unknown}, "k25.json")
    # transformers' GptOssConfig defaults sliding_window to 128, and its layer_types alternate
    # sliding and full from layer 0: 24 layers slide on 12.
    keys = ("sliding_window", "layer_types")
    config = {k: v for k, v in ALL["gpt-oss-20b"].config.items() if k not in keys}
    m = model_from_config(config, "gpt-oss.json")
    assert (m.sliding_window, m.sliding_layers) == (128, 12)
    m = model_from_config(config | {"sliding_window": 64}, "gpt-oss.json")  # a stated window
    assert (m.sliding_window, m.sliding_layers) == (64, 12)
    # DeepSeek-V2-Lite's config says q_lora_rank null (queries projected in full): the same config
    # as DEEPSEEK above with the key absent or null has no q compression.
    for rank in ({}, {"q_lora_rank": None}):
        config = {k: v for k, v in DEEPSEEK.items() if k != "q_lora_rank"} | rank
        assert model_from_config(config, "lite.json").q_lora_rank == 0


def test_sparse_attention_reads_its_top_k_and_its_indexer_every_cached_key() -> None:
    # A decode step at S = 20 cached: 2 heads score the top 8 latents of 6 + 2 (2 bytes each);
    # the indexer's 2 heads score all 20 keys of 4, 2 x 4 + 3 FLOP a pair and head.
    for family, layers in (("deepseek_v32", 3), ("glm_moe_dsa", 2)):
        m = model_from_config(TINY[family][0])
        ops = {op.name: op for op in tf.layer_ops(m, 1, 1, 20)}
        assert (ops["scores Q K^T"].flops, ops["scores Q K^T"].kv_bytes) == (2 * 8 * 2 * 8, 128)
        indexer = ops["indexer scores"]  # on `layers` of 3, each layer's carrying that share
        assert indexer.kv_bytes == pytest.approx(layers / 3 * 20 * 4 * 2)
        assert indexer.flops == pytest.approx(layers / 3 * 20 * 2 * 11)
        assert tf.kv_cache_elements(m, 20) == 3 * 20 * 8 + layers * 20 * 4
        assert tf.kv_cache_bytes_per_token(m, 2) == 2 * (3 * 8 + layers * 4)
        # a prompt of 20: query i attends to min(i, 8) keys, 36 + 12 x 8 pairs
        prompt = {op.name: op for op in tf.layer_ops(m, 1, 20, 20)}
        assert prompt["scores Q K^T"].flops == 2 * (36 + 12 * 8) * 2 * 8
    # Two prompts of 5 (10 tokens, d 16, q latent 8, 2 x 4 indexer dims), in 2-byte cells:
    # Q 2 x 10 x 8 x 8, K 2 x 10 x 16 x 4 (80 B to the cache), head weights 2 x 10 x 16 x 2;
    # 2 x 15 pairs x 2 heads x 11 FLOP, reading 10 x 8 queries and writing 30 fp32 scores
    ops = {op.name: op for op in tf.layer_ops(model_from_config(DSA), 2, 5, 5)}
    got = [(ops[f"indexer {k}"].flops, ops[f"indexer {k}"].kv_bytes) for k in ("Q projection",
           "K projection", "head weights", "scores")]  # fmt: skip
    assert got == [(1280, 0), (1280, 80), (640, 0), (660, 80)]
    assert (ops["indexer scores"].act_bytes, ops["indexer scores"].kind) == (400, "attention")
    with pytest.raises(ValueError, match=r"'indexer_types' must list 'full' or 'shared' .* 3 "):
        model_from_config({**DSA, "indexer_types": ["shared"] * 3})


@pytest.mark.parametrize("model", list(MOE_MODELS.values()), ids=lambda m: m.key)
def test_the_tables_mixtures_are_their_published_configs(model) -> None:
    p = ALL[model.key]
    assert model_from_config(p.config).__dict__ | {"name": "", "config_source": ""} == (
        model.__dict__
        | {"name": "", "key": "config", "config_source": "", "published_params": None}
        | {"params_source": "", "published_active": None}
    )
    assert tf.parameter_count(model) == pytest.approx(model.published_params, abs=p.digits)
    assert tf.active_parameter_count(model) == pytest.approx(model.published_active, abs=p.digits)


def test_expected_distinct_experts_by_hand_and_by_enumeration() -> None:
    assert tf.experts_touched(1, 2, 8) == pytest.approx(2)  # one token: exactly its k
    assert tf.experts_touched(2, 2, 8) == pytest.approx(8 * (1 - 0.75**2))  # 3.5
    # every choice of 2 of 4 experts for 2 tokens, enumerated: test_moe_routing
    assert tf.experts_touched(10**6, 8, 256) == pytest.approx(256)
    m = model_from_config(MIXTRAL)
    # Per layer: norms 2*16, q 256, k 128, v 128, o 256, router 4*16 = 864 weights, and
    # each touched expert 3*16*24 = 1,152; once: embedding rows B*16, final norm 16, head 160.
    for batch, touched in ((1, 2.0), (64, 4 * (1 - 0.5**64))):
        step = tf.decode_ledger(m, batch, 10)
        by_hand = 2 * (864 + touched * 1152) + batch * 16 + 16 + 160
        assert step.weight_bytes == pytest.approx(2 * by_hand)  # bf16: 2 bytes each
        experts = sum(op.flops * c for op, c in step.counted() if op.name.startswith("expert "))
        flops_by_hand = 2 * (3 * 2 * batch * 2 * 16 * 24)  # 2 layers x 3 matmuls x 2 B k d f
        silu_x_up = 2 * batch * 2 * 24 * 5  # SiLU (4 FLOP) and the product (1) on B k f
        assert experts == pytest.approx(flops_by_hand + silu_x_up)
    d, f, L, V = 4096, 14336, 32, 32000
    dense = L * (2 * d + 2 * d * 4096 + 2 * d * 1024 + 8 * d) + d + V * d  # norms..router
    for batch, touched in ((1, 2), (256, 8)):
        step = tf.decode_ledger(MIXTRAL_8X7B, batch, 512)
        by_hand = 2 * (dense + L * touched * 3 * d * f + batch * d)
        assert step.weight_bytes == pytest.approx(by_hand, rel=1e-9)
    step = tf.decode_ledger(QWEN3_30B_A3B, 1, 100)
    held = tf.parameter_count(QWEN3_30B_A3B) * 2
    # Active weights only (the embedding as one row, not the table; the q/k norm operators
    # read their 48 x 256 gains): about 3.04B x 2 bytes.
    active = tf.active_parameter_count(QWEN3_30B_A3B) - 151936 * 2048 + 2048
    assert step.weight_bytes == pytest.approx(2 * active) and step.weight_bytes < held / 9
    config = {**TINY["qwen2_moe"][0], "model_type": "qwen3_moe", "num_hidden_layers": 4,
              "decoder_sparse_step": 2, "mlp_only_layers": [3]}  # fmt: skip
    m = model_from_config(config)
    assert (m.dense_layers, m.moe_layers, m.d_ff_shared) == (3, 1, 0)
    with pytest.raises(ValueError, match="'mlp_only_layers' must be a list of layer indices"):
        model_from_config({**config, "mlp_only_layers": [4]})
    assert tf.kv_cache_elements(DEEPSEEK_V3, 1000) == 1000 * 61 * 576
    assert tf.model_memory_ledger(DEEPSEEK_V3, 2, 1000).kv_cache == 2 * 1000 * 61 * 576 * 2
    # gpt_oss tiny: one sliding layer (window 4) and one full; 1 KV head of 4: K and V 8.
    gpt = model_from_config(TINY["gpt_oss"][0])
    assert tf.kv_cache_elements(gpt, 20) == (4 + 20) * 8
    assert tf.kv_cache_elements(gpt, 3) == (3 + 3) * 8
    # The cache a decode step reads: the sliding layer only its window.
    step = tf.decode_ledger(gpt, 1, 20)
    reads = sum(op.kv_bytes * c for op, c in step.counted() if op.kind == "attention")
    assert reads == 2 * (4 + 20) * 8  # bf16, K and V of 4 + 20 tokens


def test_every_norm_a_family_applies_is_an_operator_of_its_layer() -> None:
    # RMSNorm: 4 FLOP an element. DeepSeek-V3 normalises its query (1536) and KV (512)
    # latents; Qwen3 each of 32 query and 4 key heads of 128; Gemma 3 (d = 2560) also
    # normalises after attention and after the MLP; Llama none of these.
    gemma = model_from_config(GEMMA_3_4B.config)  # 8 query heads and 4 KV heads of 256
    cases = ((DEEPSEEK_V3, {"Q latent norm": 4 * 1536, "KV latent norm": 4 * 512}),
             (QWEN3_30B_A3B, {"Q norm": 4 * 32 * 128, "K norm": 4 * 4 * 128}),
             (gemma, {"Q norm": 4 * 8 * 256, "K norm": 4 * 4 * 256,
                      "post-attention norm": 4 * 2560, "post-MLP norm": 4 * 2560}),
             (model_from_config({**BASE, "model_type": "llama"}), {}))  # fmt: skip
    for model, flops in cases:
        ops = tf.layer_ops(model, 1, 1, 8)
        pre = {f"{w} norm": 4 * model.d_model for w in ("attention", "MLP")}
        assert {o.name: o.flops for o in ops if o.kind == "norm"} == {**pre, **flops}
        assert sum(o.kind == "norm" for o in ops) == 2 + len(flops)  # each once


def test_a_gated_deltanet_layer_keeps_a_state_not_a_cache() -> None:
    m, dt = model_from_config(NEXT), tf.DTypes()
    # state 4 heads x 4 x 4 = 64 elements of 2 B (4 B under mamba_ssm_dtype float32), and the
    # conv's last 3 taps of 8 + 8 + 16 channels of 2 B; the full layer alone caches K and V
    assert (m.linear_layers, tf.state_bytes(m, dt), tf.kv_cache_elements(m, 10)) == (1, 320, 160)
    assert tf.state_bytes(model_from_config({**NEXT, "mamba_ssm_dtype": "float32"}), dt) == 448
    # decode, batch 2: 2 x ((2 x 32 x 4 conv) + 7 x 64 rule) FLOP; q, k, v, z, b, a in, o out
    # (2 x 72 x 2 B) and each state read and written (2 x 2 x 320)
    rule = [o for o in tf.decode_ledger(m, 2, 10).variants[0][0] if o.kind == "recurrence"]
    assert [(o.flops, o.nbytes) for o in rule] == [(2 * (256 + 448), 288 + 1280 + 32 * 4 * 2)]
    full = {o.name: o for o in tf.decode_ledger(m, 2, 10).layer}
    assert full["Q projection"].weight_bytes == 16 * 32 * 2 and "output gate" in full
    state = [model_from_config({**NEXT, "layer_types": t}).linear_layers for t in
             (["full_attention", "full_attention"], ["linear_attention"] * 2)]  # fmt: skip
    assert state == [0, 2]


@pytest.mark.parametrize(("T", "S", "W"), [(1, 1, 3), (1, 9, 3), (9, 9, 3), (4, 9, 3), (5, 5, 8)])
def test_windowed_causal_pairs_by_brute_force(T: int, S: int, W: int) -> None:
    assert tf.causal_pairs(T, S, W) == sum(min(p + 1, W) for p in range(S - T, S))
    assert tf.causal_pairs(T, S) == sum(p + 1 for p in range(S - T, S))
    assert isinstance(tf.causal_pairs(T, S), int)


# gpt-oss's hub config.json (both sizes): its experts in MXFP4, the layers it names left bf16.
GPT_OSS_QUANT = {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn",
                 "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]}  # fmt: skip


@pytest.mark.parametrize(("layers", "experts", "gib"), [(24, 32, "12.8"), (36, 128, "60.8")])
def test_a_checkpoint_weighs_what_its_quantization_config_stores(layers, experts, gib) -> None:
    # OpenAI's gpt-oss model card (arXiv 2508.10925), table 1: checkpoint size 12.8 GiB (20b)
    # and 60.8 GiB (120b: the 20b's config with 36 layers of 128 experts)
    config = {**ALL["gpt-oss-20b"].config, "num_hidden_layers": layers,
              "num_local_experts": experts, "quantization_config": GPT_OSS_QUANT,
              "layer_types": ["sliding_attention", "full_attention"] * (layers // 2)}  # fmt: skip
    m = model_from_config(config)
    assert (m.quant_weights, m.quant_experts) == ("", "mxfp4")
    assert f"{tf.weight_bytes(m, tf.DTypes(experts=m.quant_experts)) / 2**30:.1f}" == gib
    # a decode step of one token reads its 4 experts' 3 x 2880 x 2880 weights at 4.25 bits
    ops = {o.name: o for o in tf.layer_ops(m, 1, 1, 8, tf.DTypes(experts="mxfp4"))}
    assert ops["expert up projection"].weight_bytes == 4 * 2880 * 2880 * 17 / 32
    assert ops["Q projection"].weight_bytes == 2880 * 64 * 64 * 2
    read = {"fp8": "fp8", "awq": "int4", "compressed-tensors": "fp8", "modelopt": "nvfp4",
            "bitsandbytes": "int4"}  # fmt: skip
    group = {"weights": {"num_bits": 8, "type": "float"}}
    extra = {"bits": 4, "quant_algo": "NVFP4", "config_groups": {"group_0": group},
             "load_in_4bit": True}  # fmt: skip
    for method, fmt in read.items():  # every linear layer where attention is not left out
        m = model_from_config({**config, "quantization_config": {"quant_method": method, **extra}})
        assert (m.quant_weights, m.quant_experts) == (fmt, "")
    m = model_from_config({**BASE, "quantization_config": {"quant_method": "hqq"}})
    assert (m.quant_weights, m.quant_experts) == ("", "")
    said = "quantization_config's quant_method 'hqq' is not read: its weights taken as 16-bit"
    assert m.quantization == said
    dense = model_from_config({**BASE, "quantization_config": {"quant_method": "fp8",
                                                               "ignore": ["attn"]}})  # fmt: skip
    assert dense.quantization.endswith("in fp8 (its 16-bit attention counted in fp8 too)")


def test_a_qwen3_vl_config_reads_its_text_model_and_the_outer_tie() -> None:
    # Qwen/Qwen3-VL-30B-A3B-Instruct's config.json (hub commit 1fc78ad, as a public parser test
    # transcribes it): Qwen3-30B-A3B's text shape but the window, the tie at the top level only
    text = {k: v for k, v in ALL["qwen3-30b-a3b"].config.items() if k != "tie_word_embeddings"}
    vl = {"model_type": "qwen3_vl_moe", "tie_word_embeddings": False, "text_config": {
        **text, "model_type": "qwen3_vl_moe_text", "max_position_embeddings": 262144}}  # fmt: skip
    assert round(tf.parameter_count(model_from_config(vl)) / 1e8) == 305  # published: 30.5 B
    text = {k: v for k, v in BASE.items() if k != "tie_word_embeddings"}
    dense = {"model_type": "qwen3_vl", "tie_word_embeddings": True,
             "text_config": {**text, "model_type": "qwen3_vl_text", "head_dim": 16}}  # fmt: skip
    assert model_from_config(dense).tied_embeddings


WORDS = st.sampled_from(["fp8", "mxfp4", "awq", "bitsandbytes", "self_attn", "bits", "type",
                         "quant_method", "load_in_4bit", "config_groups", "weights"])  # fmt: skip
JSON = st.recursive(st.none() | st.booleans() | st.integers() | WORDS, lambda i: st.lists(
    i, max_size=3) | st.dictionaries(WORDS, i, max_size=4), max_leaves=12)  # fmt: skip


@given(WORDS, st.dictionaries(WORDS, JSON, max_size=4) | JSON)
def test_any_quantization_config_is_read_or_said_unread_and_never_weighs_more(method, q) -> None:
    q = {"quant_method": method, **q} if isinstance(q, dict) else q  # a method, and anything else
    m = model_from_config({**ALL["gpt-oss-20b"].config, "quantization_config": q})
    dt = tf.DTypes(m.quant_weights or "bf16", experts=m.quant_experts)
    assert tf.weight_bytes(m, dt) <= tf.weight_bytes(m, tf.DTypes())  # never above bf16's
    said = m.quant_weights or m.quant_experts or "is not read" in m.quantization
    assert (q is None) == (m.quantization == "") and (q is None or said)
