"""Directives that build the reference pages from the code: ``hardware-table``,
``exercise`` (its worked answer in a closed, unsearched dropdown), ``common-api``
(autodoc of a part of ``common``; a module on no page fails the build) and
``course-figure`` (``:draw: EXPR`` writing ``PATH``, ``:alt:``, a caption: a figure drawn
by ``common.plots`` at build time, with the names of the ``:computed:`` role, the
`PLOT_MODULES` and the helpers `chip_roofs` and `on_roof`)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.parsing import nested_parse_to_nodes

from common.present.console import fmt_pct, fmt_si

logger = logging.getLogger(__name__)


def inline(text: str) -> list[nodes.Node]:
    """Plain text with ``code`` spans turned into literal nodes (no other markup)."""
    parts = re.split(r"``(.+?)``", text)
    return [nodes.literal(p, p) if i % 2 else nodes.Text(p) for i, p in enumerate(parts) if p]


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

    def row(cells: Sequence[str]) -> nodes.row:
        return nodes.row("", *(nodes.entry("", paragraph(str(cell))) for cell in cells))

    body = nodes.tbody("", *(row(cells) for cells in rows))
    table += nodes.tgroup("", *(nodes.colspec(colwidth=1) for _ in headers),
                          nodes.thead("", row(headers)), body, cols=len(headers))  # fmt: skip
    return table


class HardwareTableDirective(SphinxDirective):
    """``.. hardware-table:: figures | ridge-points | bytes-per-element``."""

    required_arguments = 1
    KINDS = ("figures", "ridge-points", "bytes-per-element", "achievable")

    def run(self) -> list[nodes.Node]:
        import computed  # docs/_ext, on the build's path (conf.py)

        from common import hw_specs

        kind = self.arguments[0].strip()
        self.env.note_dependency(hw_specs.__file__)
        chips = list(hw_specs.CHIPS.values())
        # The headers' words in the page's language, from its catalog (as :computed: phrases).
        config = getattr(self.env, "config", None)  # None: parsed by docutils alone (tests)
        if config is not None and (config.language or "en") != "en":
            say = computed.page_translator(self.env, self.lineno)
        else:
            found = self.state.document.setdefault(computed.PHRASES, [])
            say = lambda text: found.append((text, self.lineno)) or text  # noqa: E731
        if kind == "figures":
            headers = tuple(map(say, ("figure", "value", "source and note")))
            return [  # a row per figure: its value with unit (and 'estimate'), source and note
                build_table(headers, [
                    (label, fmt_si(f.value, f.unit) + " (estimate)" * f.estimate,
                     f"{f.source}; {f.note}" if f.note else f.source)
                    for label, f in chip.figures()
                ], f"{chip.name} (key ``{chip.key}``)", ["hw-figures"])  # title: in the catalog
                for chip in chips]  # fmt: skip
        if kind == "achievable":
            named = ("chip", "roof", "spec", "achievable (measured)", "of spec", "measured by")
            headers = tuple(map(say, named))
            rows, sources = [], {}  # (chip, roof, spec, achievable, share, '[k] note'), source: k
            for chip in chips:
                for label, spec, achieved in chip.achievable_figures():
                    spec_text = fmt_si(spec.value, spec.unit)
                    if achieved is None:
                        rows.append((chip.name, label, spec_text, "none published", "—", "—"))
                        continue
                    ref = f"[{sources.setdefault(achieved.source, len(sources) + 1)}]"
                    note = f"{ref} {achieved.note}" if achieved.note else ref
                    got = fmt_si(achieved.value, achieved.unit)
                    share = fmt_pct(achieved.value / spec.value, 1)
                    rows.append((chip.name, label, spec_text, got, share, note))
            listed = nodes.enumerated_list(enumtype="arabic", prefix="[", suffix="]")
            for source in sources:
                listed += nodes.list_item("", paragraph(source))
            return [build_table(headers, rows, classes=["hw-achievable"]), listed]
        if kind == "ridge-points":  # I* = peak / bandwidth per precision
            precisions = list(dict.fromkeys(p for chip in chips for p in chip.precisions))
            headers = [say("chip"), say("memory bandwidth")]
            headers += [f"I* {p} (FLOP/B)" for p in precisions]
            rows = [[c.name, fmt_si(c.mem_bw, "B/s")] for c in chips]
            for c, row in zip(chips, rows, strict=True):
                row += [
                    f"{c.ridge_point(p):,.1f}" if p in c.precisions else "—" for p in precisions
                ]
            return [build_table(headers, rows, classes=["ridge-table"])]
        if kind == "bytes-per-element":
            rows = [(p, f"{b:g}", f"{b * 8:g}") for p, b in hw_specs.BYTES_PER_ELEM.items()]
            headers = tuple(map(say, ("precision", "bytes per element", "bits per element")))
            return [build_table(headers, rows, classes=["bytes-table"])]
        raise self.error(f"unknown hardware table {kind!r}; use one of: {', '.join(self.KINDS)}")


class ExerciseDirective(SphinxDirective):
    """``.. exercise:: KEY``: title, question and a hidden worked answer, computed now."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        from sphinx_design.shared import create_component

        from common import exercises
        from common.hw_specs import MissingFigureError

        try:
            exercise = exercises.get_exercise(self.arguments[0].strip())
            answer = exercise.solve()
        except MissingFigureError as exc:  # an edited table without a figure it needs
            answer = None
            missing = f"No worked answer with this table: {exc}."
        except ValueError as exc:
            raise self.error(str(exc)) from None
        self.env.note_dependency(exercises.__file__)
        heading = f".. _exercise-{exercise.key}:\n\n{exercise.title}\n{'~' * len(exercise.title)}\n"
        parsed = nested_parse_to_nodes(self.state, heading, source=f"exercise {exercise.key}")
        section = next(n for n in parsed if isinstance(n, nodes.section))
        section["classes"].append("exercise")
        links = {  # the origin linked to the statement it names in the sources
            exercises.ARTICLE: ":ref:`the article, section 09 <sources-article-09>`",
            exercises.SCRIPT: (
                ":ref:`the lecture script <sources-script>`'s exercises from "
                ":ref:`How to Scale Your Model <sources-book>`"
            )}  # fmt: skip
        origin = f"From {links.get(exercise.origin, exercise.origin)}."
        for node in nested_parse_to_nodes(self.state, origin, source="exercise origin"):
            node["classes"].append("exercise-origin")
            section += node
        section += paragraph(exercise.question)
        if answer is None:
            section += paragraph(missing)
            return parsed
        body: list[nodes.Node] = []  # formula (display math), steps and table
        if f := answer.formula:
            body.append(nodes.math_block(f, f, docname=self.env.docname, number=None, label=None))
        body += [paragraph(step) for step in answer.steps]
        if answer.table is not None:
            body.append(build_table(answer.table.headers, answer.table.rows))
        # A sphinx-design dropdown titled "Worked answer", closed until clicked (<details>).
        classes = ["exercise-answer", "no-search"]  # no-search: out of the index and snippets
        section += create_component(
            "dropdown",
            classes,  # for the transforms that run before sphinx-design's (runner.py)
            children=[nodes.rubric("Worked answer", "Worked answer"), *body],
            opened=False, type="dropdown", has_title=True, icon=None, chevron=None,
            container_classes=["sd-mb-3", *classes],  # on the <details> sphinx-design writes
            title_classes=[], body_classes=["exercise-answer-body"])  # fmt: skip
        return parsed


