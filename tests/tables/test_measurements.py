"""Every published figure lecture 11 uses, typed here from its source and pinned.

Sources (read 2026-12-01):

- kipply, "Transformer Inference Arithmetic" (2022-03-30), section "comparing against
  real benchmarks" (github.com/kipply/blog, blog/content/endorsed/
  transformer_inference_arithmetic.md, commit 09819d4): 13B (40 layers, 40 heads of 128,
  dim 5120), FasterTransformer, 512-token context, batch 1, 10 tokens, A100 40GB. Benchmark
  output "283.60 ms (context time: 63.17 ms)" on 1 GPU and "180.86 ms (context time:
  45.45 ms)" on 2; decode "empirical result" 22.0 ms (1 GPU) and 13.5 ms (2 GPUs); the
  blog's estimate 16.8 ms and 8.4 ms (2x40x12x5120^2/1.5e12); profile: comms "40-50
  microseconds per layer", MLP matmul "72% of the flops", attention projection "54%".
  Also tabulated in cli99/llm-analysis examples/fastertransformer/README.md (d841e40).
- cli99/llm-analysis llm_analysis/model_configs/test-13b.json: 40 layers, 40 heads,
  hidden 5120, ffn 20480, vocab 50272, max_seq_len 2048.
- microsoft/vidur (commit 7d47513) data/profiling/compute/a100/meta-llama/Llama-2-7b-hf/
  mlp.csv, tp 1, medians in ms: mlp_up_proj 0.116 (n=1), 0.111 (16), 0.116 (64),
  0.157 (128), 0.229 (256), 0.402 (512), 0.877 (1024); attn_pre_proj 0.065 (1),
  0.067 (64), 0.112 (256), 0.475 (1024); at n=1 input_layernorm 0.005, add 0.002,
  mlp_act 0.007, attn_rope 0.005.
- microsoft/vidur data/profiling/network/a100_pairwise_nvlink/all_reduce.csv:
  num_workers 2, size 2048, median 0.007 ms.
"""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import pytest

from common.formulas.transformer import parameter_count
from tests.tables.test_tables_rebuilt import rebuilt

MS = 1e-3


def fields(record: object, names: str) -> tuple:
    """The named fields of a record, in order."""
    return tuple(getattr(record, name) for name in names.split())


def fresh_table() -> SimpleNamespace:
    """The table built afresh in the test's body (which mutmut times): its builders run only
    at import, before mutmut switches a mutant of them on."""
    return SimpleNamespace(**rebuilt("common.tables.measurements"))


def test_the_blogs_profile_and_estimates() -> None:
    pub = fresh_table()
    assert [m.seconds for m in pub.KIPPLY_COMMS_PER_LAYER] == pytest.approx([40e-6, 50e-6])
    assert pub.KIPPLY_MLP_FLOPS_EFFICIENCY == 0.72
    assert pub.KIPPLY_ATTN_PROJ_FLOPS_EFFICIENCY == 0.54
    assert pub.KIPPLY_HBM_SHARE == {2: 0.87}  # 'it doesn't quite get to 90, more like 87'
    # The decode times agree with the benchmark's totals: (283.60 - 63.17) / 10 tokens = 22.04.
    assert round((283.60 - 63.17) / 10, 1) == 22.0 and round((180.86 - 45.45) / 10, 1) == 13.5
    m = pub.GPT_13B  # its shape: test_tables_rebuilt, from the same config
    # 40 layers x (4 d^2 + 2 d d_ff) + V d (tied) + norms: about 12.84e9, a "13B" model.
    hand = 40 * (4 * 5120**2 + 2 * 5120 * 20480) + 50272 * 5120
    assert abs(parameter_count(m) - hand) / hand < 1e-3
    got = {(r.name, r.n_tokens): r.measured.seconds for r in pub.VIDUR_A100_MATMULS}
    assert got.keys() == VIDUR.keys()
    for key, ms in VIDUR.items():
        assert math.isclose(got[key], ms * MS, rel_tol=1e-12), key
    for r in pub.VIDUR_A100_MATMULS:  # Llama-2-7B: d 4096; fused QKV 3 x 4096; gate+up 2 x 11008
        expected_n = 22016 if r.name.startswith("gate") else 12288
        assert r.K == 4096
        assert r.N == expected_n  # noqa: SIM300 (N is a width, not a constant)
        assert "7d47513" in r.measured.source
    assert [m.seconds for m in pub.VIDUR_A100_SMALL_KERNELS] == pytest.approx(
        [0.005 * MS, 0.002 * MS, 0.007 * MS, 0.005 * MS]
    )
    assert pub.small_kernel_floor() == pytest.approx((0.005 + 0.002 + 0.007 + 0.005) / 4 * MS)
    # vidur's a100_dgx all_reduce.csv, median over the 9 rows nearest each size (ms):
    # 2 GPUs 0.046 at 16 KiB and 0.427 at 64 MiB; 8 GPUs 0.098 at 4 MiB.
    curve = pub.A100_DGX_ALLREDUCE  # its every point: test_every_curve_point_and_request_...
    assert sorted(curve) == [2, 4, 8]
    assert pub.ALLREDUCE_CURVES["a100-80gb"] is curve and pub.ALLREDUCE_CURVES["a100"] is curve


