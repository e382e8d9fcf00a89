"""Lecture 03's tables and sentences, on a toy model whose ledger is easy arithmetic.

The toy model: 2**29 fp16 parameters (1 GiB of weights); 4 layers x d_kv 1024 x 2 bytes x
K and V = 16 KiB of KV cache per token, 1 GiB per 65536-token sequence; 4 KiB of
activations per token, 0.25 GiB per sequence in prefill. At overhead rate rho the prefill
total of B sequences is (1 + 1.25 B) (1 + rho) GiB: at 20%, 1.2 + 1.5 B; at 0%, 1 + 1.25 B.
"""

from __future__ import annotations

from common.formulas.ledger import Anomaly, model_ledger
from common.formulas.thresholds import Crossover
from common.present import memory
from common.present.display import Group, Table
from common.tables.models import ModelSpec
from common.tables.units import GIB, KIB, MIB

TOY = ModelSpec(
    name="toy",
    n_params=2**29,
    weight_bytes=2,
    n_layers=4,
    d_kv=1024,
    kv_bytes=2,
    seq=65536,
    act_bytes_per_token=4 * KIB,
)
BATCHES = (1, 2, 4)
RATE, LOW = 0.2, 0.0
BUDGET = 6.5 * GIB  # at 20%: 2.7, 4.2 fit, 7.2 does not; at 0% batch 4 (6.0) fits


def table(group: Group) -> Table:
    """The table in a group (a heading, the table, maybe a note)."""
    return next(item for item in group.items if isinstance(item, Table))


def ledgers(rate: float, phase: str = "prefill") -> dict[int, object]:
    return {b: model_ledger(TOY, b, rate, phase) for b in BATCHES}


def test_model_facts() -> None:
    lines = str(memory.model_facts(TOY, 2**30, 16 * KIB, BUDGET)).splitlines()
    assert lines[:3] == ["", "The 0.536871B model", "=" * 20]
    assert lines[3].endswith("= 1.0 GiB of weights; 4 layers, d_kv = 1024")
    assert lines[4] == "KV cache:      16 KiB per token; 1.00 GiB per 65536-token sequence"
    assert lines[5] == "activations:   4 KiB per active token"
    assert lines[6] == "memory budget: 6.5 GiB"


def test_ledger_table_rows_and_verdicts() -> None:
    group = memory.ledger_table(ledgers(RATE), BUDGET, RATE)
    assert str(group).splitlines()[1] == "Prefill ledger in GiB, overhead 20%, budget 6.5 GiB"
    table_ = table(group)
    assert table_.headers[-1] == "6.5 GiB?"
    # overhead 0.2 (1 + 1.25 B): 0.45, 0.70, 1.20; totals 1.2 + 1.5 B: 2.70, 4.20, 7.20
    assert table_.rows == [
        ["1", "1.0", "1.00", "0.25", "0.45", "2.70", "fits"],
        ["2", "1.0", "2.00", "0.50", "0.70", "4.20", "fits"],
        ["4", "1.0", "4.00", "1.00", "1.20", "7.20", "OOM"],
    ]
    decode = memory.ledger_table(ledgers(RATE, "decode"), BUDGET, RATE, "decode")
    assert str(decode).splitlines()[1].startswith("Decode ledger")
    assert table(decode).rows[0][3] == "0.00"  # 4 KiB of activations, not 0.25 GiB


def test_ledger_observations() -> None:
    items = memory.ledger_observations(ledgers(RATE), BUDGET, GIB).items
    # the example batch is the largest table row that fits: 2, holding 2 GiB of KV cache
    assert items[0] == (
        "The weights cost 1.0 GiB at every batch size. The KV cache grows by 1.00 GiB per "
        "sequence: at batch 2 it holds 2.00 GiB, 2.0x the weights."
    )
    assert items[1].startswith("Batches 1, 2 fit; 4 run out of memory.")
    roomy = memory.ledger_observations(ledgers(RATE), 100 * GIB, GIB).items
    assert roomy[1].startswith("Every batch in the table fits.")


