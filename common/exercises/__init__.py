"""The course's exercises and their worked answers, computed from the hardware table.

Standard library only. Each exercise is a question plus a ``solve`` function that
works the answer out with ``common.formulas`` (roofline, ledger, ...) and
``common.hw_specs``: no answer is typed in, so editing a figure in the hardware
table changes the answers with it. The docs site renders every exercise (the
``exercise`` directive) with its answer behind a reveal; ``tests/exercises/test_exercises.py``
pins the numbers.
"""

# ruff: noqa: E402 - the imports below come after boot's one-line errors are installed
from __future__ import annotations

from common.shell import boot

boot.start_module("common.exercises")  # ``-m``: one-line errors before the imports below

import dataclasses
import functools
import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from common import hw_specs
from common.files.calibration import saved_calibration
from common.files.results import get_section, load_results
from common.formulas import attention_io, ledger, numpy_ops, predict, roofline, serving, transformer
from common.formulas.thresholds import crossover
from common.hw_specs import Chip, shipped_chip
from common.measure import caches
from common.present import claims, console
from common.present.claims import change, direction, listing, more_or_fewer, n_of_m, ratio, rose
from common.present.console import fmt_batch, fmt_bw, fmt_bytes, fmt_pct, fmt_rate, fmt_time
from common.present.display import Table
from common.tables import assumptions, models
from common.tables import measurements as pub
from common.tables.units import GIB

FP32 = hw_specs.bytes_per_elem("fp32")  # the measured (numpy) exercises run in fp32


@dataclasses.dataclass(frozen=True)
class Answer:
    """A worked answer: formula (LaTeX), steps (text), optional table, and its key values."""

    steps: tuple[str, ...]
    values: Mapping[str, Any]
    formula: str = ""
    table: Table | None = None


def _answer(steps: Sequence[str], values: Mapping[str, Any], formula: str, headers=(), rows=()):
    """An Answer from its parts; the table only when there are rows."""
    return Answer(tuple(steps), values, formula, Table(headers, rows) if rows else None)


@dataclasses.dataclass(frozen=True)
class Exercise:
    """One exercise: a key, a title, where it comes from, the question and its solver."""

    key: str
    title: str
    origin: str
    question: str
    solve: Callable[[], Answer]


class Calibration(NamedTuple):
    """A machine's two measured roofs: bandwidth (bytes/s) and matmul FLOP/s."""

    bandwidth_bytes_per_s: float
    matmul_flops_per_s: float
    source: str

    @property
    def ridge(self) -> float:
        """Measured ridge point I* = P / beta, in FLOP/byte."""
        return roofline.ridge_point(self.matmul_flops_per_s, self.bandwidth_bytes_per_s)


#: The article's laptop measurement, used only when this machine has no results file.
EXAMPLE_CALIBRATION = Calibration(assumptions.EXAMPLE_BANDWIDTH.value,
                                  assumptions.EXAMPLE_MATMUL.value,
                                  "an example laptop (the article's probe)")  # fmt: skip
PROBE_SOURCE = "this machine (lecture 01)"  # how an answer names lecture 01's measured roofs


def measured_calibration(section: str, source: str) -> Calibration | None:
    """This machine's roofs from a results section (``probe`` or ``batch_sweep``), or None."""
    saved = saved_calibration(section=section)
    if saved.calibration is None:
        return None
    return Calibration(saved.bandwidth_bytes_per_s, saved.peak_flops_per_s, source)


def with_peak(chip: Chip, precision: str, peak: float) -> Chip:
    """A copy of `chip` whose dense peak at `precision` is `peak` FLOP/s (a what-if edit)."""
    old = chip.peak_flops_table[precision]
    new = dataclasses.replace(old, value=peak, note="edited for an exercise")
    return dataclasses.replace(chip, peak_flops_table={**chip.peak_flops_table, precision: new})


_f1 = "{:,.1f}".format  # a ridge or an intensity, one decimal


def article_operators() -> list[tuple[str, float, float]]:
    """The article's operator ledger in bf16: (name, FLOPs, bytes)."""
    return [
        ("elementwise add, n = 16,000,000", *ledger.elementwise_counts(16_000_000)),
        ("LayerNorm [4096, 3072]", *ledger.layernorm_counts(4096, 3072)),
        ("softmax [4096, 4096], fused", *ledger.softmax_counts(4096, 4096, fused=True)),
        ("softmax [4096, 4096], naive", *ledger.softmax_counts(4096, 4096, fused=False)),
        ("GEMM 512 x 4096 x 4096", *roofline.gemm_counts(512, 4096, 4096)),
        ("GEMM 4096 x 4096 x 4096", *roofline.gemm_counts(4096, 4096, 4096)),
        ("attention, naive (N = 4096, d = 128)", *ledger.attention_counts(4096, 128)),
        ("attention, minimum traffic", *ledger.attention_counts(4096, 128, materialized=False)),
    ]


def _crossing(c: tuple[int | None, int | None]) -> str:
    """Where a sweep first reaches the ridge: 'at M in (a, b]', 'at M = 1' or 'at no M up to a'."""
    before, first = c
    if first is None:
        return f"at no M up to {before}"
    return f"at M = {first}" if before is None else f"at M in ({before}, {first}]"


def gemm_crossover(ridge: float) -> tuple[int | None, int | None]:
    """(last M below I*, first M with I >= I*) for [M, 4096] x [4096, 4096] in bf16, or None."""
    ms = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096)
    intensities = [roofline.intensity(*roofline.gemm_counts(m, 4096, 4096)) for m in ms]
    cross = crossover(ms, intensities, ridge)
    return (ms[-1], None) if cross is None else (cross.before, cross.first)


NOISY_BELOW = 0.85  # a roof's own operation below this share of its bound ran on a busy machine


def percent_of_bound(
    calib: Calibration, operations: Sequence[Mapping[str, Any]] | None, llc_bytes: int | None
) -> Answer:
    """How to read lecture 01's '% of bound' column, with the measured rows when there are any."""
    ridge, rows, measured = calib.ridge, [], {}
    for op in operations or ():
        name, fraction = str(op["name"]), float(op["fraction_of_bound"])
        measured[name] = fraction
        shown = "above roof" if op.get("flag") else fmt_pct(fraction)
        rows.append((name, f"{float(op['intensity']):.3g}", str(op["bound"]), shown))
    values: dict[str, Any] = {"ridge": ridge, "percent": measured}
    add, gemm, share = (measured.get(k) for k in ("add", "GEMM square", "attention naive"))
    busy = (
        " One of them fell well short here: the machine was busier while it ran than during the "
        "calibration. Rerun on a quiet machine.")  # fmt: skip
    own = "each is the very operation that measured its own roof."
    steps = [
        "The percentage is the roofline's lower bound divided by the measured time, "
        "t_pred / t_meas: 100% means the operation ran as fast as the two roofs allow, "
        "50% means it took twice the bound.",
        f"The roofs here come from {calib.source}: {fmt_bw(calib.bandwidth_bytes_per_s)} "
        f"and {fmt_rate(calib.matmul_flops_per_s)}, so I* = {_f1(ridge)} FLOP/byte.",
        f"Expect the add and the square GEMM near 100%: {own}"
        if add is None or gemm is None
        else f"The add reached {fmt_pct(add)} and the square GEMM {fmt_pct(gemm)} of their "
        f"bounds. Expect both near 100%: {own}{busy if min(add, gemm) < NOISY_BELOW else ''}",
        "Expect naive attention well below 50%: numpy runs its matmul and softmax "
        "phases one after the other, the softmax on one thread, and exp costs far "
        "more than the one FLOP it is counted as."
        if share is None
        else f"Naive attention reached {fmt_pct(share)}, "
        + ("well below half its bound" if share < 0.5 else "more than half its bound")
        + ", as expected: numpy runs its matmul and softmax phases one after the other "
        "(the roofline assumes they overlap), the softmax runs on one thread, and exp "
        "costs far more than the one FLOP it is counted as."]  # fmt: skip
    if llc_bytes:
        n = values["attention_n"] = numpy_ops.attention_seq_len(llc_bytes)
        steps.append(
            f"A high attention score means its N x N score matrix stayed in cache. With a "
            f"{fmt_bytes(llc_bytes, True)} last-level cache the lecture picks N = {n:,}, so "
            f"S takes {fmt_bytes(n * n * FP32, True)}, at least twice the cache. If your "
            "score is still high, double N (S grows four times) and rerun.")  # fmt: skip
    formula = r"\%\ \text{of bound} = 100 \times \frac{\max(F / P,\; D / \beta)}{t_{\text{meas}}}"
    return _answer(steps, values, formula, ("operation", "I (FLOP/B)", "bound", "% of bound"), rows)


