"""Lecture 13's words (standard library only): a mixture of experts in both ledgers."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from common.formulas.predict import flat_until
from common.hw_specs import Chip
from common.present.claims import counted, direction, listing, multiple, n_of_m, ratio
from common.present.console import fmt_bw, fmt_bytes, fmt_gb, fmt_num, fmt_pct, fmt_time
from common.present.display import Figure, Group, Table, Text
from common.present.say import say
from common.tables.models import Model
from lectures.words import figure, llm_speed, section

_pct = functools.partial(fmt_pct, digits=1)  # a non-zero share never prints as 0.0%


@dataclass(frozen=True)
class Setup(llm_speed.Setup):  # lecture 06's choice of mixture, chip and storage, and the EP size
    ep: int


@dataclass(frozen=True)
class Count:  # one mixture's parameters from its config: total, active per token, its dense twin's
    model: Model
    total: int
    active: int
    twin: int
    weights: float = 0.0  # bytes of every weight at the storage precision
    per_gpu: float = 0.0  # of those on each GPU under --ep: experts split, the rest whole


@dataclass(frozen=True)
class Reach:  # expected distinct experts per MoE layer that `batch` tokens route to
    batch: int
    uniform: float  # E (1 - (1 - k / E)^B)
    skewed: float  # sum_i 1 - (1 - q_i)^B under the skew


@dataclass(frozen=True)
class Step:  # one decode step of `batch` tokens on one chip's roofs: bytes read and the bound (s)
    batch: int
    weight_bytes: float
    time: float


@dataclass(frozen=True)
class Exchange:  # dispatch and combine at one EP size: bytes per token and layer, call times (s)
    ep: int
    node_share: float  # a token's experts in its node, on another GPU
    net_share: float  # ... in other nodes
    dispatch_bytes: float
    combine_bytes: float
    dispatch: float
    combine: float
    layer: float


@dataclass(frozen=True)
class Check:  # one published DeepEP latency beside the model's (s), and whether it calibrated it
    label: str
    predicted: float
    measured: float
    calibration: bool


@dataclass(frozen=True)
class Kernel:  # the routed experts of one MoE layer at `tokens`: forecast and measured time (s)
    model: Model
    gpus: int  # the tensor-parallel shard it runs
    precision: str
    tokens: int
    reached: float  # experts reached, uniform routing
    forecast: float
    measured: float
    source: str = ""  # where the measured time stands


@dataclass(frozen=True)
class Skew:  # at one Zipf exponent: busiest expert's and GPU's load over fair, the wait (s)
    exponent: float
    expert_factor: float
    gpu_factor: float
    cost: float


def _err(c: Check) -> float:
    return c.predicted / c.measured - 1


def sizes_section(s: Setup, counts: Sequence[Count]) -> Group:
    """Total against active parameters for every mixture of the table, and the twin."""
    rows = [
        [m.name + " *" * (m == s.model), f"{m.experts_per_token} of {m.n_experts}",
         fmt_num(c.total), fmt_num(m.published_params) if m.published_params else "-",
         fmt_num(c.active), fmt_num(m.published_active) if m.published_active else "-",
         ratio(c.total / c.active, 1), fmt_num(c.twin)]
        for c in counts
        for m in [c.model]]  # fmt: skip
    me = next(c for c in counts if c.model == s.model)
    weights, per_gpu, cap = me.weights, me.per_gpu, s.chip.mem_capacity
    fits = "fit in" if per_gpu <= cap else "do not fit in"
    gap = abs(me.twin / me.active - 1)
    near = f"within {gap:.2%} of" if round(gap, 4) else "less than 0.01% away from"
    on = f", {fmt_gb(per_gpu)} on each of {s.ep} GPUs (the routed experts split, the rest whole)"
    on = on if s.ep > 1 else " on one GPU"
    columns = ["model", "experts/token", "total", "published", "active", "published"]
    columns += ["total/active", "dense twin"]
    note = f"\n* chosen with --model. Storage {s.dtypes.weights}; chip {s.chip.name}."
    title = f"1. {s.model.name}: total against active parameters"
    items = [
        f"{s.model.name} holds {fmt_num(me.total)} parameters but a token uses "
        f"{fmt_num(me.active)} of them ({_pct(me.active / me.total)}): the memory ledger pays for "
        f"{ratio(me.total / me.active, 1)} the weights the speed ledger computes with.",
        f"At {s.dtypes.weights} its weights take {fmt_gb(weights)}{on}: they {fits} the "
        f"{s.chip.name}'s {fmt_gb(cap)}.",
        f"The dense twin (every MLP as wide as the experts one token uses, the router "
        f"gone) has {fmt_num(me.twin)} parameters, {near} the mixture's active count: it "
        "computes the same per token and stores only that.",
    ]
    return section(title, Table(columns, rows), note, items=items)


def routing_section(s: Setup, reach: Sequence[Reach], per_expert: float, skew: float) -> Group:
    """Distinct experts a step reaches by batch, uniform and skewed, and their weight bytes."""
    m = s.model
    E, k = m.n_experts, m.experts_per_token
    rows = [
        [f"{r.batch:,}", f"{r.uniform:.1f}", _pct(r.uniform / E), fmt_gb(r.uniform * per_expert),
         f"{r.skewed:.1f}", fmt_gb(r.skewed * per_expert)]
        for r in reach]  # fmt: skip
    fewer = sum(f"{r.skewed:.1f}" != f"{r.uniform:.1f}" and r.skewed < r.uniform for r in reach)
    whole = [r.batch for r in reach if f"{r.uniform / E:.1%}" == "100.0%"]
    first = reach[0]
    all_at = f"Even at batch {reach[-1].batch:,} uniform routing reaches "
    all_at += f"{_pct(reach[-1].uniform / E)} of the experts, not all."
    if whole:
        all_at = f"By batch {whole[0]:,} uniform routing reaches every expert (100.0% to the digit "
        all_at += "shown): from there a step reads the whole mixture, as a dense model would."
    columns = ["batch", "experts (uniform)", "of E", "expert bytes"]
    columns += [f"experts (skew s={skew:g})", "expert bytes"]
    note = f"\nPer MoE layer, B tokens each choosing {k} of {E} experts; expert bytes are "
    note += f"over all {m.moe_layers} MoE layers ({fmt_gb(per_expert)} per expert)."
    title = "2. What a decode step reads: the experts its batch routes to"
    items = [
        f"Uniform routing (the assumption: each token picks {k} of {E} at random, "
        f"independently) reaches E (1 - (1 - k/E)^B) experts: {first.uniform:.1f} at batch "
        f"{first.batch:,}. " + all_at,
        f"Skew (popularity falling as i^-{skew:g}) reaches fewer experts at "
        f"{n_of_m(fewer, len(reach))} batches listed: tokens crowd onto the popular experts, so a "
        "step reads fewer bytes, but the busiest expert does more of the work (section 7).",
    ]
    return section(title, Table(columns, rows), note, items=items)


def step_section(s: Setup, steps: Sequence[tuple[Step, Step]], crit: tuple) -> Group:
    """A decode step's bytes and bound against batch, mixture and twin, and their knees."""
    rows = [
        [f"{a.batch:,}", fmt_gb(a.weight_bytes), fmt_time(a.time), f"{a.batch / a.time:,.0f}",
         fmt_gb(b.weight_bytes), fmt_time(b.time), f"{b.batch / b.time:,.0f}"]
        for a, b in steps]  # fmt: skip
    (moe_knee, twin_knee), ridge = crit, llm_speed.fmt_ridge(s.ridge)
    a, b = next((a, b) for a, b in steps if a.batch == s.batch)
    E_k = s.model.n_experts / s.model.experts_per_token
    if moe_knee and twin_knee:
        r = moe_knee / twin_knee
        wider = ", and its matrices, narrower than the twin's, move more activation bytes per FLOP"
        wider = wider if ratio(r, 1) != ratio(E_k, 1) and r > E_k else ""
        knees = f"The routed experts' matmuls reach the ridge of {ridge} FLOP/B at batch "
        knees += f"{moe_knee:,}, the twin's MLP at {twin_knee:,}: {ratio(r, 1)} the tokens "
        knees += f"(E/k = {E_k:g}), because each expert meets only k/E of the batch{wider}."
    else:  # one of the two reaches it (named, with its batch) or neither does
        who = "the twin's MLP reaches" if twin_knee else "the routed experts' matmuls reach"
        knees = f"At the ridge of {ridge} FLOP/B " + (
            f"only {who} it, at batch {twin_knee or moe_knee:,}." if twin_knee or moe_knee else
            "neither reaches it at any batch.")  # fmt: skip
    columns = ["batch", "MoE weights read", "MoE step >=", "MoE tok/s/GPU", "twin weights"]
    columns += ["twin step >=", "twin tok/s/GPU"]
    more = {1: "more", -1: "fewer", 0: "as many"}[direction(b.weight_bytes, a.weight_bytes, fmt_gb)]
    read = f"At batch {s.batch:,} the mixture reads {fmt_gb(a.weight_bytes)} of weights a "
    read += f"step against the twin's {fmt_gb(b.weight_bytes)} "
    x, digits = a.weight_bytes / b.weight_bytes, 2
    while more != "as many" and digits < 5 and ratio(x, digits) == ratio(1.0, digits):
        digits += 1  # 73.25 against 73.04 GB is 'more', so not x1.00: x1.003
    read += f"({ratio(x, digits)}): about the same FLOPs per token, {more} bytes"
    if more != "more":
        read += "."
    elif s.batch > 1:
        read += ", as the batch's tokens spread over more experts than one token uses."
    else:
        read += ": the router's weights, which the twin does not have."
    note = "\nStep bound: sum of max(F / P, D / beta) over the operators on one chip's roofs; "
    note += "tokens/s per GPU is B over that time\n(the step's bytes and FLOPs split evenly "
    note += "over the GPUs; dispatch and combine come in section 5)."
    title = f"3. A decode step on {s.chip.name} ({s.precision}), context {s.context:,}"
    return section(title, Table(columns, rows), note, items=[read, knees])