def test_overhead_table_and_the_rescued_batch() -> None:
    table_ = table(memory.overhead_table(ledgers(RATE), ledgers(LOW), BUDGET, RATE, LOW))
    assert table_.headers[1] == "total at 20% (GiB)" and table_.headers[3] == "total at 0% (GiB)"
    # at 0%: 1 + 1.25 B = 2.25, 3.50, 6.00
    assert table_.rows[-1] == ["4", "7.20", "OOM", "6.00", "fits", "OOM -> fits"]
    assert table_.rows[0][-1] == ""
    items = memory.overhead_observations(ledgers(RATE), ledgers(LOW), BUDGET).items
    assert items == [
        "At batch 4 the total drops from 7.20 to 6.00 GiB: same card, same model, and one "
        "more row of the table fits."
    ]
    none = memory.overhead_observations(ledgers(RATE), ledgers(RATE), BUDGET).items
    assert none == ["No batch size in the table changes its verdict under this budget."]


def test_largest_batch_table_and_observations() -> None:
    # 1.2 + 1.5 B <= 6.5 -> B <= 3.53: 3 (5.70 GiB; 4 would be 7.20);
    # 1 + 1.25 B <= 6.5 -> B <= 4.4: 4 (6.00 GiB; 5 would be 7.25)
    largest = {RATE: 3, LOW: 4}
    assert table(memory.largest_table(TOY, largest, BUDGET)).rows == [
        ["20%", "3", "5.70", "7.20"],
        ["0%", "4", "6.00", "7.25"],
    ]
    items = memory.largest_observations(largest, ledgers(RATE), BUDGET).items
    assert items[0] == (
        "At 20% overhead the table's largest fitting row is batch 2, but every batch up to 3 "
        "fits: the table only samples some batch sizes."
    )
    assert items[1] == "At 0% overhead the largest batch is 4."
    assert table(memory.largest_table(TOY, {RATE: 0, LOW: 0}, GIB)).rows[0][2] == "-"


def test_decode_line_and_observations() -> None:
    text = str(memory.decode_line({RATE: 4, LOW: 5}, {RATE: 3, LOW: 4}))
    assert text == "\nlargest decode batch: 4 at 20% overhead, 5 at 0% (prefill: 3 and 4)"
    items = memory.decode_observations(ledgers(RATE), ledgers(RATE, "decode"), BUDGET, 4, 3).items
    # batch 2: 2 x 65536 x 4 KiB = 512 MiB in prefill, 2 x 4 KiB = 8 KiB in decode
    assert items[0].startswith(
        "At batch 2 the activations shrink from 512.00 MiB (prefill) to 8.00 KiB (decode), "
        "so decode fits 4 sequences instead of 3."
    )


# A three-point sweep: B = 2 slower than B = 4 (an anomaly); B = 4 beats its bound.
ROWS = [
    {"B": 1, "flops": 3.3e7, "bytes": 6.71e7, "intensity": 0.5, "bound": "memory",
     "latency_s": 0.004, "throughput_per_s": 250.0, "t_pred_s": 0.0033, "anomaly": None},
    {"B": 2, "flops": 6.6e7, "bytes": 6.72e7, "intensity": 1.0, "bound": "memory",
     "latency_s": 0.005, "throughput_per_s": 400.0, "t_pred_s": 0.0034,
     "anomaly": "slower than B=4"},
    {"B": 4, "flops": 1.3e8, "bytes": 6.73e7, "intensity": 2.0, "bound": "compute",
     "latency_s": 0.0045, "throughput_per_s": 4 / 0.0045, "t_pred_s": 0.006, "anomaly": None},
]  # fmt: skip


