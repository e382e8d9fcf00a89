"""Lecture 06 (speed) as a student runs it: the printed summary by hand (its flags, errors,
figure and wall time: test_reliability.py and test_layout.py)."""

from __future__ import annotations

import re

import pytest
from conftest import assert_sections, quiet_run, run_lecture, summary_value

from common.hw_specs import H100
from common.tables.models import LLAMA_3_8B

LECTURE = "06"  # the `out` fixture (conftest) runs it once


def ms(text: str) -> float:
    """'4.644 ms (batch 1, ...)' -> 4.644e-3 seconds."""
    match = re.match(r"([\d,.]+) ms", text)
    assert match, text
    return float(match.group(1).replace(",", "")) * 1e-3


def test_prints_every_section(out: str) -> None:
    headings = ("1. Llama-3-8B on H100 SXM", "2. Parameters from the config", "3. Prefill:",
                "4. Decode:", "Summary")  # fmt: skip
    # three observations: parameters, prefill, decode
    assert_sections(out, "06_prefill_decode_roofline.png", headings, 3, exact=True)
    assert "Time to first token >=" in out and "Time per output token >=" in out
    assert summary_value(out, "parameters (config / published)") == "8.03 G / 8.03 G"
    assert summary_value(out, "model / chip") == "Llama-3-8B on H100 SXM, bf16 compute"


def test_the_summary_bounds_by_hand(out: str) -> None:
    m, S = LLAMA_3_8B, 4096
    tpot = ms(summary_value(out, "time per output token >="))
    weights = (8_030_261_248 - m.vocab_size * m.d_model) * 2  # every matmul weight, bf16
    kv = 2 * m.n_layers * m.n_kv_heads * m.d_head * 2 * S
    act_allowance = m.n_layers * 12 * (m.d_model + m.d_ff) * 2 + 2 * m.vocab_size * 2
    lo, hi = weights / H100.mem_bw, (weights + kv + act_allowance) / H100.mem_bw
    assert lo * 0.999 <= tpot <= hi * 1.001  # the summary prints four significant figures
    tokens_per_s = float(summary_value(out, "decode throughput <=").split()[0].replace(",", ""))
    assert tokens_per_s == pytest.approx(1 / tpot, rel=1e-3)
    ttft = ms(summary_value(out, "time to first token >="))
    # At least 2 FLOP per matmul weight per prompt token at peak; at most 20% more.
    flops = 2 * (8_030_261_248 - LLAMA_3_8B.vocab_size * LLAMA_3_8B.d_model) * 4096
    assert flops / H100.peak_flops("bf16") < ttft < 1.2 * flops / H100.peak_flops("bf16")


def test_flags_and_a_tiny_attention_share() -> None:
    proc = run_lecture(LECTURE, "--weights", "int4", "--kv", "fp8", "--batch", "16", check=True)
    assert summary_value(proc.stdout, "storage") == ("int4 weights, fp8 KV cache, bf16 activations")
    assert summary_value(proc.stdout, "weights") == f"{8_030_261_248 * 0.5 / 1e9:.2f} GB"
    # 3 x 16 tokens: attention about 4 S^2 d L = 4 x 256 x 4096 x 32 = 134 MFLOP a sequence,
    # 403 MFLOP of about 674 GFLOP (0.06%): not zero, and under 0.1%
    text = " ".join(quiet_run("06", "--context", "16", "--batch", "3").split())
    assert "weighted sum) is under 0.1% of the FLOPs at 16 tokens" in text