def percent_of_bound_answer() -> Answer:
    ops = (get_section(load_results(), "probe")[0] or {}).get("operations")
    valid = isinstance(ops, list) and all(isinstance(op, dict) for op in ops)
    calib = measured_calibration("probe", PROBE_SOURCE) or EXAMPLE_CALIBRATION
    return percent_of_bound(calib, ops if valid else None, caches.last_level_cache_bytes())


SWEEP_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def sweep_crossing(
    calib: Calibration,
    d: int = 4096,  # the article's weight W[4096, 4096]
    batches: Sequence[int] = SWEEP_BATCHES,
    throughputs: Sequence[float] | None = None,
) -> Answer:
    """Where x[B, d] @ W[d, d] (fp32) crosses the ridge, and where throughput levels off."""
    ridge, fp32 = calib.ridge, (FP32, FP32, FP32)
    exact = roofline.critical_batch(d, d, ridge, *fp32)
    intensities = [roofline.intensity(*roofline.matmul_counts(b, d, d, *fp32)) for b in batches]
    cross = crossover(batches, intensities, ridge)
    ceiling = calib.matmul_flops_per_s / (2.0 * d * d)  # tokens/s once compute-bound
    crossing = None if cross is None else (cross.before, cross.first)
    values: dict[str, Any] = {"ridge": ridge, "critical_batch": exact, "crossing": crossing}
    values["throughput_ceiling"] = ceiling
    steps = [
        f"Each call reads W once ({fmt_bytes(d * d * FP32, True)} for d = {d:,}) plus x and "
        "y, so the intensity grows about as B / 2 for small batches and levels off at "
        f"d / 4 = {_f1(d / FP32)} FLOP/byte.",
        f"With I* = {_f1(ridge)} FLOP/byte from {calib.source}, the smallest batch that "
        + (
            f"reaches the ridge is B = {exact:,}."
            if exact is not None
            else "reaches the ridge does not exist: the ridge lies above the ceiling."
        ),
        f"In the sweep's list the crossing lies in B in ({cross.before}, {cross.first}]: "
        "the bound column changes from memory to compute there."
        if cross is not None and cross.before is not None
        else f"Already the first batch, B = {cross.first}, is compute-bound."
        if cross is not None
        else f"The sweep stops at B = {max(batches)}, before the crossing: extend the list "
        "to see the bound column change.",
        "Below the crossing a bigger batch rides along almost for free (the weights are "
        "read once either way), so throughput grows with B. Past it the time grows with B "
        f"and throughput levels off near P / (2 d^2) = {ceiling:,.0f} tokens/s."]  # fmt: skip
    if throughputs:
        best = max(throughputs)
        b90 = next(b for b, t in zip(batches, throughputs, strict=True) if t >= 0.9 * best)
        values["measured_b90"] = b90
        low = " (above it: the calibration's compute roof was measured low for this matmul)"
        steps.append(
            f"The measured sweep peaked at {best:,.0f} tokens/s, {fmt_pct(best / ceiling)} of "
            f"that ceiling{low if best > 1.1 * ceiling else ''}, and first came within 10% of "
            f"its peak at B = {b90}: that is where, on this machine, a bigger batch stops paying."
        )
    return _answer(steps, values, r"I(B) = \frac{2 B d^2}{4\,(d^2 + 2 B d)} \;\geq\; I^*")


def sweep_crossing_answer() -> Answer:
    sweep = get_section(load_results(), "batch_sweep")[0]
    calib = measured_calibration("batch_sweep", "this machine (lecture 03's sweep)")
    try:
        rows = sweep["rows"]  # type: ignore[index]
        d = int(sweep["weight_shape"][0])  # type: ignore[index]  # pragma: no mutate (square)
        measured = d, [int(r["B"]) for r in rows], [float(r["throughput_per_s"]) for r in rows]
    except (KeyError, TypeError, ValueError, IndexError):
        calib = None
    if calib is None:  # no usable sweep: the article's sweep on lecture 01's roofs
        calib, measured = measured_calibration("probe", PROBE_SOURCE), ()
    return sweep_crossing(calib or EXAMPLE_CALIBRATION, *measured)


def a100_peak_edit_answer(new_peak: float = 1979e12) -> Answer:
    """The GEMM crossover and the operators' bounds before and after editing A100's bf16 peak."""
    current, h100 = hw_specs.A100, hw_specs.H100
    start, already = shipped_chip(current), current.peak_flops("bf16") == new_peak
    chip = current if already else with_peak(current, "bf16", new_peak)
    p0, p1 = (fmt_rate(c.peak_flops("bf16"), digits=2) for c in (start, chip))
    r0, r1 = start.ridge_point("bf16"), chip.ridge_point("bf16")
    c0, c1 = gemm_crossover(r0), gemm_crossover(r1)
    ops = [(name, roofline.intensity(f, d)) for name, f, d in article_operators()]
    rows = [(n, f"{i:,.2f}", roofline.bound_of(i, r0), roofline.bound_of(i, r1)) for n, i in ops]
    flipped = [(n, f"{n} ({b0} to {b1})") for n, _, b0, b1 in rows if b0 != b1]
    same_bw = start.mem_bw == chip.mem_bw
    bw = ("the bandwidth is unchanged, so the ridge moves with the peak"
          if same_bw
          else f"the bandwidth moved too ({ratio(chip.mem_bw / start.mem_bw)}), so the ridge "
          "moves with peak / bandwidth")  # fmt: skip
    moral = {1: " A higher ridge raises", -1: " A lower ridge lowers"}.get(direction(r0, r1, _f1))
    moral = f"{moral} the bar every kernel must clear to use the compute unit." if moral else ""
    moves = (f"{_crossing(c0)} both before and after the edit"
             if c0 == c1
             else f"{_crossing(c0)} before the edit and {_crossing(c1)} after it")  # fmt: skip
    steps = (
        f"Your table already holds this edit ({p1}): the answer starts from the "
        f"repository's table ({p0}) and ends at yours."
        if already
        else f"Your table has {fmt_rate(current.peak_flops('bf16'), digits=2)}: the answer "
        f"starts from the repository's table ({p0}) and applies the edit ({p1}).",
        f"The ridge {rose(r0, r1, _f1, ' FLOP/byte')}: {bw} ({ratio(r1 / r0)}).",
        f"The GEMM sweep [M, 4096] x [4096, 4096] first reaches the ridge {moves}.",
        "Operators whose intensity lies between the two ridges change their bound: "
        f"{listing([f for _, f in flipped], 'none of the article list')}.{moral}",
        f"This edit changes the peak only; a real {h100.name} also has {fmt_bw(h100.mem_bw)} "
        f"of bandwidth against the A100's {fmt_bw(start.mem_bw)}."
        if same_bw
        else "Your table moved the A100's bandwidth as well: it "
        f"{rose(start.mem_bw, chip.mem_bw, fmt_bw)}; a real {h100.name} has {fmt_bw(h100.mem_bw)}.",
    )
    values = {"ridge_before": r0, "ridge_after": r1, "before": c0, "after": c1}
    values |= {"flipped": [n for n, _ in flipped], "already": already}
    formula = r"I^* = \frac{P_{\text{peak}}}{\beta}, \qquad I_{\text{GEMM}}"
    formula += r"(M) = \frac{2MNK}{2(MK + KN + MN)}"
    headers = ("operator", "I (FLOP/B)", "bound before", "bound after")
    return _answer(steps, values, formula, headers, rows)


