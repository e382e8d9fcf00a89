r"""
Predict, then check: the ledgers against published measurements
================================================================

How close does the roofline come to a real GPU, and where does the rest of the
time go? Every earlier lecture predicted from datasheet peaks. Here we take times
that others measured and published, a 13B model served with FasterTransformer on
A100 40GB and single matmuls timed by an open serving simulator, and predict each
one twice: at the datasheet's *spec* roofs and at *achievable* roofs that good
kernels measured on the same chips. Then we split each gap into named terms, say
plainly what stays unexplained, and try the method on published requests, keeping
the ones its terms were taken from (calibration) apart from the ones it only checks
(validation), and on hundreds of runs of one engine's own benchmark.

The measurements and their sources are in ``common/tables/measurements.py``, both
sets of roofs in the hardware table ``common/hw_specs.py``, the formulas in
``common/formulas/predict.py`` and the tables and sentences in
``lectures/words/predict_and_check.py``. Nothing is timed here. To predict your own
model, run ``python3 -m common.predict --config config.json --chip a100-80gb``.

Run it with ``python3 lectures/11_predict_and_check.py`` (standard library only, a
few seconds). Add ``--png`` to save ``11_predict_and_check.png`` (needs
matplotlib) into ``--outdir DIR`` (default: ``figures/``).
"""

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from dataclasses import replace
from functools import partial

from common.formulas import predict
from common.formulas.roofline import matmul_counts
from common.formulas.transformer import batch_grid, decode_ledger, prefill_ledger
from common.hw_specs import A100, A100_80GB, get_chip
from common.present.display import show
from common.shell.cli import parse_args, png_parser
from common.tables import engines
from common.tables import measurements as pub
from lectures.words import predict_and_check as page

# sphinx_gallery_start_ignore
ABOUT = {"flags": (), "bare": True}
make_parser = partial(png_parser, __doc__)  # the command line: --png and --outdir
args = parse_args(make_parser())  # a bad --outdir, or --png without matplotlib, is said here
# sphinx_gallery_end_ignore

# %%
# 1. Two sets of roofs
# --------------------
#
# A datasheet peak is what the silicon could do if every cycle did useful work. A
# measured *achievable* roof is what the best kernel someone found actually did: the
# fastest dense matmul shape of a brute-force search, a memory-bound kernel's
# bandwidth, the bus bandwidth of a large all-reduce. Where nobody published a figure
# the table says so and the spec value stands in. The A100 comes in two memories; the
# 80GB part moves a third more bytes per second, so each measurement meets the roofs of
# the part it ran on.

# datasheet roofs (peak, HBM, NVLink), and measured ones (spec where none is published)
spec, ach = predict.spec_roofs(A100, "bf16"), predict.achievable_roofs(A100, "bf16")
spec80, ach80 = predict.spec_roofs(A100_80GB, "bf16"), predict.achievable_roofs(A100_80GB, "bf16")

show(page.roofs_table(A100, spec, ach, "bf16"), page.roofs_table(A100_80GB, spec80, ach80, "bf16"))

# %%
# 2. The 13B model on one and two GPUs
# ------------------------------------
#
# The benchmark runs a 13B GPT-style model at batch 1: a 512-token prompt in one
# pass (prefill), then one token per step (decode). With two GPUs every matmul and
# attention head is split in half (tensor parallelism), and each layer pays two
# all-reduces of the activations [tokens, d_model]: 10 KB in decode, 5 MB in prefill.
# We read each one's time off a curve of all-reduce time against message size,
# measured on a DGX A100 for 2, 4 and 8 GPUs, at its real size. On two GPUs the blog's
# profile found its matmuls at 87% of the HBM bandwidth, not the 90% of one GPU, so
# that case uses 87%.

curve = pub.ALLREDUCE_CURVES[A100.key]  # GPUs -> (bytes, seconds) measured
cases, decomps, ledgers, left_out = [], [], [], []
for run in pub.FT_13B:
    build = prefill_ledger if run.phase == "prefill" else decode_ledger
    ledger = build(pub.GPT_13B, 1, run.tokens)  # FLOPs and bytes of every operator
    label = f"{run.phase}, {run.gpus} GPU" + ("s" if run.gpus > 1 else "")
    if run.gpus > 1 and spec.link_bw is None:  # its all-reduces need the table's link figure
        left_out.append(label)
        continue
    roofs = ach  # the blog's own 2-GPU bandwidth share where it measured one
    if run.gpus in pub.KIPPLY_HBM_SHARE:
        roofs = ach._replace(mem_bw=pub.KIPPLY_HBM_SHARE[run.gpus] * spec.mem_bw)
    t_spec = predict.bound_time(ledger, spec, run.gpus)  # roofline + the all-reduces' ring bytes
    t_ach = predict.bound_time(ledger, roofs, run.gpus)
    cases.append(page.Case(label, run.measured, t_spec, t_ach))
    args_d = (ledger, spec, roofs, run.measured.seconds, run.gpus, curve, pub.small_kernel_floor())
    decomps.append(predict.decompose(*args_d))
    ledgers.append((label, ledger, run))

