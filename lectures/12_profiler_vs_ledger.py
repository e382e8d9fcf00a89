r"""
Profiler against ledger: does a real model spend its time where the ledger says?
================================================================================

Every earlier lecture predicted an operator's time from its FLOPs and bytes. Here we
run a small decoder-only transformer, written below in plain PyTorch with random
weights (nothing is downloaded), on this machine, record it with
``torch.profiler`` and read the profiler's numbers against the course's ledger:
per operator, in FLOPs, in prefill and decode, in memory, and on a timeline.

It needs PyTorch, the course's ``profile`` extra: ``make profile``, or
``pip install -e ".[profile]"`` (the README says how to get the CPU build).
Without it the lecture prints one line saying so and exits with status 0.

Run it with ``python3 lectures/12_profiler_vs_ledger.py [--quick] [--outdir DIR]
[--shrink N] [--memory-limit GIB] [--time-limit S]``. The model has Llama 3 8B's
shapes with every width and head count divided by ``--shrink`` (default 4, doubled
while one layer would not fit ``--memory-limit``); the number of layers is chosen to fit
the time and memory budget (default 30 s and 2 GiB; under 10 s, ``--quick``'s sizes).
The Chrome trace and the timeline figure go to ``--outdir`` (default ``figures/``).
"""

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

import importlib.util
import tempfile
from functools import partial
from pathlib import Path

from common.files.atomic import atomic_write_with, writable_dir
from common.formulas import roofline
from common.formulas.transformer import (
    ATTENTION_PRODUCTS,
    DTypes,
    decode_ledger,
    model_memory_ledger,
    prefill_ledger,
)
from common.measure import budget, torch_roofs
from common.measure.timing import best_time
from common.plots import style
from common.plots.timeline import timeline_figure
from common.present.display import figure, show
from common.shell import cli
from common.tables.models import LLAMA_3_8B, shrunk
from lectures.words import profiler_vs_ledger as page

# sphinx_gallery_start_ignore
ABOUT = {"budget": (30, 2), "needs": ("torch",)}


def make_parser() -> cli.LectureParser:
    """The command line: --quick, --outdir, --shrink and the budget flags."""
    parser = cli.lecture_parser(__doc__)
    quick = "a one-layer model, a short prompt and quick roofs (for tests)"
    parser.add_argument("--quick", action="store_true", help=quick)
    cli.add_outdir_flag(parser, what="folder for the trace and the timeline figure")
    parser.add_argument(
        "--shrink", type=cli.int_in(1, budget.MAX_SHRINK, "shrink"), default=None, metavar="N",
        help=f"divide Llama 3 8B's widths and head counts by N (default {budget.SHRINK}, "
        "doubled while one layer's weights would not fit --memory-limit)")  # fmt: skip
    return budget.add_flags(parser, "12")


args = cli.parse_args(make_parser())
if importlib.util.find_spec("torch") is None:
    print(page.NEEDS_TORCH)
    raise SystemExit(0)
style.require_matplotlib()  # the timeline figure, checked before any work: one line, exit 1
plan = budget.from_args(args)  # the budget, --shrink and a broken torch checked before any work
args.shrink = budget.profiled_shrink(LLAMA_3_8B, plan, args.shrink)
args.quick = budget.short_run(plan, args.quick)  # a --time-limit too short for more: --quick's
torch_roofs.check_import()
# sphinx_gallery_end_ignore

# %%
# 1. The model, and this machine's torch roofs
# --------------------------------------------
#
# The model is the ledger's: pre-norm RMSNorm, grouped-query attention with a KV
# cache, a gated SiLU MLP, every matmul written as ``x @ W``. Each operator runs
# inside ``record_function`` with the ledger's name for it, so the profiler's rows
# and the ledger's rows meet by name. The roofs are measured with torch the way
# lecture 01 measures numpy's: a square ``torch.mm`` and a streaming ``torch.add``.
import torch
from torch.nn.functional import silu
from torch.profiler import record_function as step

# sphinx_gallery_start_ignore
device = "cuda" if torch.cuda.is_available() else "cpu"
gpu = device == "cuda"
bf16_ok = torch.cuda.is_bf16_supported() if gpu else torch.ops.mkldnn._is_mkldnn_bf16_supported()
precisions = ["fp32", "bf16"] if bf16_ok else ["fp32"]
DTYPE = {p: getattr(torch, name) for p, name in torch_roofs.TORCH_DTYPES.items()}
prompt, steps = (64, 4) if args.quick else (256, 16)
base = shrunk(LLAMA_3_8B, args.shrink)
torch.manual_seed(0)


