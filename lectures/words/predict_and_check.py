"""Lecture 11's words: predictions against measurements; every direction word (longer,
above, n of m) is computed from the numbers it describes."""

from __future__ import annotations

import functools
import statistics
from collections.abc import Sequence
from typing import NamedTuple

from common.formulas.predict import Decomposition, Roofs
from common.formulas.roofline import time_bounds
from common.hw_specs import Chip, Figure
from common.present import console
from common.present.claims import counted, multiple, n_of_m
from common.present.console import fmt_bw, fmt_bytes, fmt_flops, fmt_pct, fmt_ratio, fmt_time
from common.present.display import Facts, Group, Observations, Table, Text
from common.present.say import say
from common.tables.measurements import Measured
from lectures.words import figure as figure
from lectures.words.llm_speed import png_hint as png_hint  # lecture 11 shows it as page.png_hint

MATCH = 0.005  # a ratio within 0.5% of 1 "matches"
_ms = functools.partial(fmt_time, unit="ms", digits=2)
_pct = functools.partial(fmt_pct, digits=1)
us = functools.partial(fmt_time, unit="µs", digits=0)
BOUND_NOTE = Text(  # where the two bounds of the cases table reappear
    "The same two bounds head the next table: its first row is the bound at spec, and its "
    "first four rows add up to the bound at achievable roofs.")  # fmt: skip


def versus(measured: float, predicted: float) -> str:
    """How a measurement stands to its prediction: 'x1.42 longer than predicted' and so on."""
    r = measured / predicted
    if abs(r - 1) <= MATCH:
        return "matches the prediction"
    if r > 1:
        return f"takes {fmt_ratio(r)} the predicted time (longer)"
    return f"takes {fmt_ratio(r)} the predicted time (shorter: faster than the bound)"


class Case(NamedTuple):  # one predicted measurement: label, measurement, two predictions
    label: str
    measured: Measured
    spec: float
    achievable: float


def left_out(labels: Sequence[str]) -> list[Text]:
    """One line naming the cases left out for want of a link figure (none: no line)."""
    said = f"Left out, with no link figure in common/hw_specs.py: {'; '.join(labels)}."
    return [Text(said)] * bool(labels)


# --- Roofs -------------------------------------------------------------------
def _figures(chip: Chip, precision: str) -> tuple[Figure | None, ...]:
    """The chip's achievable compute, memory and link figures (None: none published)."""
    peak = chip.achievable_flops_table.get(precision)
    return peak, chip.achievable_mem_bw_figure, chip.achievable_link_bw_figure


def roofs_table(chip: Chip, spec: Roofs, achievable: Roofs, precision: str) -> Group:
    """Spec and achievable roofs side by side, each achievable one with its source."""
    rows, shares, cited = [], [], []
    link = "link, one way" + f" ({chip.link_name})" * bool(chip.link_name)  # none: no '()'
    roofs = (
        (f"dense {precision} matmul", spec.peak, achievable.peak, console.fmt_rate),
        ("HBM bandwidth", spec.mem_bw, achievable.mem_bw, fmt_bw),
        (link, spec.link_bw, achievable.link_bw, fmt_bw))  # fmt: skip
    for (what, s, a, fmt), fig in zip(roofs, _figures(chip, precision), strict=True):
        if s is None:  # a link figure left out of the table: what needs it sits out
            rows.append((what, "none in the table", "-", "-"))
        elif fig is None:
            rows.append((what, fmt(s), "none published (spec used)", "-"))
        else:
            rows.append((what, fmt(s), fmt(a), _pct(a / s)))
            shares.append((what, a / s))
            cited.append((f"measured {what}", fig.source + (f" ({fig.note})" if fig.note else "")))
    headers = ("roof", "spec", "achievable (measured)", "of spec")
    below = sum(share < 1 for _, share in shares)
    sit = "sits" if below == 1 else "sit"  # one of them sits; none or two of them sit
    items = [f"{below} of {len(shares)} measured roofs {sit} below their datasheet figure."]
    items += [
        f"The measured {what} is {_pct(share)} of its spec figure: a measurement above the "
        "datasheet means one of the two figures was edited or measured another chip."
        for what, share in shares
        if share > 1
    ]
    if len(shares) < 3:
        n, has = 3 - len(shares), "has" if len(shares) == 2 else "have"
        items.append(f"{n} of 3 roofs {has} no published measurement; spec stands in.")
    table = Table(headers, rows, title=f"{chip.name}: the two sets of roofs")
    return Group(table, Observations(items), Facts(cited))


