"""Lecture 02's words: by hand on a chip of 100 TFLOP/s and 1 TB/s (ridge 100 FLOP/B), in the
lecture (shipped and edited tables), and by property on drawn tables, text chart or --png."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from edit_battery import contradictions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from present.fake_chips import prose
from strategies import SHIPPED, edited, hardware_tables, patched_hardware, run_lecture

from common.present.display import Group, Observations, PngResult, Preformatted, Table
from lectures.words import roofline_basics as page

PEAK, BW = 100e12, 1e12  # ridge 100 FLOP/B


def text(*objs: object) -> list[str]:
    """Each observation, a figure's caption, each text and each table row as 'a | b | c'."""
    out: list[str] = []
    for obj in objs:
        for item in obj.items if isinstance(obj, Group | Observations) else [obj]:
            if isinstance(item, Table):
                out += [" | ".join(map(str, r)) for r in [item.headers, *item.rows]]
            elif isinstance(item, str):
                out.append(item)
            else:
                out.append(
                    next(getattr(item, a) for a in ("caption", "title", "text") if hasattr(item, a))
                )
    return out


def op(name: str, i: float, ridge: float = 100.0, peak: float = PEAK) -> page.Op:
    """An operation of i FLOP/B moving 1 GB: F = i GFLOP, T = max(F / P, 1 GB / bw)."""
    bw = peak / ridge
    bound = "compute" if i >= ridge else "memory"
    return page.Op(name, i * 1e9, 1e9, i, bound, min(peak, i * bw), max(i * 1e9 / peak, 1e9 / bw))


def basics(top: float = 200.0, ridge: float = 100.0, low: float = 0.999) -> page.Basics:
    """Part 1 on 'Hop': vectors of 1,000, K = 1000, N = 4000, so KN / (K + N) = 800."""
    ints = [("vector add", 1 / 6), ("dot product", 0.5), ("matvec, B=1", low)]
    ints += [("matmul, B=16", 15.9), ("matmul, B=64", 60.0), ("matmul, B=256", top)]
    ops = tuple(op(n, i, ridge) for n, i in ints)
    return page.Basics(
        "Hop", PEAK, PEAK / ridge, ridge, 1000, 1000, 4000, ops, (1, 16, 64, 256), 800)  # fmt: skip


def test_basics_by_hand() -> None:
    got = text(page.basics(basics())[0])
    assert got[0] == ("1. Basic operations in bf16 on Hop (ridge 100 FLOP/B)")
    assert got[1] == "Vectors of 1,000 numbers; matmul X[B,1000] W[1000,4000]."
    assert got[2] == "operation | FLOPs | bytes | FLOP/B | bound | of peak | time >="
    # 1/6 GFLOP over 1 GB: attainable 1/6 TFLOP/s = 0.17% of 100; T = 1 GB / 1 TB/s = 1 ms
    assert got[3] == "vector add | 166.67 MFLOP | 1.00 GB | 0.167 | memory | 0.17% | 1.00 ms"
    # 200 GFLOP at 100 TFLOP/s = 2 ms > 1 ms of bytes: compute, 100% of peak
    assert got[-1] == "matmul, B=256 | 200.00 GFLOP | 1.00 GB | 200.0 | compute | 100.00% | 2.00 ms"
    assert (page.matmul_name(1), page.matmul_name(2)) == ("matvec, B=1", "matmul, B=2")
    assert page.r0(1874.6) == "1875" and page.never(None) == "never" and page.never(2048) == "2,048"
    assert page._pct(0.00056) == "0.06%" and page._pct(0.0) == "0.00%"
    assert page.batch_change(None, None) == "is never reached, before or after"
    assert text(page.basics(basics())[1]) == [
        # shares: 1/6 * 1 TB/s / 100 TFLOP/s = 0.17%; 0.5 / 100 = 0.50%; both below 100
        "A vector add does 0.167 FLOP per byte and a dot product 0.500, however long the "
        "vectors: each number is used once. On the Hop they reach 0.17% and 0.50% of peak; "
        "only moving fewer bytes makes them faster.",
        # 0.999 / 0.5 = 1.998 -> x2.00
        "While B is small the matmul's intensity is about B (15.9 at B = 16, 60.0 at B = 64): "
        "W is read once and reused by every row of X. At B = 1 it is 0.999, x2.00 the dot "
        "product's: each weight is used once.",
        # 60 < 100 <= 200: B = 256 is the first; B = 64 gets 60 / 100 = 60.00%
        "The first batch in the list to reach the ridge of 100 FLOP/B is B = 256 (200.0 "
        "FLOP/B); at B = 64 the matmul still gets only 60.00% of peak.",
        "For large B the bytes of X and of the output count too: B = 256 gives 200 FLOP/B, "
        "not 256, and no batch can pass KN/(K+N) = 800.",
        "Here is the core tension of LLM inference: each decode step makes one token per "
        "sequence, so only batching many sequences keeps the matmuls off the bandwidth roof.",
    ]


