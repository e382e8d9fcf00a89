r"""
Serving a fleet: continuous batching, speculation, disaggregation and cost
==========================================================================

Lectures 06-08 keep both ledgers for one batch on one chip. A service runs many
requests at once, each at its own stage, on many GPUs, and pays for them by the hour.
This lecture follows four things a serving engine does with the course's time bounds:
it mixes prefill chunks and decode tokens in one step under a token budget (continuous
batching with chunked prefill); it lets a cheap draft propose tokens that the model
verifies in one pass (speculative decoding); it runs prefill and decode on separate
GPUs in the ratio that balances them (disaggregation); and it turns tokens per second
per GPU into dollars per million tokens. It ends with a fleet whose operator published
a day of its service, DeepSeek's, and closes its node-hours and its cost.

The model shapes come from the model table ``common/tables/models.py``, the chip figures
from ``common/hw_specs.py``, the formulas from ``common/formulas/transformer.py`` and
``common/formulas/serving.py``, and the published figures from
``common/tables/measurements.py``; the tables and sentences are composed in
``lectures/words/serving_a_fleet.py``. Nothing is timed.

Run it with ``python3 lectures/14_serving_a_fleet.py`` (standard library only).
Flags: ``--model`` (a dense or a mixture-of-experts model of the model table),
``--chip``, ``--price`` (dollars per GPU-hour), ``--prompt`` and ``--output`` (tokens
per request), ``--batch`` (sequences decoding together) and ``--budget`` (tokens per
step). Add ``--png`` to save ``14_cost_per_token.png`` (needs matplotlib) into
``--outdir DIR`` (default: ``figures/``).
"""

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from functools import partial

from common.shell.llm_flags import parse_serving_args, serving_parser

# sphinx_gallery_start_ignore
ABOUT = {
    "flags": ("--model", "--chip", "--price", "--prompt", "--output", "--batch"),
    "figure": True,
    "bare": True,
    "terms": ("speculative decoding", "disaggregation", "cost per token", "continuous batching"),
}
#: The lecture's flags (--help): model, chip, price, request lengths, batch, budget.
make_parser = partial(serving_parser, __doc__)
# sphinx_gallery_end_ignore
parser = make_parser()
args, model, chip = parse_serving_args(parser)  # the flags (--help): a bad value is one line

from common.formulas import serving
from common.formulas import transformer as llm
from common.formulas.predict import roofline_time, spec_roofs
from common.present.display import show
from common.tables import measurements as published
from common.tables.models import MODELS, QWEN3_30B_A3B, get_model
from lectures.words import serving_a_fleet as page

P, N, B, budget = args.prompt, args.output, args.batch, args.budget
S = P + N // 2  # a decoding sequence's cache at the middle of its output
dtypes, roofs = llm.DTypes(), spec_roofs(chip, "bf16")
gpus = serving.gpus_to_hold(model, chip, S, dtypes)  # the fewest GPUs that hold the model
wall = serving.largest_batch_on(model, chip, gpus, S, dtypes) if gpus else 0
# sphinx_gallery_start_ignore
if not gpus:  # no batch fits: a smaller --batch would not help
    short = serving.gpus_to_hold(model, chip, 1, dtypes)  # a 1-token sequence would fit
    fix = "shorten --prompt or --output, or raise" if short else "raise"
    parser.error(f"one sequence of {S:,} token{'s' * (S > 1)} of {model.name} does not fit even "
                 f"{serving.MAX_GPUS} x {chip.name}; {fix} the chip's memory capacity in "
                 "common/hw_specs.py")  # fmt: skip
if wall < B:
    parser.error(f"argument --batch: {B} sequences of {S:,} tokens do not fit {gpus} x "
                 f"{chip.name} (at most {wall:,}); give --batch {wall} or less")  # fmt: skip
# sphinx_gallery_end_ignore

seconds = partial(roofline_time, roofs=roofs, gpus=gpus)  # a pass's bound on the model's GPUs
decode_s = seconds(llm.decode_ledger(model, B, S, dtypes))  # one plain decode step
setup = page.Setup(model=model, chip=chip, gpus=gpus, price=args.price, prompt=P, output=N,
                   batch=B, budget=budget, context=S, ridge=chip.ridge_point("bf16"))  # fmt: skip

# %%
# 1. Continuous batching and chunked prefill
# ------------------------------------------
#
# A continuous-batching engine does not wait for a batch to finish: every step it takes
# up to a token budget of work, one token for each of the :math:`m` sequences that are
# decoding and, in what is left, a chunk of :math:`c` tokens of some prompt. The step
# reads every weight once for all :math:`c + m` rows, so the chunk rides on the weight
# reads decode pays anyway, until its FLOPs outweigh them. Every decoding sequence waits
# for the whole step: the step's time is their time per output token. Each row is the
# course's bound of such a step (the chunk taken as a prompt's first).

