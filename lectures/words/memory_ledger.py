"""Lecture 03's words (standard library only): the capacity ledger's and batch sweep's tables."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from common.formulas import ledger
from common.formulas.thresholds import Crossover
from common.present.claims import above, change, grew, listing
from common.present.console import fmt_bw, fmt_bytes, fmt_pct, fmt_rate, fmt_time
from common.present.display import Facts, Group, Heading, Observations, Table, Text
from common.present.explain import crossover_line
from common.tables.units import GIB, KIB, MIB
from lectures.words import section

Ledgers = Mapping[int, ledger.MemoryLedger]  # batch -> its four-term ledger
Row = Mapping[str, Any]  # one batch of the sweep, as the lecture saves it
_ms = functools.partial(fmt_time, unit="ms", digits=3)


@dataclass(frozen=True)
class Largest:  # the largest batch that fits at an overhead rate, its total and one more's (B)
    rate: float
    batch: int
    total: float | None  # None when not even one sequence fits
    one_more: float


@dataclass(frozen=True)
class Setup:  # the sweep's set-up: roofs P (FLOP/s), beta (B/s), I* = P / beta, W[K, K] and copies
    source: str  # where the roofs came from
    peak: float
    beta: float
    ridge: float
    width: int
    weight_bytes: float
    llc_bytes: float | None
    copies: int = 1
    cache_note: str | None = None


@dataclass(frozen=True)
class Sweep:  # the sweep's rows, ridge crossing, anomalies, calibration, bytes of W, seconds
    rows: Sequence[Row]
    crossing: Crossover | None
    ridge: float
    anomalies: Sequence[ledger.Anomaly]
    calib: Mapping[str, Any]
    weight_bytes: float
    seconds: float


def _gib(x: float) -> str:
    return f"{x / GIB:.2f}"


def _verdict(m: ledger.MemoryLedger, budget_bytes: float) -> str:
    return "fits" if m.fits(budget_bytes) else "OOM"


def _fit(batches: Sequence[int], verb: str) -> str:
    """'batch 1 fits' / 'batches 1 and 2 fit' (verb in the plural: 'fit', 'run')."""
    one = len(batches) == 1
    return f"{'batch' if one else 'batches'} {listing([str(b) for b in batches])} {verb}{'s' * one}"


def model_facts(
    spec: ledger.ModelSpec, weights: float, kv_per_token: float, kv_per_seq: float, budget: float
) -> Facts:
    """The model's weights, KV cache per token and sequence, activations and the budget."""
    n = f"{spec.n_params / 1e9:g}B"
    params = f"{n} parameters x {spec.weight_bytes:g} bytes = {weights / GIB:.1f} GiB of weights"
    kv = f"{kv_per_token / KIB:.0f} KiB per token; {_gib(kv_per_seq)} GiB per {spec.seq}-token"
    facts = [
        ("model", f"{params}; {spec.n_layers} layers, d_kv = {spec.d_kv}"),
        ("KV cache", f"{kv} sequence"),
        ("activations", f"{spec.act_bytes_per_token / KIB:.0f} KiB per active token"),
        ("memory budget", f"{budget / GIB:g} GiB")]  # fmt: skip
    return section(f"The {n} model", Facts(facts))


def ledger_table(at: Ledgers, budget: float, rate: float, phase: str = "prefill") -> Group:
    """One row per batch: weights, KV cache, activations, overhead, total (GiB), verdict."""
    cap = f"{budget / GIB:g} GiB"
    head = ["batch", "weights", "KV cache", "activations", "overhead", "total", f"{cap}?"]
    rows = [
        [b, f"{m.weights / GIB:.1f}", *map(_gib, m[1:]), _gib(m.total), _verdict(m, budget)]
        for b, m in at.items()]  # fmt: skip
    title = f"{phase.capitalize()} ledger in GiB, overhead {rate:.0%}, budget {cap}"
    return section(title, Table(head, rows))


