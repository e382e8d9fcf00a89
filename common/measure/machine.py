"""What this machine is: CPU model, cores, BLAS library, the kernel it runs, threads."""

from __future__ import annotations

import contextlib
import os
import platform
import sys
from typing import Any

from common.measure.caches import _run_quiet

# Environment variables that steer BLAS; reported, never set.
BLAS_ENV_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
                 "OMP_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")  # fmt: skip


def cpu_model(cpuinfo: str = "/proc/cpuinfo") -> str:
    """The CPU's model name, from /proc/cpuinfo, sysctl (macOS) or platform."""
    with contextlib.suppress(OSError), open(cpuinfo, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    brand = sys.platform == "darwin" and _run_quiet(["sysctl", "-n", "machdep.cpu.brand_string"])
    return (brand or "").strip() or platform.processor() or platform.machine() or "unknown CPU"


def usable_cores() -> int:
    """CPU cores this process may run on (affinity-aware)."""
    affinity = getattr(os, "sched_getaffinity", None)  # Linux only
    return len(affinity(0)) if affinity else os.cpu_count() or 1


def blas_env() -> dict[str, str]:
    """The BLAS-related environment variables that are set, as they are."""
    return {k: os.environ[k] for k in BLAS_ENV_VARS if k in os.environ}


def blas_info() -> dict[str, Any]:
    """numpy's BLAS: library, version, kernel (e.g. OpenBLAS core type) and thread count."""
    import numpy as np

    np.ones(1) @ np.ones(1)  # make sure the BLAS library is loaded before inspecting it
    info: dict[str, Any] = {"library": "unknown", "version": "", "kernel": "unknown"}
    info.update(threads=None, threading_layer="")
    from threadpoolctl import threadpool_info  # a dependency of the course (pyproject.toml)

    if first := next((p for p in threadpool_info() if p.get("user_api") == "blas"), None):
        info.update(
            library=first.get("internal_api", "unknown"),
            version=str(first.get("version") or ""),
            kernel=str(first.get("architecture") or "n/a"),
            threads=first.get("num_threads"),
            threading_layer=str(first.get("threading_layer") or ""))  # fmt: skip
        return info
    with contextlib.suppress(TypeError, AttributeError):  # numpy >= 1.25 describes its build
        blas_cfg = np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
        info.update(library=blas_cfg.get("name", "unknown"), version=blas_cfg.get("version", ""))
    return info


def describe() -> dict[str, Any]:
    """A dictionary describing this machine and its numeric stack (for results files)."""
    import numpy as np

    return {"cpu": cpu_model(), "cores": usable_cores(),
            "system": f"{platform.system()} {platform.machine()}",
            "python": platform.python_version(), "numpy": np.__version__, "blas": blas_info(),
            "blas_env": blas_env()}  # fmt: skip


def fingerprint(desc: dict[str, Any]) -> str:
    """What must match for two measurements to count as the same machine."""
    blas = desc.get("blas") or {}
    found = [desc.get(k) for k in ("cpu", "cores", "system")]
    found += [blas.get(k) for k in ("library", "kernel", "threads")]
    return " | ".join(str(x) for x in found)


def summary_line(desc: dict[str, Any]) -> str:
    """One line: CPU, cores, BLAS library and version, kernel, threads."""
    blas = desc.get("blas") or {}
    version = f" {blas['version']}" if blas.get("version") else ""
    return (f"{desc.get('cpu')}, {desc.get('cores')} cores; numpy {desc.get('numpy')} with "
            f"{blas.get('library')}{version}, kernel {blas.get('kernel')}, "
            f"{blas.get('threads')} BLAS threads")  # fmt: skip
