"""Lecture 14's words: continuous batching, speculation, disaggregation, cost and a fleet
(standard library only; every comparison is decided by ``common.present.claims``)."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from common.hw_specs import Chip
from common.present import claims
from common.present.claims import change, counted, listing, ratio, regime, speed, than, times
from common.present.console import fmt_pct, fmt_time
from common.present.display import Figure, Group, Observations, Table
from common.present.say import say
from common.tables.assumptions import BATCH_SEARCH_LIMIT
from common.tables.measurements import Fleet
from common.tables.models import Model
from lectures.words import figure, section
from lectures.words.llm_speed import png_hint as png_hint

#: Acceptance rates and draft lengths of the speculation table.
ACCEPTANCES = (0.6, 0.8, 0.9)
DRAFTS = (1, 2, 3, 4, 5)
#: Request shapes of the disaggregation table besides the flags' (prompt, output).
SHAPES = ((512, 2048), (1024, 1024), (4096, 256), (8192, 512))
#: The largest batch that fits, or 'at least' it where the search stopped at its bound.
_wall = functools.partial(claims.at_least, limit=BATCH_SEARCH_LIMIT)


@dataclass(frozen=True)
class Setup:  # the flags, and what they fix: the GPUs that hold the model and a decoding cache
    model: Model
    chip: Chip
    gpus: int  # the fewest (a power of two) whose memory holds the model
    price: float  # $ per GPU-hour
    prompt: int
    output: int
    batch: int  # sequences decoding together
    budget: int  # tokens a continuous-batching step takes
    context: int  # a decoding sequence's cache: prompt + output / 2
    ridge: float  # FLOP/byte at bf16


@dataclass(frozen=True)
class Step:  # one continuous-batching step: a prefill chunk of `chunk` tokens beside the batch
    chunk: int
    seconds: float  # its time bound: every decoding sequence's time per output token
    intensity: float  # its FLOP/byte


@dataclass(frozen=True)
class Chunked:  # the prompt in chunks of up to the table's largest chunk, against it in one pass
    chunk: int  # the largest chunk a step takes
    steps: int  # steps the prompt takes in chunks
    seconds: float  # those steps' bounds summed: the time to first token, chunked
    longest: float  # the longest of those steps: what a decode token waits at most
    alone: float  # seconds of the prompt's pass on its own


@dataclass(frozen=True)
class Draft:  # K draft tokens: verify cost (steps); per ACCEPTANCES tokens a step, speed-up
    draft: int
    verify: float
    tokens: tuple[float, ...]
    speedup: tuple[float, ...]


@dataclass(frozen=True)
class MTP:  # DeepSeek-V3's multi-token prediction: the acceptance its published speed-up implies
    batch: int  # decode sequences per GPU the verify cost is taken at
    draft_cost: float  # decode steps per draft token (one block of the model's layers)
    verify: float  # decode steps per verify pass of two tokens
    implied: float | None  # the acceptance giving the published speed-up at those costs
    plain: float | None  # the same with a free draft and a verify of one step
    best: float  # the speed-up at a = 1 with these costs
    published: tuple[float, float]  # the report's acceptance range
    speedup: float  # the report's tokens-per-second gain


@dataclass(frozen=True)
class Balance:  # a request's GPU-seconds in prefill and decode, the P:D balancing them
    prompt: int
    output: int
    prefill_s: float
    decode_s: float
    ratio: float  # prefill GPUs per decode GPU


@dataclass(frozen=True)
class Cost:  # a model on the GPUs that hold it: $/M input (prefill) and $/M output against batch
    model: Model
    gpus: int  # 0: no count up to serving.MAX_GPUS holds it
    wall: int
    context: int
    input_usd: float  # $/M prompt tokens, the prompt alone in one pass
    curve: tuple[tuple[int, float], ...]  # (batch, $/M output tokens) up to the wall

    def at(self, batch: int) -> float | None:
        """$/M output at `batch` as the curve has it; None past the wall or off the curve."""
        return dict(self.curve).get(batch)


@dataclass(frozen=True)
class FleetCheck:  # a fleet's published day against the node-hours and cost its rates imply
    fleet: Fleet
    prefill_hours: float  # node-hours: input tokens / prefill rate per node
    decode_hours: float  # node-hours: output tokens / decode rate per node
    input_usd: float  # $/M input tokens at the price and prefill rate
    output_usd: float  # $/M output tokens at the price and decode rate
    hit_share: float  # the published cache-hit share (checked against the token counts)


def chunk_sizes(room: int) -> list[int]:
    """The chunks of the continuous-batching table: none, powers of two from 64, the room."""
    return [0, *(c for c in (64, 128, 256, 512, 1024, 2048, 4096) if c < room), room]


def request_shapes(prompt: int, output: int, window: int) -> list[tuple[int, int]]:
    """The flags' (prompt, output), then SHAPES, each within the window, none twice."""
    shapes = [(prompt, output), *SHAPES]
    return list(dict.fromkeys((p, o) for p, o in shapes if p + o - 1 <= window))


