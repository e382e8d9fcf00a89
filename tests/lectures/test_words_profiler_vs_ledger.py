"""Lecture 12's words from records of known answer: every number and every claim by hand."""

from __future__ import annotations

import dataclasses
import types

from hypothesis import given, settings
from hypothesis import strategies as st

from common.measure.torch_roofs import OpStat, Roofs
from common.tables.models import LLAMA_3_8B
from lectures.words import profiler_vs_ledger as page

FP32 = Roofs("fp32", 2e11, 2e10, 1024, 268_435_452)  # ridge 10 FLOP/B
BF16 = Roofs("bf16", 8e11, 2e10, 2048, 134_217_726)  # ridge 40 FLOP/B
MODEL = dataclasses.replace(
    LLAMA_3_8B, name="Tiny", n_layers=2, d_model=512, n_heads=4, n_kv_heads=1, d_ff=1792,
    vocab_size=16032,
)  # fmt: skip


def test_the_line_without_torch_names_both_commands() -> None:
    assert "needs PyTorch" in page.NEEDS_TORCH and "`make profile`" in page.NEEDS_TORCH
    assert '`pip install -e ".[profile]"`' in page.NEEDS_TORCH and "\n" not in page.NEEDS_TORCH


def test_setup_table_titles_the_model_and_lists_each_roof() -> None:
    table = page.setup_table(page.Setup(MODEL, 64, 4, "cpu", 2, [FP32, BF16]))
    assert table.title == (
        "Tiny: 2 layer(s), d_model 512, 4 query heads, 1 KV head(s) of 128, d_ff 1,792, "
        "vocabulary 16,032; a 64-token prompt and 4 decode steps on the CPU (2 torch threads)"
    )
    assert table.rows == [
        ["fp32", "200.0 GFLOP/s", "1,024", "20.00 GB/s", "268.44 MB", "10.0"],
        ["bf16", "800.0 GFLOP/s", "2,048", "20.00 GB/s", "134.22 MB", "40.0"],
    ]
    assert table.headers[-1] == "ridge FLOP/B"


def test_timeline_caption_and_text() -> None:
    t = page.Timeline("out/trace.json", 2000.0, 1500.0, 1234)
    assert page.timeline_caption(t) == (
        "Each bar is one call of a ledger operator during the 2.00 ms prompt pass. No operator "
        "ran for 25% of it: look for the white gaps between bars."
    )
    said = " ".join(str(page.timeline_text(t)).split())
    assert said.startswith("The trace (1,234 events) is saved as out/trace.json: open it in")
    assert "ui.perfetto.dev or chrome://tracing" in said


def event(key, shapes, count, self_us, total_us, flops):
    """A stand-in for one row of key_averages(group_by_input_shape=True) on a CPU."""
    return types.SimpleNamespace(key=key, input_shapes=shapes, count=count, flops=flops,
                                 self_cpu_time_total=self_us, cpu_time_total=total_us)  # fmt: skip


def test_profiler_table_by_hand() -> None:
    events = [
        event("aten::copy_", [[1, 8, 64, 128]], 4, 100.0, 100.0, 0),
        event("aten::mm", [[64, 1024], [1024, 1024]], 2, 600.0, 600.0, 2 * 2 * 64 * 1024 * 1024),
        event("prefill", [], 1, 300.0, 1500.0, 0),
    ]
    table = page.profiler_table(events, False, 16, limit=2)
    assert table.headers[:3] == ["operator", "input shapes", "self time"]
    # self time over the 1,000 µs of all three rows; 4 x 64 x 1024^2 = 268,435,456 FLOP
    assert table.rows == [
        ["aten::mm", "[[64, 1024], [1024, 1024]]", "600 µs", "60.0%", "2", "600 µs",
         "268.44 MFLOP"],
        ["prefill", "[]", "300 µs", "30.0%", "1", "1.50 ms", "-"],
    ]  # fmt: skip
    assert table.title == (
        "The profiler's 2 rows of most self CPU time, fp32, the whole run (prompt pass and 16 "
        "decode steps)"
    )


ROWS = [
    page.OpRow("Q projection", 2, 4e7, 1e6, 1e-4, 4e-4),  # 40 FLOP/B: compute-bound, 25%
    page.OpRow("softmax", 1, 1e3, 1e6, 5e-5, 1e-4),  # memory-bound, 50%
]
STATS = [
    OpStat("aten::mm", 2, 600.0, 600.0, 4e7),
    OpStat("aten::copy_", 4, 300.0, 300.0, 0.0),
    OpStat("aten::cat", 1, 100.0, 100.0, 0.0),
    OpStat("Q projection", 2, 5000.0, 9000.0, 0.0),  # a range, not an operator
]


