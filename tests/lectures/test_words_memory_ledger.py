"""Lecture 03's words on a toy model: 1 GiB of weights, 16 KiB of KV cache a token (1 GiB a
65536-token sequence), 4 KiB of activations a token (0.25 GiB a sequence in prefill): the
prefill total of B sequences at overhead rho is (1 + 1.25 B) (1 + rho) GiB."""

from __future__ import annotations

import re

from edit_battery import contradictions
from hypothesis import given, settings
from hypothesis import strategies as st
from present.fake_chips import observed, table
from toy_ledger import BATCHES, BUDGET, LOW, RATE, ROWS, TOY

from common.formulas.ledger import Anomaly, largest_batch_that_fits, model_ledger
from common.formulas.thresholds import Crossover, crossover
from common.present.display import Group
from common.tables.units import GIB, KIB, MIB
from lectures.words import memory_ledger as page
from lectures.words.memory_ledger import Largest, Setup, Sweep

# 1.2 + 1.5 B <= 6.5 -> B <= 3.53: 3 (5.70 GiB; 4 would be 7.20);
# 1 + 1.25 B <= 6.5 -> B <= 4.4: 4 (6.00 GiB; 5 would be 7.25)
LARGEST = [Largest(RATE, 3, 5.7 * GIB, 7.2 * GIB), Largest(LOW, 4, 6.0 * GIB, 7.25 * GIB)]


def ledgers(rate: float, phase: str = "prefill") -> dict[int, object]:
    return {b: model_ledger(TOY, b, rate, phase) for b in BATCHES}


def test_ledger_table_and_observations() -> None:
    group = page.ledger_table(ledgers(RATE), BUDGET, RATE)
    assert str(group).splitlines()[1] == "Prefill ledger in GiB, overhead 20%, budget 6.5 GiB"
    table_ = table(group)
    assert table_.headers[-1] == "6.5 GiB?"
    # overhead 0.2 (1 + 1.25 B): 0.45, 0.70, 1.20; totals 1.2 + 1.5 B: 2.70, 4.20, 7.20
    assert table_.rows == [
        ["1", "1.0", "1.00", "0.25", "0.45", "2.70", "fits"],
        ["2", "1.0", "2.00", "0.50", "0.70", "4.20", "fits"],
        ["4", "1.0", "4.00", "1.00", "1.20", "7.20", "OOM"],
    ]
    decode = page.ledger_table(ledgers(RATE, "decode"), BUDGET, RATE, "decode")
    assert str(decode).splitlines()[1].startswith("Decode ledger")
    assert table(decode).rows[0][3] == "0.00"  # 4 KiB of activations, not 0.25 GiB
    lines = str(page.model_facts(TOY, 2**30, 16 * KIB, GIB, BUDGET)).splitlines()
    assert lines[:3] == ["", "The 0.536871B model", "=" * 20]
    assert lines[3].endswith("= 1.0 GiB of weights; 4 layers, d_kv = 1024")
    assert lines[4] == "KV cache:      16 KiB per token; 1.00 GiB per 65536-token sequence"
    assert lines[5] == "activations:   4 KiB per active token"
    assert lines[6] == "memory budget: 6.5 GiB"
    items = page.ledger_observations(ledgers(RATE), BUDGET, GIB).items
    # the example batch is the largest table row that fits: 2, holding 2 GiB of KV cache
    assert items[0] == (
        "The weights cost 1.0 GiB at every batch size. The KV cache grows by 1.00 GiB per "
        "sequence: at batch 2 it holds 2.00 GiB, 2x the weights."
    )
    assert items[1].startswith("Batches 1 and 2 fit; batch 4 runs out of memory.")
    roomy = page.ledger_observations(ledgers(RATE), 100 * GIB, GIB).items
    assert roomy[1].startswith("Every batch in the table fits.")
    tight = page.ledger_observations(ledgers(RATE), 3 * GIB, GIB).items
    assert tight[1].startswith("Batch 1 fits; batches 2 and 4 run out of memory.")
    assert "at batch 1 it holds 1.00 GiB, 1x the weights" in tight[0]
    none = page.ledger_observations(ledgers(RATE), GIB, GIB).items
    assert none[1].startswith("No batch in the table fits.")
    assert "at batch 1 it holds" in none[0]  # the first row, when none fits


