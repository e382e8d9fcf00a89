"""Text charts for the console: the log-log ASCII roofline."""

from __future__ import annotations

import math
from collections.abc import Sequence

from common.formulas.roofline import attainable_flops, bound_of, ridge_point
from common.tables.validate import positive, positive_int


def ascii_roofline(points: Sequence[tuple[str, float, float | None]], peak: float, bw: float,
                   xmin: float = 0.1, xmax: float = 1e4, width: int = 64,
                   height: int = 16) -> list[str]:  # fmt: skip
    """Log-log text roofline: '/' memory roof, '_' compute roof, '+' ridge, labelled points."""
    p, b = positive(peak, "peak FLOP/s"), positive(bw, "bandwidth")
    lo, hi = positive(xmin, "xmin"), positive(xmax, "xmax")
    if hi <= lo:
        raise ValueError(f"xmax ({xmax}) must be larger than xmin ({xmin})")
    width, height = max(positive_int(width, "width"), 16), max(positive_int(height, "height"), 6)
    ymax = math.log10(p) + 0.25
    ymin = math.log10(attainable_flops(lo, p, b)) - 0.25
    lx0, lx1 = math.log10(lo), math.log10(hi)

    def col(i: float) -> int:
        return round((math.log10(i) - lx0) / (lx1 - lx0) * (width - 1))

    def row(perf: float) -> int:
        return round((ymax - math.log10(perf)) / (ymax - ymin) * (height - 1))

    grid = [[" "] * width for _ in range(height)]
    ridge = ridge_point(p, b)
    for c in range(width):
        i = 10 ** (lx0 + c / (width - 1) * (lx1 - lx0))
        if 0 <= (r := row(attainable_flops(i, p, b))) < height:
            grid[r][c] = "_" if bound_of(i, ridge) == "compute" else "/"
    if lo <= ridge <= hi:
        grid[row(p)][col(ridge)] = "+"
    for label, i, perf in points:
        if not lo <= i <= hi:
            continue
        r, c = row(attainable_flops(i, p, b) if perf is None else perf), col(i)
        if 0 <= r < height:
            grid[r][c] = label[:1]

    def ylabel(r: int) -> str:
        return f"{10 ** (ymax - r / (height - 1) * (ymax - ymin)):9.1e}"  # FLOP/s at row r

    lines = [
        f"{ylabel(r) if r % 3 == 0 else ' ' * 9} |{''.join(cells)}" for r, cells in enumerate(grid)
    ]
    lines.append(" " * 10 + "+" + "-" * width)
    ticks = [" "] * width
    for decade in range(math.ceil(lx0), math.floor(lx1) + 1):
        text = f"{10.0**decade:g}" if -1 <= decade <= 2 else f"1e{decade}"
        c = min(col(10.0**decade), width - len(text))  # keep the last label inside the axis
        ticks[c : c + len(text)] = text
    lines.append(" " * 11 + "".join(ticks).rstrip())
    lines.append(" " * 11 + "arithmetic intensity (FLOP/byte, log scale); y: FLOP/s (log scale)")
    return lines
