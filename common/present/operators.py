"""Lecture 05's tables and observations: the operator ledger, built from computed values.

Standard library only. Each function takes what the lecture computed (operators as
``(name, F, D)`` with F FLOPs and D bytes, a chip and precision) and returns display
objects (``common.present.display``) that print the lecture's text in a terminal and
render as HTML tables and prose on its page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from common.files.calibration import SavedCalibration
from common.formulas.roofline import bound_of, intensity, ridge_point, time_bounds
from common.formulas.thresholds import Crossover
from common.hw_specs import Chip
from common.present.claims import direction, outgrew, rose
from common.present.console import (
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_peak,
    fmt_rate,
    fmt_ratio,
    fmt_time,
)
from common.present.display import Figure, Group, Heading, Observations, Table, Text, figure
from common.shell.paths import display_path

Op = tuple[str, float, float]  # (name, F FLOPs, D bytes)


# ---------------------------------------------------------------------------
# Machines
# ---------------------------------------------------------------------------
def machines_table(machines: Sequence[tuple[Chip, str]], saved: SavedCalibration) -> Group:
    """Peak, bandwidth and ridge of each (chip, precision), and this machine if measured."""
    rows = [
        [
            f"{c.name} ({p})",
            fmt_peak(c.peak_flops(p)),
            fmt_bw(c.mem_bw, 3),
            f"{c.ridge_point(p):.1f}",
        ]
        for c, p in machines
    ]
    note = None
    if saved.calibration is not None:
        local = (saved.peak_flops_per_s, saved.bandwidth_bytes_per_s)
        rows.append(
            [
                "this machine (numpy, fp32)",
                fmt_rate(local[0]),
                fmt_bw(local[1], digits=3),
                f"{ridge_point(*local):.1f}",
            ]
        )
    else:
        rows.append(["this machine (numpy, fp32)", "not measured (run lecture 01)", "-", "-"])
        note = Text(f"note: this machine is not measured: {saved.reason}")
    return Group(
        Heading("Machines: peak compute, bandwidth and ridge point"),
        Table(["machine", "peak P", "bandwidth beta", "ridge I* (FLOP/B)"], rows),
        note,
    )


def machines_observations(a100: Chip, h100: Chip, saved: SavedCalibration) -> Group:
    """The A100 -> H100 ratios and what they mean; this machine's ridge if measured."""
    bw_ratio = h100.mem_bw / a100.mem_bw
    bf16_ratio = h100.peak_flops("bf16") / a100.peak_flops("bf16")
    fp8_vs_a100 = h100.peak_flops("fp8") / a100.peak_flops("bf16")
    a_ridge, h_ridge = a100.ridge_point("bf16"), h100.ridge_point("bf16")
    items = [
        f"From {a100.name} to {h100.name}, "
        f"{outgrew('bf16 compute', bf16_ratio, 'bandwidth', bw_ratio)}, so the ridge point "
        f"{rose(a_ridge, h_ridge, unit=' FLOP/B')}"
        + (
            ": on the newer chip more kernels fall on the memory-bound side."
            if direction(a_ridge, h_ridge) > 0
            else ": on the newer chip more kernels reach the compute roof."
            if direction(a_ridge, h_ridge) < 0
            else ": the same kernels are memory-bound on both."
        ),
        f"H100's fp8 peak is {fp8_vs_a100:.1f}x A100's bf16 peak, but it only helps kernels "
        "that are compute-bound (and can run in fp8). Quoting the wrong precision's peak can "
        "flip the verdict of the ledger.",
    ]
    if saved.calibration is not None:
        local = ridge_point(saved.peak_flops_per_s, saved.bandwidth_bytes_per_s)
        items.append(
            f"This machine's ridge point is {local:.1f} FLOP/B, measured with numpy in fp32. It "
            "is what numpy can reach, not a datasheet figure: another BLAS library or thread "
            "count moves it."
        )
    return Group(
        Text(
            f"\nA100 -> H100: bandwidth {fmt_ratio(bw_ratio)}, bf16 compute "
            f"{fmt_ratio(bf16_ratio)}, ridge point {a_ridge:.1f} -> {h_ridge:.1f} FLOP/B"
        ),
        Text(f"H100 fp8 peak vs A100 bf16 peak: {fp8_vs_a100:.1f}x"),
        Observations(items),
    )


# ---------------------------------------------------------------------------
# The operator ledger
# ---------------------------------------------------------------------------
def ledger_table(ops: Sequence[Op], chip: Chip, precision: str, elem_bytes: float) -> Group:
    """Each operator's F, D, intensity, I/I*, bound and time bound on the chip."""
    peak, bw, ridge = chip.peak_flops(precision), chip.mem_bw, chip.ridge_point(precision)
    rows = []
    for name, flops, nbytes in ops:
        i = intensity(flops, nbytes)
        rows.append(
            [
                name,
                fmt_flops(flops),
                fmt_bytes(nbytes),
                f"{i:.2f}",
                f"{i / ridge:.3f}",
                bound_of(i, ridge),
                fmt_time(time_bounds(flops, nbytes, peak, bw)["lower"], "ms", 3),
            ]
        )
    return Group(
        Heading(f"Operator ledger on {chip.name}, {precision}"),
        Text(
            f"chip: {chip.name}, {precision}: P = {fmt_peak(peak)}, beta = {fmt_bw(bw, 3)}, "
            f"I* = {ridge:.1f} FLOP/B; elements of {elem_bytes:g} bytes"
        ),
        Table(["operator", "F", "D", "I (FLOP/B)", "I/I*", "bound", "time bound"], rows),
    )