def example_batch(at: Ledgers, budget: float) -> int:
    """The batch the sentences quote: the largest in the table that fits (else the first)."""
    return max((b for b, m in at.items() if m.fits(budget)), default=next(iter(at)))


def ledger_observations(at: Ledgers, budget: float, kv_per_sequence: float) -> Observations:
    """The weights are one term of four; the KV cache overtakes them as the batch grows."""
    fitting = [b for b, m in at.items() if m.fits(budget)]
    if fitting and (failing := [b for b in at if b not in fitting]):
        says = f"{_fit(fitting, 'fit')}; {_fit(failing, 'run')} out of memory."
        says = says[0].upper() + says[1:]
    else:
        says = "Every batch in the table fits." if fitting else "No batch in the table fits."
    m = at[b := example_batch(at, budget)]
    items = [
        f"The weights cost {m.weights / GIB:.1f} GiB at every batch size. The KV cache "
        f"grows by {_gib(kv_per_sequence)} GiB per sequence: at batch {b} it holds "
        f"{_gib(m.kv_cache)} GiB, {m.kv_cache / m.weights:.2g}x the weights.",
        f"{says} 'The weights fit, so it runs' checks one term of four."]  # fmt: skip
    return Observations(items)


def overhead(at: Ledgers, low: Ledgers, budget: float, rate: float, low_rate: float) -> Group:
    """Totals and verdicts at two overhead rates, side by side; the batches it rescues."""
    rescued = [b for b in at if not at[b].fits(budget) and low[b].fits(budget)]
    rows = [
        [b, *(c for x in (m, low[b]) for c in (_gib(x.total), _verdict(x, budget))), "OOM -> fits"]
        for b, m in at.items()]  # fmt: skip
    rows = [row if row[0] in rescued else [*row[:-1], ""] for row in rows]
    if rescued:
        b, n = rescued[0], len(rescued)
        drop = change(at[b].total, low[b].total, _gib, " GiB", ("rises", "drops", "stays at"))
        said = f"At batch {b} the total {drop}: same card, same model, and {n} more "
        said += f"{'row' if n == 1 else 'rows'} of the table {'fits' if n == 1 else 'fit'}."
    else:
        said = "No batch size in the table changes its verdict under this budget."
    head = [x for r in (rate, low_rate) for x in (f"total at {r:.0%} (GiB)", "verdict")]
    heading = Heading(f"Overhead {rate:.0%} vs {low_rate:.0%}, budget {budget / GIB:g} GiB")
    return Group(heading, Table(["batch", *head, "change"], rows), Observations([said]))


def largest(rows: Sequence[Largest], at: Ledgers, budget: float) -> Group:
    """Per overhead rate: the largest batch that fits, its total and one more's."""
    in_table = max((b for b, m in at.items() if m.fits(budget)), default=0)
    items = []
    for i, r in enumerate(rows):
        at_rate = f"At {r.rate:.0%} overhead"
        if r.batch == 0:
            items.append(f"{at_rate} not even one sequence fits this budget.")
        elif i:
            items.append(f"{at_rate} the largest batch is {r.batch}.")
        elif r.batch > in_table:
            text = f"{at_rate} the table's largest fitting row is batch {in_table}, but every "
            text += f"batch up to {r.batch} fits: the table only samples some batch sizes."
            items.append(text)
        else:
            items.append(f"{at_rate} the largest batch, {r.batch}, is a table row.")
    head = ["overhead", "largest batch", "its total (GiB)", "one more (GiB)"]
    cells = [
        [f"{r.rate:.0%}", r.batch, *("-" if x is None else _gib(x) for x in (r.total, r.one_more))]
        for r in rows]  # fmt: skip
    title = f"Largest prefill batch within {budget / GIB:g} GiB"
    return section(title, Table(head, cells), items=items)


