"""Lecture 01's words (standard library only): the machine, its two measured roofs and the
operations' ledger, from the calibration and ``numpy_ops.roofline_row``'s rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from common.files.calibration import SavedCalibration
from common.formulas.numpy_ops import GEMM_SKINNY_M, GEMM_WIDE_M
from common.present.claims import listing, multiple, speed, than
from common.present.console import fmt_bw, fmt_bytes, fmt_flops, fmt_pct, fmt_rate, fmt_time
from common.present.display import Facts, Group, Observations, Table, Text
from common.present.explain import above_roof_reasons
from common.shell.paths import display_path
from lectures.words import section

Row = Mapping[str, Any]  # one operation, as numpy_ops.roofline_row returns it
FLAG_TEXT = "above roof (see note)"  # printed instead of a percentage above the roof


@dataclass(frozen=True)
class Roofs:  # the calibration record, the previous run's, BLAS's threads, working-set notes
    calib: Mapping[str, Any]
    previous: Mapping[str, Any] | None
    blas_threads: object
    cache_notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Operations:  # the rows, I*, attention's phases (name: (t_meas, t_pred) s), a fused LN
    rows: Sequence[Row]
    ridge: float
    phases: Mapping[str, tuple[float, float]]
    zero_fill_s: float
    fused_layernorm_bytes: float


@dataclass(frozen=True)
class SameFlops:  # a GEMM and the add of about the same F (name, flops, bytes, t_meas_s); P
    gemm: Row
    add: Row
    peak: float
    add_arrays_bytes: float


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
    free: float | None,
) -> Group:
    """CPU, caches (name, bytes), memory, numpy and BLAS: what every roof below depends on."""
    blas, env = desc["blas"], desc["blas_env"]
    sizes = ", ".join(f"{name} {fmt_bytes(size, binary=True, digits=0)}" for name, size in caches)
    cache_row = ("caches (per core view)", sizes)
    if not caches:
        cache_row = ("caches", f"not reported; assuming an LLC of {fmt_bytes(llc_bytes, True)}")
    version = f" {blas['version']}" if blas.get("version") else ""
    layer = f", {blas['threading_layer']} threading" if blas.get("threading_layer") else ""
    facts = [
        ("CPU", f"{desc['cpu']}, {desc['cores']} usable cores ({desc['system']})"),
        cache_row,
        ("available memory", fmt_bytes(free, True) if free else "unknown"),
        ("numpy", f"{desc['numpy']} (Python {desc['python']})"),
        ("BLAS library", f"{blas.get('library')}{version}{layer}"),
        ("BLAS kernel", f"{blas.get('kernel')} (the core type the library chose for this CPU)"),
        ("BLAS threads", f"{blas.get('threads')} (used by matmul)"),
        ("numpy elementwise threads", "1 (ufuncs and reductions run on the calling thread)"),
        ("BLAS environment variables", ", ".join(f"{k}={v}" for k, v in env.items()) or "none set"),
    ]
    return section("This machine", Facts(facts), page="")


def roofs(r: Roofs, llc_bytes: float, stamp: Text) -> Group:
    """The roofs as measured, the ridge point, and what they say."""
    c = r.calib
    beta, peak = c["bandwidth_bytes_per_s"], c["matmul_flops_per_s"]
    median = c["bandwidth_median_bytes_per_s"]
    ridge, one, ws = c["ridge_point"], c["ridge_point_one_thread"], c["bandwidth_working_set_bytes"]
    speedup = peak / c["matmul_one_thread_flops_per_s"]
    gain = speed(speedup, 1.0)  # 'x10.82 faster'
    stream = f"z = x + y over {fmt_bytes(ws, binary=True)} ({ws / llc_bytes:.1f}x LLC), best of "
    stream += str(c["bandwidth_samples"])
    matmul = f"C = A @ B, n = {c['matmul_n']}, best of {c['matmul_samples']}"
    single = fmt_rate(c["matmul_one_thread_flops_per_s"])
    table = [
        ["bandwidth beta", fmt_bw(beta), c["bandwidth_threads"], stream],
        ["compute P", fmt_rate(peak), c["matmul_threads"], matmul],
        ["compute, 1 thread", single, 1, "the same matmul, BLAS limited to 1 thread"]]  # fmt: skip
    less = f"{(1 - median / beta) * 100:.0f}"
    text = f"The fastest streaming add moved {fmt_bw(beta)}; the median call moved "
    text += f"{fmt_bw(median)}, {'about as much' if less == '0' else less + '% less'}. Memory is "
    text += "shared with everything else on the machine, so single calls vary; the best call is "
    items = [text + "the roof, the median is what a busy moment gives."]
    threads = c["matmul_threads"], c["bandwidth_threads"]
    if threads[0] != threads[1]:
        text = f"The roofs mix thread counts. The matmul ran on {threads[0]} BLAS threads, {gain} "
        text += f"than on one, but numpy streams memory on {threads[1]}. So the ridge point "
        text += f"{ridge:.2f} FLOP/byte divides an all-thread compute roof by a one-thread "
        text += f"bandwidth roof: {than(ridge / one)} the same-threads "
        text += f"ridge ({one:.2f} FLOP/byte, one thread each). For numpy code the mixed ridge "
        text += "is the honest one, because it is what numpy can reach. A program that streamed "
        items.append(text + "memory on all cores would see a higher bandwidth and a lower ridge.")
    else:
        text = f"Both roofs ran on {threads[0]} {'thread' if threads[0] == 1 else 'threads'}, so "
        items.append(text + f"the ridge point {ridge:.2f} FLOP/byte compares like with like.")
    blas = r.blas_threads
    if isinstance(blas, int) and blas > 1 and speedup < 0.6 * blas:
        text = f"Warning: on {blas} threads the matmul ran {gain} than on one, far from x{blas}. "
        text += "Another program was probably using the cores, so the compute roof is too low in "
        items.append(text + "this run; run the lecture again on a quiet machine.")
    if c.get("busy_reasons"):
        text = f"This run was on a busy machine: {'; '.join(c['busy_reasons'])}. The roofs were "
        text += "timed between the operations, so neither is below what its own kernel (the add, "
        text += "the square GEMM) reached in this run; but both are lower than a quiet machine "
        text += "gives, and an operation that caught a quieter moment can still land above them."
        items.append(text)
    else:
        text = "The roofs were timed again between the operations below; each is the best call of "
        items.append(text + "the whole run, and the machine looked quiet throughout.")
    items += [f"{note}." for note in r.cache_notes]
    if r.previous is not None:
        old_beta, old_peak = r.previous["bandwidth_bytes_per_s"], r.previous["matmul_flops_per_s"]
        text = f"The previous run measured {fmt_bw(old_beta)} and {fmt_rate(old_peak)}: today's "
        text += f"roofs differ by {(beta / old_beta - 1) * 100:+.1f}% and "
        text += f"{(peak / old_peak - 1) * 100:+.1f}%. That is the run-to-run noise of a measured "
        text += "roof; keep it in mind when a point lands a few percent above its roof."
        items.append(text)
    lines = f"\nridge point I* = P / beta = {fmt_rate(peak)} / {fmt_bw(beta)} = {ridge:.2f} "
    lines += "FLOP/byte"
    lines += f"\nsame-threads ridge (1-thread matmul / 1-thread bandwidth) = {one:.2f} FLOP/byte"
    table = Table(["roof", "value", "threads", "measured with"], table)
    return section("The two roofs of this machine (numpy, fp32)", table, stamp, lines, items=items)


def ledger_table(rows: Sequence[Row], ridge: float) -> Group:
    """Each operation's F, D, intensity I = F/D, working set and threads."""
    head = ["operation", "shape", "F", "D", "I (FLOP/B)", "working set", "threads"]
    note = f"(I* = {ridge:.2f} FLOP/byte: below it an operation is memory-bound)"
    cells = [
        [r["name"], r["shape"], fmt_flops(r["flops"]), fmt_bytes(r["bytes"]),
         f"{r['intensity']:.3g}", fmt_bytes(r["working_set_bytes"], True), r["threads_text"]]
        for r in rows]  # fmt: skip
    table = Table(head, cells, note=note)
    return section("The ledger: what each operation must do", table, page="")


