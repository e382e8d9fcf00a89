"""Out of memory is one line: the budget checked against what the process may allocate
before a measurement, and an allocation that fails anyway named with the flag that fits."""

from __future__ import annotations

import argparse
import functools
import re
import resource
from pathlib import Path

import pytest
from conftest import REPO, run_python

from common.measure import budget
from common.measure.budget import Budget

GiB, MiB = 2**30, 2**20


def test_the_tightest_limit_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    status = tmp_path / "status"
    status.write_text("Name:\tpython\nVmSize:\t  204800 kB\nVmData:\t  102400 kB\n")
    limits = {resource.RLIMIT_AS: 1 * GiB, resource.RLIMIT_DATA: resource.RLIM_INFINITY}
    monkeypatch.setattr(resource, "getrlimit", lambda which: (limits.get(which, -1), -1))
    monkeypatch.setattr("common.measure.caches.available_memory_bytes", lambda: 8 * GiB)
    # 1024 MiB of address space less the 200 MiB already mapped
    assert budget.headroom(str(status)) == (824 * MiB, "left under ulimit -v")
    limits[resource.RLIMIT_DATA] = 300 * MiB  # 300 - 100 MiB of data: tighter still
    assert budget.headroom(str(status)) == (200 * MiB, "left under ulimit -d")
    monkeypatch.setattr("common.measure.caches.available_memory_bytes", lambda: 100 * MiB)
    assert budget.headroom(str(status)) == (100 * MiB, "of free memory left")
    monkeypatch.setattr("common.measure.caches.available_memory_bytes", lambda: None)
    assert budget.headroom(str(tmp_path / "absent")) == (None, "")
    with pytest.raises(ValueError) as info:
        budget.check_memory(Budget(10, 3 * GiB // 2), GiB, "left under ulimit -v")
    assert str(info.value) == (
        "--memory-limit 1.5 GiB is more than this process can allocate; rerun with "
        "--memory-limit 0.75 (1.00 GiB left under ulimit -v)"
    )
    budget.check_memory(Budget(10, 3 * GiB // 4), GiB)  # 0.75 GiB fits
    budget.check_memory(Budget(10, 1000 * GiB), None)  # nothing known: nothing refused
    assert budget.memory_advice() == ""
    with pytest.raises(ValueError, match=r"only 0\.20 GiB of free memory left: close other"):
        budget.check_memory(Budget(10, GiB), 200 * MiB)
    budget.check_memory(Budget(10, GiB), 4 * GiB)  # fitted, yet an allocation failed
    assert budget.memory_advice() == "rerun with --memory-limit 0.5 (4.00 GiB of free memory left)"


WRAPPER = """
import os, runpy, sys
import numpy as np
from numpy._core._exceptions import _ArrayMemoryError
from common.measure import budget, roofs

def refuse(n):
    raise _ArrayMemoryError((40000, 40000), np.dtype("float32"))

roofs._square_operands = refuse  # the calibration's first allocation fails
budget.headroom = lambda: (4 * 2**30, "of free memory left")
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # the script's folder, as python3 does
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_a_failed_allocation_is_one_line_and_keeps_the_results(tmp_path: Path) -> None:
    results = tmp_path / "machine.json"
    results.write_text('{"kept": "as it was"}\n', encoding="utf-8")
    lecture = str(REPO / "lectures" / "01_machine_probe.py")
    done = run_python("-c", WRAPPER, lecture, "--quick", "--results", str(results))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "01_machine_probe.py: error: out of memory: Unable to allocate 5.96 GiB for an array "
        "with shape (40000, 40000) and data type float32; rerun with --memory-limit 0.5 "
        "(4.00 GiB of free memory left)"
    ]  # 40000^2 x 4 bytes = 5.96 GiB; the default 1 GiB fitted the 4 GiB, so: half of it
    assert results.read_text(encoding="utf-8") == '{"kept": "as it was"}\n'


def test_the_budget_is_checked_once_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lecture calls from_args again after numpy and its threads mapped memory that the
    budget's margin already counts: the advised limit must not be refused then."""
    args = argparse.Namespace(time_limit=20.0, memory_limit=0.75)
    rooms = iter([(GiB, "left under ulimit -v"), (800 * MiB, "left under ulimit -v")])
    monkeypatch.setattr(budget, "headroom", lambda: next(rooms))
    monkeypatch.setattr(budget, "_checked", [])
    first = budget.from_args(args)  # 1 GiB - 160 MiB margin = 0.84 GiB: 0.75 fits
    assert budget.from_args(args) == first == Budget(20.0, 3 * GiB // 4)  # not checked again
    with pytest.raises(ValueError, match=r"rerun with --memory-limit 0\.625 \(0\.78 GiB"):
        budget.from_args(argparse.Namespace(time_limit=20.0, memory_limit=1.0))  # 640 MiB: 0.625


def _under_one_gib() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (GiB, resource.getrlimit(resource.RLIMIT_AS)[1]))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc for ulimit -v")
def test_the_advised_limit_under_ulimit_v_runs(tmp_path: Path) -> None:
    """`ulimit -v 1048576`: the default 1.5 GiB is refused with a limit that, followed, runs."""
    lecture = [str(REPO / "lectures" / "10_tiled_attention.py"), "--quick"]
    run = functools.partial(run_python, timeout=300, preexec_fn=_under_one_gib)
    refused = run(*lecture, "--results", str(tmp_path / "refused.json"))
    advised = re.search(r"rerun with --memory-limit ([0-9.]+) ", refused.stderr)
    assert refused.returncode == 1 and advised, refused.stderr
    assert float(advised.group(1)) < 1.0  # under 1 GiB of address space
    followed = run(*lecture, "--memory-limit", advised.group(1), "--results", str(tmp_path / "m"))
    assert (followed.returncode, followed.stderr) == (0, ""), followed.stderr
