"""The lectures' flags: their types, the shared flags, and the checks made before any work.

A mistyped flag, chip, number or path is one line on stderr before any measuring, and
exit status 2 (``common.shell.boot``'s: 130 interrupted).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from common.shell import boot, paths, sink
from common.shell.paths import FIGURES_DIR, default_results_path
from common.tables.assumptions import ARTICLE_BUDGET_GIB, BATCH_SEARCH_LIMIT

EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPT = boot.EXIT_FAILURE, boot.EXIT_USAGE, boot.EXIT_INTERRUPT
install_error_handler = boot.install_error_handler  # one-line errors (boot's docstring)

# Numeric flags' ranges: a slip (a 300-digit number, 1e308) is a usage error, not an overflow.
MAX_COUNT = 2**30  # any count flag (tokens, sizes): about a billion
MAX_BATCH = BATCH_SEARCH_LIMIT  # sequences served together: about a million
MAX_BUDGET_GIB = 1e5  # a memory budget: 100,000 GiB, far beyond one accelerator
SHOWN_CHARS = 40  # a bad value is quoted up to this many characters
Parser = TypeVar("Parser", bound=argparse.ArgumentParser)


class WholeWords(argparse.HelpFormatter):
    """Help text wrapped at spaces only: 'vllm-eager' or 'TensorRT-LLM' never splits at a hyphen."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in self._split_lines(text, width - len(indent)))


class LectureParser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors are a single line on stderr (exit status 2) and whose
    help text keeps hyphenated words whole (WholeWords)."""

    results_saved: bool | None = None  # set by add_results_flag: does the lecture save?

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(formatter_class=WholeWords, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        line = " ".join(message.split())
        if sys.stderr is not None:  # None when stderr is closed: the status still says it
            sys.stderr.write(f"{self.prog}: error: {line} (see --help)\n")
        raise SystemExit(EXIT_USAGE)


def matplotlib_available() -> bool:
    """True when matplotlib can be imported (checked for --png, without importing it)."""
    return importlib.util.find_spec("matplotlib") is not None


def lecture_parser(doc: str | None, prog: str | None = None) -> LectureParser:
    """A parser for a lecture; the description is the first paragraph of its docstring."""
    first = (doc or "").strip().split("\n\n")[0]
    title = " ".join(line for line in first.splitlines() if set(line.strip()) - set("=-"))
    name = prog or os.path.basename(sys.argv[0] or "lecture")
    return LectureParser(prog=name, description=title or None)


# --- Value types: each returns the value or raises ArgumentTypeError (a usage error)
def _shown(text: str) -> str:
    """A bad value for an error line: quoted, and cut short when it is long."""
    return repr(text) if len(text) <= SHOWN_CHARS else repr(text[:SHOWN_CHARS]) + "..."


def int_in(lo: int, hi: int, what: str = "integer") -> Callable[[str], int]:
    """argparse type: a whole number from lo to hi."""
    kind = "a positive integer" if lo == 1 else f"an {what}"

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:  # also a number too long to convert
            raise argparse.ArgumentTypeError(f"expected {kind}, got {_shown(text)}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(
                f"expected {kind} from {lo:,} to {hi:,}, got {_shown(text)}")  # fmt: skip
        return value

    parse.__name__ = what
    return parse


def number_in(lo: float, hi: float, what: str = "number") -> Callable[[str], float]:
    """argparse type: a finite number with lo < value <= hi."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(
                f"expected a positive number, got {_shown(text)}"
            ) from None
        if not (math.isfinite(value) and value > 0 and lo < value <= hi):
            above = f" above {lo:g} and" if lo > 0 else ""
            raise argparse.ArgumentTypeError(
                f"expected a positive finite number{above} up to {hi:g}, got {_shown(text)}"
            )
        return value

    parse.__name__ = what
    return parse


positive_int = int_in(1, MAX_COUNT, "positive integer")
positive_int.__doc__ = f"argparse type: an integer from 1 to {MAX_COUNT:,}."
batch_size = int_in(1, MAX_BATCH, "batch size")
batch_size.__doc__ = f"argparse type: a batch size from 1 to {MAX_BATCH:,}."


def one_of(choices: Iterable[str], what: str) -> Callable[[str], str]:
    """argparse type: one of `choices` (case-insensitive), with an error listing them."""
    valid = list(choices)
    lowered = {c.lower(): c for c in valid}

    def parse(text: str) -> str:
        key = text.strip().lower()
        if key not in lowered:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {_shown(text)}; choose one of: {', '.join(valid)}")  # fmt: skip
        return lowered[key]

    parse.__name__ = what  # argparse names the type in some messages
    parse.choices = tuple(valid)  # type: ignore[attr-defined]  # the site offers these
    return parse


