"""The lectures' first lines: one-line errors, a quiet Ctrl-C and a quiet closed pipe.

Exit statuses (the README's table): 0 done, 1 the run failed, 2 the command line is
wrong, 128 + the signal when stopped (130 interrupted, 143 SIGTERM).
"""

from __future__ import annotations

import codecs
import contextlib
import os
import signal
import sys

TYPE_CHECKING = False  # typing costs milliseconds at start-up; annotations only need the names
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any, TextIO

EXIT_FAILURE = 1  # the run failed
EXIT_USAGE = 2  # the command line is wrong (argparse's status)
EXIT_INTERRUPT = 128 + signal.SIGINT  # 130: ended by SIGINT, as a shell reports it
STOP = ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")  # each ends a run cleaned up
STOP_SIGNALS = tuple(getattr(signal, n) for n in STOP if hasattr(signal, n))
TRACEBACK_ENV = "ROOFLINE_TRACEBACK"  # set it to see full tracebacks
ERRORS = "roofline-bytes"  # the output streams' error handler (`_undecoded_bytes`)

_state: dict[str, Any] = {"started": False, "interrupted": False, "signal": None, "prog": ""}


def prog() -> str:
    """The script's file name (or the name `start` was given), for the start of an error line."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else "lecture"
    return str(_state["prog"]) or os.path.basename(argv0)


def start(name: str = "") -> None:
    """Install one-line errors, quiet Ctrl-C and quiet closed pipes (script runs only);
    `name` replaces the script's file name in error lines ('common.exercises' for ``-m``)."""
    main = getattr(sys.modules.get("__main__"), "__file__", None)  # a run as a script: sys.argv[0]
    argv0 = sys.argv[0] if sys.argv else ""  # is the __main__ file (not sphinx-gallery, Jupyter)
    if main and argv0 and os.path.realpath(main) == os.path.realpath(argv0):
        _install(name)


def start_module(name: str) -> None:
    """`start` for ``python3 -m NAME``, first thing in its package: only while
    ``sys.argv[0] == '-m'`` (an import by the docs leaves the policies alone)."""
    if sys.argv[:1] == ["-m"]:
        _install(name)


def _install(name: str) -> None:
    _state["prog"] = name
    for signum in (signal.SIGINT, *STOP_SIGNALS):
        if signal.getsignal(signum) != signal.SIG_IGN:  # ignored at start (nohup, `cmd &`): kept
            signal.signal(signum, _on_sigint)
    codecs.register_error(ERRORS, _undecoded_bytes)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            "µ≤".encode(stream.encoding)
        except (AttributeError, LookupError, TypeError, UnicodeError):  # LC_ALL=C: ASCII only
            with contextlib.suppress(AttributeError, OSError, ValueError):
                stream.reconfigure(encoding="utf-8")
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.reconfigure(errors=ERRORS)  # a path's undecodable bytes print as they came
        if stream is not None and not isinstance(stream, QuietPipe):
            setattr(sys, name, QuietPipe(stream))
    _state["started"] = True
    install_error_handler()


def _undecoded_bytes(err: UnicodeError) -> tuple[str | bytes, int]:
    """The bytes lone surrogates stand for (names undecodable under ``LC_ALL=C``), or \\udXXX."""
    try:
        return codecs.lookup_error("surrogateescape")(err)
    except UnicodeError:
        return codecs.backslashreplace_errors(err)


def _on_sigint(signum: int, frame: Any) -> None:
    """Ctrl-C, SIGTERM or SIGHUP: remember it, then raise KeyboardInterrupt (clean-ups run)."""
    _state.update(interrupted=True, signal=signum)
    raise KeyboardInterrupt