show(
    page.cases_table(cases, f"{pub.GPT_13B.name} on {A100.name}"),
    page.cases_observations(cases, page.shared_roofs(A100, "bf16", pub.KIPPLY_TITLE)),
    page.BOUND_NOTE,
    *page.left_out(left_out),
)

# %%
# 3. Where the gap goes
# ---------------------
#
# Start from the spec roofline and move one roof at a time to its achievable value:
# first the matmul peak, then the memory bandwidth. Add the all-reduces read off the
# measured curve, and the fixed cost of each kernel: the smallest kernels the simulator
# timed take a few microseconds however little they do, so every operator takes at
# least that. What the named terms do not cover is left as *unexplained*. The blog
# profiled the same runs, so one term can be checked against its profile: the
# all-reduce time per layer.

labels = [c.label for c in cases]
_, two_gpu_decode, run2 = ledgers[-1]  # decode on two GPUs: the blog profiled its comms
per_layer = predict.comm_time(two_gpu_decode, run2.gpus, ach.link_bw, curve) / pub.GPT_13B.n_layers
show(
    page.decomposition_table(labels, decomps),
    page.decomposition_observations(labels, decomps, [c.achievable for c in cases]),
    *([page.comms_observation(per_layer, pub.KIPPLY_COMMS_PER_LAYER)] if run2.gpus > 1 else []),
)

# %%
# 4. One matmul, token by token: the knee
# ---------------------------------------
#
# A whole model mixes many operators. A single matmul :math:`X[n, K] \cdot W[K, N]`
# shows the roofline's shape directly: for small :math:`n` the weights dominate the
# bytes, so the time stays flat at :math:`KN \cdot 2 / \beta`; past the ridge the
# :math:`2nKN` FLOPs take over and the time grows with :math:`n`. The simulator timed
# Llama-2-7B's fused projections on one A100 80GB at many token counts, so they meet
# the 80GB part's roofs (whose achievable bandwidth is this very kernel at one token).

op_rows = []
for r in pub.VIDUR_A100_MATMULS:
    f, d = matmul_counts(r.n_tokens, r.K, r.N)  # bf16: 2 bytes for X, W and the output
    t_s = predict.matmul_time(r.n_tokens, r.K, r.N, spec80)
    t_a = predict.matmul_time(r.n_tokens, r.K, r.N, ach80)
    op_rows.append(page.OpRow(name=r.name, n=r.n_tokens, flops=f, nbytes=d,
                              measured=r.measured.seconds, spec=t_s, achievable=t_a))  # fmt: skip

up = [r for r in pub.VIDUR_A100_MATMULS if r.name == "gate+up projection"]
tokens = [r.n_tokens for r in up]
FLAT = 0.25  # "flat": within 25% of the 1-token time
flat = predict.flat_until(tokens, [r.measured.seconds for r in up], FLAT)
ridges = [predict.ridge_tokens(up[0].K, up[0].N, roofs) for roofs in (spec80, ach80)]

knee = page.knee_observations(name=up[0].name, tokens=tokens, flat=flat, spec_ridge=ridges[0],
                              ach_ridge=ridges[1], tolerance=FLAT)  # fmt: skip
table = page.operator_table(op_rows, f"bf16 matmul on {A100_80GB.name}", spec80)
show(table, knee, page.beats_roof_observations(op_rows))

# %%
# 5. MFU and MBU
# --------------
#
# *Model FLOPs utilisation* divides the FLOPs the model needs (the ledger's, not the
# kernels' extra work) by what the GPUs could do in the measured time at spec peak;
# *memory-bandwidth utilisation* divides the bytes the model must move (weights, KV
# cache, activations) by what the memory could move in that time. A memory-bound step
# should be judged by MBU, a compute-bound one by MFU.