#: Modules that only re-export names documented in their home module.
REEXPORTS = ("common.console", "common.roofline", "common.exercises.__main__")


def common_modules() -> list[str]:
    """Every module of the ``common`` package and its subpackages, sorted by name."""
    found = pkgutil.walk_packages(importlib.import_module("common").__path__, prefix="common.")
    return sorted(m.name for m in found if m.name not in REEXPORTS)


def modules_of(part: str) -> list[str]:
    """``common.<part>`` and its modules (a package), or the one module ``common.<part>``."""
    name = f"common.{part}"
    return [m for m in common_modules() if m == name or m.startswith(name + ".")]


class CommonApiDirective(SphinxDirective):
    """``.. common-api:: PART``: ``common.PART``, its docstring then a section per module."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        part = self.arguments[0].strip()
        names = modules_of(part)
        if not names:
            raise self.error(f"common.{part} is not a module or subpackage of common")
        # Docstrings hold code (unit="FLOP", --png): no typographic quotes on this page.
        self.state.document.settings.smart_quotes = False
        lines: list[str] = []
        for name in names:
            if name == f"common.{part}" and len(names) > 1:
                lines += [f".. automodule:: {name}", ""]  # the package's own docstring
                continue
            lines += [f".. _api-{name}:", ""]
            if len(names) > 1:
                lines += [f"``{name}``", "-" * (len(name) + 4), ""]
            lines += [f".. automodule:: {name}", "   :members:", "   :show-inheritance:", ""]
        return nested_parse_to_nodes(self.state, "\n".join(lines), source="common-api")


def check_api_pages(app: Sphinx, env: Any) -> None:
    """Every module of ``common`` is documented on an API page (a warning, so -W fails)."""
    pattern = re.compile(r"^\.\. common-api:: *(\S+)", re.M)
    texts = (Path(env.doc2path(doc)).read_text("utf-8") for doc in env.all_docs)
    documented = {m for text in texts for part in pattern.findall(text) for m in modules_of(part)}
    missing = [m for m in common_modules() if m not in documented]
    if missing and "api" in env.all_docs:
        logger.warning("modules of common on no API page: %s; add `.. common-api:: PART` to a page "
                       "under docs/api/", ", ".join(missing))  # fmt: skip


def hide_unreadable_values(app: Sphinx, doctree: nodes.document) -> None:
    """Drop the ``= value`` of module data that names the build machine's files or runs past
    400 characters (five lines at 1280 px): a table of records, which its docstring describes."""
    roots = [r for r in (str(Path(app.srcdir).resolve().parent), str(Path.home())) if len(r) > 1]
    for sig in doctree.findall(addnodes.desc_signature):
        desc = sig.parent
        if desc.get("domain") != "py" or desc.get("objtype") not in ("data", "attribute"):
            continue
        try:  # a path, or text holding one
            value = pkgutil.resolve_name(f"{sig.get('module')}:{sig.get('fullname')}")
        except (ImportError, AttributeError, ValueError):
            continue
        text = repr(value)
        if not (isinstance(value, os.PathLike) or len(text) > 400 or any(r in text for r in roots)):
            continue
        for annotation in list(sig.findall(addnodes.desc_annotation)):
            if "=" in [p.astext() for p in annotation.findall(addnodes.desc_sig_punctuation)]:
                annotation.parent.remove(annotation)


def keep_flags_whole(app: Sphinx, doctree: nodes.document) -> None:
    """Mark literals with a hyphen (``--model``, ``python3 -m x``, ``vllm-single-step``): CSS
    keeps their words off the line break a browser would otherwise take at a hyphen."""
    for literal in doctree.findall(nodes.literal):
        if "-" in literal.astext():
            literal["classes"].append("rl-flag")


def skip_field_aliases(app: Sphinx, what: str, name: str, obj: Any, *rest: Any) -> bool | None:
    """Leave out a NamedTuple's field accessors ("Alias for field number N")."""
    return True if (getattr(obj, "__doc__", None) or "").startswith("Alias for field") else None


