"""Sphinx role ``:computed:`expr```: the text of an expression over the public names of
``NAMESPACE_MODULES`` and ``NAMED_MODULES`` (a ``str`` or an ``int``; a failure fails the
build). In the Chinese build its phrases come from the page's catalog (README)."""

from __future__ import annotations

import ast
import functools
import importlib
import math
import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from docutils import nodes, utils
from sphinx.application import Sphinx
from sphinx.errors import SphinxError
from sphinx.util import logging
from sphinx.util.i18n import docname_to_domain

from common.hw_specs import MissingFigureError

#: Modules whose public names the expressions can use.
NAMESPACE_MODULES: tuple[str, ...] = (
    "common.hw_specs", "common.formulas.roofline", "common.formulas.ledger",
    "common.formulas.thresholds", "common.formulas.attention_io", "common.tables.assumptions",
    "common.tables.units", "common.present.console", "common.present.claims")  # fmt: skip

#: Modules the expressions can use by name (``sources.ARTICLE_TITLE``), not flattened.
NAMED_MODULES = {
    "sources": "common.tables.sources",
    "exercises": "common.exercises",
    "serving": "common.formulas.serving",  # lecture 14's formulas (concepts/serving)
    "published": "common.tables.measurements",  # published figures with their sources
}


logger = logging.getLogger(__name__)

#: The document attribute that carries a page's phrases from the role to ``make gettext``.
PHRASES = "computed_phrases"


class ComputedError(SphinxError):
    """A :computed: expression could not be evaluated to text."""

    category = "computed role error"


def _defined_in(module: types.ModuleType) -> dict[str, Any]:
    """Public names `module` defines itself: no submodule, `__future__` feature or imported
    helper (a function or class from elsewhere, such as dataclass or NamedTuple)."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and not isinstance(value, types.ModuleType)
            and type(value).__module__ != "__future__"
            and not (callable(value) and getattr(value, "__module__", None) != module.__name__)
            }  # fmt: skip


def _same(a: object, b: object) -> bool:
    """True when two modules export one name with the same value (e.g. a shared constant)."""
    try:
        return a is b or bool(type(a) is type(b) and a == b)
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
                    f"{module_name} and by an earlier module")  # fmt: skip
            namespace[name] = value
    return types.MappingProxyType(namespace)


def build_namespace() -> dict[str, Any]:
    """A fresh copy of the namespace: one expression cannot leak names into the next."""
    return dict(_base_namespace())


def module_files() -> list[str]:
    """Source files of the namespace modules (a page using :computed: depends on them)."""
    names = (*NAMESPACE_MODULES, *NAMED_MODULES.values())
    return [str(sys.modules[n].__file__) for n in names if n in sys.modules]


_WORD = re.compile(r"[A-Za-z]{2,}")
#: Not words: units and abbreviations a Chinese page prints as the English one does.
_NOT_WORDS = re.compile(r"\b(?:OOM|[kKMGTP]?i?B(?:/s)?|[kMGTP]?FLOP(?:/s|/byte)?|[mµn]?s)\b")


def _is_phrase(text: object) -> bool:
    """True for a string with a word in it (not only numbers, units or placeholders)."""
    if not isinstance(text, str):
        return False
    return bool(_WORD.search(_NOT_WORDS.sub(" ", re.sub(r"\{[^{}]*\}", " ", text))))


def literal_phrases(function: object) -> tuple[str, ...]:
    """The strings of `function`'s ``Literal[...]`` return type (() for any other)."""
    try:
        returns = typing.get_type_hints(function).get("return")
    except Exception:
        return ()
    if typing.get_origin(returns) is not typing.Literal:
        return ()
    return tuple(a for a in typing.get_args(returns) if isinstance(a, str))


def _phrase_nodes(
    node: ast.AST, scope: Mapping[str, Any], keep: Callable[[object], bool] = _is_phrase
) -> Iterator[ast.expr]:
    """The parts of an expression that can be its whole result, or the template of it (a
    constant only where `keep` holds)."""
    if isinstance(node, ast.Constant) and keep(node.value):
        yield node
    elif isinstance(node, ast.IfExp):
        yield from _phrase_nodes(node.body, scope, keep)
        yield from _phrase_nodes(node.orelse, scope, keep)
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict):
        for value in node.value.values:
            yield from _phrase_nodes(value, scope, keep)
    elif isinstance(node, ast.NamedExpr):
        yield from _phrase_nodes(node.value, scope, keep)
    elif isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "format":
            yield from _phrase_nodes(func.value, scope, keep)
        elif isinstance(func, ast.Name) and literal_phrases(scope.get(func.id)):
            yield node


def phrases(expression: str) -> list[str]:
    """The phrases `expression` can give, in order: its messages in the page's catalog."""
    scope = _base_namespace()
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return []  # evaluate reports it
    found: list[str] = []
    for node in _phrase_nodes(tree.body, scope):
        if isinstance(node, ast.Constant):
            found.append(node.value)
        else:
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            found.extend(p for p in literal_phrases(scope[node.func.id]) if _is_phrase(p))
    return list(dict.fromkeys(found))