def timing_table(rows: Sequence[Row], stamp: Text, llc: float, threads: int) -> Group:
    """F/P, D/beta, t_pred, t_meas and the share; a note per operation above its roof."""
    keys = ("t_compute_s", "t_memory_s", "bound", "t_pred_s", "t_meas_s")
    cells = []
    for r in rows:  # a share of the bound, or a flag above the roof; the achieved FLOP/s
        share = FLAG_TEXT if r["flag"] else fmt_pct(r["fraction_of_bound"])
        times = [r[k] if k == "bound" else fmt_time(r[k]) for k in keys]
        cells.append([r["name"], *times, share, fmt_rate(r["achieved_flops_per_s"])])
    notes = [
        f"note: {r['name']} ran at {r['fraction_of_bound'] * 100:.0f}% of its bound, which the "
        f"roofline forbids. Likely reasons: {'; '.join(above_roof_reasons(dict(r), llc, threads))}."
        for r in rows
        if r["flag"]]  # fmt: skip
    head = ["operation", "F/P", "D/beta", "bound", "t_pred", "t_meas", "% of bound", "achieved"]
    notes = [Text(("\n" if i == 0 else "") + n) for i, n in enumerate(notes)]  # a blank line above
    title = "The roofline's prediction next to the measurement"
    return section(title, Table(head, cells), stamp, *notes, page="")


