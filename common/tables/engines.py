"""The engine terms of a forecast, each a published measurement with its source and conditions.

A forecast adds to the roofline bound what an engine measurably pays: per chip generation
the share of peak a cuBLAS GEMM reaches at M rows, the start-up time and bandwidth of a
weight-bound GEMM (t0 + D / beta), the smallest kernel's time and the all-reduce curve; per engine
class a cost per step and per kernel launch. A figure's ``informs`` names the lecture 11
cases it came from (calibration; the rest validate). Times are seconds; an unpublished
figure is absent.
"""

from __future__ import annotations

import csv
import dataclasses
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from common.tables import measurements as pub
from common.tables import slips
from common.tables.measurements import CHECKED, MS, VIDUR_A100_SMALL_KERNELS, Term, dgx_curve
from common.tables.validate import positive, positive_int

US = 1e-6

# --- Sources ------------------------------------------------------------------
VIDUR = "microsoft/vidur (github.com/microsoft/vidur, commit 7d47513)"
VIDUR_MLP = (
    f"{VIDUR}, data/profiling/compute/{{gpu}}/meta-llama/Llama-2-7b-hf/mlp.csv: bf16, "
    "num_tensor_parallel_workers = g (g = 1, 2, 4, 8: one GPU's shard, N / g columns), column "
    "time_stats.<operator>.median (ms, CUDA-event timed kernels of a PyTorch model, no CUDA "
    f"graphs; the first row where a shape repeats); {CHECKED}")  # fmt: skip
VIDUR_ALLREDUCE_H100 = (
    f"{VIDUR}, data/profiling/network/h100_dgx/all_reduce.csv (a DGX H100: 8 x H100 80GB, "
    "NVLink 4 over NVSwitch; NCCL kernel time of an fp16 all-reduce, size in bytes): rows with "
    "num_workers = devices_per_node = g; each point the median of time_stats.all_reduce.median "
    f"over the 9 rows nearest that size, as for the A100 curve; {CHECKED}")  # fmt: skip
VLLM_RFC_6854 = (
    "vllm-project/vllm issue #6854, '[RFC]: Multi-Step Scheduling' (2024-07-26): profile of vLLM's "
    "OpenAI server before multi-step scheduling (v0.5.x, Meta-Llama-3-8B, 1 GPU): 'each "
    "highlighted redbox is about 4ms of GPU bubble ... this overhead is incurred on every decode' "
    "(CPU scheduling, input preparation, output processing), and 'with multi-step-8, the 4ms only "
    "needs to be incurred once for every 8 decode' steps: the engine class is vLLM from v0.6 on "
    f"(multi-step, then asynchronous scheduling), 4 ms / 8 per step; {CHECKED}")  # fmt: skip
VLLM_PR_1440 = (
    "vllm-project/vllm pull request #1440, 'CUDA graph for Llama' (2023-10-20): Llama-2-7B, "
    "no tensor parallelism, batch 1, 5 input + 100 output tokens: 'about 1.05s ... with CUDA "
    "graph ... vs about 1.2s without' (GPU not stated); per kernel: the 0.15 s over 100 steps "
    f"of 483 kernels each (the ledger's count for a Llama-2-7B decode step); {CHECKED}"
)

SGLANG_PR_2904 = (
    "sgl-project/sglang pull request #2904, 'optimize custom allreduce kernel' (2025-01-15), "
    "table 'unit test performance in H100 (without cuda graph)', rows {rows} on 2, 4 and 8 "
    "H100s; float32 tensors of 512 to 1,048,576 elements (2 KiB to 4 MiB); each figure the host "
    "time of 5,000 back-to-back calls over 5,000 (the PR's sgl-kernel/tests/test_trt_reduce.py), "
    f"an upper bound on what a CUDA-graph replay pays; {CHECKED}")  # fmt: skip
SGLANG_VLLM_AR = SGLANG_PR_2904.format(
    rows="'vllm' (vLLM's custom all-reduce: vllm._custom_ops.all_reduce, one-shot over NVLink "
    "peer memory)")  # fmt: skip
SGLANG_TRT_AR = SGLANG_PR_2904.format(
    rows="'custom allreduce' (TensorRT-LLM's one-shot and two-shot kernels as sgl-kernel carries "
    "them: sgl-kernel/src/sgl-kernel/csrc/trt_reduce_internal.cu, commit 4fd490c, 'reference: "
    "TensorRT-LLM release/0.14 customAllReduceKernels.cu', the PR trimming their index "
    "arithmetic; each copies its input to the shared buffer first, as the plugin TensorRT-LLM "
    "builds into its engines by default does: tensorrt_llm/plugin/plugin.py, commit 035b99e, "
    "PluginConfig.use_custom_all_reduce = True, for NVLink nodes)")  # fmt: skip

