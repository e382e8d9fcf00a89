"""Lecture 12's words: its tables, captions and sentences, from the records it fills."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from common.measure.torch_roofs import LEDGER_OPS, OpStat, Roofs
from common.present import claims
from common.present.console import fmt_bw, fmt_bytes, fmt_flops, fmt_pct, fmt_rate, fmt_time
from common.present.display import Observations, Table, Text
from common.present.say import say
from common.shell.paths import display_path
from common.tables.assumptions import ACT_VECTORS_PER_TOKEN
from common.tables.models import Model

NEEDS_TORCH = (
    "12_profiler_vs_ledger.py needs PyTorch (the course's 'profile' extra): run "
    '`make profile`, or `pip install -e ".[profile]"`; the README says how to get the CPU build'
)


def _against(value: float, ledger: float, fmt=fmt_bytes) -> str:
    """'x1.86 as much as the ledger's 9.61 MB', or 'the same as the ledger's 9.61 MB'."""
    return f"{claims.than(value / ledger)} the ledger's {fmt(ledger)}"


def _pct(share: float) -> str:
    """A share of a bound: '25%', or one decimal below 10% so that it never prints '0%'."""
    return fmt_pct(share, 1 if share < 0.1 else 0)


@dataclass(frozen=True)
class Setup:  # the profiled model, its workload and the roofs measured for each precision
    model: Model
    prompt: int
    steps: int
    device: str
    threads: int
    roofs: Sequence[Roofs]


def setup_table(s: Setup) -> Table:
    """The roofs per precision, titled with the model's shapes and the workload."""
    m = s.model
    title = f"{m.name}: {m.n_layers} layer(s), d_model {m.d_model:,}, {m.n_heads} query heads, "
    title += f"{m.n_kv_heads} KV head(s) of {m.d_head}, d_ff {m.d_ff:,}, vocabulary "
    title += f"{m.vocab_size:,}; a {s.prompt}-token prompt and {s.steps} decode steps on the "
    title += f"{s.device.upper()} ({s.threads} torch threads)"
    rows = [(r.precision, fmt_rate(r.peak), f"{r.matmul_n:,}", fmt_bw(r.bw),
             fmt_bytes(r.stream_bytes), f"{r.ridge:.1f}") for r in s.roofs]  # fmt: skip
    headers = ("precision", "matmul roof", "its n", "streaming roof", "its bytes", "ridge FLOP/B")
    return Table(headers, rows, title)


def _run(steps: int) -> str:
    return f"the whole run (prompt pass and {steps} decode steps)"


def profiler_table(events: Sequence, device: bool, steps: int, limit: int = 10) -> Table:
    """key_averages(group_by_input_shape=True)'s `limit` rows of most self time (µs)."""
    kind = "device" if device else "cpu"
    own = [getattr(e, f"self_{kind}_time_total") for e in events]
    whole = sum(own)
    top = sorted(zip(own, events, strict=True), key=lambda pair: -pair[0])[:limit]
    rows = [(e.key, str(e.input_shapes), fmt_time(us / 1e6), fmt_pct(us / whole, 1), e.count,
             fmt_time(getattr(e, f"{kind}_time_total") / 1e6),
             fmt_flops(e.flops) if e.flops else "-") for us, e in top]  # fmt: skip
    headers = ("operator", "input shapes", "self time", "self %", "calls", "total time", "FLOPs")
    title = f"The profiler's {len(rows)} rows of most self {kind.upper()} time, fp32, {_run(steps)}"
    note = "self: in the operator itself; total: with the operators it called."
    return Table(headers, rows, title, note)


@dataclass(frozen=True)
class Timeline:  # the saved trace, the prompt pass's length and the part of it an operator covered
    path: str | os.PathLike[str]
    pass_us: float
    busy_us: float
    events: int


def timeline_caption(t: Timeline) -> str:
    """The figure's caption: what the gaps are and how long the pass took."""
    return say(
        "Each bar is one call of a ledger operator during the {time} prompt "
        "pass. No operator ran for {idle} of it: look for the white gaps between bars.",
        time=fmt_time(t.pass_us / 1e6),
        idle=fmt_pct(1 - t.busy_us / t.pass_us))  # fmt: skip


