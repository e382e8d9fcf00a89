"""Lecture 01's words (lectures/words/machine_probe.py): hand-made calibrations and rows."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from edit_battery import contradictions
from hypothesis import given, settings
from hypothesis import strategies as st
from present.fake_chips import observed, table

from common.files.calibration import SavedCalibration
from common.files.results import Loaded
from common.present import probe
from common.present.display import Group, Text
from common.tables.units import GIB, KIB, MIB
from lectures.words import machine_probe as page
from lectures.words.machine_probe import Operations, Roofs, SameFlops

# P = 100 GFLOP/s, beta = 20 GB/s: ridge 5 FLOP/byte; one thread: 50 GFLOP/s, ridge 2.5.
CALIB = {"bandwidth_bytes_per_s": 2e10, "bandwidth_median_bytes_per_s": 1.5e10}
CALIB |= {"matmul_flops_per_s": 1e11, "matmul_one_thread_flops_per_s": 5e10}
CALIB |= {"ridge_point": 5.0, "ridge_point_one_thread": 2.5}
CALIB |= {"bandwidth_threads": 1, "matmul_threads": 4}
CALIB |= {"bandwidth_working_set_bytes": GIB, "bandwidth_samples": 7}
CALIB |= {"matmul_n": 1024, "matmul_samples": 9}
LLC = 128 * MIB  # the working set is 8x it


def row(name: str, **values: object) -> dict[str, object]:
    """An operation row with the keys the tables read; unspecified numbers are 1."""
    numbers = ("flops", "bytes", "intensity", "working_set_bytes", "t_compute_s", "t_memory_s")
    numbers += ("t_pred_s", "t_meas_s", "fraction_of_bound", "achieved_flops_per_s")
    base = {"name": name, "shape": "[n]", "threads": 1, "threads_text": "1", "bound": "memory"}
    return {**base, **dict.fromkeys(numbers, 1.0), "flag": None, **values}


# F = 1e8 FLOP, D = 1.2e9 B: F/P = 1 ms, D/beta = 60 ms, memory-bound; timed at 75 ms it
# reached 60/75 = 80% of its bound and 1e8 / 0.075 = 1.33 GFLOP/s.
ADD = row("add", flops=1e8, bytes=1.2e9, intensity=1e8 / 1.2e9, working_set_bytes=GIB)
ADD |= {"t_compute_s": 1e-3, "t_memory_s": 0.06, "t_pred_s": 0.06, "t_meas_s": 0.075}
ADD |= {"fraction_of_bound": 0.8, "achieved_flops_per_s": 1e8 / 0.075}
# The same operation timed at 30 ms: 200% of its bound, flagged.
FAST = {**ADD, "name": "fast add", "t_meas_s": 0.03, "fraction_of_bound": 2.0}
FAST["flag"] = "above roof"


def test_previous_text_names_the_file_or_the_reason() -> None:
    none = SavedCalibration(None, "no results file at x", "", Loaded(None, "no file", Path("x")))
    said = str(page.previous_text(none))
    assert said == "previous calibration: none usable (no results file at x)"
    doc = Loaded({"updated": "2024-01-01"}, "", Path("/elsewhere/m.json"))
    said = str(page.previous_text(SavedCalibration({"matmul_flops_per_s": 1.0}, "", "", doc)))
    assert said == "previous calibration: /elsewhere/m.json (updated 2024-01-01)"
    # the file is read (its data is there) but holds no calibration: the reason, not the file
    unusable = SavedCalibration(None, "no calibration section", "", doc)
    assert "none usable (no calibration section)" in str(page.previous_text(unusable))


def test_machine_facts_lines() -> None:
    blas = {"library": "openblas", "version": "0.3", "threading_layer": "pthreads"}
    blas |= {"kernel": "Haswell", "threads": 4}
    desc = {"cpu": "TestCPU", "cores": 4, "system": "Linux x86_64", "numpy": "2.0"}
    desc |= {"python": "3.11", "blas": blas, "blas_env": {"OMP_NUM_THREADS": "4"}}
    lines = str(page.machine_facts(desc, [("L1d", 48 * KIB), ("L3", 32 * MIB)], LLC, 16 * GIB))

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
    no_caches = str(page.machine_facts({**desc, "blas_env": {}}, [], 32 * MIB, None))
    assert "caches:" in no_caches and "not reported; assuming an LLC of 32.00 MiB" in no_caches
    assert no_caches.endswith("BLAS environment variables: none set")
    assert "available memory:           unknown" in no_caches


STAMP = Text("(measured on a test machine)")


def roofs(calib: dict, previous: dict | None = None, blas: object = 4, notes=()) -> Group:
    return page.roofs(Roofs(calib, previous, blas, tuple(notes)), LLC, STAMP)


def test_roofs_table_ridge_and_the_thread_speedup() -> None:
    assert Roofs(CALIB, None, 1).cache_notes == ()  # no note unless the lecture gives one
    group = roofs(CALIB)
    assert table(group).rows == [
        ["bandwidth beta", "20.00 GB/s", "1", "z = x + y over 1.00 GiB (8.0x LLC), best of 7"],
        ["compute P", "100.0 GFLOP/s", "4", "C = A @ B, n = 1024, best of 9"],
        ["compute, 1 thread", "50.0 GFLOP/s", "1", "the same matmul, BLAS limited to 1 thread"],
    ]
    assert group.items[2] is STAMP
    assert str(group.items[3]).splitlines() == [
        "",
        "ridge point I* = P / beta = 100.0 GFLOP/s / 20.00 GB/s = 5.00 FLOP/byte",
        "same-threads ridge (1-thread matmul / 1-thread bandwidth) = 2.50 FLOP/byte",
    ]
    # 4 threads, x2.00 over one: below 0.6 x 4 = 2.4, so the warning appears
    items = observed(roofs(CALIB))
    assert "the median call moved 15.00 GB/s, 25% less" in items[0]
    # 100 / 50 GFLOP/s: x2.00 faster on 4 threads; ridge 5 against 2.5: x2.00 as much
    assert "The matmul ran on 4 BLAS threads, x2.00 faster than on one, but numpy" in items[1]
    assert "x2.00 as much as the same-threads ridge (2.50 FLOP/byte" in items[1]
    assert items[2].startswith(
        "Warning: on 4 threads the matmul ran x2.00 faster than on one, far from x4."
    )
    slow = observed(
        roofs({**CALIB, "matmul_one_thread_flops_per_s": 2e11, "ridge_point_one_thread": 10.0})
    )
    # 100 / 200 GFLOP/s: x2.00 slower on 4 threads than on one; ridge 5 against 10
    assert "4 BLAS threads, x2.00 slower than on one" in slow[1]
    assert "1/2.00 as much as the same-threads ridge" in slow[1]
    level = observed(roofs({**CALIB, "ridge_point_one_thread": 5.0}))
    assert "the same as the same-threads ridge" in level[1]
    # 2 threads, x2.00: no warning; a previous run 25 GB/s and 80 GFLOP/s: -20.0%, +25.0%
    previous = {"bandwidth_bytes_per_s": 2.5e10, "matmul_flops_per_s": 8e10}
    items = observed(roofs(CALIB, previous, 2))
    assert len(items) == 4 and not any(i.startswith("Warning") for i in items)
    assert items[2].startswith("The roofs were timed again between the operations below")
    assert "differ by -20.0% and +25.0%" in items[3]
    # Regression (issue 25): 'The roofs mix thread counts' printed when both ran on one.
    one = {**CALIB, "matmul_threads": 1, "bandwidth_median_bytes_per_s": 1.999e10}
    items = observed(roofs(one, None, 1))
    # (1 - 19.99 / 20) = 0.05%: prints as 0
    assert "the median call moved 19.99 GB/s, about as much." in items[0]
    assert (
        items[1]
        == "Both roofs ran on 1 thread, so the ridge point 5.00 FLOP/byte compares like with like."
    )
    assert "mix thread counts" not in " ".join(items)
    two = observed(roofs({**CALIB, "matmul_threads": 2, "bandwidth_threads": 2}, None, 2))
    assert two[1].startswith("Both roofs ran on 2 threads, so the ridge point 5.00")
    # Shrunk by hypothesis: 100 MFLOP/s on 1 BLAS thread against 20 GFLOP/s on one printed
    # 'x0.00 as fast as on one' and 'x0.00 the same-threads ridge'.
    calib = {**CALIB, "matmul_flops_per_s": 1e8, "matmul_one_thread_flops_per_s": 2e10}
    calib |= {"bandwidth_bytes_per_s": 1e8, "ridge_point": 1.0, "ridge_point_one_thread": 200.0}
    said = observed(roofs(calib | {"matmul_threads": 1, "bandwidth_threads": 2}, None, 1))[1]
    # 2e10 / 1e8 = 200: x200.00 slower; ridge 1 against 200: 1/200.00 as much
    assert "The matmul ran on 1 BLAS threads, x200.00 slower than on one" in said
    assert "1/200.00 as much as the same-threads ridge (200.00 FLOP/byte" in said
    assert "x0" not in said


def test_roof_observations_say_a_busy_run_and_the_cache_notes() -> None:
    busy = {**CALIB, "busy_reasons": ["the median matmul ran at 37% of its best call"]}
    note = "The bandwidth roof ran with the working set 0.65x the LLC (...): it measures x"
    items = observed(roofs(busy, None, 2, [note]))
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
    ledger = table(page.ledger_table([ADD], 5.0))
    assert ledger.rows == [["add", "[n]", "100.00 MFLOP", "1.20 GB", "0.0833", "1.00 GiB", "1"]]
    assert ledger.note == "(I* = 5.00 FLOP/byte: below it an operation is memory-bound)"
    group = page.timing_table([ADD, FAST], STAMP, LLC, 1)
    timing = table(group)
    assert timing.rows[0][:4] == ["add", "1.00 ms", "60.0 ms", "memory"]
    assert timing.rows[0][4:] == ["60.0 ms", "75.0 ms", "80%", "1.3 GFLOP/s"]
    assert timing.rows[1][6] == "above roof (see note)" and group.items[2] is STAMP
    lines = [str(n) for n in page.timing_table([ADD, FAST, FAST], STAMP, LLC, 1).items[3:]]
    assert len(lines) == 2 and lines[0].startswith("\nnote: fast add ran at 200% of its bound,")
    assert lines[1].startswith("note: fast add ran at 200% of its bound, which the roofline")
    assert "Likely reasons: " in lines[1]
    assert len(page.timing_table([ADD], STAMP, LLC, 1).items) == 3  # no note


def test_operation_observations_quote_the_rows() -> None:
    items = page.operation_observations(operations(5.0)).items
    assert items[0].startswith("The add reached 80% of its bound.")
    assert "I <= 0.15 FLOP/byte, at most 1/33.3 of I* = 5.00: memory-bound" in items[1]
    near = page.operation_observations(operations(0.1502)).items[1]  # 0.1502 / 0.15 prints 1
    assert "I <= 0.15 FLOP/byte, below I* = 0.15: memory-bound" in near
    assert "took 100 ms; written as one expression it took 125 ms, x1.25 as long" in items[2]
    assert "zero-fill pass (20.0 ms at the bandwidth roof)" in items[2]
    assert "it reaches 90% of its bound" in items[2]
    assert "move 2.94 GB" in items[3] and "would move 587.20 MB" in items[3]
    # phases: matmuls 300 ms (bound 100 ms), softmax 200 ms (bound 150 ms);
    # overlap limit 150 / (100 + 150) = 60%; shares 100/300 = 33%, 150/200 = 75%
    assert "matmuls took 300 ms (their bound: 100 ms)" in items[4]
    assert "softmax 200 ms (bound: 150 ms)" in items[4] and "would reach only 60%" in items[4]
    assert items[4].endswith("matmuls reached 33% of their bound and the softmax 75%.")
    assert "I = 3.99 FLOP/byte, memory-bound, 32% of its bound" in items[5]
    assert "I = 228, compute-bound, 47%" in items[5] and items[5].endswith("near 100%: 42%.")
    items = page.operation_observations(operations(0.09, "compute")).items
    assert items[1] == (
        "The elementwise rows and LayerNorm have I <= 0.15 FLOP/byte, against I* = 0.09: add "
        "reaches the compute roof here."
    )
    # softmax at 0.06 / 0.2 = 30% of its bound, below the matmuls' 33%: the reason is said
    slow = page.operation_observations(operations(5.0, softmax=0.06)).items
    assert slow[4].endswith(
        "the softmax 30%: the softmax runs on one thread, and its exp, counted as one FLOP, "
        "costs many instructions."
    )


def test_same_flops_table_and_observations() -> None:
    gemm = {"name": "GEMM 336^3", "flops": 7.5e7, "bytes": 1.5e6, "t_meas_s": 4e-4}
    add = {"name": "add [n]", "flops": 7.2e7, "bytes": 8.64e8, "t_meas_s": 0.09}
    group = page.same_flops(SameFlops(gemm, add, 2.5e11, 3 * 256 * MIB), STAMP)
    same = table(group)
    assert same.rows == [
        ["GEMM 336^3", "75.00 MFLOP", "1.50 MB", "50.0", "400 µs", "187.5 GFLOP/s"],
        ["add [n]", "72.00 MFLOP", "864.00 MB", "0.083", "90.0 ms", "800.0 MFLOP/s"],
    ]
    # 7.2 / 7.5 = 0.960; 0.09 / 4e-4 = 225
    assert same.note == "FLOP ratio add / GEMM = 0.960; time ratio = x225"
    items = observed(group)
    assert "within 4.0%, yet the add is x225.0 slower than the matmul" in items[0]
    assert "moves 864.00 MB for its FLOPs, the matmul 1.50 MB" in items[0]
    assert "(768.00 MiB in all)" in items[1]
    assert "ran at 187.5 GFLOP/s, 75% of P" in items[1]  # 187.5 / 250
    gemm = {"name": "GEMM", "flops": 1e8, "bytes": 1e6, "t_meas_s": 2e-3}
    add = {"name": "add", "flops": 1e8, "bytes": 1.2e9, "t_meas_s": 1e-3}
    group = page.same_flops(SameFlops(gemm, add, 1e11, GIB), STAMP)
    # 2 ms / 1 ms: the add x2.0 faster; time ratio 1 / 2 = x0.5, never x0
    assert "yet the add is x2.0 faster than the matmul" in observed(group)[0]
    assert table(group).note.endswith("time ratio = x0.5")
    same = {**add, "t_meas_s": 2e-3}
    text = observed(page.same_flops(SameFlops(gemm, same, 1e11, GIB), STAMP))[0]
    assert "yet the add is no faster than the matmul" in text


def operations(ridge: float, add_bound: str = "memory", softmax: float = 0.15) -> Operations:
    """Lecture 01's rows; attention's matmuls took 300 ms (bound 100), its softmax 200 ms."""
    rows = [
        row("add", intensity=0.0833, fraction_of_bound=0.8, bound=add_bound),
        row("add+relu 2 passes", intensity=0.1, t_meas_s=0.1),
        row("add+relu 1 expr", intensity=0.0833, t_meas_s=0.125, fraction_of_bound=0.9),
        row("LayerNorm", intensity=0.15, bytes=2.94e9, fraction_of_bound=0.88),
        row("attention naive", intensity=12.8, fraction_of_bound=0.67),
        row("GEMM M=8", intensity=3.99, fraction_of_bound=0.32),
        row("GEMM M=512", intensity=228.0, bound="compute", fraction_of_bound=0.47),
        row("GEMM square", intensity=256.0, bound="compute", fraction_of_bound=0.42),
    ]
    phases = {"matmuls": (0.3, 0.1), "softmax": (0.2, softmax)}
    return Operations(rows, ridge, phases, 0.02, 5.872e8)


RATES = st.floats(1e8, 1e13)
TIMES = st.floats(1e-6, 10.0)


@settings(max_examples=40, deadline=None)
@given(
    beta=RATES, share=st.floats(0.0, 1.0), peak=RATES, single=RATES,
    threads=st.tuples(st.integers(1, 64), st.integers(1, 64)), ridge=st.floats(0.01, 1000.0),
    softmax=st.floats(1e-3, 1.0), times=st.tuples(TIMES, TIMES),
)  # fmt: skip
def test_no_claim_contradicts_its_numbers(
    beta, share, peak, single, threads, ridge, softmax, times
) -> None:
    calib = {**CALIB, "bandwidth_bytes_per_s": beta, "bandwidth_median_bytes_per_s": beta * share}
    calib |= {"matmul_flops_per_s": peak, "matmul_one_thread_flops_per_s": single}
    calib |= {"ridge_point": peak / beta, "ridge_point_one_thread": single / beta}
    calib |= {"matmul_threads": threads[0], "bandwidth_threads": threads[1]}
    said = observed(roofs(calib, None, threads[0]))
    assert ("mix thread counts" in said[1]) == (threads[0] != threads[1])
    ops = operations(ridge, softmax=softmax)
    bound = lambda r: "compute" if r["intensity"] >= ridge else "memory"  # noqa: E731
    streaming = [{**r, "bound": bound(r)} for r in ops.rows[:4]]
    ops = dataclasses.replace(ops, rows=[*streaming, *ops.rows[4:]])
    items = page.operation_observations(ops).items
    all_memory = all(r["intensity"] < ridge for r in streaming)
    assert ("a faster compute roof would not change" in items[1]) == all_memory
    gemm = {"name": "GEMM", "flops": 1e8, "bytes": 1e6, "t_meas_s": times[0]}
    add = {"name": "add", "flops": 1e8, "bytes": 1.2e9, "t_meas_s": times[1]}
    pair = page.same_flops(SameFlops(gemm, add, peak, GIB), STAMP)
    text = " ".join([*said, *items, *observed(pair), table(pair).note])
    assert contradictions(text) == [], text
    assert not re.search(r"\bNone\b|\bx0(?:\.0+)?(?![\d.])", text), text
    slower = re.search(r"the add is x([\d.]+) slower", text)
    assert not slower or times[1] > times[0]