def weights(m, dtype):
    """Random weights of model m: each matrix [in, out], uniform with variance 1 / in."""
    d, ones = m.d_model, lambda: torch.ones(m.d_model, dtype=dtype, device=device)

    def w(k, n):
        return torch.rand(k, n, dtype=dtype, device=device).sub_(0.5).mul_((12 / k) ** 0.5)

    def layer():
        return dict(n1=ones(), wq=w(d, m.q_dim), wk=w(d, m.kv_dim), wv=w(d, m.kv_dim),
                    wo=w(m.q_dim, d), n2=ones(), wg=w(d, m.d_ff), wu=w(d, m.d_ff),
                    wd=w(m.d_ff, d))  # fmt: skip

    return dict(emb=w(m.vocab_size, d), layers=[layer() for _ in range(m.n_layers)],
                norm=ones(), head=w(d, m.vocab_size))  # fmt: skip


# sphinx_gallery_end_ignore


def rmsnorm(x, g):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * g


def attention(m, w, h, layer_cache, pos):
    """Grouped-query attention of T new tokens at positions pos..pos+T-1, with a KV cache."""
    B, T, _ = h.shape
    H, Hkv, dh, end = m.n_heads, m.n_kv_heads, m.d_head, pos + h.shape[1]
    k_cache, v_cache = layer_cache
    with step("Q projection"):
        q = (h @ w["wq"]).view(B, T, H, dh).transpose(1, 2)
    with step("K projection"):
        k_cache[:, :, pos:end] = (h @ w["wk"]).view(B, T, Hkv, dh).transpose(1, 2)
    with step("V projection"):
        v_cache[:, :, pos:end] = (h @ w["wv"]).view(B, T, Hkv, dh).transpose(1, 2)
    k = k_cache[:, :, :end].repeat_interleave(H // Hkv, 1)  # each KV head serves H/Hkv
    v = v_cache[:, :, :end].repeat_interleave(H // Hkv, 1)
    with step("scores Q K^T"):
        scores = (q @ k.transpose(-1, -2)) * dh**-0.5
        if T > 1:  # causal mask: a token sees only the keys up to its own position
            mask = torch.ones(T, end, dtype=torch.bool, device=device).triu(pos + 1)
            scores = scores.masked_fill(mask, float("-inf"))
    with step("softmax"):
        probs = torch.softmax(scores, -1)
    with step("weighted sum P V"):
        o = (probs @ v).transpose(1, 2).reshape(B, T, m.q_dim)
    with step("output projection"):
        return o @ w["wo"]


# %%
# The MLP is three matmuls around the SiLU; a layer adds both halves to its input
# (the residual adds), and the last position's logits pick the next token.


def forward(m, p, cache, tokens, pos):
    """One pass over T new tokens per sequence; returns the last position's logits."""
    with step("embedding lookup"):
        x = p["emb"][tokens]
    for w, layer_cache in zip(p["layers"], cache, strict=True):
        with step("attention norm"):
            h = rmsnorm(x, w["n1"])
        o = attention(m, w, h, layer_cache, pos)
        with step("residual add"):
            x = x + o
        with step("MLP norm"):
            h = rmsnorm(x, w["n2"])
        with step("gate projection"):
            g = h @ w["wg"]
        with step("up projection"):
            u = h @ w["wu"]
        with step("SiLU x up"):
            a = silu(g) * u
        with step("down projection"):
            f = a @ w["wd"]
        with step("residual add"):
            x = x + f
    with step("final norm"):
        h = rmsnorm(x[:, -1:], p["norm"])  # the next token needs only the last position
    with step("LM head"):
        return h @ p["head"]


# %%
# A run is one prompt pass (prefill), then one new token per step (decode), each
# recorded under its phase's name so the trace shows where one ends and the next begins.


def generate(m, p, cache, prompt_tokens, steps):
    """Prefill the prompt, then decode `steps` tokens one at a time (greedy)."""
    with step("prefill"):
        nxt = forward(m, p, cache, prompt_tokens, 0).argmax(-1)
    for j in range(steps):
        with step("decode"):
            nxt = forward(m, p, cache, nxt, prompt_tokens.shape[1] + j).argmax(-1)


def kv_cache(m, dtype, context):
    zeros = partial(torch.zeros, (1, m.n_kv_heads, context, m.d_head), dtype=dtype, device=device)
    return [[zeros() for _ in "kv"] for _ in range(m.n_layers)]


def run_s(m, dtype):
    """Seconds of one first, unprofiled generate() of model m (weights made off the clock)."""
    p, tokens = weights(m, dtype), torch.randint(0, m.vocab_size, (1, prompt), device=device)
    with torch.inference_mode():
        cache = kv_cache(m, dtype, prompt + steps)
        return best_time(lambda: generate(m, p, cache, tokens, steps), repeat=1, warmup=0)


roofs = {p: torch_roofs.measure(p, device, args.quick, plan) for p in precisions}
if args.quick:
    model = shrunk(LLAMA_3_8B, args.shrink, 1)
else:  # as many layers as the time budget allows, from the time of one layer's run
    layer_s = run_s(shrunk(LLAMA_3_8B, args.shrink, 1), DTYPE["fp32"])  # with the ends
    layers = budget.profiled_layers(base, layer_s, len(precisions), plan)
    model = shrunk(LLAMA_3_8B, args.shrink, layers)
show(page.setup_table(page.Setup(model=model, prompt=prompt, steps=steps, device=device,
     threads=torch.get_num_threads(), roofs=[roofs[p] for p in precisions])))  # fmt: skip

# %%
# 2. The profiler's own table
# ---------------------------
#
# One prompt pass and a few decode steps, recorded with the shapes of every call,
# the memory it allocated and the FLOPs the profiler knows how to count. The table holds
# the numbers of the one ``key_averages().table()`` prints: the operators that took the
# most time themselves (*self* time leaves out the operators they called), one row for
# each operator and shape of its inputs, over the whole run.

from torch.profiler import ProfilerActivity, profile

activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else [])
runs = {}
for precision in precisions:
    dtype = DTYPE[precision]
    p = weights(model, dtype)
    tokens = torch.randint(0, model.vocab_size, (1, prompt), device=device)
    with torch.inference_mode():
        generate(model, p, kv_cache(model, dtype, prompt + steps), tokens, 1)  # warm-up
        cache = kv_cache(model, dtype, prompt + steps)
        recorder = profile(activities=activities, record_shapes=True, profile_memory=True,
                           with_flops=True)  # fmt: skip
        with torch_roofs.kineto_quiet(), recorder as prof:
            generate(model, p, cache, tokens, steps)
    runs[precision] = prof, sum(t.numel() * t.element_size() for kv in cache for t in kv)
    del p, cache

prof = runs["fp32"][0]
show(page.profiler_table(prof.key_averages(group_by_input_shape=True), gpu, steps))

# %%
# 3. The timeline
# ---------------
#
# The profiler also writes every call with its start and duration as a Chrome trace.
# We read that file back and draw the prompt pass from it: one row per ledger
# operator, a bar per call. White space between bars is time no operator accounts for:
# Python running the model, the profiler itself.


# sphinx_gallery_start_ignore
def read_back(prof, keep=None):
    """The profile's Chrome trace, exported, read back and (at `keep`) saved atomically."""
    with tempfile.TemporaryDirectory(dir=writable_dir(args.outdir)) as tmp:  # not in TMPDIR
        path = Path(tmp, "trace.json")
        torch_roofs.export_trace(prof, path, args.outdir)
        if keep is not None:
            atomic_write_with(keep, lambda f: f.write(path.read_bytes()))
        spans, memory = torch_roofs.read_trace(path, 1 if gpu else 0)
    return torch_roofs.Trace(spans, memory, "gpu_user_annotation" if gpu else "user_annotation")


trace_path = args.outdir / "12_profiler_vs_ledger_trace.json"
traces = {p: read_back(runs[p][0], trace_path if p == "fp32" else None) for p in precisions}
# sphinx_gallery_end_ignore
trace = traces["fp32"]
prefill_span = trace.phase("prefill")[0]
ledger_fp32 = prefill_ledger(model, 1, prompt, DTypes("fp32", "fp32", "fp32"), materialized=True)
rows = trace.rows([op.name for op, _ in ledger_fp32.counted()], prefill_span)
title = f"{model.name}, fp32 prompt pass of {prompt} tokens, from the Chrome trace"
path = timeline_figure(args.outdir / "12_profiler_vs_ledger.png", rows, title)
timeline = page.Timeline(trace_path, prefill_span.dur_us, trace.busy_us(prefill_span),
                         len(trace.spans))  # fmt: skip
show(figure(path, page.timeline_caption(timeline)), page.timeline_text(timeline))

# %%
# 4. Prediction beside measurement, operator by operator
# ------------------------------------------------------
#
# For each operator of the prompt pass: the ledger's FLOPs and bytes for exactly these
# shapes (``materialized=True``: this attention writes its score matrix), its bound
# :math:`\max(F/P, D/\beta)` at the torch roofs measured above, the time the trace
# gives it and the share of that time the bound explains. Below, the profiler's
# operators that the ledger has no row for at all.

rf = roofs["fp32"]
op_rows = []
for name, bars in rows:
    ops = [(op, c) for op, c in ledger_fp32.counted() if op.name == name]
    calls, flops = sum(c for _, c in ops), sum(op.flops * c for op, c in ops)
    nbytes = sum(op.nbytes * c for op, c in ops)
    bound = roofline.lower_bound_time(flops, nbytes, rf.peak, rf.bw)
    op_rows.append(page.OpRow(name=name, calls=calls, flops=flops, nbytes=nbytes, bound_s=bound,
                   measured_s=sum((d for _, d in bars)) / 1000.0))  # fmt: skip

stats = torch_roofs.op_stats(prof.key_averages(), device=gpu)
show(page.operator_table(op_rows, rf), page.operator_observations(op_rows, stats, steps))

# %%
# 5. The profiler's FLOPs against the ledger's, and MFU
# -----------------------------------------------------
#
# ``with_flops=True`` attaches a FLOP count to the operators PyTorch has a formula for:
# matrix products and a few elementwise ones. Model FLOPs utilisation must divide the
# model's own FLOPs (the ledger's) by the wall time of the pass and the matmul roof:
# the profiler's count is a property of the kernels, not of the model.

passes = [ledger_fp32] + [decode_ledger(model, 1, prompt + j + 1, ledger_fp32.dtypes, True)
                          for j in range(steps)]  # fmt: skip
products = [(op, c) for led in passes for op, c in led.counted() if op.name in ATTENTION_PRODUCTS]
flop_count = page.FlopCount(
    ledger_flops=sum(led.flops for led in passes),
    profiler_flops=sum(s.flops for s in stats),
    profiler_mm_flops=sum(s.flops for s in stats if s.name in torch_roofs.WEIGHT_MATMULS),
    profiler_bmm_flops=sum(s.flops for s in stats if s.name in torch_roofs.BATCHED_MATMULS),
    ledger_matmul_flops=sum(led.kind_total("matmul") for led in passes),
    ledger_attention_flops=sum(op.flops * c for op, c in products),
    prefill_flops=ledger_fp32.flops, prefill_s=prefill_span.dur_us / 1e6, peak=rf.peak,
    steps=steps)  # fmt: skip
show(page.flops_observations(flop_count))

# %%
# 6. Prefill against decode, and memory
# -------------------------------------
#
# A decode step reads every weight for one token, so its intensity falls far below the
# ridge, on a CPU as on a GPU. The profiler also recorded every allocation: its peak
# during the prompt pass is set against the capacity ledger's activations, and the
# KV cache we allocated against the ledger's KV-cache term.

phases = []
for precision in precisions:
    dt, r, tr = DTypes(precision, precision, precision), roofs[precision], traces[precision]
    last_step = decode_ledger(model, 1, prompt + steps, dt, materialized=True)
    for led in (prefill_ledger(model, 1, prompt, dt, materialized=True), last_step):
        span = tr.phase(led.phase)[-1]  # the prompt pass, or the last decode step
        cap = model_memory_ledger(model, 1, led.context, dt, phase=led.phase)
        bound = roofline.lower_bound_time(led.flops, led.nbytes, r.peak, r.bw)
        phases.append(page.Phase(name=led.phase, precision=precision, tokens=led.tokens,
                      flops=led.flops, nbytes=led.nbytes, bound_s=bound,
                      measured_s=span.dur_us / 1000000.0, ridge=r.ridge,
                      peak_bytes=tr.peak_above(span), activations=cap.activations,
                      kv_cache=cap.kv_cache, kv_allocated=runs[precision][1]))  # fmt: skip
show(page.phase_table(phases), page.phase_observations(phases))
