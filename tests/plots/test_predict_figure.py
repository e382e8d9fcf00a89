"""Lecture 11's figure tested by the data it plots (bars and curves read back from matplotlib)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from figure_fixtures import capture_figures

from common.plots import predict as pplots
from common.plots import style


def test_bars_and_curves_carry_the_given_times(monkeypatch, tmp_path: Path) -> None:
    kept = capture_figures(monkeypatch)
    monkeypatch.setattr(pplots, "save_figure", style.save_figure)
    cases = [pplots.CaseBars("a", 0.063, 0.045, 0.051), pplots.CaseBars("b", 0.022, 0.017, 0.019)]
    curve = pplots.OperatorCurve(
        "mm",
        [(1, 1e-4), (64, 1.2e-4)],
        [(1, 1e-4), (512, 3e-4)],
        [(1, 1.1e-4), (512, 3.4e-4)],
        214,
        None,
    )
    path = pplots.predict_figure(tmp_path / "f.png", cases, curve, "title")
    assert Path(path).is_file()
    top, bottom = kept[0].axes
    heights = sorted(round(p.get_height(), 6) for p in top.patches)
    assert heights == sorted([63.0, 45.0, 51.0, 22.0, 17.0, 19.0])  # ms
    lines = {ln.get_label(): ln for ln in bottom.get_lines()}
    assert list(lines["measured"].get_ydata()) == pytest.approx([0.1, 0.12])
    assert list(lines["predicted at spec peaks"].get_xdata()) == [1, 512]
    assert "spec ridge n = 214" in lines and not any("achievable ridge" in k for k in lines)
