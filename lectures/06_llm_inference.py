r"""
LLM inference: both ledgers for a whole model
=============================================

How fast can this model serve on that chip, and at what batch does it stop fitting,
or stop being limited by memory bandwidth? This lecture keeps both ledgers for a
whole decoder-only transformer: the speed ledger operator by operator (FLOPs and
bytes for prefill and for decode, each turned into a time bound on the chip), and
the capacity ledger (weights, KV cache, activations, overhead) that caps the batch.

The model shapes come from the model table ``common/models.py`` (copied from each
model's published ``config.json``), the chip figures from ``common/hw_specs.py``,
and every formula from ``common/transformer.py``. Nothing is timed: these are lower
bounds on time (upper bounds on throughput) that no implementation can beat.

Run it with ``python3 lectures/06_llm_inference.py``. Flags: ``--model``
(llama-2-7b, llama-3-8b, llama-3-70b), ``--chip`` (h100, h200, b200, ...),
``--precision`` (the chip's compute precision, e.g. bf16 or fp8), ``--weights`` and
``--kv`` (storage precisions of the weights and the KV cache), ``--context``
(tokens per sequence) and ``--batch`` (sequences served together). Add ``--png``
to save ``06_decode_throughput.png`` into ``--outdir DIR`` (default: ``figures/``).
"""

# sphinx_gallery_start_ignore
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(sys.argv[0]))))
from common.present import boot  # one-line errors, quiet Ctrl-C and closed pipes, before numpy

boot.start()
# sphinx_gallery_end_ignore

import math

from common.files.paths import display_path
from common.formulas.transformer import (
    Deployment,
    DTypes,
    PassLedger,
    activation_bytes_per_token,
    batch_grid,
    decode_critical_batch,
    decode_ledger,
    decode_throughput_curve,
    kv_cache_bytes_per_token,
    largest_batch,
    matmul_critical_batches,
    model_memory_ledger,
    op_times,
    parameter_breakdown,
    parameter_count,
    pass_time,
    prefill_ledger,
)
from common.hw_specs import B200, CHIPS, H100, H200, get_chip
from common.present.cli import (
    add_png_flags,
    batch_size,
    lecture_parser,
    one_of,
    parse_args,
    positive_int,
    require_precision,
)
from common.present.console import (
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_num,
    fmt_rate,
    fmt_ratio,
    fmt_time,
    print_header,
    print_observations,
    print_table,
)
from common.tables.assumptions import ACT_VECTORS_PER_TOKEN, LLM_OVERHEAD_RATE
from common.tables.models import MODELS, get_model, with_full_mha, with_kv_heads

STORAGE = ("bf16", "fp16", "fp8", "int8", "int4", "nvfp4")  # weight and KV-cache precisions
COMPUTE = sorted({p for chip in CHIPS.values() for p in chip.precisions})
FIGURE_CHIPS = (H100, H200, B200)

parser = lecture_parser(__doc__)
parser.add_argument(
    "--model",
    type=one_of(MODELS, "model"),
    default="llama-3-8b",
    help=f"model from the model table: {', '.join(MODELS)} (default: llama-3-8b)",
)
parser.add_argument(
    "--chip",
    type=one_of(CHIPS, "chip"),
    default="h100",
    help=f"chip from the hardware table: {', '.join(CHIPS)} (default: h100)",
)
parser.add_argument(
    "--precision",
    type=one_of(COMPUTE, "precision"),
    default="bf16",
    help="compute precision; must be one the chip has a peak for (default: bf16)",
)
parser.add_argument(
    "--weights",
    type=one_of(STORAGE, "weight precision"),
    default=None,
    help=f"weight storage: {', '.join(STORAGE)} (default: the compute precision)",
)
parser.add_argument(
    "--kv",
    type=one_of(STORAGE, "KV-cache precision"),
    default="bf16",
    help=f"KV-cache storage: {', '.join(STORAGE)} (default: bf16)",
)
parser.add_argument(
    "--context",
    type=positive_int,
    default=4096,
    metavar="TOKENS",
    help="tokens per sequence: prompt length for prefill, cache length for decode "
    "(default: 4096; at most the model's window)",
)
parser.add_argument(
    "--batch",
    type=batch_size,
    default=1,
    metavar="B",
    help="sequences processed together (default: 1)",
)
add_png_flags(parser)
args = parse_args(parser)

model = get_model(args.model)
chip = get_chip(args.chip)
precision = require_precision(parser, chip, args.precision)
if args.weights is None and precision not in STORAGE:
    parser.error(f"argument --weights: give a weight precision ({', '.join(STORAGE)})")
