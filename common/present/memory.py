"""Lecture 03's tables and sentences: the capacity ledger and the measured batch sweep.

Standard library only. The functions take the ledgers the lecture computed
(``common.formulas.ledger.model_ledger`` records, keyed by batch) and the rows of
its sweep, and return display objects (``common.present.display``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from common.formulas import ledger
from common.present.console import fmt_bw, fmt_bytes, fmt_rate, fmt_time
from common.present.display import Facts, Group, Heading, Observations, Table, Text
from common.present.explain import crossover_line
from common.present.probe import built_here as built_here  # lecture 03 names its machine
from common.present.probe import measured_on as measured_on
from common.tables.units import GIB, KIB, MIB

Ledgers = Mapping[int, ledger.MemoryLedger]  # batch -> its four-term ledger


def verdict(m: ledger.MemoryLedger, budget_bytes: float) -> str:
    """'fits' when the total stays within the budget, else 'OOM'."""
    return "fits" if m.fits(budget_bytes) else "OOM"


def model_facts(
    spec: ledger.ModelSpec, weights_bytes: float, kv_per_token: float, budget_bytes: float
) -> Facts:
    """The model's weights, KV cache per token and sequence, activations and the budget."""
    return Group(
        Heading(f"The {spec.n_params / 1e9:g}B model"),
        Facts(
            [
                (
                    "model",
                    f"{spec.n_params / 1e9:g}B parameters x {spec.weight_bytes:g} bytes = "
                    f"{weights_bytes / GIB:.1f} GiB of weights; {spec.n_layers} layers, "
                    f"d_kv = {spec.d_kv}",
                ),
                (
                    "KV cache",
                    f"{kv_per_token / KIB:.0f} KiB per token; "
                    f"{kv_per_token * spec.seq / GIB:.2f} GiB per {spec.seq}-token sequence",
                ),
                ("activations", f"{spec.act_bytes_per_token / KIB:.0f} KiB per active token"),
                ("memory budget", f"{budget_bytes / GIB:g} GiB"),
            ],
        ),
    )


def ledger_table(at: Ledgers, budget_bytes: float, rate: float, phase: str = "prefill") -> Group:
    """One row per batch: weights, KV cache, activations, overhead, total (GiB), verdict."""
    budget = f"{budget_bytes / GIB:g} GiB"
    return Group(
        Heading(f"{phase.capitalize()} ledger in GiB, overhead {rate:.0%}, budget {budget}"),
        Table(
            ["batch", "weights", "KV cache", "activations", "overhead", "total", f"{budget}?"],
            [
                [
                    b,
                    f"{m.weights / GIB:.1f}",
                    f"{m.kv_cache / GIB:.2f}",
                    f"{m.activations / GIB:.2f}",
                    f"{m.overhead / GIB:.2f}",
                    f"{m.total / GIB:.2f}",
                    verdict(m, budget_bytes),
                ]
                for b, m in at.items()
            ],
        ),
    )


def example_batch(at: Ledgers, budget_bytes: float) -> int:
    """The batch the sentences quote: the largest in the table that fits (else the first)."""
    fitting = [b for b, m in at.items() if m.fits(budget_bytes)]
    return max(fitting) if fitting else next(iter(at))


def ledger_observations(at: Ledgers, budget_bytes: float, kv_per_sequence: float) -> Observations:
    """The weights are one term of four; the KV cache overtakes them as the batch grows."""
    fitting = [b for b, m in at.items() if m.fits(budget_bytes)]
    failing = [b for b, m in at.items() if not m.fits(budget_bytes)]
    if fitting and failing:
        says = f"Batches {', '.join(map(str, fitting))} fit; {', '.join(map(str, failing))} "
        says += "run out of memory."
    else:
        says = "Every batch in the table fits." if fitting else "No batch in the table fits."
    b = example_batch(at, budget_bytes)
    m = at[b]
    first = next(iter(at.values()))
    return Observations(
        [
            f"The weights cost {first.weights / GIB:.1f} GiB at every batch size. The KV cache "
            f"grows by {kv_per_sequence / GIB:.2f} GiB per sequence: at batch {b} it holds "
            f"{m.kv_cache / GIB:.2f} GiB, {m.kv_cache / m.weights:.1f}x the weights.",
            f"{says} 'The weights fit, so it runs' checks one term of four.",
        ]
    )


