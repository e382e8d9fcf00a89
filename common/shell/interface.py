"""A lecture's declared interface: its flags, read by the site without running the lecture.

Every lecture defines ``make_parser()`` at module level (a function, or a name bound
to a shared one): its argparse parser, built with ``common.shell.cli``. The lecture
runs on ``cli.parse_args(make_parser())``; the docs build calls
`declared_parser`, which executes only the lecture's module-level imports above
``make_parser`` and that definition, never the lecture's work. So ``make_parser()``
uses only what the lecture imports above it.
"""

from __future__ import annotations

import argparse
import ast
import os
from pathlib import Path

INTERFACE = "make_parser"  # the function every lecture declares


def declared_parser(lecture: str | os.PathLike[str]) -> argparse.ArgumentParser:
    """The parser lecture file `lecture` declares (its ``make_parser()``); else ValueError."""
    path = Path(lecture)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    kept: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
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


def _declares(node: ast.stmt) -> bool:
    """True for ``def make_parser(...)`` and ``make_parser = ...`` (a partial of a shared one)."""
    if isinstance(node, ast.FunctionDef):
        return node.name == INTERFACE
    return isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
        INTERFACE
    ]


def flag_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Every long flag of `parser` ('--png', ...) and the argparse action behind it."""
    return {s: a for a in parser._actions for s in a.option_strings if s.startswith("--")}