if args.context > model.max_context:
    parser.error(
        f"argument --context: {args.context} exceeds {model.name}'s window of "
        f"{model.max_context} tokens"
    )
dtypes = DTypes(weights=args.weights or precision, kv=args.kv, activations="bf16")
S, B, L = args.context, args.batch, model.n_layers
peak, bw, ridge = chip.peak_flops(precision), chip.mem_bw, chip.ridge_point(precision)


def fmt_i(flops: float, nbytes: float) -> str:
    """Intensity in FLOP/byte, or '-' when nothing leaves the chip."""
    if nbytes == 0:
        return "-"
    i = flops / nbytes
    return f"{i:.2f}" if i < 10 else f"{i:.0f}"


def fmt_gb(n: float) -> str:
    """Bytes in decimal GB with two decimals (chip capacities are decimal)."""
    return f"{n / 1e9:.2f} GB"


def fmt_batch(b: int | None) -> str:
    """A batch size, or a dash when there is none."""
    return "-" if b is None else f"{b:,}"


def pass_table(pl: PassLedger) -> float:
    """Print one pass's ledger on the chip (one layer, x layers, model-level ops); its time."""
    times = op_times(pl, chip, precision)
    total = sum(t.count * t.lower_s for t in times)
    n_layer = len(pl.layer)
    layer_t, once_t = times[:n_layer], times[n_layer:]
    rows = []
    for t in layer_t:
        share = t.count * t.lower_s / total
        rows.append(
            [
                t.op.name,
                fmt_flops(t.op.flops),
                fmt_bytes(t.op.nbytes),
                fmt_i(t.op.flops, t.op.nbytes),
                t.bound,
                fmt_time(t.lower_s),
                f"{share:.1%}",
            ]
        )
    lf = sum(t.op.flops for t in layer_t)
    lb = sum(t.op.nbytes for t in layer_t)
    lt = sum(t.lower_s for t in layer_t)
    rows.append(["= one layer", fmt_flops(lf), fmt_bytes(lb), fmt_i(lf, lb), "", fmt_time(lt), ""])
    rows.append(
        [
            f"x {L} layers",
            fmt_flops(L * lf),
            fmt_bytes(L * lb),
            fmt_i(lf, lb),
            "",
            fmt_time(L * lt),
            f"{L * lt / total:.1%}",
        ]
    )
    for t in once_t:
        rows.append(
            [
                t.op.name,
                fmt_flops(t.op.flops),
                fmt_bytes(t.op.nbytes),
                fmt_i(t.op.flops, t.op.nbytes),
                t.bound,
                fmt_time(t.lower_s),
                f"{t.lower_s / total:.1%}",
            ]
        )
    rows.append(
        [
            "= whole pass",
            fmt_flops(pl.flops),
            fmt_bytes(pl.nbytes),
            fmt_i(pl.flops, pl.nbytes),
            "",
            fmt_time(total),
            "100.0%",
        ]
    )
    print_table(["operator", "FLOPs", "bytes", "FLOP/B", "bound", "time >=", "of pass"], rows)
    return total


# %%
# 1. The model and the chip
# -------------------------
#
# A decoder-only transformer is a stack of identical layers. Each layer normalizes
# its input (RMSNorm), projects it to queries, keys and values, runs attention,
# projects back, adds the residual, then runs a gated MLP: two matmuls up
# (gate and up), a SiLU times the up branch, and one matmul down. With
# *grouped-query attention* (GQA) several query heads share one key/value head,
# so the K and V projections, and the KV cache, are narrower than the queries.
# After the last layer come a final norm and the LM head, a matmul to vocabulary
# logits. The table lists the shapes the rest of the lecture uses.

config_rows = [
    ["layers", f"{model.n_layers}", "num_hidden_layers"],
    ["d_model", f"{model.d_model:,}", "hidden_size"],
    ["query heads", f"{model.n_heads}", "num_attention_heads"],
    ["KV heads", f"{model.n_kv_heads}", f"num_key_value_heads ({model.attention_kind})"],
    ["head dim", f"{model.d_head}", "hidden_size / num_attention_heads"],
    ["MLP width d_ff", f"{model.d_ff:,}", "intermediate_size"],
    ["MLP", "gated SiLU" if model.gated_mlp else "ungated", "hidden_act, gate_proj"],
    ["vocabulary", f"{model.vocab_size:,}", "vocab_size"],
    ["embeddings", "tied" if model.tied_embeddings else "untied", "tie_word_embeddings"],
    ["window", f"{model.max_context:,} tokens", "max_position_embeddings"],
]
print_header(f"1. {model.name} on {chip.name}")
print(f"Model shapes from {model.config_source}:")
print()
print_table(["quantity", "value", "config.json field"], config_rows)
print()
print(f"Chip: {chip.name}, {precision} peak {fmt_rate(peak)}, memory bandwidth {fmt_bw(bw)},")
print(f"      capacity {fmt_gb(chip.mem_capacity)}, ridge point {ridge:.0f} FLOP/byte.")
print(f"Storage: {dtypes.describe()}. Context {S:,} tokens, batch {B:,}.")

