"""The fence: the course (``common/``, ``lectures/``) never imports, names or branches on the
site's Run panel; its chart adapter gets the figures through ``common.shell.sink``, where every
figure function of ``common.plots`` hands its arguments when a host has taken the figures."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest
from conftest import REPO

import common.plots
from common.plots.roofline import roofline_figure
from common.present.display import figure
from common.shell import sink

COURSE = sorted(p for d in ("common", "lectures") for p in (REPO / d).rglob("*.py")
                if "__pycache__" not in p.parts)  # fmt: skip
#: What only the panel's harness is called: its files, its environment, its runtime.
PANEL_WORDS = re.compile(
    r"run[- ]it[- ]here|run panel|ROOFLINE_PANEL_|panel_draws|present\.live|\blive\.\w|"
    r"import live\b|pyodide|vega|harness|runner|_static",
    re.IGNORECASE,
)


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.relative_to(REPO).as_posix())
def test_the_course_never_names_the_panel(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = [
        f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
        for m in PANEL_WORDS.finditer(text)]  # fmt: skip
    assert found == [], f"{path.relative_to(REPO)} names the site's panel: {found}"
    imports = {
        n.module or "" for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ImportFrom)
    } | {a.name for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in imports if m.split(".")[0] in ("docs", "runner", "rl_harness")}


def test_every_figure_function_routes_through_the_sink(tmp_path: Path) -> None:
    plots = [f"common.plots.{m.name}" for m in pkgutil.iter_modules(common.plots.__path__)]
    # every public function of common.plots whose first argument is the PNG's path
    functions = [
        (f"{module}.{name}", fn)
        for module in plots
        for name, fn in vars(importlib.import_module(module)).items()
        if inspect.isfunction(fn) and fn.__module__ == module and name.endswith("_figure")
        if not name.startswith("_") and list(inspect.signature(fn).parameters)[:1] == ["path"]
    ]
    assert len(functions) >= 10  # roofline, article, hierarchy, attention, ... figures
    unrouted = [name for name, fn in functions if not hasattr(fn, "__wrapped__")]
    assert unrouted == [], "decorate with common.plots.style.figure"
    assert not (REPO / "common" / "present" / "live.py").exists()
    assert (REPO / "docs" / "_static" / "runner" / "live.py").is_file()
    taken: list[tuple[str, dict]] = []
    target = tmp_path / "roof.png"
    sink.divert(lambda name, data: taken.append((name, data)))
    try:
        assert sink.diverted()
        path = roofline_figure(target, [("X", 100e12, 1e12)], [("p", 10.0, 10e12)], title="T")
        shown = str(figure(target, "what to look at"))
    finally:
        sink.divert(None)
    assert path == str(target) and not target.exists()  # nothing drawn here
    assert shown == ""  # the host shows the figure: no "saved figure" line
    (name, data), (cap, said) = taken
    assert name == "common.plots.roofline.roofline_figure"
    assert data["curves"] == [("X", 100e12, 1e12)] and data["title"] == "T"
    assert data["placed_on"] is None  # defaults are handed too
    assert cap == "caption" and said["caption"] == "what to look at"
    assert not sink.diverted() and not sink.hand("anything", {})