def overhead_table(
    at: Ledgers, low: Ledgers, budget_bytes: float, rate: float, low_rate: float
) -> Group:
    """Totals and verdicts at two overhead rates, side by side, and which batches it rescues."""
    rows = []
    for b, hi_m in at.items():
        lo_m = low[b]
        rescued = not hi_m.fits(budget_bytes) and lo_m.fits(budget_bytes)
        rows.append(
            [
                b,
                f"{hi_m.total / GIB:.2f}",
                verdict(hi_m, budget_bytes),
                f"{lo_m.total / GIB:.2f}",
                verdict(lo_m, budget_bytes),
                "OOM -> fits" if rescued else "",
            ]
        )
    return Group(
        Heading(f"Overhead {rate:.0%} vs {low_rate:.0%}, budget {budget_bytes / GIB:g} GiB"),
        Table(
            [
                "batch",
                f"total at {rate:.0%} (GiB)",
                "verdict",
                f"total at {low_rate:.0%} (GiB)",
                "verdict",
                "change",
            ],
            rows,
        ),
    )


def overhead_observations(at: Ledgers, low: Ledgers, budget_bytes: float) -> Observations:
    """The first batch the lower overhead rate rescues, or that none changes its verdict."""
    rescued = [b for b in at if not at[b].fits(budget_bytes) and low[b].fits(budget_bytes)]
    if not rescued:
        return Observations(["No batch size in the table changes its verdict under this budget."])
    b = rescued[0]
    return Observations(
        [
            f"At batch {b} the total drops from {at[b].total / GIB:.2f} to "
            f"{low[b].total / GIB:.2f} GiB: same card, same model, and one more row of the "
            "table fits."
        ]
    )


def largest_table(
    spec: ledger.ModelSpec, largest: Mapping[float, int], budget_bytes: float
) -> Group:
    """Per overhead rate: the largest batch that fits, its total, and the total of one more."""
    rows = []
    for rate, best in largest.items():
        fits_total = f"{ledger.model_ledger(spec, best, rate).total / GIB:.2f}" if best else "-"
        one_more = ledger.model_ledger(spec, best + 1, rate).total / GIB
        rows.append([f"{rate:.0%}", best, fits_total, f"{one_more:.2f}"])
    return Group(
        Heading(f"Largest prefill batch within {budget_bytes / GIB:g} GiB"),
        Table(
            ["overhead", "largest batch", "its total (GiB)", "one more (GiB)"],
            rows,
        ),
    )


def largest_observations(
    largest: Mapping[float, int], at: Ledgers, budget_bytes: float
) -> Observations:
    """Whether the table's rows hide a larger batch that fits; largest: rate -> batch."""
    (rate, best), (low_rate, low_best) = largest.items()
    in_table = max((b for b, m in at.items() if m.fits(budget_bytes)), default=0)
    if best == 0:
        note = f"At {rate:.0%} overhead not even one sequence fits this budget."
    elif best > in_table:
        note = (
            f"At {rate:.0%} overhead the table's largest fitting row is batch {in_table}, "
            f"but every batch up to {best} fits: the table only samples some batch sizes."
        )
    else:
        note = f"At {rate:.0%} overhead the largest batch, {best}, is a table row."
    return Observations([note, f"At {low_rate:.0%} overhead the largest batch is {low_best}."])


def decode_line(decode_largest: Mapping[float, int], prefill_largest: Mapping[float, int]) -> Text:
    """The largest decode batch at each overhead rate, beside the prefill ones."""
    (rate, best), (low_rate, low_best) = decode_largest.items()
    return Text(
        f"\nlargest decode batch: {best} at {rate:.0%} overhead, {low_best} at {low_rate:.0%} "
        f"(prefill: {' and '.join(str(b) for b in prefill_largest.values())})"
    )


