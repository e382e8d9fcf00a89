"""What the machine is: CPU model, BLAS library and threads, and the one-line summaries."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import threadpoolctl

from common.measure import machine


def test_cpu_model_from_cpuinfo(tmp_path: Path, monkeypatch) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: X\nmodel name\t: Test CPU @ 3.0GHz\n")
    assert machine.cpu_model(str(info)) == "Test CPU @ 3.0GHz"
    info.write_text("processor : 0\nHardware : Some ARM board\n")
    assert machine.cpu_model(str(info)) == "Some ARM board"
    info.write_text("cpu model : MIPS thing\n")
    assert machine.cpu_model(str(info)) == "MIPS thing"
    info.write_text("model name\t: Vendor CPU: rev 2\n")  # a colon in the name is kept
    assert machine.cpu_model(str(info)) == "Vendor CPU: rev 2"
    monkeypatch.setattr(machine.sys, "platform", "linux")
    monkeypatch.setattr(machine.platform, "processor", lambda: "")
    monkeypatch.setattr(machine.platform, "machine", lambda: "riscv64")
    assert machine.cpu_model(str(tmp_path / "absent")) == "riscv64"
    monkeypatch.setattr(machine.platform, "machine", lambda: "")
    assert machine.cpu_model(str(tmp_path / "absent")) == "unknown CPU"
    calls = []

    def run(args, **kwargs):
        calls.append((args, kwargs))
        return subprocess.CompletedProcess(args, 0, "Apple M9\n", "")

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(machine.platform, "processor", lambda: "arm")
    monkeypatch.setattr(machine.sys, "platform", "darwin")
    assert machine.cpu_model(str(tmp_path / "absent")) == "Apple M9"
    kwargs = {"capture_output": True, "text": True, "timeout": 5, "check": False}
    assert calls == [(["sysctl", "-n", "machdep.cpu.brand_string"], kwargs)]
    monkeypatch.setattr(machine.sys, "platform", "linux")
    assert machine.cpu_model(str(tmp_path / "absent")) == "arm"  # no sysctl off macOS
    assert len(calls) == 1
    for name in machine.BLAS_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.setenv("UNRELATED", "1")
    assert machine.blas_env() == {"OMP_NUM_THREADS": "3"}
    assert "OPENBLAS_NUM_THREADS" in machine.BLAS_ENV_VARS and len(machine.BLAS_ENV_VARS) == 6
    blas = {"user_api": "blas", "internal_api": "openblas", "version": "0.3.99",
            "architecture": "Haswell", "num_threads": 4, "threading_layer": "pthreads"}  # fmt: skip
    pools = [{"user_api": "openmp", "internal_api": "openmp", "num_threads": 9}, blas]
    monkeypatch.setattr(threadpoolctl, "threadpool_info", lambda: pools)
    assert machine.blas_info() == {"library": "openblas", "version": "0.3.99", "kernel": "Haswell",
                                   "threads": 4, "threading_layer": "pthreads"}  # fmt: skip
    pools[1] = {"user_api": "blas", "num_threads": 2}
    info = machine.blas_info()
    got = (info["library"], info["kernel"], info["version"], info["threads"])
    assert got == ("unknown", "n/a", "", 2)
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert machine.usable_cores() == expected
    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: {0, 1, 2} if pid == 0 else {0})
    assert machine.usable_cores() == 3  # this process (pid 0), not another
    monkeypatch.delattr(machine.os, "sched_getaffinity")
    monkeypatch.setattr(machine.os, "cpu_count", lambda: None)
    assert machine.usable_cores() == 1
    monkeypatch.setattr(machine.os, "cpu_count", lambda: 6)
    assert machine.usable_cores() == 6
    desc = machine.describe()
    assert set(desc) == {"cpu", "cores", "system", "python", "numpy", "blas", "blas_env"}
    assert desc["cores"] == machine.usable_cores()
    blas = {"library": "openblas", "version": "0.3", "kernel": "Zen", "threads": 8}
    fake = {"cpu": "CPU X", "cores": 8, "system": "Linux x86_64", "numpy": "2.0", "blas": blas}
    assert machine.fingerprint(fake) == "CPU X | 8 | Linux x86_64 | openblas | Zen | 8"
    assert machine.summary_line(fake) == (
        "CPU X, 8 cores; numpy 2.0 with openblas 0.3, kernel Zen, 8 BLAS threads"
    )
    fake["blas"]["version"] = ""
    assert "with openblas, kernel" in machine.summary_line(fake)
    assert machine.fingerprint({}) == "None | None | None | None | None | None"