UP = {1: 0.116, 16: 0.111, 64: 0.116, 128: 0.157, 256: 0.229, 512: 0.402, 1024: 0.877}
QKV = {1: 0.065, 64: 0.067, 256: 0.112, 1024: 0.475}
VIDUR = {**{("gate+up projection", n): ms for n, ms in UP.items()},
         **{("QKV projection", n): ms for n, ms in QKV.items()}}  # fmt: skip


def test_published_requests_as_their_pages_print_them() -> None:
    pub = fresh_table()
    got = {(r.model.key, r.chip, r.gpus, r.batch, r.prompt, r.new_tokens): r.measured.seconds
           for r in pub.REQUESTS}  # fmt: skip
    assert len(got) == len(pub.REQUESTS) == 42  # the A100 rows' times: PUBLISHED below
    assert {r.gpus for r in pub.REQUESTS} == {1, 2, 4, 8}
    assert len({r.measured.source for r in pub.REQUESTS}) >= 3
    assert min(r.prompt for r in pub.REQUESTS) == 5 and max(r.prompt for r in pub.REQUESTS) == 2048
    # Llama-2-70B: 64 heads, 8 KV heads, d_ff 28672 (GPT-20B's shape: test_tables_rebuilt).
    assert (pub.LLAMA_2_70B.n_kv_heads, pub.LLAMA_2_70B.d_ff) == (8, 28672)
    assert pub.REQUESTS[0].label == "13B, 1 x a100, 512 + 10"
    h100 = {(r.model.key, r.gpus, r.batch, r.prompt, r.new_tokens): r for r in pub.REQUESTS
            if r.chip == "h100"}  # fmt: skip
    assert all(r.precision == "fp8" for r in h100.values()) and len(h100) == 12
    assert {r.engine_class for r in h100.values()} == {"trtllm-mmha"}  # TensorRT-LLM v0.5, v0.6.1
    # v0.5 H100 FP8 first-token latency: 7 and 36 ms (7B), 26 and 109 ms (70B on 4).
    assert h100[("llama-2-7b", 1, 1, 128, 0)].measured.seconds == pytest.approx(7 * MS)
    assert h100[("llama-2-70b", 4, 1, 2048, 0)].measured.seconds == pytest.approx(109 * MS)
    # v0.6.1 throughput: LLaMA 7B, batch 768, 128 in / 128 out, 19,694 tok/s/GPU on 1 GPU;
    # LLaMA 70B, batch 480, TP 4, 128 / 2048, 1,486 tok/s/GPU.
    r = h100[("llama-2-7b", 1, 768, 128, 128)]
    assert r.measured.seconds == pytest.approx(768 * 128 / 19694)
    r = h100[("llama-2-70b", 4, 480, 128, 2048)]
    assert r.measured.seconds == pytest.approx(480 * 2048 / (1486 * 4))
    assert r.label == "Llama-2-70B, 4 x h100, batch 480, fp8, 128 + 2048"  # its precision named
    # v0.5's H200 blog, FP8: llama_13b, batch 1024, 128 / 128, 11,819 tok/s/GPU on 1 GPU;
    # llama_70b, batch 512, TP 2, 128 / 2048, 1,654 tok/s/GPU
    h200 = {(r.model.key, r.gpus, r.batch, r.new_tokens): r.measured.seconds for r in pub.REQUESTS
            if (r.chip, r.precision, r.engine_class) == ("h200", "fp8", "trtllm-mmha")}  # fmt: skip
    assert len(h200) == 7 and h200[("llama-2-13b", 1, 1024, 128)] == 1024 * 128 / 11819
    assert h200[("llama-2-70b", 2, 512, 2048)] == pytest.approx(512 * 2048 / (1654 * 2))
    # and A100 FP16, TP 1: batch 384, 128 / 128, 5,586 tok/s; batch 52, 2048 / 128, 591
    a = {(r.batch, r.prompt, r.precision): r.measured.seconds for r in pub.REQUESTS if r.batch > 1
         and r.chip == "a100-80gb" and r.engine_class == "trtllm-mmha"}  # fmt: skip
    assert a == pytest.approx({(384, 128, "bf16"): 384 * 128 / 5586,
                               (52, 2048, "bf16"): 52 * 128 / 591})  # fmt: skip
    with pytest.raises(ValueError, match="measured time"):
        pub.Measured("x", 0.0, "nowhere")
    with pytest.raises(ValueError, match="shorter"):  # six sizes, five times: not cut silently
        pub.dgx_curve({2: (46, 51, 57, 64, 139)})
    with pytest.raises(ValueError, match="shorter"):  # vLLM's CI: three tests a GPU model
        pub._vllm_ci("h100", "src", (997.542, 2444.47))
    day = pub.DEEPSEEK_FLEET
    for field, says in (("gpus_per_node", "GPUs per node"), ("hours", "hours")):
        with pytest.raises(ValueError, match=f"^{day.what}: {says} must be a positive"):
            dataclasses.replace(day, **{field: 0})


