"""Lecture 12's measuring helpers: a Chrome trace written here by hand, key_averages fakes, the
layer count (no torch needed); the roofs' own kernels where torch is installed."""

from __future__ import annotations

import importlib.util
import json
import math
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.measure import budget, roofs
from common.measure.budget import Budget
from common.measure.torch_roofs import Span, Trace, kineto_quiet, op_stats, read_trace
from common.tables.models import LLAMA_3_8B, shrunk
from common.tables.units import GIB, MIB

NO_TORCH = importlib.util.find_spec("torch") is None


def span(name: str, cat: str, ts: float, dur: float) -> dict:
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "args": {}}


def mem(ts: float, total: int, device: int = 0) -> dict:
    args = {"Total Allocated": total, "Bytes": 1, "Device Type": device}
    return {"ph": "i", "name": "[memory]", "ts": ts, "args": args}


@pytest.fixture
def trace(tmp_path: Path) -> Trace:
    # A pass 100..200 us: two calls of "A" and one of "B"; cpu ops 110-130, 120-140, 170-180
    # (busy 30 + 10 = 40 us); a "decode" range after it. Memory: 50 before, peaks at 350.
    user = "user_annotation"
    events = [
        {"ph": "M", "name": "process_name", "args": {}},
        span("prefill", user, 100, 100), span("A", user, 110, 30), span("B", user, 150, 20),
        span("A", user, 170, 10), span("A", user, 250, 5),  # the last outside the pass
        span("aten::mm", "cpu_op", 110, 20), span("aten::add", "cpu_op", 120, 20),
        span("aten::mul", "cpu_op", 170, 10),
        span("aten::mul", "cpu_op", 195, 10),  # runs past the pass's end: not inside
        span("decode", user, 240, 20),
        mem(90, 50), mem(120, 350), mem(130, 150), mem(250, 80),
        mem(140, 900, device=1),  # another device: left out
    ]  # fmt: skip
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    spans, memory = read_trace(path)
    return Trace(spans, memory, "user_annotation")


def test_phases_rows_busy_time_and_peak_by_hand(trace: Trace) -> None:
    (pass_,) = trace.phase("prefill")
    assert [s.start_us for s in trace.phase("A")] == [110, 170, 250]
    rows = trace.rows(["A", "B", "A"], pass_)  # a repeated name is one row
    assert rows == [("A", [(0.01, 0.03), (0.07, 0.01)]), ("B", [(0.05, 0.02)])]
    assert trace.busy_us(pass_) == pytest.approx(40.0)  # 110-140 and 170-180
    assert trace.peak_above(pass_) == 300  # 350 at its height, 50 when it began
    (step,) = trace.phase("decode")
    assert trace.peak_above(step) == 0  # only a fall (150 -> 80) during the step
    assert len(trace.spans) == 10
    assert trace.memory == [(90.0, 50), (120.0, 350), (130.0, 150), (250.0, 80)]


@given(st.lists(st.tuples(st.floats(0, 100), st.floats(0, 50)), max_size=12))
def test_busy_time_is_the_union_of_the_intervals(calls: list[tuple[float, float]]) -> None:
    window = Span(0.0, 200.0, "pass", "user_annotation")
    spans = [Span(a, d, "op", "cpu_op") for a, d in calls]
    grid = [i / 4 for i in range(800)]  # quarter-microsecond cells, brute force
    covered = sum(0.25 for t in grid if any(a <= t < a + d for a, d in calls))
    exact = Trace(spans, [], "user_annotation").busy_us(window)
    assert exact == pytest.approx(covered, abs=0.5 * len(calls) + 1e-9)  # a cell per edge


def test_op_stats_reads_cpu_or_device_times_and_kineto_quiet_silences_fd_2(capfd) -> None:
    event = SimpleNamespace(
        key="aten::mm", count=3, flops=48, self_cpu_time_total=7.0, cpu_time_total=9.0,
        self_device_time_total=1.0, device_time_total=2.0,
    )  # fmt: skip
    (cpu,) = op_stats([event])
    assert cpu == ("aten::mm", 3, 7.0, 9.0, 48.0)
    (gpu,) = op_stats([event], device=True)
    assert (gpu.self_us, gpu.total_us) == (1.0, 2.0)
    (bare,) = op_stats([SimpleNamespace(**{**vars(event), "flops": None})])
    assert bare.flops == 0.0
    with kineto_quiet():  # file descriptor 2 silenced for the block only
        os.write(2, b"USDT: profiler_start\n")
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"


def test_profiled_layers_by_hand() -> None:
    plan = Budget(30.0, 2 * GIB)  # arrays: 2 GiB - 160 MiB = 1888 MiB, half for the weights
    model = shrunk(LLAMA_3_8B, 4)  # 8 layers; fp32 bytes by hand:
    layer = 4 * (2 * 1024 * 1024 + 2 * 1024 * 256 + 3 * 1024 * 3584 + 2 * 1024)  # 54.5 MB
    layer += 4 * 1024 / 8  # the final norm, shared out over the 8 layers
    ends = 4 * (2 * 32064 * 1024)  # embedding and LM head
    assert int((944 * MIB - ends) / layer) == 13  # more layers than the model has
    # time: 0.3 x 30 / (2 runs x 3 x 0.25 s) = 6 layers
    assert budget.profiled_layers(model, 0.25, 2, plan) == 6
    assert budget.profiled_layers(model, 0.01, 2, plan) == 8  # the model's own
    assert budget.profiled_layers(model, 99.0, 2, plan) == 1  # at least one
    small = Budget(30.0, 512 * MIB)  # arrays 352 MiB, 176 for weights: (176 MiB - 262 MB) / ...
    assert budget.profiled_layers(model, 0.01, 2, small) == 1
    mid = Budget(30.0, 1 * GIB)  # arrays 864 MiB, 432 MiB for the weights
    assert budget.profiled_layers(model, 0.01, 2, mid) == int((432 * MIB - ends) / layer)


@pytest.mark.skipif(NO_TORCH, reason="needs torch (pip install -e '.[profile]')")
def test_torch_roofs_agree_with_their_own_kernels() -> None:
    from common.measure import torch_roofs

    plan = Budget(4.0, 512 * MIB)
    r = torch_roofs.measure("fp32", "cpu", True, plan)
    assert r.matmul_n in roofs.MATMUL_SIZES
    assert r.stream_bytes % 12 == 0 and r.stream_bytes <= plan.arrays_bytes  # 3 fp32 arrays
    assert r.ridge == pytest.approx(r.peak / r.bw)
    assert r.bw > 0 and r.peak > 0 and math.isfinite(r.ridge)