FP8_ENGINE_BUILD = (
    f"{pub.TRT_PAGE}, section 'Benchmarking per Model': every H100 engine of its tables is built "
    "with '--dtype float16 --use_gpt_attention_plugin float16 --enable_fp8 --fp8_kv_cache' "
    "(FP8 GEMMs and KV cache in a float16 network); and vLLM's FP8 W8A8 (docs "
    "quantization/fp8, v0.5.4: FP8 weights, activations given a dynamic per-tensor scale at "
    "each linear layer), whose cutlass_scaled_mm (vllm/_custom_ops.py) asserts 'out_dtype is "
    "torch.bfloat16 or out_dtype is torch.float16', and whose KV cache (vllm/config.py, "
    "CacheConfig.cache_dtype 'auto': 'will use model data type') stays 16-bit, as Hugging Face "
    f"transformers' does, unless --kv-cache-dtype fp8; {CHECKED}")  # fmt: skip
KV_CHECKED = "checked 2026-12-06"
FLASH_DECODE = (
    "vllm-project/flash-attention csrc/flash_attn/flash_api.cpp (commit 04325b6), mha_fwd_kvcache: "
    "with one query token and num_heads > num_heads_k ('seqlenq_ngroups_swapped') a KV head's g "
    "query heads become g query rows of one head, so each block of K and V is read once for the "
    "group (vLLM decodes with it from its PR #4907, 2024-05-19); TensorRT-LLM's XQA kernel from "
    "v0.8 likewise (its docs/source/blogs/XQA-kernel.md: 'optimization for MQA and GQA during "
    "generation phase ... reducing data loading'); " + KV_CHECKED)  # fmt: skip
MMHA = (
    "NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/decoderMaskedMultiheadAttention/"
    "decoderMaskedMultiheadAttentionTemplate.h (commit 02519b0), its masked MHA kernel for "
    "generation before XQA (v0.8), from FasterTransformer's: 'a threadblock for B x H pair', "
    "hi_kv = hi / qhead_per_kv; vllm-project/vllm csrc/attention/attention_kernels.cu (commit "
    "00f5113, 'Adapted from' FasterTransformer's kernel), vLLM's decode attention before its PR "
    "#4907: 'Grid: (num_heads, num_seqs, max_num_partitions)', kv_head_idx = head_idx / "
    "num_queries_per_kv (head_mapping[head_idx] in v0.1): each query head's block walks its KV "
    "head's cache, g walks of it for a group (vLLM's kernel carried at the walk measured for "
    "TensorRT-LLM's); " + KV_CHECKED)  # fmt: skip
HF_REPEAT_KV = (
    "huggingface/transformers src/transformers/models/llama/modeling_llama.py (commit 0022728), "
    "LlamaAttention.forward: after the cache update, repeat_kv (expand, then reshape: a copy) "
    "makes n_heads keys and values of the n_kv_heads cached; integrations/sdpa_attention.py "
    "(commit 00c238b) does the same unless torch >= 2.5 and no attention mask; " + KV_CHECKED
)
#: How an engine's decode attention reads a grouped-query cache (g query heads to a KV head):
#: once for the group, once per query head (g walks of it), or after copying each KV head g
#: times in HBM; and the code that says so.
KV_ONCE, KV_PER_HEAD, KV_COPIES = "once", "per query head", "copies"
KV_SOURCES = {KV_ONCE: FLASH_DECODE, KV_PER_HEAD: MMHA, KV_COPIES: HF_REPEAT_KV}

#: An FP8 (w8a8) layer's GEMM takes FP8 activations: some engines quantize its input in a
#: kernel of its own, the work of FP8_QUANT ("linear": each FP8 linear layer; "experts": a
#: fused MoE call, its input before the gate and up GEMM and its intermediate before the down).
FP8_QUANT = (
    "sgl-project/sglang python/sglang/srt/layers/quantization/fp8_utils.py (commit 002ed7e): "
    "deepgemm_w8a8_block_fp8_linear_with_fallback and triton_w8a8_block_fp8_linear quantize "
    "the input (per_token_group_quant_fp8), then run the FP8 GEMM, and SGLang's profile of a "
    "per-tensor FP8 model on 8 GPUs has one static_quant_fp8 launch to each FP8 GEMM's (1,760 "
    "each: BBuf/AI-Infra-Auto-Driven-SKILLS issue #1, its kernel table); SGLang's "
    "fused_moe_triton/fused_moe_triton_kernels.py (commit 018e2ed) and vLLM's "
    "fused_moe/fused_moe.py (commit 000d145, fused_experts_impl) quantize the input of each "
    "of a fused MoE's two grouped GEMMs; checked 2026-12-08")  # fmt: skip
FP8_QUANT_NONE = (
    "input quantization of FP8 {what}: none counted (no source here that this engine class "
    "runs it as a kernel of its own)")  # fmt: skip

