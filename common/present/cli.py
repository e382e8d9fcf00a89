"""Command-line handling shared by the lectures: flags, validation and one-line errors.

A student who mistypes a flag, a chip or a number gets one line that says what
was wrong and a non-zero exit, never a traceback. Set ROOFLINE_TRACEBACK=1 to
see the full traceback when debugging the course itself.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType

from common.files.paths import FIGURES_DIR, default_results_path
from common.tables.assumptions import ARTICLE_BUDGET_GIB


class LectureParser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors are a single line on stderr (exit status 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(2)


def lecture_parser(doc: str | None, prog: str | None = None) -> LectureParser:
    """A parser for a lecture; the description is the first paragraph of its docstring."""
    first = (doc or "").strip().split("\n\n")[0]
    title = " ".join(line for line in first.splitlines() if set(line.strip()) - set("=-"))
    name = prog or os.path.basename(sys.argv[0] or "lecture")
    return LectureParser(prog=name, description=title or None)


def add_png_flags(parser: argparse.ArgumentParser, default_outdir: Path = FIGURES_DIR) -> None:
    """--png (save figures) and --outdir DIR (where; default figures/ at the repo root)."""
    parser.add_argument("--png", action="store_true", help="also save the lecture's figure(s)")
    add_outdir_flag(parser, default_outdir)


def add_outdir_flag(parser: argparse.ArgumentParser, default_outdir: Path = FIGURES_DIR) -> None:
    """--outdir DIR: where PNG figures go."""
    parser.add_argument(
        "--outdir",
        type=Path,
        default=default_outdir,
        metavar="DIR",
        help=f"folder for PNG figures (default: {default_outdir})",
    )


def add_results_flag(parser: argparse.ArgumentParser) -> None:
    """--results FILE: the shared results file (default: results/machine.json)."""
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"results file shared by the lectures (default: {default_results_path()})",
    )


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None):
    """Parse sys.argv[1:] (or argv) after installing the one-line error handler."""
    install_error_handler()
    return parser.parse_args(sys.argv[1:] if argv is None else argv)


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive finite number, got {text!r}")
    return value


def one_of(choices: Iterable[str], what: str) -> Callable[[str], str]:
    """argparse type: one of `choices` (case-insensitive), with an error listing them."""
    valid = list(choices)
    lowered = {c.lower(): c for c in valid}

    def parse(text: str) -> str:
        key = text.strip().lower()
        if key not in lowered:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {text!r}; choose one of: {', '.join(valid)}"
            )
        return lowered[key]

    parse.__name__ = what  # argparse names the type in some messages
    return parse


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else exc.__class__.__name__


def _excepthook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    prog = os.path.basename(sys.argv[0] or "lecture")
    if os.environ.get("ROOFLINE_TRACEBACK"):
        sys.__excepthook__(kind, exc, tb)
        return
    if issubclass(kind, KeyboardInterrupt):
        sys.stderr.write(f"{prog}: interrupted; nothing half-written was kept\n")
        return
    if issubclass(kind, (ValueError, OSError)):
        sys.stderr.write(f"{prog}: error: {_one_line(exc)}\n")
        return
    if issubclass(kind, ImportError):
        sys.stderr.write(f"{prog}: error: {_one_line(exc)} (run `make test` once to set up)\n")
        return
    sys.__excepthook__(kind, exc, tb)


def install_error_handler() -> None:
    """Report ValueError, OSError, ImportError and Ctrl-C as one line; Python still exits 1."""
    sys.excepthook = _excepthook


def add_budget_flag(parser: argparse.ArgumentParser, what: str = "the ledger") -> None:
    """--budget-gib GIB: the memory budget (default: the article's 78 GiB usable on 80 GB)."""
    parser.add_argument(
        "--budget-gib",
        type=positive_float,
        default=ARTICLE_BUDGET_GIB,
        metavar="GIB",
        help=f"memory budget for {what}, in GiB (default: {ARTICLE_BUDGET_GIB:g})",
    )