def path_text(text: str) -> Path:
    """argparse type: a path that is not empty or blank and holds no NUL byte."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a path, got an empty string")
    try:
        return paths.checked_text(text, "given")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def require_precision(parser: argparse.ArgumentParser, chip: Any, precision: str) -> str:
    """precision itself when `chip` has a peak for it; a usage error listing its precisions."""
    if precision not in chip.precisions:
        parser.error(f"argument --precision: the table gives {chip.name} no {precision!r} peak; "
                     f"choose one of: {', '.join(chip.precisions)}")  # fmt: skip
    return precision


# --- The shared flags --------------------------------------------------------
class _StoreGiven(argparse.Action):
    """Store the value and remember that the flag was given (not left at its default)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace._given = {*getattr(namespace, "_given", ()), self.dest}


def add_png_flags(parser: Parser) -> Parser:
    """--png (save figures) and --outdir DIR (where, only with --png; default figures/)."""
    parser.add_argument(
        "--png", action="store_true",
        help="also save the lecture's figure(s) as PNG; needs matplotlib (without it, one "
        "line says so and the lecture runs on without figures)")  # fmt: skip
    add_outdir_flag(parser, "folder for the --png figures")
    return parser


def add_outdir_flag(parser: argparse.ArgumentParser, what: str = "folder for PNG figures") -> None:
    """--outdir DIR: where PNG figures go."""
    parser.add_argument("--outdir", type=path_text, action=_StoreGiven, default=FIGURES_DIR,
                        metavar="DIR", help=f"{what} (default: {FIGURES_DIR})")  # fmt: skip


def png_parser(doc: str | None) -> LectureParser:
    """A lecture's parser with --png and --outdir only (a lecture that measures nothing)."""
    return add_png_flags(lecture_parser(doc))


def add_results_flag(parser: argparse.ArgumentParser, saves: bool = False) -> None:
    """--results FILE: the shared results file (default: results/machine.json); saves=True
    checks, before any measuring, that its folder is writable."""
    parser.results_saved = saves  # type: ignore[attr-defined]  # parse_args checks the path
    role = "that this lecture adds its section to" if saves else "to read measurements from"
    parser.add_argument(
        "--results", type=path_text, default=None, metavar="FILE",
        help=f"results file {role} (default: {default_results_path()})")  # fmt: skip


def add_budget_flag(parser: argparse.ArgumentParser, what: str = "the ledger") -> None:
    """--budget-gib GIB: the memory budget (default: the article's 78 GiB usable on 80 GB)."""
    parser.add_argument(
        "--budget-gib", type=number_in(0.0, MAX_BUDGET_GIB, "memory budget"),
        default=ARTICLE_BUDGET_GIB, metavar="GIB",
        help=f"memory budget for {what}, in GiB, up to {MAX_BUDGET_GIB:,.0f} "
        f"(default: {ARTICLE_BUDGET_GIB:g})")  # fmt: skip


# --- Parsing, then checking what the flags will need -------------------------
def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> Any:
    """Parse sys.argv[1:] (or argv) after installing the one-line error handler, then check
    the paths and packages the flags need (see the module docstring); returns the namespace."""
    install_error_handler()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    given = vars(args).pop("_given", set())  # flags given, not left at their default
    has_png = hasattr(args, "png")
    if hasattr(args, "outdir"):
        if has_png and not args.png and "outdir" in given:
            parser.error("argument --outdir: only used with --png; add --png to save figures")
        if not has_png or args.png:  # a lecture without --png (04) always draws
            try:
                paths.check_output_folder(args.outdir, "figure folder")
            except paths.UnusablePath as exc:
                parser.error(f"argument --outdir: {exc}")
    if has_png and args.png and not matplotlib_available() and not sink.diverted():
        print(f"{parser.prog}: --png: matplotlib is not installed, so no figure is saved "
              "(PNG skipped; run with .venv/bin/python)")  # fmt: skip
        args.png = False
    if hasattr(args, "results"):
        target = args.results if args.results is not None else default_results_path()
        saves = getattr(parser, "results_saved", None)
        check = paths.check_output_file if saves else paths.check_input_file
        try:
            check(target, "results file")
        except paths.UnusablePath as exc:
            parser.error(f"argument --results: {exc}")
    return args