BOOK_DIM = 4096  # the book exercises' layer here: lecture 02 works the 8192 case itself


def _ridge_of(chip: Chip, precision: str) -> str:
    """'<chip> at <precision>: I* = peak / bandwidth = ridge FLOP/byte', its figures quoted."""
    return (f"{chip.name} at {precision}: I* = {fmt_rate(chip.peak_flops(precision))} / "
            f"{fmt_bw(chip.mem_bw)} = {_f1(chip.ridge_point(precision))} FLOP/byte")  # fmt: skip


def critical_batch_answer(
    chip: Chip, precision: str, x_bytes: float, w_bytes: float, out_bytes: float, dim: int = 8192
) -> Answer:
    """Exact critical batch for X[B,K] W[K,N], K = N = dim, against the book's B ~ I* w / 2."""
    ridge, io = chip.ridge_point(precision), (x_bytes, w_bytes, out_bytes)
    exact = roofline.critical_batch(dim, dim, ridge, *io)
    approx = ridge * w_bytes / 2  # B << K, N: I ~ 2BKN / (K N w) = 2B / w
    at_exact = roofline.intensity(*roofline.matmul_counts(exact or 1, dim, dim, *io))
    ignored = "push the answer up" if direction(approx, exact or 0, "{:,.0f}".format) > 0 else ""
    steps = (
        f"{_ridge_of(chip, precision)}.",
        f"Bytes per element: x {x_bytes:g}, W {w_bytes:g}, output {out_bytes:g}. For a "
        "batch much smaller than K and N the weights dominate the traffic, so I is about "
        f"2B / b_w = {2 / w_bytes:g}B and the book's estimate is B = I* b_w / 2 = {approx:.0f}.",
        f"Solving the full inequality with K = N = {dim:,} gives B = {exact:,} "
        f"(I = {at_exact:.1f} FLOP/byte there): the activation and output bytes the estimate "
        f"ignores {ignored or 'barely count here'}."
        if exact is not None
        else f"With K = N = {dim:,} no batch reaches the ridge: the intensity never "
        "climbs that high.")  # fmt: skip
    values = {"ridge": ridge, "critical_batch": exact, "approximation": approx}
    formula = r"\frac{2BKN}{B K\,b_x + K N\,b_w + B N\,b_{out}} \;\geq\; "
    return _answer(steps, values, formula + r"\frac{P_{\text{peak}}}{\beta}")


def per_example_matrices_answer() -> Answer:
    """One weight matrix per example: intensity stays near 1 FLOP/byte for every batch."""
    chip, d = hw_specs.TPU_V5E, BOOK_DIM
    values = {
        b: roofline.intensity(*roofline.batched_matvec_counts(b, d, d)) for b in (1, 8, 64, 512)
    }
    ridge = chip.ridge_point("bf16")
    steps = (
        "Every example now brings its own K x N matrix, so the bytes grow with B exactly "
        "as fast as the FLOPs: the batch no longer shares the weight read.",
        "Each weight element is read once (2 bytes) and used for one multiply-add "
        "(2 FLOP), so the intensity is about 1 FLOP/byte whatever B is (table).",
        (
            f"That is far below {chip.name}'s bf16 ridge of {_f1(ridge)} FLOP/byte: the "
            "operation is memory-bound at any batch."
            if ridge > max(values.values())
            else f"{chip.name}'s bf16 ridge of {_f1(ridge)} FLOP/byte is that low in your "
            "table, so even this reaches it."
        )
        + " Decode attention over a per-sequence KV cache has the same shape.")  # fmt: skip
    formula = r"I = \frac{2BKN}{b\,(BK + BKN + BN)} \approx \frac{2}{b} = 1 \text{ (bf16)}"
    rows = [(f"{b:,}", f"{i:.4f}") for b, i in values.items()]
    return _answer(steps, values, formula, ("batch B", "I (FLOP/B)"), rows)


def h200_vs_h100_answer(n_params: float = 8e9, weight_bytes: float = 2, dim: int = 2048) -> Answer:
    """H200 vs H100: same compute, more bandwidth; ridge, critical batch (K = N = dim), decode."""
    c100, c200, rows, values = hw_specs.H100, hw_specs.H200, [], {}
    for chip in (c100, c200):
        ridge = chip.ridge_point("bf16")
        crit = roofline.critical_batch(dim, dim, ridge)
        t_decode = n_params * weight_bytes / chip.mem_bw
        values[chip.key] = {"ridge": ridge, "critical_batch": crit, "decode_s": t_decode}
        cells = (fmt_bw(chip.mem_bw), _f1(ridge), fmt_batch(crit, "never"), fmt_time(t_decode))
        rows.append((chip.name, *cells))
    h100, h200 = values["h100"], values["h200"]
    values["decode_speedup"] = h100["decode_s"] / h200["decode_s"]
    peak_ratio = c200.peak_flops("bf16") / c100.peak_flops("bf16")
    b0, b1 = h100["critical_batch"], h200["critical_batch"]
    batch = (f"went from {fmt_batch(b0, 'never')} to {fmt_batch(b1, 'never')}"
             if (b0 is None) != (b1 is None)
             else rose(b0, b1, str)
             if b0 is not None and b1 is not None
             else "is never reached on either chip")  # fmt: skip
    i_decode = 2 / weight_bytes  # one multiply-add (2 FLOP) per weight read
    memory = min(h100["ridge"], h200["ridge"]) > i_decode
    need = (
        f": it needs {more_or_fewer(b1, b0, 'concurrent sequences')} to keep its tensor cores busy"
        if b0 is not None and b1 is not None and b0 != b1
        else "")  # fmt: skip
    steps = (
        "Both chips have the same bf16 peak, so every compute-bound step (prefill, large "
        "batches) takes the same time on both."
        if f"{peak_ratio:.2f}" == "1.00"
        else f"The H200 has {ratio(peak_ratio)} the H100's bf16 peak, so a compute-bound "
        f"step (prefill, large batches) gets {claims.speed(1.0, 1.0 / peak_ratio)} on it.",
        f"With {ratio(c200.mem_bw / c100.mem_bw)} the bandwidth, the H200's ridge "
        f"{rose(h100['ridge'], h200['ridge'], _f1, ' FLOP/byte')}, and the critical batch of "
        f"a K = N = {dim:,} layer {batch} (table){need}.",
        f"Decode at batch 1 does {i_decode:g} FLOP per byte, "
        + ("below both ridges, so it is memory-bound" if memory else "no longer below both ridges")
        + f": each step reads all {n_params / 1e9:g}B "
        f"weights ({fmt_bytes(n_params * weight_bytes)} in bf16). That read bounds the step "
        f"at {fmt_time(h100['decode_s'])} on H100 and {fmt_time(h200['decode_s'])} on "
        f"H200, {claims.speed(h100['decode_s'], h200['decode_s'])}"
        + (": decode follows the bandwidth ratio, not the compute ratio." if memory else "."),
    )
    headers = ("chip", "bandwidth", "I* bf16", "critical batch", "decode step bound")
    formula = r"T_{\text{decode step}} \geq \frac{N_{\text{params}}\, b_w}{\beta}"
    return _answer(steps, values, formula, headers, rows)


