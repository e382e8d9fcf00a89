"""Published measurements the course predicts, each with its source, table or section and date.

Standard library only. Every value is a plain literal typed from the cited page, but for
one bulk source whose runs are a CSV beside this file (its columns as published): a whole
model's latencies measured with FasterTransformer, serving engines' requests, and single
operators timed by an open serving simulator's GPU profiler. Lecture 11 predicts each one
from the ledgers and the hardware table and shows the gap.

Times are seconds. Edit a value here and rerun lecture 11; every ratio and sentence
moves with it.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from common.tables import models, slips
from common.tables.models import LLAMA_2_7B, LLAMA_3_8B, LLAMA_3_70B, MIXTRAL_8X7B, Model, what_if
from common.tables.validate import positive, positive_int

CHECKED = "checked 2026-12-01"  # when the course last compared these values with the pages
MS = 1e-3

# --- Sources -----------------------------------------------------------------
KIPPLY_TITLE = "'Transformer Inference Arithmetic'"
KIPPLY = (
    f"kipply, {KIPPLY_TITLE} (2022-03-30), section 'comparing against real "
    "benchmarks' (kipp.ly/transformer-inference-arithmetic/; its source github.com/kipply/blog, "
    "blog/content/endorsed/transformer_inference_arithmetic.md, commit 09819d4)")  # fmt: skip
LLM_ANALYSIS_FT = (
    f"{KIPPLY}: FasterTransformer, 13B, 512-token context, batch 1, 10 generated tokens, A100 "
    "40GB; benchmark output '283.60 ms (context time: 63.17 ms)' on 1 GPU and '180.86 ms (context "
    "time: 45.45 ms)' on 2, decode 'empirical result' 22.0 ms and 13.5 ms; also tabulated in "
    f"cli99/llm-analysis examples/fastertransformer/README.md (commit d841e40); {CHECKED}"
)
KIPPLY_PROFILE = f"{KIPPLY}: figures read from the author's profiles; {CHECKED}"
LLM_ANALYSIS_13B_CONFIG = (
    "cli99/llm-analysis, llm_analysis/model_configs/test-13b.json (commit d841e40): the 13B "
    f"model of kipply's FasterTransformer benchmark; {CHECKED}")  # fmt: skip
VIDUR_MLP_A100 = (
    "microsoft/vidur (github.com/microsoft/vidur, commit 7d47513), "
    "data/profiling/compute/a100/meta-llama/Llama-2-7b-hf/mlp.csv: rows with "
    "num_tensor_parallel_workers = 1 and the stated num_tokens, columns "
    f"time_stats.<operator>.median (milliseconds, CUDA-event timed); {CHECKED}")  # fmt: skip
VIDUR_ALLREDUCE_DGX = (
    "microsoft/vidur (commit 7d47513), data/profiling/network/a100_dgx/all_reduce.csv ('A100 "
    "DGX with 8 80GB A100s', NVSwitch, per its docs/profiling.md; NCCL kernel time of an fp16 "
    "all-reduce, size in bytes): rows with num_workers = devices_per_node = g; each point is the "
    "median of column time_stats.all_reduce.median over the 9 rows nearest that size (single "
    f"rows are noisy); {CHECKED}")  # fmt: skip
FT_GPT_GUIDE = (
    "NVIDIA/FasterTransformer docs/gpt_guide.md (commit df4a753), section 'Performance': "
    "8 x A100-80GB linked by NVSwitch (A100 SuperPod), FP16, top_p 0.9; end-to-end latency of "
    "input length tokens and output length generated tokens, table '{table}'; " + CHECKED
)
TRT_PAGE = "NVIDIA/TensorRT-LLM docs/source/performance.md (commit 138f96d)"
TRT_LLM_V05 = (
    f"{TRT_PAGE}, data of TensorRT-LLM v0.5, 'Low Latency', table 'A100 GPUs (FP16)', column "
    "'1st Token Latency (ms)', batch 1 (memory size not stated: Falcon 180B on 8 of them needs "
    f"the 80 GB part); {CHECKED}")  # fmt: skip
TRT_LLM_V05_H100 = (
    f"{TRT_PAGE}, data of TensorRT-LLM v0.5, 'Low Latency', table 'H100 GPUs (FP8)', column "
    "'1st Token Latency (ms)', batch 1; engines built with --enable_fp8 --fp8_kv_cache on an "
    f"H100-HBM3-80GB system; {CHECKED}")  # fmt: skip
GPT_FAST = (
    "PyTorch blog 'Accelerating Generative AI with PyTorch II: GPT, Fast' (pytorch.org/blog/"
    "accelerating-generative-ai-2/), 'Starting Point (25.5 tok/s)': gpt-fast's Llama-7B as plain "
    "eager PyTorch, 'heavily CPU overhead bound', batch 1, 'A100-80GB, power limited to 330W'; "
    "pytorch-labs/gpt-fast README.md (commit 0f925b5), 'Benchmarks': Llama-2-7B 'Base' 104.9 "
    "tok/s, the same code compiled with CUDA graphs on those A100s, 'just 5 tokens' of prompt; "
    "generate.py (commit 0055c42): tokens/s over the 200 it generates; checked 2026-12-06"
)
TRT_LLM_V061_H100 = (
    f"{TRT_PAGE}, data of TensorRT-LLM v0.6.1, 'Peak Throughput', table 'H100 GPUs (FP8)', column "
    "'Throughput (out tok/s/GPU)' at the stated batch, TP, input and output lengths; time of the "
    f"batch = batch x output length / (throughput x GPUs); FP8 weights and KV cache; {CHECKED}"
)
TRT_LLM_V061_A100 = (
    f"{TRT_PAGE}, data of TensorRT-LLM v0.6.1, 'Peak Throughput', table 'A100 GPUs (FP16)', "
    "column 'Throughput (out tok/s)', its TP 1 rows (the header leaves open whether its TP 2 and "
    "4 rows count per GPU, as the H100 table's do); time = batch x output length / throughput; "
    "the 80 GB part (the batch of 384 needs 64.8 GB); the ledger refuses its row of 60 x (128 + "
    "2048) tokens (81.9 GB of fp16 weights and KV cache), left out; checked 2026-12-06"
)
TRT_H200_BLOG = (
    "NVIDIA/TensorRT-LLM docs/source/blogs/H200launch.md (commit 1555478), table 'H200 FP8 Max "
    "throughput' (TensorRT-LLM v0.5.0): column 'Throughput (out tok/s/GPU)' at the stated batch "
    "('largest batch supported ... by power of 2'), TP, input and output lengths; time of the "
    "batch = batch x output length / (throughput x TP); llama_13b and llama_70b as Llama-2's; "
    "FP8 weights and, as in the H100 FP8 builds of that version's performance page, an FP8 KV "
    "cache (assumed); checked 2026-12-07")  # fmt: skip
LLAMA_2_70B_TRT = f"{TRT_PAGE}, the flags of its Llama2-70b build command; {CHECKED}"
FT_GPT_CONFIG = (
    "NVIDIA/FasterTransformer docs/gpt_guide.md (commit df4a753): head_num, size_per_head, "
    f"num_layers, vocab_size as listed; d_ff = 4 d_model (FasterTransformer's GPT); {CHECKED}"
)


# --- Records -----------------------------------------------------------------
@dataclass(frozen=True)
class Measured:
    """One published time: what was run, seconds, and where the number stands."""

    what: str
    seconds: float
    source: str

    def __post_init__(self) -> None:
        positive(self.seconds, f"measured time of {self.what}")


@dataclass(frozen=True)
class ModelRun:
    """A whole-model measurement: phase ('prefill' or 'decode'), GPUs (tensor parallel), time."""

    phase: str
    gpus: int
    tokens: int  # prompt tokens (prefill) or cache length (decode)
    measured: Measured

    def __post_init__(self) -> None:
        positive_int(self.gpus, "GPUs")
        positive_int(self.tokens, "tokens")


@dataclass(frozen=True)
class OperatorRun:
    """One matmul X[n, K] @ W[K, N] in bf16 timed at n tokens."""

    name: str
    n_tokens: int
    K: int
    N: int
    measured: Measured


slips.check_table_source(
    slips.source_of(globals()), __file__, Measured, ModelRun, OperatorRun, Model)  # fmt: skip


def _gpt(name: str, key: str, layers: int, heads: int, source: str, vocab: int = 51200) -> Model:
    """A GPT-style decoder: heads of 128, d_ff = 4 d, ungated MLP, tied embeddings, 2,048 window."""
    d = heads * 128
    return Model(name, key, layers, d, heads, heads, 128, 4 * d, False, vocab, True, 2048, source)


# The 13B model of the benchmark (num_layers 40, n_head 40, hidden_dim 5120, ffn_embed_dim
# 20480, vocab_size 50272, max_seq_len 2048).
GPT_13B = _gpt("13B (kipply's FasterTransformer benchmark)", "gpt-13b", 40, 40,
               LLM_ANALYSIS_13B_CONFIG, vocab=50272)  # fmt: skip

PROMPT = 512  # tokens in the benchmark's prompt; decode runs at batch 1 after it


def _ft(phase: str, gpus: int, ms: float) -> ModelRun:
    what = f"13B {phase}, batch 1, {gpus} x A100 40GB" + (" (tensor parallel)" if gpus > 1 else "")
    return ModelRun(phase, gpus, PROMPT, Measured(what, ms * MS, LLM_ANALYSIS_FT))


#: FasterTransformer on A100 40GB: 512-token prefill and one decode step at batch 1.
FT_13B: tuple[ModelRun, ...] = tuple(
    _ft(phase, g, ms) for phase, g, ms in
    (("prefill", 1, 63.17), ("decode", 1, 22.0), ("prefill", 2, 45.45), ("decode", 2, 13.5))
)  # fmt: skip

LLAMA2_7B_D, LLAMA2_7B_QKV, LLAMA2_7B_UP = 4096, 3 * 4096, 2 * 11008  # vidur fuses Q,K,V; gate,up


def _vidur(name: str, n: int, N: int, ms: float) -> OperatorRun:
    what = f"Llama-2-7B {name}, {n:,} tokens, 1 x A100"
    return OperatorRun(name, n, LLAMA2_7B_D, N, Measured(what, ms * MS, VIDUR_MLP_A100))


#: Single matmuls on one A100 (bf16): the fused gate+up projection [n, 4096] x [4096, 22016]
#: (column time_stats.mlp_up_proj.median) and the fused QKV projection [n, 4096] x [4096, 12288]
#: (time_stats.attn_pre_proj.median).
VIDUR_A100_MATMULS: tuple[OperatorRun, ...] = tuple(
    _vidur(name, n, N, ms) for name, N, by_n in (
        ("gate+up projection", LLAMA2_7B_UP, {1: 0.116, 16: 0.111, 64: 0.116, 128: 0.157,
                                              256: 0.229, 512: 0.402, 1024: 0.877}),
        ("QKV projection", LLAMA2_7B_QKV, {1: 0.065, 64: 0.067, 256: 0.112, 1024: 0.475}),
    ) for n, ms in by_n.items())  # fmt: skip

#: What the blog's own profiles of the same runs found (section 'comparing against real
#: benchmarks'): comms per layer on 2 GPUs, and the matmul FLOP efficiencies of prefill.
KIPPLY_COMMS_PER_LAYER = (
    Measured("all-reduce comms per layer, decode, 2 GPUs (low end)", 40e-6, KIPPLY_PROFILE),
    Measured("all-reduce comms per layer, decode, 2 GPUs (high end)", 50e-6, KIPPLY_PROFILE),
)
KIPPLY_MLP_FLOPS_EFFICIENCY = 0.72  # '476 at the lowest ... we get 72% of the flops we expect'
KIPPLY_ATTN_PROJ_FLOPS_EFFICIENCY = 0.54  # '159 at the lowest, which is 54%'

#: The smallest kernels at one token on an A100 (same file, num_tokens = 1): a floor of
#: fixed cost per kernel launch that no byte or FLOP count explains.
VIDUR_A100_SMALL_KERNELS: tuple[Measured, ...] = (
    Measured("RMSNorm (input_layernorm), 1 token", 0.005 * MS, VIDUR_MLP_A100),
    Measured("residual add (add), 1 token", 0.002 * MS, VIDUR_MLP_A100),
    Measured("SiLU x up (mlp_act), 1 token", 0.007 * MS, VIDUR_MLP_A100),
    Measured("rotary embedding (attn_rope), 1 token", 0.005 * MS, VIDUR_MLP_A100))  # fmt: skip


def dgx_curve(us: dict[int, tuple[float, ...]]) -> dict[int, tuple[tuple[float, float], ...]]:
    """GPUs -> (bytes, seconds): times in µs at 16 KiB, 128 KiB, 1, 4, 16 and 64 MiB."""
    sizes = (2**14, 2**17, 2**20, 2**22, 2**24, 2**26)
    return {g: tuple(zip(sizes, (t / 1e6 for t in ts), strict=True)) for g, ts in us.items()}


#: All-reduce time against message bytes on one DGX A100, per GPU count (VIDUR_ALLREDUCE_DGX).
A100_DGX_ALLREDUCE = dgx_curve(
    {2: (46, 51, 57, 64, 139, 427), 4: (21, 60, 64, 85, 200, 602), 8: (32, 51, 40, 98, 274, 676)}
)
#: Which nodes have a measured all-reduce curve, by chip key: the DGX A100's NVLink 3 and
#: NVSwitch are the same in its 40GB and 80GB versions.
ALLREDUCE_CURVES = {"a100": A100_DGX_ALLREDUCE, "a100-80gb": A100_DGX_ALLREDUCE}
#: The share of HBM bandwidth the blog's decode matmuls reached on two GPUs: 'it doesn't
#: quite get to 90, more like 87' (on one GPU, 0.90 is the hardware table's A100 figure).
KIPPLY_HBM_SHARE = {2: 0.87}


def small_kernel_floor() -> float:
    """Mean time of the smallest kernels at one token, in seconds (a fixed cost per kernel)."""
    return sum(m.seconds for m in VIDUR_A100_SMALL_KERNELS) / len(VIDUR_A100_SMALL_KERNELS)


GPT_20B = _gpt("GPT-20B (FasterTransformer)", "gpt-20b", 44, 48, FT_GPT_CONFIG)
LLAMA_2_13B_CONFIG = (
    "Hugging Face hub, meta-llama/Llama-2-13b-hf, file config.json (num_hidden_layers 40, "
    "hidden_size 5120, num_attention_heads 40, num_key_value_heads 40, intermediate_size "
    "13824, vocab_size 32000, max_position_embeddings 4096); " + CHECKED)  # fmt: skip
LLAMA_2_13B = Model(
    "Llama-2-13B", "llama-2-13b", 40, 5120, 40, 40, 128, 13824, True, 32000, False, 4096,
    LLAMA_2_13B_CONFIG)  # fmt: skip
GPT_6_7B = _gpt("GPT-6.7B (FasterTransformer)", "gpt-6.7b", 32, 32, FT_GPT_CONFIG)
LLAMA_2_70B = Model(
    "Llama-2-70B", "llama-2-70b", 80, 8192, 64, 8, 128, 28672, True, 32000, False, 4096,
    LLAMA_2_70B_TRT)  # fmt: skip


@dataclass(frozen=True)
class Request:
    """A published end-to-end time: model, chip key, GPUs (tensor parallel), batch, prompt
    tokens, generated tokens (0: the prompt pass alone) and the engine that ran it."""

    model: Model
    chip: str
    gpus: int
    batch: int
    prompt: int
    new_tokens: int
    engine: str  # the engine and, after a comma, who published the time
    measured: Measured
    precision: str = "bf16"  # weights, KV cache and activations
    engine_class: str = "trtllm"  # tables.engines.ENGINES (MMHA below)

    @property
    def label(self) -> str:
        """'GPT-20B, 4 x a100-80gb, 128 + 20'; ', batch 8' beyond one, ', fp8' beyond 16 bits."""
        gpus = f"{self.gpus} x {self.chip}"
        tags = f", batch {self.batch}" if self.batch > 1 else ""
        tags += f", {self.precision}" * (self.precision != "bf16")  # fp8 beside its bf16 twin
        head = f"{self.model.name.split(' (')[0]}, {gpus}{tags}"
        return f"{head}, {self.prompt} + {self.new_tokens}"


FT, TRT = "FasterTransformer, kipply", "TensorRT-LLM, its docs"
# Engine class by the version each source states: FasterTransformer and TensorRT-LLM v0.5
# and v0.6.1 (before XQA, v0.8), MMHA; NIM 1.8, trtllm; LMDeploy v0.1.0a1's TurboMind too: it
# reads a KV head g / gcd(g, 4) times (decoder_multihead_attention.cu), Llama-2-70B's twice,
# from L2 in less time than its one HBM read on an A100, so the forecast is the same.
MMHA = "trtllm-mmha"
FT_DOCS = "FasterTransformer, its docs"


def _request(model, chip, gpus, batch, prompt, new, seconds, engine, source, engine_class,
             precision="bf16", named=True) -> Request:  # fmt: skip
    what = f"{model.name}, batch {batch}, {prompt} + {new} tokens, {gpus} x {chip}"
    what += f", {engine}" if named else ""
    for name, n in (("GPUs", gpus), ("batch", batch), ("prompt", prompt)):  # 0 is a slip
        positive_int(n, f"{what}: {name}")
    return Request(model, chip, gpus, batch, prompt, new, engine, Measured(what, seconds, source),
                   precision, engine_class)  # fmt: skip


def _runs(model, chip, engine, source, prompt, new, ms_by_gpus, precision="bf16") -> list:
    return [_request(model, chip, g, 1, prompt, new, ms * MS, engine, source, MMHA, precision,
                     named=False)  # pragma: no mutate (None and False both leave the engine out)
            for g, ms in ms_by_gpus.items()]  # fmt: skip


def _batch(model, gpus, batch, prompt, new, per_gpu, chip="h100") -> Request:
    """A TensorRT-LLM throughput row, v0.6.1's H100s in FP8 or A100s in FP16, v0.5's H200s in
    FP8: time = batch x new / (rate x GPUs)."""
    src, precision = {"h100": (TRT_LLM_V061_H100, "fp8"), "h200": (TRT_H200_BLOG, "fp8"),
                      "a100-80gb": (TRT_LLM_V061_A100, "bf16")}[chip]  # fmt: skip
    return _request(model, chip, gpus, batch, prompt, new, batch * new / (per_gpu * gpus), TRT,
                    src, MMHA, precision,
                    named=False)  # fmt: skip  # pragma: no mutate (None leaves the engine out too)


_FT20, _FT67 = (FT_GPT_GUIDE.format(table=f"Performance of GPT-{s}") for s in ("20B", "6.7B"))
#: Published end-to-end times: A100s at batch 1 (3 sources, 1 to 8 GPUs, 20 to 2,048 tokens),
#: H100s in FP8 (TensorRT-LLM's tables: batch 1 first-token latencies, large-batch throughput,
#: the latter beside A100s in FP16) and eager PyTorch on one A100 (gpt-fast's, 5 + 200 tokens).
REQUESTS: tuple[Request, ...] = (
    *_runs(GPT_13B, "a100", FT, LLM_ANALYSIS_FT, 512, 10, {1: 283.60, 2: 180.86}),
    *_runs(GPT_20B, "a100-80gb", FT_DOCS, _FT20, 20, 8, {1: 225, 2: 147, 4: 102, 8: 89}),
    *_runs(GPT_20B, "a100-80gb", FT_DOCS, _FT20, 128, 20, {1: 566, 2: 362, 4: 254, 8: 217}),
    *_runs(GPT_20B, "a100-80gb", FT_DOCS, _FT20, 200, 200, {1: 5648, 2: 3544, 4: 2481, 8: 2080}),
    *_runs(GPT_6_7B, "a100-80gb", FT_DOCS, _FT67, 128, 8, {1: 98.29}),
    *_runs(GPT_6_7B, "a100-80gb", FT_DOCS, _FT67, 512, 32, {1: 384.70}),
    *_runs(LLAMA_2_7B, "a100-80gb", TRT, TRT_LLM_V05, 128, 0, {1: 16}),
    *_runs(LLAMA_2_7B, "a100-80gb", TRT, TRT_LLM_V05, 2048, 0, {1: 133}),
    *_runs(LLAMA_2_70B, "a100-80gb", TRT, TRT_LLM_V05, 128, 0, {4: 47}),
    *_runs(LLAMA_2_70B, "a100-80gb", TRT, TRT_LLM_V05, 2048, 0, {4: 377}),
    *_runs(LLAMA_2_7B, "h100", TRT, TRT_LLM_V05_H100, 128, 0, {1: 7}, "fp8"),
    *_runs(LLAMA_2_7B, "h100", TRT, TRT_LLM_V05_H100, 2048, 0, {1: 36}, "fp8"),
    *_runs(LLAMA_2_70B, "h100", TRT, TRT_LLM_V05_H100, 128, 0, {4: 26}, "fp8"),
    *_runs(LLAMA_2_70B, "h100", TRT, TRT_LLM_V05_H100, 2048, 0, {4: 109}, "fp8"),
    _batch(LLAMA_2_7B, 1, 768, 128, 128, 19694),
    _batch(LLAMA_2_7B, 1, 112, 128, 2048, 6818),
    _batch(LLAMA_2_7B, 1, 80, 2048, 128, 2244),
    _batch(LLAMA_2_7B, 1, 48, 2048, 2048, 2740),
    _batch(LLAMA_2_70B, 2, 1024, 128, 128, 2657),
    _batch(LLAMA_2_70B, 4, 480, 128, 2048, 1486),
    _batch(LLAMA_2_70B, 2, 96, 2048, 128, 306),
    _batch(LLAMA_2_70B, 2, 64, 2048, 2048, 547),
    _batch(LLAMA_2_7B, 1, 384, 128, 128, 5586, "a100-80gb"),
    _batch(LLAMA_2_7B, 1, 52, 2048, 128, 591, "a100-80gb"),
    *(_batch(m, g, b, p, n, rate, "h200") for m, g, b, p, n, rate in (
        (LLAMA_2_13B, 1, 1024, 128, 128, 11819), (LLAMA_2_13B, 1, 128, 128, 2048, 4750),
        (LLAMA_2_13B, 1, 64, 2048, 128, 1349), (LLAMA_2_70B, 1, 512, 128, 128, 3014),
        (LLAMA_2_70B, 2, 512, 128, 2048, 1654), (LLAMA_2_70B, 1, 64, 2048, 128, 341),
        (LLAMA_2_70B, 1, 32, 2048, 128, 303))),
    _request(LLAMA_2_7B, "a100-80gb", 1, 1, 5, 200, 200 / 25.5, "eager PyTorch, gpt-fast's blog",
             GPT_FAST, "eager", named=False),  # pragma: no mutate (None leaves it out too)
)  # fmt: skip


# --- Serving engines' own published requests (vLLM, LMDeploy, NVIDIA NIM): validation only ---
VLLM_CI = (
    "vLLM's performance benchmark (buildkite.com/vllm/performance-benchmark, build {build}, "
    "page as stored), 'Latency tests': benchmark_latency.py, batch 8, 32 input and 128 output "
    "tokens, bf16 (dtype auto), dummy weights, 5 warm-up and 15 timed iterations, one GPU "
    "model {gpu}; column 'Mean latency (ms)' of the whole batch (prefill and 127 decode steps); "
    + CHECKED)  # fmt: skip
VLLM_CI_H100, VLLM_CI_H200, VLLM_CI_A100 = (
    VLLM_CI.format(build=b, gpu=g)
    for b, g in ((9555, "'8xH100'"), (9515, "'H200'"), (9523, "'A100-SXM4-80GB'")))  # fmt: skip
LMDEPLOY_A100 = (
    "InternLM/lmdeploy docs/en/benchmark/a100_fp16.md (commit 3e391df, lmdeploy v0.1.0a1, "
    "TurboMind engine), 'Static Inference Benchmark': A100-80G, fp16 (bf16's bytes and peak), "
    "column 'throughput(out tok/s)' at the stated batch (concurrent sessions), tp, "
    "prompt_tokens and output_tokens; time of the batch = batch x output tokens / "
    "throughput (the benchmark's own division, prefill included); " + CHECKED)  # fmt: skip
NIM_70B = (
    "NVIDIA NIM for LLMs benchmarking guide 1.0.0 (docs.nvidia.com/nim/benchmarking/llm/1.0.0/"
    "performance), 'Llama-3.3-70b-instruct Results', NIM 1.8.0, 2 x H100 80G, 'fp8 TP2', "
    "concurrency 1 (AIPerf, client side): 500 input / 2000 output tokens, TTFT 47.77 ms and ITL "
    "18.91 ms; 5000 input / 500 output, TTFT 406.77 ms and ITL 18.58 ms; the whole request = "
    "TTFT + (output - 1) x ITL; checked 2026-12-07")  # fmt: skip
VLLM_PR_2192 = (
    "vllm-project/vllm pull request #2192, 'Custom all reduce kernels' (2023-12-19), table "
    "'Latency and memory': benchmark_latency.py -tp 4 --input-len 256 --output-len 256 "
    "--batch-size 64, 'Llama 70B' on A100-80G, 'L after' 14.57 s (with the PR's custom "
    "all-reduce and CUDA graphs); " + CHECKED)  # fmt: skip
RKOOO_LLM_BENCHMARK = (
    "rkooo567/llm_benchmark README.md (2023-09-07, commit 6597835): 'llama2-70B', 'A100(40GiB)"
    "x8, with tensor para = 8', whole batch time; vLLM of that month (v0.1.x: no CUDA graphs, "
    "Ray workers; benchmark_vllm.py, sampling top_k 50) and 'Triton' (Triton server's "
    "FasterTransformer backend, benchmark_triton.py; TensorRT-LLM was not yet released); " + CHECKED
)
#: Llama-3.1-8B and Llama-3.3-70B have the shapes of Llama-3-8B and Llama-3-70B (longer RoPE
#: windows); only the window differs, and no request here comes near it.
LLAMA_3_1_8B = what_if(
    LLAMA_3_8B,
    "Llama-3.1-8B",
    "llama-3.1-8b",
    "Llama-3-8B's shapes with a 131,072-token window",
    max_context=131072)  # fmt: skip
LLAMA_3_3_70B = what_if(LLAMA_3_70B, "Llama-3.3-70B", "llama-3.3-70b",
                        f"Llama-3-70B's shapes ({models.LLAMA_3_70B_CONFIG}) with a 131,072-token "
                        "window", max_context=131072)  # fmt: skip
VLLM, LMDEPLOY, NIM = "vLLM, its CI", "LMDeploy, its docs", "NVIDIA NIM, its docs"
QWEN3_8B_CONFIG = (
    "Hugging Face hub, Qwen/Qwen3-8B, config.json (num_hidden_layers 36, hidden_size 4096, "
    "num_attention_heads 32, num_key_value_heads 8, head_dim 128, intermediate_size 12288, "
    "vocab_size 151936, untied, max_position_embeddings 40960; a q and a k norm of 128 each "
    "layer), as printed in citsjtu2020/LLM-Prof sglang/Model_Config.md (commit 8434c8d); "
    "checked 2026-12-07")  # fmt: skip
QWEN3_8B = Model(name="Qwen3-8B", key="qwen3-8b", n_layers=36, d_model=4096, n_heads=32,
                 n_kv_heads=8, d_head=128, d_ff=12288, gated_mlp=True, vocab_size=151936,
                 tied_embeddings=False, max_context=40960, config_source=QWEN3_8B_CONFIG,
                 qk_norm=True, extra_layer_params=2 * 128)  # fmt: skip
GPUSTACK = (
    "gpustack/gpustack docs/performance-lab/qwen3-8b/h100-latency.md (commit 1dbc3b8), one "
    "H100 SXM; vLLM v0.11.0, SGLang v0.5.3.post3, TensorRT-LLM v1.2.0rc1 (trtllm-serve), each "
    "as served by default; 'vllm bench serve' of 100 ShareGPT requests (23,260 prompt and "
    "22,061 generated tokens: 232.6 and 220.6 on average) at the stated maximum concurrency; "
    "the request of those mean lengths = mean TTFT + 220 x mean TPOT, as the page's 'Mean "
    "latency per request'; Qwen/Qwen3-8B in bf16, Qwen/Qwen3-8B-FP8 (FP8 weights) for its FP8 "
    "row; checked 2026-12-07")  # fmt: skip
SGLANG_H200, SGLANG_B200 = (
    f"sgl-project/sglang pull request #{pr}: DeepSeek-V3's FP8 weights, tensor parallel over 8 (its"
    f" launch command), KV cache bf16; {runs}; checked 2026-12-07" for pr, runs in (
    ("2643 (v0.4.1.post2, 2024-12-29), 'Using CUDA Graph and FP8 GEMM Tuning'", "128 + 256 tokens"
     " at batch 1, 8 and 32: 30.29, 206.32 and 760.52 token/s, read as batch x 256 over the "
     "request's time (the launch command shown also enables DP attention, for its ShareGPT run); "
     "GPUs not named: eight H200s assumed, the one Hopper node that holds its 671 GB, whose fused "
     "MoE the same team tuned (issue #2591: 'device_name=NVIDIA_H200')"),
    ("6111 (2025-05-08), Triton configs for its fused MoE 'on Blackwell', 'after tuning'", "bench_"
     "one_batch_server, 512 + 512 tokens, 'latency' 10.95 s at batch 1 and 13.89 s at 32; eight "
     "B200s assumed: the author's #6939 adds this model's configs 'E=257 on B200'")))  # fmt: skip
NIM_DLI = (
    "NVIDIA Deep Learning Institute's course data of NIM benchmarks ('a benchmark run against an "
    "older version of NVIDIA NIM': NIM_TRT-LLM, GenAI-Perf), dataset/nim.csv as carried by "
    "wbing520/ai-performance-engineering code/ch10_inference/inference_gpu_cluster_sizing "
    "(commit 0e25b2e); its rows at concurrency 1, column request_latency-avg (client side, the "
    "whole request), synthetic prompts of the stated mean length, max_tokens new tokens; meta-"
    "llama3-8b- and 70b-instruct on A100-SXM4-80GB and H100_80GB_HBM3, fp16 (bf16's bytes and "
    "peak), bf16 or fp8; class trtllm-single-block, assumed: the data are older than the NIM "
    "1.0.3 its notebooks deploy (99-Deploy-Llama-NIM.ipynb), a release before NIM 1.1 brought "
    "Llama 3.1 (2024-07-23), so built by a TensorRT-LLM before v0.12 (its PR #2164, 2024-08-29), "
    "where multi-block mode is a build option, off by default; checked 2026-12-07")  # fmt: skip
#: The NIM course data's (prompt, new tokens), then (model, chip, GPUs, precision) -> seconds.
NIM_DLI_TOKENS = ((200, 200), (200, 1000), (200, 2000), (2000, 200), (2000, 2000), (7000, 1000))
NIM_DLI_S = {
    (LLAMA_3_8B, "a100-80gb", 1, "bf16"): (2.429, 12.217, 24.829, 2.680, 26.317, 15.408),
    (LLAMA_3_8B, "a100-80gb", 2, "bf16"): (1.649, 8.346, 17.077, 1.863, 18.563, 11.303),
    (LLAMA_3_8B, "h100", 1, "bf16"): (1.482, 7.388, 15.051, 1.616, 16.117, 9.367),
    (LLAMA_3_8B, "h100", 1, "fp8"): (1.027, 5.213, 10.802, 1.192, 12.116, 7.592),
    (LLAMA_3_8B, "h100", 2, "bf16"): (1.094, 5.606, 11.661, 1.238, 12.670, 7.495),
    (LLAMA_3_8B, "h100", 2, "fp8"): (0.924, 4.744, 9.797, 1.073, 11.059, 7.069),
    (LLAMA_3_70B, "a100-80gb", 4, "bf16"): (6.009, 30.394, 61.588, 6.688, 65.336, 38.125),
    (LLAMA_3_70B, "a100-80gb", 8, "bf16"): (4.395, 22.424, 46.115, 5.069, 50.765, 31.749),
    (LLAMA_3_70B, "h100", 4, "bf16"): (3.782, 19.288, 38.865, 4.152, 41.409, 24.261),
    (LLAMA_3_70B, "h100", 4, "fp8"): (2.760, 14.331, 29.102, 3.170, 32.183, 19.821),
    (LLAMA_3_70B, "h100", 8, "bf16"): (2.859, 14.639, 29.924, 3.216, 32.125, 19.424),
    (LLAMA_3_70B, "h100", 8, "fp8"): (2.413, 12.455, 25.413, 2.824, 28.679, 17.836)}  # fmt: skip
ARGONNE = (
    "argonne-lcf/LLM-Inference-Bench (commit 4211f5d), Plots/All_results.csv, column 'Latency' "
    "(s, the whole batch), 'Nvidia H100 GPU' (the JLSE testbed's H100 80GB HBM3: llama.cpp/H100/"
    "README.MD's nvidia-smi), 1,024 input and 1,024 output tokens, float16 (bf16's bytes and "
    "peak), tensor parallel; {}; its A100 rows are left out (it does not say which A100); "
    "checked 2026-12-07")  # fmt: skip
ARGONNE_VLLM, ARGONNE_TRT = map(ARGONNE.format, (
    "vLLM 0.5 (vLLM/H100/run-throughput-bench.sh runs its benchmark_latency.py, with v0.5's "
    "arguments; the GH200 script pins 0.5.3.post1)",
    "TensorRT-LLM 0.11.0 (TensorRT-LLM/H100/requirements.txt; its README builds engines with "
    "--gemm_plugin float16 and times them with run.py --run_profiling, which sets no "
    "cuda_graph_mode: no CUDA graphs, the executor's default, NVIDIA/TensorRT-LLM cpp/include/"
    "tensorrt_llm/executor/executor.h, commit 879039f, cudaGraphMode = false; the trtllm class "
    "assumes them, and no source here gives the C++ runtime's cost per launch)"))  # fmt: skip


def _vllm_ci(chip: str, source: str, ms: tuple[float, float, float]) -> list[Request]:
    """The three latency tests of one GPU model: 8B on 1, 70B on 4, Mixtral on 2 GPUs."""
    runs = ((LLAMA_3_1_8B, 1), (LLAMA_3_70B, 4), (MIXTRAL_8X7B, 2))
    return [_request(m, chip, g, 8, 32, 128, t * MS, VLLM, source, "vllm")
            for (m, g), t in zip(runs, ms, strict=True)]  # fmt: skip


def _lmdeploy(model: Model, gpus: int, rows: dict[tuple[int, int], float]) -> list[Request]:
    """(batch, prompt) -> output tok/s at 128 new tokens: time = batch x 128 / rate."""
    return [_request(model, "a100-80gb", gpus, b, p, 128, b * 128 / rate, LMDEPLOY, LMDEPLOY_A100,
                    "trtllm") for (b, p), rate in rows.items()]  # fmt: skip


def _argonne(model: Model, engine: str, source: str, engine_class: str,
             by_gpus: dict[int, tuple[float, ...]]) -> list[Request]:  # fmt: skip
    """GPUs -> seconds at batch 1, 16, 32 and 64 (as many as were run), 1,024 + 1,024 tokens."""
    return [_request(model, "h100", g, b, 1024, 1024, s, engine, source, engine_class)
            for g, times in by_gpus.items()
            for b, s in zip((1, 16, 32, 64), times, strict=False)]  # fmt: skip


#: Serving engines' requests from sources the forecast takes no term from: vLLM's CI on three
#: chips, LMDeploy's A100 table (batch 1 and 64 at 128 and 2,048 prompt tokens, 128 new;
#: batch 16 at 128), NIM on two H100s in FP8, vLLM's all-reduce PR, one 8-GPU comparison,
#: Argonne's benchmark of vLLM and TensorRT-LLM on 1 to 4 H100s, GPUStack's Qwen3-8B, and
#: NVIDIA's NIM course data (Llama-3 8B and 70B, one request at a time, 1 to 8 A100s or H100s).
SERVING_REQUESTS: tuple[Request, ...] = (
    *_vllm_ci("h100", VLLM_CI_H100, (997.542, 2444.47, 2326.97)),
    *_vllm_ci("h200", VLLM_CI_H200, (833.421, 2077.53, 1917.44)),
    *_vllm_ci("a100-80gb", VLLM_CI_A100, (1579.27, 3990.59, 3643.84)),
    *_lmdeploy(LLAMA_2_7B, 1, {(1, 128): 102.21, (1, 2048): 86.1, (16, 128): 1272.47,
                               (64, 128): 3024.07, (64, 2048): 493.46}),
    *_lmdeploy(LLAMA_2_13B, 1, {(1, 128): 56.58, (1, 2048): 48.99, (16, 128): 757.3,
                                (64, 128): 2033.22, (64, 2048): 286.32}),
    *_lmdeploy(LLAMA_2_70B, 4, {(1, 128): 33.63, (1, 2048): 28.32, (16, 128): 439.77,
                                (64, 128): 1159.84, (64, 2048): 270.47}),
    *(_request(LLAMA_3_3_70B, "h100", 2, 1, prompt, n, (ttft + (n - 1) * itl) * MS, NIM,
               NIM_70B, "trtllm", "fp8") for prompt, out, ttft, itl in (
        (500, 2000, 47.77, 18.91), (5000, 500, 406.77, 18.58)) for n in (1, out)),
    _request(LLAMA_2_70B, "a100-80gb", 4, 64, 256, 256, 14.57, "vLLM, its PR #2192", VLLM_PR_2192,
            "vllm-single-step"),
    _request(LLAMA_2_70B, "a100", 8, 32, 1, 2048, 133.70, "vLLM v0.1, rkooo567",
            RKOOO_LLM_BENCHMARK, "vllm-eager"),
    _request(LLAMA_2_70B, "a100", 8, 24, 1024, 1024, 76.12, "vLLM v0.1, rkooo567",
            RKOOO_LLM_BENCHMARK, "vllm-eager"),
    _request(LLAMA_2_70B, "a100", 8, 32, 1, 2048, 70.19, "FasterTransformer, rkooo567",
            RKOOO_LLM_BENCHMARK, MMHA),
    _request(LLAMA_2_70B, "a100", 8, 24, 1024, 1024, 38.97, "FasterTransformer, rkooo567",
            RKOOO_LLM_BENCHMARK, MMHA),
    *_argonne(LLAMA_3_8B, "vLLM 0.5, Argonne", ARGONNE_VLLM, "vllm-single-step-flash",
              {1: (8.098, 11.025, 13.057, 18.809), 2: (6.687, 9.668, 11.390, 15.714),
               4: (6.016, 7.792, 9.705, 13.651)}),
    *_argonne(LLAMA_3_70B, "vLLM 0.5, Argonne", ARGONNE_VLLM, "vllm-single-step-flash",
              {4: (19.610, 24.695, 30.235, 35.083)}),
    *_argonne(LLAMA_3_8B, "TensorRT-LLM 0.11, Argonne", ARGONNE_TRT, "trtllm",
              {1: (7.729, 10.157, 12.493, 17.483), 2: (5.788, 6.981, 8.599, 11.955),
               4: (4.522, 5.317)}),
    *_argonne(LLAMA_3_70B, "TensorRT-LLM 0.11, Argonne", ARGONNE_TRT, "trtllm",
              {4: (19.861, 23.560, 27.298, 32.455)}),
    *(_request(QWEN3_8B, "h100", 1, c, 233, 221, (ttft + 220 * tpot) * MS, name, GPUSTACK, kind,
               p) for c, ttft, tpot, name, kind, p in (
        (1, 59.01, 7.28, "vLLM 0.11, GPUStack", "vllm", "bf16"),
        (2, 63.78, 7.37, "vLLM 0.11, GPUStack", "vllm", "bf16"),
        (4, 64.00, 7.38, "vLLM 0.11, GPUStack", "vllm", "bf16"),
        (8, 74.57, 7.71, "vLLM 0.11, GPUStack", "vllm", "bf16"),
        (4, 27.70, 7.19, "SGLang 0.5, GPUStack", "sglang", "bf16"),
        (4, 51.61, 7.67, "TensorRT-LLM 1.2, GPUStack", "trtllm", "bf16"),
        (4, 39.66, 5.65, "SGLang 0.5, GPUStack", "sglang", "fp8"))),
    *(_request(models.DEEPSEEK_V3, "h200", 8, b, 128, 256, b * 256 / r, "SGLang 0.4.1, its PR",
               SGLANG_H200, "sglang", "fp8") for b, r in ((1, 30.29), (8, 206.32), (32, 760.52))),
    *(_request(models.DEEPSEEK_V3, "b200", 8, b, 512, 512, t, "SGLang of 2025-05, its PR",
               SGLANG_B200, "sglang", "fp8") for b, t in ((1, 10.95), (32, 13.89))),
    *(_request(m, chip, g, 1, p, n, s, "NVIDIA NIM, its DLI course", NIM_DLI,
               "trtllm-single-block", precision)
      for (m, chip, g, precision), times in NIM_DLI_S.items()
      for (p, n), s in zip(NIM_DLI_TOKENS, times, strict=True)))  # fmt: skip
#: Every published request lecture 11 predicts: the course's first sources, then the engines'.
ALL_REQUESTS: tuple[Request, ...] = (*REQUESTS, *SERVING_REQUESTS)

# --- A bulk check: TensorRT-LLM 0.9's own benchmark runs (TRTLLM_DLI_CSV) ----------------
TRTLLM_DLI = (
    "NVIDIA Deep Learning Institute's course data of TensorRT-LLM 0.9.0 benchmarks, dataset/"
    "trt_llm_0_9_0_dli.csv as carried by wbing520/ai-performance-engineering code/ch11_inference/"
    "inference_gpu_cluster_sizing (commit 5a4d0c3): one timed run after one warm-up, fake "
    "weights, XQA on and, on 2 to 8 GPUs, the custom all-reduce; column 'Latency (ms)', the "
    "whole batch (its '1st Token Latency' + (output - 1) x its 'Token-to-token Latency'); "
    "precision 'Mixed' as 16 bits (bf16's bytes and peak: its Llama-2-7B runs peak at 14.5 GB "
    "of GPU memory, its FP8 ones at 8.3 GB); its rows of Llama-2 7B, 13B and 70B and Mistral "
    "7B on A100-SXM4-80GB, H100 80GB HBM3 and H200 141GB HBM3 that timed; checked 2026-12-07"
)
MISTRAL_7B_CONFIG = (
    "Hugging Face hub, mistralai/Mistral-7B-v0.1's config.json as its copy dfurman/Mistral-7B-"
    "v0.1-fork holds it (commit 531f4159): num_hidden_layers 32, hidden_size 4096, "
    "num_attention_heads 32, num_key_value_heads 8, intermediate_size 14336, vocab_size 32000, "
    "max_position_embeddings 32768, sliding_window 4096 (v0.2 has the same shapes); checked "
    "2026-12-07")  # fmt: skip
MISTRAL_7B = Model(
    "Mistral-7B", "mistral-7b", 32, 4096, 32, 8, 128, 14336, True, 32000, False, 32768,
    MISTRAL_7B_CONFIG, sliding_window=4096, sliding_layers=32)  # fmt: skip
TRTLLM_DLI_CSV = Path(__file__).with_name("trtllm_0_9_dli.csv")  # the source's rows, verbatim
DLI_MODELS = {"LLaMA v2 7B": LLAMA_2_7B, "LLaMA v2 13B": LLAMA_2_13B,
              "LLaMA v2 70B": LLAMA_2_70B, "Mistral 7B": MISTRAL_7B}  # fmt: skip
DLI_GPUS = {"A100-SXM4-80GB": "a100-80gb", "H100 80GB HBM3": "h100", "H200 141GB HBM3": "h200"}


def dli_requests(path: Path = TRTLLM_DLI_CSV) -> tuple[Request, ...]:
    """TRTLLM_DLI's runs, class trtllm-single-block, but those past the model's window: prompt +
    output - 1 positions over max_context (Llama-2's 128 + 4,096), which common.predict refuses."""
    runs = []
    with open(path, newline="", encoding="utf-8") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:  # the counts checked by _request, the time by Measured
                model, tokens = DLI_MODELS[row["Model"]], row["Input/Output Lengths"].split(",")
                (p, n), fp8 = map(int, tokens), row["Precision"] == "FP8"
                run = _request(model, DLI_GPUS[row["GPU"]], int(row["Tensor Model Parallel Size"]),
                               int(row["Batch Size"]), p, n, float(row["Latency (ms)"]) * MS,
                               "TensorRT-LLM 0.9, NVIDIA DLI", TRTLLM_DLI, "trtllm-single-block",
                               "fp8" if fp8 else "bf16")  # fmt: skip
            except (KeyError, ValueError, TypeError) as exc:  # an unknown name, a bad number
                said = f"unknown {exc}" if isinstance(exc, KeyError) else exc
                raise slips.SlipError(f"{slips.shown(str(path))} line {line}: {said}") from None
            runs += [run] * (p + n - 1 <= model.max_context)
    return tuple(runs)


# --- Expert-parallel dispatch and combine (DeepEP), the network roofs of a mixture's layers ---
US = 1e-6
DEEPEP = (
    "deepseek-ai/DeepEP README.md (commit 0aaa674, the V1 tables, after the 2025-04-22 "
    "optimisation of its PR #130), section 'Performance'")  # fmt: skip
DEEPEP_NORMAL = (
    f"{DEEPEP}, 'Normal kernels with NVLink and RDMA forwarding': H800 ('~160 GB/s NVLink "
    "maximum bandwidth'), each GPU with one CX7 InfiniBand 400 Gb/s card ('~50 GB/s maximum "
    "bandwidth'); 4096 tokens per batch, hidden 7168, top-4 groups, top-8 experts, FP8 "
    f"dispatch, BF16 combine; 'bottleneck bandwidth' per kernel; {CHECKED}")  # fmt: skip
DEEPEP_LL = (
    f"{DEEPEP}, 'Low-latency kernels with pure RDMA': H800, one CX7 InfiniBand 400 Gb/s "
    "card per GPU; 128 tokens per batch, hidden 7168, top-8 experts, FP8 dispatch, BF16 "
    f"combine; latency of one dispatch or one combine call; {CHECKED}")  # fmt: skip


@dataclass(frozen=True)
class Term:
    """One published figure a forecast uses: value (SI units), source, what it informs."""

    what: str
    value: float
    source: str
    #: the lecture 11 cases (labels) it was taken from, calibration; cases named nowhere: validation
    informs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        positive(self.value, self.what)


@dataclass(frozen=True)
class EPRun:
    """DeepEP's low-latency dispatch and combine at one expert-parallel size."""

    ep: int
    dispatch: Measured
    combine: Measured


#: The conditions of DeepEP's low-latency table: tokens per GPU, hidden size, experts per
#: token, bytes per element (FP8 with one fp32 scale per 128 elements; BF16).
DEEPEP_TOKENS, DEEPEP_HIDDEN, DEEPEP_TOPK = 128, 7168, 8
DEEPEP_DISPATCH_BYTES, DEEPEP_COMBINE_BYTES = 1 + 4 / 128, 2
DEEPEP_NODE_GPUS = 8  # H800 nodes of 8 GPUs on NVLink
#: The links' bandwidths (B/s, one direction, per GPU) the EP forecast takes (DEEPEP_NORMAL).
H800_NVLINK = Term("H800 NVLink, '~160 GB/s maximum'", 160e9, DEEPEP_NORMAL)
CX7_IB = Term("CX7 InfiniBand 400 Gb/s card, '~50 GB/s maximum'", 50e9, DEEPEP_NORMAL)


def _ll(ep: int, dispatch_us: float, combine_us: float) -> EPRun:
    what = f"DeepEP low-latency {{}}, EP {ep}, 128 tokens, hidden 7168, top-8, H800"
    calls = (("dispatch (FP8)", dispatch_us), ("combine (BF16)", combine_us))
    return EPRun(ep, *(Measured(what.format(call), us * US, DEEPEP_LL) for call, us in calls))


#: Latency of one call by EP size (DEEPEP_LL).
DEEPEP_LOW_LATENCY: tuple[EPRun, ...] = (
    _ll(8, 77, 114), _ll(16, 118, 195), _ll(32, 155, 273),
    _ll(64, 173, 314), _ll(128, 192, 369), _ll(256, 194, 360))  # fmt: skip
#: The EP size whose dispatch latency calibrates the per-call latency (all others validate).
DEEPEP_CALIBRATION_EP = 8
#: Normal kernels' bottleneck bandwidths (B/s) by EP size, dispatch and combine
#: (DEEPEP_NORMAL): they only check that the roofs above are reached, informing nothing.
DEEPEP_NORMAL_BW = {8: (153e9, 158e9), 16: (43e9, 43e9), 32: (58e9, 57e9), 64: (51e9, 50e9)}


# --- vLLM's fused MoE kernel timed alone on an H100 (lecture 13's check of the routed experts) ---
VLLM_PR_24700 = (
    "vllm-project/vllm pull request #24700, 'Improve default fused moe configs by analyzing "
    "tuned configs' (2025-09-11), 'Benchmarks on H100' (NVIDIA_H100_80GB_HBM3): "
    "benchmarks/kernels/benchmark_moe.py, 'Kernel time' of one fused MoE call (the top-k of "
    "random router logits, both grouped matmuls, SiLU x up, the sum over a token's experts; "
    "one GPU's shard, replayed from a CUDA graph) at each batch of tokens: {}; checked 2026-12-07"
)


@dataclass(frozen=True)
class KernelSweep:
    """One kernel timed alone at several token counts: the model whose layer it runs, the
    tensor-parallel GPUs its shard is cut for (one of them runs it), the precision."""

    model: Model
    chip: str
    gpus: int
    precision: str
    times: tuple[tuple[int, Measured], ...]  #: (tokens, time), rising tokens


def _fused_moe(model: Model, gpus: int, precision: str, run: str, us: tuple) -> KernelSweep:
    src, what = VLLM_PR_24700.format(run), f"vLLM fused MoE, {model.name}, {{}} tokens, H100"
    batches = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096)
    runs = zip(batches[: len(us)], us, strict=True)  # a time past the last batch: an error
    times = tuple((n, Measured(what.format(n), t * US, src)) for n, t in runs)
    return KernelSweep(model, "h100", gpus, precision, times)


