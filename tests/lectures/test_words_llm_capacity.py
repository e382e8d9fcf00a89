"""Lecture 07's words: sentences worked by hand on a chip of 100 TFLOP/s, 1 TB/s and 80 GB
(ridge 100 FLOP/byte), and claims that hold on any table, model and flag (hypothesis)."""

from __future__ import annotations

import re
from types import SimpleNamespace

from conftest import assert_sections
from hypothesis import given, settings
from present.fake_chips import chip, observed, prose, rows
from strategies import llm_runs, run_lecture, run_llm
from test_words_llm_speed import check_claims, says

from common.formulas.ledger import MemoryLedger
from common.formulas.transformer import DTypes
from common.present.display import Observations
from common.tables.models import LLAMA_2_7B, LLAMA_3_8B
from lectures.words import llm_capacity as page

H = chip("Hop", 100e12, 1e12)  # ridge 100 FLOP/B, 80 GB
KV, ACT = 131072.0, 4096.0  # Llama 3 8B: 2 x 32 layers x 8 KV heads x 128 x 2 B a token


def setup(context: int = 1000, model: object = LLAMA_3_8B, **dt: str) -> page.Setup:
    return page.Setup(model, H, "bf16", DTypes(**dt), context, 1, 100e12, 100.0)


def capacity(ledgers: dict, wall: int, chips: int = 1, kv: float = KV, act: float = ACT):
    return page.Capacity(ledgers, kv, act, wall, chips)


SEQ = KV * 1000  # 131.07 MB = 125.00 MiB a 1,000-token sequence
FITS = {
    1: MemoryLedger(16e9, SEQ, ACT, 1e9),
    400: MemoryLedger(16e9, 400 * SEQ, 400 * ACT, 8e9),  # 76.43 GB: fits 80 GB
    500: MemoryLedger(16e9, 500 * SEQ, 500 * ACT, 9e9),  # 90.54 GB: OOM
}


def test_memory_section_and_nothing_fits_by_hand(tmp_path) -> None:
    group = page.memory_section(setup(), capacity(FITS, 400))
    assert "1. Memory ledger at context 1,000 on Hop (80.00 GB)" in str(group)
    text = prose(group)
    says(
        text,
        "KV cache per token: 128.00 KiB (2 x 32 layers x 8 KV heads x 128 x 2 B); per "
        "1,000-token sequence: 125.00 MiB.",
        "Assumptions: activations 4.00 KiB per active token (16 x d_model x 2 B); overhead ",
    )
    got = rows(group)
    assert got[0] == ["batch", "weights", "KV cache", "activations", "overhead", "total", "fits?"]
    assert got[2] == ["400", "16.00 GB", "52.43 GB", "1.64 MB", "8.00 GB", "76.43 GB", "fits"]
    assert got[3][0] == "500" and got[3][-1] == "OOM"
    assert "\n\nLargest batch that fits: 400 sequences at context 1,000." in str(group)
    # 1,000 tokens x 131,072 B = 131,072,000 B = 125.00 MiB, in the KiB/MiB of the lines
    # above it; 52.43 / 16 = x3.28; activations 400 x 4096 B = 1.64 MB of 76.43 GB = 0.002%:
    # not zero, so not "0.0%"
    assert observed(group) == [
        "The weights are fixed at 16.00 GB; each sequence adds 125.00 MiB of KV cache, so after "
        "weights and overhead the chip holds 400 sequences. At that batch the KV cache is "
        "52.43 GB, x3.28 as much as the weights.",
        "Activations stay small in decode (1.64 MB, under 0.1% of the total at batch 400) "
        "because only one token per sequence is in flight.",
    ]
    # activations 1 GB of 10 GB: the sentence that says the assumption matters
    heavy = {1: MemoryLedger(1e9, 1e9, 1e9, 0.0), 4: MemoryLedger(6e9, 1e9, 1e9, 2e9)}
    said_ = observed(page.memory_section(setup(2), capacity(heavy, 4, kv=1024.0, act=2048.0)))
    assert said_[0].endswith("the KV cache is 1.00 GB, 1/6.00 as much as the weights.")  # 1 / 6
    assert said_[1] == (
        "Activations are 10.0% of the total at batch 4: the one token in flight per sequence "
        "weighs 2.00 KiB against its cache's 2.00 KiB, so the activation assumption matters."
    )
    edges = ((17e9, "5.0%", False), (17.16e9, "5.0%", False), (17.4e9, "4.9%", True))
    for weights, shown, small in edges:
        # 1 GB of activations in 20, 20.16 and 20.4 GB: 5.00%, 4.96% (prints 5.0%) and 4.90%
        edge = {1: MemoryLedger(1e9, 1e9, 1e9, 0.0), 4: MemoryLedger(weights, 1e9, 1e9, 1e9)}
        text = observed(page.memory_section(setup(2), capacity(edge, 4)))[1]
        assert text.startswith("Activations stay small" if small else f"Activations are {shown}")
        assert shown in text
    big = {1: MemoryLedger(150e9, 1e9, 1e9, 18e9)}  # 170 GB: ceil(170 / 80) = 3 chips
    group = page.memory_section(setup(), capacity(big, 0, chips=3))
    assert "Largest batch that fits: 0 (the weights alone need 150.00 GB)." in prose(group)
    assert observed(group) == [
        "The weights alone (150.00 GB) exceed the chip's 80.00 GB: this model needs at least 3 "
        "chips (tensor parallelism) or smaller weights. The speed ledger of lecture 06 is what "
        "one chip would do if it could hold them."
    ]
    full = {1: MemoryLedger(80e9, 1e9, 1e9, 0.0)}  # 82 GB: 2 chips
    group = page.memory_section(setup(), capacity(full, 0, chips=2))
    assert "Largest batch that fits: 0 (one sequence already needs 82.00 GB)." in prose(group)
    assert observed(group)[0].startswith(
        "One sequence with its weights and overhead (82.00 GB) exceeds the chip's 80.00 GB: this "
        "model needs at least 2 chips"
    )
    exact = {1: MemoryLedger(80e9, 0.0, 0.0, 1.0)}  # weights exactly the capacity: not over
    assert "one sequence already needs 80.00 GB" in prose(
        page.memory_section(setup(), capacity(exact, 0, chips=2))
    )
    path = str(tmp_path / "c.png")
    assert " ".join(page.capacity_png(path, setup(4096), capacity(FITS, 12)).caption.split()) == (
        "The four terms of the capacity ledger against batch at a context of 4,096 tokens, "
        "stacked, under the Hop's 80.00 GB (dashed). The weights are a fixed floor and the KV "
        "cache grows in step with the batch: the total crosses it at B = 12, the memory wall."
    )
    cap = page.capacity_png(path, setup(), capacity(big, 0)).caption
    assert cap.endswith("the weights alone already pass it, so no batch fits.")
    cap = page.capacity_png(path, setup(), capacity(exact, 0)).caption
    assert cap.endswith("one sequence already passes it, so no batch fits.")


