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
are composed in ``common/present/llm.py``. Nothing is timed.

Run it with ``python3 lectures/06_llm_speed.py`` (standard library only).
Flags (the same in lectures 06, 07 and 08): ``--model`` (llama-2-7b, llama-3-8b,
llama-3-70b), ``--chip`` (h100, h200, b200, ...), ``--precision`` (the chip's compute
precision, e.g. bf16 or fp8), ``--weights`` and ``--kv`` (storage precisions of the
weights and the KV cache), ``--context`` (tokens per sequence) and ``--batch``
(sequences served together).
Add ``--png`` to save ``06_prefill_decode_roofline.png`` (needs matplotlib) into
``--outdir DIR`` (default: ``figures/``).
"""

# sphinx_gallery_start_ignore
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))))
from common.shell import boot  # one-line errors, quiet Ctrl-C and closed pipes, before numpy

boot.start()
from common.present.llm_cli import llm_parser, parse_llm_args

make_parser = functools.partial(llm_parser, __doc__)  # the LLM lectures' flags (--help)
args, model, chip, precision, dtypes = parse_llm_args(make_parser())  # checked: one-line errors
# sphinx_gallery_end_ignore

from common.formulas.predict import achievable_roofs, roofline_time
from common.formulas.roofline import attainable_flops
from common.formulas.transformer import (
    decode_ledger,
    op_times,
    parameter_breakdown,
    pass_time,
    prefill_ledger,
)
from common.present import llm
from common.present.display import show

# The flags chose model, chip and precision (see --help); sizes and roofs follow.
S, B, L = args.context, args.batch, model.n_layers
peak, bw, ridge = chip.peak_flops(precision), chip.mem_bw, chip.ridge_point(precision)


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

show(llm.model_section(model, chip, precision, dtypes, S, B))

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

parts = parameter_breakdown(model)  # part -> parameters, from the config's widths
n_params = sum(parts.values())

show(llm.parameter_section(model, parts, dtypes))

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
# chip, so softmax moves no bytes. The final norm and the LM head run on the last
# position only, since that is all the first output token needs. Each operator's
# bound is :math:`\max(F / P_{peak},\ D / \beta)`; the pass takes at least their sum.

pre = prefill_ledger(model, B, S, dtypes)  # every operator's F and D
pre_times = op_times(pre, chip, precision)  # max(F / P_peak, D / beta) for each
ttft = pass_time(pre, chip, precision)  # their sum: the time to first token

show(llm.prefill_section(pre, pre_times, chip, precision))

# %%
# 4. Decode: one token per sequence
# ---------------------------------
#
# Decode adds one token to each of the :math:`B` sequences per step. Every weight
# matrix is still read in full, but it now meets only :math:`B` rows, and every
# sequence reads its own :math:`S` cached keys and values in every layer. The time
# per output token (TPOT) is one step; the throughput is :math:`B` tokens per step.

dec = decode_ledger(model, B, S, dtypes)
dec_times = op_times(dec, chip, precision)
tpot = pass_time(dec, chip, precision)  # time per output token

show(llm.decode_section(dec, dec_times, chip, precision))

# %%
# 5. Materialized attention against minimum traffic
# -------------------------------------------------
#
# A naive attention kernel writes the score matrix to HBM, reads it for the
# softmax, writes the probabilities and reads them again for the weighted sum. A
# flash-style kernel keeps them on chip. The FLOPs are the same; only the bytes
# differ, and the table shows by how much for both phases.

kernels = {}  # (phase, materialized) -> (ledger, attention time, pass time)
for phase, build in (("prefill", prefill_ledger), ("decode", decode_ledger)):
    for materialized in (True, False):
        pl = build(model, B, S, dtypes, materialized=materialized)
        times = op_times(pl, chip, precision)
        t_attn = sum(t.count * t.lower_s for t in times if t.op.kind == "attention")
        kernels[phase, materialized] = (pl, t_attn, pass_time(pl, chip, precision))

show(llm.attention_kernels_section(kernels, S))

# %%
# 6. Both phases on the roofline
# ------------------------------
#
# Each operator of a prefill pass and of a decode step (every one that moves bytes)
# placed on the chip's roof at its intensity, :math:`\min(P_{peak},\ I \beta)`, with
# ``--png``. The two phases run the same weights through the same operators; only
# the number of rows each weight meets differs.

if args.png:
    from common.plots.roofline import PointSeries, roofline_series_figure

    def on_roof(name, times):
        """Each operator that does work and moves bytes at (I, attainable FLOP/s), by kind."""
        ops = [t.op for t in times if t.op.flops and t.op.nbytes]
        points = [(op.intensity, attainable_flops(op.intensity, peak, bw)) for op in ops]
        return PointSeries(f"{name} operators", points, [op.kind for op in ops])

    phases = {"prefill": pre_times, "decode": dec_times}
    path = roofline_series_figure(
        args.outdir / "06_prefill_decode_roofline.png",
        (f"{chip.name} {precision}", peak, bw),
        [on_roof(name, t) for name, t in phases.items()],
        f"{model.name} on {chip.name}, batch {B:,}, context {S:,}",
    )
    show(llm.speed_png(path, phases, chip, precision))
else:
    show(llm.png_hint("06_prefill_decode_roofline.png"))

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
show(llm.speed_summary(model, chip, precision, dtypes, n_params, ttft, tpot, B, S, both))