FUSED_MOE_H100 = (  # its two runs as printed, microseconds at 1, 2, 4, ... tokens
    _fused_moe(MIXTRAL_8X7B, 2, "bf16", "Mixtral BF16 -tp=2 at its tuned configuration "
               "(E=8,N=7168,device_name=NVIDIA_H100_80GB_HBM3.json), 1 to 1,536 tokens",
               (144.03, 229.28, 351.10, 434.98, 471.49, 478.27, 487.35, 487.85, 483.14,
                494.42, 491.39, 536.77, 662.33, 833.72, 1122.93)),
    _fused_moe(models.QWEN3_30B_A3B, 1, "fp8", "Qwen3-30B-A3B --dtype=fp8_w8a8 -tp=1, its rows "
               "'# Main' (before the pull request's new defaults), 1 to 4,096 tokens",
               (44.54, 59.94, 90.46, 129.77, 185.40, 215.99, 238.37, 257.83, 262.73, 270.98,
                273.72, 355.49, 391.86, 536.33, 727.31, 911.64, 1279.17, 1647.57)),
)  # fmt: skip


# --- A fleet's published day: DeepSeek's inference service (lecture 14's end-to-end check) ---
DEEPSEEK_DAY6 = (
    "deepseek-ai/open-infra-index, 202502OpenSourceWeek/"
    "day_6_one_more_thing_deepseekV3R1_inference_system_overview.md (commit 3122a25, "
    "2025-03-01), section 'Statistics of DeepSeek's Online Service': DeepSeek-V3 and R1 on "
    "H800 nodes of 8 GPUs, FP8 matmuls and dispatch, BF16 MLA and combine; prefill EP32 "
    "(units of 4 nodes), decode EP144 (units of 18 nodes); 24 hours from 2025-02-27 12:00 to "
    f"02-28 12:00 UTC+8; all web, app and API requests; {CHECKED}")  # fmt: skip
