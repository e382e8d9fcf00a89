"""Lecture 08's words: sentences worked by hand from round numbers (fmt_time: 0.1 s is
'100 ms'), and claims that hold on any table, model and flag (hypothesis)."""

from __future__ import annotations

import dataclasses
import re

from conftest import assert_sections
from hypothesis import given, settings
from present.fake_chips import chip, observed, prose, rows
from strategies import edited, llm_runs, patched_hardware, run_lecture, run_llm
from test_words_llm_speed import check_claims

from common.formulas.transformer import DTypes
from common.tables.models import LLAMA_3_8B
from lectures.words import llm_levers as page

H = chip("Hop", 100e12, 1e12)  # ridge 100 FLOP/B, 80 GB


def setup(batch: int = 8, context: int = 4096, precision: str = "bf16", **dt: str) -> page.Setup:
    m = dataclasses.replace(LLAMA_3_8B, name="M")
    return page.Setup(m, H, precision, DTypes(**dt), context, batch, 100e12, 100.0)


Q16 = page.Quant(16e9, 0.1, 0.008, 150, 40, 131072.0, 2e9, 7, 8)
Q4 = page.Quant(4e9, 0.1, 0.004, 40, 60, 131072.0, 2e9, 8, 8)


def quant_said(q16: page.Quant = Q16, **int4: object) -> list[str]:
    q4 = dataclasses.replace(Q4, **int4)
    return observed(page.quantization_section(setup(), {"bf16": q16, "int4": q4}))


def test_quantization_section_by_hand() -> None:
    group = page.quantization_section(setup(), {"bf16": Q16, "int4": Q4})
    assert "1. Weight-only quantization (bf16 compute, batch 8, context 4,096)" in str(group)
    header = ["weights", "size", "TTFT >=", "TPOT >=", "tok/s <=", "knee", "fits", "KV/token"]
    assert rows(group) == [
        [*header, "attn bytes"],
        ["bf16", "16.00 GB", "100 ms", "8.00 ms", "1,000", "150", "40", "128.00 KiB", "2.00 GB"],
        ["int4", "4.00 GB", "100 ms", "4.00 ms", "2,000", "40", "60", "128.00 KiB", "2.00 GB"],
    ]
    # weights 4 / 16 = 1/4.00 as much; step 8 / 4 ms = x2.00, short of the x4.00 byte ratio
    assert observed(group) == [
        "int4 weights take 1/4.00 as much memory as bf16, and the decode step gets x2.00 faster at "
        "batch 8, less than the byte ratio, since int4 shrinks only the weight reads, not the KV "
        "cache, the activations or the FLOPs. The knee drops from 150 to 40: fewer bytes per "
        "weight means fewer rows earn the ridge. The freed memory holds KV cache, so the largest "
        "batch grows from 40 to 60.",
        "Prefill gets no faster with int4 weights. 7 of the 8 weight matmuls are compute-bound "
        "with bf16 weights and all 8 with int4: a compute-bound matmul computes at bf16 whatever "
        "the weights' storage; only the memory-bound ones gain from fewer bytes.",
        "The KV cache per token stays at 128.00 KiB and the attention traffic per decode step "
        "stays at 2.00 GB: only --kv changes those two.",
    ]
    # 8 / 2.02 ms = x3.96: not the x4.00 the bytes shrank; 8 / 2 ms = x4.00: the full ratio
    assert "x3.96 faster at batch 8, less than the byte ratio" in quant_said(tpot=0.00202)[0]
    said_ = quant_said(tpot=0.002)[0]
    assert "x4.00 faster at batch 8, the full byte ratio: weight reads set the step time." in said_
    assert "The knee stays at 150. The freed" in quant_said(knee=150)[0]
    assert "The knee rises from 150 to 200. The freed" in quant_said(knee=200)[0]
    knee = dataclasses.replace(Q16, knee=None)
    brought = "int4 weights bring a knee, B = 40; bf16 weights reach the ridge at no batch."
    assert brought in quant_said(knee)[0]
    neither = "Neither precision's weight matmuls reach the ridge at any batch: no knee."
    assert neither in quant_said(knee, knee=None)[0]
    assert "so the largest batch stays at 40." in quant_said(wall=40)[0]
    assert "so the largest batch shrinks from 40 to 30." in quant_said(wall=30)[0]
    # nothing fits even in int4 (Llama-3-70B on a TPU v5e once said 'the freed memory holds KV
    # cache, so the largest batch stays at 0')
    nothing = quant_said(dataclasses.replace(Q16, wall=0), wall=0)[0]
    assert nothing.endswith("The knee drops from 150 to 40: fewer bytes per weight means fewer "
                            "rows earn the ridge. Even with int4 weights no sequence fits the "
                            "Hop's memory.")  # fmt: skip
    # 69.2 ms against 69.0 ms in the table: the sentence follows the digits shown (lecture 08's
    # default once said 'no faster' beside them): 69.2 / 69.0 = x1.003
    said_ = quant_said(dataclasses.replace(Q16, ttft=0.0692), ttft=0.069)
    assert said_[1].startswith("Prefill gets x1.003 faster with int4 weights.")
    # 100 / 50 ms = x2.00; none of the 8 then 3 of the 8 compute-bound
    said_ = quant_said(ttft=0.05, prefill_compute=3)
    assert said_[1].startswith("Prefill gets x2.00 faster with int4 weights. 7 of the 8")
    assert "and 3 of the 8 with int4" in said_[1]
    # the memory-bound ones' gain shows
    assert said_[1].endswith("only the memory-bound ones gain from fewer bytes.")
    # a KV edit (not a weight edit) is said as what it is
    said_ = quant_said(kv_token=65536.0, attn_bytes=1e9)
    assert said_[2].startswith(
        "The KV cache per token shrinks from 128.00 KiB to 64.00 KiB and the attention traffic "
        "per decode step shrinks from 2.00 GB to 1.00 GB"
    )
    # A drawn model (d_ff 211) at batch 1,048,576 printed 'Prefill gets no faster with int4 weights.
    # None of the 8 weight matmuls are compute-bound ...; only the memory-bound ones gain from fewer
    # bytes': all eight gain, so 'no faster' needs its own reason.
    said_ = quant_said(dataclasses.replace(Q16, prefill_compute=0), prefill_compute=0)
    # TTFT 100 ms both: no faster, with none of the 8 compute-bound in int4
    assert said_[1] == (
        "Prefill gets no faster with int4 weights. None of the 8 weight matmuls are "
        "compute-bound with bf16 weights and none of the 8 with int4: a compute-bound matmul "
        "computes at bf16 whatever the weights' storage; the memory-bound ones read fewer "
        "weight bytes, but the time that saves is too small a part of the pass to show."
    )


