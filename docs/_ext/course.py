"""Directives that build the course's reference pages from the code, at build time.

- ``.. hardware-table:: figures | ridge-points | bytes-per-element`` renders
  ``common.hw_specs`` (every figure with its unit, source and estimate flag; the
  ridge point of every chip at every precision; bytes per element), so the site
  can never disagree with the hardware table.
- ``.. exercise:: KEY`` renders one exercise of ``common.exercises``: a section
  with the question, and the worked answer (computed now) inside a ``<details>``
  element that opens on click, with no JavaScript and no network.
- ``.. common-api::`` documents every module of the ``common`` package with
  autodoc, so a new module appears without editing the page.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.parsing import nested_parse_to_nodes


# ---------------------------------------------------------------------------
# <details>/<summary> nodes: a reveal that works offline and without scripts
# ---------------------------------------------------------------------------
class details(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """A collapsible block (HTML ``<details>``), closed until its summary is clicked."""


class summary(nodes.General, nodes.TextElement):  # noqa: N801
    """The always-visible line of a ``details`` block (HTML ``<summary>``)."""


def _visit_details_html(self: Any, node: details) -> None:
    self.body.append(self.starttag(node, "details"))


def _depart_details_html(self: Any, node: details) -> None:
    self.body.append("</details>\n")


def _visit_summary_html(self: Any, node: summary) -> None:
    self.body.append(self.starttag(node, "summary", suffix=""))


def _depart_summary_html(self: Any, node: summary) -> None:
    self.body.append("</summary>\n")


def _pass(self: Any, node: nodes.Node) -> None:
    """Other builders render the children as ordinary content."""


# ---------------------------------------------------------------------------
# Small node builders
# ---------------------------------------------------------------------------
_CODE = re.compile(r"``(.+?)``")


def inline(text: str) -> list[nodes.Node]:
    """Plain text with ``code`` spans turned into literal nodes (no other markup)."""
    parts: list[nodes.Node] = []
    pos = 0
    for match in _CODE.finditer(text):
        if match.start() > pos:
            parts.append(nodes.Text(text[pos : match.start()]))
        parts.append(nodes.literal(match.group(1), match.group(1)))
        pos = match.end()
    if pos < len(text):
        parts.append(nodes.Text(text[pos:]))
    return parts


def paragraph(text: str) -> nodes.paragraph:
    """A paragraph from plain text (see `inline`)."""
    return nodes.paragraph("", "", *inline(text))


def build_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    title: str = "",
    classes: Sequence[str] = (),
) -> nodes.table:
    """A docutils table of text cells with a header row and an optional title."""
    table = nodes.table(classes=["course-table", *classes])
    if title:
        table += nodes.title("", "", *inline(title))
    group = nodes.tgroup(cols=len(headers))
    table += group
    for _ in headers:
        group += nodes.colspec(colwidth=1)

    def row(cells: Sequence[str]) -> nodes.row:
        r = nodes.row()
        for cell in cells:
            r += nodes.entry("", paragraph(str(cell)) if str(cell) else nodes.paragraph())
        return r

    head = nodes.thead()
    head += row(headers)
    group += head
    body = nodes.tbody()
    for cells in rows:
        body += row(cells)
    group += body
    return table


# ---------------------------------------------------------------------------
# Hardware table
# ---------------------------------------------------------------------------
_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si_value(value: float, unit: str) -> str:
    """Decimal SI with up to 4 significant digits: si_value(1555e9, 'B/s') == '1.555 TB/s'."""
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.4g} {prefix}{unit}"
    return f"{value:.4g} {unit}"


def figure_rows(chip: Any) -> list[tuple[str, str, str, str, str]]:
    """One row per figure of a chip: figure, value with unit, estimate flag, source, note."""
    return [
        (
            label,
            si_value(fig.value, fig.unit),
            "estimate" if fig.estimate else "",
            fig.source,
            fig.note,
        )
        for label, fig in chip.figures()
    ]


def all_precisions(chips: Iterable[Any]) -> list[str]:
    """Every precision any chip has a peak for, in order of first appearance."""
    seen: dict[str, None] = {}
    for chip in chips:
        for precision in chip.precisions:
            seen.setdefault(precision, None)
    return list(seen)


def ridge_rows(chips: Sequence[Any]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the ridge-point table: I* = peak / bandwidth per precision."""
    precisions = all_precisions(chips)
    headers = ["chip", "memory bandwidth", *[f"I* {p} (FLOP/B)" for p in precisions]]
    rows = []
    for chip in chips:
        cells = [chip.name, si_value(chip.mem_bw, "B/s")]
        for p in precisions:
            cells.append(f"{chip.ridge_point(p):,.1f}" if p in chip.precisions else "—")
        rows.append(cells)
    return headers, rows


class HardwareTableDirective(SphinxDirective):
    """``.. hardware-table:: figures | ridge-points | bytes-per-element``."""

    required_arguments = 1
    KINDS: ClassVar[tuple[str, ...]] = ("figures", "ridge-points", "bytes-per-element")

    def run(self) -> list[nodes.Node]:
        from common import hw_specs

        kind = self.arguments[0].strip()
        self.env.note_dependency(hw_specs.__file__)
        chips = list(hw_specs.CHIPS.values())
        if kind == "figures":
            headers = ("figure", "value", "estimate?", "source", "note")
            return [
                build_table(
                    headers,
                    figure_rows(chip),
                    f"{chip.name} (key ``{chip.key}``)",
                    classes=["hw-figures"],
                )
                for chip in chips
            ]
        if kind == "ridge-points":
            headers, rows = ridge_rows(chips)
            return [build_table(headers, rows, classes=["ridge-table"])]
        if kind == "bytes-per-element":
            rows = [
                (precision, f"{nbytes:g}", f"{nbytes * 8:g}")
                for precision, nbytes in hw_specs.BYTES_PER_ELEM.items()
            ]
            headers = ("precision", "bytes per element", "bits per element")
            return [build_table(headers, rows, classes=["bytes-table"])]
        raise self.error(f"unknown hardware table {kind!r}; use one of: {', '.join(self.KINDS)}")


