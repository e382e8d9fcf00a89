"""The lectures' sentences under edited tables, run in this process (fast; mutation-testable).

``test_edit_battery.py`` edits the file and runs the course as a student does; here the
same kind of edit is made to the imported table (monkeypatched chips), the lectures
run in-process and their sentences are read back, and a few sentences are pinned with
numbers worked out by hand from the datasheet figures.
"""

from __future__ import annotations

import dataclasses
import runpy
import sys
from pathlib import Path

import pytest
from edit_battery import contradictions

from common import hw_specs
from common.exercises import EXERCISES

REPO = Path(__file__).resolve().parents[2]
LECTURES = ("02", "05", "06", "07", "08")

EDITS = {
    "shipped": {},
    "README: A100 bf16 1979e12": {("a100", "peak bf16"): 1979e12},
    "H100 bandwidth x2": {("h100", "mem_bw_figure"): 6.7e12},
    "H200 bandwidth x0.5": {("h200", "mem_bw_figure"): 2.4e12},
    "H200 bf16 x2": {("h200", "peak bf16"): 1978e12},
    "H100 fp8 below bf16": {("h100", "peak fp8"): 494.5e12},
    "B300 nvfp4 below fp8": {("b300", "peak nvfp4"): 2.5e15},
    "TPU v5e int8 below bf16": {("tpu-v5e", "peak int8"): 98.5e12},
    "B300 link x4": {("b300", "link_bw_figure"): 3.6e12},
    "TPU v6e link x4": {("tpu-v6e", "link_bw_figure"): 3.6e11},
    "swap A100 and H100 bandwidth": {
        ("a100", "mem_bw_figure"): 3.35e12,
        ("h100", "mem_bw_figure"): 1.555e12,
    },
}


def edit_table(monkeypatch: pytest.MonkeyPatch, edit: dict) -> None:
    """Apply {(chip key, field): value} to the imported table, chip variables and CHIPS."""
    for (key, field), value in edit.items():
        chip = hw_specs.CHIPS[key]
        if field.startswith("peak "):
            p = field.removeprefix("peak ")
            table = dict(chip.peak_flops_table)
            table[p] = dataclasses.replace(table[p], value=value)
            new = dataclasses.replace(chip, peak_flops_table=table)
        else:
            new = dataclasses.replace(
                chip, **{field: dataclasses.replace(getattr(chip, field), value=value)}
            )
        for name, obj in list(vars(hw_specs).items()):
            if obj is chip:
                monkeypatch.setattr(hw_specs, name, new)
        monkeypatch.setitem(hw_specs.CHIPS, key, new)


