"""The results file (common.results): schema, atomic replacement, bad files, fallbacks; and
results you can trust: malformed content anywhere is unusable (one line, a backup, a fresh
file), a held lock is waited for with a word and then given up, signals leave no temporary."""

from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import signal
import tempfile
from datetime import datetime
from pathlib import Path

import pytest
from conftest import quiet_run

from common.files import atomic, calibration, results
from common.measure import machine, roofs
from common.shell import paths
from tests.measure.fakes import FakeClock

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S%z"

GOOD_CALIBRATION = {"bandwidth_bytes_per_s": 2.0e10, "matmul_flops_per_s": 1.6e11}
FAKE_CALIBRATION = {**GOOD_CALIBRATION, "ridge_point": 8.0, "quick": True}


@pytest.fixture(scope="module")
def this_machine() -> dict:
    """machine.describe(), computed once."""
    return machine.describe()


def _probe_payload() -> dict:
    return {"calibration": dict(FAKE_CALIBRATION, quick=False), "operations": []}


def _leftover_temp_files(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_saved_document_schema(results_file: Path, this_machine: dict) -> None:
    saved = results.save_section("probe", _probe_payload(), results_file, this_machine=this_machine)
    assert saved == results_file and results_file.exists()
    doc = json.loads(results_file.read_text(encoding="utf-8"))
    assert doc["format_version"] == results.FORMAT_VERSION
    for key in ("created", "updated"):
        stamp = datetime.strptime(doc[key], TIME_FORMAT)
        assert abs((datetime.now(stamp.tzinfo) - stamp).total_seconds()) < 3600
    assert doc["machine"] == json.loads(json.dumps(this_machine))  # as machine.describe() said
    assert doc["probe"] == _probe_payload()
    loaded = results.load_results(results_file, this_machine=this_machine)
    assert loaded and loaded.reason == "" and loaded.data == doc
    saved = results.save_section("probe", _probe_payload(), this_machine=this_machine)
    assert saved == results_file  # the default: $ROOFLINE_RESULTS
    assert results.load_results(this_machine=this_machine).path == results_file
    sweep = {"rows": [1, 2, 3]}
    results.save_section("batch_sweep", sweep, results_file, this_machine=this_machine)
    first = json.loads(results_file.read_text(encoding="utf-8"))
    new_probe = {"calibration": dict(FAKE_CALIBRATION, ridge_point=8.0), "operations": [{}]}
    results.save_section("probe", new_probe, results_file, this_machine=this_machine)
    doc = json.loads(results_file.read_text(encoding="utf-8"))
    assert doc["batch_sweep"] == sweep and doc["probe"] == new_probe
    assert doc["created"] == first["created"]


def _write_old_file(results_file: Path, this_machine: dict) -> bytes:
    results.save_section("probe", _probe_payload(), results_file, this_machine=this_machine)
    return results_file.read_bytes()


def test_a_failed_save_keeps_the_old_file_and_leaves_no_temporary(
    results_file: Path, this_machine: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _write_old_file(results_file, this_machine)

    def half_then_ctrl_c(path: os.PathLike[str], text: str) -> Path:
        with atomic.atomic_output(path, "w") as handle:
            handle.write(text[: len(text) // 2])
            handle.flush()
            raise KeyboardInterrupt  # as if the student pressed Ctrl-C mid-write
        return Path(path)  # pragma: no cover

    def full_disk(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device (simulated)", src)

    failures = [(results, "atomic_write_text", half_then_ctrl_c, KeyboardInterrupt),
                (atomic.os, "replace", full_disk, OSError)]  # fmt: skip
    for where, name, fake, error in failures:
        monkeypatch.setattr(where, name, fake)
        with pytest.raises(error) as info:
            results.save_section(
                "probe", {"calibration": {}}, results_file, this_machine=this_machine)  # fmt: skip
        monkeypatch.undo()
        assert results_file.read_bytes() == old
        loaded = results.load_results(results_file, this_machine=this_machine)
        assert loaded.data is not None and loaded.data["probe"] == _probe_payload()
        assert _leftover_temp_files(results_file.parent) == []
    # the failed rename names the results file, not the temporary
    assert isinstance(info.value, OSError) and info.value.errno == errno.ENOSPC
    assert info.value.filename == str(results_file) and ".tmp" not in str(info.value)


def _make_bad_file(kind: str, path: Path, this_machine: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    version = {**results.new_document(this_machine), "format_version": results.FORMAT_VERSION + 1}
    other = dict(this_machine, cpu="A CPU that is not this one", cores=4096)
    texts = {
        "corrupt": '{"format_version": 1, "machine": {',
        "not an object": "[1, 2, 3]\n",
        "other version": json.dumps(version),
        "other machine": json.dumps({**results.new_document(other), "probe": _probe_payload()}),
    }
    if kind != "missing":
        path.write_text(texts[kind], encoding="utf-8")


BAD_KINDS = {
    "missing": "no results file", "corrupt": "corrupt", "not an object": "corrupt",
    "other version": "format version", "other machine": "another machine",
}  # fmt: skip


def _ridged(**changes: float) -> dict:
    """A probe section whose calibration has `changes` and the ridge they make."""
    calib = dict(FAKE_CALIBRATION, **changes)
    calib["ridge_point"] = calib["matmul_flops_per_s"] / calib["bandwidth_bytes_per_s"]
    return {"calibration": calib, "operations": []}


BETWEEN = "must be between"


@pytest.mark.parametrize(("probe", "words"), [
    ({"operations": []}, ""),  # no calibration
    ({"calibration": [1, 2]}, ""),  # not an object
    ({"calibration": dict(FAKE_CALIBRATION, bandwidth_bytes_per_s=-1.0)}, ""),
    ({"calibration": dict(FAKE_CALIBRATION, matmul_flops_per_s="fast")}, ""),
    ({"calibration": dict(FAKE_CALIBRATION, ridge_point=99.0)}, ""),  # not P / beta
    (_ridged(matmul_flops_per_s=1e308), f"'matmul_flops_per_s' {BETWEEN}"),
    (_ridged(matmul_flops_per_s=1e-300), f"'matmul_flops_per_s' {BETWEEN}"),
    (_ridged(bandwidth_bytes_per_s=1e300), f"'bandwidth_bytes_per_s' {BETWEEN}"),
    (_ridged(bandwidth_bytes_per_s=3.0), f"'bandwidth_bytes_per_s' {BETWEEN}"),
])  # fmt: skip
def test_a_bad_probe_section_is_named_and_measured_afresh(
    probe: dict, words: str, results_file: Path, this_machine: dict, monkeypatch
) -> None:
    results.save_section("probe", probe, results_file, this_machine=this_machine)
    loaded = results.load_results(results_file, this_machine=this_machine)
    saved = calibration.saved_calibration(loaded=loaded)
    assert saved.calibration is None
    assert "bad probe section" in saved.reason and words in saved.reason
    monkeypatch.setattr(roofs, "calibrate", lambda quick=False: {"fresh": True})
    calib, note = calibration.load_or_calibrate(results_file)
    assert calib == {"fresh": True} and "bad probe section" in note and "\n" not in note


def test_load_or_calibrate_uses_a_good_file(
    results_file, this_machine, monkeypatch, tmp_path: Path
) -> None:
    results.save_section("probe", _probe_payload(), results_file, this_machine=this_machine)

    def must_not_measure(quick: bool = False) -> dict:
        raise AssertionError("a usable file must not trigger a calibration")

    monkeypatch.setattr(roofs, "calibrate", must_not_measure)
    calib, note = calibration.load_or_calibrate(results_file)
    assert calib == _probe_payload()["calibration"]
    assert "lecture 01" in note and str(results_file) in note
    path = tmp_path / "machine.json"
    path.write_text("{ this is not json", encoding="utf-8")
    out = quiet_run("01", "--quick", "--results", str(path), timeout=120)
    assert "Traceback" not in out
    first = out.splitlines()[0]
    assert first.startswith("previous calibration: none usable") and "corrupt" in first
    loaded = results.load_results(path)
    assert loaded, loaded.reason
    assert loaded.data["probe"]["calibration"]["quick"] is True
    assert _leftover_temp_files(tmp_path) == []


IN_THE_CALIBRATION = '"bandwidth_bytes_per_s": 20000000000.0'  # a calibration number, as saved


@pytest.mark.parametrize(("text", "words"), [
    ("[" * 200_000, "corrupt (nested too deeply)"),  # was a RecursionError traceback
    ('{"format_version": 1, "machine": {}, "x": NaN}', "corrupt (non-standard number NaN"),
    ('{"format_version": 1, "machine": {}, "x": -Infinity}', "corrupt (non-standard number"),
    ('{"format_version": 1, "machine": {}, "x": 1e400}', "corrupt (number 1e400 is out of range"),
    ('{"x": ' + "9" * 5000 + "}", "corrupt ("),  # beyond int()'s digit limit
    # the same in a calibration number of a good file (10**400: beyond any float)
    ('"bandwidth_bytes_per_s": 1' + "0" * 400, "corrupt ("),
    ('"bandwidth_bytes_per_s": -1' + "0" * 400, "corrupt ("),
    ('"bandwidth_bytes_per_s": NaN', "corrupt ("), ('"bandwidth_bytes_per_s": 1e400', "corrupt ("),
    # a good file's section that is not an object, or a version of True (not 1)
    *(({s: ["rows"]}, f"corrupt (section {s!r} is list, not an object)")
      for s in ("probe", "batch_sweep", "hierarchy", "attention")),
    ({"format_version": True}, "format version True"),
])  # fmt: skip
def test_strange_json_is_unusable(text: str | dict, words: str, results_file, this_machine) -> None:
    if isinstance(text, dict):
        text = json.dumps({**_doc(this_machine), **text})
    elif text.startswith('"bandwidth'):
        text = json.dumps(_doc(this_machine)).replace(IN_THE_CALIBRATION, text)
    results_file.parent.mkdir(parents=True)
    results_file.write_text(text, encoding="utf-8")
    loaded = results.load_results(results_file, this_machine=this_machine)
    assert loaded.data is None and words in loaded.reason and "\n" not in loaded.reason
    saved = calibration.saved_calibration(results_file)
    assert saved.calibration is None and saved.reason == loaded.reason


def test_a_byte_order_mark_is_read_as_it_is(
    results_file: Path, this_machine: dict, tmp_path: Path
) -> None:
    results_file.parent.mkdir(parents=True)
    results_file.write_bytes(b"\xef\xbb\xbf" + json.dumps(_doc(this_machine)).encode())
    loaded = results.load_results(results_file, this_machine=this_machine)
    assert loaded, loaded.reason
    results.save_section("batch_sweep", {"rows": []}, results_file, this_machine=this_machine)
    doc = json.loads(results_file.read_text(encoding="utf-8"))
    assert doc["probe"]["calibration"] == GOOD_CALIBRATION  # the other section was kept
    assert sorted(p.name for p in results_file.parent.iterdir()) == ["machine.json"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it for reading would block forever (issue 9, lecture 05)
    loaded = results.load_results(fifo)
    assert loaded.data is None and "FIFO" in loaded.reason
    assert "folder" in results.load_results(tmp_path).reason
    loaded = results.load_results(tmp_path / ("n" * 300))  # a name too long: unreadable
    assert loaded.data is None and loaded.reason.startswith("cannot read results file")


def test_two_backups_in_one_second_get_two_names(
    results_file: Path, this_machine: dict, tmp_path: Path
) -> None:
    for _ in range(2):
        _make_bad_file("corrupt", results_file, this_machine)
        results.save_section("probe", _probe_payload(), results_file, this_machine=this_machine)
    assert len(list(results_file.parent.glob("machine.backup-*.json"))) == 2
    real = tmp_path / "real" / "machine.json"
    results.save_section("batch_sweep", {"rows": [1]}, real, this_machine=this_machine)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert results.save_section("probe", _probe_payload(), link, this_machine=this_machine) == link
    assert link.is_symlink()  # the link stays a link
    doc = json.loads(real.read_text(encoding="utf-8"))
    assert doc["batch_sweep"] == {"rows": [1]} and doc["probe"] == _probe_payload()
    old = _write_old_file(results_file, this_machine)
    before = sorted(results_file.parent.iterdir())  # the file and the two backups
    with pytest.raises(ValueError, match="cannot save section 'probe'"):
        results.save_section("probe", {"x": math.nan}, results_file, this_machine=this_machine)
    assert results_file.read_bytes() == old
    assert sorted(results_file.parent.iterdir()) == before  # no temporary left behind
    with pytest.raises(paths.UnusablePath, match=f"results file {tmp_path} is a folder"):
        results.save_section("probe", {}, tmp_path, this_machine=this_machine)


def _doc(this_machine: dict, **machine_changes: object) -> dict:
    return {
        "format_version": results.FORMAT_VERSION,
        "machine": {**this_machine, **machine_changes},
        "probe": {"calibration": GOOD_CALIBRATION},
    }


BAD_MACHINES = {
    "blas a string": {"blas": "openblas"}, "blas a list": {"blas": ["openblas", 2]},
    "blas_env a list": {"blas_env": ["OPENBLAS_CORETYPE"]},
    "cores a string": {"cores": "2"}, "cores a bool": {"cores": True}, "cpu a number": {"cpu": 7},
    "blas value a dict": {"blas": {"library": {"name": "openblas"}}},
}  # fmt: skip


# (what makes the file unusable, the words its one line says); None: _make_bad_file's kind
UNUSABLE = {kind: (None, words) for kind, words in BAD_KINDS.items()}
UNUSABLE |= {case: (changes, "corrupt") for case, changes in BAD_MACHINES.items()}


@pytest.mark.parametrize("case", list(UNUSABLE))
def test_an_unusable_file_is_one_line_a_quick_calibration_and_kept_beside_the_new_one(
    case, results_file, this_machine, capsys, monkeypatch
):
    changes, words = UNUSABLE[case]
    if changes is None:
        _make_bad_file(case, results_file, this_machine)
    else:  # a malformed machine record: its field is named
        results_file.parent.mkdir(parents=True)
        results_file.write_text(json.dumps(_doc(this_machine, **changes)))
        assert "machine." in results.load_results(results_file, this_machine=this_machine).reason
    loaded = results.load_results(results_file, this_machine=this_machine)
    assert loaded.data is None and not loaded and words in loaded.reason
    assert "\n" not in loaded.reason and str(results_file) in loaded.reason
    assert results.get_section(loaded, "probe") == (None, loaded.reason)
    monkeypatch.setattr(roofs, "calibrate", lambda quick=False: {"quick": quick})
    calib, note = calibration.load_or_calibrate(results_file)
    assert calib == {"quick": True}  # a quick calibration, not the full one
    assert words in note and note.endswith("; measured a quick calibration instead")
    if case == "missing":
        return
    old = results_file.read_bytes()
    results.save_section("probe", _probe_payload(), results_file, this_machine=this_machine)
    backups = sorted(results_file.parent.glob("machine.backup-*.json"))
    assert len(backups) == 1 and backups[0].read_bytes() == old  # byte for byte
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and words in lines[0] and "kept it as" in lines[0]
    assert backups[0].name in lines[0]
    doc = results.load_results(results_file, this_machine=this_machine).data
    assert doc is not None and doc["probe"] == _probe_payload()  # a fresh, usable file
    assert _leftover_temp_files(results_file.parent) == []


def test_a_held_lock_is_announced_then_given_up(
    tmp_path, capsys, monkeypatch, this_machine: dict
) -> None:
    ticks = FakeClock(0.0, 1.0)  # one second a reading
    waiting = results.locked_folder(tmp_path, 3.0, 30.0, ticks, ticks.sleep)
    held = os.open(tmp_path, os.O_RDONLY)  # another run's lock: flock on its own descriptor
    fcntl.flock(held, fcntl.LOCK_EX)
    with pytest.raises(ValueError, match="gave up saving after 30 s") as exc:
        waiting.__enter__()  # this gives up
    os.close(held)
    assert "\n" not in str(exc.value) and "Ctrl-Z" in str(exc.value)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("waiting for another run to finish saving")
    assert len(ticks.slept) == 29  # one poll per second of the fake clock, 1 s .. 29 s
    ticks = FakeClock(0.0, 1.0)
    with results.locked_folder(tmp_path, 3.0, 30.0, ticks, ticks.sleep):
        pass
    assert ticks.slept == [] and capsys.readouterr().err == ""
    # Ctrl-C arriving while mkstemp creates the file: held until the name is known, then raised.
    target = tmp_path / "machine.json"
    target.write_text("old")
    real = tempfile.mkstemp

    def mkstemp_then_ctrl_c(*args: object, **kwargs: object) -> tuple[int, str]:
        made = real(*args, **kwargs)  # type: ignore[call-overload]
        os.kill(os.getpid(), signal.SIGINT)  # arrives before mkstemp returns
        return made

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_then_ctrl_c)
    # Python's own Ctrl-C handler, even where the test run ignores SIGINT (`trap '' INT`)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt), atomic.atomic_output(target, "w") as handle:
            handle.write("new")  # pragma: no cover
    finally:
        signal.signal(signal.SIGINT, previous)
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["machine.json"]
    # Bare python3 (no numpy, no threadpoolctl) cannot describe this machine, so it cannot trust a
    # results file: one reason naming the missing package, no exception.
    target.write_text(json.dumps(_doc(this_machine)), encoding="utf-8")

    def describe() -> dict:
        raise ModuleNotFoundError("No module named 'threadpoolctl'", name="threadpoolctl")

    monkeypatch.setattr(machine, "describe", describe)
    loaded = results.load_results(target)
    assert loaded.data is None and "without threadpoolctl" in loaded.reason
    assert calibration.saved_calibration(target).calibration is None
