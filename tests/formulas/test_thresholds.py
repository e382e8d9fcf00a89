"""The threshold solver and the crossover, against brute-force counting."""

from __future__ import annotations

import math
import random

import pytest

from common.formulas import thresholds
from common.formulas.thresholds import Crossover, crossover, linear_threshold


def brute(gain: float, cost: float, fixed: float, r: float, limit: int = 10**6) -> int | None:
    """Smallest b >= 1 with gain b / (cost b + fixed) >= r, by counting up."""
    for b in range(1, limit):
        if gain * b >= r * (cost * b + fixed):
            return b
    return None


def solve(gain: float, cost: float, fixed: float, r: float) -> int | None:
    found = linear_threshold(gain, cost, fixed, r)
    return None if found is None else thresholds.smallest_integer_reaching(found[1], found[0])


def test_linear_threshold_closed_form_and_predicate(monkeypatch: pytest.MonkeyPatch) -> None:
    estimate, reaches = linear_threshold(10.0, 1.0, 100.0, 5.0)
    # 10 b / (b + 100) >= 5  <=>  5 b >= 500  <=>  b >= 100
    assert estimate == 100.0 and reaches(100) and not reaches(99)
    assert linear_threshold(10.0, 2.0, 1.0, 5.0) is None  # the limit 10 / 2 only approaches 5
    assert linear_threshold(10.0, 2.1, 1.0, 5.0) is None
    rng = random.Random(5)
    for _ in range(300):
        gain = rng.uniform(1, 100)
        cost = rng.uniform(0.01, 10)
        fixed = rng.uniform(0, 5000)
        r = rng.uniform(0.01, 0.999) * gain / cost  # always reachable
        assert solve(gain, cost, fixed, r) == brute(gain, cost, fixed, r)
    assert crossover([1, 2, 4, 8], [0.5, 1.0, 2.0, 4.0], 2.0) == Crossover(2, 4)
    assert crossover([1, 2, 4, 8], [0.5, 1.0, 2.0, 4.0], 1.9) == Crossover(2, 4)
    assert crossover([1, 2, 4, 8], [0.5, 1.0, 2.0, 4.0], 2.1) == Crossover(4, 8)
    assert crossover([3, 5], [9.0, 9.0], 1.0) == Crossover(None, 3)
    assert crossover([3, 5], [0.0, 0.5], 1.0) is None

    def reaches(b: int) -> bool:
        return b >= 37

    for estimate in (1.0, 10.0, 36.2, 37.0, 50.0, 0.0, -3.0):
        assert thresholds.smallest_integer_reaching(reaches, estimate) == 37
    assert thresholds.smallest_integer_reaching(lambda b: True, 5.0) == 1
    assert thresholds.smallest_integer_reaching(lambda b: True, 2.0) == 1  # never below 1
    assert thresholds.smallest_integer_reaching(reaches, math.inf) is None
    assert thresholds.smallest_integer_reaching(reaches, math.nan) is None
    big = thresholds.MAX_SEARCH
    assert big == 2**40
    assert thresholds.smallest_integer_reaching(lambda b: b >= big, float(big)) == big
    assert thresholds.smallest_integer_reaching(lambda b: True, big + 1.0) is None
    monkeypatch.setattr(thresholds, "MAX_SEARCH", 100)
    assert thresholds.smallest_integer_reaching(lambda b: b >= 100, 90.0) == 100
    assert thresholds.smallest_integer_reaching(lambda b: b >= 101, 90.0) is None
    monkeypatch.undo()
    asked: list[int] = []

    def reaches(b: int) -> bool:
        asked.append(b)
        return b >= 10**6

    assert thresholds.smallest_integer_reaching(reaches, 1e6) == 10**6
    # 999,999 falls short, 1,000,000 reaches: two questions, not a walk from 1
    assert sorted(asked) == [999_999, 1_000_000]
    asked.clear()  # one above: it steps down once, then checks the one below
    assert thresholds.smallest_integer_reaching(reaches, 1e6 + 0.5) == 10**6
    assert sorted(asked) == [999_999, 1_000_000, 1_000_000]
