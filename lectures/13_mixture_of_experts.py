r"""
Mixture of experts: both ledgers when a token uses only some of the weights
===========================================================================

What does a mixture of experts cost to serve? In each MoE layer a router sends every
token to :math:`k` of :math:`E` expert MLPs, so a token computes with a small share of
the weights (its *active* parameters) while memory holds all of them. This lecture
keeps both ledgers for Mixtral-8x7B, Qwen3-30B-A3B and DeepSeek-V3: what a decode step
reads as its batch grows, when its experts turn compute-bound against a dense model of
the same active size, how that compares with vLLM's fused MoE kernel timed on an H100,
what spreading the experts over GPUs (expert parallelism) adds in network traffic,
checked against DeepEP's published latencies, and what an uneven router costs a step.

The model shapes come from the model table ``common/tables/models.py``, the chip from
``common/hw_specs.py``, the formulas from ``common/formulas/transformer.py`` and
``common/formulas/serving.py``; the sentences are composed in
``lectures/words/mixture_of_experts.py``. Nothing is timed.

Run it with ``python3 lectures/13_mixture_of_experts.py`` (standard library only).
Flags: ``--model`` (mixtral-8x7b, qwen3-30b-a3b, deepseek-v3), ``--chip``,
``--precision`` (compute and weight precision), ``--context`` (tokens cached per
sequence), ``--batch`` (tokens a decode step serves over all its GPUs) and ``--ep``
(GPUs the experts are spread over). Add ``--png`` to save ``13_moe_throughput.png``
(needs matplotlib) into ``--outdir DIR`` (default: ``figures/``).
"""

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from functools import partial

from common.shell.llm_flags import moe_parser, parse_moe_args

ABOUT = {"flags": ("--model", "--chip", "--precision", "--batch", "--ep"), "figure": True,
         "bare": True, "terms": ("mixture of experts", "expert parallelism")}  # fmt: skip

#: Lecture 13's flags (--help): a mixture of experts, chip, precision, batch, EP size.
make_parser = partial(moe_parser, __doc__)
args, model, chip, precision = parse_moe_args(make_parser())  # checked: one-line errors

from common.formulas import predict, serving
from common.formulas import transformer as llm
from common.formulas.roofline import critical_batch, lower_bound_time
from common.hw_specs import get_chip
from common.present.display import show
from common.tables import measurements as pub
from common.tables.assumptions import ROUTING_ZIPF
from common.tables.models import MOE_MODELS, dense_twin
from lectures.words import mixture_of_experts as page
from lectures.words.llm_speed import png_hint

S, B, N, dtypes = args.context, args.batch, args.ep, llm.DTypes(precision)
E, k, d = model.n_experts, model.experts_per_token, model.d_model
peak, bw, ridge = chip.peak_flops(precision), chip.mem_bw, chip.ridge_point(precision)
twin = dense_twin(model)  # one MLP as wide as the experts a token uses
setup = page.Setup(model=model, chip=chip, precision=precision, dtypes=dtypes, context=S,
                   batch=B, peak=peak, ridge=ridge, ep=N)  # fmt: skip
batches = sorted({1, 8, 64, 512, 4096, B})

# %%
# 1. Total against active parameters
# ----------------------------------
#
# A mixture's MoE layer replaces the dense MLP with :math:`E` expert MLPs of width
# :math:`d_{ff,e}` and a router (a :math:`d \times E` matmul) that picks :math:`k` of
# them for each token; DeepSeek-V3 adds a shared expert every token uses and keeps its
# first three layers dense. Counting the config's matrices gives the total; leaving
# out the :math:`E - k` experts a token skips gives the active count. The *dense twin*
# is the same model with one MLP as wide as the experts a token uses,
# :math:`d_{ff} = k\, d_{ff,e} + d_{ff,shared}`: the same FLOPs per token.

counts = [
    page.Count(model=m, total=llm.parameter_count(m), active=llm.active_parameter_count(m),
               twin=llm.parameter_count(dense_twin(m)), weights=llm.weight_bytes(m, dtypes),
               per_gpu=llm.ep_weight_bytes(m, dtypes, N))
    for m in MOE_MODELS.values()]  # fmt: skip
show(page.sizes_section(setup, counts))

# %%
# 2. Memory holds every expert; a step reads the experts its batch routes to
# --------------------------------------------------------------------------
#
# A decode step of :math:`B` tokens reads only the experts some token chose. If each
# token picks :math:`k` of :math:`E` uniformly and independently (the assumption), an
# expert is missed by one token with probability :math:`1 - k/E` and by all of them
# with :math:`(1 - k/E)^B`, so the step reaches :math:`E\,(1 - (1 - k/E)^B)` experts.
# Real routers are skewed: below, the :math:`i`-th most popular expert is chosen with
# probability :math:`q_i \propto i^{-s}` (summing to :math:`k`), and the step reaches
# :math:`\sum_i 1 - (1 - q_i)^B` experts.

