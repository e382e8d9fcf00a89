"""The reference numbers the tests assert, each with the primary source it comes from.

Tests import these values instead of repeating literals, so a reader can trace every
expected number to a document: the article (section numbers as printed in it), the
lecture script, the book chapter or the vendor datasheet. Nothing here is computed by
``common``: a value is either copied from its source as printed (rounded as printed)
or worked out by hand in the comment next to it.

Sources:

- ART: the article "性能建模与 Profiling：算力、带宽与显存账本" ("Performance modeling
  and profiling: the compute, bandwidth and memory ledgers"), by section.
- SCRIPT: CS349E lecture 1, script ``02_roofline_basics.py``, by demo.
- BOOK: How to Scale Your Model (Austin et al., 2025), ch. "All About Rooflines".
- Datasheets: NVIDIA A100 (SXM4 40GB), H100 (SXM), H200 (SXM), HGX B200, HGX B300 and
  the "Inside NVIDIA Blackwell Ultra" blog; Google Cloud TPU v5e and v6e documentation.
- HF: each model's ``config.json`` on the Hugging Face hub (meta-llama/Llama-2-7b-hf,
  meta-llama/Meta-Llama-3-8B, meta-llama/Meta-Llama-3-70B) and the parameter count
  ``model.num_parameters()`` reports for the released checkpoint.
"""

from __future__ import annotations


def _chip(peaks: dict, bw: float, cap: float, link: tuple, smem: int = 0, est: tuple = ()) -> dict:
    """Chip.figures()'s labels -> (value, unit, estimate); `est`: the peaks that are estimates."""
    figures = {f"peak {p}": (v, "FLOP/s", p in est) for p, v in peaks.items()}
    figures |= {"memory bandwidth": (bw, "B/s", False), "memory capacity": (cap, "B", False)}
    figures[f"link ({link[0]})"] = (link[1], "B/s", False)
    return figures | ({"shared memory per SM": (smem, "B", False)} if smem else {})


# --- Hardware, as each datasheet states it (dense peaks; links one way) ------
# chip key: {figure label: (value, unit, estimate)}. Labels are Chip.figures()'s.
# A100 SXM4 40GB datasheet: BF16 312 TFLOPS, INT8 624 TOPS (dense), 40GB HBM2 at
#   1,555 GB/s, NVLink 600 GB/s (both directions: 300 GB/s one way).
# H100 SXM datasheet: BF16 1,979 and FP8/INT8 3,958 with sparsity (dense: 989 and
#   1,979), 80GB HBM3 at 3.35 TB/s, NVLink 900 GB/s (450 GB/s one way).
# H200 SXM datasheet: the H100's compute, 141GB HBM3e at 4.8 TB/s, NVLink 900 GB/s.
# HGX B200 datasheet (8-GPU totals / 8, sparsity halved; marked estimates): bf16
#   2.25 PFLOPS, fp8 and int8 4.5, nvfp4 9; 180 GB at 8 TB/s; NVLink 5 1.8 TB/s.
# Blackwell Ultra blog: fp8 5 and nvfp4 15 PFLOPS dense; bf16 "about 2.5x H100"
#   (an estimate); HGX B300 datasheet: 288 GB HBM3e at 8 TB/s, NVLink 5 1.8 TB/s.
# Shared memory per SM: NVIDIA Ampere Tuning Guide, "Unified Shared Memory/L1/Texture
#   Cache": up to 164 KB of 192 KB (164 x 1024 = 167,936 B); Hopper Tuning Guide, same
#   section: up to 228 KB of 256 KB (228 x 1024 = 233,472 B; the H200 has the same SMs).
# TPU v5e docs and BOOK: bf16 197 TFLOPS, int8 394 TOPS, 16 GB HBM at 8.2e11 B/s;
#   one ICI link 4.5e10 B/s one way (BOOK).
# TPU v6e docs and BOOK: bf16 920 TFLOPS, int8 1,840 TOPS, 32 GB at 1.64e12 B/s;
#   one ICI link 9e10 B/s one way (BOOK).
HOPPER = {"bf16": 989e12, "fp8": 1979e12, "int8": 1979e12}
HARDWARE = {
    "a100": _chip({"bf16": 312e12, "int8": 624e12}, 1555e9, 40e9, ("NVLink 3", 300e9), 167936),
    "h100": _chip(HOPPER, 3.35e12, 80e9, ("NVLink 4", 450e9), 233472),
    "h200": _chip(HOPPER, 4.8e12, 141e9, ("NVLink 4", 450e9), 233472),
    "b200": _chip({"bf16": 2.25e15, "fp8": 4.5e15, "int8": 4.5e15, "nvfp4": 9e15}, 8e12, 180e9,
                  ("NVLink 5", 900e9), est=("bf16", "fp8", "int8", "nvfp4")),
    "b300": _chip({"bf16": 2.5e15, "fp8": 5e15, "nvfp4": 15e15}, 8e12, 288e9, ("NVLink 5", 900e9),
                  est=("bf16",)),
    "tpu-v5e": _chip({"bf16": 197e12, "int8": 394e12}, 8.2e11, 16e9, ("ICI, one link", 4.5e10)),
    "tpu-v6e": _chip({"bf16": 920e12, "int8": 1840e12}, 1.64e12, 32e9, ("ICI, one link", 9e10)),
    # A100 80GB SXM column: the same peaks, 80GB HBM2e at 2,039 GB/s
    "a100-80gb": _chip({"bf16": 312e12, "int8": 624e12}, 2039e9, 80e9, ("NVLink 3", 300e9)),
}  # fmt: skip
CHIP_NAMES = {"a100": "A100 40GB SXM", "h100": "H100 SXM", "h200": "H200", "b200": "B200",
              "b300": "B300", "tpu-v5e": "TPU v5e", "tpu-v6e": "TPU v6e",
              "a100-80gb": "A100 80GB SXM"}  # fmt: skip
