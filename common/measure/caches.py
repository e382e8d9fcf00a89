"""This machine's CPU caches, read from the operating system (Linux sysfs, macOS sysctl).

Reading never raises: a missing or unreadable source gives an empty list.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SYSFS_CPU0_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")


@dataclass(frozen=True)
class Cache:
    """One cache level as one core sees it: level, type, size in bytes, CPUs sharing it."""

    level: int
    kind: str  # "Data", "Instruction" or "Unified"
    size_bytes: int
    shared_cpus: int | None = None  # how many logical CPUs share this cache (None: unknown)

    @property
    def name(self) -> str:
        """'L1d', 'L1i', 'L2', 'L3'."""
        suffix = {"Data": "d", "Instruction": "i"}.get(self.kind, "")
        return f"L{self.level}{suffix}"


def _split_unit(text: str) -> tuple[str, int]:
    """'32K' -> ('32', 1024), '480MiB' -> ('480', 2**20): the number and its binary unit."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    return (t[:-1], 1024 ** ("KMG".index(t[-1]) + 1)) if t and t[-1] in "KMG" else (t, 1)


def parse_size(text: str) -> int | None:
    """'32K' -> 32768, '1M' -> 1048576, '512' -> 512; None when unparseable."""
    number, scale = _split_unit(text)
    try:
        value = int(number)
    except ValueError:
        return None
    return value * scale if value > 0 else None


def parse_cpu_list(text: str) -> int | None:
    """Number of CPUs in a sysfs CPU list: '0-3,8' -> 5; None when unparseable."""
    parts = [part.partition("-") for part in text.strip().split(",") if part]
    try:
        spans = [range(int(lo), int(hi or lo) + 1) for lo, _, hi in parts]
    except ValueError:
        return None
    return sum(map(len, spans)) if spans and all(spans) else None


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
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        shared = None
        with contextlib.suppress(OSError, UnicodeDecodeError):
            shared = parse_cpu_list((entry / "shared_cpu_list").read_text())
        if size is not None and level > 0:
            caches.append(Cache(level, kind, size, shared))
    return sorted(caches, key=lambda c: (c.level, c.kind))


def _run_quiet(args: list[str]) -> str | None:
    """stdout of a short command, or None when it cannot run or fails."""
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def read_sysctl() -> list[Cache]:
    """Caches reported by macOS sysctl (performance-core keys first, then hw.l*cachesize)."""
    caches = []
    for level, key in enumerate(("l1dcachesize", "l2cachesize", "l3cachesize"), 1):
        for name in (f"hw.perflevel0.{key}", f"hw.{key}"):
            value = (_run_quiet(["sysctl", "-n", name]) or "").strip()
            if value.isdecimal() and int(value) > 0:  # a positive integer, else the next key
                caches.append(Cache(level, "Data" if level == 1 else "Unified", int(value)))
                break
    return caches


def read_getconf() -> list[Cache]:
    """Caches reported by glibc's `getconf -a` (LEVEL1_DCACHE_SIZE, LEVEL2_CACHE_SIZE, ...)."""
    text = _run_quiet(["getconf", "-a"])
    if not text:
        return []
    wanted = {f"LEVEL{n}_CACHE_SIZE": (n, "Unified") for n in (2, 3, 4)}
    wanted |= {"LEVEL1_DCACHE_SIZE": (1, "Data"), "LEVEL1_ICACHE_SIZE": (1, "Instruction")}
    pairs = [f for f in map(str.split, text.splitlines()) if len(f) == 2 and f[0] in wanted]
    caches = [Cache(*wanted[k], int(n)) for k, n in pairs if n.isdecimal() and int(n)]
    return sorted(caches, key=lambda c: (c.level, c.kind))


#: Benchmarks and tests only: report this last-level cache instead of the real one
#: ("480M", "1.1G", or "none" for a machine that reports no caches at all).
FAKE_LLC_ENV = "ROOFLINE_FAKE_LLC"


def faked(found: list[Cache], source: str, fake: str) -> tuple[list[Cache], str]:
    """The caches with the last level replaced by a fake size ('none': no caches reported)."""
    if fake.strip().lower() == "none":
        return [], ""
    number, scale = _split_unit(fake)  # '480M' -> 480 MiB, '1.1G' -> 1.1 GiB (decimals allowed)
    try:
        size = float(number) * scale
    except ValueError:
        size = 0.0
    if not 0 < size < 2**50:
        raise ValueError(f"${FAKE_LLC_ENV} must be a size such as 480M or 'none', got {fake!r}")
    inner = [c for c in found if c.level < 3]
    note = f"{source or 'no OS report'}, last level faked by ${FAKE_LLC_ENV}={fake}"
    return [*inner, Cache(3, "Unified", int(size))], note


def read_caches_with_source() -> tuple[list[Cache], str]:
    """This machine's caches and where they were read ('' and [] when nothing says); the
    last level as ``$ROOFLINE_FAKE_LLC`` says when it is set."""
    found, source = [], ""
    if sys.platform.startswith("linux"):
        if found := read_sysfs():
            source = f"Linux sysfs ({SYSFS_CPU0_CACHE})"
        elif found := read_getconf():
            source = "getconf -a (sysfs had no cache entries)"
    elif sys.platform == "darwin" and (found := read_sysctl()):
        source = "macOS sysctl"
    fake = os.environ.get(FAKE_LLC_ENV)
    return faked(found, source, fake) if fake else (found, source)


def read_caches() -> list[Cache]:
    """This machine's caches, or [] when the operating system does not say."""
    return read_caches_with_source()[0]


def data_caches(caches: list[Cache]) -> list[Cache]:
    """The caches data passes through (instruction caches dropped)."""
    return [c for c in caches if c.kind != "Instruction"]


def data_levels(caches: list[Cache]) -> list[tuple[str, int]]:
    """The data path as (name, bytes) per level, outward: [('L1', 32768), ('L2', 524288), ...]."""
    by_size = sorted(data_caches(caches), key=lambda c: c.size_bytes)
    by_level = {c.level: c.size_bytes for c in by_size}  # the largest of a level comes last
    levels: list[tuple[str, int]] = []
    for level, size in sorted(by_level.items()):
        if not levels or size > levels[-1][1]:  # a level no larger than the one inside: skipped
            levels.append((f"L{level}", size))
    return levels


def last_level_cache_bytes(caches: list[Cache] | None = None) -> int | None:
    """Size of the largest-level data cache, or None when unknown."""
    data = data_caches(read_caches() if caches is None else caches)
    return max(data, key=lambda c: (c.level, c.size_bytes)).size_bytes if data else None


def available_memory_bytes(meminfo: str = "/proc/meminfo") -> int | None:
    """Memory the system can give without swapping (MemAvailable), or None when unknown."""
    with contextlib.suppress(OSError, ValueError, IndexError), open(meminfo, encoding="ascii") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):  # no sysconf (Windows) or no such name
        return None