def _usd(x: float) -> str:
    """Dollars: '$0.123', '$12.35'; below half a tenth of a cent three significant digits
    ('$0.00000249')."""
    if 0 < x < 0.0005:  # --price 1e-9 printed every price as $0.000
        return f"${x:.{2 - math.floor(math.log10(x))}f}"
    return f"${x:,.3f}" if x < 1 else f"${x:,.2f}"


def _grows(before: float, after: float) -> str:
    """How a step's time moved: 'grows from a to b (x1.05 slower)', 'stays at a (no slower)'."""
    slower = speed(before, after, shown=fmt_time).replace("no faster", "no slower")
    return f"{change(before, after, fmt_time, words=('grows', 'shrinks', 'stays at'))} ({slower})"


def _on(s: Setup) -> str:
    return f"{s.model.name} on {s.gpus} x {s.chip.name}"


def chunking_section(s: Setup, rows: Sequence[Step], chunked: Chunked) -> Group:
    """Steps with growing prefill chunks beside the decode batch: TPOT and throughputs."""
    B = s.batch
    table = [
        [f"{r.chunk:,}", f"{B:,}", fmt_time(r.seconds), f"{r.chunk / r.seconds:,.0f}",
         f"{B / r.seconds:,.0f}", f"{r.intensity:,.0f}"]
        for r in rows]  # fmt: skip
    none, first, full = rows[0], rows[1], rows[-1]
    per_token = (full.seconds - none.seconds) / full.chunk  # what a prompt token adds
    alone = chunked.alone / s.prompt
    columns = ["prefill chunk", "decode", "step = TPOT >=", "prefill tok/s", "decode tok/s"]
    columns += ["FLOP/byte"]
    grows = f"A chunk of {counted(first.chunk, 'prompt token')} beside the "
    grows += f"{counted(B, 'decode token')}: the step {_grows(none.seconds, first.seconds)}"
    if full is not first:
        grows += f"; filling the budget with {full.chunk:,}, it "
        grows += _grows(none.seconds, full.seconds)
    grows += ". Every decoding sequence waits for the whole step: that is its time per output "
    grows += "token."
    title = f"1. Continuous batching: {counted(B, 'decode token')} and a prefill chunk, budget "
    title += f"{s.budget:,} ({_on(s)}, caches at {s.context:,})"
    items = [
        grows,
        f"The decode-only step runs at {none.intensity:,.0f} FLOP/byte, "
        f"{regime(none.intensity, s.ridge)} (ridge {s.ridge:,.0f}); the full step at "
        f"{full.intensity:,.0f}, {regime(full.intensity, s.ridge)}. Mixed in, a prompt token adds "
        f"{fmt_time(per_token)} to the step, {than(per_token / alone, 'GPU time')} the "
        f"{fmt_time(alone)} it takes in a prompt pass of its own.",
        f"Unchunked, the {s.prompt:,}-token prompt is one pass of {fmt_time(chunked.alone)}, and "
        f"the decoding sequences wait {fmt_time(chunked.alone + none.seconds)} for one token. In "
        f"chunks of up to {chunked.chunk:,} it takes {counted(chunked.steps, 'step')}, a time to "
        f"first token of at least {fmt_time(chunked.seconds)}, and no decode token waits more than "
        f"{fmt_time(chunked.longest)}."]  # fmt: skip
    return section(title, Table(columns, table), items=items)


