"""Slips in the tables a student edits (`TABLES`), each said in one line naming file and line.

A table runs `check_table_source` before building its records and `check_records` after;
`describe` says in one line an error a table raised, or a record the code names it lost.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import difflib
import linecache
import math
import os
import re
import sys
import traceback
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import MISSING
from typing import Any

TABLES = (
    "common/hw_specs.py",
    *(f"common/tables/{t}.py" for t in ("models", "measurements", "assumptions")))  # fmt: skip


DICT_FIX = "a dict keeps only the last, so delete one"


class SlipError(ValueError):
    """A slip in a table, already said in one line that names its file and line."""


def shown(path: str) -> str:
    """A course file's path as a student sees it: from its last 'common' or 'lectures' folder
    ('common/hw_specs.py', 'common/tables/models.py'), else its last two parts."""
    parts = os.path.normpath(path).split(os.sep)
    top = [i for i, part in enumerate(parts[:-1]) if part in ("common", "lectures")]
    return "/".join(parts[top[-1] if top else -2 :])


def _constant(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _duplicates(keys: Iterable[tuple[object, int]], what: str, where: str, fix: str) -> None:
    seen: dict[object, int] = {}
    for key, line in keys:
        if key is not None and key in seen:
            raise SlipError(
                f"{where} line {line}: {what} {key!r} is listed twice (lines {seen[key]} and "
                f"{line}); {fix}")  # fmt: skip
        seen[key] = line


def source_of(module_globals: dict) -> str:
    """The text of the module whose globals these are: its loader's, else its file's, else ''."""
    loader = module_globals.get("__loader__")
    try:
        text = loader.get_source(module_globals["__name__"]) if loader else None
        if text is None:
            with open(module_globals["__file__"], encoding="utf-8") as f:
                text = f.read()
    except (OSError, ImportError, KeyError, TypeError):
        return ""
    return text


def check_table_source(source: str, path: str, *classes: type) -> None:
    """Slip in one line for a structural slip in the table's source (see the module doc)."""
    where, tree = shown(path), ast.parse(source, filename=path)
    kinds = {cls.__name__: cls for cls in classes}
    calls = [n for n in ast.walk(tree) if getattr(getattr(n, "func", None), "id", "") in kinds]
    made = [(t.id, n.lineno) for n in tree.body if isinstance(n, ast.Assign) and n.value in calls
            for t in n.targets if isinstance(t, ast.Name)]  # fmt: skip
    _duplicates(made, "record", where, "rename or delete one")
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            found = [(_constant(k), k.lineno) for k in node.value.keys if k is not None]
            _duplicates(found, f"{getattr(target, 'id', '')}[...] entry", where, DICT_FIX)
    keys: dict[str, list[tuple[object, int]]] = {}
    for node in calls:
        kind = kinds[node.func.id]  # type: ignore[attr-defined]
        noun, fields = kind.__name__.lower(), {f.name: f for f in dataclasses.fields(kind)}
        required = {n for n, f in fields.items() if f.default is f.default_factory is MISSING}
        required |= {"key"} & set(fields)  # a record needs its key, though Chip defaults it
        kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if node.args and not kw:
            continue  # given by position: Python itself names a missing one
        given = {**dict(zip(fields, node.args, strict=False)), **kw}  # by position, then by name
        label, key = (_constant(given[k]) if k in given else None for k in ("name", "key"))
        rec = f"{noun} {key or label or '?'!s}" + (f" ({label})" if key and label else "")
        for name, k in kw.items():
            if name not in fields:
                close = difflib.get_close_matches(name, list(fields), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise SlipError(f"{where} line {k.lineno}: {rec} has no field {name}{hint}")
        if missing := sorted(required - set(given)):
            raise SlipError(f"{where} line {node.lineno}: {rec} is missing its field {missing[0]}")
        if isinstance(key, str) and not key.strip():
            line = given["key"].lineno
            raise SlipError(f"{where} line {line}: {rec} has an empty key; give it a name")
        if isinstance(table := kw.get("peak_flops_table"), ast.Dict):
            found = [(_constant(k), k.lineno) for k in table.keys if k is not None]
            _duplicates(found, f"{rec} peak", where, DICT_FIX)
        keys.setdefault(noun, []).append((key, node.lineno))
    for noun, found in keys.items():
        _duplicates(found, f"{noun} key", where, "give one a new key")


def check_records(module_globals: dict) -> None:
    """Slip for a built record whose boolean is not True or False, at its line; one warning
    line per chip figure x100 off its shipped value or achievable roof above its datasheet."""
    path, tree = module_globals["__file__"], ast.parse(source_of(module_globals) or "pass")
    lines = {t.id: n for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
             if isinstance(t, ast.Name)}  # fmt: skip
    for name, record in list(module_globals.items()):
        if isinstance(record, type) or not dataclasses.is_dataclass(record):
            continue
        node = lines.get(name)
        at = f"{shown(path)} line {getattr(node, 'lineno', '?')}"
        if sys.stderr is not None:  # None when stderr is closed
            for warning in _warnings(record):  # write(): a host's stream may have no writelines
                sys.stderr.write(f"warning: {at}: {warning}\n")
        try:
            _booleans(record)
        except ValueError as exc:
            said = [k.lineno for k in ast.walk(node or ast.Pass()) if isinstance(k, ast.Constant)
                    and f"got {k.value!r}" in str(exc)]  # fmt: skip
            raise SlipError(f"{shown(path)} line {(said or ['?'])[0]}: {exc}") from None


def _booleans(record: object) -> None:
    """ValueError for a field typed bool that holds anything else, in `record` or inside it."""
    for f in dataclasses.fields(record):  # type: ignore[arg-type]
        value = getattr(record, f.name)
        if f.type == "bool" and not isinstance(value, bool):
            raise ValueError(f"{f.name} must be True or False, got {value!r}")
        for inner in value.values() if isinstance(value, Mapping) else (value,):
            if dataclasses.is_dataclass(inner) and not isinstance(inner, type):
                _booleans(inner)


def _warnings(chip: Any) -> Iterator[str]:
    """A figure x100 off its shipped value (a unit slip?); an achievable roof above its spec."""
    from common.tables.shipped import FIGURES
    from common.tables.validate import plausible

    for label, was in FIGURES.get(getattr(chip, "key", None), {}).items():  # type: ignore[arg-type]
        peak = label.startswith("peak ")
        fig = chip.peak_flops_table.get(label[5:]) if peak else getattr(chip, label, None)
        try:
            ratio = max(fig.value / was, was / fig.value)
            plausible(fig.value, fig.unit, "")  # out of range: the chip's own check refuses it
        except (TypeError, ArithmeticError, AttributeError, ValueError):
            continue
        if ratio > 100:
            side = "above" if fig.value > was else "below"
            k = min(int(math.log10(was) // 3), 5)  # the shipped value in k, M, G, T or P
            name = f"{label[5:]} peak" if peak else label.removesuffix("_figure").replace("_", " ")
            shipped = f"{was / 1000**k:.4g} {' kMGTP'[k].strip()}{fig.unit}"
            yield f"{chip.name} {name} is x{ratio:,.0f} {side} the shipped {shipped}: a unit slip?"
    for label, spec, got in getattr(chip, "achievable_figures", list)():
        with contextlib.suppress(TypeError, AttributeError, ValueError):  # a bad figure: its own
            if got is not None and got.value > plausible(spec.value, spec.unit, ""):  # check says
                yield (f"{chip.name} achievable {label} is {got.value / spec.value:.0%} of its "
                       "datasheet figure: an achievable roof cannot beat it, so the datasheet's "
                       "stands in")  # fmt: skip


def describe(exc: BaseException) -> str | None:
    """One line for an error raised while a table ran, or for a chip or model the code names
    that the table lost (renamed or deleted); None for any other error."""
    if isinstance(exc, SlipError):
        return str(exc)
    if isinstance(exc, SyntaxError) and shown(exc.filename or "") in TABLES:
        at, msg = exc.lineno or 0, exc.msg
        if msg.startswith("positional argument follows"):  # Python says it at the call's end
            lines = linecache.getlines(exc.filename or "")[:at]
            typed = [n for n, text in enumerate(lines, 1) if re.match(r"\s*\w+\s*==[^=]", text)]
            at, msg = (typed[-1], "'==' typed for '=' (a field takes one)") if typed else (at, msg)
        return f"{shown(exc.filename or '')} line {at}: {msg}"
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    table = [f for f in frames if shown(f.filename) in TABLES and f.name == "<module>"]
    kinds = (NameError, TypeError, AttributeError, LookupError, ValueError, ArithmeticError)
    if table and isinstance(exc, kinds):
        text = str(exc).strip().splitlines() or [type(exc).__name__]
        return f"{shown(table[-1].filename)} line {table[-1].lineno}: {text[0]}"
    return _lost(exc, frames)


def _lost(exc: BaseException, frames: list[traceback.FrameSummary]) -> str | None:
    """'H100 is not in common/hw_specs.py (renamed or deleted?)' and where the code uses it."""
    module = getattr(exc, "obj", None) if isinstance(exc, AttributeError) else None
    if isinstance(exc, ImportError):
        module = sys.modules.get(exc.name or "")
        found = re.match(r"cannot import name '([^']+)'", str(exc))
        name = found.group(1) if found else None
    elif isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], str):
        from common.tables.shipped import FIGURES

        module, name = sys.modules.get("common.hw_specs"), f"chip key {exc.args[0]!r}"
        if exc.args[0] not in FIGURES or exc.args[0] in getattr(module, "CHIPS", FIGURES):
            return None
    else:
        name = getattr(exc, "name", None)
    table = shown(getattr(module, "__file__", None) or "")
    used = [f for f in frames if shown(f.filename).startswith(("common/", "lectures/"))]
    if not (name and table in TABLES and used):
        return None
    return (f"{shown(used[-1].filename)} line {used[-1].lineno}: {name} is not in {table} (renamed "
            "or deleted there?): restore it, or compare with `git diff`")  # fmt: skip
