"""The lectures' sentences under edited tables, run in this process (fast; mutation-testable):
test_edit_battery.py's edits made to the imported table, and a few sentences by hand."""

from __future__ import annotations

import pytest
from edit_battery import contradictions
from strategies import edited, patched_hardware, run_lecture

from common.exercises import EXERCISES, get_exercise

LECTURES = ("02", "05", "06", "07", "08")

EDITS = {  # factors on the shipped figures
    "shipped": {}, "README: A100 bf16 1979e12": {"a100": {"peak bf16": 1979 / 312}},
    "H100 bandwidth x2": {"h100": {"mem_bw": 2}}, "H200 bandwidth x0.5": {"h200": {"mem_bw": 0.5}},
    "H200 bf16 x2": {"h200": {"peak bf16": 2}}, "H100 fp8 below bf16": {"h100": {"peak fp8": 0.25}},
    "B300 nvfp4 below fp8": {"b300": {"peak nvfp4": 1 / 6}},  # 2.5 PFLOP/s against 5
    "TPU v5e int8 below bf16": {"tpu_v5e": {"peak int8": 0.25}},
    "B300 link x4": {"b300": {"link": 4}}, "TPU v6e link x4": {"tpu_v6e": {"link": 4}},
    "swap A100 and H100 bandwidth": {"a100": {"mem_bw": 3.35 / 1.555},
                                     "h100": {"mem_bw": 1.555 / 3.35}}}  # fmt: skip


@pytest.mark.parametrize("name", list(EDITS))
def test_no_sentence_contradicts_its_numbers(name: str) -> None:
    with patched_hardware(edited(**EDITS[name])):
        texts = [run_lecture(lecture) for lecture in LECTURES]
        texts += ["\n".join(exercise.solve().steps) for exercise in EXERCISES]
    found = contradictions("\n".join(texts))
    assert not found, "\n".join(found)


def run(name: str) -> str:
    """Lecture `name`'s output as one line of prose."""
    return " ".join(run_lecture(name).split())


def test_lecture05_and_the_h200_exercise_by_hand() -> None:
    # A100 312 TFLOP/s, 1,555 GB/s; H100 989 TFLOP/s, 3.35 TB/s (datasheets)
    text = run("05")
    assert (
        "From A100 40GB SXM to H100 SXM, bf16 compute grew x3.17 but bandwidth only x2.15, so "
        "the ridge point rose from 200.6 to 295.2 FLOP/B: on the newer chip a kernel between "
        "200.6 and 295.2 FLOP/B falls to the memory-bound side." in text
    )
    with patched_hardware(edited(**EDITS["README: A100 bf16 1979e12"])):
        text = run("05")
    # 989 / 1979 = 0.4997: compute shrank to 1/2.00; ridge 1979 / 1.555 = 1,272.7
    assert (
        "bandwidth grew x2.15 and bf16 compute shrank to 1/2.00, so the ridge point fell from "
        "1,272.7 to 295.2 FLOP/B: on the newer chip a kernel between 295.2 and 1,272.7 FLOP/B "
        "reaches the compute roof it misses on the older." in text
    )
    # the H200 exercise (the shipped table's words: test_exercises.py::test_h200_answer)
    with patched_hardware(edited(h200={"mem_bw": 0.5})):
        steps = get_exercise("h200-vs-h100").solve().steps
    # ridge 989 / 2.4 = 412.1; step 14 GB / 2.4 TB/s = 5.83 ms against 4.18 ms
    assert "the H200's ridge rose from 295.2 to 412.1 FLOP/byte" in steps[1]
    assert "it needs more concurrent sequences" in steps[1]
    assert "x1.40 slower" in steps[2]
    with patched_hardware(edited(h200={"mem_bw": 0.5, "peak bf16": 2})):
        steps = get_exercise("h200-vs-h100").solve().steps
    assert steps[0].startswith("The H200 has x2.00 the H100's bf16 peak")
    assert "gets x2.00 faster on it" in steps[0]
