"""Lecture 01's tables and sentences: the machine, its two roofs, the operations' ledger.

Standard library only. Every function takes numbers the lecture computed (the
calibration record of ``common.measure.roofs.calibrate``, the rows of
``common.formulas.numpy_ops.roofline_row``) and returns display objects
(``common.present.display``): the same text in a terminal, HTML on the site.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from common.files.calibration import SavedCalibration
from common.formulas.numpy_ops import GEMM_SKINNY_M, GEMM_WIDE_M, roofline_row
from common.measure.budget import cache_note
from common.present.console import fmt_bw, fmt_bytes, fmt_flops, fmt_pct, fmt_rate, fmt_time
from common.present.display import Facts, Group, Heading, Observations, Table, Text
from common.present.explain import above_roof_reasons
from common.shell.paths import display_path

Row = Mapping[str, Any]  # one operation, as numpy_ops.roofline_row returns it

FLAG_TEXT = "above roof (see note)"  # printed instead of a percentage above the roof


def previous_text(previous: SavedCalibration) -> Text:
    """Where the previous calibration came from, or in one line why none is usable."""
    if previous.calibration is None or previous.loaded.data is None:
        return Text(f"previous calibration: none usable ({previous.reason})")
    updated = previous.loaded.data.get("updated")
    return Text(f"previous calibration: {display_path(previous.loaded.path)} (updated {updated})")


def machine_facts(
    desc: Mapping[str, Any],
    caches: Sequence[tuple[str, float]],
    llc_bytes: float,
    available_bytes: float | None,
) -> Facts:
    """CPU, caches (name, bytes), memory, numpy and BLAS: what every roof below depends on."""
    blas = desc["blas"]
    if caches:
        cache_row = (
            "caches (per core view)",
            ", ".join(f"{name} {fmt_bytes(size, binary=True, digits=0)}" for name, size in caches),
        )
    else:
        cache_row = ("caches", f"not reported; assuming an LLC of {fmt_bytes(llc_bytes, True)}")
    version = f" {blas['version']}" if blas.get("version") else ""
    layer = f", {blas['threading_layer']} threading" if blas.get("threading_layer") else ""
    env = desc["blas_env"]
    return Group(
        Heading("This machine", page=""),
        Facts(
            [
                ("CPU", f"{desc['cpu']}, {desc['cores']} usable cores ({desc['system']})"),
                cache_row,
                (
                    "available memory",
                    fmt_bytes(available_bytes, True) if available_bytes else "unknown",
                ),
                ("numpy", f"{desc['numpy']} (Python {desc['python']})"),
                ("BLAS library", f"{blas.get('library')}{version}{layer}"),
                (
                    "BLAS kernel",
                    f"{blas.get('kernel')} (the core type the library chose for this CPU)",
                ),
                ("BLAS threads", f"{blas.get('threads')} (used by matmul)"),
                (
                    "numpy elementwise threads",
                    "1 (ufuncs and reductions run on the calling thread)",
                ),
                (
                    "BLAS environment variables",
                    ", ".join(f"{k}={v}" for k, v in env.items()) if env else "none set",
                ),
            ],
        ),
    )


def who_measured() -> str:
    """'this machine' in a terminal; on the site, 'the machine that built this page'."""
    from common.present.display import html_mode

    return "the machine that built this page" if html_mode() else "this machine"


def _machine_words(desc: Mapping[str, Any], llc_bytes: float | None) -> str:
    """'AMD EPYC, 2 cores, LLC 32.00 MiB, on 2026-12-01 20:28 UTC': whose numbers, and when."""
    llc = f"LLC {fmt_bytes(llc_bytes, binary=True)}" if llc_bytes else "LLC not reported"
    when = time.strftime("%Y-%m-%d %H:%M %Z")
    return f"{desc.get('cpu')}, {desc.get('cores')} cores, {llc}, on {when}"


def built_here(desc: Mapping[str, Any], llc_bytes: float | None, script: str) -> Text:
    """Whose numbers these are: the machine that ran this (on the site: that built the page),
    and how to measure your own."""
    return Text(
        f"\nMeasured on {who_measured()}: {_machine_words(desc, llc_bytes)}. Every number "
        "below is that machine's, not a rule about computers; to measure your own, run "
        f"python3 lectures/{script} on it."
    )


def measured_on(desc: Mapping[str, Any], llc_bytes: float | None) -> Text:
    """The short form, under each measured table: '(measured on ...: CPU, cores, LLC, when)'."""
    return Text(f"(measured on {who_measured()}: {_machine_words(desc, llc_bytes)})")


def roofs_table(calib: Mapping[str, Any], llc_bytes: float) -> Group:
    """The bandwidth roof beta and the compute roof P (all threads and one), as measured."""
    ws = calib["bandwidth_working_set_bytes"]
    return Group(
        Heading("The two roofs of this machine (numpy, fp32)"),
        Table(
            ["roof", "value", "threads", "measured with"],
            [
                [
                    "bandwidth beta",
                    fmt_bw(calib["bandwidth_bytes_per_s"]),
                    calib["bandwidth_threads"],
                    f"z = x + y over {fmt_bytes(ws, binary=True)} "
                    f"({ws / llc_bytes:.1f}x LLC), best of {calib['bandwidth_samples']}",
                ],
                [
                    "compute P",
                    fmt_rate(calib["matmul_flops_per_s"]),
                    calib["matmul_threads"],
                    f"C = A @ B, n = {calib['matmul_n']}, best of {calib['matmul_samples']}",
                ],
                [
                    "compute, 1 thread",
                    fmt_rate(calib["matmul_one_thread_flops_per_s"]),
                    1,
                    "the same matmul, BLAS limited to 1 thread",
                ],
            ],
        ),
    )


def ridge_lines(calib: Mapping[str, Any]) -> Group:
    """The ridge point I* = P / beta with its two inputs, and the same-threads ridge."""
    peak, beta = calib["matmul_flops_per_s"], calib["bandwidth_bytes_per_s"]
    return Group(
        Text(
            f"\nridge point I* = P / beta = {fmt_rate(peak)} / {fmt_bw(beta)} "
            f"= {calib['ridge_point']:.2f} FLOP/byte"
        ),
        Text(
            "same-threads ridge (1-thread matmul / 1-thread bandwidth) = "
            f"{calib['ridge_point_one_thread']:.2f} FLOP/byte"
        ),
    )


def roof_observations(
    calib: Mapping[str, Any],
    previous: Mapping[str, Any] | None,
    blas_threads: object,
    cache_notes: Sequence[str | None] = (),
) -> Observations:
    """What the roofs say: best against median, mixed thread counts, a busy run, the last run,
    and one sentence per working set the budget could not take clear of the cache."""
    beta, median = calib["bandwidth_bytes_per_s"], calib["bandwidth_median_bytes_per_s"]
    peak, ridge = calib["matmul_flops_per_s"], calib["ridge_point"]
    ridge_one = calib["ridge_point_one_thread"]
    speedup = peak / calib["matmul_one_thread_flops_per_s"]
    items = [
        f"The fastest streaming add moved {fmt_bw(beta)}; the median call moved "
        f"{fmt_bw(median)}, {(1 - median / beta) * 100:.0f}% less. Memory is shared with "
        "everything else on the machine, so single calls vary; the best call is the roof, the "
        "median is what a busy moment gives.",
        f"The roofs mix thread counts. The matmul ran on {calib['matmul_threads']} BLAS "
        f"threads, x{speedup:.2f} as fast as on one, but numpy streams memory on one thread. So "
        f"the ridge point {ridge:.2f} FLOP/byte divides an all-thread compute roof by a "
        f"one-thread bandwidth roof: x{ridge / ridge_one:.2f} the same-threads ridge "
        f"({ridge_one:.2f} FLOP/byte, one thread each). For numpy code the mixed ridge is the "
        "honest one, because it is what numpy can reach. A program that streamed memory on "
        "all cores would see a higher bandwidth and a lower ridge.",
    ]
    if isinstance(blas_threads, int) and blas_threads > 1 and speedup < 0.6 * blas_threads:
        items.append(
            f"Warning: {blas_threads} threads gave only x{speedup:.2f} over one. Another "
            "program was probably using the cores, so the compute roof is too low in this run; "
            "run the lecture again on a quiet machine."
        )
    reasons = calib.get("busy_reasons") or []
    if reasons:
        items.append(
            "This run was on a busy machine: " + "; ".join(reasons) + ". The roofs were timed "
            "between the operations, so neither is below what its own kernel (the add, the "
            "square GEMM) reached in this run; but both are lower than a quiet machine gives, "
            "and an operation that caught a quieter moment can still land above them."
        )
    else:
        items.append(
            "The roofs were timed again between the operations below; each is the best call of "
            "the whole run, and the machine looked quiet throughout."
        )
    items += [f"{note}." for note in cache_notes if note]
    if previous is not None:
        old_beta, old_peak = previous["bandwidth_bytes_per_s"], previous["matmul_flops_per_s"]
        items.append(
            f"The previous run measured {fmt_bw(old_beta)} and {fmt_rate(old_peak)}: today's "
            f"roofs differ by {(beta / old_beta - 1) * 100:+.1f}% and "
            f"{(peak / old_peak - 1) * 100:+.1f}%. That is the run-to-run noise of a measured "
            "roof; keep it in mind when a point lands a few percent above its roof."
        )
    return Observations(items)


Timed = Sequence[Any]  # (name, shape, counts, t, working set, threads, threads text, twin)
SWEPT = ("LayerNorm", "attention naive", f"GEMM M={GEMM_SKINNY_M}")  # sets sized past the LLC


def roofline_rows(timed: Sequence[Timed], peak: float, beta: float) -> list[dict[str, Any]]:
    """One roofline row per timed operation, against the final roofs P and beta."""
    rows = []
    for name, shape, counts, t, working_set, threads, threads_text, twin in timed:
        row = roofline_row(name, *counts, t, peak, beta, working_set, shape=shape)
        row.update(threads=threads, threads_text=threads_text or str(threads))
        rows.append({**row, "same_as_calibration": twin})
    return rows


def cache_notes(
    calib: Mapping[str, Any], rows: Sequence[Row], llc_bytes: int | None
) -> list[str | None]:
    """A sentence for the stream and each swept operation the budget kept under 2x the LLC."""
    stream = cache_note("The bandwidth roof", calib["bandwidth_working_set_bytes"], llc_bytes)
    swept = [cache_note(r["name"], r["working_set_bytes"], llc_bytes) for r in rows]
    return [stream] + [n for r, n in zip(rows, swept, strict=True) if r["name"] in SWEPT]


def ledger_table(rows: Sequence[Row], ridge: float) -> Group:
    """Each operation's F, D, intensity I = F/D, working set and threads."""
    return Group(
        Heading("The ledger: what each operation must do", page=""),
        Table(
            ["operation", "shape", "F", "D", "I (FLOP/B)", "working set", "threads"],
            [
                [
                    r["name"],
                    r["shape"],
                    fmt_flops(r["flops"]),
                    fmt_bytes(r["bytes"]),
                    f"{r['intensity']:.3g}",
                    fmt_bytes(r["working_set_bytes"], binary=True),
                    r["threads_text"],
                ]
                for r in rows
            ],
            note=f"(I* = {ridge:.2f} FLOP/byte: below it an operation is memory-bound)",
        ),
    )