#: The top-level MathJax files a page loads; the other bundles (``latest.js``: a CDN) go.
KEPT_MATHJAX = ("tex-chtml.js", "core.js", "loader.js", "startup.js")
#: Components no page loads (SVG output, other inputs, speech rules of other languages).
UNUSED_MATHJAX = (
    "output/svg.js", "output/svg", "input/mml.js", "input/mml", "input/asciimath.js",
    "input/tex-full.js", *(f"sre/mathmaps/{x}.json" for x in ("ca", "da", "de", "es", "fr")),
    *(f"sre/mathmaps/{x}.json" for x in ("hi", "it", "nb", "nn", "sv")))  # fmt: skip


def prune_mathjax(app: Sphinx, exception: Exception | None) -> None:
    """Delete the MathJax bundles and components no page loads from the built site."""
    html = exception is None and app.builder.format == "html"
    if not html or app.config.mathjax_path != "mathjax/tex-chtml.js":
        return
    root = Path(app.outdir) / "_static" / "mathjax"
    for bundle in root.glob("*.js"):
        if bundle.name not in KEPT_MATHJAX:
            bundle.unlink()
    for unused in UNUSED_MATHJAX:
        path = root / unused
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)


FIGURES_SUBDIR = Path("_build") / "concept_figures"  # relative to the docs folder
PLOT_MODULES = ("roofline", "article", "hierarchy", "transformer")


