"""Lecture 11's Run panel in a browser: it reruns with an edited A100 and its words turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from test_runner import Panel, check, runtime_built  # noqa: F401 (the fixture is autouse there)

if TYPE_CHECKING:
    from conftest import Visitor

pytestmark = pytest.mark.browser
LECTURE_11 = "auto_lectures/11_predict_and_check.html"


def test_lecture_11_reruns_with_a_slower_a100(visit: Visitor) -> None:
    page = visit.open(LECTURE_11)
    panel = Panel(page, ".rl-runner")
    out = " ".join(panel.run().split())
    # The published 63.17 ms prefill against the spec prediction, and all four cases longer.
    assert "4 of 4 measurements take longer than the spec prediction" in out
    assert "63.17 ms" in out
    panel.edit("A100 40GB SXM", "312e12", "31.2e12")  # ten times slower compute
    panel.edit("A100 40GB SXM", "1555e9", "155.5e9")  # and memory
    out = " ".join(panel.run().split())
    assert "0 of 4 measurements take longer than the spec prediction" in out
    assert "utilisation above 100%" in out
    check(visit)