def operation_observations(ops: Operations) -> Observations:
    """What the timing table shows, operation by operation."""
    by_name = {r["name"]: r for r in ops.rows}
    add, two, one = by_name["add"], by_name["add+relu 2 passes"], by_name["add+relu 1 expr"]
    ln, att = by_name["LayerNorm"], by_name["attention naive"]
    skinny, wide = by_name[f"GEMM M={GEMM_SKINNY_M}"], by_name[f"GEMM M={GEMM_WIDE_M}"]
    streaming = [r for r in ops.rows if r["name"].startswith(("add", "LayerNorm"))]
    max_i, ridge = max(r["intensity"] for r in streaming), ops.ridge
    if fast := [r["name"] for r in streaming if r["bound"] == "compute"]:
        reach = "reaches" if len(fast) == 1 else "reach"
        side = f"against I* = {ridge:.2f}: {listing(fast)} {reach} the compute roof here."
    else:
        word = multiple(max_i / ridge, 3, "g")
        side = "below" if word == "the same" else f"at most {word} of"
        side += f" I* = {ridge:.2f}: memory-bound, so a faster "
        side += "compute roof would not change their times at all."
    (mm_meas, mm_pred), (sm_meas, sm_pred) = ops.phases["matmuls"], ops.phases["softmax"]
    mm, sm = fmt_pct(mm_pred / mm_meas), fmt_pct(sm_pred / sm_meas)
    why = ""
    if sm_pred / sm_meas < mm_pred / mm_meas and sm != mm:
        why = ": the softmax runs on one thread, and its exp, counted as one FLOP, costs many "
        why += "instructions"
    pct = lambda r: fmt_pct(r["fraction_of_bound"])  # noqa: E731
    items = [
        f"The add reached {pct(add)} of its bound. It repeats the calibration's own access "
        "pattern, so it should sit near 100%; far from it, the machine changed speed "
        "between the two measurements.",
        f"The elementwise rows and LayerNorm have I <= {max_i:.2f} FLOP/byte, {side}",
        f"add+relu in two passes took {fmt_time(two['t_meas_s'])}; written as one expression it "
        f"took {fmt_time(one['t_meas_s'])}, x{one['t_meas_s'] / two['t_meas_s']:.2f} as long. The "
        f"one line is not fused: its temporary costs a zero-fill pass ({fmt_time(ops.zero_fill_s)} "
        f"at the bandwidth roof) plus page faults. Charged six passes, it reaches {pct(one)} of "
        "its bound; the page faults are the part no byte count captures.",
        f"LayerNorm reached {pct(ln)}. Its ten passes move {fmt_bytes(ln['bytes'])} for six "
        "operations per element; a fused kernel that reads x once and writes y once would "
        f"move {fmt_bytes(ops.fused_layernorm_bytes)}.",
        f"Naive attention reached {pct(att)} of its bound ({att['bound']}-bound, I = "
        f"{att['intensity']:.1f} FLOP/byte). Timed alone, its two matmuls took {fmt_time(mm_meas)} "
        f"(their bound: {fmt_time(mm_pred)}) and its softmax {fmt_time(sm_meas)} (bound: "
        f"{fmt_time(sm_pred)}). The roofline assumes the phases overlap, so it charges only the "
        "larger one; numpy runs them one after the other, so the times add, and even perfect "
        f"phases would reach only {fmt_pct(max(mm_pred, sm_pred) / (mm_pred + sm_pred))}. On their "
        f"own, the matmuls reached {mm} of their bound and the softmax {sm}{why}.",
        f"GEMM M={GEMM_SKINNY_M} reads its whole weight for {GEMM_SKINNY_M} rows only (like "
        f"decoding one token for a few sequences): I = {skinny['intensity']:.2f} FLOP/byte, "
        f"{skinny['bound']}-bound, {pct(skinny)} of its bound. GEMM M={GEMM_WIDE_M} reuses the "
        f"same weight {GEMM_WIDE_M} times: I = {wide['intensity']:.0f}, {wide['bound']}-bound, "
        f"{pct(wide)}. The square GEMM repeats the calibration's own matmul, so it should sit near "
        f"100%: {pct(by_name['GEMM square'])}."]  # fmt: skip
    return Observations(items)


