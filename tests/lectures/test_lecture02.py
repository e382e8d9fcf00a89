"""Lecture 02 run as a student runs it: its printed tables carry the lecture script's numbers."""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

import pytest
from conftest import (
    H100_BANDWIDTH,
    H100_BF16_PEAK,
    REPO,
    critical_batch,
    lecture_path,
    quiet_run,
    run_lecture,
)
from strategies import SHIPPED, patched_hardware, unlinked
from strategies import run_lecture as run_here

LECTURE = "02"
WIDTH = 88


def parse_tables(text: str) -> list[list[dict[str, str]]]:
    """Every table in the output as a list of rows ({header: cell}); columns come from the rule."""
    lines = text.splitlines()
    tables = []
    for index, rule in enumerate(lines):
        if index == 0 or not re.fullmatch(r"-+(  -+)*", rule):
            continue
        spans = [m.span() for m in re.finditer(r"-+", rule)]

        def cells(line: str, spans=spans) -> list[str]:
            return [line[a:b].strip() for a, b in spans]

        headers = cells(lines[index - 1])
        rows = []
        for line in lines[index + 1 :]:
            if not line.strip():
                break
            rows.append(dict(zip(headers, cells(line), strict=True)))
        tables.append(rows)
    return tables


def table_with(tables: list[list[dict[str, str]]], *headers: str) -> list[dict[str, str]]:
    """The one table whose header has all of `headers`."""
    found = [t for t in tables if t and all(h in t[0] for h in headers)]
    assert len(found) == 1, f"expected one table with {headers}, found {len(found)}"
    return found[0]


