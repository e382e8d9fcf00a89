"""Console formatting: section headers, aligned tables, observations and units (KB, MB, GB
powers of 1000; KiB, MiB, GiB powers of 1024).
"""

from __future__ import annotations

import re
import shutil
import sys
import textwrap
from collections.abc import Iterable, Sequence
from decimal import Decimal

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
    prefixed = [(scale, prefix + unit) for scale, prefix in _SI_PREFIXES]
    return _scaled(finite(x, "value"), prefixed, digits, unit).rstrip()


def fmt_flops(x: float, digits: int = 2) -> str:
    """A FLOP count: fmt_flops(8.67e9) == '8.67 GFLOP'."""
    return fmt_num(x, digits, "FLOP")


def fmt_rate(flops_per_s: float, digits: int = 1) -> str:
    """A compute rate: fmt_rate(989e12) == '989.0 TFLOP/s'."""
    return fmt_num(flops_per_s, digits, "FLOP/s")


def fmt_bytes(
    n: float, binary: bool = False, digits: int | None = 2, unit: str | None = None
) -> str:
    """A byte count, decimal (MB = 1e6 B) or binary (MiB = 2**20 B), in `unit` if given;
    digits=None keeps three significant figures (233472 B, binary: '228 KiB')."""
    n = finite(n, "byte count")
    if unit is not None:
        scales = {unit: scale for scale, unit in (*_DECIMAL_BYTES, *_BINARY_BYTES)} | {"B": 1.0}
        if unit not in scales:
            raise ValueError(f"unknown byte unit {unit!r}; use one of {', '.join(scales)}")
        return f"{n / scales[unit]:,.{2 if digits is None else digits}f} {unit}"
    table = _BINARY_BYTES if binary else _DECIMAL_BYTES
    if digits is None:
        shown = abs(n) / next((scale for scale, _ in table if abs(n) >= scale), 1.0)
        digits = 0 if shown >= 100 else 1 if shown >= 10 else 2
    return _scaled(n, table, digits, "B")


def fmt_kib(n: float, digits: int | None = None) -> str:
    """A byte count in binary units (KiB = 2**10 B, MiB, GiB), three significant figures
    unless `digits` is given: fmt_kib(233472) == '228 KiB', fmt_kib(1290, 2) == '1.26 KiB'."""
    return fmt_bytes(n, binary=True, digits=digits)


def fmt_gb(n: float) -> str:
    """Bytes in decimal GB, two decimals (chip capacities are decimal): '80.00 GB'; a count
    that is not zero but would print as 0.00 GB takes its own decimal unit: '1.64 MB'."""
    return fmt_bytes(n) if 0 < abs(n) < 0.005e9 else fmt_bytes(n, unit="GB")


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
        return f"{value:,.{3 if digits is None else digits}f} {unit}"
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
    if seconds and abs(seconds) < 0.1e-9:  # 160 FLOP at 989 TFLOP/s: 0.16 ps, not 0.00 ns
        ps = seconds / 1e-12
        return f"{ps:.{places(ps)}f} ps" if abs(ps) >= 1 else f"{ps:.2g} ps"
    return f"{value:.{places(value)}f} {units[index][0]}"


def fmt_ratio(x: float, digits: int = 2) -> str:
    """A speedup or growth factor: fmt_ratio(3.17) == 'x3.17'; a tiny one never prints x0."""
    text = f"x{finite(x, 'ratio'):.{digits}f}"
    return f"x{x:.2g}" if x and float(text[1:]) == 0 else text


def fmt_fraction(x: float, digits: int = 3) -> str:
    """A dimensionless ratio such as I/I* with `digits` decimals ('10.307'); a non-zero one
    that would print as 0.000 keeps two significant digits ('0.00012')."""
    text = f"{finite(x, 'ratio'):.{digits}f}"
    return f"{x:.2g}" if x and float(text) == 0 else text


def fmt_pct(fraction: float, digits: int = 0) -> str:
    """A fraction as a percentage: fmt_pct(0.873) == '87%'; a non-zero one that would print
    as zero says so: fmt_pct(0.0004, 1) == 'under 0.1%'."""
    text = f"{finite(fraction, 'fraction') * 100:.{digits}f}"
    return f"under {10.0**-digits:.{digits}f}%" if fraction > 0 and float(text) == 0 else text + "%"