# vidur's a100_dgx all_reduce.csv, the median over the 9 rows nearest each size (ms), and
# the pages' published times (ms), typed here from the sources.
DGX_MS = {
    2: (0.046, 0.051, 0.057, 0.064, 0.139, 0.427),
    4: (0.021, 0.060, 0.064, 0.085, 0.200, 0.602),
    8: (0.032, 0.051, 0.040, 0.098, 0.274, 0.676),
}
G4 = (1, 2, 4, 8)
FT20 = {(20, 8): (225, 147, 102, 89), (128, 20): (566, 362, 254, 217),
        (200, 200): (5648, 3544, 2481, 2080)}  # fmt: skip
PUBLISHED = [  # model, chip, GPUs, prompt, new tokens, ms, engine and publisher
    ("gpt-13b", "a100", 1, 512, 10, 283.60, "kipply"),
    ("gpt-13b", "a100", 2, 512, 10, 180.86, "kipply"),
    *(("gpt-20b", "a100-80gb", g, p, n, ms, "docs") for (p, n), t in FT20.items()
      for g, ms in zip(G4, t, strict=True)),
    ("gpt-6.7b", "a100-80gb", 1, 128, 8, 98.29, "docs"),
    ("gpt-6.7b", "a100-80gb", 1, 512, 32, 384.70, "docs"),
    ("llama-2-7b", "a100-80gb", 1, 128, 0, 16, "TensorRT-LLM"),
    ("llama-2-7b", "a100-80gb", 1, 2048, 0, 133, "TensorRT-LLM"),
    ("llama-2-70b", "a100-80gb", 4, 128, 0, 47, "TensorRT-LLM"),
    ("llama-2-70b", "a100-80gb", 4, 2048, 0, 377, "TensorRT-LLM"),
    ("llama-2-7b", "a100-80gb", 1, 5, 200, 1000 * 200 / 25.5, "gpt-fast"),
]  # fmt: skip


