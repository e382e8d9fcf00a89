"""The results file: measurements that one lecture makes and later lectures read."""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from common.files.atomic import atomic_write_text, atomic_write_with, writable_dir
from common.measure import machine
from common.shell.paths import _kind, check_output_file, default_results_path, display_path

FORMAT_VERSION = 1
MAX_FILE_BYTES = 64 * 2**20  # a results file is kilobytes; anything this large is not one
BACKUP_STEM_CHARS = 100  # a backup name keeps at most this much of the file's name


class Loaded(NamedTuple):
    """A results document, or None and the one-line reason it could not be used."""

    data: dict[str, Any] | None
    reason: str
    path: Path

    def __bool__(self) -> bool:
        return self.data is not None


def resolve(path: str | os.PathLike[str] | None) -> Path:
    """The results path to use: `path` if given, else the default (or $ROOFLINE_RESULTS)."""
    return Path(path) if path is not None else default_results_path()


def _not_a_number(name: str) -> float:
    raise ValueError(f"non-standard number {name}")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is out of range")
    return value


MAX_INT_DIGITS = 300  # an integer a float can hold (10**308 is the float limit)


def _bounded_int(text: str) -> int:
    """A JSON integer a float can also hold; ValueError for 10**400 and the like."""
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"integer of {len(text.lstrip('-'))} digits is out of range")
    return int(text)


STRICT_JSON = dict(parse_constant=_not_a_number, parse_float=_finite_float, parse_int=_bounded_int)
# The machine record's fields and their types; a field may be absent or null (not known).
MACHINE_FIELDS: dict[str, tuple[type, ...]] = {
    "cpu": (str,), "cores": (int, type(None)), "system": (str,), "python": (str,),
    "numpy": (str,), "blas": (dict,), "blas_env": (dict,)}  # fmt: skip
BLAS_VALUE_TYPES = (str, int, float, type(None))
SECTIONS = ("probe", "batch_sweep", "hierarchy", "attention")  # the lectures' sections


def _problem(doc: object) -> str | None:
    """Why a parsed document is unusable (not an object, a machine record field of the wrong
    type, a section that is not an object), or None if it is fine."""
    if not isinstance(doc, dict):
        return "not an object"
    record = doc.get("machine")
    if not isinstance(record, dict):
        return "no machine record"
    for key, types in MACHINE_FIELDS.items():
        value = record.get(key)  # a field left out (None) is unknown, not wrong
        if value is not None and (not isinstance(value, types) or isinstance(value, bool)):
            return f"machine.{key} is {type(value).__name__}, not {types[0].__name__}"
    for key in ("blas", "blas_env"):
        for name, value in (record.get(key) or {}).items():
            if not isinstance(name, str) or not isinstance(value, BLAS_VALUE_TYPES):
                return f"machine.{key}.{name} is {type(value).__name__}"
    for name in SECTIONS:
        if name in doc and not isinstance(doc[name], dict):
            return f"section {name!r} is {type(doc[name]).__name__}, not an object"
    return None


def load_results(
    path: str | os.PathLike[str] | None = None, *, this_machine: dict[str, Any] | None = None
) -> Loaded:
    """Read and check the results file; never raises for a missing or bad file."""
    target = resolve(path)
    shown = display_path(target)

    def unusable(reason: str) -> Loaded:
        return Loaded(None, f"results file {shown} {reason}", target)

    try:
        st = os.stat(target)
        if not stat.S_ISREG(st.st_mode):
            return unusable(f"is {_kind(st.st_mode)}, not a file")
        if st.st_size > MAX_FILE_BYTES:
            return unusable("is corrupt (too large)")
        raw = target.read_bytes()
    except FileNotFoundError:
        return Loaded(None, f"no results file at {shown} (run lecture 01 to create it)", target)
    except OSError as exc:
        return Loaded(None, f"cannot read results file {shown}: {exc.strerror or exc}", target)
    try:  # strict JSON in UTF-8 (a byte-order mark allowed): no NaN, Infinity or 10**400
        data = json.loads(raw.decode("utf-8-sig"), **STRICT_JSON)
    except UnicodeDecodeError:
        problem = "not UTF-8 text"
    except RecursionError:
        problem = "nested too deeply"
    except json.JSONDecodeError as exc:
        problem = f"invalid JSON: {exc.msg}"
    except ValueError as exc:  # the number hooks' reasons
        problem = str(exc)
    else:
        problem = _problem(data)
    if problem:
        return unusable(f"is corrupt ({problem})")
    if type(version := data.get("format_version")) is not int or version != FORMAT_VERSION:
        return unusable(f"has format version {version!r}, expected {FORMAT_VERSION}")
    try:  # describing this machine takes numpy and threadpoolctl, which bare python3 lacks
        here = this_machine if this_machine is not None else machine.describe()
    except ImportError as exc:
        why = f"without {exc.name} (run with .venv/bin/python)"
        return unusable(f"cannot be matched to this machine {why}")
    if machine.fingerprint(data["machine"]) != machine.fingerprint(here):
        return unusable(f"was measured on another machine ({machine.fingerprint(data['machine'])})")
    return Loaded(data, "", target)


