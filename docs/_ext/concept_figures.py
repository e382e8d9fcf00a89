"""``.. course-figure:: NAME`` (``:draw: EXPR`` writing ``PATH``, ``:alt:``, a caption): a
figure drawn by ``common.plots`` at build time, with the names of the ``:computed:`` role,
the `PLOT_MODULES` and the two helpers below."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.parsing import nested_parse_to_nodes

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

    peak = chip.peak_flops(precision)
    points = []
    for label, flop, nbytes in ops:
        i = intensity(flop, nbytes)
        points.append((label, i, attainable_flops(i, peak, chip.mem_bw)))
    return points


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
    option_spec: ClassVar[dict[str, Any]] = {
        "draw": directives.unchanged_required,
        "alt": directives.unchanged_required,
    }

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

        for dependency in computed.module_files():
            self.env.note_dependency(dependency)
        for module in (*PLOT_MODULES, "style"):
            self.env.note_dependency(importlib.import_module(f"common.plots.{module}").__file__)
        uri = "/" + (FIGURES_SUBDIR / path.name).as_posix()
        alt = self.options["alt"]
        rst = docs_hooks.figure_block(uri, alt, self.content, "rl-figure-img", f"figure-{name}")
        return nested_parse_to_nodes(self.state, rst, source=f"course-figure {name}")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the course-figure directive."""
    app.add_directive("course-figure", CourseFigureDirective)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
