"""Chips of round numbers for the presentation tests, and the text a display object shows."""

from __future__ import annotations

from common.hw_specs import Chip
from common.hw_specs import Figure as Fig
from common.present.display import Figure, Group, Observations, Table


def chip(name: str, bf16: float, bw: float, link: float = 1e11, key: str = "",
         estimate: bool = False, **peaks: float) -> Chip:  # fmt: skip
    """A chip with a bf16 peak, bandwidth and link (all SI units), and other peaks by name."""
    table = {"bf16": Fig(bf16, "FLOP/s", "test", estimate)}
    table |= {p: Fig(v, "FLOP/s", "test") for p, v in peaks.items()}
    return Chip(
        name=name, key=key or name.lower(), peak_flops_table=table,
        mem_bw_figure=Fig(bw, "B/s", "test"), mem_capacity_figure=Fig(80e9, "B", "test"),
        link_bw_figure=Fig(link, "B/s", "test"), link_name=f"{name} link",
    )  # fmt: skip


def prose(obj: object) -> str:
    """The text, a figure's caption, each observation, and each table row as 'a | b | c'."""
    parts = []
    for item in obj.items if isinstance(obj, Group) else [obj]:
        if isinstance(item, Table):
            parts += [" | ".join(map(str, row)) for row in [item.headers, *item.rows]]
        elif isinstance(item, Figure):
            parts.append(item.caption)
        elif isinstance(item, Observations):
            parts += item.items
        elif item is not None:
            parts.append(str(item))
    return " ".join(" ".join(parts).split())


def rows(obj: Group) -> list[list[str]]:
    """Every row of every table in a group, headers first."""
    return [r for t in obj.items if isinstance(t, Table) for r in [t.headers, *t.rows]]


def table(group: Group, n: int = 0) -> Table:
    """The n-th table in a group."""
    return [item for item in group.items if isinstance(item, Table)][n]


def observed(obj: Group) -> list[str]:
    """The sentences of the group's What to observe list."""
    return next(i for i in obj.items if isinstance(i, Observations)).items
