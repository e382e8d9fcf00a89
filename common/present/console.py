"""Console formatting: section headers, aligned tables, observations and units.

Standard library only, so lecture 02 runs on a bare ``python3``.

Units follow one convention everywhere: KB/MB/GB are powers of 1000 and
KiB/MiB/GiB powers of 1024; the two are never mixed in one number.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Iterable, Sequence

from common.tables.validate import finite

WIDTH = 88  # text width of headers and observations, fits a terminal and the docs site

_SI_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K"))
_DECIMAL_BYTES = ((1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB"))
_BINARY_BYTES = ((2**50, "PiB"), (2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))
_TIME_UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def _scaled(x: float, table: Sequence[tuple[float, str]], digits: int, base_unit: str) -> str:
    """Format |x| with the largest unit in `table` that keeps it >= 1."""
    for scale, unit in table:
        if abs(x) >= scale:
            return f"{x / scale:.{digits}f} {unit}"
    return f"{x:.{digits}f} {base_unit}" if x != int(x) else f"{int(x)} {base_unit}"


def fmt_num(x: float, digits: int = 2, unit: str = "") -> str:
    """SI-prefixed number: fmt_num(8.67e9, unit="FLOP") == '8.67 GFLOP'."""
    x = finite(x, "value")
    for scale, prefix in _SI_PREFIXES:
        if abs(x) >= scale:
            return f"{x / scale:.{digits}f} {prefix}{unit}".rstrip()
    text = f"{x:.{digits}f}" if x != int(x) else f"{int(x)}"
    return f"{text} {unit}".rstrip()


def fmt_flops(x: float, digits: int = 2) -> str:
    """A FLOP count: fmt_flops(8.67e9) == '8.67 GFLOP'."""
    return fmt_num(x, digits, "FLOP")


def fmt_rate(flops_per_s: float, digits: int = 1) -> str:
    """A compute rate: fmt_rate(989e12) == '989.0 TFLOP/s'."""
    return fmt_num(flops_per_s, digits, "FLOP/s")


def fmt_bytes(n: float, binary: bool = False, digits: int = 2) -> str:
    """A byte count, decimal (MB = 1e6 B) by default or binary (MiB = 2**20 B)."""
    n = finite(n, "byte count")
    return _scaled(n, _BINARY_BYTES if binary else _DECIMAL_BYTES, digits, "B")


def fmt_bw(bytes_per_s: float, digits: int = 2) -> str:
    """A bandwidth in decimal units: fmt_bw(3.35e12) == '3.35 TB/s'."""
    return fmt_bytes(bytes_per_s, binary=False, digits=digits) + "/s"


def fmt_time(seconds: float, unit: str | None = None, digits: int | None = None) -> str:
    """A duration from ns to s; fixed unit with `unit` ('ns', 'µs', 'ms', 's')."""
    seconds = finite(seconds, "time")
    if unit is not None:
        if unit not in _TIME_UNITS:
            raise ValueError(f"unknown time unit {unit!r}; use one of ns, µs, ms, s")
        value = seconds / _TIME_UNITS[unit]
        return f"{value:.{3 if digits is None else digits}f} {unit}"
    units = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
    index = next((i for i, (_, scale) in enumerate(units) if abs(seconds) >= scale), 3)

    def places(value: float) -> int:  # three significant figures unless `digits` is given
        if digits is not None:
            return digits
        return 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2

    value = seconds / units[index][1]
    if index > 0 and round(abs(value), places(value)) >= 1000:  # 999.96 µs prints as 1.00 ms
        index -= 1
        value = seconds / units[index][1]
    return f"{value:.{places(value)}f} {units[index][0]}"


def fmt_ratio(x: float, digits: int = 2) -> str:
    """A speedup or growth factor: fmt_ratio(3.17) == 'x3.17'."""
    return f"x{finite(x, 'ratio'):.{digits}f}"


def _is_numeric(cell: str) -> bool:
    """True when a cell reads as a number (right-aligned in tables)."""
    stripped = cell.strip().lstrip("x~<>=+-").replace(",", "").replace("%", "").split(" ")[0]
    try:
        float(stripped)
    except ValueError:
        return False
    return True


def format_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Aligned plain-text table: numbers right-aligned, text left-aligned."""
    text_rows = [[str(c) for c in row] for row in rows]
    ncol = len(headers)
    for row in text_rows:
        if len(row) != ncol:
            raise ValueError(f"table row has {len(row)} cells, header has {ncol}: {row}")
    widths = [max([len(h)] + [len(r[i]) for r in text_rows]) for i, h in enumerate(headers)]
    numeric = [
        bool(text_rows) and all(_is_numeric(r[i]) or r[i] in ("", "-") for r in text_rows)
        for i in range(ncol)
    ]

    def line(cells: Sequence[str]) -> str:
        out = []
        for i, cell in enumerate(cells):
            out.append(cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i]))
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in text_rows)])


def print_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Print an aligned table (see format_table)."""
    print(format_table(headers, rows))


def print_header(title: str) -> None:
    """Print a section title underlined with '='."""
    print()
    print(title)
    print("=" * min(max(len(title), 20), WIDTH))


def format_observations(items: Sequence[str], title: str = "What to observe") -> str:
    """Numbered, wrapped list of observations under a short title."""
    lines = [f"{title}:"]
    for i, item in enumerate(items, 1):
        prefix = f"  {i}. "
        wrapped = textwrap.wrap(
            " ".join(item.split()),
            width=WIDTH,
            initial_indent=prefix,
            subsequent_indent=" " * len(prefix),
        )
        lines.extend(wrapped)
    return "\n".join(lines)


def print_observations(items: Sequence[str], title: str = "What to observe") -> None:
    """Print observations after the numbers they discuss."""
    print()
    print(format_observations(items, title))


def progress(message: str) -> None:
    """Progress line on stderr, only when stderr is a terminal (captured output stays clean)."""
    stream = sys.stderr
    if stream is not None and hasattr(stream, "isatty") and stream.isatty():
        cols = shutil.get_terminal_size((80, 20)).columns
        stream.write("\r" + message[: cols - 1].ljust(cols - 1))
        stream.flush()


def progress_done() -> None:
    """Clear the progress line (no-op when stderr is not a terminal)."""
    stream = sys.stderr
    if stream is not None and hasattr(stream, "isatty") and stream.isatty():
        cols = shutil.get_terminal_size((80, 20)).columns
        stream.write("\r" + " " * (cols - 1) + "\r")
        stream.flush()
