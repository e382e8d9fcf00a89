"""Every exercise under drawn hardware tables (``strategies.hardware_tables``): it solves, and no
claim contradicts the numbers it quotes (``edit_battery.contradictions``) or the drawn table."""

from __future__ import annotations

import re

from edit_battery import contradictions
from hypothesis import HealthCheck, example, given, settings
from strategies import SHIPPED, edited, hardware_tables, patched_hardware, scale_chip

from common.exercises import EXERCISES


def answers(table: dict) -> dict[str, str]:
    """Each exercise's whole answer as text (steps and table cells), solved under `table`."""
    out = {}
    with patched_hardware(table):
        for exercise in EXERCISES:
            answer = exercise.solve()
            cells = [" | ".join(r) for r in answer.table.rows] if answer.table else []
            out[exercise.key] = "\n".join([*answer.steps, *cells])
    return out


def check(table: dict) -> None:
    texts = answers(table)
    for key, text in texts.items():
        faults = contradictions(text)
        assert not faults, f"{key}: " + "\n".join(faults)
        assert not re.search(r"\bNone\b|\bnan\b|\binf\b", text), f"{key}: {text}"
    h100, h200 = table["h100"], table["h200"]
    r100, r200 = (c.peak_flops("bf16") / c.mem_bw for c in (h100, h200))
    memory = min(r100, r200) > 1.0  # decode at batch 1 does 1 FLOP per bf16 weight byte
    assert ("below both ridges, so it is memory-bound" in texts["h200-vs-h100"]) == memory
    mqa = 64.0  # 64 query heads on one KV head
    h100_ridge = f"{r100:,.1f}"
    if r100 > mqa:
        assert f"Even MQA stays below the H100's bf16 ridge of {h100_ridge}" in texts["gqa-decode"]


# The '20 GiB memory figure': every capacity at 20 GiB, and at 0.05x.
GIB20 = {k: scale_chip(c, {"capacity": 20 * 2**30 / c.mem_capacity}) for k, c in SHIPPED.items()}
SMALL = edited(**{k.replace("-", "_"): {"capacity": 0.05, "smem": 0.05} for k in SHIPPED})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=hardware_tables())
@example(table=GIB20)
@example(table=SMALL)
def test_every_exercise_solves_and_holds_its_claims_on_drawn_tables(table: dict) -> None:
    check(table)