def test_roofline_chart_by_hand() -> None:
    group = page.roofline_chart(basics())
    assert group.items[0].title == "4. Roofline of Hop, bf16"
    assert isinstance(group.items[1], Preformatted) and "+" in group.items[1].text
    got = text(group)
    assert got[2] == "point | operation | FLOP/B | attainable"
    # a: 1/6 FLOP/B x 1 TB/s = 166.7 GFLOP/s; f: capped at the 100 TFLOP/s peak
    assert got[3] == "a | vector add | 0.167 | 166.7 GFLOP/s"
    assert got[-1] == "f | matmul, B=256 | 200.0 | 100.0 TFLOP/s"
    assert text(page.roofline_observations(basics())) == [
        "The bandwidth roof rises one decade per decade of intensity until the ridge (100 "
        "FLOP/B, 100.0 TFLOP/s); past it the compute roof is flat.",
        "Points a and b sit at the bottom left (0.17% and 0.50% of peak): no amount of tuning "
        "their arithmetic helps; only fusing them with neighbours to move fewer bytes does.",
        "The matmuls climb the slope as B grows and reach the flat roof from B = 256. On the "
        "flat roof a larger batch adds latency per step but no throughput.",
    ]


def test_roofline_png_caption_by_hand() -> None:
    png = PngResult(str(Path(__file__).resolve().parents[2] / "figs" / "02_roofline.png"), "")
    same_left = page.Roof("Wide", PEAK, 50.0)  # same peak, twice the bandwidth: ridge 50
    same_right = page.Roof("Narrow", PEAK, 400.0)
    other = page.Roof("Fast", 2 * PEAK, 100.0)
    fig = page.roofline_png(png, "02_roofline.png", basics(), (same_left, other, same_right))
    assert fig.shown_path == "figs/02_roofline.png"  # from the repository root
    assert fig.caption == (
        "Every operation of part 1 sits on the bold Hop roof. Follow them from the vector add "
        "at the bottom left up the bandwidth slope to the matmuls on the flat compute roof "
        "from B = 256. Wide has the same 100.0 TFLOP/s peak, so its dashed roof joins the bold "
        "one at its own ridge (50 FLOP/B), further left. Narrow has the same 100.0 TFLOP/s "
        "peak, so its dashed roof joins the bold one at its own ridge (400 FLOP/B), further "
        "right. The dashed roofs of the other chips show how far the same operations would "
        "climb there."
    )
    twin = page.Roof("Twin", PEAK, 300.0)  # the very same roof: nothing to say about it
    fig = page.roofline_png(png, "02_roofline.png", basics(ridge=300.0), (twin,))
    assert fig.caption == (
        "Every operation of part 1 sits on the bold Hop roof. Follow them from the vector add "
        "at the bottom left up the bandwidth slope; no matmul of the list reaches the flat "
        "compute roof. The dashed roofs of the other chips show how far the same operations "
        "would climb there."
    )
    skipped = page.roofline_png(PngResult(None, "needs matplotlib"), "02.png", basics(), ())
    assert skipped.text == "\n02.png: needs matplotlib"


def ridge(
    chip: str, precision: str, peak: float, bw: float, batch: int | None, w: float = 2
) -> page.Ridge:
    formats = (precision, precision, "bf16")
    return page.Ridge(chip, precision, formats, w, peak, False, bw, peak / bw, batch)


def ridges(h200_bw: float = 2e12, fp8: float = 200e12, fp8_batch: int | None = 110,
           nvfp4: float = 3e15, nv: tuple[int | None, int | None] = (100, 200),
           h200_batch: int | None = 60,
           hop: tuple[float, int | None] = (PEAK, 120),  # the Hop's bf16 peak and critical batch
           ) -> page.Ridges:  # fmt: skip
    h1 = ridge("Hop", "bf16", hop[0], BW, hop[1])  # ridge 100
    h2 = ridge("Hop2", "bf16", PEAK, h200_bw, h200_batch)  # ridge 50 at 2 TB/s
    h8 = ridge("Hop", "fp8", fp8, BW, fp8_batch, 1)
    b8 = ridge("Bee", "fp8", 1e15, 5e12, nv[0], 1)  # ridge 200
    b4 = ridge("Bee", "nvfp4", nvfp4, 5e12, nv[1], 0.5)  # 3e15 / 5e12 = 600
    return page.Ridges(100, 400, (h1, h8, h2, b8, b4), (h1, h2), (h1, h8), (b8, b4))


