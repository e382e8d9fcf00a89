"""Lectures 06-08's tables and sentences (common.present.llm), called in this process.

Inputs are round numbers chosen here; every expected cell and sentence is worked out by
hand in the comments (fmt_time prints three significant figures: 0.1 s is '100 ms').
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from fake_chips import chip, observed, prose, rows

from common.formulas.ledger import MemoryLedger
from common.formulas.transformer import DTypes, Op, OpTime, PassLedger
from common.present import llm
from common.present.display import Observations
from common.tables.models import LLAMA_3_8B

H = chip("Hop", 100e12, 1e12)  # ridge 100 FLOP/B, 80 GB


def model(**changes) -> object:
    return dataclasses.replace(LLAMA_3_8B, **changes)


def test_parameter_section_by_hand() -> None:
    parts = {"embedding": 100e6, "attention": 200e6, "mlp": 600e6, "norms": 1e6, "lm_head": 99e6}
    m = model(gated_mlp=True, tied_embeddings=False, published_params=1e9, params_source="src")
    group = llm.parameter_section(m, parts, DTypes())
    assert rows(group) == [
        ["part", "formula", "parameters", "share"],
        ["embedding", "V d", "100.00 M", "10.0%"],
        ["attention", "L (2 d Hq dh + 2 d Hkv dh)", "200.00 M", "20.0%"],
        ["mlp", "L 3 d d_ff", "600.00 M", "60.0%"],
        ["norms", "(2 L + 1) d", "1.00 M", "0.1%"],
        ["lm_head", "V d", "99.00 M", "9.9%"],
        ["total", "", "1.00 G", "100.0%"],
    ]
    assert "2. Parameters from the config" in str(group)
    assert "Published size: 1.00 G (src)." in prose(group)
    said = observed(group)
    assert (
        said[0]
        == "The count from the config, 1.00 G, is less than 0.01% away from the published 1.00 G."
    )
    # MLP 60.0%, attention 20.0%, embedding + head 19.9%; 1e9 x 2 B = 2.00 GB
    assert said[1] == (
        "The MLP holds 60.0% of the weights and attention 20.0%; the embedding and LM head "
        "together hold 19.9%. At bf16 the weights take 2.00 GB."
    )
    # a gap of 0.004% rounds to 0.00% at two decimals: said as less than 0.01%
    tiny = llm.parameter_section(model(published_params=1e9 / 1.00004), parts, DTypes())
    assert "is less than 0.01% away from the published" in observed(tiny)[0]
    # 1e9 / 0.99e9 - 1 = 1.01%
    near = llm.parameter_section(model(published_params=0.99e9), parts, DTypes())
    assert "is within 1.01% of the published 990.00 M." in observed(near)[0]
    plain = llm.parameter_section(
        model(gated_mlp=False, tied_embeddings=True, published_params=None), parts, DTypes()
    )
    assert ["mlp", "L 2 d d_ff", "600.00 M", "60.0%"] in rows(plain)
    assert ["lm_head", "0 (tied)", "99.00 M", "9.9%"] in rows(plain)
    assert "Published size: 1.00 G" in prose(plain)
    int4 = llm.parameter_section(m, parts, DTypes(weights="int4"))
    assert observed(int4)[1].endswith("At int4 the weights take 0.50 GB.")  # 0.5 B a weight


def test_speed_summary_by_hand() -> None:
    m = model(name="M", published_params=8e9)
    group = llm.speed_summary(m, H, "bf16", DTypes(), 8_030_000_000, 0.25, 0.01, 8, 4096)
    assert rows(group) == [
        ["quantity", "value"],
        ["model / chip", "M on Hop, bf16 compute"],
        ["storage", "bf16 weights, bf16 KV cache, bf16 activations"],
        ["parameters (config / published)", "8.03 G / 8.00 G"],
        ["weights", "16.06 GB"],
        ["time to first token >=", "250.000 ms (batch 8, 4,096-token prompts)"],
        ["time per output token >=", "10.000 ms (batch 8, context 4,096)"],
        ["decode throughput <=", "800.0 tokens/s"],  # 8 / 0.01 s
    ]
    for measured, which in (
        (["memory"], "measured memory roof; compute at spec: none published"),
        (["compute"], "measured compute roof; memory at spec: none published"),
        (["memory", "compute"], "measured compute and memory roofs"),
        ([], "compute and memory at spec: none published"),
    ):
        got = rows(
            llm.speed_summary(
                m, H, "bf16", DTypes(), 8e9, 0.25, 0.01, 8, 4096, (0.3, 0.012, measured)
            )
        )
        assert got[-2:] == [
            ["time to first token, achievable roofs >=", f"300.000 ms ({which})"],
            ["time per output token, achievable roofs >=", f"12.000 ms ({which})"],
        ], measured
    none = rows(
        llm.speed_summary(model(published_params=None), H, "bf16", DTypes(), 8e9, 1, 1, 1, 1)
    )
    assert none[3] == ["parameters (config / published)", "8.00 G / 8.00 G"]


def test_memory_section_by_hand() -> None:
    # Llama 3 8B: 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B per token
    kv, act, S = 131072.0, 4096.0, 1000
    seq = kv * S  # 131.07 MB = 125.00 MiB
    led = {
        1: MemoryLedger(16e9, seq, act, 1e9),
        400: MemoryLedger(16e9, 400 * seq, 400 * act, 8e9),  # 76.43 GB: fits 80 GB
        500: MemoryLedger(16e9, 500 * seq, 500 * act, 9e9),  # 90.54 GB: OOM
    }
    group = llm.memory_section(model(), H, DTypes(), S, led, kv, act, 400)
    assert "1. Memory ledger at context 1,000 on Hop (80.00 GB)" in str(group)
    text = prose(group)
    assert (
        "KV cache per token: 128.00 KiB (2 x 32 layers x 8 KV heads x 128 x 2 B); per "
        "1,000-token sequence: 125.00 MiB." in text
    )
    assert "activations 4.00 KiB per active token" in text
    got = rows(group)
    assert got[0] == ["batch", "weights", "KV cache", "activations", "overhead", "total", "fits?"]
    assert got[2] == ["400", "16.00 GB", "52.43 GB", "0.00 GB", "8.00 GB", "76.43 GB", "fits"]
    assert got[3][-1] == "OOM" and got[3][0] == "500"
    assert "Largest batch that fits: 400 sequences at context 1,000." in text
    assert "\n\nLargest batch that fits: 400" in str(group)
    said = observed(group)
    # 52.43 / 16 = 3.3x; activations 1.64 MB of 76.43 GB = 0.0%
    assert said[0] == (
        "The weights are fixed at 16.00 GB; each sequence adds 131.07 MB of KV cache, so after "
        "weights and overhead the chip holds 400 sequences. At that batch the KV cache is "
        "52.43 GB, 3.3x the weights."
    )
    assert said[1] == (
        "Activations stay small in decode (1.64 MB, 0.0% of the total at batch 400) because only "
        "one token per sequence is in flight."
    )
    # activations 10% of the total: the short-context sentence
    heavy = {1: MemoryLedger(1e9, 1e9, 1e9, 0.0), 4: MemoryLedger(6e9, 1e9, 1e9, 2e9)}
    said = observed(llm.memory_section(model(), H, DTypes(), 2, heavy, 1024.0, 2048.0, 4))
    assert said[1] == (
        "Activations are 10.0% of the total at batch 4: with a context this short, the one token "
        "in flight per sequence weighs about as much as its cache (2.00 KiB against 2.00 KiB), so "
        "the activation assumption matters."
    )
    edge = {1: MemoryLedger(1e9, 1e9, 1e9, 0.0), 4: MemoryLedger(17e9, 1e9, 1e9, 1e9)}  # 5%
    assert observed(llm.memory_section(model(), H, DTypes(), 2, edge, 1024.0, 2048.0, 4))[
        1
    ].startswith("Activations are 5.0% of the total")
    # nothing fits: weights over 80 GB need ceil(170 / 80) = 3 chips
    big = {1: MemoryLedger(150e9, 1e9, 1e9, 18e9)}
    group = llm.memory_section(model(), H, DTypes(), S, big, kv, act, 0)
    assert "Largest batch that fits: 0 (the weights alone need 150.00 GB)." in prose(group)
    assert observed(group) == [
        "The weights alone (150.00 GB) exceed the chip's 80.00 GB: this model needs at least 3 "
        "chips (tensor parallelism) or smaller weights. The speed ledger of lecture 06 is what "
        "one chip would do if it could hold them."
    ]
    full = {1: MemoryLedger(80e9, 1e9, 1e9, 0.0)}  # 82 GB: ceil(82 / 80) = 2
    group = llm.memory_section(model(), H, DTypes(), S, full, kv, act, 0)
    assert "Largest batch that fits: 0 (one sequence already needs 82.00 GB)." in prose(group)
    assert observed(group)[0].startswith(
        "One sequence with its weights and overhead (82.00 GB) exceeds the chip's 80.00 GB: this "
        "model needs at least 2 chips"
    )
    exact = {1: MemoryLedger(80e9, 0.0, 0.0, 0.0)}  # weights exactly the capacity: not over
    assert "one sequence already needs 80.00 GB" in prose(
        llm.memory_section(model(), H, DTypes(), S, exact, kv, act, 0)
    )


def shape(name: str, K: int, N: int, count: int) -> SimpleNamespace:
    return SimpleNamespace(name=name, K=K, N=N, count=count)


SHAPES = [(shape("q_proj", 4096, 4096, 32), 150), (shape("k_proj", 4096, 1024, 32), None)]


def test_critical_batch_section_by_hand() -> None:
    group = llm.critical_batch_section(SHAPES, 160, 100, H, "bf16", DTypes(), 4096)
    assert "2. Critical batch of decode's weight matmuls on Hop (bf16)" in str(group)
    assert rows(group) == [
        ["matmul", "K", "N", "per step", "critical batch"],
        ["q_proj", "4,096", "4,096", "x 32", "150"],
        ["k_proj", "4,096", "1,024", "x 32", "-"],
        ["all weight matmuls", "", "", "", "160"],
    ]
    assert "Decode critical batch: 160 (ridge 100 FLOP/byte)." in prose(group)
    said = observed(group)
    # 2-byte weights: I ~ 2B / 2 = B, so the ridge 100 is met near B = 100 x 2 / 2 = 100
    assert said[0] == (
        "With 2-byte weights a matmul's intensity is close to 2B / 2 FLOP/byte while B is small, "
        "so it meets the ridge of 100 near B = 100; the narrow K and V projections need a larger "
        "batch because their activations weigh more."
    )
    assert said[1] == (
        "At 4,096 tokens of context the memory wall (100) comes before the knee (160): on this "
        "chip decode stays bandwidth-bound at every batch that fits. A shorter context, a smaller "
        "KV cache or smaller weights moves the wall."
    )
    fp8 = observed(
        llm.critical_batch_section(SHAPES, 160, 200, H, "bf16", DTypes(weights="fp8"), 4096)
    )
    assert "close to 2B / 1 FLOP/byte" in fp8[0] and "near B = 50;" in fp8[0]  # 100 x 1 / 2
    assert fp8[1] == (
        "The knee (160) comes before the memory wall (200): between them the weight matmuls are "
        "compute-bound, while attention still reads its KV cache at memory speed."
    )
    at = observed(llm.critical_batch_section(SHAPES, 160, 160, H, "bf16", DTypes(), 4096))
    assert at[1].startswith("The knee (160) comes before the memory wall (160)")
    assert len(observed(llm.critical_batch_section(SHAPES, 160, 0, H, "bf16", DTypes(), 4096))) == 1
    none = llm.critical_batch_section(SHAPES, None, 100, H, "bf16", DTypes(), 4096)
    assert not any(isinstance(i, Observations) for i in none.items)
    assert "Decode critical batch: - (ridge 100 FLOP/byte)." in prose(none)


def test_capacity_summary_and_figures_by_hand(tmp_path) -> None:
    group = llm.capacity_summary(1290.0, 1000, 1234, None, 295.2)
    assert rows(group) == [
        ["quantity", "value"],
        ["KV cache per token", "1.26 KiB"],  # 1290 / 1024
        ["KV cache per 1,000-token sequence", "1.23 MiB"],  # 1.29e6 / 2**20
        ["largest batch that fits", "1,234"],
        ["decode critical batch", "-"],
        ["ridge point (FLOP/byte)", "295"],
    ]
    cap = " ".join(llm.capacity_png(str(tmp_path / "c.png"), H, 12, 4096).caption.split())
    assert cap == (
        "The four terms of the capacity ledger against batch at a context of 4,096 tokens, "
        "stacked, under the Hop's 80.00 GB (dashed). The weights are a fixed floor and the KV "
        "cache grows in step with the batch: the total crosses it at B = 12, the memory wall."
    )
    cap = llm.capacity_png(str(tmp_path / "c.png"), H, 0, 4096).caption
    assert cap.endswith("the weights alone already pass it, so no batch fits.")
    cap = " ".join(
        llm.throughput_png(
            str(tmp_path / "t.png"), model(name="M"), 4096, [H, chip("Two", 1, 1)]
        ).caption.split()
    )
    assert cap == (
        "Decode throughput bound of M against batch at a context of 4,096 tokens, one panel per "
        "chip (Hop, Two). Each curve stops at its memory wall (solid line); the dashed line is "
        "the batch where the weight matmuls turn compute-bound, the dotted one the bandwidth "
        "divided by one sequence's KV cache. Look at how each curve bends: a bigger batch shares "
        "the weights, but every sequence reads its own cache, so the curve flattens towards the "
        "dotted ceiling."
    )
    table = llm.throughput_table(
        {"a": ("A", [(1, 100.4), (8, 800.0), (64, 5000.6)], 64), "b": ("B", [], 0)}
    )
    assert [table.headers, *table.rows] == [
        ["chip", "tok/s at B=1", "memory wall", "tok/s at the wall"],
        ["A", "100", "64", "5,001"],
        ["B", "-", "0", "-"],
    ]
    assert str(llm.png_hint("x.png")).strip() == "(add --png to save the figure x.png)"


Q16 = {"weights": 16e9, "ttft": 0.1, "tpot": 0.008, "knee": 150, "wall": 40}
Q16 |= {"kv_token": 131072.0, "attn_bytes": 2e9}


def test_quantization_section_by_hand() -> None:
    q4 = Q16 | {"weights": 4e9, "tpot": 0.004, "knee": 40, "wall": 60}
    group = llm.quantization_section({"bf16": Q16, "int4": q4}, "bf16", 8, 4096)
    assert "1. Weight-only quantization (bf16 compute, batch 8, context 4,096)" in str(group)
    assert rows(group) == [
        [
            "weights",
            "size",
            "TTFT >=",
            "TPOT >=",
            "tok/s <=",
            "knee",
            "fits",
            "KV/token",
            "attn bytes",
        ],
        ["bf16", "16.00 GB", "100 ms", "8.00 ms", "1,000", "150", "40", "128.00 KiB", "2.00 GB"],
        ["int4", "4.00 GB", "100 ms", "4.00 ms", "2,000", "40", "60", "128.00 KiB", "2.00 GB"],
    ]
    said = observed(group)
    # weights 16 / 4 = 4.0x; step 8 / 4 ms = x2.00 < 0.99 x 4
    assert said[0] == (
        "Changes: int4 weights are 4.0x smaller, and the decode step gets x2.00 faster at batch 8, "
        "less than the byte ratio because the KV cache is still read at full size. The knee drops "
        "from 150 to 40: fewer bytes per weight means fewer rows are needed to earn the ridge. The "
        "freed memory holds KV cache, so the largest batch grows from 40 to 60."
    )
    assert said[1] == (
        "Unchanged: prefill (x1.00 from int4), because its matmuls are compute-bound and still "
        "compute at bf16; the KV cache per token (128.00 KiB); and the attention traffic per "
        "decode step (2.00 GB). Only --kv changes those two."
    )
    full = Q16 | {
        "weights": 4e9,
        "tpot": 0.002,
        "ttft": 0.05,
        "kv_token": 65536.0,
        "attn_bytes": 1e9,
    }
    said = observed(llm.quantization_section({"bf16": Q16, "int4": full}, "fp8", 8, 4096))
    assert (
        "x4.00 faster at batch 8, the full byte ratio, since weight reads set the step time."
        in said[0]
    )
    assert said[1].startswith("Unchanged: prefill (x2.00 from int4)")
    assert "still compute at fp8; the KV cache per token (64.00 KiB)" in said[1]
    assert "decode step (1.00 GB)" in said[1]
    # 7.92 / 2 ms = x3.96 = 0.99 x 4 exactly is not less: the full ratio
    q16, edge = Q16 | {"tpot": 0.00792}, Q16 | {"weights": 4e9, "tpot": 0.002}
    said = observed(llm.quantization_section({"bf16": q16, "int4": edge}, "bf16", 8, 4096))
    assert "the full byte ratio" in said[0]


def test_kv_heads_section_by_hand() -> None:
    mha, gqa = model(name="Big-MHA", n_kv_heads=32), model(name="Big-GQA", n_kv_heads=8)
    g = {"kv": 131072.0, "wall": 50, "attn_bytes": 1e9, "tpot": 0.01}
    m = {"kv": 524288.0, "wall": 10, "attn_bytes": 4e9, "tpot": 0.02}
    variants = {"gqa": (gqa, g), "mha": (mha, m)}  # sorted by KV heads, most first
    group = llm.kv_heads_section(variants, H, DTypes(kv="fp8"), 8, 1024)
    assert "2. KV heads and the KV cache (fp8 cache, context 1,024, batch 8)" in str(group)
    assert rows(group) == [
        ["model", "KV heads", "KV/token", "KV/sequence", "fits", "attn bytes", "TPOT >="],
        ["Big-GQA", "8", "128.00 KiB", "128.00 MiB", "50", "1.00 GB", "10.0 ms"],
        ["Big-MHA", "32", "512.00 KiB", "512.00 MiB", "10", "4.00 GB", "20.0 ms"],
    ]
    assert "KV cache, Big-MHA over Big-GQA: x4.00" in prose(group)
    said = observed(group)
    # 32 query heads / 8 KV heads: group size 4
    assert said[0] == (
        "Full multi-head attention stores x4.00 the KV cache of the grouped version: 32 KV heads "
        "against 8, the group size 4. At 1,024 tokens that is 512.00 MiB per sequence against "
        "128.00 MiB, and the largest batch is 10 against 50."
    )
    assert said[1] == (
        "Decode reads the whole cache every step, so attention traffic shrinks by the same factor "
        "(4.00 GB against 1.00 GB per step at batch 8); decode attention's intensity equals the "
        "group size, query heads / KV heads."
    )
    none = llm.kv_heads_section(
        {"gqa": (gqa, g | {"wall": 0}), "mha": (mha, m | {"wall": 0})}, H, DTypes(), 8, 1024
    )
    assert observed(none)[0].endswith(
        "128.00 MiB, though on Hop neither fits: the weights come first."
    )


def test_chips_section_by_hand() -> None:
    stats = {"hop": {"ttft": 0.1, "tpot1": 0.005, "wall": 12, "knee": None}}
    group = llm.chips_section(model(name="M"), stats, {"hop": H}, "bf16", "fp8", 8, 4096)
    assert "3. M across chips (bf16 compute, context 4,096)" in str(group)
    assert "(not every chip in the figure has a fp8 peak, so this section uses bf16)" in prose(
        group
    )
    assert rows(group) == [
        ["chip", "ridge", "bandwidth", "TTFT (B=8) >=", "TPOT (B=1) >=", "fits", "knee"],
        ["Hop", "100", "1.00 TB/s", "100 ms", "5.00 ms", "12", "-"],
    ]
    same = llm.chips_section(model(name="M"), stats, {"hop": H}, "bf16", "bf16", 8, 4096)
    assert "not every chip" not in prose(same)


def timed(op: Op, count: int) -> OpTime:
    """The op's time bounds on H (100 TFLOP/s, 1 TB/s), worked here: max(F / P, D / beta)."""
    compute, memory = op.flops / 100e12, op.nbytes / 1e12
    bound = "compute" if compute >= memory else "memory"
    return OpTime(op, count, compute, memory, max(compute, memory), bound)


