"""Lecture 05 prints the article's roofline numbers, and the exercise moves them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import reference
from conftest import REPO, quiet_run, run_lecture

from common.files import results

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


@pytest.fixture(scope="module")
def output() -> str:
    """Lecture 05's output with no results file (nothing measured, defaults everywhere)."""
    return quiet_run("05", "--results", str(REPO / "no-such-dir" / "none.json"))


R = reference
#: The A100's 312 TFLOP/s and 1.555 TB/s (ridge 200.6); F, D and I/I* by the article's
#: formulas (tests/reference.py), times D / beta or F / P, whitespace folded.
ROWS = [
    "A100 40GB SXM (bf16) 312 TFLOP/s 1.555 TB/s 200.6",  # 312 / 1.555
    "H100 SXM (bf16) 989 TFLOP/s 3.350 TB/s 295.2",
    "H100 SXM (fp8) 1979 TFLOP/s 3.350 TB/s 590.7",
    "this machine (numpy, fp32) not measured (run lecture 01) - -",
    # 96 MB / 1.555 TB/s = 0.062 ms
    f"elementwise add [16M] 16.00 MFLOP 96.00 MB {R.ADD_I} {R.ADD_RATIO} memory 0.062 ms",
    f"LayerNorm [4096, 3072] 75.50 MFLOP 50.33 MB 1.50 {R.LAYERNORM_RATIO} memory",
    "softmax fused [4096, 4096] 83.89 MFLOP 67.11 MB 1.25 0.006 memory",  # 1.25 / 200.64
    f"softmax naive [4096, 4096] 83.89 MFLOP 167.77 MB 0.50 {R.SOFTMAX_NAIVE_RATIO} memory",
    f"GEMM 512x4096x4096 17.18 GFLOP 41.94 MB 409.60 {R.GEMM_512_RATIO} compute",
    "GEMM 4096x4096x4096 137.44 GFLOP 100.66 MB 1365.33 6.805 compute",  # 1365.33 / 200.64
    # 8.67 GFLOP / 312 TFLOP/s = 0.028 ms; 138.41 MB / 1.555 TB/s = 0.089 ms
    f"attention naive [N=4096, d_h=128] 8.67 GFLOP 138.41 MB 62.67 {R.ATTN_NAIVE_RATIO} memory "
    "0.089 ms",
    f"attention ideal-min [N=4096, d_h=128] 8.67 GFLOP 4.19 MB 2068.00 {R.ATTN_MIN_RATIO} "
    "compute 0.028 ms",
    # the attention table: naive against ideal (ART 3.3: 33x fewer bytes, x3.2 faster)
    "FLOPs 8.67 GFLOP 8.67 GFLOP x1.000 bytes 138.41 MB 4.19 MB x33 less intensity (FLOP/B) "
    "62.7 2068.0 x33.0 bound memory compute roofline time 0.089 ms 0.028 ms x3.2 faster",
    # ART 3.4: twice the compute or twice the bandwidth, beside I/I*
    f"elementwise add [16M] {R.ADD_RATIO} 1.00x 2.00x",
    f"LayerNorm [4096, 3072] {R.LAYERNORM_RATIO} 1.00x 2.00x",
    f"softmax naive [4096, 4096] {R.SOFTMAX_NAIVE_RATIO} 1.00x 2.00x",
    f"GEMM 512x4096x4096 {R.GEMM_512_RATIO} 2.00x 1.00x",
    f"attention naive [N=4096, d_h=128] {R.ATTN_NAIVE_RATIO} 1.00x 2.00x",
    f"attention ideal-min [N=4096, d_h=128] {R.ATTN_MIN_RATIO} 2.00x 1.00x",
    # I(M) = M K N / (M K + K N + M N) at K = N = 4096: 120.47 and 227.56
    "128 4.29 GFLOP 35.65 MB 120.47 memory 256 8.59 GFLOP 37.75 MB 227.56 compute",
    "crossover: M in (128, 256]: I(128) = 120.47 < I* = 200.6 <= I(256) = 227.56",
    # 1979 / 989 = 2.00 and 1979 / 312 = 6.34 (datasheets)
    "H100 SXM's fp8 peak is x2.00 more than its bf16 peak and x6.34 more than A100",
]


def test_every_table_prints_the_articles_numbers(output: str) -> None:
    flat = " ".join(output.split())
    assert [r for r in ROWS if r not in flat] == []
    assert len([ln for ln in output.splitlines() if ln.startswith("note: this machine")]) == 1
    assert "not a measured" in output and "FlashAttention" in output


def test_this_machine_from_the_results_file(results_file: Path) -> None:
    calibration = {"bandwidth_bytes_per_s": 2e10, "matmul_flops_per_s": 1e11, "ridge_point": 5.0}
    results.save_section("probe", {"calibration": calibration, "operations": []}, results_file)
    proc = run_lecture("05", check=True)
    row = table_rows(section(proc.stdout, "Machines"))["this machine (numpy, fp32)"]
    assert row == ["100.0 GFLOP/s", "20.000 GB/s", "5.0"]
    assert "note: this machine" not in proc.stdout


def test_other_chip_and_precision() -> None:
    flags = ("--chip", "H100", "--precision", "fp8", "--results", "/nonexistent/x")
    proc = run_lecture("05", *flags, check=True)
    assert "I* = 590.7 FLOP/B" in proc.stdout
    assert "elements of 1 bytes" in proc.stdout