# %%
# 2. Parameters, counted from the config
# --------------------------------------
#
# Every weight matrix is a product of two widths from the table above: the
# embedding and the LM head are :math:`V \times d`, each layer holds four attention
# projections (two of width :math:`H_q d_h`, two of width :math:`H_{kv} d_h`), three
# MLP matrices of :math:`d \times d_{ff}` (two when the MLP is not gated) and two
# norm gains. Summing them gives the parameter count; the published size is the
# cross-check.

parts = parameter_breakdown(model)
n_params = parameter_count(model)
part_formulas = {
    "embedding": "V d",
    "attention": "L (2 d Hq dh + 2 d Hkv dh)",
    "mlp": f"L {3 if model.gated_mlp else 2} d d_ff",
    "norms": "(2 L + 1) d",
    "lm_head": "0 (tied)" if model.tied_embeddings else "V d",
}
param_rows = [
    [name, part_formulas[name], fmt_num(count), f"{count / n_params:.1%}"]
    for name, count in parts.items()
]
param_rows.append(["total", "", fmt_num(n_params), "100.0%"])
print_header("2. Parameters from the config")
print_table(["part", "formula", "parameters", "share"], param_rows)
published = model.published_params
print()
print(f"Published size: {fmt_num(published)} ({model.params_source}).")
weight_bytes_total = n_params * dtypes.w_bytes
print_observations(
    [
        f"The count from the config, {fmt_num(n_params)}, is within "
        f"{abs(n_params / published - 1):.2%} of the published {fmt_num(published)}.",
        f"The MLP holds {parts['mlp'] / n_params:.1%} of the weights and attention "
        f"{parts['attention'] / n_params:.1%}; the embedding and LM head together hold "
        f"{(parts['embedding'] + parts['lm_head']) / n_params:.1%}. At {dtypes.weights} "
        f"the weights take {fmt_gb(weight_bytes_total)}.",
    ]
)

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
# bound is :math:`\max(F / P_{peak}, D / \beta)`; the pass takes at least their sum.

pre = prefill_ledger(model, B, S, dtypes)
print_header(f"3. Prefill: {B:,} x {S:,} prompt tokens on {chip.name} ({precision})")
ttft = pass_table(pre)
pre_times = op_times(pre, chip, precision)
pre_compute_share = sum(t.count * t.lower_s for t in pre_times if t.bound == "compute") / ttft
pre_elementwise = sum(
    t.count * t.lower_s for t in pre_times if t.op.kind in ("norm", "elementwise")
)
attn_flop_share = pre.kind_total("attention") / pre.flops
print()
print(f"Time to first token >= {fmt_time(ttft)} (prefill of {B * S:,} tokens).")
print_observations(
    [
        f"Prefill does {fmt_flops(pre.flops)} and moves {fmt_bytes(pre.nbytes)}: "
        f"{pre.flops / pre.nbytes:.0f} FLOP per byte overall, above the ridge of "
        f"{ridge:.0f}. Compute-bound operators take {pre_compute_share:.1%} of the time, "
        f"and the whole-pass compute time alone is {fmt_time(pre.flops / peak)}.",
        f"Attention (scores, softmax, weighted sum) is {attn_flop_share:.1%} of the FLOPs "
        f"at {S:,} tokens; its share grows with the prompt, since its FLOPs grow as S^2 "
        f"and the matmuls' as S.",
        f"Norms, SiLU and residual adds are memory-bound and cost {fmt_time(pre_elementwise)} "
        f"({pre_elementwise / ttft:.1%} of the pass) in this unfused ledger; real engines "
        f"fuse them into the neighbouring matmuls.",
    ]
)

# %%
# 4. Decode: one token per sequence
# ---------------------------------
#
# Decode adds one token to each of the :math:`B` sequences per step. Every weight
# matrix is still read in full, but it now meets only :math:`B` rows, and every
# sequence reads its own :math:`S` cached keys and values in every layer. The time
# per output token (TPOT) is one step; the throughput is :math:`B` tokens per step.

dec = decode_ledger(model, B, S, dtypes)
print_header(f"4. Decode: {B:,} x 1 new token, context {S:,}, on {chip.name} ({precision})")
tpot = pass_table(dec)
tokens_per_s = B / tpot
print()
print(
    f"Time per output token >= {fmt_time(tpot)}; decode throughput <= {tokens_per_s:,.1f} tokens/s."
)