def test_ridges_by_hand() -> None:
    # Bytes old / new: 2 -> 1 is 1/2.00; an edited fp8 of 2 bytes keeps them, of 4 doubles them.
    assert page._bytes(2 / 1.125, "only ") == "the bytes cut only to 1/1.78"
    bf16, fp8 = ridges().fp8
    said = [page._fp8(bf16, replace(fp8, w_bytes=b)) for b in (2, 4)]
    assert said[0].startswith("fp8 raises the peak x2.00 with the same bytes of X and W, so")
    assert said[1].startswith("fp8 raises the peak x2.00 with the bytes of X and W raised x2.00")
    r = ridges(nv=(100, None))
    r = replace(r, rows=(replace(r.rows[0], estimate=True), *r.rows[1:]))
    got = text(page.ridges(r)[0])
    assert got[0] == ("2. Ridge points and critical batch of X[B,100] W[100,400]")
    assert got[1] == "ridge in FLOP/B; * marks an estimated peak (see the hardware table)."
    assert got[2] == "chip | compute | X/W/out | peak | HBM | ridge | critical B"
    assert got[3] == "Hop | bf16 | bf16/bf16/bf16 | 100.00 TFLOP/s* | 1.00 TB/s | 100 | 120"
    assert got[-1] == "Bee | nvfp4 | nvfp4/nvfp4/bf16 | 3.00 PFLOP/s | 5.00 TB/s | 600 | never"
    assert text(page.ridges(ridges())[1]) == [
        # bf16 ridges: Hop 100, Hop2 50
        "In bf16 the ridge points run from 50 (Hop2) to 100 FLOP/B (Hop): to use its compute, "
        "a matmul must reuse every byte it reads that many times, which at small batch takes "
        "about that many tokens at a time.",
        # 2 TB/s / 1 TB/s = x2.00 as much; ridge 100 -> 50; batch 120 -> 60
        "Hop2 pairs the Hop's 100.0 TFLOP/s of bf16 compute with x2.00 as much bandwidth as the "
        "Hop (2.00 TB/s against 1.00 TB/s), so its ridge falls from 100 to 50 FLOP/B and its "
        "critical batch falls from 120 to 60. A lower ridge makes full speed easier to reach.",
        # 200 / 100 = x2.00 the peak; 2 / 1 bytes = x2.00; 110 / 120 = 0.92 within x1.25
        "fp8 raises the peak x2.00 with the bytes of X and W cut to 1/2.00, so the critical batch "
        "barely moves: 110 against 120 in bf16 (x0.92). Low precision speeds up both sides of "
        "the ledger; by itself it does not change which side limits.",
        # 3e15 / 1e15 = x3.00 the compute, bytes 0.5 / 1 = 1/2.00: 'only'
        "nvfp4 on Bee: x3.00 the fp8 compute with the bytes cut only to 1/2.00. The ridge rises "
        "from 200 to 600 FLOP/B and the critical batch rises from 100 to 200: the chip needs "
        "larger batches to stay busy.",
        "Since the intensity stays below B, the critical batch sits above the ridge: in bf16 on "
        "Hop it is 120, not 100, because reading X and writing the output cost bytes too (part "
        "1's last observation).",
    ]


def exercises(
    int8: int | None = 256, bf16: int | None = 256, weights: int | None = 128, ridge: float = 100
) -> page.Exercises:
    v5e = (page.V5e("int8", "int8", 480.5, 1, 240.25, int8),
           page.V5e("int8 W", "bf16", 240.2, 1, 120.1, weights),
           page.V5e("bf16", "bf16", 240.2, 2, 240.2, bf16))  # fmt: skip
    attention = (page.Attention("MHA", 32, 1e9, 1e9, 1.0, 1.0),
                 page.Attention("GQA", 8, 1e9, 2.5e8, 4.0, 4.0),
                 page.Attention("MQA", 1, 1e9, 3.125e7, 32.0, 32.0))  # fmt: skip
    return page.Exercises("Tee", 100, 400, v5e, 2.0, 32, 128, 4096, 32768, attention, "Hop", ridge)


def test_exercises_by_hand() -> None:
    got = text(page.exercises(exercises(weights=None))[0])
    assert got[0] == ("3. Low precision on Tee, X[B,100] W[100,400]")
    assert got[1] == "book's B = ridge x w / 2 with w bytes per weight; exact B counts every byte."
    assert got[2] == "case | compute | ridge | I, small B | book's B | exact B"
    assert got[3] == "int8 | int8 | 480 | ~ 2 B | 240 | 256"  # 2 / 1 byte
    assert got[4] == "int8 W | bf16 | 240 | ~ 2 B | 120 | never"
    assert got[5] == "bf16 | bf16 | 240 | ~ 1 B | 240 | 256"  # 2 / 2 bytes
    # exercise 4 (one matrix per example) is left to its exercise: no table of it here
    assert not any("per example" in line for line in got)
    assert got[6] == (
        "\nDecode attention, one layer and one sequence, bf16 KV cache:\n"
        "32 query heads of dim 128, context 4,096 tokens."
    )
    assert got[7] == "variant | KV heads | q per KV | FLOPs | KV bytes | FLOP/B"
    assert got[9] == "GQA | 8 | 4 | 1.00 GFLOP | 250.00 MB | 4.0"  # 32 / 8 query heads per KV
    assert text(page.exercises(exercises())[1]) == [
        "Exercise 1: int8 gives x2.00 the v5e's bf16 peak and halves the size of every number, "
        "so the critical batch barely moves: 256 against 256 (bf16 to int8). The small-B "
        "estimate gives 240.",
        "Exercise 2: int8 weights with bf16 compute halve the bytes of W at the same peak, and "
        "the critical batch falls from 256 to 128 (estimate 120). This is why weight-only "
        "quantization pays off so well in decode.",
        "Decode attention is a batch that shares no data: every sequence reads its own KV "
        "cache, and the intensity equals the number of query heads per KV head: MHA 1.0, GQA "
        "4.0, MQA 32.0 FLOP/B. At a context of 32,768 tokens it is the same (1.0, 4.0, 32.0), "
        "and the batch size never enters.",
        "MQA's 32.0 FLOP/B is below the Hop ridge of 100.0: fewer KV heads cut the bytes, which "
        "is what GQA and MQA are for.",
    ]


def tiling(side: float = 200.0, registers: int = 65536) -> page.Tiling:
    tiles = (("32x32x32", 2e9, 15.8, 16.0), ("256x64x256", 3e8, 120.5, 128.0))
    outputs = (("64x64", 16384.0, 32.0), ("256x256", 262144.0, 128.0))
    # a 200 x 200 fp32 accumulator takes 200^2 x 4 = 160,000 B = 156.2 KiB
    return page.Tiling(1024, tiles, outputs, registers, "Hop", 100.0, side, side**2 * 4)


