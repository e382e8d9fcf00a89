"""Where the course's files live, and the checks a path passes before a run relies on it.

Messages name the path as the user gave it (``display_path``), never a temporary file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
FIGURES_DIR = REPO_ROOT / "figures"
RESULTS_DIR = REPO_ROOT / "results"
RESULTS_ENV = "ROOFLINE_RESULTS"  # overrides the results file (the docs build uses it)
KERNEL_FOLDERS = ("/proc", "/sys", "/dev")  # kernel file systems: no place for course files
SCRATCH_UNDER_DEV = ("/dev/shm",)  # ...except this ordinary memory-backed folder


class UnusablePath(ValueError):  # noqa: N818 (a kind of ValueError, named for what it is)
    """A path that can never work as given: a usage error (exit status 2)."""


class NameTooLong(UnusablePath):
    """A file name longer than the file system allows."""


def default_results_path() -> Path:
    """The results file: $ROOFLINE_RESULTS if set, else results/machine.json at the repo root."""
    override = os.environ.get(RESULTS_ENV)
    return Path(override) if override else RESULTS_DIR / "machine.json"


def display_path(path: str | os.PathLike[str]) -> str:
    """A path for printing: relative to the repository root when inside it, else as given."""
    p = Path(path)
    try:
        shown = p.resolve().relative_to(REPO_ROOT).as_posix()
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        shown = str(p)
    return shown.replace("\n", "\\n")  # a newline in a name must not cut a one-line message


def checked_text(path: str | os.PathLike[str], what: str) -> Path:
    """`path` as a Path; UnusablePath when it is empty, blank or holds a NUL byte."""
    text = os.fspath(path)
    if not str(text).strip():
        raise UnusablePath(f"the {what} path is empty")
    if "\0" in str(text):
        raise UnusablePath(f"the {what} path {str(text)!r} contains a NUL byte")
    return Path(text)


def _in_kernel_folder(path: Path) -> bool:
    real = os.path.realpath(path)
    if any(real == s or real.startswith(s + os.sep) for s in SCRATCH_UNDER_DEV):
        return False
    return any(real == k or real.startswith(k + os.sep) for k in KERNEL_FOLDERS)


def _stat(path: Path, what: str, shown: str) -> os.stat_result | None:
    """os.stat(path) following links; None when nothing is there; UnusablePath when it cannot be."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnusablePath(f"the {what} {shown} is a symbolic link loop") from None
        if exc.errno == errno.ENOTDIR:
            raise UnusablePath(f"the {what} {shown} goes through a file, not a folder") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise NameTooLong(f"the {what} name {shown[:60]}... is too long") from None
        raise ValueError(f"cannot use the {what} {shown}: {exc.strerror or exc}") from None


def _kind(mode: int) -> str:
    kinds = {stat.S_ISDIR: "a folder", stat.S_ISFIFO: "a FIFO (named pipe)"}
    kinds |= {stat.S_ISCHR: "a device", stat.S_ISBLK: "a device", stat.S_ISSOCK: "a socket"}
    return next((kind for test, kind in kinds.items() if test(mode)), "not a regular file")


def check_input_file(path: str | os.PathLike[str], what: str = "results file") -> Path:
    """A file to read: absent or a regular file (an unreadable one passes: its reader falls
    back); UnusablePath for anything else, never opened."""
    p = checked_text(path, what)
    shown = display_path(p)
    try:
        st = _stat(p, what, shown)
    except ValueError as exc:  # a name too long, or e.g. permission denied on a folder on the
        if type(exc) is UnusablePath:  # way: the reader reports it unreadable and falls back
            raise
        return p
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UnusablePath(f"the {what} {shown} is {_kind(st.st_mode)}, not a regular file")
    if _in_kernel_folder(p):
        raise UnusablePath(f"the {what} {shown} is in a kernel file system, not a regular file")
    return p


def _nearest_existing(folder: Path, what: str, shown: str) -> tuple[Path, bool]:
    """The first existing ancestor of `folder` (itself included) and whether it is `folder`."""
    current = folder
    while True:
        if (st := _stat(current, what, shown)) is not None:
            if not stat.S_ISDIR(st.st_mode):
                kind = "a file" if stat.S_ISREG(st.st_mode) else _kind(st.st_mode)
                if current == folder:
                    raise UnusablePath(f"the {what} {shown} is {kind}, not a folder")
                raise UnusablePath(
                    f"the {what} {shown} goes through {display_path(current)}, which is {kind}"
                )
            return current, current == folder
        if current.parent == current:  # pragma: no cover (the root always exists)
            return current, False
        current = current.parent


def check_output_folder(path: str | os.PathLike[str], what: str = "figure folder") -> Path:
    """A folder to write into, checked now and created later: UnusablePath when it can never
    be a folder, ValueError when this user may not write there."""
    p = checked_text(path, what)
    shown = display_path(p)
    existing, is_itself = _nearest_existing(Path(os.path.abspath(p)), what, shown)
    if _in_kernel_folder(p):
        raise UnusablePath(f"the {what} {shown} is in a kernel file system")
    try:  # a file can be created (and removed) there
        fd, name = tempfile.mkstemp(prefix=".write-check-", dir=existing)
    except OSError as exc:
        verb = "write to" if is_itself else f"create {what}"
        raise ValueError(f"cannot {verb} {shown}: {(exc.strerror or str(exc)).lower()}") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(name)
    return p


def denied(path: str | os.PathLike[str]) -> str:
    """Why `path` may not be written: 'read-only file system' or 'permission denied'."""
    with contextlib.suppress(OSError, AttributeError):  # no statvfs: say permission
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return "read-only file system"
    return "permission denied"


TEMP_NAME_EXTRA = 16  # characters a temporary or backup name adds to a file's name


def check_output_file(path: str | os.PathLike[str], what: str = "results file") -> Path:
    """A file to replace atomically: absent or a regular file we may read and write, in a
    folder that accepts new files (its temporary file and backups go beside it)."""
    p = check_input_file(path, what)
    shown = display_path(p)
    st = _stat(p, what, shown)  # the input check let a too-long name pass; here it fails
    real = Path(os.path.realpath(p))
    if st is not None and not os.access(p, os.R_OK | os.W_OK):
        raise ValueError(f"cannot read and replace the {what} {shown}: {denied(p)}")
    folder = check_output_folder(real.parent, f"folder of the {what}")
    existing, _ = _nearest_existing(Path(os.path.abspath(folder)), what, shown)
    name_max = 255  # where the file system does not say
    with contextlib.suppress(OSError, ValueError, AttributeError):
        name_max = int(os.pathconf(existing, "PC_NAME_MAX"))
    if len(real.name) + TEMP_NAME_EXTRA > name_max:
        raise NameTooLong(f"the {what} name {real.name[:40]}... is too long ({len(real.name)})")
    return p
