r"""
LLM capacity: the largest batch that fits, and the memory wall
==============================================================

How many sequences can this model serve at once on that chip, and is decode still
limited by bandwidth when they are all there? This lecture keeps the capacity
ledger of a whole decoder-only transformer (weights, KV cache, activations,
overhead) against the chip's memory, finds the largest batch that fits, the
*memory wall*, and compares it with the batch at which decode's weight matmuls
would turn compute-bound, the *knee*.
:ref:`Lecture 06 <sphx_glr_auto_lectures_06_llm_speed.py>` gives the speed of one
step; :ref:`lecture 08 <sphx_glr_auto_lectures_08_llm_levers.py>` what quantization,
fewer KV heads or another chip change.

The model shapes come from the model table ``common/tables/models.py`` (copied from
each model's published ``config.json``), the chip figures from ``common/hw_specs.py``,
and every formula from ``common/formulas/transformer.py``; the tables and sentences
are composed in ``lectures/words/llm_capacity.py``. Nothing is timed.

Run it with ``python3 lectures/07_llm_capacity.py`` (standard library only).
The flags are lecture 06's (``--help`` lists them): model, chip, precisions, context
and batch.
Add ``--png`` to save ``07_memory_ledger.png`` (needs matplotlib) into ``--outdir DIR``
(default: ``figures/``).
"""

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from functools import partial

from common.shell.llm_flags import llm_parser, parse_llm_args

ABOUT = {"flags": ("--model", "--chip", "--precision", "--context"), "figure": True, "bare": True,
         "terms": ("KV cache", "memory wall")}  # fmt: skip

#: The LLM lectures' flags (--help): the same in lectures 06, 07 and 08.
make_parser = partial(llm_parser, __doc__)
args, model, chip, precision = parse_llm_args(make_parser())  # checked: one-line errors

import math

from common.formulas import transformer as llm
from common.present.display import show
from lectures.words import llm_capacity as page

ridge = chip.ridge_point(precision)
S, B, dtypes = args.context, args.batch, llm.DTypes(args.weights, args.kv)
setup = page.Setup(model=model, chip=chip, precision=precision, dtypes=dtypes, context=S, batch=B,
                   peak=chip.peak_flops(precision), ridge=ridge)  # fmt: skip

# %%
# 1. The capacity ledger: how many sequences fit
# ----------------------------------------------
#
# Memory holds four things: the weights (fixed), the KV cache (two vectors of
# :math:`H_{kv} d_h` per token per layer, growing with batch and context), the
# activations of the tokens in flight, and overhead. Assumptions: activations take
# the rule of thumb of :ref:`the article <sources>`, sixteen vectors of
# :math:`d_{model}` per active token, and decode has :math:`B` active tokens; the
# overhead (runtime, workspace, fragmentation) is a fixed share of the other three.
# Both are named in ``common/tables/assumptions.py``. The budget is the chip's whole
# memory; the largest batch within it is the *memory wall*.

kv_token = llm.kv_cache_bytes_per_token(model, dtypes.kv_bytes)  # bytes per cached token
act_token = llm.activation_bytes_per_token(model, dtypes.act_bytes)  # per token in flight
wall = llm.largest_batch(model, chip, S, dtypes)  # the memory wall (0: nothing fits)

batches = sorted({1, B} | ({wall, wall + 1} if wall else set()))
ledgers = {b: llm.model_memory_ledger(model, b, S, dtypes) for b in batches}

chips = math.ceil(ledgers[1].total / chip.mem_capacity)  # chips one sequence needs
capacity = page.Capacity(ledgers, kv_token, act_token, wall, chips)
show(page.memory_section(setup, capacity))

# %%
# 2. When decode turns compute-bound
# ----------------------------------
#
# A weight matmul :math:`X[B, K] \cdot W[K, N]` does :math:`2BKN` FLOPs and moves
# :math:`BKx + KNw + BNo` bytes (:math:`x`, :math:`w` and :math:`o` bytes per
# element of X, W and the output), so its intensity grows with :math:`B` until it
# reaches the ridge. The table gives that *critical batch* for each weight matmul of
# a decode step; the last line asks the same question of all of them together
# (summed FLOPs over summed bytes), the *knee*. Attention is different: each
# sequence reads its own cache, so batching does not raise its intensity at all.

shapes = llm.matmul_critical_batches(model, ridge, dtypes)  # (matmul, its critical batch)
knee = llm.decode_critical_batch(model, ridge, dtypes)  # all weight matmuls together

show(page.critical_batch_section(setup, page.Knee(shapes, knee, ridge * dtypes.w_bytes / 2), wall))

# %%
# 3. The ledger against batch
# ---------------------------
#
# The four terms drawn against the batch, with ``--png``: where the stack meets the
# chip's memory is the wall.

if args.png:
    from common.plots.transformer import memory_ledger_figure

    top = max(16, round(1.3 * wall))
    curve = [(b, llm.model_memory_ledger(model, b, S, dtypes)) for b in range(1, top + 1)]
    title = f"{model.name} on {chip.name}, context {S:,}: {dtypes.describe()}"
    out = args.outdir / "07_memory_ledger.png"
    path = memory_ledger_figure(out, curve, chip.mem_capacity, wall, title)
    show(page.capacity_png(path, setup, capacity))
else:
    show(page.png_hint("07_memory_ledger.png"))
