"""The results file: measurements that one lecture makes and later lectures read.

One JSON document, written atomically, with a format version, the date, the
machine it was measured on, and one section per measuring lecture (``probe``
from lecture 01, ``batch_sweep`` from lecture 03, ``hierarchy`` from lecture 09).

Reading never raises on a bad file: ``load_results`` returns the document or
``None`` with a one-line reason (missing, corrupt, another format version,
another machine), and the lecture falls back to a fresh quick measurement or to
stated defaults.
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path
from typing import Any, NamedTuple

from common.files.atomic import atomic_write_text
from common.files.paths import default_results_path, display_path
from common.measure import machine

FORMAT_VERSION = 1


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


def load_results(
    path: str | os.PathLike[str] | None = None,
    *,
    this_machine: dict[str, Any] | None = None,
) -> Loaded:
    """Read and check the results file; never raises for a missing or bad file."""
    target = resolve(path)
    shown = display_path(target)
    if not target.exists():
        return Loaded(None, f"no results file at {shown} (run lecture 01 to create it)", target)
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return Loaded(None, f"cannot read results file {shown}: {exc}", target)
    except json.JSONDecodeError as exc:
        return Loaded(
            None,
            f"results file {shown} is corrupt (invalid JSON: {exc.msg})",
            target,
        )
    if not isinstance(data, dict) or not isinstance(data.get("machine"), dict):
        return Loaded(None, f"results file {shown} is corrupt (no machine record)", target)
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        return Loaded(
            None,
            f"results file {shown} has format version {version!r}, expected {FORMAT_VERSION}",
            target,
        )
    here = this_machine if this_machine is not None else machine.describe()
    if machine.fingerprint(data["machine"]) != machine.fingerprint(here):
        return Loaded(
            None,
            f"results file {shown} was measured on another machine "
            f"({machine.fingerprint(data['machine'])})",
            target,
        )
    return Loaded(data, "", target)


def new_document(this_machine: dict[str, Any] | None = None) -> dict[str, Any]:
    """An empty results document for this machine."""
    return {
        "format_version": FORMAT_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": this_machine if this_machine is not None else machine.describe(),
    }


def save_section(
    section: str,
    payload: dict[str, Any],
    path: str | os.PathLike[str] | None = None,
    *,
    this_machine: dict[str, Any] | None = None,
) -> Path:
    """Store `payload` under `section`, keeping the other sections of a valid file; atomic."""
    here = this_machine if this_machine is not None else machine.describe()
    loaded = load_results(path, this_machine=here)
    doc = loaded.data if loaded.data is not None else new_document(here)
    doc["machine"] = here
    doc["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    doc[section] = payload
    text = json.dumps(doc, indent=1, sort_keys=False, allow_nan=False) + "\n"
    return atomic_write_text(loaded.path, text)


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
