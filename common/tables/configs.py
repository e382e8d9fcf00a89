"""A Hugging Face ``config.json`` as a model record (``common.tables.models.Model``).

The families read are `FAMILIES`, by ``model_type``; a key a config leaves out takes the
default of its family's transformers configuration class (cited below), or is required.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from common.tables.models import Model

MAX_BYTES = 1 << 20  # a config.json is a few KiB; refuse to read more than 1 MiB
LARGEST = 2**31 - 1  # no config key of a released model comes near (windows reach ~10**7)
REQUIRED = object()

LLAMA_TYPES = ("llama", "mistral", "ministral3", "qwen2", "qwen3", "phi3", "qwen3_5_text",
               "qwen3_vl_text", "gemma")  # fmt: skip
GEMMA_TYPES = ("gemma2", "gemma3", "gemma3_text")
LLAMA4_TYPES = ("llama4", "llama4_text")  # the multimodal config nests the text model's
DSA_TYPES = ("deepseek_v32", "glm_moe_dsa")  # DeepSeek-V3's latent attention, made sparse
LATENT = ("deepseek_v3", *DSA_TYPES)
MOE_TYPES = ("mixtral", "qwen2_moe", "qwen3_moe", *LATENT, "gpt_oss", "glm4_moe", "minimax_m2",
             "qwen3_next", "qwen3_5_moe_text", "qwen3_vl_moe_text", *LLAMA4_TYPES)  # fmt: skip
HYBRID = ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text")  # Gated DeltaNet + full attention
FAMILIES = (*LLAMA_TYPES, *GEMMA_TYPES, *MOE_TYPES, "gpt2", "opt")
LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention")  # the ledger's
# A model that ships its own model_type (Kimi K2's "kimi_k2", also in Kimi K2.5's text_config)
# but names a family's model class in ``architectures`` is read as that family:
# transformers' class names (modeling_<family>.py) for the families above.
ARCHITECTURES = {
    "LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral", "Qwen2ForCausalLM": "qwen2",
    "Qwen3ForCausalLM": "qwen3", "Phi3ForCausalLM": "phi3", "Gemma2ForCausalLM": "gemma2",
    "Gemma3ForCausalLM": "gemma3_text", "Gemma3ForConditionalGeneration": "gemma3",
    "MixtralForCausalLM": "mixtral", "Qwen2MoeForCausalLM": "qwen2_moe",
    "Qwen3MoeForCausalLM": "qwen3_moe", "DeepseekV3ForCausalLM": "deepseek_v3",
    "GptOssForCausalLM": "gpt_oss", "Glm4MoeForCausalLM": "glm4_moe", "GPT2LMHeadModel": "gpt2",
    "Llama4ForConditionalGeneration": "llama4", "Llama4ForCausalLM": "llama4_text",
    "Ministral3ForCausalLM": "ministral3", "MiniMaxM2ForCausalLM": "minimax_m2",
    "Qwen3NextForCausalLM": "qwen3_next", "DeepseekV32ForCausalLM": "deepseek_v32",
    "GlmMoeDsaForCausalLM": "glm_moe_dsa", "OPTForCausalLM": "opt", "GemmaForCausalLM": "gemma",
}  # fmt: skip

# Defaults of transformers' configuration classes (huggingface/transformers,
# src/transformers/models/<family>/configuration_<family>.py, __init__ keyword defaults):
# Gemma2Config's and Gemma3TextConfig's below (Gemma 2 slides on every other layer, the even
# ones; in Gemma 3 layer i is global when (i + 1) % sliding_window_pattern == 0);
# GptOssConfig: sliding_window=128, layer_types alternating sliding and full, sliding first;
# GPT2Config: n_positions=1024, n_inner=None (4 x n_embd); OPTConfig: ffn_dim=3072 (4 x its
#   hidden_size=768), max_position_embeddings=2048, tie_word_embeddings=True; Glm4MoeConfig:
#   attention_bias and use_qk_norm False, DeepSeek-V3's expert keys; MiniMaxM2Config:
#   Mixtral's, q/k norms always (both with a bias per expert for routing);
# LlamaConfig and the others: num_key_value_heads = num_attention_heads,
#   head_dim = hidden_size / num_attention_heads, tie_word_embeddings=False.
# Qwen3NextConfig (Qwen3.5's inherits it): layer i full when (i + 1) % full_attention_interval
QWEN3_NEXT_DEFAULTS = {"head_dim": 256, "full_attention_interval": 4, "linear_conv_kernel_dim": 4,
                       "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                       "linear_num_key_heads": 16, "linear_num_value_heads": 32}  # fmt: skip
LINEAR_KEYS = {"heads": "linear_num_value_heads", "key_heads": "linear_num_key_heads",
               "key_dim": "linear_key_head_dim", "value_dim": "linear_value_head_dim",
               "conv": "linear_conv_kernel_dim"}  # fmt: skip
# GlmMoeDsaConfig: index_n_heads=32, index_head_dim=128, index_topk=2048; each layer runs its
#   indexer ("full") or reuses the last full layer's top k ("shared"), as indexer_types lists
GLM_DSA_DEFAULTS = {"index_n_heads": 32, "index_head_dim": 128, "index_topk": 2048}
# GemmaConfig's (Gemma 1, no sliding window), then Gemma2Config's:
GEMMA_DEFAULTS = {"num_key_value_heads": 16, "head_dim": 256, "max_position_embeddings": 8192,
                  "tie_word_embeddings": True}  # fmt: skip
GEMMA2_DEFAULTS = {"num_key_value_heads": 4, "head_dim": 256, "max_position_embeddings": 8192,
                   "tie_word_embeddings": True, "sliding_window": 4096}  # fmt: skip
# Llama4TextConfig: head_dim 128, one expert a token, every layer routed, chunks of 8,192
#   tokens on the layers with RoPE (all but every fourth), a shared expert beside the routed.
LLAMA4_DEFAULTS = {"head_dim": 128, "num_experts_per_tok": 1, "interleave_moe_layer_step": 1,
                   "attention_chunk_size": 8192, "no_rope_layer_interval": 4}  # fmt: skip
# A checkpoint stored in fewer than 16 bits names its format in quantization_config, which
# vLLM and transformers load it by (transformers src/transformers/utils/quantization_config.py,
# commit 1425768: quant_method 'fp8', 'fbgemm_fp8', 'mxfp4'; AwqConfig's and GPTQConfig's
# 'bits'; CompressedTensorsConfig's config_groups, each group's weights 'num_bits' and 'type';
# BitsAndBytesConfig's 'load_in_4bit' or 'load_in_8bit'; NVIDIA ModelOpt's 'quant_algo').
# Layers it lists as left alone ('modules_to_not_convert', 'ignore', 'exclude_modules',
# 'llm_int8_skip_modules') stay 16-bit: where they include attention, as gpt-oss's config
# ('model.layers.*.self_attn'), the format is the routed experts' alone.
QUANT_FORMATS = {"fp8": "fp8", "fbgemm_fp8": "fp8", "mxfp4": "mxfp4", "awq 4": "int4",
                 "gptq 4": "int4", "awq 8": "int8", "gptq 8": "int8", "modelopt FP8": "fp8",
                 "modelopt NVFP4": "nvfp4", "compressed-tensors 8 float": "fp8",
                 "compressed-tensors 8 int": "int8", "compressed-tensors 4 int": "int4",
                 "compressed-tensors 4 float": "nvfp4", "bitsandbytes 4": "int4",
                 "bitsandbytes 8": "int8"}  # fmt: skip
GEMMA3_DEFAULTS = {"vocab_size": 262208, "num_attention_heads": 8, "num_key_value_heads": 4,
                   "head_dim": 256, "max_position_embeddings": 131072,
                   "tie_word_embeddings": True, "sliding_window": 4096,
                   "sliding_window_pattern": 6}  # fmt: skip


def shown(text: object, most: int = 120) -> str:
    """text, cut in the middle to at most `most` characters (a path, a repr in a message)."""
    s = "".join(c if c.isprintable() else "?" for c in str(text))  # one line, always
    return s if len(s) <= most else f"{s[: most // 2 - 2]}...{s[-(most // 2 - 1) :]}"


class _Keys:
    """One config's keys, read with the family's defaults; errors name the key."""

    def __init__(self, config: Mapping[str, Any], name: str, kind: str, defaults: Mapping) -> None:
        self.config, self.name, self.kind, self.defaults = config, name, kind, defaults

    def has(self, key: str) -> bool:
        return self.config.get(key) is not None or key in self.defaults

    def raw(self, key: str, default: Any = REQUIRED) -> Any:
        value = self.config.get(key)  # null means: the library's default
        value = self.defaults.get(key, default) if value is None else value
        if value is REQUIRED:
            raise ValueError(f"{self.name} lacks {key!r} ({self.kind} family)")
        return value

    def int(self, key: str, default: Any = REQUIRED, least: int = 1) -> int:
        value = self.raw(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= LARGEST:
            raise ValueError(
                f"config key {key!r} must be {'a positive' if least else 'a whole'} integer "
                f"up to {LARGEST:,}, got {shown(repr(value), 40)}")  # fmt: skip
        return value


def _name(config: Mapping[str, Any], path: str) -> str:
    """architectures[0] when it is a name, else the file's stem."""
    arch = config.get("architectures")
    if isinstance(arch, list) and arch and isinstance(arch[0], str) and arch[0].strip():
        return shown(arch[0].strip(), 60)
    return shown(Path(path).stem or "config", 60)


