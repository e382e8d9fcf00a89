"""Lecture 11's figure tested by the data it plots (bars and curves read back from matplotlib)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from conftest import capture_figures

from common.plots import predict as pplots
from common.plots import style


def test_the_figure_is_written_and_draws_no_ridge_it_lacks(monkeypatch, tmp_path: Path) -> None:
    kept = capture_figures(monkeypatch)
    monkeypatch.setattr(pplots, "save_figure", style.save_figure)
    cases = [pplots.CaseBars("a", 0.063, 0.045, 0.051)]
    measured, spec = [(1, 1e-4), (64, 1.2e-4)], [(1, 1e-4), (512, 3e-4)]
    curve = pplots.OperatorCurve("mm", measured, spec, [(1, 1.1e-4), (512, 3.4e-4)], 214, None)
    assert Path(pplots.predict_figure(tmp_path / "f.png", cases, curve, "title")).is_file()
    lines = {ln.get_label() for ln in kept[0].axes[1].get_lines()}
    assert "spec ridge n = 214" in lines and not any("achievable ridge" in k for k in lines)


def test_bars_sit_around_their_case_and_the_curve_is_in_ms_on_log_axes(caught) -> None:
    cases = [pplots.CaseBars("a", 0.063, 0.045, 0.051), pplots.CaseBars("b", 0.022, 0.017, 0.019)]
    curve = pplots.OperatorCurve(
        "mm", [(1, 2e-4), (64, 3e-4)], [(1, 1e-4), (512, 3e-4)], [(1, 1.1e-4), (512, 4e-4)], 8, 16
    )
    pplots.predict_figure("f.png", cases, curve, "title")
    top, bottom = caught[0].axes
    bars = top.patches
    width = bars[0].get_width()
    # Three bars per case (measured, spec, achievable), side by side centred on the case.
    centres = [round(b.get_x() + b.get_width() / 2, 9) for b in bars]
    expected = [round(i + (j - 1) * width, 9) for j in range(3) for i in range(2)]
    assert centres == expected
    heights = [round(b.get_height(), 9) for b in bars]
    assert heights == [63.0, 22.0, 45.0, 17.0, 51.0, 19.0]  # measured, spec, achievable; ms
    assert [t.get_text() for t in top.get_xticklabels()] == ["a", "b"]
    assert top.get_ylabel() == "time (ms)" and top.get_title() == "title"
    assert bottom.get_xscale() == "log" and bottom.get_yscale() == "log"
    lines = {ln.get_label(): ln for ln in bottom.get_lines()}
    assert list(lines["predicted at spec peaks"].get_ydata()) == pytest.approx([0.1, 0.3])
    assert list(lines["predicted at achievable roofs"].get_ydata()) == pytest.approx([0.11, 0.4])
    assert list(lines["measured"].get_ydata()) == pytest.approx([0.2, 0.3])
    ridges = {k: float(ln.get_xdata()[0]) for k, ln in lines.items() if "ridge" in k}
    assert ridges == {"spec ridge n = 8": 8.0, "achievable ridge n = 16": 16.0}
    assert bottom.get_ylabel() == "time (ms)" and bottom.get_title() == "mm"
    for ax in (top, bottom):
        assert not ax.spines["top"].get_visible() and not ax.spines["right"].get_visible()