def decode_observations(
    prefill: Ledgers,
    decode: Ledgers,
    budget_bytes: float,
    decode_best: int,
    prefill_best: int,
) -> Observations:
    """Decode keeps B tokens' activations, not B S: the KV cache is what is left to grow."""
    b = example_batch(prefill, budget_bytes)
    act_prefill, act_decode = prefill[b].activations, decode[b].activations
    return Observations(
        [
            f"At batch {b} the activations shrink from {fmt_bytes(act_prefill, binary=True)} "
            f"(prefill) to {fmt_bytes(act_decode, binary=True)} (decode), so decode fits "
            f"{decode_best} sequences instead of {prefill_best}. The KV cache, which grows "
            "with every token kept, is now almost all of the variable part.",
        ]
    )


def sweep_facts(
    calibration_note: str,
    peak: float,
    beta: float,
    width: int,
    weight_bytes: float,
    llc_bytes: float | None,
    copies: int = 1,
    cache_note: str | None = None,
) -> Group:
    """The sweep's set-up: where the roofs came from, the roofs, the weight matrix W[K, K]
    and the copies of it that keep it out of the cache."""
    llc = f" (last-level cache: {llc_bytes / MIB:.0f} MiB)" if llc_bytes else ""
    roofs = f"P = {fmt_rate(peak)}, beta = {fmt_bw(beta)}, I* = {peak / beta:.2f} FLOP/B"
    rows = [
        ("calibration", calibration_note),
        ("roofs", roofs),
        ("weight matrix", f"[{width}, {width}] fp32 = {weight_bytes / MIB:.0f} MiB{llc}"),
    ]
    if copies > 1:
        rows.append(
            (
                "copies of W",
                f"{copies}, read in turn ({copies * weight_bytes / MIB:.0f} MiB): each call "
                "reads a copy the cache has evicted",
            )
        )
    facts = Group(Heading("Batch sweep: Y[B, K] = X[B, K] @ W[K, K], fp32"), Facts(rows))
    if cache_note:
        return Group(facts, Text(f"note: {cache_note}; small batches may beat the bound"))
    return Group(facts)


def raised_line(peak: float, beta: float, peak_up: float, beta_up: float) -> Text:
    """Whether the sweep ran faster than a calibrated roof, and the roofs used from here on."""
    raised = []
    if beta_up > beta:
        raised.append(
            f"beta from {fmt_bw(beta)} to {fmt_bw(beta_up)} (BLAS read W on all its threads, "
            "the calibration's stream ran on one)"
        )
    if peak_up > peak:
        raised.append(f"P from {fmt_rate(peak)} to {fmt_rate(peak_up)} (a quieter moment)")
    if not raised:
        return Text("roofs: the calibration's; no batch ran faster than either roof")
    return Text("roofs raised to what the sweep itself reached: " + "; ".join(raised))


def sweep_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    """Per batch: F, D, I, the bound, the measured latency and throughput, the prediction."""
    return Table(
        [
            "B",
            "F (GFLOP)",
            "D (MB)",
            "I (FLOP/B)",
            "bound",
            "latency",
            "tokens/s",
            "roofline",
            "of bound",
            "",
        ],
        [
            [
                r["B"],
                f"{r['flops'] / 1e9:.3f}",
                f"{r['bytes'] / 1e6:.2f}",
                f"{r['intensity']:.2f}",
                r["bound"],
                fmt_time(r["latency_s"], unit="ms", digits=3),
                f"{r['throughput_per_s']:,.0f}",
                fmt_time(r["t_pred_s"], unit="ms", digits=3),
                f"{r['t_pred_s'] / r['latency_s']:.0%}",
                "!" if r["anomaly"] else "",
            ]
            for r in rows
        ],
    )


def sweep_lines(
    rows: Sequence[Mapping[str, Any]],
    crossing: Any,
    ridge: float,
    sweep_seconds: float,
) -> Group:
    """Where the model crosses the ridge, each flagged batch, and the sweep's time."""
    intensity_at = {r["B"]: r["intensity"] for r in rows}
    last = rows[-1]["B"]
    cross = crossover_line(crossing, intensity_at, ridge, "B", last, label="ridge crossing")
    flagged = [Text(f"! B={r['B']}: {r['anomaly']}") for r in rows if r["anomaly"]]
    return Group(Text("\n" + cross), *flagged, Text(f"sweep time: {sweep_seconds:.2f} s"))