def _sliding(k: _Keys, layers: int) -> tuple[int, int]:
    """(window, layers using it) from layer_types, or the family's pattern."""
    types = k.config.get("layer_types")
    if isinstance(types, list) and types:
        kinds = LAYER_TYPES + ("linear_attention",) * (k.kind in HYBRID)
        if len(types) != layers or not all(t in kinds for t in types):
            raise ValueError(f"config key 'layer_types' must list {kinds} ({layers} layers)")
        n = sum(t in LAYER_TYPES[1:] for t in types)  # sliding or chunked
        window = "attention_chunk_size" if k.kind in LLAMA4_TYPES else "sliding_window"
        return (k.int(window), n) if n else (0, 0)
    if k.kind == "gemma2":
        return k.int("sliding_window"), (layers + 1) // 2  # even layers slide
    if k.kind in ("gemma3", "gemma3_text"):
        return k.int("sliding_window"), layers - layers // k.int("sliding_window_pattern")
    if k.kind == "gpt_oss":
        return k.int("sliding_window", 128), (layers + 1) // 2
    if k.kind in ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe"):
        if k.config.get("use_sliding_window") is not True:
            return 0, 0
        first = k.int("max_window_layers", least=0)  # layers from this index on slide
        return k.int("sliding_window"), max(0, layers - first)
    if k.kind in LLAMA4_TYPES:  # chunked attention on the RoPE layers, read as a window
        rope = k.raw("no_rope_layers", None)  # 1: a layer with RoPE (chunked), 0: a global one
        if rope is None:
            every = k.int("no_rope_layer_interval")
            rope = [int((i + 1) % every != 0) for i in range(layers)]
        if not isinstance(rope, list) or len(rope) < layers or any(r not in (0, 1) for r in rope):
            raise ValueError(f"config key 'no_rope_layers' must hold 0 or 1 for {layers} layers")
        return k.int("attention_chunk_size"), sum(rope[:layers])
    if k.kind in ("mistral", "ministral3", "mixtral", "phi3") and k.has("sliding_window"):
        return k.int("sliding_window"), layers  # every layer
    return 0, 0


