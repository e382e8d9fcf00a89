r"""
LLM levers: weight quantization, KV heads and the chip
======================================================

What moves the two ledgers, speed
(:ref:`lecture 06 <sphx_glr_auto_lectures_06_llm_speed.py>`) and capacity
(:ref:`lecture 07 <sphx_glr_auto_lectures_07_llm_capacity.py>`)? This lecture pulls
three levers on a whole decoder-only transformer and follows every number they move:
storing the weights in fewer bits (weight-only quantization), storing fewer key/value
heads (grouped-query attention), and serving the same model on another chip, where
the decode throughput bound is drawn against the batch up to each chip's memory wall.

The model shapes come from the model table ``common/tables/models.py`` (copied from
each model's published ``config.json``), the chip figures from ``common/hw_specs.py``,
and every formula from ``common/formulas/transformer.py``; the tables and sentences
are composed in ``common/present/llm.py``. Nothing is timed.

Run it with ``python3 lectures/08_llm_levers.py`` (standard library only).
The flags are lecture 06's (``--help`` lists them): model, chip, precisions, context
and batch.
Add ``--png`` to save ``08_decode_throughput.png`` (needs matplotlib) into
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

from common.formulas.transformer import (
    Deployment,
    DTypes,
    batch_grid,
    decode_critical_batch,
    decode_ledger,
    decode_throughput_curve,
    kv_cache_bytes_per_token,
    largest_batch,
    parameter_count,
    pass_time,
    prefill_ledger,
)
from common.hw_specs import B200, CHIPS, H100, H200
from common.present import llm
from common.present.console import fmt_gb
from common.present.display import show
from common.tables.models import with_full_mha, with_kv_heads

# The flags chose model, chip and precision (see --help); the sizes and the ridge follow.
S, B = args.context, args.batch
ridge = chip.ridge_point(precision)


# %%
# 1. Weight-only quantization: what it changes and what it does not
# -----------------------------------------------------------------
#
# Weight-only quantization stores the weights in fewer bits and widens them to the
# compute precision inside the matmul. The table keeps compute, KV cache and
# activations as they are and changes only the weight storage; each row is the whole
# of lectures 06 and 07 redone at that weight precision.

quant = {}  # weight precision -> what it moves
for w in dict.fromkeys(["bf16", "int8", "int4", dtypes.weights]):
    dt = DTypes(weights=w, kv=dtypes.kv, activations=dtypes.activations)
    step = decode_ledger(model, B, S, dt)
    quant[w] = {
        "weights": parameter_count(model) * dt.w_bytes,
        "ttft": pass_time(prefill_ledger(model, B, S, dt), chip, precision),
        "tpot": pass_time(step, chip, precision),
        "knee": decode_critical_batch(model, ridge, dt),
        "wall": largest_batch(model, chip, S, dt),
        "kv_token": kv_cache_bytes_per_token(model, dt.kv_bytes),
        "attn_bytes": step.kind_total("attention", "nbytes"),
    }

show(llm.quantization_section(quant, precision, B, S))

# %%
# 2. Grouped-query attention and the KV cache
# -------------------------------------------
#
# The KV cache stores one key and one value vector per KV head, so its size is set
# by the :math:`H_{kv}` KV heads, not the :math:`H_q` query heads. Calculators that
# use the query-head count overstate it by the group size :math:`H_q / H_{kv}`. Here
# the model meets its twin with a different number of KV heads (full multi-head
# attention for a GQA model; eight KV heads for a model that has full multi-head
# attention).

# A GQA model meets its full-MHA twin; a full-MHA model a twin with eight KV heads.
grouped = model.n_kv_heads < model.n_heads
twin = with_full_mha(model) if grouped else with_kv_heads(model, 8)
variants = {}  # key -> (model, what its KV heads set)
for variant in (model, twin):
    step = decode_ledger(variant, B, S, dtypes)
    variants[variant.key] = (
        variant,
        {
            "kv": kv_cache_bytes_per_token(variant, dtypes.kv_bytes),
            "wall": largest_batch(variant, chip, S, dtypes),
            "tpot": pass_time(step, chip, precision),
            "attn_bytes": step.kind_total("attention", "nbytes"),
        },
    )

show(llm.kv_heads_section(variants, chip, dtypes, B, S))

# %%
# 3. Across chips
# ---------------
#
# The same model on every chip of the hardware table that has the compute
# precision: its ridge, its bandwidth, the time to first token at the lecture's
# batch, the time per output token at batch 1, the memory wall and the knee.

FIGURE_CHIPS = (H100, H200, B200)  # the chips of the throughput figure below
# The figure's chips must all have the precision; if one lacks it, the section uses bf16.
everywhere = all(precision in c.precisions for c in FIGURE_CHIPS)
fig_precision = precision if everywhere else "bf16"
stats = {}  # chip key -> its bounds
for c in CHIPS.values():
    if fig_precision in c.precisions:
        stats[c.key] = {
            "ttft": pass_time(prefill_ledger(model, B, S, dtypes), c, fig_precision),
            "tpot1": pass_time(decode_ledger(model, 1, S, dtypes), c, fig_precision),
            "wall": largest_batch(model, c, S, dtypes),
            "knee": decode_critical_batch(model, c.ridge_point(fig_precision), dtypes),
        }

show(llm.chips_section(model, stats, CHIPS, fig_precision, precision, B, S))

# %%
# Decode throughput against batch
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
#
# For three chips, the decode throughput bound :math:`B / T_{step}(B)` from batch 1
# up to each chip's memory wall. As the batch grows the weights are shared by more
# tokens, but every sequence still reads its own KV cache, so the throughput
# flattens towards the bandwidth divided by one sequence's cache.

curves = {}  # chip key -> (name, (batch, tokens/s) up to the wall, wall)
for c in FIGURE_CHIPS:
    wall = stats[c.key]["wall"]
    setup = Deployment(model, c, fig_precision, dtypes)
    curve = decode_throughput_curve(setup, S, batch_grid(wall) if wall else [])
    curves[c.key] = (c.name, curve, wall)

show(
    llm.throughput_table(curves),
    llm.chips_observations(model, stats, curves, CHIPS, fig_precision, dtypes, S),
)

# %%
# The same curves drawn with ``--png``, one panel per chip, with the memory wall, the
# knee and the ceiling marked.

if args.png:
    from common.plots.transformer import ThroughputPanel, decode_throughput_figure

    # One sequence's KV cache; no batch beats bandwidth / that.
    kv_seq = kv_cache_bytes_per_token(model, dtypes.kv_bytes) * S
    panels = []
    for key, (name, curve, wall) in curves.items():
        chip_memory = fmt_gb(CHIPS[key].mem_capacity)
        ceiling = CHIPS[key].mem_bw / kv_seq
        note = f"weights alone exceed\n{chip_memory}"
        knee = stats[key]["knee"]
        panels.append(ThroughputPanel(name, curve, wall, knee, ceiling, note))
    path = decode_throughput_figure(
        args.outdir / "08_decode_throughput.png",
        panels,
        f"{model.name} decode, context {S:,}: {fig_precision} compute, "
        f"{dtypes.weights} weights, {dtypes.kv} KV",
    )
    show(llm.throughput_png(path, model, S, FIGURE_CHIPS))
else:
    show(llm.png_hint("08_decode_throughput.png"))
