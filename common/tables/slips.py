"""Slips in the hardware table, each said in one line that names the chip, field or entry.

Standard library only. ``common/hw_specs.py`` calls `check_table_source` on its own
source before it builds the table, so that a deleted or misspelt field, a chip key
used twice, a chip variable defined twice or a precision listed twice in one dict
(which a dict literal would silently drop) is refused with a ValueError naming both
places. `describe` turns an error raised while the table module ran (a syntax error,
a name typed wrong) into one line naming the file and line. Both are generic over the
fields of ``Chip``: a new field is checked like the others.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import os
import traceback
from collections.abc import Iterable

TABLE_NAME = "hw_specs.py"


def shown(path: str) -> str:
    """The table's path as a student sees it: 'common/hw_specs.py' for the course's own."""
    parts = os.path.normpath(path).split(os.sep)
    return "/".join(parts[-2:]) if len(parts) >= 2 else path


def _constant(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _duplicates(keys: Iterable[tuple[object, int]], what: str, where: str) -> None:
    seen: dict[object, int] = {}
    for key, line in keys:
        if key is None:
            continue
        if key in seen:
            raise ValueError(
                f"{where} line {line}: {what} {key!r} is listed twice (lines {seen[key]} and "
                f"{line}); a dict keeps only the last, so delete one"
            )
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


def check_table_source(source: str, path: str, chip_class: type) -> None:
    """ValueError in one line for a structural slip in the table's source (see the module doc)."""
    where = shown(path)
    tree = ast.parse(source, filename=path)
    fields = {f.name: f for f in dataclasses.fields(chip_class)}
    required = {
        name
        for name, f in fields.items()
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    } | ({"key"} & set(fields))  # a chip of the table needs its key, though Chip defaults it
    chip_keys: list[tuple[object, int, str]] = []
    assigned: dict[str, int] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            call = node.value
            if not (isinstance(target, ast.Name) and isinstance(call, ast.Call)):
                continue
            if getattr(call.func, "id", "") != chip_class.__name__:
                continue
            if target.id in assigned:
                raise ValueError(
                    f"{where} line {node.lineno}: chip {target.id} is defined twice "
                    f"(lines {assigned[target.id]} and {node.lineno}); rename or delete one"
                )
            assigned[target.id] = node.lineno
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            name = getattr(target, "id", "")
            keys = [(_constant(k), k.lineno) for k in node.value.keys if k is not None]
            _duplicates(keys, f"{name}[...] entry", where)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == chip_class.__name__):
            continue
        kw = {k.arg: k for k in node.keywords if k.arg is not None}
        label = _constant(kw["name"].value) if "name" in kw else None
        key = _constant(kw["key"].value) if "key" in kw else None
        chip = f"chip {key or label or '?'!s}" + (f" ({label})" if key and label else "")
        for name, k in kw.items():
            if name not in fields:
                close = difflib.get_close_matches(name, list(fields), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise ValueError(f"{where} line {k.value.lineno}: {chip} has no field {name}{hint}")
        missing = sorted(required - set(kw))
        if missing:
            raise ValueError(
                f"{where} line {node.lineno}: {chip} is missing its field {missing[0]}"
            )
        table = kw.get("peak_flops_table")
        if table is not None and isinstance(table.value, ast.Dict):
            keys = [(_constant(k), k.lineno) for k in table.value.keys if k is not None]
            _duplicates(keys, f"{chip} peak", where)
        if key is not None:
            chip_keys.append((key, node.lineno, str(label or key)))
    first: dict[object, tuple[int, str]] = {}
    for key, line, label in chip_keys:
        if key in first:
            line0, label0 = first[key]
            raise ValueError(
                f"{where} line {line}: chip key {key!r} is used twice: by {label0} (line "
                f"{line0}) and by {label} (line {line}); give one a new key"
            )
        first[key] = (line, label)


def describe(exc: BaseException) -> str | None:
    """One line for an error raised while the hardware table ran, or None if it is not one."""
    if isinstance(exc, SyntaxError) and os.path.basename(exc.filename or "") == TABLE_NAME:
        return f"{shown(exc.filename or '')} line {exc.lineno}: {exc.msg}"
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    table = [
        f for f in frames if os.path.basename(f.filename) == TABLE_NAME and f.name == "<module>"
    ]
    if table and isinstance(exc, (NameError, TypeError, AttributeError, KeyError)):
        last = table[-1]
        return f"{shown(last.filename)} line {last.lineno}: {exc}"
    return None