def test_overhead_table_and_the_rescued_batch() -> None:
    group = page.overhead(ledgers(RATE), ledgers(LOW), BUDGET, RATE, LOW)
    table_ = table(group)
    assert group.items[0].title == "Overhead 20% vs 0%, budget 6.5 GiB"
    assert table_.headers[1] == "total at 20% (GiB)" and table_.headers[3] == "total at 0% (GiB)"
    # at 0%: 1 + 1.25 B = 2.25, 3.50, 6.00
    assert table_.rows[-1] == ["4", "7.20", "OOM", "6.00", "fits", "OOM -> fits"]
    assert table_.rows[0][-1] == ""
    assert table_.headers[2::2] == ["verdict", "verdict"] and table_.headers[-1] == "change"
    assert observed(group) == [
        "At batch 4 the total drops from 7.20 to 6.00 GiB: same card, same model, and 1 "
        "more row of the table fits."
    ]
    # budget 4.0: at 20% only batch 1 (2.70) fits; at 0% batches 1 and 2 (2.25, 3.50)
    two = observed(page.overhead(ledgers(RATE), ledgers(LOW), 4 * GIB, RATE, LOW))
    assert two == [
        "At batch 2 the total drops from 4.20 to 3.50 GiB: same card, same model, and 1 more "
        "row of the table fits."
    ]
    # budget 7.0: at 0% batch 4 (6.00) fits; at 50% (1.5 + 1.875 B: 3.38, 5.25, 9.00) only 1, 2
    both = observed(page.overhead(ledgers(0.5), ledgers(LOW), 7 * GIB, 0.5, LOW))
    assert "At batch 4 the total drops from 9.00 to 6.00 GiB" in both[0]
    # budget 6.0: at 100% (2 + 2.5 B: 4.50, 7.00, 12.00) only batch 1; at 0% all three
    many = observed(page.overhead(ledgers(1.0), ledgers(LOW), 6 * GIB, 1.0, LOW))
    assert "At batch 2 the total drops from 7.00 to 3.50 GiB" in many[0]
    assert many[0].endswith("and 2 more rows of the table fit.")
    none = observed(page.overhead(ledgers(RATE), ledgers(RATE), BUDGET, RATE, RATE))
    assert none == ["No batch size in the table changes its verdict under this budget."]
    # Shrunk by hypothesis (budget 3 GiB, overhead 100% against 0%): at 100% batch 1 needs
    # (1 + 1.25) x 2 = 4.50 GiB, at 0% 2.25 GiB; the reader took '4.50' for bytes.
    said = observed(page.overhead(ledgers(1.0), ledgers(0.0), 3 * GIB, 1.0, 0.0))
    assert said == [
        "At batch 1 the total drops from 4.50 to 2.25 GiB: same card, same model, and 1 more "
        "row of the table fits."
    ]
    assert contradictions(said[0]) == []


def test_largest_batch_table_and_observations() -> None:
    group = page.largest(LARGEST, ledgers(RATE), BUDGET)  # by hand at LARGEST
    assert group.items[0].title == "Largest prefill batch within 6.5 GiB"
    assert table(group).rows == [["20%", "3", "5.70", "7.20"], ["0%", "4", "6.00", "7.25"]]
    assert observed(group) == [
        "At 20% overhead the table's largest fitting row is batch 2, but every batch up to 3 "
        "fits: the table only samples some batch sizes.",
        "At 0% overhead the largest batch is 4.",
    ]
    nothing = [Largest(RATE, 0, None, 2.7 * GIB), Largest(LOW, 0, None, 2.25 * GIB)]
    group = page.largest(nothing, ledgers(RATE), GIB)
    assert table(group).rows[0] == ["20%", "0", "-", "2.70"]
    assert observed(group) == [
        "At 20% overhead not even one sequence fits this budget.",
        "At 0% overhead not even one sequence fits this budget.",
    ]
    exact = observed(page.largest([Largest(RATE, 2, 4.2 * GIB, 5.7 * GIB)], ledgers(RATE), BUDGET))
    assert exact == ["At 20% overhead the largest batch, 2, is a table row."]