def ep_section(s: Setup, rows: Sequence[Exchange], node_bw: float, net_bw: float) -> Group:
    """Dispatch and combine by EP size, beside one MoE layer's bound per GPU."""
    table = [
        [f"{x.ep}" + " *" * (x.ep == s.ep), _pct(x.node_share), _pct(x.net_share),
         fmt_bytes(x.dispatch_bytes), fmt_bytes(x.combine_bytes), fmt_time(x.dispatch),
         fmt_time(x.combine), fmt_time(x.layer)]
        for x in rows]  # fmt: skip
    me = next(x for x in rows if x.ep == s.ep)
    comm = me.dispatch + me.combine
    slower = [x.ep for x in rows if x.dispatch + x.combine > x.layer]
    k = s.model.experts_per_token
    if s.ep > 1:
        sent = f"Each token sends its hidden vector to the {k} experts it chose: "
        sent += f"{fmt_bytes(me.dispatch_bytes)} out (FP8 with scales) and "
        sent += f"{fmt_bytes(me.combine_bytes)} back (BF16) per MoE layer at EP {s.ep}, the share "
        sent += "(N - 1) / N of its copies that leave its GPU."
        against = f"At EP {s.ep} dispatch and combine take {fmt_time(comm)} a layer against the "
        against += f"layer's own bound of {fmt_time(me.layer)} per GPU ({ratio(comm / me.layer)}); "
    else:
        sent = "At EP 1 every expert sits on the token's own GPU: nothing is sent or returned."
        against = "With more GPUs, "
    sizes = "EP sizes" if len(rows) > 1 else "EP size"  # an odd E has one: '--ep 3' of 27
    at_sizes = f"the exchange outlasts the layer at {n_of_m(len(slower), len(rows))} {sizes} "
    listed = "listed: the layer's own bound is longer at every size listed."
    if slower:
        listed = f"listed ({listing([str(n) for n in slower])}): there, unless it overlaps with "
        listed += "compute, it sets the step."
    columns = ["EP", "in node", "other nodes", "dispatch B/token", "combine B/token"]
    columns += ["dispatch", "combine", "layer >="]
    link, node = f"{s.chip.link_name or 'the link'} {fmt_bw(node_bw)}", s.chip.node
    where = f"{link} inside nodes of {node}, the network card {fmt_bw(net_bw)} between them"
    where = f"{link} between all of them (no node drawn)" if node is None else where
    note = f"\nPer MoE layer and GPU, B / N tokens each; {where}, plus a fixed latency a call "
    note += "(section 6). * chosen with --ep."
    title = f"5. Expert parallelism: dispatch and combine, {counted(s.batch, 'token')} a step"
    return section(title, Table(columns, table), note, items=[sent, against + at_sizes + listed])