dec_times = op_times(dec, chip, precision)
q_row = next(t for t in dec_times if t.op.name == "Q projection")
all_memory = all(t.bound == "memory" for t in dec_times if t.op.nbytes)
weights_only_time = dec.weight_bytes / bw
observations = [
    f"Each {dtypes.w_bytes:g}-byte weight is read once per step and used in {B:,} "
    f"multiply-add{'s' if B > 1 else ''} ({2 * B} FLOP), so the Q projection runs at "
    f"{q_row.op.intensity:.2f} FLOP/byte against a ridge of {ridge:.0f}. "
    + (
        "Every operator that moves bytes is memory-bound."
        if all_memory
        else "Some operators are already compute-bound at this batch."
    ),
    f"The step reads {fmt_gb(dec.weight_bytes)} of weights and {fmt_gb(dec.kv_bytes)} of KV "
    f"cache: weights alone need {fmt_time(weights_only_time)} at {fmt_bw(bw)}, "
    f"{weights_only_time / tpot:.1%} of the bound. The FLOPs ({fmt_flops(dec.flops)}) "
    f"would take only {fmt_time(dec.flops / peak)} at peak.",
]
if dec.kv_bytes > dec.weight_bytes:
    observations.append(
        f"At batch {B:,} the KV cache read per step ({fmt_gb(dec.kv_bytes)}) outweighs the "
        f"weights: a bigger batch shares the weights among more tokens, but every sequence "
        f"still reads its own cache."
    )
print_observations(observations)

# %%
# Materialized attention against minimum traffic
# ----------------------------------------------
#
# A naive attention kernel writes the score matrix to HBM, reads it for the
# softmax, writes the probabilities and reads them again for the weighted sum. A
# flash-style kernel keeps them on chip. The FLOPs are the same; only the bytes
# differ, and the table shows by how much for both phases.

attn_rows = []
attn_time = {}
for phase, build in (("prefill", prefill_ledger), ("decode", decode_ledger)):
    for materialized in (True, False):
        pl = build(model, B, S, dtypes, materialized=materialized)
        t_attn = sum(
            t.count * t.lower_s for t in op_times(pl, chip, precision) if t.op.kind == "attention"
        )
        t_pass = pass_time(pl, chip, precision)
        attn_time[phase, materialized] = (t_attn, t_pass)
        attn_rows.append(
            [
                phase,
                "materialized" if materialized else "minimum traffic",
                fmt_flops(pl.kind_total("attention")),
                fmt_bytes(pl.kind_total("attention", "nbytes")),
                fmt_time(t_attn),
                fmt_time(t_pass),
            ]
        )
print_header("Attention: materialized scores against minimum traffic")
print_table(["phase", "kernel", "FLOPs", "bytes", "attention >=", "pass >="], attn_rows)
pre_slow = attn_time["prefill", True][1] / attn_time["prefill", False][1]
dec_slow = attn_time["decode", True][1] / attn_time["decode", False][1]
print_observations(
    [
        f"Materializing the scores makes the prefill pass {fmt_ratio(pre_slow)} slower and "
        f"the decode step {fmt_ratio(dec_slow)}. In prefill the scores are a {S:,} x {S:,} "
        f"square per head and dwarf Q, K and V; in decode they are one row per head, small "
        f"next to the cached K and V that must be read anyway.",
    ]
)

# %%
# 5. The capacity ledger: how many sequences fit
# ----------------------------------------------
#
# Memory holds four things: the weights (fixed), the KV cache (two vectors of
# :math:`H_{kv} d_h` per token per layer, growing with batch and context), the
# activations of the tokens in flight, and overhead. Assumptions: activations take
# the article's rule of thumb, sixteen vectors of :math:`d` per active token, and
# decode has :math:`B` active tokens; the overhead (runtime, workspace,
# fragmentation) is a fixed share of the other three. Both are knobs in
# ``common/transformer.py``. The budget is the chip's whole memory.

kv_token = kv_cache_bytes_per_token(model, dtypes.kv_bytes)
wall = largest_batch(model, chip, S, dtypes)
act_token = activation_bytes_per_token(model, dtypes.act_bytes)
ledger_batches = sorted({1, B} | ({wall, wall + 1} if wall else set()))
mem_rows = []
for b in ledger_batches:
    led = model_memory_ledger(model, b, S, dtypes)
    mem_rows.append(
        [
            f"{b:,}",
            fmt_gb(led.weights),
            fmt_gb(led.kv_cache),
            fmt_gb(led.activations),
            fmt_gb(led.overhead),
            fmt_gb(led.total),
            "fits" if led.fits(chip.mem_capacity) else "OOM",
        ]
    )