def course_text(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """Every table-reading lecture and every exercise, run here; what they printed."""
    texts = []
    for name in LECTURES:
        (path,) = (REPO / "lectures").glob(f"{name}_*.py")
        monkeypatch.setattr(sys, "argv", [str(path)])
        runpy.run_path(str(path), run_name="lecture")  # not __main__: no boot policies
        texts.append(capsys.readouterr().out)
    for exercise in EXERCISES:
        answer = exercise.solve()
        texts.append("\n".join(answer.steps))
    return "\n".join(texts)


@pytest.mark.parametrize("name", list(EDITS))
def test_no_sentence_contradicts_its_numbers(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    edit_table(monkeypatch, EDITS[name])
    text = course_text(capsys, monkeypatch)
    found = contradictions(text)
    assert not found, "\n".join(found)


def prose(text: str) -> str:
    return " ".join(text.split())


def run(name: str, capsys, monkeypatch) -> str:
    (path,) = (REPO / "lectures").glob(f"{name}_*.py")
    monkeypatch.setattr(sys, "argv", [str(path)])
    runpy.run_path(str(path), run_name="lecture")
    return prose(capsys.readouterr().out)


def test_lecture05_directions_by_hand(capsys, monkeypatch) -> None:
    # A100 312 TFLOP/s, 1,555 GB/s; H100 989 TFLOP/s, 3.35 TB/s (datasheets)
    text = run("05", capsys, monkeypatch)
    assert (
        "From A100 40GB SXM to H100 SXM, bf16 compute grew x3.17 but bandwidth only x2.15, so "
        "the ridge point rose from 200.6 to 295.2 FLOP/B: on the newer chip more kernels fall "
        "on the memory-bound side." in text
    )
    edit_table(monkeypatch, EDITS["README: A100 bf16 1979e12"])
    text = run("05", capsys, monkeypatch)
    # 989 / 1979 = 0.4997: compute shrank x2.00; ridge 1979 / 1.555 = 1,272.7
    assert (
        "bandwidth grew x2.15 and bf16 compute shrank x2.00, so the ridge point fell from "
        "1,272.7 to 295.2 FLOP/B: on the newer chip more kernels reach the compute roof." in text
    )


def test_lecture02_directions_by_hand(capsys, monkeypatch) -> None:
    text = run("02", capsys, monkeypatch)
    # H200 4.8 TB/s over H100 3.35 TB/s = x1.43; ridges 989/3.35 = 295, 989/4.8 = 206
    assert (
        "with x1.43 the bandwidth (4.80 TB/s against 3.35 TB/s), so its ridge falls from 295 to "
        "206 FLOP/B" in text
    )
    assert "More bandwidth makes full speed easier to reach." in text
    assert (
        "fp8 raises the peak x2.00 and cuts the bytes of X and W x2.00, so the critical batch "
        "barely moves" in text
    )
    assert "nvfp4 on B300: x3.00 the fp8 compute for only x1.78 fewer bytes." in text
    assert "the chip needs larger batches to stay busy" in text
    # B300 2.5 PFLOP/s / H100 989 TFLOP/s = x2.53; NVLink 900 / 450 GB/s = x2.0
    assert (
        "B300's bf16 peak (an estimate) is x2.53 the H100 SXM's, its NVLink only x2.0: the "
        "network ridge rises from 2,198 to 2,778 FLOP/B. Compute grows faster than "
        "communication" in text
    )
    edit_table(monkeypatch, EDITS["H200 bandwidth x0.5"])
    text = run("02", capsys, monkeypatch)
    # 2.4 / 3.35 = x0.72; ridge 989 / 2.4 = 412
    assert "so its ridge rises from 295 to 412 FLOP/B" in text
    assert "A higher ridge makes full speed harder to reach." in text
    edit_table(monkeypatch, EDITS["B300 nvfp4 below fp8"])
    text = run("02", capsys, monkeypatch)
    # 2.5 / 5 = x0.50 the compute for x1.78 fewer bytes: no 'only'; ridge 625 -> 312
    assert (
        "nvfp4 on B300: x0.50 the fp8 compute for x1.78 fewer bytes. The ridge falls from 625 "
        "to 312 FLOP/B" in text
    )
    assert "the chip stays busy with smaller batches" in text


def test_h200_exercise_words_by_hand(monkeypatch) -> None:
    from common.exercises import get_exercise

    steps = get_exercise("h200-vs-h100").solve().steps
    assert steps[0].startswith("Both chips have the same bf16 peak")
    assert "the H200's ridge fell from 295.2 to 206.0 FLOP/byte" in steps[1]
    assert "it needs fewer concurrent sequences" in steps[1]
    assert "x1.43 faster" in steps[2]
    edit_table(monkeypatch, EDITS["H200 bandwidth x0.5"])
    steps = get_exercise("h200-vs-h100").solve().steps
    # ridge 989 / 2.4 = 412.1; step 14 GB / 2.4 TB/s = 5.83 ms against 4.18 ms
    assert "the H200's ridge rose from 295.2 to 412.1 FLOP/byte" in steps[1]
    assert "it needs more concurrent sequences" in steps[1]
    assert "x1.40 slower" in steps[2]
    edit_table(monkeypatch, EDITS["H200 bf16 x2"])
    steps = get_exercise("h200-vs-h100").solve().steps
    assert steps[0].startswith("The H200 has x2.00 the H100's bf16 peak")
    assert "gets x2.00 faster on it" in steps[0]


def test_lecture02_numbers_by_hand(capsys, monkeypatch) -> None:
    """Lecture 02's observations, each number worked out here from K = N = 8192 and the table."""
    text = run("02", capsys, monkeypatch)
    # vector add: 1 FLOP per 6 bytes = 0.1667 FLOP/B -> 0.1667 * 3.35e12 / 989e12 = 0.06%
    assert "On an H100 SXM they reach 0.06% and 0.17% of peak" in text
    # I(B) = B K N / (B K + K N + B N): I(256) = 240.9 < 295.2 <= I(1024) = 819.2
    assert (
        "The first batch in the list to reach the ridge of 295 FLOP/B is B = 1024 (819.2 FLOP/B); "
        "at B = 256 the matmul still gets only 81.61% of peak." in text
    )
    assert "no batch can pass KN/(K+N) = 4096" in text  # 8192 * 8192 / 16384
    # v5e int8 394e12 / 8.2e11 = 480.5 and bf16 240.2: 256 both; int8 weights: 128
    assert "the critical batch stays where bf16 has it: 256 against 256" in text
    assert "the critical batch falls from 256 to 128 (estimate 120)" in text
    assert "Even MQA's 32.0 FLOP/B is x9.2 below the H100 SXM ridge" in text  # 295.2 / 32
    assert "reach the flat roof from B = 1024" in text
    # tile side 2 * 295.2 = 590.4; 590.4^2 * 4 B = 1.39 MB = x5.3 the 256 KiB registers
    assert "x5.3 its 256 KiB register file. No single SM gets there by itself." in text
    # K > 2 * peak / link: 2 * 989e12 / 450e9 = 4,395.6 < v5e's 2 * 197e12 / 4.5e10 = 8,755.6
    assert "so the H100 SXM needs only K > 4,395.6." in text
    assert (
        "TPU v6e has x4.67 the v5e's compute and x2.0 its link bandwidth, so one link needs "
        "K > 20,444.4" in text
    )
    edit_table(monkeypatch, {("tpu-v5e", "peak int8"): 1576e12})  # int8 x4: 4 x the bf16 peak
    text = run("02", capsys, monkeypatch)
    # ridge 1576e12 / 8.2e11 = 1922; K = N = 8192 all int8: I(B) = B / 2 * 8192 / (B + 4096)...
    assert "the critical batch rises from 256 to" in text
    edit_table(monkeypatch, {("h100", "link_bw_figure"): 45e9})  # as slow as one v5e link
    text = run("02", capsys, monkeypatch)
    assert "so the H100 SXM needs K > 43,955.6." in text  # 2 * 989e12 / 45e9; no 'only'
