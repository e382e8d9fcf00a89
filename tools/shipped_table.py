"""Write ``common/tables/shipped.py``: the hardware table's figures as the repository ships them
(the start of the exercises that edit a figure); ``make shipped`` after changing one::

    python3 tools/shipped_table.py          # rewrite common/tables/shipped.py
    python3 tools/shipped_table.py --check  # exit 1 when it differs from the table
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "common" / "tables" / "shipped.py"

HEADER = '''"""The hardware table's figures as shipped (by tools/shipped_table.py; do not edit).

chip key -> figure -> value: ``peak <precision>`` in FLOP/s, and every other ``*_figure``
field of ``common.hw_specs.Chip`` in its own unit. Standard library only.
"""

from __future__ import annotations

FIGURES: dict[str, dict[str, float]] = {
'''


def figures() -> dict[str, dict[str, float]]:
    """The current table's figures: chip key -> field -> value."""
    sys.path.insert(0, str(REPO))
    from common import hw_specs

    table: dict[str, dict[str, float]] = {}
    for key, chip in hw_specs.CHIPS.items():
        figs = [(f.name, getattr(chip, f.name)) for f in dataclasses.fields(chip)]
        table[key] = {f"peak {p}": float(f.value) for p, f in chip.peak_flops_table.items()}
        table[key] |= {n: float(v.value) for n, v in figs if isinstance(v, hw_specs.Figure)}
    return table


def source(table: dict[str, dict[str, float]]) -> str:
    """The module's text for `table`."""
    lines = [HEADER]
    for key, row in table.items():
        lines.append(f'    "{key}": {{\n')
        # a float as ruff formats it: 1.5e16, not 1.5e+16
        lines += [f'        "{n}": {v!r},\n'.replace("e+", "e") for n, v in row.items()]
        lines.append("    },\n")
    lines.append("}\n")
    return "".join(lines)


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
