"""Lecture 14 (serving a fleet) as a student runs it: sections, the fleet check, the figure,
flags and their one-line errors."""

from __future__ import annotations

import dataclasses

import pytest
import strategies
from conftest import assert_sections, quiet_run

LECTURE = "14"  # the `out` fixture (conftest) runs it once


@pytest.fixture(scope="module")
def default_run(out: str) -> str:
    return " ".join(out.split())


def test_prints_every_section(default_run: str) -> None:
    headings = ("1. Continuous batching", "2. Speculative decoding",
                "3. Prefill/decode disaggregation", "4. Cost per million tokens at $2 per GPU-hour",
                "5. DeepSeek's published day: 226.75 nodes of 8 H800 on average, 278 at peak",
                )  # fmt: skip
    assert_sections(default_run, "14_cost_per_token.png", headings, 6, exact=False)


def test_the_default_run_by_hand(default_run: str) -> None:
    # 608e9 / 73.7e3 / 3600 = 2,291.6 and 168e9 / 14.8e3 / 3600 = 3,153.2 node-hours: 5,444.8
    # against 226.75 x 24 = 5,442 (+0.05%); x 8 GPUs x $2 = $87,116 against $87,072 (+0.05%)
    assert "Prefill takes 2,292 node-hours and decode 3,153: 5,445 together against the 5,442" in (
        default_run
    )
    assert "node-hours 5,445 5,442 +0.05%" in default_run
    assert "daily cost $87,116 $87,072 +0.05%" in default_run
    # 342e9 x 0.14 + 266e9 x 0.55 + 168e9 x 2.19 = $562,100 against $562,027 (+0.01%)
    assert "revenue at R1 prices $562,100 $562,027 +0.01%" in default_run
    # $16 a node-hour: 16 / 3600 / 73.7e3 x 1e6 = $0.060, / 14.8e3 x 1e6 = $0.300
    assert "a million input tokens cost $0.060 and a million output tokens $0.300" in default_run
    # one draft, free, verify one step: (1 + a) / 1 = 1.8 gives a = 80.0%, 7.5 points below
    # the middle of 85-90%
    assert "implies a = 80.0%, below the published range (against its middle, 87.5%: -7.5%)" in (
        default_run
    )
    # K = 1 at a = 0.8: E = 1 + 0.8 = 1.80 tokens a verify step
    assert "1.80" in default_run
    assert "Qwen3-30B-A3B is cheaper. A step for one token reads all" in default_run
    assert "x" in default_run.split("for an output token at batch 64, ")[1].split(":")[0]
    assert "prefill fills the matmuls in one pass" in default_run


def test_other_models_and_the_reasons() -> None:
    for model in ("deepseek-v3", "qwen3-30b-a3b", "llama-3-70b"):
        out = quiet_run(LECTURE, "--model", model, "--batch", "4", "--prompt", "1024")
        assert "5. DeepSeek's published day" in out
    # DeepSeek-V3 on 128 TPU v5e at batch 1 costs more per output token than Llama-3-8B on 2:
    # the mixture's reason (it reads only the chosen experts) would explain the other verdict.
    # A 1-token prompt costs what an output token costs: no "prefill fills the matmuls".
    flags = ("--model", "deepseek-v3", "--chip", "tpu-v5e", "--prompt", "1", "--output", "1")
    out = " ".join(quiet_run(LECTURE, *flags, "--batch", "1", "--budget", "2").split())
    assert "Llama-3-8B is cheaper." in out
    assert "only the chosen experts" not in out
    assert "for an output token at batch 1, the same." in out
    assert "fills the matmuls" not in out
    assert "with 1 output token needs" in out  # one token, not "1 output tokens"
    # 128 chips of 16 GB hold batch 2**20 (the search's bound): the wall is "at least" it
    assert "at least 1,048,576" in out
    # at batch 1 the flags' batch column would repeat the B=1 column
    assert out.count("$/M out B=1") == 1


def _refusal(table: dict, *flags: str) -> str:
    """Lecture 14 run in this process on `table`: its exit must be 2; its last stderr line."""
    with (
        strategies.patched_hardware(strategies.SHIPPED | table),
        pytest.raises(AssertionError, match="exited 2: ") as stop,
    ):
        strategies.run_lecture(LECTURE, *flags)  # raises with its stderr's tail
    return str(stop.value).strip().splitlines()[-1]


def test_a_chip_or_model_the_fleet_cannot_serve_is_one_line() -> None:
    # a student's chip with fp8 alone (the H100's fp8 figure): the lecture computes in bf16,
    # and it once stopped with a MissingFigureError traceback
    h100 = strategies.SHIPPED["h100"]
    fp8_only = dataclasses.replace(
        h100,
        peak_flops_table={"fp8": h100.peak_flops_table["fp8"]},
        achievable_flops_table={},
    )
    message = _refusal({"h100": fp8_only}, "--chip", "h100")
    assert "argument --chip: H100 SXM has no 'bf16' peak" in message, message
    # DeepSeek-V3's 671e9 bf16 weights, 1.34 TB, over an H100 cut to 80 MB: 16,775 GPUs,
    # past the 1,024 the lecture tries, so not even one sequence fits; it once said
    # "(at most 0); give --batch 1 or less", which fails again at --batch 1
    h100 = strategies.scale_chip(strategies.SHIPPED["h100"], {"capacity": 0.001})
    assert h100.mem_capacity == pytest.approx(80e6)
    message = _refusal({"h100": h100}, "--model", "deepseek-v3", "--batch", "1")
    assert "does not fit even 1024 x H100 SXM" in message, message
    assert "--batch 1 or less" not in message