def gqa_decode_answer() -> Answer:
    """Decode attention intensity for MHA, GQA and MQA: query heads per KV head."""
    h, dh, n = 64, 128, 8192  # query heads, head dim, context (lecture 02: 32 heads, 4096 tokens)
    ridge, rows, values, names = hw_specs.H100.ridge_point("bf16"), [], {}, {h: "MHA", 1: "MQA"}
    for k in (64, 8, 1):
        i = values[k] = roofline.intensity(*roofline.decode_attention_counts(h, k, dh, n))
        label = f"{names.get(k, 'GQA')} ({k} KV head{'s' if k != 1 else ''})"
        rows.append((label, f"{i:g}", fmt_bytes(ledger.kv_cache_bytes(1, 1, k * dh), True)))
    steps = (
        "At decode each sequence reads its whole K and V cache once per layer and uses "
        "each cached element in one dot product per query head that shares it.",
        f"With {h} query heads of size {dh} and {n:,} tokens of context, each KV head serves its "
        "share of query heads, so I is that share, H_q / H_kv (table); the context length cancels.",
        (
            f"Even MQA stays below the H100's bf16 ridge of {_f1(ridge)} FLOP/byte: decode "
            "attention is memory-bound"
            if ridge > max(values.values())
            else f"The H100's bf16 ridge of {_f1(ridge)} FLOP/byte is low enough in your table "
            f"that {n_of_m(sum(i >= ridge for i in values.values()), len(values))} variants "
            "reach it"
        )
        + ", and fewer KV heads help by shrinking the cache (the last column, per token and "
        "layer) that every step must read.")  # fmt: skip
    formula = r"I = \frac{4 H_q\, d\, T}{2 H_{kv}\, d\, T\, b} = \frac{H_q}{H_{kv}} \text{ (bf16)}"
    headers = ("attention", "I (FLOP/B)", "KV bytes per token and layer")
    return _answer(steps, values, formula, headers, rows)


def largest_batch_answer(budget_gib: float = 130) -> Answer:
    """Largest prefill batch of the article's 7B model within the budget at each overhead rate:
    an H200's 141 GB (131 GiB) less a reserve (lecture 03 works 78 GiB)."""
    spec, rows, values = assumptions.ARTICLE_7B, [], {}
    for rate in (assumptions.ARTICLE_OVERHEAD_RATE, assumptions.LOW_OVERHEAD_RATE):
        at = functools.partial(ledger.model_ledger, spec, overhead_rate=rate)
        best = ledger.largest_batch_that_fits(budget_gib * GIB, at)
        total, over = at(best).total / GIB, at(best + 1).total / GIB
        values[rate] = {"batch": best, "total_gib": total, "next_gib": over}
        rows.append((f"{rate:.0%}", f"{best}", f"{total:.2f} GiB", f"{over:.2f} GiB"))
    weights = spec.n_params * spec.weight_bytes / GIB
    kv_seq = ledger.kv_cache_bytes(spec.seq, spec.n_layers, spec.d_kv, spec.kv_bytes) / GIB
    steps = (
        f"The weights take {weights:.1f} GiB whatever the batch; each {spec.seq:,}-token "
        f"sequence adds {kv_seq:.2f} GiB of KV cache plus its activations; the overhead is "
        "a share of those three terms.",
        f"Search every batch size for the last one whose total stays within {budget_gib:g} "
        "GiB (table): the next batch up no longer fits.",
        "Cutting the overhead (what paged KV-cache allocation does) buys more concurrent "
        "sequences than any kernel tuning could: here capacity, not speed, sets the batch.",
    )
    headers = ("overhead", "largest batch", "its total", "one more")
    formula = r"N b_w + 2BSLd_{kv}b_{kv} + BSa + \rho\,(\ldots) \;\leq\; \text{budget}"
    return _answer(steps, values, formula, headers, rows)


def bandwidth_2x_answer() -> Answer:
    """Who gains from 2x bandwidth, who from 2x compute (TPU v6e bf16; lecture 05 works A100)."""
    chip = hw_specs.TPU_V6E
    peak, bw, ridge = chip.peak_flops("bf16"), chip.mem_bw, chip.ridge_point("bf16")
    rows, gains = [], {1: [], -1: [], 0: []}  # who gains more from bandwidth (1) or compute (-1)
    for name, f, d in article_operators():
        (s_compute, s_bw), i = roofline.speedup_2x(f, d, peak, bw), roofline.intensity(f, d)
        rows.append((name, f"{i / ridge:.3f}", f"{s_compute:.2f}x", f"{s_bw:.2f}x"))
        gains[direction(s_compute, s_bw, lambda x: f"{x:.2f}")].append(name)
    steps = (
        f"An operator below the ridge (I / I* < 1, with I* = {_f1(ridge)} FLOP/byte) is "
        "bound by its bytes: doubling bandwidth halves its time and doubling compute does "
        "nothing. Above the ridge the roles swap.",
        f"Gain more from 2x bandwidth: {'; '.join(gains[1]) or 'none of them'}.",
        f"Gain more from 2x compute: {'; '.join(gains[-1]) or 'none of them'}.",
        "An operator close to the ridge gains less than 2x from either, because the other "
        "roof soon takes over.")  # fmt: skip
    headers = ("operator", "I / I*", "2x compute", "2x bandwidth")
    formula = r"T = \max\!\left(\frac{F}{P_{\text{peak}}},\; \frac{D}{\beta}\right)"
    return _answer(steps, {"bandwidth": gains[1], "compute": gains[-1]}, formula, headers, rows)


def sharded_matmul_answer(d_example: int = 4096) -> Answer:
    """Critical K for X[B,K] W[K,N] split along K over two chips, per chip and link."""
    chips = (hw_specs.A100, hw_specs.B200)  # lecture 02 works v5e, v6e, H100, B300
    linked = [c for c in chips if c.link_bw_figure is not None]  # what needs a link sits out
    values = {c.key: roofline.network_critical_dim(c.peak_flops("bf16"), c.link_bw) for c in linked}
    rows = [
        (c.name, fmt_bw(c.link_bw), f"{k:,.1f}", "compute" if d_example > k else "communication")
        for c, k in zip(linked, values.values(), strict=True)]  # fmt: skip
    steps = ("Each chip multiplies its half of K (B K N FLOP) and then sends its [B, N] partial "
             "sums (2 B N bytes in bf16) to the other. B and N appear on both sides and cancel.",
             "So the step is compute-bound when its intensity against the link, K / b FLOP per "
             "byte, exceeds peak / link: K must pass the third column of the table.",
             f"For a layer with K = {d_example:,}, the last column says which side bounds the "
             "step. Slow links need much wider layers before sharding pays.")  # fmt: skip
    if missing := [c.name for c in chips if c not in linked]:
        steps += (f"Left out: {' and '.join(missing)}, with no link figure in common/hw_specs.py.",)
    headers = ("chip", "link (one way)", "critical K", f"bound at K = {d_example:,}")
    formula = r"\frac{B K N / P_{\text{peak}}}{B N b / \beta_{\text{link}}} \geq 1 "
    formula += r"\iff K \geq \frac{b\, P_{\text{peak}}}{\beta_{\text{link}}}"
    return _answer(steps, values, formula, headers, rows)


def _tiled(n: int, d_head: int, m: float, b: float) -> tuple[Any, int, float, float]:
    """FlashAttention-2's blocks in M_sm = `m` bytes, T_r, the traffic D (bytes) and F / D."""
    blocks = attention_io.block_sizes(n, d_head, m, b)
    flops, traffic = attention_io.tiled_counts(n, d_head, m, b)
    reads = attention_io.kv_reads(n, blocks.rows, blocks.cols)
    return blocks, reads, traffic, roofline.intensity(flops, traffic)