def deepep_section(checks: Sequence[Check], tokens: int, source: str = "") -> Group:
    """The model of a call against DeepEP's published latencies, with the error."""
    rows = [
        [c.label, fmt_time(c.predicted), fmt_time(c.measured), f"{_err(c):+.0%}",
         "calibration" if c.calibration else "validation"]
        for c in checks]  # fmt: skip
    val = [c for c in checks if not c.calibration]
    worst = max(val, key=lambda c: abs(_err(c)))
    mean = sum(abs(_err(c)) for c in val) / len(val)
    items = [
        "One latency calibrates the fixed cost a call "
        f"({n_of_m(len(checks) - len(val), len(checks))} marked calibration); the other {len(val)} "
        f"only check it: mean |error| {mean:.0%}, worst {_err(worst):+.0%} ({worst.label}).",
        "The model counts bytes over the slower link and one latency; it knows nothing of "
        "the kernels' queues, so what it misses shows where the latency is not bytes.",
    ]
    title = f"6. Checked against DeepEP's published latencies (H800, {tokens} tokens a GPU)"
    cited = [f"Source: {source}"] if source else []
    return section(title, Table(["call", "model", "published", "error", "role"], rows), *cited,
                   items=items)  # fmt: skip


def kernel_section(rows: Sequence[Kernel], tolerance: float = 0.25) -> Group:
    """The forecast of the routed experts against a kernel timed alone, model by model."""
    err = lambda k: round(k.forecast / k.measured - 1, 2) + 0.0  # noqa: E731  (never -0%)
    label = lambda k: f"{k.model.name} ({k.precision}, TP {k.gpus})"  # noqa: E731
    table = [[label(k), f"{k.tokens:,}", f"{k.reached:.1f} of {k.model.n_experts}",
              fmt_time(k.forecast, "µs", 1), fmt_time(k.measured, "µs", 1), f"{err(k):+.0%}"]
             for k in rows]  # fmt: skip
    items = []
    for name in dict.fromkeys(label(k) for k in rows):
        mine = [k for k in rows if label(k) == name]
        lo, hi = min(mine, key=err), max(mine, key=err)
        close = sum(abs(err(k)) <= 0.1 for k in mine)
        said = f"{name}: the forecast is within 10% of the measured kernel at "
        said += f"{n_of_m(close, len(mine))} {'batch' if len(mine) == 1 else 'batches'}; its "
        said += f"error runs from {err(lo):+.0%} ({counted(lo.tokens, 'token')}) to "
        said += f"{err(hi):+.0%} ({counted(hi.tokens, 'token')})."
        if err(lo) == err(hi):
            said = said[: said.index("; its")] + f"; its error is {err(lo):+.0%}"
            said += " at each." if len(mine) > 1 else f" ({counted(lo.tokens, 'token')})."
        full = [i for i, k in enumerate(mine) if k.reached >= 0.99 * k.model.n_experts]
        if full and full[0] < len(mine) - 1:
            at, rest = mine[full[0]], mine[full[0] :]
            last = rest[flat_until([k.tokens for k in rest], [k.measured for k in rest], tolerance)]
            said += f" From {counted(at.tokens, 'token')}, where uniform routing reaches "
            said += f"{at.reached:.1f} of its {at.model.n_experts} experts, the measured kernel "
            word = multiple(last.forecast / at.forecast)  # 'x1.04', '1/1.02' or 'the same'
            grows = f"grows {word}" if word[0] == "x" else f"shrinks to {word}"
            grows = "does not change" if word == "the same" else grows
            said += (f"exceeds {ratio(1 + tolerance)} its time there at the next batch."
                     if last is at else
                     f"takes at most {ratio(1 + tolerance)} its time there up to "
                     f"{counted(last.tokens, 'token')} ({ratio(last.measured / at.measured)}); "
                     f"over the same tokens the forecast {grows}.")  # fmt: skip
        items.append(said)
    columns = ["model", "tokens", "experts reached", "forecast", "measured", "error"]
    note = "\nOne MoE layer's routed experts on one H100; error = forecast / measured - 1. The "
    note += "published times only check the forecast: none of them informs a term."
    cited = [f"Source: {src}" for src in dict.fromkeys(k.source for k in rows if k.source)]
    title = "4. The routed experts against vLLM's fused MoE kernel (H100)"
    return section(title, Table(columns, table), note, *cited, items=items)


