"""Where a lecture's figures go: a PNG drawn by ``common.plots``, unless a host takes them.

After `divert`, every figure function of ``common.plots`` hands the host its full name and
its arguments by name instead of drawing, then ``take("caption", {"path": ..., "caption":
...})``, and the lecture prints no "saved figure" line.
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