per_expert = llm.parameter_breakdown(model)["experts"] / E * dtypes.w_bytes  # all MoE layers
shares = serving.skewed_shares(E, k, ROUTING_ZIPF)  # q_i, summing to k
reach = [
    page.Reach(batch=b, uniform=llm.experts_touched(b, k, E),
               skewed=serving.experts_touched_by_shares(b, shares))
    for b in batches]  # fmt: skip
show(page.routing_section(setup, reach, per_expert, ROUTING_ZIPF))

# %%
# 3. A decode step against batch, and where the experts turn compute-bound
# ------------------------------------------------------------------------
#
# The speed ledger of lecture 06 with the experts in it: each expert matmul does
# :math:`2 B k d d_{ff,e}` FLOP over the weights of the experts reached. Once every
# expert is reached the step reads all of them, as a dense model of the *total* size
# would, while each expert meets only :math:`Bk/E` tokens. So the experts reach the
# ridge at about :math:`E/k` times the batch a dense MLP needs.


def step(m, b):
    """One decode step of b tokens on one chip's roofs: its weight bytes and bound."""
    ledger = llm.decode_ledger(m, b, S, dtypes)
    t = llm.pass_time(ledger, chip, precision)
    return page.Step(batch=b, weight_bytes=ledger.weight_bytes, time=t)


steps = [(step(model, b), step(twin, b)) for b in batches]
a, w = dtypes.act_bytes, dtypes.w_bytes
crit = (llm.expert_critical_batch(model, ridge, dtypes),
        critical_batch(d, twin.d_ff, ridge, a, w, a))  # fmt: skip
show(page.step_section(setup, steps, crit))

# %%
# 4. The routed experts against a measured kernel
# -----------------------------------------------
#
# Sections 2 and 3 are arithmetic; does a real kernel follow them? vLLM timed its fused
# MoE kernel alone on an H100 at batches of 1 to thousands of tokens, for Mixtral-8x7B in
# bf16 (one GPU's shard of two) and Qwen3-30B-A3B in FP8 (one GPU): one call runs a
# layer's routed experts, with the choice of each token's experts and the sum of their
# outputs. The forecast is what ``python3 -m common.predict --engine vllm`` counts for
# those operators: the top-k, each expert matmul over the experts reached and the
# weighted sum (in FP8 also the quantization of the experts' input and intermediate), at
# the H100's measured shares, each no faster than the smallest kernel.
# The published times only check it.

kernels = []
for run in pub.FUSED_MOE_H100:  # each published sweep: one model's MoE layer on one H100
    m, h100, p, g = run.model, get_chip(run.chip), run.precision, run.gpus
    at = predict.compute_precision(h100, p)  # the matmuls' (a chip with no fp8 peak: 16-bit)
    spec, eng = predict.spec_roofs(h100, at), predict.engine_roofs(h100, "vllm", at, g)
    for n, measured in run.times:  # n tokens, each one sequence's next
        ledger = llm.decode_ledger(m, n, 1, predict.engine_dtypes(p, "vllm"))
        ops = predict.operator_forecast(ledger, spec, eng, g)  # one run of each, s, by name
        kernels.append(page.Kernel(
            model=m, gpus=g, precision=p, tokens=n, measured=measured.seconds,
            source=measured.source,
            reached=llm.experts_touched(n, m.experts_per_token, m.n_experts),
            forecast=sum(t for op, t in ops.items()
                         if op.startswith("expert ") or op in llm.ROUTING_OPS)))  # fmt: skip
show(page.kernel_section(kernels))

# %%
# 5. Expert parallelism: dispatch and combine
# -------------------------------------------
#
# With the experts spread :math:`E/N` to a GPU over :math:`N` GPUs, each token's
# hidden vector (:math:`d` elements) travels to each of its :math:`k` experts that
# live elsewhere, a share :math:`(N-1)/N` of them (dispatch), and the :math:`k`
# results travel back to be summed (combine). Inside a node of 8 GPUs the copies ride
# NVLink; beyond it, one network card per GPU. A call takes a fixed latency plus the
# slower link's bytes over its bandwidth; the layer's own work on the GPU is its
# share :math:`1/N` of the layer's bound.