def test_tiling_by_hand() -> None:
    got = text(page.tiling(tiling())[0])
    assert got[0] == ("5. Tiling a (1024x1024) @ (1024x1024) bf16 matmul")
    assert got[1] == "tile bm x bk x bn | main-memory traffic | FLOP/B exact | bm*bn/(bm+bn)"
    assert got[2] == "32x32x32 | 2.00 GB | 15.8 | 16.0"
    assert got[4] == "\nOutput tile against one SM's 64 KiB register file and the Hop ridge:"
    assert got[5] == "output tile | fp32 accumulator | fits 64 KiB | FLOP/B | reaches ridge"
    assert got[6] == "64x64 | 16 KiB | yes | 32 | no"  # 16 KiB <= 64 KiB; 32 < 100
    assert got[7] == "256x256 | 256 KiB | no | 128 | yes"
    assert got[8] == (
        "\nTile needed for 100 FLOP/B from HBM alone: about 200 x 200; fp32 accumulator 156.2 KiB."
    )
    edge = replace(tiling(), outputs=(("8x8", 65536.0, 100.0),))  # 64 KiB, at the ridge
    assert text(page.tiling(edge)[0])[6] == "8x8 | 64 KiB | yes | 100 | yes"  # both edges
    assert text(page.tiling(tiling())[1]) == [
        "Exact and approximate intensities differ only by the output write: 15.8 against 16.0 "
        "for 32x32x32 tiles, 120.5 against 128.0 for 256x64x256. The inner size bk does not "
        "change the traffic.",
        # 160,000 / 65,536 = 2.44
        "To reach the Hop ridge of 100 FLOP/B on its own, an SM would need an output tile of "
        "about 200 x 200, whose fp32 accumulator takes 156.2 KiB: x2.44 as much as its 64 KiB "
        "register file. No single SM gets there by itself.",
        "Real GPUs close that gap in two ways. A large L2 cache lets many SMs share the panels "
        "they fetch, so HBM sees far less traffic than every SM fetching alone. And Blackwell "
        "adds Tensor Memory (TMEM) beside each SM to hold accumulators, and lets two SMs run one "
        "MMA on shared operands: both exist to make tiles bigger.",
    ]


def link(chip: str, bw: float, peak: float, dims: tuple[int, ...] = (1000, 4000)) -> page.Link:
    crit = 2 * peak / bw  # K > b P / link in bf16
    bounds = tuple((k, "compute" if k > crit else "comms") for k in dims)
    return page.Link(chip, f"{chip} link", bw, peak, False, peak / bw, crit, bounds)


def network(
    b300_peak: float = 300e12, b300_link: float = 2e11, hop_link: float = 4e11, estimate=False
) -> page.Network:
    links = (link("Tee", 1e11, 100e12),  # net ridge 1,000; K > 2,000
             link("Tee2", 2e11, 400e12),  # x4.00 the compute, x2.00 the link: K > 4,000
             link("Hop", hop_link, 200e12),  # x4.00 as much bandwidth as Tee's; K > 1,000
             replace(link("Bee", b300_link, b300_peak), estimate=estimate))  # fmt: skip
    steps = ((1000, 8, 1e-6, 2e-6, 500.0, "comms"), (1000, 64, 8e-6, 1.6e-5, 500.0, "comms"))
    steps += ((4000, 8, 4e-6, 2e-6, 2000.0, "compute"),)
    return page.Network(512, links, steps)


def test_network_by_hand() -> None:
    got = text(page.network(network())[0])
    assert got[0] == ("6. X[B,K] W[K,512] split along K over two chips, bf16")
    assert got[1] == (
        "net I* = bf16 peak / link bandwidth, in FLOP per byte sent; then the bound at each K."
    )
    assert got[2] == "chip | link | one way | net I* | compute iff | K=1000 | K=4000"
    assert got[3] == "Tee | Tee link | 100 GB/s | 1,000 | K > 2,000.0 | comms | compute"
    assert got[7] == "\nTee, one ICI link: the batch does not change the verdict."
    assert got[8] == "K | B | T_math | T_comms | FLOP/B sent | bound"
    assert got[9] == "1000 | 8 | 1.00 µs | 2.00 µs | 500 | comms"
    assert text(page.network(network())[1]) == [
        "Network intensity is K/2 FLOP per byte, so on Tee the split pays off only for "
        "K > 2,000.0. Of the batches from 8 to 64, at K = 1,000 every one is comms-bound and "
        "at K = 4,000 every one is compute-bound.",
        "Hop link carries x4.00 as much bandwidth as one Tee ICI link, and the Hop needs only "
        "K > 1,000.0.",
        "Tee2 has x4.00 the Tee's compute and x2.00 its link bandwidth, so one link needs "
        "K > 4,000.0; real systems use several links at once.",
        # Bee / Hop: 300 / 200 = x1.50 the peak, 2e11 / 4e11 = 1/2.00 the link: ridge 500 -> 1,500
        "From Hop to Bee, bf16 peak grew x1.50 and NVLink shrank to 1/2.00: the network ridge "
        "rises from 500 to 1,500 FLOP/B. Compute grows faster than communication, a trend that "
        "runs through this course.",
    ]


