"""Path checks (common.shell.paths): what a results file or figure folder may be."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from common.files import atomic
from common.shell import paths


# Each kind of path that is not a regular file (a folder, a FIFO, a device, a symlink loop,
# /proc, one through a file) refused by name: tests/lectures/test_reliability.py, through
# every lecture that reads or saves a results file.
def test_absent_and_regular_files_pass(tmp_path: Path) -> None:
    absent = tmp_path / "new" / "machine.json"
    assert paths.check_input_file(absent) == absent
    assert paths.check_output_file(absent) == absent
    assert not absent.parent.exists()  # checking creates nothing
    present = tmp_path / "machine.json"
    present.write_text("{}", encoding="utf-8")
    assert paths.check_output_file(present) == present


@pytest.mark.parametrize("text", ["", "  ", "a\0b"])
def test_empty_or_nul_paths_are_refused(text: str) -> None:
    for check in (paths.check_input_file, paths.check_output_file, paths.check_output_folder):
        with pytest.raises(paths.UnusablePath):
            check(text)
    with pytest.raises(paths.UnusablePath):
        atomic.writable_dir(text)  # "" used to mean the current folder


def test_a_name_too_long_fails_a_writer_but_not_a_reader(tmp_path: Path) -> None:
    long = tmp_path / ("y" * 300)
    assert paths.check_input_file(long) == long  # the reader falls back
    with pytest.raises(paths.NameTooLong):
        paths.check_output_file(long)
    # a name that fits but leaves no room for the temporary file beside it
    almost = tmp_path / ("z" * (os.pathconf(tmp_path, "PC_NAME_MAX") - 4))
    with pytest.raises(paths.NameTooLong):
        paths.check_output_file(almost)


def test_output_folder_checks(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    assert paths.check_output_folder(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()
    with pytest.raises(paths.UnusablePath, match="is a file, not a folder"):
        paths.check_output_folder(tmp_path / "a-file")
    with pytest.raises(paths.UnusablePath, match="goes through"):
        paths.check_output_folder(tmp_path / "a-file" / "sub")
    with pytest.raises(paths.UnusablePath, match="is a device, not a folder"):
        paths.check_output_folder(os.devnull)
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]  # the write probe left nothing


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_a_folder_one_may_not_write_is_a_plain_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(ValueError) as info:
            paths.check_output_file(locked / "machine.json")
        assert not isinstance(info.value, paths.UnusablePath)  # status 1, not a usage error
        assert "locked" in str(info.value)
    finally:
        locked.chmod(0o700)


def test_display_path_survives_a_symlink_loop(tmp_path: Path) -> None:
    # Path.resolve() raises RuntimeError on a loop (issue 2: a traceback from --results)
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert paths.display_path(tmp_path / "a") == str(tmp_path / "a")
    assert paths.display_path(paths.RESULTS_DIR / "machine.json") == "results/machine.json"
