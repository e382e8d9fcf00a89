r"""
LLM speed: prefill and decode time bounds for a whole model
===========================================================

How fast can this model serve on that chip? This lecture keeps the speed ledger of
a whole decoder-only transformer, operator by operator: FLOPs and bytes for prefill
(the prompt in one pass) and for decode (one new token per sequence per step), each
turned into a time bound on the chip. These are lower bounds on time, upper bounds
on throughput, that no implementation can beat.
:ref:`Lecture 07 <sphx_glr_auto_lectures_07_llm_capacity.py>` asks how many sequences
fit in memory; :ref:`lecture 08 <sphx_glr_auto_lectures_08_llm_levers.py>` what
quantization, fewer KV heads or another chip change.

The model shapes come from the model table ``common/tables/models.py`` (copied from
each model's published ``config.json``), the chip figures from ``common/hw_specs.py``,
and every formula from ``common/formulas/transformer.py``; the tables and sentences
are composed in ``lectures/words/llm_speed.py``. Nothing is timed.

Run it with ``python3 lectures/06_llm_speed.py`` (standard library only).
Flags (the same in lectures 06, 07 and 08): ``--model`` (llama-2-7b, llama-3-8b,
llama-3-70b), ``--chip`` (h100, h200, b200, ...), ``--precision`` (the chip's compute
precision, e.g. bf16 or fp8), ``--weights`` and ``--kv`` (storage precisions of the
weights and the KV cache), ``--context`` (tokens per sequence) and ``--batch``
(sequences served together).
Add ``--png`` to save ``06_prefill_decode_roofline.png`` (needs matplotlib) into
``--outdir DIR`` (default: ``figures/``).
"""

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from functools import partial

from common.shell.llm_flags import llm_parser, parse_llm_args

ABOUT = {"flags": ("--model", "--chip", "--precision", "--batch", "--context"), "figure": True,
         "bare": True, "terms": ("prefill", "decode")}  # fmt: skip

#: The LLM lectures' flags (--help): the same in lectures 06, 07 and 08.
make_parser = partial(llm_parser, __doc__)
args, model, chip, precision = parse_llm_args(make_parser())  # checked: one-line errors

from common.formulas import transformer as llm
from common.formulas.predict import achievable_roofs, roofline_time
from common.formulas.roofline import attainable_flops
from common.present.display import show
from lectures.words import llm_speed as page

S, B, dtypes = args.context, args.batch, llm.DTypes(args.weights, args.kv)
peak, bw, ridge = chip.peak_flops(precision), chip.mem_bw, chip.ridge_point(precision)
setup = page.Setup(model=model, chip=chip, precision=precision, dtypes=dtypes, context=S, batch=B,
                   peak=peak, ridge=ridge)  # fmt: skip


def phase(ledger):
    """A pass on the chip: each operator's time bound, their sum (the pass's bound), the
    compute time alone and the weights' read time alone."""
    times, t = llm.op_times(ledger, chip, precision), llm.pass_time(ledger, chip, precision)
    return page.Phase(ledger, times, t, ledger.flops / peak, ledger.weight_bytes / bw)


# %%
# 1. The model and the chip
# -------------------------
#
# A decoder-only transformer is a stack of :math:`L` identical layers. Each layer
# normalizes its input (RMSNorm), projects it to queries, keys and values, runs
# attention, projects back, adds the residual, then runs a gated MLP: two matmuls up
# (gate and up), a SiLU times the up branch, and one matmul down. With
# *grouped-query attention* (GQA) several of the :math:`H_q` query heads share one of
# the :math:`H_{kv}` key/value heads, so the K and V projections, and the KV cache,
# are narrower than the queries. After the last layer come a final norm and the LM
# head, a matmul to vocabulary logits. The table lists the shapes the rest of the
# lecture uses.

show(page.model_section(setup))

