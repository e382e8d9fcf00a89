"""Lecture 05's words: sentences worked by hand on a peak of 100 TFLOP/s and 1 TB/s (ridge
100 FLOP/B), and claims that hold on edited tables and every flag (hypothesis)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import reference
from edit_battery import contradictions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from present.fake_chips import observed, prose, table
from strategies import SHIPPED, hardware_tables, patched_hardware, run_lecture
from test_words_llm_speed import says

from common import hw_specs
from common.files import results
from common.formulas.thresholds import Crossover
from common.hw_specs import Figure as Fig
from lectures.words import operator_ledger as page
from lectures.words.operator_ledger import Ledger, Machines, Op, Roof, Rooflines, Sweep

OLD = Roof("Old", "bf16", 100e12, 1e12, 100.0)
NEW = Roof("New", "bf16", 300e12, 2e12, 150.0)
NEW8 = Roof("New", "fp8", 600e12, 2e12, 300.0)
HERE = Roof("this machine", "fp32", 2e11, 4e10, 5.0)  # 200 GFLOP/s / 40 GB/s


def test_machines_and_the_headings_of_every_section_by_hand() -> None:
    text = prose(page.machines(Machines((OLD, NEW, NEW8), HERE)))
    says(
        text,
        "Old (bf16) | 100 TFLOP/s | 1.000 TB/s | 100.0",
        "New (fp8) | 600 TFLOP/s | 2.000 TB/s | 300.0",
        "this machine (numpy, fp32) | 200.0 GFLOP/s | 40.000 GB/s | 5.0",
        # 300 / 100 = x3.00 compute, 2 / 1 = x2.00 bandwidth; 600 / 100 = x6.00
        "From Old to New, bf16 compute grew x3.00 but bandwidth only x2.00, so the ridge point "
        "rose from 100.0 to 150.0 FLOP/B: on the newer chip a kernel between 100.0 and 150.0 "
        "FLOP/B falls to the memory-bound side.",
        # 'Old's' alone left open which of Old's peaks: the one compared is its bf16
        "New's fp8 peak is x2.00 as much as its bf16 peak and x6.00 as much as Old's bf16 peak: "
        "it helps only kernels that are compute-bound (and can run in fp8). Quoting the wrong "
        "precision's peak can flip the verdict of the ledger.",
        "This machine's ridge point is 5.0 FLOP/B, measured with numpy in fp32.",
        absent=["not measured"])  # fmt: skip
    mine = Roof("Mine", "bf16", 50e12, 1e12, 50.0)
    text = prose(page.machines(Machines((OLD, NEW, NEW8, mine), HERE)))
    assert "Mine (bf16) | 50 TFLOP/s | 1.000 TB/s | 50.0" in text
    same = Roof("New", "bf16", 200e12, 2e12, 100.0)
    close8 = Roof("New", "fp8", 200.0001e12, 2e12, 100.0)  # :g keeps 6 digits: "200 TFLOP/s"
    text = prose(page.machines(Machines((OLD, same, close8), None)))
    assert "New's fp8 peak is the same as its bf16 peak in this table, so it helps no" in text
    fast_bw = Roof("New", "bf16", 300e12, 6e12, 50.0)
    slow8 = Roof("New", "fp8", 50e12, 6e12, 300 / 6 / 6)  # 50 TFLOP/s: x2.00 below Old
    text = prose(page.machines(Machines((OLD, fast_bw, slow8), None, "no record yet")))
    says(
        text,
        "bandwidth grew x6.00 but bf16 compute only x3.00, so the ridge point fell from 100.0 "
        "to 50.0 FLOP/B: on the newer chip a kernel between 50.0 and 100.0 FLOP/B reaches the "
        "compute roof it misses on the older.",
        "New's fp8 peak is 1/6.00 as much as its bf16 peak in this table, so it helps no kernel.",
        "this machine (numpy, fp32) | not measured (run lecture 01) | - | -",
        "note: this machine is not measured: no record yet",
        absent=["This machine's ridge point"])  # fmt: skip
    same = Roof("New", "bf16", 200e12, 2e12, 100.0)
    same8 = Roof("New", "fp8", 200e12, 2e12, 100.0)  # prints as the bf16 peak: no faster
    text = prose(page.machines(Machines((OLD, same, same8), None)))
    assert (
        "bf16 compute and bandwidth both grew x2.00, so the ridge point stayed at 100.0 FLOP/B: "
        "on the newer chip the same kernels are memory-bound on both." in text
    )
    assert "New's fp8 peak is the same as its bf16 peak in this table, so it helps no" in text
    machines = page.machines(Machines((OLD, NEW, NEW8), HERE))
    assert (
        str(machines.items[0]).splitlines()[1]
        == "Machines: peak compute, bandwidth and ridge point"
    )
    assert machines.items[1].headers == ["machine", "peak P", "bandwidth beta", "ridge I* (FLOP/B)"]
    assert page.ledger(LEDGER).items[2].headers == [
        "operator", "F", "D", "I (FLOP/B)", "I/I*", "bound", "time bound"
    ]  # fmt: skip
    att = page.attention(Ledger(R, 2, (NAIVE, IDEAL)))
    assert str(att.items[0]).splitlines()[1] == (
        "Attention: S and P in memory vs ideal minimum traffic"
    )
    assert att.items[1].headers == ["", "naive (S, P in memory)", "ideal minimum traffic", "change"]
    assert observed(att)[2] == (
        "Caveat: the ideal minimum is a bound computed from a formula, not a measured "
        "FlashAttention kernel. Real tiled kernels reread K and V (or Q) block by block, so they "
        "move more bytes than this, and their speed must be measured."
    )
    fast = page.speedups(LEDGER)
    assert fast.items[1].headers == ["operator", "I/I*", "2x compute", "2x bandwidth"]
    # two memory-bound records that buy 1.00x and 1.25x: the sentence quotes the larger
    odd = Op("odd", 1e9, 1e9, 1.0, "memory", 1e-3, (1.25, 2.0))
    assert "twice the compute buys 1.25x" in observed(page.speedups(Ledger(R, 2, (ADD, odd))))[0]
    assert Op("x", 1.0, 1.0, 1.0, "memory", 1.0).speedups == (1.0, 1.0)


R = Roof("Chip", "bf16", 100e12, 1e12, 100.0)
ADD = Op("elementwise add [n]", 1e9, 6e9, 1 / 6, "memory", 6e-3, (1.0, 2.0))
NORM = Op("LayerNorm [a, b]", 3e9, 2e9, 1.5, "memory", 2e-3, (1.0, 2.0))
GEMM = Op("GEMM 512x4096x4096", 4e11, 1e9, 400.0, "compute", 4e-3, (2.0, 1.0))
# F/P = 1 ms, D/beta = 1.5 ms: 2x bandwidth gives max(1, 0.75) = 1 ms, x1.50
NAIVE = Op("attention naive", 1e11, 1.5e9, 1e11 / 1.5e9, "memory", 1.5e-3, (1.0, 1.5))
IDEAL = Op("attention ideal", 1e11, 1e8, 1000.0, "compute", 1e-3, (2.0, 1.0))
LEDGER = Ledger(R, 2, (ADD, NORM, GEMM, NAIVE, IDEAL))


def test_ledger_by_hand() -> None:
    text = prose(page.ledger(LEDGER))
    says(
        text,
        "chip: Chip, bf16: P = 100 TFLOP/s, beta = 1.000 TB/s, I* = 100.0 FLOP/B;",
        "I* = 100.0 FLOP/B; elements of 2 bytes",
        # I / I* = (1/6) / 100 = 0.00167, printed with the article's three decimals: 0.002;
        # 6e9 B at 1e12 B/s = 6 ms
        "elementwise add [n] | 1.00 GFLOP | 6.00 GB | 0.17 | 0.002 | memory | 6.000 ms",
        "GEMM 512x4096x4096 | 400.00 GFLOP | 1.00 GB | 400.00 | 4.000 | compute | 4.000 ms",
        "3 of the 5 operators are memory-bound on Chip at bf16. The elementwise add sits at "
        "I = 0.17 FLOP/B and LayerNorm at 1.50, against I* = 100.0: both are memory-bound, so "
        "a faster arithmetic unit cannot shorten them at all.",
        "The add's intensity does not depend on its size: F and D both grow with the element "
        "count. A GEMM's does: at M = 512 it is already 400.0 FLOP/B, because each weight byte "
        "is reused by every row of the input.")  # fmt: skip
    assert page._time(1e-5) == "0.010 ms"  # the edge itself: ms, three decimals
    assert page._time(9e-6) == "9.00 µs"
    low = Roof("Chip", "bf16", 1e12, 1e12, 1.0)  # ridge 1: LayerNorm's 1.5 reaches it
    norm = Op("LayerNorm [a, b]", 3e9, 2e9, 1.5, "compute", 3e-3)
    text = prose(page.ledger(Ledger(low, 2, (ADD, norm, GEMM))))
    assert "1 of the 3 operators is memory-bound" in text  # one: the verb agrees
    assert "against I* = 1.0: LayerNorm reaches the compute roof here, so faster" in text
    add = Op("elementwise add [n]", 1e9, 6e9, 1 / 6, "compute", 6e-3)
    text = prose(page.ledger(Ledger(low, 2, (add, norm, GEMM))))
    assert "None of the 3 operators are memory-bound" in text
    assert "the add and LayerNorm reach the compute roof here" in text
    slow = Op("GEMM 8x64x64", 6.6e4, 8.2e3, 8.0, "memory", 1e-8)
    text = prose(page.ledger(Ledger(R, 2, (ADD, NORM, slow))))
    assert "All 3 operators are memory-bound" in text
    assert "at M = 8 it is already 8.0 FLOP/B" in text
    # a compute-bound ideal kernel only 1.03 ms / 1.00 ms faster: 1/1.0 would read as no fall
    # (the claim checker's 'factor past 1'), so the time's factor takes the digits that show it
    close = Op("attention naive", 1e11, 1.03e9, 1e11 / 1.03e9, "memory", 1.03e-3, (1.0, 1.03))
    said = prose(page.attention(Ledger(R, 2, (close, IDEAL))))
    assert "The bytes fall to 1/10 but the time only to 1/1.03: the ideal kernel" in said
    near = Op("attention naive", 1e11, 1.004e9, 1e11 / 1.004e9, "memory", 1.004e-3)  # 3 digits
    said = prose(page.attention(Ledger(R, 2, (near, IDEAL))))
    assert "but the time only to 1/1.004: the ideal kernel" in said
    slower = Op("attention ideal", 1e11, 1e8, 1000.0, "compute", 2e-3)  # made slower by hand
    said = prose(page.attention(Ledger(R, 2, (NAIVE, slower))))
    assert "The time bound rises from 1.500 ms to 2.000 ms" in said
    # ridge 2: M = 1 (I = 1) memory-bound, M = 2 (I = 50) compute-bound
    low = Roof("Chip", "bf16", 2e12, 1e12, 2.0)
    decode = observed(page.sweep(Sweep(low, 64, gemm_rows(2.0), Crossover(1, 2), 2, 32.0)))
    assert "Small-batch decode is memory-bound" in decode[0]


def test_speedups_by_hand() -> None:
    text = prose(page.speedups(LEDGER))
    says(
        text,
        "Speedup from doubling one resource (Chip, bf16)",
        "attention naive | 0.667 | 1.00x | 1.50x",  # (1e11 / 1.5e9) / 100
        "GEMM 512x4096x4096 | 4.000 | 2.00x | 1.00x",
        "For 3 of the 5 operators, twice the compute buys 1.00x: they are memory-bound, and "
        "only more bandwidth (or fewer bytes: fusion, smaller data types) makes them faster.",
        "Within a factor of 2 of the ridge (attention naive), the upgrade that helps pays less "
        "than 2x: after doubling, the other resource becomes the limit.")  # fmt: skip
    whole = prose(page.speedups(Ledger(R, 2, (ADD, GEMM, IDEAL))))
    assert (
        "For 1 of the 3 operators, twice the compute buys 1.00x: it is memory-bound, and only "
        "more bandwidth (or fewer bytes: fusion, smaller data types) makes it faster." in whole
    )
    assert "Every row reads 1.00x or 2.00x because every operator lies more than" in whole
    near = Op("near", 1.2e11, 1e9, 120.0, "compute", 1.2e-3, (1.2, 1.0))
    compute = prose(page.speedups(Ledger(R, 2, (GEMM, near))))
    assert (
        "None of the 2 operators is memory-bound here: the compute term sets every time bound, "
        "so twice the compute pays for each, in full or in part." in compute
    )
    assert "the ridge (near), the upgrade" in compute


def test_attention_by_hand() -> None:
    text = prose(page.attention(Ledger(R, 2, (NAIVE, IDEAL))))
    # bytes 1e8 / 1.5e9: 1/15 as much; intensity 1000 / 66.7 = x15.0; time 1.5 / 1.0 = x1.5
    says(text, "FLOPs | 100.00 GFLOP | 100.00 GFLOP | x1.000",
        "bytes | 1.50 GB | 100.00 MB | 1/15 as much",
        "intensity (FLOP/B) | 66.7 | 1000.0 | x15.0",
        "roofline time | 1.500 ms | 1.000 ms | x1.5 faster",
        "The FLOPs stay at 100.00 GFLOP (x1.000); the bytes fall from 1.50 GB to 100.00 MB, so "
        "the intensity jumps from 66.7 to 1000.0 FLOP/B and the kernel moves from the "
        "memory-bound to the compute-bound side of I* = 100.0.",
        "The time bound falls from 1.500 ms to 1.000 ms (x1.5 faster). The whole gain comes "
        "from moving fewer bytes, not from computing less. The bytes fall to 1/15 but the time "
        "only to 1/1.5: the ideal kernel is compute-bound, so the compute roof caps the gain.",
    )  # fmt: skip
    rows = table(page.attention(Ledger(R, 2, (NAIVE, IDEAL)))).rows
    assert next(r for r in rows if r[0] == "bound") == ["bound", "memory", "compute", ""]
    # 2e11 FLOP over 4e9 bytes = 50.0 FLOP/B against the naive 1e11 / 1.5e9 = 66.7
    more = Op("attention ideal", 2e11, 4e9, 50.0, "memory", 4e-3, (1.0, 1.5))
    said = page.attention(Ledger(R, 2, (NAIVE, more))).items[-1].items[0]
    assert "The FLOPs rise from 100.00 GFLOP to 200.00 GFLOP" in said
    assert "the intensity drops from 66.7 to 50.0 FLOP/B" in said
    # Regression (issue 25): A100 bandwidth 6000e9 printed 'falls from 0.028 ms to 0.028'.
    naive = Op("attention naive", 1e11, 5e8, 200.0, "compute", 1e-3)
    text = prose(page.attention(Ledger(R, 2, (GEMM, naive, IDEAL))))
    assert "roofline time | 1.000 ms | 1.000 ms | no faster" in text
    assert "the kernel stays on the compute-bound side of I* = 100.0" in text
    assert (
        "The time bound stays at 1.000 ms: moving fewer bytes saves no time that shows at "
        "these digits." in text
    )
    assert "falls" not in text.split("The time bound")[1]
    figure = page.rooflines(Rooflines("figs/x.png", "bf16", (("A", (5, 6, 8)), ("H", ())), 8))
    assert (
        figure.caption
        == "The operators of the ledger on the bf16 rooflines of the A and H, numbered as in the "
        "key. Each sits at min(P, I beta) of its panel's chip; the dotted line is the ridge. "
        "Look at which reach the flat roof, right of the ridge: 5, 6 and 8 on the A; none on "
        "the H. The others sit on the slope and run at the speed of memory."
    )
    every = page.rooflines(Rooflines("figs/x.png", "fp8", (("A", (1, 2)),), 2)).caption
    assert every.endswith("right of the ridge: 1 and 2 on the A.")
    inside = Path(__file__).resolve().parents[2] / "figs" / "x.png"
    figure = page.rooflines(Rooflines(str(inside), "bf16", (("A", (5, 6, 8)),), 8))
    assert figure.shown_path == "figs/x.png"


def gemm_rows(ridge: float) -> dict[int, Op]:
    """M = 1, 2, 4 at I = 1, 50, 150 FLOP/B (bound against `ridge`)."""
    side = lambda i: "compute" if i >= ridge else "memory"  # noqa: E731
    return {
        m: Op(str(m), i * 1e6, 1e6, i, side(i), 1e-6) for m, i in ((1, 1.0), (2, 50.0), (4, 150.0))
    }


def test_sweep_by_hand() -> None:
    group = page.sweep(Sweep(R, 64, gemm_rows(100.0), Crossover(2, 4), 3, 32.0))
    assert group.items[1].headers == ["M", "F", "D", "I (FLOP/B)", "bound"]
    assert str(group.items[2]).splitlines()[1] == "ridge point: I* = 100.0 FLOP/B"
    said = observed(group)
    assert said[:2] == [
        "At M = 1 (one token, as in decode) the GEMM does 1.00 FLOP per byte: a matrix-vector "
        "product streams every weight once and uses it once. Small-batch decode is "
        "memory-bound, so quantizing the weights helps by moving fewer bytes, not by faster math.",
        "The sweep crosses the ridge between M = 2 and M = 4; the exact threshold is M = 3. "
        "Below it the weights' bandwidth sets the time, above it the arithmetic does.",
    ]
    assert (
        said[2].startswith("I grows") and "never exceeds 32.0 FLOP/B for these weights" in said[2]
    )
    says(
        prose(group),
        "GEMM [M, 64] x [64, 64] on Chip, bf16",
        "4 | 150.00 MFLOP | 1.00 MB | 150.00 | compute",
        "crossover: M in (2, 4]: I(2) = 50.00 < I* = 100.0 <= I(4) = 150.00",
        "smallest integer M with I >= I*: 3")  # fmt: skip
    low = Roof("Chip", "bf16", 1e12, 2e12, 0.5)
    text = prose(page.sweep(Sweep(low, 64, gemm_rows(0.5), Crossover(None, 1), 1, 32.0)))
    assert "crossover: none needed; already compute-bound at M = 1" in text
    assert "That already reaches I* = 0.5: on this roof even decode is compute-bound." in text
    assert "The sweep crosses" not in text
    high = Roof("Chip", "bf16", 1e15, 1e12, 1000.0)
    text = prose(page.sweep(Sweep(high, 64, gemm_rows(1000.0), None, None, 32.0)))
    assert "crossover: none; every M up to 4 stays below I* = 1,000.0" in text
    assert "smallest integer M" not in text and "The sweep crosses" not in text


# --- Lecture 05 as a student runs it: the article's numbers, and the exercise moves them.
HEADER = re.compile(r"^=+$")


def sections(text: str) -> dict[str, list[str]]:
    """The printed sections, by title (a title is the line above a row of '=')."""
    lines = text.splitlines()
    found: dict[str, list[str]] = {}
    title = None
    for i, line in enumerate(lines):
        if HEADER.match(line) and i > 0:
            title = lines[i - 1]
            found[title] = []
        elif title is not None and not (i + 1 < len(lines) and HEADER.match(lines[i + 1])):
            found[title].append(line)
    return found


def section(text: str, start: str) -> list[str]:
    """The one section whose title starts with `start`."""
    matches = [lines for title, lines in sections(text).items() if title.startswith(start)]
    assert len(matches) == 1, f"expected one section starting {start!r}"
    return matches[0]


def table_rows(lines: list[str]) -> dict[str, list[str]]:
    """Rows of a printed table keyed by their first cell (cells are 2+ spaces apart)."""
    rows = {}
    for line in lines:
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) > 2 and not set(cells[0]) <= {"-"}:
            rows[cells[0]] = cells[1:]
    return rows


#: The A100's 312 TFLOP/s and 1.555 TB/s (ridge 200.6); F, D and I/I* by the article's
#: formulas (tests/reference.py), times D / beta or F / P, whitespace folded.
ART = reference  # the article's numbers
ROWS = [
    "A100 40GB SXM (bf16) 312 TFLOP/s 1.555 TB/s 200.6",  # 312 / 1.555
    "H100 SXM (bf16) 989 TFLOP/s 3.350 TB/s 295.2",
    "H100 SXM (fp8) 1979 TFLOP/s 3.350 TB/s 590.7",
    "this machine (numpy, fp32) not measured (run lecture 01) - -",
    # 96 MB / 1.555 TB/s = 0.062 ms
    f"elementwise add [16M] 16.00 MFLOP 96.00 MB {ART.ADD_I} {ART.ADD_RATIO} memory 0.062 ms",
    f"LayerNorm [4096, 3072] 75.50 MFLOP 50.33 MB 1.50 {ART.LAYERNORM_RATIO} memory",
    "softmax fused [4096, 4096] 83.89 MFLOP 67.11 MB 1.25 0.006 memory",  # 1.25 / 200.64
    f"softmax naive [4096, 4096] 83.89 MFLOP 167.77 MB 0.50 {ART.SOFTMAX_NAIVE_RATIO} memory",
    f"GEMM 512x4096x4096 17.18 GFLOP 41.94 MB 409.60 {ART.GEMM_512_RATIO} compute",
    "GEMM 4096x4096x4096 137.44 GFLOP 100.66 MB 1365.33 6.805 compute",  # 1365.33 / 200.64
    # 8.67 GFLOP / 312 TFLOP/s = 0.028 ms; 138.41 MB / 1.555 TB/s = 0.089 ms
    f"attention naive [N=4096, d_h=128] 8.67 GFLOP 138.41 MB 62.67 {ART.ATTN_NAIVE_RATIO} memory "
    "0.089 ms",
    f"attention ideal-min [N=4096, d_h=128] 8.67 GFLOP 4.19 MB 2068.00 {ART.ATTN_MIN_RATIO} "
    "compute 0.028 ms",
    # the attention table: naive against ideal (ART 3.3: 33x fewer bytes, x3.2 faster)
    "FLOPs 8.67 GFLOP 8.67 GFLOP x1.000 bytes 138.41 MB 4.19 MB 1/33 as much intensity (FLOP/B) "
    "62.7 2068.0 x33.0 bound memory compute roofline time 0.089 ms 0.028 ms x3.2 faster",
    # ART 3.4: twice the compute or twice the bandwidth, beside I/I*
    f"elementwise add [16M] {ART.ADD_RATIO} 1.00x 2.00x",
    f"LayerNorm [4096, 3072] {ART.LAYERNORM_RATIO} 1.00x 2.00x",
    f"softmax naive [4096, 4096] {ART.SOFTMAX_NAIVE_RATIO} 1.00x 2.00x",
    f"GEMM 512x4096x4096 {ART.GEMM_512_RATIO} 2.00x 1.00x",
    f"attention naive [N=4096, d_h=128] {ART.ATTN_NAIVE_RATIO} 1.00x 2.00x",
    f"attention ideal-min [N=4096, d_h=128] {ART.ATTN_MIN_RATIO} 2.00x 1.00x",
    # I(M) = M K N / (M K + K N + M N) at K = N = 4096: 120.47 and 227.56
    "128 4.29 GFLOP 35.65 MB 120.47 memory 256 8.59 GFLOP 37.75 MB 227.56 compute",
    "crossover: M in (128, 256]: I(128) = 120.47 < I* = 200.6 <= I(256) = 227.56",
    # 1979 / 989 = 2.00 and 1979 / 312 = 6.34 (datasheets)
    "H100 SXM's fp8 peak is x2.00 as much as its bf16 peak and x6.34 as much as A100"]  # fmt: skip


def test_every_table_prints_the_articles_numbers() -> None:
    output = run_lecture("05", "--results", "/nonexistent/x")  # nothing measured
    flat = " ".join(output.split())
    assert [r for r in ROWS if r not in flat] == []
    assert len([ln for ln in output.splitlines() if ln.startswith("note: this machine")]) == 1
    assert "not a measured" in output and "FlashAttention" in output


def test_this_machine_from_the_results_file(results_file: Path) -> None:
    calibration = {"bandwidth_bytes_per_s": 2e10, "matmul_flops_per_s": 1e11, "ridge_point": 5.0}
    results.save_section("probe", {"calibration": calibration, "operations": []}, results_file)
    out = run_lecture("05")
    row = table_rows(section(out, "Machines"))["this machine (numpy, fp32)"]
    assert row == ["100.0 GFLOP/s", "20.000 GB/s", "5.0"] and "note: this machine" not in out


def test_other_chip_and_precision() -> None:
    flags = ("--chip", "H100", "--precision", "fp8", "--results", "/nonexistent/x")
    out = run_lecture("05", *flags)
    assert "I* = 590.7 FLOP/B" in out and re.search(r"elements of 1 byte\b", out)  # not "1 bytes"


# --- Property tests: drawn hardware tables and flags, the whole lecture run in-process ---
def _peak(cell: str) -> float:
    return float(cell.split()[0])  # fmt_peak prints TFLOP/s


def unwrapped(text: str) -> str:
    """The printed text on one line, words broken at a hyphen joined again."""
    return re.sub(r"(?<=[a-z])- (?=[a-z])", "-", " ".join(text.split()))


def claim_faults(text: str) -> list[str]:
    """Each claim of the printed lecture whose condition its own tables contradict."""
    faults = contradictions(text)
    if re.search(r"\bNone\b(?! of)|\[\]|\bx0(?:\.0+)?(?![\d.])", text):
        faults.append("None, [] or a ratio of x0")
    flat = unwrapped(text)
    machines = table_rows(section(text, "Machines"))
    a, h, h8 = list(machines.values())[1:4]  # A100 bf16, H100 bf16, H100 fp8
    ridges = float(a[-1].replace(",", "")), float(h[-1].replace(",", ""))
    step = (ridges[1] > ridges[0]) - (ridges[1] < ridges[0])
    lo, hi = sorted(ridges)  # the band of intensities that changes side, as the table prints it
    band = f"on the newer chip a kernel between {lo:,.1f} and {hi:,.1f} FLOP/B "
    word = {1: band + "falls to the memory-bound side", -1: band + "reaches the compute roof"}
    word[0] = "on the newer chip the same kernels"
    if word[step] not in flat:
        faults.append(f"ridge step words: {ridges}")
    if ("helps only kernels" in flat) != (_peak(h8[0]) > _peak(h[0])):
        faults.append("fp8 helps")
    ledger = {k: v for k, v in table_rows(section(text, "Operator ledger")).items()}
    ledger.pop("operator")
    memory = sum(cells[4] == "memory" for cells in ledger.values())
    n = len(ledger)
    count = (
        f"all {n}" if memory == n else f"none of the {n}" if memory == 0 else f"{memory} of the {n}"
    )
    verb = "is" if memory == 1 and n > 1 else "are"
    if f"{count[0].upper()}{count[1:]} operators {verb} memory-bound" not in flat:
        faults.append("memory-bound count")
    add, norm = ledger["elementwise add [16M]"][4], ledger["LayerNorm [4096, 3072]"][4]
    if ("both are memory-bound" in flat) != (add == norm == "memory"):
        faults.append("add and LayerNorm")
    att = table_rows(section(text, "Attention"))
    bound = next(ln for ln in section(text, "Attention") if ln.startswith("bound")).split()[1:]
    if (f"stays on the {bound[0]}-bound side" in flat) != (bound[0] == bound[1]):
        faults.append("attention side")
    times = att["roofline time"]
    if ("The time bound stays at" in flat) != (times[0] == times[1]):
        faults.append("attention time")
    speed = table_rows(section(text, "Speedup"))
    speed.pop("operator")
    partial = [k for k, v in speed.items() if {v[1], v[2]} - {"1.00x", "2.00x"}]
    names = " and ".join([", ".join(partial[:-1]), *partial[-1:]] if partial[1:] else partial)
    if partial and f"ridge ({names}), the upgrade" not in flat:
        faults.append("partial names")
    if ("Every row reads 1.00x or 2.00x" in flat) == bool(partial):
        faults.append("every row whole")
    said = f"For {count} operators, twice" if memory else f"None of the {n} operators is memory"
    if said not in flat:
        faults.append("speedup count")
    sweep = table_rows(section(text, "GEMM [M"))
    if ("Small-batch decode is memory-bound" in flat) != (sweep["1"][-1] == "memory"):
        faults.append("decode bound")
    cross = re.search(r"crosses the ridge between M = (\d+) and M = (\d+)", flat)
    if cross and (sweep[cross[1]][-1], sweep[cross[2]][-1]) != ("memory", "compute"):
        faults.append("crossing")
    return faults


@st.composite
def runs(draw: st.DrawFn) -> tuple[dict, list[str]]:
    """A drawn hardware table and a chip of it with one of that chip's precisions."""
    table = draw(hardware_tables())
    chip = draw(st.sampled_from(sorted(table)))
    precision = draw(st.sampled_from(sorted(table[chip].precisions)))
    return table, ["--chip", chip, "--precision", precision]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=runs(), measured=st.booleans())