PARTS = {"basics": lambda r: page.basics(r)[1], "roofline": page.roofline_observations,
         "ridges": lambda r: page.ridges(r)[1], "exercises": lambda r: page.exercises(r)[1],
         "tiling": lambda r: page.tiling(r)[1],
         "network": lambda r: page.network(r)[1]}  # fmt: skip
CHECKS = {"==": str.__eq__, "in": str.__contains__, "starts": str.startswith, "ends": str.endswith}
LONGER = tuple(replace(a, long_intensity=a.intensity * 1.01) for a in exercises().attention)


@pytest.mark.parametrize(("part", "record", "index", "check", "want"), [
    # 200 < 300: none reaches; B = 256 gets 200 / 300 = 66.67%
    ("basics", basics(ridge=300.0), 2, "==",
     "No batch in the list reaches the ridge of 300 FLOP/B: even B = 256 gets 66.67% of peak."),
    # ridge 0.9: 0.999 >= 0.9 at B = 1 already; the dot product (0.5) is still memory-bound
    ("basics", basics(ridge=0.9), 2, "==",
     "Every batch in the list reaches the ridge of 1 FLOP/B."),
    ("basics", basics(ridge=0.9), 0, "ends", "of peak; only moving fewer bytes makes them faster."),
    # ridge 0.4: the dot product (0.5) reaches it, the vector add (0.167) does not
    ("basics", basics(ridge=0.4), 0, "ends",
     "reach 41.67% and 100.00% of peak; the vector add is memory-bound, the other already "
     "compute-bound."),
    ("basics", basics(ridge=0.1), 0, "ends",  # both past the ridge
     "of peak; at this ridge both are compute-bound, so only more compute makes them faster."),
    # exactly at the ridge counts as reaching it: 60.0 >= 60
    ("basics", basics(ridge=60), 2, "in", "is B = 64 (60.0 FLOP/B); at B = 16"),
    ("roofline", basics(ridge=300.0), 2, "==",
     "The matmuls climb the slope as B grows. On the flat roof a larger batch adds latency "
     "per step but no throughput."),
    ("roofline", basics(ridge=0.4), 1, "==",
     "Points a and b sit at the bottom left (41.67% and 100.00% of peak): the vector add is "
     "memory-bound, the other already compute-bound."),
    # H200 at 0.5 TB/s: 1/2.00 as much bandwidth, ridge 100 -> 200, batch 120 -> 240
    ("ridges", ridges(h200_bw=0.5e12, h200_batch=240), 1, "==",
     "Hop2 pairs the Hop's 100.0 TFLOP/s of bf16 compute with 1/2.00 as much bandwidth as the "
     "Hop (500.00 GB/s against 1.00 TB/s), so its ridge rises from 100 to 200 FLOP/B and its "
     "critical batch rises from 120 to 240. A higher ridge makes full speed harder to reach."),
    ("ridges", ridges(h200_bw=1e12, h200_batch=120), 1, "ends",
     "with the same bandwidth as the Hop (1.00 TB/s against 1.00 TB/s), so its ridge stays at "
     "100 FLOP/B and its critical batch stays at 120."),
    # nvfp4 at 0.5e15: x0.50 the compute, bytes cut to 1/2.00, no 'only'; 200 -> 100
    ("ridges", ridges(nvfp4=0.5e15, nv=(100, 60)), 3, "==",
     "nvfp4 on Bee: x0.50 the fp8 compute with the bytes cut to 1/2.00. The ridge falls from "
     "200 to 100 FLOP/B and the critical batch falls from 100 to 60: the chip stays busy with "
     "smaller batches."),
    # x2.00 against x2.00: the same factor, no 'only'; the batch stays at 100
    ("ridges", ridges(nvfp4=2e15, nv=(100, 100)), 3, "==",
     "nvfp4 on Bee: x2.00 the fp8 compute with the bytes cut to 1/2.00. The ridge rises from "
     "200 to 400 FLOP/B and the critical batch stays at 100."),
    ("ridges", ridges(nv=(None, 300)), 3, "in", "the critical batch goes from never to 300."),
    ("ridges", ridges(nv=(100, None)), 3, "in", "the critical batch goes from 100 to never."),
    # 400 / 100 = x4.00 peak, bytes x2: batch 120 -> 300 is x2.50, outside x1.25
    ("ridges", ridges(fp8=400e12, fp8_batch=300), 2, "==",
     "fp8 raises the peak x4.00 with the bytes of X and W cut to 1/2.00, so the critical batch "
     "rises from 120 to 300 (x2.50): the peak and the bytes do not move together here, so "
     "fp8 changes which side limits."),
    ("ridges", ridges(fp8=50e12, fp8_batch=60), 2, "starts",
     "fp8 lowers the peak to 1/2.00 with the bytes of X and W cut to 1/2.00, so "),
    ("ridges", ridges(fp8=50e12, fp8_batch=60), 2, "in", "falls from 120 to 60 (x0.50)"),
    ("ridges", ridges(fp8=100.2e12, fp8_batch=None), 2, "==",
     "fp8 keeps the peak with the bytes of X and W cut to 1/2.00, so the critical batch goes "
     "from 120 to never (bf16 to fp8)."),
    # the x1.25 and x0.8 edges still 'barely move': 150 / 120 = 1.25, 96 / 120 = 0.8
    ("ridges", ridges(fp8_batch=150), 2, "in", "barely moves: 150 against 120"),
    ("ridges", ridges(fp8_batch=96), 2, "in", "barely moves: 96 against 120"),
    ("ridges", ridges(fp8_batch=151), 2, "in", "rises from 120 to 151 (x1.26)"),
    ("ridges", ridges(fp8_batch=95), 2, "in", "falls from 120 to 95 (x0.79)"),
    # regression 'in bf16 on H100 SXM it is 30, not 30': a ridge of 29.6 prints '30'
    ("ridges", ridges(hop=(29.6e12, 30)), 4, "in",
     "on Hop it is 30, just above the ridge of 29.60, because"),
    ("ridges", ridges(hop=(PEAK, None)), 4, "in",
     "on Hop it never reaches its ridge of 100, because"),
    ("ridges", ridges(hop=(PEAK, None)), 1, "in", "goes from never to 60"),
    # int8 at 600 against bf16's 256: x2.34, outside x1.25
    ("exercises", exercises(int8=600), 0, "in",
     "so the critical batch rises from 256 to 600 (bf16 to int8)."),
    ("exercises", exercises(int8=None), 0, "in",
     "so the critical batch goes from 256 to never (bf16 to int8)."),
    # MQA's 32.0 against a ridge of 32.0 (printed alike): not below
    ("exercises", exercises(ridge=32.01), 3, "==",
     "MQA's 32.0 FLOP/B is at or past the Hop ridge of 32.0: fewer KV heads cut the bytes, "
     "which is what GQA and MQA are for."),
    ("exercises", replace(exercises(), attention=LONGER), 2, "in",
     "tokens it is now (1.0, 4.0, 32.3), and"),
    ("tiling", tiling(registers=320000), 1, "ends",  # 160,000 / 320,000
     "takes 156.2 KiB: 1/2.00 as much as its 312 KiB register file. One SM's registers can "
     "hold it."),
    ("tiling", tiling(registers=320000), 2, "starts", "Real GPUs go further. A large L2 cache"),
    ("tiling", tiling(registers=160000), 1, "in",  # exactly the same
     "takes 156.2 KiB: the same as its 156 KiB register file. One SM's"),
    # x4.00 the peak, x3.00 the link; ridge 800e12 / 1.2e12 = 667
    ("network", network(b300_peak=800e12, b300_link=1.2e12), 3, "==",
     "From Hop to Bee, bf16 peak grew x4.00 but NVLink only x3.00: the network ridge rises "
     "from 500 to 667 FLOP/B. Compute grows faster than communication, a trend that runs "
     "through this course."),
    ("network", network(b300_peak=400e12, b300_link=1.2e12), 3, "==",
     "From Hop to Bee, NVLink grew x3.00 but bf16 peak only x2.00: the network ridge falls "
     "from 500 to 333 FLOP/B."),
    # both shrink, compute less (x0.50 against x0.25): the ridge rises, yet nothing grows
    ("network", network(b300_peak=100e12, b300_link=1e11), 3, "==",
     "From Hop to Bee, bf16 peak shrank to 1/2.00 and NVLink shrank to 1/4.00: the network "
     "ridge rises from 500 to 1,000 FLOP/B."),
    # 1e10 / 1e11 = 1/10.00 as much; K > 2 x 200e12 / 1e10 = 40,000: no 'only'
    ("network", network(hop_link=1e10), 1, "==",
     "Hop link carries 1/10.00 as much bandwidth as one Tee ICI link, and the Hop needs "
     "K > 40,000.0."),
    # x1.50 against x1.46 (equal at one decimal): compute still grew faster
    ("network", network(b300_link=5.84e11), 3, "==",
     "From Hop to Bee, bf16 peak grew x1.50 but NVLink only x1.46: the network ridge rises "
     "from 500 to 514 FLOP/B. Compute grows faster than communication, a trend that runs "
     "through this course."),
    ("network", network(estimate=True), 3, "in",
     "From Hop to Bee, bf16 peak (an estimate) grew x1.50"),
])  # fmt: skip
def test_each_branch_of_a_sentence_by_hand(
    part: str, record: object, index: int, check: str, want: str
) -> None:
    got = text(PARTS[part](record))[index]
    assert CHECKS[check](got, want), got