def test_operator_table_and_observations_by_hand() -> None:
    table = page.operator_table(ROWS, FP32)
    assert table.rows == [
        ["Q projection", "2", "40.00 MFLOP", "1.00 MB", "compute-bound", "100 µs", "400 µs", "25%"],
        ["softmax", "1", "1.00 KFLOP", "1.00 MB", "memory-bound", "50.0 µs", "100 µs", "50%"],
    ]
    assert table.title == "fp32 prompt pass at the torch roofs (200.0 GFLOP/s, 20.00 GB/s)"
    row = page.OpRow("final norm", 1, 1e3, 1e4, 4e-7, 1e-4)  # 0.4% of its bound
    assert page.operator_table([row], FP32).rows[0][-1] == "0.4%"
    assert "reached 0.4% of it" in page.operator_observations([row], STATS, 4).items[0]
    assert page.operator_table([dataclasses.replace(row, bound_s=1e-5)], FP32).rows[0][-1] == "10%"
    first, second, third = page.operator_observations(ROWS, STATS, 4).items  # none beat its bound
    assert first == (
        "Furthest from its bound: Q projection, which reached 25% of it (400 µs against "
        "100 µs); closest: softmax at 50%."
    )
    assert second == (
        "Summed over the prompt pass's operators the bound is 150 µs of the 500 µs they took: "
        "the ledger explains 30%."
    )
    assert third.startswith(
        "Over the whole run (prompt pass and 4 decode steps), operators the ledger has no row "
        "for took 40% of the operators' own time, the largest ``aten::copy_`` 30.0% and "
        "``aten::cat`` 10.0%: layout copies"
    )
    fast = page.OpRow("K projection", 1, 1e3, 1e6, 2e-4, 1e-4)  # 200% of its bound
    items = page.operator_observations([*ROWS, fast], STATS, 4).items
    assert items[3] == (
        "1 of the 3 operators ran faster than their bound (K projection): a roof was measured "
        "below what the machine can do, as on a busy machine."
    )


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=6, unique=True))
def test_the_furthest_operator_is_the_smallest_share(shares: list[float]) -> None:
    rows = [page.OpRow(f"op{i}", 1, 1.0, 1.0, s, 1.0) for i, s in enumerate(shares)]
    first = page.operator_observations(rows, STATS, 4).items[0]
    low, high = shares.index(min(shares)), shares.index(max(shares))
    assert first.startswith(f"Furthest from its bound: op{low},")
    assert f"closest: op{high} at" in first


def test_flops_observations_by_hand() -> None:
    f = page.FlopCount(1e9, 1.1e9, 1e9, 5e7, 1e9, 2.5e7, 8e8, 0.01, 2e11, 16)
    first, second, third = page.flops_observations(f).items
    assert first == (
        "Over the whole run (prompt pass and 16 decode steps) ``with_flops`` counted 1.10 GFLOP, "
        "110% of the ledger's 1.00 GFLOP for that run; matrix products are 95.5% of its count."
    )
    assert second.startswith(
        "Its weight matmuls (``aten::mm``) come to 1.00 GFLOP, the same as the ledger's 1.00 "
        "GFLOP; its attention products (``aten::bmm``), 50.00 MFLOP, are x2.00 as much as the "
        "ledger's 25.00 MFLOP, which counts only"
    )
    assert third.startswith(
        "MFU of the prompt pass: the ledger's 800.00 MFLOP for the prompt pass alone in 10.0 ms "
        "is 80.0 GFLOP/s, 40.0% of the matmul roof."
    )
    said = page.flops_observations(dataclasses.replace(f, profiler_mm_flops=5e8)).items[1]
    assert "500.00 MFLOP, 1/2.00 as much as the ledger's 1.00 GFLOP" in said


PRE = page.Phase("prefill", "fp32", 64, 1e9, 1e8, 0.005, 0.02, 20.0, 3000, 1500.0, 4096.0, 4096)
DEC = page.Phase("decode", "fp32", 1, 2e7, 5e7, 0.0025, 0.01, 20.0, 100, 50.0, 4096.0, 4096)
PRE_BF16 = dataclasses.replace(PRE, precision="bf16", bound_s=0.002, measured_s=0.01)


def test_phase_table_and_observations_by_hand() -> None:
    table = page.phase_table([PRE, DEC])
    pre = ["prefill", "fp32", "10.0", "memory-bound", "5.00 ms", "20.0 ms", "25%"]
    dec = ["decode", "fp32", "0.4", "memory-bound", "2.50 ms", "10.0 ms", "25%"]
    assert table.rows == [[*pre, "3.00 KB", "1.50 KB"], [*dec, "100 B", "50 B"]]
    assert table.headers[2:5] == ["FLOP/B", "side", "bound"]
    ridge_below = dataclasses.replace(PRE, ridge=10.0)  # at the ridge: compute-bound
    assert page.phase_table([ridge_below]).rows[0][3] == "compute-bound"
    items = page.phase_observations([PRE, DEC, PRE_BF16]).items
    assert items[0] == (
        "A decode step does 2.00% of the prompt pass's FLOPs but moves 50% of its bytes: at "
        "0.4 FLOP/B against a ridge of 20.0 it is memory-bound."
    )
    assert items[1].startswith(
        "Per token, a decode step took 10.0 ms and the prompt pass 312 µs: x32.00 as much time for "
        "a token decoded alone"
    )
    assert items[2] == (
        "The KV cache the run allocated, 4.10 KB, is the same as the ledger's 4.10 KB (capacity "
        "ledger); during the prompt pass the profiler saw allocations peak 3.00 KB above its "
        "start, x2.00 as much as the ledger's 1.50 KB for activations (16 d_model values a token)."
    )
    assert items[3] == (
        "In bf16 the prompt pass went x2.00 faster than in fp32; its bound went x2.50 faster."
    )
    assert len(page.phase_observations([PRE, DEC]).items) == 3  # one precision: no comparison