print_header(f"5. Memory ledger at context {S:,} on {chip.name} ({fmt_gb(chip.mem_capacity)})")
print(
    f"KV cache per token: {fmt_bytes(kv_token, binary=True)} "
    f"(2 x {L} layers x {model.n_kv_heads} KV heads x {model.d_head} x {dtypes.kv_bytes:g} B); "
    f"per {S:,}-token sequence: {fmt_bytes(kv_token * S, binary=True)}."
)
print(
    f"Assumptions: activations {fmt_bytes(act_token, binary=True)} per active token "
    f"({ACT_VECTORS_PER_TOKEN} x d_model x {dtypes.act_bytes:g} B); "
    f"overhead {LLM_OVERHEAD_RATE:.0%} of the other three."
)
print()
print_table(["batch", "weights", "KV cache", "activations", "overhead", "total", "fits?"], mem_rows)
print()
one = model_memory_ledger(model, 1, S, dtypes)
if wall:
    at_wall = model_memory_ledger(model, wall, S, dtypes)
    act_share = at_wall.activations / at_wall.total
    print(f"Largest batch that fits: {wall:,} sequences at context {S:,}.")
    capacity_obs = [
        f"The weights are fixed at {fmt_gb(one.weights)}; each sequence adds "
        f"{fmt_bytes(kv_token * S)} of KV cache, so after weights and overhead the chip holds "
        f"{wall:,} sequences. At that batch the KV cache is {fmt_gb(at_wall.kv_cache)}, "
        f"{at_wall.kv_cache / at_wall.weights:.1f}x the weights.",
        (
            f"Activations stay small in decode ({fmt_bytes(at_wall.activations)}, "
            f"{act_share:.1%} of the total at batch {wall:,}) because only one token per "
            f"sequence is in flight."
            if act_share < 0.05
            else f"Activations are {act_share:.1%} of the total at batch {wall:,}: with a "
            f"context this short, the one token in flight per sequence weighs about as much "
            f"as its cache ({fmt_bytes(act_token, binary=True)} against "
            f"{fmt_bytes(kv_token * S, binary=True)}), so the activation assumption matters."
        ),
    ]
else:
    chips_needed = math.ceil(one.total / chip.mem_capacity)
    if one.weights > chip.mem_capacity:
        print(f"Largest batch that fits: 0 (the weights alone need {fmt_gb(one.weights)}).")
        what = f"The weights alone ({fmt_gb(one.weights)}) exceed"
    else:
        print(f"Largest batch that fits: 0 (one sequence already needs {fmt_gb(one.total)}).")
        what = f"One sequence with its weights and overhead ({fmt_gb(one.total)}) exceeds"
    capacity_obs = [
        f"{what} the chip's {fmt_gb(chip.mem_capacity)}: this model needs at least "
        f"{chips_needed} chips (tensor parallelism) or smaller weights. The speed ledger above "
        f"is what one chip would do if it could hold them.",
    ]
print_observations(capacity_obs)

# %%
# 6. When decode turns compute-bound
# ----------------------------------
#
# A weight matmul :math:`X[B, D]\,W[D, F]` does :math:`2BDF` FLOPs and moves
# :math:`BDx + DFw + BFo` bytes, so its intensity grows with :math:`B` until it
# reaches the ridge. The table gives that *critical batch* for each weight matmul
# of a decode step; the last line asks the same question of all of them together
# (summed FLOPs over summed bytes). Attention is different: each sequence reads its
# own cache, so batching does not raise its intensity at all.

crit_rows = []
for shape, cb in matmul_critical_batches(model, ridge, dtypes):
    crit_rows.append(
        [shape.name, f"{shape.D:,}", f"{shape.F:,}", f"x {shape.count}", fmt_batch(cb)]
    )
knee = decode_critical_batch(model, ridge, dtypes)
crit_rows.append(["all weight matmuls", "", "", "", fmt_batch(knee)])
print_header(f"6. Critical batch of decode's weight matmuls on {chip.name} ({precision})")
print_table(["matmul", "D", "F", "per step", "critical batch"], crit_rows)
print()
print(f"Decode critical batch: {fmt_batch(knee)} (ridge {ridge:.0f} FLOP/byte).")
crit_obs = []
if knee is not None:
    crit_obs.append(
        f"With {dtypes.w_bytes:g}-byte weights a matmul's intensity is close to "
        f"2B / {dtypes.w_bytes:g} FLOP/byte while B is small, so it meets the ridge of "
        f"{ridge:.0f} near B = {ridge * dtypes.w_bytes / 2:.0f}; the narrow K and V "
        f"projections need a larger batch because their activations weigh more."
    )
    if wall and wall < knee:
        crit_obs.append(
            f"At {S:,} tokens of context the memory wall ({wall:,}) comes before the knee "
            f"({knee:,}): on this chip decode stays bandwidth-bound at every batch that fits. "
            f"A shorter context, a smaller KV cache or smaller weights moves the wall."
        )
    elif wall:
        crit_obs.append(
            f"The knee ({knee:,}) comes before the memory wall ({wall:,}): between them the "
            f"weight matmuls are compute-bound, while attention still reads its KV cache at "
            f"memory speed."
        )