def new_document(this_machine: dict[str, Any] | None = None) -> dict[str, Any]:
    """An empty results document for this machine."""
    return {
        "format_version": FORMAT_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": this_machine if this_machine is not None else machine.describe()}  # fmt: skip


LOCK_NOTICE_S = 3.0  # after this long without the lock, say who we are waiting for
LOCK_TIMEOUT_S = 30.0  # after this long, give up with a one-line error
LOCK_POLL_S = 0.05


@contextlib.contextmanager
def locked_folder(folder: Path, notice_s: float = LOCK_NOTICE_S, timeout_s: float = LOCK_TIMEOUT_S,
                  clock: Callable[[], float] = time.monotonic,
                  sleep: Callable[[float], None] = time.sleep) -> Iterator[None]:  # fmt: skip
    """Hold an exclusive lock on `folder` (flock on its descriptor; no lock file is left)."""
    try:
        import fcntl

        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):  # no flock (not POSIX), or the folder cannot be opened
        fd = None
    try:
        start, noticed = clock(), False
        while fd is not None:
            with contextlib.suppress(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            waited = clock() - start
            if waited >= timeout_s:
                raise ValueError(
                    f"gave up saving after {waited:.0f} s: another run still holds the lock on "
                    f"{display_path(folder)} (a lecture stopped with Ctrl-Z? end it, then run "
                    "again)")  # fmt: skip
            if not noticed and waited >= notice_s:
                noticed = True
                wait = f"waiting for another run to finish saving in {display_path(folder)}"
                print(wait, f"(giving up after {timeout_s:.0f} s) ...", file=sys.stderr, flush=True)
            sleep(LOCK_POLL_S)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock


def _keep_aside(path: Path) -> Path:
    """Keep the current content of `path` under a new name beside it (a hard link, else a
    copy): NAME.backup-DATE-TIME[-N].SUFFIX."""
    stamp, stem = time.strftime("%Y%m%d-%H%M%S"), path.stem[:BACKUP_STEM_CHARS]
    names = (
        path.with_name(f"{stem}.backup-{stamp}{f'-{n}' * (n > 1)}{path.suffix}")
        for n in range(1, 1000))  # fmt: skip
    backup = next((name for name in names if not os.path.lexists(name)), None)
    if backup is None:
        raise ValueError(f"too many backups of {display_path(path)} this second")
    try:
        os.link(path, backup)
    except OSError:
        raw = path.read_bytes()
        atomic_write_with(backup, lambda handle: handle.write(raw))
    return backup


def save_section(section: str, payload: dict[str, Any], path: str | os.PathLike[str] | None = None,
                 *, this_machine: dict[str, Any] | None = None) -> Path:  # fmt: skip
    """Store `payload` under `section`, keeping the other sections, atomic and locked, through
    a symlink; an unusable old file is kept under a backup name, said on stdout."""
    target = resolve(path)
    check_output_file(target)  # UnusablePath or ValueError, naming `target`
    real = Path(os.path.realpath(target))
    here = this_machine if this_machine is not None else machine.describe()
    writable_dir(real.parent, "results folder")
    with locked_folder(real.parent):
        loaded = load_results(real, this_machine=here)
        doc = loaded.data if loaded.data is not None else new_document(here)
        doc["machine"] = here
        doc["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        doc[section] = payload
        try:
            text = json.dumps(doc, indent=1, sort_keys=False, allow_nan=False) + "\n"
        except ValueError as exc:  # a NaN or infinity in the payload
            raise ValueError(
                f"cannot save section {section!r} to {display_path(target)}: {exc}"
            ) from None
        note = ""
        if loaded.data is None and real.is_file():
            note = f"note: {loaded.reason}; kept it as {display_path(_keep_aside(real))}"
        atomic_write_text(real, text)
    if note:
        print(note)
    return target


def get_section(loaded: Loaded, section: str) -> tuple[dict[str, Any] | None, str]:
    """A section of a loaded document, or None and why it is unusable."""
    if loaded.data is None:
        return None, loaded.reason
    value = loaded.data.get(section)
    if not isinstance(value, dict):
        return None, f"results file {display_path(loaded.path)} has no {section!r} section yet"
    return value, ""


def positive_number(mapping: dict[str, Any], key: str) -> float:
    """mapping[key] as a positive finite float; ValueError naming the key otherwise."""
    value = mapping.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"results entry {key!r} is not a number: {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"results entry {key!r} is not a positive number: {value!r}")
    return float(value)
