"""Lecture 08 (levers) as a student runs it: quantization, KV heads, chips, the figure, errors."""

from __future__ import annotations

import re

from conftest import assert_sections, quiet_run

LECTURE = "08"  # the `out` fixture (conftest) runs it once


def test_prints_every_section(out: str) -> None:
    headings = ("1. Weight-only quantization", "2. KV heads and the KV cache",
                "3. Llama-3-8B across chips")  # fmt: skip
    assert_sections(out, "08_decode_throughput.png", headings, 3, exact=False)


def test_a_one_token_context_prints_no_zero_and_no_plural() -> None:
    # Llama-3-8B's cache: 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B a token, which
    # "0.00 GB" hid; "At 1 tokens" took the plural
    out = " ".join(quiet_run(LECTURE, "--chip", "b300", "--context", "1", "--batch", "1").split())
    assert "each sequence reads its own 131.07 KB of KV cache" in out
    assert "At 1 token that is" in out
    assert not re.search(r"(?<![\d.])0\.00 GB(?!/s)", out)  # 820.00 GB/s is a bandwidth