layer = llm.layer_ops(model, B, 1, S, dtypes)  # one MoE layer, the whole step's tokens
op_s = [(op.name, lower_bound_time(op.flops, op.nbytes, peak, bw)) for op in layer]  # bounds
layer_s = sum(t for _, t in op_s)
sizes = sorted({n for n in (2, 4, 8, 16, 32, 64, 128, 256) if E % n == 0} | {N})
linked = chip.link_bw_figure is not None  # without a link figure this part sits out
ep_rows = []
for n in sizes if linked else []:
    net = predict.ep_network(chip, n, pub.DEEPEP_DISPATCH_BYTES)  # FP8 out, BF16 back
    t = [predict.ep_call(B / n, net, which, d, k) if n > 1 else 0.0  # one GPU: no exchange
         for which in ("dispatch", "combine")]  # fmt: skip
    sent = serving.dispatch_bytes_per_token(d, k, n, pub.DEEPEP_DISPATCH_BYTES)
    node, remote = serving.link_fractions(n, net.node_gpus)
    ep_rows.append(page.Exchange(ep=n, node_share=node, net_share=remote, dispatch_bytes=sent,
                                 combine_bytes=serving.combine_bytes_per_token(d, k, n),
                                 dispatch=t[0], combine=t[1], layer=layer_s / n))  # fmt: skip
show(
    page.ep_section(setup, ep_rows, chip.link_bw, pub.CX7_IB.value)
    if linked
    else page.no_link(chip))  # fmt: skip

# %%
# 6. The exchange against DeepEP's published latencies
# ----------------------------------------------------
#
# DeepEP (DeepSeek's expert-parallel kernels) publishes the latency of one dispatch
# and one combine of 128 tokens a GPU (hidden 7168, top-8) on H800s at EP sizes 8 to
# 256. One of those twelve figures fixes the latency a call; the other eleven only
# check the model of section 5 (the calibration and validation split of lecture 11).

checks = [page.Check(label=lb, predicted=p, measured=m, calibration=c)
          for lb, p, m, c in predict.deepep_check()]  # fmt: skip
show(page.deepep_section(checks, pub.DEEPEP_TOKENS, pub.DEEPEP_LL))

# %%
# 7. Load imbalance: every GPU waits for the busiest
# --------------------------------------------------
#
# A step ends when its busiest GPU is done. The *imbalance factor* is the busiest
# load over the fair share, :math:`\max(x) / \bar x`: for one expert, or for one GPU
# holding :math:`E/N` experts dealt round-robin. A factor :math:`f` costs the step
# :math:`(f - 1)` times the experts' balanced time per GPU.

routed = sum(t for name, t in op_s if "expert" in name)  # the shared expert is balanced
experts_s = model.moe_layers * routed / N  # the routed experts' time a step, per GPU
skews = []
for s in (0.0, ROUTING_ZIPF / 2, ROUTING_ZIPF):
    q = serving.skewed_shares(E, k, s)
    f_gpu = serving.imbalance_factor(serving.gpu_loads(q, N))  # experts dealt round-robin
    cost = serving.imbalance_cost(experts_s, f_gpu)
    skews.append(page.Skew(exponent=s, expert_factor=serving.imbalance_factor(q),
                           gpu_factor=f_gpu, cost=cost))  # fmt: skip
mine = next(a for a, _ in steps if a.batch == B)
show(page.imbalance_section(setup, skews, mine.time / N))

# %%
# 8. Tokens per second per GPU against batch
# ------------------------------------------
#
# The mixture, its dense twin and the mixture with its dispatch and combine at the
# chosen EP size, each as tokens per second per GPU, with ``--png``.

chosen = next((x for x in ep_rows if x.ep == N), None)  # None: no link figure
comm = None if chosen is None else model.moe_layers * (chosen.dispatch + chosen.combine)
if args.png:
    from common.plots.transformer import moe_throughput_figure

    grid = sorted({*llm.batch_grid(max(1 << 16, B), per_decade=6), B})
    moe_t, twin_t = [step(model, b).time for b in grid], [step(twin, b).time for b in grid]
    curves = {
        f"{model.name}": [(b, b / t) for b, t in zip(grid, moe_t, strict=True)],
        f"dense twin ({twin.d_ff:,} MLP)": [(b, b / t) for b, t in zip(grid, twin_t, strict=True)],
    }
    if linked:
        call = predict.ep_network(chip, N, pub.DEEPEP_DISPATCH_BYTES)
        kinds = ("dispatch", "combine") if N > 1 else ()  # one GPU: no exchange
        ep_t = [model.moe_layers * sum(predict.ep_call(b / N, call, x, d, k) for x in kinds)
                for b in grid]  # fmt: skip
        curves[f"{model.name}, EP {N} exchange"] = [
            (b, b / (t + N * c)) for b, t, c in zip(grid, moe_t, ep_t, strict=True)]  # fmt: skip
    path = moe_throughput_figure(
        args.outdir / "13_moe_throughput.png", curves, crit, B,
        f"{model.name} and its dense twin on {chip.name} ({precision}), context {S:,}")  # fmt: skip
    pair = (mine, next(b for a, b in steps if a.batch == B))
    show(page.moe_png(path, setup, crit, pair, linked))
else:
    show(png_hint("13_moe_throughput.png"))

# %%
# Summary
# -------
#
# The lines a student would copy into a plan.

show(page.summary(setup, next(c for c in counts if c.model == model), crit, mine, comm))
