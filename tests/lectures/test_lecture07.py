"""Lecture 07 (capacity) as a student runs it: the memory wall, the knee, the figure, errors."""

from __future__ import annotations

import re

from conftest import assert_sections, run_lecture

from common.tables.models import LLAMA_3_70B

LECTURE = "07"  # the `out` fixture (conftest) runs it once


def test_prints_every_section(out: str) -> None:
    headings = ("1. Memory ledger", "2. Critical batch of decode's weight matmuls")
    assert_sections(out, "07_memory_ledger.png", headings, 2, exact=False)
    assert "Largest batch that fits:" in out and "Decode critical batch:" in out


def printed(out: str, label: str) -> str:
    """The number printed after `label` ('Largest batch that fits: 105 ...' -> '105')."""
    return re.search(rf"{re.escape(label)} ([\d.,]+ ?\w*)", out).group(1).strip()


def test_other_models_and_caches() -> None:
    proc = run_lecture(LECTURE, "--model", "llama-2-7b", "--kv", "fp16", check=True)
    assert printed(proc.stdout, "KV cache per token:") == "512.00 KiB"
    assert "per 4,096-token sequence: 2.00 GiB" in proc.stdout
    proc = run_lecture(LECTURE, "--model", LLAMA_3_70B.key, check=True)
    assert "Largest batch that fits: 0 (the weights alone need 141.11 GB)" in proc.stdout
    proc = run_lecture(LECTURE, "--weights", "int4", "--kv", "fp8", "--batch", "16", check=True)
    assert printed(proc.stdout, "KV cache per token:") == "64.00 KiB"