# Bytes per element (SCRIPT demo 3; nvfp4: 4-bit values plus one 8-bit scale per 16
# values, (16 x 4 + 8) / 16 = 4.5 bits, NVIDIA's NVFP4 format description; mxfp4: one
# 8-bit E8M0 scale per 32, (32 x 4 + 8) / 32 = 4.25 bits, OCP Microscaling Formats v1.0).
BYTES_PER_ELEMENT = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1, "int4": 0.5,
                     "nvfp4": 0.5625, "mxfp4": 0.53125}  # fmt: skip

# Ridge points as the sources print them.
RIDGE_A100_BF16 = "200.6"  # ART 3.2: 312e12 / 1555e9
RIDGE_H100_BF16 = "295.2"  # ART 3.2 (SCRIPT demo 2 prints 295)
RIDGE_H100_FP8 = "590.7"  # ART 3.2
RIDGE_H200_BF16 = "206"  # SCRIPT demo 2
RIDGE_B300_NVFP4 = 1875  # SCRIPT demo 2: 15e15 / 8e12
RIDGE_V5E_BF16 = "240"  # SCRIPT demo 2, BOOK
A100_TO_H100_BW = "x2.15"  # ART 3.2 (and the article's roofline_model.py comment)
A100_TO_H100_BF16 = "x3.17"  # ART 3.2
H100_FP8_OVER_A100_BF16 = "6.3x"  # ART 3.2

# --- Critical batches, D = F = 8192 (SCRIPT demos 2, 3; BOOK) ----------------
CRIT_H100_BF16 = 319  # SCRIPT demo 2, bytes (x, w, out) = (2, 2, 2)
CRIT_H100_FP8 = 332  # SCRIPT demo 2, (1, 1, 2)
CRIT_B300_NVFP4 = 747  # SCRIPT demo 2, (0.5625, 0.5625, 2), "about 750"
CRIT_V5E_INT8 = 256  # SCRIPT demo 3, exercise 1, (1, 1, 1); BOOK estimates 240
CRIT_V5E_INT8_WEIGHTS = 128  # SCRIPT demo 3, exercise 2, (2, 1, 2); BOOK estimates 120
CRIT_V5E_BF16 = 256  # SCRIPT demo 3
BOOK_V5E_INT8 = 240  # BOOK: B ~ I* b_w / 2
BOOK_V5E_INT8_WEIGHTS = 120  # BOOK

# Network roofline, SCRIPT demo 6 and BOOK: D > 2 peak / link.
NETWORK_D = {"tpu-v5e": 8755, "h100": 4396, "tpu-v6e": 20444}

# Tiling, SCRIPT demo 5: exact main-memory intensity of 4096^3 bf16 and bm bn / (bm + bn).
TILES = {
    (32, 32, 32): ("15.9", "16.0"), (64, 64, 64): ("31.8", "32.0"),
    (128, 64, 128): ("63.0", "64.0"), (128, 64, 256): ("83.6", "85.3"),
    (256, 64, 256): ("124.1", "128.0"),
}  # fmt: skip
TILE_SIDE_H100 = "590"  # SCRIPT demo 5: an s x s tile reaches s / 2 FLOP/B
TILE_ACCUMULATOR_MIB = "1.3"  # SCRIPT demo 5: 590^2 x 4 bytes
SM_REGISTER_FILE_BYTES = 256 * 1024  # SCRIPT demo 5; H100 whitepaper: 64K 32-bit registers

# Decode attention intensity with 32 query heads, d_head 128 (SCRIPT demo 3).
DECODE_ATTENTION_INTENSITY = {32: 1, 8: 4, 1: 32}