def variant(name: str, kv_heads: int, kv: float, wall: int, attn: float, ai: float, tpot: float):
    m = dataclasses.replace(LLAMA_3_8B, name=name, n_heads=32, n_kv_heads=kv_heads)
    return page.Variant(m, kv, wall, tpot, attn, ai)


GQA = variant("Big-GQA", 8, 131072.0, 50, 1e9, 4.0, 0.01)
MHA = variant("Big-MHA", 32, 524288.0, 10, 4e9, 1.0, 0.02)


def test_kv_heads_section_by_hand() -> None:
    group = page.kv_heads_section(setup(context=1024, kv="fp8"), [GQA, MHA])
    assert "2. KV heads and the KV cache (fp8 cache, context 1,024, batch 8)" in str(group)
    assert rows(group) == [
        ["model", "KV heads", "KV/token", "KV/sequence", "fits", "attn bytes", "TPOT >="],
        ["Big-GQA", "8", "128.00 KiB", "128.00 MiB", "50", "1.00 GB", "10.0 ms"],
        ["Big-MHA", "32", "512.00 KiB", "512.00 MiB", "10", "4.00 GB", "20.0 ms"],
    ]
    # 524288 / 131072 = x4.00; 1,024 tokens: 512 MiB against 128 MiB; 4 GB / 1 GB = x4.00
    assert observed(group) == [
        "32 KV heads store x4.00 the KV cache of 8, for the same 32 query heads. At 1,024 tokens "
        "that is 512.00 MiB per sequence against 128.00 MiB, and the largest batch is 10 against "
        "50.",
        "Decode reads the whole cache every step, so attention moves 4.00 GB against 1.00 GB per "
        "step at batch 8 (x4.00), and decode attention runs at 1.00 FLOP/byte against 4.00: "
        "each KV head read serves the query heads of its group.",
    ]
    none = [dataclasses.replace(GQA, wall=0), dataclasses.replace(MHA, wall=0)]
    assert observed(page.kv_heads_section(setup(), none))[0].endswith(
        "2.00 GiB per sequence against 512.00 MiB, though on Hop neither fits one sequence."
    )  # 4,096 tokens: 524288 x 4096 = 2 GiB, 131072 x 4096 = 512 MiB