def imbalance_section(s: Setup, skews: Sequence[Skew], step: float) -> Group:
    """The busiest expert's and GPU's share against the fair share, and what it costs."""
    rows = [
        [f"{x.exponent:g}", ratio(x.expert_factor), ratio(x.gpu_factor), fmt_time(x.cost),
         _pct(x.cost / step)]
        for x in skews]  # fmt: skip
    worst = skews[-1]
    spread = "on one GPU every expert shares the same GPU, so no GPU waits for another"
    if s.ep > 1:
        spread = f"dealing experts round-robin over {s.ep} GPUs brings the busiest GPU's load "
        spread += f"to {ratio(worst.gpu_factor)} the fair share"
    items = [f"At skew {worst.exponent:g} the busiest expert gets {ratio(worst.expert_factor)} "]
    items[0] += f"its fair share of tokens; {spread}."
    if s.ep > 1:
        wait = f"Every GPU waits for the busiest one: {fmt_time(worst.cost)} more a step, "
        wait += f"{_pct(worst.cost / step)} of it. Balancing placement (DeepSeek's EPLB copies "
        items.append(wait + "hot experts) attacks the GPU factor, not the expert one.")
    note = "\nCost: (f - 1) x the experts' time a step per GPU, f the busiest GPU's load over "
    note += f"the fair share; the step is {fmt_time(step)} per GPU (section 3, batch {s.batch:,})."
    head = ["skew s", "busiest expert", "busiest GPU", "cost a step", "of the step"]
    return section(f"7. Load imbalance at EP {s.ep}", Table(head, rows), note, items=items)