#: The activations an engine keeps between kernels when it stores weights in fewer than 2
#: bytes (FP8_ENGINE_BUILD): the network stays 16-bit, so what a kernel reads and writes
#: besides weights and cache, and every all-reduce message, is 2 bytes an element.
LOW_PRECISION_ACTIVATIONS = "bf16"
#: Engines that store the weights in fewer than 16 bits quantize the decoder's linear layers;
#: the embedding and LM head stay in the 16-bit network.
QUANTIZED_BODY = (
    "vllm-project/vllm vllm/model_executor/layers/quantization/fp8.py (commit 0071b24), "
    "Fp8Config.get_quant_method: FP8 for LinearBase, FusedMoE and Attention layers, none for any "
    "other (the vocabulary-parallel embedding and LM head keep the model's 16-bit dtype); and "
    "TensorRT-LLM's examples/quantization/quantize.py run on Llama-2-7B to FP8 (vLLM's examples/"
    "fp8/quantizer/README.md, commit b782763): rank0.safetensors of 7,000,893,272 bytes, the "
    "6.48 G linear weights at 1 byte and the 2 x 131.1 M of embedding and LM head at 2; "
    + KV_CHECKED)  # fmt: skip
#: Weights of 16 bits or fewer on a chip with no peak at their precision: the matmuls run at
#: the 16-bit network's peak, narrower weights widened inside the kernel (weight-only).
WEIGHT_ONLY = (
    "the table gives {chip} no {p} peak: the matmuls run at its {wide} peak, the weights read as "
    "{p} (below 16 bits widened inside the kernel, weight-only quantization as IST-DASLab/marlin's "
    "'FP16xINT4 matmul kernel', README at commit 2f6d7c1; NVIDIA's datasheets give FP16 the BF16 "
    "rate)")  # fmt: skip


# --- Records (each figure a measurements.Term) --------------------------------
#: The fused gate+up GEMM [M, 4096] x [4096, 22016 / g] of Llama-2-7B on one of g GPUs, bf16.
GEMM_K, GEMM_N = 4096, 2 * 11008
#: Its rows M: one row (the weight read), 64 and 128 (the knee lecture 11 finds between
#: them), then 256 to 4,096.
GEMM_ROWS = (1, 64, 128, 256, 512, 1024, 2048, 4096)
#: The smallest kernels at one token, whose mean time is a GPU floor per kernel.
SMALL_KERNELS = ("RMSNorm", "residual add", "SiLU x up", "rotary embedding")
VIDUR_GEMV = (
    f"{VIDUR}, data/profiling/compute/{{gpu}}/<model>/mlp.csv for every model profiled on it "
    "(Llama-2 7B and 70B, Meta-Llama-3 8B and 70B on the A100 only, CodeLlama-34B, InternLM-20B, "
    "Qwen-72B, phi-2): bf16, the first row at num_tokens = 1 of each num_tensor_parallel_workers, "
    "its four projections' time_stats.<operator>.median (attn_pre_proj, attn_post_proj, "
    "mlp_up_proj, mlp_down_proj: one GPU's shard), copied to vidur_gemv.csv beside this file; "
    "the figure is the least-squares line through (bytes read, time) of all of them; checked "
    "2026-12-07")  # fmt: skip
VIDUR_GEMV_CSV = Path(__file__).with_name("vidur_gemv.csv")  # the source's rows, verbatim
PROJECTIONS = ("attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj")
COUNTS = ("n_head", "n_kv_head", "n_embd", "n_expanded_embd", "num_tensor_parallel_workers")