def chip_roofs(chips: Iterable[Any], precision: str) -> list[tuple[str, float, float]]:
    """(label, peak FLOP/s, bandwidth B/s) of each chip at one precision, for roofline_figure."""
    return [(f"{c.name}, {precision}", c.peak_flops(precision), c.mem_bw) for c in chips]


def on_roof(
    chip: Any, precision: str, ops: Sequence[tuple[str, float, float]]
) -> list[tuple[str, float, float]]:
    """Operators (label, F FLOP, D bytes) as points on a chip's roof: (label, I, min(P, I beta))."""
    from common.formulas.roofline import attainable_flops, intensity

    peak, placed = chip.peak_flops(precision), [(label, intensity(f, d)) for label, f, d in ops]
    return [(label, i, attainable_flops(i, peak, chip.mem_bw)) for label, i in placed]


def draw(expression: str, path: Path) -> Path:
    """Evaluate a figure expression that writes `path` over the :computed: names, the plot
    modules, PATH and the helpers above; ValueError with a one-line reason."""
    import computed

    namespace = computed.build_namespace()  # a fresh dict per figure
    namespace |= {name: importlib.import_module(f"common.plots.{name}") for name in PLOT_MODULES}
    namespace.update(PATH=str(path), chip_roofs=chip_roofs, on_roof=on_roof)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        eval(compile(expression.strip(), "<course-figure>", "eval"), namespace)
    except Exception as exc:
        raise ValueError(f"cannot draw {path.name}: {type(exc).__name__}: {exc}") from exc
    if not path.is_file():
        raise ValueError(f"the :draw: expression did not write {path.name} (pass it PATH)")
    return path


class CourseFigureDirective(SphinxDirective):
    """``.. course-figure:: NAME`` with ``:draw: EXPR``, ``:alt: TEXT`` and a caption."""

    required_arguments = 1
    has_content = True
    option_spec: ClassVar[dict[str, Any]] = {"draw": directives.unchanged_required,
                                             "alt": directives.unchanged_required}  # fmt: skip

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0].strip()
        if not name.replace("-", "").isalnum():
            raise self.error(f"figure name {name!r}: use letters, digits and dashes")
        if "draw" not in self.options or "alt" not in self.options:
            raise self.error("course-figure needs :draw: and :alt:")
        if not "".join(self.content).strip():
            raise self.error(f"figure {name}: write a caption that says what to look at")
        path = Path(self.env.srcdir) / FIGURES_SUBDIR / f"{name}.png"
        try:
            draw(self.options["draw"], path)
        except ValueError as exc:
            raise self.error(str(exc)) from None
        import computed
        import docs_hooks

        plots = [importlib.import_module(f"common.plots.{m}") for m in (*PLOT_MODULES, "style")]
        for dependency in [*computed.module_files(), *(p.__file__ for p in plots)]:
            self.env.note_dependency(dependency)
        uri = "/" + (FIGURES_SUBDIR / path.name).as_posix()
        alt = self.options["alt"]
        rst = docs_hooks.figure_block(uri, alt, self.content, "rl-figure-img", f"figure-{name}")
        return nested_parse_to_nodes(self.state, rst, source=f"course-figure {name}")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the nodes, directives and the MathJax pruning."""
    app.connect("build-finished", prune_mathjax, priority=900)  # after the copy (500)
    app.add_directive("hardware-table", HardwareTableDirective)
    app.add_directive("exercise", ExerciseDirective)
    app.add_directive("common-api", CommonApiDirective)
    app.add_directive("course-figure", CourseFigureDirective)
    app.connect("autodoc-skip-member", skip_field_aliases)
    app.connect("doctree-read", hide_unreadable_values)
    app.connect("doctree-read", keep_flags_whole)
    app.connect("env-check-consistency", check_api_pages)
    # Search results quote prose only (no answers, code or TeX): docs/_static/search-snippets.js.
    app.add_js_file("search-snippets.js", defer="defer")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