def test_no_claim_contradicts_its_numbers(drawn, measured, tmp_path_factory) -> None:
    table, argv = drawn
    path = tmp_path_factory.mktemp("r") / "machine.json"
    if measured:
        calibration = {"bandwidth_bytes_per_s": 2.0e10, "matmul_flops_per_s": 1.0e11}
        results.save_section("probe", {"calibration": calibration}, path)
    with patched_hardware(table):
        text = run_lecture("05", *argv, "--results", str(path))
    assert claim_faults(text) == []


def test_a100_bandwidth_6000e9_keeps_the_attention_time() -> None:
    """Regression (issue 25): 312e12 / 6000e9 = 52 FLOP/B, under naive attention's 62.7, so
    both attentions are compute-bound: 8.674 GFLOP / 312 TFLOP/s = 0.028 ms each."""
    a100 = hw_specs.A100
    fast = dataclasses.replace(a100, mem_bw_figure=Fig(6000e9, "B/s", "test"))
    table = {**SHIPPED, a100.key: dataclasses.replace(fast, achievable_mem_bw_figure=None)}
    with patched_hardware(table):
        text = run_lecture("05", "--results", "/nonexistent/x")
    flat = unwrapped(text)
    assert "The time bound stays at 0.028 ms: moving fewer bytes saves no time" in flat
    assert "stays on the compute-bound side of I* = 52.0" in flat and claim_faults(text) == []