utils = []
for label, led, run in ledgers:
    t, g = run.measured.seconds, run.gpus  # g GPUs share the work
    utils.append(page.Util(label=label, flops=led.flops, nbytes=led.nbytes, seconds=t,
                           mfu=predict.mfu(led.flops, t * g, spec.peak),
                           mbu=predict.mbu(led.nbytes, t * g, spec.mem_bw)))  # fmt: skip

show(page.utilisation_table(utils, spec.peak, spec.mem_bw), page.utilisation_observations(utils))

# %%
# 6. Calibration and validation: published requests
# --------------------------------------------------
#
# A method checked on the cases it was built from proves little. Here it meets whole requests
# others timed: FasterTransformer's own GPT tables (1 to 8 A100 80GB), TensorRT-LLM's A100 and
# H100 tables (first-token latencies at batch 1, and large batches on H100 in FP8 and A100 in
# FP16) and its H200 launch blog's (large batches in FP8), the blog's two totals, gpt-fast's
# eager PyTorch on one A100, the serving engines' own pages (vLLM's benchmark CI on H100, H200
# and A100, LMDeploy's A100 table, NVIDIA NIM on two H100s), Argonne's benchmark of vLLM 0.5
# and TensorRT-LLM 0.11 on 1 to 4 H100s, GPUStack's Qwen3-8B on one H100 under vLLM 0.11,
# SGLang 0.5 and TensorRT-LLM 1.2 (ShareGPT requests, 1 to 8 at a time), SGLang's DeepSeek-V3
# in FP8 on eight H200s (v0.4.1, batch 1 to 32) and eight B200s (May 2025, batch 1 and 32),
# and NVIDIA's NIM course data (Llama-3 8B and 70B, one request at a time on 1 to 8 A100s or
# H100s, in 16 bits and FP8, prompts of 200 to 7,000 tokens). Each is predicted twice: by the
# roofline *bound* alone, and by the *forecast* of ``python3 -m common.predict --engine E``, E
# the class of its engine (``trtllm``, ``trtllm-single-block``, ``trtllm-mmha``, ``vllm``,
# ``sglang``, ``vllm-single-step-flash``, ``vllm-single-step``, ``vllm-eager`` or ``eager``).
# The forecast is the bound plus the engine terms of ``common/tables/engines.py``:
#
# - a GEMM's measured share of the peak at the request's rows (a routed expert's at the rows
#   each expert meets), on one GPU's shard under the request's tensor parallelism, where
#   those rows make it compute-bound;
# - a weight read's start-up time plus its bytes over a measured bandwidth, t0 + D / beta:
#   the line through vidur's one-row projections of eight models on 1 to 8 GPUs, every other
#   kernel's bytes at beta too (carried to a chip it was not measured on, no faster than
#   what that chip itself streams);
# - the smallest kernel's time, as a floor under every kernel;
# - the all-reduce curve of its node or of its engine;
# - the CPU's scheduling cost per step where the engine leaves the GPU waiting for it, and
#   its cost per kernel launch where no CUDA graph launches them;
# - an FP8 layer's *input quantization* where the engine runs it as a kernel of its own
#   (SGLang before each FP8 linear layer, SGLang and vLLM before a fused MoE's two GEMMs);
# - the *KV re-read per query head*: a decode attention of one block per query head (vLLM's
#   before v0.4.3, FasterTransformer's, TensorRT-LLM's masked MHA, which v0.8 to v0.10 run for
#   any group but XQA's 8 query heads a KV head, and for those too while a GPU's KV heads x
#   batch stay under a quarter of its SMs) walks each shared KV head once per query head, at
#   the rate solved from TensorRT-LLM 0.9's Mistral-7B runs at batch 64 and 120;
# - *one block per KV head*: a decode attention that gives each sequence's KV head one thread
#   block over its whole cache (TensorRT-LLM before v0.12, FasterTransformer) is no faster
#   than that block's bytes at the rate one block streams, solved from TensorRT-LLM 0.9's
#   Mistral-7B runs for the time a step gains per cached token.
#
# A case a term was taken from is *calibration*; every other case only checks
# (*validation*), and a new source always enters as validation.

informed = {label for term in engines.all_terms() for label in term.informs}