def ledger_observations(ops: Sequence[Op], chip: Chip, precision: str) -> Observations:
    """How many operators are memory-bound; why the add's I is fixed and a GEMM's is not.

    Quotes the first rows whose names start 'elementwise', 'LayerNorm' and 'GEMM MxKxN'.
    """
    ridge = chip.ridge_point(precision)
    by_name = {name: intensity(f, d) for name, f, d in ops}

    def first(prefix: str) -> tuple[str, float]:
        return next((n, i) for n, i in by_name.items() if n.startswith(prefix))

    (_, add), (_, norm), (gemm_name, gemm) = first("elem"), first("Layer"), first("GEMM")
    gemm_m = gemm_name.split()[1].split("x")[0]
    memory = [n for n, i in by_name.items() if bound_of(i, ridge) == "memory"]
    return Observations(
        [
            f"{len(memory)} of the {len(ops)} operators are memory-bound on {chip.name} at "
            f"{precision}. The elementwise add sits at I = {add:.2f} FLOP/B and LayerNorm at "
            f"{norm:.2f}, against I* = {ridge:.1f}: a faster arithmetic unit cannot shorten them "
            "at all.",
            "The add's intensity does not depend on its size: F and D both grow with the element "
            f"count. A GEMM's does: at M = {gemm_m} it is already {gemm:.1f} FLOP/B, because each "
            "weight byte is reused by every row of the input.",
        ]
    )


def rooflines_png(path: str, ops: Sequence[Op], chips: Sequence[Chip], precision: str) -> Figure:
    """The saved operator rooflines, with a caption that says what to look at."""

    def flat(c: Chip) -> str:  # the key numbers of the operators on c's flat roof
        ridge = c.ridge_point(precision)
        numbers = [str(n) for n, (_, f, d) in enumerate(ops, 1) if intensity(f, d) >= ridge]
        return ", ".join(numbers) or "none"

    on_flat = ", and ".join(f"{flat(c)} on the {c.name}" for c in chips)
    caption = (
        f"The operators of the ledger on the {precision} rooflines of the "
        f"{' and '.join(c.name for c in chips)}, numbered as in the key. Each sits at "
        "min(P, I beta) of its panel's chip; the dotted line is the ridge. Look at how many "
        f"sit on the slope, left of the ridge: only operators {on_flat} reach the flat roof. "
        "The others run at the speed of memory."
    )
    return figure(path, caption, display_path(path))


# ---------------------------------------------------------------------------
# Attention: naive against ideal-minimum traffic
# ---------------------------------------------------------------------------
def attention_comparison(
    naive: tuple[float, float], ideal: tuple[float, float], chip: Chip, precision: str
) -> Group:
    """Naive (S and P in memory) against ideal-minimum attention: table and observations."""
    peak, bw, ridge = chip.peak_flops(precision), chip.mem_bw, chip.ridge_point(precision)
    (f_n, d_n), (f_i, d_i) = naive, ideal
    i_n, i_i = intensity(f_n, d_n), intensity(f_i, d_i)
    t_n = float(time_bounds(f_n, d_n, peak, bw)["lower"])
    t_i = float(time_bounds(f_i, d_i, peak, bw)["lower"])
    b_n, b_i = bound_of(i_n, ridge), bound_of(i_i, ridge)
    table = Table(
        ["", "naive (S, P in memory)", "ideal minimum traffic", "change"],
        [
            ["FLOPs", fmt_flops(f_n), fmt_flops(f_i), fmt_ratio(f_i / f_n, 3)],
            ["bytes", fmt_bytes(d_n), fmt_bytes(d_i), f"{d_n / d_i:.0f}x fewer"],
            ["intensity (FLOP/B)", f"{i_n:.1f}", f"{i_i:.1f}", fmt_ratio(i_i / i_n, 1)],
            ["bound", b_n, b_i, ""],
            [
                "roofline time",
                fmt_time(t_n, "ms", 3),
                fmt_time(t_i, "ms", 3),
                f"{fmt_ratio(t_n / t_i, 1)} faster",
            ],
        ],
    )
    if b_n == b_i:
        move = f"stays on the {b_n}-bound side"
    else:
        move = f"moves from the {b_n}-bound to the {b_i}-bound side"
    return Group(
        Heading("Attention: S and P in memory vs ideal minimum traffic"),
        table,
        Observations(
            [
                f"The FLOPs are unchanged ({fmt_ratio(f_i / f_n, 3)}); the bytes fall "
                f"{d_n / d_i:.0f}x, so the intensity jumps from {i_n:.1f} to {i_i:.1f} FLOP/B "
                f"and the kernel {move} of I* = {ridge:.1f}.",
                f"The time bound falls from {fmt_time(t_n, 'ms', 3)} to {fmt_time(t_i, 'ms', 3)} "
                f"({fmt_ratio(t_n / t_i, 1)}). The whole gain comes from moving fewer bytes, "
                "not from computing less.",
                "Caveat: the ideal minimum is a bound computed from a formula, not a measured "
                "FlashAttention kernel. Real tiled kernels reread K and V (or Q) block by block, "
                "so they move more bytes than this, and their speed must be measured.",
            ]
        ),
    )