def test_the_readme_edit_prints_times_whose_ratio_follows() -> None:
    """The README's edit, exercise 3 (A100 bf16 peak 1979e12): ideal attention takes 8.674 GFLOP /
    1979 TFLOP/s = 4.38 µs, naive 138.41 MB / 1.555 TB/s = 0.089 ms; 89.0 / 4.38 = 20.3, the
    printed ratio; 0.089 ms is the article's string (issue 34: '0.004 ms' beside x20.3
    read as x22)."""
    a100 = hw_specs.A100
    peaks = {**a100.peak_flops_table, "bf16": Fig(1979e12, "FLOP/s", "test")}
    edited = dataclasses.replace(a100, peak_flops_table=peaks, achievable_flops_table={})
    with patched_hardware({**SHIPPED, a100.key: edited}):
        text = run_lecture("05", "--results", "/nonexistent/x")
    flat = unwrapped(text)
    assert "roofline time 0.089 ms 4.38 µs x20.3 faster" in flat
    assert "The time bound falls from 0.089 ms to 4.38 µs (x20.3 faster)." in flat
    # exercise 3: the ridge 1979e12 / 1.555e12 = 1,272.7 moves the GEMM crossover past M = 1024
    assert "ridge point: I* = 1,272.7 FLOP/B" in flat and "crossover: M in (1024, 4096]" in flat
    assert claim_faults(text) == []