def tiled_compute_bound_answer(n: int = 8192, d_head: int = 128, precision: str = "fp8") -> Answer:
    """Smallest on-chip memory per SM whose FlashAttention-2 blocks reach the ridge (H100)."""
    chip, b = hw_specs.H100, hw_specs.bytes_per_elem(precision)
    ridge, have = chip.ridge_point(precision), chip.smem_per_sm
    need = attention_io.smallest_on_chip_for(n, d_head, ridge, b)
    flops, rows = ledger.attention_counts(n, d_head, b)[0], []
    for label, m in (("shared memory of one SM", have), ("smallest M_sm reaching I*", need)):
        if m is not None:
            blocks, reads, d, i = _tiled(n, d_head, m, b)
            cells = (f"{blocks.rows} x {blocks.cols}", str(reads), fmt_bytes(d), _f1(i))
            rows.append((label, fmt_bytes(m, True, digits=0), *cells))
    values: dict[str, Any] = {"ridge": ridge, "m_needed": need, "m_have": have}
    steps = [f"F = 4 N^2 d_h + 5 N^2 = {flops:,.0f} FLOP does not depend on the schedule; the "
             f"traffic is D = b N d_h (2 + 2 T_r), so the intensity grows with B_r (about "
             f"{'' if 2 / b == 1 else f'{2 / b:g} '}B_r in {precision}) and the {chip.name}'s "
             f"{precision} ridge of {_f1(ridge)} FLOP/byte needs T_r small enough that F / D "
             "reaches it."]  # fmt: skip
    if need is None:
        steps.append("Even reading K and V once falls short of the ridge: no M_sm is enough.")
    else:
        blocks, tr0 = _tiled(n, d_head, need, b)[:2]
        values["blocks"] = (blocks.rows, blocks.cols)
        try:
            less, tr1, _, i = _tiled(n, d_head, need - 1, b)
            less_does = (
                f": one byte less gives B_r = {less.rows}, T_r {change(tr0, tr1, str)} and the "
                f"intensity {_f1(i)} FLOP/byte, under the ridge.")  # fmt: skip
        except ValueError:  # one byte less no longer holds one row of each block
            less_does = ": one byte less holds no block at all."
        enough = "one SM's shared memory is enough for the schedule to reach the ridge."
        if need > have:
            enough = "from shared memory alone the schedule stays memory-bound."
        steps += [
            f"The smallest such query block under the footprint rule is B_r = {blocks.rows} "
            f"(with B_c = {blocks.cols}), whose footprint U(B_r, B_c) is "
            f"{need:,} bytes ({fmt_bytes(need, True, digits=0)}){less_does}",
            f"That is {claims.than(need / have)} the {fmt_bytes(have, True, digits=0)} of shared "
            f"memory one SM offers: {enough} Real kernels also keep S and the accumulator in "
            "registers, and the L2 cache serves rereads."]  # fmt: skip
    formula = r"\frac{4N^2 d_h + 5N^2}{b\,N d_h\,(2 + 2\lceil N/B_r \rceil)} \ge I^{\ast}"
    formula += r",\quad M_{sm} \ge U(B_r, \min(B_r, d_h))"
    headers = ("on chip", "M_sm", "Br x Bc", "T_r", "D", "I (FLOP/B)")
    return _answer(steps, values, formula, headers, rows)


def _head_dims_reaching(values: Mapping[int, tuple[Any, ...]], ridge: float) -> str:
    """Which head dims of the table reach the ridge, in words."""
    reach = [str(d) for d, v in values.items() if v[3] >= ridge]
    if not reach:
        return "no head dim of the list reaches it: the schedule stays memory-bound"
    if len(reach) == len(values):
        return "every head dim of the list reaches it"
    return f"only d_h = {listing(reach)} reach{'es' if len(reach) == 1 else ''} it"


def tiled_head_dim_answer() -> Answer:
    """How the tiled traffic and intensity move with the head dim at a fixed M_sm (H100)."""
    chip, n, b = hw_specs.H100, 8192, hw_specs.bytes_per_elem("bf16")
    m, ridge, rows, values = chip.smem_per_sm, chip.ridge_point("bf16"), [], {}
    for d in (64, 128, 256):
        try:
            blocks, _, traffic, i = _tiled(n, d, m, b)
        except ValueError:  # M_sm holds not even one row of each block at this d_h
            rows.append((str(d), "none fits", "-", "-", "-"))
            continue
        values[d] = (blocks.rows, blocks.cols, traffic, i)
        shape = f"{blocks.rows} x {blocks.cols}"
        rows.append((str(d), shape, fmt_bytes(traffic), _f1(i), roofline.bound_of(i, ridge)))
    growth = [values[hi][2] / values[lo][2] for lo, hi in itertools.pairwise(values)]
    doubling = "Here fewer than two head dims of the list fit in M_sm, so none can be compared."
    if growth:
        doubling = f"Here each doubling multiplies it by {' and '.join(f'{g:.1f}' for g in growth)}"
        doubling += f" (geometric mean {math.prod(growth) ** (1 / len(growth)):.1f})" + (
            "."
            if all(f"{g:.1f}" == "4.0" for g in growth)
            else " rather than exactly 4 each time: B_r is rounded down, B_c is capped "
            "at d_h, and the score block 4 B_r B_c weighs more at large d_h.")  # fmt: skip
    steps = (
        f"With M_sm fixed ({fmt_bytes(m, True, digits=0)}, the {chip.name}'s shared memory), "
        "a larger head dim makes every block row bigger, so fewer rows fit: B_r falls about as "
        "1 / d_h and T_r grows with d_h.",
        "Each reread of K and V also carries d_h elements per row, so the traffic D = b N d_h (2 + "
        f"2 T_r) grows about as d_h^2: FlashAttention's Theta(N^2 d^2 / M). {doubling}",
        f"F grows only as d_h, so the intensity falls roughly as 1 / d_h. Against the "
        f"ridge of {_f1(ridge)} FLOP/byte, " + _head_dims_reaching(values, ridge) + " (table).",
    )
    formula = r"D \approx \frac{2 b N^2 d_h}{B_r},\quad B_r \approx \frac{M_{sm}}{(b + 8)\,d_h}"
    formula += r"\quad\Rightarrow\quad D \propto \frac{N^2 d_h^2}{M_{sm}}"
    return _answer(steps, values, formula, ("d_h", "Br x Bc", "D", "I (FLOP/B)", "bound"), rows)


def efficiency_match_answer(phase: str = "prefill", which: str = "peak") -> Answer:
    """The efficiency of one roof at which lecture 11's 1-GPU prediction meets the measurement."""
    run = next(r for r in pub.FT_13B if r.phase == phase and r.gpus == 1)
    build = transformer.prefill_ledger if phase == "prefill" else transformer.decode_ledger
    led, a100 = build(pub.GPT_13B, 1, run.tokens), hw_specs.A100
    spec, floor = predict.spec_roofs(a100, "bf16"), pub.small_kernel_floor()
    e = predict.efficiency_to_match(led, spec, run.measured.seconds, which, 1, None, floor)
    peak, spec_value = which == "peak", getattr(spec, which)
    roof, fmt = ("matmul peak", fmt_rate) if peak else ("HBM bandwidth", fmt_bw)
    ach = a100.achievable_flops("bf16") if peak else a100.achievable_mem_bw
    ach_share = None if ach is None else ach / spec_value
    at_spec = predict.modelled_time(led, spec, 1, None, floor)  # one GPU: no all-reduce (None)
    steps = [f"At spec roofs the ledger, plus the fixed cost per kernel, predicts "
             f"{fmt_time(at_spec)} for the measured {fmt_time(run.measured.seconds)}.",
             f"Scale the A100's {roof} by e and solve modelled time = measured (the time falls "
             "as e grows, so bisection finds the one e)."]  # fmt: skip
    if e is None:
        steps.append(f"No e of at most 100% reaches it: the {roof} alone cannot close the gap.")
    else:
        steps.append(f"e = {fmt_pct(e, 1)} of the spec {roof} ({fmt(e * spec_value)}).")
        if peak:
            mlp, attn = pub.KIPPLY_MLP_FLOPS_EFFICIENCY, pub.KIPPLY_ATTN_PROJ_FLOPS_EFFICIENCY
            lo, hi = min(mlp, attn), max(mlp, attn)
            place = "between" if lo <= e <= hi else ("below" if e < lo else "above")
            steps.append(
                f"The blog's own profile of this run found its MLP matmuls at {fmt_pct(mlp)} "
                f"and its attention projection at {fmt_pct(attn)} of peak: e lies {place} "
                f"{'them' if place == 'between' else 'both'}.")  # fmt: skip
        if ach_share is not None:
            side, run = "above", "does better than the achievable figure used"
            if e < ach_share:
                side, run = "below", "loses time the best kernel would not"
            steps.append(
                f"The published achievable {roof} is {fmt_pct(ach_share, 1)} of spec, so the "
                f"measurement implies an efficiency {side} it: the run {run}.")  # fmt: skip
    values = {"efficiency": e, "achievable_share": ach_share, "at_spec_s": at_spec}
    scaled = r"\frac{F}{e P}, \frac{D}{\beta}" if peak else r"\frac{F}{P}, \frac{D}{e \beta}"
    formula = r"\sum_{ops} \max\left(" + scaled + r"\right) + T_{fixed} = T_{meas}"
    return _answer(steps, values, formula)


