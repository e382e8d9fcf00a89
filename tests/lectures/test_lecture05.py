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


def test_machines_table(output: str) -> None:
    rows = table_rows(section(output, "Machines"))
    assert rows["A100 40GB SXM (bf16)"][-1] == "200.6"
    assert rows["H100 SXM (bf16)"][-1] == "295.2"
    assert rows["H100 SXM (fp8)"][-1] == "590.7"
    assert rows["this machine (numpy, fp32)"][0] == "not measured (run lecture 01)"
    # 1979 / 989 = 2.00 and 1979 / 312 = 6.34 (datasheets)
    flat = " ".join(output.split())
    assert "H100 SXM's fp8 peak is x2.00 more than its bf16 peak and x6.34 more than A100" in flat
    assert len([ln for ln in output.splitlines() if ln.startswith("note: this machine")]) == 1


def test_operator_ledger(output: str) -> None:
    rows = table_rows(section(output, "Operator ledger"))
    # columns: F, D, I, I/I*, bound, time bound
    # I/I* as the article prints it (ART 3.3): three decimals, from tests/reference.py.
    expected = {
        "elementwise add [16M]": ("0.17", reference.ADD_RATIO, "memory"),
        "LayerNorm [4096, 3072]": ("1.50", reference.LAYERNORM_RATIO, "memory"),
        "softmax fused [4096, 4096]": ("1.25", "0.006", "memory"),  # 1.25 / 200.64
        "softmax naive [4096, 4096]": ("0.50", reference.SOFTMAX_NAIVE_RATIO, "memory"),
        "GEMM 512x4096x4096": ("409.60", reference.GEMM_512_RATIO, "compute"),
        "GEMM 4096x4096x4096": ("1365.33", "6.805", "compute"),  # 1365.33 / 200.64
        "attention naive [N=4096, d_h=128]": ("62.67", reference.ATTN_NAIVE_RATIO, "memory"),
        "attention ideal-min [N=4096, d_h=128]": ("2068.00", reference.ATTN_MIN_RATIO, "compute"),
    }
    for name, (i, ratio, bound) in expected.items():
        cells = rows[name]
        assert cells[2] == i, name
        if ratio is not None:
            assert cells[3] == ratio, name
        assert cells[4] == bound, name
    attention = rows["attention naive [N=4096, d_h=128]"]
    assert attention[0] == "8.67 GFLOP"
    assert attention[1] == "138.41 MB"
    assert attention[5] == "0.089 ms"
    assert rows["attention ideal-min [N=4096, d_h=128]"][1] == "4.19 MB"
    assert rows["attention ideal-min [N=4096, d_h=128]"][5] == "0.028 ms"


def test_attention_comparison(output: str) -> None:
    rows = table_rows(section(output, "Attention"))
    assert rows["FLOPs"][-1] == "x1.000"
    assert rows["bytes"] == ["138.41 MB", "4.19 MB", "x33 less"]
    assert rows["intensity (FLOP/B)"][:2] == ["62.7", "2068.0"]
    assert rows["roofline time"] == ["0.089 ms", "0.028 ms", "x3.2 faster"]
    bound = next(ln for ln in section(output, "Attention") if ln.startswith("bound"))
    assert bound.split()[1:] == ["memory", "compute"]
    assert "not a measured" in output and "FlashAttention" in output


def test_speedup_table(output: str) -> None:
    rows = table_rows(section(output, "Speedup"))
    expected = {
        "elementwise add [16M]": ["1.00x", "2.00x"],
        "LayerNorm [4096, 3072]": ["1.00x", "2.00x"],
        "softmax naive [4096, 4096]": ["1.00x", "2.00x"],
        "GEMM 512x4096x4096": ["2.00x", "1.00x"],
        "attention naive [N=4096, d_h=128]": ["1.00x", "2.00x"],
        "attention ideal-min [N=4096, d_h=128]": ["2.00x", "1.00x"],
    }
    for name, speedups in expected.items():
        assert rows[name][1:] == speedups, name
    # ART 3.4 prints I/I* beside the speedups with three decimals, never 0.000.
    assert rows["elementwise add [16M]"][0] == reference.ADD_RATIO
    assert rows["GEMM 512x4096x4096"][0] == reference.GEMM_512_RATIO
    assert rows["attention ideal-min [N=4096, d_h=128]"][0] == reference.ATTN_MIN_RATIO


def test_gemm_crossover(output: str) -> None:
    rows = table_rows(section(output, "GEMM [M"))
    assert rows["128"][2:] == ["120.47", "memory"]
    assert rows["256"][2:] == ["227.56", "compute"]
    assert "crossover: M in (128, 256]: I(128) = 120.47 < I* = 200.6 <= I(256) = 227.56" in output


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