def decode(
    prefill: Ledgers, at: Ledgers, budget: float, best: Sequence[Largest], than: Sequence[Largest]
) -> Group:
    """The decode ledger at best[0]'s rate; its largest batches beside prefill's (than)."""
    b = example_batch(prefill, budget)
    act = prefill[b].activations, at[b].activations
    shrink = change(*act, lambda x: fmt_bytes(x, True), "", ("grow", "shrink", "stay at"))
    kv_share = at[b].kv_cache / (at[b].kv_cache + at[b].activations)
    (hi, lo), n, m = best, best[0].batch, than[0].batch
    if n == m:
        fits = f"yet decode fits the same {n} sequences as prefill"
    else:
        fits = f"so decode fits {n} sequences instead of {m}"
    rates = f"{n} at {hi.rate:.0%} overhead, {lo.batch} at {lo.rate:.0%}"
    said = f"At batch {b} the activations {shrink} (prefill to decode), {fits}. The KV cache, "
    said += f"which grows with every token kept, is now {fmt_pct(kv_share)} of the variable part."
    return Group(
        ledger_table(at, budget, hi.rate, "decode"),
        Text(f"\nlargest decode batch: {rates} (prefill: {m} and {than[1].batch})"),
        Observations([said]))  # fmt: skip


def sweep_facts(s: Setup) -> Group:
    """Where the roofs came from, the roofs, the weight matrix W[K, K] and its copies."""
    llc = f" (last-level cache: {s.llc_bytes / MIB:.0f} MiB)" if s.llc_bytes else ""
    rows = [
        ("calibration", s.source),
        ("roofs", f"P = {fmt_rate(s.peak)}, beta = {fmt_bw(s.beta)}, I* = {s.ridge:.2f} FLOP/B"),
        ("weight matrix", f"[{s.width}, {s.width}] fp32 = {s.weight_bytes / MIB:.0f} MiB{llc}"),
    ]
    copies = f"{s.copies}, read in turn ({s.copies * s.weight_bytes / MIB:.0f} MiB): each call "
    rows += [("copies of W", copies + "reads a copy the cache has evicted")] * (s.copies > 1)
    note = s.cache_note and Text(f"note: {s.cache_note}; small batches may beat the bound")
    return section("Batch sweep: Y[B, K] = X[B, K] @ W[K, K], fp32", Facts(rows), note)


def raised_line(peak: float, beta: float, peak_up: float, beta_up: float) -> Text:
    """Whether the sweep ran faster than a calibrated roof, and the roofs used from here on."""
    raised = []
    if beta_up > beta:
        text = f"beta from {fmt_bw(beta)} to {fmt_bw(beta_up)} (BLAS read W on all its threads, "
        raised.append(text + "the calibration's stream ran on one)")
    if peak_up > peak:
        raised.append(f"P from {fmt_rate(peak)} to {fmt_rate(peak_up)} (a quieter moment)")
    if not raised:
        return Text("roofs: the calibration's; no batch ran faster than either roof")
    return Text("roofs raised to what the sweep itself reached: " + "; ".join(raised))


def sweep_table(s: Sweep) -> Group:
    """Per batch: F, D, I, bound, latency, throughput, prediction; the crossing, the flags."""
    head = ["B", "F (GFLOP)", "D (MB)", "I (FLOP/B)", "bound", "latency", "tokens/s"]
    at, last = {r["B"]: r["intensity"] for r in s.rows}, s.rows[-1]["B"]
    cross = crossover_line(s.crossing, at, s.ridge, "B", last, label="ridge crossing")
    flagged = [Text(f"! B={r['B']}: {r['anomaly']}") for r in s.rows if r["anomaly"]]
    lines = Group(Text("\n" + cross), *flagged, Text(f"sweep time: {s.seconds:.2f} s"))
    cells = [
        [r["B"], f"{r['flops'] / 1e9:.3f}", f"{r['bytes'] / 1e6:.2f}", f"{r['intensity']:.2f}",
         r["bound"], _ms(r["latency_s"]), f"{r['throughput_per_s']:,.0f}", _ms(r["t_pred_s"]),
         f"{r['t_pred_s'] / r['latency_s']:.0%}", "!" if r["anomaly"] else ""]
        for r in s.rows]  # fmt: skip
    return Group(Table([*head, "roofline", "of bound", ""], cells), lines)