def test_every_curve_point_and_request_as_published() -> None:
    pub = fresh_table()
    for g, ms in DGX_MS.items():
        points = pub.A100_DGX_ALLREDUCE[g]
        assert [m for m, _ in points] == [2**14, 2**17, 2**20, 2**22, 2**24, 2**26]
        assert [t for _, t in points] == pytest.approx([x * MS for x in ms], rel=1e-12)
    a100 = [r for r in pub.REQUESTS if r.chip != "h100" and r.batch == 1]  # the rest: above
    got = [(r.model.key, r.chip, r.gpus, r.prompt, r.new_tokens, r.measured.seconds / MS)
           for r in a100]  # fmt: skip
    assert got == [(*row[:5], pytest.approx(row[5])) for row in PUBLISHED]
    for r, row in zip(a100, PUBLISHED, strict=True):
        assert r.batch == 1 and row[6] in r.engine
    # GPT-6.7B: 32 heads of 128 (d 4096), 32 layers; the GPT models' vocabulary 51200.
    shape = fields(pub.GPT_6_7B, "d_model n_layers d_ff vocab_size max_context")
    assert shape == (4096, 32, 16384, 51200, 2048)
    assert (pub.GPT_20B.n_heads, pub.GPT_20B.d_head, pub.GPT_20B.vocab_size) == (48, 128, 51200)
    big = pub.LLAMA_2_70B
    shape = fields(big, "n_layers d_model n_heads vocab_size max_context")
    assert shape == (80, 8192, 64, 32000, 4096)
    assert big.gated_mlp and not big.tied_embeddings and not pub.GPT_20B.gated_mlp