print_observations(crit_obs)

# %%
# 7. Weight-only quantization: what it changes and what it does not
# -----------------------------------------------------------------
#
# Weight-only quantization stores the weights in fewer bits and widens them to the
# compute precision inside the matmul. The table keeps compute, KV cache and
# activations as they are and changes only the weight storage.

quant_names = ["bf16", "int8", "int4"]
if dtypes.weights not in quant_names:
    quant_names.append(dtypes.weights)
quant = {}
for w in quant_names:
    dt = DTypes(weights=w, kv=dtypes.kv, activations=dtypes.activations)
    d_led = decode_ledger(model, B, S, dt)
    quant[w] = {
        "weights": parameter_count(model) * dt.w_bytes,
        "ttft": pass_time(prefill_ledger(model, B, S, dt), chip, precision),
        "tpot": pass_time(d_led, chip, precision),
        "knee": decode_critical_batch(model, ridge, dt),
        "wall": largest_batch(model, chip, S, dt),
        "kv_token": kv_cache_bytes_per_token(model, dt.kv_bytes),
        "attn_bytes": d_led.kind_total("attention", "nbytes"),
    }
quant_rows = [
    [
        w,
        fmt_gb(q["weights"]),
        fmt_time(q["ttft"]),
        fmt_time(q["tpot"]),
        f"{B / q['tpot']:,.0f}",
        fmt_batch(q["knee"]),
        f"{q['wall']:,}",
        fmt_bytes(q["kv_token"], binary=True),
        fmt_bytes(q["attn_bytes"]),
    ]
    for w, q in quant.items()
]
print_header(f"7. Weight-only quantization ({precision} compute, batch {B:,}, context {S:,})")
print_table(
    ["weights", "size", "TTFT >=", "TPOT >=", "tok/s <=", "knee", "fits", "KV/token", "attn bytes"],
    quant_rows,
)
q16, q4 = quant["bf16"], quant["int4"]
weight_ratio, tpot_ratio = q16["weights"] / q4["weights"], q16["tpot"] / q4["tpot"]
why_less = (
    "less than the byte ratio because the KV cache is still read at full size"
    if tpot_ratio < 0.99 * weight_ratio
    else "the full byte ratio, since weight reads set the step time"
)
print_observations(
    [
        f"Changes: int4 weights are {weight_ratio:.1f}x smaller, and the decode step gets "
        f"{fmt_ratio(tpot_ratio)} faster at batch {B:,}, {why_less}. The knee drops "
        f"from {fmt_batch(q16['knee'])} to {fmt_batch(q4['knee'])}: fewer bytes per weight "
        f"means fewer rows are needed to earn the ridge. The freed memory holds KV cache, so "
        f"the largest batch grows from {q16['wall']:,} to {q4['wall']:,}.",
        f"Unchanged: prefill ({fmt_ratio(q16['ttft'] / q4['ttft'])} from int4), because its "
        f"matmuls are compute-bound and still compute at {precision}; the KV cache per token "
        f"({fmt_bytes(q4['kv_token'], binary=True)}); and the attention traffic per decode "
        f"step ({fmt_bytes(q4['attn_bytes'])}). Only --kv changes those two.",
    ]
)

# %%
# 8. Grouped-query attention and the KV cache
# -------------------------------------------
#
# The KV cache stores one key and one value vector per KV head, so its size is set
# by the KV heads, not the query heads. Calculators that use the query-head count
# overstate it by the group size. Here the model meets its twin with a different
# number of KV heads (full multi-head attention for a GQA model; eight KV heads for
# a model that has full multi-head attention).