Q = Op("Q projection", "matmul", 2e12, weight_bytes=1e9)  # I = 2000: 20 ms compute
A = Op("scores", "attention", 1e11, act_bytes=1e9)  # I = 100, the ridge: 1 ms either way
N = Op("norm", "norm", 1e9, act_bytes=1e10)  # I = 0.1: 10 ms memory
HEAD = Op("lm head", "matmul", 1e12, weight_bytes=5e9)  # I = 200: 10 ms compute


def ledger(phase: str, layer: tuple, once: tuple, batch: int, context: int) -> PassLedger:
    m = model(n_layers=2)
    return PassLedger(phase, m, batch, context, context, DTypes(), False, layer, once)


PRE = ledger("prefill", (Q, A, N), (HEAD,), 2, 512)
PRE_T = [timed(Q, 2), timed(A, 2), timed(N, 2), timed(HEAD, 1)]


def test_pass_table_by_hand() -> None:
    table = llm.pass_table(PRE, PRE_T)
    # total 2 x (20 + 1 + 10) + 10 = 72 ms; one layer 2.101 TFLOP over 12 GB = 175 FLOP/B
    assert [table.headers, *table.rows] == [
        ["operator", "FLOPs", "bytes", "FLOP/B", "bound", "time >=", "of pass"],
        ["Q projection", "2.00 TFLOP", "1.00 GB", "2000", "compute", "20.0 ms", "55.6%"],
        ["scores", "100.00 GFLOP", "1.00 GB", "100", "compute", "1.00 ms", "2.8%"],
        ["norm", "1.00 GFLOP", "10.00 GB", "0.10", "memory", "10.0 ms", "27.8%"],
        ["= one layer", "2.10 TFLOP", "12.00 GB", "175", "", "31.0 ms", ""],
        ["x 2 layers", "4.20 TFLOP", "24.00 GB", "175", "", "62.0 ms", "86.1%"],
        ["lm head", "1.00 TFLOP", "5.00 GB", "200", "compute", "10.0 ms", "13.9%"],
        ["= whole pass", "5.20 TFLOP", "29.00 GB", "179", "", "72.0 ms", "100.0%"],
    ]


