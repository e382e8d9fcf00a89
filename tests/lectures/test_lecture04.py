"""Lecture 04 draws four PNGs from a results file, and says in one line what it cannot draw."""

from __future__ import annotations

import struct
from pathlib import Path

from conftest import quiet_run, run_lecture

from common.files import results
from common.formulas import ledger
from common.formulas.roofline import lower_bound_time, matmul_counts
from common.plots import style

NAMES = ("local_roofline.png", "batch_sweep.png", "memory_ledger.png", "speedup_2x.png")
CALIBRATION = {"bandwidth_bytes_per_s": 2.0e10, "matmul_flops_per_s": 1.5e11, "ridge_point": 7.5}


def probe_section() -> dict:
    """A probe section shaped like lecture 01's, with made-up timings."""
    peak, bw = CALIBRATION["matmul_flops_per_s"], CALIBRATION["bandwidth_bytes_per_s"]
    ops = []
    for name, flops, nbytes, seconds in [
        ("elementwise add", 32e6, 384e6, 0.02), ("add+relu, two passes", 64e6, 640e6, 0.04),
        ("LayerNorm [8192, 4096]", 2.0e8, 1.3e9, 0.09), ("naive attention", 2.2e9, 1.7e8, 0.05),
        ("GEMM 512x4096x4096", 1.7e10, 8.4e7, 0.13), ("GEMM 4096x4096x4096", 1.4e11, 2.0e8, 1.0),
    ]:  # fmt: skip
        intensity, t_pred = flops / nbytes, max(flops / peak, nbytes / bw)
        bound = "compute" if intensity >= CALIBRATION["ridge_point"] else "memory"
        ops.append({
            "name": name, "flops": flops, "bytes": nbytes, "intensity": intensity, "bound": bound,
            "t_pred_s": t_pred, "t_meas_s": seconds, "fraction_of_bound": t_pred / seconds,
            "achieved_flops_per_s": flops / seconds, "flag": ""})  # fmt: skip
    return {"calibration": CALIBRATION, "operations": ops, "same_flops": {}}


def sweep_section() -> dict:
    """A batch_sweep section shaped like lecture 03's, with one anomaly at B = 2."""
    peak, bw = CALIBRATION["matmul_flops_per_s"], CALIBRATION["bandwidth_bytes_per_s"]
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    rows = []
    for b in batches:
        flops, nbytes = matmul_counts(b, 4096, 4096, 4, 4, 4)
        t_pred = lower_bound_time(flops, nbytes, peak, bw)
        latency = t_pred * (3.0 if b == 2 else 1.2)
        bound = "compute" if flops / nbytes >= CALIBRATION["ridge_point"] else "memory"
        rows.append({
            "B": b, "flops": flops, "bytes": nbytes, "intensity": flops / nbytes, "bound": bound,
            "latency_s": latency, "throughput_per_s": b / latency, "t_pred_s": t_pred,
            "anomaly": None})  # fmt: skip
    for a in ledger.sweep_anomalies(batches, [r["latency_s"] for r in rows]):
        rows[batches.index(a.batch)]["anomaly"] = f"{a.kind} vs B={a.other}"
    return {"weight_shape": [4096, 4096], "weight_bytes": 4 * 4096 * 4096, "rows": rows,
            "calibration": CALIBRATION, "calibration_source": "test",
            "crossing": {"before": 8, "first": 16}}  # fmt: skip


def make_results(path: Path, *, probe: bool = True, sweep: bool = True) -> Path:
    """A results file for this machine with the chosen sections."""
    if probe:
        results.save_section("probe", probe_section(), path)
    if sweep:
        results.save_section("batch_sweep", sweep_section(), path)
    return path


def saved_paths(stdout: str) -> list[Path]:
    saved = [ln for ln in stdout.splitlines() if ln.startswith("saved figure:")]
    return [Path(ln.split(": ", 1)[1]) for ln in saved]


def test_four_figures(tmp_path: Path) -> None:
    res = make_results(tmp_path / "machine.json")
    outdir = tmp_path / "figs"
    out = quiet_run("04", "--outdir", str(outdir), "--results", str(res))
    assert saved_paths(out) == [outdir / n for n in NAMES]
    assert sorted(p.name for p in outdir.iterdir()) == sorted(NAMES)  # no temporary files left
    for name in NAMES:
        data = (outdir / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", data[16:24])  # from the IHDR chunk, in pixels
        assert 0 < width <= style.MAX_WIDTH_IN * style.DPI + 1, name
        assert height > 100
    assert "skipped" not in out


def test_a_missing_or_malformed_sweep_is_one_line(tmp_path: Path) -> None:
    res = make_results(tmp_path / "machine.json", sweep=False)
    outdir = tmp_path / "figs"
    proc = run_lecture("04", "--outdir", str(outdir), "--results", str(res), check=True)
    assert "Traceback" not in proc.stderr
    skipped = [ln for ln in proc.stdout.splitlines() if ln.startswith("skipped")]
    assert len(skipped) == 1 and "batch_sweep" in skipped[0] and "lecture 03" in skipped[0]
    assert sorted(p.name for p in outdir.iterdir()) == sorted(set(NAMES) - {"batch_sweep.png"})
    bad = sweep_section()
    bad["rows"][3]["latency_s"] = -1.0
    results.save_section("batch_sweep", bad, res)
    proc = run_lecture("04", "--outdir", str(tmp_path / "figs"), "--results", str(res), check=True)
    skipped = [ln for ln in proc.stdout.splitlines() if ln.startswith("skipped")]
    assert len(skipped) == 1 and "malformed" in skipped[0]


def test_without_a_probe_or_a_file(tmp_path: Path) -> None:
    res = make_results(tmp_path / "machine.json", probe=False)
    proc = run_lecture("04", "--outdir", str(tmp_path / "figs"), "--results", str(res), check=True)
    notes = [ln for ln in proc.stdout.splitlines() if ln.startswith("roofline:")]
    assert len(notes) == 1 and "no 'probe' section" in notes[0]
    assert len(saved_paths(proc.stdout)) == 4
    outdir = tmp_path / "figs"
    none = tmp_path / "none.json"
    proc = run_lecture("04", "--outdir", str(outdir), "--results", str(none), check=True)
    assert "Traceback" not in proc.stderr
    assert proc.stdout.splitlines()[0].startswith("results: no results file")
    assert "quick calibration" in proc.stdout and len(saved_paths(proc.stdout)) == 3
    assert not none.exists()  # drawing never writes results