def test_serving_engines_requests_as_their_pages_print_them() -> None:
    pub = fresh_table()
    got = {(r.model.key, r.chip, r.gpus, r.batch, r.prompt, r.new_tokens, r.engine_class):
           r.measured.seconds for r in pub.SERVING_REQUESTS}  # fmt: skip
    # SGLang's bf16 and FP8 share a key, as do the NIM course data's 24 fp8 rows with its bf16
    assert len(got) == len(pub.SERVING_REQUESTS) - 25 == 70 + 77 - 25
    # the NIM course data, concurrency 1, request_latency-avg: 8,345,598,200.32 ns for 8B on 2
    # A100s (fp16), 200 / 1000; 17,836,483,506.83 ns for 70B on 8 H100s (fp8), 7000 / 1000
    dli = {(r.model.key, r.chip, r.gpus, r.prompt, r.new_tokens, r.precision): r.measured.seconds
           for r in pub.SERVING_REQUESTS if r.engine == "NVIDIA NIM, its DLI course"}  # fmt: skip
    assert (dli[("llama-3-8b", "a100-80gb", 2, 200, 1000, "bf16")],
            dli[("llama-3-70b", "h100", 8, 7000, 1000, "fp8")]) == (8.346, 17.836)  # fmt: skip
    # vLLM's CI, 'Mean latency (ms)' of batch 8, 32 in / 128 out: 997.542 ms (8B, 8xH100),
    # 2077.53 ms (70B on 4 H200), 3643.84 ms (Mixtral on 2 A100-SXM4-80GB).
    assert got[("llama-3.1-8b", "h100", 1, 8, 32, 128, "vllm")] == pytest.approx(997.542 * MS)
    assert got[("llama-3-70b", "h200", 4, 8, 32, 128, "vllm")] == pytest.approx(2077.53 * MS)
    assert got[("mixtral-8x7b", "a100-80gb", 2, 8, 32, 128, "vllm")] == pytest.approx(3.64384)
    # LMDeploy's A100 table: llama2-7b, batch 64, 128 / 128, 3024.07 out tok/s; llama2-70b,
    # tp 4, batch 1, 2048 / 128, 28.32 tok/s.
    assert got[("llama-2-7b", "a100-80gb", 1, 64, 128, 128, "trtllm")] == pytest.approx(
        64 * 128 / 3024.07
    )
    assert got[("llama-2-70b", "a100-80gb", 4, 1, 2048, 128, "trtllm")] == pytest.approx(
        128 / 28.32
    )
    # NIM, Llama-3.3-70B fp8 on 2 H100s, concurrency 1: TTFT 47.77, ITL 18.91 ms at 500 / 2000;
    # TTFT 406.77, ITL 18.58 ms at 5000 / 500.
    nim = [r for r in pub.SERVING_REQUESTS if r.model.key == "llama-3.3-70b"]
    assert [r.precision for r in nim] == ["fp8"] * 4
    # GPUStack's Qwen3-8B on one H100, 100 ShareGPT requests: mean TTFT + 220 x mean TPOT; vLLM
    # at concurrency 1, 59.01 + 220 x 7.28 ms; SGLang's FP8 row at 4, 39.66 + 220 x 5.65 ms
    assert got[("qwen3-8b", "h100", 1, 1, 233, 221, "vllm")] == pytest.approx(1.66061)
    fp8 = [r for r in pub.SERVING_REQUESTS if "GPUStack" in r.engine and r.precision == "fp8"]
    assert [(r.batch, r.engine_class) for r in fp8] == [(4, "sglang")]
    assert fp8[0].measured.seconds == pytest.approx(1.28266)
    # every other row is 16-bit (vLLM's dtype auto, LMDeploy's fp16: bf16's bytes and peak)
    # but the NIM course data's fp8 profiles: 8B on 1 and 2 H100s, 70B on 4 and 8, 6 rows each
    v3 = [r for r in pub.SERVING_REQUESTS if r.model.key == "deepseek-v3"]  # H200s, then B200s
    rest = [r.precision for r in pub.SERVING_REQUESTS if r not in nim + fp8 + v3]
    assert (rest.count("fp8"), set(rest)) == (4 * 6, {"bf16", "fp8"})
    # PRs #2643: 256 / 30.29 token/s = 8.451634 s, 32 x 256 / 760.52 = 10.771577 s; #6111: 13.89 s
    assert {(r.gpus, r.precision, r.engine_class) for r in v3} == {(8, "fp8", "sglang")}
    assert [(r.chip, r.batch) for r in v3] == [("h200", 1), ("h200", 8), ("h200", 32),
                                                ("b200", 1), ("b200", 32)]  # fmt: skip
    assert [r.measured.seconds for r in v3[::2]] == pytest.approx([8.451634, 10.771577, 13.89])
    # each engine's own page is named with what it ran; the course's first sources are not
    assert all(r.measured.what.endswith(f", {r.engine}") for r in pub.SERVING_REQUESTS)
    assert not any(r.engine in r.measured.what for r in pub.REQUESTS)
    lmdeploy = {r.measured.source for r in pub.SERVING_REQUESTS if r.engine.startswith("LMDeploy")}
    assert len(lmdeploy) == 1 and "InternLM/lmdeploy" in lmdeploy.pop()
    assert [r.measured.seconds for r in nim] == pytest.approx(
        [0.04777, 0.04777 + 1999 * 0.01891, 0.40677, 0.40677 + 499 * 0.01858])  # fmt: skip
    # vLLM PR #2192: 14.57 s; rkooo567: 133.70 s (vLLM) and 70.19 s (Triton) for 32 x 1 + 2048.
    assert got[("llama-2-70b", "a100-80gb", 4, 64, 256, 256, "vllm-single-step")] == (
        pytest.approx(14.57)
    )
    assert got[("llama-2-70b", "a100", 8, 32, 1, 2048, "vllm-eager")] == pytest.approx(133.70)
    assert got[("llama-2-70b", "a100", 8, 32, 1, 2048, "trtllm-mmha")] == pytest.approx(70.19)
    # Argonne's All_results.csv, H100, 1024 / 1024: vLLM, Meta-Llama-3-8B, 1 GPU, batch 1,
    # 8.097759872433327 s; TensorRT-LLM, Meta-Llama-3-70B, 4 GPUs, batch 64, 32.455443716049196
    # s; TensorRT-LLM, 8B, 4 GPUs: batches 1 and 16 only, 16 at 5.316887283325196 s.
    vllm_05 = got[("llama-3-8b", "h100", 1, 1, 1024, 1024, "vllm-single-step-flash")]
    assert vllm_05 == pytest.approx(8.097759872433327, abs=1e-3)
    assert got[("llama-3-70b", "h100", 4, 64, 1024, 1024, "trtllm")] == pytest.approx(32.455, 1e-4)
    trt_8b_4 = {k[3]: t for k, t in got.items() if k[:3] == ("llama-3-8b", "h100", 4) and
                k[-1] == "trtllm"}  # fmt: skip
    assert trt_8b_4 == pytest.approx({1: 4.522334194183349, 16: 5.316887283325196}, abs=1e-3)
    # Llama-2-13B's config.json: 40 layers, hidden 5120, 40 heads, intermediate 13824.
    shape = fields(pub.LLAMA_2_13B, "n_layers d_model n_kv_heads d_ff vocab_size")
    assert shape == (40, 5120, 40, 13824, 32000)
    assert (*pub.REQUESTS, *pub.SERVING_REQUESTS) == pub.ALL_REQUESTS


