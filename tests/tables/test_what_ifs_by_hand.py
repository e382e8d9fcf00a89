"""The model table's what-ifs and the config reader's sliding layers, by hand.

Published shapes: Mixtral-8x7B (2 of 8 experts of 14,336), DeepSeek-V3 (8 of 256 routed
experts of 2,048 and one shared, 3 dense layers, biased router), Llama-2-7B (d 4096, 32
heads, d_ff 11,008, vocabulary 32,000, 32 layers), Gemma 2 (local and global attention in
alternate layers, 42 layers in the 9B model).
"""

from __future__ import annotations

import pytest

from common.tables.configs import model_from_config, read_config
from common.tables.models import dense_twin, get_model, shrunk
from tests.published_configs import DEEPSEEK_V3, GEMMA_2_9B, GPT_OSS_20B, QWEN1_5_MOE, QWEN2_5_7B


@pytest.mark.parametrize(("key", "name", "d_ff"), [("mixtral-8x7b", "Mixtral-8x7B", 2 * 14336),
                         ("deepseek-v3", "DeepSeek-V3", 8 * 2048 + 2048)])  # fmt: skip
def test_a_dense_twin_is_as_wide_as_a_tokens_experts_and_routes_nothing(key, name, d_ff) -> None:
    twin = dense_twin(get_model(key))
    assert (twin.name, twin.key, twin.d_ff) == (f"dense {name} twin", f"{key}-dense", d_ff)
    assert (twin.n_experts, twin.experts_per_token, twin.d_ff_expert, twin.d_ff_shared) == (0,) * 4
    assert (twin.dense_layers, twin.router_bias) == (0, False)


def test_a_shrunk_model_divides_its_widths_and_keeps_its_head_size(tmp_path) -> None:
    small = shrunk(get_model("llama-2-7b"), 4)
    assert (small.name, small.key) == ("Llama-2-7B / 4", "llama-2-7b-div4")
    assert (small.d_model, small.n_heads, small.n_kv_heads, small.d_head) == (1024, 8, 8, 128)
    assert (small.d_ff, small.vocab_size, small.n_layers) == (2752, 8000, 8)
    assert shrunk(get_model("llama-2-7b"), 64).n_heads == 1  # 32 / 64 rounds up to one head
    with pytest.raises(ValueError, match=r"^layers must be a positive integer, got -1$"):
        shrunk(get_model("llama-2-7b"), 2, n_layers=-1)
    with pytest.raises(ValueError, match=r"^shrink factor must be a positive integer, got 0$"):
        shrunk(get_model("llama-2-7b"), 0)
    gemma = model_from_config(GEMMA_2_9B.config)
    assert (gemma.sliding_window, gemma.sliding_layers) == (4096, 21)  # every other of 42
    # Qwen2 with its sliding window on: the layers from index max_window_layers on slide
    on = {**QWEN2_5_7B.config, "use_sliding_window": True, "sliding_window": 4096}
    qwen = model_from_config({**on, "max_window_layers": 21})
    assert (qwen.sliding_window, qwen.sliding_layers) == (4096, 28 - 21)
    moe = {**QWEN1_5_MOE.config, "use_sliding_window": True, "sliding_window": 4096}
    assert model_from_config({**moe, "max_window_layers": 20}).sliding_layers == 24 - 20
    gpt_oss = {k: v for k, v in GPT_OSS_20B.config.items() if k != "layer_types"}
    # the model card: banded-window and dense layers alternate, so 12 of 24 slide on 128 tokens
    assert model_from_config(gpt_oss).sliding_layers == 12
    assert model_from_config({**gpt_oss, "num_hidden_layers": 25}).sliding_layers == 13
    three = ["sliding_attention"] * 3 + ["full_attention"] * 21  # layer_types wins over it
    assert model_from_config({**gpt_oss, "layer_types": three}).sliding_layers == 3
    with pytest.raises(ValueError, match="key 'max_window_layers' must be a whole integer up to"):
        model_from_config({**on, "max_window_layers": -1})
    broken = tmp_path / "config.json"
    broken.write_text('{"hidden_size": 4096,', encoding="utf-8")
    with pytest.raises(ValueError, match=r"config\.json is not valid JSON \(Expecting [^:]*\)$"):
        read_config(str(broken))
    mistral = {**QWEN2_5_7B.config, "model_type": "mistral", "sliding_window": 4096}
    m = model_from_config({**mistral, "architectures": ["MistralForCausalLM"]})
    assert (m.sliding_window, m.sliding_layers) == (4096, m.n_layers)
    # DeepSeek-V3: no dense layer is a valid choice, and latent attention sets its own head
    # widths, so a hidden size that is no multiple of the 128 heads is accepted
    assert model_from_config({**DEEPSEEK_V3.config, "first_k_dense_replace": 0}).dense_layers == 0
    assert model_from_config({**DEEPSEEK_V3.config, "hidden_size": 7000}).d_model == 7000
    gpt2 = {"model_type": "gpt2", "n_embd": 64, "n_layer": 1, "n_head": 4, "vocab_size": 100}
    assert model_from_config(gpt2).key == model_from_config(QWEN2_5_7B.config).key == "config"


@pytest.mark.parametrize("arch", [[], [""], [7], "LlamaForCausalLM"])
def test_a_config_without_an_architecture_name_is_named_after_its_file(arch) -> None:
    config = {**QWEN2_5_7B.config, "architectures": arch}
    assert model_from_config(config, "/tmp/my-model.json").name == "my-model"
