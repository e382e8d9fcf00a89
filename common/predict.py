"""``python3 -m common.predict``: predict a model's latency on a chip from the ledgers.

Serving: ``--ep N`` spreads a mixture's routed experts over the N GPUs of ``--gpus``
(which defaults to N and must equal it) and runs the rest data-parallel, each GPU its
share of the batch with those weights whole, as DeepSeek-V3 and DeepEP deploy it: no
all-reduce, and each MoE layer's dispatch and combine added to the forecast;
``--speculate K --acceptance A`` drafts K tokens a step, each accepted with probability
A, with ``--draft-config FILE`` as the draft model or else a one-layer draft head whose
cost the output states. A throughput line per GPU closes the output.
Standard library only; a bad flag or config, a request past the window, one whose
weights and KV cache outgrow the GPUs' memory or whose tensor parallelism spans more than
one node (``Chip.node_gpus``) is one line, exit 2.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

if not __package__:  # run as a file (python3 common/predict.py): import from the repository
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from common.shell import boot

if __name__ == "__main__":
    boot.start("common.predict")

from common.formulas import transformer as llm
from common.formulas.predict import (
    EP_TERMS,
    Request,
    achievable_roofs,
    compute_precision,
    engine_dtypes,
    engine_roofs,
    ep_network,
    forecast,
    request_bound,
    spec_roofs,
    speculate,
)
from common.formulas.serving import tokens_per_s_per_gpu
from common.formulas.transformer import DTypes, parameter_count
from common.hw_specs import BYTES_PER_ELEM, CHIPS, Chip, get_chip
from common.present.console import fmt_fraction, fmt_time, format_table
from common.shell.cli import LectureParser, batch_size, number_in, one_of, path_text, positive_int
from common.tables.configs import model_from_config, read_config
from common.tables.engines import ENGINES, WEIGHT_ONLY
from common.tables.models import MODELS, MOE_MODELS, Model, get_model
from common.tables.units import GB

__all__ = ["main", "model_from_config", "read_config"]


def make_parser() -> LectureParser:
    """The command line."""
    parser = LectureParser(
        prog="common.predict", description=__doc__.split("\n\n")[0].replace("``", ""))  # fmt: skip
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--config", type=path_text, metavar="FILE", help="a config.json")
    table = {**MODELS, **MOE_MODELS}
    which.add_argument("--model", type=one_of(table, "model"), help=", ".join(table))
    chips = f"{', '.join(CHIPS)} (a100-80gb)"
    parser.add_argument("--chip", type=one_of(CHIPS, "chip"), default="a100-80gb", help=chips)
    parser.add_argument("--gpus", type=positive_int,
                        help="tensor parallel, within one node (1; --ep N: N)")  # fmt: skip
    parser.add_argument("--batch", type=batch_size, default=1, help="sequences (1)")
    parser.add_argument("--prompt", type=positive_int, default=512, help="prompt tokens (512)")
    parser.add_argument("--new-tokens", type=positive_int, default=128, help="generated (128)")
    parser.add_argument(
        "--precision", type=one_of(BYTES_PER_ELEM, "precision"),
        help=f"weights: {', '.join(BYTES_PER_ELEM)} (the config's quantization_config, else bf16; "
        "the KV cache's: per --engine; 16 bits or fewer on a chip with no peak for them: the "
        "matmuls at its bf16 peak, weight-only)",
    )  # fmt: skip
    parser.add_argument(
        "--engine", type=one_of(ENGINES, "engine"),
        default="vllm",  # pragma: no mutate ('VLLM' too: argparse passes it through one_of)
        help="; ".join(f"{k}: {e.what}" for k, e in ENGINES.items()) + " (vllm)",
    )  # fmt: skip
    parser.add_argument("--ep", type=positive_int, metavar="N", help="expert parallel over N GPUs")
    parser.add_argument("--speculate", type=positive_int, metavar="K", help="draft tokens a step")
    parser.add_argument(
        "--acceptance", type=number_in(0, 1, "acceptance rate"), metavar="A",
        help="probability a draft token is accepted (with --speculate)",
    )  # fmt: skip
    parser.add_argument("--draft-config", type=path_text, metavar="FILE", help="draft config.json")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def splits(model: Model, gpus: int) -> bool:
    """Whether g GPUs split the query heads evenly and the KV heads evenly (or copy them)."""
    kv = model.n_kv_heads
    return not model.n_heads % gpus and not (kv % gpus and gpus % kv)


def memory_per_gpu(
    model: Model, dtypes: DTypes, gpus: int, batch: int, context: int, ep: bool = False
) -> float:
    """Bytes a GPU holds: N b_w / g + B x cache elements x b_kv / min(g, Hkv) (a latent cache
    on every GPU); under `ep`, N_e b_w / g + the rest whole + the cache of ceil(B / g)."""
    per_seq = llm.kv_cache_elements(model, context) * dtypes.kv_bytes
    state = llm.state_bytes(model, dtypes)  # Gated DeltaNet layers': split with their heads
    if ep:
        return llm.ep_weight_bytes(model, dtypes, gpus) + -(-batch // gpus) * (per_seq + state)
    shards = llm.kv_shards(model, gpus)  # min(g, Hkv); 1 for a latent cache
    return llm.weight_bytes(model, dtypes) / gpus + batch * (per_seq / shards + state / gpus)


def check_fits(
    model: Model, chip: Chip, dtypes: DTypes, gpus: int, batch: int, context: int, ep: bool = False
) -> None:
    """ValueError (one line) when weights and KV cache outgrow g GPUs: the fewest that hold them."""
    need = memory_per_gpu(model, dtypes, gpus, batch, context, ep)
    cap = chip.mem_capacity
    if need <= cap:
        return
    heads = model.n_experts if ep else model.n_heads  # a GPU count that splits them divides them
    top = heads if ep or chip.node is None else min(heads, chip.node)  # tensor parallel: a node
    fits = [g for g in range(1, top + 1) if not heads % g and (ep or splits(model, g))
            and memory_per_gpu(model, dtypes, g, batch, context, ep) <= cap]  # fmt: skip
    node = f" within one node of {top} GPUs" if top < heads else ""
    what = f"no split of its {heads:,} {'experts' if ep else 'heads'}{node}"
    advice = ((f"--ep {fits[0]}" if ep else f"{fits[0]} GPUs") if fits else what) + " would hold it"
    advice += "; try --ep N" * bool(not fits and model.n_experts and not ep)
    held = "weights, KV cache and state" if model.linear_layers else "weights and KV cache"
    raise ValueError(
        f"{model.name}'s {held} need {need / GB:,.1f} GB per GPU on {gpus} x {chip.name} "
        f"({fmt_fraction(cap / GB, 0)} GB each); {advice}")  # fmt: skip


def predict_request(args: Any) -> dict[str, Any]:
    """The prediction for parsed flags, as the JSON object the command prints."""
    model = read_config(args.config) if args.config else get_model(args.model)
    chip = get_chip(args.chip)
    precision = args.precision or model.quant_weights or "bf16"  # else the checkpoint's format
    dtypes = engine_dtypes(precision, args.engine)
    if args.precision is None and model.quant_experts:  # the rest stays 16-bit
        dtypes = replace(dtypes, experts=model.quant_experts)
    read = [f"precision from the config: {model.quantization}; --precision sets every weight's"
            ] if args.precision is None and model.quantization else []  # fmt: skip
    read += [f"sparse attention: an indexer ({model.index_layers} of {model.n_layers} layers) "
             f"scores every cached token, each query attends to its top {model.index_topk:,}; the "
             "top-k choice itself not timed"] * bool(model.index_layers)  # fmt: skip
    gpus = args.gpus or args.ep or 1
    if args.ep is not None:
        if not model.n_experts:
            raise ValueError(f"--ep needs a mixture of experts; {model.name} is dense")
        if model.n_experts % args.ep:
            raise ValueError(f"--ep {args.ep} does not divide {model.name}'s {model.n_experts} "
                             "experts")  # fmt: skip
        if gpus != args.ep:
            raise ValueError(f"--ep {args.ep} spreads the experts over the --gpus GPUs: give "
                             f"--gpus {args.ep} or leave it out")  # fmt: skip
    if (args.speculate is None) != (args.acceptance is None):
        raise ValueError("--speculate K and --acceptance A go together")
    if args.draft_config and args.speculate is None:
        raise ValueError("--draft-config needs --speculate K --acceptance A")
    used = args.prompt + args.new_tokens - 1  # positions: the last new token is never fed back
    if args.speculate is not None and used + args.speculate > model.max_context:
        raise ValueError(f"prompt + new tokens - 1 + {args.speculate} drafted outgrow "
                         f"{model.name}'s window of {model.max_context:,}")  # fmt: skip
    if used > model.max_context:
        raise ValueError(
            f"{args.prompt:,} prompt + {args.new_tokens:,} new tokens need {used:,} positions, "
            f"past {model.name}'s window of {model.max_context:,} (max_position_embeddings)"
        )
    tp = 1 if args.ep else gpus  # expert-parallel: the rest runs data-parallel, unsplit
    if chip.node is not None and tp > chip.node:
        ep = ", or --ep N" * bool(model.n_experts)
        raise ValueError(f"{tp} GPUs in tensor parallel span more than one node of {chip.node} x "
                         f"{chip.name}; the table has no figure for the network between nodes: "
                         f"give --gpus {chip.node} or fewer{ep}")  # fmt: skip
    draft = read_config(args.draft_config) if args.draft_config else None
    for m, which in ((model, ""), (draft, "the draft ")):
        if m is not None and not splits(m, tp):  # say which counts in a node split both
            ok = [str(g) for g in range(1, (chip.node or 2 * tp) + 1)
                  if all(splits(x, g) for x in (model, draft) if x)]  # fmt: skip
            raise ValueError(f"{gpus} GPUs cannot split {which}{m.name}'s heads (query "
                             f"{m.n_heads}, KV {m.n_kv_heads}) evenly; give --gpus "
                             + " or ".join([", ".join(ok[:-1]), ok[-1]][len(ok) < 2:]))  # fmt: skip
    check_fits(model, chip, dtypes, gpus, args.batch, used, bool(args.ep))
    compute = compute_precision(chip, precision)  # weight-only: the 16-bit network's
    spec, ach = spec_roofs(chip, compute), achievable_roofs(chip, compute)
    eng = engine_roofs(chip, args.engine, compute, tp)
    widened = [WEIGHT_ONLY.format(chip=chip.name, p=p, wide=compute) if compute_precision(
        chip, p) != p else f"the routed experts' {p} matmuls counted at the {compute} peak of the "
        "rest" for p in (precision, dtypes.experts) if p and p != compute]  # fmt: skip
    net = ep_network(chip, args.ep, dtypes.w_bytes) if args.ep else None  # the GEMMs' input
    req = Request(model=model, gpus=gpus, batch=args.batch, prompt=args.prompt,
                  new_tokens=args.new_tokens, dtypes=dtypes)  # fmt: skip
    f = forecast(req, spec, eng, net)
    total, extra = f.total_s, {}
    if args.speculate is not None:
        sp = speculate(req, spec, eng, args.speculate, args.acceptance, draft, net)
        total = sp.total_s
        extra["speculation"] = {
            "draft_tokens": args.speculate, "acceptance": args.acceptance, "draft": sp.draft,
            "tokens_per_verify_step": sp.tokens_per_step, "draft_step_s": sp.draft_step_s,
            "draft_prefill_s": sp.draft_prefill_s, "verify_step_s": sp.verify_step_s,
            "total_s": sp.total_s, "decode_speedup": sp.speedup,
        }  # fmt: skip
    if net is not None:
        extra["dispatch_s"], extra["combine_s"] = (f.decode_step[t] for t in EP_TERMS)
    tokens = args.batch * args.new_tokens
    return {
        "model": model.name, "chip": chip.name, "gpus": gpus, "batch": args.batch,
        "prompt": args.prompt, "new_tokens": args.new_tokens, "precision": precision,
        "stored": dtypes.describe(), "engine": args.engine, "ep": args.ep,
        "params_total": parameter_count(model), "params_active": llm.active_parameter_count(model),
        "prefill_s": f.prefill_s, "decode_step_s": f.decode_step_s, "total_s": f.total_s,
        "tokens_per_s": tokens / f.total_s,
        "tokens_per_s_per_gpu": tokens_per_s_per_gpu(tokens, total, gpus),
        "bound_prefill_s": f.bound_prefill_s, "bound_decode_step_s": f.bound_decode_step_s,
        "bound_total_s": request_bound(req, spec, net),
        "bound_achievable_total_s": request_bound(req, ach, net),
        "terms": {"prefill": f.prefill, "decode_step": f.decode_step},
        "measured_roofs": list(ach.measured),
        "allreduce": "none (attention data-parallel)" if args.ep else "none (one GPU)" if tp == 1
        else "measured curve" if tp in (eng.curve or {})
        else "ring bytes over the link roof, no latency",
        "left_out": [*read, *widened, *eng.notes, *(net.notes if net else ())],
        **extra,
    }  # fmt: skip


def _rate(per_s: float) -> str:
    """Tokens per second to one decimal, two significant digits below 0.05 ('0.0031')."""
    return f"{per_s:,.1f}" if per_s >= 0.05 else fmt_fraction(per_s, 1)


def render(r: Mapping[str, Any]) -> str:
    """The prediction as a readable table: the bound, each term of the gap, the forecast."""
    passes = ("prefill", "decode_step")
    steps = r["new_tokens"] > 1  # one new token comes from the prefill: no decode step runs

    def cell(p: str, seconds: float) -> str:
        return fmt_time(seconds, "ms") if steps or p == "prefill" else "-"

    rows = [(t, *(cell(p, r["terms"][p][t]) for p in passes)) for t in r["terms"]["prefill"]]
    rows.append(("forecast (sum)", *(cell(p, r[f"{p}_s"]) for p in passes)))
    sp = r.get("speculation")  # its two lines, none without --speculate
    speculation = [] if sp is None else [
        f"speculation: {sp['draft_tokens']} draft token{'s' * (sp['draft_tokens'] > 1)} a step at "
        f"acceptance {sp['acceptance']:g}: {sp['tokens_per_verify_step']:,.2f} tokens per verify "
        f"step; draft {fmt_time(sp['draft_step_s'], 'ms')} a token, verify "
        f"{fmt_time(sp['verify_step_s'], 'ms')}; request {fmt_time(sp['total_s'], 'ms')}, "
        f"decode {sp['decode_speedup']:,.2f} x as fast",
        f"draft: {sp['draft']}",
    ]  # fmt: skip
    return "\n".join([
        f"{r['model']} on {r['gpus']} x {r['chip']}, {r['stored']}, batch {r['batch']:,}, "
        f"{r['prompt']:,} prompt + {r['new_tokens']:,} new tokens, engine {r['engine']}",
        f"parameters: {r['params_total'] / 1e9:,.2f} B total, {r['params_active'] / 1e9:,.2f} B "
        "active per token",
        format_table(("term", "prefill", "decode step (mean)"), rows),
        f"bound: {fmt_time(r['bound_total_s'], 'ms')} at the datasheet's roofs (what no engine "
        f"beats), {fmt_time(r['bound_achievable_total_s'], 'ms')} at the achievable ones (what "
        "the best measured kernels reach)",
        f"forecast: {fmt_time(r['total_s'], 'ms')} = prefill + {r['new_tokens'] - 1:,} decode "
        f"steps; throughput {_rate(r['tokens_per_s'])} generated tokens/s",
        *speculation,
        f"throughput per GPU: {_rate(r['tokens_per_s_per_gpu'])} generated tokens/s "
        f"({r['batch']:,} x {r['new_tokens']:,} tokens over the "
        f"{'speculative ' if 'speculation' in r else ''}request's time on {r['gpus']} GPU"
        f"{'s' if r['gpus'] > 1 else ''})",
        f"achievable roofs measured: {', '.join(r['measured_roofs']) or 'none (spec roofs)'}; "
        f"all-reduce: {r['allreduce']}",
        *(f"left out or carried: {note}" for note in r["left_out"]),
    ])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, predict, print; a bad flag or config is one line on stderr (exit 2)."""
    parser = make_parser()
    args = parser.parse_args(argv)  # None: sys.argv[1:]
    try:
        result = predict_request(args)
    except ValueError as exc:
        parser.error(str(exc))
    print(json.dumps(result, indent=1) if args.json else render(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