def test_prefill_section_by_hand() -> None:
    group = llm.prefill_section(PRE, PRE_T, H, "bf16")
    assert "3. Prefill: 2 x 512 prompt tokens on Hop (bf16)" in str(group)
    assert "Time to first token >= 72.0 ms (prefill of 1,024 tokens)." in prose(group)
    said = observed(group)
    # compute-bound: 40 + 2 + 10 = 52 of 72 ms = 72.2%; 5.202 TFLOP / 100 TFLOP/s = 52.0 ms
    assert said[0] == (
        "Prefill does 5.20 TFLOP and moves 29.00 GB: 179 FLOP per byte overall, above the ridge "
        "of 100. Compute-bound operators take 72.2% of the time, and the whole-pass compute time "
        "alone is 52.0 ms."
    )
    # attention 2e11 of 5.202e12 FLOPs = 3.8%
    assert said[1] == (
        "Attention (scores, softmax, weighted sum) is 3.8% of the FLOPs at 512 tokens; its share "
        "grows with the prompt, since its FLOPs grow as S² and the matmuls' as S."
    )
    # the norms: 2 x 10 ms = 20 ms of 72 = 27.8%
    assert said[2] == (
        "Norms, SiLU and residual adds are memory-bound and cost 20.0 ms (27.8% of the pass) in "
        "this unfused ledger; real engines fuse them into the neighbouring matmuls."
    )