def fmt_intensity(flops: float, nbytes: float = 1.0, small: int = 3, large: int = 1) -> str:
    """Intensity I = flops / nbytes in FLOP/byte: `small` decimals below 10, `large` from 10;
    '-' when nothing leaves the chip (nbytes == 0)."""
    if nbytes == 0:
        return "-"
    i = flops / nbytes
    return f"{i:.{small}f}" if i < 10 else f"{i:.{large}f}"


def fmt_batch(b: int | None, none: str = "-") -> str:
    """A batch size (fmt_batch(1024) == '1,024'), or `none` when there is none."""
    return none if b is None else f"{b:,}"


def fmt_peak(flops_per_s: float) -> str:
    """A datasheet peak in TFLOP/s, as vendors quote it: fmt_peak(312e12) == '312 TFLOP/s'."""
    text = f"{finite(flops_per_s, 'peak') / 1e12:g}"  # x1000 of 1979 is 1979000, not 1.979e+06
    return f"{Decimal(text):f} TFLOP/s" if "e" in text else f"{text} TFLOP/s"


def fmt_si(value: float, unit: str, significant: int = 4) -> str:
    """Decimal SI with up to `significant` digits: fmt_si(1555e9, 'B/s') == '1.555 TB/s'."""
    value = finite(value, "value")
    scale, prefix = next(((s, p) for s, p in _SI_PREFIXES if abs(value) >= s), (1, ""))
    return f"{value / scale:.{significant}g} {prefix}{unit}"


def _numeric_columns(rows: Sequence[Sequence[str]], ncol: int) -> list[bool]:
    """For each column, whether every cell reads as a number or is '' or '-' (right-aligned)."""

    def numeric(cell: str) -> bool:
        cell = cell.strip().removeprefix("under ")  # fmt_pct's "under 0.1%" reads as a number
        text = re.sub("[,%]", "", cell.removeprefix("1/").lstrip("x~<>=+-")).split(" ")[0]
        try:
            float(text)
        except ValueError:
            return cell in ("", "-")
        return True

    return [bool(rows) and all(numeric(r[i]) for r in rows) for i in range(ncol)]


def format_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Aligned plain-text table: numbers right-aligned, text left-aligned."""
    text_rows = [[str(c) for c in row] for row in rows]
    ncol = len(headers)
    for row in text_rows:
        if len(row) != ncol:
            raise ValueError(f"table row has {len(row)} cells, header has {ncol}: {row}")
    widths = [max([len(h)] + [len(r[i]) for r in text_rows]) for i, h in enumerate(headers)]
    numeric = _numeric_columns(text_rows, ncol)

    def line(cells: Sequence[str]) -> str:
        padded = zip(cells, widths, numeric, strict=True)
        return "  ".join(c.rjust(w) if right else c.ljust(w) for c, w, right in padded).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in text_rows)])


def print_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Print an aligned table (see format_table)."""
    print(format_table(headers, rows))


def print_header(title: str) -> None:
    """Print a section title underlined with '='."""
    print(f"\n{title}\n" + "=" * min(max(len(title), 20), WIDTH))


#: The space between a number and its unit ('448 µs', '8.03 G', '3.35 TB/s'), not a line break.
_UNIT_SPACE = re.compile(r"(?<=\d) (?=(?:[kKMGTPE]i?(?:B|FLOP|s)?|B|FLOP|s|[µnpm]s)\b)")


def format_observations(items: Sequence[str], title: str = "What to observe") -> str:
    """Numbered, wrapped list of observations under a short title."""
    lines = [f"{title}:"]
    for i, item in enumerate(items, 1):
        prefix = f"  {i}. "
        indents = {"initial_indent": prefix, "subsequent_indent": " " * len(prefix)}
        glued = _UNIT_SPACE.sub("\xa0", " ".join(item.split()))  # wrapped, '448 µs' stays whole
        lines += [line.replace("\xa0", " ") for line in textwrap.wrap(glued, WIDTH, **indents)]
    return "\n".join(lines)


def print_observations(items: Sequence[str], title: str = "What to observe") -> None:
    """Print observations after the numbers they discuss."""
    print("\n" + format_observations(items, title))


def progress(message: str, end: str = "") -> None:
    """Progress line on stderr, only when stderr is a terminal (captured output stays clean)."""
    if (stream := sys.stderr) is not None and hasattr(stream, "isatty") and stream.isatty():
        cols = shutil.get_terminal_size((80, 20)).columns
        stream.write("\r" + message[: cols - 1].ljust(cols - 1) + end)
        stream.flush()


def progress_done() -> None:
    """Clear the progress line (no-op when stderr is not a terminal)."""
    progress("", "\r")