# ---------------------------------------------------------------------------
# Two times the compute or two times the bandwidth
# ---------------------------------------------------------------------------
def _whole(x: float) -> bool:
    """True for a speedup of 1x or 2x (to the printed precision)."""
    return abs(x - 1) < 0.005 or abs(x - 2) < 0.005


def speedup_section(
    ops: Sequence[Op], speedups: Mapping[str, tuple[float, float]], chip: Chip, precision: str
) -> Group:
    """Each operator's speedup from 2x compute and 2x bandwidth, and what the pattern says."""
    ridge = chip.ridge_point(precision)
    rows = [
        [
            name,
            f"{intensity(f, d) / ridge:.3f}",
            f"{speedups[name][0]:.2f}x",
            f"{speedups[name][1]:.2f}x",
        ]
        for name, f, d in ops
    ]
    no_gain = [name for name, (sc, _) in speedups.items() if sc < 1.005]
    partial = [n for n, (sc, sb) in speedups.items() if not (_whole(sc) and _whole(sb))]
    if partial:
        partial_note = (
            f"Within a factor of 2 of the ridge ({', '.join(partial)}), the upgrade that helps "
            "pays less than 2x: after doubling, the other resource becomes the limit."
        )
    else:
        partial_note = (
            "Every row reads 1.00x or 2.00x because every operator lies more than a factor of "
            "2 from the ridge. Closer in, the upgrade that helps would pay less than 2x."
        )
    return Group(
        Heading(f"Speedup from doubling one resource ({chip.name}, {precision})"),
        Table(["operator", "I/I*", "2x compute", "2x bandwidth"], rows),
        Observations(
            [
                f"For {len(no_gain)} of the {len(ops)} operators, twice the compute buys "
                f"{min(sc for sc, _ in speedups.values()):.2f}x: they are memory-bound, and only "
                "more bandwidth (or fewer bytes: fusion, smaller data types) makes them faster.",
                partial_note,
            ]
        ),
    )


# ---------------------------------------------------------------------------
# When does a GEMM become compute-bound?
# ---------------------------------------------------------------------------
def sweep_section(
    sweep: Mapping[int, tuple[float, float]],
    width: int,
    chip: Chip,
    precision: str,
    cross: Crossover | None,
    exact_m: int | None,
    limit: float,
) -> Group:
    """The GEMM [M, width] x [width, width] sweep: table, crossover and observations."""
    ridge = chip.ridge_point(precision)
    i_at = {m: intensity(f, d) for m, (f, d) in sweep.items()}
    rows = [
        [m, fmt_flops(f), fmt_bytes(d), f"{i_at[m]:.2f}", bound_of(i_at[m], ridge)]
        for m, (f, d) in sweep.items()
    ]
    lines = [f"\nridge point: I* = {ridge:.1f} FLOP/B"]
    if cross is None:
        lines.append(f"crossover: none; every M up to {max(sweep)} stays memory-bound")
    elif cross.before is None:
        lines.append(f"crossover: none needed; already compute-bound at M = {cross.first}")
    else:
        lines.append(
            f"crossover: M in ({cross.before}, {cross.first}]: I({cross.before}) = "
            f"{i_at[cross.before]:.2f} < I* = {ridge:.1f} <= I({cross.first}) = "
            f"{i_at[cross.first]:.2f}"
        )
    if exact_m is not None:
        lines.append(f"smallest integer M with I >= I*: {exact_m}")
    items = [
        f"At M = 1 (one token, as in decode) the GEMM does {i_at[min(sweep)]:.2f} FLOP per "
        "byte: a matrix-vector product streams every weight once and uses it once. Small-batch "
        "decode is memory-bound, so quantizing the weights helps by moving fewer bytes, not by "
        "faster math.",
        f"I grows almost in proportion to M at first, then saturates: it never exceeds "
        f"{limit:.1f} FLOP/B for these weights, however large M gets.",
    ]
    if cross is not None and cross.before is not None:
        items.insert(
            1,
            f"The sweep crosses the ridge between M = {cross.before} and M = {cross.first}; "
            f"the exact threshold is M = {exact_m}. Below it the weights' bandwidth sets the "
            "time, above it the arithmetic does.",
        )
    return Group(
        Heading(f"GEMM [M, {width}] x [{width}, {width}] on {chip.name}, {precision}"),
        Table(["M", "F", "D", "I (FLOP/B)", "bound"], rows),
        Text("\n".join(lines)),
        Observations(items),
    )
