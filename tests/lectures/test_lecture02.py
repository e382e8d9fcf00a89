"""Lecture 02 run as a student runs it: its printed tables carry the lecture script's numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import lecture_path, quiet_run, run_lecture
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