def test_a_chip_without_a_link_sits_out_part_6_by_hand() -> None:
    """One line names it, its row and sentences go; with no chip left, one sentence says so."""
    full = network()
    r = page.Network(512, (None, *full.links[1:]), (), missing=("Tee",))
    table, said = (text(part) for part in page.network(r))
    assert table[1] == "Left out: Tee, with no link figure in common/hw_specs.py."
    assert [row.split(" | ")[0] for row in table[4:]] == ["Tee2", "Hop", "Bee"]
    assert not any("ICI link" in line for line in table)  # the Tee's steps are gone
    assert len(said) == 1 and said[0].startswith("From Hop to Bee,")
    r = page.Network(512, (full.links[0], None, None, full.links[3]), full.steps, ("Tee2", "Hop"))
    table, said = (text(part) for part in page.network(r))
    assert table[1] == "Left out: Tee2 and Hop, with no link figure in common/hw_specs.py."
    assert len(said) == 1 and said[0].startswith("Network intensity is K/2")
    r = page.Network(512, (None, None, None, None), (), ("Tee", "Tee2", "Hop", "Bee"))
    table, said = (text(part) for part in page.network(r))
    assert len(table) == 2 and len(said) == 1 and "no network ridge" in said[0]


def lecture(table: dict | None = None, *argv: str) -> str:
    with patched_hardware(table or SHIPPED):
        return prose(run_lecture("02", *argv))