def percent_of_bound(row: Row) -> str:
    """'87%' of the roofline's bound, or a flag instead of a percentage above the roof."""
    return FLAG_TEXT if row["flag"] else fmt_pct(row["fraction_of_bound"])


def timing_table(rows: Sequence[Row]) -> Group:
    """F/P and D/beta, the bound t_pred = max of the two, the measured time and the share."""
    return Group(
        Heading("The roofline's prediction next to the measurement", page=""),
        Table(
            ["operation", "F/P", "D/beta", "bound", "t_pred", "t_meas", "% of bound", "achieved"],
            [
                [
                    r["name"],
                    fmt_time(r["t_compute_s"]),
                    fmt_time(r["t_memory_s"]),
                    r["bound"],
                    fmt_time(r["t_pred_s"]),
                    fmt_time(r["t_meas_s"]),
                    percent_of_bound(r),
                    fmt_rate(r["achieved_flops_per_s"]),
                ]
                for r in rows
            ],
        ),
    )


def above_roof_notes(rows: Sequence[Row], llc_bytes: float, bandwidth_threads: int) -> Group:
    """One note per operation flagged above its roof, with the likely reasons."""
    notes = []
    for r in rows:
        if r["flag"]:
            reasons = "; ".join(above_roof_reasons(dict(r), llc_bytes, bandwidth_threads))
            notes.append(
                f"note: {r['name']} ran at {r['fraction_of_bound'] * 100:.0f}% of its bound, "
                f"which the roofline forbids. Likely reasons: {reasons}."
            )
    return Group(*(Text(("\n" if i == 0 else "") + n) for i, n in enumerate(notes)))


