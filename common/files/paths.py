"""Where the course's files live: the repository root and its output folders."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
FIGURES_DIR = REPO_ROOT / "figures"
RESULTS_DIR = REPO_ROOT / "results"
RESULTS_ENV = "ROOFLINE_RESULTS"  # overrides the results file (the docs build uses it)


def default_results_path() -> Path:
    """The results file: $ROOFLINE_RESULTS if set, else results/machine.json at the repo root."""
    override = os.environ.get(RESULTS_ENV)
    return Path(override) if override else RESULTS_DIR / "machine.json"


def display_path(path: str | os.PathLike[str]) -> str:
    """A path for printing: relative to the repository root when inside it, else as given."""
    p = Path(path)
    try:
        return p.resolve().relative_to(REPO_ROOT).as_posix()
    except (ValueError, OSError):
        return str(p)