def shape(name: str, K: int, N: int) -> SimpleNamespace:
    return SimpleNamespace(name=name, K=K, N=N, count=32)


SHAPES = [(shape("Q projection", 4096, 4096), 150), (shape("K projection", 4096, 1024), 180)]


def knee_said(wall: int, knee: int | None = 160, shapes=SHAPES, **kw: object) -> list[str]:
    group = page.critical_batch_section(setup(4096, **kw), page.Knee(shapes, knee, 100.0), wall)
    return next((i.items for i in group.items if isinstance(i, Observations)), [])


def test_critical_batch_section_by_hand() -> None:
    group = page.critical_batch_section(setup(4096), page.Knee(SHAPES, 160, 100.0), 100)
    assert "2. Critical batch of decode's weight matmuls on Hop (bf16)" in str(group)
    assert rows(group) == [
        ["matmul", "K", "N", "per step", "critical batch"],
        ["Q projection", "4,096", "4,096", "x 32", "150"],
        ["K projection", "4,096", "1,024", "x 32", "180"],
        ["all weight matmuls", "", "", "", "160"],
    ]
    assert "Decode critical batch: 160 (ridge 100 FLOP/byte)." in prose(group)
    # 2-byte weights: I ~ 2B / 2, which meets the ridge 100 near B = 100 x 2 / 2 = 100
    assert observed(group) == [
        "With 2-byte weights a matmul's intensity is close to 2B / 2 FLOP/byte while B is small, "
        "so it would meet the ridge of 100 near B = 100; the narrower K and V projections need a "
        "larger batch (180 against 150 for Q) because their activations weigh more against "
        "their weights. Counted exactly, all weight matmuls together reach it at B = 160, the "
        "knee.",
        "At 4,096 tokens of context the memory wall (100) comes before the knee (160): on this "
        "chip the weight matmuls stay below the ridge at every batch that fits. A shorter "
        "context, a smaller KV cache or smaller weights moves the wall.",
    ]
    assert knee_said(200)[1] == (
        "The knee (160) comes before the memory wall (200): between them the weight matmuls "
        "together are past the ridge."
    )
    assert knee_said(160)[1] == "The knee and the memory wall fall on the same batch, 160."
    assert len(knee_said(0)) == 1  # nothing fits: no wall to compare
    assert knee_said(100, None) == []  # no knee: nothing to observe
    none = page.critical_batch_section(setup(), page.Knee(SHAPES, None, 100.0), 100)
    assert "Decode critical batch: - (ridge 100 FLOP/byte)." in prose(none)
    # K's batch not above Q's, no K batch, or full multi-head attention: no 'narrower'
    for shapes, m in (
        ([SHAPES[0], (SHAPES[1][0], 150)], LLAMA_3_8B),
        ([SHAPES[0], (SHAPES[1][0], None)], LLAMA_3_8B),
        (SHAPES, LLAMA_2_7B),
    ):
        assert knee_said(100, 160, shapes, model=m)[0] == (
            "With 2-byte weights a matmul's intensity is close to 2B / 2 FLOP/byte while B is "
            "small, so it would meet the ridge of 100 near B = 100. Counted exactly, all weight "
            "matmuls together reach it at B = 160, the knee."
        )
    assert "close to 2B / 0.5 FLOP/byte" in knee_said(100, weights="int4")[0]
    # a ridge of 0.3 at 2 bytes: 0.3 x 2 / 2 = 0.3 < B = 1 (a unit slip once said "near B = 0")
    tiny = observed(page.critical_batch_section(setup(4096), page.Knee(SHAPES, 1, 0.3), 100))
    assert "so it would pass the ridge of 100 from B = 1; the narrower" in tiny[0]