def operation_observations(
    rows: Sequence[Row],
    ridge: float,
    phases: Mapping[str, tuple[float, float]],
    zero_fill_s: float,
    fused_layernorm_bytes: float,
) -> Observations:
    """What the table shows, operation by operation; phases: name -> (t_meas, t_pred)."""
    by_name = {r["name"]: r for r in rows}
    add, two, one = by_name["add"], by_name["add+relu 2 passes"], by_name["add+relu 1 expr"]
    ln, att = by_name["LayerNorm"], by_name["attention naive"]
    skinny, wide = by_name[f"GEMM M={GEMM_SKINNY_M}"], by_name[f"GEMM M={GEMM_WIDE_M}"]
    square = by_name["GEMM square"]
    streaming = [r for r in rows if r["name"].startswith(("add", "LayerNorm"))]
    max_i = max(r["intensity"] for r in streaming)
    (mm_meas, mm_pred), (sm_meas, sm_pred) = phases["matmuls"], phases["softmax"]
    overlap_limit = max(mm_pred, sm_pred) / (mm_pred + sm_pred)
    return Observations(
        [
            f"The add reached {fmt_pct(add['fraction_of_bound'])} of its bound. It repeats the "
            "calibration's own access pattern, so it should sit near 100%; far from it, the "
            "machine changed speed between the two measurements.",
            f"The elementwise rows and LayerNorm have I <= {max_i:.2f} FLOP/byte, "
            f"x{ridge / max_i:.0f} or more below I* = {ridge:.2f}: memory-bound, so a faster "
            "compute roof would not change their times at all.",
            f"add+relu in two passes took {fmt_time(two['t_meas_s'])}; written as one "
            f"expression it took {fmt_time(one['t_meas_s'])}, "
            f"x{one['t_meas_s'] / two['t_meas_s']:.2f} as long. The one line is not fused: its "
            f"temporary costs a zero-fill pass ({fmt_time(zero_fill_s)} at the bandwidth roof) "
            f"plus page faults. Charged six passes, it reaches {fmt_pct(one['fraction_of_bound'])} "
            "of its bound; the page faults are the part no byte count captures.",
            f"LayerNorm reached {fmt_pct(ln['fraction_of_bound'])}. Its ten passes move "
            f"{fmt_bytes(ln['bytes'])} for six operations per element; a fused kernel that "
            f"reads x once and writes y once would move {fmt_bytes(fused_layernorm_bytes)}.",
            f"Naive attention reached only {fmt_pct(att['fraction_of_bound'])} of its bound "
            f"({att['bound']}-bound, I = {att['intensity']:.1f} FLOP/byte). Timed alone, its two "
            f"matmuls took {fmt_time(mm_meas)} (their bound: {fmt_time(mm_pred)}) and its "
            f"softmax {fmt_time(sm_meas)} (bound: {fmt_time(sm_pred)}). The roofline assumes "
            "the phases overlap, so it charges only the larger one; numpy runs them one after "
            "the other, so the times add, and even perfect phases would reach only "
            f"{fmt_pct(overlap_limit)}. On their own, the matmuls reached "
            f"{fmt_pct(mm_pred / mm_meas)} of their bound and the softmax "
            f"{fmt_pct(sm_pred / sm_meas)}: the softmax runs on one thread, and its exp, "
            "counted as one FLOP, costs many instructions.",
            f"GEMM M={GEMM_SKINNY_M} reads its whole weight for {GEMM_SKINNY_M} rows only "
            "(like decoding one token for a few sequences): "
            f"I = {skinny['intensity']:.2f} FLOP/byte, {skinny['bound']}-bound, "
            f"{fmt_pct(skinny['fraction_of_bound'])} of its bound. GEMM M={GEMM_WIDE_M} reuses the "
            f"same weight {GEMM_WIDE_M} times: I = {wide['intensity']:.0f}, "
            f"{wide['bound']}-bound, {fmt_pct(wide['fraction_of_bound'])}. The square GEMM repeats "
            "the calibration's own matmul, so it should sit near 100%: "
            f"{fmt_pct(square['fraction_of_bound'])}.",
        ]
    )