C100, C200 = chip("H100x", 100e12, 1e12, key="h100"), chip("H200x", 100e12, 1.5e12, key="h200")
CB = chip("B200x", 200e12, 2e12, key="b200")
KV_SEQ = 131072.0 * 1000  # 0.13 GB: ceilings 1e12 / 1.31072e8 = 7,629 and 2e12 / ... = 15,259


def run(c, ridge, ttft, tpot1, wall, at_wall, knee, b1=True) -> page.ChipRun:
    """A chip's record; its ceiling is bandwidth / KV_SEQ, its matmuls 150 µs a token."""
    ceiling, peak = c.mem_bw / KV_SEQ, c.peak_flops("bf16")
    return page.ChipRun(c, peak, ridge, ttft, tpot1, wall, at_wall, knee, ceiling, 150e-6, b1)


CHIPS = ("fits", "tok/s at the wall", "knee")
RUNS = {
    "h100": run(C100, 100.0, 0.3, 0.015, 256, 6000.4, 200),
    "h200": run(C200, 66.67, 0.25, 0.01, 100, 8000.0, 150),
    "b200": run(CB, 100.0, 0.15, 0.008, 0, 0.0, None),
}


def chips_said(**changes: page.ChipRun) -> list[str]:
    return page.chips_observations(RUNS | changes, 1.0, KV_SEQ).items