def test_sweep_facts_and_the_cache_note() -> None:
    group = memory.sweep_facts("lecture 01's calibration", 1e11, 2e10, 4096, 64 * MIB, 48 * MIB)
    lines = str(group).splitlines()
    assert lines[1] == "Batch sweep: Y[B, K] = X[B, K] @ W[K, K], fp32"
    assert lines[4] == "roofs:         P = 100.0 GFLOP/s, beta = 20.00 GB/s, I* = 5.00 FLOP/B"
    assert lines[5] == "weight matrix: [4096, 4096] fp32 = 64 MiB (last-level cache: 48 MiB)"
    assert len(lines) == 6  # one copy and no cache note: nothing more to say
    rotated = str(memory.sweep_facts("x", 1e11, 2e10, 4096, 64 * MIB, 48 * MIB, 4))
    assert "copies of W:   4, read in turn (256 MiB)" in rotated and "note:" not in rotated
    note = "The sweep ran with the working set 1.6x the LLC (...): it measures a mix"
    short = str(memory.sweep_facts("x", 1e11, 2e10, 4096, 64 * MIB, 1024 * MIB, 21, note))
    assert short.splitlines()[-1] == f"note: {note}; small batches may beat the bound"


def test_raised_line_names_what_was_raised() -> None:
    same = str(memory.raised_line(1e11, 2e10, 1e11, 2e10))
    assert same == "roofs: the calibration's; no batch ran faster than either roof"
    up = str(memory.raised_line(1e11, 2e10, 1e11, 4e10))
    assert "beta from 20.00 GB/s to 40.00 GB/s" in up and "P from" not in up
    both = str(memory.raised_line(1e11, 2e10, 2e11, 4e10))
    assert "P from 100.0 GFLOP/s to 200.0 GFLOP/s" in both


def test_sweep_table_and_lines() -> None:
    table = memory.sweep_table(ROWS)
    assert table.rows[0] == [
        "1",
        "0.033",
        "67.10",
        "0.50",
        "memory",
        "4.000 ms",
        "250",
        "3.300 ms",
        "82%",  # 3.3 / 4.0
        "",
    ]
    assert table.rows[1][-1] == "!"
    lines = str(memory.sweep_lines(ROWS, Crossover(2, 4), 1.5, 3.25)).splitlines()
    assert lines == [
        "",
        "ridge crossing: B in (2, 4]: I(2) = 1.00 < I* = 1.50 <= I(4) = 2.00",
        "! B=2: slower than B=4",
        "sweep time: 3.25 s",
    ]
    assert "every B up to 4 stays below I* = 9.00" in str(memory.sweep_lines(ROWS, None, 9, 1))
    first = str(memory.sweep_lines(ROWS, Crossover(None, 1), 0.1, 1))
    assert "ridge crossing: none needed; already compute-bound at B = 1" in first


def test_sweep_observations() -> None:
    anomalies = [Anomaly(2, "slower_than_larger", 4)]
    calib = {"bandwidth_threads": 1, "matmul_threads": 2}
    obs = memory.sweep_observations(ROWS, Crossover(2, 4), anomalies, calib, 64 * MIB, 3.25)
    items = obs.items
    # latency 4.5 / 4 = 1.1x; throughput (4 / 0.0045) / 250 = 3.6x; 64 MiB / 4 = 16 MiB
    assert items[0] == (
        "From B = 1 to B = 4, latency grew 1.1x while throughput grew 3.6x. At B = 4 each "
        "token's share of the 64 MiB weight read is 16.00 MiB."
    )
    assert items[1].startswith("The model crosses the ridge point between B = 2 and B = 4.")
    # B = 4: 6.0 / 4.5 = 133% of the bound, compute-bound
    assert items[2].startswith("At B = 4 the measurement beat the roofline (133% of the bound).")
    assert "the compute roof is the rate of one calibration matmul" in items[2]
    # 5.0 / 4.5 = 1.11
    assert items[3] == (
        "B = 2 took 5.00 ms, 1.11x the time of the larger B = 4: a bigger batch finished sooner."
    )
    assert items[4].startswith("The roofline cannot see these")
    assert items[5].startswith("The whole sweep took 3.25 s.")
    quiet = memory.sweep_observations(ROWS[:1], None, [], calib, 64 * MIB, 1.0).items
    assert quiet[1].startswith("No batch size broke the two rules by more than 10%")