def row(table: list[dict[str, str]], **match: str) -> dict[str, str]:
    """The one row of `table` whose cells equal `match`."""
    found = [r for r in table if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, f"expected one row {match}, found {found}"
    return found[0]


def number(cell: str) -> float:
    """The first number in a cell ('K > 8,755.6' -> 8755.6)."""
    m = re.search(r"-?\d[\d,]*(\.\d+)?", cell)
    assert m, f"no number in {cell!r}"
    return float(m.group().replace(",", ""))


@pytest.fixture(scope="module")
def output() -> str:
    return quiet_run(LECTURE)


@pytest.fixture(scope="module")
def tables(output: str) -> list[list[dict[str, str]]]:
    return parse_tables(output)


def test_part1_basic_operations(tables) -> None:
    t = table_with(tables, "operation", "FLOP/B", "bound", "of peak", "time >=")
    assert number(row(t, operation="vector add")["FLOP/B"]) == pytest.approx(1 / 6, abs=1e-3)
    assert number(row(t, operation="dot product")["FLOP/B"]) == pytest.approx(1 / 2, abs=1e-3)
    assert f"{number(row(t, operation='matvec, B=1')['FLOP/B']):.1f}" == "1.0"
    assert number(row(t, operation="matmul, B=16")["FLOP/B"]) == pytest.approx(16, rel=0.01)
    assert number(row(t, operation="matmul, B=4096")["FLOP/B"]) == 2048
    for r in t:
        memory = r["bound"] == "memory"
        assert memory == (number(r["of peak"]) < 100), r
        assert r["time >="].split()[-1] in ("ns", "µs", "ms", "s")
    assert [r["bound"] for r in t].count("compute") == 2


def test_part2_ridge_points_and_critical_batches(tables) -> None:
    t = table_with(tables, "chip", "compute", "ridge", "critical B")
    for chip, compute, column, value in [
        ("H100 SXM", "bf16", "ridge", "295"), ("H200", "bf16", "ridge", "206"),
        ("B300", "nvfp4", "ridge", "1875"), ("TPU v5e", "bf16", "ridge", "240"),
        ("H100 SXM", "bf16", "critical B", "319"), ("H100 SXM", "fp8", "critical B", "332"),
        ("B300", "nvfp4", "critical B", "747"), ("TPU v5e", "int8", "critical B", "256"),
    ]:  # fmt: skip
        assert row(t, chip=chip, compute=compute)[column] == value, (chip, compute, column)
    expected_cases = {
        ("H100 SXM", "bf16"), ("H100 SXM", "fp8"), ("H200", "bf16"), ("B200", "bf16"),
        ("B200", "fp8"), ("B300", "fp8"), ("B300", "nvfp4"), ("TPU v5e", "bf16"),
        ("TPU v5e", "int8"), ("TPU v6e", "bf16"),
    }  # fmt: skip
    assert {(r["chip"], r["compute"]) for r in t} == expected_cases
    for r in t:  # the exact batch is never below the small-B estimate ridge * w / 2
        w = 0.5625 if r["compute"] == "nvfp4" else 1 if r["compute"] in ("fp8", "int8") else 2
        assert int(r["critical B"]) >= number(r["ridge"]) * w / 2 - 1


def test_part3_exercises(tables) -> None:
    t = table_with(tables, "case", "book's B", "exact B")
    assert len(t) == 3
    ex1, ex2, bf16 = t
    assert ex1["case"].startswith("ex. 1") and ex2["case"].startswith("ex. 2")
    assert (ex1["exact B"], ex2["exact B"], bf16["exact B"]) == ("256", "128", "256")
    assert (ex1["book's B"], ex2["book's B"]) == ("240", "120")


def test_part3_decode_attention_and_no_exercise_4(output: str, tables) -> None:
    # the book's exercise 4 (one matrix per example) is the per-example-matrices exercise:
    # the lecture leaves it to the exercise instead of printing its answer
    assert "per example" not in output
    t = table_with(tables, "variant", "KV heads", "FLOP/B")
    intensities = {r["variant"]: number(r["FLOP/B"]) for r in t}
    assert intensities == {"MHA": 1, "GQA": 4, "MQA": 32}
    assert {r["variant"]: r["KV heads"] for r in t} == {"MHA": "32", "GQA": "8", "MQA": "1"}


def test_part4_ascii_roofline_and_legend(output: str, tables) -> None:
    chart = output.split("4. Roofline of H100 SXM, bf16")[1].split("point  operation")[0]
    plot_rows = [line for line in chart.splitlines() if "|" in line]
    assert len(plot_rows) >= 6
    for label in "abcdefgh":
        assert any(label in line.split("|", 1)[1] for line in plot_rows), label
    assert any("+" in line.split("|", 1)[1] for line in plot_rows)  # the ridge
    legend = table_with(tables, "point", "operation", "attainable")
    assert [r["point"] for r in legend] == list("abcdefgh")
    assert legend[0]["operation"] == "vector add"
    assert legend[-1]["attainable"] == "989.0 TFLOP/s"


def test_part5_tiling(output: str, tables) -> None:
    t = table_with(tables, "tile bm x bk x bn", "FLOP/B exact", "bm*bn/(bm+bn)")
    pairs = [(r["FLOP/B exact"], r["bm*bn/(bm+bn)"]) for r in t]
    assert pairs == [("15.9", "16.0"), ("31.8", "32.0"), ("63.0", "64.0"), ("83.6", "85.3"),
                     ("124.1", "128.0")]  # fmt: skip
    traffic = [number(r["main-memory traffic"]) for r in t]
    assert traffic == sorted(traffic, reverse=True)
    acc = table_with(tables, "output tile", "fp32 accumulator", "reaches ridge")
    assert row(acc, **{"output tile": "256x256"})["fp32 accumulator"] == "256 KiB"
    assert row(acc, **{"output tile": "512x512"})["fits 256 KiB"] == "no"
    assert all(r["reaches ridge"] == "no" for r in acc)
    m = re.search(r"about (\d+) x (\d+); fp32 accumulator ([\d.]+ MiB)", output)
    assert m, "tile-needed line missing"
    assert m.group(1) == m.group(2) == "590"
    assert m.group(3) == "1.3 MiB"


def test_part6_network(output: str, tables) -> None:
    t = table_with(tables, "chip", "net I*", "compute iff")
    thresholds = {r["chip"]: number(r["compute iff"]) for r in t}
    assert abs(thresholds["TPU v5e"] - 8755) < 1
    assert abs(thresholds["H100 SXM"] - 4396) < 1
    assert abs(thresholds["TPU v6e"] - 20444) < 1
    for condition in ("K > 8,755.6", "K > 4,395.6", "K > 20,444.4"):
        assert condition in output
    for r in t:
        for dim in (4096, 8192, 16384):
            expected = "compute" if dim >= thresholds[r["chip"]] else "comms"
            assert r[f"K={dim}"] == expected, (r["chip"], dim)
    t = table_with(tables, "K", "B", "T_math", "T_comms", "bound")
    assert {r["B"] for r in t} == {"8", "128", "2048"}
    by_dim: dict[str, set[str]] = {}
    for r in t:
        by_dim.setdefault(r["K"], set()).add(r["bound"])
    assert by_dim == {"8192": {"comms"}, "16384": {"compute"}}


def test_every_line_fits_88_columns(output: str) -> None:
    long = [line for line in output.splitlines() if len(line) > WIDTH]
    assert not long, long


def test_no_reference_number_typed_into_the_lecture() -> None:
    pattern = re.compile(
        r"(^|[^0-9.e])(295|206|319|332|1875|747|240|590|8755|4396|20444|200\.6)([^0-9]|$)"
    )
    for lineno, line in enumerate(lecture_path(LECTURE).read_text().splitlines(), 1):
        if not line.lstrip().startswith("#"):
            assert not pattern.search(line), f"line {lineno}: {line}"


def test_runs_on_a_bare_interpreter(tmp_path: Path, output: str) -> None:
    proc = run_lecture(LECTURE, cwd=tmp_path, python_flags=("-S",))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == output  # same numbers without site-packages or the repo as cwd
    assert list(tmp_path.iterdir()) == []  # wrote nothing


def _one_line_error(proc, status: int | None = None) -> str:
    assert proc.returncode != 0
    if status is not None:
        assert proc.returncode == status
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_unwritable_outdir_is_a_one_line_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        outdir = locked
        if os.access(locked, os.W_OK):  # root writes anywhere: use a path under a file
            blocker = tmp_path / "a_file"
            blocker.write_text("not a folder\n")
            outdir = blocker / "sub"
        proc = run_lecture(LECTURE, "--png", "--outdir", str(outdir), cwd=tmp_path)
        line = _one_line_error(proc)
        assert "figure folder" in line and str(outdir) in line
    finally:
        locked.chmod(stat.S_IRWXU)


# --- Editing a figure in the copied hardware table moves every dependent number ---
H100_PEAK_RE = re.compile(r'(H100 = Chip\(.*?"bf16": flops\()([^,]+)(,)', re.DOTALL)


def _copy_course(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "course"
    shutil.copytree(REPO / "common", root / "common", ignore=shutil.ignore_patterns("__pycache__"))
    words = shutil.ignore_patterns("__pycache__")
    shutil.copytree(REPO / "lectures" / "words", root / "lectures" / "words", ignore=words)
    script = root / "lectures" / lecture_path(LECTURE).name
    shutil.copy2(lecture_path(LECTURE), script)
    shutil.copy2(REPO / "lectures" / "_course.py", script.parent)  # its first line
    return root / "common" / "hw_specs.py", script


def _set_h100_bf16_peak(hw_specs: Path, literal: str) -> str:
    """Replace the H100 bf16 peak literal; return the one that was there."""
    text = hw_specs.read_text()
    match = H100_PEAK_RE.search(text)
    assert match, "H100 bf16 peak not found in hw_specs.py"
    hw_specs.write_text(text[: match.start(2)] + literal + text[match.end(2) :])
    return match.group(2)


def _h100_row(stdout: str) -> dict[str, str]:
    t = table_with(parse_tables(stdout), "chip", "compute", "ridge", "critical B")
    return row(t, chip="H100 SXM", compute="bf16")


def test_editing_the_h100_peak_moves_ridge_and_critical_batch(tmp_path: Path, output) -> None:
    hw_specs, script = _copy_course(tmp_path)
    original = _set_h100_bf16_peak(hw_specs, repr(2 * H100_BF16_PEAK))
    assert float(original) == H100_BF16_PEAK

    proc = run_lecture(script, cwd=tmp_path, check=True)
    edited = _h100_row(proc.stdout)

    ridge = 2 * H100_BF16_PEAK / H100_BANDWIDTH
    assert edited["ridge"] == f"{ridge:.0f}"
    assert int(edited["critical B"]) == critical_batch(ridge)
    assert f"ridge {ridge:.0f} FLOP/B" in proc.stdout  # part 1 follows too

    before = _h100_row(output)
    assert edited["ridge"] != before["ridge"]
    assert edited["critical B"] != before["critical B"]
    assert int(before["critical B"]) == critical_batch(H100_BF16_PEAK / H100_BANDWIDTH)


#: A bad peak literal and how the one line shows it (an absurd one, by value: issue 14)
BAD_PEAKS = [('"lots"', ()), ("0", ()), ("-989e12", ()), ('float("nan")', ())]
BAD_PEAKS += [("1e-300", ("between", "1e-300")), ("1e300", ("between", "1e+300"))]


@pytest.mark.parametrize(("literal", "shown"), BAD_PEAKS)
def test_a_bad_peak_in_the_table_is_a_one_line_error(
    tmp_path: Path, literal: str, shown: tuple[str, ...]
) -> None:
    hw_specs, script = _copy_course(tmp_path)
    _set_h100_bf16_peak(hw_specs, literal)
    proc = run_lecture(script, cwd=tmp_path)
    line = _one_line_error(proc, status=1)
    assert all(w in line for w in ("H100 SXM bf16 peak FLOP/s must be", *shown)), line


@pytest.mark.parametrize("key", ["b300", "tpu-v5e"])
def test_a_chip_without_its_link_leaves_part_6_only(key: str) -> None:
    """A chip listed without a link figure (optional in the table) sits out part 6 only:
    one line names it, the other chips' rows and the sentences about them stay, and the
    lecture still runs to its end (issue 34)."""
    with patched_hardware(dict(SHIPPED, **{key: unlinked(SHIPPED[key])})):
        out = run_here(LECTURE)
    name = SHIPPED[key].name
    assert f"Left out: {name}, with no link figure in common/hw_specs.py." in out
    t = table_with(parse_tables(out), "chip", "net I*", "compute iff")
    assert {r["chip"] for r in t} == {"TPU v5e", "TPU v6e", "H100 SXM", "B300"} - {name}
    # 2 x bf16 peak / one-way link, by hand: v6e 2 x 920e12 / 90e9, H100 2 x 989e12 / 450e9
    assert "K > 20,444.4" in out and "K > 4,395.6" in out
    said = " ".join(out.split())
    assert ("From H100 SXM to B300" in said) == (name != "B300")
    assert ("ICI link" in said) == (name != "TPU v5e")
    steps = [t for t in parse_tables(out) if t and "T_comms" in t[0]]
    assert bool(steps) == (name != "TPU v5e")  # the v5e's steps need its link
    assert "What to observe" in out.split("\n6. X[B,K]")[1]