def test_chips_section_by_hand() -> None:
    group = page.chips_section(setup(), RUNS, "bf16")
    assert "3. M across chips (bf16 compute, context 4,096)" in str(group)
    assert rows(group) == [
        ["chip", "ridge", "bandwidth", "TTFT (B=8) >=", "TPOT (B=1) >=", *CHIPS],
        ["H100x", "100", "1.00 TB/s", "300 ms", "15.0 ms", "256", "6,000", "200"],
        ["H200x", "67", "1.50 TB/s", "250 ms", "10.0 ms", "100", "8,000", "150"],
        ["B200x", "100", "2.00 TB/s", "150 ms", "8.00 ms", "0", "-", "-"],
    ]
    assert "not every chip" not in prose(group)
    fp8 = page.chips_section(setup(precision="fp8"), RUNS, "bf16")
    assert "(not every chip in the figure has a fp8 peak, so this section uses bf16)" in prose(fp8)
    # ridges 66.67 to 100; tpot 15 / 10 ms = x1.50 faster; ttft 300 / 250 = x1.20: 'only'
    assert chips_said() == [
        "At batch 1 the Q projection runs at 1.00 FLOP/byte while the ridges above run from 67 "
        "to 100: every weight matmul of decode is memory-bound on every chip.",
        "Against H100x, H200x has the same compute and x1.50 as much bandwidth: decode at batch 1 "
        "gets x1.50 faster, prefill only x1.20 faster.",
        # 150 µs of matmul compute a token caps H100x at 1 / 150e-6 = 6,667 tokens/s, below
        # its KV ceiling of 7,629: compute, not the KV reads, is why the curve flattens.
        "On H100x the throughput flattens because the weight matmuls turn compute-bound: 150 µs "
        "of compute per token caps it at 6,667 tokens/s, below the 7,629 that the KV reads alone "
        "would allow (each sequence reads its own 0.13 GB of KV cache per step).",
        "Past its knee (B = 200) the weight matmuls on H100x together are past the ridge and "
        "cost 150 µs of compute per token, so the curve ends at 6,000 tokens/s at its wall, "
        "below the bandwidth ceiling of 7,629: a bigger batch adds work as fast as it adds "
        "tokens.",
    ]
    cap = page.throughput_png("t.png", setup(context=1000), ["H100x", "B200x"]).caption
    assert " ".join(cap.split()) == (
        "Decode throughput bound of M against batch at a context of 1,000 tokens, one panel per "
        "chip (H100x, B200x). Each curve stops at its memory wall (solid line); the dashed line "
        "is the batch where the weight matmuls turn compute-bound, the dotted one the bandwidth "
        "divided by one sequence's KV cache. Look at how each curve bends: a bigger batch shares "
        "the weights, but every sequence reads its own cache, so the curve flattens towards the "
        "dotted ceiling."
    )
    h2 = RUNS["h200"]
    # 100 µs a token caps compute at 10,000 tokens/s, above the KV ceiling of 7,629.
    kv_bound = chips_said(h100=dataclasses.replace(RUNS["h100"], matmul=100e-6))[2]
    assert kv_bound == (
        "The throughput flattens because each sequence reads its own 0.13 GB of KV cache per "
        "step: no batch beats bandwidth / that, 7,629 tokens/s on H100x and 15,259 on B200x."
    )
    # no matmul compute a token: no compute cap at all, so the KV reads bind
    assert chips_said(h100=dataclasses.replace(RUNS["h100"], matmul=0.0))[2] == kv_bound
    # no sequence fits on H100x: it has no curve to flatten, so no sentence says why it does
    empty = dataclasses.replace(RUNS["h100"], wall=0, at_wall=0.0, knee=None)
    assert not any("flattens" in line for line in chips_said(h100=empty))
    for ttft, prefill in ((0.15, "prefill x2.00 faster."), (0.3, "prefill no faster.")):
        assert chips_said(h200=dataclasses.replace(h2, ttft=ttft))[1].endswith(prefill)
    # 0.3 / 0.2 is 1.4999999999999998 in floating point, but both print x1.50: no 'only'
    assert chips_said(h200=dataclasses.replace(h2, ttft=0.2))[1].endswith("prefill x1.50 faster.")
    assert chips_said(h200=dataclasses.replace(h2, ttft=0.5))[1].endswith("prefill x1.67 slower.")
    low = dataclasses.replace(RUNS["b200"], ridge=0.5, b1_memory=False)
    assert chips_said(b200=low)[0].endswith(
        "run from 0.5 to 100: 1 of the 3 chips have a ridge low enough for a batch-1 weight matmul "
        "to be compute-bound."
    )
    same = {k: dataclasses.replace(r, ridge=100.0) for k, r in RUNS.items()}
    assert "the ridges above are all 100: every" in chips_said(**same)[0]
    # at the knee exactly, or with no knee, nothing is past it; then the next figure chip
    at = dataclasses.replace(RUNS["h100"], wall=200)
    assert len(chips_said(h100=at)) == 3  # the H200x: wall 100 below its knee 150; B200x none
    said_ = chips_said(h100=at, h200=dataclasses.replace(h2, knee=50))
    assert said_[3].startswith("Past its knee (B = 50) the weight matmuls on H200x")
    assert "ends at 8,000 tokens/s at its wall, below the bandwidth ceiling of 11,444" in said_[3]
    top = dataclasses.replace(RUNS["h100"], at_wall=7629.2)  # prints as the ceiling
    assert "at the bandwidth ceiling of 7,629" in chips_said(h100=top)[3]


