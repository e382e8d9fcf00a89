"""One home per roofline formula: the ridge P / beta, the attainable rate min(P, I beta) and the
time bound max(F / P, D / beta) are written only in common/formulas/roofline.py, so no figure
or sentence drifts onto a private copy (lecture 09's figure once drew min(P, I beta) itself)."""

from __future__ import annotations

import ast
import math

import pytest
from conftest import REPO as ROOT

from common.formulas.predict import Roofs
from common.plots import roofline as plots_roofline
from lectures.words import predict_and_check

HOME = ROOT / "common" / "formulas" / "roofline.py"
# The Run panel's adapter is leaving common/ (issue 32); it is not course code.
SKIP = {HOME, ROOT / "common" / "present" / "live.py"}


def _name(node: ast.AST) -> str:
    """The identifier of a name or attribute (``chip.mem_bw`` -> 'mem_bw'), lower case; else ''."""
    if isinstance(node, ast.Name):
        return node.id.lower()
    if isinstance(node, ast.Attribute):
        return node.attr.lower()
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value).lower()
    return ""


def _is_peak(node: ast.AST) -> bool:
    return "peak" in _name(node) or _name(node).endswith("flops_per_s")


def _is_bw(node: ast.AST) -> bool:
    name = _name(node)
    return name in {"bw", "beta", "b"} or name.endswith(("_bw", "bandwidth", "bytes_per_s"))


def _divides_by(node: ast.AST, test: object) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and test(node.right)


def _times(node: ast.AST, test: object) -> bool:
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
            and (test(node.left) or test(node.right)))  # fmt: skip


def copies(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, formula) for each private copy of a roofline formula in a module's tree."""
    found = []
    for node in ast.walk(tree):
        div = isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
        if div and _is_peak(node.left) and _is_bw(node.right):
            found.append((node.lineno, "ridge P / beta"))
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        args, func = node.args, node.func.id
        if len(args) != 2:
            continue
        if func == "min" and any(map(_is_peak, args)) and any(_times(a, _is_bw) for a in args):
            found.append((node.lineno, "attainable min(P, I beta)"))
        over_p, over_b = (any(_divides_by(a, t) for a in args) for t in (_is_peak, _is_bw))
        if func == "max" and over_p and over_b:
            found.append((node.lineno, "bound max(F / P, D / beta)"))
    return found


def test_the_scan_finds_each_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    source = (
        "r = chip.peak / chip.mem_bw\n"
        "a = min(peak, i * bw)\n"
        "t = max(f / peak, d / beta)\n"
        "ok = ridge_point(peak, bw) + attainable_flops(i, peak, bw)\n")  # fmt: skip
    assert [line for line, _ in copies(ast.parse(source))] == [1, 2, 3]
    # No module of common/ or lectures/ writes the ridge, the roof or the bound itself.
    modules = sorted((ROOT / "common").rglob("*.py")) + sorted((ROOT / "lectures").rglob("*.py"))
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in modules if path not in SKIP
             for line, what in copies(ast.parse(path.read_text(encoding="utf-8")))]  # fmt: skip
    assert not found, "call common.formulas.roofline instead:\n" + "\n".join(found)
    # Chip.ridge_point, below formulas (tests/test_layout.py), is P / beta by hand for every
    # chip and precision: tests/tables/test_hw_specs.py
    # The figures take the ridge and the roof from the one function (lecture 09's too).
    monkeypatch.setattr(plots_roofline, "ridge_point", lambda peak, bw: 7.0)
    assert plots_roofline.x_range([("chip", 1e12, 1e12)], [])[1] == 10 ** math.ceil(
        math.log10(7.0 * 3)
    )
    # Lecture 11's words take compute- or memory-bound from roofline.time_bounds.
    row = predict_and_check.OpRow(
        name="mm", n=1, flops=1e12, nbytes=1e6, measured=1.0, spec=1.0, achievable=1.0)  # fmt: skip
    spec = Roofs(label="spec", peak=1e12, mem_bw=1e12, link_bw=1e9)
    # Compute-bound by the formula (1 s of math against 1 us of traffic): FLOP/s.
    assert predict_and_check._achieved(row, spec).endswith("FLOP/s")
    swapped = {"compute": 0.0, "memory": 1.0, "lower": 1.0, "bound": "memory"}
    monkeypatch.setattr(predict_and_check, "time_bounds", lambda *a: swapped)
    assert predict_and_check._achieved(row, spec).endswith("B/s")