# %%
# 2. Parameters, counted from the config
# --------------------------------------
#
# Every weight matrix is a product of two widths from the table above: the
# embedding and the LM head are :math:`V \times d_{model}`, each layer holds four
# attention projections (two of width :math:`H_q d_h`, two of width
# :math:`H_{kv} d_h`), three MLP matrices of :math:`d_{model} \times d_{ff}` (two when
# the MLP is not gated) and two norm gains. Summing them gives the parameter count;
# the published size is the cross-check.

parts = llm.parameter_breakdown(model)  # part -> parameters, from the config's widths
n_params = sum(parts.values())

show(page.parameter_section(setup, parts, n_params))

# %%
# 3. Prefill: the prompt in one pass
# ----------------------------------
#
# Prefill runs all :math:`S` prompt tokens of each of the :math:`B` sequences
# through the model at once and writes their keys and values into the KV cache. The
# matmuls see :math:`B S` rows, so each weight byte is reused many times. Attention
# is causal: token :math:`p` attends to :math:`p + 1` keys, so we count
# :math:`S(S+1)/2` query-key pairs per head, about half of the square a kernel that
# ignores the mask would compute. The attention rows assume a minimum-traffic
# (flash-style) kernel: Q, K, V and O cross HBM once and the scores never leave the
# chip, so softmax moves no bytes;
# :ref:`lecture 10 <sphx_glr_auto_lectures_10_tiled_attention.py>` counts what writing
# the scores out would cost. The final norm and the LM head run on the last
# position only, since that is all the first output token needs. Each operator's
# bound is :math:`\max(F / P_{peak},\ D / \beta)`; the pass takes at least their sum.

pre = llm.prefill_ledger(model, B, S, dtypes)  # every operator's F and D
prefill = phase(pre)  # each operator's max(F / P_peak, D / beta); their sum is the TTFT

show(page.prefill_section(setup, prefill))

# %%
# 4. Decode: one token per sequence
# ---------------------------------
#
# Decode adds one token to each of the :math:`B` sequences per step. Every weight
# matrix is still read in full, but it now meets only :math:`B` rows, and every
# sequence reads its own :math:`S` cached keys and values in every layer. The time
# per output token (TPOT) is one step; the throughput is :math:`B` tokens per step.

dec = llm.decode_ledger(model, B, S, dtypes)
decode = phase(dec)  # its time is the time per output token (TPOT)

show(page.decode_section(setup, decode))

# %%
# 5. Both phases on the roofline
# ------------------------------
#
# Each operator of a prefill pass and of a decode step (every one that moves bytes)
# placed on the chip's roof at its intensity, :math:`\min(P_{peak},\ I \beta)`, with
# ``--png``. The two phases run the same weights through the same operators; only
# the number of rows each weight meets differs.

if args.png:
    from common.plots.roofline import PointSeries, roofline_series_figure

    phases, series = {"prefill": prefill, "decode": decode}, []
    for name, p in phases.items():  # each operator that does work and moves bytes, by kind
        ops = [t.op for t in p.times if t.op.flops and t.op.nbytes]
        points = [(op.intensity, attainable_flops(op.intensity, peak, bw)) for op in ops]
        series.append(PointSeries(f"{name} operators", points, [op.kind for op in ops]))
    title = f"{model.name} on {chip.name}, batch {B:,}, context {S:,}"
    out = args.outdir / "06_prefill_decode_roofline.png"
    path = roofline_series_figure(out, (f"{chip.name} {precision}", peak, bw), series, title)
    show(page.speed_png(path, setup, phases))
else:
    show(page.png_hint("06_prefill_decode_roofline.png"))

# %%
# Summary
# -------
#
# The lines a student would copy into a plan: the model, its size, and the two time
# bounds, at the datasheet's roofs and at the measured achievable ones of the hardware
# table (:ref:`lecture 11 <sphx_glr_auto_lectures_11_predict_and_check.py>` checks both
# against published measurements). :ref:`Lecture 07 <sphx_glr_auto_lectures_07_llm_capacity.py>`
# adds what fits in memory.

ach = achievable_roofs(chip, precision)  # measured roofs; spec where none is published
both = (roofline_time(pre, ach), roofline_time(dec, ach), ach.measured)
show(page.speed_summary(setup, n_params, prefill.time, decode.time, both))
