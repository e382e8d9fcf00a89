"""The smaller slips of issue 27, each run the way a student meets it, and the path checks
(common.shell.paths): what a results file or figure folder may be."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, default_signals, demo_script, run_lecture, run_python

from common.files import atomic
from common.shell import boot, paths

LECTURE_02 = str(REPO / "lectures" / "02_roofline_basics.py")
ASCII_LOCALE = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}


def _sh(command: str) -> subprocess.CompletedProcess[str]:
    """`sh -c command`, finished, without $ROOFLINE_TRACEBACK."""
    env = {k: v for k, v in os.environ.items() if k != boot.TRACEBACK_ENV}
    return subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, check=False, env=env, timeout=60
    )


@pytest.mark.parametrize("off", ["0", "no", "false", "OFF", " ", "1"])
def test_traceback_off_words_keep_one_line_and_on_shows_it(tmp_path: Path, off: str) -> None:
    script = demo_script(tmp_path, "raise ValueError('bad figure')")
    done = run_python(str(script), env={boot.TRACEBACK_ENV: off}, timeout=60)
    if off == "1":
        assert "Traceback (most recent call last)" in done.stderr
    else:
        assert done.returncode == 1 and done.stderr == "99_demo.py: error: bad figure\n"


def test_a_usage_error_with_stderr_closed_exits_2_and_a_deleted_folder_is_named(tmp_path):
    done = _sh(f'"{sys.executable}" "{LECTURE_02}" --bogus 2>&-')
    assert done.returncode == 2
    # a deleted working folder is named
    gone = tmp_path / "gone"
    cd = f'mkdir "{gone}" && cd "{gone}" && rmdir "{gone}" && '
    done = _sh(cd + f'"{sys.executable}" "{LECTURE_02}" --png --outdir figs')
    assert done.returncode == 1
    assert done.stderr == (
        "02_roofline_basics.py: error: the current folder was deleted: cd into an existing folder\n"
    )


def test_a_newline_in_a_path_and_a_long_number_stay_in_the_one_line(tmp_path: Path) -> None:
    folder = "/proc/a\nb"
    done = run_python(LECTURE_02, "--png", "--outdir", folder, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "/proc/a\\nb is in a kernel file system" in done.stderr
    assert paths.display_path("/x/a\nb.json") == "/x/a\\nb.json"
    # a long number is not echoed in full
    done = run_lecture("01", "--time-limit", "9" * 5000, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert len(done.stderr) < 300 and "above 1 and up to 3600" in done.stderr
    # a non-ASCII results name in an ASCII locale is checked before measuring
    done = run_lecture("10", "--results", "/proc/é.json", text=False, timeout=60, env=ASCII_LOCALE)
    assert done.returncode == 2 and done.stdout == b""
    said = "the results file /proc/é.json is in a kernel file system, not a regular file"
    expected = f"10_tiled_attention.py: error: argument --results: {said} (see --help)\n"
    assert done.stderr == expected.encode()


@pytest.mark.parametrize("name", ["SIGQUIT", "SIGUSR1"])
def test_a_stop_signal_during_a_save_leaves_no_temporary(tmp_path: Path, name: str) -> None:
    target = tmp_path / "machine.json"
    target.write_text("old", encoding="utf-8")
    body = f"""
    import signal
    from common.files import atomic
    with atomic.atomic_output({str(target)!r}, "w") as handle:
        handle.write("new")
        os.kill(os.getpid(), signal.{name})
        handle.write(" and more")
    """
    done = run_python(str(demo_script(tmp_path, body)), timeout=60, preexec_fn=default_signals)
    signum = getattr(signal, name)
    assert done.returncode == -signum  # ended by that signal, as a shell reports 128 + signum
    assert done.stderr == f"99_demo.py: stopped by {name}; nothing half-written was kept\n"
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lectures", "machine.json"]


def test_a_read_only_mount_is_named_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class ReadOnly:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr(os, "access", lambda *args, **kwargs: False)
    monkeypatch.setattr(os, "statvfs", lambda path: ReadOnly())
    with pytest.raises(
        ValueError, match=r"cannot write to output folder .*: read-only file system$"
    ):
        atomic.writable_dir(tmp_path)
    monkeypatch.setattr(ReadOnly, "f_flag", 0)
    with pytest.raises(ValueError, match=r": permission denied$"):
        atomic.writable_dir(tmp_path)


@pytest.mark.parametrize("lecture", ["02", "10"])
def test_an_ascii_locale_still_prints_the_micro_sign(lecture: str, tmp_path: Path) -> None:
    saved = tmp_path / "résultats" / "é.json"  # a name the locale cannot decode: saved as typed
    flags = ["--quick", "--results", str(saved)] if "10" in lecture else []
    done = run_lecture(lecture, *flags, text=False, env=ASCII_LOCALE, check=True)
    assert "µ".encode() in done.stdout
    if flags:
        assert f"saved results: {saved}".encode() in done.stdout and saved.is_file()


@pytest.mark.parametrize(("body", "args", "env", "said"), [
    ("open('/nonexistent/a\\nb')", [], {}, "/nonexistent/a\\nb: No such file or directory"),
    # the name printed as the bytes it came as (not "Error in sys.excepthook")
    ("open(sys.argv[1])", ["/nonexistent/é"], ASCII_LOCALE,
     "/nonexistent/é: No such file or directory"),
    ("raise ValueError('no chip a\\udfffb')", [], ASCII_LOCALE, "no chip a\\udfffb"),
])  # fmt: skip
def test_an_odd_name_is_one_escaped_line(tmp_path: Path, body, args, env, said: str) -> None:
    done = run_python(str(demo_script(tmp_path, body)), *args, text=False, timeout=60, env=env)
    assert (done.returncode, done.stderr) == (1, f"99_demo.py: error: {said}\n".encode())


@pytest.mark.parametrize("name", ["SIGHUP", "SIGINT", "SIGQUIT"])
def test_a_signal_ignored_at_start_stays_ignored(tmp_path: Path, name: str) -> None:
    """`nohup lecture &` survives the hangup, a background job (`lecture &`) the Ctrl-C."""
    signum = getattr(signal, name)
    marker = tmp_path / "finished"
    body = f"""
    import signal
    os.kill(os.getpid(), signal.{name})  # the hangup or Ctrl-C the terminal sends
    open({str(marker)!r}, "w").write("done")
    """

    def ignored() -> None:
        default_signals()
        signal.signal(signum, signal.SIG_IGN)

    done = run_python(str(demo_script(tmp_path, body)), timeout=60, preexec_fn=ignored)
    assert (done.returncode, done.stderr) == (0, "")
    assert marker.read_text(encoding="utf-8") == "done"


# Each kind of path that is not a regular file or folder (a folder, a file, a FIFO, a device,
# a symlink loop, /proc, one through a file) refused by name: tests/lectures/test_reliability.py,
# through every lecture that reads or saves a results file or writes figures.
def test_absent_and_regular_files_and_folders_pass_and_nothing_is_created(tmp_path: Path):
    absent = tmp_path / "new" / "machine.json"
    assert paths.check_input_file(absent) == absent
    assert paths.check_output_file(absent) == absent
    assert not absent.parent.exists()  # checking creates nothing
    present = tmp_path / "machine.json"
    present.write_text("{}", encoding="utf-8")
    assert paths.check_output_file(present) == present
    assert paths.check_output_folder(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert paths.check_output_folder(tmp_path) == tmp_path
    assert [p.name for p in tmp_path.iterdir()] == ["machine.json"]  # the write probe left nothing
    # a name with no room left for the temporary file (over the limit: test_reliability)
    almost = tmp_path / ("z" * (os.pathconf(tmp_path, "PC_NAME_MAX") - 4))
    with pytest.raises(paths.NameTooLong):
        paths.check_output_file(almost)


@pytest.mark.parametrize("text", ["", "  ", "a\0b"])
def test_empty_or_nul_paths_are_refused(text: str) -> None:
    for check in (paths.check_input_file, paths.check_output_file, paths.check_output_folder):
        with pytest.raises(paths.UnusablePath):
            check(text)
    with pytest.raises(paths.UnusablePath):
        atomic.writable_dir(text)  # "" used to mean the current folder


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