# --- Whole model -------------------------------------------------------------
def cases_table(cases: Sequence[Case], title: str) -> Table:
    """Measured against both predictions, with measured / predicted ratios."""
    headers = ("case", "measured", "at spec", "ratio", "at achievable", "ratio")
    rows = [
        (c.label, _ms(t), _ms(c.spec), fmt_ratio(t / c.spec), _ms(ach), fmt_ratio(t / ach))
        for c in cases
        for t, ach in [(c.measured.seconds, c.achievable)]]  # fmt: skip
    note = "ratio = measured / predicted; at spec, at achievable: the roofline bound on those "
    note += "roofs (each operator's max(F / P, D / beta) + the all-reduces' ring bytes over the "
    note += "link)"
    return Table(headers, rows, title=title, note=note)


def shared_roofs(chip: Chip, precision: str, document: str) -> list[str]:
    """The chip's achievable roofs whose source is `document` (the measurement's own page)."""
    names = (f"{precision} matmul peak", "HBM bandwidth", "link bandwidth")
    roofs = zip(names, _figures(chip, precision), strict=True)
    return [what for what, fig in roofs if fig is not None and document in fig.source]


def cases_observations(cases: Sequence[Case], shared: Sequence[str] = ()) -> Observations:
    """How many predictions undershoot, the ratios' spread, what the achievable roofs fix."""
    spec_r = [c.measured.seconds / c.spec for c in cases]
    ach_r = [c.measured.seconds / c.achievable for c in cases]
    longer = sum(r > 1 + MATCH for r in spec_r)
    closer = sum(abs(a - 1) < abs(s - 1) for s, a in zip(spec_r, ach_r, strict=True))
    far = max(cases, key=lambda c: abs(c.measured.seconds / c.spec - 1))
    near = min(cases, key=lambda c: abs(c.measured.seconds / c.achievable - 1))
    items = [
        f"{longer} of {len(cases)} measurements take longer than the spec prediction; the "
        f"ratios run from {fmt_ratio(min(spec_r))} to {fmt_ratio(max(spec_r))}.",
        f"The widest gap is {far.label}: it {versus(far.measured.seconds, far.spec)}.",
        f"The achievable roofs bring {closer} of {len(cases)} predictions closer; the closest "
        f"is {near.label}, which {versus(near.measured.seconds, near.achievable)} at "
        "achievable roofs."]  # fmt: skip
    items += [
        f"The achievable {what} was itself measured on this benchmark: these cases are "
        "calibration, not independent checks of the figures taken from them."
        for what in shared
    ]
    return Observations(items)


def comms_observation(per_layer: float, profiled: Sequence[Measured]) -> Observations:
    """The curve's all-reduce time per layer against the range the blog's profile shows."""
    lo, hi = min(m.seconds for m in profiled), max(m.seconds for m in profiled)
    why = " The curve was measured on another machine (a DGX A100 80GB), and a tiny all-reduce's "
    why += "time is mostly synchronisation, which varies from node to node."
    if per_layer < lo:  # a factor that prints as 1.0 is 'just below', not 'at 1/1.0'
        word = multiple(per_layer / lo, 1)
        where = "just below the low end" if word == "the same" else f"at {word} of the low end"
    elif per_layer > hi:
        word = multiple(per_layer / hi, 1)
        where = "just above the high end" if word == "the same" else f"at {word} the high end"
    else:
        where, why = "inside that range", ""
    said = "Read off the measured curve at the real message, two all-reduces take "
    said += f"{fmt_time(per_layer, 'µs', 1)} per layer for decode on two GPUs; the blog's profile "
    said += f"shows {fmt_time(lo, 'µs', 0)} to {fmt_time(hi, 'µs', 0)} per layer: the curve is "
    return Observations([f"{said}{where}.{why}"], title="The all-reduce curve against a profile")


def decomposition_table(labels: Sequence[str], decomps: Sequence[Decomposition]) -> Table:
    """Each case's measured time split into the named terms and the unexplained rest."""
    names = [t.name for t in decomps[0].terms]
    rows = [(name, *(_ms(d.terms[i].seconds) for d in decomps)) for i, name in enumerate(names)]
    rows.append(("explained (sum)", *(_ms(d.explained) for d in decomps)))
    rows.append(("unexplained", *(_ms(d.unexplained) for d in decomps)))
    rows.append(("measured", *(_ms(d.measured) for d in decomps)))
    return Table(("term", *labels), rows, title="Where the time goes (ms)")