def timeline_text(t: Timeline) -> Text:
    saved = f"The trace ({t.events:,} events) is saved as ``{display_path(t.path)}``: open it in "
    return Text(saved + "ui.perfetto.dev or chrome://tracing to zoom into every call.")


@dataclass(frozen=True)
class OpRow:  # one ledger operator of the prompt pass: its counts and bound, the trace's time
    name: str
    calls: int
    flops: float
    nbytes: float
    bound_s: float
    measured_s: float

    @property
    def explained(self) -> float:  # the share of the measured time the bound accounts for
        return self.bound_s / self.measured_s


def operator_table(rows: Sequence[OpRow], r: Roofs) -> Table:
    cells = [(o.name, o.calls, fmt_flops(o.flops), fmt_bytes(o.nbytes),
              claims.side(o.flops / o.nbytes, r.ridge), fmt_time(o.bound_s),
              fmt_time(o.measured_s), _pct(o.explained)) for o in rows]  # fmt: skip
    headers = ("operator", "calls", "FLOPs", "bytes", "bound", "ledger bound", "measured",
               "% of bound")  # fmt: skip
    title = f"fp32 prompt pass at the torch roofs ({fmt_rate(r.peak)}, {fmt_bw(r.bw)})"
    return Table(headers, cells, title, "% of bound: the ledger's bound over the measured time.")


def operator_observations(
    rows: Sequence[OpRow], stats: Sequence[OpStat], steps: int
) -> Observations:
    far, near = min(rows, key=lambda o: o.explained), max(rows, key=lambda o: o.explained)
    beat = [o for o in rows if o.explained > 1]
    total_bound, total = sum(o.bound_s for o in rows), sum(o.measured_s for o in rows)
    aten = [s for s in stats if s.name.startswith("aten::")]
    other = sorted((s for s in aten if s.name not in LEDGER_OPS), key=lambda s: -s.self_us)
    self_total = sum(s.self_us for s in aten)
    top = [f"``{s.name}`` {fmt_pct(s.self_us / self_total, 1)}" for s in other[:4]]
    return Observations([
            f"Furthest from its bound: {far.name}, which reached {_pct(far.explained)} of "
            f"it ({fmt_time(far.measured_s)} against {fmt_time(far.bound_s)}); closest: "
            f"{near.name} at {_pct(near.explained)}.",
            f"Summed over the prompt pass's operators the bound is {fmt_time(total_bound)} of the "
            f"{fmt_time(total)} they took: the ledger explains {_pct(total_bound / total)}.",
            f"Over {_run(steps)}, operators the ledger has no row for took "
            f"{fmt_pct(sum(s.self_us for s in other) / self_total)} of the operators' own "
            f"time, the largest {claims.listing(top)}: layout copies (``repeat_interleave`` "
            "for the shared KV heads), the mask, tensors made on the way.",
    ] + ([f"{claims.n_of_m(len(beat), len(rows)).capitalize()} operators ran faster than "
          f"their bound ({claims.listing([o.name for o in beat])}): a roof was measured below "
          "what the machine can do, as on a busy machine."] if beat else []))  # fmt: skip


@dataclass(frozen=True)
class FlopCount:  # the run's FLOPs by the ledger and by with_flops, and the prompt pass's MFU
    ledger_flops: float
    profiler_flops: float
    profiler_mm_flops: float
    profiler_bmm_flops: float
    ledger_matmul_flops: float
    ledger_attention_flops: float
    prefill_flops: float
    prefill_s: float
    peak: float
    steps: int  # the run: the prompt pass and this many decode steps


