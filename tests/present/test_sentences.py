"""The lectures' sentences under edited tables, run in this process (fast; mutation-testable):
test_edit_battery.py's edits made to the imported table, and a few sentences by hand."""

from __future__ import annotations

import dataclasses
import runpy
import sys

import pytest
from conftest import REPO
from edit_battery import contradictions

from common import hw_specs
from common.exercises import EXERCISES, get_exercise

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
    texts = [lecture_output(name, capsys, monkeypatch) for name in LECTURES]
    texts += ["\n".join(exercise.solve().steps) for exercise in EXERCISES]
    return "\n".join(texts)


def lecture_output(name: str, capsys, monkeypatch) -> str:
    """What lecture `name` prints, run in this process."""
    (path,) = (REPO / "lectures").glob(f"{name}_*.py")
    monkeypatch.setattr(sys, "argv", [str(path)])
    runpy.run_path(str(path), run_name="lecture")  # not __main__: no boot policies
    return capsys.readouterr().out


@pytest.mark.parametrize("name", list(EDITS))
def test_no_sentence_contradicts_its_numbers(name: str, capsys, monkeypatch) -> None:
    edit_table(monkeypatch, EDITS[name])
    text = course_text(capsys, monkeypatch)
    found = contradictions(text)
    assert not found, "\n".join(found)


def run(name: str, capsys, monkeypatch) -> str:
    """Lecture `name`'s output as one line of prose."""
    return " ".join(lecture_output(name, capsys, monkeypatch).split())


def test_lecture05_and_the_h200_exercise_by_hand(capsys, monkeypatch) -> None:
    # A100 312 TFLOP/s, 1,555 GB/s; H100 989 TFLOP/s, 3.35 TB/s (datasheets)
    text = run("05", capsys, monkeypatch)
    assert (
        "From A100 40GB SXM to H100 SXM, bf16 compute grew x3.17 but bandwidth only x2.15, so "
        "the ridge point rose from 200.6 to 295.2 FLOP/B: on the newer chip a kernel between "
        "200.6 and 295.2 FLOP/B falls to the memory-bound side." in text
    )
    edit_table(monkeypatch, EDITS["README: A100 bf16 1979e12"])
    text = run("05", capsys, monkeypatch)
    # 989 / 1979 = 0.4997: compute shrank to 1/2.00; ridge 1979 / 1.555 = 1,272.7
    assert (
        "bandwidth grew x2.15 and bf16 compute shrank to 1/2.00, so the ridge point fell from "
        "1,272.7 to 295.2 FLOP/B: on the newer chip a kernel between 295.2 and 1,272.7 FLOP/B "
        "reaches the compute roof it misses on the older." in text
    )
    # the H200 exercise (the shipped table's words: test_exercises.py::test_h200_answer)
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
