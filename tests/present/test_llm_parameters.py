"""Lecture 06's parameter count against the published size: the closeness said truly."""

from __future__ import annotations

import dataclasses

from common.formulas.transformer import DTypes
from common.present.display import Observations
from common.present.llm import parameter_section
from common.tables.models import LLAMA_3_8B


def closeness(published: float, parts: dict[str, int]) -> str:
    model = dataclasses.replace(LLAMA_3_8B, published_params=published)
    group = parameter_section(model, parts, DTypes())
    (obs,) = [item for item in group.items if isinstance(item, Observations)]
    return obs.items[0]


def test_a_gap_that_rounds_to_zero_is_not_said_as_within_0_00_percent() -> None:
    parts = {"embedding": 500, "attention": 250, "mlp": 250, "norms": 0, "lm_head": 0}
    # 1,000 counted against 1,000.01 published: a gap of 0.001%, below what .2% shows
    said = closeness(1000.01, parts)
    assert "0.00%" not in said and "less than 0.01% away from" in said
    # 1,000 against 1,010: 1 - 1000/1010 = 0.99%
    assert "within 0.99% of" in closeness(1010.0, parts)