twin = with_full_mha(model) if model.n_kv_heads < model.n_heads else with_kv_heads(model, 8)
gqa_rows = []
gqa = {}
for variant in (model, twin):
    v_kv = kv_cache_bytes_per_token(variant, dtypes.kv_bytes)
    v_dec = decode_ledger(variant, B, S, dtypes)
    gqa[variant.key] = {
        "kv": v_kv,
        "wall": largest_batch(variant, chip, S, dtypes),
        "tpot": pass_time(v_dec, chip, precision),
        "attn_bytes": v_dec.kind_total("attention", "nbytes"),
    }
    gqa_rows.append(
        [
            variant.name,
            f"{variant.n_kv_heads}",
            fmt_bytes(v_kv, binary=True),
            fmt_bytes(v_kv * S, binary=True),
            f"{gqa[variant.key]['wall']:,}",
            fmt_bytes(gqa[variant.key]["attn_bytes"]),
            fmt_time(gqa[variant.key]["tpot"]),
        ]
    )
print_header(f"8. KV heads and the KV cache ({dtypes.kv} cache, context {S:,}, batch {B:,})")
print_table(
    ["model", "KV heads", "KV/token", "KV/sequence", "fits", "attn bytes", "TPOT >="], gqa_rows
)
g_model, g_twin = gqa[model.key], gqa[twin.key]
mha, grouped = (twin, model) if twin.n_kv_heads > model.n_kv_heads else (model, twin)
kv_ratio = gqa[mha.key]["kv"] / gqa[grouped.key]["kv"]
print()
print(f"KV cache, {mha.name} over {grouped.name}: {fmt_ratio(kv_ratio)}")
print_observations(
    [
        f"Full multi-head attention stores {fmt_ratio(kv_ratio)} the KV cache of the "
        f"grouped version: {mha.n_kv_heads} KV heads against {grouped.n_kv_heads}, the group "
        f"size {mha.n_heads // grouped.n_kv_heads}. At {S:,} tokens that is "
        f"{fmt_bytes(gqa[mha.key]['kv'] * S, binary=True)} per sequence against "
        f"{fmt_bytes(gqa[grouped.key]['kv'] * S, binary=True)}, "
        + (
            f"and the largest batch is {gqa[mha.key]['wall']:,} against "
            f"{gqa[grouped.key]['wall']:,}."
            if gqa[grouped.key]["wall"]
            else f"though on {chip.name} neither fits: the weights come first."
        ),
        f"Decode reads the whole cache every step, so attention traffic shrinks by the same "
        f"factor ({fmt_bytes(gqa[mha.key]['attn_bytes'])} against "
        f"{fmt_bytes(gqa[grouped.key]['attn_bytes'])} per step at batch {B:,}); decode "
        f"attention's intensity equals the group size, query heads / KV heads.",
    ]
)

# %%
# 9. Across chips: decode throughput against batch
# ------------------------------------------------
#
# The same model on every chip of the table that has the compute precision, then
# the decode throughput bound against batch for three chips. Each curve ends at
# its memory wall (the largest batch that fits); the dashed line marks the batch
# where the weight matmuls turn compute-bound. As the batch grows the weights are
# shared by more tokens, but every sequence still reads its own KV cache, so the
# throughput flattens towards the bandwidth divided by one sequence's cache.

fig_precision = precision if all(precision in c.precisions for c in FIGURE_CHIPS) else "bf16"
chip_rows = []
chip_stats = {}
for c in CHIPS.values():
    if fig_precision not in c.precisions:
        continue
    c_ridge = c.ridge_point(fig_precision)
    stats = {
        "ttft": pass_time(prefill_ledger(model, B, S, dtypes), c, fig_precision),
        "tpot1": pass_time(decode_ledger(model, 1, S, dtypes), c, fig_precision),
        "wall": largest_batch(model, c, S, dtypes),
        "knee": decode_critical_batch(model, c_ridge, dtypes),
    }
    chip_stats[c.key] = stats
    chip_rows.append(
        [
            c.name,
            f"{c_ridge:.0f}",
            fmt_bw(c.mem_bw),
            fmt_time(stats["ttft"]),
            fmt_time(stats["tpot1"]),
            f"{stats['wall']:,}",
            fmt_batch(stats["knee"]),
        ]
    )
print_header(f"9. {model.name} across chips ({fig_precision} compute, context {S:,})")
if fig_precision != precision:
    print(f"(not every chip in the figure has a {precision} peak, so this section uses bf16)")
print_table(
    ["chip", "ridge", "bandwidth", f"TTFT (B={B:,}) >=", "TPOT (B=1) >=", "fits", "knee"],
    chip_rows,
)

panels = []
fig_summary = []
wall_tps = {}
if args.png:
    from common.plots.transformer import ThroughputPanel, decode_throughput_figure