DQ = Op("Q projection", "matmul", 8e9, weight_bytes=1e9)  # I = 8: 1 ms memory
DA = Op("attention", "attention", 1e8, kv_bytes=3e9)  # 3 ms memory
ROPE = Op("rope", "elementwise", 1e6)  # moves no bytes: 10 ns of compute
DHEAD = Op("lm head", "matmul", 4e9, weight_bytes=2e9)  # 2 ms memory


def test_decode_section_by_hand() -> None:
    dec = ledger("decode", (DQ, DA, ROPE), (DHEAD,), 4, 1000)
    times = [timed(DQ, 2), timed(DA, 2), timed(ROPE, 2), timed(DHEAD, 1)]
    group = llm.decode_section(dec, times, H, "bf16")
    assert "4. Decode: 4 x 1 new token, context 1,000, on Hop (bf16)" in str(group)
    # 2 x (1 + 3 ms + 10 ns) + 2 ms = 10.0 ms; 4 / 10.00002 ms = 400.0 tokens/s
    assert "Time per output token >= 10.0 ms; decode throughput <= 400.0 tokens/s." in prose(group)
    said = observed(group)
    assert said[0] == (
        "Each 2-byte weight is read once per step and used in 4 multiply-adds (8 FLOP), so the "
        "Q projection runs at 8.00 FLOP/byte against a ridge of 100. Every operator that moves "
        "bytes is memory-bound."
    )
    # weights 2 x 1 + 2 = 4 GB: 4 ms of 10 = 40.0%; FLOPs 20.202 GFLOP: 202 µs at peak
    assert said[1] == (
        "The step reads 4.00 GB of weights and 6.00 GB of KV cache: weights alone need 4.00 ms "
        "at 1.00 TB/s, 40.0% of the bound. The FLOPs (20.20 GFLOP) would take only 202 µs at "
        "peak."
    )
    assert said[2] == (
        "At batch 4 the KV cache read per step (6.00 GB) outweighs the weights: a bigger batch "
        "shares the weights among more tokens, but every sequence still reads its own cache."
    )
    small_kv = Op("attention", "attention", 1e8, kv_bytes=2e9)  # 4 GB of cache, as the weights
    mix = Op("mix", "matmul", 1e12, act_bytes=1e9)  # I = 1000: compute-bound
    one = ledger("decode", (DQ, small_kv), (DHEAD, mix), 1, 1000)
    times = [timed(DQ, 2), timed(small_kv, 2), timed(DHEAD, 1), timed(mix, 1)]
    said = observed(llm.decode_section(one, times, H, "bf16"))
    assert "used in 1 multiply-add (2 FLOP)" in said[0]
    assert said[0].endswith("Some operators are already compute-bound at this batch.")
    assert len(said) == 2
    two = ledger("decode", (DQ, DA, ROPE), (DHEAD,), 2, 1000)
    times = [timed(DQ, 2), timed(DA, 2), timed(ROPE, 2), timed(DHEAD, 1)]
    assert (
        "used in 2 multiply-adds (4 FLOP)" in observed(llm.decode_section(two, times, H, "bf16"))[0]
    )
    table = llm.pass_table(two, times)
    # one layer 8.101 GFLOP over 4 GB = 2.03; the pass 20.202 GFLOP over 10 GB = 2.02
    assert table.rows[3][0] == "= one layer" and table.rows[3][3] == f"{8.101e9 / 4e9:.2f}"
    assert table.rows[4][3] == f"{8.101e9 / 4e9:.2f}"
    assert table.rows[-1][3] == "2.02"


