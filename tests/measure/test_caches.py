"""Cache sizes read from the operating system: sysfs trees, sysctl, getconf, bad input."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import assert_frozen

from common.measure import caches
from common.measure.caches import Cache

KIB, MIB = 2**10, 2**20
real_read_sysfs = caches.read_sysfs


@pytest.fixture(autouse=True)
def _no_fake_llc(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests check detection itself, so a fake last-level cache must not stand in for it."""
    monkeypatch.delenv(caches.FAKE_LLC_ENV, raising=False)


def make_index(root: Path, index: int, level: str, kind: str, size: str, shared: str = "0") -> Path:
    """One sysfs cache entry: root/indexN/{level,type,size,shared_cpu_list}."""
    entry = root / f"index{index}"
    entry.mkdir(parents=True)
    (entry / "level").write_text(f"{level}\n")
    (entry / "type").write_text(f"{kind}\n")
    (entry / "size").write_text(f"{size}\n")
    (entry / "shared_cpu_list").write_text(f"{shared}\n")
    return entry


@pytest.fixture
def x86_tree(tmp_path: Path) -> Path:
    """A typical x86 core: 32K L1d, 32K L1i, 1M L2, 32 MiB L3 shared by 8 CPUs."""
    root = tmp_path / "cache"
    make_index(root, 0, "1", "Data", "32K")
    make_index(root, 1, "1", "Instruction", "32K")
    make_index(root, 2, "2", "Unified", "1024K", "0,8")
    make_index(root, 3, "3", "Unified", "32768K", "0-7")
    return root


def test_parse_size_units() -> None:
    sizes = {"32K": 32 * KIB, "1M": MIB, "1024K": MIB, "32768K": 32 * MIB, "512": 512,
             " 48KB\n": 48 * KIB, "1G": 2**30, "": None, "K": None, "lots": None, "-1K": None,
             "0K": None, "1.5M": None}  # fmt: skip
    assert {text: caches.parse_size(text) for text in sizes} == sizes
    counts = {"0": 1, "0-7": 8, "0,8": 2, "0-3,8-11,16\n": 9, "": None, "a-b": None, "5-2": None}
    assert {text: caches.parse_cpu_list(text) for text in counts} == counts


def test_typical_x86_tree(x86_tree: Path) -> None:
    found = caches.read_sysfs(x86_tree)
    assert [c.name for c in found] == ["L1d", "L1i", "L2", "L3"]
    assert [c.size_bytes for c in found] == [32 * KIB, 32 * KIB, MIB, 32 * MIB]
    assert [c.shared_cpus for c in found] == [1, 1, 2, 8]
    assert caches.data_levels(found) == [("L1", 32 * KIB), ("L2", MIB), ("L3", 32 * MIB)]
    assert caches.last_level_cache_bytes(found) == 32 * MIB
    assert [c.name for c in caches.data_caches(found)] == ["L1d", "L2", "L3"]


