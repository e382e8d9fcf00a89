"""Path checks (common.shell.paths): what a results file or figure folder may be."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from common.files import atomic
from common.shell import paths


# Each kind of path that is not a regular file or folder (a folder, a file, a FIFO, a device,
# a symlink loop, /proc, one through a file) refused by name: tests/lectures/test_reliability.py,
# through every lecture that reads or saves a results file or writes figures.
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


def test_a_name_that_leaves_no_room_for_the_temporary_file_is_too_long(tmp_path: Path) -> None:
    # a name over the limit, through every lecture: tests/lectures/test_reliability.py
    almost = tmp_path / ("z" * (os.pathconf(tmp_path, "PC_NAME_MAX") - 4))
    with pytest.raises(paths.NameTooLong):
        paths.check_output_file(almost)


def test_an_output_folder_is_checked_not_created(tmp_path: Path) -> None:
    assert paths.check_output_folder(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert paths.check_output_folder(tmp_path) == tmp_path
    assert list(tmp_path.iterdir()) == []  # nothing created, and the write probe left nothing


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