for c in FIGURE_CHIPS:
    stats = chip_stats[c.key]
    if stats["wall"]:
        setup = Deployment(model, c, fig_precision, dtypes)
        curve = decode_throughput_curve(setup, S, batch_grid(stats["wall"]))
        wall_tps[c.key] = curve[-1][1]
        fig_summary.append(
            [c.name, f"{curve[0][1]:,.0f}", f"{stats['wall']:,}", f"{curve[-1][1]:,.0f}"]
        )
    else:
        curve = []
        fig_summary.append([c.name, "-", "0", "-"])
    if args.png:
        panels.append(
            ThroughputPanel(
                c.name,
                curve,
                stats["wall"],
                stats["knee"],
                ceiling=c.mem_bw / (kv_token * S),
                note=f"weights alone exceed\n{fmt_gb(c.mem_capacity)}",
            )
        )
print()
print_table(["chip", "tok/s at B=1", "memory wall", "tok/s at the wall"], fig_summary)
if args.png:
    path = decode_throughput_figure(
        args.outdir / "06_decode_throughput.png",
        panels,
        f"{model.name} decode, context {S:,}: {fig_precision} compute, "
        f"{dtypes.weights} weights, {dtypes.kv} KV",
    )
    print(f"saved figure: {display_path(path)}")
else:
    print("(add --png to save the figure 06_decode_throughput.png)")

h100, h200 = chip_stats[H100.key], chip_stats[H200.key]
ridges = [c.ridge_point(fig_precision) for c in CHIPS.values() if fig_precision in c.precisions]
kv_seq = kv_token * S
b1_memory_bound = all(
    t.bound == "memory"
    for c in CHIPS.values()
    if fig_precision in c.precisions
    for t in op_times(decode_ledger(model, 1, S, dtypes), c, fig_precision)
    if t.op.kind == "matmul"
)
chip_obs = [
    f"At batch 1 the weight matmuls run at about {2 / dtypes.w_bytes:.0f} FLOP/byte while the "
    f"ridges above run from {min(ridges):.0f} to {max(ridges):.0f}: "
    + (
        "decode is bandwidth-bound on every chip."
        if b1_memory_bound
        else "some chip's ridge is low enough that a matmul is compute-bound."
    ),
    f"{H200.name} has {H200.peak_flops(fig_precision) / H100.peak_flops(fig_precision):.2f}x "
    f"the compute of {H100.name} and {H200.mem_bw / H100.mem_bw:.2f}x the bandwidth: decode "
    f"at batch 1 gets {fmt_ratio(h100['tpot1'] / h200['tpot1'])} faster, prefill only "
    f"{fmt_ratio(h100['ttft'] / h200['ttft'])}, because decode waits on bytes and prefill on "
    f"FLOPs.",
    f"The throughput flattens because each sequence reads its own {fmt_gb(kv_seq)} of KV "
    f"cache per step: no batch beats bandwidth / that, {H100.mem_bw / kv_seq:,.0f} tokens/s "
    f"on {H100.name} and {B200.mem_bw / kv_seq:,.0f} on {B200.name}.",
]
past_knee = [
    c
    for c in FIGURE_CHIPS
    if chip_stats[c.key]["knee"] and chip_stats[c.key]["wall"] > chip_stats[c.key]["knee"]
]
if past_knee:
    c = past_knee[0]
    matmul_flops_per_token = decode_ledger(model, 1, S, dtypes).kind_total("matmul")
    chip_obs.append(
        f"Past its knee (B = {chip_stats[c.key]['knee']:,}) the weight matmuls on {c.name} are "
        f"compute-bound and cost {fmt_time(matmul_flops_per_token / c.peak_flops(fig_precision))}"
        f" of compute per token, so the curve levels off at {wall_tps[c.key]:,.0f} tokens/s, "
        f"below the bandwidth ceiling: a bigger batch adds work as fast as it adds tokens."
    )
print_observations(chip_obs)

# %%
# Summary
# -------
#
# The lines a student would copy into a capacity plan.

summary = [
    ["model / chip", f"{model.name} on {chip.name}, {precision} compute"],
    ["storage", dtypes.describe()],
    ["parameters (config / published)", f"{fmt_num(n_params)} / {fmt_num(published)}"],
    ["weights", fmt_gb(weight_bytes_total)],
    ["KV cache per token", fmt_bytes(kv_token, binary=True)],
    [
        "time to first token >=",
        f"{fmt_time(ttft, unit='ms', digits=3)} (batch {B:,}, {S:,}-token prompts)",
    ],
    [
        "time per output token >=",
        f"{fmt_time(tpot, unit='ms', digits=3)} (batch {B:,}, context {S:,})",
    ],
    ["decode throughput <=", f"{tokens_per_s:,.1f} tokens/s"],
    ["largest batch that fits", f"{wall:,}"],
    ["decode critical batch", fmt_batch(knee)],
]
print_header("Summary")
print_table(["quantity", "value"], summary)