# ---------------------------------------------------------------------------
# Exercises
# ---------------------------------------------------------------------------
def answer_nodes(answer: Any, docname: str) -> list[nodes.Node]:
    """Formula (display math), steps (paragraphs) and table of a worked answer."""
    out: list[nodes.Node] = []
    if answer.formula:
        math = nodes.math_block(answer.formula, answer.formula)
        for key, value in (("docname", docname), ("number", None), ("label", None)):
            math[key] = value
        math["nowrap"] = False
        out.append(math)
    out.extend(paragraph(step) for step in answer.steps)
    if answer.table is not None:
        out.append(build_table(answer.table.headers, answer.table.rows))
    return out


class ExerciseDirective(SphinxDirective):
    """``.. exercise:: KEY``: title, question and a hidden worked answer, computed now."""

    required_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {"underline": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        from common import exercises

        try:
            exercise = exercises.get_exercise(self.arguments[0].strip())
            answer = exercise.solve()
        except ValueError as exc:
            raise self.error(str(exc)) from None
        self.env.note_dependency(exercises.__file__)
        char = (self.options.get("underline") or "~")[:1]
        heading = (
            f".. _exercise-{exercise.key}:\n\n{exercise.title}\n{char * len(exercise.title)}\n"
        )
        parsed = nested_parse_to_nodes(self.state, heading, source=f"exercise {exercise.key}")
        section = next(n for n in parsed if isinstance(n, nodes.section))
        section["classes"].append("exercise")
        section += nodes.paragraph("", "", nodes.emphasis("", f"From {exercise.origin}."))
        section += paragraph(exercise.question)
        reveal = details(classes=["exercise-answer"])
        reveal += summary("", "Worked answer")
        body = nodes.container(classes=["exercise-answer-body"])
        body.extend(answer_nodes(answer, self.env.docname))
        reveal += body
        section += reveal
        return parsed


# ---------------------------------------------------------------------------
# API of the common package
# ---------------------------------------------------------------------------
#: Modules that only re-export names documented in their home module.
REEXPORTS = ("common.console", "common.roofline", "common.exercises.__main__")


def common_modules() -> list[str]:
    """Every module of the ``common`` package and its subpackages, sorted by name."""
    package = importlib.import_module("common")
    found = pkgutil.walk_packages(package.__path__, prefix="common.")
    return sorted(m.name for m in found if m.name not in REEXPORTS)


class CommonApiDirective(SphinxDirective):
    """``.. common-api::``: one section per module of ``common``, documented by autodoc."""

    def run(self) -> list[nodes.Node]:
        lines: list[str] = []
        for name in common_modules():
            lines += [
                f".. _api-{name}:",
                "",
                f"``{name}``",
                "-" * (len(name) + 4),
                "",
                f".. automodule:: {name}",
                "   :members:",
                "   :show-inheritance:",
                "",
            ]
        return nested_parse_to_nodes(self.state, "\n".join(lines), source="common-api")


# ---------------------------------------------------------------------------
# Offline MathJax: keep what the pages load
# ---------------------------------------------------------------------------
#: Stand-alone MathJax bundles that sphinx-mathjax-offline copies but no page loads: the
#: pages load ``tex-chtml.js``, which fetches its extra components from the subfolders.
UNUSED_MATHJAX_BUNDLES = (
    "latest.js",  # would fetch MathJax from a CDN
    "mml-chtml.js",
    "mml-svg.js",
    "node-main.js",
    "tex-chtml-full-speech.js",
    "tex-chtml-full.js",
    "tex-mml-chtml.js",
    "tex-mml-svg.js",
    "tex-svg-full.js",
    "tex-svg.js",
)


def prune_mathjax(app: Sphinx, exception: Exception | None) -> None:
    """Delete the unused MathJax bundles from the built site (about 16 MB)."""
    if exception is not None or app.builder.format != "html":
        return
    if app.config.mathjax_path != "mathjax/tex-chtml.js":
        return
    folder = Path(app.outdir) / "_static" / "mathjax"
    for name in UNUSED_MATHJAX_BUNDLES:
        (folder / name).unlink(missing_ok=True)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the nodes, directives and the MathJax pruning."""
    app.connect("build-finished", prune_mathjax, priority=900)  # after the copy (500)
    passthrough = (_pass, _pass)
    app.add_node(
        details,
        html=(_visit_details_html, _depart_details_html),
        latex=passthrough,
        text=passthrough,
        man=passthrough,
        texinfo=passthrough,
    )
    app.add_node(
        summary,
        html=(_visit_summary_html, _depart_summary_html),
        latex=passthrough,
        text=passthrough,
        man=passthrough,
        texinfo=passthrough,
    )
    app.add_directive("hardware-table", HardwareTableDirective)
    app.add_directive("exercise", ExerciseDirective)
    app.add_directive("common-api", CommonApiDirective)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
