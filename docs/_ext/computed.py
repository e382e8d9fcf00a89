"""Sphinx role ``:computed:`expr```: quote a number computed from the hardware table.

Prose never types a derived number. It writes, for example::

    The A100 ridge point is :computed:`f"{A100.ridge_point('bf16'):.1f}"` FLOP/byte.

and the build evaluates the Python expression in a namespace that holds the public
names of ``common.hw_specs``, ``common.formulas.roofline``, ``common.formulas.ledger``,
``common.formulas.thresholds``, ``common.formulas.attention_io``,
``common.tables.assumptions``, ``common.tables.units``, ``common.present.console`` and
the claims vocabulary ``common.present.claims`` (a sentence's direction words, decided
from its numbers), plus ``math``, ``common.tables.sources`` as ``sources``, ``common.exercises`` as
``exercises`` (a worked answer quoted), ``common.formulas.serving`` as ``serving`` and
``common.tables.measurements`` as ``published``, then inserts the resulting
text, with a no-break space between a number and its unit so that a line never ends
between "138.41" and "MB". Edit a figure in ``common/hw_specs.py``, rebuild, and the
page follows.

An expression that needs a figure the table does not list (``MissingFigureError``: a chip
without an fp8 peak, a link or a shared-memory figure) gives "(not computed: why)" in
its place, so an edited table never fails the build. The expression must give a ``str``
or an ``int``: a float is refused so that every
quoted number carries an explicit format (``f"{x:.1f}"`` or a ``fmt_*`` helper). An
expression that fails is reported as an error at its source line, naming the
expression, so the build fails under ``-W``.
"""

from __future__ import annotations

import functools
import importlib
import math
import re
import sys
import types
from typing import Any

from docutils import nodes, utils
from sphinx.application import Sphinx
from sphinx.errors import SphinxError

from common.hw_specs import MissingFigureError

#: Modules whose public names the expressions can use.
NAMESPACE_MODULES: tuple[str, ...] = (
    "common.hw_specs",
    "common.formulas.roofline",
    "common.formulas.ledger",
    "common.formulas.thresholds",
    "common.formulas.attention_io",
    "common.tables.assumptions",
    "common.tables.units",
    "common.present.console",
    "common.present.claims",
)

#: Modules the expressions can use by name (``sources.ARTICLE_TITLE``), not flattened.
NAMED_MODULES = {
    "sources": "common.tables.sources",
    "exercises": "common.exercises",
    "serving": "common.formulas.serving",  # lecture 14's formulas (concepts/serving)
    "published": "common.tables.measurements",  # published figures with their sources
}


class ComputedError(SphinxError):
    """A :computed: expression could not be evaluated to text."""

    category = "computed role error"


def _defined_in(module: types.ModuleType) -> dict[str, Any]:
    """Public names `module` defines itself (not names it imported, not submodules)."""
    names: dict[str, Any] = {}
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        if type(value).__module__ == "__future__":
            continue  # `from __future__ import annotations`
        origin = getattr(value, "__module__", None)
        if (callable(value) or isinstance(value, type)) and origin != module.__name__:
            continue  # imported helpers such as dataclass or NamedTuple
        names[name] = value
    return names


def _same(a: object, b: object) -> bool:
    """True when two modules export one name with the same value (e.g. a shared constant)."""
    if a is b:
        return True
    try:
        return bool(type(a) is type(b) and a == b)
    except Exception:
        return False


@functools.lru_cache(maxsize=1)
def _base_namespace() -> types.MappingProxyType[str, Any]:
    """The shared, read-only namespace, built once per process."""
    namespace: dict[str, Any] = {"math": math}
    for alias, module_name in NAMED_MODULES.items():
        namespace[alias] = importlib.import_module(module_name)
    for module_name in NAMESPACE_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ComputedError(
                f"the :computed: role cannot import {module_name} ({exc}); "
                "is the repository root on sys.path in conf.py?"
            ) from exc
        for name, value in _defined_in(module).items():
            if name in namespace and not _same(namespace[name], value):
                raise ComputedError(
                    f"name clash in the :computed: namespace: {name!r} is defined by "
                    f"{module_name} and by an earlier module"
                )
            namespace[name] = value
    return types.MappingProxyType(namespace)


def build_namespace() -> dict[str, Any]:
    """A fresh copy of the namespace (so one expression cannot leak names into the next)."""
    return dict(_base_namespace())


def module_files() -> list[str]:
    """Source files of the namespace modules (a page using :computed: depends on them)."""
    files = []
    for module_name in (*NAMESPACE_MODULES, *NAMED_MODULES.values()):
        module = sys.modules.get(module_name)
        path = getattr(module, "__file__", None)
        if path:
            files.append(path)
    return files


def evaluate(expression: str, namespace: dict[str, Any] | None = None) -> str:
    """Evaluate `expression` and return its text; ComputedError naming the expression on failure."""
    source = expression.strip()
    if not source:
        raise ComputedError("empty :computed: expression")
    scope = build_namespace() if namespace is None else dict(namespace)
    try:
        value = eval(compile(source, "<computed>", "eval"), scope)
    except MissingFigureError as exc:  # an edited table without the figure: say so, in place
        return f"(not computed: {exc})"
    except Exception as exc:
        raise ComputedError(
            f"cannot evaluate :computed:`{source}`: {type(exc).__name__}: {exc}"
        ) from exc
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ComputedError(
            f":computed:`{source}` gave {type(value).__name__} {value!r}; "
            'return text (format it, e.g. f"{x:.1f}" or a fmt_* helper) or an int'
        )
    return str(value)


_NUMBER_SPACE_UNIT = re.compile(r"(?<=\d) (?=[^\W\d_])")


def keep_units(text: str) -> str:
    """Join each number to the unit after it with a no-break space: '1.55 TB/s' stays whole."""
    return _NUMBER_SPACE_UNIT.sub("\u00a0", text)


def computed_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: dict[str, Any] | None = None,
    content: list[str] | None = None,
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """Docutils role: replace :computed:`expr` with the text the expression evaluates to."""
    expression = utils.unescape(text, restore_backslashes=True)
    try:
        result = evaluate(expression)
    except ComputedError as exc:
        message = inliner.reporter.error(str(exc), line=lineno)
        problematic = inliner.problematic(rawtext, rawtext, message)
        return [problematic], [message]
    finally:
        env = getattr(inliner.document.settings, "env", None)
        if env is not None:  # rebuild the page when a formula or a figure changes
            for path in module_files():
                env.note_dependency(path)
    return [nodes.Text(keep_units(result))], []


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the :computed: role."""
    app.add_role("computed", computed_role)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