DEEPSEEK_V3_MTP = (
    "DeepSeek-AI, 'DeepSeek-V3 Technical Report' (arXiv 2412.19437), section 5.4.3 "
    "'Multi-Token Prediction Evaluation': one MTP module predicts the second token, whose "
    "acceptance rate 'ranges between 85% and 90% across various generation topics', "
    f"'delivering 1.8 times TPS (Tokens Per Second)'; {CHECKED}")  # fmt: skip


@dataclass(frozen=True)
class Fleet:
    """A provider's published day of serving: nodes, tokens, per-node rates and cost."""

    what: str
    chip: str  # the GPU, as the operator names it
    gpus_per_node: int
    hours: float  # the statistics' period
    nodes_average: float  # nodes serving, averaged over the period
    nodes_peak: int
    input_tokens: float  # over the period, cache hits included
    cached_input_tokens: float  # of which hit the KV cache on disk
    output_tokens: float
    prefill_per_node: float  # input tokens/s per node during prefill (cache hits included)
    decode_per_node: float  # output tokens/s per node during decode
    output_speed: tuple[float, float]  # tokens/s one request sees, low and high end
    kv_length: float  # average KV-cache length per output token
    price_per_gpu_hour: float  # the lease price the cost assumes, $
    daily_cost: float  # $ over the period
    revenue: float  # $ over the period, every token at the prices below
    margin: float  # (revenue - cost) / cost, as published
    prices: tuple[float, float, float]  # $/M tokens: cached input, uncached input, output
    source: str

    def __post_init__(self) -> None:
        for name in ("hours", "nodes_average", "input_tokens", "output_tokens",
                     "prefill_per_node", "decode_per_node", "price_per_gpu_hour"):  # fmt: skip
            positive(getattr(self, name), f"{self.what}: {name}")
        positive_int(self.gpus_per_node, f"{self.what}: GPUs per node")


