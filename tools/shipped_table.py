"""Write ``common/tables/shipped.py``: the hardware table's figures as the repository ships them
(the start of the exercises that edit a figure); ``make shipped`` after changing one::

    python3 tools/shipped_table.py          # rewrite common/tables/shipped.py
    python3 tools/shipped_table.py --check  # exit 1 when it differs from the table
"""

from __future__ import annotations

import dataclasses
import sys
from decimal import Decimal
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "common" / "tables" / "shipped.py"

HEADER = '''"""The figures of the hardware table as shipped (do not edit: tools/shipped_table.py
writes them): chip key -> ``peak <p>``, ``achievable_peak <p>`` or a ``*_figure`` -> value."""

# fmt: off
FIGURES: dict[str, dict[str, float]] = {
'''


def figures() -> dict[str, dict[str, float]]:
    """The current table's figures: chip key -> field -> value."""
    sys.path.insert(0, str(REPO))
    from common import hw_specs

    table: dict[str, dict[str, float]] = {}
    for key, chip in hw_specs.CHIPS.items():
        figs = [(f.name, getattr(chip, f.name)) for f in dataclasses.fields(chip)]
        tables = (("peak", chip.peak_flops_table), ("achievable_peak", chip.achievable_flops_table))
        table[key] = {f"{pre} {p}": float(f.value) for pre, t in tables for p, f in t.items()}
        table[key] |= {n: float(v.value) for n, v in figs if isinstance(v, hw_specs.Figure)}
    return table


def literal(value: float) -> str:
    """`value` as its shortest exact float literal: 3.12e14, 1.3995e12, 233472.0."""
    text = str(Decimal(repr(value)).normalize()).lower().replace("e+", "e")
    return text if "." in text or "e" in text else f"{text}.0"


def source(table: dict[str, dict[str, float]]) -> str:
    """The module's text for `table`: one chip a row, wrapped at 100 columns."""
    lines = [HEADER.rstrip("\n")]
    for key, row in table.items():
        line, pad = f'    "{key}": {{', " " * (len(key) + 9)
        for n, v in row.items():
            item = f'"{n}": {literal(v)}'
            if len(line) + len(item) + 3 > 100:  # the item, its comma and the closing "},"
                lines.append(line.rstrip())
                line = pad
            line += item + ", "
        lines.append(line[:-2] + "},")
    return "\n".join([*lines, "}", "# fmt: on", ""])


def main(argv: list[str]) -> int:
    text = source(figures())
    if argv == ["--check"]:
        same = TARGET.exists() and TARGET.read_text(encoding="utf-8") == text
        if not same:
            print(f"{TARGET.relative_to(REPO)} differs from the table: run make shipped")
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