def decomposition_observations(
    labels: Sequence[str], decomps: Sequence[Decomposition], bounds: Sequence[float]
) -> Observations:
    """The largest named term per case and the share left unexplained (or the overshoot)."""
    items = []
    for label, d, bound in zip(labels, decomps, bounds, strict=True):
        extra = max(d.terms[1:], key=lambda t: t.seconds)
        share = d.unexplained / d.measured
        if d.unexplained >= 0:
            rest = f"{_pct(share)} of the measured time ({_ms(d.unexplained)}) stays unexplained"
        else:
            rest = f"the named terms overshoot the measurement by {_ms(-d.unexplained)}: the bound "
            rest += f"at achievable roofs ({_ms(bound)}) stays below it, so the terms measured "
            rest += "elsewhere (the all-reduce curve, the kernel floor) are too large for this run"
        text = f"{label}: beyond the bound at spec, the largest named term is {extra.name}, "
        items.append(text + f"{_ms(extra.seconds)}; {rest}.")
    return Observations(items)


# --- Single operators --------------------------------------------------------
class OpRow(NamedTuple):  # one timed matmul with its predictions and counts
    name: str
    n: int
    flops: float
    nbytes: float
    measured: float
    spec: float
    achievable: float


def _achieved(r: OpRow, spec: Roofs) -> str:
    """The measured rate on the binding roof: FLOP/s if compute-bound at spec, else B/s."""
    if time_bounds(r.flops, r.nbytes, spec.peak, spec.mem_bw)["bound"] == "compute":
        return console.fmt_rate(r.flops / r.measured)
    return fmt_bw(r.nbytes / r.measured)


def operator_table(rows: Sequence[OpRow], title: str, spec: Roofs) -> Group:
    """One table per matmul: per token count, measured, both predictions, ratios, achieved rate."""
    headers = ("n", "measured", "at spec", "ratio", "at achievable", "ratio", "achieved")
    tables = []
    for name in dict.fromkeys(r.name for r in rows):
        body = [
            (f"{r.n:,}", us(r.measured), us(r.spec), fmt_ratio(r.measured / r.spec), *at)
            for r in rows
            if r.name == name
            for at in [(us(r.achievable), fmt_ratio(r.measured / r.achievable), _achieved(r, spec))]
        ]
        tables.append(Table(headers, body, title=f"{title}: {name}"))
    note = "achieved: the measured kernel's FLOP/s where the spec roofline is compute-bound, its "
    return Group(*tables, Text(note + "bytes/s where memory-bound"))


def knee_observations(name: str, tokens: Sequence[int], flat: int, spec_ridge: int | None,
                      ach_ridge: int | None, tolerance: float = 0.25) -> Observations:  # fmt: skip
    """Where the measured time stops being flat against the predicted ridges."""
    lo = tokens[flat]
    hi = tokens[flat + 1] if flat + 1 < len(tokens) else None
    if hi is None:
        knee = f"stays within {fmt_pct(tolerance)} up to the largest n measured ({lo:,})"
    else:
        knee = f"stays within {fmt_pct(tolerance)} of its time at n = {tokens[0]:,} up to "
        knee += f"n = {lo:,} and has left it by n = {hi:,}"

    def where(ridge: int) -> str:
        if hi is not None and lo < ridge <= hi:
            return "inside that interval"
        if ridge <= lo:
            return "at or below the flat part's end: it stays memory-bound longer than predicted"
        return "above that interval: the kernel leaves the memory roof before the prediction says"

    said = [
        f"the {which} ridge is n = {ridge:,}, {where(ridge)}"
        if ridge is not None
        else f"the {which} roofs give no ridge"
        for which, ridge in (("spec", spec_ridge), ("achievable", ach_ridge))]  # fmt: skip
    predicted = "; ".join(said)
    if spec_ridge and ach_ridge and where(spec_ridge) == where(ach_ridge):  # one reason, once
        predicted = f"the spec ridge is n = {spec_ridge:,} and the achievable ridge "
        predicted += f"n = {ach_ridge:,}, both {where(spec_ridge)}"
    return Observations([f"The measured {name} {knee}.", f"Predicted: {predicted}."])