def test_attention_kernels_and_speed_figure_by_hand(tmp_path) -> None:
    dec = ledger("decode", (DQ, DA, ROPE), (DHEAD,), 4, 1000)
    kernels = {
        ("prefill", True): (PRE, 0.02, 0.09),
        ("prefill", False): (PRE, 0.002, 0.072),
        ("decode", True): (dec, 0.004, 0.012),
        ("decode", False): (dec, 0.003, 0.008),
    }
    group = llm.attention_kernels_section(kernels, 512)
    assert "5. Attention: materialized scores against minimum traffic" in str(group)
    got = rows(group)
    assert got[0] == ["phase", "kernel", "FLOPs", "bytes", "attention >=", "pass >="]
    # attention of the prefill ledger: 2 x 1e11 FLOP, 2 x 1 GB
    assert got[1] == ["prefill", "materialized", "200.00 GFLOP", "2.00 GB", "20.0 ms", "90.0 ms"]
    assert got[2][1] == "minimum traffic"
    assert got[3] == ["decode", "materialized", "200.00 MFLOP", "6.00 GB", "4.00 ms", "12.0 ms"]
    # 90 / 72 = x1.25 and 12 / 8 = x1.50
    assert observed(group) == [
        "Materializing the scores makes the prefill pass x1.25 slower and the decode step x1.50. "
        "In prefill the scores are a 512 x 512 square per head and dwarf Q, K and V; in decode "
        "they are one row per head, small next to the cached K and V that must be read anyway."
    ]
    times = [timed(DQ, 2), timed(DA, 2), timed(ROPE, 2), timed(DHEAD, 1)]
    cap = llm.speed_png(str(tmp_path / "s.png"), {"prefill": PRE_T, "decode": times}, H, "bf16")
    # prefill: Q 2000, scores 100 (on the ridge), lm head 200 reach 100; the norm does not.
    # decode: the rope moves no bytes and is not drawn; none of the other 3 reaches 100
    assert " ".join(cap.caption.split()) == (
        "Every operator of one prefill pass (hollow squares) and of one decode step (dots) that "
        "moves bytes, on the Hop's bf16 roofline (ridge 100 FLOP/B, dotted). Look at which side "
        "of the ridge each phase lands: the flat compute roof holds 3 of prefill's 4 and 0 of "
        "decode's 3 operators; everything left of the ridge runs at the speed of memory, where "
        "only moving fewer bytes helps."
    )


