"""Lecture 01 (machine probe), run once as a student runs it; structure and consistency only."""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import pytest
from conftest import lecture_path, printed_table, quiet_run, run_lecture, start_python

from common.files import results
from common.formulas import numpy_ops
from common.measure import machine

OPERATIONS = ["add", "add+relu 2 passes", "add+relu 1 expr", "LayerNorm", "attention naive",
              f"GEMM M={numpy_ops.GEMM_SKINNY_M}", f"GEMM M={numpy_ops.GEMM_WIDE_M}",
              "GEMM square"]  # fmt: skip
ROW_KEYS = {"name", "flops", "bytes", "intensity", "bound", "t_pred_s", "t_meas_s",
            "fraction_of_bound", "achieved_flops_per_s", "working_set_bytes", "flag"}  # fmt: skip
CALIBRATION_KEYS = {"bandwidth_bytes_per_s", "matmul_flops_per_s", "ridge_point",
                    "bandwidth_threads", "matmul_threads", "bandwidth_working_set_bytes",
                    "matmul_n"}  # fmt: skip
SI = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
FLAG_TEXT = "above roof (see note)"
TIMING_TABLE = "The roofline's prediction next to the measurement"


class Run:
    """One finished run of the lecture and the results file it wrote."""

    def __init__(self, out: str, path: Path) -> None:
        self.out = out
        self.path = path
        self.doc = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    @property
    def probe(self) -> dict:
        assert self.doc is not None, "the lecture did not write its results file"
        return self.doc["probe"]

    def table(self, title: str) -> list[dict[str, str]]:
        """Rows of the table printed under `title`, as {column name: cell}."""
        header, *rows = printed_table(self.out, title)
        return [dict(zip(header, cells, strict=True)) for cells in rows]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    path = tmp_path_factory.mktemp("lecture01") / "results" / "machine.json"
    return Run(quiet_run("01", "--results", str(path), timeout=300), path)


def test_machine_and_blas_lines(run: Run) -> None:
    blas = machine.blas_info()
    out = run.out
    assert re.search(r"^CPU: +.+, \d+ usable cores", out, re.M)
    assert re.search(rf"^BLAS library: +{re.escape(str(blas['library']))}", out, re.M)
    assert re.search(rf"^BLAS kernel: +{re.escape(str(blas['kernel']))}", out, re.M)
    assert re.search(rf"^BLAS threads: +{blas['threads']} ", out, re.M)
    assert re.search(r"^numpy elementwise threads: +1 ", out, re.M)
    said = re.search(r"^BLAS environment variables: (.*)$", out, re.M)[1]
    env = [f"{k}={v}" for k, v in machine.blas_env().items()] or ["none set"]
    assert all(v in said for v in env)
    line = next(x for x in out.splitlines() if x.startswith("Measured on this machine: "))
    assert f"{machine.describe()['cores']} cores" in line
    assert "run python3 lectures/01_machine_probe.py" in line
    # 32.00 MiB, 480.00 MiB or 1.10 GiB: the cache the run was sized by, in its own unit
    size = re.search(r"LLC ([\d.]+) (MiB|GiB)", line)
    said = float(size[1]) * 2 ** {"MiB": 20, "GiB": 30}[size[2]]
    assert said == pytest.approx(run.probe["calibration"]["llc_bytes"], rel=0.005)


def test_the_roofs_threads_and_ridge(run: Run) -> None:
    calib = run.probe["calibration"]
    rows = {r["roof"]: r for r in run.table("The two roofs of this machine (numpy, fp32)")}
    assert rows["bandwidth beta"]["threads"] == str(calib["bandwidth_threads"]) == "1"
    assert rows["compute P"]["threads"] == str(calib["matmul_threads"])
    assert rows["compute, 1 thread"]["threads"] == "1"
    assert f"n = {calib['matmul_n']}" in rows["compute P"]["measured with"]
    m = re.search(
        r"ridge point I\* = P / beta = ([\d.]+) ([KMGTP]?)FLOP/s / ([\d.]+) ([KMGTP]?)B/s "
        r"= ([\d.]+) FLOP/byte",
        run.out,
    )
    assert m, "ridge point line not found"
    peak, beta = (float(m.group(i)) * SI[m.group(i + 1)] for i in (1, 3))
    ridge = float(m.group(5))
    # printed values are rounded: their relative rounding errors add up
    rounding = sum(_half_digit(m.group(i)) / float(m.group(i)) for i in (1, 3, 5))
    assert ridge == pytest.approx(peak / beta, rel=rounding * 1.01)
    assert calib["ridge_point"] == pytest.approx(
        calib["matmul_flops_per_s"] / calib["bandwidth_bytes_per_s"], rel=1e-12)  # fmt: skip