def beats_roof_observations(rows: Sequence[OpRow]) -> Observations:
    """Every timed kernel faster than its achievable prediction, with why that can happen."""
    faster = [r for r in rows if r.measured < r.achievable * (1 - MATCH)]
    if not faster:
        none = "No timed kernel beats its achievable prediction: the roofs hold as ceilings here."
        return Observations([none])
    which = ", ".join(f"{r.name} at n = {r.n:,} ({fmt_ratio(r.measured / r.achievable)})"
                      for r in faster)  # fmt: skip
    said = f"{n_of_m(len(faster), len(rows))} timed kernels run faster than their achievable "
    said += f"prediction: {which}. The achievable roof is the best one microbenchmark reached "
    said += "(here the same kernel's one-token time, or the best matmul shape of a search), not "
    said += "a ceiling: a neighbouring shape, a warmer cache or a lucky clock can do better."
    return Observations([said])


# --- Utilisation -------------------------------------------------------------
class Util(NamedTuple):  # MFU and MBU of one measurement, with the numerators
    label: str
    flops: float
    nbytes: float
    seconds: float
    mfu: float
    mbu: float


def utilisation_table(rows: Sequence[Util], peak: float, bw: float) -> Table:
    """Numerators, time, MFU and MBU (denominators: spec peak and spec bandwidth per GPU)."""
    headers = ("case", "model FLOPs", "bytes moved", "measured", "MFU", "MBU")
    body = [
        (u.label, fmt_flops(u.flops), fmt_bytes(u.nbytes), _ms(u.seconds), _pct(u.mfu), _pct(u.mbu))
        for u in rows]  # fmt: skip
    note = f"MFU = model FLOPs / (time x GPUs x {console.fmt_rate(peak)}); "
    note += f"MBU = bytes / (time x GPUs x {fmt_bw(bw)})"
    return Table(headers, body, title="Utilisation of the measured runs", note=note)


def utilisation_observations(rows: Sequence[Util]) -> Observations:
    """The decode counter-example: the lowest MFU can sit beside a high MBU."""
    low = min(rows, key=lambda u: u.mfu)
    high = max(rows, key=lambda u: u.mfu)
    if low.mbu > low.mfu:
        verdict = f"yet its MBU is {_pct(low.mbu)}: its memory bus is the busier resource. A "
        verdict += "low MFU there says the step is memory-bound, not that the kernels are bad."
    else:
        verdict = f"and its MBU is lower still ({_pct(low.mbu)}): neither resource is busy."
    impossible = [u.label for u in rows if u.mfu > 1 or u.mbu > 1]
    warn = [
        f"{len(impossible)} of {len(rows)} runs show a utilisation above 100% "
        f"({', '.join(impossible)}): no GPU beats its own peak, so the table's spec "
        "figure is below what the measured GPU did (an edited or a wrong figure)."
    ] * bool(impossible)
    lowest = f"The lowest MFU is {low.label} at {_pct(low.mfu)}, {verdict}"
    highest = f"The highest MFU is {high.label} at {_pct(high.mfu)} "
    highest += f"({fmt_ratio(high.mfu / low.mfu, 0)} the lowest)."
    return Observations([*warn, lowest, highest])


# --- Published requests, out of sample ---------------------------------------
class RequestRow(NamedTuple):  # one published request: measured, spec bound, forecast
    label: str
    engine: str
    gpus: int
    measured: float
    bound: float
    forecast: float
    role: str  # 'calibration' (a term was taken from it) or 'validation' (it only checks)
    chip: str = ""
    engine_class: str = "trtllm"  # the forecast's --engine
    batch: int = 1
    prompt: int = 0
    precision: str = "bf16"


WITHIN = 0.20  # "within 20%"
SHORT = 512  # a prompt of this many tokens or fewer is "short"


def _err(r: RequestRow, t: float) -> float:  # predicted / measured - 1
    return t / r.measured - 1


def requests_table(rows: Sequence[RequestRow]) -> Table:
    """Each request: its role, measured, the bound and the forecast with their signed errors."""
    body = [
        (r.label, r.engine, r.role, _ms(r.measured), _ms(r.bound), f"{_err(r, r.bound):+.1%}",
         _ms(r.forecast), f"{_err(r, r.forecast):+.1%}")
        for r in rows]  # fmt: skip
    headers = ("request (prompt + new tokens)", "engine, published by", "role", "measured",
               "bound", "error", "forecast", "error")  # fmt: skip
    classes = ", ".join(sorted({r.engine_class for r in rows}))
    note = "error = predicted / measured - 1 (negative: predicted too fast); bound: the roofline "
    note += "at spec roofs; forecast: the bound plus the terms of the row's engine class (--engine "
    note += f"{classes})"
    return Table(headers, body, title="Published requests: calibration and validation", note=note)