def predicted(r: pub.Request) -> page.RequestRow | None:
    """Request `r`'s bound and forecast on its chip; None where its GPUs have no link figure."""
    chip = get_chip(r.chip)
    if r.gpus > 1 and chip.link_bw_figure is None:  # its all-reduces need the link figure
        return None
    dt = predict.engine_dtypes(r.precision, r.engine_class)
    req = predict.Request(model=r.model, gpus=r.gpus, batch=r.batch, prompt=r.prompt,
                          new_tokens=r.new_tokens, dtypes=dt)  # fmt: skip
    spec_r = predict.spec_roofs(chip, r.precision)
    eng = predict.engine_roofs(chip, r.engine_class, r.precision, r.gpus)
    if r.chip == A100.key and r.gpus == 2:  # the blog's two-GPU share, from these very runs
        eng = replace(eng, hbm_share=engines.KIPPLY_TWO_GPU_SHARE.value)
    full = predict.forecast(req, spec_r, eng)
    role = "calibration" if r.label in informed else "validation"
    return page.RequestRow(label=r.label, engine=r.engine, gpus=r.gpus, precision=r.precision,
                           measured=r.measured.seconds, bound=full.bound_s,
                           forecast=full.total_s, role=role, chip=r.chip,
                           engine_class=r.engine_class, batch=r.batch, prompt=r.prompt)  # fmt: skip


rows = [predicted(r) for r in pub.ALL_REQUESTS]
unlinked = [r.label for r, row in zip(pub.ALL_REQUESTS, rows, strict=True) if row is None]
rows = [row for row in rows if row]
show(page.requests_table(rows), page.requests_observations(rows), *page.left_out(unlinked))

# %%
# 7. A bulk check: TensorRT-LLM 0.9's own runs
# ---------------------------------------------
#
# A handful of cases from each source can hide a bias that hundreds would show. NVIDIA's
# course data also holds runs of TensorRT-LLM 0.9's own benchmark: Llama-2 7B, 13B and 70B
# and Mistral 7B on 1 to 8 A100 80GB, H100 or H200 GPUs, in 16 bits and in FP8, each one
# batch of 1 to 1,536 sequences with prompts of 128 or 2,048 tokens and 128 to 4,096 new
# tokens. Each run is predicted as above, with the ``trtllm-single-block`` class. Mistral
# 7B's runs after a 128-token prompt at batch 1 gave one block's rate, and at batch 64 and
# 120 with 2,048 new tokens the walk per query head: they are calibration, the rest
# validation. The table groups the validation runs by chip and precision, the list below it
# both roles, then the validation runs by GPU count, batch, prompt and precision.

bulk = [predicted(r) for r in pub.dli_requests()]
unheld = sum(row is None for row in bulk)  # runs on several GPUs of a chip with no link figure
bulk = [row for row in bulk if row]
left = [f"{unheld:,} of its runs on 2 to 8 GPUs"] * bool(unheld)
checked = [row for row in bulk if row.role == "validation"]
show(page.bulk_table(checked), page.requests_observations(bulk), *page.left_out(left))

# %%
# 8. The figure
# -------------
#
# With ``--png``: the model's cases as bars, and the fused gate+up projection's
# measured times against both predicted curves and their ridges.

if args.png:
    from common.plots.predict import CaseBars, OperatorCurve, predict_figure

    grid = batch_grid(2 * tokens[-1])  # n from 1 to twice the largest measured
    curve = OperatorCurve(
        f"{up[0].name} [n, {up[0].K:,}] x [{up[0].K:,}, {up[0].N:,}], bf16",
        [(r.n_tokens, r.measured.seconds) for r in up],
        [(n, predict.matmul_time(n, up[0].K, up[0].N, spec80)) for n in grid],
        [(n, predict.matmul_time(n, up[0].K, up[0].N, ach80)) for n in grid],
        *ridges,
    )
    bars = [CaseBars(c.label, c.measured.seconds, c.spec, c.achievable) for c in cases]
    out = args.outdir / "11_predict_and_check.png"
    path = predict_figure(out, bars, curve, f"{pub.GPT_13B.name}, A100 40GB")
    show(page.figure(path, page.figure_caption(cases, up[0].name, tokens[flat], ridges[0])))
else:
    show(page.png_hint("11_predict_and_check.png"))

# %%
# Sources
# -------
#
# Every measured number above, with the page, table or section it stands in.

terms = [*(t.source for t in engines.all_terms()), engines.FP8_ENGINE_BUILD, engines.VLLM_CUSTOM_AR,
         engines.TRTLLM_CUSTOM_AR, engines.FP8_QUANT]  # fmt: skip
terms += [engines.KV_SOURCES[engines.ENGINES[r.engine_class].kv_reads] for r in pub.ALL_REQUESTS]
terms.append(engines.QUANTIZED_BODY)  # the FP8 engines' 16-bit embedding and LM head
show(page.sources_text([*pub.sources(), *terms]))