LECTURE = [
    # vector add: 1 FLOP per 6 bytes -> 0.1667 * 3.35e12 / 989e12 = 0.06%
    "On the H100 SXM they reach 0.06% and 0.17% of peak; only moving fewer",
    # I(B) = B K N / (B K + K N + B N): I(256) = 240.9 < 295.2 <= I(1024) = 819.2
    "The first batch in the list to reach the ridge of 295 FLOP/B is B = 1024 (819.2 FLOP/B); "
    "at B = 256 the matmul still gets only 81.61% of peak.",
    "no batch can pass KN/(K+N) = 4096",  # 8192 * 8192 / 16384
    # v5e int8 394e12 / 8.2e11 = 480.5 and bf16 240.2: 256 both; int8 weights: 128
    "the critical batch barely moves: 256 against 256 (bf16 to int8)",
    "the critical batch falls from 256 to 128 (estimate 120)",
    "MQA's 32.0 FLOP/B is below the H100 SXM ridge of 295.2",  # 989 / 3.35
    "reach the flat roof from B = 1024",
    # tile side 2 * 295.2 = 590.4; 590.4^2 * 4 B = 1.39 MB = x5.32 the 256 KiB registers
    "x5.32 as much as its 256 KiB register file. No single SM gets there by itself.",
    # K > 2 * peak / link: 2 * 989e12 / 450e9 = 4,395.6 < v5e's 2 * 197e12 / 4.5e10 = 8,755.6
    "NVLink 4 carries x10.00 as much bandwidth as one TPU v5e ICI link",
    "and the H100 SXM needs only K > 4,395.6.",
    "TPU v6e has x4.67 the TPU v5e's compute and x2.00 its link bandwidth, so one link "
    "needs K > 20,444.4",
    # H200 4.8 TB/s over H100 3.35 TB/s = x1.43; ridges 989/3.35 = 295, 989/4.8 = 206
    "with x1.43 as much bandwidth as the H100 SXM (4.80 TB/s against 3.35 TB/s)",
    "so its ridge falls from 295 to 206 FLOP/B",
    "A lower ridge makes full speed easier to reach.",
    # 15e15 / 5e15 = x3.00 the compute; bytes 0.5625 = 1/1.78 (4.5-bit nvfp4);
    # ridges 5e15 / 8e12 = 625 and 15e15 / 8e12 = 1875
    "nvfp4 on B300: x3.00 the fp8 compute with the bytes cut only to 1/1.78. The ridge rises from "
    "625 to 1875 FLOP/B",
    "332 against 319 in bf16 (x1.04)",  # critical batches, fp8 against bf16 on the H100
    # B300 2.5 PFLOP/s / H100 989 TFLOP/s = x2.53; NVLink 900 / 450 GB/s = x2.00
    "From H100 SXM to B300, bf16 peak (an estimate) grew x2.53 but NVLink only x2.00: the "
    "network ridge rises from 2,198 to 2,778 FLOP/B. Compute grows faster than",
    "in bf16 on H100 SXM it is 319, not 295, because",
]


@pytest.mark.parametrize(("edit", "wanted"), [
    ({}, LECTURE),  # the shipped table: each number worked out above from K = N = 8192
    # 2.4 / 3.35 = 1/1.40 as much; ridge 989 / 2.4 = 412
    ({"h200": {"mem_bw": 0.5}}, ["with 1/1.40 as much bandwidth as the H100 SXM",
                                 "so its ridge rises from 295 to 412 FLOP/B",
                                 "A higher ridge makes full speed harder to reach."]),
    # 15 / 6 = 2.5 PFLOP/s: x0.50 the compute, bytes cut to 1/1.78, no 'only'; 625 -> 312
    ({"b300": {"peak nvfp4": 1 / 6}}, [
        "nvfp4 on B300: x0.50 the fp8 compute with the bytes cut to 1/1.78. The ridge falls ",
        "from 625 to 312 FLOP/B", "the chip stays busy with smaller batches"]),
    # int8 x4: ridge 1576e12 / 8.2e11 = 1922
    ({"tpu_v5e": {"peak int8": 4}}, ["the critical batch rises from 256 to"]),
    # 2 x 989 / 3.35 = 590.4; the smallest B with I(B) >= 590.4 is 690 (conftest.critical_batch)
    ({"h100": {"peak bf16": 2}}, ["(ridge 590 FLOP/B)", "on H100 SXM it is 690, not 590,"]),
    # as slow as one v5e link: 2 * 989e12 / 45e9; no 'only'
    ({"h100": {"link": 0.1}}, ["and the H100 SXM needs K > 43,955.6."]),
    # 335 GB/s: 8192 B / (2 B + 8192) >= 989 / 0.335 = 2,952.2 from B = 10,573, printed as
    # the table prints it, not '10573'
    ({"h100": {"mem_bw": 0.1}}, ["its critical batch falls from 10,573 to 217"]),
    # Regressions, shrunk by hypothesis. 98.9e12 / 3.35e12 = 29.52; the smallest B with
    # I(B) >= 29.52 is 30 (I(29) = 28.9), not a critical batch 'of 30, not 30'
    ({"h100": {"peak bf16": 0.1}}, [
        "on H100 SXM it is 30, just above the ridge of 29.52, because"]),
    # 22.5 GB/s against 900 GB/s: 1/40.00 as much, once printed as 'x0 the bandwidth'
    # and the links as table cells: 45 GB/s x 20 = 900 GB/s, 450 x 0.05 = 22.5 (not '22')
    ({"h100": {"link": 0.05}, "tpu_v5e": {"link": 20}}, [
        "NVLink 4 carries 1/40.00 as much bandwidth as one TPU v5e ICI link", "22.5 GB/s "]),
    # ridge 18 x 197e12 / 8.2e11 = 4,324 > KN / (K + N) = 4,096: no batch reaches it in
    # bf16, once 'the critical batch goes from never to never'
    ({"tpu_v5e": {"peak bf16": 18}}, [
        "the critical batch is never reached, before or after (estimate 2162)"]),
    # 98.9 PFLOP/s (the edit the battery draws) once printed 'they reach 0.00% and 0.00%
    # of peak': add 3.35e12 x (1 / 6) / 98.9e15 = 0.000565%; dot x 0.5: 0.00169%
    ({"h100": {"peak bf16": 100}}, ["they reach 0.00056% and 0.0017% of peak"]),
])  # fmt: skip
def test_lecture_under_edits_by_hand(edit: dict, wanted: list[str]) -> None:
    table = edited(**edit)
    out = lecture(table)
    assert [want for want in wanted if want not in out] == []
    check_claims(out, table)