class QuietPipe:
    """A text stream that, once its reader has gone (EPIPE), sends the rest to /dev/null."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._drop_the_rest()
            return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._drop_the_rest()

    def _drop_the_rest(self) -> None:
        """Point the stream's file descriptor at /dev/null: later writes and the exit flush pass."""
        with contextlib.suppress(OSError, ValueError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()  # what the failed write left in the buffer goes there too

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _one_line(exc: BaseException) -> str:
    """The first line of an exception's message; an OSError names its file first."""
    if isinstance(exc, OSError) and exc.strerror:
        name = str(exc.filename).replace("\n", "\\n")  # a newline must not cut the line
        text = f"{name}: {exc.strerror}" if exc.filename else exc.strerror
        with contextlib.suppress(OSError):  # no file named, and the working folder is deleted
            if not exc.filename and os.stat(".").st_nlink == 0:
                text = "the current folder was deleted: cd into an existing folder"
    else:
        text = str(exc)
    lines = text.strip().splitlines()
    return lines[0] if lines else exc.__class__.__name__


def excepthook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """Report an uncaught exception as one line on stderr (see the module docstring)."""
    if os.environ.get(TRACEBACK_ENV, "").strip().lower() not in ("", "0", "no", "false", "off"):
        sys.__excepthook__(kind, exc, tb)
        return
    if _state["started"]:
        with contextlib.suppress(ValueError):  # a second Ctrl-C must not interrupt the report
            for signum in (signal.SIGINT, *STOP_SIGNALS):
                signal.signal(signum, signal.SIG_IGN)
    chain: list[BaseException] = []  # exc and those it was raised from or during
    cause: BaseException | None = exc
    while cause is not None and cause not in chain:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    if _state["interrupted"] or any(isinstance(e, KeyboardInterrupt) for e in chain):  # Ctrl-C
        if (stop := _state["signal"]) in STOP_SIGNALS:
            name = signal.Signals(stop).name
            sys.stderr.write(f"{prog()}: stopped by {name}; nothing half-written was kept\n")
            _die_by(stop)
        sys.stderr.write(f"{prog()}: interrupted; nothing half-written was kept\n")
        if not isinstance(exc, KeyboardInterrupt):
            _die_by(signal.SIGINT)  # Python ends by SIGINT by itself only for a KeyboardInterrupt
        return
    try:  # a slip in the hardware table (a syntax error, a name typed wrong) has its own line
        from common.tables.slips import describe
    except Exception:  # the course itself cannot be imported: say the original error
        describe = None  # type: ignore[assignment]
    said = (describe and describe(exc)) or _said(exc)
    if said is None:
        sys.__excepthook__(kind, exc, tb)  # a bug in the course: the traceback helps
        return
    sys.stderr.write(f"{prog()}: error: {said}\n")


def _said(exc: BaseException) -> str | None:
    """The one line for an error a student can cause; None for a bug of the course."""
    if isinstance(exc, ImportError):
        ours = (exc.name or "").split(".")[0] == "common" or "'common" in str(exc)  # our package
        why = (
            "an edit of the course's own files broke this import: undo it, or compare with "
            "`git diff`" if ours else "this lecture needs the course's packages: run it "
            "with .venv/bin/python, which `make test` sets up")  # fmt: skip
        return f"{_one_line(exc)} ({why})"
    if failed := _allocation(exc):
        budget = sys.modules.get("common.measure.budget")  # a measuring lecture: its --memory-limit
        advice = f"; {budget.memory_advice()}" if budget and budget.memory_advice() else ""
        return f"out of memory: {failed}{advice}"
    return _one_line(exc) if isinstance(exc, (ValueError, OSError)) else None


def _allocation(exc: BaseException) -> str | None:
    """What failed to allocate, from numpy's or torch's out-of-memory error; else None."""
    if isinstance(exc, MemoryError):
        return _one_line(exc) if str(exc) else "an allocation failed"
    if type(exc).__name__ == "OutOfMemoryError":  # torch's, on a GPU: "CUDA out of memory. ..."
        return _one_line(exc)
    asked = str(exc).partition("can't allocate memory: you tried to allocate ")[2].split(" ")[0]
    if isinstance(exc, RuntimeError) and asked.isdigit():  # torch's CPU allocator
        return f"torch could not allocate {int(asked) / 2**30:.2f} GiB"
    return None


def _die_by(signum: int) -> None:
    """Flush and end the process by `signum`, so that a shell sees status 128 + signum."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)  # pragma: no cover (only where the signal did not end us)


def install_error_handler() -> None:
    """Make sys.excepthook print one line per error (idempotent)."""
    sys.excepthook = excepthook
