"""Lecture 01's tables and sentences, from hand-made calibrations and rows of known numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from common.files.calibration import SavedCalibration
from common.files.results import Loaded
from common.present import probe
from common.present.display import Group, Table
from common.tables.units import GIB, KIB, MIB

# P = 100 GFLOP/s, beta = 20 GB/s: ridge 5 FLOP/byte; one thread: 50 GFLOP/s, ridge 2.5.
CALIB = {
    "bandwidth_bytes_per_s": 2e10,
    "bandwidth_median_bytes_per_s": 1.5e10,
    "matmul_flops_per_s": 1e11,
    "matmul_one_thread_flops_per_s": 5e10,
    "ridge_point": 5.0,
    "ridge_point_one_thread": 2.5,
    "bandwidth_threads": 1,
    "matmul_threads": 4,
    "bandwidth_working_set_bytes": GIB,
    "bandwidth_samples": 7,
    "matmul_n": 1024,
    "matmul_samples": 9,
}
LLC = 128 * MIB  # the working set is 8x it


def table(group: Group) -> Table:
    """The table in a group (a heading, the table, maybe a note)."""
    return next(item for item in group.items if isinstance(item, Table))


def row(name: str, **values: object) -> dict[str, object]:
    """An operation row with the keys the tables read; unspecified numbers are 1."""
    base: dict[str, object] = {
        "name": name,
        "shape": "[n]",
        "flops": 1.0,
        "bytes": 1.0,
        "intensity": 1.0,
        "working_set_bytes": 1.0,
        "threads": 1,
        "threads_text": "1",
        "bound": "memory",
        "t_compute_s": 1.0,
        "t_memory_s": 1.0,
        "t_pred_s": 1.0,
        "t_meas_s": 1.0,
        "fraction_of_bound": 1.0,
        "achieved_flops_per_s": 1.0,
        "flag": None,
    }
    base.update(values)
    return base


# F = 1e8 FLOP, D = 1.2e9 B: F/P = 1 ms, D/beta = 60 ms, memory-bound; timed at 75 ms it
# reached 60/75 = 80% of its bound and 1e8 / 0.075 = 1.33 GFLOP/s.
ADD = row(
    "add",
    flops=1e8,
    bytes=1.2e9,
    intensity=1e8 / 1.2e9,
    working_set_bytes=GIB,
    t_compute_s=1e-3,
    t_memory_s=0.06,
    t_pred_s=0.06,
    t_meas_s=0.075,
    fraction_of_bound=0.8,
    achieved_flops_per_s=1e8 / 0.075,
)
# The same operation timed at 30 ms: 200% of its bound, flagged.
FAST = {**ADD, "name": "fast add", "t_meas_s": 0.03, "fraction_of_bound": 2.0}
FAST["flag"] = "above roof"


def test_previous_text_names_the_file_or_the_reason() -> None:
    none = SavedCalibration(None, "no results file at x", "", Loaded(None, "no file", Path("x")))
    assert (
        str(probe.previous_text(none)) == "previous calibration: none usable (no results file at x)"
    )
    doc = Loaded({"updated": "2024-01-01"}, "", Path("/elsewhere/m.json"))
    found = SavedCalibration({"matmul_flops_per_s": 1.0}, "", "", doc)
    assert (
        str(probe.previous_text(found))
        == "previous calibration: /elsewhere/m.json (updated 2024-01-01)"
    )


def test_machine_facts_lines() -> None:
    desc = {
        "cpu": "TestCPU",
        "cores": 4,
        "system": "Linux x86_64",
        "numpy": "2.0",
        "python": "3.11",
        "blas": {
            "library": "openblas",
            "version": "0.3",
            "threading_layer": "pthreads",
            "kernel": "Haswell",
            "threads": 4,
        },
        "blas_env": {"OMP_NUM_THREADS": "4"},
    }
    lines = str(probe.machine_facts(desc, [("L1d", 48 * KIB), ("L3", 32 * MIB)], LLC, 16 * GIB))

    def pad(name: str) -> str:  # the longest name has 26 characters: values start at 28
        return name + ":" + " " * (27 - len(name))

    assert lines.splitlines()[3:] == [
        pad("CPU") + "TestCPU, 4 usable cores (Linux x86_64)",
        pad("caches (per core view)") + "L1d 48 KiB, L3 32 MiB",
        pad("available memory") + "16.00 GiB",
        pad("numpy") + "2.0 (Python 3.11)",
        pad("BLAS library") + "openblas 0.3, pthreads threading",
        pad("BLAS kernel") + "Haswell (the core type the library chose for this CPU)",
        pad("BLAS threads") + "4 (used by matmul)",
        pad("numpy elementwise threads") + "1 (ufuncs and reductions run on the calling thread)",
        "BLAS environment variables: OMP_NUM_THREADS=4",
    ]
    no_caches = str(probe.machine_facts({**desc, "blas_env": {}}, [], 32 * MIB, None))
    assert "caches:" in no_caches and "not reported; assuming an LLC of 32.00 MiB" in no_caches
    assert no_caches.endswith("BLAS environment variables: none set")
    assert "available memory:           unknown" in no_caches


def test_roofs_table_and_ridge() -> None:
    assert table(probe.roofs_table(CALIB, LLC)).rows == [
        ["bandwidth beta", "20.00 GB/s", "1", "z = x + y over 1.00 GiB (8.0x LLC), best of 7"],
        ["compute P", "100.0 GFLOP/s", "4", "C = A @ B, n = 1024, best of 9"],
        ["compute, 1 thread", "50.0 GFLOP/s", "1", "the same matmul, BLAS limited to 1 thread"],
    ]
    assert str(probe.ridge_lines(CALIB)).splitlines() == [
        "",
        "ridge point I* = P / beta = 100.0 GFLOP/s / 20.00 GB/s = 5.00 FLOP/byte",
        "same-threads ridge (1-thread matmul / 1-thread bandwidth) = 2.50 FLOP/byte",
    ]


def test_roof_observations_warn_on_a_poor_thread_speedup() -> None:
    # 4 threads, x2.00 over one: below 0.6 x 4 = 2.4, so the warning appears
    items = probe.roof_observations(CALIB, None, 4).items
    assert "the median call moved 15.00 GB/s, 25% less" in items[0]
    assert "x2.00 as fast as on one" in items[1]
    assert "x2.00 the same-threads ridge (2.50 FLOP/byte" in items[1]
    assert items[2].startswith("Warning: 4 threads gave only x2.00 over one.")
    # 2 threads, x2.00: no warning; a previous run 25 GB/s and 80 GFLOP/s: -20.0%, +25.0%
    previous = {"bandwidth_bytes_per_s": 2.5e10, "matmul_flops_per_s": 8e10}
    items = probe.roof_observations(CALIB, previous, 2).items
    assert len(items) == 4 and not any(i.startswith("Warning") for i in items)
    assert items[2].startswith("The roofs were timed again between the operations below")
    assert "differ by -20.0% and +25.0%" in items[3]


def test_roof_observations_say_a_busy_run_and_the_cache_notes() -> None:
    busy = {**CALIB, "busy_reasons": ["the median matmul ran at 37% of its best call"]}
    note = "The bandwidth roof ran with the working set 0.65x the LLC (...): it measures x"
    items = probe.roof_observations(busy, None, 2, [note, None]).items
    assert items[2] == (
        "This run was on a busy machine: the median matmul ran at 37% of its best call. The "
        "roofs were timed between the operations, so neither is below what its own kernel (the "
        "add, the square GEMM) reached in this run; but both are lower than a quiet machine "
        "gives, and an operation that caught a quieter moment can still land above them."
    )
    assert items[3] == note + "." and len(items) == 4


def test_the_machine_is_named_as_the_one_that_built_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    desc = {"cpu": "AMD EPYC", "cores": 2}
    monkeypatch.delenv("ROOFLINE_HTML", raising=False)
    here = str(probe.built_here(desc, 32 * MIB, "01_machine_probe.py"))
    assert here.startswith("\nMeasured on this machine: AMD EPYC, 2 cores, LLC 32.00 MiB, on ")
    assert here.endswith("to measure your own, run python3 lectures/01_machine_probe.py on it.")
    monkeypatch.setenv("ROOFLINE_HTML", "1")
    site = str(probe.measured_on(desc, None))
    assert site.startswith("(measured on the machine that built this page: AMD EPYC, 2 cores, ")
    assert "LLC not reported" in site


def test_ledger_and_timing_tables() -> None:
    ledger = table(probe.ledger_table([ADD], 5.0))
    assert ledger.rows == [
        ["add", "[n]", "100.00 MFLOP", "1.20 GB", "0.0833", "1.00 GiB", "1"],
    ]
    assert ledger.note == "(I* = 5.00 FLOP/byte: below it an operation is memory-bound)"
    timing = table(probe.timing_table([ADD, FAST]))
    assert timing.rows[0] == [
        "add",
        "1.00 ms",
        "60.0 ms",
        "memory",
        "60.0 ms",
        "75.0 ms",
        "80%",
        "1.3 GFLOP/s",
    ]
    assert timing.rows[1][6] == "above roof (see note)"


def test_above_roof_notes_only_for_flagged_rows() -> None:
    text = str(probe.above_roof_notes([ADD, FAST], LLC, 1))
    lines = text.splitlines()
    assert lines[0] == "" and len(lines) == 2  # a blank line, then one note
    assert lines[1].startswith("note: fast add ran at 200% of its bound, which the roofline")
    assert str(probe.above_roof_notes([ADD], LLC, 1)) == ""


def test_operation_observations_quote_the_rows() -> None:
    rows = [
        row("add", intensity=0.0833, fraction_of_bound=0.8),
        row("add+relu 2 passes", intensity=0.1, t_meas_s=0.1),
        row("add+relu 1 expr", intensity=0.0833, t_meas_s=0.125, fraction_of_bound=0.9),
        row("LayerNorm", intensity=0.15, bytes=2.94e9, fraction_of_bound=0.88),
        row("attention naive", intensity=12.8, fraction_of_bound=0.67),
        row("GEMM M=8", intensity=3.99, fraction_of_bound=0.32),
        row("GEMM M=512", intensity=228.0, bound="compute", fraction_of_bound=0.47),
        row("GEMM square", intensity=256.0, bound="compute", fraction_of_bound=0.42),
    ]
    phases = {"matmuls": (0.3, 0.1), "softmax": (0.2, 0.15)}
    items = probe.operation_observations(rows, 5.0, phases, 0.02, 5.872e8).items
    assert items[0].startswith("The add reached 80% of its bound.")
    assert "I <= 0.15 FLOP/byte, x33 or more below I* = 5.00" in items[1]  # 5 / 0.15 = 33.3
    assert "took 100 ms; written as one expression it took 125 ms, x1.25 as long" in items[2]
    assert "zero-fill pass (20.0 ms at the bandwidth roof)" in items[2]
    assert "it reaches 90% of its bound" in items[2]
    assert "move 2.94 GB" in items[3] and "would move 587.20 MB" in items[3]
    # phases: matmuls 300 ms (bound 100 ms), softmax 200 ms (bound 150 ms);
    # overlap limit 150 / (100 + 150) = 60%; shares 100/300 = 33%, 150/200 = 75%
    assert "matmuls took 300 ms (their bound: 100 ms)" in items[4]
    assert "softmax 200 ms (bound: 150 ms)" in items[4]
    assert "would reach only 60%" in items[4]
    assert "matmuls reached 33% of their bound and the softmax 75%" in items[4]
    assert "I = 3.99 FLOP/byte, memory-bound, 32% of its bound" in items[5]
    assert "I = 228, compute-bound, 47%" in items[5]
    assert items[5].endswith("near 100%: 42%.")


def test_same_flops_table_and_observations() -> None:
    gemm = {"name": "GEMM 336^3", "flops": 7.5e7, "bytes": 1.5e6, "t_meas_s": 4e-4}
    add = {"name": "add [n]", "flops": 7.2e7, "bytes": 8.64e8, "t_meas_s": 0.09}
    same = table(probe.same_flops_table(gemm, add))
    assert same.rows == [
        ["GEMM 336^3", "75.00 MFLOP", "1.50 MB", "50.0", "400 µs", "187.5 GFLOP/s"],
        ["add [n]", "72.00 MFLOP", "864.00 MB", "0.083", "90.0 ms", "800.0 MFLOP/s"],
    ]
    # 7.2 / 7.5 = 0.960; 0.09 / 4e-4 = 225
    assert same.note == "FLOP ratio add / GEMM = 0.960; time ratio = x225"
    items = probe.same_flops_observations(gemm, add, 2.5e11, 3 * 256 * MIB).items
    assert "within 4.0%, yet the add takes x225 as long" in items[0]
    assert "moves 864.00 MB for its FLOPs, the matmul 1.50 MB" in items[0]
    assert "(768.00 MiB in all)" in items[1]
    assert "ran at 187.5 GFLOP/s, 75% of P" in items[1]  # 187.5 / 250


def test_cache_notes_name_the_sets_kept_near_the_llc() -> None:
    calib = {"bandwidth_working_set_bytes": 314 * MIB}
    rows = [
        {"name": "add", "working_set_bytes": 314 * MIB},  # the stream's own: said once, above
        {"name": "attention naive", "working_set_bytes": 96 * MIB},
        {"name": "GEMM M=8", "working_set_bytes": 1024 * MIB},  # 2.1x: clear, nothing said
    ]
    notes = probe.cache_notes(calib, rows, 480 * MIB)
    assert notes[0] is not None and notes[0].startswith("The bandwidth roof ran with the working")
    assert "0.65x the LLC" in notes[0] and "mostly the LLC, not DRAM" in notes[0]
    assert notes[1] is not None and notes[1].startswith("Attention naive ran with")
    assert "0.2x the LLC" in notes[1] and notes[2] is None and len(notes) == 3
    assert probe.cache_notes(calib, rows, None) == [None, None, None]  # unknown: no claim


def test_roofline_rows_use_the_final_roofs() -> None:
    timed = [("add", "[n]", (1e8, 1.2e9), 0.075, GIB, 1, "", True)]
    (r,) = probe.roofline_rows(timed, 1e11, 2e10)
    assert r["t_pred_s"] == 1.2e9 / 2e10 and r["fraction_of_bound"] == 0.06 / 0.075
    assert (r["threads_text"], r["same_as_calibration"], r["shape"]) == ("1", True, "[n]")