step_rows = []
for c in page.chunk_sizes(budget - B):
    ledger = serving.mixed_step_ledger(model, c, c, B, S, dtypes)
    step_rows.append(page.Step(chunk=c, seconds=seconds(ledger),
                               intensity=ledger.flops / ledger.nbytes))  # fmt: skip
alone = seconds(llm.prefill_ledger(model, 1, P, dtypes))  # the prompt in one pass, no decode
top = step_rows[-1].chunk  # the prompt's chunks: full ones, then what is left
chunks = [seconds(serving.mixed_step_ledger(model, min(top, P - i), min(top, P - i) + i, B, S,
                                             dtypes)) for i in range(0, P, top)]  # fmt: skip
chunked = page.Chunked(chunk=top, steps=len(chunks), seconds=sum(chunks), longest=max(chunks),
                       alone=alone)  # fmt: skip

show(page.chunking_section(setup, step_rows, chunked))

# %%
# 2. Speculative decoding
# -----------------------
#
# A draft proposes :math:`K` tokens; the model checks all of them in one verify pass over
# :math:`K + 1` tokens a sequence and keeps the longest accepted prefix plus one token of
# its own. With each draft token accepted with probability :math:`a`, a verify step yields
# :math:`E = (1 - a^{K+1}) / (1 - a)` tokens (Leviathan et al. 2023). It costs :math:`K`
# draft tokens of :math:`c` decode steps each and a verify pass of :math:`v` decode
# steps, so the speed-up is :math:`E / (K c + v)`. The draft here is a head of one decoder
# layer (:math:`c = 1 / L`); :math:`v` is the course's bound of the verify pass over the
# plain decode step: about 1 while the step is memory-bound.

spec_rows = []
draft_cost = 1 / model.n_layers
for K in page.DRAFTS:
    verify = seconds(llm.verify_ledger(model, B, K + 1, min(S + K, model.max_context), dtypes))
    v = verify / decode_s
    spec_rows.append(page.Draft(draft=K, verify=v, tokens=tuple(
        serving.expected_tokens(a, K) for a in page.ACCEPTANCES), speedup=tuple(
        serving.speculative_speedup(a, K, draft_cost, v) for a in page.ACCEPTANCES)))  # fmt: skip

show(page.speculation_section(setup, spec_rows))

# %%
# A published speed-up read backwards: DeepSeek-V3's multi-token prediction. One MTP
# module (one decoder block of the model's 61) drafts one token; the speed-up its report
# gives implies an acceptance rate, set beside the rate the report publishes. The verify
# cost is the ledger's at the fleet's decode batch per GPU.

fleet = published.DEEPSEEK_FLEET
v3 = get_model("deepseek-v3")
per_gpu = round(fleet.decode_per_node / (sum(fleet.output_speed) / 2) / fleet.gpus_per_node)
v3_gpus = serving.gpus_to_hold(v3, chip, round(fleet.kv_length), dtypes) or serving.MAX_GPUS
v3_seconds = partial(roofline_time, roofs=roofs, gpus=v3_gpus)
K1, ctx = published.MTP_DRAFT_TOKENS, round(fleet.kv_length)
v3_verify = v3_seconds(llm.verify_ledger(v3, per_gpu, K1 + 1, ctx + K1, dtypes))
v3_verify /= v3_seconds(llm.decode_ledger(v3, per_gpu, ctx, dtypes))
mtp = page.MTP(
    batch=per_gpu, draft_cost=1 / v3.n_layers, verify=v3_verify,
    implied=serving.acceptance_for_speedup(published.MTP_SPEEDUP, K1, 1 / v3.n_layers, v3_verify),
    plain=serving.acceptance_for_speedup(published.MTP_SPEEDUP, K1, 0.0, 1.0),
    best=serving.speculative_speedup(1.0, K1, 1 / v3.n_layers, v3_verify),
    published=published.MTP_ACCEPTANCE, speedup=published.MTP_SPEEDUP)  # fmt: skip

show(page.mtp_observations(mtp))

# %%
# 3. Prefill/decode disaggregation
# --------------------------------
#
# Prefill is compute-bound and decode memory-bound, so some engines run them on separate
# GPUs and hand the KV cache over. A request spends :math:`t_p` GPU-seconds in prefill (its
# prompt alone) and :math:`t_d` in decode (its output tokens, sharing each step with the
# batch). A pool of :math:`G` GPUs finishes :math:`G / t` requests a second, so the two
# pools keep pace when :math:`P / D = t_p / t_d` prefill GPUs serve each decode GPU.

