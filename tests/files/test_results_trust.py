"""Results you can trust: malformed content anywhere is unusable (one line, a backup, a fresh
file), a held lock is waited for with a word and then given up, signals leave no temporary."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import tempfile
from pathlib import Path

import pytest

from common.files import atomic, calibration, results
from common.measure import machine

GOOD_CALIBRATION = {"bandwidth_bytes_per_s": 2.0e10, "matmul_flops_per_s": 1.6e11}


@pytest.fixture(scope="module")
def here() -> dict:
    return machine.describe()


def _doc(here: dict, **machine_changes: object) -> dict:
    return {
        "format_version": results.FORMAT_VERSION,
        "machine": {**here, **machine_changes},
        "probe": {"calibration": GOOD_CALIBRATION},
    }


BAD_MACHINES = {
    "blas a string": {"blas": "openblas"},
    "blas a list": {"blas": ["openblas", 2]},
    "blas_env a list": {"blas_env": ["OPENBLAS_CORETYPE"]},
    "cores a string": {"cores": "2"},
    "cores a bool": {"cores": True},
    "cpu a number": {"cpu": 7},
    "blas value a dict": {"blas": {"library": {"name": "openblas"}}},
}


@pytest.mark.parametrize("case", list(BAD_MACHINES))
def test_a_malformed_machine_record_is_unusable_and_kept_aside(
    case: str, tmp_path: Path, here: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(_doc(here, **BAD_MACHINES[case])))
    old = path.read_bytes()
    loaded = results.load_results(path, this_machine=here)
    assert loaded.data is None and "corrupt" in loaded.reason and "machine." in loaded.reason
    saved = calibration.saved_calibration(path)
    assert saved.calibration is None and "\n" not in saved.reason
    results.save_section("probe", {"calibration": GOOD_CALIBRATION}, path, this_machine=here)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and "kept it as" in lines[0]
    backups = list(tmp_path.glob("machine.backup-*.json"))
    assert len(backups) == 1 and backups[0].read_bytes() == old
    assert results.load_results(path, this_machine=here)  # a fresh, usable file


@pytest.mark.parametrize(
    "text",
    [
        '"bandwidth_bytes_per_s": 1' + "0" * 400,  # 10**400: beyond any float
        '"bandwidth_bytes_per_s": -1' + "0" * 400,
        '"bandwidth_bytes_per_s": NaN',
        '"bandwidth_bytes_per_s": 1e400',
    ],
)
def test_numbers_beyond_a_float_are_corrupt_not_a_traceback(
    text: str, tmp_path: Path, here: dict
) -> None:
    path = tmp_path / "machine.json"
    doc = json.dumps(_doc(here)).replace('"bandwidth_bytes_per_s": 20000000000.0', text)
    assert text in doc
    path.write_text(doc)
    loaded = results.load_results(path, this_machine=here)
    assert loaded.data is None and "corrupt" in loaded.reason
    saved = calibration.saved_calibration(path)
    assert saved.calibration is None and "corrupt" in saved.reason


@pytest.mark.parametrize("section", ["probe", "batch_sweep", "hierarchy", "attention"])
def test_a_section_that_is_not_an_object_is_corrupt(
    section: str, tmp_path: Path, here: dict
) -> None:
    path = tmp_path / "machine.json"
    path.write_text(json.dumps({**_doc(here), section: ["rows"]}))
    loaded = results.load_results(path, this_machine=here)
    assert loaded.data is None
    assert f"corrupt (section {section!r} is list, not an object)" in loaded.reason


def test_a_format_version_of_true_is_not_version_1(tmp_path: Path, here: dict) -> None:
    path = tmp_path / "machine.json"
    path.write_text(json.dumps({**_doc(here), "format_version": True}))
    assert "format version True" in results.load_results(path, this_machine=here).reason


class Ticks:
    """A clock that moves one second per reading; a sleep that records and returns."""

    def __init__(self) -> None:
        self.now, self.slept = 0.0, []

    def __call__(self) -> float:
        self.now += 1.0
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


@contextlib.contextmanager
def _held(folder: Path):
    """Hold the results lock on `folder` as another run would (flock on its own descriptor)."""
    fd = os.open(folder, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        os.close(fd)


def test_a_held_lock_is_announced_then_given_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ticks = Ticks()
    waiting = results.locked_folder(tmp_path, 3.0, 30.0, ticks, ticks.sleep)
    with _held(tmp_path), pytest.raises(ValueError, match="gave up saving after 30 s") as exc:
        waiting.__enter__()  # the lock is another run's: this gives up
    assert "\n" not in str(exc.value) and "Ctrl-Z" in str(exc.value)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("waiting for another run to finish saving")
    assert len(ticks.slept) == 29  # one poll per second of the fake clock, 1 s .. 29 s


def test_a_free_lock_is_taken_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ticks = Ticks()
    with results.locked_folder(tmp_path, 3.0, 30.0, ticks, ticks.sleep):
        pass
    assert ticks.slept == [] and capsys.readouterr().err == ""


def test_a_signal_inside_mkstemp_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C arriving while mkstemp creates the file: held until the name is known, then raised."""
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
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["machine.json"]