def test_machine_without_l3(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    make_index(root, 0, "1", "Data", "64K")
    make_index(root, 1, "1", "Instruction", "128K")
    make_index(root, 2, "2", "Unified", "4096K", "0-3")
    found = caches.read_sysfs(root)
    assert caches.data_levels(found) == [("L1", 64 * KIB), ("L2", 4 * MIB)]
    assert caches.last_level_cache_bytes(found) == 4 * MIB


def test_missing_folder_gives_empty(tmp_path: Path) -> None:
    assert caches.read_sysfs(tmp_path / "no-such-folder") == []
    assert caches.last_level_cache_bytes([]) is None and caches.data_levels([]) == []
    found = [Cache(1, "Data", 48 * KIB), Cache(2, "Unified", 2 * MIB), Cache(3, "Unified", 2 * MIB)]
    assert caches.data_levels(found) == [("L1", 48 * KIB), ("L2", 2 * MIB)]
    root = tmp_path / "cache"
    make_index(root, 0, "0", "Data", "32K")  # level 0 is not a cache level
    make_index(root, 1, "2", "Unified", "2M")
    make_index(root, 2, "2", "Data", "1M")
    found = caches.read_sysfs(root)
    assert [(c.level, c.size_bytes) for c in found] == [(2, 1 * MIB), (2, 2 * MIB)]
    assert caches.data_levels(found) == [("L2", 2 * MIB)]  # the larger at its level
    assert caches.last_level_cache_bytes(found) == 2 * MIB
    assert Cache(3, "Unified", 1).name == "L3" and Cache(1, "Instruction", 1).name == "L1i"


def test_unparseable_and_odd_entries_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    make_index(root, 0, "1", "Data", "32K")
    make_index(root, 1, "one", "Instruction", "32K")  # level not a number
    make_index(root, 2, "2", "Unified", "a lot")  # size not parseable
    odd = root / "index3"
    odd.mkdir()
    (odd / "level").mkdir()  # a folder where a file is expected
    (odd / "type").write_text("Unified\n")
    (odd / "size").write_text("8M\n")
    make_index(root, 4, "3", "Unified", "16M", "garbage")  # unreadable sharing list
    (root / "uevent").write_text("")  # not an index entry
    found = caches.read_sysfs(root)
    assert [(c.name, c.size_bytes) for c in found] == [("L1d", 32 * KIB), ("L3", 16 * MIB)]
    assert found[1].shared_cpus is None


@pytest.mark.parametrize("method", ["read_text", "iterdir"])
def test_unreadable_files_or_folder_give_empty(
    x86_tree: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    # Permissions do not stop root, so unreadability is simulated at the read itself.
    def refuse(self: Path, *args: object, **kwargs: object) -> str:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, method, refuse)
    assert caches.read_sysfs(x86_tree) == []


class FakeRun:
    """Stands in for subprocess.run: answers sysctl/getconf from a table."""

    def __init__(self, values: dict[str, str], fail: bool = False) -> None:
        self.values, self.fail = values, fail
        self.calls: list[list[str]] = []
        self.kwargs: list[dict] = []

    def __call__(self, args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        self.calls.append(list(args))
        self.kwargs.append(dict(kwargs))
        if self.fail:
            raise FileNotFoundError(2, "No such file or directory", args[0])
        if args[0] == "getconf":
            return subprocess.CompletedProcess(args, 0, self.values.get("-a", ""), "")
        key = args[-1]
        if key in self.values:
            return subprocess.CompletedProcess(args, 0, self.values[key] + "\n", "")
        return subprocess.CompletedProcess(args, 1, "", f"sysctl: unknown oid '{key}'")


def test_macos_intel_sysctl(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def sysctl(values: dict[str, str], fail: bool = False) -> list[Cache]:
        monkeypatch.setattr(caches.subprocess, "run", fake := FakeRun(values, fail))
        found = caches.read_sysctl()
        assert all(call[:2] == ["sysctl", "-n"] for call in fake.calls)
        return found

    sizes = {"hw.l1dcachesize": "32768", "hw.l2cachesize": "262144", "hw.l3cachesize": "8388608"}
    assert [(c.name, c.size_bytes) for c in sysctl(sizes)] == [
        ("L1d", 32 * KIB), ("L2", 256 * KIB), ("L3", 8 * MIB)]  # fmt: skip
    found = sysctl({"hw.perflevel0.l1dcachesize": "131072", "hw.perflevel0.l2cachesize": "12582912",
                    # efficiency cores: ignored when perflevel0 answers
                    "hw.l1dcachesize": "65536", "hw.l2cachesize": "4194304"})  # fmt: skip
    assert caches.data_levels(found) == [("L1", 128 * KIB), ("L2", 12 * MIB)]
    assert sysctl({}, fail=True) == sysctl({"hw.l1dcachesize": "n/a"}) == []
    assert sysctl({"hw.l1dcachesize": "0"}) == []  # zero is no size
    assert [c.size_bytes for c in sysctl({"hw.l1dcachesize": "1"})] == [1]
    listing = "LEVEL1_ICACHE_SIZE 32768\nLEVEL1_DCACHE_SIZE 49152\nLEVEL2_CACHE_SIZE 1\n"
    fake = FakeRun({"-a": listing + "LEVEL3_CACHE_SIZE 8388608\nLEVEL4_CACHE_SIZE 134217728"})
    monkeypatch.setattr(caches.subprocess, "run", fake)
    found = caches.read_getconf()
    assert [(c.level, c.kind, c.size_bytes) for c in found] == [
        (1, "Data", 49152), (1, "Instruction", 32768), (2, "Unified", 1), (3, "Unified", 8 * MIB),
        (4, "Unified", 128 * MIB)]  # fmt: skip
    assert fake.kwargs == [{"capture_output": True, "text": True, "timeout": 5, "check": False}]
    assert_frozen(found[0])
    monkeypatch.setattr(caches.subprocess, "run", FakeRun({"-a": "LEVEL3_CACHE_SIZE 0\n"}))
    assert caches.read_getconf() == []
    monkeypatch.setattr(caches.sys, "platform", "darwin")
    monkeypatch.setattr(caches.subprocess, "run", FakeRun({"hw.l2cachesize": "4194304"}))
    found, source = caches.read_caches_with_source()
    assert [(c.name, c.size_bytes) for c in found] == [("L2", 4 * MIB)] and "sysctl" in source
    assert caches.read_caches() == found
    pairs = [("LEVEL1_ICACHE_SIZE", "32768"), ("LEVEL1_ICACHE_ASSOC", ""),
             ("LEVEL1_DCACHE_SIZE", "49152"), ("LEVEL2_CACHE_SIZE", "1310720"),
             ("LEVEL3_CACHE_SIZE", "0"), ("PAGESIZE", "4096")]  # fmt: skip
    listing = "\n".join(f"{name:<35}{value}" for name, value in pairs)  # getconf pads names
    monkeypatch.setattr(caches.sys, "platform", "linux")
    # sysfs without cache entries, as in some containers
    monkeypatch.setattr(caches, "read_sysfs", lambda: real_read_sysfs(tmp_path / "absent"))
    monkeypatch.setattr(caches.subprocess, "run", FakeRun({"-a": listing}))
    found, source = caches.read_caches_with_source()
    assert caches.data_levels(found) == [("L1", 48 * KIB), ("L2", 1280 * KIB)]
    assert "getconf" in source
    monkeypatch.setattr(caches.sys, "platform", "win32")
    assert caches.read_caches_with_source() == ([], "")


def test_this_machine_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found, source = caches.read_caches_with_source()
    assert isinstance(found, list) and bool(found) == bool(source)
    for c in found:
        assert c.size_bytes > 0 and c.level >= 1
    free = caches.available_memory_bytes()
    assert free is None or free > 0
    info = tmp_path / "meminfo"
    info.write_text("MemTotal:  16000000 kB\nMemFree: 100 kB\nMemAvailable:   8000000 kB\n")
    assert caches.available_memory_bytes(str(info)) == 8000000 * 1024
    info.write_text("MemTotal:  16000000 kB\nMemAvailable: lots\n")
    monkeypatch.setattr(caches.os, "sysconf", lambda name: {"SC_AVPHYS_PAGES": 3}.get(name, 4096))
    assert caches.available_memory_bytes(str(info)) == 3 * 4096  # the fallback: free pages
    monkeypatch.delattr(caches.os, "sysconf")
    assert caches.available_memory_bytes(str(tmp_path / "absent")) is None
