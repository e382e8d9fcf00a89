"""Lecture 11's figure: measured times against predictions at spec and achievable roofs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import NamedTuple

from common.plots import style
from common.plots.style import ACCENT_COLOR, COMPUTE_COLOR, figure, new_figure, save_figure


class CaseBars(NamedTuple):
    """One whole-model case: its label and three times in seconds."""

    label: str
    measured: float
    spec: float
    achievable: float


class OperatorCurve(NamedTuple):
    """One matmul: measured (tokens, seconds), the two predicted curves and their ridges."""

    label: str
    measured: Sequence[tuple[int, float]]
    spec: Sequence[tuple[int, float]]
    achievable: Sequence[tuple[int, float]]
    spec_ridge: int | None
    achievable_ridge: int | None


@figure
def predict_figure(
    path: str | os.PathLike[str], cases: Sequence[CaseBars], curve: OperatorCurve, title: str
) -> str:
    """Save the two-panel figure (model bars above, operator curve below); return the path."""
    fig, (top, bottom) = new_figure(height=7.4, nrows=2)
    width = 0.26
    series = (
        ("measured", "measured", style.NEUTRAL_COLOR, ""),
        ("spec", "predicted at spec peaks", COMPUTE_COLOR, "//"),
        ("achievable", "predicted at achievable roofs", ACCENT_COLOR, ".."))  # fmt: skip
    for j, (field, label, color, hatch) in enumerate(series):
        xs = [i + (j - 1) * width for i in range(len(cases))]
        ys = [getattr(c, field) * 1e3 for c in cases]
        top.bar(xs, ys, width, label=label, color=color, hatch=hatch, edgecolor="white")
    top.set_xticks(range(len(cases)), [c.label for c in cases], fontsize=9)
    top.set_ylabel("time (ms)")
    top.set_title(title, fontsize=10)
    top.legend(fontsize=8, frameon=False, loc="upper right")

    for pts, label, color, dash in (
        (curve.spec, "predicted at spec peaks", COMPUTE_COLOR, "-"),
        (curve.achievable, "predicted at achievable roofs", ACCENT_COLOR, "--"),
    ):
        bottom.plot([n for n, _ in pts], [t * 1e3 for _, t in pts], dash, color=color, label=label)
    ns, ms = [n for n, _ in curve.measured], [t * 1e3 for _, t in curve.measured]
    bottom.plot(ns, ms, "o", color=style.MEMORY_COLOR, label="measured")
    for ridge, color, dash, what in (
        (curve.spec_ridge, COMPUTE_COLOR, ":", "spec ridge"),
        (curve.achievable_ridge, ACCENT_COLOR, "-.", "achievable ridge"),
    ):
        if ridge is not None:
            bottom.axvline(
                ridge, color=color, linestyle=dash, linewidth=1, label=f"{what} n = {ridge:,}"
            )
    bottom.set_xscale("log", base=2)
    bottom.set_yscale("log")
    bottom.xaxis.set_major_formatter("{x:,.0f}")
    bottom.yaxis.set_major_formatter("{x:g}")
    bottom.set(xlabel="tokens n in X[n, K]", ylabel="time (ms)")
    bottom.set_title(curve.label, fontsize=10)
    bottom.legend(fontsize=8, frameon=False, loc="upper left")
    return save_figure(fig, path)