def test_decode_ledger_and_observations() -> None:
    decode = [Largest(RATE, 4, 0.0, 0.0), Largest(LOW, 5, 0.0, 0.0)]
    group = page.decode(ledgers(RATE), ledgers(RATE, "decode"), BUDGET, decode, LARGEST)
    assert "\nlargest decode batch: 4 at 20% overhead, 5 at 0% (prefill: 3 and 4)" in str(group)
    assert str(group).splitlines()[1].startswith("Decode ledger in GiB, overhead 20%")
    # batch 2: 2 x 65536 x 4 KiB = 512 MiB in prefill, 2 x 4 KiB = 8 KiB in decode; the KV
    # cache 2 GiB against 8 KiB: 2**21 / (2**21 + 8) = 99.9996%
    assert observed(group) == [
        "At batch 2 the activations shrink from 512.00 MiB to 8.00 KiB (prefill to decode), "
        "so decode fits 4 sequences instead of 3. The KV cache, which grows with every token "
        "kept, is now 100% of the variable part."
    ]
    same = page.decode(ledgers(RATE), ledgers(RATE, "decode"), BUDGET, LARGEST, LARGEST)
    assert "yet decode fits the same 3 sequences as prefill." in observed(same)[0]


def setup(llc: float, copies: int = 1, note: str | None = None) -> Setup:
    """P = 100 GFLOP/s, beta = 20 GB/s: I* = 5 FLOP/B; W[4096, 4096] fp32 = 64 MiB."""
    return Setup("lecture 01's calibration", 1e11, 2e10, 5.0, 4096, 64 * MIB, llc, copies, note)


def test_sweep_facts_and_the_cache_note() -> None:
    lines = str(page.sweep_facts(setup(48 * MIB))).splitlines()
    assert lines[1] == "Batch sweep: Y[B, K] = X[B, K] @ W[K, K], fp32"
    assert lines[4] == "roofs:         P = 100.0 GFLOP/s, beta = 20.00 GB/s, I* = 5.00 FLOP/B"
    assert lines[5] == "weight matrix: [4096, 4096] fp32 = 64 MiB (last-level cache: 48 MiB)"
    assert len(lines) == 6  # one copy and no cache note: nothing more to say
    rotated = str(page.sweep_facts(setup(48 * MIB, 4)))
    assert "copies of W:   4, read in turn (256 MiB)" in rotated and "note:" not in rotated
    note = "The sweep ran with the working set 1.6x the LLC (...): it measures a mix"
    short = str(page.sweep_facts(setup(1024 * MIB, 21, note)))
    assert short.splitlines()[-1] == f"note: {note}; small batches may beat the bound"
    assert "(last-level cache" not in str(page.sweep_facts(setup(0)))
    same = str(page.raised_line(1e11, 2e10, 1e11, 2e10))
    assert same == "roofs: the calibration's; no batch ran faster than either roof"
    up = str(page.raised_line(1e11, 2e10, 1e11, 4e10))
    assert "beta from 20.00 GB/s to 40.00 GB/s" in up and "P from" not in up
    assert "P from 100.0 GFLOP/s to 200.0 GFLOP/s" in str(page.raised_line(1e11, 2e10, 2e11, 4e10))
    one = Setup("x", 1.0, 1.0, 1.0, 8, 256.0, None)
    assert (one.copies, one.cache_note) == (1, None)  # one W, no note unless given


def sweep(rows, crossing, ridge, seconds, anomalies=(), calib=None) -> Sweep:
    """The sweep's record with a 64 MiB weight."""
    return Sweep(rows, crossing, ridge, list(anomalies), calib or {}, 64 * MIB, seconds)


CALIB = {"bandwidth_threads": 1, "matmul_threads": 2}