def same_flops_table(gemm: Row, add: Row) -> Group:
    """Two operations of about the same F: their bytes D, intensity, time and rate."""

    def row(op: Row, digits: str) -> list[str]:
        return [
            op["name"],
            fmt_flops(op["flops"]),
            fmt_bytes(op["bytes"]),
            f"{op['flops'] / op['bytes']:{digits}}",
            fmt_time(op["t_meas_s"]),
            fmt_rate(op["flops"] / op["t_meas_s"]),
        ]

    flop_ratio = add["flops"] / gemm["flops"]
    time_ratio = add["t_meas_s"] / gemm["t_meas_s"]
    return Group(
        Heading("Same FLOPs, different times", page=""),
        Table(
            ["operation", "F", "D", "I (FLOP/B)", "t_meas", "achieved"],
            [row(gemm, ".1f"), row(add, ".3f")],
            note=f"FLOP ratio add / GEMM = {flop_ratio:.3f}; time ratio = x{time_ratio:.0f}",
        ),
    )


def same_flops_observations(
    gemm: Row, add: Row, peak: float, add_arrays_bytes: float
) -> Observations:
    """Same work, different times: the bytes set the time, not the FLOP count."""
    rate = gemm["flops"] / gemm["t_meas_s"]
    return Observations(
        [
            f"The two operations do the same work within "
            f"{abs(add['flops'] / gemm['flops'] - 1) * 100:.1f}%, yet the add takes "
            f"x{add['t_meas_s'] / gemm['t_meas_s']:.0f} as long. It moves "
            f"{fmt_bytes(add['bytes'])} for its FLOPs, the matmul {fmt_bytes(gemm['bytes'])}: "
            "intensity, not the FLOP count, sets the time.",
            "The pair is small because the add's vectors were sized to the memory budget "
            f"({fmt_bytes(add_arrays_bytes, binary=True)} in all). At this size the matmul ran "
            f"at {fmt_rate(rate)}, {fmt_pct(rate / peak)} of P; a larger pair would widen the gap, "
            "since the add's time grows with its bytes.",
        ]
    )
