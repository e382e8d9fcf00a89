"""The prediction command's memory check and speculative decoding, against hand arithmetic.

Parameter counts from the published configs (Llama-2-7B: 6,738,415,616, as Hugging Face
reports it; Mixtral-8x7B: 46,702,792,704, of which the 32 x 8 experts' three 4096 x 14336
matrices are 45,097,156,608) and cache sizes from 2 L Hkv dh elements a token.
"""

from __future__ import annotations

import dataclasses

import pytest

from common.formulas import predict
from common.formulas.predict import Request
from common.formulas.transformer import DTypes, Op, PassLedger, decode_ledger, verify_ledger
from common.hw_specs import A100, get_chip
from common.predict import check_fits, memory_per_gpu
from common.tables import measurements as pub
from common.tables.models import get_model

LLAMA_N, LLAMA_KV = 6_738_415_616, 2 * 32 * 4096  # parameters; KV elements a token
MIXTRAL_EXPERTS, MIXTRAL_REST = 45_097_156_608, 46_702_792_704 - 45_097_156_608
MIXTRAL_KV = 2 * 32 * 8 * 128  # KV elements a token: 8 KV heads of 128


@pytest.mark.parametrize(
    ("gpus", "kv", "by_hand"),
    [
        (1, "bf16", 2 * LLAMA_N + 8 * 4096 * LLAMA_KV * 2),
        (2, "bf16", LLAMA_N + 8 * 4096 * LLAMA_KV),  # weights and KV heads halved
        (2, "fp8", LLAMA_N + 8 * 4096 * LLAMA_KV / 2),  # one byte a cached element
    ],
)
def test_memory_per_gpu_is_weights_plus_cache_by_hand(gpus, kv, by_hand) -> None:
    model = get_model("llama-2-7b")
    assert memory_per_gpu(model, DTypes("bf16", kv), gpus, 8, 4096) == pytest.approx(by_hand)


def test_weights_and_cache_that_fill_the_memory_exactly_fit() -> None:
    model = get_model("llama-2-7b")
    need = memory_per_gpu(model, DTypes(), 1, 8, 4096)  # by hand in the test above
    full = dataclasses.replace(A100.mem_capacity_figure, value=need)
    check_fits(model, dataclasses.replace(A100, mem_capacity_figure=full), DTypes(), 1, 8, 4096)


def test_expert_parallel_memory_and_the_advice_count_experts_not_heads() -> None:
    model, chip = get_model("mixtral-8x7b"), get_chip("a100")
    # --ep 8: the other weights whole, 1/8 of the experts, ceil(64 / 8) = 8 sequences' cache
    need = 2 * (MIXTRAL_REST + MIXTRAL_EXPERTS / 8) + 8 * 32768 * MIXTRAL_KV * 2
    assert memory_per_gpu(model, DTypes(), 8, 64, 32768, ep=True) == pytest.approx(need)
    assert need > 48e9  # over 40 GB at 8, the most GPUs 8 experts can spread over
    with pytest.raises(ValueError) as caught:
        check_fits(model, chip, DTypes(), 8, 64, 32768, ep=True)
    assert str(caught.value).endswith(
        f"need {need / 1e9:.1f} GB per GPU on 8 x {chip.name} (40 GB each); "
        "no split of its 8 experts would"
    )


TINY = dataclasses.replace(pub.GPT_13B, n_layers=2, d_model=256, n_heads=4, n_kv_heads=4,
                           d_head=64, d_ff=1024, vocab_size=1000)  # fmt: skip
BARE = predict.EngineRoofs((), 1.0, 0.0, 0.0, None)  # no engine terms: each pass at its bound