C100 = chip("H100x", 100e12, 1e12, key="h100")  # ridge 100
C200 = chip("H200x", 100e12, 1.5e12, key="h200")  # ridge 66.7
CB = chip("B200x", 200e12, 2e12, key="b200")  # ridge 100
CHIPS = {"h100": C100, "h200": C200, "b200": CB}
STATS = {
    "h100": {"tpot1": 0.015, "ttft": 0.3, "knee": 200},
    "h200": {"tpot1": 0.01, "ttft": 0.25, "knee": 150},
    "b200": {"tpot1": 0.008, "ttft": 0.15, "knee": None},
}
CURVES = {
    "h100": ("H100x", [(1, 66.7), (64, 4000.0), (256, 9000.4)], 256),
    "h200": ("H200x", [(1, 100.0), (100, 8000.0)], 100),
    "b200": ("B200x", [], 0),
}


def chips_said(stats=STATS, curves=CURVES, chips=CHIPS) -> list[str]:
    return llm.chips_observations(LLAMA_3_8B, stats, curves, chips, "bf16", DTypes(), 1000).items


def test_chips_observations_by_hand() -> None:
    said = chips_said()
    # bf16 weights: 2 FLOP per 2 bytes; ridges 66.7 (H200x) to 100
    assert said[0] == (
        "At batch 1 the weight matmuls run at about 1 FLOP/byte while the ridges above run from "
        "67 to 100: decode is bandwidth-bound on every chip."
    )
    # tpot 15 / 10 ms = x1.50 faster; ttft 300 / 250 = x1.20, less than x1.50: 'only'
    assert said[1] == (
        "H200x has x1.00 the compute of H100x and x1.50 the bandwidth: decode at batch 1 gets "
        "x1.50 faster, prefill only x1.20 faster, because decode waits on bytes and prefill on "
        "FLOPs."
    )
    # Llama 3 8B KV: 2 x 32 x 8 x 128 x 2 B = 131,072 B a token, x 1000 = 0.13 GB;
    # 1e12 / 1.31072e8 = 7,629 and 2e12 / 1.31072e8 = 15,259 tokens/s
    assert said[2] == (
        "The throughput flattens because each sequence reads its own 0.13 GB of KV cache per "
        "step: no batch beats bandwidth / that, 7,629 tokens/s on H100x and 15,259 on B200x."
    )
    # weight matmuls a token: 2 x (32 x (2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336)
    # + 4096 x 128256) = 15.01 GFLOP: 150 µs at 100 TFLOP/s
    assert said[3] == (
        "Past its knee (B = 200) the weight matmuls on H100x are compute-bound and cost 150 µs "
        "of compute per token, so the curve levels off at 9,000 tokens/s, below the bandwidth "
        "ceiling: a bigger batch adds work as fast as it adds tokens."
    )
    assert len(said) == 4