def test_lecture_runs_after_the_edits_that_once_printed_false_sentences() -> None:
    """Lecture 08 as a student runs it. --context 128 once printed 'Unchanged: prefill (x2.32
    from int4), because its matmuls are compute-bound'."""
    text = prose(run_lecture("08", "--context", "128"))
    # 128 tokens: a weight matmul does 2 x 128 FLOP per weight read, 2 x 128 / 2 = 128 FLOP/B
    # with bf16 weights, below the ridge of 295: memory-bound, so int4 weights help
    assert "Prefill gets x2.32 faster with int4 weights. None of the 8 weight matmuls are" in text
    assert "compute-bound with bf16 weights and 7 of the 8 with int4" in text
    # Lecture 08 compares the two A100s (the H100 and H200 are the h200-vs-h100 exercise).
    with patched_hardware(edited(a100_80gb={"mem_bw": 0.5})):
        text = prose(run_lecture("08"))
    # 2,039 / 2 = 1,019.5 GB/s against 1,555: 1/1.53 as much; decode at batch 1 follows bandwidth
    assert (
        "A100 80GB SXM has the same compute and 1/1.53 as much bandwidth: decode at batch 1 gets "
        "x1.53 slower" in text
    )
    # Shrunk by hypothesis (then on the H100 and H200): one chip's bf16 x13, the other's x0.0625
    # once printed 'H200 has x0.00 the compute of H100 SXM'.
    with patched_hardware(edited(a100={"peak bf16": 13.0}, a100_80gb={"peak bf16": 0.0625})):
        text = prose(run_lecture("08", "--model", "llama-2-7b", "--chip", "a100", "--context", "1"))
    # 312 x 13 = 4,056 TFLOP/s against 312 / 16 = 19.5 TFLOP/s: 1/208.00 as much; 2,039 / 1,555
    assert (
        "Against A100 40GB SXM, A100 80GB SXM has 1/208.00 as much compute and x1.31 as much"
        in text
    )
    check_claims(text)
    raw = run_lecture("08")
    headings = ("1. Weight-only quantization", "2. KV heads and the KV cache",
                "3. Llama-3-8B across chips")  # fmt: skip
    assert_sections(raw, "08_decode_throughput.png", headings, 3, exact=False)
    text = prose(raw)
    assert "32 KV heads store x4.00 the KV cache of 8, for the same 32 query heads." in text
    assert "Against H100 SXM, H200" not in text  # the h200-vs-h100 exercise's comparison
    # 2,039 GB/s / 1,555 GB/s = x1.31 (datasheets), the same 312 TFLOP/s bf16 peak on both
    assert (
        "A100 80GB SXM has the same compute and x1.31 as much bandwidth: decode at batch 1 gets "
        "x1.31 faster, prefill" in text
    )
    assert "B200" in text  # a chip of the figure
    text = prose(run_lecture("08", "--model", "llama-3-70b"))
    assert "64 KV heads store x8.00 the KV cache of 8, for the same 64 query heads." in text
    # Llama 2 7B has full multi-head attention: its twin has 8 KV heads (group size 4)
    text = prose(run_lecture("08", "--model", "llama-2-7b"))
    assert "32 KV heads store x4.00 the KV cache of 8, for the same 32 query heads." in text
    # Lecture 08 at context 1 on B300: every weight precision reaches the search's bound.
    nvfp4 = ("--chip", "b300", "--precision", "nvfp4", "--kv", "nvfp4", "--context", "1")
    text = prose(run_lecture("08", *nvfp4))
    assert "the largest batch reaches the search's bound (1,048,576, --batch's maximum)" in text
    assert "stays at 1,048,576" not in text and ">=1,048,576" in text
    # Llama-3-8B's cache at one token: 2 x 32 x 8 x 128 x 2 B = 131,072 B, which "0.00 GB"
    # hid; "At 1 tokens" took the plural
    text = prose(run_lecture("08", "--chip", "b300", "--context", "1", "--batch", "1"))
    assert "each sequence reads its own 131.07 KB of KV cache" in text
    assert "At 1 token that is" in text
    assert not re.search(r"(?<![\d.])0\.00 GB(?!/s)", text)  # 820.00 GB/s is a bandwidth


@settings(max_examples=40, deadline=None)
@given(llm_runs())
def test_any_table_model_and_flags(run_: tuple) -> None:
    text = prose(run_llm("08", *run_))
    check_claims(text)
    m = re.search(r"decode step gets (x([\d.]+) faster|no faster)", text)
    assert m, "the decode step's speed-up is said"
    m = re.search(r"([\d.]+) KV heads store x([\d.]+) the KV cache of ([\d.]+)", text)
    assert m and float(m.group(1)) >= float(m.group(3)) and float(m.group(2)) >= 1.0