#: Lecture 12's model (Llama 3 8B, widths / 4: its default --shrink) and its fp32 types.
PROFILED = models.shrunk(models.LLAMA_3_8B, 4), transformer.DTypes("fp32", "fp32", "fp32")


def profiler_flops_answer(prompts: Sequence[int] = (256, 1024, 4096)) -> Answer:
    """Attention-product FLOPs: the profiler's full S x S rectangle against the causal ledger."""
    (m, dt), rows, values = PROFILED, [], {}
    products, fmt_flops = transformer.ATTENTION_PRODUCTS, console.fmt_flops
    for S in prompts:
        led = transformer.prefill_ledger(m, 1, S, dt, materialized=True)
        causal = sum(op.flops * c for op, c in led.counted() if op.name in products)
        # two products per head (Q K^T and P V), each over the whole S x S rectangle
        full = 2 * m.n_layers * m.n_heads * roofline.matmul_counts(S, m.d_head, S)[0]
        extra = (full - causal) / led.flops
        values[S] = {"ledger": causal, "profiler": full, "extra_share": extra}
        rows.append((f"{S:,}", fmt_flops(causal, 1), fmt_flops(full, 1), fmt_pct(extra, 1)))
    steps = (
        f"{m.name} has {m.n_layers} layers of {m.n_heads} query heads of {m.d_head}. A head's "
        "Q K^T is a [S, d_h] x [d_h, S] matmul, 2 S^2 d_h FLOPs, and P V the same: that is "
        "what the profiler counts, masked entries included.",
        "The ledger counts S (S + 1) / 2 kept pairs per head, so the profiler's count is "
        "2 S / (S + 1) times the ledger's: almost twice, for any long prompt (table).",
        f"The extra grows from {fmt_pct(values[prompts[0]]['extra_share'], 1)} to "
        f"{fmt_pct(values[prompts[-1]]['extra_share'], 1)} of the pass's ledger FLOPs as "
        "attention's share of the pass grows with S: an MFU from the profiler's count would "
        "credit the model with work it throws away. Take the model's FLOPs and the wall time.",
    )
    headers = ("prompt", "ledger FLOP", "profiler FLOP", "extra / pass")
    formula = r"F_{prof} = 4 L H S^2 d_h, \quad F_{ledger} = 4 L H \frac{S(S+1)}{2} d_h"
    return _answer(steps, values, formula, headers, rows)


def decode_context_answer(contexts: Sequence[int] = (256, 1024, 4096, 8192)) -> Answer:
    """One fp32 decode step at each context: bytes, KV share and the bound on measured roofs."""
    (m, dt), calib = PROFILED, measured_calibration("probe", PROBE_SOURCE) or EXAMPLE_CALIBRATION
    roofs, rows, values, each = (calib.matmul_flops_per_s, calib.bandwidth_bytes_per_s), [], {}, []
    for S in contexts:
        led = transformer.decode_ledger(m, 1, S, dt)
        each.append(roofline.intensity(led.flops, led.nbytes))
        t = roofline.lower_bound_time(led.flops, led.nbytes, *roofs)
        values[S] = {"bytes": led.nbytes, "kv_share": led.kv_bytes / led.nbytes, "seconds": t}
        rows.append((f"{S:,}", fmt_bytes(led.nbytes), fmt_pct(values[S]["kv_share"]), fmt_time(t)))
    per_token = transformer.kv_cache_bytes_per_token(m, dt.kv_bytes)
    weights = transformer.decode_ledger(m, 1, contexts[0], dt).weight_bytes
    even = math.ceil(weights / per_token)
    first, last = values[contexts[0]], values[contexts[-1]]
    most, sides = max(each), {claims.side(i, calib.ridge) for i in each}
    where = "compute-bound at some contexts and memory-bound at others"
    if len(sides) == 1:  # the claim 'at every context' only when every context says so
        where = f"{sides.pop()} at every context"
    steps = (
        f"A decode step of {m.name} reads every weight once, {fmt_bytes(weights)}, and the whole "
        f"KV cache, {fmt_bytes(per_token)} a token of context. Its intensity is at most {most:.2f} "
        f"FLOP/byte against a ridge of {_f1(calib.ridge)} on {calib.source}: the step is {where}"
        + (", so its bound is bytes / bandwidth (table)." if most < calib.ridge else " (table)."),
        f"From {contexts[0]:,} to {contexts[-1]:,} tokens the step's time bound "
        f"{rose(first['seconds'], last['seconds'], fmt_time)}: linear in S, with an "
        "intercept set by the weights.",
        f"The cache costs as much as the weights at {even:,} tokens of context (weights / "
        "KV bytes per token)"
        + (f", beyond the model's {m.max_context:,}-token window" if even > m.max_context else "")
        + "; past it, a step pays more for attention's reads than for the weights.")  # fmt: skip
    headers = ("context", "bytes per step", "KV share", "time bound")
    formula = r"T \geq \frac{N b_w + S \cdot 2 L H_{kv} d_h b_{kv}}{\beta}"
    return _answer(steps, {**values, "even_context": even}, formula, headers, rows)


def moe_critical_batch_answer(chip: Chip | None = None) -> Answer:
    """Mixtral's experts against its dense twin: critical batches in fp8 on `chip` (H100)."""
    c, m = chip or hw_specs.H100, models.MIXTRAL_8X7B
    dt, ridge = transformer.DTypes("fp8"), c.ridge_point("fp8")
    E, k, d, f = m.n_experts, m.experts_per_token, m.d_model, m.d_ff_expert
    moe, d_ff = transformer.expert_critical_batch(m, ridge, dt), models.dense_twin(m).d_ff
    twin = roofline.critical_batch(d, d_ff, ridge, dt.act_bytes, dt.w_bytes, dt.act_bytes)
    steps = (
        f"{_ridge_of(c, 'fp8')}; fp8 weights are 1 byte, bf16 activations 2.",
        f"The twin's MLP, X[B, {d:,}] W[{d:,}, {d_ff:,}], reaches it at B = {fmt_batch(twin)}.",
        "The experts never reach the ridge: their intensity stays below it."
        if moe is None or twin is None
        else "An expert matmul does 2 B k d f FLOP over E (1 - (1 - k/E)^B) experts' weights and B "
        f"k (d + f) activations; the smallest B past the ridge is {moe:,}, {ratio(moe / twin, 1)} "
        f"the twin's batch against E / k = {E / k:g}: each expert meets only k/E of the batch, and "
        f"an expert ({f:,} wide) is {'narrower than' if f < d_ff else 'as wide as'} the twin's "
        "MLP, so its activations weigh more per FLOP.")  # fmt: skip
    formula = r"\frac{2 B k d f}{E\,(1 - (1 - k/E)^B)\, d f\, b_w + B k (d + f)\, b_a} "
    formula += r"\geq \frac{P_{\text{peak}}}{\beta}"
    return _answer(steps, {"ridge": ridge, "experts": moe, "twin": twin}, formula)