#: GPT-2's and OPT's keys for d, heads, layers, MLP width and window; the last two's defaults
#: (None: 4 d).
UNGATED = {"gpt2": (("n_embd", "n_head", "n_layer", "n_inner", "n_positions"), None, 1024),
           "opt": (("hidden_size", "num_attention_heads", "num_hidden_layers", "ffn_dim",
                    "max_position_embeddings"), 3072, 2048)}  # fmt: skip
#: The model record's fields as the configs name them (the Llama keys; GPT-2's after them).
CONFIG_KEYS = {
    "n_layers": ("num_hidden_layers", "n_layer"), "d_model": ("hidden_size", "n_embd"),
    "n_heads": ("num_attention_heads", "n_head"), "n_kv_heads": ("num_key_value_heads",),
    "d_head": ("head_dim",), "d_ff": ("intermediate_size", "n_inner"),
    "vocab_size": ("vocab_size",), "max_context": ("max_position_embeddings", "n_positions"),
}  # fmt: skip


def _quantized(q: object, moe: bool) -> dict[str, str]:
    """The Model fields of a config's quantization_config: its format for the linear layers, or
    for the routed experts alone; none, and words saying so, for a method not read."""
    if q is None:
        return {}
    q = q if isinstance(q, dict) else {}
    method, raw = str(q.get("quant_method")), q.get("quant_method")
    key = f"{method} {q.get('quant_algo' if method == 'modelopt' else 'bits')}"  # awq, gptq
    if method == "compressed-tensors":
        groups = q.get("config_groups")
        groups = [g.get("weights") for g in groups.values() if isinstance(g, dict)] if isinstance(
            groups, dict) else []  # fmt: skip
        kinds = {f"{w.get('num_bits')} {w.get('type')}" for w in groups if isinstance(w, dict)}
        key = f"{method} {kinds.pop()}" if len(kinds) == 1 else method
    if method == "bitsandbytes":  # 4, 8 or 0 bits (neither flag set)
        bits = 4 if q.get("load_in_4bit") is True else 8 * (q.get("load_in_8bit") is True)
        key = f"{method} {bits}"
    fmt = QUANT_FORMATS.get(method) or QUANT_FORMATS.get(key)
    said = f"quantization_config's quant_method {shown(repr(raw), 40)}"
    if fmt is None:
        return {"quantization": f"{said} is not read: its weights taken as 16-bit"}
    left = [str(m) for k in ("modules_to_not_convert", "ignore", "exclude_modules",
                             "llm_int8_skip_modules")
            if isinstance(q.get(k), list) for m in q[k]]  # fmt: skip
    attention = any("attn" in m for m in left)  # left 16-bit: a dense model's counted in fmt
    experts = moe and attention
    what = f"the routed experts in {fmt} (attention left 16-bit)" if experts else (
        f"the linear layers in {fmt}" + f" (its 16-bit attention counted in {fmt} too)"
        * attention)  # fmt: skip
    return {"quant_experts" if experts else "quant_weights": fmt, "quantization": f"{said}: {what}"}


