"""A lecture's declared interface, read without running it: its flags and its ``ABOUT``.

`declared_parser` runs only the imports above a lecture's ``make_parser()`` and that
definition; `declared` reads the ``ABOUT`` dict literal (fields `FIELDS`, all optional)
unrun. The docs, the measuring budget and the tests read them: nothing else registers a
lecture.
"""

from __future__ import annotations

import argparse
import ast
import os
from pathlib import Path
from typing import Any

INTERFACE = "make_parser"  # the function every lecture declares
ABOUT = "ABOUT"  # the dict literal in which a lecture says what it is
#: The fields of ``ABOUT``: name -> (type, what it says).
FIELDS: dict[str, tuple[type, str]] = {
    "flags": (tuple, "the flags a reader is offered when the lecture is rerun off the terminal"),
    "chip": (str, "the chip the lecture is about, when it has no --chip flag"),
    "figure": (bool, "its main figure can be redrawn from a run's data"),
    "terms": (tuple, "what the lecture is about: the terms search lists it first for"),
    "budget": (tuple, "its measuring budget: (seconds of a whole run, GiB of memory)"),
    "bare": (bool, "it runs on a bare python3 (standard library only)"),
    "needs": (tuple, "packages beyond the course's it needs to run (without them: shown unrun)"),
}


def declared_parser(lecture: str | os.PathLike[str]) -> argparse.ArgumentParser:
    """The parser lecture file `lecture` declares (its ``make_parser()``); else ValueError."""
    path = Path(lecture)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    kept: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom) and not _opening(node, path.parent):
            kept.append(node)
        elif _declares(node):
            kept.append(node)
            break
    else:
        raise ValueError(f"{path.name} declares no {INTERFACE}() at module level")
    namespace = {"__name__": "__lecture_interface__", "__file__": str(path)}
    namespace["__doc__"] = ast.get_docstring(tree, clean=False)
    exec(compile(ast.Module(kept, type_ignores=[]), str(path), "exec"), namespace)
    parser = namespace[INTERFACE]()
    if not isinstance(parser, argparse.ArgumentParser):
        raise ValueError(f"{path.name}: {INTERFACE}() returned {type(parser).__name__}")
    return parser


def _opening(node: ast.Import | ast.ImportFrom, folder: Path) -> bool:
    """True for an import of a module beside the lecture: its opening, which sets up a run."""
    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    return all((folder / f"{name.split('.')[0]}.py").is_file() for name in names)


def _declares(node: ast.stmt, name: str = INTERFACE) -> bool:
    """True for ``def make_parser(...)`` and ``make_parser = ...`` (a partial of a shared one)."""
    if isinstance(node, ast.FunctionDef):
        return node.name == name
    return isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [name]


def declared(lecture: str | os.PathLike[str]) -> dict[str, Any]:
    """What lecture file `lecture` says of itself: its ``ABOUT`` literal, read unrun ({} when
    it has none); ValueError naming the file for a field not in FIELDS or of the wrong type."""
    path = Path(lecture)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    node = next((n for n in tree.body if _declares(n, ABOUT) and isinstance(n, ast.Assign)), None)
    if node is None:
        return {}
    try:
        about = ast.literal_eval(node.value)
    except ValueError:
        about = None
    if not isinstance(about, dict):
        raise ValueError(f"{path.name}, line {node.lineno}: {ABOUT} must be a dict literal")
    for key, value in about.items():
        if key not in FIELDS:
            raise ValueError(
                f"{path.name}: {ABOUT} has no field {key!r}; it has {', '.join(FIELDS)}"
            )
        if not isinstance(value, FIELDS[key][0]):
            raise ValueError(f"{path.name}: {ABOUT}[{key!r}] must be a {FIELDS[key][0].__name__}")
    return about


def lectures(folder: str | os.PathLike[str]) -> dict[str, Path]:
    """The lecture files in `folder` (``NN_name.py``) by file stem, in order."""
    return {p.stem: p for p in sorted(Path(folder).glob("[0-9][0-9]_*.py"))}


def flag_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Every long flag of `parser` ('--png', ...) and the argparse action behind it."""
    return {s: a for a in parser._actions for s in a.option_strings if s.startswith("--")}
