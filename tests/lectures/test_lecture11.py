"""Lecture 11 run as a student runs it: numbers against hand arithmetic, words under edits."""

from __future__ import annotations

import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, run_lecture

LECTURE = "11"


@pytest.fixture(scope="module")
def out() -> str:
    start = time.perf_counter()
    proc = run_lecture(LECTURE, python_flags=("-S",))
    assert proc.returncode == 0, proc.stderr
    assert time.perf_counter() - start < 10  # well under a second of work; generous for CI
    return proc.stdout


def case_row(text: str, case: str) -> list[str]:
    line = next(ln for ln in text.splitlines() if ln.startswith(case + "  "))
    return re.split(r"\s{2,}", line.strip())


@pytest.mark.parametrize(
    ("case", "measured_ms"),
    [
        ("prefill, 1 GPU", 63.17),
        ("decode, 1 GPU", 22.0),
        ("prefill, 2 GPUs", 45.45),
        ("decode, 2 GPUs", 13.5),
    ],
)
def test_each_case_prints_measured_both_predictions_and_their_ratios(
    out, case, measured_ms
) -> None:
    _, measured, spec, r_spec, ach, r_ach = case_row(out, case)
    assert measured == f"{measured_ms:.2f} ms"
    for pred, ratio in ((spec, r_spec), (ach, r_ach)):
        value = float(pred.split()[0])
        assert (
            ratio == f"x{measured_ms / value:.2f}"
            or abs(float(ratio[1:]) - measured_ms / value) < 0.011
        )


def test_decode_one_gpu_spec_prediction_by_hand(out) -> None:
    # Weights (40 x 12 d^2 + V d) and the 512-token cache (2 x 40 x 512 x d) in bf16 over 1555 GB/s.
    d = 5120
    hand_ms = (40 * 12 * d * d * 2 + 50272 * d * 2 + 2 * 40 * 512 * d * 2) / 1555e9 * 1e3
    spec = float(case_row(out, "decode, 1 GPU")[2].split()[0])
    assert abs(spec - hand_ms) / hand_ms < 0.01


def test_two_gpu_prefill_pays_the_allreduces(out) -> None:
    # 80 all-reduces of 512 x 5120 x 2 bytes over 300 GB/s plus 7 us each: 1.96 ms.
    hand_ms = 80 * (7e-6 + 512 * 5120 * 2 / 300e9) * 1e3
    row = next(ln for ln in out.splitlines() if ln.startswith("all-reduce at spec link"))
    cells = re.split(r"\s{2,}", row.strip())
    assert cells[1] == "0.00 ms" and cells[3] == f"{hand_ms:.2f} ms"


def test_gate_up_projection_at_one_token_is_the_weight_read(out) -> None:
    # 2 (4096 + 4096 x 22016 + 22016) bytes over 1555 GB/s = 116 us; measured 116 us.
    table = out.split(": gate+up projection\n")[1]
    row = next(ln for ln in table.splitlines() if ln.strip().startswith("1 "))
    cells = re.split(r"\s{2,}", row.strip())
    hand_us = 2 * (4096 + 4096 * 22016 + 22016) / 1555e9 * 1e6
    assert cells[1] == "116 us" and cells[2] == f"{hand_us:.0f} us"
    # memory-bound at n = 1: the achieved column is bytes/s, 2 (K + KN + N) / 116 us = 1.56 TB/s
    assert cells[-1] == f"{2 * (4096 + 4096 * 22016 + 22016) / 116e-6 / 1e12:.2f} TB/s"
    big = next(ln for ln in table.splitlines() if ln.strip().startswith("1,024 "))
    assert big.strip().endswith("TFLOP/s")  # compute-bound at n = 1,024


def test_mfu_of_decode_is_low_and_its_mbu_high(out) -> None:
    row = next(ln for ln in out.splitlines() if ln.startswith("decode, 1 GPU") and "%" in ln)
    mfu, mbu = (float(c.rstrip("%")) for c in re.split(r"\s{2,}", row.strip())[-2:])
    assert mfu < 1 < 50 < mbu
    flat = " ".join(out.split())
    assert "The lowest MFU is decode" in flat and "not that the kernels are bad" in flat


def test_sections_and_sources(out) -> None:
    for heading in (
        "two sets of roofs",
        "Where the time goes",
        "bf16 matmul on",
        "Utilisation",
    ):
        assert heading in out
    assert "kipply" in out and "microsoft/vidur" in out


# ---------------------------------------------------------------------------
# The edit battery: scale the A100's spec peak and bandwidth, rerun, read the words.
# ---------------------------------------------------------------------------
def edited_run(tmp_path: Path, factor: float) -> str:
    for part in ("common", "lectures"):
        shutil.copytree(REPO / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    specs = tmp_path / "common" / "hw_specs.py"
    text = specs.read_text(encoding="utf-8")
    for old in ('"bf16": flops(312e12,', "bandwidth(1555e9,", "bandwidth(300e9,"):
        assert old in text
        number = old.split("(")[-1].rstrip(",")
        text = text.replace(old, old.replace(number, repr(float(number) * factor)), 1)
    specs.write_text(text, encoding="utf-8")
    proc = run_lecture(tmp_path / "lectures" / "11_predict_and_check.py", python=sys.executable)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_ten_times_slower_a100_turns_every_word(tmp_path: Path) -> None:
    text = " ".join(edited_run(tmp_path, 0.1).split())
    assert "0 of 4 measurements take longer than the spec prediction" in text
    assert "(shorter: faster than the bound)" in text
    assert "0 of 3 measured roofs sit below their datasheet figure" in text
    assert re.search(
        r"The widest gap is [\w, ]+: it takes x0\.\d\d the predicted time \(shorter", text
    )
    assert "4 of 4 runs show a utilisation above 100%" in text


def test_a_ten_times_faster_a100_widens_the_gap(tmp_path: Path) -> None:
    raw = edited_run(tmp_path, 10.0)
    text = " ".join(raw.split())
    assert "4 of 4 measurements take longer than the spec prediction" in text
    assert "3 of 3 measured roofs sit below their datasheet figure" in text
    assert "utilisation above 100%" not in text
    ratios = [float(case_row(raw, c)[3][1:]) for c in ("prefill, 1 GPU", "decode, 1 GPU")]
    assert all(r > 5 for r in ratios)


# ---------------------------------------------------------------------------
# Lecture 06 prints both bounds: spec and achievable roofs.
# ---------------------------------------------------------------------------
def bound_ms(text: str, label: str) -> float:
    line = next(ln for ln in text.splitlines() if ln.startswith(label))
    return float(line[len(label) :].split()[0])


@pytest.mark.parametrize(
    ("chip", "words"),
    [
        ("a100", "measured compute and memory roofs"),
        ("tpu-v5e", "compute and memory at spec: none published"),
    ],
)
def test_lecture06_prints_achievable_bounds_beside_spec(chip: str, words: str) -> None:
    proc = run_lecture("06", "--chip", chip, "--model", "llama-2-7b", python_flags=("-S",))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for spec_label, ach_label in (
        ("time to first token >=", "time to first token, achievable roofs >="),
        ("time per output token >=", "time per output token, achievable roofs >="),
    ):
        spec, ach = bound_ms(out, spec_label), bound_ms(out, ach_label)
        if chip == "tpu-v5e":  # nothing measured: the achievable bound is the spec bound
            assert ach == spec
        else:  # achievable roofs are lower, so the bound is longer
            assert ach > spec
    assert words in out