def moe_skew_answer(batch: int = 32, gpus: int = 8) -> Answer:
    """Qwen3-30B-A3B: experts a step reaches, uniform and skewed, and the GPUs' imbalance."""
    m = models.QWEN3_30B_A3B
    E, k = m.n_experts, m.experts_per_token
    uniform = transformer.experts_touched(batch, k, E)
    shares = serving.skewed_shares(E, k, assumptions.ROUTING_ZIPF)
    skewed = serving.experts_touched_by_shares(batch, shares)
    gpu, saved = serving.imbalance_factor(serving.gpu_loads(shares, gpus)), 1 - skewed / uniform
    steps = (
        f"Uniform: E (1 - (1 - k/E)^B) = {E} (1 - (1 - {k}/{E})^{batch}) = {uniform:.1f} "
        f"experts of {E} per layer.",
        f"Skew s = {assumptions.ROUTING_ZIPF:g}: expert i is among a token's {k} with probability "
        f"q_i = min(1, c i^-s), c set so the q_i sum to {k}; the step reaches "
        f"sum 1 - (1 - q_i)^{batch} = {skewed:.1f} experts, {saved:.1%} fewer weight reads.",
        f"Round-robin over {gpus} GPUs, the busiest GPU's share of the routed tokens is "
        f"{ratio(gpu)} the fair share: every GPU waits for it, so the experts' part of the "
        f"step takes {ratio(gpu)} its balanced time.")  # fmt: skip
    values = {"uniform": uniform, "skewed": skewed, "saved": saved, "gpu_factor": gpu}
    return _answer(steps, values, r"E_{\text{reached}} = \sum_i 1 - (1 - q_i)^B")


def mtp_acceptance_answer(modules: int = 2) -> Answer:
    """DeepSeek-V3's MTP: the acceptance x1.8 implies at S = E(a, K) / (K c + v); K = `modules`."""
    K, S, (low, high) = pub.MTP_DRAFT_TOKENS, pub.MTP_SPEEDUP, pub.MTP_ACCEPTANCE
    L = models.get_model("deepseek-v3").n_layers
    c = 1 / L
    a = serving.acceptance_for_speedup(S, K, c)
    if a is None:
        raise ValueError(f"no acceptance gives x{S:g} at K = {K} and c = 1/{L}")
    where = "below" if a < low else "above" if a > high else "inside"
    verify = serving.expected_tokens(low, K) / S - K * c  # v with E(a_low, K) / (K c + v) = S
    more = serving.speculative_speedup(a, modules, c)
    steps = (
        f"One draft token (K = {K}) at cost c = 1/{L} = {c:.4f} and a verify pass of v = 1: "
        f"the speed-up is (1 + a) / (1 + c); x{S:g} gives a = {S:g} (1 + 1/{L}) - 1 = "
        f"{fmt_pct(a, 1)}, {where} the published {fmt_pct(low)} to {fmt_pct(high)}.",
        f"At a = {fmt_pct(low)}: v = (1 + a) / {S:g} - c = {verify:.3f} decode steps, so the "
        f"verify pass may cost {fmt_pct(abs(verify - 1), 1)} "
        f"{'more' if verify > 1 else 'less'} than a plain step.",
        f"{modules} modules at a = {fmt_pct(a, 1)}: E = (1 - a^{modules + 1}) / (1 - a) = "
        f"{serving.expected_tokens(a, modules):.2f} tokens for {modules} c + 1 = "
        f"{modules * c + 1:.3f} steps, {ratio(more)} against plain decoding.")  # fmt: skip
    values = {"acceptance": a, "verify": verify, "speedup": more}
    return _answer(steps, values, r"S = \frac{(1 - a^{K+1}) / (1 - a)}{K c + v}")


def fleet_request_mix_answer(prompt: int = 32768, output: int = 1024, price: float = 3.0) -> Answer:
    """DeepSeek's per-node rates: the P:D node ratio, $ per request and per million tokens."""
    fleet = pub.DEEPSEEK_FLEET
    t_p = prompt / fleet.prefill_per_node  # node-seconds of prefill a request takes
    t_d = output / fleet.decode_per_node  # node-seconds of decode
    pd = serving.pd_ratio(t_p, t_d)
    day = serving.pd_ratio(
        serving.node_hours(fleet.input_tokens, fleet.prefill_per_node),
        serving.node_hours(fleet.output_tokens, fleet.decode_per_node))  # fmt: skip
    gpu_s = (t_p + t_d) * fleet.gpus_per_node
    usd = gpu_s * price / 3600
    per_m = serving.cost_per_million((prompt + output) / gpu_s, price)
    steps = (
        f"Prefill: {prompt:,} tokens / {fleet.prefill_per_node:,.0f} tokens/s a node = "
        f"{t_p:.3f} node-s; decode: {output:,} / {fleet.decode_per_node:,.0f} = {t_d:.4f} node-s.",
        f"The pools keep pace at P / D = t_p / t_d = {pd:.2f} prefill nodes per decode node, "
        f"{claims.than(pd / day)} the {day:.2f} of DeepSeek's published day.",
        f"A thousand requests: 1,000 x ({t_p:.3f} + {t_d:.4f}) node-s x "
        f"{fleet.gpus_per_node} GPUs x ${price:g} / 3600 s = ${usd * 1000:.2f}; a million "
        f"of their tokens ({prompt + output:,} a request) cost ${per_m:.3f}.")  # fmt: skip
    formula = r"\frac{P}{D} = \frac{p / r_p}{o / r_d}, \quad \$ = (t_p + t_d)\, G\, "
    formula += r"\frac{\text{price}}{3600}"
    return _answer(steps, {"pd": pd, "request_usd": usd, "usd_per_m": per_m}, formula)


ARTICLE = "the article"
SCRIPT = "the lecture script's book exercises"
COURSE = "this course"

