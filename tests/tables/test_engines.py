"""The engine terms: every figure carries a source; calibration is kept apart from validation."""

from __future__ import annotations

import csv

import pytest

from common.formulas.transformer import decode_ledger
from common.tables import engines
from common.tables import measurements as pub
from common.tables.models import LLAMA_2_7B

CASES_13B = {"prefill, 1 GPU", "decode, 1 GPU", "prefill, 2 GPUs", "decode, 2 GPUs"}


def test_every_term_has_a_source_and_a_positive_value() -> None:
    terms = engines.all_terms()
    assert len(terms) == len({id(t) for t in terms})
    labels = {r.label for r in (*pub.ALL_REQUESTS, *pub.dli_requests())} | CASES_13B
    for term in terms:
        assert term.source and term.value > 0, term.what
        assert set(term.informs) <= labels, (term.what, set(term.informs) - labels)
    informed = {label for t in terms for label in t.informs}
    # every source but two only checks: it enters as validation
    calibration = (pub.LLM_ANALYSIS_FT, pub.GPT_FAST)
    validation = [r for r in pub.ALL_REQUESTS if r.measured.source not in calibration]
    assert validation and not informed & {r.label for r in validation}
    # kipply's runs are calibration (their HBM shares were read off their own profiles), and
    # gpt-fast's eager run (the eager launch cost is its time less the compiled one's)
    assert {r.label for r in pub.REQUESTS if r.measured.source in calibration} <= informed
    assert engines.EAGER_LAUNCH.informs == ("Llama-2-7B, 1 x a100-80gb, 5 + 200",)
    assert any(r.chip in ("h100", "h200") for r in validation)
    # the serving engines' pages enter as validation, every one of them
    assert not informed & {r.label for r in pub.SERVING_REQUESTS}
    for e in engines.ENGINES.values():  # its per-step and per-launch costs, its all-reduce curve
        own = [t for t in (e.step, e.launch) if t is not None]
        own += [t for ts in (e.allreduce or {}).values() for t in ts]
        assert all(any(t is u for u in terms) for t in own), e.what
        assert e.kv_reads in (engines.KV_ONCE, engines.KV_PER_HEAD, engines.KV_COPIES)
    # 20 of TensorRT-LLM 0.9's runs are calibration, per chip and precision three for a block's
    # rate and two for the walk per query head
    bulk = informed & {r.label for r in pub.dli_requests()}
    assert len(bulk) == 20 and all(label.startswith("Mistral-7B, 1 x ") for label in bulk)


def test_a_blocks_stream_solved_from_three_runs_by_hand() -> None:
    # TensorRT-LLM 0.9's Mistral-7B on one H100 in bf16, batch 1, a 128-token prompt, n new
    # tokens: T(n) = prefill + (n - 1) a + c S(n), S(n) the cache each of n - 1 steps reads
    with open(pub.TRTLLM_DLI_CSV, newline="", encoding="utf-8") as f:
        ms = {int(r["Input/Output Lengths"].split(",")[1]): float(r["Latency (ms)"])
              for r in csv.DictReader(f) if (r["Model"], r["GPU"], r["Precision"], r["Batch Size"],
              r["Tensor Model Parallel Size"], r["Input/Output Lengths"][:4]) == ("Mistral 7B",
              "H100 80GB HBM3", "Mixed", "1", "1", "128,")}  # fmt: skip
    rows = [[1.0, n - 1, sum(128 + k for k in range(1, n)), ms[n] / 1e3] for n in (128, 2048, 4096)]
    for i in range(3):  # Gauss-Jordan elimination of [1, n - 1, S(n) | T(n)]
        rows[i] = [x / rows[i][i] for x in rows[i]]
        for j in range(3):
            if j != i:
                rows[j] = [x - rows[j][i] * y for x, y in zip(rows[j], rows[i], strict=True)]
    c = rows[2][3]  # s a step gains per cached token, over 32 layers of 8 blocks
    assert c / 32 == pytest.approx(7.43e-9, rel=1e-3)  # 7.43 ns a token a layer
    got = engines.kv_block_terms(pub.dli_requests())["h100"]["bf16"]  # KV_BLOCK: at import
    assert got.value == pytest.approx(c / 32) == engines.KV_BLOCK["h100"]["bf16"].value
    assert got.informs == tuple(f"Mistral-7B, 1 x h100, 128 + {n}" for n in (128, 2048, 4096))
    # the A100 40GB has the 80GB's SMs; the H200 its own FP8 runs and the H100's bf16
    assert engines.KV_BLOCK["a100"] is engines.KV_BLOCK["a100-80gb"]
    h200 = engines.KV_BLOCK["h200"]
    assert (
        h200["bf16"] is engines.KV_BLOCK["h100"]["bf16"]
        and h200["fp8"].informs[0] == "Mistral-7B, 1 x h200, fp8, 128 + 128"
    )


def test_the_walk_per_query_head_solved_from_two_runs_by_hand() -> None:
    # TensorRT-LLM 0.9's Mistral-7B (32 query heads on 8 KV heads, 32 layers) on one H100 in
    # bf16, 128 + 2,048 tokens at batch 64 and 120: 56 sequences more, each step walking every
    # query head's whole cache; their times' difference over the tokens walked
    with open(pub.TRTLLM_DLI_CSV, newline="", encoding="utf-8") as f:
        ms = {int(r["Batch Size"]): float(r["Latency (ms)"]) for r in csv.DictReader(f)
              if (r["Model"], r["GPU"], r["Precision"], r["Tensor Model Parallel Size"],
              r["Input/Output Lengths"]) == ("Mistral 7B", "H100 80GB HBM3", "Mixed", "1",
              "128,2048")}  # fmt: skip
    cached = sum(128 + k for k in range(1, 2048))  # what a sequence's 2,047 steps attend to
    t = (ms[120] - ms[64]) / 1e3 / (56 * 32 * 32 * cached)
    assert 2 * 128 * 2 / t == pytest.approx(5.57e12, rel=1e-3)  # 5.57 TB/s of a bf16 cache
    got = engines.kv_reread_terms(pub.dli_requests())["h100"]["bf16"]
    assert got.value == pytest.approx(t) and got.source == engines.TRTLLM_REREAD
    assert got.what == "decode attention's walk per query head, H100, bf16 cache"
    assert engines.KV_REREAD["h100"]["bf16"].value == got.value
    assert got.informs == tuple(f"Mistral-7B, 1 x h100, batch {b}, 128 + 2048" for b in (64, 120))
    # the A100 40GB has the 80GB's SMs; the H200 its own FP8 runs and the H100's bf16
    walk = engines.KV_REREAD
    assert walk["a100"] is walk["a100-80gb"] and walk["h200"]["bf16"] is walk["h100"]["bf16"]
    assert walk["h200"]["fp8"].informs[0] == "Mistral-7B, 1 x h200, batch 64, fp8, 128 + 2048"


def test_a_llama_2_7b_decode_step_has_483_kernels_by_hand() -> None:
    # 32 layers of 15 operators (two norms, Q, K, V, scores, softmax, P V, output, two residual
    # adds, gate, up, SiLU x up, down), and embedding, final norm and LM head once
    kernels = sum(c for _, c in decode_ledger(LLAMA_2_7B, 1, 100).counted())
    assert kernels == 32 * 15 + 3 == engines.LLAMA_2_7B_STEP_KERNELS
