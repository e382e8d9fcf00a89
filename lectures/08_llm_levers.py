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
are composed in ``lectures/words/llm_levers.py``. Nothing is timed.

Run it with ``python3 lectures/08_llm_levers.py`` (standard library only).
The flags are lecture 06's (``--help`` lists them): model, chip, precisions, context
and batch.
Add ``--png`` to save ``08_decode_throughput.png`` (needs matplotlib) into
``--outdir DIR`` (default: ``figures/``).
"""

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from functools import partial

from common.shell.llm_flags import llm_parser, parse_llm_args

ABOUT = {"flags": ("--model", "--chip", "--batch", "--context"), "bare": True}

#: The LLM lectures' flags (--help): the same in lectures 06, 07 and 08.
make_parser = partial(llm_parser, __doc__)
args, model, chip, precision = parse_llm_args(make_parser())  # checked: one-line errors

from common.formulas import transformer as llm
from common.hw_specs import B200, CHIPS, H100, H200
from common.present.console import fmt_gb
from common.present.display import show
from common.tables.models import with_full_mha, with_kv_heads
from lectures.words import llm_levers as page

S, B, dtypes = args.context, args.batch, llm.DTypes(args.weights, args.kv)
ridge = chip.ridge_point(precision)
setup = page.Setup(model=model, chip=chip, precision=precision, dtypes=dtypes, context=S, batch=B,
                   peak=chip.peak_flops(precision), ridge=ridge)  # fmt: skip


def bounds(ledger, c, p):
    """Each weight matmul's bound ('compute' or 'memory') in one pass on chip c at precision p."""
    return [t.bound for t in llm.op_times(ledger, c, p) if t.op.kind == "matmul"]


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
    dt = llm.DTypes(weights=w, kv=dtypes.kv, activations=dtypes.activations)
    step, pre = llm.decode_ledger(model, B, S, dt), llm.prefill_ledger(model, B, S, dt)
    matmuls = bounds(pre, chip, precision)
    quant[w] = page.Quant(
        weights=llm.parameter_count(model) * dt.w_bytes, ttft=llm.pass_time(pre, chip, precision),
        tpot=llm.pass_time(step, chip, precision), knee=llm.decode_critical_batch(model, ridge, dt),
        wall=llm.largest_batch(model, chip, S, dt),
        kv_token=llm.kv_cache_bytes_per_token(model, dt.kv_bytes),
        attn_bytes=step.kind_total("attention", "nbytes"),
        prefill_compute=matmuls.count("compute"), prefill_matmuls=len(matmuls))  # fmt: skip

show(page.quantization_section(setup, quant))

# %%
# 2. Grouped-query attention and the KV cache
# -------------------------------------------
#
# The KV cache stores one key and one value vector per KV head, so its size is set
# by the :math:`H_{kv}` KV heads, not the :math:`H_q` query heads. Calculators that
# use the query-head count overstate it by the group size :math:`H_q / H_{kv}`. Here
# the model meets its twin with a different number of KV heads (full multi-head
# attention for a GQA model; for a model that has full multi-head attention, the
# largest divisor of its query heads up to eight).

fewer = max((k for k in range(1, 9) if k < model.n_heads and model.n_heads % k == 0), default=1)
twin = with_full_mha(model) if model.n_kv_heads < model.n_heads else with_kv_heads(model, fewer)
variants = []  # the model and its twin: what their KV heads set
for variant in (model, twin):
    step = llm.decode_ledger(variant, B, S, dtypes)
    attn = step.kind_total("attention"), step.kind_total("attention", "nbytes")
    kv = llm.kv_cache_bytes_per_token(variant, dtypes.kv_bytes)
    wall = llm.largest_batch(variant, chip, S, dtypes)
    tpot = llm.pass_time(step, chip, precision)
    variants.append(page.Variant(model=variant, kv=kv, wall=wall, tpot=tpot, attn_bytes=attn[1],
                                 attn_intensity=attn[0] / attn[1]))  # fmt: skip

show(page.kv_heads_section(setup, variants))

# %%
# 3. Across chips
# ---------------
#
# The same model on every chip of the hardware table that has the compute
# precision: its ridge, its bandwidth, the time to first token at the lecture's
# batch, the time per output token at batch 1, the memory wall, the decode throughput
# bound :math:`B / T_{step}(B)` at that wall, and the knee. As the batch grows the
# weights are shared by more tokens, but every sequence still reads its own KV cache,
# so the throughput flattens towards the bandwidth divided by one sequence's cache.

FIGURE_CHIPS = (H100, H200, B200)  # the chips of the throughput figure below
fig_precision = precision if all(precision in c.precisions for c in FIGURE_CHIPS) else "bf16"
one = llm.decode_ledger(model, 1, S, dtypes)  # a batch-1 decode step
kv_seq = llm.kv_cache_bytes_per_token(model, dtypes.kv_bytes) * S  # one sequence's KV cache
runs = {}  # chip key -> the model's bounds on it
for c in CHIPS.values():
    if fig_precision in c.precisions:
        peak, c_ridge = c.peak_flops(fig_precision), c.ridge_point(fig_precision)
        wall = llm.largest_batch(model, c, S, dtypes)
        step = llm.decode_ledger(model, max(wall, 1), S, dtypes)  # decode at the wall
        runs[c.key] = page.ChipRun(
            chip=c, peak=peak, ridge=c_ridge,
            ttft=llm.pass_time(llm.prefill_ledger(model, B, S, dtypes), c, fig_precision),
            tpot1=llm.pass_time(one, c, fig_precision), wall=wall,
            at_wall=wall / llm.pass_time(step, c, fig_precision),  # tokens/s; 0: none fits
            knee=llm.decode_critical_batch(model, c_ridge, dtypes), ceiling=c.mem_bw / kv_seq,
            matmul=one.kind_total("matmul") / peak,
            b1_memory="compute" not in bounds(one, c, fig_precision))  # fmt: skip

q_one = next(op.intensity for op in one.layer if op.name == "Q projection")
show(
    page.chips_section(setup, runs, fig_precision),
    page.chips_observations(runs, q_one, kv_seq, pair=("a100", "a100-80gb")))  # fmt: skip

# %%
# With ``--png``, the decode throughput bound against the batch for three chips, from
# batch 1 up to each chip's memory wall, one panel per chip, with the memory wall, the
# knee and the ceiling marked.

if args.png:
    from common.plots.transformer import ThroughputPanel, decode_throughput_figure

    panels = []
    for r in (runs[c.key] for c in FIGURE_CHIPS):
        setup_c = llm.Deployment(model, r.chip, fig_precision, dtypes)
        curve = llm.decode_throughput_curve(setup_c, S, llm.batch_grid(r.wall) if r.wall else [])
        note = f"nothing fits in\n{fmt_gb(r.chip.mem_capacity)}"
        panels.append(ThroughputPanel(r.chip.name, curve, r.wall, r.knee, r.ceiling, note))
    title = f"{model.name} decode, context {S:,}: {fig_precision} compute, "
    title += f"{dtypes.weights} weights, {dtypes.kv} KV"
    path = decode_throughput_figure(args.outdir / "08_decode_throughput.png", panels, title)
    show(page.throughput_png(path, setup, [p.label for p in panels]))
else:
    show(page.png_hint("08_decode_throughput.png"))
