"""Lecture 03: the capacity ledger's printed numbers and the measured batch sweep it saves."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import pytest
import reference
from conftest import printed_table, quiet_run, run_lecture

from common.files import results
from common.formulas import ledger
from common.tables import assumptions

# a stated calibration, so predictions can be checked exactly
CALIBRATION = {"bandwidth_bytes_per_s": 2.0e10, "matmul_flops_per_s": 1.0e11, "ridge_point": 5.0}


def table_rows(text: str, title: str) -> dict[str, list[str]]:
    """Rows (first cell -> other cells) of the table printed under `title`."""
    return {cells[0]: cells[1:] for cells in printed_table(text, title)}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict, float]:
    """Run the lecture once against a results file holding a probe calibration."""
    path = tmp_path_factory.mktemp("results") / "machine.json"
    results.save_section("probe", {"calibration": CALIBRATION, "operations": []}, path)
    t0 = time.perf_counter()
    out = quiet_run("03", "--results", str(path))  # progress goes to stderr only on a terminal
    wall = time.perf_counter() - t0
    loaded = results.load_results(path)
    assert loaded, loaded.reason
    assert loaded.data["probe"]["calibration"] == CALIBRATION  # other sections kept
    return out, loaded.data["batch_sweep"], wall


def test_the_ledgers_print_the_articles_numbers(run: tuple[str, dict, float]) -> None:
    flat = " ".join(run[0].split())
    fits = {b: "fits" if f else "OOM" for b, f in reference.LEDGER_FITS_78.items()}
    said = [f"{b} {' '.join(r)} {fits[b]}" for b, r in reference.LEDGER_ROWS.items()]  # ART 4.3
    said += [
        "= 13.0 GiB of weights",
        "KV cache: 512 KiB per token; 2.00 GiB per 4096-token sequence",
        "at batch 16 it holds 32.00 GiB, 2.5x the weights",
        "24 94.95 OOM 75.96 fits OOM -> fits",  # 30% against 4% overhead
    ]
    assert [s for s in said if s not in flat] == []
    rows = table_rows(run[0], "Decode ledger")
    assert rows["1"][:3] == ["13.0", "2.00", "0.00"]  # 128 KiB of activations, not 512 MiB
    assert rows["24"][-1] == "OOM"
    rows = table_rows(run[0], "Largest prefill batch")
    assert rows["30%"][0] == "18" and rows["4%"][0] == "24"
    # the batch found fits and one more does not
    for key in ("30%", "4%"):
        assert float(rows[key][1]) <= assumptions.ARTICLE_BUDGET_GIB < float(rows[key][2])
    assert "largest decode batch: 23 at 30% overhead, 30 at 4% (prefill: 18 and 24)" in run[0]


def test_the_sweep_section_and_its_rows(run: tuple[str, dict, float]) -> None:
    sweep = run[1]
    d, d_out = sweep["weight_shape"]
    assert d == d_out and d >= 1024 and sweep["weight_bytes"] == 4 * d * d_out
    assert [r["B"] for r in sweep["rows"]] == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    measured = sweep["calibration_measured"]  # lecture 01's, before the sweep raised them
    assert measured["bandwidth_bytes_per_s"] == CALIBRATION["bandwidth_bytes_per_s"]
    assert measured["matmul_flops_per_s"] == CALIBRATION["matmul_flops_per_s"]
    assert "lecture 01" in sweep["calibration_source"]
    # structure, not speed: the sweep is timed inside the run it belongs to (a 480 MiB cache
    # sizes it for x10 the copies of a 32 MiB one, and a busy machine stretches both)
    assert 0 < sweep["sweep_seconds"] < run[2]
    assert f"sweep time: {sweep['sweep_seconds']:.2f} s" in run[0]
    peak = sweep["calibration"]["matmul_flops_per_s"]
    bw = sweep["calibration"]["bandwidth_bytes_per_s"]
    ridge = peak / bw
    for r in sweep["rows"]:
        b = r["B"]
        assert r["flops"] == 2 * b * d * d and r["bytes"] == 4 * (d * d + 2 * b * d)
        assert r["intensity"] == pytest.approx(r["flops"] / r["bytes"], rel=1e-12)
        assert r["bound"] == ("compute" if r["intensity"] >= ridge else "memory")
        assert r["latency_s"] > 0 and math.isfinite(r["latency_s"])
        assert r["throughput_per_s"] == pytest.approx(b / r["latency_s"], rel=1e-12)
        assert r["t_pred_s"] == pytest.approx(max(r["flops"] / peak, r["bytes"] / bw), rel=1e-12)
        # physically sensible: no call runs 100x faster than the calibrated compute roof
        assert r["latency_s"] > r["flops"] / (100 * peak)
    printed = table_rows(run[0], "  B  F (GFLOP)")  # the column names; the rows follow the rule
    for r in sweep["rows"]:
        assert printed[str(r["B"])][3:5] == [r["bound"], f"{r['latency_s'] * 1e3:.3f} ms"]


def test_sweep_crossing(run: tuple[str, dict, float]) -> None:
    out, sweep, _ = run
    rows = sweep["rows"]
    ridge = sweep["calibration"]["ridge_point"]
    first = next(i for i, r in enumerate(rows) if r["intensity"] >= ridge)
    before, after = rows[first - 1], rows[first]
    assert before["intensity"] < ridge <= after["intensity"]
    assert sweep["crossing"] == {"before": before["B"], "first": after["B"]}
    assert f"ridge crossing: B in ({before['B']}, {after['B']}]" in out
    found = ledger.sweep_anomalies(
        [r["B"] for r in rows], [r["latency_s"] for r in rows], sweep["anomaly_tolerance"]
    )
    flagged = {a.batch for a in found}
    assert {r["B"] for r in rows if r["anomaly"]} == flagged
    assert {int(m) for m in re.findall(r"^! B=(\d+):", out, flags=re.M)} == flagged


def test_no_batch_beats_its_bound_and_the_weights_rotate(run: tuple[str, dict, float]) -> None:
    """The roofs are raised to what the sweep reached: no row is above 100% of its bound."""
    out, sweep, _ = run
    calib, measured = sweep["calibration"], sweep["calibration_measured"]
    peak, beta = calib["matmul_flops_per_s"], calib["bandwidth_bytes_per_s"]
    assert peak >= measured["matmul_flops_per_s"] and beta >= measured["bandwidth_bytes_per_s"]
    for r in sweep["rows"]:
        assert r["latency_s"] >= max(r["flops"] / peak, r["bytes"] / beta) * (1 - 1e-12), r["B"]
    raised = beta > measured["bandwidth_bytes_per_s"] or peak > measured["matmul_flops_per_s"]
    assert ("roofs raised to what the sweep itself reached" in out) == raised
    w, copies, llc = sweep["weight_bytes"], sweep["weight_copies"], sweep["llc_bytes"]
    assert sweep["streamed_between_reads_bytes"] == w * max(1, copies - 1)
    if llc:  # 4x the LLC between two reads of one copy, or as many copies as 1.5 GiB holds
        assert w * max(1, copies - 1) >= 4 * llc or (copies + 1) * w > 1.5 * 2**30 - 160 * 2**20


def test_without_a_probe_a_480_mib_cache_gets_copies_within_the_budget(tmp_path: Path) -> None:
    path = tmp_path / "fresh.json"  # no probe section: a quick calibration stands in
    proc = run_lecture("03", "--results", str(path), env={"ROOFLINE_FAKE_LLC": "480M"}, check=True)
    assert "measured a quick calibration instead" in proc.stdout
    sweep = results.load_results(path).data["batch_sweep"]
    assert "quick calibration" in sweep["calibration_source"] and len(sweep["rows"]) == 9
    # K = 4096 (64 MiB) unless the machine is too slow: 1 + ceil(4 x 480 MiB / W) copies
    # wanted; the 1.5 GiB budget holds (1536 - 160 MiB - X and Y of B = 256) // W of them
    k, w = sweep["weight_shape"][0], sweep["weight_bytes"]
    arrays = 1536 * 2**20 - 160 * 2**20 - 2 * 4 * 256 * k
    copies = min(1 + math.ceil(4 * 480 * 2**20 / w), arrays // w)
    assert sweep["weight_copies"] == copies and sweep["llc_bytes"] == 480 * 2**20
    assert f"copies of W:   {copies}, read in turn ({copies * w // 2**20} MiB)" in proc.stdout
    between = (copies - 1) * w / (480 * 2**20)
    assert ("The sweep ran with the working set" in proc.stdout) == (between < 2)