def gemv_points(gpu: str, path: Path = VIDUR_GEMV_CSV) -> list[tuple[float, float]]:
    """(bytes, seconds) of each one-row projection vidur timed on `gpu`: [1, K] x [K, N / g]
    reads 2 (K + K N / g + N / g) bytes in bf16 (QKV: N = (h + 2 h_kv) d / h; output: K = d / g
    of N = d; gate+up: N = 2 d_ff where gated; down: K = d_ff / g)."""
    out, text = [], path.read_text(encoding="utf-8").splitlines()
    for line, r in enumerate(csv.DictReader(text), start=2):
        try:  # a count not a positive integer or a time not a positive number: its line
            h, kv, d, ff, g = (positive_int(int(r[k]), k) for k in COUNTS)
            up = ff * (2 if r["use_gated_mlp"] == "True" else 1)
            kn = ((d, (h + 2 * kv) * (d // h) // g), (d // g, d), (d, up // g), (ff // g, d))
            ms = [positive(float(r[f"{p}_median_ms"]), p) for p in PROJECTIONS] * (r["gpu"] == gpu)
            out += [(2 * (k + k * n + n), t * MS) for (k, n), t in zip(kn, ms, strict=False)]
        except (KeyError, ValueError, TypeError) as exc:
            raise slips.SlipError(f"{slips.shown(str(path))} line {line}: {exc}") from None
    return out


def gemv_terms(gpu: str) -> tuple[Term, Term]:
    """A one-row GEMM's start-up time t0 (s) and streaming bandwidth beta (B/s): the least-squares
    line t = t0 + D / beta through gemv_points(gpu)."""
    points = gemv_points(gpu)
    slope, t0 = statistics.linear_regression(*zip(*points, strict=True))
    src, n = VIDUR_GEMV.format(gpu=gpu), len(points)
    return (Term(f"one-row GEMM start-up time, {gpu.upper()} ({n} GEMMs)", t0, src),
            Term(f"one-row GEMM streaming bandwidth, {gpu.upper()} ({n} GEMMs)", 1 / slope,
                 src))  # fmt: skip


TRTLLM_BLOCK = (
    "NVIDIA DLI's TensorRT-LLM 0.9.0 runs (dataset/trt_llm_0_9_0_dli.csv as carried by wbing520/"
    "ai-performance-engineering, commit 5a4d0c3, lecture 11's bulk check): Mistral-7B at batch "
    "1 on one GPU, 128-token prompt, 128, 2,048 and 4,096 new tokens, bf16 or FP8 (an FP8 "
    "cache): per (chip, precision) the three solved for c, the seconds a step gains per cached "
    "token, in T(n) = prefill + (n - 1) a + c S(n) (its 4,096-token window cuts 0.1% of S, left "
    "out); its decode attention gives each (sequence, KV head) one thread block over the whole "
    "cache (multi-block mode off: NVIDIA/TensorRT-LLM tensorrt_llm/plugin/plugin.py, commit "
    "035b99e, PluginConfig.multi_block_mode = False): the figure is c / L (L = 32 layers), a "
    "block's time per cached token, its stream 2 d_head b / (c / L) B/s (b bytes an element); "
    f"{CHECKED}")  # fmt: skip
BLOCK_RUNS = (128, 2048, 4096)  #: new tokens of the three runs, after a 128-token prompt
BLOCK_MODEL = pub.MISTRAL_7B  #: their model: 32 layers, 8 KV heads of d_head 128
#: S(n): the cached tokens the n - 1 decode steps after a 128-token prompt attend to, in all
ATTENDED = {n: (n - 1) * 128 + n * (n - 1) / 2 for n in BLOCK_RUNS}


def kv_block_terms(runs: Iterable[pub.Request]) -> dict[str, dict[str, Term]]:
    """Chip -> cache precision -> seconds one decode-attention block takes per cached token
    (TRTLLM_BLOCK's `runs`), c / L: c = ((T3 - T1)(n2 - n1) - (T2 - T1)(n3 - n1)) / ((S3 - S1)
    (n2 - n1) - (S2 - S1)(n3 - n1)) from the runs' (n_i, T_i), S(n) = (n - 1) 128 + n (n - 1) / 2
    the cached tokens its n - 1 steps attend to."""
    by, out = {}, {}  # (chip, cache) -> new tokens -> run; chip -> cache -> its term
    for r in runs:  # one pass over the runs for every chip
        if (r.model, r.gpus, r.batch, r.prompt) == (BLOCK_MODEL, 1, 1, 128):
            by.setdefault((r.chip, r.precision), {})[r.new_tokens] = r
    (n1, s1), (n2, s2), (n3, s3) = ((n, ATTENDED[n]) for n in BLOCK_RUNS)
    for (chip, cache), by_n in by.items():
        t1, t2, t3 = (by_n[n].measured.seconds for n in BLOCK_RUNS)
        c = (t3 - t1) * (n2 - n1) - (t2 - t1) * (n3 - n1)
        c /= ((s3 - s1) * (n2 - n1) - (s2 - s1) * (n3 - n1)) * BLOCK_MODEL.n_layers  # c / L
        what = f"one decode-attention block's time per cached token, {chip.upper()}, {cache} cache"
        informs = tuple(by_n[n].label for n in BLOCK_RUNS)
        out.setdefault(chip, {})[cache] = Term(what, c, TRTLLM_BLOCK, informs)
    return out


XQA_GROUPS = (8,)  #: groups v0.8 to v0.10 take XQA for; chip -> SMs (H200: the H100's die)
XQA_SMS, XQA_MIN_BLOCK_FACTOR = {"h100": 132, "h200": 132, "a100": 108, "a100-80gb": 108}, 4
XQA_SOURCE = (
    "NVIDIA/TensorRT-LLM v0.9.0 (commit 250d9c29, as tensorrtllm_backend's v0.9.0 tag pins it; "
    "v0.8.0's 5955b8af and v0.10.0's 9bd15f19 alike), decoderMaskedMultiheadAttention/, XQA's "
    "shouldUse: 'if (nbQHeadsPerKV != 8 && nbQHeadsPerKV != 1) SUPPORT_RETURN_FALSE', one-beam "
    "kernels for 8 query heads a KV head only (nqpkv_8), and 'block_count * kEnableMinBlockFactor"
    " >= multiprocessor_count' (a GPU's KV heads x batch x 4.0; its SMs, 132 on an H100 SXM5 and"
    " 108 on an A100 by their architecture whitepapers): else the masked MHA; checked 2026-12-07"
)
TRTLLM_REREAD = (
    "NVIDIA DLI's TensorRT-LLM 0.9.0 runs (dataset/trt_llm_0_9_0_dli.csv, as for a block's "
    "stream): Mistral-7B on one GPU, 128-token prompt, 2,048 new tokens, at batch 64 and 120, "
    "bf16 or FP8 (an FP8 cache); that version takes XQA for 8 query heads a KV head only "
    f"({XQA_SOURCE}), so Mistral-7B's 4 decode with its masked MHA, one block per query head, "
    "each walking its KV head's whole cache: per (chip, precision) the figure is t = (T2 - T1) "
    "/ ((b2 - b1) H L S), the time the 56 more sequences add per cached token, query head (H = "
    "32) and layer (L = 32), S = 2,047 x 128 + 2,048 x 2,047 / 2 the cached tokens a sequence's "
    "steps attend to; what else a sequence adds (its 128-token prefill, a GEMM row) is folded "
    f"in, so the walk's rate 2 d_head b / t B/s (b bytes an element) is if anything low; {CHECKED}"
)
REREAD_BATCHES = (64, 120)  #: the two runs' batches, 128 + 2,048 tokens each


def kv_reread_terms(runs: Iterable[pub.Request]) -> dict[str, dict[str, Term]]:
    """Chip -> cache precision -> seconds a decode attention of one block per query head takes
    per cached token, query head and layer (TRTLLM_REREAD's `runs`): (T2 - T1) / ((b2 - b1) H L
    S), S = 2,047 x 128 + 2,048 x 2,047 / 2 the cached tokens a sequence's steps attend to."""
    by, out, m, n = {}, {}, BLOCK_MODEL, 2048
    for r in (r for r in runs if r.batch in REREAD_BATCHES):
        if (r.model, r.gpus, r.prompt, r.new_tokens) == (m, 1, 128, n):
            by.setdefault((r.chip, r.precision), {})[r.batch] = r
    walked = m.n_heads * m.n_layers * ATTENDED[n]  # per sequence
    for (chip, cache), (one, two) in ((k, [v[b] for b in REREAD_BATCHES]) for k, v in by.items()):
        t = (two.measured.seconds - one.measured.seconds) / ((two.batch - one.batch) * walked)
        what = f"decode attention's walk per query head, {chip.upper()}, {cache} cache"
        out.setdefault(chip, {})[cache] = Term(what, t, TRTLLM_REREAD, (one.label, two.label))
    return out


#: Chip key -> cache precision -> kv_block_terms and kv_reread_terms: the A100 40GB has the
#: 80GB's SMs; the H200, the H100's die, measured in FP8 only (bf16: the H100's).
_RUNS = pub.dli_requests()  # parsed once for both
KV_BLOCK, KV_REREAD = kv_block_terms(_RUNS), kv_reread_terms(_RUNS)
for _by in (KV_BLOCK, KV_REREAD):
    _by["a100"], _by["h200"] = _by["a100-80gb"], {**_by["h100"], **_by["h200"]}


@dataclass(frozen=True)
class ChipTerms:
    """What one chip generation's kernels measurably reach (None: nobody published it)."""

    gemm: Mapping[int, tuple[Term, ...]]  #: TP degree g -> the GEMM's time at each GEMM_ROWS
    gemv: tuple[Term, Term]  #: gemv_terms: a one-row GEMM's start-up time and bandwidth
    small_kernels: tuple[Term, ...]  #: SMALL_KERNELS' times at one token
    #: g -> (message bytes, seconds) of the node's NCCL all-reduce, rising bytes (None: none)
    allreduce: Mapping[int, tuple[tuple[float, float], ...]] | None
    allreduce_source: str  #: where that curve comes from
    measured_on: str  #: the chip key whose datasheet (as shipped) the shares are taken against
    note: str = ""  #: how the figures reach a chip they were not measured on


#: vidur's profile (VIDUR_MLP), ms, by (generation, g): the GEMM on one of g GPUs at GEMM_ROWS.
VIDUR_GEMM_MS = {
    ("a100", 1): (0.116, 0.116, 0.157, 0.229, 0.402, 0.877, 1.694, 3.3655),
    ("a100", 2): (0.056, 0.060, 0.105, 0.112, 0.2235, 0.391, 0.803, 1.6015),
    ("a100", 4): (0.031, 0.033, 0.041, 0.074, 0.126, 0.204, 0.3795, 0.7785),
    ("a100", 8): (0.020, 0.023, 0.027, 0.038, 0.057, 0.111, 0.201, 0.410),
    ("h100", 1): (0.064, 0.066, 0.071, 0.130, 0.134, 0.256, 0.492, 0.987),
    ("h100", 2): (0.036, 0.0395, 0.039, 0.0515, 0.079, 0.134, 0.2565, 0.499),
    ("h100", 4): (0.019, 0.022, 0.023, 0.029, 0.041, 0.087, 0.132, 0.260),
    ("h100", 8): (0.012, 0.014, 0.015, 0.020, 0.027, 0.046, 0.079, 0.132)}  # fmt: skip
#: and the SMALL_KERNELS at one token, by generation, in seconds: the A100's are the
#: measurement table's (measurements.VIDUR_A100_SMALL_KERNELS), the H100's from its file.
VIDUR_SMALL_S = {
    "a100": tuple(m.seconds for m in VIDUR_A100_SMALL_KERNELS),
    "h100": tuple(ms * MS for ms in (0.004, 0.001, 0.006, 0.004))}  # fmt: skip


def _vidur(
    gpu: str, allreduce: Mapping, allreduce_source: str, measured_on: str, note: str = ""
) -> ChipTerms:
    """A generation's terms from vidur's profile of it, each a Term with its source."""
    src, k, name = VIDUR_MLP.format(gpu=gpu), GEMM_K, gpu.upper()
    gemm = {g: tuple(Term(f"gate+up GEMM [{m:,}, {k}] x [{k}, {GEMM_N // g:,}], {name}", ms * MS,
                          src) for m, ms in zip(GEMM_ROWS, row, strict=True))
            for (chip, g), row in VIDUR_GEMM_MS.items() if chip == gpu}  # fmt: skip
    small = tuple(Term(f"{what}, 1 token, {name}", s, src)
                  for what, s in zip(SMALL_KERNELS, VIDUR_SMALL_S[gpu], strict=True))  # fmt: skip
    return ChipTerms(gemm, gemv_terms(gpu), small, allreduce, allreduce_source, measured_on, note)


#: All-reduce time against message bytes on one DGX H100, per GPU count (VIDUR_ALLREDUCE_H100):
#: microseconds at dgx_curve's sizes.
H100_DGX_ALLREDUCE = dgx_curve(
    {2: (31, 11, 43, 42, 74, 245), 4: (38, 41, 41, 47, 93, 315), 8: (33, 27, 33, 51, 114, 343)}
)

A100_TERMS = _vidur(
    "a100", pub.A100_DGX_ALLREDUCE, "vidur's DGX A100 curve (measurements.A100_DGX_ALLREDUCE)",
    "a100-80gb", "measured on an A100 80GB; the 40GB part has the same SMs",
)  # fmt: skip
H100_TERMS = _vidur("h100", H100_DGX_ALLREDUCE, VIDUR_ALLREDUCE_H100, "h100")
H200_NOTE = (
    "measured on an H100 SXM; the H200 has the same GH100 die and NVLink 4 switch, so its "
    "shares of the datasheet are taken as the H100's (no H200 measurement published here)"
)
#: Chip key -> the measured kernel terms of its generation (absent: none published).
CHIP_TERMS: dict[str, ChipTerms] = {
    "a100": A100_TERMS, "a100-80gb": A100_TERMS, "h100": H100_TERMS,
    "h200": dataclasses.replace(H100_TERMS, note=H200_NOTE)}  # fmt: skip

#: The A100 40GB's HBM share is the blog's profile of the very runs lecture 11 checks
#: (measurements.KIPPLY_HBM_SHARE and hw_specs' achievable A100 bandwidth): calibration.
KIPPLY_CASES = (
    "prefill, 1 GPU", "decode, 1 GPU", "prefill, 2 GPUs", "decode, 2 GPUs",
    "13B, 1 x a100, 512 + 10", "13B, 2 x a100, 512 + 10")  # fmt: skip
HBM_SHARE_CALIBRATION = {"a100": Term(
    "A100 40GB HBM share of FasterTransformer's decode matmuls (kipply)", 0.90,
    "hw_specs.A100.achievable_mem_bw_figure (kipply's profile)", KIPPLY_CASES)}  # fmt: skip
KIPPLY_TWO_GPU_SHARE = Term(
    "HBM share on two GPUs (kipply)", pub.KIPPLY_HBM_SHARE[2], "measurements.KIPPLY_HBM_SHARE",
    KIPPLY_CASES)  # fmt: skip


#: The custom all-reduces of vLLM and TensorRT-LLM on H100s (their sources), microseconds by
#: GPU count at these message sizes (bytes: 4 x the float32 elements of the PR's table).
ALLREDUCE_BYTES = tuple(4 * n for n in (512, 4096, 32768, 262144, 524288, 1048576))
ALLREDUCE_US = {
    ("vLLM", SGLANG_VLLM_AR): {2: (9.5, 8.8, 8.7, 12.9, 17.7, 26.6),
                               4: (9.1, 8.5, 9.2, 20.6, 26.9, 40.2),
                               8: (10.1, 9.3, 11.8, 24.1, 30.4, 45.0)},
    ("TensorRT-LLM", SGLANG_TRT_AR): {2: (3.7, 3.9, 4.5, 7.9, 12.5, 19.9),
                                      4: (4.8, 3.7, 4.8, 13.9, 20.2, 31.1),
                                      8: (5.9, 5.7, 7.8, 16.7, 22.1, 33.8)}}  # fmt: skip
VLLM_ALLREDUCE, TRTLLM_ALLREDUCE = (
    {g: tuple(Term(f"{who} custom all-reduce, {m:,} B, {g} x H100", t * US, source)
              for m, t in zip(ALLREDUCE_BYTES, us, strict=True)) for g, us in by_gpus.items()}
    for (who, source), by_gpus in ALLREDUCE_US.items())  # fmt: skip
VLLM_CUSTOM_AR = (
    "vllm-project/vllm vllm/distributed/device_communicators/custom_all_reduce.py (commit "
    "0ad8064), CustomAllreduce: world sizes 2, 4, 6 and 8, disabled only 'on more than two "
    "PCIe-only GPUs' (else fully connected by NVLink, any generation) and from max_size = 8192 "
    "* 1024 bytes; added by its PR #2192 (2023-12-19), measured there on A100-80G; " + KV_CHECKED
)
TRTLLM_CUSTOM_AR = (
    "NVIDIA/TensorRT-LLM cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp (commit "
    "005b299), AllreducePlugin::selectImplementation: NCCL only where peer access or NVLink is "
    "missing, else its one-shot kernel up to the workspace size, by GPU count and message size, "
    "whatever the chip; checked 2026-12-07")  # fmt: skip
CUSTOM_ALLREDUCE_CARRIED = (
    "the engine's custom all-reduce (any GPUs fully connected by NVLink) was measured on H100s "
    "only; on the {chip} its H100 times stand in, never below the ring bytes over its own link"
)
#: Chip -> how a custom all-reduce's H100 curve reaches it ("": measured, or the H200's same
#: NVLink 4 switch); vLLM's and TensorRT-LLM's run on A100s too (VLLM_CUSTOM_AR,
#: TRTLLM_CUSTOM_AR), their H100 times standing in.
CUSTOM_ALLREDUCE_CHIPS = {"h100": "", "h200": "", "a100": CUSTOM_ALLREDUCE_CARRIED,
                          "a100-80gb": CUSTOM_ALLREDUCE_CARRIED}  # fmt: skip


@dataclass(frozen=True)
class Engine:
    """An engine class: what it pays per forward pass and per kernel launch beyond the GPU,
    and its own all-reduce up to its last measured size (else the node's NCCL curve)."""

    what: str  #: what --help says of it (ENGINES' key names it)
    step: Term | None = None  #: fixed cost per forward pass (CPU scheduling, input preparation)
    launch: Term | None = None  #: CPU cost per kernel launch the GPU waits for (no CUDA graphs)
    low_precision_cache: bool = False  #: the KV cache in sub-16-bit weights' format (else 16-bit)
    allreduce: Mapping[int, tuple[Term, ...]] | None = None  #: GPUs -> at each ALLREDUCE_BYTES
    #: chip key -> how `allreduce` reaches that chip ("" where it was measured)
    allreduce_chips: Mapping[str, str] = dataclasses.field(default_factory=dict)
    kv_reads: str = KV_ONCE  #: how its decode attention reads a grouped-query cache (KV_SOURCES)
    one_block: bool = False  #: decode attention one thread block per (sequence, KV head), no split
    #: the groups (query heads a KV head) its once-reading decode kernel takes, the others read
    #: per query head by its masked MHA (empty: it takes any)
    once_groups: tuple[int, ...] = ()
    fp8_quant: tuple[str, ...] = ()  #: the FP8 layers whose input it quantizes apart (FP8_QUANT)


# vLLM's CPU work per step before multi-step scheduling, every step (VLLM_RFC_6854; measured
# on v0.5.x, no more than what older versions paid).
SINGLE_STEP = Term("vLLM CPU cost per step before multi-step scheduling (GPU bubble)", 4 * MS,
                   VLLM_RFC_6854)  # fmt: skip
#: Kernels of a Llama-2-7B decode step in the ledger: 32 layers of 15, and 3 once.
LLAMA_2_7B_STEP_KERNELS = 483
# CPU launch per kernel, the time a step loses without CUDA graphs over its kernels: vLLM's fused
# code (PR #1440, 0.15 s over 100 steps), plain PyTorch modules (gpt-fast, 1/25.5 - 1/104.9 s)
LAUNCH = Term("CPU launch cost per kernel without CUDA graphs",
              0.15 / 100 / LLAMA_2_7B_STEP_KERNELS, VLLM_PR_1440)  # fmt: skip
EAGER_LAUNCH = Term("CPU launch cost per kernel of eager PyTorch modules",
                    (1 / 25.5 - 1 / 104.9) / LLAMA_2_7B_STEP_KERNELS, pub.GPT_FAST,
                    ("Llama-2-7B, 1 x a100-80gb, 5 + 200",))  # fmt: skip
VLLM_OWN_ALLREDUCE = dict(allreduce=VLLM_ALLREDUCE, allreduce_chips=CUSTOM_ALLREDUCE_CHIPS)
#: TensorRT-LLM's FP8 cache (FP8_ENGINE_BUILD: --fp8_kv_cache) and its custom all-reduce on any
#: NVLink node (TRTLLM_CUSTOM_AR), from v0.8 on
TRTLLM_OWN = dict(low_precision_cache=True, allreduce=TRTLLM_ALLREDUCE,
                  allreduce_chips=CUSTOM_ALLREDUCE_CHIPS)  # fmt: skip
ENGINES: dict[str, Engine] = {
    "vllm": Engine(
        "continuous-batching server (vLLM): CUDA graphs in decode, CPU scheduling each step",
        Term("vLLM CPU cost per step (GPU bubble, amortised over 8)", 4 * MS / 8, VLLM_RFC_6854),
        fp8_quant=("experts",), **VLLM_OWN_ALLREDUCE),
    "trtllm": Engine(  # multi-block mode on: executor.h (commit 879039f), multiBlockMode = true
        "fused engine with CUDA graphs and a C++ runtime (TensorRT-LLM from v0.12: XQA, "
        "multi-block mode on by default, its custom all-reduce)", **TRTLLM_OWN),
    # SGLang v0.4's blog (lmsys.org/blog/2024-12-04-sglang-v0-4/): 5 decode batches, 'no single
    # idle time on the GPU'; python/sglang/srt/_custom_ops.py (00d8d1b): vLLM's all-reduce calls
    "sglang": Engine(
        "continuous-batching server with CUDA graphs and its CPU work overlapped with the GPU's "
        "(SGLang from v0.4), its custom all-reduce (vLLM's, as sgl-kernel carries it)",
        fp8_quant=("linear", "experts"), **VLLM_OWN_ALLREDUCE),
    "trtllm-single-block": Engine(
        "as trtllm, TensorRT-LLM v0.8 to v0.10: one decode-attention thread block per (sequence, "
        "KV head) over its whole cache (multi-block mode a build option, off by default), by "
        "XQA for 8 query heads a KV head once a GPU's KV heads x batch reach a quarter of its "
        "SMs, else one per query head (its masked MHA)",
        one_block=True, once_groups=XQA_GROUPS, **TRTLLM_OWN),
    "trtllm-mmha": Engine(
        "as trtllm, but NCCL's all-reduce and a decode attention of one thread block per query "
        "head over its whole cache (FasterTransformer, TensorRT-LLM before v0.8)",
        low_precision_cache=True, kv_reads=KV_PER_HEAD, one_block=True),
    "vllm-single-step": Engine(
        "vLLM from CUDA graphs to v0.4.2 (2023-24): CUDA graphs in decode, CPU scheduling and "
        "output processing every step, its custom all-reduce (from its PR #2192), decode "
        "attention per query head", SINGLE_STEP, kv_reads=KV_PER_HEAD, **VLLM_OWN_ALLREDUCE),
    "vllm-single-step-flash": Engine(
        "vLLM v0.4.3 to v0.5 (2024): as vllm-single-step, but decoding with FlashAttention, "
        "which reads each KV head once for its query heads (its PR #4907)",
        SINGLE_STEP, **VLLM_OWN_ALLREDUCE),
    "vllm-eager": Engine(
        "vLLM before CUDA graphs (before its PR #1440, 2023): every kernel launched from Python, "
        "and CPU scheduling every step as vllm-single-step", SINGLE_STEP, LAUNCH,
        kv_reads=KV_PER_HEAD),
    "eager": Engine(
        "PyTorch eager (Hugging Face transformers, gpt-fast without compile): every kernel "
        "launched from Python modules, at the pace of gpt-fast's A100 host's CPU; over GPUs tensor "
        "parallel, as gpt-fast's, where Hugging Face's device_map='auto' runs its GPUs in turn",
        launch=EAGER_LAUNCH, kv_reads=KV_COPIES),
}  # fmt: skip
NO_STEP = "fixed cost per step: none (no CPU gap between steps published for this engine class)"
NO_LAUNCH = "CPU cost per kernel launch: none (CUDA graphs or a C++ runtime launch them)"
NO_OWN_ALLREDUCE = (
    "the engine's own all-reduce is published for {chips} only; the node's NCCL curve stands in"
)


def all_terms() -> list[Term]:
    """Every figure above, once each, for the calibration test and the sources list."""
    chips = [t for c in CHIP_TERMS.values()
             for ts in (*c.gemm.values(), c.gemv, c.small_kernels)
             for t in ts]  # fmt: skip
    chips += [t for by in (KV_BLOCK, KV_REREAD) for cache in by.values() for t in cache.values()]
    engine = [t for e in ENGINES.values() for t in (e.step, e.launch) if t is not None]
    engine += [t for e in ENGINES.values() for ts in (e.allreduce or {}).values() for t in ts]
    return list(
        dict.fromkeys([*HBM_SHARE_CALIBRATION.values(), KIPPLY_TWO_GPU_SHARE, *chips, *engine])
    )
