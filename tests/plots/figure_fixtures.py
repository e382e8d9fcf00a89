"""For figure tests: keep the matplotlib Figure a plotting function saves, to read its data."""

from __future__ import annotations

from typing import Any

import pytest

from common.plots import style


def capture_figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The Figures passed to style.save_figure from now on (still written to disk)."""
    kept: list[Any] = []
    save = style.save_figure

    def keep(fig: Any, path: Any) -> str:
        kept.append(fig)
        return save(fig, path)

    monkeypatch.setattr(style, "save_figure", keep)
    return kept
