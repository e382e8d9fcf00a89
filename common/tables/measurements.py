"""Published measurements the course predicts, each with its source, table or section and date.

Standard library only. Every value is a plain literal typed from the cited page (no
data file is copied): a whole model's latencies measured with FasterTransformer, and
single operators timed by an open serving simulator's GPU profiler. Lecture 11
predicts each one from the ledgers and the hardware table and shows the gap.

Times are seconds. Edit a value here and rerun lecture 11; every ratio and sentence
moves with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.tables import slips
from common.tables.models import Model
from common.tables.validate import positive, positive_int

CHECKED = "checked 2026-12-01"  # when the course last compared these values with the pages
MS = 1e-3

# ---------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------
KIPPLY_TITLE = "'Transformer Inference Arithmetic'"
KIPPLY = (
    f"kipply, {KIPPLY_TITLE} (2022-03-30), section 'comparing against real "
    "benchmarks' (kipp.ly/transformer-inference-arithmetic/; its source github.com/kipply/blog, "
    "blog/content/endorsed/transformer_inference_arithmetic.md, commit 09819d4)"
)
LLM_ANALYSIS_FT = (
    f"{KIPPLY}: FasterTransformer, 13B, 512-token context, batch 1, 10 generated tokens, A100 "
    "40GB; benchmark output '283.60 ms (context time: 63.17 ms)' on 1 GPU and '180.86 ms "
    "(context time: 45.45 ms)' on 2, decode 'empirical result' 22.0 ms and 13.5 ms; also "
    "tabulated in cli99/llm-analysis examples/fastertransformer/README.md (commit d841e40); "
    f"{CHECKED}"
)
KIPPLY_PROFILE = f"{KIPPLY}: figures read from the author's profiles; {CHECKED}"
LLM_ANALYSIS_13B_CONFIG = (
    "cli99/llm-analysis, llm_analysis/model_configs/test-13b.json (commit d841e40): the 13B "
    f"model of kipply's FasterTransformer benchmark; {CHECKED}"
)
VIDUR_MLP_A100 = (
    "microsoft/vidur (github.com/microsoft/vidur, commit 7d47513), "
    "data/profiling/compute/a100/meta-llama/Llama-2-7b-hf/mlp.csv: rows with "
    "num_tensor_parallel_workers = 1 and the stated num_tokens, columns "
    f"time_stats.<operator>.median (milliseconds, CUDA-event timed); {CHECKED}"
)
VIDUR_ALLREDUCE_A100 = (
    "microsoft/vidur (commit 7d47513), data/profiling/network/a100_pairwise_nvlink/"
    "all_reduce.csv: the row num_workers = 2, size = 2048 (the smallest message), column "
    f"time_stats.all_reduce.median = 0.007 ms; {CHECKED}"
)


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------
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
    slips.source_of(globals()), __file__, Measured, ModelRun, OperatorRun, Model
)

# The 13B model of the benchmark: a GPT-style decoder (ungated MLP, multi-head attention).
GPT_13B = Model(
    name="13B (kipply's FasterTransformer benchmark)",
    key="gpt-13b",
    n_layers=40,  # num_layers
    d_model=5120,  # hidden_dim
    n_heads=40,  # n_head
    n_kv_heads=40,  # multi-head attention
    d_head=128,  # hidden_dim / n_head
    d_ff=20480,  # ffn_embed_dim
    gated_mlp=False,
    vocab_size=50272,  # vocab_size
    tied_embeddings=True,
    max_context=2048,  # max_seq_len
    config_source=LLM_ANALYSIS_13B_CONFIG,
)

PROMPT = 512  # tokens in the benchmark's prompt; decode runs at batch 1 after it


def _ft(phase: str, gpus: int, ms: float) -> ModelRun:
    what = f"13B {phase}, batch 1, {gpus} x A100 40GB" + (" (tensor parallel)" if gpus > 1 else "")
    return ModelRun(phase, gpus, PROMPT, Measured(what, ms * MS, LLM_ANALYSIS_FT))


#: FasterTransformer on A100 40GB: 512-token prefill and one decode step at batch 1.
FT_13B: tuple[ModelRun, ...] = (
    _ft("prefill", 1, 63.17),
    _ft("decode", 1, 22.0),
    _ft("prefill", 2, 45.45),
    _ft("decode", 2, 13.5),
)

LLAMA2_7B_D, LLAMA2_7B_QKV, LLAMA2_7B_UP = 4096, 3 * 4096, 2 * 11008  # vidur fuses QKV, gate+up


def _vidur(name: str, n: int, N: int, ms: float) -> OperatorRun:
    what = f"Llama-2-7B {name}, {n:,} tokens, 1 x A100"
    return OperatorRun(name, n, LLAMA2_7B_D, N, Measured(what, ms * MS, VIDUR_MLP_A100))


#: Single matmuls on one A100 (bf16): the fused gate+up projection [n, 4096] x [4096, 22016]
#: (column time_stats.mlp_up_proj.median) and the fused QKV projection [n, 4096] x [4096, 12288]
#: (time_stats.attn_pre_proj.median).
VIDUR_A100_MATMULS: tuple[OperatorRun, ...] = (
    _vidur("gate+up projection", 1, LLAMA2_7B_UP, 0.116),
    _vidur("gate+up projection", 16, LLAMA2_7B_UP, 0.111),
    _vidur("gate+up projection", 64, LLAMA2_7B_UP, 0.116),
    _vidur("gate+up projection", 128, LLAMA2_7B_UP, 0.157),
    _vidur("gate+up projection", 256, LLAMA2_7B_UP, 0.229),
    _vidur("gate+up projection", 512, LLAMA2_7B_UP, 0.402),
    _vidur("gate+up projection", 1024, LLAMA2_7B_UP, 0.877),
    _vidur("QKV projection", 1, LLAMA2_7B_QKV, 0.065),
    _vidur("QKV projection", 64, LLAMA2_7B_QKV, 0.067),
    _vidur("QKV projection", 256, LLAMA2_7B_QKV, 0.112),
    _vidur("QKV projection", 1024, LLAMA2_7B_QKV, 0.475),
)

#: What the blog's own profiles of the same runs found (section 'comparing against real
#: benchmarks'): comms per layer on 2 GPUs, and the matmul FLOP efficiencies of prefill.
KIPPLY_COMMS_PER_LAYER = (
    Measured("all-reduce comms per layer, decode, 2 GPUs (low end)", 40e-6, KIPPLY_PROFILE),
    Measured("all-reduce comms per layer, decode, 2 GPUs (high end)", 50e-6, KIPPLY_PROFILE),
)
KIPPLY_MLP_FLOPS_EFFICIENCY = 0.72  # '476 at the lowest ... we get 72% of the flops we expect'
KIPPLY_ATTN_PROJ_FLOPS_EFFICIENCY = 0.54  # '159 at the lowest, which is 54%'
#: The profile's cost of the intermediate activations in one decode step ('another 2.2ms' on
#: one GPU, 'a similar amount of time (2ms)' on two): everything but the weight matmuls.
KIPPLY_ACTIVATIONS_DECODE = {
    1: Measured("intermediate activations, decode, 1 GPU", 2.2 * MS, KIPPLY_PROFILE),
    2: Measured("intermediate activations, decode, 2 GPUs", 2.0 * MS, KIPPLY_PROFILE),
}
#: The blog's own decode estimates, 2 x 40 x 12 x 5120^2 bytes over 1.5e12 B/s (its rounding).
KIPPLY_DECODE_ESTIMATE = {1: 16.8 * MS, 2: 8.4 * MS}

#: The smallest kernels at one token on an A100 (same file, num_tokens = 1): a floor of
#: fixed cost per kernel launch that no byte or FLOP count explains.
VIDUR_A100_SMALL_KERNELS: tuple[Measured, ...] = (
    Measured("RMSNorm (input_layernorm), 1 token", 0.005 * MS, VIDUR_MLP_A100),
    Measured("residual add (add), 1 token", 0.002 * MS, VIDUR_MLP_A100),
    Measured("SiLU x up (mlp_act), 1 token", 0.007 * MS, VIDUR_MLP_A100),
    Measured("rotary embedding (attn_rope), 1 token", 0.005 * MS, VIDUR_MLP_A100),
)

#: The latency term of a two-GPU all-reduce over NVLink on A100 (the smallest message).
A100_ALLREDUCE_LATENCY = Measured(
    "all-reduce of the smallest message, 2 x A100, NVLink", 0.007 * MS, VIDUR_ALLREDUCE_A100
)


def small_kernel_floor() -> float:
    """Mean time of the smallest kernels at one token, in seconds (a fixed cost per kernel)."""
    return sum(m.seconds for m in VIDUR_A100_SMALL_KERNELS) / len(VIDUR_A100_SMALL_KERNELS)


def sources() -> list[str]:
    """Every distinct source of the records above, in the order the lecture uses them."""
    records = [
        *(r.measured for r in FT_13B),
        *KIPPLY_COMMS_PER_LAYER,
        *KIPPLY_ACTIVATIONS_DECODE.values(),
        *(r.measured for r in VIDUR_A100_MATMULS),
        *VIDUR_A100_SMALL_KERNELS,
        A100_ALLREDUCE_LATENCY,
    ]
    return list(dict.fromkeys(m.source for m in records))


slips.check_records(globals())