def test_default_run_by_hand() -> None:
    raw = run_lecture("07")
    headings = ("1. Memory ledger", "2. Critical batch of decode's weight matmuls")
    assert_sections(raw, "07_memory_ledger.png", headings, 2, exact=False)
    text = prose(raw)
    # Llama 3 8B: 2 x 32 x 8 x 128 x 2 B = 131,072 B = 128.00 KiB a token, 512.00 MiB at 4,096
    assert "KV cache per token: 128.00 KiB (2 x 32 layers x 8 KV heads x 128 x 2 B)" in text
    assert "per 4,096-token sequence: 512.00 MiB." in text
    # 16.06 GB of weights; (80 / 1.1 - 16.06) / 0.5369 GB = 105.5: 105 sequences
    assert "Largest batch that fits: 105 sequences at context 4,096." in text
    assert "the memory wall (105) comes before the knee (332)" in text
    # At context 1 with nvfp4 on B300 the search stops at --batch's maximum, 2**20.
    nvfp4 = ("--chip", "b300", "--precision", "nvfp4", "--kv", "nvfp4", "--context", "1")
    text = prose(run_lecture("07", *nvfp4))
    assert "Largest batch that fits: at least 1,048,576 sequences at context 1." in text
    assert "The search stops at --batch's maximum: a larger batch may fit too." in text
    assert "the memory wall (at least 1,048,576)" in text
    # Llama 2 7B's fp16 cache, 2 x 32 layers x 32 KV heads x 128 x 2 B: the article's 512 KiB
    text = prose(run_lecture("07", "--model", "llama-2-7b", "--kv", "fp16"))
    assert "KV cache per token: 512.00 KiB" in text and "4,096-token sequence: 2.00 GiB" in text
    # Llama 3 70B's 70.55 G bf16 weights pass the H100's 80 GB alone
    text = prose(run_lecture("07", "--model", "llama-3-70b"))
    assert "Largest batch that fits: 0 (the weights alone need 141.11 GB)" in text
    # an fp8 cache: 2 x 32 x 8 x 128 x 1 B = 64 KiB a token
    text = prose(run_lecture("07", "--weights", "int4", "--kv", "fp8", "--batch", "16"))
    assert "KV cache per token: 64.00 KiB" in text


@settings(max_examples=40, deadline=None)
@given(llm_runs())
def test_any_table_model_and_flags(run: tuple) -> None:
    text = prose(run_llm("07", *run))
    check_claims(text)
    found = re.search(r"Largest batch that fits: (at least )?([\d,]+)", text)
    wall = int(found.group(2).replace(",", ""))
    # The search stops at --batch's maximum, 2**20: there, and only there, it says so.
    assert bool(found.group(1)) == (wall == 2**20) == ("--batch's maximum" in text)
    knee = re.search(r"Decode critical batch: ([\d,]+|-)", text).group(1)
    if wall and knee != "-":
        k = int(knee.replace(",", ""))
        order = ("comes before the knee" if wall < k
                 else "before the memory wall" if k < wall else "the same batch")  # fmt: skip
        assert order in text
    assert ("the weights alone need" in text) == (wall == 0 and "The weights alone (" in text)
