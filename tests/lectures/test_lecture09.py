"""Lecture 09 run as a student runs it: levels named, results section, figures, flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import printed_table, quick_measuring_run
from strategies import run_lecture as run_in_process

from common.files import results
from common.measure import caches, machine

LEVELS_HERE = [name for name, _ in caches.data_levels(caches.read_caches())]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """One --quick run with figures, no probe section (so the quick calibration stands in)."""
    run = quick_measuring_run(tmp_path_factory.mktemp("lecture09"), "09", timeout=240)
    return {**run, "doc": json.loads(run["results"].read_text())}


def test_output_names_every_level_and_the_figures(quick_run: dict) -> None:
    out = quick_run["proc"].stdout
    assert quick_run["proc"].stderr == ""  # no progress when stderr is not a terminal
    rows = printed_table(out, "Plateaus")[1:]
    names = [row[0].split()[0] for row in rows]
    if LEVELS_HERE:
        assert names == [*LEVELS_HERE, "DRAM"]
    else:
        assert names[-1] == "DRAM"
    assert ("Caches the operating system reports" in out) == bool(LEVELS_HERE)
    assert "Fixed cost of one call" in out and "Operations on the hierarchical roofline" in out
    assert "What to observe:" in out
    assert "quick calibration" in out  # no probe section in this results file
    cores = machine.usable_cores()
    assert f"1 thread against {cores}" in out
    rows = [" ".join(row) for row in printed_table(out, "DRAM bandwidth at")[1:]]
    assert rows[0].split()[0] == "1" and "GB/s" in rows[0]
    if cores >= 2:
        assert rows[1].split()[0] == str(cores) and "GB/s" in rows[1] and "FLOP/byte" in rows[1]
    out, outdir = quick_run["proc"].stdout, quick_run["outdir"]
    written = sorted(p.name for p in outdir.iterdir())
    assert written == ["09_bandwidth_by_working_set.png", "09_hierarchical_roofline.png"]
    for name in written:
        data = (outdir / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
        assert f"saved figure: {outdir / name}" in out
    assert "saved results:" in out
    assert not (quick_run["tmp"] / "elsewhere.json").exists()  # --results wins over the env


def test_results_section_schema(quick_run: dict) -> None:
    doc = quick_run["doc"]
    assert doc["format_version"] == results.FORMAT_VERSION
    assert machine.fingerprint(doc["machine"]) == machine.fingerprint(machine.describe())
    h = doc["hierarchy"]
    assert h["quick"] is True and h["bytes_per_element"] == 12
    assert [c["size_bytes"] > 0 for c in h["caches"]] == [True] * len(h["caches"])
    assert [lv["name"] for lv in h["levels"]] == LEVELS_HERE
    per_call = h["per_call"]
    below, above = per_call["below_threshold_seconds"], per_call["above_threshold_seconds"]
    gil = max(0.0, above - below) if below is not None and above is not None else 0.0
    assert per_call["call_seconds"] > 0 and per_call["gil_seconds"] == gil

    points = h["sweep"]["points"]
    assert len(points) >= 20
    sizes = [p["working_set_bytes"] for p in points]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    for p in points:
        assert p["working_set_bytes"] == 12 * p["elements"]
        assert p["seconds"] > 0 and p["batches"] >= 1
        assert p["bytes_per_s"] == pytest.approx(p["working_set_bytes"] / p["seconds"])
        if p["corrected_bytes_per_s"] is not None:  # the fixed cost only ever adds time
            assert p["corrected_bytes_per_s"] >= p["bytes_per_s"]
    if LEVELS_HERE:  # past the last-level cache as far as the 1.5 GiB budget allows
        llc = h["levels"][-1]["size_bytes"]
        limit = max(8 * llc, 256 * 2**20)  # 8x the LLC, at least 256 MiB ...
        limit = min(limit, 0.75 * (1.5 * 2**30 - 160 * 2**20))  # ... in 3/4 of the arrays
        limit = min(limit, (caches.available_memory_bytes() or 2**60) // 4)
        assert limit / 2 ** (1 / 2) < sizes[-1] <= limit  # 2 sizes per octave, up to the limit
        said = "The sweep's largest working set" in quick_run["proc"].stdout
        assert said == (sizes[-1] < 2 * llc)

    plateaus = {p["name"]: p for p in h["plateaus"]}
    detected = [f"L{k}" for k in range(1, len(plateaus))]  # no sizes: named as found
    assert list(plateaus) == [*(LEVELS_HERE or detected), "DRAM"]
    for p in plateaus.values():  # DRAM has no point where the budget stops inside the LLC
        reached = p["name"] != "DRAM" or not LEVELS_HERE or sizes[-1] >= 2 * llc
        assert (p["points"] >= 1 and p["bytes_per_s"] > 0) if reached else p["points"] == 0
    if plateaus["DRAM"]["points"] and LEVELS_HERE:  # detected plateaus are ordered by size only
        assert plateaus["DRAM"]["bytes_per_s"] < plateaus["L1"]["bytes_per_s"]
    assert (plateaus["DRAM"]["hi_bytes"] is None) == bool(LEVELS_HERE)  # known: open-ended

    roof = h["compute_roof_flops_per_s"]
    assert roof > 0
    ops = h["operations"]
    adds = {op["level"] for op in ops if op["label"].startswith("add")}
    assert adds == {name for name, p in plateaus.items() if p["points"]}
    assert sum(op["label"].startswith("matmul") for op in ops) >= 1
    for op in ops:
        assert op["intensity"] > 0 and op["flops_per_s"] > 0
        assert op["closest_roof"] in [*plateaus, "compute"]
    # The roof is the calibration's, raised to the fastest matmul only when one beat it.
    fastest = max(op["flops_per_s"] for op in ops if op["label"].startswith("matmul"))
    if "raised" in h["compute_roof_source"]:
        assert roof == fastest
    else:
        assert roof >= fastest

    t = h["threads"]
    assert t["threads"] == machine.usable_cores() and t["one_thread_bytes_per_s"] > 0
    assert t["ridge_one_thread"] == pytest.approx(roof / t["one_thread_bytes_per_s"])
    if t["threads"] >= 2:
        assert t["all_thread_bytes_per_s"] > 0
        assert t["ridge_all_threads"] == pytest.approx(roof / t["all_thread_bytes_per_s"])


def test_unknown_caches_and_low_probe_roof(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No cache sizes from the OS: the detector names the levels; a low probe roof is raised."""
    results_path = tmp_path / "machine.json"
    # a compute roof far below any real matmul: it must be raised
    calibration = {"bandwidth_bytes_per_s": 1e9, "matmul_flops_per_s": 1e6, "ridge_point": 1e-3}
    results.save_section("probe", {"calibration": calibration}, results_path)
    monkeypatch.setattr(caches, "read_caches_with_source", lambda: ([], ""))
    out = run_in_process("09", "--quick", "--results", str(results_path))
    assert "cache sizes: unknown" in out and "change-point detector (cache sizes unknown)" in out
    assert "compute roof raised" in out
    doc = json.loads(results_path.read_text())
    assert "probe" in doc  # lecture 01's section is kept
    h = doc["hierarchy"]
    assert h["caches"] == [] and h["cache_source"] is None and "detector" in h["plateau_method"]
    names = [p["name"] for p in h["plateaus"]]
    if names:
        assert names[-1] == "DRAM" and names[:-1] == [f"L{k}" for k in range(1, len(names))]
    assert h["compute_roof_flops_per_s"] > 1e6