def model_from_config(config: object, path: str = "config.json") -> Model:
    """A Model from a Hugging Face config (a JSON object); ValueError (one line) otherwise,
    naming the config's own key where the model record refuses a value."""
    try:
        return _model(config, path)
    except ValueError as exc:
        text = str(exc)
        gpt2 = isinstance(config, dict) and "n_embd" in config
        for field, keys in CONFIG_KEYS.items():  # GPT-2's own key names come last
            text = text.replace(f": {field} must", f": config key {keys[-gpt2]!r} must")
        raise ValueError(text) from None


def _model(config: object, path: str) -> Model:
    where = shown(path)
    if not isinstance(config, dict):
        raise ValueError(f"{where} must hold a JSON object")
    name = _name(config, path)  # no model_type, or one not read: the family its class names
    quantized, outer = config.get("quantization_config"), config  # beside a text_config
    kind = config.get("model_type", "gpt2" if "n_embd" in config else "llama")
    kind = kind if kind in FAMILIES and "model_type" in config else ARCHITECTURES.get(name, kind)
    text = config.get("text_config")  # a multimodal config: its text model (towers left out)
    if kind in ("gemma3", "llama4") or (kind not in FAMILIES and isinstance(text, dict)):
        if not isinstance(text, dict):
            raise ValueError(f"{where} lacks 'text_config' ({kind} family)")
        kind = kind if kind in FAMILIES else text.get("model_type", kind)
        kind = kind if kind in FAMILIES else ARCHITECTURES.get(_name(text, path), kind)
        name, where, config = f"{name} (text model)", f"{where}'s text_config", text
    if kind not in FAMILIES:
        raise ValueError(f"unsupported model_type {shown(repr(kind), 40)} in {where}; "
                         f"supported: {', '.join(FAMILIES)}")  # fmt: skip
    defaults = {"gemma": GEMMA_DEFAULTS, "gemma2": GEMMA2_DEFAULTS, "gemma3": GEMMA3_DEFAULTS,
                "gemma3_text": GEMMA3_DEFAULTS, **dict.fromkeys(LLAMA4_TYPES, LLAMA4_DEFAULTS),
                **dict.fromkeys(HYBRID, QWEN3_NEXT_DEFAULTS),
                "glm_moe_dsa": GLM_DSA_DEFAULTS}.get(kind, {})  # fmt: skip
    k = _Keys(config, where, kind, defaults)
    if kind in UNGATED:  # GPT-2's and OPT's keys: heads of d / heads, an ungated MLP, tied
        (dk, hk, lk, fk, wk), width, positions = UNGATED[kind]
        d, heads = k.int(dk), k.int(hk)
        if d % heads:
            raise ValueError(f"{where}: {dk} {d} is not a multiple of {hk} {heads}")
        inner, L = k.int(fk, width or 4 * d), k.int(lk)
        V, window = k.int("vocab_size"), k.int(wk, positions)
        tied = k.raw("tie_word_embeddings", True) is True
        return Model(name, "config", L, d, heads, heads, d // heads, inner, False, V, tied,
                     window, f"{where} ({kind} family)")  # fmt: skip
    d, L, heads = k.int("hidden_size"), k.int("num_hidden_layers"), k.int("num_attention_heads")
    kv = k.int("num_key_value_heads", heads)
    if not k.has("head_dim") and d % heads and kind not in LATENT:
        raise ValueError(f"{where}: hidden size {d} is not a multiple of {heads} heads")
    d_head = k.int("head_dim", d // heads) if kind not in LATENT else 0
    if heads % kv:
        raise ValueError(f"config key 'num_attention_heads' ({heads}) must be a multiple of "
                         f"'num_key_value_heads' ({kv})")  # fmt: skip
    fields: dict[str, Any] = {}
    extra = 0
    glm = {key: kind == "glm4_moe" and k.raw(key, False) is True
           for key in ("attention_bias", "use_qk_norm")}  # fmt: skip
    if kind in ("qwen2", "qwen2_moe") or glm["attention_bias"]:  # q, k and v biases
        extra += heads * d_head + 2 * kv * d_head
    qk_norm = kind.startswith(("qwen3", "gemma3", "minimax")) or glm["use_qk_norm"]
    extra += (heads + kv if kind == "minimax_m2" else 2) * d_head * qk_norm  # MiniMax: all heads
    if kind in LATENT:
        rope, nope = k.int("qk_rope_head_dim"), k.int("qk_nope_head_dim")
        d_head, kv = rope + nope, heads  # the latent serves every head
        fields.update(kv_lora_rank=k.int("kv_lora_rank"), q_lora_rank=k.int("q_lora_rank", 0, 0),
                      rope_head_dim=rope, v_head_dim=k.int("v_head_dim"))  # fmt: skip
    if kind in DSA_TYPES:  # indexer_types, else the schedule GlmMoeDsaConfig derives them by
        every, skip = k.int("index_topk_freq", 1), k.int("index_skip_topk_offset", 2, 0)
        types = k.raw("indexer_types", [
            "shared" if max(i - skip + 1, 0) % every else "full" for i in range(L)])  # fmt: skip
        if not isinstance(types, list) or len(types) != L or "full" not in types or any(
                t not in ("full", "shared") for t in types):  # fmt: skip
            raise ValueError(f"config key 'indexer_types' must list 'full' or 'shared' for each "
                             f"of {L} layers, one 'full' at least")  # fmt: skip
        fields.update(index_layers=types.count("full"), index_topk=k.int("index_topk"),
                      index_heads=k.int("index_n_heads"),
                      index_head_dim=k.int("index_head_dim"))  # fmt: skip
    if kind in MOE_TYPES:
        experts = _experts(k, kind, L)
        fields.update(experts)
        if kind == "gpt_oss":  # q, k, v, o biases, one sink per head, each expert's biases
            E, f = experts["n_experts"], experts["d_ff_expert"]
            extra += heads * d_head + 2 * kv * d_head + d + heads + E * (2 * f + d)
        extra += d * (kind in ("qwen2_moe", *HYBRID))  # a shared_expert_gate, d x 1
    dense_ff = "intermediate_size_mlp" if kind in LLAMA4_TYPES else "intermediate_size"
    ff = k.int(dense_ff, fields.get("d_ff_expert", REQUIRED))
    window, sliding = _sliding(k, L)
    if kind in HYBRID:  # how many Gated DeltaNet layers, their sizes; full ones gate their output
        types, every = k.config.get("layer_types"), k.int("full_attention_interval")
        listed = isinstance(types, list) and types  # checked by _sliding; else the interval's
        fields.update(linear_layers=types.count("linear_attention") if listed else L - L // every,
                      state_fp32=k.raw("mamba_ssm_dtype", "") == "float32", attention_gate=True,
                      **{f"linear_{f}": k.int(key) for f, key in LINEAR_KEYS.items()})  # fmt: skip
    tie = k.raw("tie_word_embeddings", outer.get("tie_word_embeddings", False))  # Qwen3-VL's
    if not isinstance(tie, bool):
        raise ValueError(f"config key 'tie_word_embeddings' must be true or false, got {tie!r}")
    return Model(
        name=name, key="config", n_layers=L, d_model=d, n_heads=heads, n_kv_heads=kv,
        d_head=d_head, d_ff=ff, gated_mlp=True, vocab_size=k.int("vocab_size"),
        tied_embeddings=tie, max_context=k.int("max_position_embeddings"),
        config_source=f"{where} ({kind} family)", sliding_window=window, sliding_layers=sliding,
        norms_per_layer=4 if kind in GEMMA_TYPES else 2, extra_layer_params=extra,
        qk_norm=qk_norm, **fields, **_quantized(quantized, kind in MOE_TYPES),
    )  # fmt: skip


def _experts(k: _Keys, kind: str, layers: int) -> dict[str, Any]:
    """A mixture's expert fields (gpt-oss's router, DeepSeek-V3's bias: a bias per expert)."""
    if kind in ("mixtral", "gpt_oss", "minimax_m2", *LLAMA4_TYPES):
        E, f = k.int("num_local_experts"), k.int("intermediate_size")
        top = k.int("experts_per_token" if kind == "gpt_oss" else "num_experts_per_tok")
        fields = {"n_experts": E, "experts_per_token": top, "d_ff_expert": f,
                  "router_bias": kind in ("gpt_oss", "minimax_m2")}  # fmt: skip
        if kind in LLAMA4_TYPES:  # routed layers (i + 1) % step == 0, each with a shared expert
            moe = k.raw("moe_layers", None)
            if moe is None:
                step = k.int("interleave_moe_layer_step")
                moe = list(range(step - 1, layers, step))
            routed = set(_indices(moe, "moe_layers", layers))
            fields.update(d_ff_shared=f, dense_layers=layers - len(routed))
        return fields
    top, f = k.int("num_experts_per_tok"), k.int("moe_intermediate_size")
    if kind in (*LATENT, "glm4_moe"):
        E, shared = k.int("n_routed_experts"), k.int("n_shared_experts", 0, 0) * f
        dense = k.int("first_k_dense_replace", least=0)
    else:  # qwen2_moe, qwen3_moe
        E = k.int("num_experts")
        shared = k.int("shared_expert_intermediate_size") if kind in ("qwen2_moe", *HYBRID) else 0
        step = k.int("decoder_sparse_step", 1)
        dense_only = _indices(k.raw("mlp_only_layers", []), "mlp_only_layers", layers)
        listed = {i for i in dense_only if (i + 1) % step == 0}  # routed: (i + 1) % step == 0
        dense = layers - (layers // step - len(listed))
    if top > E:
        raise ValueError(f"config key 'num_experts_per_tok' ({top}) exceeds the experts ({E})")
    return {"n_experts": E, "experts_per_token": top, "d_ff_expert": f, "d_ff_shared": shared,
            "dense_layers": dense, "router_bias": kind in (*LATENT, "glm4_moe")}  # fmt: skip


def _indices(value: object, key: str, layers: int) -> list[int]:
    """`value` as a list of layer indices; ValueError naming the config key otherwise."""
    if not isinstance(value, list) or not all(type(i) is int and 0 <= i < layers for i in value):
        raise ValueError(f"config key {key!r} must be a list of layer indices")
    return value


def read_config(path: str | os.PathLike) -> Model:
    """The Model of a config.json file (a regular file, at most MAX_BYTES read); ValueError
    in one line naming the config's key for any unreadable or bad one."""
    where = shown(path)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{where} is not a regular file")
        if info.st_size > MAX_BYTES:
            raise ValueError(f"{where} is {info.st_size:,} bytes; a config.json is under 1 MiB")
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES)  # a file that grew since: cut, then refused as JSON
    except OSError as exc:
        raise ValueError(f"cannot read {where}: {exc.strerror or exc}") from None
    try:
        config = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{where} is not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{where} is not valid JSON ({str(exc).split(':')[0]})") from None
    return model_from_config(config, str(path))