#: The exercises in order: a "key | origin | title" line, then its question, indented.
_QUESTIONS = """
percent-of-bound | article | Read the percentage of the bound
    Run lecture 01. It measures this machine's bandwidth and matmul roofs, times a few operators and
    prints each one's time as a percentage of its roofline bound. Which operators come close to
    100%, which stay far below, and what should you change if naive attention scores high?
sweep-crossing | article | Find the batch sweep's ridge crossing
    Lecture 03 multiplies x[B, d] by a fixed fp32 weight W[d, d] (the article's d = 4096, smaller
    only where this machine is too slow for it within the time budget) for B = 1, 2, 4, ..., 256 and
    labels each batch memory- or compute-bound against this machine's ridge point. Between which two
    batches does the label change, and when does throughput stop growing? Extend the list of batches
    to check.
a100-peak-edit | article | Raise the A100's compute peak
    In ``common/hw_specs.py`` set the A100's bf16 ``peak_flops`` to 1979e12, leave everything else
    alone, and rerun lecture 05. Where does the GEMM crossover [M, 4096] x [4096, 4096] move, and
    which operators change their bound?
v5e-int8 | script | Critical batch for int8 on TPU v5e
    On a TPU v5e, X[B, 4096] W[4096, 4096] runs entirely in int8: inputs, weights and outputs take 1
    byte each and the int8 peak applies. What batch makes it compute-bound, and how close is the
    book's small-batch estimate? Lecture 02 works the 8192-wide layer; this one is half as wide.
v5e-int8-weights | script | int8 weights, bf16 activations
    Same 4096-wide layer on a TPU v5e, but only the weights are int8 (1 byte); activations, outputs
    and the arithmetic stay bf16 (2 bytes, bf16 peak). What is the critical batch now, and what does
    the small-batch estimate say?
per-example-matrices | script | One matrix per example
    Each example b multiplies its own vector by its own matrix W[b] of shape [4096, 4096], all in
    bf16, for B = 1, 8, 64 and 512. What is the arithmetic intensity as the batch grows?
h200-vs-h100 | course | H200 against H100 for decode
    The H200 keeps the H100's compute die and adds bandwidth. Compare their bf16 ridge points and
    the critical batches of a K = N = 2048 layer (lecture 02 works the 8192-wide one), and say what
    the difference means for decoding an 8B-parameter bf16 model at batch 1.
gqa-decode | course | Decode attention with MHA, GQA and MQA
    A larger model has 64 query heads of size 128 and an 8192-token context in bf16 (lecture 02
    works 32 heads at 4096 tokens). Compute the decode attention intensity with 64 KV heads (MHA), 8
    (GQA) and 1 (MQA). Is any of them compute-bound on an H100?
largest-batch | course | The largest batch that fits
    Take the article's memory ledger: a 7B model with fp16 weights and KV cache, 32 layers, d_kv =
    4096, 4096-token sequences in prefill, 128 KiB of activations per token, on an H200: a 130 GiB
    budget (lecture 03 works 78 GiB). What is the largest batch at 30% overhead, and at 4%?
bandwidth-2x | course | Who gains from twice the bandwidth?
    On a TPU v6e in bf16, which of the article's operators would run faster with twice the memory
    bandwidth, and which with twice the compute?
sharded-matmul | course | When does sharding a matmul pay?
    X[B, K] W[K, N] is split along K over two chips, which then exchange bf16 partial sums over one
    link. How large must K be for the step to stay compute-bound on an A100 and a B200 (one NVLink
    each way), and which bounds a K = 4,096 step?
tiled-compute-bound | course | When does tiled attention turn compute-bound?
    Lecture 10's IO model runs FlashAttention-2's loops with the footprint rule for M_sm bytes of
    on-chip memory per SM; the lecture works bf16. For one head with N = 8,192 and d_h = 128 in fp8
    (as FlashAttention-3 runs it) on an H100, what is the smallest M_sm at which the schedule
    reaches the H100's fp8 ridge point, and how does it compare with the shared memory one SM has?
tiled-head-dim | course | Tiled attention and the head dimension
    Keep the H100's shared memory per SM and N = 8,192 in bf16, and change the head dimension: d_h =
    64, 128, 256. How do the block sizes, the traffic and the intensity of FlashAttention-2's loops
    move, and which head dim is compute-bound?
prefill-efficiency | course | What compute efficiency does the 13B prefill imply?
    Lecture 11 predicts the 512-token prefill of the 13B model on one A100 40GB. Keep the spec
    bandwidth and the fixed cost per kernel, and scale only the bf16 matmul peak: what fraction of
    the spec peak makes the prediction meet the measured time, and how does it compare with the
    achievable matmul peak in the hardware table?
decode-bandwidth-efficiency | course | What bandwidth does the 13B decode step imply?
    Same model, one decode step at batch 1 on one A100 40GB. Scale only the HBM bandwidth: what
    fraction of the spec bandwidth makes the prediction meet the measured time, and is that above or
    below the achievable bandwidth in the hardware table?
profiler-flops | course | How many FLOPs does the profiler see?
    Lecture 12 profiles Llama 3 8B with its widths divided by 4 in fp32. torch's with_flops counts
    each attention product Q K^T and P V over the whole S x S score matrix; the ledger counts only
    the query-key pairs the causal mask keeps. For prompts of 256, 1,024 and 4,096 tokens, how many
    attention FLOPs does each count, and what share of the ledger's whole pass does the profiler's
    extra make?
decode-context | course | How does a decode step's time grow with the context?
    Same model, one fp32 decode step at batch 1 on this machine's roofs (lecture 01). How do the
    bytes the step moves and its time bound change from a 256-token to an 8,192-token context, and
    at what context does reading the KV cache cost as much as reading the weights?
moe-critical-batch | course | When do Mixtral's experts turn compute-bound in fp8?
    Mixtral-8x7B decodes on an H100 SXM with fp8 weights and fp8 compute (activations stay bf16). At
    what batch do its routed experts' matmuls reach the ridge, and at what batch does the MLP of its
    dense twin (d_ff = 2 x 14,336) get there? Compare the ratio with E / k and say why they differ.
moe-skew | course | What does a skewed router do to Qwen3-30B-A3B's step?
    Qwen3-30B-A3B (8 of 128 experts a token) decodes 32 tokens a step on 8 GPUs, 16 experts on each,
    dealt round-robin. How many distinct experts per layer does a step reach under uniform routing,
    and under the course's Zipf-like skew (``ROUTING_SKEW`` in ``common/tables/assumptions.py``)?
    What share of the expert weight reads does the skew save, and how much busier than the fair
    share is the busiest GPU?
mtp-acceptance | course | What acceptance does DeepSeek's x1.8 imply once the draft costs something?
    DeepSeek-V3's report gives x1.8 tokens per second from one multi-token-prediction module, one
    decoder block beside the model's 61, drafting one token a step, and a published acceptance of
    85% to 90%. Take the module's cost as c = 1/61 of a decode step and the verify pass of two
    tokens a sequence as one step. What acceptance does x1.8 imply, and is it in the published
    range? At the range's low end, what may the verify pass cost for x1.8? What would two such
    modules (K = 2) give at the implied acceptance?
fleet-request-mix | course | What do long prompts do to DeepSeek's fleet and its cost?
    A coding agent sends DeepSeek's V3/R1 service requests of 32,768 prompt tokens and 1,024 output
    tokens. At the per-node rates DeepSeek published for prefill and decode (nodes of 8 H800, cache
    hits counted as in its prefill rate), how many prefill nodes per decode node keep pace with each
    other, and at $3 per GPU-hour what does one request cost, and a million of its tokens, input and
    output together?
"""

#: The solvers not named after their key (``<key>_answer``, dashes as underscores).
_OWN_SOLVERS: dict[str, Callable[[], Answer]] = {
    "v5e-int8": lambda: critical_batch_answer(hw_specs.TPU_V5E, "int8", 1, 1, 1, BOOK_DIM),
    "v5e-int8-weights": lambda: critical_batch_answer(hw_specs.TPU_V5E, "bf16", 2, 1, 2, BOOK_DIM),
    "prefill-efficiency": lambda: efficiency_match_answer("prefill", "peak"),
    "decode-bandwidth-efficiency": lambda: efficiency_match_answer("decode", "mem_bw")}  # fmt: skip
_SOLVERS = {
    key: _OWN_SOLVERS.get(key) or globals()[key.replace("-", "_") + "_answer"]
    for key in re.findall(r"^(\S+) \|", _QUESTIONS, re.M)}  # fmt: skip


def _exercises(text: str) -> tuple[Exercise, ...]:
    """The exercises of `text` in its order, each with its solver from ``_SOLVERS``."""
    origins, out = {"article": ARTICLE, "script": SCRIPT, "course": COURSE}, []
    for block in re.split(r"\n(?! )", text.strip()):  # a block ends where a line is not indented
        head, *lines = block.splitlines()
        key, origin, title = head.split(" | ")
        question = " ".join(line.strip() for line in lines)
        out.append(Exercise(key, title, origins[origin], question, _SOLVERS[key]))
    return tuple(out)


EXERCISES = _exercises(_QUESTIONS)


def get_exercise(key: str) -> Exercise:
    """The exercise with this key; ValueError listing the keys otherwise."""
    keys = [e.key for e in EXERCISES]
    if key not in keys:
        raise ValueError(f"unknown exercise {key!r}; choose one of: {', '.join(keys)}")
    return EXERCISES[keys.index(key)]
