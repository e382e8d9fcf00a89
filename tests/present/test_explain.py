"""Sentences that explain results: the crossover line of a sweep."""

from __future__ import annotations

from common.formulas.thresholds import Crossover
from common.present.explain import crossover_line


def test_crossover_line_names_the_interval_and_both_intensities_or_none() -> None:
    # I(128) = 120.47 and I(256) = 227.56 for [M, 4096] x [4096, 4096] in bf16, A100 I* 200.6
    line = crossover_line(Crossover(128, 256), {128: 120.471, 256: 227.555}, 200.64, "M", 4096)
    assert line == "crossover: M in (128, 256]: I(128) = 120.47 < I* = 200.64 <= I(256) = 227.56"
    # when nothing or everything crosses
    none = crossover_line(None, {}, 5.0, "B", 256, label="ridge crossing")
    assert none == "ridge crossing: none; every B up to 256 stays below I* = 5.00"
    first = crossover_line(Crossover(None, 1), {1: 9.0}, 5.0, "B", 256, ridge_digits=1)
    assert first == "crossover: none needed; already compute-bound at B = 1"