def test_chips_observations_other_ways() -> None:
    for ttft2, prefill in ((0.15, "prefill x2.00 faster"), (0.18, "prefill x1.67 faster")):
        stats = STATS | {"h200": STATS["h200"] | {"ttft": ttft2}}
        assert prefill + ", because" in chips_said(stats)[1]  # not less than decode: no 'only'
    stats = STATS | {"h200": STATS["h200"] | {"ttft": 0.3}}
    assert "prefill no faster, because" in chips_said(stats)[1]
    stats = STATS | {
        "h100": STATS["h100"] | {"ttft": 0.015},
        "h200": STATS["h200"] | {"ttft": 0.01},
    }
    assert "prefill x1.50 faster, because" in chips_said(stats)[1]  # as fast as decode: no 'only'
    # 0.3 / 0.2 is 1.4999999999999998 in floating point, but both print x1.50: no 'only'
    stats = STATS | {"h200": STATS["h200"] | {"ttft": 0.2}}
    assert "batch 1 gets x1.50 faster, prefill x1.50 faster, because" in chips_said(stats)[1]
    stats = STATS | {"h200": STATS["h200"] | {"ttft": 0.5}}
    assert "prefill x1.67 slower, because" in chips_said(stats)[1]
    low = chip("Low", 0.5e12, 1e12, key="low")  # ridge 0.5: a batch-1 matmul (I ~ 1) reaches it
    stats = STATS | {"low": STATS["b200"]}
    said = chips_said(stats, CURVES, CHIPS | {"low": low})
    assert said[0].endswith(
        "run from 0 to 100: some chip's ridge is low enough that a matmul is compute-bound."
    )
    # at the knee, or without a knee or a curve, nothing is past it
    curves = CURVES | {"h100": ("H100x", CURVES["h100"][1], 200)}
    assert len(chips_said(STATS, curves)) == 3
    stats = STATS | {"h200": STATS["h200"] | {"knee": 50}}
    curves = CURVES | {"h100": ("H100x", [], 256)}
    said = chips_said(stats, curves)
    assert said[3].startswith("Past its knee (B = 50) the weight matmuls on H200x")
    assert "levels off at 8,000 tokens/s" in said[3]


def test_model_section_by_hand() -> None:
    group = llm.model_section(LLAMA_3_8B, C100, "bf16", DTypes(), 4096, 8)
    text = prose(group)
    assert ["layers", "32", "num_hidden_layers"] in rows(group)
    assert ["MLP", "gated SiLU", "hidden_act, gate_proj"] in rows(group)
    assert ["embeddings", "untied", "tie_word_embeddings"] in rows(group)
    assert "capacity 80.00 GB, ridge point 100 FLOP/byte." in text
    assert "Context 4,096 tokens, batch 8." in text
    assert "Chip: H100x, bf16 peak 100.0 TFLOP/s, memory bandwidth 1.00 TB/s," in text
    other = rows(
        llm.model_section(
            model(gated_mlp=False, tied_embeddings=True), C100, "bf16", DTypes(), 1, 1
        )
    )
    assert ["MLP", "ungated", "hidden_act, gate_proj"] in other
    assert ["embeddings", "tied", "tie_word_embeddings"] in other
