"""Atomic file output: a failed or interrupted write never destroys the previous file."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from common.shell.boot import STOP_SIGNALS
from common.shell.paths import checked_text, denied, display_path


def writable_dir(path: str | os.PathLike[str], what: str = "output folder") -> Path:
    """Create `path` if needed and check that files can be written in it; ValueError if not."""
    folder = checked_text(path, what)  # "" would silently mean the current folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create {what} {folder}: {exc.strerror or exc}") from None
    if not folder.is_dir():
        raise ValueError(f"{what} {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write to {what} {folder}: {denied(folder)}")
    return folder


TEMP_PREFIX_CHARS = 100  # a temporary name keeps at most this much of the target's name


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], mode: str = "wb") -> Iterator[IO]:
    """Open a temporary file beside `path`; on success fsync and rename it over `path` (an
    OSError names `path`, never the temporary file)."""
    target = Path(path)
    writable_dir(target.parent)
    prefix = f".{target.name[:TEMP_PREFIX_CHARS]}."
    held = _hold_signals()  # a Ctrl-C inside mkstemp would leave a file nobody knows of
    try:
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=target.parent)
    except BaseException as exc:
        _release_signals(held)
        raise (_naming(exc, target) if isinstance(exc, OSError) else exc) from None
    try:
        _release_signals(held)  # a signal that came meanwhile is raised here, inside the try
        os.umask(umask := os.umask(0))  # read the umask (by setting and restoring it)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the usual permissions
        owned, fd = fd, -1  # from here the file object owns (and closes) the descriptor
        encoding = {} if "b" in mode else {"encoding": "utf-8"}
        with os.fdopen(owned, mode, **encoding) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        if fd >= 0:  # stopped before the file object took the descriptor
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _naming(exc, target) from None
        raise


def _hold_signals() -> object:
    """Swap the stop signals' handlers for one that records them; returns what to restore."""
    if threading.current_thread() is not threading.main_thread():
        return None
    pending: list[tuple[int, Any]] = []
    old: dict[int, Callable[[int, Any], Any]] = {}
    for signum in (signal.SIGINT, *STOP_SIGNALS):  # those a lecture turns into a clean stop
        if callable(previous := signal.getsignal(signum)):  # SIG_DFL and SIG_IGN stay as they are
            old[signum] = previous
            signal.signal(signum, lambda num, frame: pending.append((num, frame)))
    return old, pending


def _release_signals(held: object) -> None:
    """Put back the handlers _hold_signals replaced, then run them for what arrived meanwhile."""
    if held is None:
        return
    old, pending = held  # type: ignore[misc]
    for signum, handler in old.items():
        signal.signal(signum, handler)
    for signum, frame in pending:
        old[signum](signum, frame)  # Ctrl-C's handler raises KeyboardInterrupt here


def _naming(exc: OSError, target: Path) -> OSError:
    """The same error, about `target` instead of a temporary file."""
    return OSError(exc.errno, exc.strerror or str(exc), display_path(target))


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write `text` to `path` atomically (temp file + rename)."""
    with atomic_output(path, "w") as handle:
        handle.write(text)
    return Path(path)


def atomic_write_with(path: str | os.PathLike[str], writer: Callable[[IO], None]) -> Path:
    """Call writer(binary_handle) on a temp file, then rename it over `path`."""
    with atomic_output(path, "wb") as handle:
        writer(handle)
    return Path(path)