def rows_at(prompt: int) -> str:  # a Llama-2-7B run of `prompt` + 2,048 tokens
    return f'LLaMA v2 7B,H100 80GB HBM3,FP8,1,1,"{prompt},2048",1000.0'


def test_trtllm_bulk_runs_read_as_the_csv_lists_them(tmp_path) -> None:
    import csv

    from common.tables import slips

    pub = fresh_table()
    with open(pub.TRTLLM_DLI_CSV, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # Llama-2's 128 + 4,096 runs need 4,223 positions, past its 4,096: left out; Mistral's
    # 32,768-token window holds every run
    past = [r for r in rows if "LLaMA" in r["Model"] and r["Input/Output Lengths"] == "128,4096"]
    runs = pub.dli_requests()
    assert len(rows) == 913 and len(runs) == 913 - len(past) and past
    # the first row: 'LLaMA v2 7B,H100 80GB HBM3,FP8,1,1,"128,128",526.76'; the second 'Mixed'
    first = fields(runs[0], "chip precision gpus batch prompt new_tokens engine_class")
    assert first == ("h100", "fp8", 1, 1, 128, 128, "trtllm-single-block")
    assert runs[1].precision == "bf16"
    assert runs[0].model.key == "llama-2-7b" and runs[0].measured.seconds == pytest.approx(0.52676)
    assert runs[0].engine == "TensorRT-LLM 0.9, NVIDIA DLI"
    assert runs[0].measured.source == pub.TRTLLM_DLI
    edge = tmp_path / "edge.csv"  # 2,049 + 2,048 - 1 = 4,096 positions fit; 2,050 + 2,048 do not
    head = pub.TRTLLM_DLI_CSV.read_text().splitlines()[0]
    edge.write_text(f"{head}\n{rows_at(2049)}\n{rows_at(2050)}\n")
    assert [r.prompt for r in pub.dli_requests(edge)] == [2049]
    # Mistral-7B: 32 x (2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336 + 2 x 4096) + 2 x
    # 32000 x 4096 + 4096 = 7,241,732,096 parameters
    assert parameter_count(pub.MISTRAL_7B) == 7_241_732_096
    bad = tmp_path / "runs.csv"  # a slip in the file: one line naming it and the row
    bad.write_text(pub.TRTLLM_DLI_CSV.read_text().replace("526.76", "fast", 1))
    with pytest.raises(slips.SlipError, match=r"runs\.csv line 2: could not convert string to"):
        pub.dli_requests(bad)
    bad.write_text(pub.TRTLLM_DLI_CSV.read_text().replace("LLaMA v2 7B", "LLaMA v9", 1))
    with pytest.raises(slips.SlipError, match=r"runs\.csv line 2: unknown 'LLaMA v9'$"):
        pub.dli_requests(bad)
    bad.write_text(pub.TRTLLM_DLI_CSV.read_text().replace(',1,"128,128",526', ',0,"128,128",526'))
    with pytest.raises(slips.SlipError, match=r"line 2: .*: batch must be a positive integer"):
        pub.dli_requests(bad)
