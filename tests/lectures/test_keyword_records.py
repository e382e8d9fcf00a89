"""Lectures build their words' records by keyword (issue 32): a page.X(...) call with six or
more values by position, or a tuple unpacked into it, shifts every value when a field moves."""

from __future__ import annotations

import ast
from pathlib import Path

LECTURES = sorted((Path(__file__).resolve().parents[2] / "lectures").glob("[0-9][0-9]_*.py"))
MOST_POSITIONAL = 5


def positional_calls(tree: ast.AST) -> list[int]:
    """Lines of page.X(...) calls with more than MOST_POSITIONAL positional or any *args."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "page"
            and (len(node.args) > MOST_POSITIONAL
                 or any(isinstance(a, ast.Starred) for a in node.args))]  # fmt: skip


def test_the_scan_finds_both_shapes_and_lectures_build_records_by_keyword() -> None:
    source = "page.Setup(a, b, c, d, e, f)\npage.Run(*row)\npage.Op(name=n, flops=f)\n"
    assert positional_calls(ast.parse(source)) == [1, 2]
    assert LECTURES, "no lecture found"
    found = [
        f"{path.name}:{line}"
        for path in LECTURES
        for line in positional_calls(ast.parse(path.read_text(encoding="utf-8")))]  # fmt: skip
    assert not found, "pass these records' values by keyword: " + ", ".join(found)