#: DeepSeek's V3/R1 service over 24 hours (DEEPSEEK_DAY6); B = 1e9 tokens.
DEEPSEEK_FLEET = Fleet(
    what="DeepSeek-V3/R1 online service, one day", chip="H800", gpus_per_node=8, hours=24,
    nodes_average=226.75, nodes_peak=278, input_tokens=608e9, cached_input_tokens=342e9,
    output_tokens=168e9, prefill_per_node=73.7e3, decode_per_node=14.8e3, output_speed=(20, 22),
    kv_length=4989, price_per_gpu_hour=2.0, daily_cost=87072, revenue=562027,
    margin=5.45,  # 'a cost profit margin of 545%'
    prices=(0.14, 0.55, 2.19), source=DEEPSEEK_DAY6,
)  # fmt: skip
#: The published cache-hit share of the input, '342B tokens (56.3%)': checked, not used.
DEEPSEEK_CACHE_HIT_SHARE = 0.563
#: DeepSeek-V3's multi-token prediction (DEEPSEEK_V3_MTP): one draft token a step, its
#: second-token acceptance range (checked) and the speed-up it gave (the figure used).
MTP_DRAFT_TOKENS = 1
MTP_ACCEPTANCE = (0.85, 0.90)
MTP_SPEEDUP = 1.8


def sources() -> list[str]:
    """Every distinct source of the records above, in the order the lecture uses them."""
    records = [
        *(r.measured for r in FT_13B), *KIPPLY_COMMS_PER_LAYER,
        *(r.measured for r in VIDUR_A100_MATMULS), *VIDUR_A100_SMALL_KERNELS,
        *(r.measured for r in ALL_REQUESTS),
    ]  # fmt: skip
    configs = [GPT_20B.config_source, LLAMA_2_70B.config_source, LLAMA_2_13B.config_source]
    configs += [TRTLLM_DLI, MISTRAL_7B_CONFIG]  # lecture 11's bulk check (dli_requests)
    return list(dict.fromkeys([*(m.source for m in records), VIDUR_ALLREDUCE_DGX, *configs]))


slips.check_records(globals())