def _why_faster(worst: Mapping[str, Any], calib: Mapping[str, Any]) -> str:
    """Why a measured point can beat a bound that comes from a calibration."""
    if worst["bound"] != "memory":
        return (
            "the compute roof is the rate of one calibration matmul, and BLAS runs other "
            "shapes faster or slower; on a shared machine both timings also vary from run "
            "to run."
        )
    bw_threads = calib.get("bandwidth_threads") or (calib.get("bandwidth") or {}).get("threads")
    mm_threads = calib.get("matmul_threads") or (calib.get("matmul") or {}).get("threads")
    if bw_threads and mm_threads and bw_threads != mm_threads:
        return (
            f"the bandwidth roof was measured on {bw_threads} "
            f"{'thread' if bw_threads == 1 else 'threads'} while BLAS runs {mm_threads}, "
            "and a cache holding part of W also moves bytes faster than memory."
        )
    return "a cache holding part of W moves bytes faster than main memory."


def sweep_observations(
    rows: Sequence[Mapping[str, Any]],
    crossing: Any,
    anomalies: Sequence[ledger.Anomaly],
    calib: Mapping[str, Any],
    weight_bytes: float,
    sweep_seconds: float,
) -> Observations:
    """Latency against throughput, the ridge crossing, points beating the bound, anomalies."""
    by_b = {r["B"]: r for r in rows}
    first, last = rows[0], rows[-1]
    items = [
        f"From B = {first['B']} to B = {last['B']}, latency grew "
        f"{last['latency_s'] / first['latency_s']:.1f}x while throughput grew "
        f"{last['throughput_per_s'] / first['throughput_per_s']:.1f}x. At B = {last['B']} each "
        f"token's share of the {weight_bytes / MIB:.0f} MiB weight read is "
        f"{weight_bytes / last['B'] / MIB:.2f} MiB.",
    ]
    if crossing is not None and crossing.before is not None:
        items.append(
            f"The model crosses the ridge point between B = {crossing.before} and "
            f"B = {crossing.first}. That is where the prediction changes from a flat bandwidth "
            "cost to a cost growing with B; the measured curve need not bend sharply at the "
            "same place."
        )
    over = [r for r in rows if r["t_pred_s"] > r["latency_s"]]
    if over:
        worst = max(over, key=lambda r: r["t_pred_s"] / r["latency_s"])
        items.append(
            f"At B = {worst['B']} the measurement beat the roofline "
            f"({worst['t_pred_s'] / worst['latency_s']:.0%} of the bound). The bound comes from "
            f"a calibration, not from physics: {_why_faster(worst, calib)}"
        )
    for a in sorted(anomalies, key=lambda a: a.batch):
        mine, other = by_b[a.batch], by_b[a.other]
        took = fmt_time(mine["latency_s"], unit="ms", digits=2)
        ratio = mine["latency_s"] / other["latency_s"]
        if a.kind == "throughput_drop":
            items.append(
                f"B = {a.batch} took {took}, {ratio:.1f}x as long as B = {a.other} for "
                f"{a.batch // a.other}x the tokens: throughput fell as the batch grew."
            )
        else:
            items.append(
                f"B = {a.batch} took {took}, {ratio:.2f}x the time of the larger "
                f"B = {a.other}: a bigger batch finished sooner."
            )
    if anomalies:
        items.append(
            "The roofline cannot see these: BLAS libraries switch kernels and thread splits "
            "with the matrix shape (a single row often takes a matrix-vector path), and other "
            "programs can take a core in the middle of a timing. Rerun the lecture: an anomaly "
            "that comes back every time belongs to the library, one that moves is noise, and "
            "only a profiler can tell which cause it was."
        )
    else:
        items.append(
            f"No batch size broke the two rules by more than {ledger.ANOMALY_TOLERANCE:.0%} on "
            "this run: the measured curve behaves as the model expects, even where its level "
            "differs."
        )
    items.append(
        f"The whole sweep took {sweep_seconds:.2f} s. The capacity ledger says how large a "
        "batch can be; this sweep says how large it is worth making."
    )
    return Observations(items)
