"""Where a lecture's figures go: a PNG drawn by ``common.plots``, unless a host takes them.

Standard library only. A program that runs a lecture and shows its figures its own way
calls `divert` first. Every figure function of ``common.plots`` then hands the host its
full name and its arguments by name instead of drawing
(``take("common.plots.roofline.roofline_figure", {"path": ..., "curves": ..., ...})``),
the figure's caption follows as ``take("caption", {"path": ..., "caption": ...})``, and
the lecture prints no "saved figure" line: the host shows the figure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Take = Callable[[str, dict[str, Any]], None]
_HOST: list[Take] = []


def divert(take: Take | None) -> None:
    """Hand every later figure to `take` (None: draw them with matplotlib again)."""
    _HOST[:] = [take] if take is not None else []


def diverted() -> bool:
    """True when a host takes the figures."""
    return bool(_HOST)


def hand(name: str, data: dict[str, Any]) -> bool:
    """Give a figure's data to the host; False (draw it here) when no host takes figures."""
    if not _HOST:
        return False
    _HOST[0](name, data)
    return True
