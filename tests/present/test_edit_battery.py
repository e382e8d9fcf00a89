"""Each edit of the battery (tests/edit_battery.py) written into a copy of common/hw_specs.py;
the table's lectures and the exercises run there, one child process an edit, and no
sentence they print may contradict its numbers."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, selected
from edit_battery import battery, contradictions, edited_source, table_figures

TABLE = REPO / "common" / "hw_specs.py"
SOURCE = TABLE.read_text(encoding="utf-8")
EDITS = dict(battery(table_figures(SOURCE)))
LECTURES = ("02", "05", "06", "07", "08")  # every lecture that reads the table and measures nothing
# Lecture 10 measures too (a few seconds with --quick): it runs for the edits of what it reads.
MEASURED = "10:--quick"


def lectures_for(edit: dict) -> tuple[str, ...]:
    """The lectures an edit must be checked in: all of LECTURES, and 10 when it reads the edit."""
    read_by_10 = any(
        chip in ("a100", "h100") and field in ("peak bf16", "mem_bw_figure", "smem_per_sm_figure")
        for chip, field in edit)  # fmt: skip
    return (*LECTURES, MEASURED) if read_by_10 else LECTURES


RUNNER = r"""
import runpy, sys, traceback
from pathlib import Path
for name in sys.argv[1:]:
    print(f"==== {name}", flush=True)
    try:
        if name == "exercises":
            from common.exercises.text import main
            main([])
        else:
            stem, *args = name.split(":")
            (path,) = Path("lectures").glob(stem + "_*.py")
            saved = list(sys.argv)
            sys.argv = [str(path), *args]
            sys.path.insert(0, str(path.parent.resolve()))  # the script's folder, as python3 does
            try:
                runpy.run_path(str(path), run_name="__main__")
            finally:
                sys.argv = saved
    except SystemExit as exc:
        if exc.code not in (0, None):
            print(f"CRASHED: exit {exc.code}")
    except BaseException as exc:
        print(f"CRASHED: {type(exc).__name__}: {exc}")
    sys.stdout.flush()
"""


def run_course(root: Path, edit: dict) -> str:
    """Write `edit` into root's table, run the lectures and the exercises; their output."""
    (root / "common" / "hw_specs.py").write_text(edited_source(SOURCE, edit), encoding="utf-8")
    # PYTHONDONTWRITEBYTECODE: an edit of the same length must not hit old bytecode
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "HOME": str(root),
           "PYTHONDONTWRITEBYTECODE": "1"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *lectures_for(edit), "exercises"], cwd=root, env=env,
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    return done.stdout + done.stderr


