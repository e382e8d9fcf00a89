"""Shared test helpers: run a lecture the way a student does, in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LECTURES = REPO / "lectures"


def lecture_path(name: str) -> Path:
    """The lecture whose file name starts with `name` (e.g. '02' or '02_roofline_basics')."""
    matches = sorted(LECTURES.glob(f"{name}*.py"))
    if len(matches) != 1:
        raise LookupError(f"expected one lecture matching {name!r}, found {matches}")
    return matches[0]


def run_lecture(
    name: str | Path,
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    python: str = sys.executable,
    timeout: float = 120,
    python_flags: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Run a lecture script with the test's interpreter; returns the finished process."""
    script = name if isinstance(name, Path) else lecture_path(name)
    full_env = {**os.environ, **(env or {})}
    full_env.pop("ROOFLINE_TRACEBACK", None)
    return subprocess.run(
        [python, *python_flags, str(script), *args],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        env=full_env,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def results_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A results file path in a temporary folder, also exported as $ROOFLINE_RESULTS."""
    path = tmp_path / "results" / "machine.json"
    monkeypatch.setenv("ROOFLINE_RESULTS", str(path))
    return path


def summary_value(out: str, label: str) -> str:
    """The value printed after `label` in a lecture's Summary table (lectures 06 and 07)."""
    summary = out[out.index("\nSummary\n") :]
    match = re.search(rf"^{re.escape(label)}\s+(.+)$", summary, re.MULTILINE)
    assert match, f"summary line {label!r} missing"
    return match.group(1).strip()