def requests_observations(rows: Sequence[RequestRow]) -> Observations:
    """Calibration and validation errors apart, the worst case, and the validation cases' error
    by source, chip, GPU count, batch and prompt."""
    items = []
    for role in ("calibration", "validation"):
        picked = [r for r in rows if r.role == role]
        if not picked:
            items.append(f"No {role} case is listed.")
            continue
        errs = [abs(_err(r, r.forecast)) for r in picked]
        within = n_of_m(sum(e <= WITHIN for e in errs), len(picked))
        said = f"{role.capitalize()} ({counted(len(picked), 'case')}): the forecast's median "
        said += f"absolute error is {_pct(statistics.median(errs))}, {within} within "
        said += f"{fmt_pct(WITHIN)}; the bound alone "
        items.append(said + f"{_pct(statistics.median(abs(_err(r, r.bound)) for r in picked))}.")
    below = sum(r.forecast < r.bound for r in rows)
    items.append(f"No forecast of the {len(rows)} falls below its bound, as none may.")
    if below:
        items[-1] = f"{below} of {len(rows)} forecasts fall below their bound: an engine term came "
        items[-1] += "out negative."
    errs = [_err(r, r.forecast) for r in rows]
    worst = max(range(len(rows)), key=lambda i: abs(errs[i]))
    items.append(f"The worst forecast is {rows[worst].label} at {errs[worst]:+.1%}.")
    checked = [(r, e) for r, e in zip(rows, errs, strict=True) if r.role == "validation"]
    for what, key, name in (
        ("source", lambda r: r.engine, str),
        ("chip", lambda r: r.chip, str),
        ("GPU count", lambda r: r.gpus, lambda g: counted(g, "GPU")),
        ("batch", lambda r: min(r.batch, 2), lambda g: "batch 1" if g == 1 else "batch 2 or more"),
        ("prompt", lambda r: r.prompt > SHORT,
         lambda g: f"prompt {'over' if g else 'up to'} {SHORT:,}"),
        ("precision", lambda r: r.precision, str),
    ):  # fmt: skip
        groups = sorted({key(r) for r, _ in checked if key(r) != ""})
        shown = [
            f"{name(g)} {_pct(statistics.median(picked))} ({len(picked)})"
            for g in groups
            for picked in [[abs(e) for r, e in checked if key(r) == g]]]  # fmt: skip
        if len(groups) > 1:
            said = f"By {what}, the validation cases' median absolute error (cases): "
            items.append(said + f"{'; '.join(shown)}.")
    return Observations(items)


def bulk_table(rows: Sequence[RequestRow]) -> Table:
    """The forecast's errors by chip and precision: cases, median signed and absolute error,
    and how many fall within 20%."""
    body = []
    for chip, precision in sorted({(r.chip, r.precision) for r in rows}):
        errs = [_err(r, r.forecast) for r in rows if (r.chip, r.precision) == (chip, precision)]
        within = n_of_m(sum(abs(e) <= WITHIN for e in errs), len(errs))
        body.append((chip, precision, f"{len(errs):,}", f"{statistics.median(errs):+.1%}",
                     _pct(statistics.median(abs(e) for e in errs)), within))  # fmt: skip
    headers = ("chip", "precision", "runs", "median error", "median |error|",
               f"within {fmt_pct(WITHIN)}")  # fmt: skip
    note = "error = forecast / measured - 1 (negative: predicted too fast)"
    title = "TensorRT-LLM 0.9's validation runs by chip and precision"
    return Table(headers, body, title=title, note=note)


def figure_caption(cases: Sequence[Case], op_name: str, flat_end: int, ridge: int | None) -> str:
    """What to look at in lecture 11's figure, from the numbers it plots."""
    return say(
        "Top: each 13B case measured (grey) beside its predictions at spec peaks and at "
        "achievable roofs; {above} of {cases} measured bars stand above even the achievable "
        "prediction. Bottom: the measured {op} (dots) stays flat up to n = {flat_end}, while the "
        "weights dominate its bytes, then rises with n; the spec ridge sits at {ridge}.",
        above=sum(c.measured.seconds > c.achievable for c in cases),
        cases=len(cases),
        op=op_name,
        flat_end=f"{flat_end:,}",
        ridge=f"n = {ridge:,}" if ridge else say("no n (no ridge)"))  # fmt: skip


def sources_text(sources: Sequence[str]) -> Group:
    """The distinct sources of the numbers on the page, one paragraph each."""
    return Group(*(Text(source) for source in dict.fromkeys(sources)))