def speculation_section(s: Setup, rows: Sequence[Draft]) -> Group:
    """Tokens per verify step and net speed-up by draft length and acceptance rate."""
    head = [f"E (a={a:.1f})" for a in ACCEPTANCES] + [f"x (a={a:.1f})" for a in ACCEPTANCES]
    table = [
        [f"{r.draft}", f"{r.verify:.3f}", *(f"{e:.2f}" for e in r.tokens),
         *(ratio(x) for x in r.speedup)]
        for r in rows]  # fmt: skip
    mid = ACCEPTANCES.index(0.8)
    best, first, last = max(rows, key=lambda r: r.speedup[mid]), rows[0], rows[-1]
    peak = f"At a = 0.8 the speed-up still rises at K = {last.draft} ({ratio(last.speedup[mid])})."
    if best is not last:
        peak = f"At a = 0.8 the speed-up peaks at K = {best.draft} ({ratio(best.speedup[mid])}) "
        peak += f"and falls to {ratio(last.speedup[mid])} at K = {last.draft}: all K drafts are "
        peak += "accepted only with probability a^K, while each costs c and widens the verify pass."
    verify = f"The verify pass costs {first.verify:.3f} decode steps at K = {first.draft} "
    verify += f"and {last.verify:.3f} at K = {last.draft}: at batch {s.batch:,} a step of "
    verify += f"{first.draft + 1} to {last.draft + 1} tokens a sequence "
    if claims.direction(1.0, last.verify, "{:.2f}".format) == 0:
        verify += "still rides on the weight reads."
    else:
        verify += "adds FLOPs and attention the weight reads no longer hide."
    title = f"2. Speculative decoding ({_on(s)}, batch {s.batch:,}, a one-layer draft head: "
    title += f"c = 1/{s.model.n_layers})"
    return section(title, Table(["draft K", "verify v", *head], table), items=[peak, verify])


def mtp_observations(m: MTP) -> Observations:
    """What DeepSeek-V3's published speed-up implies for the acceptance, against its range."""
    lo, hi = m.published
    mid, gain = (lo + hi) / 2, ratio(m.speedup, 1)
    pct = functools.partial(fmt_pct, digits=1)

    def implied(a: float, middle: str = "") -> str:
        """'a = 80.0%, below the published range (against its middle: -7.5%).'"""
        where = "below" if claims.direction(lo, a, pct) < 0 else "inside"
        where = "above" if claims.direction(hi, a, pct) > 0 else where  # never both: lo <= hi
        said = f"a = {pct(a)}, {where} the published range (against its middle{middle}: "
        return said + f"{a - mid:+.1%})."

    plain = f"DeepSeek-V3's technical report gives {gain} tokens per second from one "
    plain += f"multi-token-prediction draft, with a second-token acceptance of {pct(lo)} to "
    plain += f"{pct(hi)}. With a free draft and a verify pass of one step, {gain} implies "
    if m.plain is None:
        plain += "no acceptance at all: one draft token gives at most x2.00."
    else:
        plain += implied(m.plain, f", {pct(mid)}")
    costs = f"Once the module costs c = {m.draft_cost:.4f} and the verify pass what the ledger "
    costs += f"gives at {m.batch:,} sequences a GPU ({m.verify:.3f} decode steps), "
    if m.implied is not None:
        costs += f"{gain} implies {implied(m.implied)}"
    else:
        costs += f"even a = 1 gives only {ratio(m.best)}, short of the published {gain}: "
        costs += "the bound's verify pass costs more than DeepSeek's engine paid."
    checks = "Built from the speed-up; the acceptance range only checks it."
    return Observations([plain, costs, checks])


def disaggregation_section(s: Setup, rows: Sequence[Balance]) -> Group:
    """GPU-seconds per request in each phase and the prefill:decode ratio that balances them."""
    table = [
        [f"{r.prompt:,}", f"{r.output:,}", fmt_time(r.prefill_s), fmt_time(r.decode_s),
         f"{r.ratio:.3f}", fmt_pct(r.ratio / (1 + r.ratio), 1)]
        for r in rows]  # fmt: skip
    mine, hi, lo = rows[0], max(rows, key=lambda r: r.ratio), min(rows, key=lambda r: r.ratio)
    token = (mine.prefill_s / mine.prompt) / (mine.decode_s / mine.output)
    title = f"3. Prefill/decode disaggregation ({_on(s)} per replica, decode batch {s.batch:,})"
    head = ["prompt", "output", "prefill GPU-s", "decode GPU-s", "P:D", "prefill share"]
    items = [
        f"A {hi.prompt:,}-token prompt with {counted(hi.output, 'output token')} needs "
        f"{hi.ratio:.3f} prefill GPUs per decode GPU; a {lo.prompt:,}-token prompt "
        f"with {lo.output:,} needs {lo.ratio:.3f}. The ratio follows the prompt over "
        "the output, scaled by what a token costs in each phase.",
        f"For the flags' request a prompt token takes {fmt_time(mine.prefill_s / mine.prompt)} of "
        f"GPU time and an output token {fmt_time(mine.decode_s / mine.output)} at batch "
        f"{s.batch:,}: a prompt token costs {times(token)}. A bigger decode batch makes output "
        "tokens cheaper and moves GPUs to prefill."]  # fmt: skip
    return section(title, Table(head, table), items=items)