#: The name a translated expression calls a function's Literal[...] result through.
_TRANSLATE = "_computed_phrase_"


def evaluate(
    expression: str,
    namespace: dict[str, Any] | None = None,
    translate: Callable[[str], str] | None = None,
) -> str:
    """The text of `expression`, each phrase passed through `translate`; else ComputedError."""
    source = expression.strip()
    if not source:
        raise ComputedError("empty :computed: expression")
    scope = build_namespace() if namespace is None else dict(namespace)
    scope[_TRANSLATE] = translate or str
    try:  # each phrase translated: a literal now, a call's result after it
        tree = ast.parse(source, mode="eval")
        for node in list(_phrase_nodes(tree.body, scope)):
            if isinstance(node, ast.Constant):
                node.value = scope[_TRANSLATE](node.value)
            else:  # f(...) -> _computed_phrase_(f(...))
                inner = ast.Call(node.func, node.args, node.keywords)
                node.func, node.args, node.keywords = ast.Name(_TRANSLATE, ast.Load()), [inner], []
        value = eval(compile(ast.fix_missing_locations(tree), "<computed>", "eval"), scope)
    except MissingFigureError as exc:  # an edited table without the figure: say so, in place
        return f"(not computed: {exc})"
    except Exception as exc:
        raise ComputedError(
            f"cannot evaluate :computed:`{source}`: {type(exc).__name__}: {exc}"
        ) from exc
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ComputedError(
            f":computed:`{source}` gave {type(value).__name__} {value!r}; "
            'return text (format it, e.g. f"{x:.1f}" or a fmt_* helper) or an int')  # fmt: skip
    return str(value)


#: A space between a number and its unit, which a no-break space keeps on one line.
_NUMBER_SPACE_UNIT = re.compile(r"(?<=\d) (?=[^\W\d_])")


def computed_role(
    name: str, rawtext: str, text: str, lineno: int, inliner: Any, *_: Any, **__: Any
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """Docutils role: replace :computed:`expr` with the text the expression evaluates to."""
    expression = utils.unescape(text, restore_backslashes=True)
    env = getattr(inliner.document.settings, "env", None)
    translate = None
    try:
        language = getattr(getattr(env, "config", None), "language", None) or "en"
        if env is not None and language != "en":
            translate = page_translator(env, lineno)
        elif env is not None:  # make gettext reads them from here (add_phrases)
            found = inliner.document.setdefault(PHRASES, [])
            found.extend((phrase, lineno) for phrase in phrases(expression))
        result = evaluate(expression, translate=translate)
    except ComputedError as exc:
        message = inliner.reporter.error(str(exc), line=lineno)
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    finally:
        if env is not None:  # rebuild the page when a formula or a figure changes
            for path in module_files():
                env.note_dependency(path)
    return [nodes.Text(_NUMBER_SPACE_UNIT.sub("\u00a0", result))], []


def catalog_words(env: Any, domain: str, what: str, where: Any = None) -> Callable[[str], str]:
    """The catalog `domain`'s translation; a missing message warns (fails under -W)."""
    from babel.messages.pofile import read_po

    table: dict[str, str] = {}
    for folder in reversed(env.config.locale_dirs):  # the first folder's entry wins
        po = Path(env.srcdir, folder, env.config.language, "LC_MESSAGES", f"{domain}.po")
        if po.is_file():  # as Sphinx compiles it: no fuzzy or empty entry
            with po.open("rb") as handle:
                table |= {m.id: m.string for m in read_po(handle) if m.string and not m.fuzzy}

    def translate(message: str) -> str:
        if message not in table:
            logger.warning(
                "no translation of the %s %.70r in %s.po (run make gettext, then translate)",
                *(what, message, domain),
                location=where)  # fmt: skip
        return table.get(message, message)

    return translate


def page_translator(env: Any, lineno: int) -> Callable[[str], str]:
    """The current page's phrase translation, from its catalog."""
    docname = env.current_document.docname
    domain = docname_to_domain(docname, env.config.gettext_compact)
    words = catalog_words(env, domain, "phrase", (docname, lineno))
    return lambda phrase: words(phrase) if _is_phrase(phrase) else phrase


def add_messages(app: Sphinx, domain: str, found: Callable[[], Iterable[tuple]]) -> None:
    """In ``make gettext``: each (message, file, line) `found` gives joins catalog `domain`."""
    from sphinx.builders.gettext import I18nBuilder, MsgOrigin

    if isinstance(app.builder, I18nBuilder):
        for message, path, line in found():
            app.builder.catalogs[domain].add(message, MsgOrigin(str(path), line))


def add_phrases(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """doctree-resolved, in ``make gettext``: a page's phrases become messages of its catalog."""
    source = app.env.doc2path(docname)
    found = lambda: ((phrase, source, line) for phrase, line in doctree.get(PHRASES, ()))  # noqa: E731
    add_messages(app, docname_to_domain(docname, app.config.gettext_compact), found)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the :computed: role."""
    app.add_role("computed", computed_role)
    app.connect("doctree-resolved", add_phrases)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