def _half_digit(number: str) -> float:
    """Half a unit in the last printed digit: the largest rounding error of `number`."""
    decimals = len(number.split(".")[1]) if "." in number else 0
    return 0.5 * 10.0**-decimals


def test_every_operation_is_printed_and_saved_against_the_roofs(run: Run) -> None:
    assert [r["name"] for r in run.probe["operations"]] == OPERATIONS
    ledger = [r["operation"] for r in run.table("The ledger: what each operation must do")]
    timing = [r["operation"] for r in run.table(TIMING_TABLE)]
    assert ledger == OPERATIONS and timing == OPERATIONS and run.out.count("What to observe:") >= 3
    assert "Naive attention reached " in run.out
    # each row's own arithmetic is roofline_row's (tests/formulas/test_numpy_ops.py); here:
    # the roofs it was given are the calibration the file saves beside it
    calib = run.probe["calibration"]
    peak, beta = calib["matmul_flops_per_s"], calib["bandwidth_bytes_per_s"]
    for row in run.probe["operations"]:
        assert set(row) >= ROW_KEYS and row["t_meas_s"] > 0, row["name"]
        assert row["t_compute_s"] == pytest.approx(row["flops"] / peak, rel=1e-12)
        assert row["t_memory_s"] == pytest.approx(row["bytes"] / beta, rel=1e-12)
        assert row["bound"] == ("compute" if row["intensity"] >= calib["ridge_point"] else "memory")


def test_flags_are_exactly_the_rows_above_110_percent(run: Run) -> None:
    rows = run.probe["operations"]
    flagged = {r["name"] for r in rows if r["flag"] is not None}
    assert flagged == {r["name"] for r in rows if r["fraction_of_bound"] > numpy_ops.ABOVE_ROOF}
    for r in run.table(TIMING_TABLE):  # the prediction is the larger time
        assert r["t_pred"] == r["F/P" if r["bound"] == "compute" else "D/beta"], r["operation"]
    printed = {r["operation"]: r["% of bound"] for r in run.table(TIMING_TABLE)}
    for r in rows:
        if r["name"] in flagged:
            assert printed[r["name"]] == FLAG_TEXT and f"note: {r['name']} ran at " in run.out
        else:
            assert printed[r["name"]] == f"{r['fraction_of_bound'] * 100:.0f}%"
            assert f"note: {r['name']} ran at " not in run.out


def test_working_sets_are_sized_within_the_budget(run: Run) -> None:
    calib = run.probe["calibration"]
    llc = calib["llc_bytes"]
    rows = {r["name"]: r for r in run.probe["operations"]}
    stream = calib["bandwidth_working_set_bytes"]
    # lecture 01's default budget: 1 GiB, of which 864 MiB for arrays; the stream (kept
    # allocated throughout) plus the largest operation fit in it
    arrays = 2**30 - 160 * 2**20
    largest = max(r["working_set_bytes"] for r in rows.values())
    assert stream + largest <= arrays and stream <= arrays * 3 / 8
    # the add repeats the calibration's stream, the square GEMM its matmul
    assert rows["add"]["working_set_bytes"] == stream
    assert rows["GEMM square"]["shape"] == "x".join([str(calib["matmul_n"])] * 3)
    # as far past the LLC as the budget allows, and a sentence wherever it is not 2x
    for name in ("add", "LayerNorm", "attention naive", "GEMM M=8"):
        ratio = rows[name]["working_set_bytes"] / llc
        assert ratio >= 2 or f"ran with the working set {ratio:.2g}x the LLC" in run.out, name
    # the roofs were timed again between the operations: their own kernels cannot beat them
    add, square = rows["add"], rows["GEMM square"]
    assert add["bytes"] / add["t_meas_s"] <= calib["bandwidth_bytes_per_s"] * (1 + 1e-12)
    assert square["flops"] / square["t_meas_s"] <= calib["matmul_flops_per_s"] * (1 + 1e-12)
    assert isinstance(calib["busy"], bool) and isinstance(calib["busy_reasons"], list)
    assert ("This run was on a busy machine" in run.out) == calib["busy"]