def cost_label(c: Cost) -> str:
    """A model's curve in the figure: 'Llama-3-8B (dense, 1 GPU)'."""
    kind = say("mixture of experts") if c.model.n_experts else say("dense")
    if c.gpus > 1:
        return say("{model} ({kind}, {gpus} GPUs)", model=c.model.name, kind=kind, gpus=c.gpus)
    return say("{model} ({kind}, {gpus} GPU)", model=c.model.name, kind=kind, gpus=c.gpus)


def cost_section(s: Setup, costs: Sequence[Cost]) -> Group:
    """$/M input and output tokens for the model and its partner on the GPUs that hold them."""
    B = s.batch

    def cell(x: float | None) -> str:
        return _usd(x) if x else "-"

    table = [
        [c.model.name, f"{c.gpus:,}" if c.gpus else "none", _wall(c.wall), cell(c.input_usd),
         cell(c.at(1)), *[cell(c.at(B))] * (B > 1), cell(c.at(c.wall))]
        for c in costs]  # fmt: skip
    items = []
    a, b = costs
    if a.at(1) and b.at(1):
        cheap1 = min((a, b), key=lambda c: c.at(1))
        tie1 = _usd(a.at(1)) == _usd(b.at(1))  # the claim follows the prices as printed
        one = f"At batch 1, {a.model.name} costs {_usd(a.at(1))} per million output tokens and "
        one += f"{b.model.name} {_usd(b.at(1))}: "
        one += "the same at the digits shown." if tie1 else f"{cheap1.model.name} is cheaper."
        if cheap1.model.n_experts and not tie1:
            one += " A step for one token reads all of a dense model's weights but only the "
            one += "chosen experts of a mixture."
        items.append(one)
    both = min(B, a.wall, b.wall)
    if both > 1 and all(c.at(x) for c in (a, b) for x in (1, both)):
        cheap = min((a, b), key=lambda c: c.at(both))
        order = f"At batch {both:,}, the largest both hold up to {B:,}, the prices are "
        order += f"{_usd(a.at(both))} and {_usd(b.at(both))}: "
        if _usd(a.at(both)) == _usd(b.at(both)):
            order += "the same at the digits shown."
        elif tie1:  # no order at batch 1 to keep or flip
            order += f"{cheap.model.name} is cheaper."
        elif cheap is cheap1:  # cheaper at batch 1 too
            order += f"{cheap.model.name} is still cheaper."
        else:
            order += f"the order flips and {cheap.model.name} is cheaper."
            if not cheap.model.n_experts:
                order += " A mixture's batch touches more of its experts the larger it grows, "
                order += "while a dense model reads the same weights at any batch."
        items.append(order)
    if a.at(B) and a.input_usd:
        cheaper = times(a.input_usd / a.at(B))
        prompt = f"A prompt token of {a.model.name} costs {_usd(a.input_usd)} per million "
        prompt += f"against {_usd(a.at(B))} for an output token at batch {B:,}, {cheaper}"
        if cheaper.startswith("1/"):
            prompt += ": prefill fills the matmuls in one pass"
        prompt += f". At its wall ({_wall(a.wall)}) an output token costs {_usd(a.at(a.wall))}."
        items.append(prompt)
    columns = ["model", "GPUs", "wall", "$/M in", "$/M out B=1"]
    columns += [f"$/M out B={B:,}"] * (B > 1)  # the flags' batch, unless it is the column before
    columns += ["$/M out at wall"]
    title = f"4. Cost per million tokens at ${s.price:g} per GPU-hour on {s.chip.name}"
    return section(title, Table(columns, table), items=items)


def _err(course: float, published: float) -> str:
    return f"{course / published - 1:+.2%}"