def sweep_observations(s: Sweep) -> Observations:
    """Latency against throughput, the ridge crossing, points beating the bound, anomalies."""
    rows, crossing, anomalies, weight_bytes = s.rows, s.crossing, s.anomalies, s.weight_bytes
    by_b = {r["B"]: r for r in rows}
    first, last = rows[0], rows[-1]
    lat = grew(last["latency_s"] / first["latency_s"], 1)
    thr = grew(last["throughput_per_s"] / first["throughput_per_s"], 1)
    text = f"From B = {first['B']} to B = {last['B']}, latency {lat} while throughput {thr}. At "
    text += f"B = {last['B']} each token's share of the {weight_bytes / MIB:.0f} MiB weight read "
    items = [text + f"is {weight_bytes / last['B'] / MIB:.2f} MiB."]
    if crossing is not None and crossing.before is not None:
        text = f"The model crosses the ridge point between B = {crossing.before} and "
        text += f"B = {crossing.first}. That is where the prediction changes from a flat bandwidth "
        text += "cost to a cost growing with B; the measured curve need not bend sharply at the "
        items.append(text + "same place.")
    # beaten as printed: the roofs raised to the sweep's best put a row at 100%, not past it
    pct = "{:.0%}".format
    if over := [r for r in rows if above(r["t_pred_s"] / r["latency_s"], 1.0, pct) == "above"]:
        worst = max(over, key=lambda r: r["t_pred_s"] / r["latency_s"])
        text = f"At B = {worst['B']} the measurement beat the roofline "
        text += f"({worst['t_pred_s'] / worst['latency_s']:.0%} of the bound). The bound comes "
        text += "from a calibration, not from physics: "  # then why a point can beat it
        bw, mm = s.calib.get("bandwidth_threads"), s.calib.get("matmul_threads")
        last = "a cache holding part of W moves bytes faster than main memory."
        if worst["bound"] != "memory":
            text += "the compute roof is the rate of one calibration matmul, and BLAS runs other "
            text += "shapes faster or slower; on a shared machine both timings also vary from run "
            last = "to run."
        elif bw and mm and bw != mm:
            text += f"the bandwidth roof was measured on {bw} {'thread' if bw == 1 else 'threads'} "
            text += f"while BLAS runs {mm}; and "
        items.append(text + last)
    for a in sorted(anomalies, key=lambda a: a.batch):
        t, other = by_b[a.batch]["latency_s"], by_b[a.other]["latency_s"]
        took = f"B = {a.batch} took {fmt_time(t, 'ms', 2)}, "
        if a.kind == "throughput_drop":
            took += f"{t / other:.1f}x as long as B = {a.other} for {a.batch // a.other}x the "
            items.append(took + "tokens: throughput fell as the batch grew.")
        else:
            took += f"{t / other:.2f}x the time of the larger B = {a.other}: a bigger batch "
            items.append(took + "finished sooner.")
    if anomalies:
        text = "The roofline cannot see these: BLAS libraries switch kernels and thread splits "
        text += "with the matrix shape (a single row often takes a matrix-vector path), and other "
        text += "programs can take a core in the middle of a timing. Rerun the lecture: an anomaly "
        text += "that comes back every time belongs to the library, one that moves is noise, and "
        items.append(text + "only a profiler can tell which cause it was.")
    else:
        text = f"No batch size broke the two rules by more than {ledger.ANOMALY_TOLERANCE:.0%} on "
        text += "this run: the measured curve behaves as the model expects, even where its level "
        items.append(text + "differs.")
    text = f"The whole sweep took {s.seconds:.2f} s. The capacity ledger says how large a "
    items.append(text + "batch can be; this sweep says how large it is worth making.")
    return Observations(items)