def course_copy(root: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__")
    for part in ("common", "lectures"):
        shutil.copytree(REPO / part, root / part, ignore=ignore)
    return root


#: The edits in two halves, the lecture-10 runs (seconds each; the rest take a fraction of
#: one) shared between them: under ``--dist loadscope`` a class is a scope of its own,
#: so each of pytest -n's two workers runs one half in its own copy of the course.
_ORDER = sorted(EDITS, key=lambda name: MEASURED not in lectures_for(EDITS[name]))
HALVES = (tuple(_ORDER[0::2]), tuple(_ORDER[1::2]))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    name = metafunc.function.__name__
    if metafunc.cls is not None and name == "test_no_sentence_contradicts_its_numbers":
        metafunc.parametrize("name", metafunc.cls.NAMES)


def test_the_battery_has_the_edits_the_issue_lists_each_of_one_literal() -> None:
    names = " | ".join(EDITS)
    assert "README: A100 bf16 peak 312e12 -> 1979e12" in EDITS
    for wanted in ("h100 peak bf16 x2", "h100 peak bf16 x0.5", "h200 mem_bw_figure x2"):
        assert wanted in EDITS
    assert "swap a100 and h100" in EDITS
    assert "h100 peak fp8 below peak bf16" in EDITS
    assert "b300 peak nvfp4 below peak fp8" in EDITS
    assert "every capacity halved" in EDITS and "every shared memory per SM halved" in EDITS
    assert names.count("x0.5") >= 30  # every peak and bandwidth of seven chips
    # an edit changes only the named literal
    edit = {("a100", "peak bf16"): 1979e12}
    new = edited_source(SOURCE, edit)
    assert "flops(1979000000000000.0, A100_DATASHEET)" in new
    assert table_figures(new)[("a100", "peak bf16")][1] == 1979e12
    diff = [(a, b) for a, b in zip(SOURCE.splitlines(), new.splitlines(), strict=True) if a != b]
    assert len(diff) == 1


def test_the_reader_catches_a_wrong_direction() -> None:
    bad = [
        "From A100 to H100, bf16 compute grew x0.50 but bandwidth only x2.15, so the ridge "
        "point rose from 1272.7 to 295.2 FLOP/B.",
        "fp8 raises the peak x1.00 and halves the bytes, so the critical batch barely moves: "
        "332 against 690 in bf16 (x0.48).",
        "the network ridge rises from 4,396 to 2,778 FLOP/B.",
        "The time bound falls from 1.2 ms to 3.4 ms.",
        "The time bound falls from 450 ps to 1.20 ns.",  # ps: below a nanosecond
        "decode gets x0.90 faster.",
        "int4 weights take 1/0.25 as much memory as bf16, and NVLink shrank to 1/1.00.",
        "H200 pairs its compute with x0.70 as much bandwidth as the H100 SXM.",
        "9 of the 8 operators are memory-bound.",
        "Neither reaches its ridge from shared memory alone: the ridge takes the H100 SXM "
        "149 KiB (x0.65 what it has).",
        "On the A100 the time bound falls x0.8, from 0.089 ms to 0.110 ms.",
        # reasons and regimes (issue 34's corner: bf16 peaks x0.05, bandwidths x20)
        "has a time bound x3.17 faster on an H100 than on an A100: the bandwidth ratio "
        "(x2.15), not the compute ratio (x3.17).",
        "x1.70 slower on an H100 than on an A100: the bandwidth ratio (x0.54), not the compute "
        "ratio (x0.63).",  # 1 / 1.70 = 0.588: the compute ratio's side, not the bandwidth's
        "that is 1.50 FLOP/byte, about 299.0% of the A100's ridge point: deep in the "
        "memory-bound regime.",
        "about 30.0% of the A100's ridge point: deep in the memory-bound regime.",
        "speeds up the LayerNorm's time bound by a factor of 2.03, that is, not at all.",
        "the time bound stays at 0.556 ms. The time improves far less than the traffic.",
        "3. The throughput flattens because each sequence reads its own 0.02 GB of KV cache "
        "per step: no batch beats bandwidth / that, 199,676 tokens/s on H100 SXM and 476,837 "
        "on B200.\n4. Past its knee (B = 332) the weight matmuls on H100 SXM together are past "
        "the ridge and cost 15.2 µs of compute per token.",
        "A chunk of 1 prompt token beside the 1 decode token: the step grows from 4.48 ms to "
        "4.49 ms (no slower).",
        "On the A100 the time bound falls from 0.100 ms to 0.098 ms (no faster).",
        "the step stays at 1.01 ms (x1.01 slower).",
        "On the H100 SXM they reach 0.00% and 0.00% of peak; only moving fewer bytes makes them "
        "faster.",
        "Published size: 1.00 T ().",
        "At batch 1 the mixture reads 73.25 GB of weights a step against the twin's 73.04 GB "
        "(x1.00): about the same FLOPs per token, more bytes.",
    ]
    for sentence in bad:
        assert contradictions(sentence), sentence
    good = [
        "the ridge point rose from 295.2 to 1272.7 FLOP/B.",
        "the network ridge rises from 2 to 2,778 FLOP/B.",  # a drawn table's (2 is not 2,778)
        "The time bound falls from 1.2 ms to 450 us.",
        "The time bound falls from 1.20 ns to 450 ps.",
        "compute grew x3.17 but bandwidth only x2.15.",
        "the critical batch barely moves: 690 against 680.",
        "8 of the 8 operators are memory-bound.",
        "x2.15 faster on an H100: the bandwidth ratio (x2.15), not the compute ratio (x3.17).",
        # a drawn table's: times x1.8349 apart, bandwidths x0.5449; 1 / 1.83 = 0.5464 is
        # 0.0064 from 0.54, within the printed 1.83's own +-0.005 / 1.83^2 and 0.54's 0.005
        "x1.83 slower on an H100 than on an A100: the bandwidth ratio (x0.54), not the compute "
        "ratio (x0.63).",
        "about 0.7% of the A100's ridge point: deep in the memory-bound regime.",
        "by a factor of 1.00, that is, not at all.",
        "the time bound stays at 0.556 ms. Both versions sit on the compute roof here.",
        "torch.cuda.synchronize() waits for the GPU.",  # a call's brackets are not empty words
        "3. The throughput flattens because each sequence reads its own 0.54 GB of KV cache "
        "per step: no batch beats bandwidth / that, 6,240 tokens/s on H100 SXM and 14,901 on "
        "B200.\n4. Past its knee (B = 332) the weight matmuls on H100 SXM together are past the "
        "ridge and cost 15.2 µs of compute per token.",
        "the step grows from 4.48 ms to 4.49 ms (x1.002 slower).",
        "the step stays at 1.01 ms (no slower).",
        "the time bound falls from 0.110 ms to 0.089 ms (x1.2 faster).",
        "On the H100 SXM they reach 0.00056% and 0.06% of peak; only moving fewer bytes makes "
        "them faster.",
        "At batch 1 the mixture reads 73.25 GB of weights a step against the twin's 73.04 GB "
        "(x1.003): about the same FLOPs per token, more bytes.",
        "the mixture reads 73.04 GB of weights a step against the twin's 73.04 GB (x1.00).",
    ]
    for sentence in good:
        assert not contradictions(sentence), sentence


@pytest.fixture(scope="class")
def outputs(request: pytest.FixtureRequest, tmp_path_factory) -> dict[str, str]:
    """The output of every selected edit of the requesting half, run in one copy of the course."""
    wanted = selected(request, "test_no_sentence_contradicts_its_numbers", "name", request.cls)
    root = course_copy(tmp_path_factory.mktemp("course"))
    return {name: run_course(root, EDITS[name]) for name in wanted}


class _Half:
    """Half the battery (NAMES), its edits run once for the class."""

    NAMES: tuple[str, ...] = ()

    def test_no_sentence_contradicts_its_numbers(self, outputs: dict[str, str], name: str) -> None:
        out = outputs[name]
        assert out.count("==== ") == len(lectures_for(EDITS[name])) + 1, out[-2000:]
        crashed = [line for line in out.splitlines() if line.startswith("CRASHED")]
        assert not crashed, crashed
        found = contradictions(out)
        assert not found, "\n".join(found)


class TestFirstHalf(_Half):
    NAMES = HALVES[0]


class TestSecondHalf(_Half):
    NAMES = HALVES[1]