def moe_png(
    path: str, s: Setup, crit: tuple, pair: tuple[Step, Step], linked: bool = True
) -> Figure:
    """The saved tokens/s per GPU figure, with what to look at."""
    moe, twin = (x.batch / x.time for x in pair)
    caption = say(
        "Decode tokens/s per GPU against batch for {model} and its dense twin of the same active "
        "size on the {chip} ({dtype}, context {context}). Look at the gap between the solid lines: "
        "at batch {batch} the twin serves {ratio} the mixture's tokens, since the mixture reads "
        "more experts than one token uses until its experts turn compute-bound ({knee}){dashed}",
        model=s.model.name, chip=s.chip.name, dtype=s.precision, context=f"{s.context:,}",
        batch=f"{s.batch:,}", ratio=ratio(twin / moe),
        knee=say("batch {b}", b=f"{crit[0]:,}") if crit[0] else say("at no batch the figure shows"),
        dashed=say("; the dashed line adds dispatch and combine at EP {ep}.", ep=s.ep)
        if linked else say("."),
    )  # fmt: skip
    return figure(path, caption)


def no_link(chip: Chip) -> Text:
    """The one line that stands for section 5 when the table lists no link for `chip`."""
    return Text(f"Left out: dispatch and combine, with no link figure for the {chip.name} "
                "in common/hw_specs.py.")  # fmt: skip


def summary(s: Setup, me: Count, crit: tuple, step: Step, comm: float | None) -> Group:
    """The lines for a plan (`comm` None: the chip has no link figure, no exchange to add)."""
    per_gpu = s.batch / (step.time + s.ep * (comm or 0.0))
    step_s, per_s = fmt_time(step.time / s.ep), f"{per_gpu:,.0f} (with dispatch and combine)"
    if comm is None:
        step_s += f" (batch {s.batch:,}; dispatch and combine left out)"
        per_s = per_s.replace("with", "without")
    elif comm == 0:  # EP 1: every expert on the one GPU, nothing to exchange
        step_s += f" (batch {s.batch:,}; at EP 1 no dispatch or combine)"
        per_s = f"{per_gpu:,.0f}"
    else:
        step_s += f" + {fmt_time(comm)} dispatch and combine (batch {s.batch:,})"
    rows = [
        ["model / chip", f"{s.model.name} on {s.chip.name}, {s.precision}"],
        ["parameters total / active", f"{fmt_num(me.total)} / {fmt_num(me.active)}"],
        ["weights per GPU at EP", f"{fmt_gb(me.total * s.dtypes.w_bytes / s.ep)} (EP {s.ep})"],
        ["critical batch, experts / twin MLP", " / ".join(
            f"{c:,}" if c else "none" for c in crit)],
        [f"decode step >= per GPU, EP {s.ep}", step_s],
        ["tokens/s per GPU <=", per_s]]  # fmt: skip
    return section("Summary", Table(["quantity", "value"], rows), page="")