def check_claims(out: str, table: dict) -> None:
    """Every claim of the lecture against numbers worked out here from the drawn table."""
    faults = contradictions(out)
    assert not faults, "\n".join(faults)
    assert not re.search(r"\bNone\b|\[\]|: \.|\bx0(?:\.0+)?\b(?!\.)|\bnan\b|\binf\b", out), out
    h100, h200 = table["h100"], table["h200"]
    ridge = h100.peak_flops("bf16") / h100.mem_bw
    batches = (1, 16, 64, 256, 1024, 4096)
    # I(B) = B K N / (B K + K N + B N) with K = N = 8192
    reach = [B for B in batches if ridge <= B * 8192**2 / (2 * B * 8192 + 8192**2)]
    if not reach:
        assert "No batch in the list reaches the ridge" in out and "reach the flat roof" not in out
    elif reach[0] == 1:
        assert "Every batch in the list reaches the ridge" in out
    else:
        assert f"to reach the ridge of {ridge:.0f} FLOP/B is B = {reach[0]} (" in out
        assert f"reach the flat roof from B = {reach[0]}." in out
    memory = ridge > 0.5  # the dot product's 2n - 1 FLOP over 2 (2n + 1) bytes is below 0.5
    assert ("only moving fewer bytes makes them faster" in out) == memory
    m = re.search(r"on H100 SXM it is (\d+), not (\d+),", out)
    if m:
        assert int(m.group(1)) > ridge and m.group(1) != m.group(2)
    bw_ratio = h200.mem_bw / h100.mem_bw
    if f"{bw_ratio:.2f}" != "1.00":
        factor = f"x{bw_ratio:.2f}" if bw_ratio > 1 else f"1/{1 / bw_ratio:,.2f}"
        assert f"{factor} as much bandwidth as the H100 SXM" in out
    mqa = 32.0  # 32 query heads on one KV head: I = H_q / H_kv
    assert ("MQA's 32.0 FLOP/B is below" in out) == (f"{ridge:.1f}" != "32.0" and ridge > mqa)
    side, registers = 2 * ridge, 65536 * 4
    assert ("No single SM gets there by itself." in out) == (side**2 * 4 > registers)
    v5e, b300 = table["tpu-v5e"], table["b300"]
    network = ("tpu-v5e", "tpu-v6e", "h100", "b300")  # part 6's chips; a link is optional
    unlinked = [table[c].name for c in network if table[c].link_bw_figure is None]
    left = re.search(r"Left out: (.+?), with no link figure in common/hw_specs\.py\.", out)
    assert bool(left) == bool(unlinked), unlinked
    assert all(name in left[1] for name in unlinked) if left else True
    if {v5e.name, h100.name} & set(unlinked):
        assert "the H100 SXM needs" not in out
    else:
        k = {c: 2 * table[c].peak_flops("bf16") / table[c].link_bw for c in ("tpu-v5e", "h100")}
        assert ("the H100 SXM needs only K >" in out) == (k["h100"] < k["tpu-v5e"])
    if {h100.name, b300.name} & set(unlinked):
        assert "From H100 SXM to B300" not in out
    else:
        c_gain = b300.peak_flops("bf16") / h100.peak_flops("bf16")
        l_gain = b300.link_bw / h100.link_bw
        grows = c_gain > 1 and f"{c_gain:.2f}" != "1.00"  # a shrinking peak grows not at all
        faster = grows and f"x{c_gain:.2f}" != f"x{l_gain:.2f}" and c_gain > l_gain
        assert ("Compute grows faster than communication" in out) == faster
    assert v5e.name in out


# mutmut (make mutation) runs these tests once per mutant: a few drawn tables there, 30 here
@settings(max_examples=3 if "MUTANT_UNDER_TEST" in os.environ else 30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(table=hardware_tables(), png=st.booleans())
def test_no_claim_contradicts_its_numbers_on_drawn_tables(
    table: dict, png: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    argv = ("--png", "--outdir", str(tmp_path_factory.mktemp("png"))) if png else ()
    check_claims(lecture(table, *argv), table)