# --- The article's operator ledger (ART 3.3, 3.4), bf16, A100 ----------------
ADD_I, ADD_RATIO = "0.17", "0.001"  # n = 16,000,000: F = n, D = 6n
LAYERNORM_I, LAYERNORM_RATIO = "1.50", "0.007"  # [4096, 3072]: F = 6nd, D = 4nd
SOFTMAX_FUSED_I = "1.25"  # [4096, 4096]: F = 5nd, D = 4nd
SOFTMAX_NAIVE_I, SOFTMAX_NAIVE_RATIO = "0.50", "0.002"  # D = 10nd
GEMM_512_I, GEMM_512_RATIO = "409.6", "2.041"  # 512 x 4096 x 4096
GEMM_4096_I = "1365.3"  # 4096^3
ATTN_FLOPS_G = "8.67"  # N = 4096, Dh = 128: F = 4 N^2 Dh + 5 N^2, GFLOP
ATTN_NAIVE_MB, ATTN_NAIVE_I, ATTN_NAIVE_RATIO = "138.41", "62.7", "0.312"
ATTN_MIN_MB, ATTN_MIN_I, ATTN_MIN_RATIO = "4.19", "2068.0", "10.307"
ATTN_BYTES_FACTOR = 33  # ART 3.3: "33x fewer bytes"
ATTN_NAIVE_MS, ATTN_MIN_MS, ATTN_SPEEDUP = "0.089", "0.028", "3.2"  # ART 3.3
# ART 3.4: (2x compute, 2x bandwidth) speedups on A100.
SPEEDUPS = {
    "add": ("1.00x", "2.00x"), "layernorm": ("1.00x", "2.00x"),
    "softmax naive": ("1.00x", "2.00x"), "gemm 512": ("2.00x", "1.00x"),
    "attention naive": ("1.00x", "2.00x"), "attention min": ("2.00x", "1.00x"),
}  # fmt: skip
# ART 4.2 and exercise 3: GEMM [M, 4096] x [4096, 4096] crossover on A100.
GEMM_CROSSOVER = (128, 256)
GEMM_I_128, GEMM_I_256 = "120.47", "227.56"
RIDGE_A100_EDITED = "1272.7"  # peak 1979e12 / 1555e9
GEMM_CROSSOVER_EDITED = (1024, 4096)

# --- The capacity ledger (ART 3.5, 4.3): 7B, fp16, 32 layers, d_kv 4096, S = 4096 ---
KV_PER_TOKEN_KIB = 512
ACT_PER_TOKEN_KIB = 128  # ART 3.5: 16 vectors x 4096 x 2 bytes
# batch: (weights, KV cache, activations, overhead, total) in GiB, 30% overhead (ART 4.3)
LEDGER_ROWS = {
    1: ("13.0", "2.00", "0.50", "4.66", "20.20"),
    8: ("13.0", "16.00", "4.00", "9.91", "42.95"),
    16: ("13.0", "32.00", "8.00", "15.91", "68.95"),
    24: ("13.0", "48.00", "12.00", "21.91", "94.95"),
    32: ("13.0", "64.00", "16.00", "27.91", "120.95"),
}
LEDGER_FITS_78 = {1: True, 8: True, 16: True, 24: False, 32: False}  # ART 4.3
BATCH_24_AT_4_PERCENT = "75.96"  # ART 4.3, fits
KV_OVER_WEIGHTS_16 = "2.5"  # ART 4.3
BUDGET_GIB = 78  # ART 4.3
# Largest batch in 78 GiB, by hand from the rows' formula (1 + rho) (14e9 + B (2 GiB +
# A)) <= 78 GiB, with A = 0.5 GiB in prefill and 128 KiB in decode:
#   30%, prefill: B <= (78 / 1.3 - 13.04) / 2.5 = 18.78 -> 18
#   4%, prefill: (78 / 1.04 - 13.04) / 2.5 = 24.78 -> 24
#   30%, decode: (60 - 13.04) / 2.000122 = 23.48 -> 23; 4%, decode: 30.98 -> 30
LARGEST_BATCH = {(0.30, "prefill"): 18, (0.04, "prefill"): 24, (0.30, "decode"): 23}
LARGEST_BATCH[0.04, "decode"] = 30

# Measured example machine (ART section 01 and 04: the laptop's probe).
EXAMPLE_BANDWIDTH = 71.8e9
EXAMPLE_MATMUL = 2003e9

# --- Models (HF config.json; exact parameter counts of the released checkpoints) ---
# key: layers, hidden, heads, KV heads, head dim, intermediate, gated, vocab, tied,
#      max_position_embeddings, published size (HF hub's safetensors figure)
MODEL_CONFIGS = {
    "llama-2-7b": (32, 4096, 32, 32, 128, 11008, True, 32000, False, 4096, 6.74e9),
    "llama-3-8b": (32, 4096, 32, 8, 128, 14336, True, 128256, False, 8192, 8.03e9),
    "llama-3-70b": (80, 8192, 64, 8, 128, 28672, True, 128256, False, 8192, 70.6e9),
}
EXACT_PARAMS = {"llama-2-7b": 6_738_415_616, "llama-3-8b": 8_030_261_248,
                "llama-3-70b": 70_553_706_496}  # fmt: skip