def test_same_flops_section_and_the_results_file(run: Run) -> None:
    same = run.probe["same_flops"]
    mm, ew = same["matmul"], same["elementwise"]
    assert same["flop_ratio"] == pytest.approx(ew["flops"] / mm["flops"])
    assert same["flop_ratio"] == pytest.approx(1.0, rel=0.25)
    assert same["time_ratio"] == pytest.approx(ew["t_meas_s"] / mm["t_meas_s"])
    m = re.search(r"FLOP ratio add / GEMM = ([\d.]+); time ratio = x([\d.e+]+)", run.out)
    assert m and float(m.group(1)) == pytest.approx(same["flop_ratio"], abs=0.0006)
    assert float(m.group(2)) == pytest.approx(same["time_ratio"], rel=0.006)  # 3 digits shown
    # sized to the run's memory budget (1 GiB by default), unlike the article's 12 GB
    assert 3 * 4 * int(ew["shape"].strip("[]")) <= 2**30
    doc = run.doc
    assert doc is not None and doc["format_version"] == results.FORMAT_VERSION
    assert {"created", "updated", "machine", "probe"} <= set(doc)
    assert set(run.probe["calibration"]) >= CALIBRATION_KEYS
    assert results.load_results(run.path), "the saved file must be readable on this machine"
    assert f"saved results: {run.path}" in run.out
    assert not [p for p in run.path.parent.iterdir() if p.name.endswith(".tmp")]


STOPS = {  # the signal, and the one line the lecture ends with (README: 130, 143, 129)
    signal.SIGINT: "interrupted; nothing half-written was kept",
    signal.SIGTERM: "stopped by SIGTERM; nothing half-written was kept",
    signal.SIGHUP: "stopped by SIGHUP; nothing half-written was kept",
}


@pytest.mark.parametrize("signum", list(STOPS))
def test_a_stop_mid_run_keeps_the_previous_file(signum: int, tmp_path: Path) -> None:
    path = tmp_path / "machine.json"
    results.save_section("probe", {"calibration": {"note": "previous run"}}, path)
    old = path.read_bytes()
    argv = (str(lecture_path("01")), "--quick", "--results", str(path))
    proc = start_python(*argv, env={"PYTHONUNBUFFERED": "1"}, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # stop it once the roofs are being measured
        if line.startswith("Measured on"):
            proc.send_signal(signum)
            break
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signum  # ended by that signal: a shell shows 128 + signum
    assert err.strip().splitlines() == [f"01_machine_probe.py: {STOPS[signum]}"]
    assert path.read_bytes() == old
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_480_mib_cache_stays_within_the_budget(tmp_path: Path) -> None:
    """A machine reporting 480 MiB (faked): sizes from the budget, sentences for the cache."""
    path = tmp_path / "machine.json"
    env = {"ROOFLINE_FAKE_LLC": "480M"}
    proc = run_lecture("01", "--quick", "--results", str(path), timeout=300, env=env, check=True)
    calib = json.loads(path.read_text())["probe"]["calibration"]
    assert calib["llc_bytes"] == 480 * 2**20
    assert calib["bandwidth_working_set_bytes"] <= (2**30 - 160 * 2**20) * 3 / 8
    ratio = calib["bandwidth_working_set_bytes"] / calib["llc_bytes"]
    assert f"The bandwidth roof ran with the working set {ratio:.2g}x the LLC" in proc.stdout
