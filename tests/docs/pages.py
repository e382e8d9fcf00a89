"""Read the course's rst pages with docutils alone (the docs' own :computed: role and
directives; Sphinx-only roles and directives stood in for by plain text): no Sphinx build."""

from __future__ import annotations

import functools
import re
from typing import Any

from conftest import REPO, load_extension
from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles

DOCS = REPO / "docs"
EXT = DOCS / "_ext"


def _text_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.Text(text.split("<")[0].strip() if "<" in text else text)], []


class _Skip(Directive):
    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = None

    def run(self) -> list:
        return []


class _AnyOptions(dict):
    """An option spec that takes every option as text (for directives left out here)."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str):
        return directives.unchanged


class _SkipFigure(_Skip):
    """``course-figure`` draws at build time (docs/_ext/course.py): no numbers."""

    option_spec = _AnyOptions()


class _FakeEnv:
    """What SphinxDirective.env needs here: a place to note dependencies."""

    docname = "page"

    def __init__(self) -> None:
        self.dependencies: list[str] = []

    def note_dependency(self, path: str) -> None:
        self.dependencies.append(str(path))


@functools.cache
def _register() -> None:
    computed = load_extension("computed")
    course = load_extension("course")
    roles.register_local_role("computed", computed.computed_role)
    for name in ("ref", "doc", "numref", "term"):
        roles.register_local_role(name, _text_role)
    for name in ("toctree", "literalinclude", "index"):
        directives.register_directive(name, _Skip)
    directives.register_directive("course-figure", _SkipFigure)
    directives.register_directive("hardware-table", course.HardwareTableDirective)
    directives.register_directive("exercise", course.ExerciseDirective)


def doctree(source: str, source_path: str = "page.rst") -> Any:
    """The parsed page, substitutions applied; a system message of level >= 2 is an error."""
    _register()
    return publish_doctree(
        source,
        source_path=source_path,
        settings_overrides={
            "report_level": 5,
            "halt_level": 2,
            "env": _FakeEnv(),
            "warning_stream": False,
        },
    )


@functools.cache
def page(name: str) -> Any:
    """docs/NAME.rst parsed (once per test run)."""
    path = DOCS / f"{name}.rst"
    return doctree(path.read_text(encoding="utf-8"), str(path))


def plain(text: str) -> str:
    """Page text with the computed role's no-break spaces (number and unit) as spaces."""
    return text.replace("\xa0", " ")


def substitutions(tree: Any) -> dict[str, str]:
    """|name| -> the text it stands for."""
    return {
        name: plain(node.astext())
        for node in tree.findall(nodes.substitution_definition)
        for name in node["names"]
    }


def tables(tree: Any) -> list[tuple[str, list[list[str]]]]:
    """Every table: (title, rows of cell texts, header row first)."""
    found = []
    for table in tree.findall(nodes.table):
        titles = [t.astext() for t in table.children if isinstance(t, nodes.title)]
        rows = [
            [plain(entry.astext()) for entry in row.findall(nodes.entry)]
            for row in table.findall(nodes.row)
        ]
        found.append((titles[0] if titles else "", rows))
    return found


def computed_expressions(text: str) -> list[str]:
    """Every :computed:`...` expression in an rst source, in order."""
    return re.findall(r":computed:`([^`]*)`", text)