@pytest.mark.parametrize("new_tokens", [1, 9])
def test_speculation_with_a_draft_head_by_hand(new_tokens) -> None:
    roofs, K, a, prompt = predict.spec_roofs(A100, "bf16"), 3, 0.8, 100
    req = Request(model=TINY, batch=2, prompt=prompt, new_tokens=new_tokens)
    got = predict.speculate(req, roofs, BARE, K, a)

    def bound(led) -> float:
        return predict.bound_time(led, roofs, 1)

    prefill = predict.forecast(req, roofs, BARE).prefill_s
    # the draft head: one of the target's 2 layers, its mean decode step (caches prompt + 1
    # to prompt + n - 1; at prompt + 1 when there is none)
    caches = range(prompt + 1, prompt + max(2, new_tokens))
    step = sum(bound(decode_ledger(TINY, 2, c)) for c in caches) / len(caches)
    assert got.draft_step_s == pytest.approx(step / 2)
    # the verify pass: K + 1 tokens a sequence, at the mean cache prompt + n // 2 (at least
    # 1), plus the K drafted
    ctx = prompt + max(1, new_tokens // 2)
    assert got.verify_step_s == pytest.approx(bound(verify_ledger(TINY, 2, K + 1, ctx + K)))
    e = (1 - a ** (K + 1)) / (1 - a)  # 2.952 tokens a verify step
    assert got.tokens_per_step == pytest.approx(2.952)
    steps = (new_tokens - 1) / e * (K * got.draft_step_s + got.verify_step_s)
    assert got.total_s == pytest.approx(prefill + steps) and got.draft_prefill_s == 0.0
    if new_tokens == 1:  # the prompt pass yields the only token: nothing to speculate on
        assert (got.total_s, got.speedup) == (pytest.approx(prefill), 1.0)


def test_the_busiest_expert_parallel_gpu_by_hand() -> None:
    def ledger_at(b: int):  # toy pass: attention per sequence, one routed expert matmul
        layer = (
            Op("attention", "attention", b * 1e9, act_bytes=b * 1e6),
            Op("expert up", "matmul", b * 2e9, 8e6, b * 1e3, 0.0),
        )
        return PassLedger("decode", TINY, b, 1, 100, DTypes(), False, layer, (), ((layer, 1),))

    busiest = predict.ep_pass(ledger_at, 10, 4)
    for attn, expert in (busiest.layer, busiest.variants[0][0]):
        # attention for its ceil(10 / 4) = 3 sequences; 1/4 of the experts over all 10
        assert (attn.flops, attn.act_bytes) == (3e9, 3e6)
        assert (expert.flops, expert.weight_bytes, expert.act_bytes) == (5e9, 2e6, 2500.0)


def test_the_advice_names_the_fewest_gpus_that_split_the_heads_and_hold_it() -> None:
    model, chip = get_model("llama-2-7b"), get_chip("a100")
    # batch 40 at 4,096 tokens: 2 N + 40 x 4096 x 2 L Hkv dh x 2 B = 99.4 GB on one GPU;
    # on 2, 49.7 GB; on 4, 24.8 GB (32 heads split 1, 2, 4, 8, ... ways)
    need = 2 * LLAMA_N + 40 * 4096 * LLAMA_KV * 2
    with pytest.raises(ValueError) as caught:
        check_fits(model, chip, DTypes(), 1, 40, 4096)
    assert str(caught.value) == (
        f"Llama-2-7B's weights and KV cache need {need / 1e9:.1f} GB per GPU on 1 x "
        f"{chip.name} (40 GB each); 4 GPUs would hold it"
    )


def test_flat_until_measures_from_the_first_time() -> None:
    # within 1.25 x 1.0 s: 1.2 yes, 1.3 no (1.25 x the second time, 1.5, would take it)
    assert predict.flat_until([1, 2, 3, 4], [1.0, 1.2, 1.3, 2.0]) == 1


def test_matmul_time_counts_all_three_operands_at_the_element_size() -> None:
    roofs = predict.Roofs("toy", 1e30, 1.0, 1.0)  # bandwidth-bound: time = bytes
    # X[3, 5] @ W[5, 7] in fp32: 4 (15 + 35 + 21) = 284 bytes
    assert predict.matmul_time(3, 5, 7, roofs, 4) == 284


def test_one_gpu_unless_told_and_tensor_parallel_halves_a_matmul() -> None:
    roofs = predict.Roofs("toy", 100e12, 1e12, 100e9)
    mm = Op("mm", "matmul", 2e12, weight_bytes=1e9)  # 20 ms of FLOPs, 1 ms of bytes
    led = PassLedger("prefill", dataclasses.replace(TINY, n_layers=1), 1, 10, 10, DTypes(),
                     False, (mm,), ())  # fmt: skip
    assert predict.bound_time(led, roofs) == pytest.approx(20e-3)
    ring = predict.comm_time(led, 2, roofs.link_bw, None)  # the all-reduces, tested apart
    assert predict.bound_time(led, roofs, 2) - ring == pytest.approx(10e-3)


def test_a_chip_without_gemm_profiles_takes_its_achievable_share_of_the_peak() -> None:
    # B200: 1,745 TFLOP/s measured (MAMF, ml-engineering) of the datasheet's 2,250 in bf16
    eng = predict.engine_roofs(get_chip("b200"), "vllm", "bf16")
    assert eng.gemm == ((1, pytest.approx(1745 / 2250)),)
