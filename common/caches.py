"""This machine's CPU caches, read from the operating system (Linux sysfs, macOS sysctl).

Standard library only. Reading never raises: a missing or unreadable source
gives an empty list, and callers say that the sizes are unknown.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SYSFS_CPU0_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")


@dataclass(frozen=True)
class Cache:
    """One cache level as one core sees it: level, type, size in bytes."""

    level: int
    kind: str  # "Data", "Instruction" or "Unified"
    size_bytes: int

    @property
    def name(self) -> str:
        """'L1d', 'L1i', 'L2', 'L3'."""
        suffix = {"Data": "d", "Instruction": "i"}.get(self.kind, "")
        return f"L{self.level}{suffix}"


def parse_size(text: str) -> int | None:
    """'32K' -> 32768, '1M' -> 1048576, '512' -> 512; None when unparseable."""
    t = text.strip().upper().removesuffix("B")
    scale = 1
    if t and t[-1] in "KMG":
        scale = 1024 ** ("KMG".index(t[-1]) + 1)
        t = t[:-1]
    try:
        value = int(t)
    except ValueError:
        return None
    return value * scale if value > 0 else None


def read_sysfs(cache_dir: Path = SYSFS_CPU0_CACHE) -> list[Cache]:
    """Caches listed under a sysfs cpuN/cache folder (index0, index1, ...)."""
    caches: list[Cache] = []
    try:
        entries = sorted(p for p in cache_dir.iterdir() if p.name.startswith("index"))
    except OSError:
        return []
    for entry in entries:
        try:
            level = int((entry / "level").read_text().strip())
            kind = (entry / "type").read_text().strip()
            size = parse_size((entry / "size").read_text())
        except (OSError, ValueError):
            continue
        if size is not None:
            caches.append(Cache(level, kind, size))
    return sorted(caches, key=lambda c: (c.level, c.kind))


def read_sysctl() -> list[Cache]:
    """Caches reported by macOS sysctl (hw.l1dcachesize, hw.l2cachesize, hw.l3cachesize)."""
    keys = (
        ("hw.l1dcachesize", 1, "Data"),
        ("hw.l2cachesize", 2, "Unified"),
        ("hw.l3cachesize", 3, "Unified"),
    )
    caches = []
    for key, level, kind in keys:
        try:
            out = subprocess.run(
                ["sysctl", "-n", key], capture_output=True, text=True, timeout=5, check=False
            )
            value = int(out.stdout.strip())
        except (OSError, ValueError, subprocess.SubprocessError):
            continue
        if value > 0:
            caches.append(Cache(level, kind, value))
    return caches


def read_caches() -> list[Cache]:
    """This machine's caches, or [] when the operating system does not say."""
    if sys.platform.startswith("linux"):
        return read_sysfs()
    if sys.platform == "darwin":
        return read_sysctl()
    return []


def data_caches(caches: list[Cache]) -> list[Cache]:
    """The caches data passes through (instruction caches dropped)."""
    return [c for c in caches if c.kind != "Instruction"]


def last_level_cache_bytes(caches: list[Cache] | None = None) -> int | None:
    """Size of the largest-level data cache, or None when unknown."""
    data = data_caches(read_caches() if caches is None else caches)
    return max(data, key=lambda c: (c.level, c.size_bytes)).size_bytes if data else None


def available_memory_bytes() -> int | None:
    """Memory the system can give without swapping (MemAvailable), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if hasattr(os, "sysconf"):
        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            return None
    return None