def same_flops(s: SameFlops, stamp: Text) -> Group:
    """Two operations of about the same F: bytes, intensity, time and rate."""
    gemm, add = s.gemm, s.add
    cells = []
    for op, digits in ((gemm, ".1f"), (add, ".3f")):
        f, d, t = op["flops"], op["bytes"], op["t_meas_s"]
        i = f"{f / d:{digits}}"
        cells.append([op["name"], fmt_flops(f), fmt_bytes(d), i, fmt_time(t), fmt_rate(f / t)])
    flops, rate = add["flops"] / gemm["flops"], gemm["flops"] / gemm["t_meas_s"]
    times = f"time ratio = x{add['t_meas_s'] / gemm['t_meas_s']:.3g}"
    note = f"FLOP ratio add / GEMM = {flops:.3f}; {times}"
    items = [
        f"The two operations do the same work within {abs(flops - 1) * 100:.1f}%, yet "
        f"the add is {speed(gemm['t_meas_s'], add['t_meas_s'], 1)} than the matmul. It "
        f"moves {fmt_bytes(add['bytes'])} for its FLOPs, the matmul "
        f"{fmt_bytes(gemm['bytes'])}: intensity, not the FLOP count, sets the time.",
        "The pair is small because the add's vectors were sized to the memory budget "
        f"({fmt_bytes(s.add_arrays_bytes, binary=True)} in all). At this size the matmul "
        f"ran at {fmt_rate(rate)}, {fmt_pct(rate / s.peak)} of P; a larger pair would "
        "widen the gap, since the add's time grows with its bytes."]  # fmt: skip
    table = Table(["operation", "F", "D", "I (FLOP/B)", "t_meas", "achieved"], cells, note=note)
    return section("Same FLOPs, different times", table, stamp, items=items, page="")