def flops_observations(f: FlopCount) -> Observations:
    rate = f.prefill_flops / f.prefill_s
    products = f.profiler_mm_flops + f.profiler_bmm_flops
    return Observations([
            f"Over {_run(f.steps)} ``with_flops`` counted {fmt_flops(f.profiler_flops)}, "
            f"{fmt_pct(f.profiler_flops / f.ledger_flops)} of the ledger's "
            f"{fmt_flops(f.ledger_flops)} for that run; matrix products are "
            f"{fmt_pct(products / f.profiler_flops, 1)} of its count.",
            f"Its weight matmuls (``aten::mm``) come to {fmt_flops(f.profiler_mm_flops)}, "
            f"{_against(f.profiler_mm_flops, f.ledger_matmul_flops, fmt_flops)}; its attention "
            f"products (``aten::bmm``), {fmt_flops(f.profiler_bmm_flops)}, are "
            f"{_against(f.profiler_bmm_flops, f.ledger_attention_flops, fmt_flops)}, which "
            "counts only the query-key pairs the causal mask keeps.",
            f"MFU of the prompt pass: the ledger's {fmt_flops(f.prefill_flops)} for the prompt "
            f"pass alone in {fmt_time(f.prefill_s)} is {fmt_rate(rate)}, "
            f"{fmt_pct(rate / f.peak, 1)} of the matmul roof. A count that includes masked work, "
            "or misses the softmax and the norms, would give another MFU for the same model: take "
            "the model's FLOPs and the wall time."])  # fmt: skip


@dataclass(frozen=True)
class Phase:  # one pass (prefill, or the last decode step) in one precision: ledger, time, memory
    name: str
    precision: str
    tokens: int
    flops: float
    nbytes: float
    bound_s: float
    measured_s: float
    ridge: float
    peak_bytes: int  # the profiler's allocations during the pass, above the start
    activations: float  # the capacity ledger's activations for the pass
    kv_cache: float  # the capacity ledger's KV cache
    kv_allocated: int  # the cache tensors the run allocated


def phase_table(phases: Sequence[Phase]) -> Table:
    rows = [(p.name, p.precision, f"{p.flops / p.nbytes:.1f}",
             claims.side(p.flops / p.nbytes, p.ridge), fmt_time(p.bound_s),
             fmt_time(p.measured_s), _pct(p.bound_s / p.measured_s), fmt_bytes(p.peak_bytes),
             fmt_bytes(p.activations)) for p in phases]  # fmt: skip
    headers = ("pass", "dtype", "FLOP/B", "side", "bound", "measured", "% bound", "peak alloc",
               "activations")  # fmt: skip
    return Table(headers, rows, "Prefill and the last decode step")


def phase_observations(phases: Sequence[Phase]) -> Observations:
    pre, dec = phases[0], phases[1]
    i_dec = dec.flops / dec.nbytes
    items = [
        f"A decode step does {fmt_pct(dec.flops / pre.flops, 2)} of the prompt pass's FLOPs but "
        f"moves {fmt_pct(dec.nbytes / pre.nbytes)} of its bytes: at {i_dec:.1f} FLOP/B against "
        f"a ridge of {dec.ridge:.1f} it is {claims.side(i_dec, dec.ridge)}.",
        f"Per token, a decode step took {fmt_time(dec.measured_s)} and the prompt pass "
        f"{fmt_time(pre.measured_s / pre.tokens)}: "
        f"{claims.times(dec.measured_s * pre.tokens / pre.measured_s)} time for a token decoded "
        "alone, which reads every weight for itself.",
        f"The KV cache the run allocated, {fmt_bytes(dec.kv_allocated)}, is "
        f"{_against(dec.kv_allocated, dec.kv_cache)} (capacity ledger); during the prompt pass "
        f"the profiler saw allocations peak {fmt_bytes(pre.peak_bytes)} above its start, "
        f"{_against(pre.peak_bytes, pre.activations)} for activations "
        f"({ACT_VECTORS_PER_TOKEN} d_model values a token)."]  # fmt: skip
    if len(phases) > 2:
        bf = next(p for p in phases if p.precision != pre.precision and p.name == pre.name)
        text = f"In {bf.precision} the prompt pass went "
        text += f"{claims.speed(pre.measured_s, bf.measured_s)} than in {pre.precision}; its bound "
        items.append(text + f"went {claims.speed(pre.bound_s, bf.bound_s)}.")
    return Observations(items)