def sweep_said(rows, anomalies=(), calib=CALIB) -> list[str]:
    """The observations of a sweep of `rows` with no crossing, ridge 1.5 FLOP/B, 1 s."""
    return page.sweep_observations(sweep(rows, None, 1.5, 1.0, anomalies, calib)).items


def test_sweep_table_lines_and_observations() -> None:
    group = page.sweep_table(sweep(ROWS, Crossover(2, 4), 1.5, 3.25))
    assert table(group).rows[0] == [
        "1", "0.033", "67.10", "0.50", "memory", "4.000 ms", "250", "3.300 ms",
        "82%",  # 3.3 / 4.0
        "",
    ]  # fmt: skip
    assert table(group).rows[1][-1] == "!"
    lines = str(group.items[1]).splitlines()
    assert lines == ["", "ridge crossing: B in (2, 4]: I(2) = 1.00 < I* = 1.50 <= I(4) = 2.00",
                     "! B=2: slower than B=4", "sweep time: 3.25 s"]  # fmt: skip
    assert "every B up to 4 stays below I* = 9.00" in str(page.sweep_table(sweep(ROWS, None, 9, 1)))
    first = str(page.sweep_table(sweep(ROWS, Crossover(None, 1), 0.1, 1)))
    assert "ridge crossing: none needed; already compute-bound at B = 1" in first
    anomalies = [Anomaly(2, "slower_than_larger", 4)]
    items = page.sweep_observations(sweep(ROWS, Crossover(2, 4), 1.5, 3.25, anomalies, CALIB)).items
    # latency 4.5 / 4 = 1.1x; throughput (4 / 0.0045) / 250 = 3.6x; 64 MiB / 4 = 16 MiB
    assert items[0] == (
        "From B = 1 to B = 4, latency grew x1.1 while throughput grew x3.6. At B = 4 each "
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
    # two anomalies given out of order are said in batch order
    slow_one = [{**ROWS[0], "latency_s": 0.005}, *ROWS[1:]]
    pair = [Anomaly(2, "slower_than_larger", 4), Anomaly(1, "slower_than_larger", 4)]
    took = [line[:13] for line in sweep_said(slow_one, pair) if line.startswith("B = ")]
    assert took == ["B = 1 took 5.", "B = 2 took 5."]
    assert sweep_said(ROWS[:1])[1].startswith("No batch size broke the two rules by more than 10%")
    # B = 1 memory-bound, predicted 5 ms, measured 4 ms: 125% of the bound
    fast = [{**ROWS[0], "t_pred_s": 0.005}]
    assert sweep_said(fast)[1] == (
        "At B = 1 the measurement beat the roofline (125% of the bound). The bound comes from a "
        "calibration, not from physics: the bandwidth roof was measured on 1 thread while BLAS "
        "runs 2; and a cache holding part of W moves bytes faster than main memory."
    )
    both = sweep_said(fast, calib={"bandwidth_threads": 4, "matmul_threads": 2})[1]
    assert "measured on 4 threads while BLAS runs 2;" in both
    same = sweep_said(fast, calib={"bandwidth_threads": 2, "matmul_threads": 2})
    assert same[1].endswith(
        "not from physics: a cache holding part of W moves bytes faster than main memory."
    )
    assert sweep_said(fast, calib=None)[1].endswith("than main memory.")
    # B = 2 took 5 ms against B = 1's 4 ms... made 9 ms: 9 / 4 = 2.2x as long for 2x the tokens
    slow = [ROWS[0], {**ROWS[1], "latency_s": 0.009}]
    text = sweep_said(slow, [Anomaly(2, "throughput_drop", 1)], None)
    assert (
        "B = 2 took 9.00 ms, 2.2x as long as B = 1 for 2x the tokens: throughput fell as the "
        "batch grew." in text
    )
    # Lecture 03 under ROOFLINE_FAKE_LLC=32MiB raised its roofs to the sweep's best and then said
    # 'At B = 64 the measurement beat the roofline (100% of the bound)'.
    # 3.1300 / 3.1299 ms = 100.003%: prints 100%, the roof the row itself set
    level = [{**ROWS[0], "latency_s": 0.0031299, "t_pred_s": 0.0031300}]
    assert "beat the roofline" not in " ".join(sweep_said(level))
    # 3.16 / 3.13 = 101%: beaten as printed
    past = [{**ROWS[0], "latency_s": 0.00313, "t_pred_s": 0.00316}]
    said = "At B = 1 the measurement beat the roofline (101% of the bound)."
    assert said in " ".join(sweep_said(past))


def said(group: Group) -> str:
    return " ".join(" ".join(observed(group)).split())


def fit(budget: float, rate: float, phase: str) -> int:
    return largest_batch_that_fits(budget, lambda b: model_ledger(TOY, b, rate, phase))


@settings(max_examples=30, deadline=None)
@given(budget=st.floats(0.5, 200.0), rate=st.floats(0.0, 1.0), low=st.floats(0.0, 1.0))
def test_capacity_claims_hold(budget: float, rate: float, low: float) -> None:
    """Budgets of 0.5-200 GiB, overhead rates of 0-100%: each claim agrees with its table."""
    budget *= GIB
    at, under = ledgers(rate), ledgers(low)
    fits = [b for b in BATCHES if at[b].total <= budget]
    text = " ".join(page.ledger_observations(at, budget, GIB).items)
    if not fits:
        assert "No batch in the table fits." in text
    elif len(fits) == len(BATCHES):
        assert "Every batch in the table fits." in text
    else:
        listed = re.search(r"Batch(?:es)? ([\d, and]+) fits?;", text)
        assert listed and set(map(int, re.findall(r"\d+", listed[1]))) == set(fits)
    rescued = [b for b in BATCHES if at[b].total > budget >= under[b].total]
    moved = said(page.overhead(at, under, budget, rate, low))
    if rescued:
        rows = "row of the table fits" if len(rescued) == 1 else "rows of the table fit"
        assert f"and {len(rescued)} more {rows}." in moved
    else:
        assert moved == "No batch size in the table changes its verdict under this budget."
    best = [Largest(r, fit(budget, r, "prefill"), 0, 0) for r in (rate, low)]
    dec = [Largest(r, fit(budget, r, "decode"), 0, 0) for r in (rate, low)]
    decoded = said(page.decode(at, ledgers(rate, "decode"), budget, dec, best))
    assert ("instead of" in decoded) == (dec[0].batch != best[0].batch)
    for words in (text, moved, said(page.largest(best, at, budget)), decoded):
        assert contradictions(words) == [], words
        assert "None" not in words


rows_drawn = st.lists(st.floats(1e-4, 1.0), min_size=4, max_size=4)


@settings(max_examples=30, deadline=None)
@given(latencies=rows_drawn, bounds=rows_drawn, ridge=st.floats(0.3, 3.0))
def test_sweep_claims_hold(latencies: list[float], bounds: list[float], ridge: float) -> None:
    """Four batches with any latency and bound of 0.1 ms to 1 s, any ridge of 0.3-3 FLOP/B."""
    rows = [
        {"B": b, "flops": 1e6 * b, "bytes": 1e6, "intensity": b / 2, "latency_s": t,
         "bound": "compute" if b / 2 >= ridge else "memory", "throughput_per_s": b / t,
         "t_pred_s": p, "anomaly": None}
        for b, t, p in zip((1, 2, 4, 8), latencies, bounds, strict=True)
    ]  # fmt: skip
    cross = crossover([1, 2, 4, 8], [r["intensity"] for r in rows], ridge)
    text = " ".join(page.sweep_observations(sweep(rows, cross, ridge, 1.0, [], CALIB)).items)
    assert contradictions(text) == [], text
    assert ("beat the roofline" in text) == any(  # past 100% as the percentage prints
        p > t and f"{p / t:.0%}" != "100%" for p, t in zip(bounds, latencies, strict=True)
    )
    crossing = re.search(r"between B = (\d+) and B = (\d+)", text)
    if crossing:
        before, first = (rows[[1, 2, 4, 8].index(int(x))] for x in crossing.groups())
        assert (before["bound"], first["bound"]) == ("memory", "compute")
    assert "None" not in str(page.sweep_table(sweep(rows, cross, ridge, 1.0)))