balance = []
for p, o in page.request_shapes(P, N, model.max_context):
    t_p = seconds(llm.prefill_ledger(model, 1, p, dtypes)) * gpus
    t_d = o * seconds(llm.decode_ledger(model, B, p + o // 2, dtypes)) * gpus / B
    balance.append(page.Balance(prompt=p, output=o, prefill_s=t_p, decode_s=t_d,
                                ratio=serving.pd_ratio(t_p, t_d)))  # fmt: skip

show(page.disaggregation_section(setup, balance))

# %%
# 4. Cost per million tokens
# --------------------------
#
# A GPU-hour costs the same whatever the GPU does, so a token's price is the hour's over
# the tokens it serves,
#
# .. math::
#
#    \$/\text{M} = \frac{\text{price}}{3600 \times \text{tokens/s per GPU}} \times 10^6.
#
# Decode's rate grows with the batch until the memory wall; the table sets
# the model beside a mixture of experts (a dense model beside Qwen3-30B-A3B; a mixture
# beside Llama-3-8B), each on the GPUs that hold it, at the datasheet's roofs: these are
# the lowest prices the hardware allows, not what an engine reaches.

partner = QWEN3_30B_A3B if model.key in MODELS else get_model("llama-3-8b")
costs, held = [], []
for m in (model, partner):
    s_m = min(S, m.max_context)
    g = serving.gpus_to_hold(m, chip, s_m, dtypes)
    held.append((m, s_m, g, serving.largest_batch_on(m, chip, g, s_m, dtypes) if g else 0))
walls = [w for *_, w in held]  # both curves priced at the batches the section names
grid = {*llm.batch_grid(max(max(walls), 1)), *walls, B, min(B, *walls)}
for m, s_m, g, w in held:
    p_m = min(P, m.max_context)
    pre = p_m / (roofline_time(llm.prefill_ledger(m, 1, p_m, dtypes), roofs, g) * g) if g else 0
    curve = []
    for b in sorted(b for b in grid if 1 <= b <= w):
        rate = b / (roofline_time(llm.decode_ledger(m, b, s_m, dtypes), roofs, g) * g)
        curve.append((b, serving.cost_per_million(rate, args.price)))
    costs.append(page.Cost(model=m, gpus=g, wall=w, context=s_m,
                           input_usd=serving.cost_per_million(pre, args.price) if pre else 0.0,
                           curve=tuple(curve)))  # fmt: skip

show(page.cost_section(setup, costs))

# %%
# 5. A fleet's day: DeepSeek's published service
# ----------------------------------------------
#
# DeepSeek published one day of its V3/R1 service (its open-source week, Day 6): H800
# nodes of 8 GPUs, the average and peak node counts, the input tokens (with the share that
# hit its KV cache on disk), the output tokens, each node's prefill and decode throughput,
# and the cost at $2 per GPU-hour. The tokens over each node's rate give the node-hours the
# day needed; the nodes it ran give the node-hours it had. The check is built from the
# token counts, the per-node rates, the GPUs per node, the price and the price list
# (calibration); it only checks the node count, the daily cost, the revenue, the cache
# share and the margin (validation).

check = page.FleetCheck(
    fleet=fleet,
    prefill_hours=serving.node_hours(fleet.input_tokens, fleet.prefill_per_node),
    decode_hours=serving.node_hours(fleet.output_tokens, fleet.decode_per_node),
    input_usd=serving.cost_per_million(
        fleet.prefill_per_node / fleet.gpus_per_node, fleet.price_per_gpu_hour),
    output_usd=serving.cost_per_million(
        fleet.decode_per_node / fleet.gpus_per_node, fleet.price_per_gpu_hour),
    hit_share=published.DEEPSEEK_CACHE_HIT_SHARE)  # fmt: skip

show(page.fleet_section(check))

# %%
# With ``--png``, dollars per million output tokens against the decode batch for the model
# and its mixture-of-experts partner, each up to its memory wall, with the lecture's batch
# marked.

if args.png:
    from common.plots.serving import CostCurve, cost_figure

    curves = [CostCurve(page.cost_label(c), c.curve) for c in costs if c.curve]
    title = f"Decode cost on {chip.name} at ${args.price:g}/GPU-hour, cache at {S:,} tokens"
    path = cost_figure(args.outdir / "14_cost_per_token.png", curves, B, title)
    show(page.cost_png(path, setup, costs))
else:
    show(page.png_hint("14_cost_per_token.png"))
