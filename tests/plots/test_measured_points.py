"""Lecture 01's saved operation rows as roofline points: good rows kept, bad ones counted."""

from __future__ import annotations

from common.plots.article import MeasuredPoint, measured_points


def test_good_rows_become_points_and_bad_rows_are_counted() -> None:
    rows = [
        {"name": "add", "intensity": 0.25, "achieved_flops_per_s": 2e9, "bound": "memory"},
        {"name": "odd", "intensity": 4.0, "achieved_flops_per_s": 1e9, "bound": "sideways"},
        {"name": "negative", "intensity": -1.0, "achieved_flops_per_s": 1e9},
        {"name": "no rate", "intensity": 1.0},
        "not a row",
    ]
    points, bad = measured_points(rows)
    assert points == [
        MeasuredPoint("add", 0.25, 2e9, "memory"),
        MeasuredPoint("odd", 4.0, 1e9, "unknown"),
    ]
    assert bad == 3
    assert measured_points([]) == ([], 0)