def fleet_section(c: FleetCheck) -> Group:
    """The fleet's node-hours and cost from its token counts and rates, against its figures."""
    f = c.fleet
    hit, miss, out = f.prices
    needed = c.prefill_hours + c.decode_hours  # node-hours at the published per-node rates
    had = f.nodes_average * f.hours  # node-hours the fleet ran
    cost = needed * f.gpus_per_node * f.price_per_gpu_hour
    uncached = f.input_tokens - f.cached_input_tokens
    revenue = (f.cached_input_tokens * hit + uncached * miss + f.output_tokens * out) / 1e6
    margin = revenue / cost - 1
    errors = [abs(needed / had - 1), abs(cost / f.daily_cost - 1)]
    rows = [
        ["node-hours", f"{needed:,.0f}", f"{had:,.0f}", _err(needed, had),
         f"{f.nodes_average:g} nodes x {f.hours:g} h"],
        ["daily cost", f"${cost:,.0f}", f"${f.daily_cost:,.0f}", _err(cost, f.daily_cost),
         "published cost"],
        ["revenue at R1 prices", f"${revenue:,.0f}", f"${f.revenue:,.0f}",
         _err(revenue, f.revenue), "published revenue"],
        ["cache-hit share", fmt_pct(f.cached_input_tokens / f.input_tokens, 2),
         fmt_pct(c.hit_share, 1), _err(f.cached_input_tokens / f.input_tokens, c.hit_share),
         "published share"],
        ["cost margin", fmt_pct(margin, 0), fmt_pct(f.margin, 0), _err(margin, f.margin),
         "published margin"]]  # fmt: skip
    speed_mid = sum(f.output_speed) / 2
    per_node = f.decode_per_node / speed_mid
    built = [
        f"{f.input_tokens / 1e9:,.0f}B input and {f.output_tokens / 1e9:,.0f}B output tokens",
        f"{f.prefill_per_node / 1e3:g}k and {f.decode_per_node / 1e3:g}k tokens/s per node",
    ]
    built += [f"{f.gpus_per_node} GPUs a node", f"${f.price_per_gpu_hour:g} per GPU-hour"]
    note = f"Built from (calibration): {listing([*built, 'the R1 price list'])}. Checked only "
    note += "(validation): the rows above."
    title = f"5. DeepSeek's published day: {f.nodes_average:g} nodes of {f.gpus_per_node} "
    title += f"{f.chip} on average, {f.nodes_peak} at peak"
    items = [
        f"Prefill takes {c.prefill_hours:,.0f} node-hours and decode {c.decode_hours:,.0f}: "
        f"{needed:,.0f} together against the {had:,.0f} the fleet ran, and the cost at "
        f"${f.price_per_gpu_hour:g} per GPU-hour lands {_err(cost, f.daily_cost)} off the "
        f"published ${f.daily_cost:,.0f}. The budget closes within {max(errors):.2%}: the nodes "
        "did nothing else but serve at their average rates.",
        f"At those rates a million input tokens cost {_usd(c.input_usd)} and a million "
        f"output tokens {_usd(c.output_usd)}, against list prices of {_usd(miss)} "
        f"(uncached input; {_usd(hit)} cached) and {_usd(out)}: an output token costs "
        f"{than(c.output_usd / c.input_usd, 'to serve')} an input token.",
        f"Decode at {f.decode_per_node / 1e3:g}k tokens/s a node with each request seeing about "
        f"{speed_mid:g} tokens/s means about {per_node:,.0f} sequences decode at once on a node, "
        f"{per_node / f.gpus_per_node:,.0f} a GPU, each with {f.kv_length:,.0f} tokens of cache. "
        f"The fleet's own P:D is {c.prefill_hours / c.decode_hours:.2f} prefill node-hours per "
        "decode node-hour."]  # fmt: skip
    head = ["figure", "course", "published", "error", "checks"]
    return section(title, Table(head, rows), note, items=items)


def crossing(a: Cost, b: Cost) -> int | None:
    """The first batch of a's curve, both fitting, where the cheaper of the two changes."""
    both = [(batch, usd < b.at(batch)) for batch, usd in a.curve if b.at(batch) is not None]
    return next((batch for batch, cheaper in both if cheaper != both[0][1]), None)


def cost_png(path: str, s: Setup, costs: Sequence[Cost]) -> Figure:
    """The saved cost figure, with a caption that says what to look at."""
    cross = crossing(*costs) if len(costs) == 2 else None
    look = say(
        "Look at the gap between the curves at each batch, and where each one ends: "
        "past its wall no batch fits the GPUs' memory.")  # fmt: skip
    if cross:
        look = say(
            "Look at batch {cross}, where the cheaper model changes: a mixture of experts is "
            "cheap at small batches, where a step reads only the experts its tokens choose, "
            "and loses that edge as a larger batch touches every expert.",
            cross=f"{cross:,}")  # fmt: skip
    caption = say(
        "Dollars per million output tokens against the decode batch at ${price} per "
        "GPU-hour on {chip}, for {names}, each up to its memory wall; the dashed "
        "line marks batch {batch}. {look}",
        price=f"{s.price:g}", chip=s.chip.name,
        names=listing([cost_label(c) for c in costs if c.curve]), batch=f"{s.batch:,}", look=look,
    )  # fmt: skip
    return figure(path, caption)
