"""Lecture 13 (mixture of experts) as a student runs it: tables and flags worked by hand and
by brute force from the published configs and DeepEP's conditions."""

from __future__ import annotations

import re

import pytest
from conftest import assert_sections, quiet_run, summary_value

from common.hw_specs import H100

LECTURE = "13"  # the `out` fixture (conftest) runs it once
D, K, E, F = 7168, 8, 256, 2048  # DeepSeek-V3: hidden_size, top-8 of 256, moe_intermediate


def section(out: str, number: str) -> str:
    """The printed text of section `number` up to the next section's heading."""
    start = out.index(f"\n{number}. ")
    nxt = re.search(r"\n(\d\. |Summary\n)", out[start + 3 :])
    return out[start : start + 3 + nxt.start()] if nxt else out[start:]


def row(text: str, first: str) -> list[str]:
    """The cells (split on two or more spaces) of the table row that starts with `first`."""
    line = next(ln for ln in text.splitlines() if ln.strip().startswith(first))
    return re.split(r"\s{2,}", line.strip())


def test_prints_every_section(out: str) -> None:
    headings = ("1. DeepSeek-V3: total against active parameters", "2. What a decode step reads",
                "3. A decode step on H100 SXM (bf16), context 4,096",
                "4. Expert parallelism: dispatch and combine, 1,024 tokens a step",
                "5. Checked against DeepEP's published latencies", "6. Load imbalance at EP 8",
                "Summary")  # fmt: skip
    assert_sections(out, "13_moe_throughput.png", headings, 6, exact=True)


def test_counts_and_expected_experts_by_hand(out: str) -> None:
    published = {"Mixtral-8x7B": (46.7e9, 12.9e9), "Qwen3-30B-A3B": (30.5e9, 3.3e9)}
    published["DeepSeek-V3"] = (671e9, 37e9)
    for name, (total, active) in published.items():
        cells = row(section(out, "1"), name)
        got_total, got_active = (float(cells[i].rstrip(" G")) * 1e9 for i in (2, 4))
        assert got_total == pytest.approx(total, rel=0.002)
        assert got_active == pytest.approx(active, rel=0.02)  # 37.55 G against '37B'
    text = section(out, "2")
    # batch 8: 256 (1 - (248/256)^8) = 57.4; batch 1: k = 8
    assert row(text, "8 ")[1] == f"{E * (1 - (1 - K / E) ** 8):.1f}" == "57.4"
    assert row(text, "1 ")[1] == "8.0"
    # a brute-force count of the skewed shares is not needed: skew never reaches more
    for batch in ("8 ", "64 ", "512 "):
        cells = row(text, batch)
        assert float(cells[4]) <= float(cells[1])


def test_critical_batches_by_brute_force(out: str) -> None:
    ridge = H100.peak_flops("bf16") / H100.mem_bw

    def dense(b: int) -> float:  # X[b, d] W[d, 18432] in bf16
        n = 8 * F + F
        return 2 * b * D * n / (2 * (b * D + D * n + b * n))

    def experts(b: int) -> float:  # each of the touched experts' d x f weights once
        touched = E * (1 - (1 - K / E) ** b)
        return 2 * b * K * D * F / (2 * touched * D * F + 2 * b * K * (D + F))

    twin = next(b for b in range(1, 10**6) if dense(b) >= ridge)
    moe = next(b for b in range(1, 10**6) if experts(b) >= ridge)
    assert summary_value(out, "critical batch, experts / twin MLP") == f"{moe:,} / {twin:,}"
    assert 25 < moe / twin < 45  # about E / k = 32 times the dense batch


def test_dispatch_combine_and_deepep_by_hand(out: str) -> None:
    cells = row(section(out, "4"), "8 *")
    # 8 experts x 7/8 remote x 7168 x (1 + 4/128) bytes = 51,744; BF16 back: 100,352
    assert cells[3] == "51.74 KB" and cells[4] == "100.35 KB"
    # nodes of 8: at EP 8 every remote copy stays in the node; at EP 16 half go out
    assert cells[1:3] == ["87.5%", "0.0%"]
    assert row(section(out, "4"), "16 ")[1:3] == ["43.8%", "50.0%"]
    text = section(out, "5")
    # DeepEP README, low-latency kernels: EP 8 dispatch 77 us (calibrates), EP 256 combine 360
    assert row(text, "dispatch, EP 8")[1:] == ["77.0 µs", "77.0 µs", "+0%", "calibration"]
    assert row(text, "combine, EP 256")[2] == "360 µs"
    assert text.count("validation") == 11 and text.count("calibration") == 2  # row + prose


def test_other_models_flags_and_batch_one() -> None:
    out = quiet_run(LECTURE, "--model", "mixtral-8x7b", "--ep", "4", "--batch", "16")
    assert "1. Mixtral-8x7B: total against active parameters" in out
    assert summary_value(out, "weights per GPU at EP").endswith("(EP 4)")
    # Mixtral: 2 of 8 experts; one token reads k = 2 of them
    assert row(section(out, "2"), "1 ")[1:3] == ["2.0", "25.0%"]
    out = quiet_run(LECTURE, "--model", "qwen3-30b-a3b", "--chip", "h200", "--precision", "fp8")
    assert summary_value(out, "model / chip") == "Qwen3-30B-A3B on H200, fp8"
    # At batch 1 a token reaches exactly its k experts, as the twin's one MLP: the extra
    # bytes DeepSeek-V3 reads are its routers', 58 MoE layers x 7,168 x 256 x 2 B = 0.21 GB
    # (73.25 - 73.04 GB), not tokens spreading over more experts.
    out = " ".join(quiet_run(LECTURE, "--model", "deepseek-v3", "--batch", "1").split())
    assert "more bytes: the router's weights, which the twin does not have." in out
    assert "spread over more experts" not in out
    assert "dispatch and combine, 1 token a step" in out
    # Mixtral's router, 32 x 4,096 x 8 x 2 B = 2 MB, vanishes at the digits of 25.50 GB
    out = " ".join(quiet_run(LECTURE, "--model", "mixtral-8x7b", "--batch", "1").split())
    assert "as many bytes." in out
