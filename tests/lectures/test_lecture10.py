"""Lecture 10 as a student runs it: Part 1's formulas against hand arithmetic (the article's
138.41 MB and 4.19 MB, section 3.3); Part 2's measurements for structure and consistency."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from conftest import printed_table, quick_measuring_run
from edit_battery import contradictions, quantity
from formulas.test_attention_io import brute_force_blocks  # the footprint rule, searched
from strategies import edited, patched_hardware
from strategies import run_lecture as run_in_process

from common.measure import caches

BF16, FP32 = 2, 4


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """One --quick run with figures, into a fresh results file (so a quick calibration runs)."""
    return quick_measuring_run(tmp_path_factory.mktemp("lecture10"), "10", timeout=300)


def rows_under(out: str, title: str) -> list[list[str]]:
    """The rows below the column names, as wide as they are (a title follows some tables)."""
    header, *rows = printed_table(out, title)
    return list(itertools.takewhile(lambda row: len(row) == len(header), rows))


def row(rows: list[list[str]], first: str) -> list[str]:
    return next(r for r in rows if r[0] == first)


def test_the_extremes_and_each_chips_blocks_by_hand(quick_run: dict) -> None:
    assert quick_run["proc"].stderr == "" and "What to observe:" in quick_run["out"]
    rows = rows_under(quick_run["out"], "One head, N = 4,096, d_h = 128, bf16: the bound")
    naive, ideal = row(rows, "naive: S and P in memory"), row(rows, "ideal: Q, K, V and O once")
    # F = 4 N^2 d + 5 N^2 = 8,673,820,672; D = 2 (4 N^2 + 4 N d) and 2 * 4 N d.
    assert naive[1] == ideal[1] == "8.67 GFLOP"
    assert naive[2] == "138.41 MB" and ideal[2] == "4.19 MB"
    assert naive[3] == "62.7" and ideal[3] == "2068.0"
    # A100: 138,412,032 B / 1.555 TB/s = 89.0 us; 8.674 GFLOP / 312 TFLOP/s = 27.8 us.
    assert naive[4] == "memory, 89.0 µs" and ideal[4] == "compute, 27.8 µs"
    out = quick_run["out"]
    blocks = rows_under(out, "FlashAttention-2's blocks in each chip's shared memory")
    bounds = rows_under(out, "Their traffic, intensity and bound")
    assert brute_force_blocks(4096, 128, 228 * 1024, BF16) == (130, 128)
    assert row(blocks, "H100 SXM")[1:] == ["228 KiB", "130 x 128", "228 KiB", "32"]
    assert row(blocks, "A100 40GB SXM")[2:5:2] == ["99 x 99", "42"]
    h100, a100 = row(bounds, "H100 SXM"), row(bounds, "A100 40GB SXM")
    assert h100[1] == f"{2 * 2 * 4096 * 128 * 33 / 1e6:.2f} MB" == "69.21 MB"
    assert h100[2] == f"{8_673_820_672 / (2 * 2 * 4096 * 128 * 33):.1f}" == "125.3"
    assert a100[1] == f"{2 * 2 * 4096 * 128 * 43 / 1e6:.2f} MB"
    # H100: the smallest M_sm reaching I* = 295.2 at N = 4096 (B_r = 316, U = 316 x 1288
    # + 65,536 = 472,544 B) printed in KiB.
    assert brute_force_blocks(4096, 128, 472_544, BF16) == (316, 128)
    assert h100[5] == f"{472_544 / 1024:.0f} KiB"


def test_landmarks_the_sweep_per_head_and_the_layer_crossing(quick_run: dict) -> None:
    rows = rows_under(quick_run["out"], "Landmarks on the curve")
    least = row(rows, "one row of each block")
    # U(1, 1) = 256 + 512 + 4 + 512 + 8 = 1,292 B; K and V read N times.
    assert least[1] == f"{1292 / 1024:.2f} KiB"
    assert least[3] == f"{2 * 2 * 4096 * 128 * 4097 / 1e9:.2f} GB"
    whole = row(rows, "K and V whole")
    assert whole[1] == f"{2_114_312 / 1024**2:.2f} MiB"
    assert whole[2] == "1 x 4096" and whole[3] == "4.19 MB" and whole[4] == "2068.0"
    rows = rows_under(quick_run["out"], "One head on the H100 SXM")
    assert [r[0] for r in rows] == [f"{512 * 2**k:,}" for k in range(9)]
    n, d = 131_072, 128
    last = row(rows, f"{n:,}")
    assert last[1] == f"{2 * (4 * n * n + 4 * n * d) / 1e9:.2f} GB"  # naive
    assert last[2] == f"{2 * 2 * n * d * (1 + math.ceil(n / 130)) / 1e9:.2f} GB"  # tiled
    assert last[3] == f"{2 * 4 * n * d / 1e6:.2f} MB"  # ideal
    out = quick_run["out"]
    text = " ".join(out.split())
    rows = rows_under(out, "One Llama-3-8B layer")
    for words, column in (("with the tiled kernel", 3), ("with the naive one", 2)):
        first = next(r[0] for r in rows if quantity(r[column]) >= quantity(r[1]))
        assert f"at N = {first} {words}" in text


def test_the_kernels_agree_and_the_measured_tables_are_consistent(quick_run: dict) -> None:
    rows = rows_under(quick_run["out"], "Tiled against naive attention on random inputs")
    assert len(rows) == 5 and all(float(r[-1]) <= 1e-4 for r in rows)
    out = quick_run["out"]
    levels = dict(caches.data_levels(caches.read_caches()))
    l2 = levels.get("L2", 512 * 1024)
    rows = rows_under(out, "Seconds per call")
    assert [r[0] for r in rows] == ["256", "512", "1,024"]
    for r in rows:
        n = int(r[0].replace(",", ""))
        br, bc = brute_force_blocks(n, 128, l2 / 2, FP32)
        assert r[1] == f"{br} x {bc}"
        naive, tiled = quantity(r[2]), quantity(r[3])
        assert naive > 0 and tiled > 0
        assert float(r[4].lstrip("x")) == pytest.approx(tiled / naive, rel=0.02, abs=0.01)
    for r in rows_under(out, "Time per score"):
        n = int(r[0].replace(",", ""))
        assert r[1] == f"{4 * n * n / (caches.last_level_cache_bytes() or 32 * 2**20):.2g}"
    for r in rows_under(out, "Time per score and memory beside Q, K and V"):
        n = int(r[0].replace(",", ""))
        assert r[4] == attention_memory_text(4 * (n * n + n * 128 + 2 * n))
    roof = rows_under(out, "On this machine's one-thread roofline at N = 1,024")
    n, d = 1024, 128
    assert row(roof, "naive")[1] == f"{4 * (10 * n * n + 4 * n * d) / 1e6:.2f} MB"
    br, bc = brute_force_blocks(n, d, l2 / 2, FP32)
    reads = 1 if bc == n else math.ceil(n / br)
    assert row(roof, "tiled")[1] == f"{4 * n * d * (2 + 2 * reads) / 1e6:.2f} MB"
    flops = f"{(4 * n * n * d + 5 * n * n) / 1e6:.2f} MFLOP"
    assert f"Both kernels do F = {flops}" in out


def attention_memory_text(nbytes: float) -> str:
    """How the lecture prints a binary size: three significant figures."""
    value, unit = float(nbytes), "B"
    for name in ("KiB", "MiB", "GiB"):
        if value < 1024:
            break
        value, unit = value / 1024, name
    digits = 0 if value >= 100 else 1 if value >= 10 else 2
    return f"{value:.{digits}f} {unit}"


def test_results_section_and_figures(quick_run: dict) -> None:
    section = json.loads(Path(quick_run["results"]).read_text())["attention"]
    assert section["quick"] is True and section["threads"] == 1
    assert [s["n"] for s in section["sequence"]] == [256, 512, 1024]
    for s in section["sequence"]:
        n = s["n"]
        assert s["naive_bytes"] == 4 * (10 * n * n + 4 * n * 128)
        assert s["naive_seconds"] > 0 and s["tiled_seconds"] > 0
    assert section["fixed_cost_per_step_s"] > 0 and section["lecture_seconds"] > 0
    outdir = Path(quick_run["outdir"])
    for name in ("10_traffic_vs_on_chip_memory.png", "10_kernel_times.png"):
        png = outdir / name
        assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"saved figure: {png}" in quick_run["out"]


def test_the_lecture_runs_when_no_shared_memory_reaches_the_h100_ridge(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The H100's bf16 peak x10 put None where a byte count was expected: a traceback. With
    no cache reported, the stamps name none (they named the assumed 32 MiB as this LLC)."""
    monkeypatch.setenv("ROOFLINE_FAKE_LLC", "none")
    with patched_hardware(edited(h100={"peak bf16": 10.0})):
        out = run_in_process("10", "--quick", "--results", str(tmp_path / "r.json"))
    assert "LLC not reported" in out and "LLC 32.00 MiB" not in out
    assert "H100 SXM ridge" not in out and "A100 40GB SXM ridge" in out
    assert "461 KiB" not in out and "never" in out and not contradictions(out)
